"""Scenarios (Scenario rules p.63, seed lines 1920-2075): the ``bushido-scenario/1``
loader and every bad input, the bundled scenarios on the default table, objective
pieces in the geometry, interactions, zones, VIMs, the Start and End phases, and
property tests (VP never above 3, JSON round trip, Influence monotone)."""

from __future__ import annotations

import copy
import json
import math
from types import SimpleNamespace

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sim.geometry import Body, Passage, Scene, Size, Visibility, base_radius
from sim.rules.scenario import (
    SCENARIO_DIR,
    ActionRefused,
    ScenarioError,
    ScenarioState,
    check_against_table,
    describe,
    end_phase,
    facing_towards,
    final_result,
    in_contact_with_objective,
    initial_state,
    interact,
    interaction_refusal,
    list_scenarios,
    load_scenario,
    objective_pieces,
    parse_scenario,
    record_kill,
    scenario_actions,
    scenario_from_dict,
    start_phase,
    vim_refusal,
    zone_contains_base,
    zone_controller,
)
from sim.table import load_table

BUNDLED = ("crossroads", "marked_for_death", "pilgrimage", "shrines", "six_stones")
R30 = base_radius(30)


@pytest.fixture(scope="module")
def table():
    return load_table()


def scen(name):
    return load_scenario(name)


def base_doc(name="shrines") -> dict:
    return yaml.safe_load((SCENARIO_DIR / f"{name}.yaml").read_text())


def from_doc(doc, **kw):
    return scenario_from_dict(doc, source="t.yaml", **kw)


def play_turn(s, state, turn, last=False, models=(), killed=(), choose=None):
    """start_phase + end_phase of one turn with nothing in between."""
    state, _ = start_phase(s, state, turn)
    return end_phase(s, state, turn, last, models, killed, choose)


# ------------------------------------------------------------------ bundled scenarios
def test_bundled_scenarios_are_listed_and_load():
    assert set(BUNDLED) <= set(list_scenarios())
    for name in BUNDLED:
        s = load_scenario(name)
        assert s.key == name and s.source.endswith(f"{name}.yaml")
        assert describe(s)[0].startswith(s.name)
        # a path works as well as a bare name
        assert load_scenario(SCENARIO_DIR / f"{name}.yaml") == s
        assert load_scenario(str(SCENARIO_DIR / f"{name}.yaml")) == s


@pytest.mark.parametrize("name", BUNDLED)
def test_bundled_scenario_fits_the_default_table(name, table):
    """No objective overlaps terrain or a model base on data/tables/default.yaml, ids do
    not collide, zones are on the table and hold no Impassable terrain, no Impassable
    piece stands within 2" of an objective (rulings 9)."""
    s = load_scenario(name)
    assert check_against_table(s, table) == []
    assert check_against_table(s, table, setup=True) == []  # nor the set-up rules (Impassable 2" away)
    # every objective can be reached: some 30 mm base touching it stands clear of
    # Impassable terrain and other objectives, wholly on the table
    pieces = [t for t in table.terrain if t.passage is Passage.IMPASSABLE]
    for o in s.objectives:
        spots = 0
        for k in range(72):
            a = math.radians(5 * k)
            d = o.radius + R30 + 0.005
            c = (o.position[0] + d * math.cos(a), o.position[1] + d * math.sin(a))
            if not (R30 <= c[0] <= 24 - R30 and R30 <= c[1] <= 24 - R30):
                continue
            if any(t.footprint.overlap_depth_disc(c, R30) > 0 for t in pieces):
                continue
            if any(math.dist(c, p.position) < p.radius + R30 for p in s.objectives if p is not o):
                continue
            assert in_contact_with_objective(c, R30, o)
            spots += 1
        assert spots >= 4, (name, o.id)


def test_bundled_scenarios_are_the_described_ones():
    sh = scen("shrines")
    assert sh.types == ("objectives",) and sh.base_mm == 30 and len(sh.objectives) == 3
    assert [(i.kind, i.action, i.tokens) for i in sh.interactions] == \
        [("prayer", "simple", 3), ("influence", "simple", None)]
    assert [(a.kind, a.vp, a.at) for a in sh.victory] == [("scenario_points", 2, "end"), ("objectives", 1, "end")]
    six = scen("six_stones")
    assert len(six.objectives) == 6 and six.base_mm == 50 and six.rules == ("decreasing_scorer",)
    assert six.length == ("variable", 5) and [a.at for a in six.victory] == [2, 4, "end"]
    cr = scen("crossroads")
    assert [z.id for z in cr.zones] == ["crossing", "west-field", "east-field"]
    assert [z.alignment for z in cr.zones] == [None, 1, 2] and cr.reset_scenario_points == (4,)
    mfd = scen("marked_for_death")
    assert mfd.vim == "open" and set(mfd.types) == {"vim", "objectives"}
    pil = scen("pilgrimage")
    assert pil.interaction("worship") and pil.rules == ("decreasing_popular",) and pil.reset_alignment == (3, 5)


@pytest.mark.parametrize("name", BUNDLED)
def test_to_dict_round_trips(name):
    s = load_scenario(name)
    again = scenario_from_dict(s.to_dict())
    assert again == s
    assert parse_scenario(yaml.safe_dump(s.to_dict()), "x.yaml") == s


# --------------------------------------------------------------- objective pieces
def test_objective_pieces_are_impassable_blocking_sized_by_base(table):
    pieces = objective_pieces(scen("shrines"))
    assert [p.id for p in pieces] == ["objective:west", "objective:centre", "objective:east"]
    for p in pieces:
        assert (p.passage, p.visibility, p.size) == (Passage.IMPASSABLE, Visibility.BLOCKING, Size.SMALL)
        assert p.footprint.is_circle and math.isclose(p.footprint.radius, R30)
        assert p.attributes == "[Impassable, Blocking, Small]"
    assert {p.size for p in objective_pieces(scen("six_stones"))} == {Size.LARGE}
    ids = {t.id for t in table.terrain} | {m.id for m in table.models}
    assert not ids & {p.id for p in pieces}
    # a size override in the file
    doc = base_doc()
    doc["objectives"]["size"] = "huge"
    s = from_doc(doc)
    assert {p.size for p in objective_pieces(s)} == {Size.HUGE}
    assert from_doc(s.to_dict()) == s


