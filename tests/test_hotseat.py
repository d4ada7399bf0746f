"""Hot-seat play (``sim/cli/hotseat.py``, ``main.py hotseat``): scripted stdin, typed
actions and refusals, undo, save/load, physical dice prompts, secret melee allocations
(p.33), bots, and the command line with a piped stdin."""

from __future__ import annotations

import io
import itertools
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from sim.cli.hotseat import InputError, PromptDice, action_text, parse_action, parse_dice, run_hotseat
from sim.rules.bots import GreedyBot
from sim.rules.dice import DiceError
from sim.rules.game import Action, Game
from sim.table import load_table

ROOT = Path(__file__).resolve().parents[1]
TABLE = load_table()
CLEAR = "<<CLEAR>>\n"
INPUT = "\x00IN:"  # marks, in the transcript, where a line was read and what it was


class Console(io.StringIO):
    """A scripted stdin that writes what it hands out into the transcript (``out``).

    ``script`` holds lines (str) or callables ``f(transcript) -> str``; when a dice
    prompt is showing, ``dice`` (an iterator of values) answers it unless the next
    script item is meant for it (``dice=None``)."""

    def __init__(self, out: io.StringIO, script, dice=None):
        super().__init__()
        self.out = out
        self.script = list(script)
        self.dice = dice

    def readline(self, *_a) -> str:
        text = self.out.getvalue()
        m = re.search(r"Roll (\d+) (?:more )?(?:die|dice) for [^\n]*: $", text[-300:])
        if m and self.dice is not None:
            line = " ".join(str(next(self.dice)) for _ in range(int(m.group(1))))
        elif not self.script:
            return ""
        else:
            item = self.script.pop(0)
            line = item(text) if callable(item) else item
        self.out.write(INPUT + line + "\x00")
        return line + "\n"


def session(game, script, dice=None, **kw):
    out = io.StringIO()
    con = Console(out, script, dice)
    result = run_hotseat(game, con, out, clear=CLEAR, echo=False, **kw)
    return result, out.getvalue()


def first_player_game(player: int, **kw) -> Game:
    """A seeded game on the default table whose first active player is ``player``."""
    for seed in range(50):
        g = Game(TABLE, seed=seed, length=("fixed", 1), **kw)
        if g.state.active == player:
            return g
    raise AssertionError("no seed found")


def last_menu(text: str) -> dict[str, int]:
    """The last printed menu as ``{action text: number}``."""
    menu = text[text.rindex("=== Player"):]
    menu = menu[max(menu.rfind("Legal actions:"), menu.rfind("Your melee allocation (secret):")):]
    return {m.group(2).strip(): int(m.group(1)) for m in re.finditer(r"(\d+)\) (.+?)(?=\s{2,}|\s*\d+\)|$)", menu, re.M)}


def pick(kinds=("focus", "wait")):
    """A script item: the number of the first menu entry of the first kind found."""
    def choose(text: str) -> str:
        menu = last_menu(text)
        for kind in kinds:
            for label, n in sorted(menu.items(), key=lambda kv: kv[1]):
                if label.startswith(kind + " "):
                    return str(n)
        return "1"
    return choose


# ---------------------------------------------------------------- a whole game
def test_a_short_game_played_to_the_end_by_numbers_and_commands():
    g = Game(TABLE, seed=3, length=("fixed", 1))
    script = ["help", "state", "actions", "log 3"] + [pick()] * 40
    result, text = session(g, script)
    assert result == "over" and g.is_over()
    assert "=== Game over:" in text and g.state.result in text
    assert "Type the number of an action" in text  # help
    assert "Player 1:" in text and "Player 2:" in text  # state
    # every decision named its player, who was the one to move then
    heads = re.findall(r"=== Player (\d) to move ===", text)
    prompts = re.findall(r"Player (\d) > ", text)
    assert len(heads) == 12 and set(heads) == {"1", "2"}  # six Focus actions a side
    assert set(prompts) == {"1", "2"}
    # the brief view: turn, phase, own models with counters, wounds, Ki; enemies seen
    assert "Turn 1, main phase (last turn)" in text
    assert re.search(r"akira\s+\(12\.00, 12\.00\) facing  90  counters 2  wounds left 6/6  Ki 2/8", text)
    assert "seen by:" in text
    assert all(m.counters == 0 and m.ki >= min(m.ki_stat, m.ki_limit) for m in g.state.models.values())


def test_end_of_input_and_quit_stop_the_session():
    g = first_player_game(1)
    assert session(g, [])[0] == "quit"
    result, text = session(g, ["quit"])
    assert result == "quit" and "Quit: the game stops here" in text and not g.is_over()


