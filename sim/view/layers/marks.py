"""Small flat marks laid on the drawn ground by the movement and special-move layers:
arrowheads, crosses (where a charge that falls short stops, where bases touched),
dashes (a charge lane that falls short), the ring where a charge ends in contact, and
the polyline and region helpers they need. Lengths in inches (Movement p.22-23,
Special abilities p.39-42).
"""

from __future__ import annotations

import math

import numpy as np
from shapely.ops import unary_union

from .. import style
from ..mesh import MeshBuilder, circle_ring
from .ground import Ground
from .paint import DASH, rgba


def areal(geom):
    """The polygons of ``geom`` plus its lines as 0.12" strips (a Walk or Run region
    may hold the leg directly away from an enemy as a line); points are dropped."""
    if geom is None or geom.is_empty:
        return None

    polys, lines = [], []

    def walk(g):
        if g.is_empty:
            return
        if g.geom_type in ("Polygon", "MultiPolygon"):
            polys.append(g)
        elif g.geom_type in ("LineString", "LinearRing", "MultiLineString"):
            lines.append(g.buffer(0.06, cap_style="flat"))
        elif hasattr(g, "geoms"):
            for part in g.geoms:
                walk(part)

    walk(geom)
    if not polys and not lines:
        return None
    return unary_union(polys + lines)


def cut(points, d: float) -> list:
    """The polyline ``points`` up to ``d`` inches along it."""
    out = [tuple(points[0])]
    left = d
    for a, b in zip(points, points[1:]):
        L = math.dist(a, b)
        if L >= left:
            f = 0.0 if L <= 1e-12 else left / L
            out.append((a[0] + (b[0] - a[0]) * f, a[1] + (b[1] - a[1]) * f))
            return out
        out.append(tuple(b))
        left -= L
    return out


def dashes(mb: MeshBuilder, pts3: np.ndarray, width: float, colour) -> None:
    """Dashes (:data:`DASH`) along the 3D polyline ``pts3``, from its start."""
    on, off = DASH
    pts3 = np.asarray(pts3, float)
    seg = np.hypot(*(pts3[1:, :2] - pts3[:-1, :2]).T)
    cum = np.concatenate([[0.0], np.cumsum(seg)])
    total = float(cum[-1])

    def at(d):
        k = int(np.clip(np.searchsorted(cum, d, side="right") - 1, 0, len(seg) - 1))
        f = 0.0 if seg[k] <= 0 else (d - cum[k]) / seg[k]
        return pts3[k] + (pts3[k + 1] - pts3[k]) * f

    for s0 in np.arange(0.0, total, on + off):
        s1 = min(total, s0 + on)
        inner = [pts3[k] for k in range(1, len(pts3) - 1) if s0 < cum[k] < s1]
        mb.polyline([at(s0), *inner, at(s1)], width, colour)


def end_marker(mb: MeshBuilder, ground: Ground, centre, radius: float, z: float, colour, dot: bool = True) -> None:
    """Where a charge ends in contact: a thin ring the size of the mover's base (and
    a dot at its centre)."""
    gz = z + ground.height(centre)
    mb.cap(circle_ring(centre, radius + 0.03, 40), gz, rgba(style.CHARGE_BORDER),
           holes=[circle_ring(centre, radius - 0.07, 40)])
    mb.cap(circle_ring(centre, radius, 40), gz + 0.003, colour, holes=[circle_ring(centre, radius - 0.04, 40)])
    if dot:
        mb.cap(circle_ring(centre, 0.12, 16), gz + 0.003, rgba(style.CHARGE_BORDER))
        mb.cap(circle_ring(centre, 0.08, 16), gz + 0.006, colour)


def cross(mb: MeshBuilder, ground: Ground, centre, size: float, z: float, colour, border=None) -> None:
    """An x ``size`` inches across at ``centre`` with a dark border: where a charge
    that falls short stops, where a special move's bases touched."""
    c = np.asarray(centre, float)
    gz = z + ground.height(centre)
    h = size / 2 / math.sqrt(2)
    border = rgba(style.CHARGE_BORDER) if border is None else border
    for width, col, dz in ((0.15, border, 0.0), (0.08, colour, 0.003)):
        for d in ((h, h), (h, -h)):
            d = np.asarray(d)
            mb.ribbon(c - d, c + d, gz + dz, width, col)


def arrow(mb: MeshBuilder, ground: Ground, a, b, z: float, size: float, colour, border=None) -> None:
    """An arrowhead with its tip at ``b``, pointing from ``a`` (``border``: the colour
    of its outline, dark by default)."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    d = b - a
    L = float(np.hypot(*d))
    if L < 1e-9:
        return
    u = d / L
    n = np.array([-u[1], u[0]])
    base = b - u * size
    gz = z + ground.height(b)
    border = rgba(style.CHARGE_BORDER) if border is None else border
    for grow, col, dz in ((0.05, border, 0.0), (0.0, colour, 0.003)):
        tip = b + u * grow
        left, right = base - u * grow + n * (size * 0.6 + grow), base - u * grow - n * (size * 0.6 + grow)
        idx = [mb.vertex((p[0], p[1], gz + dz), (0, 0, 1), col) for p in (tip, left, right)]
        mb.triangle(*idx)
