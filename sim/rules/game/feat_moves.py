"""Ki feat operations that move models or bar special attacks (p.22, p.46-47):
``move`` and ``no_specials`` of the feat effects data (:mod:`sim.rules.feat_effects`),
and the models a feat's user names.

* **Chosen models**: a Pulse/Aura feat that reaches at most ``max_affected`` models, or
  moves several, affects the models the user's player names in ``Action.models`` (each
  in the area and one the entry reaches); without names, the nearest ``max_affected``.
* **move** (``distance`` inches, ``Move`` -- the model's Move statistic -- or ``X``): the
  destination is the user's player's choice: ``Action.point`` when one model moves,
  ``Action.path[i]`` for ``Action.models[i]`` when several do; a model without a point
  does not move ("up to"). ``walk``: a Walk by the movement rules with the distance as its
  Move (no Walk action, no counter: the rulebook's example of "Вперёд!", p.24); ``free``
  and ``place``: straight (``place``: anywhere) within the distance, on the table and on
  no base; ``push``/``away``/``toward``: straight away from / toward the user, as far as
  the distance goes before a base, Impassable terrain or the table edge stops it (no
  choice). Each move is a ``move`` event.
* **no_specials**: an effect (source ``<feat>: no special attacks or defences against
  it``) for its duration; while it lasts, no enemy may allocate a special attack or
  defence in an exchange against the model (:meth:`FeatMoves.specials_refusal`).

A base of :class:`~sim.rules.game.feat_step.FeatStep` (a mixin of
:class:`~sim.rules.game.Game`).
"""

from __future__ import annotations

import math
import re
from dataclasses import replace
from typing import Any

from sim.rules import ki, movement, placement
from sim.rules.feat_effects import FeatEffect, MoveOp
from sim.rules.game.actions import Action
from sim.rules.game.events import Event
from sim.rules.game.part import GamePart
from sim.rules.game.state import ModelState
from sim.table import Table

#: The effect source suffix of a ``no_specials`` operation.
NO_SPECIALS = ": no special attacks or defences against it"
#: Straight moves are searched back from the full distance in steps of this many inches.
_STEP = 0.05


