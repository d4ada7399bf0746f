"""Command line and hot-seat input (issue #10): NaN and infinities refused everywhere
(argparse status 2 in one line, GameError through the API), ``special`` judged by the
rules (``--sandbox`` to play it anyway), output files checked before the work, and a huge
number typed at the hot-seat prompt is an input error, not the end of the session."""

from __future__ import annotations

import io
import sys

import pytest

from sim.cli.hotseat import PromptDice, parse_dice, run_hotseat
from sim.cli.main import main
from sim.rules.dice import DiceError
from sim.rules.game import Action, Game, GameError
from sim.table import DEFAULT_TABLE, load_table, parse_table

TABLE = load_table()
T = str(DEFAULT_TABLE)
HUGE = "1" * 5000  # Python's int() refuses more than 4300 digits with a ValueError


def status_and_err(argv, capsys) -> tuple[int, str, str]:
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse
        code = exc.code
    cap = capsys.readouterr()
    return code, cap.out, cap.err


# ------------------------------------------------------------------ NaN and infinity
@pytest.mark.parametrize("argv, arg", [
    (["move", T, "matsu", "walk", "4.5", "9", "--facing", "nan"], "--facing"),
    (["move", T, "matsu", "walk", "4.5", "9", "--facing", "inf"], "--facing"),
    (["move", T, "matsu", "walk", "nan", "9"], "argument x"),
    (["move", T, "matsu", "run", "--", "4.5", "-inf"], "argument y"),
    (["move", T, "matsu", "walk", "4.5", "9", "--via", "nan,6"], "--via"),
    (["charge", T, "kenta", "yatsumata", "--direction", "nan"], "--direction"),
    (["charge", T, "kenta", "yatsumata", "--direction", "Infinity"], "--direction"),
    (["special", T, "akira", "masunagi", "throw", "--direction", "nan"], "--direction"),
])
def test_nan_and_inf_numbers_are_refused_with_status_2(argv, arg, capsys):
    code, out, err = status_and_err(argv, capsys)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and arg in err and "finite" in err and "usage" not in err


@pytest.mark.parametrize("field, value", [("facing", float("nan")), ("facing", float("inf")),
                                          ("direction", float("nan")), ("point", (float("nan"), 3.0)),
                                          ("point", (4.0, float("-inf"))), ("path", ((1.0, 1.0), (float("nan"), 2.0)))])
def test_nan_facing_through_the_api_never_reaches_the_state(field, value):
    g = Game(TABLE, seed=1, length=("fixed", 1))
    before = g.snapshot()
    with pytest.raises(GameError, match=f"{field}.*finite"):
        g.push(Action("walk", "matsu", **{"point": (4.5, 8.0), field: value}))
    assert g.snapshot() == before


# ------------------------------------------------------------------ special, judged
def test_special_on_a_friendly_model_not_in_contact_is_refused_with_the_reason(capsys):
    code, out, err = status_and_err(["special", T, "akira", "kenta", "slam"], capsys)
    assert code == 1 and err == ""
    assert "NOT ALLOWED" in out and "kenta is a friendly model" in out
    assert 'not in base contact (8.527" apart)' in out and "table edge" not in out


def test_special_not_in_base_contact_with_an_enemy_is_refused(capsys):
    code, out, _ = status_and_err(["special", T, "akira", "masunagi", "slam", "--json"], capsys)
    assert code == 1 and '"legal": false' in out and "0.208" in out and "friendly" not in out


def test_special_sandbox_plays_the_forbidden_move_when_asked(capsys):
    code, out, _ = status_and_err(["special", T, "akira", "kenta", "slam", "--sandbox"], capsys)
    assert code == 0 and out.startswith("SANDBOX: played although the rules forbid it")
    assert "stopped at the table edge" in out


def test_special_between_enemies_in_base_contact_is_played(tmp_path, capsys):
    yaml = """
format: bushido-table/1
name: duel
table: {width: 24, depth: 24}
terrain: []
models:
  - {id: akira, player: 1, profile: takashi-akira, position: [6, 6], facing: 0}
  - {id: masunagi, player: 2, profile: ito-masunagi, position: [X, 6], facing: 180}
"""
    gap = parse_table(yaml.replace("X", "11"), "<t>").scene().distance("akira", "masunagi")
    path = tmp_path / "duel.yaml"
    path.write_text(yaml.replace("X", repr(11 - gap)))
    code, out, _ = status_and_err(["special", str(path), "akira", "masunagi", "slam"], capsys)
    assert code == 0 and out.startswith("slam: akira vs masunagi") and "Prone: masunagi" in out


