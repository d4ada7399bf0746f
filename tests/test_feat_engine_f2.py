"""Ki feats as data, round 6 (issue #13, helper F2): feats that change the table or the dice,
played through the Game's public API with the repository's curated entries
(data/feats/curated/*.yaml).

Rulebook p.47 (Aura): "Площадь, покрываемая Аурой, выражается как радиус на 360 градусов,
измеренный от края подставки модели ... Ауры сохраняются до Завершающей фазы". p.60
(Difficult): "каждый дюйм считается передвижением на 2 дюйма при любом движении внутри
элемента местности". p.61 (Obscuring): "Если какая-либо линия видимости к любой части базы
цели проходит через Скрывающую местность, то цель получает преимущество Укрытия, если она
находится в пределах 1\" от элемента местности."
"""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from models.profiles import add_profile_source, get_profile
from sim.rules import feat_effects as fe
from sim.rules import movement
from sim.rules.dice import RollKind, RollPurpose
from sim.rules.game import Action, Game
from sim.table import parse_table
from tests.conftest import set_active, set_model

YAML = """
format: bushido-table/1
name: feats-f2
table: {width: 36, depth: 36}
terrain: []
models:
  - {id: hero, player: 1, profile: HERO, position: [10, 10], facing: 90}
  - {id: pal, player: 1, profile: PAL, position: [12, 10], facing: 90}
  - {id: fox, player: 2, profile: FOX, position: [10, 20], facing: 270}
  - {id: far, player: 2, profile: FOX, position: [30, 32], facing: 270}
"""


#: These tests read the repository's feat data (the curated entries under test).
pytestmark = pytest.mark.usefixtures("repository_feat_data")


class ScriptedDice:
    """Dice that return the scripted values in order (then 2, 3, 4, 5, 6, 2 ...)."""

    def __init__(self, values):
        self.values = list(values)
        self.after = 0

    def roll(self, n, purpose=None):
        out = []
        for _ in range(n):
            if self.values:
                out.append(self.values.pop(0))
            else:
                out.append(2 + self.after % 5)
                self.after += 1
        return out


def game(hero=(), pal=(), fox=(), types=None, seed=1, places=None, traits=None, large=()) -> Game:
    """Hero and Pal (player 1, active) and Fox / Far (player 2): Ishi's card without traits
    (no Lightfooted) and with the given feats; Hero has 6 Ki, Fox 4."""
    parts = (hero + ("x",) + pal + ("y",) + fox + tuple(types or ()) + tuple(large)
             + tuple(f"{k}{len(v)}" for k, v in (traits or {}).items()))
    key = "-".join(parts).lower().replace(" ", "")
    ishi = replace(get_profile("ishi"), traits=())
    profs = {}
    for who, feats in (("hero", hero), ("pal", pal), ("fox", fox)):
        p = replace(ishi, id=f"f2-{who}-{key}", name=who.title(), bs_id=f"test-f2-{who}-{key}", feats=feats)
        if types and who in types:
            p = replace(p, types=tuple(types[who]))
        if traits and who in traits:
            p = replace(p, traits=tuple(traits[who]))
        if who in large:  # a 50 mm base, Large
            p = replace(p, base=50, size="large")
        profs[who] = p
    add_profile_source({p.id: p for p in profs.values()})  # conftest removes them after
    text = YAML.replace("HERO", profs["hero"].id).replace("PAL", profs["pal"].id).replace("FOX", profs["fox"].id)
    g = Game(parse_table(text, "<test>"), seed=seed, length=("fixed", 3))
    set_active(g, 1)
    for mid, pt in (places or {}).items():
        set_model(g, mid, position=list(pt))
    set_model(g, "hero", ki=6)
    set_model(g, "fox", ki=4)
    return g


def _use(g: Game, feat: str, **kw) -> None:
    """Hero uses ``feat`` as offered (``x`` / ``models`` set as given)."""
    acts = [a for a in g.legal_actions() if a.feat == feat and a.model == "hero"
            and all(getattr(a, k) == v for k, v in kw.items() if k not in ("models", "x"))]
    assert acts, [a for a in g.legal_actions() if a.feat]
    a = replace(acts[0], **{k: v for k, v in kw.items() if k in ("models", "x")})
    ok, why = g.is_legal(a)
    assert ok, why
    g.push(a)


