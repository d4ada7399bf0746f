"""Special moves in the 3D view: the animation timeline and the window's special-move
state (``sim.view.specials``, no Panda3D needed), and headless pixel tests of
``render_png(..., special=...)`` (swept paths, models at their end or part way).

Renders are 640x480 with the software renderer, from the top camera; pixels are found
with the view's own projector (``return_projector=True``) and classified by the nearest
colour of a small palette (lighting and blending change shades, so exact values are
never compared).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import make_table

from sim.rules.special import MOVES, special_move
from sim.table import load_table
from sim.view import style
from sim.view.specials import (
    SpecialState,
    Timeline,
    contact_point,
    describe_special,
    sandbox_note,
    special_table,
    special_target,
)

W, H = 640, 480

try:
    import panda3d.core  # noqa: F401

    HAVE_PANDA = True
except ImportError:  # pragma: no cover - depends on the machine
    HAVE_PANDA = False

render = pytest.mark.skipif(not HAVE_PANDA, reason="panda3d is not installed")


@pytest.fixture(scope="module")
def open_table():
    """Red 'atk' slams blue 'def' 3" east across open table."""
    return make_table([{"id": "atk", "player": 1, "base": 40, "position": [8.0, 12.0]},
                       {"id": "def", "player": 2, "base": 30, "position": [9.4, 12.0], "facing": 90},
                       {"id": "far", "player": 2, "base": 30, "position": [20.0, 20.0]}])


@pytest.fixture(scope="module")
def slam(open_table):
    return special_move(open_table, "atk", "def", "slam")


@pytest.fixture(scope="module")
def chain():
    """A 50 mm defender slammed into a row of three smaller models (each pushed on)."""
    return make_table([{"id": "atk", "player": 1, "base": 60, "position": [3.0, 12.0]},
                       {"id": "def", "player": 2, "base": 50, "position": [5.1655, 12.0]},
                       {"id": "c1", "player": 2, "base": 40, "position": [7.3372, 12.0]},
                       {"id": "c2", "player": 2, "base": 30, "position": [9.0153, 12.0]},
                       {"id": "c3", "player": 1, "base": 30, "size": "tiny", "position": [10.4965, 12.0]}])


# ------------------------------------------------------------------ no Panda3D
def test_special_table_moves_and_lays_down(open_table, slam):
    after = special_table(open_table, slam)
    assert after.model("def").position == pytest.approx((12.4, 12.0))
    assert after.model("def").prone and not open_table.model("def").prone
    assert after.model("atk") is open_table.model("atk")
    assert open_table.model("def").position == (9.4, 12.0)
    assert after.scene().bodies["def"].center == pytest.approx((12.4, 12.0))


def test_timeline_of_a_slam_is_uniform(slam):
    tl = Timeline.of(slam)
    assert tl.total == pytest.approx(3.0)
    assert tl.position(slam, "def", 0.0) == pytest.approx((9.4, 12.0))
    assert tl.position(slam, "def", 0.5) == pytest.approx((10.9, 12.0))
    assert tl.position(slam, "def", 1.0) == pytest.approx((12.4, 12.0))
    assert tl.trail(slam, "def", 0.0) == [pytest.approx((9.4, 12.0))]
    assert tl.trail(slam, "def", 0.5)[-1] == pytest.approx((10.9, 12.0))


def test_timeline_chained_pushes_start_when_hit(chain):
    res = special_move(chain, "atk", "def", "slam")
    assert set(res.moves) == {"def", "c1", "c2", "c3"}
    tl = Timeline.of(res, chain)
    starts = {k: v[0].t0 for k, v in tl.segments.items()}
    assert starts["def"] == 0.0
    assert 0 < starts["c1"] < starts["c2"] < starts["c3"] < tl.total
    # before it is hit a model waits at its start; afterwards it ends where the rules say
    early = starts["c1"] / tl.total / 2
    assert tl.position(res, "c1", early) == pytest.approx(res.moves["c1"].start)
    assert tl.positions(res, 1.0) == {k: pytest.approx(v) for k, v in res.positions().items()}
    # the models never overlap on the way
    r = {m.id: m.radius for m in chain.models}
    for t in np.linspace(0, 1, 41):
        pos = tl.positions(res, t)
        for a, b in (("def", "c1"), ("c1", "c2"), ("c2", "c3")):
            assert math.dist(pos[a], pos[b]) >= r[a] + r[b] - 0.02, (t, a, b)
    # every collision happens, in order, and its mark is where the two bases touched
    assert tl.hits == sorted(tl.hits) and all(tl.happened(i, 1.0) for i in range(len(tl.hits)))
    c = res.collisions[0]
    p = contact_point(chain, c)
    assert math.dist(p, c.at) == pytest.approx(r["def"])
    assert math.dist(p, res.moves["c1"].start) == pytest.approx(r["c1"], abs=0.02)


def test_describe_special(slam, chain):
    assert describe_special(slam) == 'Slam: atk vs def — def 3.00"; Prone: def'
    res = special_move(chain, "atk", "def", "slam")
    text = describe_special(res)
    assert text.index("def ") < text.index("c1 ") < text.index("c2 ") < text.index("c3 ")
    assert text.endswith("Prone: def, c1, c2, c3")


