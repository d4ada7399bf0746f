"""The set-up of a networked game in the window (issue 14, sim/view/play/remote_setup.py).

The controller (:class:`RemoteSetup`) and the screen are driven through the handlers the
window uses, against a fake client whose messages come from a real
:class:`~sim.net.session.HostedGame` whose set-up the seats play (``main.py new --warbands
A,B --setup``), published as the server does, through JSON, with no sockets. Then one
offscreen PNG of the deployment screen of a real loopback server's game (``run_server``
on port 0, a greedy bot on the other seat), checked by its pixels; the set-up is played
to its end there and the game window takes over in the same window.
"""

from __future__ import annotations

import asyncio
import json
import re
import threading
import time

import pytest

from sim.net.client import Mirror
from sim.net.session import HostedGame
from sim.net.setup_stage import SetupStage, step_view
from sim.table import DEFAULT_TABLE
from sim.view.play.remote_setup import RemoteSetup, snap_point, step_words
from tests.conftest import loopback_server

BSDATA = DEFAULT_TABLE.parents[2].parent / "shared" / "bsdata"
pytestmark = pytest.mark.skipif(not BSDATA.is_dir(), reason="../shared/bsdata is not there")
WARBANDS = ["Prefecture of Ryu", "Cult of Yurei"]
TIMEOUT = 60.0
#: The seed of the set-ups: player 2's warband has Batu (Flank, p.52) and Rokuro (Scout 1/4", p.57).
SEED = 3


# ------------------------------------------------------------------ a server without sockets
@pytest.fixture(scope="module")
def spec():
    """The stored spec of a set-up (the catalogues are read once; each test rebuilds it)."""
    return SetupStage.new(DEFAULT_TABLE.read_text(encoding="utf-8"), WARBANDS, SEED, 70, None, None,
                          str(BSDATA)).to_spec()


class FakeServer:
    """A :class:`HostedGame` playing its set-up and the server's publishing (each viewer
    its own view, as JSON text), no sockets: what a client sends waits in its outbox
    until :meth:`deliver`."""

    def __init__(self, spec: dict) -> None:
        self.h, _ = HostedGame.create_setup("g1", SetupStage.from_spec(spec), {})
        self.clients: list[FakeRemote] = []

    def join(self, seat: int | None) -> "FakeRemote":
        r = FakeRemote(self, seat)
        self.clients.append(r)
        self.h.join(seat)
        r.inbox.append(_wire({"type": "welcome", **self.h.view(seat)}))
        for other in self.clients:
            if other is not r:
                other.inbox.append(_wire({"type": "status", "status": self.h.status()}))
        return r

    def leave(self, seat: int) -> None:
        """``seat``'s connection dropped: every other viewer is told the status."""
        self.h.leave(seat)
        for c in self.clients:
            if c.mirror.seat != seat:
                c.inbox.append(_wire({"type": "status", "status": self.h.status()}))

    def deliver(self) -> int:
        """Judge every message the clients sent, in order; returns how many."""
        n = 0
        for r in self.clients:
            while r.outbox:
                doc = r.outbox.pop(0)
                assert doc["type"] == "setup", doc
                out = self.h.setup_step(r.mirror.seat, doc["step"], doc["auto"])
                n += 1
                if out.error is not None:
                    r.inbox.append(_wire(out.error))
                    continue
                for c in self.clients:
                    seat = c.mirror.seat
                    if out.setup is not None:
                        c.inbox.append(_wire({"type": "setup_update", "step": step_view(out.setup, seat),
                                              "setup": self.h.stage.view(seat) if self.h.stage is not None else None,
                                              "status": self.h.status()}))
                    if out.state:
                        c.inbox.append(_wire({"type": "state", **self.h.view(seat)}))
        return n


def _wire(doc: dict) -> dict:
    return json.loads(json.dumps(doc, allow_nan=False))


