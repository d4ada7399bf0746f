"""Ki feats as data, round 6 (issue #13, helper F7): a deployed terrain base that is Impassable,
Destructible and placed anywhere on the table (``deploy_terrain`` with ``passage: impassable``,
``range: null``, ``destructible: true``), played through the Game's public API with the
repository's curated entries (data/feats/curated/*.yaml).

Rulebook p.16 (Destructible): a model in contact with the piece and out of enemy ZoC may Wait
and pay 2 Ki to remove it; p.60 (Impassable): models may not move through it.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from models.profiles import add_profile_source, get_profile
from sim.rules import feat_effects as fe
from sim.rules.game import Action, Game
from sim.table import parse_table
from tests.conftest import set_active, set_model

YAML = """
format: bushido-table/1
name: feats-f7
table: {width: 36, depth: 36}
terrain: []
models:
  - {id: hero, player: 1, profile: HERO, position: [10, 10], facing: 90}
  - {id: pal, player: 1, profile: PAL, position: [12, 10], facing: 0}
  - {id: fox, player: 2, profile: FOX, position: [10, 20], facing: 270}
  - {id: far, player: 2, profile: FOX, position: [30, 32], facing: 270}
"""


#: These tests read the repository's feat data (the curated entries under test).
pytestmark = pytest.mark.usefixtures("repository_feat_data")


def game(hero=()) -> Game:
    """Hero and Pal (player 1, active) and Fox / Far (player 2): Ishi's card without traits,
    Hero with the given feats and 6 Ki."""
    key = "-".join(hero).lower().replace(" ", "")
    ishi = replace(get_profile("ishi"), traits=())
    profs = {who: replace(ishi, id=f"f7-{who}-{key}", name=who.title(), bs_id=f"test-f7-{who}-{key}",
                          feats=hero if who == "hero" else ()) for who in ("hero", "pal", "fox")}
    add_profile_source({p.id: p for p in profs.values()})  # conftest removes them after
    text = YAML.replace("HERO", profs["hero"].id).replace("PAL", profs["pal"].id).replace("FOX", profs["fox"].id)
    g = Game(parse_table(text, "<test>"), seed=1, length=("fixed", 3))
    set_active(g, 1)
    set_model(g, "hero", ki=6)
    return g


def _piece(g: Game):
    return next((t for t in g.table_now().terrain if t.id == "deployed:hero:Set the Scene"), None)


def test_set_the_scene_places_an_impassable_destructible_base_anywhere_once_per_game():
    """Set the Scene (Simple, Special, OpG): "Place a piece of [Impassable, Blocking, Large],
    [Destructible] terrain, that fits on a 50mm base onto the battlefield. Remove it in the End
    Phase." -- no range or LoS limit (25" away is legal), never over a model; the piece is
    Impassable, Blocking, Large and Destructible; once per game."""
    assert fe.effect_status("Set the Scene") == (True, "")
    g = game(("Set the Scene",))
    use = Action("ki_feat", "hero", feat="Set the Scene", point=(30, 25))
    assert not g.is_legal(replace(use, point=(10, 20.5)))[0]  # over Fox
    assert not g.is_legal(replace(use, point=(35.5, 25)))[0]  # off the table
    offered = [a for a in g.legal_actions() if a.feat == "Set the Scene"]
    assert offered and offered[0].point is not None
    ok, why = g.is_legal(use)
    assert ok, why
    g.push(use)
    piece = _piece(g)
    assert piece is not None
    assert piece.passage.value == "impassable" and piece.visibility.value == "blocking"
    assert piece.size.label == "large" and piece.destructible
    assert g.state.models["hero"].ki == 5
    set_active(g, 1)
    set_model(g, "hero", ki=6)
    assert not g.is_legal(Action("ki_feat", "hero", feat="Set the Scene", point=(5, 30)))[0]  # once per game


def test_set_the_scene_base_stops_a_walk_through_it():
    """The deployed base is Impassable (p.60): Pal's walk across it is refused, the same walk
    was legal before it was placed."""
    g = game(("Set the Scene",))
    walk = Action("walk", "pal", point=(16, 10))
    assert g.is_legal(walk)[0]
    g.push(Action("ki_feat", "hero", feat="Set the Scene", point=(14, 10)))
    assert _piece(g) is not None
    set_active(g, 1)
    ok, why = g.is_legal(walk)
    assert not ok, why


# ------------------------------------------------------------------ no penalty for having Run (p.36)
MELEE_YAML = """
format: bushido-table/1
name: feats-f7-melee
table: {width: 36, depth: 36}
terrain: []
models:
  - {id: hero, player: 1, profile: HERO, position: [18.8188976, 20], facing: 0}
  - {id: mate, player: 1, profile: MATE, position: [15.5, 20], facing: 0}
  - {id: foe, player: 2, profile: FOE, position: [20, 20], facing: 180}
  - {id: foe2, player: 2, profile: FOE, position: [30, 4], facing: 180}
