"""Networked play (issue 14) end to end on loopback, and the hosted game's rules.

- A server and two bot clients play a seeded game to its end; its log equals the log
  of ``main.py play TABLE --seed N --bots greedy,greedy`` (the same bots, the same seeds).
- The raw stream of a seat never carries the other seat's melee allocation before both
  are in (p.33 step 5: "Распределение кубов и выбор специальных способностей - это
  закрытая информация, пока она не будет раскрыта одновременно"), nor the server's seed;
  a spectator sees what both players can see.
- Seats, tokens, stale and illegal actions, undo by consent, clocks and claims, the store
  (a restarted server resumes every game from it, events checked).
"""

from __future__ import annotations

import asyncio
import json

import pytest

from sim.net.client import GameClient, create_game, export_game, run_bot
from sim.net.secrets import event_view, save_view, token_hash, token_matches
from sim.net.session import HostedGame
from sim.net.store import Store
from sim.rules import bots
from sim.rules.game import Action, Game
from sim.table import DEFAULT_TABLE, load_table
from tests.conftest import serve_loopback

TIMEOUT = 120.0


def local_log(seed: int) -> list[str]:
    """The log of ``main.py play default --seed N --bots greedy,greedy``."""
    g = Game(load_table(), seed=seed)
    bots.play(g, (bots.GreedyBot(seed), bots.GreedyBot(seed + 1)))
    return g.log()


class Recorder(GameClient):
    """A client that keeps every raw message it reads."""

    def __init__(self, invite):
        super().__init__(invite)
        self.raw: list[dict] = []

    async def _read(self) -> dict:
        msg = await super()._read()
        self.raw.append(msg)
        return msg


async def _serve(tmp_path, body):
    """Run ``body(url)`` against a fresh loopback server (:func:`tests.conftest.serve_loopback`)."""
    return await serve_loopback(tmp_path / "games.db", body, TIMEOUT)


def _table_text() -> str:
    return DEFAULT_TABLE.read_text(encoding="utf-8")


def test_two_bot_clients_play_the_same_game_as_at_one_screen_and_the_save_replays(tmp_path):
    seed = 3

    async def body(url):
        made = await create_game(url, _table_text(), seed=seed)
        p1, p2 = await asyncio.gather(run_bot(made["invites"]["1"], bots.GreedyBot(seed)),
                                      run_bot(made["invites"]["2"], bots.GreedyBot(seed + 1)))
        save = await export_game(url, made["game"])
        return p1, p2, save

    p1, p2, save = asyncio.run(_serve(tmp_path, body))
    want = local_log(seed)
    assert p1.mirror.log() == want
    assert p2.mirror.log() == want
    assert p1.mirror.status["over"] and p1.mirror.status["result"]["result"] in want[-1]
    g = Game.from_save(save["save"])  # the export is a verified save: it re-simulates
    assert g.verified and g.log() == want


def test_a_seats_stream_never_carries_the_other_allocation_before_both_are_in_nor_the_seed(tmp_path):
    seed = 5

    async def body(url):
        made = await create_game(url, _table_text(), seed=seed)
        watcher = Recorder(made["watch"])
        await watcher.connect()
        spy = Recorder(made["invites"]["2"])  # seat 2 played by a greedy bot on a recording client

        async def seat2():
            await spy.connect()
            bot = bots.GreedyBot(seed + 1)
            bot.player = 2
            while not spy.mirror.status.get("over"):
                if spy.mirror.my_decision(simultaneous=False):
                    await spy.act(bot.choose(spy.game), declare=True)
                else:
                    await spy.recv()

        async def watch():
            while not watcher.mirror.status.get("over"):
                await watcher.recv()

        await asyncio.gather(run_bot(made["invites"]["1"], bots.GreedyBot(seed)), seat2(), watch())
        await spy.close()
        await watcher.close()
        return spy.raw, watcher.raw

    seat2_raw, spectator_raw = asyncio.run(_serve(tmp_path, body))
    text = json.dumps(seat2_raw)
    assert '"seed"' not in text and "dice_state" not in text
    owners = {m.id: m.player for m in load_table().models}
    for raw, viewer in ((seat2_raw, 2), (spectator_raw, None)):
        secret_seen = revealed = 0
        for msg in raw:
            if msg.get("type") != "update":
                continue
            kinds = [e["kind"] for e in msg["events"]]
            for e in msg["events"]:
                if e["kind"] != "allocated" or owners[e["model"]] == viewer:
                    continue
                if "exchange" in kinds[kinds.index("allocated"):]:
                    continue  # revealed together with the other allocation (the same update)
                secret_seen += 1
                assert e.get("secret") is True
                assert (e["attack"], e["defence"], e["special"], e["direction"]) == (0, 0, None, None)
                assert set(msg["action"]) & {"attack", "defence", "special", "direction"} == set()
            for i, e in msg.get("reveal", []):
                revealed += 1
                assert e["kind"] == "allocated" and "secret" not in e
                assert e["attack"] + e["defence"] >= 0
        assert secret_seen > 0, "the game had no allocation made before the other"
        assert revealed == secret_seen  # every secret allocation revealed once both were in