def test_sandbox_note_says_why_a_game_would_refuse_the_move(slam):
    """The window plays any special (teaching) but says when the rules would refuse it in
    a game, as `main.py special` does without --sandbox (rulings-project 31)."""
    table = load_table()  # akira and masunagi stand 0.208" apart
    res = special_move(table, "akira", "masunagi", "slam")
    note = sandbox_note(table, res)
    assert note.startswith("   [sandbox; in a game: akira and masunagi are not in base contact (0.208")
    assert "\n" not in note
    touching = make_table([{"id": "atk", "position": [10, 10]},
                           {"id": "def", "player": 2, "position": [10 + 2 * 0.5906, 10]}])
    assert sandbox_note(touching, special_move(touching, "atk", "def", "slam")) == ""


def test_special_target_and_state(open_table):
    assert special_target(open_table, "atk") == "def"
    assert special_target(open_table, "def") == "atk"
    st = SpecialState(open_table)
    assert not st.active and st.commit() is None
    seen = []
    for _ in range(len(MOVES)):
        res = st.cycle("atk")
        seen.append(st.move)
        assert res is not None or st.error
    assert seen == list(MOVES)
    assert st.cycle("atk", -1) is not None and st.move == MOVES[-2]
    while st.move != "slam":
        st.cycle("atk")
    assert st.pending and st.target == "def"
    after = st.commit()
    assert st.committed and not st.pending and st.table is after
    assert after.model("def").prone and after.model("def").position == pytest.approx((12.4, 12.0))
    st.cancel()
    assert not st.active and st.table is after  # a committed move stays on the table


def test_special_state_without_enemies():
    t = make_table([{"id": "a", "position": [5, 5]}, {"id": "b", "position": [9, 5]}])
    st = SpecialState(t)
    assert st.cycle("a") is None and "no enemy" in st.error


# --------------------------------------------------------------------- pixels
from conftest import read_png  # noqa: E402
from conftest import u8 as _u8  # noqa: E402

_UNDER = [style.TABLE, style.GRID_MINOR, style.GRID_MAJOR]
_CL = {
    "table": _UNDER,
    "sweep": [style.blend(style.SWEEP, u, style.SWEEP_ALPHA) for u in _UNDER],
    "ghost": [style.blend(style.START_GHOST, u, style.START_GHOST_ALPHA)
              for u in [style.blend(style.SWEEP, v, style.SWEEP_ALPHA) for v in _UNDER] + _UNDER],
    "player1": [style.PLAYER[1], tuple(min(1.0, x * 0.85 + 0.08) for x in style.PLAYER[1])],
    "player2": [style.PLAYER[2], tuple(min(1.0, x * 0.85 + 0.08) for x in style.PLAYER[2])],
    "mark": [style.MARK],
    "line": [style.SWEEP_LINE, style.SWEEP_EDGE],
}
_NAMES = [k for k, v in _CL.items() for _ in v]
_COLOURS = np.array([_u8(c) for v in _CL.values() for c in v], float)


def classify(pixels) -> list[str]:
    d = np.linalg.norm(np.asarray(pixels, float).reshape(-1, 1, 3) - _COLOURS[None], axis=2)
    return [_NAMES[i] for i in d.argmin(axis=1)]


def at(img, pts) -> list[str]:
    return classify([img[int(round(p[1])), int(round(p[0]))] for p in pts])


def sweep_pixels(img) -> int:
    """Pixels within a small distance of the swept-path colour over the table."""
    ref = np.array([_u8(c) for c in _CL["sweep"]], float)
    d = np.linalg.norm(img.reshape(-1, 1, 3).astype(float) - ref[None], axis=2).min(axis=1)
    return int((d < 18).sum())


def _base_top(centre, r):
    """Points on a base's top, inside its rim."""
    return [(centre[0] + f * r * math.cos(a), centre[1] + f * r * math.sin(a), style.BASE_HEIGHT)
            for f in (0.25, 0.45, 0.65) for a in np.linspace(0, 2 * math.pi, 12, endpoint=False)]


def _between(a, b, r, z):
    """Points between two base positions, off both bases and off the centre line."""
    ux, uy = (b[0] - a[0]) / math.dist(a, b), (b[1] - a[1]) / math.dist(a, b)
    out = []
    for d in np.linspace(r + 0.2, math.dist(a, b) - r - 0.2, 5):
        for side in (-0.5 * r, 0.5 * r):
            out.append((a[0] + ux * d - uy * side, a[1] + uy * d + ux * side, z))
    return out


@pytest.fixture(scope="module")
def renders(open_table, slam, tmp_path_factory):
    """{name: (image, projector)} of the open table: plain, the slam, its middle, and
    the slam cleared again (``TableScene.clear_special``)."""
    from sim.view import offscreen, render_png

    out = tmp_path_factory.mktemp("special")
    result = {}
    for name, kw in (("plain", {}), ("slam", {"special": slam}), ("half", {"special": slam, "special_t": 0.5})):
        path, project = render_png(open_table, out / f"{name}.png", width=W, height=H, camera="top",
                                   return_projector=True, **kw)
        result[name] = (read_png(path), project)
    path, setup = offscreen.render_png(open_table, out / "cleared.png", width=W, height=H, camera="top",
                                       special=slam, before=lambda scene: scene.clear_special())
    result["cleared"] = (read_png(path), lambda pts: setup.project(pts, W, H))
    return result


