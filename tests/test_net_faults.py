"""Networked play under faults (issue 14), on loopback, every wait bounded.

- A bot client killed with ``kill -9`` in the middle of a melee exchange (its opponent's
  allocation in, its own still due) and started again with the same invitation: the game
  goes on to its end and its log equals ``main.py play TABLE --seed N --bots greedy,greedy``.
- The server killed with ``kill -9`` mid-game (twice) and started again on the same
  store: both bot clients reconnect and finish; no event lost or doubled (the final log
  equals local play; the store holds one input per action, and the events of the inputs
  are exactly the game's).
- An allocation sent before the engine asks for it (held by the server, stored as
  ``pending``) survives a ``kill -9`` of the server: its seat gets it back on reconnecting,
  the other seat does not see it, and it is declared once when the engine asks.
- A client that sends garbage (not JSON, a binary frame, a JSON list, an unknown type,
  malformed actions), an oversized frame (closed, 1009), an oversized message (refused,
  the connection kept), another seat's token, a wrong or missing token, an action out of
  turn, a stale ``seen``, a spectator's action, a flood (``rate``, then closed 1008):
  each is refused with its code while two bots play on; the game ends equal to local play.

The test file is also the killed bot's script (``python tests/test_net_faults.py bot ...``):
a greedy bot that, with ``--hang``, stops answering once it must allocate in an exchange
whose other allocation is in (so the test kills it at a known point, not by luck of
timing), and with ``--resume`` rebuilds its memory first: a seeded bot's state is a
function of the decisions it made, so it replays them on a local game (asserting that it
makes the same ones) before it plays on.
"""

from __future__ import annotations

import argparse
import asyncio
import inspect
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, WebSocketException

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from sim.net.client import GameClient, Refused, create_game, export_game, run_bot  # noqa: E402
from sim.net.protocol import MAX_FRAME, MAX_MESSAGE  # noqa: E402
from sim.net.server import GameServer  # noqa: E402
from sim.net.store import Store  # noqa: E402
from sim.rules import bots  # noqa: E402
from sim.rules.game import Action, Game  # noqa: E402
from sim.table import DEFAULT_TABLE, load_table  # noqa: E402
from tests.conftest import serve_loopback  # noqa: E402

TIMEOUT = 90.0
_LIMITS = inspect.signature(GameServer).parameters
#: messages a flood sends at once: the burst, then a burst of refusals, and a second's refill to spare.
FLOOD = 3 * int(_LIMITS["burst"].default) + 2 * int(_LIMITS["rate"].default)
PY = sys.executable
ENV = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}


def local_game(seed: int) -> Game:
    """The game of ``main.py play default --seed N --bots greedy,greedy`` (bots seeded N, N+1)."""
    g = Game(load_table(), seed=seed)
    bots.play(g, (bots.GreedyBot(seed), bots.GreedyBot(seed + 1)))
    return g


def _table_text() -> str:
    return DEFAULT_TABLE.read_text(encoding="utf-8")


def _kill(proc: subprocess.Popen | None) -> None:
    """Kill ``proc`` (this test's own child) and reap it."""
    if proc is not None and proc.poll() is None:
        proc.kill()
    if proc is not None:
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            pass


async def _line(proc: subprocess.Popen, want: str, timeout: float) -> str:
    """The first line of ``proc``'s stdout that starts with ``want`` (read off the loop)."""
    loop = asyncio.get_running_loop()

    def read() -> str:
        for line in proc.stdout:
            if line.startswith(want):
                return line.strip()
        return ""
    line = await asyncio.wait_for(loop.run_in_executor(None, read), timeout)
    if not line:
        raise AssertionError(f"the process ended before printing {want!r} (rc {proc.poll()})")
    return line


async def _serve(tmp_path, body):
    """Run ``body(url)`` against a fresh loopback server (:func:`tests.conftest.serve_loopback`)."""
    return await serve_loopback(tmp_path / "games.db", body, TIMEOUT)


async def _follow(client: GameClient) -> None:
    """Read ``client``'s stream until the game is over."""
    while not client.mirror.status.get("over"):
        await client.recv()


