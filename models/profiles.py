"""Model profiles (the stat cards): data classes and a validating YAML loader.

Profile files live in ``data/profiles/*.yaml`` (format ``bushido-profiles/1``) and hold
facts read from the BattleScribe catalogues: stats, base, Size, types, traits, weapons and
Ki feat names. Units: base diameter in mm, weapon range bands in inches.

Errors in a file raise :class:`ProfileError` with a message of the form
``"<file>: profiles[id=<id>].<field>: <problem>"``.
"""

from __future__ import annotations

import difflib
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from models.traits import has_trait, trait_key
from sim.bounds import MAX_DISTANCE, MAX_ID, MAX_ITEMS, MAX_NAME, is_id
from sim.files import FileProblem, key_label, quote, read_yaml

__all__ = [
    "DEFAULT_DIRECTORY",
    "Profile",
    "ProfileError",
    "Trait",
    "Weapon",
    "get_profile",
    "load_profile_file",
    "load_profiles",
]

#: Where :func:`load_profiles` looks when no directory is given.
DEFAULT_DIRECTORY = Path(__file__).resolve().parents[1] / "data" / "profiles"


class ProfileError(ValueError):
    """A profile file cannot be read: bad YAML, a missing or wrong field, an unknown
    Size, a base not in 30/40/50/60 mm, a duplicate id. The message names the file, the
    entry (``profiles[id=...]``) and the problem."""


@dataclass(frozen=True)
class Trait:
    """A character trait as printed on the card.

    Attributes:
        keyword: lower-case name, spaces as ``_`` (``lightning_reflexes``; spelled by
            :func:`models.traits.keyword_of`; compare it with :func:`models.traits.trait_key`).
        value: the number in brackets, e.g. 3 for ``Armour (3)``; None if there is none.
        qualifier: the text in square brackets, lower case (``melee`` for
            ``Prowess [Melee] (1)``); None if there is none.
        text: the printed form.
        range: a distance in inches carried by the trait (8 for ``Leadership [X] (1/8")``).
    """

    keyword: str
    value: int | None
    qualifier: str | None
    text: str
    range: float | None = None


@dataclass(frozen=True)
class Weapon:
    """A melee or ranged weapon.

    Attributes:
        name: as printed.
        kind: ``"melee"`` or ``"ranged"``.
        strength: weapon strength (may be 0 or negative); None where the card prints a
            variable value (``X``, ``Special``).
        range: ranged weapons only: band name (``short``/``medium``/``long``) to
            ``(from, to)`` in inches; bands the card does not have are absent.
        traits: weapon traits as printed (``Reach``, ``Pierce (3)``).
        special_attacks, special_defences: as printed with their Ki cost
            (``Critical Attack (0)``).
    """

    name: str
    kind: str
    strength: int | None
    range: dict[str, tuple[float, float]] = field(default_factory=dict, hash=False)
    traits: tuple[str, ...] = ()
    special_attacks: tuple[str, ...] = ()
    special_defences: tuple[str, ...] = ()


