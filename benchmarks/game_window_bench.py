"""Benchmark: the GAME window's speed (issue 12, "Speed"): sim.view.play.window.GameWindow.

Run: ``python benchmarks/game_window_bench.py [--size 1600x1000] [--seeds 2] [--every 6]
[--frames 60] [--bot-turns 2] [--no-xvfb] [--sections abcd]``

Wall-clock milliseconds (``time.perf_counter``) on the default table, at its start and at
positions sampled along seeded greedy-vs-greedy games (``BOTS["greedy"]``,
``Game(load_table(), seed=s)``, the default game length), each position opened in a fresh
``PlayController`` and ``GameWindow`` on the offscreen ShowBase (software renderer,
p3tinydisplay) at the onscreen window's default size. Every section prints its figures and
a ratio against a baseline measured in the same run:

* **(a) click**: ``click_ndc`` on a model's projected screen position to its card, action
  menu and LoS overlay (LoS lines, ZoC, front arc) drawn -- time until the frame is
  rendered (goal < 50 ms: median, p95, max), and what each part costs:
  ``controller.card``, ``controller.menu``, ``controller.status/log/dice``, the scene's
  ``select`` (LoS lines, ZoC, arc), each panel's ``update``, the render; baseline: a frame
  with nothing changed, and the measuring window's click (``sim.view.app.TableView.select``)
  on the same models;
* **(b) moves**: Walk / Run / Charge chosen -- the window then draws the model's Walk
  region, Run region or charge lanes -- with the planner cache cleared (no idle frame
  ran since the click) and after the idle frames precomputed them (``GameWindow.precompute``,
  each step timed), a drag step (live verdict, ghost and path), a Charge's lane (a target
  chosen, or the base dragged onto an enemy), and the Walk region, Run region and charge
  lanes drawn on a fresh scene (``TableScene.set_movement_overlays``) for a model never
  shown (planner cache cleared) and again (goal < 150 ms);
* **(c) frames per second** with the overlays on (a model selected, a Walk composed, its
  regions and lanes shown) against none: offscreen (p3tinydisplay), and onscreen in a child
  process under Xvfb with p3tinydisplay and with OpenGL (Mesa's software rasteriser there),
  with and without the 4x multisampling ``shell.get_base`` asks for onscreen (goal >= 30);
* **(d) the bot**: the greedy bot's decision time over whole games (goal < 0.5 s: p95 and
  max), and the window's bot step (``GameWindow.tick``: the decision, the push, the redraw)
  and its animation frames, against the bare ``Game.push``.
"""

from __future__ import annotations

import argparse
import gc
import math
import os
import shutil
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sim.rules import planning  # noqa: E402
from sim.rules.bots import BOTS  # noqa: E402
from sim.rules.game import Game  # noqa: E402
from sim.table import load_table  # noqa: E402

SIZE = (1600, 1000)


# ================================================================ helpers
def pct(xs, q: float) -> float:
    """The ``q`` quantile (0..1) of ``xs`` (nearest rank)."""
    s = sorted(xs)
    return s[min(len(s) - 1, max(0, int(math.ceil(q * len(s))) - 1))]


def stats(xs) -> str:
    """``median / p95 / max`` of milliseconds."""
    if not xs:
        return "(none)"
    return f"median {statistics.median(xs):6.1f}  p95 {pct(xs, 0.95):6.1f}  max {max(xs):6.1f} ms  (n={len(xs)})"


class Timers:
    """Wraps methods of objects (as instance attributes) and adds their wall time, in
    milliseconds, to :attr:`acc` under a label; nested calls of wrapped methods count
    once, in the outermost."""

    def __init__(self):
        self.acc: dict[str, float] = defaultdict(float)
        self._depth = 0
        self._wrapped: list = []

    def wrap(self, obj, name: str, label: str) -> None:
        fn = getattr(obj, name)
        self._wrapped.append((obj, name, fn))

        def timed(*a, **k):
            if self._depth:
                return fn(*a, **k)
            self._depth += 1
            t0 = time.perf_counter()
            try:
                return fn(*a, **k)
            finally:
                self.acc[label] += (time.perf_counter() - t0) * 1e3
                self._depth -= 1

        setattr(obj, name, timed)

    def reset(self) -> None:
        self.acc = defaultdict(float)
        GC_MS[0] = 0.0

    def unwrap(self) -> None:
        """Put the wrapped methods back."""
        for obj, name, fn in reversed(self._wrapped):
            setattr(obj, name, fn)
        self._wrapped = []


