"""The movement overlay of the selected model (Movement p.22-23): where its base centre
can end a Walk (translucent green) or a Run (translucent blue, beyond the walk region
when both are shown), and its charge lanes (solid orange to a ring where the base ends
in contact with the target, dashed grey to a cross where a charge that falls short
stops). The regions and lanes come from :mod:`sim.view.drag` (``sim.rules.planning``
when available, cached per table state), draped over raised ground.

Speed: the regions are filled and outlined with whole numpy arrays written into one
vertex buffer each (:class:`ArrayMesh`: GEOS constrained Delaunay triangles, vectorised
ribbons and joints, :func:`ground_heights` for the drape) instead of a vertex at a time;
what is drawn for a model is kept, so selecting it again costs nothing. The slow
reference -- :meth:`sim.view.layers.ground.Ground.cap` / ``outline`` and
:func:`sim.view.style.ground_height` -- stays, and ``tests/test_window_fixes.py`` holds
the fast path to it (the same heights, the same filled area).
"""

from __future__ import annotations

import math

import numpy as np
import shapely
from panda3d.core import (
    Geom,
    GeomNode,
    GeomTriangles,
    GeomVertexArrayFormat,
    GeomVertexData,
    GeomVertexFormat,
    InternalName,
    NodePath,
    TransparencyAttrib,
)

from sim.geometry import EPS, Visibility

from .. import drag, style
from ..mesh import MeshBuilder
from .ground import Ground
from .marks import areal, arrow, cross, dashes, end_marker
from .paint import DRAPE_STEP, GHOST_ALPHA, LANE_Z, RUN_Z, SLOPE_CELL, SLOPE_LIFT, WALK_Z, overlay_bin, rgba

_FORMAT = None


def _vertex_format():
    """Position (3 floats) and colour (4 floats) in one array: written from numpy at once."""
    global _FORMAT
    if _FORMAT is None:
        arr = GeomVertexArrayFormat()
        arr.add_column(InternalName.get_vertex(), 3, Geom.NT_float32, Geom.C_point)
        arr.add_column(InternalName.get_color(), 4, Geom.NT_float32, Geom.C_color)
        _FORMAT = GeomVertexFormat.register_format(arr)
    return _FORMAT


def ground_heights(table, xy) -> np.ndarray:
    """:func:`sim.view.style.ground_height` for many points at once: the drawn ground
    height (inches) at each ``(x, y)`` of ``xy`` (shape (n, 2)) -- 0 on the table, the
    surface of an Enhancing mound on raised ground. The same numbers as the per-point
    reference (a test holds them equal on random points)."""
    xy = np.asarray(xy, float).reshape(-1, 2)
    z = np.zeros(len(xy))
    if not len(xy):
        return z
    pts = None
    for t in table.terrain:
        if t.visibility is not Visibility.ENHANCING:
            continue
        fp = t.footprint
        x0, y0, x1, y1 = fp.shape.bounds
        near = ((xy[:, 0] >= x0 - 2 * EPS) & (xy[:, 0] <= x1 + 2 * EPS)
                & (xy[:, 1] >= y0 - 2 * EPS) & (xy[:, 1] <= y1 + 2 * EPS))
        if not near.any():
            continue
        idx = np.flatnonzero(near)
        if pts is None:
            pts = shapely.points(xy)
        if fp.is_circle:
            d = np.maximum(0.0, np.hypot(xy[idx, 0] - fp.center[0], xy[idx, 1] - fp.center[1]) - fp.radius)
        else:
            d = shapely.distance(fp.shape, pts[idx])
        idx = idx[d <= EPS]
        if not len(idx):
            continue
        h = style.terrain_draw_height(t)
        inset, _ = style.plateau_inset(fp, h)
        if inset <= 0:
            zz = np.full(len(idx), h)
        else:
            depth = shapely.distance(fp.shape.exterior, pts[idx])
            zz = h * np.minimum(1.0, depth / inset)
        z[idx] = np.maximum(z[idx], zz)
    return z


