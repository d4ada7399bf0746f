"""Ki feats as data, round 6 (issue #13, helper F5): feats that change a model's card, move
condition markers between models or change activation counters table-wide, through the
Game's public API.

The fixture entries copy the facts of the catalogue cards (Shapeshift: cost 1, Active,
Special; Whipping Boy: cost 1, Active, Target [LoS]; Curse of Retribution: cost 2, Simple,
Target 6", Opposed; Time Reversal and Time Skip: cost 3, Complex, Special, no BtB, no
movement, once per game) and say their effect in the project's vocabulary
(data/feats/curated/c10.yaml holds the same entries). p.43: "Состояния" are markers on the
model; p.24: a model with no activation counter is Exhausted and cannot activate.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from models.bsdata.traittext import parse_trait
from models.profiles import add_profile_source, get_profile
from sim.geometry import Size
from sim.rules.game import Action, Game
from sim.table import parse_table
from tests.conftest import feat_data, set_active, set_model

FIXTURE = """
format: bushido-feat-effects/1
feats:
  Shapeshift:
    {cost: 1, timing: active, area: special, when: action, affects: self,
     effects: [{op: form, forms: [Human Form, Fox Form]}], summary: the model becomes its other form}
  Whipping Boy:
    {cost: 1, timing: active, area: target, when: action, affects: target,
     effects: [{op: transfer, names: [berserk, bleed, blind, controlled, death_sentence, diseased, frightened,
                                      immobilised, impetuous, on_fire, poisoned, spirit_block, stunned],
                n: all, to: user, wound_each: true}],
     summary: "the target's markers move onto the user, a wound per marker"}
  Curse of Retribution:
    {cost: 2, timing: simple, area: target, range: 6, opposed: true, when: action, affects: target,
     effects: [{op: transfer, names: [berserk, bleed, blind, on_fire, impetuous, poisoned, stunned], n: all,
                to: affected, from_friends: 3}],
     summary: markers of friends within 3 inches move onto the target}
  Warding Shomyo:
    {cost: 3, timing: complex, area: aura, range: 6, limits: [no_btb, no_move], when: action, affects: enemies,
     effects: [{op: no_specials, own: true}],
     effects_self: [{op: grant, traits: ["Disturb Flow (1/6\\")"], until: end_phase}],
     summary: enemies in the aura may use no specials}
  Water Spider:
    {cost: 1, timing: simple, area: aura, when: action, affects: enemies, target_keywords: [Poisoned],
     effects: [{op: no_specials, own: true}], summary: Poisoned enemies in the aura may use no specials}
  Rivalry:
    {cost: 2, timing: active, area: target, range: 6, limits: [once_per_turn], when: action, affects: target_friend,
     target_keywords: [Non-Ronin], target_rice: equal,
     effects: [{op: choice, labels: [melee, ranged], options: [[{op: stat, changes: {melee: 1}, until: end_phase}],
                                                              [{op: stat, changes: {ranged: 1}, until: end_phase}]]}],
     summary: a friend of equal rice gets +1 Melee or Ranged}
  Citrus Fruit Ration:
    {cost: 2, timing: simple, area: target, range: 6, when: action, affects: target_friend, target_self: true,
     target_keywords: [Kaizoku], effects: [{op: remove_condition, name: stunned, n: all},
                                           {op: remove_condition, name: poisoned, n: all}],
     summary: the user or a friendly Kaizoku is cleansed}
  Strip Soul:
    {cost: X+1, timing: simple, area: target, range: 8, opposed: true, limits: [no_btb], when: action,
     affects: target_enemy, x_target_ki: true,
     effects: [{op: condition, name: spirit_block}, {op: grant, traits: [Insignificant], until: end_phase}],
     summary: Spirit Block and Insignificant; X is the target's Ki}
  Inflated Reputation:
    {cost: 1, timing: instant, area: personal, limits: [no_btb], when: any, affects: self, max_damage: 3,
     effects: [{op: grant, traits: ["Fear (6)"], until: activation}], summary: Fear (6) unless badly hurt}
  Slice:
    {cost: 2, timing: active, area: personal, limits: [once_per_turn], when: action, affects: self,
     effects: [{op: grant_weapon, traits: ["Bleed (1/3)"], weapon: melee, name: Kama Edge, until: activation}],
     summary: the Kama Edge gains Bleed (1/3)}
  Strangulation:
    {cost: 4, timing: active, area: personal, when: action, affects: self,
     effects: [{op: grant_weapon, traits: [Critical Attack (0), Powerful Attack (0)], weapon: melee,
                name: Garrotte}], summary: the Garrotte gains two special attacks}
  Chudan:
    {cost: 2, timing: active, area: personal, when: action, affects: self,
     effects: [{op: special_cost, set: 0, until: end_phase}], summary: its specials cost 0}
  Buki Manipulation:
    {cost: 2, timing: active, area: personal, when: exchange, affects: self,
     effects: [{op: choice, labels: [grapple, cheaper], options: [
        [{op: grant_weapon, traits: [Grapple Attack (1)], weapon: melee, name: Kama Edge, until: exchange}],
        [{op: special_cost, add: -1, kinds: [attack], weapon: melee, name: Kama Edge, until: exchange}]]}],
     summary: the named weapon gets a special or cheaper special attacks}
  Mamba's Stride:
    {cost: 1, timing: active, area: target, range: 6, limits: [once_per_turn], when: action, affects: target_friend,
     target_keywords: [Acolyte], effects: [{op: boost, stat: move, cost: 2, until: end_phase}],
     summary: a friendly Acolyte gets a Move boost (2)}
  Focusing Shomyo:
    {cost: 1, timing: complex, area: aura, range: 6, limits: [no_btb], when: action, affects: friends,
     target_keywords: [Sohei], effects: [{op: boost, stat: melee, cost: 2}], summary: Sohei get a Melee boost (2)}
  Pay Your Dues:
    {cost: 0, timing: simple, area: target, range: 6, limits: [once_per_turn], when: action, affects: target_enemy,
     target_keywords: [Non-Animal],
     effects: [{op: choice, by: opponent, labels: [death sentence, one ki],
                options: [[{op: condition, name: death_sentence}], [{op: take_ki, n: 1}]]}],
     summary: the enemy's player picks a Death Sentence marker or 1 Ki to the user}
  Fresh Fallen Snow:
    {cost: 3, timing: instant, area: target, range: 9, when: action, affects: target_enemy,
     effects: [{op: on_feat, once: true, ban: true, until: game, effects: [{op: condition, name: spirit_block}]}],
     summary: the target's next feat gives it Spirit Block and bars that feat}
  Spiritual Poison:
    {cost: 3, timing: active, area: aura, range: 6, limits: [no_btb, once_per_turn], when: action, affects: enemies,
     effects: [{op: on_feat, effects: [{op: condition, name: poisoned, value: 2}]}],
     summary: an enemy using a feat in the aura is Poisoned (2)}
  Prayer of Healing:
    {cost: 2, timing: active, area: aura, range: 6, limits: [no_btb], when: action, affects: self,
     effects: [{op: heal_rule, reach: 6, until: end_phase}], summary: its Heal reaches the aura}
  Prayer of Purification:
    {cost: 2, timing: active, area: personal, limits: [no_btb], when: action, affects: self,
     effects: [{op: heal_rule, markers: [berserk, blind, controlled, on_fire, poisoned, spirit_block, stunned]}],
     summary: its Heal may remove markers instead}
  Petrification:
    {cost: 1, timing: active, area: target, btb: true, when: action, affects: target_enemy, contact_all: true,
     effects: [{op: grant, traits: [Slow], until: activation}, {op: lose, traits: [Dodge, Parry], until: activation}],
     summary: enemies in contact get Slow and lose Dodge and Parry}
  Kannagara:
    {cost: 2, timing: simple, area: target, range: 9, opposed: true, limits: [no_btb, once_per_turn], when: action,
     affects: target_enemy,
     effects: [{op: on_action, not_kinds: [focus], unless: controlled, until: end_phase,
                effects: [{op: condition, name: controlled, n: 1}]}],
     summary: the enemy is Controlled after each action but Focus}
  Steal Vitality:
    {cost: 5, timing: simple, area: target, range: 6, opposed: true, limits: [no_btb, once_per_turn], when: action,
     affects: target_enemy, effects: [{op: counter, n: -1}],
     effects_self: [{op: chosen, side: friend, range: 6, effects: [{op: counter, n: 1}]}],
     summary: the target loses a counter and a chosen friend within 6 inches gains one}
  Vicious Imitation:
    {cost: 4, timing: active, area: personal, when: action, affects: self,
     effects: [{op: steal, traits: [Kata, Feint, Brutal, Parry, Dodge, Unblockable, Impenetrable Defence],
                until: activation}], summary: it takes those traits from the enemies it fights}
  Stiletto:
    {cost: 1, timing: active, area: personal, when: action, affects: self,
     effects: [{op: versus, keywords: [Surprised], weapon_traits: [Pierce (3)], weapon: melee, name: Shiv}],
     summary: the Shiv has Pierce (3) against a Surprised enemy}
  Genki:
    {cost: 1, timing: active, area: personal, when: action, affects: self,
     effects: [{op: grant, traits: ["Charging Bonus [Fearless]"], until: activation},
               {op: lose_type, types: [Ashigaru], until: activation}],
     summary: "Charging Bonus [Fearless], no Ashigaru"}
  Martyr:
    {cost: X+1, timing: simple, area: pulse, range_x: true, limits: [no_btb], when: action, affects: self,
     effects: [{op: transfer, names: [berserk, bleed, blind, controlled, death_sentence, diseased, frightened,
                                      immobilised, impetuous, on_fire, poisoned, spirit_block, stunned],
                n: X, to: user, pick: true}],
     summary: X markers named from a model in the pulse onto the user}
  Tears for the Dead:
    {cost: 3, timing: simple, area: target, range: 6, limits: [once_per_game], when: action, affects: target,
     effects: [{op: grant, traits: [Defensive], until: end_phase},
               {op: forbid, actions: [melee, shoot, charge], until: end_phase}],
     summary: "Defensive and no Melee, Ranged or Charge actions"}
  Yoko-Men:
    {cost: 1, timing: active, area: personal, when: action, affects: self,
     effects: [{op: steal, traits: [Dodge], gain: false, until: action}], summary: its opponents lose Dodge}
  Surge:
    {cost: 2, timing: active, area: special, when: action, affects: self,
     effects: [{op: next_shot, name: Bow, strength: 1, weapon_traits: [Slam Attack (0)]}],
     summary: its next Bow attack is stronger}
  Headshot:
    {cost: 2, timing: active, area: target, range: 6, when: action, affects: target,
     effects: [{op: special_against, specials: [Critical Attack (0)], keywords: [Kairai], weapon: ranged}],
     summary: Critical Attack (0) on ranged weapons against enemy Kairai}
  Irokane Protection:
    {cost: 2, timing: instant, area: target, range: 6, when: any, affects: target,
     effects: [{op: grant, traits: ["Fear (4)"], until: activation}, {op: protect, pierce: -2, until: activation}],
     summary: Fear (4) and attacks on it lose 2 Pierce}
  Elders Aegis:
    {cost: 2, timing: simple, area: target, range: 8, limits: [no_btb], when: action, affects: target,
     effects: [{op: grant_choice, trait: "Immune [{choice}]", until: end_phase,
                choices: [Berserk, Bleed, Blind, Controlled, Death Sentence, Diseased, Disguised, Frightened, Held,
                          Immobilised, Impetuous, On Fire, Poisoned, Prone, Spirit Block, Stunned]}],
     summary: immune to a chosen state}
  Coin:
    {cost: 3, timing: simple, area: aura, range: 6, limits: [no_btb], when: action, affects: models_and_self,
     effects: [{op: grant, traits: ["Bodyguard [Haiboku] (3\\")"]}],
     effects_self: [{op: group, side: friend, keywords: [Ronin], not_keywords: [Kami], effects: [{op: ki, n: 1}]}],
     summary: friendly non-Kami Ronin in the aura gain 1 Ki; models there gain Bodyguard}
  Alacrity:
    {cost: 0, timing: active, area: personal, limits: [no_btb, once_per_turn], when: action, affects: self,
     effects: [{op: contest, ki: 1, effects: [{op: counter, n: 1}]}], summary: a counter unless an enemy pays}
  Territorial:
    {cost: 1, timing: simple, area: target, range: 6, limits: [once_per_turn], when: action, affects: target_enemy,
     target_not_keywords: [Animal], target_on_objective: true,
     effects: [{op: choice, by: opponent, labels: [a counter, one ki],
                options: [[{op: counter, n: -1}], [{op: take_ki, n: 1}]]}],
     summary: an enemy on an objective loses a counter or gives 1 Ki}
  Prison Fight:
    {cost: 1, timing: active, area: personal, when: exchange, affects: self,
     effects: [{op: if_enemy, no_attack: true, traits: ['Brutal (2)'], until: exchange}],
     summary: Brutal (2) if the enemy puts no dice in attack}
  Hostility:
    {cost: 1, timing: active, area: personal, when: exchange, affects: self,
     effects: [{op: if_enemy, no_special: true, traits: [Strong], until: exchange}],
     summary: Strong if the enemy uses no special}
  Low Blow:
    {cost: 2, timing: active, area: personal, limits: [once_per_game], when: exchange, affects: self,
     effects: [{op: after_exchange, no_boost: true,
                effects: [{op: condition, name: stunned}, {op: condition, name: prone}]}],
     summary: an enemy without a melee boost ends the exchange Stunned and Prone}
  Outfox:
    {cost: 3, timing: instant, area: personal, limits: [once_per_turn], when: exchange, defending: true,
     affects: self, effects: [{op: grant, traits: [Tireless], until: activation}], summary: Tireless when attacked}
  Imperial Favour:
    {cost: 3, timing: simple, area: aura, range: 6, limits: [no_btb], when: action, affects: friends_and_self,
     target_keywords: [Imperial], effects: [{op: grant, traits: ["Bodyguard [Imperial] (3\\")"]}],
     effects_self: [{op: group, side: friend, others: true, not_keywords: [Kami, Soulless], effects: [{op: ki, n: 1}]}],
     summary: other non-Kami non-Soulless friends gain Ki; Imperial friends gain Bodyguard}
  Time Reversal:
    {cost: 3, timing: complex, area: special, limits: [no_btb, no_move, once_per_game], when: action,
     affects: models, table: true, effects: [{op: counter, n: 2, up_to: 2}],
     summary: every other model gains counters up to 2}
  Time Skip:
    {cost: 3, timing: complex, area: special, limits: [no_btb, no_move, once_per_game], when: action,
     affects: models_and_self, table: true, effects: [{op: counter, n: all}],
     summary: every counter on the table is removed}
"""

YAML = """
format: bushido-table/1
name: feats-f5
table: {width: 36, depth: 36}
terrain: []
models:
  - {id: hero, player: 1, profile: HERO, position: [10, 10], facing: 90}
  - {id: pal, player: 1, profile: PAL, position: [12.5, 10], facing: 90}
  - {id: away, player: 1, profile: PAL, position: [20, 10], facing: 90}
  - {id: foe, player: 2, profile: FOE, position: [10, 15], facing: 270}
  - {id: far, player: 2, profile: FOE, position: [30, 32], facing: 270}
"""


@pytest.fixture(autouse=True)
def _fixture_file(tmp_path, monkeypatch):
    """The game reads this test's feat effects file instead of the repository's."""
    yield from feat_data(FIXTURE, tmp_path, monkeypatch)


def _forms(key: str):
    """Two cards of one model, "Vix<key> - Human Form" and "Vix<key> - Fox Form", as the
    catalogues print the Kitsune: same base and wounds, other statistics, traits, weapons,
    Size and Ki feats."""
    ishi = get_profile("ishi")
    human = replace(ishi, id=f"f5-vix-human-{key}", name=f"Vix{key} - Human Form", bs_id=f"test-f5-h-{key}",
                    feats=("Shapeshift", "Whipping Boy"), melee=3, move=4, ki=3, ki_limit=9, wounds=6)
    fox = replace(ishi, id=f"f5-vix-fox-{key}", name=f"Vix{key} - Fox Form", bs_id=f"test-f5-f-{key}",
                  feats=("Shapeshift",), melee=1, move=7, ki=2, ki_limit=8, wounds=6, size="tiny",
                  traits=(parse_trait("Agile"), parse_trait("Evasive"), parse_trait("Tiny")),
                  weapons=(replace(ishi.weapons[1], name="Bite"),))
    return human, fox


def game(hero: tuple[str, ...] = (), foe: tuple[str, ...] = (), seed: int = 1, hero_card=None,
         extra: tuple = (), pal_card=None, foe_card=None) -> Game:
    """Hero (player 1, active, 6 Ki), Pal 2.5" to its side and Away 10" off (player 1), Foe
    5" in front and Far across the table (player 2); Ishi's card unless ``hero_card``."""
    key = ("-".join(hero + ("x",) + foe)).lower().replace(" ", "") + f"-{seed}"
    ishi = get_profile("ishi")
    h = hero_card or replace(ishi, id=f"f5-hero-{key}", name="Hero", bs_id=f"test-f5-hero-{key}", feats=hero)
    p = pal_card or replace(ishi, id=f"f5-pal-{key}", name="Pal", bs_id=f"test-f5-pal-{key}", feats=())
    f = foe_card or replace(ishi, id=f"f5-foe-{key}", name="Foe", bs_id=f"test-f5-foe-{key}", feats=foe)
    add_profile_source({x.id: x for x in (h, p, f) + tuple(extra)})  # conftest removes them after
    g = Game(parse_table(YAML.replace("HERO", h.id).replace("PAL", p.id).replace("FOE", f.id), "<test>"),
             seed=seed, length=("fixed", 3))
    set_active(g, 1)
    set_model(g, "hero", ki=6)
    return g


# ---------------------------------------------------------------- Shapeshift (form)
def test_shapeshift_replaces_the_card_and_keeps_wounds_markers_ki_and_counters(tmp_path):
    """"Replace this model with its other form ... Transfer marked Wounds, State Markers ...
    and any Tokens": the fox card's statistics, traits, weapons, Size and feats; the same
    damage, markers, Ki (1 paid) and counters; the same place. Back again with the fox's own
    Shapeshift. Take-back, replay and a verified load keep it."""
    human, fox = _forms("a")
    g = game(hero_card=human, extra=(fox,))
    set_model(g, "hero", damage=2, conditions={"stunned": 1}, ki=6)
    pos = g.state.models["hero"].position
    acts = [a for a in g.legal_actions() if a.model == "hero" and a.feat == "Shapeshift"]
    assert acts == [Action("feat", "hero", feat="Shapeshift")]
    g.push(acts[0])
    hero = g.state.models["hero"]
    card = g.printed_profile("hero")
    assert card is not None and card.name == "Vixa - Fox Form"
    eff = g.profile("hero")
    assert eff is not None and eff.melee == 1 and eff.move == 7
    assert {w.name for w in eff.weapons} == {"Bite"}
    assert set(g.feats("hero")) == {"Shapeshift"}  # Whipping Boy was the human's feat
    assert g.table_now().model("hero").size == Size.TINY
    assert "evasive" in g.table_now().model("hero").traits
    assert hero.damage == 2 and hero.conditions.get("stunned") == 1 and hero.position == pos
    assert hero.ki == 5 and hero.ki_stat == 2 and hero.ki_limit == 8
    assert hero.counters == 2  # an Active feat: no counter spent, the activation goes on
    assert any("replaced by its other form" in line for line in g.log())
    assert g.replay().snapshot() == g.snapshot()
    path = tmp_path / "g.json"
    g.save(path)
    loaded = Game.load(path)
    assert loaded.printed_profile("hero").name == "Vixa - Fox Form"
    g.push(Action("feat", "hero", feat="Shapeshift"))  # the fox's own Shapeshift: back to human
    assert g.printed_profile("hero").name == "Vixa - Human Form"
    assert set(g.feats("hero")) == {"Shapeshift", "Whipping Boy"}
    assert g.state.models["hero"].ki == 4 and g.state.models["hero"].ki_limit == 9
    g.pop()
    g.pop()
    assert g.printed_profile("hero").name == "Vixa - Human Form" and g.state.models["hero"].ki == 6
    assert g.table_now().model("hero").size == Size.SMALL


def test_shapeshift_is_refused_without_an_other_form_card():
    """A card whose name names no form (or whose other form is not loaded) cannot change:
    the feat is not offered, and declared it is refused with the reason."""
    g = game(hero=("Shapeshift",))
    assert not [a for a in g.legal_actions() if a.feat == "Shapeshift"]
    ok, why = g.is_legal(Action("feat", "hero", feat="Shapeshift"))
    assert not ok and "other form" in why
    human, _fox = _forms("b")
    g2 = game(hero_card=human)  # the fox card is not loaded
    ok, why = g2.is_legal(Action("feat", "hero", feat="Shapeshift"))
    assert not ok and "other form" in why


# ---------------------------------------------------------------- Whipping Boy (transfer to the user)
def test_whipping_boy_takes_the_targets_markers_and_marks_a_wound_each():
    """"Transfer any Berserk, Bleeding, ... Stunned Markers from Target model to this model.
    This model marks a number of wound boxes equal to the number of State Markers gained":
    Pal's 2 Stunned, Bleed (2), Poison (1) and Frightened (TN 7) go onto Hero (values kept),
    Prone (not listed) stays; Hero marks 5 wounds (Ishi has 5: it dies)."""
    g = game(hero=("Whipping Boy",))
    set_model(g, "hero", ki=6)
    set_model(g, "pal", conditions={"stunned": 2, "frightened": 7, "prone": 1},
              markers={"bleed": [2], "poison": [1]})
    g.push(Action("feat", "hero", feat="Whipping Boy", target="pal"))
    pal, hero = g.state.models["pal"], g.state.models["hero"]
    assert set(pal.conditions) == {"prone"} and not any(pal.markers.values())
    assert hero.killed  # 5 markers gained, 5 wound boxes: Ishi's track is full
    g.pop()
    set_model(g, "pal", conditions={"stunned": 1}, markers={"bleed": [2]})
    g.push(Action("feat", "hero", feat="Whipping Boy", target="pal"))
    hero = g.state.models["hero"]
    assert hero.conditions.get("stunned") == 1 and hero.markers.get("bleed") == [2]
    assert hero.damage == 2 and hero.alive
    assert g.replay().snapshot() == g.snapshot()


def test_whipping_boy_marker_the_user_is_immune_to_is_not_gained_nor_wounds():
    """A marker the receiver is immune to (Immune [Poisoned], p.51) leaves the target and is
    not gained: no wound box for it."""
    ishi = get_profile("ishi")
    h = replace(ishi, id="f5-hero-immune", name="Hero", bs_id="test-f5-hero-immune", feats=("Whipping Boy",),
                traits=ishi.traits + (parse_trait("Immune [Poisoned]"),))
    g = game(hero_card=h)
    set_model(g, "pal", conditions={"stunned": 1}, markers={"poison": [2]})
    g.push(Action("feat", "hero", feat="Whipping Boy", target="pal"))
    hero, pal = g.state.models["hero"], g.state.models["pal"]
    assert not pal.markers.get("poison") and not hero.markers.get("poison")
    assert hero.conditions.get("stunned") == 1 and hero.damage == 1


# ---------------------------------------------------------------- Curse of Retribution (transfer to the target)
def test_curse_of_retribution_moves_friends_markers_onto_the_target():
    """"Remove all Berserk, Bleed, Blind, Fire, Impetuous, Poison or Stunned markers from
    Friendly models within 3" and place them on the Target model": Hero's own and Pal's (2.5"
    off) markers go onto Foe when the Opposed test is won; Away (10" off) keeps its own;
    Frightened is not listed. A lost test moves nothing. Both outcomes over a few seeds."""
    seen = set()
    for seed in range(1, 40):
        g = game(hero=("Curse of Retribution",), seed=seed)
        set_model(g, "hero", ki=6, conditions={"blind": 1})
        set_model(g, "pal", conditions={"stunned": 1, "frightened": 6}, markers={"fire": [2]})
        set_model(g, "away", conditions={"stunned": 1})
        g.push(Action("ki_feat", "hero", feat="Curse of Retribution", target="foe"))
        foe, pal = g.state.models["foe"], g.state.models["pal"]
        passed = foe.conditions.get("stunned") == 1
        seen.add(passed)
        assert g.state.models["away"].conditions.get("stunned") == 1
        assert pal.conditions.get("frightened") == 6
        if passed:
            assert foe.conditions.get("blind") == 1 and foe.markers.get("fire") == [2]
            assert "blind" not in g.state.models["hero"].conditions and "stunned" not in pal.conditions
            assert not pal.markers.get("fire")
        else:
            assert "blind" not in foe.conditions and pal.conditions.get("stunned") == 1
        if seen == {True, False}:
            break
    assert seen == {True, False}


# ---------------------------------------------------------------- Time Reversal / Time Skip (counters)
def test_time_reversal_tops_every_other_model_up_to_two_counters():
    """"All other models gain up to 2 Activation Counters to a maximum of 2": Pal (0) and Foe
    (1) get to 2, Far keeps its 2, Hero (the user) gains none; once per game."""
    g = game(hero=("Time Reversal",))
    set_model(g, "pal", counters=0)
    set_model(g, "foe", counters=1)
    g.push(Action("complex_ki_feat", "hero", feat="Time Reversal"))
    st = g.state.models
    assert (st["pal"].counters, st["foe"].counters, st["far"].counters, st["away"].counters) == (2, 2, 2, 2)
    assert st["hero"].counters == 0  # the Complex feat spent its two
    assert st["hero"].ki == 3


def test_time_skip_removes_every_counter_on_the_table():
    """"Remove all Activation Counters from the board": every model, both sides and the user,
    is Exhausted; nobody can activate, so the turn ends at once (End phase, p.21) and turn 2
    starts with fresh counters."""
    g = game(hero=("Time Skip",))
    set_model(g, "hero", counters=3)
    n = len(g.events)
    g.push(Action("complex_ki_feat", "hero", feat="Time Skip"))
    lost = {e.data["model"] for e in g.events[n:] if e.kind == "counter"}
    assert lost == {"hero", "pal", "away", "foe", "far"}
    kinds = [e.kind for e in g.events[n:]]
    phases = [(k, e.data.get("phase")) for k, e in zip(kinds, g.events[n:]) if k == "phase"]
    assert phases[0] == ("phase", "end")  # the End phase came right after the feat
    assert g.state.turn == 2 and g.state.phase == "main"
    assert all(m.counters == 2 for m in g.state.models.values())


# ---------------------------------------------------------------- Warding Shōmyō (no_specials own)
def _exchange(g: Game) -> None:
    """Foe (player 2, active) in base contact with Hero declares a Melee: an exchange opens."""
    set_model(g, "foe", position=[10, 11.19])
    set_active(g, 2)
    g.push(Action("melee", "foe", target="hero"))
    assert g.state.exchange is not None


def test_warding_shomyo_bars_every_special_of_enemies_inside_its_aura():
    """"while within the Aura Enemy models cannot use Special Attacks or Defences": Foe (in the
    Aura) may not declare its Dagger's Sidestep Defence in the exchange, nor a special with a
    shot; Hero (the user, a friend of itself) may; Hero gains Disturb Flow (1/6") until the End
    phase. A Foe out of the Aura (Far) is not barred."""
    g = game(hero=("Warding Shomyo",))
    g.push(Action("complex_ki_feat", "hero", feat="Warding Shomyo"))
    assert g.profile("hero").trait("disturb_flow") is not None
    assert g.own_specials_refusal("far") is None
    ok, why = g.is_legal(Action("shoot", "foe", target="hero", special="Sweep Attack"))
    assert not ok
    _exchange(g)
    ex = g.state.exchange
    first = ex["attacker"]
    assert first == "foe"
    ok, why = g.is_legal(Action("allocate", "foe", attack=0, defence=3, special="sidestep-defence", direction=90))
    assert not ok and "Warding Shomyo" in why and "no special" in why
    assert g.is_legal(Action("allocate", "foe", attack=1, defence=2))[0]
    g.push(Action("allocate", "foe", attack=1, defence=2))
    pool = g.exchange_pools()["hero"]
    assert any(g.is_legal(Action("allocate", "hero", attack=0, defence=pool, special="sidestep-defence",
                                 direction=d))[0] for d in (0, 90, 180, 270))


def test_water_spider_bars_only_poisoned_enemies_while_poisoned():
    """Dance of the Water Spider: "Poisoned Enemy models in the Aura cannot use Special
    Abilities": Foe without a Poison marker keeps its specials; with one it has none."""
    g = game(hero=("Water Spider",))
    g.push(Action("ki_feat", "hero", feat="Water Spider"))
    assert g.own_specials_refusal("foe") is None
    set_model(g, "foe", markers={"poison": [1]})
    why = g.own_specials_refusal("foe")
    assert why is not None and "Water Spider" in why
    _exchange(g)
    ok, why = g.is_legal(Action("allocate", "foe", attack=0, defence=3, special="sidestep-defence", direction=90))
    assert not ok and "Water Spider" in why


# ---------------------------------------------------------------- entry rules (target_rice equal, target_self ...)
def test_rivalry_reaches_only_a_friend_of_the_same_rice_cost():
    """Rivalry: "Target other Friendly Faction model with Rice Cost equal to this model": Pal
    (12 rice, as Hero) is offered with both options; a Pal of another rice cost is refused."""
    g = game(hero=("Rivalry",))
    offers = {(a.target, a.option) for a in g.legal_actions() if a.feat == "Rivalry"}
    assert ("pal", 0) in offers and ("pal", 1) in offers and ("hero", 0) not in offers
    g.push(Action("feat", "hero", feat="Rivalry", target="pal", option=1))
    assert g.profile("pal").ranged == get_profile("ishi").ranged + 1
    ishi = get_profile("ishi")
    cheap = replace(ishi, id="f5-pal-cheap", name="Cheap", bs_id="test-f5-cheap", rice=10, feats=())
    g2 = game(hero=("Rivalry",), seed=2, pal_card=cheap)
    ok, why = g2.is_legal(Action("feat", "hero", feat="Rivalry", target="pal", option=0))
    assert not ok and "same rice cost" in why


def test_citrus_fruit_ration_may_cleanse_the_user_itself_or_a_friendly_kaizoku():
    """"from this model or Target Kaizoku that you own": Hero (no Kaizoku) is offered itself and
    cleansed; Pal (no Kaizoku) is refused."""
    g = game(hero=("Citrus Fruit Ration",))
    set_model(g, "hero", ki=6, conditions={"stunned": 1}, markers={"poison": [2]})
    targets = {a.target for a in g.legal_actions() if a.feat == "Citrus Fruit Ration"}
    assert targets == {"hero"}
    ok, why = g.is_legal(Action("ki_feat", "hero", feat="Citrus Fruit Ration", target="pal"))
    assert not ok and "Kaizoku" in why
    g.push(Action("ki_feat", "hero", feat="Citrus Fruit Ration", target="hero"))
    hero = g.state.models["hero"]
    assert "stunned" not in hero.conditions and not hero.markers.get("poison") and hero.ki == 4


def test_strip_soul_x_is_the_targets_ki_statistic():
    """Strip Soul: "X is equal to the Ki Statistic of the Targeted Enemy model": offered at Foe
    with X = its Ki statistic (Ishi's 1: 2 Ki paid); another X is refused."""
    g = game(hero=("Strip Soul",))
    set_model(g, "foe", position=[10, 17])
    offers = [a for a in g.legal_actions() if a.feat == "Strip Soul"]
    assert offers and all(a.x == g.state.models[a.target].ki_stat == 1 for a in offers)
    ok, why = g.is_legal(Action("ki_feat", "hero", feat="Strip Soul", target="foe", x=2))
    assert not ok and "Ki statistic" in why
    g.push(Action("ki_feat", "hero", feat="Strip Soul", target="foe", x=1))
    assert g.state.models["hero"].ki == 4


def test_inflated_reputation_is_refused_with_more_than_three_marked_wounds():
    """"This Ki Feat cannot be used if this model has more than 3 Marked Wound Boxes"."""
    g = game(hero=("Inflated Reputation",))
    set_model(g, "hero", damage=4)
    ok, why = g.is_legal(Action("feat", "hero", feat="Inflated Reputation"))
    assert not ok and "more than 3 marked wound boxes" in why
    assert not [a for a in g.legal_actions() if a.feat == "Inflated Reputation"]
    set_model(g, "hero", damage=3)
    g.push(Action("feat", "hero", feat="Inflated Reputation"))
    assert g.profile("hero").trait("fear") is not None


# ---------------------------------------------------------------- weapons, special costs, boosts
def _blades(feats: tuple[str, ...], key: str):
    """Ishi's card with two melee weapons, Kama Point and Kama Edge, and a Garrotte."""
    from models.profiles import Weapon

    ishi = get_profile("ishi")
    weapons = (Weapon("Kama Point", "melee", 1, traits=("Pierce (1)",), special_attacks=("Combo Attack (0)",)),
               Weapon("Kama Edge", "melee", 1, special_attacks=("Sidestep Attack (1)",),
                      special_defences=("Sweep Defence (1)",)),
               Weapon("Garrotte", "melee", -1, special_defences=("Push Defence (1)",)))
    return replace(ishi, id=f"f5-blades-{key}", name="Blades", bs_id=f"test-f5-blades-{key}", feats=feats,
                   weapons=weapons)


def _weapon(g: Game, mid: str, name: str):
    return next(w for w in g.profile(mid).weapons if w.name == name)


def test_slice_and_strangulation_reach_only_the_named_weapon():
    """Slice: "this model's Kama Edge Melee Weapon gains Bleed (1/3)" until the end of the
    activation -- not the Kama Point; Strangulation: "This model's Garrotte Weapon gains
    Critical Attack (0) and Powerful Attack (0)" -- offered then as specials of that weapon."""
    g = game(hero_card=_blades(("Slice", "Strangulation"), "a"))
    g.push(Action("feat", "hero", feat="Slice"))
    assert "Bleed (1/3)" in _weapon(g, "hero", "Kama Edge").traits
    assert not any(t.startswith("Bleed") for t in _weapon(g, "hero", "Kama Point").traits)
    g.push(Action("feat", "hero", feat="Strangulation"))
    garrotte = _weapon(g, "hero", "Garrotte")
    assert set(garrotte.special_attacks) == {"Critical Attack (0)", "Powerful Attack (0)"}
    assert _weapon(g, "hero", "Kama Edge").special_attacks == ("Sidestep Attack (1)",)
    g.push(Action("walk", "hero", point=(8, 10)))  # the activation ends
    assert not any(t.startswith("Bleed") for t in _weapon(g, "hero", "Kama Edge").traits)
    assert "Critical Attack (0)" in _weapon(g, "hero", "Garrotte").special_attacks  # no end printed


def test_chudan_makes_every_special_cost_nothing_until_the_end_phase():
    """Chudan: "This model's Special Attacks and Defences are reduced to (0) cost until the End
    Phase"."""
    g = game(hero_card=_blades(("Chudan",), "b"))
    g.push(Action("feat", "hero", feat="Chudan"))
    edge = _weapon(g, "hero", "Kama Edge")
    assert edge.special_attacks == ("Sidestep Attack (0)",) and edge.special_defences == ("Sweep Defence (0)",)
    assert _weapon(g, "hero", "Garrotte").special_defences == ("Push Defence (0)",)
    assert g.printed_profile("hero").weapons[1].special_attacks == ("Sidestep Attack (1)",)


def test_buki_manipulation_in_an_exchange_cheapens_the_named_weapons_special_attacks():
    """Buki Manipulation (its weapon renamed here): one option in the exchange -- the weapon's
    special attacks cost 1 less (defences unchanged) until the exchange ends; the other option
    gives it Grapple Attack (1)."""
    g = game(hero_card=_blades(("Buki Manipulation",), "c"))
    set_model(g, "foe", position=[10, 11.19])
    assert not [a for a in g.legal_actions() if a.feat == "Buki Manipulation"]  # only in an exchange
    g.push(Action("melee", "hero", target="foe"))
    options = {a.option for a in g.legal_actions() if a.feat == "Buki Manipulation"}
    assert options == {0, 1}
    g.push(Action("feat", "hero", feat="Buki Manipulation", option=1))
    edge = _weapon(g, "hero", "Kama Edge")
    assert edge.special_attacks == ("Sidestep Attack (0)",) and edge.special_defences == ("Sweep Defence (1)",)
    assert _weapon(g, "hero", "Kama Point").special_attacks == ("Combo Attack (0)",)


def test_mambas_stride_gives_a_friendly_acolyte_a_move_boost():
    """Mamba's Stride: "Target Friendly Acolyte gains Move Boost 2 until the End Phase": Pal
    (an Acolyte) may then buy +1 Move for 2 Ki; Away (no Acolyte) is no target."""
    ishi = get_profile("ishi")
    acolyte = replace(ishi, id="f5-acolyte", name="Acolyte", bs_id="test-f5-acolyte", types=("acolyte",), feats=())
    g = game(hero=("Mamba's Stride",), pal_card=acolyte)
    assert {a.target for a in g.legal_actions() if a.feat == "Mamba's Stride"} == {"pal"}
    assert g.profile("pal").boost("move") is None
    g.push(Action("feat", "hero", feat="Mamba's Stride", target="pal"))
    assert g.profile("pal").boost("move") == 2
    set_model(g, "pal", ki=3)
    ok, why = g.is_legal(Action("walk", "pal", point=(12.5, 16), boost=1))
    assert ok, why


def test_focusing_shomyo_gives_sohei_in_the_aura_a_melee_boost():
    """Focusing Shōmyō: "Friendly Sohei models in the Aura gain Melee Boost (2)": read while
    inside the 6" Aura (Pal); a Sohei out of it (Away, 10" off) has none."""
    ishi = get_profile("ishi")
    sohei = replace(ishi, id="f5-sohei", name="Sohei", bs_id="test-f5-sohei", types=("sohei",), feats=(),
                    boosts=())
    g = game(hero=("Focusing Shomyo",), pal_card=sohei)
    g.push(Action("complex_ki_feat", "hero", feat="Focusing Shomyo"))
    assert g.profile("pal").boost("melee") == 2
    assert g.profile("away").boost("melee") is None
    assert g.profile("hero").boost("melee") is None


# ---------------------------------------------------------------- a choice by the opponent (Pay Your Dues)
def test_pay_your_dues_waits_for_the_targets_player_to_choose():
    """Pay Your Dues: "Target Enemy ... must choose to either gain a Death Sentence Marker or
    transfer 1 of its Ki Tokens to this model": after the feat the game waits for player 2
    (two options, no refusal); its pick applies; then play goes on as after Hero's action."""
    g = game(hero=("Pay Your Dues",))
    set_model(g, "foe", ki=2)
    set_model(g, "hero", ki=3)
    offers = [a for a in g.legal_actions() if a.feat == "Pay Your Dues"]
    assert offers and all(a.option is None for a in offers)  # the user picks nothing
    g.push(Action("ki_feat", "hero", feat="Pay Your Dues", target="foe"))
    assert g.to_move() == 2
    assert set(g.legal_actions()) == {Action("feat_later", "foe", feat="Pay Your Dues", option=0),
                                      Action("feat_later", "foe", feat="Pay Your Dues", option=1)}
    ok, why = g.is_legal(Action("decline_feat", "foe", feat="Pay Your Dues"))
    assert not ok and "must choose" in why
    ok, _ = g.is_legal(Action("walk", "far", point=(30, 30)))
    assert not ok
    g.push(Action("feat_later", "foe", feat="Pay Your Dues", option=1))
    assert g.state.models["foe"].ki == 1 and g.state.models["hero"].ki == 4
    assert "death_sentence" not in g.state.models["foe"].conditions
    assert g.state.active == 2 and not g.triggers_pending()
    assert g.replay().snapshot() == g.snapshot()
    g.pop()
    g.push(Action("feat_later", "foe", feat="Pay Your Dues", option=0))
    assert g.state.models["foe"].conditions.get("death_sentence") and g.state.models["foe"].ki == 2


def test_pay_your_dues_on_a_model_without_ki_gives_the_marker_at_once():
    """A model with no Ki token cannot hand one over (reading): the Death Sentence marker
    comes at once, no choice waits."""
    g = game(hero=("Pay Your Dues",))
    set_model(g, "foe", ki=0)
    g.push(Action("ki_feat", "hero", feat="Pay Your Dues", target="foe"))
    assert not g.triggers_pending()
    assert g.state.models["foe"].conditions.get("death_sentence")


# ---------------------------------------------------------------- reactions to feats used (on_feat)
def test_fresh_fallen_snow_marks_the_targets_next_feat_and_bars_it_until_the_next_turns_end():
    """Fresh Fallen Snow: "When a Target enemy model uses a Ki Feat, that model gains a Spirit
    Block Marker and may not use that Ki Feat again until the end of the following turn": Foe
    uses Inflated Reputation -> Spirit Block; that feat is refused in turns 1 and 2, allowed in
    turn 3; its next feat brings no second marker (the reaction is spent)."""
    g = game(hero=("Fresh Fallen Snow",), foe=("Inflated Reputation", "Chudan"))
    g.push(Action("feat", "hero", feat="Fresh Fallen Snow", target="foe"))
    assert any(k.startswith("feat_onfeat:") for k in g.state.models["foe"].conditions)
    set_active(g, 2)
    set_model(g, "foe", ki=6)
    g.push(Action("feat", "foe", feat="Inflated Reputation"))
    foe = g.state.models["foe"]
    assert foe.conditions.get("spirit_block") == 1
    assert not any(k.startswith("feat_onfeat:") for k in foe.conditions)
    ok, why = g.is_legal(Action("feat", "foe", feat="Inflated Reputation"))
    assert not ok and "until the end of turn 2" in why
    g.push(Action("feat", "foe", feat="Chudan"))  # another feat: no second marker
    assert g.state.models["foe"].conditions.get("spirit_block") == 1
    pos = g.position()
    pos["turn"] = 2
    g.set_position(pos)
    assert not g.is_legal(Action("feat", "foe", feat="Inflated Reputation"))[0]
    pos["turn"] = 3
    g.set_position(pos)
    assert g.is_legal(Action("feat", "foe", feat="Inflated Reputation"))[0]
    assert g.replay().snapshot() == g.snapshot()


def test_spiritual_poison_poisons_enemies_that_use_a_feat_inside_its_aura():
    """Spiritual Poison: "When an Enemy model uses a Ki Feat within the Aura, that model gains a
    Poisoned (2) Marker": Foe (5" off, inside the 6" Aura) is Poisoned (2) each time; Far (out
    of it) is not."""
    g = game(hero=("Spiritual Poison",), foe=("Inflated Reputation", "Chudan"))
    g.push(Action("feat", "hero", feat="Spiritual Poison"))
    set_active(g, 2)
    set_model(g, "foe", ki=6)
    set_model(g, "far", ki=6)
    g.push(Action("feat", "foe", feat="Inflated Reputation"))
    assert g.state.models["foe"].markers.get("poison") == [2]
    g.push(Action("feat", "foe", feat="Chudan"))
    assert g.state.models["foe"].markers.get("poison") == [2, 2]
    g.push(Action("feat", "far", feat="Chudan"))
    assert not g.state.models["far"].markers.get("poison")


# ---------------------------------------------------------------- Heal changed (heal_rule)
def _healer(feats: tuple[str, ...], key: str):
    ishi = get_profile("ishi")
    return replace(ishi, id=f"f5-healer-{key}", name="Healer", bs_id=f"test-f5-healer-{key}", feats=feats,
                   traits=ishi.traits + (parse_trait("Heal (2)"),))


def test_prayer_of_healing_heals_a_model_in_the_aura_without_moving():
    """Prayer of Healing: "This model may Target any model within the Aura with its Heal
    trait": before it, healing Pal (1.3" off) needs a Walk into contact; after it, Pal is
    healed where it stands and Hero does not move; Away (8.8" off, out of the 6" Aura) still
    needs the Walk."""
    g = game(hero_card=_healer(("Prayer of Healing",), "a"))
    set_model(g, "pal", damage=3)
    set_model(g, "away", damage=1)
    ok, why = g.is_legal(Action("heal", "hero", target="pal"))
    assert not ok and "contact" in why
    g.push(Action("feat", "hero", feat="Prayer of Healing"))
    assert Action("heal", "hero", target="pal") in g.legal_actions()
    assert not g.is_legal(Action("heal", "hero", target="away"))[0]
    before = g.state.models["hero"].position
    g.push(Action("heal", "hero", target="pal"))
    assert g.state.models["pal"].damage == 1 and g.state.models["hero"].position == before


def test_prayer_of_purification_lets_heal_remove_markers_instead_of_wounds():
    """Prayer of Purification: "instead of Healing Wounds it may instead remove an equal number
    of Berserk, Blind, Controlled, Fire, Poison, Spirit Block, or Stunned Markers": Heal (2)
    removes Pal's Stunned and Poison (2) markers and heals no wound; three markers, or a Prone
    marker, are refused; without the feat no marker may be named."""
    g = game(hero_card=_healer(("Prayer of Purification",), "b"))
    set_model(g, "pal", position=[11.19, 10], damage=1, conditions={"stunned": 2, "prone": 1},
              markers={"poison": [2]})
    ok, why = g.is_legal(Action("heal", "hero", target="pal", models=("stunned",)))
    assert not ok and "wounds only" in why
    g.push(Action("feat", "hero", feat="Prayer of Purification"))
    ok, why = g.is_legal(Action("heal", "hero", target="pal", models=("stunned", "stunned", "poisoned")))
    assert not ok and "at most 2" in why
    ok, why = g.is_legal(Action("heal", "hero", target="pal", models=("prone",)))
    assert not ok
    assert any(a.kind == "heal" and a.models for a in g.legal_actions())
    g.push(Action("heal", "hero", target="pal", models=("stunned", "poisoned")))
    pal = g.state.models["pal"]
    assert pal.conditions.get("stunned") == 1 and not pal.markers.get("poison") and pal.damage == 1
    assert pal.conditions.get("prone") == 1


# ---------------------------------------------------------------- every enemy in contact (contact_all)
def test_petrification_reaches_every_enemy_in_base_contact():
    """Petrification: "Enemy models in BtB with this model gain Slow and cannot benefit from
    Dodge or Parry Traits until the end of this activation": declared at Foe, it reaches Far
    (also touching Hero) too; Pal (a friend in contact) and enemies out of contact are not
    reached."""
    g = game(hero=("Petrification",))
    set_model(g, "foe", position=[10, 11.19])
    set_model(g, "far", position=[10, 8.81])
    set_model(g, "pal", position=[11.19, 10])
    g.push(Action("feat", "hero", feat="Petrification", target="foe"))
    for mid in ("foe", "far"):
        assert g.profile(mid).trait("slow") is not None
    assert g.profile("pal").trait("slow") is None and g.profile("hero").trait("slow") is None
    g.push(Action("walk", "hero", point=(10.5, 10)))
    assert g.profile("foe").trait("slow") is None  # until the end of the activation


# ---------------------------------------------------------------- reactions to actions declared (on_action)
def _kannagara(seed_from: int = 1) -> Game:
    """A game where Hero's Kannagara on Foe won its Opposed test; player 2 active."""
    for seed in range(seed_from, seed_from + 60):
        g = game(hero=("Kannagara",), seed=seed)
        g.push(Action("ki_feat", "hero", feat="Kannagara", target="foe"))
        if any(k.startswith("feat_onaction:") for k in g.state.models["foe"].conditions):
            set_active(g, 2)
            return g
    raise AssertionError("the opposed test never passed")


def test_kannagara_controls_the_target_after_each_action_but_focus():
    """Kannagara: "Until the End Phase, if Target Enemy model declares an action other than
    Focus it gains a Control Marker once the action is resolved, unless it has a Control
    Marker when the action is declared": a Walk brings the marker when it is resolved (not
    before); a Focus brings none."""
    g = _kannagara()
    n = len(g.events)
    g.push(Action("walk", "foe", point=(10, 17)))
    kinds = [e.kind for e in g.events[n:]]
    assert g.state.models["foe"].conditions.get("controlled") == 1
    assert kinds.index("move") < max(i for i, e in enumerate(g.events[n:]) if e.kind == "condition"
                                     and e.data.get("name") == "controlled")
    g2 = _kannagara()
    g2.push(Action("focus", "foe"))
    assert "controlled" not in g2.state.models["foe"].conditions


def test_kannagara_gives_no_marker_to_a_model_controlled_when_it_declares():
    """A Foe with a Control marker when it declares its Walk gains none from Kannagara; its own
    marker goes with the counter it spends (p.43)."""
    g = _kannagara()
    marks = dict(g.state.models["foe"].conditions)
    set_model(g, "foe", conditions=marks | {"controlled": 1})
    set_active(g, g.state.models["foe"].player)
    n = len(g.events)
    g.push(Action("walk", "foe", point=(10, 17)))
    assert "controlled" not in g.state.models["foe"].conditions
    assert not any("Kannagara: foe's action is resolved" in str(e.data.get("text")) for e in g.events[n:])


# ---------------------------------------------------------------- one more model chosen (chosen)
def test_steal_vitality_moves_a_counter_from_the_target_to_a_chosen_friend():
    """Steal Vitality: "Target Enemy model loses an Activation Counter. Choose a Friendly model
    within 6, that model gains an Activation Counter": offered naming Pal (fewest counters);
    Away (8.8" off) may not be named, nor none; a won Opposed test moves the counter, a lost
    one moves nothing."""
    seen = set()
    for seed in range(1, 60):
        g = game(hero=("Steal Vitality",), seed=seed)
        set_model(g, "hero", ki=6)
        set_model(g, "pal", counters=0)
        offers = [a for a in g.legal_actions() if a.feat == "Steal Vitality"]
        assert offers and all(a.models == ("pal",) for a in offers)
        ok, why = g.is_legal(Action("ki_feat", "hero", feat="Steal Vitality", target="foe", models=("away",)))
        assert not ok and "within 6" in why
        ok, why = g.is_legal(Action("ki_feat", "hero", feat="Steal Vitality", target="foe"))
        assert not ok and "models" in why
        g.push(Action("ki_feat", "hero", feat="Steal Vitality", target="foe", models=("pal",)))
        won = g.state.models["foe"].counters == 1
        seen.add(won)
        assert g.state.models["pal"].counters == (1 if won else 0)
        if seen == {True, False}:
            break
    assert seen == {True, False}


# ---------------------------------------------------------------- traits taken in an exchange (steal)
def test_vicious_imitation_takes_the_enemys_traits_while_they_fight():
    """Vicious Imitation: "In a Melee Exchange, the Enemy model (and its Melee Weapons) lose
    Kata, Feint, Brutal, Parry, Dodge, Unblockable and Impenetrable Defence. This model gains
    any Traits the Enemy model loses with the same values ... ends at the end of the current
    Activation": in Hero's exchange with Foe, Foe has no Feint (1), Parry (2) nor its Dagger's
    Brutal (1), Hero has them; out of the exchange nothing changes."""
    from models.profiles import Weapon

    ishi = get_profile("ishi")
    foe_card = replace(ishi, id="f5-brute", name="Brute", bs_id="test-f5-brute", feats=(),
                       traits=ishi.traits + (parse_trait("Feint (1)"), parse_trait("Parry (2)")),
                       weapons=(Weapon("Dagger", "melee", 0, traits=("Brutal (1)",)),))
    g2 = game(hero=("Vicious Imitation",), foe_card=foe_card)
    set_model(g2, "foe", position=[10, 11.19])
    g2.push(Action("feat", "hero", feat="Vicious Imitation"))
    assert g2.profile("foe").trait("feint") is not None  # no exchange yet
    g2.push(Action("melee", "hero", target="foe"))
    assert g2.state.exchange is not None
    hero, foe = g2.profile("hero"), g2.profile("foe")
    assert foe.trait("feint") is None and foe.trait("parry") is None
    assert not any("Brutal" in t for w in foe.weapons for t in w.traits)
    assert hero.trait("feint").value == 1 and hero.trait("parry").value == 2 and hero.trait("brutal").value == 1
    for mid in ("hero", "foe"):
        pool = g2.exchange_pools()[mid]
        if mid in g2.state.exchange["allocations"]:
            continue
        g2.push(Action("allocate", mid, attack=pool, defence=0) if mid == "hero"
                else Action("allocate", mid, attack=0, defence=pool))
    assert g2.state.exchange is None
    assert g2.profile("foe").trait("feint") is not None and g2.profile("hero").trait("feint") is None


# ---------------------------------------------------------------- changes against some enemies (versus)
def test_stiletto_gives_the_shiv_pierce_only_against_a_surprised_enemy():
    """Stiletto: "When this model is involved in a Melee Exchange with a Surprised Enemy model,
    this model's Shiv weapon gains Pierce (3)": Hero charges Foe from behind (out of its LoS:
    Surprised, p.36) -- its Shiv has Pierce (3) in that exchange; charging Foe face to face, it
    has none."""
    from models.profiles import Weapon

    ishi = get_profile("ishi")
    for facing, surprised in ((90, True), (270, False)):
        kibin = replace(ishi, id=f"f5-kibin-{facing}", name="Kibin", bs_id=f"test-f5-kibin-{facing}",
                        feats=("Stiletto",), weapons=(Weapon("Shiv", "melee", 0),))
        g = game(hero_card=kibin)
        set_model(g, "foe", facing=facing)
        g.push(Action("feat", "hero", feat="Stiletto"))
        assert not g.profile("hero").weapons[0].traits  # no exchange yet
        g.push(Action("charge", "hero", target="foe"))
        assert g.state.exchange is not None
        assert ("surprised" in g.state.models["foe"].conditions) == surprised
        shiv = g.profile("hero").weapons[0]
        assert (shiv.traits == ("Pierce (3)",)) == surprised, shiv


# ---------------------------------------------------------------- types lost, a Charging Bonus gained (Genki)
def test_genki_drops_the_ashigaru_type_and_its_charging_bonus_acts():
    """Genki: "This model gains Charging Bonus [Fearless] but loses the Ashigaru Type until the
    end of the current activation": Hero (Ishi, an Ashigaru) is no Ashigaru after it, and its
    Charge makes it Fearless (p.50) like a printed Charging Bonus; after the activation it is
    an Ashigaru again."""
    g = game(hero=("Genki",))
    assert "ashigaru" in g.profile("hero").types
    g.push(Action("feat", "hero", feat="Genki"))
    assert "ashigaru" not in g.profile("hero").types
    assert g.profile("hero").trait("fearless") is None
    g.push(Action("charge", "hero", target="foe"))
    assert g.profile("hero").trait("fearless") is not None


# ---------------------------------------------------------------- markers the player names (transfer pick)
def test_martyr_takes_the_x_markers_the_player_names_from_a_model_in_the_pulse():
    """Martyr: "Transfer X State Markers that are not Disguise, Held, Prone, or Reload Markers
    from a model in the Pulse to this model" (Pulse X"): with X = 2 Hero takes Pal's Stunned
    and Poison (2) (1.3" off, in the 2" Pulse); a Prone marker, three markers for X = 2, or
    Away (8.8" off) are refused; the offer names markers of the nearest model."""
    g = game(hero=("Martyr",))
    set_model(g, "hero", ki=6)
    set_model(g, "pal", conditions={"stunned": 1, "prone": 1}, markers={"poison": [2]})
    set_model(g, "away", conditions={"stunned": 1})
    offers = [a for a in g.legal_actions() if a.feat == "Martyr"]
    assert [(a.x, a.models) for a in offers] == [(2, ("pal:stunned", "pal:poisoned"))]
    bad = [("pal:prone", "pal:stunned"), ("pal:stunned", "pal:poisoned", "pal:stunned"),
           ("away:stunned", "away:stunned"), ("pal:stunned",)]
    for models in bad:
        assert not g.is_legal(Action("ki_feat", "hero", feat="Martyr", x=2, models=models))[0], models
    g.push(Action("ki_feat", "hero", feat="Martyr", x=2, models=("pal:stunned", "pal:poisoned")))
    hero, pal = g.state.models["hero"], g.state.models["pal"]
    assert hero.conditions.get("stunned") == 1 and hero.markers.get("poison") == [2] and hero.ki == 3
    assert set(pal.conditions) == {"prone"} and not pal.markers.get("poison")


# ---------------------------------------------------------------- actions forbidden (forbid)
def test_tears_for_the_dead_forbids_melee_ranged_and_charge_actions_only():
    """Tears for the Dead: "Target model gains Defensive and cannot declare Melee, Ranged, or
    Charge Actions until the End Phase": Foe may not Charge, Melee or Shoot (refused, not
    offered) but may Walk; Defensive until the End phase."""
    g = game(hero=("Tears for the Dead",))
    g.push(Action("ki_feat", "hero", feat="Tears for the Dead", target="foe"))
    assert g.profile("foe").trait("defensive") is not None
    set_active(g, 2)
    for a in (Action("charge", "foe", target="hero"), Action("shoot", "foe", target="hero")):
        ok, why = g.is_legal(a)
        assert not ok and "Tears for the Dead" in why, (a, why)
    kinds = {a.kind for a in g.legal_actions() if a.model == "foe"}
    assert not kinds & {"charge", "melee", "shoot"} and "walk" in kinds
    plain = game(seed=2)
    set_active(plain, 2)
    assert {a.kind for a in plain.legal_actions() if a.model == "foe"} & {"shoot", "charge"}  # without the feat


def test_yoko_men_strips_dodge_from_the_models_it_fights_without_gaining_it():
    """Yoko-Men: "Models involved in a Melee Exchange with this model lose the Dodge trait until
    the current action is resolved": in Hero's exchange Foe has no Dodge (2) and Hero gains
    none; once the action is resolved Foe has it again."""
    ishi = get_profile("ishi")
    dodger = replace(ishi, id="f5-dodger", name="Dodger", bs_id="test-f5-dodger", feats=(),
                     traits=ishi.traits + (parse_trait("Dodge (2)"),))
    g = game(hero=("Yoko-Men",), foe_card=dodger)
    set_model(g, "foe", position=[10, 11.19])
    g.push(Action("feat", "hero", feat="Yoko-Men"))
    g.push(Action("melee", "hero", target="foe"))
    assert g.profile("foe").trait("dodge") is None and g.profile("hero").trait("dodge") is None
    for mid in ("hero", "foe"):
        if g.state.exchange is not None and mid not in g.state.exchange["allocations"]:
            pool = g.exchange_pools()[mid]
            g.push(Action("allocate", mid, attack=0, defence=pool))
    assert g.state.exchange is None
    assert g.profile("foe").trait("dodge") is not None
    assert not any(k.startswith("feat_steal:") for k in g.state.models["hero"].conditions)


# ---------------------------------------------------------------- the next ranged attack (next_shot)
def test_surge_changes_the_next_attack_of_the_named_weapon_only():
    """Surge (the weapon renamed to Ishi's Bow): "This model's next Call Lightning Ranged Attack
    gains +1 Strength and Slam Attack (0)": the Bow has Strength 2 and Slam Attack (0) until
    Hero shoots with it; after that shot the Bow is as printed."""
    g = game(hero=("Surge",))
    set_model(g, "foe", position=[10, 16])
    bow = lambda: next(w for w in g.profile("hero").weapons if w.name == "Bow")  # noqa: E731
    g.push(Action("feat", "hero", feat="Surge"))
    assert bow().strength == 2 and "Slam Attack (0)" in bow().special_attacks
    assert next(w for w in g.profile("hero").weapons if w.name == "Dagger").strength == 0
    g.push(Action("shoot", "hero", target="foe"))
    assert bow().strength == 1 and not bow().special_attacks


# ---------------------------------------------------------------- a special only against some enemies
def test_headshot_gives_a_critical_attack_usable_only_against_enemy_kairai():
    """Headshot: "Target model's Ranged Weapons gain Critical Attack (0) against Enemy Kairai
    models": used on Pal, Pal's Bow has it; a Shoot declaring it at Foe (no Kairai) is refused
    and not offered; at a Kairai Foe it is legal."""
    ishi = get_profile("ishi")
    kairai = replace(ishi, id="f5-kairai", name="Kairai", bs_id="test-f5-kairai", types=("kairai",), feats=())
    for foe_card, ok_expected in ((None, False), (kairai, True)):
        g = game(hero=("Headshot",), foe_card=foe_card)
        set_model(g, "foe", position=[10, 16])
        g.push(Action("feat", "hero", feat="Headshot", target="pal"))
        bow = next(w for w in g.profile("pal").weapons if w.name == "Bow")
        assert "Critical Attack (0)" in bow.special_attacks
        ok, why = g.is_legal(Action("shoot", "pal", target="foe", special="Critical Attack (0)"))
        assert ok == ok_expected, why
        offered = any(a.kind == "shoot" and a.model == "pal" and a.special for a in g.legal_actions())
        assert offered == ok_expected


# ---------------------------------------------------------------- attacks on it lose Pierce (protect)
def test_irokane_protection_lowers_the_pierce_of_weapons_attacking_the_target():
    """Irokane Protection: "Target model gains Fear (4) and Weapons used in Attacks made against
    that model gain Pierce (-2) (to a minimum of 0)": Foe's Dagger (Pierce 3) has Pierce 1 in
    its exchange with Pal, its Bow (Pierce 1) Pierce 0 when shooting Pal; Foe's weapons are as
    printed against Hero."""
    from models.profiles import Weapon

    ishi = get_profile("ishi")
    piercer = replace(ishi, id="f5-piercer", name="Piercer", bs_id="test-f5-piercer", feats=(),
                      traits=ishi.traits + (parse_trait("Fearless"),),  # Fear (4) stops no one here
                      weapons=(replace(ishi.weapons[0], traits=("Pierce (1)",)),
                               Weapon("Dagger", "melee", 0, traits=("Pierce (3)",))))
    g = game(hero=("Irokane Protection",), foe_card=piercer)
    g.push(Action("feat", "hero", feat="Irokane Protection", target="pal"))
    assert g.profile("pal").trait("fear").value == 4
    bow = g.profile("foe").weapons[0]
    assert g.protected_weapon(bow, "pal").traits == ("Pierce (0)",)
    assert g.protected_weapon(bow, "hero").traits == ("Pierce (1)",)
    set_model(g, "foe", position=[12.5, 11.19])
    set_active(g, 2)
    g.push(Action("melee", "foe", target="pal"))
    assert g.state.exchange is not None
    assert g.profile("foe").weapons[1].traits == ("Pierce (1)",)


# ---------------------------------------------------------------- a trait made with the player's pick
def test_elders_aegis_makes_the_target_immune_to_the_state_the_player_picks():
    """Elders' Aegis: "Choose a State other than Reloading. Target model gains Immune [Chosen
    State] until the End Phase": the option indexes the 16 states (offered with one the target
    has); Immune [Stunned] keeps a Stunned marker off Pal; option 16 is refused."""
    g = game(hero=("Elders Aegis",))
    set_model(g, "pal", conditions={"stunned": 1})
    offers = [a for a in g.legal_actions() if a.feat == "Elders Aegis" and a.target == "pal"]
    assert [a.option for a in offers] == [15]
    assert not g.is_legal(Action("ki_feat", "hero", feat="Elders Aegis", target="pal", option=16))[0]
    g.push(Action("ki_feat", "hero", feat="Elders Aegis", target="pal", option=12))  # Poisoned
    assert str(g.profile("pal").trait("immune").qualifier).lower() == "poisoned"
    for mid in ("pal", "away"):
        g.gain_condition(mid, "poisoned")
    assert not g.state.models["pal"].markers.get("poison") and g.state.models["away"].markers.get("poison")


# ---------------------------------------------------------------- a second group of the area (group)
def test_coin_gives_ki_to_friendly_non_kami_ronin_and_bodyguard_to_every_model_in_the_aura():
    """Coin: "Friendly non-Kami Ronin models in the Aura when this Ki Feat is used gain 1 Ki
    Token. Models in the Aura gain Bodyguard [Haiboku]:(3")": Hero (a Ronin) and Pal (a Ronin)
    gain 1 Ki, Away (a Ronin Kami, moved into the Aura) and Foe (an enemy) none; every model in
    the Aura has the Bodyguard trait, Far (out of it) not."""
    ishi = get_profile("ishi")
    hero = replace(ishi, id="f5-haiboku", name="Haiboku", bs_id="test-f5-haiboku", faction="Ronin", feats=("Coin",))
    ronin = replace(ishi, id="f5-ronin", name="Ronin", bs_id="test-f5-ronin", faction="Ronin", feats=())
    kami = replace(ronin, id="f5-ronin-kami", name="Ronin Kami", bs_id="test-f5-ronin-kami", types=("kami",))
    foe = replace(ishi, id="f5-coin-foe", name="Foe", bs_id="test-f5-coin-foe", feats=())
    add_profile_source({x.id: x for x in (hero, ronin, kami, foe)})
    yaml = (YAML.replace("HERO", hero.id).replace("PAL", ronin.id).replace("FOE", foe.id)
            .replace("- {id: away, player: 1, profile: " + ronin.id, "- {id: away, player: 1, profile: " + kami.id))
    g = Game(parse_table(yaml, "<test>"), seed=1, length=("fixed", 3))
    set_active(g, 1)
    set_model(g, "hero", ki=3)
    set_model(g, "away", position=[14, 10])
    for mid in ("pal", "away", "foe"):
        set_model(g, mid, ki=0)
    g.push(Action("ki_feat", "hero", feat="Coin"))
    ki = {mid: g.state.models[mid].ki for mid in ("hero", "pal", "away", "foe")}
    assert ki == {"hero": 1, "pal": 1, "away": 0, "foe": 0}, ki
    for mid in ("hero", "pal", "away", "foe"):
        assert g.profile(mid).trait("bodyguard") is not None, mid
    assert g.profile("far").trait("bodyguard") is None


# ---------------------------------------------------------------- an enemy may cancel it (contest)
def test_alacrity_waits_for_the_opponent_who_may_cancel_it_by_paying_ki():
    """Alacrity: "This model gains an additional Activation Counter. An Enemy model may cancel
    this Ki Feat by spending 1 Ki Token, this model gains that Ki Token, and the Ki Feat has no
    other effect but is still considered to have been used this turn": player 2 lets it be
    (Hero gains a counter) or cancels it with Foe's Ki (Foe -1, Hero +1 Ki, no counter, still
    once per turn); with no enemy Ki the counter comes at once; Hero's activation goes on."""
    g = game(hero=("Alacrity",))
    set_model(g, "hero", ki=4)
    set_model(g, "foe", ki=2)
    set_model(g, "far", ki=0)
    g.push(Action("feat", "hero", feat="Alacrity"))
    assert g.to_move() == 2
    assert set(g.legal_actions()) == {Action("feat_later", "foe", feat="Alacrity", option=0),
                                      Action("feat_later", "foe", feat="Alacrity", option=1, target="foe")}
    assert not g.is_legal(Action("decline_feat", "foe", feat="Alacrity"))[0]
    g.push(Action("feat_later", "foe", feat="Alacrity", option=1, target="foe"))
    hero = g.state.models["hero"]
    assert hero.counters == 2 and hero.ki == 5 and g.state.models["foe"].ki == 1
    assert g.state.active == 1 and g.to_move() == 1
    assert not g.is_legal(Action("feat", "hero", feat="Alacrity"))[0]  # used this turn
    g.pop()
    g.push(Action("feat_later", "foe", feat="Alacrity", option=0))
    assert g.state.models["hero"].counters == 3 and g.state.models["hero"].ki == 4
    g2 = game(hero=("Alacrity",), seed=2)
    for mid in ("foe", "far"):
        set_model(g2, mid, ki=0)
    g2.push(Action("feat", "hero", feat="Alacrity"))
    assert not g2.triggers_pending() and g2.state.models["hero"].counters == 3


def test_territorial_reaches_only_an_enemy_on_a_scenario_objective():
    """Territorial: "Target Enemy that is not an Animal model that is in BtB with a Scenario
    Objective or in a Scenario Zone, must choose to either lose an Activation Counter or
    transfer 1 of Its Ki Tokens to this model": refused at Foe away from the shrines; at Foe
    touching one, player 2 picks (two options), here the counter."""
    key = "territorial"
    ishi = get_profile("ishi")
    h = replace(ishi, id=f"f5-hero-{key}", name="Hero", bs_id=f"test-f5-hero-{key}", feats=("Territorial",))
    p = replace(ishi, id=f"f5-pal-{key}", name="Pal", bs_id=f"test-f5-pal-{key}", feats=())
    f = replace(ishi, id=f"f5-foe-{key}", name="Foe", bs_id=f"test-f5-foe-{key}", feats=())
    add_profile_source({x.id: x for x in (h, p, f)})
    yaml = (YAML.replace("HERO", h.id).replace("PAL", p.id).replace("FOE", f.id)
            .replace("position: [20, 10]", "position: [3, 3]").replace("position: [10, 15]", "position: [33, 3]")
            .replace("position: [10, 10]", "position: [3, 30]").replace("position: [12.5, 10]", "position: [6, 30]"))
    g = Game(parse_table(yaml, "<test>"), seed=1, length=("fixed", 3), scenario="shrines")
    set_active(g, 1)
    set_model(g, "hero", ki=6)
    set_model(g, "foe", ki=2, position=[10, 15])
    ok, why = g.is_legal(Action("ki_feat", "hero", feat="Territorial", target="foe"))
    assert not ok and "objective" in why
    obj = g.scenario.objectives[1]
    r = g.table.model("foe").radius
    set_model(g, "foe", position=[obj.position[0], obj.position[1] + obj.radius + r + 0.005])
    set_model(g, "hero", position=[obj.position[0], obj.position[1] + obj.radius + 2 * r + 2.0])
    g.push(Action("ki_feat", "hero", feat="Territorial", target="foe"))
    assert {(a.option, a.model) for a in g.legal_actions()} == {(0, "foe"), (1, "foe")}
    g.push(Action("feat_later", "foe", feat="Territorial", option=0))
    assert g.state.models["foe"].counters == 1 and g.state.models["foe"].ki == 2


# ---------------------------------------------------------------- traits by the enemy's allocation (if_enemy)
def test_prison_fight_and_hostility_read_the_enemys_allocation():
    """Prison Fight: "If the Enemy model allocates no dice to attack in a Melee Exchange, this
    model gains Brutal (2) until the end of the Melee Exchange"; Hostility: "If the Enemy model
    uses no Special Abilities ... gains Strong": used before allocating, read once the enemy's
    allocation is made (the exchange's position is set here with Foe's allocation in)."""
    for foe_alloc, brutal, strong in (([0, 3, None, None], True, True), ([2, 1, "sidestep-defence", 90.0], False,
                                                                          False)):
        g = game(hero=("Prison Fight", "Hostility"))
        set_model(g, "foe", position=[10, 11.19])
        g.push(Action("melee", "hero", target="foe"))
        g.push(Action("feat", "hero", feat="Prison Fight"))
        g.push(Action("feat", "hero", feat="Hostility"))
        assert g.profile("hero").trait("brutal") is None  # no allocation yet
        pos = g.position()
        pos["exchange"]["allocations"]["foe"] = foe_alloc
        g.set_position(pos)
        assert (g.profile("hero").trait("brutal") is not None) == brutal
        assert (g.profile("hero").trait("strong") is not None) == strong


def test_low_blow_stuns_and_fells_an_enemy_that_buys_no_melee_boost():
    """Low Blow: "If the Enemy model in a Melee Exchange does not boost its Melee Pool, the Enemy
    model gains a Stunned Marker and a Prone Marker after the Melee Exchange is resolved": Foe
    allocates without a boost -> Stunned and Prone once the exchange is resolved; with a Melee
    boost -> none."""
    ishi = get_profile("ishi")
    booster = replace(ishi, id="f5-booster", name="Booster", bs_id="test-f5-booster", feats=(),
                      boosts=(("melee", 1),))
    for boost, hit in ((0, True), (1, False)):
        g = game(hero=("Low Blow",), seed=3, foe_card=booster)
        set_model(g, "foe", position=[10, 11.19], ki=4)
        g.push(Action("melee", "hero", target="foe"))
        g.push(Action("feat", "hero", feat="Low Blow"))
        g.push(Action("allocate", "hero", attack=0, defence=g.exchange_pools()["hero"]))
        pool = g.exchange_pools()["foe"]
        a = Action("allocate", "foe", attack=0, defence=pool + boost, boost=boost or None)
        assert g.is_legal(a)[0], g.is_legal(a)
        g.push(a)
        assert g.state.exchange is None
        foe = g.state.models["foe"]
        assert ("stunned" in foe.conditions and "prone" in foe.conditions) == hit, foe.conditions


def test_outfox_is_used_only_in_an_exchange_an_enemy_initiated():
    """Outfox: "Use this Ki Feat when an Enemy model initiates a Melee Exchange with this model":
    offered to Hero when Foe's Melee opens the exchange (Hero defends); refused in the exchange
    Hero's own Melee opened."""
    g = game(hero=("Outfox",))
    set_model(g, "foe", position=[10, 11.19])
    g.push(Action("melee", "hero", target="foe"))
    ok, why = g.is_legal(Action("feat", "hero", feat="Outfox"))
    assert not ok and "initiated" in why
    g2 = game(hero=("Outfox",), seed=2)
    set_model(g2, "foe", position=[10, 11.19])
    set_active(g2, 2)
    g2.push(Action("melee", "foe", target="hero"))
    assert g2.state.exchange["defender"] == "hero"
    g2.push(Action("allocate", "foe", attack=g2.exchange_pools()["foe"], defence=0))  # the attacker first
    assert g2.is_legal(Action("feat", "hero", feat="Outfox"))[0]
    g2.push(Action("feat", "hero", feat="Outfox"))
    assert g2.profile("hero").trait("tireless") is not None


def test_imperial_favour_gives_ki_to_other_friends_and_bodyguard_to_imperial_ones():
    """Imperial Favour: "Other Friendly non-Kami, non-Soulless models in the Aura when this Ki
    Feat is used gain 1 Ki Token. Friendly Imperial models in the Aura gain Bodyguard
    [Imperial] (3")": Pal and Away (Imperial, Away moved into the Aura) gain 1 Ki and the
    Bodyguard; Hero (the user) no Ki; a Soulless friend no Ki; Foe (an enemy) nothing."""
    ishi = get_profile("ishi")
    hero = replace(ishi, id="f5-prince", name="Prince", bs_id="test-f5-prince", types=("imperial",),
                   feats=("Imperial Favour",))
    pal = replace(ishi, id="f5-courtier", name="Courtier", bs_id="test-f5-courtier", types=("imperial",), feats=())
    for soulless in (False, True):
        card = replace(pal, id=f"f5-courtier-{int(soulless)}", bs_id=f"test-f5-courtier-{int(soulless)}",
                       traits=pal.traits + ((parse_trait("Soulless"),) if soulless else ()))
        g = game(hero_card=hero, pal_card=card, seed=1 + soulless)
        set_model(g, "hero", ki=3)
        set_model(g, "away", position=[14, 10])
        for mid in ("pal", "away", "foe"):
            set_model(g, mid, ki=0)
        g.push(Action("ki_feat", "hero", feat="Imperial Favour"))
        ki = {mid: g.state.models[mid].ki for mid in ("hero", "pal", "away", "foe")}
        gain = 0 if soulless else 1
        assert ki == {"hero": 0, "pal": gain, "away": gain, "foe": 0}, ki
        assert g.profile("pal").trait("bodyguard") is not None and g.profile("away").trait("bodyguard") is not None
        assert g.profile("foe").trait("bodyguard") is None and g.profile("far").trait("bodyguard") is None
