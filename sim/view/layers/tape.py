"""The tape measure of the 3D table (Measuring Distances, Terms and Concepts p.4-9): a
yellow strip between two points on the table with its length at the middle, drawn over
everything.
"""

from __future__ import annotations

from panda3d.core import NodePath

from .. import style
from ..mesh import MeshBuilder, circle_ring
from .labels import Labels, label
from .paint import LOS_Z, rgba


def draw_tape(parent: NodePath, labels: Labels, a, b, text: str | None) -> None:
    """Draw under ``parent`` the tape from ``a`` to ``b`` ((x, y), inches) with ``text``
    at its middle; ``b`` None draws only the first end."""
    mb = MeshBuilder("tape")
    mb.cap(circle_ring(a, 0.1, 16), LOS_Z + 0.02, rgba(style.TAPE))
    if b is not None:
        mb.cap(circle_ring(b, 0.1, 16), LOS_Z + 0.02, rgba(style.TAPE))
        mb.ribbon(a, b, LOS_Z + 0.02, 0.07, rgba(style.TAPE))
    np_ = parent.attach_new_node(mb.node())
    np_.set_light_off(1)
    np_.set_two_sided(True)
    np_.set_depth_test(False)
    np_.set_depth_write(False)
    np_.set_bin("fixed", 45)
    if b is not None and text:
        mid = ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2, 0.6)
        label(parent, text, mid, 0.5, fg=rgba(style.TAPE), bg=(0, 0, 0, 0.8), font_px=labels.text_px(0.5))
