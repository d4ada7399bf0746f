"""Ki feats as data, round 6 (issue #13, helper F6): feats that watch a FRIEND of the user and
take the enemy's action on the user instead (``trigger:targeted`` with ``watch: friends``, the
``redirect`` op; sim/rules/game/feat_redirects.py), through the Game's public API.

Rulebook p.46: an Instant feat may be used at any time, also in the opponent's activation.
p.24: a declared action is checked again when it resolves. The fixture entries copy the facts
of the catalogue cards (Intercept: cost 2, Instant, Pulse 1"; Illicium: cost 1, Instant,
Pulse 6", no BtB, once per turn; Spirit Guardian: cost 3, Instant, Pulse 3", no Walk, no BtB)
and say their effect in the project's vocabulary, as data/feats/curated/c2.yaml and c4.yaml do.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from models.profiles import add_profile_source, get_profile
from sim.rules import feat_effects as fe
from sim.rules.game import Action, Game
from sim.table import parse_table
from tests.conftest import feat_data, set_active, set_model

FIXTURE = """
format: bushido-feat-effects/1
feats:
  Intercept:
    {cost: 2, timing: instant, area: pulse, range: 1, when: "trigger:targeted", watch: friends,
     targeted_by: [charge, melee], affects: self, effects: [{op: redirect}], summary: takes a melee on itself}
  Illicium:
    {cost: 1, timing: instant, area: pulse, range: 6, limits: [no_btb, once_per_turn], when: "trigger:targeted",
     watch: friends, targeted_by: [charge, shoot, feat], affects: self, effects: [{op: redirect}],
     summary: takes a targeting on itself}
  Spirit Guardian:
    {cost: 3, timing: instant, area: pulse, range: 3, limits: [no_btb, no_move], when: "trigger:targeted",
     watch: friends, targeted_by: [feat], affects: self, effects: [{op: redirect, range_to_original: true}],
     summary: takes an enemy feat on itself}
  Spiritual Conduit:
    {cost: 1, timing: active, area: aura, range: 4, limits: [no_btb], when: action, affects: friends,
     target_keywords: [Ito, Shisai], target_keywords_all: true, effects: [{op: feat_origin}],
     summary: friendly Ito Shisai in the Aura may measure their Target feats from the user}
  Madamada:
    {cost: 2, timing: instant, area: target, range: 6, limits: [no_btb], when: "trigger:targeted", watch: friends,
     targeted_by: [contact], trigger_target: friend, affects: target_friend, effects: [{op: repel}],
     summary: the enemy that reached the friend moves out of its ZoC}
  To My Side!:
    {cost: 1, timing: instant, area: pulse, range: 4, limits: [once_per_turn], when: "trigger:targeted",
     targeted_by: [charge, melee], affects: friends, target_keywords: [Golden Sentinel], max_affected: 1,
     effects: [{op: move, distance: 48, kind: to_target}], summary: a Golden Sentinel moves into contact with the enemy}
  Two-Man Rule:
    {cost: 2, timing: instant, area: pulse, range: 6, limits: [no_btb, once_per_turn], when: "trigger:targeted",
     watch: friends, targeted_by: [contact], affects: friends, max_affected: 1, effects: [{op: join}],
     summary: another friend moves into contact with the enemy}
  Quick Lash:
    {cost: 1, timing: instant, area: target, range: 8, when: action, affects: target_enemy,
     effects: [{op: condition, name: stunned, n: 1}], summary: a Stunned marker on the target}
  Spirit Lash:
    {cost: 1, timing: simple, area: target, range: 8, when: action, affects: target_enemy,
     effects: [{op: condition, name: stunned, n: 1}], summary: a Stunned marker on the target}
"""

YAML = """
format: bushido-table/1
name: feats-f6
table: {width: 36, depth: 36}
terrain: []
models:
  - {id: hero, player: 1, profile: HERO, position: [10, 10], facing: 90}
  - {id: fox, player: 2, profile: FOX, position: [10, 15], facing: 270}
  - {id: guard, player: 2, profile: GUARD, position: [12, 15], facing: 270}
