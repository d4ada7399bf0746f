"""A game of Bushido: Risen Sun, headless, seeded and replayable (General rules p.18-46).

In the spirit of python-chess: a :class:`Game` knows its state, lists the legal actions
of the active player (:meth:`Game.legal_actions`), applies one (:meth:`Game.push`), can
take it back (:meth:`Game.pop`), and reports what happened as :class:`Event` records.

* **Turn** (p.20-21): Starting phase (variable game length roll, Ki generation, two
  activation counters each, Tactical test, pass tokens for the side with fewer models),
  Main phase (alternating activations; a player with no model to activate is skipped;
  pass tokens), End phase (damaging conditions, expiry, scenario scoring, end of game).
* **State changes are events.** The state is a pure function of the table and the
  event list: :meth:`Game.replay` rebuilds it, and saving writes the table, the seed and
  the events (atomically).
* **Dice** come from a seeded source (one seed, one game) or from the players
  (:class:`~sim.rules.dice.PhysicalDice`).

    >>> from sim.table import load_table
    >>> g = Game(load_table(), seed=7, length=("fixed", 2))
    >>> g.state.turn, g.state.phase
    (1, 'main')
    >>> a = g.legal_actions()[0]
    >>> _ = g.push(a)
"""

from __future__ import annotations

import copy
import json
import math
import os
import numbers
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Iterable

from sim.files import one_line, quote, write_text_atomic
from sim.rules import conditions, movement
from sim.rules.dice import Dice, SeededDice, tactical_test

GAME_FORMAT = "bushido-game/1"
#: A game always ends after the End phase of this turn (Game length, p.63).
MAX_TURNS = 7


class GameError(ValueError):
    """An action that cannot be taken now, or a save file that cannot be read."""


# ----------------------------------------------------------------------- events
@dataclass(frozen=True)
class Event:
    """One change of state. ``kind`` names it; ``data`` holds plain JSON values."""

    kind: str
    data: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        """As plain JSON values (inches, degrees)."""
        if "kind" in self.data:
            raise GameError(f"event data may not use the key 'kind' ({self.kind})")
        return {"kind": self.kind, **self.data}

    @classmethod
    def from_json(cls, doc: dict) -> "Event":
        """The Event written by :meth:`to_json`.

        Raises:
            GameError: not an object with a string ``kind``.
        """
        if not isinstance(doc, dict) or not isinstance(doc.get("kind"), str):
            raise GameError(f"an event is an object with a string 'kind', got {_short(doc)}")
        doc = dict(doc)
        return cls(doc.pop("kind"), doc)

    def describe(self) -> str:
        """One line for a readable log."""
        d = self.data
        k = self.kind
        if k == "turn":
            return f"=== Turn {d['turn']} ==="
        if k == "game_length":
            return f"Variable game length roll: {d['roll']} ({'last turn' if d['last'] else 'the game goes on'})"
        if k == "ki":
            return "Ki generation: " + ", ".join(f"{m} +{n}" for m, n in d["gains"].items())
        if k == "counters":
            return "Every model gets 2 activation counters"
        if k == "tactical":
            return f"Tactical test: player {d['winner']} wins ({d['rolls']}) and player {d['first']} acts first"
        if k == "pass_tokens":
            return f"Pass tokens: {d['tokens']}"
        if k == "phase":
            return f"-- {d['phase'].title()} phase --"
        if k == "activate":
            return f"Player {d['player']} activates {d['model']}: {d['action']}"
        if k == "move":
            return f"  {d['model']} moves to ({d['to'][0]:.2f}, {d['to'][1]:.2f}), {d['cost']:.2f}\" ({d['move']})"
        if k == "counter":
            return f"  {d['model']} loses {d['n']} activation counter(s)"
        if k == "ki_change":
            return f"  {d['model']} Ki {d['delta']:+d}"
        if k == "condition":
            name = _MARK_NAMES.get(d["name"], d["name"].replace("_", " "))
            if d["on"] and isinstance(d.get("value"), int) and not isinstance(d.get("value"), bool) and d["value"] > 1:
                name += f" ({d['value']})"
            return f"  {d['model']} {'gains' if d['on'] else 'loses'} {name}"
        if k == "wounds":
            return f"  {d['model']} takes {d['n']} wound(s)"
        if k == "killed":
            return f"  {d['model']} is killed"
        if k == "pass":
            return f"Player {d['player']} spends a pass token"
        if k == "active":
            return f"Player {d['player']} is active"
        if k == "marker_damage":
            return f"  {d['model']}: {d['marker']} markers {d['removed']} removed, {d['wounds']} wound(s)"
        if k == "game_over":
            return f"=== Game over: {d['result']} ==="
        if k == "position":
            return (f"Position set: turn {d['turn']}, {d['phase']} phase"
                    + (f", player {d['active']} active" if d.get("active") else ""))
        if k == "note":
            return f"  {d['text']}"
        if k == "test":
            return f"  {d['text']}"
        if k == "boost":
            return f"  {d['model']} boosts {d['stat'].title()} by +{d['steps']} for {d['cost']} Ki"
        if k == "feat_used":
            return f"  {d['model']} uses {d['feat']} ({d['cost']} Ki)" + (f" on {d['target']}" if d.get("target") else "")
        if k == "aura":
            return f"  {d['source']}'s {d['feat']} Aura is in play until the End phase"
        if k == "end_phase_reset":
            return "  Once-per-turn boxes wiped; Auras end"
        if k == "interception_open":
            return (f"  {d['target']}'s player may assign an interceptor for the shot of {d['attacker']}: "
                    + ", ".join(d["candidates"]))
        if k == "intercept":
            return f"  {d['chosen']} intercepts the shot" if d.get("chosen") else "  nobody intercepts"
        if k == "ammo":
            return f"  {d['model']}'s {d['weapon']}: {d['left']} Ammo left"
        if k == "scenario":
            return "\n".join(f"  {t}" for t in d.get("notes", [])) or "  scenario state updated"
        if k == "exchange_open":
            return f"  Melee exchange: {d['attacker']} against {d['defender']}" + (" (charge: +2 to the first damage roll)" if d["charge"] else "")
        if k == "allocated":
            return f"  {d['model']} allocates its dice in secret"
        if k in ("exchange", "shot"):
            return "\n".join(f"    {line}" for line in d.get("summary", []))
        return f"{k}: {d}"


#: Log words for the one-turn marks the engine keeps beside the conditions.
_MARK_NAMES = {"ran": "the mark 'ran this turn'", "shot": "the mark 'shot this turn'",
               "stood_up": "the mark 'stood up this turn'"}


# ------------------------------------------------------------------------ state
@dataclass
class ModelState:
    """A model's game state. Positions in inches, facing in degrees."""

    id: str
    player: int
    position: tuple[float, float]
    facing: float
    wounds: int  # boxes of one track
    ki_stat: int
    ki_limit: int
    damage: int = 0
    counters: int = 0
    ki: int = 0
    conditions: dict = field(default_factory=dict)
    markers: dict = field(default_factory=dict)  # "bleed"/"poison"/"fire"/... -> list of values
    alive: bool = True
    ammo: dict = field(default_factory=dict)  # weapon name -> Ammo tokens left (weapons fired so far)
    owner: int = 0  # the warband it belongs to; ``player`` is the side it fights for (Controlled, p.43)

    def __post_init__(self) -> None:
        if not self.owner:
            self.owner = self.player

    @property
    def exhausted(self) -> bool:
        """No activation counters left (p.24)."""
        return self.counters <= 0


@dataclass
class GameState:
    """Everything that changes during a game (a pure function of table + events)."""

    turn: int = 0
    phase: str = "start"
    active: int | None = None
    first: int | None = None
    last_turn: bool = False
    pass_tokens: dict = field(default_factory=lambda: {1: 0, 2: 0})
    models: dict = field(default_factory=dict)
    scores: dict = field(default_factory=lambda: {1: 0, 2: 0})
    result: str | None = None
    exchange: dict | None = None  # a melee exchange waiting for allocations
    feat_usage: dict = field(default_factory=dict)  # model -> {"turn": [names], "game": [names]}
    auras: list = field(default_factory=list)  # Aura feats in play: {"feat", "source", "player"}
    scenario: dict | None = None  # the scenario state (sim.rules.scenario.ScenarioState as JSON)
    interception: dict | None = None  # a shot waiting for the target's controller (step 1d)

    def alive(self, player: int | None = None) -> list[ModelState]:
        """Models still on the table (of ``player``, or of both)."""
        return [m for m in self.models.values() if m.alive and (player is None or m.player == player)]

    def can_activate(self, player: int) -> bool:
        """Whether ``player`` has a living model that may activate: it has activation
        counters and no Impetuous model of its warband stops it (p.44)."""
        models = self.alive(player)
        return any(not m.exhausted and not self.impetuous_blocks(m) for m in models)

    def impetuous_blocks(self, m: "ModelState") -> bool:
        """Impetuous (p.44): while a model of the warband has an Impetuous marker, models
        without one may not activate."""
        return conditions.impetuous_blocks_activation(
            m.conditions, [x.conditions for x in self.alive(m.player)])


def _initial_state(table) -> GameState:
    st = GameState()
    for m in table.models:
        prof = None
        if m.profile:
            try:
                from models.profiles import get_profile

                prof = get_profile(m.profile)
            except KeyError:
                prof = None
        st.models[m.id] = ModelState(
            id=m.id, player=m.player, position=(float(m.position[0]), float(m.position[1])), facing=float(m.facing),
            wounds=(prof.wounds if prof and prof.wounds else 5), ki_stat=(prof.ki if prof and prof.ki is not None else 1),
            ki_limit=(prof.ki_limit if prof and prof.ki_limit is not None else 6),
            conditions={"prone": 1} if m.prone else {})
    return st


def apply_event(state: GameState, ev: Event) -> None:
    """Apply one event to ``state`` in place. The only place the state changes."""
    d = ev.data
    k = ev.kind
    if k == "turn":
        state.turn = d["turn"]
        state.phase = "start"
    elif k == "game_length":
        state.last_turn = state.last_turn or d["last"]
    elif k == "ki":
        for mid, n in d["gains"].items():
            m = state.models[mid]
            m.ki = min(m.ki_limit, m.ki + n)
    elif k == "counters":
        for m in state.alive():
            m.counters = d.get("n", 2)
    elif k == "tactical":
        state.first = d["first"]
    elif k == "pass_tokens":
        state.pass_tokens = {int(p): n for p, n in d["tokens"].items()}
    elif k == "phase":
        state.phase = d["phase"]
    elif k == "active":
        state.active = d["player"]
    elif k == "move":
        m = state.models[d["model"]]
        m.position = (d["to"][0], d["to"][1])
        m.facing = d["facing"]
    elif k == "counter":
        _remove_counters(state.models[d["model"]], d["n"])
    elif k == "ki_change":
        m = state.models[d["model"]]
        m.ki = max(0, min(m.ki_limit, m.ki + d["delta"]))
    elif k == "condition":
        m = state.models[d["model"]]
        if d["on"]:
            m.conditions[d["name"]] = d.get("value", 1)
        else:
            m.conditions.pop(d["name"], None)
        if d["name"] == "controlled":  # it fights for the other side while Controlled (p.43)
            m.player = 3 - m.owner if d["on"] else m.owner
    elif k == "wounds":
        m = state.models[d["model"]]
        m.damage = min(m.wounds, m.damage + d["n"])
    elif k == "killed":
        state.models[d["model"]].alive = False
        state.models[d["model"]].counters = 0
    elif k == "pass":
        state.pass_tokens[d["player"]] -= 1
    elif k == "score":
        state.scores[d["player"]] += d["points"]
    elif k == "game_over":
        state.phase = "over"
        state.result = d["result"]
    elif k == "exchange_open":
        state.exchange = {"attacker": d["attacker"], "defender": d["defender"], "charge": d["charge"], "allocations": {},
                          "disengage": d.get("disengage"), "point": d.get("point"), "boosts": {}}
    elif k == "allocated":
        state.exchange["allocations"][d["model"]] = [d["attack"], d["defence"], d.get("special"), d.get("direction")]
        if d.get("boost"):
            state.exchange.setdefault("boosts", {})[d["model"]] = d["boost"]
    elif k == "exchange":
        state.exchange = None
        _apply_outcome(state, d)
    elif k == "shot":
        _apply_outcome(state, d)
    elif k == "marker_damage":
        m = state.models[d["model"]]
        left = list(m.markers.get(d["marker"], []))
        for v in d["removed"]:
            left.remove(v)
        m.markers[d["marker"]] = left
        m.damage = min(m.wounds, m.damage + d["wounds"])
        if m.damage >= m.wounds:
            m.alive, m.counters = False, 0
    elif k == "boost":
        m = state.models[d["model"]]
        m.ki = max(0, m.ki - d["cost"])
    elif k == "feat_used":
        m = state.models[d["model"]]
        m.ki = max(0, m.ki - d["cost"])
        u = state.feat_usage.setdefault(d["model"], {"turn": [], "game": []})
        if d.get("once_per_turn"):
            u["turn"].append(d["feat"])
        if d.get("once_per_game"):
            u["game"].append(d["feat"])
    elif k == "aura":
        state.auras.append({"feat": d["feat"], "source": d["source"], "player": d["player"]})
    elif k == "end_phase_reset":
        state.auras = []
        for u in state.feat_usage.values():
            u["turn"] = []
    elif k == "scenario":
        state.scenario = d["state"]
    elif k == "interception_open":
        state.interception = {key: d[key] for key in ("attacker", "target", "weapon", "moved", "boost", "walk_after",
                                                      "candidates")}
    elif k == "intercept":
        state.interception = None
    elif k == "ammo":
        state.models[d["model"]].ammo[d["weapon"]] = d["left"]
    elif k == "position":
        _apply_position(state, d)
    elif k in ("activate", "note", "test"):
        pass
    else:
        raise GameError(f"unknown event {k!r}")


def _remove_counters(m: ModelState, n: int) -> None:
    """Remove ``n`` activation counters; a Controlled model loses one Controlled marker per
    counter removed and goes back to its warband with the last (p.43)."""
    n = min(max(0, n), m.counters)
    m.counters -= n
    if n and "controlled" in m.conditions:
        left = int(m.conditions["controlled"]) - n
        if left <= 0:
            m.conditions.pop("controlled")
            m.player = m.owner
        else:
            m.conditions["controlled"] = left


def _verdict(res: movement.MoveResult) -> tuple[bool, str]:
    """``(legal, reasons joined)`` of a movement check, for :meth:`Game.is_legal`."""
    return res.legal, "; ".join(r.message for r in res.reasons)


def _markers_json(markers) -> dict:
    """Melee/ranged markers (target, kind, count, value) as ``{target: {kind: [values]}}``."""
    out: dict = {}
    for mk in markers:
        kind = {"on_fire": "fire", "poisoned": "poison"}.get(mk.kind, mk.kind)
        out.setdefault(mk.target, {}).setdefault(kind, []).extend([mk.value if mk.value is not None else 1] * mk.count)
    return out


def _apply_outcome(state: GameState, d: dict) -> None:
    """Wounds, removals, conditions, moves and counters of an exchange or a shot."""
    for mid, pos in d.get("positions", {}).items():
        state.models[mid].position = (pos[0], pos[1])
    for mid, f in d.get("facings", {}).items():
        state.models[mid].facing = f
    for mid, n in d.get("wounds", {}).items():
        m = state.models[mid]
        m.damage = min(m.wounds, m.damage + n)
        if m.damage >= m.wounds:
            m.alive, m.counters = False, 0
    for mid in d.get("removed", []):
        state.models[mid].alive, state.models[mid].counters = False, 0
    for mid, names in d.get("conditions", {}).items():
        for name in names:
            state.models[mid].conditions[name] = 1
    for mid, n in d.get("counters", {}).items():
        _remove_counters(state.models[mid], n)
    for mid, kinds in d.get("markers", {}).items():
        for kind, values in kinds.items():
            state.models[mid].markers.setdefault(kind, []).extend(values)


# -------------------------------------------------------------------- positions
#: The keys of a position (:meth:`Game.position`), in the order they are written.
POSITION_KEYS = ("turn", "phase", "active", "first", "last_turn", "pass_tokens", "scores", "result", "models",
                 "exchange", "interception", "feat_usage", "auras", "scenario")
#: The keys of a model's entry in a position.
MODEL_KEYS = ("position", "facing", "damage", "counters", "ki", "conditions", "markers", "ammo", "alive",
              "wounds", "ki_stat", "ki_limit")
#: The phases of a turn (p.20-21), and ``over`` once the game has ended.
PHASES = ("start", "main", "end", "over")
#: What a key left out of a position means (``models`` and ``scenario``: see :func:`expand_position`).
POSITION_DEFAULTS = {"turn": 1, "phase": "main", "active": 1, "first": None, "last_turn": False,
                     "pass_tokens": {"1": 0, "2": 0}, "scores": {"1": 0, "2": 0}, "result": None,
                     "exchange": None, "interception": None, "feat_usage": {}, "auras": [], "scenario": None}
