"""Special cards in play (Cards chapter, p.14-18): what the warbands' enhancement, event,
theme and terrain cards do when the game starts.

"Модели будут пользоваться эффектами, описанными на прикрепленной карте улучшения"
(p.17, Enhancement cards). The set-up reads each card's facts from the catalogue
(:func:`models.card_facts.card_facts`) and passes them to the game
(``Game(cards=[...])``, kept by saves). When the game starts (before Disguise and the
other start-of-game traits, so a Disguise an enhancement gives is seen):

* each grant of an enhancement (traits, statistic changes, weapon traits) becomes an
  effect on its model lasting the whole game (:meth:`~sim.rules.game.Game.grant`,
  ``until="game"``, source: the card's name); :meth:`~sim.rules.game.Game.profile` then
  reads the model's card with it;
* every other sentence of a card (a trigger, a choice, a Ki feat or weapon the card
  gives, an event played once "at the moment the card names", p.17; a theme's bonuses;
  a terrain card's rules, p.17-18) is logged as a ``manual_step`` naming the card and
  the model or player it belongs to: the players apply it by hand, never silently
  skipped.

Terrain pieces on the table that carry traits (A3: ``traits:`` of a table terrain piece,
``Fear (5)`` of a terrain card) are named the same way when they are not automated
(Destructible is: the Wait option, :mod:`sim.rules.game.wait_options`).

Functions take the :class:`~sim.rules.game.Game` (``game``).
"""

from __future__ import annotations

from typing import Any

from models.bsdata.records import KiFeat
from models.card_facts import facts_problem
from models.traits import trait_key
from sim.rules import ki
from sim.rules.game.events import Event
from sim.rules.game.state import GameError

#: Terrain traits the engine applies itself (p.16: Destructible, removed by a Wait).
AUTOMATED_TERRAIN_TRAITS = frozenset({"destructible"})


def checked_cards(cards: Any, model_ids) -> list[dict]:
    """``cards`` (a list of card facts, :func:`models.card_facts.card_facts` plus
    ``model`` or ``player``) checked against the table's ``model_ids``.

    Raises:
        GameError: ``cards[i]: PROBLEM`` for facts that are not such, or a model that is
            not on the table.
    """
    if cards is None:
        return []
    if not isinstance(cards, list):
        raise GameError("cards: expected a list of card facts")
    ids = set(model_ids)
    out = []
    for i, c in enumerate(cards):
        problem = facts_problem(c)
        if problem is None and "model" in c and c["model"] not in ids:
            problem = f"no model {c['model']!r} on the table"
        if problem is not None:
            raise GameError(f"cards[{i}]: {problem}")
        out.append(dict(c))
    return out


def cards_at_start(game: Any) -> list[Event]:
    """Apply the warbands' cards when the game starts (see the module docstring): the
    grants as whole-game effects (emitted here by :meth:`~sim.rules.game.Game.grant`);
    returns the ``manual_step`` events of the rest and of the table terrain traits the
    engine does not apply, for the game to emit."""
    out: list[Event] = []
    for c in game.card_facts:
        mid = c.get("model")
        who = mid if mid is not None else f"player {c.get('player', '?')}"
        for g in c.get("grants", []):
            if mid is None or mid not in game.state.models:
                continue
            gained, to_weapons = g.get("traits", ()), g.get("weapon_traits", ())
            game.grant(mid, c["name"], "game", traits=gained, weapon_traits=to_weapons,
                       weapon=g.get("weapon", "all"), stats=g.get("stats"))
        manual = list(c.get("manual", []))
        if mid is not None:  # a Ki feat the card gives that the engine cannot read: by hand (p.46)
            manual += [f"Ki feat {f['name']} (its timing or area is the card's own text; use it by hand)"
                       for f in c.get("feats", []) if _feat(f) is None]
        if not manual and not c.get("grants") and not c.get("feats"):
            manual = [f"the {c.get('kind', 'special')} card's effect (p.17)"]
        if manual:
            out.append(Event("manual_step", {"model": who, "source": c["name"],
                                             "text": "apply by hand: " + " ".join(manual)}))
    for piece in game.table.terrain:
        for t in getattr(piece, "traits", ()) or ():
            name = str(getattr(t, "text", t))
            if trait_key(name.split("(")[0].split("[")[0]) in AUTOMATED_TERRAIN_TRAITS:
                continue
            out.append(Event("manual_step", {"model": f"terrain {piece.id}", "source": name,
                                             "text": terrain_trait_text(name)}))
    return out


def _feat(record: dict):
    """The :class:`sim.rules.ki.Feat` of a card's Ki feat record (card facts ``feats``),
    or None when the engine cannot read its timing or area."""
    try:
        got = ki.feat_from_card(KiFeat(**record))
    except (TypeError, ValueError):
        got = None
    return got if got is not None else ki.feat_from_entry(str(record.get("name")),
                                                          card_text=str(record.get("description") or ""))


def card_feats(game: Any, mid: str) -> dict:
    """The Ki feats model ``mid``'s enhancement cards give it (\"Attached model gains the
    following Ki Feat\", p.17, p.46), by name, as :meth:`~sim.rules.game.Game.feats` adds
    them to its card's; feats the engine cannot read are left out (the start's manual
    step names them)."""
    out = {}
    for c in game.card_facts:
        if c.get("model") != mid:
            continue
        for record in c.get("feats", []):
            f = _feat(record)
            if f is not None:
                out[f.name] = f
    return out


def terrain_trait_text(name: str) -> str:
    """What the players do by hand for a terrain trait ``name`` the engine does not
    apply (``"Fear (5)"``: the Fear test of p.29 when an enemy of the piece's owner
    declares an action that brings it into contact with the piece)."""
    if trait_key(name.split("(")[0]) == "fear":
        return ("apply by hand: a model that declares an action or effect bringing it into contact with this "
                "piece takes a Fear test against its value (p.29, p.52); on a failure it removes one activation "
                "counter and its activation ends")
    return "apply the terrain trait by hand (p.16-18, p.60)"
