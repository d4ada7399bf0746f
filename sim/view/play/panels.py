"""The game window's panels, all DirectGUI: the status bar, the model card, the action
menu (with its option lists and the move being composed), the log, the dice and the
tool bar.

Each panel is a class over one DirectFrame under ``aspect2d``; it takes the rectangle
it fills (left, right, bottom, top in ``aspect2d`` units: x -aspect..aspect, z -1..1)
and shows the controller's plain data (:mod:`sim.view.play.controller`: ``Status``,
``Card``, ``MenuItem``, ``Pending``, ``LogEntry``, ``DiceView``) through an ``update``
method; buttons call the callables given. :func:`layout` says where each panel goes
for a window of a given aspect ratio, so the table (a display region of its own, see
:mod:`sim.view.play.tablecam`) is never covered.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from typing import Callable

from direct.gui import DirectGuiGlobals as DGG
from direct.gui.DirectGui import DirectButton, DirectFrame, DirectLabel, DirectScrolledFrame, DirectScrolledList
from panda3d.core import TextNode

from ..layers.labels import font

# ------------------------------------------------------------------- look
#: Panel background (dark, almost opaque).
PANEL = (0.09, 0.10, 0.13, 0.96)
#: Panel title colour.
TITLE = (1.0, 0.86, 0.45, 1)
#: Ordinary text.
TEXT = (0.92, 0.92, 0.92, 1)
#: Dim text (hints, reasons of greyed actions).
DIM = (0.62, 0.62, 0.66, 1)
#: A refusal or an illegal move.
BAD = (1.0, 0.42, 0.36, 1)
#: A legal move.
GOOD = (0.55, 0.95, 0.55, 1)
#: Button face, its text, and a greyed (disabled) button.
BUTTON = (0.25, 0.30, 0.40, 1)
BUTTON_TEXT = (1, 1, 1, 1)
BUTTON_OFF = (0.20, 0.20, 0.22, 1)
#: The kinds of action a Ki boost raises (p.10, p.47): the pending panel offers +/-.
BOOSTABLE = ("walk", "run", "charge", "shoot", "ki_feat", "complex_ki_feat")
#: Player colours for text (red, blue as the bases).
PLAYER = {1: (1.0, 0.45, 0.45, 1), 2: (0.55, 0.70, 1.0, 1)}

#: Text height of the panels (aspect2d units: the window is 2 tall).
TEXT_SCALE = 0.031
#: Text height of small print (reasons, dice lines).
SMALL_SCALE = 0.027
#: Height of the status bar, the tool bar, the dice strip under the table, and the
#: width of each side column (aspect2d).
STATUS_H, TOOL_H, DICE_H, COLUMN_W = 0.16, 0.11, 0.42, 0.66


@dataclass(frozen=True)
class Layout:
    """Where the panels go in a window of aspect ratio ``aspect`` (width / height);
    rectangles are (left, right, bottom, top) in aspect2d units."""

    aspect: float

    @property
    def status(self):
        """The status bar across the top."""
        return (-self.aspect, self.aspect, 1 - STATUS_H, 1.0)

    @property
    def card(self):
        """The model card: the upper part of the left column."""
        return (-self.aspect, -self.aspect + COLUMN_W, 0.02, 1 - STATUS_H)

    @property
    def menu(self):
        """The action menu: the lower part of the left column."""
        return (-self.aspect, -self.aspect + COLUMN_W, -1.0, 0.02)

    @property
    def log(self):
        """The log: the right column."""
        return (self.aspect - COLUMN_W, self.aspect, -1.0, 1 - STATUS_H)

    @property
    def dice(self):
        """The dice: a strip under the table, above the tool bar."""
        return (-self.aspect + COLUMN_W, self.aspect - COLUMN_W, -1.0 + TOOL_H, -1.0 + TOOL_H + DICE_H)

    @property
    def tools(self):
        """The tool bar under the table."""
        return (-self.aspect + COLUMN_W, self.aspect - COLUMN_W, -1.0, -1.0 + TOOL_H)

    @property
    def table(self):
        """The table's rectangle in aspect2d units."""
        return (-self.aspect + COLUMN_W, self.aspect - COLUMN_W, -1.0 + TOOL_H + DICE_H, 1 - STATUS_H)

    def region(self):
        """The table's rectangle as fractions of the window (for a display region)."""
        l, r, b, t = self.table
        return ((l + self.aspect) / (2 * self.aspect), (r + self.aspect) / (2 * self.aspect), (b + 1) / 2, (t + 1) / 2)


def layout(base) -> Layout:
    """The :class:`Layout` of ``base``'s window now."""
    w, h = base.win.get_x_size(), base.win.get_y_size()
    return Layout(w / max(1, h))


