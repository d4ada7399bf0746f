"""The game window as a network client (issue 14, sim/view/play/remote.py).

The controller and the window are driven through the same handlers the window uses,
against a fake client: a :class:`FakeRemote` whose messages come from a real
:class:`~sim.net.session.HostedGame` (the server's pure game) published as the server
does, through JSON, with no sockets. Then one offscreen PNG of a real loopback server's
game (``run_server`` on port 0, a greedy bot on the other seat), checked by its pixels.
"""

from __future__ import annotations

import asyncio
import json

import numpy as np
import pytest

pytest.importorskip("panda3d.core")  # sim.view.play.remote is the window's module

from sim.net.client import Mirror  # noqa: E402
from sim.net.session import HostedGame  # noqa: E402
from sim.rules.game import Action, Game, GameError  # noqa: E402
from sim.table import DEFAULT_TABLE, load_table  # noqa: E402
from sim.view.play.controller import PlayController  # noqa: E402
from sim.view.play.remote import clock_text, clocks_now, net_lines  # noqa: E402
from tests.conftest import loopback_server

TIMEOUT = 60.0


# ------------------------------------------------------------------ a server without sockets
class FakeServer:
    """A :class:`HostedGame` and the server's publishing (each viewer its own view, as
    JSON text), no sockets: what a client sends waits in its outbox until :meth:`deliver`."""

    def __init__(self, game: Game, settings: dict | None = None) -> None:
        self.h, _tokens = HostedGame.create("g1", game, settings or {"timeout": {"policy": "wait", "minutes": 10.0},
                                                                       "clock": None})
        self.clients: list[FakeRemote] = []

    def join(self, seat: int | None) -> "FakeRemote":
        r = FakeRemote(self, seat)
        self.clients.append(r)
        self.h.join(seat)
        r.inbox.append(self._wire({"type": "welcome", **self.h.view(seat)}))
        for other in self.clients:
            if other is not r:
                other.inbox.append(self._wire({"type": "status", "status": self.h.status()}))
        return r

    @staticmethod
    def _wire(doc: dict) -> dict:
        return json.loads(json.dumps(doc, allow_nan=False))

    def deliver(self) -> int:
        """Judge every message the clients sent, in order; returns how many."""
        n = 0
        for r in self.clients:
            while r.outbox:
                self._dispatch(r, r.outbox.pop(0))
                n += 1
        return n

    def _dispatch(self, r: "FakeRemote", doc: dict) -> None:
        h, seat = self.h, r.mirror.seat
        kind = doc["type"]
        if kind == "action":
            out = h.submit(seat, doc["action"], doc["seen"], doc.get("declare", False))
        elif kind == "undo":
            out = h.request_undo(seat, doc["seen"])
        elif kind == "undo_answer":
            out = h.answer_undo(seat, doc["accept"])
        elif kind == "claim":
            out = h.claim(seat)
        else:
            raise AssertionError(kind)
        if out.error is not None:
            r.inbox.append(self._wire(out.error))
            if out.error.get("code") == "stale":
                r.inbox.append(self._wire({"type": "state", **h.view(seat)}))
            return
        for c in self.clients:
            msgs = [h.update_for(u, c.mirror.seat) for u in out.updates]
            if out.state:
                msgs.append({"type": "state", **h.view(c.mirror.seat)})
            if out.status and not out.updates and not out.state:
                msgs.append({"type": "status", "status": h.status()})
            msgs += [m for s, m in out.notify if s == c.mirror.seat]
            c.inbox += [self._wire(m) for m in msgs]


class FakeRemote:
    """What :class:`PlayController` needs of a client (``mirror``, ``act``, ``send``,
    ``poll``, ``connected``), as :class:`sim.net.client.ThreadedClient` offers it."""

    def __init__(self, server: FakeServer, seat: int | None) -> None:
        self.server = server
        self.mirror = Mirror(seat)
        self.inbox: list[dict] = []
        self.outbox: list[dict] = []
        self.connected = True

    def act(self, action: Action, declare: bool = False) -> None:
        self.send({"type": "action", "action": action.to_json(), "seen": len(self.mirror.game.actions),
                   "declare": declare})

    def send(self, doc: dict) -> None:
        self.outbox.append(json.loads(json.dumps(doc)))

    def poll(self) -> list[dict]:
        msgs, self.inbox = self.inbox, []
        for m in msgs:
            self.mirror.apply(m)
        return msgs


