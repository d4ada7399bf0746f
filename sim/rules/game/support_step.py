"""Traits that move Ki and give other models actions (rulebook "Traits" p.48-59): Leech,
Channel, Virtue and its tokens, Command, Order, Believer and Disturb Flow.

* **Leech (X/Y")** (p.54) and **Channel (X/Y")** (p.50): once a turn, during the model's
  activation, it takes up to X Ki tokens from friends within Y" (not above its Ki limit),
  or gives up to X of its own to friends within Y". A free step (no counter) of a model
  that may activate now: ``Action("leech", model, models=(friend, friend, ...))`` -- one
  id per token, so the player picks how many from whom (``channel`` alike).
* **Virtue (X")** (p.59) and Virtue tokens (p.5): once a turn, during its activation, it
  gives a Virtue token to a friendly non-Soulless, non-Insignificant model of its faction
  within X" that holds none (``Action("virtue", model, target=friend)``). A holder spends
  it whenever it could use an Instant Ki feat (``Action("spend_virtue", model)``); the
  benefit is an ability on a card of the warband, which the engine cannot read: the
  spending is logged as a manual step naming that rule.
* **Command [K] (X/Y")** (p.50, worked example p.24): a Simple action nominating up to X
  other non-Exhausted friendly [K] models within Y" (``models=``; a Group model's whole
  card or none of it). Each then declares a Simple standard action, in the order its
  player chooses, and loses a counter for it as usual; until all have acted, the player
  stays active and only they may declare (:meth:`SupportStep.command_refusal`).
* **Order [K] (X/Y")** (p.55): a Complex action; up to X other friendly [K] models within
  Y" (``models=``) gain one activation counter each.
* **Believer [K] (X/Y")** (p.49) and **Disturb Flow (X/Y")** (p.51): feat and boost costs
  of friendly [K] models within Y" of a Believer are X lower (several Believers add up);
  enemies within Y" of a Disturb Flow model pay X more (the highest X only); never below
  one token (p.46): :meth:`SupportStep.feat_cost_modifier`.

State lives in the models' ``conditions`` as marks that are no conditions (ignored by
:mod:`sim.rules.conditions`, carried by positions and saves): ``virtue_token`` (1),
``commanded`` (the commander's id); once-a-turn uses are boxes of ``feat_usage``
(``trait:Leech``), wiped in the End phase; ``activating`` marks a model that took a free
step of its activation and must declare its action next (p.24). A mixin of :class:`~sim.rules.game.Game`.
"""

from __future__ import annotations

import re
from collections import Counter

from models.profiles import Profile
from sim.rules import movement
from sim.rules.card_keywords import keyword_matches, view_of
from sim.rules.game.actions import Action, ActionKind, register
from sim.rules.game.events import EVENT_KINDS, Event, EventKind
from sim.rules.game.part import GamePart
from sim.rules.game.state import GameState, ModelState
from sim.rules.game.turn_traits import ACTIVATING as _TURN_ACTIVATING

__all__ = ["SupportStep", "COMMAND_ACTIONS", "has_keyword", "trait_xy"]

#: The Simple standard actions (p.24-25) a commanded model may declare (Command, p.50).
COMMAND_ACTIONS = ("walk", "run", "melee", "disengage", "shoot", "ki_feat", "scenario", "stand_up", "wait")

#: The mark of a model nominated by a Command that has not acted yet (value: the commander).
COMMANDED = "commanded"
#: The mark of a model holding a Virtue token (p.5).
VIRTUE_TOKEN = "virtue_token"
#: The mark of a model that has taken a free step of its activation (Leech, Channel,
#: Virtue, as Jump Up and Cultist: :mod:`sim.rules.game.turn_traits`) and must now declare
#: its action (p.24); cleared after its action.
ACTIVATING = _TURN_ACTIVATING

#: The traits this step reads off the cards.
SUPPORT_TRAITS = ("leech", "channel", "virtue", "command", "order", "believer", "disturb_flow")

_EPS = 1e-6
_BTB = re.compile(r"btb", re.I)


