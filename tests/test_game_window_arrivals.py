"""Flank arrivals and the leftovers of the game window (issue 12), offscreen: models due
to arrive from Elsewhere are buttons of the action panel, their arrival is put along
their edge by a click (the strip where they may arrive drawn, the ghost and verdict as
for a Walk); an Elsewhere model is never shown as killed (markers, card, hot-seat and
CLI summaries); the legend toggled with ``l``; a human's own Walk animated; the set-up
screen's Flank choice and the physical-dice roll-off, and the first turn's dice typed
before the game window opens (launch with ``dice="physical"``).

Scripted input through the same handlers the bindings call; frames checked by pixels.
Copies of the PNGs go to /work/notes/png/ when that folder exists (window_arrive,
window_legend, setup_flank, setup_physical).

Rulebook: Elsewhere p.5, Game Setup p.20, Place p.22, Tactical tests p.28, Flank p.52.
Readings: docs/rulings-project.md rows 50-53.
"""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("panda3d.core")

from conftest import read_png  # noqa: E402

from models.profiles import Trait, get_profile  # noqa: E402
from sim.geometry import base_radius  # noqa: E402
from sim.rules.bots import GreedyBot  # noqa: E402
from sim.rules.game import Action, Game  # noqa: E402
from sim.rules.setup import TableChoice, WarbandChoice  # noqa: E402
from sim.table import load_table  # noqa: E402

pytestmark = pytest.mark.render

SIZE = (1024, 768)
NOTES_PNG = Path("/work/notes/png")
R30 = base_radius(30)


@pytest.fixture(scope="module")
def base():
    from sim.view.play.shell import get_base

    return get_base(offscreen=True, size=SIZE)


@pytest.fixture
def closing():
    """closing(screen) -> screen: destroyed after the test."""
    made = []
    yield lambda s: made.append(s) or s
    for s in made:
        s.destroy()


def shot(base, tmp_path, name, keep: bool = False):
    from sim.view.play.shell import screenshot

    path = screenshot(base, tmp_path / f"{name}.png")
    if keep and NOTES_PNG.is_dir():
        shutil.copy(path, NOTES_PNG / f"{name}.png")
    return read_png(path).astype(int)


def pixel_of(w, xy, z: float = 0.0):
    col, row = w.to_pixels((xy[0], xy[1], z))
    return int(round(col)), int(round(row))


def patch(img, centre, r=3):
    x, y = centre
    return img[y - r:y + r + 1, x - r:x + r + 1]


def share(region, colour, tol) -> float:
    """Share of the pixels of ``region`` within ``tol`` (per channel) of ``colour`` (0-255)."""
    return float((np.abs(region - np.array(colour)) <= tol).all(axis=-1).mean())


def arrival_game() -> Game:
    """The default table with masunagi (player 2) held back to arrive on turn 2 along the
    east edge (not in player 1's south zone); turn 1 ends at once with akira beside the
    east edge at y = 6, where masunagi may not be put."""
    g = Game(load_table(), seed=3, length=("fixed", 3), elsewhere={"masunagi": (2, "east", "south")})
    g.set_position({"turn": 1, "phase": "main", "active": 1,
                    "models": {"akira": {"position": [22.6, 6.0], "facing": 90.0, "counters": 1}}})
    g.push(Action("wait", "akira"))
    assert g.due_arrivals() == ["masunagi"]
    return g


