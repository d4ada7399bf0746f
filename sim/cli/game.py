"""``python main.py game``: play a game of Bushido in the 3D window.

On a table whose models are deployed (the bundled default), from a save (``--load``), or
from the set-up screens (``--setup``: table, scenario and warbands chosen in the window,
terrain placed, roll-off, deployment, p.20, p.60-63). Two players at one screen, or a
player against a bot (``--bot 2=greedy``); seeded or physical dice; tournament mode (no
manual adjustments). ``--screenshot FILE.png`` renders the first screen offscreen and
exits (no display needed). Without a display and without ``--screenshot`` it says so in
one line (status 2): the terminal hot-seat (``main.py hotseat``) plays without one.
"""

from __future__ import annotations

import argparse

from sim import view
from sim.files import check_output_path, is_png
from sim.table import DEFAULT_TABLE, load_table

from .hotseat.command import _bot_spec as bot_spec


def add_parser(sub) -> argparse.ArgumentParser:
    """Add the ``game`` sub-command to ``sub`` (an argparse sub-parsers object)."""
    g = sub.add_parser("game", help="play a game in the 3D window (two players at one screen, or against a bot)")
    g.add_argument("table", nargs="?", default=None,
                   help="table file with both warbands deployed (default: data/tables/default.yaml)")
    g.add_argument("--setup", action="store_true",
                   help="set the game up in the window: table, scenario, warbands, terrain, roll-off, deployment")
    g.add_argument("--scenario", metavar="NAME|FILE", help="a scenario from data/scenarios or a scenario file")
    g.add_argument("--seed", type=int, default=0, help="dice seed (seeded dice): one seed, one game")
    g.add_argument("--turns", type=int, help="fixed game length in turns (default: the scenario's or variable (5))")
    g.add_argument("--bot", action="append", default=[], type=bot_spec, metavar="P=NAME",
                   help="a bot plays player P (2=greedy ...); repeatable")
    g.add_argument("--dice", choices=["seeded", "physical"], default="seeded",
                   help="seeded: the program rolls; physical: the players roll and type the values")
    g.add_argument("--tournament", action="store_true", help="tournament mode: no manual adjustments")
    g.add_argument("--load", metavar="FILE", help="continue a saved game")
    g.add_argument("--save", metavar="FILE", default=None, help="where the window's Save button writes "
                                                                "(default: out/game.json)")
    g.add_argument("--screenshot", metavar="FILE.png", help="render the first screen offscreen to this PNG and exit")
    return g


def launch_of(args):
    """The :class:`~sim.view.play.launch.Launch` of parsed ``game`` arguments.

    Raises:
        TableError: a bad table file (status 2 in ``main``).
        ValueError: bad argument combinations or a bad --turns.
    """
    from sim.view.play.launch import Launch

    if args.turns is not None and not 1 <= args.turns <= 20:
        raise ValueError(f"--turns must be between 1 and 20, not {args.turns}")
    if args.load and (args.setup or args.table):
        raise ValueError("--load continues a saved game: give no table and no --setup with it")
    if args.setup and args.table:
        raise ValueError("--setup chooses the table in the window: give no table with it")
    kw = {}
    if args.save:
        kw["save_path"] = args.save
    table = None
    if not args.load and not args.setup:
        table = load_table(args.table or DEFAULT_TABLE)
    return Launch(table=table, scenario=args.scenario, seed=args.seed,
                  length=("fixed", args.turns) if args.turns else None, bots=dict(args.bot), dice=args.dice,
                  tournament=args.tournament, load=args.load, setup=args.setup, **kw)


def run(args) -> int:
    """Run ``main.py game`` with parsed ``args``; returns the exit status.

    Raises (turned into status 2 by ``main``): TableError, GameError (a ValueError),
    ValueError.
    """
    if args.screenshot:
        check_output_path(args.screenshot, suffix=".png", overwrite=is_png, kind="PNG image", create_folder=True)
    if args.save:
        from .hotseat.session import check_save_path

        check_save_path(args.save)
    launch = launch_of(args)
    if args.screenshot:
        from sim.view.play.launch import screenshot_game

        path = screenshot_game(launch, args.screenshot)
        print(f"wrote {path}")
        return 0
    if not view.has_display():
        raise ValueError("no display to open the game window on: use --screenshot FILE.png, "
                         "or play in the terminal with `main.py hotseat`")
    from sim.view.play.launch import run_game

    ctrl = run_game(launch)
    if ctrl is not None:
        st = ctrl.game.state
        print(f"{ctrl.game.table.name}: turn {st.turn}, {st.phase} phase"
              + (f"; {st.result}" if ctrl.game.is_over() else ""))
    return 0
