"""The game state (General rules p.18-21): what changes during a game, as plain data.

:class:`GameState` holds the turn, phase, active player, pass tokens, the melee exchange
or shot waiting for an answer, Ki feat usage, Auras, the scenario state and one
:class:`ModelState` per model. It changes only through events
(:func:`sim.rules.game.events.apply_event`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from models.profiles import get_profile
from models.traits import has_trait
from sim.rules import conditions

#: A game always ends after the End phase of this turn (Game length, p.63).
MAX_TURNS = 7


class GameError(ValueError):
    """An action that cannot be taken now, or a save file that cannot be read."""



@dataclass
class ModelState:
    """A model's game state. Positions in inches, facing in degrees."""

    id: str
    player: int
    position: tuple[float, float]
    facing: float
    wounds: int  # boxes of one track
    ki_stat: int
    ki_limit: int
    damage: int = 0
    counters: int = 0
    ki: int = 0
    conditions: dict = field(default_factory=dict)
    markers: dict = field(default_factory=dict)  # "bleed"/"poison"/"fire"/... -> list of values
    alive: bool = True
    ammo: dict = field(default_factory=dict)  # weapon name -> Ammo tokens left (weapons fired so far)
    owner: int = 0  # the warband it belongs to; ``player`` is the side it fights for (Controlled, p.43)
    #: Elsewhere (p.5): held back by Flank (p.52), ``{"turn": t, "edge": e, "zone": z}``
    #: (the turn and table edge it arrives on, the opponent's deployment zone it may not
    #: arrive in, or None); None once on the table. A model Elsewhere is not ``alive`` (not
    #: on the table: no LoS, ZoC, target or activation counters) but it is not killed.
    elsewhere: dict | None = None
    #: Effects with a duration on its card (:mod:`sim.rules.effects`): traits gained or
    #: lost, weapon traits, statistic changes, each ``{"source", "until", ...}``.
    effects: list = field(default_factory=list)
    #: Kami (p.54): wounds remove Ki tokens instead of marking boxes; removed with the
    #: last token (from the card, :func:`initial_state`).
    kami: bool = False
    #: Last Stand (p.54) or Rise (p.57): wounds that reach the last box leave it on the
    #: table at 0 wounds; the game then applies the trait (:func:`take_wounds`).
    holds_at_zero: bool = False

    def __post_init__(self) -> None:
        if not self.owner:
            self.owner = self.player

    @property
    def killed(self) -> bool:
        """Removed from the game: neither on the table nor Elsewhere."""
        return not self.alive and self.elsewhere is None

    @property
    def exhausted(self) -> bool:
        """No activation counters left (p.24)."""
        return self.counters <= 0



@dataclass
class GameState:
    """Everything that changes during a game (a pure function of table + events)."""

    turn: int = 0
    phase: str = "start"
    active: int | None = None
    first: int | None = None
    last_turn: bool = False
    pass_tokens: dict = field(default_factory=lambda: {1: 0, 2: 0})
    models: dict = field(default_factory=dict)
    scores: dict = field(default_factory=lambda: {1: 0, 2: 0})
    result: str | None = None
    exchange: dict | None = None  # a melee exchange waiting for allocations
    feat_usage: dict = field(default_factory=dict)  # model -> {"turn": [names], "game": [names]}
    auras: list = field(default_factory=list)  # Aura feats in play: {"feat", "source", "player"}
    scenario: dict | None = None  # the scenario state (sim.rules.scenario.ScenarioState as JSON)
    interception: dict | None = None  # a shot waiting for the target's controller (step 1d)
    removed_terrain: list = field(default_factory=list)  # Destructible pieces removed from the table (p.16)

    def alive(self, player: int | None = None) -> list[ModelState]:
        """Models still on the table (of ``player``, or of both)."""
        return [m for m in self.models.values() if m.alive and (player is None or m.player == player)]

    def elsewhere(self, player: int | None = None) -> list[ModelState]:
        """Models Elsewhere (p.5), not yet arrived (of ``player``, or of both)."""
        return [m for m in self.models.values()
                if m.elsewhere is not None and (player is None or m.player == player)]

    def in_game(self, player: int | None = None) -> list[ModelState]:
        """Models still in the game: on the table or Elsewhere (of ``player``, or of
        both), in the table's order. Elsewhere models generate Ki (p.5) and count as
        models of the warband (pass tokens p.20 step 6, the end of the game p.21)."""
        return [m for m in self.models.values()
                if (m.alive or m.elsewhere is not None) and (player is None or m.player == player)]

    def due_arrivals(self, player: int | None = None) -> list[ModelState]:
        """Models Elsewhere whose arrival is due now: in the Starting phase of their
        turn (or later), waiting to be placed (Flank, p.52)."""
        if self.phase != "start":
            return []
        out = []
        for m in self.elsewhere(player):
            when = m.elsewhere.get("turn") if m.elsewhere is not None else None
            if isinstance(when, int) and when <= self.turn:
                out.append(m)
        return out

    def can_activate(self, player: int) -> bool:
        """Whether ``player`` has a living model that may activate: it has activation
        counters and no Impetuous model of its warband stops it (p.44)."""
        models = self.alive(player)
        return any(not m.exhausted and not self.impetuous_blocks(m) for m in models)

    def impetuous_blocks(self, m: "ModelState") -> bool:
        """Impetuous (p.44): while a model of the warband has an Impetuous marker, models
        without one may not activate. A model a Ki feat makes activate next ignoring
        Impetuous markers (Dominate) is not stopped (:func:`order_ignores_impetuous`)."""
        if order_ignores_impetuous(m.conditions):
            return False
        return conditions.impetuous_blocks_activation(
            m.conditions, [x.conditions for x in self.alive(m.player)])


