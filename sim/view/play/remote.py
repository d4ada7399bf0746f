"""The game window as a network client (issue 14): ``python main.py join INVITE`` (a seat)
and ``python main.py watch URL`` (a spectator).

The window is the one of the game at one screen (:class:`~sim.view.play.window.GameWindow`
over :class:`~sim.view.play.controller.PlayController`), played on the seat's **mirror**
(:class:`sim.net.client.Mirror`: a copy of the game rebuilt from what the server sends).
The network code runs off the render thread (:class:`sim.net.client.ThreadedClient`);
every frame the window's task calls :meth:`RemoteWindow.sync`, which polls the client on
the render thread: the server's updates extend the mirror and are animated (the other
player's moves as a bot's at one screen), a full state (after joining, a reconnection or
a take-back) replaces the game drawn, refusals come up in red.

What differs from one screen:

- a decision is sent to the server, never pushed into the mirror: the server is the only
  judge and the only dice;
- no hand-over screen (each player is at their own machine) and no bots; the secret
  melee allocation's dialog opens as soon as the seat may allocate (both players at
  once, p.33 step 5: the server holds an early one until the engine asks for it);
- the status bar says who you are, whether you and the other player are connected
  ("waiting for player 2", how long away, when a claim is possible), the chess clocks,
  "your allocation is in", a take-back asked of you or by you, what was sent;
- the tool bar: "Ask undo" (the opponent must accept), "Accept undo" / "Decline undo"
  (when asked), "Pass", "Claim" (when the opponent has been away longer than the host
  allows), the camera and the legend; no save, load, new game or manual adjustments
  (``main.py export`` writes the save of a finished game).

A game whose set-up is played step by step on the server (``main.py new --warbands A,B
--setup``) opens on the set-up screen (:mod:`sim.view.play.remote_setup`: the roll-off,
terrain, the zone, who deploys first, each model clicked into place or held back to
Flank, "Auto" for the engine's step); when the set-up is done the server sends the game
and :class:`RemoteSession` swaps the game window in, in the same window.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from sim.net.client import Invite, Mirror, Refused, ThreadedClient
from sim.rules.game import Action, GameError
from sim.view.play.choices import offer_label

from .controller import PlayController
from .window import GameWindow

#: Seconds to wait for the server's first full state before giving up.
CONNECT_SECONDS = 15.0
#: Codes of a refused ``hello``: the invitation is no good (no point retrying).
FATAL_CODES = ("token", "unknown")


def clock_text(seconds: float) -> str:
    """A chess clock's time as ``M:SS`` (``H:MM:SS`` from an hour), never negative.

    >>> clock_text(754.2), clock_text(3725), clock_text(-3)
    ('12:34', '1:02:05', '0:00')
    """
    s = max(0, int(seconds))
    h, m = divmod(s // 60, 60)
    return f"{h}:{m:02d}:{s % 60:02d}" if h else f"{m}:{s % 60:02d}"


def clocks_now(status: dict, elapsed: float = 0.0) -> dict[int, float] | None:
    """The chess clocks ``{seat: seconds left}`` of a server ``status``, ``elapsed``
    seconds after it was sent (the clocks of the seats that must decide run: both during
    the allocation stage); None without clocks."""
    clocks = status.get("clocks")
    if not isinstance(clocks, dict):
        return None
    running = set(status.get("may_allocate") or [])
    if not running and status.get("to_move") is not None and not status.get("over"):
        running = {status["to_move"]}
    return {s: max(0.0, float(clocks.get(str(s), 0.0)) - (elapsed if s in running else 0.0)) for s in (1, 2)}


def net_lines(mirror: Mirror, *, connected: bool = True, sent: Action | None = None,
              elapsed: float = 0.0) -> list[str]:
    """The status bar's lines about networked play for ``mirror``'s seat (or spectator):
    who you are and who is connected ("waiting for player 2", how long away, whether the
    game may be claimed), the chess clocks (both counted on ``elapsed`` seconds after the
    status came),
    the game's end on the server; then what is pending: the action ``sent`` and not yet
    judged, the secret allocation ("your allocation is in"), a take-back asked of you or
    by you. ``connected``: whether this client's connection is up."""
    st = mirror.status or {}
    seat = mirror.seat
    first: list[str] = [f"You are player {seat}" if seat in (1, 2) else "Watching (spectator)"]
    if not connected:
        first.append("DISCONNECTED: reconnecting")
    others = [s for s in (1, 2) if s != seat]
    conn = st.get("connected") or {}
    away = st.get("away") or {}
    for s in others:
        if conn and not conn.get(str(s), True):
            secs = away.get(str(s))
            first.append(f"waiting for player {s}"
                         + (f" (away {clock_text(float(secs) + elapsed)})" if secs is not None else ""))
        elif conn:
            first.append(f"player {s} connected")
    if seat in (st.get("claimable") or []):
        first.append(f"player {3 - seat} is away too long: you may Claim the game")
    clocks = clocks_now(st, elapsed)
    if clocks is not None:
        first.append("clocks: " + ", ".join(f"P{s} {clock_text(t)}" for s, t in clocks.items()))
    result = st.get("result")
    if st.get("over") and isinstance(result, dict) and result.get("result"):
        first.append(f"game over: {result['result']}")
    out = ["; ".join(first)]
    pend: list[str] = []
    if sent is not None:
        pend.append(f"sent {offer_label(sent)}: waiting for the server")
    allocated = set(st.get("allocated") or [])
    due = set(st.get("may_allocate") or [])
    if mirror.game is not None and mirror.game.state.exchange is not None and not st.get("over"):
        if seat in allocated or mirror.held is not None:
            rest = [s for s in others if s not in allocated]
            pend.append("your allocation is in" + (f": waiting for player {rest[0]}'s (secret)" if rest else ""))
        elif seat in due or st.get("to_move") == seat:
            other = 3 - seat if seat in (1, 2) else 0
            pend.append("allocate your dice in secret " + (f"(player {other}'s allocation is in)" if other in allocated
                                                           else f"(player {other} allocates at the same time)"))
        elif seat is None and due:
            pend.append("secret allocation: waiting for " + " and ".join(f"player {s}" for s in sorted(due)))
    if mirror.undo_asked is not None and seat in (1, 2):
        pend.append(f"player {mirror.undo_asked} asks to take back their last decision: Accept or Decline")
    elif st.get("undo") is not None:
        asker = st["undo"]
        pend.append(f"you asked player {3 - asker} to take back your last decision: waiting for the answer"
                    if asker == seat else f"player {asker} asked to take back a decision")
    if pend:
        out.append("; ".join(pend))
    return out


