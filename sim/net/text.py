"""The terminal client of networked play (issue 14): a seat played at the terminal
(:func:`play_text`, ``main.py join INVITE --text``) and a spectator following the log
(:func:`watch_text`, ``main.py watch URL --text``).

Both run over the client layer (:class:`~sim.net.client.ThreadedClient`: the connection
lives on its own thread and reconnects after a drop; a second thread reads the player's
lines, so nothing here blocks the network reads) and show the game with the hot-seat's
screens (:mod:`sim.cli.hotseat.screens`) on the seat's *mirror* game: the brief view, the
numbered legal actions (``mirror.game.legal_actions()``), the notation
(:func:`sim.rules.notation.parse_action`), each typed action judged with ``is_legal`` on
the mirror before it is sent; the server is still the only judge.

What the player sees, as the updates come: every event of both sides as the seat may see
it (:class:`LogFeed`: the hot-seat's log lines, the dice of both players, the opponent's
melee allocation "in secret" until both are in, then both revealed), "waiting for
player 2 ..." while the other decides or is away, the take-back requests, and the
end-of-game summary. The secret allocation is made on the player's own terminal when
:meth:`~sim.net.client.Mirror.my_decision` says so: both players at once (p.33 step 5);
the server holds an early one until the engine asks for it.

Lines typed before they can be played: on a terminal, an action typed while the other
player decides is refused ("not your decision"); from a file or a pipe (a script) every
line waits for the player's next decision, and the script plays in the engine's order
(as :func:`~sim.net.client.run_bot` does), so the same script plays the same game.
"""

from __future__ import annotations

import dataclasses
import queue
import re
import threading
import time
from collections import deque
from typing import IO, Any

from sim.cli.hotseat.console import MAX_DIGITS, cut_word, isatty
from sim.cli.hotseat.screens import (
    HELP,
    brief_view,
    describe_event,
    full_state,
    log_text,
    menu_text,
    revealed_allocations,
)
from sim.rules.game import Action, Event, Game, GameError
from sim.rules.notation import action_text, parse_action

from .client import Invite, ThreadedClient

#: The commands of a seat at the terminal (the actions are the hot-seat's).
NET_HELP = HELP.split("Commands:")[0] + """\
Commands:
  help                 this text
  state                the whole state, both sides (as you may see it)
  actions              the numbered actions again
  log [N]              the last N lines of the game log (default 30; 0: all)
  undo                 ask the other player to accept taking back your last decision
  accept | decline     answer the other player's take-back request
  claim                claim the game (the other player away longer than the host allows)
  auto                 during the set-up: let the engine take your next set-up step
  quit                 leave (rejoin later with the same invitation)

An action the engine refuses is not sent: the reason is printed. Answer "yes" at once
to declare it anyway; it is then reverted and costs one activation counter (p.24)."""

#: The marks around the output of the ``log`` command.
LOG_START, LOG_END = "--- log ---", "--- end of log ---"
#: The most lines of the log shown on joining (``log 0`` shows all).
JOIN_LINES = 40
#: The fields of an allocation that the other seat does not see before both are in.
_SECRET = ("attack", "defence", "special", "direction")
_EOF = object()


def _same_action(a: dict, b: dict) -> bool:
    """Whether two actions (JSON) are the same decision (a secret allocation compared
    without its secret fields)."""
    if a.get("kind") == "allocate" and b.get("kind") == "allocate":
        return {k: v for k, v in a.items() if k not in _SECRET} == {k: v for k, v in b.items() if k not in _SECRET}
    return a == b


def decision_text(action: dict) -> str:
    """A decision (``Action.to_json()``) in the notation, an allocation without its
    secret fields (``akira's allocation``): what a take-back lists for every viewer."""
    if action.get("kind") == "allocate":
        return f"{action.get('model')}'s melee allocation"
    try:
        return action_text(Action.from_json(action))
    except (GameError, ValueError, TypeError):
        return str(action.get("kind"))


