"""The view's palette and drawing sizes (pure Python: no Panda3D).

Colours are ``(r, g, b)`` floats in 0..1 as drawn on faces that look straight up under
the view's lights (the lights are set so that a horizontal face shows its colour
unchanged; walls come out darker). ``docs/view.md`` lists them for players.
"""

from __future__ import annotations

from sim.geometry import Passage, Size, Visibility

RGB = tuple[float, float, float]

# ----------------------------------------------------------------------- table
#: Window background around the table.
BACKGROUND: RGB = (0.14, 0.15, 0.18)
#: The table surface (sand).
TABLE: RGB = (0.78, 0.70, 0.52)
#: Thin grid lines every inch.
GRID_MINOR: RGB = (0.66, 0.58, 0.42)
#: Strong grid lines every 6 inches.
GRID_MAJOR: RGB = (0.44, 0.36, 0.24)

# --------------------------------------------------------------------- terrain
#: One base colour per Passage (top faces). Difficult terrain is hatched with
#: :data:`DIFFICULT_STRIPE`, Ideal terrain is tiled with :data:`IDEAL_GROUT`.
PASSAGE: dict[Passage, RGB] = {
    Passage.IMPASSABLE: (0.33, 0.33, 0.37),  # slate grey, solid
    Passage.DIFFICULT: (0.60, 0.38, 0.76),   # violet, hatched
    Passage.NORMAL: (0.40, 0.63, 0.27),      # moss green, plain
    Passage.IDEAL: (0.93, 0.92, 0.86),       # pale stone, tiled
}
#: Dark diagonal stripes of Difficult terrain (hatching).
DIFFICULT_STRIPE: RGB = (0.36, 0.20, 0.50)
#: Grout lines between the tiles of Ideal terrain.
IDEAL_GROUT: RGB = (0.66, 0.64, 0.58)
#: Sloping sides of Enhancing terrain (raised ground, earthy green).
ENHANCING_SLOPE: RGB = (0.47, 0.45, 0.24)
#: Scenario objectives (terrain pieces ``objective:<id>``, Impassable and Blocking, p.63)
#: are drawn in this colour instead of the Impassable grey, so they stand out.
OBJECTIVE: RGB = (0.86, 0.66, 0.18)
OBJECTIVE_PREFIX = "objective:"
#: Opacity of Obscuring terrain (translucent).
OBSCURING_ALPHA: float = 0.45
#: Open terrain is drawn at most this tall (inches): almost flush with the table.
OPEN_MAX_HEIGHT: float = 0.05

#: How each Visibility is drawn (the legend's words).
VISIBILITY_MATERIAL: dict[Visibility, str] = {
    Visibility.BLOCKING: "opaque block",
    Visibility.OBSCURING: "translucent",
    Visibility.ENHANCING: "raised mound",
    Visibility.OPEN: "flat, flush",
}
#: How each Passage is drawn (the legend's words).
PASSAGE_PATTERN: dict[Passage, str] = {
    Passage.IMPASSABLE: "solid",
    Passage.DIFFICULT: "hatched",
    Passage.NORMAL: "plain",
    Passage.IDEAL: "tiled",
}

# ---------------------------------------------------------------------- models
#: Base and figure colour per player.
PLAYER: dict[int, RGB] = {1: (0.80, 0.07, 0.12), 2: (0.10, 0.30, 0.95)}
#: Facing arrow, front-arc ticks and the selection ring.
MARK: RGB = (1.0, 1.0, 1.0)
#: Base thickness, inches (about 3 mm).
BASE_HEIGHT: float = 0.12
#: Figure height (base top to head top) by Size, inches.
FIGURE_HEIGHT: dict[Size, float] = {
    Size.ZERO: 0.3,
    Size.TINY: 0.6,
    Size.SMALL: 1.2,
    Size.MEDIUM: 1.6,
    Size.LARGE: 2.2,
    Size.HUGE: 3.0,
}
#: Figure radius as a fraction of the base radius (the rest of the base stays visible).
FIGURE_RADIUS: float = 0.5

