"""Ki feats as data, round 3 (issue #13, H17): keyword filters that need every keyword or
exclude some, ``max_affected: X``, condition markers with a duration, feat wounds and
Tough, and the new moments a feat waits for, through the Game's public API.

Rulebook p.46: "Все Умения имеют стоимость в жетонах Ки; эта стоимость должна быть
потрачена на применение эффектов Умения." The fixture entries copy the catalogue cards'
FACTS (cost, timing, area, range) and say the effect in the project's vocabulary.
"""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from models.profiles import Trait, add_profile_source, get_profile
from sim.rules.game import Action, Game
from sim.table import parse_table
from tests.conftest import feat_data, set_active, set_model

FIXTURE = """
format: bushido-feat-effects/1
feats:
  Samurai Rite:
    {cost: 1, timing: active, area: target, range: 30, when: action, affects: target,
     target_keywords: [Samurai, Unique], target_keywords_all: true, target_not_keywords: [Takashi],
     effects: [{op: ki, n: 1}], summary: a Unique Samurai that is not a Takashi gains 1 Ki}
  Assassin Ban:
    {cost: 1, timing: active, area: target, range: 30, when: action, affects: target,
     target_not_keywords: [Assassin], effects: [{op: ki, n: 1}], summary: a model without Assassin gains 1 Ki}
  Binding Roots:
    {cost: X+1, timing: simple, area: pulse, range: 30, when: action, affects: enemies, max_affected: X,
     effects: [{op: condition, name: immobilised}], summary: up to X enemies in the Pulse are Immobilised}
  Jab:
    {cost: 1, timing: active, area: target, range: 30, when: action, affects: target_enemy,
     effects: [{op: wound, n: 2}], summary: 2 wounds}
  Bloodletting:
    {cost: 1, timing: active, area: target, range: 30, when: action, affects: target_enemy,
     effects: [{op: wound, n: 2, ignore_tough: true}], summary: 2 wounds ignoring Tough}
  Daze:
    {cost: 1, timing: active, area: target, range: 30, when: action, affects: target_enemy,
     effects: [{op: condition, name: stunned, until: activation}], summary: Stunned until the activation ends}
  Curse Fire:
    {cost: 1, timing: active, area: target, range: 30, when: action, affects: target_enemy,
     effects: [{op: condition, name: fire, value: 2, until: end_phase}], summary: a Fire (2) marker until the End}
  Escape:
    {cost: 1, timing: active, area: personal, when: "trigger:killed_enemy", affects: self,
     effects: [{op: ki, n: 2}, {op: move, distance: Move, kind: walk}],
     summary: "after it kills an enemy model, a Walk (and 2 Ki, a test addition)"}
  Hold the Line!:
    {cost: 1, timing: instant, area: pulse, range: 4, limits: [no_btb, once_per_turn], when: "trigger:enemy_contact",
     watch: friends, watch_keywords: [Ashigaru], affects: self,
     effects: [{op: move, distance: 12, kind: to_target}],
     summary: "an enemy contacts a friendly Ashigaru in the Pulse: the user moves into contact with it"}
  Skewer:
    {cost: 2, timing: instant, area: target, range: 30, when: "trigger:dealt_wound", dealt_by: melee,
     affects: target_enemy, effects: [{op: condition, name: immobilised, until: end_phase}],
     summary: an enemy it wounds in melee may not move until the End phase}
  Spotter:
    {cost: 1, timing: active, area: personal, when: "trigger:attack_succeeded", dealt_by: ranged, affects: self,
     effects: [{op: ki, n: 1}], summary: 1 Ki after a ranged attack that hit}
  Touch of Ki:
    {cost: 1, timing: active, area: target, btb: true, when: action, affects: target,
     effects: [{op: ki, n: 1}], summary: a model in base contact gains 1 Ki}
  Rally the Line:
    {cost: 1, timing: active, area: special, when: action, affects: friends, table: true,
     target_keywords: [Ashigaru], effects: [{op: counter, n: 1}],
     summary: every friendly Ashigaru on the table gains an activation counter}
  Dash:
    {cost: 2, timing: active, area: personal, when: action, affects: self,
     effects: [{op: grant, traits: [Agile, Evasive], until: activation}, {op: move, distance: 2, kind: walk,
                                                                         at: end_activation}],
     summary: "Agile and Evasive for the activation, and a 2-inch move when it ends"}
  Slammer:
    {cost: 1, timing: active, area: personal, when: action, affects: self,
     effects: [{op: grant_weapon, traits: ["Slam Attack (0)"], weapon: melee, until: end_phase}],
     summary: its melee weapons gain the special attack Slam Attack (0)}
  Shadow:
    {cost: 2, timing: instant, area: pulse, range: 4, limits: [no_btb, once_per_turn],
     when: "trigger:enemy_moved_in_pulse", affects: self, effects: [{op: move, distance: Move, kind: to_target}],
     summary: "after an enemy move that began in the Pulse, the user walks up to its Move toward it"}
"""