class LogFeed:
    """The log of a game as one viewer sees it, kept from the server's messages (not
    from the mirror, which :meth:`~sim.net.client.ThreadedClient.poll` may have moved on).

    :meth:`lines` turns one message into the lines to print: each event of an ``update``
    (the hot-seat's log line, :func:`~sim.cli.hotseat.screens.describe_event`; a melee
    allocation always "in secret"), both allocations revealed before the exchange they
    start (as the hot-seat), the dice rolled; for a ``welcome`` the log so far (the last
    ``tail`` lines; None: all); for a later full ``state`` the decisions taken back (an
    undo) and any event missed while away. Every viewer of a game gets the same lines,
    but for what only one seat may see (its own Flank model's turn and edge).

    Args:
        tail: the most lines of the log printed on joining (None: all).
    """

    def __init__(self, tail: int | None = JOIN_LINES) -> None:
        self.tail = tail
        self.events: list[dict] = []
        self.actions: list[dict] = []
        self.by: list[int] = []
        self.joined = False

    def lines(self, msg: dict) -> list[str]:
        """The lines ``msg`` (a server message) adds to the log."""
        kind = msg.get("type")
        if kind == "update":
            return self._update(msg)
        if kind in ("welcome", "state"):
            return self._state(msg)
        return []

    def _update(self, msg: dict) -> list[str]:
        if int(msg.get("index", -1)) != len(self.actions):
            return []  # out of order: the client asks for the full state again
        for i, e in msg.get("reveal", []):
            if 0 <= int(i) < len(self.events):
                self.events[int(i)] = e
        out: list[str] = []
        for e in msg.get("events", []):
            try:
                ev = Event.from_json(e)
            except (GameError, ValueError, TypeError, KeyError):
                out.append(f"  ({e.get('kind')} event)")
                self.events.append(e)
                continue
            if ev.kind == "exchange":
                line = self.revealed()
                if line is not None:
                    out.append(line)
            out.append(describe_event(ev))
            self.events.append(e)
        rolls = [int(v) for v in msg.get("rolls", [])]
        if rolls:
            out.append("  (dice rolled: " + " ".join(str(v) for v in rolls) + ")")
        self.actions.append(msg.get("action", {}))
        self.by.append(int(msg.get("by", 0)))
        return out

    def revealed(self) -> str | None:
        """Both allocations of the exchange about to be resolved (the last two
        ``allocated`` events), or None while one of them is still secret."""
        allocs = [e for e in self.events if e.get("kind") == "allocated"][-2:]
        if len(allocs) < 2 or any(e.get("secret") for e in allocs):
            return None
        try:
            evs = [Event.from_json(e) for e in allocs]
        except (GameError, ValueError, TypeError, KeyError):
            return None
        return revealed_allocations(evs, len(evs))

    def _state(self, msg: dict) -> list[str]:
        save = msg.get("save")
        if save is None:  # the set-up is being played: no game log yet
            return []
        events = list(save.get("events", []))
        actions = list(save.get("actions", []))
        by = [int(s) for s in msg.get("by", [])]
        out: list[str] = []
        if not self.joined:
            self.joined = True
            lines = [_describe(e) for e in events]
            if self.tail is not None and len(lines) > self.tail:
                out.append(f"  ({len(lines) - self.tail} earlier lines: type log 0 to read them)")
                lines = lines[-self.tail:]
            out += lines
        else:
            k = 0
            while k < min(len(actions), len(self.actions)) and _same_action(actions[k], self.actions[k]):
                k += 1
            start = len(self.events)
            if k < len(self.actions):  # taken back (an undo the other seat accepted)
                n = len(self.actions) - k
                out.append(f"Taken back: {n} decision(s); the game is back after decision {k}:")
                out += [f"  player {self.by[i]}: {decision_text(self.actions[i])}" for i in range(k, len(self.actions))]
                start = len(events) if len(actions) == k else min(start, len(events))
            if len(events) > start:  # missed while away (a reconnection)
                out += [_describe(e) for e in events[start:]]
        self.events, self.actions, self.by = events, actions, by
        return out


def _describe(e: dict) -> str:
    try:
        return describe_event(Event.from_json(e))
    except (GameError, ValueError, TypeError, KeyError):
        return f"  ({e.get('kind')} event)"


def _clock_text(clocks: dict | None) -> str:
    if not clocks:
        return ""
    parts = []
    for s in ("1", "2"):
        v = max(0.0, float(clocks.get(s, 0.0)))
        parts.append(f"player {s} {int(v // 60)}:{int(v % 60):02d}")
    return "; clocks: " + ", ".join(parts)


class _Lines:
    """The player's lines, read on a thread of their own (a ``readline`` blocks)."""

    def __init__(self, stdin: IO[str]) -> None:
        self.q: "queue.Queue[object]" = queue.Queue()
        self.buf: deque = deque()
        self._thread = threading.Thread(target=self._read, args=(stdin,), name="bushido-stdin", daemon=True)
        self._thread.start()

    def _read(self, stdin: IO[str]) -> None:
        try:
            while True:
                line = stdin.readline()
                if line == "":
                    break
                self.q.put(line.rstrip("\r\n"))
        except (OSError, ValueError):
            pass
        self.q.put(_EOF)

    def peek(self) -> object | None:
        """The next line (``_EOF`` at the end of the input), or None when none came."""
        while True:
            try:
                self.buf.append(self.q.get_nowait())
            except queue.Empty:
                break
        return self.buf[0] if self.buf else None

    def pop(self) -> object:
        """Take the line :meth:`peek` gave."""
        return self.buf.popleft()