# -------------------------------------------------------------------- overlays
#: LoS line: visible and the target has no cover.
LOS_CLEAR: RGB = (0.10, 0.95, 0.20)
#: LoS line: visible but the target has cover.
LOS_COVER: RGB = (1.00, 0.60, 0.00)
#: No LoS: centre-to-centre line.
LOS_NONE: RGB = (1.00, 0.05, 0.05)
#: Zone of control fill (translucent).
ZOC: RGB = (0.15, 0.85, 1.00)
ZOC_ALPHA: float = 0.45
#: Front arc half-disc (translucent) and arc line.
ARC: RGB = (1.0, 1.0, 1.0)
ARC_ALPHA: float = 0.22
#: Half-length of the drawn front-arc line each side of the base centre, inches.
ARC_REACH: float = 3.0
#: Width of the drawn LoS ribbons, inches.
LOS_WIDTH: float = 0.09
#: Tape measure line.
TAPE: RGB = (1.0, 1.0, 0.3)

# -------------------------------------------------------------------- movement
#: Walk region (where the base centre can end a Walk): translucent green fill over the
#: table, with a darker outline.
WALK: RGB = (0.15, 0.80, 0.25)
WALK_ALPHA: float = 0.42
WALK_EDGE: RGB = (0.05, 0.45, 0.10)
#: Run region (where a Run can end, beyond the walk region): translucent blue.
RUN: RGB = (0.12, 0.38, 1.00)
RUN_ALPHA: float = 0.48
RUN_EDGE: RGB = (0.10, 0.25, 0.75)
#: Charge lane that reaches its target (solid ribbon, arrow, ring where the base ends).
CHARGE: RGB = (1.00, 0.42, 0.00)
#: Charge lane that falls short (dashed grey ribbon, ring where it stops).
CHARGE_SHORT: RGB = (0.55, 0.55, 0.58)
#: Dark border drawn under charge lanes so they read on sand and on terrain.
CHARGE_BORDER: RGB = (0.10, 0.08, 0.06)
#: Width of a charge lane ribbon, inches.
CHARGE_WIDTH: float = 0.16
#: Dragged move: the path line and the ghost base when legal ...
MOVE_OK: RGB = (1.0, 1.0, 1.0)
#: ... and when illegal (ghost base, path and readout text).
WARNING: RGB = (1.0, 0.18, 0.12)
#: Opacity of the ghost base.
GHOST_ALPHA: float = 0.7

# --------------------------------------------------------------- special moves
#: Swept path of a model moved by a special move (Push, Slam, Throw ...): the area its
#: base swept, translucent orange over the table, with a darker outline ...
SWEEP: RGB = (1.00, 0.50, 0.00)
SWEEP_ALPHA: float = 0.55
SWEEP_EDGE: RGB = (0.70, 0.25, 0.00)
#: ... and the centre line with an arrowhead at the end base's rim (direction of travel).
SWEEP_LINE: RGB = (0.45, 0.13, 0.00)
#: Ghost base where a moved model started: faint white with a rim in the player's colour.
START_GHOST: RGB = (1.0, 1.0, 1.0)
START_GHOST_ALPHA: float = 0.3
#: x marker where two bases touched (or a base met Impassable terrain or the table edge).
COLLISION: RGB = (1.00, 0.95, 0.20)
COLLISION_BORDER: RGB = (0.05, 0.05, 0.05)
#: "PRONE" label of the models the move knocked Prone: white text on this red card.
PRONE_LABEL: RGB = (0.78, 0.04, 0.04)