#: Milliseconds Python's cyclic garbage collector ran since the last Timers.reset.
GC_MS = [0.0, 0.0]


def _gc_clock(phase, _info) -> None:
    if phase == "start":
        GC_MS[1] = time.perf_counter()
    else:
        GC_MS[0] += (time.perf_counter() - GC_MS[1]) * 1e3


gc.callbacks.append(_gc_clock)


def greedy_pair(seed: int):
    cls = BOTS["greedy"]
    return cls(seed), cls(seed + 1000)


def positions(seeds: int, every: int, decisions: list | None = None):
    """Yield ``(label, game)``: the default table's start (seed 0), then every ``every``
    actions along greedy-vs-greedy games of seeds ``0..seeds-1`` a position where a player
    activates a model (no exchange, no shot waiting). The game goes on after the consumer
    is done with it. ``decisions`` collects ``(ms, kind, seed, action index)`` of every bot
    decision."""
    table = load_table()
    yield "start (seed 0)", Game(table, seed=0)
    for seed in range(seeds):
        g = Game(table, seed=seed)
        bots = greedy_pair(seed)
        nxt = every
        while not g.is_over():
            st = g.state
            if (len(g.actions) >= nxt and st.exchange is None and st.interception is None
                    and g.to_move() == st.active):
                nxt = len(g.actions) + every
                yield f"seed {seed}, turn {st.turn}, action {len(g.actions)}", g
            p = g.to_move() or 1
            t0 = time.perf_counter()
            a = bots[p - 1].choose(g)
            dt = (time.perf_counter() - t0) * 1e3
            if decisions is not None:
                decisions.append((dt, a.kind, seed, len(g.actions)))
            g.push(a)


def open_window(base, game):
    from sim.view.play.controller import PlayController
    from sim.view.play.window import GameWindow

    c = PlayController(game)
    w = GameWindow(base, c, animate=False)
    base.graphicsEngine.render_frame()
    return w, c


def instrument(w, c, base) -> Timers:
    """Timers on the controller's queries, the scene's select, the panels' updates, the
    pick and the render."""
    t = Timers()
    for name in ("card", "menu", "status", "log", "dice", "choose", "point"):
        t.wrap(c, name, f"controller.{name}")
    for name in ("select", "set_move_preview", "set_markers", "set_movement_overlays", "set_table"):
        t.wrap(w.scene, name, f"scene.{name}")
    for panel in ("status", "card", "menu", "log", "dice"):
        t.wrap(getattr(w, panel), "update", f"panel {panel}.update")
    t.wrap(w.cam, "pick", "camera pick")
    wrap_scene_rebuild(t)
    return t


def wrap_scene_rebuild(t: Timers) -> None:
    """Time the window's TableScene constructions (a new table drawn) as "scene rebuild"."""
    from sim.view.play import window

    t.wrap(window, "TableScene", "scene rebuild (TableScene)")


def toward(a, b, d: float):
    """The point ``d`` inches from ``a`` towards ``b``."""
    dist = math.dist(a, b)
    if dist < 1e-9:
        return a
    f = min(1.0, d / dist)
    return (a[0] + (b[0] - a[0]) * f, a[1] + (b[1] - a[1]) * f)