YAML = """
format: bushido-table/1
name: feats4
table: {width: 36, depth: 36}
terrain: []
models:
  - {id: hanso, player: 1, profile: HANSO, position: [10, 10], facing: 0}
  - {id: spear1, player: 1, profile: SPEAR, position: [10, 14], facing: 0}
  - {id: masunagi, player: 2, profile: ito-masunagi, position: [30, 30], facing: 180}
  - {id: ishi, player: 2, profile: ISHI, position: [30, 10], facing: 180}
"""


@pytest.fixture(autouse=True)
def _fixture_file(tmp_path, monkeypatch):
    """The game reads this test's feat effects file instead of the repository's."""
    yield from feat_data(FIXTURE, tmp_path, monkeypatch)


def game(*feats: str, seed: int = 1, places: dict | None = None, enemy_feats: tuple = (),
         ishi_traits: tuple[str, ...] = ()) -> Game:
    """Hanso (Akira's card with ``feats``), a Spearman (Kokkio's card), Masunagi (with
    ``enemy_feats``) and Ishi (with ``ishi_traits`` added: ``"Tough (1)"``), player 2."""
    key = "-".join(sorted(feats) + sorted(enemy_feats) + sorted(ishi_traits)).lower().replace(" ", "")
    hanso = replace(get_profile("takashi-akira"), id=f"h17-hanso-{key}", name="Hanso", bs_id=f"test-h17-hanso-{key}",
                    feats=tuple(feats))
    spear = replace(get_profile("kokkio"), id=f"h17-spear-{key}", name="Spearman", bs_id=f"test-h17-spear-{key}",
                    feats=tuple(feats))
    masu = replace(get_profile("ito-masunagi"), id=f"h17-masu-{key}", name="Masunagi", bs_id=f"test-h17-masu-{key}",
                   feats=tuple(enemy_feats))
    ishi0 = get_profile("ishi")
    extra = tuple(Trait(t.split(" (")[0].lower(), int(t.split("(")[1].rstrip(")")) if "(" in t else None, None, t,
                        None) for t in ishi_traits)
    ishi = replace(ishi0, id=f"h17-ishi-{key}", name="Ishi", bs_id=f"test-h17-ishi-{key}",
                   traits=ishi0.traits + extra)
    add_profile_source({p.id: p for p in (hanso, spear, masu, ishi)})  # conftest removes them after
    y = (YAML.replace("HANSO", hanso.id).replace("SPEAR", spear.id).replace("ISHI", ishi.id)
         .replace("profile: ito-masunagi", f"profile: {masu.id}"))
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
    set_model(g, "ishi", ki=2)
    return g


def _ki(g: Game, mid: str) -> int:
    return g.state.models[mid].ki