# ---------------------------------------------------------------- typed actions
def test_typed_actions_are_judged_and_refused_without_losing_a_counter():
    g = first_player_game(1)
    script = ["wlak matsu 1 2", "walk nobody 1 2", "walk matsu 4.5", "shoot kenta asp",
              "walk matsu 4.5 20", "99", "walk mat 4.5 9",  # a unique prefix will do
              "wait masunagi", "quit"]
    events = len(g.events)
    result, text = session(g, script)
    assert result == "quit"
    assert "Not understood: unknown action 'wlak'" in text
    assert "Not understood: no model 'nobody'" in text
    assert "Not understood: cannot read '4.5'" in text
    assert "Refused: kenta has no ranged weapon." in text
    assert re.search(r"Refused: .*the move costs [\d.]+\" but only 4\.000\" are allowed", text)
    assert "No action number 99" in text
    st = g.state.models
    assert st["matsu"].position == (4.5, 9.0) and st["matsu"].counters == 1
    assert st["kenta"].counters == 2 and st["masunagi"].counters == 1
    kinds = [e.kind for e in g.events[events:]]
    assert kinds.count("activate") == 2 and not any(e.kind == "note" and "illegal" in e.data["text"]
                                                     for e in g.events)


def test_a_refused_action_is_declared_only_after_yes_and_then_costs_a_counter():
    g = first_player_game(1)
    result, text = session(g, ["walk matsu 4.5 20", "yes", "quit"])
    assert "Type yes to declare it anyway" in text
    assert g.state.models["matsu"].counters == 1 and g.state.models["matsu"].position == (4.5, 6.0)
    assert any(e.kind == "note" and "illegal action" in e.data["text"] for e in g.events)
    # anything else than yes drops the pending action and is read as usual
    g = first_player_game(1)
    session(g, ["walk matsu 4.5 20", "state", "yes", "quit"])
    assert g.state.models["matsu"].counters == 2


def test_parse_action_shapes_and_round_trip_of_the_menu():
    g = first_player_game(1)
    assert parse_action(g, "walk matsu 4.5 9") == Action("walk", "matsu", point=(4.5, 9.0))
    assert parse_action(g, "charge kaz asp") == Action("charge", "kazuha", target="asp")
    assert parse_action(g, "shoot kokkio masunagi after 6 9") == \
        Action("shoot", "kokkio", target="masunagi", walk="after", point=(6.0, 9.0))
    assert parse_action(g, "walk matsu 4.5 9 facing=45") == Action("walk", "matsu", point=(4.5, 9.0), facing=45.0)
    assert parse_action(g, "stand matsu") == Action("stand_up", "matsu")
    assert parse_action(g, "pass") == Action("pass")
    assert parse_action(g, 'shoot kokkio masunagi weapon="Long Bow"') == \
        Action("shoot", "kokkio", target="masunagi", weapon="Long Bow")
    assert parse_action(g, "allocate akira 2 1 push") == \
        Action("allocate", "akira", attack=2, defence=1, special="push")
    for bad in ("", "walk", "walk k 1 2", "charge matsu", "walk matsu 1 2 3", "walk matsu 1 2 colour=red",
                "allocate matsu 1", 'walk "matsu'):
        with pytest.raises(InputError):
            parse_action(g, bad)
    for a in g.legal_actions():
        b = parse_action(g, action_text(a))
        assert (b.kind, b.model, b.target) == (a.kind, a.model, a.target)
        if a.point is not None:
            assert max(abs(b.point[0] - a.point[0]), abs(b.point[1] - a.point[1])) <= 0.005


# ---------------------------------------------------------------- undo
def test_undo_goes_back_to_this_players_previous_decision():
    g = first_player_game(1)
    start = g.snapshot()
    result, text = session(g, ["undo", "walk matsu 4.5 9", "wait masunagi", "undo", "quit"])
    assert "Nothing of yours to take back" in text
    assert "Took back: player 2: wait masunagi" in text and "Took back: player 1: walk matsu 4.50 9.00" in text
    assert g.snapshot() == start and g.to_move() == 1
    assert text.count("=== Player 1 to move ===") == 3


# ---------------------------------------------------------------- save and load
def test_save_then_load_and_continue(tmp_path, monkeypatch, capsys):
    from sim.cli.main import main

    g = first_player_game(1)
    path = tmp_path / "hs.json"
    result, text = session(g, ["walk matsu 4.5 9", "wait masunagi", f"save {path}", "quit"])
    assert f"Saved {path}" in text
    loaded = Game.load(path)
    assert loaded.snapshot() == g.snapshot()
    # continue on the command line: --load, typed action, --save after every action
    out2 = tmp_path / "hs2.json"
    monkeypatch.setattr(sys, "stdin", io.StringIO("wait akira\nquit\n"))
    assert main(["hotseat", "--load", str(path), "--save", str(out2)]) == 0
    shown = capsys.readouterr().out
    assert f"Loaded {path}" in shown and "Player 1 activates akira: wait" in shown
    again = Game.load(out2)
    assert again.state.models["akira"].counters == 1 and again.state.models["matsu"].position == (4.5, 9.0)
    assert main(["replay", str(out2)]) == 0
    assert "3 actions re-simulated with seed 5 reproduce all" in capsys.readouterr().out