def order_ignores_impetuous(marks: dict) -> bool:
    """Whether a model's conditions hold the mark ``feat_order:next`` of a Ki feat whose
    activation ignores Impetuous markers (p.44; Dominate: "ignoring Impetuous Markers";
    :mod:`sim.rules.game.feat_order`)."""
    v = marks.get("feat_order:next")
    return v is not None and '"ignore_impetuous": true' in str(v)



def initial_state(table) -> GameState:
    """The state before the game starts: every model where the table deploys it (Prone
    when the table says so), with its card's Wounds, Ki and Ki limit (5, 1 and 6 for a
    model without a card)."""
    st = GameState()
    for m in table.models:
        prof = None
        if m.profile:
            try:
                prof = get_profile(m.profile)
            except KeyError:
                prof = None
        st.models[m.id] = ModelState(
            id=m.id, player=m.player, position=(float(m.position[0]), float(m.position[1])), facing=float(m.facing),
            wounds=(prof.wounds if prof and prof.wounds else 5),
            ki_stat=(prof.ki if prof and prof.ki is not None else 1),
            ki_limit=(prof.ki_limit if prof and prof.ki_limit is not None else 6),
            conditions={"prone": 1} if m.prone else {})
        if prof is not None and any(has_trait(prof, k) for k in ("kami", "last_stand", "rise")):
            x = st.models[m.id]
            x.kami = has_trait(prof, "kami")
            x.holds_at_zero = not x.kami and (has_trait(prof, "last_stand") or has_trait(prof, "rise"))
            if x.kami:  # "при выставлении эта модель получает жетоны Ки, равные ее максимальному Ки" (p.54)
                x.ki = x.ki_limit
    return st


def take_wounds(m: ModelState, n: int) -> None:
    """``n`` wounds on ``m`` (p.38): boxes marked, the model removed with the last one.
    A Kami (p.54) loses ``n`` Ki tokens instead and is removed with the last; a model
    with Last Stand or Rise (:attr:`ModelState.holds_at_zero`) stays at 0 wounds (the
    game applies the trait: ``sim.rules.game.turn_traits``)."""
    if n <= 0:
        return
    if m.kami:
        m.ki = max(0, m.ki - n)
        if m.ki <= 0:
            m.alive, m.counters = False, 0
        return
    m.damage = min(m.wounds, m.damage + n)
    if m.damage >= m.wounds and not m.holds_at_zero:
        m.alive, m.counters = False, 0



def remove_counters(m: ModelState, n: int) -> None:
    """Remove ``n`` activation counters; a Controlled model loses one Controlled marker per
    counter removed and goes back to its warband with the last (p.43)."""
    n = min(max(0, n), m.counters)
    m.counters -= n
    if n and "controlled" in m.conditions:
        left = int(m.conditions["controlled"]) - n
        if left <= 0:
            m.conditions.pop("controlled")
            m.player = m.owner
        else:
            m.conditions["controlled"] = left

