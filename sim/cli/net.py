"""The network commands (issue 14, ``docs/network.md``)::

    python main.py serve [--host 127.0.0.1] [--port 8765] [--store games.db]
    python main.py new ws://HOST:PORT TABLE [--scenario S] [--seed N] [--warbands A,B [--setup]] [--turns N]
                       [--timeout wait|claim] [--timeout-minutes M] [--clock MIN[+INC]] [--tournament]
    python main.py join INVITE [--bot greedy|random] [--text] [--seed N]
    python main.py watch URL [--text]
    python main.py export ws://HOST:PORT GAME --out g.json

``serve`` binds loopback unless told otherwise (binding elsewhere is the user's choice).
``new`` prints the game id and one invitation per seat (a URL carrying that seat's random
token: give each player theirs, and keep it from the other). ``join`` plays a seat in the
3D window (default), in the terminal (``--text``) or with a bot (``--bot``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import sys
from pathlib import Path

from sim.files import check_output_path, read_text
from sim.table import DEFAULT_TABLE

COMMANDS = ("serve", "new", "join", "watch", "export")


def _clock(text: str) -> dict:
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*(?:\+\s*(\d+(?:\.\d+)?))?\s*", text)
    if not m:
        raise argparse.ArgumentTypeError(f"--clock: expected MINUTES or MINUTES+SECONDS (e.g. 45+10), got {text!r}")
    return {"minutes": float(m.group(1)), "increment": float(m.group(2) or 0)}


def add_parsers(sub) -> None:
    """Add ``serve``, ``new``, ``join``, ``watch`` and ``export`` to ``sub``."""
    s = sub.add_parser("serve", help="run the game server (networked play)")
    s.add_argument("--host", default="127.0.0.1", help="address to bind (default: loopback only)")
    s.add_argument("--port", type=int, default=8765, help="port (default 8765; 0: any free port)")
    s.add_argument("--store", default="games.db", help="SQLite file keeping every game (default games.db)")
    s.add_argument("--data", metavar="DIR", help="the BattleScribe catalogues for --warbands games")
    n = sub.add_parser("new", help="create a game on a server and print one invitation per seat")
    n.add_argument("server", help="ws://HOST:PORT")
    n.add_argument("table", nargs="?", default=str(DEFAULT_TABLE), help="table file (default: the bundled table)")
    n.add_argument("--scenario", metavar="NAME", help="a bundled scenario (data/scenarios)")
    n.add_argument("--seed", type=int, help="dice seed (default: the server picks one in secret)")
    n.add_argument("--turns", type=int, help="fixed game length in turns")
    n.add_argument("--warbands", metavar="A,B", help="two catalogue factions set up by the engine on the table's "
                                                      "terrain (as play --warbands)")
    n.add_argument("--rice", type=int, default=70, help="rice limit of picked warbands (default 70)")
    n.add_argument("--timeout", choices=["wait", "claim"], default="wait",
                   help="when a player drops: wait for them, or let the opponent claim the game")
    n.add_argument("--timeout-minutes", type=float, default=10.0, help="minutes away before a claim (default 10)")
    n.add_argument("--clock", type=_clock, metavar="MIN[+INC]", help="chess clocks: minutes each, +seconds a move")
    n.add_argument("--tournament", action="store_true", help="tournament mode: no take-backs, no adjustments")
    n.add_argument("--setup", action="store_true", help="the players play the set-up (roll-off, terrain, zones, "
                                                         "deployment, Flank, Scouts) step by step (needs --warbands)")
    n.add_argument("--json", action="store_true", help="print the answer as JSON")
    j = sub.add_parser("join", help="join a game with its invitation: window, terminal (--text) or bot (--bot)")
    j.add_argument("invite", help="the invitation URL printed by new")
    j.add_argument("--bot", choices=["greedy", "random"], help="let a bot play the seat")
    j.add_argument("--seed", type=int, default=0, help="the bot's seed")
    j.add_argument("--think", type=float, default=0.0, help="seconds a bot waits before each decision")
    j.add_argument("--text", action="store_true", help="play in the terminal")
    w = sub.add_parser("watch", help="watch a game as a spectator")
    w.add_argument("url", help="the game's URL (ws://HOST:PORT/g/GAME)")
    w.add_argument("--text", action="store_true", help="follow it in the terminal")
    e = sub.add_parser("export", help="write a finished game's save (bushido-game/1, for replay)")
    e.add_argument("server", help="ws://HOST:PORT")
    e.add_argument("game", help="the game id")
    e.add_argument("--out", required=True, help="the save file to write")


def run(args) -> int:
    """Run one of :data:`COMMANDS`; returns the exit status.

    Raises:
        ValueError: bad input (turned into one line and status 2 by ``main``).
    """
    from sim.net.client import Refused

    try:
        if args.command == "serve":
            return _serve(args)
        if args.command == "new":
            return asyncio.run(_new(args))
        if args.command == "join":
            return _join(args)
        if args.command == "watch":
            return _watch(args)
        if args.command == "export":
            return asyncio.run(_export(args))
    except Refused as exc:
        raise ValueError(f"the server refused: {exc.message} ({exc.code})") from None
    except OSError as exc:
        raise ValueError(f"cannot reach the server: {exc}") from None
    raise ValueError(f"unknown command {args.command!r}")


def _serve(args) -> int:
    import logging

    from sim.net.server import run_server

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")

    async def main() -> None:
        ready: asyncio.Future = asyncio.get_running_loop().create_future()
        task = asyncio.create_task(run_server(args.host, args.port, args.store, args.data, ready=ready))
        done, _ = await asyncio.wait({task, ready}, return_when=asyncio.FIRST_COMPLETED)
        if ready.done():
            print(f"serving on {ready.result()} (store {args.store}); Ctrl-C stops", flush=True)
        await task

    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        pass
    return 0


async def _new(args) -> int:
    from sim.files import FileProblem
    from sim.net.client import create_game

    try:
        text = read_text(Path(args.table))
    except FileProblem as exc:
        raise ValueError(f"{args.table}: {exc.problem}") from None
    fields: dict = {"table_name": str(args.table), "scenario": args.scenario, "seed": args.seed, "turns": args.turns,
                    "rice": args.rice, "tournament": args.tournament,
                    "timeout": {"policy": args.timeout, "minutes": args.timeout_minutes}}
    if args.warbands:
        names = [w.strip() for w in args.warbands.split(",")]
        if len(names) != 2 or not all(names):
            raise ValueError(f"--warbands: expected two warbands A,B, got {args.warbands!r}")
        fields["warbands"] = names
    if args.clock:
        fields["clock"] = args.clock
    if args.setup:
        fields["setup"] = True
    msg = await create_game(args.server, text, **fields)
    if args.json:
        print(json.dumps({k: msg[k] for k in ("game", "invites", "watch")}, indent=1))
        return 0
    print(f"game {msg['game']}")
    for s in ("1", "2"):
        print(f"player {s}: {msg['invites'][s]}")
    print(f"watch:    {msg['watch']}")
    return 0


def _join(args) -> int:
    from sim.net.client import Invite, run_bot
    from sim.rules import bots

    invite = Invite.parse(args.invite)
    if invite.seat is None:
        raise ValueError("this URL has no seat: use main.py watch to follow the game")
    if args.bot:
        client = asyncio.run(run_bot(invite, bots.BOTS[args.bot](args.seed), think=args.think))
        st = client.mirror.status
        print("\n".join(client.mirror.log()))
        print(f"game over: {st.get('result')}")
        return 0
    if args.text:
        from sim.net.text import play_text

        return play_text(invite, sys.stdin, sys.stdout)
    from sim.view.play.remote import run_remote

    return run_remote(invite)


def _watch(args) -> int:
    from sim.net.client import Invite

    invite = Invite.parse(args.url)
    if invite.seat is not None or invite.token is not None:
        invite = Invite(invite.base, invite.game)
    if args.text:
        from sim.net.text import watch_text

        return watch_text(invite, sys.stdout)
    from sim.view.play.remote import run_remote

    return run_remote(invite)


async def _export(args) -> int:
    from sim.files import write_text_atomic
    from sim.net.client import export_game

    check_output_path(args.out, suffix=".json", kind="save", create_folder=True)
    msg = await export_game(args.server, args.game)
    write_text_atomic(Path(args.out), json.dumps(msg["save"], indent=1, allow_nan=False))
    print(f"wrote {args.out}")
    return 0