def trait_xy(t) -> tuple[int, float]:
    """``(X, Y inches)`` of a trait printed ``Name [K] (X/Y")`` (a
    :class:`models.profiles.Trait`): X is ``value``, Y its ``range``; ``BtB`` is base
    contact (:data:`sim.geometry.CONTACT`); a value or range left out is 1 and 1" (p.48:
    "если признак указан на карте без значения X или Y, то предполагается, что он равен 1
    или 1\"")."""
    x = t.value if isinstance(t.value, int) else 1
    if t.range is not None:
        y = float(t.range)
    elif _BTB.search(t.text or ""):
        y = movement.CONTACT
    else:
        y = 1.0
    return x, y


def has_keyword(prof: Profile | None, keyword: str | None, conditions=()) -> bool:
    """Whether a friendly model with card ``prof`` (and ``conditions``) is a ``[keyword]``
    model (p.48: a keyword names a profile, a model type, a trait or a faction;
    :func:`sim.rules.card_keywords.keyword_matches`); no keyword, or ``Friendly``, is every
    friendly model. A keyword with a token the engine does not track (``Samurai with no
    Shame Tokens``) is read by its first word (rulings_H4)."""
    if keyword is None or not keyword.strip():
        return True
    view = view_of(prof, friendly=True, conditions=conditions)
    got = keyword_matches(keyword, view)
    if got is None:
        got = keyword_matches(keyword.split()[0], view)
    return bool(got)


