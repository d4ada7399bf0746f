"""Ki tokens, boosts and feats (sim/rules/ki.py, rulebook p.10, p.20-25, p.46-47)."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sim.rules import ki as K
from sim.rules.dice import PhysicalDice, modified_stat
from sim.rules.ki import GENERIC_FEATS, Feat, FeatUsage, KiError, KiPool, can_use, targets_in_area
from tests.conftest import body, make_table, piece, rect, scene


@dataclass
class FakeModel:
    """The fields of ModelState that the Ki rules read."""

    ki: int = 3
    ki_stat: int = 2
    ki_limit: int = 6
    counters: int = 2
    conditions: dict = field(default_factory=dict)
    markers: dict = field(default_factory=dict)


def ok_kw(**over):
    """can_use keywords for an unhindered active model in the Main phase."""
    kw = dict(in_btb=False, moved_this_activation=False, used_this_turn=False, used_this_game=False,
              ki_available=6, phase="main", is_active_model=True)
    kw.update(over)
    return kw


# ----------------------------------------------------------------------- tokens
@given(st.integers(0, 6), st.integers(0, 4), st.lists(st.tuples(st.sampled_from(["gain", "spend", "gen", "focus"]),
                                                                  st.integers(0, 8)), max_size=30))
def test_ki_pool_never_above_limit_nor_below_zero(start, stat, ops):
    pool = KiPool(start, stat, 6)
    for op, n in ops:
        before = pool.tokens
        if op == "gain":
            pool = pool.gain(n)
            assert pool.tokens == min(6, before + n)
        elif op == "gen":
            pool = pool.generate()
        elif op == "focus":
            pool = pool.focus()
        elif pool.can_spend(n):
            pool = pool.spend(n)
            assert pool.tokens == before - n
        else:
            with pytest.raises(KiError):
                pool.spend(n)
            assert pool.tokens == before
        assert 0 <= pool.tokens <= pool.limit


def test_ki_pool_rejects_bad_values():
    with pytest.raises(KiError):
        KiPool(7, 2, 6)
    with pytest.raises(KiError):
        KiPool(1, 2, 6).spend(-1)
    with pytest.raises(KiError):
        KiPool(1, 2, 6).gain(-1)


def test_generation_and_focus():
    assert KiPool(5, 2, 6).generate().tokens == 6  # excess discarded (p.10)
    assert KiPool(1, 2, 6).generate({"spirit_block": 1}).tokens == 1
    assert KiPool(1, 2, 6).focus().tokens == 3
    m = FakeModel(ki=5, ki_stat=3, ki_limit=6)
    assert K.ki_generated(m) == 1 and K.focus_gain(m) == 1
    assert K.ki_generated(FakeModel(ki=0, conditions={"spirit_block": 1})) == 0
    assert K.focus_gain(FakeModel(ki=0, conditions={"spirit_block": 1})) == 2


def test_pool_of_game_model(default_table):
    from sim.rules.game import Game

    g = Game(default_table, seed=2, length=("fixed", 1))
    for m in g.state.models.values():
        pool = KiPool.of(m)
        assert (pool.tokens, pool.stat, pool.limit) == (m.ki, m.ki_stat, m.ki_limit)


# ----------------------------------------------------------------------- boosts
@given(st.integers(0, 5), st.integers(-3, 3), st.integers(1, 3), st.integers(0, 12))
def test_boost_never_above_twice_the_base(base, mods, boost, ki):
    steps = K.max_boost_steps(base, mods, boost=boost, ki_available=ki)
    b = K.boost_stat(base, steps, boost=boost, ki_available=ki, modifiers=mods)
    cap = 2 * base if base else 1
    assert b.stat <= cap and b.cost <= ki and b.cost == steps * boost
    assert b.stat == modified_stat(base, mods + steps)
    with pytest.raises(KiError):
        K.boost_stat(base, steps + 1, boost=boost, ki_available=ki, modifiers=mods)


def test_boost_examples():
    assert K.boost_stat(3, 3, boost=1, ki_available=3) == K.Boost(6, 3, 3)
    with pytest.raises(KiError, match="twice"):
        K.boost_stat(3, 4, boost=1, ki_available=9)
    with pytest.raises(KiError, match="has 3"):
        K.boost_stat(3, 2, boost=2, ki_available=3)
    assert K.boost_stat(0, 1, boost=1, ki_available=1).stat == 1  # 0 can be raised to 1
    with pytest.raises(KiError):
        K.boost_stat(None, 1, boost=1, ki_available=5)  # "-" statistic
    with pytest.raises(KiError):
        K.boost_stat(3, 1, boost=None, ki_available=5)  # no boost icon


def test_boost_restrictions():
    with pytest.raises(KiError, match="Main phase"):
        K.boost_stat(3, 1, boost=1, ki_available=5, phase="end")
    with pytest.raises(KiError, match="Surprised"):
        K.boost_stat(3, 1, boost=1, ki_available=5, surprised=True)
    with pytest.raises(KiError, match="Controlled"):
        K.boost_stat(3, 1, boost=1, ki_available=5, conditions={"controlled": 2})
    assert K.boost_stat(3, 0, boost=1, ki_available=0, modifiers=-1).stat == 2


def test_boost_cost_modifiers_apply_per_step_never_below_one():
    assert K.boost_cost(2, 3) == 6
    assert K.boost_cost(1, 3, modifier=-1) == 3
    assert K.boost_cost(1, 3, modifier=-1, explicit_zero=True) == 0
    assert K.boost_cost(1, 2, modifier=1) == 4


# ----------------------------------------------------------------------- feat records
def test_feat_validation_and_area_parsing():
    with pytest.raises(ValueError):
        Feat("x", timing="sometimes")
    with pytest.raises(ValueError):
        Feat("x", area="aura")  # no range
    with pytest.raises(ValueError):
        Feat("x", cost="Y")
    with pytest.raises(ValueError):
        Feat("x", timing="simple", boost=True)
    assert K.parse_area('Target (6")') == ("target", 6.0)
    assert K.parse_area("Aura 3") == ("aura", 3.0)
    assert K.parse_area("Personal") == ("personal", None)
    with pytest.raises(ValueError):
        K.parse_area("Pulse")


def test_feat_cost_fixed_variable_and_floor():
    bolt, wave = GENERIC_FEATS["Spirit Bolt"], GENERIC_FEATS["Shockwave"]
    assert K.feat_cost(bolt) == 2
    assert K.feat_cost(bolt, modifier=-5) == 1  # never below one through modifiers (p.46)
    assert K.feat_cost(bolt, modifier=-5, explicit_zero=True) == 0
    assert K.feat_cost(bolt, modifier=1) == 3  # Disturb Flow
    assert K.feat_cost(wave, x=3) == 3
    with pytest.raises(KiError):
        K.feat_cost(wave)
    with pytest.raises(KiError):
        K.feat_cost(wave, x=4)  # max_x 3
    with pytest.raises(KiError):
        K.feat_cost(wave, x=0)


def test_generic_feats_cover_every_timing_and_area():
    feats = GENERIC_FEATS.values()
    assert {f.timing for f in feats} == set(K.TIMINGS)
    assert {f.area for f in feats} == set(K.AREAS)
    assert any(f.boost for f in feats) and any(f.opposed for f in feats) and any(f.challenge for f in feats)


# ----------------------------------------------------------------------- can_use: timing
def test_instant_any_time_any_model():
    calm = GENERIC_FEATS["Inner Calm"]
    for phase in ("start", "main", "end"):
        assert can_use(calm, FakeModel(), **ok_kw(phase=phase, is_active_model=False)) == (True, [])
    assert not calm.is_action


def test_active_only_while_controller_is_active():
    ward = GENERIC_FEATS["Warding Presence"]
    assert can_use(ward, FakeModel(), **ok_kw(is_active_model=False, controller_is_active=True))[0]
    ok, why = can_use(ward, FakeModel(), **ok_kw(is_active_model=False, controller_is_active=False))
    assert not ok and "Active" in why[0]
    assert not can_use(ward, FakeModel(), **ok_kw(phase="end"))[0]


def test_simple_and_complex_only_in_own_activation_with_counters():
    bolt, wave = GENERIC_FEATS["Spirit Bolt"], GENERIC_FEATS["Shockwave"]
    assert can_use(bolt, FakeModel(), **ok_kw())[0]
    assert not can_use(bolt, FakeModel(), **ok_kw(is_active_model=False))[0]
    assert not can_use(bolt, FakeModel(), **ok_kw(phase="start"))[0]
    assert can_use(wave, FakeModel(counters=2), **ok_kw(x=2))[0]
    ok, why = can_use(wave, FakeModel(counters=1), **ok_kw(x=2))
    assert not ok and any("Complex" in w for w in why)
    assert not can_use(bolt, FakeModel(counters=0), **ok_kw())[0]
    assert bolt.action_kind == "ki_feat" and wave.action_kind == "complex_ki_feat"


def test_boost_feat_only_in_main_phase():
    boost = K.boost_feat("melee", 1)
    assert boost.timing == "instant" and boost.area == "personal" and boost.cost == 1
    assert can_use(boost, FakeModel(), **ok_kw(is_active_model=False))[0]
    assert not can_use(boost, FakeModel(), **ok_kw(phase="start"))[0]


# ----------------------------------------------------------------------- can_use: limits
def test_once_per_turn_and_per_game():
    calm, wave = GENERIC_FEATS["Inner Calm"], GENERIC_FEATS["Shockwave"]
    assert not can_use(calm, FakeModel(), **ok_kw(used_this_turn=True))[0]
    assert can_use(calm, FakeModel(), **ok_kw(used_this_game=True))[0]
    assert not can_use(wave, FakeModel(), **ok_kw(used_this_game=True, x=1))[0]
    assert can_use(wave, FakeModel(), **ok_kw(used_this_turn=True, x=1))[0]


def test_feat_usage_boxes():
    calm, wave, bolt = GENERIC_FEATS["Inner Calm"], GENERIC_FEATS["Shockwave"], GENERIC_FEATS["Spirit Bolt"]
    u = FeatUsage().record(calm).record(wave).record(bolt)
    assert u.used_this_turn(calm) and u.used_this_game(wave) and not u.used_this_turn(bolt)
    u = u.end_phase()
    assert not u.used_this_turn(calm) and u.used_this_game(wave)


def test_no_btb():
    bolt, clash = GENERIC_FEATS["Spirit Bolt"], GENERIC_FEATS["Mind Clash"]
    ok, why = can_use(bolt, FakeModel(), **ok_kw(in_btb=True))
    assert not ok and "No BtB" in why[0]
    assert can_use(clash, FakeModel(), **ok_kw(in_btb=True))[0]  # no icon: usable in BtB


def test_no_movement():
    wave, bolt = GENERIC_FEATS["Shockwave"], GENERIC_FEATS["Spirit Bolt"]
    ok, why = can_use(wave, FakeModel(), **ok_kw(moved_this_activation=True, x=1))
    assert not ok and "No movement" in why[0]
    assert can_use(bolt, FakeModel(), **ok_kw(moved_this_activation=True))[0]


def test_cost_against_ki_and_condition_limits():
    bolt = GENERIC_FEATS["Spirit Bolt"]
    assert not can_use(bolt, FakeModel(), **ok_kw(ki_available=1))[0]
    assert can_use(bolt, FakeModel(ki=2), **ok_kw(ki_available=None))[0]
    assert not can_use(bolt, FakeModel(ki=1), **ok_kw(ki_available=None))[0]
    assert not can_use(bolt, FakeModel(), **ok_kw(surprised=True))[0]
    assert not can_use(bolt, FakeModel(conditions={"controlled": 2}), **ok_kw())[0]
    assert not can_use(bolt, FakeModel(conditions={"prone": 1}), **ok_kw())[0]
    assert not can_use(bolt, FakeModel(), **ok_kw(elsewhere=True))[0]
    # Held: Ki feat actions stay allowed, but a Held model is in BtB, so No BtB feats are not
    assert can_use(GENERIC_FEATS["Mind Clash"], FakeModel(conditions={"held": "e"}), **ok_kw(in_btb=True))[0]
    assert not can_use(bolt, FakeModel(conditions={"held": "e"}), **ok_kw(in_btb=True))[0]
    # a feat made free by an explicit effect needs no Ki even when Controlled
    assert can_use(bolt, FakeModel(conditions={"controlled": 2}),
                   **ok_kw(ki_available=0, cost_modifier=-2, explicit_zero=True))[0]


def test_target_range_and_disguise():
    bolt = GENERIC_FEATS["Spirit Bolt"]
    assert can_use(bolt, FakeModel(), **ok_kw(target_distance=6.0))[0]
    ok, why = can_use(bolt, FakeModel(), **ok_kw(target_distance=6.5))
    assert not ok and "lost" in why[0]
    assert can_use(bolt, FakeModel(), **ok_kw(target_distance=6.5, strict_range=False))[0]
    assert not K.in_target_range(bolt, 6.5) and K.in_target_range(bolt, 6.0)
    assert not can_use(bolt, FakeModel(ki_stat=1), **ok_kw(target_conditions={"disguised": 3}))[0]
    assert can_use(bolt, FakeModel(ki_stat=2), **ok_kw(target_conditions={"disguised": 3}))[0]


# ----------------------------------------------------------------------- areas by geometry
def test_personal_affects_only_the_user():
    sc = scene(body("u", 0, 0), body("a", 1.2, 0))
    assert targets_in_area(sc, "u", GENERIC_FEATS["Inner Calm"], ["a"]) == ["u"]


def test_target_within_x_edge_to_edge():
    # 30 mm bases: radius ~0.59"; centres 7.1" apart -> ~5.92" edge to edge
    r = body("u", 0, 0).radius
    sc = scene(body("u", 0, 0), body("near", 6 + 2 * r, 0), body("far", 6.2 + 2 * r, 0))
    assert sc.distance("u", "near") == pytest.approx(6.0)
    assert targets_in_area(sc, "u", GENERIC_FEATS["Spirit Bolt"], ["near", "far"]) == ["near"]


def test_target_needs_no_los_unless_the_card_asks():
    sc = scene(body("u", 0, 0), body("t", 4, 0), piece("wall", rect(2, 0, 0.5, 4)))
    assert not sc.los("u", "t")
    bolt = GENERIC_FEATS["Spirit Bolt"]
    assert targets_in_area(sc, "u", bolt, ["t"]) == ["t"]
    assert targets_in_area(sc, "u", bolt, ["t"], require_los=True) == []
    assert targets_in_area(sc, "u", Feat("Gaze", area="target", range=6, needs_los=True), ["t"]) == []


def test_aura_includes_source_and_passes_through_terrain_and_models():
    r = body("u", 0, 0).radius
    sc = scene(body("u", 0, 0), body("in", 3 + 2 * r, 0), body("out", 0, 3.1 + 2 * r),
               body("behind", -(3 + 2 * r) + 0.5, 0), piece("wall", rect(-1.6, 0, 0.3, 3)))
    ward = GENERIC_FEATS["Warding Presence"]
    assert targets_in_area(sc, "u", ward, ["in", "out", "behind", "u"]) == ["u", "in", "behind"]


def test_pulse_on_a_parsed_table():
    table = make_table([
        {"id": "u", "player": 1, "position": [12, 12]},
        {"id": "friend", "player": 1, "position": [14.5, 12]},
        {"id": "enemy", "player": 2, "position": [12, 15.5]},
        {"id": "far", "player": 2, "position": [20, 20]},
    ])
    sc = table.scene()
    wave = GENERIC_FEATS["Shockwave"]
    got = targets_in_area(sc, "u", wave, ["friend", "enemy", "far"])
    assert got == ["u", "friend"]  # enemy 3.5" centre to centre: ~2.3" edge to edge
    assert K.area_lasts(wave) == "activation" and K.area_lasts(GENERIC_FEATS["Warding Presence"]) == "end_phase"


def test_area_effect_follows_its_source_and_expires():
    ward = K.AreaEffect(GENERIC_FEATS["Warding Presence"], "u")
    pulse = K.AreaEffect(GENERIC_FEATS["Shockwave"], "u")
    r = body("u", 0, 0).radius
    before = scene(body("u", 0, 0), body("a", 5 + 2 * r, 0))
    after = scene(body("u", 3, 0), body("a", 5 + 2 * r, 0))
    assert ward.affected(before, ["a"]) == ["u"] and ward.affected(after, ["a"]) == ["u", "a"]
    assert not ward.expires_on("end_of_activation") and ward.expires_on("end_phase")
    assert ward.expires_on("source_removed")
    assert pulse.expires_on("end_of_activation")


# ----------------------------------------------------------------------- tests of feats
def test_challenge_feat_test():
    bolt = GENERIC_FEATS["Spirit Bolt"]
    assert K.feat_test(bolt, PhysicalDice([4, 2]), user_ki=2).success
    assert not K.feat_test(bolt, PhysicalDice([3]), user_ki=1).success


def test_opposed_feat_test():
    clash = GENERIC_FEATS["Mind Clash"]
    assert K.feat_test(clash, PhysicalDice([5, 3]), user_ki=1, target_ki=1).success
    assert not K.feat_test(clash, PhysicalDice([2, 6]), user_ki=1, target_ki=1).success
    assert K.feat_test(clash, PhysicalDice([4, 4]), user_ki=1, target_ki=1).success  # tie: active
    with pytest.raises(KiError):
        K.feat_test(clash, PhysicalDice([1]), user_ki=1)
    assert K.feat_test(GENERIC_FEATS["Inner Calm"], PhysicalDice([]), user_ki=1).success
