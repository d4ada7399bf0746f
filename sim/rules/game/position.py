"""Positions: a compact, serialisable description of a game state, in the spirit of
python-chess's FEN (``Board(fen)``, ``board.fen()``).

A position is a mapping of plain JSON values (inches, degrees)::

    {"turn": 2, "phase": "main", "active": 1,
     "models": {"akira": {"position": [12.0, 12.0], "facing": 90.0, "counters": 2, "ki": 3,
                          "damage": 1, "conditions": {"stunned": 1}},
                "asp": {"position": [9.5, 21.0], "facing": 290.0, "alive": false}, ...},
     "pass_tokens": {"1": 0, "2": 1}, "scenario": {...}}

Top-level keys (:data:`POSITION_KEYS`): ``turn``, ``phase`` (:data:`PHASES`), ``active``
(1, 2 or null), ``first`` (the Tactical test's choice), ``last_turn``, ``pass_tokens`` and
``scores`` (``{"1": n, "2": n}``), ``result``, ``models``, ``exchange`` (a melee exchange
waiting for allocations: attacker, defender, charge, allocations, disengage, point,
boosts), ``interception`` (a shot waiting for an interceptor), ``feat_usage`` (model ->
``{"turn": [feats], "game": [feats]}``), ``auras`` and ``scenario`` (the
:class:`~sim.rules.scenario.ScenarioState` as JSON). A key left out takes its default
(:data:`POSITION_DEFAULTS`: turn 1, main phase, player 1 active, nothing else).

Model entries (:data:`MODEL_KEYS`): ``position`` ``[x, y]``, ``facing``, ``damage``,
``counters``, ``ki``, ``conditions`` (name -> markers, a Fear TN or a holder's id),
``markers`` (``bleed``/``poison``/``fire`` -> values), ``ammo`` (weapon -> tokens left),
``alive``, and the card's ``wounds``, ``ki_stat``, ``ki_limit``. A model or key left
out is as the table deploys it (its place and facing, Prone if the table says so, no
damage, counters, Ki or markers, its card's values). The side a model fights for follows
from its ``controlled`` condition (p.43).

:func:`compact_position` writes the canonical form (``turn``, ``phase``, ``active``,
``models`` and each model's ``position`` and ``facing`` always, everything else only
when it differs from its default); :func:`expand_position` checks a position and writes
it out in full (the data of a ``position`` event); :func:`apply_position` sets a state
to it. Reading a compact position back gives it again, key for key.
"""

from __future__ import annotations

import json

from sim.files import one_line, quote
from sim.rules.effects import effect_problem
from sim.rules.game.state import GameError, GameState, ModelState
from sim.rules.game.values import MESSAGE_CHARS, finite, finite_point, short
from sim.rules.scenario import ScenarioError, ScenarioState

#: The keys of a position (:meth:`Game.position`), in the order they are written.
POSITION_KEYS = ("turn", "phase", "active", "first", "last_turn", "pass_tokens", "scores", "result", "models",
                 "exchange", "interception", "feat_usage", "auras", "scenario", "removed_terrain")

#: The keys of a model's entry in a position.
MODEL_KEYS = ("position", "facing", "damage", "counters", "ki", "conditions", "markers", "ammo", "alive",
              "wounds", "ki_stat", "ki_limit", "elsewhere", "effects")

#: The phases of a turn (p.20-21), and ``over`` once the game has ended.
PHASES = ("start", "main", "end", "over")

#: What a key left out of a position means (``models`` and ``scenario``: see :func:`expand_position`).
POSITION_DEFAULTS = {"turn": 1, "phase": "main", "active": 1, "first": None, "last_turn": False,
                     "pass_tokens": {"1": 0, "2": 0}, "scores": {"1": 0, "2": 0}, "result": None,
                     "exchange": None, "interception": None, "feat_usage": {}, "auras": [], "scenario": None,
                     "removed_terrain": []}

_EXCHANGE_KEYS = ("attacker", "defender", "charge", "allocations", "disengage", "point", "boosts", "engaged",
                  "weapons", "split", "split_n")

_INTERCEPTION_KEYS = ("attacker", "target", "weapon", "moved", "boost", "walk_after", "candidates")
#: Optional keys of a waiting shot: its special attack and direction (p.39), Rapid Fire's
#: further shots (p.56).
_INTERCEPTION_OPTIONAL = ("special", "direction", "rest")



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
            "conditions": dict(m.conditions), "markers": {}, "ammo": {}, "alive": m.alive,
            "wounds": m.wounds, "ki_stat": m.ki_stat, "ki_limit": m.ki_limit, "elsewhere": _json_copy(m.elsewhere),
            "effects": _json_copy(m.effects)}