# ------------------------------------------------------------------ keyword filters
def test_every_keyword_and_excluded_keywords():
    """Twisting Your Mind / Tokkiko's Choice kind of cards: a target that must be a friendly faction Samurai
    needs BOTH keywords (``target_keywords_all``), "not Soulless" excludes one
    (``target_not_keywords``): Masunagi (Unique Samurai) may be targeted; Ishi (Unique
    Ashigaru) may not, nor Hanso's friend with the excluded Takashi keyword; Assassin Ban
    refuses Ishi (the trait Assassin) and accepts Masunagi."""
    g = game("Samurai Rite", "Assassin Ban")
    targets = {a.target for a in g.legal_actions() if a.feat == "Samurai Rite" and a.model == "spear1"}
    assert targets == {"masunagi"}
    ok, why = g.is_legal(Action("feat", "spear1", feat="Samurai Rite", target="ishi"))
    assert not ok and "Samurai and Unique" in why
    ok, why = g.is_legal(Action("feat", "spear1", feat="Samurai Rite", target="hanso"))
    assert not ok and "Takashi" in why
    ok, why = g.is_legal(Action("feat", "hanso", feat="Assassin Ban", target="ishi"))
    assert not ok and "Assassin" in why
    assert g.is_legal(Action("feat", "hanso", feat="Assassin Ban", target="masunagi"))[0]
    ki = _ki(g, "masunagi")
    g.push(Action("feat", "spear1", feat="Samurai Rite", target="masunagi"))
    assert _ki(g, "masunagi") == ki + 1


# ------------------------------------------------------------------ max_affected X
def test_binding_roots_reaches_at_most_x_models():
    """Binding Roots (X+1, Simple, Pulse 3"): up to X enemies the player names in the
    Pulse are Immobilised -- ``max_affected: X``:
    with X = 1 naming two enemies is refused, one is Immobilised; with X = 2 both are."""
    g = game("Binding Roots")
    ok, why = g.is_legal(Action("ki_feat", "hanso", feat="Binding Roots", x=1, models=("ishi", "masunagi")))
    assert not ok and "at most 1" in why
    g.push(Action("ki_feat", "hanso", feat="Binding Roots", x=1, models=("ishi",)))
    assert "immobilised" in g.state.models["ishi"].conditions
    assert "immobilised" not in g.state.models["masunagi"].conditions
    g = game("Binding Roots")
    g.push(Action("ki_feat", "hanso", feat="Binding Roots", x=2, models=("ishi", "masunagi")))
    assert all("immobilised" in g.state.models[k].conditions for k in ("ishi", "masunagi"))


# ------------------------------------------------------------------ wounds and Tough
def test_feat_wounds_meet_tough_unless_the_card_ignores_it():
    """p.58 Tough (X): "когда эта модель получает урон от любого источника, уменьшите
    конечное количество ран на X" -- a feat's wounds too: Jab's 2 wounds on Ishi with
    Tough (1) mark 1; Bloodletting's ("ignoring Armour and Tough") mark 2."""
    g = game("Jab", "Bloodletting", ishi_traits=("Tough (1)",))
    w = g.state.models["ishi"].damage
    g.push(Action("feat", "hanso", feat="Jab", target="ishi"))
    assert g.state.models["ishi"].damage == w + 1
    g.push(Action("feat", "spear1", feat="Bloodletting", target="ishi"))
    assert g.state.models["ishi"].damage == w + 3


# ------------------------------------------------------------------ markers with a duration
def test_condition_markers_with_a_duration_go_when_it_ends():
    """A ``condition`` op with ``until``: the Stunned marker Daze gives lasts until the end
    of the activation (then it is removed, logged); a Fire (2) marker given until the End
    phase is still there after the activation and survives a save."""
    g = game("Daze", "Curse Fire")
    g.push(Action("feat", "hanso", feat="Daze", target="ishi"))
    g.push(Action("feat", "hanso", feat="Curse Fire", target="masunagi"))
    assert "stunned" in g.state.models["ishi"].conditions
    assert g.state.models["masunagi"].markers.get("fire") == [2]
    g.push(Action("walk", "hanso", point=(10.0, 8.0)))  # its activation ends
    assert "stunned" not in g.state.models["ishi"].conditions
    assert any("Daze end" in e.data.get("text", "") for e in g.events if e.kind == "note")
    assert g.state.models["masunagi"].markers.get("fire") == [2]
    back = Game.from_save(json.loads(json.dumps(g.to_json())))
    assert back.state.models["masunagi"].markers.get("fire") == [2]


