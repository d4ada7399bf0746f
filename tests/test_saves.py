"""Saves verified on load (issue #10): ``Game.load`` re-simulates the saved actions with
the seed or the recorded dice and refuses a file whose events, rolls or result differ;
malformed saves are one-line errors; old saves (``tests/data/saves``, written before the
verification) still load; writing a file never destroys what was there."""

from __future__ import annotations

import json
import os
import random
import stat
from pathlib import Path

import pytest

from sim.cli.main import main
from sim.files import write_text_atomic
from sim.rules.bots import GreedyBot, RandomBot, play
from sim.rules.dice import PhysicalDice
from sim.rules.game import Action, Game, GameError
from sim.table import DEFAULT_TABLE, load_table

ROOT = Path(__file__).resolve().parents[1]
SAVES = ROOT / "tests" / "data" / "saves"
TABLE = load_table()
VERIFIED_FIXTURES = ["greedy_shrines_seed5.json", "random_seed5.json", "undo_seed8.json",
                     "vims_marked_for_death.json", "loaded_and_continued_seed4.json"]


@pytest.fixture(scope="module")
def saved_doc(tmp_path_factory) -> dict:
    """A short seeded game (greedy against random, to the end) as its save document."""
    g = play(Game(TABLE, seed=6, length=("fixed", 1)), (GreedyBot(1), RandomBot(2)))
    path = tmp_path_factory.mktemp("saves") / "game.json"
    g.save(path)
    return json.loads(path.read_text())