class TextTable:
    """One terminal on a hosted game: a seat (``invite`` with a seat) or a spectator.
    :func:`play_text` and :func:`watch_text` say what it does; this is their loop.

    Args:
        invite: the invitation.
        stdin: the player's lines (None: a spectator reads nothing).
        stdout: where everything is written.
        script: lines wait for the player's decision and are played in the engine's
            order (default: ``stdin`` is not a terminal).
        tail: the most log lines printed on joining (None: all).
        poll: seconds between two looks at the connection when nothing happens.
        connect_timeout: seconds to reach the server before giving up.
    """

    def __init__(self, invite: "str | Invite", stdin: IO[str] | None, stdout: IO[str], script: bool | None = None,
                 tail: int | None = JOIN_LINES, poll: float = 0.02, connect_timeout: float = 15.0) -> None:
        self.invite = Invite.parse(invite) if isinstance(invite, str) else invite
        self.seat = self.invite.seat
        self.stdin = stdin
        self.out = stdout
        self.script = (not isatty(stdin)) if script is None else script
        self.feed = LogFeed(tail)
        self.poll_s = poll
        self.connect_timeout = connect_timeout
        self.client: ThreadedClient | None = None
        self.lines: _Lines | None = None
        self.welcomed = False
        self.refused: dict | None = None
        self.awaiting = False  # an input of ours is on its way: its verdict has not come
        self.menu: list[Action] = []
        self.shown: tuple | None = None
        self.waited: tuple | None = None
        self.declare: Action | None = None
        self.lost = False
        self.setup_seen = 0  # set-up steps printed
        self.asked_undo = False  # this seat's take-back request waits for its answer

    # ------------------------------------------------------------ output
    def write(self, text: str = "") -> None:
        """Write ``text`` and a newline (flushed)."""
        self.out.write(text + "\n")
        self.out.flush()

    @property
    def mirror(self):
        """The client's mirror (:class:`~sim.net.client.Mirror`)."""
        assert self.client is not None
        return self.client.mirror

    @property
    def game(self) -> Game | None:
        """The mirror game (None before the first state, or during the set-up)."""
        return self.client.mirror.game if self.client is not None else None

    # ------------------------------------------------------------ messages
    def take(self, msg: dict) -> None:
        """Print what one server message (already applied to the mirror) says."""
        kind = msg.get("type")
        if kind == "welcome":
            if not self.welcomed:
                self.welcomed = True
                self.lost = False
                st = msg.get("status") or {}
                self.write(f"Joined game {self.invite.game} as player {self.seat} (turn {st.get('turn')}, "
                           f"{st.get('phase')} phase, {st.get('actions', 0)} decisions so far). Type help for "
                           "the commands." if self.seat is not None else
                           f"Watching game {self.invite.game} (turn {st.get('turn')}, {st.get('phase')} phase, "
                           f"{st.get('actions', 0)} decisions so far).")
            elif self.lost:
                self.lost = False
                self.write("Reconnected: the game is as the server has it.")
        for line in self.feed.lines(msg):
            self.write(line)
        if kind == "state" and self.asked_undo:
            self.asked_undo = False
            self.write(f"Player {3 - (self.seat or 0)} accepted the take-back.")
        if kind in ("welcome", "state"):
            self.awaiting = False
            steps = (msg.get("setup") or {}).get("steps") or []
            for step in steps[self.setup_seen:]:  # the set-up so far (joining, or back after a drop)
                self.write(f"Set-up: {_step_who(step)}: {_step_text(step)}")
            self.setup_seen = max(self.setup_seen, len(steps))
        elif kind == "update":
            if msg.get("by") == self.seat and self.seat is not None:
                self.awaiting = False
                a = msg.get("action", {})
                if a.get("kind") == "allocate" and self.game is not None and self.game.state.exchange is not None:
                    self.write(f"Your allocation for {a.get('model')} ({a.get('attack')} attack, "
                               f"{a.get('defence')} defence" + (f", {a['special']}" if a.get("special") else "")
                               + ") is in; it stays secret until both have allocated.")
        elif kind == "held":
            self.awaiting = False
            a = msg.get("action") or {}
            self.write(f"Your allocation for {a.get('model')} ({a.get('attack')} attack, {a.get('defence')} defence"
                       + (f", {a['special']}" if a.get("special") else "")
                       + ") is in: the server keeps it secret until the other player has allocated (p.33).")
        elif kind == "undo_request":
            self.write(f"Player {msg.get('by')} asks to take back their last decision: type accept or decline.")
        elif kind == "setup_update":
            self.awaiting = False
            step = msg.get("step") or {}
            self.setup_seen += 1
            self.write(f"Set-up: {_step_who(step)}: {_step_text(step)}")
            if msg.get("setup"):
                self.write(setup_summary(msg["setup"]))
        elif kind == "error":
            self.awaiting = False
            self._error(msg)
        elif kind == "disconnected":
            self.awaiting = False
            if not self.lost:
                self.lost = True
                self.write(f"Connection lost ({msg.get('message')}); reconnecting ...")

    def _error(self, msg: dict) -> None:
        code, text = msg.get("code"), msg.get("message", "")
        if not self.welcomed and code in ("token", "unknown", "state", "seat"):
            self.refused = msg
            return
        if code in ("declined", "stale", "state") and self.asked_undo:
            self.asked_undo = False
        if code == "declined":
            self.write(f"{text[:1].upper()}{text[1:]}.")
        elif code == "illegal":
            self.write(f"Refused by the server: {text}")
        elif code == "stale":
            self.write("Your input crossed a change of the game: it was not taken; the game as it is now follows.")
        elif code == "mirror":
            self.write("This copy of the game lost its way: the full state is asked again.")
        else:
            self.write(f"The server says: {text} ({code})")

    # ------------------------------------------------------------ whose decision
    def my_turn(self) -> bool:
        """Whether this seat must decide now (the engine's order for a script; both at
        once in the allocation stage on a terminal)."""
        if self.seat is None or self.client is None or self.awaiting:
            return False
        return self.mirror.my_decision(simultaneous=not self.script)

    def floor(self) -> bool:
        """Whether a line of a script may be played now: this seat decides, answers a
        take-back, or may claim the game."""
        if self.seat is None or self.client is None or self.awaiting:
            return False
        st = self.mirror.status
        return (self.my_turn() or self.mirror.undo_asked is not None
                or self.seat in (st.get("claimable") or []))

    def allocation_menu(self) -> list[Action]:
        """This seat's legal allocations for its model in the waiting exchange (the
        allocation stage: the engine may be asking the other model first)."""
        g = self.game
        ex = g.state.exchange if g is not None else None
        if ex is None:
            return []
        mine = [m for m in (ex["attacker"], ex["defender"])
                if m not in ex["allocations"] and g.state.models[m].player == self.seat]
        if not mine:
            return []
        mid = mine[0]
        n = max(int(g.exchange_pools().get(mid, 0)), 0)
        weapons = g.melee_weapons(mid)
        out = []
        for w in (weapons if len(weapons) > 1 else [None]):
            for k in range(n + 1):
                a = Action("allocate", mid, attack=k, defence=n - k, weapon=w)
                if g.is_legal(a)[0]:
                    out.append(a)
        return out

    def decision_menu(self) -> list[Action]:
        """The numbered actions of this seat's decision now."""
        g = self.game
        if g is None:
            return []
        if self.mirror.status.get("to_move") == self.seat:
            return g.legal_actions()
        return self.allocation_menu()

    def _key(self) -> tuple:
        """What a decision shown depends on (a change shows it again)."""
        st = self.mirror.status
        return (st.get("phase"), st.get("setup_phase"), st.get("actions"), st.get("to_move"),
                tuple(st.get("may_allocate") or ()), self.mirror.held is None, st.get("undo"),
                self.mirror.undo_asked, len(self.game.events) if self.game is not None else -1,
                len((self.mirror.setup or {}).get("steps") or ()))

    def _wait_key(self) -> tuple:
        """What a waiting line depends on: who decides, who is away, take-backs, claims."""
        st = self.mirror.status
        return (st.get("phase"), st.get("setup_phase"), st.get("to_move"), tuple(st.get("may_allocate") or ()),
                self.mirror.held is None, st.get("undo"), self.mirror.undo_asked,
                tuple(st.get("claimable") or ()), tuple(sorted((st.get("connected") or {}).items())))

    def show(self) -> None:
        """Show the decision (brief view and numbered actions) when it is this seat's
        and has not been shown, else say once whom the game waits for (a spectator: only
        when a player is away, or a take-back is asked)."""
        if self.client is None or not self.welcomed:
            return
        st = self.mirror.status
        if self.my_turn():
            key = self._key()
            if key == self.shown:
                return
            self.shown = key
            self.waited = None
            if st.get("phase") == "setup":
                self._show_setup()
                return
            g = self.game
            assert g is not None
            secret = g.state.exchange is not None
            self.menu = self.decision_menu()
            self.write("")
            self.write(f"=== Player {self.seat}, your decision{' (secret melee allocation)' if secret else ''} ==="
                       + _clock_text(st.get("clocks")))
            self.write(brief_view(g, self.seat))
            self.write("Your melee allocation (secret until both are in):" if secret else "Legal actions:")
            self.write(menu_text(self.menu))
            self.write("Type a number, an action, or help.")
            self.ask()
            return
        key = self._wait_key()
        if self.awaiting or key == self.waited:
            return
        self.waited = key
        connected = st.get("connected") or {}
        if self.seat is None and st.get("undo") is None and all(connected.get(s, True) for s in ("1", "2")):
            return
        line = self.waiting_text()
        if line:
            self.write(line)

    def waiting_text(self) -> str | None:
        """Whom the game waits for, as one line (None once it is over)."""
        st = self.mirror.status
        if not st or st.get("over"):
            return None
        connected = st.get("connected") or {}
        away = st.get("away") or {}
        undo = st.get("undo")
        if undo is not None:
            return (f"Waiting for player {3 - undo} to answer "
                    + ("your" if undo == self.seat else f"player {undo}'s") + " take-back request ...")
        if self.mirror.undo_asked is not None:
            return None
        waits = []
        tm = st.get("to_move")
        if st.get("phase") == "setup":
            if tm is None:
                waits = [s for s in (1, 2) if s != self.seat]
                what = "the roll-off"
            else:
                waits = [tm]
                what = f"the set-up ({str(st.get('setup_phase', '')).replace('_', '-')})"
        else:
            what = ""
            due = [s for s in (st.get("may_allocate") or []) if s != self.seat]
            if tm is not None and tm != self.seat:
                waits = [tm]
            waits += [s for s in due if s not in waits]
            if self.seat is not None and self.mirror.held is not None:
                what = " (your allocation is in, secret)"
        waits = [s for s in waits if s != self.seat] or ([tm] if tm is not None and self.seat is None else [])
        if not waits:
            return None
        parts = []
        for s in waits:
            txt = f"player {s}"
            if connected and not connected.get(str(s), True):
                txt += f" (away for {float(away.get(str(s), 0.0)):.0f} s)"
            parts.append(txt)
        line = f"Waiting for {' and '.join(parts)}" + (f" to play {what}" if st.get("phase") == "setup" else what)
        line += " ..." + _clock_text(st.get("clocks"))
        tmo = st.get("timeout") or {}
        if any(connected and not connected.get(str(s), True) for s in waits) and self.seat is not None:
            if tmo.get("policy") == "claim":
                line += f" (the host lets you claim the game after {tmo.get('minutes'):g} minutes away)"
            else:
                line += " (the host's policy: wait for them)"
        if self.seat in (st.get("claimable") or []):
            line += f"\nPlayer {3 - self.seat} has been away longer than the host allows: type claim to claim the game."
        return line

    def _show_setup(self) -> None:
        setup = self.mirror.setup or {}
        st = self.mirror.status
        self.write("")
        self.write(f"=== Player {self.seat}, set-up: {str(st.get('setup_phase', '')).replace('_', '-')} ===")
        waiting = (setup.get("waiting") or {}).get(str(self.seat)) or []
        if waiting:
            self.write("Your models to deploy: " + ", ".join(waiting))
        if setup.get("zone_options"):
            self.write("Zones: " + ", ".join(setup["zone_options"]))
        self.write("Type auto (the engine takes your next set-up step), a step (roll_off, zone ID, first P, "
                   "deploy MODEL X Y [FACING], flank MODEL TURN EDGE, terrain PRESET X Y [ROTATION], "
                   "stop_terrain, done), or help.")

    # ------------------------------------------------------------ input
    def prompt(self) -> str:
        """The prompt of this seat."""
        return f"Player {self.seat} > "

    def ask(self) -> None:
        """Write the prompt (on a terminal; a script's lines are echoed after it)."""
        if not self.script and self.seat is not None:
            self.out.write(self.prompt())
            self.out.flush()

    def next_line(self) -> object | None:
        """The next line to play now (``_EOF`` at the end of the input), or None."""
        if self.lines is None:
            return None
        head = self.lines.peek()
        if head is None:
            return None
        if self.script and not self.floor():
            return None
        return self.lines.pop()

    def send_action(self, action: Action, declare: bool = False) -> None:
        """Send ``action`` to the server (its verdict comes as a message)."""
        assert self.client is not None
        self.awaiting = True
        self.client.act(action, declare=declare)

    def handle(self, line: str) -> bool:
        """Play one typed line; False when the player leaves."""
        if self.script:
            self.out.write(self.prompt() + line + "\n")
        line = line.strip()
        if not line:
            return True
        declare, self.declare = self.declare, None
        cmd, _, rest = line.partition(" ")
        cmd, rest = cmd.lower(), rest.strip()
        st = self.mirror.status
        if declare is not None and cmd in ("yes", "y"):
            if self._can_act():
                self.write(f"You declare anyway: {action_text(declare)} (reverted, one activation counter lost, p.24)")
                self.send_action(declare, declare=True)
            return True
        if cmd in ("help", "?", "h"):
            self.write(NET_HELP)
        elif cmd in ("quit", "exit"):
            return False
        elif cmd == "state":
            if self.game is not None:
                self.write(full_state(self.game, self.seat))
            else:
                self.write(f"The set-up is being played ({st.get('setup_phase')}).")
        elif cmd in ("actions", "menu", "list"):
            self.shown = None
        elif cmd == "log":
            self._log(rest)
        elif cmd == "undo":
            self._undo()
        elif cmd in ("accept", "decline"):
            if self.mirror.undo_asked is None:
                self.write("Nobody asked you to take anything back.")
            else:
                self.mirror.undo_asked = None
                self.client.send({"type": "undo_answer", "accept": cmd == "accept"})
                self.write("You accept the take-back." if cmd == "accept" else "You decline the take-back.")
        elif cmd == "claim":
            self.client.send({"type": "claim"})
            self.write("Claim sent.")
        elif st.get("phase") == "setup":
            self._setup_line(cmd, rest, line)
        elif cmd == "auto":
            self.write("The set-up is over: auto takes set-up steps only.")
        elif re.fullmatch(r"[0-9]+", line):
            if not self._can_act():
                return True
            i = int(line) if len(line) <= MAX_DIGITS else 0
            if not 1 <= i <= len(self.menu):
                self.write(f"No action number {cut_word(line)}: the numbers go from 1 to {len(self.menu)}.")
                return True
            self._judge_and_send(self.menu[i - 1])
        else:
            self._typed(line)
        return True

    def _can_act(self) -> bool:
        if self.game is None:
            self.write("The game has not started.")
            return False
        if self.awaiting:
            self.write("Your last input is on its way: wait for the server's answer.")
            return False
        if self.mirror.undo_asked is not None:
            self.write("Answer the take-back request first: accept or decline.")
            return False
        if self.mirror.status.get("undo") is not None:
            self.write("A take-back is asked: wait for the answer.")
            return False
        if not self.mirror.my_decision(simultaneous=True):
            tm = self.mirror.status.get("to_move")
            self.write("Not your decision: " + (f"waiting for player {tm}." if tm else "wait.")
                       + (" Your allocation is in." if self.mirror.held is not None else ""))
            return False
        return True

    def _typed(self, line: str) -> None:
        g = self.game
        if not self._can_act():
            return
        assert g is not None
        try:
            action = parse_action(g, line)
            action = self._own_allocation(action, line)
            ok, why = g.is_legal(action)
        except (ValueError, ArithmeticError) as exc:  # NotationError, GameError (e.g. a NaN), overflow
            self.write(f"Not understood: {exc}")
            return
        if ok:
            self._judge_and_send(action)
            return
        self.write(f"Refused: {why or 'not legal now'}. Nothing was sent.")
        if self._forceable(action):
            self.write("Type yes to declare it anyway (the engine reverts it and the model loses one activation "
                       "counter, p.24), or choose again.")
            self.declare = action

    def _own_allocation(self, action: Action, line: str) -> Action:
        """``allocate A D`` without a model: this seat's model in the exchange (the
        notation names the model the engine asks first, maybe the other seat's)."""
        g = self.game
        if action.kind != "allocate" or g is None or g.state.exchange is None:
            return action
        words = line.split()
        if len(words) > 1 and not re.fullmatch(r"[+-]?[0-9]+", words[1]):
            return action  # a model was named
        ex = g.state.exchange
        mine = [m for m in (ex["attacker"], ex["defender"])
                if m not in ex["allocations"] and g.state.models[m].player == self.seat]
        return dataclasses.replace(action, model=mine[0]) if mine else action

    def _forceable(self, action: Action) -> bool:
        """Whether the engine would take ``action`` as a declared illegal action (revert
        and one counter lost, p.24) rather than refuse it outright."""
        g = self.game
        if g is None:
            return False
        st = g.state
        if action.kind in Action.FREE or st.exchange is not None or st.active != self.seat:
            return False
        m = st.models.get(action.model or "")
        return m is not None and m.alive and m.player == self.seat and not m.exhausted

    def _judge_and_send(self, action: Action) -> None:
        g = self.game
        assert g is not None
        ok, why = g.is_legal(action)
        if not ok:
            self.write(f"Refused: {why or 'not legal now'}. Nothing was sent.")
            return
        if action.kind != "allocate":
            self.write(f"You declare: {action_text(action)}")
        self.send_action(action)

    def _undo(self) -> None:
        st = self.mirror.status
        if self.awaiting:
            self.write("Your last input is on its way: ask again once the server has answered.")
        elif self.game is None:
            self.write("Nothing to take back during the set-up.")
        elif st.get("undo") is not None:
            self.write("A take-back is already asked.")
        elif self.seat not in self.mirror.by and self.mirror.held is None:
            self.write("You have no decision to take back.")
        else:
            self.client.send({"type": "undo", "seen": len(self.game.actions)})
            self.write(f"Asked player {3 - self.seat} to accept taking back your last decision (and what followed).")
            self.awaiting = True
            self.asked_undo = True

    def _log(self, rest: str) -> None:
        n = 30
        if rest:
            if not re.fullmatch(r"[0-9]{1,%d}" % MAX_DIGITS, rest):
                self.write(f"log N: N is a number of lines (at most {MAX_DIGITS} digits)")
                return
            n = int(rest)
        self.write(LOG_START)
        if self.game is not None:
            self.write(log_text(list(self.game.events), n))
        self.write(LOG_END)

    def _setup_line(self, cmd: str, rest: str, line: str) -> None:
        if not self.mirror.my_decision():
            self.write("Not your set-up step: wait.")
            return
        if cmd == "auto":
            self.awaiting = True
            self.client.send({"type": "setup", "auto": True})
            return
        try:
            step = parse_step(line, self.seat or 0)
        except ValueError as exc:
            self.write(f"Not understood: {exc}")
            return
        self.awaiting = True
        self.client.send({"type": "setup", "step": step})

    # ------------------------------------------------------------ the loop
    def summary(self) -> None:
        """The end of the game: the result and the whole state."""
        st = self.mirror.status
        res = st.get("result") or {}
        g = self.game
        text = res.get("result") or (g.state.result if g is not None else None) or "over"
        self.write("")
        self.write(f"Result: {text}")
        if g is not None:
            self.write("The final state:")
            self.write(full_state(g, self.seat))
        self.write(f"The save: python main.py export {self.invite.base} {self.invite.game} --out game.json")

    def run(self, until_over: bool = True, timeout: float | None = None) -> int:
        """Connect and play (or watch) until the game is over, the player leaves, or
        ``timeout`` seconds pass; returns 0 (over, or left), 1 (``timeout``), 2 (the
        server refused the invitation, or cannot be reached)."""
        start = time.monotonic()
        self.client = ThreadedClient(self.invite)
        if self.stdin is not None and self.seat is not None:
            self.lines = _Lines(self.stdin)
        try:
            while True:
                busy = False
                for msg in self.client.poll():
                    busy = True
                    self.take(msg)
                if self.refused is not None:
                    self.write(f"The server refused: {self.refused.get('message')} ({self.refused.get('code')})")
                    return 2
                now = time.monotonic()
                if not self.welcomed:
                    if now - start > self.connect_timeout:
                        self.write(f"Cannot reach the game at {self.invite.url}.")
                        return 2
                elif self.mirror.status.get("over"):
                    self.summary()
                    return 0
                elif not until_over:
                    self.write(self.waiting_text() or "")
                    return 0
                if timeout is not None and now - start > timeout:
                    self.write(f"Stopped after {timeout:g} s: the game goes on without this terminal.")
                    return 1
                if self.welcomed:
                    self.show()
                line = self.next_line() if self.welcomed else None
                if line is _EOF:
                    self.lines.pop()
                    self.write("End of input: you leave the game (rejoin with the same invitation).")
                    return 0
                if line is not None:
                    busy = True
                    if not self.handle(str(line)):
                        self.write("You leave the game; rejoin with the same invitation.")
                        return 0
                    if self.my_turn() and self._key() == self.shown:
                        self.ask()
                if not busy:
                    time.sleep(self.poll_s)
        finally:
            self.client.close()


