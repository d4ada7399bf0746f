"""Headless pixel tests of the 3D view (Panda3D's software renderer, no display needed).

The default table is rendered offscreen at 640x480; each check projects table points
with the view's own camera (``render_png(..., return_projector=True)``) and classifies
the pixels around them by the nearest colour of the view's palette (lighting changes
shades, so exact values are never compared).
"""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

try:
    import panda3d.core  # noqa: F401
except ImportError:  # pragma: no cover - depends on the machine
    pytest.skip("panda3d is not installed", allow_module_level=True)

from sim.geometry import Passage, Visibility
from sim.table import load_table
from sim.view import has_display, project_points, render_png, style
from sim.view.camera import legend_width
from sim.view.interact import pick, ray_plane, tape
from sim.view.scene3d import LOS_Z

W, H = 640, 480
ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.render


# --------------------------------------------------------------------- helpers
from conftest import read_png  # noqa: E402
from conftest import u8 as _u8  # noqa: E402


def palette() -> dict[str, list[tuple[int, int, int]]]:
    """Class name -> the colours that count as that class."""
    table = [style.TABLE, style.GRID_MINOR, style.GRID_MAJOR]
    classes: dict[str, list] = {"table": table, "background": [style.BACKGROUND]}
    for p, c in style.PASSAGE.items():
        shades = [c]
        if p is Passage.DIFFICULT:
            shades.append(style.DIFFICULT_STRIPE)
        if p is Passage.IDEAL:
            shades.append(style.IDEAL_GROUT)
        # Obscuring pieces are translucent: their colour over the table
        shades += [style.blend(s, t, style.OBSCURING_ALPHA) for s in list(shades) for t in table[:2]]
        classes[p.value] = shades
    classes["slope"] = [style.ENHANCING_SLOPE]
    for n, c in style.PLAYER.items():
        classes[f"player{n}"] = [c, tuple(min(1.0, x * 0.85 + 0.08) for x in c)]
    classes["mark"] = [style.MARK]
    classes["los_clear"] = [style.LOS_CLEAR]
    classes["los_cover"] = [style.LOS_COVER]
    classes["los_none"] = [style.LOS_NONE]
    return {k: [_u8(c) for c in v] for k, v in classes.items()}


PALETTE = palette()
_NAMES = [k for k, v in PALETTE.items() for _ in v]
_COLOURS = np.array([c for v in PALETTE.values() for c in v], float)


def classify(pixels: np.ndarray) -> list[str]:
    """Nearest palette class of each pixel (n, 3)."""
    d = np.linalg.norm(pixels.reshape(-1, 1, 3).astype(float) - _COLOURS[None], axis=2)
    return [_NAMES[i] for i in d.argmin(axis=1)]


def patch(img: np.ndarray, xy, r: int = 2) -> np.ndarray:
    x, y = int(round(xy[0])), int(round(xy[1]))
    assert r <= x < img.shape[1] - r and r <= y < img.shape[0] - r, f"{xy} is off the image"
    return img[y - r:y + r + 1, x - r:x + r + 1].reshape(-1, 3)


def share(img, xy, name: str, r: int = 2) -> float:
    """Fraction of the pixels around ``xy`` classified as ``name``."""
    labels = classify(patch(img, xy, r))
    return labels.count(name) / len(labels)


def top_centre(piece) -> tuple[float, float, float]:
    """A point in the middle of a terrain piece's drawn top face."""
    fp = piece.footprint
    if fp.is_circle:
        x, y = fp.center
    else:
        c = fp.shape.centroid
        if not fp.shape.contains(c):
            c = fp.shape.representative_point()
        x, y = c.x, c.y
    return (x, y, style.terrain_draw_height(piece))


def base_sample(model, ground: float = 0.0) -> tuple[float, float, float]:
    """A point on the top of a model's base, south of the figure, away from the facing
    arrow and the arc ticks (and from its own label, which sits north)."""
    def gap(a, b):
        return abs((a - b + 180) % 360 - 180)

    marks = (model.facing, model.facing + 90, model.facing - 90)
    angle = max((250, 270, 290, 230, 310), key=lambda a: min(gap(a, m) for m in marks))
    r = 0.75 * model.radius
    t = math.radians(angle)
    x, y = model.position
    return (x + r * math.cos(t), y + r * math.sin(t), ground + style.BASE_HEIGHT)


# -------------------------------------------------------------------- fixtures
@pytest.fixture(scope="module")
def table():
    return load_table()


@pytest.fixture(scope="module")
def renders(table, tmp_path_factory):
    """{(camera, selected): (image, projector)} for the renders the tests look at."""
    out = tmp_path_factory.mktemp("render")
    result = {}
    for camera, selected in (("oblique", None), ("top", None), ("top", "akira"), ("oblique", "akira")):
        path = out / f"{camera}-{selected}.png"
        written, project = render_png(table, path, selected=selected, width=W, height=H, camera=camera,
                                      return_projector=True)
        assert written == path and path.is_file()
        result[(camera, selected)] = (read_png(path), project)
    return result


