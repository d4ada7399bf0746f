"""``python main.py``: view, measure and check Bushido tables.

Commands::

    python main.py                                  # default table: the game window, or PNG + report
    python main.py --screenshot FILE.png [--table T] [--select ID] [--camera oblique|top]
    python main.py measure TABLE [--json] [--from ID]
    python main.py view TABLE [--select ID] [--screenshot FILE.png]
    python main.py view GAME.json [--at N] [--select ID] [--screenshot FILE.png]
    python main.py check TABLE [--tournament]
    python main.py move TABLE MODEL walk|run X Y [--via X,Y ...] [--facing DEG] [--json]
    python main.py charge TABLE MODEL TARGET [--direction DEG] [--json]
    python main.py reach TABLE MODEL [--png FILE.png] [--json]
    python main.py special TABLE ATTACKER DEFENDER MOVE [--direction DEG] [--png FILE.png] [--json] [--sandbox]
    python main.py play TABLE --seed N [--bots random|greedy] [--turns N] [--save FILE]
    python main.py replay FILE [--unverified] [--actions]
    python main.py game [TABLE] [--setup] [--scenario S] [--bot P=NAME] [--dice seeded|physical]
                        [--tournament] [--load FILE] [--screenshot FILE.png]
    python main.py hotseat [TABLE] [--seed N] [--turns N] [--dice seeded|physical] [--bot P=NAME ...]
                           [--save FILE] [--load FILE]
    python main.py catalogue import DIR [--out DIR] | catalogue list DIR [--faction NAME]
    python main.py warband check FILE
    python main.py serve [--host H] [--port P] [--store games.db]      # networked play (docs/network.md)
    python main.py new ws://HOST:PORT [TABLE] [--scenario S] [--seed N] [--warbands A,B] [--clock MIN+INC]
    python main.py join INVITE [--bot greedy|random] [--text]
    python main.py watch URL [--text]
    python main.py export ws://HOST:PORT GAME --out g.json

A bad table file prints one line naming the file, the entry and the problem, and exits
with status 2 (no traceback); so do a bad argument (``nan`` as a number), a bad output
path (checked before any work) and a save that does not re-simulate.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

from shapely.geometry import mapping

from sim import view
from sim.cli import catalogue as catalogue_cli
from sim.cli import game as game_cli
from sim.cli import hotseat as hotseat_cli
from sim.cli import net as net_cli
from sim.files import check_output_path, is_png
from sim.rules import bots, movement
from sim.rules.game import Game, is_save_head
from sim.rules.notation import action_text
from sim.rules.planning import reach, shortest_walk
from sim.rules.scenario import ScenarioError, check_against_table, list_scenarios, load_scenario, objective_pieces
from sim.rules.special import ALIASES, MOVES, SpecialMoveError, special_move, special_refusals, throw_directions
from sim.table import DEFAULT_TABLE, Table, TableError, load_table
from terrain.setup import check_setup

DEFAULT_SCREENSHOT = Path("out") / "default.png"


class _Parser(argparse.ArgumentParser):
    """argparse with a one-line error (``main.py move: error: argument --facing: ...``,
    status 2) instead of the usage block; the sub-command parsers are of this class too."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message}\n")


def _finite(text: str) -> float:
    """An argparse type: a finite float (NaN and infinities are refused)."""
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not math.isfinite(v):
        raise argparse.ArgumentTypeError(f"expected a finite number, got {text!r}")
    return v


