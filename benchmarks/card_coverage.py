"""How much of the catalogues' cards the engine plays (issue #13 targets).

Counts, over every Character Profile of the BattleScribe catalogues (``../shared/bsdata``
by default):

* **trait instances**: each trait printed on a model card and each trait printed on one of
  its weapons is one instance; its status is the registry's (:data:`models.traits.TRAITS`:
  ``automated``, ``partly``, ``manual``) or ``unregistered`` for a trait the registry does
  not know. Target: >= 95 % of the instances ``automated``.
* **Ki feat links**: each Ki feat on a model card is one link; it counts as *applied* when
  the curated feat data (``data/feats/effects.yaml``, :mod:`sim.rules.feat_effects`) gives
  its effect in ops the engine applies, with a supported timing and no manual part.
  Target: >= 80 % of the links applied.

Usage::

    python benchmarks/card_coverage.py [BSDATA_DIR] [--json] [--traits] [--feats N] [--check]

``--traits`` prints the per-trait table, ``--feats N`` the N most-linked feats that are not
applied, with their reason; ``--check`` exits 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from models.bsdata import load_catalogues  # noqa: E402
from models.traits import TRAITS, parse_trait_text, trait_key  # noqa: E402

TRAIT_TARGET = 95.0
FEAT_TARGET = 80.0


def trait_instances(cs) -> Counter:
    """``Counter`` of trait keys over every model and weapon trait of the catalogue set."""
    c: Counter = Counter()
    for cp in cs.profiles:
        for t in cp.profile.traits:
            c[trait_key(t.keyword)] += 1
        for w in cp.profile.weapons:
            for text in w.traits:
                parsed = parse_trait_text(text)
                c[parsed.key if parsed is not None else trait_key(text)] += 1
    return c


def trait_status(key: str) -> str:
    """The registry status of a trait key, ``unregistered`` when it has none."""
    rule = TRAITS.get(key)
    return rule.status if rule is not None else "unregistered"


def feat_links(cs) -> Counter:
    """``Counter`` of feat names over every Ki feat link of the catalogue set."""
    return Counter(f.name for cp in cs.profiles for f in cp.ki_feats)


def feat_status(name: str) -> tuple[bool, str]:
    """``(applied, reason)`` of a catalogue feat from the curated feat data."""
    try:
        from sim.rules.feat_effects import effect_status
    except ImportError as exc:  # the feat engine is not there
        return False, f"no feat engine ({exc})"
    try:
        return effect_status(name)
    except ValueError as exc:  # the feat data cannot be read: nothing is applied
        return False, f"feat data: {str(exc)[:200]}"


def coverage(source: str) -> dict:
    """Every figure of the report as plain JSON values."""
    cs = load_catalogues(source)
    traits = trait_instances(cs)
    by_status: Counter = Counter()
    for key, n in traits.items():
        by_status[trait_status(key)] += n
    total = sum(traits.values())
    links = feat_links(cs)
    applied = {name: feat_status(name) for name in links}
    n_links = sum(links.values())
    n_applied = sum(n for name, n in links.items() if applied[name][0])
    return {
        "profiles": len(cs.profiles),
        "traits": {"distinct": len(traits), "instances": total, "by_status": dict(by_status),
                   "automated_percent": round(100.0 * by_status["automated"] / total, 1) if total else 0.0,
                   "per_trait": {k: {"instances": n, "status": trait_status(k)} for k, n in traits.most_common()}},
        "feats": {"distinct": len(links), "links": n_links, "applied_links": n_applied,
                  "applied_distinct": sum(1 for a in applied.values() if a[0]),
                  "applied_percent": round(100.0 * n_applied / n_links, 1) if n_links else 0.0,
                  "not_applied": [{"feat": name, "links": n, "reason": applied[name][1]}
                                  for name, n in links.most_common() if not applied[name][0]]},
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("source", nargs="?", default=str(ROOT.parent / "shared" / "bsdata"))
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    ap.add_argument("--traits", action="store_true", help="print the per-trait table")
    ap.add_argument("--feats", type=int, default=0, metavar="N", help="print the N most-linked feats not applied")
    ap.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    args = ap.parse_args(argv)
    if not Path(args.source).exists():
        print(f"{args.source}: no catalogues there", file=sys.stderr)
        return 2
    cov = coverage(args.source)
    t, f = cov["traits"], cov["feats"]
    if args.json:
        print(json.dumps(cov, indent=1))
    else:
        print(f"{cov['profiles']} catalogue profiles")
        print(f"traits: {t['distinct']} distinct, {t['instances']} instances: "
              + ", ".join(f"{s} {t['by_status'].get(s, 0)} ({100.0 * t['by_status'].get(s, 0) / t['instances']:.1f} %)"
                          for s in ("automated", "partly", "manual", "unregistered")))
        print(f"  automated: {t['automated_percent']:.1f} % of instances (target {TRAIT_TARGET:g} %)")
        print(f"Ki feats: {f['distinct']} distinct, {f['links']} links; effect applied: {f['applied_links']} links "
              f"({f['applied_percent']:.1f} %, target {FEAT_TARGET:g} %), {f['applied_distinct']} distinct feats")
        if args.traits:
            for k, d in t["per_trait"].items():
                print(f"  {k:28s} {d['instances']:5d}  {d['status']}")
        for row in f["not_applied"][:args.feats]:
            print(f"  {row['links']:3d}  {row['feat']}: {row['reason']}")
    missed = t["automated_percent"] < TRAIT_TARGET or f["applied_percent"] < FEAT_TARGET
    return 1 if args.check and missed else 0


if __name__ == "__main__":
    sys.exit(main())
