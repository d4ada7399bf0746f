"""Load benchmark of networked play (issue 14): one server, hundreds of concurrent games of
bot clients on loopback, bounded in time.

Run: ``python benchmarks/net_load.py [--games 200] [--seconds 120] [--think 2,5,15] [--workers 2]``
(``--server-gc freeze``: an experiment, not what ``main.py serve`` does; ``NET_LOAD_PROFILE=FILE``:
the server's cProfile statistics).

What it does, all in one run:

1. **Plans.** ``--plans`` greedy-vs-greedy games played locally (``main.py play default
   --seed N --bots greedy,greedy``, seeds 1, 2, ...): each game's actions and who
   decided each one. The clients **replay** these lists (they do not decide): a game
   created on the server with the same seed gives the same dice, so every replayed
   action is the one the engine expects, and the clients cost little CPU (the server is
   what is measured). Allocations go in the engine's order (no early, held allocation).
2. **Server**: this script in ``--serve`` mode, a subprocess: the same
   :class:`sim.net.server.GameServer`, ``websockets`` settings and SQLite store (WAL, a
   transaction per input) as ``main.py serve``, its store in a temporary directory. It
   keeps the server's own latency figure (a message's receipt to the last send of its
   update, :attr:`GameServer.latencies`) and writes it when asked (SIGUSR1).
3. **Baseline**: one game at a time (``--baseline-seconds``, think ``--baseline-think``).
4. **Load**: ``--games`` concurrent games (``--workers`` client processes, asyncio, one
   WebSocket per seat, many games per process; a finished game is followed by a new one
   in its slot), ``--seconds`` long. Each seat waits a human-like think time before each
   of its decisions: uniform in [0.5, 1.5] x ``--think`` seconds. The first
   ``--warmup`` seconds (the games being created) are reported apart.

Printed: games (concurrent, created, finished), actions accepted, action latency
p50/p95/p99/max (client: send -> the seat's own ``update`` received; server: receipt ->
last send), the clients' event-loop lag, the server's CPU (ms per action), events lost or
doubled (every seat's copy of every game's events -- with the allocations revealed
after the fact put in -- against the events in the store: the set-up's, then each
stored input's), and memory per game (the server's RSS growth over the load phase /
games created; finished games stay in the server's memory).

Measured (2 shared cores, load average 1-2.2 from other work; ``--games 200 --seconds 120
--think 2,5,15``, commit 8dd2ce4): baseline, 1 game: client p50 4.7 ms, p99 10.8 ms.
200 games after the 20 s warm-up -- think 2 s: 99 actions/s, server 40% of a core, client
p50 6.4 ms, p99 196 ms (server's own p99 81 ms; 8 full collections of up to 315 ms);
think 5 s: 40 actions/s, p50 5.3 ms, p99 26 ms; think 15 s: 12.6 actions/s, p50 7.1 ms,
p99 47 ms. While 200 games are being created the p99 is 0.06-1.2 s (a ``create`` holds
the loop 17-50 ms). No event lost or doubled (17 195 actions, 1 200 seat copies).
RSS about 0.4 MiB a game plus ~26 KiB an action (1.9 MiB at 57 actions): mostly the
dice state the engine snapshots per action for undo (a list of 625 ints).
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

CLK = os.sysconf("SC_CLK_TCK")


# ------------------------------------------------------------------ helpers
def pct(xs: list[float], q: float) -> float:
    """The ``q`` quantile (0..1) of ``xs`` (nearest rank), or NaN."""
    if not xs:
        return float("nan")
    s = sorted(xs)
    return s[min(len(s) - 1, max(0, int(round(q * len(s) + 0.5)) - 1))]


def rss_kib(pid: int) -> int:
    """The resident set size of process ``pid`` (KiB)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def cpu_s(pid: int) -> float:
    """User + system CPU seconds of process ``pid``."""
    f = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / CLK


