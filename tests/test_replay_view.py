"""Replay of a saved game on the table: ``sim.view.play.replay.ReplayCursor`` (pure) and
``main.py view GAME.json [--at N] [--screenshot out.png]`` (headless PNG with markers
and a top-left line naming the event).

The game: the default table, seed 0, one turn of greedy bots, saved; in it ``asp``
(player 2, blue) is killed and several models move.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from sim.cli.main import main
from sim.rules import bots
from sim.rules.game import Game, GameError
from sim.table import load_table
from sim.view.play.replay import ReplayCursor, event_page
from sim.view.play.state import model_markers

ROOT = Path(__file__).resolve().parents[1]
KILLED = "masunagi"  # killed in the seeded greedy game of the fixture (rules version 2)


@pytest.fixture(scope="module")
def save(tmp_path_factory) -> Path:
    g = Game(load_table(), seed=0, length=("fixed", 1))
    bots.play(g, (bots.BOTS["greedy"](0), bots.BOTS["greedy"](1)))
    assert not g.state.models[KILLED].alive
    path = tmp_path_factory.mktemp("replay") / "game.json"
    g.save(path)
    return path


@pytest.fixture(scope="module")
def cursor(save) -> ReplayCursor:
    return ReplayCursor.open(save)


# ------------------------------------------------------------------ the cursor
def test_cursor_opens_at_the_end_with_the_final_table_and_markers(cursor, save):
    g = Game.load(save)
    assert g.verified and cursor.length == len(g.events) and cursor.at == cursor.length
    end = cursor.current()
    now = g.table_now()
    assert [m.id for m in end.table.models] == [m.id for m in now.models]
    assert all(a.position == b.position and a.facing == b.facing for a, b in zip(end.table.models, now.models))
    assert KILLED not in [m.id for m in end.table.models]
    assert end.markers == model_markers(g)
    assert end.text == g.log()[-1].strip() and end.kind == "game_over"


def test_event_zero_is_the_table_as_deployed(cursor):
    first = cursor.go(0)
    table = load_table()
    assert [(m.id, m.position) for m in first.table.models] == [(m.id, m.position) for m in table.models]
    assert first.kind is None and first.turn == 0 and "before the first event" in first.text
    assert first.caption.startswith(f"Event 0/{cursor.length} (before the first turn)")


def test_stepping_forward_and_back_gives_the_state_after_each_event(cursor, save):
    g = Game.load(save)
    log = g.log()
    cursor.go(5)
    for n in (6, 7, 8):
        step = cursor.forward()
        assert step.index == n == cursor.at
        assert step.text == log[n - 1].strip()
        built = Game(g.table, seed=g.seed, length=g.length, events=g.events[:n])
        assert step.markers == model_markers(built)
    assert cursor.back(3).index == 5
    assert cursor.back(100).index == 0 and cursor.forward(10 ** 6).index == cursor.length
    assert cursor.step(7) is cursor.step(7)  # cached


def test_a_move_event_moves_the_model_on_the_replayed_table(cursor):
    k = next(i for i, e in enumerate(cursor.events) if e.kind == "move")
    ev = cursor.events[k]
    before, after = cursor.step(k), cursor.step(k + 1)
    mid = ev.data["model"]
    assert after.table.model(mid).position == pytest.approx(tuple(ev.data["to"]))
    assert before.table.model(mid).position != after.table.model(mid).position or ev.data["cost"] == 0
    assert after.kind == "move" and after.page == event_page(ev) == "p.22-25"
    assert "[p.22-25]" in after.caption


@pytest.mark.parametrize("bad", [-1, 10 ** 6, "3", 2.0, True])
def test_a_bad_event_index_is_refused_and_the_cursor_stays(cursor, bad):
    cursor.go(3)
    with pytest.raises(ValueError, match="event"):
        cursor.go(bad)
    assert cursor.at == 3


def test_a_tampered_save_is_refused_in_one_line(save, tmp_path):
    doc = json.loads(save.read_text())
    k = next(i for i, e in enumerate(doc["events"]) if e["kind"] == "move")
    doc["events"][k]["to"] = [1.0, 1.0]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc))
    with pytest.raises(GameError, match=rf"events\[{k}\]") as exc:
        ReplayCursor.open(bad)
    assert "\n" not in str(exc.value)


# ------------------------------------------------------------------ the CLI
def test_view_refuses_a_bad_event_index_in_one_line(save, tmp_path, capsys):
    out = tmp_path / "x.png"
    assert main(["view", str(save), "--at", "100000", "--screenshot", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "out of range" in err and str(save) in err
    assert not out.exists()
    assert main(["view", "data/tables/default.yaml", "--at", "3", "--screenshot", str(out)]) == 2
    assert "--at N is for a saved game" in capsys.readouterr().err


def test_view_bad_index_from_the_command_line_has_no_traceback(save, tmp_path):
    run = subprocess.run([sys.executable, "main.py", "view", str(save), "--at", "-2", "--screenshot",
                          str(tmp_path / "x.png")], cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 2 and "Traceback" not in run.stderr and run.stderr.count("\n") == 1


@pytest.mark.render
def test_view_of_a_save_renders_the_table_after_event_n(save, tmp_path, capsys):
    pytest.importorskip("panda3d.core")
    from conftest import read_png, u8

    from sim.view import project_points, style

    start, end = tmp_path / "at0.png", tmp_path / "end.png"
    assert main(["view", str(save), "--at", "0", "--screenshot", str(start)]) == 0
    said = capsys.readouterr().out
    assert f"Wrote {start}" in said and "Event 0/" in said
    assert main(["view", str(save), "--screenshot", str(end)]) == 0
    said = capsys.readouterr().out
    assert "Game over" in said and f"  {KILLED}: killed" in said
    a, b = read_png(start), read_png(end)
    assert a.shape == b.shape == (960, 1280, 3) and not np.array_equal(a, b)
    # the killed model's blue is gone where it stood (nobody took its place)
    table = load_table()
    xy = table.model(KILLED).position
    cur = ReplayCursor.open(save)
    assert all(np.hypot(m.position[0] - xy[0], m.position[1] - xy[1]) > 2.0 for m in cur.current().table.models)
    col, row = project_points(table, [(xy[0], xy[1], 0.0)])[0]
    c, r = int(round(col)), int(round(row))

    def blue(img) -> int:
        px = img[r - 12:r + 12, c - 18:c + 18].astype(int)
        return int((np.abs(px - np.array(u8(style.PLAYER[2]))).max(axis=-1) <= 40).sum())

    assert blue(a) > 80 and blue(b) == 0
    # the top-left line names the event: the caption's card is drawn in both, with other text
    assert not np.array_equal(a[0:40, 0:400], b[0:40, 0:400])


def test_view_of_a_broken_save_is_one_line(tmp_path, capsys):
    p = tmp_path / "bad.json"
    p.write_bytes(b'{"format": "bushido-game/1", "table": {}, "events": []}')
    assert main(["view", str(p), "--screenshot", str(tmp_path / "x.png")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"error: {p}")