# ================================================================ (a) + (b)
def bench_positions(base, seeds: int, every: int, decisions: list, moves: bool = True) -> None:
    """Clicks, moves (unless not ``moves``) and regions at the sampled positions."""
    clicks, click_only, frames, idle = [], [], [], []
    parts: dict[str, list[float]] = defaultdict(list)
    worst: list[tuple[float, str, str, dict]] = []
    mv: dict[str, list[float]] = defaultdict(list)
    mv_parts: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    rebuild = []
    n_pos, mispicks = 0, 0
    for label, g in positions(seeds, every, decisions):
        n_pos += 1
        t0 = time.perf_counter()
        w, c = open_window(base, g)
        rebuild.append((time.perf_counter() - t0) * 1e3)
        try:
            t = instrument(w, c, base)
            for _ in range(2):
                t1 = time.perf_counter()
                base.graphicsEngine.render_frame()
                idle.append((time.perf_counter() - t1) * 1e3)
            active = c.model_at_active()
            enemies = [m.id for m in g.state.alive(3 - g.to_move())][:1]
            for mid in active + enemies:
                ndc = w.model_ndc(mid)
                if ndc is None or not w.cam.inside(ndc):
                    continue
                t.reset()
                t0 = time.perf_counter()
                w.click_ndc(*ndc)
                t1 = time.perf_counter()
                base.graphicsEngine.render_frame()
                t2 = time.perf_counter()
                if c.selected != mid:
                    mispicks += 1
                total = (t2 - t0) * 1e3
                clicks.append(total)
                click_only.append((t1 - t0) * 1e3)
                frames.append((t2 - t1) * 1e3)
                acc = dict(t.acc)
                acc["render_frame"] = (t2 - t1) * 1e3
                acc["other (window glue)"] = total - sum(acc.values())
                for part, ms in acc.items():
                    parts[part].append(ms)
                parts["(of these: Python's garbage collector)"].append(GC_MS[0])
                worst.append((total, label, mid, acc))
            # (b) moves of each model that may act
            for mid in active if moves else ():
                bench_moves(w, c, base, g, mid, t, mv, mv_parts)
        finally:
            t.unwrap()
            w.destroy()
    print(f"\n(a) click on a model -> card, action menu, LoS lines/ZoC/front arc drawn, frame rendered "
          f"({n_pos} positions; goal < 50 ms)")
    print(f"  click to rendered frame     {stats(clicks)}")
    print(f"    of which click_ndc        {stats(click_only)}")
    print(f"    of which the render       {stats(frames)}")
    print(f"  baseline: a frame, nothing changed  {stats(idle)}   "
          f"(click = x{statistics.median(clicks) / max(1e-6, statistics.median(idle)):.1f} a frame)")
    if mispicks:
        print(f"  ({mispicks} clicks picked another model than the one aimed at: overlapping bases)")
    print("  parts (median / p95 / max ms):")
    for part, vals in sorted(parts.items(), key=lambda kv: -statistics.median(kv[1])):
        print(f"    {part:28s} {statistics.median(vals):6.1f} {pct(vals, 0.95):6.1f} {max(vals):6.1f}")
    worst.sort(key=lambda x: -x[0])
    for total, label, mid, acc in worst[:3]:
        top = ", ".join(f"{k} {v:.0f}" for k, v in sorted(acc.items(), key=lambda kv: -kv[1])[:5])
        print(f"  slowest: {total:6.1f} ms  {mid} at {label}: {top}")
    print(f"  opening a window on a position (scene, panels, first frame): {stats(rebuild)}")

    if not moves:
        return
    print(f"\n(b) moves in the game window ({n_pos} positions, each model that may act; time until the frame "
          "is rendered; goal < 150 ms)")
    order = ["walk chosen (its region computed: cache cleared)", "walk drag step",
             "walk drag step again (same point)", "run chosen (its region computed: cache cleared)", "run drag step",
             "charge: target chosen (lanes computed: cache cleared)", "charge: dragged onto the enemy",
             "idle-frame precompute step (one region or the lanes)", "walk chosen after the idle frames",
             "run chosen after the idle frames", "charge chosen after the idle frames",
             "regions: walk (cache cleared)", "regions: run (cache cleared)", "regions: charges (cache cleared)",
             "regions: all three (cache cleared)", "regions: all three again (other model, then back)"]
    for key in order:
        if key in mv:
            print(f"  {key:50s} {stats(mv[key])}")
            if mv_parts.get(key):
                ranked = sorted(mv_parts[key].items(), key=lambda kv: -statistics.median(kv[1]))[:4]
                print("      " + ", ".join(f"{n} {statistics.median(v):.0f}/{max(v):.0f}" for n, v in ranked)
                      + "  (median/max ms)")
    bench_baseline_measuring_window(base)


