"""Ki feats as data, round 4 (issue #13, H18): ``effects_self`` (a feat that reaches its
target and, with other ops, its user) and ``needs_tokens`` (a feat usable only while its
user carries tokens), through the Game's public API.

Rulebook p.46: "Все Умения имеют стоимость в жетонах Ки; эта стоимость должна быть
потрачена на применение эффектов Умения." The fixture entries copy catalogue cards' FACTS
(cost, timing, area, range) and say the effect in the project's vocabulary.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from models.profiles import add_profile_source, get_profile
from sim.rules import feat_effects as fe
from sim.rules.game import Action, Game
from sim.table import parse_table
from tests.conftest import feat_data, set_active, set_model

FIXTURE = """
format: bushido-feat-effects/1
feats:
  Bloodletting:
    {cost: 1, timing: active, area: target, range: 30, when: action, affects: target_enemy,
     effects: [{op: wound, n: 1, ignore_armour: true, ignore_tough: true}],
     effects_self: [{op: tokens, name: Oni Blood, n: 1}],
     summary: "a wound on the enemy ignoring armour and Tough, an Oni Blood token on the user"}
  Dark Absolution:
    {cost: 1, timing: active, area: target, range: 30, when: action, affects: target_enemy,
     effects: [{op: ki, n: -1}], effects_self: [{op: ki, n: 1}],
     summary: "the enemy loses 1 Ki and the user gains 1"}
  Absolution:
    {cost: 1, timing: simple, area: target, range: 30, opposed: true, when: action, affects: target_enemy,
     unopposed_keywords: [Ashigaru], effects: [{op: ki, n: -1}], effects_self: [{op: ki, n: 1}],
     summary: "opposed, except at an Ashigaru: the enemy's Ki token goes to the user"}
  Absolution K:
    {cost: 1, timing: simple, area: target, range: 30, opposed: true, when: action, affects: target_enemy,
     unopposed_keywords: [Kami], effects: [{op: ki, n: -1}], effects_self: [{op: ki, n: 1}],
     summary: "opposed, except at a Kami"}
  Future Sight:
    {cost: 2, timing: instant, area: personal, when: any, affects: enemies, table: true,
     effects: [{op: lose, traits: [Tactician], until: end_phase}],
     effects_self: [{op: grant, traits: ["Tactician (1)"], until: end_phase}],
     summary: "the user gains Tactician (1), every enemy loses Tactician until the End phase"}
  Batter:
    {cost: 2, timing: instant, area: personal, when: any, affects: self,
     effects: [{op: rider, upon: dealt_wound, dealt_by: melee, until: end_phase,
                effects: [{op: condition, name: stunned}]}],
     summary: "until the End phase each model its melee attacks wound gains a Stunned marker"}
  Flame On!:
    {cost: 2, timing: instant, area: personal, when: any, affects: self,
     effects: [{op: rider, upon: wounded_by, dealt_by: melee, until: end_phase,
                effects: [{op: condition, name: fire, value: 1}]}],
     summary: "until the End phase a model that wounds it in melee gains On Fire (1)"}
  Mocking Blow:
    {cost: 2, timing: active, area: personal, when: action, affects: self,
     effects: [{op: rider, upon: dealt_wound, dealt_by: melee, until: game, once: true, not_keywords: [Samurai],
                effects: [{op: condition, name: impetuous}]}],
     summary: "the next model its melee attacks wound becomes Impetuous"}
  Shove:
    {cost: 1, timing: active, area: personal, when: action, affects: self,
     effects: [{op: rider, upon: attack_succeeded, dealt_by: melee, until: activation,
                effects: [{op: move, distance: 1, kind: push}]}],
     summary: "this activation each model its melee attack reaches is pushed 1 inch away (Inertia's form)"}
  Vanish:
    {cost: 2, timing: instant, area: personal, when: "trigger:targeted", affects: self, ends_action: true,
     effects: [{op: move, distance: 2, kind: place}],
     summary: "declared the target of an enemy attack: it is placed within 2 inches and the attack ends"}
  Brace:
    {cost: 1, timing: instant, area: personal, when: "trigger:targeted", affects: self,
     effects: [{op: grant, traits: ["Armour (+1)"], until: end_phase}],
     summary: "declared the target of an enemy attack: Armour (+1) before it resolves"}
  Katakuchi:
    {cost: 1, timing: active, area: target, btb: true, when: action, affects: self_and_target,
     needs_tokens: {Ammo: 1}, effects: [{op: grant, traits: [Fearless], until: end_phase}],
     summary: "with an Ammo token left, the user and a model in contact become Fearless"}
  Doom Bolt:
    {cost: 1, timing: active, area: target, range: 30, when: action, affects: target_enemy,
     needs_tokens: {Doom: 2}, effects: [{op: wound, n: 1}], effects_self: [{op: tokens, name: Doom, n: -2}],
     summary: "spends 2 Doom tokens of the user for a wound on the enemy"}