def _parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="main.py",
        description="Bushido: Risen Sun virtual table: exact LoS, cover and ZoC, shown in 3D.",
    )
    p.add_argument("--table", default=None, help="table file (default: data/tables/default.yaml)")
    p.add_argument("--screenshot", metavar="FILE.png", help="render offscreen to this PNG instead of opening a window")
    p.add_argument("--select", metavar="ID", help="model whose LoS, ZoC and front arc are drawn")
    p.add_argument("--camera", choices=["oblique", "top"], default="oblique", help="camera for --screenshot")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    m = sub.add_parser("measure", help="distance, arc, LoS, cover and ZoC for every ordered pair of models")
    m.add_argument("table", help="table file (bushido-table/1 YAML)")
    m.add_argument("--json", action="store_true", help="print the formats.md JSON object")
    m.add_argument("--from", dest="origin", metavar="ID", help="only pairs from this model")

    v = sub.add_parser("view", help="open the 3D view of a table or a saved game (or render it with --screenshot)")
    v.add_argument("table", help="table file, or a saved game (bushido-game/1, from play --save)")
    v.add_argument("--at", type=int, metavar="N",
                   help="a saved game: show the table as it was after event N (0: before the first; default: the end)")
    v.add_argument("--select", metavar="ID", help="model whose overlays are drawn")
    v.add_argument("--screenshot", metavar="FILE.png", help="render offscreen to this PNG")
    v.add_argument("--camera", choices=["oblique", "top"], default="oblique")
    v.add_argument("--scenario", metavar="NAME|FILE", help="also place this scenario's objectives")

    c = sub.add_parser("check", help="list the terrain set-up rules a table breaks (rulings.md section 9)")
    c.add_argument("table", help="table file")
    c.add_argument("--tournament", action="store_true", help="also apply the tournament 3\" spacing")
    c.add_argument("--scenario", metavar="NAME|FILE",
                   help="also check a scenario's objectives and zones against the table "
                        "(overlaps, Impassable within 2\")")
    mv = sub.add_parser("move", help="is a Walk or Run to a point legal, what does it cost, and why not")
    mv.add_argument("table", help="table file")
    mv.add_argument("model", help="moving model id")
    mv.add_argument("kind", choices=["walk", "run"])
    mv.add_argument("x", type=_finite, help="destination x, inches")
    mv.add_argument("y", type=_finite, help="destination y, inches")
    mv.add_argument("--via", action="append", default=[], metavar="X,Y", type=_point,
                    help="waypoint of a Walk (repeatable)")
    mv.add_argument("--facing", type=_finite, help="facing at the end of a Walk, degrees")
    mv.add_argument("--json", action="store_true")

    ch = sub.add_parser("charge", help="the Charge of a model at an enemy: path, contact or where it stops")
    ch.add_argument("table", help="table file")
    ch.add_argument("model", help="charging model id")
    ch.add_argument("target", help="enemy model id")
    ch.add_argument("--direction", type=_finite,
                    help="direction of the straight part, degrees (default: at the target)")
    ch.add_argument("--json", action="store_true")

    rc = sub.add_parser("reach", help="where a model can Walk and Run, and its charge lanes")
    rc.add_argument("table", help="table file")
    rc.add_argument("model", help="model id")
    rc.add_argument("--png", metavar="FILE.png", help="draw the regions and lanes top-down")
    rc.add_argument("--json", action="store_true")
    sp = sub.add_parser("special", help="play the move of a special attack or defence (push, slam, throw ...)")
    sp.add_argument("table", help="table file")
    sp.add_argument("attacker", help="attacking model id")
    sp.add_argument("defender", help="defending model id")
    sp.add_argument("move", help="push-attack, push-defence, forceback-attack, forceback-defence, drag-attack, "
                                 "drag-defence, slam, throw-attack, throw-defence, sidestep-attack, sidestep-defence")
    sp.add_argument("--direction", type=_finite, help="throw or sidestep direction, degrees CCW from +x")
    sp.add_argument("--png", metavar="FILE.png", help="draw the paths top-down")
    sp.add_argument("--json", action="store_true")
    sp.add_argument("--sandbox", action="store_true",
                    help="play the move even where the rules forbid it (not enemies, not in base contact): teaching")
    pl = sub.add_parser("play", help="play a bot-vs-bot game on a table and print the log")
    pl.add_argument("table", help="table file with both warbands deployed")
    pl.add_argument("--seed", type=int, default=0, help="dice seed: one seed, one game")
    pl.add_argument("--bots", default="greedy", help="random|greedy, or P1,P2 (e.g. greedy,random)")
    pl.add_argument("--turns", type=int, help="fixed game length in turns (default: the scenario's, else variable (5))")
    pl.add_argument("--scenario", metavar="NAME|FILE",
                    help="a scenario (data/scenarios: " + ", ".join(_scenario_names()) + ") or a scenario file")
    pl.add_argument("--save", metavar="FILE", help="write the game (JSON, atomic)")
    pl.add_argument("--warbands", metavar="A,B",
                    help="play these warbands on the table's terrain instead of its models: each a faction of the "
                         "catalogues (a legal warband picked with the seed) or a bushido-warband/1 or roster file; "
                         "the set-up (roll-off, zone, deployment) is played by the engine")
    pl.add_argument("--rice", type=int, default=70, help="rice limit of picked warbands (default 70)")
    pl.add_argument("--data", metavar="DIR", help="the BattleScribe catalogues (default: ../shared/bsdata)")
    rp = sub.add_parser("replay", help="re-simulate a saved game, check it against the save, print the final state")
    rp.add_argument("file", help="a save written by play --save")
    rp.add_argument("--unverified", action="store_true",
                    help="apply the saved events without re-simulating them (an old physical-dice save)")
    rp.add_argument("--actions", action="store_true",
                    help="also list the saved actions in the action notation of the hot-seat (exact numbers)")
    hotseat_cli.add_parser(sub)
    game_cli.add_parser(sub)
    net_cli.add_parsers(sub)
    catalogue_cli.add_parsers(sub)
    return p


