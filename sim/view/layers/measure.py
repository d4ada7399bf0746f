"""The measure overlay of the selected model (Terms and Concepts p.4-9, Cover p.31):
its front arc (a half-disc, a full disc for an Aware model), its zone of control, a
selection ring, and a LoS line to every model in its front arc, coloured by what
:meth:`sim.table.Table.scene` measures: clear, target in cover, or no LoS (a faint copy
is drawn through whatever hides the lines).
"""

from __future__ import annotations

import math

import numpy as np
from panda3d.core import NodePath, TransparencyAttrib

from sim.geometry.measure import zoc_region

from .. import style
from ..mesh import MeshBuilder, circle_ring, rings_of
from .ground import Ground
from .paint import ARC_Z, GHOST_ALPHA, LOS_Z, RING_Z, ZOC_Z, overlay_bin, rgba


def draw_measure(parent: NodePath, table, model_id: str, ground: Ground) -> None:
    """Draw the overlays of ``model_id`` under ``parent``.

    Raises:
        KeyError: no such model.
    """
    sel = table.model(model_id)
    scene = table.scene()
    flat = parent.attach_new_node("flat")
    flat.set_light_off(1)
    flat.set_transparency(TransparencyAttrib.M_alpha)  # depth writes on: see table_mesh.draw_terrain
    flat.set_two_sided(True)
    # front arc: the half-disc in front of the arc line, and the arc line itself
    c = np.asarray(sel.position, float)
    flat.set_z(ground.height(c))
    f = np.array([math.cos(math.radians(sel.facing)), math.sin(math.radians(sel.facing))])
    side = np.array([-f[1], f[0]])
    arc = MeshBuilder("arc")
    R = style.ARC_REACH
    if sel.has_trait("aware"):
        arc.cap(circle_ring(c, R, 64), ARC_Z, rgba(style.ARC, style.ARC_ALPHA))
    else:
        t = np.linspace(-math.pi / 2, math.pi / 2, 33)
        half = [c + R * (math.cos(a) * f + math.sin(a) * side) for a in t]
        arc.cap(np.asarray(half), ARC_Z, rgba(style.ARC, style.ARC_ALPHA))
        arc.ribbon(c - side * R, c + side * R, ARC_Z + 0.002, 0.05, rgba(style.ARC, 0.95))
    flat.attach_new_node(arc.node()).set_bin(overlay_bin(), 0)
    mb = MeshBuilder("zoc")
    for ext, holes in rings_of(zoc_region(scene, model_id)):
        mb.cap(ext, ZOC_Z, rgba(style.ZOC, style.ZOC_ALPHA), holes=holes)
    flat.attach_new_node(mb.node()).set_bin(overlay_bin(), 1)
    # selection ring
    ring = MeshBuilder("selected")
    ring.cap(circle_ring(c, sel.radius + 0.14, 48), RING_Z, rgba(style.MARK, 0.95),
             holes=[circle_ring(c, sel.radius + 0.04, 48)])
    flat.attach_new_node(ring.node()).set_bin(overlay_bin(), 2)
    # LoS lines: depth-tested, plus a faint copy seen through whatever hides them
    lines = MeshBuilder("los")
    for other in table.models:
        if other.id == model_id:
            continue
        pm = scene.measure_pair(model_id, other.id)
        if not pm.in_arc:
            continue  # behind the front arc: no line (the arc overlay shows why)
        if pm.los.visible and pm.los.line is not None:
            colour = style.LOS_COVER if pm.cover.cover else style.LOS_CLEAR
            a, b = pm.los.line.a, pm.los.line.b
        else:
            colour = style.LOS_NONE
            a, b = sel.position, other.position
        lines.ribbon(a, b, LOS_Z + ground.height(a), style.LOS_WIDTH, rgba(colour), z_end=LOS_Z + ground.height(b))
    gn = lines.node()
    solid = parent.attach_new_node(gn)
    solid.set_light_off(1)
    solid.set_two_sided(True)
    ghost = parent.attach_new_node(gn.make_copy())
    ghost.set_light_off(1)
    ghost.set_two_sided(True)
    ghost.set_color_scale(1, 1, 1, GHOST_ALPHA)
    ghost.set_transparency(TransparencyAttrib.M_alpha)
    ghost.set_depth_test(False)
    ghost.set_depth_write(False)
    ghost.set_bin("fixed", 40)
