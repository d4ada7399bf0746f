"""Benchmark: the window's speed on the default table (issue 12, "Speed").

Run: ``python benchmarks/play_bench.py [--frames N] [--games N] [--no-xvfb]``

Prints wall-clock milliseconds (``time.perf_counter``; medians and maxima over the
models of the default table) and ratios against a baseline measured in the same run:

* **planning**: a model's Walk region, Run region and charge lanes -- the uncached
  reference (``sim.rules.planning.walk_region`` ...) against the per-position cache
  (``cached_walk_region`` ...), first call and repeated;
* **drawing**: the movement overlay's meshes -- the reference (``Ground.cap`` /
  ``Ground.outline`` with ``MeshBuilder``, a vertex at a time, as the layer drew them
  before) against the vectorised ``ArrayMesh`` path of ``sim.view.layers.movement``;
* **window** (``sim.view.app.TableView`` on the offscreen ShowBase, 1280x960): a click on
  a model to its LoS overlay, ZoC, front arc, legend and status (target < 50 ms), and
  the Walk / Run / Charge overlays switched on for a model never shown before (planner
  cache cleared: target < 150 ms), then selected again, and switched on after the
  three idle frames that follow a click (they precompute the model's regions and lanes);
* **frames per second** of the software renderer offscreen (p3tinydisplay) with the
  overlays on (and off, the baseline); with ``xvfb-run`` installed, also onscreen under
  Xvfb (the default OpenGL pipe, i.e. Mesa's software rasteriser there, and
  p3tinydisplay's X window) -- target >= 30;
* **the greedy bot**'s decision time (``sim.rules.bots.BOTS["greedy"]``) over whole
  games on the default table (target < 0.5 s a decision);
* **overlay geometry** over many positions (the default table and the table after every
  action of ``--overlay-games`` seeded greedy-vs-greedy games): the selected model's ZoC
  area as computed before issue 12 (a base exactly touching took 48 rim points, ~0.3 s
  each), by the slow reference (``sim.geometry.reference.zoc_region_reference``) and by
  the fast ``zoc_region`` (caches empty, and as a game leaves them), the LoS/cover/ZoC
  pairs, and ``TableScene.select`` (target < 50 ms), with the worst positions
  (``--only-overlay`` runs this part alone).
"""

from __future__ import annotations

import argparse
import math
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sim.rules import planning  # noqa: E402
from sim.rules.movement import MoveError, Mover  # noqa: E402
from sim.table import load_table  # noqa: E402

W, H = 1280, 960


def _ms(fn, *args) -> float:
    t0 = time.perf_counter()
    fn(*args)
    return (time.perf_counter() - t0) * 1e3


def _stats(xs) -> str:
    return f"median {statistics.median(xs):7.1f} ms, max {max(xs):7.1f} ms"


def movers(table) -> list[str]:
    """The models with a Move value."""
    out = []
    for m in table.models:
        try:
            Mover(table, m.id)
        except MoveError:
            continue
        out.append(m.id)
    return out


def bench_planning(table, ids) -> None:
    """Reference (uncached) against the per-position cache."""
    ref, first, again = [], [], []
    planning.cache_clear()
    for mid in ids:
        ref.append(sum(_ms(f, table, mid) for f in (planning.walk_region, planning.run_region,
                                                    planning.charge_lanes)))
        first.append(sum(_ms(f, table, mid) for f in (planning.cached_walk_region, planning.cached_run_region,
                                                      planning.cached_charge_lanes)))
        again.append(sum(_ms(f, table, mid) for f in (planning.cached_walk_region, planning.cached_run_region,
                                                      planning.cached_charge_lanes)))
    print("planning: Walk region + Run region + charge lanes of one model")
    print(f"  reference (uncached)        {_stats(ref)}")
    print(f"  cached, first call          {_stats(first)}")
    print(f"  cached, asked again         {_stats(again)}   "
          f"(x{statistics.median(ref) / max(1e-6, statistics.median(again)):.0f} faster than the reference)")


