"""What the bots estimate and remember: target numbers, enemy shooters, exposure, the
verdicts of straight moves, and small plane helpers (p.22-25, p.30-32).

Rulebook: Shooting p.30-32 (range bands, target numbers, Cover), Walk and Charge
p.22-25 (ZoC, Impassable terrain). These are estimates to order a bot's candidates:
every action a bot returns is checked with :meth:`Game.is_legal`. Distances are inches.
"""

from __future__ import annotations

import math

from shapely.geometry import LineString

from models.profiles import get_profile
from sim.geometry import CONTACT, ZOC_RANGE, Passage
from sim.geometry.primitives import point_segment_distance
from sim.rules import movement
from sim.rules.game import Action, Game
from sim.rules.ranged import RangedModifiers, TargetInfo, has_trait, max_range, range_band, target_number

#: Slack of the bots' distance comparisons, inches.
SLACK = 1e-9


def shot_target_number(game: Game, scene, shooter: str, target: str, weapon, *, moved: bool = False,
                       cards: Cards | None = None, cover: bool | None = None) -> int | None:
    """The target number of ``shooter``'s shot at ``target`` with ``weapon`` in
    ``scene`` (:func:`sim.rules.ranged.target_number` with the modifiers of
    :func:`~sim.rules.ranged.modifiers_from_geometry`: range band, Size, Prone, Cover,
    Ran, Ranged Defence...), or None beyond the weapon's range. ``cover``: whether the
    target has Cover, when already known (default: :meth:`Scene.cover`)."""
    band = range_band(weapon, scene.distance(shooter, target))
    if band is None:
        return None
    st = game.state.models
    info = Cards.of(game, cards).info(target)
    T = scene.bodies[target]
    if cover is None:
        cover = scene.cover(shooter, target).cover
    mods = RangedModifiers(
        target_size=T.size, target_prone=T.prone, target_surprised=info.surprised and not info.sixth_sense,
        target_in_cover=bool(cover), attacker_ran="ran" in st[shooter].conditions,
        target_ran="ran" in st[target].conditions, attacker_moved=moved,
        light_weight=has_trait(weapon, "light weight"), ranged_defence=info.ranged_defence, swarm=info.swarm)
    return target_number(band, mods)


class Cards:
    """What the bots read from the models' cards, read once per table: the first ranged
    weapon (the one a Shoot uses by default, :meth:`Game.ranged_weapon`), its Long range, and
    the :class:`~sim.rules.ranged.TargetInfo` of each model."""

    def __init__(self, game: Game):
        self.table = game.table
        self.game = game
        self._weapon: dict = {}
        self._info: dict = {}

    @classmethod
    def of(cls, game: Game, cards: "Cards | None" = None) -> "Cards":
        """``cards`` when it was read for ``game``'s table, else a new one."""
        if cards is not None and cards.table is game.table:
            cards.game = game
            return cards
        return cls(game)

    def weapon(self, mid: str):
        """The model's first ranged weapon, or None."""
        if mid not in self._weapon:
            self._weapon[mid] = self.game.ranged_weapon(mid)
        return self._weapon[mid]

    def reach(self, mid: str) -> float | None:
        """The Long range of the model's first ranged weapon, or None."""
        w = self.weapon(mid)
        if w is None:
            return None
        try:
            return max_range(w)
        except ValueError:
            return None

    def info(self, mid: str):
        """The :class:`~sim.rules.ranged.TargetInfo` of the model's card (defaults without one)."""
        got = self._info.get(mid)
        if got is None:
            got = TargetInfo()
            prof = self.table.model(mid).profile
            if prof:
                try:
                    got = TargetInfo.from_traits(get_profile(prof).traits)
                except Exception:  # noqa: BLE001 - a card we cannot read gets defaults, as the game does
                    pass
            self._info[mid] = got
        return got


def enemy_shooters(game: Game, player: int, cards: Cards | None = None) -> list[tuple[str, float]]:
    """``(id, reach)`` of the living models of ``player`` with a ranged weapon that are
    not in base contact with an enemy (they could not shoot, p.25): reach is the
    weapon's Long range plus the model's Move (a Walk before shooting)."""
    cards = Cards.of(game, cards)
    out = []
    table = game.table_now()
    others = [table.model(m.id) for m in game.state.alive(3 - player)]
    for m in game.state.alive(player):
        r = cards.reach(m.id)
        if r is None:
            continue
        tm = table.model(m.id)
        if any(gap(tm, o) <= CONTACT + SLACK and not o.prone for o in others):
            continue
        out.append((m.id, r + (tm.move or 0)))
    return out


