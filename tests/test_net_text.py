"""The terminal client of networked play (issue 14, ``sim.net.text``), on loopback.

- A seat played from a scripted stdin against a greedy bot client (``run_bot``): an
  action by notation, an unknown word and an illegal action (refused with the engine's
  reason, nothing sent: the game's log equals a local game without them), actions by
  number, ``undo`` asked and accepted by the bot (the same decisions replayed roll the
  same dice), ``log``; the game played to its end, the end-of-game summary printed. Its
  log equals the same decisions played on a local :class:`~sim.rules.game.Game`.
- A spectator (``watch_text``) following the same game from its start prints the very
  same log lines as the seat, take-back included; a late spectator (``until_over=False``)
  prints the whole log and returns.
- The secret allocation at the terminal: the opponent's allocation shows "in secret"
  until both are in; typed early (``allocate 1 1`` while the engine asks the other model
  first), it is held by the server and revealed with the other one.

Every wait is bounded (the server, the bot and the watcher run on threads joined with a
timeout; ``play_text`` and ``watch_text`` take a ``timeout``).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import io
import re
import threading

import pytest

from sim.net.client import create_game, export_game, run_bot
from sim.net.server import run_server
from sim.net.text import LOG_END, LOG_START, LogFeed, parse_step, play_text, watch_text
from sim.rules import bots
from sim.rules.game import Game
from sim.rules.notation import action_text
from sim.table import DEFAULT_TABLE, load_table

TIMEOUT = 50.0
SEED = 5  # player 1 acts first on the default table


class Server:
    """A loopback server on a port the OS picks, on a thread of its own, the store under ``tmp``."""

    def __init__(self, tmp, port: int = 0) -> None:
        self.port = port
        self.loop = asyncio.new_event_loop()
        self.ready: concurrent.futures.Future = concurrent.futures.Future()
        self.stop: asyncio.Event | None = None
        self.thread = threading.Thread(target=self._run, args=(tmp / "games.db",), daemon=True)
        self.thread.start()
        self.url = self.ready.result(timeout=15)

    def _run(self, store) -> None:
        asyncio.set_event_loop(self.loop)

        async def main():
            self.stop = asyncio.Event()
            ready = self.loop.create_future()
            ready.add_done_callback(lambda f: self.ready.set_result(f.result()))
            await run_server("127.0.0.1", self.port, store, ready=ready, stop=self.stop)

        self.loop.run_until_complete(main())

    def close(self) -> None:
        if self.stop is not None:
            self.loop.call_soon_threadsafe(self.stop.set)
        self.thread.join(10)


@pytest.fixture
def server(tmp_path):
    s = Server(tmp_path)
    try:
        yield s
    finally:
        s.close()


def _thread(target, *args) -> tuple[threading.Thread, dict]:
    box: dict = {}

    def run():
        try:
            box["result"] = target(*args)
        except BaseException as exc:  # noqa: BLE001 - handed to the test
            box["error"] = exc

    t = threading.Thread(target=run, daemon=True)
    t.start()
    return t, box


def _bot(invite: str, seed: int, think: float = 0.0):
    return asyncio.run(asyncio.wait_for(run_bot(invite, bots.GreedyBot(seed), think=think), TIMEOUT))


def _new_game(url: str, seed: int) -> dict:
    return asyncio.run(asyncio.wait_for(create_game(url, DEFAULT_TABLE.read_text(encoding="utf-8"), seed=seed), 15))


def _wait_for(out: io.StringIO, text: str, limit: float = 15.0) -> None:
    ev = threading.Event()
    for _ in range(int(limit / 0.02)):
        if text in out.getvalue():
            return
        ev.wait(0.02)
    raise AssertionError(f"{text!r} never printed: {out.getvalue()[-2000:]}")


def _illegal(g: Game) -> str:
    """A typed action that reads but the engine refuses now."""
    for text in ("walk akira 0.5 0.5", "charge akira asp", "shoot akira asp", "walk akira 40 40"):
        from sim.rules.notation import parse_action

        a = parse_action(g, text)
        if not g.is_legal(a)[0]:
            return text
    raise AssertionError("no illegal action found")


def _script_and_local(seed: int) -> tuple[list[str], Game, str]:
    """The seat's script and the same decisions played on a local game (the bot of seat
    2 seeded ``seed + 1``): an unknown word, an illegal action, a walk by notation, then
    the first action of the menu each time, one ``undo`` (of the second numbered decision)
    and a ``log``; returns the script, the local game and the illegal line."""
    g = Game(load_table(), seed=seed)
    bot = bots.GreedyBot(seed + 1)
    bot.player = 2
    assert g.to_move() == 1 and g.state.exchange is None
    illegal = _illegal(g)
    walk = next(a for a in g.legal_actions() if a.kind == "walk")
    script = ["frobnicate akira", illegal, action_text(walk)]
    by = [1]
    g.push(walk)
    numbered = 0
    while not g.is_over():
        if g.to_move() == 2:
            g.push(bot.choose(g))
            by.append(2)
            continue
        if numbered == 2:  # take back the second numbered decision (and the bot's answers)
            script += ["undo", "log 5"]
            while by.pop() != 1:
                g.pop()
            g.pop()
            numbered += 1
            continue
        script.append("1")
        g.push(g.legal_actions()[0])
        by.append(1)
        numbered += 1
    return script + ["1"] * 20, g, illegal


def _split(log: list[str]) -> list[str]:
    """A game log's lines (an event may take more than one)."""
    return [part for line in log for part in line.split("\n")]