# ---------------------------------------------------------------- physical dice
def test_physical_dice_prompts_and_bad_input():
    out = io.StringIO()
    con = Console(out, ["7", "1 2", "x", "", "2", "6"])
    g = Game(TABLE, dice=PromptDice(con, out), length=("fixed", 1))
    text = out.getvalue()
    assert text.count("Roll 1 die for the Tactical test, player 1: ") == 5
    assert "Roll 1 die for the Tactical test, player 2: " in text
    assert "'7' is not a die value (1 to 6)" in text and "2 values given, 1 asked for" in text
    assert "'x' is not a die value" in text and "0 values given, 1 asked for" in text
    tactical = next(e for e in g.events if e.kind == "tactical")
    assert g.state.first == 2 and tactical.data["rolls"] == [[2, 6]]
    # fed values are used first, then the players are asked for the rest
    out = io.StringIO()
    d = PromptDice(Console(out, ["4 5"]), out, values=[3])
    assert d.roll(3) == [3, 4, 5] and "Roll 2 more dice for" in out.getvalue()
    assert d.roll(0) == []
    assert parse_dice("356", 3) == [3, 5, 6] and parse_dice("3, 5 6", 3) == [3, 5, 6]
    for bad, n in (("0", 1), ("3 5", 3), ("3.5", 1), ("66", 1)):
        with pytest.raises(DiceError):
            parse_dice(bad, n)


def test_physical_dice_melee_names_each_roll_and_the_save_replays(tmp_path):
    out = io.StringIO()
    values = itertools.cycle([2, 6, 5, 3, 6, 4, 1])
    con = Console(out, ["melee masunagi akira", "", "allocate 4 0", "", "allocate akira 0 4",
                        f"save {tmp_path / 'phys.json'}", "quit"], dice=values)
    g = Game(TABLE, dice=PromptDice(con, out), length=("fixed", 1))
    assert g.state.active == 2
    assert run_hotseat(g, con, out, clear=CLEAR, echo=False) == "quit"
    text = out.getvalue()
    assert "Roll 4 dice for masunagi's attack dice: " in text
    assert "Roll 4 dice for akira's defence dice: " in text
    if "Damage: attack" in text:
        assert re.search(r"Roll [23] dice for a damage roll \((masunagi against akira|akira against masunagi)\): ",
                         text)
    saved = Game.load(tmp_path / "phys.json")
    assert saved.snapshot() == g.snapshot() == saved.replay().snapshot()
    assert any(e.kind == "exchange" for e in saved.events)


def test_quitting_at_a_dice_prompt_takes_the_half_played_action_back():
    out = io.StringIO()
    con = Console(out, ["2", "6", "melee masunagi akira", "", "allocate 4 0", "", "allocate akira 0 4",
                        "quit", "quit"])
    g = Game(TABLE, dice=PromptDice(con, out), length=("fixed", 1))
    assert run_hotseat(g, con, out, clear=CLEAR, echo=False) == "quit"
    ex = g.state.exchange
    assert ex is not None and list(ex["allocations"]) == ["masunagi"] and g.to_move() == 1


# ---------------------------------------------------------------- secret allocations
def test_allocations_stay_secret_until_both_have_allocated():
    g = first_player_game(2)
    script = ["melee masunagi akira", "", "allocate masunagi 3 1", "", "log", "state", "1", "quit"]
    result, text = session(g, script)
    a_in = text.index(INPUT + "allocate masunagi 3 1")
    b_prompt = text.index("Player 1, allocate in secret > ")
    # between player 2's allocation and player 1's prompt: no number at all before the
    # screen is cleared, then the clear, the hand-over, player 1's own view
    cleared = text.index(CLEAR, a_in)
    assert cleared < b_prompt
    assert not re.search(r"\d", text[a_in + len(INPUT + "allocate masunagi 3 1"):cleared])
    handover = text[cleared:b_prompt]
    assert handover.startswith(CLEAR + "\nSecret melee allocation (p.33). Pass the device to player 1, press Enter")
    assert "allocated (secret): masunagi; waiting for: akira" in handover
    # player 1's screen up to its choice (view, log, state) never shows player 2's split
    b_choice = text.index(INPUT + "1", b_prompt)
    seen_by_1 = text[cleared:b_choice]
    assert "masunagi allocates its dice in secret" in seen_by_1  # the log command
    for leak in ("masunagi 3 1", "masunagi 3 attack", "allocates 3 attack",
                 "'attack': 3", "attack=3"):
        assert leak not in seen_by_1
    # the exchange then reveals both
    assert "Allocations revealed: masunagi 3 attack, 1 defence; akira 0 attack, 4 defence" in text[b_choice:]
    # the hand-over before player 2's own allocation too
    first = text.index(CLEAR)
    assert "Pass the device to player 2, press Enter" in text[first:a_in]