@dataclass(frozen=True)
class Profile:
    """One model's stat card.

    Attributes:
        id: unique lower-case slug across all profile files.
        name, faction: as printed.
        bs_id: selectionEntry id in the BattleScribe catalogue (traceability).
        rice: points cost, None if absent.
        base: base diameter in mm (30, 40, 50 or 60).
        size: ``zero``/``tiny``/``small``/``medium``/``large``/``huge``.
        types: lower-case type keywords (``samurai``, ``unique`` ...).
        melee, ranged: dice pools (ranged None where the card has none).
        move: Move characteristic. ki, ki_limit: starting Ki and Ki cap.
        wounds: wound boxes of one track.
        traits, weapons: see :class:`Trait`, :class:`Weapon`.
        feats: Ki feat names.
        boosts: Ki boost costs printed beside the statistics, as ``(stat, cost)`` pairs
            (``melee``, ``ranged``, ``move``, ``ki``); a statistic without a boost value is
            absent (p.10). See :meth:`boost`.
        ki_feats: the Ki feats with cost, timing and area when the card came from a
            BattleScribe catalogue (:class:`models.bsdata.KiFeat`); empty for hand-written
            files, whose feats are names only. Not compared.
        unique_effects: the card's unique effects (p.12, item 11) as
            :class:`models.bsdata.UniqueEffect` (``name``, ``text``) when the card came from a
            BattleScribe catalogue; the game offers the ones a Wait action triggers as a
            manual step (p.25). Empty for hand-written files. Not compared.
    """

    id: str
    name: str
    faction: str
    bs_id: str | None
    rice: int | None
    base: int
    size: str
    types: tuple[str, ...]
    melee: int
    ranged: int | None
    move: int
    ki: int
    ki_limit: int
    wounds: int
    traits: tuple[Trait, ...]
    weapons: tuple[Weapon, ...]
    feats: tuple[str, ...]
    boosts: tuple[tuple[str, int], ...] = ()
    ki_feats: tuple = field(default=(), compare=False)
    unique_effects: tuple = field(default=(), compare=False)

    def boost(self, stat: str) -> int | None:
        """The Ki cost of +1 to ``stat`` (``melee``/``ranged``/``move``/``ki``), or None when
        the card prints no boost for it (p.10).

            >>> from models.profiles import get_profile
            >>> get_profile("takashi-akira").boost("melee")
            3
        """
        return dict(self.boosts).get(stat)

    @property
    def trait_keywords(self) -> frozenset[str]:
        """The lower-case keywords of all traits."""
        return frozenset(t.keyword for t in self.traits)

    def trait(self, keyword: str) -> Trait | None:
        """The first trait with ``keyword`` (``"fear"``, ``"Sixth Sense"``; names compared by
        :func:`models.traits.trait_key`), or ``None``."""
        key = trait_key(keyword)
        return next((t for t in self.traits if trait_key(t.keyword) == key), None)

    def has_trait(self, keyword: str) -> bool:
        """True if the profile has the trait ``keyword`` (names compared by
        :func:`models.traits.trait_key`: case, spaces, ``_`` and ``-`` ignored)."""
        return has_trait(self.traits, keyword)


# --- file schema (pydantic) -------------------------------------------------------------
# Bounded like every input (sim.bounds, docs/bounds.md): text one line of at most
# MAX_NAME characters, ids at most MAX_ID, distances 0 to MAX_DISTANCE inches, numbers
# within +-MAX_STAT, lists at most MAX_ITEMS (profiles in a file: MAX_PROFILES).
MAX_STAT = 1000
MAX_PROFILES = 2000

Count = Annotated[int, Field(ge=0, le=MAX_STAT)]
Text = Annotated[str, Field(min_length=1, max_length=MAX_NAME, pattern=r"^[^\x00-\x1f\x7f-\x9f]*$")]
Distance = Annotated[float, Field(ge=0, le=MAX_DISTANCE)]


_Band = Annotated[list[Distance], Field(min_length=2, max_length=2)]  # [from, to] inches


class _Schema(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False, strict=True, frozen=True)


class _Trait(_Schema):
    keyword: Annotated[str, Field(max_length=MAX_ID, pattern=r"^[a-z][a-z0-9_\-']*$")]
    value: Annotated[int, Field(ge=-MAX_STAT, le=MAX_STAT)] | None = None
    qualifier: Text | None = None
    range: Distance | None = None
    text: Text


class _Weapon(_Schema):
    name: Text
    kind: Literal["melee", "ranged"]
    strength: Annotated[int, Field(ge=-MAX_STAT, le=MAX_STAT)] | None
    range: dict[Literal["short", "medium", "long"], _Band] = {}
    traits: Annotated[list[Text], Field(max_length=MAX_ITEMS)] = []
    special_attacks: Annotated[list[Text], Field(max_length=MAX_ITEMS)] = []
    special_defences: Annotated[list[Text], Field(max_length=MAX_ITEMS)] = []

    @model_validator(mode="after")
    def _check_range(self) -> "_Weapon":
        if self.kind == "ranged" and not self.range:
            raise ValueError("a ranged weapon needs at least one range band")
        if self.kind == "melee" and self.range:
            raise ValueError("a melee weapon has no range bands")
        for band, (lo, hi) in self.range.items():
            if lo > hi:
                raise ValueError(f"range band {band!r} starts after it ends ({lo} > {hi})")
        return self


class _Profile(_Schema):
    id: Annotated[str, Field(max_length=MAX_ID, pattern=r"^[a-z0-9]+(-[a-z0-9]+)*$")]
    name: Text
    bs_id: Text | None = None
    rice: Count | None = None
    base: Literal[30, 40, 50, 60]
    size: Literal["zero", "tiny", "small", "medium", "large", "huge"]
    types: Annotated[list[Text], Field(max_length=MAX_ITEMS)] = []
    melee: Count
    ranged: Count | None
    move: Count
    ki: Count
    ki_limit: Count
    wounds: Annotated[int, Field(ge=1, le=MAX_STAT)]
    traits: Annotated[list[_Trait], Field(max_length=MAX_ITEMS)] = []
    weapons: Annotated[list[_Weapon], Field(max_length=MAX_ITEMS)] = []
    feats: Annotated[list[Text], Field(max_length=MAX_ITEMS)] = []
    boosts: dict[Literal["melee", "ranged", "move", "ki"], Annotated[int, Field(ge=0, le=MAX_STAT)]] = {}


