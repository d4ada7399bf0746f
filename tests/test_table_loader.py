"""Loading ``bushido-table/1`` files: the formats.md example, presets, profiles, and one
test per bad input (the whole file is rejected with file, entry and problem)."""

from __future__ import annotations

import textwrap

import pytest

from sim.geometry import Passage, Size, Visibility
from sim.table import DEFAULT_TABLE, TableError, load_table, parse_table
from terrain.setup import check_setup

FORMATS_EXAMPLE = """\
format: bushido-table/1
name: Village crossing            # free text
table: {width: 24, depth: 24}     # inches
terrain:
  - id: house                     # unique among terrain and models
    passage: impassable           # impassable | difficult | normal | ideal
    visibility: blocking          # open | blocking | obscuring | enhancing
    size: huge                    # zero | tiny | small | medium | large | huge
    polygon: [[4, 4], [8, 4], [8, 7], [4, 7]]      # footprint, inches
  - id: lone-tree
    passage: impassable
    visibility: blocking
    size: large
    circle: {center: [12, 18], radius: 1.25}
  - id: bamboo
    passage: difficult
    visibility: obscuring
    size: huge
    rect: {center: [18, 9], width: 5, depth: 3.5, rotation: 30}   # degrees, CCW
models:
  - id: akira                     # unique
    player: 1                     # 1 or 2
    base: 30                      # mm: 30 | 40 | 50 | 60
    size: small                   # optional; default from base (30 small ... 60 huge)
    position: [6, 12]             # base centre, inches
    facing: 0                     # degrees CCW, 0 = +x
    traits: [aware]               # optional, lower-case trait keywords
    prone: false                  # optional, default false
  - id: ima
    player: 2
    base: 40
    position: [14, 12]
    facing: 180
"""


def write(tmp_path, text, name="t.yaml"):
    p = tmp_path / name
    p.write_text(textwrap.dedent(text))
    return p


def test_formats_example_loads_exactly():
    t = parse_table(FORMATS_EXAMPLE, "example.yaml")
    assert t.name == "Village crossing" and (t.width, t.depth) == (24, 24)
    house, tree, bamboo = t.terrain
    assert (house.passage, house.visibility, house.size) == (Passage.IMPASSABLE, Visibility.BLOCKING, Size.HUGE)
    assert tree.footprint.is_circle and tree.footprint.radius == 1.25
    assert bamboo.footprint.area == pytest.approx(5 * 3.5)
    akira, ima = t.models
    assert akira.traits == ("aware",) and akira.size is Size.SMALL
    assert akira.radius == pytest.approx(1.1811 / 2, abs=1e-4)
    assert ima.size is Size.MEDIUM  # default from a 40 mm base


def test_default_table_loads_and_follows_setup_rules():
    t = load_table(DEFAULT_TABLE)
    assert (t.width, t.depth) == (24, 24)
    assert check_setup(t.terrain, t.width, t.depth) == []
    kinds = {(p.passage, p.visibility, p.size) for p in t.terrain}
    assert (Passage.IMPASSABLE, Visibility.BLOCKING, Size.HUGE) in kinds
    assert (Passage.DIFFICULT, Visibility.OPEN, Size.ZERO) in kinds
    assert any(p.passage is Passage.DIFFICULT and p.visibility is Visibility.OBSCURING and p.size >= Size.LARGE
               for p in t.terrain)
    assert {m.player for m in t.models} == {1, 2}


def test_default_table_shows_blocked_los_cover_and_zoc():
    t = load_table(DEFAULT_TABLE)
    pairs = t.scene().measure_all()
    assert any(p.in_arc and not p.los.visible and p.los.blocked_by for p in pairs)
    assert any(p.cover.cover for p in pairs)
    players = {m.id: m.player for m in t.models}
    assert any(p.zoc.in_zoc and players[p.origin] != players[p.target] for p in pairs)


def test_presets_fill_attributes_and_footprint(tmp_path):
    p = write(tmp_path, """\
        format: bushido-table/1
        name: presets
        terrain:
          - {id: h, preset: house, center: [6, 6], rotation: 90}
          - {id: f, preset: fog, circle: {center: [16, 16], radius: 2}}
        models: []
        """)
    t = load_table(p)
    h, f = t.terrain
    assert h.attributes == "[Impassable, Blocking, Huge]"
    assert h.footprint.bounds == pytest.approx((4, 3.5, 8, 8.5))
    assert (f.visibility, f.footprint.radius) == (Visibility.OBSCURING, 2)