def _step_who(step: dict) -> str:
    return "the roll-off" if step.get("kind") == "roll_off" else f"player {step.get('player')}"


def _step_text(step: dict) -> str:
    """A set-up step (JSON) in one line, numbers to 0.01.

    >>> _step_text({"kind": "deploy", "player": 1, "model": "m", "point": [12.0, 0.59055], "facing": 90.0})
    'deploy m 12.00 0.59 facing=90'
    >>> _step_text({"kind": "zone", "player": 2, "zone": "south"})
    'zone south'
    """
    kind = step.get("kind", "?")
    words = [kind]
    if step.get("model"):
        words.append(str(step["model"]))
    if step.get("preset"):
        words.append(str(step["preset"]))
    pt = step.get("point")
    if isinstance(pt, (list, tuple)) and len(pt) == 2:
        words += [f"{float(pt[0]):.2f}", f"{float(pt[1]):.2f}"]
    for k, v in step.items():
        if k in ("kind", "player", "model", "preset", "point") or v in (None, [], ()):
            continue
        if isinstance(v, float):
            v = f"{v:.2f}".rstrip("0").rstrip(".")
        elif isinstance(v, list):
            v = " ".join(str(x) for x in v)
        words.append(str(v) if k == kind else f"{k}={v}")
    return " ".join(words)


