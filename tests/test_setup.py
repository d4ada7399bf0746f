"""Game set-up and deployment (sim.rules.setup): the roll-off, terrain placement by the
players, the zones of Baseline, Corner Square and Corner Edge deployment, deployment in
the rulebook's order with Scout and Flank, every refusal with its reason and page, saving,
restoring and undoing a set-up, and a whole set-up from an empty table to a legal Game.

Rulebook: Game Setup p.20, Placement p.22, Tactical tests p.28, Flank p.52, Scout p.57,
Terrain set-up p.62, Deployment p.63. Readings: docs/setup.md.
"""

from __future__ import annotations

import json
import math
from dataclasses import replace

import pytest
from conftest import BSDATA
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from shapely.geometry import Point

from models.profiles import Trait, get_profile
from sim.geometry import CONTACT, base_radius
from sim.rules.dice import ScriptedDice
from sim.rules.game import Game
from sim.rules.invariants import game_problems
from sim.rules.setup import (
    CORNER_EDGE,
    CORNER_SQUARE,
    EDGE_ZONE_DEPTH,
    GameSetup,
    Picker,
    SetupError,
    Step,
    TableChoice,
    WarbandChoice,
    bundled_warband,
    catalogues,
    make_zone,
    warband_file,
    zone_options,
)
from sim.table import DEFAULT_TABLE, load_table, placement_problems

R30, R40, R50, R60 = (base_radius(b) for b in (30, 40, 50, 60))
#: Six pieces that keep every set-up rule on a 24" table with the Shrines objectives.
SIX = [("hill", (5.5, 18)), ("pond", (12, 18.5)), ("bamboo-forest", (18.5, 18)), ("fog", (14.5, 5.5)),
       ("low-hedge", (6, 5)), ("statue", (12, 14))]


def sides():
    return {1: bundled_warband("default-1"), 2: bundled_warband("default-2")}


def custom(*profiles):
    """A warband of the given profiles (not saveable: tests of the rules only)."""
    return WarbandChoice("custom", tuple(profiles), {"kind": "custom"})


def with_traits(pid: str, *traits: Trait):
    p = get_profile(pid)
    return replace(p, traits=p.traits + traits)


SCOUT_1_4 = Trait("scout", 1, None, 'Scout (1/4")', 4.0)
SCOUT_2_2 = Trait("scout", 2, None, 'Scout (2/2")', 2.0)
FLANK = Trait("flank", None, None, "Flank")
TACTICIAN_2 = Trait("tactician", 2, None, "Tactician (2)")


def reasons(setup, step):
    return [r.code for r in setup.refusals(step)]


def to_zone(setup, choose_first=None):
    """Roll off (seeded), no terrain to place (fixed-terrain table), the chooser takes
    the south zone, the winner lets ``choose_first`` (default: the winner) deploy first."""
    setup.roll_off()
    setup.choose_zone(setup.to_act, "south")
    setup.choose_first(setup.to_act, choose_first or setup.roll.winner)
    return setup


def fixed_terrain_table(tmp_path, terrain="", width=24, depth=24):
    """A table file with terrain (so the players place none) and no models."""
    body = terrain or "  - {id: pond, preset: pond, circle: {center: [12, 15], radius: 1.5}}\n"
    p = tmp_path / "t.yaml"
    p.write_text(f"format: bushido-table/1\nname: t\ntable: {{width: {width}, depth: {depth}}}\nterrain:\n{body}")
    return TableChoice.file(p)


def line_up(setup, player):
    """Deploy every waiting model of ``player`` touching its baseline, left to right."""
    zone = setup.zones[player]
    x = 0.5
    for r in setup.waiting(player):
        x += r.radius
        y = r.radius if zone.id == "south" else setup.depth - r.radius
        setup.deploy(player, r.id, (x, y), 90 if zone.id == "south" else 270)
        x += r.radius + 0.5


# ------------------------------------------------------------------------- roll-off
def test_roll_off_ties_are_rolled_again_and_the_dice_are_recorded():
    s = GameSetup(TableChoice.blank(), None, sides(), dice=ScriptedDice([4, 4, 2, 5]))
    roll = s.roll_off()
    assert roll.winner == 2
    assert [(r[0][1], r[1][1]) for r in roll.rounds] == [(4, 4), (2, 5)]
    assert "tie" in roll.lines()[0] and "player 2 wins" in roll.lines()[1]
    assert s.steps[0].dice == (4, 4, 2, 5)


