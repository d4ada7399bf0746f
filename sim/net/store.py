"""The server's store: every game's inputs and the events they caused, in SQLite (issue 14).

One database file (``main.py serve --store games.db``) in WAL mode. Two tables:

- ``games``: one row per game: ``id``, ``created`` (Unix time), ``spec`` (the
  ``bushido-game/1`` save of the game as created: table, scenario, seed, length, the
  events of its set-up), ``tokens`` (the SHA-256 of each seat token, never the token),
  ``settings`` (timeout policy, clocks, bots, tournament).
- ``inputs``: one row per accepted input, numbered per game (``seq``): ``kind``
  (``action``, ``pending`` (a secret allocation waiting for the other), ``undo``,
  ``claim``, ``clock``), ``seat``, ``payload`` (JSON: the action, the events it caused,
  the dice it rolled, the clocks after it).

Each accepted input is one transaction (:meth:`Store.append`): a ``kill -9`` leaves every
committed input and none half-written (SQLite's atomic commit; ``synchronous=NORMAL`` in
WAL mode keeps every commit through a process crash, though not through a power cut).
A restarted server re-simulates each game from its rows (:mod:`sim.net.session`) and
checks the events against the stored ones.
"""

from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id TEXT PRIMARY KEY,
    created REAL NOT NULL,
    spec TEXT NOT NULL,
    tokens TEXT NOT NULL,
    settings TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS inputs (
    game TEXT NOT NULL REFERENCES games(id),
    seq INTEGER NOT NULL,
    kind TEXT NOT NULL,
    seat INTEGER,
    payload TEXT NOT NULL,
    at REAL NOT NULL,
    PRIMARY KEY (game, seq)
);
"""


@dataclass(frozen=True)
class GameRow:
    """A game as stored: its id, creation time, spec (a save), token hashes
    (``{"1": hex, "2": hex}``) and settings."""

    id: str
    created: float
    spec: dict
    tokens: dict
    settings: dict


@dataclass(frozen=True)
class InputRow:
    """One accepted input: ``seq`` (0, 1, ...), ``kind``, ``seat`` and ``payload``."""

    seq: int
    kind: str
    seat: int | None
    payload: dict
    at: float


class StoreError(RuntimeError):
    """The store cannot be opened or written (the message names the file)."""


class Store:
    """The SQLite store at ``path`` (``":memory:"`` for tests).

    Raises:
        StoreError: the file cannot be opened as a database.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        try:
            self.db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")
            self.db.execute("PRAGMA foreign_keys=ON")
            self.db.executescript(SCHEMA)
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{self.path}: cannot open the store ({exc})") from None
        self._next: dict[str, int] = {}

    def close(self) -> None:
        """Close the database (every input is already committed)."""
        self.db.close()

    def journal_mode(self) -> str:
        """The journal mode in use (``wal``)."""
        return str(self.db.execute("PRAGMA journal_mode").fetchone()[0])

    def add_game(self, game_id: str, spec: dict, tokens: dict, settings: dict) -> None:
        """Store a new game (one transaction).

        Raises:
            StoreError: the id exists, or the write fails.
        """
        try:
            with self.db:
                self.db.execute("BEGIN IMMEDIATE")
                self.db.execute("INSERT INTO games VALUES (?, ?, ?, ?, ?)",
                                (game_id, time.time(), json.dumps(spec, allow_nan=False), json.dumps(tokens),
                                 json.dumps(settings)))
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{self.path}: cannot store game {game_id} ({exc})") from None
        self._next[game_id] = 0

    def append(self, game_id: str, rows: list[tuple[str, int | None, dict]]) -> list[int]:
        """Append ``rows`` (``(kind, seat, payload)``) to the game's inputs in ONE
        transaction; returns their ``seq`` numbers.

        Raises:
            StoreError: the write fails (nothing of it is stored).
        """
        seq = self._next.get(game_id)
        if seq is None:
            seq = self._count(game_id)
        now = time.time()
        out = []
        try:
            with self.db:
                self.db.execute("BEGIN IMMEDIATE")
                for kind, seat, payload in rows:
                    self.db.execute("INSERT INTO inputs VALUES (?, ?, ?, ?, ?, ?)",
                                    (game_id, seq, kind, seat, json.dumps(payload, allow_nan=False), now))
                    out.append(seq)
                    seq += 1
        except sqlite3.DatabaseError as exc:
            self._next.pop(game_id, None)
            raise StoreError(f"{self.path}: cannot store an input of game {game_id} ({exc})") from None
        self._next[game_id] = seq
        return out

    def _count(self, game_id: str) -> int:
        row = self.db.execute("SELECT MAX(seq) FROM inputs WHERE game = ?", (game_id,)).fetchone()
        return 0 if row[0] is None else int(row[0]) + 1

    def game_ids(self) -> list[str]:
        """Every stored game's id, oldest first."""
        return [r[0] for r in self.db.execute("SELECT id FROM games ORDER BY created, id")]

    def game(self, game_id: str) -> GameRow | None:
        """The stored game, or None."""
        r = self.db.execute("SELECT id, created, spec, tokens, settings FROM games WHERE id = ?",
                            (game_id,)).fetchone()
        if r is None:
            return None
        return GameRow(r[0], r[1], json.loads(r[2]), json.loads(r[3]), json.loads(r[4]))

    def inputs(self, game_id: str) -> list[InputRow]:
        """The game's inputs in order."""
        return [InputRow(r[0], r[1], r[2], json.loads(r[3]), r[4]) for r in self.db.execute(
            "SELECT seq, kind, seat, payload, at FROM inputs WHERE game = ? ORDER BY seq", (game_id,))]

    def stats(self) -> dict[str, Any]:
        """``{"games": n, "inputs": n}``."""
        g = self.db.execute("SELECT COUNT(*) FROM games").fetchone()[0]
        i = self.db.execute("SELECT COUNT(*) FROM inputs").fetchone()[0]
        return {"games": int(g), "inputs": int(i)}