def setup_summary(view: dict | None) -> str:
    """The set-up as a seat sees it (``SetupStage.view``) in one line: its phase, who
    acts, and each player's zone, models placed, held back to Flank and waiting.

    >>> lines = setup_summary({"phase": "deploy", "to_act": 2, "zones": {"1": {"id": "south"}, "2": {"id": "north"}},
    ...                "table": {"models": [{"player": 1}]}, "recruits": [{"id": "a", "player": 1},
    ...                {"id": "b", "player": 2}, {"id": "c", "player": 2}], "flanking": {"c": {}},
    ...                "waiting": {"1": [], "2": ["b"]}, "finished": [1]}).split("; ")
    >>> for line in lines:
    ...     print(line)
    Set-up now: deploy, player 2 to act
    player 1 (south): 1 placed, 0 waiting, finished
    player 2 (north): 0 placed, 1 held back to Flank, 1 waiting
    """
    if not view:
        return "Set-up now: done"
    who = view.get("to_act")
    out = [f"Set-up now: {str(view.get('phase', '')).replace('_', '-')}" + (f", player {who} to act" if who else "")]
    owners = {r.get("id"): r.get("player") for r in view.get("recruits") or []}
    for p in (1, 2):
        zone = (view.get("zones") or {}).get(str(p))
        placed = sum(1 for m in (view.get("table") or {}).get("models") or [] if m.get("player") == p)
        words = [f"player {p}" + (f" ({zone['id']})" if zone else "") + f": {placed} placed"]
        flank = sum(1 for mid in view.get("flanking") or {} if owners.get(mid) == p)
        if flank:
            words.append(f"{flank} held back to Flank")
        words.append(f"{len((view.get('waiting') or {}).get(str(p)) or [])} waiting")
        if p in (view.get("finished") or []):
            words.append("finished")
        out.append(", ".join(words))
    return "; ".join(out)


