"""Text helpers of the BattleScribe importer: whitespace and quotes made plain, slugs,
splitting at top-level commas, and bounded number reading (printed numbers and XML
attribute values).
"""

from __future__ import annotations

import math
import re
import unicodedata

from models.bsdata import limits

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


def _number(text: str | None, limit: float, kind: type = float) -> int | float | None:
    """``kind(text)`` for a printed number (digits, a sign, a decimal point) whose size
    is at most ``limit``; None for anything else (a huge, infinite or NaN value, words)."""
    t = (text or "").replace(" ", "")
    if not re.fullmatch(r"[+-]?\d{1,9}(\.\d{1,9})?" if kind is float else r"[+-]?\d{1,9}", t):
        return None
    v = kind(t)
    return v if abs(v) <= limit else None


def _attribute_number(text: str | None, default=None):
    """``float(text)`` for an attribute value that is a finite number of size at most
    :data:`MAX_ATTRIBUTE_NUMBER`; ``default`` otherwise (missing, words, inf, NaN, 1e400)."""
    try:
        v = float(text)
    except (TypeError, ValueError):
        return default
    return v if math.isfinite(v) and abs(v) <= limits.MAX_ATTRIBUTE_NUMBER else default
