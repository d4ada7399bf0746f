"""Models Elsewhere and their Flank arrivals (issue 12): a model held back by Flank at
set-up starts Elsewhere -- off the table, out of LoS, ZoC and targets, without counters,
not killed, generating Ki -- and arrives in the Starting phase of its turn along its
edge, out of the opponent's zone, with two counters; every refusal has its reasons and
pages; saves, verified loads, take-backs and replays carry it; the set-up builds such a
game; the window's controller offers the arrival; the Deployment roll-off takes typed
dice.

Rulebook: Elsewhere p.5, Game Setup p.20 (Starting phase step 5), Place p.22, Tactical
tests p.28, Flank p.52. Readings: docs/rulings-project.md rows 50-53.
"""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from models.profiles import Trait, get_profile
from sim.geometry import base_radius
from sim.rules import movement
from sim.rules.bots import GreedyBot, RandomBot, play
from sim.rules.dice import ScriptedDice
from sim.rules.game import Action, Game, GameError
from sim.rules.setup import GameSetup, SetupError, Step, TableChoice, WarbandChoice, bundled_warband
from sim.table import load_table
from sim.view.play.controller import PlayController
from sim.view.play.setup_flow import SetupFlow

R30 = base_radius(30)
#: masunagi (player 2, beside akira on the default table) held back: turn 2, east edge,
#: kept out of player 1's zone (the south baseline).
HELD = {"masunagi": (2, "east", "south")}


def held_game(**kw) -> Game:
    kw.setdefault("length", ("fixed", 3))
    return Game(load_table(), seed=3, elsewhere=kw.pop("elsewhere", HELD), **kw)


def to_turn_two(g: Game) -> Game:
    """End turn 1 at once: a position where only akira has a counter left, then its Wait."""
    g.set_position({"turn": 1, "phase": "main", "active": 1,
                    "models": {"akira": {"position": [12.0, 12.0], "facing": 90.0, "counters": 1}}})
    g.push(Action("wait", "akira"))
    return g


def east(y: float, r: float = R30) -> tuple[float, float]:
    """A base centre touching the east edge of the 24" table at height ``y``."""
    return (24.0 - r, y)


# ------------------------------------------------------------------------- Elsewhere
def test_a_held_back_model_starts_elsewhere_not_killed_without_counters_and_generates_ki():
    g = held_game()
    m = g.state.models["masunagi"]
    assert not m.alive and not m.killed and m.elsewhere == {"turn": 2, "edge": "east", "zone": "south"}
    assert m.counters == 0 and m.ki == 2  # Elsewhere models generate Ki as usual (p.5), no counters
    assert [x.id for x in g.state.elsewhere(2)] == ["masunagi"] and len(g.state.in_game(2)) == 6
    assert "masunagi" not in [x.id for x in g.table_now().models]
    assert g.table.models[-1].id == "masunagi"  # held-back models come last
    line = next(t for t in g.log() if t.startswith("masunagi is held back"))
    assert "east" not in line and "turn 2" not in line  # hidden information (p.52)
    assert g.state.pass_tokens == {1: 0, 2: 0}  # it counts as a model of the warband (p.20 step 6)


def test_an_elsewhere_model_is_not_in_los_zoc_or_targets_before_it_arrives():
    g = held_game()
    table = g.table_now()
    assert "masunagi" not in set(table.scene().bodies)
    # akira stood in masunagi's ZoC; now it walks onto the spot where masunagi's base waits
    assert movement.check_walk(table, "akira", [(13.2, 12.7)]).legal
    for a in (Action("charge", "akira", target="masunagi"), Action("melee", "akira", target="masunagi"),
              Action("shoot", "kokkio", target="masunagi")):
        assert not g.is_legal(a)[0]
    assert all(a.target != "masunagi" and a.model != "masunagi" for a in g.legal_actions())
    ok, why = g.is_legal(Action("walk", "masunagi", point=(13, 13)))
    assert not ok and "no model 'masunagi' on the table" in why


def test_an_arrival_before_its_turn_is_refused_with_the_reason_and_page():
    g = held_game()
    ok, why = g.is_legal(Action("arrive", "masunagi", point=east(12)))
    assert not ok and "Starting phase of turn 2" in why and "(p.52)" in why
    ok, why = g.is_legal(Action("arrive", "akira", point=east(12)))
    assert not ok and "akira is not Elsewhere" in why and "(p.5)" in why


