"""The replay window (sim.view.play.replay_window.ReplayWindow), offscreen: the step keys,
buttons, slider and log clicks through the same methods the window's bindings call, and
the frames checked by their pixels.

The game: the default table, seed 0, one turn of greedy bots, saved; in it ``masunagi``
(player 2, blue) is killed by ``akira`` in a melee exchange (under the rules of version 2,
issue 13's cards in play; under version 1 it was ``asp``).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("panda3d.core")

from conftest import read_png, u8  # noqa: E402

from sim.rules import bots  # noqa: E402
from sim.rules.game import Game  # noqa: E402
from sim.table import load_table  # noqa: E402
from sim.view.play.replay import ReplayCursor  # noqa: E402

pytestmark = pytest.mark.render

SIZE = (1024, 768)
KILLED = "masunagi"


@pytest.fixture(scope="module")
def save(tmp_path_factory) -> Path:
    g = Game(load_table(), seed=0, length=("fixed", 1))
    bots.play(g, (bots.BOTS["greedy"](0), bots.BOTS["greedy"](1)))
    assert not g.state.models[KILLED].alive
    path = tmp_path_factory.mktemp("replay-window") / "game.json"
    g.save(path)
    return path


@pytest.fixture(scope="module")
def base():
    from sim.view.play.shell import get_base

    return get_base(offscreen=True, size=SIZE)


@pytest.fixture
def win(base, save):
    from sim.view.play.replay_window import ReplayWindow

    w = ReplayWindow(base, ReplayCursor.open(save))
    yield w
    w.destroy()


def shot(base, path):
    from sim.view.play.shell import screenshot

    return read_png(screenshot(base, path)).astype(int)


def near(img, colour, tol=40) -> np.ndarray:
    return (np.abs(img - np.array(colour)) <= tol).all(axis=-1)


def kill_index(cursor: ReplayCursor) -> int:
    """The event (1-based: the table after it) that removes the killed model."""
    return next(i + 1 for i, e in enumerate(cursor.events) if KILLED in (e.data.get("removed") or []))


def test_the_window_opens_at_the_end_and_the_step_keys_move_the_event(win):
    n = win.cursor.length
    assert win.step.index == n and win.step.kind == "game_over"
    win.key("home")
    assert win.cursor.at == win.step.index == 0
    win.key("arrow_right")
    win.key("right")
    assert win.step.index == 2
    win.key("page_down")
    assert win.step.index == 12 and round(float(win.slider["value"])) == 12
    win.key("page_up")
    win.key("arrow_left")
    assert win.step.index == 1
    win.key("page_up")  # stops at 0
    assert win.step.index == 0
    win.key("end")
    win.key("right")  # stops at the end
    assert win.step.index == n
    win.key("x")  # unknown keys do nothing
    assert win.step.index == n


def test_the_buttons_and_the_slider_move_the_event(win):
    n = win.cursor.length
    win.buttons["back"].commandFunc(None)
    assert win.step.index == n - 1
    win.buttons["page_back"].commandFunc(None)
    assert win.step.index == n - 11
    win.buttons["first"].commandFunc(None)
    assert win.step.index == 0
    win.buttons["page_forward"].commandFunc(None)
    win.buttons["forward"].commandFunc(None)
    assert win.step.index == 11
    win.slider["value"] = 40  # as a drag of the thumb sets it
    win.slider.commandFunc()
    assert win.step.index == win.cursor.at == 40
    win.buttons["last"].commandFunc(None)
    assert win.step.index == n


def test_a_bad_event_index_is_refused_and_the_table_stays(win):
    win.goto(5)
    for bad in (-1, win.cursor.length + 1, "3"):
        with pytest.raises(ValueError, match="event"):
            win.goto(bad)
    assert win.step.index == win.cursor.at == 5


def test_clicking_a_log_entry_goes_to_its_event(win):
    from sim.view.play.replay_window import HIGHLIGHT

    win.goto(0)
    k = kill_index(win.cursor)
    win.log_list.scrollTo(k)  # the row is made when it is scrolled into view
    row = win.log_list["items"][k]
    assert not isinstance(row, str) and row["text"].startswith(f"{k}. Allocations revealed")
    row.commandFunc(None)  # the click
    assert win.step.index == win.cursor.at == k
    assert tuple(row.component("text0").textNode.get_text_color()) == pytest.approx(HIGHLIGHT)
    assert win.step.text == win.cursor.events[k - 1].describe().strip()


def test_the_models_of_the_current_event_are_ringed(win, base, tmp_path):
    from sim.view.play.replay_window import GONE_RING, HIGHLIGHT

    k = kill_index(win.cursor)
    win.goto(k)
    assert win.highlighted == ["akira"] and win.gone == [KILLED]
    img = shot(base, tmp_path / "kill.png")
    where = win.cursor.step(k - 1).table.model(KILLED).position
    col, row = (int(round(v)) for v in win.to_pixels((*where, 0.3)))
    patch = img[row - 30:row + 30, col - 30:col + 30]
    assert near(patch, u8(GONE_RING[:3])).sum() > 20  # a red ring where the killed model stood
    akira = win.step.table.model("akira").position
    col, row = (int(round(v)) for v in win.to_pixels((*akira, 0.3)))
    assert near(img[row - 30:row + 30, col - 30:col + 30], u8(HIGHLIGHT[:3])).sum() > 20
    win.goto(0)  # before the first event nothing is named
    assert win.highlighted == [] and win.gone == []


def test_the_table_at_event_0_and_at_the_end_differ_where_the_killed_model_stood(win, base, tmp_path):
    from sim.view import style

    win.goto(0)
    a = shot(base, tmp_path / "start.png")
    where = win.step.table.model(KILLED).position
    col, row = (int(round(v)) for v in win.to_pixels((*where, 0.0)))
    win.goto(win.cursor.length)
    b = shot(base, tmp_path / "end.png")
    assert a.shape == b.shape == (SIZE[1], SIZE[0], 3) and not np.array_equal(a, b)
    assert all(np.hypot(m.position[0] - where[0], m.position[1] - where[1]) > 2.0 for m in win.step.table.models)
    blue = u8(style.PLAYER[2])
    assert near(a[row - 10:row + 10, col - 14:col + 14], blue).sum() > 30
    assert near(b[row - 10:row + 10, col - 14:col + 14], blue).sum() == 0
    # the status bar names the event: its pixels change with it
    x0, y0, x1, y1 = win.panel_pixels("status")
    assert not np.array_equal(a[y0:y1, x0:x1], b[y0:y1, x0:x1])


def test_play_steps_on_its_own_and_stops_at_the_end(win):
    from sim.view.play.replay_window import PLAY_SECONDS

    win.goto(win.cursor.length - 2)
    win.key("space")
    assert win.playing
    win.tick(PLAY_SECONDS / 2)
    assert win.step.index == win.cursor.length - 2
    win.tick(PLAY_SECONDS / 2 + 1e-6)
    win.tick(PLAY_SECONDS + 1e-6)
    assert win.step.index == win.cursor.length and not win.playing


def test_destroy_removes_the_nodes_widgets_task_and_bindings(base, save):
    from sim.view.play.replay_window import ReplayWindow

    kids = base.aspect2d.get_num_children()
    render_kids = base.render.get_num_children()
    w = ReplayWindow(base, ReplayCursor.open(save))
    assert base.task_mgr.has_task_named("bushido-replay-window") if hasattr(base.task_mgr, "has_task_named") \
        else base.task_mgr.getTasksNamed("bushido-replay-window")
    w.destroy()
    w.destroy()  # twice is harmless
    assert base.aspect2d.get_num_children() == kids and base.render.get_num_children() == render_kids
    assert not base.task_mgr.getTasksNamed("bushido-replay-window")
    assert not base.messenger.isAccepting("arrow_right", w)


def test_render_replay_png_writes_the_window_at_event_n(save, tmp_path):
    from sim.view.play.replay_window import render_replay_png

    cur = ReplayCursor.open(save)
    out = render_replay_png(cur, tmp_path / "r.png", at=3, size=SIZE)
    assert cur.at == 3 and read_png(out).shape == (SIZE[1], SIZE[0], 3)
    with pytest.raises(ValueError, match="out of range"):
        render_replay_png(cur, tmp_path / "bad.png", at=10 ** 6, size=SIZE)
    assert not (tmp_path / "bad.png").exists()


def test_the_legend_explains_the_markers_only_when_they_are_drawn():
    from sim.view.layers.legend import build_legend

    def texts(root) -> list[str]:
        return [n.node().get_text() for n in root.find_all_matches("**/+TextNode")]

    table = load_table()
    plain = texts(build_legend(table, 1280, 960))
    shown = texts(build_legend(table, 1280, 960, markers=True))
    assert "Markers" not in plain and "Markers" in shown
    added = [t for t in shown if t not in plain]
    assert any("condition token" in t for t in added) and any("wounds" in t for t in added)
    assert any("Ki" in t for t in added) and any("activation counter" in t for t in added)
