"""Replay of a saved game on the table (no Panda3D): a cursor over its events.

A :class:`ReplayCursor` opens a save (``bushido-game/1``) with the engine's verified
load (:meth:`sim.rules.game.Game.load`: the actions are re-simulated and must give the
saved events, as ``main.py replay`` checks), then goes to any event N (0: before the
first event; ``len(events)``: the end) and gives the table as it was after event N
(models where they stood, killed models removed, Prone models lying down, the
scenario's objectives in play), the markers of every model then
(:func:`sim.view.play.state.model_markers`) and the event's line of the log. The
state after N events is rebuilt through the public API, ``Game(table, events=the first
N events)`` (the state is a pure function of the table and the events), and the steps
are cached, so stepping forward and back is fast.

    >>> cur = ReplayCursor.open("out/game.json")           # doctest: +SKIP
    >>> step = cur.go(12)                                  # doctest: +SKIP
    >>> step.table, step.markers["akira"], step.caption    # doctest: +SKIP
"""

from __future__ import annotations

import os
import re
from collections import OrderedDict
from dataclasses import dataclass

from sim.rules.game import EVENT_KINDS, Event, Game, GameError
from sim.table import Table

from .state import ModelMarkers, model_markers

__all__ = ["ReplayCursor", "ReplayStep", "event_page"]

_PAGE = re.compile(r"p\.\s?(\d+(?:-\d+)?)")


def event_page(event: Event) -> str | None:
    """The rulebook page(s) of ``event``'s kind (``"p.24"``, ``"p.43-45"``), read from the
    kind's description in :data:`sim.rules.game.EVENT_KINDS`; None when it names none."""
    kind = EVENT_KINDS.get(event.kind)
    got = _PAGE.search(kind.doc) if kind is not None else None
    return f"p.{got.group(1)}" if got else None


@dataclass(frozen=True)
class ReplayStep:
    """The game as it was after event :attr:`index`.

    Attributes:
        index: how many events were applied (0: none, the table as deployed).
        total: how many events the game has.
        table: the :class:`~sim.table.Table` then (``Game.table_now``): models where
            they stood, killed models removed, Prone models flagged, the scenario's
            objectives in play.
        markers: model id -> :class:`~sim.view.play.state.ModelMarkers` then.
        text: event ``index``'s line(s) of the log (:meth:`Event.describe`, stripped);
            at 0, a line saying that no event has been applied yet.
        kind: event ``index``'s kind, or None at 0.
        page: the rulebook page of that kind of event (:func:`event_page`), or None.
        turn, phase, active: the turn, phase and active player then.
    """

    index: int
    total: int
    table: Table
    markers: dict[str, ModelMarkers]
    text: str
    kind: str | None
    page: str | None
    turn: int
    phase: str
    active: int | None

    @property
    def caption(self) -> str:
        """One line naming the event for the top-left of the table: ``Event 12/310 (turn
        1, main phase) [p.22-25]: akira moves to (12.00, 15.00), 3.00" (walk)``."""
        where = f"turn {self.turn}, {self.phase} phase" if self.turn else "before the first turn"
        page = f" [{self.page}]" if self.page else ""
        text = " | ".join(line.strip() for line in self.text.splitlines() if line.strip())
        if len(text) > 220:
            text = text[:219] + "…"
        return f"Event {self.index}/{self.total} ({where}){page}: {text}"