# ------------------------------------------------------------------ the killed bot's script
def _fast_forward(bot, client: GameClient, game_seed: int) -> int:
    """Give a fresh seeded ``bot`` the memory of the decisions its seat already made: replay
    the game on a local copy up to the seat's last decision, letting the bot choose at each
    of its own (it must choose what was played). Returns the decisions replayed."""
    seat, mirror = client.seat, client.mirror
    own = [i for i, s in enumerate(mirror.by) if s == seat]
    if not own:
        return 0
    local = Game(load_table(), seed=game_seed)
    for i in range(own[-1] + 1):
        played = mirror.game.actions[i]
        if mirror.by[i] == seat:
            mine = bot.choose(local)
            if mine.to_json() != played.to_json():
                raise AssertionError(f"decision {i}: the resumed bot chose {mine}, the game has {played}")
        local.push(played)
    return len(own)


async def _bot_script(invite: str, seed: int, game_seed: int, hang: bool, resume: bool) -> None:
    """A greedy bot playing ``invite``'s seat (see the module doc)."""
    c = GameClient(invite)
    await c.connect()
    bot = bots.GreedyBot(seed)
    bot.player = c.seat
    if resume:
        print(f"RESUMED {_fast_forward(bot, c, game_seed)}", flush=True)
    try:
        while not c.mirror.status.get("over"):
            if c.mirror.my_decision(simultaneous=False):
                ex = c.game.state.exchange
                if hang and ex is not None and len(ex["allocations"]) == 1:
                    print(f"HANG {len(c.game.actions)}", flush=True)
                    await asyncio.sleep(3600)
                try:
                    await c.act(bot.choose(c.game), declare=True)
                except Refused as exc:
                    if exc.code != "stale":
                        raise
                continue
            await c.recv()
        print("OVER " + json.dumps(c.mirror.log()), flush=True)
    finally:
        await c.close()


def _bot(invite: str, seed: int, game_seed: int, *flags: str) -> subprocess.Popen:
    return subprocess.Popen([PY, __file__, "bot", invite, str(seed), str(game_seed), *flags], cwd=ROOT, env=ENV,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)


def test_a_bot_killed_mid_exchange_reconnects_and_the_game_ends_as_at_one_screen(tmp_path):
    seed = 3
    want = local_game(seed)
    procs: list[subprocess.Popen] = []

    async def body(url):
        made = await create_game(url, _table_text(), seed=seed)
        watcher = GameClient(made["watch"])
        await watcher.connect()
        # seat 1: the real command line; seat 2: the script that stops mid-exchange
        procs.append(subprocess.Popen([PY, "main.py", "join", made["invites"]["1"], "--bot", "greedy", "--seed",
                                       str(seed)], cwd=ROOT, env=ENV, stdout=subprocess.PIPE,
                                      stderr=subprocess.DEVNULL, text=True))
        procs.append(_bot(made["invites"]["2"], seed + 1, seed, "--hang"))
        hung = await _line(procs[1], "HANG", 60)
        at = int(hung.split()[1])
        while len(watcher.game.actions) < at:  # the spectator has caught up with the hung seat
            await asyncio.wait_for(watcher.recv(), 10)
        ex = watcher.game.state.exchange
        assert ex is not None and len(ex["allocations"]) == 1  # mid-exchange: one allocation in, seat 2's due
        assert watcher.mirror.status["to_move"] == 2
        os.kill(procs[1].pid, signal.SIGKILL)
        procs[1].wait(10)
        while watcher.mirror.status.get("connected", {}).get("2"):
            await asyncio.wait_for(watcher.recv(), 10)
        assert watcher.mirror.status["waiting"] == "waiting for player 2"
        assert len(watcher.game.actions) == at  # nothing moved while seat 2 was gone
        procs.append(_bot(made["invites"]["2"], seed + 1, seed, "--resume"))
        resumed = await _line(procs[2], "RESUMED", 30)
        assert int(resumed.split()[1]) > 0  # the bot had decided before: its memory was rebuilt
        await asyncio.wait_for(_follow(watcher), 60)
        over2 = json.loads((await _line(procs[2], "OVER", 30))[5:])
        out1, _ = await asyncio.get_running_loop().run_in_executor(None, procs[0].communicate, None, 30)
        await watcher.close()
        save = await export_game(url, made["game"])
        return watcher.mirror.log(), over2, out1, save

    try:
        seen, log2, out1, save = asyncio.run(_serve(tmp_path, body))
    finally:
        for p in procs:
            _kill(p)
    assert seen == want.log()
    assert log2 == want.log()
    assert "\n".join(want.log()) in out1  # main.py join prints the log it saw
    g = Game.from_save(save["save"])  # the export re-simulates (verified save)
    assert g.verified and g.log() == want.log()


