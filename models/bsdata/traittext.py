"""Trait text as the catalogues print it (rulebook p.48: ``Name [Keyword] (X/Y")``): the
repairing reader that turns a printed trait or trait list into :class:`models.profiles.Trait`
records in canonical text.

Catalogue text is messy: typos (``Fearl``), missing commas (``Armour (2) Cloudwalk``,
``Bravery Prowess``), unclosed brackets, digits printed as letters (``Spirit (I)``). The
reader repairs what it can, using the names of the rules the data define
(:class:`_Vocabulary`), and reports the rest. Its output, the canonical text
(``Leadership [Ashigaru] (1/6")``), is what :func:`models.traits.parse_trait_text` and the
rules read; keywords are spelled by :func:`models.traits.keyword_of`.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from typing import Iterable

from models.bsdata.text import _number, _split_top, clean
from models.profiles import MAX_STAT, Trait
from models.traits import keyword_of
from sim.bounds import MAX_DISTANCE

#: Spellings seen in catalogues that difflib alone would not map to the rule name (the
#: name as the catalogues' library prints it). Repairs of printed text, not keys: every
#: spelling here has the :func:`models.traits.trait_key` of its name (tests/test_traits.py),
#: whose alias table is :data:`models.traits.TRAIT_ALIASES`.
PRINTED_TRAIT_ALIASES = {
    "toughness": "Tough",
    "range defence": "Ranged Defence",
    "ranged defense": "Ranged Defence",
    "coordinated attack": "Co-ordinated Attack",
    "ki-block": "Ki Block",
}


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
        alias = PRINTED_TRAIT_ALIASES.get(" ".join(name.lower().split()))
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


def canonical_trait_text(name: str, qualifier: str | None, value: str | None) -> str:
    """``Name [Qualifier] (value)`` with the optional parts left out."""
    text = name
    if qualifier is not None:
        text += f" [{qualifier}]"
    if value is not None:
        text += f" ({value})"
    return text


_DIGITLIKE = str.maketrans({"l": "1", "I": "1", "O": "0", "o": "0"})


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
    trait = Trait(keyword_of(kw_source), value, qualifier.lower() if qualifier else None, text, rng)
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
