"""Start a game in the window: the set-up screens, then the game window, in one ShowBase.

What ``python main.py`` (with a display) and ``python main.py game`` run. The same
sequence runs offscreen (the software renderer, no display) for tests and for
``game --screenshot``: :func:`start` builds it on any ShowBase, :func:`run_game`
opens the onscreen window and runs it until it is closed.
"""

from __future__ import annotations

import gc
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from .controller import PlayController, make_bots
from .window import SAVE_PATH, GameWindow


@dataclass
class Launch:
    """What to start: a game on a table (``table``: a :class:`~sim.table.Table` whose
    models are deployed), a saved game (``load``: a save's path), or the set-up screens
    (``setup=True``: choose the table, scenario and warbands, place terrain, roll off and
    deploy, p.20, p.60-63).

    Attributes:
        table: the table (ignored with ``load`` or ``setup``).
        scenario: a scenario name or file for ``table`` (None: none).
        seed: the dice seed (one seed, one game).
        length: the game length (``("fixed", N)`` or ``("variable", N)``), None: the
            scenario's or the rulebook's.
        bots: ``{player: bot name}`` (``greedy``, ``random``): those players are bots.
        dice: ``"seeded"`` or ``"physical"`` (the players type the values rolled).
        tournament: no manual adjustments.
        save_path: where the window's Save button writes.
    """

    table: object = None
    scenario: str | None = None
    seed: int = 0
    length: tuple[str, int] | None = None
    bots: dict[int, str] = field(default_factory=dict)
    dice: str = "seeded"
    tournament: bool = False
    load: str | None = None
    setup: bool = False
    save_path: str | Path = SAVE_PATH

    def controller(self, game=None) -> PlayController:
        """The :class:`PlayController` of this launch (on ``game`` when given: the one the
        set-up built).

        Raises:
            GameError: a save that cannot be read or verified, a scenario that does not
                fit the table.
        """
        bots = make_bots(self.bots, self.seed) if self.bots else None
        if game is not None:
            return PlayController(game, bots=bots, tournament=self.tournament, dice=self.dice)
        if self.load is not None:
            return PlayController.load(self.load, bots=bots)
        return PlayController.new_game(self.table, seed=self.seed, length=self.length, scenario=self.scenario,
                                       dice=self.dice, bots=bots, tournament=self.tournament)


class Session:
    """The screens of one launch on ``base``: the set-up screen (when asked for), then
    the game window on the game it built (or on the launch's game at once).

    Attributes:
        setup: the :class:`~sim.view.play.setup_screens.SetupScreen` shown, or None.
        window: the :class:`~sim.view.play.window.GameWindow` shown, or None.
    """

    def __init__(self, base, launch: Launch, *, animate: bool = True,
                 on_window: Callable[[GameWindow], None] | None = None, legend: bool = False):
        self.base = base
        self.launch = launch
        self.animate = animate
        #: the game window opens with its legend shown (then it keeps the player's choice)
        self.legend = legend
        self.on_window = on_window
        self.setup = None
        self.window: GameWindow | None = None
        if launch.setup:
            self._open_setup()
        else:
            self._open(launch.controller())

    def _open_setup(self) -> None:
        """The set-up screens, the launch's bots chosen in its first screen. With
        physical dice the roll-off takes the values typed, and the game's first rolls
        (the turn-1 Tactical test) are asked for before the game window opens."""
        from .setup_flow import SetupFlow
        from .setup_screens import SetupScreen

        flow = SetupFlow(seed=self.launch.seed, physical=self.launch.dice == "physical")
        for side, name in (self.launch.bots or {}).items():
            if side in (1, 2) and name in ("greedy", "random"):
                flow.choose_player(side, name)
        self.setup = SetupScreen(self.base, self._deployed, flow=flow)

    def new_game(self) -> None:
        """The game window's "New game": the window is closed (the game in progress is
        left: save it first) and the set-up screens open, the bots chosen before kept."""
        if self.window is not None:
            self.launch = replace(self.launch, bots=self._bot_names(self.window.controller))
            self.legend = self.window.legend_shown
            self.window.destroy()
            self.window = None
        if self.setup is None:
            self._open_setup()

    @staticmethod
    def _bot_names(controller) -> dict[int, str]:
        from sim.rules.bots import BOTS

        names = {cls: name for name, cls in BOTS.items()}
        return {p: names[type(b)] for p, b in getattr(controller, "bots", {}).items() if type(b) in names}

    def _deployed(self, game) -> None:
        """The set-up is done: replace its screen by the game window on ``game``, with
        the players the set-up's first screen chose (human, greedy or random bot)."""
        if self.setup is not None:
            bots = self.setup.flow.bots()
            self.launch = replace(self.launch, bots=bots)
            self.setup.destroy()
            self.setup = None
        self._open(self.launch.controller(game))

    def _open(self, controller: PlayController) -> None:
        self.window = GameWindow(self.base, controller, animate=self.animate, save_path=self.launch.save_path,
                                 on_new_game=self.new_game, legend=self.legend)
        if self.on_window is not None:
            self.on_window(self.window)

    def destroy(self) -> None:
        """Remove whichever screen is shown."""
        if self.setup is not None:
            self.setup.destroy()
            self.setup = None
        if self.window is not None:
            self.window.destroy()
            self.window = None


def run_game(launch: Launch, size: tuple[int, int] = (1600, 1000)) -> PlayController | None:
    """Open the onscreen window and run ``launch`` until the window is closed; returns
    the controller of the game played (None when the set-up was not finished).

    Raises:
        RuntimeError: no window could be opened (no display).
        GameError: as :meth:`Launch.controller`.
    """
    from .shell import get_base

    base = get_base(offscreen=False, size=size, title="Bushido: Risen Sun")
    session = Session(base, launch, animate=True, legend=True)  # the legend shown on the first start
    base.win.set_close_request_event("bushido-play-close")
    base.accept("bushido-play-close", base.task_mgr.stop)
    # what start-up built lives as long as the window: out of the collector's full
    # passes, which otherwise pause a click by about 25 ms (benchmarks/game_window_bench.py)
    gc.freeze()
    try:
        base.run()
    finally:
        ctrl = session.window.controller if session.window is not None else None
        session.destroy()
    return ctrl


def screenshot_game(launch: Launch, path, size: tuple[int, int] = (1280, 960)) -> Path:
    """Render the first screen of ``launch`` (the set-up's first screen, or the game
    window) offscreen to the PNG ``path``, headless.

    Raises:
        RuntimeError: the software renderer could not open a buffer or write the file.
        GameError: as :meth:`Launch.controller`.
    """
    from .shell import get_base, screenshot

    base = get_base(offscreen=True, size=size)
    session = Session(base, launch, animate=False)
    try:
        if session.window is not None:
            session.window.refresh(force=True)
        elif session.setup is not None:
            session.setup.refresh(force=True)
        return screenshot(base, path)
    finally:
        session.destroy()
