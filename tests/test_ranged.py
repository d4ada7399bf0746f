"""Ranged attacks (rulebook p.25, p.30-32; traits p.48-59): bands, TN, interception,
shooting into contact, Ammo/Reload and the whole sequence 1a-7a."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from models.profiles import Weapon, get_profile
from sim.geometry import Size, base_radius
from sim.rules.dice import PhysicalDice, SeededDice, challenge_test
from sim.rules.ranged import (
    BASE_TARGET_NUMBER,
    AmmoState,
    RangeBand,
    RangedAttackError,
    RangedModifiers,
    TargetInfo,
    btb_redirect_target,
    can_shoot,
    check_interceptor,
    has_trait,
    interception_line,
    interceptors,
    modifiers_from_geometry,
    range_band,
    resolve_btb_targeting,
    resolve_interception,
    resolve_ranged_attack,
    target_number,
    trait_value,
)
from tests.conftest import body, piece, rect, scene

R30 = base_radius(30)
R40 = base_radius(40)

BOW = Weapon("Bow", "ranged", 1, {"short": (0.0, 6.0), "medium": (6.0, 12.0), "long": (12.0, 18.0)})
SWORD = Weapon("Katana", "melee", 1)


def ranged(profile_id: str) -> Weapon:
    return next(w for w in get_profile(profile_id).weapons if w.kind == "ranged")


def shooter_and_target(gap: float, target_size=Size.SMALL, target_base=30, **target_kw):
    """Attacker ``a`` (player 1) at (2, 12) facing +x, target ``t`` (player 2) ``gap``
    inches away edge to edge, facing the attacker."""
    a = body("a", 2, 12, facing=0, player=1)
    x = 2 + R30 + gap + base_radius(target_base)
    t = body("t", x, 12, base=target_base, facing=180, size=target_size, player=2, **target_kw)
    return a, t


# --------------------------------------------------------------------------- Tamotsu (p.31)


def test_tamotsu_example():
    """9" is Medium for his bow (TN 5), +1 moved, +1 Tiny target = 7; pool 3 rolls
    6, 4, 3 -> 6 + 1 + 1 = 8: success level 1."""
    a, t = shooter_and_target(9.0, Size.TINY)
    s = scene(a, t)
    assert s.distance("a", "t") == pytest.approx(9.0)
    assert range_band(BOW, 9.0) == RangeBand.MEDIUM == "medium"
    mods = modifiers_from_geometry(s, "a", "t", moved=True)
    assert target_number("medium", mods) == 7
    assert [(c.label, c.value) for c in mods.explain("medium")] == [
        ("medium range", 5), ("target is tiny", 1), ("attacker moved or will move this activation", 1)]
    test = challenge_test(3, 7, 0, PhysicalDice([6, 4, 3]))
    assert test.roll.final == 8 and test.success and test.success_level == 1

    # the whole sequence: damage roll 4 + 3 + Strength 1 = 8, column 1 -> 1 wound
    res = resolve_ranged_attack(s, "a", "t", BOW, PhysicalDice([6, 4, 3, 4, 3]), ranged_pool=3, moved=True)
    assert res.outcome == "hit" and res.target == "t"
    assert res.band == "medium" and res.target_number == 7
    assert res.success_level == 1
    assert res.damage.roll.total == 8 and res.wounds == 1
    names = [st.name for st in res.steps]
    assert names == ["1a weapon", "1b target", "1c range", "1d interception", "1f target number",
                     "1g ammo/reload", "2 roll", "3 compare", "5 damage", "6 markers", "7 done"]


# --------------------------------------------------------------------------- TN table (p.31)

PRINTED_TN = {  # band -> TN against Tiny, Small, Medium, Large, Huge
    "short": (5, 4, 3, 2, 1),
    "medium": (6, 5, 4, 3, 2),
    "long": (7, 6, 5, 4, 3),
}
SIZES = (Size.TINY, Size.SMALL, Size.MEDIUM, Size.LARGE, Size.HUGE)


@pytest.mark.parametrize("band,size,tn", [(b, s, row[i]) for b, row in PRINTED_TN.items()
                                          for i, s in enumerate(SIZES)])
def test_tn_table_cell(band, size, tn):
    assert target_number(band, RangedModifiers(target_size=size)) == tn


def test_base_target_numbers():
    assert BASE_TARGET_NUMBER == {"short": 4, "medium": 5, "long": 6}
    assert target_number(RangeBand.LONG) == 6


@pytest.mark.parametrize("kw,delta", [
    ({"target_prone": True}, -1),
    ({"target_surprised": True}, -1),
    ({"target_in_cover": True}, +2),
    ({"attacker_ran": True}, +1),
    ({"target_ran": True}, +1),
    ({"attacker_moved": True}, +1),
    ({"attacker_moved": True, "light_weight": True}, 0),
    ({"shot_this_turn": True}, +1),
    ({"ranged_defence": 2}, +2),
    ({"swarm": True}, +1),
    ({"other": (("Ki feat", -2),)}, -2),
    ({"light_weight": True}, 0),
])
def test_each_modifier(kw, delta):
    mods = RangedModifiers(**kw)
    assert target_number("short", mods) == 4 + delta
    assert mods.total == delta
    assert sum(c.value for c in mods.explain("short")) == 4 + delta


def test_all_modifiers_add_up():
    mods = RangedModifiers(Size.LARGE, target_prone=True, target_surprised=True, target_in_cover=True,
                           attacker_ran=True, target_ran=True, attacker_moved=True, shot_this_turn=True,
                           ranged_defence=1, swarm=True)
    assert target_number("long", mods) == 6 - 2 - 1 - 1 + 2 + 1 + 1 + 1 + 1 + 1 + 1


def test_size_zero_is_not_a_model():
    with pytest.raises(ValueError):
        RangedModifiers(target_size=Size.ZERO)


def test_no_tn_out_of_range():
    with pytest.raises(ValueError):
        target_number(None, RangedModifiers())


# --------------------------------------------------------------------------- range bands


@pytest.mark.parametrize("d,band", [
    (0.0, "short"), (3.0, "short"), (6.0, "short"), (6.0 + 5e-7, "short"), (6.001, "medium"),
    (12.0, "medium"), (12.001, "long"), (18.0, "long"), (18.001, None), (30.0, None),
])
def test_range_band_edges_inclusive(d, band):
    assert range_band(BOW, d) == band


def test_range_band_of_real_weapons():
    arquebus = ranged("kokkio")  # 6/12/18
    assert range_band(arquebus, 6.0) == "short"
    assert range_band(arquebus, 9.0) == "medium"
    bow = ranged("ishi")  # 4/8/12
    assert range_band(bow, 9.0) == "long"
    assert range_band(bow, 12.0) == "long" and range_band(bow, 12.01) is None


def test_range_band_errors():
    with pytest.raises(ValueError):
        range_band(BOW, -1.0)
    with pytest.raises(RangedAttackError):
        range_band(SWORD, 1.0)


# --------------------------------------------------------------------------- traits


def test_trait_parsing():
    arquebus = ranged("kokkio")
    assert trait_value(arquebus, "reload") == 2
    assert trait_value(arquebus, "Pierce") == 3
    assert trait_value(arquebus, "ammo") is None
    assert has_trait(ranged("ishi"), "Light Weight")  # printed "Lightweight"
    with pytest.raises(ValueError):
        trait_value(["Pierce (X)"], "pierce")
    info = TargetInfo.from_traits(get_profile("kazuha").traits, exhausted=True)
    assert info.armour == 2 and info.ranged_defence == 2 and info.exhausted
    info = TargetInfo.from_traits(["Armour (1)", "Tough (2)", "Durable", "Swarm", "Ranged Defense (1)"])
    assert (info.armour, info.tough, info.durable, info.swarm, info.ranged_defence) == (1, 2, True, True, 1)


def test_light_weight_weapon_ignores_movement_from_geometry():
    a, t = shooter_and_target(5.0)
    s = scene(a, t)
    heavy = modifiers_from_geometry(s, "a", "t", moved=True, weapon=BOW)
    light = modifiers_from_geometry(s, "a", "t", moved=True, weapon=ranged("ishi"))
    assert heavy.total == 1 and light.total == 0
    ran = modifiers_from_geometry(s, "a", "t", ran=True, weapon=ranged("ishi"))
    assert ran.total == 1  # Light Weight cancels the movement row only


def test_target_info_modifiers_and_sixth_sense():
    a, t = shooter_and_target(5.0)
    s = scene(a, t)
    info = TargetInfo(ranged_defence=2, swarm=True, ran_this_turn=True, surprised=True)
    assert modifiers_from_geometry(s, "a", "t", target=info).total == 2 + 1 + 1 - 1
    assert modifiers_from_geometry(s, "a", "t", target=TargetInfo(surprised=True, sixth_sense=True)).total == 0


def test_prone_and_size_from_scene():
    a, t = shooter_and_target(5.0, Size.LARGE, 50, prone=True)
    mods = modifiers_from_geometry(scene(a, t), "a", "t")
    assert mods.target_size == Size.LARGE and mods.target_prone
    assert target_number("short", mods) == 4 - 2 - 1


# --------------------------------------------------------------------------- cover


def test_cover_from_obscuring_terrain_near_target():
    a, t = shooter_and_target(10.0)  # t at x ~ 13.77, base from 13.18
    hedge = piece("hedge", rect(12.6, 12, 0.4, 4), visibility="obscuring", size="small", passage="difficult")
    with_hedge = modifiers_from_geometry(scene(a, t, hedge), "a", "t")
    assert with_hedge.target_in_cover
    assert target_number("medium", with_hedge) == 5 + 2
    assert ("target in Cover", 2) in [(c.label, c.value) for c in with_hedge.explain()]
    assert not modifiers_from_geometry(scene(a, t), "a", "t").target_in_cover
    far = piece("hedge", rect(8.0, 12, 0.4, 4), visibility="obscuring", size="small", passage="difficult")
    assert not modifiers_from_geometry(scene(a, t, far), "a", "t").target_in_cover  # more than 1" away


def test_cover_on_the_default_table(default_table):
    s = default_table.scene()
    mods = modifiers_from_geometry(s, "kokkio", "masunagi")
    assert mods.target_in_cover and s.cover("kokkio", "masunagi").piece == "wall"
    assert range_band(ranged("kokkio"), s.distance("kokkio", "masunagi")) == "short"
    assert target_number("short", mods) == 4 + 2


# --------------------------------------------------------------------------- can_shoot


def test_los_required():
    a, t = shooter_and_target(8.0)
    wall = piece("wall", rect(7, 12, 0.5, 6))
    ok, reasons = can_shoot(scene(a, t, wall), "a", "t", BOW)
    assert not ok and [r.code for r in reasons] == ["no-los"]
    with pytest.raises(RangedAttackError) as err:
        resolve_ranged_attack(scene(a, t, wall), "a", "t", BOW, PhysicalDice([6, 6, 6]), ranged_pool=3)
    assert err.value.reasons[0].code == "no-los"
    assert can_shoot(scene(a, t), "a", "t", BOW) == (True, ())


def test_target_must_be_an_enemy_and_weapon_ranged():
    a, t = shooter_and_target(8.0)
    friend = body("f", 6, 14, player=1)
    s = scene(a, t, friend)
    assert "not-enemy" in [r.code for r in can_shoot(s, "a", "f", BOW)[1]]
    assert [r.code for r in can_shoot(s, "a", "t", SWORD)[1]] == ["not-ranged"]


def test_out_of_range_is_an_automatic_miss():
    a, t = shooter_and_target(18.5)
    s = scene(a, t)
    ok, reasons = can_shoot(s, "a", "t", BOW)
    assert not ok and [r.code for r in reasons] == ["out-of-range"]
    dice = PhysicalDice([6, 6, 6])
    res = resolve_ranged_attack(s, "a", "t", BOW, dice, ranged_pool=3)
    assert res.outcome == "out-of-range" and not res.success and res.target is None
    assert dice.remaining == 3  # nothing rolled, step 1c -> 7


def test_no_shooting_in_btb_with_an_enemy():
    a = body("a", 2, 12, facing=0, player=1)
    e = body("e", 2 + 2 * R30, 12, facing=180, player=2)
    t = body("t", 12, 12, facing=180, player=2)
    ok, reasons = can_shoot(scene(a, e, t), "a", "t", BOW)
    assert not ok and "enemy-contact" in [r.code for r in reasons]
    # a Prone enemy in contact may be ignored (Prone, p.44)
    e_prone = body("e", 2 + 2 * R30, 13.0, facing=180, player=2, prone=True)
    assert "enemy-contact" not in [r.code for r in can_shoot(scene(a, e_prone, t), "a", "t", BOW)[1]]


def test_no_shooting_in_an_enemy_zoc():
    a = body("a", 2, 12, facing=0, player=1)
    t = body("t", 14, 12, facing=180, player=2)
    e = body("e", 2, 12 + 2 * R30 + 0.5, facing=270, player=2)  # 0.5" away, facing a
    ok, reasons = can_shoot(scene(a, e, t), "a", "t", BOW)
    assert not ok and [r.code for r in reasons] == ["enemy-zoc"]
    with pytest.raises(RangedAttackError):
        resolve_ranged_attack(scene(a, e, t), "a", "t", BOW, PhysicalDice([6]), ranged_pool=1)
    # the same enemy facing away: a is not in its arc, so not in its ZoC
    e_away = body("e", 2, 12 + 2 * R30 + 0.5, facing=90, player=2)
    assert can_shoot(scene(a, e_away, t), "a", "t", BOW)[0]
    # ZoC of an Insignificant (or Disguised) enemy may be ignored
    assert can_shoot(scene(a, e, t), "a", "t", BOW, ignore_zoc_of={"e"})[0]
    # ZoC of an enemy in BtB with one of a's friends may be ignored (ZoC, p.4-9)
    f = body("f", 2, 12 + 2 * R30 + 0.5 + 2 * R30, facing=270, player=1)
    assert can_shoot(scene(a, e, f, t), "a", "t", BOW)[0]


def test_prone_attacker_cannot_shoot():
    a = body("a", 2, 12, facing=0, player=1, prone=True)
    t = body("t", 10, 12, facing=180, player=2)
    assert "attacker-prone" in [r.code for r in can_shoot(scene(a, t), "a", "t", BOW)[1]]


def test_can_shoot_on_the_default_table(default_table):
    s = default_table.scene()
    arquebus = ranged("kokkio")
    assert can_shoot(s, "kokkio", "masunagi", arquebus) == (True, ())
    ok, reasons = can_shoot(s, "kokkio", "ishi", arquebus)
    assert not ok and reasons[0].code == "no-los"


# --------------------------------------------------------------------------- interception (step 1d)


def corridor(*extra, friend_at=(8.0, 13.5), friend_facing=270.0, **friend_kw):
    """a (player 1) at (2, 12) facing +x shoots t (player 2) at (14, 12); f is t's friend."""
    a = body("a", 2, 12, facing=0, player=1)
    t = body("t", 14, 12, facing=180, player=2)
    f = body("f", *friend_at, facing=friend_facing, player=2, **friend_kw)
    return scene(a, t, f, *extra)