def test_removed_objectives_leave_the_table():
    s = scen("six_stones")
    state = replace_state(initial_state(s), removed=("north",))
    assert "objective:north" not in {p.id for p in objective_pieces(s, state)}
    assert len(objective_pieces(s, state)) == 5


def replace_state(state, **kw):
    from dataclasses import replace
    return replace(state, **kw)


def test_objective_blocks_los_by_its_size():
    """A 50 mm objective is a Large Blocking element: it blocks LoS between two Small
    models close behind it, but not when one of them is Huge (rulings 4: an element
    blocks when its size >= the larger of the two models)."""
    obj = objective_pieces(scen("six_stones"))[0]  # south, 50 mm
    x, y = obj.footprint.center

    def los(size_a):
        a = Body("a", (x - 1.7, y), R30, size_a, 0.0)
        b = Body("b", (x + 1.7, y), R30, Size.SMALL, 180.0)
        return Scene([a, b], [obj.to_piece()]).los("a", "b")

    assert los(Size.SMALL).visible is False and los(Size.SMALL).blocked_by == ("objective:south",)
    assert los(Size.LARGE).visible is False
    assert los(Size.HUGE).visible is True


def test_check_against_table_reports_overlaps_and_ids(table):
    doc = base_doc()
    doc["objectives"]["items"][0]["position"] = [12.0, 12.5]   # on akira
    doc["objectives"]["items"][1]["position"] = [6.5, 14.5]    # inside the house
    s = from_doc(doc)
    rules = {(i.rule, i.pieces) for i in check_against_table(s, table)}
    assert ("objective-model", ("objective:west", "akira")) in rules
    assert ("objective-terrain", ("objective:centre", "house")) in rules
    fake = SimpleNamespace(width=12, depth=12, models=(),
                           terrain=(SimpleNamespace(id="objective:east", footprint=table.terrain[0].footprint,
                                                    passage=Passage.NORMAL),))
    found = {i.rule for i in check_against_table(scen("shrines"), fake)}
    assert {"id", "off-table"} <= found
    assert check_against_table(scen("shrines"), table, setup=True) == []  # laid out for this table
    doc = base_doc()
    doc["objectives"]["items"][0]["position"] = [5.0, 11.5]  # 0.41" from the house
    setup = {(i.rule, i.pieces) for i in check_against_table(from_doc(doc), table, setup=True)}
    assert ("impassable-objective", ("objective:west", "house")) in setup


# ---------------------------------------------------------------- loader: bad input
def _set(path, value):
    def f(doc):
        cur = doc
        for k in path[:-1]:
            cur = cur[k]
        if value is _DEL:
            del cur[path[-1]]
        else:
            cur[path[-1]] = value
    return f


_DEL = object()

