"""The game window: a whole game of Bushido played on the 3D table (issue 12).

:class:`GameWindow` attaches to a ShowBase (:func:`sim.view.play.shell.get_base`,
offscreen in tests) and shows a :class:`~sim.view.play.controller.PlayController`:
the table (:class:`~sim.view.scene3d.TableScene` of ``game.table_now()``: its figures
moved when models move, turn or die, built again only for new terrain or a model it does
not draw) in the middle of the window, with the selected model's LoS lines, ZoC and front
arc, its movement overlays (Walk region, Run region, charge lanes), the markers, and the
move being composed (ghost base, path, live verdict); around it DirectGUI panels
(:mod:`sim.view.play.panels`: status bar, model card, action menu, log, dice, tool
bar) and dialogs (:mod:`sim.view.play.dialogs`: hand-over, secret allocation, physical
dice, save/load path, manual adjustment, end of game). The controller decides
everything; the window only shows what it says and turns clicks, drags and keys into
its input methods.

All input goes through plain methods -- :meth:`GameWindow.click_ndc`,
:meth:`~GameWindow.press_ndc`, :meth:`~GameWindow.drag_ndc`,
:meth:`~GameWindow.release_ndc`, :meth:`~GameWindow.key`, :meth:`~GameWindow.tick`
and the buttons' commands -- which the window's ``accept`` bindings and its task call,
and the tests call directly. Window points are NDC of the whole window (x, y in -1..1,
y up); table points inches.

Controls (also in ``docs/play.md``): click a model: its card and menu; click an action
(or keys 1-9); Walk/Run/Charge: drag the model's base (or click the table) to set where
it goes, ``q``/``e`` turn it 15 degrees, ``enter`` confirms, ``escape`` cancels;
left-drag elsewhere orbits the camera, right/middle-drag pans, wheel zooms, ``v``
resets; ``tab`` selects the next model that may act; ``z`` (or ``control-z``) undoes;
``control-s`` / ``control-o`` save / load; ``m`` toggles manual adjustment (not in
tournament mode); ``l`` shows or hides the legend over the right part of the table;
``w``, ``r``, ``c`` show or hide the selected model's Walk region, Run region and charge
lanes (also shown, for the selected model only, while a Walk, a Run or a Charge is
composed: the charge lanes orange where they reach, dashed grey where they stop short,
the legal targets ringed; a drag of the base onto an enemy picks that lane).
Models due to arrive from Elsewhere (Flank, p.52) are off the table: the action panel
lists them as buttons; their Arrive item then waits for a click (or drag) on the table,
and the strip along their edge where they may arrive is drawn.
"""

from __future__ import annotations

import gc
import math
from collections.abc import Callable
from pathlib import Path

from direct.showbase.DirectObject import DirectObject
from panda3d.core import ClockObject, TextNode, TransparencyAttrib

from sim.rules.game import ACTION_KINDS, GameError

from .. import drag, style
from ..layers.labels import font as label_font
from ..layers.legend import build_legend
from ..mesh import MeshBuilder, circle_ring
from ..scene3d import TableScene
from . import panels as P
from .controller import PlayController
from .dialogs import (
    AllocationDialog,
    Dialog,
    DiceEntryDialog,
    HandoverDialog,
    ManualPanel,
    PathDialog,
    SummaryDialog,
)
from .pointer import MouseButtons, mouse_ndc
from .tablecam import TableCamera

#: Seconds between two bot actions (a readable pace).
BOT_SECONDS = 0.8
#: Seconds a moved model takes to travel its path.
ANIM_SECONDS = 0.6
#: A press that moves less than this (window NDC) is a click, not a drag.
CLICK_NDC = 0.008
#: Degrees one turn key (q / e) turns the model.
TURN_STEP = 15.0
#: Ring colours: a log entry's models, a target offered.
HIGHLIGHT = (1.0, 0.95, 0.2, 1)
TARGET_RING = (1.0, 0.55, 0.1, 1)
#: A Ki feat's range and area (p.46-47), and an objective a model may act at (p.63).
KI_AREA = (0.72, 0.45, 1.0, 1)
OBJECTIVE_RING = (0.3, 1.0, 0.85, 1)
#: Default save file of the Save / Load buttons.
SAVE_PATH = "bushido-game.json"
#: A Flank model's arrival strip (p.52): the places along its edge where its base may
#: be put (legal) and those refused (the opponent's zone, a base, terrain ...), and how
#: many points along the edge are judged to colour it.
ARRIVAL_OK = (0.2, 0.85, 0.75)
ARRIVAL_REFUSED = (1.0, 0.3, 0.25)
ARRIVAL_SAMPLES = 48