def _describe(action: Action) -> str:
    if action.kind == "allocate":
        return f"{action.model} allocated its dice (secret until both are in, p.33)"
    return offer_label(action)


class RemoteWindow(GameWindow):
    """The game window of one seat (or a spectator) of a networked game.

    Args:
        base: a ShowBase (:func:`sim.view.play.shell.get_base`).
        controller: a :class:`PlayController` made with ``remote`` (the client).
        animate: animate the moves of every update (False: jump; tests).
        legend: show the legend from the start.
        clock: the clock for the chess clocks' countdown (seconds).

    Attributes:
        status_at: when (``clock()``) the last message from the server came.
    """

    def __init__(self, base, controller: PlayController, *, animate: bool = True, legend: bool = False,
                 clock: Callable[[], float] = time.monotonic) -> None:
        if getattr(controller, "remote", None) is None:
            raise ValueError("a RemoteWindow shows a networked game: PlayController(..., remote=client)")
        self.clock = clock
        self.status_at = clock()
        self._clock_key: object = None
        super().__init__(base, controller, animate=animate, legend=legend)

    # ------------------------------------------------------------ the network
    @property
    def mirror(self) -> Mirror:
        """The seat's mirror."""
        return self.controller.remote.mirror

    def sync(self) -> list[dict]:
        """Take in what the server sent (:meth:`PlayController.sync`): a full state
        replaces the game drawn, updates are animated (the other player's decision in
        the status line), a refusal is shown in red. Returns the messages."""
        c = self.controller
        before, g0 = self._table, c.game
        msgs = c.sync()
        if not msgs:
            return msgs
        self.status_at = self.clock()
        if c.game is not g0:
            self._anim = None
            self._table = None
            self._clear_toggled()
            self.cam.table = c.game.table_now()
            if any(m.get("type") == "state" for m in msgs):
                self._say("the server sent the whole game again (a take-back, or the connection came back)", ok=True)
        else:
            ups = [m for m in msgs if m.get("type") == "update"]
            if ups:
                by = ups[-1].get("by")
                if by != c.seat:
                    self._say(f"player {by}: {_describe(c.game.actions[-1])}", ok=True)
                else:
                    self._say("")
                events = c.last_events()
                if self._anim is not None:  # still playing the last one: jump to the game as it is
                    self._anim = None
                    self._table = None
                elif events:
                    self._needs = None
                    self._reset_compose()
                    self._clear_toggled()
                    self.animate_events(events, before=before, moves=True)
        refusal = c.take_refusal()
        if refusal:
            self._say(refusal)
        self.refresh(force=True)
        return msgs

    def tick(self, dt: float) -> None:
        """The window's frame: :meth:`sync`, then the animation and the redraw (as
        :meth:`GameWindow.tick`); the status bar once a second (clocks, time away)."""
        if self._closed:
            return
        self.sync()
        super().tick(dt)
        key = int(self.clock() - self.status_at)  # the clocks and the time away count on
        if key != self._clock_key and not self._closed:
            self._clock_key = key
            self._draw_status()

    def status_lines(self, st) -> list[str]:
        """The game's status line, then the networked lines (:func:`net_lines`), then
        the rest of the game's lines."""
        lines = super().status_lines(st)
        remote = self.controller.remote
        net = net_lines(self.mirror, connected=bool(getattr(remote, "connected", True)), sent=self.controller.sent,
                        elapsed=self.clock() - self.status_at)
        return lines[:1] + net + lines[1:]

    def refresh(self, force: bool = False) -> None:
        """Redraw what changed (as :meth:`GameWindow.refresh`) and set the networked
        buttons: Accept/Decline while a take-back is asked of this seat, Claim when it
        may claim, Ask undo when the seat has a decision to take back."""
        super().refresh(force)
        if self._closed:
            return
        m, seat = self.mirror, self.controller.seat
        st = m.status or {}
        c = self.controller
        want = {"accept": m.undo_asked is not None, "decline": m.undo_asked is not None,
                "claim": seat in (st.get("claimable") or []),
                "undo": seat in m.by and st.get("undo") is None and c.sent is None,
                "pass": c.screen == "play" and c.sent is None and c.game.to_move() == seat}
        for key, on in want.items():
            b = self.tools.buttons.get(key)
            if b is not None and (str(b["state"]) == "normal") != on:  # GameWindow.refresh sets Undo its way
                self.tools.set_enabled(key, on)

    # ------------------------------------------------------------ buttons
    def tool_buttons(self):
        """Ask undo, Pass, Accept undo, Decline undo, Claim, the camera and the legend
        (a spectator's: the camera and the legend)."""
        if self.controller.seat is None:
            return [("camera", "View (v)", self.reset_camera), ("legend", "Legend (l)", self.toggle_legend)]
        return [
            ("undo", "Ask undo (z)", self.undo),
            ("pass", "Pass", self.pass_turn),
            ("accept", "Accept undo", self.accept_undo),
            ("decline", "Decline undo", self.decline_undo),
            ("claim", "Claim", self.claim),
            ("camera", "View (v)", self.reset_camera),
            ("legend", "Legend (l)", self.toggle_legend),
        ]

    def confirm(self) -> None:
        """Send the action composed (enter / Confirm) to the server."""
        super().confirm()
        if self.controller.sent is not None:
            self._needs = None
            self._reset_compose()
            self._clear_toggled()
            self._say("")
            self.refresh(force=True)

    def undo(self) -> None:
        """Ask the opponent to accept taking back this seat's last decision."""
        try:
            self.controller.ask_undo()
        except GameError as e:
            self._say(str(e))
        else:
            self._say(f"asked player {3 - (self.controller.seat or 0)} to take back your last decision", ok=True)
        self.refresh(force=True)

    def _answer(self, accept: bool) -> None:
        try:
            self.controller.answer_undo(accept)
        except GameError as e:
            self._say(str(e))
        else:
            self._say("take-back accepted" if accept else "take-back declined", ok=True)
        self.refresh(force=True)

    def accept_undo(self) -> None:
        """Accept the opponent's take-back request."""
        self._answer(True)

    def decline_undo(self) -> None:
        """Decline the opponent's take-back request."""
        self._answer(False)

    def claim(self) -> None:
        """Claim the game (the server judges whether the opponent has been away long enough)."""
        try:
            self.controller.claim()
        except GameError as e:
            self._say(str(e))
        else:
            self._say("claim sent to the server", ok=True)
        self.refresh(force=True)

    def _not_here(self, what: str) -> None:
        self._say(f"{what}: not in a networked game (the server keeps the game; main.py export writes its save "
                  "once it is over)")
        self.refresh(force=True)

    def ask_save(self) -> None:
        """Not in a networked game: says so."""
        self._not_here("Save")

    def ask_load(self) -> None:
        """Not in a networked game: says so."""
        self._not_here("Load")

    def new_game(self) -> None:
        """Not in a networked game: says so."""
        self._not_here("New game")

    def toggle_manual(self) -> None:
        """No manual adjustments in a networked game: says so."""
        self._not_here("Manual adjustment")


