"""Ki tokens, Ki boosts and the Ki feat framework (rulebook p.10, p.20-21, p.25, p.46-47).

* **Ki tokens** (:class:`KiPool`): a model generates tokens equal to its Ki statistic in
  the Ki generation step of the Starting phase (not with Spirit Block), gains its Ki
  statistic with the Focus action, never holds more than its Ki limit (the excess is
  discarded, p.10) and cannot spend what it does not have.
* **Ki boosts** (:func:`boost_stat`): the boost value printed next to a statistic is the
  cost of +1; a statistic may be boosted several times up to twice its base
  (:func:`sim.rules.dice.modified_stat`); boosts are Instant Personal Ki feats used in the
  Main phase and last for the current test or move (p.10, p.47).
* **Ki feats** (:class:`Feat`): cost (fixed or variable "X", never below 1 through
  modifiers), timing (Instant, Active, Simple, Complex), area (Personal, Target (X),
  Aura (X), Pulse (X)), Once per turn / Once per game, No BtB, No movement, an opposed
  Ki test (OKi) or a challenge test. :func:`can_use` says whether one may be used now and
  why not; :func:`targets_in_area` which models it reaches; :func:`feat_test` rolls its
  test.

Readings where the text is unclear are in ``docs/conditions-and-ki.md``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from sim.rules import conditions as cond
from sim.rules.dice import (
    ChallengeResult,
    Dice,
    OpposedResult,
    RollKind,
    RollPurpose,
    challenge_test,
    modified_stat,
    opposed_test,
)

__all__ = [
    "KiError", "KiPool", "ki_generated", "focus_gain",
    "boost_cost", "boost_room", "max_boost_steps", "Boost", "boost_stat", "boost_feat",
    "TIMINGS", "AREAS", "Feat", "parse_area", "feat_cost", "can_use", "targets_in_area",
    "in_target_range", "area_lasts", "AreaEffect", "FeatUsage", "FeatTest", "feat_test",
    "GENERIC_FEATS", "feat_from_card", "feat_from_entry", "model_feats",
]

#: Tolerance for "within X"" (same as :func:`sim.geometry.measure.within`).
_EPS = 1e-6
#: How far apart two bases may be and still count as in base contact for a BtB feat
#: (``sim.geometry.attributes.CONTACT``, 0.01").
BTB_TOLERANCE = 0.01


class KiError(ValueError):
    """Spending Ki the model does not have, or a boost/feat the rules do not allow."""


# ----------------------------------------------------------------------- tokens
@dataclass(frozen=True)
class KiPool:
    """A model's Ki tokens with its Ki statistic and Ki limit ("X/Y", p.10).

    Immutable: every operation returns a new pool. ``tokens`` is always between 0 and
    ``limit``.
    """

    tokens: int = 0
    stat: int = 1
    limit: int = 6

    def __post_init__(self) -> None:
        if self.stat < 0 or self.limit < 0:
            raise KiError(f"Ki statistic and limit are >= 0, got {self.stat}/{self.limit}")
        if not 0 <= self.tokens <= self.limit:
            raise KiError(f"Ki tokens must be between 0 and the limit {self.limit}, got {self.tokens}")

    @classmethod
    def of(cls, model: Any) -> "KiPool":
        """The pool of a :class:`~sim.rules.game.ModelState` (``ki``, ``ki_stat``, ``ki_limit``)."""
        return cls(min(int(model.ki), int(model.ki_limit)), int(model.ki_stat), int(model.ki_limit))

    def room(self) -> int:
        """Tokens the model can still take before its limit."""
        return self.limit - self.tokens

    def gain(self, n: int) -> "KiPool":
        """Gain ``n`` tokens; any excess over the limit is discarded (p.10)."""
        if n < 0:
            raise KiError(f"cannot gain a negative number of Ki tokens ({n}); spend them")
        return replace(self, tokens=min(self.limit, self.tokens + n))

    def generate(self, conditions: Mapping[str, Any] | None = None) -> "KiPool":
        """The Ki generation step (p.20): gain tokens equal to the Ki statistic, none
        with Spirit Block (p.45)."""
        return self.gain(self.stat if cond.generates_ki(conditions) else 0)

    def focus(self) -> "KiPool":
        """The Focus action (p.25): gain tokens equal to the Ki statistic (Spirit Block
        only stops the Ki generation step)."""
        return self.gain(self.stat)

    def can_spend(self, n: int) -> bool:
        """Whether ``n`` tokens are available."""
        return 0 <= n <= self.tokens

    def spend(self, n: int) -> "KiPool":
        """Spend ``n`` tokens. Raises :class:`KiError` when the model has fewer (it may not
        declare what it cannot pay, p.46) or ``n`` is negative."""
        if n < 0:
            raise KiError(f"cannot spend a negative number of Ki tokens ({n})")
        if n > self.tokens:
            raise KiError(f"needs {n} Ki, has {self.tokens}")
        return replace(self, tokens=self.tokens - n)


def ki_generated(model: Any) -> int:
    """Tokens ``model`` (a ModelState) actually gains in the Ki generation step: its Ki
    statistic, 0 with Spirit Block, never beyond its limit."""
    pool = KiPool.of(model)
    return pool.generate(cond.from_model(model)).tokens - pool.tokens


def focus_gain(model: Any) -> int:
    """Tokens ``model`` actually gains with the Focus action (Ki statistic, capped)."""
    pool = KiPool.of(model)
    return pool.focus().tokens - pool.tokens


# ----------------------------------------------------------------------- boosts
def _floor_cost(base: int, modifier: int, explicit_zero: bool) -> int:
    """A cost after modifiers: never below one token through modifiers (p.46) unless an
    effect says explicitly that it reduces the cost to zero; a printed 0 stays 0."""
    floor = 0 if explicit_zero else min(1, base)
    return max(floor, base + modifier)


def boost_cost(boost: int, steps: int = 1, *, modifier: int = 0, explicit_zero: bool = False) -> int:
    """Ki paid for ``steps`` boosts of +1 with boost value ``boost``. Each boost is a
    separate Ki feat (p.47), so a cost modifier (Believer, Disturb Flow) applies to every
    step and each step costs at least 1."""
    if steps < 0:
        raise KiError("a negative number of boosts")
    return steps * _floor_cost(boost, modifier, explicit_zero)


def boost_room(base: int | None, modifiers: int = 0) -> int:
    """How many +1 boosts still raise the statistic: up to twice the base (a base of 0:
    up to 1; a "-" statistic, ``None``, cannot be modified), p.10 and
    :func:`~sim.rules.dice.modified_stat`."""
    if base is None:
        return 0
    cap = 2 * base if base > 0 else 1
    return max(0, cap - (base + modifiers))


def max_boost_steps(base: int | None, modifiers: int = 0, *, boost: int | None, ki_available: int,
                    cost_modifier: int = 0) -> int:
    """The most boosts the model can buy now: limited by :func:`boost_room` and its Ki."""
    if boost is None:
        return 0
    per = boost_cost(boost, 1, modifier=cost_modifier)
    by_ki = ki_available // per if per > 0 else boost_room(base, modifiers)
    return max(0, min(boost_room(base, modifiers), by_ki))


@dataclass(frozen=True)
class Boost:
    """A bought boost: the statistic after it (with the other ``modifiers``), the number
    of +1 steps and the Ki cost. It lasts for the current test or move (p.10)."""

    stat: int
    steps: int
    cost: int


def boost_stat(base: int | None, steps: int, *, boost: int | None, ki_available: int,
               modifiers: int = 0, phase: str = "main", surprised: bool = False,
               conditions: Mapping[str, Any] | None = None, cost_modifier: int = 0) -> Boost:
    """Boost a statistic by ``steps`` (p.10, p.47).

    Raises :class:`KiError` when: the statistic has no boost value (``boost`` None) or is
    "-" (``base`` None); it is not the Main phase; the model is Surprised (p.47) or cannot
    spend tokens (Controlled, p.43); the boosts would take it above twice its base; the
    model lacks the Ki.
    """
    if steps < 0:
        raise KiError("a negative number of boosts")
    if steps == 0:
        return Boost(modified_stat(base, modifiers), 0, 0)
    if boost is None or base is None:
        raise KiError("this statistic has no Ki boost")
    if phase != "main":
        raise KiError("Ki boosts are used in the Main phase (p.47)")
    if surprised:
        raise KiError("a Surprised model cannot use Ki boosts (p.47)")
    if not cond.can_spend_tokens(conditions):
        raise KiError("a Controlled model cannot spend Ki tokens (p.43)")
    room = boost_room(base, modifiers)
    if steps > room:
        raise KiError(f"boosts raise a statistic to at most twice its base ({2 * base if base else 1}): "
                      f"{room} more allowed, {steps} asked")
    cost = boost_cost(boost, steps, modifier=cost_modifier)
    if cost > ki_available:
        raise KiError(f"{steps} boost(s) cost {cost} Ki, the model has {ki_available}")
    return Boost(modified_stat(base, modifiers + steps), steps, cost)


# ----------------------------------------------------------------------- feats
TIMINGS = ("instant", "active", "simple", "complex")
AREAS = ("personal", "target", "aura", "pulse")


@dataclass(frozen=True)
class Feat:
    """A Ki feat as printed on a profile card (p.46-47).

    Attributes:
        name: as printed.
        cost: Ki tokens (int) or ``"X"`` (variable: the player chooses X, at least
            ``min_x``, at most ``max_x`` if given).
        timing: ``instant`` (I), ``active`` (A), ``simple`` (S), ``complex`` (C).
        area: ``personal`` (Pe), ``target`` (Ta), ``aura`` (Au), ``pulse`` (Pu).
        range: X inches of Target/Aura/Pulse (edge to edge).
        once_per_turn, once_per_game, no_btb, no_movement: the icons;
            once_per_activation: the OpA limitation of the catalogues.
        opposed: OKi, an opposed Ki test with the target (p.47).
        challenge: TN of a Ki challenge test the user must pass, if any (card text).
        needs_los: the card asks for LoS to the target (the Target definition does not).
        boost: a Ki boost (Instant, Personal, Main phase only, p.47).
        special: Sp icon.
        effect: the card's effect, for the log.
        x_plus: a variable cost ``X+N`` costs the chosen X plus ``x_plus`` (N).
    """

    name: str
    cost: int | str = 1
    timing: str = "simple"
    area: str = "personal"
    range: float | None = None
    once_per_turn: bool = False
    once_per_game: bool = False
    no_btb: bool = False
    no_movement: bool = False
    opposed: bool = False
    challenge: int | None = None
    needs_los: bool = False
    boost: bool = False
    special: bool = False
    min_x: int = 1
    max_x: int | None = None
    effect: str = ""
    x_plus: int = 0
    once_per_activation: bool = False

    def __post_init__(self) -> None:
        if self.timing not in TIMINGS:
            raise ValueError(f"{self.name}: timing is one of {TIMINGS}, got {self.timing!r}")
        if self.area not in AREAS:
            raise ValueError(f"{self.name}: area is one of {AREAS}, got {self.area!r}")
        if self.area != "personal" and (self.range is None or self.range < 0):
            raise ValueError(f"{self.name}: a {self.area} feat needs a range X >= 0")
        if isinstance(self.cost, str) and self.cost.upper() != "X":
            raise ValueError(f"{self.name}: cost is a number or 'X', got {self.cost!r}")
        if isinstance(self.cost, int) and self.cost < 0:
            raise ValueError(f"{self.name}: negative cost")
        if self.boost and (self.timing != "instant" or self.area != "personal"):
            raise ValueError(f"{self.name}: Ki boosts are Instant and Personal (p.47)")

    @property
    def variable(self) -> bool:
        """True for a variable (X) cost: the player chooses how much Ki to spend (p.46-47)."""
        return isinstance(self.cost, str)

    @property
    def is_action(self) -> bool:
        """Simple and Complex feats are actions; Instant and Active ones are not (p.46)."""
        return self.timing in ("simple", "complex")

    @property
    def action_kind(self) -> str | None:
        """The action declared to use it (``ki_feat`` / ``complex_ki_feat``), or None."""
        return {"simple": "ki_feat", "complex": "complex_ki_feat"}.get(self.timing)

    @property
    def reach(self) -> float:
        """The range X in inches of a Target, Aura or Pulse feat (p.46; every such feat has
        one); 0 for a Personal feat, which has none."""
        return self.range if self.range is not None else 0.0


_AREA_RE = re.compile(r"^\s*(personal|target|aura|pulse)\s*(?:\(?\s*(\d+(?:\.\d+)?)\s*(?:\"|''|in)?\s*\)?)?\s*$", re.I)


def parse_area(text: str) -> tuple[str, float | None]:
    """``'Target (6")'`` -> ``("target", 6.0)``; ``'Personal'`` -> ``("personal", None)``."""
    m = _AREA_RE.match(text)
    if not m:
        raise ValueError(f"not a Ki feat area: {text!r}")
    area = m.group(1).lower()
    rng = float(m.group(2)) if m.group(2) else None
    if area != "personal" and rng is None:
        raise ValueError(f"{text!r}: {area} needs a range in inches")
    return area, rng


def feat_cost(feat: Feat, *, x: int | None = None, modifier: int = 0, explicit_zero: bool = False) -> int:
    """Ki to pay for ``feat``: the fixed cost or the chosen ``x`` for a variable one,
    plus ``modifier`` (Believer -X, Disturb Flow +X), never below one token through
    modifiers unless an effect says explicitly it makes the feat free (p.46)."""
    if feat.variable:
        if x is None:
            raise KiError(f"{feat.name}: choose X for its variable cost")
        if x < feat.min_x or (feat.max_x is not None and x > feat.max_x):
            top = feat.max_x if feat.max_x is not None else "any"
            raise KiError(f"{feat.name}: X must be between {feat.min_x} and {top}")
        base = x + feat.x_plus
    else:
        base = int(feat.cost)
    return _floor_cost(base, modifier, explicit_zero)


def _x_plus(cost_text: Any) -> int:
    """N of a printed variable cost ``X+N`` (0 for ``X``, ``Rank N`` and numbers)."""
    m = re.fullmatch(r"\s*X\s*\+\s*(\d+)\s*", str(cost_text or ""), flags=re.I)
    return int(m.group(1)) if m else 0


def in_target_range(feat: Feat, distance: float) -> bool:
    """A Target (X) feat's target is within X" (edge to edge, inclusive); a BtB feat
    (X = 0) reaches a model in base contact (within :data:`sim.geometry.attributes.CONTACT`,
    as the movement rules judge contact)."""
    if feat.range is None:
        return False
    return distance <= feat.range + (BTB_TOLERANCE if feat.range == 0 else _EPS)


def can_use(feat: Feat, user_state: Any, *, in_btb: bool, moved_this_activation: bool,
            used_this_turn: bool, used_this_game: bool, ki_available: int | None, phase: str,
            is_active_model: bool, target_distance: float | None = None,
            controller_is_active: bool | None = None, surprised: bool = False,
            x: int | None = None, cost_modifier: int = 0, explicit_zero: bool = False,
            strict_range: bool = True, target_conditions: Mapping[str, Any] | None = None,
            user_ki_stat: int | None = None, elsewhere: bool = False,
            used_this_activation: bool = False) -> tuple[bool, list[str]]:
    """May the model use ``feat`` now? Returns ``(ok, reasons)`` (every reason, not only
    the first).

    ``user_state``: a ModelState (conditions, markers, counters, ki, ki_stat) or None.
    ``ki_available``: tokens (None: ``user_state.ki``). ``phase``: ``start``/``main``/
    ``end``. ``is_active_model``: it is this model's activation. ``controller_is_active``:
    its player is the active player (None: same as ``is_active_model``).
    ``in_btb``: in BtB with an enemy model. ``moved_this_activation``: it has moved in
    this activation before the feat (for a Simple/Complex feat: the walk that the feat
    action allows).

    Rules (p.46-47): Surprised models cannot use Ki feats; Elsewhere (p.4) and Controlled
    (p.43) models cannot spend tokens; Once per turn / Once per game; Instant: any time;
    Active: only while its player is the active player in the Main phase; Simple/Complex:
    only as its own action (Main phase, its activation, 1 / 2 activation counters, its
    conditions allowing a Ki feat action, :func:`sim.rules.conditions.forbidden_reason`);
    Ki boosts only in the Main phase; No BtB; No movement (Simple/Complex feats only: the
    feat action then has no walk); the cost (:func:`feat_cost`) within the Ki available;
    Target (X): a ``target_distance`` beyond X makes the feat fail and lose its Ki, reported
    when ``strict_range`` (set it False to let the game charge the Ki and fail the feat);
    a Disguised target is forbidden to a user with Ki <= 1 (``target_conditions``,
    ``user_ki_stat``).
    """
    reasons: list[str] = []
    conds = cond.from_model(user_state) if user_state is not None else {}
    if ki_available is None:
        ki_available = int(getattr(user_state, "ki", 0)) if user_state is not None else 0
    if controller_is_active is None:
        controller_is_active = is_active_model
    if surprised:
        reasons.append("Surprised: no Ki feats or boosts (p.47)")
    # cost
    try:
        cost = feat_cost(feat, x=x, modifier=cost_modifier, explicit_zero=explicit_zero)
    except KiError as exc:
        reasons.append(str(exc))
        cost = None
    if cost:
        if elsewhere:
            reasons.append("Elsewhere: the model cannot spend tokens (p.4)")
        if not cond.can_spend_tokens(conds):
            reasons.append("Controlled: the controlling player cannot spend its tokens (p.43)")
        if cost > ki_available:
            reasons.append(f"costs {cost} Ki, the model has {ki_available} (p.46)")
    # once per
    if feat.once_per_turn and used_this_turn:
        reasons.append("Once per turn: already used this turn (p.46)")
    if feat.once_per_game and used_this_game:
        reasons.append("Once per game: already used (p.46)")
    if feat.once_per_activation and used_this_activation:
        reasons.append("Once per activation: already used in this activation (card limitation)")
    # timing
    if feat.boost and phase != "main":
        reasons.append("Ki boosts are used in the Main phase (p.47)")
    if feat.timing == "active" and not (phase == "main" and controller_is_active):
        reasons.append("Active: only while its player is the active player (p.46)")
    if feat.is_action:
        if phase != "main" or not is_active_model:
            reasons.append(f"{feat.timing.title()}: only as an action in the model's own activation (p.47)")
        counters = getattr(user_state, "counters", None)
        kind = feat.action_kind
        assert kind is not None  # a Simple or Complex feat is declared as an action
        why = cond.forbidden_reason(kind, conds, counters=counters)
        if why:
            reasons.append(why)
        elif counters is not None and counters < 1:
            reasons.append("Exhausted: no activation counters (p.24)")
        if feat.no_movement and moved_this_activation:
            reasons.append("No movement: the feat action allows no move before or after it (p.46)")
    # area
    if feat.no_btb and in_btb:
        reasons.append("No BtB: cannot be used in BtB with an enemy (p.46)")
    out_of_range = target_distance is not None and not in_target_range(feat, target_distance)
    if feat.area == "target" and strict_range and out_of_range:
        reasons.append(f"Target ({feat.range:g}\"): the target is {target_distance:.2f}\" away; the feat "
                       "would fail and its Ki be lost (p.47)")
    if target_conditions is not None and feat.area == "target":
        ki_stat = user_ki_stat if user_ki_stat is not None else getattr(user_state, "ki_stat", 0)
        req = cond.disguise_requirement(target_conditions, ki_stat)
        if req and req[0] == "forbidden":
            reasons.append("the target is Disguised and the user's Ki is 1 or less (p.44)")
    return (not reasons), reasons


# ----------------------------------------------------------------------- areas
def targets_in_area(scene: Any, user_id: str, feat: Feat, candidates: Iterable[str], *,
                    require_los: bool | None = None) -> list[str]:
    """The models ``feat`` used by ``user_id`` affects, among ``candidates``, in ``scene``
    (a :class:`sim.geometry.measure.Scene`; distances edge to edge, p.5).

    * Personal: the user only.
    * Target (X): the candidates within X" (the caller picks one); LoS is checked only if
      the feat (``needs_los``) or ``require_los`` asks for it -- the definition (p.47)
      asks only for the range.
    * Aura (X) / Pulse (X): the user (always in its own area) and every candidate within
      X" of its base, through models and terrain (no LoS).

    The user appears first; order of ``candidates`` is kept; no duplicates.
    """
    if feat.area == "personal":
        return [user_id]
    x = float(feat.range or 0.0)
    los = feat.needs_los if require_los is None else require_los
    out: list[str] = []
    if feat.area in ("aura", "pulse"):
        out.append(user_id)
    for cid in candidates:
        if cid in out:
            continue
        if cid == user_id:
            if feat.area == "target":
                out.append(cid)
            continue
        if scene.distance(user_id, cid) > x + _EPS:
            continue
        if feat.area == "target" and los and not scene.los(user_id, cid):
            continue
        out.append(cid)
    return out


def area_lasts(feat: Feat) -> str | None:
    """How long an area lasts (p.47): Aura until the End phase (or until its source is
    removed from play), Pulse until the end of the current activation; None for Personal
    and Target (the effect's own text says)."""
    return {"aura": "end_phase", "pulse": "activation"}.get(feat.area)


@dataclass(frozen=True)
class AreaEffect:
    """An Aura or Pulse in play: it affects the models in its area *whenever asked* (the
    area moves with its source) until it expires."""

    feat: Feat
    source: str

    def affected(self, scene: Any, candidates: Iterable[str]) -> list[str]:
        """The ids among ``candidates`` inside this Aura/Pulse area now (:func:`targets_in_area`)."""
        return targets_in_area(scene, self.source, self.feat, candidates)

    def expires_on(self, event: str) -> bool:
        """``event``: ``"end_of_activation"``, ``"end_phase"`` or ``"source_removed"``."""
        if event in ("end_phase", "source_removed"):
            return True
        if event == "end_of_activation":
            return self.feat.area == "pulse"
        raise ValueError(f"unknown event {event!r}")


# ----------------------------------------------------------------------- usage
@dataclass(frozen=True)
class FeatUsage:
    """Once per turn / Once per game boxes of one model's card (p.46): the names ticked
    this turn and this game. :meth:`end_phase` wipes the turn's boxes."""

    turn: frozenset[str] = frozenset()
    game: frozenset[str] = frozenset()

    def used_this_turn(self, feat: Feat) -> bool:
        """Whether ``feat`` was used this turn."""
        return feat.name in self.turn

    def used_this_game(self, feat: Feat) -> bool:
        """Whether ``feat`` was used this game."""
        return feat.name in self.game

    def record(self, feat: Feat) -> "FeatUsage":
        """Mark ``feat`` as used (this turn and this game)."""
        return FeatUsage(self.turn | ({feat.name} if feat.once_per_turn else set()),
                         self.game | ({feat.name} if feat.once_per_game else set()))

    def end_phase(self) -> "FeatUsage":
        """The usage with the once-per-turn boxes cleared (End phase)."""
        return FeatUsage(frozenset(), self.game)


# ----------------------------------------------------------------------- tests
@dataclass(frozen=True)
class FeatTest:
    """Outcome of a feat's test: ``success``; ``result``: the challenge or opposed result
    (None when the feat has no test)."""

    success: bool
    result: ChallengeResult | OpposedResult | None = None


def feat_test(feat: Feat, dice: Dice, *, user_ki: int, target_ki: int | None = None,
              modifier: int = 0, target_modifier: int = 0, user_is_active: bool = True,
              user: str | None = None, target: str | None = None) -> FeatTest:
    """Roll the feat's test with the Ki statistics (not tokens, p.27): OKi -- an opposed
    Ki test, the feat takes effect if the user wins (ties: the active side, p.27);
    ``challenge`` -- a Ki challenge test against its TN. No test: success.

    ``user``, ``target``: the model ids, for what the dice roll for
    (:attr:`~sim.rules.dice.RollKind.KI_FEAT` for the user,
    :attr:`~sim.rules.dice.RollKind.KI_RESIST` for the target of an opposed test)."""
    purpose = RollPurpose(RollKind.KI_FEAT, user, target if feat.opposed else None, feat.name)
    if feat.opposed:
        if target_ki is None:
            raise KiError(f"{feat.name}: an opposed Ki feat needs the target's Ki")
        res = opposed_test(user_ki, target_ki, dice, modifier, target_modifier,
                           active="a" if user_is_active else "b", purpose=purpose,
                           purpose_b=RollPurpose(RollKind.KI_RESIST, target, user, feat.name))
        return FeatTest(res.winner == "a", res)
    if feat.challenge is not None:
        ch = challenge_test(user_ki, feat.challenge, modifier, dice, purpose=purpose)
        return FeatTest(ch.success, ch)
    return FeatTest(True, None)


# ----------------------------------------------------------------------- data
def boost_feat(stat: str, boost: int) -> Feat:
    """The Ki boost of a statistic as a feat: Instant, Personal, cost = boost value."""
    return Feat(f"{stat.title()} boost", cost=boost, timing="instant", area="personal", boost=True,
                effect=f"+1 {stat} for the current test or move")


#: Generic feats that exercise the framework (not taken from any card).
GENERIC_FEATS: dict[str, Feat] = {f.name: f for f in (
    boost_feat("melee", 1),
    Feat("Inner Calm", cost=1, timing="instant", area="personal", once_per_turn=True,
         effect="remove one Stunned marker from this model"),
    Feat("Spirit Bolt", cost=2, timing="simple", area="target", range=6, challenge=4, no_btb=True,
         effect="on a Ki (4) test, the target takes 1 wound"),
    Feat("Mind Clash", cost=1, timing="simple", area="target", range=4, opposed=True,
         effect="if the user wins an opposed Ki test, the target gains a Stunned marker"),
    Feat("Warding Presence", cost=2, timing="active", area="aura", range=3, once_per_turn=True,
         effect="friendly models in the Aura get +1 Melee until the End phase"),
    Feat("Shockwave", cost="X", timing="complex", area="pulse", range=2, no_movement=True,
         once_per_game=True, max_x=3,
         effect="every other model in the Pulse gains X Stunned markers"),
    Feat("Puppet Strings", cost=2, timing="complex", area="target", range=4, opposed=True, no_btb=True,
         once_per_game=True,
         effect="if the user wins an opposed Ki test, the target gains a Controlled marker: it fights for "
                "the user's side until it loses the marker (one per activation counter removed)"),
)}


# ----------------------------------------------------------------------- cards
_UNLIMITED = 1000.0  # "∞": any distance on the table


def _limitations(text: str | None) -> set[str]:
    """The card's limitation icons as keys: ``no_btb``, ``no_movement``, ``once_per_turn``,
    ``once_per_game``, ``once_per_activation`` (the data spell them ``noBtB``, ``No BtB``,
    ``noWalk``, ``OpT``, ``One Per Turn``, ``OpG``, ``OpA`` ...)."""
    out = set()
    for part in (text or "").split(","):
        k = re.sub(r"[^a-z]", "", part.lower())
        if k in ("nobtb",):
            out.add("no_btb")
        elif k in ("nowalk", "nomovement", "nomove"):
            out.add("no_movement")
        elif k in ("opt", "onepertur", "oneperturn", "onceperturn", "onceaturn"):
            out.add("once_per_turn")
        elif k in ("opg", "oncepergame", "onepergame"):
            out.add("once_per_game")
        elif k in ("opa", "onceperactivation"):
            out.add("once_per_activation")
    return out


def feat_from_card(card: Any) -> Feat | None:
    """A catalogue Ki feat (:class:`models.bsdata.KiFeat`) as a :class:`Feat`, or None
    when the card's timing or area is "special" or missing (its own text rules it).

    Variable costs (``X``, ``X+1``, ``Rank 1``) become ``"X"``; a ``BtB`` range is 0" (edge
    to edge, so only models in contact); ``∞`` is any distance; ``X"`` ranges are not
    modelled (None). Limitations: ``noBtB`` -> No BtB, ``noWalk`` -> No movement, ``OpT`` ->
    Once per turn, ``OpG`` -> Once per game, ``OpA`` -> once per activation. ``X+N`` costs
    X plus N. The effect is the card's text.
    """
    timing, area = getattr(card, "timing", None), getattr(card, "area", None)
    if timing not in TIMINGS or area not in AREAS:
        return None
    rng = card.range
    if area != "personal" and rng is None:
        text = (card.range_text or "").strip().lower()
        if text == "btb":
            rng = 0.0
        elif text.startswith("\u221e"):
            rng = _UNLIMITED
        else:
            return None
    lim = _limitations(card.limitation)
    cost: int | str = card.cost if card.cost is not None else "X"
    try:
        return Feat(card.name, cost=cost, timing=timing, area=area, range=rng if area != "personal" else None,
                    once_per_turn="once_per_turn" in lim, once_per_game="once_per_game" in lim,
                    no_btb="no_btb" in lim, no_movement="no_movement" in lim, opposed=bool(card.opposed),
                    effect=card.description or "", x_plus=_x_plus(getattr(card, "cost_text", "")),
                    once_per_activation="once_per_activation" in lim)
    except ValueError:
        return None


def feat_from_entry(name: str, *, card_text: str | None = None) -> Feat | None:
    """The :class:`Feat` of feat ``name`` from the feat effects data file
    (:func:`sim.rules.feat_effects.feat_effect`: cost, timing, area, range, opposed test,
    limitations), or None when the file has no entry. ``card_text``: the card's text (the
    imported catalogue's), else the entry's summary, for the log.

    Raises:
        sim.rules.feat_effects.FeatDataError: the data file is wrong.
    """
    from sim.rules.feat_effects import feat_effect

    entry = feat_effect(name)
    if entry is None or entry.timing == "special":
        return None
    area = entry.area
    if area == "special":  # its own text rules it: usable when it affects the user only
        if entry.affects != "self" and not entry.table:  # or the whole table (round 3)
            return None
        area = "personal"
    rng = None
    if area != "personal":  # BtB: edge to edge 0"; no number: unlimited
        rng = 0.0 if entry.btb else (entry.range if entry.range is not None else _UNLIMITED)
    lim = set(entry.limits)
    cost: int | str = entry.cost if isinstance(entry.cost, int) else "X"
    try:
        return Feat(name, cost=cost, timing=entry.timing, area=area, range=rng,
                    once_per_turn="once_per_turn" in lim, once_per_game="once_per_game" in lim,
                    no_btb="no_btb" in lim, no_movement="no_move" in lim, opposed=bool(entry.opposed),
                    effect=card_text or entry.summary, x_plus=_x_plus(entry.cost),
                    once_per_activation="once_per_activation" in lim)
    except ValueError:
        return None


def model_feats(profile: Any, extra: Iterable[str] = ()) -> dict[str, Feat]:
    """The Ki feats a model can use, by name: its card's (catalogue data when the profile
    has it, :func:`feat_from_card`; otherwise a feat name that is one of
    :data:`GENERIC_FEATS`; otherwise the feat effects data file's facts,
    :func:`feat_from_entry`, for bundled profiles that keep feat names only) and
    ``extra`` names (the table's ``feats`` key), which must be generic feats. Names the
    engine cannot read are left out; Ki boosts are not feats here (see
    :meth:`models.profiles.Profile.boost`).

    Raises:
        KiError: an ``extra`` name that is not a generic feat.
    """
    out: dict[str, Feat] = {}
    generic = {k.lower(): v for k, v in GENERIC_FEATS.items() if not v.boost}
    cards = {getattr(c, "name", "").lower(): c for c in (getattr(profile, "ki_feats", ()) or ())}
    for name in getattr(profile, "feats", ()) or ():
        card = cards.get(name.lower())
        f = feat_from_card(card) if card is not None else generic.get(name.lower())
        if f is None:  # a bundled profile keeps names only; a "special" card: the data file's facts
            f = feat_from_entry(name, card_text=card.description if card is not None else None)
        if f is not None:
            out[f.name] = f
    for name in extra:
        f = generic.get(name.lower())
        if f is None:
            known = ", ".join(sorted(g.name for g in generic.values()))
            raise KiError(f"unknown Ki feat {name!r}: the engine knows {known}")
        out[f.name] = f
    return out
