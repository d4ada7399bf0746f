"""Ki feats as data, round 2 (issue #13): a choice between effects, the user with its
target or inside its own area, an opposed test only at an enemy, an Aura's changes read
while a model is inside, range bands, re-rolls, named tokens and the moments a feat waits
for (wounded, exchange resolved, enemy contact, the start of the turn), through the Game's
public API.

Rulebook p.46: "Все Умения имеют стоимость в жетонах Ки; эта стоимость должна быть
потрачена на применение эффектов Умения." The fixture entries copy the catalogue cards'
FACTS (cost, timing, area, range) and say the effect in the project's vocabulary.
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
  Pick One:
    {cost: 1, timing: active, area: personal, when: action, affects: self,
     effects: [{op: choice, labels: [melee, tough], options: [[{op: stat, changes: {melee: 1}, until: end_phase}],
                                                          [{op: grant, traits: ["Tough (+1)"], until: end_phase}]]}],
     summary: +1 Melee or Tough (+1) until the End phase}
  Hateful Curses:
    {cost: 2, timing: active, area: target, range: 6, when: action, affects: self_and_target,
     effects: [{op: condition, name: blind}], summary: the user and the target are Blind}
  Imperial Decree:
    {cost: 3, timing: simple, area: aura, range: 4, when: action, affects: models_and_self,
     effects: [{op: grant, traits: [Aloof]}], summary: no Scenario actions in the Aura}
  Icy Veins:
    {cost: 2, timing: active, area: target, range: 8, opposed: enemy, when: action, affects: target,
     effects: [{op: grant, traits: [Slow], until: end_phase}], summary: the target is Slow}
  Far Shot:
    {cost: 2, timing: active, area: personal, when: action, affects: self,
     effects: [{op: range_bands, bands: [6, 12, 18], until: end_phase}], summary: bands 6/12/18}
  Steady Hand:
    {cost: 1, timing: active, area: personal, when: action, affects: self,
     effects: [{op: reroll, test: Ranged, n: 1, until: activation}], summary: re-roll a Ranged die}
  Calm Mind:
    {cost: 1, timing: active, area: personal, when: action, affects: self,
     effects: [{op: reroll, test: Move, n: 1, until: activation}], summary: re-roll a Move die}
  Curse of Doom:
    {cost: 4, timing: simple, area: target, range: 8, when: action, affects: target_enemy,
     effects: [{op: tokens, name: Doom, n: 4}], summary: 4 Doom tokens}
  Test Wound:
    {cost: X, timing: simple, area: target, range: 30, when: action, affects: target_enemy,
     effects: [{op: wound, n: X}], summary: X wounds}
  Lick Wounds:
    {cost: 1, timing: instant, area: personal, when: "trigger:wounded", affects: self,
     effects: [{op: ki, n: 2}], summary: gains 2 Ki when wounded}
  Bristle:
    {cost: 1, timing: instant, area: personal, when: "trigger:enemy_contact", affects: self,
     effects: [{op: grant, traits: ["Armour (+1)"], until: end_phase}], summary: Armour (+1) when contacted}
  Drain:
    {cost: 1, timing: active, area: target, range: 8, when: action, affects: target_enemy, target_surprised: true,
     effects: [{op: take_ki, n: 3}], summary: takes up to 3 Ki}
  Reputation:
    {cost: 1, timing: instant, area: target, btb: true, when: "trigger:enemy_contact", affects: target_enemy,
     effects: [{op: condition, name: stunned}], summary: an enemy that contacts the user is Stunned}
  Long Aim:
    {cost: 1, timing: active, area: personal, when: shot, affects: self,
     effects: [{op: range_bands, add: 2, until: activation}], summary: bands +2 for its shots}
  Heavy Arm:
    {cost: 1, timing: active, area: personal, when: action, affects: self,
     effects: [{op: stat, changes: {strength: 1}, weapon: melee, until: end_phase}], summary: +1 melee strength}
  Agility:
    {cost: 1, timing: instant, area: personal, when: "trigger:scenario_action", affects: self,
     effects: [{op: counter, n: 1}], summary: a counter back after a Scenario action}
  Venom Seal:
    {cost: X, timing: simple, area: target, range: 8, when: action, affects: target_enemy, max_x: 3,
     effects: [{op: condition, name: poisoned, value: X}], summary: a Poisoned (X) marker}
  Dawn Prayer:
    {cost: 1, timing: instant, area: personal, when: start_phase, affects: self,
     effects: [{op: heal, n: 1}], summary: heals 1 at the start of the turn}
"""

