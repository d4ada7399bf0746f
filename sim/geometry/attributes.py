"""Units, tolerances and the rulebook's attribute scales.

Rulebook: Terms and Concepts p.4-9 (Size, Measuring Distances), Terrain p.60-62
(Passage, Visibility, Size). Project rulings: ``shared/rulings.md`` section 1.
"""

from __future__ import annotations

from enum import Enum, IntEnum

#: Numeric tolerance of every comparison, in inches (rulings.md section 1).
EPS: float = 1e-6
#: Gap under which two bases, or a base and terrain, count as touching (BtB), inches.
CONTACT: float = 0.01
#: Millimetres per inch.
MM_PER_INCH: float = 25.4
#: "Within X" of a zone of control, inches (Terms and Concepts, "Zone of Control").
ZOC_RANGE: float = 1.0
#: Cover is given by terrain within this many inches of the target (Cover, p.31).
COVER_RANGE: float = 1.0
#: Base sizes a model may have, in millimetres.
BASE_SIZES_MM: tuple[int, ...] = (30, 40, 50, 60)


class Size(IntEnum):
    """Size class of a model or a terrain piece, ordered ``ZERO < TINY < ... < HUGE``.

    Rulebook p.4-9 ("Size") and p.61 (terrain Size). Zero is for flat terrain such as
    water or roads.
    """

    ZERO = 0
    TINY = 1
    SMALL = 2
    MEDIUM = 3
    LARGE = 4
    HUGE = 5

    @classmethod
    def parse(cls, text: str) -> "Size":
        """Return the size named ``text`` (case-insensitive, e.g. ``"large"``).

        Raises:
            ValueError: if ``text`` names no size.
        """
        try:
            return cls[str(text).strip().upper()]
        except KeyError:
            names = ", ".join(s.name.lower() for s in cls)
            raise ValueError(f"unknown size {text!r} (expected one of: {names})") from None

    @property
    def label(self) -> str:
        """Lower-case name as written in table files (``"huge"``)."""
        return self.name.lower()


class Passage(str, Enum):
    """How a terrain piece affects movement (Terrain p.60, "Passage")."""

    IMPASSABLE = "impassable"
    DIFFICULT = "difficult"
    NORMAL = "normal"
    IDEAL = "ideal"


class Visibility(str, Enum):
    """How a terrain piece affects LoS and cover (Terrain p.61, "Visibility")."""

    OPEN = "open"
    BLOCKING = "blocking"
    OBSCURING = "obscuring"
    ENHANCING = "enhancing"


def base_radius(base_mm: int) -> float:
    """Radius in inches of a round base of ``base_mm`` millimetres diameter.

    >>> round(base_radius(30) * 2, 4)
    1.1811

    Raises:
        ValueError: if ``base_mm`` is not one of 30, 40, 50, 60.
    """
    if base_mm not in BASE_SIZES_MM:
        raise ValueError(f"base must be one of {', '.join(map(str, BASE_SIZES_MM))} mm, not {base_mm!r}")
    return base_mm / MM_PER_INCH / 2.0


def size_from_base(base_mm: int) -> Size:
    """Default Size of a model from its base (30 Small, 40 Medium, 50 Large, 60 Huge).

    Rulings.md section 1; a trait (Tiny, Huge, ...) may override it.

    Raises:
        ValueError: if ``base_mm`` is not one of 30, 40, 50, 60.
    """
    base_radius(base_mm)
    return {30: Size.SMALL, 40: Size.MEDIUM, 50: Size.LARGE, 60: Size.HUGE}[base_mm]