# ------------------------------------------------------------------ arrivals in the window
def test_due_flank_model_is_a_button_and_arrives_by_a_click_along_its_edge(base, closing, tmp_path):
    from sim.view.play.controller import PlayController
    from sim.view.play.dialogs import press
    from sim.view.play.window import ARRIVAL_OK, ARRIVAL_REFUSED, GameWindow

    g = arrival_game()
    c = PlayController(g, bots={1: GreedyBot(1)})
    w = closing(GameWindow(base, c, animate=False))
    assert w.arrivals_due() == [("masunagi", "masunagi: arrives along the east edge")]
    assert w.menu.mode == "arrivals" and "place:masunagi" in w.menu.buttons  # off the table: a button
    press(w.menu.buttons["place:masunagi"])
    assert c.selected == "masunagi" and "arrive" in w.menu.buttons
    assert w.card.note == "Elsewhere: arrives now along the east edge (Flank, p.52)."
    # the strip along the east edge: legal, except beside akira (an enemy at y = 6)
    (mid, segs), = w.arrival_drawn
    assert mid == "masunagi" and len(segs) == 48
    assert all(a[0] == pytest.approx(24 - R30) for a, _b, _ok in segs)
    refused = [(a[1] + b[1]) / 2 for a, b, ok in segs if not ok]
    assert refused and all(4.0 < y < 8.0 for y in refused) and sum(ok for *_p, ok in segs) > 40
    w.choose("arrive")
    w.click_ndc(*w.table_ndc((20.0, 11.0)))  # inside the table: put against the east edge
    p = c.pending
    assert p.legal and p.action.point == pytest.approx((24 - R30, 11.0), abs=1e-4) and p.action.facing == 180.0
    assert w.arrival_ghost[2] is True
    w.key("q")  # the player placing a model chooses its facing (p.22)
    assert c.pending.action.facing == 195.0 and c.pending.legal
    img = shot(base, tmp_path, "window_arrive", keep=True)
    assert share(patch(img, pixel_of(w, (24 - R30, 11.0), 0.13)), (255, 255, 255), 70) > 0.3  # the white ghost
    strip_ok = patch(img, pixel_of(w, (24 - R30 + 0.3, 18.0)), 2)
    strip_bad = patch(img, pixel_of(w, (24 - R30 + 0.3, 6.2)), 2)
    assert strip_ok[..., 1].mean() > strip_ok[..., 0].mean() + 20    # teal-tinted table (ARRIVAL_OK)
    assert strip_bad[..., 0].mean() > strip_bad[..., 1].mean() + 20  # red-tinted (ARRIVAL_REFUSED)
    assert ARRIVAL_OK[1] > ARRIVAL_OK[0] and ARRIVAL_REFUSED[0] > ARRIVAL_REFUSED[1]
    # a refused place: the ghost turns red with every reason in the panel
    w.click_ndc(*w.table_ndc((23.0, 6.0)))
    assert not c.pending.legal and c.pending.reasons and w.arrival_ghost[2] is False
    bad = shot(base, tmp_path, "refused")
    gx, gy = pixel_of(w, c.pending.action.point, 0.13)
    assert (bad[gy - 2:gy + 3, gx - 2:gx + 3, 0] > 180).mean() > 0.3
    w.click_ndc(*w.table_ndc((20.0, 11.0)))
    w.key("q")
    w.key("enter")
    m = g.state.models["masunagi"]
    assert m.alive and m.position == pytest.approx((24 - R30, 11.0), abs=1e-4) and m.facing == 210.0  # q twice
    assert g.state.phase == "main" and w.arrival_drawn == [] and w.where_note("masunagi") == ""
    after = shot(base, tmp_path, "arrived")
    x, y = pixel_of(w, m.position, 0.3)
    blue = after[y - 4:y + 5, x - 4:x + 5]
    assert ((blue[..., 2] > 140) & (blue[..., 0] < 90)).mean() > 0.2  # the arrived blue figure


def test_an_arrival_is_dragged_along_the_edge(base, closing):
    from sim.view.play.controller import PlayController
    from sim.view.play.window import GameWindow

    c = PlayController(arrival_game(), bots={1: GreedyBot(1)})
    w = closing(GameWindow(base, c, animate=False))
    w.key("tab")  # the due model is the one that may act
    assert c.selected == "masunagi"
    w.key("1")
    assert c.pending is not None and c.pending.kind == "arrive"
    w.press_ndc(*w.table_ndc((22.0, 14.0)))  # near the edge: a drag of the base, not the camera
    w.drag_ndc(*w.table_ndc((21.5, 15.0)))
    w.release_ndc(*w.table_ndc((21.0, 16.0)))
    assert c.pending.legal and c.pending.action.point == pytest.approx((24 - R30, 16.0), abs=1e-4)


def test_an_elsewhere_model_is_shown_as_elsewhere_never_killed(base, closing, tmp_path, capsys):
    from sim.cli.hotseat import brief_view
    from sim.cli.main import main
    from sim.view.play.controller import PlayController
    from sim.view.play.state import conditions_text, model_markers
    from sim.view.play.window import GameWindow

    g = Game(load_table(), seed=3, elsewhere={"masunagi": (3, "east", "south")})
    c = PlayController(g)
    c.adjust_wounds("ishi", 10)  # killed by a manual adjustment
    mk = model_markers(g)
    assert mk["masunagi"].elsewhere and not mk["masunagi"].killed and not mk["masunagi"].alive
    assert mk["ishi"].killed and not mk["ishi"].elsewhere
    assert conditions_text(mk, "masunagi") == "masunagi: Elsewhere (held back by Flank, p.52)"
    assert conditions_text(mk, "ishi") == "ishi: killed"
    lines = brief_view(g, 1).splitlines()
    assert any("masunagi" in ln and "Elsewhere" in ln for ln in lines)
    assert any("ishi" in ln and "killed" in ln for ln in lines)
    g.save(tmp_path / "g.json")
    assert main(["replay", str(tmp_path / "g.json")]) == 0  # its game summary
    summary = capsys.readouterr().out.splitlines()
    assert any("masunagi" in ln and "Elsewhere" in ln and "killed" not in ln for ln in summary)
    assert any(ln.split() == ["ishi", "killed"] for ln in summary)
    w = closing(GameWindow(base, c, animate=False))
    w.select("masunagi")  # not due yet: its turn and edge stay hidden (p.52)
    assert w.card.note == "Elsewhere: held back by Flank, off the table until it arrives (p.5, p.52)."
    assert "east" not in w.card.note and w.arrivals_due() == [] and w.arrival_drawn == []
    w.select("ishi")
    assert w.card.note == "Killed: removed from the table."


