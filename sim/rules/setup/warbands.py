"""Each side's warband for a set-up: a bundled one, a ``bushido-warband/1`` file, a
BattleScribe/NewRecruit roster, or one built in the :class:`Picker` from the imported
catalogues (Warband building p.19, checked by :func:`models.warband.check_warband`).

A :class:`WarbandChoice` is the chosen list of profiles with a JSON ``source`` that
rebuilds it (:func:`choice_from_dict`), so a set-up can be saved. :func:`recruits` turns
the two choices into the models to deploy (:class:`Recruit`), with unique ids.
"""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from models.bsdata import CatalogueError, CatalogueSet, load_catalogues
from models.card_facts import card_facts
from models.model import Model
from models.profiles import Profile, ProfileError, add_profile_source, get_profile
from models.warband import (
    STANDARD_RICE_LIMITS,
    Violation,
    Warband,
    WarbandError,
    WarbandModel,
    check_warband,
    load_warband,
)
from sim.geometry import Size, base_radius
from sim.rules.effects import effective_profile
from sim.table import DEFAULT_TABLE, TableError, load_table

from .reasons import Refusal, SetupError

#: Where the catalogues usually are for this checkout (``../shared/bsdata``), if present.
SHARED_BSDATA = Path(__file__).resolve().parents[3].parent / "shared" / "bsdata"
#: The environment variable naming a catalogue directory (as ``warband check`` reads it).
DATA_ENV = "BUSHIDO_BSDATA"


def default_catalogue_dir() -> Path | None:
    """The catalogue directory to offer: ``$BUSHIDO_BSDATA`` if set, else
    ``../shared/bsdata`` beside the checkout when it exists, else None."""
    env = os.environ.get(DATA_ENV)
    if env:
        return Path(env)
    return SHARED_BSDATA if SHARED_BSDATA.is_dir() else None


def catalogues(directory: str | os.PathLike) -> CatalogueSet:
    """The catalogue set of ``directory`` (cached by :func:`models.bsdata.load_catalogues`),
    its profiles made visible to :func:`models.profiles.get_profile` (the game reads the
    cards through it).

    Raises:
        SetupError: the directory cannot be imported (the message names it).
    """
    try:
        cs = load_catalogues(Path(directory))
    except (CatalogueError, OSError) as exc:
        raise SetupError(Refusal("catalogues", f"{directory}: {exc}")) from None
    add_profile_source({p.profile.id: p.profile for p in cs.profiles}, key=cs)
    return cs


@dataclass(frozen=True)
class Recruit:
    """A model to deploy: ``id`` (unique on the table), ``player`` (1 or 2) and its
    ``profile``. Its Scout (X/Y"), Flank and Tactician (X) are read from the profile's
    traits (p.52, p.57, p.58)."""

    id: str
    player: int
    profile: Profile
    #: Facts of the enhancement cards attached to it (:func:`models.card_facts.card_facts`).
    enhancements: tuple[dict, ...] = field(default=(), compare=False)

    @property
    def card(self) -> Profile:
        """The profile with what its enhancements give it (a Grappling Hook's Flank, a
        Tactician (+1)), as the game reads it (p.17); set-up traits are read from it."""
        effects = [{"source": e["name"], "until": "game", **g} for e in self.enhancements for g in e.get("grants", [])]
        return effective_profile(self.profile, effects) if effects else self.profile

    @property
    def name(self) -> str:
        """The profile's name."""
        return self.profile.name

    @property
    def radius(self) -> float:
        """Base radius, inches."""
        return base_radius(self.profile.base)

    @property
    def scout(self) -> tuple[int, float] | None:
        """``(X, Y)`` of Scout (X/Y"), or None without the trait."""
        t = self.card.trait("scout")
        if t is None:
            return None
        return (int(t.value or 0), float(t.range or 0.0))

    @property
    def flank(self) -> bool:
        """True with the Flank trait (p.52)."""
        return self.card.has_trait("flank")

    @property
    def tactician(self) -> int:
        """X of Tactician (X), 0 without it (p.58)."""
        t = self.card.trait("tactician")
        return int(t.value or 0) if t is not None else 0

    def model(self, position: tuple[float, float], facing: float) -> Model:
        """The deployed :class:`models.model.Model`, filled from the profile as the table
        loader fills a ``profile:`` entry (base, Size, traits, Move, name)."""
        p = self.profile
        return Model(id=self.id, player=self.player, base=p.base, size=Size.parse(p.size),
                     position=(float(position[0]), float(position[1])), facing=float(facing) % 360.0,
                     traits=tuple(sorted(t.strip().lower() for t in p.trait_keywords)), profile=p.id,
                     name=p.name, move=float(p.move) if p.move is not None else None)


