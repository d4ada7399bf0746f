"""The interactive window: a thin ShowBase shell over :class:`~sim.view.scene3d.TableScene`.

Controls: left-drag orbit, right- or middle-drag pan, mouse wheel zoom, click a model to
select it (click the table to clear), ``t`` toggles the tape measure (click two points
or models), ``l`` toggles the legend, ``c`` resets the camera, ``escape`` quits.
"""

from __future__ import annotations

import math

from direct.showbase.ShowBase import ShowBase
from panda3d.core import Point2, Point3, TextNode, Vec3, load_prc_file_data

from . import style
from .camera import OBLIQUE_PITCH, OBLIQUE_VFOV, setup_camera
from .interact import pick, tape
from .scene3d import TableScene, build_legend

HELP = ("left-drag orbit | right/middle-drag pan | wheel zoom | click a model: select | "
        "t: tape | l: legend | c: camera | esc: quit")
#: A press that moves less than this many pixels is a click, not a drag.
CLICK_PX = 4


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
        software = "Tiny" in self.pipe.get_type().get_name()
        self.scene = TableScene(table, selected, software=software)
        self.scene.root.reparent_to(self.render)
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
        self._status_np.set_scale(0.045)
        self._status_np.set_pos(0.04, 0, -0.08)
        help_tn = TextNode("help")
        help_tn.set_text(HELP)
        help_tn.set_text_color(0.85, 0.85, 0.85, 1)
        help_np = self.a2dBottomLeft.attach_new_node(help_tn)
        help_np.set_scale(0.035)
        help_np.set_pos(0.04, 0, 0.04)
        self._drag = None  # (button, start mouse (x, y) pixels, last (x, y) NDC)
        self._tape_on = False
        self._tape_ends: list = []
        self.reset_camera()
        self.win.set_close_request_event("bushido-window-close")
        self.accept("bushido-window-close", self.quit)
        self.accept("escape", self.quit)
        self.accept("t", self.toggle_tape)
        self.accept("l", self.toggle_legend)
        self.accept("c", self.reset_camera)
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
        setup = setup_camera(self.table, "oblique", w, h, legend=False)
        self.cam_lens.set_fov(setup.lens.get_fov())
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
        if self._drag is None or not self.mouseWatcherNode.has_mouse():
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
        self._drag = (button, self._mouse_px(), (m.x, m.y))

    def _release(self, button: str) -> None:
        if self._drag is None or self._drag[0] != button:
            return
        start = self._drag[1]
        self._drag = None
        if button != "mouse1" or not self.mouseWatcherNode.has_mouse():
            return
        now = self._mouse_px()
        if math.dist(start, now) <= CLICK_PX:
            self._click()

    def _mouse_ray(self):
        near, far = Point3(), Point3()
        self.cam_lens.extrude(Point2(self.mouseWatcherNode.get_mouse()), near, far)
        a = self.render.get_relative_point(self.cam, near)
        b = self.render.get_relative_point(self.cam, far)
        return (a.x, a.y, a.z), (b.x - a.x, b.y - a.y, b.z - a.z)

    def _click(self) -> None:
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
        """Select ``model_id`` (None clears) and redraw its overlays and the legend."""
        self.scene.select(model_id)
        self._size = (0, 0)
        self._window_event(self.win)
        self._update_status()

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
        if self._tape_on:
            parts.append(extra or "tape: click two points or models")
        self._status.set_text("   ".join(parts))

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
        self._legend = build_legend(self.table, size[0], size[1], self.scene.selected)
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