def _exchange_position(seed: int = 3):
    """A hosted game (no store) played by greedy bots until a melee exchange waits."""
    g = Game(load_table(), seed=seed)
    b = (bots.GreedyBot(seed), bots.GreedyBot(seed + 1))
    h, tokens = HostedGame.create("t", g, {"timeout": {"policy": "wait", "minutes": 1}})
    while g.state.exchange is None:
        p = g.to_move()
        out = h.submit(p, b[p - 1].choose(g).to_json(), len(g.actions), declare=True)
        assert out.error is None, out.error
    return h, b, tokens


def test_an_early_allocation_is_held_secret_and_declared_when_the_engine_asks():
    h, b, _ = _exchange_position()
    g = h.game
    ex = g.state.exchange
    att, dfn = ex["attacker"], ex["defender"]
    pa, pd = g.state.models[att].player, g.state.models[dfn].player
    assert h.to_move() == pa and h.may_allocate() == sorted({pa, pd})
    b[pd - 1].player = pd
    early = b[pd - 1].choose(g)
    assert early.kind == "allocate" and early.model == dfn
    n = len(g.events)
    out = h.submit(pd, early.to_json(), len(g.actions))
    assert out.error is None and not out.updates
    assert out.notify == [(pd, {"type": "held", "action": early.to_json()})]
    assert len(g.events) == n  # held by the server, not in the game
    assert h.view(pa)["pending"] is None and h.view(pd)["pending"] == early.to_json()
    assert "allocated" not in json.dumps(h.view(pa)["save"]["events"][n:])
    assert h.status()["allocated"] == [pd]
    again = h.submit(pd, early.to_json(), len(g.actions))
    assert again.error["code"] == "state"  # one allocation per exchange
    b[pa - 1].player = pa
    mine = b[pa - 1].choose(g)
    if mine.kind != "allocate":  # a Ki feat of step 4 after an allocation is in: refused (p.33-34)
        assert h.submit(pa, mine.to_json(), len(g.actions)).error["code"] == "state"
        mine = b[pa - 1].allocate(g)
    out = h.submit(pa, mine.to_json(), len(g.actions))
    assert out.error is None
    assert [u.by for u in out.updates] == [pa, pd]  # the held one declared right after, in the engine's order
    assert g.state.exchange is None or g.state.exchange.get("attacker") != att or not g.state.exchange["allocations"]
    for viewer in (1, 2, None):  # both in: nothing is secret any more
        msg = h.update_for(out.updates[0], viewer)
        assert all(not e.get("secret") for e in msg["events"])


