"""The engine's choices in words, for the game window's menus (pure Python, no Panda3D).

Every choice the engine offers (:meth:`sim.rules.game.Game.legal_actions`) is an
:class:`~sim.rules.game.Action`; the hand-made menu items of
:class:`~sim.view.play.controller.PlayController` (Walk, Charge, Shoot ...) cover the
classic actions, and this module covers the rest generically: the answer windows
(Bodyguard, Sacrifice, Eagle's Flight, a triggered Ki feat, Fortune, Oni Rage, In Defiance
of the Gods, Death Sentence, Intimidate, the Tactical choice, Blood of Orochi), the free
steps of an activation (Jump Up, Cultist, Leech, Channel, Virtue, Pack, Cavalry, Group),
the card actions (Heal, Command, Order) and the variants of a classic action (a shot's
special or Rapid Fire, a Wait option of a card). :func:`offer_label` names one choice
with its card, feat or trait and its rulebook page; :func:`group_offers` sorts them into
menu entries by kind. Rule pages ("p.49") refer to the Risen Sun rulebook.
"""

from __future__ import annotations

from sim.rules.action_kinds import ACTION_RULES
from sim.rules.game import Action

#: The kinds the controller's hand-made menu items offer (their own labels, drags and
#: refusals); their other legal variants (a shot's special, a card's Wait option ...) are
#: added to those items as further options.
CLASSIC_KINDS = frozenset({"walk", "run", "charge", "melee", "shoot", "disengage", "focus", "wait", "stand_up",
                           "ki_feat", "complex_ki_feat", "feat", "scenario", "complex_scenario", "pass",
                           "allocate", "intercept", "arrive"})

#: Kinds of choice that belong to the player rather than one model (shown in the menu of
#: any of the player's models, like Pass): the Tactical test winner's choice (p.29) and
#: Blood of Orochi's tokens given again (p.49).
PLAYER_KINDS = frozenset({"tactical_choice", "orochi"})

#: Kinds whose ``point`` is a free destination on the table (a drag after choosing the
#: item): the Cavalry move (p.50), Eagle's Flight's 3" move (p.41) and a Ki feat's delayed
#: move (Dash). Without a point each of them declines.
POINT_KINDS = frozenset({"cavalry", "eagles_flight", "feat_later"})

#: What a choice that names nothing (no target, special, point, feat or models) means for
#: an answer kind: the player declines.
_DECLINE = {"bodyguard": "no swap", "sacrifice": "no sacrifice", "eagles_flight": "stay in place",
            "fortune": "no coin toss", "oni_rage": "do not become Berserk", "defiance": "do not defy",
            "death_sentence": "keep the marker", "intimidate": "do not intimidate", "cavalry": "no Cavalry move",
            "group_fight": "fight the next exchange of the group", "jump_up": "remove the Prone markers",
            "spend_virtue": "spend the Virtue token", "tactical_choice": "let the other player act first"}

#: Words for the ``special`` of an answer (``Action("fortune", m, special="toss")`` ...).
_SPECIAL_WORDS = {"toss": "toss a coin", "berserk": "become Berserk", "defy": "defy the gods",
                  "pay": "pay 3 Ki to remove a marker", "destructible": "attack the destructible terrain",
                  "on_fire": "put out a friend's Fire"}


#: Menu names of the kinds whose rulebook name in ACTION_RULES is a description.
_KIND_NAMES = {"decline_feat": "Triggered Ki feat", "feat_later": "Ki feat, delayed step",
               "tactical_choice": "Tactical test", "sacrifice": "Sacrifice / Protected (traits)",
               "death_sentence": "Death Sentence (condition)", "spend_virtue": "Virtue token",
               "allocate": "Melee allocation", "intercept": "Interception", "arrive": "Flank arrival"}