def bench_drawing(table, ids) -> None:
    """The overlay meshes: MeshBuilder one vertex at a time (reference) against ArrayMesh."""
    from sim.view import style
    from sim.view.layers import movement as mv
    from sim.view.layers.ground import Ground
    from sim.view.layers.marks import areal
    from sim.view.layers.paint import RUN_Z, WALK_Z, rgba
    from sim.view.mesh import MeshBuilder

    ground = Ground(table)
    ref, fast = [], []
    for mid in ids:
        regions = [(areal(planning.cached_walk_region(table, mid)), WALK_Z, style.WALK),
                   (areal(planning.cached_run_region(table, mid)), RUN_Z, style.RUN)]
        regions = [r for r in regions if r[0] is not None and not r[0].is_empty]

        def reference():
            for geom, z, colour in regions:
                mb = MeshBuilder("ref")
                ground.cap(mb, geom, z, rgba(colour, 0.4))
                ground.outline(mb, geom, z + 0.002, 0.05, rgba(colour))
                mb.node()

        def vectorised():
            for geom, z, colour in regions:
                mesh = mv.ArrayMesh("fast")
                mv.fill_region(mesh, table, ground, geom, z, rgba(colour, 0.4))
                mv.outline_region(mesh, table, geom, z + 0.002, 0.05, rgba(colour))
                mesh.node()

        ref.append(_ms(reference))
        fast.append(_ms(vectorised))
    print("drawing: Walk and Run region meshes (fill and outline) of one model")
    print(f"  reference (MeshBuilder)     {_stats(ref)}")
    print(f"  vectorised (ArrayMesh)      {_stats(fast)}   "
          f"(x{statistics.median(ref) / max(1e-6, statistics.median(fast)):.1f} faster)")


def bench_window(table, ids) -> None:
    """Clicks and overlays in TableView on the offscreen ShowBase."""
    from sim.view.app import TableView
    from sim.view.play.shell import get_base

    base = get_base(offscreen=True, size=(W, H))
    view = TableView(base, table, bind=False)
    base.graphicsEngine.render_frame()
    sel_first, sel_again = [], []
    for mid in ids + ids:
        t = _ms(view.select, mid)
        (sel_again if len(sel_first) == len(ids) else sel_first).append(t)
    view.select(None)
    print(f"window ({W}x{H}, offscreen): click on a model -> LoS lines, ZoC, front arc, legend, status "
          "(target < 50 ms)")
    print(f"  first click on each model   {_stats(sel_first)}")
    print(f"  clicked again               {_stats(sel_again)}")
    view.destroy()

    planning.cache_clear()
    view = TableView(base, table, bind=False)
    walk, run, charges, total, again = [], [], [], [], []
    for mid in ids:
        view.select(mid)
        w = _ms(view.toggle_overlay, "walk")
        r = _ms(view.toggle_overlay, "run")
        c = _ms(view.toggle_overlay, "charges")
        walk.append(w)
        run.append(r)
        charges.append(c)
        total.append(w + r + c)
        for name in ("walk", "run", "charges"):
            view.toggle_overlay(name)
    for name in ("walk", "run", "charges"):
        view.toggle_overlay(name)
    for mid in ids:
        again.append(_ms(view.select, mid))
    print("window: overlays of a model shown for the first time (planner cache cleared; target < 150 ms each)")
    print(f"  w: Walk region              {_stats(walk)}")
    print(f"  r: Run region               {_stats(run)}")
    print(f"  c: charge lanes             {_stats(charges)}")
    print(f"  all three                   {_stats(total)}")
    print(f"  model selected again, all three overlays on: {_stats(again)}")
    view.destroy()

    planning.cache_clear()
    view = TableView(base, table, bind=False)
    idle, frames = [], []
    for mid in ids:
        view.select(mid)
        t0 = time.perf_counter()
        for _ in range(3):  # the idle frames after the click compute the regions and lanes
            base.task_mgr.step()
        frames.append((time.perf_counter() - t0) * 1e3 / 3)
        idle.append(sum(_ms(view.toggle_overlay, name) for name in ("walk", "run", "charges")))
        for name in ("walk", "run", "charges"):
            view.toggle_overlay(name)
    print("window: the same, pressed after 3 idle frames (which precompute the regions and lanes)")
    print(f"  w + r + c                   {_stats(idle)}")
    print(f"  each of those idle frames   {_stats(frames)}")
    view.destroy()


def fps(base, view, frames: int) -> float:
    """Frames per second of ``frames`` frames rendered with the view's overlays."""
    for _ in range(3):
        base.graphicsEngine.render_frame()
    t0 = time.perf_counter()
    for _ in range(frames):
        base.task_mgr.step()  # one frame of the window's loop (its tasks and a render)
    return frames / (time.perf_counter() - t0)


