"""Ki feats as data, round 6 (issue #13, helper F1): feats that change Melee Assist
penalties and feats that change the order of activations, through the Game's public API.

Rulebook p.36: "Модели при Обмене ударами имеют модификатор -1 за каждую дополнительную
вражескую модель в контакте, кроме той, с которой в данный момент отыгрывают Обмен ударами,
если только этот враг сам не находится в контакте с другой дружественной моделью." p.53
(Indomitable (X)): "эта модель игнорирует X поддерживающих вражеских моделей в контакте в
отношении штрафа в рукопашной." p.20-21: the active player chooses the model that activates,
or spends a pass token; then the opponent becomes the active player. The fixture entries copy
the facts of the catalogue cards (Outmanoeuvre, Absolute Mastery, Underhanded, Phalanx,
Dominate, Fog of Hesitation, Provoke, Blood Brothers) and say their effect in the project's
vocabulary.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from models.bsdata.traittext import parse_trait
from models.profiles import add_profile_source, get_profile
from sim.rules import feat_effects as fe
from sim.rules.game import Action, Game
from sim.table import parse_table
from tests.conftest import feat_data, set_active, set_model

FIXTURE = """
format: bushido-feat-effects/1
feats:
  Outmanoeuvre:
    {cost: 2, timing: active, area: personal, when: action, affects: self,
     effects: [{op: assist, n: 2, until: exchange}], summary: its assist takes 2 dice}
  Practised Manoeuvres:
    {cost: 2, timing: active, area: personal, when: action, affects: self,
     effects: [{op: assist, n: 2, until: exchange, keywords: [Swordsman]}], summary: its assist takes 2 dice}
  Absolute Mastery:
    {cost: 1, timing: instant, area: personal, when: exchange, affects: self,
     effects: [{op: assist_bonus, changes: {melee: 1, strength: 1}, weapon: melee, until: exchange}],
     summary: +1 melee and strength per assisting enemy}
  Underhanded:
    {cost: "X+1", timing: active, area: target, btb: true, when: exchange, affects: target_enemy, max_x: 2,
     needs_assist: true, limits: [once_per_exchange], effects: [{op: condition, name: poisoned, value: X}],
     summary: Poisoned (X) on an assisted enemy}
  Phalanx:
    {cost: 2, timing: active, area: personal, limits: [once_per_turn], when: exchange, affects: self,
     needs_assist: true, effects: [{op: grant_weapon, traits: ["Brutal (1)"], weapon: melee, until: activation}],
     summary: Brutal (1) with a melee assist}
  Dominate:
    {cost: 2, timing: active, area: target, range: 6, when: action, affects: target_enemy,
     effects: [{op: activation, rule: next, no_pass: true}], summary: the enemy activates next}
  Fog of Hesitation:
    {cost: 2, timing: active, area: pulse, range: 4, opposed: true, limits: [once_per_turn], when: action,
     affects: enemies, max_affected: 1, effects: [{op: activation, rule: last}], summary: it activates last}
  Provoke:
    {cost: 2, timing: active, area: target, range: 6, opposed: true, limits: [once_per_turn], when: action,
     affects: target_enemy, effects: [{op: condition, name: impetuous, n: 1}, {op: activation, rule: no_pass}],
     summary: Impetuous and no pass}
  Blood Brothers:
    {cost: 2, timing: instant, area: personal, when: "trigger:friend_activation_end", watch: friends,
     watch_keywords: [Blood Brother], affects: self, effects: [{op: activation, rule: now}],
     summary: activates after a friendly Blood Brother}
  Lure:
    {cost: 2, timing: simple, area: target, range: 6, opposed: false, when: action, affects: target,
     effects: [{op: condition, name: impetuous, n: 1}, {op: activation, rule: walk_at_user}],
     summary: the target walks at the user next}
  Cower:
    {cost: 3, timing: simple, area: target, range: 6, when: action, affects: target_enemy,
     effects: [{op: activation, rule: only, actions: [disengage, stand_up, wait], until: end_phase}],
     summary: "only Disengage, Stand Up, Wait"}
  The Oppressed:
    {cost: 1, timing: active, area: target, range: 4, when: action, affects: target_enemy,
     effects: [{op: activation, rule: next, no_pass: true, traits: [Insignificant]}],
     summary: "activates next, Insignificant"}
  Nuki Do:
    {cost: 1, timing: instant, area: personal, limits: [once_per_turn], when: exchange, affects: self,
     initiative: without, effects: [{op: stat, changes: {melee: 1}, until: exchange}],
     summary: +1 melee without the Initiative}
  Focus Frenzy:
    {cost: 3, timing: simple, area: target, range: 6, opposed: false, when: action, affects: target,
     effects: [{op: condition, name: death_sentence, n: 1}, {op: condition, name: bleed, n: 1, value: 1}],
     effects_self: [{op: activation, rule: now, at: end_activation, ignore_impetuous: true}],
     summary: "Death Sentence and Bleeding, then it may activate again"}
  Thrash:
    {cost: 2, timing: instant, area: personal, when: exchange, affects: opponent,
     effects: [{op: lose, traits: [Dodge], until: action}], summary: its opponent loses Dodge}
  Volley Fire:
    {cost: 3, timing: active, area: pulse, range: 3, limits: [once_per_game], when: action, affects: self,
     effects: [{op: attack, kind: ranged, at: named, volley: [Bai Qian]}],
     summary: the user and friendly Bai Qian in the pulse shoot}
  Veteran:
    {cost: 1, timing: instant, area: personal, when: exchange, affects: self,
     effects: [{op: pool_penalties, ignore: conditions, until: exchange}], summary: no condition penalties}
  Dead Eye:
    {cost: 3, timing: active, area: personal, when: shot, affects: self,
     effects: [{op: shots, ignore: [cover, tiny], no_intercept: true, until: activation}],
     summary: "no Cover or Tiny modifier, no interception"}
  Passing Strike:
    {cost: 1, timing: active, area: personal, when: exchange, affects: self, moved_into_melee: true,
     effects: [{op: special_damage, specials: [sidestep-attack], until: exchange}],
     summary: its Sidestep Attack also rolls damage}
  Choke Hold:
    {cost: 2, timing: instant, area: personal, when: any, affects: self,
     effects: [{op: grant_weapon, traits: [Grapple Attack (0), Grapple Defence (0)], weapon: melee, until: activation},
               {op: special_damage, specials: [grapple-attack, grapple-defence], wound: true, until: activation}],
     summary: grapples that wound}
  Prediction:
    {cost: 2, timing: active, area: special, when: action, affects: self,
     effects: [{op: activation, rule: declare}], summary: the opponent names its next model}
  Instil Sloth:
    {cost: 2, timing: simple, area: target, range: 12, opposed: false, when: action, affects: target_enemy,
     effects: [{op: grant, traits: [Slow], until: end_phase}, {op: activation, rule: no_action_walk, until: end_phase}],
     summary: Slow and no walk with attacks}
  Tide Master:
    {cost: 2, timing: active, area: personal, when: shot, affects: self,
     effects: [{op: shots, ignore: [los, cover], until: action}], summary: no LoS needed and no Cover}
  Sick Em!:
    {cost: 2, timing: active, area: target, range: 6, limits: [once_per_turn], when: action, affects: target_enemy,
     effects: [{op: mark, keywords: [Animal], traits: [Bravery, "Co-ordinated Attack [Friendly]"], until: end_phase}],
     summary: friendly Animals that target or fight it gain Bravery and Co-ordinated Attack}
  Instil Envy:
    {cost: 3, timing: simple, area: target, range: 12, opposed: false, when: action, affects: target,
     effects: [{op: activation, rule: envy, until: end_phase}], summary: only dearer enemies}
  Raijin's Rage:
    {cost: 2, timing: instant, area: special, when: "trigger:attack_succeeded", dealt_by: ranged, affects: self,
     effects: [{op: attack, kind: ranged, at: near, near: 3, band: medium, ignore: [range, los, camouflage]}],
     summary: a further shot near the model hit}