# ---------------------------------------------------------------- Aura terrain
def test_quagmire_makes_difficult_ground_of_x_inches_that_moves_with_its_user():
    """Quagmire (X, Aura X"): "[Difficult, Clear, Zero]" -- a walk through the area costs
    double inside it; the user's own walk is not slowed (the area moves with it); the area
    is X" from the base edge and ends in the End phase."""
    assert fe.effect_status("Quagmire") == (True, "")
    g = game(hero=("Quagmire",), places={"fox": (16, 10)})
    before = movement.check_walk(g.table_now(), "fox", [(16, 16)]).cost  # away from the area
    _use(g, "Quagmire", x=2)
    pieces = [t for t in g.table_now().terrain if t.id == "aura:hero:Quagmire"]
    assert len(pieces) == 1
    p = pieces[0]
    assert p.passage.value == "difficult" and p.visibility.value == "open" and p.size.label == "zero"
    r = g.table.model("hero").radius
    assert p.footprint.radius == pytest.approx(r + 2)  # X = 2 inches from the base's edge
    # fox walks 4" straight through the hero's area (hero at (10,10), r + 2 = 2.59")
    set_model(g, "fox", position=[10, 14])
    through = movement.check_walk(g.table_now(), "fox", [(10, 13.0)])
    fine = movement.check_walk(g.table_now(), "fox", [(10, 15.0)])
    assert fine.cost == pytest.approx(1.0)  # outside the area (its base edge stays 1.4" away)
    assert through.cost > 1.0  # the part inside counts double
    assert before == pytest.approx(6.0)
    # the user walks freely: 3" costs 3"
    own = movement.check_walk(g.table_now(), "hero", [(10, 7)])
    assert own.legal and own.cost == pytest.approx(3.0)


def test_fog_gives_cover_to_the_user_inside_its_obscuring_area():
    """Fog (Aura 2"): "[Normal, Obscuring, Huge]": a shot at the user passes through the
    area within 1" of it: Cover (p.61); before the Fog, none."""
    g = game(hero=("Fog",))
    scene = g.table_now().scene()
    assert not scene.cover("fox", "hero").cover
    _use(g, "Fog")
    cov = g.table_now().scene().cover("fox", "hero")
    assert cov.cover and cov.piece == "aura:hero:Fog"
    # the piece follows the user when it moves, and it is gone at the End phase
    g2 = game(hero=("Fog",))
    _use(g2, "Fog")
    g2.push(Action("walk", "hero", point=(10, 6)))
    fog = next(t for t in g2.table_now().terrain if t.id == "aura:hero:Fog")
    assert fog.footprint.center == pytest.approx((10, 6))


def test_enveloping_mists_grants_tireless_to_kairai_and_is_obscuring():
    g = game(hero=("Enveloping Mists",), types={"pal": ("kairai",)})
    _use(g, "Enveloping Mists")
    assert any(t.id == "aura:hero:Enveloping Mists" and t.visibility.value == "obscuring"
               for t in g.table_now().terrain)
    assert g.profile("pal").trait("Tireless") is not None  # a friendly Kairai in the 3" Aura
    assert g.profile("hero").trait("Tireless") is None  # Hero is no Kairai


def test_encroaching_mist_reaches_as_many_inches_as_the_turn():
    g = game(hero=("Encroaching Mist",), types={"pal": ("wretched",)}, places={"pal": (13.5, 10)})
    assert g.state.turn == 1
    _use(g, "Encroaching Mist")
    p = next(t for t in g.table_now().terrain if t.id == "aura:hero:Encroaching Mist")
    assert p.footprint.radius == pytest.approx(g.table.model("hero").radius + 1)  # turn 1: 1"
    # pal's base edge is 3.5 - 2 * 0.59 = 2.3" away: outside a 1" Aura
    assert g.profile("pal").trait("Tireless") is None
    set_model(g, "pal", position=[11.8, 10])  # 0.62" apart: inside
    assert g.profile("pal").trait("Tireless") is not None


# ---------------------------------------------------------------- entering an Aura
def test_cloud_of_flies_stuns_enemies_in_contact_and_each_one_entering_once_a_turn():
    """Cloud of Flies (Aura BtB): "Enemy models in, or entering the Aura's area ... gain a
    Stunned Marker. Models can only gain one Stunned Marker per turn as a result"."""
    assert fe.effect_status("Cloud of Flies") == (True, "")
    g = game(hero=("Cloud of Flies",), places={"fox": (10, 11.18)})  # fox in base contact
    _use(g, "Cloud of Flies")
    assert g.marker_count("fox", "stunned") == 1
    assert g.marker_count("far", "stunned") == 0
    assert g.marker_count("pal", "stunned") == 0  # a friend
    # used again this turn: no second marker (one per model per turn from this feat)
    _use(g, "Cloud of Flies")
    assert g.marker_count("fox", "stunned") == 1
    assert g.state.models["hero"].ki == 2  # both uses paid