@dataclass(frozen=True)
class WarbandChoice:
    """One side's chosen warband.

    Attributes:
        label: how a menu names it (``"Prefecture of Ryu (default table)"``).
        profiles: the models' profiles, in the warband's order.
        source: a JSON mapping that rebuilds it (:func:`choice_from_dict`).
        cost: its rice, if known.
        rice_limit: the agreed limit, if given.
        notes: what the warband check could not check automatically.
        enhancements: per model (parallel to ``profiles``), the facts of its enhancement
            cards (:func:`models.card_facts.card_facts`); empty when none.
        cards: the facts of the warband's other special cards (events, terrain, theme).
    """

    label: str
    profiles: tuple[Profile, ...]
    source: dict = field(compare=False)
    cost: int | None = None
    rice_limit: int | None = None
    notes: tuple[str, ...] = ()
    enhancements: tuple[tuple[dict, ...], ...] = field(default=(), compare=False)
    cards: tuple[dict, ...] = field(default=(), compare=False)


# ------------------------------------------------------------------------------ bundled
@lru_cache(maxsize=1)
def _default_sides() -> dict[int, tuple[str, ...]]:
    table = load_table(DEFAULT_TABLE)
    return {p: tuple(m.profile or "" for m in table.models if m.player == p) for p in (1, 2)}


def bundled_warbands() -> list[str]:
    """Names of the bundled warbands: the two warbands of ``data/tables/default.yaml``
    (``"default-1"``, ``"default-2"``)."""
    return ["default-1", "default-2"]


def bundled_warband(name: str) -> WarbandChoice:
    """A bundled warband by name (:func:`bundled_warbands`).

    Raises:
        SetupError: an unknown name.
    """
    if name not in bundled_warbands():
        raise SetupError(Refusal("warband", f"unknown bundled warband {name!r} "
                                            f"(known: {', '.join(bundled_warbands())})"))
    try:
        ids = _default_sides()[int(name[-1])]
        profiles = tuple(get_profile(i) for i in ids)
    except (TableError, ProfileError, KeyError) as exc:
        raise SetupError(Refusal("warband", f"{DEFAULT_TABLE}: {exc}")) from None
    faction = profiles[0].faction if profiles else "?"
    cost = sum(p.rice or 0 for p in profiles)
    return WarbandChoice(f"{faction} (default table)", profiles, {"kind": "bundled", "name": name}, cost)


# ------------------------------------------------------------------------- files, rosters
def _from_warband(wb: Warband, cs: CatalogueSet, source: dict, allow_illegal: bool) -> WarbandChoice:
    check = check_warband(wb, cs)
    if check.violations and not allow_illegal:
        raise SetupError([Refusal(v.rule, v.message, v.page) for v in check.violations],
                         where=wb.source or wb.name)
    profiles = []
    for m in wb.models:
        p = cs.profile(m.profile).profile
        if p.base is None:
            raise SetupError(Refusal("base", f"{p.name} has no base size in the catalogue; it cannot be deployed"),
                             where=wb.source or wb.name)
        profiles.append(p)
    enh = tuple(tuple(card_facts(cs.card_by_key(k)) for k in m.enhancements) for m in wb.models)
    other = tuple(card_facts(cs.card_by_key(k)) for k in wb.cards)
    return WarbandChoice(f"{wb.name} ({wb.faction}, {check.cost} rice)", tuple(profiles), source, check.cost,
                         wb.rice_limit, check.notes, enh if any(enh) else (), other)