# ------------------------------------------------------------------ kill -9 the server
async def _resilient_bot(invite: str, bot, stats: dict) -> GameClient:
    """A greedy bot that reconnects whenever the server goes away. A decision sent but
    not known to be taken is sent again unchanged after the reconnection (the server's
    ``seen`` check refuses it if it was taken after all): the bot never decides twice."""
    sent: tuple[int, Action] | None = None
    c: GameClient | None = None
    while True:
        try:
            if c is None:
                c = GameClient(invite, open_timeout=2.0)
                await c.connect()
                bot.player = c.seat
                stats["connects"] = stats.get("connects", 0) + 1
            if c.mirror.status.get("over"):
                await c.close()
                return c
            if c.mirror.my_decision(simultaneous=False):
                seen = len(c.game.actions)
                if sent is None or sent[0] != seen:
                    sent = (seen, bot.choose(c.game))
                else:
                    stats["resent"] = stats.get("resent", 0) + 1
                try:
                    await c.act(sent[1], declare=True)
                except Refused as exc:
                    if exc.code != "stale":
                        raise
                stats["actions"] = len(c.game.actions)
                continue
            await c.recv()
            stats["actions"] = len(c.game.actions)
        except (ConnectionClosed, OSError, WebSocketException, asyncio.TimeoutError):
            c = None
            await asyncio.sleep(0.05)


def _start_server(port: int, store: Path) -> subprocess.Popen:
    return subprocess.Popen([PY, "main.py", "serve", "--port", str(port), "--store", str(store)], cwd=ROOT, env=ENV,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)


def test_the_server_killed_mid_game_restarts_on_its_store_and_no_event_is_lost_or_doubled(tmp_path):
    seeds = (3, 5)
    wants = {s: local_game(s) for s in seeds}
    store = tmp_path / "games.db"
    servers: list[subprocess.Popen] = []

    async def start(port: int) -> str:
        proc = _start_server(port, store)
        servers.append(proc)
        line = await _line(proc, "serving on", 30)
        return line.split()[2]

    async def body():
        url = await start(0)
        port = int(url.rsplit(":", 1)[1])
        made = {s: await create_game(url, _table_text(), seed=s) for s in seeds}
        stats = {s: ({"actions": 0}, {"actions": 0}) for s in seeds}
        players = {s: [asyncio.create_task(_resilient_bot(made[s]["invites"][str(k)],
                                                           bots.GreedyBot(s + k - 1), stats[s][k - 1]))
                       for k in (1, 2)] for s in seeds}
        all_tasks = [t for ts in players.values() for t in ts]
        kills = []
        for after in (20, 50):  # kill -9 twice, once each game has seen this many actions
            while True:
                done = [t for t in all_tasks if t.done()]
                for t in done:
                    t.result()  # a bot that failed fails the test now
                got = [max(st["actions"] for st in stats[s]) for s in seeds]
                if min(got) >= after:
                    break
                await asyncio.sleep(0.005)
            os.kill(servers[-1].pid, signal.SIGKILL)
            servers[-1].wait(10)
            kills.append(min(got))
            await asyncio.sleep(0.3)  # the clients find the server gone
            await start(port)
        clients = await asyncio.wait_for(asyncio.gather(*all_tasks), 60)
        saves = {s: await export_game(url, made[s]["game"]) for s in seeds}
        return made, clients, saves, stats, kills

    try:
        made, clients, saves, stats, kills = asyncio.run(asyncio.wait_for(body(), TIMEOUT))
    finally:
        for p in servers:
            _kill(p)
    assert len(kills) == 2
    db = Store(store)
    try:
        for i, s in enumerate(seeds):
            want = wants[s]
            for c in clients[2 * i:2 * i + 2]:
                assert c.mirror.log() == want.log()
            save = saves[s]["save"]
            g = Game.from_save(save)
            assert g.verified and g.log() == want.log()
            assert [a.to_json() for a in g.actions] == [a.to_json() for a in want.actions]
            for st in stats[s]:
                assert st["connects"] >= 3  # every bot came back after each kill
            gid = made[s]["game"]
            rows = db.inputs(gid)
            assert [r.kind for r in rows] == ["action"] * len(want.actions)  # one input per action
            spec = db.game(gid).spec
            stored = spec["events"] + [e for r in rows for e in r.payload["events"]]
            assert stored == save["events"] == [e.to_json() for e in want.events]
    finally:
        db.close()