def test_cloud_of_flies_stuns_an_enemy_whose_charge_brings_it_into_contact():
    """An enemy Charge that ends in base contact enters the BtB Aura: Stunned before the
    exchange is fought (the marker counts in its Melee pool, p.36, p.45)."""
    g = game(hero=("Cloud of Flies",), places={"far": (10, 15)})
    _use(g, "Cloud of Flies")
    assert g.marker_count("far", "stunned") == 0
    set_active(g, 2)
    g.push(Action("charge", "far", target="hero"))
    assert "hero" in g.enemies_in_contact("far")
    assert g.marker_count("far", "stunned") == 1
    assert any("Cloud of Flies: far is in hero's Aura" in line for line in g.log())


# ---------------------------------------------------------------- dice
def test_curse_fate_makes_the_targets_matching_dice_count_as_one_until_the_end_phase():
    """Curse Fate: 1 + SL dice of distinct values (1s and repeats re-rolled); until the End
    phase the target's dice showing them count as 1. Fox's shot with two 5s hits Hero
    without the curse and misses with it (its dice read [1, 1]); the rolls kept are the 5s."""
    assert fe.effect_status("Curse Fate") == (True, "")
    outcomes = {}
    for curse in (True, False):
        g = game(hero=("Curse Fate",), places={"fox": (10, 16), "pal": (30, 5)})
        if curse:
            # opposed Ki test 4 against 3 (SL 1: two dice), then the curse dice 5, 5 (repeat), 1, 3
            g.dice = ScriptedDice([4, 3, 5, 5, 1, 3])
            _use(g, "Curse Fate", target="fox")
            eff = [e["source"] for e in g.state.models["fox"].effects if "Curse Fate" in str(e.get("source"))]
            assert eff == ["Curse Fate: dice 3,5"]
            assert g.rolls[-1] == (4, 3, 5, 5, 1, 3)
            # only the target's dice
            assert g.dice_changed([3, 5, 6], RollPurpose(RollKind.KI_FEAT, "fox")) == [1, 1, 6]
            assert g.dice_changed([3, 5], RollPurpose(RollKind.KI_FEAT, "hero")) == [3, 5]
        set_active(g, 2)
        g.dice = ScriptedDice([5] * 10)
        g.push(Action("shoot", "fox", target="hero"))
        shot = [e for e in g.events if e.kind == "shot"][-1]
        outcomes[curse] = shot.data.get("wounds", {}).get("hero", 0)
        assert g.rolls[-1][:2] == (5, 5)  # the values rolled are recorded (a replay rolls the same)
    assert outcomes[False] > 0 and outcomes[True] == 0


# ---------------------------------------------------------------- cleansing
def test_cleansing_removes_x_markers_shared_out_as_the_player_names_them():
    """Cleansing (X, Pulse X"): "Remove up to X Control, Disease, Fire, Poison, or Spirit
    Block Markers from models within the Pulse"."""
    assert fe.effect_status("Cleansing") == (True, "")
    g = game(hero=("Cleansing",), places={"pal": (11.5, 10)})
    g.gain_condition("pal", "poisoned", 2, value=2)
    g.gain_condition("pal", "stunned", 1)
    g.gain_condition("hero", "diseased", 1)
    assert g.marker_count("pal", "poisoned") == 2
    # a name outside the card's five kinds, too many markers, or a model outside the Pulse: refused
    base = replace(next(a for a in g.legal_actions() if a.feat == "Cleansing"), x=2)
    assert not g.is_legal(replace(base, models=("pal:stunned",)))[0]
    assert not g.is_legal(replace(base, models=("pal:poisoned", "pal:poisoned", "hero:diseased")))[0]
    assert not g.is_legal(replace(base, x=1, models=("pal:poisoned", "hero:diseased")))[0]
    g.push(replace(base, models=("pal:poisoned", "hero:diseased")))
    assert g.marker_count("pal", "poisoned") == 1
    assert g.marker_count("hero", "diseased") == 0
    assert g.marker_count("pal", "stunned") == 1


def test_cleansing_pulse_is_x_inches():
    g = game(hero=("Cleansing",), places={"pal": (13.5, 10)})  # 2.3" edge to edge
    g.gain_condition("pal", "poisoned", 1, value=1)
    base = replace(next(a for a in g.legal_actions() if a.feat == "Cleansing"), x=2)
    ok, why = g.is_legal(replace(base, models=("pal:poisoned",)))
    assert not ok and "pal:poisoned" in why
    assert math.isclose(g.marker_count("pal", "poisoned"), 1)