class FakeRemote:
    """What :class:`RemoteSetup` (and then the game window) needs of a client:
    ``mirror``, ``send``, ``act``, ``poll``, ``connected``."""

    def __init__(self, server: FakeServer, seat: int | None) -> None:
        self.server = server
        self.mirror = Mirror(seat)
        self.inbox: list[dict] = []
        self.outbox: list[dict] = []
        self.connected = True

    def send(self, doc: dict) -> None:
        self.outbox.append(json.loads(json.dumps(doc)))

    def act(self, action, declare: bool = False) -> None:
        self.send({"type": "action", "action": action.to_json(), "seen": len(self.mirror.game.actions),
                   "declare": declare})

    def poll(self) -> list[dict]:
        msgs, self.inbox = self.inbox, []
        for m in msgs:
            self.mirror.apply(m)
        return msgs


def _seated(spec):
    srv = FakeServer(spec)
    ctrls = [RemoteSetup(srv.join(s)) for s in (1, 2, None)]
    for c in ctrls:
        c.sync()
    return srv, ctrls


def _round(srv, *ctrls):
    srv.deliver()
    for c in ctrls:
        c.sync()


def _to_deploy(srv, c1, c2, spec_c, first: int | None = None):
    """The roll-off, the zone and who deploys first, taken through the controllers'
    buttons (the winner takes the south zone and lets ``first`` deploy first, itself by
    default); returns the controller of the seat that deploys first."""
    assert c1.roll()
    _round(srv, c1, c2, spec_c)
    w = c1.view["roll"]["winner"]
    cw = (c1, c2)[w - 1]
    cw.choose_zone("south")
    _round(srv, c1, c2, spec_c)
    first = first or w
    cw.choose_first(first)
    _round(srv, c1, c2, spec_c)
    assert cw.phase == "deploy" and cw.to_act == first
    return (c1, c2)[first - 1]


# ------------------------------------------------------------------ the controller
def test_the_roll_off_zone_and_first_are_sent_as_steps_and_refused_out_of_turn(spec):
    srv, (c1, c2, sp) = _seated(spec)
    assert c1.phase == c2.phase == sp.phase == "roll_off"
    assert c1.my_step() and c2.my_step() and not sp.my_step()  # either seat starts the roll-off
    assert not sp.roll() and sp.remote.outbox == [] and "spectator" in sp.refusal
    assert c1.roll()
    assert c1.remote.outbox == [{"type": "setup", "step": {"kind": "roll_off", "player": 0}, "auto": False}]
    assert not c1.roll() and "still with the server" in c1.refusal  # one step at a time
    _round(srv, c1, c2, sp)
    assert c1.sent is None and c1.phase == "zone"
    roll = sp.view["roll"]
    assert roll["winner"] in (1, 2) and roll["lines"][-1].endswith(f"player {roll['winner']} wins")
    w = roll["winner"]
    cw, cl = (c1, c2) if w == 1 else (c2, c1)
    assert "the roll-off" in cl.note or cl is c1
    assert [z[2] for z in cw.zones_to_draw()] == ["south", "north"]  # the options, drawn in amber
    # the loser may not choose: refused here, nothing sent
    assert not cl.choose_zone("north") and cl.remote.outbox == [] and f"waiting for player {w}" in cl.refusal
    assert cw.choose_zone("nowhere")  # sent: the server judges the id
    _round(srv, c1, c2, sp)
    assert cw.phase == "zone" and "p.63" in cw.refusal and "nowhere" in cw.refusal and cw.sent is None
    assert cw.choose_zone("south")
    assert cw.remote.outbox == [{"type": "setup", "step": {"kind": "zone", "player": w, "zone": "south"},
                                 "auto": False}]
    _round(srv, c1, c2, sp)
    assert cw.zone(w).id == "south" and cl.zone(3 - w).id == "north"
    assert [(p, label) for p, _g, label in sp.zones_to_draw()] == [(1, "player 1"), (2, "player 2")]
    assert cl.note == f"player {w} takes the south zone"
    assert cw.choose_first(3 - w)
    _round(srv, c1, c2, sp)
    assert cw.phase == "deploy" and cw.to_act == 3 - w and cl.my_step() and not cw.my_step()
    assert cl.turn_line() == "Your step: deployment" and cw.turn_line() == f"Waiting for player {3 - w}: deployment"