def gui_font(base, scale: float = TEXT_SCALE):
    """The default font rasterised for text ``scale`` aspect2d units tall in ``base``'s
    window (sharp small print)."""
    return font(scale * base.win.get_y_size() / 2)


def wrap(lines, width: int) -> list[str]:
    """``lines`` wrapped at ``width`` characters (continuations indented)."""
    out: list[str] = []
    for line in lines:
        line = str(line)
        if len(line) <= width:
            out.append(line)
            continue
        indent = " " * min(4, len(line) - len(line.lstrip()) + 2)
        out.extend(textwrap.wrap(line, width, subsequent_indent=indent, break_long_words=True) or [""])
    return out


def chars(width: float, scale: float) -> int:
    """About how many characters of text ``scale`` tall fit in ``width`` (aspect2d)."""
    return max(8, int(width / (scale * 0.52)))


def _frame(parent, rect, colour=PANEL, **kw):
    l, r, b, t = rect
    return DirectFrame(parent=parent, frameColor=colour, frameSize=(l, r, b, t), **kw)


def button(parent, text: str, command: Callable, pos, *, width: float, enabled: bool = True, scale=TEXT_SCALE,
           fnt=None, extra=(), colour=BUTTON, align="center", clickable: bool = False) -> DirectButton:
    """A DirectButton ``width`` wide (aspect2d) whose left edge (``align="left"``) or
    centre is at ``pos`` (x, z); greyed when not ``enabled``, and then dead unless
    ``clickable`` (a greyed menu item still answers a click with its reasons)."""
    w = width / scale
    left = align == "left"
    b = DirectButton(parent=parent, text=text, command=command, extraArgs=list(extra), scale=scale,
                     pos=(pos[0], 0, pos[1]), text_font=fnt, text_fg=BUTTON_TEXT if enabled else DIM,
                     text_align=TextNode.A_left if left else TextNode.A_center,
                     frameColor=colour if enabled else BUTTON_OFF, relief=DGG.FLAT,
                     frameSize=(-0.4 if left else -w / 2, w - 0.4 if left else w / 2, -0.45, 1.05),
                     text_pos=(0.0, 0.0), pressEffect=1)
    if not enabled and not clickable:
        b["state"] = DGG.DISABLED
    return b


class Panel:
    """A rectangle of the window with a title and text lines (the base of the others)."""

    def __init__(self, base, rect, title: str = ""):
        self.base = base
        self.rect = rect
        self.frame = _frame(base.aspect2d, rect)
        self.font = gui_font(base)
        self.small = gui_font(base, SMALL_SCALE)
        l, r, b, t = rect
        self.title = DirectLabel(parent=self.frame, text=title, text_fg=TITLE, text_font=self.font,
                                 text_align=TextNode.A_left, relief=None, scale=TEXT_SCALE * 1.05,
                                 pos=(l + 0.025, 0, t - 0.045))
        self.widgets: list = []

    def clear(self) -> None:
        """Remove the widgets shown under the title."""
        for w in self.widgets:
            w.destroy()
        self.widgets = []

    def text(self, lines, *, top: float, colour=TEXT, scale=TEXT_SCALE, fnt=None, max_lines: int | None = None,
             x: float | None = None, width: float | None = None) -> float:
        """Show ``lines`` (wrapped to the panel) from ``top`` down; returns the z under
        them. ``max_lines`` cuts them with a last line "..."."""
        l, r, _b, _t = self.rect
        x = l + 0.025 if x is None else x
        width = (r - x - 0.02) if width is None else width
        lines = wrap(lines, chars(width, scale))
        if max_lines is not None and len(lines) > max_lines:
            lines = lines[:max_lines - 1] + ["..."]
        if not lines:
            return top
        lab = DirectLabel(parent=self.frame, text="\n".join(lines), text_fg=colour, text_font=fnt or self.font,
                          text_align=TextNode.A_left, relief=None, scale=scale, pos=(x, 0, top - scale * 0.8))
        self.widgets.append(lab)
        return top - len(lines) * scale * 1.2 - 0.01

    def scrolled_text(self, lines, *, top: float, colour=TEXT, scale=SMALL_SCALE, fnt=None):
        """``lines`` (wrapped) in a DirectScrolledFrame from ``top`` to the panel's bottom:
        a scroll bar appears when they do not fit. Returns the frame."""
        l, r, b, _t = self.rect
        lines = wrap(lines, chars(r - l - 0.1, scale))
        height = len(lines) * scale * 1.2 + 0.02
        sf = self._scrolled_frame(top, height)
        self.widgets.append(sf)
        DirectLabel(parent=sf.getCanvas(), text="\n".join(lines), text_fg=colour, text_font=fnt or self.small,
                    text_align=TextNode.A_left, relief=None, scale=scale, pos=(l + 0.025, 0, top - scale))
        return sf

    def _scrolled_frame(self, top: float, height: float):
        """A DirectScrolledFrame from ``top`` to the panel's bottom for a text ``height`` tall."""
        l, r, b, _t = self.rect
        return DirectScrolledFrame(parent=self.frame, frameSize=(l, r, b + 0.005, top), frameColor=(0, 0, 0, 0),
                                   canvasSize=(l, r - 0.045, min(b + 0.005, top - height), top),
                                   scrollBarWidth=0.035, verticalScroll_frameColor=(0.2, 0.2, 0.24, 1),
                                   verticalScroll_thumb_frameColor=(0.5, 0.5, 0.56, 1),
                                   verticalScroll_incButton_frameColor=(0.35, 0.35, 0.4, 1),
                                   verticalScroll_decButton_frameColor=(0.35, 0.35, 0.4, 1),
                                   manageScrollBars=True, autoHideScrollBars=True)

    def scrolled(self) -> list:
        """The DirectScrolledFrames of the panel (its scrollable parts), top first."""
        return [w for w in self.widgets if isinstance(w, DirectScrolledFrame)]

    def scroll(self, steps: int) -> bool:
        """Scroll the panel ``steps`` notches (the mouse wheel over it: negative up,
        positive down): its scrolled frame moves a tenth of its range per notch. Returns
        whether something could scroll."""
        for sf in self.scrolled():
            bar = sf.verticalScroll
            if sf.getCanvas().is_empty() or bar.is_hidden():
                continue
            lo, hi = bar["range"]
            value = max(lo, min(hi, bar.getValue() + steps * (hi - lo) * 0.1))
            bar.setValue(value)
            return True
        return False

    def hide(self) -> None:
        """Hide the panel."""
        self.frame.hide()

    def show(self) -> None:
        """Show the panel."""
        self.frame.show()

    def destroy(self) -> None:
        """Remove the panel's widgets."""
        self.clear()
        self.frame.destroy()


