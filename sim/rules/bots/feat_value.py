"""What a Ki feat is worth to the bots: a rough value per operation of its data entry
(:mod:`sim.rules.feat_effects`), in "Ki tokens" so that it compares with the feat's cost
(rulebook p.46-47: every feat costs Ki, which a Focus or the next turn gives back).

The estimate is simple on purpose: wounds dealt to enemies, conditions placed on enemies
or removed from friends, heals, Ki, counters and pass tokens, and traits or statistics
gained (worth more right before the model's own fight: ``fighting``). A test (opposed or
challenge) halves the value. The generic feats (:data:`sim.rules.ki.GENERIC_FEATS`) are
valued by the greedy bot's own order and are not handled here.
"""

from __future__ import annotations

from typing import Any

from sim.rules import ki
from sim.rules.feat_effects import FeatEffect, feat_effect
from sim.rules.game import Action, Game

__all__ = ["feat_value", "best_feat", "worth_it"]

#: Conditions that hurt the model that has them (placing one on an enemy is worth this).
_BAD = {"stunned": 2.0, "blind": 2.0, "frightened": 1.5, "held": 2.0, "immobilised": 2.0, "controlled": 3.0,
        "bleed": 1.5, "poisoned": 1.5, "on_fire": 1.5, "poison": 1.5, "fire": 1.5, "spirit_block": 1.5,
        "death_sentence": 2.0, "diseased": 1.0, "prone": 1.5, "exhausted": 1.5, "surprised": 1.0,
        "impetuous": 0.5, "reloading": 1.0, "berserk": 0.5}

#: Traits that weaken the model that gains them (a grant on an enemy).
_WEAK = ("slow", "weak", "stupid", "clumsy", "cowardly", "insignificant", "vulnerable", "unstable", "sluggish")


def _is_penalty(text: str) -> bool:
    t = text.lower()
    return any(w in t for w in _WEAK) or "(-" in t