def test_interceptor_whose_zoc_a_sight_line_crosses():
    s = corridor()  # f's ZoC reaches 1.59" from its centre; sight lines reach y = 12.59
    line = interception_line(s, "a", "t", "f")
    assert line is not None
    assert interceptors(s, "a", "t", weapon=BOW) == ["f"]
    assert interceptors(s, "a", "t", {"f"}) == ["f"]


def test_model_beside_the_line_but_not_crossing_is_no_interceptor():
    s = corridor(friend_at=(8.0, 14.5))  # 1.91" from the corridor, reach 1.59"
    assert interception_line(s, "a", "t", "f") is None
    check = check_interceptor(s, "a", "t", "f", weapon=BOW)
    assert not check.ok and [r.code for r in check.reasons] == ["zoc-not-crossed"]
    assert interceptors(s, "a", "t", weapon=BOW) == []


def test_interception_needs_the_zoc_in_the_front_arc():
    # facing away from the corridor: the reach disc is crossed, but not the arc half
    assert interception_line(corridor(friend_facing=90.0), "a", "t", "f") is None
    assert interception_line(corridor(friend_facing=90.0, aware=True), "a", "t", "f") is not None


def test_interception_zoc_shadowed_by_a_wall():
    wall = piece("wall", rect(8, 12.75, 3.2, 0.2))  # between f and the corridor
    s = corridor(wall)
    assert s.los("a", "t").visible  # the corridor itself is clear
    assert interception_line(s, "a", "t", "f") is None
    assert interception_line(corridor(), "a", "t", "f") is not None