class StatusBar(Panel):
    """The status bar: ``Status.lines()`` across the top of the window (the first line
    in the colour of the player to move)."""

    def __init__(self, base, rect):
        super().__init__(base, rect, "")
        self.lines: list[str] = []
        self._shown: object = None

    def update(self, lines: list[str], player: int | None = None, note: str = "", note_ok: bool = False) -> None:
        """Show ``lines`` (at most four rows; the rest are cut) and ``note``: a warning
        (red: why an action was refused) or, ``note_ok``, news (what a bot did, saved ...).
        The widgets shown stay when all of it is as shown already."""
        key = (tuple(lines), player, note, note_ok)
        if key == self._shown:
            return
        self._shown = key
        self.clear()
        self.lines = list(lines)
        l, r, b, t = self.rect
        width = r - l - 0.05
        rows = wrap(lines, chars(width, SMALL_SCALE))
        first = rows[:1]
        rest = rows[1:4 if not note else 3]
        z = self.text(first, top=t - 0.01, colour=PLAYER.get(player or 0, TITLE), scale=TEXT_SCALE)
        z = self.text(rest, top=z, colour=TEXT, scale=SMALL_SCALE, fnt=self.small)
        if note:
            self.text([note], top=z, colour=TITLE if note_ok else BAD, scale=SMALL_SCALE, fnt=self.small,
                      max_lines=1)