def lifted_heights(table, xy) -> np.ndarray:
    """:func:`ground_heights` plus :data:`~sim.view.layers.paint.SLOPE_LIFT` where the
    ground is raised (as :meth:`Ground.lifted <sim.view.layers.ground.Ground.lifted>`)."""
    z = ground_heights(table, xy)
    return z + np.where(z > 0, SLOPE_LIFT, 0.0)


def triangles(geom) -> np.ndarray:
    """The polygons of ``geom`` cut into triangles: shape (n, 3, 2), inches (GEOS
    constrained Delaunay; holes respected; the triangles' areas sum to the area)."""
    if geom is None:
        return np.zeros((0, 3, 2))
    geoms = np.atleast_1d(np.asarray(geom, dtype=object))
    geoms = geoms[~shapely.is_empty(geoms)]
    if not len(geoms):
        return np.zeros((0, 3, 2))
    tris = shapely.get_parts(shapely.constrained_delaunay_triangles(geoms))
    tris = tris[shapely.get_type_id(tris) == 3]
    if not len(tris):
        return np.zeros((0, 3, 2))
    rings = shapely.get_coordinates(shapely.get_exterior_ring(tris))
    return rings.reshape(-1, 4, 2)[:, :3]


class ArrayMesh:
    """Triangles collected as numpy arrays (position, colour) and written into one
    ``GeomNode`` at once: the fast way to build big flat overlays. Lengths in inches."""

    def __init__(self, name: str):
        self.name = name
        self._v: list[np.ndarray] = []
        self._c: list[np.ndarray] = []

    @property
    def count(self) -> int:
        """Triangles collected so far."""
        return sum(len(v) for v in self._v) // 3

    def corners(self) -> np.ndarray:
        """The triangles collected so far, shape (n, 3, 3): x, y, z of each corner."""
        if not self._v:
            return np.zeros((0, 3, 3))
        return np.concatenate(self._v).reshape(-1, 3, 3)

    def add(self, tris3: np.ndarray, colour) -> None:
        """Triangles of shape (n, 3, 3) (x, y, z corners) in ``colour`` (r, g, b, a)."""
        tris3 = np.asarray(tris3, float).reshape(-1, 3)
        if not len(tris3):
            return
        self._v.append(tris3)
        c = np.asarray(colour, float)
        if len(c) == 3:
            c = np.append(c, 1.0)
        self._c.append(np.broadcast_to(c, (len(tris3), 4)))

    def fill(self, tris2: np.ndarray, z, colour) -> None:
        """Flat triangles (n, 3, 2) at height ``z``: a number, or one per corner (n, 3)."""
        tris2 = np.asarray(tris2, float).reshape(-1, 3, 2)
        zz = np.broadcast_to(np.asarray(z, float), tris2.shape[:2])
        self.add(np.concatenate([tris2, zz[..., None]], axis=2), colour)

    def polyline(self, pts3, width: float, colour, joint_segments: int = 12) -> None:
        """Flat ribbons ``width`` inches wide along the 3D points ``pts3`` (n, 3), one
        per segment, with a round joint (a disc of ``joint_segments``) where the line
        turns, as :meth:`sim.view.mesh.MeshBuilder.polyline` draws them."""
        p = np.asarray(pts3, float).reshape(-1, 3)
        if len(p) < 2:
            return
        d = p[1:, :2] - p[:-1, :2]
        L = np.hypot(d[:, 0], d[:, 1])
        keep = L > 1e-9
        if keep.any():
            a, b, dk, Lk = p[:-1][keep], p[1:][keep], d[keep], L[keep]
            side = np.column_stack([-dk[:, 1], dk[:, 0]]) / Lk[:, None] * (width / 2)
            a0 = np.column_stack([a[:, :2] - side, a[:, 2]])
            b0 = np.column_stack([b[:, :2] - side, b[:, 2]])
            b1 = np.column_stack([b[:, :2] + side, b[:, 2]])
            a1 = np.column_stack([a[:, :2] + side, a[:, 2]])
            self.add(np.stack([a0, b0, b1, a0, b1, a1], axis=1).reshape(-1, 3, 3), colour)
        if len(p) < 3:
            return
        u, v = d[:-1], d[1:]
        nu, nv = L[:-1], L[1:]
        with np.errstate(divide="ignore", invalid="ignore"):
            bend = np.abs(u[:, 0] * v[:, 1] - u[:, 1] * v[:, 0]) / (nu * nv)
        joint = (nu < 1e-9) | (nv < 1e-9) | (bend > 0.02) | ((u * v).sum(axis=1) < 0)
        centres = p[1:-1][joint]
        if not len(centres):
            return
        t = np.linspace(0.0, 2 * math.pi, joint_segments, endpoint=False)
        ring = np.column_stack([np.cos(t), np.sin(t)]) * (width / 2)
        nxt = np.roll(np.arange(joint_segments), -1)
        c2 = centres[:, None, :2]
        r0 = c2 + ring[None, :, :]
        r1 = c2 + ring[nxt][None, :, :]
        cc = np.broadcast_to(c2, r0.shape)
        zz = np.broadcast_to(centres[:, None, 2:3], r0.shape[:2] + (1,))
        tri = np.stack([np.concatenate([cc, zz], 2), np.concatenate([r0, zz], 2), np.concatenate([r1, zz], 2)], 2)
        self.add(tri.reshape(-1, 3, 3), colour)

    def node(self) -> GeomNode:
        """The finished ``GeomNode`` (empty when nothing was added)."""
        gn = GeomNode(self.name)
        if not self._v:
            return gn
        v = np.concatenate(self._v)
        c = np.concatenate(self._c)
        n = len(v)
        data = GeomVertexData(self.name, _vertex_format(), Geom.UH_static)
        data.unclean_set_num_rows(n)
        buf = memoryview(data.modify_array(0)).cast("B").cast("f")
        buf[:] = np.ascontiguousarray(np.hstack([v, c]), dtype=np.float32).ravel()
        prim = GeomTriangles(Geom.UH_static)
        prim.set_index_type(Geom.NT_uint32)
        verts = prim.modify_vertices()
        verts.unclean_set_num_rows(n)
        ibuf = memoryview(verts).cast("B").cast("I")
        ibuf[:] = np.arange(n, dtype=np.uint32)
        geom = Geom(data)
        geom.add_primitive(prim)
        gn.add_geom(geom)
        return gn


