"""The interactive window: a thin ShowBase shell over :class:`~sim.view.scene3d.TableScene`.

Controls: left-drag orbit, right- or middle-drag pan, mouse wheel zoom, click a model to
select it (click the table to clear); press on the selected model's base and drag to
move it (or ``m``: move mode, then click destinations), ``enter`` commits the move,
``escape`` cancels it (and quits when nothing is being moved); ``w``, ``r``, ``c``
toggle the walk region, run region and charge lanes; ``s`` (``shift-s``: backwards)
plays the next special move of the selected model against the nearest enemy as a short
animation and leaves its swept paths drawn: ``enter`` commits it, ``escape`` cancels
it, ``x`` dismisses the drawing; ``t`` toggles the tape measure (click two points or
models), ``l`` the legend, ``v`` resets the camera.

What a move shows and whether it is legal is decided in :mod:`sim.view.drag`, and what a
special move shows in :mod:`sim.view.specials` (no Panda3D); this module only turns the
mouse into table points and plays the animation.
"""

from __future__ import annotations

import math

from direct.showbase.ShowBase import ShowBase
from panda3d.core import ClockObject, Point2, Point3, TextNode, Vec3, load_prc_file_data

from . import style
from .camera import OBLIQUE_PITCH, OBLIQUE_VFOV, setup_camera
from .drag import DragState
from .interact import pick, ray_plane, tape
from .scene3d import TableScene, build_legend
from .specials import SpecialState, describe_special, sandbox_note

HELP = ("left-drag orbit | right/middle-drag pan | wheel zoom | click a model: select | "
        "drag selected model (or m: move mode) then enter: move, esc: cancel | "
        "w/r/c: walk/run/charge | s/shift-s: special moves, x: dismiss | t: tape | l: legend | v: camera | "
        "esc: quit")
#: A press that moves less than this many pixels is a click, not a drag.
CLICK_PX = 4
#: Length of a special move's animation, seconds.
SPECIAL_SECONDS = 1.5