YAML = """
format: bushido-table/1
name: feats3
table: {width: 36, depth: 36}
terrain: []
models:
  - {id: hanso, player: 1, profile: HANSO, position: [10, 10], facing: 0}
  - {id: spear1, player: 1, profile: SPEAR, position: [10, 14], facing: 0}
  - {id: masunagi, player: 2, profile: ito-masunagi, position: [30, 30], facing: 180}
  - {id: ishi, player: 2, profile: ishi, position: [30, 10], facing: 180}
"""


@pytest.fixture(autouse=True)
def _fixture_file(tmp_path, monkeypatch):
    """The game reads this test's feat effects file instead of the repository's."""
    yield from feat_data(FIXTURE, tmp_path, monkeypatch)


def game(*feats: str, seed: int = 1, places: dict | None = None, enemy_feats: tuple = ()) -> Game:
    """Hanso (Akira's card with ``feats``), a Spearman (Kokkio's card: an Arquebus 6/12/18),
    Masunagi (with ``enemy_feats``) and Ishi (player 2)."""
    akira = get_profile("takashi-akira")
    key = "-".join(sorted(feats) + sorted(enemy_feats)).lower().replace(" ", "")
    hanso = replace(akira, id=f"h15-hanso-{key}", name="Hanso", bs_id=f"test-h15-hanso-{key}", feats=tuple(feats))
    spear = replace(get_profile("kokkio"), id=f"h15-spear-{key}", name="Spearman", bs_id=f"test-h15-spear-{key}",
                    feats=tuple(feats))
    masu = replace(get_profile("ito-masunagi"), id=f"h15-masu-{key}", name="Masunagi", bs_id=f"test-h15-masu-{key}",
                   feats=tuple(enemy_feats))
    add_profile_source({hanso.id: hanso, spear.id: spear, masu.id: masu})  # conftest removes them after
    y = YAML.replace("HANSO", hanso.id).replace("SPEAR", spear.id)
    y = y.replace("profile: ito-masunagi", f"profile: {masu.id}")
    for mid, (x, yy) in (places or {}).items():
        line = next(ln for ln in y.splitlines() if f"id: {mid}," in ln)
        start = line.index("position: [")
        end = line.index("]", start)
        y = y.replace(line, line[:start] + f"position: [{x}, {yy}" + line[end:])
    g = Game(parse_table(y, "<test>"), seed=seed, length=("fixed", 3))
    set_active(g, 1)
    set_model(g, "hanso", ki=6)
    set_model(g, "spear1", ki=4)
    set_model(g, "masunagi", ki=4)
    return g


def _traits(g: Game, mid: str) -> set[str]:
    return {t.keyword for t in g.profile(mid).traits}


# ------------------------------------------------------------------ choice
def test_choice_offers_each_option_and_applies_the_picked_one():
    """A ``choice`` (Jocho: "+1 to its Melee Pool or Ranged Pool"): one offer per option;
    the action's ``option`` picks it (Tough (+1) here, not +1 Melee); an option the entry
    does not have is refused; the option survives the action's JSON and a save."""
    g = game("Pick One")
    offers = [a for a in g.legal_actions() if a.feat == "Pick One" and a.model == "hanso"]
    assert sorted(a.option for a in offers) == [0, 1]
    ok, why = g.is_legal(Action("feat", "hanso", feat="Pick One", option=2))
    assert not ok and "option 2" in why
    a = next(a for a in offers if a.option == 1)
    assert Action.from_json(a.to_json()) == a
    melee = g.profile("hanso").melee
    g.push(a)
    assert "tough" in _traits(g, "hanso") and g.profile("hanso").melee == melee
    assert any("chooses tough" in e.data.get("text", "") for e in g.events if e.kind == "note")
    back = Game.from_save(g.to_json())
    assert "tough" in _traits(back, "hanso")