_EXCHANGE_KEYS = ("attacker", "defender", "charge", "allocations", "disengage", "point", "boosts")
_INTERCEPTION_KEYS = ("attacker", "target", "weapon", "moved", "boost", "walk_after", "candidates")


def _json_copy(value):
    """``value`` as plain JSON values (lists for tuples, string keys): a deep copy."""
    return json.loads(json.dumps(value))


def _same(a, b) -> bool:
    """Equal as JSON (``1`` is not ``True``, ``2`` is not ``2.0``)."""
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def _model_defaults(m: ModelState) -> dict:
    """A model's entry as deployed (``m`` from the table's initial state): where the table
    puts it, Prone when the table says so, no damage, counters, Ki or markers, its card's
    Wounds, Ki and Ki limit."""
    return {"position": [m.position[0], m.position[1]], "facing": m.facing, "damage": 0, "counters": 0, "ki": 0,
            "conditions": dict(m.conditions), "markers": {}, "ammo": {}, "alive": True,
            "wounds": m.wounds, "ki_stat": m.ki_stat, "ki_limit": m.ki_limit}


def full_position(state: GameState) -> dict:
    """Every key of the position of ``state``, written out (plain JSON values)."""
    models = {}
    for mid, m in state.models.items():
        models[mid] = {"position": [m.position[0], m.position[1]], "facing": m.facing, "damage": m.damage,
                       "counters": m.counters, "ki": m.ki, "conditions": _json_copy(m.conditions),
                       "markers": _json_copy(m.markers), "ammo": _json_copy(m.ammo), "alive": m.alive,
                       "wounds": m.wounds, "ki_stat": m.ki_stat, "ki_limit": m.ki_limit}
    return {"turn": state.turn, "phase": state.phase, "active": state.active, "first": state.first,
            "last_turn": state.last_turn,
            "pass_tokens": {str(p): n for p, n in sorted(state.pass_tokens.items())},
            "scores": {str(p): n for p, n in sorted(state.scores.items())}, "result": state.result,
            "models": models, "exchange": _json_copy(state.exchange), "interception": _json_copy(state.interception),
            "feat_usage": _json_copy(state.feat_usage), "auras": _json_copy(state.auras),
            "scenario": _json_copy(state.scenario)}


def compact_position(state: GameState, base: GameState) -> dict:
    """The position of ``state`` in its compact (canonical) form: ``turn``, ``phase``,
    ``active`` and ``models`` always, every other key only when it differs from its
    default (:data:`POSITION_DEFAULTS`); in each model's entry ``position`` and
    ``facing`` always, every other key only when it differs from the model as deployed
    (``base``: the table's initial state)."""
    full = full_position(state)
    out: dict = {}
    for key in POSITION_KEYS:
        if key == "models":
            out["models"] = {}
            for mid, entry in full["models"].items():
                d = _model_defaults(base.models[mid])
                out["models"][mid] = {k: v for k, v in entry.items() if k in ("position", "facing") or not _same(v, d[k])}
        elif key in ("turn", "phase", "active") or not _same(full[key], POSITION_DEFAULTS[key]):
            out[key] = full[key]
    return out


def _whole(v, lo: int, hi: int) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and lo <= v <= hi


def expand_position(position, base: GameState, scenario_default: dict | None = None,
                    has_scenario: bool = False) -> dict:
    """``position`` checked and written out in full (every key; a model left out is as
    deployed): the data of a ``position`` event.

    Args:
        position: a position (:meth:`Game.position`), compact or full.
        base: the table's initial state (model ids, owners, cards, deployment).
        scenario_default: the scenario state a left-out ``scenario`` key stands for.
        has_scenario: whether the game plays a scenario (a scenario state is refused
            without one).

    Raises:
        GameError: one line, ``position: ENTRY: PROBLEM`` (an unknown key or model, a
            value of the wrong type or out of its range).
    """
    def bad(where: str, problem: str) -> GameError:
        return GameError(one_line(f"position: {where}: {problem}" if where else f"position: {problem}", MESSAGE_CHARS))

    if not isinstance(position, dict):
        raise bad("", f"a position is a mapping, got {_short(position)}")
    for key in position:
        if key not in POSITION_KEYS:
            raise bad(quote(key), f"unknown key (keys: {', '.join(POSITION_KEYS)})")
    out = _json_copy(POSITION_DEFAULTS)
    out["scenario"] = _json_copy(scenario_default)
    try:
        given = _json_copy({k: v for k, v in position.items() if k != "models"})
        json.dumps(position.get("models"))
    except (TypeError, ValueError) as exc:
        raise bad("", f"not plain JSON values ({exc})") from None
    out.update(given)
    ids = set(base.models)
    if not _whole(out["turn"], 0, 100):
        raise bad("turn", f"expected a whole number 0..100, got {_short(out['turn'])}")
    if out["phase"] not in PHASES:
        raise bad("phase", f"expected one of {', '.join(PHASES)}, got {_short(out['phase'])}")
    for key in ("active", "first"):
        if out[key] not in (None, 1, 2) or isinstance(out[key], bool):
            raise bad(key, f"expected 1, 2 or null, got {_short(out[key])}")
    if not isinstance(out["last_turn"], bool):
        raise bad("last_turn", f"expected true or false, got {_short(out['last_turn'])}")
    for key in ("pass_tokens", "scores"):
        v = out[key]
        if not (isinstance(v, dict) and set(v) == {"1", "2"} and all(_whole(n, 0, 999) for n in v.values())):
            raise bad(key, f'expected {{"1": n, "2": n}} (whole numbers 0..999), got {_short(v)}')
        out[key] = {"1": v["1"], "2": v["2"]}
    if out["result"] is not None and not isinstance(out["result"], str):
        raise bad("result", f"expected a string or null, got {_short(out['result'])}")
    models = position.get("models", {})
    if not isinstance(models, dict):
        raise bad("models", f"expected a mapping of model ids to entries, got {_short(models)}")
    for mid in models:
        if mid not in ids:
            raise bad(f"models[{quote(mid)}]", f"no such model on the table (models: {', '.join(sorted(ids))})")
    out["models"] = {}
    for mid, m in base.models.items():
        entry = _model_defaults(m)
        got = models.get(mid, {})
        where = f"models[{quote(mid)}]"
        if not isinstance(got, dict):
            raise bad(where, f"expected a mapping, got {_short(got)}")
        for key in got:
            if key not in MODEL_KEYS:
                raise bad(f"{where}.{quote(key)}", f"unknown key (keys: {', '.join(MODEL_KEYS)})")
        entry.update(_json_copy(got))
        if not (isinstance(entry["position"], list) and _finite_point(entry["position"])):
            raise bad(f"{where}.position", f"expected [x, y] (finite inches), got {_short(entry['position'])}")
        entry["position"] = [float(entry["position"][0]), float(entry["position"][1])]
        if not _finite(entry["facing"]):
            raise bad(f"{where}.facing", f"expected a finite number of degrees, got {_short(entry['facing'])}")
        entry["facing"] = float(entry["facing"])
        for key, lo, hi in (("wounds", 1, 999), ("ki_stat", 0, 99), ("ki_limit", 0, 99), ("counters", 0, 9),
                            ("damage", 0, entry["wounds"]), ("ki", 0, entry["ki_limit"])):
            if not _whole(entry[key], lo, hi):
                raise bad(f"{where}.{key}", f"expected a whole number {lo}..{hi}, got {_short(entry[key])}")
        if not isinstance(entry["alive"], bool):
            raise bad(f"{where}.alive", f"expected true or false, got {_short(entry['alive'])}")
        conds = entry["conditions"]
        if not (isinstance(conds, dict) and all(isinstance(v, (int, str)) for v in conds.values())):
            raise bad(f"{where}.conditions", f"expected a mapping of condition names to numbers or model ids, "
                                             f"got {_short(conds)}")
        markers = entry["markers"]
        if not (isinstance(markers, dict) and all(isinstance(v, list) and all(_whole(x, 0, 99) for x in v)
                                                  for v in markers.values())):
            raise bad(f"{where}.markers", f"expected a mapping of marker kinds to lists of values, got {_short(markers)}")
        if not (isinstance(entry["ammo"], dict) and all(_whole(v, 0, 99) for v in entry["ammo"].values())):
            raise bad(f"{where}.ammo", f"expected a mapping of weapon names to Ammo tokens left, got {_short(entry['ammo'])}")
        out["models"][mid] = {k: entry[k] for k in MODEL_KEYS}
    ex = out["exchange"]
    if ex is not None:
        if not isinstance(ex, dict) or not {"attacker", "defender"} <= set(ex) or not set(ex) <= set(_EXCHANGE_KEYS):
            raise bad("exchange", f"expected null or a mapping with attacker, defender (and {', '.join(_EXCHANGE_KEYS[2:])}),"
                                  f" got {_short(ex)}")
        for key in ("attacker", "defender"):
            if ex[key] not in ids:
                raise bad(f"exchange.{key}", f"no such model on the table: {_short(ex[key])}")
        full = {"charge": False, "allocations": {}, "disengage": None, "point": None, "boosts": {}}
        full.update(ex)
        allocs, boosts = full["allocations"], full["boosts"]
        if not (isinstance(allocs, dict) and all(k in (ex["attacker"], ex["defender"]) and isinstance(v, list)
                                                 and len(v) == 4 for k, v in allocs.items())):
            raise bad("exchange.allocations", f"expected {{model id: [attack, defence, special, direction]}}, "
                                              f"got {_short(allocs)}")
        if not (isinstance(boosts, dict) and all(k in ids and _whole(v, 0, 99) for k, v in boosts.items())):
            raise bad("exchange.boosts", f"expected {{model id: Ki boosts}}, got {_short(boosts)}")
        out["exchange"] = {k: full[k] for k in _EXCHANGE_KEYS}
    ic = out["interception"]
    if ic is not None:
        if not isinstance(ic, dict) or set(ic) != set(_INTERCEPTION_KEYS):
            raise bad("interception", f"expected null or a mapping with {', '.join(_INTERCEPTION_KEYS)}, got {_short(ic)}")
        if ic["attacker"] not in ids or ic["target"] not in ids or not isinstance(ic["candidates"], list) \
                or any(c not in ids for c in ic["candidates"]):
            raise bad("interception", f"attacker, target and candidates must be models of the table, got {_short(ic)}")
        out["interception"] = {k: ic[k] for k in _INTERCEPTION_KEYS}
    usage = out["feat_usage"]
    if not (isinstance(usage, dict) and all(
            mid in ids and isinstance(u, dict) and set(u) == {"turn", "game"}
            and all(isinstance(x, list) and all(isinstance(n, str) for n in x) for x in u.values())
            for mid, u in usage.items())):
        raise bad("feat_usage", f'expected {{model id: {{"turn": [feat names], "game": [feat names]}}}}, got {_short(usage)}')
    auras = out["auras"]
    if not (isinstance(auras, list) and all(isinstance(a, dict) and set(a) == {"feat", "source", "player"}
                                            and a["source"] in ids and a["player"] in (1, 2) for a in auras)):
        raise bad("auras", f'expected a list of {{"feat", "source" (a model id), "player"}}, got {_short(auras)}')
    if out["scenario"] is not None:
        if not has_scenario:
            raise bad("scenario", "the game plays no scenario")
        from sim.rules.scenario import ScenarioError, ScenarioState

        try:
            ScenarioState.from_json(out["scenario"])
        except (ScenarioError, AttributeError, TypeError, ValueError, KeyError) as exc:
            raise bad("scenario", f"not a scenario state ({exc})") from None
    elif has_scenario:
        raise bad("scenario", "a game with a scenario needs its state")
    for key in POSITION_KEYS:
        try:
            json.dumps(out[key], allow_nan=False)
        except ValueError:
            raise bad(key, "NaN or an infinite number") from None
    return {k: out[k] for k in POSITION_KEYS}


def _apply_position(state: GameState, d: dict) -> None:
    """Set ``state`` to the full position ``d`` (:func:`expand_position`)."""
    state.turn, state.phase, state.active, state.first = d["turn"], d["phase"], d["active"], d["first"]
    state.last_turn, state.result = d["last_turn"], d["result"]
    state.pass_tokens = {int(p): n for p, n in d["pass_tokens"].items()}
    state.scores = {int(p): n for p, n in d["scores"].items()}
    state.exchange = _json_copy(d["exchange"])
    state.interception = _json_copy(d["interception"])
    state.feat_usage = _json_copy(d["feat_usage"])
    state.auras = _json_copy(d["auras"])
    state.scenario = _json_copy(d["scenario"])
    for mid, e in d["models"].items():
        m = state.models[mid]
        m.position, m.facing = (e["position"][0], e["position"][1]), e["facing"]
        m.damage, m.counters, m.ki, m.alive = e["damage"], e["counters"], e["ki"], e["alive"]
        m.wounds, m.ki_stat, m.ki_limit = e["wounds"], e["ki_stat"], e["ki_limit"]
        m.conditions, m.markers, m.ammo = _json_copy(e["conditions"]), _json_copy(e["markers"]), _json_copy(e["ammo"])
        m.player = 3 - m.owner if "controlled" in m.conditions else m.owner


# ----------------------------------------------------------------------- actions
def _finite(v) -> bool:
    """A real number (not a bool) that is neither NaN nor infinite."""
    return isinstance(v, numbers.Real) and not isinstance(v, bool) and math.isfinite(float(v))


def _finite_point(p) -> bool:
    """Two finite real numbers (a point in inches)."""
    try:
        return len(p) == 2 and _finite(p[0]) and _finite(p[1])
    except (TypeError, KeyError, IndexError):
        return False


def _short(v, limit: int = 90) -> str:
    """``repr``/JSON of a value, cut to ``limit`` characters for a one-line message."""
    try:
        text = json.dumps(v, sort_keys=True, default=repr)
    except (TypeError, ValueError):
        text = repr(v)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def is_save_head(head: bytes) -> bool:
    """Whether the first bytes of a file are those of a save (:meth:`Game.save`): its
    ``"format"`` names ``bushido-game/``. For refusing to overwrite other files."""
    import re

    return re.search(rb'"format"\s*:\s*"bushido-game/', head[:512]) is not None


#: The longest problem text a save error carries (the file name comes on top).
MESSAGE_CHARS = 400

#: The keys of a save document (:meth:`Game.to_json`).
_SAVE_KEYS = frozenset({"format", "table", "seed", "length", "actions", "events", "scenario", "dice", "rolls",
                        "dice_state"})


def _first_difference(want: list, got: list) -> tuple[str, str] | None:
    """The first saved event (``want``, JSON) that differs from the re-simulated one
    (``got``): ``(entry, what differs)``, or None when they are equal."""
    for i, (a, b) in enumerate(zip(want, got)):
        if a == b:
            continue
        if not isinstance(a, dict) or a.get("kind") != b.get("kind"):
            return f"events[{i}]", f"the file has {_event_text(a)}, the re-simulation {_event_text(b)}"
        for k in sorted(set(a) | set(b)):
            if a.get(k, "(none)") != b.get(k, "(none)"):
                return (f"events[{i}]", f"{b['kind']} event: {quote(k)} is {_short(a.get(k, '(none)'))} in the file, "
                                        f"{_short(b.get(k, '(none)'))} when re-simulated")
    if len(want) != len(got):
        i = min(len(want), len(got))
        extra = f"the file has {_short(want[i])}" if len(want) > i else f"the re-simulation has {_short(got[i])}"
        return "events", f"the file has {len(want)} events, the re-simulation {len(got)}; first extra: {extra}"
    return None


def _event_text(doc) -> str:
    """A saved event (JSON) for a one-line message: its kind and readable line."""
    try:
        ev = Event.from_json(doc)
        return f"a {ev.kind!r} event ({_cut(ev.describe().strip(), 90)})"
    except Exception:  # noqa: BLE001 - a malformed event is shown as it is
        return _short(doc)


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _saved_vims(scenario, events: list) -> dict | None:
    """The VIMs of a save (a player choice, so part of the input): from its first
    ``scenario`` event, as ``{side: model id or None}``."""
    if scenario is None or not scenario.vim:
        return None
    first = next((e for e in events if e.kind == "scenario"), None)
    state = first.data.get("state") if first is not None else None
    vims = state.get("vims") if isinstance(state, dict) else None
    if not isinstance(vims, dict):
        return None
    out = {}
    for side, ids in vims.items():
        if str(side) in ("1", "2") and isinstance(ids, list) and all(isinstance(x, str) for x in ids):
            out[int(side)] = ids[0] if len(ids) == 1 else (tuple(ids) if ids else None)
    return out or None