class RemoteSession:
    """The screens of one networked seat (or spectator) in ``base``'s window: the set-up
    screen (:class:`~sim.view.play.remote_setup.RemoteSetupScreen`) while the set-up is
    played on the server, then the game window (:class:`RemoteWindow`), swapped in when
    the server sends the game.

    Args:
        base: a ShowBase.
        client: a client whose mirror holds the game or the set-up (:func:`connect`).
        animate, legend, clock: as :class:`RemoteWindow`.
        on_window: called with the game window once it opens.

    Attributes:
        setup_screen: the set-up screen shown, or None.
        window: the game window shown, or None.
    """

    def __init__(self, base, client, *, animate: bool = True, legend: bool = False,
                 clock: Callable[[], float] = time.monotonic,
                 on_window: Callable[[RemoteWindow], None] | None = None) -> None:
        self.base = base
        self.client = client
        self.animate = animate
        self.legend = legend
        self.clock = clock
        self.on_window = on_window
        self.setup_screen = None
        self.window: RemoteWindow | None = None
        if client.mirror.game is None:
            from .remote_setup import RemoteSetup, RemoteSetupScreen, preload_catalogues

            preload_catalogues()  # the game that comes at the end names their profiles
            self.setup_screen = RemoteSetupScreen(base, RemoteSetup(client), self._start, status=self.status_lines,
                                                  clock=clock)
        else:
            self._start()

    def status_lines(self, _setup=None, elapsed: float = 0.0) -> list[str]:
        """Who you are and who is connected ("waiting for player 2", how long away),
        the clocks ``elapsed`` seconds after the last status (:func:`net_lines`' first
        line)."""
        return net_lines(self.client.mirror, connected=bool(getattr(self.client, "connected", True)),
                         elapsed=elapsed)[:1]

    def _start(self) -> None:
        """The game has come: the set-up screen goes, the game window opens."""
        if self.setup_screen is not None:
            self.setup_screen.destroy()
            self.setup_screen = None
        ctrl = PlayController(self.client.mirror.game, remote=self.client)
        self.window = RemoteWindow(self.base, ctrl, animate=self.animate, legend=self.legend, clock=self.clock)
        if self.on_window is not None:
            self.on_window(self.window)

    def tick(self, dt: float = 0.05) -> None:
        """One frame of whichever screen is shown (tests; the window's tasks do it)."""
        if self.setup_screen is not None:
            self.setup_screen.tick()
        elif self.window is not None:
            self.window.tick(dt)

    def destroy(self) -> None:
        """Remove whichever screen is shown."""
        if self.setup_screen is not None:
            self.setup_screen.destroy()
            self.setup_screen = None
        if self.window is not None:
            self.window.destroy()
            self.window = None


