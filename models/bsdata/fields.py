"""Characteristic text of profile, weapon and Ki feat cards (rulebook p.10-12, p.46): the
statistics, wounds, ``Size & Base``, weapon Strength, range bands and a Ki feat's
Subject (area, distance, Opposed Ki). Each reader returns a status (``int``,
``variable``, ``dash``, ``special``, ``empty``, ``bad``) with the value, so the importer
can report what it could not read.
"""

from __future__ import annotations

import difflib
import re

from models.bsdata import limits
from models.bsdata.records import _AREAS, _SIZES
from models.bsdata.text import _number, clean
from models.profiles import MAX_STAT
from sim.bounds import MAX_DISTANCE


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
    base = _number(m[1], limits.MAX_BASE_MM, int) if m else None
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
