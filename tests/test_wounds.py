"""Damage rolls and the wound table (rulebook p.38) with Armour, Tough, Durable, halving."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sim.rules.dice import DiceError, ScriptedDice, SeededDice
from sim.rules.wounds import (
    WOUND_TABLE,
    apply_wounds,
    damage_roll,
    resolve_damage,
    wounds_for,
)

# Transcribed from the printed table (p.38): "2D6 total: wounds at success level 0..10".
PRINTED = """
2  0 0 0 0 1 2 3 4 5 6 7
3  0 0 0 1 2 3 4 5 6 7 8
4  0 0 1 2 3 4 5 6 7 8 9
5  0 0 1 2 3 4 5 6 7 8 9
6  0 1 2 3 4 5 6 7 8 9 10
7  0 1 2 3 4 5 6 7 8 9 10
8  0 1 2 3 4 5 6 7 8 9 10
9  1 2 3 4 5 6 7 8 9 10 11
10 1 2 3 4 5 6 7 8 9 10 11
11 2 3 4 5 6 7 8 9 10 11 12
12 3 4 5 6 7 8 9 10 11 12 13
"""


def _printed_cells():
    for line in PRINTED.strip().splitlines():
        total, *cells = (int(x) for x in line.split())
        for level, wounds in enumerate(cells):
            yield total, level, wounds


@pytest.mark.parametrize("total,level,wounds", list(_printed_cells()))
def test_wound_table_cell(total, level, wounds):
    assert WOUND_TABLE[total][level] == wounds
    assert wounds_for(level, total) == wounds


def test_wound_table_shape():
    assert sorted(WOUND_TABLE) == list(range(2, 13))
    assert all(len(row) == 11 for row in WOUND_TABLE.values())
    assert len(list(_printed_cells())) == 11 * 11


def test_itsunagi_ito_example():
    # Damage roll 3 and 5 + Strength 1 = 9; at success level 3 that is 4 wounds.
    roll = damage_roll(ScriptedDice([3, 5]), strength=1)
    assert roll.kept == (3, 5) and roll.total == 9
    assert wounds_for(3, roll.total) == 4
    assert resolve_damage(ScriptedDice([3, 5]), 3, strength=1).wounds == 4


def test_totals_clamped_and_levels_above_ten():
    assert wounds_for(4, -3) == wounds_for(4, 2) == 1
    assert wounds_for(0, 20) == wounds_for(0, 12) == 3
    assert wounds_for(15, 7) == wounds_for(10, 7) == 10
    with pytest.raises(ValueError):
        wounds_for(-1, 7)
    with pytest.raises(ValueError):
        resolve_damage(ScriptedDice([]), -1)


def test_damage_roll_keeps_ones_and_clamps():
    roll = damage_roll(ScriptedDice([1, 1]), modifiers=-2)
    assert roll.kept == (1, 1) and roll.raw_total == 0 and roll.total == 2 and roll.is_double
    roll = damage_roll(ScriptedDice([6, 6]), strength=3)
    assert roll.raw_total == 15 and roll.total == 12


def test_strong_and_weak_roll_three_dice():
    assert damage_roll(ScriptedDice([2, 6, 4]), strong=True).kept == (6, 4)
    assert damage_roll(ScriptedDice([2, 6, 4]), weak=True).kept == (2, 4)
    dice = ScriptedDice([2, 6, 4])
    roll = damage_roll(dice, strong=True, weak=True)     # cancel: two dice
    assert roll.dice == (2, 6) and dice.remaining == 1
    with pytest.raises(DiceError):
        damage_roll(ScriptedDice([3, 3]), strong=True)


def test_armour_and_pierce_reduce_the_roll():
    assert damage_roll(ScriptedDice([4, 4]), strength=1, armour=2).total == 7
    assert damage_roll(ScriptedDice([4, 4]), armour=2, pierce=1).total == 7
    assert damage_roll(ScriptedDice([4, 4]), armour=1, pierce=3).total == 8


def test_apply_wounds_traits():
    assert apply_wounds(5) == 5
    assert apply_wounds(5, halved=True) == 2                 # rounded down
    assert apply_wounds(5, tough=1) == 4
    assert apply_wounds(1, tough=2) == 0
    assert apply_wounds(3, tough=-1) == 4                    # negative Tough adds wounds
    assert apply_wounds(3, tough=2, sharp=1) == 2
    assert apply_wounds(3, tough=1, sharp=5) == 3
    assert apply_wounds(4, durable=True) == 1
    assert apply_wounds(0, durable=True) == 0
    assert apply_wounds(3, tough=2, durable=True) == 1        # Durable after Tough
    assert apply_wounds(5, halved=True, tough=1) == 1         # halve, then Tough
    with pytest.raises(ValueError):
        apply_wounds(-1)


def test_resolve_damage_combines_steps():
    r = resolve_damage(ScriptedDice([6, 5, 1]), 2, strength=1, strong=True, armour=1,
                       tough=1, halved=True)
    assert r.roll.total == 11 and r.table_wounds == 4 and r.wounds == 1


@given(st.integers(0, 14), st.integers(-5, 20))
def test_wounds_monotone(level, total):
    w = wounds_for(level, total)
    assert w >= 0
    assert wounds_for(level, total + 1) >= w
    assert wounds_for(level + 1, total) >= w


@given(st.integers(0, 2**32), st.integers(-3, 5), st.booleans(), st.booleans())
def test_damage_roll_properties(seed, strength, strong, weak):
    roll = damage_roll(SeededDice(seed), strength, strong=strong, weak=weak)
    assert 2 <= roll.total <= 12
    assert len(roll.dice) == (3 if strong != weak else 2)
    assert roll.raw_total == sum(roll.kept) + strength
    if strong and not weak:
        assert sorted(roll.kept) == sorted(roll.dice)[1:]
    if weak and not strong:
        assert sorted(roll.kept) == sorted(roll.dice)[:2]


@given(st.integers(0, 20), st.integers(-2, 4), st.booleans(), st.booleans())
def test_apply_wounds_never_negative_nor_above_durable(w, tough, durable, halved):
    out = apply_wounds(w, tough=tough, durable=durable, halved=halved)
    assert out >= 0
    if durable:
        assert out <= 1