def kind_name(kind: str) -> str:
    """The short rulebook name of an action kind for a menu (``"Bodyguard (trait)"``):
    from :data:`~sim.rules.action_kinds.ACTION_RULES` (the part before its first colon),
    a few kinds named by hand; the kind itself for an unknown one."""
    if kind in _KIND_NAMES:
        return _KIND_NAMES[kind]
    rule = ACTION_RULES.get(kind)
    if rule is None:
        return kind.replace("_", " ")
    return rule.name.split(":")[0].strip()


def kind_page(kind: str) -> str:
    """The rulebook page(s) of an action kind (``"p.49"``), "" for an unknown one."""
    rule = ACTION_RULES.get(kind)
    return rule.page if rule is not None else ""


def _special_words(special: str) -> str:
    if special.startswith("card:"):
        return f"the Wait effect of {special[5:]}"
    if special in _SPECIAL_WORDS:
        return _SPECIAL_WORDS[special]
    if special[:1].isupper() or "(" in special:  # a card's special ('Combo Attack (0)', p.39-41)
        return f"special {special}"
    return special.replace("_", " ").replace("-", " ")


def offer_label(a: Action, *, with_model: bool = True) -> str:
    """One engine choice in words: the kind's rulebook name, then what the action names
    (model, feat, special, weapon, target, models, X, option, point), then the page.

    >>> offer_label(Action("bodyguard", "kenta", target="ton"))
    'Bodyguard (trait): kenta -> ton (p.49)'
    >>> offer_label(Action("bodyguard", "kenta"))
    'Bodyguard (trait): kenta, no swap (p.49)'
    """
    head = a.model if with_model and a.model else ""
    if a.target:
        head = f"{head} -> {a.target}" if head else f"-> {a.target}"
    parts: list[str] = [head] if head else []
    if a.feat:
        parts.append(f"feat {a.feat}")
    if a.weapon:
        parts.append(f"with {a.weapon}")
    if a.special:
        parts.append(_special_words(a.special))
    if a.models:
        parts.append("with " + ", ".join(str(m) for m in a.models))
    if a.x is not None:
        parts.append(f"X={a.x}")
    if a.option is not None:
        parts.append(f"option {a.option + 1}")
    if a.walk:
        parts.append(f"Walk {a.walk}")
    if a.point is not None:
        parts.append(f"to ({a.point[0]:.1f}, {a.point[1]:.1f})")
    if a.objective:
        parts.append(f"at {a.objective}")
    names_nothing = not (a.feat or a.special or a.target or a.models or a.x is not None or a.point is not None
                         or a.option is not None)
    if a.kind == "decline_feat":
        parts.append("not used")
    elif names_nothing and a.kind in _DECLINE:
        parts.append(_DECLINE[a.kind])
    text = kind_name(a.kind)
    if parts:
        text += ": " + ", ".join(parts)
    page = kind_page(a.kind)
    return f"{text} ({page})" if page else text


def group_offers(offers: list[Action]) -> dict[str, list[Action]]:
    """The ``offers`` by kind, in the order the kinds first appear (each kind's own order
    kept; an Action offered twice once)."""
    out: dict[str, list[Action]] = {}
    for a in offers:
        lst = out.setdefault(a.kind, [])
        if a not in lst:
            lst.append(a)
    return out


def is_answer_window(offers: list[Action]) -> bool:
    """Whether ``offers`` (the engine's legal actions now) are an answer window: every one
    of an out-of-turn kind (timing ``"answer"`` in
    :data:`~sim.rules.action_kinds.ACTION_RULES`) other than an allocation, an
    interceptor or a Flank arrival, which have screens of their own."""
    if not offers:
        return False
    for a in offers:
        rule = ACTION_RULES.get(a.kind)
        if rule is None or rule.timing != "answer" or a.kind in ("allocate", "intercept", "arrive"):
            return False
    return True


__all__ = ["CLASSIC_KINDS", "PLAYER_KINDS", "POINT_KINDS", "group_offers", "is_answer_window", "kind_name",
           "kind_page", "offer_label"]