def test_interceptor_conditions():
    s = corridor()
    assert not check_interceptor(s, "a", "t", "f", info=TargetInfo(insignificant=True)).ok
    assert not check_interceptor(s, "a", "t", "f", info=TargetInfo(exhausted=True)).ok
    assert interceptors(s, "a", "t", infos={"f": TargetInfo(exhausted=True)}) == []
    # f cannot see the attacker (facing away and not Aware): condition II
    s_away = corridor(friend_facing=0.0)
    check = check_interceptor(s_away, "a", "t", "f")
    assert not check.ok and "no-los-to-attacker" in [r.code for r in check.reasons]
    # a model of the attacker's side is not a friend of the target
    s_own = scene(body("a", 2, 12, facing=0, player=1), body("t", 14, 12, facing=180, player=2),
                  body("f", 8, 13.5, facing=270, player=1))
    assert interceptors(s_own, "a", "t") == []
    # beyond the weapon's range
    short_bow = Weapon("Short bow", "ranged", 1, {"short": (0.0, 2.0), "medium": (2.0, 3.0), "long": (3.0, 4.0)})
    assert s.distance("a", "f") > 4.0
    assert interceptors(s, "a", "t", weapon=short_bow) == []


def test_resolve_interception_changes_the_target():
    s = corridor()
    got = resolve_interception(s, "a", "t", "f", weapon=BOW)
    assert got.intercepted and got.target == "f" and got.original == "t"
    assert resolve_interception(s, "a", "t", None).target == "t"
    s_far = corridor(friend_at=(8.0, 14.5))
    with pytest.raises(RangedAttackError):
        resolve_interception(s_far, "a", "t", "f", weapon=BOW)
    assert resolve_interception(s_far, "a", "t", "f", strict=False).target == "t"