def full_position(state: GameState) -> dict:
    """Every key of the position of ``state``, written out (plain JSON values)."""
    models = {}
    for mid, m in state.models.items():
        models[mid] = {"position": [m.position[0], m.position[1]], "facing": m.facing, "damage": m.damage,
                       "counters": m.counters, "ki": m.ki, "conditions": _json_copy(m.conditions),
                       "markers": _json_copy(m.markers), "ammo": _json_copy(m.ammo), "alive": m.alive,
                       "wounds": m.wounds, "ki_stat": m.ki_stat, "ki_limit": m.ki_limit}
        if m.elsewhere is not None:  # written only for a model Elsewhere (older positions have no such key)
            models[mid]["elsewhere"] = _json_copy(m.elsewhere)
        if m.effects:  # written only when it has effects (older positions have no such key)
            models[mid]["effects"] = _json_copy(m.effects)
    return {"turn": state.turn, "phase": state.phase, "active": state.active, "first": state.first,
            "last_turn": state.last_turn,
            "pass_tokens": {str(p): n for p, n in sorted(state.pass_tokens.items())},
            "scores": {str(p): n for p, n in sorted(state.scores.items())}, "result": state.result,
            "models": models, "exchange": _json_copy(state.exchange), "interception": _json_copy(state.interception),
            "feat_usage": _json_copy(state.feat_usage), "auras": _json_copy(state.auras),
            "scenario": _json_copy(state.scenario), "removed_terrain": list(state.removed_terrain)}



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
                got = {k: entry.get(k, [] if k == "effects" else None) for k in MODEL_KEYS}
                out["models"][mid] = {k: got[k] for k in MODEL_KEYS
                                      if k in ("position", "facing") or not _same(got[k], d[k])}
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
        raise bad("", f"a position is a mapping, got {short(position)}")
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
        raise bad("turn", f"expected a whole number 0..100, got {short(out['turn'])}")
    if out["phase"] not in PHASES:
        raise bad("phase", f"expected one of {', '.join(PHASES)}, got {short(out['phase'])}")
    for key in ("active", "first"):
        if out[key] not in (None, 1, 2) or isinstance(out[key], bool):
            raise bad(key, f"expected 1, 2 or null, got {short(out[key])}")
    if not isinstance(out["last_turn"], bool):
        raise bad("last_turn", f"expected true or false, got {short(out['last_turn'])}")
    rt = out["removed_terrain"]
    if not (isinstance(rt, list) and all(isinstance(t, str) and t for t in rt)):
        raise bad("removed_terrain", f"expected a list of terrain piece ids, got {short(rt)}")
    for key in ("pass_tokens", "scores"):
        v = out[key]
        if not (isinstance(v, dict) and set(v) == {"1", "2"} and all(_whole(n, 0, 999) for n in v.values())):
            raise bad(key, f'expected {{"1": n, "2": n}} (whole numbers 0..999), got {short(v)}')
        out[key] = {"1": v["1"], "2": v["2"]}
    if out["result"] is not None and not isinstance(out["result"], str):
        raise bad("result", f"expected a string or null, got {short(out['result'])}")
    models = position.get("models", {})
    if not isinstance(models, dict):
        raise bad("models", f"expected a mapping of model ids to entries, got {short(models)}")
    for mid in models:
        if mid not in ids:
            raise bad(f"models[{quote(mid)}]", f"no such model on the table (models: {', '.join(sorted(ids))})")
    out["models"] = {}
    for mid, m in base.models.items():
        entry = _model_defaults(m)
        got = models.get(mid, {})
        where = f"models[{quote(mid)}]"
        if not isinstance(got, dict):
            raise bad(where, f"expected a mapping, got {short(got)}")
        for key in got:
            if key not in MODEL_KEYS:
                raise bad(f"{where}.{quote(key)}", f"unknown key (keys: {', '.join(MODEL_KEYS)})")
        entry.update(_json_copy(got))
        if not (isinstance(entry["position"], list) and finite_point(entry["position"])):
            raise bad(f"{where}.position", f"expected [x, y] (finite inches), got {short(entry['position'])}")
        entry["position"] = [float(entry["position"][0]), float(entry["position"][1])]
        if not finite(entry["facing"]):
            raise bad(f"{where}.facing", f"expected a finite number of degrees, got {short(entry['facing'])}")
        entry["facing"] = float(entry["facing"])
        for key, lo, hi in (("wounds", 1, 999), ("ki_stat", 0, 99), ("ki_limit", 0, 99), ("counters", 0, 9),
                            ("damage", 0, entry["wounds"]), ("ki", 0, entry["ki_limit"])):
            if not _whole(entry[key], lo, hi):
                raise bad(f"{where}.{key}", f"expected a whole number {lo}..{hi}, got {short(entry[key])}")
        if not isinstance(entry["alive"], bool):
            raise bad(f"{where}.alive", f"expected true or false, got {short(entry['alive'])}")
        _check_elsewhere(entry, where, bad)
        if not isinstance(entry["effects"], list):
            raise bad(f"{where}.effects", f"expected a list of effects, got {short(entry['effects'])}")
        for i, eff in enumerate(entry["effects"]):
            problem = effect_problem(eff)
            if problem:
                raise bad(f"{where}.effects[{i}]", problem)
        conds = entry["conditions"]
        if not (isinstance(conds, dict) and all(isinstance(v, (int, str)) for v in conds.values())):
            raise bad(f"{where}.conditions", f"expected a mapping of condition names to numbers or model ids, "
                                             f"got {short(conds)}")
        markers = entry["markers"]
        if not (isinstance(markers, dict) and all(isinstance(v, list) and all(_whole(x, 0, 99) for x in v)
                                                  for v in markers.values())):
            raise bad(f"{where}.markers",
                      f"expected a mapping of marker kinds to lists of values, got {short(markers)}")
        if not (isinstance(entry["ammo"], dict) and all(_whole(v, 0, 99) for v in entry["ammo"].values())):
            raise bad(f"{where}.ammo",
                      f"expected a mapping of weapon names to Ammo tokens left, got {short(entry['ammo'])}")
        out["models"][mid] = {k: entry[k] for k in MODEL_KEYS
                              if (k != "elsewhere" or entry[k] is not None) and (k != "effects" or entry[k])}
    ex = out["exchange"]
    if ex is not None:
        if not isinstance(ex, dict) or not {"attacker", "defender"} <= set(ex) or not set(ex) <= set(_EXCHANGE_KEYS):
            raise bad("exchange", "expected null or a mapping with attacker, defender "
                                  f"(and {', '.join(_EXCHANGE_KEYS[2:])}),"
                                  f" got {short(ex)}")
        for key in ("attacker", "defender"):
            if ex[key] not in ids:
                raise bad(f"exchange.{key}", f"no such model on the table: {short(ex[key])}")
        full = {"charge": False, "allocations": {}, "disengage": None, "point": None, "boosts": {}, "engaged": [],
                "weapons": {}}
        full.update(ex)
        allocs, boosts = full["allocations"], full["boosts"]
        if not (isinstance(allocs, dict) and all(k in (ex["attacker"], ex["defender"]) and isinstance(v, list)
                                                 and len(v) == 4 for k, v in allocs.items())):
            raise bad("exchange.allocations", f"expected {{model id: [attack, defence, special, direction]}}, "
                                              f"got {short(allocs)}")
        if not (isinstance(boosts, dict) and all(k in ids and _whole(v, 0, 99) for k, v in boosts.items())):
            raise bad("exchange.boosts", f"expected {{model id: Ki boosts}}, got {short(boosts)}")
        if not (isinstance(full["engaged"], list) and all(k in ids for k in full["engaged"])):
            raise bad("exchange.engaged", f"expected a list of model ids, got {short(full['engaged'])}")
        if not (isinstance(full["weapons"], dict) and all(k in ids and isinstance(v, str)
                                                          for k, v in full["weapons"].items())):
            raise bad("exchange.weapons", f"expected {{model id: melee weapon name}}, got {short(full['weapons'])}")
        split = full.get("split", [])
        if not (isinstance(split, list) and all(k in ids for k in split)
                and _whole(full.get("split_n", 1), 1, 99)):
            raise bad("exchange.split", f"expected a list of model ids and split_n >= 1, got {short(split)}")
        # split, split_n: a Split Attack's enemies still to fight and its number of exchanges (p.58)
        out["exchange"] = {k: full[k] for k in _EXCHANGE_KEYS if k in full}
    ic = out["interception"]
    if ic is not None:
        if not isinstance(ic, dict) or not set(_INTERCEPTION_KEYS) <= set(ic) <= set(_INTERCEPTION_KEYS
                                                                                  + _INTERCEPTION_OPTIONAL):
            raise bad("interception",
                      f"expected null or a mapping with {', '.join(_INTERCEPTION_KEYS)}, got {short(ic)}")
        if ic["attacker"] not in ids or ic["target"] not in ids or not isinstance(ic["candidates"], list) \
                or any(c not in ids for c in ic["candidates"]):
            raise bad("interception", f"attacker, target and candidates must be models of the table, got {short(ic)}")
        out["interception"] = {k: ic[k] for k in _INTERCEPTION_KEYS + _INTERCEPTION_OPTIONAL if k in ic}
    usage = out["feat_usage"]
    if not (isinstance(usage, dict) and all(
            mid in ids and isinstance(u, dict) and set(u) == {"turn", "game"}
            and all(isinstance(x, list) and all(isinstance(n, str) for n in x) for x in u.values())
            for mid, u in usage.items())):
        raise bad("feat_usage",
                  f'expected {{model id: {{"turn": [feat names], "game": [feat names]}}}}, got {short(usage)}')
    auras = out["auras"]
    if not (isinstance(auras, list) and all(isinstance(a, dict) and set(a) == {"feat", "source", "player"}
                                            and a["source"] in ids and a["player"] in (1, 2) for a in auras)):
        raise bad("auras", f'expected a list of {{"feat", "source" (a model id), "player"}}, got {short(auras)}')
    if out["scenario"] is not None:
        if not has_scenario:
            raise bad("scenario", "the game plays no scenario")
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