class GameWindow(MouseButtons, DirectObject):
    """The game played in ``base``'s window through ``controller``.

    Args:
        base: a ShowBase (:func:`sim.view.play.shell.get_base`).
        controller: a :class:`PlayController` (or anything with its methods).
        animate: play the moves of bots as animations (False: jump at once; tests).
        save_path: the file the Save and Load buttons start from.
        bot_seconds: the pause before each bot action (seconds of :meth:`tick`).
        on_new_game: called by the tool bar's "New game" (the launching
            :class:`~sim.view.play.launch.Session` then shows the set-up screens); None:
            the button says how to start one.
        legend: show the legend (colours of the table, models, overlays and markers)
            over the right part of the table from the start (``l`` toggles it; off by
            default, on when a player opens the window: :func:`run_game_window`,
            :func:`sim.view.play.launch.run_game`).

    Attributes:
        controller: the controller shown (replaced by :meth:`load`).
        scene: the :class:`TableScene` now drawn.
        overlays: the movement overlays drawn for the selected model (``walk``, ``run``,
            ``charges``): the one of the Walk, Run or Charge composed and those ``w`` /
            ``r`` / ``c`` switched on.
        cam: the :class:`~sim.view.play.tablecam.TableCamera`.
        status, card, menu, log, dice, tools: the panels.
        dialog: the dialog shown (hand-over, allocation, dice, path, summary) or None.
        manual: whether manual-adjustment mode is on.
        note: the last message (a refusal, a bot's action, a save) shown in the status bar.
        highlighted: the model ids ringed on the table (a clicked log entry).
        legend_shown: whether the legend is shown (it hides while a dialog is up).
        legend: the legend's NodePath (under ``base.pixel2d``) while drawn, else None.
        arrival_drawn: ``(model, [(start, end, legal), ...])`` of the arrival strips drawn
            (the segments of each due model's edge, inches), and :attr:`arrival_ghost`
            the ``(point, facing, legal)`` of the base being placed, or None.
    """

    def __init__(self, base, controller, *, animate: bool = True, save_path: str | Path = SAVE_PATH,
                 bot_seconds: float = BOT_SECONDS, on_new_game: Callable[[], None] | None = None,
                 legend: bool = False):
        super().__init__()
        self.on_new_game = on_new_game
        self._new_armed = False
        self.base = base
        self.controller = controller
        self.animate = animate
        self.save_path = str(save_path)
        self.bot_seconds = bot_seconds
        self.software = bool(getattr(base, "bushido_offscreen", False)) or "Tiny" in base.pipe.get_type().get_name()
        self.layout = P.layout(base)
        self.scene: TableScene | None = None
        self._table = None
        self._selected_drawn: str | None = None
        self.cam = TableCamera(base, controller.game.table_now(), self.layout.region())
        self._marks = base.render.attach_new_node("play-highlight")
        self._arrival_np = base.render.attach_new_node("play-arrival")
        self.arrival_drawn: list = []
        self.arrival_ghost: tuple | None = None
        self._arrival_key: object = None
        self._arrival_cache: dict = {}
        self.legend_shown = bool(legend)
        self.legend = None
        self._legend_key: object = None
        self.highlighted: list[str] = []
        #: the Ki feat areas drawn (``FeatArea``) and the objectives ringed (ids)
        self.feat_drawn: list = []
        self.objectives_drawn: list[str] = []
        self._targets: list[str] = []
        self.dialog: Dialog | None = None
        #: the special move previewed on the table from the allocation dialog, or None
        self.special_shown = None
        self._dialog_key: object = None
        self._side_dialog: ManualPanel | None = None
        self.manual = False
        self.note = ""
        self.note_ok = False
        self._needs: str | None = None
        self._boost = 0
        self._point: tuple[float, float] | None = None
        self._facing: float | None = None
        self._press: dict | None = None
        self._anim: dict | None = None
        self._bot_wait = 0.0
        self._version: object = None
        self._logged: tuple | None = None  # (game, number of events, last event) the log and dice show
        self._closed = False
        #: the movement overlays switched on by w / r / c, for the model in ``_toggled_for``
        self._toggled: set[str] = set()
        self._toggled_for: str | None = None
        #: (function, table, model) left to compute in idle frames: the selected model's
        #: Walk region, Run region and charge lanes, into the planners' cache
        self._precompute: list = []
        self._precompute_key: object = None
        self._build_panels()
        self._bind()
        base.task_mgr.add(self._task, "bushido-play-window")
        self.refresh(force=True)

    # ============================================================ building
    def _build_panels(self) -> None:
        lay = self.layout
        self._logged = None  # new log and dice panels: filled at the next refresh
        self.status = P.StatusBar(self.base, lay.status)
        self.card = P.CardPanel(self.base, lay.card)
        self.menu = P.MenuPanel(self.base, lay.menu, self.choose, self.confirm, self.cancel, self.boost,
                                on_select=self.select)
        self.menu.warm(list(ACTION_KINDS) + ["pass", "intercept", "arrive"])
        self.log = P.LogPanel(self.base, lay.log, self.log_click)
        self.dice = P.DicePanel(self.base, lay.dice)
        hidden = ("manual",) if getattr(self.controller, "tournament", False) else ()
        self.tools = P.ToolBar(self.base, lay.tools, self.tool_buttons(), hidden=hidden)

    def tool_buttons(self) -> list[tuple[str, str, Callable[[], None]]]:
        """The tool bar's buttons, ``(key, label, command)`` left to right (a subclass
        may offer others: the networked window, :mod:`sim.view.play.remote`)."""
        return [
            ("new", "New game", self.new_game),
            ("undo", "Undo (z)", self.undo),
            ("pass", "Pass", self.pass_turn),
            ("save", "Save", self.ask_save),
            ("load", "Load", self.ask_load),
            ("manual", "Manual: off", self.toggle_manual),
            ("camera", "View (v)", self.reset_camera),
            ("legend", "Legend (l)", self.toggle_legend),
        ]

    def _destroy_panels(self) -> None:
        for p in (self.status, self.card, self.menu, self.log, self.dice, self.tools):
            p.destroy()

    def _bind(self) -> None:
        for name in ("enter", "escape", "q", "e", "+", "=", "-", "z", "control-z", "control-s", "control-o", "v",
                     "home", "tab", "m", "l", "w", "r", "c", *[str(i) for i in range(1, 10)]):
            self.accept(name, self.key, [name])
        for btn in ("mouse1", "mouse2", "mouse3"):
            self.accept(btn, self._mouse_down, [btn])
            self.accept(btn + "-up", self._mouse_up, [btn])
        self.accept("wheel_up", self._wheel, [-1])
        self.accept("wheel_down", self._wheel, [1])

    def destroy(self) -> None:
        """Remove everything the window added to the ShowBase: nodes, widgets, its task
        and its event bindings; the camera gets the whole window back."""
        if self._closed:
            return
        self._closed = True
        self.ignore_all()
        self.base.task_mgr.remove("bushido-play-window")
        self._close_dialog()
        self._close_side()
        self._destroy_panels()
        if self.scene is not None:
            self.scene.root.remove_node()
            self.scene = None
        self._marks.remove_node()
        self._arrival_np.remove_node()
        self._drop_legend()
        self.cam.destroy()

    # ============================================================ drawing
    def refresh(self, force: bool = False) -> None:
        """Redraw what changed since the last call (everything when ``force``): the
        table when the game changed, the panels, the dialog for the controller's
        screen."""
        c = self.controller
        if self._closed:
            return
        self._offer_interception()
        version = (getattr(c, "version", None), len(c.game.events), c.selected, c.pending, c.screen)
        if not force and version == self._version:
            return
        self._version = version
        if self._anim is None:
            self._draw_table()
        self._draw_dialog()
        self._draw_status()
        self._draw_card_menu()
        events = c.game.events
        last = events[-1] if events else None
        lg = self._logged
        if lg is None or lg[0] is not c.game or lg[1] != len(events) or lg[2] is not last:
            # the log and the dice come from the events only: redrawn when they change
            self._logged = (c.game, len(events), last)
            self.log.update(c.log())
            views = c.dice()
            self.dice.update(views[-1] if views else None, more=max(0, len(views) - 1))
        self.tools.set_enabled("undo", bool(c.game.actions))
        self.tools.set_label("manual", "Manual: on" if self.manual else "Manual: off")
        self._draw_arrival()
        self._draw_legend()

    def _offer_interception(self) -> None:
        """A shot waits for the target's player at the screen (p.30 step 1d): the target
        is selected and the interception's choices are listed at once (nobody, or each
        model that may intercept, ringed on the table; a click on one picks it)."""
        c = self.controller
        ic = c.game.state.interception
        if ic is None or c.screen != "play" or c.pending is not None or self._anim is not None:
            return
        items = c.menu()
        if not items or items[0].key != "intercept":
            return
        if c.selected != ic["target"] and ic["target"] in c.game.state.models:
            c.select(ic["target"])
        c.choose("intercept")

    def _draw_table(self) -> None:
        c = self.controller
        table = c.game.table_now()
        on_table = {m.id for m in table.models}
        sel = c.selected if c.selected in on_table else None
        want = self.wanted_overlays(sel)
        if self.scene is not None and self.scene.movement and (
                self.scene.movement != want or sel != self._selected_drawn):
            # off first (cheap): the regions are never computed for a model being left
            self.scene.set_movement_overlays()
        if self.scene is not None and table is not self._table and table == self._table:
            # nothing on the table moved (Focus, Wait, a shot, an allocation ...): the scene
            # stays; the markers (wounds, Ki, counters, conditions) are drawn again
            self._table = table
            self.cam.table = table
            self._draw_markers()
            self._draw_rings()
        if table is not self._table or self.scene is None:
            kept = False
            if self.scene is not None and self._anim is None:
                # only positions, facings, Prone or the dead changed (a move, a push, a
                # kill ...): the figures are moved and the selected model's overlays drawn
                # again on the kept scene (TableScene.set_table), not a new scene
                if sel != self._selected_drawn:
                    self.scene.select(None)
                    self._selected_drawn = None
                kept = self.scene.set_table(table)
            if not kept:
                if self.scene is not None:
                    self.scene.root.remove_node()
                self.scene = TableScene(table, sel, software=self.software)
                self.scene.root.reparent_to(self.base.render)
                self.scene.set_camera_pitch(self.cam.pitch)
                self._selected_drawn = sel
            self._table = table
            self.cam.table = table
            self._draw_markers()
            self._draw_rings()
        scene = self.scene
        assert scene is not None
        if sel != self._selected_drawn:
            scene.select(sel)
            self._selected_drawn = sel
        if want != scene.movement:
            scene.set_movement_overlays(**{name: True for name in want})
        self._plan_precompute(sel, table)
        self._draw_preview()

    # ============================================================ movement overlays
    @property
    def overlays(self) -> tuple[str, ...]:
        """The movement overlays drawn now for the selected model (names of
        ``sim.view.drag.OVERLAYS``: ``walk``, ``run``, ``charges``)."""
        return self.scene.movement if self.scene is not None else ()

    def wanted_overlays(self, sel: str | None = None) -> tuple[str, ...]:
        """The movement overlays the selected model ``sel`` (on the table) should show:
        those switched on with ``w`` / ``r`` / ``c`` for it, and the one of the action
        composed -- its Walk region for a Walk, its Run region for a Run, its charge
        lanes for a Charge. () with nothing selected, or outside the play screen."""
        c = self.controller
        if sel is None or c.screen != "play":
            return ()
        if self._toggled_for != sel:
            self._toggled, self._toggled_for = set(), sel
        want = set(self._toggled)
        p = c.pending
        if p is not None and p.model == sel:
            want |= {"walk": {"walk"}, "run": {"run"}, "charge": {"charges"}}.get(p.kind, set())
        return tuple(n for n in drag.OVERLAYS if n in want)

    def toggle_overlay(self, name: str) -> None:
        """Show or hide one movement overlay of the selected model (``w``: ``walk``, its
        Walk region; ``r``: ``run``, its Run region; ``c``: ``charges``, its charge
        lanes). They go when the selection changes or an action is confirmed.

        Raises:
            ValueError: ``name`` is not one of ``walk``, ``run``, ``charges``.
        """
        if name not in drag.OVERLAYS:
            raise ValueError(f"unknown movement overlay {name!r} (one of: {', '.join(drag.OVERLAYS)})")
        c = self.controller
        table = self._table
        sel = c.selected if table is not None and c.selected in {m.id for m in table.models} else None
        if sel is None:
            self._say("w / r / c: select a model on the table first")
            self.refresh(force=True)
            return
        if self._toggled_for != sel:
            self._toggled, self._toggled_for = set(), sel
        self._toggled ^= {name}
        self.refresh(force=True)

    def _clear_toggled(self) -> None:
        self._toggled, self._toggled_for = set(), None

    def _plan_precompute(self, sel: str | None, table) -> None:
        """Queue the Walk region, Run region and charge lanes of ``sel`` for the idle
        frames (:meth:`precompute`) when it is a model that may act now, so that Walk,
        Run, Charge and w / r / c only draw them; a plain click computes none of them."""
        key = (sel, id(table))
        if key == self._precompute_key:
            return
        self._precompute_key = key
        self._precompute = []
        if sel is None or sel not in self.controller.model_at_active():
            return
        if table.model(sel).move is None:
            return
        self._precompute = [(fn, table, sel) for fn in (drag.walk_region, drag.run_region, drag.charge_lanes)]

    def precompute(self) -> bool:
        """Compute one of the selected model's regions queued by a selection (into the
        per-position cache of ``sim.rules.planning``); the window's task calls it in
        frames with no mouse button held and no animation. Returns whether one was
        computed."""
        while self._precompute:
            fn, table, mid = self._precompute.pop(0)
            if table is not self._table:
                self._precompute = []
                return False
            try:
                fn(table, mid)
            except ValueError:  # MoveError: a model without a Move value
                self._precompute = []
                return False
            return True
        return False

    def _draw_markers(self) -> None:
        if self.scene is None or not hasattr(self.scene, "set_markers"):
            return
        try:
            from .state import model_markers
        except ImportError:  # pragma: no cover - written by another part
            return
        self.scene.set_markers(model_markers(self.controller.game))

    def _draw_preview(self) -> None:
        c, scene = self.controller, self.scene
        if scene is None:
            return
        p = c.pending
        ids: set[str] = {m.id for m in self._table.models} if self._table is not None else set()
        if p is None or p.model not in ids or p.action is None or self._table is None:
            scene.set_move_preview(None)
            return
        act = p.action
        dest = None
        if p.path:
            dest = p.path[-1]
        elif getattr(act, "point", None) is not None:
            dest = act.point
        elif getattr(act, "path", None):
            dest = act.path[-1]
        if dest is None:
            scene.set_move_preview(None)
            return
        start = self._table.model(p.model).position
        path = [tuple(q) for q in p.path] if p.path else [start, dest]
        if math.dist(path[0], start) > 1e-6:
            path = [start, *path]
        text = (p.text or "").split(": illegal")[0].split(": legal")[0]
        if p.kind == "charge" and p.legal and "charges" in scene.movement:
            path = [tuple(dest)]  # its orange lane is drawn: the ghost at its end, no line over it
        scene.set_move_preview(p.model, tuple(dest), path, bool(p.legal), text)

    def _draw_status(self) -> None:
        st = self.controller.status()
        self.status.update(self.status_lines(st), player=st.to_move, note=self.note, note_ok=self.note_ok)

    def status_lines(self, st) -> list[str]:
        """The status bar's lines for the controller's :class:`~.controller.Status`
        ``st`` (a subclass may add its own: the networked window's connection, clocks,
        allocation and take-back lines)."""
        lines = list(st.bar_lines() if hasattr(st, "bar_lines") else st.lines())
        if self.manual:
            lines.insert(1, "MANUAL ADJUSTMENT: drag a model to move it; the side panel changes wounds, Ki, markers")
        return lines

    def where_note(self, model: str | None) -> str:
        """Where ``model`` is when it is not on the table, in words (the card's note):
        killed, or Elsewhere -- held back by Flank (its turn and edge hidden until it is
        due, p.52) or arriving now along its edge; "" for a model on the table."""
        g = self.controller.game
        m = g.state.models.get(model) if model is not None else None
        if m is None or m.alive:
            return ""
        if m.killed:
            return "Killed: removed from the table."
        arr = g.arrival(model) if model in g.due_arrivals() else None
        if arr is not None:
            return f"Elsewhere: arrives now along the {arr.edge} edge (Flank, p.52)."
        return "Elsewhere: held back by Flank, off the table until it arrives (p.5, p.52)."

    def arrivals_due(self) -> list[tuple[str, str]]:
        """``(model, label)`` of the models the human to move places now from Elsewhere
        (Flank arrivals in the Starting phase, p.52): off the table, they are buttons of
        the action panel. [] when none is due, or a bot places them."""
        c = self.controller
        g = c.game
        if c.screen != "play" or not g.due_arrivals() or g.to_move() in getattr(c, "bots", {}) or (
                hasattr(c, "humans") and g.to_move() not in c.humans()):  # networked: the other seat's
            return []
        out = []
        for mid in c.model_at_active():
            arr = g.arrival(mid)
            out.append((mid, f"{mid}: arrives along the {arr.edge} edge" if arr is not None else mid))
        return out

    def _draw_card_menu(self) -> None:
        c = self.controller
        sel = c.selected
        self.card.update(c.card(sel) if sel is not None else None, note=self.where_note(sel))
        items = c.menu()
        arrivals = self.arrivals_due()
        hint = ""
        if c.screen in ("allocate", "handover"):
            hint = "A secret melee allocation is being made (p.33)."
        elif sel is not None and not items:
            hint = f"{sel} cannot act now (not a model of the player to move, or nothing to declare)."
        elif sel is None and c.screen == "play" and not c.game.is_over():
            who = c.game.to_move()
            ready = c.model_at_active()
            if who in getattr(c, "bots", {}):
                hint = f"The bot plays player {who}."
            elif who is not None and hasattr(c, "humans") and who not in c.humans():  # networked: the other seat
                hint = f"Waiting for player {who} to decide."
            elif arrivals:
                hint = f"Player {who}: place your models arriving from Elsewhere (Flank, p.52)."
            elif ready:
                hint = f"Player {who}: click one of your models ({', '.join(ready[:6])}) or press tab."
        self.menu.update(sel or "", items, c.pending, hint, arrivals=arrivals)
        self._targets = []
        if c.pending is not None and (c.pending.action is None or c.pending.kind == "charge"):
            # the choices ringed (a Charge's legal targets stay ringed with its lanes: a
            # click or a drag onto another one picks its lane)
            item = next((i for i in items if i.key == c.pending.kind), None)
            if item is not None:
                self._targets = [t for t in (getattr(a, "target", None) for _l, a in item.options) if t]
        elif c.pending is None and items and items[0].key == "intercept":
            # a shot waits for the target's player: the models that may intercept, ringed
            self._targets = [t for t in (getattr(a, "target", None) for _l, a in items[0].options) if t]
        self._draw_rings()

    def _ring(self, centre, r: float, width: float, z: float, colour, fill=None, name: str = "ring") -> None:
        """A flat ring (inner radius ``r``, ``width`` wide) at height ``z`` over the table,
        drawn over everything; ``fill``: a translucent disc inside it."""
        mb = MeshBuilder(name)
        n = max(48, min(160, int(r * 12)))
        outer = circle_ring(centre, r + width, n)
        inner = circle_ring(centre, r, n)[::-1]
        mb.cap(outer, z, colour, holes=[inner])
        if fill is not None:
            mb.cap(circle_ring(centre, r, n), z - 0.01, fill)
        np_ = self._marks.attach_new_node(mb.node())
        np_.set_light_off()
        np_.set_two_sided(True)
        np_.set_depth_test(False)
        np_.set_depth_write(False)
        np_.set_bin("fixed", 60)
        if fill is not None or colour[3] < 1:
            np_.set_transparency(TransparencyAttrib.M_alpha)

    def _draw_rings(self) -> None:
        self._marks.node().remove_all_children()
        table = self._table
        if table is None or self.scene is None:
            return
        ids = {m.id for m in table.models}
        self._draw_feat_areas(ids)
        self._draw_objectives(ids)
        for colour, models in ((HIGHLIGHT, self.highlighted), (TARGET_RING, self._targets)):
            for mid in models:
                if mid not in ids:
                    continue
                m = table.model(mid)
                self._ring(m.position, m.radius + 0.12, 0.14, self.scene.ground(m.position) + 0.3, colour)

    def _draw_objectives(self, ids) -> None:
        """The scenario objectives the selected model touches, ringed: bright where a
        Scenario action may be declared now (thicker for the one composed), dim where
        it only stands in contact (p.25, p.63)."""
        c = self.controller
        marks = c.objective_marks() if hasattr(c, "objective_marks") else []
        self.objectives_drawn = [oid for oid, *_ in marks]
        if self.scene is None:
            return
        for _oid, centre, radius, state in marks:
            colour = OBJECTIVE_RING if state != "contact" else (*OBJECTIVE_RING[:3], 0.5)
            width = {"chosen": 0.22, "action": 0.15}.get(state, 0.08)
            self._ring(centre, radius + 0.1, width, self.scene.ground(centre) + 0.35, colour, name="objective")

    def _draw_feat_areas(self, ids) -> None:
        """The Ki feat being composed: the circle of its range round the user (X" from
        its base edge; an Aura or Pulse filled), the models it reaches ringed in the Ki
        colour and its target in the target colour (p.46-47)."""
        c = self.controller
        if self.scene is None or self._table is None or not hasattr(c, "feat_areas"):
            self.feat_drawn = []
            return
        areas = c.feat_areas()
        self.feat_drawn = areas
        for a in areas:
            z = self.scene.ground(a.centre) + 0.08
            colour = KI_AREA if a.chosen else (*KI_AREA[:3], 0.55)
            fill = (*KI_AREA[:3], 0.16) if a.chosen and a.area in ("aura", "pulse") else None
            if a.reach > 0:
                self._ring(a.centre, a.reach, 0.1 if a.chosen else 0.06, z, colour, fill, name=f"feat-{a.feat}")
            if not a.chosen:
                continue
            for mid in a.inside:
                if mid in ids and mid not in (a.target, a.model):
                    m = self._table.model(mid)
                    self._ring(m.position, m.radius + 0.08, 0.1, self.scene.ground(m.position) + 0.3, KI_AREA)
            if a.target in ids:
                m = self._table.model(a.target)
                self._ring(m.position, m.radius + 0.12, 0.14, self.scene.ground(m.position) + 0.3, TARGET_RING)

    def _near_arrival(self, p, hit) -> bool:
        """Whether a press at table point ``hit`` starts dragging the base of the Flank
        arrival ``p`` (within 3" of its edge's line)."""
        if p.kind != "arrive" or not isinstance(hit, tuple):
            return False
        try:
            return math.dist(hit, self.controller.game.arrival_point(p.model, hit)) <= 3.0
        except GameError:
            return False

    def _arrival_segments(self, mid: str) -> list[tuple[tuple[float, float], tuple[float, float], bool]]:
        """The arrival line of ``mid`` cut into :data:`ARRIVAL_SAMPLES` pieces, each with
        whether the engine accepts a base centred at its middle (facing into the table);
        cached per game state."""
        g = self.controller.game
        key = (len(g.events), mid)
        got = self._arrival_cache.get(key)
        if got is not None:
            return got
        (ax, ay), (bx, by) = g.arrival_line(mid)
        facing = g.arrival_facing(mid)
        n = ARRIVAL_SAMPLES
        out = []
        for i in range(n):
            t0, t1 = i / n, (i + 1) / n
            a, b = (ax + (bx - ax) * t0, ay + (by - ay) * t0), (ax + (bx - ax) * t1, ay + (by - ay) * t1)
            mid_pt = ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2)
            out.append((a, b, not g.arrival_refusals(mid, mid_pt, facing)))
        self._arrival_cache = {key: out}
        return out

    def _draw_arrival(self) -> None:
        """The Flank arrivals (p.52) on the table: for each model the player places now,
        the strip along its edge its base may cover (teal where an arrival is legal, red
        where it is refused: the opponent's zone, a base, terrain ...), bright for the
        selected one; and the base being placed (white when legal, red when not, its
        facing arrow and the verdict above it)."""
        c = self.controller
        g = c.game
        due = [mid for mid, _label in self.arrivals_due()]
        p = c.pending
        ghost = None
        if p is not None and p.kind == "arrive" and p.action is not None and getattr(p.action, "point", None):
            ghost = (tuple(p.action.point), p.action.facing, bool(p.legal), p.model)
        key = (len(g.events), tuple(due), c.selected, ghost, self.scene is not None and id(self.scene))
        if key == self._arrival_key:
            return
        self._arrival_key = key
        self._arrival_np.node().remove_all_children()
        self.arrival_drawn, self.arrival_ghost = [], None
        if self.scene is None or not due:
            return
        ground = self.scene.ground
        for mid in due:
            segs = self._arrival_segments(mid)
            self.arrival_drawn.append((mid, segs))
            r = g.table.model(mid).radius
            on = mid == c.selected
            mb = MeshBuilder("arrival-strip")
            for a, b, legal in segs:
                dx, dy = b[0] - a[0], b[1] - a[1]
                length = math.hypot(dx, dy) or 1.0
                nx, ny = -dy / length * r, dx / length * r
                ring = [(a[0] - nx, a[1] - ny), (b[0] - nx, b[1] - ny), (b[0] + nx, b[1] + ny),
                        (a[0] + nx, a[1] + ny)]  # counter-clockwise
                rgb = ARRIVAL_OK if legal else ARRIVAL_REFUSED
                mb.cap(ring, ground(a) + 0.03, (*rgb, 0.45 if on else 0.22))
                mb.polyline([(a[0], a[1], ground(a) + 0.05), (b[0], b[1], ground(b) + 0.05)], 0.06,
                            (*rgb, 1.0 if on else 0.6))
            np_ = self._arrival_np.attach_new_node(mb.node())
            np_.set_light_off()
            np_.set_two_sided(True)
            np_.set_depth_write(False)
            np_.set_transparency(TransparencyAttrib.M_alpha)
            np_.set_bin("fixed", 44)
        if ghost is None:
            return
        pt, facing, legal, mid = ghost
        self.arrival_ghost = (pt, facing, legal)
        r = g.table.model(mid).radius
        gz = ground(pt)
        rgb = style.MOVE_OK if legal else style.WARNING
        mb = MeshBuilder("arrival-ghost")
        mb.cylinder(pt, r, gz, gz + style.BASE_HEIGHT, (*rgb, style.GHOST_ALPHA), segments=40)
        top = gz + style.BASE_HEIGHT + 0.004
        mb.cap(circle_ring(pt, r + 0.03, 40), top, (0.05, 0.05, 0.06, 1), holes=[circle_ring(pt, r - 0.03, 40)])
        f = math.radians(float(facing if facing is not None else g.arrival_facing(mid)))
        tip = (pt[0] + math.cos(f) * r * 0.95, pt[1] + math.sin(f) * r * 0.95)
        mb.polyline([(pt[0], pt[1], top + 0.01), (tip[0], tip[1], top + 0.01)], 0.12, (0.05, 0.05, 0.06, 1))
        np_ = self._arrival_np.attach_new_node(mb.node())
        np_.set_light_off()
        np_.set_two_sided(True)
        np_.set_transparency(TransparencyAttrib.M_alpha)
        np_.set_bin("fixed", 46)
        tn = TextNode("arrival-verdict")
        tn.set_font(label_font(24))
        tn.set_text(f"{mid} arrives: legal" if legal else f"{mid} arrives: illegal")
        # the text reaches into the table, away from the edge the model arrives at
        tn.set_align(TextNode.A_right if pt[0] > g.table.width / 2 else TextNode.A_left)
        tn.set_text_color(*rgb, 1)
        tn.set_card_color(0.02, 0.02, 0.03, 0.78)
        tn.set_card_as_margin(0.3, 0.3, 0.2, 0.2)
        lab = self._arrival_np.attach_new_node(tn)
        lab.set_pos(pt[0], pt[1], top + 1.2)
        lab.set_scale(0.55)
        lab.set_billboard_point_eye()
        lab.set_light_off()
        lab.set_depth_test(False)
        lab.set_depth_write(False)
        lab.set_bin("fixed", 62)

    # ============================================================ legend
    def toggle_legend(self) -> None:
        """Show or hide the legend over the right part of the table (``l``, the tool
        bar's Legend button)."""
        self.legend_shown = not self.legend_shown
        self._draw_legend()

    def _drop_legend(self) -> None:
        if self.legend is not None:
            self.legend.remove_node()
        self.legend = None
        self._legend_key = None

    def _draw_legend(self) -> None:
        """The legend of :func:`sim.view.layers.legend.build_legend` (Passage and
        Visibility colours, the players, the selected model's LoS lines, ZoC and arc,
        the markers) in pixels over the right part of the table; hidden while a dialog
        is shown."""
        if self._closed:
            return
        self.tools.set_label("legend", "Legend: on" if self.legend_shown else "Legend (l)")
        table = self._table
        show = self.legend_shown and self.dialog is None and table is not None
        w, h = self.base.win.get_x_size(), self.base.win.get_y_size()
        sel = self.controller.selected if show and table is not None and \
            self.controller.selected in {m.id for m in table.models} else None
        shown = self.overlays if sel is not None else ()
        empty = tuple(sorted(self.scene.movement_empty)) if shown and self.scene is not None else ()
        key = (show, table.name if show and table is not None else None, sel, w, h, self.layout, shown, empty)
        if key == self._legend_key:
            return
        self._drop_legend()
        self._legend_key = key
        if not show or table is None:
            return
        _l, r, b, t = self.layout.region()
        top, height = int(round((1 - t) * h)), max(1, int(round((t - b) * h)))
        node = build_legend(table, int(round(r * w)), height, selected=sel, markers=True, overlays=shown,
                            empty=empty)
        node.reparent_to(self.base.pixel2d)
        node.set_z(-top)
        self.legend = node

    # ============================================================ dialogs
    def _wanted_dialog(self):
        c = self.controller
        screen = c.screen
        if screen == "handover":
            return ("handover", c.game.to_move())
        if screen == "allocate":
            choices = c.allocation_choices()
            model = getattr(choices[0], "model", None) if choices else None
            return ("allocate", model, len(c.game.events))
        if screen == "dice":
            return ("dice", getattr(c, "dice_request", None), len(c.game.events))
        if screen == "over":
            return ("over",)
        return None

    def _draw_dialog(self) -> None:
        if isinstance(self.dialog, PathDialog):
            return  # the player is typing a path
        want = self._wanted_dialog()
        if want == self._dialog_key:
            return
        self._close_dialog()
        self._dialog_key = want
        c = self.controller
        self.cam.set_visible(want is None or want[0] != "handover")
        if want is None:
            return
        kind = want[0]
        if kind == "handover":
            player = want[1]
            ic = c.game.state.interception
            if c.game.state.exchange is not None:
                why = "Secret melee allocation (p.33)"
            elif ic is not None:
                why = (f"{ic['attacker']} shoots at {ic['target']}: player {player} may intercept the shot "
                       f"with {', '.join(ic['candidates'])} (p.30)")
            else:
                why = f"Player {player} to move"
            self.dialog = HandoverDialog(self.base, player, why, self.take_screen)
        elif kind == "allocate":
            choices = c.allocation_choices()
            if not choices:
                return
            model = want[1]
            player = c.game.state.models[model].player if model in c.game.state.models else None
            l, r, b, _t = self.layout.table
            low = self.layout.tools[3] + 0.01
            specials = sorted({a.special for a in choices if getattr(a, "direction", None) is not None})
            directions = {sp: c.allocation_directions(sp) for sp in specials} \
                if hasattr(c, "allocation_directions") else {}
            self.dialog = AllocationDialog(self.base, model, player, choices, self._exchange_info(model),
                                           self.allocate, rect=(l + 0.01, r - 0.01, low, low + 0.74),
                                           directions=directions, on_pick=self.preview_special)
            self.preview_special(self.dialog.action())
        elif kind == "dice":
            n, purpose = getattr(c, "dice_request", None) or (0, "")
            self.dialog = DiceEntryDialog(self.base, n, purpose, self.enter_dice)
        elif kind == "over":
            self._say("")
            self.dialog = SummaryDialog(self.base, c.summary(), self.ask_save, self.close_summary)

    def _exchange_info(self, model: str) -> list[str]:
        ex = self.controller.game.state.exchange
        if not ex:
            return []
        other = ex["defender"] if model == ex["attacker"] else ex["attacker"]
        lines = [f"{model} against {other}" + (" (charge)" if ex.get("charge") else "")
                 + (" -- disengaging" if ex.get("disengage") else "")]
        done = [m for m in (ex["attacker"], ex["defender"]) if m in ex.get("allocations", {})]
        if done:
            lines.append(f"already allocated (secret): {', '.join(done)}")
        lines.append("Split the dice between attack and defence; choose a special (p.33-42).")
        return lines

    def preview_special(self, action) -> None:
        """Draw on the table the move the allocation ``action`` picked in the dialog
        would make if its Throw or Sidestep succeeds (the swept path, the model where it
        lands; :meth:`PlayController.special_preview`); any other choice clears it."""
        res = None
        if action is not None and getattr(action, "special", None) and hasattr(self.controller, "special_preview"):
            res = self.controller.special_preview(action.special, action.direction)
        self.special_shown = res
        if self.scene is None:
            return
        if res is None:
            self.scene.clear_special()
        else:
            self.scene.show_special(res, 1.0)

    def _close_dialog(self) -> None:
        if self.special_shown is not None:
            self.special_shown = None
            if self.scene is not None:
                self.scene.clear_special()
        if self.dialog is not None:
            self.dialog.destroy()
        self.dialog = None
        self._dialog_key = None
        self.cam.set_visible(True)

    def _close_side(self) -> None:
        if self._side_dialog is not None:
            self._side_dialog.destroy()
        self._side_dialog = None

    def close_summary(self) -> None:
        """Close the end-of-game summary (the table stays shown)."""
        self._close_dialog()
        self._dialog_key = ("over",)

    # ============================================================ controller input
    def _guard(self, fn, *args):
        """Call a controller method; a refusal (GameError, ValueError) becomes the note."""
        try:
            out = fn(*args)
        except (GameError, ValueError) as e:
            self._say(str(e))
            self.refresh(force=True)
            return None
        return out

    def _say(self, text: str, ok: bool = False) -> None:
        """The status bar's message: a refusal (red) or, ``ok``, news."""
        self.note, self.note_ok = text, ok
        self._new_armed = False  # "New game" asks again after anything else

    def _reset_compose(self) -> None:
        self._point = self._facing = None
        self._boost = 0

    def select(self, model: str | None) -> None:
        """Select ``model`` (None clears): its card, menu and overlays (the movement
        overlays switched on for another model go)."""
        self._needs = None
        self._reset_compose()
        if model != self._toggled_for:
            self._clear_toggled()
        self._guard(self.controller.select, model)
        if self._side_dialog is not None:
            self._open_manual()
        self.refresh()

    def choose(self, key: str, option: int | None = None) -> None:
        """A menu item (``key``) of the selected model, or one of its options."""
        c = self.controller
        item = next((i for i in c.menu() if i.key == key), None)
        if item is None or not item.enabled:
            if item is not None:
                self._say(f"{item.label}: " + "; ".join(item.reasons))
                self.menu.expanded = None if self.menu.expanded == key else key
                self._draw_card_menu()
            self.refresh(force=True)
            return
        self._say("")
        self._needs = item.needs if (option is None or item.needs == "point") else None
        self._reset_compose()
        pending = self._guard(c.choose, key, option)
        if pending is not None and pending.action is None and getattr(pending, "template", None) is not None:
            self._needs = "point"  # a declared Walk (Shoot then Walk ...): its destination next (p.25)
        if pending is not None and pending.action is not None and item.needs is None and option is None:
            pass  # confirm at once is the player's enter / Confirm
        self.refresh(force=True)

    def point(self, xy, facing: float | None = None) -> None:
        """The destination of the action being composed (a drag or a click on the table)."""
        c = self.controller
        if c.pending is None:
            return
        self._point = (float(xy[0]), float(xy[1]))
        if facing is not None:
            self._facing = facing
        self._guard(c.point, self._point, self._facing)
        self.refresh(force=True)

    def turn(self, delta: float) -> None:
        """Turn the model ``delta`` degrees (counter-clockwise): the facing at the end of
        the Walk being composed, or -- with nothing composed -- a Walk that only turns
        the selected model (p.22)."""
        c = self.controller
        p = c.pending
        if p is not None and p.kind == "arrive":  # the player placing a model chooses its facing (p.22)
            act = p.action
            if act is None or getattr(act, "point", None) is None:
                self._say("Arrive: click the table by the model's edge first (p.52)")
            else:
                f = self._facing if self._facing is not None else act.facing
                f = c.game.arrival_facing(p.model) if f is None else f
                self._facing = (float(f) + delta) % 360
                self._guard(c.turn, self._facing)
            self.refresh(force=True)
            return
        table = self._table
        ids: set[str] = {m.id for m in table.models} if table is not None else set()
        mid = p.model if p is not None else c.selected
        if mid not in ids or table is None:
            return
        if p is not None and p.kind != "walk":
            self._say("only a Walk changes the facing (p.22)")
            self.refresh(force=True)
            return
        if self._facing is None:
            act = p.action if p is not None else None
            f = getattr(act, "facing", None) if act is not None else None
            self._facing = float(table.model(mid).facing if f is None else f)
        self._facing = (self._facing + delta) % 360
        if p is not None and self._point is not None:
            self._guard(c.point, self._point, self._facing)
        else:
            self._needs = "point"
            self._point = tuple(table.model(mid).position)
            self._guard(c.turn, self._facing)
        self.refresh(force=True)

    def boost(self, delta: int) -> None:
        """One Ki boost step more (``delta`` 1) or fewer (-1) for the action composed
        (p.10, p.47)."""
        c = self.controller
        if c.pending is None or not hasattr(c, "boost"):
            return
        self._boost = max(0, self._boost + delta)
        self._guard(c.boost, self._boost)
        self.refresh(force=True)

    def confirm(self) -> None:
        """Push the action composed (enter / Confirm)."""
        c = self.controller
        if c.pending is None:
            return
        before = self._table
        events = self._guard(c.confirm)
        if events:
            self._say("")
            self._needs = None
            self._reset_compose()
            self._clear_toggled()  # the movement overlays go with the action
            self._animate(before, events, moves=True)  # the player's own Walk, Run, Charge too
        elif c.pending is not None and c.pending.reasons:
            self._say("refused: " + "; ".join(c.pending.reasons))
        self.refresh(force=True)

    def cancel(self) -> None:
        """Drop the action composed (escape / Cancel) and the movement overlays shown."""
        self._needs = None
        self._reset_compose()
        self._clear_toggled()
        self._guard(self.controller.cancel)
        self.refresh(force=True)

    def allocate(self, attack: int, defence: int, special=None, direction=None, boost: int = 0,
                 weapon: str | None = None) -> None:
        """The secret allocation from the dialog, with the melee weapon chosen at step 2
        (p.33; the exchange's moves are animated when it resolves)."""
        before = self._table
        events = self._guard(self.controller.allocate, attack, defence, special, direction, boost, weapon)
        if events:
            self._animate(before, events, moves=True)
        self.refresh(force=True)

    def take_screen(self) -> None:
        """The hand-over's button: the player to move takes the screen."""
        self._guard(self.controller.take_screen)
        self.refresh(force=True)

    def enter_dice(self, values) -> None:
        """Physical dice typed in the dialog."""
        c = self.controller
        before = self._table
        try:
            events = c.enter_dice(list(values))
        except Exception as e:  # DiceError, GameError: the reason in the dialog
            if isinstance(self.dialog, DiceEntryDialog):
                self.dialog.refuse(str(e))
            return
        if events:  # the push the dice were typed for went through: its moves animated
            self._animate(before, events, moves=True)
        self.refresh(force=True)

    def pass_turn(self) -> None:
        """Spend a pass token (the Pass button)."""
        self._guard(self.controller.pass_turn)
        self.refresh(force=True)

    def undo(self) -> None:
        """Take back the last human decision (the Undo button, ``z``)."""
        c = self.controller
        self._anim = None
        self._needs = None
        self._clear_toggled()
        taken = self._guard(c.undo)
        if taken is not None:
            self._say(f"undone: {len(taken)} action(s)" if taken else "nothing to undo", ok=True)
        self.refresh(force=True)

    def new_game(self) -> None:
        """The "New game" button: the set-up screens (table, scenario, warbands, who
        plays: human or bot) in place of this window. While a game is in progress the
        first press only warns (save it first); a second press goes."""
        c = self.controller
        if self.on_new_game is None:
            self._say("New game: start it with  python main.py game --setup  (this window was opened on one game)")
            self.refresh(force=True)
            return
        if c.game.actions and not c.game.is_over() and not self._new_armed:
            self._say("New game: the game in progress will be left (Save it first); press New game again to go on")
            self._new_armed = True
            self.refresh(force=True)
            return
        self._new_armed = False
        self.on_new_game()

    # ------------------------------------------------------------ save / load
    def ask_save(self) -> None:
        """The Save button: a path dialog, then :meth:`save`."""
        self._path_dialog("Save the game", self.save)

    def ask_load(self) -> None:
        """The Load button: a path dialog, then :meth:`load`."""
        self._path_dialog("Load a game", self.load)

    def _path_dialog(self, title: str, then) -> None:
        self._close_dialog()

        def ok(path: str) -> None:
            then(path)

        self.dialog = PathDialog(self.base, title, self.save_path, ok, self._cancel_path)
        self._dialog_key = ("path",)

    def _cancel_path(self) -> None:
        self._close_dialog()
        self.refresh(force=True)

    def save(self, path) -> bool:
        """Save the game to ``path``; the reason in the dialog (or the note) when it fails."""
        try:
            self.controller.save(path)
        except (OSError, GameError, ValueError) as e:
            if isinstance(self.dialog, PathDialog):
                self.dialog.refuse(str(e))
            self._say(f"not saved: {e}")
            return False
        self.save_path = str(path)
        self._say(f"saved to {path}", ok=True)
        if isinstance(self.dialog, PathDialog):
            self._close_dialog()
        self.refresh(force=True)
        return True

    def load(self, path) -> bool:
        """Load the game saved at ``path`` (verified) into a new controller with the same
        settings; the reason in the dialog (or the note) when it fails."""
        old = self.controller
        kw = {"bots": getattr(old, "bots", None), "tournament": getattr(old, "tournament", False),
              "humans_share_screen": getattr(old, "humans_share_screen", True)}
        try:
            new = type(old).load(path, **kw)
        except (OSError, GameError, ValueError) as e:
            if isinstance(self.dialog, PathDialog):
                self.dialog.refuse(str(e))
            self._say(f"not loaded: {e}")
            return False
        self._close_dialog()
        self.controller = new
        self.save_path = str(path)
        self._anim = None
        self._table = None
        self._clear_toggled()
        self.cam.table = new.game.table_now()
        self._say(f"loaded {path}", ok=True)
        self.refresh(force=True)
        return True

    # ------------------------------------------------------------ manual mode
    def toggle_manual(self) -> None:
        """Switch manual-adjustment mode (refused in tournament mode)."""
        if getattr(self.controller, "tournament", False):
            self._say("manual adjustment is off in tournament mode")
            self.manual = False
            self.refresh(force=True)
            return
        self.manual = not self.manual
        if self.manual:
            self._open_manual()
        else:
            self._close_side()
        self.refresh(force=True)

    def _open_manual(self) -> None:
        self._close_side()
        self._side_dialog = ManualPanel(self.base, self.layout.menu, self.controller.selected, self.adjust)

    def adjust(self, what: str, arg, delta: int) -> None:
        """A manual adjustment of the selected model (logged by the controller)."""
        c = self.controller
        m = c.selected
        if m is None:
            self._say("manual adjustment: select a model first")
            self.refresh(force=True)
            return
        fn = {"wounds": lambda: c.adjust_wounds(m, delta), "ki": lambda: c.adjust_ki(m, delta),
              "marker": lambda: c.adjust_marker(m, arg, delta)}[what]
        self._guard(fn)
        self.refresh(force=True)

    # ============================================================ camera
    def reset_camera(self) -> None:
        """The oblique view of the whole table (``v``)."""
        self.cam.reset()
        if self.scene is not None:
            self.scene.set_camera_pitch(self.cam.pitch)

    def zoom(self, factor: float) -> None:
        """Zoom the camera (mouse wheel)."""
        self.cam.zoom(factor)

    def wheel(self, x: float, y: float, steps: int) -> str | None:
        """The mouse wheel turned ``steps`` notches (negative: up) with the pointer at
        window point (x, y): over the table it zooms the camera; over a panel (card,
        actions, log, dice) it scrolls that panel, never the camera; over a dialog,
        nothing. Returns what it acted on (``"table"``, a panel's name) or None."""
        if self.dialog is not None and not isinstance(self.dialog, (SummaryDialog,)):
            return None
        if self.cam.inside((x, y)):
            self.zoom(0.9 if steps < 0 else 1 / 0.9)
            return "table"
        ax = x * self.layout.aspect  # aspect2d units
        for name in ("card", "menu", "log", "dice"):
            l, r, b, t = getattr(self.layout, name)
            if l <= ax <= r and b <= y <= t:
                panel = self._side_dialog if name == "menu" and self._side_dialog is not None else getattr(self, name)
                if hasattr(panel, "scroll"):
                    panel.scroll(steps)
                return name
        return None

    def _wheel(self, steps: int) -> None:
        m = mouse_ndc(self.base)
        if m is None:
            self.zoom(0.9 if steps < 0 else 1 / 0.9)
        else:
            self.wheel(m[0], m[1], steps)

    # ============================================================ pointer input
    def _hit(self, ndc):
        return self.cam.pick(ndc, self._table)

    def click_ndc(self, x: float, y: float) -> None:
        """A click at window point (x, y): select a model, set a destination, choose a
        target -- or nothing off the table."""
        ndc = (x, y)
        if self.dialog is not None or not self.cam.inside(ndc):
            return
        c = self.controller
        hit = self._hit(ndc)
        p = c.pending
        if p is None and isinstance(hit, str) and hit in self._targets:
            items = c.menu()
            if items and items[0].key == "intercept":  # click the model that intercepts
                n = next(k for k, (_l, a) in enumerate(items[0].options) if getattr(a, "target", None) == hit)
                self.choose("intercept", n)
                return
        if p is not None:
            if isinstance(hit, str) and hit in self._targets:
                item = next((i for i in c.menu() if i.key == p.kind), None)
                if item is not None:
                    n = next(k for k, (_l, a) in enumerate(item.options) if getattr(a, "target", None) == hit)
                    self.choose(p.kind, n)
                    return
            if self._needs == "point" and hit is not None and hit != p.model:
                xy = self.cam.table_point(ndc, self.scene.ground if self.scene else None) if isinstance(hit, str) \
                    else hit
                if xy is not None:
                    self.point(xy)
                return
            if hit == p.model:
                return
        self.select(hit if isinstance(hit, str) else None)

    def press_ndc(self, x: float, y: float, button: str = "mouse1") -> None:
        """A mouse button pressed at (x, y): on the base of the model being moved (or any
        model in manual mode) a drag moves it; elsewhere a left drag orbits, a right or
        middle drag pans."""
        ndc = (x, y)
        kind = button
        model = None
        if button == "mouse1" and self.dialog is None and self.cam.inside(ndc):
            hit = self._hit(ndc)
            p = self.controller.pending
            if p is not None and self._needs == "point" and (hit == p.model or self._near_arrival(p, hit)):
                kind = "move"
            elif p is not None and p.kind == "charge" and hit == p.model:
                kind = "move"  # the base dragged onto an enemy: that target's lane
            elif self.manual and isinstance(hit, str):
                kind, model = "manual", hit
            elif p is None and hit is not None and hit == self.controller.selected and \
                    hit in self.controller.model_at_active():
                kind, model = "pickup", hit
        self._press = {"button": button, "kind": kind, "start": ndc, "last": ndc, "moved": False, "model": model}

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
        ground = self.scene.ground if self.scene is not None else None
        if pr["kind"] == "move":
            xy = self.cam.table_point((x, y), ground)
            p = self.controller.pending
            if xy is not None and p is not None and p.kind == "charge":
                self._charge_drag(p, xy)
            elif xy is not None and (self._point is None or math.dist(xy, self._point) > 0.01):
                self.point(xy)
        elif pr["kind"] == "pickup":
            self._carry(pr["model"], (x, y))
        elif pr["kind"] == "manual":
            xy = self.cam.table_point((x, y), ground)
            if xy is not None and self.scene is not None and self._table is not None:
                start = self._table.model(pr["model"]).position
                self.scene.set_move_preview(pr["model"], xy, [start, xy], True, "manual move")
        elif pr["button"] == "mouse1":
            self.cam.orbit(dx, dy)
            if self.scene is not None:
                self.scene.set_camera_pitch(self.cam.pitch)
        else:
            self.cam.pan(dx, dy)

    def release_ndc(self, x: float, y: float, button: str = "mouse1") -> None:
        """The button is let go at (x, y): a click when the pointer hardly moved; the end
        of a drag otherwise (a manual move is applied here)."""
        pr = self._press
        self._press = None
        if pr is None or pr["button"] != button:
            return
        if not pr["moved"] and math.dist(pr["start"], (x, y)) <= CLICK_NDC:
            if button == "mouse1":
                self.click_ndc(x, y)
            return
        if pr["kind"] in ("move", "pickup"):  # the last point, where the button was let go
            self._press = pr
            self.drag_ndc(x, y)
            self._press = None
        elif pr["kind"] == "manual":
            xy = self.cam.table_point((x, y), self.scene.ground if self.scene else None)
            if xy is not None:
                self._guard(self.controller.adjust_move, pr["model"], xy)
            if self.scene is not None:
                self.scene.set_move_preview(None)
            self.refresh(force=True)

    def _charge_drag(self, p, xy) -> None:
        """A Charge's base dragged to the table point ``xy`` (inches): over an
        enemy (its base, or within 1" of it) that target's lane and verdict; elsewhere
        nothing changes (the lanes stay drawn). Judged again only when the enemy under
        the pointer changes."""
        c = self.controller
        target = c.target_at(p.model, xy) if hasattr(c, "target_at") else None
        if target is None or target == getattr(p.action, "target", None):
            return
        item = next((i for i in c.menu() if i.key == "charge"), None)
        n = next((k for k, (_l, a) in enumerate(item.options) if getattr(a, "target", None) == target), None) \
            if item is not None else None
        if n is not None:
            self.choose("charge", n)  # a legal lane: as a click on the ringed target
        else:
            self.point(self._table.model(target).position if self._table is not None else xy)

    def _carry(self, model: str, ndc) -> None:
        """The selected model picked up and carried to window point ``ndc``: over an
        enemy its Charge (when the menu offers one), elsewhere a Walk there -- or a Run
        when only a Run is legal."""
        c = self.controller
        hit = self._hit(ndc)
        items = {i.key: i for i in c.menu()}
        p = c.pending
        if isinstance(hit, str) and hit != model:
            item = items.get("charge")
            n = next((k for k, (_l, a) in enumerate(item.options) if getattr(a, "target", None) == hit), None) \
                if item is not None and item.enabled else None
            same = p is not None and p.kind == "charge" and getattr(p.action, "target", None) == hit
            if n is not None and not same:
                self.choose("charge", n)
            return
        xy = self.cam.table_point(ndc, self.scene.ground if self.scene is not None else None)
        if xy is None or (self._point is not None and p is not None and p.kind in ("walk", "run")
                          and math.dist(xy, self._point) <= 0.01):
            return
        for kind in ("walk", "run"):
            item = items.get(kind)
            if item is None or not item.enabled:
                continue
            if c.pending is None or c.pending.kind != kind:
                self.choose(kind)
            self.point(xy)
            if c.pending is not None and c.pending.legal:
                return
        walk = items.get("walk")
        if walk is not None and walk.enabled and (c.pending is None or c.pending.kind != "walk"):
            self.choose("walk")
            self.point(xy)  # neither is legal: the Walk's reasons are shown

    # ============================================================ keys
    def key(self, name: str) -> None:
        """A key: ``enter`` confirm, ``escape`` cancel / deselect, ``q``/``e`` turn,
        ``z``/``control-z`` undo, ``control-s``/``control-o`` save/load, ``v``/``home``
        camera, ``tab`` next model, ``m`` manual mode, ``l`` legend, ``w``/``r``/``c`` the
        selected model's Walk region, Run region, charge lanes, ``1``-``9`` a menu item or
        option."""
        if isinstance(self.dialog, (PathDialog, DiceEntryDialog)):
            if name == "escape" and isinstance(self.dialog, PathDialog):
                self._cancel_path()
            return  # the keys are typed into the entry
        c = self.controller
        if name == "enter":
            if isinstance(self.dialog, HandoverDialog):
                self.take_screen()
            elif isinstance(self.dialog, AllocationDialog):
                self.dialog.submit()
            elif self.dialog is None:
                self.confirm()
        elif name == "escape":
            if c.pending is not None:
                self.cancel()
            elif self.highlighted:
                self.highlighted = []
                self.log.selected = None
                self._draw_rings()
            elif c.selected is not None:
                self.select(None)
        elif name in ("q", "e"):
            self.turn(TURN_STEP if name == "q" else -TURN_STEP)
        elif name in ("+", "=", "-"):
            self.boost(-1 if name == "-" else 1)
        elif name in ("z", "control-z"):
            if self.dialog is None or isinstance(self.dialog, SummaryDialog):
                self.undo()
        elif name == "control-s":
            self.ask_save()
        elif name == "control-o":
            self.ask_load()
        elif name in ("v", "home"):
            self.reset_camera()
        elif name == "tab":
            ready = c.model_at_active()
            if ready and self.dialog is None:
                i = (ready.index(c.selected) + 1) % len(ready) if c.selected in ready else 0
                self.select(ready[i])
        elif name == "m":
            self.toggle_manual()
        elif name == "l":
            self.toggle_legend()
        elif name in ("w", "r", "c"):
            self.toggle_overlay({"w": "walk", "r": "run", "c": "charges"}[name])
        elif name.isdigit() and self.dialog is None:
            n = int(name) - 1
            p = c.pending
            items = c.menu()
            if p is not None:
                item = next((i for i in items if i.key == p.kind), None)
                if item is not None and p.action is None and n < len(item.options):
                    self.choose(p.kind, n)
            elif n < len(items):
                self.choose(items[n].key)

    # ============================================================ log
    def log_click(self, entry) -> None:
        """A log entry was clicked: ring the models it involves on the table."""
        self.highlighted = list(entry.models)
        self._draw_rings()

    # ============================================================ time
    def _task(self, task):
        self.cam.fit_lens()
        lay = P.layout(self.base)
        if lay != self.layout:
            self.layout = lay
            self._destroy_panels()
            self._build_panels()
            self.cam.set_region(lay.region())
            self.refresh(force=True)
        pr = self._press
        if pr is not None:
            m = mouse_ndc(self.base)
            if m is not None and m != pr["last"]:
                self.drag_ndc(*m)
        dt = ClockObject.get_global_clock().get_dt()
        self.tick(min(dt, 0.25))
        if self._press is None and self._anim is None and self._precompute:
            self.precompute()  # an idle frame: one of the selected model's regions
        return task.cont

    @property
    def targets(self) -> list[str]:
        """The model ids ringed as choices on the table now (targets offered, models
        that may intercept)."""
        return list(self._targets)

    @property
    def animating(self) -> bool:
        """Whether a move is being animated now."""
        return self._anim is not None

    def bot_to_move(self) -> bool:
        """Whether a bot decides now (the game not over, no human dialog waiting)."""
        c = self.controller
        g = c.game
        return not g.is_over() and g.to_move() in getattr(c, "bots", {}) and c.screen not in ("dice",)

    def tick(self, dt: float) -> None:
        """Advance the window ``dt`` seconds: the animation of a move, then -- at the bot's
        pace -- one bot action (its moves animated, its action in the status line); then
        redraw what changed. The window's task calls it every frame; tests call it."""
        if self._closed:
            return
        if self._anim is not None:
            self._anim["t"] += dt
            if self._anim["t"] >= self._anim["duration"]:
                self._anim = None
                if self.scene is not None:
                    self.scene.set_move_preview(None)
                self._table = None  # the figures were moved: the table is drawn from the game again
                self.refresh(force=True)
            else:
                self._draw_anim()
                return
        if self.bot_to_move():
            self._bot_wait += dt
            if self._bot_wait >= self.bot_seconds:
                self._bot_wait = 0.0
                self._bot_step()
        else:
            self._bot_wait = 0.0
        self.refresh()
        self._draw_legend()  # hidden under a dialog opened since (cached: nothing when unchanged)

    def _bot_step(self) -> None:
        c = self.controller
        before = self._table
        res = self._guard(c.bot_step)
        if not res:
            return
        player, action, events = res
        self._say(f"bot (player {player}): {_describe(action)}", ok=True)
        self._animate(before, events, moves=True)

    def _animate(self, before, events, moves: bool) -> None:
        self.animate_events(events, before=before, moves=moves)

    def animate_events(self, events, before=None, moves: bool = True) -> None:
        """Play the models moved by ``events`` (``move`` events when ``moves``, and the
        moves of a melee exchange: push, slam, throw ...) from where ``before`` (default:
        the table drawn) has them, one after the other: each figure travels along its
        line towards a ghost at its end and stays there while the next one moves, and
        the models an exchange turns face their new way; the table is redrawn from the
        game after them (:data:`ANIM_SECONDS` each, advanced by :meth:`tick`)."""
        before = self._table if before is None else before
        steps = moves_of(before, events, moves)
        if self.animate and steps and self.scene is not None:
            if self.scene.movement:  # drawn for the positions before: back after the animation
                self.scene.set_movement_overlays()
            facings: dict[str, float] = {}
            for ev in events:
                if ev.kind == "exchange":
                    facings.update({k: float(v) for k, v in (ev.data.get("facings") or {}).items()})
                elif ev.kind == "move" and moves and ev.data.get("facing") is not None:
                    facings[str(ev.data.get("model"))] = float(ev.data["facing"])
            self._anim = {"moves": steps, "t": 0.0, "duration": ANIM_SECONDS * len(steps), "facings": facings}
            self._draw_anim()
        self.refresh(force=True)  # the panels now; the table after the animation

    def _draw_anim(self) -> None:
        a = self._anim
        if a is None or self.scene is None:
            return
        n = len(a["moves"])
        k = min(n - 1, int(a["t"] / ANIM_SECONDS))
        f = min(1.0, (a["t"] - k * ANIM_SECONDS) / ANIM_SECONDS)
        facings = a.get("facings", {})
        for j, (mid, start, end, _label) in enumerate(a["moves"]):
            if j < k:
                self.scene.move_figure(mid, end, facings.get(mid))
            elif j == k:
                at = (start[0] + (end[0] - start[0]) * f, start[1] + (end[1] - start[1]) * f)
                self.scene.move_figure(mid, at, facings.get(mid))
        model, start, end, label = a["moves"][k]
        self.scene.set_move_preview(model, end, [start, end], True, label)

    # ============================================================ geometry for tests
    def model_ndc(self, model: str) -> tuple[float, float] | None:
        """The window NDC of the top of ``model``'s base as drawn now (to click it)."""
        if self._table is None or self.scene is None:
            return None
        m = self._table.model(model)
        from .. import style

        return self.cam.to_ndc((*m.position, self.scene.ground(m.position) + style.BASE_HEIGHT))

    def table_ndc(self, xy) -> tuple[float, float] | None:
        """The window NDC of the table point ``xy`` (on the ground)."""
        z = self.scene.ground(xy) if self.scene is not None else 0.0
        return self.cam.to_ndc((xy[0], xy[1], z))

    def to_pixels(self, xyz) -> tuple[float, float] | None:
        """Window pixel (column, row) of a table point."""
        return self.cam.to_pixels(xyz)

    def panel_pixels(self, name: str) -> tuple[int, int, int, int]:
        """The pixel box (x0, y0, x1, y1; rows from the top) of panel ``name`` (``status``,
        ``card``, ``menu``, ``log``, ``dice``, ``tools``, ``table``)."""
        rect = getattr(self.layout, name)
        w, h = self.base.win.get_x_size(), self.base.win.get_y_size()
        a = self.layout.aspect
        l, r, b, t = rect
        return (int((l + a) / (2 * a) * w), int((1 - t) / 2 * h), int((r + a) / (2 * a) * w), int((1 - b) / 2 * h))


