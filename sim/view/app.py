"""The measuring window: a controller over :class:`~sim.view.scene3d.TableScene` that
attaches to a ShowBase.

:class:`TableView` takes a ShowBase (onscreen, or the offscreen software renderer of
:func:`sim.view.play.shell.get_base`) and attaches its scene, status line, help line,
legend, key bindings and tasks to it; ``destroy()`` removes them all, so tests build
several in one process. Input comes through plain methods -- :meth:`TableView.key`,
:meth:`TableView.press`, :meth:`TableView.pointer`, :meth:`TableView.release`,
:meth:`TableView.click`, :meth:`TableView.drag` (mouse positions in NDC: x, y in -1..1,
y up) -- which the window's event bindings call and tests call directly.
:class:`TableApp` is the onscreen window ``run_interactive`` opens.

Controls: left-drag orbit, right- or middle-drag pan, mouse wheel zoom, click a model to
select it (click the table to clear); press on the selected model's base and drag to
move it (or ``m``: move mode, then click destinations): ``1`` Walk, ``2`` Run, ``3``
Charge (the enemy under the cursor), ``q`` / ``e`` turn a Walk's end facing (15°;
shift: 1°), ``enter`` commits the move, ``escape`` cancels it (and quits when nothing
is being moved); ``w``, ``r``, ``c`` toggle the walk region, run region and charge
lanes; ``s`` (``shift-s``: backwards) plays the next special move of the selected model
against the enemy in base contact (``b``: the sandbox, any pair) as a short animation and
leaves its swept paths drawn: ``enter`` commits it, ``escape`` cancels it, ``x``
dismisses the drawing; ``t`` toggles the tape measure (click two points or models),
``l`` the legend, ``v`` resets the camera.

What a move shows and whether it is legal is decided in :mod:`sim.view.drag`, and what a
special move shows in :mod:`sim.view.specials` (no Panda3D); this module only turns the
mouse into table points and plays the animation.
"""

from __future__ import annotations

import math
from typing import Callable

from direct.showbase.DirectObject import DirectObject
from panda3d.core import ClockObject, TextNode, Vec3

from . import style
from .camera import OBLIQUE_PITCH, OBLIQUE_VFOV, setup_camera
from .drag import FINE_TURN, TURN_STEP, DragState
from .interact import pick, ray_plane, tape
from .scene3d import TableScene, build_legend
from .specials import SpecialState, describe_special, sandbox_note

HELP = ("left-drag orbit | right/middle-drag pan | wheel zoom | click a model: select | "
        "drag selected model (or m: move mode), 1/2/3: walk/run/charge, q/e: turn, enter: move, esc: cancel | "
        "w/r/c: walk/run/charge areas | s/shift-s: special moves, b: sandbox, x: dismiss | t: tape | l: legend | "
        "v: camera | esc: quit")
#: A press that moves less than this many pixels is a click, not a drag.
CLICK_PX = 4
#: Length of a special move's animation, seconds.
SPECIAL_SECONDS = 1.5
#: Keys the window binds, and what :meth:`TableView.key` does with each.
KEYS = ("escape", "t", "l", "v", "home", "w", "r", "c", "m", "enter", "s", "shift-s", "x", "b", "1", "2", "3",
        "q", "e", "shift-q", "shift-e")
#: Colours of the status line: neutral, a legal move, an illegal one.
NEUTRAL = (1, 1, 0.6, 1)

Ndc = tuple[float, float]