def _check_elsewhere(entry: dict, where: str, bad) -> None:
    """A model entry's ``elsewhere``: null, or ``{"turn": 1..100, "edge": a table edge,
    "zone": a zone id or null}`` with ``alive`` false (a model Elsewhere is off the
    table, p.5)."""
    from sim.rules.setup.zones import EDGES

    e = entry["elsewhere"]
    if e is None:
        return
    if not (isinstance(e, dict) and set(e) <= {"turn", "edge", "zone"} and _whole(e.get("turn"), 1, 100)
            and e.get("edge") in EDGES and (e.get("zone") is None or isinstance(e.get("zone"), str))):
        raise bad(f"{where}.elsewhere", f'expected null or {{"turn": 1..100, "edge": {"/".join(EDGES)}, '
                                        f'"zone": a zone id or null}}, got {short(e)}')
    if entry["alive"]:
        raise bad(f"{where}.elsewhere", "a model Elsewhere is not on the table: 'alive' must be false")
    entry["elsewhere"] = {"turn": e["turn"], "edge": e["edge"], "zone": e.get("zone")}


def apply_position(state: GameState, d: dict) -> None:
    """Set ``state`` to the full position ``d`` (:func:`expand_position`): what a
    ``position`` event does."""
    state.turn, state.phase, state.active, state.first = d["turn"], d["phase"], d["active"], d["first"]
    state.last_turn, state.result = d["last_turn"], d["result"]
    state.pass_tokens = {int(p): n for p, n in d["pass_tokens"].items()}
    state.scores = {int(p): n for p, n in d["scores"].items()}
    state.exchange = _json_copy(d["exchange"])
    state.interception = _json_copy(d["interception"])
    state.feat_usage = _json_copy(d["feat_usage"])
    state.auras = _json_copy(d["auras"])
    state.scenario = _json_copy(d["scenario"])
    state.removed_terrain = list(d.get("removed_terrain", []))  # older positions have no such key
    for mid, e in d["models"].items():
        m = state.models[mid]
        m.position, m.facing = (e["position"][0], e["position"][1]), e["facing"]
        m.damage, m.counters, m.ki, m.alive = e["damage"], e["counters"], e["ki"], e["alive"]
        m.wounds, m.ki_stat, m.ki_limit = e["wounds"], e["ki_stat"], e["ki_limit"]
        m.conditions, m.markers, m.ammo = _json_copy(e["conditions"]), _json_copy(e["markers"]), _json_copy(e["ammo"])
        m.player = 3 - m.owner if "controlled" in m.conditions else m.owner
        m.elsewhere = _json_copy(e.get("elsewhere"))
        m.effects = _json_copy(e.get("effects", []))