# ---------------------------------------------------------------- unseen
def test_shadow_walk_only_out_of_every_enemys_sight():
    """Shadow Walk: "If this model is out of LoS of all Enemy models, place it within 3"" --
    refused while Fox (facing it) sees Hero; offered once Fox looks away."""
    assert fe.effect_status("Shadow Walk") == (True, "")
    g = game(hero=("Shadow Walk",))
    assert g.table_now().scene().los("fox", "hero").visible
    use = Action("feat", "hero", feat="Shadow Walk", point=(10, 7.5))
    ok, why = g.is_legal(use)
    assert not ok and "fox" in why and "LoS" in why
    set_model(g, "fox", facing=90.0)  # its back to Hero
    set_model(g, "far", facing=90.0)
    assert not g.table_now().scene().los("fox", "hero").visible
    ok, why = g.is_legal(use)
    assert ok, why
    g.push(use)
    assert g.state.models["hero"].position == pytest.approx((10, 7.5))


# ---------------------------------------------------------------- touching
def test_defensive_line_parry_only_while_touching_a_friendly_tengu_bushi():
    """Defensive Line: "while in BtB with another Friendly Tengu Bushi, this model and
    Friendly Tengu Bushi in BtB with this model gain Parry (+1)"; a model benefits once."""
    assert fe.effect_status("Defensive Line") == (True, "")
    tengu = ("tengu", "bushi")
    g = game(hero=("Defensive Line",), pal=("Defensive Line",), types={"hero": tengu, "pal": tengu},
             places={"pal": (11.18, 10)})  # in base contact
    _use(g, "Defensive Line")
    assert parry2(g, "hero") == [1] and parry2(g, "pal") == [1]
    assert parry2(g, "fox") == []
    # pal uses it too: still one Parry (+1) each (a model benefits from this feat once)
    set_model(g, "pal", ki=3)
    g.push(Action("feat", "pal", feat="Defensive Line"))
    assert parry2(g, "hero") == [1] and parry2(g, "pal") == [1]
    # apart: no Parry for either (the feat lasts, the contact does not)
    g2 = game(hero=("Defensive Line",), types={"hero": tengu, "pal": tengu}, places={"pal": (11.18, 10)})
    _use(g2, "Defensive Line")
    set_model(g2, "pal", position=[14, 10])
    assert parry2(g2, "hero") == [] and parry2(g2, "pal") == []
    set_model(g2, "pal", position=[11.18, 10])
    assert parry2(g2, "hero") == [1]


def parry2(g, mid):
    """The values of model ``mid``'s Parry traits now."""
    return [t.value for t in g.profile(mid).traits if t.keyword.lower() == "parry"]


def test_defensive_line_needs_both_keywords():
    g = game(hero=("Defensive Line",), types={"hero": ("tengu", "bushi"), "pal": ("tengu",)},
             places={"pal": (11.18, 10)})
    _use(g, "Defensive Line")
    assert parry2(g, "hero") == [] and parry2(g, "pal") == []


# ---------------------------------------------------------------- Ki costs and Ki ranges
def test_burden_on_society_raises_feat_and_boost_costs_inside_the_aura():
    """Burden on Society (Aura 6"): "When another model within the Aura ... uses a Ki Feat or
    Ki Boost, the cost in Ki Tokens is increased by one"."""
    assert fe.effect_status("Burden on Society") == (True, "")
    g = game(hero=("Burden on Society",), fox=("Spirit Bolt",), places={"fox": (10, 14)})
    assert g.feat_cost_modifier("fox") == 0
    _use(g, "Burden on Society")
    assert g.feat_cost_modifier("fox") == 1 and g.feat_cost_modifier("fox", boost=True) == 1
    assert g.feat_cost_modifier("far") == 0  # outside the Aura
    assert g.feat_cost_modifier("hero") == 0  # another model: not the user
    set_active(g, 2)
    before = g.state.models["fox"].ki
    g.push(next(a for a in g.legal_actions() if a.feat == "Spirit Bolt"))
    used = [e for e in g.events if e.kind == "feat_used" and e.data["feat"] == "Spirit Bolt"][-1]
    printed = g.feats("fox")["Spirit Bolt"].cost
    assert used.data["cost"] == printed + 1 and g.state.models["fox"].ki == before - printed - 1


def test_faith_lowers_the_target_villagers_feat_costs_until_the_action_is_resolved():
    assert fe.effect_status("Faith") == (True, "")
    g = game(hero=("Faith",), pal=("Spirit Bolt",), types={"pal": ("villager",)})
    _use(g, "Faith", target="pal")
    assert g.feat_cost_modifier("pal") == -1 and g.feat_cost_modifier("pal", boost=True) == 0
    assert g.feat_cost_modifier("hero") == 0
    g.push(Action("walk", "hero", point=(10, 8)))  # Hero's activation (its action) ends
    assert g.feat_cost_modifier("pal") == 0


