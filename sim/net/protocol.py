"""The messages of networked play: JSON text frames over a WebSocket, each one object with a
``type``, validated with pydantic (issue 14). No home-made framing: ``websockets`` carries
the frames; this module only says what a frame may hold.

Client to server (:data:`ClientMessage`):

- ``create``: a new game (the table as YAML text, scenario, seed, game length, warbands,
  timeout policy, clocks); answered by ``created`` with its id and one invitation per seat.
- ``hello``: join a game as seat 1 or 2 with the seat's token, or as a spectator (no
  seat, no token); answered by ``welcome``: the full per-seat state first, then every
  change (the Lichess board API's order).
- ``action``: an action of the game (``Action.to_json()``) with ``seen``, the number of
  actions the client's mirror holds (a client that has not seen the last change is
  refused, not misread).
- ``undo`` / ``undo_answer``: ask to take back one's last decision; the opponent accepts
  or refuses (undo only with the opponent's consent).
- ``setup``: a set-up step, or ``auto`` (the engine's policy takes the seat's next step).
- ``claim``: claim the game when the opponent has been away longer than the host allows.
- ``export``: the game's save (``bushido-game/1``) once it is over.

Server to client: ``created``, ``welcome`` / ``state`` (a full state: after joining, after
an undo, when the set-up is done), ``update`` (one accepted action: its events as the
seat sees them, its dice), ``setup_update`` (a set-up step taken, the set-up as the seat
sees it), ``status`` (who is connected, who must decide, allocations in, clocks),
``undo_request``, ``held``, ``save``, ``error`` (``code`` and one line).

Limits: :data:`MAX_FRAME` bytes for a ``create`` frame (a table file is at most 1 MiB),
:data:`MAX_MESSAGE` bytes for every other message.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

#: The largest frame the server reads (bytes): a ``create`` with its table file.
MAX_FRAME = 1_200_000
#: The largest message other than ``create`` (bytes).
MAX_MESSAGE = 16_384
#: The protocol's name and version, sent in ``welcome``.
PROTOCOL = "bushido-net/1"


class _Msg(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Timeout(_Msg):
    """The host's policy for a seat that drops: ``wait`` for it, or let the opponent
    ``claim`` the game after ``minutes`` away."""

    policy: Literal["wait", "claim"] = "wait"
    minutes: float = Field(default=10.0, gt=0, le=24 * 60)


class Clock(_Msg):
    """Chess clocks: ``minutes`` per player for the game, ``increment`` seconds added
    after each of the player's decisions."""

    minutes: float = Field(gt=0, le=24 * 60)
    increment: float = Field(default=0.0, ge=0, le=600)


class Create(_Msg):
    """A new game. ``table``: the table file's YAML text; ``warbands``: two catalogue
    faction names (or nothing: the table's own models); ``turns``: a fixed game length;
    ``setup``: the seats play the set-up (roll-off, terrain, zones, deployment, Flank,
    Scouts) step by step; otherwise the engine sets the warbands up by its policy."""

    type: Literal["create"]
    table: str = Field(max_length=1_100_000)
    table_name: str = Field(default="table", max_length=200)
    scenario: str | None = Field(default=None, max_length=200)
    seed: int | None = Field(default=None, ge=0, lt=2**63)
    turns: int | None = Field(default=None, ge=1, le=7)
    warbands: tuple[str, str] | None = None
    rice: int = Field(default=70, ge=1, le=1000)
    timeout: Timeout = Timeout()
    clock: Clock | None = None
    tournament: bool = False
    setup: bool = False
    bots: dict[Literal["1", "2"], Literal["greedy", "random"]] = Field(default_factory=dict)


class Hello(_Msg):
    """Join ``game`` as ``seat`` with its ``token``; no seat and no token: a spectator."""

    type: Literal["hello"]
    game: str = Field(max_length=64)
    seat: Literal[1, 2] | None = None
    token: str | None = Field(default=None, max_length=200)


class ActionMsg(_Msg):
    """An action (``Action.to_json()``); ``seen``: the actions the client's mirror holds;
    ``declare``: declare it even if the engine refuses it, at the rulebook's cost (p.24:
    reverted, one counter lost), as a player may at the table; otherwise a refused action
    changes nothing."""

    type: Literal["action"]
    action: dict[str, Any]
    seen: int = Field(ge=0)
    declare: bool = False


class Undo(_Msg):
    """Ask to take back this seat's last decision (and what followed it)."""

    type: Literal["undo"]
    seen: int = Field(ge=0)


class UndoAnswer(_Msg):
    """The opponent's answer to an undo request."""

    type: Literal["undo_answer"]
    accept: bool


class SetupMsg(_Msg):
    """A set-up step (``Step.to_dict()``), or ``auto``: the seat's next step by the
    engine's policy (what a bot seat sends)."""

    type: Literal["setup"]
    step: dict[str, Any] | None = None
    auto: bool = False


class Claim(_Msg):
    """Claim the game: the opponent has been away longer than the host's timeout."""

    type: Literal["claim"]


class Export(_Msg):
    """The save of ``game`` (once it is over)."""

    type: Literal["export"]
    game: str = Field(max_length=64)


ClientMessage = Annotated[Union[Create, Hello, ActionMsg, SetupMsg, Undo, UndoAnswer, Claim, Export],
                          Field(discriminator="type")]
_CLIENT = TypeAdapter(ClientMessage)


class ProtocolError(ValueError):
    """A frame that is not a valid message; ``code`` says which way (``size``, ``json``,
    ``schema``)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def parse_client(raw: str | bytes) -> Create | Hello | ActionMsg | SetupMsg | Undo | UndoAnswer | Claim | Export:
    """The client message in ``raw`` (a text frame).

    Raises:
        ProtocolError: a binary frame, a message over :data:`MAX_MESSAGE` bytes (other
            than ``create``), text that is not JSON, or JSON that is no message (the first
            problem, in one line).
    """
    if isinstance(raw, bytes):
        raise ProtocolError("json", "binary frames are not messages: send JSON text")
    if len(raw) > MAX_FRAME:
        raise ProtocolError("size", f"message of {len(raw)} bytes: the limit is {MAX_FRAME}")
    try:
        doc = json.loads(raw)
    except (ValueError, RecursionError) as exc:
        raise ProtocolError("json", f"not JSON ({str(exc)[:80]})") from None
    if not isinstance(doc, dict):
        raise ProtocolError("schema", "a message is a JSON object with a 'type'")
    if doc.get("type") != "create" and len(raw) > MAX_MESSAGE:
        raise ProtocolError("size", f"message of {len(raw)} bytes: the limit is {MAX_MESSAGE} (except create)")
    try:
        return _CLIENT.validate_python(doc)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err.get("loc", ()) if p not in ("create", "hello", "action", "setup",
                                                                         "undo", "undo_answer", "claim", "export"))
        return_msg = f"{where or 'message'}: {err.get('msg', 'invalid')}"
        raise ProtocolError("schema", return_msg[:300]) from None


def dumps(doc: dict) -> str:
    """A server message as compact JSON text (no NaN)."""
    return json.dumps(doc, separators=(",", ":"), allow_nan=False)


def error(code: str, message: str, **extra: Any) -> dict:
    """An ``error`` message: ``code`` (``size``, ``json``, ``schema``, ``token``, ``seat``,
    ``illegal``, ``stale``, ``rate``, ``state``, ``unknown``, ``engine``, ``store``) and one line."""
    return {"type": "error", "code": code, "message": message, **extra}