def test_roll_off_is_seeded():
    a = GameSetup(TableChoice.blank(), None, sides(), seed=11).roll_off()
    b = GameSetup(TableChoice.blank(), None, sides(), seed=11).roll_off()
    assert a == b


def test_scout_adds_its_highest_x_and_tactician_adds_dice_to_the_roll_off():
    w1 = custom(with_traits("kokkio", SCOUT_1_4), with_traits("ton", SCOUT_2_2))
    w2 = custom(with_traits("ishi", TACTICIAN_2))
    s = GameSetup(TableChoice.blank(), None, {1: w1, 2: w2}, dice=ScriptedDice([3, 4, 1, 2]))
    roll = s.roll_off()
    # player 1: one die (3) + Scout 2 = 5; player 2: three dice (4, 1, 2): 4 + 1 supporting = 5 -> tie on
    # the result, player 2 counts two dice to one: player 2 wins (p.27-28)
    assert roll.scout == {1: 2, 2: 0} and roll.tactician == {1: 0, 2: 2}
    (d1, f1), (d2, f2) = roll.rounds[0]
    assert (d1, f1) == ((3,), 5) and d2 == (4, 1, 2)
    assert roll.winner == (2 if f2 >= f1 else 1)


# ------------------------------------------------------------------------- terrain
def terrain_setup(scenario="shrines", dice=None, **kw):
    s = GameSetup(TableChoice.blank(), scenario, sides(), dice=dice or ScriptedDice([6, 1]), **kw)
    s.roll_off()  # player 1 wins: places the first piece
    return s


def test_terrain_alternates_from_the_roll_off_winner():
    s = terrain_setup()
    assert s.phase == "terrain" and s.to_act == 1
    assert reasons(s, Step("terrain", 2, preset="pond", point=(12, 18.5))) == ["not-your-turn"]
    s.place_terrain(1, "pond", (12, 18.5))
    assert s.to_act == 2


def test_stopping_needs_six_pieces_then_the_other_player_places_one_last_piece_and_the_stopper_chooses_the_zone():
    s = terrain_setup()
    for i, (preset, c) in enumerate(SIX[:5]):
        s.place_terrain(s.to_act, preset, c)
    assert reasons(s, Step("stop_terrain", s.to_act)) == ["min-pieces"]
    assert s.refusals(Step("stop_terrain", s.to_act))[0].page == "p.20"
    s.place_terrain(s.to_act, *SIX[5])
    assert s.to_act == 1
    s.stop_terrain(1)
    assert s.phase == "terrain" and s.to_act == 2  # one last piece for player 2
    s.place_terrain(2, "lone-tree", (21, 14.5))
    assert s.phase == "zone" and s.to_act == 1 and s.chooser == 1
    assert len(s.pieces) == 7


def test_the_other_player_may_decline_the_last_piece():
    s = terrain_setup()
    for preset, c in SIX:
        s.place_terrain(s.to_act, preset, c)
    s.stop_terrain(1)
    s.stop_terrain(2)
    assert s.phase == "zone" and s.chooser == 1


@pytest.mark.parametrize("preset,center,rotation,code,page", [
    ("pond", (2, 12), 0, "edge", "p.62"),                          # 2.5" radius: reaches within 2" of the edge
    ("house", (12, 0), 0, "off-table", "p.62"),
    ("wall", (12, 2.25), 0, "impassable-zone", "p.20"),             # in the baseline zones (2.37" deep)
    ("statue", (4.75, 12.0), 0, "impassable-objective", "p.20"),    # 1.5" from objective west's base
    ("fog", (10.75, 10.5), 0, "objective-terrain", "p.63"),         # on objective centre
    ("no-such-preset", (12, 12), 0, "preset", "p.60"),
])
def test_each_terrain_refusal_has_its_reason_and_page(preset, center, rotation, code, page):
    s = terrain_setup()
    why = s.refusals(Step("terrain", 1, preset=preset, point=center, rotation=rotation))
    assert code in [r.code for r in why]
    assert next(r for r in why if r.code == code).page == page


