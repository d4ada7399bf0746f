"""Small Panda3D mesh helpers: triangles with normals, colours and texture coordinates.

All lengths in inches, table coordinates (x right, y away from player 1, z up).
"""

from __future__ import annotations

import math
from typing import Iterable, Sequence

import numpy as np
from panda3d.core import (
    Geom,
    GeomNode,
    GeomTriangles,
    GeomVertexData,
    GeomVertexFormat,
    GeomVertexWriter,
    Triangulator,
)

Vec3 = Sequence[float]


class MeshBuilder:
    """Collects triangles and turns them into one ``GeomNode``.

    Colours are ``(r, g, b, a)``; ``uv`` are texture coordinates (any unit: the
    caller picks the texture's scale).
    """

    def __init__(self, name: str):
        self.name = name
        self._data = GeomVertexData(name, GeomVertexFormat.get_v3n3c4t2(), Geom.UH_static)
        self._v = GeomVertexWriter(self._data, "vertex")
        self._n = GeomVertexWriter(self._data, "normal")
        self._c = GeomVertexWriter(self._data, "color")
        self._t = GeomVertexWriter(self._data, "texcoord")
        self._tris = GeomTriangles(Geom.UH_static)
        self._count = 0

    def vertex(self, p: Vec3, n: Vec3, colour, uv=(0.0, 0.0)) -> int:
        """Add one vertex; returns its index."""
        self._v.add_data3(float(p[0]), float(p[1]), float(p[2]))
        self._n.add_data3(float(n[0]), float(n[1]), float(n[2]))
        self._c.add_data4(float(colour[0]), float(colour[1]), float(colour[2]),
                          float(colour[3]) if len(colour) > 3 else 1.0)
        self._t.add_data2(float(uv[0]), float(uv[1]))
        self._count += 1
        return self._count - 1

    def triangle(self, i: int, j: int, k: int) -> None:
        """A triangle of three vertex indices, counter-clockwise seen from its front."""
        self._tris.add_vertices(i, j, k)

    def quad(self, corners: Sequence[Vec3], normal: Vec3, colour, uvs=None) -> None:
        """A flat quad of four corners in counter-clockwise order (seen from its front)."""
        uvs = uvs or [(0, 0), (1, 0), (1, 1), (0, 1)]
        idx = [self.vertex(p, normal, colour, uv) for p, uv in zip(corners, uvs)]
        self.triangle(idx[0], idx[1], idx[2])
        self.triangle(idx[0], idx[2], idx[3])

    def cap(self, ring: np.ndarray, z: float, colour, up: bool = True, uv_scale: float = 1.0, holes=(),
            z_of=None) -> None:
        """A horizontal polygon at height ``z`` from a CCW ``ring`` (n, 2), with optional
        hole rings; faces up (or down when ``up`` is False). ``uv`` = xy / uv_scale.
        ``z_of(x, y)``, if given, adds a height per vertex (a polygon draped over the
        ground); the normal stays vertical."""
        ring = distinct_ring(ring)
        if len(ring) < 3:
            return
        tri = Triangulator()
        for x, y in ring:
            tri.add_polygon_vertex(tri.add_vertex(float(x), float(y)))
        for hole in holes:
            hole = distinct_ring(hole)
            if len(hole) < 3:
                continue
            tri.begin_hole()
            for x, y in hole:
                tri.add_hole_vertex(tri.add_vertex(float(x), float(y)))
        tri.triangulate()
        n = (0.0, 0.0, 1.0 if up else -1.0)
        base = {}
        for t in range(tri.get_num_triangles()):
            vs = [tri.get_triangle_v0(t), tri.get_triangle_v1(t), tri.get_triangle_v2(t)]
            idx = []
            for v in vs:
                if v not in base:
                    p = tri.get_vertex(v)
                    pz = z if z_of is None else z + z_of(p[0], p[1])
                    base[v] = self.vertex((p[0], p[1], pz), n, colour, (p[0] / uv_scale, p[1] / uv_scale))
                idx.append(base[v])
            a, b, c = idx
            pa, pb, pc = (tri.get_vertex(v) for v in vs)
            ccw = (pb[0] - pa[0]) * (pc[1] - pa[1]) - (pb[1] - pa[1]) * (pc[0] - pa[0]) > 0
            if ccw == up:
                self.triangle(a, b, c)
            else:
                self.triangle(a, c, b)

    def walls(self, bottom: np.ndarray, top: np.ndarray, z0: float, z1: float, colour,
              smooth: bool = False, uv_scale: float = 1.0) -> None:
        """Side faces joining a CCW ``bottom`` ring at ``z0`` to a matching ``top`` ring at
        ``z1`` (same vertex count; equal rings give a prism, a smaller top a mound).
        ``smooth`` gives per-vertex normals (for circles)."""
        bottom, top = np.asarray(bottom, float), np.asarray(top, float)
        nxt = np.roll(np.arange(len(bottom)), -1)
        edge = bottom[nxt] - bottom
        length = np.hypot(edge[:, 0], edge[:, 1])
        keep = length > 1e-9
        rise = z1 - z0
        if smooth:
            centre = bottom.mean(axis=0)
            radial = bottom - centre
            rb = np.hypot(radial[:, 0], radial[:, 1])
            rt = np.hypot(*(top - centre).T)
            normals = np.column_stack([radial / np.maximum(rb, 1e-12)[:, None] * rise, rb - rt])
        else:
            out = np.column_stack([edge[:, 1], -edge[:, 0]]) / np.maximum(length, 1e-12)[:, None]
            inset = np.einsum("ij,ij->i", bottom - top, out)
            normals = np.column_stack([out * rise, inset])
        normals /= np.maximum(np.linalg.norm(normals, axis=1), 1e-12)[:, None]
        s = np.concatenate([[0.0], np.cumsum(length)]) / uv_scale
        v0, v1 = z0 / uv_scale, z1 / uv_scale
        for i in np.nonzero(keep)[0]:
            j = nxt[i]
            ni, nj = (normals[i], normals[j]) if smooth else (normals[i], normals[i])
            b0, b1, t0, t1 = bottom[i], bottom[j], top[i], top[j]
            a = self.vertex((b0[0], b0[1], z0), ni, colour, (s[i], v0))
            b = self.vertex((b1[0], b1[1], z0), nj, colour, (s[i + 1], v0))
            c = self.vertex((t1[0], t1[1], z1), nj, colour, (s[i + 1], v1))
            d = self.vertex((t0[0], t0[1], z1), ni, colour, (s[i], v1))
            self.triangle(a, b, c)
            self.triangle(a, c, d)

    def cylinder(self, centre, radius: float, z0: float, z1: float, colour, segments: int = 32,
                 top_radius: float | None = None, top_colour=None) -> None:
        """A (truncated) cone/cylinder standing on the table plane with a top cap."""
        ring = circle_ring(centre, radius, segments)
        top = circle_ring(centre, radius if top_radius is None else top_radius, segments)
        self.walls(ring, top, z0, z1, colour, smooth=True)
        self.cap(top, z1, top_colour or colour)

    def sphere(self, centre: Vec3, radius: float, colour, segments: int = 16, rings: int = 8) -> None:
        """A UV sphere."""
        cx, cy, cz = centre
        grid = []
        for i in range(rings + 1):
            phi = math.pi * i / rings - math.pi / 2
            row = []
            for j in range(segments + 1):
                th = 2 * math.pi * j / segments
                n = (math.cos(phi) * math.cos(th), math.cos(phi) * math.sin(th), math.sin(phi))
                row.append(self.vertex((cx + radius * n[0], cy + radius * n[1], cz + radius * n[2]), n, colour))
            grid.append(row)
        for i in range(rings):
            for j in range(segments):
                a, b, c, d = grid[i][j], grid[i][j + 1], grid[i + 1][j + 1], grid[i + 1][j]
                self.triangle(a, b, c)
                self.triangle(a, c, d)

    def ribbon(self, a, b, z: float, width: float, colour, z_end: float | None = None) -> None:
        """A strip ``width`` inches wide (flat sideways) from ``a`` (x, y) at height ``z``
        to ``b`` at ``z_end`` (default ``z``)."""
        a, b = np.asarray(a, float), np.asarray(b, float)
        d = b - a
        length = float(np.hypot(*d))
        if length < 1e-9:
            return
        side = np.array([-d[1], d[0]]) / length * width / 2
        pts = [a - side, b - side, b + side, a + side]
        z1 = z if z_end is None else z_end
        zs = [z, z1, z1, z]
        self.quad([(p[0], p[1], zz) for p, zz in zip(pts, zs)], (0, 0, 1), colour)

    def polyline(self, points, width: float, colour) -> None:
        """Flat ribbons ``width`` inches wide along 3D ``points`` (n, 3), one per segment,
        with a round joint where the line turns so corners have no gaps."""
        pts = np.asarray(points, float)
        for a, b in zip(pts, pts[1:]):
            self.ribbon(a[:2], b[:2], a[2], width, colour, z_end=b[2])
        for prev, p, nxt in zip(pts, pts[1:], pts[2:]):
            u, v = p[:2] - prev[:2], nxt[:2] - p[:2]
            nu, nv = float(np.hypot(*u)), float(np.hypot(*v))
            if nu < 1e-9 or nv < 1e-9 or abs(u[0] * v[1] - u[1] * v[0]) / (nu * nv) > 0.02 or u @ v < 0:
                self.cap(circle_ring(p[:2], width / 2, 12), p[2], colour)

    def node(self) -> GeomNode:
        """The finished ``GeomNode``."""
        geom = Geom(self._data)
        geom.add_primitive(self._tris)
        gn = GeomNode(self.name)
        gn.add_geom(geom)
        return gn


