"""The importer's walk (rulebook p.10-19 as the catalogues encode it): resolve the
catalogues' links (``catalogueLink``, ``entryLink``, ``infoLink``), scan what each entry
holds and walk every catalogue from its root entries, collecting the Character Profiles
with the layers of entries above them and the cards they are on. Building the public
records from what the walk collected is :mod:`models.bsdata.build` (a mixin of
:class:`_Importer`).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from models.bsdata import limits
from models.bsdata.build import _Build
from models.bsdata.entries import _apply_name, _CardBuild, _chars, _Layer, _max_parent, _merge, _Own
from models.bsdata.records import RICE_COST_TYPE, CatalogueError, Issue
from models.bsdata.text import _attribute_number, _split_top, clean
from models.bsdata.traittext import _Vocabulary
from models.bsdata.xmlread import _File
from sim.files import quote

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


class _Importer(_Build):
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
        self._visits = 0  # entries and info groups visited (bounded by limits.MAX_LINK_VISITS)
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
        self.vocab = _Vocabulary(vocab, budget=limits.MAX_NAME_COMPARISONS)
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
        if depth > limits.MAX_LINK_DEPTH:
            raise CatalogueError(f"{what}: entries and links nested more than {limits.MAX_LINK_DEPTH} deep")
        if self._visits > limits.MAX_LINK_VISITS:
            raise CatalogueError(f"{what}: links expand to more than {limits.MAX_LINK_VISITS} entries "
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
                            f"{cur.path}: links catalogue {quote(name)} ({quote(tid)}), "
                            "which is not among the files imported"
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
                                       f"not a number (or beyond +-{limits.MAX_ATTRIBUTE_NUMBER})")
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
                if (p.get("typeName") in ("Character Profile", "Character Profile & Traits")
                        and id(p) not in self.seen_elements):
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
            got.weapons = ([w for w in t.weapons if (clean(w[0].get("name")), w[0].get("typeName")) not in wnames]
                           + list(l.weapons))
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