def _seated(seed: int = 7, settings: dict | None = None):
    """A fake server on the default table and a controller for each seat and a spectator."""
    srv = FakeServer(Game(load_table(), seed=seed), settings)
    remotes = [srv.join(1), srv.join(2), srv.join(None)]
    ctrls = []
    for r in remotes:
        r.poll()
        ctrls.append(PlayController(r.mirror.game, remote=r))
    for c in ctrls:
        c.sync()
    return srv, ctrls


def _sync(*ctrls):
    return [c.sync() for c in ctrls]


def _charge(c):
    c.select("kenta")
    item = next(i for i in c.menu() if i.key == "charge")
    assert item.enabled, item.reasons
    p = c.choose("charge", 0)
    assert p is not None and p.legal, p
    return c.confirm()


# ------------------------------------------------------------------ the controller
def test_an_action_is_sent_to_the_server_not_pushed_and_the_update_is_applied():
    srv, (c1, c2, spec) = _seated()
    assert c1.game.to_move() == 1 and c1.screen == "play" and c1.humans() == [1]
    v = c1.version
    assert _charge(c1) == []  # nothing pushed here
    assert not c1.game.actions and c1.game.state.exchange is None
    assert c1.sent is not None and c1.sent.kind == "charge" and c1.menu() == [] and c1.version > v
    (msg,) = c1.remote.outbox
    assert msg["type"] == "action" and msg["seen"] == 0 and msg["declare"] is False
    assert msg["action"]["kind"] == "charge" and msg["action"]["model"] == "kenta"
    assert "sent Charge" in net_lines(c1.remote.mirror, sent=c1.sent)[1]
    assert srv.deliver() == 1
    v = c1.version
    _sync(c1, c2, spec)
    assert c1.sent is None and c1.version > v
    for c in (c1, c2, spec):  # every mirror follows: the charge and its exchange, redrawn
        assert len(c.game.actions) == 1 and c.game.state.exchange is not None
        assert c.last_events() and c.last_events()[0].kind in ("activate", "move", "charge", "note")
        assert [e.text for e in c.log()] == [e.text for e in c1.log()]
    # the allocation stage: both seats allocate at once (p.33 step 5), the spectator does not
    assert c1.screen == "allocate" and c2.screen == "allocate" and spec.screen == "play"
    ex = c1.game.state.exchange
    owners = {m: c1.game.state.models[m].player for m in (ex["attacker"], ex["defender"])}
    assert {a.model for a in c1.allocation_choices()} == {m for m, p in owners.items() if p == 1}
    assert {a.model for a in c2.allocation_choices()} == {m for m, p in owners.items() if p == 2}


def test_the_allocation_stage_holds_an_early_allocation_and_reveals_both_together():
    srv, (c1, c2, spec) = _seated()
    _charge(c1)
    srv.deliver()
    _sync(c1, c2, spec)
    assert c1.game.to_move() == 1  # the engine asks the attacker first
    a2 = c2.allocation_choices()[0]
    c2.allocate(a2.attack, a2.defence, a2.special, a2.direction)  # player 2 first: held by the server
    assert c2.sent is not None and c2.screen == "play"
    srv.deliver()
    _sync(c1, c2, spec)
    assert c2.sent is None and c2.remote.mirror.held is not None and c2.screen == "play"
    assert len(c2.game.actions) == 1  # held, not played
    assert "your allocation is in: waiting for player 1's" in net_lines(c2.remote.mirror)[1]
    assert c1.screen == "allocate"
    a1 = next(a for a in c1.allocation_choices() if a.special is None and a.attack >= 1)
    with pytest.raises(GameError):
        spec.allocate(a1.attack, a1.defence)  # a spectator never allocates
    c1.allocate(a1.attack, a1.defence)
    srv.deliver()
    _sync(c1, c2, spec)
    for c in (c1, c2, spec):
        assert c.game.state.exchange is None or c.game.state.exchange.get("allocations") == {}
        assert len(c.game.actions) == 3
    want = [e.text for e in c1.log() if "Allocations revealed" in e.text]
    assert len(want) == 1 and f"{a1.attack} attack, {a1.defence} defence" in want[0]
    # player 2 saw player 1's allocation arrive in secret; the log shows it revealed
    assert [e.text for e in c2.log() if "Allocations revealed" in e.text] == want
    assert [e.text for e in spec.log() if "Allocations revealed" in e.text] == want
    assert c1.game.log() == srv.h.game.log()


