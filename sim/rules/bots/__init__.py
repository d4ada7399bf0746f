"""Bots that play whole games for testing (issue 5): a random legal-action bot and a
simple greedy bot. Both are seeded, both return legal actions only (each is checked with
:meth:`Game.is_legal` before it is returned; when nothing they look for is legal they
take one of :meth:`Game.legal_actions`), and both allocate melee dice with a legal split
and, sometimes, a special attack or defence of the weapon in use (every allocation
passes :func:`sim.rules.melee.validate_allocation`).

* :class:`RandomBot` -- a random legal action (:meth:`Game.random_action`); in a melee
  exchange a random legal split, with a random usable special one time in three.
* :class:`GreedyBot` -- in this order: (a) a Charge that reaches, at the enemy with the
  fewest wounds left (then the nearest); (b) a Melee action at an enemy in contact or
  within Move; (c) a shot at the enemy with the lowest target number (a declared Walk
  before the shot when no enemy is in range and LoS now; a Walk after it into cover
  when the shooter stands exposed); (d) a Walk towards the nearest enemy that ends
  outside its ZoC, facing it, preferring end points in cover from (or out of sight of)
  the enemy shooters; (e) Stand Up when Prone; (f) Wait when a Wait removes a condition
  (Reloading, Stunned...), else Focus when Ki is not full and it has 2 counters, else
  Wait. In a melee exchange it puts about two thirds of its dice in attack, a third when
  one enemy hit could kill it, all of them when one hit of its own could kill the enemy;
  it uses a special that adds damage (Critical, Powerful, Combo...) whenever it can pay
  for it, a contact-breaking one (Push, Sidestep, Throw...) when it is in danger, and a
  Push/Slam/Throw-like one now and then when it has spare dice, throwing the enemy away
  from itself or against Impassable terrain.

The helpers (:func:`exchange_context`, :func:`legal_splits`, :func:`usable_specials`,
:func:`special_direction`, :func:`shot_target_number`, :func:`exposure`) are built on
:class:`~sim.rules.game.Game` (``legal_actions``, ``is_legal``, ``charge``,
``exchange_pools``, ``table_now``, ``charge_candidates``, ``combatant``,
``ranged_weapon``, ``feat_actions``, ``scenario_actions``, ``ki_boost``, ``profile``) and
on the rules modules; the bots use no private name of the game. Speed
(``benchmarks/game_bench.py``): the greedy bot remembers the LoS and Cover verdicts and
the refused moves under the positions of the models that could change them
(:class:`Verdicts`, :meth:`GreedyBot._sight`), and tries the costly moves (a Charge or
Melee move past other enemies' ZoC) last and few.

When the game offers no legal action at all (a model that must activate but may
declare nothing), a bot declares what :meth:`Game.legal_actions` offers (refused by the
game at the cost of a counter, p.24).

The package, one module per concept:

==================  ================================================================
``base``            the :class:`Bot` protocol, the fallback action, :class:`RandomBot`,
                    :func:`play`
``greedy``          :class:`GreedyBot`: its choice of action in an activation
``greedy_melee``    the greedy bot's melee allocation (split, special, Ki boost)
``greedy_cards``    the greedy bot's card choices: Leech, Channel, Virtue, Command,
                    Order, Pack, Cavalry, Rapid Fire, special attacks at range
``feat_value``      what a catalogue Ki feat is worth (its data entry's operations)
``exchange``        the exchange helpers: who allocates, legal splits, specials and
                    their directions, the wounds of one hit
``estimates``       target numbers, enemy shooters, exposure, remembered verdicts of
                    straight moves, small plane helpers
==================  ================================================================

``from sim.rules.bots import GreedyBot, RandomBot, play, BOTS`` (and the helpers above)
works as before; :data:`BOTS` maps the names the CLI takes to the bot classes.
"""

from __future__ import annotations

from sim.rules.bots.base import Bot, RandomBot, fallback_action, play
from sim.rules.bots.estimates import (
    CORRIDOR,
    SLACK,
    Cards,
    Verdicts,
    active_player,
    charge_reaches,
    clear_line,
    enemy_shooters,
    exposure,
    gap,
    ray_limit,
    shot_target_number,
)
from sim.rules.bots.exchange import (
    CONTACT_KEEPING,
    DIRECTED,
    ExchangeContext,
    direction_options,
    exchange_context,
    hit_wounds,
    legal_splits,
    special_direction,
    throw_possible,
    usable_specials,
)
from sim.rules.bots.greedy import WAIT_CLEARS, GreedyBot
from sim.rules.bots.greedy_melee import GreedyAllocation

#: The bots by the name the CLI takes (``main.py play --bots greedy,random``).
BOTS: dict[str, type] = {"random": RandomBot, "greedy": GreedyBot}

__all__ = [
    "BOTS", "Bot", "CONTACT_KEEPING", "CORRIDOR", "Cards", "DIRECTED", "ExchangeContext", "GreedyAllocation",
    "GreedyBot", "RandomBot", "SLACK", "Verdicts", "WAIT_CLEARS", "active_player", "charge_reaches", "clear_line",
    "direction_options", "enemy_shooters", "exchange_context", "exposure", "fallback_action", "gap", "hit_wounds",
    "legal_splits", "play", "ray_limit", "shot_target_number", "special_direction", "throw_possible",
    "usable_specials",
]