# ------------------------------------------------------------------------- arriving
def test_a_flank_model_arrives_on_its_turn_along_its_edge_with_two_counters():
    g = to_turn_two(held_game())
    st = g.state
    assert (st.turn, st.phase, g.to_move(), g.due_arrivals()) == (2, "start", 2, ["masunagi"])
    assert "Flank: on turn 2 masunagi (east edge) arrives (p.52)" in g.log()
    offered = g.legal_actions()
    assert offered and all(a.kind == "arrive" and a.model == "masunagi" for a in offered)
    assert all(abs(a.point[0] - (24 - R30)) < 1e-9 for a in offered)
    # nothing else may be declared until it is placed
    assert not g.is_legal(Action("wait", "ishi"))[0]
    with pytest.raises(GameError, match="must first arrive from the Flank"):
        g.push(Action("wait", "ishi"))
    events = g.push(Action("arrive", "masunagi", point=east(12.0), facing=200.0))
    assert [e.kind for e in events][:4] == ["arrive", "pass_tokens", "phase", "active"]
    m = st.models["masunagi"]
    assert m.alive and m.elsewhere is None and m.counters == 2 and m.position == east(12.0) and m.facing == 200.0
    assert st.phase == "main" and "masunagi" in [x.id for x in g.table_now().models]


def test_an_arrival_off_its_edge_in_the_opponents_zone_or_on_a_base_is_refused_with_every_reason():
    g = to_turn_two(held_game())
    why = g.arrival_refusals("masunagi", (20.0, 12.0))
    assert why == ['the base does not touch the east table edge (3.41" away); a Flank model is placed along its '
                   'chosen edge (p.52)']
    why = g.arrival_refusals("masunagi", east(R30))  # the south-east corner touches player 1's baseline
    assert len(why) == 1 and "opponent's deployment zone (south baseline)" in why[0] and why[0].endswith("(p.52)")
    assert g.arrival_refusals("masunagi", east(R30 + 0.02)) == []  # clear of the baseline
    why = g.arrival_refusals("masunagi", (24.0 - R30 + 0.3, 12.0))
    assert any("past the table edge (p.22)" in w for w in why)
    # kenta stands at (21.5, 10): a base there overlaps it and touches an enemy
    why = g.arrival_refusals("masunagi", (22.0, 10.0))
    assert any("overlaps the base of kenta" in w and "(p.22)" in w for w in why)
    assert any("does not touch the east table edge" in w for w in why)
    ok, text = g.is_legal(Action("arrive", "masunagi", point=(20.0, 12.0)))
    assert not ok and "(p.52)" in text
    with pytest.raises(GameError, match="does not touch the east table edge"):
        g.push(Action("arrive", "masunagi", point=(20.0, 12.0)))
    assert g.due_arrivals() == ["masunagi"] and not g.actions[-1].kind == "arrive"  # nothing pushed


def test_the_first_player_places_first_and_the_main_phase_waits_for_every_arrival():
    g = to_turn_two(held_game(elsewhere={"masunagi": (2, "east", "south"), "kokkio": (2, "west", "north")}))
    first = g.state.first
    assert g.to_move() == first and g.state.models[g.due_arrivals()[0]].player == first
    other = next(m for m in g.due_arrivals() if g.state.models[m].player != first)
    ok, why = g.is_legal(Action("arrive", other, point=g.arrival_actions()[0].point))
    assert not ok and "places its Flank models first" in why
    g.push(g.legal_actions()[0])
    assert g.state.phase == "start" and g.to_move() == 3 - first and g.due_arrivals() == [other]
    g.push(g.legal_actions()[-1])
    assert g.state.phase == "main" and not g.due_arrivals() and g.to_move() == first


