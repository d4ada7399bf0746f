"""Benchmark: import every BattleScribe catalogue (``models.bsdata.load_catalogues``).

Run: ``python benchmarks/import_bench.py [DIR] [--repeat N]``
(default DIR: ``../shared/bsdata`` next to the repository).

Times are process CPU seconds on one core (the import is single-threaded), the best of
``--repeat`` runs, each with the import cache cleared. Target: under 10 s.

Prints the seconds per run, the best, the share spent parsing XML, and the import's
summary line (profiles, traits, weapons, unparsed fields).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from models import bsdata  # noqa: E402

TARGET_S = 10.0


def bench(directory: Path, repeat: int = 3) -> tuple[list[float], float, "bsdata.CatalogueSet"]:
    """``(CPU seconds per run, CPU seconds of reading the XML alone, last result)``."""
    runs = []
    cs = None
    for _ in range(repeat):
        bsdata.clear_cache()
        t0 = time.process_time()
        cs = bsdata.load_catalogues(directory)
        runs.append(time.process_time() - t0)
    t0 = time.process_time()
    for f in sorted(directory.iterdir()):
        if f.suffix.lower() in (".gst", ".cat", ".gstz", ".catz"):
            bsdata.read_xml(f)
    xml_s = time.process_time() - t0
    return runs, xml_s, cs


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; exit 1 if the best run misses the target."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("dir", nargs="?", default=str(ROOT.parent / "shared" / "bsdata"))
    p.add_argument("--repeat", type=int, default=3)
    args = p.parse_args(argv)
    directory = Path(args.dir)
    if not directory.is_dir():
        print(f"no catalogue directory at {directory}", file=sys.stderr)
        return 2
    runs, xml_s, cs = bench(directory, max(1, args.repeat))
    best = min(runs)
    files = sum(1 for f in directory.iterdir() if f.suffix.lower() in (".gst", ".cat"))
    size = sum(f.stat().st_size for f in directory.iterdir() if f.suffix.lower() in (".gst", ".cat")) / 1e6
    print(f"import of {files} files ({size:.1f} MB) from {directory}")
    print("runs (CPU s): " + ", ".join(f"{r:.2f}" for r in runs))
    print(f"best: {best:.2f} s CPU (target < {TARGET_S:.0f} s); reading the XML alone: {xml_s:.2f} s")
    print(cs.summary())
    return 0 if best < TARGET_S else 1


if __name__ == "__main__":
    sys.exit(main())
