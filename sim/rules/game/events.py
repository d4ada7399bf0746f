"""Events: every change of the game state, typed in one registry (p.18-47).

An :class:`Event` is a ``kind`` and its ``data`` (plain JSON values; inches, degrees).
:data:`EVENT_KINDS` declares each kind once: its data keys, what it does to the state
(:func:`apply_event`, the only place the state changes) and its line in the readable log
(:meth:`Event.describe`, the only place events are described). Saves hold the events as
``{"kind": ..., **data}`` (``bushido-game/1``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field

from sim.rules.effects import describe_effect
from sim.rules.game.position import apply_position
from sim.rules.game.state import GameError, GameState, ModelState, remove_counters, take_wounds
from sim.rules.game.values import short


@dataclass(frozen=True)
class Event:
    """One change of state. ``kind`` names it (:data:`EVENT_KINDS`); ``data`` holds plain
    JSON values."""

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
            raise GameError(f"an event is an object with a string 'kind', got {short(doc)}")
        doc = dict(doc)
        return cls(doc.pop("kind"), doc)

    def describe(self) -> str:
        """One line for a readable log (several for an exchange or a shot)."""
        kind = EVENT_KINDS.get(self.kind)
        if kind is None or kind.describe is None:
            return f"{self.kind}: {self.data}"
        return kind.describe(self.data)


@dataclass(frozen=True)
class EventKind:
    """One kind of event.

    Attributes:
        key: the ``kind`` string of its events.
        fields: its data keys (``?`` marks one that may be left out).
        apply: what it does to a :class:`GameState` (None: nothing, a record for the log).
        describe: its log line from its data (None: ``kind: data``).
        doc: what it records, with the rulebook page.
    """

    key: str
    fields: tuple[str, ...]
    apply: Callable[[GameState, dict], None] | None
    describe: Callable[[dict], str] | None
    doc: str


def apply_event(state: GameState, ev: Event) -> None:
    """Apply one event to ``state`` in place. The only place the state changes.

    Raises:
        GameError: an unknown event kind.
    """
    kind = EVENT_KINDS.get(ev.kind)
    if kind is None:
        raise GameError(f"unknown event {ev.kind!r}")
    if kind.apply is not None:
        kind.apply(state, ev.data)


def markers_json(markers) -> dict:
    """Melee/ranged markers (target, kind, count, value) as ``{target: {kind: [values]}}``."""
    out: dict = {}
    for mk in markers:
        kind = {"on_fire": "fire", "poisoned": "poison"}.get(mk.kind, mk.kind)
        out.setdefault(mk.target, {}).setdefault(kind, []).extend([mk.value if mk.value is not None else 1] * mk.count)
    return out


def apply_outcome(state: GameState, d: dict) -> None:
    """Wounds, removals, conditions, moves and counters of an exchange or a shot."""
    for mid, pos in d.get("positions", {}).items():
        state.models[mid].position = (pos[0], pos[1])
    for mid, f in d.get("facings", {}).items():
        state.models[mid].facing = f
    for mid, n in d.get("wounds", {}).items():
        take_wounds(state.models[mid], n)  # Kami, Last Stand, Rise (p.54, p.57)
    for mid in d.get("removed", []):
        state.models[mid].alive, state.models[mid].counters = False, 0
    for mid, names in d.get("conditions", {}).items():
        for name in names:
            state.models[mid].conditions[name] = 1
    for mid, n in d.get("counters", {}).items():
        remove_counters(state.models[mid], n)
    for mid, kinds in d.get("markers", {}).items():
        if state.models[mid].kami:  # Kami: Immune (Poison, Fire, Bleed, Disease) (p.54)
            kinds = {k: v for k, v in kinds.items() if k not in ("poison", "fire", "bleed")}
        for kind, values in kinds.items():
            state.models[mid].markers.setdefault(kind, []).extend(values)


# ------------------------------------------------------------- what events do
def _turn(state: GameState, d: dict) -> None:
    state.turn = d["turn"]
    state.phase = "start"


def _game_length(state: GameState, d: dict) -> None:
    state.last_turn = state.last_turn or d["last"]


def _ki(state: GameState, d: dict) -> None:
    for mid, n in d["gains"].items():
        m = state.models[mid]
        m.ki = min(m.ki_limit, m.ki + n)


def _counters(state: GameState, d: dict) -> None:
    for m in state.alive():
        m.counters = d.get("n", 2)


def _tactical(state: GameState, d: dict) -> None:
    state.first = d["first"]


def _pass_tokens(state: GameState, d: dict) -> None:
    state.pass_tokens = {int(p): n for p, n in d["tokens"].items()}


def _phase(state: GameState, d: dict) -> None:
    state.phase = d["phase"]


def _active(state: GameState, d: dict) -> None:
    state.active = d["player"]


def _move(state: GameState, d: dict) -> None:
    m = state.models[d["model"]]
    m.position = (d["to"][0], d["to"][1])
    m.facing = d["facing"]


def _counter(state: GameState, d: dict) -> None:
    remove_counters(state.models[d["model"]], d["n"])


def _ki_change(state: GameState, d: dict) -> None:
    m = state.models[d["model"]]
    m.ki = max(0, min(m.ki_limit, m.ki + d["delta"]))


def _condition(state: GameState, d: dict) -> None:
    m = state.models[d["model"]]
    if d["on"]:
        m.conditions[d["name"]] = d.get("value", 1)
    else:
        m.conditions.pop(d["name"], None)
    if d["name"] == "controlled":  # it fights for the other side while Controlled (p.43)
        m.player = 3 - m.owner if d["on"] else m.owner


def _wounds(state: GameState, d: dict) -> None:
    take_wounds(state.models[d["model"]], d["n"])  # Kami, Last Stand, Rise (p.54, p.57)


def _killed(state: GameState, d: dict) -> None:
    state.models[d["model"]].alive = False
    state.models[d["model"]].counters = 0


def _pass(state: GameState, d: dict) -> None:
    state.pass_tokens[d["player"]] -= 1


def _score(state: GameState, d: dict) -> None:
    state.scores[d["player"]] += d["points"]


def _game_over(state: GameState, d: dict) -> None:
    state.phase = "over"
    state.result = d["result"]


def _exchange_open(state: GameState, d: dict) -> None:
    state.exchange = {"attacker": d["attacker"], "defender": d["defender"], "charge": d["charge"], "allocations": {},
                      "disengage": d.get("disengage"), "point": d.get("point"), "boosts": {},
                      "engaged": list(d.get("engaged") or []), "weapons": {}}
    if d.get("split_n", 1) > 1:  # Split Attack (p.58): the enemies still to fight, and how many exchanges in all
        state.exchange.update(split=list(d.get("split") or []), split_n=int(d["split_n"]))


def _allocated(state: GameState, d: dict) -> None:
    ex = state.exchange
    if ex is None:
        raise GameError("an allocation without a melee exchange waiting for it")
    ex["allocations"][d["model"]] = [d["attack"], d["defence"], d.get("special"), d.get("direction")]
    if d.get("boost"):
        ex.setdefault("boosts", {})[d["model"]] = d["boost"]
    if d.get("weapon"):  # the melee weapon chosen at step 2 (p.33)
        ex.setdefault("weapons", {})[d["model"]] = d["weapon"]


def _exchange(state: GameState, d: dict) -> None:
    state.exchange = None
    apply_outcome(state, d)


def _marker_damage(state: GameState, d: dict) -> None:
    m: ModelState = state.models[d["model"]]
    left = list(m.markers.get(d["marker"], []))
    for v in d["removed"]:
        left.remove(v)
    m.markers[d["marker"]] = left
    take_wounds(m, d["wounds"])  # Kami, Last Stand, Rise (p.54, p.57)


def _boost(state: GameState, d: dict) -> None:
    m = state.models[d["model"]]
    m.ki = max(0, m.ki - d["cost"])


def _feat_used(state: GameState, d: dict) -> None:
    m = state.models[d["model"]]
    m.ki = max(0, m.ki - d["cost"])
    u = state.feat_usage.setdefault(d["model"], {"turn": [], "game": []})
    if d.get("once_per_turn"):
        u["turn"].append(d["feat"])
    if d.get("once_per_game"):
        u["game"].append(d["feat"])


def _aura(state: GameState, d: dict) -> None:
    state.auras.append({"feat": d["feat"], "source": d["source"], "player": d["player"]})


def _terrain_removed(state: GameState, d: dict) -> None:
    """A Destructible terrain piece leaves the table (p.16)."""
    if d["piece"] not in state.removed_terrain:
        state.removed_terrain.append(d["piece"])


def _healed(state: GameState, d: dict) -> None:
    """Wounds removed; healing any wound also removes every Bleed marker (p.43)."""
    m = state.models[d["model"]]
    n = max(0, min(int(d["n"]), m.damage))
    m.damage -= n
    if n:
        m.conditions.pop("bleed", None)


def _counters_gained(state: GameState, d: dict) -> None:
    state.models[d["model"]].counters += max(0, int(d["n"]))


def _pass_token_gained(state: GameState, d: dict) -> None:
    p = int(d["player"])
    state.pass_tokens[p] = state.pass_tokens.get(p, 0) + int(d["n"])


def _markers(state: GameState, d: dict) -> None:
    """Bleed, Poison or Fire markers placed (``add``: their values) or removed (``remove``:
    how many, highest first; ``"all"``) by an effect (a Ki feat, p.43-47)."""
    m = state.models[d["model"]]
    values = sorted(m.markers.get(d["marker"], []), reverse=True)
    if d.get("add"):
        values += list(d["add"])
    rem = d.get("remove")
    if rem == "all":
        values = []
    elif rem:
        values = sorted(values, reverse=True)[int(rem):]
    if values:
        m.markers[d["marker"]] = values
    else:
        m.markers.pop(d["marker"], None)


def _describe_markers(d: dict) -> str:
    what = {"fire": "On Fire", "poison": "Poisoned", "bleed": "Bleed"}.get(d["marker"], d["marker"])
    src = f" ({d['source']})" if d.get("source") else ""
    if d.get("add"):
        return f"  {d['model']} gains {len(d['add'])} {what} marker(s) of value {'/'.join(map(str, d['add']))}{src}"
    n = "every" if d.get("remove") == "all" else str(d.get("remove"))
    return f"  {d['model']} loses {n} {what} marker(s){src}"


def _effect(state: GameState, d: dict) -> None:
    """A model gains an effect with a duration (:mod:`sim.rules.effects`)."""
    effect = {k: v for k, v in d.items() if k != "model"}
    state.models[d["model"]].effects.append(json.loads(json.dumps(effect)))


def _effects_end(state: GameState, d: dict) -> None:
    """Every effect lasting ``until`` ends (on every model, or on ``models``)."""
    only = d.get("models")
    for m in state.models.values():
        if m.effects and (only is None or m.id in only):
            m.effects = [e for e in m.effects if e.get("until") != d["until"]]


def _card_form(state: GameState, d: dict) -> None:
    """Round 6 (F5, Shapeshift): the model's printed card becomes ``profile`` (kept in the mark
    ``feat_form``, read by ``Game.printed_profile``), with its Ki statistic, Ki limit and wound
    boxes; its Ki stays within the new limit (sim.rules.game.feat_cards)."""
    m = state.models[d["model"]]
    m.conditions["feat_form"] = d["profile"]
    m.ki_stat, m.ki_limit, m.wounds = int(d["ki_stat"]), int(d["ki_limit"]), int(d["wounds"])
    m.ki = min(m.ki, m.ki_limit)


def _end_phase_reset(state: GameState, d: dict) -> None:
    state.auras = []
    for u in state.feat_usage.values():
        u["turn"] = []


def _scenario(state: GameState, d: dict) -> None:
    state.scenario = d["state"]


def _interception_open(state: GameState, d: dict) -> None:
    state.interception = {key: d[key] for key in ("attacker", "target", "weapon", "moved", "boost", "walk_after",
                                                  "candidates")}
    state.interception.update({k: d[k] for k in ("special", "direction", "rest", "ignore_reload", "ignore")
                               if d.get(k)})  # p.39, p.56; a feat's shot ignoring Reloading


def _intercept(state: GameState, d: dict) -> None:
    state.interception = None


def _ammo(state: GameState, d: dict) -> None:
    state.models[d["model"]].ammo[d["weapon"]] = d["left"]


def _elsewhere(state: GameState, d: dict) -> None:
    """A model held back by Flank starts the game Elsewhere (p.5, p.52): off the table,
    no counters; not killed."""
    m = state.models[d["model"]]
    m.alive, m.counters = False, 0
    m.elsewhere = {"turn": d["turn"], "edge": d["edge"], "zone": d.get("zone")}


def _arrive(state: GameState, d: dict) -> None:
    """A Flank model placed along its edge (p.52): on the table, with two activation
    counters."""
    m = state.models[d["model"]]
    m.alive, m.elsewhere = True, None
    m.position = (d["to"][0], d["to"][1])
    m.facing = d["facing"]
    m.counters = d.get("counters", 2)


def _describe_flank_due(d: dict) -> str:
    models = ", ".join(f"{mid} ({edge} edge)" for mid, edge in d["models"].items())
    return f"Flank: on turn {d['turn']} {models} arrive{'s' if len(d['models']) == 1 else ''} (p.52)"


def _adjust(state: GameState, d: dict) -> None:
    """A manual adjustment (``Game.adjust``): a model moved, a marker added or removed,
    wounds dealt or healed, Ki added or removed, as the players do on a real table."""
    m = state.models[d["model"]]
    what = d["what"]
    if what == "move":
        m.position = (d["to"][0], d["to"][1])
        if d.get("facing") is not None:
            m.facing = d["facing"]
    elif what == "wounds":
        m.damage = max(0, min(m.wounds, m.damage + d["delta"]))
        if m.damage >= m.wounds:
            m.alive, m.counters = False, 0
    elif what == "ki":
        m.ki = max(0, min(m.ki_limit, m.ki + d["delta"]))
    elif what == "marker":
        name, delta = d["condition"], d["delta"]
        kind = ADJUST_MARKER_KINDS.get(name)
        if kind is not None:  # Bleed, Poison, Fire: a list of marker values
            values = list(m.markers.get(kind, []))
            if delta > 0:
                values += [d.get("value") or 1] * delta
            else:
                values = values[:max(0, len(values) + delta)]
            if values:
                m.markers[kind] = values
            else:
                m.markers.pop(kind, None)
            return
        old = m.conditions.get(name)
        if delta > 0 and d.get("value") is not None:  # a valued condition: Disguised (X), Frightened (TN)
            m.conditions[name] = d["value"]
        else:
            n = (old if isinstance(old, int) and not isinstance(old, bool) else (1 if old is not None else 0)) + delta
            if n > 0:
                m.conditions[name] = n
            else:
                m.conditions.pop(name, None)
        if name == "controlled":  # it fights for the other side while Controlled (p.43)
            m.player = 3 - m.owner if name in m.conditions else m.owner
    else:
        raise GameError(f"adjust event: unknown 'what' {what!r} (move, marker, wounds, ki)")


#: The conditions whose markers the state keeps as lists of values (``ModelState.markers``).
ADJUST_MARKER_KINDS = {"on_fire": "fire", "bleed": "bleed", "poisoned": "poison"}


def describe_adjust(d: dict) -> str:
    """The log line of a manual adjustment: ``Manual adjustment: akira moved to (4.00,
    9.00)``, ``... akira wounds -1``, ``... akira Ki +2``, ``... akira stunned +1``."""
    head = f"Manual adjustment: {d['model']}"
    what = d.get("what")
    if what == "move":
        s = f"{head} moved to ({d['to'][0]:.2f}, {d['to'][1]:.2f})"
        return s + (f", facing {d['facing']:.0f}" if d.get("facing") is not None else "")
    if what == "marker":
        value = f" (value {d['value']})" if d.get("value") is not None else ""
        return f"{head} {str(d['condition']).replace('_', ' ')} {d['delta']:+d}{value}"
    if what == "wounds":
        return f"{head} wounds {d['delta']:+d}"
    return f"{head} Ki {d['delta']:+d}"


# ------------------------------------------------------------- how events read
#: Log words for the one-turn marks the engine keeps beside the conditions.
_MARK_NAMES = {"ran": "the mark 'ran this turn'", "shot": "the mark 'shot this turn'",
               "stood_up": "the mark 'stood up this turn'",
               "enhancing_start": "the mark 'began the action on Enhancing terrain' (p.60)",
               "intimidate_offer": "the Starting phase choice 'Intimidate' (p.54)",
               "fear_failed": "the mark 'failed a Fear test: one counter for the action' (p.29)"}


def _describe_condition(d: dict) -> str:
    name = _MARK_NAMES.get(d["name"], d["name"].replace("_", " "))
    if d["name"].startswith("feat_trigger:"):  # sim.rules.game.feat_triggers (p.46)
        why = str(d.get("value", ""))
        why = why if why.startswith("on ") else f"{why} was killed"  # other moments: "on ..." (round 2)
        name = f"the choice to use {d['name'].split(':', 1)[1]}" + (f" ({why})" if d["on"] else "")
    if d["name"].startswith("token:"):  # named tokens of a Ki feat (sim.rules.game.feat_auras)
        name = f"{d['name'].split(':', 1)[1]} tokens" + (f" (now {d['value']})" if d["on"] else "")
    elif d["on"] and isinstance(d.get("value"), int) and not isinstance(d.get("value"), bool) and d["value"] > 1:
        name += f" ({d['value']})"
    return f"  {d['model']} {'gains' if d['on'] else 'loses'} {name}"


def _describe_summary(d: dict) -> str:
    return "\n".join(f"    {line}" for line in d.get("summary", []))


#: Every kind of event, by its ``kind`` string.
EVENT_KINDS: dict[str, EventKind] = {k.key: k for k in (
    # ---- the turn (p.20-21)
    EventKind("turn", ("turn",), _turn, lambda d: f"=== Turn {d['turn']} ===",
              "a new turn starts: its Starting phase (p.20)"),
    EventKind("game_length", ("roll", "last"), _game_length,
              lambda d: (f"Variable game length roll: {d['roll']} ({'last turn' if d['last'] else 'the game goes on'})"
                         if d["roll"] is not None
                         else f"Fixed game length: {'this is the last turn' if d['last'] else 'the game goes on'}"),
              "the variable game length roll, or a fixed last turn (p.63)"),
    EventKind("ki", ("gains",), _ki,
              lambda d: "Ki generation: " + ", ".join(f"{m} +{n}" for m, n in d["gains"].items()),
              "Ki generation, up to each model's Ki limit (p.20 step 2)"),
    EventKind("counters", ("n?",), _counters, lambda d: "Every model gets 2 activation counters",
              "activation counters for every model (p.20 step 3)"),
    EventKind("tactical", ("winner", "first", "rolls"), _tactical,
              lambda d: f"Tactical test: player {d['winner']} wins ({d['rolls']}) and player {d['first']} acts first",
              "the Tactical test and who acts first (p.20 step 4)"),
    EventKind("pass_tokens", ("tokens",), _pass_tokens, lambda d: f"Pass tokens: {d['tokens']}",
              "pass tokens for the side with fewer models (p.20 step 6)"),
    EventKind("phase", ("phase",), _phase, lambda d: f"-- {d['phase'].title()} phase --",
              "the Main or End phase starts (p.21)"),
    EventKind("active", ("player",), _active, lambda d: f"Player {d['player']} is active",
              "the player who activates now (p.21)"),
    EventKind("pass", ("player",), _pass, lambda d: f"Player {d['player']} spends a pass token",
              "a pass token spent (p.21)"),
    EventKind("score", ("player", "points"), _score, None, "scenario points scored (no scenario module)"),
    EventKind("game_over", ("result", "turn", "winner?", "vp?"), _game_over,
              lambda d: f"=== Game over: {d['result']} ===", "the end of the game and its result (p.21, p.63)"),
    EventKind("position", ("turn", "phase", "active", "first", "last_turn", "pass_tokens", "scores", "result",
                           "models", "exchange", "interception", "feat_usage", "auras", "scenario",
                           "removed_terrain?"),
              apply_position,
              lambda d: (f"Position set: turn {d['turn']}, {d['phase']} phase"
                         + (f", player {d['active']} active" if d.get("active") else "")),
              "a position set by hand (sim.rules.game.position), written out in full"),
    # ---- actions and their effects (p.24-26)
    EventKind("activate", ("player", "model", "action"), None,
              lambda d: f"Player {d['player']} activates {d['model']}: {d['action']}",
              "a model is activated and declares an action (p.24)"),
    EventKind("move", ("model", "move", "to", "facing", "cost"), _move,
              lambda d: f"  {d['model']} moves to ({d['to'][0]:.2f}, {d['to'][1]:.2f}), "
                        f"{d['cost']:.2f}\" ({d['move']})",
              "a move or turn: where to, facing, inches spent (p.22-25)"),
    EventKind("counter", ("model", "n"), _counter, lambda d: f"  {d['model']} loses {d['n']} activation counter(s)",
              "activation counters removed (p.24); a Controlled model loses markers with them (p.43)"),
    EventKind("ki_change", ("model", "delta"), _ki_change, lambda d: f"  {d['model']} Ki {d['delta']:+d}",
              "Ki gained or paid (Focus p.25, Death Sentence p.43)"),
    EventKind("condition", ("model", "name", "on", "value?"), _condition, _describe_condition,
              "a condition or one-turn mark gained, changed or lost (p.43-45)"),
    EventKind("wounds", ("model", "n"), _wounds, lambda d: f"  {d['model']} takes {d['n']} wound(s)",
              "wounds outside an exchange or shot (p.38)"),
    EventKind("killed", ("model",), _killed, lambda d: f"  {d['model']} is killed", "a model removed (p.38)"),
    EventKind("marker_damage", ("model", "marker", "removed", "wounds"), _marker_damage,
              lambda d: f"  {d['model']}: {d['marker']} markers {d['removed']} removed, {d['wounds']} wound(s)",
              "Bleed, Poison or Fire markers removed and their wounds (End phase, p.43-45; Wait, p.25)"),
    EventKind("note", ("text",), None, lambda d: f"  {d['text']}", "a line for the log"),
    EventKind("terrain_removed", ("piece", "model"), _terrain_removed,
              lambda d: f"  {d['model']} removes the Destructible terrain piece {d['piece']} from the table",
              "a Destructible terrain piece removed by a Wait and 2 Ki (p.16, p.25)"),
    EventKind("test", ("model", "test", "passed", "text", "tn?"), None, lambda d: f"  {d['text']}",
              "a test taken (Fear, Size, Ki, disguise; p.27-29)"),
    # ---- melee (p.33-39)
    EventKind("exchange_open", ("attacker", "defender", "charge", "disengage?", "point?", "engaged?", "split?",
                                "split_n?"), _exchange_open,
              lambda d: f"  Melee exchange: {d['attacker']} against {d['defender']}"
                        + (" (charge: +2 to the first damage roll)" if d["charge"] else "")
                        + (f" (Split Attack: {d['split_n']} exchanges, -{d['split_n'] - 1} dice each)"
                           if d.get("split_n", 1) > 1 else ""),
              "a melee exchange waits for both allocations (p.33)"),
    EventKind("allocated", ("model", "attack", "defence", "special", "direction", "boost", "weapon?"), _allocated,
              lambda d: f"  {d['model']} allocates its dice in secret", "a model's secret allocation (p.33)"),
    EventKind("exchange", ("summary", "attacker?", "defender?", "wounds?", "removed?", "gained?", "positions?",
                           "facings?", "counters?", "markers?"), _exchange, _describe_summary,
              "a resolved melee exchange and its outcome (p.33-39)"),
    # ---- ranged attacks (p.30-32)
    EventKind("interception_open", ("attacker", "target", "weapon", "moved", "boost", "walk_after", "candidates",
                                    "special?", "direction?", "rest?", "ignore_reload?", "ignore?"),
              _interception_open,
              lambda d: (f"  {d['target']}'s player may assign an interceptor for the shot of {d['attacker']}: "
                         + ", ".join(d["candidates"])),
              "a shot waits for the target's player to choose an interceptor (p.30 step 1d)"),
    EventKind("intercept", ("chosen",), _intercept,
              lambda d: f"  {d['chosen']} intercepts the shot" if d.get("chosen") else "  nobody intercepts",
              "the interceptor chosen, or none (p.30)"),
    EventKind("shot", ("summary", "wounds?", "markers?"), apply_outcome, _describe_summary,
              "a resolved ranged attack (p.30-32)"),
    EventKind("ammo", ("model", "weapon", "left"), _ammo,
              lambda d: f"  {d['model']}'s {d['weapon']}: {d['left']} Ammo left",
              "Ammo tokens left on a weapon (p.32)"),
    # ---- Ki (p.46-47)
    EventKind("boost", ("model", "stat", "steps", "cost"), _boost,
              lambda d: f"  {d['model']} boosts {d['stat'].title()} by +{d['steps']} for {d['cost']} Ki",
              "a Ki boost bought (p.10, p.47)"),
    EventKind("feat_used", ("model", "feat", "cost", "target", "once_per_turn", "once_per_game"), _feat_used,
              lambda d: (f"  {d['model']} uses {d['feat']} ({d['cost']} Ki)"
                         + (f" on {d['target']}" if d.get("target") else "")),
              "a Ki feat paid and marked used (p.46-47)"),
    EventKind("aura", ("feat", "source", "player"), _aura,
              lambda d: f"  {d['source']}'s {d['feat']} Aura is in play until the End phase",
              "an Aura feat in play until the End phase (p.47)"),
    EventKind("healed", ("model", "n", "source?"), _healed,
              lambda d: f"  {d['model']} heals {d['n']} wound(s)" + (f" ({d['source']})" if d.get("source") else ""),
              "wounds removed by an effect (a Ki feat, p.46); any heal removes the Bleed markers (p.43)"),
    EventKind("counters_gained", ("model", "n", "source?"), _counters_gained,
              lambda d: f"  {d['model']} gains {d['n']} activation counter(s)"
                        + (f" ({d['source']})" if d.get("source") else ""),
              "activation counters gained by an effect (a Ki feat, p.24, p.46)"),
    EventKind("pass_token_gained", ("player", "n", "source?"), _pass_token_gained,
              lambda d: f"  Player {d['player']} gains {d['n']} pass token(s)"
                        + (f" ({d['source']})" if d.get("source") else ""),
              "pass tokens gained by an effect (a Ki feat, p.21, p.46)"),
    EventKind("manual_step", ("model", "source", "text"), None,
              lambda d: f"  MANUAL STEP for {d['model']} ({d['source']}): {d['text']}",
              "a card's effect the engine does not apply: the players apply it by hand (p.46)"),
    EventKind("markers", ("model", "marker", "add?", "remove?", "source?"), _markers, _describe_markers,
              "Bleed, Poison or Fire markers placed or removed by an effect (p.43-47)"),
    EventKind("effect", ("model", "source", "until", "traits?", "lose?", "weapon_traits?", "weapon?", "stats?",
                         "range_bands?", "weapon_name?", "special_cost?", "boosts?", "lose_types?"),  # last 4: F5
              _effect, lambda d: f"  {d['model']}: {describe_effect(d)}",
              "a model gains traits, loses traits or has a statistic changed for a time (p.46-48)"),
    EventKind("effects_end", ("until", "models?"), _effects_end,
              lambda d: f"  Effects lasting {d['until'].replace('_', ' ')} end",
              "effects with that duration end (p.46-48)"),
    EventKind("card_form", ("model", "profile", "name", "ki_stat", "ki_limit", "wounds", "source?"), _card_form,
              lambda d: f"  {d['model']} is replaced by its other form, {d['name']}"
                        + (f" ({d['source']})" if d.get("source") else ""),
              "a model replaced by its other form's card, keeping its wounds, markers and tokens (a Ki feat, p.46)"),
    EventKind("end_phase_reset", (), _end_phase_reset, lambda d: "  Once-per-turn boxes wiped; Auras end",
              "once-per-turn feat boxes wiped and Auras ended (End phase)"),
    # ---- Elsewhere and Flank arrivals (p.5, p.52)
    EventKind("elsewhere", ("model", "turn", "edge", "zone?"), _elsewhere,
              lambda d: f"{d['model']} is held back Elsewhere to Flank: its turn and table edge are noted in secret "
                        "(p.52)",
              "a model held back by Flank starts Elsewhere, off the table (p.5, p.52); the log keeps its turn and "
              "edge hidden"),
    EventKind("flank_due", ("turn", "models", "player"), None, _describe_flank_due,
              "the Starting phase of a turn on which Flank models arrive: their turn and edges revealed, and the "
              "player who places first (p.20 step 5, p.52)"),
    EventKind("arrive", ("model", "to", "facing", "edge", "counters"), _arrive,
              lambda d: f"  {d['model']} arrives from the Flank along the {d['edge']} edge at "
                        f"({d['to'][0]:.2f}, {d['to'][1]:.2f}), facing {d['facing']:.0f}, with {d['counters']} "
                        "activation counters (p.52)",
              "a Flank model placed along its table edge, with two activation counters (p.52)"),
    # ---- manual adjustments (issue 12: card effects the engine does not automate yet)
    EventKind("adjust", ("model", "what", "to?", "facing?", "condition?", "delta?", "value?"), _adjust,
              describe_adjust,
              "a manual adjustment by the players: a model moved, a marker, wounds or Ki changed (no rule: "
              "a card effect applied by hand)"),
    # ---- scenario (p.63)
    EventKind("scenario", ("state", "notes"), _scenario,
              lambda d: "\n".join(f"  {t}" for t in d.get("notes", [])) or "  scenario state updated",
              "the scenario state after a set-up, a Scenario action or scoring (p.63)"),
)}
