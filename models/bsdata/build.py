"""Building the public records of an import (:class:`~models.bsdata.records.CatalogueProfile`,
:class:`~models.bsdata.records.Card`, :class:`~models.bsdata.catalogueset.CatalogueSet`)
from what the importer's walk collected: characteristics, traits, weapons, Ki feats,
terrain cards, card restrictions (rulebook p.18-19), every field counted and every
problem reported once.

:class:`_Build` is a mixin of :class:`models.bsdata.importer._Importer`: its methods use
the walk's state (``self.profiles``, ``self.cards``, ``self.issues`` ...).
"""

from __future__ import annotations

import difflib
import re
import xml.etree.ElementTree as ET

from models.bsdata import limits
from models.bsdata.catalogueset import CatalogueSet
from models.bsdata.conditions import (
    _atoms,
    _card_max,
    _condition_tree,
    _hidden_conditions,
    _iter_modifiers,
    _unlock_conditions,
)
from models.bsdata.entries import _CardBuild, _chars, _merge, _Own
from models.bsdata.fields import _feat_subject, _range_bands, _size_base, _stat, _strength, _wounds
from models.bsdata.records import (
    _BASES,
    _SIZES,
    _TIMINGS,
    Card,
    CatalogueError,
    CatalogueInfo,
    CatalogueProfile,
    ImportStats,
    KiFeat,
    TerrainStats,
    UniqueEffect,
)
from models.bsdata.text import clean, slug
from models.bsdata.traittext import _Exhausted, _parse_list
from models.bsdata.xmlread import _File
from models.profiles import Profile, Trait, Weapon
from models.traits import keyword_of
from sim.files import quote


class _Build:
    """The building half of :class:`models.bsdata.importer._Importer`."""

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
                        if (atom.type in ("atLeast", "greaterThan", "equalTo")
                                and c.key not in allows.setdefault(src, [])):
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
        if self.fields > limits.MAX_PARSED_FIELDS:
            raise CatalogueError(f"{f.path}: {quote(where)}: {fld}: more than {limits.MAX_PARSED_FIELDS} fields "
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
                self.issue(f, label, "Specials", t.text, "not a special attack or defence; kept as a weapon trait",
                           "repaired")
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
        for key, label in (("melee", "Melee Boost"), ("ranged", "Ranged Boost"), ("move", "Move Boost"),
                           ("ki", "Ki Boost")):
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
                    traits.append(Trait(keyword_of(r), None, None, r, None))
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
            unique_effects=tuple(effects),
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
        equipment = (any("equipment" in (ct or "").lower() for ct in cats)
                     or bool(re.search(r"^\s*equipment\b", text, re.I | re.M)))
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
        self._field(f, where, "Base", btext,
                    "int" if (m or btext.lower() == "card") else ("empty" if not btext else "bad"))

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
                if not atoms or any(a.scope not in ("parent", "ancestor")
                                    or a.type not in ("instanceOf", "notInstanceOf")
                                    or a.child_kind != "category" for a in atoms):
                    continue
                names = [a.child_name or "" for a in atoms]
                instance_of = all(a.type == "instanceOf" for a in atoms)
                not_instance_of = all(a.type == "notInstanceOf" for a in atoms)
                if hidden_default and m.get("value") == "false" and instance_of and cond.op in ("or", "atom"):
                    required.extend(n for n in names if n not in required)
                elif m.get("value") == "true" and instance_of and cond.op in ("or", "atom"):
                    excluded.extend(n for n in names if n not in excluded)
                elif m.get("value") == "true" and not_instance_of and cond.op in ("and", "atom"):
                    required.extend(n for n in names if n not in required)
        return required, excluded


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