class ReplayCursor:
    """A cursor over the events of a finished (or saved part way) game.

    Args:
        game: the :class:`~sim.rules.game.Game` replayed (its table, seed, length,
            scenario and events; it is not changed).
        source: where it came from (a save's path), for messages.
        cache: how many steps to keep (least recently used ones are dropped).

    Attributes:
        game, source: as given.
        at: the event the cursor stands on (0..:attr:`length`); starts at the end.
    """

    def __init__(self, game: Game, source: str = "<game>", cache: int = 256):
        self.game = game
        self.source = source
        self._events: tuple[Event, ...] = tuple(game.events)
        self._cache: OrderedDict[int, ReplayStep] = OrderedDict()
        self._cache_size = max(2, int(cache))
        self.at = len(self._events)

    @classmethod
    def open(cls, path: str | os.PathLike, verify: bool = True) -> "ReplayCursor":
        """Open a save written by ``Game.save`` / ``main.py play --save``, verified by
        re-simulation (``verify=False``: the saved events applied unchecked, for an old
        physical-dice save). The cursor stands at the end.

        Raises:
            GameError: one line naming the file, the entry and the problem (not a save,
                malformed, or events that the re-simulation does not reproduce).
        """
        return cls(Game.load(path, verify=verify), str(path))

    @property
    def length(self) -> int:
        """The number of events (the last index :meth:`go` accepts)."""
        return len(self._events)

    @property
    def events(self) -> tuple[Event, ...]:
        """The game's events, in order."""
        return self._events

    def check_index(self, n) -> int:
        """``n`` checked as an event index, 0..:attr:`length`.

        Raises:
            ValueError: not a whole number, or outside ``0..length``.
        """
        if isinstance(n, bool) or not isinstance(n, int):
            raise ValueError(f"{self.source}: event index must be a whole number, got {n!r}")
        k = n
        if not 0 <= k <= self.length:
            raise ValueError(f"{self.source}: event {n} is out of range: the game has {self.length} events "
                             f"(0..{self.length}, 0 = before the first)")
        return k

    def step(self, n: int) -> ReplayStep:
        """The game after event ``n`` (:meth:`check_index`), without moving the cursor.

        Raises:
            ValueError: a bad index.
        """
        k = self.check_index(n)
        got = self._cache.get(k)
        if got is not None:
            self._cache.move_to_end(k)
            return got
        got = self._build(k)
        self._cache[k] = got
        if len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)
        return got

    def go(self, n: int) -> ReplayStep:
        """Move the cursor to event ``n`` and return that step. Raises ValueError for a
        bad index (the cursor stays)."""
        got = self.step(n)
        self.at = got.index
        return got

    def forward(self, k: int = 1) -> ReplayStep:
        """Move ``k`` events on (stopping at the end) and return that step."""
        return self.go(min(self.length, self.at + max(0, int(k))))

    def back(self, k: int = 1) -> ReplayStep:
        """Move ``k`` events back (stopping at 0) and return that step."""
        return self.go(max(0, self.at - max(0, int(k))))

    def current(self) -> ReplayStep:
        """The step the cursor stands on."""
        return self.step(self.at)

    def game_at(self, n: int) -> Game:
        """A new :class:`~sim.rules.game.Game` holding the state after event ``n``: the
        same table, seed, length and scenario, built from the first ``n`` events (no
        phase is played). Raises ValueError for a bad index, GameError when the events
        cannot be applied."""
        k = self.check_index(n)
        g = self.game
        return Game(g.table, seed=g.seed, length=g.length, events=list(self._events[:k]), scenario=g.scenario,
                    cards=list(g.card_facts))  # enhancement cards' feats (sim.rules.game.special_cards)

    def _build(self, k: int) -> ReplayStep:
        try:
            g = self.game_at(k)
        except (GameError, LookupError, TypeError, ValueError, ArithmeticError) as exc:
            raise GameError(f"{self.source}: events[{k - 1}]: cannot be applied ({exc})") from None
        st = g.state
        if k == 0:
            text, kind, page = "The table as deployed, before the first event", None, None
        else:
            ev = self._events[k - 1]
            text, kind, page = ev.describe().strip(), ev.kind, event_page(ev)
        return ReplayStep(index=k, total=self.length, table=g.table_now(), markers=model_markers(g), text=text,
                          kind=kind, page=page, turn=int(st.turn), phase=str(st.phase), active=st.active)
