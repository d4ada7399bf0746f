"""Ki feat effects that last on the table (p.46-47, round 2 of the feat vocabulary of
:mod:`sim.rules.feat_effects`): Aura changes read while a model is inside, range bands,
named tokens.

* **Aura feats** (``area: aura``, ``affects`` an area's models) with lasting ops
  (:data:`FeatAuras.AURA_OPS`: grant, grant_weapon, lose, stat, no_specials, reroll,
  range_bands): using the feat gives its user an effect with source ``"<feat>: aura ..."``
  (the X paid and the option chosen written in it) until the End phase (an Aura lasts
  until the End phase, p.47). While it lasts, :meth:`FeatAuras.aura_effects` gives every
  model the entry reaches that is inside the Aura NOW (edge to edge from the user's base
  to its base, p.47) those changes as effects; :meth:`~sim.rules.game.Game.profile`
  adds them to the model's card. A model that walks out loses them, one that walks in
  gains them; the user's death ends the Aura.
* **range_bands**: an effect with key ``range_bands`` (:func:`sim.rules.effects.effective_profile`
  changes the bands of its ranged weapons).
* **tokens**: named tokens kept as the model's mark ``token:<Name>`` (a condition key
  whose value is the count; in positions and saves, never a condition of p.43-45). What a
  token does is logged as a manual step (the engine knows no token's meaning).

A base of :class:`~sim.rules.game.feat_step.FeatStep` (a mixin of
:class:`~sim.rules.game.Game`).
"""

from __future__ import annotations

import math
import re
from typing import Any

from sim.rules import conditions, ki
from sim.rules.card_keywords import keyword_matches, view_of
from sim.rules.feat_effects import ChoiceOp, FeatEffect, RangeBandsOp, feat_effect
from sim.rules.game.actions import Action
from sim.rules.game.events import Event
from sim.rules.game.part import GamePart
from sim.rules.game.state import ModelState

#: The marker in the source of the effect that records an Aura on its user.
AURA_MARK = ": aura"
#: The prefix of a token mark in ``ModelState.conditions``.
TOKEN_MARK = "token:"

_SRC = re.compile(r"^(?P<feat>.+): aura(?: X=(?P<x>\d+))?(?: option=(?P<opt>\d+))?$")


