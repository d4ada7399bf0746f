"""Import BattleScribe / NewRecruit data (game system ``.gst``, catalogues ``.cat``) into
the project's model profiles and special cards.

Players keep their Bushido profiles and warbands in BattleScribe or NewRecruit. This
module reads a game system file and its catalogues (plain XML, or zipped ``.gstz`` /
``.catz``) and yields:

* one :class:`CatalogueProfile` per ``Character Profile`` in the data: the project's
  :class:`models.profiles.Profile` (stats, base, Size, types, traits, weapons, Ki feat
  names, rice) plus what the ``bushido-profiles/1`` format has no field for: factions,
  Ronin, boost costs, wound tracks, max copies, Su/Sp (not recruitable), Ki feats with
  cost, timing and area, unique effects as text, the characteristics as printed;
* one :class:`Card` per card: profile cards and the special cards of rulebook p.18-19
  (enhancements, events, terrain cards with Passage/Visibility/Size, themes), with the
  restrictions the warband rules need (:mod:`models.warband`).

Ronin and library catalogues are resolved through the catalogues' links
(``catalogueLink``, ``entryLink``, ``infoLink``). Text that cannot be parsed is kept as
text and reported once per import as an :class:`Issue`; nothing is dropped silently.

Units: base diameters in mm, distances (ranges, trait ranges, Ki feat areas) in inches,
rice in the game's rice points.

Errors: :class:`CatalogueError` (a ``ValueError``) for input that cannot be imported at
all (unreadable file, not a regular file, XML syntax error, wrong root element, a
catalogue whose game system or linked catalogue is missing, input past a bound); its
message is one line, ``"<file>: [<entry>: ]<problem>"``. Nothing is returned
half-imported: either every file is read or the error is raised. Bounds (size, zip
members, encodings, markup, nesting, links, field lengths, parsing work) are the
``MAX_*`` constants below, listed in docs/bounds.md ("Catalogues and rosters").

Typical use::

    from models.bsdata import load_catalogues, write_profiles, register_profiles
    cs = load_catalogues("../shared/bsdata")
    print(cs.summary())
    cs.profile("Takashi Akira").profile.melee     # 4
    write_profiles(cs, "data/profiles/imported")  # bushido-profiles/1 YAML per catalogue
    register_profiles(cs)                         # get_profile() now finds every model
"""

from __future__ import annotations

import codecs
import difflib
import io
import math
import os
import re
import stat
import tempfile
import unicodedata
import xml.etree.ElementTree as ET
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Iterator, Mapping

import yaml

from models.profiles import MAX_STAT, Profile, ProfileError, Trait, Weapon
from sim.bounds import MAX_DISTANCE
from sim.files import one_line, quote

__all__ = [
    "RICE_COST_TYPE",
    "Card",
    "CatalogueError",
    "CatalogueInfo",
    "CatalogueProfile",
    "CatalogueSet",
    "Condition",
    "ImportStats",
    "Issue",
    "KiFeat",
    "TerrainStats",
    "UniqueEffect",
    "WriteReport",
    "canonical_trait_text",
    "load_catalogues",
    "parse_trait",
    "parse_traits",
    "profiles_document",
    "read_xml",
    "register_profiles",
    "registered_profiles",
    "slug",
    "unregister_profiles",
    "write_profiles",
]

#: The ``costType`` id of rice in the Bushido game system.
RICE_COST_TYPE = "a111-8656-5c05-7415"

_SIZES = ("zero", "tiny", "small", "medium", "large", "huge")
_BASES = (30, 40, 50, 60)
_TIMINGS = ("active", "instant", "simple", "complex", "special")
_AREAS = ("personal", "target", "pulse", "aura", "special")

#: Largest base diameter read from a catalogue, mm (real bases: 30 to 60).
MAX_BASE_MM = 200

#: Primary category name (lower case, without the Faction/Ronin prefix) -> card kind.
_CARD_KINDS = {
    "profile cards": "profile",
    "event cards": "event",
    "terrain cards": "terrain",
    "theme cards": "theme",
    "enhancement cards": "enhancement",
    "equipment cards": "enhancement",
    "curse cards": "other",
    "test cards": "other",
}

#: Spellings seen in catalogues that difflib alone would not map to the rule name.
_TRAIT_ALIASES = {
    "toughness": "Tough",
    "range defence": "Ranged Defence",
    "ranged defense": "Ranged Defence",
    "coordinated attack": "Co-ordinated Attack",
    "ki-block": "Ki Block",
}


# --- errors and results ------------------------------------------------------------------


class CatalogueError(ValueError):
    """Input that cannot be imported: unreadable file, XML syntax error (a truncated
    file), a DTD or entity declaration, a root element that is not a game system,
    catalogue or roster, a catalogue whose game system or linked catalogue is missing.
    The message is ``"<file>: <problem>"``."""


@dataclass(frozen=True)
class Issue:
    """Something in the data that was repaired, could not be parsed or is missing.

    Attributes:
        file: catalogue file name.
        where: the profile or card (``"Takashi Akira"``) or element the text belongs to.
        field: the characteristic or part (``"Traits"``, ``"Size & Base"``).
        text: the text as printed.
        problem: what was wrong and what was done.
        kind: ``"unparsed"`` (kept as text only), ``"repaired"`` (a typo or a missing
            comma fixed; the value is used), ``"missing"`` (an empty field),
            ``"link"`` (a link whose target is not where it should be) or ``"skipped"``
            (an element of a kind the importer does not read).
    """

    file: str
    where: str
    field: str
    text: str
    problem: str
    kind: str = "unparsed"

    def __str__(self) -> str:
        return (f"{self.file}: {one_line(self.where, 200)}: {one_line(self.field, 200)} {quote(self.text, 300)}: "
                f"{one_line(self.problem, 300)}")


@dataclass(frozen=True)
class KiFeat:
    """A Ki feat as the data gives it (rulebook p.46).

    Attributes:
        name: as printed.
        cost: Ki tokens; None where the cost is variable (``X``, ``Rank 1`` ...).
        cost_text: the cost as printed.
        timing: ``active``/``instant``/``simple``/``complex``/``special``; None if absent.
        area: ``personal``/``target``/``pulse``/``aura``/``special``; None if absent.
        range: the area's distance in inches; None for BtB, unlimited, variable or none.
        range_text: the distance as printed (``6"``, ``BtB``, ``∞``, ``X"``), or None.
        opposed: the feat needs an Opposed Ki test (``Opp. Ki``).
        limitation: e.g. ``noBtB``; None if empty.
        description: the rules text.
        weapon: the weapon of a ``Ki Feat (Ranged Weapon)``; None otherwise.
    """

    name: str
    cost: int | None
    cost_text: str
    timing: str | None
    area: str | None
    range: float | None
    range_text: str | None
    opposed: bool
    limitation: str | None
    description: str
    weapon: Weapon | None = None


@dataclass(frozen=True)
class UniqueEffect:
    """A unique effect of a profile (rulebook p.12, item 11), kept as text."""

    name: str
    text: str


@dataclass(frozen=True)
class TerrainStats:
    """What a terrain card puts on the table (rulebook p.18 and p.60).

    Attributes:
        base: base diameter in mm, or None where the piece is the card (``card``).
        base_text: as printed.
        passage: ``open``/``normal``/``difficult``/``impassable`` (lower case; two
            values joined by ``/`` where the card prints both); None if absent.
        visibility: ``clear``/``obscuring``/``blocking``; None if absent.
        size: ``zero``/``tiny``/``small``/``medium``/``large``/``huge``; None if absent.
        traits: terrain traits (``Destructible``, ``Fear (5)``).
    """

    base: int | None
    base_text: str
    passage: str | None
    visibility: str | None
    size: str | None
    traits: tuple[Trait, ...] = ()

    @property
    def destructible(self) -> bool:
        """True if the piece has the Destructible trait (p.18)."""
        return any(t.keyword == "destructible" for t in self.traits)


@dataclass(frozen=True)
class Condition:
    """A BattleScribe condition tree (from ``modifiers``), kept so that the warband
    rules can evaluate what the catalogue encodes (an entry hidden while another card is
    in the roster, a model that may only be recruited with another one).

    ``op`` is ``"and"``/``"or"`` (with ``items``) or ``"atom"``: ``type`` (``atLeast``,
    ``lessThan``, ``equalTo``, ``greaterThan``, ``atMost``, ``notEqualTo``,
    ``instanceOf``, ``notInstanceOf``), ``value``, ``scope`` (``roster``, ``force``,
    ``parent``, ``ancestor``, ``primary-catalogue``, ...), ``child_id`` and
    ``child_name`` (the entry, category or catalogue it counts)."""

    op: str
    items: tuple["Condition", ...] = ()
    type: str | None = None
    value: float = 0.0
    scope: str | None = None
    child_id: str | None = None
    child_name: str | None = None
    child_kind: str | None = None

    def describe(self) -> str:
        """A readable form (``'the warband has at least 1 Edogawa'``)."""
        if self.op != "atom":
            joined = f" {self.op} ".join(i.describe() for i in self.items)
            return f"({joined})" if len(self.items) > 1 else joined
        what = self.child_name or self.child_id or "?"
        n = int(self.value) if float(self.value).is_integer() else self.value
        if self.type in ("instanceOf", "notInstanceOf"):
            neg = "not " if self.type == "notInstanceOf" else ""
            subject = "the warband's catalogue" if self.scope == "primary-catalogue" else f"the {self.scope}"
            return f"{subject} is {neg}{what}"
        words = {"atLeast": "at least", "lessThan": "fewer than", "greaterThan": "more than",
                 "atMost": "at most", "equalTo": "exactly", "notEqualTo": "not exactly"}
        return f"the {self.scope} has {words.get(self.type, self.type)} {n} {what}"


@dataclass(frozen=True)
class CatalogueProfile:
    """One model profile read from the data: the project's :class:`Profile` plus the
    fields ``bushido-profiles/1`` cannot hold.

    ``profile`` follows :class:`models.profiles.Profile`; where the card prints a
    variable or special value its stat is None (``melee``/``ki`` ``X``, ``ki_limit``
    ``*`` or ``∞``, ``wounds`` ``Special``/``Kami``, ``move`` ``X``); a printed ``-``
    counts as zero (rulebook p.11) and a ``-`` Ranged Pool is None (no ranged pool).

    Attributes:
        profile: the project profile (``faction`` is ``"Ronin"`` for Ronin cards).
        card_id, card: the card (top selection entry) this model is on; ``card_key``
            is the card's unique :attr:`Card.key`.
        catalogue, source: catalogue name and file the card comes from.
        factions: factions that may recruit it (its faction, or the factions whose
            catalogues link a Ronin card; rulebook p.19 a).
        ronin: a Ronin profile (rulebook p.19).
        boosts: Ki cost to boost ``melee``/``ranged``/``move``/``ki`` by 1 (None: no boost).
        wound_tracks: wound tracks on the card: how many models the card allows (p.12).
        max_copies: how many models of this profile a warband may recruit.
        recruitable: False for Su/Sp models (summoned or special; p.12) the catalogue
            never allows in a warband.
        ki_feats: the Ki feats, with cost, timing and area.
        unique_effects: unique effects as text.
        weapon_effects: ``(weapon name, unique effect text)`` of the weapons.
        categories: every category name of the entry (types, card kind, faction...).
        printed: the Character Profile's characteristics as printed.
        unparsed: ``(field, text)`` of what could not be parsed (also in the issues).
        entry_ids: selection entry and link ids that denote this model in a roster.
    """

    profile: Profile
    card_id: str
    card: str
    catalogue: str
    source: str
    factions: tuple[str, ...]
    ronin: bool
    boosts: Mapping[str, int | None]
    wound_tracks: int
    max_copies: int | None
    recruitable: bool
    ki_feats: tuple[KiFeat, ...]
    unique_effects: tuple[UniqueEffect, ...]
    weapon_effects: tuple[tuple[str, str], ...]
    categories: tuple[str, ...]
    printed: Mapping[str, str]
    unparsed: tuple[tuple[str, str], ...]
    entry_ids: tuple[str, ...]
    element_id: str = ""
    card_key: str = ""

    @property
    def name(self) -> str:
        """The model's name as printed."""
        return self.profile.name

    @property
    def marker(self) -> str | None:
        """``"Su/Sp"`` for models that cannot be recruited (the data do not say which of
        the two), else None."""
        return None if self.recruitable else "Su/Sp"

    def yaml_problems(self) -> list[str]:
        """Why this profile cannot be written as ``bushido-profiles/1`` (empty if it can):
        that format needs whole-number Melee, Move, Ki, Ki limit, wounds >= 1, a base in
        30/40/50/60 mm and a Size."""
        p = self.profile
        bad = []
        for name in ("melee", "move", "ki", "ki_limit"):
            if getattr(p, name) is None:
                bad.append(f"{name} is {quote(self.printed.get(_PRINTED_KEY[name], '') or 'empty', 60)}")
        if p.wounds is None:
            bad.append(f"wounds is {quote(self.printed.get('Wounds', '') or 'empty', 60)}")
        if p.base not in _BASES or p.size not in _SIZES:
            bad.append(f"Size & Base is {quote(self.printed.get('Size & Base', '') or 'empty', 60)}")
        return bad


_PRINTED_KEY = {"melee": "Melee Pool", "move": "Move", "ki": "Ki", "ki_limit": "Ki Cap"}