def test_horrify_pulse_reaches_as_many_inches_as_the_ki_left():
    """Horrify (cost 2, Pulse X"): X = the Ki tokens left after paying. Fox stands 2.82"
    away (edge to edge): with 6 Ki the Pulse is 4" and reaches it; with 4 Ki it is 2"."""
    assert fe.effect_status("Horrify") == (True, "")
    for ki, frightened in ((6, True), (4, False)):
        g = game(hero=("Horrify",), places={"fox": (10, 14)})  # 4 - 1.18 = 2.82" edge to edge
        set_model(g, "hero", ki=ki)
        g.push(next(a for a in g.legal_actions() if a.feat == "Horrify"))
        assert (g.marker_count("fox", "frightened") > 0) is frightened, ki
        assert g.marker_count("far", "frightened") == 0


# ---------------------------------------------------------------- placed this activation
def test_rankiryu_reaches_only_models_placed_this_activation():
    """Rankiryu (Pulse 9"): "Models in the Pulse that have been Placed this activation gain a
    Spirit Block Marker" -- Hero places itself with Shadow Walk (p.23 Place) and then uses
    Rankiryu: Hero gains one, Pal (not placed) none; in a later activation the mark is old."""
    assert fe.effect_status("Rankiryu") == (True, "")
    g = game(hero=("Shadow Walk", "Rankiryu"))
    set_model(g, "fox", facing=90.0)
    set_model(g, "far", facing=90.0)
    g.push(Action("feat", "hero", feat="Shadow Walk", point=(10, 7.5)))
    g.push(Action("feat", "hero", feat="Rankiryu"))
    assert g.marker_count("hero", "spirit_block") == 1
    assert g.marker_count("pal", "spirit_block") == 0
    g2 = game(hero=("Rankiryu",))
    g2.push(Action("feat", "hero", feat="Rankiryu"))
    assert g2.marker_count("hero", "spirit_block") == 0 and g2.marker_count("pal", "spirit_block") == 0


# ---------------------------------------------------------------- touching terrain
def test_prehensile_tail_immovable_only_while_touching_impassable_terrain():
    assert fe.effect_status("Prehensile Tail") == (True, "")
    g = game(hero=("Prehensile Tail",))
    text = YAML.replace("terrain: []", "terrain:\n  - {id: rock, passage: impassable, visibility: blocking, "
                        "size: large, circle: {center: [7.41, 10], radius: 2}}")
    prof = g.table.model("hero").profile
    g = Game(parse_table(text.replace("HERO", prof).replace("PAL", g.table.model("pal").profile)
                         .replace("FOX", g.table.model("fox").profile), "<test>"), seed=1, length=("fixed", 3))
    set_active(g, 1)
    set_model(g, "hero", ki=6)
    g.push(Action("feat", "hero", feat="Prehensile Tail"))
    immovable = lambda: g.profile("hero").trait("Immovable") is not None  # noqa: E731
    assert immovable()  # hero's base (r 0.59 at x=10) touches the rock's edge at x=9.41
    set_model(g, "hero", position=[12.5, 12])
    assert not immovable()
    set_model(g, "hero", position=[10, 10])
    assert immovable()


# ---------------------------------------------------------------- a Pulse centred on the target
def test_whistling_shriek_pulse_on_the_target_as_wide_as_the_whole_inches_to_it():
    """Whistling Shriek (Target 6"): "Centre an X" Pulse on the Target. Models in the Pulse
    lose Sixth Sense. X is equal to the number of whole inches in the range to the Target."
    Fox is 4.82" away: X = 4; Pal 1.05" from Fox loses it, Hero (4.82" from Fox) keeps it;
    the card prints no end for the loss: until the End phase (reading, rulings_F2.md)."""
    from models.profiles import Trait

    assert fe.effect_status("Whistling Shriek") == (True, "")
    sixth = (Trait(keyword="sixth_sense", value=None, qualifier=None, text="Sixth Sense"),)
    g = game(hero=("Whistling Shriek",), places={"pal": (12, 17), "fox": (10, 16)},
             traits={"hero": sixth, "pal": sixth, "fox": sixth})
    has = lambda mid: g.profile(mid).trait("Sixth Sense") is not None  # noqa: E731
    assert has("hero") and has("pal") and has("fox")
    g.push(Action("ki_feat", "hero", feat="Whistling Shriek", target="fox"))
    assert not has("fox") and not has("pal") and has("hero")
    assert g.state.active == 2  # Hero's activation ended with its Simple feat; the loss lasts


def test_curse_fate_and_an_aura_survive_a_save_and_a_verified_load():
    """A game with Curse Fate (cursed dice read through the recorder) and Quagmire (Aura
    terrain) re-simulates to the same events from its save (the raw dice are saved)."""
    g = game(hero=("Curse Fate", "Quagmire"), places={"fox": (10, 16), "pal": (30, 5)})
    g.push(replace(next(a for a in g.legal_actions() if a.feat == "Quagmire"), x=2))
    set_active(g, 1)
    g.push(next(a for a in g.legal_actions() if a.feat == "Curse Fate"))
    if g.state.active == 2:
        g.push(Action("shoot", "fox", target="hero"))
    doc = g.to_json()
    again = Game.from_save(doc)
    assert [e.kind for e in again.events] == [e.kind for e in g.events]
    assert again.position() == g.position()


