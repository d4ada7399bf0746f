"""The client layer of networked play (issue 14), shared by the bots, the terminal and the
3D window.

- :class:`Invite`: an invitation URL (``ws://HOST:PORT/g/GAME?seat=1&token=...``; a
  spectator's has neither seat nor token). The token travels in the ``hello`` message,
  never in the URL the client connects to (so no server or proxy log holds it).
- :class:`Mirror`: a seat's copy of the game, pure and synchronous: a
  :class:`~sim.rules.game.Game` rebuilt from the server's full state and kept level with
  each ``update`` (:meth:`~sim.rules.game.Game.follow`), plus the status. Views ask it
  what is legal (``mirror.game.legal_actions()``, ``is_legal``) exactly as at one screen;
  only the server judges.
- :class:`GameClient`: the asyncio ``websockets`` connection: ``connect`` (hello, then the
  full state), ``act`` (send an action, wait for the server's verdict), ``recv`` (the
  next change), undo, claim.
- :class:`ThreadedClient`: a :class:`GameClient` on its own thread and event loop, for
  the window: the render thread sends with :meth:`ThreadedClient.send` and applies what
  came with :meth:`ThreadedClient.poll` (the mirror is only touched on the caller's thread).
- :func:`run_bot`: a bot (``sim.rules.bots``) playing a seat.
"""

from __future__ import annotations

import asyncio
import json
import queue
import threading
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, urlsplit

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from sim.rules.game import Action, Event, Game, GameError

from .protocol import MAX_FRAME


class Refused(Exception):
    """The server refused a message: ``code`` and the one-line ``message``."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


@dataclass(frozen=True)
class Invite:
    """A parsed invitation: ``base`` (``ws://HOST:PORT``), ``game``, ``seat`` (None: a
    spectator) and ``token``.

    >>> i = Invite.parse("ws://127.0.0.1:8765/g/ab12?seat=2&token=xyz")
    >>> (i.base, i.game, i.seat, i.token, i.url)
    ('ws://127.0.0.1:8765', 'ab12', 2, 'xyz', 'ws://127.0.0.1:8765/g/ab12')
    >>> Invite.parse("ws://127.0.0.1:8765/g/ab12").seat is None
    True
    """

    base: str
    game: str
    seat: int | None = None
    token: str | None = None

    @property
    def url(self) -> str:
        """The URL the client connects to (no token in it)."""
        return f"{self.base}/g/{self.game}"

    @classmethod
    def parse(cls, text: str) -> "Invite":
        """The invite in ``text``.

        Raises:
            ValueError: not a ``ws://`` or ``wss://`` URL with ``/g/GAME``, or a seat other
                than 1 or 2, or a seat without a token.
        """
        parts = urlsplit(text.strip())
        if parts.scheme not in ("ws", "wss") or not parts.netloc:
            raise ValueError(f"{text!r}: an invitation is a ws:// URL (from main.py new)")
        path = parts.path.rstrip("/").split("/")
        if len(path) < 3 or path[-2] != "g" or not path[-1]:
            raise ValueError(f"{text!r}: no game in the URL (expected .../g/GAME)")
        q = parse_qs(parts.query)
        seat_s = q.get("seat", [None])[0]
        token = q.get("token", [None])[0]
        seat = None
        if seat_s is not None:
            if seat_s not in ("1", "2"):
                raise ValueError(f"{text!r}: seat is 1 or 2, not {seat_s!r}")
            seat = int(seat_s)
            if not token:
                raise ValueError(f"{text!r}: a seat's invitation carries its token")
        return cls(f"{parts.scheme}://{parts.netloc}", path[-1], seat, token)


def mirror_game(save: dict) -> Game:
    """The :class:`~sim.rules.game.Game` of a server's ``save`` (not verified: the
    server judged it). A warband game's models name profiles of the BattleScribe
    catalogues: when one is unknown here, the catalogues
    (:func:`sim.rules.setup.default_catalogue_dir`) are loaded once and it is tried again.

    Raises:
        GameError: the save cannot be read (a profile unknown even with the catalogues).
    """
    try:
        return Game.from_save(save, source="server state", verify=False)
    except GameError as exc:
        if "unknown profile" not in str(exc):
            raise
        from sim.rules.setup import SetupError, catalogues, default_catalogue_dir

        data = default_catalogue_dir()
        if data is None:
            raise
        try:
            catalogues(data)
        except SetupError:
            raise exc from None
        return Game.from_save(save, source="server state", verify=False)


class Mirror:
    """A seat's copy of a hosted game (``seat`` None: a spectator's).

    Attributes:
        game: the mirror :class:`~sim.rules.game.Game` (None before the first state).
        status: the server's last status (see :meth:`sim.net.session.HostedGame.status`).
        by: who decided each action.
        held: this seat's allocation held by the server until the engine asks for it.
        undo_asked: the seat that asks this one to accept a take-back, or None.
        revealed: ``{event index: event JSON}`` of allocations revealed after the fact.
        errors: the errors the server sent, last last.
        version: bumps on every change (views redraw when it changes).
    """

    def __init__(self, seat: int | None) -> None:
        self.seat = seat
        self.game: Game | None = None
        #: the set-up as this seat sees it while it is played (``SetupStage.view``), else None.
        self.setup: dict | None = None
        self.status: dict = {}
        self.by: list[int] = []
        self.held: dict | None = None
        self.undo_asked: int | None = None
        self.revealed: dict[int, dict] = {}
        self.errors: list[dict] = []
        self.version = 0

    def apply(self, msg: dict) -> None:
        """Take in one server message (``welcome``/``state``, ``update``, ``status``,
        ``undo_request``, ``held``, ``error``).

        Raises:
            GameError: an update that does not follow from the mirror (the client asks for
                a full state: reconnect).
        """
        kind = msg.get("type")
        if kind in ("welcome", "state"):
            self.setup = msg.get("setup")
            self.game = mirror_game(msg["save"]) if msg.get("save") is not None else None
            self.by = list(msg.get("by", []))
            self.held = msg.get("pending")
            self.status = msg.get("status", {})
            self.revealed = {}
        elif kind == "update":
            if self.game is None:
                raise GameError("an update before the state")
            if msg["index"] != len(self.game.actions):
                raise GameError(f"update {msg['index']} does not follow action {len(self.game.actions)}")
            self.game.follow([Event.from_json(e) for e in msg["events"]], Action.from_json(msg["action"]),
                             msg.get("rolls", ()))
            self.by.append(int(msg["by"]))
            if msg["by"] == self.seat:
                self.held = None
            for i, e in msg.get("reveal", []):
                self.revealed[int(i)] = e
            self.status = msg.get("status", self.status)
        elif kind == "status":
            self.status = msg.get("status", self.status)
        elif kind == "setup_update":
            self.setup = msg.get("setup")
            if msg.get("status", {}).get("phase") == "setup":  # else the game's full state follows
                self.status = msg["status"]
        elif kind == "held":
            self.held = msg.get("action")
        elif kind == "undo_request":
            self.undo_asked = msg.get("by")
        elif kind == "error":
            self.errors.append(msg)
            if msg.get("code") == "illegal" and "allocate again" in str(msg.get("message")):
                self.held = None
        self.version += 1

    def my_decision(self, simultaneous: bool = True) -> bool:
        """Whether this seat must decide now: the engine waits for it, or (with
        ``simultaneous``) its model's allocation may be sent (the allocation stage)."""
        st = self.status
        if not st or st.get("over") or self.seat is None or st.get("undo") is not None:
            return False
        if st.get("phase") == "setup" and st.get("setup_phase") == "roll_off":
            return True  # either seat starts the roll-off
        if st.get("to_move") == self.seat:
            return True
        return simultaneous and self.seat in st.get("may_allocate", []) and self.held is None

    def log(self) -> list[str]:
        """The game's log as this seat sees it."""
        return self.game.log() if self.game is not None else []


