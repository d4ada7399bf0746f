"""The 2D panels drawn over the 3D table, in pixel coordinates: the legend on the right
(the palette of Passage and Visibility, Terrain p.60-62; the models; the selected
model's LoS, cover, ZoC and front arc, Terms and Concepts p.4-9 and Cover p.31; the
movement and special-move overlays shown; a game's markers when they are drawn) and
the status line at the top-left (a move's readout or a special move's description).
"""

from __future__ import annotations

from panda3d.core import CardMaker, NodePath, TextNode, TransparencyAttrib

from sim.geometry import Passage

from .. import style
from ..camera import font_px, legend_width
from .labels import font
from .paint import hatch_texture, rgba, tile_texture


def _text(parent: NodePath, s: str, x: float, y: float, size: float, colour=(1, 1, 1, 1), wrap: float | None = None):
    tn = TextNode("legend-text")
    tn.set_font(font(size))
    tn.set_text(s)
    tn.set_text_color(*colour)
    if wrap:
        tn.set_wordwrap(wrap)
    np_ = parent.attach_new_node(tn)
    np_.set_pos(x, 0, -y)
    np_.set_scale(size)
    return np_, tn


def _card(parent: NodePath, x: float, y: float, w: float, h: float, colour, texture=None, uv=(1, 1)) -> NodePath:
    cm = CardMaker("swatch")
    cm.set_frame(x, x + w, -y - h, -y)
    if texture is not None:
        cm.set_uv_range((0, 0), uv)
    np_ = parent.attach_new_node(cm.generate())
    np_.set_color(*colour)
    if texture is not None:
        np_.set_texture(texture)
    if len(colour) == 4 and colour[3] < 1:
        np_.set_transparency(TransparencyAttrib.M_alpha)
    return np_


def build_legend(table, width: int, height: int, selected: str | None = None, hint: str | None = None,
                 overlays=(), move: bool | None = None, empty=(), special: str | None = None,
                 markers: bool = False) -> NodePath:
    """The legend panel on the right of a ``width`` x ``height`` image, in pixel
    coordinates (x right, z up, origin at the top-left corner: parent it to a
    ``pixel2d``-style node).

    ``overlays``: the movement overlays shown (``"walk"``, ``"run"``, ``"charges"``) get
    entries (those in ``empty`` say "none"); ``move``: a dragged move is shown, legal
    (True) or not (False); ``special``: the name of the special move shown (its swept
    paths, start ghosts, collisions and Prone labels get entries); ``markers``: a game's
    markers are drawn (:mod:`sim.view.layers.markers`): a compact "Markers" section
    (condition tokens p.43-45, wounds bar p.38, Ki pips p.46, activation counters
    p.24). The text shrinks (down to 70 %) when the entries would not fit the height."""
    fs = font_px(height)
    pw = legend_width(width, height)
    x0 = width - pw
    root = NodePath("legend")
    root.set_depth_test(False)
    root.set_depth_write(False)
    root.set_transparency(TransparencyAttrib.M_alpha)
    panel = _card(root, x0, 0, pw, height, (0.07, 0.075, 0.09, 0.92))
    panel.set_bin("fixed", 0)
    content = root.attach_new_node("content")
    args = (selected, hint, tuple(overlays), move, tuple(empty), special, markers)
    end = _legend_content(content, table, x0, pw, fs, *args)
    if end > height:
        content.remove_node()
        content = root.attach_new_node("content")
        _legend_content(content, table, x0, pw, fs * max(0.7, height / end), *args)
    content.set_bin("fixed", 10)
    for i, child in enumerate(content.get_children()):  # draw in creation order
        child.set_bin("fixed", 10 + i)
    return root


