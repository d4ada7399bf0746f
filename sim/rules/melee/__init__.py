"""The melee exchange (Melee Attacks p.33-37, Special abilities p.39-42) as pure functions.

Rulebook: the Russian translation in ``shared/seeds/000_*.txt``; page numbers follow its
table of contents (Actions p.24-26, Tests p.27-29, Melee Attacks p.33-37, Wound table
p.38, Special abilities p.39-42, Conditions p.43-45, Ki feats p.46-47, Traits p.48-59).
"l.N" names a line of that file where a page would be too coarse.

Nothing here mutates state: :func:`resolve_exchange` takes the two sides
(:class:`Combatant`), both secret allocations (:class:`Allocation`) and a dice source,
and returns an :class:`ExchangeResult` (wounds, conditions gained, models removed, moves,
markers, activation counters, and a log of :class:`Step` records numbered as the
rulebook's fifteen steps). The game applies it. The order in which the dice are taken
(so that physical dice can replay a real exchange) is in :mod:`sim.rules.melee.exchange`.

The package, one module per concept (every name is re-exported here, so
``from sim.rules.melee import resolve_exchange`` works):

=================  ====================================================================
``sides``          the two sides (``"a"``, ``"b"``), the kinds of dice, the errors
``specials``       special attacks and defences: the rulebook's table, a printed special
                   (p.39-42)
``combatant``      a model in an exchange: card, weapon, traits, conditions, re-roll
                   sources (step 2; p.10-17, p.28, p.43-59)
``pools``          Initiative, dice pools and melee modifiers, secret allocations
                   (steps 3-5, p.34-36)
``results``        what an exchange returns: the log, rolls, comparisons, damage, moves
``exchange``       :func:`resolve_exchange`: steps 1-15 (p.33-37), the order of the dice
=================  ====================================================================

Decisions where the rulebook is silent or ambiguous (each also noted where it is coded):

* Step 10b (l.1031): the translation says go to step 14 if the Defender "is no longer in
  contact with the Attacker *and not* knocked down". Read the same way as step 12: go
  to step 14 when a model was removed, the two are no longer in contact, or the Defender
  (the model due to strike next) was knocked Prone by this exchange. So a Sweep
  Defence knocks the Attacker down and the Defender still strikes back.
* "Knocked down" in steps 10b/12 means made Prone *during this exchange*; a model that
  was already Prone still strikes back (with its -1 die).
* Grapple Defence: the text says "if the attack is successful, the Defender becomes
  Held" -- a copy of Grapple Attack. Read as: if the defence succeeds, the Attacker
  becomes Held.
* Charge: "+2 to its first damage roll" (Charge action, l.709) is the charging model's
  first damage roll in the exchange, whatever caused it (normal, Combo, Counterstrike).
* Critical Attack compares the two dice kept for the damage roll (Strong/Weak roll 3).
* Dice rolled as 1 still count as "allocated" (step 9): a special attack with attack
  dice that all rolled 1 still triggers if the attack wins, and no damage roll is made
  only when *no* attack dice were allocated (step 8a).
* A trait that is both on the model and on its weapon (Parry, Brutal, Unblockable...)
  is not added up: the higher value is used (Traits p.48, "effects that give Trait (X)
  do not stack").
* Without a ``table``, moves are nominal: Push, Sidestep, Slam and Throw break contact
  (unless the moved model is Immovable), Drag and Forceback keep it. With a ``table``
  the moves are played by :func:`sim.rules.special.special_move` and contact is measured
  (gap <= ``CONTACT``).
* A model reduced to 0 wounds (``wounds_left``) is removed at once (Killed, p.4-9);
  Rise, Last Stand and Kami are the game's business.
* Tireless: a model that is not the active one loses no counter. The active model's
  counter is the one its action already costs (Actions p.24, "the active model does not
  remove an extra counter"): :attr:`ExchangeResult.counters` gives 1 for it and the game
  must not charge it again.
"""

from __future__ import annotations

from sim.rules.melee.combatant import (
    KNOWN_CONDITIONS,
    MELEE_CONDITIONS,
    Combatant,
    MeleeChooser,
    MeleeWeapon,
    RerollSource,
    combatant_from_profile,
    dodge,
    feint,
    prowess,
)
from sim.rules.melee.exchange import resolve_exchange
from sim.rules.melee.pools import (
    Allocation,
    initiative,
    initiative_reason,
    melee_pools,
    pool_modifiers,
    validate_allocation,
)
from sim.rules.melee.results import (
    Comparison,
    DamageEvent,
    ExchangeResult,
    Marker,
    MeleeReroll,
    PendingMove,
    SideRolls,
    Step,
    wound_markers,
)
from sim.rules.melee.sides import SIDES, AllocationError, Kind, MeleeError, Side
from sim.rules.melee.specials import SPECIAL_RULES, SpecialOption, SpecialRule, parse_special

__all__ = [
    "MeleeError", "AllocationError", "Side", "Kind", "SIDES", "MeleeChooser", "MELEE_CONDITIONS", "KNOWN_CONDITIONS",
    "SPECIAL_RULES", "SpecialRule", "SpecialOption", "parse_special", "MeleeWeapon", "RerollSource", "prowess",
    "dodge", "feint", "Combatant", "combatant_from_profile", "initiative", "initiative_reason",
    "pool_modifiers", "melee_pools", "Allocation", "validate_allocation",
    "Step", "Comparison", "DamageEvent", "PendingMove", "Marker", "MeleeReroll", "SideRolls",
    "ExchangeResult", "resolve_exchange", "wound_markers",
]
