"""A game's markers on the 3D table: what the state of a game puts beside each model.

For every model with a :class:`~sim.view.play.state.ModelMarkers` entry:

* its conditions (p.43-45) as tokens right of the base: chips in the condition's colour
  with a short label (``PRONE``, ``STUN``, ``BLEED x2`` ...; :data:`sim.view.style.CONDITION_TOKEN`),
  stacked upwards from the base, always facing the camera;
* its wounds (p.38) as a bar hanging below the base: one box per wound of the card,
  green for those left, dark red for those lost;
* its Ki (p.46) as pips under the bar: one per point of the Ki limit, light blue for
  each Ki token;
* its activation counters left (p.24) as ivory discs left of the bar.

All of it is drawn facing the camera and on top of the table (like the labels), hung
from the model's holder so that it follows the model when a special move draws it
elsewhere. Lengths in inches.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from panda3d.core import NodePath, TextNode, TransparencyAttrib

from .. import style
from ..mesh import MeshBuilder
from .labels import Labels, font
from .models import ModelFigures
from .paint import rgba

#: Bin order of the markers: over the table and the models, under the id labels (50).
MARKERS_BIN_SORT = 45
#: The wounds bar is drawn at least this many pixels tall (the plate grows in small images).
PLATE_MIN_PX = 6.0
#: Gap (inches) between the base's near rim and the wounds bar, and between rows.
GAP = 0.08
_FRONT = (0.0, -1.0, 0.0)  # a billboard's face looks at the camera along -y


def token_text(name: str, value: int) -> str:
    """The label of a condition token: the short name (:data:`sim.view.style.CONDITION_TOKEN`)
    and ``x N`` for N markers (``BLEED x2``), the TN of Frightened (``FEAR 6``), the X of
    Disguised. Unknown names are upper-cased."""
    colour_label = style.CONDITION_TOKEN.get(name)
    text = colour_label[1] if colour_label else name.replace("_", " ").upper()
    if name in ("frightened", "disguised"):
        return f"{text} {value}" if value else text
    return f"{text} x{value}" if value > 1 else text


def token_colour(name: str) -> style.RGB:
    """The chip colour of condition ``name`` (grey for a name without one)."""
    got = style.CONDITION_TOKEN.get(name)
    return got[0] if got else (0.6, 0.6, 0.6)


def _text_colour(bg: style.RGB) -> style.RGB:
    lum = 0.299 * bg[0] + 0.587 * bg[1] + 0.114 * bg[2]
    return style.TOKEN_TEXT_DARK if lum > 0.5 else style.TOKEN_TEXT_LIGHT


def bar_width(wounds_max: int) -> float:
    """Width (inches) of the wounds bar of a model with ``wounds_max`` wounds."""
    return min(1.8, max(0.8, style.WOUNDS_BOX_WIDTH * max(1, wounds_max)))


def _rect(mb: MeshBuilder, x0: float, z0: float, x1: float, z1: float, colour) -> None:
    mb.quad([(x0, 0, z0), (x1, 0, z0), (x1, 0, z1), (x0, 0, z1)], _FRONT, rgba(colour))


def _disc(mb: MeshBuilder, cx: float, cz: float, r: float, colour, segments: int = 16) -> None:
    c = mb.vertex((cx, 0, cz), _FRONT, rgba(colour))
    ring = [mb.vertex((cx + r * math.cos(2 * math.pi * i / segments), 0, cz + r * math.sin(2 * math.pi * i / segments)),
                      _FRONT, rgba(colour)) for i in range(segments + 1)]
    for a, b in zip(ring, ring[1:]):
        mb.triangle(c, a, b)


def _billboard(parent: NodePath, name: str, pos) -> NodePath:
    np_ = parent.attach_new_node(name)
    np_.set_pos(*pos)
    np_.set_billboard_point_eye()
    np_.set_bin("fixed", MARKERS_BIN_SORT)
    np_.set_depth_test(False)
    np_.set_depth_write(False)
    np_.set_light_off(1)
    np_.set_two_sided(True)
    np_.set_transparency(TransparencyAttrib.M_alpha)
    return np_


class MarkersLayer:
    """The markers of a game drawn on the models of ``figures`` (:class:`ModelFigures`).

    Attributes:
        shown: model id -> the :class:`~sim.view.play.state.ModelMarkers` drawn.
    """

    def __init__(self, table, figures: ModelFigures, labels: Labels):
        self.table = table
        self.figures = figures
        self.labels = labels
        self.shown: dict = {}
        self._nodes: list[NodePath] = []

    def clear(self) -> None:
        """Remove every marker drawn."""
        for np_ in self._nodes:
            np_.remove_node()
        self._nodes = []
        self.shown = {}

    def draw(self, markers: Mapping | None) -> None:
        """Draw ``markers`` (model id -> ModelMarkers) in place of those drawn; models
        not on the table or not alive show nothing; None clears."""
        self.clear()
        if not markers:
            return
        for mid, mk in markers.items():
            if mid not in self.figures.figures or not getattr(mk, "alive", True):
                continue
            self._draw_model(mid, mk)
            self.shown[mid] = mk

    def _draw_model(self, mid: str, mk) -> None:
        holder = self.figures.figures[mid][0]
        r = self.table.model(mid).radius
        # wounds bar, counters and Ki pips: a plate hanging below the base's near rim
        plate = _billboard(holder, f"markers-{mid}", (0.0, -r, 0.0))
        # at least PLATE_MIN_PX pixels tall for the bar in a small image
        plate.set_scale(self.labels.size(style.WOUNDS_BAR_HEIGHT, PLATE_MIN_PX) / style.WOUNDS_BAR_HEIGHT)
        self._nodes.append(plate)
        mb = MeshBuilder(f"markers-{mid}")
        h = style.WOUNDS_BAR_HEIGHT
        wb = bar_width(mk.wounds_max)
        cr = style.COUNTER_RADIUS
        counters = max(0, int(mk.counters))
        cw = counters * (2 * cr + 0.05)
        row_w = wb + (cw + 0.04 if counters else 0.0)
        x0 = -row_w / 2
        top = -GAP
        for i in range(counters):  # activation counters: discs left of the bar, dark rim
            cx = x0 + cr + 0.025 + i * (2 * cr + 0.05)
            _disc(mb, cx, top - h / 2, cr, style.COUNTER)
        bx0 = x0 + (cw + 0.04 if counters else 0.0)
        bx1 = bx0 + wb
        frame = 0.025
        _rect(mb, bx0 - frame, top - h - frame, bx1 + frame, top + frame, style.WOUNDS_FRAME)
        wmax = max(1, int(mk.wounds_max))
        left = max(0, min(wmax, int(mk.wounds_left)))
        split = bx0 + wb * left / wmax
        if left:
            _rect(mb, bx0, top - h, split, top, style.WOUNDS_LEFT)
        if left < wmax:
            _rect(mb, split, top - h, bx1, top, style.WOUNDS_LOST)
        if wmax <= 12:  # a thin divider between the wound boxes
            for k in range(1, wmax):
                x = bx0 + wb * k / wmax
                _rect(mb, x - 0.008, top - h, x + 0.008, top, style.WOUNDS_FRAME)
        kmax = max(0, int(mk.ki_max))
        if kmax:
            p = style.KI_PIP
            step = p + 0.04
            kz1 = top - h - frame - GAP / 2
            kx0 = -(kmax * step - 0.04) / 2
            _rect(mb, kx0 - frame, kz1 - p - frame, kx0 + kmax * step - 0.04 + frame, kz1 + frame,
                  style.WOUNDS_FRAME)
            ki = max(0, min(kmax, int(mk.ki)))
            for i in range(kmax):
                x = kx0 + i * step
                _rect(mb, x, kz1 - p, x + p, kz1, style.KI_FULL if i < ki else style.KI_EMPTY)
        plate.attach_new_node(mb.node())
        if mk.conditions:
            self._draw_tokens(holder, mid, r, mk.conditions)

    def _draw_tokens(self, holder: NodePath, mid: str, r: float, conds) -> None:
        """Condition tokens right of the base, stacked upwards from the base's top."""
        stack = _billboard(holder, f"tokens-{mid}", (r + 0.06, 0.0, style.BASE_HEIGHT))
        self._nodes.append(stack)
        size = self.labels.size(style.TOKEN_TEXT, 11)
        px = self.labels.text_px(size)
        z = 0.0
        for name, value in conds:
            bg = token_colour(name)
            tn = TextNode(f"token-{mid}-{name}")
            tn.set_font(font(px))
            tn.set_text(token_text(name, value))
            tn.set_align(TextNode.A_left)
            tn.set_text_color(*rgba(_text_colour(bg)))
            tn.set_card_color(*rgba(bg))
            tn.set_card_as_margin(0.3, 0.3, 0.18, 0.12)
            tn.set_card_decal(True)
            np_ = stack.attach_new_node(tn)
            np_.set_scale(size)
            np_.set_pos(0.3 * size, 0, z + 0.18 * size + 0.02)
            z += size * 1.42