class _File(_Schema):
    format: Literal["bushido-profiles/1"]
    faction: Text
    source: Text
    profiles: Annotated[list[_Profile], Field(max_length=MAX_PROFILES)]


def _entry(data: object, loc: tuple) -> tuple[str, tuple]:
    """Split a pydantic error location into the entry label and the rest."""
    if len(loc) >= 2 and loc[0] == "profiles" and isinstance(loc[1], int):
        items = data.get("profiles") if isinstance(data, dict) else None
        item = items[loc[1]] if isinstance(items, list) and loc[1] < len(items) else None
        pid = item.get("id") if isinstance(item, dict) else None
        label = f"profiles[id={pid}]" if is_id(pid) else f"profiles[{loc[1]}]"
        return label, loc[2:]
    return "file", loc


def _format_errors(path: Path, data: object, err: ValidationError) -> str:
    """One line: the first problem (input values quoted short), and how many more."""
    errors = err.errors()
    e = errors[0]
    label, rest = _entry(data, tuple(e["loc"]))
    where = label + "".join(f"[{p}]" if isinstance(p, int) else f".{key_label(p)}" for p in rest)
    problem = e["msg"]
    if e["type"] == "missing":
        problem = f"missing field {quote(rest[-1])}" if rest else "missing field"
    elif e["type"] == "extra_forbidden":
        problem = f"unknown field {quote(rest[-1])}" if rest else "unknown field"
    elif isinstance(e.get("input"), float) and not math.isfinite(e["input"]):
        problem = f"NaN or infinity is not allowed (got {e['input']!r})"
    elif not isinstance(e.get("input"), (dict, list)):
        problem += f" (got {quote(e.get('input'))})"
    more = len(errors) - 1
    if more:
        problem += f" (and {more} more problem{'s' if more > 1 else ''})"
    return f"{path}: {where}: {problem}"


def _build(p: _Profile, faction: str) -> Profile:
    return Profile(
        id=p.id, name=p.name, faction=faction, bs_id=p.bs_id, rice=p.rice, base=p.base,
        size=p.size, types=tuple(p.types), melee=p.melee, ranged=p.ranged, move=p.move,
        ki=p.ki, ki_limit=p.ki_limit, wounds=p.wounds,
        traits=tuple(Trait(t.keyword, t.value, t.qualifier, t.text, t.range) for t in p.traits),
        weapons=tuple(
            Weapon(
                name=w.name, kind=w.kind, strength=w.strength,
                range={b: (float(v[0]), float(v[1])) for b, v in w.range.items()},
                traits=tuple(w.traits), special_attacks=tuple(w.special_attacks),
                special_defences=tuple(w.special_defences),
            )
            for w in p.weapons
        ),
        feats=tuple(p.feats),
        boosts=tuple(sorted(p.boosts.items())),
    )


def load_profile_file(path: str | Path) -> list[Profile]:
    """Read and validate one profile file (YAML, format ``bushido-profiles/1``).

    Returns the profiles in file order. Bases are in mm, range bands in inches.

    Raises:
        ProfileError: the file cannot be read or is not valid YAML (see
            :func:`sim.files.read_yaml`), or an entry is wrong (missing field, wrong type,
            unknown Size, base not 30/40/50/60, NaN, a value out of bounds, duplicate
            id ...). The message is one line naming the file, the entry and the problem
            (the first one, and how many more).
    """
    path = Path(path)
    try:
        data = read_yaml(path)  # bounded, UTF-8, no duplicate keys (sim.files, docs/bounds.md)
    except FileProblem as exc:
        raise ProfileError(str(exc)) from None
    try:
        doc = _File.model_validate(data)
    except ValidationError as exc:
        raise ProfileError(_format_errors(path, data, exc)) from None
    seen: set[str] = set()
    for p in doc.profiles:
        if p.id in seen:
            raise ProfileError(f"{path}: profiles[id={p.id}]: duplicate id {quote(p.id)}")
        seen.add(p.id)
    return [_build(p, doc.faction) for p in doc.profiles]


#: ``(directory, file signatures) -> profiles``: files are parsed again only when one
#: changes (its size or modification time).
_CACHE: dict[tuple, dict[str, Profile]] = {}