def parse_step(text: str, seat: int) -> dict:
    """A typed set-up step as ``Step.to_dict()`` JSON for ``seat``: ``roll_off`` (or
    ``roll``), ``zone ID``, ``first P``, ``deploy MODEL X Y [FACING]``, ``flank MODEL TURN
    EDGE``, ``terrain PRESET X Y [ROTATION]``, ``stop_terrain`` (or ``stop``), ``done``.
    Not judged: the server judges it with every reason.

    >>> parse_step("deploy akira 4 5.5 90", 1)
    {'kind': 'deploy', 'player': 1, 'model': 'akira', 'point': [4.0, 5.5], 'facing': 90.0}
    >>> parse_step("roll", 2)
    {'kind': 'roll_off', 'player': 0}

    Raises:
        ValueError: an unknown step or missing or unreadable words.
    """
    words = text.split()
    if not words:
        raise ValueError("nothing typed")
    kind = words[0].lower().replace("-", "_")
    kind = {"roll": "roll_off", "stop": "stop_terrain"}.get(kind, kind)
    args = words[1:]

    def num(w: str, what: str) -> float:
        try:
            v = float(w)
        except ValueError:
            raise ValueError(f"{what}: {cut_word(w)!r} is not a number") from None
        if v != v or v in (float("inf"), float("-inf")):
            raise ValueError(f"{what}: {cut_word(w)!r} is not a number")
        return v

    def need(n: int, shape: str) -> None:
        if len(args) < n:
            raise ValueError(f"{kind} needs {shape}")

    doc: dict[str, Any] = {"kind": kind, "player": seat}
    if kind in ("roll_off", "stop_terrain", "done"):
        if kind == "roll_off":
            doc["player"] = 0
        return doc
    if kind == "zone":
        need(1, "a zone id (zone ID)")
        doc["zone"] = args[0]
    elif kind == "first":
        need(1, "a player (first 1|2)")
        if args[0] not in ("1", "2"):
            raise ValueError("first: the player is 1 or 2")
        doc["first"] = int(args[0])
    elif kind == "deploy":
        need(3, "a model and a point (deploy MODEL X Y [FACING])")
        doc.update(model=args[0], point=[num(args[1], "x"), num(args[2], "y")])
        doc["facing"] = num(args[3], "facing") if len(args) > 3 else 0.0
    elif kind == "flank":
        need(3, "a model, a turn and an edge (flank MODEL TURN EDGE)")
        if not re.fullmatch(r"[0-9]{1,2}", args[1]):
            raise ValueError(f"flank: the turn {cut_word(args[1])!r} is not a whole number")
        doc.update(model=args[0], turn=int(args[1]), edge=args[2])
    elif kind == "terrain":
        need(3, "a preset and a point (terrain PRESET X Y [ROTATION])")
        doc.update(preset=args[0], point=[num(args[1], "x"), num(args[2], "y")])
        doc["rotation"] = num(args[3], "rotation") if len(args) > 3 else 0.0
    else:
        raise ValueError(f"unknown set-up step {cut_word(words[0])!r} (roll_off, terrain, stop_terrain, zone, "
                         "first, deploy, flank, done; or auto)")
    return doc