def test_terrain_touching_and_impassable_spacing_are_refused():
    s = terrain_setup(scenario=None)
    s.place_terrain(1, "house", (12, 12))                                 # 5 x 4, Impassable
    assert reasons(s, Step("terrain", 2, preset="pond", point=(12, 16.5))) == ["touching"]
    assert reasons(s, Step("terrain", 2, preset="statue", point=(16, 12))) == ["impassable-gap"]
    assert reasons(s, Step("terrain", 2, preset="statue", point=(17.3, 12))) == []   # 2.55" apart


def test_tournament_terrain_keeps_three_inches():
    s = terrain_setup(scenario=None, tournament=True)
    s.place_terrain(1, "pond", (12, 12))
    assert "tournament-gap" in reasons(s, Step("terrain", 2, preset="pond", point=(17.5, 12)))
    assert "tournament-zone" in reasons(s, Step("terrain", 2, preset="pond", point=(12, 6)))


def test_a_table_with_terrain_skips_terrain_placement_and_the_roll_off_winner_chooses(tmp_path):
    s = GameSetup(fixed_terrain_table(tmp_path), None, sides(), dice=ScriptedDice([2, 5]))
    s.roll_off()
    assert s.phase == "zone" and s.to_act == 2 and s.chooser == 2


# ------------------------------------------------------------------------- zones
def test_baseline_zone_bases_touching_the_edge():
    z = make_zone("baseline", "south")
    assert z.refusals((5, R30), R30) == []                          # exactly touching (p.63)
    assert z.refusals((5, R30 + CONTACT), R30) == []                # within the contact tolerance
    why = z.refusals((5, R30 + 0.02), R30)
    assert [r.code for r in why] == ["outside-zone"] and why[0].page == "p.63" and "0.02" in why[0].message
    n = make_zone("baseline", "north")
    assert n.refusals((20, 24 - R60), R60) == [] and n.opposite == "south"


def test_corner_square_zone_wholly_within_six_inches():
    z = make_zone("corner_square", "south-west")
    assert z.refusals((CORNER_SQUARE - R40, CORNER_SQUARE - R40), R40) == []   # touching two sides inside
    assert [r.code for r in z.refusals((CORNER_SQUARE - R40 + 0.01, 3), R40)] == ["outside-zone"]
    ne = make_zone("corner_square", "north-east", 24, 24)
    assert ne.refusals((24 - R30, 24 - 5.0), R30) == [] and z.opposite == "north-east"


def test_corner_edge_zone_touching_an_edge_within_eight_inches_of_the_corner():
    z = make_zone("corner_edge", "south-east", 24, 24)
    assert z.refusals((24 - CORNER_EDGE, R30), R30) == []           # touches the edge 8" from the corner
    assert z.refusals((24 - R30, CORNER_EDGE), R30) == []           # the other edge
    assert z.refusals((24 - R30, R30), R30) == []                   # in the corner
    assert z.refusals((24 - CORNER_EDGE - 0.1, R30), R30) == []   # still touches the segment's end
    assert [r.code for r in z.refusals((24 - CORNER_EDGE - 0.3, R30), R30)] == ["outside-zone"]
    assert [r.code for r in z.refusals((20, 3), R30)] == ["outside-zone"]


@pytest.mark.parametrize("kind", ["baseline", "corner_square", "corner_edge"])
def test_every_zone_is_on_the_table_and_opposite_zones_are_apart(kind):
    zones = {z.id: z for z in zone_options(kind, 24, 24)}
    for z in zones.values():
        assert z.shape.area > 0 and z.shape.bounds[0] >= 0 and z.shape.bounds[2] <= 24
        assert z.shape.distance(zones[z.opposite].shape) > 10


def test_scout_deploys_within_y_of_its_zone():
    z = make_zone("baseline", "south")
    assert z.scout_refusals((5, R30 + 4.0), R30, 4.0) == []          # base edge exactly 4" from the baseline
    why = z.scout_refusals((5, R30 + 4.05), R30, 4.0)
    assert [r.code for r in why] == ["outside-scout-zone"] and why[0].page == "p.57"
    assert z.scout_refusals((5, R30), R30, 0.0) == []                # a normal deployment is always allowed