def moves_of(before, events, moves: bool = True) -> list[tuple[str, tuple[float, float], tuple[float, float], str]]:
    """The models ``events`` move, as ``(model, start, end, label)`` (inches): each
    ``move`` event (when ``moves``) and each position a melee exchange's ``exchange``
    event gives (its special moves), starting where the table ``before`` has the model
    or where an earlier step left it; moves shorter than 0.05" are left out."""
    if before is None:
        return []
    at = {m.id: tuple(m.position) for m in before.models}
    out: list[tuple[str, tuple[float, float], tuple[float, float], str]] = []

    def step(mid, to, label):
        if mid not in at:
            return
        start, end = at[mid], (float(to[0]), float(to[1]))
        at[mid] = end
        if math.dist(start, end) > 0.05:
            out.append((mid, start, end, label))

    for ev in events:
        d = ev.data
        if ev.kind == "move" and moves:
            step(d.get("model"), d["to"], f"{d.get('model')}: {d.get('move', 'move')}")
        elif ev.kind == "exchange":
            for mid, pos in (d.get("positions") or {}).items():
                step(mid, pos, f"{mid}: moved by the exchange")
    return out


def _describe(action) -> str:
    if action is None:
        return "nothing"
    kind = getattr(action, "kind", str(action))
    parts = [str(getattr(action, "model", "") or ""), kind]
    if getattr(action, "target", None):
        parts.append(f"-> {action.target}")
    if getattr(action, "point", None) is not None:
        parts.append(f"to ({action.point[0]:.1f}, {action.point[1]:.1f})")
    if kind == "allocate":
        return f"{action.model} allocates its dice in secret"
    return " ".join(p for p in parts if p)