# ================================================================ entry points
def connect(invite: "str | Invite", timeout: float = CONNECT_SECONDS, auto_setup: bool = True,
            out: TextIO | None = None, wait_game: bool = True) -> ThreadedClient:
    """A :class:`ThreadedClient` on ``invite`` whose mirror holds the game: waits up to
    ``timeout`` seconds for the server's first message, then for the game (a set-up
    played on the server: this seat's steps by the engine's policy when ``auto_setup``,
    told on ``out``). With ``wait_game`` False it returns once the mirror holds the game
    or the set-up (the window's set-up screen plays it).

    Raises:
        Refused: the server refused the invitation (unknown game, wrong token).
        TimeoutError: no answer within ``timeout`` seconds (no server there?).
    """
    client = ThreadedClient(invite)
    try:
        deadline = time.monotonic() + timeout
        heard = False
        asked = False
        said = ""
        while client.mirror.game is None and (wait_game or client.mirror.setup is None):
            for msg in client.poll():
                kind = msg.get("type")
                if kind == "error" and msg.get("code") in FATAL_CODES:
                    raise Refused(str(msg.get("code")), str(msg.get("message", "")))
                if kind in ("welcome", "state", "setup_update", "error"):
                    asked = False
                if kind != "disconnected":
                    heard = True
            st = client.mirror.status or {}
            if heard and st.get("phase") == "setup":
                line = f"the set-up is being played on the server ({st.get('setup_phase', '')})"
                if line != said and out is not None:
                    print(line, file=out, flush=True)
                    said = line
                if auto_setup and not asked and client.mirror.my_decision():
                    client.send({"type": "setup", "step": None, "auto": True})
                    asked = True
            if not heard and time.monotonic() > deadline:
                raise TimeoutError(f"no answer from {client.invite.url} within {timeout:g} s")
            time.sleep(0.02)
    except BaseException:
        client.close()
        raise
    return client