# ------------------------------------------------------------------ legend, animation
def test_l_shows_the_legend_over_the_right_of_the_table_and_hides_it(base, closing, tmp_path):
    from sim.view.play.controller import PlayController
    from sim.view.play.window import GameWindow

    w = closing(GameWindow(base, PlayController(Game(load_table(), seed=7)), animate=False))
    assert not w.legend_shown and w.legend is None  # hidden by default (shown when a player opens the window)
    before = shot(base, tmp_path, "no_legend")
    w.select("kenta")
    w.key("l")
    assert w.legend_shown and w.legend is not None and w.tools.buttons["legend"]["text"] == "Legend: on"
    img = shot(base, tmp_path, "window_legend", keep=True)
    x0, y0, x1, y1 = w.panel_pixels("table")
    right = img[y0 + 5:y1 - 5, x1 - 100:x1 - 5]
    left = img[y0 + 5:y1 - 5, x0 + 5:x0 + 100]
    dark = (right.max(axis=-1) < 40).mean()
    assert dark > 0.5 and dark > (before[y0 + 5:y1 - 5, x1 - 100:x1 - 5].max(axis=-1) < 40).mean() + 0.2
    assert (right.mean(axis=-1) > 180).mean() > 0.002  # its words
    assert np.abs(left - before[y0 + 5:y1 - 5, x0 + 5:x0 + 100]).mean() < 25  # the left of the table stays
    w.ask_save()  # a dialog hides it
    w.tick(0.0)
    assert w.legend is None and w.legend_shown
    w.key("escape")
    w.tick(0.0)
    assert w.legend is not None
    w.key("l")
    assert not w.legend_shown and w.legend is None and w.tools.buttons["legend"]["text"] == "Legend (l)"


def test_a_session_opens_the_window_with_the_legend_and_a_new_game_keeps_the_choice(base, closing):
    from sim.view.play.launch import Launch, Session

    session = closing(Session(base, Launch(table=load_table(), seed=7), animate=False, legend=True))
    assert session.window.legend_shown and session.window.legend is not None  # the first start
    session.window.key("l")
    session.new_game()
    assert session.window is None and session.setup is not None and session.legend is False


def test_a_humans_own_walk_is_animated(base, closing, tmp_path):
    from sim.view.play.controller import PlayController
    from sim.view.play.window import ANIM_SECONDS, GameWindow

    c = PlayController(Game(load_table(), seed=7))
    w = closing(GameWindow(base, c, animate=True))
    w.select("kenta")
    w.choose("walk")
    w.point((18.5, 10.0))
    assert c.pending.legal
    w.confirm()
    assert w.animating and c.game.table_now().model("kenta").position[0] == pytest.approx(18.5, abs=0.1)
    w.tick(ANIM_SECONDS * 0.5)
    img = shot(base, tmp_path, "halfway")
    x, y = pixel_of(w, (20.0, 10.0), 0.3)  # halfway from (21.5, 10): the figure passes there
    red = img[y - 4:y + 5, x - 4:x + 5]
    assert ((red[..., 0] > 140) & (red[..., 1] < 80) & (red[..., 2] < 80)).mean() > 0.2
    w.tick(ANIM_SECONDS)
    assert not w.animating