class TableView(DirectObject):
    """The measuring window on one table, attached to ``base`` (a ShowBase).

    Args:
        base: the ShowBase (``sim.view.play.shell.get_base``): its ``render``,
            ``pixel2d``, ``a2dTopLeft``/``a2dBottomLeft``, camera, window and task
            manager are used.
        table: the :class:`~sim.table.Table` shown.
        selected: a model to select at once.
        on_quit: called when ``escape`` has nothing to cancel (or the window is
            closed); ``quit_requested`` is set either way.
        bind: bind the keys and mouse buttons of :data:`KEYS` to the handlers (tests
            may leave it off and call the handlers).

    Attributes:
        table: the table shown (a new one after each committed move).
        scene: the :class:`~sim.view.scene3d.TableScene`.
        move: the move being set up (:class:`~sim.view.drag.DragState`).
        special: the special move (:class:`~sim.view.specials.SpecialState`; outside
            the sandbox until ``b``).
        status: the status line's text; ``status_colour`` its colour (r, g, b, a).
        legend: the legend NodePath (under ``base.pixel2d``), None before the first
            window size is known.
        special_seconds: length of a special move's animation (0: at once).
    """

    def __init__(self, base, table, selected: str | None = None, *, on_quit: Callable[[], None] | None = None,
                 bind: bool = True):
        super().__init__()
        self.base = base
        self.table = table
        self.on_quit = on_quit
        self.quit_requested = False
        self.software = "Tiny" in base.pipe.get_type().get_name()
        self.scene = TableScene(table, selected, software=self.software)
        self.scene.root.reparent_to(base.render)
        self.move = DragState(table)
        self.special = SpecialState(table, sandbox=False)
        self.special_seconds = SPECIAL_SECONDS
        self._special_start: float | None = None
        self._move_mode = False
        self._overlays = {"walk": False, "run": False, "charges": False}
        self.cam_lens = base.camLens
        self.cam_lens.set_near_far(1.0, 1000.0)
        self.legend = None
        self._legend_on = True
        self._legend_key: tuple | None = None
        self.status = ""
        self.status_colour = NEUTRAL
        self._status = TextNode("status")
        self._status.set_text_color(*NEUTRAL)
        self._status.set_card_color(0, 0, 0, 0.6)
        self._status.set_card_as_margin(0.3, 0.3, 0.2, 0.2)
        self._status_np = base.a2dTopLeft.attach_new_node(self._status)
        self._status.set_wordwrap(44)
        self._status_np.set_scale(0.045)
        self._status_np.set_pos(0.04, 0, -0.08)
        help_tn = TextNode("help")
        help_tn.set_text(HELP)
        help_tn.set_text_color(0.85, 0.85, 0.85, 1)
        self._help_np = base.a2dBottomLeft.attach_new_node(help_tn)
        help_tn.set_wordwrap(52)
        self._help_np.set_scale(0.032)
        self._help_np.set_pos(0.04, 0, 0.075)
        self._drag: tuple | None = None  # (kind, start pixels (x, y), last NDC (x, y))
        self._tape_on = False
        self._tape_ends: list = []
        self._tasks = [f"bushido-pointer-{id(self)}", f"bushido-special-{id(self)}", f"bushido-precompute-{id(self)}"]
        #: work the idle frames after a selection do: the selected model's Walk region,
        #: Run region and charge lanes, one per frame, into the planners' cache
        self._precompute: list = []
        self.reset_camera()
        self._close_event = None
        if bind:
            self._bind()
        base.task_mgr.add(self._pointer_task, self._tasks[0])
        self._refresh_legend()  # the legend from the start, not only after a selection
        self._update_status()

    def _bind(self) -> None:
        win = self.base.win
        if self.on_quit is not None and hasattr(win, "set_close_request_event"):
            self._close_event = f"bushido-window-close-{id(self)}"
            win.set_close_request_event(self._close_event)
            self.accept(self._close_event, self.quit)
        self.accept("window-event", self._window_event)
        for name in KEYS:
            self.accept(name, self.key, [name])
        for button in ("mouse1", "mouse2", "mouse3"):
            self.accept(button, self._mouse_event, [button, True])
            self.accept(button + "-up", self._mouse_event, [button, False])
        self.accept("wheel_up", self.zoom, [0.9])
        self.accept("wheel_down", self.zoom, [1 / 0.9])

    def destroy(self) -> None:
        """Remove everything this view attached to the base: its nodes, tasks and
        event bindings."""
        for name in self._tasks:
            self.base.task_mgr.remove(name)
        self.ignore_all()
        if self._close_event is not None and hasattr(self.base.win, "set_close_request_event"):
            self.base.win.set_close_request_event("")
        for np_ in (self.scene.root, self._status_np, self._help_np, self.legend):
            if np_ is not None:
                np_.remove_node()
        self.legend = None

    # ---------------------------------------------------------------- input
    def key(self, name: str) -> None:
        """A key of :data:`KEYS` was pressed (the window's bindings and tests call this)."""
        actions: dict[str, Callable[[], object]] = {
            "escape": self.escape, "t": self.toggle_tape, "l": self.toggle_legend, "v": self.reset_camera,
            "home": self.reset_camera, "w": lambda: self.toggle_overlay("walk"),
            "r": lambda: self.toggle_overlay("run"), "c": lambda: self.toggle_overlay("charges"),
            "m": self.toggle_move_mode, "enter": self.commit, "s": lambda: self.cycle_special(1),
            "shift-s": lambda: self.cycle_special(-1), "x": self.dismiss_special, "b": self.toggle_sandbox,
            "1": lambda: self.set_move_kind("walk"), "2": lambda: self.set_move_kind("run"),
            "3": lambda: self.set_move_kind("charge"), "q": lambda: self.turn(TURN_STEP),
            "e": lambda: self.turn(-TURN_STEP), "shift-q": lambda: self.turn(FINE_TURN),
            "shift-e": lambda: self.turn(-FINE_TURN),
        }
        if name not in actions:
            raise ValueError(f"unknown key {name!r} (one of: {', '.join(KEYS)})")
        actions[name]()

    def _mouse_ndc(self) -> Ndc | None:
        mw = getattr(self.base, "mouseWatcherNode", None)
        if mw is None or not mw.has_mouse():
            return None
        m = mw.get_mouse()
        return (m.x, m.y)

    def _mouse_event(self, button: str, down: bool) -> None:
        ndc = self._mouse_ndc()
        if ndc is None:
            return
        (self.press if down else self.release)(button, ndc)

    def _pointer_task(self, task):
        ndc = self._mouse_ndc()
        if ndc is not None:
            self.pointer(ndc)
        return task.cont

    def _px(self, ndc: Ndc) -> tuple[float, float]:
        return ((ndc[0] + 1) / 2 * self.base.win.get_x_size(), (1 - ndc[1]) / 2 * self.base.win.get_y_size())

    def press(self, button: str, ndc: Ndc) -> None:
        """A mouse button went down at ``ndc``: on the selected model's base (left
        button, not measuring, not in move mode) a move starts; else the camera drag."""
        kind = button
        sel = self.scene.selected
        if (button == "mouse1" and sel is not None and not self._tape_on and not self._move_mode
                and pick(self.table, *self.mouse_ray(ndc)) == sel):
            # a press on the selected model's base: drag it (a move), not the camera
            kind = "move"
            self._drop_pending_special()
            self.move.begin(sel)
        self._drag = (kind, self._px(ndc), tuple(ndc))

    def pointer(self, ndc: Ndc) -> None:
        """The mouse is at ``ndc``: the ghost follows it (a move being dragged, or move
        mode), or the camera orbits / pans with a button held."""
        if self.move.active and not self.move.pinned and (self._move_mode or self._moving()):
            p = self.table_point(ndc)
            if p is not None and self.move.hover(p):
                self._show_move()
        if self._drag is None or self._moving():
            return
        button, start, last = self._drag
        dx, dy = ndc[0] - last[0], ndc[1] - last[1]
        self._drag = (button, start, tuple(ndc))
        if dx == 0 and dy == 0:
            return
        if button == "mouse1":
            self.heading -= dx * 120
            self.pitch += dy * 80
        else:
            scale = self.distance * math.tan(math.radians(OBLIQUE_VFOV / 2))
            render, camera = self.base.render, self.base.camera
            right = render.get_relative_vector(camera, Vec3(1, 0, 0))
            fwd = render.get_relative_vector(camera, Vec3(0, 1, 0))
            right.z = fwd.z = 0
            right.normalize()
            fwd.normalize()
            self.target -= right * dx * scale * self.cam_lens.get_aspect_ratio() + fwd * dy * scale
        self._place_camera()

    def _moving(self) -> bool:
        """A press-and-drag of the selected model is in progress."""
        return self._drag is not None and self._drag[0] == "move"

    def release(self, button: str, ndc: Ndc) -> None:
        """A mouse button came up at ``ndc``: ends a move's drag (the destination is
        pinned there) or the camera drag; a left press that barely moved is a click."""
        if self._drag is None or (self._drag[0] != button and not (self._drag[0] == "move" and button == "mouse1")):
            return
        kind, start = self._drag[0], self._drag[1]
        self._drag = None
        now = self._px(ndc)
        if kind == "move":
            if math.dist(start, now) <= CLICK_PX:
                self.move.cancel()  # a plain click on the selected model
                self._show_move()
                return
            p = self.table_point(ndc)
            if p is not None:
                self.move.pin(p)
            self._show_move()
            return
        if button == "mouse1" and math.dist(start, now) <= CLICK_PX:
            self._click(ndc)

    def click(self, ndc: Ndc) -> None:
        """A left click at ``ndc`` (a press and a release at the same place)."""
        self.press("mouse1", ndc)
        self.release("mouse1", ndc)

    def drag(self, a: Ndc, b: Ndc, button: str = "mouse1", steps: int = 4) -> None:
        """Press ``button`` at ``a``, move to ``b`` in ``steps`` steps, release there."""
        self.press(button, a)
        for k in range(1, steps + 1):
            f = k / steps
            self.pointer((a[0] + (b[0] - a[0]) * f, a[1] + (b[1] - a[1]) * f))
        self.release(button, b)

    def mouse_ray(self, ndc: Ndc):
        """The ray under ``ndc`` in table coordinates: ``(origin, direction)``."""
        from .play.shell import mouse_ray

        return mouse_ray(self.base, ndc)

    def ndc_of(self, point) -> Ndc | None:
        """Where the table point ``(x, y[, z])`` (inches) shows, in NDC; None when it is
        behind the camera (tests aim the mouse with it)."""
        from panda3d.core import Point2, Point3

        z = float(point[2]) if len(point) > 2 else 0.0
        p = self.base.cam.get_relative_point(self.base.render, Point3(float(point[0]), float(point[1]), z))
        out = Point2()
        if not self.cam_lens.project(p, out):
            return None
        return (out.x, out.y)

    def table_point(self, ndc: Ndc):
        """Where the ray under ``ndc`` meets the drawn ground, ``(x, y)`` inches, or None."""
        origin, direction = self.mouse_ray(ndc)
        p = ray_plane(origin, direction, 0.0)
        if p is None:
            return None
        z = style.ground_height(self.table, *p)
        if z > 0:  # raised ground: meet its surface (one refinement is plenty)
            p = ray_plane(origin, direction, z) or p
        return p

    def _click(self, ndc: Ndc) -> None:
        if self._move_mode and self.move.active:
            p = self.table_point(ndc)
            if p is not None:
                self.move.pin(p)
                self._show_move()
            return
        hit = pick(self.table, *self.mouse_ray(ndc))
        if self._tape_on:
            if hit is None:
                return
            if len(self._tape_ends) >= 2:
                self._tape_ends = []
            self._tape_ends.append(hit)
            self._show_tape()
            return
        self.select(hit if isinstance(hit, str) else None)

    # ---------------------------------------------------------------- camera
    def reset_camera(self) -> None:
        """The oblique view of the whole table from player 1's side."""
        w, h = self.base.win.get_x_size(), self.base.win.get_y_size()
        setup = setup_camera(self.table, "oblique", w, h, legend=self._legend_on)
        self.cam_lens.set_fov(setup.lens.get_fov())
        # the same shift of the image (in NDC) as the offscreen framing: the table is
        # centred in the part of the window the legend leaves free
        src_film, src_off = setup.lens.get_film_size(), setup.lens.get_film_offset()
        film = self.cam_lens.get_film_size()
        self.cam_lens.set_film_offset(src_off[0] / src_film[0] * film[0], src_off[1] / src_film[1] * film[1])
        self.target = Vec3(self.table.width / 2, self.table.depth / 2, 0)
        self.heading, self.pitch = 0.0, -OBLIQUE_PITCH
        self.distance = (Vec3(*setup.pos) - self.target).length() * 1.08
        self._place_camera()

    def _place_camera(self) -> None:
        camera = self.base.camera
        self.pitch = max(-89.5, min(-5.0, self.pitch))
        camera.set_pos(self.target)
        camera.set_hpr(self.heading, self.pitch, 0)
        camera.set_pos(camera, 0, -self.distance, 0)
        self.scene.set_camera_pitch(self.pitch)

    def zoom(self, factor: float) -> None:
        """Move the camera ``factor`` times its distance to the target."""
        self.distance = max(3.0, min(300.0, self.distance * factor))
        self._place_camera()

    # --------------------------------------------------------------- actions
    def select(self, model_id: str | None) -> None:
        """Select ``model_id`` (None clears) and redraw its overlays and the legend (a
        special move not committed is cancelled; a committed one stays drawn).

        Raises:
            KeyError: no such model.
        """
        self._drop_pending_special()
        self.move.cancel()
        self.scene.set_move_preview(None)
        self.scene.select(model_id)
        if self._move_mode and model_id is not None:
            self.move.begin(model_id)
        self._refresh_legend()
        self._update_status()
        self._start_precompute(model_id)

    def _start_precompute(self, model_id: str | None) -> None:
        """Compute ``model_id``'s Walk region, Run region and charge lanes in the idle
        frames after its selection (one a frame, into the per-position cache of
        ``sim.rules.planning``), so that ``w``, ``r``, ``c`` only draw them."""
        self.base.task_mgr.remove(self._tasks[2])
        if model_id is None:
            self._precompute = []
            return
        from . import drag

        table = self.table
        self._precompute = [(fn, table, model_id) for fn in (drag.walk_region, drag.run_region, drag.charge_lanes)]
        self.base.task_mgr.add(self._precompute_task, self._tasks[2])

    def _precompute_task(self, task):
        if not self._precompute:
            return task.done
        fn, table, model_id = self._precompute.pop(0)
        if table is self.table:
            try:
                fn(table, model_id)
            except ValueError:  # MoveError: a model without a Move value
                self._precompute = []
        return task.cont if self._precompute else task.done

    def _refresh_legend(self, force: bool = True) -> None:
        """Rebuild the legend for what is shown (``force`` False: only if that changed)."""
        if force:
            self._legend_key = None
        self._window_event(self.base.win)

    # ------------------------------------------------------------------ moves
    def toggle_overlay(self, name: str) -> None:
        """Show or hide one movement overlay (``walk``, ``run``, ``charges``) of the
        selected model."""
        self._overlays[name] = not self._overlays[name]
        self.scene.set_movement_overlays(**self._overlays)
        self._refresh_legend()
        self._update_status()

    def toggle_move_mode(self) -> None:
        """Move mode: the ghost base follows the cursor; a click fixes the destination,
        ``enter`` commits it."""
        self._move_mode = not self._move_mode
        self._drop_pending_special()
        self.move.cancel()
        if self._move_mode and self.scene.selected is not None:
            self.move.begin(self.scene.selected)
        self._show_move()

    def set_move_kind(self, kind: str) -> None:
        """Make the move being set up (and the next ones) a Walk, a Run or a Charge
        (keys ``1``, ``2``, ``3``); the destination is judged again."""
        self.move.set_kind(kind)
        self._show_move()

    def turn(self, degrees: float) -> None:
        """Turn the facing the Walk being set up ends with by ``degrees`` (counter-
        clockwise; keys ``q`` / ``e``); with no move set up, the selected model turns
        where it stands (a Walk of 0": a change of facing is movement, Move p.22). A Run
        or a Charge cannot be turned: the status line says why."""
        if not self.move.active:
            if self.scene.selected is None:
                self._update_status("q/e: select a model first (it turns)")
                return
            self._drop_pending_special()
            self.move.begin(self.scene.selected)
        in_place = self.move.dest is None
        self.move.turn(degrees)
        if self.move.note:
            self._show_move()
            self._update_status(f"not turned: {self.move.note}")
            return
        if in_place:
            self.move.pinned = True  # the cursor does not take a turn in place elsewhere
        self._show_move()

    def toggle_sandbox(self) -> None:
        """``b``: play special moves between any two models (the sandbox, for teaching),
        or only those the rules allow (enemies in base contact)."""
        self.special.sandbox = not self.special.sandbox
        self._update_status("sandbox on: s plays any pair (marked in the status line)" if self.special.sandbox
                            else "sandbox off: s plays only what the rules allow (enemies in base contact)")

    def _show_move(self) -> None:
        mv = self.move
        if mv.active and mv.dest is not None:
            self.scene.set_move_preview(mv.model_id, mv.end, mv.path, mv.legal, mv.text.split(" — ")[0],
                                        facing=mv.end_facing)
        else:
            self.scene.set_move_preview(None)
        self._refresh_legend(force=False)
        self._update_status()

    def commit_move(self) -> None:
        """Move the model to the judged destination if the move is legal: the table is
        replaced by one with the model moved (and turned) and the scene rebuilt."""
        mv = self.move
        if not mv.active or mv.dest is None:
            return
        if not mv.legal:
            self._update_status(f"not moved: {mv.detail}")
            return
        model_id, kind = mv.model_id, mv.kind
        table = mv.commit()
        self.set_table(table)
        if self._move_mode:
            self.move.begin(model_id)
        m = table.model(model_id)
        self._update_status(f"{kind}: moved {model_id} to ({m.position[0]:.2f}, {m.position[1]:.2f}), "
                            f"facing {m.facing:.0f}°")

    def set_table(self, table) -> None:
        """Show ``table`` instead (the selection, overlays, move kind and camera are
        kept; a special move shown is dropped unless ``table`` is the one it was
        committed to)."""
        selected = self.scene.selected if self.scene.selected in {m.id for m in table.models} else None
        if self.special.table is not table:
            self._stop_special_animation()
            self.special.cancel()
            self.special.table = table
        self.table = table
        self.move = DragState(table, kind=self.move.kind)
        self.scene.root.remove_node()
        self.scene = TableScene(table, selected, software=self.software)
        self.scene.set_movement_overlays(**self._overlays)
        self.scene.root.reparent_to(self.base.render)
        self.scene.set_camera_pitch(self.pitch)
        if self.special.active:
            self.scene.show_special(self.special.result, 1.0)
        if self._tape_on:
            self._tape_ends = []
        self._refresh_legend()
        self._start_precompute(selected)

    def cancel_move(self) -> bool:
        """Forget the move being set up (and leave move mode); False if there was none."""
        if not (self.move.active or self._move_mode):
            return False
        self._move_mode = False
        if self._moving():
            self._drag = None
        self.move.cancel()
        self._show_move()
        return True

    def escape(self) -> None:
        """Cancel the special move shown (or only its drawing once committed) or the
        move being set up; quit when there is none."""
        if self.special.active:
            self.dismiss_special()
        elif not self.cancel_move():
            self.quit()

    def commit(self) -> None:
        """``enter``: commit the special move shown, else the move set up."""
        if self.special.pending:
            self.commit_special()
        else:
            self.commit_move()

    # ----------------------------------------------------------- special moves
    def cycle_special(self, step: int = 1) -> None:
        """Play the next special move (``step`` -1: the previous one) of
        :data:`sim.rules.special.MOVES` of the selected model against the nearest enemy
        (in base contact if any): only when the rules allow the pair (enemies in base
        contact), or any pair in the sandbox (``b``). A :data:`SPECIAL_SECONDS`
        animation, then its swept paths stay drawn until ``x``; ``enter`` commits it,
        ``escape`` cancels it."""
        sel = self.scene.selected
        if sel is None:
            self._update_status("s: select a model first (it makes the special move)")
            return
        self._stop_special_animation()
        if self.special.active:
            self.scene.clear_special()
        self.cancel_move()
        result = self.special.cycle(sel, step)
        if result is None:
            self._refresh_legend()
            self._update_status(self.special.error)
            return
        if self.special_seconds <= 0:
            self.scene.show_special(result, 1.0)
        else:
            self.scene.show_special(result, 0.0)
            self._special_start = ClockObject.get_global_clock().get_frame_time()
            self.base.task_mgr.add(self._special_task, self._tasks[1])
        self._refresh_legend()
        self._update_status()

    def _special_task(self, task):
        result = self.special.result
        if result is None or self._special_start is None:
            return task.done
        t = (ClockObject.get_global_clock().get_frame_time() - self._special_start) / self.special_seconds
        self.scene.show_special(result, min(1.0, t))
        if t >= 1.0:
            self._special_start = None
            return task.done
        return task.cont

    def _stop_special_animation(self) -> None:
        self.base.task_mgr.remove(self._tasks[1])
        self._special_start = None

    def commit_special(self) -> None:
        """Apply the special move shown: its models move (the newly Prone ones become
        Prone) in the in-memory table; the swept paths stay drawn until ``x``."""
        if not self.special.pending:
            return
        self._stop_special_animation()
        self.set_table(self.special.commit())  # the scene is rebuilt and the move drawn again
        self._update_status()

    def dismiss_special(self) -> None:
        """Remove the special move's drawing; one not committed is cancelled (the models
        go back)."""
        if not self.special.active:
            return
        self._stop_special_animation()
        self.scene.clear_special()
        self.special.cancel()
        self._refresh_legend()
        self._update_status()

    def _drop_pending_special(self) -> None:
        if self.special.pending:
            self.dismiss_special()

    def toggle_tape(self) -> None:
        """Switch the tape measure on or off (off clears it)."""
        self._tape_on = not self._tape_on
        self._tape_ends = []
        self.scene.set_tape(None, None, None)
        self._update_status()

    def _show_tape(self) -> None:
        ends = self._tape_ends
        xy = [self.table.model(e).position if isinstance(e, str) else e for e in ends]
        if len(ends) == 1:
            self.scene.set_tape(xy[0], None, None)
            self._update_status(f"tape: from {ends[0] if isinstance(ends[0], str) else 'point'}, click the other end")
            return
        reading = tape(self.table, ends[0], ends[1])
        self.scene.set_tape(reading.a, reading.b, f'{reading.distance:.2f}"')
        self._update_status("tape: " + reading.text)

    def toggle_legend(self) -> None:
        """Show or hide the legend panel."""
        self._legend_on = not self._legend_on
        if self.legend is not None:
            (self.legend.show if self._legend_on else self.legend.hide)()

    @property
    def legend_shown(self) -> bool:
        """The legend panel is built and shown."""
        return self.legend is not None and self._legend_on and not self.legend.is_hidden()

    def _update_status(self, extra: str | None = None) -> None:
        parts = [f"selected: {self.scene.selected}" if self.scene.selected else "click a model to select it"]
        shown = [n for n, on in self._overlays.items() if on]
        if shown:
            parts.append("showing: " + ", ".join(shown))
        if self.special.sandbox:
            parts.append("[sandbox]")
        colour = NEUTRAL
        mv = self.move
        if self.special.active and not extra:
            text = describe_special(self.special.result)
            if self.special.committed:
                text += "   (committed; x: clear the paths)"
            else:
                text += "   (enter: commit, esc: cancel, x: dismiss, s: next move)"
                text += sandbox_note(self.special.table, self.special.result)
            parts.append(text)
        elif self._tape_on:
            parts.append(extra or "tape: click two points or models")
        elif extra:
            parts.append(extra)
            if mv.active and not mv.legal:
                colour = (*style.WARNING, 1)
        elif mv.active and mv.detail:
            parts.append(mv.detail + ("   (enter: move, esc: cancel)" if mv.pinned else ""))
            colour = (*style.MOVE_OK, 1) if mv.legal else (*style.WARNING, 1)
        elif self._move_mode:
            parts.append(f"move mode ({mv.kind}; 1/2/3: walk/run/charge): click where to move, enter: move, "
                         "esc: leave")
        elif self.scene.selected and mv.kind != "walk":
            parts.append(f"drag the model: {mv.kind} (1: walk)")
        self.status = "   ".join(parts)
        self.status_colour = colour
        self._status.set_text(self.status)
        self._status.set_text_color(*colour)

    def _window_event(self, win) -> None:
        if win is not self.base.win:
            return
        size = (win.get_x_size(), win.get_y_size())
        if min(size) <= 0:
            return
        mv = self.move
        key = (size, self.scene.selected, self.scene.movement, frozenset(self.scene.movement_empty),
               self.special.move if self.special.active else None,
               mv.legal if mv.active and mv.dest is not None else None)
        if key == self._legend_key and self.legend is not None:
            return
        self._legend_key = key
        if self.legend is not None:
            self.legend.remove_node()
        self.legend = build_legend(self.table, size[0], size[1], self.scene.selected,
                                   overlays=self.scene.movement if self.scene.selected else (),
                                   move=key[-1], empty=self.scene.movement_empty,
                                   special=key[-2])
        self.legend.reparent_to(self.base.pixel2d)
        if not self._legend_on:
            self.legend.hide()

    def quit(self) -> None:
        """Ask to leave: ``quit_requested`` is set and ``on_quit`` called."""
        self.quit_requested = True
        if self.on_quit is not None:
            self.on_quit()


class TableApp:
    """The onscreen measuring window (``run_interactive``): the process's ShowBase
    (:func:`sim.view.play.shell.get_base`, onscreen) with a :class:`TableView`.
    ``run()`` returns when the window is closed or ``escape`` is hit.

    Raises:
        RuntimeError: no window could be opened.
    """

    def __init__(self, table, selected: str | None = None, size=(1280, 960)):
        from .play.shell import get_base

        self.base = get_base(offscreen=False, size=tuple(size), title=f"Bushido table: {table.name}")
        self.view = TableView(self.base, table, selected, on_quit=self.quit)

    def run(self) -> None:
        """Run the window's event loop until :meth:`quit`."""
        self.base.run()

    def quit(self) -> None:
        """Leave :meth:`run`."""
        self.base.task_mgr.stop()

    def close(self) -> None:
        """Remove the view and free the ShowBase."""
        try:
            self.view.destroy()
            self.base.destroy()
        except Exception:  # pragma: no cover - best effort on shutdown
            pass
