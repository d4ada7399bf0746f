"""Special attacks and defences (Special abilities p.39-42): the rulebook's table and
a special as printed on a weapon.

:data:`SPECIAL_RULES` holds one :class:`SpecialRule` per special the rulebook describes
(its kind, move and who moves, Prone, damage halved or none, conditions gained, models
removed); :class:`SpecialOption` is a special printed on a weapon (``Slam Attack (1)``:
key, kind, cost in dice), read by :func:`parse_special`. The exchange plays them
(:mod:`sim.rules.melee.exchange`), :mod:`sim.rules.special` plays their moves.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from sim.rules.melee.sides import Kind, MeleeError

# --------------------------------------------------------------------------- specials

@dataclass(frozen=True)
class SpecialRule:
    """What a special attack or defence does when it succeeds (p.39-42).

    ``move``: the :data:`sim.rules.special.MOVES` name; ``mover``: which model moves
    (``"attacker"``/``"defender"`` of the comparison, ``"both"``); ``breaks_contact``:
    nominal effect of the move on contact when no table is given; ``no_damage``: no
    damage roll; ``halves``: the damage roll's wounds are halved (rounded down);
    ``enemy_prone``: the other model becomes Prone; ``enemy_condition``: a condition the
    other model gains; ``removes``: ``"enemy"`` or ``"both"`` are removed from play.
    """

    key: str
    kind: Kind
    name: str
    move: str | None = None
    mover: str | None = None
    breaks_contact: bool = False
    no_damage: bool = False
    halves: bool = False
    enemy_prone: bool = False
    enemy_condition: str | None = None
    removes: str | None = None


#: Special attacks and defences of the rulebook (p.39-42), by key, and the two the catalogues
#: add (Dual Attack: one more damage roll at the same success level; Web Defence: the enemy
#: may not move until the current activation ends: a ``web-defence``
#: :class:`~sim.rules.melee.results.PendingMove` the game turns into an effect).
SPECIAL_RULES: Mapping[str, SpecialRule] = {r.key: r for r in (
    SpecialRule("combo-attack", "attack", "Combo Attack"),
    SpecialRule("critical-attack", "attack", "Critical Attack"),
    SpecialRule("drag-attack", "attack", "Drag Attack", move="drag-attack", mover="both", no_damage=True),
    SpecialRule("forceback-attack", "attack", "Forceback Attack", move="forceback-attack", mover="both", halves=True),
    SpecialRule("grapple-attack", "attack", "Grapple Attack", no_damage=True, enemy_condition="held"),
    SpecialRule("powerful-attack", "attack", "Powerful Attack"),
    SpecialRule("push-attack", "attack", "Push Attack", move="push-attack", mover="defender",
                breaks_contact=True, no_damage=True),
    SpecialRule("sidestep-attack", "attack", "Sidestep Attack", move="sidestep-attack", mover="attacker",
                breaks_contact=True, no_damage=True),
    SpecialRule("slam-attack", "attack", "Slam Attack", move="slam", mover="defender", breaks_contact=True,
                halves=True, enemy_prone=True),
    SpecialRule("stun-attack", "attack", "Stun Attack", enemy_condition="stunned"),
    SpecialRule("sweep-attack", "attack", "Sweep Attack", halves=True, enemy_prone=True),
    SpecialRule("throw-attack", "attack", "Throw Attack", move="throw-attack", mover="defender",
                breaks_contact=True, halves=True, enemy_prone=True),
    SpecialRule("ivory-prison-attack", "attack", "Ivory Prison Attack", no_damage=True, removes="enemy"),
    SpecialRule("gokusatsu-attack", "attack", "Gokusatsu Attack", no_damage=True, removes="both"),
    SpecialRule("counterstrike-defence", "defence", "Counterstrike Defence"),
    SpecialRule("drag-defence", "defence", "Drag Defence", move="drag-defence", mover="both"),
    SpecialRule("forceback-defence", "defence", "Forceback Defence", move="forceback-defence", mover="both"),
    SpecialRule("push-defence", "defence", "Push Defence", move="push-defence", mover="attacker",
                breaks_contact=True),
    SpecialRule("grapple-defence", "defence", "Grapple Defence", enemy_condition="held"),
    SpecialRule("sidestep-defence", "defence", "Sidestep Defence", move="sidestep-defence", mover="defender",
                breaks_contact=True),
    SpecialRule("sweep-defence", "defence", "Sweep Defence", enemy_prone=True),
    SpecialRule("throw-defence", "defence", "Throw Defence", move="throw-defence", mover="attacker",
                breaks_contact=True, enemy_prone=True),
    SpecialRule("eagles-flight-defence", "defence", "Eagle's Flight Defence"),
    # printed only in the catalogues' special abilities (not in the rulebook's list)
    SpecialRule("dual-attack", "attack", "Dual Attack"),
    SpecialRule("web-defence", "defence", "Web Defence"),
)}


_SPECIAL_RE = re.compile(r"^\s*(?P<name>.*?)\s*(?:\(\s*(?P<cost>[^)]*)\s*\))?\s*$")


def special_key(name: str) -> str:
    """The :data:`SPECIAL_RULES` key of a special's printed name (any case, spaces,
    apostrophes, ``Defense``): ``"Slam Attack"`` -> ``"slam-attack"``; a bare name means the
    attack (``"Slam"`` -> ``"slam-attack"``), ``"Counterstrike"`` the defence. A name the
    rulebook does not describe keeps its own key."""
    key = name.strip().lower().replace("defense", "defence").replace("'", "").replace("\u2019", "")
    key = re.sub(r"[\s_]+", "-", key)
    if key in ("slam", "combo", "critical", "powerful", "stun", "sweep", "grapple", "push", "throw",
               "drag", "forceback", "sidestep") and f"{key}-attack" in SPECIAL_RULES:
        return f"{key}-attack"  # a bare name means the attack
    if key == "counterstrike":
        return "counterstrike-defence"
    return key


@dataclass(frozen=True)
class SpecialOption:
    """A special attack or defence printed on a weapon: ``key`` (``slam-attack``),
    ``kind``, ``cost`` in dice, ``text`` as printed. ``rule`` is ``None`` for a special
    the rulebook does not describe (its effect comes from the card, not automated)."""

    key: str
    kind: Kind
    cost: int
    text: str

    @property
    def rule(self) -> SpecialRule | None:
        """The rulebook description of this special (p.39-42), or None for a card-only one."""
        return SPECIAL_RULES.get(self.key)


def parse_special(text: str, kind: Kind | None = None) -> SpecialOption:
    """Parse ``"Slam Attack (1)"`` into a :class:`SpecialOption`.

    ``kind`` defaults to what the name ends with (Attack / Defence / Defense).
    Raises :class:`MeleeError` when the cost is missing or not a number >= 0, or the
    kind cannot be told.
    """
    m = _SPECIAL_RE.match(text)
    name, cost = (m.group("name"), m.group("cost")) if m else (text, None)
    if cost is None or not re.fullmatch(r"\d+", cost.strip()):
        raise MeleeError(f"special {text!r}: the cost in brackets must be a whole number >= 0")
    key = special_key(name)
    if kind is None:
        if key.endswith("-attack"):
            kind = "attack"
        elif key.endswith("-defence"):
            kind = "defence"
        else:
            raise MeleeError(f"special {text!r}: neither an attack nor a defence")
    return SpecialOption(key, kind, int(cost), text.strip())