def test_undo_by_consent_swaps_in_the_full_state_and_play_goes_on():
    srv, (c1, c2, spec) = _seated()
    _charge(c1)
    srv.deliver()
    _sync(c1, c2, spec)
    old = c1.game
    c1.undo()  # the window's Undo: asks player 2
    assert c1.remote.outbox == [{"type": "undo", "seen": 1}]
    srv.deliver()
    _sync(c1, c2, spec)
    assert c2.remote.mirror.undo_asked == 1 and "asks to take back" in net_lines(c2.remote.mirror)[1]
    assert "waiting for the answer" in net_lines(c1.remote.mirror)[1]
    assert c2.screen == "play"  # no allocation while the take-back is asked (the answer first)
    c2.answer_undo(True)
    srv.deliver()
    msgs = _sync(c1, c2, spec)
    assert any(m["type"] == "state" for m in msgs[0])
    for c in (c1, c2, spec):
        assert not c.game.actions and c.game.state.exchange is None
    assert c1.game is not old and c1.game is c1.remote.mirror.game and c1.history == []
    assert c1.screen == "play" and c1.menu("kenta")  # the new game object is played on
    c1.select("kenta")
    c1.choose("walk")
    pend = c1.point((20.0, 10.0))
    assert pend is not None and pend.legal, pend
    c1.confirm()
    srv.deliver()
    _sync(c1, c2, spec)
    assert [a.kind for a in c1.game.actions] == ["walk"] and c2.game.log() == c1.game.log()
    assert c1.history == [(1, False)]


def test_a_declined_take_back_and_a_stale_action_are_refusals_shown_once():
    srv, (c1, c2, _spec) = _seated()
    _charge(c1)
    srv.deliver()
    _sync(c1, c2)
    c1.ask_undo()
    srv.deliver()
    _sync(c1, c2)
    c2.answer_undo(False)
    srv.deliver()
    _sync(c1, c2)
    assert "declined" in c1.take_refusal() and c1.take_refusal() == ""
    assert len(c1.game.actions) == 1
    # an action sent on an old mirror is refused as stale: the full state follows
    c1.remote.send({"type": "action", "action": Action("pass").to_json(), "seen": 0})
    srv.deliver()
    msgs = c1.sync()
    assert [m["type"] for m in msgs] == ["error", "state"] and "out of date" in c1.take_refusal()
    assert len(c1.game.actions) == 1 and c1.game is c1.remote.mirror.game


def test_a_spectator_gets_no_actions_and_no_adjustments_in_a_networked_game():
    srv, (c1, _c2, spec) = _seated()
    assert spec.seat is None and spec.humans() == [] and spec.screen == "play"
    assert spec.menu("kenta") == [] and spec.model_at_active() != [] and spec.allocation_choices() == []
    with pytest.raises(GameError):
        spec.ask_undo()
    with pytest.raises(GameError):
        spec.claim()
    with pytest.raises(GameError):
        spec.pass_turn()
    with pytest.raises(GameError, match="networked"):
        c1.adjust_wounds("kenta", 1)
    assert not spec.remote.outbox and not c1.game.events[-1].kind == "adjust"
    assert net_lines(spec.remote.mirror)[0].startswith("Watching (spectator)")
    with pytest.raises(ValueError):
        PlayController(c1.game, remote=c1.remote, bots={2: object()})


