"""Benchmark: a model's reach -- ``walk_region`` + ``run_region`` + ``charge_lanes``.

Run: ``python benchmarks/movement_bench.py [--repeat N] [--seed S] [--model ID] [--all]``

Times are process CPU milliseconds (one core), best of ``--repeat`` runs (as timeit
does: the least disturbed by other load). Target: under 200 ms for the three together.

Prints, for the default table and a generated crowded table (20 models with Move 4-6,
12 pieces): the chosen model (default: the first model of player 1 that is neither in an
enemy ZoC nor in BtB, so that all three parts have work to do) and, with ``--all``, every
model with a Move, then the median and the worst.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import yaml  # noqa: E402

from benchmarks.measure_bench import generated_table_yaml  # noqa: E402
from sim.rules.planning import charge_lanes, run_region, walk_region  # noqa: E402
from sim.table import DEFAULT_TABLE, load_table, parse_table  # noqa: E402


def crowded_table(seed: int = 1, n_models: int = 20, n_pieces: int = 12):
    """``generated_table_yaml`` with a Move of 4, 5 or 6 for every model."""
    doc = yaml.safe_load(generated_table_yaml(seed, n_models, n_pieces))
    rng = random.Random(seed * 7919 + 1)
    for m in doc["models"]:
        m["move"] = rng.choice([4, 5, 6])
    return parse_table(yaml.safe_dump(doc, sort_keys=False), f"generated seed {seed}")


def _typical(table) -> str:
    """The first player-1 model free to move: not in an enemy ZoC nor in BtB."""
    from sim.rules.movement import Mover

    for m in table.models:
        if m.player == 1 and m.move is not None:
            mv = Mover(table, m.id)
            if not mv.start_zocs and not mv.start_contacts:
                return m.id
    return next(m.id for m in table.models if m.move is not None)


def time_model(table, model_id: str, repeat: int) -> dict[str, float]:
    """Best-of-``repeat`` CPU milliseconds of each part and of the whole."""
    best = {"walk": float("inf"), "run": float("inf"), "charges": float("inf"), "total": float("inf")}
    for _ in range(repeat):
        t0 = time.process_time()
        walk_region(table, model_id)
        t1 = time.process_time()
        run_region(table, model_id)
        t2 = time.process_time()
        charge_lanes(table, model_id)
        t3 = time.process_time()
        for key, v in (("walk", t1 - t0), ("run", t2 - t1), ("charges", t3 - t2), ("total", t3 - t0)):
            best[key] = min(best[key], v * 1e3)
    return best


def _line(name: str, ms: dict[str, float]) -> str:
    flag = "" if ms["total"] < 200 else "   (over 200 ms)"
    return (f"   {name:12s} walk {ms['walk']:6.1f}  run {ms['run']:6.1f}  charges {ms['charges']:6.1f}"
            f"  total {ms['total']:6.1f} ms{flag}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--model", default=None, help="model id (default: first player-1 model)")
    ap.add_argument("--all", action="store_true", help="time every model, print median and worst")
    args = ap.parse_args(argv)
    # warm up imports (scipy, contourpy) so they are not timed
    warm = load_table(DEFAULT_TABLE)
    walk_region(warm, warm.models[0].id)
    tables = [("default", load_table(DEFAULT_TABLE)), ("generated-20x12", crowded_table(args.seed))]
    for name, table in tables:
        movers = [m.id for m in table.models if m.move is not None]
        chosen = args.model if args.model in movers else _typical(table)
        print(f"== {name}: {len(table.models)} models, {len(table.terrain)} pieces; best of {args.repeat}, CPU ms")
        print(_line(chosen, time_model(table, chosen, args.repeat)) + "   <- chosen model")
        if args.all:
            rows = {mid: time_model(table, mid, args.repeat) for mid in movers}
            for mid, ms in rows.items():
                print(_line(mid, ms))
            for key in ("walk", "run", "charges", "total"):
                vals = [ms[key] for ms in rows.values()]
                worst = max(rows, key=lambda m: rows[m][key])
                print(f"   {key:8s} median {statistics.median(vals):6.1f}  worst {max(vals):6.1f} ({worst})")
            over = [m for m, ms in rows.items() if ms["total"] >= 200]
            print(f"   models over 200 ms: {len(over)}/{len(rows)} {over if over else ''}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