# ------------------------------------------------------------------------- deployment
def test_deployment_order_first_player_then_the_other(tmp_path):
    s = to_zone(GameSetup(fixed_terrain_table(tmp_path), None, sides(), dice=ScriptedDice([6, 1])), choose_first=2)
    assert s.zones[1].id == "south" and s.zones[2].id == "north"
    assert s.phase == "deploy" and s.to_act == 2
    r1 = s.waiting(1)[0]
    assert reasons(s, Step("deploy", 1, model=r1.id, point=(3, r1.radius))) == ["not-your-turn"]
    line_up(s, 2)
    assert s.to_act == 1
    line_up(s, 1)
    assert s.phase == "done"


def test_every_deployment_refusal_has_its_reason(tmp_path):
    wall = "  - {id: wall, preset: wall, rect: {center: [20, 0.5], width: 6, depth: 0.5}}\n"
    s = to_zone(GameSetup(fixed_terrain_table(tmp_path, wall), None, sides(), dice=ScriptedDice([6, 1])))
    me = s.waiting(1)
    a, b = me[0], me[1]
    s.deploy(1, a.id, (5, a.radius))

    def why(model, point, player=1):
        return reasons(s, Step("deploy", player, model=model, point=point))

    assert why(b.id, (12, 12)) == ["outside-zone"]
    assert why(b.id, (b.radius - 0.2, b.radius)) == ["off-table"]
    assert why(b.id, (5 + a.radius, b.radius)) == ["overlap"]
    assert why(b.id, (20, b.radius)) == ["impassable"]
    assert why(a.id, (9, a.radius)) == ["deployed"]
    assert why("nobody", (9, 1)) == ["model"]
    enemy = s.waiting(2)[0]
    assert why(enemy.id, (9, 1)) == ["not-yours"]
    assert set(why(b.id, (12, 12))) == {"outside-zone"}
    several = s.refusals(Step("deploy", 1, model=b.id, point=(5.2, 12)))
    assert [r.code for r in several] == ["outside-zone"]
    assert all(r.page for r in s.refusals(Step("deploy", 1, model=b.id, point=(b.radius - 0.2, 3))))
    assert set(why(b.id, (b.radius - 0.2, 3))) == {"outside-zone", "off-table"}   # every reason, not the first


def test_a_model_is_not_placed_in_contact_with_an_enemy(tmp_path):
    a = get_profile("takashi-akira")
    b = get_profile("ishi")
    depth = 2 * (base_radius(a.base) + base_radius(b.base))  # the two baselines' bases exactly touch
    speck = ("  - {id: speck, polygon: [[11.8, 0], [12, 0], [12, 0.2]], passage: normal, visibility: open, "
             "size: zero}\n")
    s = to_zone(GameSetup(fixed_terrain_table(tmp_path, speck, 12, depth), None, {1: custom(a), 2: custom(b)},
                          dice=ScriptedDice([6, 1])))
    s.deploy(1, "takashi-akira", (6, base_radius(a.base)))
    why = s.refusals(Step("deploy", 2, model="ishi", point=(6, depth - base_radius(b.base))))
    assert [r.code for r in why] == ["enemy-contact"] and why[0].page == "p.22"


def test_scouts_wait_for_both_deployments_and_the_roll_off_winner_deploys_scouts_second(tmp_path):
    w1 = custom(get_profile("takashi-akira"), with_traits("kokkio", SCOUT_1_4))
    w2 = custom(get_profile("ishi"), with_traits("asp", SCOUT_1_4))
    s = to_zone(GameSetup(fixed_terrain_table(tmp_path), None, {1: w1, 2: w2}, dice=ScriptedDice([6, 1])))
    assert s.roll.winner == 1 and s.to_act == 1
    assert reasons(s, Step("done", 1)) == ["models-left"]
    s.deploy(1, "takashi-akira", (5, R30))
    s.done(1)                                                    # kokkio waits for the Scout deployment
    assert s.phase == "deploy" and s.to_act == 2
    s.deploy(2, "ishi", (5, 24 - R30))
    s.done(2)
    assert s.phase == "scouts" and s.to_act == 2                # the loser's Scouts first (p.57)
    asp = s.recruit("asp")
    assert reasons(s, Step("deploy", 2, model="asp", point=(12, 24 - asp.radius - 4.2))) == ["outside-scout-zone"]
    s.deploy(2, "asp", (12, 24 - asp.radius - 4.0))
    assert s.to_act == 1
    s.deploy(1, "kokkio", (12, R30 + 3.5))
    assert s.phase == "done"