def warband_file(path: str | os.PathLike, data: str | os.PathLike, allow_illegal: bool = False) -> WarbandChoice:
    """A warband read from a ``bushido-warband/1`` file or a BattleScribe/NewRecruit
    roster (``.ros``/``.rosz``), resolved against the catalogues in ``data``.

    Raises:
        SetupError: unreadable file or catalogues (one reason naming the file), or an
            illegal warband (every violation of the warband rules, p.18-19) unless
            ``allow_illegal``.
    """
    cs = catalogues(data)
    try:
        wb = load_warband(Path(path), cs)
    except WarbandError as exc:
        raise SetupError(Refusal("warband", str(exc))) from None
    return _from_warband(wb, cs, {"kind": "file", "path": str(path), "data": str(data)}, allow_illegal)


# -------------------------------------------------------------------------------- picker
@dataclass(frozen=True)
class PickerEntry:
    """A model the picker offers: profile ``id``, ``name``, ``rice`` (None if the card
    prints none), base ``base`` (mm), ``ronin``."""

    id: str
    name: str
    rice: int | None
    base: int | None
    ronin: bool


class Picker:
    """A simple warband builder over the imported catalogues (Warband building p.19).

    Choose a faction (:meth:`factions`, :meth:`set_faction`), add and remove models of
    that faction (:meth:`available`, :meth:`add`, :meth:`remove`), read the rice
    (:attr:`rice`) and every problem the warband rules find (:meth:`problems`, from
    :func:`models.warband.check_warband`), then :meth:`choice`.
    """

    def __init__(self, cs: CatalogueSet, faction: str | None = None, rice_limit: int = STANDARD_RICE_LIMITS[0],
                 name: str = "Picked warband", data: str | os.PathLike | None = None) -> None:
        self.cs = cs
        self.data = str(data) if data is not None else None
        self.name = name
        self.rice_limit = int(rice_limit)
        self.faction: str | None = None
        self.picked: list[str] = []
        if faction is not None:
            self.set_faction(faction)

    def factions(self) -> list[str]:
        """The faction catalogues, sorted."""
        return self.cs.factions()

    def set_faction(self, faction: str) -> None:
        """Choose the faction; a different one empties the list.

        Raises:
            SetupError: not a faction of the catalogues.
        """
        try:
            name = self.cs.catalogue(faction).name
        except KeyError as exc:
            raise SetupError(Refusal("faction", str(exc.args[0]), "p.19")) from None
        if name not in self.factions():
            raise SetupError(Refusal("faction", f"{name} is not a faction (a library catalogue)", "p.19"))
        if name != self.faction:
            self.picked = []
        self.faction = name

    def available(self) -> list[PickerEntry]:
        """The models the faction may recruit (its own and the Ronin that work for it,
        p.19; Su/Sp models left out), by name."""
        if self.faction is None:
            return []
        out = [PickerEntry(p.profile.id, p.profile.name, p.profile.rice, p.profile.base, p.ronin)
               for p in self.cs.faction_profiles(self.faction) if p.recruitable]
        return sorted(out, key=lambda e: (e.ronin, e.name.lower(), e.id))

    def add(self, profile_id: str) -> None:
        """Add one model of ``profile_id``.

        Raises:
            SetupError: no faction chosen, or a model the faction does not offer.
        """
        if self.faction is None:
            raise SetupError(Refusal("faction", "choose a faction first", "p.19"))
        ids = {e.id for e in self.available()}
        if profile_id not in ids:
            raise SetupError(Refusal("model", f"{profile_id!r} is not a model {self.faction} may recruit", "p.19"))
        self.picked.append(profile_id)

    def remove(self, profile_id: str) -> None:
        """Remove the last added model of ``profile_id``. Raises SetupError if none."""
        for i in range(len(self.picked) - 1, -1, -1):
            if self.picked[i] == profile_id:
                del self.picked[i]
                return
        raise SetupError(Refusal("model", f"no {profile_id!r} in the warband"))

    def counts(self) -> Counter:
        """``{profile id: copies}`` of the models picked."""
        return Counter(self.picked)

    @property
    def rice(self) -> int:
        """Rice of the models picked."""
        by_id = {e.id: e.rice or 0 for e in self.available()}
        return sum(by_id.get(p, 0) for p in self.picked)

    def warband(self) -> Warband:
        """The :class:`models.warband.Warband` picked so far."""
        return Warband(self.name, self.faction or "", self.rice_limit,
                       tuple(WarbandModel(p) for p in self.picked), (), "picker")

    def problems(self) -> list[Violation]:
        """Every rule the warband breaks (:func:`models.warband.check_warband`; an
        empty warband is a problem too)."""
        out = list(check_warband(self.warband(), self.cs).violations)
        if not self.picked:
            out.insert(0, Violation("models", "the warband has no models", "p.19"))
        return out

    def choice(self, allow_illegal: bool = False) -> WarbandChoice:
        """The picked warband as a :class:`WarbandChoice`.

        Raises:
            SetupError: every problem (:meth:`problems`) unless ``allow_illegal``.
        """
        problems = self.problems()
        if problems and not allow_illegal:
            raise SetupError([Refusal(v.rule, v.message, v.page) for v in problems], where=self.name)
        source = {"kind": "picked", "name": self.name, "faction": self.faction, "rice": self.rice_limit,
                  "models": list(self.picked), "data": self.data}
        return _from_warband(self.warband(), self.cs, source, allow_illegal=True)