def _timed_frame(base, t: Timers, fn, *args):
    t.reset()
    t0 = time.perf_counter()
    fn(*args)
    base.graphicsEngine.render_frame()
    total = (time.perf_counter() - t0) * 1e3
    return total, dict(t.acc)


def bench_moves(w, c, base, g, mid, t, mv, mv_parts) -> None:
    """Walk, Run, Charge and the movement regions of ``mid`` in the window ``w``."""

    def rec(key, total, acc):
        mv[key].append(total)
        for n, v in acc.items():
            mv_parts[key][n].append(v)

    w.select(mid)
    items = {i.key: i for i in c.menu()}
    table = g.table_now()
    me = table.model(mid)
    enemies = [e for e in table.models if e.player != me.player]
    goal = min(enemies, key=lambda e: math.dist(e.position, me.position)).position if enemies else \
        (table.width / 2, table.depth / 2)
    move = float(me.move or 4)
    for kind in ("walk", "run"):
        if kind not in items or not items[kind].enabled:
            continue
        planning.cache_clear()
        rec(f"{kind} chosen (its region computed: cache cleared)", *_timed_frame(base, t, w.choose, kind))
        dest = toward(me.position, goal, (0.6 if kind == "walk" else 1.2) * move)
        rec(f"{kind} drag step", *_timed_frame(base, t, w.point, dest))
        if kind == "walk":
            rec("walk drag step again (same point)", *_timed_frame(base, t, w.point, dest))
        w.cancel()
    ch = items.get("charge")
    if ch is not None and ch.enabled and ch.options:
        planning.cache_clear()
        rec("charge: target chosen (lanes computed: cache cleared)", *_timed_frame(base, t, w.choose, "charge", 0))
        w.cancel()
        w.choose("charge")
        target = getattr(ch.options[0][1], "target", None)
        if target is not None and c.pending is not None:
            rec("charge: dragged onto the enemy", *_timed_frame(base, t, w.point, table.model(target).position))
        w.cancel()
    # a click, then the idle frames (the window's task) precompute the regions and lanes:
    # Walk / Run / Charge then only draw them
    w.select(None)
    planning.cache_clear()
    w.select(mid)
    while True:
        t0 = time.perf_counter()
        if not w.precompute():
            break
        rec("idle-frame precompute step (one region or the lanes)", (time.perf_counter() - t0) * 1e3, {})
    for kind in ("walk", "run", "charge"):
        item = items.get(kind)
        if item is None or not item.enabled or (kind == "charge" and not item.options):
            continue
        rec(f"{kind} chosen after the idle frames", *_timed_frame(base, t, w.choose, kind,
                                                                  0 if kind == "charge" else None))
        w.cancel()
    # the Walk / Run regions and charge lanes drawn on a fresh scene of the same table, the
    # planner cache cleared
    if me.move:
        regions(w, base, table, mid, rec)
    w.cancel()
    w.select(None)


def regions(w, base, table, mid, rec) -> None:
    """The Walk region, Run region and charge lanes of ``mid`` switched on one by one on a
    scene that never drew them, the planner cache cleared (planner and drawing timed
    apart), then all three shown again after another model was selected."""
    from sim.view import drag
    from sim.view.scene3d import TableScene

    t = Timers()
    for name in ("walk_region", "run_region", "charge_lanes"):
        t.wrap(drag, name, "planner")
    old = w.scene
    scene = TableScene(table, mid, software=w.software)
    scene.set_camera_pitch(w.cam.pitch)
    scene.root.reparent_to(base.render)
    old.root.stash()
    try:
        planning.cache_clear()
        total = 0.0
        for kind, flags in (("walk", (True, False, False)), ("run", (False, True, False)),
                            ("charges", (False, False, True))):
            ms, acc = _timed_frame(base, t, scene.set_movement_overlays, *flags)
            acc["drawing and frame"] = ms - acc.get("planner", 0.0)
            rec(f"regions: {kind} (cache cleared)", ms, acc)
            total += ms
        rec("regions: all three (cache cleared)", total, {})
        scene.set_movement_overlays(True, True, True)
        other = next((m.id for m in table.models if m.id != mid and m.move), None)
        if other is not None:
            scene.select(other)
        rec("regions: all three again (other model, then back)", *_timed_frame(base, t, scene.select, mid))
    finally:
        t.unwrap()
        scene.root.remove_node()
        old.root.unstash()