class CardPanel(Panel):
    """The clicked model's card (``Card.lines()``) in the upper left column."""

    def __init__(self, base, rect):
        super().__init__(base, rect, "Model card")
        self.model: str | None = None
        self.note = ""
        self._shown: object = ()
        #: (top, scrolled frame, label) of the card's text: kept from card to card
        self._kept: tuple | None = None
        self.update(None)

    def clear(self) -> None:
        """Remove the widgets shown under the title (the card text's kept frame is hidden)."""
        super().clear()
        if self._kept is not None:
            self._kept[1].hide()

    def scrolled(self) -> list:
        """The DirectScrolledFrames of the panel (its scrollable parts), top first."""
        kept = [self._kept[1]] if self._kept is not None and not self._kept[1].is_hidden() else []
        return kept + super().scrolled()

    def destroy(self) -> None:
        """Remove the panel's widgets, the kept ones too."""
        if self._kept is not None:
            self._kept[1].destroy()
        self._kept = None
        super().destroy()

    def _card_text(self, lines, top: float) -> None:
        """The card's ``lines`` (wrapped) scrolled from ``top`` down, in the frame and label
        of the card shown before when they start at the same height (a new DirectGUI
        scrolled frame costs about 2 ms)."""
        l, r, b, _t = self.rect
        rows = wrap(lines, chars(r - l - 0.1, SMALL_SCALE))
        height = len(rows) * SMALL_SCALE * 1.2 + 0.02
        text = "\n".join(rows)
        if self._kept is None or self._kept[0] != top:
            if self._kept is not None:
                self._kept[1].destroy()
            sf = self._scrolled_frame(top, height)
            lab = DirectLabel(parent=sf.getCanvas(), text=text, text_fg=TEXT, text_font=self.small,
                              text_align=TextNode.A_left, relief=None, scale=SMALL_SCALE,
                              pos=(l + 0.025, 0, top - SMALL_SCALE))
            self._kept = (top, sf, lab)
            return
        _top, sf, lab = self._kept
        lab["text"] = text
        sf.show()
        sf["canvasSize"] = (l, r - 0.045, min(b + 0.005, top - height), top)
        sf.setCanvasSize()
        sf.verticalScroll.setValue(0)  # from the top, as a new card

    def update(self, card, player: int | None = None, note: str = "") -> None:
        """Show ``card`` (a ``Card``), or a hint when None; ``note``: a line above the
        card in the title colour (where the model is when it is not on the table:
        killed, or Elsewhere waiting to arrive, p.52). The widgets shown stay when the
        card and note are those shown already."""
        key = (card, player, note)
        if key == self._shown:
            return
        self._shown = key
        self.clear()
        self.model = None if card is None else card.id
        self.note = note
        l, r, b, t = self.rect
        top = t - 0.08
        if card is None:
            self.title["text"] = "Model card"
            self.text(["Click a model to see its card and what it may do."], top=top, colour=DIM)
            return
        self.title["text"] = f"{card.name} ({card.id})"
        self.title["text_fg"] = PLAYER.get(card.player, TITLE)
        if note:
            top = self.text([note], top=top, colour=TITLE, scale=SMALL_SCALE, fnt=self.small, max_lines=3)
        self._card_text(card.lines(), top + 0.01)