# ------------------------------------------------------------------ affects the user too
def test_hateful_curses_blinds_the_user_and_its_target():
    """Hateful Curses (Active, Target 6"): "This model and Target Enemy model gain a Blind
    Marker" -- affects ``self_and_target``."""
    g = game("Hateful Curses", places={"ishi": (10, 4)})
    g.push(Action("feat", "hanso", feat="Hateful Curses", target="ishi"))
    assert "blind" in g.state.models["hanso"].conditions and "blind" in g.state.models["ishi"].conditions
    assert "blind" not in g.state.models["spear1"].conditions


# ------------------------------------------------------------------ Aura at read time
def test_an_aura_reaches_the_models_inside_while_they_are_inside():
    """p.47: "Аура (X): ... действует на все модели в пределах X" до конца хода" (an Aura lasts
    until the End phase). Imperial Decree (Aura 4", models and the user): the user and every
    model inside are Aloof; a model outside is not; a model that walks in becomes Aloof, one
    that walks out no longer is."""
    g = game("Imperial Decree", places={"ishi": (10, 30), "masunagi": (13, 10)})
    g.push(Action("ki_feat", "hanso", feat="Imperial Decree"))
    assert "aloof" in _traits(g, "hanso") and "aloof" in _traits(g, "spear1") and "aloof" in _traits(g, "masunagi")
    assert "aloof" not in _traits(g, "ishi")
    set_model(g, "spear1", position=[10, 25])
    set_model(g, "ishi", position=[10, 14])
    assert "aloof" not in _traits(g, "spear1") and "aloof" in _traits(g, "ishi")
    back = Game.from_save(g.to_json())
    assert "aloof" in _traits(back, "ishi") and "aloof" not in _traits(back, "spear1")


# ------------------------------------------------------------------ opposed only at an enemy
def test_icy_veins_tests_only_against_an_enemy():
    """Icy Veins (its card: an Opposed Ki test only against an enemy target) --
    ``opposed: enemy``: at the friendly Spearman no test is taken and it is Slow; at Ishi the
    opposed Ki test is taken."""
    g = game("Icy Veins", places={"ishi": (10, 4)})
    evs = g.push(Action("feat", "hanso", feat="Icy Veins", target="spear1"))
    assert not [e for e in evs if e.kind == "test"] and "slow" in _traits(g, "spear1")
    g = game("Icy Veins", places={"ishi": (10, 4)})
    evs = g.push(Action("feat", "hanso", feat="Icy Veins", target="ishi"))
    test = next(e for e in evs if e.kind == "test")
    assert "opposed" in test.data["text"]
    assert ("slow" in _traits(g, "ishi")) == test.data["passed"]


# ------------------------------------------------------------------ range bands, re-rolls
def test_far_shot_changes_the_range_bands_until_the_end_phase():
    """Far Shot (its card: the ranged weapon's bands become 6/12/18 until the End
    phase) -- the Spearman's Arquebus (6/12/18 printed) as a check of the op on another
    card: Ishi's Bow would; here the Spearman uses it and its bands read 6/12/18."""
    g = game("Far Shot")
    set_model(g, "spear1", ki=4)
    g.push(Action("feat", "spear1", feat="Far Shot"))
    arq = next(w for w in g.profile("spear1").weapons if w.kind == "ranged")
    assert arq.range == {"short": (0.0, 6.0), "medium": (6.0, 12.0), "long": (12.0, 18.0)}


def test_range_bands_replace_and_add():
    """The effect reading itself (sim.rules.effects): ``bands`` replaces the upper values,
    ``add`` grows each band (p.10: a band's value is its upper distance)."""
    from sim.rules.effects import effect_problem, effective_profile

    ishi = get_profile("ishi")
    got = effective_profile(ishi, [{"source": "t", "until": "game", "range_bands": {"bands": [6, 12, 18]}}])
    assert next(w for w in got.weapons if w.kind == "ranged").range == {
        "short": (0.0, 6.0), "medium": (6.0, 12.0), "long": (12.0, 18.0)}
    got = effective_profile(ishi, [{"source": "t", "until": "game", "range_bands": {"add": 2}}])
    assert next(w for w in got.weapons if w.kind == "ranged").range == {
        "short": (0.0, 6.0), "medium": (6.0, 10.0), "long": (10.0, 14.0)}
    assert effect_problem({"source": "t", "until": "game", "range_bands": {"bands": "far"}})