def bench_baseline_measuring_window(base) -> None:
    """The measuring window's click (TableView.select) on the default table, same run."""
    from sim.view.app import TableView

    table = load_table()
    view = TableView(base, table, bind=False)
    base.graphicsEngine.render_frame()
    times = []
    for mid in [m.id for m in table.models]:
        t0 = time.perf_counter()
        view.select(mid)
        base.graphicsEngine.render_frame()
        times.append((time.perf_counter() - t0) * 1e3)
    view.destroy()
    print(f"  baseline: the measuring window's click (TableView.select + frame, default table start) "
          f"{stats(times)}")


# ================================================================ (c) frames per second
def fps_of(base, frames: int) -> float:
    """Frames per second of ``frames`` steps of the window's loop (its task and a render)."""
    for _ in range(3):
        base.task_mgr.step()
    t0 = time.perf_counter()
    for _ in range(frames):
        base.task_mgr.step()
    return frames / (time.perf_counter() - t0)


def bench_fps(base, frames: int, where: str) -> list[str]:
    """The game window on the default table (seed 0): nothing selected (baseline), then a
    model selected with a Walk composed (LoS lines, ZoC, front arc, ghost, path), then its
    Walk region, Run region and charge lanes shown too."""
    g = Game(load_table(), seed=0)
    w, c = open_window(base, g)
    try:
        none = fps_of(base, frames)
        mid = c.model_at_active()[0]
        w.click_ndc(*w.model_ndc(mid))
        me = g.table_now().model(mid)
        centre = (g.table.width / 2, g.table.depth / 2)
        w.choose("walk")
        w.point(toward(me.position, centre, 0.6 * (me.move or 4)))
        sel = fps_of(base, frames)
        w.scene.set_movement_overlays(True, True, True)
        base.graphicsEngine.render_frame()
        full = fps_of(base, frames)
    finally:
        w.destroy()
    return [f"  {where:58s} {full:6.1f} fps with {mid}'s LoS/ZoC/arc, Walk ghost and Walk/Run/charge overlays; "
            f"{sel:6.1f} without the regions; {none:6.1f} with nothing selected (baseline; x{full / none:.2f})"]


def child_fps(mode: str, frames: int, size) -> int:
    """The onscreen measurement (run in a child process with DISPLAY set): ``mode`` is
    ``tiny`` (p3tinydisplay window), ``gl-ms`` (OpenGL with the 4x multisampling of
    shell.get_base) or ``gl`` (OpenGL without multisampling)."""
    from panda3d.core import load_prc_file_data

    from sim.view.play import shell

    load_prc_file_data("bench-onscreen", "sync-video 0\n")
    if mode == "tiny":
        load_prc_file_data("bench-tiny", "load-display p3tinydisplay\n")
    if mode == "gl":
        orig = shell.load_prc_file_data

        def no_multisample(name, data):  # the benchmark's copy of get_base's settings, less the multisampling
            return orig(name, data.replace("framebuffer-multisample 1\n", "").replace("multisamples 4\n", ""))

        shell.load_prc_file_data = no_multisample
    base = shell.get_base(offscreen=False, size=size)
    gsg = base.win.get_gsg()
    renderer = f"{base.pipe.get_type().get_name()}"
    if gsg is not None and mode != "tiny":
        renderer += f", {gsg.get_driver_renderer()}"
    fb = base.win.get_fb_properties()
    renderer += f", multisamples {fb.get_multisamples()}"
    for line in bench_fps(base, frames, f"onscreen under Xvfb ({renderer})"):
        print("FPS" + line)
    return 0


