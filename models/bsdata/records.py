"""The records one BattleScribe import yields (rulebook p.10-19): the error type, issues,
Ki feats (p.46), unique effects, terrain cards (p.18, p.60), model profiles with what
``bushido-profiles/1`` cannot hold, cards (p.18-19), catalogue descriptions and counts.

Plain frozen data classes: nothing here reads XML or text.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from models.bsdata.conditions import Condition
from models.profiles import Profile, Trait, Weapon
from models.traits import has_trait
from sim.files import one_line, quote

#: The ``costType`` id of rice in the Bushido game system.
RICE_COST_TYPE = "a111-8656-5c05-7415"

_SIZES = ("zero", "tiny", "small", "medium", "large", "huge")
_BASES = (30, 40, 50, 60)
_TIMINGS = ("active", "instant", "simple", "complex", "special")
_AREAS = ("personal", "target", "pulse", "aura", "special")


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
        return has_trait(self.traits, "destructible")


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