BAD = [
    # (base scenario, mutation, entry, words in the problem)
    ("shrines", _set(("format",), "bushido-scenario/2"), "format", "unknown value 'bushido-scenario/2'"),
    ("shrines", _set(("name",), _DEL), "name", "missing field"),
    ("shrines", _set(("name",), ""), "name", "at least 1 character"),
    ("shrines", _set(("colour",), "red"), "colour", "unknown field"),
    ("shrines", _set(("types",), []), "types", "at least 1 item"),
    ("shrines", _set(("types",), ["objectives", "objectives"]), "types", "listed twice"),
    ("shrines", _set(("types",), ["capture"]), "types[0]", "unknown value 'capture'"),
    ("shrines", _set(("types",), ["objectives", "vim"]), "types", "type 'vim' needs a 'vim' section"),
    ("shrines", _set(("types",), ["objectives", "zone_control"]), "types", "needs a 'zones' section"),
    ("crossroads", _set(("types",), ["vim"]), "types", "needs a 'vim' section"),
    ("marked_for_death", _set(("types",), ["objectives"]), "vim", "needs 'vim' in types"),
    ("shrines", _set(("deployment",), "diagonal"), "deployment", "unknown value 'diagonal'"),
    ("shrines", _set(("length",), {"kind": "fixed", "turn": 8}), "length.turn", "less than or equal to 7"),
    ("shrines", _set(("length",), {"kind": "fixed", "turn": 0}), "length.turn", "greater than or equal to 1"),
    ("shrines", _set(("length",), {"kind": "endless", "turn": 3}), "length.kind", "unknown value 'endless'"),
    ("shrines", _set(("length",), {"kind": "fixed", "turn": "6"}), "length.turn", "valid integer"),
    ("shrines", _set(("objectives", "base_mm"), 40), "objectives.base_mm", "unknown value 40"),
    ("shrines", _set(("objectives", "items"), []), "objectives.items", "at least 1 item"),
    ("shrines", _set(("objectives", "items", 2, "position"), [30, 12]), "objectives.items[2].position",
     "not wholly on the 24\" x 24\" table"),
    ("shrines", _set(("objectives", "items", 2, "position"), [0.2, 12]), "objectives.items[2].position",
     "not wholly on the"),
    ("shrines", _set(("objectives", "items", 2, "position"), [1, 2, 3]), "objectives.items[2].position",
     "must be a point [x, y]"),
    ("shrines", _set(("objectives", "items", 2, "position"), [float("nan"), 3]), "objectives.items[2].position[0]",
     "finite number"),
    ("shrines", _set(("objectives", "items", 2, "position"), ["a", 3]), "objectives.items[2].position[0]",
     "valid number"),
    ("shrines", _set(("objectives", "items", 2, "position"), [11.15, 10.7]), "objectives.items[2].position",
     "overlaps objective 'centre'"),
    ("shrines", _set(("objectives", "items", 1, "id"), "west"), "objectives.items[1]", "duplicate id 'west'"),
    ("shrines", _set(("objectives", "items", 1, "id"), "a:b"), "objectives.items[1].id", "may not contain ':'"),
    ("shrines", _set(("objectives", "items", 1, "alignment"), "player3"), "objectives.items[1].alignment",
     "unknown value 'player3'"),
    ("shrines", _set(("objectives", "items", 1, "id"), _DEL), "objectives.items[1].id", "missing field"),
    ("shrines", _set(("objectives", "size"), "colossal"), "objectives.size", "unknown value 'colossal'"),
    ("shrines", _set(("interactions",), []), "interactions", "at least one interaction"),
    ("shrines", _set(("interactions", 0, "tokens"), _DEL), "interactions[0]", "prayer needs tokens"),
    ("shrines", _set(("interactions", 0, "tokens"), 0), "interactions[0].tokens", "greater than or equal to 1"),
    ("shrines", _set(("interactions", 1, "tokens"), 2), "interactions[1]", "tokens are only for prayer"),
    ("shrines", _set(("interactions", 1, "kind"), "prayer"), "interactions[1]", "prayer needs tokens"),
    ("shrines", _set(("interactions", 1), {"kind": "prayer", "action": "simple", "tokens": 2}),
     "interactions[1].kind", "listed twice"),
    ("shrines", _set(("interactions", 1, "action"), "free"), "interactions[1].action", "unknown value 'free'"),
    ("shrines", _set(("interactions", 1, "kind"), "bribe"), "interactions[1].kind", "unknown value 'bribe'"),
    ("crossroads", _set(("interactions",), [{"kind": "influence", "action": "simple"}]), "interactions[0]",
     "need an 'objectives' section"),
    ("shrines", _set(("rules",), ["decreasing_scorer", "decreasing_scorer"]), "rules", "listed twice"),
    ("shrines", _set(("rules",), ["decreasing_fast"]), "rules[0]", "unknown value 'decreasing_fast'"),
    ("crossroads", _set(("rules",), ["decreasing_popular"]), "rules[0]", "needs an 'objectives' section"),
    ("shrines", _set(("resets",), {"scenario_points": [7]}), "resets.scenario_points[0]", "outside the game"),
    ("shrines", _set(("resets",), {"alignment": [2, 2]}), "resets.alignment", "listed twice"),
    ("shrines", _set(("resets",), {"alignment": [0]}), "resets.alignment[0]", "outside the game"),
    ("crossroads", _set(("resets",), {"alignment": [2]}), "resets.alignment", "needs an 'objectives' section"),
    ("shrines", _set(("resets",), {"points": [2]}), "resets.points", "unknown field"),
    ("crossroads", _set(("zones", 1, "polygon"), [[1, 1], [5, 5], [5, 1], [1, 5]]), "zones[1].polygon",
     "not simple"),
    ("crossroads", _set(("zones", 1, "polygon"), [[1, 1], [5, 5]]), "zones[1].polygon", "at least 3"),
    ("crossroads", _set(("zones", 1, "circle"), {"center": [3, 3], "radius": 1}), "zones[1]",
     "exactly one of polygon, circle"),
    ("crossroads", _set(("zones", 0, "circle"), {"center": [3, 3], "radius": 0}), "zones[0].circle.radius",
     "a size must be within 0.01 to 120 inches"),
    ("crossroads", _set(("zones", 0, "circle"), {"center": [22, 3], "radius": 3}), "zones[0]",
     "zone 'crossing' is not wholly on the"),
    ("crossroads", _set(("zones", 2, "id"), "crossing"), "zones[2]", "duplicate id 'crossing'"),
    ("crossroads", _set(("zones",), []), "types", "needs a 'zones' section"),
    ("marked_for_death", _set(("vim",), {"kind": "secret"}), "vim.kind", "unknown value 'secret'"),
    ("marked_for_death", _set(("victory",), [{"kind": "objectives", "vp": 3, "at": "end"}]), "vim",
     "needs a vim award"),
    ("marked_for_death", _set(("victory", 0, "at"), 3), "victory[0].at", "scored when the VIM is killed"),
    ("marked_for_death", _set(("victory", 1, "vp"), 2), "victory", "give 4 VP"),
    ("marked_for_death", _set(("victory",), [{"kind": "vim", "vp": 1}, {"kind": "vim", "vp": 1}]), "victory[1]",
     "only one vim award"),
    ("shrines", _set(("victory",), []), "victory", "at least 1 item"),
    ("shrines", _set(("victory", 0, "vp"), 1), "victory", "give 2 VP; every scenario has exactly 3"),
    ("shrines", _set(("victory", 0, "vp"), 0), "victory[0].vp", "greater than or equal to 1"),
    ("shrines", _set(("victory", 0, "at"), _DEL), "victory[0].at", "missing field"),
    ("shrines", _set(("victory", 0, "at"), "never"), "victory[0].at", "must be 'end' or a turn number"),
    ("shrines", _set(("victory", 0, "at"), True), "victory[0].at", "must be 'end' or a turn number"),
    ("shrines", _set(("victory", 0, "at"), 7), "victory[0].at", "after the last turn (turn 6)"),
    ("six_stones", _set(("victory", 1, "at"), 6), "victory[1].at", "after the first turn the game may end (turn 5)"),
    ("shrines", _set(("victory", 0, "kind"), "gold"), "victory[0].kind", "unknown value 'gold'"),
    ("shrines", _set(("victory", 0, "kind"), "zones"), "victory[0]", "a zones award needs a 'zones' section"),
    ("shrines", _set(("victory", 0, "kind"), "worship"), "victory[0]", "needs a worship interaction"),
    ("shrines", _set(("victory", 0), {"kind": "vim", "vp": 1}), "victory[0]", "needs a 'vim' section"),
    ("six_stones", _set(("victory", 0, "kind"), "scenario_points"), "victory[0]", "a source of scenario points"),
    ("crossroads", _set(("victory", 0, "kind"), "objectives"), "victory[0]", "needs an 'objectives' section"),
]