def test_a_refused_placement_shows_its_reasons_and_changes_nothing_a_legal_one_is_the_right_step(spec):
    srv, (c1, c2, sp) = _seated(spec)
    c = _to_deploy(srv, c1, c2, sp)
    p = c.seat
    other = c2 if c is c1 else c1
    model = c.selected
    assert model == c.waiting()[0]["id"] and model in c.view["waiting"][str(p)]
    r = c.recruit(model)
    g = c.ghost((12.0, 12.0))  # the table's centre: in no zone -- the hint says so
    assert g is not None and not g.legal and any(x.code == "outside-zone" for x in g.refusals)
    before = json.dumps(c.view, sort_keys=True)
    assert c.click((12.0, 12.0))
    sent = c.remote.outbox[0]["step"]
    assert sent["kind"] == "deploy" and sent["model"] == model and sent["point"] == [12.0, 12.0]
    _round(srv, c1, c2, sp)
    assert c.sent is None and "p.63" in c.refusal and "does not touch the south baseline" in c.refusal
    assert json.dumps(c.view, sort_keys=True) == before  # nothing changed
    # a click 0.3" off the baseline snaps to touch it, facing the opponent (north)
    g = c.ghost((5.0, r["radius"] + 0.3))
    assert g is not None and g.legal and g.point == (5.0, r["radius"]) and g.rotation == 90.0
    assert c.click((5.0, r["radius"] + 0.3))
    assert c.remote.outbox == [{"type": "setup", "auto": False, "step": {
        "kind": "deploy", "player": p, "model": model, "point": [5.0, r["radius"]], "facing": 90.0}}]
    _round(srv, c1, c2, sp)
    assert c.refusal == "" and c.sent is None and model not in c.view["waiting"][str(p)]
    placed = c.table().model(model)
    assert placed.position == pytest.approx((5.0, r["radius"])) and placed.facing == 90.0
    assert other.note.startswith(f"player {p} deploys {model} at (5.0,")
    assert sp.table().model(model).player == p  # the spectator sees it placed
    assert c.selected == c.waiting()[0]["id"] != model  # the next one is selected
    # a base on top of it: the hint foresees the overlap, the server refuses it
    g = c.ghost((5.0, r["radius"]))
    assert g is not None and any(x.code == "overlap" for x in g.refusals)
    n = len(c.steps())
    c.click((5.0, r["radius"]))
    _round(srv, c1, c2, sp)
    assert "overlaps the base of " + model in c.refusal and len(c.steps()) == n
    # turned with q/e: the facing offset goes into the step
    c.rotate(15.0)
    c.deploy((9.0, 0.2))
    assert c.remote.outbox[-1]["step"]["facing"] == 105.0
    _round(srv, c1, c2, sp)
    # a model without Flank: the choice is not offered, and a Flank step sent anyway is
    # refused by the server with the rule's page (p.52)
    c.select(next(r["id"] for r in c.waiting() if not r["flank"]))
    assert not c.can_flank() and c.flank_options() == []
    assert c.flank(2, "west")
    _round(srv, c1, c2, sp)
    assert "has no Flank trait" in c.refusal and "p.52" in c.refusal
    assert c.done()  # models left: refused by the server (p.57)
    _round(srv, c1, c2, sp)
    assert "first" in c.refusal and "p.57" in c.refusal