def test_net_lines_clocks_and_waiting():
    m = Mirror(1)
    m.status = {"connected": {"1": True, "2": False}, "away": {"1": 0.0, "2": 95.0}, "claimable": [1],
                "clocks": {"1": 600.0, "2": 300.0}, "to_move": 2, "may_allocate": [], "over": False}
    first = net_lines(m, elapsed=10.0)[0]
    assert "You are player 1" in first and "waiting for player 2 (away 1:45)" in first
    assert "you may Claim" in first and "P1 10:00, P2 4:50" in first  # player 2's clock runs
    assert clocks_now({"clocks": {"1": 60, "2": 60}, "may_allocate": [1, 2], "to_move": 1}, 5) == {1: 55, 2: 55}
    assert clock_text(3725) == "1:02:05"
    assert "DISCONNECTED" in net_lines(m, connected=False)[0]
    m.status = {"over": True, "result": {"result": "player 1 claims the game"}, "connected": {"1": True, "2": True}}
    assert "game over: player 1 claims the game" in net_lines(m)[0]


# ------------------------------------------------------------------ the window (offscreen)
render = pytest.mark.render


@pytest.fixture(scope="module")
def base():
    pytest.importorskip("panda3d.core")
    from sim.view.play.shell import get_base

    return get_base(offscreen=True, size=(1024, 768))


@render
def test_the_window_sends_shows_the_allocation_dialog_and_the_take_back_buttons(base):
    from sim.view.play.dialogs import AllocationDialog, HandoverDialog
    from sim.view.play.remote import RemoteWindow

    srv, (c1, c2, _spec) = _seated()
    now = [100.0]
    w1 = RemoteWindow(base, c1, animate=False, clock=lambda: now[0])
    try:
        assert "You are player 1" in w1.status.lines[1]
        w1.select("kenta")
        w1.choose("charge", 0)
        w1.confirm()  # the Confirm button: sent, not pushed
        assert c1.sent is not None and not c1.game.actions
        assert any("sent Charge" in ln for ln in w1.status.lines)
        srv.deliver()
        w1.tick(0.05)  # the frame's sync: the update taken in, the dialog opened
        assert len(c1.game.actions) == 1 and c1.screen == "allocate"
        assert isinstance(w1.dialog, AllocationDialog) and not isinstance(w1.dialog, HandoverDialog)
        assert "player 1: " not in w1.note  # its own decision is not announced as the other's
        w1.dialog.submit()  # the dialog's Allocate: sent
        assert c1.sent is not None and c1.sent.kind == "allocate" and w1.dialog is None
        srv.deliver()
        w1.tick(0.05)
        assert c1.sent is None and any("your allocation is in" in ln for ln in w1.status.lines)
        c2.sync()
        a2 = c2.allocation_choices()[0]
        c2.allocate(a2.attack, a2.defence, a2.special, a2.direction)
        srv.deliver()
        w1.tick(0.05)
        assert c1.game.state.exchange is None and "player 2: " in w1.note and w1.note_ok
        # a take-back asked of player 1: Accept / Decline become active
        c2.sync()
        c2.ask_undo()
        srv.deliver()
        w1.tick(0.05)
        assert str(w1.tools.buttons["accept"]["state"]) == "normal"
        assert any("asks to take back" in ln for ln in w1.status.lines)
        w1.decline_undo()
        assert c1.remote.outbox == [{"type": "undo_answer", "accept": False}]
        assert str(w1.tools.buttons["accept"]["state"]) == "disabled"
        w1.key("m")  # no manual adjustments over the network
        assert "not in a networked game" in w1.note
    finally:
        w1.destroy()


# ------------------------------------------------------------------ a real loopback server
def _loopback(tmp_path):
    """``(url, loop)``: a loopback server on a thread (:func:`tests.conftest.loopback_server`)."""
    return loopback_server(tmp_path / "games.db")


async def _seat1_until_it_allocates(invite: str, seed: int) -> int:
    """Play seat 1 with a greedy bot until its model has an allocation to make; returns
    the actions then."""
    from sim.net.client import GameClient
    from sim.rules.bots import GreedyBot

    c = GameClient(invite)
    await c.connect()
    bot = GreedyBot(seed)
    bot.player = 1
    try:
        while not c.mirror.status.get("over"):
            if 1 in c.mirror.status.get("may_allocate", []):
                return len(c.game.actions)
            if c.mirror.my_decision(simultaneous=False):
                await c.act(bot.choose(c.game), declare=True)
            else:
                await c.recv()
        raise AssertionError("the game ended before player 1 allocated")
    finally:
        await c.close()