def test_profile_fills_base_size_and_traits(tmp_path):
    p = write(tmp_path, """\
        format: bushido-table/1
        name: profiles
        models:
          - {id: k, player: 1, profile: Kazuha, position: [6, 6]}
          - {id: a, player: 2, profile: takashi-akira, position: [12, 12], facing: 180}
        """)
    t = load_table(p)
    k, a = t.models
    assert (k.base, k.size) == (60, Size.HUGE)
    assert a.name == "Takashi Akira" and "armour" in a.traits


def test_save_round_trip_is_atomic(tmp_path):
    t = load_table(DEFAULT_TABLE)
    out = tmp_path / "copy.yaml"
    t.save(out)
    again = load_table(out)
    assert [m.position for m in again.models] == [m.position for m in t.models]
    got = [v for p in again.terrain for v in p.footprint.bounds]
    assert got == pytest.approx([v for p in t.terrain for v in p.footprint.bounds])
    assert [f.name for f in tmp_path.iterdir()] == ["copy.yaml"]


# ------------------------------------------------------------------------ bad input
BAD = {
    "yaml-syntax": ("format: bushido-table/1\nname: [unclosed\n", None, "YAML syntax error"),
    "missing-field": ("format: bushido-table/1\nname: x\nmodels:\n  - {id: a, player: 1, base: 30}\n",
                      "models[id=a]", "position: missing field"),
    "unknown-field": ("format: bushido-table/1\nname: x\nmodels:\n"
                      "  - {id: a, player: 1, base: 30, position: [5, 5], colour: red}\n",
                      "models[id=a]", "colour: unknown field"),
    "wrong-type": ("format: bushido-table/1\nname: x\nmodels:\n  - {id: a, player: 1, base: 30, position: [5, five]}\n",
                   "models[id=a]", "position.1"),
    "unknown-enum": ("format: bushido-table/1\nname: x\nterrain:\n"
                     "  - {id: t, passage: swampy, visibility: open, size: zero, "
                     "circle: {center: [5, 5], radius: 1}}\n",
                     "terrain[0] (id=t)", "unknown value 'swampy'"),
    "nan": ("format: bushido-table/1\nname: x\nmodels:\n  - {id: a, player: 1, base: 30, position: [.nan, 5]}\n",
            "models[id=a]", "finite number"),
    "infinite": ("format: bushido-table/1\nname: x\nterrain:\n"
                 "  - {id: t, passage: normal, visibility: open, size: zero, circle: {center: [5, 5], radius: .inf}}\n",
                 "terrain[0] (id=t)", "finite number"),
    "self-intersecting": ("format: bushido-table/1\nname: x\nterrain:\n"
                          "  - {id: bow, passage: normal, visibility: open, size: zero, "
                          "polygon: [[4, 4], [8, 8], [8, 4], [4, 8]]}\n",
                          "terrain[0] (id=bow)", "not simple"),
    "degenerate": ("format: bushido-table/1\nname: x\nterrain:\n"
                   "  - {id: flat, passage: normal, visibility: open, size: zero, polygon: [[4, 4], [6, 6], [8, 8]]}\n",
                   "terrain[0] (id=flat)", "degenerate"),
    "duplicate-id": ("format: bushido-table/1\nname: x\nterrain:\n  - {id: a, preset: pond, center: [12, 12]}\n"
                     "models:\n  - {id: a, player: 1, base: 30, position: [3, 3]}\n",
                     "models[id=a]", "duplicate id 'a'"),
    "overlapping-bases": ("format: bushido-table/1\nname: x\nmodels:\n"
                          "  - {id: a, player: 1, base: 30, position: [5, 5]}\n"
                          "  - {id: b, player: 2, base: 40, position: [6, 5]}\n",
                          "models[id=b]", "overlaps the base of 'a'"),
    "off-table": ("format: bushido-table/1\nname: x\nmodels:\n  - {id: a, player: 1, base: 30, position: [0.3, 5]}\n",
                  "models[id=a]", "not wholly on the 24\" x 24\" table"),
    "inside-impassable": ("format: bushido-table/1\nname: x\nterrain:\n"
                          "  - {id: house, preset: house, center: [10, 10]}\nmodels:\n"
                          "  - {id: a, player: 1, base: 30, position: [10, 8.3]}\n",
                          "models[id=a]", "inside Impassable terrain 'house'"),
    "two-shapes": ("format: bushido-table/1\nname: x\nterrain:\n"
                   "  - {id: t, passage: normal, visibility: open, size: zero, circle: {center: [5, 5], radius: 1}, "
                   "rect: {center: [5, 5], width: 1, depth: 1}}\n",
                   "terrain[0] (id=t)", "exactly one of polygon, circle, rect"),
    "unknown-preset": ("format: bushido-table/1\nname: x\nterrain:\n  - {id: t, preset: castle, center: [5, 5]}\n",
                       "terrain[0] (id=t)", "unknown preset 'castle'"),
    "unknown-profile": ("format: bushido-table/1\nname: x\nmodels:\n"
                        "  - {id: a, player: 1, profile: nobody-at-all, position: [5, 5]}\n",
                        "models[id=a]", "unknown profile"),
    "wrong-format": ("format: bushido-table/9\nname: x\n", "format", "unknown value"),
    "not-a-mapping": ("- just\n- a list\n", None, "must be a YAML mapping"),
    "bad-player": ("format: bushido-table/1\nname: x\nmodels:\n  - {id: a, player: 3, base: 30, position: [5, 5]}\n",
                   "models[id=a]", "player"),
    "bad-base": ("format: bushido-table/1\nname: x\nmodels:\n  - {id: a, player: 1, base: 35, position: [5, 5]}\n",
                 "models[id=a]", "base"),
    "bool-as-number": ("format: bushido-table/1\nname: x\nmodels:\n"
                       "  - {id: a, player: 1, base: 30, position: [5, 5], facing: true}\n",
                       "models[id=a]", "facing"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_input_is_rejected_with_file_entry_and_problem(tmp_path, case):
    text, entry, problem = BAD[case]
    p = write(tmp_path, text, f"{case}.yaml")
    with pytest.raises(TableError) as err:
        load_table(p)
    msg = str(err.value)
    assert msg.startswith(str(p)), msg
    if entry:
        assert f": {entry}: " in msg or f": {entry}." in msg, msg
    assert problem in msg, msg


def test_missing_file(tmp_path):
    with pytest.raises(TableError, match="cannot read file"):
        load_table(tmp_path / "absent.yaml")


from conftest import BSDATA  # noqa: E402


@pytest.mark.skipif(not BSDATA.is_dir(), reason="shared/bsdata not present")
def test_table_deploys_any_faction_by_profile_name_and_warband_file(tmp_path):
    (tmp_path / "yurei.yaml").write_text(textwrap.dedent("""\
        format: bushido-warband/1
        name: Hungry ghosts
        faction: Cult of Yurei
        rice: 70
        models: [Yama Uba, Umeka, Risu]
        """))
    p = write(tmp_path, f"""\
        format: bushido-table/1
        name: imported
        catalogues: {BSDATA}
        models:
          - {{id: araka, player: 1, profile: Araka, position: [4, 4]}}
        warbands:
          - {{file: yurei.yaml, player: 2, facing: 270, positions: [[6, 20], [9, 20], [12, 20, 250]]}}
        """)
    t = load_table(p)
    ids = [m.id for m in t.models]
    assert ids == ["araka", "yama-uba", "umeka", "risu"]
    assert t.model("araka").base == 50 and t.model("risu").facing == 250
    assert {m.player for m in t.models if m.id != "araka"} == {2}
    # the game engine finds their cards too
    from sim.rules.game import Game

    g = Game(t, seed=1, length=("fixed", 1))
    assert g.state.models["yama-uba"].wounds > 0


def test_warband_without_catalogues_or_wrong_count_is_rejected(tmp_path):
    p = write(tmp_path, """\
        format: bushido-table/1
        name: x
        warbands:
          - {file: w.yaml, player: 2, positions: [[6, 20]]}
        """)
    with pytest.raises(TableError, match=r"warbands\[0\].*catalogues"):
        load_table(p)
