"""``python main.py``: view, measure and check Bushido tables.

Commands::

    python main.py                                  # default table: window, or PNG + report
    python main.py --screenshot FILE.png [--table T] [--select ID] [--camera oblique|top]
    python main.py measure TABLE [--json] [--from ID]
    python main.py view TABLE [--select ID] [--screenshot FILE.png]
    python main.py check TABLE [--tournament]

A bad table file prints one line naming the file, the entry and the problem, and exits
with status 2 (no traceback).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

DEFAULT_SCREENSHOT = Path("out") / "default.png"


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
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

    v = sub.add_parser("view", help="open the 3D view of a table (or render it with --screenshot)")
    v.add_argument("table", help="table file")
    v.add_argument("--select", metavar="ID", help="model whose overlays are drawn")
    v.add_argument("--screenshot", metavar="FILE.png", help="render offscreen to this PNG")
    v.add_argument("--camera", choices=["oblique", "top"], default="oblique")

    c = sub.add_parser("check", help="list the terrain set-up rules a table breaks (rulings.md section 9)")
    c.add_argument("table", help="table file")
    c.add_argument("--tournament", action="store_true", help="also apply the tournament 3\" spacing")
    return p


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
    lines = [f"Table: {table.name} ({table.width:g}\" x {table.depth:g}\", {len(table.terrain)} terrain pieces, {len(table.models)} models)"]
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
    from sim.table import DEFAULT_TABLE, load_table

    return load_table(path or DEFAULT_TABLE)


def _view(table, select, screenshot, camera) -> int:
    from sim import view

    if select is not None:
        table.model(select)
    if screenshot is None and view.has_display():
        view.run_interactive(table, selected=select)
        return 0
    out = Path(screenshot) if screenshot else DEFAULT_SCREENSHOT
    out.parent.mkdir(parents=True, exist_ok=True)
    view.render_png(table, out, selected=select, camera=camera)
    if screenshot is None:
        print("No display found: rendered offscreen (software renderer).")
    print(f"Wrote {out}")
    print()
    print(measure_text(table))
    return 0


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status (2 for bad input)."""
    from sim.table import TableError

    args = _parser().parse_args(argv)
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
            from terrain.setup import check_setup

            table = _load(args.table)
            issues = check_setup(table.terrain, table.width, table.depth, tournament=args.tournament)
            for i in issues:
                print(f"{i.rule}: {i.message}")
            print(f"{table.source}: {len(issues)} set-up issue(s)")
            return 1 if issues else 0
        if args.command == "view":
            return _view(_load(args.table), args.select, args.screenshot, args.camera)
        select = args.select
        table = _load(args.table)
        if select is None and table.models and not args.screenshot:
            select = table.models[0].id
        return _view(table, select, args.screenshot, args.camera)
    except TableError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyError as exc:
        print(f"error: {exc.args[0] if exc.args else exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
