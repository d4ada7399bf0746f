"""The game window (sim.view.play.window.GameWindow), offscreen: scripted clicks, drags,
keys and button presses through the same methods the window's bindings call, and the
frames checked by their pixels."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("panda3d.core")

from conftest import read_png  # noqa: E402

from sim.rules.bots import GreedyBot  # noqa: E402
from sim.rules.game import Game  # noqa: E402
from sim.table import load_table  # noqa: E402

pytestmark = pytest.mark.render

SIZE = (1024, 768)


@pytest.fixture(scope="module")
def base():
    from sim.view.play.shell import get_base

    return get_base(offscreen=True, size=SIZE)


@pytest.fixture
def make(base):
    """make(controller_kw...) -> (window, controller); every window destroyed after the test."""
    from sim.view.play.controller import PlayController
    from sim.view.play.window import GameWindow

    made = []

    def _make(game=None, **kw):
        game = game or Game(load_table(), seed=7)
        c = PlayController(game, **kw)
        w = GameWindow(base, c, animate=False)
        made.append(w)
        return w, c

    yield _make
    for w in made:
        w.destroy()


def shot(base, tmp_path, name):
    from sim.view.play.shell import screenshot

    return read_png(screenshot(base, tmp_path / f"{name}.png")).astype(int)


def box(img, rect):
    x0, y0, x1, y1 = rect
    return img[y0:y1, x0:x1]


def near(img, colour, tol=40) -> np.ndarray:
    """Mask of the pixels within ``tol`` (per channel) of ``colour`` (0-255)."""
    return (np.abs(img - np.array(colour)) <= tol).all(axis=-1)


def bright(region) -> float:
    """Share of light pixels (text) in a region."""
    return float((region.mean(axis=-1) > 150).mean())


def pixel_of(w, xy):
    col, row = w.to_pixels((xy[0], xy[1], 0.0))
    return int(round(col)), int(round(row))


def red_share(img, centre, r=4) -> float:
    """Share of player-1 red pixels (the base and figure) around a pixel."""
    x, y = centre
    patch = img[y - r:y + r + 1, x - r:x + r + 1]
    return float(((patch[..., 0] > 140) & (patch[..., 1] < 80) & (patch[..., 2] < 80)).mean())


# ------------------------------------------------------------------ selection
def test_click_on_a_model_shows_its_card_and_menu(make, base, tmp_path):
    w, c = make()
    before = shot(base, tmp_path, "before")
    w.click_ndc(*w.model_ndc("kenta"))
    assert c.selected == "kenta"
    assert w.card.model == "kenta"
    assert {"walk", "run", "charge", "focus"} <= set(w.menu.buttons)
    after = shot(base, tmp_path, "after")
    card = w.panel_pixels("card")
    assert bright(box(after, card)) > bright(box(before, card)) + 0.02  # the card's text
    menu = box(after, w.panel_pixels("menu"))
    assert near(menu, (64, 77, 102), 12).mean() > 0.05  # the action buttons' faces


def test_illegal_action_is_greyed_with_its_reasons(make):
    w, c = make()
    w.select("kenta")
    melee = next(i for i in c.menu() if i.key == "melee")
    assert not melee.enabled and melee.reasons
    from sim.view.play.panels import BUTTON_OFF

    assert tuple(w.menu.buttons["melee"]["frameColor"]) == pytest.approx(BUTTON_OFF)
    w.choose("melee")  # a click on the greyed item: every reason, nothing composed
    assert c.pending is None and w.menu.expanded == "melee"
    assert "Melee" in w.note and melee.reasons[-1] in w.note


def test_click_off_the_table_region_changes_nothing(make):
    w, c = make()
    w.select("kenta")
    w.click_ndc(-0.98, 0.0)  # the card panel
    assert c.selected == "kenta"


# ------------------------------------------------------------------ walk
def test_walk_drag_shows_ghost_and_verdict_then_moves_the_model(make, base, tmp_path):
    w, c = make()
    w.select("kenta")
    w.choose("walk")
    start = c.game.table_now().model("kenta").position
    dest = (18.5, 10.0)
    w.press_ndc(*w.model_ndc("kenta"))
    mid = w.table_ndc((20.0, 10.0))
    w.drag_ndc(*mid)
    end = w.table_ndc(dest)
    w.drag_ndc(*end)
    w.release_ndc(*end)
    p = c.pending
    assert p is not None and p.legal and p.action is not None
    assert abs(p.path[-1][0] - dest[0]) < 0.1 and abs(p.path[-1][1] - dest[1]) < 0.1
    assert w.menu.buttons["confirm"]["state"] == "normal"
    ghost = shot(base, tmp_path, "ghost")
    gx, gy = pixel_of(w, dest)
    patch = ghost[gy - 3:gy + 4, gx - 3:gx + 4]
    assert (patch.mean(axis=-1) > 190).mean() > 0.3  # the white ghost base
    w.key("enter")
    assert c.pending is None and len(c.game.actions) == 1
    moved = c.game.table_now().model("kenta").position
    assert abs(moved[0] - dest[0]) < 0.1
    img = shot(base, tmp_path, "moved")
    assert red_share(img, pixel_of(w, dest)) > 0.3
    assert red_share(img, pixel_of(w, start)) < 0.1


def test_click_on_the_table_sets_the_destination_and_turn_keys_set_the_facing(make):
    w, c = make()
    w.select("kenta")
    w.choose("walk")
    w.click_ndc(*w.table_ndc((18.5, 10.0)))
    assert c.pending.legal
    w.key("q")
    assert c.pending.action.facing is not None
    f = c.pending.action.facing
    w.key("e")
    w.key("e")
    assert (c.pending.action.facing - f) % 360 == pytest.approx(330.0)


def test_illegal_destination_shows_every_reason_and_confirm_is_greyed(make):
    w, c = make()
    w.select("kenta")
    w.choose("walk")
    w.point((22.0, 16.0))  # onto yatsumata
    assert not c.pending.legal and len(c.pending.reasons) >= 2
    assert w.menu.buttons["confirm"]["state"] == "disabled"
    w.confirm()
    assert not c.game.actions


def test_undo_button_takes_the_walk_back(make):
    w, c = make()
    w.select("kenta")
    w.choose("walk")
    w.point((18.5, 10.0))
    w.confirm()
    assert c.game.actions
    from sim.view.play.dialogs import press

    press(w.tools.buttons["undo"])
    assert not c.game.actions
    assert c.game.table_now().model("kenta").position == (21.5, 10.0)


# ------------------------------------------------------------------ melee
def _charge(w, c):
    w.select("kenta")
    w.choose("charge", 0)
    assert c.pending.legal and c.pending.path
    w.confirm()
    assert c.game.state.exchange is not None


def test_allocation_dialog_then_hand_over_hides_the_table(make, base, tmp_path):
    from sim.view.play.dialogs import HANDOVER, AllocationDialog, HandoverDialog
    from sim.view.play.panels import PANEL

    w, c = make()
    _charge(w, c)
    assert c.screen == "handover" and isinstance(w.dialog, HandoverDialog)
    img = shot(base, tmp_path, "handover")
    assert near(img, [round(255 * v) for v in HANDOVER[:3]], 6).mean() > 0.9  # table and panels hidden
    w.dialog.take()  # "Player 1: take the screen"
    assert c.screen == "allocate"
    d = w.dialog
    assert isinstance(d, AllocationDialog)
    img = shot(base, tmp_path, "allocate")
    l, r, b, t = d.rect
    a = w.layout.aspect
    x0, x1 = int((l + a) / (2 * a) * SIZE[0]), int((r + a) / (2 * a) * SIZE[0])
    y0, y1 = int((1 - t) / 2 * SIZE[1]), int((1 - b) / 2 * SIZE[1])
    face = [round(255 * v) for v in PANEL[:3]]
    assert near(box(img, (x0 + 5, y0 + 5, x1 - 5, y1 - 5)), face, 4).mean() > 0.5  # the dialog over the table
    d.choose("split", (2, 2))
    d.submit()
    assert c.screen == "handover" and isinstance(w.dialog, HandoverDialog)
    w.key("enter")  # player 2 takes the screen
    assert c.screen == "allocate" and isinstance(w.dialog, AllocationDialog)


def test_dice_panel_shows_the_exchange(make, base, tmp_path):
    w, c = make()
    _charge(w, c)
    for _player in (1, 2):
        w.take_screen()
        w.dialog.submit()
    assert c.game.state.exchange is None
    view = w.dice.view
    assert view is not None and "xchange" in view.title
    img = shot(base, tmp_path, "dice")
    dice = box(img, w.panel_pixels("dice"))
    assert near(dice, (245, 245, 235), 12).mean() > 0.01  # white die faces


def test_physical_dice_are_typed_in_the_dialog(make, base, tmp_path):
    from sim.view.play.dialogs import DiceEntryDialog

    w, c = make(dice="physical")
    _charge(w, c)
    for _player in (1, 2):
        w.take_screen()
        w.dialog.submit()
    assert c.screen == "dice" and isinstance(w.dialog, DiceEntryDialog)
    n = c.dice_request[0]
    w.key("1")  # typed into the entry, not a menu shortcut
    w.dialog.submit(" ".join(["3"] * (n + 1)))
    assert c.screen == "dice" and "asked for" in w.dialog.error["text"]
    img = shot(base, tmp_path, "physical")
    l, r, b, t = w.dialog.rect  # the dialog's box, aspect2d units -> pixels
    a, (wpx, hpx) = w.layout.aspect, img.shape[1::-1]
    dialog = box(img, (int((l + a) / (2 * a) * wpx), int((1 - t) / 2 * hpx),
                       int((r + a) / (2 * a) * wpx), int((1 - b) / 2 * hpx)))
    assert near(dialog, (242, 242, 230), 6).mean() > 0.05  # the entry's light face fills a band of it
    asked = c.dice_request
    w.dialog.submit(" ".join(["3"] * n))
    assert c.dice_request != asked or c.game.state.exchange is None  # the values were taken


# ------------------------------------------------------------------ log
def test_log_click_rings_the_models_involved(make, base, tmp_path):
    w, c = make()
    w.select("kenta")
    w.choose("walk")
    w.point((18.5, 10.0))
    w.confirm()
    i = next(k for k, e in enumerate(w.log.entries) if e.models == ["kenta"] or "kenta" in e.models)
    w.log.click(i)
    assert "kenta" in w.highlighted
    img = shot(base, tmp_path, "log")
    m = c.game.table_now().model("kenta")
    x, y = pixel_of(w, (m.position[0] + m.radius + 0.19, m.position[1]))
    patch = img[y - 3:y + 4, x - 3:x + 4]
    assert near(patch, (255, 242, 51), 50).any()  # the yellow ring beside the base


# ------------------------------------------------------------------ bots
def test_bot_game_runs_to_the_end_through_the_window_task(base, tmp_path):
    from sim.view.play.controller import PlayController
    from sim.view.play.dialogs import SummaryDialog, press
    from sim.view.play.panels import PANEL
    from sim.view.play.window import GameWindow

    g = Game(load_table(), seed=3, length=("fixed", 2))
    c = PlayController(g, bots={1: GreedyBot(1), 2: GreedyBot(2)})
    w = GameWindow(base, c, animate=True)
    try:
        ticks = 0
        animated = False
        while not g.is_over() and ticks < 2000:
            w.tick(0.5)
            animated = animated or w.animating
            ticks += 1
        assert g.is_over() and c.screen == "over"
        assert animated  # a bot's move was shown along its path
        w.tick(0.5)
        assert isinstance(w.dialog, SummaryDialog)
        img = shot(base, tmp_path, "over")
        l, r, b, t = w.dialog.rect
        a = w.layout.aspect
        x0, x1 = int((l + a) / (2 * a) * SIZE[0]), int((r + a) / (2 * a) * SIZE[0])
        y0, y1 = int((1 - t) / 2 * SIZE[1]), int((1 - b) / 2 * SIZE[1])
        inside = box(img, (x0 + 5, y0 + 5, x1 - 5, y1 - 5))
        assert 0.5 < near(inside, [round(255 * v) for v in PANEL[:3]], 4).mean() < 0.99  # the face and its text
        press(w.dialog.close)  # "Look at the table"
        assert w.dialog is None and c.screen == "over"
    finally:
        w.destroy()


def test_bot_waits_for_its_pace(make):
    w, c = make(bots={2: GreedyBot(2)})
    w.select("kenta")
    w.choose("walk")
    w.point((18.5, 10.0))
    w.confirm()
    assert c.game.to_move() == 2
    n = len(c.game.actions)
    w.tick(0.3)
    assert len(c.game.actions) == n
    w.tick(0.6)
    assert len(c.game.actions) == n + 1
    assert w.note.startswith("bot (player 2)")


# ------------------------------------------------------------------ modes
def test_manual_mode_moves_a_model_by_dragging(make):
    w, c = make()
    w.key("m")
    assert w.manual
    w.select("ton")
    start = c.game.table_now().model("ton").position
    w.press_ndc(*w.model_ndc("ton"))
    dest = (start[0] - 2.0, start[1] - 2.0)
    w.drag_ndc(*w.table_ndc(dest))
    w.release_ndc(*w.table_ndc(dest))
    moved = c.game.table_now().model("ton").position
    assert abs(moved[0] - dest[0]) < 0.1 and abs(moved[1] - dest[1]) < 0.1
    assert c.game.events[-1].kind == "adjust"
    w.adjust("wounds", None, 1)
    assert c.game.state.models["ton"].damage == 1


def test_tournament_mode_has_no_manual_adjustment(make):
    w, c = make(tournament=True)
    assert "manual" not in w.tools.buttons
    w.key("m")
    assert not w.manual and "tournament" in w.note


def test_destroy_leaves_the_showbase_clean(base):
    from sim.view.play.controller import PlayController
    from sim.view.play.window import GameWindow

    n2d, n3d = base.aspect2d.get_num_children(), base.render.get_num_children()
    w = GameWindow(base, PlayController(Game(load_table(), seed=7)), animate=False)
    w.select("kenta")
    assert base.aspect2d.get_num_children() > n2d
    w.destroy()
    assert base.aspect2d.get_num_children() == n2d
    assert base.render.get_num_children() == n3d
    assert not base.task_mgr.has_task_named("bushido-play-window") if hasattr(base.task_mgr, "has_task_named") \
        else not base.task_mgr.getTasksNamed("bushido-play-window")


def test_save_then_load_through_the_window(make, tmp_path):
    w, c = make()
    w.select("kenta")
    w.choose("walk")
    w.point((18.5, 10.0))
    w.confirm()
    path = tmp_path / "g.json"
    assert w.save(path)
    w.undo()
    assert not w.controller.game.actions
    assert w.load(path)
    assert len(w.controller.game.actions) == 1
    assert not w.load(tmp_path / "missing.json") and "not loaded" in w.note


def test_picking_up_the_selected_model_walks_runs_or_charges(make):
    w, c = make()
    w.select("kenta")
    w.press_ndc(*w.model_ndc("kenta"))
    w.drag_ndc(*w.table_ndc((19.5, 10.0)))
    assert c.pending.kind == "walk" and c.pending.legal
    w.drag_ndc(*w.table_ndc((21.5, 4.5)))  # beyond a Walk, within a Run
    assert c.pending.kind == "run" and c.pending.legal
    w.drag_ndc(*w.model_ndc("yatsumata"))  # over the enemy: its Charge
    assert c.pending.kind == "charge" and c.pending.action.target == "yatsumata"
    w.release_ndc(*w.model_ndc("yatsumata"))
    w.key("enter")
    assert c.game.state.exchange is not None


def test_moves_of_events_follow_each_model_from_where_it_was():
    from sim.rules.game import Event
    from sim.view.play.window import moves_of

    table = load_table()
    a = table.model("akira").position
    evs = [Event("move", {"model": "akira", "move": "walk", "to": [a[0] + 1, a[1]], "facing": 0, "cost": 1}),
           Event("exchange", {"summary": [], "positions": {"akira": [a[0] + 3, a[1]], "ton": list(
               table.model("ton").position)}})]
    got = moves_of(table, evs)
    assert [(m, s, e) for m, s, e, _ in got] == [("akira", a, (a[0] + 1, a[1])),
                                                  ("akira", (a[0] + 1, a[1]), (a[0] + 3, a[1]))]
    assert [m for m, *_ in moves_of(table, evs, moves=False)] == ["akira"]  # the exchange's push only


def test_render_game_png_headless(base, tmp_path):
    from sim.view.play.controller import PlayController
    from sim.view.play.window import render_game_png

    c = PlayController(Game(load_table(), seed=7))
    path = render_game_png(c, tmp_path / "menu.png", select="kenta", choose="walk", point=(18.5, 10.0),
                           size=SIZE)
    img = read_png(path).astype(int)
    assert img.shape == (SIZE[1], SIZE[0], 3)
    assert c.pending is not None and c.pending.legal
    assert base.aspect2d.find("**/+PGButton").is_empty()  # the window was destroyed after the shot