# ----------------------------------------------------------------------- tests
def test_image_size_and_background(renders):
    img, _ = renders[("oblique", None)]
    assert img.shape == (H, W, 3)
    assert classify(img[2:3, 2:3].reshape(-1, 3)) == ["background"]


@pytest.mark.parametrize("camera", ["oblique", "top"])
def test_table_colour_at_centre_area(renders, table, camera):
    img, project = renders[(camera, None)]
    # points of bare table: no terrain within 1", no base within 1.5"
    bare = []
    for x in np.linspace(2, table.width - 2, 12):
        for y in np.linspace(2, table.depth - 2, 12):
            if any(t.footprint.distance_to_point((x, y)) < 1.0 for t in table.terrain):
                continue
            if any(math.dist((x, y), m.position) < m.radius + 1.5 for m in table.models):
                continue
            bare.append((x, y, 0.0))
    ok = [share(img, p, "table", 1) >= 0.6 for p in project(bare)]
    assert sum(ok) >= 0.9 * len(ok) and len(ok) >= 10
    # the bare points nearest the centre
    centre = (table.width / 2, table.depth / 2)
    near = sorted(range(len(bare)), key=lambda i: math.dist(bare[i][:2], centre))[:4]
    assert all(ok[i] for i in near)


@pytest.mark.parametrize("camera", ["oblique", "top"])
def test_terrain_shows_its_passage_colour(renders, table, camera):
    img, project = renders[(camera, None)]
    for piece in table.terrain:
        px = project([top_centre(piece)])[0]
        got = share(img, px, piece.passage.value)
        assert got >= 0.5, (f"{piece.id} {piece.attributes} at pixel {px.round(1)}: "
                            f"{classify(patch(img, px))}")


def test_enhancing_terrain_has_earthy_slopes(renders, table):
    img, project = renders[("top", None)]
    hills = [t for t in table.terrain if t.visibility is Visibility.ENHANCING]
    for hill in hills:
        shape = hill.footprint.shape
        edge = np.asarray(shape.exterior.coords)[0]
        c = np.asarray(shape.centroid.coords[0])
        p = c + (edge - c) * 0.93  # on the slope, near the foot
        px = project([(p[0], p[1], 0.2)])[0]
        assert share(img, px, "slope", 1) >= 0.5, classify(patch(img, px, 1))


def test_models_show_player_colours_top(renders, table):
    img, project = renders[("top", None)]
    for m in table.models:
        px = project([base_sample(m, style.ground_height(table, *m.position))])[0]
        assert share(img, px, f"player{m.player}", 1) >= 0.5, (m.id, px, classify(patch(img, px, 1)))


def test_models_show_player_colours_oblique(renders, table):
    img, project = renders[("oblique", None)]
    seen = 0
    for m in table.models:
        g = style.ground_height(table, *m.position)
        figure_mid = (m.position[0], m.position[1], g + style.BASE_HEIGHT + 0.35 * style.figure_height(m.size))
        pts = project([base_sample(m, g), figure_mid])
        seen += any(share(img, p, f"player{m.player}", 1) >= 0.5 for p in pts)
    # models behind tall Blocking terrain may be hidden from this side
    assert seen >= len(table.models) - 2


def test_selected_overlay_los_colours(renders, table):
    img, project = renders[("top", "akira")]
    plain, _ = renders[("top", None)]
    scene = table.scene()
    found = {"los_clear": 0, "los_cover": 0, "los_none": 0}
    for other in table.models:
        if other.id == "akira":
            continue
        pm = scene.measure_pair("akira", other.id)
        if pm.los.visible:
            kind = "los_cover" if pm.cover.cover else "los_clear"
            a, b = pm.los.line.a, pm.los.line.b
        else:
            kind = "los_none"
            a, b = table.model("akira").position, other.position
        pts = [(a[0] + (b[0] - a[0]) * f, a[1] + (b[1] - a[1]) * f, LOS_Z) for f in np.linspace(0.3, 0.7, 9)]
        for p in project(pts):
            x, y = int(round(p[0])), int(round(p[1]))
            window = img[y - 1:y + 2, x - 1:x + 2].reshape(-1, 3)
            if kind in classify(window):
                found[kind] += 1
    assert all(n >= 3 for n in found.values()), found
    # and the plain render has no LoS lines on the table (the legend shows their colours)
    table_part = plain[:, : W - legend_width(W, H)].reshape(-1, 3)[::5]
    assert not ({"los_clear", "los_cover"} & set(classify(table_part)))