def run_remote(invite: "str | Invite", size: tuple[int, int] = (1600, 1000), timeout: float = CONNECT_SECONDS,
               out: TextIO | None = None) -> int:
    """Play ``invite``'s seat (or watch, for a URL without a seat) in the onscreen
    window until it is closed; returns the exit status (0; 2 when the server refused
    the invitation or did not answer, the reason on ``out``, stderr by default).

    Raises:
        RuntimeError: no window could be opened (no display).
    """
    from .shell import get_base

    err = out if out is not None else sys.stderr
    inv = Invite.parse(invite) if isinstance(invite, str) else invite
    print(f"connecting to {inv.url} ...", file=err, flush=True)
    try:
        client = connect(inv, timeout, auto_setup=False, out=err, wait_game=False)
    except Refused as exc:
        print(f"the server refused: {exc.message} ({exc.code})", file=err)
        return 2
    except TimeoutError as exc:
        print(f"cannot reach the server: {exc}", file=err)
        return 2
    try:
        who = f"player {inv.seat}" if inv.seat else "spectator"
        base = get_base(offscreen=False, size=size, title=f"Bushido: {inv.game} ({who})")
        session = RemoteSession(base, client, animate=True, legend=True)
        base.win.set_close_request_event("bushido-play-close")
        base.accept("bushido-play-close", base.task_mgr.stop)
        try:
            base.run()
        finally:
            session.destroy()
    finally:
        client.close()
    return 0


def screenshot_remote(invite: "str | Invite", png, *, size: tuple[int, int] = (1280, 960),
                      wait: float = 10.0, until: Callable[[PlayController], bool] | None = None,
                      on_window: Callable[[RemoteWindow], None] | None = None) -> Path:
    """Join ``invite`` and render its window offscreen to the PNG ``png`` (headless):
    once ``until(controller)`` holds (frames are run and the server's messages taken in
    meanwhile, at most ``wait`` seconds; without ``until``, after a moment for them to
    come); ``on_window`` sees the window before the shot. Returns the path.

    Raises:
        Refused, TimeoutError: as :func:`connect`; TimeoutError also when ``until``
            does not hold within ``wait`` seconds.
        RuntimeError: the software renderer could not open a buffer or write the file.
    """
    from .shell import get_base, screenshot

    client = connect(invite, timeout=wait)
    try:
        base = get_base(offscreen=True, size=size)
        ctrl = PlayController(client.mirror.game, remote=client)
        win = RemoteWindow(base, ctrl, animate=False)
        try:
            deadline = time.monotonic() + (wait if until is not None else 0.3)
            while True:
                win.tick(0.05)
                if until is not None and until(ctrl):
                    break
                if time.monotonic() > deadline:
                    if until is not None:
                        raise TimeoutError(f"the window's condition did not hold within {wait:g} s")
                    break
                time.sleep(0.02)
            win.refresh(force=True)
            if on_window is not None:
                on_window(win)
            return screenshot(base, png)
        finally:
            win.destroy()
    finally:
        client.close()


__all__ = ["CONNECT_SECONDS", "RemoteSession", "RemoteWindow", "clock_text", "clocks_now", "connect", "net_lines",
           "run_remote", "screenshot_remote"]