class MenuPanel(Panel):
    """The action menu of the selected model, its option list, and the action being
    composed (the live verdict with Confirm / Cancel). A greyed item shows its first
    reasons; clicking it shows them all (:attr:`expanded`).

    ``on_choose(key, option)``, ``on_confirm()``, ``on_cancel()`` are called by the
    buttons.
    """

    REASONS = 2

    def __init__(self, base, rect, on_choose: Callable, on_confirm: Callable, on_cancel: Callable,
                 on_boost: Callable | None = None, on_select: Callable | None = None):
        super().__init__(base, rect, "Actions")
        self.on_choose, self.on_confirm, self.on_cancel = on_choose, on_confirm, on_cancel
        self.on_boost = on_boost
        #: ``on_select(model)``: a button of a model off the table (a Flank arrival) pressed
        self.on_select = on_select
        self.buttons: dict[str, DirectButton] = {}
        self.mode = "empty"
        #: the greyed item whose every reason is shown (the others show :attr:`REASONS`)
        self.expanded: str | None = None
        self._shown: object = None
        # the menu of a model (no arrivals): one scrolled frame and one button and reason
        # label per item kind, kept and updated from click to click (a new DirectGUI
        # widget costs about half a millisecond)
        self._menu_sf = None
        self._pool: dict[str, tuple[DirectButton, str, bool]] = {}
        self._notes: dict[str, tuple[DirectLabel, str]] = {}

    def clear(self) -> None:
        """Remove the widgets shown under the title (the menu's kept ones are hidden)."""
        super().clear()
        if self._menu_sf is not None:
            self._menu_sf.hide()

    def warm(self, keys) -> None:
        """Build the kept button and reason label of every item kind in ``keys`` now,
        hidden, so that the first menu with a new kind of action costs no widget
        building in a click (43 ms for a menu of new kinds, benchmarks/game_window_bench.py)."""
        from types import SimpleNamespace

        l, r, b, t = self.rect
        items = [SimpleNamespace(key=k, label=k, enabled=False, reasons=["-"]) for k in keys if k not in self._pool]
        if not items:
            return
        self._menu(items, t - 0.08, r - l - 0.09)
        self.buttons = {}  # nothing is shown: the buttons of the menu on screen only
        if self._menu_sf is not None:
            self._menu_sf.hide()

    def scrolled(self) -> list:
        """The DirectScrolledFrames of the panel (its scrollable parts), top first."""
        kept = [self._menu_sf] if self._menu_sf is not None and not self._menu_sf.is_hidden() else []
        return kept + super().scrolled()

    def destroy(self) -> None:
        """Remove the panel's widgets, the kept ones too."""
        if self._menu_sf is not None:
            self._menu_sf.destroy()
        self._menu_sf = None
        self._pool, self._notes = {}, {}
        super().destroy()

    def _canvas(self, top: float, keep: bool = False):
        l, r, b, t = self.rect
        sf = DirectScrolledFrame(parent=self.frame, frameSize=(l, r, b, top), frameColor=(0, 0, 0, 0),
                                 canvasSize=(l, r - 0.04, b, top), scrollBarWidth=0.035,
                                 verticalScroll_frameColor=(0.2, 0.2, 0.24, 1),
                                 verticalScroll_thumb_frameColor=(0.5, 0.5, 0.56, 1),
                                 verticalScroll_incButton_frameColor=(0.35, 0.35, 0.4, 1),
                                 verticalScroll_decButton_frameColor=(0.35, 0.35, 0.4, 1),
                                 horizontalScroll_frameColor=(0, 0, 0, 0), manageScrollBars=True,
                                 autoHideScrollBars=True)
        if not keep:
            self.widgets.append(sf)
        return sf

    def _menu(self, items, top: float, width: float) -> None:
        """The items of a model's menu on the kept scrolled frame: the buttons and reason
        labels of the item kinds shown before are moved and relabelled, not built again."""
        l, r, b, t = self.rect
        if self._menu_sf is None:
            self._menu_sf = self._canvas(top, keep=True)
        sf = self._menu_sf
        sf.show()
        canvas = sf.getCanvas()
        z = top - 0.005
        x0 = l + 0.02
        shown: set[str] = set()
        notes: set[str] = set()
        for n, item in enumerate(items):
            label = f"{n + 1}. {item.label}" if n < 9 else item.label
            got = self._pool.get(item.key)
            if got is None:
                btn = button(canvas, label, self.on_choose, (x0, z - 0.045), width=width, enabled=item.enabled,
                             fnt=self.font, extra=(item.key, None), align="left", clickable=True)
            else:
                btn, was, on = got
                if was != label:
                    btn["text"] = label
                if on != item.enabled:
                    btn["frameColor"] = BUTTON if item.enabled else BUTTON_OFF
                    btn["text_fg"] = BUTTON_TEXT if item.enabled else DIM
                btn.set_pos(x0, 0, z - 0.045)
                btn.show()
            self._pool[item.key] = (btn, label, item.enabled)
            self.buttons[item.key] = btn
            shown.add(item.key)
            z -= 0.062
            if not item.enabled and item.reasons:
                reasons = [f"- {why}" for why in item.reasons]
                if item.key != self.expanded and len(reasons) > self.REASONS:
                    more = len(reasons) - self.REASONS + 1
                    reasons = reasons[:self.REASONS - 1] + [f"  ... {more} more reasons: click {item.label}"]
                rows = wrap(reasons, chars(width - 0.03, SMALL_SCALE * 0.92))
                text = "\n".join(rows)
                pos = (x0 + 0.03, 0, z - SMALL_SCALE * 0.7)
                note = self._notes.get(item.key)
                if note is None:
                    lab = DirectLabel(parent=canvas, text=text, text_fg=DIM, text_font=self.small,
                                      text_align=TextNode.A_left, relief=None, scale=SMALL_SCALE * 0.92, pos=pos)
                else:
                    lab = note[0]
                    if note[1] != text:
                        lab["text"] = text
                    lab.set_pos(*pos)
                    lab.show()
                self._notes[item.key] = (lab, text)
                notes.add(item.key)
                z -= len(rows) * SMALL_SCALE * 0.92 * 1.2 + 0.012
        for key, (btn, _label, _on) in self._pool.items():
            if key not in shown:
                btn.hide()
        for key, (lab, _text) in self._notes.items():
            if key not in notes:
                lab.hide()
        sf["canvasSize"] = (l, r - 0.04, min(b, z - 0.02), top)
        sf.setCanvasSize()
        sf.verticalScroll.setValue(0)  # from the top, as a new list

    def update(self, model: str | None, items, pending=None, hint: str = "", arrivals=()) -> None:
        """Show the menu ``items`` (``MenuItem``) of ``model``, or -- while an action is
        composed -- ``pending`` (a ``Pending``) with its options or its verdict.

        ``arrivals``: ``(model, label)`` of the models of the player to move waiting to
        arrive (Flank, p.52): they are off the table, so each is a button (``place:ID``
        in :attr:`buttons`, the selected one lit) that calls ``on_select(model)``, above
        the selected one's menu (its Arrive item).

        The widgets shown stay when all of it (and :attr:`expanded`) is as shown already."""
        key = (model, list(items), pending, hint, tuple(arrivals), self.expanded)
        if key == self._shown:
            return
        self._shown = key
        self.clear()
        self.buttons = {}
        l, r, b, t = self.rect
        width = r - l - 0.09
        top = t - 0.08
        if pending is not None:
            self._pending(pending, items, top, width)
            return
        arrivals = list(arrivals) if self.on_select is not None else []
        if (model is None or not items) and not arrivals:
            self.mode = "empty"
            self.title["text"] = "Actions"
            self.text([hint or "Select one of your models to act."], top=top, colour=DIM)
            return
        self.mode = "menu" if items else "arrivals"
        self.title["text"] = f"Actions: {model}" if model and items else "Flank arrivals (p.52)"
        if not arrivals:
            self._menu(items, top, width)
            return
        sf = self._canvas(top)
        canvas = sf.getCanvas()
        z = top - 0.005
        x0 = l + 0.02
        if arrivals:
            rows = wrap(["Off the table, arriving now: pick one, Arrive, then click the table by its edge."],
                        chars(width, SMALL_SCALE))
            DirectLabel(parent=canvas, text="\n".join(rows), text_fg=DIM, text_font=self.small,
                        text_align=TextNode.A_left, relief=None, scale=SMALL_SCALE,
                        pos=(x0, 0, z - SMALL_SCALE * 0.8))
            z -= len(rows) * SMALL_SCALE * 1.2 + 0.01
            for mid, label in arrivals:
                btn = button(canvas, label, self.on_select, (x0, z - 0.045), width=width, fnt=self.font,
                             extra=(mid,), align="left", colour=(0.75, 0.55, 0.15, 1) if mid == model else BUTTON)
                self.buttons[f"place:{mid}"] = btn
                z -= 0.062
            z -= 0.01
        for n, item in enumerate(items):
            label = f"{n + 1}. {item.label}" if n < 9 else item.label
            btn = button(canvas, label, self.on_choose, (x0, z - 0.045), width=width, enabled=item.enabled,
                         fnt=self.font, extra=(item.key, None), align="left", clickable=True)
            self.buttons[item.key] = btn
            z -= 0.062
            if not item.enabled and item.reasons:
                reasons = [f"- {why}" for why in item.reasons]
                if item.key != self.expanded and len(reasons) > self.REASONS:
                    more = len(reasons) - self.REASONS + 1
                    reasons = reasons[:self.REASONS - 1] + [f"  ... {more} more reasons: click {item.label}"]
                rows = wrap(reasons, chars(width - 0.03, SMALL_SCALE * 0.92))
                DirectLabel(parent=canvas, text="\n".join(rows), text_fg=DIM, text_font=self.small,
                                  text_align=TextNode.A_left, relief=None, scale=SMALL_SCALE * 0.92,
                                  pos=(x0 + 0.03, 0, z - SMALL_SCALE * 0.7))
                z -= len(rows) * SMALL_SCALE * 0.92 * 1.2 + 0.012
        sf["canvasSize"] = (l, r - 0.04, min(b, z - 0.02), top)
        sf.setCanvasSize()

    def _pending(self, pending, items, top: float, width: float) -> None:
        l, r, b, t = self.rect
        item = next((i for i in items if i.key == pending.kind), None)
        self.title["text"] = f"{pending.kind.replace('_', ' ').title()}: {pending.model or ''}"
        x0 = l + 0.02
        if pending.action is None and item is not None and item.options:
            self.mode = "options"
            z = self.text(["Choose:"], top=top, colour=DIM)
            sf = self._canvas(z)
            canvas = sf.getCanvas()
            z -= 0.005
            for n, (label, _act) in enumerate(item.options):
                btn = button(canvas, f"{n + 1}. {label}", self.on_choose, (x0, z - 0.045), width=width,
                             fnt=self.font, extra=(item.key, n), align="left")
                self.buttons[f"option{n}"] = btn
                z -= 0.062
            btn = button(canvas, "Cancel (esc)", self.on_cancel, (x0, z - 0.045), width=width, fnt=self.font,
                         align="left", colour=(0.40, 0.22, 0.22, 1))
            self.buttons["cancel"] = btn
            z -= 0.07
            sf["canvasSize"] = (l, r - 0.04, min(self.rect[2], z - 0.02), top)
            sf.setCanvasSize()
            return
        self.mode = "pending"
        ok = pending.action is not None and pending.legal
        colour = GOOD if ok else (BAD if pending.action is not None else DIM)
        head = (pending.text or "").split(": illegal")[0]
        head = head[:-len(": legal")] if head.endswith(": legal") else head
        if pending.action is not None:
            head += ": legal" if ok else ": illegal"
        z = self.text([head or "Drag the model (or click the table) to set where it goes."], top=top, colour=colour,
                      max_lines=3)
        z -= 0.01
        half = (width - 0.02) / 2
        self.buttons["confirm"] = button(self.frame, "Confirm (enter)", self.on_confirm, (x0 + half / 2, z - 0.045),
                                         width=half, enabled=ok, fnt=self.font, colour=(0.20, 0.45, 0.25, 1))
        self.buttons["cancel"] = button(self.frame, "Cancel (esc)", self.on_cancel,
                                        (x0 + half * 1.5 + 0.02, z - 0.045), width=half, fnt=self.font,
                                        colour=(0.40, 0.22, 0.22, 1))
        z -= 0.075
        boost = getattr(pending.action, "boost", None) or 0
        if self.on_boost is not None and pending.kind in BOOSTABLE:
            lab = DirectLabel(parent=self.frame, text=f"Ki boost: {boost}", text_fg=TEXT, text_font=self.font,
                              text_align=TextNode.A_left, relief=None, scale=TEXT_SCALE, pos=(x0 + 0.01, 0, z - 0.045))
            self.widgets.append(lab)
            self.buttons["boost-"] = button(self.frame, "-1", self.on_boost, (x0 + 0.33, z - 0.045), width=0.09,
                                            enabled=boost > 0, fnt=self.font, extra=(-1,))
            self.buttons["boost+"] = button(self.frame, "+1", self.on_boost, (x0 + 0.45, z - 0.045), width=0.09,
                                            fnt=self.font, extra=(1,))
            z -= 0.07
        if pending.kind in ("walk", "run"):
            z = self.text(["drag the base or click the table" + ("; q / e: turn 15 degrees" if pending.kind == "walk"
                                                                  else "")], top=z, colour=DIM,
                          scale=SMALL_SCALE, fnt=self.small)
        if pending.reasons and not pending.legal:
            rows = max(1, int((z - b - 0.02) / (SMALL_SCALE * 1.2)))
            self.text([f"- {why}" for why in pending.reasons], top=z - 0.01, colour=BAD, scale=SMALL_SCALE,
                      fnt=self.small, max_lines=rows)
        self.widgets.extend(self.buttons.values())