class GameClient:
    """An asyncio connection to a game on a server.

    Args:
        invite: the invitation (URL text or :class:`Invite`).
        open_timeout: seconds to wait for the connection.
    """

    def __init__(self, invite: "str | Invite", open_timeout: float = 10.0) -> None:
        self.invite = Invite.parse(invite) if isinstance(invite, str) else invite
        self.mirror = Mirror(self.invite.seat)
        self.ws: ClientConnection | None = None
        self.open_timeout = open_timeout

    @property
    def seat(self) -> int | None:
        """This client's seat (None: a spectator)."""
        return self.invite.seat

    @property
    def game(self) -> Game:
        """The mirror game."""
        assert self.mirror.game is not None, "connect() first"
        return self.mirror.game

    async def connect(self) -> dict:
        """Connect, say hello, take in the full state; returns the ``welcome``.

        Raises:
            Refused: the server refused the hello (unknown game, wrong token).
            OSError: no server there.
        """
        self.ws = await connect(self.invite.url, max_size=MAX_FRAME, open_timeout=self.open_timeout)
        await self.send({"type": "hello", "game": self.invite.game, "seat": self.invite.seat,
                         "token": self.invite.token})
        msg = await self._read()
        if msg.get("type") == "error":
            await self.close()
            raise Refused(msg.get("code", "?"), msg.get("message", ""))
        self.mirror.apply(msg)
        return msg

    async def send(self, doc: dict) -> None:
        """Send one message."""
        assert self.ws is not None, "connect() first"
        await self.ws.send(json.dumps(doc, allow_nan=False))

    async def _read(self) -> dict:
        assert self.ws is not None, "connect() first"
        raw = await self.ws.recv()
        return json.loads(raw)

    async def recv(self) -> dict:
        """The next server message, taken into the mirror.

        Raises:
            ConnectionClosed: the connection is gone.
        """
        msg = await self._read()
        try:
            self.mirror.apply(msg)
        except GameError:  # the mirror lost its way: a fresh connection brings the full state
            await self.close()
            return await self.connect()
        return msg

    async def act(self, action: Action, declare: bool = False) -> dict:
        """Send ``action`` and wait for the verdict: the ``update`` it caused, or ``held``
        (an allocation the server holds until the engine asks for it).

        Raises:
            Refused: the server refused it (its code and reason; the mirror is unchanged,
                or refreshed from a full state for ``stale``).
        """
        seen = len(self.game.actions)
        await self.send({"type": "action", "action": action.to_json(), "seen": seen, "declare": declare})
        while True:
            msg = await self.recv()
            kind = msg.get("type")
            if kind == "update" and msg.get("by") == self.seat:
                return msg
            if kind == "held":
                return msg
            if kind == "error":
                if msg.get("code") == "stale":
                    await self.recv()  # the full state follows
                raise Refused(msg.get("code", "?"), msg.get("message", ""))

    async def setup_step(self, step: dict | None = None, auto: bool = False) -> dict:
        """Send a set-up step (``Step.to_dict()``) or ``auto`` (the engine's policy takes
        this seat's next step) and wait for the verdict: ``setup_update`` (or ``state``,
        the set-up done and the game started).

        Raises:
            Refused: the server refused it (every reason).
        """
        await self.send({"type": "setup", "step": step, "auto": auto})
        while True:
            msg = await self.recv()
            if msg.get("type") == "state":
                return msg
            if msg.get("type") == "setup_update" and msg.get("setup") is not None and msg["setup"]["steps"] and \
                    msg["setup"]["steps"][-1].get("player") in (self.seat, 0):
                return msg
            if msg.get("type") == "error":
                raise Refused(msg.get("code", "?"), msg.get("message", ""))

    async def undo(self) -> None:
        """Ask the opponent to accept taking back this seat's last decision."""
        await self.send({"type": "undo", "seen": len(self.game.actions)})

    async def answer_undo(self, accept: bool) -> None:
        """Answer the opponent's take-back request."""
        self.mirror.undo_asked = None
        await self.send({"type": "undo_answer", "accept": bool(accept)})

    async def claim(self) -> None:
        """Claim the game (the opponent away past the host's timeout)."""
        await self.send({"type": "claim"})

    async def close(self) -> None:
        """Close the connection."""
        if self.ws is not None:
            await self.ws.close()
            self.ws = None