def choice_from_dict(doc: Any, allow_illegal: bool = False) -> WarbandChoice:
    """Rebuild a :class:`WarbandChoice` from its ``source`` mapping.

    Raises:
        SetupError: a mapping that is not one (the message says what is wrong), or what
            the constructors raise.
    """
    if not isinstance(doc, dict) or doc.get("kind") not in ("bundled", "file", "picked"):
        raise SetupError(Refusal("warband", "a warband is {kind: bundled | file | picked, ...}"))
    kind = doc["kind"]
    try:
        if kind == "bundled":
            return bundled_warband(str(doc["name"]))
        if kind == "file":
            return warband_file(str(doc["path"]), str(doc["data"]), allow_illegal)
        if not doc.get("data"):
            raise SetupError(Refusal("warband", "a picked warband needs its catalogue directory ('data')"))
        picker = Picker(catalogues(str(doc["data"])), str(doc["faction"]), int(doc["rice"]), str(doc["name"]),
                        data=str(doc["data"]))
        for pid in doc["models"]:
            picker.add(str(pid))
        return picker.choice(allow_illegal)
    except (KeyError, TypeError, ValueError) as exc:
        if isinstance(exc, SetupError):
            raise
        raise SetupError(Refusal("warband", f"{kind} warband: missing or bad field {exc}")) from None


def recruits(choices: dict[int, WarbandChoice]) -> list[Recruit]:
    """The models of both warbands with unique ids: the profile id, then ``-2``,
    ``-3`` ... for further copies (on either side), player 1's first."""
    used: Counter = Counter()
    out = []
    for player in (1, 2):
        enh = choices[player].enhancements
        for i, p in enumerate(choices[player].profiles):
            used[p.id] += 1
            mid = p.id if used[p.id] == 1 else f"{p.id}-{used[p.id]}"
            out.append(Recruit(mid, player, p, tuple(enh[i]) if i < len(enh) else ()))
    return out


def game_cards(choices: dict[int, WarbandChoice], recruited: list[Recruit]) -> list[dict]:
    """The special cards of both warbands as the game takes them (``Game(cards=...)``,
    :mod:`sim.rules.game.special_cards`): each enhancement's facts with its model's id,
    each other card's with its player (p.14-18)."""
    out = [{**e, "model": r.id} for r in recruited for e in r.enhancements]
    for player in (1, 2):
        out += [{**c, "player": player} for c in choices[player].cards]
    return out