def test_reroll_is_prowess_and_only_for_tests_the_engine_rerolls():
    """p.56: "Мастерство (Prowess) [Ключевое слово](X): во время теста [Ключевое слово]
    модель может перебросить до X своих кубиков." A ``reroll`` of Ranged dice grants
    Prowess [Ranged] (1); a re-roll of Move dice is not applied (no Move test exists; round 6
    F4 applies Ki, Fear, Challenge and Size re-rolls) and stays manual."""
    g = game("Steady Hand", "Calm Mind")
    g.push(Action("feat", "hanso", feat="Steady Hand"))
    assert any(t.text == "Prowess [Ranged] (1)" for t in g.profile("hanso").traits)
    assert fe.effect_status("Steady Hand")[0] and not fe.effect_status("Calm Mind")[0]


# ------------------------------------------------------------------ tokens
def test_curse_of_doom_places_tokens_kept_in_saves():
    """Curse of Doom: "Place 4 Doom Tokens on Target model." The tokens are the target's
    state (saved, loaded); what they do is logged as a manual step."""
    g = game("Curse of Doom", places={"ishi": (10, 4)})
    evs = g.push(Action("ki_feat", "hanso", feat="Curse of Doom", target="ishi"))
    assert g.tokens("ishi", "Doom") == 4
    assert any(e.kind == "manual_step" and "Doom" in e.data["text"] for e in evs)
    assert Game.from_save(g.to_json()).tokens("ishi", "doom") == 4


# ------------------------------------------------------------------ moments
def test_a_wounded_trigger_waits_for_the_wounded_models_player():
    """Lick Wounds (Instant, when the model is wounded): Hanso's Test Wound wounds Masunagi;
    the game waits for player 2 (use it: +2 Ki, or decline) before anything else."""
    g = game("Test Wound", enemy_feats=("Lick Wounds",), places={"masunagi": (10, 4)})
    g.push(Action("ki_feat", "hanso", feat="Test Wound", target="masunagi", x=1))
    assert g.to_move() == 2
    assert [a.kind for a in g.legal_actions()] == ["feat", "decline_feat"]
    ki = g.state.models["masunagi"].ki
    g.push(next(a for a in g.legal_actions() if a.kind == "feat"))
    assert g.state.models["masunagi"].ki == ki - 1 + 2
    assert g.to_move() == g.state.active


def test_an_enemy_contact_trigger():
    """Bristle (Instant, when an enemy ends a move in contact): Hanso charges Masunagi; the
    game waits for player 2 before the exchange's allocations... once the action is
    resolved (the mark is answered when the engine stops)."""
    g = game(enemy_feats=("Bristle",), places={"masunagi": (10, 13), "spear1": (20, 20)})
    g.push(Action("charge", "hanso", target="masunagi"))
    while g.state.exchange is not None:
        g.push(next(a for a in g.legal_actions() if a.kind == "allocate"))
    assert g.to_move() == 2 and {a.kind for a in g.legal_actions()} == {"feat", "decline_feat"}
    g.push(next(a for a in g.legal_actions() if a.kind == "feat"))
    armour = next(t.value for t in g.profile("masunagi").traits if t.keyword == "armour")
    assert armour == 3  # Armour (2) on the card, +1


def test_a_start_of_turn_feat_is_offered_before_the_first_activation():
    """Dawn Prayer (Instant, at the start of the turn): when turn 2's Main phase opens, the
    game waits for Hanso's player (use it or decline) before any activation."""
    g = game("Dawn Prayer")
    set_model(g, "hanso", damage=2)
    for _ in range(200):
        if g.state.turn >= 2 or g.is_over():
            break
        acts = g.legal_actions()
        g.push(next((a for a in acts if a.kind == "pass"), next((a for a in acts if a.kind == "wait"), acts[0])))
    assert g.state.turn == 2, [str(e) for e in g.events[-20:]]
    assert {a.kind for a in g.legal_actions()} == {"feat", "decline_feat"}
    damage = g.state.models["hanso"].damage
    g.push(next(a for a in g.legal_actions() if a.kind == "feat"))
    assert g.state.models["hanso"].damage == damage - 1