def bench_fps(table, frames: int, onscreen: str | None = None) -> None:
    """Frames per second with kenta selected, overlays on, against overlays off."""
    from panda3d.core import load_prc_file_data

    from sim.view.app import TableView
    from sim.view.play.shell import get_base

    if onscreen == "tiny":
        load_prc_file_data("bench-tiny", "load-display p3tinydisplay\n")
    base = get_base(offscreen=onscreen is None, size=(W, H))
    view = TableView(base, table, "kenta", bind=False)
    off = fps(base, view, frames)
    for name in ("walk", "run", "charges"):
        view.toggle_overlay(name)
    on = fps(base, view, frames)
    where = ("offscreen, p3tinydisplay" if onscreen is None else
             f"onscreen under Xvfb, {base.pipe.get_type().get_name()}")
    print(f"frames per second ({W}x{H}, {where}): {on:6.1f} with the LoS, ZoC, Walk, Run and charge overlays "
          f"of kenta; {off:6.1f} with its LoS and ZoC only (x{on / off:.2f}; target >= 30)")
    view.destroy()


def bench_xvfb(frames: int) -> None:
    """Run the onscreen frame-rate measurements in a child process under xvfb-run."""
    if shutil.which("xvfb-run") is None:
        print("frames per second under Xvfb: xvfb-run not installed (apt-get install -y xvfb)")
        return
    for pipe in ("gl", "tiny"):
        cmd = ["xvfb-run", "-a", "-s", f"-screen 0 {W + 100}x{H + 100}x24", sys.executable, __file__,
               "--only-fps", pipe, "--frames", str(frames)]
        res = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, env=dict(os.environ), timeout=300)
        lines = [ln for ln in res.stdout.splitlines() if ln.startswith("frames per second")]
        print(lines[0] if lines else f"frames per second under Xvfb ({pipe}): failed: "
              f"{(res.stderr.strip().splitlines() or ['?'])[-1]}")


def bench_bot(games: int, turns: int) -> None:
    """The greedy bot's decision time over whole games on the default table."""
    from sim.rules.bots import BOTS
    from sim.rules.game import Game

    bot_cls = BOTS["greedy"]
    table = load_table()
    times = []
    for seed in range(games):
        game = Game(table, seed=seed, length=("fixed", turns))
        bots = (bot_cls(seed), bot_cls(seed + 1000))
        while not game.is_over():
            player = game.to_move()
            t0 = time.perf_counter()
            action = bots[player - 1].choose(game)
            times.append((time.perf_counter() - t0) * 1e3)
            game.push(action)
    times.sort()
    p95 = times[int(0.95 * (len(times) - 1))]
    print(f"greedy bot ({games} games of {turns} turns, {len(times)} decisions): "
          f"mean {statistics.mean(times):.1f} ms, median {statistics.median(times):.1f} ms, "
          f"95th percentile {p95:.1f} ms, max {times[-1]:.1f} ms (target < 500 ms)")


# ------------------------------------------------------- overlay geometry over game positions
def overlay_positions(games: int, turns: int) -> list[tuple[str, object]]:
    """The default table, then the table after every action of ``games`` seeded
    greedy-vs-greedy games (seeds 0, 1, ...; ``turns`` turns): ``(name, table)``."""
    from sim.rules.bots import BOTS
    from sim.rules.game import Game

    out: list[tuple[str, object]] = [("default table", load_table())]
    bot_cls = BOTS["greedy"]
    for seed in range(games):
        game = Game(load_table(), seed=seed, length=("fixed", turns))
        bots = (bot_cls(seed), bot_cls(seed + 1000))
        n = 0
        while not game.is_over():
            game.push(bots[game.to_move() - 1].choose(game))
            n += 1
            out.append((f"seed {seed} after action {n}", game.table_now()))
    return out


def _fresh_scene(table):
    """The table's geometry Scene built anew (as after a rebuild of the window's table)."""
    from sim.geometry import Scene

    return Scene([m.to_body() for m in table.models], [t.to_piece() for t in table.terrain])


def _best_ms(fn, repeat: int, before=None) -> float:
    """The fastest of ``repeat`` timings of ``fn()`` (``before()`` run untimed first)."""
    best = math.inf
    for _ in range(repeat):
        if before is not None:
            before()
        best = min(best, _ms(fn))
    return best


