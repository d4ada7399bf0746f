"""Camera framing for the two fixed views and the projection used by pixel tests.

* ``oblique``: a 3/4 perspective view from player 1's side (south, y < 0), looking
  north and down at :data:`OBLIQUE_PITCH` degrees.
* ``top``: straight down, orthographic, north (+y) up on screen.

Both frame the whole table (and everything standing on it) in the part of the image
left of the legend panel.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from panda3d.core import Camera, Lens, NodePath, OrthographicLens, PerspectiveLens, Point2, Point3

from . import style

CAMERAS = ("oblique", "top")
#: Downward tilt of the oblique camera, degrees.
OBLIQUE_PITCH = 52.0
#: Vertical field of view of the oblique camera, degrees.
OBLIQUE_VFOV = 34.0
#: Empty border kept around the framed content, as a fraction of the half-image.
MARGIN = 0.04


def legend_width(width: int, height: int) -> int:
    """Width in pixels of the legend panel on the right of a ``width`` x ``height`` image."""
    return int(round(12.5 * font_px(height)))


def font_px(height: int) -> float:
    """Legend text height in pixels for an image ``height`` pixels tall."""
    return max(11.0, height * 0.019)


def content_points(table) -> np.ndarray:
    """Points (n, 3), inches, that must be in frame: table corners, the top corners of
    each terrain piece's bounding box, the label tops above the models."""
    pts = [(0, 0, 0), (table.width, 0, 0), (0, table.depth, 0), (table.width, table.depth, 0)]
    for t in table.terrain:
        x0, y0, x1, y1 = t.footprint.bounds
        h = style.terrain_draw_height(t)
        pts += [(x0, y0, h), (x1, y0, h), (x0, y1, h), (x1, y1, h)]
    for m in table.models:
        x, y = m.position
        pts.append((x, y, style.model_top(m, style.ground_height(table, x, y)) + m.radius + 0.8))
    return np.asarray(pts, float)


@dataclass
class CameraSetup:
    """A lens and a camera pose in table coordinates (inches, degrees)."""

    lens: Lens
    pos: tuple[float, float, float]
    hpr: tuple[float, float, float]

    def node(self, parent: NodePath, name: str = "camera") -> NodePath:
        """A new camera NodePath under ``parent`` with this lens and pose."""
        cam = Camera(name)
        cam.set_lens(self.lens)
        np_ = parent.attach_new_node(cam)
        np_.set_pos(*self.pos)
        np_.set_hpr(*self.hpr)
        return np_

    def project(self, points, width: int, height: int) -> np.ndarray:
        """Pixel coordinates (n, 2) (x right, y down, origin at the image's top-left
        corner) of table points (n, 3) inches; NaN for points behind the camera."""
        root = NodePath("project")
        cam = self.node(root)
        out = []
        for p in np.asarray(points, float).reshape(-1, 3):
            q = cam.get_relative_point(root, Point3(*p))
            p2 = Point2()
            if isinstance(self.lens, PerspectiveLens) and q[1] <= 0:
                out.append((math.nan, math.nan))
                continue
            self.lens.project(q, p2)
            out.append(((p2[0] + 1) / 2 * width, (1 - p2[1]) / 2 * height))
        root.remove_node()
        return np.asarray(out, float)


def _ndc(lens: Lens, pos, hpr, pts: np.ndarray) -> np.ndarray:
    root = NodePath("fit")
    cam = CameraSetup(lens, pos, hpr).node(root)
    out = []
    for p in pts:
        q = cam.get_relative_point(root, Point3(*p))
        if q[1] <= 1e-6:  # behind the camera: as good as out of frame
            out.append((math.inf, math.inf))
            continue
        p2 = Point2()
        lens.project(q, p2)  # fills p2 even for points outside the frame
        out.append((p2[0], p2[1]))
    root.remove_node()
    return np.asarray(out, float)


def setup_camera(table, kind: str, width: int, height: int, legend: bool = True) -> CameraSetup:
    """The lens and pose that frame ``table`` for camera ``kind`` ("oblique" or "top") in a
    ``width`` x ``height`` image (keeping the legend panel clear when ``legend``)."""
    if kind not in CAMERAS:
        raise ValueError(f"unknown camera {kind!r} (expected one of: {', '.join(CAMERAS)})")
    aspect = width / height
    panel = legend_width(width, height) if legend else 0
    # the NDC box the content must fill: x in [x0, x1], y in [-1+m, 1-m]
    x0, x1 = -1 + MARGIN, 1 - 2 * panel / width - MARGIN
    y0, y1 = -1 + MARGIN, 1 - MARGIN
    pts = content_points(table)
    cx, cy = table.width / 2, table.depth / 2
    if kind == "top":
        lens = OrthographicLens()
        # inches per NDC unit: the larger of the two needs
        span_x = (pts[:, 0].max() - pts[:, 0].min())
        span_y = (pts[:, 1].max() - pts[:, 1].min())
        k = max(span_x / (x1 - x0), span_y * aspect / (y1 - y0))  # inches per NDC unit (x)
        film_w, film_h = 2 * k, 2 * k / aspect
        lens.set_film_size(film_w, film_h)
        z = float(pts[:, 2].max()) + 20.0
        lens.set_near_far(1.0, z + 5.0)  # tight: depth precision of the software renderer
        mid_x = (pts[:, 0].max() + pts[:, 0].min()) / 2
        mid_y = (pts[:, 1].max() + pts[:, 1].min()) / 2
        # the content's centre must land on the box centre
        pos = (mid_x - (x0 + x1) / 2 * k, mid_y - (y0 + y1) / 2 * k / aspect, z)
        return CameraSetup(lens, pos, (0.0, -90.0, 0.0))
    lens = PerspectiveLens()
    vfov = OBLIQUE_VFOV
    hfov = math.degrees(2 * math.atan(math.tan(math.radians(vfov / 2)) * aspect))
    lens.set_fov(hfov, vfov)
    lens.set_near_far(2.0, 500.0)
    pitch = -OBLIQUE_PITCH
    fwd = np.array([0.0, math.cos(math.radians(pitch)), math.sin(math.radians(pitch))])
    target = np.array([cx, cy, 0.0])
    hpr = (0.0, pitch, 0.0)
    box_w, box_h = x1 - x0, y1 - y0

    def extent(d):
        pos = tuple(target - fwd * d)
        ndc = _ndc(lens, pos, hpr, pts)
        return pos, ndc

    lo, hi = 1.0, 1000.0
    for _ in range(40):
        mid = (lo + hi) / 2
        _, ndc = extent(mid)
        w = ndc[:, 0].max() - ndc[:, 0].min()
        h = ndc[:, 1].max() - ndc[:, 1].min()
        if not (w <= box_w and h <= box_h):
            lo = mid
        else:
            hi = mid
    pos, ndc = extent(hi)
    shift_x = (x0 + x1) / 2 - (ndc[:, 0].max() + ndc[:, 0].min()) / 2
    shift_y = (y0 + y1) / 2 - (ndc[:, 1].max() + ndc[:, 1].min()) / 2
    film = lens.get_film_size()
    # a film offset of +o moves the image by -o / (film / 2) in NDC
    lens.set_film_offset(-shift_x * film[0] / 2, -shift_y * film[1] / 2)
    return CameraSetup(lens, tuple(float(v) for v in pos), hpr)
