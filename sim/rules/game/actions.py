"""Actions (p.24-26) and the one registry of action kinds.

:class:`Action` is what a player declares (a model's action, a pass, an allocation of
melee dice, an interceptor, an Instant/Active Ki feat). :data:`ACTION_KINDS` holds every
kind the engine plays once (:class:`ActionKind`): the functions that judge and resolve
it, and its rulebook data -- name and page, the activation counters it removes (Simple or
Complex), the stat a Ki boost raises, when it is taken -- read from the rules layer's one
table, :data:`sim.rules.action_kinds.ACTION_RULES` (which the condition rules read too).
Each kind is registered by the module of its step of the game:

=====================================  ==========================================
``walk``, ``run``, ``focus``, ``wait``,  :mod:`sim.rules.game.basic_actions`
``stand_up``, ``pass``
``charge``, ``melee``, ``disengage``,  :mod:`sim.rules.game.melee_step`
``allocate``
``shoot``, ``intercept``               :mod:`sim.rules.game.shooting_step`
``ki_feat``, ``complex_ki_feat``,      :mod:`sim.rules.game.ki_step`
``feat``
``scenario``, ``complex_scenario``     :mod:`sim.rules.game.scenario_step`
=====================================  ==========================================
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field, fields

from sim.files import quote
from sim.rules import movement
from sim.rules.action_kinds import ACTION_RULES, Timing
from sim.rules.game.state import GameError
from sim.rules.game.values import finite, finite_point, short


@dataclass(frozen=True)
class ActionKind:
    """One kind of action the engine plays: ``ActionKind(key, legal, resolve)``.

    Attributes:
        key: the :attr:`Action.kind` string, a key of
            :data:`~sim.rules.action_kinds.ACTION_RULES`.
        legal: ``legal(game, model_state, action) -> (ok, why)``: the checks of this kind
            after those every declaration passes (``Game.is_legal``).
        resolve: ``resolve(game, action)``: what it does once declared and legal.
        name, page, counters, timing, boost: the kind's rulebook data, copied from its
            :class:`~sim.rules.action_kinds.ActionRule`: its name in the rulebook, the
            page(s), the activation counters it removes (0, 1 Simple, 2 Complex, p.24),
            ``"activation"`` / ``"pass"`` / ``"answer"``, the stat a Ki boost on it raises
            (``move``, ``ranged``, ``melee``, ``ki`` or None, p.10, p.47).

    Raises:
        ValueError: a key that is not in the table, or a kind the table marks as not
            automated.
    """

    key: str
    legal: Callable
    resolve: Callable
    name: str = field(init=False)
    page: str = field(init=False)
    counters: int = field(init=False)
    timing: Timing = field(init=False)
    boost: str | None = field(init=False)

    def __post_init__(self) -> None:
        rule = ACTION_RULES.get(self.key)
        if rule is None or not rule.automated:
            raise ValueError(f"action kind {self.key!r} is not an automated kind of sim.rules.action_kinds")
        for name in ("name", "page", "counters", "timing", "boost"):
            object.__setattr__(self, name, getattr(rule, name))


#: Every kind of action, by its key (filled by the step modules).
ACTION_KINDS: dict[str, ActionKind] = {}


def register(*kinds: ActionKind) -> None:
    """Add action kinds to :data:`ACTION_KINDS`.

    Raises:
        ValueError: a key registered twice.
    """
    for k in kinds:
        if k.key in ACTION_KINDS:
            raise ValueError(f"action kind {k.key!r} registered twice")
        ACTION_KINDS[k.key] = k


class _KindsWithCounters:
    """A class attribute: the registered kinds that remove ``n`` counters (a tuple)."""

    def __init__(self, n: int) -> None:
        self.n = n

    def __get__(self, obj, owner=None) -> tuple[str, ...]:
        return tuple(k for k, v in ACTION_KINDS.items() if v.counters == self.n)


#: Why a move action without a destination is refused (a Walk, Run, or the Walk declared
#: with a Shoot or Ki feat action, p.24-25).
NO_POINT = "no destination: the move needs a point (or, for a Walk, a path)"


def walk_points(action: "Action") -> list[tuple[float, float]] | None:
    """The points of the Walk ``action`` declares: its ``path`` if given, else its
    ``point``; None when it has neither (the move is refused, :data:`NO_POINT`)."""
    if action.path:
        return list(action.path)
    return [action.point] if action.point is not None else None


def verdict(res: movement.MoveResult) -> tuple[bool, str]:
    """``(legal, reasons joined)`` of a movement check, for :meth:`Game.is_legal`."""
    return res.legal, "; ".join(r.message for r in res.reasons)


#: The JSON type of each Action field in a save (:meth:`Action.from_json`).
_ACTION_JSON = {"kind": "str", "model": "str", "target": "str", "weapon": "str", "special": "str", "walk": "str",
                "feat": "str", "objective": "str", "facing": "num", "direction": "num", "attack": "int",
                "defence": "int", "x": "int", "boost": "int", "point": "point", "path": "path", "models": "ids",
                "option": "int"}

_JSON_WORDS = {"str": "a string", "num": "a finite number", "int": "a whole number",
               "point": "[x, y] (finite numbers)", "path": "a list of [x, y] points",
               "ids": "a list of model ids (strings)"}



@dataclass(frozen=True)
class Action:
    """An action a model declares (p.24-26), or a pass (``kind == "pass"``).

    Attributes:
        kind: ``walk``, ``run``, ``charge``, ``melee``, ``disengage``, ``shoot``, ``focus``, ``wait``,
            ``stand_up``, ``ki_feat``, ``complex_ki_feat``, ``feat``, ``scenario``,
            ``complex_scenario``, ``pass``, or ``allocate`` (a model's secret allocation of its
            melee dice during an exchange, p.33).
        model: the active model (None for a pass).
        point: destination for walk/run, inches.
        target: enemy id for charge, melee and shoot.
        facing: facing at the end of a walk, degrees.
        path: an explicit walk path (base-centre points), if given (for ``arrive``: the
            Walk a Booted model makes at once on arrival, p.50).
        weapon: the weapon's name (shoot).
        walk: for shoot, ``"before"`` or ``"after"``: the Ranged Attack action's declared
            Walk to ``point`` (p.25).
        attack, defence, special, direction: an allocation (allocate).
        feat: the Ki feat's name (``ki_feat`` Simple, ``complex_ki_feat`` Complex, ``feat``
            an Instant or Active feat, which is no action and costs no counter, p.46).
        x: the chosen X of a feat with a variable cost.
        boost: Ki boosts bought for this action (p.10, p.47): +1 Move per step for
            walk/run/charge (and a shoot's or feat's walk), +1 Ranged for shoot, +1 Melee
            for allocate, +1 Ki for a feat's test. Each step costs the card's boost value.
        objective: the scenario objective of a ``scenario`` (Simple) or
            ``complex_scenario`` action; ``special`` then names the interaction.
        models: other models the action names, in order (model ids): those a Command or
            an Order nominates, one id per Ki token a Leech takes or a Channel gives
            (:mod:`sim.rules.game.support_step`).
        option: the option a Ki feat's ``choice`` applies (0-based; None: the first).
    """

    kind: str
    model: str | None = None
    point: tuple[float, float] | None = None
    target: str | None = None
    facing: float | None = None
    path: tuple = ()
    weapon: str | None = None
    attack: int | None = None
    defence: int | None = None
    special: str | None = None
    direction: float | None = None
    walk: str | None = None  # shoot / ki feats: "before" or "after" (a declared Walk to ``point``)
    feat: str | None = None
    x: int | None = None
    boost: int | None = None
    objective: str | None = None
    models: tuple = ()
    option: int | None = None  # a Ki feat's ``choice``: the picked option, 0-based (sim.rules.game.feat_step)

    #: The kinds that remove two activation counters (Complex actions, p.24), and those
    #: that remove none (allocations, passes, interceptions, Instant/Active feats): read
    #: from :data:`ACTION_KINDS`.
    COMPLEX = _KindsWithCounters(2)
    FREE = _KindsWithCounters(0)

    def __post_init__(self) -> None:
        """Refuse a point, path, facing or direction that is not finite (NaN, infinity):
        such a value would reach the state and the save.

        Raises:
            GameError: naming the field and the value.
        """
        for name in ("facing", "direction"):
            v = getattr(self, name)
            if v is not None and not finite(v):
                raise GameError(f"action {self.kind!r}: {name} must be a finite number of degrees, got {v!r}")
        if self.point is not None and not finite_point(self.point):
            raise GameError(f"action {self.kind!r}: point must be (x, y), finite inches, got {short(self.point)}")
        if self.path:
            try:
                bad = next((p for p in self.path if not finite_point(p)), None)
            except TypeError:
                bad = self.path
            if bad is not None:
                raise GameError(f"action {self.kind!r}: path points must be (x, y), finite inches, got {short(bad)}")

    def to_json(self) -> dict:
        """As plain JSON values (inches, degrees)."""
        return {k: v for k, v in asdict(self).items() if v not in (None, ())}

    @classmethod
    def from_json(cls, doc: dict) -> "Action":
        """The Action written by :meth:`to_json`.

        Raises:
            GameError: not an object, an unknown key, or a field of the wrong type (``kind``
                and the ids are strings, ``point`` is ``[x, y]``, ``path`` a list of them,
                ``facing``/``direction`` finite numbers, ``attack``/``defence``/``x``/``boost``
                whole numbers); the message names the key.
        """
        if not isinstance(doc, dict):
            raise GameError(f"an action is an object, got {short(doc)}")
        known = {f.name for f in fields(cls)}
        for key, v in doc.items():
            if key not in known:
                raise GameError(f"unknown key {quote(key)} (keys: {', '.join(sorted(known))})")
            want = _ACTION_JSON.get(key)
            if v is None and key != "kind" or want is None:
                continue
            ok = {"str": isinstance(v, str), "num": finite(v), "int": isinstance(v, int) and not isinstance(v, bool),
                  "point": isinstance(v, list) and finite_point(v),
                  "path": isinstance(v, list) and all(isinstance(p, list) and finite_point(p) for p in v),
                  "ids": isinstance(v, list) and all(isinstance(x, str) for x in v)}[want]
            if not ok:
                raise GameError(f"{key}: expected {_JSON_WORDS[want]}, got {short(v)}")
        if "kind" not in doc:
            raise GameError("missing key 'kind'")
        doc = dict(doc)
        if doc.get("point") is not None:
            doc["point"] = tuple(doc["point"])
        if doc.get("path") is not None:
            doc["path"] = tuple(tuple(p) for p in doc["path"])
        if doc.get("models") is not None:
            doc["models"] = tuple(doc["models"])
        return cls(**doc)

    def __repr__(self) -> str:
        """Only the fields that are set: ``Action('walk', 'matsu', point=(4.5, 8.0))``."""
        args = [repr(self.kind)] + ([repr(self.model)] if self.model is not None else [])
        for k, v in asdict(self).items():
            if k in ("kind", "model") or v is None or v == ():
                continue
            args.append(f"{k}={v!r}")
        return f"Action({', '.join(args)})"

    def __str__(self) -> str:
        s = self.kind
        if self.point is not None:
            s += f" to ({self.point[0]:.2f}, {self.point[1]:.2f})"
        if self.feat is not None:
            s += f" {self.feat}"
        if self.objective is not None:
            s += f" {self.special or ''} at {self.objective}".replace("  ", " ")
        if self.target is not None:
            s += f" {self.target}"
        if self.boost:
            s += f" (+{self.boost} boost)"
        if self.models:
            s += " (" + ", ".join(self.models) + ")"
        return s

    @property
    def counters(self) -> int:
        """Activation counters the action removes (:data:`ACTION_KINDS`): 0 (allocate,
        pass, intercept, an Instant/Active feat), 1 (Simple), 2 (Complex); 1 for a kind the
        engine does not know."""
        kind = ACTION_KINDS.get(self.kind)
        return kind.counters if kind is not None else 1