def test_an_action_naming_no_model_is_refused_not_a_crash_and_changes_nothing():
    """The engine's look-ups raise KeyError for an id that names no model; the hosted game
    refuses such an action (``illegal``), declared or not, and the game is unchanged (found
    by fuzzing: it closed the connection with 1011 before)."""
    from sim.net.session import HostedGame

    g = Game(load_table(), seed=6)
    h, _ = HostedGame.create("t", g, {})
    p = g.to_move()
    own = next(m.id for m in g.table.models if m.player == p)
    before = json.dumps(g.to_json())
    for doc in ({"kind": "charge", "model": own, "target": "nobody"}, {"kind": "melee", "model": own, "target": "x"},
                {"kind": "arrive", "path": [[1.0, 1.0]]}):
        for declare in (False, True):
            out = h.submit(p, doc, 0, declare=declare)
            assert out.error is not None and out.error["code"] == "illegal", (doc, out)
            assert out.error["message"]
    assert json.dumps(g.to_json()) == before and h.by == []


async def _sync(client: GameClient, n: int) -> None:
    """Read ``client``'s stream until its mirror holds ``n`` actions."""
    while len(client.game.actions) < n:
        await asyncio.wait_for(client.recv(), 30)


def test_an_allocation_held_by_the_server_survives_its_kill_and_is_declared_once(tmp_path):
    """The allocation stage across a crash: the seat that may allocate before the engine
    asks sends its allocation (held by the server, stored as ``pending``); the server is
    killed with ``kill -9`` and restarted; the seat's welcome gives it back its held
    allocation (the other seat's does not), and when the other seat allocates both are
    declared, once; the game ends as at one screen."""
    seed = 3
    want = local_game(seed)
    store = tmp_path / "games.db"
    servers: list[subprocess.Popen] = []

    async def start(port: int) -> str:
        servers.append(_start_server(port, store))
        return (await _line(servers[-1], "serving on", 30)).split()[2]

    async def body():
        url = await start(0)
        made = await create_game(url, _table_text(), seed=seed)
        b = {s: bots.GreedyBot(seed + s - 1) for s in (1, 2)}
        c = {s: GameClient(made["invites"][str(s)]) for s in (1, 2)}
        for s in (1, 2):
            await c[s].connect()
            b[s].player = s
        while True:  # the engine's order, until the seat not to move may allocate
            await _sync(c[2], len(c[1].game.actions))
            await _sync(c[1], len(c[2].game.actions))
            st = c[1].mirror.status
            p = st["to_move"]
            q = 3 - p
            if q in st["may_allocate"]:
                break
            await c[p].act(b[p].choose(c[p].game), declare=True)
        n = len(c[q].game.actions)
        early = b[q].choose(c[q].game)
        assert early.kind == "allocate"
        held = await c[q].act(early)
        assert held["type"] == "held" and held["action"] == early.to_json()
        os.kill(servers[-1].pid, signal.SIGKILL)
        servers[-1].wait(10)
        for s in (1, 2):
            c[s].ws = None  # the connection died with the server
        await start(int(url.rsplit(":", 1)[1]))
        again = {s: GameClient(made["invites"][str(s)]) for s in (1, 2)}
        for s in (1, 2):
            await again[s].connect()
        assert again[q].mirror.held == early.to_json()  # the held allocation came back from the store
        assert again[p].mirror.held is None and len(again[p].game.actions) == n
        assert q in again[p].mirror.status["allocated"]  # that it is in is public, not what it is
        assert json.dumps(early.to_json()) not in json.dumps(again[p].mirror.log())
        for s in (1, 2):
            await again[s].close()
        stats: tuple[dict, dict] = ({"actions": 0}, {"actions": 0})
        await asyncio.wait_for(asyncio.gather(*(_resilient_bot(made["invites"][str(s)], b[s], stats[s - 1])
                                                for s in (1, 2))), 60)
        save = await export_game(url, made["game"])
        return made["game"], q, early, save

    try:
        gid, q, early, save = asyncio.run(asyncio.wait_for(body(), TIMEOUT))
    finally:
        for proc in servers:
            _kill(proc)
    g = Game.from_save(save["save"])
    assert g.verified and g.log() == want.log()
    db = Store(store)
    try:
        rows = db.inputs(gid)
    finally:
        db.close()
    kinds = [r.kind for r in rows]
    assert kinds.count("pending") == 1 and kinds.count("action") == len(want.actions)
    k = kinds.index("pending")
    assert rows[k].seat == q and rows[k].payload["action"] == early.to_json()
    later = [r for r in rows[k + 1:] if r.kind == "action" and r.seat == q]
    assert later[0].payload["action"] == early.to_json()  # declared once, when the engine asked


