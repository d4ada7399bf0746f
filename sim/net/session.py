"""A hosted game: the server's authoritative :class:`~sim.rules.game.Game` and everything the
network adds around it (issue 14). Pure and synchronous: no sockets, no event loop, the
clock passed in; :mod:`sim.net.server` drives it and sends what it returns.

What it judges, besides the engine's own rules:

- **Seats.** An input comes from seat 1 or 2 (its token was checked when the connection
  said ``hello``). An action must be that seat's decision: the engine's
  :meth:`~sim.rules.game.Game.to_move`, or an allocation of the seat's own model in the
  waiting exchange. Anything else is refused with the reason and changes nothing.
- **Illegal actions.** An action the engine refuses (:meth:`~sim.rules.game.Game.is_legal`)
  is refused with the engine's reason, unless the client sends ``declare``: then it is
  declared as at the table, at the rulebook's cost (p.24: reverted, one counter lost).
- **The allocation stage (p.33 step 5).** Both players allocate in secret. A seat may
  send its allocation as soon as its model's exchange waits, before the engine asks for
  it: the server holds it (stored as a ``pending`` input) and declares it the moment the
  engine asks; if the engine then refuses it (the opponent's step-4 Ki feat changed the
  pool), it is dropped and the seat is told to allocate again. An allocation pushed
  into the game while the other one is still to come is shown to the other seat and to
  spectators without its split, special and direction (:meth:`event_for`); the whole
  of it is revealed with the other allocation (an ``update``'s ``reveal``).
- **Undo** only with the opponent's consent: seat ``s`` asks, the opponent answers; on
  yes, every action from ``s``'s last decision on is taken back (seeded dice rewound:
  the same declaration rolls the same dice, :meth:`~sim.rules.game.Game.pop`).
- **Timeout policy and clocks.** A seat away longer than the host's ``minutes`` under
  the ``claim`` policy lets the opponent claim the game. Chess clocks run for every
  seat that must decide (both during the allocation stage); a flag that falls ends the
  game. Both end the game outside the engine (:attr:`HostedGame.ended`).

Every accepted input is stored (:class:`~sim.net.store.Store`, one transaction) before
anybody is told of it; a store that fails takes the input back.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from sim.rules.dice import DiceError
from sim.rules.game import Action, Game, GameError
from sim.rules.setup import SetupError

from .secrets import event_view, new_token, owners_of, save_view, token_hash, token_matches
from .setup_stage import SetupStage
from .store import GameRow, InputRow, Store, StoreError

#: The fields of an allocation hidden from the other seat until both are in (p.33 step 5).
SECRET_FIELDS = ("attack", "defence", "special", "direction")


def _jsonable(doc: Any) -> Any:
    return json.loads(json.dumps(doc, allow_nan=False))


@dataclass
class Update:
    """One accepted action: ``index`` (its number in the game's actions), ``by`` (seat),
    the action and its events (JSON, unredacted), the d6 values it rolled, ``first`` (the
    index of its first event in the game's events), ``reveal`` (``[(event index, event)]``
    of an earlier secret allocation now revealed)."""

    index: int
    by: int
    action: dict
    events: list[dict]
    rolls: list[int]
    first: int
    reveal: list[tuple[int, dict]] = field(default_factory=list)


@dataclass
class Outcome:
    """What an input did: ``updates`` to send (each viewer gets its view), ``state``
    (send every viewer a full state: after an undo), ``status`` (send the status),
    ``notify`` (``[(seat, message)]`` for one seat), ``error`` (the input was refused:
    send it back, nothing changed), ``setup`` (a set-up step taken, as JSON)."""

    updates: list[Update] = field(default_factory=list)
    state: bool = False
    setup: dict | None = None
    status: bool = False
    notify: list[tuple[int, dict]] = field(default_factory=list)
    error: dict | None = None

    @classmethod
    def refused(cls, code: str, message: str) -> "Outcome":
        """A refusal: ``error`` with ``code`` and one line."""
        return cls(error={"type": "error", "code": code, "message": message})


class HostedGame:
    """One game on the server.

    Args:
        game_id: the game's id (URL-safe text).
        game: the authoritative game.
        spec: the game's save as created (the store keeps it; a restart re-simulates from it).
        tokens: ``{"1": sha256 hex, "2": sha256 hex}`` of the seat tokens.
        settings: ``timeout`` (``{"policy", "minutes"}``), ``clock`` (``{"minutes",
            "increment"}`` or None), ``bots``, ``tournament``, ``name``.
        store: where inputs are kept (None: nowhere, for tests).
        now: the clock (seconds; ``time.monotonic`` by default).
    """

    def __init__(self, game_id: str, game: Game | None, spec: dict, tokens: dict, settings: dict,
                 store: Store | None = None, now: Callable[[], float] = time.monotonic,
                 stage: SetupStage | None = None) -> None:
        self.id = game_id
        #: the game (None while the set-up is played: :attr:`stage`).
        self.game: Game = game  # type: ignore[assignment]
        #: the set-up being played before the game (None once the game started).
        self.stage = stage
        self.spec = spec
        self.tokens = dict(tokens)
        self.settings = dict(settings)
        self.store = store
        self.now = now
        self.owners = owners_of(spec) if game is not None else stage.owners() if stage is not None else {}
        scen = spec.get("scenario") if game is not None else None
        self.hidden_vims = isinstance(scen, dict) and isinstance(scen.get("vim"), dict) and \
            scen["vim"].get("kind") == "hidden"
        #: seat -> an allocation held until the engine asks for it (p.33 step 5).
        self.pending: dict[int, Action] = {}
        #: who decided each action of ``game.actions`` (seat 1 or 2).
        self.by: list[int] = []
        #: the seat asking for an undo, or None.
        self.undo_by: int | None = None
        #: open connections per seat.
        self.connected: dict[int, int] = {1: 0, 2: 0}
        #: when each absent seat left (``now()``), for the timeout policy.
        self.away_since: dict[int, float] = {1: self.now(), 2: self.now()}
        clock = self.settings.get("clock")
        #: seconds left on each seat's clock, or None without clocks.
        self.clocks: dict[int, float] | None = (
            {1: 60.0 * clock["minutes"], 2: 60.0 * clock["minutes"]} if clock else None)
        self._ticked = self.now()
        #: how the game ended outside the engine (``{"result", "winner", "loser"}``), or None.
        self.ended: dict | None = None
        #: ``(event index, owner seat)`` of an allocation pushed while the other is still due.
        self.secret: tuple[int, int] | None = None

    # ------------------------------------------------------------ creation and restart
    @classmethod
    def create(cls, game_id: str, game: Game, settings: dict, store: Store | None = None,
               now: Callable[[], float] = time.monotonic) -> tuple["HostedGame", dict[int, str]]:
        """A new hosted game and its seat tokens ``{1: token, 2: token}`` (only their
        hashes are kept).

        Raises:
            StoreError: the store cannot keep it.
        """
        tokens = {1: new_token(), 2: new_token()}
        hashes = {str(s): token_hash(t) for s, t in tokens.items()}
        spec = _jsonable(game.to_json())
        if store is not None:
            store.add_game(game_id, spec, hashes, settings)
        return cls(game_id, game, spec, hashes, settings, store, now), tokens

    @classmethod
    def create_setup(cls, game_id: str, stage: SetupStage, settings: dict, store: Store | None = None,
                     now: Callable[[], float] = time.monotonic) -> tuple["HostedGame", dict[int, str]]:
        """A new hosted game that starts with its set-up (:mod:`sim.net.setup_stage`), and
        its seat tokens.

        Raises:
            StoreError: the store cannot keep it.
        """
        tokens = {1: new_token(), 2: new_token()}
        hashes = {str(s): token_hash(t) for s, t in tokens.items()}
        spec = _jsonable(stage.to_spec())
        if store is not None:
            store.add_game(game_id, spec, hashes, settings)
        return cls(game_id, None, spec, hashes, settings, store, now, stage), tokens

    def _start(self) -> None:
        """The set-up is done: the game starts (its set-up events played)."""
        assert self.stage is not None
        self.game = self.stage.game()
        self.owners = owners_of(_jsonable(self.game.to_json()))
        self.stage = None

    @classmethod
    def restore(cls, row: GameRow, inputs: list[InputRow], store: Store | None = None,
                now: Callable[[], float] = time.monotonic) -> "HostedGame":
        """The game as it stood at its last stored input: the set-up re-simulated from the
        spec, then every input replayed through the engine, each action's events checked
        against the stored ones.

        Raises:
            GameError: the spec cannot be re-simulated, or an input's events differ from
                the stored ones (``game ID: inputs[seq]: ...``).
        """
        if "setup" in row.spec:
            try:
                stage = SetupStage.from_spec(row.spec)
            except SetupError as exc:
                raise GameError(f"game {row.id}: spec: {exc}") from None
            h = cls(row.id, None, row.spec, row.tokens, row.settings, store, now, stage)
        else:
            h = cls(row.id, Game.from_save(row.spec, source=f"game {row.id}: spec"), row.spec, row.tokens,
                    row.settings, store, now)
        for inp in inputs:
            where = f"game {row.id}: inputs[{inp.seq}]"
            p = inp.payload
            game = h.game
            if inp.kind == "setup":
                assert h.stage is not None, f"{where}: a set-up step after the set-up"
                try:
                    h.stage.replay(p["step"])
                except SetupError as exc:
                    raise GameError(f"{where}: the set-up step cannot be taken again ({exc})") from None
                if h.stage.phase == "done":
                    h._start()
            elif inp.kind == "action":
                a = Action.from_json(p["action"])
                try:
                    evs = game.push(a)
                except (GameError, DiceError) as exc:
                    raise GameError(f"{where}: {a} cannot be re-simulated ({exc})") from None
                got = _jsonable([e.to_json() for e in evs])
                if got != p["events"]:
                    raise GameError(f"{where}: the events of {a} differ from the stored ones")
                h.by.append(int(inp.seat or 0))
                h.pending.pop(int(inp.seat or 0), None)
                h._track_secret(len(game.events) - len(evs))
            elif inp.kind == "pending":
                h.pending[int(inp.seat or 0)] = Action.from_json(p["action"])
            elif inp.kind == "drop_pending":
                h.pending.pop(int(inp.seat or 0), None)
            elif inp.kind == "undo":
                for _ in range(int(p["n"])):
                    game.pop()
                    h.by.pop()
                h.pending.clear()
                h.secret = None
                h._track_secret(0)
            elif inp.kind == "end":
                h.ended = dict(p["ended"])
            if isinstance(p.get("clocks"), dict) and h.clocks is not None:
                h.clocks = {int(k): float(v) for k, v in p["clocks"].items()}
        return h

    # ------------------------------------------------------------ seats
    def seat_of_token(self, seat: Any, token: Any) -> bool:
        """Whether ``token`` is ``seat``'s (compared in constant time)."""
        digest = self.tokens.get(str(seat))
        return digest is not None and token_matches(token, digest)

    def join(self, seat: int | None) -> Outcome:
        """A connection of ``seat`` (None: a spectator) opened."""
        if seat in (1, 2):
            self.connected[seat] += 1
            self.away_since.pop(seat, None)
        return Outcome(status=True)

    def leave(self, seat: int | None) -> Outcome:
        """A connection of ``seat`` closed (dropped, crashed or quit)."""
        if seat in (1, 2):
            self.connected[seat] = max(0, self.connected[seat] - 1)
            if self.connected[seat] == 0:
                self.away_since[seat] = self.now()
        return Outcome(status=True)

    # ------------------------------------------------------------ what each viewer sees
    def over(self) -> bool:
        """The game has ended (in the engine, or claimed, or on time)."""
        return self.ended is not None or (self.game is not None and self.game.is_over())

    def event_for(self, index: int, event: dict, viewer: int | None) -> dict:
        """Event number ``index`` of the game (JSON) as ``viewer`` sees it."""
        out = event_view(event, viewer, self.owners, self.hidden_vims, self.over())
        if self.secret is not None and index == self.secret[0] and viewer != self.secret[1]:
            out = dict(out)
            out.update(attack=0, defence=0, special=None, direction=None, secret=True)
        return out

    def action_for(self, index: int, action: dict, viewer: int | None) -> dict:
        """Action number ``index`` (JSON) as ``viewer`` sees it (a secret allocation
        without its split, special and direction)."""
        if (self.secret is not None and action.get("kind") == "allocate" and index == len(self.by) - 1
                and self.by[index] == self.secret[1] and viewer != self.secret[1]):
            return {k: v for k, v in action.items() if k not in SECRET_FIELDS}
        return action

    def view(self, viewer: int | None) -> dict:
        """The full state for ``viewer``: ``save`` (the save as the viewer sees it: build
        the mirror with ``Game.from_save(save, verify=False)``), ``by`` (who decided each
        action), ``pending`` (this seat's own held allocation, if any), ``status``; during
        the set-up ``save`` is None and ``setup`` is the set-up as the viewer sees it."""
        if self.game is None:
            assert self.stage is not None
            return {"game": self.id, "seat": viewer, "save": None, "setup": self.stage.view(viewer), "by": [],
                    "pending": None, "status": self.status()}
        doc = _jsonable(self.game.to_json())
        save = save_view(doc, viewer, self.owners, self.over())
        save["events"] = [self.event_for(i, e, viewer) if e.get("kind") == "allocated" else e
                          for i, e in enumerate(save["events"])]
        save["actions"] = [self.action_for(i, a, viewer) for i, a in enumerate(save["actions"])]
        if "rolls" in save and len(save["rolls"]) != len(save["actions"]) + 1:
            save.pop("rolls")
        mine = self.pending.get(viewer) if viewer in (1, 2) else None
        return {"game": self.id, "seat": viewer, "save": save, "by": list(self.by),
                "pending": mine.to_json() if mine is not None else None, "status": self.status()}

    def update_for(self, u: Update, viewer: int | None) -> dict:
        """The ``update`` message of ``u`` for ``viewer``."""
        events = [self.event_for(u.first + k, e, viewer) for k, e in enumerate(u.events)]
        return {"type": "update", "index": u.index, "by": u.by, "action": self.action_for(u.index, u.action, viewer),
                "events": events, "rolls": u.rolls, "first": u.first,
                "reveal": [[i, event_view(e, viewer, self.owners, self.hidden_vims, self.over())]
                           for i, e in u.reveal if viewer != self.by_event_owner(i)],
                "status": self.status()}

    def by_event_owner(self, index: int) -> int | None:
        """The player owning the model of event ``index`` (an allocation), or None."""
        ev = self.game.events[index] if 0 <= index < len(self.game.events) else None
        return self.owners.get(str(ev.data.get("model"))) if ev is not None else None

    # ------------------------------------------------------------ status
    def due_allocations(self) -> dict[str, int]:
        """The models of the waiting exchange that have not allocated: ``{model: seat}``."""
        ex = self.game.state.exchange if self.game is not None else None
        if ex is None:
            return {}
        return {m: self.game.state.models[m].player for m in (ex["attacker"], ex["defender"])
                if m not in ex["allocations"]}

    def to_move(self) -> int | None:
        """The seat whose decision the engine waits for (None once over)."""
        if self.over():
            return None
        if self.game is None:
            return self.stage.to_act() if self.stage is not None else None
        return self.game.to_move()

    def may_allocate(self) -> list[int]:
        """The seats that may send their allocation now (the allocation stage: both)."""
        if self.over() or self.game is None or self.game.answers_pending() or self.game.damage_offers_pending():
            return []
        return sorted({s for s in self.due_allocations().values() if s not in self.pending})

    def status(self) -> dict:
        """The public status: turn, phase, active player, ``to_move``, ``may_allocate``,
        ``allocated`` (seats whose allocation is in, held or declared), who is connected,
        how long the absent have been away, what may be claimed, the clocks, the undo
        asked, the result."""
        now = self.now()
        tmo = self.settings.get("timeout") or {"policy": "wait", "minutes": 10.0}
        waiting = [s for s in (1, 2) if not self.connected[s]]
        common = {"away": {str(s): round(now - t, 1) for s, t in self.away_since.items()},
                  "connected": {str(s): bool(self.connected[s]) for s in (1, 2)},
                  "waiting": ("waiting for " + " and ".join(f"player {s}" for s in waiting)) if waiting else None,
                  "timeout": tmo, "claimable": [s for s in (1, 2) if tmo.get("policy") == "claim"
                                                and self._claimable(s, now)],
                  "clocks": self._clock_view(now), "undo": self.undo_by, "over": self.over(),
                  "result": dict(self.ended) if self.ended is not None else None}
        if self.game is None:
            assert self.stage is not None
            return {"turn": 0, "phase": "setup", "setup_phase": self.stage.phase, "active": None,
                    "to_move": self.to_move(), "may_allocate": [], "allocated": [], "actions": 0, "events": 0,
                    **common}
        st = self.game.state
        ex = st.exchange
        allocated = sorted({st.models[m].player for m in (ex["allocations"] if ex else {})} | set(self.pending))
        if self.ended is None and self.game.is_over():
            ev = next((e for e in reversed(self.game.events) if e.kind == "game_over"), None)
            common["result"] = dict(ev.data) if ev is not None else {"result": "over"}
        return {"turn": st.turn, "phase": st.phase, "active": st.active, "to_move": self.to_move(),
                "may_allocate": self.may_allocate(), "allocated": allocated, "actions": len(self.game.actions),
                "events": len(self.game.events), **common}

    def _claimable(self, seat: int, now: float) -> bool:
        """Whether ``seat`` may claim: its opponent is away longer than the timeout."""
        tmo = self.settings.get("timeout") or {}
        other = 3 - seat
        since = self.away_since.get(other)
        return (not self.over() and bool(self.connected[seat]) and since is not None
                and now - since >= 60.0 * float(tmo.get("minutes", 10.0)))

    def _clock_view(self, now: float) -> dict | None:
        if self.clocks is None:
            return None
        running = self._running()
        return {str(s): round(max(0.0, self.clocks[s] - (now - self._ticked if s in running else 0.0)), 2)
                for s in (1, 2)}

    def _running(self) -> set[int]:
        if self.over():
            return set()
        seats = set(self.may_allocate())
        tm = self.to_move()
        if tm is not None and not seats:
            seats.add(tm)
        return seats

    def _tick(self) -> None:
        """Take the time since the last tick off every running clock."""
        now = self.now()
        if self.clocks is not None:
            for s in self._running():
                self.clocks[s] -= now - self._ticked
        self._ticked = now

    def _clocks_json(self) -> dict | None:
        return {str(s): v for s, v in self.clocks.items()} if self.clocks is not None else None

    def _flag(self) -> dict | None:
        """The end by time, when a running clock is out."""
        if self.clocks is None or self.over():
            return None
        if self.game is None:
            return None
        for s in sorted(self._running()):
            if self.clocks[s] <= 0:
                return {"result": f"player {s} ran out of time", "winner": 3 - s, "loser": s, "by": "time"}
        return None

    def tick(self) -> Outcome | None:
        """Called every second or so by the server: a fallen flag ends the game."""
        self._tick()
        end = self._flag()
        if end is None:
            return None
        return self._end(end)

    def _end(self, end: dict) -> Outcome:
        try:
            self._store([("end", None, {"ended": end, "clocks": self._clocks_json()})])
        except StoreError as exc:
            return Outcome.refused("store", str(exc))
        self.ended = end
        self.undo_by = None
        return Outcome(status=True)

    # ------------------------------------------------------------ inputs
    def _store(self, rows: list[tuple[str, int | None, dict]]) -> None:
        if self.store is not None:
            self.store.append(self.id, rows)

    def _track_secret(self, first: int) -> list[tuple[int, dict]]:
        """After events from ``first`` on: the allocation now secret (pushed while the
        other is still due), and the earlier one revealed (``[(index, event JSON)]``)."""
        reveal: list[tuple[int, dict]] = []
        ex = self.game.state.exchange
        if self.secret is not None and (ex is None or len(ex["allocations"]) != 1):
            i = self.secret[0]
            if i < len(self.game.events):
                reveal.append((i, _jsonable(self.game.events[i].to_json())))
            self.secret = None
        if ex is not None and len(ex["allocations"]) == 1 and self.secret is None:
            for i in range(len(self.game.events) - 1, first - 1, -1):
                ev = self.game.events[i]
                if ev.kind == "allocated":
                    self.secret = (i, self.owners.get(str(ev.data.get("model")), 0))
                    break
        return reveal

    def _push(self, seat: int, action: Action, declare: bool) -> tuple[Update | None, str | None]:
        """Push ``action`` for ``seat``: ``(update, None)``, or ``(None, why)`` unchanged."""
        try:
            ok, why = self.game.is_legal(action)
        except KeyError as exc:  # an id naming no model: some engine look-ups raise KeyError (a refusal here)
            return None, str(exc.args[0]) if exc.args else "no such model"
        if not ok and not (declare and action.kind != "allocate"):
            return None, why
        first = len(self.game.events)
        try:
            evs = self.game.push(action)  # all or nothing: a push that raises leaves the game as it was
        except (GameError, DiceError, KeyError) as exc:
            return None, str(exc.args[0]) if isinstance(exc, KeyError) and exc.args else str(exc)
        self.by.append(seat)
        events = _jsonable([e.to_json() for e in evs])
        rolls = list(self.game.rolls[-1]) if self.game.rolls else []
        reveal = self._track_secret(first)
        return Update(len(self.by) - 1, seat, _jsonable(action.to_json()), events, rolls, first, reveal), None

    def _undo_pushes(self, n: int) -> None:
        for _ in range(n):
            self.game.pop()
            self.by.pop()
        self.secret = None
        self._track_secret(0)

    def submit(self, seat: int, doc: Any, seen: int, declare: bool = False) -> Outcome:
        """Seat ``seat`` sends the action ``doc`` (``Action.to_json()``), having seen
        ``seen`` actions. Refused (nothing changes) when the game is over, ``seen`` is
        not the number of actions, the action is malformed, it is not this seat's
        decision, or the engine refuses it (its reason; ``declare``: declared anyway at
        the cost of a counter, p.24)."""
        if self.over():
            return Outcome.refused("state", "the game is over")
        if self.game is None:
            return Outcome.refused("state", "the set-up is being played: send set-up steps")
        if seen != len(self.game.actions):
            return Outcome.refused("stale", f"out of date: you have seen {seen} actions, the game has "
                                            f"{len(self.game.actions)}; the full state follows")
        try:
            action = Action.from_json(_jsonable(doc))
        except (GameError, ValueError, TypeError) as exc:
            return Outcome.refused("schema", f"action: {exc}")
        if self.undo_by is not None:
            return Outcome.refused("state", f"player {self.undo_by} asked to take back a decision: the answer "
                                            "comes first")
        due = self.due_allocations()
        if action.kind == "allocate" and action.model in due:
            if due[action.model] != seat:
                return Outcome.refused("seat", f"{action.model} is not your model")
            if seat in self.pending:
                return Outcome.refused("state", "your allocation is already in")
            if self.to_move() != seat:  # the allocation stage: held until the engine asks (p.33 step 5)
                ok, why = self.game.is_legal(action)
                if not ok:
                    return Outcome.refused("illegal", why)
                self._tick()
                try:
                    self._store([("pending", seat, {"action": action.to_json(), "clocks": self._clocks_json()})])
                except StoreError as exc:
                    return Outcome.refused("store", str(exc))
                self.pending[seat] = action
                self._increment(seat)
                return Outcome(status=True, notify=[(seat, {"type": "held", "action": action.to_json()})])
        if self.to_move() != seat:
            return Outcome.refused("seat", f"not your decision: the game waits for player {self.to_move()}")
        if self.pending and action.kind != "allocate":
            return Outcome.refused("state", "an allocation is in: the Ki feats and boosts of step 4 are over "
                                            "(p.33-34); allocate")
        self._tick()
        update, why = self._push(seat, action, declare)
        if update is None:
            return Outcome.refused("illegal", why or "refused")
        out = Outcome(updates=[update], status=True)
        rows: list[tuple[str, int | None, dict]] = [
            ("action", seat, {"action": update.action, "events": update.events, "rolls": update.rolls})]
        self._flush_pending(out, rows)
        self._increment(seat)
        rows[-1][2]["clocks"] = self._clocks_json()
        try:
            self._store(rows)
        except StoreError as exc:
            self._undo_pushes(len(out.updates))
            return Outcome.refused("store", str(exc))
        return out

    def _flush_pending(self, out: Outcome, rows: list) -> None:
        """Declare every held allocation the engine now asks for."""
        while not self.over():
            tm = self.to_move()
            held = self.pending.get(tm) if tm is not None else None
            if held is None:
                return
            del self.pending[tm]
            update, why = self._push(tm, held, False)
            if update is None:
                rows.append(("drop_pending", tm, {}))
                out.notify.append((tm, {"type": "error", "code": "illegal",
                                        "message": f"your allocation can no longer be made ({why}): allocate again"}))
                return
            rows.append(("action", tm, {"action": update.action, "events": update.events, "rolls": update.rolls}))
            out.updates.append(update)

    def _increment(self, seat: int) -> None:
        clock = self.settings.get("clock")
        if self.clocks is not None and clock:
            self.clocks[seat] += float(clock.get("increment", 0.0))

    def request_undo(self, seat: int, seen: int) -> Outcome:
        """Seat ``seat`` asks to take back its last decision; the opponent is asked."""
        if self.over():
            return Outcome.refused("state", "the game is over")
        if self.game is None:
            return Outcome.refused("state", "no take-backs during the set-up")
        if seen != len(self.game.actions):
            return Outcome.refused("stale", "out of date: the full state follows")
        if seat not in self.by and seat not in self.pending:
            return Outcome.refused("state", "you have no decision to take back")
        if self.undo_by is not None:
            return Outcome.refused("state", f"player {self.undo_by} already asked")
        if self.settings.get("tournament"):
            return Outcome.refused("state", "no take-backs in tournament mode")
        self.undo_by = seat
        return Outcome(status=True, notify=[(3 - seat, {"type": "undo_request", "by": seat})])

    def answer_undo(self, seat: int, accept: bool) -> Outcome:
        """The opponent (``seat``) answers the undo request."""
        if self.undo_by is None or self.undo_by == seat:
            return Outcome.refused("state", "no take-back was asked of you")
        asker, self.undo_by = self.undo_by, None
        if not accept:
            return Outcome(status=True, notify=[(asker, {"type": "error", "code": "declined",
                                                         "message": f"player {seat} declined the take-back"})])
        if asker in self.pending and (not self.by or asker not in self.by[-1:]):
            try:
                self._store([("drop_pending", asker, {})])
            except StoreError as exc:
                return Outcome.refused("store", str(exc))
            self.pending.pop(asker)
            return Outcome(state=True, status=True)
        k = max(i for i, s in enumerate(self.by) if s == asker)
        n = len(self.by) - k
        try:
            self._store([("undo", asker, {"n": n})])
        except StoreError as exc:
            return Outcome.refused("store", str(exc))
        self._undo_pushes(n)
        self.pending.clear()
        return Outcome(state=True, status=True)

    def claim(self, seat: int) -> Outcome:
        """Seat ``seat`` claims the game: its opponent has been away past the timeout."""
        if self.over():
            return Outcome.refused("state", "the game is over")
        tmo = self.settings.get("timeout") or {}
        if tmo.get("policy") != "claim":
            return Outcome.refused("state", "the host's policy is to wait for the other player")
        if not self._claimable(seat, self.now()):
            return Outcome.refused("state", f"player {3 - seat} has not been away for {tmo.get('minutes')} minutes")
        return self._end({"result": f"player {seat} claims the game: player {3 - seat} did not come back",
                          "winner": seat, "loser": 3 - seat, "by": "claim"})

    def save(self) -> dict:
        """The game's ``bushido-game/1`` save (with its seed: only once it is over).

        Raises:
            GameError: the game has not started (its set-up is being played)."""
        if self.game is None:
            raise GameError("the game has not started: its set-up is being played")
        return _jsonable(self.game.to_json())

    def setup_step(self, seat: int, doc: Any, auto: bool = False) -> Outcome:
        """Seat ``seat``'s set-up step ``doc`` (``Step.to_dict()``), or its next step by
        the engine's policy (``auto``); judged by the set-up's rules (every reason), stored,
        and the game started when the set-up is done."""
        if self.stage is None:
            return Outcome.refused("state", "the set-up is over: the game is being played")
        if self.over():
            return Outcome.refused("state", "the game is over")
        self._tick()
        step, why = self.stage.take(seat, doc, auto)
        if step is None:
            return Outcome.refused("illegal", why or "refused")
        row = step.to_dict()
        try:
            self._store([("setup", seat, {"step": row, "clocks": self._clocks_json()})])
        except StoreError as exc:  # nothing kept: the set-up is rebuilt without the step
            self.stage = SetupStage.from_spec(self.spec)
            for inp in (self.store.inputs(self.id) if self.store is not None else []):
                if inp.kind == "setup":
                    self.stage.replay(inp.payload["step"])
            return Outcome.refused("store", str(exc))
        if self.stage.phase == "done":
            self._start()
            return Outcome(state=True, status=True, setup=row)
        return Outcome(status=True, setup=row)