def test_seats_tokens_turns_stale_and_illegal_actions_are_refused_and_change_nothing():
    g = Game(load_table(), seed=1)
    h, tokens = HostedGame.create("t", g, {})
    assert h.seat_of_token(1, tokens[1]) and h.seat_of_token(2, tokens[2])
    assert not h.seat_of_token(1, tokens[2]) and not h.seat_of_token(1, None) and not h.seat_of_token(1, "")
    assert not h.seat_of_token(3, tokens[1])
    assert token_matches(tokens[1], token_hash(tokens[1])) and tokens[1] not in json.dumps(h.spec)
    p = g.to_move()
    n = len(g.events)
    other = 3 - p
    a = bots.GreedyBot(1).choose(g)
    assert h.submit(other, a.to_json(), 0).error["code"] == "seat"
    assert h.submit(p, a.to_json(), 5).error["code"] == "stale"
    assert h.submit(p, {"kind": "walk", "model": "akira", "point": "here"}, 0).error["code"] == "schema"
    enemy = next(m.id for m in g.table.models if m.player == other)
    bad = h.submit(p, Action("walk", enemy, point=(1.0, 1.0)).to_json(), 0)
    assert bad.error["code"] == "illegal" and bad.error["message"]
    far = next(m.id for m in g.table.models if m.player == p)
    why = g.is_legal(Action("walk", far, point=(0.5, 0.5)))[1]
    refused = h.submit(p, Action("walk", far, point=(0.5, 0.5)).to_json(), 0)
    assert refused.error == {"type": "error", "code": "illegal", "message": why}
    assert len(g.events) == n and not g.actions  # nothing changed
    declared = h.submit(p, Action("walk", far, point=(0.5, 0.5)).to_json(), 0, declare=True)
    assert declared.error is None and "illegal action" in json.dumps(declared.updates[0].events)  # p.24: a counter


def test_undo_needs_the_opponents_consent_and_rewinds_the_dice():
    g = Game(load_table(), seed=2)
    h, _ = HostedGame.create("t", g, {})
    b = (bots.GreedyBot(2), bots.GreedyBot(3))
    for _ in range(3):
        p = g.to_move()
        assert h.submit(p, b[p - 1].choose(g).to_json(), len(g.actions), declare=True).error is None
    first = h.by[0]
    last_of_first = max(i for i, s in enumerate(h.by) if s == first)
    events_before = [e.to_json() for e in g.events[:g.action_marks[last_of_first]]]
    assert h.request_undo(first, len(g.actions) - 1).error["code"] == "stale"
    out = h.request_undo(first, len(g.actions))
    assert out.notify == [(3 - first, {"type": "undo_request", "by": first})]
    assert h.status()["undo"] == first
    assert h.answer_undo(first, True).error is not None  # not one's own request
    assert h.submit(h.to_move(), b[0].choose(g).to_json(), len(g.actions)).error["code"] == "state"
    declined = h.answer_undo(3 - first, False)
    assert declined.notify[0][1]["code"] == "declined" and len(h.by) == 3
    h.request_undo(first, len(g.actions))
    accepted = h.answer_undo(3 - first, True)
    assert accepted.state and len(h.by) == last_of_first
    assert [e.to_json() for e in g.events] == events_before
    t = Game(load_table(), seed=2)
    ht, _ = HostedGame.create("t", t, {"tournament": True})
    p = t.to_move()
    ht.submit(p, bots.GreedyBot(2).choose(t).to_json(), 0, declare=True)
    assert ht.request_undo(p, 1).error["message"] == "no take-backs in tournament mode"


def test_clocks_run_for_the_seat_to_move_and_a_fallen_flag_ends_the_game():
    now = [0.0]
    g = Game(load_table(), seed=4)
    h, _ = HostedGame.create("t", g, {"clock": {"minutes": 1.0, "increment": 2.0}}, now=lambda: now[0])
    p = g.to_move()
    now[0] = 10.0
    assert h.status()["clocks"][str(p)] == pytest.approx(50.0)
    assert h.status()["clocks"][str(3 - p)] == pytest.approx(60.0)
    h.submit(p, bots.GreedyBot(4).choose(g).to_json(), 0, declare=True)
    assert h.clocks[p] == pytest.approx(52.0)  # 10 s spent, 2 s increment
    q = g.to_move()
    now[0] += 61.0
    out = h.tick()
    assert out is not None and h.over() and h.ended["loser"] == q and h.ended["by"] == "time"
    assert h.submit(q, {"kind": "pass"}, len(g.actions)).error["message"] == "the game is over"