def test_attack_with_interceptor_uses_the_new_target():
    a = body("a", 2, 12, facing=0, player=1)
    t = body("t", 14, 12, facing=180, player=2)
    f = body("f", 8, 13.6, base=40, facing=270, player=2)  # Medium: TN -1
    s = scene(a, t, f)
    res = resolve_ranged_attack(s, "a", "t", BOW, PhysicalDice([5, 1, 1, 3, 3]), ranged_pool=3,
                                interceptor="f", infos={"f": TargetInfo(armour=1)})
    assert res.interception.intercepted and res.target == "f" and res.declared_target == "t"
    assert res.band == "short" and res.target_number == 4 - 1
    assert res.success_level == 2
    assert res.damage.roll.total == 3 + 3 + 1 - 1 and res.wounds == 2  # row 6, column 2


def test_interceptor_on_the_default_table(default_table):
    s = default_table.scene()
    arquebus = ranged("kokkio")
    assert "masunagi" in interceptors(s, "kokkio", "nanako", weapon=arquebus)
    assert interceptors(s, "kokkio", "masunagi", weapon=arquebus) == []


# --------------------------------------------------------------------------- shooting into contact (p.32)


def melee_scene(target_base=30, target_size=None, friend2=True):
    """a (1) shoots t (2), which is in BtB with a's friends f1 (behind t) and f2 (beside)."""
    a = body("a", 2, 12, facing=0, player=1)
    rt = base_radius(target_base)
    t = body("t", 14, 12, base=target_base, size=target_size, facing=180, player=2)
    f1 = body("f1", 14 + rt + R30, 12, facing=180, player=1)
    items = [a, t, f1]
    if friend2:
        items.append(body("f2", 14, 12 + rt + R30, facing=270, player=1))
    return scene(*items)


