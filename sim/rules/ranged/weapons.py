"""A ranged weapon (Profile cards p.10-11, Ranged Attacks p.30-32): its range bands
(:class:`RangeBand`, :func:`weapon_bands`, :func:`range_band`, step 1c; a band's value is
inclusive), its trait values (:func:`trait_value`) and the Ammo tokens and Reloading
markers it uses (:class:`AmmoState`: Ammo (X), Reload (X), steps 1g and 6, p.32).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import Enum
from typing import Any, Iterable

from models.traits import has_trait, trait_values
from sim.geometry import EPS, within
from sim.rules.ranged.reasons import RangedAttackError

# --------------------------------------------------------------------------- tables

class RangeBand(str, Enum):
    """A weapon's range band (Profile cards p.10-11). Compares equal to its value."""

    SHORT = "short"
    MEDIUM = "medium"
    LONG = "long"

    def __str__(self) -> str:
        return self.value


#: Bands from nearest to farthest.
BAND_ORDER: tuple[RangeBand, ...] = (RangeBand.SHORT, RangeBand.MEDIUM, RangeBand.LONG)


# --------------------------------------------------------------------------- weapon traits

def trait_value(obj: Any, keyword: str, default: int | None = None) -> int | None:
    """The number of trait ``keyword`` (``Reload (2)`` -> 2), ``default`` when absent.

    ``obj``: a weapon, a profile, or an iterable of printed traits or
    :class:`models.profiles.Trait` records; names compared by
    :func:`models.traits.trait_key` (``has_trait`` is :func:`models.traits.has_trait`).
    Effects that give a trait (X) do not stack (p.48): the highest value is returned.
    A trait printed without a number counts as 0.

    Raises:
        ValueError: the value is not a number (``Pierce (X)``): the caller must supply it.
    """
    found: list[int] = []
    for raw in trait_values(obj, keyword):
        raw = None if raw is None else raw.strip()
        if raw is None or raw == "":
            found.append(0)
            continue
        num = raw.split("/")[0].strip().rstrip('"')
        try:
            found.append(int(num))
        except ValueError:
            raise ValueError(f"trait {keyword} has a variable value ({raw!r}): pass the number explicitly") from None
    return max(found) if found else default


# --------------------------------------------------------------------------- range bands

def weapon_bands(weapon: Any) -> dict[RangeBand, float]:
    """Upper value (inches) of each band the weapon has, nearest first.

    ``weapon`` is a :class:`models.profiles.Weapon` (``range``: band -> ``(from, to)``), or
    a mapping band -> ``(from, to)`` or -> ``to``.

    Raises:
        RangedAttackError: a melee weapon or one without range bands.
    """
    if getattr(weapon, "kind", "ranged") != "ranged":
        raise RangedAttackError(f"{getattr(weapon, 'name', weapon)!r} is not a ranged weapon")
    rng = getattr(weapon, "range", weapon)
    out: dict[RangeBand, float] = {}
    for band in BAND_ORDER:
        v = rng.get(band.value) if hasattr(rng, "get") else None
        if v is None:
            continue
        out[band] = float(v[1] if isinstance(v, (tuple, list)) else v)
    if not out:
        raise RangedAttackError(f"{getattr(weapon, 'name', weapon)!r} has no range bands")
    return out


def max_range(weapon: Any) -> float:
    """The weapon's farthest band value (Long, usually), inches."""
    return max(weapon_bands(weapon).values())


def range_band(weapon: Any, distance: float) -> RangeBand | None:
    """The band of a target ``distance`` inches away (edge to edge), or ``None`` beyond the
    weapon's range (automatic miss, step 1c, p.30).

    Band values are inclusive (p.10: "up to and including this distance"): with bands
    6/12/18, 6" is Short, 6.01" Medium, 18" Long and 18.01" out of range.

    Raises:
        ValueError: negative distance. RangedAttackError: not a ranged weapon.
    """
    if distance < -EPS:
        raise ValueError(f"a distance is >= 0, got {distance}")
    for band, upper in weapon_bands(weapon).items():
        if within(distance, upper):
            return band
    return None


# --------------------------------------------------------------------------- Ammo / Reload

@dataclass(frozen=True)
class AmmoState:
    """Ammo tokens and Reloading markers of one model (traits Ammo (X), Reload (X);
    condition Reloading, p.44).

    Attributes:
        tokens: ``(weapon name, tokens left)`` for the Ammo weapons fired so far; a weapon
            with Ammo (X) not listed still has its X starting tokens.
        reloading: Reloading markers on the model. While it has any, no weapon with Reload
            may shoot (step 1g).
    """

    tokens: tuple[tuple[str, int], ...] = ()
    reloading: int = 0

    def __post_init__(self) -> None:
        if self.reloading < 0 or any(n < 0 for _, n in self.tokens):
            raise ValueError("Ammo tokens and Reloading markers are >= 0")

    @classmethod
    def start(cls, weapons: Iterable[Any] = ()) -> "AmmoState":
        """The state at the start of the game: Ammo (X) tokens on each such weapon."""
        toks = []
        for w in weapons:
            x = trait_value(w, "ammo")
            if x is not None:
                toks.append((w.name, x))
        return cls(tuple(toks), 0)

    def ammo_left(self, weapon: Any) -> int | None:
        """Tokens left on ``weapon``; ``None`` if it has no Ammo trait."""
        x = trait_value(weapon, "ammo")
        if x is None:
            return None
        for name, n in self.tokens:
            if name == weapon.name:
                return n
        return x

    def why_not(self, weapon: Any) -> str | None:
        """Why ``weapon`` cannot fire now (step 1g), or ``None`` if it can."""
        left = self.ammo_left(weapon)
        if left is not None and left <= 0:
            return f"{weapon.name} has no Ammo tokens left"
        if has_trait(weapon, "reload") and self.reloading > 0:
            return f"the model has {self.reloading} Reloading marker(s) and {weapon.name} has Reload"
        return None

    def can_fire(self, weapon: Any) -> bool:
        """Whether ``weapon`` may shoot now: an Ammo token left (if Ammo) and no Reloading
        marker on the model (if Reload)."""
        return self.why_not(weapon) is None

    def after_firing(self, weapon: Any) -> "AmmoState":
        """State after step 6 of an attack with ``weapon``: one Ammo token removed (Ammo),
        X Reloading markers added (Reload (X))."""
        toks = dict(self.tokens)
        left = self.ammo_left(weapon)
        if left is not None:
            toks[weapon.name] = max(0, left - 1)
        gained = trait_value(weapon, "reload", None) or 0
        return AmmoState(tuple(toks.items()), self.reloading + gained)

    def reload(self) -> "AmmoState":
        """A Wait action that removes one Reloading marker (p.25, condition Reloading).

        Raises:
            ValueError: the model has no Reloading marker.
        """
        if self.reloading <= 0:
            raise ValueError("no Reloading marker to remove")
        return replace(self, reloading=self.reloading - 1)
