"""Saves (``bushido-game/1`` JSON), verified on load by re-simulation, and replays.

A save holds the inputs of a game (table, scenario, length, seed or the values rolled,
positions set by hand) and its actions and events; :meth:`SaveLoad.load` sets the game up
again, pushes every action and refuses the file (one line: the file, the first differing
entry, both values and the action behind it) unless the events, rolls and dice position
equal the saved ones. A mixin of :class:`~sim.rules.game.Game`.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import asdict
from pathlib import Path
from typing import Any, TypeVar, cast

import yaml

from sim.files import FileProblem, one_line, quote, read_json, write_text_atomic
from sim.rules.dice import DiceError, PhysicalDice
from sim.rules.game.actions import Action
from sim.rules.game.events import Event
from sim.rules.game.part import GamePart, ResumableDice
from sim.rules.game.state import GameError
from sim.rules.game.values import MESSAGE_CHARS, cut, short
from sim.rules.scenario import ScenarioError, scenario_from_dict
from sim.table import TableError, parse_table

#: The class a save is loaded as (:class:`~sim.rules.game.Game`, or a subclass).
_G = TypeVar("_G", bound="SaveLoad")

GAME_FORMAT = "bushido-game/1"

#: The version of the rules the engine plays; a save records it (``"rules"``; a save
#: without the key was written under version 1). Raised whenever a change of the rules
#: changes seeded games (version 2: issue 13, every trait, feat and card in play), so that
#: a save of an older version that no longer re-simulates says why and how to open it.
RULES_VERSION = 2

def is_save_head(head: bytes) -> bool:
    """Whether the first bytes of a file are those of a save (:meth:`Game.save`): its
    ``"format"`` names ``bushido-game/``. For refusing to overwrite other files."""
    return re.search(rb'"format"\s*:\s*"bushido-game/', head[:512]) is not None


#: The keys of a save document (:meth:`Game.to_json`).
_SAVE_KEYS = frozenset({"format", "table", "seed", "length", "actions", "events", "scenario", "dice", "rolls",
                        "dice_state", "tournament", "elsewhere", "cards", "rules"})



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
                return (f"events[{i}]", f"{b['kind']} event: {quote(k)} is {short(a.get(k, '(none)'))} in the file, "
                                        f"{short(b.get(k, '(none)'))} when re-simulated")
    if len(want) != len(got):
        i = min(len(want), len(got))
        extra = f"the file has {short(want[i])}" if len(want) > i else f"the re-simulation has {short(got[i])}"
        return "events", f"the file has {len(want)} events, the re-simulation {len(got)}; first extra: {extra}"
    return None



def _event_text(doc) -> str:
    """A saved event (JSON) for a one-line message: its kind and readable line."""
    try:
        ev = Event.from_json(doc)
        return f"a {ev.kind!r} event ({cut(ev.describe().strip(), 90)})"
    except Exception:  # noqa: BLE001 - a malformed event is shown as it is
        return short(doc)



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



def _held_back_models(held, table, source: str, bad):
    """The save's ``elsewhere`` list (the models held back by Flank, each a table entry
    with its turn, edge and zone): ``(table with those models added last, {id: (turn,
    edge, zone)})``; ``(table, None)`` without the key.

    Raises:
        GameError: ``elsewhere[i]``: not a list of such entries, a model the table loader
            refuses, an id already on the table.
    """
    if held is None:
        return table, None
    if not isinstance(held, list):
        raise bad("elsewhere", "expected a list of held-back models")
    from dataclasses import replace

    from sim.table import Table

    models, out = list(table.models), {}
    for i, h in enumerate(held):
        where = f"elsewhere[{i}]"
        if not (isinstance(h, dict) and isinstance(h.get("model"), dict)
                and set(h) <= {"model", "turn", "edge", "zone"}):
            raise bad(where, 'expected {"model": a table entry, "turn", "edge", "zone"}')
        entry = dict(h["model"])
        pos = entry.get("position")
        if not (isinstance(pos, list) and len(pos) == 2 and all(isinstance(v, (int, float)) for v in pos)):
            raise bad(f"{where}.model.position", f"expected [x, y], got {short(pos)}")
        entry["position"] = [table.width / 2, table.depth / 2]  # parsed alone: where it waits means nothing
        try:
            alone = parse_table(yaml.safe_dump({"format": "bushido-table/1", "name": "elsewhere",
                                                "table": {"width": table.width, "depth": table.depth},
                                                "models": [entry]}), f"{source}:{where}.model")
        except TableError as exc:
            raise GameError(one_line(str(exc), 2 * MESSAGE_CHARS)) from None
        m = replace(alone.models[0], position=(float(pos[0]), float(pos[1])))
        if any(x.id == m.id for x in models):
            raise bad(where, f"model {quote(m.id)} is also on the table")
        models.append(m)
        out[m.id] = (h.get("turn"), h.get("edge"), h.get("zone"))
    return Table(table.name, table.width, table.depth, table.terrain, tuple(models), table.source), out


class SaveLoad(GamePart):
    """Save, load (verified), replay (a mixin of :class:`~sim.rules.game.Game`)."""

    def to_json(self) -> dict:
        """The save: table, seed, game length, scenario, actions, events and the dice.

        ``dice`` is ``"seeded"`` when ``SeededDice(seed)`` made every roll (then
        ``dice_state`` tells where the sequence stands, so that a loaded game rolls on),
        else ``"physical"``; ``rolls`` holds the values rolled, one list for the game's
        creation and one per action. :meth:`load` re-simulates the actions with them.
        ``tournament``: true in tournament mode (left out otherwise: manual adjustments,
        ``adjust`` events, are allowed). ``elsewhere`` (only when models were held back by
        Flank, :attr:`held_back`): ``[{"model": table entry, "turn", "edge", "zone"}]``;
        those models are left out of ``table`` (they are not on it when the game starts).
        ``cards`` (only when the warbands brought special cards): their facts
        (:attr:`card_facts`, :mod:`sim.rules.game.special_cards`).
        """
        table = self.table.to_dict()
        held = []
        if self.held_back:  # the models held back by Flank are not on the table: listed apart
            held = [{"model": e, **self.held_back[e["id"]].to_json()} for e in table["models"]
                    if e["id"] in self.held_back]
            table["models"] = [e for e in table["models"] if e["id"] not in self.held_back]
        doc: dict[str, Any] = {"format": GAME_FORMAT, "rules": RULES_VERSION, "table": table, "seed": self.seed,
                               "length": list(self.length), "actions": [a.to_json() for a in self._actions],
                               "events": [e.to_json() for e in self.events]}
        if held:
            doc["elsewhere"] = held
        if self.card_facts:  # the warbands' special cards (special_cards, p.14-18)
            doc["cards"] = [dict(c) for c in self.card_facts]
        if self.scenario is not None:
            doc["scenario"] = self.scenario.to_dict()
        if self.tournament:
            doc["tournament"] = True
        if not getattr(self, "_legacy", False):
            doc["dice"] = "seeded" if self.seeded else "physical"
            doc["rolls"] = [list(r) for r in self._rolls]
            if self.seeded:
                doc["dice_state"] = cast(ResumableDice, self._dice).state()  # a loaded game rolls on from here
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
    def load(cls: type[_G], path: str | os.PathLike, verify: bool = True) -> _G:
        """Load a save written by :meth:`save` and check it: the game is rebuilt by
        re-simulating the saved actions with the saved dice (:meth:`from_save`).

        Raises:
            GameError: unreadable, malformed or tampered file: one line naming the file,
                the entry (``events[57]``, ``actions[3]``, ``length``) and the problem.
        """
        path = Path(path)
        try:  # at most 16 MiB of UTF-8 JSON, 64 levels deep, no duplicate keys or NaN
            doc = read_json(path)
        except FileProblem as exc:
            raise GameError(str(exc)) from None
        return cls.from_save(doc, str(path), verify=verify)

    @classmethod
    def from_save(cls: type[_G], doc, source: str = "<save>", verify: bool = True) -> _G:
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
            raise bad("length", f'expected ["fixed" or "variable", turns 1..100], got {short(length)}')
        seed = doc.get("seed")
        if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
            raise bad("seed", f"expected a whole number or null, got {short(seed)}")
        rules = doc.get("rules", 1)
        if not isinstance(rules, int) or isinstance(rules, bool) or rules < 1:
            raise bad("rules", f"expected a rules version (a whole number >= 1), got {short(rules)}")
        if rules > RULES_VERSION:
            raise bad("rules", f"written under the rules of version {rules}, newer than this engine's "
                               f"({RULES_VERSION}): update the program")
        older = "" if rules == RULES_VERSION else (
            f" (the save was written under the rules of version {rules}; this engine plays version "
            f"{RULES_VERSION}, whose rules differ: open it unverified, main.py replay --unverified, to see the game "
            "as it was played)")
        tournament = doc.get("tournament", False)
        if not isinstance(tournament, bool):
            raise bad("tournament", f"expected true or false, got {short(tournament)}")
        mode = doc.get("dice")
        if mode not in (None, "seeded", "physical"):
            raise bad("dice", f'expected "seeded" or "physical", got {short(mode)}')
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
        table, elsewhere = _held_back_models(doc.get("elsewhere"), table, source, bad)
        cards = doc.get("cards")
        if cards is not None and not isinstance(cards, list):
            raise bad("cards", "expected a list of card facts")
        if not verify:
            g0 = cls._unverified(table, seed, length, scenario, events, actions, doc.get("dice_state"), bad,
                                 elsewhere, cards, rolls)
            g0.tournament = tournament
            return g0
        if mode is None and seed is None:
            raise bad("seed", "missing: the save carries neither a seed nor the dice values, so it cannot be verified "
                              "(load it unverified: Game.load(path, verify=False), main.py replay --unverified)")
        dice = PhysicalDice([v for r in rolls for v in r]) if mode == "physical" and rolls is not None else None
        try:
            if events and events[0].kind == "position":  # a game set up from a position
                g = cls(table, seed=seed, dice=dice, length=length, scenario=scenario, position=events[0].data,
                        elsewhere=elsewhere, cards=cards)
            else:
                g = cls(table, seed=seed, dice=dice, length=length, scenario=scenario,
                        vims=_saved_vims(scenario, events), elsewhere=elsewhere, cards=cards)
        except (GameError, DiceError) as exc:
            raise bad("", f"the set-up cannot be re-simulated ({exc}){older}") from None
        hint = older or ("" if mode is not None or "dice_state" in doc else
                         (" (an old save without dice values: if it was played with physical dice, it can only be "
                          "loaded unverified: main.py replay --unverified)"))

        def differs(upto: int | None = None) -> GameError | None:
            got = json.loads(json.dumps([e.to_json() for e in g.events]))
            diff = _first_difference(doc["events"][:upto] if upto is not None else doc["events"], got)
            if diff is None:
                return None
            where, what = diff
            k = int(where[7:-1]) if where.startswith("events[") else len(g.events)
            j = sum(1 for m in g._marks if m <= k) - 1
            origin = ("the set-up" if j < 0
                      else f"actions[{j}]: {cut(str(actions[j].model or 'player'), 40)} {cut(str(actions[j]), 90)}")
            return bad(where, f"{what} (from {origin}){hint}")

        g.tournament = tournament

        def set_by_hand() -> None:
            """The positions set by hand and the manual adjustments here (inputs of the
            save, :meth:`set_position`, :meth:`adjust`)."""
            while len(g.events) < len(events) and events[len(g.events)].kind in ("position", "adjust"):
                k = len(g.events)
                try:
                    if events[k].kind == "position":
                        g.set_position(events[k].data)
                    else:
                        g.adjust_event(events[k].data)
                except GameError as exc:
                    raise bad(f"events[{k}]", str(exc)) from None

        for i, a in enumerate(actions):
            set_by_hand()
            try:
                g.push(a)
            except (GameError, DiceError, ArithmeticError, LookupError, TypeError, ValueError) as exc:
                raise (differs(len(g.events)) or
                       bad(f"actions[{i}]", f"{short(a.to_json())} cannot be re-simulated: {exc}{hint}")) from None
        set_by_hand()
        err = differs()
        if err is not None:
            raise err
        if rolls is not None and rolls != g._rolls:
            k = next((k for k, (x, y) in enumerate(zip(rolls, g._rolls)) if x != y), min(len(rolls), len(g._rolls)))
            what = "the set-up" if k == 0 else f"actions[{k - 1}]"
            raise bad(f"rolls[{k}]", f"{what} rolled {short(g._rolls[k])}, the file says {short(rolls[k])}{older}")
        if dice is not None and dice.remaining:
            raise bad("rolls", f"{dice.remaining} recorded value(s) were never rolled")
        if "dice_state" in doc and mode != "physical" and hasattr(g._dice, "state"):
            if json.loads(json.dumps(g._dice.state())) != doc["dice_state"]:
                raise bad("dice_state", "differs from where the re-simulated dice stand")
        g.verified = True
        return g

    @classmethod
    def _unverified(cls: type[_G], table, seed, length, scenario, events, actions, dice_state, bad,
                    elsewhere=None, cards=None, rolls=None) -> _G:
        """The old loading: the saved events applied without re-simulating anything (the
        values rolled kept as the save gives them, one list per action and one for the
        set-up)."""
        try:
            g = cls(table, seed=seed, length=length, events=events, scenario=scenario, elsewhere=elsewhere,
                    cards=cards)
        except (GameError, ArithmeticError, LookupError, TypeError, ValueError, AttributeError) as exc:
            raise bad("events", f"cannot be applied ({exc})") from None
        g._actions = list(actions)
        g._legacy = True
        if rolls is not None and len(rolls) == len(actions) + 1:
            g._rolls = [list(r) for r in rolls]
        if dice_state is not None:
            try:
                cast(ResumableDice, g._dice).restore(dice_state)
            except DiceError as exc:
                raise bad("dice_state", str(exc)) from None
        return g

    def replay(self: _G) -> _G:
        """A new game rebuilt from this game's events (must equal this one)."""
        return type(self)(self.table, seed=self.seed, length=self.length, events=list(self.events),
                          scenario=self.scenario, elsewhere=dict(self.held_back), cards=list(self.card_facts))

    def snapshot(self) -> dict:
        """The state as plain data (for comparing states)."""
        return json.loads(json.dumps(asdict(self.state), default=str))
