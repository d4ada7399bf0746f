"""The game window's dialogs, all DirectGUI: the hand-over between players at one
screen, the secret melee allocation, physical dice typed in, a file path (save/load),
the manual adjustments, and the end-of-game summary.

Each dialog is a class over a DirectFrame under ``aspect2d`` (above the panels) with a
``destroy()``; its buttons call the callables given, and the tests press them through
the same methods (``choose``, ``submit`` ...).
"""

from __future__ import annotations

from typing import Callable

from direct.gui import DirectGuiGlobals as DGG
from direct.gui.DirectGui import DirectButton, DirectEntry, DirectFrame, DirectLabel
from panda3d.core import TextNode

from .panels import BAD, DIM, GOOD, PANEL, PLAYER, SMALL_SCALE, TEXT, TEXT_SCALE, TITLE, button, chars, gui_font, wrap
from .state import CONDITION_ORDER

#: The hand-over screen's colour (it fills the window: nothing secret shows through).
HANDOVER = (0.10, 0.07, 0.16, 1.0)
#: The sort of dialogs (drawn over the panels).
DIALOG_SORT = 50


class Dialog:
    """A framed box centred at (x, z) ``size`` (w, h) aspect2d units, with a title."""

    def __init__(self, base, title: str, size=(1.3, 1.0), centre=(0.0, 0.0), colour=PANEL, cover=False):
        self.base = base
        self.font = gui_font(base)
        self.small = gui_font(base, SMALL_SCALE)
        w, h = size
        cx, cz = centre
        self.rect = (cx - w / 2, cx + w / 2, cz - h / 2, cz + h / 2)
        a = base.win.get_x_size() / max(1, base.win.get_y_size())
        frame_size = (-a - 0.01, a + 0.01, -1.01, 1.01) if cover else self.rect
        self.frame = DirectFrame(parent=base.aspect2d, frameColor=colour, frameSize=frame_size, sortOrder=DIALOG_SORT,
                                 state=DGG.NORMAL)
        if not cover:
            # a thin border
            l, r, b, t = self.rect
            DirectFrame(parent=self.frame, frameColor=TITLE, frameSize=(l - 0.006, r + 0.006, b - 0.006, t + 0.006),
                        sortOrder=-1)
            DirectFrame(parent=self.frame, frameColor=(*colour[:3], 1.0), frameSize=self.rect)
        l, r, b, t = self.rect
        self.title = DirectLabel(parent=self.frame, text=title, text_fg=TITLE, text_font=self.font, relief=None,
                                 text_align=TextNode.A_left, scale=TEXT_SCALE * 1.2, pos=(l + 0.04, 0, t - 0.07))
        self.widgets: list = []

    def label(self, lines, top: float, colour=TEXT, scale=TEXT_SCALE, x: float | None = None, centre=False) -> float:
        """Text lines from ``top`` down (wrapped to the box); the z under them."""
        l, r, b, t = self.rect
        lines = wrap(lines, chars(r - l - 0.08, scale))
        if not lines:
            return top
        x = (l + r) / 2 if centre else (l + 0.04 if x is None else x)
        lab = DirectLabel(parent=self.frame, text="\n".join(lines), text_fg=colour,
                          text_font=self.font if scale >= TEXT_SCALE else self.small, relief=None, scale=scale,
                          text_align=TextNode.A_center if centre else TextNode.A_left, pos=(x, 0, top - scale * 0.8))
        self.widgets.append(lab)
        return top - len(lines) * scale * 1.2 - 0.01

    def destroy(self) -> None:
        """Remove the dialog."""
        self.frame.destroy()


class HandoverDialog(Dialog):
    """The screen between two players at one screen: it fills the window in one colour
    (the table, the panels and every secret hidden) and says who takes the screen;
    its button "Player N: take the screen" calls ``on_take()``."""

    def __init__(self, base, player: int | None, why: str, on_take: Callable):
        super().__init__(base, "", size=(1.6, 0.7), centre=(0, 0), colour=HANDOVER, cover=True)
        self.title["text"] = ""
        who = f"Player {player}" if player else "The next player"
        z = self.label([f"Hand the screen to {who}"], 0.25, colour=PLAYER.get(player or 0, TITLE),
                       scale=TEXT_SCALE * 1.8, centre=True)
        z = self.label([why], z - 0.03, colour=TEXT, centre=True)
        self.label(["(the other player looks away: what follows is secret)"], z, colour=DIM, scale=SMALL_SCALE,
                   centre=True)
        self.button = button(self.frame, f"{who}: take the screen", on_take, (0, -0.25), width=0.9,
                             fnt=self.font, scale=TEXT_SCALE * 1.2, colour=(0.30, 0.25, 0.45, 1))

    def take(self) -> None:
        """Press the button."""
        self.button.commandFunc(None)


