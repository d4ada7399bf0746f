"""Benchmark: a Slam Attack into a chain of three smaller models on a crowded table.

Run: ``python benchmarks/special_bench.py [--repeat N]``

Prints microseconds per move (process CPU time, best and median of N), with the
table's model and terrain counts, and for scale the same move on an empty table.
Target (issue 4): under 2 ms per move.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sim.geometry import base_radius  # noqa: E402
from sim.rules.special import special_move  # noqa: E402
from sim.table import parse_table  # noqa: E402


def crowded_chain_table(seed: int = 1, extra: int = 16, crowd: bool = True):
    """Attacker (60 mm) slams a defender (50 mm) into 40, 30 and Tiny 30 mm models in a
    row, among ``extra`` other models and a few terrain pieces."""
    r60, r50, r40, r30 = (base_radius(b) for b in (60, 50, 40, 30))
    y = 12.0
    x = 3.0
    models = [{"id": "atk", "player": 1, "base": 60, "position": [x, y], "facing": 0}]
    x += r60 + r50
    models.append({"id": "def", "player": 2, "base": 50, "position": [x, y], "facing": 180})
    x += r50 + 0.4 + r40
    models.append({"id": "c1", "player": 2, "base": 40, "position": [x, y]})
    x += r40 + 0.3 + r30
    models.append({"id": "c2", "player": 2, "base": 30, "position": [x, y]})
    x += r30 + 0.3 + r30
    models.append({"id": "c3", "player": 1, "base": 30, "size": "tiny", "position": [x, y]})
    terrain = []
    if crowd:
        terrain = [
            {"id": "house", "preset": "house", "center": [18, 19]},
            {"id": "tree", "preset": "lone-tree", "center": [5, 4]},
            {"id": "bamboo", "preset": "bamboo-forest", "center": [18, 5]},
            {"id": "wall", "preset": "wall", "center": [7, 19]},
        ]
        rng = random.Random(seed)
        while len(models) < 5 + extra:
            b = rng.choice([30, 30, 40, 50])
            r = base_radius(b)
            p = [rng.uniform(r, 24 - r), rng.uniform(r, 24 - r)]
            if abs(p[1] - y) < 2.5 and p[0] < 16:
                continue
            if any((p[0] - m["position"][0]) ** 2 + (p[1] - m["position"][1]) ** 2
                   < (r + base_radius(m["base"]) + 0.05) ** 2 for m in models):
                continue
            if ((10 < p[0] < 21 and 16 < p[1] < 22) or (3 < p[0] < 7 and 2 < p[1] < 6)
                    or (15 < p[0] < 21 and 2.5 < p[1] < 7.5) or (3.5 < p[0] < 10.5 and 18 < p[1] < 20)):
                continue
            models.append({"id": f"m{len(models)}", "player": 1 + len(models) % 2, "base": b, "position": p})
    doc = {"format": "bushido-table/1", "name": "slam chain", "terrain": terrain, "models": models}
    return parse_table(yaml.safe_dump(doc), "slam-chain")


def bench(table, repeat: int) -> tuple[float, float]:
    times = []
    for _ in range(repeat):
        t0 = time.process_time()
        special_move(table, "atk", "def", "slam")
        times.append(time.process_time() - t0)
    return min(times) * 1e6, statistics.median(times) * 1e6


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=300)
    args = ap.parse_args(argv)
    crowded = crowded_chain_table()
    res = special_move(crowded, "atk", "def", "slam")
    chain = [k for k in res.moves if k != "def"]
    print(f"slam into a chain: moved {', '.join(res.moves)}; Prone {', '.join(res.prone)}; pushed {len(chain)} models")
    for name, t in (("crowded", crowded), ("empty", crowded_chain_table(crowd=False))):
        best, med = bench(t, args.repeat)
        print(f"{name:8s}: {len(t.models):2d} models, {len(t.terrain)} pieces: "
              f"{best:8.0f} us best, {med:8.0f} us median per move")
    best, _ = bench(crowded, args.repeat)
    print(f"target 2000 us: {'met' if best < 2000 else 'NOT met'} ({best / 2000:.2f} of the budget)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
