"""Ki feats that exchange models' places (round 6, helper F3; p.22-23, Bodyguard p.49): the
``swap`` op of the feat effects data (:mod:`sim.rules.feat_effects`).

* **swap**: the affected model (the feat's target, or the one model of its Pulse the user's
  player names in ``Action.models``) and the user exchange places: each base centre goes
  where the other's was, each keeps its facing. The feat is refused (and not offered) unless
  there is exactly one such model and both bases fit in each other's place -- no overlap
  with another base, no Impassable terrain, no part off the table (p.22), the check
  Bodyguard's swap makes (p.49); a feat used in an exchange swaps with the enemy of that
  exchange (Sidewinder). A swap is no move and no Place (p.23): it may leave a model
  in base contact with an enemy (Sidewinder keeps both models in contact). Two ``move``
  events, as Bodyguard's swap.
* **move** ``kind: out_of_zoc``: the model moves straight away from an enemy (the model its
  trigger names, else the enemy of the last melee exchange it fought) and stops as soon as its
  base is out of that enemy's ZoC (Suri-Ashi, Debana: "until it leaves its ZoC, at which point
  its movement ends"), at most the move's distance; a base, Impassable terrain or the table
  edge stops it sooner (it then ends where it was stopped). No move when it is not in that
  enemy's ZoC (or may ignore it, p.22).

A base of :class:`~sim.rules.game.feat_step.FeatStep` (a mixin of
:class:`~sim.rules.game.Game`).
"""

from __future__ import annotations

import math

from sim.rules import ki, movement
from sim.rules.feat_effects import FeatEffect, SwapOp
from sim.rules.game.actions import Action
from sim.rules.game.events import Event
from sim.rules.game.part import GamePart
from sim.rules.game.state import ModelState

#: A straight move away is searched in steps of this many inches.
_STEP = 0.02


class FeatPlaces(GamePart):
    """The ``swap`` op (see the module docstring)."""

    def swap_partners(self, m: ModelState, f: ki.Feat, entry: FeatEffect, action: Action) -> list[str]:
        """The models the user of ``entry``'s ``swap`` would exchange places with."""
        return [x for x in self.feat_affected(m, f, entry, action) if x != m.id]

    def swap_refusal(self, m: ModelState, f: ki.Feat, entry: FeatEffect, action: Action) -> str | None:
        """Why ``action`` may not use ``entry``'s ``swap`` now (None when it may, or the entry
        has none): one model to swap with, and both bases fit in each other's place."""
        if not any(isinstance(e, SwapOp) for e in entry.effects):
            return None
        got = self.swap_partners(m, f, entry, action)
        if len(got) != 1:
            return (f"{f.name} swaps {m.id} with one model: " + ("none it reaches now" if not got else
                                                                 f"name one of {', '.join(got)} (models)"))
        ex = self.state.exchange
        if entry.when == "exchange" and ex is not None and got[0] not in (ex["attacker"], ex["defender"]):
            return f"{f.name} swaps {m.id} with the enemy of its exchange, not {got[0]}"
        if not self._swap_fits(m.id, got[0]):
            return (f"{f.name}: {m.id} and {got[0]} do not both fit in each other's place (a base, Impassable "
                    "terrain or the table edge in the way, p.22)")
        return None

    def apply_swap(self, m: ModelState, f: ki.Feat, mid: str) -> None:
        """``mid`` and the user ``m`` exchange places (two ``move`` events), or a note when
        they no longer fit."""
        if mid == m.id:
            return
        st = self.state
        if not self._swap_fits(m.id, mid):
            self._emit(Event("note", {"text": f"{f.name}: {m.id} and {mid} no longer fit in each other's place: "
                                              "no swap"}))
            return
        a, b = st.models[m.id], st.models[mid]
        to_a, to_b = list(b.position), list(a.position)
        fa, fb = a.facing, b.facing
        self._emit(Event("move", {"model": mid, "move": f"swap ({f.name}, not a move)", "to": to_b, "facing": fb,
                                  "cost": 0.0}))
        self._emit(Event("move", {"model": m.id, "move": f"swap ({f.name}, not a move)", "to": to_a, "facing": fa,
                                  "cost": 0.0}))
        self._emit(Event("note", {"text": f"{f.name}: {m.id} and {mid} exchange places"}))

    # ------------------------------------------------------------ out of an enemy's ZoC
    def last_exchange_enemy(self, mid: str) -> str | None:
        """The enemy of the last melee exchange ``mid`` fought (an ``exchange`` event), or None."""
        for ev in reversed(self.events):
            if ev.kind == "exchange" and mid in (ev.data.get("attacker"), ev.data.get("defender")):
                other = ev.data["defender"] if ev.data.get("attacker") == mid else ev.data.get("attacker")
                return str(other) if other in self.state.models else None
        return None

    def out_of_zoc_point(self, user: str, feat: str, mid: str, d: float) -> tuple[float, float] | None:
        """Where ``mid``'s ``out_of_zoc`` move of up to ``d`` inches ends (see the module
        docstring), or None when it does not move."""
        st = self.state
        enemy = self.trigger_target(user, feat) or self.last_exchange_enemy(mid)
        if enemy is None or enemy not in st.models or not st.models[enemy].alive or enemy == mid:
            return None
        mover = movement.Mover(self._table_now(), mid)
        if enemy not in {e.id for e in mover.zoc_enemies} or not mover.in_zoc_at(enemy, mover.start):
            return None
        a, e = mover.start, st.models[enemy].position
        n = math.dist(a, e)
        if n < 1e-9:
            return None
        ux, uy = (a[0] - e[0]) / n, (a[1] - e[1]) / n
        last = None
        for i in range(1, int(d / _STEP) + 2):
            t = min(d, i * _STEP)
            p = (a[0] + ux * t, a[1] + uy * t)
            if not mover.on_table(p) or mover.collisions(a, p) or mover.end_overlaps(p):
                break
            last = p
            if not mover.in_zoc_at(enemy, p):
                return p
            if t >= d:
                break
        return last