#: The JSON type of each Action field in a save (:meth:`Action.from_json`).
_ACTION_JSON = {"kind": "str", "model": "str", "target": "str", "weapon": "str", "special": "str", "walk": "str",
                "feat": "str", "objective": "str", "facing": "num", "direction": "num", "attack": "int",
                "defence": "int", "x": "int", "boost": "int", "point": "point", "path": "path"}
_JSON_WORDS = {"str": "a string", "num": "a finite number", "int": "a whole number",
               "point": "[x, y] (finite numbers)", "path": "a list of [x, y] points"}


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
        path: an explicit walk path (base-centre points), if given.
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

    #: Simple actions remove one counter, complex two (p.24); allocations, passes and
    #: Instant/Active feats none.
    COMPLEX = ("charge", "focus", "complex_ki_feat", "complex_scenario")
    FREE = ("allocate", "pass", "feat", "intercept")

    def __post_init__(self) -> None:
        """Refuse a point, path, facing or direction that is not finite (NaN, infinity):
        such a value would reach the state and the save.

        Raises:
            GameError: naming the field and the value.
        """
        for name in ("facing", "direction"):
            v = getattr(self, name)
            if v is not None and not _finite(v):
                raise GameError(f"action {self.kind!r}: {name} must be a finite number of degrees, got {v!r}")
        if self.point is not None and not _finite_point(self.point):
            raise GameError(f"action {self.kind!r}: point must be (x, y), finite inches, got {_short(self.point)}")
        if self.path:
            try:
                bad = next((p for p in self.path if not _finite_point(p)), None)
            except TypeError:
                bad = self.path
            if bad is not None:
                raise GameError(f"action {self.kind!r}: path points must be (x, y), finite inches, got {_short(bad)}")

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
            raise GameError(f"an action is an object, got {_short(doc)}")
        known = {f.name for f in fields(cls)}
        for key, v in doc.items():
            if key not in known:
                raise GameError(f"unknown key {quote(key)} (keys: {', '.join(sorted(known))})")
            want = _ACTION_JSON.get(key)
            if v is None and key != "kind" or want is None:
                continue
            ok = {"str": isinstance(v, str), "num": _finite(v), "int": isinstance(v, int) and not isinstance(v, bool),
                  "point": isinstance(v, list) and _finite_point(v),
                  "path": isinstance(v, list) and all(isinstance(p, list) and _finite_point(p) for p in v)}[want]
            if not ok:
                raise GameError(f"{key}: expected {_JSON_WORDS[want]}, got {_short(v)}")
        if "kind" not in doc:
            raise GameError("missing key 'kind'")
        doc = dict(doc)
        if doc.get("point") is not None:
            doc["point"] = tuple(doc["point"])
        if doc.get("path") is not None:
            doc["path"] = tuple(tuple(p) for p in doc["path"])
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
        return s

    @property
    def counters(self) -> int:
        """Activation counters the action removes: 0 (allocate, pass), 1 (simple), 2 (complex)."""
        return 0 if self.kind in self.FREE else (2 if self.kind in self.COMPLEX else 1)


# --------------------------------------------------------------------------- game
class _RollRecorder:
    """What the engine rolls with: the game's dice source, each value recorded in the
    game's roll list of the current action (``Game._rolls``)."""

    records_rolls = True  # PromptDice looks past this frame for what a roll is for

    def __init__(self, game: "Game") -> None:
        self._game = game

    def roll(self, n: int) -> list[int]:
        """``n`` values from the game's dice, recorded."""
        values = list(self._game._dice.roll(n))
        self._game._rolls[-1].extend(values)
        return values