@render
def test_slam_draws_the_swept_path(renders, slam, open_table):
    from sim.view.scene3d import SWEEP_Z

    img, project = renders["slam"]
    mv = slam.moves["def"]
    r = open_table.model("def").radius
    seen = at(img, project(_between(mv.start, mv.end, r, SWEEP_Z)))
    assert seen.count("sweep") >= 0.8 * len(seen), seen
    plain, project0 = renders["plain"]
    assert at(plain, project0(_between(mv.start, mv.end, r, SWEEP_Z))).count("sweep") == 0
    assert sweep_pixels(img) > 150
    assert sweep_pixels(plain) < 20  # the default render has none of it


@render
def test_slam_defender_is_at_its_end_not_its_start(renders, slam, open_table):
    img, project = renders["slam"]
    plain, project0 = renders["plain"]
    mv = slam.moves["def"]
    r = open_table.model("def").radius
    end = at(img, project(_base_top(mv.end, r)))
    start = at(img, project(_base_top(mv.start, r)))
    assert end.count("player2") >= 0.6 * len(end), end
    assert start.count("player2") == 0, start
    assert start.count("ghost") >= 0.5 * len(start), start  # the faint ghost base
    before = at(plain, project0(_base_top(mv.start, r)))
    assert before.count("player2") >= 0.6 * len(before), before


@render
def test_half_way_frame(renders, slam, open_table):
    img, project = renders["half"]
    mv = slam.moves["def"]
    r = open_table.model("def").radius
    mid = ((mv.start[0] + mv.end[0]) / 2, (mv.start[1] + mv.end[1]) / 2)
    here = at(img, project(_base_top(mid, r)))
    assert here.count("player2") >= 0.6 * len(here), here
    for p in (mv.start, mv.end):
        there = at(img, project(_base_top(p, r * 0.6)))
        assert there.count("player2") == 0, (p, there)
    # the path is drawn only as far as the model has gone
    ahead = at(img, project([(mv.end[0] + dx, mv.end[1] + dy, 0.07) for dx in (0.0, 0.2) for dy in (-0.3, 0.3)]))
    assert ahead.count("sweep") == 0, ahead
    assert sweep_pixels(img) > 60


@render
def test_clear_special_removes_the_path(renders, slam, open_table):
    from sim.view.scene3d import SWEEP_Z

    img, project = renders["cleared"]
    mv = slam.moves["def"]
    r = open_table.model("def").radius
    assert sweep_pixels(img) < 20
    assert at(img, project(_between(mv.start, mv.end, r, SWEEP_Z))).count("sweep") == 0
    # the scene's table is the one after the move: the defender stays at its end
    end = at(img, project(_base_top(mv.end, r)))
    assert end.count("player2") >= 0.6 * len(end), end


@render
def test_scene_show_and_clear(chain):
    from sim.view.scene3d import TableScene

    res = special_move(chain, "atk", "def", "slam")
    scene = TableScene(chain, "atk", labels=False)
    scene.show_special(res, 0.5)
    assert scene.special is res and scene.special_t == 0.5
    assert scene._special.get_num_children() >= 3
    assert scene._overlay.is_hidden()  # stale LoS/ZoC of the table are hidden
    x, y, _ = scene._figures["def"][0].get_pos()
    assert (x, y) == pytest.approx(Timeline.of(res, chain).position(res, "def", 0.5), abs=1e-4)
    scene.show_special(res)
    x, y, _ = scene._figures["c3"][0].get_pos()
    assert (x, y) == pytest.approx(res.moves["c3"].end, abs=1e-4)
    assert scene._figures["c3"][1].get_r() == pytest.approx(90)  # lying down: Prone
    scene.clear_special()
    assert scene.special is None and scene._special.get_num_children() == 0
    assert not scene._overlay.is_hidden()
    x, y, _ = scene._figures["c3"][0].get_pos()
    assert (x, y) == pytest.approx(chain.model("c3").position, abs=1e-4)
    assert scene._figures["c3"][1].get_r() == pytest.approx(0)
    # built from the table after the move, the end frame hides nothing
    after = TableScene(special_table(chain, res), "atk", labels=False)
    after.show_special(res)
    assert not after._overlay.is_hidden()


@render
def test_render_png_checks_special_arguments(open_table, slam, tmp_path):
    from sim.view import render_png

    with pytest.raises(ValueError):
        render_png(open_table, tmp_path / "x.png", special_t=0.5, width=W, height=H)
    with pytest.raises(ValueError):
        render_png(open_table, tmp_path / "x.png", special=slam, special_t=1.5, width=W, height=H)
    other = load_table()
    with pytest.raises(KeyError):
        render_png(other, tmp_path / "x.png", special=slam, width=W, height=H)