class LogPanel(Panel):
    """The game log: a DirectScrolledList of the events in words (one line each, the
    newest at the bottom); clicking an entry calls ``on_click(entry)`` and shows its
    whole text with its page under the list."""

    ROWS_H = 0.042

    def __init__(self, base, rect, on_click: Callable):
        super().__init__(base, rect, "Log")
        self.on_click = on_click
        self.entries: list = []
        l, r, b, t = rect
        self.detail_h = 0.20
        top = t - 0.075
        self.visible = max(3, int((top - (b + self.detail_h) - 0.1) / self.ROWS_H))
        self.width = chars(r - l - 0.08, SMALL_SCALE)
        self.list = DirectScrolledList(
            parent=self.frame, pos=(l + 0.035, 0, top - 0.04),
            frameColor=(0, 0, 0, 0), items=[], numItemsVisible=self.visible, forceHeight=self.ROWS_H,
            itemMakeFunction=self._make, itemFrame_pos=(0, 0, 0), itemFrame_frameColor=(0, 0, 0, 0),
            decButton_pos=(r - l - 0.07, 0, 0.01), incButton_pos=(r - l - 0.07, 0,
                                                                   -(self.visible - 1) * self.ROWS_H - 0.01),
            decButton_text="^", incButton_text="v", decButton_scale=0.04, incButton_scale=0.04,
            decButton_text_fg=TEXT, incButton_text_fg=TEXT, decButton_relief=None, incButton_relief=None,
            decButton_text3_fg=(0.3, 0.3, 0.3, 1), incButton_text3_fg=(0.3, 0.3, 0.3, 1))
        self.detail = DirectLabel(parent=self.frame, text="", text_fg=TEXT, text_font=self.small,
                                  text_align=TextNode.A_left, relief=None, scale=SMALL_SCALE,
                                  pos=(l + 0.025, 0, b + self.detail_h - 0.03))
        self.selected: int | None = None

    def _make(self, text, i, _extra):
        entry = self.entries[i]
        colour = TITLE if entry.kind in ("turn", "phase", "game_over") else TEXT
        if entry.index == self.selected:
            colour = GOOD
        return DirectButton(text=text, text_font=self.small, text_align=TextNode.A_left, text_fg=colour,
                            relief=None, scale=SMALL_SCALE, command=self.click, extraArgs=[i],
                            text1_fg=GOOD, text2_fg=TITLE)

    def _line(self, entry) -> str:
        text = " ".join(entry.text.split())
        page = f" ({entry.page})" if entry.page and entry.page not in text else ""
        line = text + page
        return line if len(line) <= self.width else line[:self.width - 1] + "~"

    def update(self, entries) -> None:
        """Show the ``LogEntry`` list ``entries`` (only the new ones are added when the
        old ones are unchanged); scrolls to the newest."""
        entries = list(entries)
        same = len(entries) >= len(self.entries) and all(
            a.index == b.index and a.text == b.text for a, b in zip(self.entries, entries))
        if not same:
            self.list.removeAndDestroyAllItems() if hasattr(self.list, "removeAndDestroyAllItems") else None
            self.list["items"] = []
            self.entries = []
        for e in entries[len(self.entries):]:
            self.entries.append(e)
            self.list["items"].append(self._line(e))
        self.list.scrollTo(max(0, len(self.entries) - self.visible))

    def scroll(self, steps: int) -> bool:
        """Scroll the list ``steps`` entries (the mouse wheel: negative up, towards the
        first events). Returns whether the list moved."""
        before = self.list.index
        self.list.scrollBy(int(steps))
        return self.list.index != before

    def click(self, i: int) -> None:
        """The entry at list position ``i`` was clicked: show its text, call on_click."""
        if not 0 <= i < len(self.entries):
            return
        entry = self.entries[i]
        self.selected = entry.index
        l, r, b, t = self.rect
        rows = wrap([entry.text + (f" ({entry.page})" if entry.page else "")], chars(r - l - 0.06, SMALL_SCALE))
        if len(rows) > 4:
            rows = rows[:3] + ["... (the dice panel has the rest)"]
        self.detail["text"] = "\n".join(rows)
        self.on_click(entry)

    def destroy(self) -> None:
        """Remove the list and its entries."""
        self.list.destroy()
        super().destroy()