@pytest.mark.parametrize("name,mutate,entry,words", BAD, ids=[f"{b[0]}:{b[2]}:{b[3][:24]}" for b in BAD])
def test_bad_input_names_file_entry_and_problem(name, mutate, entry, words):
    doc = copy.deepcopy(base_doc(name))
    mutate(doc)
    with pytest.raises(ScenarioError) as err:
        from_doc(doc)
    msg = str(err.value)
    assert msg.startswith(f"t.yaml: {entry}: "), msg
    assert words in msg, msg
    assert err.value.file == "t.yaml" and err.value.entry == entry


def test_bad_files_and_names(tmp_path):
    with pytest.raises(ScenarioError, match=r"no bundled scenario 'nowhere' \(known: .*shrines"):
        load_scenario("nowhere")
    with pytest.raises(ScenarioError, match=r"missing\.yaml: cannot read file"):
        load_scenario(tmp_path / "missing.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("format: [unclosed\n")
    with pytest.raises(ScenarioError, match=r"bad\.yaml: YAML syntax error: line \d+, column \d+"):
        load_scenario(bad)
    bad.write_text("- just\n- a list\n")
    with pytest.raises(ScenarioError, match=r"bad\.yaml: the file must be a YAML mapping"):
        load_scenario(bad)
    with pytest.raises(ScenarioError, match="table size must be positive"):
        parse_scenario(yaml.safe_dump(base_doc()), "t.yaml", width=0)
    # a smaller table rejects the east shrine
    with pytest.raises(ScenarioError, match=r"objectives.items\[2\].position: .* 12\" x 24\" table"):
        parse_scenario(yaml.safe_dump(base_doc()), "t.yaml", width=12)


def test_several_problems_are_counted():
    doc = base_doc()
    doc["name"] = 3
    doc["deployment"] = "x"
    with pytest.raises(ScenarioError, match=r"\(and 1 more problem\)"):
        from_doc(doc)


# ---------------------------------------------------------------------- geometry
def test_contact_and_facing():
    o = scen("shrines").objective("centre")  # 30 mm
    x, y = o.position
    touching = (x + 2 * R30, y)
    assert in_contact_with_objective(touching, R30, o)
    assert in_contact_with_objective((x + 2 * R30 + 0.009, y), R30, o)
    assert not in_contact_with_objective((x + 2 * R30 + 0.02, y), R30, o)
    assert in_contact_with_objective((x + 2 * R30 + 0.02, y), R30, o, tol=0.05)
    assert facing_towards(touching, o) == pytest.approx(180.0)
    assert facing_towards((x, y - 2.0), o) == pytest.approx(90.0)
    assert scen("shrines").objective("objective:centre") == o
    with pytest.raises(ScenarioError, match=r"no objective 'north' .*objectives: west, centre, east"):
        scen("shrines").objective("north")


def test_zone_contains_base_wholly():
    cr = scen("crossroads")
    circle, west = cr.zones[0], cr.zones[1]  # circle (12.5, 10.5) r 2.5; square x 1..5, y 8..12
    assert zone_contains_base(circle, (12.5, 10.5), R30)
    assert zone_contains_base(circle, (12.5 + 2.5 - R30, 10.5), R30)          # touches the edge from inside
    assert not zone_contains_base(circle, (12.5 + 2.5 - R30 + 0.01, 10.5), R30)
    assert zone_contains_base(west, (1 + R30, 10), R30)
    assert not zone_contains_base(west, (1 + R30 - 0.01, 10), R30)
    assert not zone_contains_base(west, (0.5, 10), R30)                       # centre outside
    assert not zone_contains_base(west, (3, 12.2), R30)


def test_zone_controller_needs_more_rice_and_more_models():
    z = scen("crossroads").zones[0]
    c = (12.5, 10.5)
    assert zone_controller(z, []) is None
    assert zone_controller(z, [(1, c, R30, 5)]) == 1
    # more models but not more rice
    assert zone_controller(z, [(1, (11.5, 10.5), R30, 3), (1, (13.5, 10.5), R30, 3), (2, (12.5, 11.7), R30, 6)]) is None
    # more rice but not more models
    assert zone_controller(z, [(1, (11.5, 10.5), R30, 3), (2, (13.5, 10.5), R30, 9)]) is None
    # both strictly more
    assert zone_controller(z, [(2, (11.5, 10.5), R30, 3), (2, (13.5, 10.5), R30, 3), (1, (12.5, 11.7), R30, 5)]) == 2
    # a base only partly inside does not count; unknown rice counts 0
    assert zone_controller(z, [(1, (15.0, 10.5), R30, 50), (2, c, R30, None)]) is None
    assert zone_controller(z, [(2, c, R30, None)]) is None   # 0 rice is not more than 0


# ------------------------------------------------------------------ interactions
def test_influence_steps_enemy_neutral_friendly():
    s = scen("six_stones")
    st0 = initial_state(s)
    assert st0.alignment["south"] == 1 and st0.alignment["north"] == 2 and st0.alignment["north-east"] is None
    st1, notes = interact(s, st0, 2, "south", "influence", model_id="ishi", action="simple")
    assert st1.alignment["south"] is None and "friendly to player 1 -> neutral" in notes[0]
    st2, _ = interact(s, st1, 2, "south", "influence")
    assert st2.alignment["south"] == 2
    with pytest.raises(ActionRefused, match="already friendly to player 2"):
        interact(s, st2, 2, "south", "influence")
    assert scenario_actions(s, st2, 2, "south") == []
    assert [i.kind for i in scenario_actions(s, st2, 1, "south")] == ["influence"]
    assert st0.alignment["south"] == 1  # the old state is untouched
    assert len(st2.actions) == 2 and st2.actions[0]["model"] == "ishi"


def test_prayer_scores_by_alignment_and_spends_tokens():
    s = scen("shrines")
    st0 = initial_state(s)
    st0 = replace_state(st0, alignment={"west": 1, "centre": None, "east": 2})
    st1, n1 = interact(s, st0, 1, "west", "prayer", "akira")
    st2, n2 = interact(s, st1, 1, "centre", "prayer", "akira")
    st3, n3 = interact(s, st2, 1, "east", "prayer", "akira")
    assert [st1.sp[1], st2.sp[1], st3.sp[1]] == [1, 3, 6]
    assert st3.prayer == {1: 0, 2: 3} and st3.sp[2] == 0
    assert "+3 SP" in n3[0] and "0 prayer tokens left" in n3[0]
    with pytest.raises(ActionRefused, match="player 1 has no prayer tokens left"):
        interact(s, st3, 1, "west", "prayer", "kokkio")
    assert [i.kind for i in scenario_actions(s, st3, 1, "east")] == ["influence"]


def test_a_model_prays_once_per_objective_per_turn():
    s = scen("shrines")
    st, _ = start_phase(s, initial_state(s), 1)
    st, _ = interact(s, st, 1, "west", "prayer", "akira")
    with pytest.raises(ActionRefused, match="akira has already prayed at objective 'west' this turn"):
        interact(s, st, 1, "west", "prayer", "akira")
    st, _ = interact(s, st, 1, "west", "prayer", "kokkio")      # another model may
    st, _ = interact(s, st, 1, "centre", "prayer", "akira")     # another objective too
    st, _ = interact(s, st, 1, "west", "influence", "akira")    # and another interaction
    st, _, _ = end_phase(s, st, 1, False)
    st, _ = start_phase(s, st, 2)
    assert st.actions == ()
    with pytest.raises(ActionRefused, match="no prayer tokens"):
        interact(s, st, 1, "west", "prayer", "akira")
    assert interaction_refusal(s, st, 2, "west", "prayer", "ishi") is None


def test_refusals():
    s = scen("shrines")
    st = initial_state(s)
    assert interaction_refusal(s, st, 1, "west", "worship") == \
        "scenario 'Shrines' does not allow 'worship' (allowed: prayer (simple), influence (simple))"
    assert interaction_refusal(s, st, 1, "west", "influence", action="complex") == \
        "influence takes a simple Scenario action, not a complex one"
    assert [i.kind for i in scenario_actions(s, st, 1, "west", action="complex")] == []
    assert [i.kind for i in scenario_actions(s, st, 1, "west", action="simple")] == ["prayer", "influence"]
    gone = replace_state(st, removed=("west",))
    with pytest.raises(ActionRefused, match="objective 'west' has been removed"):
        interact(s, gone, 1, "west", "influence")
    with pytest.raises(ActionRefused, match="the game is over"):
        interact(s, replace_state(st, over=True), 1, "west", "influence")
    with pytest.raises(ScenarioError, match="no objective 'nope'"):
        interact(s, st, 1, "nope", "influence")
    with pytest.raises(ScenarioError, match="player must be 1 or 2"):
        scenario_actions(s, st, 3, "west")
    mfd = scen("marked_for_death")
    assert scenario_actions(mfd, initial_state(mfd, {1: "akira", 2: "ishi"}), 1, "relic", action="complex")[0].kind \
        == "influence"


def test_worship_markers_and_alignment_reset_removes_them():
    s = scen("pilgrimage")
    st, _ = start_phase(s, initial_state(s), 1)
    st, n = interact(s, st, 1, "low-altar", "worship", "akira")
    st, _ = interact(s, st, 1, "low-altar", "worship", "akira")   # no once-per-turn limit without Prayer
    st, _ = interact(s, st, 2, "west-altar", "worship", "ishi")
    assert st.worship["low-altar"] == {1: 2, 2: 0} and st.worship["west-altar"] == {1: 0, 2: 1}
    assert "1 marker(s) of player 1" in n[0]
    st, _, _ = end_phase(s, st, 1, False)
    st, notes = start_phase(s, st, 2)
    assert notes == [] and st.worship["low-altar"][1] == 2
    st, _, _ = end_phase(s, st, 2, False)
    st, notes = start_phase(s, st, 3)     # Reset Alignment (3): markers go, alignment stays
    assert notes == ["Reset Alignment: the worship markers are removed"]
    assert all(v == {1: 0, 2: 0} for v in st.worship.values())


# -------------------------------------------------------------------- the phases
def test_start_phase_resets_scenario_points_and_alignment():
    cr = scen("crossroads")
    st = replace_state(initial_state(cr), sp={1: 4, 2: 2}, turn=3)
    st, notes = start_phase(cr, st, 4)
    assert st.sp == {1: 0, 2: 0} and "were 4-2" in notes[0] and st.turn == 4
    doc = base_doc("six_stones")
    doc["resets"] = {"alignment": [3]}
    six = from_doc(doc)
    st = replace_state(initial_state(six), turn=2)
    st, notes = start_phase(six, st, 3)
    assert set(st.alignment.values()) == {None} and "neutral again" in notes[0]
    with pytest.raises(ScenarioError, match="turn 3 is not after turn 3"):
        start_phase(six, st, 3)


def test_shrines_game_scores_two_then_one():
    s = scen("shrines")
    st = initial_state(s)
    st, _ = start_phase(s, st, 1)
    st, _ = interact(s, st, 1, "centre", "prayer", "akira")          # +2
    st, _ = interact(s, st, 2, "east", "influence", "ishi")          # east friendly to 2
    st, _ = interact(s, st, 1, "east", "prayer", "ton")              # enemy: +3
    st, notes, over = end_phase(s, st, 1, False)
    assert not over and st.vp == {1: 0, 2: 0} and st.awards == ()
    for turn in range(2, 6):
        st, _, over = play_turn(s, st, turn)
        assert not over
    st, notes, over = play_turn(s, st, 6, last=True)
    assert over and st.over
    assert st.vp == {1: 2, 2: 1}
    assert [(a["award"], a["player"], a["vp"]) for a in st.awards] == [(0, 1, 2), (1, 2, 1)]
    assert any("scenario points 5-0; player 1 scores 2 VP" in n for n in notes)
    assert any("friendly objectives 0-1; player 2 scores 1 VP" in n for n in notes)
    assert final_result(st) == (1, "player 1 wins on victory points (2-1)")
    with pytest.raises(ScenarioError, match="already over"):
        end_phase(s, st, 7, True)


def test_ties_score_nobody_and_are_not_scored_again():
    s = scen("shrines")
    st = initial_state(s)
    for turn in range(1, 6):
        st, _, _ = play_turn(s, st, turn)
    st, notes, over = play_turn(s, st, 6, last=True)
    assert over and st.vp == {1: 0, 2: 0}
    assert [(a["award"], a["player"], a["vp"]) for a in st.awards] == [(0, None, 0), (1, None, 0)]
    assert any("scenario points 0-0; nobody scores" in n for n in notes)
    assert final_result(st) == (None, "draw on victory points (0-0)")


def test_end_phase_twice_for_a_turn_is_refused():
    s = scen("shrines")
    st, _, _ = play_turn(s, initial_state(s), 1)
    with pytest.raises(ScenarioError, match="End phase of turn 1 was already scored"):
        end_phase(s, st, 1, False)


def test_game_ends_when_all_three_vp_are_scored():
    s = scen("six_stones")
    st = initial_state(s)
    st = replace_state(st, alignment={o.id: 1 for o in s.objectives})
    st, _, over = play_turn(s, st, 1)
    assert not over
    st, notes, over = play_turn(s, st, 2)
    assert st.vp == {1: 1, 2: 0} and not over
    assert any("Decreasing (Scorer)" in n and "chosen by player 2" in n for n in notes)
    st, _, _ = play_turn(s, st, 3)
    st, _, over = play_turn(s, st, 4)
    assert st.vp == {1: 2, 2: 0} and not over
    st, notes, over = play_turn(s, st, 5, last=True)
    assert over and st.vp == {1: 3, 2: 0} and "all 3 VP" not in notes[-1] and "the last turn" in notes[-1]
    assert len(st.removed) == 3


def test_all_three_vp_end_the_game_before_the_last_turn():
    doc = base_doc("six_stones")
    doc["victory"] = [{"kind": "objectives", "vp": 2, "at": 1}, {"kind": "objectives", "vp": 1, "at": 2}]
    s = from_doc(doc)
    st = replace_state(initial_state(s), alignment={o.id: 2 for o in s.objectives})
    st, _, over = play_turn(s, st, 1)
    assert not over and st.vp == {1: 0, 2: 2}
    st, notes, over = play_turn(s, st, 2)
    assert over and st.vp == {1: 0, 2: 3} and "all 3 VP have been scored" in notes[-1]


def test_awards_after_an_early_last_turn_lapse():
    s = scen("six_stones")  # objectives at 2, 4, end; variable from turn 5
    st = replace_state(initial_state(s), alignment={o.id: 1 for o in s.objectives})
    st, _, _ = play_turn(s, st, 1)
    st, _, _ = play_turn(s, st, 2)
    st, notes, over = play_turn(s, st, 3, last=True)   # e.g. a side has no models left
    assert over
    assert [(a["award"], a["player"]) for a in st.awards] == [(0, 1), (1, None), (2, 1)]
    assert st.awards[1]["note"] == "lapsed: the game ended first"
    assert st.vp == {1: 2, 2: 0}


def test_decreasing_scorer_removes_a_friendly_objective_chosen_by_the_opponent():
    s = scen("six_stones")
    st = initial_state(s)   # south friendly to 1, north friendly to 2
    st = replace_state(st, alignment={**st.alignment, "south-east": 1, "north-west": 1})
    st, _, _ = play_turn(s, st, 1)
    st, notes, _ = play_turn(s, st, 2)
    assert st.vp == {1: 1, 2: 0}
    # player 2 chooses among south (y 8), south-east (y 11), north-west (y 15.5): the one
    # nearest player 2's edge (y = 24)
    assert st.removed == ("north-west",)
    # a chooser callback overrides the engine's pick
    seen = []

    def choose(chooser, cands, rule):
        seen.append((chooser, tuple(cands), rule))
        return cands[0]
    st2 = replace_state(initial_state(s), alignment={**initial_state(s).alignment, "south-east": 1})
    st2, _, _ = play_turn(s, st2, 1)
    st2, _, _ = play_turn(s, st2, 2, choose=choose)
    assert seen == [(2, ("south", "south-east"), "decreasing_scorer")] and st2.removed == ("south",)
    with pytest.raises(ScenarioError, match="'north' is not one of the objectives to choose from"):
        st3 = replace_state(initial_state(s), alignment={**initial_state(s).alignment, "south-east": 1})
        st3, _, _ = play_turn(s, st3, 1)
        play_turn(s, st3, 2, choose=lambda c, cands, r: "north")


def test_decreasing_scorer_with_no_friendly_objective_removes_nothing():
    doc = base_doc("six_stones")
    doc["victory"] = [{"kind": "objectives", "vp": 1, "at": 1}, {"kind": "objectives", "vp": 2, "at": "end"}]
    s = from_doc(doc)
    st = replace_state(initial_state(s), alignment={**initial_state(s).alignment, "north": None})
    st, notes, _ = play_turn(s, st, 1)
    assert st.vp == {1: 1, 2: 0} and st.removed == ("south",)


def test_decreasing_popular_removes_the_busiest_objective():
    s = scen("pilgrimage")
    st, _ = start_phase(s, initial_state(s), 1)
    st, _, _ = end_phase(s, st, 1, False)
    st, _ = start_phase(s, st, 2)
    st, _ = interact(s, st, 1, "low-altar", "worship", "akira")
    st, _ = interact(s, st, 1, "low-altar", "worship", "kokkio")
    st, _ = interact(s, st, 2, "west-altar", "worship", "ishi")
    st, notes, _ = end_phase(s, st, 2, False)
    assert st.vp == {1: 1, 2: 0}
    assert st.removed == ("low-altar",) and any("low-altar is removed (2 Simple action(s))" in n for n in notes)
    # a tie: the scorer's opponent chooses (engine: an altar friendly to... none, all
    # neutral; then the one nearest the chooser's edge)
    st, _ = start_phase(s, st, 3)          # markers swept away
    st, _ = interact(s, st, 2, "west-altar", "worship", "ishi")
    st, _ = interact(s, st, 1, "east-altar", "worship", "akira")
    st, _ = interact(s, st, 2, "east-altar", "worship", "asp")
    st, _, _ = end_phase(s, st, 3, False)
    st, _ = start_phase(s, st, 4)
    st, _ = interact(s, st, 2, "west-altar", "worship", "ishi")
    st, _ = interact(s, st, 1, "east-altar", "worship", "akira")
    st, notes, _ = end_phase(s, st, 4, False)
    # markers from turns 3-4: p1 1, p2 2 -> player 2 scores; tie 1-1 between the altars;
    # player 1 chooses: the one nearest y = 0 is east-altar (16.5 < 17.5)
    assert st.vp == {1: 1, 2: 1}
    assert st.removed == ("low-altar", "east-altar")
    assert any("chosen by player 1" in n for n in notes)


def test_decreasing_needs_a_scorer():
    s = scen("pilgrimage")
    st, _ = start_phase(s, initial_state(s), 1)
    st, _ = interact(s, st, 1, "low-altar", "worship", "akira")
    st, _ = interact(s, st, 2, "west-altar", "worship", "ishi")
    st, _, _ = end_phase(s, st, 1, False)
    st, _ = start_phase(s, st, 2)
    st, notes, _ = end_phase(s, st, 2, False)    # 1-1: nobody scores, nothing removed
    assert st.vp == {1: 0, 2: 0} and st.removed == ()


def test_zone_control_scores_sp_each_end_phase_and_zones_vp():
    cr = scen("crossroads")
    st = initial_state(cr)
    models = [(1, (12.5, 10.5), R30, 10),        # crossing (neutral): player 1 +2
              (1, (21.0, 14.0), R30, 10),        # east-field (friendly to 2): player 1 +3
              (2, (3.0, 10.0), R30, 10)]         # west-field (friendly to 1): player 2 +3
    st, notes, _ = play_turn(cr, st, 1, models=models)
    assert st.sp == {1: 5, 2: 3}
    assert "player 1 controls zone crossing (neutral): +2 SP (now 2)" in notes
    st, _, _ = play_turn(cr, st, 2, models=models)
    st, notes, _ = play_turn(cr, st, 3, models=models)
    assert st.vp == {1: 1, 2: 0} and any("zones controlled 2-1" in n for n in notes)
    st, notes, _ = play_turn(cr, st, 4, models=[])
    assert st.sp == {1: 0, 2: 0} and "zone crossing: nobody controls it" in notes
    st, _, _ = play_turn(cr, st, 5, models=[(2, (12.5, 10.5), R30, 1)])
    st, _, over = play_turn(cr, st, 6, last=True, models=[])
    assert over and st.vp == {1: 1, 2: 2}
    assert final_result(st)[0] == 2


def test_open_vim_scores_in_the_end_phase_of_the_kill():
    s = scen("marked_for_death")
    st = initial_state(s, {1: "akira", 2: "ishi"})
    assert st.vims == {1: ("akira",), 2: ("ishi",)} and st.vim_killed == {1: None, 2: None}
    st, _ = start_phase(s, st, 1)
    assert record_kill(st, "kokkio", 1) is st
    st, notes, _ = end_phase(s, st, 1, False, killed=["ishi"])
    assert st.vim_killed == {1: None, 2: 1} and st.vp == {1: 1, 2: 0}
    assert any("player 2's VIM ishi was killed in turn 1; player 1 scores 1 VP" in n for n in notes)
    st, _ = start_phase(s, st, 2)
    st = record_kill(st, "akira", 2)
    st = record_kill(st, "akira", 3)     # a second kill changes nothing
    st, _, _ = end_phase(s, st, 2, False)
    assert st.vp == {1: 1, 2: 1} and st.vim_killed[1] == 2
    st, _, _ = play_turn(s, st, 3)
    assert st.vp == {1: 1, 2: 1} and len(st.awards) == 2   # nothing awarded twice


def test_hidden_vim_is_revealed_and_scored_on_the_last_turn():
    doc = base_doc("marked_for_death")
    doc["vim"] = {"kind": "hidden"}
    s = from_doc(doc)
    st = initial_state(s, {1: ["kota", "kota-fox"], 2: "ishi"})
    st, _ = start_phase(s, st, 1)
    st, notes, _ = end_phase(s, st, 1, False, killed=["kota-fox"])
    assert st.vim_killed[1] == 1 and st.vp == {1: 0, 2: 0} and not any("VIM" in n for n in notes)
    for t in range(2, 6):
        st, _, _ = play_turn(s, st, t)
    st, notes, over = play_turn(s, st, 6, last=True)
    assert over and st.vp == {1: 0, 2: 1}
    assert any("hidden VIMs revealed: player 1: kota/kota-fox; player 2: ishi" in n for n in notes)


def test_no_legal_vim_counts_as_killed_and_nominated_is_keyed_by_owner():
    doc = base_doc("marked_for_death")
    doc["vim"] = {"kind": "nominated"}
    s = from_doc(doc)
    st = initial_state(s, {1: "akira"})     # player 2's warband has no legal VIM
    assert st.vims == {1: ("akira",), 2: ()} and st.vim_killed == {1: None, 2: 0}
    st, notes, _ = play_turn(s, st, 1)
    assert st.vp == {1: 1, 2: 0} and any("had no legal VIM" in n for n in notes)
    with pytest.raises(ScenarioError, match="players are 1 and 2"):
        initial_state(s, {3: "x"})
    with pytest.raises(ScenarioError, match=r"has a VIM \(nominated\): pass vims="):
        initial_state(s)
    assert initial_state(scen("shrines")).vims == {}


def test_vp_are_capped_at_three():
    """A hand-built scenario whose awards would give more than 3 (the loader refuses
    such files): the cap holds anyway."""
    from dataclasses import replace

    from sim.rules.scenario import Award
    s = scen("six_stones")
    s = replace(s, victory=(Award(0, "objectives", 3, 1), Award(1, "objectives", 3, 2)), rules=())
    st = replace_state(initial_state(s), alignment={o.id: 1 for o in s.objectives})
    st, _ = start_phase(s, st, 1)
    st, notes, over = end_phase(s, st, 1, False)
    assert st.vp == {1: 3, 2: 0} and over
    st = replace_state(st, over=False)
    st, _ = start_phase(s, st, 2)
    st, notes, _ = end_phase(s, st, 2, False)
    assert st.vp == {1: 3, 2: 0} and "capped at 3 VP" in notes[0]


def test_state_json_round_trip_and_bad_state():
    s = scen("marked_for_death")
    st = initial_state(s, {1: "akira", 2: "ishi"})
    st, _ = start_phase(s, st, 1)
    st, _ = interact(s, st, 1, "relic", "influence", "akira")
    st, _, _ = end_phase(s, st, 1, False, killed=["ishi"])
    doc = st.to_json()
    assert doc["vims"] == {"1": ["akira"], "2": ["ishi"]} and doc["vp"] == {"1": 1, "2": 0}
    assert ScenarioState.from_json(json.loads(json.dumps(doc))) == st
    with pytest.raises(ScenarioError, match="bad scenario state"):
        ScenarioState.from_json({"turn": 1})
    with pytest.raises(ScenarioError, match="not a bushido-scenario-state/1"):
        ScenarioState.from_json({**doc, "format": "x"})


# ---------------------------------------------------------------- property tests
_OPS = st.lists(
    st.tuples(st.sampled_from(["act", "act", "act", "kill", "end"]), st.integers(1, 2), st.integers(0, 5),
              st.sampled_from(["influence", "prayer", "worship"]), st.integers(0, 3)),
    max_size=40,
)


def _models(seed: int):
    pts = [(12.5, 10.5), (3.0, 10.0), (21.0, 14.0), (12.0, 18.0)]
    return [((seed + i) % 2 + 1, pts[(seed * 3 + i) % 4], R30, (seed + i) % 4) for i in range(seed % 5)]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(BUNDLED), ops=_OPS, last_at=st.integers(1, 7))
def test_random_games_never_score_more_than_three_vp(name, ops, last_at):
    s = load_scenario(name)
    state = initial_state(s, {1: "m1", 2: "m2"})
    state, _ = start_phase(s, state, 1)
    turn = 1
    models_ids = ["m1", "m2", "x1", "x2"]
    for op, player, oi, kind, extra in ops:
        if state.over:
            break
        if op == "act" and s.objectives:
            oid = s.objectives[oi % len(s.objectives)].id
            before = state
            try:
                state, _ = interact(s, state, player, oid, kind, model_id=models_ids[extra])
            except ActionRefused:
                assert interaction_refusal(s, before, player, oid, kind, models_ids[extra])
                continue
            assert interaction_refusal(s, before, player, oid, kind, models_ids[extra]) is None
        elif op == "kill":
            state = record_kill(state, models_ids[extra], turn)
        elif op == "end":
            last = turn >= last_at
            state, _, over = end_phase(s, state, turn, last, _models(extra + turn))
            assert over == (last or state.vp_scored == 3)
            if over:
                break
            turn += 1
            state, _ = start_phase(s, state, turn)
        # invariants after every step
        assert 0 <= state.vp_scored <= 3
        assert all(v >= 0 for v in state.sp.values()) and all(v >= 0 for v in state.prayer.values())
        assert sum(a["vp"] for a in state.awards) == state.vp_scored
        keys = [(a["award"], a["player"] if a["kind"] == "vim" else None) for a in state.awards]
        assert len(keys) == len(set(keys))
        assert ScenarioState.from_json(json.loads(json.dumps(state.to_json()))) == state
    if not state.over:
        state, _, over = end_phase(s, state, turn, True, [])
        assert over
    assert 0 <= state.vp_scored <= 3
    winner, text = final_result(state)
    assert (winner is None) == (state.vp[1] == state.vp[2])


@settings(max_examples=60, deadline=None)
@given(start=st.sampled_from([None, 1, 2]), player=st.integers(1, 2), n=st.integers(1, 4))
def test_influence_is_monotone(start, player, n):
    """Each Influence moves the objective exactly one step towards the acting player
    (enemy -> neutral -> friendly) and never away; at friendly it is refused."""
    s = scen("six_stones")
    st0 = replace_state(initial_state(s), alignment={o.id: start for o in s.objectives})

    def rank(owner):
        return 1 if owner is None else (2 if owner == player else 0)
    state = st0
    for _ in range(n):
        before = rank(state.alignment["south"])
        if before == 2:
            with pytest.raises(ActionRefused):
                interact(s, state, player, "south", "influence")
            break
        state, _ = interact(s, state, player, "south", "influence")
        assert rank(state.alignment["south"]) == before + 1
        assert all(state.alignment[o] == start for o in state.alignment if o != "south")


def test_vim_choice_restrictions():
    assert vim_refusal("open", ["unique", "samurai"], []) is None
    assert vim_refusal("open", ["samurai"]) == "a VIM must be Unique"
    assert vim_refusal("hidden", ["unique", "animal"]) == "an Animal cannot be a VIM"
    assert vim_refusal("open", ["unique"], ["insignificant"]) == "an Insignificant model cannot be a VIM"
    assert vim_refusal("open", ["unique"], ["flank"]) is None          # it loses Flank
    assert vim_refusal("nominated", ["Unique"], ["Flank"]) == "a Nominated VIM cannot have Flank or Disguise"
    with pytest.raises(ScenarioError, match="VIM kind must be one of"):
        vim_refusal("secret", ["unique"])