class SupportStep(GamePart):
    """Leech, Channel, Virtue, Command, Order, Believer, Disturb Flow (a mixin of
    :class:`~sim.rules.game.Game`)."""

    # ------------------------------------------------------------ helpers
    def _card_trait(self, mid: str, keyword: str):
        """The model's (effective) card's trait ``keyword`` (the first), or None."""
        prof = self.profile(mid)
        return prof.trait(keyword) if prof is not None else None

    def _within(self, a: str, b: str, y: float) -> bool:
        """Base edges of ``a`` and ``b`` within ``y`` inches (p.22)."""
        return self._table_now().scene().distance(a, b) <= y + _EPS

    def _used_this_turn(self, mid: str, box: str) -> bool:
        return box in self.state.feat_usage.get(mid, {}).get("turn", [])

    def _may_act_now(self, m: ModelState) -> str | None:
        """Why ``m`` is not in its activation's decision now (the free steps of Leech,
        Channel and Virtue are taken during the model's activation, before it declares its
        action), or None."""
        st = self.state
        if st.phase != "main" or st.active != m.player or self.to_move() != m.player:
            return f"{m.id} is not its player's model to activate now (Main phase, its player active)"
        if st.exchange is not None or st.interception is not None:
            return "a melee exchange or a shot is being resolved"
        if not m.alive or m.exhausted:
            return f"{m.id} is Exhausted or not on the table: it has no activation"
        if st.impetuous_blocks(m):
            return "Impetuous: only models with an Impetuous marker activate now (p.44)"
        pending = self.commanded()
        if pending and m.id not in pending:
            return f"a Command is being carried out: only {', '.join(pending)} may act (p.50)"
        return None

    # ------------------------------------------------------------ Believer, Disturb Flow
    def feat_cost_modifier(self, mid: str, boost: bool = False) -> int:
        """The change of every Ki feat's and Ki boost's cost for model ``mid`` now:
        ``-X`` for each friendly Believer [K] (X/Y") model within Y" whose keyword ``mid``
        has (p.49), ``+X`` of the highest Disturb Flow (X/Y") enemy within Y" (p.51), and the
        changes of ``feat_cost`` feat ops (round 6, F2: Faith, Burden on Society; ``boost``: the
        cost of a Ki boost). The cost floor (one token, p.46) is :func:`sim.rules.ki.feat_cost`'s."""
        st = self.state
        m = st.models.get(mid)
        if m is None or not m.alive:
            return 0
        mod = 0
        worst = 0
        prof = self.profile(mid)
        for o in st.alive():
            b = self._card_trait(o.id, "believer")
            if b is not None and o.player == m.player:
                x, y = trait_xy(b)
                kw = b.qualifier
                if b.value is None and b.qualifier is None:  # "Believer (BtB/ Friendly/1)"
                    found = re.search(r"/\s*([A-Za-z ]+?)\s*/\s*(\d+)", b.text or "")
                    kw, x = (found.group(1), int(found.group(2))) if found else (None, 1)
                if x > 0 and has_keyword(prof, kw) and (o.id == mid or self._within(o.id, mid, y)):
                    mod -= x
            d = self._card_trait(o.id, "disturb_flow")
            if d is not None and o.player != m.player:
                x, y = trait_xy(d)
                if self._within(o.id, mid, y):
                    worst = max(worst, x)
        return mod + worst + self.feat_cost_change(mid, boost)  # round 6 (F2, feat_areas)

    # ------------------------------------------------------------ Leech and Channel
    def _ki_move_legal(self, m: ModelState, action: Action) -> tuple[bool, str]:
        """Leech (p.54) or Channel (p.50) by ``m``: ``models`` names one friend per token."""
        trait = "Leech" if action.kind == "leech" else "Channel"
        t = self._card_trait(m.id, trait)
        if t is None:
            return False, f"{m.id} has no {trait} trait"
        why = self._may_act_now(m)
        if why:
            return False, why
        if self._used_this_turn(m.id, f"trait:{trait}"):
            return False, f"{trait} is used once a turn and {m.id} has used it this turn"
        x, y = trait_xy(t)
        if not action.models:
            return False, f"{trait}: name the friends (one id in models= per Ki token)"
        if len(action.models) > x:
            return False, f"{trait} ({x}/{y:g}\"): at most {x} Ki tokens, not {len(action.models)}"
        if "controlled" in m.conditions and trait == "Channel":
            return False, f"{m.id} is Controlled: its tokens cannot be spent or removed (p.43)"
        st = self.state
        for fid, n in Counter(action.models).items():
            f = st.models.get(fid)
            if f is None or not f.alive or f.id == m.id or f.player != m.player:
                return False, f"{trait}: {fid!r} is not another friendly model on the table"
            if not self._within(m.id, fid, y):
                return False, f"{trait}: {fid} is beyond {y:g}\""
            if self._trait(fid, "kami")[0]:
                return False, (f"{fid} is a Kami: Leech cannot remove its Ki (p.53)" if trait == "Leech"
                               else f"{fid} is a Kami: it cannot gain Ki from Channel (p.53)")
            if trait == "Leech":
                if "controlled" in f.conditions:
                    return False, f"{fid} is Controlled: its tokens cannot be removed (p.43)"
                if f.ki < n:
                    return False, f"Leech: {fid} has {f.ki} Ki, not {n}"
            elif f.ki + n > f.ki_limit:
                return False, f"Channel: {fid} would have {f.ki + n} Ki, above its Ki limit {f.ki_limit}"
        n = len(action.models)
        if trait == "Leech" and m.ki + n > m.ki_limit:
            return False, f"Leech: {m.id} would have {m.ki + n} Ki, above its Ki limit {m.ki_limit} (p.54)"
        if trait == "Channel" and m.ki < n:
            return False, f"Channel: {m.id} has {m.ki} Ki, not {n}"
        return True, ""

    def _ki_move(self, action: Action) -> None:
        assert action.model is not None
        self._free_step_checked(action)
        n = len(action.models)
        moves = {fid: (-k if action.kind == "leech" else k) for fid, k in Counter(action.models).items()}
        moves[action.model] = n if action.kind == "leech" else -n
        self._emit(Event("ki_transfer", {"model": action.model, "trait": "Leech" if action.kind == "leech"
                                          else "Channel", "moves": moves}))
        self._after_action()
        self._begin_activation(action.model)

    def _begin_activation(self, mid: str) -> None:
        """A free step taken during ``mid``'s activation: ``mid`` now declares its action
        before any other model activates (the ``activating`` mark, p.24)."""
        if ACTIVATING not in self.state.models[mid].conditions:
            self._emit(Event("condition", {"model": mid, "name": ACTIVATING, "on": True, "value": 0}))

    def _free_step_checked(self, action: Action) -> None:
        """Refuse (GameError, the action's mark taken back) a free step judged illegal."""
        ok, why = self.is_legal(action)
        if not ok:
            from sim.rules.game.state import GameError

            self._unmark()
            raise GameError(f"{action.kind} cannot be taken now: {why}")

    # ------------------------------------------------------------ Virtue (p.59, p.5)
    def _virtue_legal(self, m: ModelState, action: Action) -> tuple[bool, str]:
        t = self._card_trait(m.id, "virtue")
        if t is None:
            return False, f"{m.id} has no Virtue trait"
        why = self._may_act_now(m)
        if why:
            return False, why
        if self._used_this_turn(m.id, "trait:Virtue"):
            return False, f"Virtue is used once a turn and {m.id} has used it this turn"
        _, y = trait_xy(t)
        if t.value is not None and t.range is None:  # "Virtue (6")" read as X = the range
            y = float(t.value)
        f = self.state.models.get(action.target or "")
        if f is None or not f.alive or f.player != m.player or f.id == m.id:
            return False, "Virtue: the target must be another friendly model on the table"
        if not self._within(m.id, f.id, y):
            return False, f"Virtue: {f.id} is beyond {y:g}\""
        for bar in ("soulless", "insignificant"):
            if self._trait(f.id, bar)[0]:
                return False, f"Virtue: {f.id} is {bar.title()} (p.59)"
        mine, theirs = self.profile(m.id), self.profile(f.id)
        if mine is not None and theirs is not None and mine.faction and theirs.faction != mine.faction:
            return False, f"Virtue: {f.id} is not a {mine.faction} model (p.59)"
        if VIRTUE_TOKEN in f.conditions:
            return False, f"{f.id} already holds a Virtue token (one at a time, p.59)"
        return True, ""

    def _virtue(self, action: Action) -> None:
        self._free_step_checked(action)
        self._emit(Event("virtue", {"model": action.model, "target": action.target}))
        assert action.model is not None  # judged legal
        self._after_action()
        self._begin_activation(action.model)

    def _spend_virtue_legal(self, m: ModelState, action: Action) -> tuple[bool, str]:
        if VIRTUE_TOKEN not in m.conditions:
            return False, f"{m.id} holds no Virtue token"
        if m.player != self.to_move():
            return False, f"{m.id}'s player is not the one to decide now (a token is spent when an Instant " \
                          "Ki feat could be used, p.5)"
        return True, ""

    def _spend_virtue(self, action: Action) -> None:
        self._free_step_checked(action)
        self._emit(Event("virtue_spent", {"model": action.model}))  # no action: an activation goes on

    # ------------------------------------------------------------ Order (p.55)
    def _nominated(self, m: ModelState, action: Action, trait: str) -> tuple[bool, str]:
        """The ``models`` of a Command or an Order: distinct other friendly [K] models
        within Y", at most X (Command: not Exhausted, a Group card whole or not at all)."""
        t = self._card_trait(m.id, trait)
        if t is None:
            return False, f"{m.id} has no {trait} trait"
        x, y = trait_xy(t)
        ids = list(action.models)
        if not ids:
            return False, f"{trait}: nominate the models (models=)"
        if len(set(ids)) != len(ids):
            return False, f"{trait}: a model is nominated twice"
        if len(ids) > x:
            return False, f"{trait} ({x}/{y:g}\"): at most {x} models, not {len(ids)}"
        st = self.state
        for fid in ids:
            f = st.models.get(fid)
            if f is None or not f.alive or f.id == m.id or f.player != m.player:
                return False, f"{trait}: {fid!r} is not another friendly model on the table"
            if not has_keyword(self.profile(fid), t.qualifier):
                return False, f"{trait} [{t.qualifier}]: {fid} is not a {t.qualifier} model"
            if not self._within(m.id, fid, y):
                return False, f"{trait}: {fid} is beyond {y:g}\""
            if trait == "Command" and f.exhausted:
                return False, f"Command: {fid} is Exhausted"
        if trait == "Command":
            for fid in ids:
                if self._trait(fid, "group")[0]:
                    card = self.table.model(fid).profile
                    mates = [o.id for o in st.alive(m.player)
                             if o.id != m.id and self.table.model(o.id).profile == card]
                    missing = [o for o in mates if o not in ids]
                    if missing:
                        return False, (f"Command: {fid} has Group: every model of its card must be nominated "
                                       f"({', '.join(missing)} missing), or none (p.50)")
        return True, ""

    def _order_legal(self, m: ModelState, action: Action) -> tuple[bool, str]:
        return self._nominated(m, action, "Order")

    def _order(self, action: Action) -> None:
        for fid in action.models:
            self._emit(Event("counter_gain", {"model": fid, "n": 1, "source": f"{action.model}'s Order"}))

    # ------------------------------------------------------------ Command (p.50, p.24)
    def _command_legal(self, m: ModelState, action: Action) -> tuple[bool, str]:
        return self._nominated(m, action, "Command")

    def _command(self, action: Action) -> None:
        self._emit(Event("command", {"model": action.model, "models": list(action.models)}))

    def commanded(self, player: int | None = None) -> list[str]:
        """The models nominated by a Command that still have to declare their Simple
        action (p.50), of the active player (or ``player``)."""
        p = self.state.active if player is None else player
        return [m.id for m in self.state.alive(p) if COMMANDED in m.conditions and not m.exhausted]

    def command_refusal(self, action: Action) -> str | None:
        """While a Command is carried out (p.50), why ``action`` may not be taken, or None:
        only the nominated models act, each with a Simple standard action (p.24-25); no
        pass, no other model's activation or free step. Allocations, interceptions and
        Instant feats go on as usual."""
        if action.kind in ("allocate", "intercept", "feat", "spend_virtue", "arrive"):
            return None
        begun = [m.id for m in self.state.alive(self.state.active) if ACTIVATING in m.conditions and not m.exhausted]
        if begun and action.model != begun[0]:
            return (f"{begun[0]} has begun its activation (a Leech, Channel or Virtue step): it declares its "
                    "action now (p.24)")
        pending = self.commanded()
        if not pending:
            return None
        if action.model not in pending:
            return f"a Command is being carried out: {', '.join(pending)} must act first (p.50)"
        if action.kind in ("leech", "channel", "virtue"):
            return None
        allowed = action.kind in COMMAND_ACTIONS or (action.kind == "charge" and action.counters == 1)
        if not allowed or action.counters != 1:
            return f"a commanded model declares a Simple standard action (p.50), not {action.kind}"
        return None

    def _command_done(self, mid: str | None) -> None:
        """After an action: the commanded model that acted loses its mark, and so does a
        nominated model that can no longer act (killed or Exhausted)."""
        for m in self.state.models.values():
            if COMMANDED in m.conditions and (m.id == mid or not m.alive or m.exhausted):
                self._emit(Event("condition", {"model": m.id, "name": COMMANDED, "on": False}))

    # ------------------------------------------------------------ offers
    def support_actions(self, mid: str) -> list[Action]:
        """The trait steps and actions model ``mid`` may take now (a finite sample for
        :meth:`legal_actions`): Leech and Channel with the tokens spread over the friends
        in range (as many as allowed, richest first for Leech, poorest first for Channel),
        Virtue to each friend that may take it, a Virtue token spent, Order and Command
        nominating the first X candidates."""
        st = self.state
        m = st.models[mid]
        out: list[Action] = []
        friends = [f for f in st.alive(m.player) if f.id != mid]
        for kind in ("leech", "channel"):
            t = self._card_trait(mid, kind)
            if t is None:
                continue
            x, y = trait_xy(t)
            near = [f for f in friends if self._within(mid, f.id, y)]
            ids: list[str] = []
            if kind == "leech":
                room = min(x, m.ki_limit - m.ki)
                for f in sorted(near, key=lambda f: -f.ki):
                    ids += [f.id] * max(0, min(f.ki, room - len(ids)))
            else:
                have = min(x, m.ki)
                for f in sorted(near, key=lambda f: f.ki):
                    ids += [f.id] * max(0, min(f.ki_limit - f.ki, have - len(ids)))
            if ids:
                out.append(Action(kind, mid, models=tuple(ids)))
        if self._card_trait(mid, "virtue") is not None:
            out += [Action("virtue", mid, target=f.id) for f in friends]
        if VIRTUE_TOKEN in m.conditions:
            out.append(Action("spend_virtue", mid))
        for kind, trait in (("order", "Order"), ("command", "Command")):
            t = self._card_trait(mid, trait)
            if t is None:
                continue
            x, y = trait_xy(t)
            cands = [f.id for f in friends if has_keyword(self.profile(f.id), t.qualifier)
                     and self._within(mid, f.id, y) and (kind == "order" or not f.exhausted)]
            if cands:
                out.append(Action(kind, mid, models=tuple(cands[:x])))
        return [a for a in out if self.is_legal(a)[0]]

    def _support_offers(self, out: list[Action]) -> list[Action]:
        """:meth:`legal_actions` with the trait steps added; while a Command is carried out,
        only the nominated models' Simple standard actions (p.50)."""
        pending = self.commanded() or [m.id for m in self.state.alive(self.state.active) if ACTIVATING in m.conditions]
        if pending:
            keep = [a for a in out if a.model in pending and self.command_refusal(a) is None]
            keep = [a for mid in pending for a in self.support_actions(mid)] + keep
            keep += [a for a in (Action("spend_virtue", m.id) for m in self.state.alive(self.state.active)
                                 if VIRTUE_TOKEN in m.conditions and m.id not in pending) if self.is_legal(a)[0]]
            if not keep:  # it must declare, but nothing is legal: a refused Wait (p.24)
                keep = [Action("wait", pending[0])]
            return keep
        extra: list[Action] = []
        for m in self.state.alive(self.state.active):
            if not m.exhausted or VIRTUE_TOKEN in m.conditions:
                extra += self.support_actions(m.id)
        return extra + out

    # the kinds of this step, registered where they are defined
    register(
        ActionKind("leech", _ki_move_legal, _ki_move),
        ActionKind("channel", _ki_move_legal, _ki_move),
        ActionKind("virtue", _virtue_legal, _virtue),
        ActionKind("spend_virtue", _spend_virtue_legal, _spend_virtue),
        ActionKind("order", _order_legal, _order),
        ActionKind("command", _command_legal, _command),
    )


