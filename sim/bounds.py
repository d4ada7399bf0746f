"""The bounds every input file is held to, as pydantic field types (``docs/bounds.md``).

A file is read by one layer (:mod:`sim.files`: size, text, nesting, aliases, duplicate
keys); its values are then held to sane ranges here, so that an absurd number (a rect of
``1e300``, a circle centre of ``2**63``, a table ``1e15``" wide) or a strange id (a
newline, a terminal escape code, 10,000 characters) is refused when the file is loaded,
with a message that states the bound, and never crashes or hangs ``check`` or ``view``
later. Units: inches and degrees.

Every number type here is also finite: the schemas using them set
``allow_inf_nan=False``.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, Field

from sim.files import quote

#: Largest table side, inches (10 feet; Bushido plays on 24" to 36").
MAX_TABLE = 120.0
#: Smallest table side, inches.
MIN_TABLE = 1.0
#: Every coordinate (x or y of a point, a centre) lies within +-MAX_COORD inches: twice the
#: largest table, so a piece may stand off the table but not at 1e300.
MAX_COORD = 240.0
#: Sizes (rect width and depth, circle radius, terrain height): MIN_LENGTH to MAX_LENGTH
#: inches. Below a hundredth of an inch a size is a typo and only breeds round-off.
MIN_LENGTH = 0.01
MAX_LENGTH = 120.0
#: A Move statistic or a distance: 0 to MAX_DISTANCE inches.
MAX_DISTANCE = 120.0
#: Rotations and facings: -MAX_ANGLE to MAX_ANGLE degrees.
MAX_ANGLE = 360.0
#: Ids: 1 to MAX_ID printable characters, no whitespace.
MAX_ID = 64
#: Names and other one-line text: at most MAX_NAME printable characters.
MAX_NAME = 200
#: Descriptions (several lines allowed): at most MAX_TEXT characters.
MAX_TEXT = 4000
#: File paths named inside a file: at most MAX_PATH printable characters.
MAX_PATH = 1024
#: Entries of one list (terrain pieces, models, objectives, zones, warband files'
#: positions): at most MAX_ENTRIES.
MAX_ENTRIES = 200
#: Vertices of one polygon: at most MAX_VERTICES.
MAX_VERTICES = 1000
#: Short lists (traits, feats, reset turns, awards): at most MAX_ITEMS items.
MAX_ITEMS = 64

_SEE = "; see docs/bounds.md"


def is_id(value: object) -> bool:
    """True if ``value`` is a usable id: a str of 1 to :data:`MAX_ID` printable
    characters with no whitespace (no newline, tab or terminal escape code)."""
    return (isinstance(value, str) and 0 < len(value) <= MAX_ID and value.isprintable()
            and not any(c.isspace() for c in value))


def check_id(value: str) -> str:
    """``value`` if :func:`is_id`, else ValueError stating the rule."""
    if not is_id(value):
        why = ("is empty" if not value else f"is {len(value)} characters long" if len(value) > MAX_ID
               else "has a space" if value.isprintable()
               else "has a space or a control character (newline, escape ...)")
        raise ValueError(f"an id is 1 to {MAX_ID} printable characters with no spaces; {quote(value)} {why}")
    return value


def _check_name(value: str) -> str:
    if len(value) > MAX_NAME:
        raise ValueError(f"at most {MAX_NAME} characters, not {len(value)} ({quote(value)})")
    if not value.isprintable():
        raise ValueError(f"a name has no control characters (newline, tab, escape ...): {quote(value)}")
    return value


def _check_text(value: str) -> str:
    if len(value) > MAX_TEXT:
        raise ValueError(f"at most {MAX_TEXT} characters, not {len(value)}")
    if not value.replace("\n", " ").replace("\t", " ").isprintable():
        raise ValueError(f"text has no control characters but newlines and tabs: {quote(value)}")
    return value


def _check_path(value: str) -> str:
    if not value or len(value) > MAX_PATH or not value.isprintable():
        raise ValueError(f"a file path is 1 to {MAX_PATH} printable characters, not {quote(value)}")
    return value


def _range(lo: float, hi: float, what: str, unit: str):
    def check(value: float) -> float:
        if not lo <= value <= hi:
            raise ValueError(f"{what} must be within {lo:g} to {hi:g} {unit}, not {value:.6g}{_SEE}")
        return value

    return AfterValidator(check)


#: An id (terrain piece, model, objective, zone).
Id = Annotated[str, AfterValidator(check_id)]
#: One line of free text (a name, a profile or preset name).
Name = Annotated[str, AfterValidator(_check_name)]
#: The same, not empty.
NonEmptyName = Annotated[str, Field(min_length=1), AfterValidator(_check_name)]
#: Free text that may run over several lines (a description).
Text = Annotated[str, AfterValidator(_check_text)]
#: A file path named inside a file.
FilePath = Annotated[str, AfterValidator(_check_path)]
#: An x or y coordinate, inches.
Coord = Annotated[float, _range(-MAX_COORD, MAX_COORD, "a coordinate", "inches")]
#: A size (width, depth, radius, height), inches.
Length = Annotated[float, _range(MIN_LENGTH, MAX_LENGTH, "a size", "inches")]
#: A table side, inches.
TableSide = Annotated[float, _range(MIN_TABLE, MAX_TABLE, "a table side", "inches")]
#: A distance or a Move statistic, inches.
Distance = Annotated[float, _range(0.0, MAX_DISTANCE, "a distance", "inches")]
#: A rotation or a facing, degrees.
Angle = Annotated[float, _range(-MAX_ANGLE, MAX_ANGLE, "an angle", "degrees")]
#: A point ``[x, y]``, inches.
Point = Annotated[list[Coord], Field(min_length=2, max_length=2)]
#: A polygon's vertices.
Vertices = Annotated[list[Point], Field(max_length=MAX_VERTICES)]