# ------------------------------------------------------------------ set-up screens
def _flank_flow(tmp_path, **kw):
    """A set-up flow on a small table: player 1 akira and kokkio (given Flank), player 2 ishi."""
    from sim.view.play.setup_flow import SetupFlow

    flanker = replace(get_profile("kokkio"), traits=get_profile("kokkio").traits + (Trait("flank", None, None,
                                                                                         "Flank"),))
    p = tmp_path / "t.yaml"
    p.write_text("format: bushido-table/1\nname: t\ntable: {width: 24, depth: 24}\nterrain:\n"
                 "  - {id: pond, preset: pond, circle: {center: [12, 15], radius: 1.5}}\n")
    f = kw.pop("flow", None) or SetupFlow(seed=1, catalogue_dir=None, **kw)
    f.table_choices, f.table_index = [TableChoice.file(p)], 0
    f.warbands = {1: WarbandChoice("custom", (get_profile("takashi-akira"), flanker), {"kind": "custom"}),
                  2: WarbandChoice("custom", (get_profile("ishi"),), {"kind": "custom"})}
    return f


def test_the_setup_screen_offers_the_flank_choices_with_the_refused_greyed(base, closing, tmp_path):
    from sim.view.play.dialogs import press
    from sim.view.play.panels import BUTTON_OFF
    from sim.view.play.setup_screens import SetupScreen

    f = _flank_flow(tmp_path)
    s = closing(SetupScreen(base, lambda g: None, flow=f))
    s.start()
    s.roll()
    s.choose_zone("south")
    s.choose_first(1)
    assert f.selected == "takashi-akira" and s.flank_buttons == {}  # no Flank trait: no choice
    s.select_model([r.id for r in f.waiting()].index("kokkio"))
    assert len(s.flank_buttons) == 12
    north = s.flank_buttons[(2, "north")]
    assert tuple(north["frameColor"]) == pytest.approx(BUTTON_OFF)  # wholly in the opponent's zone
    img = shot(base, tmp_path, "setup_flank", keep=True)
    side = img[:, :int(img.shape[1] * 0.33)]
    assert share(side, (77, 97, 77), 8) > 0.01  # the allowed choices' green faces
    press(north)  # a greyed choice answers with its reason
    assert [r.code for r in f.refusals] == ["flank-edge-zone"] and f.setup.flanking == {}
    press(s.flank_buttons[(3, "west")])
    assert f.setup.flanking == {"kokkio": (3, "west")} and "west" not in f.message


def test_physical_dice_setup_types_the_roll_off_and_the_first_turn_before_the_window(base, closing, tmp_path):
    from sim.view.play.controller import TypedDice
    from sim.view.play.launch import Launch, Session

    session = Session(base, Launch(setup=True, dice="physical", seed=1), animate=False)
    closing(session)
    s = session.setup
    f = _flank_flow(tmp_path, flow=s.flow)
    assert f.physical
    s.start()
    s.key("enter")  # nothing typed yet: refused, asking for the values
    assert f.phase == "roll_off" and f.refusals[0].code == "dice-needed"
    s.dice_entry.enterText("4 4")
    s.key("enter")
    assert f.phase == "roll_off" and f.typed_dice == [4, 4] and "typed so far: 4 4" in f.roll_off_prompt()
    img = shot(base, tmp_path, "setup_physical", keep=True)
    side = img[:, :int(img.shape[1] * 0.33)]
    assert share(side, (242, 242, 230), 6) > 0.01  # the light entry
    assert ((side[..., 0] - side[..., 1]) > 60).sum() > 100  # the red reason: 2 more d6 needed
    s.roll_typed("six one")
    assert s.entry_error == "not whole numbers: six one" and f.typed_dice == [4, 4]
    s.roll_typed("6, 1")
    assert f.phase == "zone" and f.setup.roll.winner == 1 and f.setup.steps[0].dice == (4, 4, 6, 1)
    s.choose_zone("south")
    s.choose_first(1)
    s.select_model([r.id for r in f.waiting()].index("kokkio"))
    s.flank(2, "west")
    s.click_ndc(*s.cam.to_ndc((5.0, R30 + 0.3)))
    s.click_ndc(*s.cam.to_ndc((5.0, 24 - R30 - 0.3)))
    assert f.screen == "done" and session.window is None  # the game waits for the first turn's dice
    d = s.dice_dialog
    assert d is not None and d.n == 1
    d.submit("3 3")
    assert s.dice_dialog is d and d.error["text"] == "2 values given, 1 asked for"
    d.submit("5")
    assert s.dice_dialog is not None and "player 2" in s.dice_dialog.widgets[0]["text"]
    s.dice_dialog.submit("2")
    w = session.window
    assert w is not None and session.setup is None
    g = w.controller.game
    assert isinstance(g.dice, TypedDice) and w.controller.dice_mode == "physical"
    assert g.rolls[0] == (5, 2) and g.state.turn == 1 and g.held_back["kokkio"].edge == "west"