def test_a_player_away_past_the_timeout_lets_the_opponent_claim_only_under_the_claim_policy():
    now = [0.0]
    g = Game(load_table(), seed=4)
    h, _ = HostedGame.create("t", g, {"timeout": {"policy": "claim", "minutes": 2.0}}, now=lambda: now[0])
    h.join(1)
    h.join(2)
    h.leave(2)
    assert h.status()["waiting"] == "waiting for player 2"
    now[0] = 60.0
    assert h.claim(1).error["code"] == "state" and h.status()["claimable"] == []
    now[0] = 121.0
    assert h.status()["claimable"] == [1]
    assert h.claim(2).error is not None  # the absent player claims nothing
    assert h.claim(1).error is None and h.ended["winner"] == 1 and h.status()["over"]
    w = Game(load_table(), seed=4)
    hw, _ = HostedGame.create("w", w, {"timeout": {"policy": "wait", "minutes": 2.0}}, now=lambda: now[0])
    hw.join(1)
    now[0] = 1000.0
    assert "wait" in hw.claim(1).error["message"]


def test_the_store_resumes_every_game_exactly_and_refuses_a_tampered_one(tmp_path):
    path = tmp_path / "g.db"
    store = Store(path)
    assert store.journal_mode() == "wal"
    g = Game(load_table(), seed=6)
    h, _ = HostedGame.create("abc", g, {}, store)
    b = (bots.GreedyBot(6), bots.GreedyBot(7))
    while len(g.actions) < 25:
        p = g.to_move()
        assert h.submit(p, b[p - 1].choose(g).to_json(), len(g.actions), declare=True).error is None
    h.request_undo(h.by[-1], len(g.actions))
    h.answer_undo(3 - h.by[-1], True)
    store.close()
    again = Store(path)
    row = again.game("abc")
    r = HostedGame.restore(row, again.inputs("abc"), again)
    assert [e.to_json() for e in r.game.events] == [e.to_json() for e in g.events]
    assert r.by == h.by and r.status()["actions"] == len(g.actions)
    p = r.game.to_move()
    assert r.submit(p, b[p - 1].choose(r.game).to_json(), len(r.game.actions), declare=True).error is None
    rows = again.inputs("abc")
    bad = rows[3].payload
    bad["events"][0] = {**bad["events"][0], "kind": "note", "text": "tampered"}
    with pytest.raises(Exception, match=r"inputs\[3\]"):
        HostedGame.restore(row, rows, None)


def test_the_other_seats_flank_turn_and_hidden_vims_are_stripped_and_the_dice_never_shown():
    owners = {"a": 1, "b": 2}
    ev = {"kind": "elsewhere", "model": "a", "turn": 3, "edge": "west", "zone": "z1"}
    assert event_view(ev, 1, owners, False, False) == ev
    hid = event_view(ev, 2, owners, False, False)
    assert (hid["turn"], hid["edge"], hid["zone"]) != (3, "west", "z1")
    assert event_view(ev, None, owners, False, False)["edge"] != "west"
    sc = {"kind": "scenario", "state": {"vims": {"1": ["a"], "2": ["b"]}, "vim_killed": {"1": None, "2": 2}},
          "notes": []}
    two = event_view(sc, 2, owners, True, False)["state"]
    assert two["vims"] == {"1": [], "2": ["b"]} and two["vim_killed"] == {"1": None, "2": 2}
    assert event_view(sc, None, owners, True, False)["state"]["vims"] == {"1": [], "2": []}
    assert event_view(sc, 2, owners, True, True) == sc  # over: revealed
    assert event_view(sc, 2, owners, False, False) == sc  # an open VIM is public
    doc = {"seed": 9, "dice_state": [1], "dice": "seeded", "table": {"models": []}, "events": [ev],
           "elsewhere": [{"model": {"id": "a", "player": 1}, "turn": 3, "edge": "west", "zone": None}]}
    v = save_view(doc, 2, owners, False)
    assert "seed" not in v and "dice_state" not in v and v["dice"] == "physical"
    assert v["elsewhere"][0]["edge"] != "west" and save_view(doc, 1, owners, False)["elsewhere"][0]["edge"] == "west"


BSDATA = DEFAULT_TABLE.parents[2].parent / "shared" / "bsdata"
needs_catalogues = pytest.mark.skipif(not BSDATA.is_dir(), reason="../shared/bsdata is not there")
WARBANDS = ["Prefecture of Ryu", "Cult of Yurei"]


