"""Dice that carry what they roll for (issue #11): ``dice.roll(n, purpose)`` with a
:class:`~sim.rules.dice.RollPurpose`; the tests of :mod:`sim.rules.dice`, melee, ranged,
Ki and the game hand it on, the hot-seat's physical dice prompt with its label, and
a purpose never changes a seeded roll."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from sim.cli.hotseat import PromptDice, prompt_label
from sim.rules.bots import GreedyBot, play
from sim.rules.dice import (
    PhysicalDice,
    Rerolls,
    RollKind,
    RollPurpose,
    SeededDice,
    challenge_test,
    fear_test,
    opposed_test,
    reroll_below,
    size_test,
    tactical_test,
)
from sim.rules.game import Action, Game
from sim.rules.wounds import resolve_damage
from sim.table import load_table
from tests.conftest import set_active, set_model
from tests.test_game_conditions_ki import TABLE_YAML, game, set_cond

ROOT = Path(__file__).resolve().parents[1]


class Recording(PhysicalDice):
    """Physical dice that remember ``(n, purpose)`` of every roll."""

    def __init__(self, values=()):
        super().__init__(values)
        self.calls: list[tuple[int, RollPurpose | None]] = []

    def roll(self, n, purpose=None):
        self.calls.append((n, purpose))
        return super().roll(n, purpose)


class RecordingSeeded(SeededDice):
    def __init__(self, seed):
        super().__init__(seed)
        self.calls: list[tuple[int, RollPurpose | None]] = []

    def roll(self, n, purpose=None):
        self.calls.append((n, purpose))
        return super().roll(n, purpose)


def labels(d: Recording) -> list[str]:
    return [p.label() for n, p in d.calls if n]


# ------------------------------------------------------------------ the type
def test_every_roll_kind_has_a_rulebook_page_and_a_noun():
    for k in RollKind:
        assert k.page.startswith("p.") and k.noun, k


def test_purpose_labels_name_the_roll():
    assert RollPurpose(RollKind.TACTICAL, player=2).label() == "the Tactical test, player 2"
    assert RollPurpose(RollKind.MELEE_DEFENCE, "akira", "masunagi").label() == "akira's defence dice"
    assert RollPurpose(RollKind.MELEE_REROLL, "akira", "masunagi", "Dodge (1)").label() == \
        "akira's re-roll of masunagi's dice (Dodge (1))"
    assert RollPurpose(RollKind.RANGED_ATTACK, "kenta", "asp", "Bow").label() == \
        "a ranged attack (kenta shooting at asp, Bow)"
    assert RollPurpose(RollKind.GAME_LENGTH).label() == "the variable game length roll"
    assert RollPurpose(RollKind.SIZE).rerolled().label() == "a re-roll of a Size test"


def test_a_purpose_does_not_change_seeded_values():
    p = RollPurpose(RollKind.DAMAGE, "akira", "masunagi")
    assert SeededDice(5).roll(12, p) == SeededDice(5).roll(12)


# ------------------------------------------------------------------ the tests of dice.py
def test_tactical_test_rolls_for_player_1_then_player_2_each_round():
    d = Recording([3, 3, 2, 6])  # a tie, then player 2 wins
    assert tactical_test(d).winner == 2
    assert labels(d) == ["the Tactical test, player 1", "the Tactical test, player 2"] * 2


def test_challenge_rerolls_roll_for_the_rerolled_purpose():
    p = RollPurpose(RollKind.CHALLENGE, "akira", detail="TN 5")
    d = Recording([1, 5, 6])
    challenge_test(2, 5, 0, d, rerolls=Rerolls(a_on_a=reroll_below(2)), purpose=p)
    assert [c[1] for c in d.calls] == [p, p.rerolled()]


def test_opposed_test_sides_default_to_swapped_models():
    d = Recording([4, 2])
    opposed_test(1, 1, d, purpose=RollPurpose(RollKind.OPPOSED, "akira", "masunagi"))
    assert labels(d) == ["an opposed test (akira against masunagi)", "an opposed test (masunagi against akira)"]


def test_tests_without_a_purpose_roll_for_their_generic_kind():
    d = Recording([6, 6, 6, 6, 6, 6, 6, 6, 6])
    challenge_test(1, 3, 0, d)
    size_test(2, 6, d)
    fear_test(2, 5, d)
    resolve_damage(d, 1)
    assert [p.kind for _, p in d.calls] == [RollKind.CHALLENGE, RollKind.SIZE, RollKind.FEAR, RollKind.DAMAGE]


def test_fear_retest_with_bravery_is_a_reroll_of_the_fear_test():
    p = RollPurpose(RollKind.FEAR, "akira", detail="TN 5")
    d = Recording([1, 1, 6, 6])
    assert fear_test(2, 5, d, bravery=True, purpose=p).passed
    assert labels(d) == ["a Fear test (akira, TN 5)", "a re-roll of a Fear test (akira, TN 5)"]


# ------------------------------------------------------------------ the game
def test_every_roll_of_seeded_bot_games_carries_a_purpose_and_the_same_values():
    table = load_table()
    seen = set()
    for seed, scen in ((3, None), (4, "shrines")):
        d = RecordingSeeded(seed)
        g = play(Game(table, seed=seed, dice=d, length=("fixed", 3), scenario=scen), (GreedyBot(1), GreedyBot(2)))
        ref = play(Game(table, seed=seed, length=("fixed", 3), scenario=scen), (GreedyBot(1), GreedyBot(2)))
        assert g.snapshot() == ref.snapshot()
        assert all(isinstance(p, RollPurpose) for _, p in d.calls)
        seen |= {p.kind for _, p in d.calls}
    assert {RollKind.TACTICAL, RollKind.MELEE_ATTACK, RollKind.MELEE_DEFENCE, RollKind.DAMAGE,
            RollKind.RANGED_ATTACK} <= seen


def test_game_length_roll_names_itself():
    g = Game(load_table(), seed=0, length=("variable", 2))
    g.dice = d = RecordingSeeded(1)
    while g.state.turn < 2:
        p = g.state.active
        g.push(Action("wait", next(m.id for m in g.state.alive(p) if not m.exhausted)))
    assert labels(d)[0] == "the variable game length roll"


def test_immobilised_size_test_names_the_model():
    g = game()
    set_active(g, 1)
    set_cond(g, "akira", "immobilised", 1)
    g.dice = d = Recording([6, 6])
    g.push(Action("walk", "akira", point=(6.0, 8.0)))
    assert labels(d) == ["an Immobilised Size test (akira)"]


def test_disguised_ki_test_names_both_models():
    g = game()
    set_active(g, 2)
    set_cond(g, "akira", "disguised", 4)
    g.dice = d = Recording([1, 2])
    g.push(Action("melee", "masunagi", target="akira"))
    assert labels(d) == ["a Ki test to see through a disguise (masunagi against akira, Ki (4))"]


def test_opposed_ki_feat_names_the_user_and_the_resisting_target():
    g = game(yaml=TABLE_YAML.replace("[11, 6]", "[9, 6]"))
    set_active(g, 1)
    set_model(g, "akira", ki=2)
    g.dice = d = Recording([6, 5, 2, 1])
    g.push(Action("ki_feat", "akira", feat="Mind Clash", target="masunagi"))
    assert labels(d) == ["a Ki feat test (akira against masunagi, Mind Clash)",
                         "an opposed Ki test (masunagi against akira, Mind Clash)"]


# ------------------------------------------------------------------ the hot-seat prompts
def test_physical_dice_prompt_label_comes_from_the_purpose():
    out = io.StringIO()
    d = PromptDice(io.StringIO("3 4\n5\n"), out, echo=False)
    assert d.roll(2, RollPurpose(RollKind.FEAR, "akira", "masunagi", "TN 6")) == [3, 4]
    assert d.roll(1) == [5]
    text = out.getvalue()
    assert "Roll 2 dice for a Fear test (akira against masunagi, TN 6): " in text
    assert "Roll 1 die for a roll: " in text
    assert prompt_label(None) == "a roll"


@pytest.mark.parametrize("kind", list(RollKind))
def test_roll_kind_values_are_stable_keys(kind):
    assert RollKind(kind.value) is kind and kind.value == kind.name.lower()