# ------------------------------------------------- markers (a game's state on the table)
#: Condition tokens (p.43-45) beside a model's base: a chip in the condition's colour
#: with a short label (and the number of markers when more than one), text in
#: :data:`TOKEN_TEXT_DARK` or :data:`TOKEN_TEXT_LIGHT`, whichever reads better on it.
#: ``exhausted``: no activation counter left (p.24).
CONDITION_TOKEN: dict[str, tuple[RGB, str]] = {
    "prone": ((1.00, 0.55, 0.00), "PRONE"),          # orange
    "stunned": ((1.00, 0.92, 0.15), "STUN"),         # yellow
    "held": ((0.55, 0.36, 0.18), "HELD"),            # brown
    "bleed": ((0.55, 0.00, 0.12), "BLEED"),          # crimson
    "poisoned": ((0.45, 0.82, 0.10), "POISON"),      # lime
    "on_fire": ((1.00, 0.32, 0.05), "FIRE"),         # red-orange
    "frightened": ((0.72, 0.45, 0.95), "FEAR"),      # lavender
    "blind": ((0.12, 0.12, 0.12), "BLIND"),          # black
    "immobilised": ((0.40, 0.60, 0.80), "IMMOB"),    # steel blue
    "berserk": ((0.88, 0.10, 0.48), "BERSERK"),      # magenta
    "impetuous": ((1.00, 0.55, 0.70), "IMPET"),      # pink
    "controlled": ((0.25, 0.85, 0.85), "CTRL"),      # teal
    "death_sentence": ((0.30, 0.02, 0.32), "DEATH"),  # dark purple
    "diseased": ((0.55, 0.58, 0.18), "DISEASE"),     # olive
    "disguised": ((0.62, 0.62, 0.68), "DISGUISE"),   # grey
    "spirit_block": ((0.18, 0.22, 0.62), "SPIRIT"),  # indigo
    "reloading": ((0.90, 0.90, 0.90), "RELOAD"),     # light grey
    "exhausted": ((0.42, 0.42, 0.46), "EXH"),        # dim grey
}
#: Token text on light and on dark chips.
TOKEN_TEXT_DARK: RGB = (0.05, 0.05, 0.05)
TOKEN_TEXT_LIGHT: RGB = (1.0, 1.0, 1.0)
#: Wounds bar below the base (p.38): wound boxes left in green, lost ones dark red, a
#: dark frame and a thin divider between boxes.
WOUNDS_LEFT: RGB = (0.12, 0.85, 0.20)
WOUNDS_LOST: RGB = (0.40, 0.06, 0.06)
WOUNDS_FRAME: RGB = (0.04, 0.04, 0.05)
#: Ki pips under the wounds bar (p.46): one per point of the Ki limit, filled light blue
#: for each Ki token, dark when empty.
KI_FULL: RGB = (0.30, 0.80, 1.00)
KI_EMPTY: RGB = (0.18, 0.20, 0.26)
#: Activation counters left (p.24): ivory discs left of the wounds bar.
COUNTER: RGB = (0.98, 0.95, 0.80)
#: Sizes, inches: wounds bar height and the width per wound box (the bar is 0.8" to
#: 1.8" wide), Ki pip and counter disc size, condition token text height.
WOUNDS_BAR_HEIGHT: float = 0.16
WOUNDS_BOX_WIDTH: float = 0.2
KI_PIP: float = 0.13
COUNTER_RADIUS: float = 0.1
TOKEN_TEXT: float = 0.28


# --------------------------------------------------------------------- helpers
def terrain_draw_height(piece) -> float:
    """Height (inches) a terrain piece is drawn at: ``piece.height``, but at most
    :data:`OPEN_MAX_HEIGHT` for Open pieces."""
    if piece.visibility is Visibility.OPEN:
        return min(float(piece.height), OPEN_MAX_HEIGHT)
    return float(piece.height)


def plateau_inset(footprint, height: float) -> tuple[float, float]:
    """``(inset, inner)`` of an Enhancing mound drawn on ``footprint``: its flat top is the
    footprint shrunk towards its centroid by ``inset`` inches (``inner`` is the distance
    from the centroid to the footprint's edge). ``(0, 0)`` when the centroid is outside."""
    shape = footprint.shape
    c = shape.centroid
    if not shape.contains(c):
        return 0.0, 0.0
    inner = float(shape.exterior.distance(c))
    return min(0.8 * height, 0.35 * inner), inner


def ground_height(table, x: float, y: float) -> float:
    """Height (inches) of the drawn ground at ``(x, y)``: the table (0), or the surface of
    an Enhancing mound (raised ground) models stand on."""
    from shapely.geometry import Point

    z = 0.0
    p = Point(float(x), float(y))
    for t in table.terrain:
        if t.visibility is not Visibility.ENHANCING or not t.footprint.contains_point((x, y)):
            continue
        h = terrain_draw_height(t)
        inset, _ = plateau_inset(t.footprint, h)
        depth = float(t.footprint.shape.exterior.distance(p))
        z = max(z, h if inset <= 0 else h * min(1.0, depth / inset))
    return z


def figure_height(size: Size) -> float:
    """Figure height (inches) of a model of ``size`` (above its base)."""
    return FIGURE_HEIGHT.get(Size(size), FIGURE_HEIGHT[Size.MEDIUM])


def model_top(model, ground: float = 0.0) -> float:
    """Height (inches) of the top of a standing model's head standing at ``ground``."""
    return ground + BASE_HEIGHT + figure_height(model.size)


def blend(top: RGB, under: RGB, alpha: float) -> RGB:
    """``top`` drawn with ``alpha`` over ``under``."""
    return tuple(alpha * t + (1 - alpha) * u for t, u in zip(top, under))  # type: ignore[return-value]


def hex_colour(rgb: RGB) -> str:
    """``#rrggbb`` for docs."""
    return "#" + "".join(f"{round(c * 255):02x}" for c in rgb)