class DicePanel(Panel):
    """The dice of the last test (``DiceView``), in the strip under the table: its
    title, each die as a small white face (natural 1s red; one group per pool), then its
    lines (pool, 1s removed, highest die, supporting dice, modifiers, TN or opposing
    total, Success Level, wound table, wounds) in two columns."""

    DIE = 0.05

    def __init__(self, base, rect):
        super().__init__(base, rect, "Dice")
        self.view = None
        self.update(None)

    def update(self, view, more: int = 0) -> None:
        """Show ``view`` (a ``DiceView``; None: nothing rolled yet); ``more``: how many
        earlier tests there are (said in the title)."""
        self.clear()
        self.view = view
        l, r, b, t = self.rect
        if view is None:
            self.title["text"] = "Dice"
            self.text(["Every test is shown here as it is rolled."], top=t - 0.075, colour=DIM)
            return
        self.title["text"] = "Dice:"
        title_w = 0.14
        self.text([view.title + (f"   ({more} earlier test{'s' if more != 1 else ''} in the log)" if more else "")],
                  top=t - 0.03, x=l + title_w, colour=TITLE, scale=SMALL_SCALE, fnt=self.small, max_lines=1)
        z = t - 0.075
        x = l + 0.03
        for pool in view.dice[:4]:
            for v in pool[:14]:
                if x + self.DIE > r - 0.02:
                    break
                die = DirectLabel(parent=self.frame, text=str(v), text_font=self.font, scale=TEXT_SCALE,
                                  text_fg=(0.8, 0.05, 0.05, 1) if v == 1 else (0.05, 0.05, 0.05, 1),
                                  frameColor=(0.96, 0.96, 0.92, 1), relief=DGG.FLAT,
                                  frameSize=(-0.75, 0.75, -0.5, 1.05), pos=(x + self.DIE / 2, 0, z - self.DIE * 0.7))
                self.widgets.append(die)
                x += self.DIE + 0.01
            x += 0.05
        if view.dice:
            z -= self.DIE + 0.025
        self.scrolled_text(view.lines, top=z)


