"""Wait options that act on something other than the waiting model's own markers (p.25):
removing a Destructible terrain piece for 2 Ki (Terrain Cards, p.16) and a friend's Wait
that removes two On Fire markers from a burning model in contact (p.44).

The model's own options (Stunned, Immobilised, On Fire, Reloading) are
:func:`sim.rules.conditions.removed_by_wait`. An option here is declared as
``Action("wait", model, special=..., target=...)``:

* ``special="destructible"``, ``target`` = the terrain piece's id: "Убрать со стола
  разрушаемый элемент местности, с которым активная модель находится в контакте,
  потратив 2 Ки" (p.25); "модель, находящаяся в контакте с этим элементом местности, и не
  во вражеской ЗК, может объявить действие Ожидания и потратить 2 Ки, чтобы убрать его со
  стола" (p.16).
* ``special="on_fire"``, ``target`` = a friendly model in base contact with On Fire
  markers: "Модель с маркерами Огня или дружественная модель в контакте может выполнить
  действие Ожидание, чтобы удалить два маркера Огня из модели" (p.44).

Functions take the :class:`~sim.rules.game.Game` (``game``) and are called from the Wait
action's legality and resolution (:mod:`sim.rules.game.basic_actions`) and from the offers
(:mod:`sim.rules.game.offers`).
"""

from __future__ import annotations

from typing import Any

from sim.rules import movement
from sim.rules.game.actions import Action
from sim.rules.game.events import Event
from sim.rules.game.state import ModelState

#: Ki a model pays to remove a Destructible terrain piece (p.16, p.25).
DESTRUCTIBLE_KI = 2

#: The ``special`` of the Wait options of this module.
DESTRUCTIBLE = "destructible"
FRIEND_FIRE = "on_fire"

#: How many On Fire markers a friend's Wait removes (p.44: "удалить два маркера Огня").
FRIEND_FIRE_MARKERS = 2


def _piece(game: Any, piece_id: str | None):
    """The terrain piece ``piece_id`` still on the table now, or None."""
    for t in game.table_now().terrain:
        if t.id == piece_id:
            return t
    return None


def _in_enemy_zoc(game: Any, m: ModelState) -> str | None:
    """The first enemy whose ZoC (or contact) holds ``m`` now, or None (p.9)."""
    scene = game.table_now().scene()
    for e in game.state.alive(3 - m.player):
        if scene.distance(m.id, e.id) <= movement.CONTACT + 1e-9:
            return e.id
        if scene.distance(e.id, m.id) <= 1.0 + 1e-9 and scene.zoc(e.id, m.id).in_zoc:
            return e.id
    return None


def _touches_piece(game: Any, mid: str, piece) -> bool:
    tm = game.table_now().model(mid)
    return bool(piece.footprint.distance_to_disc(tm.position, tm.radius) <= movement.CONTACT + 1e-9)


def wait_refusal(game: Any, m: ModelState, action: Action) -> str | None:
    """Why ``m`` may not declare the Wait ``action`` (its ``special`` and ``target``), or
    None. A plain Wait (no target) is always allowed (p.25); a Destructible option needs a
    Destructible piece in contact, no enemy ZoC on ``m`` and 2 Ki (p.16); a friend's Fire
    option needs a friendly model in base contact with On Fire markers (p.44)."""
    if action.special == DESTRUCTIBLE:
        piece = _piece(game, action.target)
        if piece is None:
            return f"no terrain piece {action.target!r} on the table"
        if not getattr(piece, "destructible", False):
            return f"the terrain piece {piece.id} is not Destructible (p.16)"
        if not _touches_piece(game, m.id, piece):
            return f"{m.id} is not in contact with the terrain piece {piece.id} (p.16)"
        foe = _in_enemy_zoc(game, m)
        if foe:
            return f"{m.id} is in the ZoC of the enemy {foe}: it may not remove Destructible terrain (p.16)"
        if m.ki < DESTRUCTIBLE_KI:
            return f"removing Destructible terrain costs {DESTRUCTIBLE_KI} Ki and {m.id} has {m.ki} (p.16)"
        return None
    if action.target is None or action.target == m.id:
        return None
    if action.special not in (None, FRIEND_FIRE):
        return f"a Wait aimed at another model can only remove its On Fire markers, not {action.special!r} (p.44)"
    t = game.state.models.get(action.target)
    if t is None or not t.alive:
        return f"no model {action.target!r} on the table"
    if t.player != m.player:
        return f"{t.id} is not a friendly model (p.44)"
    if not t.markers.get("fire"):
        return f"{t.id} has no On Fire markers (p.44)"
    if game.table_now().scene().distance(m.id, t.id) > movement.CONTACT + 1e-9:
        return f"{m.id} is not in base contact with {t.id} (p.44)"
    return None


def wait_option_events(game: Any, action: Action) -> list[Event] | None:
    """The events of the Wait option of this module that ``action`` names (judged legal),
    for the caller to emit; None for a Wait on the model's own markers."""
    mid = action.model
    assert mid is not None  # a Wait has a model
    if action.special == DESTRUCTIBLE and action.target is not None:
        return [Event("ki_change", {"model": mid, "delta": -DESTRUCTIBLE_KI}),
                Event("terrain_removed", {"piece": action.target, "model": mid})]
    if action.target is not None and action.target != mid:
        t = game.state.models[action.target]
        removed = sorted(t.markers.get("fire", []), reverse=True)[:FRIEND_FIRE_MARKERS]
        return [Event("marker_damage", {"model": t.id, "marker": "fire", "removed": removed, "wounds": 0}),
                Event("note", {"text": f"{mid} beats out the flames on {t.id}: {len(removed)} On Fire "
                                       "marker(s) removed (p.44)"})]
    return None


def wait_offers(game: Any, m: ModelState) -> list[Action]:
    """The Wait options of this module that ``m`` may declare now: each Destructible
    piece it touches (p.16), each friend in base contact with On Fire markers (p.44)."""
    out = []
    table = game.table_now()
    for t in table.terrain:
        if getattr(t, "destructible", False):
            a = Action("wait", m.id, special=DESTRUCTIBLE, target=t.id)
            if game.is_legal(a)[0]:
                out.append(a)
    for f in game.state.alive(m.player):
        if f.id != m.id and f.markers.get("fire"):
            a = Action("wait", m.id, special=FRIEND_FIRE, target=f.id)
            if game.is_legal(a)[0]:
                out.append(a)
    return out
