"""Ki feats as data, round 6 (issue #13, helper F3): feats that move or place models,
through the Game's public API.

Rulebook p.23 (Place): "Размещение модели не считается движением. ... Модель не может быть
размещена в непроходимом элементе местности, внутри другой модели или в контакте с вражеской
моделью." p.46: an Instant feat may be used at any time, also in the opponent's activation.
The fixture entries copy the facts of the catalogue cards (Mirage: cost 2, Instant, Special,
Opposed, once per turn) and say their effect in the project's vocabulary.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from models.profiles import add_profile_source, get_profile
from sim.rules import feat_effects as fe
from sim.rules import movement
from sim.rules.game import Action, Game
from sim.table import parse_table
from tests.conftest import feat_data, set_active, set_model

FIXTURE = """
format: bushido-feat-effects/1
feats:
  Mirage:
    {cost: 2, timing: instant, area: special, opposed: true, limits: [once_per_turn], when: "trigger:targeted",
     targeted_by: [contact, shoot, feat], ends_action: true, affects: self,
     effects: [{op: move, distance: 2, kind: place}],
     summary: "placed within 2 inches; the enemy's action ends"}
  Spirit Lash:
    {cost: 1, timing: simple, area: target, range: 8, when: action, affects: target_enemy,
     effects: [{op: condition, name: stunned, n: 1}], summary: a Stunned marker on the target}
  Parley:
    {cost: 2, timing: instant, area: target, btb: true, limits: [once_per_turn], when: "trigger:targeted",
     targeted_by: [contact], ends_action: true, affects: target_enemy, effects: [],
     summary: "an enemy that comes into contact ends its activation"}
  Shadow Rats:
    {cost: 3, timing: simple, area: pulse, range: 4, limits: [once_per_turn], when: action, affects: friends,
     target_keywords: [Rat], max_affected: 1, effects: [{op: swap}], summary: swaps with a friendly Rat}
  Sidewinder:
    {cost: 2, timing: instant, area: target, btb: true, limits: [once_per_game], when: exchange,
     affects: target_enemy, effects: [{op: swap}], summary: swaps with the enemy it fights}
  Suri-Ashi:
    {cost: 2, timing: instant, area: personal, when: "trigger:exchange_resolved", affects: self,
     effects: [{op: move, distance: Move, kind: out_of_zoc}], summary: steps out of the enemy ZoC}
  Debana:
    {cost: 1, timing: instant, area: personal, when: "trigger:dealt_wound", dealt_by: melee, affects: self,
     effects: [{op: move, distance: Move, kind: out_of_zoc}], summary: steps out of the wounded enemy's ZoC}
  Quick Lash:
    {cost: 1, timing: instant, area: target, range: 8, when: action, affects: target_enemy,
     effects: [{op: condition, name: stunned, n: 1}], summary: a Stunned marker on the target}
"""

YAML = """
format: bushido-table/1
name: feats-f3
table: {width: 36, depth: 36}
terrain: []
models:
  - {id: hero, player: 1, profile: HERO, position: [10, 10], facing: 90}
  - {id: fox, player: 2, profile: FOX, position: [10, 15], facing: 270}
  - {id: far, player: 2, profile: FOX, position: [30, 32], facing: 270}
"""


@pytest.fixture(autouse=True)
def _fixture_file(tmp_path, monkeypatch):
    """The game reads this test's feat effects file instead of the repository's."""
    yield from feat_data(FIXTURE, tmp_path, monkeypatch)


def game(hero: tuple[str, ...] = (), fox: tuple[str, ...] = ("Mirage",), seed: int = 1,
         places: dict | None = None) -> Game:
    """Hero (Ishi's card, player 1, active, 6 Ki) and Fox (Ishi's card with Mirage, player 2,
    4 Ki) 5" apart, facing each other; another Fox far away."""
    key = ("-".join(hero + ("x",) + fox)).lower().replace(" ", "")
    ishi = get_profile("ishi")
    h = replace(ishi, id=f"f3-hero-{key}", name="Hero", bs_id=f"test-f3-hero-{key}", feats=hero)
    f = replace(ishi, id=f"f3-fox-{key}", name="Fox", bs_id=f"test-f3-fox-{key}", feats=fox)
    add_profile_source({p.id: p for p in (h, f)})  # conftest removes them after
    g = Game(parse_table(YAML.replace("HERO", h.id).replace("FOX", f.id), "<test>"), seed=seed,
             length=("fixed", 3))
    set_active(g, 1)
    for mid, pt in (places or {}).items():
        set_model(g, mid, position=list(pt))
    set_model(g, "hero", ki=6)
    set_model(g, "fox", ki=4)
    return g


def _touching(g: Game, a: str, b: str) -> bool:
    return b in g.enemies_in_contact(a)


def _mirage_outcome(g: Game) -> bool:
    """Fox answers with Mirage (the offered action); True when its opposed test passed."""
    use = [a for a in g.legal_actions() if a.feat == "Mirage" and a.kind == "feat"]
    assert use, g.legal_actions()
    assert use[0].target == "hero" and use[0].point is not None  # tested against the enemy; a place point
    hero, fox = g.state.models["hero"].position, g.state.models["fox"].position
    dist = lambda p, q: ((p[0] - q[0]) ** 2 + (p[1] - q[1]) ** 2) ** 0.5  # noqa: E731
    assert dist(use[0].point, hero) > dist(fox, hero)  # the offered place is away from the enemy
    n = len(g.events)
    g.push(use[0])
    tests = [e for e in g.events[n:] if e.kind == "test" and "Mirage" in str(e.data.get("text"))]
    assert tests, "Mirage takes its Opposed Ki test against the enemy"
    return bool(tests[0].data["passed"])


# ---------------------------------------------------------------- Mirage: contact
def test_mirage_waits_after_the_charge_move_before_the_exchange():
    """Mirage: "entered into BtB ... but before any Melee Exchange begins": the Charge moves
    Hero into contact, then the game waits for Fox's player (Mirage or decline) with no
    exchange open yet."""
    g = game()
    g.push(Action("charge", "hero", target="fox"))
    assert _touching(g, "hero", "fox")
    assert g.state.exchange is None
    assert g.to_move() == 2
    kinds = {(a.kind, a.feat) for a in g.legal_actions()}
    assert kinds == {("feat", "Mirage"), ("decline_feat", "Mirage")}
    ok, why = g.is_legal(Action("walk", "far", point=(30, 30)))
    assert not ok and "Mirage" in why


def test_mirage_declined_the_exchange_opens():
    g = game()
    g.push(Action("charge", "hero", target="fox"))
    g.push(Action("decline_feat", "fox", feat="Mirage"))
    ex = g.state.exchange
    assert ex is not None and ex["attacker"] == "hero" and ex["defender"] == "fox" and ex["charge"]


def test_mirage_places_the_user_and_the_charge_counts_as_resolved():
    """A passed Opposed test: Fox is placed within 2" (not in contact with an enemy, p.23),
    no exchange is fought, Hero's Charge spent its two counters and the turn passes on; a
    failed test: the exchange opens as declared. Both outcomes over a few seeds."""
    seen = set()
    for seed in range(1, 40):
        g = game(seed=seed)
        before = g.state.models["fox"].position
        g.push(Action("charge", "hero", target="fox"))
        passed = _mirage_outcome(g)
        seen.add(passed)
        fox = g.state.models["fox"]
        assert fox.ki == 2  # the cost is paid either way
        if passed:
            assert g.state.exchange is None
            assert 0 < ((fox.position[0] - before[0]) ** 2 + (fox.position[1] - before[1]) ** 2) ** 0.5 <= 2 + 1e-6
            assert not _touching(g, "fox", "hero")
            assert g.state.models["hero"].counters == 0
            assert g.state.active == 2
            assert any("counts as resolved" in line for line in g.log())
        else:
            assert g.state.exchange is not None and g.state.exchange["defender"] == "fox"
        if seen == {True, False}:
            break
    assert seen == {True, False}


def test_mirage_opens_no_window_for_a_model_already_in_contact():
    """"in which it entered into BtB": a Melee by a model that already touches Fox moves it
    into no contact -- the exchange opens at once."""
    g = game(places={"hero": (10, 13.815)})
    assert _touching(g, "hero", "fox")
    g.push(Action("melee", "hero", target="fox"))
    assert g.state.exchange is not None
    assert not any(k.startswith("feat_trigger:") for k in g.state.models["fox"].conditions)


def test_mirage_once_per_turn_and_ki():
    """Without the Ki for it (2), no window opens: the exchange opens at once."""
    g = game()
    set_model(g, "fox", ki=1)
    g.push(Action("charge", "hero", target="fox"))
    assert g.state.exchange is not None


# ---------------------------------------------------------------- Mirage: shots and feats
def test_mirage_answers_a_shot_declared_at_it():
    g = game(places={"hero": (10, 4)})
    g.push(Action("shoot", "hero", target="fox"))
    assert not any(e.kind == "shot" for e in g.events[-6:])
    assert g.to_move() == 2 and any(a.feat == "Mirage" for a in g.legal_actions())
    g.push(Action("decline_feat", "fox", feat="Mirage"))
    assert any(e.kind == "shot" for e in g.events[-20:])


def test_mirage_answers_an_enemy_simple_target_feat():
    """A Simple Target feat declared at Fox waits for Mirage; declined, it is used (paid,
    Fox Stunned)."""
    g = game(hero=("Spirit Lash",))
    g.push(Action("ki_feat", "hero", feat="Spirit Lash", target="fox"))
    assert "stunned" not in g.state.models["fox"].conditions and g.to_move() == 2
    assert g.state.models["hero"].ki == 6  # not paid yet
    g.push(Action("decline_feat", "fox", feat="Mirage"))
    assert "stunned" in g.state.models["fox"].conditions
    assert g.state.models["hero"].ki == 5
    assert g.state.active == 2


def test_mirage_answers_an_instant_target_feat_and_the_active_player_goes_on():
    """An Instant Target feat of the active player's model at Fox waits for Mirage. Used
    with a passed test: the feat counts as resolved (not paid, no Stunned) and player 1 is
    still the one to act (an Instant feat is no action)."""
    seen = set()
    for seed in range(1, 40):
        g = game(hero=("Quick Lash",), seed=seed)
        g.push(Action("feat", "hero", feat="Quick Lash", target="fox"))
        assert g.to_move() == 2
        passed = _mirage_outcome(g)
        seen.add(passed)
        stunned = "stunned" in g.state.models["fox"].conditions
        assert stunned != passed
        assert g.state.models["hero"].ki == (6 if passed else 5)
        assert g.state.active == 1 and g.to_move() == 1
        if seen == {True, False}:
            break
    assert seen == {True, False}


def test_default_targeted_feats_keep_the_declaration_window():
    """An entry without ``targeted_by`` answers a Charge at its declaration (round 4): the
    Charge has not moved yet when the game waits."""
    text = FIXTURE.replace("targeted_by: [contact, shoot, feat], ", "")
    fe.DEFAULT_PATH.write_text(text, encoding="utf-8")
    fe.reset_cache()
    g = game()
    g.push(Action("charge", "hero", target="fox"))
    assert g.to_move() == 2 and not _touching(g, "hero", "fox")


# ---------------------------------------------------------------- Parley: contact ends the activation
def test_parley_ends_the_charging_enemy_activation_without_an_exchange():
    """Parley (Instant, Target BtB): "During an Enemy model's activation in which it enters BtB
    with this model, that Enemy model's activation ends immediately": offered at the charger
    once it touches Fox; used, no exchange is fought, the Charge's counters are spent and the
    turn passes on. Declined: the exchange opens."""
    g = game(fox=("Parley",))
    g.push(Action("charge", "hero", target="fox"))
    assert g.state.exchange is None and _touching(g, "hero", "fox")
    use = [a for a in g.legal_actions() if a.feat == "Parley" and a.kind == "feat"]
    assert [a.target for a in use] == ["hero"]
    ok, why = g.is_legal(Action("feat", "fox", feat="Parley", target="far"))
    assert not ok
    g.push(use[0])
    assert g.state.exchange is None
    assert g.state.models["fox"].ki == 2
    assert g.state.models["hero"].counters == 0
    assert g.state.active == 2
    g2 = game(fox=("Parley",))
    g2.push(Action("charge", "hero", target="fox"))
    g2.push(Action("decline_feat", "fox", feat="Parley"))
    assert g2.state.exchange is not None


def test_an_entry_that_only_ends_the_action_needs_the_interrupt():
    """An entry with no effects is applied only when it ends an interrupted action."""
    base = {"cost": 1, "timing": "instant", "area": "personal", "when": "trigger:targeted", "effects": []}
    assert fe.entry_status(fe.FeatEffect.model_validate({**base, "ends_action": True}))[0]
    assert not fe.entry_status(fe.FeatEffect.model_validate(base))[0]


def test_targeted_by_needs_the_targeted_trigger():
    """``targeted_by`` on another moment keeps the entry unapplied."""
    e = fe.FeatEffect.model_validate({"cost": 1, "timing": "instant", "area": "personal", "when": "any",
                                      "targeted_by": ["contact"], "effects": [{"op": "ki", "n": 1}]})
    ok, why = fe.entry_status(e)
    assert not ok and "targeted_by" in why


def test_repository_mirage_is_applied(monkeypatch):
    """The curated Mirage entry (c5) now counts as applied."""
    root = fe.Path(__file__).resolve().parents[1] / "data" / "feats"
    monkeypatch.setattr(fe, "DEFAULT_PATH", root / "effects.yaml")
    monkeypatch.setattr(fe, "CURATED_DIR", root / "curated")
    fe.reset_cache()
    assert fe.effect_status("Mirage") == (True, "")
    assert fe.effect_status("Parley") == (True, "")
    for name in ("Shadow Rats", "Sidewinder", "Suri-Ashi", "Debana"):
        assert fe.effect_status(name) == (True, ""), name
    assert fe.feat_effect("Mirage").targeted_by == ["contact", "shoot", "feat"]


# ---------------------------------------------------------------- swap: Shadow Rats, Sidewinder
def rat_game(places: dict | None = None, hero_base: int | None = None) -> Game:
    """Hero (Shadow Rats, Sidewinder) with a friendly Rat (a card named Rat) and a friendly
    Ishi that is no Rat, both within 4"; Fox (player 2) 5" away."""
    ishi = get_profile("ishi")
    h = replace(ishi, id="f3-hero-rats", name="Hero", bs_id="test-f3-hero-rats",
                feats=("Shadow Rats", "Sidewinder"))
    rat = replace(ishi, id="f3-rat", name="Rat", bs_id="test-f3-rat", feats=())
    add_profile_source({p.id: p for p in (h, rat)})
    text = YAML.replace("HERO", h.id).replace("FOX", ishi.id)
    if hero_base:
        text = text.replace("position: [10, 10], facing: 90}", f"position: [10, 10], facing: 90, base: {hero_base}}}")
    text += (
        "  - {id: rat, player: 1, profile: f3-rat, position: [13, 10], facing: 0}\n"
        "  - {id: mate, player: 1, profile: ishi, position: [7, 10], facing: 0}\n")
    g = Game(parse_table(text, "<test>"), seed=1, length=("fixed", 3))
    set_active(g, 1)
    for mid, pt in (places or {}).items():
        set_model(g, mid, position=list(pt))
    set_model(g, "hero", ki=6)
    return g


def test_shadow_rats_swaps_the_user_with_a_friendly_rat_in_the_pulse():
    """Shadow Rats (Simple, Pulse 4"): "Exchange positions of this model with any Friendly Rat
    model in the pulse" -- offered with the Rat named; the Ishi that is no Rat is refused; used,
    Hero and the Rat exchange base centres (facings kept) and 3 Ki are paid."""
    g = rat_game()
    offers = [a for a in g.legal_actions() if a.feat == "Shadow Rats"]
    assert [a.models for a in offers] == [("rat",)]
    ok, why = g.is_legal(Action("ki_feat", "hero", feat="Shadow Rats", models=("mate",)))
    assert not ok
    facing = g.state.models["hero"].facing
    g.push(offers[0])
    assert g.state.models["hero"].position == (13, 10) and g.state.models["rat"].position == (10, 10)
    assert g.state.models["hero"].facing == facing
    assert g.state.models["hero"].ki == 3
    assert g.replay().snapshot() == g.snapshot()


def test_shadow_rats_refused_when_a_base_does_not_fit_or_no_rat_is_near():
    """A Rat out of the Pulse: nothing to swap with, nothing offered; a Rat touching an enemy
    may still be swapped with (a swap is no Place, p.23)."""
    g = rat_game(places={"rat": (20, 20)})
    assert not [a for a in g.legal_actions() if a.feat == "Shadow Rats"]
    ok, why = g.is_legal(Action("ki_feat", "hero", feat="Shadow Rats"))
    assert not ok and "none it reaches" in why
    g = rat_game(places={"rat": (10, 13.9), "fox": (10, 15.09)})  # the Rat touches Fox
    ok, why = g.is_legal(Action("ki_feat", "hero", feat="Shadow Rats", models=("rat",)))
    assert ok, why  # same bases: they fit; a swap is no Place, contact with an enemy is allowed


def test_sidewinder_swaps_with_the_enemy_of_the_exchange_before_allocating():
    """Sidewinder (Instant, Target BtB, once per game): "Before a Melee Exchange, this model
    swaps positions with the Enemy model. Both models must remain in BtB." -- in Hero's
    exchange with Fox, before it allocates; the two stay in contact."""
    g = rat_game(places={"hero": (10, 13.815)})
    g.push(Action("melee", "hero", target="fox"))
    assert g.state.exchange is not None
    offers = [a for a in g.legal_actions() if a.feat == "Sidewinder"]
    assert [a.target for a in offers] == ["fox"]
    hero, fox = g.state.models["hero"].position, g.state.models["fox"].position
    g.push(offers[0])
    assert g.state.models["hero"].position == fox and g.state.models["fox"].position == hero
    assert "fox" in g.enemies_in_contact("hero")
    assert not [a for a in g.legal_actions() if a.feat == "Sidewinder"]  # once per game


def test_swap_refused_where_a_base_would_not_fit():
    """Both bases must fit in each other's place (p.22): Hero on a 50 mm base cannot take the
    place of a 30 mm Rat standing at the table edge -- refused and not offered."""
    g = rat_game(places={"hero": (10, 4), "rat": (10, 0.6)}, hero_base=50)
    ok, why = g.is_legal(Action("ki_feat", "hero", feat="Shadow Rats", models=("rat",)))
    assert not ok and "do not both fit" in why
    assert not [a for a in g.legal_actions() if a.feat == "Shadow Rats"]


# ---------------------------------------------------------------- out of the ZoC: Suri-Ashi, Debana
def _fight(g: Game) -> None:
    """Allocate the exchange's dice until it is resolved, no specials: Hero every die in
    attack, Fox every die in defence."""
    while g.state.exchange is not None:
        offers = [a for a in g.legal_actions() if a.kind == "allocate" and a.special is None]
        hero = [a for a in offers if a.model == "hero"]
        g.push(max(hero, key=lambda a: a.attack or 0) if hero else max(offers, key=lambda a: a.defence or 0))


def _in_zoc(g: Game, mid: str, enemy: str) -> bool:
    return movement.Mover(g.table_now(), mid).in_zoc_at(enemy, g.state.models[mid].position)


def test_suri_ashi_steps_straight_out_of_the_enemy_zoc_after_the_exchange():
    """Suri-Ashi (Instant): "After a Melee Exchange is complete, this model may move away from
    the Enemy model until it leaves its ZoC, at which point its movement ends": offered once
    the exchange is resolved; Hero moves straight away from Fox and stops just out of Fox's
    ZoC (1" in its front arc, p.22), well short of its Move."""
    g = game(hero=("Suri-Ashi",), places={"hero": (10, 13.815)})
    g.push(Action("melee", "hero", target="fox"))
    _fight(g)
    if not g.state.models["hero"].alive or not g.state.models["fox"].alive:
        pytest.skip("the exchange killed a model")
    assert _in_zoc(g, "hero", "fox")
    use = [a for a in g.legal_actions() if a.feat == "Suri-Ashi" and a.kind == "feat"]
    assert use and any(a.kind == "decline_feat" for a in g.legal_actions())
    before = g.state.models["hero"].position
    g.push(use[0])
    after = g.state.models["hero"].position
    assert after[0] == pytest.approx(before[0]) and after[1] < before[1]  # straight away from Fox (at y=15)
    assert not _in_zoc(g, "hero", "fox")
    gap = 15 - after[1] - 2 * g.table.model("hero").radius
    assert 1.0 <= gap <= 1.05  # just out of the 1" ZoC
    assert g.state.models["hero"].ki == 4


def test_suri_ashi_no_move_out_of_a_zoc_it_may_ignore():
    """A model not in the enemy's ZoC -- here a Prone enemy, whose ZoC is ignored (p.22, p.44)
    -- has nothing to step out of: it does not move."""
    g = game(hero=("Suri-Ashi",), places={"hero": (10, 13.815)})
    g.push(Action("melee", "hero", target="fox"))
    _fight(g)
    if not g.state.models["hero"].alive or not g.state.models["fox"].alive:
        pytest.skip("the exchange killed a model")
    set_model(g, "fox", conditions={"prone": 1})
    use = [a for a in g.legal_actions() if a.feat == "Suri-Ashi" and a.kind == "feat"]
    before = g.state.models["hero"].position
    g.push(use[0])
    assert g.state.models["hero"].position == before
    assert any("Suri-Ashi: hero does not move" in line for line in g.log())


def test_debana_after_wounding_in_melee_steps_away_from_the_wounded_enemy():
    """Debana (Instant): "After causing Damage in a Melee Exchange this model may move away from
    the Defender until it leaves its ZoC": offered only when Hero's melee wounded Fox."""
    seen = set()
    for seed in range(1, 40):
        g = game(hero=("Debana",), places={"hero": (10, 13.815)}, seed=seed)
        g.push(Action("melee", "hero", target="fox"))
        _fight(g)
        fox, hero = g.state.models["fox"], g.state.models["hero"]
        use = [a for a in g.legal_actions() if a.feat == "Debana" and a.kind == "feat"]
        wounded = fox.damage > 0
        seen.add(wounded)
        if not (hero.alive and fox.alive):
            continue
        assert bool(use) == wounded
        if use:
            g.push(use[0])
            assert not _in_zoc(g, "hero", "fox")
        if seen == {True, False}:
            break
    assert seen == {True, False}