@pytest.mark.parametrize("base,size,tn", [(30, Size.TINY, 7), (30, Size.SMALL, 6), (40, Size.MEDIUM, 5),
                                          (50, Size.LARGE, 4)])
def test_btb_test_target_number_by_size(base, size, tn):
    s = melee_scene(base, size)
    got = resolve_btb_targeting(s, "a", "t", 1, PhysicalDice([6]))
    assert got.required and got.target_number == tn
    assert set(got.in_contact) == {"f1", "f2"}


def test_btb_huge_target_is_automatic():
    s = melee_scene(60, Size.HUGE)
    dice = PhysicalDice([])
    got = resolve_btb_targeting(s, "a", "t", 3, dice)
    assert got.required and got.automatic and got.hit_intended and got.test is None


def test_btb_pass_and_fail():
    s = melee_scene()
    passed = resolve_btb_targeting(s, "a", "t", 2, PhysicalDice([5, 2]))  # 5 + 1 = 6 >= 6
    assert passed.hit_intended and passed.new_target is None
    failed = resolve_btb_targeting(s, "a", "t", 2, PhysicalDice([4, 1]))  # 4 < 6
    assert not failed.hit_intended and failed.new_target == "f2"  # f2 is nearer to a than f1


def test_btb_redirect_ignores_models_in_contact_for_los():
    s = melee_scene(40, friend2=False)  # t (Medium) hides f1 (Small) from a
    assert not s.los("a", "f1").visible
    assert btb_redirect_target(s, "a", "t") == "f1"