def events_digest(events: list, secret: list[int]) -> str:
    """SHA-256 of ``events`` (JSON) with the events at the indices ``secret`` blanked."""
    hidden = set(secret)
    doc = [None if i in hidden else e for i, e in enumerate(events)]
    return hashlib.sha256(json.dumps(doc, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def make_plans(n: int) -> list[dict]:
    """``n`` local greedy games (seeds 1..n): ``{"seed", "actions", "by", "events"}``."""
    from sim.rules import bots
    from sim.rules.game import Game
    from sim.table import load_table

    out = []
    for seed in range(1, n + 1):
        g = Game(load_table(), seed=seed)
        b = (bots.GreedyBot(seed), bots.GreedyBot(seed + 1))
        by = []
        while not g.is_over():
            p = g.to_move()
            by.append(p)
            g.push(b[p - 1].choose(g))
        out.append({"seed": seed, "actions": [a.to_json() for a in g.actions], "by": by, "events": len(g.events)})
    return out


# ------------------------------------------------------------------ the server
async def serve_main(store: str, stats: str, gc_mode: str = "default") -> None:
    """The server (``main.py serve``'s settings) on a free loopback port; prints ``URL
    ws://...``; SIGUSR1 writes the latencies so far to ``stats`` (and forgets them);
    SIGTERM stops it."""
    import gc

    from websockets.asyncio.server import serve

    from sim.net.protocol import MAX_FRAME
    from sim.net.server import GameServer
    from sim.net.store import Store

    st = Store(store)
    srv = GameServer(st)
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    pauses: list[float] = []  # the cyclic garbage collector's full (generation 2) collections, s
    began = [0.0]

    def on_gc(phase: str, info: dict) -> None:
        if info.get("generation") != 2:
            return
        if phase == "start":
            began[0] = time.perf_counter()
        else:
            pauses.append(time.perf_counter() - began[0])

    gc.callbacks.append(on_gc)

    def dump() -> None:
        tmp = stats + ".tmp"
        Path(tmp).write_text(json.dumps({"latencies": srv.latencies, "games": len(srv.games), "gc2": pauses}))
        os.replace(tmp, stats)
        srv.latencies.clear()
        pauses.clear()

    if gc_mode == "freeze":  # warm the engine (imports, the table's caches), then move every object so far
        from sim.rules.game import Game  # out of the collector's sight
        from sim.table import DEFAULT_TABLE, parse_table

        Game(parse_table(DEFAULT_TABLE.read_text(encoding="utf-8"), source="warm"), seed=1)
        gc.collect()
        gc.freeze()
    loop.add_signal_handler(signal.SIGTERM, stop.set)
    loop.add_signal_handler(signal.SIGUSR1, dump)
    try:
        async with serve(srv.handler, "127.0.0.1", 0, max_size=MAX_FRAME, ping_interval=20, ping_timeout=20,
                         max_queue=64) as server:
            host, port = next(iter(server.sockets)).getsockname()[:2]
            srv.url = f"ws://{host}:{port}"
            print(f"URL {srv.url}", flush=True)
            tick = asyncio.create_task(srv.ticker())
            await stop.wait()
            tick.cancel()
    finally:
        st.close()


# ------------------------------------------------------------------ the clients
class Seat:
    """One seat's light client: the events as this seat saw them (allocations revealed
    later put in), the action count, the status; it replays its plan's decisions."""

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.events: list = []
        self.n = 0
        self.status: dict = {}
        self.lost = 0
        self.doubled = 0
        self.errors: dict[str, int] = {}

    def take(self, msg: dict) -> None:
        """Take in one server message."""
        kind = msg.get("type")
        if kind in ("welcome", "state"):
            self.events = list(msg["save"]["events"])
            self.n = len(msg["save"]["actions"])
            self.status = msg["status"]
        elif kind == "update":
            i, first = msg["index"], msg["first"]
            if i < self.n or first < len(self.events):
                self.doubled += 1
                return
            if i > self.n or first > len(self.events):
                self.lost += 1
            self.events.extend(msg["events"])
            for k, e in msg.get("reveal", []):
                self.events[k] = e
            self.n = i + 1
            self.status = msg.get("status", self.status)
        elif kind == "status":
            self.status = msg.get("status", self.status)
        elif kind == "error":
            self.errors[msg.get("code", "?")] = self.errors.get(msg.get("code", "?"), 0) + 1

    def secret(self) -> list[int]:
        """Indices of the other seat's allocations still secret in this copy."""
        return [i for i, e in enumerate(self.events) if isinstance(e, dict) and e.get("secret")]


async def play_seat(url: str, game: str, token: str, s: int, plan: dict, think: float, rng: random.Random,
                    deadline: float, warm_until: float, lat: dict) -> Seat:
    """Play seat ``s`` of ``game`` by replaying ``plan`` until the game ends or the
    deadline (wall clock) passes; then read until the stream is quiet."""
    from websockets.asyncio.client import connect

    from sim.net.protocol import MAX_FRAME

    me = Seat(s)
    async with connect(url, max_size=MAX_FRAME, open_timeout=60, max_queue=None) as ws:
        await ws.send(json.dumps({"type": "hello", "game": game, "seat": s, "token": token}))
        me.take(json.loads(await asyncio.wait_for(ws.recv(), 60)))
        sent: tuple[int, float] | None = None
        while True:
            now = time.time()
            over = me.status.get("over") or me.n >= len(plan["actions"])
            if sent is None and (over or now >= deadline):
                break
            if sent is None and me.status.get("to_move") == s:
                await asyncio.sleep(think * rng.uniform(0.5, 1.5))
                if time.time() >= deadline:
                    break
                if plan["by"][me.n] != s:
                    me.errors["plan"] = me.errors.get("plan", 0) + 1
                sent = (me.n, time.perf_counter())
                await ws.send(json.dumps({"type": "action", "action": plan["actions"][me.n], "seen": me.n,
                                          "declare": True}))
            try:
                raw = await asyncio.wait_for(ws.recv(), max(0.05, deadline - time.time()) if sent is None else 60)
            except asyncio.TimeoutError:
                continue
            msg = json.loads(raw)
            me.take(msg)
            if sent is not None and msg.get("type") == "update" and msg.get("index") == sent[0]:
                dt = time.perf_counter() - sent[1]
                lat["warm" if time.time() < warm_until else "steady"].append(dt)
                sent = None
            elif sent is not None and msg.get("type") == "error":
                sent = None  # refused (counted in errors)
        # drain: the opponent's last update may still be on its way
        while True:
            try:
                me.take(json.loads(await asyncio.wait_for(ws.recv(), 2.0)))
            except asyncio.TimeoutError:
                break
    return me


async def worker_main(url: str, plans_path: str, slots: int, start: float, seconds: float, think: float,
                      warmup: float, seed: int, out: str) -> None:
    """``slots`` game slots on one event loop until ``start + seconds`` (wall clock);
    writes the results to ``out``."""
    from sim.net.client import create_game
    from sim.table import DEFAULT_TABLE

    plans = json.loads(Path(plans_path).read_text())
    table = DEFAULT_TABLE.read_text(encoding="utf-8")
    deadline, warm_until = start + seconds, start + warmup
    lat: dict[str, list[float]] = {"warm": [], "steady": []}
    games: list[dict] = []
    lag: list[float] = []
    failures: list[str] = []
    done = asyncio.Event()

    async def measure_lag() -> None:
        while not done.is_set():
            t = time.perf_counter()
            await asyncio.sleep(0.05)
            lag.append(time.perf_counter() - t - 0.05)

    async def slot(k: int) -> None:
        rng = random.Random(seed * 100_003 + k)
        await asyncio.sleep(max(0.0, start - time.time()) + rng.uniform(0, max(think, 0.05) * 2))
        while time.time() < deadline - 1.0:
            plan = plans[rng.randrange(len(plans))]
            try:
                made = await create_game(url, table, seed=plan["seed"])
                seats = await asyncio.gather(*(play_seat(url + "/g/" + made["game"], made["game"],
                                                         made["tokens"][str(s)], s, plan, think, rng, deadline,
                                                         warm_until, lat) for s in (1, 2)))
            except Exception as exc:  # a failure is counted and reported, not hidden
                failures.append(f"{type(exc).__name__}: {exc}"[:200])
                await asyncio.sleep(1.0)
                continue
            games.append({"game": made["game"], "seed": plan["seed"], "planned": len(plan["actions"]),
                          "seats": [{"seat": m.seat, "actions": m.n, "events": len(m.events),
                                     "digest": events_digest(m.events, m.secret()), "secret": m.secret(),
                                     "lost": m.lost, "doubled": m.doubled, "errors": m.errors,
                                     "over": bool(m.status.get("over"))} for m in seats]})

    lagger = asyncio.create_task(measure_lag())
    await asyncio.gather(*(slot(k) for k in range(slots)))
    done.set()
    await lagger
    Path(out).write_text(json.dumps({"lat": lat, "games": games, "lag": lag, "failures": failures}))


# ------------------------------------------------------------------ the run
def server_stats(server: subprocess.Popen, tmp: Path) -> dict:
    """Ask the server (SIGUSR1) for its latencies and full collections since the last ask."""
    dumped = tmp / "server.json"
    dumped.unlink(missing_ok=True)
    server.send_signal(signal.SIGUSR1)
    for _ in range(400):
        if dumped.exists():
            return json.loads(dumped.read_text())
        time.sleep(0.05)
    return {"latencies": [], "gc2": [], "games": None}


def run_phase(url: str, plans_path: str, tmp: Path, name: str, slots: int, workers: int, seconds: float,
              think: float, warmup: float, server: subprocess.Popen) -> dict:
    """Run ``workers`` client processes sharing ``slots`` game slots; the merged results,
    with the server's latencies (warm-up and steady apart), CPU and RSS over the phase."""
    start = time.time() + 3.0  # the workers import and connect before the clock starts
    procs, outs = [], []
    per = [slots // workers + (1 if k < slots % workers else 0) for k in range(workers)]
    server_stats(server, tmp)  # forget what came before
    cpu0, rss0 = cpu_s(server.pid), rss_kib(server.pid)
    for k in range(workers):
        if per[k] == 0:
            continue
        out = tmp / f"{name}_{k}.json"
        outs.append(out)
        procs.append(subprocess.Popen([sys.executable, __file__, "--_worker", url, plans_path, str(per[k]),
                                       repr(start), repr(seconds), repr(think), repr(warmup), str(k + 1),
                                       str(out)], cwd=ROOT))
    peak = rss0
    warm = None if warmup > 0 else {"latencies": [], "gc2": []}
    cpu_warm = 0.0
    try:
        while any(p.poll() is None for p in procs):
            peak = max(peak, rss_kib(server.pid))
            if warm is None and time.time() >= start + warmup:
                warm = server_stats(server, tmp)
                cpu_warm = cpu_s(server.pid) - cpu0
            time.sleep(0.25)
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    steady = server_stats(server, tmp)
    res = {"lat": {"warm": [], "steady": []}, "games": [], "lag": [], "failures": [],
           "server_lat": {"warm": (warm or {}).get("latencies", []), "steady": steady["latencies"]},
           "gc2": (warm or {}).get("gc2", []) + steady["gc2"], "cpu": cpu_s(server.pid) - cpu0,
           "cpu_steady": cpu_s(server.pid) - cpu0 - cpu_warm, "rss0": rss0, "rss1": rss_kib(server.pid),
           "peak": peak, "rc": [p.returncode for p in procs], "seconds": seconds, "warmup": warmup}
    for out in outs:
        if out.exists():
            r = json.loads(out.read_text())
            for k in ("warm", "steady"):
                res["lat"][k] += r["lat"][k]
            res["games"] += r["games"]
            res["lag"] += r["lag"]
            res["failures"] += r["failures"]
    return res


def check_store(store: Path, games: list[dict]) -> dict:
    """Every seat's copy of every game against the store: ``{"lost", "doubled", "games",
    "seats", "inputs", "actions", "mismatch": [...]}``."""
    from sim.net.store import Store

    db = Store(store)
    out = {"lost": 0, "doubled": 0, "games": 0, "seats": 0, "inputs": 0, "actions": 0, "mismatch": []}
    try:
        for g in games:
            row = db.game(g["game"])
            inputs = db.inputs(g["game"])
            events = list(row.spec["events"]) + [e for r in inputs for e in r.payload.get("events", [])]
            acts = sum(1 for r in inputs if r.kind == "action")
            out["games"] += 1
            out["inputs"] += len(inputs)
            out["actions"] += acts
            for s in g["seats"]:
                out["seats"] += 1
                out["lost"] += max(0, len(events) - s["events"]) + s["lost"]
                out["doubled"] += max(0, s["events"] - len(events)) + s["doubled"]
                if s["actions"] != acts or events_digest(events, s["secret"]) != s["digest"]:
                    out["mismatch"].append(f"{g['game']} seat {s['seat']}: {s['actions']} actions / "
                                           f"{s['events']} events seen, the store has {acts} / {len(events)}")
    finally:
        db.close()
    return out


def ms(x: float) -> str:
    return f"{1000 * x:.1f}"


def report(name: str, res: dict, think: float, slots: int) -> None:
    """Print one phase's figures."""
    seconds, warmup = res["seconds"], res["warmup"]
    lat, warm = res["lat"]["steady"], res["lat"]["warm"]
    srv, srv_warm = res["server_lat"]["steady"], res["server_lat"]["warm"]
    games = res["games"]
    acts = len(lat) + len(warm)
    steady_s = max(1e-9, seconds - warmup)
    print(f"\n== {name}: {slots} concurrent game(s), {seconds:g} s, think {think:g} s a decision "
          f"(uniform {0.5 * think:g}..{1.5 * think:g} s)")
    print(f"   games created {len(games)}, finished {sum(1 for g in games if g['seats'][0]['over'])}; "
          f"actions accepted {acts}, {len(lat) / steady_s:.1f}/s after the warm-up")
    print(f"   client latency (send -> own update){' after the warm-up' if warmup else ''}: n={len(lat)} "
          f"p50 {ms(pct(lat, .5))} ms, p95 {ms(pct(lat, .95))}, p99 {ms(pct(lat, .99))}, "
          f"max {ms(max(lat) if lat else float('nan'))}")
    print(f"   server latency (receipt -> last send){' after the warm-up' if warmup else ''}: n={len(srv)} "
          f"p50 {ms(pct(srv, .5))} ms, p95 {ms(pct(srv, .95))}, p99 {ms(pct(srv, .99))}, "
          f"max {ms(max(srv) if srv else float('nan'))}")
    if warmup:
        print(f"   during the first {warmup:g} s (the games being created): client n={len(warm)} p50 "
              f"{ms(pct(warm, .5))} ms, p99 {ms(pct(warm, .99))}; server p50 {ms(pct(srv_warm, .5))} ms, "
              f"p99 {ms(pct(srv_warm, .99))}")
    gc2 = res["gc2"]
    print(f"   server full garbage collections: {len(gc2)}, {ms(sum(gc2))} ms in all, the longest "
          f"{ms(max(gc2) if gc2 else 0.0)} ms")
    print(f"   client event-loop lag: p50 {ms(pct(res['lag'], .5))} ms, p99 {ms(pct(res['lag'], .99))} ms")
    print(f"   server CPU {res['cpu']:.1f} s in all ({1000 * res['cpu'] / max(1, acts):.2f} ms per accepted action,"
          f" creations included); after the warm-up {100 * res['cpu_steady'] / steady_s:.0f}% of one core")
    grow = res["rss1"] - res["rss0"]
    print(f"   server RSS {res['rss0'] / 1024:.0f} -> {res['rss1'] / 1024:.0f} MiB (peak {res['peak'] / 1024:.0f}); "
          f"growth per game created {grow / max(1, len(games)):.0f} KiB (games of "
          f"{acts / max(1, len(games)):.0f} actions on average)")
    if res["failures"]:
        print(f"   FAILURES {len(res['failures'])}: {res['failures'][:3]}")
    errs: dict[str, int] = {}
    for g in games:
        for s in g["seats"]:
            for k, v in s["errors"].items():
                errs[k] = errs.get(k, 0) + v
    if errs:
        print(f"   errors from the server: {errs}")


def check(store: Path, name: str, res: dict) -> bool:
    """Print the store check of one phase; whether all is well."""
    chk = check_store(store, res["games"])
    print(f"   {name}: {chk['games']} games, {chk['seats']} seats' copies checked against the store: "
          f"{chk['actions']} stored actions ({chk['inputs']} inputs); events lost {chk['lost']}, "
          f"doubled {chk['doubled']}, copies differing {len(chk['mismatch'])}")
    for m in chk["mismatch"][:5]:
        print(f"      {m}")
    return not (chk["lost"] or chk["doubled"] or chk["mismatch"] or res["failures"] or any(res["rc"]))


def start_server(store: Path, tmp: Path, gc_mode: str) -> tuple[subprocess.Popen, str]:
    """The server subprocess and its URL."""
    with open(tmp / f"{store.stem}_server.log", "w") as log:  # the server's own log (tracebacks)
        server = subprocess.Popen([sys.executable, __file__, "--_serve", str(store), str(tmp / "server.json"),
                                   gc_mode], cwd=ROOT, stdout=subprocess.PIPE, stderr=log, text=True)
    line = server.stdout.readline().strip()
    if not line.startswith("URL "):
        server.kill()
        server.wait()
        raise SystemExit(f"the server did not start: {line!r}")
    return server, line.split()[1]


def stop_server(server: subprocess.Popen) -> None:
    """SIGTERM, then kill after 20 s."""
    server.send_signal(signal.SIGTERM)
    try:
        server.wait(20)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark (see the module doc); returns 0, or 1 when an event was lost or
    doubled or a client failed."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=200, help="concurrent games in the load phase (default 200)")
    ap.add_argument("--seconds", type=float, default=120.0, help="length of each load phase (default 120 s)")
    ap.add_argument("--think", default="5", help="mean think time per decision, s; several (2,10): one load phase "
                                                 "each, each on a fresh server (default 5)")
    ap.add_argument("--warmup", type=float, default=20.0, help="first seconds of a load phase (the games being "
                                                               "created) reported apart (default 20)")
    ap.add_argument("--workers", type=int, default=2, help="client processes (default 2)")
    ap.add_argument("--plans", type=int, default=4, help="distinct pre-computed games (default 4)")
    ap.add_argument("--baseline-seconds", type=float, default=20.0, help="length of the 1-game baseline (20 s)")
    ap.add_argument("--baseline-think", type=float, default=0.2, help="think time in the baseline (0.2 s)")
    ap.add_argument("--server-gc", choices=["default", "freeze"], default="default",
                    help="freeze: an experiment, the server calls gc.freeze() once warm (not what main.py serve does)")
    ap.add_argument("--keep", action="store_true", help="keep the temporary directory (stores, results)")
    args = ap.parse_args(argv)
    thinks = [float(x) for x in str(args.think).split(",") if x.strip()]

    tmp = Path(tempfile.mkdtemp(prefix="net_load_"))
    print(f"net_load: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f} at start (the machine is "
          f"shared); server gc: {args.server_gc}; temp dir {tmp}")
    t = time.perf_counter()
    plans = make_plans(args.plans)
    plans_path = tmp / "plans.json"
    plans_path.write_text(json.dumps(plans))
    print(f"plans: {len(plans)} greedy games replayed by the clients, {sum(len(p['actions']) for p in plans)} "
          f"actions ({time.perf_counter() - t:.1f} s to compute)")
    ok = True
    summary = []
    for k, think in enumerate(thinks):
        store = tmp / f"games_{k}.db"
        server, url = start_server(store, tmp, args.server_gc)
        print(f"\nserver {url} (pid {server.pid}, store {store.name}), RSS {rss_kib(server.pid) / 1024:.0f} MiB "
              f"before any game; load average {os.getloadavg()[0]:.2f}")
        phases = []
        try:
            if k == 0:
                base = run_phase(url, str(plans_path), tmp, "baseline", 1, 1, args.baseline_seconds,
                                 args.baseline_think, 0.0, server)
                report("baseline", base, args.baseline_think, 1)
                phases.append(("baseline", base))
            load = run_phase(url, str(plans_path), tmp, f"load_{k}", args.games, args.workers, args.seconds, think,
                             args.warmup, server)
            report("load", load, think, args.games)
            phases.append(("load", load))
        finally:
            stop_server(server)
        good = True
        for name, res in phases:
            good &= check(store, name, res)
        log = (tmp / f"{store.stem}_server.log").read_text().splitlines()
        errors = [x for x in log if x.strip() and not x.startswith(" ")]
        if errors:
            print(f"   the server's log: {len(log)} lines, e.g. {errors[-1][:200]!r}")
        ok &= good
        lat = load["lat"]["steady"]
        summary.append(f"think {think:g} s: {args.games} games, {len(lat)} actions after the warm-up, client p50 "
                       f"{ms(pct(lat, .5))} ms, p99 {ms(pct(lat, .99))} ms "
                       f"({'under' if pct(lat, .99) < 0.05 else 'over'} the 50 ms target)"
                       + ("" if good else "; FAILED: events lost/doubled or clients failed (see above)"))
    print("\nsummary (load average now {:.2f}):".format(os.getloadavg()[0]))
    for line in summary:
        print("   " + line)
    if not args.keep:
        for p in sorted(tmp.iterdir()):
            p.unlink()
        tmp.rmdir()
    return 0 if ok else 1


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--_serve":
        if os.environ.get("NET_LOAD_PROFILE"):  # the server's cProfile statistics, written there
            import cProfile

            cProfile.run("asyncio.run(serve_main(*sys.argv[2:5]))", os.environ["NET_LOAD_PROFILE"])
        else:
            asyncio.run(serve_main(*sys.argv[2:5]))
    elif len(sys.argv) > 1 and sys.argv[1] == "--_worker":
        a = sys.argv[2:]
        asyncio.run(worker_main(a[0], a[1], int(a[2]), float(a[3]), float(a[4]), float(a[5]), float(a[6]),
                                int(a[7]), a[8]))
    else:
        sys.exit(main())