def exposure(scene, body, shooters, limit: float = math.inf) -> float:
    """How exposed a base (a :class:`~sim.geometry.Body`, e.g. a model moved to a
    candidate point) is to enemy ``shooters`` (``(id, reach)``): +1 for each shooter in
    reach that sees it without cover, +0.25 for one that sees it in cover
    (:meth:`Scene.los`, :meth:`Scene.cover`); out of sight counts 0. Stops counting
    once the total reaches ``limit``."""
    total = 0.0
    for sid, reach in shooters:
        S = scene.bodies.get(sid)
        if S is None:
            continue
        if math.dist(S.center, body.center) - S.radius - body.radius > reach:
            continue
        los = scene.los(sid, body)
        if not los.visible:
            continue
        total += 0.25 if scene.cover(sid, body, los).cover else 1.0
        if total >= limit:
            break
    return total


def active_player(game: Game) -> int:
    """The active player (every position a bot decides in has one: the game is not over)."""
    p = game.state.active
    assert p is not None, "no active player: the game is over"
    return p


def charge_reaches(game: Game, action: Action) -> bool:
    """Whether the Charge ``action`` (which names its model and target) reaches its target."""
    assert action.model is not None and action.target is not None, "a Charge names its model and target"
    return bool(game.charge(action.model, action.target).reached)


def gap(a, b) -> float:
    """Edge-to-edge distance of two table models."""
    return math.dist(a.position, b.position) - a.radius - b.radius


#: Half-width added to a mover's radius of the corridor whose models can change the
#: verdict on a straight move: a ZoC (1"), a base in contact with the model whose ZoC it
#: is (up to two 60 mm bases) and some slack.
CORRIDOR = 4.0


class Verdicts:
    """Refusals of straight moves (Walk, Charge, Melee) on one table, remembered while
    nothing near them changes: a refusal is stored under the action, the positions,
    facings and Prone states of the models in a corridor around the move, the mover's
    counters and the conditions present in its warband (Impetuous); a later question
    with the same key is answered without the movement service. Moves of a model with
    a condition, or at a target with one, are not remembered (Berserk, Disguised...).
    Only refusals are kept: an action is always checked with :meth:`Game.is_legal`
    before it is returned."""

    LIMIT = 20_000

    def __init__(self, table=None) -> None:
        self.table = table
        self.refused: set = set()

    def key(self, game: Game, table, action: Action, p, q) -> tuple | None:
        """The memory key of ``action`` moving along ``p``-``q``, or None when it is not
        remembered."""
        st = game.state.models
        me = st[action.model]
        if me.conditions or (action.target in st and st[action.target].conditions):
            return None
        mover = table.model(action.model)
        width = mover.radius + CORRIDOR
        (px, py), (qx, qy) = p, q
        near = tuple((x.id, x.position, x.facing, x.prone) for x in table.models
                     if point_segment_distance(x.position[0], x.position[1], px, py, qx, qy) <= width + x.radius)
        side = (me.counters, frozenset(c for m in game.state.alive(me.player) for c in m.conditions))
        pt = None if action.point is None else (round(action.point[0], 6), round(action.point[1], 6))
        return (action.kind, action.model, action.target, pt, action.walk, near, side)

    def legal(self, game: Game, table, action: Action, p, q) -> bool:
        """``game.is_legal(action)`` (and, for a Charge, that it reaches), with refusals
        remembered under :meth:`key`."""
        if self.table is not game.table:
            self.table, self.refused = game.table, set()
        key = self.key(game, table, action, p, q)
        if key is not None and key in self.refused:
            return False
        ok = game.is_legal(action)[0]
        if ok and action.kind == "charge":
            try:
                ok = charge_reaches(game, action)
            except movement.MoveError:
                ok = False
        if not ok and key is not None:
            if len(self.refused) > self.LIMIT:
                self.refused.clear()
            self.refused.add(key)
        return ok


def clear_line(table, tm, te, foes) -> bool:
    """Whether the straight line of ``tm``'s base to ``te`` keeps out of every other
    (standing) enemy's ZoC disc and off Impassable terrain: a Charge along it cannot be
    stopped short by them."""
    p, q = tm.position, te.position
    (px, py), (qx, qy) = p, q
    for o in foes:
        if o.id in (te.id, tm.id) or o.prone:
            continue
        d = point_segment_distance(o.position[0], o.position[1], px, py, qx, qy)
        if d < tm.radius + o.radius + ZOC_RANGE + CONTACT:
            return False
    line = None
    for t in table.terrain:
        if t.passage is Passage.IMPASSABLE:
            if line is None:
                line = LineString([p, q])
            if t.footprint.shape.distance(line) < tm.radius:
                return False
    return True


def ray_limit(p, u, length: float, centre, r_sum: float) -> float:
    """How far (<= ``length``) a point may go from ``p`` along unit ``u`` before it comes
    within ``r_sum`` of ``centre``."""
    dx, dy = p[0] - centre[0], p[1] - centre[1]
    b = u[0] * dx + u[1] * dy
    c = dx * dx + dy * dy - r_sum * r_sum
    if c <= 0:
        return 0.0 if b < 0 else length
    disc = b * b - c
    if disc < 0:
        return length
    t = -b - math.sqrt(disc)
    return length if t < 0 else min(length, t)