def test_flank_with_its_turn_and_edge_hidden_from_the_other_seat_then_the_scout_deployment(spec):
    srv, (c1, c2, sp) = _seated(spec)
    c = _to_deploy(srv, c1, c2, sp, first=2)
    assert c is c2 and c.my_step()
    assert [r["id"] for r in c.waiting()][-1] == "rokuro"  # the Scout last in the normal deployment
    c.select("batu")
    assert c.can_flank()
    opts = c.flank_options()
    assert len(opts) == 12  # turns 2-4 x the four edges (p.52)
    own = c1.zone(1).id  # player 1's baseline edge is wholly in its zone: refused
    refused = {(t, e) for t, e, why in opts if why}
    assert refused == {(t, own) for t in (2, 3, 4)}
    assert all(why[0].code == "flank-edge-zone" for _t, _e, why in opts if why)
    assert c.flank(3, "west")
    assert c.remote.outbox == [{"type": "setup", "auto": False, "step": {
        "kind": "flank", "player": 2, "model": "batu", "turn": 3, "edge": "west"}}]
    _round(srv, c1, c2, sp)
    assert c.view["flanking"] == {"batu": {"turn": 3, "edge": "west"}}
    assert c1.view["flanking"] == sp.view["flanking"] == {"batu": {}}  # noted in secret
    assert c1.note == "player 2 holds batu back to Flank (turn and edge secret)"
    assert "1 held back to Flank" in c.progress()[1] and "1 held back to Flank" in c1.progress()[1]
    assert "west" not in json.dumps(c1.view) and "west" not in json.dumps(sp.view)
    edge = 0.0 if c.zone(2).id == "south" else c.depth  # clicked on the edge: snapped onto the table
    for r in c.waiting()[:-1]:  # the others deployed, the Scout kept back
        c.select(r["id"])
        for k in range(16):  # along the baseline from its middle, until no other base is in the way
            c.deploy((c.width / 2 + (-1) ** k * (k // 2) * 1.5, edge))
            _round(srv, c1, c2, sp)
            if not c.refusal:
                break
    assert [r["id"] for r in c.waiting()] == ["rokuro"]
    assert c.done()  # "Keep the Scouts back" (p.57)
    _round(srv, c1, c2, sp)
    assert c.refusal == "" and 2 in c.view["finished"] and c1.my_step()
    while c1.my_step():
        c1.auto()
        _round(srv, c1, c2, sp)
    assert c.phase == "scouts" and c.to_act == 2 and c.selected == "rokuro"
    assert [label for _p, _g, label in c.zones_to_draw()][-1] == "scout"
    r = c.recruit("rokuro")
    zone = c.zone(2)
    y = r["radius"] + 2.0 if zone.id == "south" else c.depth - r["radius"] - 2.0  # 2" out: within 4"
    x = next(float(v) for v in range(2, 22) if c.ghost((float(v), y)).legal)
    assert c.ghost((x, y)).point == (x, y)  # a Scout's point is not snapped to the baseline
    assert c.click((x, y))
    _round(srv, c1, c2, sp)
    assert c.refusal == "" and c.started and c1.started and sp.started
    assert c.mirror.game.state.models["rokuro"].position == pytest.approx((x, y))


EMPTY_TABLE = "format: bushido-table/1\nname: empty\ntable: {width: 24, depth: 24}\nterrain: []\nmodels: []\n"


def test_terrain_on_an_empty_table_placed_piece_by_piece_then_stopped(spec):
    stage = SetupStage.new(EMPTY_TABLE, WARBANDS, SEED, 70, None, None, str(BSDATA))
    srv, (c1, c2, sp) = _seated(stage.to_spec())
    c1.roll()
    _round(srv, c1, c2, sp)
    assert c1.phase == "terrain" and not c1.table().terrain
    w = c1.view["roll"]["winner"]
    cw, cl = (c1, c2) if w == 1 else (c2, c1)
    assert cw.my_step() and not cl.my_step() and cw.ghost((12.0, 12.0)).kind == "terrain"
    assert cl.ghost((12.0, 12.0)) is None  # not its step: a click sends nothing
    g = cw.ghost((0.5, 12.0))  # past the 2" from the edge (p.62): foreseen, and refused by the server
    assert g is not None and not g.legal
    cw.click((0.5, 12.0))
    _round(srv, c1, c2, sp)
    assert cw.refusal and "p.62" in cw.refusal and not cw.table().terrain
    assert cw.stop_terrain()  # fewer than 6 pieces: refused (p.20)
    _round(srv, c1, c2, sp)
    assert "at least 6" in cw.refusal
    spots = [(6.0, 6.0), (18.0, 6.0), (6.0, 18.0), (18.0, 18.0), (12.0, 12.0), (12.0, 3.5)]
    for i, pt in enumerate(spots):
        c = (cw, cl)[i % 2]  # the players place alternately
        assert c.my_step()
        c.set_preset("lone-tree" if i % 2 else "fog")
        c.rotate(15.0)
        assert c.ghost(pt).legal, c.ghost(pt).refusals
        assert c.click(pt)
        step = c.remote.outbox[-1]["step"]
        assert step == {"kind": "terrain", "player": c.seat, "preset": c.preset, "point": list(pt),
                        "rotation": c.rotation}
        _round(srv, c1, c2, sp)
        assert c.refusal == "" and len(sp.table().terrain) == i + 1 and c.pieces_placed() == i + 1
    assert cw.stop_terrain()
    _round(srv, c1, c2, sp)
    assert cw.terrain_stopped() and cl.my_step() and "one last piece" in cl.hints()[0]
    assert cl.stop_terrain()
    _round(srv, c1, c2, sp)
    assert c1.phase == "zone" and c1.view["chooser"] == cw.seat  # who stopped first chooses the zone (p.20 4c)


def test_auto_finishes_the_set_up_and_the_game_starts_for_every_viewer(spec):
    srv, (c1, c2, sp) = _seated(spec)
    c1.auto()
    assert c1.remote.outbox == [{"type": "setup", "step": None, "auto": True}]
    for _ in range(60):
        _round(srv, c1, c2, sp)
        if c1.started:
            break
        for c in (c1, c2):
            if c.my_step():
                c.auto()
    assert c1.started and c2.started and sp.started and c1.phase == "done"
    assert c1.mirror.game.log() == c2.mirror.game.log()
    assert c1.turn_line() == "The set-up is done: the game starts."


def test_snap_and_step_words():
    from sim.rules.setup import make_zone

    z = make_zone("corner_square", "south-west", 24, 24)
    assert snap_point(z, (6.3, 3.0), 0.5, 24, 24) == (5.5, 3.0)  # into the square
    assert snap_point(z, (6.3, 3.0), 0.5, 24, 24, normal=False) == (6.3, 3.0)  # a Scout's point is kept
    assert step_words({"kind": "first", "player": 2, "first": 1}) == "player 2: player 1 deploys first"
    assert step_words({"kind": "roll_off", "player": 0, "dice": [6, 5]}) == "the roll-off (6 5)"


# ------------------------------------------------------------------ the screen (offscreen)
def _press(button) -> None:
    """Click a DirectButton: its command with its extra arguments."""
    button["command"](*button["extraArgs"])


@pytest.fixture(scope="module")
def base():
    pytest.importorskip("panda3d.core")
    from sim.view.play.shell import get_base

    return get_base(offscreen=True, size=(1024, 768))


@pytest.mark.render
def test_the_screen_shows_the_buttons_of_the_step_and_the_game_window_takes_over(base, spec):
    from sim.view.play.remote import RemoteSession, RemoteWindow

    srv = FakeServer(spec)
    r1, r2, rs = srv.join(1), srv.join(2), srv.join(None)
    for r in (r1, r2, rs):
        r.poll()
    now = [100.0]
    s1 = RemoteSession(base, r1, animate=False, clock=lambda: now[0])
    try:
        scr = s1.setup_screen
        assert scr is not None and s1.window is None
        assert "roll" in scr.buttons and "auto" in scr.buttons
        assert any("You are player 1" in ln and "player 2 connected" in ln for ln in scr.lines)
        srv.leave(2)  # player 2's connection drops: the time away counts on, once a second
        s1.tick()
        assert any("waiting for player 2 (away 0:00)" in ln for ln in scr.lines)
        now[0] += 65.2
        s1.tick()
        assert any("waiting for player 2 (away 1:05)" in ln for ln in scr.lines)
        srv.h.join(2)
        _press(scr.buttons["roll"])  # the Roll off button
        assert r1.outbox[0]["step"] == {"kind": "roll_off", "player": 0}
        c2 = RemoteSetup(r2)
        _round(srv)
        s1.tick()
        c2.sync()
        w = scr.setup.view["roll"]["winner"]
        assert any(f"player {w} wins" in ln for ln in scr.lines)
        while scr.setup.phase != "deploy" or scr.setup.to_act != 1:  # the other seat's steps by the engine
            if scr.setup.my_step():
                key = next(k for k in scr.buttons if k.startswith(("zone:", "first:")))
                _press(scr.buttons["first:1" if key.startswith("first:") else key])
            elif c2.my_step():
                c2.auto()
            _round(srv)
            s1.tick()
            c2.sync()
        names = [k for k in scr.buttons if k.startswith("model:")]
        assert names and f"model:{scr.setup.selected}" == names[0]
        second = names[1].split(":", 1)[1]
        _press(scr.buttons[names[1]])  # select another model
        assert scr.setup.selected == second
        zone = scr.setup.zone(1)
        y = scr.setup.recruit(second)["radius"] if zone.id == "south" else 24 - scr.setup.recruit(second)["radius"]
        ndc = scr.cam.to_ndc((3.0, y))
        scr.press_ndc(*ndc)
        scr.release_ndc(*ndc)  # a click on the table: the step sent
        step = r1.outbox[-1]["step"]
        assert step["kind"] == "deploy" and step["model"] == second and abs(step["point"][0] - 3.0) < 0.3
        _round(srv)
        s1.tick()
        assert scr.setup.refusal == "" and second not in scr.setup.view["waiting"]["1"]
        ndc = scr.cam.to_ndc((12.0, 12.0))
        scr.click_ndc(*ndc)
        _round(srv)
        s1.tick()
        assert any("Refused by the server:" in ln for ln in scr.lines) and any("p.63" in ln for ln in scr.lines)
        # a spectator's screen: the same set-up, no buttons but the camera
        spec_s = RemoteSession(base, rs, animate=False)
        try:
            spec_s.tick()
            assert set(spec_s.setup_screen.buttons) == {"view"}
            assert any("Watching (spectator)" in ln for ln in spec_s.setup_screen.lines)
        finally:
            spec_s.destroy()
        for _ in range(80):  # the rest by the engine's policy: the game comes, the window swaps
            if s1.setup_screen is None:
                break
            if scr.setup.my_step():
                _press(scr.buttons["auto"])
            elif c2.my_step():
                c2.auto()
            _round(srv)
            c2.sync()
            s1.tick()
        assert s1.setup_screen is None and isinstance(s1.window, RemoteWindow)
        assert s1.window.controller.game is r1.mirror.game and r1.mirror.game.state.models
        assert scr.root.is_empty()  # the set-up screen's widgets are gone
    finally:
        s1.destroy()


@pytest.mark.render
def test_the_terrain_screen_offers_the_presets_and_stops_from_six_pieces(base, tmp_path):
    from sim.view.play.remote import RemoteSession
    from sim.view.play.shell import screenshot

    stage = SetupStage.new(EMPTY_TABLE, WARBANDS, SEED, 70, None, None, str(BSDATA))
    srv = FakeServer(stage.to_spec())
    r1, r2 = srv.join(1), srv.join(2)
    r1.poll()  # the welcome (connect() waits for it)
    c2 = RemoteSetup(r2)
    s1 = RemoteSession(base, r1, animate=False)
    try:
        scr = s1.setup_screen
        scr.key("enter")  # enter rolls off
        _round(srv, c2)
        s1.tick()
        if not scr.setup.my_step():  # player 2 won: it places the first piece
            assert c2.click((15.0, 15.0))
            _round(srv, c2)
            s1.tick()
        assert scr.setup.phase == "terrain" and scr.setup.my_step()
        assert {f"preset:{n}" for n in ("fog", "hill", "house")} <= set(scr.buttons)
        assert str(scr.buttons["stop"]["state"]) == "disabled"  # fewer than 6 pieces (p.20)
        _press(scr.buttons["preset:hill"])
        scr.key("q")
        assert scr.setup.preset == "hill" and scr.setup.rotation == 15.0
        ndc = scr.cam.to_ndc((6.0, 6.0))
        scr.hover_ndc(*ndc)
        assert scr.ghost is not None and scr.ghost.kind == "terrain" and scr.ghost.legal
        screenshot(base, tmp_path / "terrain.png")
        scr.click_ndc(*ndc)
        step = r1.outbox[-1]["step"]
        assert step["kind"] == "terrain" and step["preset"] == "hill" and step["rotation"] == 15.0
        assert step["point"] == pytest.approx([6.0, 6.0], abs=0.2)
        _round(srv, c2)
        s1.tick()
        assert any(t.id.startswith("hill") for t in scr.setup.table().terrain) and scr.scene is not None
    finally:
        s1.destroy()


# ------------------------------------------------------------------ a real loopback server
def _loopback(tmp_path):
    """``(url, loop)``: a loopback server on a thread (:func:`tests.conftest.loopback_server`)."""
    return loopback_server(tmp_path / "games.db", str(BSDATA))


def _frames(session, cond, seconds: float = 20.0) -> None:
    deadline = time.monotonic() + seconds
    while not cond():
        if time.monotonic() > deadline:
            raise TimeoutError("the window's condition did not hold in time")
        session.tick()
        time.sleep(0.02)


@pytest.mark.render
def test_png_of_the_deployment_screen_of_a_loopback_game_then_the_game_starts(base, tmp_path):
    import numpy as np
    from conftest import read_png

    from sim.net.client import create_game, run_bot
    from sim.rules.bots import GreedyBot
    from sim.view import style
    from sim.view.play.remote import RemoteSession, RemoteWindow, connect
    from sim.view.play.setup_screens import SIDE_W
    from sim.view.play.shell import screenshot

    seed = 3
    with _loopback(tmp_path) as (url, loop):
        def on(coro):
            return asyncio.run_coroutine_threadsafe(coro, loop)

        made = on(create_game(url, DEFAULT_TABLE.read_text(encoding="utf-8"), seed=seed, warbands=WARBANDS,
                              setup=True)).result(TIMEOUT)
        client = connect(made["invites"]["1"], timeout=10.0, auto_setup=False, wait_game=False)
        bot = on(run_bot(made["invites"]["2"], GreedyBot(seed + 1)))
        session = RemoteSession(base, client, animate=False)
        try:
            scr = session.setup_screen
            s = scr.setup
            assert scr is not None and s.view["phase"] in ("roll_off", "zone", "first")

            def mine_to_deploy():
                if s.my_step() and s.phase != "deploy":
                    s.auto()  # the roll-off, the zone, first: the engine's choice
                return s.phase == "deploy" and s.my_step() and s.to_act == 1

            _frames(session, mine_to_deploy)
            first = s.selected
            r = s.recruit(first)
            zone = s.zone(1)
            y = r["radius"] if zone.id == "south" else s.depth - r["radius"]
            x = next(x for x in np.arange(2.0, 22.0, 0.5) if s.ghost((float(x), y)).legal)
            assert s.deploy((float(x), y))
            _frames(session, lambda: s.sent is None)
            assert s.refusal == "" and first not in s.view["waiting"]["1"]
            s.deploy((12.0, 12.0))  # refused: the reasons come up in red
            _frames(session, lambda: s.sent is None)
            assert "p.63" in s.refusal
            scr.refresh(force=True)
            gx = max(float(v) for v in np.arange(2.0, 22.0, 0.5) if s.ghost((float(v), y)).legal)
            ghost_at = (gx, y)
            scr.hover_ndc(*scr.cam.to_ndc(ghost_at))
            assert scr.ghost is not None and scr.ghost.legal
            lines = list(scr.lines)
            png = screenshot(base, tmp_path / "remote_setup.png")
            placed_px = scr.cam.to_pixels((float(x), y))
            zone_px = scr.cam.to_pixels((20.0, y))
            other_px = scr.cam.to_pixels((20.0, s.depth - y))
            ghost_px = scr.cam.to_pixels((gx + scr.ghost.radius / 2, y))  # beside its facing line
            for _ in range(200):  # the rest of the set-up: the game comes, the window swaps
                if session.setup_screen is None:
                    break
                if s.my_step():
                    s.auto()
                session.tick()
                time.sleep(0.02)
            assert isinstance(session.window, RemoteWindow) and client.mirror.game is not None
            assert session.window.controller.game.state.models[first].position == pytest.approx((float(x), y))
        finally:
            session.destroy()
            client.close()
            bot.cancel()
    text = " ".join(lines)
    assert "You are player 1" in text and "player 2 connected" in text and "Your step: deployment" in text
    assert "Refused by the server:" in text and "Player 1 (" in text
    img = read_png(png).astype(int)
    assert img.shape == (768, 1024, 3)
    side_px = int(SIDE_W / (2 * 1024 / 768) * 1024)
    side = img[:, : side_px - 4]
    back = np.array([round(255 * v) for v in (0.09, 0.10, 0.13)])
    assert (np.abs(side - back).max(axis=2) > 80).mean() > 0.01  # the side column's text and buttons
    red = np.array([255 * c for c in style.PLAYER[1]])
    blue = np.array([255 * c for c in style.PLAYER[2]])

    def patch(px, k=3):
        c, rr = int(px[0]), int(px[1])
        return img[rr - k: rr + k + 1, c - k: c + k + 1].reshape(-1, 3).mean(axis=0)

    zone1, zone2 = patch(zone_px), patch(other_px)
    # each zone tinted in its player's colour (player 1 red, player 2 blue)
    assert np.linalg.norm(zone1 - red) < np.linalg.norm(zone1 - blue)
    assert np.linalg.norm(zone2 - blue) < np.linalg.norm(zone2 - red)
    assert np.abs(patch(placed_px, 2) - zone1).max() > 20  # the model deployed stands on it
    assert patch(ghost_px, 1).min() > zone1.min() + 60  # the pointer's base (legal: white) over the zone


# ------------------------------------------------------------------ the terminal
def test_the_terminal_rolls_off_with_roll_and_prints_the_set_up_after_each_step(tmp_path):
    """``main.py join INVITE --text`` during a networked set-up: ``roll`` starts the
    roll-off, a refused ``deploy`` shows the server's reasons, each step is followed by
    the set-up in a line, ``auto`` plays the rest and the game starts."""
    import io

    from sim.net.client import create_game, run_bot
    from sim.net.text import play_text
    from sim.rules.bots import GreedyBot

    with _loopback(tmp_path) as (url, loop):
        def on(coro):
            return asyncio.run_coroutine_threadsafe(coro, loop)

        made = on(create_game(url, DEFAULT_TABLE.read_text(encoding="utf-8"), seed=SEED, warbands=WARBANDS,
                              setup=True)).result(TIMEOUT)
        out = io.StringIO()
        script = ["roll", "deploy nobody 12 12"] + ["auto"] * 40 + ["quit"]
        box: dict = {}
        seat = threading.Thread(target=lambda: box.update(rc=play_text(made["invites"]["1"], io.StringIO(
            "\n".join(script) + "\n"), out, timeout=TIMEOUT)), daemon=True)
        seat.start()  # alone at first: its roll is the first step
        deadline = time.monotonic() + 20
        while "Set-up: the roll-off" not in out.getvalue() and time.monotonic() < deadline:
            time.sleep(0.02)
        bot = on(run_bot(made["invites"]["2"], GreedyBot(SEED + 1)))
        seat.join(TIMEOUT)
        bot.cancel()
    text = out.getvalue()
    assert box.get("rc") == 0, text[-3000:]
    assert "Set-up: the roll-off: roll_off dice=" in text
    assert "Set-up now: zone, player " in text  # the set-up after the roll-off
    assert re.search(r"Set-up now: deploy, player \d to act; player 1 \((south|north)\): \d placed", text)
    assert "no model 'nobody' to deploy" in text or re.search(r"Refused by the server: .*", text)
    assert "=== Turn 1 ===" in text
