"""A game's markers on the 3D table (``sim.view.layers.markers``, ``render_png(markers=...)``)
and the pure reading of them off a game (``sim.view.play.state.model_markers``).

The default table is rendered offscreen at 1280x960 from the default oblique camera,
once with the markers of a fresh game and once with a position set by hand (Prone and
Stunned, wounds, Ki, counters, a killed model); the pixels near each model are counted
by colour of the markers' palette (``sim.view.style``; the markers are drawn unlit, so
their colours come out as they are, anti-aliased text aside).
"""

from __future__ import annotations

import sys

import numpy as np
import pytest
from conftest import read_png, set_model, u8

from sim.rules.game import Game
from sim.table import load_table
from sim.view import style
from sim.view.play.state import ModelMarkers, conditions_text, model_markers

W, H = 1280, 960


def fresh_game() -> Game:
    return Game(load_table(), seed=7, length=("fixed", 2))


def marked_game() -> Game:
    g = fresh_game()
    set_model(g, "matsu", conditions={"prone": 1, "stunned": 1})
    set_model(g, "kenta", damage=4)
    set_model(g, "kokkio", ki=0, counters=0)
    set_model(g, "ton", markers={"bleed": [2, 1]}, conditions={"held": "masunagi"})
    set_model(g, "ishi", conditions={"frightened": 6})
    set_model(g, "nanako", alive=False)
    return g


# ------------------------------------------------------------------ pure reading
def test_model_markers_read_the_game_state():
    mk = model_markers(marked_game())
    assert mk["matsu"].conditions == (("prone", 1), ("stunned", 1))
    assert (mk["kenta"].wounds_left, mk["kenta"].wounds_max) == (2, 6)
    assert (mk["kokkio"].ki, mk["kokkio"].ki_max, mk["kokkio"].counters) == (0, 6, 0)
    assert mk["kokkio"].has("exhausted")  # no counter left in the Main phase (p.24)
    assert mk["ton"].value("bleed") == 2 and mk["ton"].held_by == "masunagi"
    assert mk["ishi"].value("frightened") == 6  # the Fear TN, not a count
    assert not mk["nanako"].alive and mk["nanako"].conditions == ()
    assert mk["akira"] == ModelMarkers("akira", 1, True, 6, 6, 2, 8, 2)
    assert conditions_text(mk, "matsu") == "matsu: wounds 5/5, Ki 2/6, counters 2; prone, stunned"


def test_model_markers_leave_out_the_one_turn_marks_and_exhausted_outside_main():
    g = fresh_game()
    set_model(g, "akira", conditions={"ran": 1}, counters=0)
    mk = model_markers(g)
    assert mk["akira"].conditions == (("exhausted", 1),)
    pos = g.position()
    pos["phase"] = "end"
    g.set_position(pos)
    assert model_markers(g)["akira"].conditions == ()


def test_state_module_imports_no_panda3d():
    import subprocess

    code = ("import sys, sim.view.play.state, sim.view.play.replay; "
            "sys.exit(1 if any(m.startswith('panda3d') for m in sys.modules) else 0)")
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0


# ------------------------------------------------------------------ rendering
@pytest.fixture(scope="module")
def renders(tmp_path_factory):
    pytest.importorskip("panda3d.core")
    from sim.view import render_png

    out = tmp_path_factory.mktemp("markers")
    shots = {}
    for name, g in (("fresh", fresh_game()), ("marked", marked_game())):
        path, project = render_png(g.table_now(), out / f"{name}.png", width=W, height=H,
                                   markers=model_markers(g), return_projector=True)
        shots[name] = read_png(path)
    shots["project"] = project
    return shots


def near(img, project, xy, dx=(-40, 90), dy=(-60, 50)) -> np.ndarray:
    """The pixels of ``img`` around table point ``xy`` (a window in pixels)."""
    col, row = project([(xy[0], xy[1], 0.0)])[0]
    c, r = int(round(col)), int(round(row))
    return img[max(0, r + dy[0]):r + dy[1], max(0, c + dx[0]):c + dx[1]]


def count(px: np.ndarray, rgb, tol: int = 10) -> int:
    """How many pixels are within ``tol`` (per channel, 0-255) of colour ``rgb``."""
    target = np.array(u8(rgb), dtype=int)
    return int((np.abs(px.astype(int) - target).max(axis=-1) <= tol).sum())


def token(name: str):
    return style.CONDITION_TOKEN[name][0]


@pytest.mark.render
def test_prone_and_stunned_tokens_beside_the_base(renders):
    project = renders["project"]
    table = load_table()
    xy = table.model("matsu").position
    marked, fresh = near(renders["marked"], project, xy), near(renders["fresh"], project, xy)
    left = near(renders["marked"], project, xy, dx=(-40, 0))
    for name in ("prone", "stunned"):
        assert count(marked, token(name)) > 200, name  # a chip about 40 x 12 pixels
        assert count(fresh, token(name)) == 0, name
        assert count(left, token(name)) == 0, name  # the tokens stand right of the base


@pytest.mark.render
def test_wounded_model_bar_has_less_green(renders):
    project = renders["project"]
    xy = load_table().model("kenta").position
    marked, fresh = near(renders["marked"], project, xy), near(renders["fresh"], project, xy)
    green_marked, green_fresh = count(marked, style.WOUNDS_LEFT), count(fresh, style.WOUNDS_LEFT)
    assert green_fresh > 60
    # 2 of 6 boxes left: about a third of the green (the dividers are drawn either way)
    assert 0.2 < green_marked / green_fresh < 0.45
    assert count(marked, style.WOUNDS_LOST) > 60 and count(fresh, style.WOUNDS_LOST) == 0


@pytest.mark.render
def test_ki_pips_and_counter_discs(renders):
    project = renders["project"]
    xy = load_table().model("kokkio").position
    marked, fresh = near(renders["marked"], project, xy), near(renders["fresh"], project, xy)
    assert count(fresh, style.KI_FULL) > 20 and count(marked, style.KI_FULL) == 0  # Ki 2 of 6, then 0
    assert count(marked, style.KI_EMPTY) > count(fresh, style.KI_EMPTY)
    assert count(fresh, style.COUNTER) > 20 and count(marked, style.COUNTER) == 0  # 2 counters, then none
    assert count(marked, token("exhausted")) > 100


@pytest.mark.render
def test_valued_markers_and_held_tokens(renders):
    project = renders["project"]
    table = load_table()
    ton = near(renders["marked"], project, table.model("ton").position)
    assert count(ton, token("bleed")) > 200 and count(ton, token("held")) > 200
    ishi = near(renders["marked"], project, table.model("ishi").position)
    assert count(ishi, token("frightened")) > 200


@pytest.mark.render
def test_killed_model_and_unknown_ids_show_nothing():
    pytest.importorskip("panda3d.core")
    from sim.view.scene3d import TableScene

    g = marked_game()
    scene = TableScene(g.table_now())
    scene.set_markers({**model_markers(g), "ghost": ModelMarkers("ghost", 1, True, 1, 1, 0, 0, 0)})
    assert "nanako" not in scene.markers and "ghost" not in scene.markers
    assert scene.markers["matsu"].has("prone")
    scene.set_markers(None)
    assert scene.markers == {}