def _in_order(want: list[str], got: list[str]) -> bool:
    """Whether ``want`` is a subsequence of ``got``."""
    it = iter(got)
    return all(any(w == g for g in it) for w in want)


def _log_lines(text: str, final: list[str]) -> list[str]:
    """The lines of ``text`` that are log lines (in ``final`` or a take-back), the output
    of the ``log`` command left out."""
    out, skip = [], False
    keep = set(_split(final))
    for line in text.splitlines():
        if line == LOG_START:
            skip = True
        elif line == LOG_END:
            skip = False
        elif not skip and (line in keep or line.startswith("Taken back:") or line.startswith("  player ")
                           or line.startswith("  (dice rolled:")):
            out.append(line)
    return out


def test_a_scripted_seat_plays_a_bot_to_the_end_refused_and_taken_back_actions_change_nothing(server):
    script, local, illegal = _script_and_local(SEED)
    made = _new_game(server.url, SEED)
    wout, pout = io.StringIO(), io.StringIO()
    watcher, wbox = _thread(watch_text, made["watch"], wout, True, TIMEOUT)
    _wait_for(wout, "Watching game")
    bot, bbox = _thread(_bot, made["invites"]["2"], SEED + 1)
    rc = play_text(made["invites"]["1"], io.StringIO("\n".join(script) + "\n"), pout, timeout=TIMEOUT)
    bot.join(TIMEOUT)
    watcher.join(TIMEOUT)
    text = pout.getvalue()
    assert "error" not in bbox and "error" not in wbox, (bbox, wbox, text[-3000:])
    assert rc == 0 and wbox["result"] == 0, text[-3000:]
    # the game on the server is the local game of the same decisions: nothing refused reached it
    save = asyncio.run(asyncio.wait_for(export_game(server.url, made["game"]), 15))["save"]
    final = Game.from_save(save)
    assert final.verified and final.log() == local.log()
    # the refusals, with the engine's reason, before the walk was declared
    why = Game(load_table(), seed=SEED)
    from sim.rules.notation import parse_action

    reason = why.is_legal(parse_action(why, illegal))[1]
    assert "Not understood: unknown action 'frobnicate'" in text
    assert f"Refused: {reason}. Nothing was sent." in text
    assert text.index("Refused:") < text.index("You declare: walk")
    # numbered actions, the take-back accepted by the bot, the log, the summary
    assert "Player 1 > 1" in text and "Asked player 2 to accept taking back" in text
    assert "Player 2 accepted the take-back." in text
    taken = re.findall(r"Taken back: (\d+) decision\(s\)", text)
    assert len(taken) == 1 and int(taken[0]) >= 1
    assert text.count(LOG_START) == 1
    shown = text.split(LOG_START)[1].split(LOG_END)[0].strip("\n").splitlines()
    before = text.split(LOG_START)[0].splitlines()
    assert len(shown) >= 5 and all(line in before for line in shown)  # 5 events (one may take two lines)
    result = local.state.result
    assert f"Result: {result}" in text and f"Result: {result}" in wout.getvalue()
    assert "waiting for player 2" in text.lower()
    # the spectator printed the very same log lines as the seat, the take-back included
    seat_lines = _log_lines(text, local.log())
    assert seat_lines == _log_lines(wout.getvalue(), local.log())
    assert _in_order(_split(local.log()), text.splitlines())  # every line of the game, as it came
    # a late spectator prints the whole log of the finished game and returns
    late = io.StringIO()
    assert watch_text(made["watch"], late, until_over=False, timeout=15) == 0
    for line in local.log():
        assert line in late.getvalue()