def bench_overlay_geometry(games: int, turns: int, repeat: int = 3, worst: int = 5) -> None:
    """The selected model's measure overlay over many positions: its ZoC area
    (``zoc_region``) as before issue 12 (the rim-point construction for a base exactly
    touching), by the slow reference and by the fast cached geometry; LoS, cover and
    ZoC to every other model; the whole ``TableScene.select`` (Panda3D meshes included).
    Each figure is the fastest of ``repeat`` runs, except the before-issue-12 one (one run)."""
    from sim.geometry.measure import clear_geometry_caches, zoc_region
    from sim.geometry.reference import zoc_region_reference
    from sim.view.scene3d import TableScene

    positions = overlay_positions(games, turns)
    before, ref, cold, warm, pairs, sel_cold, sel_game, sel_again = [], [], [], [], [], [], [], []
    names = []
    for name, table in positions:  # every figure with the caches emptied first
        scene3d = TableScene(table, None)
        for m in table.models:
            names.append(f"{name}: {m.id}")
            before.append(_ms(lambda: zoc_region_reference(_fresh_scene(table), m.id, exact_touching=False)))
            ref.append(_best_ms(lambda: zoc_region_reference(_fresh_scene(table), m.id), repeat))
            cold.append(_best_ms(lambda: zoc_region(_fresh_scene(table), m.id), repeat, clear_geometry_caches))
            s = table.scene()
            pairs.append(_best_ms(lambda: [s.measure_pair(m.id, o.id) for o in table.models if o.id != m.id], repeat))
            sel_cold.append(_best_ms(lambda: scene3d.select(m.id), repeat, clear_geometry_caches))
        scene3d.root.remove_node()
    clear_geometry_caches()
    for _name, table in positions:  # in game order, the caches kept from one position to the next
        scene3d = TableScene(table, None)
        for m in table.models:
            warm.append(_ms(lambda: zoc_region(_fresh_scene(table), m.id)))
        for m in table.models:
            sel_game.append(_ms(scene3d.select, m.id))
            sel_again.append(_best_ms(lambda: scene3d.select(m.id), repeat))
        scene3d.root.remove_node()
    n = len(ref)
    med = statistics.median
    print(f"overlay geometry: {len(positions)} positions (the default table and after every action of {games} "
          f"greedy-vs-greedy games of {turns} turns), {n} selected models; fastest of {repeat} runs")
    print(f"  ZoC area, {'before issue 12':27} {_stats(before)}   (one run)")
    for label, xs in (("reference (uncached)", ref), ("fast, caches empty", cold),
                      ("fast, caches as in the game", warm)):
        print(f"  ZoC area, {label:27} {_stats(xs)}   (before/this: x{med(before) / med(xs):.1f} median, "
              f"x{max(before) / max(xs):.0f} worst; reference/this: x{med(ref) / med(xs):.1f} median, "
              f"x{max(ref) / max(xs):.1f} worst)")
    print(f"  LoS, cover and ZoC to every other model {_stats(pairs)}")
    est = [sc - c + b for sc, c, b in zip(sel_cold, cold, before)]
    print(f"  TableScene.select, before issue 12 (estimated: select - fast ZoC + ZoC before) {_stats(est)}")
    print(f"  TableScene.select, caches empty       {_stats(sel_cold)}   (target < 50 ms; "
          f"x{max(est) / max(sel_cold):.0f} worst against before)")
    print(f"  TableScene.select, caches as in game  {_stats(sel_game)}")
    print(f"  TableScene.select, selected again     {_stats(sel_again)}")
    for label, xs in (("ZoC area before issue 12", before), ("select, caches empty", sel_cold)):
        order = sorted(range(n), key=lambda i: -xs[i])[:worst]
        print(f"  worst {worst}, {label}: " + "; ".join(f"{names[i]} {xs[i]:.1f} ms" for i in order))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=60, help="frames per frame-rate measurement")
    ap.add_argument("--games", type=int, default=3, help="greedy-vs-greedy games timed")
    ap.add_argument("--turns", type=int, default=6)
    ap.add_argument("--no-xvfb", action="store_true", help="skip the onscreen measurements under Xvfb")
    ap.add_argument("--only-fps", choices=("gl", "tiny"), help=argparse.SUPPRESS)  # the child under Xvfb
    ap.add_argument("--overlay-games", type=int, default=2, help="greedy games whose positions time the overlays")
    ap.add_argument("--only-overlay", action="store_true", help="only the overlay geometry over game positions")
    args = ap.parse_args(argv)
    table = load_table()
    if args.only_fps:
        bench_fps(table, args.frames, onscreen=args.only_fps)
        return 0
    if args.only_overlay:
        bench_overlay_geometry(args.overlay_games, args.turns)
        return 0
    ids = movers(table)
    print(f"default table ({table.name}), {len(ids)} models with a Move; wall-clock times\n")
    bench_planning(table, ids)
    bench_drawing(table, ids)
    bench_window(table, ids)
    bench_fps(table, args.frames)
    if not args.no_xvfb:
        bench_xvfb(args.frames)
    bench_bot(args.games, args.turns)
    bench_overlay_geometry(args.overlay_games, args.turns)
    return 0


if __name__ == "__main__":
    sys.exit(main())
