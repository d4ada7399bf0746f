"""Writing imported profiles as ``bushido-profiles/1`` YAML files (one per catalogue,
validated by :func:`models.profiles.load_profile_file`, written atomically): facts only,
no rules text. Profiles that format cannot hold are left out with the reason.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

import yaml

from models.bsdata.catalogueset import CatalogueSet
from models.bsdata.records import CatalogueProfile
from models.bsdata.text import slug
from models.profiles import ProfileError, Trait, Weapon
from sim.files import one_line, quote


@dataclass(frozen=True)
class WriteReport:
    """What :func:`write_profiles` did: files written, profiles written, and profiles
    left out with the reason (``(profile id, reason)``)."""

    files: tuple[Path, ...]
    written: int
    skipped: tuple[tuple[str, str], ...]
    kept_existing: tuple[str, ...] = ()


_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


def _trait_doc(t: Trait) -> dict:
    d: dict = {"keyword": t.keyword}
    if t.value is not None:
        d["value"] = t.value
    if t.qualifier is not None:
        d["qualifier"] = t.qualifier
    if t.range is not None:
        d["range"] = float(t.range)
    d["text"] = t.text
    return d


def _weapon_doc(w: Weapon) -> dict:
    d: dict = {"name": w.name, "kind": w.kind, "strength": w.strength}
    if w.kind == "ranged":
        d["range"] = {b: [float(a), float(z)] for b, (a, z) in w.range.items()}
    d["traits"] = list(w.traits)
    d["special_attacks"] = list(w.special_attacks)
    d["special_defences"] = list(w.special_defences)
    return d


def _profile_doc(cp: CatalogueProfile) -> dict:
    p = cp.profile
    d = {
        "id": p.id, "name": p.name, "bs_id": p.bs_id, "rice": p.rice, "base": p.base, "size": p.size,
        "types": list(p.types), "melee": p.melee, "ranged": p.ranged, "move": p.move, "ki": p.ki,
        "ki_limit": p.ki_limit, "wounds": p.wounds, "traits": [_trait_doc(t) for t in p.traits],
        "weapons": [_weapon_doc(w) for w in p.weapons if w.kind == "melee" or w.range],
        "feats": list(p.feats),
    }
    if p.boosts:
        d["boosts"] = dict(p.boosts)
    if d["bs_id"] is None:
        del d["bs_id"]
    return d


def _out_of_bounds(doc: object, where: str = "") -> str | None:
    """The first value of a profile document outside the bounds of ``bushido-profiles/1``
    (docs/bounds.md): a number below 0 where a count is expected, a text that is not one
    line of at most ``MAX_NAME`` printable characters, a list over ``MAX_ITEMS``."""
    from sim.bounds import MAX_ITEMS, MAX_NAME

    if isinstance(doc, dict):
        for k, v in doc.items():
            if k in ("rice", "melee", "ranged", "move", "ki", "ki_limit", "wounds") and isinstance(v, int) and v < 0:
                return f"{where}{k} is {v}"
            got = _out_of_bounds(v, f"{where}{k}.")
            if got:
                return got
    elif isinstance(doc, list):
        if len(doc) > MAX_ITEMS:
            return f"{where.rstrip('.')} has {len(doc)} items (at most {MAX_ITEMS})"
        for v in doc:
            got = _out_of_bounds(v, where)
            if got:
                return got
    elif isinstance(doc, str) and not (0 < len(doc) <= MAX_NAME and doc.isprintable()):
        return f"{where.rstrip('.')} {quote(doc)} is not one line of 1 to {MAX_NAME} printable characters"
    return None


def _writable(cp: CatalogueProfile) -> str | None:
    bad = cp.yaml_problems()
    if bad:
        return "; ".join(bad)
    for w in cp.profile.weapons:
        if w.kind == "ranged" and not w.range:
            return f"ranged weapon {w.name!r} has no range bands"
    return _out_of_bounds(_profile_doc(cp))  # boosts too: their keys are the stats'


def profiles_document(cs: CatalogueSet, catalogue: str) -> tuple[dict, list[tuple[str, str]]]:
    """The ``bushido-profiles/1`` document of one catalogue's profiles and the profiles
    left out because that format cannot hold them (``(id, reason)``: a variable stat,
    ``Ki Cap *``, Kami wounds ...). Facts only: no rules text."""
    from sim.bounds import MAX_NAME

    faction = "Ronin" if any(c.name == catalogue and c.library for c in cs.catalogues) else catalogue
    bad_faction = _out_of_bounds({"catalogue name": faction})
    docs, skipped = [], []
    for cp in cs.profiles:
        if cp.catalogue != catalogue:
            continue
        why = bad_faction or _writable(cp)
        if why:
            skipped.append((cp.profile.id, why))
            continue
        docs.append(_profile_doc(cp))
    doc = {
        "format": "bushido-profiles/1",
        "faction": faction,
        "source": one_line(f"BattleScribe catalogue "
                           f"{next((c.file for c in cs.catalogues if c.name == catalogue), catalogue)} "
                           f"({cs.game_system.name}, revision {cs.game_system.revision})", MAX_NAME - 3),
        "profiles": docs,
    }
    return doc, skipped


def write_profiles(cs: CatalogueSet, out_dir: str | Path, existing: str | Path | None = None) -> WriteReport:
    """Write one ``bushido-profiles/1`` YAML file per catalogue into ``out_dir``
    (``<catalogue slug>.yaml``), checked with :func:`models.profiles.load_profile_file`.

    ``existing``: a profiles directory (e.g. the repository's ``data/profiles``) whose
    profiles must not be duplicated: an imported profile with the same ``bs_id`` is left
    out (the existing one is kept), and imported ids that clash with existing ids get a
    catalogue suffix, so both directories can be loaded together.

    All files are written to temporary names first and renamed only when every one of
    them validates: on an error nothing is left half-written.

    Raises:
        ProfileError: a generated file does not validate (a bug; the message names it).
        OSError: the directory cannot be written.
    """
    from models.profiles import load_profile_file

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    have_bs: set[str] = set()
    have_ids: set[str] = set()
    if existing is not None:
        for f in sorted(Path(existing).glob("*.yaml")):
            if Path(existing).resolve() == out.resolve() and f.name.startswith("bsdata-"):
                continue  # our own earlier output is replaced
            for p in load_profile_file(f):
                have_ids.add(p.id)
                if p.bs_id:
                    have_bs.add(p.bs_id)
    written, skipped, kept, files, temps = 0, [], [], [], []
    names = [c.name for c in cs.catalogues]
    try:
        for cat in names:
            doc, skip = profiles_document(cs, cat)
            skipped += skip
            profs = []
            for d in doc["profiles"]:
                if d.get("bs_id") in have_bs:
                    kept.append(d["id"])
                    continue
                if d["id"] in have_ids:
                    base_id, n = f"{d['id']}-{slug(cat)}", 2
                    d["id"] = base_id
                    while d["id"] in have_ids:
                        d["id"], n = f"{base_id}-{n}", n + 1
                have_ids.add(d["id"])
                profs.append(d)
            if not profs:
                continue
            doc["profiles"] = profs
            target = out / f"bsdata-{slug(cat)}.yaml"
            fd, tmp = tempfile.mkstemp(prefix=".bsdata-", suffix=".tmp", dir=out)
            temps.append((Path(tmp), target))
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(f"# Model profiles imported from {doc['source']} by `python main.py catalogue import`.\n")
                fh.write("# Facts only (names and numbers); schema: models/profiles.py. "
                         "Ranges in inches, base in mm.\n")
                yaml.dump(doc, fh, Dumper=_DUMPER, sort_keys=False, allow_unicode=True, width=120)
            written += len(profs)
        for tmp, target in temps:
            check = tmp.with_suffix(".yaml")
            os.replace(tmp, check)
            try:
                load_profile_file(check)
            except ProfileError as exc:
                raise ProfileError(str(exc).replace(str(check), str(target))) from None
            temps[temps.index((tmp, target))] = (check, target)
        for tmp, target in temps:
            os.replace(tmp, target)
            files.append(target)
    except BaseException:
        for tmp, _target in temps:
            for cand in (tmp, tmp.with_suffix(".yaml"), tmp.with_suffix(".tmp")):
                try:
                    cand.unlink()
                except OSError:
                    pass
        raise
    return WriteReport(tuple(files), written, tuple(skipped), tuple(kept))