def test_the_opponents_allocation_is_secret_until_both_are_in_and_an_early_one_is_held(server):
    """The bot charges first (seed 3: player 2 acts first) and allocates only once the
    seat's allocation is in (a gate the test opens): the seat types its allocation while
    the bot has not allocated; the server holds it; the bot's allocation then shows "in
    secret" to nobody but the bot, and the exchange reveals both."""
    g = Game(load_table(), seed=3)
    b = bots.GreedyBot(4)
    b.player = 2
    while g.state.exchange is None:  # the bot's opening: a Ki feat, then a charge
        assert g.to_move() == 2
        g.push(b.choose(g))
    assert g.state.exchange is not None and g.to_move() == 2  # the bot's model allocates first
    ex = g.state.exchange
    mine = next(m for m in (ex["attacker"], ex["defender"]) if g.state.models[m].player == 1)
    pool = g.exchange_pools()[mine]
    made = _new_game(server.url, 3)
    gate = threading.Event()
    gated = _GatedBot(bots.GreedyBot(4), gate)
    bot, bbox = _thread(lambda: asyncio.run(asyncio.wait_for(run_bot(made["invites"]["2"], gated), TIMEOUT)))
    stdin = _Typist()
    pout = io.StringIO()
    seat, sbox = _thread(lambda: play_text(made["invites"]["1"], stdin, pout, timeout=TIMEOUT, script=False))
    try:
        _wait_for(pout, "your decision (secret melee allocation)")
        assert "allocated (secret): none" in pout.getvalue()  # the bot is still thinking
        stdin.type(f"allocate {pool} 0")  # no model named: the seat's own model in the exchange
        _wait_for(pout, "the server keeps it secret until the other player has allocated")
        gate.set()  # now the bot may allocate
        _wait_for(pout, "Allocations revealed:")
        text = pout.getvalue()
        held_at = text.index("the server keeps it secret")
        assert text.index("allocates its dice in secret", held_at) < text.index("Allocations revealed:")
        assert f"{mine} {pool} attack, 0 defence" in text.split("Allocations revealed:")[1].splitlines()[0]
    finally:
        gate.set()
        stdin.type("quit")
        seat.join(TIMEOUT)
        stdin.close()
    assert sbox.get("result") == 0, (sbox, pout.getvalue()[-2000:])
    # the bot is left waiting for the seat: the server is stopped by the fixture; the bot's thread is a daemon


class _GatedBot:
    """A bot that waits for ``gate`` before any decision in a melee exchange (the test
    decides when the bot allocates, instead of a race against a think time)."""

    name = "gated"

    def __init__(self, bot, gate: threading.Event) -> None:
        self.bot = bot
        self.gate = gate
        self.player = None

    def choose(self, game):
        if game.state.exchange is not None:
            self.gate.wait(TIMEOUT)
        self.bot.player = self.player
        return self.bot.choose(game)


class _Typist(io.TextIOBase):
    """A stdin the test types into (``readline`` blocks until a line comes)."""

    def __init__(self) -> None:
        self.q: list[str] = []
        self.cv = threading.Condition()
        self.closed_ = False

    def type(self, line: str) -> None:
        with self.cv:
            self.q.append(line + "\n")
            self.cv.notify_all()

    def close(self) -> None:
        with self.cv:
            self.closed_ = True
            self.cv.notify_all()

    def readline(self, size: int = -1) -> str:  # noqa: ARG002 - io's signature
        with self.cv:
            self.cv.wait_for(lambda: self.q or self.closed_, timeout=TIMEOUT)
            return self.q.pop(0) if self.q else ""

    def isatty(self) -> bool:
        return False


def test_the_feed_prints_a_take_back_and_what_was_missed_and_set_up_steps_read():
    feed = LogFeed(tail=None)
    ev = {"kind": "phase", "phase": "main"}
    assert feed.lines({"type": "welcome", "save": {"events": [], "actions": []}, "by": []}) == []
    a1 = {"kind": "pass"}
    feed.lines({"type": "update", "index": 0, "by": 1, "action": a1, "events": [], "rolls": [4, 2]})
    feed.lines({"type": "update", "index": 1, "by": 2, "action": {"kind": "allocate", "model": "asp"},
                "events": [], "rolls": []})
    out = feed.lines({"type": "state", "save": {"events": [], "actions": [a1]}, "by": [1]})
    assert out == ["Taken back: 1 decision(s); the game is back after decision 1:",
                   "  player 2: asp's melee allocation"]
    assert feed.lines({"type": "status"}) == []
    assert parse_step("deploy akira 4 5.5 90", 1) == {"kind": "deploy", "player": 1, "model": "akira",
                                                       "point": [4.0, 5.5], "facing": 90.0}
    assert parse_step("roll_off", 2) == {"kind": "roll_off", "player": 0}
    with pytest.raises(ValueError):
        parse_step("deploy akira x 1", 1)
    del ev
    import doctest

    import sim.net.text

    res = doctest.testmod(sim.net.text)
    assert res.attempted >= 3 and res.failed == 0