#: Extra profile sources searched when no directory is given: directories of profile
#: files or ``{id: Profile}`` mappings (imported catalogues, ``models.bsdata``), each with
#: the key it was added under (``None`` for none), in the order they were added.
_SOURCES: list[tuple[object, object]] = []


def add_profile_source(source, key: object = None) -> bool:
    """Also search ``source`` (a directory of profile files, or a mapping
    ``{id: Profile}``) when :func:`load_profiles` / :func:`get_profile` get no directory.
    Profiles already known (same id or same ``bs_id``) win.

    Args:
        source: a directory (``str`` or ``Path``) or a mapping ``{id: Profile}``.
        key: an object naming the source (e.g. the catalogue set it came from); a source
            whose key is already registered (the same object) is not added twice.

    Returns:
        True if the source was added, False if its key was already registered.
    """
    if key is not None and any(k is key for k, _ in _SOURCES):
        return False
    _SOURCES.append((key, Path(source) if isinstance(source, (str, Path)) else source))
    return True


def remove_profile_source(source) -> None:
    """Stop searching ``source`` (the object given to :func:`add_profile_source`).

    Raises:
        ValueError: ``source`` was not added.
    """
    src = Path(source) if isinstance(source, (str, Path)) else source
    for i, (_, s) in enumerate(_SOURCES):
        if s is src or (isinstance(src, Path) and s == src):
            del _SOURCES[i]
            return
    raise ValueError(f"{source!r} is not a profile source")


def clear_profile_sources() -> None:
    """Forget every source added with :func:`add_profile_source`."""
    _SOURCES.clear()


def profile_sources() -> tuple:
    """The registered sources as an opaque snapshot, for :func:`restore_profile_sources`
    (tests keep each test's catalogues to itself with the pair)."""
    return tuple(_SOURCES)


def restore_profile_sources(snapshot: tuple) -> None:
    """Make the registered sources exactly those of ``snapshot`` (from
    :func:`profile_sources`)."""
    _SOURCES[:] = list(snapshot)


def load_profiles(directory: str | Path | None = None) -> dict[str, Profile]:
    """Load every ``*.yaml`` profile file of ``directory`` (default: the repository's
    ``data/profiles``), keyed by profile id. Cached until a file changes; the returned
    dict is a fresh copy (profiles themselves are immutable).

    Raises:
        ProfileError: a file is invalid (see :func:`load_profile_file`) or an id occurs in
            two files (the message names both).
    """
    directory = Path(directory) if directory is not None else DEFAULT_DIRECTORY
    files = sorted(directory.glob("*.yaml"))
    key = (str(directory.resolve()), tuple((str(f), f.stat().st_mtime_ns, f.stat().st_size) for f in files))
    cached = _CACHE.get(key)
    if cached is None:
        cached = _CACHE[key] = _load_profiles(files)
    profiles = dict(cached)
    if directory == DEFAULT_DIRECTORY or directory.resolve() == DEFAULT_DIRECTORY.resolve():
        for _, src in _SOURCES:
            extra = load_profiles(src) if isinstance(src, Path) else src
            known = {q.bs_id for q in profiles.values()}
            for pid, p in extra.items():
                if pid not in profiles and p.bs_id not in known:
                    profiles[pid] = p
    return profiles


def _load_profiles(files) -> dict[str, Profile]:
    profiles: dict[str, Profile] = {}
    origin: dict[str, Path] = {}
    for path in files:
        for p in load_profile_file(path):
            if p.id in profiles:
                raise ProfileError(
                    f"{path}: profiles[id={p.id}]: duplicate id {p.id!r} (also in {origin[p.id]})"
                )
            profiles[p.id] = p
            origin[p.id] = path
    return profiles


def get_profile(id_or_name: str, directory: str | Path | None = None) -> Profile:
    """The profile whose id or name equals ``id_or_name`` (case-insensitive).

    Raises:
        KeyError: no such profile; the message lists close matches.
        ProfileError: a profile file is invalid.
    """
    profiles = load_profiles(directory)
    key = id_or_name.strip().lower()
    for p in profiles.values():
        if key in (p.id, p.name.lower()):
            return p
    by_key = {k: p.id for p in profiles.values() for k in (p.id, p.name.lower())}
    close = dict.fromkeys(by_key[k] for k in difflib.get_close_matches(key, by_key, n=10))
    raise KeyError(f"unknown profile {id_or_name!r}; close matches: {', '.join(close) or 'none'}")
