"""The kinds of action as rulebook data: one table, :data:`ACTION_RULES`.

Each kind once (:class:`ActionRule`): its key (the ``Action.kind`` string), its name in
the rulebook and the page, the activation counters it removes -- Simple 1, Complex 2,
none 0 (Actions p.24-26) --, when it is taken, the statistic a Ki boost on it raises
(p.10, p.47) and whether the engine plays it.

This is the one place that says which actions are Simple and which Complex. The
condition rules (:mod:`sim.rules.conditions`: Controlled with one marker and a model with
one counter may not declare a Complex action, Immobilised tests before some Simple ones)
and the game's registry (:data:`sim.rules.game.actions.ACTION_KINDS`, which adds each
kind's legality and resolution) both read it; the action notation
(:mod:`sim.rules.notation`) reads the game's registry. Pure data, no imports from the
rest of the project.

``heal`` is the Simple action the Heal (X) trait (p.52) gives its model, which Immobilised
names (p.44); the game plays it (:mod:`sim.rules.game.turn_traits`). ``automated=False``
marks a card action the engine would neither offer nor resolve (none now).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Literal

__all__ = ["Timing", "ActionRule", "ACTION_RULES", "SIMPLE_ACTIONS", "COMPLEX_ACTIONS", "FREE_ACTIONS",
           "counters_of"]

#: When an action is taken: by activating a model (p.24), with a pass token (p.21), or out
#: of turn as an answer (an allocation, an interceptor, an Instant/Active Ki feat, a Flank
#: model placed in the Starting phase).
Timing = Literal["activation", "pass", "answer"]


@dataclass(frozen=True)
class ActionRule:
    """One kind of action as the rulebook defines it.

    Attributes:
        key: the ``Action.kind`` string (``walk``, ``complex_ki_feat`` ...).
        name: its name in the rulebook.
        page: the rulebook page(s).
        counters: activation counters it removes: 0, 1 (Simple) or 2 (Complex) (p.24).
        timing: ``"activation"``, ``"pass"`` or ``"answer"`` (:data:`Timing`).
        boost: the statistic a Ki boost on it raises (``move``, ``ranged``, ``melee``,
            ``ki``), or None (p.10, p.47).
        automated: whether the engine offers and resolves it (False: a card action
            played by hand, known to the condition rules only).
    """

    key: str
    name: str
    page: str
    counters: int
    timing: Timing
    boost: str | None = None
    automated: bool = True


#: Every kind of action, by key, in the order of the rulebook's Actions section (p.24-26),
#: then the actions taken out of turn.
ACTION_RULES: Mapping[str, ActionRule] = MappingProxyType({r.key: r for r in (
    ActionRule("walk", "Walk", "p.24", 1, "activation", "move"),
    ActionRule("run", "Run", "p.24", 1, "activation", "move"),
    ActionRule("charge", "Charge", "p.24", 2, "activation", "move"),
    ActionRule("melee", "Melee", "p.24", 1, "activation"),
    ActionRule("disengage", "Disengage", "p.24", 1, "activation"),
    ActionRule("shoot", "Ranged Attack", "p.25, p.30-32", 1, "activation", "ranged"),
    ActionRule("focus", "Focus", "p.25", 2, "activation"),
    ActionRule("wait", "Wait", "p.25", 1, "activation"),
    ActionRule("stand_up", "Stand Up", "p.25, p.45", 1, "activation"),
    ActionRule("ki_feat", "Ki feat (Simple)", "p.25, p.46", 1, "activation", "ki"),
    ActionRule("complex_ki_feat", "Ki feat (Complex)", "p.25, p.46", 2, "activation", "ki"),
    ActionRule("scenario", "Scenario action (Simple)", "p.25, p.63", 1, "activation"),
    ActionRule("complex_scenario", "Scenario action (Complex)", "p.25, p.63", 2, "activation"),
    ActionRule("heal", "Heal (X)", "p.52, p.44", 1, "activation"),
    ActionRule("pass", "Pass", "p.21", 0, "pass"),
    ActionRule("allocate", "allocation of melee dice", "p.33", 0, "answer", "melee"),
    ActionRule("intercept", "interception", "p.30", 0, "answer"),
    ActionRule("feat", "Ki feat (Instant or Active)", "p.46", 0, "answer", "ki"),
    ActionRule("arrive", "Flank arrival from Elsewhere", "p.52, p.5", 0, "answer"),
    ActionRule("intimidate", "Intimidate (trait): a Starting phase choice", "p.54", 0, "answer"),
    ActionRule("bodyguard", "Bodyguard (trait): the target's player swaps it with a bodyguard, or not", "p.49", 0,
               "answer"),
    ActionRule("pack", "Pack (trait): Pack friends activate with this model against one enemy", "p.55", 0,
               "answer"),
    ActionRule("defiance", "In Defiance of the Gods (catalogue trait): a Starting phase choice", "p.20", 0,
               "answer"),
    ActionRule("death_sentence", "Death Sentence (condition): pay 3 Ki to remove a marker, or keep it; a Starting "
               "phase choice", "p.43", 0, "answer"),
    ActionRule("sacrifice", "Sacrifice / Protected (traits): a friend removed from play to cancel a damage roll, "
               "or not", "p.57, p.56", 0, "answer"),
    ActionRule("eagles_flight", "Eagle's Flight Defence (special): the defender's 3\" move after the exchange, or "
               "none", "p.41, p.39", 0, "answer"),
    ActionRule("orochi", "Blood of Orochi (trait): the pool's tokens given again before the side's first activation",
               "p.49", 0, "answer"),
    ActionRule("decline_feat", "a triggered Ki feat not used (sim.rules.game.feat_triggers)", "p.46", 0, "answer"),
    ActionRule("feat_later", "a used Ki feat's delayed step, e.g. Dash's move at the end of its activation "
               "(sim.rules.game.feat_triggers)", "p.46", 0, "answer"),
    ActionRule("tactical_choice", "the Tactical test's winner lets the other player act first", "p.29, p.20", 0,
               "answer"),
    # free actions at the start of a model's activation (sim.rules.game.turn_traits)
    ActionRule("jump_up", "Jump Up (trait): Prone markers removed before the action", "p.54", 0, "answer"),
    ActionRule("cultist", "Cultist (trait): wounds to friendly Cultists for Ki", "p.50", 0, "answer"),
    ActionRule("fortune", "Fortune (trait): a Starting phase choice (toss a coin)", "p.52", 0, "answer"),
    ActionRule("oni_rage", "Oni Rage (trait): a Starting phase choice (become Berserk)", "p.55", 0, "answer"),
    ActionRule("group_fight", "Group (trait): the next of the group's exchanges, in the order chosen", "p.52", 0,
               "answer"),
    ActionRule("cavalry", "Cavalry (trait): a move of X inches before or after the action", "p.50", 0, "answer"),
    # card actions of traits that move Ki and give other models actions (sim.rules.game.support_step)
    ActionRule("command", "Command (trait)", "p.50, p.24", 1, "activation"),
    ActionRule("order", "Order (trait)", "p.55", 2, "activation"),
    ActionRule("leech", "Leech (trait), during the model's activation", "p.54", 0, "answer"),
    ActionRule("channel", "Channel (trait), during the model's activation", "p.50", 0, "answer"),
    ActionRule("virtue", "Virtue (trait): a Virtue token given", "p.59, p.5", 0, "answer"),
    ActionRule("spend_virtue", "a Virtue token spent", "p.5", 0, "answer"),
)})

#: Simple actions: one activation counter (p.24).
SIMPLE_ACTIONS = frozenset(k for k, r in ACTION_RULES.items() if r.counters == 1)
#: Complex actions: two activation counters (p.24).
COMPLEX_ACTIONS = frozenset(k for k, r in ACTION_RULES.items() if r.counters == 2)
#: Kinds that remove no counter: a pass, an allocation, an interceptor, an Instant/Active feat.
FREE_ACTIONS = frozenset(k for k, r in ACTION_RULES.items() if r.counters == 0)


def counters_of(kind: str) -> int:
    """Activation counters ``kind`` removes; 1 (Simple) for a kind not in the table.

    >>> counters_of("charge"), counters_of("heal"), counters_of("pass"), counters_of("fly")
    (2, 1, 0, 1)
    """
    rule = ACTION_RULES.get(kind)
    return rule.counters if rule is not None else 1