def test_a_wrong_token_is_refused_and_a_seat_claims_a_game_its_opponent_left(server):
    made = asyncio.run(asyncio.wait_for(create_game(server.url, DEFAULT_TABLE.read_text(encoding="utf-8"), seed=SEED,
                                                    timeout={"policy": "claim", "minutes": 0.01}), 15))
    out = io.StringIO()
    bad = re.sub(r"token=[^&]+", "token=not-the-token", made["invites"]["1"])
    assert play_text(bad, io.StringIO("1\n"), out, timeout=15) == 2
    assert "The server refused: wrong or missing token for seat 1 (token)" in out.getvalue()
    assert "not-the-token" not in out.getvalue()
    # player 2 never came: an illegal walk declared anyway (p.24), then, after the host's 0.6 s, a claim
    stdin, out = _Typist(), io.StringIO()
    seat, box = _thread(lambda: play_text(made["invites"]["1"], stdin, out, timeout=TIMEOUT, script=False))
    try:
        _wait_for(out, "your decision")
        stdin.type("walk akira 0.5 0.5")
        _wait_for(out, "Type yes to declare it anyway")
        stdin.type("yes")
        _wait_for(out, "akira loses 1 activation counter")
        threading.Event().wait(0.7)
        stdin.type("claim")
        seat.join(15)
    finally:
        stdin.close()
        seat.join(5)
    text = out.getvalue()
    assert box.get("result") == 0, text[-2000:]
    assert "Result: player 1 claims the game: player 2 did not come back" in text


BSDATA = DEFAULT_TABLE.parents[2].parent / "shared" / "bsdata"


@pytest.mark.skipif(not BSDATA.is_dir(), reason="../shared/bsdata is not there")
def test_a_seat_plays_the_set_up_at_the_terminal_a_refused_step_changes_nothing(server):
    """The set-up played step by step (``new --warbands A,B --setup``): a typed step the
    rules refuse is refused with its reason; ``auto`` lets the engine take the seat's
    steps; the game then starts and its log is printed."""
    made = asyncio.run(asyncio.wait_for(create_game(server.url, DEFAULT_TABLE.read_text(encoding="utf-8"), seed=3,
                                                    warbands=["Prefecture of Ryu", "Cult of Yurei"], setup=True), 15))
    bot, bbox = _thread(_bot, made["invites"]["2"], 4)
    out = io.StringIO()
    script = ["deploy nobody 12 12"] + ["auto"] * 40 + ["quit"]
    seat, box = _thread(lambda: play_text(made["invites"]["1"], io.StringIO("\n".join(script) + "\n"), out,
                                          timeout=TIMEOUT))
    seat.join(TIMEOUT)
    text = out.getvalue()
    assert box.get("result") == 0, (box, text[-3000:])
    assert "Set-up: the roll-off: roll_off dice=" in text  # taken before or after this seat joined
    assert "Refused by the server: no model 'nobody' to deploy" in text or \
        re.search(r"Refused by the server: .*deploy", text), text[:3000]
    assert "Set-up: player 1: deploy" in text and "Set-up: player 2: deploy" in text
    assert "=== Turn 1 ===" in text and "=== Player 1, your decision" in text
    bot.join(0.1)


def test_the_terminal_reconnects_after_the_server_restarts_and_plays_on(tmp_path):
    """The server stops mid-game and starts again on the same port and store: the
    terminal says the connection is lost, reconnects with its token, and the seat plays on."""
    local = Game(load_table(), seed=SEED)
    first_action = local.legal_actions()[0]
    events = [e.describe() for e in local.push(first_action)]
    first = Server(tmp_path)
    port = int(first.url.rsplit(":", 1)[1])
    made = _new_game(first.url, SEED)
    stdin, out = _Typist(), io.StringIO()
    seat, box = _thread(lambda: play_text(made["invites"]["1"], stdin, out, timeout=TIMEOUT, script=False))
    second = None
    try:
        _wait_for(out, "your decision")
        first.close()
        _wait_for(out, "Connection lost")
        second = Server(tmp_path, port)
        _wait_for(out, "Reconnected: the game is as the server has it.")
        stdin.type("1")
        _wait_for(out, f"You declare: {action_text(first_action)}")
        _wait_for(out, events[-1])  # its events, from the server
        stdin.type("quit")
        seat.join(15)
    finally:
        stdin.close()
        seat.join(5)
        if second is not None:
            second.close()
    assert box.get("result") == 0, out.getvalue()[-2000:]