# ------------------------------------------------------------------ garbage, floods, other seats
async def _error(ws, timeout: float = 10.0) -> dict:
    """The next ``error`` on the raw connection ``ws`` (the updates and statuses of the
    game going on around it are skipped)."""
    while True:
        msg = json.loads(await asyncio.wait_for(ws.recv(), timeout))
        if msg.get("type") == "error":
            return msg


async def _refused(ws, frame, code: str) -> dict:
    """Send ``frame`` (text, bytes or a dict) and expect an error ``code``."""
    await ws.send(json.dumps(frame) if isinstance(frame, dict) else frame)
    err = await _error(ws)
    assert err["code"] == code, (frame if not isinstance(frame, (str, bytes)) or len(frame) < 200 else "...", err)
    return err


async def _hello(url: str, game: str, seat, token) -> tuple:
    """A raw connection that said hello: ``(ws, answer)``."""
    ws = await connect(url, max_size=MAX_FRAME, open_timeout=10)
    await ws.send(json.dumps({"type": "hello", "game": game, "seat": seat, "token": token}))
    return ws, json.loads(await asyncio.wait_for(ws.recv(), 10))


async def _closed_with(ws, timeout: float = 10.0) -> int | None:
    """Read ``ws`` until the server closes it; the close code."""
    try:
        while True:
            await asyncio.wait_for(ws.recv(), timeout)
    except ConnectionClosed as exc:
        return exc.rcvd.code if exc.rcvd is not None else None


async def _garbage(ws) -> None:
    """Frames that no state of the game makes acceptable, each refused with its code."""
    await _refused(ws, "{not json", "json")
    await _refused(ws, b"\x00\x01binary", "json")
    await _refused(ws, "[1, 2, 3]", "schema")
    await _refused(ws, "null", "schema")
    await _refused(ws, {"type": "teleport", "model": "akira"}, "schema")
    await _refused(ws, {"type": "action", "seen": 0}, "schema")  # no action
    await _refused(ws, {"type": "action", "action": {}, "seen": -1}, "schema")
    big = {"type": "hello", "game": "x" * (MAX_MESSAGE + 10)}
    assert MAX_MESSAGE < len(json.dumps(big)) < MAX_FRAME
    await _refused(ws, big, "size")  # an oversized message: refused, the connection stays