# ------------------------------------------------------------------ round 3 triggers
def test_a_kill_by_the_user_opens_its_killed_enemy_feat():
    """Escape (its card: after an action in which the user kills an enemy, it may
    Walk) -- ``trigger:killed_enemy``: Hanso's Jab kills Ishi (4 wounds
    marked of 5); the game waits for Hanso's player (use or decline); a kill by the
    Spearman opens only the Spearman's."""
    g = game("Escape", "Jab")
    set_model(g, "ishi", damage=4)
    g.push(Action("feat", "hanso", feat="Jab", target="ishi"))
    assert not g.state.models["ishi"].alive
    assert {(a.kind, a.feat) for a in g.legal_actions()} == {("feat", "Escape"), ("decline_feat", "Escape")}
    assert g.is_legal(Action("feat", "hanso", feat="Escape", point=(10.0, 12.0)))[0]
    ki = _ki(g, "hanso")
    use = next(a for a in g.legal_actions() if a.kind == "feat")
    assert use.point is not None  # the Walk's destination is offered with it
    g.push(use)
    assert _ki(g, "hanso") == ki - 1 + 2 and g.state.models["hanso"].position == tuple(use.point)
    g = game("Escape", "Jab")
    set_model(g, "ishi", damage=4)
    g.push(Action("feat", "spear1", feat="Jab", target="ishi"))  # the Spearman's card has Escape too
    assert {(a.model, a.feat) for a in g.legal_actions()} == {("spear1", "Escape")}


def test_an_enemy_contacting_a_friend_in_the_pulse():
    """Hold the Line! (Instant, Pulse 4"): "when that model moves into BtB with another
    Friendly Ashigaru model in the Pulse, move this model into BtB with that Enemy model by
    the shortest route" -- ``watch: friends`` with ``watch_keywords`` and a ``to_target``
    move: Hanso charges Ishi (Ashigaru, 3" from Masunagi); after the exchange Masunagi's
    player may use it and Masunagi ends in base contact with Hanso. A charge at Masunagi
    itself (not a friend) opens nothing."""
    g = game(enemy_feats=("Hold the Line!",), places={"ishi": (10, 13), "masunagi": (13, 15), "spear1": (30, 30)})
    g.push(Action("charge", "hanso", target="ishi"))
    while g.state.exchange is not None:
        g.push(next(a for a in g.legal_actions() if a.kind == "allocate"))
    assert g.to_move() == 2
    assert {(a.kind, a.feat) for a in g.legal_actions()} == {("feat", "Hold the Line!"),
                                                             ("decline_feat", "Hold the Line!")}
    g.push(Action("feat", "masunagi", feat="Hold the Line!"))
    assert g.table_now().scene().distance("masunagi", "hanso") <= 0.011
    g = game(enemy_feats=("Hold the Line!",), places={"masunagi": (10, 13), "ishi": (13, 15), "spear1": (30, 30)})
    g.push(Action("charge", "hanso", target="masunagi"))
    while g.state.exchange is not None:
        g.push(next(a for a in g.legal_actions() if a.kind == "allocate"))
    assert not any(a.feat == "Hold the Line!" for a in g.legal_actions())


def test_a_melee_wound_dealt_opens_a_target_feat_at_the_wounded_enemy():
    """Skewer (its card: an enemy the user wounds in melee may only turn, not move,
    until the End phase) -- ``trigger:dealt_wound``
    with ``dealt_by: melee``: offered (only) at the model Hanso wounded, exactly when the
    exchange's damage marked wounds on it."""
    seen = set()
    for seed in range(1, 40):
        g = game("Skewer", seed=seed, places={"masunagi": (10, 13), "spear1": (30, 30)})
        g.push(Action("charge", "hanso", target="masunagi"))
        while g.state.exchange is not None:  # Hanso all in attack, Masunagi all in defence
            allocs = [a for a in g.legal_actions() if a.kind == "allocate"]
            g.push(max(allocs, key=lambda a: (a.attack or 0) if a.model == "hanso" else (a.defence or 0)))
        ex = next(e for e in reversed(g.events) if e.kind == "exchange")
        wounded = ex.data.get("wounds", {}).get("masunagi", 0) > 0
        offers = [a for a in g.legal_actions() if a.feat == "Skewer" and a.kind == "feat"]
        alive = g.state.models["masunagi"].alive
        assert bool(offers) == (wounded and alive), seed
        if offers:
            assert {a.target for a in offers} == {"masunagi"}
            ok, why = g.is_legal(Action("feat", "hanso", feat="Skewer", target="ishi"))
            assert not ok
            g.push(offers[0])
            assert "immobilised" in g.state.models["masunagi"].conditions
        seen.add(bool(offers))
        if seen == {True, False}:
            break
    assert seen == {True, False}