class FeatMoves(GamePart):
    """Feat moves, chosen models and the bar on special attacks."""

    # ------------------------------------------------------------ no_specials
    def specials_refusal(self, mid: str, against: str) -> str | None:
        """Why ``mid`` may not declare a special attack or defence against ``against`` now
        (a feat's ``no_specials`` effect on ``against``), or None."""
        why = self.own_specials_refusal(mid)  # round 6 (F5): it may use none at all (feat_cards)
        if why:
            return why
        m = self.state.models.get(against)
        if m is None or self.state.models[mid].player == m.player:
            return None
        effects = m.effects + self.aura_effects(against)  # an Aura's no_specials (feat_auras)
        src = next((e["source"] for e in effects if str(e.get("source", "")).endswith(NO_SPECIALS)), None)
        if src is None:
            return None
        return f"{src[:-len(NO_SPECIALS)]}: no special attacks or defences against {against} (p.46)"

    def apply_no_specials(self, mid: str, feat: str, until: str | None) -> None:
        """Model ``mid`` gets the effect of a ``no_specials`` op of ``feat`` until ``until``."""
        self.grant(mid, feat + NO_SPECIALS, until or "game")

    # ------------------------------------------------------------ chosen models and points
    def _move_op(self, entry: FeatEffect) -> MoveOp | None:
        return next((e for e in entry.effects if isinstance(e, MoveOp)), None)

    def feat_choice_refusal(self, m: ModelState, f: ki.Feat, entry: FeatEffect, action: Action) -> str | None:
        """Why the models and points ``action`` names for feat ``f`` are wrong (None when
        they are fine): named models must be in the area and reached by the entry, at most
        ``max_affected``; a move's points are one per named model (``path``) or the
        ``point`` of its one model, each a legal destination now."""
        if action.models:
            if f.area not in ("pulse", "aura"):
                return f"{f.name} names no models (it is not a Pulse or Aura feat)"
            area = self.area_models(m, f, entry)
            bad = [x for x in action.models if x not in area]
            if bad:
                return f"{', '.join(map(str, bad))}: not a model {f.name} reaches in its area now"
            if len(set(action.models)) != len(action.models):
                return "a model is named twice"
            cap = entry.cap(action.x)
            if cap is not None and len(action.models) > cap:
                return f"{f.name} reaches at most {cap} models"
        op = self._move_op(entry)
        if op is None or op.kind in ("push", "away", "toward", "to_target", "out_of_zoc"):
            return None
        if action.walk is not None:
            return f"{f.name} moves models itself: declare no Walk with it"
        if action.models and action.path and len(action.path) != len(action.models):
            return "one point (path) per named model"
        for mid, pt in self._named_points(m, f, entry, action).items():
            why = self._move_problem(m.id, mid, op, pt, action)
            if why:
                return f"{mid}: {why}"
        return None

    def _named_points(self, m: ModelState, f: ki.Feat, entry: FeatEffect, action: Action) -> dict[str, Any]:
        """The destination the user's player chose for each model the feat moves."""
        if action.models:
            return {mid: tuple(p) for mid, p in zip(action.models, action.path)}
        if action.point is None:
            return {}
        if entry.affects == "self":
            return {m.id: action.point}
        if action.target:
            return {action.target: action.point}
        return {}

    def _distance(self, mid: str, op: MoveOp, action: Action) -> float:
        if op.distance == "Move":
            prof = self.profile(mid)
            return float(getattr(prof, "move", 0) or self.table.model(mid).move or 0)
        if op.distance == "X":
            return float(action.x or 1)
        return float(op.distance)

    def _table_moving(self, mid: str, allowance: float) -> Table:
        """The table now with ``mid``'s Move set to ``allowance`` (a feat's move)."""
        t = self._table_now()
        models = tuple(replace(x, move=allowance) if x.id == mid else x for x in t.models)
        return Table(t.name, t.width, t.depth, t.terrain, models, t.source)

    def _move_problem(self, user: str, mid: str, op: MoveOp, point: Any, action: Action) -> str | None:
        """Why ``mid`` cannot make the feat's ``op`` move to ``point`` now, or None."""
        d = self._distance(mid, op, action)
        table = self._table_moving(mid, d)
        if op.kind == "walk":
            res = movement.check_walk(table, mid, [point])
            return None if res.legal else "; ".join(r.message for r in res.reasons)
        mover = movement.Mover(table, mid)
        p = (float(point[0]), float(point[1]))
        if math.dist(mover.start, p) > d + 1e-6:
            return f"{math.dist(mover.start, p):.2f}\" is beyond the {d:g}\" of the move"
        if op.kind == "place":  # Place (p.23): not in contact with an enemy either
            return next(iter(placement.place_problems(table, mid, p)), None)
        if not mover.on_table(p):
            return "the base would leave the table"
        over = mover.end_overlaps(p)
        return over[0].message if over else None

    def _straight_point(self, user: str, mid: str, d: float, toward: bool) -> tuple[float, float] | None:
        """The end of a straight move of ``mid`` away from (toward) ``user`` of up to ``d``
        inches, stopped by a base, Impassable terrain or the table edge (toward: by
        contact with the user); None when it cannot move."""
        st = self.state
        a, b = st.models[mid].position, st.models[user].position
        vx, vy = (b[0] - a[0], b[1] - a[1]) if toward else (a[0] - b[0], a[1] - b[1])
        n = math.hypot(vx, vy)
        if n < 1e-9:
            return None
        ux, uy = vx / n, vy / n
        if toward:
            gap = n - self.table.model(mid).radius - self.table.model(user).radius
            d = min(d, max(0.0, gap))
        mover = movement.Mover(self._table_now(), mid)
        k = int(d / _STEP + 1e-9)
        for i in range(k, 0, -1):
            t = min(d, i * _STEP) if i < k else d
            p = (a[0] + ux * t, a[1] + uy * t)
            if mover.on_table(p) and not mover.collisions(mover.start, p) and not mover.end_overlaps(p):
                return p
        return None

    def apply_move(self, m: ModelState, f: ki.Feat, op: MoveOp, mid: str, action: Action) -> None:
        """``mid`` makes the feat's move (see the module docstring): a ``move`` event, or a
        note when it does not move."""
        d = self._distance(mid, op, action)
        if op.kind in ("push", "away", "toward"):
            pt = self._straight_point(m.id, mid, d, op.kind == "toward") if mid != m.id else None
        elif op.kind == "out_of_zoc":  # round 6 (F3): away until out of the enemy's ZoC (feat_places)
            pt = self.out_of_zoc_point(m.id, f.name, mid, d)
        elif op.kind == "to_target":  # round 3: straight toward the target / the triggering model
            goal = self.move_goal(m.id, f.name, action)
            pt = self._contact_point(goal, mid, d) if goal and goal != mid else None
        else:
            pt = self._named_points(m, f, self.card_feat_entry_any(f.name), action).get(mid)
            if pt is not None and self._move_problem(m.id, mid, op, pt, action):
                pt = None
        if pt is None:
            self._emit(Event("note", {"text": f"{f.name}: {mid} does not move"}))
            return
        x = self.state.models[mid]
        if op.kind == "walk":
            res = movement.check_walk(self._table_moving(mid, d), mid, [pt])
            cost = res.cost
        else:
            cost = math.dist(x.position, pt)
        self._emit(Event("move", {"model": mid, "move": f"{op.kind} ({f.name}, not an action)",
                                  "to": [float(pt[0]), float(pt[1])], "cost": float(cost),
                                  # Place (p.23): "Игрок, размещающий модель, определяет Направление модели"
                                  "facing": (action.facing % 360 if op.kind == "place" and action.facing is not None
                                             else x.facing)}))

    def _contact_point(self, goal: str, mid: str, d: float) -> tuple[float, float] | None:
        """Where ``mid`` ends a ``to_target`` move of up to ``d`` inches toward ``goal``:
        the nearest point in base contact with it that a straight line reaches without
        crossing a base, on the table and overlapping nothing (the shortest route round a
        model in the way); else as far as a straight move toward it goes; None when it
        cannot move."""
        st = self.state
        a, g = st.models[mid].position, st.models[goal].position
        ring = self.table.model(mid).radius + self.table.model(goal).radius + 0.005  # CONTACT is 0.01"
        mover = movement.Mover(self._table_now(), mid)
        best: tuple[float, tuple[float, float]] | None = None
        for i in range(72):
            t = math.radians(i * 5.0)
            p = (g[0] + ring * math.cos(t), g[1] + ring * math.sin(t))
            dist = math.dist(a, p)
            if dist > d + 1e-6 or (best is not None and dist >= best[0]):
                continue
            if mover.on_table(p) and not mover.collisions(mover.start, p) and not mover.end_overlaps(p):
                best = (dist, p)
        return best[1] if best is not None else self._straight_point(goal, mid, d, True)

    def _later_ops(self, feat: str) -> list[MoveOp]:
        """The delayed ``move`` ops (``at``) of feat ``feat``'s entry."""
        entry = self.card_feat_entry_any(feat)
        return [e for e in entry.effects if isinstance(e, MoveOp) and e.at is not None]

    def later_offers(self, mid: str, feat: str) -> list[Action]:
        """The delayed step of ``mid``'s feat ``feat`` (Dash's move when its activation
        ends): one ``Action("feat_later", mid, feat=..., point=...)`` with a suggested
        destination (toward the nearest enemy, short of its ZoC), when one is found."""
        entry = self.card_feat_entry_any(feat)
        f = self.feats(mid).get(feat)
        if f is None:
            return []
        a = Action("feat_later", mid, feat=feat)
        pts = self.suggested_points(self.state.models[mid], f, entry, [mid], a)
        return [replace(a, point=pts[0])] if pts else []

    def later_refusal(self, m: ModelState, action: Action) -> str | None:
        """Why the delayed step ``action`` may not be made (its point is no legal end of
        the move), or None."""
        if action.point is None:
            return "the delayed move needs its point (or decline it)"
        for op in self._later_ops(action.feat or ""):
            why = self._move_problem(m.id, m.id, op, action.point, action)
            if why:
                return why
        return None

    def resolve_later(self, action: Action) -> None:
        """Make a legal delayed step: the feat's delayed moves to ``action.point`` (no Ki is
        paid again); the wait ends."""
        assert action.model is not None and action.feat is not None  # judged legal
        m = self.state.models[action.model]
        f = self.feats(m.id)[action.feat]
        for op in self._later_ops(action.feat):
            self.apply_move(m, f, op.model_copy(update={"at": None}), m.id, action)
        self.trigger_done(m.id, action.feat)

    def move_goal(self, user: str, feat: str, action: Action) -> str | None:
        """The model a ``to_target`` move heads for: the feat's declared target, else the
        model its trigger names (``[trigger: X]``: the enemy that contacted, moved ...), else None."""
        if action.target and action.target in self.state.models:
            return action.target
        v = str(self.state.models[user].conditions.get("feat_trigger:" + feat, ""))
        got = re.search(r"\[trigger: ([^\]]+)\]", v) or re.match(r"^on (.+)'s contact$", v)
        return got.group(1) if got and got.group(1) in self.state.models else None

    def card_feat_entry_any(self, name: str) -> FeatEffect:
        """The data entry of feat ``name`` (it exists: the feat is being applied)."""
        from sim.rules.feat_effects import feat_effect

        entry = feat_effect(name)
        assert entry is not None  # applied feats have an entry
        return entry

    def suggested_points(self, m: ModelState, f: ki.Feat, entry: FeatEffect, movers: list[str],
                         action: Action) -> list[tuple[float, float]] | None:
        """A destination for each of ``movers`` (the bots' and the window's offer): as far
        as the move goes toward the nearest enemy, judged legal one after another on the
        table now; None when one of them has none."""
        op = self._move_op(entry)
        if op is None:
            return None
        st = self.state
        out = []
        for mid in movers:
            x = st.models[mid]
            foes = [e for e in st.alive(3 - x.player) if e.elsewhere is None]
            if not foes:
                return None
            e = min(foes, key=lambda e: math.dist(e.position, x.position))
            v = (e.position[0] - x.position[0], e.position[1] - x.position[1])
            n = math.hypot(*v)
            d = self._distance(mid, op, action)
            got = None
            for frac in (1.0, 0.75, 0.5, 0.25):
                t = min(d * frac, max(0.0, n - 3.5))  # short of the enemy's ZoC
                if t <= 0.05:
                    break
                p = (x.position[0] + v[0] / n * t, x.position[1] + v[1] / n * t)
                if self._move_problem(m.id, mid, op, p, action) is None:
                    got = p
                    break
            if got is None:
                return None
            out.append(got)
        return out