# ------------------------------------------------------------------ events
def _ki_transfer(state: GameState, d: dict) -> None:
    for mid, delta in d["moves"].items():
        m = state.models[mid]
        m.ki = max(0, min(m.ki_limit, m.ki + delta))
    state.feat_usage.setdefault(d["model"], {"turn": [], "game": []})["turn"].append(f"trait:{d['trait']}")


def _describe_ki_transfer(d: dict) -> str:
    me = d["model"]
    others = ", ".join(f"{mid} {-n:+d}" if d["trait"] == "Leech" else f"{mid} +{n}"
                       for mid, n in d["moves"].items() if mid != me)
    n = abs(d["moves"][me])
    if d["trait"] == "Leech":
        return f"  {me} uses Leech: takes {n} Ki ({others}) (p.54)"
    return f"  {me} uses Channel: gives {n} of its Ki ({others}) (p.50)"


def _counter_gain(state: GameState, d: dict) -> None:
    state.models[d["model"]].counters += d["n"]


def _virtue_given(state: GameState, d: dict) -> None:
    state.models[d["target"]].conditions[VIRTUE_TOKEN] = 1
    state.feat_usage.setdefault(d["model"], {"turn": [], "game": []})["turn"].append("trait:Virtue")


def _virtue_spent(state: GameState, d: dict) -> None:
    state.models[d["model"]].conditions.pop(VIRTUE_TOKEN, None)