class ToolBar(Panel):
    """The buttons under the table: ``buttons`` is a list of (key, label, command);
    ``hidden`` keys are not shown (manual adjustment in tournament mode)."""

    def __init__(self, base, rect, buttons, hidden=()):
        super().__init__(base, rect, "")
        self.buttons: dict[str, DirectButton] = {}
        l, r, b, t = rect
        shown = [x for x in buttons if x[0] not in hidden]
        n = max(1, len(shown))
        w = (r - l - 0.02) / n
        for i, (key, label, command) in enumerate(shown):
            cx = l + 0.01 + w * (i + 0.5)
            btn = button(self.frame, label, command, (cx, (b + t) / 2 - TEXT_SCALE * 0.3), width=w - 0.02,
                         fnt=self.font)
            self.buttons[key] = btn
        self.widgets.extend(self.buttons.values())

    def set_label(self, key: str, text: str) -> None:
        """Change the text of button ``key`` (e.g. the manual mode's on/off)."""
        if key in self.buttons:
            self.buttons[key]["text"] = text

    def set_enabled(self, key: str, on: bool) -> None:
        """Make button ``key`` active or greyed."""
        b = self.buttons.get(key)
        if b is None:
            return
        b["state"] = DGG.NORMAL if on else DGG.DISABLED
        b["frameColor"] = BUTTON if on else BUTTON_OFF
        b["text_fg"] = BUTTON_TEXT if on else DIM