# ------------------------------------------------------------------ output files
def test_screenshot_to_an_existing_notes_txt_is_refused_and_the_file_unchanged(tmp_path, capsys):
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n")
    for argv in (["view", T, "--screenshot", str(notes)], ["--screenshot", str(notes)]):
        code, _, err = status_and_err(argv, capsys)
        assert code == 2 and err.count("\n") == 1 and "must end in .png" in err
    assert notes.read_text() == "my notes\n"


def test_png_output_never_replaces_a_file_that_is_not_a_png(tmp_path, capsys):
    fake = tmp_path / "plan.png"
    fake.write_text("not an image")
    for argv in (["view", T, "--screenshot", str(fake)], ["reach", T, "akira", "--png", str(fake)],
                 ["special", T, "akira", "kenta", "slam", "--sandbox", "--png", str(fake)]):
        code, _, err = status_and_err(argv, capsys)
        assert code == 2 and "is not a PNG image; not overwritten" in err
    assert fake.read_text() == "not an image"


# ------------------------------------------------------------------ hot-seat input
def first_player_game(player: int) -> Game:
    for seed in range(50):
        g = Game(TABLE, seed=seed, length=("fixed", 1))
        if g.state.active == player:
            return g
    raise AssertionError("no seed found")


def test_hotseat_5000_digit_number_then_quit_the_session_continues():
    g = first_player_game(1)
    lines = [HUGE, "log " + HUGE, f"walk matsu {HUGE} 9", f"allocate {HUGE} 0", f"wait matsu boost={HUGE}",
             f"walk matsu 4.5 9 facing={HUGE}", "٣", "quit"]
    out = io.StringIO()
    assert run_hotseat(g, io.StringIO("\n".join(lines) + "\n"), out, echo=False) == "quit"
    text = out.getvalue()
    assert "No action number 111111111111111111111111...: the numbers go from 1 to" in text
    assert "log N: N is a number of lines (at most 6 digits)" in text
    assert "x: '111111111111111111111111...' is not a finite number" in text
    assert "is too large (at most 6 digits)" in text
    assert "facing: '111111111111111111111111...' is not a finite number" in text
    assert text.count("Player 1 > ") == len(lines)  # asked again after each
    assert "Quit: the game stops here" in text and HUGE not in text


def test_hotseat_5000_digit_dice_value_is_asked_again():
    out = io.StringIO()
    stdin = io.StringIO(f"{HUGE}\n²\n2\n6\nquit\n")
    g = Game(TABLE, dice=PromptDice(stdin, out, echo=False), length=("fixed", 1))
    text = out.getvalue()
    assert "'111111111111111111111111...' is not a die value (1 to 6)" in text and "'²' is not a die value" in text
    assert g.state.first == 2
    for bad in (HUGE, "²", "١"):
        with pytest.raises(DiceError):
            parse_dice(bad, 1)


def test_hotseat_command_line_with_a_huge_number(monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.StringIO(f"{HUGE}\nquit\n"))
    assert main(["hotseat", "--turns", "1"]) == 0
    out = capsys.readouterr().out
    assert "No action number" in out and "Quit: the game stops here" in out


def test_hotseat_load_of_a_physical_dice_save_goes_on_with_physical_dice(tmp_path, monkeypatch, capsys):
    from sim.rules.dice import PhysicalDice

    g = Game(TABLE, dice=PhysicalDice([2, 6]), length=("fixed", 1))
    g.save(tmp_path / "phys.json")
    monkeypatch.setattr(sys, "stdin", io.StringIO("quit\n"))
    assert main(["hotseat", "--load", str(tmp_path / "phys.json")]) == 0
    out = capsys.readouterr().out
    assert "This game was played with physical dice" in out and "Quit: the game stops here" in out



def test_output_piped_into_head_ends_quietly_without_a_traceback():
    import subprocess
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    # `measure --json` writes more than the pipe holds while `head -1` has already stopped reading
    head = subprocess.run(f"'{sys.executable}' main.py measure {T} --json | head -1", shell=True, cwd=root,
                          capture_output=True, text=True)
    assert head.stdout == "{\n" and "Traceback" not in head.stderr and "BrokenPipe" not in head.stderr
    # nobody reads at all: the first write of `special --json` meets a broken pipe; status 1
    proc = subprocess.Popen([sys.executable, "main.py", "special", T, "akira", "masunagi", "push", "--json",
                             "--sandbox"], cwd=root, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()
    err = proc.stderr.read()
    assert proc.wait() == 1 and "Traceback" not in err and "BrokenPipe" not in err