def _with_objectives(table, scenario: str):
    """``table`` with the scenario's objectives as terrain pieces (Impassable, Blocking)."""
    scen = load_scenario(scenario, table.width, table.depth)
    bad = check_against_table(scen, table)
    if bad:
        raise ScenarioError(f"scenario {scen.name!r} does not fit {table.source}: " + "; ".join(i.message for i in bad))
    return Table(table.name, table.width, table.depth, table.terrain + tuple(objective_pieces(scen)), table.models,
                 table.source)


def _scenario_names() -> list[str]:
    return list_scenarios()


def _game_summary(game) -> str:
    st = game.state
    lines = [f"Turn {st.turn}, {st.phase} phase" + (f": {st.result}" if st.result else "")]
    sc = game.scenario_state()
    if sc is not None:
        align = ", ".join(f"{o}: {'neutral' if a is None else f'player {a}'}" for o, a in sc.alignment.items()
                          if o not in sc.removed)
        lines.append(f"Scenario {game.scenario.name}: VP {sc.vp.get(1, 0)}-{sc.vp.get(2, 0)}, "
                     f"SP {sc.sp.get(1, 0)}-{sc.sp.get(2, 0)}" + (f"; objectives {align}" if align else ""))
    for pid in (1, 2):
        lines.append(f"Player {pid}:")
        for m in st.models.values():
            if m.player != pid:
                continue
            if not m.alive:  # killed, or Elsewhere: held back by Flank, not yet arrived (p.5, p.52)
                state = "killed" if m.killed else "Elsewhere (held back by Flank, p.52)"
            else:
                state = f"({m.position[0]:.2f}, {m.position[1]:.2f}) facing {m.facing:.0f}, " \
                    f"wounds {m.damage}/{m.wounds}, Ki {m.ki}/{m.ki_limit}, counters {m.counters}" + \
                    (f", {', '.join(sorted(m.conditions))}" if m.conditions else "")
            lines.append(f"  {m.id:<10} {state}")
    return "\n".join(lines)


def _play(args) -> int:
    if args.save:
        hotseat_cli.check_save_path(args.save)  # before the game is played
    table = _load(args.table)
    names = [b.strip() for b in args.bots.split(",")]
    if len(names) == 1:
        names *= 2
    for n in names:
        if n not in bots.BOTS:
            raise ValueError(f"unknown bot {n!r} (known: {', '.join(bots.BOTS)})")
    length = ("fixed", args.turns) if args.turns else None
    if args.warbands:
        game = _game_with_warbands(args, length)
    else:
        game = Game(table, seed=args.seed, length=length, scenario=args.scenario)
    bots.play(game, (bots.BOTS[names[0]](args.seed), bots.BOTS[names[1]](args.seed + 1)))
    print("\n".join(game.log()))
    print()
    print(_game_summary(game))
    if args.save:
        game.save(args.save)
        print(f"Saved {args.save}")
    return 0


