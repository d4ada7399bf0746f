"""The replay window: step forward and back through a saved game on the 3D table (issue 12).

:class:`ReplayWindow` attaches to a ShowBase (:func:`sim.view.play.shell.get_base`,
offscreen in tests) and shows a :class:`~sim.view.play.replay.ReplayCursor`: the table
as it was after event N (:class:`~sim.view.scene3d.TableScene` of the step's table with
the game's markers, :meth:`TableScene.set_markers`) in a display region of its own
framed by :class:`~sim.view.play.tablecam.TableCamera` (as in the game window), the
models the event names ringed (yellow; red where a model the event removed stood), and
around it DirectGUI widgets: the status bar (the event's caption with its rulebook
page, turn, phase, active player), a panel with the whole event and the markers of the
models it names, the log (a DirectScrolledList: click an entry to go to it) and the
controls (a DirectSlider over the events, buttons |< -10 < > +10 >| and Play).

All input goes through plain methods -- :meth:`ReplayWindow.goto`,
:meth:`~ReplayWindow.key`, :meth:`~ReplayWindow.log_click`, the buttons' commands,
:meth:`~ReplayWindow.press_ndc` / :meth:`~ReplayWindow.drag_ndc` /
:meth:`~ReplayWindow.release_ndc` (camera) and :meth:`~ReplayWindow.tick` -- which the
window's ``accept`` bindings and its task call, and the tests call directly.

Keys: left / right one event back / on, page up / page down ten, home / end the first /
the last, space plays or pauses (one event every :data:`PLAY_SECONDS`), ``v`` resets the
camera; left-drag orbits, right/middle-drag pans, the wheel zooms.

Event N is the table after N events (0: as deployed, before the first event); the log's
row N is event N (row 0: the table as deployed).
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from direct.gui import DirectGuiGlobals as DGG
from direct.gui.DirectGui import DirectButton, DirectScrolledList, DirectSlider
from direct.showbase.DirectObject import DirectObject
from panda3d.core import ClockObject, TextNode

from ..mesh import MeshBuilder, circle_ring
from ..scene3d import TableScene
from . import panels as P
from .controller import PlayController
from .pointer import MouseButtons, mouse_ndc
from .replay import ReplayCursor, ReplayStep
from .state import conditions_text
from .tablecam import TableCamera

__all__ = ["GONE_RING", "HIGHLIGHT", "PLAY_SECONDS", "ReplayLayout", "ReplayWindow", "render_replay_png",
           "run_replay_window"]

#: Seconds between two events while playing (space).
PLAY_SECONDS = 0.7
#: Ring colour of the models the current event names.
HIGHLIGHT = (1.0, 0.95, 0.2, 1)
#: Ring colour where a model the current event removed (killed) stood.
GONE_RING = (1.0, 0.25, 0.2, 1)
#: Height of the controls strip under the table (aspect2d units).
CONTROLS_H = 0.2
#: A press that moves less than this (window NDC) is a click, not a drag.
CLICK_NDC = 0.008
#: Events one page up / page down steps.
PAGE = 10

_KEYS = {"arrow_left": "left", "arrow_right": "right", "arrow_left-repeat": "left",
         "arrow_right-repeat": "right", "page_up-repeat": "page_up", "page_down-repeat": "page_down"}


@dataclass(frozen=True)
class ReplayLayout:
    """Where the widgets go in a window of aspect ratio ``aspect`` (width / height);
    rectangles are (left, right, bottom, top) in aspect2d units (x -aspect..aspect,
    z -1..1)."""

    aspect: float

    @property
    def status(self):
        """The status bar across the top."""
        return (-self.aspect, self.aspect, 1 - P.STATUS_H, 1.0)

    @property
    def event(self):
        """The current event's panel: the left column."""
        return (-self.aspect, -self.aspect + P.COLUMN_W, -1.0, 1 - P.STATUS_H)

    @property
    def log(self):
        """The log: the right column."""
        return (self.aspect - P.COLUMN_W, self.aspect, -1.0, 1 - P.STATUS_H)

    @property
    def controls(self):
        """The slider and the step buttons, under the table."""
        return (-self.aspect + P.COLUMN_W, self.aspect - P.COLUMN_W, -1.0, -1.0 + CONTROLS_H)

    @property
    def table(self):
        """The table's rectangle."""
        return (-self.aspect + P.COLUMN_W, self.aspect - P.COLUMN_W, -1.0 + CONTROLS_H, 1 - P.STATUS_H)

    def region(self):
        """The table's rectangle as fractions of the window (for the display region)."""
        l, r, b, t = self.table
        a = self.aspect
        return ((l + a) / (2 * a), (r + a) / (2 * a), (b + 1) / 2, (t + 1) / 2)


