"""The game server (``main.py serve``): asyncio with ``websockets``; every game a
:class:`~sim.net.session.HostedGame` kept in a :class:`~sim.net.store.Store` (issue 14).

A connection's first message says what it is: ``create`` (a new game; the answer holds
its id and one invitation per seat), ``hello`` (a seat with its token, or a spectator),
``export`` (a finished game's save). After ``hello`` the connection gets the full state
(``welcome``) and then every change as the seat may see it. The server is the only
judge and the only dice: a client's message is an action to judge, never a result.

Limits: frames over :data:`~sim.net.protocol.MAX_FRAME` bytes close the connection
(``websockets``' own limit, close code 1009); other messages over
:data:`~sim.net.protocol.MAX_MESSAGE` bytes, text that is not JSON and JSON that is no
message are refused with an ``error`` and the connection stays; more than
:attr:`GameServer.rate` messages a second (bursts of :attr:`GameServer.burst`) are refused
with ``rate``, and a connection that keeps on is closed (1008). The default (100 a
second, bursts of 200) is far above a human's pace and lets a bot play at full speed. Tokens are compared in
constant time and never logged.

Games are loaded from the store when first asked for (a restart costs nothing until a
client comes back; a game's inputs are re-simulated then, checked against the stored
events); a finished game nobody watches is dropped from memory (the store keeps it). An
input on which the engine itself fails is refused with ``engine`` (and logged); the
connection and the game go on unchanged.
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
import secrets
import tempfile
import time
from pathlib import Path
from typing import Any

from websockets.asyncio.server import ServerConnection, serve
from websockets.exceptions import ConnectionClosed

from sim.rules.game import Game, GameError
from sim.table import TableError, parse_table

from .protocol import (
    MAX_FRAME,
    PROTOCOL,
    ActionMsg,
    Claim,
    Create,
    Export,
    Hello,
    ProtocolError,
    SetupMsg,
    Undo,
    UndoAnswer,
    dumps,
    error,
    parse_client,
)
from .session import HostedGame, Outcome
from .setup_stage import SetupStage, step_view
from .store import Store, StoreError

log = logging.getLogger("bushido.net")

#: A bundled scenario's name (a client never names a file on the server).
SCENARIO_NAME = re.compile(r"^[a-z0-9_]{1,40}$")


class GameServer:
    """The server's games and connections.

    Args:
        store: where games are kept.
        data: the BattleScribe catalogues for ``create`` with warbands (default
            ``../shared/bsdata`` when present).
        rate, burst: messages a second per connection, and the burst allowed.
        now: the clock of the sessions (``time.monotonic``).
    """

    def __init__(self, store: Store, data: str | None = None, rate: float = 100.0, burst: int = 200,
                 now=time.monotonic) -> None:
        self.store = store
        self.data = data
        self.rate = rate
        self.burst = burst
        self.now = now
        self.games: dict[str, HostedGame] = {}
        self.viewers: dict[str, dict[ServerConnection, int | None]] = {}
        #: one lock per game: an input is judged and published before the next is read, so
        #: every viewer gets the updates in order and a welcome is never overtaken.
        self.locks: dict[str, asyncio.Lock] = {}
        #: accepted-action latencies, seconds (receipt to the last send), for the load benchmark.
        self.latencies: list[float] = []
        self.url = ""
        #: seconds a viewer may take to accept a message before it is disconnected.
        self.send_timeout = 10.0

    # ------------------------------------------------------------ games
    def hosted(self, game_id: str) -> HostedGame | None:
        """The game ``game_id`` (loaded and re-simulated from the store on first use), or None.

        Raises:
            GameError: the stored game cannot be re-simulated.
        """
        h = self.games.get(game_id)
        if h is not None:
            return h
        row = self.store.game(game_id)
        if row is None:
            return None
        h = HostedGame.restore(row, self.store.inputs(game_id), self.store, self.now)
        self.games[game_id] = h
        return h

    def create(self, msg: Create) -> dict:
        """A new game from ``msg``: the ``created`` message (id, invitations, watch URL).

        Raises:
            ValueError: a table, scenario or warband the server refuses (one line).
        """
        if msg.scenario is not None and not SCENARIO_NAME.match(msg.scenario):
            raise ValueError(f"scenario: {msg.scenario!r} is not the name of a bundled scenario")
        length = ("fixed", msg.turns) if msg.turns else None
        seed = msg.seed if msg.seed is not None else secrets.randbelow(2**31)
        try:
            table = parse_table(msg.table, source=msg.table_name)
        except TableError as exc:
            raise ValueError(str(exc)) from None
        settings = {"timeout": msg.timeout.model_dump(), "clock": msg.clock.model_dump() if msg.clock else None,
                    "bots": dict(msg.bots), "tournament": msg.tournament, "name": msg.table_name,
                    "seed_given": msg.seed is not None}
        game_id = secrets.token_hex(6)
        if msg.setup:
            from sim.rules.setup import SetupError

            if not msg.warbands:
                raise ValueError("setup: a set-up played by the seats needs two warbands (--warbands A,B)")
            try:
                stage = SetupStage.new(msg.table, list(msg.warbands), seed, msg.rice, msg.scenario, length, self.data)
            except SetupError as exc:
                raise ValueError(f"setup: {exc}") from None
            h, tokens = HostedGame.create_setup(game_id, stage, settings, self.store, self.now)
            return self._created(h, tokens)
        try:
            if msg.warbands:
                from sim.rules.setup import SetupError
                from sim.rules.setup.auto import warband_game

                with tempfile.TemporaryDirectory() as tmp:
                    path = Path(tmp) / "table.yaml"
                    path.write_text(msg.table, encoding="utf-8")
                    try:
                        game, _ = warband_game(path, list(msg.warbands), seed=seed, rice=msg.rice,
                                               scenario=msg.scenario, length=length, data=self.data)
                    except SetupError as exc:
                        raise ValueError(f"warbands: {exc}") from None
            else:
                game = Game(table, seed=seed, length=length, scenario=msg.scenario)
        except GameError as exc:
            raise ValueError(str(exc)) from None
        game.tournament = msg.tournament
        h, tokens = HostedGame.create(game_id, game, settings, self.store, self.now)
        return self._created(h, tokens)

    def _created(self, h: HostedGame, tokens: dict[int, str]) -> dict:
        self.games[h.id] = h
        game_id = h.id
        base = f"{self.url}/g/{game_id}"
        return {"type": "created", "game": game_id,
                "invites": {str(s): f"{base}?seat={s}&token={t}" for s, t in tokens.items()},
                "tokens": {str(s): t for s, t in tokens.items()},
                "watch": base}

    # ------------------------------------------------------------ connections
    async def handler(self, conn: ServerConnection) -> None:
        """One connection, from its first message to its close."""
        game_id: str | None = None
        seat: int | None = None
        joined = False
        allowance, last = float(self.burst), time.monotonic()
        strikes = 0
        try:
            async for raw in conn:
                t0 = time.perf_counter()
                now = time.monotonic()
                allowance = min(float(self.burst), allowance + (now - last) * self.rate)
                last = now
                if allowance < 1.0:
                    strikes += 1
                    await conn.send(dumps(error("rate", f"more than {self.rate:g} messages a second: slow down")))
                    if strikes > self.burst:
                        await conn.close(1008, "rate limit")
                        return
                    continue
                allowance -= 1.0
                strikes = max(0, strikes - 1)  # a message within the limit forgives one refused
                try:
                    msg = parse_client(raw)
                except ProtocolError as exc:
                    await conn.send(dumps(error(exc.code, str(exc))))
                    continue
                if isinstance(msg, Create):
                    if joined:
                        await conn.send(dumps(error("state", "this connection is in a game: open another to create")))
                        continue
                    try:
                        await conn.send(dumps(self.create(msg)))
                    except (ValueError, StoreError) as exc:
                        await conn.send(dumps(error("create", str(exc))))
                    continue
                if isinstance(msg, Export):
                    await conn.send(dumps(self.export(msg.game)))
                    continue
                if isinstance(msg, Hello):
                    if joined:
                        await conn.send(dumps(error("state", "already joined")))
                        continue
                    async with self.lock(msg.game):
                        reply = self.join(conn, msg)
                        if reply.get("type") == "error":
                            await conn.send(dumps(reply))
                            continue
                        game_id, seat, joined = msg.game, msg.seat, True
                        await conn.send(dumps(reply))
                        h = self.games[game_id]
                        await self.send_status(h, but=conn)
                    continue
                if not joined or game_id is None:
                    await conn.send(dumps(error("state", "say hello first: which game, which seat")))
                    continue
                h = self.games[game_id]
                if seat is None:
                    await conn.send(dumps(error("seat", "spectators cannot act")))
                    continue
                async with self.lock(game_id):
                    try:
                        out = self.dispatch(h, seat, msg)
                    except Exception:  # noqa: BLE001 - an engine bug must not close the connection
                        log.exception("game %s: an input of seat %s raised", h.id, seat)
                        out = Outcome.refused("engine", "the engine failed on this input (the server logged it); "
                                                        "the game is unchanged: choose another action")
                    if out.error is not None:
                        await conn.send(dumps(out.error))
                        if out.error.get("code") == "stale":
                            await conn.send(dumps({"type": "state", **h.view(seat)}))
                        continue
                    await self.publish(h, out)
                if out.updates:
                    self.latencies.append(time.perf_counter() - t0)
        except ConnectionClosed:
            pass
        finally:
            if joined and game_id is not None:
                self.viewers.get(game_id, {}).pop(conn, None)
                h2 = self.games.get(game_id)
                if h2 is not None:
                    async with self.lock(h2.id):
                        h2.leave(seat)
                        await self.send_status(h2)
                        if h2.over() and not self.viewers.get(h2.id):  # the store reloads it when asked
                            self.games.pop(h2.id, None)
                            self.viewers.pop(h2.id, None)

    def lock(self, game_id: str) -> asyncio.Lock:
        """The lock of game ``game_id``."""
        lk = self.locks.get(game_id)
        if lk is None:
            lk = self.locks[game_id] = asyncio.Lock()
        return lk

    def join(self, conn: ServerConnection, msg: Hello) -> dict:
        """The ``welcome`` for ``msg``, or an ``error`` (unknown game, wrong token)."""
        try:
            h = self.hosted(msg.game)
        except GameError as exc:
            log.error("game %s cannot be restored: %s", msg.game, exc)
            return error("state", f"game {msg.game} cannot be restored: {exc}")
        if h is None:
            return error("unknown", f"no game {msg.game!r} on this server")
        if msg.seat is not None and not h.seat_of_token(msg.seat, msg.token):
            return error("token", f"wrong or missing token for seat {msg.seat}")
        if msg.seat is None and msg.token is not None:
            return error("token", "a spectator joins without a token")
        self.viewers.setdefault(h.id, {})[conn] = msg.seat
        h.join(msg.seat)
        return {"type": "welcome", "protocol": PROTOCOL, **h.view(msg.seat)}

    def dispatch(self, h: HostedGame, seat: int, msg: Any) -> Outcome:
        """Hand one message of ``seat`` to its game."""
        if isinstance(msg, ActionMsg):
            return h.submit(seat, msg.action, msg.seen, msg.declare)
        if isinstance(msg, SetupMsg):
            return h.setup_step(seat, msg.step, msg.auto)
        if isinstance(msg, Undo):
            return h.request_undo(seat, msg.seen)
        if isinstance(msg, UndoAnswer):
            return h.answer_undo(seat, msg.accept)
        if isinstance(msg, Claim):
            return h.claim(seat)
        return Outcome.refused("schema", "not a message for a game")

    def export(self, game_id: str) -> dict:
        """``save``: the game's ``bushido-game/1`` save once it is over."""
        try:
            h = self.hosted(game_id)
        except GameError as exc:
            return error("state", str(exc))
        if h is None:
            return error("unknown", f"no game {game_id!r} on this server")
        if not h.over():
            return error("state", "the game is still being played: its save (seed, secrets) is given once it is over")
        return {"type": "save", "game": game_id, "save": h.save(), "ended": h.ended}

    async def publish(self, h: HostedGame, out: Outcome, but: ServerConnection | None = None) -> None:
        """Send ``out`` to every viewer of ``h`` (but ``but``), each its own view. A viewer
        that cannot take a message within :attr:`send_timeout` seconds is disconnected
        (it reconnects and gets the full state)."""
        viewers = [(c, s) for c, s in self.viewers.get(h.id, {}).items() if c is not but]
        for conn, seat in viewers:
            msgs = [dumps(h.update_for(u, seat)) for u in out.updates]
            if out.setup is not None:
                msgs.append(dumps({"type": "setup_update", "step": step_view(out.setup, seat),
                                   "setup": h.stage.view(seat) if h.stage is not None else None,
                                   "status": h.status()}))
            if out.state:
                msgs.append(dumps({"type": "state", **h.view(seat)}))
            if out.status and not out.updates and not out.state and out.setup is None:
                msgs.append(dumps({"type": "status", "status": h.status()}))
            msgs += [dumps(m) for s, m in out.notify if s == seat]
            for m in msgs:
                try:
                    await asyncio.wait_for(conn.send(m), self.send_timeout)
                except (ConnectionClosed, asyncio.TimeoutError):
                    self.viewers.get(h.id, {}).pop(conn, None)
                    conn.transport.abort()
                    break

    async def send_status(self, h: HostedGame, but: ServerConnection | None = None) -> None:
        """Tell every viewer of ``h`` (but ``but``) the status (someone came or went)."""
        await self.publish(h, Outcome(status=True), but)

    async def ticker(self, period: float = 1.0) -> None:
        """Every ``period`` seconds: clocks and claim deadlines."""
        while True:
            await asyncio.sleep(period)
            for h in list(self.games.values()):
                if h.over():
                    continue
                async with self.lock(h.id):
                    out = h.tick()
                    if out is not None:
                        await self.publish(h, out)


async def run_server(host: str = "127.0.0.1", port: int = 8765, store: str | os.PathLike = "games.db",
                     data: str | None = None, ready: "asyncio.Future | None" = None,
                     stop: "asyncio.Event | None" = None) -> None:
    """Serve until ``stop`` is set (or forever). ``ready`` gets the ``ws://`` URL once
    the socket listens (port 0: a free port).

    Raises:
        StoreError: the store cannot be opened.
        OSError: the address is in use.
    """
    st = Store(store)
    srv = GameServer(st, data)
    try:
        async with serve(srv.handler, host, port, max_size=MAX_FRAME, ping_interval=20, ping_timeout=20,
                         max_queue=64) as server:
            sock = next(iter(server.sockets))
            h, p = sock.getsockname()[:2]
            srv.url = f"ws://{h}:{p}"
            if ready is not None and not ready.done():
                ready.set_result(srv.url)
            tick = asyncio.create_task(srv.ticker())
            try:
                if stop is None:
                    await asyncio.Future()
                else:
                    await stop.wait()
            finally:
                tick.cancel()
    finally:
        st.close()