class AllocationDialog(Dialog):
    """The secret melee allocation (p.33) of one model: rows of buttons for the melee
    weapon (step 2: a model with two or more chooses one), the split (attack / defence
    dice), the special (attack or defence), its direction, the Ki boost, from the legal
    ``allocate`` Actions ``choices``; "Allocate" calls
    ``on_allocate(attack, defence, special, direction, boost, weapon)``.

    ``info``: lines about the exchange (pools, the opponent) shown above the rows.
    ``directions``: ``{special: [(degrees, label), ...]}`` names the Throw and Sidestep
    directions on their buttons ("directly away (90 deg)"; None is the engine's own
    choice, "auto"). ``on_pick(action)`` is called with the picked legal choice (or None)
    whenever a button changes it (the window previews the special's move on the table).
    """

    FIELDS = ("weapon", "split", "special", "direction", "boost")

    def __init__(self, base, model: str, player: int | None, choices, info, on_allocate: Callable, rect=None,
                 directions: dict | None = None, on_pick: Callable | None = None):
        l, r, b, t = rect or (-0.75, 0.75, -0.4, 0.4)
        super().__init__(base, f"Secret allocation: {model}" + (f" (player {player})" if player else ""),
                         size=(r - l, t - b), centre=((l + r) / 2, (b + t) / 2))
        self.choices = list(choices)
        self.on_allocate = on_allocate
        self.directions = {k: dict(v) for k, v in (directions or {}).items()}
        self.on_pick = on_pick
        self.info = list(info)
        self.picked: dict[str, object] = {}
        self.rows: list = []
        self._start = self.label(self.info or ["Split the melee dice between attack and defence (p.33)."],
                                 self.rect[3] - 0.11, colour=TEXT, scale=SMALL_SCALE)
        self._pick_defaults()
        self.redraw()

    @staticmethod
    def value(action, field: str):
        """The value of ``field`` in an ``allocate`` Action."""
        if field == "split":
            return (action.attack or 0, action.defence or 0)
        if field == "boost":
            return action.boost or 0
        return getattr(action, field)

    def options(self, field: str) -> list:
        """The values of ``field`` that some legal choice has, given the fields above it."""
        i = self.FIELDS.index(field)
        out: list = []
        for a in self.choices:
            if all(self.value(a, f) == self.picked.get(f) for f in self.FIELDS[:i]):
                v = self.value(a, field)
                if v not in out:
                    out.append(v)
        if field == "split":
            out.sort(key=lambda s: (-s[0], s[1]))
        return out

    def _pick_defaults(self, start: int = 0) -> None:
        for f in self.FIELDS[start:]:
            opts = self.options(f)
            if self.picked.get(f) not in opts:
                self.picked[f] = None if None in opts else (opts[0] if opts else None)

    def text(self, field: str, v) -> str:
        """A button's text for value ``v`` of ``field``."""
        if field == "split":
            return f"{v[0]} att / {v[1]} def"
        if field == "direction":
            names = self.directions.get(self.picked.get("special"), {})
            if v is None:
                return "auto (engine)"
            return names.get(v, f"{float(v):.0f} deg")
        if v is None:
            return "none"
        if field == "boost":
            return f"+{v}" if v else "no boost"
        return str(v).replace("_", " ")

    def choose(self, field: str, value) -> None:
        """Pick ``value`` for ``field`` (the fields below keep their value if still legal)."""
        self.picked[field] = value
        self._pick_defaults(self.FIELDS.index(field) + 1)
        self.redraw()
        if self.on_pick is not None:
            self.on_pick(self.action())

    def action(self):
        """The legal choice the picked values make, or None."""
        for a in self.choices:
            if all(self.value(a, f) == self.picked.get(f) for f in self.FIELDS):
                return a
        return None

    def redraw(self) -> None:
        """Rebuild the rows of buttons for the picked values."""
        for w in self.rows:
            w.destroy()
        self.rows = []
        l, r, b, t = self.rect
        z = self._start - 0.02
        names = {"weapon": "Weapon", "split": "Dice", "special": "Special", "direction": "Direction",
                 "boost": "Ki boost"}
        for f in self.FIELDS:
            opts = self.options(f)
            if f != "split" and opts in ([None], [0], []):
                continue
            lab = DirectLabel(parent=self.frame, text=names[f], text_fg=TITLE, text_font=self.font, relief=None,
                              text_align=TextNode.A_left, scale=TEXT_SCALE, pos=(l + 0.04, 0, z - 0.04))
            self.rows.append(lab)
            x = l + 0.25
            bw = {"special": 0.32, "direction": 0.29, "weapon": 0.32}.get(f, 0.25)
            for v in opts:
                if x + bw > r - 0.03:
                    x = l + 0.25
                    z -= 0.06
                on = self.picked.get(f) == v
                btn = button(self.frame, self.text(f, v), self.choose, (x + bw / 2, z - 0.045), width=bw - 0.02,
                             fnt=self.small, scale=SMALL_SCALE, extra=(f, v),
                             colour=(0.75, 0.55, 0.15, 1) if on else (0.25, 0.30, 0.40, 1))
                self.rows.append(btn)
                x += bw
            z -= 0.075
        act = self.action()
        self.ok = button(self.frame, "Allocate in secret (enter)", self.submit, ((l + r) / 2, b + 0.06), width=0.7,
                         fnt=self.font, enabled=act is not None, colour=(0.20, 0.45, 0.25, 1))
        self.rows.append(self.ok)

    def submit(self) -> None:
        """Allocate the picked values."""
        a = self.action()
        if a is None:
            return
        self.on_allocate(a.attack or 0, a.defence or 0, a.special, a.direction, a.boost or 0, a.weapon)


