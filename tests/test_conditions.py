"""Conditions of p.43-45 (sim/rules/conditions.py): one test per effect and per removal."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sim.rules import conditions as C
from sim.rules.conditions import (
    ACTIONS,
    COMPLEX_ACTIONS,
    CONDITIONS,
    allowed_actions,
    end_phase_damage,
    end_phase_expiry,
    forbidden_reason,
    pool_modifiers,
    removed_by_wait,
)
from tests.conftest import body, scene


# ----------------------------------------------------------------------- the table
def test_every_condition_of_p43_45_is_listed_once():
    assert set(CONDITIONS) == {
        "berserk", "bleed", "blind", "controlled", "death_sentence", "diseased", "disguised",
        "frightened", "held", "immobilised", "impetuous", "on_fire", "poisoned", "prone",
        "reloading", "spirit_block", "stunned"}
    for c in CONDITIONS.values():
        assert 43 <= c.page <= 45
        assert 1230 <= c.lines[0] <= c.lines[1] <= 1360
        assert c.effect and c.removal


def test_names_are_normalised_and_unknown_keys_ignored():
    conds = {"Immobilized": 1, "fire": [2], "ran": 1, "surprised": 1, "stunned": 0}
    assert C.normalise(conds) == {"immobilised": 1, "on_fire": [2]}
    assert C.has(conds, "on fire") and C.count(conds, "fire") == 1
    with pytest.raises(C.ConditionError):
        C.count(conds, "sleepy")


def test_from_model_merges_markers(default_table):
    from sim.rules.game import Game

    g = Game(default_table, seed=1, length=("fixed", 1))
    m = next(iter(g.state.models.values()))
    m.conditions["stunned"] = 2
    m.markers["fire"] = [2, 1]
    m.markers["poison"] = []
    assert C.from_model(m) == {"stunned": 2, "on_fire": [2, 1]}


def test_no_condition_no_restriction():
    assert allowed_actions({}) is None
    assert allowed_actions({"ran": 1}) is None
    assert all(forbidden_reason(a, {}) is None for a in ACTIONS)
    assert pool_modifiers({}, "melee") == [] and removed_by_wait({}) == []


# ----------------------------------------------------------------------- Berserk
def test_berserk_gives_aggressive_and_impetuous():
    conds = C.gain_condition({}, "berserk")
    assert conds == {"berserk": 1, "impetuous": 1}
    assert C.traits_gained(conds) == {"aggressive"}


@pytest.mark.parametrize("melee, counters, charge, run, expected", [
    (True, 2, True, True, "melee"),
    (False, 2, True, True, "charge"),
    (False, 1, True, True, "run"),
    (False, 2, False, True, "run"),
    (False, 2, False, False, None),
])
def test_berserk_forced_action_steps(melee, counters, charge, run, expected):
    got = C.berserk_action(melee_reachable=melee, counters=counters, charge_reachable=charge, can_run=run)
    assert got == expected
    if expected:
        others = ACTIONS - {expected}
        assert all(forbidden_reason(a, {"berserk": 1}, berserk_forced=expected) for a in others)
        assert forbidden_reason(expected, {"berserk": 1}, berserk_forced=expected) is None


def test_berserk_removed_at_end_phase():
    assert end_phase_expiry({"berserk": 2, "impetuous": 1}) == {"berserk": 2}
    assert C.apply_end_phase_expiry({"berserk": 2, "impetuous": 1}) == {"impetuous": 1}


# ----------------------------------------------------------------------- Bleed / Poison / Fire
@pytest.mark.parametrize("values, removed, wounds", [
    ([2, 2, 1], [2], 2),          # three markers: remove the highest, two left: stop
    ([1, 2, 2], [2], 2),          # order given does not matter
    ([3, 2, 2, 1], [3, 2], 5),    # four: remove 3, three left: remove 2, two left
    ([1, 1, 1, 1, 1], [1, 1, 1], 3),
    ([4], [4], 4),                # one marker: removed
    ([2, 1], [2], 2),             # two markers: only the highest
    ([], [], 0),
])
@pytest.mark.parametrize("kind", ["bleed", "poisoned", "on_fire", "fire", "poison"])
def test_end_phase_damage_loop(kind, values, removed, wounds):
    assert end_phase_damage(kind, values) == (removed, wounds)


@given(st.lists(st.integers(1, 6), max_size=12))
def test_end_phase_damage_properties(values):
    removed, wounds = end_phase_damage("bleed", values)
    left = list(values)
    for v in removed:
        left.remove(v)
    assert wounds == sum(removed)
    assert len(left) == (min(2, len(values) - 1) if values else 0)
    assert all(r >= v for r in removed for v in left)  # the highest go first


def test_end_phase_damage_rejects_other_conditions():
    with pytest.raises(C.ConditionError):
        end_phase_damage("stunned", [1])


@settings(max_examples=15, deadline=None)
@given(st.lists(st.integers(1, 3), min_size=1, max_size=6))
def test_game_end_phase_matches_end_phase_damage(values):
    from sim.rules.game import Action, Game
    from tests.conftest import make_table, set_model

    table = make_table([{"id": "a", "player": 1, "position": [4, 4]},
                        {"id": "b", "player": 2, "position": [20, 20]}])
    g = Game(table, seed=3, length=("fixed", 2))
    set_model(g, "a", wounds=100, markers={"bleed": list(values)})
    while g.state.phase == "main":  # both players wait: the End phase comes
        m = next(x for x in g.state.alive(g.state.active) if not x.exhausted)
        g.push(Action("wait", m.id))
    dmg = [e for e in g.events if e.kind == "marker_damage" and e.data["model"] == "a"]
    removed, wounds = end_phase_damage("bleed", values)
    assert dmg and sorted(dmg[0].data["removed"]) == sorted(removed) and dmg[0].data["wounds"] == wounds


def test_fire_ignores_tough_bleed_and_poison_do_not():
    assert C.end_phase_wounds("on_fire", [3, 2, 2], tough=1) == ([3], 3)
    assert C.end_phase_wounds("bleed", [3, 2, 2], tough=1) == ([3], 2)
    assert C.end_phase_wounds("poisoned", [3, 3, 3, 3], tough=1) == ([3, 3], 4)
    assert C.end_phase_wounds("poisoned", [3, 3, 3, 3], durable=True) == ([3, 3], 2)


def test_healing_removes_all_bleed_markers():
    assert C.on_healed({"bleed": [2, 1], "poisoned": [1]}, healed=1) == {"poisoned": [1]}
    assert C.on_healed({"bleed": [2, 1]}, healed=0) == {"bleed": [2, 1]}


def test_fire_removed_by_wait_up_to_two_highest_first():
    opts = removed_by_wait({"on_fire": [1, 3, 2]})
    assert [o.key for o in opts] == ["on_fire"]
    assert C.apply_wait({"on_fire": [1, 3, 2]}, "on_fire") == {"on_fire": [1]}
    assert C.apply_wait({"on_fire": [2]}, "on_fire") == {}


def test_friend_in_btb_may_only_remove_fire_by_wait():
    conds = {"on_fire": [1], "stunned": 1, "reloading": 1}
    assert [o.key for o in removed_by_wait(conds, friendly=True)] == ["on_fire"]


def test_poison_and_bleed_are_not_removed_by_wait():
    assert removed_by_wait({"poisoned": [2], "bleed": [1]}) == []


def test_gaining_valued_markers_keeps_values():
    conds = C.gain_condition({}, "bleed", 2, value=3)
    conds = C.gain_condition(conds, "bleed", 1, value=1)
    assert conds == {"bleed": [3, 3, 1]}
    assert C.gain_condition({}, "poison", immune=["poisoned"]) == {}


# ----------------------------------------------------------------------- Blind
def test_blind_forbids_run_and_charge_and_gives_melee_minus_one():
    conds = {"blind": 1}
    assert allowed_actions(conds) == ACTIONS - {"run", "charge"}
    assert forbidden_reason("run", conds) and forbidden_reason("charge", conds)
    assert forbidden_reason("walk", conds) is None
    assert pool_modifiers(conds, "melee") == [("Blind (p.43)", -1)]
    assert pool_modifiers(conds, "ranged") == []


def test_blind_sees_only_in_btb_in_the_geometry():
    assert C.los_only_in_btb({"blind": 1})
    sc = scene(body("a", 0, 0, blind=C.los_only_in_btb({"blind": 1})), body("b", 3, 0), body("c", 1.19, 0))
    assert not sc.los("a", "b") and sc.los("a", "c")


def test_blind_removed_at_end_phase_and_sixth_sense_immune():
    assert end_phase_expiry({"blind": 1}) == {"blind": 1}
    assert C.gain_condition({}, "blind", immune=["sixth_sense"]) == {}


# ----------------------------------------------------------------------- Controlled
def test_controlled_one_marker_no_complex_actions():
    assert allowed_actions({"controlled": 1}) == ACTIONS - COMPLEX_ACTIONS
    assert allowed_actions({"controlled": 2}) is None
    assert forbidden_reason("focus", {"controlled": 1})
    assert forbidden_reason("focus", {"controlled": 2}) is None


def test_controlled_cannot_spend_tokens_but_generates_ki():
    assert not C.can_spend_tokens({"controlled": 2})
    assert C.generates_ki({"controlled": 2})


def test_controlled_markers_removed_per_counter_and_new_markers_remove_instead():
    assert C.controlled_after({"controlled": 3}, counters_removed=2) == {"controlled": 1}
    assert C.controlled_after({"controlled": 1}, exchange_without_counter=True) == {}
    assert C.gain_condition({}, "controlled", 2) == {"controlled": 2}
    assert C.gain_condition({"controlled": 2}, "controlled", 1) == {"controlled": 1}


# ----------------------------------------------------------------------- Death Sentence
def test_death_sentence_helps_the_enemy_once():
    for kind in ("melee", "ranged", "damage"):
        assert C.opponent_modifiers({"death_sentence": 3}, kind) == [("Death Sentence (p.43)", 1)]
    assert pool_modifiers({"death_sentence": 1}, "melee") == []


def test_death_sentence_removed_for_three_ki_in_the_starting_phase():
    assert C.start_phase_effects({"death_sentence": 1}, ki=3).death_sentence_option
    assert not C.start_phase_effects({"death_sentence": 1}, ki=2).death_sentence_option
    assert not C.start_phase_effects({"death_sentence": 1, "controlled": 1}, ki=5).death_sentence_option
    assert C.DEATH_SENTENCE_REMOVAL_COST == 3


# ----------------------------------------------------------------------- Diseased
def test_diseased_removes_a_marker_and_a_counter_in_the_starting_phase():
    sp = C.start_phase_effects({"diseased": 2})
    assert sp.remove == {"diseased": 1} and sp.counters_lost == 1 and sp.generates_ki
    assert C.remove_condition({"diseased": 2}, "diseased", 1) == {"diseased": 1}


# ----------------------------------------------------------------------- Disguised
def test_disguised_targeting_by_enemy_ki():
    conds = C.gain_condition({}, "disguised", value=4)
    assert C.disguise_requirement(conds, enemy_ki_stat=1) == ("forbidden", 4)
    assert C.disguise_requirement(conds, enemy_ki_stat=2) == ("ki_test", 4)
    assert C.disguise_requirement({}, enemy_ki_stat=1) is None
    assert C.count(conds, "disguised") == 1 and C.value(conds, "disguised") == 4


def test_disguised_zoc_ignorable_and_lost_by_attacking():
    assert C.zoc_ignorable_by_enemies({"disguised": 3})
    for kind in ("melee", "shoot", "charge", "scenario"):
        assert C.disguise_lost_by(kind)
    assert not C.disguise_lost_by("walk")
    assert C.disguise_lost_by("wait", in_exchange=True)


# ----------------------------------------------------------------------- Frightened
def test_frightened_modifiers_defensive_and_contact_ban():
    conds = C.gain_condition({}, "frightened", value=3)
    assert pool_modifiers(conds, "melee") == [("Frightened (p.44)", -1)]
    assert pool_modifiers(conds, "ranged") == [("Frightened (p.44)", -1)]
    assert C.traits_gained(conds) == {"defensive"}
    assert forbidden_reason("charge", conds, contacts_fear_enemy=True)
    assert forbidden_reason("charge", conds) is None
    assert C.frightened_auto_fails_fear(conds, "main") and not C.frightened_auto_fails_fear(conds, "end")


def test_frightened_end_phase_test_at_the_highest_tn():
    conds = C.gain_condition(C.gain_condition({}, "frightened", value=3), "frightened", value=5)
    conds = C.gain_condition(conds, "frightened", value=4)
    assert C.end_phase_tests(conds) == [("frightened", 5)]
    assert end_phase_expiry(conds) == {}
    assert C.remove_condition(conds, "frightened") == {}
    assert C.gain_condition({}, "frightened", value=3, immune=["fearless"]) == {}


# ----------------------------------------------------------------------- Held
def test_held_only_disengage_ki_feats_stand_up():
    conds = C.gain_condition({}, "held", value="enemy1")
    assert allowed_actions(conds) == {"disengage", "ki_feat", "complex_ki_feat", "stand_up"}
    assert forbidden_reason("walk", conds) and forbidden_reason("melee", conds)
    assert forbidden_reason("disengage", conds) is None
    assert pool_modifiers(conds, "melee") == [("Held (p.44)", -1)]
    assert not C.can_be_moved(conds) and C.traits_gained(conds) == {"defensive"}
    assert C.value(conds, "held") == "enemy1"


def test_held_release_and_immunity():
    assert not C.held_released(in_btb_with_holder=True)
    assert C.held_released(in_btb_with_holder=False)
    assert C.held_released(in_btb_with_holder=True, holder_in_exchange_with_other=True)
    assert C.held_released(in_btb_with_holder=True, disengaged_from_holder=True)
    assert C.gain_condition({}, "held", immune=["agile"]) == {}
    assert C.gain_condition({}, "held", immune=["intangible"]) == {}


def test_held_and_prone_leave_only_stand_up():
    assert allowed_actions({"held": 1, "prone": 1}) == {"stand_up"}


# ----------------------------------------------------------------------- Immobilised
def test_immobilised_size_test_before_moving_actions():
    conds = {"immobilised": 2}
    for kind in ("melee", "run", "charge", "scenario", "stand_up", "walk", "heal"):
        assert C.immobilised_test_needed(conds, kind)
    assert not C.immobilised_test_needed(conds, "focus")
    assert C.immobilised_test_needed(conds, "shoot", moves=True)
    assert not C.immobilised_test_needed(conds, "shoot")
    assert not C.immobilised_test_needed({}, "run")
    assert C.IMMOBILISED_SIZE_TN == 6
    assert allowed_actions(conds) is None  # a test, not a ban


def test_immobilised_effects_and_removal():
    conds = {"immobilised": 2}
    assert C.no_special_attacks(conds) and C.contact_ignorable_by_enemies(conds)
    assert pool_modifiers(conds, "melee") == [("Immobilised (p.44)", -1)]
    assert C.apply_wait(conds, "immobilised") == {}
    assert C.gain_condition({}, "immobilised", immune=["intangible"]) == {}


# ----------------------------------------------------------------------- Impetuous
def test_impetuous_blocks_others_and_is_removed_after_an_action():
    warband = [{"impetuous": 1}, {}, {"stunned": 1}]
    assert C.impetuous_blocks_activation({}, warband)
    assert not C.impetuous_blocks_activation({"impetuous": 1}, warband)
    assert not C.impetuous_blocks_activation({}, [{}, {}])
    assert C.impetuous_after_action({"impetuous": 2}, counters_spent=1) == {"impetuous": 1}
    assert C.impetuous_after_action({"impetuous": 1}, counters_spent=0) == {"impetuous": 1}


# ----------------------------------------------------------------------- Prone
def test_prone_only_stand_up():
    assert allowed_actions({"prone": 1}) == {"stand_up"}
    for kind in ACTIONS - {"stand_up"}:
        assert forbidden_reason(kind, {"prone": 1})
    assert forbidden_reason("stand_up", {"prone": 1}) is None


def test_prone_effects():
    conds = {"prone": 1}
    assert pool_modifiers(conds, "melee") == [("Prone (p.45)", -1)]
    assert not C.blocks_los(conds) and C.zoc_ignorable_by_enemies(conds)
    assert C.contact_ignorable_by_enemies(conds) and C.no_special_attacks(conds)
    assert C.strikes_second(conds) and not C.strikes_second(conds, stood_up=True)
    assert C.opponent_modifiers(conds, "tn") == [("target Prone (p.31)", -1)]
    assert C.gain_condition(conds, "prone") == {"prone": 1}


def test_prone_model_does_not_block_los_in_the_geometry():
    wall = [body("a", 0, 0), body("p", 3, 0, prone=not C.blocks_los({"prone": 1})), body("b", 6, 0)]
    assert scene(*wall).los("a", "b")


def test_prone_removed_only_by_stand_up():
    assert removed_by_wait({"prone": 1}) == [] and end_phase_expiry({"prone": 1}) == {}


# ----------------------------------------------------------------------- Reloading
def test_reloading_blocks_reload_weapons_and_wait_removes_one():
    conds = {"reloading": 2}
    assert not C.can_fire(conds, weapon_has_reload=True) and C.can_fire(conds, weapon_has_reload=False)
    assert forbidden_reason("shoot", conds, weapon_has_reload=True)
    assert forbidden_reason("shoot", conds) is None
    assert C.apply_wait(conds, "reloading") == {"reloading": 1}


# ----------------------------------------------------------------------- Spirit Block
def test_spirit_block_no_ki_generation_one_marker_removed():
    sp = C.start_phase_effects({"spirit_block": 2})
    assert not sp.generates_ki and sp.remove == {"spirit_block": 1}
    assert not C.generates_ki({"spirit_block": 1})
    assert allowed_actions({"spirit_block": 1}) is None  # no ban on Ki feats in the text


# ----------------------------------------------------------------------- Stunned
def test_stunned_modifiers_once_whatever_the_markers():
    assert pool_modifiers({"stunned": 3}, "melee") == [("Stunned (p.45)", -1)]
    assert pool_modifiers({"stunned": 3}, "ranged") == [("Stunned (p.45)", -1)]


def test_stunned_loses_one_marker_at_end_phase_all_on_wait():
    assert end_phase_expiry({"stunned": 3}) == {"stunned": 1}
    assert C.apply_end_phase_expiry({"stunned": 3}) == {"stunned": 2}
    assert C.apply_end_phase_expiry({"stunned": 1}) == {}
    assert C.apply_wait({"stunned": 3}, "stunned") == {}


# ----------------------------------------------------------------------- Wait list
def test_wait_options_in_rulebook_order_and_one_at_a_time():
    conds = {"reloading": 1, "on_fire": [1], "immobilised": 1, "stunned": 2}
    assert [o.key for o in removed_by_wait(conds)] == ["stunned", "immobilised", "on_fire", "reloading"]
    after = C.apply_wait(conds, "stunned")
    assert after == {"reloading": 1, "on_fire": [1], "immobilised": 1}
    with pytest.raises(C.ConditionError):
        C.apply_wait({}, "stunned")


# ----------------------------------------------------------------------- modifiers agree with melee.py
@pytest.mark.parametrize("names", [("prone",), ("blind", "stunned"), ("frightened", "held", "immobilised"),
                                   ("prone", "blind", "stunned", "frightened", "immobilised", "held")])
def test_melee_pool_modifiers_agree_with_melee_module(names):
    from sim.rules.melee import Combatant, MeleeWeapon
    from sim.rules.melee import pool_modifiers as melee_mods

    comb = Combatant(id="x", melee=3, active=True, weapon=MeleeWeapon.of("Unarmed", 0), conditions=frozenset(names))
    ours = pool_modifiers({n: 1 for n in names}, "melee")
    assert sum(v for _, v in ours) == sum(v for _, v in melee_mods(comb))


def test_pool_modifiers_kind_checked():
    assert pool_modifiers({"stunned": 1}, "test") == []
    with pytest.raises(ValueError):
        pool_modifiers({}, "damage")
    with pytest.raises(ValueError):
        C.opponent_modifiers({}, "test")