def _game_with_warbands(args, length):
    """``play --warbands A,B``: the two warbands deployed on the table's terrain by the
    engine's own set-up policy (:func:`sim.rules.setup.auto.warband_game`), then the game."""
    from sim.rules.setup import SetupError
    from sim.rules.setup.auto import warband_game

    try:
        game, setup = warband_game(args.table, args.warbands.split(","), seed=args.seed, rice=args.rice,
                                   scenario=args.scenario, length=length, data=args.data)
    except SetupError as exc:
        raise ValueError(f"--warbands: {exc}") from None
    for side in (1, 2):
        print(f"Player {side}: " + ", ".join(r.name for r in setup.recruits if r.player == side))
    return game


def _replay(args) -> int:
    """``replay FILE``: re-simulate the saved actions (Game.load) and say so; a save whose
    events, dice or result differ is an error (status 2, one line from GameError).
    ``--actions``: list the actions, numbered, in the action notation
    (:func:`sim.rules.notation.action_text`, exact: typed in a hot-seat they replay
    the game)."""
    game = Game.load(args.file, verify=not args.unverified)
    if game.verified:
        dice = f"seed {game.seed}" if game.seeded else "the recorded dice values"
        print(f"Verified {args.file}: {len(game.actions)} actions re-simulated with {dice} reproduce all "
              f"{len(game.events)} saved events and the result")
    else:
        print(f"NOT verified: applied the {len(game.events)} saved events of {args.file} without re-simulating "
              "them (--unverified)")
    if args.actions:
        print(f"Actions ({len(game.actions)}):")
        for i, a in enumerate(game.actions, 1):
            print(f"  {i:>4}. {action_text(a, exact=True)}")
    print(_game_summary(game))
    return 0


def special_text(res) -> str:
    """A readable account of a :class:`sim.rules.special.SpecialResult`."""
    lines = [f"{res.move}: {res.attacker} vs {res.defender}"
             + (f", direction {res.direction:.2f} deg" if res.direction is not None else "")]
    for m in res.moves.values():
        lines.append(f"  {m.id}: ({m.start[0]:.3f}, {m.start[1]:.3f}) -> ({m.end[0]:.3f}, {m.end[1]:.3f}), "
                     f"{m.distance:.3f}\" ({m.stop})")
    for c in res.collisions:
        lines.append(f"  collision: {c.mover} meets {c.other} at ({c.at[0]:.3f}, {c.at[1]:.3f}): {c.outcome}")
    lines.append("  Prone: " + (", ".join(res.prone) if res.prone else "none"))
    if res.damage_not_halved:
        lines.append("  moved off Huge Enhancing terrain (damage not halved): " + ", ".join(res.damage_not_halved))
    return "\n".join(lines)