def test_garbage_oversized_frames_other_seats_stale_and_floods_are_refused_and_the_game_goes_on(tmp_path):
    seed = 6
    want = local_game(seed)

    async def body(url):
        made = await create_game(url, _table_text(), seed=seed)
        gid, tok = made["game"], made["tokens"]
        watch = made["watch"]
        # --- before the bots come: hellos, seats, turns, stale and illegal actions
        for seat, token in ((1, tok["2"]), (2, tok["1"]), (1, "x" * 43), (1, None), (2, ""), (None, tok["1"])):
            ws, ans = await _hello(watch, gid, seat, token)
            assert ans["type"] == "error" and ans["code"] == "token", (seat, ans)
            assert tok["1"] not in json.dumps(ans) and tok["2"] not in json.dumps(ans)
            await _refused(ws, {"type": "action", "action": {"kind": "pass"}, "seen": 0}, "state")  # no hello yet
            await ws.close()
        ws, ans = await _hello(watch, "nosuchgame", 1, tok["1"])
        assert ans["code"] == "unknown"
        await ws.close()
        spectator, ans = await _hello(watch, gid, None, None)
        assert ans["type"] == "welcome"
        first = want.actions[0].to_json()
        p = ans["status"]["to_move"]
        await _refused(spectator, {"type": "action", "action": first, "seen": 0}, "seat")
        other, _ = await _hello(watch, gid, 3 - p, tok[str(3 - p)])
        await _refused(other, {"type": "action", "action": first, "seen": 0}, "seat")  # out of turn
        mover, _ = await _hello(watch, gid, p, tok[str(p)])
        await _refused(mover, {"type": "action", "action": first, "seen": 3}, "stale")
        state = json.loads(await asyncio.wait_for(mover.recv(), 10))
        assert state["type"] == "state" and state["save"]["actions"] == []  # the full state follows
        enemy = next(m.id for m in load_table().models if m.player == 3 - p)
        await _refused(mover, {"type": "action", "action": {"kind": "walk", "model": enemy, "point": [12, 12]},
                               "seen": 0}, "illegal")
        for bad in ({"kind": "walk"}, {"kind": "fly", "model": enemy}, {"kind": "walk", "model": "nobody",
                                                                          "point": [1, 1]},
                    {"kind": "walk", "model": enemy, "point": "here"}, {"kind": "shoot", "model": enemy,
                                                                         "target": {"a": 1}}):
            await mover.send(json.dumps({"type": "action", "action": bad, "seen": 0}))
            err = await _error(mover)
            assert err["code"] in ("schema", "illegal"), (bad, err)
        own = next(m.id for m in load_table().models if m.player == p)
        for bad in ({"kind": "charge", "model": own, "target": "nobody"}, {"kind": "melee", "model": own,
                                                                            "target": "nobody"},
                    {"kind": "arrive", "path": [[1, 1]]}):  # ids naming no model: refused, the connection kept
            for declare in (False, True):
                await _refused(mover, {"type": "action", "action": bad, "seen": 0, "declare": declare}, "illegal")
        await mover.send('{"type":"action","action":{"kind":"walk","model":"%s","point":[NaN,1]},"seen":0}' % enemy)
        assert (await _error(mover))["code"] == "schema"
        await _garbage(mover)
        for ws in (spectator, other, mover):
            await ws.close()
        # --- the bots play; garbage, floods and oversized frames come in meanwhile
        players = asyncio.gather(run_bot(made["invites"]["1"], bots.GreedyBot(seed)),
                                 run_bot(made["invites"]["2"], bots.GreedyBot(seed + 1)))
        codes: dict[str, object] = {}

        async def noise():
            noisy, ans = await _hello(watch, gid, 1, tok["1"])  # a second connection of seat 1
            assert ans["type"] == "welcome"
            await _garbage(noisy)
            await _refused(noisy, {"type": "hello", "game": gid, "seat": 1, "token": tok["1"]}, "state")
            thief, ans = await _hello(watch, gid, 1, tok["2"])  # seat 2's token for seat 1
            assert ans["code"] == "token"
            await thief.close()
            huge, _ = await _hello(watch, gid, 2, tok["2"])
            await huge.send("x" * (MAX_FRAME + 1))  # an oversized frame: the connection is closed
            codes["huge"] = await _closed_with(huge)
            flood, _ = await _hello(watch, gid, 2, tok["2"])
            for _ in range(FLOOD):
                await flood.send(json.dumps({"type": "nonsense"}))
            got = []
            try:
                while True:
                    msg = json.loads(await asyncio.wait_for(flood.recv(), 10))
                    if msg.get("type") == "error":
                        got.append(msg["code"])
            except ConnectionClosed as exc:
                codes["flood"] = exc.rcvd.code if exc.rcvd is not None else None

            codes["flood_errors"] = got
            await _garbage(noisy)  # the noisy connection was not hurt by the others
            await noisy.close()

        p1p2, _ = await asyncio.gather(players, noise())
        save = await export_game(url, gid)
        return p1p2, codes, save

    (p1, p2), codes, save = asyncio.run(_serve(tmp_path, body))
    assert codes["huge"] == 1009
    assert codes["flood"] == 1008
    assert "rate" in codes["flood_errors"] and set(codes["flood_errors"]) == {"schema", "rate"}
    assert p1.mirror.log() == want.log() and p2.mirror.log() == want.log()
    g = Game.from_save(save["save"])
    assert g.verified and g.log() == want.log()


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["bot"])
    ap.add_argument("invite")
    ap.add_argument("seed", type=int)
    ap.add_argument("game_seed", type=int)
    ap.add_argument("--hang", action="store_true")
    ap.add_argument("--resume", action="store_true")
    a = ap.parse_args()
    asyncio.run(_bot_script(a.invite, a.seed, a.game_seed, a.hang, a.resume))
