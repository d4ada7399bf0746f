"""Fuzz the engine with real catalogue warbands (issue #13, helper F1).

Each game (one seed, one game): two factions of the catalogues (``../shared/bsdata`` or
``--data``; a faction may meet itself), a legal warband picked for each
(:func:`sim.rules.setup.auto.pick_warband`, rice 70 or 100), deployed by the engine's
set-up policy (:func:`~sim.rules.setup.auto.auto_setup`) on the terrain of
``data/tables/default.yaml``, with no scenario or one of ``data/scenarios``, played to
the end by the random and greedy bots (every pair, both ways round). After every action
the position must keep the invariants of :mod:`sim.rules.invariants`; at the end the
game is saved, loaded back with verification (``Game.load`` re-simulates the actions)
and must give the same snapshot.

Run::

    .venv/bin/python benchmarks/fuzz_warbands.py --games 200 --workers 2
    .venv/bin/python benchmarks/fuzz_warbands.py --replay 137     # one seed, full traceback
    .venv/bin/python benchmarks/fuzz_warbands.py --seed 1000 --games 50 --report out/fuzz.txt

Prints one line per failed game as it comes and a summary: the failures grouped by
kind (``setup``, ``crash``, ``invariant``, ``replay``, ``timeout``, ``endless``) and
cause (exception and the project frame it came from), each with the seeds that replay it.
Exit status 1 when any game failed.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import random
import signal
import sys
import tempfile
import time
import traceback
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sim.rules.scenario import list_scenarios  # noqa: E402

TABLE = ROOT / "data" / "tables" / "default.yaml"
SLOTS: tuple[str | None, ...] = (None, *list_scenarios())
PAIRS = (("random", "random"), ("greedy", "random"), ("greedy", "greedy"), ("random", "greedy"))
RICE = (70, 70, 100)
#: A game that takes more actions than this does not end.
MAX_ACTIONS = 4000


@dataclass
class Plan:
    """What seed ``seed`` plays: the factions, rice, scenario and bots."""

    seed: int
    factions: tuple[str, str]
    rice: int
    scenario: str | None
    bots: tuple[str, str]

    def text(self) -> str:
        return (f"seed {self.seed}: {self.factions[0]} vs {self.factions[1]}, rice {self.rice}, "
                f"{self.scenario or 'no scenario'}, {self.bots[0]} vs {self.bots[1]}")


@dataclass
class Outcome:
    """One game's result: ``kind`` is ``ok`` or the failure's kind; ``cause`` groups
    failures with the same origin; ``detail`` is the message or the traceback."""

    plan: Plan
    kind: str = "ok"
    cause: str = ""
    detail: str = ""
    actions: int = 0
    seconds: float = 0.0
    result: str = ""
    kinds: set[str] = field(default_factory=set)


def plan(seed: int, factions: list[str]) -> Plan:
    """The seeded choice of seed ``seed``."""
    rng = random.Random(f"fuzz-warbands-{seed}")
    return Plan(seed, (rng.choice(factions), rng.choice(factions)), rng.choice(RICE),
                SLOTS[seed % len(SLOTS)], PAIRS[(seed // len(SLOTS)) % len(PAIRS)])


class _Timeout(Exception):
    pass


def _alarm(_sig, _frame):
    raise _Timeout()


def _cause(exc: BaseException) -> str:
    """``Type at file:line (function)`` of the innermost project frame of ``exc``."""
    frames = traceback.extract_tb(exc.__traceback__)
    mine = [f for f in frames if str(ROOT) in f.filename and "/.venv/" not in f.filename
            and not f.filename.endswith("fuzz_warbands.py")]
    where = mine[-1] if mine else (frames[-1] if frames else None)
    loc = f"{Path(where.filename).relative_to(ROOT) if str(ROOT) in where.filename else where.filename}:" \
          f"{where.lineno} ({where.name})" if where else "?"
    return f"{type(exc).__name__} at {loc}"


_CS = None


def _catalogues(data):
    global _CS
    if _CS is None:
        from sim.rules.setup import catalogues
        _CS = catalogues(data)
    return _CS


def build(p: Plan, data):
    """The deployed game of plan ``p`` (raises what the set-up raises)."""
    from sim.rules.setup import GameSetup, TableChoice
    from sim.rules.setup.auto import auto_setup, pick_warband

    cs = _catalogues(data)
    chosen = {side: pick_warband(cs, name, p.rice, seed=p.seed * 2 + side) for side, name in enumerate(p.factions, 1)}
    setup = GameSetup(TableChoice.terrain_of(TABLE), scenario=p.scenario, warbands=chosen, seed=p.seed)
    auto_setup(setup)
    return setup.game()


def run_one(args) -> Outcome:
    """Play plan ``p`` with its checks; never raises (a failure is the outcome)."""
    p, data, time_limit, check_every = args
    from sim.rules.bots import BOTS
    from sim.rules.game import Game
    from sim.rules.invariants import game_problems

    out = Outcome(p)
    t0 = time.perf_counter()
    old = signal.signal(signal.SIGALRM, _alarm) if time_limit else None
    if time_limit:
        signal.alarm(time_limit)
    stage = "setup"
    try:
        g = build(p, data)
        stage = "crash"
        probs = game_problems(g)
        if probs:
            out.kind, out.cause = "invariant", "after the set-up: " + _shape(probs[0])
            out.detail = "; ".join(probs)
            return out
        bots = (BOTS[p.bots[0]](p.seed), BOTS[p.bots[1]](p.seed + 7919))
        while not g.is_over():
            who = g.to_move()
            if who is None:
                out.kind, out.cause = "crash", "no player to move in a game not over"
                return out
            a = bots[who - 1].choose(g)
            g.push(a)
            out.actions += 1
            if check_every and out.actions % check_every == 0 or g.is_over():
                probs = game_problems(g)
                if probs:
                    out.kind = "invariant"
                    out.cause = "invariant: " + _shape(probs[0])
                    out.detail = f"action {out.actions} {a!r}: " + "; ".join(probs)
                    return out
            if out.actions >= MAX_ACTIONS:
                out.kind, out.cause = "endless", f"more than {MAX_ACTIONS} actions"
                return out
        out.result = str(g.state.result)
        out.kinds = {e.kind for e in g.events}
        stage = "replay"
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "game.json"
            g.save(path)
            loaded = Game.load(path)
            if loaded.snapshot() != g.snapshot():
                out.kind, out.cause = "replay", "the loaded game's snapshot differs"
                return out
    except _Timeout:
        out.kind, out.cause = "timeout", f"more than {time_limit} s ({stage})"
    except Exception as exc:  # noqa: BLE001 - every failure is a finding
        out.kind = stage
        out.cause = _cause(exc)
        out.detail = "".join(traceback.format_exception(exc))
    finally:
        if time_limit:
            signal.alarm(0)
            signal.signal(signal.SIGALRM, old)
        out.seconds = time.perf_counter() - t0
    return out


def _shape(problem: str) -> str:
    """An invariant line without its numbers and model ids, to group alike problems."""
    import re
    return re.sub(r"[\w-]+'s base", "X's base", re.sub(r"[-\d.]+", "N", problem))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=20, help="number of games (seeds SEED..SEED+N-1)")
    ap.add_argument("--seed", type=int, default=0, help="first seed")
    ap.add_argument("--workers", type=int, default=1, help="processes")
    ap.add_argument("--replay", type=int, metavar="SEED", help="play one seed and print its full traceback")
    ap.add_argument("--time-limit", type=int, default=600, help="seconds a game may take (0: no limit)")
    ap.add_argument("--check-every", type=int, default=1, help="check the invariants every N actions")
    ap.add_argument("--report", metavar="FILE", help="append one line per game to FILE")
    ap.add_argument("--data", help="the catalogues (default: ../shared/bsdata)")
    args = ap.parse_args(argv)

    from sim.rules.setup import default_catalogue_dir
    data = args.data or default_catalogue_dir()
    if data is None:
        print("no catalogues found (give --data DIR)", file=sys.stderr)
        return 2
    factions = _catalogues(data).factions()
    seeds = [args.replay] if args.replay is not None else list(range(args.seed, args.seed + args.games))
    jobs = [(plan(s, factions), data, args.time_limit, args.check_every) for s in seeds]
    t0 = time.perf_counter()
    outcomes: list[Outcome] = []
    report = open(args.report, "a", encoding="utf-8") if args.report else None
    try:
        if args.workers > 1 and len(jobs) > 1:
            ctx = mp.get_context("fork")
            with ctx.Pool(args.workers) as pool:
                it = pool.imap_unordered(run_one, jobs)
                for o in it:
                    outcomes.append(_show(o, report, args.replay is not None))
        else:
            for j in jobs:
                outcomes.append(_show(run_one(j), report, args.replay is not None))
    finally:
        if report:
            report.close()
    return _summary(outcomes, time.perf_counter() - t0)


def _show(o: Outcome, report, full: bool) -> Outcome:
    if o.kind != "ok":
        print(f"FAIL {o.kind}: {o.plan.text()}: {o.cause}", flush=True)
        if full:
            print(o.detail)
    elif full:
        print(f"ok: {o.plan.text()}: {o.actions} actions, {o.result}, {o.seconds:.1f} s")
    if report:
        report.write(f"{o.plan.seed}\t{o.kind}\t{o.actions}\t{o.seconds:.1f}\t{o.plan.text()}\t{o.cause}\n")
        report.flush()
    return o


def _summary(outcomes: list[Outcome], wall: float) -> int:
    ok = [o for o in outcomes if o.kind == "ok"]
    bad = [o for o in outcomes if o.kind != "ok"]
    n = len(outcomes)
    print(f"\n{n} games in {wall:.0f} s: {len(ok)} ok, {len(bad)} failed")
    if ok:
        acts = sorted(o.actions for o in ok)
        secs = sorted(o.seconds for o in ok)
        print(f"  actions per game: median {acts[len(acts) // 2]}, max {acts[-1]}; "
              f"seconds per game: median {secs[len(secs) // 2]:.1f}, max {secs[-1]:.1f}")
        feats = sum(1 for o in ok if "feat_used" in o.kinds)
        print(f"  games with a Ki feat used: {feats}/{len(ok)}")
    groups: dict[tuple[str, str], list[Outcome]] = defaultdict(list)
    for o in bad:
        groups[(o.kind, o.cause)].append(o)
    for (kind, cause), os_ in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        seeds = ", ".join(str(o.plan.seed) for o in sorted(os_, key=lambda o: o.plan.seed)[:12])
        print(f"  {kind:9} x{len(os_):<3} {cause}\n            seeds: {seeds}")
        first = min(os_, key=lambda o: o.plan.seed)
        last = first.detail.strip().splitlines()[-1:] if first.detail else []
        if last:
            print(f"            {last[0][:200]}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