class FeatAuras(GamePart):
    """Aura changes read at read time, range bands, tokens."""

    #: The ops of an Aura feat read while a model is inside (not applied once at use).
    AURA_OPS = frozenset({"grant", "grant_weapon", "lose", "stat", "no_specials", "reroll", "range_bands",
                          "special_cost", "boost", "on_feat"})  # the last three: round 6 (F5, feat_cards)
    AURA_OPS = AURA_OPS | {"feat_origin"}  # round 6 (F6): read by feat_redirects
    AURA_OPS = AURA_OPS | {"pool_penalties"}  # round 6 (F7): read by feat_run (no Ran penalty)

    # ------------------------------------------------------------ Auras
    def start_feat_aura(self, m: ModelState, f: ki.Feat, entry: FeatEffect, action: Action) -> None:
        """Record the Aura of feat ``f`` used by ``m`` (its lasting ops are then read by
        :meth:`aura_effects` until the End phase, p.47)."""
        if not any(op in self.AURA_OPS for op in entry.ops) and not aura_kept(entry):
            return
        src = f"{f.name}{AURA_MARK}" + (f" X={int(action.x)}" if action.x else "") + (
            f" option={int(action.option)}" if action.option else "")
        self.grant(m.id, src, "end_phase")

    def _auras_now(self) -> list[tuple[str, str, FeatEffect, int, int]]:
        """``(user, feat, entry, x, option)`` of every Aura with lasting ops in play,
        memoised until the next event."""
        memo = getattr(self, "_memo", None)
        if memo is not None and "feat_auras" in memo:
            return memo["feat_auras"]
        out = []
        for u in self.state.models.values():
            if not u.alive or not u.effects or u.elsewhere is not None:
                continue
            for e in u.effects:
                got = _SRC.match(str(e.get("source", "")))
                if got is None:
                    continue
                entry = feat_effect(got["feat"])
                if entry is not None and entry.area == "aura":
                    out.append((u.id, got["feat"], entry, int(got["x"] or 1), int(got["opt"] or 0)))
        if memo is not None:
            memo["feat_auras"] = out
        return out

    def aura_effects(self, mid: str) -> list[dict]:
        """The effects model ``mid`` has now from friendly or enemy Auras it is inside
        (edge to edge within the Aura's range of its user, the user itself for
        ``*_and_self``), as :mod:`sim.rules.effects` mappings; ``[]`` when none."""
        auras = self._auras_now()
        if not auras:
            return []
        st = self.state
        me = st.models.get(mid)
        if me is None or not me.alive:
            return []
        out: list[dict] = []
        for user, feat, entry, x, opt in auras:
            u = st.models[user]
            if not self._aura_reaches(u, me, entry):
                continue
            reach = aura_range(entry, x, self.state.turn)  # round 6 (F2): X / turn / BtB ranges
            reach = reach if reach is not None else math.inf  # no number: unlimited
            if mid != user:
                d = math.dist(u.position, me.position) - self.table.model(user).radius - self.table.model(mid).radius
                if d > reach + 1e-6:
                    continue
            out += self._aura_ops_effects(feat, entry, x, opt)
        return out

    def _aura_reaches(self, u: ModelState, me: ModelState, entry: FeatEffect) -> bool:
        """Whether the Aura of ``entry`` reaches model ``me`` by ``affects`` and the
        entry's keyword / rice restrictions (read off the printed cards)."""
        a = entry.affects
        if me.id == u.id:
            return a in ("friends_and_self", "models_and_self", "enemies_and_self")
        friend = me.player == u.player
        ok = ((a in ("friends", "friends_and_self") and friend) or (a in ("enemies", "enemies_and_self") and not friend)
              or a in ("models", "models_and_self"))
        if not ok:
            return False
        if entry.target_keywords:
            view = view_of(self.printed_profile(me.id), friendly=friend,
                           conditions=conditions.from_model(me))  # Poison, Fire, Bleed markers too (F5)
            if not keyword_matches(", ".join(entry.target_keywords), view):
                return False
        if entry.target_rice:
            mine = getattr(self.printed_profile(u.id), "rice", None)
            theirs = getattr(self.printed_profile(me.id), "rice", None)
            if not isinstance(mine, int) or not isinstance(theirs, int):
                return False
            return theirs < mine if entry.target_rice == "lower" else theirs > mine
        return True

    def _aura_ops_effects(self, feat: str, entry: FeatEffect, x: int, option: int) -> list[dict]:
        """The effect mappings of the lasting ops of an Aura entry (X and option as paid)."""
        from sim.rules.game.feat_cards import ON_FEAT, OWN_NO_SPECIALS, card_effect_keys
        from sim.rules.game.feat_moves import NO_SPECIALS
        from sim.rules.game.feat_run import RUN_MARK  # round 6 (F7)
        from sim.rules.game.feat_step import _with_x, reroll_trait

        ops: list[Any] = []
        for op in entry.effects:
            if isinstance(op, ChoiceOp):
                ops += list(op.options[min(option, len(op.options) - 1)])
            else:
                ops.append(op)
        out: list[dict] = []
        for op in ops:
            eff: dict = {"source": f"{feat} (Aura)", "until": "end_phase"}
            if op.op == "grant":
                eff["traits"] = [_with_x(t, x) for t in op.traits]
            elif op.op == "reroll":
                eff["traits"] = [reroll_trait(op.test, x if op.n == "X" else int(op.n))]
            elif op.op == "lose":
                eff["lose"] = list(op.traits)
            elif op.op == "grant_weapon":
                eff["weapon_traits"], eff["weapon"] = [_with_x(t, x) for t in op.traits], op.weapon
                eff.update(card_effect_keys(op))  # round 6 (F5): a named weapon (feat_cards)
            elif op.op in ("special_cost", "boost"):  # round 6 (F5, feat_cards)
                eff.update(card_effect_keys(op))
            elif op.op == "on_feat":  # round 6 (F5): read when a model inside uses a feat (feat_cards)
                eff["source"] = feat + ON_FEAT
            elif op.op == "stat":
                eff["stats"] = {k: x if v == "X" else int(v) for k, v in op.changes.items()}
            elif op.op == "no_specials":
                eff["source"] = feat + (OWN_NO_SPECIALS if op.own else NO_SPECIALS)  # own: round 6 (F5)
            elif op.op == "range_bands":
                eff["range_bands"] = _bands(op)
            elif op.op == "pool_penalties" and op.ignore == "run":  # round 6 (F7): read by feat_run
                eff["source"] = feat + RUN_MARK
            else:
                continue
            out.append(eff)
        return out

    # ------------------------------------------------------------ range bands
    def apply_range_bands(self, mid: str, feat: str, op: RangeBandsOp) -> None:
        """Model ``mid``'s ranged weapons get the bands of ``op`` until its ``until``."""
        self._emit(Event("effect", {"model": mid, "source": feat, "until": op.until or "game",
                                    "range_bands": _bands(op)}))

    # ------------------------------------------------------------ tokens
    def tokens(self, mid: str, name: str) -> int:
        """How many ``name`` tokens model ``mid`` has (0 when none)."""
        v = self.state.models[mid].conditions.get(TOKEN_MARK + name.strip().title(), 0)
        return int(v) if isinstance(v, int) else 0

    def apply_tokens(self, mid: str, feat: str, name: str, n: int | str) -> None:
        """Place ``n`` ``name`` tokens on ``mid`` (negative: remove; ``"all"``: remove
        every one); the count is its mark ``token:<Name>``. Logs a manual step: what the
        tokens do is the card's rule."""
        key = TOKEN_MARK + name.strip().title()
        have = self.tokens(mid, name)
        new = 0 if n == "all" else max(0, have + int(n))
        if new == have:
            return
        if new:
            self._emit(Event("condition", {"model": mid, "name": key, "on": True, "value": new}))
        else:
            self._emit(Event("condition", {"model": mid, "name": key, "on": False}))
        self._emit(Event("manual_step", {"model": mid, "source": feat,
                                         "text": f"{mid} has {new} {name.strip().title()} token(s): what they do "
                                                 "is the card's rule, applied by hand"}))


def aura_kept(entry: FeatEffect) -> bool:
    """Round 6 (F2): whether an Aura entry is kept on its user while it lasts for the rules
    of :mod:`sim.rules.game.feat_areas` (terrain, entering, a range read from X or the turn)."""
    return (entry.aura_terrain is not None or bool(entry.aura_enter) or entry.range_x or entry.range_turn
            or entry.aura_shroud or entry.aura_ward or entry.aura_cover)


def aura_range(entry: FeatEffect, x: int | None, turn: int) -> float | None:
    """Round 6 (F2): the Pulse / Aura range of ``entry`` used with X = ``x`` in turn ``turn``:
    X inches (``range_x``), the turn number (``range_turn``), 0 for BtB, else the entry's range
    (None: unlimited)."""
    if entry.range_x:
        return float(max(1, int(x or 1))) + float(entry.range_plus)
    if entry.range_turn:
        return float(max(1, turn))
    if entry.btb:
        return 0.0
    return entry.range


def _bands(op: RangeBandsOp) -> dict:
    return {"bands": [float(b) for b in op.bands]} if op.bands is not None else {"add": float(op.add or 0.0)}