def _point(text: str) -> tuple[float, float]:
    """An argparse type: ``X,Y`` in inches, both finite."""
    try:
        x, y = (float(v) for v in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected X,Y in inches, got {text!r}") from None
    if not (math.isfinite(x) and math.isfinite(y)):
        raise argparse.ArgumentTypeError(f"expected X,Y as finite numbers, got {text!r}")
    return x, y


def _png_output(path) -> Path:
    """Check a PNG output before the work: it must end in .png and must not replace a file
    that is not a PNG image; a missing folder is created. Raises OutputPathError."""
    return check_output_path(path, suffix=".png", overwrite=is_png, kind="PNG image", create_folder=True)


def move_text(res) -> str:
    """A readable verdict for one :class:`sim.rules.movement.MoveResult`."""
    what = {"walk": "Walk", "run": "Run", "charge": "Charge", "melee": "Melee move"}[res.kind]
    head = f"{what} {res.model}"
    if res.target:
        head += f" -> {res.target}"
    ex, ey = res.end
    head += f" to ({ex:.3f}, {ey:.3f}): {'LEGAL' if res.legal else 'ILLEGAL'}"
    lines = [head, f"  cost {res.cost:.3f}\" of {res.allowance:.3f}\" (path length {res.length:.3f}\"), "
                   f"facing {res.facing:.1f} deg"]
    lines.append("  path: " + " -> ".join(f"({x:.3f}, {y:.3f})" for x, y in res.path))
    if res.reached is not None and res.kind == "charge":
        lines.append(f"  {'reaches' if res.reached else 'does not reach'} {res.target}: "
                     f"{res.stop.message if res.stop else ''}")
    if res.contacts:
        lines.append("  in base contact with: " + ", ".join(res.contacts))
    for r in res.reasons:
        where = f" at ({r.at[0]:.3f}, {r.at[1]:.3f})" if r.at else ""
        lines.append(f"  - {r.message}{where}  [{r.ruling}]")
    return "\n".join(lines)


def measure_json(table, origin: str | None = None) -> dict:
    """The formats.md ``measure`` object for ``table`` (every ordered pair, or those
    from ``origin``)."""
    scene = table.scene()
    pairs = scene.measure_all(None if origin is None else [origin])
    return {"table": table.name, "pairs": [p.to_json() for p in pairs]}


def measure_text(table, origin: str | None = None) -> str:
    """A readable report: one line per ordered pair with the reasons."""
    scene = table.scene()
    pairs = scene.measure_all(None if origin is None else [origin])
    lines = [f"Table: {table.name} ({table.width:g}\" x {table.depth:g}\", "
             f"{len(table.terrain)} terrain pieces, {len(table.models)} models)"]
    head = f"{'from':<10} {'to':<10} {'dist':>7}  {'arc':<3}  {'LoS':<3}  {'cover':<5}  {'ZoC':<3}  why"
    lines += [head, "-" * len(head)]
    yes = {True: "yes", False: "no"}
    for p in pairs:
        if p.los.visible:
            why = f"cover from {p.cover.piece}" if p.cover.cover else "clear"
        elif not p.in_arc:
            why = "outside front arc"
        else:
            why = "blocked by " + (", ".join(p.los.blocked_by) or "terrain")
        if p.btb:
            why += "; in BtB"
        lines.append(
            f"{p.origin:<10} {p.target:<10} {p.distance:>6.3f}\"  {yes[p.in_arc]:<3}  {yes[p.los.visible]:<3}  "
            f"{yes[p.cover.cover]:<5}  {yes[p.zoc.in_zoc]:<3}  {why}"
        )
    n = len(pairs)
    lines.append("-" * len(head))
    lines.append(
        f"{n} pairs: {sum(p.los.visible for p in pairs)} with LoS, {sum(p.cover.cover for p in pairs)} with cover, "
        f"{sum(p.zoc.in_zoc for p in pairs)} in ZoC"
    )
    return "\n".join(lines)


def _load(path):
    return load_table(path or DEFAULT_TABLE)


def _is_save(path) -> bool:
    """Whether ``path`` is a saved game (its first bytes name ``bushido-game/``)."""
    try:
        with open(path, "rb") as fh:
            return is_save_head(fh.read(512))
    except OSError:
        return False


def _view_save(args) -> int:
    """``view GAME.json [--at N]``: the table as it was after event N of a saved game
    (verified load, :class:`sim.view.play.replay.ReplayCursor`), with the game's markers
    and a top-left line naming the event; onscreen (the replay window, stepping through
    the events, :mod:`sim.view.play.replay_window`) when there is a display and no
    ``--screenshot``."""
    from sim.view.play.replay import ReplayCursor
    from sim.view.play.state import conditions_text

    if args.scenario:
        raise ValueError(f"{args.table}: a saved game carries its scenario (--scenario is for a table file)")
    cur = ReplayCursor.open(args.table)
    step = cur.go(cur.length if args.at is None else args.at)
    if args.select is not None:
        step.table.model(args.select)
    if args.screenshot is None and view.has_display():
        from sim.view.play.replay_window import run_replay_window

        print(step.caption)
        run_replay_window(cur, at=step.index)
        return 0
    out = _png_output(args.screenshot if args.screenshot else DEFAULT_SCREENSHOT)
    view.render_png(step.table, out, selected=args.select, camera=args.camera, markers=step.markers,
                    caption=step.caption)
    if args.screenshot is None:
        print("No display found: rendered offscreen (software renderer).")
    print(f"Wrote {out}")
    print(step.caption)
    for mid in step.markers:
        print("  " + conditions_text(step.markers, mid))
    return 0


def _view(table, select, screenshot, camera) -> int:
    if select is not None:
        table.model(select)
    if screenshot is None and view.has_display():
        view.run_interactive(table, selected=select)
        return 0
    out = _png_output(screenshot if screenshot else DEFAULT_SCREENSHOT)
    view.render_png(table, out, selected=select, camera=camera)
    if screenshot is None:
        print("No display found: rendered offscreen (software renderer).")
    print(f"Wrote {out}")
    print()
    print(measure_text(table))
    return 0


def _movement(args) -> int:
    """``move``, ``charge`` and ``reach``: exit 0 when the move is legal (or for
    ``reach``), 1 when it is not, 2 for bad input."""
    out = _png_output(args.png) if getattr(args, "png", None) else None  # reach --png: before the work
    table = _load(args.table)
    table.model(args.model)
    if args.command == "move":
        dest = (args.x, args.y)
        planned = None
        if args.kind == "run":
            res = movement.check_run(table, args.model, dest)
        else:
            path = [movement.Mover(table, args.model).start, *args.via, dest]
            res = movement.check_walk(table, args.model, path, facing=args.facing)
            if not res.legal and not args.via:
                planned = shortest_walk(table, args.model, dest, facing=args.facing)
        if args.json:
            print(json.dumps({"move": res.to_json(), "planned": planned.to_json() if planned else None}, indent=2))
        else:
            print(move_text(res))
            if planned is not None:
                print("Shortest legal Walk:" if planned.legal else "No legal Walk there:")
                print(move_text(planned))
        return 0 if res.legal or (planned is not None and planned.legal) else 1
    if args.command == "charge":
        res = movement.plan_charge(table, args.model, args.target, direction=args.direction)
        print(json.dumps(res.to_json(), indent=2) if args.json else move_text(res))
        return 0 if res.legal else 1
    rc = reach(table, args.model)
    if out is not None:
        # matplotlib (about 0.5 s to import) only when a PNG is asked for
        from sim.view.reach_png import render_reach_png

        render_reach_png(table, args.model, out, rc)
    if args.json:
        print(json.dumps(_reach_json(rc), indent=2))
    else:
        m = table.model(args.model)
        print(f"Reach of {args.model} (Move {m.move:g}\") on {table.name}:")
        print(f"  Walk region: {rc.walk_region.area:.2f} sq in; Run region: {rc.run_region.area:.2f} sq in")
        for lane in rc.charge_lanes:
            state = "reaches" if lane.reached else f"stops ({lane.stop.message})" if lane.stop else "stops"
            print(f"  Charge {lane.target}: {state}, cost {lane.cost:.2f}\"")
        if args.png:
            print(f"Wrote {args.png}")
    return 0


def _special(args) -> int:
    if ALIASES.get(args.move, args.move) not in MOVES:
        raise SpecialMoveError(f"unknown special move {args.move!r} (one of: {', '.join(MOVES)})")
    out = _png_output(args.png) if args.png else None
    table = _load(args.table)
    refused = special_refusals(table, args.attacker, args.defender)
    if refused and not args.sandbox:
        if args.json:
            print(json.dumps({"move": args.move, "attacker": args.attacker, "defender": args.defender,
                              "legal": False, "reasons": refused}, indent=2))
        else:
            print(f"{args.move}: {args.attacker} vs {args.defender}: NOT ALLOWED by the rules")
            for r in refused:
                print(f"  - {r}")
            print("  (--sandbox plays it anyway, for teaching)")
        return 1
    res = special_move(table, args.attacker, args.defender, args.move, direction=args.direction)
    if out is not None:
        # matplotlib (about 0.5 s to import) only when a PNG is asked for
        from sim.view.special_png import render_special_png

        render_special_png(table, res, out)
    if args.json:
        doc = res.to_json()
        if res.move.startswith("throw"):
            thrower, thrown = ((res.attacker, res.defender) if res.move == "throw-attack"
                               else (res.defender, res.attacker))
            doc["allowed_directions"] = [[round(a, 4), round(b, 4)]
                                         for a, b in throw_directions(table, thrower, thrown)]
        if refused:
            doc["sandbox"] = refused
        print(json.dumps(doc, indent=2))
    else:
        if refused:
            print("SANDBOX: played although the rules forbid it: " + "; ".join(refused))
        print(special_text(res))
        if args.png:
            print(f"Wrote {args.png}")
    return 0


def _reach_json(rc) -> dict:
    return {"walk_region": mapping(rc.walk_region), "run_region": mapping(rc.run_region),
            "charge_lanes": [lane.to_json() for lane in rc.charge_lanes]}


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status (2 for bad input)."""
    args = _parser().parse_args(argv)
    if args.command in ("catalogue", "warband"):
        return catalogue_cli.run(args)
    try:
        if args.command == "measure":
            table = _load(args.table)
            if args.origin is not None:
                table.model(args.origin)
            if args.json:
                print(json.dumps(measure_json(table, args.origin), indent=2))
            else:
                print(measure_text(table, args.origin))
            return 0
        if args.command == "check":
            table = _load(args.table)
            issues = check_setup(table.terrain, table.width, table.depth, tournament=args.tournament)
            if args.scenario:
                issues = list(issues) + check_against_table(load_scenario(args.scenario, table.width, table.depth),
                                                            table, setup=True)
            for i in issues:
                print(f"{i.rule}: {i.message}")
            print(f"{table.source}: {len(issues)} set-up issue(s)")
            return 1 if issues else 0
        if args.command == "view":
            if args.screenshot:
                _png_output(args.screenshot)  # before any work
            if _is_save(args.table):
                return _view_save(args)
            if args.at is not None:
                raise ValueError(f"{args.table}: --at N is for a saved game (bushido-game/1), not a table")
            table = _load(args.table)
            if args.scenario:
                table = _with_objectives(table, args.scenario)
            return _view(table, args.select, args.screenshot, args.camera)
        if args.command in ("move", "charge", "reach"):
            return _movement(args)
        if args.command == "special":
            return _special(args)
        if args.command == "play":
            return _play(args)
        if args.command == "replay":
            return _replay(args)
        if args.command == "hotseat":
            return hotseat_cli.run_cli(args)
        if args.command == "game":
            return game_cli.run(args)
        if args.command in net_cli.COMMANDS:
            return net_cli.run(args)
        select = args.select
        if args.screenshot:
            _png_output(args.screenshot)  # before any work
        table = _load(args.table)
        if not args.screenshot and select is None and view.has_display():
            # the window ready to play: two players at one screen on this table
            from sim.view.play.launch import Launch, run_game

            run_game(Launch(table=table))
            return 0
        if select is None and table.models and not args.screenshot:
            select = table.models[0].id
        return _view(table, select, args.screenshot, args.camera)
    except TableError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyError as exc:
        print(f"error: {exc.args[0] if exc.args else exc}", file=sys.stderr)
        return 2
    except (ValueError, argparse.ArgumentTypeError) as exc:  # MoveError is a ValueError
        print(f"error: {exc}", file=sys.stderr)
        return 2



def entry(argv: list[str] | None = None) -> int:
    """:func:`main` for a process (``main.py``, the ``bushido-table`` script): output piped
    into a reader that stops early (``| head``) ends the command quietly with status 1,
    as the Python docs' "Note on SIGPIPE" does (stdout pointed at devnull so that the
    flush at exit does not fail again), instead of a BrokenPipeError traceback."""
    try:
        code = main(argv)
        sys.stdout.flush()
    except BrokenPipeError:
        import os

        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    return code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(entry())