def write(tmp_path: Path, doc: dict, name: str = "g.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return path


def refused(path: Path, match: str) -> str:
    """Game.load(path) raises one line naming the file and matching ``match``."""
    with pytest.raises(GameError, match=match) as err:
        Game.load(path)
    msg = str(err.value)
    assert "\n" not in msg and msg.startswith(str(path))
    return msg


# ------------------------------------------------------------- old saves still load
@pytest.mark.parametrize("name", VERIFIED_FIXTURES)
def test_old_fixture_saves_of_older_rules_say_why_and_load_unverified(name, tmp_path):
    """The fixtures were written under rules version 1 (no ``rules`` key). The rules of
    version 2 (issue 13: every trait and Ki feat in play) play those games differently, so
    a verified load is refused in one line that names the versions and the way to open it;
    loaded unverified, the game is the one that was played."""
    msg = refused(SAVES / name, r"rules of version 1; this engine plays version \d+")
    assert "--unverified" in msg
    g = Game.load(SAVES / name, verify=False)
    assert not g.verified and g.events and g.log()
    assert g.snapshot() == Game.load(SAVES / name, verify=False).snapshot()


def test_a_save_records_its_rules_version_and_a_newer_one_is_refused(saved_doc, tmp_path):
    from sim.rules.game.saves import RULES_VERSION

    assert saved_doc["rules"] == RULES_VERSION
    assert Game.load(write(tmp_path, saved_doc)).verified
    newer = dict(saved_doc, rules=RULES_VERSION + 1)
    refused(write(tmp_path, newer, "newer.json"), r"rules: written under the rules of version \d+, newer than")
    refused(write(tmp_path, dict(saved_doc, rules="two"), "bad.json"), r"rules: expected a rules version")


def test_old_physical_dice_save_is_refused_unless_loaded_unverified():
    path = SAVES / "hotseat_physical.json"  # no dice values: it cannot be re-simulated
    msg = refused(path, r"events\[4\]: ")
    assert "--unverified" in msg
    g = Game.load(path, verify=False)
    assert not g.verified and g.state.exchange is not None


def test_replay_cli_reports_the_verified_resimulation(tmp_path, capsys):
    g = Game(TABLE, seed=8, length=("fixed", 2))
    rng = random.Random(8)
    while not g.is_over() and len(g.actions) < 40:
        g.push(rng.choice(g.legal_actions()))
    path = tmp_path / "undo_seed8.json"
    g.save(path)
    assert main(["replay", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"Verified {path}: {len(g.actions)} actions re-simulated with seed 8 reproduce all "
                          f"{len(g.events)} saved events")
    assert main(["replay", "--unverified", str(SAVES / "hotseat_physical.json")]) == 0
    assert capsys.readouterr().out.startswith("NOT verified")


# ------------------------------------------------------------- tampered saves
def test_tampered_position_100_100_is_refused(saved_doc, tmp_path):
    doc = json.loads(json.dumps(saved_doc))
    i, ev = next((i, e) for i, e in enumerate(doc["events"]) if e["kind"] == "move")
    ev["to"] = [100, 100]
    msg = refused(write(tmp_path, doc), rf"events\[{i}\]: move event: 'to' is \[100, 100\] in the file, \[")
    assert "when re-simulated (from actions[" in msg


def test_replay_cli_of_a_tampered_save_is_status_2_with_one_line(saved_doc, tmp_path, capsys):
    doc = json.loads(json.dumps(saved_doc))
    next(e for e in doc["events"] if e["kind"] == "move")["to"] = [100, 100]
    assert main(["replay", str(write(tmp_path, doc))]) == 2
    cap = capsys.readouterr()
    assert cap.out == "" and cap.err.count("\n") == 1 and "'to' is [100, 100] in the file" in cap.err


def test_rewritten_result_is_refused(saved_doc, tmp_path):
    doc = json.loads(json.dumps(saved_doc))
    i = max(k for k, e in enumerate(doc["events"]) if e["kind"] == "game_over")
    doc["events"][i]["result"] = "player 2 wins with more models left (9-0)"
    refused(write(tmp_path, doc), rf"events\[{i}\]: game_over event: 'result' is \"player 2 wins")


def test_an_added_event_is_refused(saved_doc, tmp_path):
    doc = json.loads(json.dumps(saved_doc))
    doc["events"].append({"kind": "wound", "model": "akira", "n": 3})
    refused(write(tmp_path, doc), r"events: the file has \d+ events, the re-simulation \d+")


def test_a_rewritten_action_is_refused(saved_doc, tmp_path):
    """A walk moved to (100, 100) in the action and its event: the re-simulation finds
    the move illegal (reverted, one counter lost) and the events differ."""
    doc = json.loads(json.dumps(saved_doc))
    k = next(k for k, a in enumerate(doc["actions"]) if a["kind"] in ("walk", "run"))
    doc["actions"][k]["point"] = [100, 100]
    refused(write(tmp_path, doc), rf"from actions\[{k}\]")


def test_rewritten_dice_are_refused(saved_doc, tmp_path):
    doc = json.loads(json.dumps(saved_doc))
    k = next(k for k, r in enumerate(doc["rolls"]) if r)
    doc["rolls"][k][0] = 7 - doc["rolls"][k][0] if doc["rolls"][k][0] != 7 - doc["rolls"][k][0] else 1
    refused(write(tmp_path, doc), rf"rolls\[{k}\]: .* rolled \[")
    doc = json.loads(json.dumps(saved_doc))
    doc["dice_state"][1][0] += 1
    refused(write(tmp_path, doc), r"dice_state: differs from where the re-simulated dice stand")


def test_unknown_action_key_is_refused(saved_doc, tmp_path):
    doc = json.loads(json.dumps(saved_doc))
    doc["actions"][0]["teleport"] = True
    refused(write(tmp_path, doc), r"actions\[0\]: unknown key 'teleport'")
    doc = json.loads(json.dumps(saved_doc))
    doc["cheat"] = 1
    refused(write(tmp_path, doc), r"'cheat': unknown key")


@pytest.mark.parametrize("length", [["fixed"], [], "fixed", ["fixed", "two"], ["sudden", 2], ["fixed", 0], 5])
def test_short_or_malformed_length_is_refused(saved_doc, tmp_path, length):
    doc = json.loads(json.dumps(saved_doc))
    doc["length"] = length
    refused(write(tmp_path, doc), r": length: expected \[")


@pytest.mark.parametrize("where, value, match", [
    ("point", "here", r"actions\[\d+\]: point: expected \[x, y\]"),
    ("point", [1, 2, 3], r"point: expected \[x, y\]"),
    ("facing", float("nan"), r"facing: expected a finite number, got NaN"),
    ("facing", float("inf"), r"facing: expected a finite number"),
    ("model", 7, r"model: expected a string, got 7"),
    ("boost", 1.5, r"boost: expected a whole number"),
    ("path", [[1, "x"]], r"path: expected a list of \[x, y\] points"),
])
def test_malformed_action_field_is_refused(saved_doc, where, value, match):
    doc = json.loads(json.dumps(saved_doc))
    k = next(k for k, a in enumerate(doc["actions"]) if a["kind"] != "pass")
    doc["actions"][k][where] = value
    with pytest.raises(GameError, match=match) as err:  # the document (NaN cannot pass the JSON reader)
        Game.from_save(doc, "g.json")
    assert str(err.value).startswith("g.json: actions[") and "\n" not in str(err.value)


def test_nan_facing_in_a_save_file_is_refused_in_one_line(saved_doc, tmp_path):
    doc = json.loads(json.dumps(saved_doc))
    next(a for a in doc["actions"] if a["kind"] != "pass")["facing"] = float("nan")
    refused(write(tmp_path, doc), "NaN")


@pytest.mark.parametrize("mutate, match", [
    (lambda d: d["events"].__setitem__(0, 5), r"events\[0\]: an event is an object with a string 'kind'"),
    (lambda d: d["events"][0].pop("kind"), r"events\[0\]: an event is an object"),
    (lambda d: d["actions"].__setitem__(0, "walk"), r"actions\[0\]: an action is an object"),
    (lambda d: d.__setitem__("actions", {}), r"actions: expected a list"),
    (lambda d: d.pop("events"), r"events: missing"),
    (lambda d: d.__setitem__("seed", "x"), r"seed: expected a whole number"),
    (lambda d: d.__setitem__("dice", "loaded"), r"dice: expected \"seeded\" or \"physical\""),
    (lambda d: d.__setitem__("rolls", [[9]]), r"rolls: expected lists of die values 1..6"),
    (lambda d: d.__setitem__("rolls", d["rolls"][:-1]), r"rolls: \d+ lists for \d+ actions"),
    (lambda d: d.__setitem__("table", []), r"table: expected an object"),
])
def test_malformed_save_fields_are_one_line_errors(saved_doc, tmp_path, mutate, match):
    doc = json.loads(json.dumps(saved_doc))
    mutate(doc)
    refused(write(tmp_path, doc), match)


# ------------------------------------------------------------- physical dice
def test_physical_dice_save_carries_the_rolls_and_verifies_with_take_backs(tmp_path):
    rng = random.Random(4)
    g = Game(TABLE, dice=PhysicalDice([rng.randint(1, 6) for _ in range(3000)]), length=("fixed", 1))
    bots = (RandomBot(1), RandomBot(2))
    n = 0
    while not g.is_over():
        g.push(bots[g.to_move() - 1].choose(g))
        n += 1
        if n % 4 == 0 and not g.is_over():
            g.pop()  # physical dice are not rewound: the next action rolls new values
    g.save(tmp_path / "phys.json")
    doc = json.loads((tmp_path / "phys.json").read_text())
    assert doc["dice"] == "physical" and "dice_state" not in doc
    h = Game.load(tmp_path / "phys.json")
    assert h.verified and not h.seeded and h.snapshot() == g.snapshot()
    k = next(k for k, r in enumerate(doc["rolls"]) if len(r) >= 2)
    doc["rolls"][k][0], doc["rolls"][k][1] = doc["rolls"][k][1], 7 - doc["rolls"][k][1]
    with pytest.raises(GameError):
        Game.from_save(doc, "phys.json")


def test_a_save_of_a_game_whose_dice_were_replaced_is_verified_with_the_recorded_values(tmp_path):
    g = Game(TABLE, seed=2, length=("fixed", 1))
    g.dice = PhysicalDice([6, 5, 4, 3, 2, 1] * 200)  # as hotseat --load --dice physical does
    play(g, (GreedyBot(1), GreedyBot(2)))
    g.save(tmp_path / "g.json")
    h = Game.load(tmp_path / "g.json")
    assert h.verified and not h.seeded and h.snapshot() == g.snapshot()


# ------------------------------------------------------------- writing files
def test_symlink_is_kept_and_its_target_written(tmp_path):
    target = tmp_path / "real.json"
    target.write_text("old")
    link = tmp_path / "link.json"
    link.symlink_to(target)
    write_text_atomic(link, "new")
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_text() == "new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.json", "real.json"]


def test_mode_of_an_existing_file_is_kept(tmp_path):
    path = tmp_path / "g.json"
    path.write_text("old")
    path.chmod(0o640)
    Game(TABLE, seed=1, length=("fixed", 1)).save(path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o640 and json.loads(path.read_text())["seed"] == 1


def test_new_file_gets_the_umask_mode_not_0600(tmp_path):
    old = os.umask(0o022)
    try:
        write_text_atomic(tmp_path / "new.txt", "x")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "new.txt").stat().st_mode) == 0o644


