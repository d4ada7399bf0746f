"""Dice sources and tests (rulebook "Tests" p.27-29), with the worked examples."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sim.geometry.attributes import Size
from sim.rules.dice import (
    DiceError,
    FearOutcome,
    PhysicalDice,
    Rerolls,
    RollOptions,
    ScriptedDice,
    SeededDice,
    challenge_dice,
    challenge_test,
    compare_results,
    evaluate_roll,
    fear_test,
    fear_test_needed,
    modified_stat,
    opposed_pools,
    opposed_test,
    pool_size,
    reroll_above,
    reroll_below,
    reroll_order,
    size_test,
    size_test_dice,
    tactical_test,
)

d6 = st.integers(1, 6)


# --------------------------------------------------------------------- dice sources


def test_seeded_dice_values_in_range_and_reproducible():
    a, b = SeededDice(7), SeededDice(7)
    rolls = a.roll(50)
    assert rolls == b.roll(50)
    assert all(1 <= v <= 6 for v in rolls)
    assert SeededDice(7).roll(0) == []


def test_physical_dice_in_order_and_errors():
    d = PhysicalDice([3, 5, 6])
    assert d.roll(2) == [3, 5]
    assert d.remaining == 1
    with pytest.raises(DiceError, match="only 1"):
        d.roll(2)
    assert d.roll(1) == [6]
    d.feed([2])
    assert d.roll(1) == [2]
    with pytest.raises(DiceError, match="1..6"):
        PhysicalDice([0])
    with pytest.raises(DiceError):
        PhysicalDice([7])
    with pytest.raises(DiceError):
        d.roll(-1)
    assert ScriptedDice is PhysicalDice


# --------------------------------------------------------------------- pools and caps


def test_wu_zan_zero_pool_example():
    # Base Melee 1, Exhausted -1 and Stunned -1: pool -1 against Jin's 3; both add 2.
    wu = pool_size(1, -2)
    assert wu == -1
    assert opposed_pools(wu, 3) == (1, 5)
    assert opposed_pools(0, 0) == (1, 1)
    assert opposed_pools(2, 3) == (2, 3)


def test_hanzo_ki_2_of_6_rolls_two_dice():
    dice = ScriptedDice([4, 3])
    r = challenge_test(pool_size(2), 4, 0, dice)
    assert len(r.roll.rolled) == 2 and dice.remaining == 0
    assert r.roll.final == 5 and r.success and r.success_level == 1


def test_zero_pool_challenge_still_rolls_one_die():
    assert challenge_dice(0) == 1 and challenge_dice(-3) == 1 and challenge_dice(4) == 4
    dice = ScriptedDice([5])
    r = challenge_test(-2, 5, 0, dice)
    assert r.roll.rolled == (5,) and r.success and r.success_level == 0


def test_modifiers_capped_at_twice_base():
    assert modified_stat(3, 5) == 6
    assert modified_stat(3, 2) == 5
    assert modified_stat(0, 3) == 1          # a statistic of 0 can reach 1 at most
    assert modified_stat(None, 3) == 0       # "-" cannot be modified
    assert modified_stat(1, -2) == -1        # no lower cap
    assert modified_stat(2, 4, uncapped=1) == 5   # Spirit may exceed the cap
    with pytest.raises(ValueError):
        modified_stat(-1)


# --------------------------------------------------------------------- evaluating rolls


def test_ranged_example_tamotsu():
    # Medium range TN 5, +1 moved, +1 Tiny target = 7; pool 3; 6 + 2 supports = 8: SL 1.
    tn = 5 + 1 + 1
    r = challenge_test(3, tn, 0, ScriptedDice([6, 6, 2]))
    assert r.roll.highest == 6 and r.roll.supports == 2 and r.roll.final == 8
    assert r.success and r.success_level == 1


def test_ones_removed_and_supports_capped():
    r = evaluate_roll([1, 5, 3, 1, 2, 2], modifier=1)
    assert r.removed_ones == (1, 1) and r.kept == (5, 3, 2, 2)
    assert r.highest == 5 and r.supports == 2 and r.final == 8 and r.dice_counted == 4


def test_adept_raises_support_limit():
    r = evaluate_roll([6, 5, 4, 3, 2], options=RollOptions(adept=1))
    assert r.supports == 3 and r.final == 9


def test_zero_dice_result_ignores_modifiers():
    r = evaluate_roll([1, 1, 1], modifier=3)
    assert r.final == 0 and r.kept == () and r.dice_counted == 0
    assert evaluate_roll([], modifier=2).final == 0
    failed = challenge_test(2, 0, 5, ScriptedDice([1, 1]))
    assert failed.roll.final == 0 and failed.success     # TN 0: a final of 0 still meets it
    assert not challenge_test(2, 1, 5, ScriptedDice([1, 1])).success


def test_failed_challenge_has_level_zero():
    r = challenge_test(1, 5, 0, ScriptedDice([3]))
    assert not r.success and r.success_level == 0


def test_kata_keeps_ones_and_unblockable_drops_highest():
    r = evaluate_roll([1, 1, 4], options=RollOptions(keep_ones=True))
    assert r.kept == (4, 1, 1) and r.final == 6 and r.dice_counted == 3
    r = evaluate_roll([6, 5, 2], options=RollOptions(drop_highest=1))
    assert r.dropped == (6,) and r.final == 6 and r.dice_counted == 2


# --------------------------------------------------------------------- opposed tests


def test_opposed_higher_final_wins():
    r = opposed_test(2, 2, ScriptedDice([6, 3, 5, 4]))
    assert r.roll_a.final == 7 and r.roll_b.final == 6
    assert r.winner == "a" and r.success_level == 1 and r.tie_break is None


def test_tie_more_dice_excluding_ones_wins():
    # a: 5 + 1 support = 6 from 2 counted dice (the 1 does not count); b: 4 + 2 = 6 from 3.
    r = opposed_test(3, 3, ScriptedDice([5, 2, 1, 4, 3, 2]))
    assert r.roll_a.final == r.roll_b.final == 6
    assert r.winner == "b" and r.tie_break == "dice" and r.success_level == 0


def test_tie_then_active_player_wins():
    r = opposed_test(2, 2, ScriptedDice([5, 3, 5, 3]), active="b")
    assert r.winner == "b" and r.tie_break == "active"
    r = opposed_test(2, 2, ScriptedDice([5, 3, 5, 3]), active="a")
    assert r.winner == "a"
    with pytest.raises(ValueError):
        opposed_test(1, 1, ScriptedDice([2, 2]), active="c")


def test_both_zero_results_tie():
    assert compare_results(0, 0, 0, 0, "b") == ("b", "active")
    assert compare_results(0, 0, 0, 0, None) == (None, None)


def test_opposed_modifiers():
    r = opposed_test(1, 1, ScriptedDice([4, 6]), mod_a=3, mod_b=-1)
    assert (r.roll_a.final, r.roll_b.final, r.winner, r.success_level) == (7, 5, "a", 2)


# --------------------------------------------------------------------- re-rolls


def test_reroll_order_p28():
    assert reroll_order("a") == (("b", "a"), ("b", "b"), ("a", "b"), ("a", "a"))
    assert reroll_order("b") == (("a", "b"), ("a", "a"), ("b", "a"), ("b", "b"))


def test_rerolls_run_in_order_before_ones_are_removed():
    calls = []

    def chooser(name, idx):
        def choose(target, other):
            calls.append((name, target, other))
            return idx
        return choose

    rr = Rerolls(a_on_a=chooser("A own", [1]), a_on_b=chooser("A on B", [0]),
                 b_on_a=chooser("B on A", [0]), b_on_b=chooser("B own", [1]))
    # a rolls 6,1; b rolls 6,1. Re-roll dice: B on A's 6 -> 2; B own 1 -> 5;
    # A on B's 6 -> 1; A own 1 -> 4.
    dice = ScriptedDice([6, 1, 6, 1, 2, 5, 1, 4])
    r = opposed_test(2, 2, dice, rerolls=rr)
    assert [c[0] for c in calls] == ["B on A", "B own", "A on B", "A own"]
    assert calls[1][1:] == ((6, 1), (2, 1))        # B sees its own dice and A's new ones
    assert r.roll_a.initial == (6, 1) and r.roll_a.rolled == (2, 4)
    assert r.roll_b.rolled == (1, 5) and r.roll_b.removed_ones == (1,)
    assert [(x.by, x.index, x.old, x.new) for x in r.roll_a.rerolls] == [("b", 0, 6, 2), ("a", 1, 1, 4)]
    # 4 + 1 support = 5 from two dice against 5 from one die: a wins on dice count.
    assert r.roll_a.final == r.roll_b.final == 5
    assert r.winner == "a" and r.tie_break == "dice"


def test_initiative_sets_reroll_order_not_tie_break():
    calls = []
    rr = Rerolls(a_on_a=lambda t, o: calls.append("a") or [],
                 b_on_b=lambda t, o: calls.append("b") or [])
    opposed_test(1, 1, ScriptedDice([3, 3]), active="a", initiative="b", rerolls=rr)
    assert calls == ["a", "b"]     # A = b (initiative): a (as B) re-rolls first


def test_each_die_at_most_once_per_source():
    rr = Rerolls(a_on_a=lambda t, o: [0, 0, 0])
    dice = ScriptedDice([1, 6])
    r = challenge_test(1, 2, 0, dice, rerolls=rr)
    assert r.roll.rolled == (6,) and len(r.roll.rerolls) == 1 and dice.remaining == 0
    with pytest.raises(ValueError):
        challenge_test(1, 2, 0, ScriptedDice([1, 6]), rerolls=Rerolls(a_on_a=lambda t, o: [3]))


def test_several_sources_and_helpers():
    rr = Rerolls(a_on_a=[reroll_below(3, limit=1), reroll_below(3)], b_on_a=reroll_above(5))
    # rolled 6,1,2. B re-rolls the 6 -> 4. A's first source re-rolls the 1 -> 2,
    # the second source re-rolls both 2s -> 5, 3.
    r = challenge_test(3, 1, 0, ScriptedDice([6, 1, 2, 4, 2, 5, 3]), rerolls=rr)
    assert r.roll.rolled == (4, 5, 3)
    assert [x.by for x in r.roll.rerolls] == ["b", "a", "a", "a"]


def test_challenge_reroll_order_when_tester_is_not_leader():
    calls = []
    rr = Rerolls(a_on_a=lambda t, o: calls.append("own") or [],
                 b_on_a=lambda t, o: calls.append("opponent") or [])
    challenge_test(1, 2, 0, ScriptedDice([3]), rerolls=rr)
    challenge_test(1, 2, 0, ScriptedDice([3]), rerolls=rr, tester_leads=False)
    assert calls == ["opponent", "own", "own", "opponent"]


# --------------------------------------------------------------------- Size tests


def test_size_test_dice():
    assert [size_test_dice(s) for s in (Size.TINY, Size.SMALL, Size.MEDIUM, Size.LARGE, Size.HUGE)] == [1, 2, 3, 4, 5]
    assert size_test_dice(Size.SMALL, strong=True) == 3
    assert size_test_dice(Size.SMALL, weak=True) == 1
    assert size_test_dice(Size.SMALL, strong=True, weak=True) == 2
    assert size_test_dice(Size.TINY, swarm=True) == 0
    with pytest.raises(ValueError):
        size_test_dice(Size.ZERO)


def test_size_test_rolls():
    dice = ScriptedDice([4])
    r = size_test(Size.TINY, 4, dice, swarm=True)   # pool 0 still rolls one die
    assert r.success and dice.remaining == 0
    r = size_test(Size.LARGE, 6, ScriptedDice([5, 3, 2, 2]))
    assert r.roll.final == 7 and r.success_level == 1


# --------------------------------------------------------------------- Tactical test


def test_tactical_rerolls_ties():
    # 1 v 1 (both 0), 4 v 4 (same dice count): rolled again; 5 v 3: player 1.
    r = tactical_test(ScriptedDice([1, 1, 4, 4, 5, 3]))
    assert r.winner == 1 and len(r.rounds) == 3
    assert [(a.final, b.final) for a, b in r.rounds] == [(0, 0), (4, 4), (5, 3)]


def test_tactical_modifiers_and_tactician():
    assert tactical_test(ScriptedDice([5, 6]), mod_1=2).winner == 1
    # Tactician (1): two dice for player 1; 4+1 support = 5 beats 4.
    r = tactical_test(ScriptedDice([4, 2, 4]), tactician_1=1)
    assert r.winner == 1 and r.rounds[0][0].final == 5
    # Tie on results, player 2 counts more dice (player 1's second die is a 1).
    r = tactical_test(ScriptedDice([5, 1, 4, 2]), tactician_1=1, tactician_2=1)
    assert r.winner == 2 and len(r.rounds) == 1
    with pytest.raises(DiceError):
        tactical_test(ScriptedDice([3, 3] * 3), max_rounds=3)


# --------------------------------------------------------------------- Fear tests


def test_fear_test_is_a_ki_challenge():
    r = fear_test(2, 4, ScriptedDice([3, 2]))
    assert r.passed and not r.automatic and r.test.roll.final == 4
    r = fear_test(2, 5, ScriptedDice([3, 2]))
    assert not r.passed


def test_own_fear_auto_passes_equal_or_lower_tn():
    assert fear_test(1, 2, ScriptedDice([]), own_fear=2).automatic
    assert fear_test(1, 1, ScriptedDice([]), own_fear=2).passed
    r = fear_test(1, 3, ScriptedDice([2]), own_fear=2)      # TN above own Fear: must roll
    assert not r.automatic and not r.passed
    assert fear_test(0, 9, ScriptedDice([]), fearless=True).passed


def test_dread_removes_auto_pass_and_lowers_ki():
    dice = ScriptedDice([4])
    r = fear_test(2, 2, dice, own_fear=3, dread=2)     # Ki 2 - 2 -> still one die
    assert not r.automatic and r.passed and len(r.test.roll.rolled) == 1


def test_fear_whole_test_rerolls():
    r = fear_test(1, 4, ScriptedDice([2, 5]), bravery=True)
    assert r.passed and r.retest is not None
    r = fear_test(1, 4, ScriptedDice([5, 2]), cowardly=True)
    assert not r.passed and r.test.success
    r = fear_test(1, 4, ScriptedDice([5, 2]), terror=True)
    assert not r.passed
    r = fear_test(1, 4, ScriptedDice([5]), terror=True, bravery=True)   # cancel
    assert r.passed and r.retest is None
    r = fear_test(1, 4, ScriptedDice([2]), cowardly=True, bravery=True)
    assert not r.passed and r.retest is None


def test_fear_test_needed_triggers():
    (c,) = fear_test_needed(active_fear=None, enemy_fear=3)
    assert (c.tester, c.target_number, c.on_fail) == ("active", 3, FearOutcome.LOSE_ACTIVATION)
    (c,) = fear_test_needed(active_fear=2, enemy_fear=None)
    assert (c.tester, c.target_number, c.on_fail) == ("enemy", 2, FearOutcome.FRIGHTENED)
    assert len(fear_test_needed(active_fear=2, enemy_fear=3)) == 2
    assert fear_test_needed(active_fear=2, enemy_fear=None, cause="effect") == ()
    assert len(fear_test_needed(active_fear=None, enemy_fear=3, cause="effect")) == 1
    assert fear_test_needed(active_fear=2, enemy_fear=3, cause=None) == ()
    assert fear_test_needed(active_fear=None, enemy_fear=None) == ()
    (c,) = fear_test_needed(active_fear=None, enemy_fear=3, active_steadfast=True)
    assert c.on_fail == FearOutcome.CONTINUE_FRIGHTENED


# --------------------------------------------------------------------- properties


@given(st.lists(d6, max_size=10), st.integers(-5, 5), st.integers(0, 3))
def test_final_is_zero_or_bounded(values, mod, adept):
    r = evaluate_roll(values, mod, RollOptions(adept=adept))
    limit = 2 + adept
    assert r.final == 0 and not r.kept or 2 + mod <= r.final <= 6 + mod + limit
    assert r.dice_counted == len(r.kept) == len(values) - values.count(1)
    assert r.supports <= limit


@given(st.integers(-3, 8), st.integers(-5, 12), st.integers(-3, 3), st.integers(0, 2**32))
def test_challenge_level_never_negative(pool, tn, mod, seed):
    r = challenge_test(pool, tn, mod, SeededDice(seed))
    assert r.success_level >= 0
    assert r.success == (r.roll.final >= tn)
    if r.success:
        assert r.success_level == r.roll.final - tn


@given(st.integers(-3, 8), st.integers(-3, 8), st.integers(-3, 3), st.integers(-3, 3),
       st.sampled_from("ab"), st.integers(0, 2**32))
def test_opposed_exactly_one_winner(pa, pb, ma, mb, active, seed):
    r = opposed_test(pa, pb, SeededDice(seed), ma, mb, active)
    assert r.winner in ("a", "b")
    assert r.success_level == abs(r.roll_a.final - r.roll_b.final) >= 0
    win, lose = (r.roll_a, r.roll_b) if r.winner == "a" else (r.roll_b, r.roll_a)
    assert win.final >= lose.final
    assert len(r.roll_a.rolled) >= 1 and len(r.roll_b.rolled) >= 1


@given(st.integers(), st.integers(0, 30))
def test_seeded_dice_reproducible(seed, n):
    assert SeededDice(seed).roll(n) == SeededDice(seed).roll(n)


@settings(max_examples=50)
@given(st.integers(0, 2**32), st.integers(-2, 2), st.integers(-2, 2))
def test_tactical_always_decides(seed, m1, m2):
    r = tactical_test(SeededDice(seed), m1, m2)
    a, b = r.rounds[-1]
    assert r.winner in (1, 2)
    assert (a.final, a.dice_counted) != (b.final, b.dice_counted)
