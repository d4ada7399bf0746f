"""Ki feats that change Melee Assist penalties (rulebook p.36; feat vocabulary round 6, F1).

p.36: "Модели при Обмене ударами имеют модификатор -1 за каждую дополнительную вражескую
модель в контакте, кроме той, с которой в данный момент отыгрывают Обмен ударами, если
только этот враг сам не находится в контакте с другой дружественной моделью." The engine
counts those models in :meth:`~sim.rules.game.melee_step.MeleeStep.melee_assisters`; the
feats of this module change what they do:

* the ``assist`` op (Outmanoeuvre, Practised Manoeuvres): until its duration the affected
  model's assist takes ``n`` dice off the enemy instead of 1 (optionally only in exchanges
  where a fighting model matches ``keywords``). Kept as the mark ``feat_assist:<feat>``
  on the model (JSON ``{"until", "n", "keywords", "user"}``), so saves and replays keep it;
  read when a combatant is built (:meth:`FeatAssists.assist_feat_modifiers`). Indomitable
  (X) (p.53: it ignores X assisting models) ignores the heaviest assists first (reading,
  /work/notes/rulings_F1.md).
* the ``assist_bonus`` op (Absolute Mastery): per model that gives the user an assist
  penalty in its exchange now (even one Indomitable ignores), statistic changes.
* the entry field ``needs_assist`` (Phalanx, Underhanded): the feat is used only in an
  exchange where the user's opponent suffers an assist penalty from the user's side; a
  Target feat then targets that opponent.
* the limit ``once_per_exchange`` (Underhanded): the mark ``feat_used_exchange:<feat>`` on
  the user until the exchange is resolved.

A mixin of :class:`~sim.rules.game.Game` (through :class:`~sim.rules.game.feat_step.FeatStep`).
"""

from __future__ import annotations

import json
from typing import Any

from sim.rules import conditions, ki
from sim.rules.card_keywords import keyword_matches, view_of
from sim.rules.game.actions import Action
from sim.rules.game.events import Event
from sim.rules.game.feat_run import ignores_run, run_pool_modifiers  # round 6 (F7)
from sim.rules.game.part import GamePart
from sim.rules.game.state import ModelState
from sim.rules.melee.pools import initiative

#: The mark of an ``assist`` op on a model: ``feat_assist:<feat>``.
ASSIST_MARK = "feat_assist:"
#: The mark of a ``pool_penalties`` op on a model: ``feat_pool:<feat>`` (JSON ``{"until", "ignore"}``).
POOL_MARK = "feat_pool:"
#: The condition markers whose melee pool penalty (-1 each, p.36) ``pool_penalties`` cancels.
PENALTY_CONDITIONS = ("prone", "blind", "stunned", "frightened", "immobilised", "held")
#: The mark of a ``shots`` op on a model: ``feat_shots:<feat>`` (JSON ``{"until", "ignore", "no_intercept"}``).
SHOTS_MARK = "feat_shots:"
#: The mark of a ``special_damage`` op: ``feat_special_damage:<feat>`` (JSON ``{"until", "specials"}``).
SPECIAL_DAMAGE_MARK = "feat_special_damage:"
#: The mark of a ``once_per_exchange`` feat used in the exchange under way.
ONCE_EXCHANGE_MARK = "feat_used_exchange:"