class Game:
    """A game on a table with deployed warbands.

    Args:
        table: a loaded :class:`sim.table.Table` (player 1 and player 2 models).
        seed: seeds the dice (``SeededDice``); ignored when ``dice`` is given.
        dice: a dice source (e.g. :class:`~sim.rules.dice.PhysicalDice`).
        length: ``("fixed", N)`` or ``("variable", X)`` (Game length, p.63); default: the
            scenario's, else ``("variable", 5)``.
        scenario: a :class:`~sim.rules.scenario.Scenario`, or the name or path of a
            scenario file (``data/scenarios``); None plays without objectives (the game
            ends on turns or annihilation, the side with more models left wins).
        vims: for a VIM scenario, ``{side: model id}`` (the VIM of each side); default:
            each side's legal model with the highest rice (Nominated: the same model,
            as if the opponent chose the most valuable one).
        position: a position (:meth:`position`) to start from, in the spirit of
            python-chess's ``Board(fen)``: the game starts there (one ``position`` event)
            and no phase is played; without it the first turn's Starting phase is played
            on creation. A scenario game whose position has no ``scenario`` state gets the
            scenario's initial state (its VIMs from ``vims`` or the default choice).

    Example, a position set up by hand, played on and read back:

        >>> from sim.table import load_table
        >>> table = load_table()
        >>> pos = Game(table, seed=7, length=("fixed", 2)).position()
        >>> pos["turn"], pos["phase"], pos["active"], pos["models"]["akira"]
        (1, 'main', 1, {'position': [12.0, 12.0], 'facing': 90.0, 'counters': 2, 'ki': 2})
        >>> pos["models"]["akira"].update(damage=4, conditions={"stunned": 1})
        >>> g = Game(table, seed=7, length=("fixed", 2), position=pos)
        >>> g.position() == pos
        True
        >>> g.log()
        ['Position set: turn 1, main phase, player 1 active']
        >>> _ = g.push(Action("wait", "akira"))    # Wait: the Stunned marker goes (p.25)
        >>> g.position()["models"]["akira"]
        {'position': [12.0, 12.0], 'facing': 90.0, 'damage': 4, 'counters': 1, 'ki': 2}

    Raises:
        GameError: a scenario that cannot be read or does not fit the table, a table
            feat the engine does not know.
    """

    def __init__(self, table, seed: int | None = 0, dice: Dice | None = None,
                 length: tuple[str, int] | None = None, events: Iterable[Event] | None = None,
                 scenario=None, vims: dict | None = None, position: dict | None = None):
        from sim.rules import scenario as scen

        self.table = table
        self.seed = seed
        self._dice = dice if dice is not None else SeededDice(seed)
        self._dice_replaced = False  # True once ``dice`` is set: the seed no longer tells the rolls
        #: The d6 values rolled: [0] on creation (set-up, Starting phase of turn 1), then one
        #: list per pushed action (a save carries them; :meth:`load` checks them).
        self._rolls: list[list[int]] = [[]]
        self._roller = _RollRecorder(self)
        #: Whether this game was rebuilt by re-simulating a save (:meth:`load`).
        self.verified = False
        if isinstance(scenario, (str, os.PathLike)):
            try:
                scenario = scen.load_scenario(scenario, table.width, table.depth)
            except scen.ScenarioError as exc:
                raise GameError(str(exc)) from None
        self.scenario = scenario
        if length is None:
            length = scenario.length if scenario is not None else ("variable", 5)
        self.length = (str(length[0]), int(length[1]))
        self.state = _initial_state(table)
        self._base = _initial_state(table)  # the models as deployed: what a position leaves out
        self._vims = dict(vims) if vims else None
        self._cards: dict = {}  # model id -> profile card (or None)
        self._feats: dict = {}  # model id -> {name: Feat}
        self.events: list[Event] = []
        self._marks: list[int] = []  # event index before each pushed action
        self._dice_marks: list = []  # the dice state before each pushed action (seeded dice)
        self._memo: dict = {}  # (event count, what, args) -> result, for the current state
        self._actions: list[Action] = []
        from sim.rules.ki import KiError

        for tm in table.models:
            try:
                self.feats(tm.id)
            except KiError as exc:
                raise GameError(f"{table.source or table.name}: models[id={tm.id}].feats: {exc}") from None
        if events is not None and position is not None:
            raise GameError("a game starts from its events or from a position, not both")
        if events is not None:
            for ev in events:
                self._emit(ev)
        elif position is not None:
            self.set_position(position)
        else:
            if scenario is not None:
                self._setup_scenario()
            self._start_turn()

    # ------------------------------------------------------------ plumbing
    @property
    def dice(self) -> Dice:
        """The dice source the engine rolls with. It may be replaced (e.g. by physical dice
        for a loaded game); every value rolled is recorded either way (:meth:`to_json`)."""
        return self._dice

    @dice.setter
    def dice(self, value: Dice) -> None:
        self._dice = value
        self._dice_replaced = True

    @property
    def actions(self) -> tuple[Action, ...]:
        """The actions pushed so far (taken-back ones excluded), in order."""
        return tuple(self._actions)

    @property
    def seeded(self) -> bool:
        """True when every roll came from ``SeededDice(seed)`` created with the game (the
        seed alone then reproduces the game); False for physical or replaced dice."""
        return (not self._dice_replaced and type(self._dice) is SeededDice and self.seed is not None
                and self._dice.seed == self.seed)

    def _unmark(self) -> None:
        """Forget the mark of an action that was refused before it changed anything."""
        self._marks.pop()
        self._actions.pop()
        self._dice_marks.pop()
        self._rolls.pop()

    def _emit(self, ev: Event) -> Event:
        if self._memo:
            self._memo = {}  # every memoised answer is about the state before this event
        apply_event(self.state, ev)
        self.events.append(ev)
        return ev

    def charge(self, model_id: str, target_id: str, boost: int = 0) -> movement.MoveResult:
        """The Charge of ``model_id`` at ``target_id`` in the current state (memoised
        until the state changes); ``boost``: Move boosts bought for it."""
        key = (len(self.events), "charge", model_id, target_id, boost)
        got = self._memo.get(key)
        if got is None:
            got = self._memo[key] = movement.plan_charge(self._boosted_table(model_id, boost), model_id, target_id)
        return got

    def table_now(self):
        """The table as the game has it now: models where the state has them (the dead
        removed, Prone flagged) and the scenario's objectives that are still in play."""
        return self._table_now()

    def _table_now(self):
        """The table with the models where the game state has them (dead removed);
        built once per state."""
        key = (len(self.events), "table")
        got = self._memo.get(key)
        if got is None:
            got = self._memo[key] = self._build_table_now()
        return got

    def _build_table_now(self):
        from dataclasses import replace

        from sim.table import Table

        models = []
        for m in self.table.models:
            s = self.state.models[m.id]
            if not s.alive:
                continue
            models.append(replace(m, position=s.position, facing=s.facing, prone="prone" in s.conditions,
                                  player=s.player))
        terrain = self.table.terrain + self._objective_pieces()
        return Table(self.table.name, self.table.width, self.table.depth, terrain, tuple(models), self.table.source)

    # ------------------------------------------------------------ positions
    def position(self) -> dict:
        """The position now: a compact, serialisable description of the game state (plain
        JSON values; inches, degrees), in the spirit of python-chess's ``Board.fen()``.

        Keys: ``turn``, ``phase`` (``start``, ``main``, ``end``, ``over``), ``active`` (the
        player who activates, 1 or 2) and ``models`` are always written; ``first`` (the
        Tactical test's choice), ``last_turn``, ``pass_tokens`` and ``scores`` (``{"1": n,
        "2": n}``), ``result``, ``exchange`` (a melee exchange waiting for allocations),
        ``interception`` (a shot waiting for an interceptor), ``feat_usage``, ``auras``
        and ``scenario`` (the scenario state) only when they differ from
        :data:`POSITION_DEFAULTS`. ``models`` maps every model id to its entry:
        ``position`` ``[x, y]`` and ``facing`` always; ``damage``, ``counters``, ``ki``,
        ``conditions`` (name -> markers, a TN or a holder's id), ``markers`` (``bleed``,
        ``poison``, ``fire`` -> values), ``ammo`` (weapon -> tokens left), ``alive``, and
        the card's ``wounds``, ``ki_stat``, ``ki_limit`` only when they differ from the
        model as the table deploys it. The side a model fights for follows from its
        ``controlled`` condition (p.43).

        ``Game(table, position=p)`` and :meth:`set_position` set a position up;
        ``Game(table, position=g.position()).position() == g.position()`` (and the states
        are equal). The table, scenario, game length and dice are the game's inputs, not
        part of the position.
        """
        return compact_position(self.state, self._base)

    def set_position(self, position: dict) -> None:
        """Set the game to ``position`` (:meth:`position`; a key or model left out takes
        its default, a model as deployed), like python-chess's ``Board.set_fen``. No phase
        is played and the rules do not judge the position (``sim.rules.invariants`` does).

        The change is one ``position`` event: a take-back (:meth:`pop`) of an earlier
        action removes it, a replay applies it, and a save carries it as an input (a
        position set by hand), applied again when the save is loaded and verified. The
        actions pushed before stay in the history and the dice roll on from where they
        stand.

        Raises:
            GameError: ``position: ENTRY: PROBLEM`` for an unknown key or model, or a
                value of the wrong type or out of range; the game is unchanged.
        """
        default = None
        if self.scenario is not None and isinstance(position, dict) and "scenario" not in position:
            default = self._scenario_initial()[0].to_json()  # the scenario as it starts
        full = expand_position(position, self._base, default, has_scenario=self.scenario is not None)
        self._emit(Event("position", full))

    def gain_condition(self, model: str, name: str, n: int = 1, value=None) -> None:
        """An effect outside the engine's actions (a card effect the players apply, a
        lesson's set-up) gives ``model`` ``n`` markers of the condition ``name`` (p.43-45),
        as the engine's own effects do (:func:`sim.rules.conditions.gain_condition`):
        immunities respected, Berserk brings an Impetuous marker, Frightened keeps the
        highest TN (``value``), Controlled turns the model to the other side. Recorded as
        one ``position`` event (:meth:`set_position`).

        Raises:
            GameError: no such model; :class:`~sim.rules.conditions.ConditionError` for
                an unknown condition.
        """
        m = self.state.models.get(model)
        if m is None:
            raise GameError(f"no model {model!r} on the table")
        new = conditions.gain_condition(conditions.from_model(m), name, n, value=value, immune=self._immunities(model))
        self._edit(self._condition_events(model, new))

    def wound(self, model: str, n: int) -> None:
        """An effect outside the engine's actions deals ``n`` wounds to ``model`` (p.38):
        it is killed when no box is left. Recorded as one ``position`` event
        (:meth:`set_position`).

        Raises:
            GameError: no such model.
        """
        if model not in self.state.models:
            raise GameError(f"no model {model!r} on the table")
        events = [Event("wounds", {"model": model, "n": n})] if n > 0 else []
        m = self.state.models[model]
        if n > 0 and min(m.wounds, m.damage + n) >= m.wounds:
            events.append(Event("killed", {"model": model}))
        self._edit(events)

    def _edit(self, events: list[Event]) -> None:
        """The state after ``events``, set as one ``position`` event."""
        st = copy.deepcopy(self.state)
        for ev in events:
            apply_event(st, ev)
        self.set_position(compact_position(st, self._base))

    # ---------------------------------------------------------------- turn
    def _start_turn(self) -> None:
        st = self.state
        turn = st.turn + 1
        self._emit(Event("turn", {"turn": turn}))
        self._scenario_start()
        kind, x = self.length
        if kind == "variable" and turn >= x:
            roll = self._roller.roll(1)[0]
            self._emit(Event("game_length", {"roll": roll, "last": roll >= 4 or turn >= MAX_TURNS}))
        elif (kind == "fixed" and turn >= x) or turn >= MAX_TURNS:
            self._emit(Event("game_length", {"roll": None, "last": True}))
        # Ki generation (p.20 step 2): none with Spirit Block, which then loses a marker
        self._emit(Event("ki", {"gains": {m.id: (m.ki_stat if conditions.generates_ki(conditions.from_model(m)) else 0)
                                          for m in st.alive()}}))
        for m in st.alive():
            if "spirit_block" in m.conditions:
                self._set_conditions(m.id, conditions.remove_condition(conditions.from_model(m), "spirit_block", 1))
        self._emit(Event("counters", {"n": 2}))
        self._starting_phase_effects()
        res = tactical_test(self._roller)
        # the winner chooses who acts first; a simple, fixed choice: the winner does
        self._emit(Event("tactical", {"winner": res.winner, "first": res.winner,
                                      "rolls": [[r1.final, r2.final] for r1, r2 in res.rounds]}))
        n1, n2 = len(st.alive(1)), len(st.alive(2))
        self._emit(Event("pass_tokens", {"tokens": {"1": max(0, n2 - n1), "2": max(0, n1 - n2)}}))
        self._emit(Event("phase", {"phase": "main"}))
        self._next_active(st.first, first=True)

    def _starting_phase_effects(self) -> None:
        """Step 5 of the Starting phase (p.20, p.43-45): Diseased removes a marker and an
        activation counter; a model with Death Sentence pays 3 Ki to remove a marker when
        it can (the engine always pays: keeping the marker only helps the enemy)."""
        for m in self.state.alive():
            eff = conditions.start_phase_effects(conditions.from_model(m), ki=m.ki)
            if eff.counters_lost:
                self._emit(Event("note", {"text": f"{m.id} is Diseased: one marker and one activation counter removed"}))
                self._emit(Event("counter", {"model": m.id, "n": eff.counters_lost}))
                self._set_conditions(m.id, conditions.remove_condition(conditions.from_model(m), "diseased", 1))
            if eff.death_sentence_option:
                self._emit(Event("ki_change", {"model": m.id, "delta": -conditions.DEATH_SENTENCE_REMOVAL_COST}))
                self._emit(Event("note", {"text": f"{m.id} pays 3 Ki to remove a Death Sentence marker"}))
                self._set_conditions(m.id, conditions.remove_condition(conditions.from_model(m), "death_sentence", 1))

    def _next_active(self, preferred: int, first: bool = False) -> None:
        """Make ``preferred`` active if it can act, else the other player; if neither
        can, play the End phase (p.21, Main phase step 6-7)."""
        st = self.state
        other = 3 - preferred
        for p in (preferred, other):
            if st.can_activate(p):
                if st.active != p or first:
                    self._emit(Event("active", {"player": p}))
                return
        self._end_phase()

    def _end_phase(self) -> None:
        st = self.state
        self._emit(Event("phase", {"phase": "end"}))
        # step 1, negative effects first: a Frightened model re-takes its Fear test (p.44)
        from sim.rules.dice import fear_test

        for m in st.alive():
            for name, tn in conditions.end_phase_tests(conditions.from_model(m)):
                res = fear_test(m.ki_stat, tn, self._roller, fearless=self._trait(m.id, "fearless")[0],
                                bravery=self._trait(m.id, "bravery")[0])
                self._emit(Event("test", {"model": m.id, "test": "fear", "tn": tn, "passed": res.passed,
                                          "text": f"{m.id} re-takes its Fear test (TN {tn}) and "
                                                  f"{'passes: no longer Frightened' if res.passed else 'fails'}"}))
                if res.passed:
                    self._emit(Event("condition", {"model": m.id, "name": "frightened", "on": False}))
        # damaging conditions (p.43-45): Bleed, Poisoned, On Fire -- remove the highest
        # marker and take that many wounds; repeat while three or more remain
        for m in st.alive():
            for kind in ("fire", "bleed", "poison"):
                values = sorted(m.markers.get(kind, []), reverse=True)
                if not values:
                    continue
                removed = [values.pop(0)]
                while len(values) >= 3:
                    removed.append(values.pop(0))
                self._emit(Event("marker_damage", {"model": m.id, "marker": kind, "removed": removed,
                                                   "wounds": sum(removed)}))
                if not st.models[m.id].alive:
                    self._emit(Event("note", {"text": f"{m.id} dies of its {kind} markers"}))
                    break
        # expiry (p.21 step 3): one-turn markers, and Berserk, Blind, one Stunned (p.43-45)
        for m in st.alive():
            for name in [c for c in m.conditions if c in ("surprised", "ran", "shot", "stood_up")]:
                self._emit(Event("condition", {"model": m.id, "name": name, "on": False}))
            cs = conditions.from_model(m)
            for name, n in conditions.end_phase_expiry(cs).items():
                count = m.conditions.get(name, 1)
                if not isinstance(count, int) or n is None or count - n <= 0:
                    self._emit(Event("condition", {"model": m.id, "name": name, "on": False}))
                else:
                    self._emit(Event("condition", {"model": m.id, "name": name, "on": True, "value": count - n}))
        if st.auras or any(u["turn"] for u in st.feat_usage.values()):
            self._emit(Event("end_phase_reset", {}))
        alive1, alive2 = st.alive(1), st.alive(2)
        # step 4: the scenario scores; the game ends on the last turn, once all 3 VP are
        # scored, or when a side has no models left
        last = not alive1 or not alive2 or st.last_turn or (self.length[0] == "fixed" and st.turn >= self.length[1])
        if self._scenario_end(last) or last:
            self._finish()
            return
        self._start_turn()

    def _finish(self) -> None:
        st = self.state
        sc = self.scenario_state()
        if sc is not None:
            from sim.rules.scenario import final_result

            winner, text = final_result(sc)
            self._emit(Event("game_over", {"result": text, "turn": st.turn, "winner": winner,
                                           "vp": {"1": sc.vp.get(1, 0), "2": sc.vp.get(2, 0)}}))
            return
        a1, a2 = len(st.alive(1)), len(st.alive(2))
        s1, s2 = st.scores[1], st.scores[2]
        if s1 != s2:
            result = f"player {1 if s1 > s2 else 2} wins on scenario points ({s1}-{s2})"
        elif a1 != a2:
            result = f"player {1 if a1 > a2 else 2} wins with more models left ({a1}-{a2})"
        else:
            result = "draw"
        self._emit(Event("game_over", {"result": result, "turn": st.turn}))

    # -------------------------------------------------------------- queries
    def is_over(self) -> bool:
        """True once the End phase of the last turn has been played."""
        return self.state.phase == "over"

    def to_move(self) -> int | None:
        """The player who must decide now: while a melee exchange waits for allocations,
        the owner of the first model of the exchange that has not allocated (attacker
        first); otherwise the active player. None once the game is over."""
        st = self.state
        if self.is_over():
            return None
        ex = st.exchange
        if ex is not None:
            for mid in (ex["attacker"], ex["defender"]):
                if mid not in ex["allocations"]:
                    return st.models[mid].player
        if st.interception is not None:
            return st.models[st.interception["target"]].player
        return st.active

    def legal_actions(self, samples: int = 8) -> list[Action]:
        """The legal actions of the active player now.

        Continuous choices (where to Walk or Run) are offered as a finite sample: up to
        ``samples`` directions at full and half Move, each checked by the movement
        service; :meth:`is_legal` judges any other action. Pass is offered while the
        player has pass tokens.
        """
        st = self.state
        if self.is_over() or st.active is None:
            return []
        if st.exchange is not None:
            return self._allocation_actions()
        if st.interception is not None:
            return [Action("intercept")] + [Action("intercept", target=c) for c in st.interception["candidates"]]
        p = st.active
        out: list[Action] = []
        table = self._table_now()
        for m in st.alive(p):
            if m.exhausted or st.impetuous_blocks(m):
                continue
            if "prone" in m.conditions:  # Prone: Stand Up is its only action (p.44)
                out.append(Action("stand_up", m.id))
                continue
            if "berserk" in m.conditions:
                kind, target, pt = self.berserk_forced(m.id)
                if kind is not None:
                    a = Action(kind, m.id, target=target if kind != "run" else None, point=pt)
                    if self.is_legal(a)[0]:
                        out.append(a)
                        continue
            if "held" in m.conditions:
                for e in st.alive(3 - p):
                    a = Action("disengage", m.id, target=e.id)
                    if self.is_legal(a)[0]:
                        out.append(a)
                out.extend(self.feat_actions(m.id))
                continue
            out.extend(self.feat_actions(m.id))
            out.extend(self.scenario_actions(m.id))
            out.append(Action("wait", m.id))
            if m.counters >= 2:
                out.append(Action("focus", m.id))
            try:
                mover = movement.Mover(table, m.id)
            except movement.MoveError:
                continue
            for i in range(samples):
                ang = 2 * math.pi * i / samples
                for frac in (1.0, 0.5):
                    d = mover.move * frac
                    pt = (m.position[0] + d * math.cos(ang), m.position[1] + d * math.sin(ang))
                    if movement.check_walk(table, m.id, [pt]).legal:
                        out.append(Action("walk", m.id, point=pt))
                    rp = (m.position[0] + 1.5 * d * math.cos(ang), m.position[1] + 1.5 * d * math.sin(ang))
                    if frac == 1.0 and movement.check_run(table, m.id, rp).legal:
                        out.append(Action("run", m.id, point=rp))
            if m.counters >= 2:
                for e in self.charge_candidates(m.id):
                    res = self.charge(m.id, e.id)
                    if res.legal and res.reached:
                        out.append(Action("charge", m.id, target=e.id))
            for e in st.alive(3 - p):
                tm, te = table.model(m.id), table.model(e.id)
                if math.dist(tm.position, te.position) - tm.radius - te.radius <= (tm.move or 0) + 1e-9:
                    if self.is_legal(Action("melee", m.id, target=e.id))[0]:
                        out.append(Action("melee", m.id, target=e.id))
                if self.ranged_weapon(m.id, None) is not None and self._can_shoot(m.id, e.id, None)[0]:
                    out.append(Action("shoot", m.id, target=e.id))
                if math.dist(tm.position, te.position) - tm.radius - te.radius <= movement.CONTACT + 1e-9:
                    if self.is_legal(Action("disengage", m.id, target=e.id))[0]:
                        out.append(Action("disengage", m.id, target=e.id))
        if st.pass_tokens.get(p, 0) > 0:
            out.append(Action("pass"))
        if not out:  # a model must activate but can declare nothing legal (e.g. Held and
            # Aggressive): its declared Wait is refused and costs one counter (p.24)
            ready = [m for m in st.alive(p) if not m.exhausted and not st.impetuous_blocks(m)]
            if ready:
                out.append(Action("wait", ready[0].id))
        return out

    def feat_actions(self, mid: str) -> list[Action]:
        """The automated Ki feats model ``mid`` may use now (:data:`AUTOMATED_FEATS`,
        p.46-47), with their targets in range: Target feats at enemies (Spirit Bolt, Mind
        Clash), Inner Calm only when Stunned, Warding Presence with a friend in its Aura,
        Shockwave with X = 1 when an enemy stands in its Pulse."""
        m = self.state.models[mid]
        out: list[Action] = []
        feats = {k: f for k, f in self.feats(m.id).items() if k in self.AUTOMATED_FEATS}
        if not feats:
            return out
        scene = self._table_now().scene()
        for f in feats.values():
            kind = f.action_kind or "feat"
            if kind == "complex_ki_feat" and m.counters < 2:
                continue
            if f.area == "target":
                cands = [Action(kind, m.id, feat=f.name, target=e.id) for e in self.state.alive(3 - m.player)
                         if scene.distance(m.id, e.id) <= f.range + 1e-6]
            elif f.name == "Inner Calm":
                cands = [Action(kind, m.id, feat=f.name)] if "stunned" in m.conditions else []
            elif f.area == "aura":
                friends = [x for x in self.state.alive(m.player) if x.id != m.id and scene.distance(m.id, x.id) <= f.range]
                cands = [Action(kind, m.id, feat=f.name)] if friends else []
            elif f.area == "pulse":
                foes = [e for e in self.state.alive(3 - m.player) if scene.distance(m.id, e.id) <= f.range + 1e-6]
                cands = [Action(kind, m.id, feat=f.name, x=1 if f.variable else None)] if foes else []
            else:
                cands = [Action(kind, m.id, feat=f.name)]
            out.extend(a for a in cands if self.is_legal(a)[0])
        return out

    def _allocation_actions(self) -> list[Action]:
        """Every split of the pool of the next model to allocate (:meth:`to_move`) into
        attack and defence dice (no special); a model that already allocated is not
        offered again."""
        from sim.rules.melee import Allocation, MeleeError, validate_allocation

        ex = self.state.exchange
        out = []
        for mid, pool in self.exchange_pools().items():
            if mid in ex["allocations"]:
                continue
            if out:  # one model at a time: the one whose player is to move
                break
            comb = self.combatant(mid, mid == ex["attacker"], ex["charge"] and mid == ex["attacker"])
            n = max(pool, 0)
            for k in range(n + 1):
                try:
                    validate_allocation(comb, pool, Allocation(k, n - k))
                except MeleeError:
                    continue
                out.append(Action("allocate", mid, attack=k, defence=n - k))
        return out

    def _reload_weapon(self, mid: str, action: Action) -> bool:
        """Whether a shoot action uses a weapon with Reload (X) (blocked while Reloading)."""
        if action.kind != "shoot":
            return False
        w = self.ranged_weapon(mid, action.weapon)
        return bool(w) and any(t.lower().startswith("reload") for t in w.traits)

    def charge_candidates(self, mid: str) -> list[ModelState]:
        """The enemies a Charge of model ``mid`` could reach at all (p.24): base edges
        within 2 x Move + 2" (the bonus of Ideal terrain) now."""
        m = self.state.models[mid]
        table = self._table_now()
        tm = table.model(m.id)
        reach = 2 * (tm.move or 0) + movement.IDEAL_BONUS
        out = []
        for e in self.state.alive(3 - m.player):
            te = table.model(e.id)
            if math.dist(tm.position, te.position) - tm.radius - te.radius <= reach + 1e-9:
                out.append(e)
        return out

    def random_action(self, rng, tries: int = 12) -> Action:
        """A random legal action of the active player (for the random bot): a random
        model that can act, a random kind, random geometry, checked by :meth:`is_legal`;
        Wait when nothing else is found."""
        st = self.state
        if st.exchange is not None or st.interception is not None:
            return rng.choice(self.legal_actions())
        p = st.active
        ready = [m for m in st.alive(p) if not m.exhausted]
        if st.pass_tokens.get(p, 0) > 0 and rng.random() < 0.1:
            return Action("pass")
        m = rng.choice(ready)
        if "prone" in m.conditions:
            return Action("stand_up", m.id)
        table = self._table_now()
        move = table.model(m.id).move or 0
        if "berserk" in m.conditions or "held" in m.conditions or st.impetuous_blocks(m):
            forced = [a for a in self.legal_actions() if a.model == m.id] or self.legal_actions()
            return rng.choice(forced) if forced else Action("pass")
        if rng.random() < 0.15:
            feats = self.feat_actions(m.id)
            if feats:
                return rng.choice(feats)
        if self.scenario is not None and rng.random() < 0.6:
            acts = self.scenario_actions(m.id)
            if acts:
                return rng.choice(acts)
        for _ in range(tries):
            kind = rng.choice(["walk", "walk", "run", "charge", "melee", "shoot", "focus", "wait"])
            if kind in ("melee", "shoot"):
                foes = st.alive(3 - p)
                if not foes:
                    continue
                a = Action(kind, m.id, target=min(foes, key=lambda e: math.dist(e.position, m.position)).id)
            elif kind == "charge":
                cands = self.charge_candidates(m.id)
                if not cands or m.counters < 2:
                    continue
                a = Action("charge", m.id, target=rng.choice(cands).id)
            elif kind in ("walk", "run"):
                ang = rng.uniform(0, 2 * math.pi)
                d = rng.uniform(0.3, 1.0) * move * (1.5 if kind == "run" else 1.0)
                a = Action(kind, m.id, point=(m.position[0] + d * math.cos(ang), m.position[1] + d * math.sin(ang)))
            else:
                a = Action(kind, m.id)
            ok, _ = self.is_legal(a)
            if ok and (kind != "charge" or self.charge(m.id, a.target).reached):
                return a
        return Action("wait", m.id)

    def is_legal(self, action: Action) -> tuple[bool, str]:
        """Whether ``action`` may be declared now, and why not (memoised until the state
        changes: a bot's check and the declaration share one verdict)."""
        key = (len(self.events), "legal", action)
        got = self._memo.get(key)
        if got is None:
            got = self._memo[key] = self._is_legal(action)
        return got

    def _is_legal(self, action: Action) -> tuple[bool, str]:
        st = self.state
        if self.is_over():
            return False, "the game is over"
        if action.kind == "intercept":
            ic = st.interception
            if ic is None:
                return False, "no shot is waiting for an interceptor"
            if action.target is not None and action.target not in ic["candidates"]:
                return False, (f"{action.target!r} cannot intercept (conditions I-III, p.30); may: "
                               + ", ".join(ic["candidates"]))
            return True, ""
        if st.interception is not None:
            return False, "a shot waits for the target's player to assign an interceptor (or none)"
        if action.kind == "pass":
            return (st.pass_tokens.get(st.active, 0) > 0, "no pass tokens left")
        m = st.models.get(action.model or "")
        if m is None or not m.alive:
            return False, f"no model {action.model!r} on the table"
        if action.kind == "allocate":
            problem, _ = self._allocation_check(action)
            return problem is None, problem or ""
        if action.kind == "feat":  # Instant/Active feats: no action, no counter (p.46)
            if m.player != self.to_move():
                return False, f"{m.id}'s player is not the one to decide now"
            return self._feat_legal(m, action)
        if st.exchange is not None:
            return False, "a melee exchange is waiting for allocations"
        if m.player != st.active:
            return False, f"{m.id} is not the active player's model"
        if m.exhausted:
            return False, f"{m.id} is Exhausted (no activation counters)"
        if action.counters > m.counters:
            return False, f"{action.kind} is a complex action and {m.id} has only one counter"
        if st.impetuous_blocks(m):
            return False, "Impetuous: a model of the warband has an Impetuous marker, so only such models activate (p.44)"
        prone = "prone" in m.conditions
        forced = self.berserk_forced(m.id) if "berserk" in m.conditions else (None, None, None)
        why = conditions.forbidden_reason(action.kind, conditions.from_model(m), counters=m.counters,
                                          weapon_has_reload=self._reload_weapon(m.id, action),
                                          contacts_fear_enemy=action.kind in ("melee", "charge") and self._fear_enemy(action.target),
                                          berserk_forced=forced[0])
        if why:
            return False, why
        if forced[0] in ("melee", "charge") and action.target != forced[1]:
            return False, f"Berserk: it must attack the closest enemy, {forced[1]} (p.43)"
        if action.kind in ("melee", "charge", "shoot"):
            req = self._disguise(m, action.target)
            if req and req[0] == "forbidden":
                return False, f"{action.target} is Disguised and {m.id}'s Ki is 1 or less (p.44)"
        if action.boost:
            from sim.rules.ki import KiError

            try:
                self.ki_boost(action)
            except KiError as exc:
                return False, str(exc)
        if action.kind in ("ki_feat", "complex_ki_feat"):
            return self._feat_legal(m, action)
        if action.kind in ("scenario", "complex_scenario"):
            why = self.scenario_refusal(m, action)
            return why is None, why or ""
        if action.kind == "stand_up" and not prone:
            return False, f"{m.id} is not Prone"
        table = self._table_now()
        if action.kind in ("walk", "run") and action.boost:
            table = self._boosted_table(m.id, action.boost)
        if action.kind == "walk":
            res = movement.check_walk(table, m.id, list(action.path) or [action.point], facing=action.facing)
            return _verdict(res)
        if action.kind == "run":
            res = movement.check_run(table, m.id, action.point)
            return _verdict(res)
        if action.kind == "charge":
            try:
                res = self.charge(m.id, action.target, boost=action.boost or 0)
            except movement.MoveError as exc:
                return False, str(exc)
            return _verdict(res)
        if action.kind == "melee":
            if action.target not in st.models or not st.models[action.target].alive or st.models[action.target].player == m.player:
                return False, f"{action.target!r} is not an enemy on the table"
            try:
                res = self._melee_move(m.id, action.target)
            except movement.MoveError as exc:
                return False, str(exc)
            return _verdict(res)
        if action.kind == "disengage":
            e = st.models.get(action.target or "")
            if e is None or not e.alive or e.player == m.player:
                return False, f"{action.target!r} is not an enemy on the table"
            tm, te = table.model(m.id), table.model(e.id)
            if math.dist(tm.position, te.position) - tm.radius - te.radius > movement.CONTACT + 1e-9:
                return False, f"{m.id} is not in base contact with {e.id}"
            if self._trait(m.id, "aggressive")[0]:
                return False, f"{m.id} is Aggressive: it cannot put as many dice in defence as in attack (p.24)"
            if action.point is not None:
                res = self._disengage_walk_check(m.id, table, action.point)
                if not res.legal:
                    return False, "the Walk after disengaging: " + "; ".join(r.message for r in res.reasons)
            return True, ""
        if action.kind == "shoot":
            if action.walk not in (None, "before", "after"):
                return False, f"walk must be 'before' or 'after', not {action.walk!r}"
            if action.walk is not None:
                res = movement.check_walk(table, m.id, [action.point])
                if not res.legal:
                    return False, "the declared Walk: " + "; ".join(r.message for r in res.reasons)
                if action.walk == "before":
                    return self._can_shoot(m.id, action.target, action.weapon, at=res.end)
            return self._can_shoot(m.id, action.target, action.weapon)
        if action.kind in ("focus", "wait", "stand_up"):
            return True, ""
        return False, f"unknown action {action.kind!r}"

    # ---------------------------------------------------------------- push/pop
    def push(self, action: Action) -> list[Event]:
        """Declare and resolve ``action`` for the active player; returns its events.

        A declared action that proves illegal reverts the model and costs one counter
        (p.24).

        Raises:
            GameError: the game is over, or the action names no model of the active player.
        """
        st = self.state
        if self.is_over():
            raise GameError("the game is over")
        start = len(self.events)
        self._marks.append(start)
        self._dice_marks.append(self._dice.state() if hasattr(self._dice, "state") else None)
        self._actions.append(action)
        self._rolls.append([])
        p = st.active
        if action.kind == "allocate":
            self._allocate(action)
            return self.events[start:]
        if action.kind == "intercept":
            ok, why = self.is_legal(action)
            if not ok:
                self._unmark()
                raise GameError(why)
            ic = dict(st.interception)
            self._emit(Event("intercept", {"chosen": action.target}))
            shooter = st.models[ic["attacker"]]
            self._shoot(ic["attacker"], ic["target"], ic["weapon"], moved=ic["moved"], boost=ic["boost"],
                        interceptor=action.target or "")
            self._walk_after_shot(shooter.id, ic["walk_after"])
            self._after_action()
            if not self.is_over():
                self._next_active(3 - shooter.player)
            return self.events[start:]
        if action.kind == "feat":  # an Instant or Active feat: no activation, no counter
            ok, why = self.is_legal(action)
            if not ok:
                self._unmark()
                raise GameError(f"{action.feat!r} cannot be used now: {why}")
            self._emit(Event("note", {"text": f"player {st.models[action.model].player}: {action.model} uses {action.feat}"}))
            self._use_feat(st.models[action.model], action)
            self._after_action()
            return self.events[start:]
        if st.exchange is not None or st.interception is not None:
            self._unmark()
            raise GameError("a melee exchange is waiting for allocations" if st.exchange is not None
                            else "a shot waits for the target's player to assign an interceptor (or none)")
        if action.kind == "pass":
            if st.pass_tokens.get(p, 0) <= 0:
                self._unmark()
                raise GameError(f"player {p} has no pass tokens")
            self._emit(Event("pass", {"player": p}))
        else:
            m = st.models.get(action.model or "")
            if m is None or m.player != p or not m.alive or m.exhausted:
                self._unmark()
                raise GameError(f"{action.model!r} cannot be activated by player {p} now")
            self._emit(Event("activate", {"player": p, "model": m.id, "action": str(action)}))
            ok, why = self.is_legal(action)
            spent = 1
            if not ok:
                self._emit(Event("note", {"text": f"illegal action ({why}): reverted, one counter lost"}))
                self._emit(Event("counter", {"model": m.id, "n": 1}))
            else:
                spent = action.counters
                if self._before_resolve(m, action):
                    self._resolve(action)
                if st.models[m.id].alive:
                    self._emit(Event("counter", {"model": m.id, "n": action.counters}))
            if st.models[m.id].alive and "impetuous" in st.models[m.id].conditions:
                self._set_conditions(m.id, conditions.impetuous_after_action(conditions.from_model(st.models[m.id]), spent))
            self._after_action()
        if not self.is_over() and st.exchange is None and st.interception is None:
            self._next_active(3 - p)
        return self.events[start:]

    def _before_resolve(self, m: ModelState, action: Action) -> bool:
        """What happens between declaring and resolving an action: Disguised markers lost
        or seen through, the Immobilised Size test, Ki boosts paid. False: the action ends
        as completed without effect (a failed test, p.44)."""
        if "disguised" in m.conditions and conditions.disguise_lost_by(action.kind):
            self._emit(Event("condition", {"model": m.id, "name": "disguised", "on": False}))
        if action.kind in ("melee", "charge", "shoot"):
            req = self._disguise(m, action.target)
            if req and req[0] == "ki_test" and not self._disguise_test(m, action.target, req[1]):
                return False
        if not self._immobilised_test(m, action):
            return False
        surprised = self.surprised_target(action)
        if surprised:
            self._emit(Event("condition", {"model": surprised, "name": "surprised", "on": True}))
            self._emit(Event("note", {"text": f"{surprised} is Surprised: it never saw {m.id} coming (p.31)"}))
        if action.boost and action.kind not in ("ki_feat", "complex_ki_feat"):  # a feat pays its own
            stat, b = self.ki_boost(action)
            self._emit(Event("boost", {"model": m.id, "stat": stat, "steps": action.boost, "cost": b.cost}))
        return True

    def _after_action(self) -> None:
        """Checks after every action: Surprised ends with the action (an exchange ends it
        when it resolves); Held ends out of BtB with the holder (p.44)."""
        if self.state.exchange is None and self.state.interception is None:
            self._end_surprise()
        if any("held" in x.conditions for x in self.state.alive()):
            self._release_held()

    def _resolve(self, action: Action) -> None:
        st = self.state
        m = st.models[action.model]
        table = self._table_now()
        if action.kind in ("walk", "run") and action.boost:
            table = self._boosted_table(m.id, action.boost)
        if action.kind == "walk":
            res = movement.check_walk(table, m.id, list(action.path) or [action.point], facing=action.facing)
            self._move(m.id, res)
        elif action.kind == "run":
            res = movement.check_run(table, m.id, action.point)
            self._move(m.id, res)
            self._emit(Event("condition", {"model": m.id, "name": "ran", "on": True}))
        elif action.kind in ("scenario", "complex_scenario"):
            self._scenario_action(m, action)
        elif action.kind in ("ki_feat", "complex_ki_feat"):
            if action.walk == "before":
                self._move(m.id, movement.check_walk(table, m.id, [action.point]))
            self._use_feat(self.state.models[m.id], action)
            if action.walk == "after" and self.state.models[m.id].alive:
                res = movement.check_walk(self._table_now(), m.id, [action.point])
                if res.legal:
                    self._move(m.id, res)
                else:
                    self._emit(Event("note", {"text": "the declared Walk after the feat is no longer legal: no move"}))
        elif action.kind == "charge":
            res = self.charge(m.id, action.target, boost=action.boost or 0)
            self._move(m.id, res)
            if res.reached and self._fear_on_contact(m.id, action.target):
                self._emit(Event("exchange_open", {"attacker": m.id, "defender": action.target, "charge": True}))
        elif action.kind == "melee":
            res = self._melee_move(m.id, action.target)
            self._move(m.id, res)
            if self._fear_on_contact(m.id, action.target):
                self._emit(Event("exchange_open", {"attacker": m.id, "defender": action.target, "charge": False}))
        elif action.kind == "disengage":
            self._emit(Event("exchange_open", {"attacker": m.id, "defender": action.target, "charge": False,
                                               "disengage": m.id,
                                               "point": list(action.point) if action.point is not None else None}))
        elif action.kind == "shoot":
            walked = action.walk is not None
            if action.walk == "before":
                self._move(m.id, movement.check_walk(table, m.id, [action.point]))
            after = list(action.point) if action.walk == "after" else None
            if self._shoot(m.id, action.target, action.weapon, moved=walked, boost=action.boost or 0,
                           walk_after=after):
                self._walk_after_shot(m.id, after)
        elif action.kind == "focus":
            self._emit(Event("ki_change", {"model": m.id, "delta": min(m.ki_stat, m.ki_limit - m.ki)}))
        elif action.kind == "stand_up":
            self._emit(Event("condition", {"model": m.id, "name": "prone", "on": False}))
            # an exchange later this turn: -1 Melee, normal Initiative (p.36, p.45)
            self._emit(Event("condition", {"model": m.id, "name": "stood_up", "on": True}))
        elif action.kind == "wait":
            opts = conditions.removed_by_wait(conditions.from_model(m))
            if opts:
                chosen = next((o for o in opts if o.key == action.special), opts[0])
                before = conditions.from_model(m)
                after = conditions.apply_wait(before, chosen)
                for name in before:
                    if name in ("fire", "on_fire", "bleed", "poison"):
                        continue
                    if name not in after:
                        self._emit(Event("condition", {"model": m.id, "name": name, "on": False}))
                    elif after[name] != before[name] and isinstance(after[name], int):
                        self._emit(Event("condition", {"model": m.id, "name": name, "on": True, "value": after[name]}))
                fire_before = sorted(m.markers.get("fire", []), reverse=True)
                fire_after = after.get("on_fire", after.get("fire", fire_before))
                if isinstance(fire_after, list) and len(fire_after) < len(fire_before):
                    removed = list(fire_before)
                    for v in fire_after:
                        removed.remove(v)
                    self._emit(Event("marker_damage", {"model": m.id, "marker": "fire", "removed": removed, "wounds": 0}))

    # ------------------------------------------------------------ scenario (p.63)
    def scenario_state(self):
        """The scenario's :class:`~sim.rules.scenario.ScenarioState` now, or None."""
        from sim.rules.scenario import ScenarioState

        if self.scenario is None or self.state.scenario is None:
            return None
        key = (len(self.events), "scenario_state")
        got = self._memo.get(key)
        if got is None:
            got = self._memo[key] = ScenarioState.from_json(self.state.scenario)
        return got

    def _objective_pieces(self) -> tuple:
        """The objectives still on the table as Impassable, Blocking terrain pieces."""
        from sim.rules.scenario import objective_pieces

        if self.scenario is None:
            return ()
        return tuple(objective_pieces(self.scenario, self.scenario_state()))

    def _default_vims(self) -> dict:
        """Each side's VIM: the legal model (``vim_refusal``) with the highest rice."""
        from sim.rules.scenario import vim_refusal

        out = {}
        kind = self.scenario.vim
        for side in (1, 2):
            best = None
            for tm in self.table.models:
                if tm.player != side:
                    continue
                prof = self.profile(tm.id)
                types = prof.types if prof else ()
                traits = [t.keyword for t in prof.traits] if prof else tm.traits
                if vim_refusal(kind, types, traits) is None:
                    rice = (prof.rice or 0) if prof else 0
                    if best is None or rice > best[0]:
                        best = (rice, tm.id)
            out[side] = best[1] if best else None
        return out

    def _setup_scenario(self) -> None:
        """Set-up (p.21 steps 2-3): the objectives are placed, VIMs chosen, the scenario
        state starts. Objectives overlapping terrain or a model are refused."""
        st, notes = self._scenario_initial()
        self._emit(Event("scenario", {"state": st.to_json(), "notes": notes}))

    def _scenario_initial(self):
        """The scenario's initial state and the set-up notes (``(ScenarioState, [str])``),
        after checking that it fits the table and that the VIMs belong to their sides.

        Raises:
            GameError: objectives overlapping terrain or a model, a VIM of the wrong side.
        """
        from sim.rules import scenario as scen

        problems = scen.check_against_table(self.scenario, self.table)
        if problems:
            raise GameError(f"scenario {self.scenario.name!r} does not fit the table {self.table.name!r}: "
                            + "; ".join(i.message for i in problems))
        vims = None
        if self.scenario.vim:
            vims = self._vims or self._default_vims()
            for side, mid in vims.items():
                if mid is not None and (mid not in self.state.models or self.state.models[mid].player != int(side)):
                    raise GameError(f"VIM of player {side}: {mid!r} is not a model of that player")
        try:
            st = scen.initial_state(self.scenario, vims)
        except scen.ScenarioError as exc:
            raise GameError(str(exc)) from None
        notes = [f"Scenario: {self.scenario.name}"] + scen.describe(self.scenario)
        if vims and self.scenario.vim == "hidden":
            notes.append("VIMs: chosen in secret (revealed in the End phase of the last turn)")
        elif vims:
            notes.append("VIMs: " + ", ".join(f"player {k}: {v or 'none (counts as killed)'}" for k, v in sorted(vims.items())))
        return st, notes

    def _scenario_update(self, new, notes) -> None:
        self._emit(Event("scenario", {"state": new.to_json(), "notes": list(notes)}))

    def _scenario_start(self) -> None:
        from sim.rules.scenario import start_phase

        st = self.scenario_state()
        if st is None:
            return
        new, notes = start_phase(self.scenario, st, self.state.turn)
        if new != st:
            self._scenario_update(new, notes)

    def _scenario_end(self, last_turn: bool) -> bool:
        """End phase step 4 (p.21): score the scenario. True: the game is over."""
        from sim.rules.scenario import end_phase

        st = self.scenario_state()
        if st is None:
            return False
        table = self._table_now()
        models = []
        for m in self.state.alive():
            tm = table.model(m.id)
            prof = self.profile(m.id)
            models.append((m.player, tm.position, tm.radius, (prof.rice or 0) if prof else 0))
        killed = [m.id for m in self.state.models.values() if not m.alive]
        new, notes, over = end_phase(self.scenario, st, self.state.turn, last_turn, models, killed)
        self._scenario_update(new, notes)
        return over

    def scenario_refusal(self, m: ModelState, action: Action) -> str | None:
        """Why ``m`` may not take the Scenario ``action`` now (lines 688, 715), or None:
        the model must be in contact with the objective and neither in contact with nor
        in the ZoC of an enemy; Aloof and Stupid models take no Scenario actions; then
        :func:`~sim.rules.scenario.interaction_refusal`."""
        from sim.rules import scenario as scen

        st = self.scenario_state()
        if st is None:
            return "no scenario is being played"
        if self._trait(m.id, "aloof")[0] or self._trait(m.id, "stupid")[0]:
            return f"{m.id} is {'Aloof' if self._trait(m.id, 'aloof')[0] else 'Stupid'}: no Scenario actions (p.48-59)"
        try:
            obj = self.scenario.objective(action.objective or "")
        except (KeyError, scen.ScenarioError):
            return f"no objective {action.objective!r} (has: {', '.join(o.id for o in self.scenario.objectives)})"
        table = self._table_now()
        tm = table.model(m.id)
        if not scen.in_contact_with_objective(tm.position, tm.radius, obj):
            return f"{m.id} is not in contact with the objective {obj.id} (p.25)"
        scene = table.scene()
        for e in self.state.alive(3 - m.player):
            if scene.distance(m.id, e.id) <= movement.CONTACT + 1e-9:
                return f"{m.id} is in contact with the enemy {e.id} (p.25)"
            if scene.distance(e.id, m.id) <= 1.0 + 1e-9 and scene.zoc(e.id, m.id).in_zoc:
                return f"{m.id} is in the ZoC of the enemy {e.id} (p.25)"
        kind = action.special or (self.scenario.interactions[0].kind if self.scenario.interactions else "")
        return scen.interaction_refusal(self.scenario, st, m.player, obj.id, kind, model_id=m.id,
                                        action="complex" if action.kind == "complex_scenario" else "simple")

    def _scenario_action(self, m: ModelState, action: Action) -> None:
        """Turn to face the objective, then the interaction (p.25, p.63)."""
        from sim.rules import scenario as scen

        obj = self.scenario.objective(action.objective)
        kind = action.special or self.scenario.interactions[0].kind
        if not self._trait(m.id, "immovable")[0]:
            f = scen.facing_towards(m.position, obj)
            if abs((f - m.facing + 180) % 360 - 180) > 1e-9:
                self._emit(Event("move", {"model": m.id, "move": "turn", "to": list(m.position), "facing": f, "cost": 0.0}))
        new, notes = scen.interact(self.scenario, self.scenario_state(), m.player, obj.id, kind, model_id=m.id,
                                   action="complex" if action.kind == "complex_scenario" else "simple")
        self._scenario_update(new, notes)

    def scenario_actions(self, mid: str) -> list[Action]:
        """The Scenario actions (p.25, p.63) model ``mid`` may take now, one per objective
        it touches and interaction of the scenario."""
        m = self.state.models[mid]
        from sim.rules import scenario as scen

        st = self.scenario_state()
        if st is None:
            return []
        out = []
        table = self._table_now()
        tm = table.model(m.id)
        for obj in self.scenario.objectives:
            if obj.id in st.removed or not scen.in_contact_with_objective(tm.position, tm.radius, obj):
                continue
            for inter in self.scenario.interactions:
                kind = "complex_scenario" if inter.action == "complex" else "scenario"
                a = Action(kind, m.id, objective=obj.id, special=inter.kind)
                if self.is_legal(a)[0]:
                    out.append(a)
        return out

    # ------------------------------------------------------------ cards, conditions, Ki
    def profile(self, mid: str):
        """The profile card (:class:`models.profiles.Profile`) of model ``mid``, or None
        for a model without one. Looked up once per game (cards do not change during a
        game)."""
        from models.profiles import get_profile

        if mid in self._cards:
            return self._cards[mid]
        tm = self.table.model(mid)
        prof = None
        if tm.profile:
            try:
                prof = get_profile(tm.profile)
            except KeyError:
                prof = None
        self._cards[mid] = prof
        return prof

    def feats(self, mid: str) -> dict:
        """The Ki feats ``mid`` can use, by name (:func:`sim.rules.ki.model_feats`: its card's
        and those its table entry adds)."""
        from sim.rules import ki

        got = self._feats.get(mid)
        if got is None:
            got = self._feats[mid] = ki.model_feats(self.profile(mid), self.table.model(mid).feats)
        return got

    def _set_conditions(self, mid: str, new: dict) -> None:
        """Emit the condition events that turn the model's conditions into ``new`` (a
        mapping as :mod:`sim.rules.conditions` returns it). Markers that wound (Bleed,
        Poisoned, On Fire) and keys that are no conditions (``ran``) are left alone."""
        for ev in self._condition_events(mid, new):
            self._emit(ev)

    def _condition_events(self, mid: str, new: dict) -> list[Event]:
        """The condition events of :meth:`_set_conditions` (not emitted)."""
        m = self.state.models[mid]
        old = conditions.normalise(m.conditions)
        out = []
        for name in sorted(set(old) | set(new)):
            if name in conditions.DAMAGING:
                continue
            if name not in new:
                key = next((k for k in m.conditions if conditions.canonical(k) == name), name)
                out.append(Event("condition", {"model": mid, "name": key, "on": False}))
            elif old.get(name) != new[name]:
                out.append(Event("condition", {"model": mid, "name": name, "on": True, "value": new[name]}))
        return out

    def _immunities(self, mid: str) -> tuple[str, ...]:
        """Trait keywords and Immune [..] names that keep conditions off ``mid`` (p.43-45)."""
        prof = self.profile(mid)
        if prof is None:
            return tuple(self.table.model(mid).traits)
        out = [t.keyword for t in prof.traits]
        out += [t.qualifier for t in prof.traits if t.keyword == "immune" and t.qualifier]
        return tuple(out)

    def _gain(self, mid: str, name: str, n: int = 1, value=None) -> None:
        """``mid`` gains ``n`` markers of condition ``name`` (immunities respected)."""
        m = self.state.models[mid]
        new = conditions.gain_condition(conditions.from_model(m), name, n, value=value, immune=self._immunities(mid))
        self._set_conditions(mid, new)

    def _wound(self, mid: str, n: int) -> None:
        """``n`` wounds on ``mid``; it is killed when no box is left (p.38)."""
        if n <= 0:
            return
        self._emit(Event("wounds", {"model": mid, "n": n}))
        m = self.state.models[mid]
        if m.damage >= m.wounds:
            self._emit(Event("killed", {"model": mid}))

    BOOSTED = {"walk": "move", "run": "move", "charge": "move", "shoot": "ranged", "allocate": "melee",
               "ki_feat": "ki", "complex_ki_feat": "ki", "feat": "ki"}

    def ki_boost(self, action: Action):
        """The Ki boost ``action`` buys (p.10, p.47; :func:`sim.rules.ki.boost_stat`):
        ``(stat, Boost)``, or None when it buys none.

        Raises:
            KiError: it may not (no boost value on the card, above twice the base, not
                enough Ki, Surprised or Controlled).
        """
        from sim.rules import ki

        m = self.state.models[action.model]
        if not action.boost:
            return None
        stat = self.BOOSTED.get(action.kind)
        if stat is None:
            raise ki.KiError(f"{action.kind} takes no Ki boost")
        prof = self.profile(m.id)
        base = {"move": getattr(prof, "move", None), "ranged": getattr(prof, "ranged", None),
                "melee": getattr(prof, "melee", None), "ki": m.ki_stat}[stat]
        cost = prof.boost(stat) if prof is not None else None
        b = ki.boost_stat(base, action.boost, boost=cost, ki_available=m.ki, phase=self.state.phase,
                          surprised="surprised" in m.conditions, conditions=conditions.from_model(m))
        return stat, b

    def _boosted_table(self, mid: str, steps: int):
        """The current table with ``mid``'s Move raised by ``steps`` (a Move boost)."""
        from dataclasses import replace

        from sim.table import Table

        table = self._table_now()
        if not steps:
            return table
        models = tuple(replace(x, move=(x.move or 0) + steps) if x.id == mid else x for x in table.models)
        return Table(table.name, table.width, table.depth, table.terrain, models, table.source)

    def _closest_enemy(self, m: ModelState):
        table = self._table_now()
        tm = table.model(m.id)
        foes = self.state.alive(3 - m.player)
        if not foes:
            return None
        return min(foes, key=lambda e: (math.dist(tm.position, table.model(e.id).position) - tm.radius
                                        - table.model(e.id).radius, e.id))

    def berserk_forced(self, mid: str) -> tuple[str | None, str | None, tuple | None]:
        """The action a Berserk model must declare (p.43, :func:`~sim.rules.conditions.berserk_action`):
        ``(kind, closest enemy, run point)``; ``(None, None, None)`` when any action will do."""
        m = self.state.models[mid]
        e = self._closest_enemy(m)
        if e is None:
            return None, None, None
        key = (len(self.events), "berserk", mid)
        if key in self._memo:
            return self._memo[key]
        try:
            melee_ok = self._melee_move(mid, e.id).legal
        except movement.MoveError:
            melee_ok = False
        charge_ok = False
        if m.counters >= 2 and not melee_ok:
            try:
                res = self.charge(mid, e.id)
                charge_ok = res.legal and res.reached
            except movement.MoveError:
                pass
        run_pt = None
        if not melee_ok and not charge_ok:
            table = self._table_now()
            tm, te = table.model(mid), table.model(e.id)
            dx, dy = te.position[0] - tm.position[0], te.position[1] - tm.position[1]
            d = math.hypot(dx, dy) or 1.0
            full = 1.5 * (tm.move or 0)
            for frac in (1.0, 0.8, 0.6, 0.4, 0.2):
                step = min(full * frac, max(0.0, d - tm.radius - te.radius - 1.05))
                if step <= 0.05:
                    break
                pt = (tm.position[0] + dx / d * step, tm.position[1] + dy / d * step)
                if movement.check_run(table, mid, pt).legal:
                    run_pt = pt
                    break
        kind = conditions.berserk_action(melee_reachable=melee_ok, counters=m.counters, charge_reachable=charge_ok,
                                         can_run=run_pt is not None)
        out = (kind, e.id if kind else None, run_pt if kind == "run" else None)
        self._memo[key] = out
        return out

    def _fear_enemy(self, target: str | None) -> bool:
        return bool(target) and self._trait(target, "fear")[0]

    def _disguise(self, m: ModelState, target: str | None):
        """Disguised (p.44): ``("forbidden", X)``, ``("ki_test", X)`` or None for ``m``
        targeting ``target``."""
        if not target or target not in self.state.models:
            return None
        t = self.state.models[target]
        if t.player == m.player:
            return None
        return conditions.disguise_requirement(conditions.from_model(t), m.ki_stat)

    def _feat_legal(self, m: ModelState, action: Action) -> tuple[bool, str]:
        """May ``m`` use the feat of ``action`` now (:func:`sim.rules.ki.can_use`)?"""
        from sim.rules import ki

        f = self.feats(m.id).get(action.feat or "")
        if f is None:
            known = ", ".join(self.feats(m.id)) or "none"
            return False, f"{m.id} has no Ki feat {action.feat!r} (has: {known})"
        want = f.action_kind or "feat"
        if action.kind != want:
            return False, f"{f.name} is a {f.timing.title()} feat: declare it as {want!r}"
        if action.walk is not None and action.kind == "feat":
            return False, "only Simple and Complex Ki feat actions include a walk (p.25)"
        st = self.state
        table = self._table_now()
        scene = table.scene()
        in_btb = any(scene.distance(m.id, e.id) <= movement.CONTACT + 1e-9 for e in st.alive(3 - m.player))
        dist = None
        if f.area == "target":
            t = st.models.get(action.target or "")
            if t is None or not t.alive:
                return False, f"{f.name} needs a target model on the table"
            dist = scene.distance(m.id, t.id) if t.id != m.id else 0.0
            if self._disguise(m, t.id) and self._disguise(m, t.id)[0] == "forbidden":
                return False, f"{t.id} is Disguised and {m.id}'s Ki is 1 or less (p.44)"
        usage = st.feat_usage.get(m.id, {"turn": [], "game": []})
        spent = 0
        try:
            b = self.ki_boost(action)
            spent = b[1].cost if b else 0
        except ki.KiError as exc:
            return False, str(exc)
        ok, reasons = ki.can_use(f, m, in_btb=in_btb, moved_this_activation=action.walk is not None,
                                 used_this_turn=f.name in usage["turn"], used_this_game=f.name in usage["game"],
                                 ki_available=m.ki - spent, phase=st.phase,
                                 is_active_model=m.player == st.active and st.exchange is None,
                                 controller_is_active=m.player == st.active,
                                 target_distance=dist, surprised="surprised" in m.conditions, x=action.x,
                                 strict_range=False)
        if not ok:
            return False, "; ".join(reasons)
        if action.walk is not None:
            if action.walk not in ("before", "after"):
                return False, f"walk must be 'before' or 'after', not {action.walk!r}"
            res = movement.check_walk(table, m.id, [action.point])
            if not res.legal:
                return False, "the declared Walk: " + "; ".join(r.message for r in res.reasons)
        return True, ""

    #: Feats whose effect the engine applies (the generic feats); other feats are paid,
    #: tested and logged with their card text.
    AUTOMATED_FEATS = ("Inner Calm", "Spirit Bolt", "Mind Clash", "Warding Presence", "Shockwave", "Puppet Strings")

    def _use_feat(self, m: ModelState, action: Action) -> None:
        """Pay, test and apply a Ki feat (p.46-47)."""
        from sim.rules import ki

        f = self.feats(m.id)[action.feat]
        st = self.state
        b = self.ki_boost(action)
        if b:
            self._emit(Event("boost", {"model": m.id, "stat": b[0], "steps": action.boost, "cost": b[1].cost}))
        cost = ki.feat_cost(f, x=action.x)
        self._emit(Event("feat_used", {"model": m.id, "feat": f.name, "cost": cost, "target": action.target,
                                       "once_per_turn": f.once_per_turn, "once_per_game": f.once_per_game}))
        scene = self._table_now().scene()
        if f.area == "target":
            d = scene.distance(m.id, action.target) if action.target != m.id else 0.0
            if not ki.in_target_range(f, d):
                self._emit(Event("note", {"text": f"{action.target} is {d:.2f}\" away, beyond {f.range:g}\": "
                                                  f"{f.name} fails and its Ki is lost (p.47)"}))
                return
            req = self._disguise(m, action.target)
            if req and req[0] == "ki_test" and not self._disguise_test(m, action.target, req[1]):
                return
        if f.area == "aura":
            self._emit(Event("aura", {"feat": f.name, "source": m.id, "player": m.player}))
            return
        target_ki = st.models[action.target].ki_stat if f.opposed and action.target in st.models else None
        user_ki = m.ki_stat + (action.boost or 0)
        res = ki.feat_test(f, self._roller, user_ki=user_ki, target_ki=target_ki,
                           user_is_active=m.player == st.active)
        if res.result is not None:
            self._emit(Event("test", {"model": m.id, "test": "ki", "passed": res.success,
                                      "text": f"{f.name}: {'opposed ' if f.opposed else ''}Ki test "
                                              f"{'succeeds' if res.success else 'fails'}"}))
        if not res.success:
            return
        if f.name == "Spirit Bolt":
            self._wound(action.target, 1)
        elif f.name == "Mind Clash":
            self._gain(action.target, "stunned")
        elif f.name == "Puppet Strings":
            self._gain(action.target, "controlled")
            self._emit(Event("note", {"text": f"{action.target} now fights for player {st.models[action.target].player}"}))
        elif f.name == "Inner Calm":
            self._set_conditions(m.id, conditions.remove_condition(conditions.from_model(m), "stunned", 1))
        elif f.name == "Shockwave":
            others = [x.id for x in st.alive() if x.id != m.id]
            for mid in ki.targets_in_area(scene, m.id, f, others):
                if mid != m.id:
                    self._gain(mid, "stunned", int(action.x or 1))
        else:
            self._emit(Event("note", {"text": f"{f.name}: apply the card's effect by hand (not automated): "
                                              f"{f.effect or 'see the card'}"}))

    def _aura_modifiers(self, mid: str) -> tuple[tuple[str, int], ...]:
        """Melee pool modifiers from Auras in play (Warding Presence: +1 to friends inside)."""
        out = []
        st = self.state
        if not st.auras:
            return ()
        scene = self._table_now().scene()
        me = st.models[mid]
        for a in st.auras:
            src = st.models.get(a["source"])
            if a["feat"] != "Warding Presence" or src is None or not src.alive or a["player"] != me.player:
                continue
            f = self.feats(src.id).get(a["feat"])
            if f is not None and (mid == src.id or scene.distance(src.id, mid) <= f.range + 1e-6):
                out.append((f"{a['feat']} ({src.id})", +1))
        return tuple(out)

    def _disguise_test(self, m: ModelState, target: str, x: int) -> bool:
        """The Ki (X) challenge test to act against a Disguised model (p.44). A pass removes
        the target's Disguised marker; a failure ends the activation (counters spent)."""
        from sim.rules.dice import challenge_test

        res = challenge_test(m.ki_stat, x, 0, self._roller)
        self._emit(Event("test", {"model": m.id, "test": "disguise", "tn": x, "passed": res.success,
                                  "text": f"{m.id} takes a Ki ({x}) test to see through {target}'s disguise and "
                                          f"{'passes' if res.success else 'fails: its activation ends'}"}))
        if res.success:
            self._emit(Event("condition", {"model": target, "name": "disguised", "on": False}))
        return res.success

    def _immobilised_test(self, m: ModelState, action: Action) -> bool:
        """An Immobilised model's Size (6) test before a moving action (p.44). True: go on
        (all Immobilised markers removed); False: the action ends as completed."""
        from sim.geometry.attributes import Size
        from sim.rules.dice import size_test

        moves = action.walk is not None or action.kind in ("walk", "disengage") or action.facing is not None
        if not conditions.immobilised_test_needed(conditions.from_model(m), action.kind, moves=moves):
            return True
        size = self.table.model(m.id).size
        res = size_test(size if size != Size.ZERO else Size.SMALL, conditions.IMMOBILISED_SIZE_TN, self._roller,
                        strong=self._trait(m.id, "strong")[0], weak=self._trait(m.id, "weak")[0])
        self._emit(Event("test", {"model": m.id, "test": "size", "tn": conditions.IMMOBILISED_SIZE_TN,
                                  "passed": res.success,
                                  "text": f"{m.id} is Immobilised: Size (6) test "
                                          f"{'passed, the markers are removed' if res.success else 'failed: the action ends'}"}))
        if res.success:
            self._emit(Event("condition", {"model": m.id, "name": "immobilised", "on": False}))
        return res.success

    #: Step along a move at which the target's LoS to the moving model is checked
    #: (Surprised, p.31): every check is exact; the sampling is along the path only.
    SURPRISE_STEP = 0.1

    def surprised_target(self, action: Action) -> str | None:
        """The enemy ``action`` Surprises (p.31, p.36, p.47), or None: the active model
        started the activation out of contact with it and out of its LoS, stayed out of its
        LoS while it moved, and now comes into contact with it or targets it. Sixth Sense
        models are never Surprised. Along the move the target's LoS is checked exactly at
        the start, at every vertex and every :attr:`SURPRISE_STEP` inches, and at the end."""
        if action.kind not in ("charge", "melee", "shoot", "ki_feat", "complex_ki_feat"):
            return None
        m = self.state.models[action.model]
        t = self.state.models.get(action.target or "")
        if t is None or not t.alive or t.player == m.player or self._trait(t.id, "sixth_sense")[0]:
            return None
        table = self._table_now()
        scene = table.scene()
        if scene.distance(m.id, t.id) <= movement.CONTACT + 1e-9 or scene.los(t.id, m.id).visible:
            return None
        path: list = []
        try:
            if action.kind == "charge":
                path = list(self.charge(m.id, t.id, boost=action.boost or 0).path)
            elif action.kind == "melee":
                path = list(self._melee_move(m.id, t.id).path)
            elif action.walk == "before" and action.point is not None:
                path = list(movement.check_walk(table, m.id, [action.point]).path)
        except movement.MoveError:
            return None
        points = []
        for a, b in zip(path, path[1:]):
            n = max(1, math.ceil(math.dist(a, b) / self.SURPRISE_STEP))
            points += [(a[0] + (b[0] - a[0]) * i / n, a[1] + (b[1] - a[1]) * i / n) for i in range(1, n + 1)]
        if points:
            from dataclasses import replace as dc_replace

            from sim.table import Table

            for pt in points:
                moved = tuple(dc_replace(x, position=pt) if x.id == m.id else x for x in table.models)
                if Table(table.name, table.width, table.depth, table.terrain, moved, table.source).scene().los(t.id, m.id).visible:
                    return None
        return t.id

    def _end_surprise(self) -> None:
        """Surprised lasts only until the end of the current action (p.31)."""
        for x in self.state.alive():
            if "surprised" in x.conditions:
                self._emit(Event("condition", {"model": x.id, "name": "surprised", "on": False}))

    def _release_held(self) -> None:
        """Held ends when the model is no longer in BtB with its holder, or the holder is
        gone (p.44)."""
        table = self._table_now()
        for m in self.state.alive():
            holder = m.conditions.get("held")
            if holder is None:
                continue
            h = self.state.models.get(holder) if isinstance(holder, str) else None
            free = h is None or not h.alive
            if not free:
                a, b = table.model(m.id), table.model(h.id)
                free = math.dist(a.position, b.position) - a.radius - b.radius > movement.CONTACT + 1e-9
            if free:
                self._emit(Event("condition", {"model": m.id, "name": "held", "on": False}))
                self._emit(Event("note", {"text": f"{m.id} is no longer Held"}))

    # ------------------------------------------------------------ melee
    def _melee_move(self, mid: str, target: str) -> movement.MoveResult:
        """The Melee action's move (p.24): straight into BtB with ``target`` (no move if
        already in contact)."""
        table = self._table_now()
        a, t = table.model(mid), table.model(target)
        dx, dy = t.position[0] - a.position[0], t.position[1] - a.position[1]
        d = math.hypot(dx, dy) or 1.0
        gap = d - a.radius - t.radius
        if gap <= movement.CONTACT:
            return movement.check_melee_move(table, mid, target, [a.position])
        end = (a.position[0] + dx / d * gap, a.position[1] + dy / d * gap)
        return movement.check_melee_move(table, mid, target, [end])

    def _trait(self, mid: str, keyword: str):
        """``(has, value)`` of a trait on the model's profile card."""
        tm = self.table.model(mid)
        prof = self.profile(mid) if tm.profile else None
        if prof is None:
            return tm.has_trait(keyword), None
        t = prof.trait(keyword)
        return (True, t.value) if t is not None else (False, None)

    def _fear_on_contact(self, active: str, enemy: str) -> bool:
        """Fear tests when the active model's action brings it into contact (p.29).
        Returns False when the active model fails and its activation ends (no exchange);
        a failing enemy becomes Frightened."""
        from sim.rules.dice import FearOutcome, fear_test, fear_test_needed

        has_a, fear_a = self._trait(active, "fear")
        has_e, fear_e = self._trait(enemy, "fear")
        checks = fear_test_needed(active_fear=fear_a if has_a else None, enemy_fear=fear_e if has_e else None,
                                  cause="action", active_steadfast=self._trait(active, "steadfast")[0])
        go_on = True
        for chk in checks:
            who = active if chk.tester == "active" else enemy
            own = self._trait(who, "fear")
            res = fear_test(self.state.models[who].ki_stat, chk.target_number, self._roller,
                            own_fear=own[1] if own[0] else None,
                            fearless=self._trait(who, "fearless")[0] or self._trait(who, "soulless")[0],
                            bravery=self._trait(who, "bravery")[0])
            verdict = "passes" if res.passed else "fails"
            self._emit(Event("note", {"text": f"{who} takes a Fear test (TN {chk.target_number}) and {verdict}"}))
            if res.passed:
                continue
            if chk.on_fail is FearOutcome.LOSE_ACTIVATION:
                self._emit(Event("note", {"text": f"{who} is too afraid: its activation ends"}))
                go_on = False
            else:
                self._gain(who, "frightened", value=chk.target_number)
        return go_on

    def combatant(self, mid: str, active: bool, charge: bool = False, boost: int | None = None):
        """Model ``mid`` as a melee :class:`~sim.rules.melee.Combatant` now (p.33-37): its
        card (Melee, weapon, traits), the melee conditions it has (and Exhausted when it
        defends without counters), wounds left, the Auras that help it and, in the waiting
        exchange, its Melee Assist. ``active``: the attacking (active) model; ``charge``:
        it charged (+2 to its first damage roll); ``boost``: Melee Ki boosts bought
        (default: those allocated in the waiting exchange)."""
        from sim.rules.melee import Combatant, MeleeWeapon, combatant_from_profile

        from sim.rules.melee import MELEE_CONDITIONS

        s = self.state.models[mid]
        tm = self.table.model(mid)
        conds = frozenset(n for n in conditions.from_model(s) if n in MELEE_CONDITIONS)
        conds |= frozenset(c for c in ("ran", "surprised", "stood_up") if c in s.conditions)
        if s.exhausted and not active:
            conds |= {"exhausted"}
        left = s.wounds - s.damage
        ex = self.state.exchange
        disengaging = bool(ex and ex.get("disengage") == mid)
        boost = int((ex or {}).get("boosts", {}).get(mid, 0)) if boost is None else boost
        extra = dict(ki_boost=boost, modifiers=self._aura_modifiers(mid)) if (boost or self.state.auras) else {}
        if ex is not None and mid in (ex["attacker"], ex["defender"]):
            extra["assists"] = self.melee_assists(mid, ex["defender"] if mid == ex["attacker"] else ex["attacker"])
        if self.profile(mid) is not None:
            return combatant_from_profile(self.profile(mid), id=mid, active=active, charge=charge,
                                          conditions=conds, wounds_left=left, disengaging=disengaging, **extra)
        return Combatant(id=mid, melee=2, active=active, weapon=MeleeWeapon.of("Unarmed", 0), conditions=conds,
                         charge=charge, wounds_left=left, **extra)

    def melee_assists(self, mid: str, opponent: str) -> int:
        """Melee Assist (p.36): the other enemy models in contact with ``mid`` (not
        ``opponent``), each -1 die to ``mid``'s pool, unless that enemy is itself in contact
        with another model of ``mid``'s side. A Prone enemy does not count (its contact may
        be ignored, p.45)."""
        table = self._table_now()
        me = table.model(mid)

        def touching(a, b) -> bool:
            return math.dist(a.position, b.position) - a.radius - b.radius <= movement.CONTACT + 1e-9

        mine = [x for x in table.models if x.player == me.player and x.id != mid]
        n = 0
        for e in table.models:
            if e.player == me.player or e.id == opponent or e.prone or not touching(me, e):
                continue
            if any(touching(e, f) for f in mine):
                continue
            n += 1
        return n

    def exchange_pools(self) -> dict[str, int]:
        """The melee pools of the two models of the waiting exchange (step 4)."""
        from sim.rules.melee import melee_pools

        ex = self.state.exchange
        if ex is None:
            return {}
        a = self.combatant(ex["attacker"], True, ex["charge"])
        b = self.combatant(ex["defender"], False, False)
        pa, pb, _ = melee_pools(a, b)
        return {a.id: pa, b.id: pb}

    def _allocation_check(self, action: Action):
        """``(problem, boost)``: why the allocation ``action`` cannot be made now (None when
        it can: the exchange waits for this model, the Ki boost is allowed, the split and
        special are valid for the pool with the boost, p.33-39), and its Ki boost."""
        from sim.rules.ki import KiError
        from sim.rules.melee import Allocation, MeleeError, melee_pools, validate_allocation

        ex = self.state.exchange
        if ex is None or action.model not in (ex["attacker"], ex["defender"]):
            return f"no melee exchange is waiting for {action.model!r}", None
        if action.model in ex["allocations"]:
            return f"{action.model} has already allocated its dice", None
        m = self.state.models[action.model]
        try:
            b = self.ki_boost(action)
        except KiError as exc:
            return str(exc), None
        is_att = action.model == ex["attacker"]
        comb = self.combatant(action.model, is_att, ex["charge"] and is_att, boost=action.boost or 0)
        other_id = ex["defender"] if is_att else ex["attacker"]
        other = self.combatant(other_id, not is_att, ex["charge"] and not is_att)
        pa, pb, _ = melee_pools(comb, other) if is_att else melee_pools(other, comb)
        pool = pa if is_att else pb
        try:
            validate_allocation(comb, pool, Allocation(action.attack or 0, action.defence or 0, action.special,
                                                       action.direction))
        except MeleeError as exc:
            return str(exc), None
        return None, b

    def _allocate(self, action: Action) -> None:
        problem, b = self._allocation_check(action)
        if problem:
            self._unmark()
            raise GameError(problem)
        if b:
            self._emit(Event("boost", {"model": action.model, "stat": "melee", "steps": action.boost,
                                       "cost": b[1].cost}))
        self._emit(Event("allocated", {"model": action.model, "attack": action.attack or 0,
                                       "defence": action.defence or 0, "special": action.special,
                                       "direction": action.direction, "boost": action.boost or 0}))
        if len(self.state.exchange["allocations"]) == 2:
            self._resolve_exchange()

    def _resolve_exchange(self) -> None:
        from sim.rules.melee import Allocation, MeleeError, resolve_exchange

        ex = self.state.exchange
        att, dfn = ex["attacker"], ex["defender"]
        a = self.combatant(att, True, ex["charge"])
        b = self.combatant(dfn, False, False)
        al = {k: Allocation(*v) for k, v in ex["allocations"].items()}
        try:
            res = resolve_exchange(a, b, al[att], al[dfn], self._roller, table=self._table_now())
        except MeleeError as exc:
            self._emit(Event("exchange", {"summary": [f"no exchange: {exc}"]}))
        else:
            counters = {k: n for k, n in res.counters.items() if k != att}  # the action already paid
            # a Controlled model that fights without losing a counter loses a marker (p.43)
            unpaid = [k for k in (dfn,) if "controlled" in self.state.models[k].conditions
                      and min(counters.get(k, 0), self.state.models[k].counters) == 0]
            summary = [f"step {st.number} {st.name}: {st.detail}" for st in res.log if st.number in (3, 4, 10, 12, 13)]
            summary += [f"{k} takes {n} wound(s)" for k, n in res.wounds.items() if n]
            summary += [f"{k} is removed ({why})" for k, why in res.removed.items()]
            self._emit(Event("exchange", {
                "attacker": att, "defender": dfn, "summary": summary,
                "wounds": {k: n for k, n in res.wounds.items() if n}, "removed": sorted(res.removed),
                "gained": {k: sorted(v) for k, v in res.conditions.items() if v},
                "positions": {k: [p[0], p[1]] for k, p in res.positions.items()},
                "facings": dict(res.facings), "counters": counters,
                "markers": _markers_json(res.markers)}))
            for mid in unpaid:
                if self.state.models[mid].alive and "controlled" in self.state.models[mid].conditions:
                    self._set_conditions(mid, conditions.controlled_after(conditions.from_model(self.state.models[mid]),
                                                                          exchange_without_counter=True))
            for mid, names in sorted(res.conditions.items()):
                if not self.state.models[mid].alive:
                    continue
                for name in sorted(names):
                    self._gain(mid, name, value=(dfn if mid == att else att) if name == "held" else None)
            if ex.get("disengage") and self.state.models[att].alive:
                self._disengage_walk(att, dfn, res, ex.get("point"))
            self._after_action()
        if not self.is_over():
            if not self.state.alive(1) or not self.state.alive(2):
                self._end_phase()
            else:
                self._next_active(3 - self.state.models[att].player)

    def _walk_table(self, mid: str, table):
        """``table`` with the enemies in contact with ``mid`` gone (a Walk after a
        Disengage ignores every model in contact, p.24)."""
        from sim.table import Table

        me = table.model(mid)
        keep = tuple(x for x in table.models if x.id == mid or x.player == me.player
                     or math.dist(x.position, me.position) - x.radius - me.radius > movement.CONTACT + 1e-9)
        return Table(table.name, table.width, table.depth, table.terrain, keep, table.source)

    def _disengage_walk_check(self, mid: str, table, point) -> movement.MoveResult:
        """The Walk after a Disengage (p.24) to ``point`` on ``table``: it ignores the
        enemies in contact while it moves, but may not end on their bases
        (docs/rulings-project.md 32)."""
        from dataclasses import replace as dc_replace

        walk_table = self._walk_table(mid, table)
        res = movement.check_walk(walk_table, mid, [tuple(point)])
        ignored = {x.id for x in table.models} - {x.id for x in walk_table.models}
        ends_on = tuple(r for r in movement.Mover(table, mid).end_overlaps(res.end) if r.element in ignored)
        if ends_on:
            res = dc_replace(res, legal=False, reasons=res.reasons + ends_on)
        return res

    def _disengage_walk(self, mid: str, enemy: str, res, point) -> None:
        """After a Disengage exchange: if the model defended successfully (no attack of
        the enemy hit) or is no longer in contact, it may Walk, ignoring models in contact."""
        hit = any(c.attacker == enemy and c.winner == enemy for c in res.comparisons)
        if hit and res.in_contact:
            self._emit(Event("note", {"text": f"{mid} fails to disengage from {enemy}"}))
            return
        if point is None:
            self._emit(Event("note", {"text": f"{mid} disengages from {enemy} and stays"}))
            return
        walk = self._disengage_walk_check(mid, self._table_now(), point)
        if not walk.legal:
            self._emit(Event("note", {"text": f"{mid} disengages but cannot Walk there: {walk.reasons[0].message}"}))
            return
        self._emit(Event("note", {"text": f"{mid} disengages from {enemy}"}))
        self._move(mid, walk)

    # ---------------------------------------------------------- shooting
    def ranged_weapon(self, mid: str, name: str | None = None):
        """The ranged weapon (p.30) of ``mid`` a Shoot action uses: the one named ``name``
        (any case), or its card's first ranged weapon; None when it has none."""
        prof = self.profile(mid)
        if prof is None:
            return None
        ranged = [w for w in prof.weapons if w.kind == "ranged"]
        if name is None:
            return ranged[0] if ranged else None
        return next((w for w in ranged if w.name.lower() == name.lower()), None)

    def _can_shoot(self, mid: str, target: str, weapon: str | None, at=None) -> tuple[bool, str]:
        """May ``mid`` shoot ``target`` now (or from ``at`` after a declared Walk)?"""
        from dataclasses import replace as dc_replace

        from sim.rules.ranged import can_shoot
        from sim.table import Table

        w = self.ranged_weapon(mid, weapon)
        if w is None:
            return False, f"{mid} has no ranged weapon {weapon or ''}".strip()
        if target not in self.state.models or not self.state.models[target].alive:
            return False, f"no model {target!r} on the table"
        if "reloading" in self.state.models[mid].conditions:
            return False, f"{mid} is Reloading"
        table = self._table_now()
        if at is not None:
            moved = tuple(dc_replace(x, position=(at[0], at[1])) if x.id == mid else x for x in table.models)
            table = Table(table.name, table.width, table.depth, table.terrain, moved, table.source)
        ok, reasons = can_shoot(table.scene(), mid, target, w)
        return ok, "; ".join(getattr(r, "message", str(r)) for r in reasons)

    def _shoot(self, mid: str, target: str, weapon: str | None, moved: bool = False, boost: int = 0,
               interceptor: str | None = None, walk_after=None) -> bool:
        """Resolve a shot (p.30-32). When friends of the target may intercept (step 1d) and
        ``interceptor`` is None, the shot waits for the target's player (an
        ``interception_open`` event; :meth:`to_move` is that player) and False is returned;
        ``interceptor=""`` means nobody intercepts. True once the shot is resolved."""
        from sim.rules.dice import modified_stat
        from sim.rules.ranged import AmmoState, RangedAttackError, TargetInfo, interceptors, resolve_ranged_attack

        w = self.ranged_weapon(mid, weapon)
        prof = self.profile(mid)
        infos = {}
        for m in self.table.models:
            ms = self.state.models[m.id]
            if self.profile(m.id) is not None and ms.alive:
                try:
                    infos[m.id] = TargetInfo.from_traits(
                        self.profile(m.id).traits, exhausted=ms.exhausted, ran_this_turn="ran" in ms.conditions,
                        death_sentence="death_sentence" in ms.conditions, surprised="surprised" in ms.conditions)
                except Exception:  # noqa: BLE001 - a card we cannot read gets defaults
                    pass
        s = self.state.models[mid]
        scene = self._table_now().scene()
        if interceptor is None and w is not None:
            try:
                cands = interceptors(scene, mid, target, [x.id for x in self.state.alive(self.state.models[target].player)],
                                     weapon=w, infos=infos)
            except (KeyError, ValueError):
                cands = []
            if cands:
                self._emit(Event("interception_open", {"attacker": mid, "target": target, "weapon": weapon,
                                                       "moved": moved, "boost": boost, "walk_after": walk_after,
                                                       "candidates": list(cands)}))
                return False
        # the shooter's own conditions (Stunned, Frightened: -1 Ranged) and Ki boosts
        mods = sum(v for _, v in conditions.pool_modifiers(conditions.from_model(s), "ranged")) + boost
        pool = modified_stat(prof.ranged or 0, mods)
        ammo = AmmoState(tuple(sorted(s.ammo.items())), conditions.count(conditions.from_model(s), "reloading"))
        try:
            res = resolve_ranged_attack(scene, mid, target, w, self._roller,
                                        ranged_pool=pool, moved=moved or "ran" in s.conditions,
                                        ran="ran" in s.conditions, shot_this_turn="shot" in s.conditions,
                                        interceptor=interceptor or None, infos=infos, ammo=ammo)
        except (RangedAttackError, ValueError) as exc:
            self._emit(Event("shot", {"summary": [f"no shot: {exc}"]}))
            return True
        summary = [f"{st.name}: {st.detail}" for st in res.steps]
        data = {"summary": summary, "wounds": {res.target: res.wounds} if res.target and res.wounds else {}}
        self._emit(Event("shot", data))
        if self.state.models[mid].alive:
            if "shot" not in self.state.models[mid].conditions:
                self._emit(Event("condition", {"model": mid, "name": "shot", "on": True}))
            if res.ammo_spent:
                left = ammo.ammo_left(w)
                self._emit(Event("ammo", {"model": mid, "weapon": w.name, "left": max(0, (left or 0) - 1)}))
            if getattr(res, "reloading_gained", 0):
                self._gain(mid, "reloading", int(res.reloading_gained))
        return True

    def _walk_after_shot(self, mid: str, point) -> None:
        """The Walk a Ranged Attack action declared after its shot (p.25)."""
        if point is None or not self.state.models[mid].alive:
            return
        res = movement.check_walk(self._table_now(), mid, [tuple(point)])
        if res.legal:
            self._move(mid, res)
        else:
            self._emit(Event("note", {"text": "the declared Walk after shooting is no longer legal: no move"}))

    def _move(self, mid: str, res: movement.MoveResult) -> None:
        if len(res.path) > 1 or res.facing != self.state.models[mid].facing:
            end = res.path[-1]
            self._emit(Event("move", {"model": mid, "move": res.kind, "to": [end[0], end[1]],
                                      "facing": res.facing, "cost": res.cost}))

    def pop(self) -> Action:
        """Take back the last pushed action (and everything it caused).

        Raises:
            GameError: nothing to take back.
        """
        if not self._marks:
            raise GameError("no action to take back")
        mark = self._marks.pop()
        action = self._actions.pop()
        dice = self._dice_marks.pop()
        self._rolls.pop()
        if dice is not None:
            self._dice.restore(dice)  # the same rolls come again: a take-back is no re-roll
        keep = self.events[:mark]
        self._memo.clear()
        self.state = _initial_state(self.table)
        self.events = []
        for ev in keep:
            self._emit(ev)
        return action

    # ------------------------------------------------------------- records
    def to_json(self) -> dict:
        """The save: table, seed, game length, scenario, actions, events and the dice.

        ``dice`` is ``"seeded"`` when ``SeededDice(seed)`` made every roll (then
        ``dice_state`` tells where the sequence stands, so that a loaded game rolls on),
        else ``"physical"``; ``rolls`` holds the values rolled, one list for the game's
        creation and one per action. :meth:`load` re-simulates the actions with them.
        """
        doc = {"format": GAME_FORMAT, "table": self.table.to_dict(), "seed": self.seed,
               "length": list(self.length), "actions": [a.to_json() for a in self._actions],
               "events": [e.to_json() for e in self.events]}
        if self.scenario is not None:
            doc["scenario"] = self.scenario.to_dict()
        if not getattr(self, "_legacy", False):
            doc["dice"] = "seeded" if self.seeded else "physical"
            doc["rolls"] = [list(r) for r in self._rolls]
            if self.seeded:
                doc["dice_state"] = self._dice.state()  # a loaded game rolls on from here
        elif hasattr(self._dice, "state"):
            doc["dice_state"] = self._dice.state()
        return doc

    def save(self, path: str | os.PathLike) -> None:
        """Write the game to ``path`` (JSON) atomically: a crash never leaves a broken save,
        and a symbolic link or the file's mode is kept (:func:`sim.files.write_text_atomic`).

        Raises:
            OSError: the file cannot be written (the old one is kept).
            ValueError: a value that JSON cannot hold (NaN, infinity).
        """
        path = Path(path)
        text = json.dumps(self.to_json(), indent=1, allow_nan=False)
        write_text_atomic(path, text)

    @classmethod
    def load(cls, path: str | os.PathLike, verify: bool = True) -> "Game":
        """Load a save written by :meth:`save` and check it: the game is rebuilt by
        re-simulating the saved actions with the saved dice (:meth:`from_save`).

        Raises:
            GameError: unreadable, malformed or tampered file: one line naming the file,
                the entry (``events[57]``, ``actions[3]``, ``length``) and the problem.
        """
        path = Path(path)
        from sim.files import FileProblem, read_json

        try:  # at most 16 MiB of UTF-8 JSON, 64 levels deep, no duplicate keys or NaN
            doc = read_json(path)
        except FileProblem as exc:
            raise GameError(str(exc)) from None
        return cls.from_save(doc, str(path), verify=verify)

    @classmethod
    def from_save(cls, doc, source: str = "<save>", verify: bool = True) -> "Game":
        """The game of a save document (:meth:`to_json`), verified by re-simulation.

        The table, scenario (and its VIMs, from the save's first ``scenario`` event),
        game length and dice (``SeededDice(seed)``, or the recorded physical values) are
        set up, every saved action is pushed again through :meth:`push`, and the events,
        the values rolled and the dice position must equal the saved ones. A save written
        before the dice values were recorded (no ``dice`` key) is re-simulated with its
        seed. With ``verify=False`` the events are applied unchecked (the old loading;
        ``Game.verified`` stays False).

        Raises:
            GameError: ``"SOURCE: ENTRY: PROBLEM"``: not a save, an unknown or missing key,
                a malformed field, an action that cannot be re-simulated, or the first
                event (index, key, both values) that differs from the re-simulation.
        """
        import yaml

        from sim.rules.dice import DiceError, PhysicalDice
        from sim.rules.scenario import ScenarioError, scenario_from_dict
        from sim.table import TableError, parse_table

        def bad(where: str, problem: str) -> GameError:
            # one line, bounded: a tampered save may quote ids of any length or newlines
            problem = one_line(problem, MESSAGE_CHARS)
            return GameError(f"{source}: {where}: {problem}" if where else f"{source}: {problem}")

        if not isinstance(doc, dict) or doc.get("format") != GAME_FORMAT:
            raise GameError(f"{source}: not a {GAME_FORMAT} save")
        for key in doc:
            if key not in _SAVE_KEYS:
                raise bad(quote(key), f"unknown key (keys: {', '.join(sorted(_SAVE_KEYS))})")
        for key in ("table", "events"):
            if key not in doc:
                raise bad(key, "missing")
        length = doc.get("length", ["variable", 5])
        if not (isinstance(length, list) and len(length) == 2 and length[0] in ("fixed", "variable")
                and isinstance(length[1], int) and not isinstance(length[1], bool) and 1 <= length[1] <= 100):
            raise bad("length", f'expected ["fixed" or "variable", turns 1..100], got {_short(length)}')
        seed = doc.get("seed")
        if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
            raise bad("seed", f"expected a whole number or null, got {_short(seed)}")
        mode = doc.get("dice")
        if mode not in (None, "seeded", "physical"):
            raise bad("dice", f'expected "seeded" or "physical", got {_short(mode)}')
        rolls = doc.get("rolls")
        if rolls is not None and not (isinstance(rolls, list) and all(
                isinstance(r, list) and all(type(v) is int and 1 <= v <= 6 for v in r) for r in rolls)):
            raise bad("rolls", "expected lists of die values 1..6, one per action and one for the set-up")
        if mode == "physical" and rolls is None:
            raise bad("rolls", "missing (a physical-dice save carries the values rolled)")
        if mode == "seeded" and seed is None:
            raise bad("seed", "missing (a seeded save carries its seed)")
        for key in ("actions", "events"):
            if not isinstance(doc.get(key, []), list):
                raise bad(key, "expected a list")
        actions, events = [], []
        for i, a in enumerate(doc.get("actions", [])):
            try:
                actions.append(Action.from_json(a))
            except GameError as exc:
                raise bad(f"actions[{i}]", str(exc)) from None
        for i, e in enumerate(doc["events"]):
            try:
                events.append(Event.from_json(e))
            except GameError as exc:
                raise bad(f"events[{i}]", str(exc)) from None
        if rolls is not None and len(rolls) != len(actions) + 1:
            raise bad("rolls", f"{len(rolls)} lists for {len(actions)} actions (expected {len(actions) + 1})")
        if not isinstance(doc["table"], dict):
            raise bad("table", "expected an object")
        try:
            table = parse_table(yaml.safe_dump(doc["table"]), f"{source}:table")
        except TableError as exc:
            raise GameError(one_line(str(exc), 2 * MESSAGE_CHARS)) from None
        scenario = None
        if doc.get("scenario") is not None:
            try:
                scenario = scenario_from_dict(doc["scenario"], f"{source}:scenario", table.width, table.depth)
            except (ScenarioError, ValueError, TypeError, KeyError) as exc:
                raise bad("scenario", str(exc)) from None
        length = (length[0], length[1])
        if not verify:
            return cls._unverified(table, seed, length, scenario, events, actions, doc.get("dice_state"), bad)
        if mode is None and seed is None:
            raise bad("seed", "missing: the save carries neither a seed nor the dice values, so it cannot be verified "
                              "(load it unverified: Game.load(path, verify=False), main.py replay --unverified)")
        dice = PhysicalDice([v for r in rolls for v in r]) if mode == "physical" else None
        try:
            if events and events[0].kind == "position":  # a game set up from a position
                g = cls(table, seed=seed, dice=dice, length=length, scenario=scenario, position=events[0].data)
            else:
                g = cls(table, seed=seed, dice=dice, length=length, scenario=scenario,
                        vims=_saved_vims(scenario, events))
        except (GameError, DiceError) as exc:
            raise bad("", f"the set-up cannot be re-simulated ({exc})") from None
        hint = "" if mode is not None or "dice_state" in doc else \
            (" (an old save without dice values: if it was played with physical dice, it can only be loaded "
             "unverified: main.py replay --unverified)")

        def differs(upto: int | None = None) -> GameError | None:
            got = json.loads(json.dumps([e.to_json() for e in g.events]))
            diff = _first_difference(doc["events"][:upto] if upto is not None else doc["events"], got)
            if diff is None:
                return None
            where, what = diff
            k = int(where[7:-1]) if where.startswith("events[") else len(g.events)
            j = sum(1 for m in g._marks if m <= k) - 1
            origin = "the set-up" if j < 0 else f"actions[{j}]: {_cut(str(actions[j].model or 'player'), 40)} {_cut(str(actions[j]), 90)}"
            return bad(where, f"{what} (from {origin}){hint}")

        def set_by_hand() -> None:
            """The positions set by hand here (inputs of the save, :meth:`set_position`)."""
            while len(g.events) < len(events) and events[len(g.events)].kind == "position":
                k = len(g.events)
                try:
                    g.set_position(events[k].data)
                except GameError as exc:
                    raise bad(f"events[{k}]", str(exc)) from None

        for i, a in enumerate(actions):
            set_by_hand()
            try:
                g.push(a)
            except (GameError, DiceError, ArithmeticError, LookupError, TypeError, ValueError) as exc:
                raise (differs(len(g.events)) or
                       bad(f"actions[{i}]", f"{_short(a.to_json())} cannot be re-simulated: {exc}{hint}")) from None
        set_by_hand()
        err = differs()
        if err is not None:
            raise err
        if rolls is not None and rolls != g._rolls:
            k = next((k for k, (x, y) in enumerate(zip(rolls, g._rolls)) if x != y), min(len(rolls), len(g._rolls)))
            what = "the set-up" if k == 0 else f"actions[{k - 1}]"
            raise bad(f"rolls[{k}]", f"{what} rolled {_short(g._rolls[k])}, the file says {_short(rolls[k])}")
        if dice is not None and dice.remaining:
            raise bad("rolls", f"{dice.remaining} recorded value(s) were never rolled")
        if "dice_state" in doc and mode != "physical" and hasattr(g._dice, "state"):
            if json.loads(json.dumps(g._dice.state())) != doc["dice_state"]:
                raise bad("dice_state", "differs from where the re-simulated dice stand")
        g.verified = True
        return g

    @classmethod
    def _unverified(cls, table, seed, length, scenario, events, actions, dice_state, bad) -> "Game":
        """The old loading: the saved events applied without re-simulating anything."""
        from sim.rules.dice import DiceError

        try:
            g = cls(table, seed=seed, length=length, events=events, scenario=scenario)
        except (GameError, ArithmeticError, LookupError, TypeError, ValueError, AttributeError) as exc:
            raise bad("events", f"cannot be applied ({exc})") from None
        g._actions = list(actions)
        g._legacy = True
        if dice_state is not None:
            try:
                g._dice.restore(dice_state)
            except DiceError as exc:
                raise bad("dice_state", str(exc)) from None
        return g

    def replay(self) -> "Game":
        """A new game rebuilt from this game's events (must equal this one)."""
        return Game(self.table, seed=self.seed, length=self.length, events=list(self.events), scenario=self.scenario)

    def snapshot(self) -> dict:
        """The state as plain data (for comparing states)."""
        return json.loads(json.dumps(asdict(self.state), default=str))

    def log(self) -> list[str]:
        """The readable log: one line per event."""
        return [e.describe() for e in self.events]