def test_a_ranged_hit_opens_an_attack_succeeded_feat():
    """``trigger:attack_succeeded`` with ``dealt_by: ranged``: after the Spearman's shot at
    Ishi hits (a damage roll made), its player may use Spotter; after a miss nothing waits."""
    seen = set()
    for seed in range(1, 40):
        g = game("Spotter", seed=seed, places={"ishi": (10, 22)})
        g.push(Action("shoot", "spear1", target="ishi"))
        shot = next(e for e in reversed(g.events) if e.kind == "shot")
        offered = any(a.feat == "Spotter" and a.model == "spear1" and a.kind == "feat" for a in g.legal_actions())
        hit = any(line.endswith("ranged attack resolved: hit") for line in shot.data["summary"])
        assert offered == hit, seed
        seen.add(offered)
        if seen == {True, False}:
            break
    assert seen == {True, False}


# ------------------------------------------------------------------ BtB feats and the contact tolerance
def test_a_btb_feat_is_offered_at_a_model_in_base_contact():
    """p.47 "Цель (BtB)": a BtB Target feat reaches a model in base contact. Two bases
    0.005" apart are in contact for the movement rules (CONTACT 0.01"): the feat is offered
    at it and takes effect (it used to be offered only within 1e-6"); 0.05" apart it is not."""
    r = 30 / 25.4 / 2  # 30 mm bases
    g = game("Touch of Ki", places={"spear1": (10 + 2 * r + 0.005, 10)})
    offers = [a for a in g.legal_actions() if a.feat == "Touch of Ki" and a.model == "hanso"]
    assert [a.target for a in offers] == ["spear1"]
    ki = _ki(g, "spear1")
    g.push(offers[0])
    assert _ki(g, "spear1") == ki + 1
    g = game("Touch of Ki", places={"spear1": (10 + 2 * r + 0.05, 10)})
    assert not [a for a in g.legal_actions() if a.feat == "Touch of Ki" and a.model == "hanso"]


# ------------------------------------------------------------------ a table-wide area
def test_a_table_wide_feat_reaches_every_friendly_keyword_model():
    """Stone Soldier (its card: friendly Shìbīng models gain a counter; area Special:
    the whole table) -- ``table: true`` with ``target_keywords``: the Spearman (Ashigaru)
    30" away gains a counter; the user (not Ashigaru) and Ishi (an enemy Ashigaru) do not."""
    g = game("Rally the Line", places={"spear1": (34, 34)})
    before = {k: g.state.models[k].counters for k in ("hanso", "spear1", "ishi")}
    g.push(Action("feat", "hanso", feat="Rally the Line"))
    after = {k: g.state.models[k].counters for k in ("hanso", "spear1", "ishi")}
    assert after == {"hanso": before["hanso"], "spear1": before["spear1"] + 1, "ishi": before["ishi"]}


# ------------------------------------------------------------------ a delayed step
def test_dash_moves_when_its_activation_ends():
    """Dash (its card: Agile and Evasive for the activation, and a 2" move when the
    activation ends) -- the Ki is paid when it is used;
    the move (``at: end_activation``) waits until Hanso's Walk is resolved, then its player
    picks the point (``feat_later``, no Ki paid again) or declines; a point beyond 2" is
    refused."""
    g = game("Dash", places={"spear1": (30, 2)})
    ki = _ki(g, "hanso")
    g.push(Action("feat", "hanso", feat="Dash"))
    assert _ki(g, "hanso") == ki - 2 and "agile" in {t.keyword for t in g.profile("hanso").traits}
    assert not any(a.kind == "feat_later" for a in g.legal_actions())
    g.push(Action("walk", "hanso", point=(10.0, 12.0)))
    acts = g.legal_actions()
    assert {a.kind for a in acts} == {"feat_later", "decline_feat"}
    assert "agile" not in {t.keyword for t in g.profile("hanso").traits}
    ok, why = g.is_legal(Action("feat_later", "hanso", feat="Dash", point=(10.0, 15.0)))
    assert not ok
    g.push(Action("feat_later", "hanso", feat="Dash", point=(10.0, 13.5)))
    assert g.state.models["hanso"].position == (10.0, 13.5) and _ki(g, "hanso") == ki - 2
    assert not any(a.kind in ("feat_later", "decline_feat") for a in g.legal_actions())
    back = Game.from_save(json.loads(json.dumps(g.to_json())))
    assert back.state.models["hanso"].position == (10.0, 13.5)