def _command_open(state: GameState, d: dict) -> None:
    for mid in d["models"]:
        state.models[mid].conditions[COMMANDED] = d["model"]


EVENT_KINDS.update({k.key: k for k in (
    EventKind("ki_transfer", ("model", "trait", "moves"), _ki_transfer, _describe_ki_transfer,
              "Leech takes Ki tokens from friends, Channel gives its own to friends; once a turn (p.54, p.50)"),
    EventKind("counter_gain", ("model", "n", "source"), _counter_gain,
              lambda d: f"  {d['model']} gains {d['n']} activation counter(s) ({d['source']}, p.55)",
              "activation counters gained (Order, p.55)"),
    EventKind("virtue", ("model", "target"), _virtue_given,
              lambda d: f"  {d['model']} gives {d['target']} a Virtue token (p.59)",
              "a Virtue token given, once a turn (Virtue, p.59; tokens p.5)"),
    EventKind("virtue_spent", ("model",), _virtue_spent,
              lambda d: (f"  {d['model']} spends its Virtue token: manual step -- choose one allowed Virtue "
                         "ability on the card of a model of its warband and apply it (p.5)"),
              "a Virtue token spent; its benefit is a card's ability, applied by the players (p.5)"),
    EventKind("command", ("model", "models"), _command_open,
              lambda d: (f"  {d['model']} commands {', '.join(d['models'])}: each declares a Simple standard "
                         "action, in the order its player chooses (p.50)"),
              "a Command: the nominated models are to declare a Simple standard action each (p.50, p.24)"),
)})