def test_stand_behind_me_gives_cover_as_terrain_until_the_activation_ends():
    """Stand Behind Me!: "This model grants Cover as if it were terrain until the end of the
    current activation" -- the words of Construct (p.50): Pal between Fox and Hero gives Hero
    Cover (Pal itself gets none from itself)."""
    assert fe.effect_status("Stand Behind Me!") == (True, "")
    g = game(pal=("Stand Behind Me!",), places={"pal": (10, 11.5), "fox": (10, 18)})
    set_model(g, "pal", ki=2)
    assert not g.table_now().scene().cover("fox", "hero").cover
    g.push(Action("feat", "pal", feat="Stand Behind Me!"))
    cov = g.table_now().scene().cover("fox", "hero")
    assert cov.cover and cov.piece == "pal"
    assert not g.table_now().scene().cover("fox", "pal").cover
    g.push(Action("walk", "hero", point=(10, 9.5)))  # still behind Pal; the activation ends
    assert g.profile("pal").trait("Construct") is None
    assert not g.table_now().scene().cover("fox", "hero").cover


def test_cleansing_flames_removes_destructible_terrain_in_the_pulse():
    """Cleansing Flames (Pulse 6"): "... Remove all Destructible Terrain in the Pulse." -- a
    Destructible hut 3.9" away goes, a barn 12.4" away stays; the markers part as before."""
    assert fe.effect_status("Cleansing Flames") == (True, "")
    g0 = game(hero=("Cleansing Flames",))
    text = YAML.replace("terrain: []", "terrain:\n"
                        "  - {id: hut, passage: impassable, visibility: blocking, size: large, traits: [Destructible],"
                        " rect: {center: [10, 4.5], width: 2, depth: 2}}\n"
                        "  - {id: barn, passage: impassable, visibility: blocking, size: large, traits: [Destructible],"
                        " rect: {center: [24, 10], width: 2, depth: 2}}")
    for who in ("HERO", "PAL", "FOX"):
        text = text.replace(who, g0.table.model(who.lower()).profile)
    g = Game(parse_table(text, "<test>"), seed=1, length=("fixed", 3))
    set_active(g, 1)
    set_model(g, "hero", ki=6)
    g.gain_condition("pal", "poisoned", 1, value=2)
    g.push(Action("ki_feat", "hero", feat="Cleansing Flames"))
    ids = {t.id for t in g.table_now().terrain}
    assert "hut" not in ids and "barn" in ids
    assert g.marker_count("pal", "poisoned") == 0 and g.marker_count("pal", "on_fire") == 1


def test_rage_against_time_pulse_is_the_turn_number():
    g = game(hero=("Rage Against Time",), places={"pal": (11.5, 10), "fox": (13.5, 10)})
    set_model(g, "hero", ki=6)
    assert g.state.turn == 1
    g.push(next(a for a in g.legal_actions() if a.feat == "Rage Against Time"))
    assert g.marker_count("pal", "berserk") == 1  # 0.32" away: inside a 1" Pulse
    assert g.marker_count("fox", "berserk") == 0  # 2.3" away
    assert g.marker_count("hero", "berserk") == 0


def test_threat_turns_enemies_that_end_a_move_in_the_aura_to_face_the_user():
    """Threat (Aura 6"): "Enemy models ending a move in the Aura or Placed into the Aura must
    turn to directly face this model. This Model loses Camouflage while using this Ki Feat."
    -- each time (no once-per-turn); a move ending outside turns nobody."""
    assert fe.effect_status("Threat") == (True, "")
    g = game(hero=("Threat",), places={"fox": (18, 17), "far": (30, 32)})
    g.push(Action("ki_feat", "hero", feat="Threat"))
    assert g.state.active == 2
    walk = Action("walk", "fox", point=(15, 14))  # ends 6.4 - 1.18 = 5.2" from Hero: inside
    assert g.is_legal(walk)[0]
    g.push(walk)
    want = math.degrees(math.atan2(10 - 14, 10 - 15)) % 360.0
    assert g.state.models["fox"].facing == pytest.approx(want)
    assert any("turns to face hero" in line for line in g.log())
    set_active(g, 2)
    walk = Action("walk", "far", point=(30, 28))  # far outside the Aura
    assert g.is_legal(walk)[0]
    g.push(walk)
    assert g.state.models["far"].facing == pytest.approx(270.0)