@dataclass(frozen=True)
class Card:
    """A card: a profile card or a special card (rulebook p.18-19).

    Attributes:
        id: the selection entry id (what a roster's ``entryId`` names).
        name: as printed.
        kind: ``profile``, ``enhancement``, ``event``, ``terrain``, ``theme`` or ``other``.
        category: the primary category (``Faction Event Cards``, ``Ronin Theme Cards``).
        catalogue, source: catalogue name and file.
        ronin: a Ronin card (usable by the factions in ``factions``).
        factions: factions that may take it (rulebook p.18 item 2).
        rice: rice cost (None if the data give none).
        max_copies: ``Max (X)``: how many times a warband may take it (1 by default;
            None: no limit in the data).
        equipment: an Equipment enhancement (one per model).
        required, excluded, permitted: the bracketed lists of ``Required``/
            ``Requirement``/``Restriction``, ``Exclusion`` and ``Permitted`` as printed.
        required_categories: types an enhancement needs, from the catalogue's own
            conditions (any of them).
        excluded_categories: types an enhancement may not be attached to (data).
        trap: the card has the Trap property.
        text: the card's rules text.
        terrain: for terrain cards, what the piece is.
        feat: the Ki feat a card grants, if any.
        weapons: the weapons a card grants.
        profiles: ids of the profiles on a profile card.
        wound_tracks: for profile cards, the models the card allows.
        hidden_when: conditions under which the catalogue hides the card (it may not
            be taken then).
        unlocked_by: for cards the catalogue allows only conditionally (max 0 unless
            ...): the conditions that allow them.
        allows: keys of cards this card allows to be recruited (p.19).
        entry_ids: entry and link ids that denote the card in a roster.
        categories: every category name of the entry.
        key: ``<catalogue id>:<entry id>``, unique (the same entry id can occur in
            several catalogues, e.g. a shared event).
    """

    id: str
    name: str
    kind: str
    category: str | None
    catalogue: str
    source: str
    ronin: bool
    factions: tuple[str, ...]
    rice: int | None
    max_copies: int | None
    equipment: bool = False
    required: tuple[str, ...] = ()
    excluded: tuple[str, ...] = ()
    permitted: tuple[str, ...] = ()
    required_categories: tuple[str, ...] = ()
    excluded_categories: tuple[str, ...] = ()
    trap: bool = False
    text: str = ""
    terrain: TerrainStats | None = None
    feat: KiFeat | None = None
    weapons: tuple[Weapon, ...] = ()
    profiles: tuple[str, ...] = ()
    wound_tracks: int = 0
    hidden_when: tuple[Condition, ...] = ()
    unlocked_by: tuple[Condition, ...] = ()
    allows: tuple[str, ...] = ()
    entry_ids: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()
    key: str = ""

    @property
    def recruitable(self) -> bool:
        """False when the catalogue never allows the card (max 0 and nothing unlocks it)."""
        return not (self.max_copies == 0 and not self.unlocked_by)


@dataclass(frozen=True)
class CatalogueInfo:
    """A file of the import: ``kind`` ``gameSystem`` or ``catalogue``; ``library`` for
    library catalogues (Ronin, traits, feats ...); ``links``: ids of linked catalogues."""

    id: str
    name: str
    file: str
    kind: str
    library: bool
    revision: str | None
    links: tuple[str, ...] = ()


@dataclass(frozen=True)
class ImportStats:
    """Counts of one import. ``fields`` counts every characteristic value, trait, weapon
    trait, special and Ki feat field the importer parsed; ``unparsed`` those kept as text
    only, ``repaired`` those read after fixing a typo, ``missing`` empty ones."""

    catalogues: int
    profiles: int
    traits: int
    weapons: int
    feats: int
    cards: int
    fields: int
    unparsed: int
    repaired: int
    missing: int

    @property
    def unparsed_fraction(self) -> float:
        """``unparsed / fields`` (0 when nothing was read)."""
        return self.unparsed / self.fields if self.fields else 0.0


# --- text helpers -------------------------------------------------------------------------

_TRANSLATE = str.maketrans({
    "\xa0": " ", "\t": " ", "\u201c": '"', "\u201d": '"', "\u2033": '"', "\u201e": '"',
    "\u2018": "'", "\u2019": "'", "\u2032": "'", "ꝏ": "∞",
})


def clean(text: str | None) -> str:
    """Whitespace collapsed, non-breaking spaces and curly quotes made plain."""
    return " ".join((text or "").translate(_TRANSLATE).split())


def slug(text: str) -> str:
    """A lower-case id: accents dropped, runs of other characters as ``-``
    (``"Shōgo-Ryu"`` -> ``"shogo-ryu"``)."""
    s = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()
    s = re.sub(r"[^a-z0-9]+", "-", s).strip("-")
    return s or "x"


def _split_top(text: str) -> list[str]:
    """Split at commas outside brackets; stray closing brackets do not go negative."""
    items, depth, cur = [], 0, []
    for ch in text:
        if ch in "[(":
            depth += 1
        elif ch in "])":
            depth = max(0, depth - 1)
        if ch == "," and depth == 0:
            items.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    items.append("".join(cur))
    return [i.strip() for i in items if i.strip()]


class _Exhausted(Exception):
    """A bounded search ran out of budget (the importer names the file and entry)."""


class _Vocabulary:
    """Trait and rule names known from the data (``Library-Traits``), used to repair
    typos (``Fearl`` -> ``Fear``) and missing commas (``Bravery Prowess``)."""

    def __init__(self, names: Iterable[str], budget: int | None = None):
        #: Most name comparisons (known names tried for close matches) allowed, or None.
        self.budget = budget
        self.spent = 0
        self.names: dict[str, str] = {}
        for n in names:
            n = clean(n)
            if n:
                self.names.setdefault(self._key(n), n)
        self._keys = list(self.names)
        #: The longest key: a known name never has more words than this.
        self.longest = max(map(len, self._keys), default=0)

    @staticmethod
    def _key(name: str) -> str:
        return re.sub(r"[\s\-_!']+", "", name.lower())

    def canonical(self, name: str) -> str | None:
        """The known name ``name`` stands for, or None (exact up to case/spaces/hyphens,
        an alias, or a close match)."""
        k = self._key(name)
        if k in self.names:
            return self.names[k]
        alias = _TRAIT_ALIASES.get(" ".join(name.lower().split()))
        if alias:
            return alias
        if len(k) >= 4:
            self.spent += len(self._keys)
            if self.budget is not None and self.spent > self.budget:
                raise _Exhausted(f"more than {self.budget} comparisons with the {len(self._keys)} known rule "
                                 "names to repair unknown trait names")
            close = difflib.get_close_matches(k, self._keys, n=1, cutoff=0.86)
            if close:
                return self.names[close[0]]
        return None

    def __contains__(self, name: str) -> bool:
        return self._key(name) in self.names


# --- traits -----------------------------------------------------------------------------------


def canonical_trait_text(name: str, qualifier: str | None, value: str | None) -> str:
    """``Name [Qualifier] (value)`` with the optional parts left out."""
    text = name
    if qualifier is not None:
        text += f" [{qualifier}]"
    if value is not None:
        text += f" ({value})"
    return text


def _keyword(name: str) -> str:
    kw = re.sub(r"[^a-z0-9_\-']", "", name.lower().replace(" ", "_"))
    kw = re.sub(r"_+", "_", kw).strip("_-'")
    if not kw or not kw[0].isalpha():
        kw = "t" + kw
    return kw


_DIGITLIKE = str.maketrans({"l": "1", "I": "1", "O": "0", "o": "0"})


def _number(text: str | None, limit: float, kind: type = float) -> int | float | None:
    """``kind(text)`` for a printed number (digits, a sign, a decimal point) whose size
    is at most ``limit``; None for anything else (a huge, infinite or NaN value, words)."""
    t = (text or "").replace(" ", "")
    if not re.fullmatch(r"[+-]?\d{1,9}(\.\d{1,9})?" if kind is float else r"[+-]?\d{1,9}", t):
        return None
    v = kind(t)
    return v if abs(v) <= limit else None


#: Largest number read from an XML attribute (costs, constraint and condition values).
MAX_ATTRIBUTE_NUMBER = 1_000_000


def _attribute_number(text: str | None, default=None):
    """``float(text)`` for an attribute value that is a finite number of size at most
    :data:`MAX_ATTRIBUTE_NUMBER`; ``default`` otherwise (missing, words, inf, NaN, 1e400)."""
    try:
        v = float(text)
    except (TypeError, ValueError):
        return default
    return v if math.isfinite(v) and abs(v) <= MAX_ATTRIBUTE_NUMBER else default


def _parse_value(val: str) -> tuple[int | None, float | None, str | None, bool, str]:
    """``(value, range, qualifier, ok, canonical)`` of the text inside round brackets
    (values within +-MAX_STAT, ranges within MAX_DISTANCE inches, else not ok)."""
    v = clean(val)
    if re.fullmatch(r"[+-]?\s*\d+", v):
        n = _number(v, MAX_STAT, int)
        return n, None, None, n is not None, v.replace(" ", "")
    m = re.fullmatch(r"([+-]?\d+)\s*[/,]\s*(\d+(?:\.\d+)?)\s*(\")?", v)
    if m:
        canon = f"{m[1]}/{m[2]}" + ('"' if m[3] else "")
        n, r = _number(m[1], MAX_STAT, int), _number(m[2], MAX_DISTANCE)
        return n, (r if m[3] else None), None, n is not None and r is not None, canon
    m = re.fullmatch(r"(\d+(?:\.\d+)?)\s*\"", v)
    if m:
        r = _number(m[1], MAX_DISTANCE)
        return None, r, None, r is not None, f'{m[1]}"'
    if re.fullmatch(r"[+-]?\s*X(\s*[+-]\s*\d+)?|\d+\s*\+\s*X|X\s*/\s*\d+\"?|\d+\s*/\s*X\"?", v, re.I):
        return None, None, None, True, v
    m = re.fullmatch(r"([+-]?\d+)\s*/\s*BtB", v, re.I)
    if m:
        n = _number(m[1], MAX_STAT, int)
        return n, None, None, n is not None, f"{m[1]}/BtB"
    if v.lower() in ("btb",):
        return None, None, None, True, "BtB"
    if v and not re.search(r"[\d\"]", v) and v.upper() != "X":
        return None, None, v, True, v  # words in round brackets: a qualifier
    return None, None, None, False, v


@dataclass
class _TraitParse:
    trait: Trait
    ok: bool
    repaired: list[str]


def _parse_item(item: str, vocab: _Vocabulary) -> _TraitParse:
    """Parse one ``Name [Qualifier]:(value)`` item."""
    repaired: list[str] = []
    s = clean(item)
    # the name: up to the first bracket or colon
    m = re.match(r"([^\[\(:]*)", s)
    name = m[1].strip()
    rest = s[m.end():]
    qualifier = None
    value_text = None
    ok = True
    if rest.startswith("["):
        depth, end = 0, None
        for i, ch in enumerate(rest):
            if ch in "[(":
                depth += 1
            elif ch in "])":
                depth -= 1
                if depth == 0:
                    end = i
                    break
        if end is None:
            end = len(rest)
            repaired.append("closed an unclosed '['")
        qualifier = clean(rest[1:end])
        if end < len(rest) and rest[end] == ")":
            repaired.append("']' printed as ')'")
        rest = rest[end + 1:].strip()
    if rest.startswith(":"):
        rest = rest[1:].strip()
    if rest.startswith("("):
        close = rest.find(")")
        if close < 0:
            inner = rest[1:]
            repaired.append("closed an unclosed '('")
            rest = ""
        else:
            inner = rest[1:close]
            rest = rest[close + 1:].strip()
        inner = inner.strip()
        if inner.endswith("]"):
            inner = inner[:-1]
            repaired.append("dropped a stray ']'")
        m2 = re.fullmatch(r"(.*\")\s*\d*", inner)
        if m2 and m2[1] != inner:
            inner = m2[1]
            repaired.append("dropped characters after '\"'")
        value_text = inner
    if rest:
        stray = rest.strip("])}.")
        if stray:
            ok = False
        else:
            repaired.append(f"dropped a stray {rest!r}")
    value = rng = None
    if value_text is not None:
        if re.fullmatch(r"[+-]?[lIOo]", value_text.strip()):
            fixed = value_text.strip().translate(_DIGITLIKE)
            repaired.append(f"read {value_text.strip()!r} as {fixed!r}")
            value_text = fixed
        value, rng, q2, vok, canon = _parse_value(value_text)
        if vok and q2 is not None and qualifier is None:
            qualifier, value_text = q2, None
        elif vok:
            value_text = canon
        else:
            ok = False
    if not name or re.search(r"[^A-Za-z0-9 '\-!&.ōūŌŪ]", name):
        ok = False
    canon_name = name
    if ok and name and name not in vocab:
        known = vocab.canonical(name)
        if known is not None:
            repaired.append(f"read {name!r} as {known!r}")
            canon_name = known
    if qualifier is not None:
        qualifier = ", ".join(clean(q) for q in qualifier.split(",") if q.strip()) or qualifier
    text = canonical_trait_text(canon_name, qualifier, value_text) if ok else s
    kw_source = canon_name if ok else (re.match(r"[A-Za-z][A-Za-z '\-]*", s) or [s])[0].strip()
    trait = Trait(_keyword(kw_source), value, qualifier.lower() if qualifier else None, text, rng)
    return _TraitParse(trait, ok, repaired)


def _presplit(text: str) -> tuple[str, list[str]]:
    """Insert the commas the data forget (``Armour (2) Cloudwalk``, ``(1). Last``)."""
    notes = []
    fixed = re.sub(r"([\)\]])\s*\.?\s+(?=[A-Z])", r"\1, ", text)
    fixed = re.sub(r"(?<=[a-z]),(?=[A-Z])", ", ", fixed)
    if fixed.replace(", ", ",").replace(" ", "") != text.replace(", ", ",").replace(" ", ""):
        notes.append("inserted missing commas")
    return fixed, notes


