"""Ki feats as data, part 2 (issue #13): feats that move models, feats used when an enemy
is killed nearby, feats that bar special attacks, and the entry's target restrictions
(keywords, rice cost, X at most N, a Size gate), through the Game's public API.

Rulebook p.46: "Все Умения имеют стоимость в жетонах Ки; эта стоимость должна быть
потрачена на применение эффектов Умения." The fixture entries copy the catalogue cards'
FACTS (cost, timing, area, range) and say the effect in the project's vocabulary.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from models.profiles import add_profile_source, get_profile
from sim.rules.game import Action, Game, GameError
from sim.table import parse_table
from tests.conftest import feat_data, set_active, set_model

FIXTURE = """
format: bushido-feat-effects/1
feats:
  Move It!:
    {cost: 4, timing: active, area: pulse, range: 8, when: action, affects: friends, target_keywords: [Ashigaru],
     max_affected: 3, effects: [{op: move, distance: Move, kind: walk}], summary: up to 3 Ashigaru walk}
  Consume Soul:
    {cost: 1, timing: instant, area: pulse, range: 3, limits: [once_per_turn], when: "trigger:killed_enemy_within",
     affects: self, effects: [{op: heal, n: target_ki}], summary: heals the killed model's Ki}
  Soul Thirst:
    {cost: 1, timing: instant, area: pulse, range: 6, when: "trigger:killed_enemy_within", affects: self,
     effects: [{op: heal, n: target_ki}, {op: ki, n: target_ki}], summary: heals and gains Ki}
  Dirty Fighting:
    {cost: 2, timing: active, area: personal, when: action, affects: self,
     effects: [{op: no_specials, until: activation}], summary: no specials against it}
  Wing Buffet:
    {cost: 2, timing: simple, area: pulse, range: 3, when: action, affects: models,
     test: {kind: challenge, stat: size, tn: 6, by: target},
     effects: [{op: move, distance: 2, kind: away}], summary: pushes the models that fail a Size test}
  Test Wound:
    {cost: X, timing: simple, area: target, range: 30, when: action, affects: target_enemy, max_x: 2,
     effects: [{op: wound, n: X}], summary: X wounds up to 2}
  Samurai Only:
    {cost: 1, timing: active, area: target, range: 12, when: action, affects: target_enemy,
     target_keywords: [Samurai], effects: [{op: condition, name: stunned}], summary: stuns a Samurai}
  Cheaper Only:
    {cost: 1, timing: active, area: target, range: 12, when: action, affects: target_enemy, target_rice: lower,
     effects: [{op: condition, name: stunned}], summary: stuns a cheaper model}
  Fists:
    {cost: X, timing: instant, area: personal, when: exchange, affects: self, max_x: 3,
     effects: [{op: stat, changes: {strength: X}, until: exchange}], summary: +X strength}
"""

YAML = """
format: bushido-table/1
name: feats2
table: {width: 36, depth: 36}
terrain: []
models:
  - {id: hanso, player: 1, profile: HANSO, position: [10, 10], facing: 0}
  - {id: spear1, player: 1, profile: SPEAR, position: [10, 14], facing: 0}
  - {id: spear2, player: 1, profile: SPEAR, position: [13, 10], facing: 0}
  - {id: kenta, player: 1, profile: takashi-kenta, position: [7, 10], facing: 0}
  - {id: masunagi, player: 2, profile: ito-masunagi, position: [30, 30], facing: 180}
  - {id: ishi, player: 2, profile: ishi, position: [30, 10], facing: 180}
"""


@pytest.fixture(autouse=True)
def _fixture_file(tmp_path, monkeypatch):
    """The game reads this test's feat effects file instead of the repository's."""
    yield from feat_data(FIXTURE, tmp_path, monkeypatch)


def game(*feats: str, seed: int = 1, places: dict | None = None, enemy_feats: tuple = ()) -> Game:
    """Hanso (Akira's card with ``feats``), two Spearmen (Ashigaru), Kenta (a Samurai),
    Masunagi and Ishi (player 2; Masunagi with ``enemy_feats``)."""
    akira = get_profile("takashi-akira")
    key = "-".join(sorted(feats) + sorted(enemy_feats)).lower().replace(" ", "").replace("!", "")
    hanso = replace(akira, id=f"h9-hanso-{key}", name="Hanso", bs_id=f"test-h9-hanso-{key}", feats=tuple(feats))
    spear = replace(get_profile("kokkio"), id="h9-spear", name="Spearman", bs_id="test-h9-spear", feats=())
    masu = replace(get_profile("ito-masunagi"), id=f"h9-masu-{key}", name="Masunagi", bs_id=f"test-h9-masu-{key}",
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
    return g


# ------------------------------------------------------------------ move (p.24 example)
def test_forward_move_it_walks_two_spearmen_without_counters():
    """p.24: "Хансо использует своё Умение Ки «Вперёд!» на двух Копейщиков. Оба Копейщика
    совершают Ходьбу до своего показателя Движения в дюймах, но это не Действие Ходьба,
    поэтому не теряйте счетчик активации." Move It! (Active, Pulse 8", up to 3 friendly
    Ashigaru): the player names the two Spearmen and a point for each; each walks up to its
    Move (4"), no counter is lost; Kenta (a Samurai) cannot be named."""
    g = game("Move It!")
    counters = {mid: g.state.models[mid].counters for mid in ("hanso", "spear1", "spear2")}
    a = Action("feat", "hanso", feat="Move It!", models=("spear1", "spear2"), path=((10, 18), (17, 10)))
    assert g.is_legal(a)[0]
    assert not g.is_legal(replace(a, models=("spear1", "kenta")))[0]  # not an Ashigaru
    ok, why = g.is_legal(replace(a, path=((10, 19.5), (17, 10))))  # 5.5": beyond its Move
    assert not ok and "spear1" in why
    g.push(a)
    assert g.state.models["spear1"].position == pytest.approx((10, 18))
    assert g.state.models["spear2"].position == pytest.approx((17, 10))
    assert {mid: g.state.models[mid].counters for mid in counters} == counters  # no Walk action: no counter
    assert g.state.models["hanso"].ki == 2
    assert g.state.active == 1  # an Active feat: Hanso's player still chooses the action


def test_forward_move_it_is_offered_with_points_and_only_ashigaru_move():
    """The offer names the Ashigaru in the Pulse (nearest first) and a legal destination for
    each, toward the enemy (the bots take it as is)."""
    g = game("Move It!")
    offers = [a for a in g.legal_actions() if a.feat == "Move It!"]
    assert offers and set(offers[0].models) == {"spear1", "spear2"} and len(offers[0].path) == 2
    before = g.state.models["kenta"].position
    g.push(offers[0])
    assert g.state.models["kenta"].position == before
    moved = [e.data["model"] for e in g.events if e.kind == "move"]
    assert sorted(moved) == ["spear1", "spear2"]


def test_push_away_after_a_failed_size_test():
    """Wing Buffet (Simple, Pulse 3"): every other model in the Pulse takes a Size (6) test
    (p.28: dice by Size); a model that fails is pushed 2" straight away from the user."""
    seen = set()
    for seed in range(1, 14):
        g = game("Wing Buffet", seed=seed, places={"ishi": (10, 7)})
        before = g.state.models["ishi"].position
        evs = g.push(Action("ki_feat", "hanso", feat="Wing Buffet"))
        test = next(e for e in evs if e.kind == "test" and e.data["model"] == "ishi")
        after = g.state.models["ishi"].position
        if test.data["passed"]:
            assert after == before
        else:
            assert after == pytest.approx((10, 5))
        seen.add(test.data["passed"])
    assert seen == {True, False}


# ------------------------------------------------------------------ killed enemy within range
def _kill_ishi(g: Game) -> None:
    """Hanso's Test Wound (2 wounds) kills Ishi (5 wounds, 3 taken)."""
    set_model(g, "ishi", damage=3)
    g.push(Action("ki_feat", "hanso", feat="Test Wound", target="ishi", x=2))
    assert not g.state.models["ishi"].alive


def test_consume_soul_heals_the_killed_models_ki_when_its_player_chooses():
    """Consume Soul (Instant, Pulse 3", once per turn): when an enemy model is killed within
    3", the game waits for the user's player: use it (heals wounds equal to the killed
    model's Ki statistic) or decline; nothing else may be declared meanwhile."""
    g = game("Test Wound", "Consume Soul", places={"ishi": (10, 13.5), "spear1": (20, 20)})
    set_model(g, "hanso", damage=3)
    _kill_ishi(g)
    assert g.to_move() == 1
    offers = g.legal_actions()
    assert [a.kind for a in offers] == ["feat", "decline_feat"]
    with pytest.raises(GameError):
        g.push(Action("wait", "kenta"))
    g.push(offers[0])
    ki_stat = g.state.models["ishi"].ki_stat
    assert g.state.models["hanso"].damage == 3 - ki_stat
    assert not any(k.startswith("feat_trigger:") for k in g.state.models["hanso"].conditions)
    assert g.legal_actions() and all(a.kind != "decline_feat" for a in g.legal_actions())


def test_a_trigger_is_answered_out_of_turn_and_may_be_declined():
    """Soul Thirst (Instant, Pulse 6"): Ishi (player 2) attacks Hanso in its own activation
    and is killed in the exchange; player 1 chooses before anything else (Instant, p.46): use it
    (heals and gains Ki equal to Ishi's Ki statistic) or decline. Saved and loaded while it
    waits, the game still waits for player 1."""
    for seed in range(1, 40):
        g = game("Soul Thirst", seed=seed, places={"ishi": (11.19, 10), "spear2": (20, 20)})
        set_model(g, "ishi", damage=4)
        set_model(g, "hanso", ki=2, damage=2)
        set_active(g, 2)
        g.push(Action("melee", "ishi", target="hanso"))
        while g.state.exchange is not None:
            g.push(max((a for a in g.legal_actions() if a.kind == "allocate"), key=lambda a: a.attack or 0))
        if not g.state.models["ishi"].alive and g.state.models["hanso"].alive:
            break
    else:
        pytest.fail("Ishi never died")
    assert g.to_move() == 1  # in player 2's activation: the answer waits before anything else
    assert [a.kind for a in g.legal_actions()] == ["feat", "decline_feat"]
    back = Game.from_save(g.to_json())
    assert back.to_move() == 1 and back.legal_actions() == g.legal_actions()
    hanso = g.state.models["hanso"]
    damage, ki = hanso.damage, hanso.ki
    g.push(next(a for a in g.legal_actions() if a.kind == "decline_feat"))
    assert (hanso.damage, hanso.ki) == (damage, ki)
    assert g.to_move() == g.state.active
    back.push(next(a for a in back.legal_actions() if a.kind == "feat"))
    m = back.state.models["hanso"]
    k = back.state.models["ishi"].ki_stat
    assert m.damage == max(0, damage - k) and m.ki == min(ki - 1 + k, m.ki_limit)


def test_no_trigger_out_of_range():
    """A kill beyond the feat's range opens nothing (Consume Soul: 3")."""
    g = game("Test Wound", "Consume Soul", places={"ishi": (30, 10)})
    _kill_ishi(g)
    assert all(a.kind != "decline_feat" for a in g.legal_actions())


# ------------------------------------------------------------------ no special attacks
def test_dirty_fighting_bars_enemy_specials_until_the_activation_ends():
    """Dirty Fighting (Active): enemy models may not declare special attacks or defences
    against the user until the end of the activation (Masunagi's Sidestep Defence is
    refused in the exchange; without the feat it is allowed); the effect ends with the
    activation."""
    verdicts = []
    for use in (False, True):
        g = game("Dirty Fighting", places={"masunagi": (11.19, 10), "spear2": (20, 20)})
        if use:
            g.push(Action("feat", "hanso", feat="Dirty Fighting"))
        g.push(Action("melee", "hanso", target="masunagi"))
        while g.to_move() == 1 and g.state.exchange is not None:
            g.push(next(a for a in g.legal_actions() if a.kind == "allocate"))
        pool = max((a.attack or 0) + (a.defence or 0) for a in g.legal_actions() if a.kind == "allocate")
        ok, why = g.is_legal(Action("allocate", "masunagi", attack=0, defence=pool, special="sidestep-defence"))
        verdicts.append(ok)
        if use:
            assert "Dirty Fighting" in why
            while g.state.exchange is not None:
                g.push(next(a for a in g.legal_actions() if a.kind == "allocate"))
            assert not any("Dirty Fighting" in e["source"] for e in g.state.models["hanso"].effects)
    assert verdicts == [True, False]


# ------------------------------------------------------------------ restrictions of the entry
def test_target_keywords_rice_and_max_x():
    """An entry's target restrictions: a keyword (Samurai: Masunagi yes, Ishi no), a rice
    cost lower than the user's (Ishi 12 < 18 yes, Masunagi 17 yes, Kenta is a friend), and
    X at most 2 (Test Wound at X = 3 is refused)."""
    g = game("Samurai Only", "Cheaper Only", "Test Wound", places={"masunagi": (20, 10), "ishi": (10, 20)})
    sam = {a.target for a in g.legal_actions() if a.feat == "Samurai Only"}
    assert sam == {"masunagi"}
    ok, why = g.is_legal(Action("feat", "hanso", feat="Samurai Only", target="ishi"))
    assert not ok and "Samurai" in why
    cheap = {a.target for a in g.legal_actions() if a.feat == "Cheaper Only"}
    assert cheap == {"masunagi", "ishi"}
    ok, why = g.is_legal(Action("ki_feat", "hanso", feat="Test Wound", target="ishi", x=3))
    assert not ok and "at most 2" in why
    assert {a.x for a in g.legal_actions() if a.feat == "Test Wound"} == {1, 2}


# ------------------------------------------------------------------ bots
def test_bots_answer_a_trigger_and_value_the_new_ops():
    """The greedy bot uses Consume Soul after a kill in range when it heals (worth its Ki),
    declines it when unhurt; Move It! with points is worth more than without; Dirty
    Fighting is worth more in base contact with an enemy (sim.rules.bots.feat_value)."""
    from sim.rules.bots import GreedyBot
    from sim.rules.bots.feat_value import feat_value

    for hurt, kind in ((3, "feat"), (0, "decline_feat")):
        g = game("Test Wound", "Consume Soul", places={"ishi": (10, 13.5), "spear1": (20, 20)})
        set_model(g, "hanso", damage=hurt)
        _kill_ishi(g)
        assert GreedyBot(1).choose(g).kind == kind
    g = game("Move It!", "Dirty Fighting")
    offer = next(a for a in g.legal_actions() if a.feat == "Move It!")
    assert feat_value(g, offer) > feat_value(g, replace(offer, models=(), path=()))
    far = feat_value(g, Action("feat", "hanso", feat="Dirty Fighting"))
    g = game("Dirty Fighting", places={"masunagi": (11.19, 10), "spear2": (20, 20)})
    assert feat_value(g, Action("feat", "hanso", feat="Dirty Fighting")) > far
