"""Warbands: building rules (rulebook p.18-19) and BattleScribe / NewRecruit rosters.

A :class:`Warband` is a faction, a rice limit, models (profiles, each with its
enhancement cards) and the other special cards taken (events, terrain, a theme). It is
read from the project's YAML format ``bushido-warband/1`` (:func:`load_warband`) or from
a roster exported by BattleScribe or NewRecruit, ``.ros`` (XML) or ``.rosz`` (a zip
holding the ``.ros``) (:func:`read_roster`). Names are resolved against a
:class:`models.bsdata.CatalogueSet`.

:func:`check_warband` applies the warband building rules and returns every reason a
warband is illegal (:class:`Violation`, each naming its rule and rulebook page), plus
notes on what it could not check automatically:

* faction (p.19): a warband has one faction and may not choose Ronin (Ronin rule e);
* rice limit (p.19): the total may not exceed the agreed limit (70 and 100 standard);
* models (p.12, p.19): only models of the faction, or Ronin whose card names the faction
  (Ronin rule a); Su/Sp models cannot be recruited; no more models of a card than its
  wound tracks (or its Max), one copy of each card; models the catalogue allows only
  with another model; models the catalogue hides while another card is taken;
* special cards (p.18): only the faction's or Ronin cards; once each unless ``Max (X)``;
  ``Required`` cards need a model (or theme) of that kind;
* enhancements (p.18): not on Insignificant models; Animal, Construct, Kami and Swarm
  models only take enhancements that require that type; one Equipment card per model;
  ``Required [Type]`` and ``Exclusion [Type]``; Ronin only take Ronin enhancements
  (Ronin rule c);
* themes (p.18-19): at most one; ``Permitted`` and ``Exclusion`` lists (exclusion wins,
  except for models a permitted model allows); Ronin only in faction themes that name
  Ronin of their type (Ronin rule c), freely in Ronin themes (Ronin rule d).

Errors: :class:`WarbandError` (a ``ValueError``) for input that cannot be read: an
unreadable or invalid file, a roster for another game system, a roster or warband naming
entries the catalogues do not have (all of them listed). The message starts with the
file name.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from models.bsdata import (
    RICE_COST_TYPE,
    Card,
    CatalogueError,
    CatalogueProfile,
    CatalogueSet,
    Condition,
    clean,
    read_xml,
)
from models.profiles import Profile
from models.traits import trait_key
from sim.bounds import MAX_NAME
from sim.files import FileProblem, quote, read_yaml

__all__ = [
    "STANDARD_RICE_LIMITS",
    "WARBAND_FORMAT",
    "Selector",
    "Violation",
    "Warband",
    "WarbandCheck",
    "WarbandError",
    "WarbandModel",
    "check_warband",
    "load_warband",
    "parse_selectors",
    "read_roster",
    "read_warband",
    "warband_profiles",
]

#: The format tag of the project's warband files.
WARBAND_FORMAT = "bushido-warband/1"
#: Standard rice limits (rulebook p.19): 70 for quick games, 100 for events.
STANDARD_RICE_LIMITS = (70, 100)

#: Bounds on a roster (docs/bounds.md, "Catalogues and rosters"): the largest ``number``
#: of one selection, the most models, enhancements and cards in all, the largest rice
#: ``costLimit`` (a standard game is 70 or 100), and the most unknown entries an error lists.
MAX_SELECTION_NUMBER = 100
MAX_ROSTER_ITEMS = 500
MAX_RICE_LIMIT = 10_000
_MAX_LISTED = 20

#: Types that only take enhancements requiring them (rulebook p.18).
_RESTRICTED_TYPES = ("animal", "construct", "kami", "swarm")


class WarbandError(ValueError):
    """A warband or roster that cannot be read: bad YAML or XML, a missing field, a
    roster for another game system or catalogue, names or entries the catalogues do not
    have (every one listed). The message starts with the file name."""


@dataclass(frozen=True)
class WarbandModel:
    """One model of a warband: its profile id (see :class:`CatalogueProfile`) and the
    keys (:attr:`models.bsdata.Card.key`) of the enhancement cards attached to it.
    ``label`` is the name the file gave."""

    profile: str
    enhancements: tuple[str, ...] = ()
    label: str | None = None


@dataclass(frozen=True)
class Warband:
    """A warband (rulebook p.19).

    Attributes:
        name: free text.
        faction: the faction (catalogue name) chosen.
        rice_limit: the agreed rice limit, or None if the file gives none.
        models: the models with their enhancements.
        cards: keys (:attr:`models.bsdata.Card.key`) of the other special cards taken
            (events, terrain, theme ...).
        source: the file it was read from.
    """

    name: str
    faction: str
    rice_limit: int | None
    models: tuple[WarbandModel, ...]
    cards: tuple[str, ...] = ()
    source: str = ""


@dataclass(frozen=True)
class Violation:
    """One reason a warband is illegal: ``rule`` (a short id such as ``rice-limit``),
    ``message`` and ``page`` (the rulebook page, or ``catalogue`` for a rule the
    BattleScribe data encodes)."""

    rule: str
    message: str
    page: str

    def __str__(self) -> str:
        return f"{self.rule}: {self.message} ({self.page})"


@dataclass(frozen=True)
class WarbandCheck:
    """The result of :func:`check_warband`: the rice ``cost``, every ``violation`` and
    ``notes`` on what could not be checked automatically."""

    warband: Warband
    cost: int
    violations: tuple[Violation, ...]
    notes: tuple[str, ...] = ()

    @property
    def legal(self) -> bool:
        """True when there is no violation."""
        return not self.violations


# --- selectors: the bracketed lists of Permitted / Exclusion / Required -------------------------


@dataclass(frozen=True)
class Selector:
    """One entry of a ``Permitted``/``Exclusion``/``Required`` list.

    ``kind``: ``type`` (a type or a model name), ``ronin-type`` (``Ronin Samurai``),
    ``any-ronin`` (``Ronin Models``), ``faction`` (``Any Jung profile``), ``trait``
    (``models with Blood of Orochi``), ``theme`` (``Ring of Fire Theme``), ``all``
    (``Loyal & Samurai``: every part must match) or ``unsupported`` (a condition on the
    warband the checker does not evaluate; reported as a note)."""

    text: str
    kind: str
    value: str = ""
    parts: tuple["Selector", ...] = ()


def _norm(word: str) -> str:
    w = " ".join(word.lower().replace("’", "'").split())
    for suffix, repl in (("men", "man"), ("ves", "f"), ("es", "e"), ("s", "")):
        if w.endswith(suffix) and len(w) > len(suffix) + 2:
            return w[: -len(suffix)] + repl
    return w


def _one_selector(text: str, factions: Iterable[str]) -> Selector:
    t = clean(text).strip(" .")
    low = t.lower()
    if " & " in t:
        parts = tuple(_one_selector(p, factions) for p in t.split("&"))
        return Selector(t, "all", "", parts)
    if re.search(r"\s+with\s+", low) and not re.match(r"(any\s+)?models?\s+with\s", low):
        return Selector(t, "unsupported")
    if re.search(r"\bwarbands?\b|\bother than\b|\bmore than\b|\bwith no\b|\bcontains\b|\bin a\b", low):
        return Selector(t, "unsupported")
    if re.search(r"\btheme\b", low):
        value = re.sub(r"\s*\btheme\b.*$", "", t, flags=re.I)
        if " in " in value.lower():
            return Selector(t, "unsupported")
        return Selector(t, "theme", _norm(value.strip(" '\"")))
    m = re.match(r"(?:any\s+)?models?\s+with\s+(?:the\s+)?(.+?)(?:\s+trait)?$", low)
    if m:
        return Selector(t, "trait", m[1].strip())
    core = re.sub(r"^any\s+", "", low)
    core = re.sub(r"\s+(models?|profiles?)$", "", core).strip()
    if core in ("ronin", "ronin model"):
        return Selector(t, "any-ronin")
    if core.startswith("ronin "):
        return Selector(t, "ronin-type", _norm(core[6:]))
    for f in factions:
        fl = f.lower()
        if core and (core == fl or fl.startswith(core + " ") or core == fl.split()[0]):
            return Selector(t, "faction", f)
    return Selector(t, "type", _norm(core))


def parse_selectors(lists: Iterable[str], factions: Iterable[str] = ()) -> list[Selector]:
    """Parse printed bracket lists (``"Wolf models, Ronin Kami"``) into selectors."""
    factions = list(factions)
    out = []
    for text in lists:
        depth, cur, items = 0, "", []
        for ch in text:
            depth += (ch in "[(") - (ch in "])")
            if ch == "," and depth <= 0:
                items.append(cur)
                cur = ""
            else:
                cur += ch
        items.append(cur)
        for item in items:
            for alt in re.split(r"\s+or\s+", item):
                if alt.strip():
                    out.append(_one_selector(alt, factions))
    return out


def _model_names(cp: CatalogueProfile) -> set[str]:
    names = {_norm(cp.profile.name), _norm(cp.card)}
    for t in cp.profile.types:
        names.add(_norm(t))
        if ":" in t:  # "element: void" is printed "Void Element"
            a, b = (x.strip() for x in t.split(":", 1))
            names.add(_norm(f"{b} {a}"))
    return names


def _matches(sel: Selector, cp: CatalogueProfile, allow_ronin_by_type: bool) -> bool | None:
    """True/False, or None for a selector that does not speak of models."""
    if sel.kind == "all":
        results = [_matches(p, cp, allow_ronin_by_type) for p in sel.parts]
        if any(r is None for r in results):
            return None
        return all(results)
    if sel.kind == "type":
        if cp.ronin and not allow_ronin_by_type:
            return False
        return sel.value in _model_names(cp)
    if sel.kind == "ronin-type":
        return cp.ronin and sel.value in _model_names(cp)
    if sel.kind == "any-ronin":
        return cp.ronin
    if sel.kind == "faction":
        return not cp.ronin and sel.value in cp.factions
    if sel.kind == "trait":
        return cp.profile.has_trait(sel.value) or any(
            t.keyword.startswith(sel.value.replace(" ", "_")) for t in cp.profile.traits)
    return None


# --- reading warbands --------------------------------------------------------------------------


def _resolve_profile(cs: CatalogueSet, name: str, faction: str | None) -> CatalogueProfile:
    key = name.strip().lower()
    hits = [p for p in cs.profiles if key in (p.profile.id, p.profile.name.lower(), (p.profile.bs_id or "").lower())]
    if not hits:
        return cs.profile(name)  # raises KeyError with close matches
    if faction:
        hits.sort(key=lambda p: (faction not in p.factions, p.ronin))
    return hits[0]


def _resolve_card(cs: CatalogueSet, name: str, faction: str | None, kinds: tuple[str, ...] | None) -> Card:
    key = name.strip().lower()
    hits = [c for c in cs.cards
            if key in (c.key.lower(), c.id.lower(), c.name.lower()) and (kinds is None or c.kind in kinds)]
    if not hits:
        for kind in kinds or (None,):
            try:
                return cs.card(name, kind)
            except KeyError:
                continue
        return cs.card(name, kinds[0] if kinds and len(kinds) == 1 else None)
    if faction:
        hits.sort(key=lambda c: (faction not in c.factions, not c.ronin))
    return hits[0]


_NAME_RULE = f"a name is one line of 1 to {MAX_NAME} printable characters"


def _is_name(value: object) -> bool:
    """A usable name in a warband file (docs/bounds.md): a str of 1 to MAX_NAME printable
    characters."""
    return isinstance(value, str) and 0 < len(value) <= MAX_NAME and value.isprintable()


def read_warband(data: dict, cs: CatalogueSet, source: str = "<warband>") -> Warband:
    """Build a :class:`Warband` from a ``bushido-warband/1`` mapping::

        format: bushido-warband/1
        name: Dragon's Claw
        faction: Prefecture of Ryu
        rice: 70
        theme: Blood of the Dragon        # optional
        models:
          - profile: Takashi Akira
            enhancements: [Dragon Heart]
          - Guardsman of Ryu A            # a profile id or name alone
        events: [Heroic Stand]
        terrain: []
        cards: []                         # any other special card

    Raises:
        WarbandError: a missing or wrong field, or names the catalogues do not have
            (all of them listed, with close matches).
    """
    if not isinstance(data, dict):
        raise WarbandError(f"{source}: expected a mapping with format {WARBAND_FORMAT}")
    if data.get("format") != WARBAND_FORMAT:
        raise WarbandError(f"{source}: format: expected {WARBAND_FORMAT!r}, got {quote(data.get('format'))}")
    allowed = {"format", "name", "faction", "rice", "theme", "models", "events", "terrain", "cards", "data"}
    extra = sorted(set(data) - allowed, key=str)
    if extra:
        raise WarbandError(f"{source}: unknown field(s) {', '.join(map(quote, extra[:5]))}")
    faction = data.get("faction")
    if not isinstance(faction, str) or not faction.strip():
        raise WarbandError(f"{source}: faction: missing (a faction catalogue name)")
    for key in ("name", "faction", "data"):  # names are one line of at most MAX_NAME characters
        if data.get(key) is not None and not _is_name(data[key]):
            raise WarbandError(f"{source}: {key}: {_NAME_RULE}, not {quote(data[key])}")
    rice = data.get("rice")
    if rice is not None and (not isinstance(rice, int) or isinstance(rice, bool) or not 0 < rice <= MAX_RICE_LIMIT):
        raise WarbandError(f"{source}: rice: expected a positive whole number up to {MAX_RICE_LIMIT}, "
                           f"got {quote(rice)}")
    try:
        fname = cs.catalogue(faction).name
    except KeyError:
        fname = faction.strip()
    models_raw = data.get("models") or []
    if not isinstance(models_raw, list):
        raise WarbandError(f"{source}: models: expected a list")
    if len(models_raw) > MAX_ROSTER_ITEMS:
        raise WarbandError(f"{source}: models: {len(models_raw)} models; the limit is {MAX_ROSTER_ITEMS}")
    problems: list[str] = []
    models = []
    for i, m in enumerate(models_raw):
        if isinstance(m, str):
            m = {"profile": m}
        if not isinstance(m, dict) or not isinstance(m.get("profile"), str):
            problems.append(f"models[{i}]: expected a profile name or {{profile: NAME, enhancements: [...]}}")
            continue
        extra = sorted(set(m) - {"profile", "enhancements"}, key=str)
        if extra:
            problems.append(f"models[{i}]: unknown field(s) {', '.join(map(quote, extra[:5]))}")
            continue
        if not _is_name(m["profile"]):
            problems.append(f"models[{i}].profile: {_NAME_RULE}, not {quote(m['profile'])}")
            continue
        enhancements = m.get("enhancements") or []
        if not isinstance(enhancements, list) or not all(_is_name(e) for e in enhancements):
            problems.append(f"models[{i}].enhancements: expected a list of card names ({_NAME_RULE})")
            continue
        try:
            cp = _resolve_profile(cs, m["profile"], fname)
        except KeyError as exc:
            problems.append(f"models[{i}].profile: {exc.args[0]}")
            continue
        enh = []
        for j, e in enumerate(enhancements):
            try:
                enh.append(_resolve_card(cs, str(e), fname, ("enhancement",)).key)
            except KeyError as exc:
                problems.append(f"models[{i}].enhancements[{j}]: {exc.args[0]}")
        models.append(WarbandModel(cp.profile.id, tuple(enh), m["profile"]))
    cards = []
    for key, kinds in (("theme", ("theme",)), ("events", ("event",)), ("terrain", ("terrain",)), ("cards", None)):
        value = data.get(key)
        if value is None:
            continue
        items = [value] if isinstance(value, str) else value
        if not isinstance(items, list) or not all(_is_name(n) for n in items):
            problems.append(f"{key}: expected a list of card names ({_NAME_RULE})")
            continue
        for j, name in enumerate(items):
            try:
                cards.append(_resolve_card(cs, str(name), fname, kinds).key)
            except KeyError as exc:
                problems.append(f"{key}[{j}]: {exc.args[0]}")
    if problems:
        more = f"; ... {len(problems) - _MAX_LISTED} more" if len(problems) > _MAX_LISTED else ""
        raise WarbandError(f"{source}: " + "; ".join(problems[:_MAX_LISTED]) + more)
    return Warband(str(data.get("name") or Path(source).stem), fname, rice, tuple(models), tuple(cards), source)


def load_warband(path: str | Path, cs: CatalogueSet) -> Warband:
    """Read a warband file: ``bushido-warband/1`` YAML, or a BattleScribe/NewRecruit
    roster (``.ros``/``.rosz``, see :func:`read_roster`).

    Raises:
        WarbandError: unreadable file, bad YAML, wrong fields, unknown names.
    """
    path = Path(path)
    if path.suffix.lower() in (".ros", ".rosz"):
        return read_roster(path, cs)
    try:
        data = read_yaml(path)  # bounded, UTF-8, no control characters (docs/bounds.md)
    except FileProblem as exc:
        raise WarbandError(str(exc)) from None
    return read_warband(data, cs, str(path))


# --- rosters ---------------------------------------------------------------------------------------


def read_roster(path: str | Path, cs: CatalogueSet) -> Warband:
    """Read a roster exported by BattleScribe or NewRecruit (``.ros``, or ``.rosz``: a
    zip holding the ``.ros``) into a :class:`Warband`.

    The roster's ``gameSystemId`` must be the catalogues' game system and its force's
    ``catalogueId`` a faction catalogue. Each ``selection`` is resolved by its
    ``entryId`` (``link::target`` paths are followed): a model profile, a profile card
    (a unit whose model selections follow), an enhancement (attached to the model it is
    nested in), or another special card. The rice limit is the roster's ``costLimit`` of
    the rice cost type.

    Raises:
        WarbandError: unreadable or broken file (a truncated XML names line and column),
            another game system, an unknown catalogue, selections whose entries the
            catalogues do not have (every one listed). Nothing is returned then.
    """
    path = Path(path)
    try:
        root = read_xml(path, ("roster",))
    except CatalogueError as exc:
        raise WarbandError(str(exc)) from None
    gs = root.get("gameSystemId")
    if gs != cs.game_system.id:
        raise WarbandError(
            f"{path}: roster is for game system {gs!r} ({root.get('gameSystemName') or 'unnamed'}), "
            f"not {cs.game_system.name!r} ({cs.game_system.id})"
        )
    limit = None
    for c in root.iterfind("costLimits/costLimit"):
        if c.get("typeId") == RICE_COST_TYPE:
            raw = c.get("value")
            where = f"{path}: costLimit {quote(clean(c.get('name')) or 'rice')}"
            try:
                v = float(raw)
            except (TypeError, ValueError):
                raise WarbandError(f"{where}: not a number: {quote(raw)}") from None
            if not math.isfinite(v) or v > MAX_RICE_LIMIT or (v > 0 and v != int(v)):
                raise WarbandError(f"{where}: expected a whole number of rice up to {MAX_RICE_LIMIT} "
                                   f"(0 or less: no limit), got {quote(raw)}")
            limit = int(v) if v > 0 else None
    forces = root.findall("forces/force")
    if not forces:
        raise WarbandError(f"{path}: the roster has no force")
    if len(forces) > 1:
        raise WarbandError(f"{path}: the roster has {len(forces)} forces; a Bushido warband has one")
    force = forces[0]
    try:
        cat = cs.catalogue(force.get("catalogueId") or "")
    except KeyError:
        raise WarbandError(
            f"{path}: force uses catalogue {quote(force.get('catalogueName'))} ({quote(force.get('catalogueId'))}), "
            "which is not among the imported catalogues"
        ) from None
    faction = cat.name
    unknown: list[str] = []
    models: list[dict] = []
    cards: list[str] = []
    used: Counter = Counter()

    def pick_card(part: str) -> Card | None:
        keys = cs.entry_cards.get(part) or ()
        found = [cs.card_by_key(k) for k in keys]
        found.sort(key=lambda c: (c.catalogue != faction, faction not in c.factions, not c.ronin))
        return found[0] if found else None

    def resolve(sel) -> tuple[str, object] | None:
        eid = sel.get("entryId") or ""
        name = clean(sel.get("name"))
        parts = [p for p in eid.split("::") if p]
        for part in reversed(parts):
            pids = cs.entry_profiles.get(part)
            if pids:
                exact = [p for p in pids if cs.profile(p).profile.name.lower() == name.lower()]
                mine = [p for p in (exact or pids) if faction in cs.profile(p).factions] or exact or list(pids)
                fresh = [p for p in mine if used[p] == 0]
                pid = (fresh or mine)[0]
                card = pick_card(part)
                if card is not None and card.kind == "profile" and part in card.entry_ids:
                    return "card", card  # the card itself: its models follow, or it is the model
                return "profile", cs.profile(pid)
            card = pick_card(part)
            if card is not None:
                return "card", card
        for part in reversed(parts):
            if part in cs.entry_names:
                return "known", cs.entry_names[part]
        return None

    items = [0]  # models, enhancements and cards taken so far (bounded by MAX_ROSTER_ITEMS)

    def count(sel, n: int) -> None:
        items[0] += n
        if items[0] > MAX_ROSTER_ITEMS:
            raise WarbandError(f"{path}: selection {quote(clean(sel.get('name')))} (id {quote(sel.get('id') or '')}): "
                               f"more than {MAX_ROSTER_ITEMS} models, enhancements and cards in the roster")

    def selection_number(sel) -> int:
        raw = sel.get("number")
        if raw is None:
            return 1
        try:
            v = float(raw)
        except ValueError:
            v = math.nan
        if not math.isfinite(v) or v != int(v) or not 1 <= v <= MAX_SELECTION_NUMBER:
            raise WarbandError(f"{path}: selection {quote(clean(sel.get('name')))} (id {quote(sel.get('id') or '')}): "
                               f"number: expected a whole number from 1 to {MAX_SELECTION_NUMBER}, got {quote(raw)}")
        return int(v)

    def visit(sel, owner: dict | None):
        got = resolve(sel)
        number = selection_number(sel)
        children = sel.findall("selections/selection")
        label = clean(sel.get("customName")) or clean(sel.get("name"))
        if got is None:
            unknown.append(f"{quote(clean(sel.get('name')) or '?')} (entryId {quote(sel.get('entryId'))})")
            for ch in children:
                visit(ch, owner)
            return
        kind, obj = got
        if kind == "profile":
            count(sel, number)
            for _ in range(number):
                m = {"profile": obj.profile.id, "enhancements": [], "label": label}
                used[obj.profile.id] += 1
                models.append(m)
            for ch in children:
                visit(ch, models[-1])
            return
        if kind == "card" and obj.kind == "profile":
            holder = {"profile": None, "enhancements": [], "label": label}
            before = len(models)
            for ch in children:
                visit(ch, holder)
            if len(models) == before:  # the card is the model (or its models are not listed)
                pids = list(obj.profiles) * number if len(obj.profiles) == 1 else list(obj.profiles[:number])
                count(sel, len(pids))
                for pid in pids:
                    models.append({"profile": pid, "enhancements": list(holder["enhancements"]), "label": label})
                    used[pid] += 1
            elif holder["enhancements"]:  # enhancements chosen on the unit go to its first model
                models[before]["enhancements"].extend(holder["enhancements"])
            return
        if kind == "card" and obj.kind == "enhancement":
            target = owner if owner is not None else (models[-1] if models else None)
            if target is None:
                unknown.append(f"{obj.name}: an enhancement outside any model")
            else:
                count(sel, number)
                target["enhancements"].extend([obj.key] * number)
            for ch in children:
                visit(ch, target)
            return
        if kind == "card":
            count(sel, number)
            cards.extend([obj.key] * number)
        for ch in children:
            visit(ch, owner)

    for sel in force.findall("selections/selection"):
        visit(sel, None)
    if unknown:
        more = f"; ... {len(unknown) - _MAX_LISTED} more" if len(unknown) > _MAX_LISTED else ""
        raise WarbandError(f"{path}: entries not in the catalogues: " + "; ".join(unknown[:_MAX_LISTED]) + more)
    return Warband(
        clean(root.get("name")) or path.stem, faction, limit,
        tuple(WarbandModel(m["profile"], tuple(m["enhancements"]), m["label"]) for m in models),
        tuple(cards), str(path),
    )


# --- checking ----------------------------------------------------------------------------------------


class _Context:
    """What the condition atoms count: the warband's models and cards."""

    def __init__(self, wb: Warband, cs: CatalogueSet, profiles: list[CatalogueProfile], cards: list[Card]):
        self.wb, self.cs, self.profiles, self.cards = wb, cs, profiles, cards
        self.catalogue_id = next((c.id for c in cs.catalogues if c.name == wb.faction), None)

    def count(self, child_id: str | None, kind: str | None, name: str | None) -> int:
        """How many models and cards of the warband are the entry (or have the category)."""
        if not child_id:
            return 0
        n = 0
        if kind == "category":
            for p in self.profiles:
                n += name in p.categories
            for c in self.cards:
                n += name in c.categories
            return n
        for p in self.profiles:
            n += child_id in p.entry_ids or child_id == p.card_id
        for c in self.cards:
            n += child_id in c.entry_ids
        return n

    def eval(self, cond: Condition) -> bool | None:
        """True/False, or None where a condition cannot be evaluated on a warband."""
        if cond.op != "atom":
            vals = [self.eval(i) for i in cond.items]
            if cond.op == "or":
                return True if any(v is True for v in vals) else (False if all(v is False for v in vals) else None)
            return False if any(v is False for v in vals) else (True if all(v is True for v in vals) else None)
        if cond.scope == "primary-catalogue" and cond.type in ("instanceOf", "notInstanceOf"):
            same = self.catalogue_id == cond.child_id
            return same if cond.type == "instanceOf" else not same
        if cond.scope not in ("roster", "force"):
            return None
        n = self.count(cond.child_id, cond.child_kind, cond.child_name)
        v = cond.value
        return {"atLeast": n >= v, "atMost": n <= v, "lessThan": n < v, "greaterThan": n > v,
                "equalTo": n == v, "notEqualTo": n != v}.get(cond.type)

    def true_atoms(self, cond: Condition) -> list[Condition]:
        """The atoms of ``cond`` that hold (to say why a condition is met)."""
        if cond.op == "atom":
            return [cond] if self.eval(cond) else []
        out = []
        for i in cond.items:
            if self.eval(i):
                out += self.true_atoms(i)
        return out