def test_btb_not_required_without_attackers_friends_in_contact():
    a = body("a", 2, 12, facing=0, player=1)
    t = body("t", 14, 12, facing=180, player=2)
    tf = body("tf", 14 + 2 * R30, 12, facing=180, player=2)  # the target's own friend
    got = resolve_btb_targeting(scene(a, t, tf), "a", "t", 3, PhysicalDice([]))
    assert not got.required and got.hit_intended


def test_attack_into_contact_hits_a_friend_on_a_failed_test():
    s = melee_scene()
    # attack: 6, 5 -> 7 vs TN 5 (10.8" is Medium) -> SL 2; contact test 2, 1 -> 2 < 6: failed;
    # damage on f2: 3 + 3 + 1 = 7 -> column 2: 2 wounds, Tough 1 -> 1
    dice = PhysicalDice([6, 5, 2, 1, 3, 3])
    res = resolve_ranged_attack(s, "a", "t", BOW, dice, ranged_pool=2, infos={"f2": TargetInfo(tough=1)})
    assert res.band == "medium" and res.target_number == 5 and res.success_level == 2
    assert res.btb.required and not res.btb.hit_intended
    assert res.outcome == "hit" and res.target == "f2" and res.wounds == 1
    assert "4b contact test" in [st.name for st in res.steps]


# --------------------------------------------------------------------------- Ammo / Reload


def test_ammo_tokens():
    sling = Weapon("Sling", "ranged", 0, {"short": (0.0, 4.0)}, traits=("Ammo (2)",))
    st0 = AmmoState.start([sling, BOW])
    assert st0.ammo_left(sling) == 2 and st0.ammo_left(BOW) is None
    st1 = st0.after_firing(sling)
    assert st1.can_fire(sling) and st1.ammo_left(sling) == 1
    st2 = st1.after_firing(sling)
    assert not st2.can_fire(sling) and st2.ammo_left(sling) == 0
    assert st2.can_fire(BOW)
    assert AmmoState().ammo_left(sling) == 2  # not fired yet: full


def test_reload_markers():
    arquebus = ranged("kokkio")  # Reload (2)
    other = Weapon("Pistol", "ranged", 2, {"short": (0.0, 4.0)})
    st0 = AmmoState()
    assert st0.can_fire(arquebus)
    st1 = st0.after_firing(arquebus)
    assert st1.reloading == 2 and not st1.can_fire(arquebus)
    assert st1.can_fire(other)  # Reloading stops only weapons with Reload
    assert not st1.reload().can_fire(arquebus)
    assert st1.reload().reload().can_fire(arquebus)
    with pytest.raises(ValueError):
        st0.reload()