def _split_words(item: str, vocab: _Vocabulary) -> list[str]:
    """``Bravery Prowess [Melee]:(1)`` -> ``["Bravery", "Prowess [Melee]:(1)"]`` when the
    words before the brackets are two known names run together."""
    m = re.match(r"([^\[\(:]*)(.*)", item)
    words, tail = m[1].split(), m[2]
    if len(words) < 2 or " ".join(words) in vocab or vocab.canonical(" ".join(words)):
        return [item]
    if len(words) > 2 * vocab.longest:  # no split can give two known names (each has a word per character at most)
        return [item]
    for i in range(1, len(words)):
        head, rest = " ".join(words[:i]), " ".join(words[i:])
        if head in vocab and (rest in vocab or (tail and rest in vocab)):
            return [head, (rest + tail).strip()]
    return [item]


def parse_trait(text: str, vocab: Iterable[str] | None = None) -> Trait:
    """Parse one printed trait (``Leadership [Ashigaru]:(1/6")``) into a
    :class:`Trait`: keyword ``leadership``, qualifier ``ashigaru``, value 1, range 6.0
    inches, text ``Leadership [Ashigaru] (1/6")``. ``vocab``: known trait names used to
    repair typos. Raises ValueError if the text cannot be parsed."""
    res = _parse_item(text, _Vocabulary(vocab or ()))
    if not res.ok:
        raise ValueError(f"cannot parse trait {text!r}")
    return res.trait


def parse_traits(text: str, vocab: Iterable[str] | None = None) -> list[Trait]:
    """Parse a printed, comma-separated trait list (missing commas repaired). Items that
    cannot be parsed are returned as best-effort traits whose ``text`` is the item as
    printed; use :func:`load_catalogues` to have them reported."""
    v = _Vocabulary(vocab or ())
    return [t for t, _ok, _rep, _raw in _parse_list(text, v)]


def _parse_list(text: str, vocab: _Vocabulary) -> list[tuple[Trait, bool, list[str], str]]:
    fixed, notes = _presplit(clean(text))
    out = []
    for raw in _split_top(fixed):
        parts = _split_words(raw, vocab)
        extra = ["split two names run together"] if len(parts) > 1 else []
        for part in parts:
            res = _parse_item(part, vocab)
            out.append((res.trait, res.ok, notes + extra + res.repaired, part))
            notes = []
    return out


# --- characteristics --------------------------------------------------------------------------


def _stat(text: str) -> tuple[str, int | None]:
    """``("int"|"variable"|"dash"|"special"|"unlimited"|"empty"|"bad", value)``."""
    t = clean(text)
    if not t:
        return "empty", None
    if re.fullmatch(r"[+-]?\d+", t):
        n = _number(t, MAX_STAT, int)
        return ("int", n) if n is not None else ("bad", None)
    if re.fullmatch(r"[Xx](\s*[+-]\s*\d+)?|[+-]?\s*[Xx]", t):
        return "variable", None
    if t in ("-", "–", "—"):
        return "dash", None
    if t == "*":
        return "special", None
    if t in ("∞",):
        return "unlimited", None
    return "bad", None


def _wounds(text: str) -> tuple[str, int | None, str | None]:
    """``(status, wounds, note)`` of ``6 OOOOO O`` / ``OOO`` / ``Special``."""
    t = clean(text)
    if not t:
        return "empty", None, None
    m = re.fullmatch(r"(\d+)\s*([O0o\s]*)", t)
    if m:
        n = _number(m[1], MAX_STAT, int)
        if not n:
            return "bad", None, None
        boxes = len(re.sub(r"\s", "", m[2]))
        note = f"{n} printed but {boxes} boxes drawn; {n} used" if boxes and boxes != n else None
        return "int", n, note
    if re.fullmatch(r"[Oo\s]+", t):
        n = len(t.replace(" ", ""))
        return ("int", n, None) if n <= MAX_STAT else ("bad", None, None)
    if t.lower() in ("special", "kami", "x"):
        return "special", None, None
    return "bad", None, None


def _size_base(text: str) -> tuple[str, str | None, int | None, str | None]:
    """``(status, size, base_mm, note)`` of ``Small 30mm`` (also ``30mm Small``)."""
    t = clean(text)
    if not t:
        return "empty", None, None, None
    note = None
    squashed = re.sub(r"(\d)\s+(\d)", r"\1\2", t)
    if squashed != t:
        note = "spaces inside the base size removed"
    # (?<!\d): a match starts where a number starts (the same matches, in linear time)
    m = re.search(r"(?<!\d)(\d+)\s*mm", squashed, re.I)
    words = re.sub(r"(?<!\d)\d+\s*mm", " ", squashed, flags=re.I).split()
    base = _number(m[1], MAX_BASE_MM, int) if m else None
    if not base or len(words) != 1:
        return "bad", None, None, None
    word = words[0].lower()
    size = word if word in _SIZES else None
    if size is None:
        close = difflib.get_close_matches(word, _SIZES, n=1, cutoff=0.75)
        if not close:
            return "bad", None, None, None
        size = close[0]
        note = f"read {words[0]!r} as {size!r}"
    if not t.lower().startswith(words[0].lower()) and note is None:
        note = "size printed after the base"
    return "int", size, base, note


def _strength(text: str) -> tuple[str, int | None]:
    t = clean(text)
    if not t:
        return "empty", None
    if re.fullmatch(r"[+-]?\d+", t):
        n = _number(t, MAX_STAT, int)
        return ("int", n) if n is not None else ("bad", None)
    if t.lower() in ("special", "sp") or re.fullmatch(r"[+-]?\s*X(\s*[+-]\s*\d+)?", t, re.I):
        return "variable", None
    return "bad", None


def _range_bands(text: str) -> tuple[str, dict[str, tuple[float, float]], str | None]:
    """``a/b/c`` (``-`` = no band) -> ``{band: (from, to)}`` in inches; a band starts
    where the previous printed one ends (0 for the first)."""
    t = clean(text).replace(" ", "")
    note = None
    if re.fullmatch(r"-/\d+-", t):  # '-/4-' printed for '-/4/-'
        t = t[:-1] + "/-"
        note = "read as " + t
    parts = t.split("/")
    if len(parts) != 3 or not all(re.fullmatch(r"-|\d+(\.\d+)?", p) for p in parts):
        return "bad", {}, None
    out: dict[str, tuple[float, float]] = {}
    start = 0.0
    for band, p in zip(("short", "medium", "long"), parts):
        if p != "-":
            end = _number(p, MAX_DISTANCE)
            if end is None or end < start:
                return "bad", {}, None
            out[band] = (start, end)
            start = end
    if not out:
        return "bad", {}, None
    return "int", out, note


def _feat_subject(text: str) -> tuple[str | None, float | None, str | None, bool, bool]:
    """``(area, range, range_text, opposed, ok)`` of a Subject such as
    ``Target 8", Opp. Ki`` or ``Pulse 3"``."""
    t = clean(text)
    if not t:
        return None, None, None, False, True
    opposed = bool(re.search(r"opp", t, re.I))
    core = re.sub(r",?\s*opp(osed)?\.?\s*(ki)?", "", t, flags=re.I).strip(" ,")
    m = re.match(r"([A-Za-z]+)\s*(.*)", core)
    if not m:
        return None, None, None, opposed, False
    word = m[1].lower()
    area = word if word in _AREAS else None
    if area is None:
        close = difflib.get_close_matches(word, _AREAS, n=1, cutoff=0.7)
        if not close:
            return None, None, None, opposed, False
        area = close[0]
    rest = m[2].strip()
    if not rest:
        return area, None, None, opposed, True
    r = re.fullmatch(r"(\d+(?:\.\d+)?)\s*\"?", rest)
    if r:
        dist = _number(r[1], MAX_DISTANCE)
        return area, dist, f'{r[1]}"', opposed, dist is not None
    if re.fullmatch(r"(BtB|∞\"?|X\"?|X\+\d+\"?|\d+\+X\"?|\[LoS\]|Special)", rest, re.I):
        return area, None, rest, opposed, True
    return area, None, rest, opposed, False


# --- XML --------------------------------------------------------------------------------------

# Bounds on what the importer reads (docs/bounds.md, "Catalogues and rosters"). The real
# Bushido data (23 files, 8.1 MB): largest file 855 KB, at most 13 231 '<' in a file and
# 130 000 in all, elements nested at most 15 deep, entry links at most 3 deep.

#: Largest XML document read, in bytes (a plain file, or a zip member once inflated).
MAX_XML_BYTES = 32 * 1024 * 1024
#: Most markup characters ``<`` in one document (bounds the elements, hence the memory).
MAX_XML_MARKUP = 500_000
#: Deepest element nesting in one document.
MAX_XML_DEPTH = 64
#: Most members in a zipped file (``.gstz``/``.catz``/``.rosz`` hold one).
MAX_ZIP_MEMBERS = 16
#: Most files in one import, their total size (bytes) and total markup characters.
MAX_IMPORT_FILES = 200
MAX_IMPORT_BYTES = 64 * 1024 * 1024
MAX_IMPORT_MARKUP = 1_000_000
#: Deepest chain of entry / info links followed, and the most entries an import visits
#: through links (a chain of links that doubles at each step would otherwise never end).
MAX_LINK_DEPTH = 32
MAX_LINK_VISITS = 200_000
#: Longest characteristic text (the longest real one, a card's Description, has 1 199
#: characters; a Traits list 217) and the most fields (characteristics, traits, Ki feat
#: fields) parsed in one import (19 523 in the real data).
MAX_FIELD_CHARS = 4000
MAX_PARSED_FIELDS = 200_000
#: Most comparisons of unknown trait names with the known rule names (close matches
#: repair typos) in one import: 9 567 in the real data.
MAX_NAME_COMPARISONS = 1_000_000

#: Encodings an XML declaration may name (Python codec names after ``codecs.lookup``).
#: BattleScribe and NewRecruit write UTF-8.
_XML_ENCODINGS = frozenset(
    ["utf-8", "utf-16", "utf-16-le", "utf-16-be", "utf-32", "utf-32-le", "utf-32-be", "ascii"]
    + [f"iso8859-{i}" for i in range(1, 17) if i != 12]
    + [f"cp125{i}" for i in range(9)]
)
_BOMS = ((b"\x00\x00\xfe\xff", "utf-32-be"), (b"\xff\xfe\x00\x00", "utf-32-le"), (b"\xef\xbb\xbf", "utf-8-sig"),
         (b"\xfe\xff", "utf-16-be"), (b"\xff\xfe", "utf-16-le"))
_DECLARED = re.compile(rb"""<\?xml[^>]{0,200}?\sencoding\s*=\s*["']([^"']{0,60})["']""")
#: Characters XML 1.0 never allows (also not as character references).
_NOT_XML_CHAR = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")
_FILE_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
               (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
               (stat.S_ISSOCK, "a socket"))


