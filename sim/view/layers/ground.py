"""The drawn ground of a table and overlays draped over it.

The ground is the table top (height 0) and the raised ground of Enhancing terrain
(Terrain p.60-62: a mound with a flat plateau and sloping sides, as
:func:`sim.view.style.ground_height` draws it). Regions and lines laid on the ground
(movement regions, lanes, swept paths) follow it: flat on the table and on plateaus,
cut into small cells and short pieces on the slopes.
"""

from __future__ import annotations

import math

import numpy as np
import shapely

from sim.geometry import Visibility

from .. import style
from ..mesh import MeshBuilder, rings_of
from .paint import DRAPE_STEP, SLOPE_CELL, SLOPE_LIFT


class Ground:
    """The drawn ground of ``table`` (a :class:`~sim.table.Table`); heights in inches."""

    def __init__(self, table):
        self.table = table
        self._raised_cache: list = []

    def height(self, xy) -> float:
        """Drawn ground height (inches) at ``xy``: 0, or the top of raised ground."""
        return style.ground_height(self.table, xy[0], xy[1])

    def raised(self) -> list:
        """``(footprint shape, plateau shape or None, height)`` of each Enhancing piece
        (raised ground; the plateau is where ``style.ground_height`` is flat)."""
        if not self._raised_cache:
            out = []
            for t in self.table.terrain:
                if t.visibility is not Visibility.ENHANCING:
                    continue
                h = style.terrain_draw_height(t)
                inset, _ = style.plateau_inset(t.footprint, h)
                shape = t.footprint.shape
                top = shape.buffer(-inset) if inset > 0 else None
                out.append((shape, None if top is None or top.is_empty else top, h))
            self._raised_cache.append(out)
        return self._raised_cache[0]

    def lifted(self, x: float, y: float) -> float:
        """The ground height at (x, y), plus :data:`SLOPE_LIFT` on slopes (a flat cell's
        chords run below the curved slope)."""
        g = self.height((x, y))
        return g + (SLOPE_LIFT if g > 0 else 0.0)

    def cap(self, mb: MeshBuilder, geom, z: float, colour) -> None:
        """Fill ``geom`` (shapely) ``z`` inches above the drawn ground: flat on the table
        and on the plateaus of raised ground, cut into small cells that follow the
        surface on its slopes."""
        if geom is None or geom.is_empty:
            return
        rest = geom
        for shape, top, h in self.raised():
            if not rest.intersects(shape):
                continue
            if top is not None:
                for ext, holes in rings_of(rest.intersection(top)):
                    mb.cap(ext, z + h, colour, holes=holes)
            slope = rest.intersection(shape if top is None else shape.difference(top))
            if not slope.is_empty:
                x0, y0, x1, y1 = slope.bounds
                xs, ys = np.arange(x0, x1, SLOPE_CELL), np.arange(y0, y1, SLOPE_CELL)
                gx, gy = (a.ravel() for a in np.meshgrid(xs, ys))
                cells = shapely.box(gx, gy, gx + SLOPE_CELL, gy + SLOPE_CELL)
                for part in shapely.intersection(cells, slope):
                    for ext, holes in rings_of(part):
                        mb.cap(ext, z, colour, holes=holes, z_of=self.lifted)
            rest = rest.difference(shape)
            if rest.is_empty:
                return
        for ext, holes in rings_of(rest):
            mb.cap(ext, z, colour, holes=holes)

    def line(self, points, z: float, closed: bool = False) -> np.ndarray:
        """3D points (n, 3) of the polyline ``points`` (x, y), cut into pieces of at most
        :data:`DRAPE_STEP` inches, ``z`` above the drawn ground."""
        pts = [tuple(map(float, p[:2])) for p in points]
        if closed and pts and pts[0] != pts[-1]:
            pts.append(pts[0])
        out = []
        for a, b in zip(pts, pts[1:]):
            n = max(1, int(math.ceil(math.dist(a, b) / DRAPE_STEP)))
            for i in range(n):
                t = i / n
                out.append((a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t))
        if pts:
            out.append(pts[-1])
        return np.array([(x, y, z + self.lifted(x, y)) for x, y in out], float).reshape(-1, 3)

    def outline(self, mb: MeshBuilder, geom, z: float, width: float, colour) -> None:
        """The rings of ``geom`` as lines ``width`` inches wide, ``z`` above the ground."""
        for ext, holes in rings_of(geom):
            for ring in (ext, *holes):
                mb.polyline(self.line(ring, z, closed=True), width, colour)