class DiceEntryDialog(Dialog):
    """Physical dice: "Roll N dice for PURPOSE", an entry for the values (spaces or
    commas between them) and OK, which calls ``on_enter(values)``; :meth:`refuse`
    shows why values were refused."""

    def __init__(self, base, n: int, purpose: str, on_enter: Callable):
        super().__init__(base, "Physical dice", size=(1.3, 0.52), centre=(0, 0.1))
        self.n = n
        self.on_enter = on_enter
        l, r, b, t = self.rect
        z = self.label([f"Roll {n} d6 for: {purpose}", "Type the values (e.g. 6 3 1) and press OK."],
                       t - 0.12)
        self.entry = DirectEntry(parent=self.frame, scale=TEXT_SCALE * 1.3, width=20, pos=(l + 0.06, 0, z - 0.08),
                                 initialText="", numLines=1, focus=1, command=self._entered, entryFont=self.font,
                                 frameColor=(0.95, 0.95, 0.9, 1), text_fg=(0, 0, 0, 1))
        self.error = DirectLabel(parent=self.frame, text="", text_fg=BAD, text_font=self.small, relief=None,
                                 text_align=TextNode.A_left, scale=SMALL_SCALE, pos=(l + 0.06, 0, z - 0.16))
        self.ok = button(self.frame, "OK", self.submit, ((l + r) / 2, b + 0.08), width=0.4, fnt=self.font)

    def _entered(self, _text) -> None:
        self.submit()

    def parse(self) -> list[int] | None:
        """The typed values as whole numbers (None, with the reason shown, when they are not)."""
        raw = self.entry.get().replace(",", " ").split()
        try:
            return [int(v) for v in raw]
        except ValueError:
            self.refuse(f"not whole numbers: {' '.join(raw)}")
            return None

    def submit(self, text: str | None = None) -> None:
        """OK: hand the values (``text`` replaces what was typed) to ``on_enter``."""
        if text is not None:
            self.entry.enterText(text)
        values = self.parse()
        if values is not None:
            self.on_enter(values)

    def refuse(self, why: str) -> None:
        """Say why the values were refused."""
        self.error["text"] = why


class PathDialog(Dialog):
    """A file path for save or load: an entry prefilled with ``path`` and OK / Cancel;
    OK calls ``on_ok(path)``."""

    def __init__(self, base, title: str, path: str, on_ok: Callable, on_cancel: Callable):
        super().__init__(base, title, size=(1.5, 0.55), centre=(0, 0.1))
        l, r, b, t = self.rect
        self.on_ok = on_ok
        self.entry = DirectEntry(parent=self.frame, scale=TEXT_SCALE * 1.1, width=38, pos=(l + 0.05, 0, t - 0.2),
                                 initialText=str(path), numLines=1, focus=1, command=lambda _t: self.submit(),
                                 entryFont=self.font, frameColor=(0.95, 0.95, 0.9, 1), text_fg=(0, 0, 0, 1))
        self.error = DirectLabel(parent=self.frame, text="", text_fg=BAD, text_font=self.small, relief=None,
                                 text_align=TextNode.A_left, scale=SMALL_SCALE, pos=(l + 0.05, 0, t - 0.28))
        button(self.frame, "OK", self.submit, ((l + r) / 2 - 0.25, b + 0.08), width=0.4, fnt=self.font)
        button(self.frame, "Cancel", on_cancel, ((l + r) / 2 + 0.25, b + 0.08), width=0.4, fnt=self.font,
               colour=(0.40, 0.22, 0.22, 1))

    def submit(self) -> None:
        """OK."""
        self.on_ok(self.entry.get().strip())

    def refuse(self, why: str) -> None:
        """Say why the path was refused."""
        self.error["text"] = wrap([why], 90)[0]