def test_a_scout_may_also_deploy_normally_in_the_normal_deployment(tmp_path):
    w1 = custom(with_traits("kokkio", SCOUT_1_4))
    s = to_zone(GameSetup(fixed_terrain_table(tmp_path), None, {1: w1, 2: custom(get_profile("ishi"))},
                          dice=ScriptedDice([6, 1])))
    assert reasons(s, Step("deploy", 1, model="kokkio", point=(5, R30 + 2))) == ["outside-zone"]
    s.deploy(1, "kokkio", (5, R30))
    assert s.to_act == 2


def test_flank_models_are_held_back_with_a_turn_and_an_edge(tmp_path):
    w1 = custom(get_profile("takashi-akira"), with_traits("kokkio", FLANK))
    s = to_zone(GameSetup(fixed_terrain_table(tmp_path), None, {1: w1, 2: custom(get_profile("ishi"))},
                          dice=ScriptedDice([6, 1])))
    bad = s.refusals(Step("flank", 1, model="kokkio", turn=5, edge="up"))
    assert [r.code for r in bad] == ["flank-turn", "flank-edge"] and {r.page for r in bad} == {"p.52"}
    assert reasons(s, Step("flank", 1, model="takashi-akira", turn=2, edge="west")) == ["no-flank"]
    s.flank(1, "kokkio", 3, "west")
    s.deploy(1, "takashi-akira", (5, R30))
    s.deploy(2, "ishi", (5, 24 - R30))
    assert s.phase == "done" and s.flanking == {"kokkio": (3, "west")}
    g = s.game()
    assert [m.id for m in g.table.models] == ["takashi-akira", "ishi", "kokkio"]
    assert g.state.models["kokkio"].elsewhere == {"turn": 3, "edge": "west", "zone": "north"}
    assert not g.state.models["kokkio"].alive and not g.state.models["kokkio"].killed


def test_steps_out_of_phase_are_refused():
    s = GameSetup(TableChoice.blank(), None, sides())
    assert reasons(s, Step("zone", 1, zone="south")) == ["phase"]
    with pytest.raises(SetupError, match="not zone"):
        s.choose_zone(1, "south")
    with pytest.raises(SetupError):
        s.game()


def test_unknown_zone_is_refused_with_the_known_ones(tmp_path):
    s = GameSetup(fixed_terrain_table(tmp_path), "marked_for_death", sides(), dice=ScriptedDice([6, 1]))
    s.roll_off()
    why = s.refusals(Step("zone", 1, zone="south"))
    assert why[0].code == "zone" and "south-west" in why[0].message


# ------------------------------------------------------------------------- whole set-ups
def whole_setup(seed=3):
    s = GameSetup(TableChoice.blank(), "shrines", sides(), seed=seed)
    s.roll_off()
    for preset, c in SIX:
        s.place_terrain(s.to_act, preset, c)
    s.stop_terrain(s.to_act)
    s.stop_terrain(s.to_act)
    s.choose_zone(s.to_act, "south")
    s.choose_first(s.to_act, s.roll.winner)
    for _ in range(2):
        line_up(s, s.to_act)
    return s


def test_whole_setup_from_an_empty_table_to_a_legal_game():
    s = whole_setup()
    assert s.phase == "done"
    g = s.game()
    assert len(g.table.terrain) == 6 and len(g.table.models) == 12
    assert game_problems(g) == []
    assert placement_problems(g.table) == []
    assert g.position() == Game(s.table(), seed=3, scenario=s.game_scenario()).position()
    assert g.state.turn == 1 and g.scenario.name == "Shrines"


def test_a_table_that_places_the_models_is_set_up_at_once():
    s = GameSetup(TableChoice.file(DEFAULT_TABLE), "shrines", None, seed=7)
    assert s.phase == "done" and s.to_act is None
    assert s.game().position() == Game(load_table(DEFAULT_TABLE), seed=7, scenario="shrines").position()
    with pytest.raises(SetupError, match="already places the models"):
        GameSetup(TableChoice.file(DEFAULT_TABLE), None, sides())
    with pytest.raises(SetupError, match="warband for each player"):
        GameSetup(TableChoice.blank(), None, {1: bundled_warband("default-1")})