def test_secret_input_is_not_echoed():
    g = first_player_game(2)
    out = io.StringIO()
    con = io.StringIO("melee masunagi akira\n\nallocate masunagi 3 1\n\n1\nquit\n")
    run_hotseat(g, con, out, clear=CLEAR, echo=True)
    text = out.getvalue()
    assert "Player 2 > melee masunagi akira" in text
    assert "Player 2, allocate in secret > (hidden)" in text
    assert "Player 1, allocate in secret > (hidden)" in text
    assert "in secret > allocate" not in text and "in secret > 1" not in text


# ---------------------------------------------------------------- bots
def test_a_bot_plays_one_side_and_its_actions_are_printed():
    g = Game(TABLE, seed=4, length=("fixed", 1))
    result, text = session(g, [pick(("focus", "wait", "allocate"))] * 40, bots={2: GreedyBot(7)})
    assert result == "over" and g.is_over()
    assert re.search(r"Player 2 \(greedy bot\): \w+ ", text)
    assert "=== Player 2 to move ===" not in text
    assert "Pass the device" not in text  # one human: nothing to hide from a bot


# ---------------------------------------------------------------- command line
def test_main_hotseat_with_a_piped_stdin():
    proc = subprocess.run([sys.executable, "main.py", "hotseat", "--turns", "1", "--seed", "5", "--bot", "2=random"],
                          cwd=ROOT, input="state\nwalk matsu 4.5 9\nquit\n", capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "Hot-seat game on" in out and "player 2: random bot" in out
    assert "=== Player 1 to move ===" in out and "Player 1 > state" in out  # piped input is echoed
    assert "matsu moves to (4.50, 9.00)" in out and "Quit: the game stops here" in out


def test_main_hotseat_bad_options(tmp_path, capsys):
    from sim.cli.main import main

    with pytest.raises(SystemExit) as exc:
        main(["hotseat", "--bot", "3=greedy"])
    assert exc.value.code == 2
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"format": "nope"}))
    assert main(["hotseat", "--load", str(bad)]) == 2
    assert "not a bushido-game/1 save" in capsys.readouterr().err


def test_intercept_actions_are_typed_and_read_back():
    from sim.cli.hotseat import action_text, parse_action
    from sim.table import parse_table
    from tests.conftest import set_active

    yaml = """
format: bushido-table/1
name: shots
table: {width: 24, depth: 24}
terrain: []
models:
  - {id: matsu, player: 1, profile: takashi-matsu, position: [4, 12], facing: 0}
  - {id: masunagi, player: 2, profile: ito-masunagi, position: [12, 12], facing: 180}
  - {id: ishi, player: 2, profile: ishi, position: [8, 13.4], facing: 270}
"""
    g = Game(parse_table(yaml, "<t>"), seed=2, length=("fixed", 2))
    set_active(g, 1)
    g.push(Action("shoot", "matsu", target="masunagi"))
    offered = g.legal_actions()
    assert [action_text(a) for a in offered] == ["intercept", "intercept ishi"]
    assert [parse_action(g, action_text(a)) for a in offered] == offered


def test_the_view_shows_the_scenario_and_hides_a_hidden_vim():
    from sim.cli.hotseat import brief_view, full_state
    from sim.rules.scenario import parse_scenario
    from sim.table import load_table

    text = (Path(__file__).resolve().parents[1] / "data/scenarios/marked_for_death.yaml").read_text()
    hidden = parse_scenario(text.replace("kind: open", "kind: hidden"), "<hidden>")
    g = Game(load_table(), seed=1, scenario=hidden, vims={1: "akira", 2: "nanako"})
    view1 = brief_view(g, 1)
    assert "Scenario" in view1 and "player 1: akira" in view1 and "player 2: hidden" in view1
    assert "nanako" not in full_state(g, 1).split("VIMs:")[1]
    assert not any("nanako" in line and "VIM" in line for line in g.log())
    g = Game(load_table(), seed=1, scenario="shrines")
    assert "objectives: west" in brief_view(g, 2) and "neutral" in brief_view(g, 2)