def drape_line(table, points, z: float, closed: bool = False) -> np.ndarray:
    """3D points (n, 3) of the polyline ``points`` cut into pieces of at most
    :data:`~sim.view.layers.paint.DRAPE_STEP` inches, ``z`` above the drawn ground (as
    :meth:`Ground.line <sim.view.layers.ground.Ground.line>`, vectorised)."""
    pts = np.asarray(points, float).reshape(-1, 2)
    if closed and len(pts) and not np.array_equal(pts[0], pts[-1]):
        pts = np.vstack([pts, pts[:1]])
    if len(pts) < 2:
        out = pts
    else:
        seg = pts[1:] - pts[:-1]
        n = np.maximum(1, np.ceil(np.hypot(seg[:, 0], seg[:, 1]) / DRAPE_STEP).astype(int))
        k = np.repeat(np.arange(len(seg)), n)
        f = (np.arange(n.sum()) - np.repeat(np.cumsum(n) - n, n)) / np.repeat(n, n)
        out = np.vstack([pts[:-1][k] + seg[k] * f[:, None], pts[-1:]])
    return np.column_stack([out, z + lifted_heights(table, out)])


def fill_region(mesh: ArrayMesh, table, ground: Ground, geom, z: float, colour) -> None:
    """Fill ``geom`` ``z`` inches above the drawn ground, as
    :meth:`Ground.cap <sim.view.layers.ground.Ground.cap>` does (flat on the table and
    on plateaus, small cells following the slopes of raised ground), vectorised."""
    if geom is None or geom.is_empty:
        return
    rest = geom
    for shape, top, h in ground.raised():
        if not rest.intersects(shape):
            continue
        if top is not None:
            mesh.fill(triangles(rest.intersection(top)), z + h, colour)
        slope = rest.intersection(shape if top is None else shape.difference(top))
        if not slope.is_empty:
            x0, y0, x1, y1 = slope.bounds
            xs, ys = np.arange(x0, x1, SLOPE_CELL), np.arange(y0, y1, SLOPE_CELL)
            gx, gy = (a.ravel() for a in np.meshgrid(xs, ys))
            cells = shapely.intersection(shapely.box(gx, gy, gx + SLOPE_CELL, gy + SLOPE_CELL), slope)
            tri = triangles(cells)
            if len(tri):
                mesh.fill(tri, z + lifted_heights(table, tri.reshape(-1, 2)).reshape(-1, 3), colour)
        rest = rest.difference(shape)
        if rest.is_empty:
            return
    mesh.fill(triangles(rest), z, colour)