class TableApp(ShowBase):
    """A window on one table. ``run()`` returns when it is closed or ``escape`` is hit."""

    def __init__(self, table, selected: str | None = None, size=(1280, 960)):
        load_prc_file_data("bushido-window", f"win-size {size[0]} {size[1]}\nwindow-title Bushido table: {table.name}\n"
                           "audio-library-name null\nframebuffer-multisample 1\nmultisamples 4\n")
        super().__init__()
        if self.win is None:
            raise RuntimeError("could not open a window")
        self.table = table
        self.disable_mouse()
        self.set_background_color(*style.BACKGROUND, 1)
        self._software = "Tiny" in self.pipe.get_type().get_name()
        self.scene = TableScene(table, selected, software=self._software)
        self.scene.root.reparent_to(self.render)
        self.move = DragState(table)
        self.special = SpecialState(table)
        self._special_start: float | None = None
        self._move_mode = False
        self._overlays = {"walk": False, "run": False, "charges": False}
        self.cam_lens = self.camLens
        self.cam_lens.set_near_far(1.0, 1000.0)
        self._legend = None
        self._legend_on = True
        self._size = (0, 0)
        self._status = TextNode("status")
        self._status.set_text_color(1, 1, 0.6, 1)
        self._status.set_card_color(0, 0, 0, 0.6)
        self._status.set_card_as_margin(0.3, 0.3, 0.2, 0.2)
        self._status_np = self.a2dTopLeft.attach_new_node(self._status)
        self._status.set_wordwrap(44)
        self._status_np.set_scale(0.045)
        self._status_np.set_pos(0.04, 0, -0.08)
        help_tn = TextNode("help")
        help_tn.set_text(HELP)
        help_tn.set_text_color(0.85, 0.85, 0.85, 1)
        help_np = self.a2dBottomLeft.attach_new_node(help_tn)
        help_tn.set_wordwrap(52)
        help_np.set_scale(0.032)
        help_np.set_pos(0.04, 0, 0.075)
        self._drag = None  # (button, start mouse (x, y) pixels, last (x, y) NDC)
        self._tape_on = False
        self._tape_ends: list = []
        self.reset_camera()
        self.win.set_close_request_event("bushido-window-close")
        self.accept("bushido-window-close", self.quit)
        self.accept("escape", self.escape)
        self.accept("t", self.toggle_tape)
        self.accept("l", self.toggle_legend)
        self.accept("v", self.reset_camera)
        self.accept("home", self.reset_camera)
        self.accept("w", self.toggle_overlay, ["walk"])
        self.accept("r", self.toggle_overlay, ["run"])
        self.accept("c", self.toggle_overlay, ["charges"])
        self.accept("m", self.toggle_move_mode)
        self.accept("enter", self.commit)
        self.accept("s", self.cycle_special, [1])
        self.accept("shift-s", self.cycle_special, [-1])
        self.accept("x", self.dismiss_special)
        for button in ("mouse1", "mouse2", "mouse3"):
            self.accept(button, self._press, [button])
            self.accept(button + "-up", self._release, [button])
        self.accept("wheel_up", self.zoom, [0.9])
        self.accept("wheel_down", self.zoom, [1 / 0.9])
        self.task_mgr.add(self._drag_task, "bushido-drag")
        self._update_status()

    # ---------------------------------------------------------------- camera
    def reset_camera(self) -> None:
        """The oblique view of the whole table from player 1's side."""
        w, h = self.win.get_x_size(), self.win.get_y_size()
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
        self.pitch = max(-89.5, min(-5.0, self.pitch))
        self.camera.set_pos(self.target)
        self.camera.set_hpr(self.heading, self.pitch, 0)
        self.camera.set_pos(self.camera, 0, -self.distance, 0)
        self.scene.set_camera_pitch(self.pitch)

    def zoom(self, factor: float) -> None:
        """Move the camera ``factor`` times its distance to the target."""
        self.distance = max(3.0, min(300.0, self.distance * factor))
        self._place_camera()

    def _drag_task(self, task):
        if not self.mouseWatcherNode.has_mouse():
            return task.cont
        if self.move.active and not self.move.pinned and (self._move_mode or self._moving()):
            p = self._table_point()
            if p is not None and self.move.hover(p):
                self._show_move()
        if self._drag is None or self._moving():
            return task.cont
        button, start, last = self._drag
        m = self.mouseWatcherNode.get_mouse()
        dx, dy = m.x - last[0], m.y - last[1]
        self._drag = (button, start, (m.x, m.y))
        if dx == 0 and dy == 0:
            return task.cont
        if button == "mouse1":
            self.heading -= dx * 120
            self.pitch += dy * 80
        else:
            scale = self.distance * math.tan(math.radians(OBLIQUE_VFOV / 2))
            right = self.render.get_relative_vector(self.camera, Vec3(1, 0, 0))
            fwd = self.render.get_relative_vector(self.camera, Vec3(0, 1, 0))
            right.z = fwd.z = 0
            right.normalize()
            fwd.normalize()
            self.target -= right * dx * scale * self.cam_lens.get_aspect_ratio() + fwd * dy * scale
        self._place_camera()
        return task.cont

    # ----------------------------------------------------------------- mouse
    def _mouse_px(self):
        m = self.mouseWatcherNode.get_mouse()
        return ((m.x + 1) / 2 * self.win.get_x_size(), (1 - m.y) / 2 * self.win.get_y_size())

    def _press(self, button: str) -> None:
        if not self.mouseWatcherNode.has_mouse():
            return
        m = self.mouseWatcherNode.get_mouse()
        kind = button
        sel = self.scene.selected
        if (button == "mouse1" and sel is not None and not self._tape_on and not self._move_mode
                and pick(self.table, *self._mouse_ray()) == sel):
            # a press on the selected model's base: drag it (a move), not the camera
            kind = "move"
            self._drop_pending_special()
            self.move.begin(sel)
        self._drag = (kind, self._mouse_px(), (m.x, m.y))

    def _moving(self) -> bool:
        """A press-and-drag of the selected model is in progress."""
        return self._drag is not None and self._drag[0] == "move"

    def _release(self, button: str) -> None:
        if self._drag is None or (self._drag[0] != button and not (self._drag[0] == "move" and button == "mouse1")):
            return
        kind, start = self._drag[0], self._drag[1]
        self._drag = None
        if not self.mouseWatcherNode.has_mouse():
            return
        now = self._mouse_px()
        if kind == "move":
            if math.dist(start, now) <= CLICK_PX:
                self.move.cancel()  # a plain click on the selected model
                self._show_move()
                return
            p = self._table_point()
            if p is not None:
                self.move.pin(p)
            self._show_move()
            return
        if button != "mouse1":
            return
        if math.dist(start, now) <= CLICK_PX:
            self._click()

    def _mouse_ray(self):
        near, far = Point3(), Point3()
        self.cam_lens.extrude(Point2(self.mouseWatcherNode.get_mouse()), near, far)
        a = self.render.get_relative_point(self.cam, near)
        b = self.render.get_relative_point(self.cam, far)
        return (a.x, a.y, a.z), (b.x - a.x, b.y - a.y, b.z - a.z)

    def _table_point(self):
        """Where the mouse ray meets the drawn ground, ``(x, y)`` inches, or None."""
        origin, direction = self._mouse_ray()
        p = ray_plane(origin, direction, 0.0)
        if p is None:
            return None
        z = style.ground_height(self.table, *p)
        if z > 0:  # raised ground: meet its surface (one refinement is plenty)
            p = ray_plane(origin, direction, z) or p
        return p

    def _click(self) -> None:
        if self._move_mode and self.move.active:
            p = self._table_point()
            if p is not None:
                self.move.pin(p)
                self._show_move()
            return
        hit = pick(self.table, *self._mouse_ray())
        if self._tape_on:
            if hit is None:
                return
            if len(self._tape_ends) >= 2:
                self._tape_ends = []
            self._tape_ends.append(hit)
            self._show_tape()
            return
        self.select(hit if isinstance(hit, str) else None)

    # --------------------------------------------------------------- actions
    def select(self, model_id: str | None) -> None:
        """Select ``model_id`` (None clears) and redraw its overlays and the legend (a
        special move not committed is cancelled; a committed one stays drawn)."""
        self._drop_pending_special()
        self.move.cancel()
        self.scene.set_move_preview(None)
        self.scene.select(model_id)
        if self._move_mode and model_id is not None:
            self.move.begin(model_id)
        self._refresh_legend()
        self._update_status()

    def _refresh_legend(self) -> None:
        self._size = (0, 0)
        self._window_event(self.win)

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

    def _show_move(self) -> None:
        mv = self.move
        if mv.active and mv.dest is not None:
            self.scene.set_move_preview(mv.model_id, mv.dest, mv.path, mv.legal, mv.text.split(" — ")[0])
        else:
            self.scene.set_move_preview(None)
        self._update_status()

    def commit_move(self) -> None:
        """Move the model to the judged destination if the move is legal: the table is
        replaced by one with the model moved and the scene rebuilt."""
        mv = self.move
        if not mv.active or mv.dest is None:
            return
        if not mv.legal:
            self._update_status(f"not moved: {mv.text}")
            return
        model_id = mv.model_id
        table = mv.commit()
        self.set_table(table)
        if self._move_mode:
            self.move.begin(model_id)
        self._update_status(f"moved {model_id} to ({table.model(model_id).position[0]:.2f}, "
                            f"{table.model(model_id).position[1]:.2f})")

    def set_table(self, table) -> None:
        """Show ``table`` instead (the selection, overlays and camera are kept; a special
        move shown is dropped unless ``table`` is the one it was committed to)."""
        selected = self.scene.selected if self.scene.selected in {m.id for m in table.models} else None
        if self.special.table is not table:
            self._stop_special_animation()
            self.special.cancel()
            self.special.table = table
        self.table = table
        self.move = DragState(table)
        self.scene.root.remove_node()
        self.scene = TableScene(table, selected, software=self._software)
        self.scene.set_movement_overlays(**self._overlays)
        self.scene.root.reparent_to(self.render)
        self.scene.set_camera_pitch(self.pitch)
        if self.special.active:
            self.scene.show_special(self.special.result, 1.0)
        if self._tape_on:
            self._tape_ends = []
        self._refresh_legend()

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
        (in base contact if any): a :data:`SPECIAL_SECONDS` animation, then its swept
        paths stay drawn until ``x``; ``enter`` commits it, ``escape`` cancels it."""
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
        self.scene.show_special(result, 0.0)
        self._special_start = ClockObject.get_global_clock().get_frame_time()
        self.task_mgr.add(self._special_task, "bushido-special")
        self._refresh_legend()
        self._update_status()

    def _special_task(self, task):
        result = self.special.result
        if result is None or self._special_start is None:
            return task.done
        t = (ClockObject.get_global_clock().get_frame_time() - self._special_start) / SPECIAL_SECONDS
        self.scene.show_special(result, min(1.0, t))
        if t >= 1.0:
            self._special_start = None
            return task.done
        return task.cont

    def _stop_special_animation(self) -> None:
        self.task_mgr.remove("bushido-special")
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
        if self._legend is not None:
            (self._legend.show if self._legend_on else self._legend.hide)()

    def _update_status(self, extra: str | None = None) -> None:
        parts = [f"selected: {self.scene.selected}" if self.scene.selected else "click a model to select it"]
        shown = [n for n, on in self._overlays.items() if on]
        if shown:
            parts.append("showing: " + ", ".join(shown))
        colour = (1, 1, 0.6, 1)
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
            if self.move.active and not self.move.legal:
                colour = (*style.WARNING, 1)
        elif self.move.active and self.move.text:
            parts.append(self.move.text + ("   (enter: move, esc: cancel)" if self.move.pinned else ""))
            colour = (*style.MOVE_OK, 1) if self.move.legal else (*style.WARNING, 1)
        elif self._move_mode:
            parts.append("move mode: click where to move, enter: move, esc: leave")
        self._status.set_text("   ".join(parts))
        self._status.set_text_color(*colour)

    def windowEvent(self, win) -> None:  # noqa: N802 - ShowBase's name
        """ShowBase's resize handling, then the legend is redrawn for the new size."""
        super().windowEvent(win)
        self._window_event(win)

    def _window_event(self, win) -> None:
        if win is not self.win or not hasattr(self, "scene"):
            return
        size = (win.get_x_size(), win.get_y_size())
        if size == self._size or min(size) <= 0:
            return
        self._size = size
        if self._legend is not None:
            self._legend.remove_node()
        self._legend = build_legend(self.table, size[0], size[1], self.scene.selected,
                                    overlays=self.scene.movement if self.scene.selected else (),
                                    empty=self.scene.movement_empty,
                                    special=self.special.move if self.special.active else None)
        self._legend.reparent_to(self.pixel2d)
        if not self._legend_on:
            self._legend.hide()

    def quit(self) -> None:
        """Leave ``run()``."""
        self.task_mgr.stop()

    def close(self) -> None:
        """Close the window and free the ShowBase."""
        try:
            self.destroy()
        except Exception:  # pragma: no cover - best effort on shutdown
            pass
