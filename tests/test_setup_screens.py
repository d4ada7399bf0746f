"""The set-up screens (sim.view.play.setup_screens.SetupScreen), offscreen: a whole
set-up driven through the same handlers the window's bindings call (clicks at the window
points of table points, buttons' commands, keys), the Game it hands over compared with
one built by sim.rules.setup.GameSetup from the same choices, and the frames of the
choice screen, the roll-off, terrain placement and deployment checked by their pixels.
Copies of the PNGs go to /work/notes/png/setup_*.png when that folder exists."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("panda3d.core")

from conftest import BSDATA, read_png  # noqa: E402

from sim.rules.setup import GameSetup, TableChoice, bundled_warband  # noqa: E402

pytestmark = pytest.mark.render

SIZE = (1024, 768)
NOTES_PNG = Path("/work/notes/png")
SIX = [("hill", (5.5, 18)), ("pond", (12, 18.5)), ("bamboo-forest", (18.5, 18)), ("fog", (14.5, 5.5)),
       ("low-hedge", (6, 5)), ("statue", (12, 14))]


@pytest.fixture(scope="module")
def base():
    from sim.view.play.shell import get_base

    return get_base(offscreen=True, size=SIZE)


@pytest.fixture
def make(base):
    """make(**flow_kw) -> (screen, games): a SetupScreen whose on_done appends to games;
    destroyed after the test."""
    from sim.view.play.setup_flow import SetupFlow
    from sim.view.play.setup_screens import SetupScreen

    made = []

    def _make(**kw):
        games: list = []
        kw.setdefault("seed", 3)
        s = SetupScreen(base, games.append, flow=SetupFlow(**kw))
        made.append(s)
        return s, games

    yield _make
    for s in made:
        s.destroy()


def shot(base, tmp_path, name):
    from sim.view.play.shell import screenshot

    path = screenshot(base, tmp_path / f"{name}.png")
    if NOTES_PNG.is_dir():
        shutil.copy(path, NOTES_PNG / f"{name}.png")
    return read_png(path).astype(int)


def table_half(img):
    """The part of the frame right of the side column (where the table is drawn)."""
    return img[:, int(img.shape[1] * 0.36):]


def dominant(img, channel: int, margin: int = 50) -> int:
    """How many pixels have ``channel`` above both others by ``margin``."""
    others = [c for c in range(3) if c != channel]
    return int(np.sum((img[..., channel] > img[..., others[0]] + margin)
                      & (img[..., channel] > img[..., others[1]] + margin)))


def click_table(screen, point):
    """Click the window point that shows the table point ``point`` (inches)."""
    screen.click_ndc(*screen.cam.to_ndc(point))


def to_deployment(screen):
    """Shrines on an empty table: roll off, the six pieces, both stop, south, the roll-off
    winner deploys first."""
    f = screen.flow
    screen.choose_scenario(f.scenario_labels().index("shrines"))
    screen.start()
    screen.roll()
    for preset, c in SIX:
        screen.choose_preset(screen.preset_names().index(preset))
        click_table(screen, c)
    screen.stop_terrain()
    screen.stop_terrain()
    screen.choose_zone("south")
    screen.choose_first(f.setup.roll.winner)


def deploy_side(screen, reference=None):
    """Deploy the player to act's models by clicks, left to right along the baseline
    (a click 0.4" inside the zone snaps to touching); mirror them on ``reference``."""
    s = screen.flow.setup
    p = s.to_act
    zone = s.zones[p]
    x = 0.5
    for r in list(s.waiting(p)):
        x += r.radius
        y = r.radius + 0.4 if zone.id == "south" else s.depth - r.radius - 0.4
        screen.select_model([q.id for q in screen.flow.waiting()].index(r.id))
        click_table(screen, (x, y))
        assert not screen.flow.refusals, screen.flow.refusals
        if reference is not None:
            ry = r.radius if zone.id == "south" else s.depth - r.radius
            reference.deploy(p, r.id, (x, ry), 90 if zone.id == "south" else 270)
        x += r.radius + 0.5


def test_choice_screen_shows_the_lists_and_buttons(make, base, tmp_path):
    screen, _ = make()
    img = shot(base, tmp_path, "setup_choose")
    title = ((img[..., 0] > 150) & (img[..., 0] - img[..., 2] > 80)).sum()      # the amber titles (P.TITLE)
    buttons = np.all(np.abs(img - np.array([64, 77, 102])) < 12, axis=-1).sum()  # button faces (P.BUTTON)
    entries = np.all(np.abs(img - 217) < 8, axis=-1).sum()                       # the two file entries
    assert title > 300 and buttons > 20000 and entries > 4000
    assert screen.flow.screen == "choose" and screen.cam is None


def test_whole_setup_through_the_screen_gives_the_game_gamesetup_builds(make, base, tmp_path):
    screen, games = make()
    f = screen.flow
    ref = GameSetup(TableChoice.blank(), "shrines", {1: bundled_warband("default-1"), 2: bundled_warband("default-2")},
                    seed=3)
    screen.choose_scenario(f.scenario_labels().index("shrines"))
    screen.start()
    assert f.screen == "table" and f.phase == "roll_off"
    screen.key("enter")                                          # roll off
    roll = ref.roll_off()
    assert f.setup.roll == roll
    img_roll = shot(base, tmp_path, "setup_rolloff")
    side = img_roll[:, : int(img_roll.shape[1] * 0.33)]
    assert dominant(side, 0 if roll.winner == 1 else 2, 30) > 3000   # the roll-off, tinted with the winner's colour
    for preset, c in SIX:
        screen.choose_preset(screen.preset_names().index(preset))
        click_table(screen, c)
        ref.place_terrain(ref.to_act, preset, c)
    assert len(f.setup.pieces) == 6 and not f.refusals
    screen.stop_terrain()
    screen.stop_terrain()
    ref.stop_terrain(ref.to_act)
    ref.stop_terrain(ref.to_act)
    screen.choose_zone("south")
    ref.choose_zone(ref.to_act, "south")
    screen.choose_first(roll.winner)
    ref.choose_first(ref.to_act, roll.winner)
    deploy_side(screen, ref)
    assert not games
    deploy_side(screen, ref)
    assert len(games) == 1 and f.screen == "done"
    game = games[0]
    want = ref.game()
    got_pos, want_pos = game.position(), want.position()
    for mid, m in want_pos["models"].items():
        g = got_pos["models"][mid]
        assert np.allclose(g["position"], m["position"], atol=1e-4) and g["facing"] == m["facing"]
        assert {k: v for k, v in g.items() if k != "position"} == {k: v for k, v in m.items() if k != "position"}
    assert {k: v for k, v in got_pos.items() if k != "models"} == {k: v for k, v in want_pos.items() if k != "models"}
    for a, b in zip(game.table.terrain, want.table.terrain):
        assert a.preset == b.preset and np.allclose(a.footprint.bounds, b.footprint.bounds, atol=1e-4)
    # the screen's set-up saved and restored is the same game exactly
    assert GameSetup.from_dict(f.setup.to_dict()).game().position() == got_pos


def test_terrain_placement_shows_pieces_zones_and_the_ghost_with_its_verdict(make, base, tmp_path):
    screen, _ = make()
    f = screen.flow
    screen.choose_scenario(f.scenario_labels().index("shrines"))
    screen.start()
    screen.roll()
    before = shot(base, tmp_path, "setup_terrain_empty")
    for preset, c in SIX[:4]:
        screen.choose_preset(screen.preset_names().index(preset))
        click_table(screen, c)
    screen.choose_preset(screen.preset_names().index("house"))
    screen.hover_ndc(*screen.cam.to_ndc((3.0, 1.5)))            # at the edge, in a zone: refused
    assert screen.ghost is not None and not screen.ghost.legal
    assert "p.62" in screen.verdict["text"] and "p.20" in screen.verdict["text"]
    img = shot(base, tmp_path, "setup_terrain")
    # the pieces change the table; the refused ghost is red
    assert np.abs(table_half(img) - table_half(before)).sum(axis=-1).astype(bool).sum() > 20000
    assert dominant(table_half(img), 0, 120) > 300
    click_table(screen, (3.0, 1.5))
    assert {"edge", "impassable-zone"} <= {r.code for r in f.refusals} and len(f.setup.pieces) == 4
    screen.key("z")                                              # undo the last piece
    assert len(f.setup.pieces) == 3


def test_deployment_draws_both_zones_and_refuses_a_model_outside_its_zone(make, base, tmp_path):
    screen, _ = make()
    f = screen.flow
    to_deployment(screen)
    zone_img = shot(base, tmp_path, "setup_zones")
    deploy_side(screen)
    s = f.setup
    who = s.to_act
    click_table(screen, (12, 12))
    assert [r.code for r in f.refusals] == ["outside-zone"] and f.refusals[0].page == "p.63"
    screen.hover_ndc(*screen.cam.to_ndc((12, 12)))
    img = shot(base, tmp_path, "setup_deploy")
    table = table_half(img)
    h = table.shape[0]
    # the north zone (far, top of the frame) and the south zone (near, bottom) in the players' colours
    north_player = 1 if s.zones[1].id == "north" else 2
    north_ch, south_ch = (0, 2) if north_player == 1 else (2, 0)
    margin = {0: 60, 2: 30}  # the translucent blue over the table is less saturated than the red
    assert dominant(table[: h // 4], north_ch, margin[north_ch]) > 5000
    assert dominant(table[3 * h // 4:], south_ch, margin[south_ch]) > 5000
    assert dominant(table_half(zone_img)[3 * h // 4:], south_ch, margin[south_ch]) > 5000
    side = img[:, : int(img.shape[1] * 0.33)]
    assert dominant(side, 0, 90) > 100                           # the refusal in red
    assert who == s.to_act


def test_keys_turn_the_model_and_undo_steps(make, base):
    screen, _ = make()
    f = screen.flow
    to_deployment(screen)
    r = f.waiting()[0]
    screen.key("q")
    screen.key("q")
    zone = f.setup.zones[f.setup.to_act]
    y = r.radius if zone.id == "south" else f.setup.depth - r.radius
    click_table(screen, (3, y))
    assert f.facing_of(r.id) == (90.0 if zone.id == "south" else 270.0) + 30.0 % 360
    screen.key("z")
    assert r.id not in f.setup.placed


def test_a_table_that_places_the_models_hands_the_game_over_at_once(make):
    screen, games = make()
    f = screen.flow
    screen.choose_table(f.table_labels().index("default: as laid out"))
    screen.start()
    assert len(games) == 1 and len(games[0].table.models) == 12


def test_picker_screen_builds_a_warband(make, base, tmp_path):
    if not BSDATA.is_dir():
        pytest.skip(f"no BattleScribe data at {BSDATA}")
    screen, _ = make(catalogue_dir=BSDATA)
    f = screen.flow
    screen.open_picker(2)
    p = f.picker
    screen.picker_faction(p.factions().index("Ito Clan"))
    ids = screen.available_ids
    for pid in ("ishi", "ito-kaihime", "ito-masunagi"):
        screen.picker_add(ids.index(pid))
    assert p.rice == 12 + 15 + 17 and not p.problems()
    img = shot(base, tmp_path, "setup_picker")
    green = (img[..., 1] - img[..., 0] > 60) & (img[..., 1] - img[..., 2] > 60)
    assert green[:, int(img.shape[1] * 0.66):].sum() > 20                   # "A legal warband." (P.GOOD)
    screen.accept_picker()
    assert f.screen == "choose" and [q.id for q in f.warbands[2].profiles] == ["ishi", "ito-kaihime", "ito-masunagi"]


def test_destroy_removes_the_screen(make, base):
    screen, _ = make()
    to_deployment(screen)
    n_render = base.render.get_num_children()
    screen.destroy()
    assert base.render.get_num_children() < n_render
    assert base.render.find("setup-overlay").is_empty() and base.render.find("setup-ghost").is_empty()
    assert screen.root.is_empty()


def test_on_done_may_destroy_the_screen(make):
    screen, _ = make()
    f = screen.flow
    screen.on_done = lambda game: screen.destroy()              # what the window does: hand over, close
    to_deployment(screen)
    deploy_side(screen)
    deploy_side(screen)
    assert f.screen == "done" and screen.root.is_empty()
    screen.hover_ndc(0.5, 0.5)                                   # late pointer events do nothing