"""

YAML = """
format: bushido-table/1
name: feats-f1
table: {width: 36, depth: 36}
terrain: []
models:
  - {id: hero, player: 1, profile: HERO, position: [10, 10], facing: 0}
  - {id: mate, player: 1, profile: MATE, position: [30, 30], facing: 0}
  - {id: foe, player: 2, profile: FOE, position: [20, 20], facing: 180}
  - {id: foe2, player: 2, profile: FOE, position: [30, 4], facing: 180}
"""

#: A 30 mm base's diameter in inches: models this far apart (centre to centre) touch.
TOUCH = 30 / 25.4


@pytest.fixture(autouse=True)
def _fixture_file(tmp_path, monkeypatch):
    """The game reads this test's feat effects file instead of the repository's."""
    yield from feat_data(FIXTURE, tmp_path, monkeypatch)


def game(hero=(), mate=(), places=None, seed: int = 1, foe_traits=(), types=None) -> Game:
    """Hero and Mate (Akira's card with the feats ``hero`` / ``mate``; ``types``: their
    type keywords) against Foe and Foe2 (Masunagi's card, with ``foe_traits`` added);
    ``places``: ``{id: (x, y)}``."""
    akira = get_profile("takashi-akira")
    masu = get_profile("ito-masunagi")
    key = "-".join(sorted(hero) + ["m"] + sorted(mate) + ["t"] + list(foe_traits) + list(types or ())).lower()
    key = "".join(c for c in key if c.isalnum() or c == "-")
    t = tuple(types) if types is not None else akira.types
    h = replace(akira, id=f"f1-hero-{key}", name="Hero", bs_id=f"test-f1-hero-{key}", feats=tuple(hero), types=t)
    m = replace(akira, id=f"f1-mate-{key}", name="Mate", bs_id=f"test-f1-mate-{key}", feats=tuple(mate), types=t)
    f = replace(masu, id=f"f1-foe-{key}", name="Foe", bs_id=f"test-f1-foe-{key}",
                traits=masu.traits + tuple(parse_trait(x) for x in foe_traits))
    add_profile_source({p.id: p for p in (h, m, f)})  # conftest removes them after
    y = YAML.replace("HERO", h.id).replace("MATE", m.id).replace("FOE", f.id)
    for mid, (x, yy) in (places or {}).items():
        line = next(ln for ln in y.splitlines() if f"id: {mid}," in ln)
        start = line.index("position: [")
        end = line.index("]", start)
        y = y.replace(line, line[:start] + f"position: [{x}, {yy}" + line[end:])
    g = Game(parse_table(y, "<test>"), seed=seed, length=("fixed", 3))
    set_active(g, 1)
    for mid in ("hero", "mate"):
        set_model(g, mid, ki=6)
    return g


#: Hero touches Foe (they fight); Mate touches Foe too, on the other side (it assists).
FIGHT = {"hero": (20 - TOUCH, 20), "mate": (20 + TOUCH, 20)}


def _pools_after_melee(g: Game) -> dict[str, int]:
    g.push(Action("melee", "hero", target="foe"))
    assert g.state.exchange is not None
    return g.exchange_pools()


# ------------------------------------------------------------------ Melee Assist (p.36)
def test_outmanoeuvre_doubles_the_assist_penalty_it_inflicts():
    """Mate's assist takes one die off Foe's pool (p.36); after Outmanoeuvre (Active, used
    in its player's turn before Hero's Melee) it takes two, for that exchange only."""
    plain = _pools_after_melee(game(mate=("Outmanoeuvre",), places=FIGHT))
    g = game(mate=("Outmanoeuvre",), places=FIGHT)
    use = Action("feat", "mate", feat="Outmanoeuvre")
    assert use in g.legal_actions() and g.is_legal(use)[0]
    g.push(use)
    assert g.state.models["mate"].ki == 4
    pools = _pools_after_melee(g)
    assert pools["foe"] == plain["foe"] - 1
    assert pools["hero"] == plain["hero"]
    while g.state.exchange is not None:  # the exchange is fought out: the doubled assist ends
        g.push(g.legal_actions()[0])
    assert not any(k.startswith("feat_assist:") for k in g.state.models["mate"].conditions)


def test_a_doubled_assist_is_the_one_indomitable_ignores():
    """Indomitable (1) ignores one assisting model (p.53): Foe ignores Mate's doubled assist
    whole, so its pool is what it is with no assist at all (reading: the heaviest first)."""
    alone = _pools_after_melee(game(mate=("Outmanoeuvre",), places={"hero": FIGHT["hero"]},
                                    foe_traits=("Indomitable (1)",)))
    g = game(mate=("Outmanoeuvre",), places=FIGHT, foe_traits=("Indomitable (1)",))
    g.push(Action("feat", "mate", feat="Outmanoeuvre"))
    assert _pools_after_melee(g)["foe"] == alone["foe"]


def test_practised_manoeuvres_doubles_only_in_an_exchange_of_its_keyword():
    """Practised Manoeuvres: -2 dice only in an exchange involving Lone Swordsmen (the
    keyword Swordsman): Hero is one with the types given here, an Akira card is not."""
    for types, extra in ((("samurai", "swordsman"), 1), (("samurai",), 0)):
        plain = _pools_after_melee(game(mate=("Practised Manoeuvres",), places=FIGHT, types=types))
        g = game(mate=("Practised Manoeuvres",), places=FIGHT, types=types)
        g.push(Action("feat", "mate", feat="Practised Manoeuvres"))
        assert _pools_after_melee(g)["foe"] == plain["foe"] - extra, types


def test_absolute_mastery_counts_the_models_assisting_against_it():
    """Absolute Mastery (Instant, in the exchange): +1 Melee and +1 melee weapon Strength for
    each enemy model giving it an assist penalty -- Foe2 touching Hero is one."""
    places = {"hero": (20 - TOUCH, 20), "foe2": (20 - 2 * TOUCH, 20)}
    g = game(hero=("Absolute Mastery",), places=places)
    before = _pools_after_melee(g)
    strength = g.profile("hero").weapons[0].strength
    use = Action("feat", "hero", feat="Absolute Mastery")
    assert use in g.legal_actions()
    g.push(use)
    assert g.exchange_pools()["hero"] == before["hero"] + 1
    assert g.profile("hero").weapons[0].strength == strength + 1
    g2 = game(hero=("Absolute Mastery",), places={"hero": (20 - TOUCH, 20)})
    before2 = _pools_after_melee(g2)
    g2.push(Action("feat", "hero", feat="Absolute Mastery"))  # nobody assists: no bonus
    assert g2.exchange_pools()["hero"] == before2["hero"]


def test_underhanded_needs_a_friends_assist_and_is_used_once_per_exchange():
    """Underhanded (X+1, BtB, X at most 2): at the start of an exchange, only while a friend
    gives the enemy an assist penalty, the enemy gains a Poisoned (X) marker; once per
    exchange."""
    g = game(hero=("Underhanded",), places={"hero": FIGHT["hero"]})
    _pools_after_melee(g)
    ok, why = g.is_legal(Action("feat", "hero", feat="Underhanded", target="foe", x=1))
    assert not ok and "Melee Assist" in why
    g = game(hero=("Underhanded",), places=FIGHT)
    _pools_after_melee(g)
    use = Action("feat", "hero", feat="Underhanded", target="foe", x=2)
    assert g.is_legal(use)[0]
    g.push(use)
    assert g.state.models["foe"].markers.get("poison") == [2]
    assert g.state.models["hero"].ki == 3
    ok, why = g.is_legal(Action("feat", "hero", feat="Underhanded", target="foe", x=1))
    assert not ok and "once per melee exchange" in why


def test_phalanx_gives_brutal_only_with_a_melee_assist():
    """Phalanx: its melee weapons gain Brutal (1) if it benefits from a Melee Assist: it is
    refused in an exchange where nobody assists it, used where Mate does."""
    g = game(hero=("Phalanx",), places={"hero": FIGHT["hero"]})
    _pools_after_melee(g)
    assert not g.is_legal(Action("feat", "hero", feat="Phalanx"))[0]
    g = game(hero=("Phalanx",), places=FIGHT)
    _pools_after_melee(g)
    g.push(Action("feat", "hero", feat="Phalanx"))
    assert any("Brutal" in t for t in g.profile("hero").weapons[0].traits)


# ------------------------------------------------------------------ activation order (p.20-21)
def test_dominate_makes_the_enemy_activate_next_without_a_pass():
    """Dominate (Active, Target 6"): the target must be the opponent's next activating model,
    ignoring Impetuous markers, and no pass token may be used before it; after its
    activation the binding is gone."""
    g = game(hero=("Dominate",), places={"foe": (14, 10), "foe2": (30, 4)})
    pos = g.position()
    pos["pass_tokens"] = {"1": 0, "2": 2}
    pos["models"]["foe2"]["conditions"] = {"impetuous": 1}  # an Impetuous friend does not stop it
    g.set_position(pos)
    use = Action("feat", "hero", feat="Dominate", target="foe")
    assert use in g.legal_actions()
    g.push(use)
    g.push(Action("wait", "hero"))
    assert g.state.active == 2
    offers = g.legal_actions()
    assert offers and {a.model for a in offers} == {"foe"}
    ok, why = g.is_legal(Action("wait", "foe2"))
    assert not ok and "Dominate" in why
    ok, why = g.is_legal(Action("pass"))
    assert not ok and "Dominate" in why
    g.push(Action("wait", "foe"))
    assert not any(k.startswith("feat_order:") for m in g.state.models.values() for k in m.conditions)


def test_dominate_refuses_an_exhausted_target():
    """Dominate names a non-Exhausted enemy model."""
    g = game(hero=("Dominate",), places={"foe": (14, 10)})
    set_model(g, "foe", counters=0)
    ok, why = g.is_legal(Action("feat", "hero", feat="Dominate", target="foe"))
    assert not ok and "Exhausted" in why


def test_fog_of_hesitation_makes_the_model_activate_last():
    """Fog of Hesitation (Opposed, Pulse 4"): when the enemy loses the opposed test, it may
    not activate while another model of its warband can; once they are Exhausted it may."""
    for seed in range(1, 30):
        g = game(hero=("Fog of Hesitation",), places={"foe": (12, 10)}, seed=seed)
        g.push(Action("feat", "hero", feat="Fog of Hesitation", models=("foe",)))
        if "feat_order:last" in g.state.models["foe"].conditions:
            break
    else:
        pytest.fail("the opposed test never went the user's way")
    g.push(Action("wait", "hero"))
    assert g.state.active == 2
    ok, why = g.is_legal(Action("wait", "foe"))
    assert not ok and "Fog of Hesitation" in why
    assert {a.model for a in g.legal_actions() if a.model} == {"foe2"}
    set_model(g, "foe2", counters=0)
    assert g.is_legal(Action("wait", "foe"))[0]


def test_provoke_forbids_the_pass_until_the_next_activation():
    """Provoke: the target gains an Impetuous marker and its player may not spend a pass
    token in its next activation; after that activation it may again."""
    for seed in range(1, 30):
        g = game(hero=("Provoke",), places={"foe": (14, 10)}, seed=seed)
        pos = g.position()
        pos["pass_tokens"] = {"1": 0, "2": 2}
        g.set_position(pos)
        g.push(Action("feat", "hero", feat="Provoke", target="foe"))
        if "impetuous" in g.state.models["foe"].conditions:
            break
    else:
        pytest.fail("the opposed test never went the user's way")
    assert "feat_order:no_pass" in g.state.models["foe"].conditions
    g.push(Action("wait", "hero"))
    ok, why = g.is_legal(Action("pass"))
    assert not ok and "Provoke" in why
    g.push(Action("wait", "foe"))
    g.push(Action("wait", "mate"))
    assert g.state.active == 2 and g.is_legal(Action("pass"))[0]


def test_blood_brothers_activates_after_a_friendly_blood_brother():
    """Blood Brothers (Instant): when another friendly Blood Brother ends its activation, its
    player may become the active player again and begin this model's activation: offered
    (or declined) at once; used, Mate alone activates next, then the opponent."""
    bb = ("samurai", "blood brother")
    g = game(mate=("Blood Brothers",), types=bb)
    g.push(Action("wait", "hero"))
    assert g.to_move() == 1
    offers = g.legal_actions()
    use = Action("feat", "mate", feat="Blood Brothers")
    assert use in offers and Action("decline_feat", "mate", feat="Blood Brothers") in offers
    g.push(use)
    assert g.state.active == 1 and g.state.models["mate"].ki == 4
    assert {a.model for a in g.legal_actions() if a.model} == {"mate"}
    assert not g.is_legal(Action("pass"))[0]
    g.push(Action("wait", "mate"))
    assert g.state.active == 2
    # not a Blood Brother: no offer
    g2 = game(mate=("Blood Brothers",))
    g2.push(Action("wait", "hero"))
    assert g2.state.active == 2 and not any(a.feat == "Blood Brothers" for a in g2.legal_actions())


def test_blood_brothers_declined_gives_the_turn_to_the_opponent():
    """Declined, the turn goes on as usual: the opponent activates."""
    g = game(mate=("Blood Brothers",), types=("samurai", "blood brother"))
    g.push(Action("wait", "hero"))
    g.push(Action("decline_feat", "mate", feat="Blood Brothers"))
    assert g.to_move() == 2 and g.state.models["mate"].ki == 6


def test_round6_ops_count_as_applied():
    """The new ops are in the engine's supported set, so the entries count as applied."""
    for name in ("Outmanoeuvre", "Absolute Mastery", "Underhanded", "Dominate", "Fog of Hesitation",
                 "Provoke", "Blood Brothers"):
        assert fe.effect_status(name) == (True, ""), name


# ------------------------------------------------------------------ a shot chained from a hit (p.30-32)
SHOOTERS = """
format: bushido-table/1
name: feats-f1-shots
table: {width: 36, depth: 36}
terrain: []
models:
  - {id: archer, player: 1, profile: ARCHER, position: [10, 10], facing: 90}
  - {id: near, player: 2, profile: FOE, position: [10, 18], facing: 270}
  - {id: jump, player: 2, profile: FOE, position: [12.6, 19.6], facing: 270}
  - {id: far, player: 2, profile: FOE, position: [30, 34], facing: 270}
"""


def shooters(seed: int) -> Game:
    """An archer (Ishi's card, its Bow without Reload, Raijin's Rage) 6.8" from Near (its
    Medium band); Jump 1.9" from Near and 8.8" from the archer (its Long band); Far away."""
    ishi = get_profile("ishi")
    bow = replace(ishi.weapons[0], traits=("Lightweight",))
    archer = replace(ishi, id="f1-archer", name="Archer", bs_id="test-f1-archer", feats=("Raijin's Rage",),
                     weapons=(bow,) + ishi.weapons[1:], ranged=4)
    foe = replace(get_profile("ito-masunagi"), id="f1-target", name="Target", bs_id="test-f1-target", feats=())
    add_profile_source({p.id: p for p in (archer, foe)})
    g = Game(parse_table(SHOOTERS.replace("ARCHER", archer.id).replace("FOE", foe.id), "<test>"), seed=seed,
             length=("fixed", 3))
    set_active(g, 1)
    set_model(g, "archer", ki=4)
    return g


def _no_interceptor(g: Game) -> None:
    while g.state.interception is not None:
        g.push(Action("intercept"))


def test_raijins_rage_shoots_again_near_the_model_hit():
    """Raijin's Rage (Instant): after a successful ranged attack, one more ranged attack at
    another model within 3" of the model hit, in the Medium band whatever the distance: the
    trigger offers Jump only (not Near itself, not Far), and the shot at Jump -- in the Bow's
    Long band -- is made at Medium range."""
    for seed in range(1, 60):
        g = shooters(seed)
        g.push(Action("shoot", "archer", target="near"))
        _no_interceptor(g)
        if any(a.feat == "Raijin's Rage" for a in g.legal_actions()):
            break
    else:
        pytest.fail("the first shot never hit")
    offers = g.legal_actions()
    assert g.to_move() == 1
    assert [a.target for a in offers if a.kind != "decline_feat"] == ["jump"]
    assert Action("decline_feat", "archer", feat="Raijin's Rage") in offers
    ok, why = g.is_legal(Action("feat", "archer", feat="Raijin's Rage", target="far"))
    assert not ok and "within 3" in why
    n = len(g.events)
    g.push(next(a for a in offers if a.target == "jump"))
    _no_interceptor(g)
    shots = [e for e in g.events[n:] if e.kind == "shot"]
    assert shots and any("medium range (as the Ki feat says)" in line for line in shots[0].data["summary"])
    assert g.state.models["archer"].ki <= 2


def test_raijins_rage_is_not_offered_after_a_miss():
    """Only a successful ranged attack opens it."""
    for seed in range(1, 60):
        g = shooters(seed)
        g.push(Action("shoot", "archer", target="near"))
        _no_interceptor(g)
        summary = " ".join(line for e in g.events if e.kind == "shot" for line in e.data["summary"])
        if ": miss" in summary:
            assert not any(a.feat == "Raijin's Rage" for a in g.legal_actions())
            return
    pytest.fail("the first shot never missed")


# ------------------------------------------------------------------ forced and limited actions
def test_lure_forces_a_full_walk_straight_at_the_user_as_the_next_activation():
    """Lure (Simple, Target 6"): the target gains an Impetuous marker and its next activation
    must be a Walk straight at the user with its full Move: that Walk is the one offered, any
    other is refused; after it the model acts freely again."""
    g = game(hero=("Lure",), places={"foe": (10, 16)})
    g.push(Action("ki_feat", "hero", feat="Lure", target="foe"))
    assert "impetuous" in g.state.models["foe"].conditions
    assert g.state.active == 2
    walks = [a for a in g.legal_actions() if a.model == "foe"]
    assert len(walks) == 1 and walks[0].kind == "walk"
    x, y = walks[0].point
    assert x == pytest.approx(10) and 11 < y < 13  # straight at Hero, as far as a Walk may go
    ok, why = g.is_legal(Action("wait", "foe"))
    assert not ok and "Walk straight at hero" in why
    assert not g.is_legal(Action("walk", "foe", point=(10, y + 1)))[0]  # not its full Move
    assert not g.is_legal(Action("walk", "foe", point=(12, 14)))[0]  # not straight at Hero
    g.push(walks[0])
    assert "feat_order:walk_at" not in g.state.models["foe"].conditions


def test_lure_refuses_a_target_touching_a_friend_of_the_user():
    """"Target model not in BtB with a Friendly model": Foe touching Mate cannot be Lured."""
    g = game(hero=("Lure",), places={"foe": (10, 16), "mate": (10 + TOUCH, 16)})
    ok, why = g.is_legal(Action("ki_feat", "hero", feat="Lure", target="foe"))
    assert not ok and "base contact with mate" in why


def test_cower_leaves_only_disengage_stand_up_and_wait_until_the_end_phase():
    """Cower: until the End phase the target may declare only Disengage, Stand Up and Wait."""
    g = game(hero=("Cower",), places={"foe": (14, 10)})
    g.push(Action("ki_feat", "hero", feat="Cower", target="foe"))
    assert g.state.active == 2
    kinds = {a.kind for a in g.legal_actions() if a.model == "foe"}
    assert kinds and kinds <= {"wait", "disengage", "stand_up"}
    ok, why = g.is_legal(Action("walk", "foe", point=(16, 10)))
    assert not ok and "Cower" in why
    assert g.is_legal(Action("wait", "foe"))[0]


def test_the_oppressed_is_insignificant_until_the_end_of_its_next_activation():
    """The Oppressed: the target activates next (no pass) and is Insignificant until the end
    of that activation -- also in the rest of the user's activation before it."""
    g = game(hero=("The Oppressed",), places={"foe": (13, 10)})
    g.push(Action("feat", "hero", feat="The Oppressed", target="foe"))
    assert g.profile("foe").trait("insignificant") is not None
    g.push(Action("wait", "hero"))
    assert {a.model for a in g.legal_actions() if a.model} == {"foe"}
    g.push(Action("wait", "foe"))
    assert g.profile("foe").trait("insignificant") is None


def test_nuki_do_only_without_the_initiative():
    """Nuki Do (Instant, in the exchange): only while the user does not hold the Initiative
    -- the charged defender may use it, the attacker (the active model, p.33) may not."""
    g = game(hero=("Nuki Do",), mate=(), places={"hero": FIGHT["hero"]})
    _pools_after_melee(g)
    ok, why = g.is_legal(Action("feat", "hero", feat="Nuki Do"))
    assert not ok and "does not hold the Initiative" in why
    g = game(hero=("Nuki Do",), places={"hero": FIGHT["hero"]})
    set_active(g, 2)
    g.push(Action("melee", "foe", target="hero"))
    g.push(next(a for a in g.legal_actions() if a.model == "foe"))  # the attacker allocates first
    before = g.exchange_pools()["hero"]
    g.push(Action("feat", "hero", feat="Nuki Do"))
    assert g.exchange_pools()["hero"] == before + 1


def test_focus_frenzy_may_activate_the_user_again_after_its_action():
    """Focus Frenzy (Simple): after the action, if the user has a counter left, its player
    may become the active player again and activate it (no pass token); declined, the
    opponent acts."""
    g = game(hero=("Focus Frenzy",), places={"foe": (14, 10)})
    g.push(Action("ki_feat", "hero", feat="Focus Frenzy", target="foe"))
    assert "death_sentence" in g.state.models["foe"].conditions
    assert g.to_move() == 1
    again = Action("feat_later", "hero", feat="Focus Frenzy")
    offers = g.legal_actions()
    assert again in offers and Action("decline_feat", "hero", feat="Focus Frenzy") in offers
    g.push(again)
    assert g.state.active == 1 and g.state.models["hero"].ki == 3  # no Ki paid again
    assert {a.model for a in g.legal_actions() if a.model} == {"hero"}
    g.push(Action("wait", "hero"))
    assert g.state.active == 2
    g2 = game(hero=("Focus Frenzy",), places={"foe": (14, 10)})
    g2.push(Action("ki_feat", "hero", feat="Focus Frenzy", target="foe"))
    g2.push(Action("decline_feat", "hero", feat="Focus Frenzy"))
    assert g2.to_move() == 2


def test_thrash_takes_dodge_from_the_model_it_fights():
    """Thrash (Instant, in the exchange): the model in the exchange with the user loses Dodge
    until the current action is resolved; the user keeps its own traits."""
    g = game(hero=("Thrash",), places={"hero": FIGHT["hero"]}, foe_traits=("Dodge (1)",))
    _pools_after_melee(g)
    assert g.profile("foe").trait("dodge") is not None
    g.push(Action("feat", "hero", feat="Thrash"))
    assert g.profile("foe").trait("dodge") is None
    while g.state.exchange is not None:
        g.push(g.legal_actions()[0])
    assert g.profile("foe").trait("dodge") is not None  # the action is resolved


VOLLEY = """
format: bushido-table/1
name: feats-f1-volley
table: {width: 36, depth: 36}
terrain: []
models:
  - {id: archer, player: 1, profile: ARCHER, position: [10, 10], facing: 90}
  - {id: second, player: 1, profile: SECOND, position: [12, 10], facing: 90}
  - {id: third, player: 1, profile: THIRD, position: [30, 10], facing: 90}
  - {id: near, player: 2, profile: FOE, position: [10, 16], facing: 270}
"""


def test_volley_fire_lets_friends_in_the_pulse_shoot_too():
    """Volley Fire (Active, Pulse 3"): the user makes a ranged attack, then each friendly
    Bai Qian model in the Pulse may make one (a choice per model, at a model its player
    names); one out of the Pulse may not; a model is affected once per turn."""
    ishi = get_profile("ishi")
    bow = replace(ishi.weapons[0], traits=("Lightweight",))
    cards = {}
    for key in ("archer", "second", "third"):
        cards[key] = replace(ishi, id=f"f1-v-{key}", name=key.title(), bs_id=f"test-f1-v-{key}",
                             feats=("Volley Fire",), weapons=(bow,) + ishi.weapons[1:], types=("bai qian",))
    foe = replace(get_profile("ito-masunagi"), id="f1-v-foe", name="Foe", bs_id="test-f1-v-foe", feats=())
    add_profile_source({p.id: p for p in (*cards.values(), foe)})
    y = VOLLEY.replace("FOE", foe.id)
    for key, card in cards.items():
        y = y.replace(key.upper(), card.id)
    g = Game(parse_table(y, "<test>"), seed=3, length=("fixed", 3))
    set_active(g, 1)
    set_model(g, "archer", ki=4)
    use = Action("feat", "archer", feat="Volley Fire", target="near")
    assert use in g.legal_actions()
    g.push(use)
    _no_interceptor(g)
    offers = g.legal_actions()
    assert g.to_move() == 1
    assert Action("feat_later", "second", feat="Volley Fire", target="near") in offers
    assert not any(a.model == "third" for a in offers)
    n = sum(1 for e in g.events if e.kind == "shot")
    g.push(Action("feat_later", "second", feat="Volley Fire", target="near"))
    _no_interceptor(g)
    assert sum(1 for e in g.events if e.kind == "shot") == n + 1
    assert not any(a.kind == "feat_later" for a in g.legal_actions())
    ok, why = g.is_legal(Action("feat", "second", feat="Volley Fire", target="near"))
    assert not ok and "this turn" in why


def test_veteran_cancels_the_melee_penalties_of_its_conditions_for_the_exchange():
    """Veteran (Instant, in the exchange): no Melee dice penalty from its conditions (p.36:
    -1 for Stunned, Frightened ...) until the exchange is resolved."""
    clean = _pools_after_melee(game(hero=("Veteran",), places={"hero": FIGHT["hero"]}))
    g = game(hero=("Veteran",), places={"hero": FIGHT["hero"]})
    set_model(g, "hero", conditions={"stunned": 1, "frightened": 1})
    hurt = _pools_after_melee(g)
    assert hurt["hero"] == clean["hero"] - 2
    g.push(Action("feat", "hero", feat="Veteran"))
    assert g.exchange_pools()["hero"] == clean["hero"]
    while g.state.exchange is not None:
        g.push(g.legal_actions()[0])
    assert not any(k.startswith("feat_pool:") for k in g.state.models["hero"].conditions)


DEAD_EYE = """
format: bushido-table/1
name: feats-f1-dead-eye
table: {width: 36, depth: 36}
terrain:
  - {id: hedge, rect: {center: [10, 16.6], width: 3, depth: 0.4}, passage: normal, visibility: obscuring, size: small}
models:
  - {id: archer, player: 1, profile: ARCHER, position: [10, 10], facing: 90}
  - {id: near, player: 2, profile: FOE, position: [10, 18], facing: 270}
  - {id: guard, player: 2, profile: FOE, position: [11.3, 14], facing: 270}
"""


def _dead_eye_game(seed: int = 1) -> Game:
    ishi = get_profile("ishi")
    bow = replace(ishi.weapons[0], traits=("Lightweight",))
    archer = replace(ishi, id="f1-de-archer", name="Archer", bs_id="test-f1-de-archer", feats=("Dead Eye",),
                     weapons=(bow,) + ishi.weapons[1:], ranged=4)
    foe = replace(get_profile("ito-masunagi"), id="f1-de-foe", name="Foe", bs_id="test-f1-de-foe", feats=())
    add_profile_source({p.id: p for p in (archer, foe)})
    g = Game(parse_table(DEAD_EYE.replace("ARCHER", archer.id).replace("FOE", foe.id), "<test>"), seed=seed,
             length=("fixed", 3))
    set_active(g, 1)
    set_model(g, "archer", ki=4)
    return g


def test_dead_eye_shoots_without_cover_and_without_interception():
    """Dead Eye (Active, before its shot): until the end of the activation its ranged attacks
    take no Cover modifier (p.31: +2) and the opposing player may not nominate a new target
    (no interception, step 1d): the same shot without it waits for an interceptor and its
    target number counts the Cover."""
    g = _dead_eye_game()
    g.push(Action("shoot", "archer", target="near"))
    assert g.state.interception is not None  # Guard may intercept
    g.push(Action("intercept"))
    assert any("target in Cover" in line for line in g.log() if "target number" in line)
    g = _dead_eye_game()
    g.push(Action("feat", "archer", feat="Dead Eye"))
    n = len(g.events)
    g.push(Action("shoot", "archer", target="near"))
    assert g.state.interception is None
    tn = [line for line in g.log()[n:] if "target number" in line]
    assert tn and "Cover" not in tn[0]
    assert not any(k.startswith("feat_shots:") for k in g.state.models["archer"].conditions)  # the activation ended


def _sidestepper(seed: int, feat: bool, places: dict) -> list[str]:
    """Hero (a Katana with Sidestep Attack (0), Passing Strike) makes a Melee at Foe, uses the
    feat (``feat``) and puts every die into a Sidestep Attack; Foe defends with all its dice.
    The exchange's log lines."""
    akira = get_profile("takashi-akira")
    katana = replace(akira.weapons[0], special_attacks=("Sidestep Attack (0)",))
    card = replace(akira, id="f1-side", name="Sider", bs_id="test-f1-side", feats=("Passing Strike",),
                   weapons=(katana,))
    add_profile_source({card.id: card})
    y = YAML.replace("HERO", card.id).replace("MATE", akira.id).replace("FOE", "ito-masunagi")
    g = Game(parse_table(y, "<test>"), seed=seed, length=("fixed", 3))
    for mid, (x, yy) in places.items():
        set_model(g, mid, position=[x, yy])
    set_active(g, 1)
    set_model(g, "hero", ki=4)
    g.push(Action("melee", "hero", target="foe"))
    if feat:
        g.push(Action("feat", "hero", feat="Passing Strike"))
    n = len(g.events)
    pool = g.exchange_pools()["hero"]
    side = Action("allocate", "hero", attack=pool, defence=0, special="sidestep-attack")
    ok, why = g.is_legal(side)
    if not ok:
        side = Action("allocate", "hero", attack=pool, defence=0, special="sidestep-attack", direction=0)
    g.push(side)
    while g.state.exchange is not None:
        g.push(max(g.legal_actions(), key=lambda a: a.defence or 0))
    return [line for e in g.events[n:] if e.kind == "exchange" for line in e.data.get("summary", [])]


def test_passing_strike_makes_a_successful_sidestep_roll_damage_after_moving_into_melee():
    """Passing Strike (Active, in the exchange): having moved into melee this activation, a
    successful Sidestep Attack (no damage roll by its rule, p.40) makes a normal damage roll;
    it is refused to a model that began the activation in contact."""
    apart = {"hero": (16, 20), "foe": (20, 20)}
    for seed in range(1, 40):
        lines = _sidestepper(seed, True, apart)
        text = " ".join(lines)
        if "Sidestep Attack succeeds" in text:
            assert "Sidestep Attack: no damage roll" not in text and "Damage: attack: hero rolls" in text
            break
    else:
        pytest.fail("the Sidestep Attack never succeeded")
    for seed in range(1, 40):
        lines = _sidestepper(seed, False, apart)
        text = " ".join(lines)
        if "Sidestep Attack succeeds" in text:
            assert "Sidestep Attack: no damage roll" in text
            break
    g = game(hero=("Passing Strike",), places={"hero": FIGHT["hero"]})
    _pools_after_melee(g)  # Hero began in contact with Foe
    ok, why = g.is_legal(Action("feat", "hero", feat="Passing Strike"))
    assert not ok and "did not move into melee" in why


def test_choke_hold_a_successful_grapple_also_wounds_the_enemy():
    """Choke Hold (Instant): Grapple Attack (0) and Grapple Defence (0) until the end of the
    activation; when it applies one successfully the enemy suffers one wound (Grapple Attack
    itself makes no damage roll, p.40)."""
    for seed in range(1, 40):
        g = game(hero=("Choke Hold",), places={"hero": (16, 20)}, seed=seed)
        g.push(Action("feat", "hero", feat="Choke Hold"))
        g.push(Action("melee", "hero", target="foe"))
        n = len(g.events)
        pool = g.exchange_pools()["hero"]
        g.push(Action("allocate", "hero", attack=pool, defence=0, special="grapple-attack"))
        while g.state.exchange is not None:
            g.push(max(g.legal_actions(), key=lambda a: a.defence or 0))
        lines = [line for e in g.events[n:] if e.kind == "exchange" for line in e.data.get("summary", [])]
        if any("Grapple Attack succeeds" in line for line in lines):
            assert any("Grapple Attack applied by hero: foe takes 1 wound(s)" in line for line in lines)
            assert g.state.models["foe"].damage >= 1
            return
    pytest.fail("the Grapple Attack never succeeded")


def test_prediction_makes_the_opponent_name_its_next_activating_model_now():
    """Prediction (Active): the opposing player must declare now which model it will choose
    as its next activating model (its choice, offered per model, no refusal); that model is
    then the only one it may activate (a pass token stays allowed); if it becomes ineligible
    first, any model may be chosen."""
    g = game(hero=("Prediction",))
    g.push(Action("feat", "hero", feat="Prediction"))
    assert g.to_move() == 2
    offers = g.legal_actions()
    assert {a.target for a in offers} == {"foe", "foe2"} and all(a.kind == "feat_later" for a in offers)
    assert not g.is_legal(Action("decline_feat", offers[0].model, feat="Prediction"))[0]
    g.push(next(a for a in offers if a.target == "foe2"))
    assert g.to_move() == 1 and g.state.active == 1  # the user's player goes on with its activation
    g.push(Action("wait", "hero"))
    assert {a.model for a in g.legal_actions() if a.model} == {"foe2"}
    ok, why = g.is_legal(Action("wait", "foe"))
    assert not ok and "Prediction" in why
    set_model(g, "foe2", counters=0)  # ineligible: no restriction
    assert g.is_legal(Action("wait", "foe"))[0]


def test_instil_sloth_takes_the_walk_out_of_its_attack_actions():
    """Instil Sloth: until the End phase the target is Slow and its Ranged Attack and Melee
    actions come without their usual Walk: a Melee only at an enemy already in contact."""
    g = game(hero=("Instil Sloth",), places={"foe": (14, 10)})
    g.push(Action("ki_feat", "hero", feat="Instil Sloth", target="foe"))
    assert g.profile("foe").trait("slow") is not None
    assert g.state.active == 2
    ok, why = g.is_legal(Action("melee", "foe", target="hero"))
    assert not ok and "Instil Sloth" in why
    assert not any(a.kind == "melee" and a.model == "foe" for a in g.legal_actions())
    g2 = game(hero=("Instil Sloth",), places={"foe": (10 + TOUCH, 10)})
    g2.push(Action("ki_feat", "hero", feat="Instil Sloth", target="foe"))
    assert g2.is_legal(Action("melee", "foe", target="hero"))[0]  # already in contact: no move needed


TIDE = """
format: bushido-table/1
name: feats-f1-tide
table: {width: 36, depth: 36}
terrain:
  - {id: wall, rect: {center: [10, 14], width: 4, depth: 0.5}, passage: impassable, visibility: blocking, size: huge}
models:
  - {id: archer, player: 1, profile: ARCHER, position: [10, 10], facing: 90}
  - {id: near, player: 2, profile: FOE, position: [10, 17], facing: 270}
"""


def test_tide_master_shoots_without_line_of_sight():
    """Tide Master (Active, before its shot), option 2: until the Ranged Attack is resolved it
    needs no LoS and ignores Cover -- a target behind a wall may be shot."""
    ishi = get_profile("ishi")
    bow = replace(ishi.weapons[0], traits=("Lightweight",))
    archer = replace(ishi, id="f1-tide-archer", name="Archer", bs_id="test-f1-tide-archer", feats=("Tide Master",),
                     weapons=(bow,) + ishi.weapons[1:])
    foe = replace(get_profile("ito-masunagi"), id="f1-tide-foe", name="Foe", bs_id="test-f1-tide-foe", feats=())
    add_profile_source({p.id: p for p in (archer, foe)})
    g = Game(parse_table(TIDE.replace("ARCHER", archer.id).replace("FOE", foe.id), "<test>"), seed=1,
             length=("fixed", 3))
    set_active(g, 1)
    set_model(g, "archer", ki=4)
    ok, why = g.is_legal(Action("shoot", "archer", target="near"))
    assert not ok and "LoS" in why
    g.push(Action("feat", "archer", feat="Tide Master"))
    assert g.is_legal(Action("shoot", "archer", target="near"))[0]
    n = len(g.events)
    g.push(Action("shoot", "archer", target="near"))
    assert any(e.kind == "shot" for e in g.events[n:])


def test_sick_em_gives_animals_that_target_the_marked_enemy_bravery_and_coordinated_attack():
    """Sick Em! (Active, a chosen enemy within 6"): friendly Animal models that target it (or
    that it attacks in melee) gain Bravery and Co-ordinated Attack [Friendly] until the End
    phase; a model that is no Animal gains nothing."""
    g = game(hero=("Sick Em!",), places={"foe": (14, 10), "mate": (16, 14)}, types=("samurai", "animal"))
    g.push(Action("feat", "hero", feat="Sick Em!", target="foe"))
    assert g.profile("mate").trait("coordinated_attack") is None
    g.push(Action("melee", "mate", target="foe"))
    assert g.profile("mate").trait("coordinated_attack") is not None  # (Akira's card prints Bravery already)
    gained = [e for e in g.state.models["mate"].effects if e.get("source") == "Sick Em!"]
    assert gained and "Bravery" in gained[0].get("traits", ())
    g2 = game(hero=("Sick Em!",), places={"foe": (14, 10), "mate": (16, 14)})
    g2.push(Action("feat", "hero", feat="Sick Em!", target="foe"))
    g2.push(Action("melee", "mate", target="foe"))
    assert g2.profile("mate").trait("coordinated_attack") is None  # an Akira card is no Animal


def test_prediction_used_twice_binds_the_latest_model_only():
    """Two bindings of one side's next activation cannot both hold: the latest replaces the
    earlier one (reading), so the side still has a model to activate."""
    g = game(hero=("Prediction",))
    g.push(Action("feat", "hero", feat="Prediction"))
    g.push(next(a for a in g.legal_actions() if a.target == "foe"))
    g.push(Action("feat", "hero", feat="Prediction"))
    g.push(next(a for a in g.legal_actions() if a.target == "foe2"))
    g.push(Action("wait", "hero"))
    assert {a.model for a in g.legal_actions() if a.model} == {"foe2"}


def test_instil_envy_lets_the_target_act_only_at_dearer_enemies():
    """Instil Envy: until the End phase the target uses no Ki feat at a friend other than
    itself and declares actions at enemy models only when their rice cost is higher than its
    own: Mate (an Akira card, 18 rice) may no longer Melee Foe (Masunagi's card, 17 rice)."""
    g = game(hero=("Instil Envy",), mate=("Dominate",), places={"mate": (12, 16), "foe": (12 + TOUCH, 16)})
    assert g.is_legal(Action("melee", "mate", target="foe"))[0]
    g.push(Action("ki_feat", "hero", feat="Instil Envy", target="mate"))
    set_active(g, 1)
    ok, why = g.is_legal(Action("melee", "mate", target="foe"))
    assert not ok and "higher rice cost" in why
    ok, why = g.is_legal(Action("feat", "mate", feat="Dominate", target="foe"))
    assert not ok and "higher rice cost" in why
    assert not any(a.model == "mate" and a.target == "foe" for a in g.legal_actions())