def _card(cs: CatalogueSet, key: str) -> Card:
    return cs.card_by_key(key)


def warband_profiles(wb: Warband, cs: CatalogueSet) -> list[Profile]:
    """The project profiles of the warband's models, in order (to deploy them on a
    table, see ``docs/catalogues.md``)."""
    return [cs.profile(m.profile).profile for m in wb.models]


def check_warband(wb: Warband, cs: CatalogueSet) -> WarbandCheck:
    """Apply the warband building rules (rulebook p.18-19) and return every violation.

    Never raises for an illegal warband; unknown ids raise ``KeyError`` (a warband built
    by :func:`read_warband` or :func:`read_roster` has none).
    """
    v: list[Violation] = []
    notes: list[str] = []
    profiles = [cs.profile(m.profile) for m in wb.models]
    extra_cards = [_card(cs, c) for c in wb.cards]
    enh_cards = [(i, _card(cs, e)) for i, m in enumerate(wb.models) for e in m.enhancements]
    all_cards = extra_cards + [c for _i, c in enh_cards]
    ctx = _Context(wb, cs, profiles, all_cards)
    factions = cs.factions()

    # faction (p.19, Ronin rule e)
    fcat = next((c for c in cs.catalogues if c.name.lower() == wb.faction.lower()), None)
    if wb.faction.strip().lower() == "ronin" or (fcat is not None and fcat.library):
        v.append(Violation("faction", f"a warband cannot choose Ronin as its faction ({wb.faction!r}); "
                                      "choose a faction and recruit the Ronin that work for it", "p.19 (Ronin e)"))
    elif fcat is None:
        v.append(Violation("faction", f"unknown faction {wb.faction!r}; factions: {', '.join(factions)}", "p.19"))

    # rice (p.19)
    cost = sum(p.profile.rice or 0 for p in profiles) + sum(c.rice or 0 for c in all_cards)
    if wb.rice_limit is None:
        v.append(Violation("rice-limit", "no rice limit given (70 and 100 are standard)", "p.19"))
    else:
        if cost > wb.rice_limit:
            v.append(Violation("rice-limit", f"costs {cost} rice, over the limit of {wb.rice_limit}", "p.19"))
        if wb.rice_limit not in STANDARD_RICE_LIMITS:
            notes.append(f"rice limit {wb.rice_limit} is not a standard one (70, 100); "
                         "agreed limits are allowed (p.19)")
    if any(c.kind == "theme" for c in extra_cards):
        notes.append("theme cards that change rice costs are not applied to the total")

    # models (p.12, p.19)
    for m, p in zip(wb.models, profiles):
        label = p.profile.name
        if wb.faction not in p.factions:
            if p.ronin:
                works = ", ".join(p.factions) or "no faction in these catalogues"
                v.append(Violation("model-faction", f"{label} is a Ronin who does not work for {wb.faction} "
                                                    f"(works for: {works})", "p.19 (Ronin a)"))
            else:
                v.append(Violation("model-faction", f"{label} is a {p.profile.faction} model, not {wb.faction}",
                                   "p.19"))
        if not p.recruitable:
            v.append(Violation("recruitable", f"{label} cannot be recruited (Su/Sp: it enters play by a rule, "
                                              "not by recruitment)", "p.12"))
    # Hatred [K] (p.52): "эта модель не может быть включена в отряд, который включает в себя
    # модели [Ключевое слово]" -- K a model's name, card or type
    for i, p in enumerate(profiles):
        for t in p.profile.traits:
            key = trait_key(t.keyword)
            if key != "hatred" or not t.qualifier:
                continue
            for k in (x.strip() for x in t.qualifier.split(",") if x.strip()):
                hated = sorted({q.profile.name for j, q in enumerate(profiles)
                                if j != i and _norm(k) in _model_names(q)})
                if hated:
                    v.append(Violation("hatred", f"{p.profile.name} has Hatred [{k.title()}]: the warband may not "
                                                 f"include {', '.join(hated)}", "p.52"))
    per_profile = Counter(m.profile for m in wb.models)
    for pid, n in per_profile.items():
        p = cs.profile(pid)
        if p.max_copies is not None and n > max(1, p.max_copies) and p.recruitable:
            v.append(Violation("copies", f"{p.profile.name}: {n} models, but only {max(1, p.max_copies)} allowed "
                                         f"(one wound track each on card {p.card!r})", "p.12, p.19"))
    per_card = Counter(p.card_key for p in profiles)
    for ckey, n in per_card.items():
        try:
            card = cs.card_by_key(ckey)
        except KeyError:
            continue
        limit = max(1, card.wound_tracks) * (card.max_copies if card.max_copies and card.max_copies > 1 else 1)
        if n > limit and len(card.profiles) > 1:  # one profile: the per-profile count above says it
            v.append(Violation("copies", f"card {card.name!r}: {n} models, but the card has {limit} wound "
                                         f"track{'s' if limit != 1 else ''}", "p.12, p.19"))

    # catalogue conditions: models or cards the data allow only with / never with others
    theme_entries = {e for c in cs.cards if c.kind == "theme" for e in c.entry_ids}
    seen_cards = set()
    for obj in [cs.card_by_key(p.card_key) for p in profiles] + extra_cards:
        if obj.key in seen_cards:
            continue
        seen_cards.add(obj.key)
        if obj.max_copies == 0 and obj.unlocked_by:
            results = [ctx.eval(c) for c in obj.unlocked_by]
            if not any(r is True for r in results):
                if all(r is False for r in results):
                    why = " or ".join(c.describe() for c in obj.unlocked_by)
                    v.append(Violation("requires", f"{obj.name} may only be recruited when {why}", "p.19, catalogue"))
                    continue  # its hiding conditions would say the same again
                else:
                    notes.append(f"{obj.name}: the condition that allows it could not be checked")
        for cond in obj.hidden_when:
            if ctx.eval(cond) is True:
                atoms = ctx.true_atoms(cond)
                if atoms and all(("theme cards" in (a.child_name or "").lower() or a.child_id in theme_entries)
                                 and a.type in ("atLeast", "greaterThan", "equalTo") for a in atoms):
                    continue  # hidden because a theme is taken: the theme rules below say it
                if obj.kind != "profile" and obj.required and any(
                        a.child_id in theme_entries and a.type in ("lessThan", "atMost") for a in atoms):
                    continue  # needs a theme: the card's Required rule below says it
                why = " and ".join(a.describe() for a in atoms) or cond.describe()
                v.append(Violation("catalogue", f"{obj.name} is not available when {why}", "catalogue"))

    # special cards (p.18)
    counts = Counter(c.key for c in all_cards)
    for cid, n in counts.items():
        c = _card(cs, cid)
        if c.kind == "profile":
            v.append(Violation("card-kind", f"{c.name} is a profile card; list it under models", "p.19"))
            continue
        if wb.faction not in c.factions and fcat is not None and not fcat.library:
            v.append(Violation("card-faction", f"{c.kind} card {c.name!r} belongs to "
                                               f"{', '.join(c.factions) or c.catalogue}, "
                                               f"not {wb.faction} (only the faction's and Ronin cards)", "p.18"))
        limit = c.max_copies if c.max_copies is not None else 1
        if c.max_copies == 0 and c.unlocked_by:
            limit = 1
        if n > max(limit, 0) and not (c.max_copies == 0 and not c.unlocked_by):
            v.append(Violation("card-copies", f"{c.name!r} taken {n} times; allowed {limit} (Max)", "p.18"))
        elif c.max_copies == 0 and not c.unlocked_by:
            v.append(Violation("card-copies", f"{c.name!r} cannot be taken (the catalogue allows it 0 times)", "p.18"))

    # theme (p.18-19)
    themes = [c for c in extra_cards if c.kind == "theme"]
    if len(themes) > 1:
        v.append(Violation("theme-one", "only one theme per warband; taken: " + ", ".join(t.name for t in themes),
                           "p.18"))
    theme = themes[0] if themes else None

    def theme_matches(sel) -> bool | None:
        if theme is None:
            return False
        want = sel.value
        return _norm(theme.name) == want or _norm(theme.name).startswith(want) or want.startswith(_norm(theme.name))

    # events, terrain and other cards with Required (p.18)
    for c in extra_cards:
        if c.kind in ("event", "terrain", "other") and c.required:
            ok, unsupported = _warband_requirement(c, profiles, factions, theme_matches)
            if unsupported:
                notes.append(f"{c.name}: requirement not checked automatically: {'; '.join(unsupported)}")
            if ok is False:
                v.append(Violation("card-required", f"{c.kind} card {c.name!r} requires [{'; '.join(c.required)}], "
                                                    "which the warband does not have", "p.18"))

    # enhancements (p.18, Ronin c)
    for i, m in enumerate(wb.models):
        p = profiles[i]
        label = p.profile.name
        mine = [_card(cs, e) for e in m.enhancements]
        if not mine:
            continue
        cats = {c.lower() for c in p.categories}
        insignificant = p.profile.has_trait("insignificant") or "insignificant" in p.profile.types
        if insignificant:
            v.append(Violation("enh-insignificant", f"{label} is Insignificant and cannot take enhancements "
                                                    f"({', '.join(c.name for c in mine)})", "p.18"))
        equipment = [c for c in mine if c.equipment]
        if len(equipment) > 1:
            v.append(Violation("enh-equipment", f"{label} has {len(equipment)} Equipment cards "
                                                f"({', '.join(c.name for c in equipment)}); one at most", "p.18"))
        restricted = [t for t in _RESTRICTED_TYPES if t in p.profile.types]
        for c in mine:
            if c.kind != "enhancement":
                v.append(Violation("enh-kind", f"{c.name} is a {c.kind} card, not an enhancement ({label})", "p.18"))
                continue
            req = parse_selectors(c.required, factions)
            model_req = [s for s in req if s.kind not in ("theme", "unsupported")]
            text_req = " ".join(c.required).lower() + " " + " ".join(c.required_categories).lower()
            for t in restricted:
                if not re.search(rf"\b{t}", text_req):
                    v.append(Violation("enh-restricted-type", f"{label} is {t.title()} and may only take enhancements "
                                                              f"that require {t.title()}; {c.name} does not", "p.18"))
            if model_req:
                res = [_matches(s, p, True) for s in model_req]
                if not any(r is True for r in res) and all(r is False for r in res):
                    v.append(Violation("enh-required", f"{c.name} requires [{'; '.join(c.required)}]; {label} is not",
                                       "p.18"))
            elif c.required_categories and not ({x.lower() for x in c.required_categories}
                                                & (set(p.profile.types) | cats)):
                v.append(Violation("enh-required", f"{c.name} may only go to {' or '.join(c.required_categories)} "
                                                   f"models; {label} is not", "p.18, catalogue"))
            for s in req:
                if s.kind == "theme" and not theme_matches(s):
                    v.append(Violation("enh-required", f"{c.name} requires the {s.text}; the warband's theme is "
                                                       f"{theme.name if theme else 'none'}", "p.18"))
                elif s.kind == "unsupported":
                    notes.append(f"{c.name}: requirement not checked automatically: {s.text}")
            exc = parse_selectors(c.excluded, factions)
            for s in exc:
                r = _matches(s, p, True)
                if r is True:
                    v.append(Violation("enh-excluded", f"{c.name} excludes {s.text}; {label} is one", "p.18"))
                elif s.kind == "theme" and theme_matches(s):
                    v.append(Violation("enh-excluded", f"{c.name} excludes the {s.text}", "p.18"))
                elif r is None and s.kind != "theme":
                    notes.append(f"{c.name}: exclusion not checked automatically: {s.text}")
            excl_cats = {x.lower() for x in c.excluded_categories}
            if excl_cats & (set(p.profile.types) | cats):
                v.append(Violation("enh-excluded", f"{c.name} may not go to {', '.join(c.excluded_categories)} "
                                                   f"models; {label} is one", "p.18, catalogue"))
            if p.ronin and not c.ronin and "permit faction enhancements" not in cats:
                v.append(Violation("enh-ronin", f"{label} is a Ronin and may only take Ronin enhancement cards; "
                                                f"{c.name} is a {c.catalogue} card", "p.19 (Ronin c)"))
            if c.ronin and "exclude ronin enhancements" in cats:
                v.append(Violation("enh-ronin", f"{label} may not take Ronin enhancements ({c.name})", "catalogue"))
            if c.equipment and "disallow equipment" in cats:
                v.append(Violation("enh-equipment", f"{label} may not take Equipment ({c.name})", "catalogue"))

    # themes: Permitted / Exclusion (p.18-19, Ronin c and d)
    if theme is not None:
        permitted = parse_selectors(theme.permitted, factions)
        excluded = parse_selectors(theme.excluded, factions)
        model_perm = [s for s in permitted if s.kind not in ("theme", "unsupported")]
        for s in permitted + excluded:
            if s.kind == "unsupported":
                notes.append(f"theme {theme.name}: not checked automatically: {s.text}")
        ronin_theme = theme.ronin
        allowed_by: set[str] = set()
        is_perm = []
        for p in profiles:
            if model_perm:
                ok = any(_matches(s, p, False) is True for s in model_perm)
            else:
                ok = (not p.ronin) or ronin_theme
            is_perm.append(ok)
            if ok:
                allowed_by.update(cs.card_by_key(p.card_key).allows)
        for p, ok in zip(profiles, is_perm):
            by_other = p.card_key in allowed_by
            if not ok and not by_other:
                if p.ronin and not ronin_theme:
                    v.append(Violation("theme-ronin", f"{p.profile.name} is a Ronin; the faction theme {theme.name!r} "
                                                      "does not name Ronin of its type", "p.19 (Ronin c)"))
                else:
                    v.append(Violation("theme-permitted", f"{p.profile.name} is not permitted by theme {theme.name!r} "
                                                          f"(Permitted [{'; '.join(theme.permitted)}])", "p.18"))
            if by_other and not ok:
                continue  # allowed by a permitted model, regardless of any exclusion
            hit = [s for s in excluded if _matches(s, p, True) is True]
            if hit:
                v.append(Violation("theme-excluded", f"{p.profile.name} is excluded by theme {theme.name!r} "
                                                     f"(Exclusion [{hit[0].text}])", "p.18"))
    return WarbandCheck(wb, cost, tuple(v), tuple(dict.fromkeys(notes)))


def _warband_requirement(card: Card, profiles, factions, theme_matches) -> tuple[bool | None, list[str]]:
    """Whether the warband meets an event/terrain card's ``Required`` list: True if any
    alternative holds, False if all fail, None if none could be evaluated."""
    sels = parse_selectors(card.required, factions)
    results, unsupported = [], []
    for s in sels:
        if s.kind == "unsupported":
            unsupported.append(s.text)
            continue
        if s.kind == "theme":
            results.append(bool(theme_matches(s)))
            continue
        r = [_matches(s, p, True) for p in profiles]
        if all(x is None for x in r) and r:
            unsupported.append(s.text)
            continue
        results.append(any(x is True for x in r))
    if not results:
        return None, unsupported
    return any(results), unsupported