def test_shroud_hides_models_completely_inside_from_enemies_outside():
    """Shroud (Aura 2+X"): "Enemy models that are not in the Aura cannot draw LoS to models
    completely inside the Aura. Models completely in the Aura do not block Enemy model's
    LoS." -- with X = 1 (3"): Pal (Large, completely inside) no longer blocks Fox's sight of
    Far behind it; Fox (outside) loses sight of Hero and of Pal; an enemy inside still sees
    them."""
    assert fe.effect_status("Shroud") == (True, "")
    g = game(hero=("Shroud",), places={"pal": (10, 12.3), "fox": (10, 18), "far": (10, 5)}, large=("pal",))
    set_model(g, "hero", ki=6)
    assert not g.table_now().scene().los("fox", "far").visible  # Pal (Large) stands in the way
    g.push(Action("complex_ki_feat", "hero", feat="Shroud", x=1))
    assert g.table_now().scene().los("fox", "far").visible  # they are completely inside: no blockers
    g2 = game(hero=("Shroud",), places={"pal": (13, 10), "fox": (10, 18), "far": (30, 32)})
    set_model(g2, "hero", ki=6)
    assert g2.table_now().scene().los("fox", "hero").visible
    assert g2.table_now().scene().los("fox", "pal").visible
    g2.push(Action("complex_ki_feat", "hero", feat="Shroud", x=1))
    s2 = g2.table_now().scene()
    assert not s2.los("fox", "hero").visible and not s2.los("fox", "pal").visible
    # Far (an enemy) inside the Aura still sees Hero
    set_model(g2, "far", position=[11.5, 12], facing=225.0)
    assert g2.table_now().scene().los("far", "hero").visible


def test_darkness_limits_los_to_four_inches_except_sixth_sense():
    """Darkness: "Until the End Phase all Non-Soulless, Non-Sixth Sense, Non-Bakemono models
    may only draw LoS up to 4"." -- Fox 4.82" away loses sight of Hero; Hero loses sight of Fox;
    Far (Sixth Sense) still sees across 4.82"; models in base contact always see each other."""
    from models.profiles import Trait

    assert fe.effect_status("Darkness") == (True, "")
    sixth = (Trait(keyword="sixth_sense", value=None, qualifier=None, text="Sixth Sense"),)
    g = game(hero=("Darkness",), places={"fox": (10, 16), "pal": (30, 5)}, traits={"fox": ()})
    set_model(g, "hero", ki=6)
    assert g.table_now().scene().los("fox", "hero").visible
    g.push(Action("feat", "hero", feat="Darkness"))
    s = g.table_now().scene()
    assert not s.los("fox", "hero").visible and not s.los("hero", "fox").visible
    assert "4" in s.los("fox", "hero").reason
    # an enemy with Sixth Sense at the same distance still sees Hero
    g2 = game(hero=("Darkness",), places={"fox": (10, 16), "pal": (30, 5)}, traits={"fox": sixth})
    set_model(g2, "hero", ki=6)
    g2.push(Action("feat", "hero", feat="Darkness"))
    s2 = g2.table_now().scene()
    assert s2.los("fox", "hero").visible and not s2.los("hero", "fox").visible
    set_model(g2, "fox", position=[10, 11.18])  # base contact
    assert g2.table_now().scene().los("hero", "fox").visible


def test_fumeiryo_deploys_a_blocking_base_within_6_inches_until_the_end_phase():
    """Fumeiryo: "Deploy a 50mm base on the table within LoS and 6" of this model. Until the
    End Phase the area of the base is [Normal, Blocking, Large] terrain. This model cannot use
    this feat if it has no Ammo Tokens." -- refused without Ammo tokens, beyond 6" or over a
    model; deployed, it blocks Fox's sight of Hero."""
    assert fe.effect_status("Fumeiryo") == (True, "")
    g = game(hero=("Fumeiryo",), places={"fox": (10, 18), "pal": (30, 5)})
    use = Action("feat", "hero", feat="Fumeiryo", point=(10, 13))
    ok, why = g.is_legal(use)
    assert not ok and "Ammo" in why  # Ishi's Bow has no Ammo (X)
    ishi = g.printed_profile("hero")
    bow = replace(ishi.weapons[0], traits=tuple(ishi.weapons[0].traits) + ("Ammo (2)",))
    armed = replace(ishi, id=ishi.id + "-ammo", bs_id=ishi.bs_id + "-ammo", weapons=(bow,) + tuple(ishi.weapons[1:]))
    add_profile_source({armed.id: armed})
    text = YAML.replace("HERO", armed.id).replace("PAL", g.table.model("pal").profile).replace(
        "FOX", g.table.model("fox").profile)
    g = Game(parse_table(text, "<test>"), seed=1, length=("fixed", 3))
    set_active(g, 1)
    set_model(g, "hero", ki=6)
    set_model(g, "fox", position=[10, 18])
    set_model(g, "pal", position=[30, 5])
    assert g.table_now().scene().los("fox", "hero").visible
    assert not g.is_legal(replace(use, point=(10, 18.5)))[0]  # over Fox
    assert not g.is_legal(replace(use, point=(20, 10)))[0]  # 8.4" away
    offered = [a for a in g.legal_actions() if a.feat == "Fumeiryo"]
    assert offered and offered[0].point is not None
    ok, why = g.is_legal(use)
    assert ok, why
    g.push(use)
    piece = next(t for t in g.table_now().terrain if t.id == "deployed:hero:Fumeiryo")
    assert piece.visibility.value == "blocking" and piece.size.label == "large"
    assert not g.table_now().scene().los("fox", "hero").visible