class FeatAssists(GamePart):
    """Feats that change Melee Assist penalties (p.36): ops, gate, marks."""

    def assist_feat_modifiers(self, mid: str, opponent: str) -> tuple[tuple[str, int], ...]:
        """The extra Melee pool modifiers of ``mid`` in its exchange with ``opponent`` from
        ``assist`` feats of the enemies that assist against it: each such enemy takes
        ``n - 1`` more dice (labelled with the feat); Indomitable (X) ignores X assisting
        models, the heaviest first (reading). ``()`` when none."""
        st = self.state
        own = self._pool_feat_modifiers(mid)  # Veteran: no condition penalties
        own += run_pool_modifiers(self, mid)  # round 6 (F7): no penalty for having Run (feat_run)
        if not any(k.startswith(ASSIST_MARK) for m in st.models.values() for k in m.conditions):
            return own
        extras: list[tuple[int, str, str]] = []
        for e in self.melee_assisters(mid, opponent):
            best, src = 1, ""
            for key, v in st.models[e].conditions.items():
                if not key.startswith(ASSIST_MARK):
                    continue
                data = json.loads(str(v))
                kws = list(data.get("keywords") or [])
                if kws and not (self._matches_any(mid, e, kws) or self._matches_any(opponent, e, kws)):
                    continue
                if int(data["n"]) > best:
                    best, src = int(data["n"]), key[len(ASSIST_MARK):]
            if best > 1:
                extras.append((best - 1, e, src))
        if not extras:
            return own
        has, xv = self._trait(mid, "indomitable")
        ignored = int(xv) if has and isinstance(xv, int) else 0
        extras.sort(key=lambda t: (-t[0], t[1]))
        return own + tuple((f"{src}: {e}'s assist -{n + 1}", -n) for n, e, src in extras[ignored:])

    def _pool_feat_modifiers(self, mid: str) -> tuple[tuple[str, int], ...]:
        """The modifier that cancels ``mid``'s condition penalties (-1 per condition marker
        of :data:`PENALTY_CONDITIONS`, p.36) while it carries a ``pool_penalties`` mark."""
        m = self.state.models[mid]
        feat = next((k[len(POOL_MARK):] for k, v in m.conditions.items()
                     if k.startswith(POOL_MARK) and not ignores_run(v)), None)  # run: feat_run (F7)
        if feat is None:
            return ()
        have = [c for c in PENALTY_CONDITIONS if c in conditions.from_model(m)]
        return ((f"{feat}: no penalty of {', '.join(have)}", len(have)),) if have else ()

    def _matches_any(self, mid: str, seen_by: str, keywords: list[str]) -> bool:
        """Whether model ``mid`` matches one of ``keywords`` (its card's type, faction, name,
        traits; :func:`~sim.rules.card_keywords.keyword_matches`), seen from ``seen_by``."""
        st = self.state
        m = st.models.get(mid)
        if m is None:
            return False
        view = view_of(self.profile(mid), friendly=m.player == st.models[seen_by].player, conditions=m.conditions)
        return bool(keyword_matches(", ".join(keywords), view))

    def feat_combatant_fields(self, mid: str) -> dict[str, Any]:
        """Fields a Ki feat sets on ``mid``'s melee combatant now (``special_damage`` marks:
        ``damaging_specials``); ``{}`` when none."""
        m = self.state.models.get(mid)
        keys: set[str] = set()
        wounds: set[str] = set()
        for key, v in (m.conditions.items() if m is not None else ()):
            if key.startswith(SPECIAL_DAMAGE_MARK):
                data = json.loads(str(v))
                (wounds if data.get("wound") else keys).update(data.get("specials", ()))
        out: dict[str, Any] = {"damaging_specials": frozenset(keys)} if keys else {}
        return {**out, "special_wounds": frozenset(wounds)} if wounds else out

    def shot_rules(self, mid: str) -> dict[str, bool]:
        """The rules Ki feats give ``mid``'s ranged attacks now (``shots`` marks): ``cover``,
        ``tiny`` (modifiers ignored), ``no_intercept``; ``{}`` when none."""
        m = self.state.models.get(mid)
        out: dict[str, bool] = {}
        for key, v in (m.conditions.items() if m is not None else ()):
            if key.startswith(SHOTS_MARK):
                data = json.loads(str(v))
                out.update({i: True for i in data.get("ignore", ())})
                if data.get("no_intercept"):
                    out["no_intercept"] = True
        return out

    def exchange_opponent(self, mid: str) -> str | None:
        """The model ``mid`` fights in the exchange waiting for allocations, or None."""
        ex = self.state.exchange
        if ex is None or mid not in (ex["attacker"], ex["defender"]):
            return None
        return str(ex["defender"] if mid == ex["attacker"] else ex["attacker"])

    def assist_feat_refusal(self, m: ModelState, f: ki.Feat, entry: Any, action: Action) -> str | None:
        """Why ``action`` may not use feat ``f`` now because of its round 6 assist rules
        (None when it may): ``needs_assist`` -- only in an exchange ``m`` fights whose
        opponent suffers a Melee Assist penalty from ``m``'s side (p.36), a Target feat at
        that opponent; ``once_per_exchange`` -- not twice in one exchange."""
        if entry.needs_assist:
            opp = self.exchange_opponent(m.id)
            if opp is None:
                return f"{f.name} is used in a melee exchange {m.id} fights"
            if f.area == "target" and action.target is not None and action.target != opp:
                return f"{f.name} targets {opp}, {m.id}'s opponent in the exchange"
            if not self.melee_assisters(opp, m.id):
                return f"no model of {m.id}'s side gives {opp} a Melee Assist penalty (p.36)"
        if "once_per_exchange" in entry.limits and ONCE_EXCHANGE_MARK + f.name in m.conditions:
            return f"{f.name} is used once per melee exchange"
        if entry.moved_into_melee:  # Passing Strike: its own Charge / Melee moved it into contact
            ex = self.state.exchange
            if ex is None or ex.get("attacker") != m.id or m.player != self.state.active:
                return f"{f.name} is used in the exchange of {m.id}'s own Charge or Melee"
            if not self._moved_into_melee(m.id):
                return f"{m.id} did not move into melee this activation (it began in contact)"
        if entry.initiative is not None:  # Nuki Do: only without the Initiative (p.33)
            holder = self.initiative_holder()
            if holder is None or self.exchange_opponent(m.id) is None:
                return f"{f.name} is used in a melee exchange {m.id} fights"
            if (holder == m.id) != (entry.initiative == "with"):
                return (f"{f.name} is used only when {m.id} "
                        f"{'holds' if entry.initiative == 'with' else 'does not hold'} the Initiative (p.33)")
        return None

    def _moved_into_melee(self, mid: str) -> bool:
        """Whether ``mid``'s Charge or Melee moved it this activation (a ``move`` event of kind
        charge / melee with a distance, after the ``activate`` event of its activation)."""
        for ev in reversed(self.events):
            if ev.kind == "activate":
                return False
            if ev.kind == "move" and ev.data.get("model") == mid and ev.data.get("move") in ("charge", "melee") \
                    and float(ev.data.get("cost") or 0) > 0:
                return True
        return False

    def initiative_holder(self) -> str | None:
        """The model holding the Initiative in the exchange waiting for allocations (p.33:
        the active model, unless a trait, condition or effect changes it), or None."""
        ex = self.state.exchange
        if ex is None:
            return None
        a = self.combatant(ex["attacker"], True, ex["charge"])
        b = self.combatant(ex["defender"], False, False)
        return str(ex["attacker"] if initiative(a, b) == "a" else ex["defender"])

    def note_feat_used(self, m: ModelState, f: ki.Feat, entry: Any) -> None:
        """Mark a ``once_per_exchange`` feat used in the exchange under way."""
        if "once_per_exchange" in entry.limits and self.state.exchange is not None:
            self._emit(Event("condition", {"model": m.id, "name": ONCE_EXCHANGE_MARK + f.name, "on": True,
                                           "value": "exchange"}))

    def apply_assist_op(self, m: ModelState, f: ki.Feat, op: Any, mid: str) -> None:
        """The ``assist`` op on ``mid``: the mark read by :meth:`assist_feat_modifiers`;
        the ``assist_bonus`` op: the statistic changes times the models assisting against
        ``mid`` in its exchange now."""
        if op.op == "special_damage":
            value = json.dumps({"until": op.until, "specials": list(op.specials), "wound": op.wound}, sort_keys=True)
            self._emit(Event("condition", {"model": mid, "name": SPECIAL_DAMAGE_MARK + f.name, "on": True,
                                           "value": value}))
            what = "gives the enemy one wound" if op.wound else "also makes its damage roll"
            self._emit(Event("note", {"text": f"{f.name}: a successful {', '.join(op.specials)} of {mid} {what} "
                                              f"until {op.until.replace('_', ' ')} (p.39-41)"}))
            return
        if op.op == "shots":
            value = json.dumps({"until": op.until, "ignore": list(op.ignore), "no_intercept": op.no_intercept},
                               sort_keys=True)
            self._emit(Event("condition", {"model": mid, "name": SHOTS_MARK + f.name, "on": True, "value": value}))
            rules = [("no LoS needed" if i == "los" else f"no {i.title()} modifier") for i in op.ignore] \
                + (["no interception"] if op.no_intercept else [])
            self._emit(Event("note", {"text": f"{f.name}: {mid}'s ranged attacks: {', '.join(rules)} until "
                                              f"{op.until.replace('_', ' ')} (p.30-31)"}))
            return
        if op.op == "pool_penalties":
            value = json.dumps({"until": op.until, "ignore": op.ignore}, sort_keys=True)
            self._emit(Event("condition", {"model": mid, "name": POOL_MARK + f.name, "on": True, "value": value}))
            what = "for having Run" if op.ignore == "run" else "from its conditions"  # round 6 (F7)
            self._emit(Event("note", {"text": f"{f.name}: {mid} takes no Melee pool penalty {what} "
                                              f"until {op.until.replace('_', ' ')} (p.36)"}))
            return
        if op.op == "assist":
            value = json.dumps({"until": op.until, "n": op.n, "keywords": list(op.keywords), "user": m.id},
                               sort_keys=True)
            self._emit(Event("condition", {"model": mid, "name": ASSIST_MARK + f.name, "on": True, "value": value}))
            where = f" in exchanges of {' or '.join(op.keywords)}" if op.keywords else ""
            self._emit(Event("note", {"text": f"{f.name}: {mid}'s Melee Assist takes {op.n} dice off instead of 1"
                                              f"{where} until {op.until.replace('_', ' ')} (p.36)"}))
            return
        opp = self.exchange_opponent(mid)
        n = len(self.melee_assisters(mid, opp)) if opp is not None else 0
        if n <= 0:
            self._emit(Event("note", {"text": f"{f.name}: no model gives {mid} a Melee Assist penalty: no bonus"}))
            return
        stats = {k: int(v) * n for k, v in op.changes.items()}
        self._emit(Event("note", {"text": f"{f.name}: {n} model(s) assist against {mid}: "
                                          + ", ".join(f"{k} {v:+d}" for k, v in stats.items())}))
        self.grant(mid, f.name, op.until, stats=stats, weapon=op.weapon)

    def assist_marks_expire(self, until: str) -> None:
        """The duration ``until`` ends: the ``assist`` marks lasting that long go (one lasting
        the exchange also goes when the activation ends: used before an exchange that never
        came, reading), and at the end of an exchange the ``once_per_exchange`` marks."""
        for m in list(self.state.models.values()):
            for key, v in list(m.conditions.items()):
                done = False
                if key.startswith(ASSIST_MARK):  # "until the exchange": used before one, gone with the activation
                    lasts = json.loads(str(v)).get("until")
                    done = lasts == until or (lasts == "exchange" and until == "activation")
                elif key.startswith((POOL_MARK, SHOTS_MARK, SPECIAL_DAMAGE_MARK)):
                    done = json.loads(str(v)).get("until") == until
                elif key.startswith(ONCE_EXCHANGE_MARK):
                    done = until == "exchange"
                if done:
                    self._emit(Event("condition", {"model": m.id, "name": key, "on": False}))