# ------------------------------------------------------------------ a granted special attack
def test_a_granted_special_attack_can_be_declared_in_the_exchange():
    """p.39: "Особые атаки ... указаны в профиле оружия" -- a feat that gives a weapon
    "Slam Attack (0)" (``grant_weapon`` of a special's name, Cannon/Force Manipulation) makes
    it a special of the weapon, not a weapon trait: Hanso may declare Slam Attack in the
    exchange after using it, not before; Sweep Attack (not granted) stays refused."""
    g = game("Slammer", places={"masunagi": (10, 13), "spear1": (30, 30)})
    g.push(Action("feat", "hanso", feat="Slammer"))
    katana = g.profile("hanso").weapons[0]
    assert "Slam Attack (0)" in katana.special_attacks and "Slam Attack (0)" not in katana.traits
    g.push(Action("charge", "hanso", target="masunagi"))
    while g.to_move() == 2:
        g.push(max((a for a in g.legal_actions() if a.kind == "allocate"), key=lambda a: a.defence or 0))
    pool = next(a for a in g.legal_actions() if a.kind == "allocate").attack or 0
    pool += next(a for a in g.legal_actions() if a.kind == "allocate").defence or 0
    assert g.is_legal(Action("allocate", "hanso", attack=pool, defence=0, special="Slam Attack"))[0]
    assert not g.is_legal(Action("allocate", "hanso", attack=pool, defence=0, special="Sweep Attack"))[0]
    g2 = game("Slammer", places={"masunagi": (10, 13), "spear1": (30, 30)})
    g2.push(Action("charge", "hanso", target="masunagi"))
    while g2.to_move() == 2:
        g2.push(max((a for a in g2.legal_actions() if a.kind == "allocate"), key=lambda a: a.defence or 0))
    assert not g2.is_legal(Action("allocate", "hanso", attack=pool, defence=0, special="Slam Attack"))[0]


def test_an_enemy_move_that_began_in_the_pulse():
    """Shadow (Instant, Pulse 4"; its card: after an enemy's move that began in the
    Pulse, the user may Walk its Move towards where that enemy stopped) --
    ``trigger:enemy_moved_in_pulse``: Hanso starts 3.8" from Masunagi and walks away;
    Masunagi's player may use Shadow and Masunagi moves its Move (5") toward Hanso. A Walk
    that began outside the Pulse opens nothing."""
    g = game(enemy_feats=("Shadow",), places={"masunagi": (15, 10), "spear1": (30, 30)})
    g.push(Action("walk", "hanso", point=(6.5, 10.0)))
    assert {(a.kind, a.feat) for a in g.legal_actions()} == {("feat", "Shadow"), ("decline_feat", "Shadow")}
    g.push(Action("feat", "masunagi", feat="Shadow"))
    x, y = g.state.models["masunagi"].position
    assert abs(x - 10.0) < 0.05 and abs(y - 10.0) < 0.05
    g = game(enemy_feats=("Shadow",), places={"masunagi": (20, 10), "spear1": (30, 30)})
    g.push(Action("walk", "hanso", point=(6.5, 10.0)))
    assert not any(a.feat == "Shadow" for a in g.legal_actions())


def test_the_greedy_bot_makes_a_delayed_step():
    """The greedy bot takes Dash's paid move when its activation ends (nothing left to pay)."""
    from sim.rules.bots.greedy import GreedyBot

    g = game("Dash", places={"spear1": (30, 2)})
    g.push(Action("feat", "hanso", feat="Dash"))
    g.push(Action("walk", "hanso", point=(10.0, 12.0)))
    assert GreedyBot(seed=1).choose(g).kind == "feat_later"
