"""What one catalogue entry holds, as the importer's walk collects it: :class:`_Own` (the
profiles, traits, weapons, Ki feats, costs, constraints and modifiers an entry or link
holds itself), :class:`_Layer` (an entry, or a link with its target, on the path from a
catalogue's root) and :class:`_CardBuild` (a card being collected), with the small
helpers that read them.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from models.bsdata.text import _attribute_number, clean

if TYPE_CHECKING:
    from models.bsdata.xmlread import _File

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