"""


def melee_game(mate_feats=(), hero_types=("Ashigaru",), mate_types=("Ashigaru",)) -> Game:
    """Hero (touching Foe) and Mate (1.8" behind Hero, touching nobody): Akira's card with the
    given types; Mate has the feats ``mate_feats`` and 6 Ki. Foe: Masunagi's card."""
    akira = get_profile("takashi-akira")
    masu = get_profile("ito-masunagi")
    key = "-".join(list(mate_feats) + ["h"] + list(hero_types) + ["m"] + list(mate_types)).lower()
    key = "".join(c for c in key if c.isalnum() or c == "-")
    h = replace(akira, id=f"f7-hero-{key}", name="Hero", bs_id=f"test-f7-hero-{key}", feats=(), types=hero_types)
    m = replace(akira, id=f"f7-mate-{key}", name="Mate", bs_id=f"test-f7-mate-{key}", feats=tuple(mate_feats),
                types=mate_types)
    f = replace(masu, id=f"f7-foe-{key}", name="Foe", bs_id=f"test-f7-foe-{key}")
    add_profile_source({p.id: p for p in (h, m, f)})  # conftest removes them after
    text = MELEE_YAML.replace("HERO", h.id).replace("MATE", m.id).replace("FOE", f.id)
    g = Game(parse_table(text, "<test>"), seed=1, length=("fixed", 3))
    set_active(g, 1)
    set_model(g, "mate", ki=6)
    return g


def _hero_pool(g: Game) -> int:
    set_active(g, 1)
    g.push(Action("melee", "hero", target="foe"))
    assert g.state.exchange is not None
    return g.exchange_pools()["hero"]


@pytest.mark.parametrize("feat,keyword", [("Quick March", "Ashigaru"), ("To the Front!", "Bushi")])
def test_an_aura_cancels_the_melee_penalty_for_having_run(feat, keyword):
    """Quick March (Aura 4"): "All Friendly Ashigaru within the Aura ignore the melee penalty
    for having Run"; To the Front! (Aura 3"): "Friendly Bushi models in the Aura do not suffer
    the Melee Penalty for having Run." -- Hero Ran this turn (-1 die, p.36); inside Mate's Aura
    it fights with its full pool; a Hero without the keyword keeps the penalty."""
    assert fe.effect_status(feat) == (True, "")
    clean = _hero_pool(melee_game((feat,), (keyword,), (keyword,)))
    ran = melee_game((feat,), (keyword,), (keyword,))
    set_model(ran, "hero", conditions={"ran": True})
    assert _hero_pool(ran) == clean - 1
    g = melee_game((feat,), (keyword,), (keyword,))
    set_model(g, "hero", conditions={"ran": True})
    g.push(Action("ki_feat", "mate", feat=feat))
    assert g.state.models["mate"].ki < 6
    assert _hero_pool(g) == clean
    other = melee_game((feat,), ("Samurai",), (keyword,))  # Hero is no friendly model of the keyword
    set_model(other, "hero", conditions={"ran": True})
    other.push(Action("ki_feat", "mate", feat=feat))
    assert _hero_pool(other) == clean - 1