@pytest.mark.parametrize("fail_at", ["fsync", "replace", "interrupt"])
def test_temp_files_cleaned_after_a_failed_write(tmp_path, monkeypatch, fail_at):
    import sim.files as files

    path = tmp_path / "g.json"
    path.write_text("precious")

    def boom(*_a, **_k):
        raise KeyboardInterrupt if fail_at == "interrupt" else OSError("disk full")

    monkeypatch.setattr(files.os, "replace" if fail_at == "replace" else "fsync", boom)
    with pytest.raises((OSError, KeyboardInterrupt)):
        write_text_atomic(path, "new text")
    assert path.read_text() == "precious"
    assert [p.name for p in tmp_path.iterdir()] == ["g.json"]


def test_writing_into_a_folder_path_fails_cleanly(tmp_path):
    (tmp_path / "d").mkdir()
    with pytest.raises(OSError):
        write_text_atomic(tmp_path / "d", "x")
    assert [p.name for p in tmp_path.iterdir()] == ["d"]


def test_save_to_a_missing_dir_refused_before_play(tmp_path, monkeypatch, capsys):
    import sim.rules.bots as bots

    def no_play(*_a, **_k):
        raise AssertionError("the game was played before the save path was checked")

    monkeypatch.setattr(bots, "play", no_play)
    target = tmp_path / "missing" / "dir" / "g.json"
    assert main(["play", str(DEFAULT_TABLE), "--save", str(target)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "does not exist" in err and str(target) in err
    assert not (tmp_path / "missing").exists()


def test_play_save_does_not_clobber_a_file_that_is_not_a_save(tmp_path, monkeypatch, capsys):
    import sim.rules.bots as bots

    monkeypatch.setattr(bots, "play", lambda *_a, **_k: pytest.fail("played"))
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes")
    assert main(["play", str(DEFAULT_TABLE), "--save", str(notes)]) == 2
    assert "is not a bushido-game/1 save; not overwritten" in capsys.readouterr().err
    assert notes.read_text() == "my notes"


def test_hotseat_save_path_checked_before_the_game(tmp_path, monkeypatch, capsys):
    import io
    import sys

    monkeypatch.setattr(sys, "stdin", io.StringIO("quit\n"))
    assert main(["hotseat", "--save", str(tmp_path / "nowhere" / "hs.json")]) == 2
    cap = capsys.readouterr()
    assert "does not exist" in cap.err and "Hot-seat game" not in cap.out


def test_nan_is_never_written_into_a_save(tmp_path):
    g = Game(TABLE, seed=1, length=("fixed", 1))
    with pytest.raises(GameError, match="facing must be a finite number"):
        g.push(Action("walk", "matsu", point=(4.5, 8.0), facing=float("nan")))
    g.save(tmp_path / "g.json")
    assert "NaN" not in (tmp_path / "g.json").read_text()