# ------------------------------------------------------------------ round 2 ops of the drafted entries
def test_take_ki_moves_tokens_from_the_target_to_the_user():
    """Psychic Drain (its card: up to 3 Ki tokens move from the enemy target to the
    user) -- ``take_ki``: Ishi (2 Ki) loses both, the user gains them (within its Ki
    limit)."""
    g = game("Drain", places={"ishi": (10, 4)})
    set_model(g, "ishi", ki=2)
    g.push(Action("feat", "hanso", feat="Drain", target="ishi"))
    won = g.state.models["ishi"].ki == 0
    assert won or g.state.models["ishi"].ki == 2
    assert g.state.models["hanso"].ki == 6 - 1 + (2 if won else 0)


def test_a_contact_trigger_targets_the_enemy_that_made_contact():
    """Reputation (its card: an enemy that comes into BtB with the user in its activation
    is Stunned) -- the waiting feat is offered at Hanso, who
    charged; using it Stuns Hanso."""
    g = game(enemy_feats=("Reputation",), places={"masunagi": (10, 13), "spear1": (20, 20)})
    g.push(Action("charge", "hanso", target="masunagi"))
    while g.state.exchange is not None:
        g.push(next(a for a in g.legal_actions() if a.kind == "allocate"))
    use = next(a for a in g.legal_actions() if a.kind == "feat")
    assert use.target == "hanso"
    g.push(use)
    assert "stunned" in g.state.models["hanso"].conditions


def test_a_shot_feat_needs_a_ranged_weapon_and_the_model_s_activation():
    """A ``shot`` feat (Eagle Eye type) is offered to the active model with a ranged weapon
    (the Spearman's Arquebus), not to Hanso (no ranged weapon); its bands grow by 2"."""
    g = game("Long Aim")
    offers = {a.model for a in g.legal_actions() if a.feat == "Long Aim"}
    assert offers == {"spear1"}
    g.push(Action("feat", "spear1", feat="Long Aim"))
    arq = next(w for w in g.profile("spear1").weapons if w.kind == "ranged")
    assert arq.range["long"] == (14.0, 20.0)


def test_a_strength_change_of_melee_weapons_only():
    """Mutation's "+1 Melee Weapon Strength": a ``stat`` op with ``weapon: melee`` leaves the
    Spearman's Arquebus as printed."""
    g = game("Heavy Arm")
    before = {w.name: w.strength for w in g.profile("spear1").weapons}
    g.push(Action("feat", "spear1", feat="Heavy Arm"))
    after = {w.name: w.strength for w in g.profile("spear1").weapons}
    assert after["Tachi"] == before["Tachi"] + 1 and after["Arquebus"] == before["Arquebus"]


def test_a_scenario_action_trigger_gives_the_counter_back():
    """Agility (curated: "after it makes a scenario action it gains an activation counter"):
    Hanso prays at the centre shrine (Shrines, p.63); the game waits for his player, who
    uses it and gets the counter back."""
    from sim.geometry.attributes import base_radius
    from sim.rules.scenario import load_scenario

    centre = load_scenario("shrines").objective("centre").position
    g = Game(game("Agility", places={"hanso": (2, 30), "spear1": (4, 30)}).table, seed=1, scenario="shrines")
    set_active(g, 1)
    set_model(g, "hanso", position=[centre[0], centre[1] - 2 * base_radius(30)], ki=4)
    counters = g.state.models["hanso"].counters
    g.push(Action("scenario", "hanso", objective="centre", special="prayer"))
    assert [a.kind for a in g.legal_actions()] == ["feat", "decline_feat"]
    g.push(next(a for a in g.legal_actions() if a.kind == "feat"))
    assert g.state.models["hanso"].counters == counters


def test_a_marker_value_may_be_the_paid_x():
    """Five Venom Seal: "the new Poisoned marker's value is the chosen X (max 3)" -- a
    ``condition`` op's ``value: X``: at X = 3 Ishi gains a Poison marker of value 3."""
    g = game("Venom Seal", places={"ishi": (10, 4)})
    g.push(Action("ki_feat", "hanso", feat="Venom Seal", target="ishi", x=3))
    assert g.state.models["ishi"].markers.get("poison") == [3]