def _legend_content(root: NodePath, table, x0: float, pw: float, fs: float, selected, hint, overlays, move,
                    empty=(), special=None, markers=False) -> float:
    """Draw the legend's entries under ``root`` with text ``fs`` pixels tall; returns the
    bottom (pixels from the top) of the last one."""
    pad = 0.6 * fs
    x = x0 + pad
    y = pad
    row = 1.42 * fs
    sw = 1.6 * fs  # swatch width

    title, tn = _text(root, table.name, x, y + fs, fs * 1.05, (1, 1, 1, 1), wrap=(pw - 2 * pad) / (fs * 1.05))
    y += (tn.get_num_rows() - 1) * fs * 1.05 * 1.2 + row * 1.15
    if selected:
        _text(root, f"selected: {selected}", x, y + fs * 0.2, fs * 0.95, (1.0, 1.0, 0.55, 1))
        y += row

    def header(s):
        nonlocal y
        y += 0.35 * fs
        _text(root, s, x, y + fs * 0.8, fs * 0.9, (0.75, 0.8, 0.9, 1))
        y += row * 0.95

    def entry(label, colour, texture=None, height_frac=0.8, uv=(1, 1), under=None):
        nonlocal y
        sh = fs * height_frac
        top = y + (fs - sh) / 2 - 0.1 * fs
        if under is not None:
            _card(root, x, y - 0.1 * fs, sw, fs, under[0], under[1], (2, 1.2))
        _card(root, x, top, sw, sh, colour, texture, uv)
        _text(root, label, x + sw + 0.45 * fs, y + fs * 0.72, fs * 0.85)
        y += row

    header("Passage (colour)")
    for p in (Passage.IMPASSABLE, Passage.DIFFICULT, Passage.NORMAL, Passage.IDEAL):
        tex = hatch_texture() if p is Passage.DIFFICULT else tile_texture() if p is Passage.IDEAL else None
        colour = (1, 1, 1, 1) if tex else rgba(style.PASSAGE[p])
        entry(f"{p.value.title()} ({style.PASSAGE_PATTERN[p]})", colour, tex, uv=(1.6, 1.0))
    header("Visibility (material)")
    grey = style.PASSAGE[Passage.IMPASSABLE]
    entry("Blocking: opaque", rgba(grey))
    entry("Obscuring: translucent", rgba(style.PASSAGE[Passage.NORMAL], style.OBSCURING_ALPHA),
          under=((1, 1, 1, 1), hatch_texture()))
    entry("Enhancing: raised", rgba(style.ENHANCING_SLOPE))
    entry("Open: flat, flush", rgba(grey), height_frac=0.22)
    if any(t.id.startswith(style.OBJECTIVE_PREFIX) for t in table.terrain):
        entry("scenario objective", rgba(style.OBJECTIVE))
    header("Models")
    entry("Player 1", rgba(style.PLAYER[1]))
    entry("Player 2", rgba(style.PLAYER[2]))
    entry("facing arrow, arc ticks", rgba(style.MARK), height_frac=0.3)
    header("Selected model")
    entry("LoS, no cover", rgba(style.LOS_CLEAR), height_frac=0.3)
    entry("LoS, target in cover", rgba(style.LOS_COVER), height_frac=0.3)
    entry("no LoS: blocked", rgba(style.LOS_NONE), height_frac=0.3)
    entry("(behind the arc: no line)", (0, 0, 0, 0), height_frac=0.01)
    entry("zone of control", rgba(style.ZOC, 0.7))
    entry("front arc", rgba(style.ARC, 0.5))
    entry("grid: 1\", bold 6\"", rgba(style.GRID_MAJOR), height_frac=0.2)
    if selected and (overlays or move is not None):
        header("Movement")
        if "walk" in overlays:
            entry("Walk: none possible" if "walk" in empty else "Walk: centre can end",
                  rgba(style.blend(style.WALK, style.TABLE, style.WALK_ALPHA)))
        if "run" in overlays:
            entry("Run: none possible" if "run" in empty else "Run: centre can end",
                  rgba(style.blend(style.RUN, style.TABLE, style.RUN_ALPHA)))
        if "charges" in overlays and "charges" in empty:
            entry("Charge: no lanes", rgba(style.CHARGE), height_frac=0.35)
        elif "charges" in overlays:
            entry("Charge: reaches target", rgba(style.CHARGE), height_frac=0.35)
            entry("Charge: falls short", rgba(style.CHARGE_SHORT), height_frac=0.35)
        if move is not None:
            entry("move: legal" if move else "move: illegal", rgba(style.MOVE_OK if move else style.WARNING),
                  height_frac=0.35)
    if special:
        header("Special move")
        entry("path swept by a base", rgba(style.blend(style.SWEEP, style.TABLE, style.SWEEP_ALPHA)))
        entry("where it started", rgba(style.blend(style.START_GHOST, style.TABLE, style.START_GHOST_ALPHA)),
              under=((0.05, 0.05, 0.06, 1), None))
        entry("collision: x", rgba(style.COLLISION), height_frac=0.35, under=(rgba(style.COLLISION_BORDER), None))
        entry("knocked Prone: PRONE", rgba(style.PRONE_LABEL), height_frac=0.6)
    if markers:
        header("Markers")
        entry("condition token (p.43-45)", rgba(style.CONDITION_TOKEN["prone"][0]), height_frac=0.6)
        half = sw / 2
        for label, (left, right), frac in (("wounds left / lost (p.38)", (style.WOUNDS_LEFT, style.WOUNDS_LOST), 0.4),
                                           ("Ki / empty pip (p.46)", (style.KI_FULL, style.KI_EMPTY), 0.4)):
            sh = fs * frac
            top = y + (fs - sh) / 2 - 0.1 * fs
            _card(root, x, top, half, sh, rgba(left))
            _card(root, x + half, top, half, sh, rgba(right))
            _text(root, label, x + sw + 0.45 * fs, y + fs * 0.72, fs * 0.85)
            y += row
        entry("activation counter (p.24)", rgba(style.COUNTER), height_frac=0.45)
    if hint:
        _text(root, hint, x, y + fs * 0.6, fs * 0.7, (0.7, 0.7, 0.7, 1), wrap=(pw - 2 * pad) / (fs * 0.7))
        y += fs
    return y


def status_text(text: str, legal: bool | None, width: int, height: int) -> NodePath:
    """A line of text at the top-left of a ``width`` x ``height`` image in pixel
    coordinates (like :func:`build_legend`): a move's readout, white when ``legal``,
    warning red when not (None: neutral yellow), wrapped left of the legend."""
    fs = font_px(height)
    colour = (1, 1, 0.6, 1) if legal is None else rgba(style.MOVE_OK if legal else style.WARNING)
    room = max(10 * fs, width - legend_width(width, height) - 1.6 * fs)
    tn = TextNode("status-text")
    tn.set_font(font(fs))
    tn.set_text(text)
    tn.set_text_color(*colour)
    tn.set_card_color(0.02, 0.02, 0.03, 0.78)
    tn.set_card_as_margin(0.4, 0.4, 0.25, 0.25)
    tn.set_wordwrap(room / fs)
    root = NodePath("status")
    np_ = root.attach_new_node(tn)
    np_.set_pos(0.8 * fs, 0, -1.3 * fs)
    np_.set_scale(fs)
    root.set_depth_test(False)
    root.set_depth_write(False)
    root.set_transparency(TransparencyAttrib.M_alpha)
    root.set_bin("fixed", 60)
    return root