def play_text(invite: "str | Invite", stdin: IO[str], stdout: IO[str], timeout: float | None = None,
              script: bool | None = None) -> int:
    """Play a seat of a hosted game at the terminal (``main.py join INVITE --text``).

    Args:
        invite: the seat's invitation (``ws://HOST:PORT/g/GAME?seat=N&token=...``).
        stdin: the player's lines: a number of the menu, an action in the notation,
            or a command (``help`` lists them: ``undo``, ``accept``, ``decline``,
            ``claim``, ``log``, ``state``, ``quit`` ...).
        stdout: where the game is written.
        timeout: seconds before the terminal stops (None: never).
        script: lines wait for this seat's decision and are played in the engine's order
            (default: ``stdin`` is not a terminal).

    Returns:
        0 when the game is over or the player left (``quit``, the end of the input),
        1 after ``timeout``, 2 when the server refused the invitation or cannot be reached.

    Raises:
        ValueError: ``invite`` is not a seat's invitation.
    """
    inv = Invite.parse(invite) if isinstance(invite, str) else invite
    if inv.seat is None:
        raise ValueError("this invitation has no seat: use watch_text to follow the game")
    return TextTable(inv, stdin, stdout, script=script).run(timeout=timeout)


def watch_text(invite: "str | Invite", stdout: IO[str], until_over: bool = True,
               timeout: float | None = None) -> int:
    """Follow a hosted game as a spectator (``main.py watch URL --text``): the log so far,
    then every change as both players may see it (secret allocations "in secret" until
    both are in), whom the game waits for, and the end-of-game summary.

    Args:
        invite: the game's URL (``ws://HOST:PORT/g/GAME``; a seat and token are dropped).
        stdout: where the game is written.
        until_over: follow the game to its end; False: print the log so far (all of it)
            and whom the game waits for, then return.
        timeout: seconds before it stops (None: never).

    Returns:
        0 (the game is over, or ``until_over`` is False), 1 after ``timeout``, 2 when the
        server refused or cannot be reached.
    """
    inv = Invite.parse(invite) if isinstance(invite, str) else invite
    inv = Invite(inv.base, inv.game)
    return TextTable(inv, None, stdout, tail=None if not until_over else JOIN_LINES).run(until_over, timeout)