async def create_game(server: str, table_text: str, **fields: Any) -> dict:
    """Create a game on ``server`` (``ws://HOST:PORT``): the ``created`` message (``game``,
    ``invites``, ``tokens``, ``watch``); the invitations name the host as ``server`` does.

    Raises:
        Refused: the server refused the table, scenario or warbands.
    """
    base = server.rstrip("/")
    async with connect(base, max_size=MAX_FRAME) as ws:
        await ws.send(json.dumps({"type": "create", "table": table_text, **fields}))
        msg = json.loads(await ws.recv())
    if msg.get("type") == "error":
        raise Refused(msg.get("code", "?"), msg.get("message", ""))
    gid = msg["game"]
    msg["invites"] = {s: f"{base}/g/{gid}?seat={s}&token={t}" for s, t in msg["tokens"].items()}
    msg["watch"] = f"{base}/g/{gid}"
    return msg


async def export_game(server: str, game_id: str) -> dict:
    """The save of a finished game on ``server``.

    Raises:
        Refused: no such game, or it is not over.
    """
    async with connect(server.rstrip("/"), max_size=MAX_FRAME) as ws:
        await ws.send(json.dumps({"type": "export", "game": game_id}))
        msg = json.loads(await ws.recv())
    if msg.get("type") == "error":
        raise Refused(msg.get("code", "?"), msg.get("message", ""))
    return msg


