"""BattleScribe condition trees (the ``conditions`` and ``conditionGroups`` of a catalogue's
``modifiers``), not the model conditions of rulebook p.43-45 (those are
:mod:`sim.rules.conditions`).

:class:`Condition` keeps a tree so that the warband rules (:mod:`models.warband`) can
evaluate what the catalogue encodes: an entry hidden while another card is in the
roster, a card that may be taken only with another one (rulebook p.19). The functions
read the trees of one entry for the importer: hidden conditions, unlock conditions and
the card's ``max`` constraint.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterator

from models.bsdata.text import _attribute_number, clean

if TYPE_CHECKING:
    from models.bsdata.entries import _CardBuild, _Own
    from models.bsdata.importer import _Importer
    from models.bsdata.xmlread import _File

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
