"""Plain values of the game engine: finite numbers and points, and the pieces of a
one-line message (a value cut short, a text cut short, the longest problem text a save
or position error carries)."""

from __future__ import annotations

import json
import math
import numbers

#: The longest problem text a save error carries (the file name comes on top).
MESSAGE_CHARS = 400


def finite(v) -> bool:
    """A real number (not a bool) that is neither NaN nor infinite."""
    return isinstance(v, numbers.Real) and not isinstance(v, bool) and math.isfinite(float(v))


def finite_point(p) -> bool:
    """Two finite real numbers (a point in inches)."""
    try:
        return len(p) == 2 and finite(p[0]) and finite(p[1])
    except (TypeError, KeyError, IndexError):
        return False


def short(v, limit: int = 90) -> str:
    """``repr``/JSON of a value, cut to ``limit`` characters for a one-line message."""
    try:
        text = json.dumps(v, sort_keys=True, default=repr)
    except (TypeError, ValueError):
        text = repr(v)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def cut(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters (then ``...``)."""
    return text if len(text) <= limit else text[:limit - 3] + "..."
