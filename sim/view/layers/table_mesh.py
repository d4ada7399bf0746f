"""The static table: lights, the table top with its edge and grid (1", bold every 6"),
and the terrain pieces (Terrain p.60-62): colour by Passage (Difficult hatched, Ideal
tiled), material by Visibility (Blocking opaque, Obscuring translucent, Enhancing a
raised mound, Open flush), scenario objectives (p.63) in their own colour, and each
piece's id below its front edge.
"""

from __future__ import annotations

import math

import numpy as np
from panda3d.core import AmbientLight, DirectionalLight, LineSegs, NodePath, TransparencyAttrib, Vec3

from sim.geometry import Passage, Visibility

from .. import style
from ..mesh import MeshBuilder, circle_ring
from .labels import Labels, label
from .paint import HATCH_REPEAT, TILE_REPEAT, hatch_texture, overlay_bin, rgba, tile_texture


def add_lights(root: NodePath) -> None:
    """Light ``root``: a grey ambient light and a sun from the south-east above."""
    amb = AmbientLight("ambient")
    amb.set_color((0.62, 0.62, 0.62, 1))
    sun = DirectionalLight("sun")
    sun.set_color((0.42, 0.42, 0.42, 1))
    sun_np = root.attach_new_node(sun)
    sun_np.look_at(Vec3(-0.35, 0.45, -1.0))
    root.set_light(root.attach_new_node(amb))
    root.set_light(sun_np)


def draw_surface(parent: NodePath, table) -> None:
    """The table top of ``table`` under ``parent``: sand, a dark edge, the grid."""
    w, d = table.width, table.depth
    mb = MeshBuilder("table")
    mb.quad([(0, 0, 0), (w, 0, 0), (w, d, 0), (0, d, 0)], (0, 0, 1), rgba(style.TABLE))
    # table edge: a thin dark rim so the table reads against the background
    edge = (0.30, 0.24, 0.16, 1)
    for a, b, n in (((0, 0), (w, 0), (0, -1, 0)), ((w, 0), (w, d), (1, 0, 0)),
                    ((w, d), (0, d), (0, 1, 0)), ((0, d), (0, 0), (-1, 0, 0))):
        mb.quad([(a[0], a[1], -0.6), (b[0], b[1], -0.6), (b[0], b[1], 0), (a[0], a[1], 0)], n, edge)
    for i in range(0, int(math.floor(w)) + 1, 6):
        mb.ribbon((i, 0), (i, d), 0.0, 0.06, rgba(style.GRID_MAJOR))
    for j in range(0, int(math.floor(d)) + 1, 6):
        mb.ribbon((0, j), (w, j), 0.0, 0.06, rgba(style.GRID_MAJOR))
    surface = parent.attach_new_node(mb.node())
    lines = LineSegs("grid")
    lines.set_thickness(1.0)
    lines.set_color(*rgba(style.GRID_MINOR))
    for i in range(1, int(math.ceil(w))):
        if i % 6:
            lines.move_to(i, 0, 0)
            lines.draw_to(i, d, 0)
    for j in range(1, int(math.ceil(d))):
        if j % 6:
            lines.move_to(0, j, 0)
            lines.draw_to(w, j, 0)
    grid = surface.attach_new_node(lines.create())
    grid.set_light_off(1)
    grid.set_bin("background", 1)
    # the table and its grid are drawn first, without depth: everything stands on them
    surface.set_bin("background", 0)
    surface.set_depth_write(False)


def footprint_ring(footprint, segments: int = 64) -> np.ndarray:
    """The outline (n, 2) of a terrain footprint: its vertices, or ``segments`` points
    of its circle."""
    if footprint.is_circle:
        return circle_ring(footprint.center, footprint.radius, segments)
    return np.asarray(footprint.vertices, float)


def plateau(footprint, ring: np.ndarray, h: float) -> np.ndarray:
    """Top ring of an Enhancing mound: the footprint shrunk towards its centroid."""
    inset, inner = style.plateau_inset(footprint, h)
    if inset <= 0:
        return ring
    c = np.array(footprint.shape.centroid.coords[0])
    return c + (ring - c) * (1.0 - inset / inner)


def draw_terrain(parent: NodePath, piece, labels: Labels) -> None:
    """The terrain ``piece`` under ``parent``, with its id label when ``labels.shown``."""
    h = style.terrain_draw_height(piece)
    node = parent.attach_new_node(f"terrain-{piece.id}")
    ring = footprint_ring(piece.footprint)
    smooth = piece.footprint.is_circle
    alpha = style.OBSCURING_ALPHA if piece.visibility is Visibility.OBSCURING else 1.0
    if piece.passage is Passage.DIFFICULT:
        tex, repeat, colour = hatch_texture(), HATCH_REPEAT, (1, 1, 1, alpha)
    elif piece.passage is Passage.IDEAL:
        tex, repeat, colour = tile_texture(), TILE_REPEAT, (1, 1, 1, alpha)
    else:
        tex, repeat, colour = None, 1.0, rgba(style.PASSAGE[piece.passage], alpha)
    if piece.id.startswith(style.OBJECTIVE_PREFIX):
        tex, repeat, colour = None, 1.0, rgba(style.OBJECTIVE, alpha)
    top = ring
    if piece.visibility is Visibility.ENHANCING:
        top = plateau(piece.footprint, ring, h)
        slope = MeshBuilder(f"slope-{piece.id}")
        slope.walls(ring, top, 0.0, h, rgba(style.ENHANCING_SLOPE, alpha), smooth=smooth)
        node.attach_new_node(slope.node())
        mb = MeshBuilder(f"top-{piece.id}")
    else:
        mb = MeshBuilder(f"terrain-{piece.id}")
        mb.walls(ring, ring, 0.0, h, colour, smooth=smooth, uv_scale=repeat)
    mb.cap(top, h, colour, uv_scale=repeat)
    body = node.attach_new_node(mb.node())
    if tex is not None:
        body.set_texture(tex)
    if labels.shown:
        # the piece's id hangs below its front (south) top edge; hidden by what
        # stands in front of it, unlike the model labels
        ring_y = ring[:, 1]
        front = ring[ring_y <= ring_y.min() + 1e-6].mean(axis=0)
        size = labels.size(0.34, 10)
        lab = label(parent, piece.id, (front[0], front[1], h), size, font_px=labels.text_px(size),
                    fg=(0.95, 0.93, 0.85, 1), bg=(0.2, 0.17, 0.12, 0.6))
        lab.get_child(0).set_z(-1.0 * size)
        lab.set_depth_test(True)
        lab.set_bin(overlay_bin(), 5)  # before translucent terrain: seen through it
    if alpha < 1:
        # depth writes stay on: a pixel on an edge shared by two triangles is then
        # blended once (the second fails the depth test), not twice
        node.set_transparency(TransparencyAttrib.M_alpha)
        node.set_bin("transparent", 0)