async def run_bot(invite: "str | Invite", bot: Any, think: float = 0.0, accept_undo: bool = True,
                  max_actions: int = 10_000) -> GameClient:
    """Play ``invite``'s seat with ``bot`` (``choose(game) -> Action``) until the game is
    over; returns the (closed) client. The bot decides on the mirror when the engine asks
    this seat (in the engine's order, as :func:`sim.rules.bots.play` does: a seeded bot
    plays the same game over the network as at one screen), after ``think`` seconds.
    An action the engine refuses is declared anyway (p.24), as the bot would at the table.

    Raises:
        Refused: the server refused the hello or an action of the bot.
        RuntimeError: more than ``max_actions`` decisions.
    """
    c = GameClient(invite)
    await c.connect()
    if hasattr(bot, "player"):
        bot.player = c.seat
    n = 0
    try:
        while not c.mirror.status.get("over"):
            if c.mirror.undo_asked is not None:
                await c.answer_undo(accept_undo)
                continue
            if c.mirror.status.get("phase") == "setup":
                if c.mirror.my_decision():
                    try:
                        await c.setup_step(auto=True)
                    except Refused as exc:
                        if exc.code != "illegal":  # the other seat started the roll-off first
                            raise
                else:
                    await c.recv()
                continue
            if c.mirror.my_decision(simultaneous=False):
                n += 1
                if n > max_actions:
                    raise RuntimeError(f"the game did not end within {max_actions} decisions")
                if think:
                    await asyncio.sleep(think)
                try:
                    await c.act(bot.choose(c.game), declare=True)
                except Refused as exc:
                    if exc.code == "rate":  # too fast for the server: wait, then decide again
                        await asyncio.sleep(0.5)
                    elif exc.code != "stale":
                        raise
                continue
            await c.recv()
    finally:
        await c.close()
    return c


class ThreadedClient:
    """A :class:`GameClient` on a thread of its own (the window's network code runs off
    the render thread). Messages are queued as they come; :meth:`poll`, called on the
    render thread, applies them to :attr:`mirror` and returns them.

    Args:
        invite: the invitation.
        reconnect: seconds between reconnection attempts after a drop (None: none).
    """

    def __init__(self, invite: "str | Invite", reconnect: float | None = 2.0) -> None:
        self.invite = Invite.parse(invite) if isinstance(invite, str) else invite
        self.mirror = Mirror(self.invite.seat)
        self.reconnect = reconnect
        self.connected = False
        self.closed = False
        self._inbox: "queue.Queue[dict]" = queue.Queue()
        self._loop = asyncio.new_event_loop()
        self._ws: ClientConnection | None = None
        self._thread = threading.Thread(target=self._run, name="bushido-net", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._loop.run_until_complete(self._main())

    async def _main(self) -> None:
        while not self.closed:
            try:
                async with connect(self.invite.url, max_size=MAX_FRAME) as ws:
                    self._ws = ws
                    await ws.send(json.dumps({"type": "hello", "game": self.invite.game, "seat": self.invite.seat,
                                              "token": self.invite.token}))
                    self.connected = True
                    async for raw in ws:
                        self._inbox.put(json.loads(raw))
                if not self.closed:  # the server closed the connection cleanly
                    self._inbox.put({"type": "disconnected", "message": "the server closed the connection"})
            except (OSError, ConnectionClosed, asyncio.TimeoutError) as exc:
                self._inbox.put({"type": "disconnected", "message": str(exc) or type(exc).__name__})
            finally:
                self.connected = False
                self._ws = None
            if self.closed or self.reconnect is None:
                return
            await asyncio.sleep(self.reconnect)

    def send(self, doc: dict) -> None:
        """Queue ``doc`` for the server (returns at once; dropped while disconnected)."""
        async def _send() -> None:
            if self._ws is not None:
                try:
                    await self._ws.send(json.dumps(doc, allow_nan=False))
                except ConnectionClosed:
                    pass
        asyncio.run_coroutine_threadsafe(_send(), self._loop)

    def act(self, action: Action, declare: bool = False) -> None:
        """Send ``action`` (the verdict comes through :meth:`poll`)."""
        seen = len(self.mirror.game.actions) if self.mirror.game is not None else 0
        self.send({"type": "action", "action": action.to_json(), "seen": seen, "declare": declare})

    def poll(self) -> list[dict]:
        """The messages that came since the last call, applied to :attr:`mirror`."""
        out = []
        while True:
            try:
                msg = self._inbox.get_nowait()
            except queue.Empty:
                return out
            if msg.get("type") != "disconnected":
                try:
                    self.mirror.apply(msg)
                except GameError as exc:
                    msg = {"type": "error", "code": "mirror", "message": str(exc)}
                    self.resync()
            out.append(msg)

    def resync(self) -> None:
        """Drop the connection (the mirror lost its way): the client reconnects and the
        full state comes again (a ``welcome``)."""
        async def _drop() -> None:
            if self._ws is not None:
                await self._ws.close()
        if self._loop.is_running():
            asyncio.run_coroutine_threadsafe(_drop(), self._loop)

    def close(self, timeout: float = 2.0) -> None:
        """Close the connection and stop the thread."""
        self.closed = True

        async def _close() -> None:
            if self._ws is not None:
                await self._ws.close()
        if self._loop.is_running():
            asyncio.run_coroutine_threadsafe(_close(), self._loop)
        self._thread.join(timeout)