def _layout(base) -> ReplayLayout:
    return ReplayLayout(base.win.get_x_size() / max(1, base.win.get_y_size()))


class ReplayWindow(MouseButtons, DirectObject):
    """A saved game replayed in ``base``'s window, one event at a time.

    Args:
        base: a ShowBase (:func:`sim.view.play.shell.get_base`).
        cursor: the :class:`~sim.view.play.replay.ReplayCursor` shown; the window starts
            where it stands (:attr:`ReplayCursor.at`) and moves it.

    Attributes:
        cursor: as given.
        step: the :class:`~sim.view.play.replay.ReplayStep` shown.
        scene: the :class:`TableScene` of the step's table.
        cam: the :class:`~sim.view.play.tablecam.TableCamera`.
        entries: the log (:meth:`sim.view.play.controller.PlayController.log` of the
            game: each event in words with its page and the models it names).
        highlighted: the ids of the models the current event names that are on the
            table (ringed yellow).
        gone: those it names that are no longer on the table (a red ring where they
            stood before the event).
        buttons: the control buttons by name (``first``, ``page_back``, ``back``,
            ``forward``, ``page_forward``, ``last``, ``play``, ``camera``).
        slider: the DirectSlider over the events (0..length).
        log_list: the DirectScrolledList of the log (row N: event N).
        playing: whether the events are played on their own (space / Play).
    """

    def __init__(self, base, cursor: ReplayCursor):
        super().__init__()
        self.base = base
        self.cursor = cursor
        self.software = bool(getattr(base, "bushido_offscreen", False)) or "Tiny" in base.pipe.get_type().get_name()
        self.entries = PlayController(cursor.game).log()
        self.layout = _layout(base)
        self.step: ReplayStep = cursor.current()
        self.cam = TableCamera(base, self.step.table, self.layout.region())
        self.scene: TableScene | None = None
        self._rings = base.render.attach_new_node("replay-highlight")
        self.highlighted: list[str] = []
        self.gone: list[str] = []
        self.playing = False
        self._wait = 0.0
        self._press: dict | None = None
        self._syncing = False
        self._closed = False
        self._build_widgets()
        self._bind()
        base.task_mgr.add(self._task, "bushido-replay-window")
        self.show(self.step)

    # ============================================================ building
    def _build_widgets(self) -> None:
        lay = self.layout
        self.status = P.StatusBar(self.base, lay.status)
        self.event = P.Panel(self.base, lay.event, "Event")
        self.log = P.Panel(self.base, lay.log, "Log (click an event to go to it)")
        self.controls = P.Panel(self.base, lay.controls, "")
        self._build_log()
        self._build_controls()

    def _build_log(self) -> None:
        l, r, b, t = self.log.rect
        rows_h = 0.042
        top = t - 0.075
        self._rows_h = rows_h
        self._visible = max(3, int((top - b - 0.1) / rows_h))
        self._width = P.chars(r - l - 0.08, P.SMALL_SCALE)
        lines = ["0. The table as deployed"] + [self._line(e) for e in self.entries]
        self.log_list = DirectScrolledList(
            parent=self.log.frame, pos=(l + 0.035, 0, top - 0.04), frameColor=(0, 0, 0, 0), items=lines,
            numItemsVisible=self._visible, forceHeight=rows_h, itemMakeFunction=self._make_row,
            itemFrame_pos=(0, 0, 0), itemFrame_frameColor=(0, 0, 0, 0),
            decButton_pos=(r - l - 0.07, 0, 0.01),
            incButton_pos=(r - l - 0.07, 0, -(self._visible - 1) * rows_h - 0.01),
            decButton_text="^", incButton_text="v", decButton_scale=0.04, incButton_scale=0.04,
            decButton_text_fg=P.TEXT, incButton_text_fg=P.TEXT, decButton_relief=None, incButton_relief=None,
            decButton_text3_fg=(0.3, 0.3, 0.3, 1), incButton_text3_fg=(0.3, 0.3, 0.3, 1))

    def _line(self, entry) -> str:
        text = " ".join(entry.text.split())
        page = f" ({entry.page})" if entry.page and entry.page not in text else ""
        line = f"{entry.index + 1}. {text}{page}"
        return line if len(line) <= self._width else line[:self._width - 1] + "~"

    def _row_colour(self, n: int):
        if n == self.cursor.at:
            return HIGHLIGHT
        if n > 0 and self.entries[n - 1].kind in ("turn", "phase", "game_over"):
            return P.TITLE
        return P.TEXT if n <= self.cursor.at else P.DIM

    def _make_row(self, text, n, _extra):
        return DirectButton(text=text, text_font=self.log.small, text_align=TextNode.A_left,
                            text_fg=self._row_colour(n), relief=None, scale=P.SMALL_SCALE, command=self.log_click,
                            extraArgs=[n], text1_fg=P.GOOD, text2_fg=P.TITLE)

    def _build_controls(self) -> None:
        l, r, b, t = self.controls.rect
        frame = self.controls.frame
        n = max(1, self.cursor.length)
        self.slider = DirectSlider(parent=frame, range=(0, n), value=self.cursor.at, pageSize=PAGE, scrollSize=1,
                                   command=self._slid, frameSize=(l + 0.05, r - 0.05, -0.012, 0.012),
                                   frameColor=(0.30, 0.32, 0.38, 1), pos=(0, 0, t - 0.05),
                                   thumb_frameSize=(-0.016, 0.016, -0.035, 0.035),
                                   thumb_frameColor=HIGHLIGHT, thumb_relief=DGG.FLAT)
        specs: list[tuple[str, str, Callable, tuple]] = [
            ("first", "|< Home", self.first, ()), ("page_back", f"<< -{PAGE}", self.back, (PAGE,)),
            ("back", "< Back", self.back, (1,)), ("forward", "Next >", self.forward, (1,)),
            ("page_forward", f"+{PAGE} >>", self.forward, (PAGE,)), ("last", "End >|", self.last, ()),
            ("play", "Play", self.toggle_play, ()), ("camera", "View (v)", self.reset_camera, ())]
        w = (r - l - 0.02) / len(specs)
        self.buttons: dict[str, DirectButton] = {}
        for i, (name, label, command, extra) in enumerate(specs):
            cx = l + 0.01 + w * (i + 0.5)
            self.buttons[name] = P.button(frame, label, command, (cx, b + 0.045), width=w - 0.02,
                                          fnt=self.controls.font, extra=extra)
        self.controls.widgets.extend([self.slider, *self.buttons.values()])

    def _destroy_widgets(self) -> None:
        self.log_list.destroy()
        for p in (self.status, self.event, self.log, self.controls):
            p.destroy()

    def _bind(self) -> None:
        for name in ("arrow_left", "arrow_right", "arrow_left-repeat", "arrow_right-repeat", "home", "end",
                     "page_up", "page_down", "page_up-repeat", "page_down-repeat", "space", "v"):
            self.accept(name, self.key, [name])
        for btn in ("mouse1", "mouse2", "mouse3"):
            self.accept(btn, self._mouse_down, [btn])
            self.accept(btn + "-up", self._mouse_up, [btn])
        self.accept("wheel_up", self.zoom, [0.9])
        self.accept("wheel_down", self.zoom, [1 / 0.9])

    def destroy(self) -> None:
        """Remove everything the window added to the ShowBase: nodes, widgets, its task
        and its event bindings; the camera gets the whole window back."""
        if self._closed:
            return
        self._closed = True
        self.ignore_all()
        self.base.task_mgr.remove("bushido-replay-window")
        self._destroy_widgets()
        if self.scene is not None:
            self.scene.root.remove_node()
            self.scene = None
        self._rings.remove_node()
        self.cam.destroy()

    # ============================================================ drawing
    def show(self, step: ReplayStep) -> None:
        """Draw ``step`` (the cursor's current step): the table with its markers, the
        rings, the status bar, the event panel, the log's current row, the slider."""
        if self._closed:
            return
        old = self.step.index
        self.step = step
        if self.scene is not None:
            self.scene.root.remove_node()
        self.scene = TableScene(step.table, software=self.software)
        self.scene.set_markers(step.markers)
        self.scene.set_camera_pitch(self.cam.pitch)
        self.scene.root.reparent_to(self.base.render)
        self.cam.table = step.table
        self._draw_rings()
        self._draw_status()
        self._draw_event()
        self._draw_log(old)
        if round(float(self.slider["value"])) != step.index:
            self._syncing = True
            try:
                self.slider["value"] = step.index
            finally:
                self._syncing = False

    def _named(self) -> list[str]:
        n = self.step.index
        return list(self.entries[n - 1].models) if n > 0 else []

    def _draw_rings(self) -> None:
        self._rings.node().remove_all_children()
        table, scene = self.step.table, self.scene
        on = {m.id for m in table.models}
        named = self._named()
        self.highlighted = [m for m in named if m in on]
        self.gone = []
        before = self.cursor.step(self.step.index - 1).table if self.step.index > 0 else None
        if before is not None:
            was = {m.id for m in before.models}
            self.gone = [m for m in named if m not in on and m in was]
        assert scene is not None
        for colour, src, ids in ((HIGHLIGHT, table, self.highlighted), (GONE_RING, before, self.gone)):
            for mid in ids:
                assert src is not None
                m = src.model(mid)
                z = scene.ground(m.position) + 0.3
                r = m.radius + 0.12
                mb = MeshBuilder("ring")
                mb.cap(circle_ring(m.position, r + 0.14, 48), z, colour,
                       holes=[circle_ring(m.position, r, 48)[::-1]])
                np_ = self._rings.attach_new_node(mb.node())
                np_.set_light_off()
                np_.set_two_sided(True)
                np_.set_depth_test(False)
                np_.set_depth_write(False)
                np_.set_bin("fixed", 60)

    def _draw_status(self) -> None:
        s = self.step
        who = f"player {s.active} active" if s.active else "no player active"
        l, r, _b, _t = self.status.rect
        room = P.chars(r - l - 0.05, P.TEXT_SCALE)  # the first row is drawn in the larger text
        head = s.caption if len(s.caption) <= room else s.caption[:room - 1] + "~"
        lines = [head,
                 f"Replay of {self.cursor.source}: event {s.index} of {s.total}; turn {s.turn}, {s.phase} phase, {who}",
                 "left/right: one event, page up/down: ten, home/end: first/last, space: play, click the log to jump"]
        self.status.update(lines, player=s.active)

    def _draw_event(self) -> None:
        p, s = self.event, self.step
        p.clear()
        l, r, b, t = p.rect
        p.title["text"] = f"Event {s.index} / {s.total}" + (f"  [{s.page}]" if s.page else "")
        top = t - 0.08
        rows = int((top - b - 0.02) / (P.SMALL_SCALE * 1.2))
        text = s.text if s.index == 0 else self.entries[s.index - 1].text
        lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
        z = p.text(lines, top=top, colour=P.TEXT, scale=P.SMALL_SCALE, fnt=p.small, max_lines=max(3, rows // 2))
        named = self._named()
        head, ids = ("Models it names:", named) if named else ("Models:", list(s.markers))
        if ids:
            z = p.text([head], top=z - 0.02, colour=P.TITLE, scale=P.SMALL_SCALE, fnt=p.small)
            left = max(1, int((z - b - 0.02) / (P.SMALL_SCALE * 1.2)))
            p.text([conditions_text(s.markers, m) if m in s.markers else m for m in ids], top=z, colour=P.TEXT,
                   scale=P.SMALL_SCALE, fnt=p.small, max_lines=left)

    def _draw_log(self, old: int) -> None:
        items = self.log_list["items"]
        for n in range(len(items)):
            if not isinstance(items[n], str):  # rows made so far: recolour those that changed
                if n in (old, self.step.index) or (min(old, self.step.index) <= n <= max(old, self.step.index)):
                    items[n]["text_fg"] = self._row_colour(n)
        self.log_list.scrollTo(self.step.index, centered=1)

    # ============================================================ input
    def goto(self, n: int) -> ReplayStep:
        """Show the table after event ``n`` (0..length) and return that step.

        Raises:
            ValueError: ``n`` is not a whole number in 0..length (nothing changes).
        """
        step = self.cursor.go(n)
        if step.index != self.step.index or self.scene is None:
            self.show(step)
        return step

    def forward(self, k: int = 1) -> ReplayStep:
        """``k`` events on (stopping at the last)."""
        return self.goto(min(self.cursor.length, self.cursor.at + max(0, int(k))))

    def back(self, k: int = 1) -> ReplayStep:
        """``k`` events back (stopping at 0, the table as deployed)."""
        return self.goto(max(0, self.cursor.at - max(0, int(k))))

    def first(self) -> ReplayStep:
        """The table as deployed (event 0)."""
        return self.goto(0)

    def last(self) -> ReplayStep:
        """The table after the last event."""
        return self.goto(self.cursor.length)

    def log_click(self, n: int) -> None:
        """The log's row ``n`` was clicked: go to event ``n``."""
        if 0 <= n <= self.cursor.length:
            self.goto(n)

    def _slid(self) -> None:
        if self._syncing or self._closed:
            return
        n = int(round(float(self.slider["value"])))
        n = max(0, min(self.cursor.length, n))
        if n != self.cursor.at:
            self.goto(n)

    def toggle_play(self) -> None:
        """Start or stop playing the events on their own (from the start when at the end)."""
        self.playing = not self.playing
        if self.playing and self.cursor.at >= self.cursor.length:
            self.goto(0)
        self._wait = 0.0
        self.buttons["play"]["text"] = "Pause" if self.playing else "Play"

    def reset_camera(self) -> None:
        """The oblique view of the whole table again."""
        self.cam.reset()
        if self.scene is not None:
            self.scene.set_camera_pitch(self.cam.pitch)

    def zoom(self, factor: float) -> None:
        """Move the camera ``factor`` times its distance to the table."""
        self.cam.zoom(factor)

    def key(self, name: str) -> None:
        """A key: ``left``/``right`` (``arrow_left``/``arrow_right``) one event back/on,
        ``page_up``/``page_down`` ten back/on, ``home``/``end`` the first/last,
        ``space`` play/pause, ``v`` the camera reset. Unknown keys do nothing."""
        name = _KEYS.get(name, name)
        if name == "left":
            self.back(1)
        elif name == "right":
            self.forward(1)
        elif name == "page_up":
            self.back(PAGE)
        elif name == "page_down":
            self.forward(PAGE)
        elif name == "home":
            self.first()
        elif name == "end":
            self.last()
        elif name == "space":
            self.toggle_play()
        elif name == "v":
            self.reset_camera()

    # ------------------------------------------------------------ camera by mouse
    def press_ndc(self, x: float, y: float, button: str = "mouse1") -> None:
        """A mouse button pressed at window NDC (x, y): a drag on the table from here
        orbits (left) or pans (right, middle)."""
        if not self.cam.inside((x, y)):
            self._press = None
            return
        self._press = {"button": button, "start": (x, y), "last": (x, y), "moved": False}

    def drag_ndc(self, x: float, y: float) -> None:
        """The pointer moved to (x, y) with a button held."""
        pr = self._press
        if pr is None:
            return
        dx, dy = x - pr["last"][0], y - pr["last"][1]
        pr["last"] = (x, y)
        if math.dist(pr["start"], (x, y)) > CLICK_NDC:
            pr["moved"] = True
        if not pr["moved"]:
            return
        if pr["button"] == "mouse1":
            self.cam.orbit(dx, dy)
            if self.scene is not None:
                self.scene.set_camera_pitch(self.cam.pitch)
        else:
            self.cam.pan(dx, dy)

    def release_ndc(self, x: float, y: float, button: str = "mouse1") -> None:
        """The button is let go at (x, y): the end of a drag."""
        if self._press is not None and self._press["button"] == button:
            self.drag_ndc(x, y)
        self._press = None

    # ============================================================ time
    def tick(self, dt: float) -> None:
        """Advance ``dt`` seconds: while playing, one event on every
        :data:`PLAY_SECONDS` (stopping at the last). The window's task calls it."""
        if self._closed or not self.playing:
            return
        self._wait += dt
        if self._wait >= PLAY_SECONDS:
            self._wait = 0.0
            self.forward(1)
            if self.cursor.at >= self.cursor.length:
                self.toggle_play()

    def _task(self, task):
        self.cam.fit_lens()
        lay = _layout(self.base)
        if lay != self.layout:
            self.layout = lay
            self._destroy_widgets()
            self._build_widgets()
            self.cam.set_region(lay.region())
            self.show(self.step)
        pr = self._press
        if pr is not None:
            m = mouse_ndc(self.base)
            if m is not None and m != pr["last"]:
                self.drag_ndc(*m)
        self.tick(min(ClockObject.get_global_clock().get_dt(), 0.25))
        return task.cont

    # ============================================================ geometry for tests
    def to_pixels(self, xyz) -> tuple[float, float] | None:
        """Window pixel (column, row from the top) of a table point (inches)."""
        return self.cam.to_pixels(xyz)

    def panel_pixels(self, name: str) -> tuple[int, int, int, int]:
        """The pixel box (x0, y0, x1, y1; rows from the top) of ``name`` (``status``,
        ``event``, ``log``, ``controls``, ``table``)."""
        l, r, b, t = getattr(self.layout, name)
        w, h = self.base.win.get_x_size(), self.base.win.get_y_size()
        a = self.layout.aspect
        return (int((l + a) / (2 * a) * w), int((1 - t) / 2 * h), int((r + a) / (2 * a) * w), int((1 - b) / 2 * h))


# ================================================================ entry points
def _cursor(path_or_cursor) -> ReplayCursor:
    if isinstance(path_or_cursor, ReplayCursor):
        return path_or_cursor
    if isinstance(path_or_cursor, (str, os.PathLike)):
        return ReplayCursor.open(path_or_cursor)
    raise TypeError(f"a save's path or a ReplayCursor, got {type(path_or_cursor).__name__}")


def run_replay_window(path_or_cursor, at: int | None = None, size=(1600, 1000)) -> ReplayCursor:
    """Open an onscreen window replaying a saved game (a ``bushido-game/1`` path, opened
    verified, or a :class:`ReplayCursor`) from event ``at`` (None: where the cursor
    stands, the end for a path) until the window is closed; returns the cursor (standing
    where the window left it).

    Raises:
        GameError: the save cannot be read or does not re-simulate (one line).
        ValueError: ``at`` is not an event index (before any window opens).
        RuntimeError: no window could be opened (no display).
    """
    from .shell import get_base

    cur = _cursor(path_or_cursor)
    if at is not None:
        cur.go(at)
    base = get_base(offscreen=False, size=size, title=f"Bushido replay: {Path(cur.source).name}")
    win = ReplayWindow(base, cur)
    base.win.set_close_request_event("bushido-replay-close")
    base.accept("bushido-replay-close", base.task_mgr.stop)
    try:
        base.run()
    finally:
        win.destroy()
    return cur


def render_replay_png(cursor, path, at: int | None = None, size=(1280, 960)) -> Path:
    """Render the replay window of ``cursor`` (a :class:`ReplayCursor` or a save's path)
    at event ``at`` (None: where the cursor stands) offscreen to the PNG ``path``
    (headless; the software renderer). Returns the path.

    Raises:
        GameError: a save that cannot be read or does not re-simulate.
        ValueError: ``at`` is not an event index.
        RuntimeError: the offscreen buffer could not be opened or the file written.
    """
    from .shell import get_base, screenshot

    cur = _cursor(cursor)
    if at is not None:
        cur.go(at)
    base = get_base(offscreen=True, size=size)
    win = ReplayWindow(base, cur)
    try:
        return screenshot(base, path)
    finally:
        win.destroy()
