"""Ki feats as data, round 5 (issue #13, H19): the ``attack`` op -- a feat that makes the
user shoot now, at a model its player names -- through the Game's public API.

Rulebook p.46: "Все Умения имеют стоимость в жетонах Ки; эта стоимость должна быть
потрачена на применение эффектов Умения." p.30: "Модель может выбрать целью любую вражескую
модель в зоне видимости". The fixture entry copies the facts of the catalogue card Snap Shot
(cost 3, Simple, Personal, no BtB) and says its effect in the project's vocabulary.
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
  Snap Shot:
    {cost: 3, timing: simple, area: personal, limits: [no_btb], when: action, affects: self,
     effects: [{op: attack, kind: ranged, at: named, ignore: [reload]}],
     summary: "the user makes a ranged attack at once, ignoring its Reload markers"}
  Quick Shot:
    {cost: 1, timing: active, area: personal, when: action, affects: self,
     effects: [{op: attack, kind: ranged, at: named}],
     summary: "the user makes a ranged attack at once"}
"""

YAML = """
format: bushido-table/1
name: feats6
table: {width: 36, depth: 36}
terrain: []
models:
  - {id: archer, player: 1, profile: ARCHER, position: [10, 10], facing: 0}
  - {id: near, player: 2, profile: ISHI, position: [10, 16], facing: 180}
  - {id: far, player: 2, profile: ISHI, position: [30, 34], facing: 180}
"""


@pytest.fixture(autouse=True)
def _fixture_file(tmp_path, monkeypatch):
    """The game reads this test's feat effects file instead of the repository's."""
    yield from feat_data(FIXTURE, tmp_path, monkeypatch)


def game(*feats: str, seed: int = 1) -> Game:
    """An archer (Ishi's card: a Bow with Reload (1), with ``feats``) 6" from an enemy Ishi
    (in the Bow's Medium band); another enemy far out of range."""
    key = "-".join(sorted(feats)).lower().replace(" ", "")
    ishi = get_profile("ishi")
    archer = replace(ishi, id=f"h19-archer-{key}", name="Archer", bs_id=f"test-h19-archer-{key}", feats=tuple(feats))
    enemy = replace(ishi, id=f"h19-ishi-{key}", name="Ishi", bs_id=f"test-h19-ishi-{key}")
    add_profile_source({p.id: p for p in (archer, enemy)})  # conftest removes them after
    g = Game(parse_table(YAML.replace("ARCHER", archer.id).replace("ISHI", enemy.id), "<test>"), seed=seed,
             length=("fixed", 3))
    set_active(g, 1)
    set_model(g, "archer", ki=4)
    return g


def _offers(g: Game, feat: str) -> list[Action]:
    return [a for a in g.legal_actions() if a.feat == feat and a.model == "archer"]


def test_attack_feat_offered_at_each_model_it_may_shoot():
    """p.30: the shot's target is an enemy in range and LoS -- the feat is offered once per
    such model (the near Ishi), not at the one beyond the Bow's Long band."""
    g = game("Snap Shot")
    offers = _offers(g, "Snap Shot")
    assert [a.target for a in offers] == ["near"]
    kind = offers[0].kind
    ok, why = g.is_legal(Action(kind, "archer", feat="Snap Shot", target="far"))
    assert not ok and "no shot" in why
    ok, why = g.is_legal(Action(kind, "archer", feat="Snap Shot"))
    assert not ok and "target" in why


def test_attack_feat_makes_the_shot_and_pays_ki():
    """Snap Shot: the cost (3 Ki) is paid and the archer's ranged attack at the named model
    is resolved at once (a ``shot`` event, the archer marked as having shot)."""
    g = game("Snap Shot")
    a = _offers(g, "Snap Shot")[0]
    n = len(g.events)
    g.push(a)
    new = g.events[n:]
    assert any(e.kind == "shot" for e in new)
    assert g.state.models["archer"].ki == 1
    assert any("Snap Shot: archer makes a ranged attack at near" in line for line in g.log())


def test_attack_ignoring_reload_shoots_while_reloading():
    """p.45 "Перезарядка": a Reloading model may not fire a Reload weapon -- the ordinary
    Shoot is refused; Snap Shot (ignore: reload) still shoots, and a feat without that
    ignore is refused like the Shoot."""
    g = game("Snap Shot", "Quick Shot")
    set_model(g, "archer", conditions={"reloading": 1})
    assert not g.is_legal(Action("shoot", "archer", target="near"))[0]
    assert not _offers(g, "Quick Shot")
    a = _offers(g, "Snap Shot")[0]
    n = len(g.events)
    g.push(a)
    shots = [e for e in g.events[n:] if e.kind == "shot"]
    assert shots and not any("no shot" in s for e in shots for s in e.data.get("summary", []))