def test_save_restore_and_undo_one_step_back(tmp_path):
    s = whole_setup()
    path = tmp_path / "setup.json"
    s.save(path)
    r = GameSetup.load(path)
    assert r.steps == s.steps and r.table().to_dict() == s.table().to_dict()
    assert r.game().position() == s.game().position()
    last = r.undo()
    assert last.kind == "deploy" and r.phase == "deploy" and len(r.table().models) == 11
    r.apply(last)
    assert r.phase == "done"
    while r.steps:
        r.undo()
    assert r.phase == "roll_off"
    assert r.roll_off() == s.roll                                 # seeded dice rewound


def test_a_tampered_save_is_refused_naming_the_step(tmp_path):
    doc = whole_setup().to_dict()
    doc["steps"][3]["point"] = [1.0, 1.0]                        # a terrain piece at the table edge
    with pytest.raises(SetupError, match=r"steps\[3\] \(terrain\)"):
        GameSetup.from_dict(json.loads(json.dumps(doc)))
    with pytest.raises(SetupError, match="format"):
        GameSetup.from_dict({"format": "nope"})
    bad = tmp_path / "b.json"
    bad.write_text("{not json")
    with pytest.raises(SetupError, match="b.json"):
        GameSetup.load(bad)


def test_objectives_aligned_to_player_1_follow_the_southern_zone(tmp_path):
    pond = "  - {id: pond, preset: pond, circle: {center: [3.5, 15], radius: 1}}\n"
    s = GameSetup(fixed_terrain_table(tmp_path, pond), "six_stones", sides(), dice=ScriptedDice([1, 6]))
    s.roll_off()
    s.choose_zone(2, "south")                                     # player 2 takes the south: player 1 is north
    south = next(o for o in s.game_scenario().objectives if o.id == "south")
    assert south.alignment == 2


# ------------------------------------------------------------------------- warbands
@pytest.fixture(scope="module")
def cs():
    if not BSDATA.is_dir():
        pytest.skip(f"no BattleScribe data at {BSDATA}")
    return catalogues(BSDATA)


def test_picker_lists_factions_and_models_with_cost_and_checks_the_rice_limit(cs):
    p = Picker(cs, rice_limit=70, data=str(BSDATA))
    assert "Prefecture of Ryu" in p.factions() and "Ito Clan" in p.factions()
    p.set_faction("Prefecture of Ryu")
    entries = {e.id: e for e in p.available()}
    assert entries["takashi-akira"].rice == 18 and entries["takashi-akira"].base == 30
    for pid in ("takashi-akira", "kokkio", "takashi-kenta", "ton"):
        p.add(pid)
    assert p.rice == 18 + 12 + 21 + 14 and not p.problems()
    p.add("mizuchi")
    assert p.rice == 95
    rules = [(v.rule, v.page) for v in p.problems()]
    assert ("rice-limit", "p.19") in rules
    with pytest.raises(SetupError, match="over the limit of 70"):
        p.choice()
    p.remove("mizuchi")
    choice = p.choice()
    assert [q.id for q in choice.profiles] == ["takashi-akira", "kokkio", "takashi-kenta", "ton"]
    with pytest.raises(SetupError):
        p.add("ishi")                                              # an Ito Clan model


def test_picker_warband_saves_and_plays(cs):
    p = Picker(cs, "Ito Clan", 70, data=str(BSDATA))
    for pid in ("ishi", "ito-kaihime", "ito-masunagi"):
        p.add(pid)
    s = GameSetup(TableChoice.blank(), None, {1: sides()[1], 2: p.choice()}, seed=1)
    s.roll_off()
    for preset, c in SIX:
        s.place_terrain(s.to_act, preset, c)
    s.stop_terrain(s.to_act)
    s.stop_terrain(s.to_act)
    s.choose_zone(s.to_act, "north")
    s.choose_first(s.to_act, 1)
    line_up(s, 1)
    line_up(s, 2)
    r = GameSetup.from_dict(json.loads(json.dumps(s.to_dict())))
    assert r.game().position() == s.game().position()