class ManualPanel(Dialog):
    """Manual adjustment of one model (off in tournament mode): wounds, Ki and a
    condition's markers up or down; the model is moved by dragging it on the table.
    ``on_adjust(what, arg, delta)`` is called with what = "wounds", "ki" or "marker"
    (``arg``: the condition)."""

    CONDITIONS = tuple(c for c in CONDITION_ORDER if c != "exhausted")

    def __init__(self, base, rect, model: str | None, on_adjust: Callable):
        l, r, b, t = rect[0] + 0.015, rect[1] - 0.015, rect[2] + 0.015, rect[3] - 0.015
        super().__init__(base, "Manual adjustment", size=(r - l, t - b), centre=((l + r) / 2, (b + t) / 2))
        self.on_adjust = on_adjust
        self.condition = self.CONDITIONS[0]
        z = self.label([f"model: {model or '(click one)'}; drag a model on the table to move it freely; "
                        "every change is logged"], t - 0.11, colour=DIM, scale=SMALL_SCALE)
        self.buttons: dict[str, DirectButton] = {}
        x0 = l + 0.04
        xm, xp = r - 0.165, r - 0.06
        z -= 0.02
        for what, label in (("wounds", "Wounds"), ("ki", "Ki")):
            self.label([label], z, colour=TEXT, x=x0)
            for d, bx in ((-1, xm), (1, xp)):
                self.buttons[f"{what}{d:+d}"] = button(self.frame, f"{d:+d}", self.adjust, (bx, z - 0.025),
                                                       width=0.09, fnt=self.font, extra=(what, None, d),
                                                       enabled=model is not None)
            z -= 0.07
        self.label(["Markers"], z, colour=TEXT, x=x0)
        self.cond_button = button(self.frame, self.condition, self.next_condition, (x0 + 0.27, z - 0.025), width=0.2,
                                  fnt=self.small, scale=SMALL_SCALE, colour=(0.35, 0.30, 0.20, 1))
        for d, bx in ((-1, xm), (1, xp)):
            self.buttons[f"marker{d:+d}"] = button(self.frame, f"{d:+d}", self.adjust_marker, (bx, z - 0.025),
                                                   width=0.09, fnt=self.font, extra=(d,), enabled=model is not None)
        self.label(["(click the condition to change it)"], z - 0.06, colour=DIM, scale=SMALL_SCALE, x=x0)

    def next_condition(self) -> None:
        """Cycle the condition the marker buttons change."""
        i = (self.CONDITIONS.index(self.condition) + 1) % len(self.CONDITIONS)
        self.condition = self.CONDITIONS[i]
        self.cond_button["text"] = self.condition.replace("_", " ")

    def adjust(self, what: str, arg, delta: int) -> None:
        """A +/- button."""
        self.on_adjust(what, arg, delta)

    def adjust_marker(self, delta: int) -> None:
        """A marker +/- button."""
        self.on_adjust("marker", self.condition, delta)


class SummaryDialog(Dialog):
    """The end of the game: the summary lines (result, VP/SP, models left) and buttons
    to save the game or look at the table."""

    def __init__(self, base, lines, on_save: Callable, on_close: Callable):
        super().__init__(base, "Game over", size=(1.3, 1.1), centre=(0, 0.1))
        l, r, b, t = self.rect
        lines = list(lines) or ["The game is over."]
        self.label(lines[:1], t - 0.13, colour=GOOD, scale=TEXT_SCALE * 1.2)
        self.label(lines[1:], t - 0.22, colour=TEXT)
        self.save = button(self.frame, "Save the game", on_save, ((l + r) / 2 - 0.3, b + 0.08), width=0.5,
                           fnt=self.font)
        self.close = button(self.frame, "Look at the table", on_close, ((l + r) / 2 + 0.3, b + 0.08), width=0.5,
                            fnt=self.font)


def press(btn: DirectButton) -> None:
    """Press a DirectButton as a click would (its command with its extra arguments)."""
    if btn["state"] == DGG.DISABLED:
        return
    btn.commandFunc(None)


__all__ = ["AllocationDialog", "DiceEntryDialog", "Dialog", "HandoverDialog", "ManualPanel", "PathDialog",
           "SummaryDialog", "press"]