def bench_xvfb(frames: int, size) -> None:
    """Start Xvfb on a free display, run the onscreen measurements in child processes
    with DISPLAY set, stop it."""
    xvfb = shutil.which("Xvfb")
    if xvfb is None:
        print("  onscreen under Xvfb: skipped, Xvfb is not installed (apt-get install -y xvfb)")
        return
    n = 77
    while Path(f"/tmp/.X{n}-lock").exists() or Path(f"/tmp/.X11-unix/X{n}").exists():
        n += 1
    proc = subprocess.Popen([xvfb, f":{n}", "-screen", "0", f"{size[0] + 100}x{size[1] + 100}x24", "-nolisten",
                             "tcp"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            if Path(f"/tmp/.X11-unix/X{n}").exists():
                break
            time.sleep(0.05)
        env = dict(os.environ, DISPLAY=f":{n}")
        for mode in ("tiny", "gl-ms", "gl"):
            cmd = [sys.executable, __file__, "--only-fps", mode, "--frames", str(frames),
                   "--size", f"{size[0]}x{size[1]}"]
            try:
                res = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, env=env, timeout=600)
            except subprocess.TimeoutExpired:
                print(f"  onscreen under Xvfb ({mode}): timed out")
                continue
            lines = [ln[3:] for ln in res.stdout.splitlines() if ln.startswith("FPS")]
            print("\n".join(lines) if lines else f"  onscreen under Xvfb ({mode}): failed: "
                  f"{(res.stderr.strip().splitlines() or ['?'])[-1]}")
    finally:
        proc.terminate()
        proc.wait(timeout=10)


# ================================================================ (d) the bot
def report_decisions(decisions) -> None:
    """The greedy bot's decision times collected along the games."""
    ms = [d[0] for d in decisions]
    if not ms:
        return
    slow = sorted(decisions, key=lambda d: -d[0])[:3]
    print(f"\n(d) the greedy bot's decision ({len({d[2] for d in decisions})} whole games, default length, "
          f"{len(ms)} decisions; goal < 500 ms)")
    print(f"  decision                    {stats(ms)}   mean {statistics.mean(ms):.1f} ms")
    by_kind: dict[str, list[float]] = defaultdict(list)
    for d in decisions:
        by_kind[d[1]].append(d[0])
    print("  by action chosen: " + ", ".join(f"{k} {statistics.median(v):.0f}/{max(v):.0f}"
                                             for k, v in sorted(by_kind.items(), key=lambda kv: -max(kv[1])))
          + "  (median/max ms)")
    print("  slowest: " + "; ".join(f"{d[0]:.0f} ms ({d[1]}, seed {d[2]}, action {d[3]})" for d in slow))


def bench_window_bot(base, turns: int) -> None:
    """The window's bot step: a greedy-vs-greedy game of ``turns`` turns played by
    ``GameWindow.tick`` (animations on, no pause between decisions), each tick followed by
    a frame; the ticks that decide and push a bot action, the animation frames, and the
    tick that ends an animation (the table redrawn), against the bare Game.push."""
    from sim.view.play.controller import PlayController
    from sim.view.play.window import ANIM_SECONDS, GameWindow

    g = Game(load_table(), seed=0, length=("fixed", turns))
    bots = greedy_pair(0)
    c = PlayController(g, bots={1: bots[0], 2: bots[1]})
    dt = ANIM_SECONDS / 6  # six frames a move
    w = GameWindow(base, c, animate=True, bot_seconds=1.5 * dt)  # the next decision two ticks after a move
    t = Timers()
    wrap_scene_rebuild(t)
    t.wrap(w.scene, "set_table", "scene kept (TableScene.set_table)")
    for b in bots:
        t.wrap(b, "choose", "bot decision")
    t.wrap(g, "push", "Game.push")
    for panel in ("status", "card", "menu", "log", "dice"):
        t.wrap(getattr(w, panel), "update", "panels")
    for name in ("log", "dice", "status", "menu"):
        t.wrap(c, name, "controller queries")
    step, anim, end, frames = [], [], [], []
    parts: dict[str, list[float]] = defaultdict(list)
    end_parts: dict[str, list[float]] = defaultdict(list)
    try:
        n = 0
        while not g.is_over() and n < 5000:
            n += 1
            before, was = len(g.actions), w.animating
            t.reset()
            t0 = time.perf_counter()
            w.tick(dt)
            t1 = time.perf_counter()
            base.graphicsEngine.render_frame()
            t2 = time.perf_counter()
            ms = (t1 - t0) * 1e3
            frames.append((t2 - t1) * 1e3)
            if len(g.actions) > before:
                step.append(ms)
                acc = dict(t.acc)
                acc["window (redraw, animation start)"] = ms - sum(acc.values())
                for part, val in acc.items():
                    parts[part].append(val)
            elif was and not w.animating:
                end.append(ms)
                for part, val in t.acc.items():
                    end_parts[part].append(val)
            elif w.animating:
                anim.append(ms)
    finally:
        t.unwrap()
        w.destroy()
    print(f"\n  the window's bot step (GameWindow.tick, greedy vs greedy, {turns} turns, {len(step)} decisions; "
          "each tick then a frame):")
    print(f"    tick that decides and pushes  {stats(step)}")
    for k, v in sorted(parts.items(), key=lambda kv: -statistics.median(kv[1])):
        print(f"      {k:34s} median {statistics.median(v):6.1f}  max {max(v):6.1f} ms")
    print(f"    animation tick                {stats(anim)}")
    print(f"    tick ending an animation (table redrawn) {stats(end)}")
    for k, v in sorted(end_parts.items(), key=lambda kv: -statistics.median(kv[1])):
        print(f"      {k:34s} median {statistics.median(v):6.1f}  max {max(v):6.1f} ms")
    print(f"    the frame after a tick        {stats(frames)}")
    push = parts.get("Game.push") or [0.0]
    print(f"    baseline Game.push            median {statistics.median(push):.1f} ms "
          f"(the decision tick = x{statistics.median(step) / max(1e-6, statistics.median(push)):.0f})")


# ================================================================ main
def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", default=f"{SIZE[0]}x{SIZE[1]}", help="window size, WxH pixels")
    ap.add_argument("--seeds", type=int, default=2, help="greedy-vs-greedy games sampled")
    ap.add_argument("--every", type=int, default=6, help="a position every N actions")
    ap.add_argument("--frames", type=int, default=60, help="frames per frame-rate measurement")
    ap.add_argument("--bot-turns", type=int, default=2, help="turns of the window's bot game")
    ap.add_argument("--no-xvfb", action="store_true", help="skip the onscreen measurements under Xvfb")
    ap.add_argument("--sections", default="abcd", help="the sections run (letters of a, b, c, d)")
    ap.add_argument("--only-fps", choices=("tiny", "gl-ms", "gl"), help=argparse.SUPPRESS)  # the child
    args = ap.parse_args(argv)
    wh = [int(v) for v in args.size.lower().split("x")]
    size = (wh[0], wh[1])
    if args.only_fps:
        return child_fps(args.only_fps, args.frames, size)
    from sim.view.play.shell import get_base

    base = get_base(offscreen=True, size=size)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"game window {size[0]}x{size[1]}, default table; wall-clock times; "
          f"{args.seeds} greedy games sampled every {args.every} actions; load average {load:.1f} "
          f"on {os.cpu_count()} cores")
    decisions: list = []
    sections = set(args.sections)
    if sections & set("abd"):
        bench_positions(base, args.seeds, args.every, decisions, moves="b" in sections)
    if "c" in sections:
        print("\n(c) frames per second (goal >= 30 with the software renderer under Xvfb)")
        for line in bench_fps(base, args.frames, "offscreen (p3tinydisplay buffer)"):
            print(line)
        if not args.no_xvfb:
            bench_xvfb(args.frames, size)
    if "d" in sections:
        report_decisions(decisions)
        bench_window_bot(base, args.bot_turns)
    return 0


if __name__ == "__main__":
    sys.exit(main())