def test_warband_file_and_roster(cs, tmp_path):
    f = tmp_path / "w.yaml"
    f.write_text("format: bushido-warband/1\nname: Claw\nfaction: Prefecture of Ryu\nrice: 70\n"
                 "models: [Takashi Akira, Kokkio]\n")
    w = warband_file(f, BSDATA)
    assert [p.id for p in w.profiles] == ["takashi-akira", "kokkio"] and w.cost == 30
    ros = tmp_path / "l.ros"
    ros.write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n<roster id="r" name="R" gameSystemId="62e4-ab79-1c4c-9ffe" '
        'xmlns="http://www.battlescribe.net/schema/rosterSchema"><costLimits><costLimit name="Rice" '
        'typeId="a111-8656-5c05-7415" value="70"/></costLimits><forces><force id="f" name="F" entryId="x" '
        'catalogueId="0cac-b8ad-fb7f-ef84" catalogueName="Prefecture of Ryu"><selections><selection id="s" '
        'name="Takashi Akira" entryId="c4ff-605f-469a-7ee4" number="1" type="model"/></selections></force>'
        '</forces></roster>')
    assert [p.id for p in warband_file(ros, BSDATA).profiles] == ["takashi-akira"]
    over = tmp_path / "o.yaml"
    over.write_text("format: bushido-warband/1\nfaction: Prefecture of Ryu\nrice: 20\n"
                    "models: [Takashi Akira, Kokkio]\n")
    with pytest.raises(SetupError, match="rice-limit|over the limit") as exc:
        warband_file(over, BSDATA)
    assert exc.value.reasons[0].page == "p.19"
    (tmp_path / "bad.yaml").write_text("format: bushido-warband/1\nfaction: [x\n")
    with pytest.raises(SetupError, match="bad.yaml"):
        warband_file(tmp_path / "bad.yaml", BSDATA)


def test_mirror_match_ids_are_unique():
    s = GameSetup(TableChoice.blank(), None, {1: sides()[1], 2: sides()[1]})
    ids = [r.id for r in s.recruits]
    assert len(ids) == len(set(ids)) and "takashi-akira-2" in ids


# ------------------------------------------------------------------------- properties
_KINDS = st.sampled_from(["baseline", "corner_square", "corner_edge"])


@pytest.fixture(scope="module")
def prop_table(tmp_path_factory):
    """A 24" table with terrain fixed: a hill, and a pond reaching into the south-west corner."""
    return fixed_terrain_table(tmp_path_factory.mktemp("prop"),
                               "  - {id: pond, preset: pond, circle: {center: [12, 15], radius: 1.5}}\n"
                               "  - {id: rock, preset: statue, rect: {center: [3, 1], width: 1, depth: 1}}\n")


def _prop_setup(kind, table, zone_index):
    scen = {"baseline": None, "corner_square": "marked_for_death", "corner_edge": "pilgrimage"}[kind]
    s = GameSetup(table, scen, sides(), dice=ScriptedDice([6, 1]))
    s.roll_off()
    options = s.zone_options()
    s.choose_zone(1, options[zone_index % len(options)].id)
    s.choose_first(1, 1)
    return s


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(kind=_KINDS, zone_index=st.integers(0, 3),
       picks=st.lists(st.tuples(st.floats(0, 1), st.one_of(st.floats(-0.02, 0.02), st.floats(0, 0.5)),
                                st.floats(0, 1)), min_size=1, max_size=8))
def test_any_accepted_deployment_passes_placement_problems_and_lies_in_its_zone(prop_table, kind, zone_index, picks):
    s = _prop_setup(kind, prop_table, zone_index)
    zone = s.zones[1]
    for along, off, which in picks:
        left = s.waiting(1)
        if not left:
            break
        r = left[int(which * (len(left) - 1))]
        # a point on the zone's core (an edge, or the square's outline), moved ``off``
        # inches from the table edges and the square's inner sides
        boundary = zone.core.boundary if zone.kind == "corner_square" else zone.core
        p = boundary.interpolate(along, normalized=True)
        lo, hi = r.radius + off, r.radius + off
        cx = min(max(p.x, lo), s.width - hi)
        cy = min(max(p.y, lo), s.depth - hi)
        if zone.kind == "corner_square":
            x0, y0, x1, y1 = zone.core.bounds
            cx, cy = min(max(cx, x0 + lo), x1 - hi), min(max(cy, y0 + lo), y1 - hi)
        if not s.refusals(Step("deploy", 1, model=r.id, point=(cx, cy))):
            s.deploy(1, r.id, (cx, cy))
            assert zone.shape.buffer(1e-6).contains(Point(cx, cy).buffer(r.radius, 32))
            assert not zone.refusals((cx, cy), r.radius)
    assert placement_problems(s.table()) == []


