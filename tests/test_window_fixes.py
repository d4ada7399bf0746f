"""The measuring window's fixes of issue 12, driven headless through the same handlers
its key and mouse bindings call (``TableView.key``, ``click``, ``drag``) on the
offscreen ShowBase of ``sim.view.play.shell.get_base``:

* the legend is there when the window opens;
* ``s`` plays only special moves the rules allow (enemies in base contact), ``b`` is an
  explicit sandbox marked in the status line with every reason;
* a Run and a Charge are set up (keys 2, 3), judged live and committed with ``enter``;
  a Walk's end facing is turned with ``q`` / ``e`` (a Run or a Charge cannot turn);
* explanations give every reason with its rule and page.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import make_table, read_png, u8

from sim.rules.movement import check_run
from sim.table import load_table
from sim.view import style
from sim.view.drag import DragState, explain, plan_walk, reason_line

W, H = 1024, 768  # the size the other window tests open the shared ShowBase with


@pytest.fixture(scope="module")
def base():
    from sim.view.play.shell import get_base

    return get_base(offscreen=True, size=(W, H))


@pytest.fixture(scope="module")
def table():
    return load_table()


@pytest.fixture
def view_of(base):
    from sim.view.app import TableView

    made = []

    def make(table, selected=None):
        v = TableView(base, table, selected, bind=False)
        v.special_seconds = 0  # no animation: the move is drawn at its end at once
        made.append(v)
        return v

    yield make
    for v in made:
        v.destroy()


def _on(view, xy, z=0.0):
    """The NDC where the table point ``xy`` shows (z: height above the table)."""
    ndc = view.ndc_of((xy[0], xy[1], z))
    assert ndc is not None and all(-1 <= c <= 1 for c in ndc)
    return ndc


def _drag_model(view, model_id, dest):
    """Drag ``model_id`` (selected) from its base to ``dest`` (a table point)."""
    start = view.table.model(model_id).position
    view.drag(_on(view, start, style.BASE_HEIGHT), _on(view, dest))


# ------------------------------------------------------------------- legend
def test_legend_is_shown_when_the_window_opens_before_any_selection(base, table, view_of, tmp_path):
    from sim.view.camera import legend_width
    from sim.view.play.shell import screenshot

    view = view_of(table)
    assert view.scene.selected is None and view.legend_shown
    img = read_png(screenshot(base, tmp_path / "open.png")).astype(int)
    panel = img[:, W - legend_width(W, H) + 4:]
    dark = np.abs(panel - np.array(u8((0.07, 0.075, 0.09)))).sum(axis=2) < 40
    bright = panel.min(axis=2) > 180  # the legend's white text
    assert dark.mean() > 0.5 and bright.sum() > 200
    view.key("l")
    assert not view.legend_shown


def test_destroy_removes_what_the_view_attached(base, table):
    from sim.view.app import TableView

    before = (base.render.get_num_children(), base.pixel2d.get_num_children(), base.a2dTopLeft.get_num_children())
    v = TableView(base, table, "kenta", bind=False)
    assert base.render.get_num_children() == before[0] + 1
    v.destroy()
    assert (base.render.get_num_children(), base.pixel2d.get_num_children(),
            base.a2dTopLeft.get_num_children()) == before


def test_idle_frames_after_a_selection_precompute_its_regions_and_lanes(base, table, view_of):
    from sim.rules import planning

    view = view_of(table)
    planning.cache_clear()
    view.select("kenta")
    for _ in range(4):
        base.task_mgr.step()
    info = planning.cache_info()
    assert [info[k][1] for k in ("walk", "run", "charges")] == [1, 1, 1]  # computed once each, in idle frames
    for name in ("w", "r", "c"):
        view.key(name)
    assert planning.cache_info() == {k: (v[0] + 1, v[1], v[2]) for k, v in info.items()}  # the overlays hit
    assert set(view.scene.movement) == {"walk", "run", "charges"}


def test_click_on_a_model_selects_it_and_click_on_the_table_clears(table, view_of):
    view = view_of(table)
    view.click(_on(view, table.model("kenta").position, style.BASE_HEIGHT))
    assert view.scene.selected == "kenta" and "selected: kenta" in view.status
    view.click(_on(view, (22.0, 3.0)))
    assert view.scene.selected is None


# ----------------------------------------------------------------- specials
def test_s_refuses_a_special_between_models_not_in_base_contact_with_every_reason(table, view_of):
    view = view_of(table, "akira")  # akira and masunagi stand 0.208" apart
    view.key("s")
    assert not view.special.active and view.table is table
    assert "not allowed in a game" in view.status
    assert 'not in base contact (0.208" apart): a melee exchange needs BtB (p.33)' in view.status


def test_s_plays_a_special_between_enemies_in_base_contact(view_of):
    touching = make_table([{"id": "atk", "position": [10, 10]},
                           {"id": "def", "player": 2, "position": [10 + 2 * 0.5906, 10]}])
    view = view_of(touching, "atk")
    view.key("s")
    assert view.special.pending and "[sandbox" not in view.status
    view.key("enter")
    assert view.special.committed and view.table is not touching


def test_sandbox_key_plays_any_pair_and_the_status_says_why_a_game_would_not(table, view_of):
    view = view_of(table, "akira")
    view.key("b")
    assert view.special.sandbox and "sandbox on" in view.status
    view.key("s")
    assert view.special.pending
    assert "[sandbox; in a game: akira and masunagi are not in base contact" in view.status
    assert "(p.33)" in view.status
    view.key("escape")
    view.key("b")
    view.key("s")
    assert not view.special.active  # sandbox off again: refused


# -------------------------------------------------------------------- moves
def test_walk_dragged_and_committed_with_enter(table, view_of):
    view = view_of(table, "kenta")
    _drag_model(view, "kenta", (21.5, 12.5))
    assert view.move.pinned and view.move.legal and view.move.kind == "walk"
    assert view.status_colour == (*style.MOVE_OK, 1) and "Walk " in view.status and "legal" in view.status
    view.key("enter")
    m = view.table.model("kenta")
    assert m.position == pytest.approx((21.5, 12.5), abs=0.05) and m.facing == table.model("kenta").facing


def test_run_is_chosen_with_2_judged_live_and_committed_facing_the_way_it_ran(table, view_of):
    view = view_of(table, "kenta")
    view.key("2")
    _drag_model(view, "kenta", (21.5, 13.0))
    mv = view.move
    assert mv.kind == "run" and mv.legal and "Run " in view.status
    dest = mv.dest
    assert check_run(table, "kenta", dest).legal
    view.key("enter")
    m = view.table.model("kenta")
    assert m.position == pytest.approx(dest)
    assert m.facing == pytest.approx(math.degrees(math.atan2(dest[1] - 10.0, dest[0] - 21.5)) % 360)
    assert view.move.kind == "run"  # the kind stays for the next move


def test_run_into_enemy_zoc_is_illegal_with_its_reason_and_page_and_not_committed(table, view_of):
    view = view_of(table, "kenta")
    view.key("2")
    _drag_model(view, "kenta", (21.5, 14.5))  # into yatsumata's zone of control
    assert not view.move.legal and view.status_colour == (*style.WARNING, 1)
    assert "yatsumata's zone of control [Run p.22" in view.status
    view.key("enter")
    assert view.table is table and "not moved:" in view.status


def test_charge_is_chosen_with_3_at_the_enemy_under_the_cursor_and_ends_in_contact(table, view_of):
    view = view_of(table, "kenta")
    view.key("3")
    target = table.model("yatsumata")
    _drag_model(view, "kenta", target.position)
    mv = view.move
    assert mv.kind == "charge" and mv.legal and mv.result.target == "yatsumata" and mv.result.reached
    assert "Charge yatsumata" in view.status and "reaches yatsumata" in view.status
    assert mv.end == pytest.approx(mv.path[-1])  # the ghost stands where the charge ends
    view.key("enter")
    m = view.table.model("kenta")
    gap = math.dist(m.position, target.position) - m.radius - target.radius
    assert abs(gap) < 0.02
    assert view.table.scene().distance("kenta", "yatsumata") <= 0.011


def test_q_turns_the_selected_model_where_it_stands_and_enter_commits_the_turn(table, view_of):
    view = view_of(table, "kenta")
    view.key("q")
    view.key("q")
    view.key("shift-e")
    f = (table.model("kenta").facing + 29.0) % 360
    assert view.move.legal and view.move.end_facing == pytest.approx(f)
    assert f'Walk 0.00" of 4", facing {f:.0f}°' in view.status
    view.key("enter")
    m = view.table.model("kenta")
    assert m.facing == pytest.approx(f) and m.position == pytest.approx(table.model("kenta").position)


def test_walk_ends_with_the_facing_set_by_e(table, view_of):
    view = view_of(table, "kenta")
    _drag_model(view, "kenta", (21.5, 12.5))
    view.key("e")
    assert view.move.legal and view.move.end_facing == pytest.approx(table.model("kenta").facing - 15)
    view.key("enter")
    assert view.table.model("kenta").facing == pytest.approx(table.model("kenta").facing - 15)


@pytest.mark.parametrize("kind_key,kind", [("2", "run"), ("3", "charge")])
def test_a_run_or_a_charge_cannot_be_turned(table, view_of, kind_key, kind):
    view = view_of(table, "kenta")
    view.key(kind_key)
    _drag_model(view, "kenta", (21.5, 12.5) if kind == "run" else table.model("yatsumata").position)
    before = view.move.result
    view.key("q")
    assert view.move.result is before and "not turned:" in view.status and "p.22" in view.status


# ------------------------------------------------------------- explanations
def test_explanation_gives_every_reason_with_its_page_as_the_cli(table):
    res = plan_walk(table, "ton", (14.5, 11.5))
    assert not res.legal and len(res.reasons) >= 2
    text = explain(res)
    for r in res.reasons:  # what `main.py move` prints for each reason: message and rule
        assert r.message in text and f"[{r.ruling}]" in text and reason_line(r) in text
    assert text.count("p.22") >= 2


def test_window_status_shows_every_reason_of_an_illegal_walk(table, view_of):
    view = view_of(table, "ton")
    _drag_model(view, "ton", (14.5, 11.5))
    reasons = view.move.result.reasons
    assert not view.move.legal and len(reasons) >= 2
    for r in reasons:
        assert reason_line(r) in view.status


def test_drag_state_charge_target_follows_the_cursor(table):
    st = DragState(table, kind="charge")
    st.begin("kenta")
    st.hover(table.model("yatsumata").position)
    assert st.result.target == "yatsumata"
    st.hover(table.model("nanako").position)
    assert st.result.target == "nanako"
    with pytest.raises(ValueError):
        st.set_kind("fly")


# ------------------------------------------------- fast overlay meshes (speed)
def _area(tri) -> float:
    """Sum of the areas of triangles (n, 3, 2)."""
    a, b = tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0]
    return float(0.5 * np.abs(a[:, 0] * b[:, 1] - a[:, 1] * b[:, 0]).sum())


def test_vectorised_ground_heights_equal_the_per_point_reference_on_random_points(table):
    from sim.view.layers.ground import Ground
    from sim.view.layers.movement import ground_heights, lifted_heights

    rng = np.random.default_rng(12)
    hill = next(t for t in table.terrain if t.visibility.value == "enhancing")
    x0, y0, x1, y1 = hill.footprint.shape.bounds
    pts = np.vstack([rng.uniform((0, 0), (table.width, table.depth), (300, 2)),
                     rng.uniform((x0 - 0.5, y0 - 0.5), (x1 + 0.5, y1 + 0.5), (300, 2))])
    fast = ground_heights(table, pts)
    ref = np.array([style.ground_height(table, x, y) for x, y in pts])
    assert (ref > 0).sum() > 100  # many points on the raised ground
    np.testing.assert_allclose(fast, ref, rtol=0, atol=1e-12)
    g = Ground(table)
    np.testing.assert_allclose(lifted_heights(table, pts), [g.lifted(x, y) for x, y in pts], rtol=0, atol=1e-12)


def test_vectorised_drape_equals_the_reference_line(table):
    from sim.view.layers.ground import Ground
    from sim.view.layers.movement import drape_line

    ring = [(2.0, 3.0), (9.0, 7.5), (4.5, 9.0), (3.0, 5.0)]  # across the hill
    ref = Ground(table).line(ring, 0.02, closed=True)
    np.testing.assert_allclose(drape_line(table, ring, 0.02, closed=True), ref, rtol=0, atol=1e-9)


def test_fast_region_fill_covers_exactly_the_region_at_its_height(table):
    from sim.rules.planning import walk_region
    from sim.view.layers.ground import Ground
    from sim.view.layers.marks import areal
    from sim.view.layers.movement import ArrayMesh, fill_region, triangles

    for mid, raised in (("kenta", False), ("matsu", True)):  # matsu stands on the hill
        geom = areal(walk_region(table, mid))
        assert _area(triangles(geom)) == pytest.approx(geom.area, rel=1e-9)
        mesh = ArrayMesh("t")
        fill_region(mesh, table, Ground(table), geom, 0.01, (0, 1, 0, 0.5))
        v = mesh.corners()
        filled = _area(v[:, :, :2])
        assert filled == pytest.approx(geom.area, rel=1e-6)
        assert (v[:, :, 2].max() > 0.2) == raised
        assert mesh.node().get_num_geoms() == 1


def test_a_charge_that_falls_short_is_shown_illegal_and_not_committed(view_of):
    far = make_table([{"id": "a", "position": [3, 3], "facing": 45},
                      {"id": "b", "player": 2, "position": [20, 20], "facing": 225}])
    view = view_of(far, "a")
    view.key("3")
    _drag_model(view, "a", (20, 20))
    mv = view.move
    assert mv.result.legal and not mv.result.reached  # the checker: a legal move that stops short
    assert not mv.legal and "does not reach b" in view.status and "p.24" in view.status
    view.key("enter")
    assert view.table is far and "not moved:" in view.status


def test_a_refused_special_is_the_one_the_sandbox_then_plays(table, view_of):
    from sim.rules.special import MOVES

    view = view_of(table, "akira")
    view.key("s")
    view.key("s")  # refused twice: still the first move, not the next ones
    assert not view.special.active and view.status.count("Push (attack): akira vs masunagi") == 1
    view.key("b")
    view.key("s")
    assert view.special.pending and view.special.move == MOVES[0]