# ------------------------------------------------------------------------- saves
def test_save_verified_load_take_back_and_replay_carry_the_elsewhere_model_and_its_arrival(tmp_path):
    g = to_turn_two(held_game())
    g.push(Action("arrive", "masunagi", point=east(14.0)))
    g.push(g.legal_actions()[0])
    path = tmp_path / "flank.json"
    g.save(path)
    doc = json.loads(path.read_text())
    assert "masunagi" not in [m["id"] for m in doc["table"]["models"]]
    assert [(h["model"]["id"], h["turn"], h["edge"], h["zone"]) for h in doc["elsewhere"]] == \
        [("masunagi", 2, "east", "south")]
    h = Game.load(path)
    assert h.verified and h.snapshot() == g.snapshot() and h.events == g.events
    assert g.replay().snapshot() == g.snapshot()
    h.pop()
    h.pop()
    assert h.due_arrivals() == ["masunagi"] and not h.state.models["masunagi"].alive
    # the position reads back, the arrived model's entry saying so
    pos = g.position()
    assert pos["models"]["masunagi"]["alive"] is True and pos["models"]["masunagi"]["elsewhere"] is None
    assert Game(load_table(), seed=3, elsewhere=HELD, position=pos).position() == pos
    # a save whose held-back model arrives on another turn is refused, naming the entry
    doc["elsewhere"][0]["turn"] = 3
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc))
    with pytest.raises(GameError, match=r"bad\.json: events\["):
        Game.load(bad)
    doc["elsewhere"][0]["edge"] = "up"
    bad.write_text(json.dumps(doc))
    with pytest.raises(GameError, match="the edge is one of north, south, east, west"):
        Game.load(bad)


def test_bots_place_their_flank_models_and_play_the_game_to_its_end():
    for bots in ((GreedyBot(1), GreedyBot(2)), (RandomBot(1), RandomBot(2))):
        g = play(held_game(length=("fixed", 2)), bots)
        assert g.is_over() and any(e.kind == "arrive" and e.data["model"] == "masunagi" for e in g.events)


def test_a_bad_elsewhere_entry_is_refused():
    with pytest.raises(GameError, match="no model 'nobody' on the table"):
        held_game(elsewhere={"nobody": (2, "east")})
    with pytest.raises(GameError, match="the turn is a whole number 1..7"):
        held_game(elsewhere={"masunagi": (9, "east")})
    with pytest.raises(GameError, match="is held back by Flank; a VIM loses Flank"):
        held_game(scenario="marked_for_death", vims={1: "akira", 2: "masunagi"})


# ------------------------------------------------------------------------- set-up
def _flank_setup(tmp_path, dice):
    flanker = replace(get_profile("kokkio"), traits=get_profile("kokkio").traits + (Trait("flank", None, None,
                                                                                         "Flank"),))
    w1 = WarbandChoice("custom", (get_profile("takashi-akira"), flanker), {"kind": "custom"})
    p = tmp_path / "t.yaml"
    p.write_text("format: bushido-table/1\nname: t\ntable: {width: 24, depth: 24}\nterrain:\n"
                 "  - {id: pond, preset: pond, circle: {center: [12, 15], radius: 1.5}}\n")
    return GameSetup(TableChoice.file(p), None, {1: w1, 2: WarbandChoice("custom", (get_profile("ishi"),),
                                                                         {"kind": "custom"})}, dice=dice)


def test_a_whole_setup_with_a_flank_model_gives_a_game_where_it_arrives(tmp_path):
    s = _flank_setup(tmp_path, None)
    assert s.roll_off([6, 1]).winner == 1  # typed values (physical dice)
    s.choose_zone(1, "south")
    s.choose_first(1, 1)
    opts = {(t, e): [r.code for r in why] for t, e, why in s.flank_options(1, "kokkio")}
    assert opts[(2, "north")] == ["flank-edge-zone"] and opts[(2, "west")] == [] and len(opts) == 12
    with pytest.raises(SetupError, match="every place along the north edge is in the opponent's deployment zone"):
        s.flank(1, "kokkio", 3, "north")
    s.flank(1, "kokkio", 2, "west")
    s.deploy(1, "takashi-akira", (5, R30), 90)
    s.deploy(2, "ishi", (5, 24 - R30), 270)
    g = s.game(length=("fixed", 2))
    assert g.held_back["kokkio"].to_json() == {"turn": 2, "edge": "west", "zone": "north"}
    play(g, (RandomBot(3), RandomBot(4)))
    arrived = [e for e in g.events if e.kind == "arrive"]
    assert len(arrived) == 1 and arrived[0].data["edge"] == "west" and arrived[0].data["to"][0] == pytest.approx(R30)


