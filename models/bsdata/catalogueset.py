"""The result of one import: :class:`CatalogueSet`, with case-insensitive look-ups of
catalogues, factions' profiles (rulebook p.19 a), profiles and cards.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import Iterable, Mapping

from models.bsdata.records import Card, CatalogueInfo, CatalogueProfile, ImportStats, Issue


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
        found = [c for c in self.cards
                 if (kind is None or c.kind == kind) and k in (c.key.lower(), c.id.lower(), c.name.lower())]
        if not found and key.strip() in self.entry_cards:
            keys = self.entry_cards[key.strip()]
            found = [c for c in self.cards if c.key in keys and (kind is None or c.kind == kind)]
        if found:
            if prefer:
                pf = prefer.lower()
                found.sort(key=lambda c: (c.catalogue.lower() != pf and pf not in (f.lower() for f in c.factions),
                                          not c.ronin))
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
