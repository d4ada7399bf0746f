"""``python main.py catalogue ...`` and ``python main.py warband ...``: BattleScribe /
NewRecruit data and warbands.

Commands::

    python main.py catalogue import DIR [--out OUTDIR] [--existing PROFILES_DIR] [-v]
    python main.py catalogue list DIR [--faction NAME] [--cards]
    python main.py warband check FILE [--data DIR] [--json]

``catalogue import`` reads a game system (``.gst``) and its catalogues (``.cat``) from
DIR, prints what could not be parsed (once per import) and a summary line (profiles,
traits, weapons read; fields that could not be parsed), and with ``--out`` writes one
``bushido-profiles/1`` YAML file per catalogue (``bsdata-<catalogue>.yaml``).
``catalogue list`` lists what the catalogues hold, per faction. ``warband check`` checks
a warband (``bushido-warband/1`` YAML, or a BattleScribe/NewRecruit ``.ros``/``.rosz``
roster) against the warband building rules (rulebook p.18-19) and prints every reason it
is illegal.

Exit status: 0 ok (a legal warband), 1 an illegal warband, 2 bad input (one line on
stderr naming the file and the problem).

Wire into ``sim/cli/main.py`` with :func:`add_parsers` and :func:`run` (see
``docs/catalogues.md``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from models.bsdata import CatalogueError, load_catalogues, write_profiles
from models.profiles import DEFAULT_DIRECTORY, ProfileError
from models.warband import WarbandError, check_warband, load_warband
from sim.files import FileProblem, one_line, read_yaml

#: Environment variable naming the catalogue directory ``warband check`` uses when
#: ``--data`` is not given.
DATA_ENV = "BUSHIDO_BSDATA"

COMMANDS = ("catalogue", "warband")


def add_parsers(subparsers) -> None:
    """Add the ``catalogue`` and ``warband`` commands to an argparse ``subparsers``
    object (the one ``sim/cli/main.py`` creates with ``dest="command"``)."""
    c = subparsers.add_parser("catalogue", help="import or list BattleScribe / NewRecruit catalogues (.gst, .cat)")
    csub = c.add_subparsers(dest="catalogue_command", metavar="ACTION")
    csub.required = True
    imp = csub.add_parser("import", help="read a game system and its catalogues; write bushido-profiles/1 YAML")
    imp.add_argument("dir", help="directory holding the .gst and .cat files")
    imp.add_argument("--out", metavar="OUTDIR", help="write one profile file per catalogue here "
                                                     "(e.g. data/profiles or data/profiles/imported)")
    imp.add_argument("--existing", metavar="PROFILES_DIR",
                     help="profiles not to duplicate (same bs_id) and ids to avoid (default: data/profiles)")
    imp.add_argument("-v", "--verbose", action="store_true", help="also list repaired fields and profiles not written")
    ls = csub.add_parser("list", help="list the profiles (and with --cards the special cards) of the catalogues")
    ls.add_argument("dir", help="directory holding the .gst and .cat files")
    ls.add_argument("--faction", metavar="NAME", help="only this faction (its models, its Ronin and its cards)")
    ls.add_argument("--cards", action="store_true", help="also list special cards")

    w = subparsers.add_parser("warband", help="check a warband or a BattleScribe / NewRecruit roster")
    wsub = w.add_subparsers(dest="warband_command", metavar="ACTION")
    wsub.required = True
    chk = wsub.add_parser("check", help="list every rule (rulebook p.18-19) a warband breaks")
    chk.add_argument("file", help="bushido-warband/1 YAML, or a .ros / .rosz roster")
    chk.add_argument("--data", metavar="DIR", help=f"catalogue directory (default: ${DATA_ENV}, or the file's 'data:')")
    chk.add_argument("--json", action="store_true", help="print the result as JSON")


def run(args: argparse.Namespace) -> int:
    """Run a ``catalogue`` or ``warband`` command parsed by :func:`add_parsers`.

    Returns 0 (ok / legal), 1 (illegal warband) or 2 (bad input: one line on stderr
    naming the file and the problem)."""

    try:
        if args.command == "catalogue":
            if args.catalogue_command == "import":
                return _import(args)
            return _list(args)
        if args.command == "warband":
            return _check(args)
        raise ValueError(f"unknown command {args.command!r}")
    except (CatalogueError, WarbandError, ProfileError, FileProblem) as exc:
        print("error: " + one_line("; ".join(str(exc).splitlines())), file=sys.stderr)
        return 2
    except KeyError as exc:
        print(f"error: {one_line(str(exc.args[0] if exc.args else exc))}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"error: {one_line(str(exc.filename or ''))}: {exc.strerror or exc}", file=sys.stderr)
        return 2


def _load(directory: str):
    if not Path(directory).exists():
        raise CatalogueError(f"{directory}: no such directory")
    return load_catalogues(directory)


def _import(args) -> int:
    cs = _load(args.dir)
    kinds = ("unparsed", "link", "missing", "skipped") + (("repaired",) if args.verbose else ())
    lines = cs.report(kinds)
    if lines:
        print(f"Issues ({len(lines)}):")
        for line in lines:
            print(f"  {line}")
    if not args.verbose and cs.stats.repaired:
        print(f"{cs.stats.repaired} fields were read after repairing a typo or a missing comma (-v lists them)")
    if args.out:
        existing = Path(args.existing) if args.existing else DEFAULT_DIRECTORY
        rep = write_profiles(cs, args.out, existing=existing if existing.is_dir() else None)
        print(f"Wrote {rep.written} profiles to {len(rep.files)} files in {args.out}")
        if rep.kept_existing:
            print(f"{len(rep.kept_existing)} profiles already in {existing} kept (same bs_id): "
                  f"{', '.join(rep.kept_existing[:8])}{' ...' if len(rep.kept_existing) > 8 else ''}")
        if rep.skipped:
            print(f"{len(rep.skipped)} profiles not written (bushido-profiles/1 needs whole-number stats, "
                  "wounds and a base; they stay available through register_profiles):")
            for pid, why in (rep.skipped if args.verbose else rep.skipped[:5]):
                print(f"  {pid}: {why}")
            if not args.verbose and len(rep.skipped) > 5:
                print(f"  ... {len(rep.skipped) - 5} more (-v lists them)")
    print(cs.summary())
    return 0


def _profile_line(cp) -> str:
    p = cp.profile
    v = lambda x: "-" if x is None else str(x)  # noqa: E731
    size = f"{(p.size or '?').title()} {p.base or '?'}mm"
    tags = []
    if cp.ronin:
        tags.append("Ronin")
    if not cp.recruitable:
        tags.append("Su/Sp")
    if cp.wound_tracks > 1:
        tags.append(f"{cp.wound_tracks} tracks")
    tag = f" ({', '.join(tags)})" if tags else ""
    return (f"  {p.id:<32} {p.name:<30} {v(p.rice):>3} rice  {size:<13} M{v(p.melee)} R{v(p.ranged)} "
            f"Mv{v(p.move)} Ki{v(p.ki)}/{v(p.ki_limit)} W{v(p.wounds)}  [{', '.join(p.types)}]{tag}")


def _list(args) -> int:
    cs = _load(args.dir)
    if args.faction:
        cat = cs.catalogue(args.faction)
        groups = [(cat.name, [p for p in cs.profiles if cat.name in p.factions],
                   [c for c in cs.cards if c.kind != "profile" and cat.name in c.factions])]
    else:
        groups = []
        for cat in cs.catalogues:
            profs = [p for p in cs.profiles if p.catalogue == cat.name]
            cards = [c for c in cs.cards if c.kind != "profile" and c.catalogue == cat.name]
            if profs or cards:
                groups.append((cat.name, profs, cards))
    for name, profs, cards in groups:
        ronin = sum(p.ronin for p in profs)
        extra = f" ({ronin} Ronin)" if ronin and args.faction else ""
        print(f"{name}: {len(profs)} profiles{extra}, {len(cards)} special cards")
        for cp in profs:
            print(_profile_line(cp))
        if args.cards:
            for c in cards:
                rice = "-" if c.rice is None else c.rice
                mx = "" if c.max_copies in (None, 1) else f"  Max ({c.max_copies})"
                eq = "  Equipment" if c.equipment else ""
                req = f"  Required [{'; '.join(c.required)}]" if c.required else ""
                print(f"  {c.kind:<11} {c.name:<40} {rice:>3} rice{mx}{eq}{req}")
    print(cs.summary())
    return 0


def _data_dir(args, path: Path) -> str:
    if args.data:
        return args.data
    if os.environ.get(DATA_ENV):
        return os.environ[DATA_ENV]
    if path.suffix.lower() in (".yaml", ".yml"):
        doc = read_yaml(path)  # a bad file is reported now (FileProblem), as load_warband would
        if isinstance(doc, dict) and isinstance(doc.get("data"), str):
            return str((path.parent / doc["data"]).resolve())
    raise WarbandError(f"{path}: no catalogue data: pass --data DIR (or set {DATA_ENV})")


def _check(args) -> int:
    path = Path(args.file)
    if not path.exists():
        raise WarbandError(f"{path}: no such file")  # a FIFO or device: the reader refuses it
    cs = _load(_data_dir(args, path))
    wb = load_warband(path, cs)
    res = check_warband(wb, cs)
    if args.json:
        print(json.dumps({
            "warband": wb.name, "faction": wb.faction, "rice_limit": wb.rice_limit, "cost": res.cost,
            "legal": res.legal, "models": [m.profile for m in wb.models],
            "violations": [{"rule": x.rule, "message": x.message, "page": x.page} for x in res.violations],
            "notes": list(res.notes),
        }, indent=2))
        return 0 if res.legal else 1
    limit = wb.rice_limit if wb.rice_limit is not None else "no limit"
    print(f"Warband {wb.name!r}: {wb.faction}, {res.cost} of {limit} rice, {len(wb.models)} models, "
          f"{len(wb.cards)} special cards")
    for m in wb.models:
        cp = cs.profile(m.profile)
        enh = [cs.card_by_key(k).name for k in m.enhancements]
        print(f"  {cp.profile.name} ({cp.profile.rice if cp.profile.rice is not None else '-'} rice)"
              + (f" + {', '.join(enh)}" if enh else ""))
    for k in wb.cards:
        c = cs.card_by_key(k)
        print(f"  {c.kind} card: {c.name} ({c.rice if c.rice is not None else '-'} rice)")
    for n in res.notes:
        print(f"  note: {n}")
    if res.legal:
        print(f"{path}: LEGAL")
        return 0
    print(f"{path}: ILLEGAL, {len(res.violations)} reason(s):")
    for x in res.violations:
        print(f"  - {x}")
    return 1


def main(argv: list[str] | None = None) -> int:
    """Stand-alone entry point (``python -m sim.cli.catalogue ...``) until the commands
    are wired into ``sim/cli/main.py``."""
    p = argparse.ArgumentParser(prog="main.py", description="BattleScribe / NewRecruit catalogues and warbands")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    add_parsers(sub)
    return run(p.parse_args(argv))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