@needs_catalogues
def test_the_seats_play_the_set_up_step_by_step_and_bots_play_the_same_game_as_play_warbands(tmp_path):
    """p.20: "Подготовка к игре" -- the roll-off, the zones, who deploys first and the
    deployment, each step taken by its seat and judged by the server's set-up; two bot
    seats asking for the engine's policy play the game of ``main.py play --warbands``."""
    from sim.rules.setup.auto import warband_game

    seed = 3

    async def body(url):
        made = await create_game(url, _table_text(), seed=seed, warbands=WARBANDS, setup=True)
        return await asyncio.gather(run_bot(made["invites"]["1"], bots.GreedyBot(seed)),
                                    run_bot(made["invites"]["2"], bots.GreedyBot(seed + 1)))

    p1, p2 = asyncio.run(_serve(tmp_path, body))
    g, _ = warband_game(DEFAULT_TABLE, WARBANDS, seed=seed, data=str(BSDATA))
    bots.play(g, (bots.GreedyBot(seed), bots.GreedyBot(seed + 1)))
    assert p1.mirror.log() == g.log() == p2.mirror.log()


@needs_catalogues
def test_a_set_up_step_out_of_turn_or_refused_by_the_rules_changes_nothing_and_a_restart_resumes_it(tmp_path):
    from sim.net.setup_stage import SetupStage

    store = Store(tmp_path / "s.db")
    stage = SetupStage.new(_table_text(), WARBANDS, 4, 70, None, None, str(BSDATA))
    h, _ = HostedGame.create_setup("s", stage, {}, store)
    assert h.status()["phase"] == "setup" and h.view(1)["save"] is None
    assert h.submit(1, {"kind": "pass"}, 0).error["code"] == "state"  # no game actions during the set-up
    assert h.setup_step(1, None, auto=True).error is None  # the roll-off: either seat
    roll = h.view(2)["setup"]["roll"]
    assert roll is not None and roll["winner"] in (1, 2)
    while h.stage is not None and h.stage.phase != "deploy":
        p = h.to_move()
        assert h.setup_step(3 - p, None, auto=True).error["code"] == "illegal"  # not its step
        assert h.setup_step(p, None, auto=True).error is None
    p = h.to_move()
    mine = next(m for m in h.view(p)["setup"]["waiting"][str(p)])
    n = len(h.stage.setup.steps)
    off = h.setup_step(p, {"kind": "deploy", "player": p, "model": mine, "point": [12, 12]})
    assert off.error["code"] == "illegal" and "p.63" in off.error["message"]  # the table's centre: in no zone
    wrong = h.setup_step(p, {"kind": "deploy", "player": 3 - p, "model": mine, "point": [12, 12]})
    assert wrong.error["code"] == "illegal" and len(h.stage.setup.steps) == n
    for _ in range(3):
        assert h.setup_step(h.to_move(), None, auto=True).error is None
    before = h.view(1)["setup"]
    store.close()
    again = Store(tmp_path / "s.db")
    r = HostedGame.restore(again.game("s"), again.inputs("s"), again)
    assert r.view(1)["setup"] == before
    while r.stage is not None:
        assert r.setup_step(r.to_move() or 1, None, auto=True).error is None
    assert r.game is not None and r.status()["phase"] in ("start", "main") and r.view(2)["save"]["events"]


def test_an_engine_failure_on_an_input_is_refused_and_the_connection_and_game_go_on(tmp_path, monkeypatch):
    def broken(self, *a, **k):
        raise RuntimeError("an engine bug")

    async def body(url):
        made = await create_game(url, _table_text(), seed=8)
        c = GameClient(made["invites"]["1"])
        await c.connect()
        n = c.mirror.status["events"]
        with monkeypatch.context() as m:
            m.setattr(HostedGame, "submit", broken)
            await c.send({"type": "action", "action": {"kind": "pass"}, "seen": 0})
            err = await asyncio.wait_for(c.recv(), 10)
        await c.send({"type": "claim"})  # the connection is still open: the next message is answered
        nxt = await asyncio.wait_for(c.recv(), 10)
        await c.close()
        return err, nxt, n

    err, nxt, n = asyncio.run(_serve(tmp_path, body))
    assert err["type"] == "error" and err["code"] == "engine" and "unchanged" in err["message"]
    assert nxt["type"] == "error" and nxt["code"] == "state"  # the wait policy: nothing to claim