def test_the_physical_dice_roll_off_takes_typed_values_and_asks_for_more_after_a_tie(tmp_path):
    s = GameSetup(TableChoice.blank(), None, {1: bundled_warband("default-1"), 2: bundled_warband("default-2")})
    assert s.roll_off_dice() == (1, 1)
    assert [(r.code, r.page) for r in s.refusals(Step("roll_off", dice=(3, 3)))] == [("dice-needed", "p.28")]
    assert "2 more d6 needed (the roll-off is tied: roll again)" in s.refusals(Step("roll_off", dice=(3, 3)))[0].message
    assert [r.code for r in s.refusals(Step("roll_off", dice=(7, 1)))] == ["dice"]
    assert [r.code for r in s.refusals(Step("roll_off", dice=(6, 1, 4)))] == ["dice-left"]
    with pytest.raises(SetupError, match="1 more d6 needed"):
        s.roll_off([5])
    roll = s.roll_off([3, 3, 2, 5])
    assert roll.winner == 2 and s.steps[0].dice == (3, 3, 2, 5)
    again = GameSetup.from_dict(s.to_dict())  # the typed values replay
    assert again.roll == roll
    # the window's flow: the values typed before a tie are kept
    f = SetupFlow(seed=1, catalogue_dir=None, physical=True)
    f.choose_table(0)
    assert f.start()
    assert f.roll() is None and f.refusals[0].code == "dice-needed" and "Player 1 rolls 1 d6" in f.roll_off_prompt()
    assert f.roll([4, 4]) is None and f.typed_dice == [4, 4] and "typed so far: 4 4" in f.roll_off_prompt()
    got = f.roll([1, 6])
    assert got is not None and got.winner == 2 and f.setup.steps[0].dice == (4, 4, 1, 6) and f.typed_dice == []


def test_the_setup_flow_offers_the_flank_choices_of_the_selected_model(tmp_path):
    f = SetupFlow(seed=1, catalogue_dir=None)
    f.setup = _flank_setup(tmp_path, ScriptedDice([6, 1]))
    f.screen = "table"
    f.roll()
    f.choose_zone("south")
    f.choose_first(1)
    f.select("takashi-akira")
    assert not f.can_flank() and f.flank_options() == []
    f.select("kokkio")
    assert f.can_flank()
    allowed = [(t, e) for t, e, why in f.flank_options() if not why]
    assert (2, "north") not in allowed and (4, "east") in allowed and len(allowed) == 9
    assert f.flank(4, "east") and f.message == "kokkio is held back to Flank: done"
    assert f.setup.flanking == {"kokkio": (4, "east")}


# ------------------------------------------------------------------------- the window
def test_the_window_menu_offers_the_arrival_and_places_the_model_against_its_edge():
    g = to_turn_two(held_game())
    c = PlayController(g, bots={1: GreedyBot(1)})
    assert c.model_at_active() == ["masunagi"]
    c.select("masunagi")
    (item,) = c.menu()
    assert (item.key, item.enabled, item.needs) == ("arrive", True, "point") and item.options
    assert c.choose("arrive") is not None
    p = c.point((20.0, 11.0))  # dragged inside the table: put against the east edge
    assert p.legal and p.action.point == pytest.approx(east(11.0)) and p.action.facing == 180.0
    p = c.turn(135.0)
    assert p.legal and p.action.facing == 135.0
    events = c.confirm()
    assert events[0].kind == "arrive" and g.state.models["masunagi"].alive and g.state.phase == "main"


def test_physical_roll_off_with_nothing_typed_asks_and_never_rolls_the_seeded_dice():
    f = SetupFlow(seed=1, catalogue_dir=None, physical=True)
    f.choose_table(0)
    assert f.start()
    assert f.roll([]) is None and f.refusals[0].code == "dice-needed"
    assert f.setup.roll is None  # nothing was rolled for the players
    assert f.roll([4, 4]) is None and f.roll([]) is None and f.typed_dice == [4, 4]


def test_the_end_summary_counts_an_elsewhere_model_as_left_not_lost():
    g = held_game(length=("fixed", 1))
    c = PlayController(g)
    held = [mid for mid, m in g.state.models.items() if m.elsewhere is not None]
    assert held
    p = g.state.models[held[0]].player
    total = sum(1 for m in g.state.models.values() if m.player == p)
    line = next(x for x in c.summary() if x.startswith(f"Player {p}:"))
    assert line == f"Player {p}: {total} of {total} models left"
    assert any("Elsewhere (never arrived)" in x for x in c.summary())