# ================================================================ entry points
def _controller(game_or_controller, **kw):
    if isinstance(game_or_controller, PlayController) or hasattr(game_or_controller, "bot_step"):
        return game_or_controller
    return PlayController(game_or_controller, **kw)


def run_game_window(game_or_controller, *, bots=None, tournament: bool = False, dice: str = "seeded",
                    size=(1600, 1000), save_path: str | Path = SAVE_PATH):
    """Open an onscreen window and play ``game_or_controller`` (a ``Game`` -- then
    ``bots``, ``tournament``, ``dice`` make its :class:`PlayController` -- or a
    controller) until the window is closed; returns the controller.

    Raises:
        RuntimeError: no window could be opened (no display).
    """
    from .shell import get_base

    kw = {"bots": bots, "tournament": tournament, "dice": dice}
    c = _controller(game_or_controller, **kw)
    base = get_base(offscreen=False, size=size, title=f"Bushido: {c.game.table.name}")
    win = GameWindow(base, c, animate=True, save_path=save_path, legend=True)  # the legend shown at first
    # what start-up built (tables, scenes, caches, widgets) lives as long as the window:
    # out of the cyclic collector's reach, its full collections no longer pause a click
    gc.collect()
    gc.freeze()
    base.win.set_close_request_event("bushido-play-close")
    base.accept("bushido-play-close", base.task_mgr.stop)
    try:
        base.run()
    finally:
        ctrl = win.controller
        win.destroy()
    return ctrl


def render_game_png(controller, path, *, select: str | None = None, choose: str | None = None,
                    point=None, log_click: int | None = None, size=(1280, 960)) -> Path:
    """Render the game window of ``controller`` (a ``PlayController`` or a ``Game``)
    offscreen to the PNG ``path`` (headless): optionally with ``select`` a model
    selected, ``choose`` one of its menu items, ``point`` a destination for it, and
    ``log_click`` the log entry at that list position clicked. Returns the path.

    Raises:
        RuntimeError: the software renderer could not open a buffer or write the file.
    """
    from .shell import get_base, screenshot

    c = _controller(controller)
    base = get_base(offscreen=True, size=size)
    win = GameWindow(base, c, animate=False)
    try:
        if select is not None:
            win.select(select)
        if choose is not None:
            win.choose(choose)
        if point is not None:
            win.point(point)
        if log_click is not None:
            win.log.click(log_click)
        win.refresh(force=True)
        return screenshot(base, path)
    finally:
        win.destroy()


__all__ = ["ANIM_SECONDS", "BOT_SECONDS", "GameWindow", "render_game_png", "run_game_window"]