def test_edge_zone_depth_holds_a_60mm_base_touching_the_edge():
    assert math.isclose(EDGE_ZONE_DEPTH, 2 * R60 + CONTACT)
    z = make_zone("baseline", "south")
    assert z.shape.buffer(1e-9).contains(Point(12, R60 + CONTACT).buffer(R60, 64))


# ------------------------------------------------------------------------- the screens' pure flow
def test_a_files_terrain_without_its_models_is_deployed_on():
    s = GameSetup(TableChoice.terrain_of(DEFAULT_TABLE), None, sides(), dice=ScriptedDice([6, 1]))
    assert len(s.terrain()) == 10 and not s.table().models
    s.roll_off()
    assert s.phase == "zone" and s.chooser == 1


def test_flow_snaps_a_base_clicked_near_its_zone_into_it():
    from sim.view.play.setup_flow import SNAP, SetupFlow

    f = SetupFlow(seed=3, tables=[TableChoice.terrain_of(DEFAULT_TABLE)])
    assert f.start() and f.phase == "roll_off"
    f.roll()
    f.choose_zone("south")
    f.choose_first(f.setup.roll.winner)
    p = f.setup.to_act
    r = f.setup.recruit(f.selected)
    y0 = r.radius if f.setup.zones[p].id == "south" else 24 - r.radius
    inward = 1 if y0 < 12 else -1
    g = f.ghost((3.0, y0 + inward * (SNAP - 0.05)))
    assert g.legal and g.point == (3.0, y0)
    assert not f.ghost((3.0, y0 + inward * (SNAP + 0.3))).legal       # too far to snap: refused
    assert f.ghost((3.0, y0 - inward * 0.3)).point == (3.0, y0)        # half off the table: moved on
    assert f.click((3.0, y0 + inward * 0.4)) and f.setup.placed[r.id].position == (3.0, y0)


def test_flow_refuses_choices_it_cannot_use_with_every_reason():
    from sim.view.play.setup_flow import SetupFlow

    f = SetupFlow(seed=1)
    f.warbands[2] = None
    assert not f.start() and f.screen == "choose"
    assert f.refusals[0].code == "warbands"
    f.choose_table(f.table_labels().index("default: as laid out"))
    assert f.places_models() and f.start() and f.screen == "done"


def test_the_remaining_refusals_each_have_their_code(tmp_path):
    s = GameSetup(fixed_terrain_table(tmp_path), "shrines", sides(), dice=ScriptedDice([6, 1]))
    assert reasons(s, Step("teleport", 1)) == ["step"]
    s.roll_off()
    s.choose_zone(1, "south")
    assert reasons(s, Step("first", 1, first=3)) == ["first"]
    s.choose_first(1, 1)
    a = s.waiting(1)[0]
    assert reasons(s, Step("deploy", 1, model=a.id)) == ["invalid"]
    assert reasons(s, Step("deploy", 1, point=(3, a.radius))) == ["invalid"]
    assert reasons(s, Step("deploy", 1, model=a.id, point=(math.nan, a.radius))) == ["invalid"]
    # an objective on the baseline of a narrow table: a base on it is refused as on Impassable terrain
    with pytest.raises(SetupError, match="objective"):
        GameSetup(TableChoice.blank(24, 5), "shrines", sides())


def test_a_base_on_an_objective_is_refused(tmp_path):
    scen = {"format": "bushido-scenario/1", "name": "Edge stone", "types": ["objectives"], "deployment": "baseline",
            "length": {"kind": "fixed", "turn": 3},
            "objectives": {"base_mm": 30, "items": [{"id": "stone", "position": [12, 2.8], "alignment": "neutral"}]},
            "interactions": [{"kind": "influence", "action": "simple"}],
            "victory": [{"kind": "objectives", "vp": 3, "at": "end"}]}
    from sim.rules.scenario import scenario_from_dict

    s = GameSetup(fixed_terrain_table(tmp_path), scenario_from_dict(scen), sides(), dice=ScriptedDice([6, 1]))
    s.roll_off()
    s.choose_zone(1, "south")
    s.choose_first(1, 1)
    big = next(r for r in s.waiting(1) if r.radius > 1)           # kazuha's 60 mm base reaches 2.36"
    why = s.refusals(Step("deploy", 1, model=big.id, point=(12, big.radius)))
    assert [r.code for r in why] == ["impassable"] and "objective objective:stone" in why[0].message