def test_selected_overlay_oblique_has_all_line_colours(renders):
    img, _ = renders[("oblique", "akira")]
    labels = classify(img[:, : W - legend_width(W, H)].reshape(-1, 3)[::3])
    for kind in ("los_clear", "los_cover", "los_none"):
        assert labels.count(kind) >= 10, kind


def test_top_camera_shows_whole_table(renders, table):
    img, project = renders[("top", None)]
    corners = project([(0, 0, 0), (table.width, 0, 0), (0, table.depth, 0), (table.width, table.depth, 0)])
    assert np.all(corners[:, 0] > 0) and np.all(corners[:, 0] < W)
    assert np.all(corners[:, 1] > 0) and np.all(corners[:, 1] < H)
    # north is up: y grows up the image
    assert corners[2, 1] < corners[0, 1] and corners[1, 0] > corners[0, 0]
    inside = project([(0.3, 0.3, 0), (table.width - 0.3, 0.3, 0), (0.3, table.depth - 0.3, 0),
                      (table.width - 0.3, table.depth - 0.3, 0)])
    for p in inside:
        assert share(img, p, "table", 1) >= 0.5
    # just beyond the left and right edges: background
    left, right = project([(0, table.depth / 2, 0), (table.width, table.depth / 2, 0)])
    for p in (left - (6, 0), right + (6, 0)):
        assert share(img, p, "background", 1) >= 0.5
    assert right[0] + 6 < W - legend_width(W, H)  # the legend does not cover the table


def test_oblique_camera_frames_the_table(renders, table):
    _, project = renders[("oblique", None)]
    corners = project([(0, 0, 0), (table.width, 0, 0), (0, table.depth, 0), (table.width, table.depth, 0)])
    assert np.all((corners >= 0) & (corners <= [W, H]))
    # seen from player 1's side: the near edge (y = 0) is lower and wider on screen
    assert corners[0, 1] > corners[2, 1]
    assert corners[1, 0] - corners[0, 0] > corners[3, 0] - corners[2, 0]


def test_second_call_in_the_same_process(table, tmp_path):
    a = render_png(table, tmp_path / "a.png", width=320, height=240, camera="top")
    b = render_png(table, tmp_path / "b.png", width=320, height=240, camera="top")
    c = render_png(table, tmp_path / "sub" / "c.png", width=400, height=300, camera="oblique", selected="akira")
    ia, ib, ic = read_png(a), read_png(b), read_png(c)
    assert ia.shape == (240, 320, 3) and ic.shape == (300, 400, 3)
    assert np.array_equal(ia, ib)


def test_project_points_matches_render_projector(renders, table):
    _, project = renders[("oblique", None)]
    pts = [(0, 0, 0), (12, 12, 1), (24, 24, 4)]
    assert np.allclose(project(pts), project_points(table, pts, "oblique", W, H))


def test_bad_arguments(table, tmp_path):
    with pytest.raises(ValueError):
        render_png(table, tmp_path / "x.png", camera="fisheye")
    with pytest.raises(KeyError):
        render_png(table, tmp_path / "x.png", selected="nobody")


# ---------------------------------------------------- no display, no panda3d
def test_import_does_not_load_panda3d():
    code = "import sys, sim.view; assert 'panda3d' not in sys.modules, 'panda3d imported'"
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)


def test_has_display(monkeypatch):
    if sys.platform.startswith(("win", "darwin")):
        assert has_display()
        return
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    assert not has_display()
    monkeypatch.setenv("DISPLAY", ":0")
    assert has_display()


def test_tape_and_pick(table):
    akira = table.model("akira")
    other = next(m for m in table.models if m.id != "akira")
    r = tape(table, "akira", other.id)
    assert r.distance == pytest.approx(table.scene().distance("akira", other.id))
    assert math.dist(r.a, r.b) == pytest.approx(r.distance, abs=1e-6)
    p = (akira.position[0] + akira.radius + 2.0, akira.position[1])
    assert tape(table, p, "akira").distance == pytest.approx(2.0)
    assert tape(table, (1, 1), (4, 5)).distance == pytest.approx(5.0)
    assert ray_plane((0, 0, 10), (0, 0, 1), 0) is None
    # a ray straight down onto a base picks the model; onto bare table, the point
    x, y = akira.position
    assert pick(table, (x, y, 50), (0, 0, -1)) == "akira"
    free = next((float(fx), float(fy)) for fx in range(1, int(table.width)) for fy in range(1, int(table.depth))
                if all(math.dist((fx, fy), m.position) > m.radius + 7 for m in table.models))
    assert pick(table, (free[0] - 5, free[1] - 5, 50), (0.1, 0.1, -1)) == pytest.approx(free)
    assert pick(table, (-5, -5, 50), (0, 0, -1)) is None