"""

YAML = """
format: bushido-table/1
name: feats5
table: {width: 36, depth: 36}
terrain: []
models:
  - {id: hanso, player: 1, profile: HANSO, position: [10, 10], facing: 0}
  - {id: ishi, player: 2, profile: ISHI, position: [10, 11.185], facing: 180}
  - {id: masunagi, player: 2, profile: ito-masunagi, position: [30, 30], facing: 180}
"""


@pytest.fixture(autouse=True)
def _fixture_file(tmp_path, monkeypatch):
    """The game reads this test's feat effects file instead of the repository's."""
    yield from feat_data(FIXTURE, tmp_path, monkeypatch)


def game(*feats: str, ammo: int | None = None, seed: int = 1) -> Game:
    """Hanso (Akira's card with ``feats``; with ``ammo`` a bow with Ammo (ammo)) in base
    contact with Ishi (player 2); Masunagi far away."""
    key = "-".join(sorted(feats)).lower().replace(" ", "") + f"-{ammo or 0}"
    akira = get_profile("takashi-akira")
    weapons = akira.weapons
    if ammo is not None:
        bow = next(w for w in get_profile("takashi-matsu").weapons if w.kind == "ranged")
        weapons = weapons + (replace(bow, name="Bow", traits=(f"Ammo ({ammo})",)),)
    hanso = replace(akira, id=f"h18-hanso-{key}", name="Hanso", bs_id=f"test-h18-hanso-{key}",
                    feats=tuple(feats), weapons=weapons)
    ishi = replace(get_profile("ishi"), id=f"h18-ishi-{key}", name="Ishi", bs_id=f"test-h18-ishi-{key}")
    add_profile_source({p.id: p for p in (hanso, ishi)})  # conftest removes them after
    g = Game(parse_table(YAML.replace("HANSO", hanso.id).replace("ISHI", ishi.id), "<test>"), seed=seed,
             length=("fixed", 3))
    set_active(g, 1)
    set_model(g, "hanso", ki=4)
    set_model(g, "ishi", ki=2)
    return g


# ------------------------------------------------------------------ effects_self
def test_effects_self_reach_the_user_beside_the_target():
    """Bloodletting (Active, Target): the wound goes on the enemy target while the Oni
    Blood token goes on the USER -- ``effects`` reach the target, ``effects_self`` the user;
    the target gets no token and the user no wound."""
    g = game("Bloodletting")
    before = g.state.models["ishi"].damage
    g.push(Action("feat", "hanso", feat="Bloodletting", target="ishi"))
    assert g.state.models["ishi"].damage == before + 1
    assert g.state.models["hanso"].damage == 0
    assert g.tokens("hanso", "Oni Blood") == 1
    assert g.tokens("ishi", "Oni Blood") == 0
    assert fe.entry_status(fe.feat_effect("Bloodletting")) == (True, "")


def test_effects_self_ki_moves_from_target_to_user():
    """Dark Absolution kind of card: the enemy target loses 1 Ki and the user gains one
    (the cost of 1 is paid first, p.46: "стоимость должна быть потрачена")."""
    g = game("Dark Absolution")
    g.push(Action("feat", "hanso", feat="Dark Absolution", target="ishi"))
    assert g.state.models["ishi"].ki == 1
    assert g.state.models["hanso"].ki == 4 - 1 + 1


def test_effects_self_refuses_moves():
    """``effects_self`` holds one-time ops on the user: a move or a choice belongs in
    ``effects`` (the loader says so in one line)."""
    with pytest.raises(Exception, match="effects_self"):
        fe.FeatEffect.model_validate({"cost": 1, "timing": "active", "area": "personal",
                                      "effects_self": [{"op": "move", "distance": 2, "kind": "walk"}]})


# ------------------------------------------------------------------ needs_tokens
def test_needs_ammo_tokens():
    """Katakuchi needs an Ammo token on the user: with a bow of Ammo (1) it may be used;
    without any Ammo weapon (and with the bow's token spent) it is refused and not offered
    (Ammo (X), p.32: "X жетонов боеприпасов")."""
    g = game("Katakuchi", ammo=1)
    assert g.is_legal(Action("feat", "hanso", feat="Katakuchi", target="ishi"))[0]
    g.push(Action("feat", "hanso", feat="Katakuchi", target="ishi"))
    assert g.state.models["ishi"].effects and g.state.models["hanso"].effects
    g = game("Katakuchi")
    ok, why = g.is_legal(Action("feat", "hanso", feat="Katakuchi", target="ishi"))
    assert not ok and "Ammo" in why
    assert not any(a.feat == "Katakuchi" for a in g.legal_actions())
    g = game("Katakuchi", ammo=1)
    set_model(g, "hanso", ammo={"Bow": 0})
    assert not g.is_legal(Action("feat", "hanso", feat="Katakuchi", target="ishi"))[0]


def test_needs_named_tokens_and_spends_them():
    """Doom Bolt: usable only with 2 Doom tokens on the user, which it spends
    (``effects_self`` tokens -2)."""
    g = game("Doom Bolt")
    ok, why = g.is_legal(Action("feat", "hanso", feat="Doom Bolt", target="ishi"))
    assert not ok and "Doom" in why
    set_model(g, "hanso", conditions={"token:Doom": 2})
    before = g.state.models["ishi"].damage
    g.push(Action("feat", "hanso", feat="Doom Bolt", target="ishi"))
    assert g.state.models["ishi"].damage == before + 1
    assert g.tokens("hanso", "Doom") == 0


# ------------------------------------------------------------------ unopposed_keywords
def test_no_opposed_test_at_the_named_keywords():
    """Dark Absolution (its card: no Opposed Ki test against a Kami target) --
    ``unopposed_keywords``: at Ishi (an Ashigaru) the Absolution variant
    keyed on Ashigaru takes no Opposed Ki test (p.46 "Противоборство"), the one keyed on
    Kami does."""
    g = game("Absolution")
    g.push(Action("ki_feat", "hanso", feat="Absolution", target="ishi"))
    assert not any("opposed" in line.lower() for line in g.log()[-6:])
    assert g.state.models["ishi"].ki == 1
    g = game("Absolution K")
    g.push(Action("ki_feat", "hanso", feat="Absolution K", target="ishi"))
    assert any("opposed" in line.lower() for line in g.log()[-6:])


def test_two_groups_in_one_entry_future_sight():
    """Future Sight (its card: the user gains Tactician (1) and the enemies lose
    Tactician, until the End phase) -- ``effects`` on every enemy of the table,
    ``effects_self`` on the user: Hanso's effective card has Tactician (1), each enemy's
    effects say it loses Tactician."""
    g = game("Future Sight")
    g.push(Action("feat", "hanso", feat="Future Sight"))
    assert any(t.keyword == "tactician" for t in g.profile("hanso").traits)
    for mid in ("ishi", "masunagi"):
        assert any("Tactician" in str(e) for e in g.state.models[mid].effects)
    assert not any("Tactician" in str(e) for e in g.state.models["hanso"].effects if "lose" in str(e))


# ------------------------------------------------------------------ riders
def _fight(g: Game, hanso_attacks: bool) -> int:
    """Hanso fights Ishi (in base contact); Hanso all in attack (or all in defence) and
    Ishi the reverse; the wounds Ishi took (``hanso_attacks``) or Hanso took."""
    g.push(Action("melee", "hanso", target="ishi"))
    while g.state.exchange is not None:
        allocs = [a for a in g.legal_actions() if a.kind == "allocate"]
        if not allocs:
            g.push(next(a for a in g.legal_actions() if a.kind.startswith("decline")))
            continue
        pick_attack = (allocs[0].model == "hanso") == hanso_attacks
        g.push(max(allocs, key=lambda a: (a.attack or 0) if pick_attack else (a.defence or 0)))
    ex = next(e for e in reversed(g.events) if e.kind == "exchange")
    return int(ex.data.get("wounds", {}).get("ishi" if hanso_attacks else "hanso", 0))


def test_batter_rider_stuns_each_model_its_melee_attacks_wound():
    """Batter: "until the End Phase, any model that suffers Wounds from this model's Melee
    Attacks gains a Stunned marker" (card) -- the ``rider`` op, ``upon: dealt_wound``: Ishi
    gains Stunned exactly when Hanso's exchange wounded it; the rider goes at the End
    phase (p.22 "Завершающая фаза")."""
    seen = set()
    for seed in range(1, 40):
        g = game("Batter", seed=seed)
        g.push(Action("feat", "hanso", feat="Batter"))
        assert any(k.startswith("feat_rider:") for k in g.state.models["hanso"].conditions)
        wounded = _fight(g, True) > 0
        stunned = "stunned" in g.state.models["ishi"].conditions
        if g.state.models["ishi"].alive:
            assert stunned == wounded, seed
            seen.add(wounded)
        if seen == {True, False}:
            break
    assert True in seen


def test_flame_on_rider_burns_the_model_that_wounds_it():
    """Flame On!: "if this model suffers Wounds from a Melee Attack, the Attacking model
    gains a On Fire (1) Marker" (card) -- ``rider`` ``upon: wounded_by``: Ishi gains a Fire
    marker exactly when its attack wounded Hanso."""
    seen = set()
    for seed in range(1, 40):
        g = game("Flame On!", seed=seed)
        g.push(Action("feat", "hanso", feat="Flame On!"))
        wounded = _fight(g, False) > 0
        if g.state.models["ishi"].alive:
            assert ("fire" in g.state.models["ishi"].markers or "fire" in g.state.models["ishi"].conditions) \
                == wounded, (seed, g.state.models["ishi"].markers)
            seen.add(wounded)
        if seen == {True, False}:
            break
    assert True in seen


def test_rider_once_and_not_keywords():
    """Mocking Blow: "When this model NEXT deals Damage as a result of a Melee Exchange, the
    Opposing model gains an Impetuous Marker" (card) -- ``once: true``: the rider goes after
    its first use; with ``not_keywords: [Samurai]`` it does not fire at Masunagi (a
    Samurai) and stays; at Ishi it fires once and is gone."""
    for seed in range(1, 40):
        g = game("Mocking Blow", seed=seed)
        g.push(Action("feat", "hanso", feat="Mocking Blow"))
        if _fight(g, True) > 0:
            assert not any(k.startswith("feat_rider:") for k in g.state.models["hanso"].conditions)
            if g.state.models["ishi"].alive:
                assert "impetuous" in g.state.models["ishi"].conditions
            break
        assert any(k.startswith("feat_rider:") for k in g.state.models["hanso"].conditions)
    else:
        raise AssertionError("no seed wounded Ishi")
    g = game("Mocking Blow")
    g.push(Action("feat", "hanso", feat="Mocking Blow"))
    g.feat_riders([("hanso", "masunagi", 2, "melee")])
    assert "impetuous" not in g.state.models["masunagi"].conditions
    assert any(k.startswith("feat_rider:") for k in g.state.models["hanso"].conditions)


def test_rider_push_moves_the_model_hit_away():
    """Inertia (its card: an enemy the user hits with a shot this activation is pushed
    1" directly away) -- a rider's
    ``push`` move (here on a melee hit): Ishi ends 1" further from Hanso exactly when
    Hanso's attack reached it. A rider's move must need no point (a walk is refused)."""
    for seed in range(1, 40):
        g = game("Shove", seed=seed)
        g.push(Action("feat", "hanso", feat="Shove"))
        before = g.table_now().scene().distance("hanso", "ishi")
        g.push(Action("melee", "hanso", target="ishi"))
        while g.state.exchange is not None:
            allocs = [a for a in g.legal_actions() if a.kind == "allocate"]
            g.push(max(allocs, key=lambda a: (a.attack or 0) if a.model == "hanso" else (a.defence or 0)))
        if not g.state.models["ishi"].alive:
            continue
        pushed = any(e.kind == "move" and e.data["model"] == "ishi" for e in g.events)
        if pushed:
            assert abs(g.table_now().scene().distance("hanso", "ishi") - before - 1.0) < 0.05
            break
    else:
        raise AssertionError("no seed reached Ishi")
    with pytest.raises(Exception, match="push"):
        fe.RiderOp.model_validate({"op": "rider", "upon": "dealt_wound",
                                   "effects": [{"op": "move", "distance": 2, "kind": "walk"}]})


# ------------------------------------------------------------------ trigger:targeted (an interrupt)
def test_targeted_interrupt_before_the_enemy_action_resolves():
    """Mirage kind of card (an enemy's action aimed at the user: before any exchange
    the user is placed within 2" and the enemy's action counts as resolved) -- ``when:
    trigger:targeted`` + ``ends_action``: Ishi's declared Melee at Hanso waits for player 1;
    Hanso is placed and no exchange happens, Ishi's counter is spent, the turn passes."""
    g = game("Vanish")
    set_active(g, 2)
    ki = g.state.models["hanso"].ki
    counters = g.state.models["ishi"].counters
    g.push(Action("melee", "ishi", target="hanso"))
    assert g.state.exchange is None and g.to_move() == 1
    offers = g.legal_actions()
    assert {a.kind for a in offers} == {"feat", "decline_feat"}
    use = Action("feat", "hanso", feat="Vanish", point=(10.0, 8.3))
    assert g.is_legal(use)[0]
    g.push(use)
    assert g.state.exchange is None
    assert g.state.models["hanso"].position == (10.0, 8.3)
    assert g.state.models["hanso"].ki == ki - 2
    assert g.state.models["ishi"].counters == counters - 1
    assert any("counts as resolved" in line for line in g.log())
    assert not g.interrupts_pending()
    assert g.state.active == 1


def test_targeted_interrupt_declined_or_not_ending_lets_the_action_resolve():
    """Declining the interrupt, or a ``trigger:targeted`` feat without ``ends_action``
    (Brace: Armour before the blow), lets Ishi's Melee go on: its exchange starts."""
    g = game("Vanish")
    set_active(g, 2)
    g.push(Action("melee", "ishi", target="hanso"))
    g.push(Action("decline_feat", "hanso", feat="Vanish"))
    assert g.state.exchange is not None
    g = game("Brace")
    set_active(g, 2)
    g.push(Action("melee", "ishi", target="hanso"))
    g.push(Action("feat", "hanso", feat="Brace"))
    assert g.state.exchange is not None
    assert any("Armour" in str(e) for e in g.state.models["hanso"].effects)
