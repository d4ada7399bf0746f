"""The game window's camera on the table: a part of the window (a display region), the
oblique framing of :func:`sim.view.camera.setup_camera`, orbit, pan and zoom, and the
mapping between window points and table points.

The window keeps its side panels beside the table, not over it: the 3D camera draws
only in the rectangle ``region`` = (left, right, bottom, top) of the window (fractions
0..1). Window points are given in NDC (x, y in -1..1, y up) of the whole window, as
Panda3D's mouse watcher gives them; table points in inches.
"""

from __future__ import annotations

import math

import numpy as np
from panda3d.core import PerspectiveLens, Point2, Point3, Vec3

from ..camera import MARGIN, OBLIQUE_VFOV, CameraSetup, content_points, setup_camera
from ..interact import pick, ray_plane

#: Downward tilt of the window's camera, degrees (steeper than the measuring view's
#: oblique camera: the table fills more of the window between the panels).
PITCH = 60.0


class TableCamera:
    """The camera of ``base`` looking at ``table`` in the window rectangle ``region``.

    Args:
        base: the ShowBase (:func:`sim.view.play.shell.get_base`).
        table: the :class:`~sim.table.Table` framed (its size; models for picking).
        region: (left, right, bottom, top) of the window, fractions 0..1.

    :meth:`destroy` gives the whole window back to the camera.
    """

    def __init__(self, base, table, region=(0.0, 1.0, 0.0, 1.0)):
        self.base = base
        self.table = table
        self.region = tuple(region)
        self.target = Vec3(table.width / 2, table.depth / 2, 0)
        self.heading, self.pitch, self.distance = 0.0, -PITCH, 60.0
        self._dr = base.camNode.get_display_region(0)
        self._dr.set_dimensions(*self.region)
        base.camLens.set_near_far(1.0, 1000.0)
        self.reset()

    # ----------------------------------------------------------- geometry
    def region_px(self) -> tuple[int, int]:
        """(width, height) pixels of the camera's rectangle."""
        l, r, b, t = self.region
        w, h = self.base.win.get_x_size(), self.base.win.get_y_size()
        return max(1, int(round((r - l) * w))), max(1, int(round((t - b) * h)))

    def set_region(self, region) -> None:
        """Draw the table in the window rectangle ``region`` (fractions) from now on."""
        self.region = tuple(region)
        self._dr.set_dimensions(*self.region)
        self.fit_lens()

    def fit_lens(self) -> None:
        """Keep the lens's aspect ratio that of the rectangle (after a window resize)."""
        w, h = self.region_px()
        lens = self.base.camLens
        if abs(lens.get_aspect_ratio() - w / h) > 1e-4:
            lens.set_aspect_ratio(w / h)

    def reset(self) -> None:
        """The oblique view of the whole table from player 1's side, looking down at
        :data:`PITCH` degrees, as close as the rectangle allows (every terrain piece and
        model label in frame; the lens of :func:`sim.view.camera.setup_camera`)."""
        w, h = self.region_px()
        setup = setup_camera(self.table, "oblique", w, h, legend=False)
        lens = self.base.camLens
        lens.set_fov(setup.lens.get_fov())
        lens.set_film_offset(0, 0)
        self.target = Vec3(self.table.width / 2, self.table.depth / 2, 0)
        self.heading, self.pitch = 0.0, -PITCH
        pts = content_points(self.table)
        fit = PerspectiveLens()
        fit.set_fov(setup.lens.get_fov())
        fit.set_near_far(1.0, 1000.0)
        fwd = Vec3(0, math.cos(math.radians(self.pitch)), math.sin(math.radians(self.pitch)))

        def frame(d):
            pos = self.target - fwd * d
            px = CameraSetup(fit, (pos.x, pos.y, pos.z), (0.0, self.pitch, 0.0)).project(pts, w, h)
            return px

        lo, hi = 1.0, 1000.0
        for _ in range(32):
            mid = (lo + hi) / 2
            px = frame(mid)
            ok = (not np.isnan(px).any() and px[:, 0].max() - px[:, 0].min() <= (1 - 2 * MARGIN) * w
                  and px[:, 1].max() - px[:, 1].min() <= (1 - 2 * MARGIN) * h)
            lo, hi = (lo, mid) if ok else (mid, hi)
        px = frame(hi)
        # centre the content: a film offset of +o moves the image by -o / (film / 2) in NDC
        cx = (px[:, 0].max() + px[:, 0].min()) / w - 1
        cy = 1 - (px[:, 1].max() + px[:, 1].min()) / h
        film = lens.get_film_size()
        lens.set_film_offset(cx * film[0] / 2, cy * film[1] / 2)
        self.distance = hi
        self.place()

    def place(self) -> None:
        """Put the camera where target/heading/pitch/distance say."""
        self.pitch = max(-89.5, min(-5.0, self.pitch))
        cam = self.base.camera
        cam.set_pos(self.target)
        cam.set_hpr(self.heading, self.pitch, 0)
        cam.set_pos(cam, 0, -self.distance, 0)

    def orbit(self, dx: float, dy: float) -> None:
        """Turn round the target by a mouse move of (dx, dy) window NDC units."""
        self.heading -= dx * 120
        self.pitch += dy * 80
        self.place()

    def pan(self, dx: float, dy: float) -> None:
        """Slide the target by a mouse move of (dx, dy) window NDC units."""
        scale = self.distance * math.tan(math.radians(OBLIQUE_VFOV / 2))
        render, cam = self.base.render, self.base.camera
        right = render.get_relative_vector(cam, Vec3(1, 0, 0))
        fwd = render.get_relative_vector(cam, Vec3(0, 1, 0))
        right.z = fwd.z = 0
        if right.length() > 1e-9:
            right.normalize()
        if fwd.length() > 1e-9:
            fwd.normalize()
        self.target -= right * dx * scale * self.base.camLens.get_aspect_ratio() + fwd * dy * scale
        self.place()

    def zoom(self, factor: float) -> None:
        """Move the camera ``factor`` times its distance to the target."""
        self.distance = max(3.0, min(300.0, self.distance * factor))
        self.place()

    # ------------------------------------------------------------ mapping
    def inside(self, ndc) -> bool:
        """Whether the window point ``ndc`` lies on the camera's rectangle."""
        l, r, b, t = self.region
        fx, fy = (ndc[0] + 1) / 2, (ndc[1] + 1) / 2
        return l <= fx <= r and b <= fy <= t

    def _region_ndc(self, ndc) -> tuple[float, float]:
        l, r, b, t = self.region
        fx, fy = (ndc[0] + 1) / 2, (ndc[1] + 1) / 2
        return ((fx - l) / (r - l) * 2 - 1, (fy - b) / (t - b) * 2 - 1)

    def ray(self, ndc):
        """The ray under the window point ``ndc``: ``(origin, direction)`` 3-tuples in
        table coordinates (inches)."""
        near, far = Point3(), Point3()
        self.base.camLens.extrude(Point2(*self._region_ndc(ndc)), near, far)
        render, cam = self.base.render, self.base.cam
        a = render.get_relative_point(cam, near)
        b = render.get_relative_point(cam, far)
        return (a.x, a.y, a.z), (b.x - a.x, b.y - a.y, b.z - a.z)

    def pick(self, ndc, table=None):
        """What the window point ``ndc`` shows: a model id, a table point ``(x, y)``, or
        None (off the table or off the camera's rectangle)."""
        if not self.inside(ndc):
            return None
        return pick(table or self.table, *self.ray(ndc))

    def table_point(self, ndc, ground=None) -> tuple[float, float] | None:
        """Where the ray under ``ndc`` meets the ground (``ground(xy) -> height``, or the
        table top), ``(x, y)`` inches; None off the camera's rectangle."""
        if not self.inside(ndc):
            return None
        origin, direction = self.ray(ndc)
        p = ray_plane(origin, direction, 0.0)
        if p is None:
            return None
        if ground is not None:
            z = ground(p)
            if z > 0:
                p = ray_plane(origin, direction, z) or p
        return p

    def to_ndc(self, point) -> tuple[float, float] | None:
        """The window NDC of the table point ``point`` ((x, y) or (x, y, z) inches), or
        None behind the camera."""
        x, y = float(point[0]), float(point[1])
        z = float(point[2]) if len(point) > 2 else 0.0
        q = self.base.cam.get_relative_point(self.base.render, Point3(x, y, z))
        if q[1] <= 0:
            return None
        p2 = Point2()
        self.base.camLens.project(q, p2)
        l, r, b, t = self.region
        fx = l + (p2[0] + 1) / 2 * (r - l)
        fy = b + (p2[1] + 1) / 2 * (t - b)
        return (fx * 2 - 1, fy * 2 - 1)

    def to_pixels(self, point) -> tuple[float, float] | None:
        """Window pixel (column, row from the top) of a table point, or None."""
        n = self.to_ndc(point)
        if n is None:
            return None
        w, h = self.base.win.get_x_size(), self.base.win.get_y_size()
        return ((n[0] + 1) / 2 * w, (1 - n[1]) / 2 * h)

    def set_visible(self, on: bool) -> None:
        """Draw the table (True) or nothing (False: the hand-over screen)."""
        self._dr.set_active(on)

    def destroy(self) -> None:
        """Give the whole window back to the camera."""
        self._dr.set_dimensions(0, 1, 0, 1)
        self._dr.set_active(True)
        w, h = self.base.win.get_x_size(), self.base.win.get_y_size()
        self.base.camLens.set_aspect_ratio(w / max(1, h))
        self.base.camLens.set_film_offset(0, 0)