def outline_region(mesh: ArrayMesh, table, geom, z: float, width: float, colour) -> None:
    """The rings of ``geom`` as lines ``width`` inches wide, ``z`` above the ground (as
    :meth:`Ground.outline <sim.view.layers.ground.Ground.outline>`, vectorised)."""
    if geom is None or geom.is_empty:
        return
    for ring in shapely.get_rings(shapely.get_parts(np.atleast_1d(np.asarray(geom, dtype=object)))):
        coords = shapely.get_coordinates(ring)
        if len(coords) >= 4:
            mesh.polyline(drape_line(table, coords[:-1], z, closed=True), width, colour)


class MovementLayer:
    """The movement overlays drawn under ``node`` for the selected model.

    Attributes:
        shown: the overlays shown (names from ``drag.OVERLAYS``), kept when the
            selection changes.
        empty: those of ``shown`` with nothing to draw for the selected model.
    """

    def __init__(self, node: NodePath, table, ground: Ground):
        self.node = node
        self.table = table
        self.ground = ground
        self.shown: tuple[str, ...] = ()
        self.empty: set[str] = set()
        self._cache: dict = {}
        self._drawn: dict = {}  # (selected, shown) -> (NodePath, empty): drawn once

    def data(self, kind: str, selected: str):
        """The ``kind`` overlay's region or lanes for ``selected`` (None: a model
        without a Move value)."""
        key = (kind, selected)
        if key not in self._cache:
            fn = {"walk": drag.walk_region, "run": drag.run_region, "charges": drag.charge_lanes}[kind]
            try:
                self._cache[key] = fn(self.table, selected)
            except ValueError:  # MoveError: a model without a Move value
                self._cache[key] = None
        return self._cache[key]

    def draw(self, selected: str | None) -> None:
        """Draw the :attr:`shown` overlays of ``selected`` (None: nothing); a part drawn
        for the same model before (its walk region, its run region beyond the walk
        region or all of it, its lanes) is shown again as it was."""
        self.node.node().remove_all_children()
        self.empty = set()
        if selected is None or not self.shown:
            return
        walk_on = "walk" in self.shown
        parts = [("walk", selected)] if walk_on else []
        if "run" in self.shown:
            parts.append(("run", selected, walk_on))
        if "charges" in self.shown:
            parts.append(("charges", selected))
        for key in parts:
            if key not in self._drawn:
                holder = NodePath("movement-" + "-".join(map(str, key)))
                self._drawn[key] = (holder, self._build(holder, key))
            holder, empty = self._drawn[key]
            holder.reparent_to(self.node)
            if empty:
                self.empty.add(key[0])

    def _flat(self, holder: NodePath) -> NodePath:
        flat = holder.attach_new_node("movement-flat")
        flat.set_light_off(1)
        flat.set_transparency(TransparencyAttrib.M_alpha)  # depth writes on: see table_mesh.draw_terrain
        flat.set_two_sided(True)
        return flat

    def _build(self, holder: NodePath, key: tuple) -> bool:
        """Draw one part (``("walk", id)``, ``("run", id, walk shown)``,
        ``("charges", id)``) under ``holder``; True when it has nothing to draw."""
        kind, selected = key[0], key[1]
        if kind == "charges":
            lanes = self.data("charges", selected) or []
            if lanes:
                self._draw_lanes(holder, lanes, selected)
            return not lanes
        region = areal(self.data(kind, selected))
        if region is None or region.is_empty:
            return True
        flat = self._flat(holder)
        if kind == "walk":
            mesh = ArrayMesh("walk-region")
            fill_region(mesh, self.table, self.ground, region, WALK_Z, rgba(style.WALK, style.WALK_ALPHA))
            flat.attach_new_node(mesh.node()).set_bin(overlay_bin(), -2)
            edge = ArrayMesh("walk-edge")
            outline_region(edge, self.table, region, WALK_Z + 0.002, 0.05, rgba(style.WALK_EDGE))
            flat.attach_new_node(edge.node()).set_bin(overlay_bin(), -1)
            return False
        walk = areal(self.data("walk", selected)) if key[2] else None
        shown = region.difference(walk) if walk is not None and not walk.is_empty else region
        mesh = ArrayMesh("run-region")
        fill_region(mesh, self.table, self.ground, shown, RUN_Z, rgba(style.RUN, style.RUN_ALPHA))
        flat.attach_new_node(mesh.node()).set_bin(overlay_bin(), -4)
        edge = ArrayMesh("run-edge")
        outline_region(edge, self.table, region, RUN_Z + 0.002, 0.05, rgba(style.RUN_EDGE))
        flat.attach_new_node(edge.node()).set_bin(overlay_bin(), -3)
        return False

    def _draw_lanes(self, holder: NodePath, lanes, selected: str) -> None:
        r = self.table.model(selected).radius
        w = style.CHARGE_WIDTH
        mb = MeshBuilder("charge-lanes")
        # lanes that fall short first: those that reach are drawn over them
        for lane in sorted(lanes, key=lambda ln: bool(ln.reached)):
            path = [tuple(p) for p in lane.path]
            if len(path) < 2:
                path = path * 2
            if lane.reached:
                colour = rgba(style.CHARGE)
                end = np.asarray(path[-1], float)
                prev = np.asarray(path[-2], float)
                last = float(np.hypot(*(end - prev)))
                head = min(0.34, 0.6 * r)
                has_arrow = last > head * 1.2 and math.dist(path[0], path[-1]) > r
                if has_arrow:  # the lane stops where the arrowhead begins; its tip is the end
                    u = (end - prev) / last
                    path = path[:-1] + [tuple(end - u * head)]
                pts = self.ground.line(path, LANE_Z)
                mb.polyline(pts - (0, 0, 0.003), w + 0.07, rgba(style.CHARGE_BORDER))
                mb.polyline(pts, w, colour)
                end_marker(mb, self.ground, tuple(end), r, LANE_Z + 0.004, colour, dot=not has_arrow)
                if has_arrow:
                    arrow(mb, self.ground, prev, end, LANE_Z + 0.008, head, colour)
            else:
                pts = self.ground.line(path, LANE_Z)
                colour = rgba(style.CHARGE_SHORT)
                dashes(mb, pts - (0, 0, 0.003), 0.7 * w + 0.05, rgba(style.CHARGE_BORDER))
                dashes(mb, pts, 0.7 * w, colour)
                cross(mb, self.ground, path[-1], 0.42, LANE_Z + 0.004, colour)
        gn = mb.node()
        solid = holder.attach_new_node(gn)
        ghost = holder.attach_new_node(gn.make_copy())
        for np_ in (solid, ghost):
            np_.set_light_off(1)
            np_.set_two_sided(True)
        solid.set_bin("fixed", 42)
        ghost.set_color_scale(1, 1, 1, GHOST_ALPHA)
        ghost.set_transparency(TransparencyAttrib.M_alpha)
        ghost.set_depth_test(False)
        ghost.set_depth_write(False)
        ghost.set_bin("fixed", 41)
