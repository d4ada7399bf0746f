"""A move being set up (the window's drag, ``render_png(move_to=...)``; Movement
p.22-23): a ghost base where the model would end, the path of its base centre from
the start, and a readout by the ghost; white when the move is legal, warning red when
not.
"""

from __future__ import annotations

import math

import numpy as np
from panda3d.core import NodePath, TransparencyAttrib

from .. import style
from ..mesh import MeshBuilder, circle_ring
from .ground import Ground
from .labels import Labels, label
from .paint import MOVE_Z, rgba


def draw_move_preview(parent: NodePath, table, ground: Ground, labels: Labels, model_id: str, dest,
                      path=(), legal: bool = True, text: str | None = None, facing: float | None = None) -> None:
    """Draw under ``parent`` a move of ``model_id`` to ``dest`` ((x, y), inches) along
    ``path`` (base-centre points from the start), with ``text`` by the ghost and, with
    ``facing`` (degrees), an arrow on the ghost from its centre to its rim: the facing
    the move ends with (a Walk may turn at its end, Move p.22).

    Raises:
        KeyError: no such model.
    """
    m = table.model(model_id)
    colour = style.MOVE_OK if legal else style.WARNING
    dest = (float(dest[0]), float(dest[1]))
    pts = [tuple(map(float, p)) for p in path] or [tuple(m.position)]
    if math.dist(pts[-1], dest) > 1e-6:
        pts.append(dest)
    if len(pts) == 1:
        pts.append(dest)
    line = MeshBuilder("move-path")
    p3 = ground.line(pts, MOVE_Z)
    line.polyline(p3 - (0, 0, 0.003), 0.13, (0.05, 0.05, 0.06, 1))
    line.polyline(p3, 0.07, rgba(colour))
    line.cap(circle_ring(pts[0], 0.1, 16), MOVE_Z + ground.height(pts[0]) + 0.002, rgba(colour))
    lnp = parent.attach_new_node(line.node())
    lnp.set_light_off(1)
    lnp.set_two_sided(True)
    lnp.set_depth_test(False)
    lnp.set_depth_write(False)
    lnp.set_bin("fixed", 46)
    gz = ground.height(dest)
    ghost = MeshBuilder("ghost-base")
    ghost.cylinder(dest, m.radius, gz, gz + style.BASE_HEIGHT, rgba(colour, style.GHOST_ALPHA), segments=40)
    top = gz + style.BASE_HEIGHT + 0.004
    ghost.cap(circle_ring(dest, m.radius + 0.03, 40), top, (0.05, 0.05, 0.06, 1),
              holes=[circle_ring(dest, m.radius - 0.03, 40)])
    ghost.cap(circle_ring(dest, m.radius, 40), top + 0.003, rgba(colour),
              holes=[circle_ring(dest, m.radius - 0.06, 40)])
    if facing is not None:
        u = (math.cos(math.radians(facing)), math.sin(math.radians(facing)))
        tip = (dest[0] + u[0] * m.radius * 0.95, dest[1] + u[1] * m.radius * 0.95)
        head = 0.45 * m.radius
        neck = (tip[0] - u[0] * head, tip[1] - u[1] * head)
        side = (-u[1] * head * 0.6, u[0] * head * 0.6)
        z = top + 0.006
        ghost.polyline([(dest[0], dest[1], z), (neck[0], neck[1], z)], 0.09, rgba(colour))
        ghost.cap(np.array([tip, (neck[0] + side[0], neck[1] + side[1]), (neck[0] - side[0], neck[1] - side[1])]),
                  z, rgba(colour))
    gnp = parent.attach_new_node(ghost.node())
    gnp.set_light_off(1)
    gnp.set_transparency(TransparencyAttrib.M_alpha)
    gnp.set_depth_write(False)
    gnp.set_bin("fixed", 47)
    if text and labels.shown:
        size = labels.size(0.4, 12)
        # north of the ghost (up the screen from both cameras), clear of its base
        label(parent, text, (dest[0], dest[1] + m.radius + 0.35, gz + style.BASE_HEIGHT + 0.15), size,
              fg=rgba(colour), bg=(0.03, 0.03, 0.05, 0.8), font_px=labels.text_px(size))
