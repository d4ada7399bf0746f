"""Terrain footprints: polygons and circles, in inches.

A footprint is the area a terrain piece covers on the table (Terrain p.60). Circles are
kept as exact circles for every measurement (distance, LoS tangents); the shapely
polygon (``Footprint.shape``) is only an approximation used for drawing and set-up checks.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import shapely
from shapely.geometry import Point, Polygon
from shapely.geometry.base import BaseGeometry

from .attributes import EPS
from .primitives import polygon_is_convex

#: Segments per quarter circle when a circle is drawn or approximated as a polygon.
CIRCLE_QUAD_SEGS = 32


class FootprintError(ValueError):
    """A footprint is degenerate, self-intersecting or otherwise unusable."""


@dataclass(frozen=True, eq=False)
class Footprint:
    """A polygon or a circle on the table, inches.

    Build with :meth:`polygon`, :meth:`circle` or :meth:`rect`. Polygon vertices are
    stored counter-clockwise without repeating the first vertex, shape ``(n, 2)``.
    """

    kind: str  # "polygon" | "circle"
    vertices: np.ndarray = field(default_factory=lambda: np.zeros((0, 2)))
    center: tuple[float, float] = (0.0, 0.0)
    radius: float = 0.0

    # ----------------------------------------------------------------- builders
    @classmethod
    def polygon(cls, points) -> "Footprint":
        """A simple polygon from ``points`` (sequence of ``[x, y]``, inches).

        Raises:
            FootprintError: fewer than 3 distinct vertices, zero area, or
                self-intersecting.
        """
        pts = np.asarray(points, dtype=float)
        if pts.ndim != 2 or pts.shape[1] != 2:
            raise FootprintError("polygon must be a list of [x, y] points")
        if not np.all(np.isfinite(pts)):
            raise FootprintError("polygon has a non-finite coordinate")
        if len(pts) > 1 and np.allclose(pts[0], pts[-1]):
            pts = pts[:-1]
        # drop consecutive duplicates
        keep = np.ones(len(pts), dtype=bool)
        keep[1:] = np.any(np.abs(np.diff(pts, axis=0)) > EPS, axis=1)
        pts = pts[keep]
        if len(pts) < 3:
            raise FootprintError("polygon needs at least 3 distinct vertices")
        poly = Polygon(pts)
        if not poly.is_valid:
            reason = shapely.is_valid_reason(poly)
            raise FootprintError(f"polygon is not simple ({reason})")
        if poly.area <= EPS:
            raise FootprintError("polygon is degenerate (zero area)")
        if not poly.exterior.is_ccw:
            pts = pts[::-1]
        return cls("polygon", vertices=np.ascontiguousarray(pts))

    @classmethod
    def circle(cls, center, radius: float) -> "Footprint":
        """A circle of ``radius`` inches around ``center`` ``[x, y]``.

        Raises:
            FootprintError: non-finite values or radius <= 0.
        """
        cx, cy = (float(v) for v in center)
        r = float(radius)
        if not (math.isfinite(cx) and math.isfinite(cy) and math.isfinite(r)):
            raise FootprintError("circle has a non-finite value")
        if r <= EPS:
            raise FootprintError(f"circle radius must be > 0, not {radius!r}")
        return cls("circle", center=(cx, cy), radius=r)

    @classmethod
    def rect(cls, center, width: float, depth: float, rotation: float = 0.0) -> "Footprint":
        """A rectangle ``width`` (along x) by ``depth`` (along y) inches around ``center``,
        turned ``rotation`` degrees counter-clockwise.

        Raises:
            FootprintError: non-finite values or a side <= 0.
        """
        cx, cy = (float(v) for v in center)
        w, d, rot = float(width), float(depth), float(rotation)
        if not all(math.isfinite(v) for v in (cx, cy, w, d, rot)):
            raise FootprintError("rect has a non-finite value")
        if w <= EPS or d <= EPS:
            raise FootprintError(f"rect width and depth must be > 0, not {width!r} x {depth!r}")
        c, s = math.cos(math.radians(rot)), math.sin(math.radians(rot))
        local = np.array([[-w / 2, -d / 2], [w / 2, -d / 2], [w / 2, d / 2], [-w / 2, d / 2]])
        rotm = np.array([[c, -s], [s, c]])
        return cls.polygon(local @ rotm.T + np.array([cx, cy]))

    # ------------------------------------------------------------- properties
    @property
    def is_circle(self) -> bool:
        """True for a circle footprint (kept exact), False for a polygon."""
        return self.kind == "circle"

    @cached_property
    def shape(self) -> BaseGeometry:
        """shapely geometry (circles approximated by a fine polygon, inside the circle)."""
        if self.is_circle:
            return Point(self.center).buffer(self.radius, quad_segs=CIRCLE_QUAD_SEGS)
        return Polygon(self.vertices)

    @cached_property
    def prepared_shape(self) -> BaseGeometry:
        """Same as :attr:`shape`, prepared for repeated predicates."""
        geom = shapely.from_wkb(shapely.to_wkb(self.shape))
        shapely.prepare(geom)
        return geom

    @property
    def area(self) -> float:
        """Area in square inches (exact for circles)."""
        return math.pi * self.radius**2 if self.is_circle else float(self.shape.area)

    @property
    def bounds(self) -> tuple[float, float, float, float]:
        """``(minx, miny, maxx, maxy)`` in inches (exact for circles)."""
        if self.is_circle:
            (x, y), r = self.center, self.radius
            return (x - r, y - r, x + r, y + r)
        mn, mx = self.vertices.min(axis=0), self.vertices.max(axis=0)
        return (float(mn[0]), float(mn[1]), float(mx[0]), float(mx[1]))

    @cached_property
    def convex(self) -> bool:
        """True for a circle or a convex polygon."""
        return self.is_circle or polygon_is_convex(self.vertices)

    @cached_property
    def bounding_circle(self) -> tuple[np.ndarray, float]:
        """``(center (2,), radius)`` of a circle that contains the footprint."""
        if self.is_circle:
            return np.array(self.center), self.radius
        c = self.vertices.mean(axis=0)
        return c, float(np.max(np.hypot(*(self.vertices - c).T)))

    # -------------------------------------------------------------- measuring
    def distance_to_point(self, p) -> float:
        """Distance in inches from point ``p`` to the footprint (0 inside)."""
        px, py = float(p[0]), float(p[1])
        if self.is_circle:
            return max(0.0, math.hypot(px - self.center[0], py - self.center[1]) - self.radius)
        return float(shapely.distance(self.shape, Point(px, py)))

    def distance_to_disc(self, center, radius: float) -> float:
        """Smallest distance in inches from a disc (a base) to the footprint; 0 if they
        overlap (rulings.md section 2, model to terrain)."""
        return max(0.0, self.distance_to_point(center) - radius)

    def contains_point(self, p) -> bool:
        """True if ``p`` is inside the footprint or on its boundary (within EPS)."""
        return self.distance_to_point(p) <= EPS

    def overlap_depth_disc(self, center, radius: float) -> float:
        """How far (inches) a disc reaches into the footprint's interior: ``radius`` minus
        the distance from the disc centre to the outside; <= 0 when they do not overlap."""
        px, py = float(center[0]), float(center[1])
        if self.is_circle:
            return radius + self.radius - math.hypot(px - self.center[0], py - self.center[1])
        pt = Point(px, py)
        d_boundary = float(shapely.distance(self.shape.exterior, pt))
        inside = bool(shapely.contains_xy(self.shape, px, py))
        return radius + d_boundary if inside else radius - d_boundary

    # ------------------------------------------------------------ transforms
    def transformed(self, rotation: float = 0.0, offset=(0.0, 0.0), pivot=(0.0, 0.0)) -> "Footprint":
        """The footprint rotated ``rotation`` degrees CCW about ``pivot`` then moved by
        ``offset`` (inches). Used by property tests and table editing."""
        c, s = math.cos(math.radians(rotation)), math.sin(math.radians(rotation))
        rotm = np.array([[c, -s], [s, c]])
        piv, off = np.asarray(pivot, float), np.asarray(offset, float)
        if self.is_circle:
            nc = (np.asarray(self.center) - piv) @ rotm.T + piv + off
            return Footprint.circle(nc, self.radius)
        return Footprint.polygon((self.vertices - piv) @ rotm.T + piv + off)

    def to_dict(self) -> dict:
        """The footprint as a ``bushido-table/1`` mapping (``polygon`` or ``circle``)."""
        if self.is_circle:
            return {"circle": {"center": list(self.center), "radius": self.radius}}
        return {"polygon": self.vertices.tolist()}