def read_file_bytes(path: str | Path, max_bytes: int = MAX_XML_BYTES) -> bytes:
    """The bytes of a regular file of at most ``max_bytes`` bytes.

    The file is checked with ``stat`` before it is opened, so a FIFO, a device or a
    directory given as a file is refused at once (never read, never waited on); it is
    then opened without blocking, checked again, and read in chunks up to
    ``max_bytes + 1`` bytes (a file that grows while read is refused too).

    Raises:
        CatalogueError: ``"<file>: <problem>"``: missing or unreadable, not a regular
            file, larger than ``max_bytes``.
    """
    path = Path(path)

    def check(st) -> None:
        for test, kind in _FILE_KINDS:
            if test(st.st_mode):
                raise CatalogueError(f"{path}: cannot read: {kind}, not a regular file (nothing was read)")
        if not stat.S_ISREG(st.st_mode):
            raise CatalogueError(f"{path}: not a regular file")
        if st.st_size > max_bytes:
            raise CatalogueError(f"{path}: file is {st.st_size} bytes; the limit is {max_bytes} bytes")

    try:
        check(os.stat(path))
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except OSError as exc:
        raise CatalogueError(f"{path}: cannot read file: {exc.strerror or exc}") from None
    try:
        check(os.fstat(fd))  # the file opened is the file checked
        chunks, size = [], 0
        while size <= max_bytes:
            chunk = os.read(fd, min(1 << 20, max_bytes + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as exc:
        raise CatalogueError(f"{path}: cannot read file: {exc.strerror or exc}") from None
    finally:
        os.close(fd)
    if size > max_bytes:
        raise CatalogueError(f"{path}: file grew past the limit of {max_bytes} bytes while read")
    return b"".join(chunks)


def _unzip(path: Path, data: bytes, max_bytes: int) -> bytes:
    """The XML member of a zipped file (``.gstz``/``.catz``/``.rosz``), inflated in
    chunks and never past ``max_bytes``."""
    if data.count(b"PK\x01\x02") > MAX_ZIP_MEMBERS:  # before zipfile lists them all
        raise CatalogueError(f"{path}: zip file holds more than {MAX_ZIP_MEMBERS} files")
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            infos = [i for i in zf.infolist() if not i.is_dir()]
            if len(infos) > MAX_ZIP_MEMBERS:
                raise CatalogueError(f"{path}: zip file holds more than {MAX_ZIP_MEMBERS} files")
            xmls = [i for i in infos if i.filename.lower().endswith((".ros", ".cat", ".gst", ".xml"))] or infos
            if not xmls:
                raise CatalogueError(f"{path}: zip file holds no roster or catalogue")
            info = xmls[0]
            where = f"{path}: member {quote(info.filename)}"
            if info.flag_bits & 0x1:
                raise CatalogueError(f"{where}: encrypted (password-protected zip files are not supported)")
            if info.file_size > max_bytes:
                raise CatalogueError(f"{where}: inflates to {info.file_size} bytes; the limit is {max_bytes} bytes")
            chunks, size = [], 0
            with zf.open(info) as fh:
                while size <= max_bytes:
                    chunk = fh.read(min(1 << 20, max_bytes + 1 - size))
                    if not chunk:
                        break
                    chunks.append(chunk)
                    size += len(chunk)
            if size > max_bytes:
                raise CatalogueError(f"{where}: inflates to more than the limit of {max_bytes} bytes")
            return b"".join(chunks)
    except CatalogueError:
        raise
    except NotImplementedError as exc:  # a compression method zipfile does not know
        raise CatalogueError(f"{path}: unsupported zip file: {exc}") from None
    except (zipfile.BadZipFile, zlib.error, EOFError, ValueError, OSError) as exc:
        raise CatalogueError(f"{path}: broken zip file: {' '.join(str(exc).split())}") from None


def _position(data: bytes, offset: int) -> str:
    """``"line L, column C"`` of the byte at ``offset`` (columns count bytes)."""
    line = data.count(b"\n", 0, offset) + 1
    column = offset - (data.rfind(b"\n", 0, offset) + 1) + 1
    return f"line {line}, column {column}"


def _decode(path: Path, data: bytes) -> str:
    """The text of an XML document: the encoding from its byte order mark, else from its
    XML declaration (only the encodings of ``_XML_ENCODINGS``), else UTF-8."""
    enc = next((e for bom, e in _BOMS if data.startswith(bom)), None)
    m = None
    if enc is None:
        if data.startswith(b"<\x00?\x00"):
            enc = "utf-16-le"
        elif data.startswith(b"\x00<\x00?"):
            enc = "utf-16-be"
        else:
            m = _DECLARED.match(data)
            declared = m.group(1).decode("ascii", "replace") if m else "utf-8"
            try:
                enc = codecs.lookup(declared).name
            except (LookupError, ValueError):
                raise CatalogueError(f"{path}: unknown XML encoding {quote(declared)}") from None
            if enc not in _XML_ENCODINGS:
                raise CatalogueError(f"{path}: unsupported XML encoding {quote(declared)} "
                                     "(UTF-8, UTF-16, US-ASCII, ISO-8859-x and windows-125x are read)")
    if enc.startswith(("utf-16", "utf-32")) and m is not None:
        raise CatalogueError(f"{path}: declares encoding {quote(declared)} but is not {enc} text")
    nul = data.find(b"\x00", 0, 1024)
    if nul >= 0 and not enc.startswith(("utf-16", "utf-32")):
        raise CatalogueError(f"{path}: a binary file, not XML (NUL byte at {_position(data, nul)})")
    try:
        text = data.decode(enc)
    except UnicodeDecodeError as exc:
        where = _position(data, exc.start) if enc in ("utf-8", "utf-8-sig") else f"byte offset {exc.start}"
        raise CatalogueError(f"{path}: not {enc.removesuffix('-sig').upper()} text: byte 0x{data[exc.start]:02x} "
                             f"at {where}") from None
    return text


def _check_text(path: Path, text: str, max_markup: int) -> int:
    """Refuse a DTD (and with it every entity declaration); count the markup. Returns
    the number of ``<``."""
    if "<!DOCTYPE" in text or "<!ENTITY" in text:
        raise CatalogueError(f"{path}: DTD or entity declarations are not allowed")
    markup = text.count("<")
    if markup > max_markup:
        raise CatalogueError(f"{path}: {markup} markup characters '<'; the limit is {max_markup}")
    return markup


def _read_document(path: Path, expect: Iterable[str] | None, max_bytes: int) -> tuple[ET.Element, int, int]:
    """``(root, bytes read, markup characters)`` of a BattleScribe XML file."""
    data = read_file_bytes(path, max_bytes)
    if data[:4] == b"PK\x03\x04":
        data = _unzip(path, data, max_bytes)
    nbytes = len(data)
    text = _decode(path, data)
    del data
    markup = _check_text(path, text, MAX_XML_MARKUP)
    # A str is parsed as UTF-8 whatever the declaration says: the parser reads exactly
    # the text checked above (no DTD, no entity, no other encoding).
    try:
        root = ET.fromstring(text)
    except ET.ParseError as exc:
        bad = _NOT_XML_CHAR.search(text)  # expat says "invalid token": say which character
        if bad is not None:
            at = bad.start()
            line, col = text.count("\n", 0, at) + 1, at - (text.rfind("\n", 0, at) + 1) + 1
            raise CatalogueError(f"{path}: control character U+{ord(bad.group()):04X} at line {line}, "
                                 f"column {col} (not allowed in XML)") from None
        raise CatalogueError(f"{path}: XML syntax error: {exc}") from None
    del text
    level, depth = [root], 1
    while level:  # level by level: strip namespaces, bound the depth (the importer recurses along it)
        for el in level:
            tag = el.tag
            if tag[:1] == "{":
                el.tag = tag.split("}", 1)[1]
        level = [ch for el in level for ch in el]
        depth += 1
        if level and depth > MAX_XML_DEPTH:
            label = next((x for el in level for x in (el.get("name"), el.get("id")) if x), None)
            raise CatalogueError(f"{path}: elements nested more than {MAX_XML_DEPTH} deep "
                                 f"(at <{level[0].tag.rpartition('}')[2]}>{' ' + quote(label) if label else ''})")
    if expect is not None and root.tag not in tuple(expect):
        raise CatalogueError(
            f"{path}: not a BattleScribe {' or '.join(expect)} file (root element <{root.tag}>)"
        )
    return root, nbytes, markup


def read_xml(path: str | Path, expect: Iterable[str] | None = None, *, max_bytes: int = MAX_XML_BYTES) -> ET.Element:
    """Read a BattleScribe XML file (``.gst``/``.cat``/``.ros``, or zipped ``.gstz``/
    ``.catz``/``.rosz``) and return its root with namespaces stripped from tags.

    ``expect``: allowed root tags (``gameSystem``, ``catalogue``, ``roster``).
    ``max_bytes``: the largest document read (the file, and its zip member inflated).

    Bounds (docs/bounds.md): :data:`MAX_XML_BYTES`, :data:`MAX_XML_MARKUP`,
    :data:`MAX_XML_DEPTH`, :data:`MAX_ZIP_MEMBERS`. The file must be a regular file (a
    FIFO or device is refused without being opened).

    Raises:
        CatalogueError: ``"<file>: <problem>"`` on one line: unreadable or not a regular
            file, too large (a zip member is refused from its declared size, and
            inflated never past the limit), a broken, encrypted or crowded zip, an
            unknown or unsupported encoding, bytes that are not text in the encoding
            (line and column), characters XML does not allow, a DTD or entity
            declaration (refused: they are never needed and can be abused), too much
            markup or nesting, an XML syntax error (line and column), an unexpected root.
    """
    return _read_document(Path(path), expect, max_bytes)[0]


class _File:
    __slots__ = ("path", "root", "kind", "id", "name", "library", "revision", "ids", "scope",
                 "links", "game_system_id", "own_categories", "rule_names")

    def __init__(self, path: Path, root: ET.Element):
        self.path = path
        self.root = root
        self.kind = root.tag
        self.id = root.get("id") or ""
        self.name = clean(root.get("name")) or path.stem
        self.library = root.get("library") == "true"
        self.revision = root.get("revision")
        self.game_system_id = root.get("gameSystemId")
        self.ids: dict[str, ET.Element] = {}
        self.scope: list[_File] = []
        self.links = [(l.get("targetId"), clean(l.get("name")))
                      for l in root.iterfind("catalogueLinks/catalogueLink")]
        self.own_categories = {c.get("id"): clean(c.get("name")) for c in root.iterfind("categoryEntries/categoryEntry")}
        self.rule_names = set()
        for p in root.iter("profile"):
            for c in p.iter("characteristic"):
                if c.text is not None and len(c.text) > MAX_FIELD_CHARS:
                    raise CatalogueError(
                        f"{path}: profile {quote(clean(p.get('name')))} (id {quote(p.get('id') or '')}): "
                        f"{quote(clean(c.get('name')))}: {len(c.text)} characters; the limit is {MAX_FIELD_CHARS}")
        for tag in ("selectionEntry", "selectionEntryGroup", "profile", "rule", "infoGroup",
                    "categoryEntry", "forceEntry"):
            for el in root.iter(tag):
                i = el.get("id")
                if i:
                    self.ids.setdefault(i, el)
                if tag == "rule":
                    self.rule_names.add(clean(el.get("name")).lower())

    @property
    def file(self) -> str:
        """The file name."""
        return self.path.name


# --- the importer --------------------------------------------------------------------------------


@dataclass
class _Own:
    """What one entry (or link) holds itself, without its child entries."""

    char_profiles: list = field(default_factory=list)  # (elem, file, name)
    trait_texts: list = field(default_factory=list)  # (name, text, file)
    trait_rules: list = field(default_factory=list)  # names
    weapons: list = field(default_factory=list)  # (elem, file)
    effects: list = field(default_factory=list)  # (name, text)
    feats: list = field(default_factory=list)  # (elem|None, file, name)
    specials: list = field(default_factory=list)  # (elem, file)
    types: list = field(default_factory=list)
    categories: list = field(default_factory=list)  # (id, primary)
    cost: float | None = None
    constraints: list = field(default_factory=list)
    modifiers: list = field(default_factory=list)


class _Layer:
    __slots__ = ("elem", "file", "target", "tfile", "root_link")

    def __init__(self, elem, file, target=None, tfile=None, root_link=False):
        self.elem, self.file, self.target, self.tfile, self.root_link = elem, file, target, tfile, root_link

    @property
    def parts(self):
        """``[(target, file), (link, file)]`` for a link, ``[(entry, file)]`` otherwise."""
        if self.target is not None:
            return [(self.target, self.tfile), (self.elem, self.file)]
        return [(self.elem, self.file)]

    @property
    def home(self):
        """(element, file) the entry really is: the target of a link."""
        return (self.target, self.tfile) if self.target is not None else (self.elem, self.file)

    @property
    def id(self) -> str:
        """The id of the entry or link element."""
        return self.elem.get("id") or ""

    @property
    def model_id(self) -> str:
        """The id a profile is known by: a root link's target, else the element's id."""
        if self.root_link and self.target is not None:
            return self.target.get("id") or ""
        return self.id


class _CardBuild:
    @property
    def slots(self) -> int:
        """Models the card allows: the most any one path through the data gives."""
        return max(self.slot_by_root.values(), default=0)

    def __init__(self, layer: _Layer, kind: str | None, category: str | None):
        self.layer = layer
        self.kind = kind
        self.category = category
        self.profiles: list = []  # profile keys
        self.slot_by_root: dict[int, int] = {}
        self.home_file: _File = layer.home[1]
        self.key = ""
        self.factions: list[str] = []
        self.entry_ids: list[str] = []


class _Importer:
    def __init__(self, gst: _File, cats: list[_File]):
        self.gst = gst
        self.cats = cats
        self.files = [gst] + cats
        self.issues: list[Issue] = []
        self.fields = 0
        self.by_id = {f.id: f for f in cats}
        self._own_cache: dict[int, _Own] = {}
        self.profiles: dict[tuple, dict] = {}
        self.profile_order: list[tuple] = []
        self.cards: dict[str, _CardBuild] = {}
        self.card_order: list[str] = []
        self.seen_elements: set[int] = set()
        self.root_imports: set[str] = set()  # library root entries every linking faction imports
        self.category_names: dict[str, str] = {}
        self.category_origin: dict[str, _File] = {}
        self.faction_categories: dict[str, str] = {}
        self._reported: set[tuple] = set()
        self._visits = 0  # entries and info groups visited (bounded by MAX_LINK_VISITS)
        self._info_chain: list[int] = []  # info groups being scanned (cycles are skipped)
        for f in self.files:
            for cid, name in f.own_categories.items():
                self.category_names.setdefault(cid, name)
                self.category_origin.setdefault(cid, f)
        known = {re.sub(r"[^a-z]", "", f.name.lower()): f.name for f in cats if not f.library}
        for cid, name in gst.own_categories.items():
            if name.lower().startswith("faction:"):
                fname = clean(name.split(":", 1)[1])
                # "Faction: Temple of Rokan" is the catalogue "Temple of Ro-Kan"
                self.faction_categories[cid] = known.get(re.sub(r"[^a-z]", "", fname.lower()), fname)
        vocab = set()
        for f in self.files:
            for r in f.root.iter("rule"):
                vocab.add(clean(r.get("name")))
        self.vocab = _Vocabulary(vocab, budget=MAX_NAME_COMPARISONS)
        self._resolve_scopes()

    # -- bookkeeping
    def issue(self, file: _File | str, where: str, fld: str, text: str, problem: str, kind: str = "unparsed"):
        """Record an issue once (the same text of the same entry is reported once)."""
        fname = file if isinstance(file, str) else file.file
        key = (fname, where, fld, text, problem)
        if key in self._reported:
            return
        self._reported.add(key)
        self.issues.append(Issue(fname, where, fld, text, problem, kind))

    def _visit(self, file: _File, elem: ET.Element, depth: int) -> None:
        """Count one entry (or info group) visited ``depth`` links deep; refuse data
        whose links nest or expand past :data:`MAX_LINK_DEPTH` / :data:`MAX_LINK_VISITS`."""
        self._visits += 1
        what = f"{file.path}: {elem.tag} {quote(clean(elem.get('name')))} (id {quote(elem.get('id') or '')})"
        if depth > MAX_LINK_DEPTH:
            raise CatalogueError(f"{what}: entries and links nested more than {MAX_LINK_DEPTH} deep")
        if self._visits > MAX_LINK_VISITS:
            raise CatalogueError(f"{what}: links expand to more than {MAX_LINK_VISITS} entries "
                                 "(the same entries linked over and over)")

    def _resolve_scopes(self):
        for f in self.cats:
            scope, todo, seen = [f], [f], {f.id}
            while todo:
                cur = todo.pop()
                for tid, name in cur.links:
                    if tid in seen:
                        continue
                    target = self.by_id.get(tid)
                    if target is None:
                        raise CatalogueError(
                            f"{cur.path}: links catalogue {quote(name)} ({quote(tid)}), which is not among the files imported"
                        )
                    seen.add(tid)
                    scope.append(target)
                    todo.append(target)
            scope.append(self.gst)
            f.scope = scope
        self.gst.scope = [self.gst]

    def find(self, file: _File, target_id: str | None, where: str = "") -> tuple[ET.Element | None, _File | None]:
        """Resolve a link target in ``file`` and the catalogues it links (then the game
        system); elsewhere with a ``link`` issue; None with an issue if not found."""
        if not target_id:
            return None, None
        for f in file.scope:
            el = f.ids.get(target_id)
            if el is not None:
                return el, f
        for f in self.files:
            el = f.ids.get(target_id)
            if el is not None:
                self.issue(file, where or "?", "link", target_id,
                           f"target found in {f.file}, which {file.file} does not link; used anyway", "link")
                return el, f
        self.issue(file, where or "?", "link", target_id, "link target not found; link ignored", "link")
        return None, None

    def category_name(self, cid: str) -> str:
        """The name of a category id (the id itself if unknown; "" for a link without one)."""
        return self.category_names.get(cid, cid or "")

    def is_type_category(self, cid: str) -> bool:
        """True for categories that are model types (not card kinds, factions or the
        marker categories a rules library keeps for its own rules)."""
        origin = self.category_origin.get(cid)
        if origin is None or origin is self.gst:
            return False
        name = self.category_names.get(cid, "").lower()
        if name in origin.rule_names:  # a marker category for a rule of the same library
            return False
        return True

    # -- scanning one entry
    def own(self, elem: ET.Element, file: _File) -> _Own:
        """What ``elem`` holds itself (cached)."""
        key = id(elem)
        got = self._own_cache.get(key)
        if got is None:
            got = _Own()
            self._scan(elem, file, got, group=None, info_only=False, linked=False)
            self._own_cache[key] = got
        return got

    def _scan(self, el, file, out: _Own, group, info_only, linked):
        for ch in el:
            t = ch.tag
            if t == "profiles":
                for p in ch:
                    self._profile(p, file, out, group, None)
            elif t == "infoGroups":
                for g in ch:
                    self._scan(g, file, out, clean(g.get("name")), True, linked)
            elif t == "infoLinks":
                for l in ch:
                    self._info_link(l, file, out, group, linked)
            elif t == "selectionEntryGroups" and not info_only:
                for g in ch:
                    self._scan(g, file, out, clean(g.get("name")), True, linked)
            elif info_only:
                continue
            elif t == "categoryLinks":
                for c in ch:
                    out.categories.append((c.get("targetId"), c.get("primary") == "true"))
            elif t == "costs":
                for c in ch:
                    if c.get("typeId") == RICE_COST_TYPE:
                        cost = _attribute_number(c.get("value"))
                        if cost is None:
                            self.issue(file, clean(el.get("name")), "cost", str(c.get("value")),
                                       f"not a number (or beyond +-{MAX_ATTRIBUTE_NUMBER})")
                        else:
                            out.cost = cost
            elif t == "constraints":
                out.constraints.extend(ch)
            elif t in ("modifiers", "modifierGroups"):
                out.modifiers.append(ch)

    def _info_link(self, l, file, out: _Own, group, linked):
        kind = l.get("type")
        name = clean(l.get("name"))
        if kind == "rule":
            if not linked and group and group.lower() == "traits":
                target, _tf = self.find(file, l.get("targetId"), name)
                out.trait_rules.append(clean(target.get("name")) if target is not None else name)
            return
        target, tfile = self.find(file, l.get("targetId"), name)
        if target is None:
            return
        if kind == "profile":
            self._profile(target, tfile, out, group, _apply_name(clean(target.get("name")), l))
        elif kind == "infoGroup":
            if id(target) in self._info_chain:
                return  # a group that links itself (through others): nothing new below
            self._visit(tfile, target, len(self._info_chain) + 1)
            before = len(out.feats)
            self._info_chain.append(id(target))
            try:
                self._scan(target, tfile, out, clean(target.get("name")), True, True)
            finally:
                self._info_chain.pop()
            if group and group.lower() == "ki feats" and len(out.feats) == before:
                out.feats.append((None, tfile, clean(target.get("name")) or name))

    def _profile(self, p, file, out: _Own, group, name):
        tn = p.get("typeName") or ""
        pname = name or clean(p.get("name"))
        if tn in ("Character Profile", "Character Profile & Traits"):
            out.char_profiles.append((p, file, pname))
            if tn == "Character Profile & Traits":
                text = _chars(p).get("Traits", "")
                if text:
                    out.trait_texts.append((pname, text, file))
        elif tn == "Character Traits":
            out.trait_texts.append((pname, _chars(p).get("Traits", ""), file))
        elif tn in ("Melee Weapon", "Ranged Weapon", "UE (Melee Weapon)"):
            out.weapons.append((p, file))
            if tn.startswith("UE"):
                d = _chars(p).get("Description", "")
                if d:
                    out.effects.append((pname, d))
        elif tn == "Unique Effects":
            d = _chars(p).get("Description", "")
            out.effects.append((pname, d))
        elif tn in ("Ki Feat", "Ki Feat (Ranged Weapon)"):
            out.feats.append((p, file, pname))
        elif tn.startswith("Special Card"):
            out.specials.append((p, file))
        elif tn == "Character Types":
            for t in _split_top(clean(_chars(p).get("Types", ""))):
                out.types.append(t)
        elif tn == "Escalation":
            out.specials.append((p, file))
        else:
            self.issue(file, pname, "profile type", tn, "profile type not imported", "skipped")

    # -- walking
    def run(self):
        """Walk every catalogue and build the :class:`CatalogueSet`."""
        # 1) what each catalogue offers at its root, faction catalogues first
        ordered = [f for f in self.cats if not f.library] + [f for f in self.cats if f.library]
        for f in ordered:
            for el in f.root.iterfind("selectionEntries/selectionEntry"):
                self.walk(el, f, [], None, faction=f)
                if f.library:
                    self.root_imports.add(f"{f.id}:{el.get('id')}")
            for el in f.root.iterfind("entryLinks/entryLink"):
                self.walk(el, f, [], None, faction=f, root_link=True)
        # 2) shared entries and groups not reached through a link
        for f in ordered:
            for el in f.root.iterfind("sharedSelectionEntries/selectionEntry"):
                self.walk(el, f, [], None, faction=f, shared=True)
            for g in f.root.iterfind("sharedSelectionEntryGroups/selectionEntryGroup"):
                for el, ef in self._group_entries(g, f):
                    self.walk(el, ef, [], None, faction=f, shared=True)
            for p in f.root.iterfind("sharedProfiles/profile"):
                if p.get("typeName") in ("Character Profile", "Character Profile & Traits") and id(p) not in self.seen_elements:
                    layer = _Layer(p, f)
                    card = self._card_for(layer, "profile", None, f, None, shared=True)
                    out = _Own()
                    self._profile(p, f, out, None, None)
                    self._add_profiles(out, [layer], card, f, ())
        return self.finish()

    def _group_entries(self, g, f):
        for ch in g:
            if ch.tag == "selectionEntries":
                for e in ch:
                    yield e, f
            elif ch.tag == "entryLinks":
                for e in ch:
                    yield e, f
            elif ch.tag == "selectionEntryGroups":
                for sub in ch:
                    yield from self._group_entries(sub, f)

    def _children(self, layer: _Layer):
        for part, pf in layer.parts:
            for ch in part:
                if ch.tag in ("selectionEntries", "entryLinks"):
                    for e in ch:
                        yield e, pf
                elif ch.tag == "selectionEntryGroups":
                    for g in ch:
                        yield from self._group_entries(g, pf)

    def _card_kind(self, own_parts: list[_Own]) -> tuple[str | None, str | None]:
        """The card kind from the primary category (a link's wins over its target's),
        else from any card category (some cards carry it as a non-primary link)."""
        for want_primary in (True, False):
            for own in reversed(own_parts):
                for cid, primary in own.categories:
                    if want_primary and not primary:
                        continue
                    name = self.category_name(cid)
                    low = name.lower()
                    for suffix, kind in _CARD_KINDS.items():
                        if low.endswith(suffix):
                            return kind, name
                    if want_primary and low in ("communal cards", "reference cards", "filters", "additional rules"):
                        return "other", name
        return None, None

    def walk(self, el, f: _File, layers: list[_Layer], card: _CardBuild | None, faction: _File,
             root_link=False, shared=False, path=()):
        """Walk an entry (or entry link) and its children, collecting cards and the
        Character Profiles with the layers of entries above them."""
        self._visit(f, el, len(layers) + 1)
        if el.tag == "entryLink":
            if el.get("type") == "selectionEntryGroup":
                return  # shared groups are walked on their own
            target, tfile = self.find(f, el.get("targetId"), clean(el.get("name")))
            if target is None:
                return
            if target.get("id") in path:
                return
            layer = _Layer(el, f, target, tfile, root_link=root_link)
        else:
            layer = _Layer(el, f)
        if shared and not layers and id(layer.home[0]) in self.seen_elements:
            return
        self.seen_elements.add(id(layer.home[0]))
        layers = layers + [layer]
        owns = [self.own(p, pf) for p, pf in layer.parts]
        kind, category = self._card_kind(owns)
        if card is None or (kind is not None and kind != "profile" and kind != card.kind):
            card = self._card_for(layer, kind, category, faction, owns, shared=shared)
        if root_link and card is not None and not faction.library:
            if faction.name not in card.factions:
                card.factions.append(faction.name)
            card.entry_ids.append(layer.id)
        merged = self.layer_own(layer)
        if merged.char_profiles:
            self._add_profiles(merged, layers, card, faction, path)
        key = layer.home[0].get("id")
        for child, cf in self._children(layer):
            self.walk(child, cf, layers, card, faction, path=path + (key,))

    def _card_for(self, layer: _Layer, kind, category, faction: _File, owns, shared=False) -> _CardBuild:
        home, hf = layer.home
        cid = f"{hf.id}:{home.get('id') or len(self.cards)}"
        got = self.cards.get(cid)
        if got is not None:
            return got
        card = _CardBuild(layer, kind, category)
        card.home_file = hf
        card.key = cid
        card.entry_ids = [home.get("id") or cid]
        if layer.target is not None:
            card.entry_ids.append(layer.id)
        self.cards[cid] = card
        self.card_order.append(cid)
        return card

    def layer_own(self, layer: _Layer) -> _Own:
        """What a layer holds: a link's own profiles replace its target's profiles of the
        same kind and name (a faction's version of a shared card)."""
        if layer.target is None:
            return self.own(layer.elem, layer.file)
        key = (id(layer.target), id(layer.elem))
        got = self._own_cache.get(key)
        if got is None:
            t, l = self.own(layer.target, layer.tfile), self.own(layer.elem, layer.file)
            got = _merge([t, l])
            mine = {n for _e, _f, n in l.char_profiles}
            got.char_profiles = [c for c in t.char_profiles if c[2] not in mine] + list(l.char_profiles)
            wnames = {(clean(e.get("name")), e.get("typeName")) for e, _f in l.weapons}
            got.weapons = [w for w in t.weapons if (clean(w[0].get("name")), w[0].get("typeName")) not in wnames] + list(l.weapons)
            tnames = {n for n, _t, _f in l.trait_texts}
            got.trait_texts = [x for x in t.trait_texts if x[0] not in tnames] + list(l.trait_texts)
            self._own_cache[key] = got
        return got

    def has_profiles_below(self, layer: _Layer, depth: int = 0) -> bool:
        """True if an entry below ``layer`` holds a Character Profile."""
        key = ("below", id(layer.home[0]), id(layer.elem))
        got = self._own_cache.get(key)
        if got is not None:
            return got
        self._own_cache[key] = False  # guards cycles
        found = False
        if depth < 12:
            for child, cf in self._children(layer):
                if child.tag == "entryLink":
                    if child.get("type") == "selectionEntryGroup":
                        continue
                    tgt, tf = self.find(cf, child.get("targetId"), clean(child.get("name")))
                    if tgt is None:
                        continue
                    sub = _Layer(child, cf, tgt, tf)
                else:
                    sub = _Layer(child, cf)
                if self.layer_own(sub).char_profiles or self.has_profiles_below(sub, depth + 1):
                    found = True
                    break
        self._own_cache[key] = found
        return found

    # -- profiles
    def _add_profiles(self, merged: _Own, layers: list[_Layer], card: _CardBuild, faction: _File, path):
        last = layers[-1]
        n_here = len(merged.char_profiles)
        # child model entries without a profile: the models this profile stands for
        child_models = []
        if n_here == 1:
            for child, cf in self._children(last):
                tgt, tf = child, cf
                if child.tag == "entryLink":
                    tgt, tf = self.find(cf, child.get("targetId"), clean(child.get("name")))
                    if tgt is None:
                        continue
                if tgt.get("type") != "model":
                    continue
                sub = _Layer(child, cf, tgt, tf) if child is not tgt else _Layer(child, cf)
                co = self.layer_own(sub)
                if co.char_profiles or self.has_profiles_below(sub):
                    continue
                child_models.append((child, tgt, co))
        card_level = not child_models and self.has_profiles_below(last)
        for idx, (pel, pf, pname) in enumerate(merged.char_profiles):
            link_ids = tuple(l.id for l in layers if l.target is not None and not l.root_link)
            key = (id(pel), link_ids)
            if key in self.profiles:
                entry = self.profiles[key]
                if not faction.library and faction.name not in entry["factions"]:
                    entry["factions"].append(faction.name)
                continue
            self.seen_elements.add(id(pel))
            slots = 0 if card_level else 1
            if child_models:
                slots = 0
                for child, tgt, co in child_models:
                    slots += max(1, _max_parent(co.constraints))
            entry = {
                "key": key, "elem": pel, "file": pf, "name": pname, "layers": layers, "card": card,
                "factions": [] if faction.library else [faction.name], "slots": slots,
                "child_models": child_models, "sibling_count": n_here, "index": idx,
            }
            self.profiles[key] = entry
            self.profile_order.append(key)
            card.profiles.append(key)
            root = id(layers[0].elem)
            card.slot_by_root[root] = card.slot_by_root.get(root, 0) + slots

    # -- building results
    def finish(self) -> "CatalogueSet":
        """Build the public profiles and cards from what the walk collected."""
        ids_taken: dict[str, int] = {}
        profiles: list[CatalogueProfile] = []
        entry_profiles: dict[str, list[str]] = {}
        card_profile_ids: dict[str, list[str]] = {}
        for key in self.profile_order:
            e = self.profiles[key]
            cp = self._build_profile(e, ids_taken)
            profiles.append(cp)
            card_profile_ids.setdefault(e["card"].key, []).append(cp.profile.id)
            for eid in cp.entry_ids:
                entry_profiles.setdefault(eid, []).append(cp.profile.id)
        cards = [self._build_card(self.cards[c], card_profile_ids.get(c, [])) for c in self.card_order]
        cards = [c for c in cards if c is not None]
        # which cards unlock which: a condition naming card B's entries on card A
        by_entry: dict[str, list[str]] = {}
        for c in cards:
            for eid in c.entry_ids:
                if c.key not in by_entry.setdefault(eid, []):
                    by_entry[eid].append(c.key)
        for p in profiles:
            for eid in p.entry_ids:
                if p.card_key not in by_entry.setdefault(eid, []):
                    by_entry[eid].append(p.card_key)
        allows: dict[str, list[str]] = {}
        for c in cards:
            for cond in c.unlocked_by:
                for atom in _atoms(cond):
                    for src in by_entry.get(atom.child_id or "", ()):
                        if atom.type in ("atLeast", "greaterThan", "equalTo") and c.key not in allows.setdefault(src, []):
                            allows[src].append(c.key)
        cards = [_replace(c, allows=tuple(allows.get(c.key, ()))) for c in cards]
        infos = tuple(
            CatalogueInfo(f.id, f.name, f.file, f.kind, f.library, f.revision, tuple(t for t, _ in f.links))
            for f in self.files
        )
        unparsed = sum(1 for i in self.issues if i.kind == "unparsed")
        stats = ImportStats(
            catalogues=len(self.cats), profiles=len(profiles),
            traits=sum(len(p.profile.traits) for p in profiles),
            weapons=sum(len(p.profile.weapons) for p in profiles),
            feats=sum(len(p.ki_feats) for p in profiles),
            cards=sum(1 for c in cards if c.kind != "profile"),
            fields=self.fields, unparsed=unparsed,
            repaired=sum(1 for i in self.issues if i.kind == "repaired"),
            missing=sum(1 for i in self.issues if i.kind == "missing"),
        )
        names = {i: n for i, n in self.category_names.items()}
        return CatalogueSet(
            game_system=infos[0], catalogues=infos[1:], profiles=tuple(profiles), cards=tuple(cards),
            issues=tuple(self.issues), stats=stats, category_names=names,
            entry_profiles={k: tuple(v) for k, v in entry_profiles.items()},
            entry_cards={k: tuple(v) for k, v in by_entry.items()}, entry_names=self._entry_names(),
        )

    def _entry_names(self) -> dict[str, str]:
        """Every selection entry, group and entry link id of the import, with its name
        (to tell a roster's known non-card selections from unknown ones)."""
        out: dict[str, str] = {}
        for f in self.files:
            for tag in ("selectionEntry", "selectionEntryGroup", "entryLink", "forceEntry"):
                for el in f.root.iter(tag):
                    i = el.get("id")
                    if i:
                        out.setdefault(i, clean(el.get("name")))
        return out

    def _count_field(self, f: _File, where: str, fld: str) -> None:
        """Count one parsed field; refuse an import with more than :data:`MAX_PARSED_FIELDS`."""
        self.fields += 1
        if self.fields > MAX_PARSED_FIELDS:
            raise CatalogueError(f"{f.path}: {quote(where)}: {fld}: more than {MAX_PARSED_FIELDS} fields "
                                 "to parse in one import")

    def _field(self, f: _File, where: str, fld: str, text: str, status: str, note: str | None = None,
               optional: bool = False) -> None:
        self._count_field(f, where, fld)
        if status == "bad":
            self.issue(f, where, fld, text, "cannot parse; kept as text")
        elif status == "empty" and not optional:
            self.issue(f, where, fld, text, "empty", "missing")
        if note:
            self.issue(f, where, fld, text, note, "repaired")

    def _traits(self, text: str, f: _File, where: str, fld: str, unparsed: list) -> list[Trait]:
        out = []
        try:
            parsed = _parse_list(text, self.vocab)
        except _Exhausted as exc:
            raise CatalogueError(f"{f.path}: {quote(where)}: {fld}: {exc}") from None
        for trait, ok, notes, raw in parsed:
            self._count_field(f, where, fld)
            if not ok:
                self.issue(f, where, fld, raw, "cannot parse; kept as text")
                unparsed.append((fld, raw))
            elif notes:
                self.issue(f, where, fld, raw, "; ".join(notes) + f"; read as {trait.text!r}", "repaired")
            out.append(trait)
        return out

    def _weapon(self, p: ET.Element, f: _File, where: str, unparsed: list) -> tuple[Weapon | None, str]:
        tn = p.get("typeName") or ""
        kind = "ranged" if "Ranged" in tn else "melee"
        ch = _chars(p)
        name = clean(p.get("name"))
        label = f"{where} / {name}"
        skey = next((k for k in ch if k.endswith("Weapon Strength")), None)
        stext = ch.get(skey, "") if skey else ""
        status, strength = _strength(stext)
        self._field(f, label, "Strength", stext, status)
        if status == "bad":
            unparsed.append(("Strength", stext))
        rng: dict = {}
        if kind == "ranged":
            rtext = ch.get("Range Bands", "")
            rstatus, rng, note = _range_bands(rtext) if clean(rtext) else ("empty", {}, None)
            self._field(f, label, "Range Bands", rtext, rstatus, note)
            if rstatus == "bad":
                unparsed.append(("Range Bands", rtext))
        traits = [t.text for t in self._traits(ch.get("Traits", ""), f, label, "Weapon Traits", unparsed)]
        traits = [t for t in traits if not re.fullmatch(r"O+", t)]
        attacks, defences = [], []
        for t in self._traits(ch.get("Specials", ""), f, label, "Specials", unparsed):
            low = t.text.lower()
            if "attack" in low:
                attacks.append(t.text)
            elif "defence" in low or "defense" in low:
                defences.append(t.text)
            else:
                traits.append(t.text)
                self.issue(f, label, "Specials", t.text, "not a special attack or defence; kept as a weapon trait", "repaired")
        if kind == "ranged" and not rng:
            rng = {}
        w = Weapon(name=name, kind=kind, strength=strength, range=rng, traits=tuple(traits),
                   special_attacks=tuple(attacks), special_defences=tuple(defences))
        return w, clean(ch.get("Unique Effects", ""))

    def _feat(self, p: ET.Element | None, f: _File, where: str, name: str, unparsed: list) -> KiFeat:
        if p is None:
            return KiFeat(name, None, "", None, None, None, None, False, None, "")
        ch = _chars(p)
        fname = clean(ch.get("Name")) or name
        label = f"{where} / {fname}"
        ctext = clean(ch.get("Cost", ""))
        st, cost = _stat(ctext)
        if st == "bad" and re.fullmatch(r"(Rank\s*\S+|X\s*[+-]\s*\d+)", ctext, re.I):
            st = "variable"
        self._field(f, label, "Ki Feat Cost", ctext, "bad" if st == "bad" else ("int" if st != "empty" else "empty"))
        if st == "bad":
            unparsed.append(("Ki Feat Cost", ctext))
        ttext = clean(ch.get("Timing", ""))
        timing = None
        if ttext:
            w = ttext.split()[0].lower()
            timing = w if w in _TIMINGS else (difflib.get_close_matches(w, _TIMINGS, n=1, cutoff=0.7) or [None])[0]
            self._field(f, label, "Timing", ttext, "int" if timing else "bad",
                        None if timing == ttext.lower() or timing is None else f"read as {timing!r}")
            if timing is None:
                unparsed.append(("Timing", ttext))
        stext = clean(ch.get("Subject", ""))
        area, rng, rtext, opposed, ok = _feat_subject(stext)
        if stext:
            note = None
            if ok and area and not stext.lower().startswith(area):
                note = f"read as {area!r}"
            self._field(f, label, "Subject", stext, "int" if ok else "bad", note)
            if not ok:
                unparsed.append(("Subject", stext))
        desc = ch.get("Description") or ch.get("Ki Feat Description") or ""
        weapon = None
        if (p.get("typeName") or "").endswith("(Ranged Weapon)"):
            weapon, _ue = self._weapon(p, f, where, unparsed)
        return KiFeat(fname, cost if st == "int" else None, ctext, timing, area, rng, rtext, opposed,
                      clean(ch.get("Limitation")) or None, (desc or "").strip(), weapon)

    def _build_profile(self, e: dict, ids_taken: dict[str, int]) -> CatalogueProfile:
        pel, pf, name, layers, card = e["elem"], e["file"], e["name"], e["layers"], e["card"]
        unparsed: list = []
        ch = _chars(pel)
        printed = {k: v for k, v in ch.items() if k != "Traits"}
        where = name
        stats: dict[str, int | None] = {}
        for key, label in (("melee", "Melee Pool"), ("ranged", "Ranged Pool"), ("move", "Move"),
                           ("ki", "Ki"), ("ki_limit", "Ki Cap")):
            text = ch.get(label, "")
            st, val = _stat(text)
            self._field(pf, where, label, text, st)
            if st == "bad":
                unparsed.append((label, text))
            if st == "dash":
                val = None if key == "ranged" else 0
            stats[key] = val
        boosts = {}
        for key, label in (("melee", "Melee Boost"), ("ranged", "Ranged Boost"), ("move", "Move Boost"), ("ki", "Ki Boost")):
            text = ch.get(label, "")
            st, val = _stat(text)
            self._field(pf, where, label, text, st, optional=True)
            if st == "bad":
                unparsed.append((label, text))
            boosts[key] = val if st == "int" else None
        wtext = ch.get("Wounds", "")
        wst, wounds, wnote = _wounds(wtext)
        self._field(pf, where, "Wounds", wtext, wst, wnote)
        if wst == "bad":
            unparsed.append(("Wounds", wtext))
        sbtext = ch.get("Size & Base", "")
        sst, size, base, snote = _size_base(sbtext)
        self._field(pf, where, "Size & Base", sbtext, sst, snote)
        if sst == "bad":
            unparsed.append(("Size & Base", sbtext))
        if base is not None and base not in _BASES:
            self.issue(pf, where, "Size & Base", sbtext, f"base {base} mm is not 30/40/50/60", "unparsed")

        # features of the layers, outermost first
        owns = []
        for layer in layers:
            owns.append(self.layer_own(layer))
        traits: list[Trait] = []
        seen_text = set()
        printed_traits = False
        for i, own in enumerate(owns):
            texts = own.trait_texts
            if i == len(owns) - 1 and e["sibling_count"] > 1:
                siblings = {n for _e, _f, n in own.char_profiles} - {name}
                mine = [t for t in texts if t[0] == name]
                texts = mine or [t for t in texts if t[0] not in siblings]
            for tname, ttext, tfile in texts:
                if not clean(ttext):
                    continue
                printed_traits = True
                for t in self._traits(ttext, tfile, where, "Traits", unparsed):
                    if t.text.lower() not in seen_text:
                        seen_text.add(t.text.lower())
                        traits.append(t)
        if not printed_traits and e["sibling_count"] == 1:
            rules = [r for own in owns for r in own.trait_rules]
            if rules:
                self.issue(pf, where, "Traits", ", ".join(rules),
                           "no printed trait list; traits taken from the rule links (values unknown)", "missing")
                for r in dict.fromkeys(rules):
                    traits.append(Trait(_keyword(r), None, None, r, None))
        weapons: list[Weapon] = []
        weapon_effects = []
        wseen = set()
        for own in owns:
            for wel, wf in own.weapons:
                if id(wel) in wseen:
                    continue
                wseen.add(id(wel))
                w, ue = self._weapon(wel, wf, where, unparsed)
                weapons.append(w)
                if ue:
                    weapon_effects.append((w.name, ue))
        feats: list[KiFeat] = []
        fseen = set()
        for own in owns:
            for fel, ff, fname in own.feats:
                if fname in fseen:
                    continue
                fseen.add(fname)
                feats.append(self._feat(fel, ff, where, fname, unparsed))
        effects = []
        eseen = set()
        for own in owns:
            for ename, etext in own.effects:
                k = (ename, etext)
                if k not in eseen:
                    eseen.add(k)
                    effects.append(UniqueEffect(ename, (etext or "").strip()))
        cat_ids = []
        for own in owns:
            for cid, _primary in own.categories:
                if cid not in cat_ids:
                    cat_ids.append(cid)
        types = []
        for cid in cat_ids:
            if self.is_type_category(cid):
                t = self.category_name(cid).lower()
                if t not in types:
                    types.append(t)
        for own in owns:
            for t in own.types:
                if t.lower() not in types:
                    types.append(t.lower())
        categories = tuple(self.category_name(c) for c in cat_ids)
        # rice: the nearest non-zero cost, or a profile-less child model's
        rice = None
        for own in reversed(owns):
            if own.cost is not None:
                if own.cost != 0 or rice is None:
                    rice = own.cost
                if own.cost != 0:
                    break
        if (rice is None or rice == 0) and e["child_models"]:
            child_costs = [co.cost for _c, _t, co in e["child_models"] if co.cost]
            if child_costs:
                rice = child_costs[0]
        home_card = card.layer.home
        ronin = bool(card.category and card.category.lower().startswith("ronin")) or (
            card.home_file.library and card.kind in (None, "profile"))
        factions = list(e["factions"])
        for cid in cat_ids:
            fc = self.faction_categories.get(cid)
            if fc and fc not in factions and not ronin and any(f.name == fc for f in self.cats):
                factions.append(fc)
        catalogue = card.home_file.name
        faction_name = "Ronin" if ronin else (factions[0] if factions else catalogue)
        pid = slug(name)
        if pid in ids_taken:
            base_id = f"{pid}-{slug(catalogue)}"
            pid = base_id
            n = 2
            while pid in ids_taken:
                pid = f"{base_id}-{n}"
                n += 1
        ids_taken[pid] = 1
        last_layer = layers[-1]
        bs_id = last_layer.model_id
        entry_ids = [bs_id]
        if last_layer.target is not None:
            entry_ids.append(last_layer.target.get("id"))
            if last_layer.root_link:
                entry_ids.append(last_layer.id)
        for child, tgt, _co in e["child_models"]:
            entry_ids.append(child.get("id"))
            if tgt is not child:
                entry_ids.append(tgt.get("id"))
        if pel.get("id"):
            entry_ids.append(pel.get("id"))
        entry_ids = [x for x in dict.fromkeys(entry_ids) if x]
        profile = Profile(
            id=pid, name=name, faction=faction_name, bs_id=bs_id or None,
            rice=int(rice) if rice is not None and float(rice).is_integer() and rice >= 0 else None,
            base=base, size=size, types=tuple(types), melee=stats["melee"], ranged=stats["ranged"],
            move=stats["move"], ki=stats["ki"], ki_limit=stats["ki_limit"], wounds=wounds,
            traits=tuple(traits), weapons=tuple(weapons), feats=tuple(f.name for f in feats),
            boosts=tuple(sorted((k, v) for k, v in boosts.items() if v is not None)), ki_feats=tuple(feats),
        )
        card_max = _card_max(card, self)
        tracks = max(1, card.slots)
        slots = e["slots"]
        max_copies = slots * (card_max or 1)
        unlock = _unlock_conditions(card, self)
        recruitable = not (card_max == 0 and not unlock)
        return CatalogueProfile(
            profile=profile, card_id=home_card[0].get("id") or "", card=clean(home_card[0].get("name")) or name,
            catalogue=catalogue, source=card.home_file.file, factions=tuple(factions), ronin=ronin,
            boosts=boosts, wound_tracks=tracks, max_copies=max_copies, recruitable=recruitable,
            ki_feats=tuple(feats), unique_effects=tuple(effects), weapon_effects=tuple(weapon_effects),
            categories=categories, printed=printed, unparsed=tuple(unparsed), entry_ids=tuple(entry_ids),
            element_id=pel.get("id") or "", card_key=card.key,
        )

    def _build_card(self, c: _CardBuild, profile_ids: list[str]) -> Card | None:
        layer = c.layer
        home, hf = layer.home
        owns = [self.own(p, pf) for p, pf in layer.parts]
        own = _merge(owns)
        kind = c.kind
        if kind is None:
            if profile_ids:
                kind = "profile"
            elif any((p.get("typeName") or "") == "Special Card (Terrain)" for p, _f in own.specials):
                kind = "terrain"
            elif own.specials:
                kind = "other"
            else:
                return None  # an entry that is no card (a model slot, an option)
        name = clean(home.get("name"))
        where = name
        texts, terrain, feat, weapons = [], None, None, []
        unparsed: list = []
        for p, pf in own.specials:
            tn = p.get("typeName") or ""
            ch = _chars(p)
            if tn == "Special Card (Terrain)":
                terrain = self._terrain(ch, pf, where)
                if ch.get("Description"):
                    texts.append(ch["Description"])
            elif tn == "Special Card (Ki Feat)":
                feat = self._feat(p, pf, where, clean(ch.get("Name")) or name, unparsed)
                texts.extend(v for k, v in ch.items() if k == "Description" and v)
            elif tn in ("Special Card (Melee Weapon)", "Special Card (Ranged Weapon)"):
                w, ue = self._weapon(p, pf, where, unparsed)
                weapons.append(w)
                if ue:
                    texts.append(ue)
            elif tn == "Escalation":
                texts.append(" ".join(f"{k}: {v}" for k, v in ch.items() if v))
            else:
                if ch.get("Description"):
                    texts.append(ch["Description"])
        for ename, etext in own.effects:
            if etext:
                texts.append(etext)
        text = "\n".join(t.strip() for t in texts if t and t.strip())
        restr = _restrictions(text) if kind != "profile" else _restrictions("")
        cats = tuple(self.category_name(cid) for cid, _p in own.categories)
        equipment = any("equipment" in (ct or "").lower() for ct in cats) or bool(re.search(r"^\s*equipment\b", text, re.I | re.M))
        req_cats, exc_cats = self._data_restrictions(own, home.get("hidden") == "true")
        ronin = bool(c.category and c.category.lower().startswith("ronin")) or (hf.library and kind == "profile")
        factions = list(c.factions)
        if not hf.library and hf.name not in factions:
            factions.insert(0, hf.name)
        if hf.library and (c.key in self.root_imports or (not factions and kind != "profile")):
            for f in self.cats:
                if not f.library and any(s is hf for s in f.scope) and f.name not in factions:
                    factions.append(f.name)
        card_max = _card_max(c, self)
        hidden = _hidden_conditions(own, self, hf)
        unlock = _unlock_conditions(c, self)
        rice = own.cost
        return Card(
            id=home.get("id") or "", name=name, kind=kind, category=c.category, catalogue=hf.name, source=hf.file,
            ronin=ronin, factions=tuple(factions),
            rice=int(rice) if rice is not None and float(rice).is_integer() else None,
            max_copies=card_max, equipment=equipment, required=tuple(restr["required"]),
            excluded=tuple(restr["excluded"]), permitted=tuple(restr["permitted"]),
            required_categories=tuple(req_cats), excluded_categories=tuple(exc_cats),
            trap=restr["trap"] or any(ct.lower() == "trap" for ct in cats), text=text, terrain=terrain,
            feat=feat, weapons=tuple(weapons), profiles=tuple(profile_ids), wound_tracks=c.slots,
            hidden_when=tuple(hidden), unlocked_by=tuple(unlock),
            entry_ids=tuple(dict.fromkeys(c.entry_ids)), categories=cats, key=c.key,
        )

    def _terrain(self, ch: dict, f: _File, where: str) -> TerrainStats:
        btext = clean(ch.get("Base", ""))
        m = re.fullmatch(r"(\d+)\s*mm", btext, re.I)
        base = int(m[1]) if m else None
        self._field(f, where, "Base", btext, "int" if (m or btext.lower() == "card") else ("empty" if not btext else "bad"))

        def word(label, allowed):
            text = clean(ch.get(label, ""))
            if not text:
                self._field(f, where, label, text, "empty")
                return None
            vals = []
            note = None
            for w in text.lower().split("/"):
                w = w.strip()
                if w not in allowed:
                    close = difflib.get_close_matches(w, allowed, n=1, cutoff=0.75)
                    if not close:
                        self._field(f, where, label, text, "bad")
                        return None
                    note = f"read {w!r} as {close[0]!r}"
                    w = close[0]
                vals.append(w)
            self._field(f, where, label, text, "int", note)
            return "/".join(vals)

        passage = word("Passage", ["open", "normal", "difficult", "impassable"])
        visibility = word("Visibility", ["clear", "obscuring", "blocking"])
        size = word("Size", list(_SIZES))
        traits = tuple(self._traits(ch.get("Traits", ""), f, where, "Terrain Traits", []))
        return TerrainStats(base, btext, passage, visibility, size, traits)

    def _data_restrictions(self, own: _Own, hidden_default: bool) -> tuple[list[str], list[str]]:
        """Types an enhancement needs / may not go to, from the catalogue's own
        ``hidden`` modifiers that test the parent model's categories."""
        required, excluded = [], []
        for mods in own.modifiers:
            for m in _iter_modifiers(mods):
                if m.get("field") != "hidden":
                    continue
                cond = _condition_tree(m, self, None)
                if cond is None:
                    continue
                atoms = list(_atoms(cond))
                if not atoms or any(a.scope not in ("parent", "ancestor") or a.type not in ("instanceOf", "notInstanceOf")
                                    or a.child_kind != "category" for a in atoms):
                    continue
                names = [a.child_name or "" for a in atoms]
                if hidden_default and m.get("value") == "false" and all(a.type == "instanceOf" for a in atoms) and cond.op in ("or", "atom"):
                    required.extend(n for n in names if n not in required)
                elif m.get("value") == "true" and all(a.type == "instanceOf" for a in atoms) and cond.op in ("or", "atom"):
                    excluded.extend(n for n in names if n not in excluded)
                elif m.get("value") == "true" and all(a.type == "notInstanceOf" for a in atoms) and cond.op in ("and", "atom"):
                    required.extend(n for n in names if n not in required)
        return required, excluded


def _apply_name(name: str, link: ET.Element) -> str:
    """A link's unconditional ``append``/``set`` name modifiers applied to ``name``."""
    for m in link.iterfind("modifiers/modifier"):
        if m.get("field") != "name" or m.find("conditions") is not None or m.find("conditionGroups") is not None:
            continue
        if m.get("type") == "append":
            name = f"{name} {clean(m.get('value'))}".strip()
        elif m.get("type") == "set":
            name = clean(m.get("value")) or name
    return name


def _chars(p: ET.Element) -> dict[str, str]:
    return {c.get("name"): (c.text or "") for c in p.iterfind("characteristics/characteristic")}


def _merge(owns: list[_Own]) -> _Own:
    if len(owns) == 1:
        return owns[0]
    m = _Own()
    for o in owns:
        m.char_profiles += o.char_profiles
        m.trait_texts += o.trait_texts
        m.trait_rules += o.trait_rules
        m.weapons += o.weapons
        m.effects += o.effects
        m.feats += o.feats
        m.specials += o.specials
        m.types += o.types
        m.categories += o.categories
        m.constraints += o.constraints
        m.modifiers += o.modifiers
        if o.cost is not None:
            m.cost = o.cost
    return m


def _max_parent(constraints) -> int:
    for c in constraints:
        if c.get("type") == "max" and c.get("scope") == "parent" and c.get("field") == "selections":
            v = _attribute_number(c.get("value"))
            return 1 if v is None else int(v)
    return 1


def _card_constraint(card: _CardBuild, imp: _Importer):
    """The card's own ``max`` constraint at roster or force scope (element), or None."""
    owns = [imp.own(p, pf) for p, pf in card.layer.parts]
    for own in reversed(owns):
        for c in own.constraints:
            if c.get("type") == "max" and c.get("field") == "selections" and c.get("scope") in ("roster", "force"):
                return c, own
    return None, None


def _card_max(card: _CardBuild, imp: _Importer) -> int | None:
    c, _own = _card_constraint(card, imp)
    if c is None:
        return None
    v = _attribute_number(c.get("value"))
    return None if v is None or v < 0 else int(v)


def _iter_modifiers(container: ET.Element) -> Iterator[ET.Element]:
    """Modifiers of a ``modifiers`` or ``modifierGroups`` element (groups flattened;
    a group's conditions are attached by :func:`_condition_tree` through ``parent``)."""
    if container.tag == "modifiers":
        yield from container.iterfind("modifier")
    else:
        for g in container.iter("modifierGroup"):
            yield from g.iterfind("modifiers/modifier")


def _condition_tree(m: ET.Element, imp: _Importer, f: _File | None) -> Condition | None:
    """The conditions of a modifier as a :class:`Condition` (None if it has none)."""
    items = []
    for c in m.iterfind("conditions/condition"):
        items.append(_atom(c, imp))
    for g in m.iterfind("conditionGroups/conditionGroup"):
        items.append(_group(g, imp))
    if not items:
        return None
    return items[0] if len(items) == 1 else Condition("and", tuple(items))


def _group(g: ET.Element, imp: _Importer) -> Condition:
    items = [_atom(c, imp) for c in g.iterfind("conditions/condition")]
    items += [_group(s, imp) for s in g.iterfind("conditionGroups/conditionGroup")]
    op = g.get("type") or "and"
    if len(items) == 1:
        return items[0]
    return Condition(op, tuple(items))


def _atom(c: ET.Element, imp: _Importer) -> Condition:
    child = c.get("childId")
    name, kind = None, None
    if child in imp.category_names:
        name, kind = imp.category_names[child], "category"
    elif child in imp.by_id or child == imp.gst.id:
        name, kind = (imp.by_id[child].name if child in imp.by_id else imp.gst.name), "catalogue"
    else:
        for f in imp.files:
            el = f.ids.get(child or "")
            if el is not None:
                name, kind = clean(el.get("name")), "entry"
                break
    value = _attribute_number(c.get("value") or 0, 0.0)
    return Condition("atom", (), c.get("type"), value, c.get("scope"), child, name, kind)


def _atoms(cond: Condition) -> Iterator[Condition]:
    if cond.op == "atom":
        yield cond
    else:
        for i in cond.items:
            yield from _atoms(i)


def _hidden_conditions(own: _Own, imp: _Importer, f: _File) -> list[Condition]:
    out = []
    for mods in own.modifiers:
        for m in _iter_modifiers(mods):
            if m.get("field") == "hidden" and m.get("type") == "set" and m.get("value") == "true":
                cond = _condition_tree(m, imp, f)
                if cond is not None and all(a.scope in ("roster", "force", "primary-catalogue") for a in _atoms(cond)):
                    out.append(cond)
    return out


def _unlock_conditions(card: _CardBuild, imp: _Importer) -> list[Condition]:
    """Conditions under which a modifier raises the card's max-0 constraint."""
    c, own = _card_constraint(card, imp)
    if c is None or _attribute_number(c.get("value") or 0, 1.0) != 0:
        return []
    cid = c.get("id")
    out = []
    owns = [imp.own(p, pf) for p, pf in card.layer.parts]
    for o in owns:
        for mods in o.modifiers:
            for m in _iter_modifiers(mods):
                if m.get("field") == cid and m.get("type") in ("set", "increment"):
                    if _attribute_number(m.get("value") or 0, 0.0) < 1:
                        continue
                    cond = _condition_tree(m, imp, None)
                    if cond is not None:
                        out.append(cond)
    return out


_BRACKET = r"\s*:?\s*\[([^\]\}]*)[\]\}]?"


def _restrictions(text: str) -> dict:
    """``Required``/``Requirement``/``Restriction``, ``Exclusion`` and ``Permitted``
    lists, ``Trap`` and ``Equipment`` from a card's text."""
    out = {"required": [], "excluded": [], "permitted": [], "trap": False}
    for m in re.finditer(r"\b(Requirements?|Required|Requires|Restrictions?|Restricted)" + _BRACKET, text, re.I):
        out["required"].append(clean(m[2]))
    for m in re.finditer(r"\b(Exclusions?|Excluded|Exclude)" + _BRACKET, text, re.I):
        out["excluded"].append(clean(m[2]))
    for m in re.finditer(r"\b(Permitted)" + _BRACKET, text, re.I):
        out["permitted"].append(clean(m[2]))
    out["trap"] = bool(re.search(r"^\s*Trap\b", text, re.M))
    return out


def _replace(card: Card, **kw) -> Card:
    from dataclasses import replace

    return replace(card, **kw)


# --- the result -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class CatalogueSet:
    """Everything one import read: the game system, the catalogues, every model profile
    and every card, and the issues found (reported once per import).

    Look-ups are case-insensitive; a name that is not found raises ``KeyError`` with close
    matches."""

    game_system: CatalogueInfo
    catalogues: tuple[CatalogueInfo, ...]
    profiles: tuple[CatalogueProfile, ...]
    cards: tuple[Card, ...]
    issues: tuple[Issue, ...]
    stats: ImportStats
    category_names: Mapping[str, str] = field(default_factory=dict, repr=False)
    entry_profiles: Mapping[str, tuple[str, ...]] = field(default_factory=dict, repr=False)
    entry_cards: Mapping[str, tuple[str, ...]] = field(default_factory=dict, repr=False)
    entry_names: Mapping[str, str] = field(default_factory=dict, repr=False)

    def factions(self) -> list[str]:
        """Names of the faction catalogues (not libraries), sorted."""
        return sorted(c.name for c in self.catalogues if not c.library)

    def catalogue(self, id_or_name: str) -> CatalogueInfo:
        """A catalogue by id or name (case-insensitive). Raises KeyError."""
        key = id_or_name.strip().lower()
        for c in (self.game_system, *self.catalogues):
            if key in (c.id.lower(), c.name.lower(), c.file.lower()):
                return c
        raise KeyError(f"unknown catalogue {id_or_name!r}; known: {', '.join(self.factions())}")

    def faction_profiles(self, faction: str, ronin: bool = True) -> list[CatalogueProfile]:
        """Profiles a faction may field: its own and, with ``ronin``, the Ronin whose
        cards name it (rulebook p.19 a)."""
        name = self.catalogue(faction).name
        return [p for p in self.profiles if name in p.factions and (ronin or not p.ronin)]

    def profile(self, key: str) -> CatalogueProfile:
        """A profile by id, name, bs_id or roster entry id (case-insensitive). Raises
        KeyError with close matches."""
        k = key.strip().lower()
        for p in self.profiles:
            if k in (p.profile.id, p.profile.name.lower(), (p.profile.bs_id or "").lower()):
                return p
        ids = self.entry_profiles.get(key.strip())
        if ids:
            return self.profile(ids[0])
        names = {p.profile.name.lower(): p.profile.name for p in self.profiles}
        close = [names[n] for n in difflib.get_close_matches(k, names, n=6)]
        raise KeyError(f"unknown profile {key!r}; close matches: {', '.join(close) or 'none'}")

    def card(self, key: str, kind: str | None = None, prefer: str | None = None) -> Card:
        """A card by id or name (case-insensitive), optionally of one ``kind``; where
        several catalogues hold a card of that name, the one of catalogue ``prefer``
        (then a Ronin one) wins. Raises KeyError with close matches."""
        k = key.strip().lower()
        found = [c for c in self.cards if (kind is None or c.kind == kind) and k in (c.key.lower(), c.id.lower(), c.name.lower())]
        if not found and key.strip() in self.entry_cards:
            keys = self.entry_cards[key.strip()]
            found = [c for c in self.cards if c.key in keys and (kind is None or c.kind == kind)]
        if found:
            if prefer:
                pf = prefer.lower()
                found.sort(key=lambda c: (c.catalogue.lower() != pf and pf not in (f.lower() for f in c.factions), not c.ronin))
            return found[0]
        names = {c.name.lower(): c.name for c in self.cards if kind is None or c.kind == kind}
        close = [names[n] for n in difflib.get_close_matches(k, names, n=6)]
        what = f"{kind} card" if kind else "card"
        raise KeyError(f"unknown {what} {key!r}; close matches: {', '.join(close) or 'none'}")

    def profiles_of_card(self, card_key: str) -> list[CatalogueProfile]:
        """The profiles on the card whose :attr:`Card.key` is ``card_key``."""
        return [p for p in self.profiles if p.card_key == card_key]

    def card_by_key(self, key: str) -> Card:
        """The card whose :attr:`Card.key` is ``key``. Raises KeyError."""
        got = self._keys().get(key)
        if got is None:
            raise KeyError(f"unknown card key {key!r}")
        return got

    def _keys(self) -> dict[str, Card]:
        cache = self.__dict__.get("_key_cache")
        if cache is None:
            cache = {c.key: c for c in self.cards}
            object.__setattr__(self, "_key_cache", cache)
        return cache

    def summary(self) -> str:
        """One line: profiles, traits, weapons, cards read and unparsed fields."""
        s = self.stats
        return (
            f"{s.catalogues} catalogues: {s.profiles} profiles, {s.traits} traits, {s.weapons} weapons, "
            f"{s.feats} Ki feats, {s.cards} special cards; {s.unparsed} of {s.fields} fields could not be "
            f"parsed ({100 * s.unparsed_fraction:.2f} %), {s.repaired} repaired, {s.missing} missing"
        )

    def report(self, kinds: Iterable[str] = ("unparsed", "link", "missing", "skipped")) -> list[str]:
        """The issues of the given kinds as lines (each reported once)."""
        kinds = set(kinds)
        return [str(i) for i in self.issues if i.kind in kinds]


# --- loading ------------------------------------------------------------------------------------


def _files_of(source: str | Path | Iterable[str | Path]) -> tuple[list[Path], Path | None]:
    if isinstance(source, (str, Path)):
        src = Path(source)
        if src.is_dir():
            files = sorted(p for p in src.iterdir() if p.suffix.lower() in (".gst", ".gstz", ".cat", ".catz"))
            return files, src
        if not src.exists():
            raise CatalogueError(f"{src}: no such file or directory")
        return [src], None
    return [Path(p) for p in source], None


def load_catalogues(source: str | Path | Iterable[str | Path], game_system: str | Path | None = None) -> CatalogueSet:
    """Import a game system and its catalogues.

    Args:
        source: a directory (every ``.gst``/``.gstz`` and ``.cat``/``.catz`` in it), one
            catalogue file, or a list of files.
        game_system: the ``.gst`` file when ``source`` does not hold it.

    Returns:
        A :class:`CatalogueSet` (profiles, cards, issues, counts). The last import is
        cached until one of its files changes (size or modification time); the result is
        immutable, so sharing it is safe.

    Raises:
        CatalogueError: no game system file or more than one, an unreadable or truncated
            file, a catalogue whose ``gameSystemId`` is not the game system's, a
            catalogue link to a catalogue that is not among the files. Nothing is
            returned in that case.
    """
    files, directory = _files_of(source)
    where = directory or (files[0].parent if files else Path("."))
    if game_system is not None:
        files = files + [Path(game_system)]
    try:
        key = tuple(sorted((str(f.resolve()), f.stat().st_mtime_ns, f.stat().st_size) for f in files))
    except OSError:
        key = None
    if key is not None and key in _CACHE:
        return _CACHE[key]
    result = _load(files, where, game_system)
    if key is not None:
        while len(_CACHE) >= 3:  # a few imports kept: they are large
            _CACHE.pop(next(iter(_CACHE)))
        _CACHE[key] = result
    return result


#: ``file signatures -> CatalogueSet`` of the last import (re-read when a file changes).
_CACHE: dict[tuple, "CatalogueSet"] = {}


def _load(files: list[Path], where: Path, game_system) -> CatalogueSet:
    if game_system is not None:
        files = [Path(game_system)] + [f for f in files if f.suffix.lower() not in (".gst", ".gstz")]
        files = list(dict.fromkeys(files))
    gsts = [f for f in files if f.suffix.lower() in (".gst", ".gstz")]
    cats = [f for f in files if f.suffix.lower() in (".cat", ".catz")]
    if not gsts:
        raise CatalogueError(f"{where}: no game system file (.gst) found")
    if len(gsts) > 1:
        raise CatalogueError(f"{where}: more than one game system file: {', '.join(g.name for g in gsts)}")
    if not cats:
        raise CatalogueError(f"{where}: no catalogue files (.cat) found")
    if len(cats) + 1 > MAX_IMPORT_FILES:
        raise CatalogueError(f"{where}: {len(cats) + 1} files; the limit is {MAX_IMPORT_FILES} per import")
    total = [0, 0]  # bytes, markup

    def read(path: Path, kind: str) -> ET.Element:
        root, nbytes, markup = _read_document(path, (kind,), MAX_XML_BYTES)
        total[0] += nbytes
        total[1] += markup
        if total[0] > MAX_IMPORT_BYTES:
            raise CatalogueError(f"{path}: the files read so far hold {total[0]} bytes; "
                                 f"the limit is {MAX_IMPORT_BYTES} per import")
        if total[1] > MAX_IMPORT_MARKUP:
            raise CatalogueError(f"{path}: the files read so far hold {total[1]} markup characters '<'; "
                                 f"the limit is {MAX_IMPORT_MARKUP} per import")
        return root

    gst = _File(gsts[0], read(gsts[0], "gameSystem"))
    parsed = []
    for c in cats:
        f = _File(c, read(c, "catalogue"))
        if f.game_system_id != gst.id:
            raise CatalogueError(
                f"{c}: its game system {quote(f.game_system_id)} is missing "
                f"(the game system file {gst.file} is {quote(gst.name)}, id {quote(gst.id)})"
            )
        parsed.append(f)
    seen: dict[str, _File] = {}
    for f in parsed:
        if f.id in seen:
            raise CatalogueError(f"{f.path}: catalogue id {quote(f.id)} also used by {seen[f.id].file}")
        seen[f.id] = f
    return _Importer(gst, parsed).run()


# --- writing bushido-profiles/1 ----------------------------------------------------------------


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
        "source": one_line(f"BattleScribe catalogue {next((c.file for c in cs.catalogues if c.name == catalogue), catalogue)} "
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
                fh.write("# Facts only (names and numbers); schema: models/profiles.py. Ranges in inches, base in mm.\n")
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


# --- registering imported profiles for get_profile ------------------------------------------------

_REGISTERED: list[object] = []  # directories (Path) or dicts of profiles


def registered_profiles() -> dict[str, Profile]:
    """The profiles made visible by :func:`register_profiles`, keyed by id (profiles of
    the default directory not included)."""
    from models import profiles as mp

    out: dict[str, Profile] = {}
    for src in _REGISTERED:
        got = mp.load_profiles(src) if isinstance(src, Path) else src
        for pid, p in got.items():
            out.setdefault(pid, p)
    return out


def register_profiles(source: "str | Path | CatalogueSet | Iterable[Profile]") -> int:
    """Make :func:`models.profiles.get_profile` (and so the table loader's
    ``profile: <id or name>`` and the game engine) find imported profiles.

    ``source``: a directory of ``bushido-profiles/1`` files (such as the output of
    :func:`write_profiles`), a :class:`CatalogueSet` (every imported profile, including
    those the YAML format cannot hold), or profiles. The repository's own
    ``data/profiles`` stays first: a registered profile whose id or ``bs_id`` it already
    has is not added (:func:`models.profiles.add_profile_source`). Returns the number of
    profiles now registered. Undo with :func:`unregister_profiles`.

    Raises:
        FileNotFoundError: ``source`` is a path that is not a directory.
        ProfileError: a profile file in the directory is invalid.
    """
    from models import profiles as mp

    if isinstance(source, CatalogueSet):
        entry: object = {p.profile.id: p.profile for p in source.profiles}
    elif isinstance(source, (str, Path)):
        entry = Path(source).resolve()
        if not entry.is_dir():
            raise FileNotFoundError(f"{source}: not a directory of profile files")
        mp.load_profiles(entry)  # validate now: raises ProfileError
    else:
        entry = {p.id: p for p in source}
    _REGISTERED.append(entry)
    mp.add_profile_source(entry)
    return len(registered_profiles())


def unregister_profiles() -> None:
    """Forget every registration made by :func:`register_profiles`."""
    from models import profiles as mp

    _REGISTERED.clear()
    mp.clear_profile_sources()