def test_reloading_model_cannot_fire_reload_weapon():
    a, t = shooter_and_target(5.0)
    s = scene(a, t)
    arquebus = ranged("kokkio")
    ok, reasons = can_shoot(s, "a", "t", arquebus, ammo=AmmoState(reloading=1))
    assert not ok and reasons[0].code == "reloading"
    dice = PhysicalDice([6, 6, 6])
    res = resolve_ranged_attack(s, "a", "t", arquebus, dice, ranged_pool=3, ammo=AmmoState(reloading=1))
    assert res.outcome == "reloading" and dice.remaining == 3
    assert res.ammo == AmmoState(reloading=1)  # step 1g -> 7: nothing spent


def test_markers_and_tokens_spent_on_hit_and_miss():
    a, t = shooter_and_target(5.0)
    s = scene(a, t)
    arquebus = ranged("kokkio")
    miss = resolve_ranged_attack(s, "a", "t", arquebus, PhysicalDice([2, 1, 1]), ranged_pool=3)
    assert miss.outcome == "miss" and miss.success_level == 0 and miss.damage is None
    assert miss.ammo.reloading == 2 and miss.reloading_gained == 2
    sling = Weapon("Sling", "ranged", 0, {"short": (0.0, 6.0)}, traits=("Ammo (1)",))
    hit = resolve_ranged_attack(s, "a", "t", sling, PhysicalDice([6, 1, 1, 1, 1]), ranged_pool=3)
    assert hit.ammo_spent and hit.ammo.ammo_left(sling) == 0
    empty = resolve_ranged_attack(s, "a", "t", sling, PhysicalDice([6]), ranged_pool=1, ammo=hit.ammo)
    assert empty.outcome == "no-ammo"


# --------------------------------------------------------------------------- damage details


def test_pierce_armour_and_death_sentence():
    a, t = shooter_and_target(5.0)
    s = scene(a, t)
    arquebus = ranged("kokkio")  # Strength 4, Pierce (3)
    info = TargetInfo(armour=3, death_sentence=True)
    # pool 1 + 1 (Death Sentence) -> dice 4, 4: 4 + 1 = 5 vs TN 4 -> SL 1; damage 2+2+4+1 = 9
    res = resolve_ranged_attack(s, "a", "t", arquebus, PhysicalDice([4, 4, 2, 2]), ranged_pool=1,
                                infos={"t": info})
    assert res.pool == 2 and res.success_level == 1
    assert res.damage.roll.total == 2 + 2 + 4 + 1 - 0 and res.wounds == 2  # row 9, column 1


def test_brutal_adds_to_the_result():
    a, t = shooter_and_target(13.0)  # long: TN 6
    s = scene(a, t)
    res = resolve_ranged_attack(s, "a", "t", BOW, PhysicalDice([5, 3, 3]), ranged_pool=1, brutal=1)
    assert res.test.roll.final == 6 and res.success and res.success_level == 0


def test_special_weapon_makes_no_damage_roll():
    a, t = shooter_and_target(2.0)
    spit = Weapon("Spit", "ranged", None, {"short": (0.0, 3.0)})
    res = resolve_ranged_attack(scene(a, t), "a", "t", spit, PhysicalDice([6]), ranged_pool=1)
    assert res.outcome == "no-damage" and res.damage is None and res.target == "t"


# --------------------------------------------------------------------------- properties

modifiers_st = st.builds(
    RangedModifiers,
    target_size=st.sampled_from(SIZES),
    target_prone=st.booleans(), target_surprised=st.booleans(), target_in_cover=st.booleans(),
    attacker_ran=st.booleans(), target_ran=st.booleans(), attacker_moved=st.booleans(),
    light_weight=st.booleans(), shot_this_turn=st.booleans(),
    ranged_defence=st.integers(-2, 3), swarm=st.booleans(),
)


