"""Text labels of the 3D table: billboard labels drawn on top of everything (model ids,
terrain ids, "PRONE", move readouts, the tape's length), their font raster, their size
on screen, and where the model and Prone labels sit for the camera's pitch (seen from
above a label sits beside its model, not on it).
"""

from __future__ import annotations

from panda3d.core import NodePath, TextNode, TransparencyAttrib

_FONTS: dict[int, object] = {}


def font(px: float | None = None):
    """The default font, rasterised for text about ``px`` pixels tall (None: Panda3D's
    default). Small text drawn from a bigger raster loses its thin strokes."""
    if px is None:
        return TextNode.get_default_font()
    key = max(6, int(round(px)))
    if key not in _FONTS:
        f = TextNode.get_default_font().make_copy()
        f.set_pixels_per_unit(key)
        _FONTS[key] = f
    return _FONTS[key]


def label(parent: NodePath, text: str, pos, scale: float, fg=(1, 1, 1, 1), bg=(0, 0, 0, 0.62),
          font_px: float | None = None) -> NodePath:
    """A billboard text label always drawn on top; its text node is the holder's only
    child (raise it with ``set_z`` to lift the label towards the top of the image).

    ``pos``: (x, y, z) inches in ``parent``'s space; ``scale``: text height, inches;
    ``fg``, ``bg``: text and card colours (r, g, b, a); ``font_px``: see :func:`font`."""
    tn = TextNode(f"label-{text}")
    tn.set_font(font(font_px))
    tn.set_text(text)
    tn.set_align(TextNode.A_center)
    tn.set_text_color(*fg)
    tn.set_card_color(*bg)
    tn.set_card_as_margin(0.25, 0.25, 0.12, 0.08)
    tn.set_card_decal(True)
    holder = parent.attach_new_node(f"label-{text}")
    holder.set_pos(*pos)
    holder.set_billboard_point_eye()
    np_ = holder.attach_new_node(tn)
    np_.set_scale(scale)
    holder.set_bin("fixed", 50)
    holder.set_depth_test(False)
    holder.set_depth_write(False)
    holder.set_light_off(1)
    holder.set_transparency(TransparencyAttrib.M_alpha)
    return holder


class Labels:
    """The labels of one scene: whether they are drawn, their size, and the model and
    Prone labels placed for the camera's pitch.

    Attributes:
        shown: draw labels at all (model and terrain ids, Prone, readouts).
        px_per_inch: about how many pixels an inch of table takes on screen (None:
            unknown), which sizes and sharpens the text.
        pitch: the camera's pitch (degrees, -90 = straight down) last set.
        model_labels: ``(text node, base radius)`` of each model's id label.
        prone_labels: ``(text node, base radius, side offset, size)`` of each "PRONE".
        widths: model id -> width (inches) of its id label.
    """

    def __init__(self, shown: bool = True, px_per_inch: float | None = None):
        self.shown = shown
        self.px_per_inch = px_per_inch
        self.pitch = -90.0
        self.model_labels: list[tuple[NodePath, float]] = []
        self.prone_labels: list[tuple[NodePath, float, float, float]] = []
        self.widths: dict[str, float] = {}

    def size(self, inches: float, min_px: float) -> float:
        """Label text height: ``inches``, but at least ``min_px`` pixels when known."""
        return inches if self.px_per_inch is None else max(inches, min_px / self.px_per_inch)

    def text_px(self, inches: float) -> float | None:
        """How many pixels tall text ``inches`` tall is drawn (None: unknown)."""
        return None if self.px_per_inch is None else inches * self.px_per_inch

    def set_camera_pitch(self, pitch: float) -> None:
        """Place the model and Prone labels for a camera looking down at ``pitch``
        degrees (-90 = straight down)."""
        self.pitch = pitch
        steep = max(0.0, min(1.0, (abs(pitch) - 60.0) / 25.0))
        for lab, r in self.model_labels:
            lab.set_z(0.2 + steep * (r + 0.05))
        # "PRONE": right of the id label seen from the side, below the base from above
        # (clear of the figure, the collision marks and, from above, the other labels)
        for lab, r, side, size in self.prone_labels:
            lab.set_x((1.0 - steep) * side)
            lab.set_z((1.0 - steep) * 0.2 - steep * (r + 0.12 + 0.8 * size))