#: Ring vertices closer than this (inches) to the previous one are dropped before
#: triangulating: Panda3D's Triangulator fails ("add_segment: error") and may crash on
#: near-coincident vertices (a ZoC region had two 2e-14" apart).
DISTINCT = 1e-7


def distinct_ring(ring) -> np.ndarray:
    """``ring`` ((n, 2) points, not closed) without the vertices within :data:`DISTINCT`
    of the one before them (nor the last ones within it of the first)."""
    pts = np.asarray(ring, dtype=float).reshape(-1, 2)
    if len(pts) < 2:
        return pts
    keep = np.concatenate([[True], np.hypot(*np.diff(pts, axis=0).T) > DISTINCT])
    if keep.all() and math.hypot(*(pts[-1] - pts[0])) > DISTINCT:
        return pts
    out = pts[keep]
    while len(out) > 1 and math.hypot(*(out[-1] - out[0])) <= DISTINCT:
        out = out[:-1]
    return out


def circle_ring(centre, radius: float, segments: int = 64) -> np.ndarray:
    """CCW ring of ``segments`` points on a circle, shape (segments, 2)."""
    t = np.linspace(0.0, 2 * math.pi, segments, endpoint=False)
    return np.stack([centre[0] + radius * np.cos(t), centre[1] + radius * np.sin(t)], axis=1)


def rings_of(geom) -> Iterable[tuple[np.ndarray, list[np.ndarray]]]:
    """``(exterior, holes)`` CCW/any arrays of each polygon of a shapely (Multi)Polygon
    (or GeometryCollection), dropping the repeated closing vertex."""
    if geom is None or geom.is_empty:
        return
    parts = getattr(geom, "geoms", [geom])
    for g in parts:
        if g.geom_type == "Polygon":
            ext = np.asarray(g.exterior.coords)[:-1]
            holes = [np.asarray(h.coords)[:-1] for h in g.interiors]
            if len(ext) >= 3:
                yield ext, holes
        elif hasattr(g, "geoms"):
            yield from rings_of(g)
