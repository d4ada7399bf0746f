"""Benchmark: whole games between bots on the default table (issue 5).

Run: ``python benchmarks/game_bench.py [--games N] [--turns T]``

Prints, for greedy-vs-greedy and random-vs-random games of ``T`` turns (6 models a side
on the default table): milliseconds per game and per action (process CPU time; mean,
median and max over ``N`` seeds). Target: under 1 s per greedy 6-turn game.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sim.rules.bots import GreedyBot, RandomBot, play  # noqa: E402
from sim.rules.game import Game  # noqa: E402
from sim.table import load_table  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=10)
    ap.add_argument("--turns", type=int, default=6)
    ap.add_argument("--scenario", default="shrines", help="also time greedy games with this scenario ('' for none)")
    args = ap.parse_args(argv)
    table = load_table()
    ap_scen = args.scenario
    runs = [("greedy", GreedyBot, None), ("random", RandomBot, None)]
    if ap_scen:
        runs.append(("greedy", GreedyBot, ap_scen))
    for name, bot, scen in runs:
        per_game, per_action, killed = [], [], []
        for seed in range(args.games):
            t0 = time.process_time()
            g = play(Game(table, seed=seed, length=("fixed", args.turns), scenario=scen), (bot(seed), bot(seed + 1000)))
            dt = time.process_time() - t0
            per_game.append(dt * 1000)
            per_action.append(dt * 1000 / max(1, len(g.actions)))
            killed.append(sum(not m.alive for m in g.state.models.values()))
        print(f"{name:6s} vs {name:6s}, {args.turns} turns, {args.games} games{', ' + scen if scen else ''}: "
              f"{statistics.mean(per_game):7.0f} ms/game mean, {statistics.median(per_game):7.0f} median, "
              f"{max(per_game):7.0f} max; {statistics.mean(per_action):5.2f} ms/action; "
              f"{statistics.mean(killed):.1f} models killed per game")
    return 0


if __name__ == "__main__":
    sys.exit(main())