"""


@pytest.fixture(autouse=True)
def _fixture_file(tmp_path, monkeypatch):
    """The game reads this test's feat effects file instead of the repository's."""
    yield from feat_data(FIXTURE, tmp_path, monkeypatch)


def game(guard: tuple[str, ...], hero: tuple[str, ...] = (), places: dict | None = None, seed: int = 1,
         fox_facing: float = 90.0) -> Game:
    """Hero (Ishi's card, player 1, active, 6 Ki) 5" from Fox (player 2, facing away from Hero:
    its ZoC does not bar a move to Guard); Guard (player 2, 5 Ki, the feats ``guard``) 2" beside
    Fox (0.82" edge to edge: in a Pulse of 1")."""
    key = ("-".join(hero + ("x",) + guard)).lower().replace(" ", "").replace("!", "")
    ishi = get_profile("ishi")
    h = replace(ishi, id=f"f6-hero-{key}", name="Hero", bs_id=f"test-f6-hero-{key}", feats=hero)
    f = replace(ishi, id=f"f6-fox-{key}", name="Fox", bs_id=f"test-f6-fox-{key}", feats=())
    gd = replace(ishi, id=f"f6-guard-{key}", name="Guard", bs_id=f"test-f6-guard-{key}", feats=guard)
    add_profile_source({p.id: p for p in (h, f, gd)})  # conftest removes them after
    text = YAML.replace("HERO", h.id).replace("FOX", f.id).replace("GUARD", gd.id)
    g = Game(parse_table(text, "<test>"), seed=seed, length=("fixed", 3))
    set_active(g, 1)
    for mid, pt in (places or {}).items():
        set_model(g, mid, position=list(pt))
    set_model(g, "hero", ki=6)
    set_model(g, "guard", ki=5)
    set_model(g, "fox", facing=fox_facing)
    return g


def _offers(g: Game) -> set[tuple[str, str | None, str | None]]:
    return {(a.kind, a.model, a.feat) for a in g.legal_actions()}


# ---------------------------------------------------------------- Intercept: melee and charge
def test_intercept_waits_and_takes_the_melee_on_the_user():
    """Hero's Melee at Fox waits for Guard's player; Intercept used: Hero's Melee is made at
    Guard (its move brings it into contact with Guard) and the exchange is Hero v Guard."""
    g = game(("Intercept",))
    g.push(Action("melee", "hero", target="fox"))
    assert g.state.exchange is None and g.to_move() == 2
    assert _offers(g) == {("feat", "guard", "Intercept"), ("decline_feat", "guard", "Intercept")}
    g.push(Action("feat", "guard", feat="Intercept"))
    assert g.state.models["guard"].ki == 3
    ex = g.state.exchange
    assert ex is not None and ex["attacker"] == "hero" and ex["defender"] == "guard", ex
    assert "guard" in g.enemies_in_contact("hero") and "fox" not in g.enemies_in_contact("hero")
    assert any("instead of fox" in line for line in g.log())


def test_intercept_declined_the_melee_goes_on_at_the_friend():
    g = game(("Intercept",))
    g.push(Action("charge", "hero", target="fox"))
    g.push(Action("decline_feat", "guard", feat="Intercept"))
    ex = g.state.exchange
    assert ex is not None and ex["defender"] == "fox" and ex["charge"]
    assert g.state.models["guard"].ki == 5


def test_intercept_redirects_a_charge():
    g = game(("Intercept",))
    g.push(Action("charge", "hero", target="fox"))
    g.push(Action("feat", "guard", feat="Intercept"))
    ex = g.state.exchange
    assert ex is not None and ex["defender"] == "guard" and ex["charge"]


def test_intercept_watches_only_friends_in_its_pulse():
    """Guard 4" from Fox (beyond Pulse 1"): no window, the exchange opens at once."""
    g = game(("Intercept",), places={"guard": (14.5, 15)})
    g.push(Action("melee", "hero", target="fox"))
    assert g.state.exchange is not None and g.state.exchange["defender"] == "fox"
    assert not any(k.startswith("feat_trigger:") for k in g.state.models["guard"].conditions)


def test_intercept_not_offered_when_the_redirected_action_is_illegal():
    """Fox faces Hero: a Melee move to Guard would enter Fox's ZoC (p.22), so the Melee cannot
    be made at Guard -- Intercept is not offered and the exchange opens with Fox."""
    g = game(("Intercept",), fox_facing=270.0)
    assert not g.is_legal(Action("melee", "hero", target="guard"))[0]
    g.push(Action("melee", "hero", target="fox"))
    assert g.state.exchange is not None and g.state.exchange["defender"] == "fox"
    assert not any(k.startswith("feat_trigger:") for k in g.state.models["guard"].conditions)


def test_intercept_a_melee_from_contact_moves_the_enemy_to_the_user():
    """Hero already touches Fox: its Melee made at Guard is legal (its move reaches Guard,
    p.24), so Intercept is offered and the exchange is Hero v Guard."""
    g = game(("Intercept",), fox_facing=270.0, places={"hero": (10, 13.815)})
    assert "fox" in g.enemies_in_contact("hero")
    g.push(Action("melee", "hero", target="fox"))
    g.push(Action("feat", "guard", feat="Intercept"))
    ex = g.state.exchange
    assert ex is not None and ex["defender"] == "guard"


# ---------------------------------------------------------------- Illicium: a shot
def test_illicium_takes_a_shot_on_the_user():
    g = game(("Illicium",), places={"hero": (10, 4), "guard": (14, 15)})
    g.push(Action("shoot", "hero", target="fox"))
    assert not any(e.kind == "shot" for e in g.events[-6:])
    assert ("feat", "guard", "Illicium") in _offers(g)
    g.push(Action("feat", "guard", feat="Illicium"))
    shots = [e for e in g.events if e.kind == "shot"]
    assert shots and all("target guard" in str(e.data["summary"]) for e in shots), [e.data for e in shots]
    assert g.state.models["guard"].ki == 4


def test_illicium_ignores_a_melee():
    """Illicium answers a Charge, a shot or a Target feat ("Targets"), not a Melee ("selected")."""
    g = game(("Illicium",))
    g.push(Action("melee", "hero", target="fox"))
    assert g.state.exchange is not None and g.state.exchange["defender"] == "fox"


# ---------------------------------------------------------------- Spirit Guardian: a Ki feat
def test_spirit_guardian_takes_an_enemy_feat_its_range_measured_to_the_friend():
    """Spirit Lash (range 8) at Fox 5.8" away; Guard 2.3" behind Fox, 9.3" from Hero (beyond the
    feat's range): with Spirit Guardian the feat is made at Guard, its range measured to Fox,
    so Guard is Stunned and Fox is not."""
    g = game(("Spirit Guardian",), hero=("Spirit Lash",), places={"hero": (10, 8.0), "guard": (10, 18.5)})
    g.push(Action("ki_feat", "hero", feat="Spirit Lash", target="fox"))
    assert g.to_move() == 2 and ("feat", "guard", "Spirit Guardian") in _offers(g)
    g.push(Action("feat", "guard", feat="Spirit Guardian"))
    assert "stunned" in g.state.models["guard"].conditions
    assert "stunned" not in g.state.models["fox"].conditions
    assert g.state.models["hero"].ki == 5 and g.state.models["guard"].ki == 2
    assert not any("feat_range_to" in m.conditions for m in g.state.models.values())


def test_spirit_guardian_takes_an_enemy_instant_feat_and_the_active_player_goes_on():
    """An Instant Target feat of the active player's model (no action) waits unpaid for Spirit
    Guardian; redirected, it is paid and made at Guard (its range measured to Fox), and player
    1 still has its activation to declare."""
    g = game(("Spirit Guardian",), hero=("Quick Lash",), places={"hero": (10, 8.0), "guard": (10, 18.5)})
    g.push(Action("feat", "hero", feat="Quick Lash", target="fox"))
    assert g.to_move() == 2 and g.state.models["hero"].ki == 6
    g.push(Action("feat", "guard", feat="Spirit Guardian"))
    assert "stunned" in g.state.models["guard"].conditions and "stunned" not in g.state.models["fox"].conditions
    assert g.state.models["hero"].ki == 5 and g.to_move() == 1
    assert not any("feat_range_to" in m.conditions for m in g.state.models.values())


def test_illicium_out_of_the_feat_range_is_not_offered():
    """The same table with Illicium: Guard is no valid target of Spirit Lash (beyond 8"; the
    feat could be declared there but would fail, p.47), so no window opens and Fox is Stunned."""
    g = game(("Illicium",), hero=("Spirit Lash",), places={"hero": (10, 8.0), "guard": (10, 18.5)})
    g.push(Action("ki_feat", "hero", feat="Spirit Lash", target="fox"))
    assert "stunned" in g.state.models["fox"].conditions


def test_spirit_guardian_take_back_and_replay():
    """The redirect is events only: taking back the feat restores the wait, and the game
    replays to the same state."""
    g = game(("Spirit Guardian",), hero=("Spirit Lash",), places={"guard": (10, 17.5)})
    g.push(Action("ki_feat", "hero", feat="Spirit Lash", target="fox"))
    before = g.position()
    g.push(Action("feat", "guard", feat="Spirit Guardian"))
    after = g.position()
    g.pop()
    assert g.position() == before
    g.push(Action("feat", "guard", feat="Spirit Guardian"))
    assert g.position() == after


# ---------------------------------------------------------------- Madamada: a friend's contact
def test_madamada_waits_after_the_charge_into_the_friend_and_moves_the_enemy_out_of_its_zoc():
    """Hero's Charge brings it into contact with Fox (facing it); before the exchange Guard's
    player may use Madamada at Fox: Hero moves straight away from Fox until it leaves Fox's
    ZoC, and no exchange is fought (the Charge's counters stay spent)."""
    g = game(("Madamada",), fox_facing=270.0)
    g.push(Action("charge", "hero", target="fox"))
    assert "fox" in g.enemies_in_contact("hero") and g.state.exchange is None and g.to_move() == 2
    use = [a for a in g.legal_actions() if a.feat == "Madamada" and a.kind == "feat"]
    assert [a.target for a in use] == ["fox"]
    before = g.state.models["hero"].position
    g.push(use[0])
    assert g.state.models["guard"].ki == 3
    assert "fox" not in g.enemies_in_contact("hero") and g.state.exchange is None
    hero, fox = g.state.models["hero"].position, g.state.models["fox"].position
    assert ((hero[0] - fox[0]) ** 2 + (hero[1] - fox[1]) ** 2) > ((before[0] - fox[0]) ** 2 + (before[1] - fox[1]) ** 2)
    assert abs(hero[0] - before[0]) < 1e-6  # straight away from Fox (both on the line x = 10)
    assert not g.table_now().scene().zoc("fox", "hero").in_zoc
    assert g.state.models["hero"].counters == 0 and g.state.active == 2
    assert any("no melee exchange" in line for line in g.log())


def test_madamada_declined_the_exchange_opens():
    g = game(("Madamada",), fox_facing=270.0)
    g.push(Action("charge", "hero", target="fox"))
    g.push(Action("decline_feat", "guard", feat="Madamada"))
    assert g.state.exchange is not None and g.state.exchange["defender"] == "fox"


def test_madamada_no_window_out_of_range_or_already_in_contact():
    g = game(("Madamada",), fox_facing=270.0, places={"guard": (20, 15)})  # 8.8" from Fox: beyond 6"
    g.push(Action("charge", "hero", target="fox"))
    assert g.state.exchange is not None
    g = game(("Madamada",), fox_facing=270.0, places={"hero": (10, 13.815)})  # touching Fox already
    g.push(Action("melee", "hero", target="fox"))
    assert g.state.exchange is not None
    assert not any(k.startswith("feat_trigger:") for k in g.state.models["guard"].conditions)


# ---------------------------------------------------------------- To My Side!: a chosen friend moves
def side_game(places: dict | None = None) -> Game:
    """Hero (player 1) 5" from Fox (player 2, To My Side!); two Golden Sentinels of player 2
    (``guard`` 2" beside Fox, ``post`` 3.5" from it) and the ordinary Guard model far away."""
    ishi = get_profile("ishi")
    h = replace(ishi, id="f6-side-hero", name="Hero", bs_id="test-f6-side-hero", feats=())
    f = replace(ishi, id="f6-side-fox", name="Fox", bs_id="test-f6-side-fox", feats=("To My Side!",))
    s = replace(ishi, id="f6-sentinel", name="Sentinel", bs_id="test-f6-sentinel", types=("golden sentinel",),
                feats=())
    add_profile_source({p.id: p for p in (h, f, s)})
    text = YAML.replace("HERO", h.id).replace("FOX", f.id).replace("GUARD", s.id) + \
        f"  - {{id: post, player: 2, profile: {s.id}, position: [6.5, 15], facing: 270}}\n"
    g = Game(parse_table(text, "<test>"), seed=1, length=("fixed", 3))
    set_active(g, 1)
    for mid, pt in (places or {}).items():
        set_model(g, mid, position=list(pt))
    set_model(g, "fox", ki=4)
    return g


def test_to_my_side_moves_the_nearest_sentinel_into_contact_with_the_charging_enemy():
    g = side_game()
    g.push(Action("charge", "hero", target="fox"))
    assert g.to_move() == 2 and ("feat", "fox", "To My Side!") in _offers(g)
    g.push(Action("feat", "fox", feat="To My Side!"))
    assert "hero" in g.enemies_in_contact("guard") and "hero" not in g.enemies_in_contact("post")
    assert g.state.models["fox"].ki == 3


def test_to_my_side_the_player_may_name_another_sentinel():
    g = side_game()
    g.push(Action("charge", "hero", target="fox"))
    named = Action("feat", "fox", feat="To My Side!", models=("post",))
    assert g.is_legal(named)[0], g.is_legal(named)
    g.push(named)
    assert "hero" in g.enemies_in_contact("post") and "hero" not in g.enemies_in_contact("guard")


def test_to_my_side_reaches_only_sentinels_in_its_pulse():
    """Both Sentinels beyond Pulse 4": the feat moves nobody."""
    g = side_game(places={"guard": (20, 15), "post": (20, 20)})
    g.push(Action("charge", "hero", target="fox"))
    if ("feat", "fox", "To My Side!") in _offers(g):
        g.push(Action("feat", "fox", feat="To My Side!"))
    assert not g.enemies_in_contact("guard") and not g.enemies_in_contact("post")


# ---------------------------------------------------------------- Two-Man Rule: another friend joins
def two_man_game(post: tuple[float, float] = (13.0, 11.0)) -> Game:
    """Hero (player 1) 5" from Fox (player 2, facing it); Guard (player 2, Two-Man Rule) 2.8"
    from Fox; Post (player 2) 2.9" from Guard."""
    ishi = get_profile("ishi")
    h = replace(ishi, id="f6-tm-hero", name="Hero", bs_id="test-f6-tm-hero", feats=())
    f = replace(ishi, id="f6-tm-fox", name="Fox", bs_id="test-f6-tm-fox", feats=())
    gd = replace(ishi, id="f6-tm-guard", name="Guard", bs_id="test-f6-tm-guard", feats=("Two-Man Rule",))
    add_profile_source({p.id: p for p in (h, f, gd)})
    text = YAML.replace("HERO", h.id).replace("FOX", f.id).replace("GUARD", gd.id) + \
        f"  - {{id: post, player: 2, profile: {f.id}, position: [{post[0]}, {post[1]}], facing: 270}}\n"
    g = Game(parse_table(text, "<test>"), seed=1, length=("fixed", 3))
    set_active(g, 1)
    set_model(g, "guard", position=[14, 15], ki=4)
    set_model(g, "fox", facing=270.0)
    return g


def test_two_man_rule_moves_another_friend_into_contact_with_the_enemy():
    """Hero's Charge reaches Fox; Guard's player uses Two-Man Rule: Post (the other friend of
    the Pulse; Fox itself is not offered) moves into base contact with Hero, then the held
    exchange opens (Hero v Fox)."""
    g = two_man_game()
    g.push(Action("charge", "hero", target="fox"))
    assert g.state.exchange is None and ("feat", "guard", "Two-Man Rule") in _offers(g)
    assert not g.is_legal(Action("feat", "guard", feat="Two-Man Rule", models=("fox",)))[0]
    g.push(Action("feat", "guard", feat="Two-Man Rule"))
    assert "hero" in g.enemies_in_contact("post")
    assert g.state.models["guard"].ki == 2
    ex = g.state.exchange
    assert ex is not None and ex["attacker"] == "hero" and ex["defender"] == "fox"


def test_two_man_rule_cannot_be_used_without_another_friend_in_the_pulse():
    """Post beyond Pulse 6": only declining is offered; the exchange then opens."""
    g = two_man_game(post=(30.0, 30.0))
    g.push(Action("charge", "hero", target="fox"))
    assert _offers(g) == {("decline_feat", "guard", "Two-Man Rule")}
    g.push(Action("decline_feat", "guard", feat="Two-Man Rule"))
    assert g.state.exchange is not None and not g.enemies_in_contact("post")


# ---------------------------------------------------------------- Spiritual Conduit: an Aura's point of origin
CONDUIT_YAML = """
format: bushido-table/1
name: feats-f6-conduit
table: {width: 36, depth: 36}
terrain: []
models:
  - {id: conduit, player: 1, profile: CONDUIT, position: [20, 10], facing: 90}
  - {id: priest, player: 1, profile: PRIEST, position: [15, 10], facing: 90}
  - {id: monk, player: 1, profile: MONK, position: [16, 7], facing: 90}
  - {id: fox, player: 2, profile: FOX, position: [22, 18], facing: 270}
"""


def conduit_game(places: dict | None = None) -> Game:
    """Conduit (Spiritual Conduit, 4 Ki) and Priest (an Ito Clan Shisai with Spirit Lash, Target 8")
    3.8" apart; Monk (Ito Clan, no Shisai, Spirit Lash) in the Aura too; Fox (enemy) 7.1" from
    Conduit, 9.4" from Priest (beyond the feat's range)."""
    ishi = get_profile("ishi")
    c = replace(ishi, id="f6-conduit", name="Conduit", bs_id="test-f6-conduit", faction="Ito Clan",
                feats=("Spiritual Conduit",))
    pr = replace(ishi, id="f6-priest", name="Priest", bs_id="test-f6-priest", faction="Ito Clan",
                 types=("human", "shisai"), feats=("Spirit Lash",))
    mk = replace(ishi, id="f6-monk", name="Monk", bs_id="test-f6-monk", faction="Ito Clan",
                 types=("human",), feats=("Spirit Lash",))
    f = replace(ishi, id="f6-cfox", name="Fox", bs_id="test-f6-cfox", feats=())
    add_profile_source({p.id: p for p in (c, pr, mk, f)})
    text = CONDUIT_YAML.replace("CONDUIT", c.id).replace("PRIEST", pr.id).replace("MONK", mk.id).replace("FOX", f.id)
    g = Game(parse_table(text, "<test>"), seed=1, length=("fixed", 3))
    set_active(g, 1)
    for mid, pt in (places or {}).items():
        set_model(g, mid, position=list(pt))
    for mid in ("conduit", "priest", "monk"):
        set_model(g, mid, ki=4)
    return g


def _lash_offered(g: Game, mid: str) -> bool:
    return any(a.kind == "ki_feat" and a.model == mid and a.target == "fox" for a in g.legal_actions())


def test_spiritual_conduit_lets_a_shisai_measure_its_target_feat_from_the_user():
    g = conduit_game()
    assert not _lash_offered(g, "priest")  # 9.4": beyond Target 8"
    g.push(Action("feat", "conduit", feat="Spiritual Conduit"))
    assert _lash_offered(g, "priest") and not _lash_offered(g, "monk")  # Monk is no Shisai
    g.push(Action("ki_feat", "priest", feat="Spirit Lash", target="fox"))
    assert "stunned" in g.state.models["fox"].conditions


def test_without_the_aura_the_feat_is_out_of_range():
    g = conduit_game()
    g.push(Action("ki_feat", "priest", feat="Spirit Lash", target="fox"))
    assert "stunned" not in g.state.models["fox"].conditions
    assert any("beyond 8" in line for line in g.log())


def test_spiritual_conduit_needs_its_user_free_of_enemies():
    """Fox moved into base contact with Conduit (after the Aura was made): Conduit is no point
    of origin any more, the Shisai's feat is measured from the Shisai."""
    g = conduit_game()
    g.push(Action("feat", "conduit", feat="Spiritual Conduit"))
    set_model(g, "fox", position=[20, 11.19])
    assert "fox" in g.enemies_in_contact("conduit")
    assert g.feat_origins("priest") == []
    set_model(g, "fox", position=[22, 18])
    assert g.feat_origins("priest") == ["conduit"]


def test_redirects_and_windows_survive_a_save_and_a_verified_load():
    """A game with a redirected Ki feat (its range mark), a waiting friend-contact window and a
    redirected Charge re-simulates to the same events from its save."""
    g = game(("Spirit Guardian",), hero=("Spirit Lash",), places={"hero": (10, 8.0), "guard": (10, 18.5)})
    g.push(Action("ki_feat", "hero", feat="Spirit Lash", target="fox"))
    g.push(Action("feat", "guard", feat="Spirit Guardian"))
    again = Game.from_save(g.to_json())
    assert [e.kind for e in again.events] == [e.kind for e in g.events]
    assert again.position() == g.position()
    g = game(("Madamada",), fox_facing=270.0)
    g.push(Action("charge", "hero", target="fox"))  # waits for Madamada
    again = Game.from_save(g.to_json())
    assert again.position() == g.position() and again.to_move() == 2
    again.push(Action("feat", "guard", feat="Madamada", target="fox"))
    assert "fox" not in again.enemies_in_contact("hero")


# ---------------------------------------------------------------- the repository's entries
NAMES = ("Intercept", "Illicium", "Spirit Guardian", "Spiritual Conduit", "Madamada", "To My Side!", "Two-Man Rule")


def test_the_curated_entries_are_applied():
    """The repository's curated files give the four feats of this round, applied."""
    root = Path(__file__).resolve().parents[1] / "data" / "feats" / "curated"
    got = {}
    for p in sorted(root.glob("*.yaml")):
        got.update({k: v for k, v in fe.load_effects(p).items()
                    if k in NAMES})
    assert set(got) == set(NAMES)
    for name, entry in got.items():
        assert fe.entry_status(entry) == (True, ""), name
    for name in ("Intercept", "Illicium", "Spirit Guardian"):
        assert got[name].watch == "friends" and any(isinstance(o, fe.RedirectOp) for o in got[name].effects)
    assert got["Spirit Guardian"].effects[0].range_to_original
    assert isinstance(got["Spiritual Conduit"].effects[0], fe.FeatOriginOp)
    assert isinstance(got["Madamada"].effects[0], fe.RepelOp) and got["Madamada"].targeted_by == ["contact"]
    assert isinstance(got["Two-Man Rule"].effects[0], fe.JoinOp) and got["Two-Man Rule"].max_affected == 1