def test_spirit_ward_kami_in_the_aura_may_not_move_closer():
    """Spirit Ward (Aura 6"): "While within this Aura, Kami, Gashadokuro, and Asura models
    cannot move closer to this model." -- a Kami Fox 5.8" away may walk away or sideways-out
    but not closer; a Fox without the keyword may; outside the Aura it is free."""
    assert fe.effect_status("Spirit Ward") == (True, "")
    g = game(hero=("Spirit Ward",), types={"fox": ("kami",)}, places={"fox": (10, 17), "pal": (30, 5)})
    set_model(g, "hero", ki=6)
    g.push(Action("complex_ki_feat", "hero", feat="Spirit Ward"))
    assert g.state.active == 2
    closer = Action("walk", "fox", point=(10, 14.5))
    ok, why = g.is_legal(closer)
    assert not ok and "warding Aura" in why
    assert g.is_legal(Action("walk", "fox", point=(10, 20)))[0]  # away
    assert g.is_legal(Action("walk", "fox", point=(13, 18)))[0]  # away and aside
    # far (no Kami) walks closer freely
    set_model(g, "far", position=[20, 12])
    assert g.is_legal(Action("walk", "far", point=(17, 12)))[0]
    # a Kami outside the Aura walks in freely, up to its edge
    set_model(g, "fox", position=[10, 24])
    assert g.is_legal(Action("walk", "fox", point=(10, 20)))[0]


def _with_ammo(g: Game) -> Game:
    """A copy of game ``g``'s table where Hero's Bow has Ammo (2) (Nuan's feats need a token)."""
    ishi = g.printed_profile("hero")
    bow = replace(ishi.weapons[0], traits=tuple(ishi.weapons[0].traits) + ("Ammo (2)",))
    armed = replace(ishi, id=ishi.id + "-ammo", bs_id=ishi.bs_id + "-ammo", weapons=(bow,) + tuple(ishi.weapons[1:]))
    add_profile_source({armed.id: armed})
    text = YAML.replace("HERO", armed.id).replace("PAL", g.table.model("pal").profile).replace(
        "FOX", g.table.model("fox").profile)
    out = Game(parse_table(text, "<test>"), seed=1, length=("fixed", 3))
    set_active(out, 1)
    set_model(out, "hero", ki=6)
    return out


def test_dashuhua_gives_cover_in_the_aura_and_fire_to_enemies_entering_it():
    """Dashuhua (Aura 3"): "Models in the Aura gain Cover. Enemy models Entering the Aura gain a
    On Fire (2) Marker." -- Hero and Pal (inside) have Cover from Fox, Fox walking in gains
    On Fire (2) each time it enters, not while it moves inside."""
    assert fe.effect_status("Dashuhua") == (True, "")
    g = _with_ammo(game(hero=("Dashuhua",)))
    set_model(g, "pal", position=[12, 10])
    set_model(g, "fox", position=[10, 17])
    set_model(g, "far", position=[30, 32])
    s = g.table_now().scene()
    assert not s.cover("fox", "hero").cover and not s.cover("fox", "pal").cover
    g.push(Action("feat", "hero", feat="Dashuhua"))
    s = g.table_now().scene()
    assert s.cover("fox", "hero").cover and s.cover("fox", "pal").cover
    assert not s.cover("hero", "fox").cover  # Fox is outside
    assert g.marker_count("fox", "on_fire") == 0  # in no Aura yet
    set_active(g, 2)
    walk = Action("walk", "fox", point=(10, 13.5))  # 3.5 - 1.18 = 2.32" from Hero: inside
    assert g.is_legal(walk)[0]
    g.push(walk)
    assert g.marker_count("fox", "on_fire") == 1
    assert g.table_now().scene().cover("hero", "fox").cover  # now in the Aura: Cover