def _op_value(game: Game, user: str, op: Any, mid: str, x: int, fighting: bool, killed_ki: int = 0,
              action: Action | None = None) -> float:
    """The value of one operation on model ``mid`` for the side of ``user`` (``killed_ki``:
    the Ki statistic of the model whose death opened a triggered feat; ``action``: the
    feat's action, for the models and points of a move)."""
    st = game.state
    me, m = st.models[user], st.models[mid]
    friend = m.player == me.player
    kind = op.op
    if kind == "wound":
        n = x if op.n == "X" else int(op.n)
        left = m.wounds - m.damage
        v = 2.0 * min(n, left) + (3.0 if n >= left else 0.0)
        return -v if friend else v
    if kind == "condition":
        v = _BAD.get(op.name, 1.0) * (x if op.n == "X" else int(op.n) if isinstance(op.n, int) else 1)
        if op.name in m.conditions and op.name in ("stunned", "blind", "frightened", "controlled", "held"):
            v *= 0.3  # it has it already
        return -v if friend else v
    if kind == "remove_condition":
        if op.name not in m.conditions:
            return 0.0
        v = _BAD.get(op.name, 1.0)
        return v if friend else -v
    if kind == "heal":
        n = x if op.n == "X" else (killed_ki if op.n == "target_ki" else int(op.n))
        v = 1.5 * min(n, m.damage)
        return v if friend else -v
    if kind == "ki":
        n = x if op.n == "X" else (killed_ki if op.n == "target_ki" else int(op.n))
        v = 0.8 * min(max(n, 0), m.ki_limit - m.ki) if n > 0 else 0.8 * n
        return v if friend else -v
    if kind == "counter":  # round 6 (F5): n all (every counter lost), up_to (a gain up to that many)
        n = -m.counters if op.n == "all" else min(op.n, max(0, op.up_to - m.counters)) if op.up_to else op.n
        v = (2.5 if m.counters < 2 else 1.0) * n
        return v if friend else -v
    if kind == "pass_token":
        return 1.0 * op.n if friend else -1.0
    if kind == "chosen" and action is not None and action.models and action.models[0] in st.models:  # F5
        return sum(_op_value(game, user, o, action.models[0], x, fighting, killed_ki, action) for o in op.effects)
    if kind in ("special_cost", "boost"):  # round 6 (F5): cheaper specials, a Ki boost box
        v = 1.0 if fighting or op.until in ("end_phase", "game", None) else 0.5
        return v if friend else -v
    if kind == "transfer":  # round 6 (F5): markers leave their givers and land on the receiver
        recv = st.models[user if op.to == "user" else mid]
        moved = [(g, name, game.marker_count(g, name)) for g in game.transfer_givers(user, op, mid)
                 for name in op.names]
        v = sum(_BAD.get(name, 1.0) * k * (1 if st.models[g].player == me.player else -1) for g, name, k in moved)
        got = sum(_BAD.get(name, 1.0) * k for _, name, k in moved)
        v += -got if recv.player == me.player else got
        if op.wound_each:
            v += (-2.0 if recv.player == me.player else 2.0) * sum(k for _, _, k in moved)
        return v
    if kind == "facing":
        return 0.0 if friend else 1.0
    if kind == "move":  # a friend carried toward the enemy (a point chosen), an enemy pushed off
        if op.kind in ("push", "away", "toward"):
            return 0.0 if friend else (1.0 if op.kind != "toward" else 0.5)
        chosen = action is not None and (action.point is not None or mid in action.models)
        return (1.0 if chosen else 0.0) if friend else 0.0
    if kind == "no_specials" and op.own:  # round 6 (F5): it may use none of its own specials
        return -1.0 if friend else (1.5 if fighting or game.enemies_in_contact(mid) else 0.5)
    if kind == "no_specials":  # worth most when an enemy can fight it now
        return (1.5 if fighting or game.enemies_in_contact(mid) else 0.3) if friend else -0.5
    if kind == "take_ki":  # Ki moved from the model to the user
        n = min(x if op.n == "X" else int(op.n), m.ki, max(0, me.ki_limit - me.ki))
        return 0.0 if friend else 1.2 * n
    if kind == "tokens":  # their meaning is the card's: a small worth on an enemy (a curse), none on a friend
        return 0.0 if friend else 0.5
    if kind == "attack":  # round 5: a shot now that spends no counter (more when Reloading would stop a Shoot)
        if op.at == "all" and action is not None:  # Circular Strike: its friends are shot too
            return sum(1.5 if st.models[t].player != me.player else -1.5 for t in action.models)
        return 1.5 + (1.0 if "reloading" in me.conditions and "reload" in op.ignore else 0.0)
    if kind == "rider":  # round 4: a lasting reaction to attacks (worth more when it fights)
        v = (1.5 if fighting or game.enemies_in_contact(mid) else 0.5) * len(op.effects)
        return v if friend else -v
    if kind in ("sl_markers", "damage", "marker_wounds"):  # round 6 (F4): markers or wounds on it
        v = 2.0 if kind != "sl_markers" else 1.5
        return -v if friend else v
    if kind == "damage_rolls":  # round 6 (F4): its damage rolls (made) or those on it (taken) change
        good = (op.rule not in ("double",)) == friend  # doubled damage is worth putting on an enemy
        v = 1.5 if fighting or game.enemies_in_contact(mid) else 0.8
        return v if good else -v
    if kind in ("trap_test", "tactical", "ranged_tn", "exchange_bonus"):  # round 6 (F4): the user's own edge
        return 1.5 if kind == "trap_test" else 1.0
    if kind == "test_bonus":  # round 6 (F4): a better Rise test
        return 1.0 if friend else -1.0
    if kind in ("reroll", "range_bands"):  # its dice or its shots get better
        lasting = op.until in ("end_phase", "game", None)
        v = 1.5 if fighting or lasting else 0.8
        return v if friend else -v
    if kind in ("grant", "grant_weapon", "lose", "stat"):
        lasting = op.until in ("end_phase", "game", None)
        base = 2.0 if fighting else 1.5 if lasting else 0.3
        if kind == "stat":
            delta = sum(x if v == "X" else int(v) for v in op.changes.values())
            v = base * max(-2.0, min(2.0, float(delta)))
            return v if friend else -v
        if kind == "lose":
            v = base * 0.5 * len(op.traits)
            return v if friend else v * 2
        penalties = sum(1 for t in op.traits if _is_penalty(t))
        boons = len(op.traits) - penalties
        v = base * (boons - penalties)
        return v if friend else -v
    return 0.0