@given(modifiers_st)
def test_tn_monotone_in_range_band(mods):
    s, m, l = (target_number(b, mods) for b in ("short", "medium", "long"))
    assert s < m < l
    assert m - s == 1 and l - m == 1


@given(modifiers_st, st.floats(0, 30, allow_nan=False))
def test_band_monotone_in_distance(mods, d):
    band = range_band(BOW, d)
    farther = range_band(BOW, d + 0.5)
    order = {None: 3, "short": 0, "medium": 1, "long": 2}
    assert order[farther] >= order[band]


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(-1, 6), st.floats(1.5, 20), st.integers(-3, 3),
       st.sampled_from(SIZES))
def test_success_level_never_negative(seed, pool, gap, brutal, size):
    a, t = shooter_and_target(gap, size)
    res = resolve_ranged_attack(scene(a, t), "a", "t", BOW, SeededDice(seed), ranged_pool=pool, brutal=brutal)
    assert res.success_level >= 0
    assert res.wounds >= 0
    if res.outcome == "miss":
        assert res.success_level == 0 and res.target is None


# --------------------------------------------------------------------------- interception vs sampled rays


def test_friend_in_btb_with_the_target_can_intercept():
    s = corridor(friend_at=(14.0, 12 + 2 * R30), friend_facing=225.0)
    assert interception_line(s, "a", "t", "f") is not None
    assert interceptors(s, "a", "t", weapon=BOW) == ["f"]


def _sampled_crossing(s, n=300, seed=1):
    """Slow reference: random segments from a's base to t's base (in a's arc), clear of
    the blockers between the bases, that meet f's ZoC area (shrunk by 1e-4")."""
    import math
    import random

    from shapely.geometry import LineString, Point, Polygon

    from sim.rules.ranged import zoc_area

    A, T = s.bodies["a"], s.bodies["t"]
    geoms = [Point(ob.center).buffer(ob.radius - 1e-6, quad_segs=64) if ob.is_disc else Polygon(ob.vertices)
             for ob in s.blockers(s.los_threshold(A, T), ("a", "t"))]
    bases = Point(A.center).buffer(A.radius, quad_segs=64).union(Point(T.center).buffer(T.radius, quad_segs=64))
    area = zoc_area(s, s.bodies["f"]).buffer(-1e-4)
    rng = random.Random(seed)
    fx, fy = A.facing_vector
    for _ in range(n):
        r1, t1 = A.radius * math.sqrt(rng.random()), rng.random() * 6.3
        r2, t2 = T.radius * math.sqrt(rng.random()), rng.random() * 6.3
        p = (A.center[0] + r1 * math.cos(t1), A.center[1] + r1 * math.sin(t1))
        q = (T.center[0] + r2 * math.cos(t2), T.center[1] + r2 * math.sin(t2))
        if (q[0] - A.center[0]) * fx + (q[1] - A.center[1]) * fy < 0:
            continue
        seg = LineString([p, q])
        if any(seg.difference(bases).intersects(g) for g in geoms):
            continue
        if seg.intersects(area):
            return True
    return False


@settings(max_examples=25, deadline=None)
@given(st.floats(8, 16), st.floats(9, 15), st.floats(3, 16), st.floats(8, 16), st.floats(0, 360),
       st.lists(st.tuples(st.floats(4, 15), st.floats(8, 16), st.floats(0.2, 2), st.floats(0.2, 2)), max_size=2))
def test_interception_agrees_with_sampled_rays(tx, ty, fx, fy, ff, walls):
    items = [body("a", 2, 12, facing=0, player=1), body("t", tx, ty, facing=180, player=2),
             body("f", fx, fy, facing=ff, player=2)]
    items += [piece(f"w{i}", rect(*w)) for i, w in enumerate(walls)]
    s = scene(*items)
    if min(s.distance("a", "f"), s.distance("a", "t"), s.distance("t", "f")) <= 0.02 or not s.los("a", "t").visible:
        return
    if _sampled_crossing(s):
        assert interception_line(s, "a", "t", "f") is not None