def test_attack_forms_not_made_stay_unapplied():
    """The engine makes only a ranged attack at the target / named model, ignoring at most
    Reloading: a melee attack, one ignoring cover, or one at the trigger model keeps the
    entry unapplied (the card text is then a manual step)."""
    base = {"cost": 1, "timing": "active", "area": "personal", "when": "action", "affects": "self"}
    for op in ({"op": "attack", "kind": "melee", "at": "named"},
               {"op": "attack", "kind": "ranged", "at": "named", "ignore": ["cover"]},
               {"op": "attack", "kind": "ranged", "at": "trigger"}):
        entry = fe.FeatEffect.model_validate({**base, "effects": [op]})
        ok, why = fe.entry_status(entry)
        assert not ok and "attack" in why
    entry = fe.FeatEffect.model_validate({**base, "effects": [{"op": "attack", "at": "named", "ignore": ["reload"]}]})
    assert fe.entry_status(entry) == (True, "")


def test_attack_feat_survives_save_and_replay():
    """The feat's shot goes through events only: the position after it, replayed from the
    events, is the same."""
    g = game("Snap Shot")
    g.push(_offers(g, "Snap Shot")[0])
    pos = g.position()
    g2 = game("Snap Shot")
    g2.push(_offers(g2, "Snap Shot")[0])
    assert g2.position() == pos


def test_greedy_bot_values_the_feat_shot():
    """The greedy bot's feat value (sim.rules.bots.feat_value) counts the feat's shot: a
    Snap Shot at the near enemy is worth more than nothing, more again while Reloading
    would stop an ordinary Shoot (p.45)."""
    from sim.rules.bots.feat_value import feat_value

    g = game("Snap Shot")
    a = _offers(g, "Snap Shot")[0]
    plain = feat_value(g, a)
    assert plain > 0
    set_model(g, "archer", conditions={"reloading": 1})
    assert feat_value(g, a) > plain


CIRCLE = """
  Circular Strike:
    {cost: 3, timing: simple, area: personal, limits: [no_btb, once_per_turn], when: action, affects: self,
     effects: [{op: grant, traits: [Aware], until: activation},
               {op: attack, kind: ranged, at: all, ignore: [camouflage, repeat, btb]}],
     summary: "Aware for the activation, then a ranged attack at every other model it can shoot"}
"""

YAML_ALL = """
format: bushido-table/1
name: feats6b
table: {width: 36, depth: 36}
terrain: []
models:
  - {id: archer, player: 1, profile: ARCHER, position: [10, 10], facing: 0}
  - {id: pal, player: 1, profile: ISHI, position: [14, 10], facing: 0}
  - {id: near, player: 2, profile: ISHI, position: [10, 16], facing: 180}
  - {id: far, player: 2, profile: ISHI, position: [30, 34], facing: 180}
"""


def test_attack_at_every_model_friend_or_enemy(tmp_path):
    """Circular Strike (its card: Aware, then a ranged attack at each other model, friend or
    enemy, in range and LoS, in any order; no penalty for earlier shots): one action names
    the models in order (nearest first offered); the friend 4" away and the enemy 6" away
    are both shot, the far enemy not; another order of the same models is legal, a
    partial list is not."""
    (tmp_path / "effects.yaml").write_text(FIXTURE + CIRCLE, encoding="utf-8")
    fe.reset_cache()
    ishi = get_profile("ishi")
    bow = replace(ishi.weapons[0], traits=("Lightweight",))  # no Reload: a second shot may follow (p.56)
    archer = replace(ishi, id="h19-archer-cs", name="Archer", bs_id="test-h19-archer-cs", feats=("Circular Strike",),
                     weapons=(bow,) + ishi.weapons[1:])
    enemy = replace(ishi, id="h19-ishi-cs", name="Ishi", bs_id="test-h19-ishi-cs")
    add_profile_source({p.id: p for p in (archer, enemy)})
    g = Game(parse_table(YAML_ALL.replace("ARCHER", archer.id).replace("ISHI", enemy.id), "<test>"), seed=3,
             length=("fixed", 3))
    set_active(g, 1)
    set_model(g, "archer", ki=4, conditions={"shot": 1})
    offers = _offers(g, "Circular Strike")
    assert [a.models for a in offers] == [("pal", "near")]
    a = offers[0]
    assert g.is_legal(replace(a, models=("near", "pal")))[0]
    assert not g.is_legal(replace(a, models=("near",)))[0]
    n = len(g.events)
    g.push(a)
    shots = [e for e in g.events[n:] if e.kind == "shot"]
    assert len(shots) == 2
    text = "\n".join(g.log())
    assert "shoots again, at near" in text
    assert "Aware" in text  # granted for the activation (it ends with this action, p.24)