def feat_value(game: Game, action: Action, *, fighting: bool = False) -> float:
    """The estimated worth (in Ki tokens) of the catalogue feat ``action`` uses, for the
    user's side: the sum over the models it reaches of each operation's value
    (:func:`_op_value`), halved when a test gates it; 0 for a feat without an applied
    entry, or whose duration effect the user already has from this feat."""
    user = action.model
    if action.feat is None or user is None:
        return 0.0
    entry: FeatEffect | None = feat_effect(action.feat)
    if entry is None or not game.card_feat_entry(user, action.feat):
        return 0.0
    f = game.feats(user).get(action.feat)
    if f is None:
        return 0.0
    if entry.affects in ("self", "friends_and_self") and any(
            e.get("source") == f.name for e in game.state.models[user].effects):
        return 0.0
    affected = game.feat_affected(game.state.models[user], f, entry, action)
    x = int(action.x or 1)
    killed = game.state.models.get(game.trigger_source(user, f.name) or "")
    killed_ki = int(killed.ki_stat) if killed is not None else 0
    ops: list[Any] = []
    for op in entry.effects:  # a choice: the option the action picks (the first when none)
        ops += list(op.options[action.option or 0]) if op.op == "choice" else [op]
    total = 0.0
    for mid in affected:
        for op in ops:
            total += _op_value(game, user, op, mid, x, fighting and mid == user, killed_ki, action)
    for op in entry.effects_self:  # round 4: the user's own part
        total += _op_value(game, user, op, user, x, fighting, killed_ki, action)
    tested = entry.test is not None or (f.opposed and (entry.opposed != "enemy" or not _friendly_target(game, action)))
    if tested:
        total *= 0.5
    return total


def _friendly_target(game: Game, action: Action) -> bool:
    t = game.state.models.get(action.target or "")
    return t is not None and action.model is not None and t.player == game.state.models[action.model].player


def _cost(f: ki.Feat, action: Action) -> int:
    try:
        return ki.feat_cost(f, x=action.x)
    except ki.KiError:
        return 99


def worth_it(game: Game, action: Action, *, fighting: bool = False) -> float:
    """How much more ``action``'s feat is worth than its cost (> 0: use it); -inf when
    it is not a catalogue feat with an applied entry."""
    assert action.model is not None and action.feat is not None
    f = game.feats(action.model).get(action.feat)
    v = feat_value(game, action, fighting=fighting)
    if f is None or v <= 0:
        return float("-inf")
    return v - 0.75 * _cost(f, action)


def best_feat(game: Game, actions: list[Action], *, fighting: bool = False) -> Action | None:
    """The catalogue feat among ``actions`` worth most above its cost, or None when none
    is worth its Ki (:func:`worth_it`); a paid feat's delayed step (``feat_later``, Dash's
    move: no Ki to spend) is always taken."""
    later = next((a for a in actions if a.kind == "feat_later"), None)
    if later is not None:
        return later
    best: tuple[float, str, Action] | None = None
    for a in actions:
        if a.feat is None or a.model is None or a.feat in game.AUTOMATED_FEATS:
            continue
        gain = worth_it(game, a, fighting=fighting)
        if gain > 0 and (best is None or (gain, str(a)) > best[:2]):
            best = (gain, str(a), a)
    return best[2] if best else None
