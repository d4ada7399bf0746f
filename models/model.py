"""A model deployed on the table: base, Size, position, facing, traits, state.

Rulebook: Terms and Concepts p.4-9 (Base, Size, Facing, Front Arc); rulings.md
sections 1 and 3.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

from models.traits import trait_key
from sim.geometry import Body, Size, base_radius

#: Trait keywords the geometry reads (lower case, as in table files).
GEOMETRY_TRAITS = ("aware", "construct", "blind")
#: A mark among a table model's traits: ``sight:4`` -- it draws LoS only up to 4" (a Ki feat's
#: limit, Darkness; sim.rules.game.feat_areas).
SIGHT_MARK = "sight:"
#: A mark among a table model's traits: it has Cover against every model that sees it (a Ki
#: feat's Aura: Dashuhua; sim.rules.game.feat_areas).
COVER_MARK = "feat_cover"


@dataclass(frozen=True)
class Model:
    """A model on the table.

    Attributes:
        id: unique among terrain and models.
        player: 1 or 2.
        base: base diameter in mm (30, 40, 50, 60).
        size: Size (from the base unless a trait or the file sets it).
        position: base centre ``(x, y)``, inches.
        facing: degrees CCW from +x.
        traits: lower-case trait keywords (``aware``, ``construct`` ...).
        prone: the Prone condition.
        profile: id of the profile it was filled from, if any.
        name: display name.
        move: the Move statistic in inches (from the profile or the table file), if known.
        feats: Ki feat names the table gives the model besides its card's (e.g. the
            generic feats of :data:`sim.rules.ki.GENERIC_FEATS`, for teaching and tests).
    """

    id: str
    player: int
    base: int
    size: Size
    position: tuple[float, float]
    facing: float = 0.0
    traits: tuple[str, ...] = field(default_factory=tuple)
    prone: bool = False
    profile: str | None = None
    name: str | None = None
    move: float | None = None
    feats: tuple[str, ...] = ()

    @property
    def radius(self) -> float:
        """Base radius in inches."""
        return base_radius(self.base)

    def has_trait(self, keyword: str) -> bool:
        """True if the model has the trait ``keyword`` (names compared by
        :func:`models.traits.trait_key`: ``"sixth sense"`` = ``"sixth_sense"``)."""
        return trait_key(keyword) in self._trait_keys

    @cached_property
    def _trait_keys(self) -> frozenset[str]:
        return frozenset(trait_key(t) for t in self.traits)

    def to_body(self) -> Body:
        """The geometry record for :class:`sim.geometry.Scene`."""
        return Body(
            id=self.id,
            center=(float(self.position[0]), float(self.position[1])),
            radius=self.radius,
            size=self.size,
            facing=float(self.facing),
            aware=self.has_trait("aware"),
            prone=self.prone,
            blind=self.has_trait("blind"),
            construct=self.has_trait("construct"),
            sight=next((float(t[len(SIGHT_MARK):]) for t in self.traits if t.startswith(SIGHT_MARK)), None),
            covered=COVER_MARK in self.traits,
            player=self.player,
        )
