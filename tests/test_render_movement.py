"""Movement in the 3D view: the walk/run/charge overlays (headless pixel tests) and the
drag logic of the window (``sim.view.drag``, no Panda3D needed).

Renders are 640x480 with the software renderer; pixels are found with the view's own
projector (``render_png(..., return_projector=True)``) and classified by the nearest
colour of a small palette (lighting and blending change shades, so exact values are
never compared).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from sim.table import load_table
from sim.view import drag, style
from sim.view.drag import DragState, move_model, readout

W, H = 640, 480


@pytest.fixture(scope="module")
def table():
    return load_table()


# ------------------------------------------------------------------ readout
def test_readout_legal_short_walk(table):
    text, legal, path = readout(table, "kenta", (21.5, 12.0))
    assert legal
    assert text == 'Walk 2.00" of 4" — legal'
    assert path[0] == pytest.approx(table.model("kenta").position)
    assert path[-1] == pytest.approx((21.5, 12.0))


def test_readout_illegal_walk_into_enemy_zoc(table):
    # ton (Move 3) towards the front of masunagi: its base would enter masunagi's ZoC
    text, legal, path = readout(table, "ton", (14.5, 11.5))
    assert not legal
    assert text.startswith('Walk ') and ' of 3" — illegal: ' in text
    assert "masunagi" in text and "zone of control" in text
    assert path[0] == pytest.approx(table.model("ton").position)


def test_readout_without_planner_uses_the_straight_walk(table, monkeypatch):
    monkeypatch.setattr(drag, "_planning", lambda: None)
    text, legal, path = readout(table, "ton", (14.5, 11.5))
    assert not legal
    assert text.endswith("— illegal: the base would enter masunagi's zone of control")
    assert path == (table.model("ton").position, (14.5, 11.5))
    text, legal, path = readout(table, "kenta", (21.5, 12.0))
    assert legal and text == 'Walk 2.00" of 4" — legal' and len(path) == 2


def test_readout_counts_difficult_terrain_and_ideal_allowance(table):
    # across the paved road (Ideal): the allowance grows to Move + 2
    text, legal, _ = readout(table, "kenta", (18.2, 9.0))
    assert legal and ' of 6" — legal' in text


def test_drag_state_commit_moves_the_model(table):
    st = DragState(table)
    assert not st.active and st.commit() is None
    st.begin("kenta")
    assert st.active and st.start == pytest.approx((21.5, 10.0))
    assert st.hover((21.5, 11.0))
    assert not st.hover((21.5, 11.0 + drag.MIN_STEP / 2))  # too small a step: not judged again
    st.pin((21.5, 12.0))
    assert st.pinned and st.legal and st.text.endswith("— legal")
    assert not st.hover((20.0, 10.0))  # pinned: the cursor no longer moves it
    new = st.commit()
    assert new is not None and not st.active
    assert new.model("kenta").position == pytest.approx((21.5, 12.0))
    assert new.model("kenta").facing == table.model("kenta").facing
    # the old table is untouched, and each table measures its own positions
    assert table.model("kenta").position == (21.5, 10.0)
    assert new.scene().bodies["kenta"].center == pytest.approx((21.5, 12.0))
    assert table.scene().bodies["kenta"].center == pytest.approx((21.5, 10.0))
    assert [m.id for m in new.models] == [m.id for m in table.models]
    assert all(a is b for a, b in zip(new.models, table.models) if a.id != "kenta")


def test_drag_state_illegal_move_is_not_committed(table):
    st = DragState(table)
    st.begin("ton")
    st.pin((14.5, 11.5))
    assert not st.legal and "masunagi" in st.text
    assert st.commit() is None and st.active  # kept: the player can try elsewhere
    forced = st.commit(force=True)
    assert forced.model("ton").position == pytest.approx((14.5, 11.5))
    st.begin("ton")
    st.cancel()
    assert not st.active and st.text == "" and st.path == ()


def test_move_model_sets_facing_and_rejects_unknown(table):
    t2 = move_model(table, "akira", (10, 10), facing=450)
    assert t2.model("akira").position == (10.0, 10.0) and t2.model("akira").facing == 90.0
    with pytest.raises(KeyError):
        move_model(table, "nobody", (1, 1))


def test_straight_region_stand_in(table):
    """The region used until (or if) ``sim.rules.planning`` is missing."""
    region = drag.straight_region(table, "kenta", "walk", directions=48)
    assert region.contains(_pt(21.5, 12.0))       # 2" straight ahead: legal
    assert not region.contains(_pt(21.4, 13.8))   # in yatsumata's ZoC
    assert not region.contains(_pt(21.5, 15.0))   # beyond yatsumata's ZoC
    assert region.area > 10


def _pt(x, y):
    from shapely.geometry import Point

    return Point(x, y)


def test_charge_lanes_reach_yatsumata(table):
    lanes = {ln.target: ln for ln in drag.charge_lanes(table, "kenta")}
    assert lanes["yatsumata"].reached
    assert any(not ln.reached for ln in lanes.values())


# ------------------------------------------------------------------ render
try:
    import panda3d.core  # noqa: F401

    HAVE_PANDA = True
except ImportError:  # pragma: no cover - depends on the machine
    HAVE_PANDA = False

render = pytest.mark.skipif(not HAVE_PANDA, reason="panda3d is not installed")


from conftest import read_png  # noqa: E402
from conftest import u8 as _u8  # noqa: E402


def _classes() -> dict[str, list]:
    under = [style.TABLE, style.GRID_MINOR, style.GRID_MAJOR]
    return {
        "table": under,
        "walk": [style.blend(style.WALK, u, style.WALK_ALPHA) for u in under] + [style.WALK_EDGE],
        "run": [style.blend(style.RUN, u, style.RUN_ALPHA) for u in under] + [style.RUN_EDGE],
        "charge": [style.CHARGE],
        "charge_short": [style.CHARGE_SHORT],
        "los_clear": [style.LOS_CLEAR],
        "los_cover": [style.LOS_COVER],
        "los_none": [style.LOS_NONE],
        "ghost_ok": [style.blend(style.MOVE_OK, u, style.GHOST_ALPHA) for u in under] + [style.MOVE_OK],
        "ghost_bad": [style.blend(style.WARNING, u, style.GHOST_ALPHA) for u in under] + [style.WARNING],
        "dark": [style.CHARGE_BORDER],
    }


_CL = _classes()
_NAMES = [k for k, v in _CL.items() for _ in v]
_COLOURS = np.array([_u8(c) for v in _CL.values() for c in v], float)


def classify(pixels) -> list[str]:
    d = np.linalg.norm(np.asarray(pixels, float).reshape(-1, 1, 3) - _COLOURS[None], axis=2)
    return [_NAMES[i] for i in d.argmin(axis=1)]


def share(img, xy, name, r=1) -> float:
    x, y = int(round(xy[0])), int(round(xy[1]))
    labels = classify(img[y - r:y + r + 1, x - r:x + r + 1].reshape(-1, 3))
    return labels.count(name) / len(labels)


@pytest.fixture(scope="module")
def renders(table, tmp_path_factory):
    """{name: (image, projector)}: kenta selected, with and without overlays."""
    from sim.view import render_png

    out = tmp_path_factory.mktemp("movement")
    result = {}
    for name, kw in (("plain", {}),
                     ("overlays", {"overlays": ("walk", "run", "charges")}),
                     ("move_ok", {"move_to": (17.8, 11.0)}),
                     ("move_bad", {"move_to": (21.4, 13.8)})):
        path, project = render_png(table, out / f"{name}.png", selected="kenta", width=W, height=H, camera="top",
                                   return_projector=True, **kw)
        result[name] = (read_png(path), project)
    return result


def _walk_samples(table, n=24):
    """Points of kenta's walk region away from its front-arc disc (3"), terrain and
    other models, where the green fill lies straight on the table."""
    region = drag.walk_region(table, "kenta")
    k = table.model("kenta").position
    pts = []
    for a in np.linspace(0, 2 * math.pi, 72, endpoint=False):
        for d in (3.3, 3.6):
            p = (k[0] + d * math.cos(a), k[1] + d * math.sin(a))
            q = _pt(*p)
            if not region.buffer(-0.25).contains(q):
                continue
            if any(t.footprint.distance_to_point(p) < 0.4 for t in table.terrain):
                continue
            if any(math.dist(p, m.position) < m.radius + 0.4 for m in table.models):
                continue
            pts.append((p[0], p[1], 0.0))
    assert len(pts) >= 8, "too few sample points in kenta's walk region"
    return pts


@render
def test_walk_region_is_green_near_the_model(renders, table):
    img, project = renders["overlays"]
    plain, _ = renders["plain"]
    pts = project(_walk_samples(table))
    green = [share(img, p, "walk") >= 0.5 for p in pts]
    assert sum(green) >= 0.8 * len(green), classify([img[int(round(p[1])), int(round(p[0]))] for p in pts])
    assert not any(share(plain, p, "walk") >= 0.5 for p in pts)


@render
def test_charge_lane_is_orange(renders, table):
    from sim.view.scene3d import LANE_Z

    img, project = renders["overlays"]
    plain, _ = renders["plain"]
    lane = next(ln for ln in drag.charge_lanes(table, "kenta") if ln.target == "yatsumata")
    a, b = lane.path[0], lane.path[-1]
    # along the lane, past kenta's base and before the arrowhead and the end ring
    pts = [(a[0] + (b[0] - a[0]) * f, a[1] + (b[1] - a[1]) * f, LANE_Z) for f in np.linspace(0.3, 0.6, 6)]
    px = project(pts)
    hits = [share(img, p, "charge", 0) == 1.0 for p in px]
    assert sum(hits) >= 5, [classify([img[int(round(p[1])), int(round(p[0]))]]) for p in px]
    assert not any(share(plain, p, "charge", 0) for p in px)


@render
def test_overlays_need_the_selection_and_known_names(table, tmp_path):
    from sim.view import render_png

    with pytest.raises(ValueError):
        render_png(table, tmp_path / "x.png", selected="kenta", overlays=("fly",), width=W, height=H)
    with pytest.raises(ValueError):
        render_png(table, tmp_path / "x.png", move_to=(1, 1), width=W, height=H)


@render
def test_drag_ghost_colour(renders, table):
    """The ghost base of a dragged move: white when legal, warning red when not."""
    r = table.model("kenta").radius
    plain, _ = renders["plain"]
    # both destinations lie outside kenta's (Aware, whitish) front-arc disc
    for name, dest, good, bad in (("move_ok", (17.8, 11.0), "ghost_ok", "ghost_bad"),
                                  ("move_bad", (21.4, 13.8), "ghost_bad", "ghost_ok")):
        img, project = renders[name]
        # the ghost's top (LoS lines may cross it: count over the whole top)
        top = [(dest[0] + f * r * math.cos(a), dest[1] + f * r * math.sin(a), style.BASE_HEIGHT)
               for f in (0.2, 0.45, 0.7) for a in np.linspace(0, 2 * math.pi, 12, endpoint=False)]
        px = project(top)
        seen = classify([img[int(round(p[1])), int(round(p[0]))] for p in px])
        before = classify([plain[int(round(p[1])), int(round(p[0]))] for p in px])
        assert seen.count(good) >= 0.5 * len(seen), (name, seen)
        assert seen.count(bad) == 0, (name, seen)
        assert before.count(good) <= 0.1 * len(before), (name, before)


@render
def test_scene_toggles_overlays(table):
    from sim.view.scene3d import TableScene

    scene = TableScene(table, "kenta", labels=False)
    assert scene.movement == ()
    assert scene._movement.get_num_children() == 0
    scene.set_movement_overlays(walk=True, charges=True)
    assert scene.movement == ("walk", "charges")
    assert scene._movement.get_num_children() >= 2
    scene.select("akira")  # the overlays follow the selection
    assert scene.movement == ("walk", "charges") and scene._movement.get_num_children() >= 1
    scene.select(None)
    assert scene._movement.get_num_children() == 0
    scene.set_movement_overlays()
    scene.select("kenta")
    assert scene._movement.get_num_children() == 0
    scene.set_move_preview("kenta", (20.0, 12.5), [(21.5, 10.0), (20.0, 12.5)], True, "Walk")
    assert scene._preview.get_num_children() >= 2
    scene.set_move_preview(None)
    assert scene._preview.get_num_children() == 0


def test_drag_state_model_without_move(table):
    import dataclasses

    t2 = dataclasses.replace(table, models=tuple(dataclasses.replace(m, move=None) if m.id == "kenta" else m
                                                 for m in table.models), _scene=[])
    st = DragState(t2)
    st.begin("kenta")
    assert st.hover((21.5, 11.0))
    assert not st.legal and st.text.startswith("cannot Walk") and st.commit() is None
