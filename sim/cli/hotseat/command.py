"""``python main.py hotseat``: the sub-command's arguments (:func:`add_parser`) and its
run (:func:`run_cli`): a new game on a table or one loaded from a save, seeded or
physical dice, bots for either player, then the session (:mod:`.session`).
"""

from __future__ import annotations

import argparse
import sys
from typing import IO

from sim.rules.bots import BOTS
from sim.rules.game import Game
from sim.table import DEFAULT_TABLE, load_table

from .console import Console, Quit, isatty
from .dice import PromptDice
from .screens import ANSI_CLEAR, LINES_CLEAR
from .session import check_save_path, run_hotseat


def _bot_spec(text: str) -> tuple[int, str]:
    player, sep, name = text.partition("=")
    if not sep or player.strip() not in ("1", "2") or name.strip() not in BOTS:
        raise argparse.ArgumentTypeError(f"expected 1=NAME or 2=NAME with NAME in {', '.join(BOTS)}, got {text!r}")
    return int(player), name.strip()


def add_parser(sub) -> argparse.ArgumentParser:
    """Add the ``hotseat`` sub-command to ``sub`` (an argparse sub-parsers object)."""
    hs = sub.add_parser("hotseat", help="play a game at one terminal: two players, or a player and a bot")
    hs.add_argument("table", nargs="?", default=None, help="table file (default: data/tables/default.yaml; "
                                                          "ignored with --load)")
    hs.add_argument("--seed", type=int, default=0, help="dice seed (seeded dice)")
    hs.add_argument("--turns", type=int, help="fixed game length in turns (default: variable (5))")
    hs.add_argument("--dice", choices=["seeded", "physical"], default="seeded",
                    help="seeded: the program rolls; physical: the players roll and type the values")
    hs.add_argument("--bot", action="append", default=[], type=_bot_spec, metavar="P=NAME",
                    help="a bot plays player P (1=greedy, 2=random ...); repeatable")
    hs.add_argument("--scenario", metavar="NAME|FILE", help="a scenario from data/scenarios or a scenario file")
    hs.add_argument("--save", metavar="FILE", help="save the game after every action (JSON, atomic)")
    hs.add_argument("--load", metavar="FILE", help="continue a game saved by --save or the save command")
    hs.add_argument("--clear", choices=["ansi", "lines"], default=None,
                    help="how the screen is cleared before a secret allocation "
                         "(default: ansi on a terminal, else blank lines)")
    return hs


def run_cli(args, stdin: IO[str] | None = None, stdout: IO[str] | None = None) -> int:
    """Run ``main.py hotseat`` with parsed ``args``; returns the exit status (0).

    Raises (turned into status 2 by ``main``): :class:`~sim.table.TableError` for a bad
    table, :class:`~sim.rules.game.GameError` (a ``ValueError``) for a bad save.
    """
    stdin = stdin if stdin is not None else sys.stdin
    stdout = stdout if stdout is not None else sys.stdout
    if args.save:
        check_save_path(args.save)  # before the game: a bad path is status 2 at once
    out = Console(stdin, stdout)
    bots = {}
    for p, name in args.bot:
        bots[p] = BOTS[name](args.seed + p - 1)
    dice = PromptDice(stdin, stdout) if args.dice == "physical" else None
    try:
        if args.load:
            game = Game.load(args.load)
            if dice is None and not game.seeded:  # played with physical dice: go on with them
                dice = PromptDice(stdin, stdout)
                out.write("This game was played with physical dice: roll and type the values when asked.")
            if dice is not None:  # physical dice; seeded dice roll on from the saved state
                game.dice = dice
            out.write(f"Loaded {args.load}: turn {game.state.turn}, {game.state.phase} phase, "
                      f"{len(game.events)} events.")
        else:
            table = load_table(args.table or DEFAULT_TABLE)
            length = ("fixed", args.turns) if args.turns else None
            if dice is not None:
                out.write("Physical dice: roll and type the values when asked (e.g. 3 5 6).")
            game = Game(table, seed=args.seed, dice=dice, length=length, scenario=args.scenario)
    except Quit:
        out.write("Stopped before the game began.")
        return 0
    except KeyboardInterrupt:
        out.write("\nInterrupted.")
        return 130
    clear = args.clear or ("ansi" if isatty(stdout) else "lines")
    who = ", ".join(f"player {p}: {bots[p].name} bot" if p in bots else f"player {p}: human" for p in (1, 2))
    out.write(f"Hot-seat game on {game.table.name} ({who}). Type help for the commands.")
    try:
        run_hotseat(game, stdin, stdout, bots=bots, clear=ANSI_CLEAR if clear == "ansi" else LINES_CLEAR,
                    save=args.save)
    except KeyboardInterrupt:
        out.write("\nInterrupted.")
        return 130
    return 0