@render
def test_png_of_a_networked_game_at_the_secret_allocation(base, tmp_path):
    from conftest import read_png

    from sim.net.client import create_game, run_bot
    from sim.rules.bots import GreedyBot
    from sim.view.play.dialogs import PANEL, AllocationDialog
    from sim.view.play.remote import screenshot_remote

    seed = 3
    with _loopback(tmp_path) as (url, loop):
        def on(coro):
            return asyncio.run_coroutine_threadsafe(coro, loop)

        made = on(create_game(url, DEFAULT_TABLE.read_text(encoding="utf-8"), seed=seed)).result(TIMEOUT)
        bot = on(run_bot(made["invites"]["2"], GreedyBot(seed + 1)))
        n = on(_seat1_until_it_allocates(made["invites"]["1"], seed)).result(TIMEOUT)
        seen: dict = {}

        def grab(w):
            seen.update(lines=list(w.status.lines), dialog=w.dialog, rect=getattr(w.dialog, "rect", None),
                        aspect=w.layout.aspect, status=w.panel_pixels("status"), table=w.panel_pixels("table"),
                        actions=len(w.controller.game.actions), screen=w.controller.screen)

        png = screenshot_remote(made["invites"]["1"], tmp_path / "remote.png", size=(1024, 768), wait=20.0,
                                until=lambda c: c.screen == "allocate", on_window=grab)
        bot.cancel()
    assert seen["actions"] in (n, n + 1)  # the bot's allocation may be in (held, or played as the attacker's)
    assert seen["screen"] == "allocate" and isinstance(seen["dialog"], AllocationDialog)
    text = " ".join(seen["lines"])
    assert "You are player 1" in text and "player 2 connected" in text and "allocate your dice in secret" in text
    img = read_png(png).astype(int)
    assert img.shape == (768, 1024, 3)
    l, r, b, t = seen["rect"]
    a = seen["aspect"]
    x0, x1 = int((l + a) / (2 * a) * 1024), int((r + a) / (2 * a) * 1024)
    y0, y1 = int((1 - t) / 2 * 768), int((1 - b) / 2 * 768)
    face = np.array([round(255 * v) for v in PANEL[:3]])
    dialog = img[y0 + 5:y1 - 5, x0 + 5:x1 - 5]
    assert (np.abs(dialog - face).max(axis=2) <= 4).mean() > 0.5  # the allocation dialog over the table
    sx0, sy0, sx1, sy1 = seen["status"]
    status = img[sy0:sy1, sx0:sx1]
    back = np.median(status.reshape(-1, 3), axis=0)
    assert (np.abs(status - back).max(axis=2) > 60).mean() > 0.01  # the status bar's text
    tx0, ty0, tx1, ty1 = seen["table"]
    table = img[ty0:y0, tx0:tx1]  # the table above the dialog: drawn, not blank
    assert len(np.unique(table.reshape(-1, 3) // 16, axis=0)) > 20


@render
def test_the_window_on_a_real_client_allocates_follows_the_bot_and_survives_a_reconnection(base, tmp_path):
    import time

    from sim.net.client import create_game, run_bot
    from sim.rules.bots import GreedyBot
    from sim.view.play.dialogs import AllocationDialog
    from sim.view.play.remote import RemoteWindow, connect

    seed = 3

    def frames(w, until, seconds=20.0):
        end = time.monotonic() + seconds
        while not until():
            assert time.monotonic() < end, "timed out"
            w.tick(0.05)
            time.sleep(0.01)

    with _loopback(tmp_path) as (url, loop):
        def on(coro):
            return asyncio.run_coroutine_threadsafe(coro, loop)

        made = on(create_game(url, DEFAULT_TABLE.read_text(encoding="utf-8"), seed=seed)).result(TIMEOUT)
        bot = on(run_bot(made["invites"]["2"], GreedyBot(seed + 1)))
        on(_seat1_until_it_allocates(made["invites"]["1"], seed)).result(TIMEOUT)
        client = connect(made["invites"]["1"], timeout=10.0)
        w = None
        try:
            c = PlayController(client.mirror.game, remote=client)
            w = RemoteWindow(base, c, animate=False)
            frames(w, lambda: c.screen == "allocate" and isinstance(w.dialog, AllocationDialog))
            n = len(c.game.actions)
            w.dialog.submit()  # over the network thread
            assert c.sent is not None
            # the server plays it (and the bot's, held or next), then the bot goes on until player 1 decides
            frames(w, lambda: c.sent is None and len(c.game.actions) > n and c.remote.mirror.my_decision())
            old, k = c.game, len(c.game.actions)
            client.resync()  # the connection dropped: it comes back with the full state
            frames(w, lambda: c.game is not old and client.connected)
            assert len(c.game.actions) == k and c.game.log() == old.log()
            assert any("You are player 1" in ln for ln in w.status.lines)
            # and the seat decides on the new game: its allocation, or its menu
            assert c.screen == "allocate" or c.menu() or any(c.menu(m) for m in c.model_at_active())
        finally:
            if w is not None:
                w.destroy()
            client.close()
            bot.cancel()


def test_run_remote_refuses_a_bad_invitation_without_opening_a_window(tmp_path):
    import io

    from sim.net.client import create_game
    from sim.view.play.remote import run_remote

    with _loopback(tmp_path) as (url, loop):
        made = asyncio.run_coroutine_threadsafe(
            create_game(url, DEFAULT_TABLE.read_text(encoding="utf-8"), seed=1), loop).result(TIMEOUT)
        out = io.StringIO()
        bad = made["invites"]["1"].split("token=")[0] + "token=tok-xyz-123"
        assert run_remote(bad, out=out, timeout=10.0) == 2
        assert "refused" in out.getvalue() and "(token)" in out.getvalue() and "xyz" not in out.getvalue()
    out = io.StringIO()
    assert run_remote(url + "/g/nothing", out=out, timeout=1.0) == 2  # the server is gone
    assert "cannot reach" in out.getvalue()


@render
def test_a_whole_game_played_through_the_window_client_equals_local_play(base, tmp_path):
    """Seat 1 decides through the window (its actions composed as the window does and sent
    by Confirm, its allocations by the dialog's Allocate), a greedy bot on seat 2: the log
    equals ``main.py play --seed 3 --bots greedy,greedy``, and the summary comes up."""
    import time

    from sim.net.client import create_game, run_bot
    from sim.rules import bots
    from sim.rules.bots import GreedyBot
    from sim.view.play.controller import Pending
    from sim.view.play.dialogs import AllocationDialog, SummaryDialog
    from sim.view.play.remote import RemoteWindow, connect

    seed = 3
    local = Game(load_table(), seed=seed)
    bots.play(local, (bots.GreedyBot(seed), bots.GreedyBot(seed + 1)))
    with _loopback(tmp_path) as (url, loop):
        def on(coro):
            return asyncio.run_coroutine_threadsafe(coro, loop)

        made = on(create_game(url, DEFAULT_TABLE.read_text(encoding="utf-8"), seed=seed)).result(TIMEOUT)
        bot = on(run_bot(made["invites"]["2"], GreedyBot(seed + 1)))
        client = connect(made["invites"]["1"], timeout=10.0)
        w = None
        try:
            c = PlayController(client.mirror.game, remote=client)
            w = RemoteWindow(base, c, animate=False)
            me = GreedyBot(seed)
            me.player = 1
            end = time.monotonic() + TIMEOUT
            while not client.mirror.status.get("over"):
                assert time.monotonic() < end, "timed out"
                w.tick(0.02)
                if c.sent is None and client.mirror.my_decision(simultaneous=False):
                    a = me.choose(c.game)
                    if a.kind == "allocate":
                        assert c.screen == "allocate" and isinstance(w.dialog, AllocationDialog)
                        w.allocate(a.attack, a.defence, a.special, a.direction, a.boost or 0, a.weapon)
                    else:
                        c.pending = Pending(a, True, [], "", [], a.model, a.kind)  # as composed in the window
                        w.confirm()
                    assert c.sent == a
                time.sleep(0.003)
            w.tick(0.02)
            assert c.game.log() == local.log()
            assert c.screen == "over" and isinstance(w.dialog, SummaryDialog)
        finally:
            if w is not None:
                w.destroy()
            client.close()
            bot.cancel()
