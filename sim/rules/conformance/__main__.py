"""``python -m sim.rules.conformance [--out FILE] [--check]``: write the conformance page
(default ``docs/conformance.md``), or with ``--check`` exit 1 when the file differs from
what would be written now."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from sim.files import write_text_atomic
from sim.rules.conformance import DEFAULT_OUT, build_page


def main(argv: list[str] | None = None) -> int:
    """Run the command; returns the exit status (0 written or up to date, 1 stale)."""
    ap = argparse.ArgumentParser(prog="python -m sim.rules.conformance", description=__doc__)
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT, help="the page to write (default: %(default)s)")
    ap.add_argument("--check", action="store_true", help="only say whether the page is up to date")
    args = ap.parse_args(argv)
    text = build_page()
    if args.check:
        old = args.out.read_text(encoding="utf-8") if args.out.exists() else None
        if old != text:
            print(f"{args.out} is stale: run `python -m sim.rules.conformance` to write it again", file=sys.stderr)
            return 1
        print(f"{args.out} is up to date")
        return 0
    write_text_atomic(args.out, text)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
