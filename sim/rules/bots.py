"""Bots that play whole games for testing (issue 5): a random legal-action bot and a
simple greedy bot. Both are seeded, both return legal actions only (each is checked with
:meth:`Game.is_legal` before it is returned; when nothing they look for is legal they
take one of :meth:`Game.legal_actions`), and both allocate melee dice with a legal split
and, sometimes, a special attack or defence of the weapon in use (every allocation
passes :func:`sim.rules.melee.validate_allocation`).

* :class:`RandomBot` -- a random legal action (:meth:`Game.random_action`); in a melee
  exchange a random legal split, with a random usable special one time in three.
* :class:`GreedyBot` -- in this order: (a) a Charge that reaches, at the enemy with the
  fewest wounds left (then the nearest); (b) a Melee action at an enemy in contact or
  within Move; (c) a shot at the enemy with the lowest target number (a declared Walk
  before the shot when no enemy is in range and LoS now; a Walk after it into cover
  when the shooter stands exposed); (d) a Walk towards the nearest enemy that ends
  outside its ZoC, facing it, preferring end points in cover from (or out of sight of)
  the enemy shooters; (e) Stand Up when Prone; (f) Wait when a Wait removes a condition
  (Reloading, Stunned...), else Focus when Ki is not full and it has 2 counters, else
  Wait. In a melee exchange it puts about two thirds of its dice in attack, a third when
  one enemy hit could kill it, all of them when one hit of its own could kill the enemy;
  it uses a special that adds damage (Critical, Powerful, Combo...) whenever it can pay
  for it, a contact-breaking one (Push, Sidestep, Throw...) when it is in danger, and a
  Push/Slam/Throw-like one now and then when it has spare dice, throwing the enemy away
  from itself or against Impassable terrain.

The helpers (:func:`exchange_context`, :func:`legal_splits`, :func:`usable_specials`,
:func:`special_direction`, :func:`shot_target_number`, :func:`exposure`) are built on
:class:`~sim.rules.game.Game` (``legal_actions``, ``is_legal``, ``charge``,
``exchange_pools``, ``table_now``, ``charge_candidates``, ``combatant``,
``ranged_weapon``, ``feat_actions``, ``scenario_actions``, ``ki_boost``, ``profile``) and
on the rules modules; the bots use no private name of the game. Speed
(``benchmarks/game_bench.py``): the greedy bot remembers the LoS and Cover verdicts and
the refused moves under the positions of the models that could change them
(:class:`Verdicts`, :meth:`GreedyBot._sight`), and tries the costly moves (a Charge or
Melee move past other enemies' ZoC) last and few.

When the game offers no legal action at all (a model that must activate but may
declare nothing), a bot declares what :meth:`Game.legal_actions` offers (refused by the
game at the cost of a counter, p.24).
"""

from __future__ import annotations

import heapq
import math
import random
from dataclasses import dataclass, replace

from shapely.geometry import LineString

from models.profiles import get_profile
from sim.geometry import CONTACT, ZOC_RANGE, Passage
from sim.rules import movement
from sim.rules.game import Action, Game, ModelState
from sim.rules.ki import KiError
from sim.rules.melee import Allocation, Combatant, MeleeError, SpecialOption, melee_pools, validate_allocation
from sim.rules.ranged import RangedModifiers, TargetInfo, has_trait, max_range, range_band, target_number
from sim.rules.scenario import interaction_refusal, zone_contains_base, zone_controller
from sim.rules.special import throw_directions
from sim.rules.wounds import WOUND_TABLE

#: Conditions a Wait removes (p.25): a model that has one Waits rather than Focuses.
WAIT_CLEARS = ("stunned", "immobilised", "reloading", "on_fire", "fire")
#: Special moves whose direction the allocating model chooses.
DIRECTED = ("throw-attack", "throw-defence", "sidestep-attack", "sidestep-defence")
#: Specials that may move both models and keep them in contact: an enemy weapon with one
#: can change the geometry before our own move, so our direction is left to the engine.
CONTACT_KEEPING = ("drag-attack", "drag-defence", "forceback-attack", "forceback-defence")

_EPS = 1e-9


# ------------------------------------------------------------------ exchange helpers
@dataclass(frozen=True)
class ExchangeContext:
    """The model that allocates next in the waiting exchange and what it fights.

    Attributes:
        model, enemy: ids (``model`` is the first of attacker, defender that has not
            allocated: the model :meth:`Game.to_move` decides for).
        pool: ``model``'s dice for the exchange (:meth:`Game.exchange_pools`).
        me, foe: the two :class:`~sim.rules.melee.Combatant` records.
        enemy_pool: the enemy's dice.
        charge: whether the attacker charged.
    """

    model: str
    enemy: str
    pool: int
    me: Combatant
    foe: Combatant
    enemy_pool: int
    charge: bool


def exchange_context(game: Game) -> ExchangeContext | None:
    """The :class:`ExchangeContext` of the waiting exchange, or None when none waits."""
    ex = game.state.exchange
    if ex is None:
        return None
    att, dfn = ex["attacker"], ex["defender"]
    mid = next((m for m in (att, dfn) if m not in ex["allocations"]), None)
    if mid is None:
        return None
    foe_id = dfn if mid == att else att
    pools = game.exchange_pools()
    charge = bool(ex["charge"])
    me = game.combatant(mid, mid == att, charge and mid == att)
    foe = game.combatant(foe_id, foe_id == att, charge and foe_id == att)
    return ExchangeContext(mid, foe_id, pools[mid], me, foe, pools[foe_id], charge)


def legal_splits(comb: Combatant, pool: int, special: str | None = None,
                 direction: float | None = None) -> list[tuple[int, int]]:
    """Every ``(attack, defence)`` split of ``pool`` (less the special's cost) that
    :func:`~sim.rules.melee.validate_allocation` accepts with ``special``."""
    cost = 0
    if special:
        opt = comb.weapon.special(special)
        if opt is None:
            return []
        cost = opt.cost
    n = max(pool, 0) - cost
    out = []
    for k in range(max(n, 0) + 1):
        try:
            validate_allocation(comb, pool, Allocation(k, n - k, special, direction))
        except MeleeError:
            continue
        out.append((k, n - k))
    return out


def usable_specials(comb: Combatant, pool: int) -> list[SpecialOption]:
    """The specials of the weapon in use that some legal split can pay for now (not
    Prone nor Immobilised; the cost leaves at least one die)."""
    return [opt for opt in comb.weapon.specials if legal_splits(comb, pool, opt.key)]


def _faced_table(game: Game, ctx: ExchangeContext):
    """The current table with the two models facing each other (step 1 of the exchange)."""
    table = game.table_now()
    a, b = table.model(ctx.model), table.model(ctx.enemy)
    face = {}
    for m, o, c in ((a, b, ctx.me), (b, a, ctx.foe)):
        if not c.immovable:
            face[m.id] = math.degrees(math.atan2(o.position[1] - m.position[1], o.position[0] - m.position[0])) % 360
    models = tuple(replace(m, facing=face[m.id]) if m.id in face else m for m in table.models)
    return replace(table, models=models, _scene=[])


def _impassable_hit(table, centre, radius: float) -> bool:
    """Whether a base at ``centre`` touches or overlaps Impassable terrain."""
    return any(t.passage is Passage.IMPASSABLE and t.footprint.distance_to_disc(centre, radius) <= CONTACT
               for t in table.terrain)


def direction_options(game: Game, ctx: ExchangeContext, option: SpecialOption) -> list[tuple[float, float]]:
    """``(score, degrees)`` of the directions the allocating model may pick for a Throw
    or Sidestep ``option`` (best first); empty for any other special. A Throw's
    directions are those of :func:`sim.rules.special.throw_directions` (5 deg inside
    their bounds), scored by how directly they throw the enemy away, +1 when it lands
    against Impassable terrain, -2 when it lands on one of our models; a Sidestep's are
    within 60 deg of directly away, scored by the room left to the other enemies."""
    key = option.key
    if key not in DIRECTED:
        return []
    table = _faced_table(game, ctx)
    me, foe = table.model(ctx.model), table.model(ctx.enemy)
    out: list[tuple[float, float]] = []
    if key.startswith("throw"):
        away = math.atan2(foe.position[1] - me.position[1], foe.position[0] - me.position[0])
        spans = throw_directions(table, me.id, foe.id, step_deg=5.0)
        friends = [m for m in table.models if m.player == me.player and m.id != me.id]
        for lo, hi in spans:
            lo, hi = (lo + 5.0, hi - 5.0) if hi - lo < 360 else (lo, hi)
            if hi < lo:
                continue
            deg = lo
            while deg <= hi + _EPS:
                t = math.radians(deg)
                end = (foe.position[0] + 2.0 * math.cos(t), foe.position[1] + 2.0 * math.sin(t))
                s = math.cos(t - away)
                if _impassable_hit(table, end, foe.radius):
                    s += 1.0
                if any(math.dist(end, f.position) < f.radius + foe.radius for f in friends):
                    s -= 2.0
                out.append((s, deg % 360))
                deg += 10.0
    else:
        away = math.atan2(me.position[1] - foe.position[1], me.position[0] - foe.position[0])
        others = [m for m in table.models if m.player != me.player and m.id != foe.id]
        for off in (0, 30, -30, 60, -60):
            t = away + math.radians(off)
            end = (me.position[0] + 2.0 * math.cos(t), me.position[1] + 2.0 * math.sin(t))
            room = min((math.dist(end, o.position) - o.radius - me.radius for o in others), default=6.0)
            s = min(room, 6.0) - (3.0 if _impassable_hit(table, end, me.radius) else 0.0)
            out.append((s, math.degrees(t) % 360))
    out.sort(key=lambda x: -x[0])
    return out


def special_direction(game: Game, ctx: ExchangeContext, option: SpecialOption,
                      rng: random.Random | None = None) -> float | None:
    """A direction (degrees) for a Throw or Sidestep ``option``: the best of
    :func:`direction_options` (a random one with ``rng``); None for other specials, or
    when the enemy's weapon has a special that could move the two before ours does (the
    engine then picks directly away, or a direction it allows)."""
    if option.key not in DIRECTED:
        return None
    if any(s.key in CONTACT_KEEPING for s in ctx.foe.weapon.specials):
        return None
    opts = direction_options(game, ctx, option)
    if not opts:
        return None
    return (rng.choice(opts) if rng is not None else opts[0])[1]


def _throw_possible(game: Game, ctx: ExchangeContext, option: SpecialOption) -> bool:
    """A Throw needs some direction in the thrower's LoS (else the move cannot be made)."""
    if not option.key.startswith("throw"):
        return True
    table = _faced_table(game, ctx)
    return bool(throw_directions(table, ctx.model, ctx.enemy, step_deg=10.0))


def hit_wounds(att: Combatant, dfn: Combatant, *, total: int, level: int) -> int:
    """Wounds one hit of ``att`` does to ``dfn`` for a damage roll of ``total`` (before
    Strength, Charge and Armour) at success level ``level`` (wound table p.38)."""
    armour = max(0, dfn.armour - att.weapon.trait_value("pierce"))
    roll = total + att.weapon.strength + (2 if att.charge else 0) + att.damage_modifier - armour
    roll = max(2, min(12, roll))
    w = WOUND_TABLE[roll][max(0, min(10, level))]
    w -= max(0, dfn.tough - att.weapon.trait_value("sharp"))
    if dfn.durable:
        w = min(w, 1)
    return max(0, w)


# ------------------------------------------------------------------ shooting helpers
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
        if any(_gap(tm, o) <= CONTACT + _EPS and not o.prone for o in others):
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


def _active(game: Game) -> int:
    """The active player (every position a bot decides in has one: the game is not over)."""
    p = game.state.active
    assert p is not None, "no active player: the game is over"
    return p


def _charge_reaches(game: Game, action: Action) -> bool:
    """Whether the Charge ``action`` (which names its model and target) reaches its target."""
    assert action.model is not None and action.target is not None, "a Charge names its model and target"
    return bool(game.charge(action.model, action.target).reached)


def _gap(a, b) -> float:
    """Edge-to-edge distance of two table models."""
    return math.dist(a.position, b.position) - a.radius - b.radius


def _segment_distance(c, p, q) -> float:
    """Distance from point ``c`` to the segment ``p``-``q``."""
    dx, dy = q[0] - p[0], q[1] - p[1]
    L2 = dx * dx + dy * dy
    t = 0.0 if L2 == 0 else max(0.0, min(1.0, ((c[0] - p[0]) * dx + (c[1] - p[1]) * dy) / L2))
    return math.hypot(c[0] - p[0] - t * dx, c[1] - p[1] - t * dy)


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
        near = tuple((x.id, x.position, x.facing, x.prone) for x in table.models
                     if _segment_distance(x.position, p, q) <= width + x.radius)
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
                ok = _charge_reaches(game, action)
            except movement.MoveError:
                ok = False
        if not ok and key is not None:
            if len(self.refused) > self.LIMIT:
                self.refused.clear()
            self.refused.add(key)
        return ok


def _clear_line(table, tm, te, foes) -> bool:
    """Whether the straight line of ``tm``'s base to ``te`` keeps out of every other
    (standing) enemy's ZoC disc and off Impassable terrain: a Charge along it cannot be
    stopped short by them."""
    p, q = tm.position, te.position
    for o in foes:
        if o.id in (te.id, tm.id) or o.prone:
            continue
        if _segment_distance(o.position, p, q) < tm.radius + o.radius + ZOC_RANGE + CONTACT:
            return False
    line = None
    for t in table.terrain:
        if t.passage is Passage.IMPASSABLE:
            if line is None:
                line = LineString([p, q])
            if t.footprint.shape.distance(line) < tm.radius:
                return False
    return True


def _ray_limit(p, u, length: float, centre, r_sum: float) -> float:
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


# ----------------------------------------------------------------------------- bots
def _fallback(game: Game, rng: random.Random) -> Action:
    """A legal action when a bot found none of its own: Stand Up/Wait/Focus first, else
    any of :meth:`Game.legal_actions`. When the game offers nothing legal (a model
    that must activate but may declare nothing), the game's own offer (an action it will
    refuse at the cost of a counter, p.24), else a pass when the player has a token,
    else a Wait of the first model that can act."""
    offered = game.legal_actions()
    legal = [a for a in offered if game.is_legal(a)[0]]
    for kind in ("stand_up", "wait", "focus"):
        for a in legal:
            if a.kind == kind:
                return a
    if legal:
        return rng.choice(legal)
    if offered:
        return offered[0]
    st = game.state
    if st.pass_tokens.get(st.active, 0) > 0:
        return Action("pass")
    ready = [m for m in st.alive(st.active) if not m.exhausted]
    return Action("wait", ready[0].id) if ready else Action("pass")


class RandomBot:
    """Plays a random legal action. ``seed`` makes it reproducible.

    Outside an exchange: :meth:`Game.random_action` (a random model, kind and geometry),
    checked by :meth:`Game.is_legal` (else a random one of :meth:`Game.legal_actions`).
    In an exchange: a random special of the weapon in use with probability
    ``special_rate`` (a random allowed direction for a Throw or Sidestep half of the
    time, else the engine's), then a random legal split of the dice left.
    """

    name = "random"

    def __init__(self, seed: int | None = None, special_rate: float = 1 / 3):
        self.rng = random.Random(seed)
        self.special_rate = special_rate

    def choose(self, game: Game) -> Action:
        """The action this bot plays now (an allocation while an exchange waits)."""
        if game.state.exchange is not None:
            return self.allocate(game)
        a = game.random_action(self.rng)
        if game.is_legal(a)[0] and (a.kind != "charge" or _charge_reaches(game, a)):
            return a
        return _fallback(game, self.rng)

    def allocate(self, game: Game) -> Action:
        """A random legal allocation for the model that allocates next."""
        ctx = exchange_context(game)
        if ctx is None:
            return self.rng.choice(game.legal_actions())
        special, direction = None, None
        if self.rng.random() < self.special_rate:
            opts = [o for o in usable_specials(ctx.me, ctx.pool) if _throw_possible(game, ctx, o)]
            if opts:
                opt = self.rng.choice(opts)
                special = opt.key
                if self.rng.random() < 0.5:
                    direction = special_direction(game, ctx, opt, self.rng)
        splits = legal_splits(ctx.me, ctx.pool, special, direction)
        if not splits:
            special, direction = None, None
            splits = legal_splits(ctx.me, ctx.pool)
        if not splits:
            return self.rng.choice(game.legal_actions())
        k, d = self.rng.choice(splits)
        return Action("allocate", ctx.model, attack=k, defence=d, special=special, direction=direction)


class GreedyBot:
    """A simple greedy player (legal moves only). Per activation, the first of:

    a. **Charge** (2 counters, not in contact with an enemy) an enemy the Charge
       reaches (:meth:`Game.charge`), the one with the fewest wounds left, then the
       nearest; charges along a clear line (no other enemy ZoC, no Impassable terrain)
       first, four tried at most, two of them not clear;
    b. **Melee** an enemy in base contact (first) or within Move (a clear line first,
       one that is not at most), fewest wounds first;
    c. **Shoot** the enemy with the lowest target number
       (:func:`shot_target_number`: range band, Size, Cover...), then the fewest wounds
       left; with no such target, a Shoot with a declared Walk *before* it to a point
       in range and LoS; with a target, a Walk *after* it into cover when the shooter is
       exposed to enemy shooters and the shot stays possible (TN <= 6);
    d. **Walk** (a model not Reloading nor Stunned, out of every enemy ZoC) towards the
       nearest enemy, stopping 0.25" short of every enemy ZoC (a Walk leaves at most
       one counter, so no Charge can follow it this turn), turned to face that enemy;
       among five headings it takes the most progress less 1.5" per enemy shooter that
       would see the end point without cover (:func:`exposure`; 0.375" in cover, 0 out
       of sight);
    e. **Stand Up** when Prone;
    f. **Wait** when a Wait removes a condition, else **Focus** when Ki is not full and
       the model has 2 counters, else **Wait**.

    In an exchange (:meth:`allocate`): about two thirds of the dice in attack; a third
    when one enemy hit could kill it ("danger"); all when one of its hits could kill the
    enemy. Specials: one that adds damage (Critical, Powerful, Combo, Stun) whenever it
    is affordable (a cost of 1+ only with 3 dice left); in danger one that breaks
    contact (Push, Sidestep, Throw, Slam); with spare dice (3+ after the cost) a
    Push/Slam/Throw/Sweep one time in two; the direction of a Throw or Sidestep from
    :func:`special_direction`.
    """

    name = "greedy"

    #: Attack specials that add damage, best first.
    DAMAGE = ("critical-attack", "powerful-attack", "combo-attack", "stun-attack")
    #: Specials that knock down or move the enemy (damage halved or none).
    CONTROL = ("slam-attack", "throw-attack", "sweep-attack", "push-attack", "forceback-attack",
               "drag-attack", "grapple-attack", "sidestep-attack")
    #: Specials that end the contact (the exchange stops when they succeed).
    BREAK = ("push-attack", "sidestep-attack", "slam-attack", "throw-attack",
             "push-defence", "sidestep-defence", "throw-defence")

    def __init__(self, seed: int | None = None):
        self.rng = random.Random(seed)
        self.cards: Cards | None = None
        self.verdicts = Verdicts()
        self._sight_memo: dict = {}  # LoS and Cover under the local geometry (see _sight)
        self._no_walk_before: set = set()  # (shooter, its position, target, its position)

    # -------------------------------------------------------------- activation
    def choose(self, game: Game) -> Action:
        """The action this bot plays now (an allocation while an exchange waits)."""
        st = game.state
        if st.exchange is not None:
            return self.allocate(game)
        if st.interception is not None:
            return self.intercept(game)
        if self.cards is None or self.cards.table is not game.table:  # a new table: forget
            self._sight_memo, self._no_walk_before = {}, set()
        self.cards = Cards.of(game, self.cards)
        p = st.active
        ready = [m for m in st.alive(p) if not m.exhausted]
        if not ready:
            return _fallback(game, self.rng)
        table = game.table_now()
        for step in (self._scenario, self._charge, self._melee, self._feat, self._shoot, self._objective,
                     self._advance, self._stand_up, self._rest):
            a = step(game, table, ready)
            if a is not None:
                return a
        return _fallback(game, self.rng)

    @staticmethod
    def _left(m) -> int:
        return m.wounds - m.damage

    def _charge(self, game: Game, table, ready) -> Action | None:
        pairs: list[tuple[tuple, ModelState, ModelState]] = []
        ideal = any(t.passage is Passage.IDEAL for t in table.terrain)  # +2" to a Charge over it
        for m in ready:
            if m.counters < 2 or "prone" in m.conditions:
                continue
            tm = table.model(m.id)
            reach = 2 * (tm.move or 0) + (movement.IDEAL_BONUS if ideal else 0.0)
            cands = [(e, _gap(tm, table.model(e.id))) for e in game.charge_candidates(m.id)]
            if any(g <= CONTACT + _EPS for _, g in cands):
                continue  # in contact already: a Melee action (b) instead
            pairs.extend(((self._left(e), g, m.id, e.id), m, e) for e, g in cands if g <= reach + _EPS)
        # a charge whose straight line meets another enemy's ZoC or Impassable terrain
        # is likely to stop short, and costly to plan: try the clear ones first
        foes = [table.model(e.id) for e in game.state.alive(3 - _active(game))]
        keyed = [((not _clear_line(table, table.model(m.id), table.model(e.id), foes),) + k, m, e)
                 for k, m, e in pairs]
        return self._first_legal(game, table, keyed, "charge", max_blocked=2)

    def _first_legal(self, game: Game, table, keyed, kind: str, max_blocked: int) -> Action | None:
        """The first ``kind`` action at ``(key, model, enemy)`` (best key first, four at
        most) that the game allows; at most ``max_blocked`` of them with a line that is not
        clear (``key[0]`` True: costly to plan, likely to stop short)."""
        keyed = sorted(keyed, key=lambda x: x[0])
        blocked = 0
        for k, m, e in keyed[:4]:
            if k[0]:
                blocked += 1
                if blocked > max_blocked:
                    break
            a = Action(kind, m.id, target=e.id)
            if self.verdicts.legal(game, table, a, m.position, e.position):
                return a
        return None

    def _melee(self, game: Game, table, ready) -> Action | None:
        opts = []
        foes = game.state.alive(3 - _active(game))
        for m in ready:
            if "prone" in m.conditions:
                continue
            tm = table.model(m.id)
            for e in foes:
                g = _gap(tm, table.model(e.id))
                if g <= CONTACT + _EPS:
                    opts.append(((0, self._left(e), g, m.id, e.id), m, e))
                elif g <= (tm.move or 0) + _EPS:
                    opts.append(((1, self._left(e), g, m.id, e.id), m, e))
        fts = [table.model(e.id) for e in foes]
        keyed = [((k[0] > 0 and not _clear_line(table, table.model(m.id), table.model(e.id), fts),) + k, m, e)
                 for k, m, e in opts]
        return self._first_legal(game, table, keyed, "melee", max_blocked=1)

    def _sight(self, table, scene, a_id: str, b_id: str, at_a=None, at_b=None, cover: bool = False):
        """:meth:`Scene.los` (``cover``: ``(los, Scene.cover)``) from ``a_id`` to ``b_id``,
        either moved to ``at_a``/``at_b``, remembered under the positions, facings and
        Prone states of the two and of every model that could stand between them (what
        LoS and Cover depend on besides the terrain)."""
        A, B = table.model(a_id), table.model(b_id)
        pa = A.position if at_a is None else (float(at_a[0]), float(at_a[1]))
        pb = B.position if at_b is None else (float(at_b[0]), float(at_b[1]))
        w = max(A.radius, B.radius) + 0.05 + (1.0 if cover else 0.0)  # Cover: a Construct within 1"
        near = tuple((x.id, x.position, x.facing, x.prone) for x in table.models
                     if x.id not in (a_id, b_id) and _segment_distance(x.position, pa, pb) <= w + x.radius)
        key = (a_id, pa, A.facing, A.prone, b_id, pb, B.prone, near, cover)
        got = self._sight_memo.get(key)
        if got is None:
            if len(self._sight_memo) > 20_000:
                self._sight_memo.clear()
            bodies = scene.bodies
            oa = bodies[a_id] if at_a is None else replace(bodies[a_id], center=pa)
            ob = bodies[b_id] if at_b is None else replace(bodies[b_id], center=pb)
            los = scene.los(oa, ob)
            got = (los.visible, scene.cover(oa, ob, los).cover) if cover else los.visible
            self._sight_memo[key] = got
        return got

    def _exposure(self, table, scene, mid: str, pt, shooters, limit: float = math.inf) -> float:
        """:func:`exposure` of ``mid`` moved to ``pt``, with :meth:`_sight`'s memory."""
        me = table.model(mid)
        total = 0.0
        for sid, reach in shooters:
            S = table.model(sid)
            if math.dist(S.position, pt) - S.radius - me.radius > reach:
                continue
            los, cov = self._sight(table, scene, sid, mid, at_b=pt, cover=True)
            if los:
                total += 0.25 if cov else 1.0
                if total >= limit:
                    break
        return total

    def _shoot(self, game: Game, table, ready) -> Action | None:
        st = game.state
        foes = st.alive(3 - _active(game))
        scene = table.scene()
        cards = self.cards
        assert cards is not None, "read in choose()"
        direct, later = [], []
        for m in ready:
            if "prone" in m.conditions:
                continue
            w, reach = cards.weapon(m.id), cards.reach(m.id)
            if w is None or reach is None:
                continue
            if "reloading" in m.conditions and any(t.lower().startswith("reload") for t in w.traits):
                continue
            move = table.model(m.id).move or 0
            if any(scene.btb(m.id, e.id) and not scene.bodies[e.id].prone for e in foes):
                continue  # no shooting in base contact with an enemy (p.25)
            for e in foes:
                d = scene.distance(m.id, e.id)
                if d > reach + move + _EPS:
                    continue
                if d > reach + _EPS or not self._sight(table, scene, m.id, e.id):
                    later.append(((d - reach, self._left(e), m.id, e.id), m, e, reach))
                    continue
                tn = shot_target_number(game, scene, m.id, e.id, w, cards=cards, cover=False)
                if tn is not None:
                    direct.append([tn, self._left(e), d, m.id, e.id, m, e, w])
        # best first; Cover (+2) is looked up only for a candidate that comes out on top
        heap = [(tn, left, d, mid, eid, False, m, e, w) for tn, left, d, mid, eid, m, e, w in direct]
        heapq.heapify(heap)
        tries, failed = 0, set()
        while heap and tries < 4:
            tn, left, d, mid, eid, known, m, e, w = heapq.heappop(heap)
            if mid in failed:
                continue
            if not known:
                if scene.cover(mid, eid).cover:
                    tn += 2
                heapq.heappush(heap, (tn, left, d, mid, eid, True, m, e, w))
                continue
            tries += 1
            a = Action("shoot", mid, target=eid)
            if game.is_legal(a)[0]:
                return self._walk_after(game, table, m, e, w, tn) or a
            failed.add(mid)  # in range and LoS: what stops it is the shooter's (ZoC, a condition)
        later.sort(key=lambda x: x[0])
        seen: set[str] = set()
        for _, m, e, reach in later:
            if m.id in seen or m.id in failed or len(seen) >= 2:
                continue
            tm = table.model(m.id)
            if any(_gap(tm, table.model(x.id)) <= ZOC_RANGE + CONTACT for x in foes):
                continue  # in (or at) an enemy ZoC: a Walk must first go directly away
            seen.add(m.id)
            walk = self._walk_before(game, table, m, e, reach)
            if walk is not None:
                return walk
        return None

    def _walk_before(self, game: Game, table, m, e, reach: float) -> Action | None:
        """A Shoot at ``e`` with a declared Walk before it: the shortest of a few points
        (towards ``e``, half or full Move, straight or 40/80 deg off) from which ``e`` is
        in range and in LoS, checked by :meth:`Game.is_legal`."""
        tm, te = table.model(m.id), table.model(e.id)
        move = tm.move or 0
        memo = (m.id, tm.position, e.id, te.position)
        if move <= 0 or memo in self._no_walk_before:
            return None
        scene = table.scene()
        base = math.atan2(te.position[1] - tm.position[1], te.position[0] - tm.position[0])
        tries = 0
        for frac in (0.5, 1.0):
            for off in (0, 40, -40, 80, -80):
                t = base + math.radians(off)
                pt = (tm.position[0] + move * frac * math.cos(t), tm.position[1] + move * frac * math.sin(t))
                if math.dist(pt, te.position) - tm.radius - te.radius > reach:
                    continue
                if not self._sight(table, scene, m.id, e.id, at_a=pt):
                    continue
                a = Action("shoot", m.id, target=e.id, walk="before", point=pt)
                if game.is_legal(a)[0]:
                    return a
                tries += 1
                if tries >= 3:
                    break
            if tries >= 3:
                break
        if len(self._no_walk_before) > 20_000:
            self._no_walk_before.clear()
        self._no_walk_before.add(memo)  # nothing found from here: not again while both stand still
        return None

    def _walk_after(self, game: Game, table, m, e, w, tn: int) -> Action | None:
        """The shot with a declared Walk after it into cover, when the shooter now
        stands exposed to enemy shooters and the shot (TN +1 for moving, unless the
        weapon is Light Weight) stays possible."""
        light = has_trait(w, "light weight")
        if not light and tn + 1 > 6:
            return None
        shooters = enemy_shooters(game, 3 - m.player, self.cards)
        if not shooters:
            return None
        scene = table.scene()
        tm = table.model(m.id)
        if self._exposure(table, scene, m.id, tm.position, shooters, limit=1.0) < 1.0:
            return None
        move = tm.move or 0
        tries = 0
        for i in range(8):
            t = 2 * math.pi * i / 8
            pt = (tm.position[0] + move * math.cos(t), tm.position[1] + move * math.sin(t))
            if self._exposure(table, scene, m.id, pt, shooters, limit=1.0) >= 1.0:
                continue
            a = Action("shoot", m.id, target=e.id, walk="after", point=pt)
            if game.is_legal(a)[0]:
                return a
            tries += 1
            if tries >= 2:
                break
        return None

    def _advance(self, game: Game, table, ready) -> Action | None:
        st = game.state
        foes = st.alive(3 - _active(game))
        if not foes:
            return None
        fts = [table.model(e.id) for e in foes]
        movers = []
        for m in ready:
            if "prone" in m.conditions or any(c in m.conditions for c in ("reloading", "stunned")):
                continue
            tm = table.model(m.id)
            near = min(_gap(tm, te) for te in fts)
            if near <= ZOC_RANGE + CONTACT:
                continue
            movers.append((m.counters, near, m.id, m))
        movers.sort(key=lambda x: x[:3])
        shooters = enemy_shooters(game, 3 - _active(game), self.cards)
        for *_, m in movers[:3]:
            a = self._walk_towards(game, table, m, fts, shooters)
            if a is not None:
                return a
        return None

    #: Inches of progress a Walk gives up to end out of an enemy shooter's sight or in cover.
    COVER_WEIGHT = 1.5

    def _walk_towards(self, game: Game, table, m, fts, shooters) -> Action | None:
        """A Walk towards the nearest enemy (headings 0, +-30, +-60 deg), ending ZOC +
        0.25" from every enemy and facing the nearest: the three best full-Move end
        points by progress less :attr:`COVER_WEIGHT` x :func:`exposure` to the enemy
        shooters are checked with :meth:`Game.is_legal`, then the straight half Move."""
        tm = table.model(m.id)
        move = tm.move or 0
        if move <= 0:
            return None
        scene = table.scene()
        e = min(fts, key=lambda te: (_gap(tm, te), te.id))
        keep = ZOC_RANGE + 0.25
        gap0 = _gap(tm, e)
        if gap0 - keep < 0.3:
            return None
        base = math.atan2(e.position[1] - tm.position[1], e.position[0] - tm.position[0])
        first: list[list] = []  # [progress, point], best first
        second: list[list] = []
        for off in (0, 30, -30, 60, -60):
            t = base + math.radians(off)
            u = (math.cos(t), math.sin(t))
            step = move
            for o in fts:
                step = _ray_limit(tm.position, u, step, o.position, tm.radius + o.radius + keep)
            for frac, bucket in ((1.0, first), (0.5, second)):
                s = step * frac
                pt = (tm.position[0] + u[0] * s, tm.position[1] + u[1] * s)
                progress = gap0 - (math.dist(pt, e.position) - tm.radius - e.radius)
                if progress < 0.3:
                    continue
                bucket.append([progress, pt])
        for bucket, scored in ((first, True), (second, False)):
            bucket.sort(key=lambda c: -c[0])
            if scored and shooters:  # branch and bound: exposure only lowers a score
                best = -math.inf
                for c in bucket:
                    if c[0] <= best:
                        c[0] = -math.inf
                        continue
                    c[0] -= self.COVER_WEIGHT * self._exposure(table, scene, m.id, c[1], shooters)
                    best = max(best, c[0])
                bucket.sort(key=lambda c: -c[0])
            for _, pt in bucket[:3 if scored else 1]:
                face = math.degrees(math.atan2(e.position[1] - pt[1], e.position[0] - pt[0])) % 360
                a = Action("walk", m.id, point=pt, facing=face)
                if self.verdicts.legal(game, table, a, tm.position, pt):
                    return a
        return None

    @staticmethod
    def intercept(game: Game) -> Action:
        """Step 1d (p.30): a friend takes the shot when the target is nearly dead (2 wounds
        or fewer left) and the friend has at least two more wounds left; else nobody."""
        st = game.state
        ic = st.interception
        assert ic is not None, "called while an interception waits"
        t = st.models[ic["target"]]
        left = t.wounds - t.damage
        best = None
        for c in ic["candidates"]:
            f = st.models[c]
            fl = f.wounds - f.damage
            if left <= 2 and fl >= left + 2 and (best is None or fl > best[0]):
                best = (fl, c)
        return Action("intercept", target=best[1] if best else None)

    # ------------------------------------------------------------ scenario and Ki
    #: Preference among interactions: a Prayer scores at once, Influence turns objectives.
    INTERACTIONS = ("prayer", "influence", "worship")

    def _scenario(self, game: Game, table, ready) -> Action | None:
        """A Scenario action by a model touching an objective: Prayer first (at the
        objective worth most: enemy 3, neutral 2, friendly 1), then Influence, Worship."""
        if game.scenario is None:
            return None
        sc = game.scenario_state()
        p = game.state.active
        best = None
        for m in ready:
            for a in game.scenario_actions(m.id):
                owner = sc.alignment.get(a.objective)
                worth = 2 if owner is None else (1 if owner == p else 3)
                rank = (self.INTERACTIONS.index(a.special) if a.special in self.INTERACTIONS else 9, -worth, m.id)
                if best is None or rank < best[0]:
                    best = (rank, a)
        return best[1] if best else None

    def _objective(self, game: Game, table, ready) -> Action | None:
        """Send the nearest model to an objective where an interaction still
        pays (not removed; Influence on a not-yet-friendly objective, or Prayer tokens
        left): a Walk into contact when it reaches, else a full Walk towards it."""
        if game.scenario is None:
            return None
        if not game.scenario.objectives:
            return self._zone(game, table, ready)
        sc = game.scenario_state()
        p = _active(game)
        r_obj = game.scenario.objective_radius
        useful = []
        for obj in game.scenario.objectives:
            if obj.id in sc.removed:
                continue
            if any(interaction_refusal(game.scenario, sc, p, obj.id, i.kind, action=i.action) is None
                   for i in game.scenario.interactions):
                useful.append(obj)
        if not useful:
            return None
        pairs = []
        for m in ready:
            if "prone" in m.conditions:
                continue
            tm = table.model(m.id)
            for obj in useful:
                d = math.dist(tm.position, obj.position) - tm.radius - r_obj
                pairs.append((d, m.id, m, obj))
        pairs.sort(key=lambda x: x[:2])
        for d, _, m, obj in pairs[:1]:
            tm = table.model(m.id)
            dx, dy = tm.position[0] - obj.position[0], tm.position[1] - obj.position[1]
            n = math.hypot(dx, dy) or 1.0
            ring = r_obj + tm.radius + 0.005
            move = tm.move or 0
            for t in (0, 35, -35):  # around the objective, nearest side first
                a0 = math.atan2(dy, dx) + math.radians(t)
                pt = (obj.position[0] + ring * math.cos(a0), obj.position[1] + ring * math.sin(a0))
                if math.dist(tm.position, pt) > move + movement.IDEAL_BONUS + _EPS:
                    continue  # out of reach of one Walk: no need to ask
                a = Action("walk", m.id, point=pt)
                if game.is_legal(a)[0]:
                    return a
            step = min(move, max(0.0, n - ring))
            if step > 0.3:
                pt = (tm.position[0] - dx / n * step, tm.position[1] - dy / n * step)
                a = Action("walk", m.id, point=pt)
                if game.is_legal(a)[0]:
                    return a
        return None

    def _zone(self, game: Game, table, ready) -> Action | None:
        """Zone control (p.63): the nearest ready model outside every zone walks into the
        nearest zone the player does not control (a point deep inside it, within one
        Walk), or a full Walk towards it."""
        zones = game.scenario.zones
        if not zones:
            return None
        p = game.state.active
        models = [(x.player, table.model(x.id).position, table.model(x.id).radius,
                   (game.profile(x.id).rice or 0) if game.profile(x.id) else 0) for x in game.state.alive()]
        wanted = [z for z in zones if zone_controller(z, models) != p]
        if not wanted:
            return None
        pairs = []
        for m in ready:
            tm = table.model(m.id)
            if "prone" in m.conditions or any(zone_contains_base(z, tm.position, tm.radius) for z in zones):
                continue
            for z in wanted:
                c = z.shape.centroid
                pairs.append((math.dist(tm.position, (c.x, c.y)), m.id, m, (c.x, c.y), z))
        pairs.sort(key=lambda x: x[:2])
        for d, _, m, c, z in pairs[:1]:
            tm = table.model(m.id)
            move = tm.move or 0
            ux, uy = (c[0] - tm.position[0]) / (d or 1.0), (c[1] - tm.position[1]) / (d or 1.0)
            for step in (min(move, d), min(move, d) * 0.75, min(move, d) * 0.5):
                if step <= 0.3:
                    break
                pt = (tm.position[0] + ux * step, tm.position[1] + uy * step)
                a = Action("walk", m.id, point=pt)
                if game.is_legal(a)[0]:
                    return a
        return None

    def _feat(self, game: Game, table, ready) -> Action | None:
        """A Ki feat the engine applies, when the model has Ki to spare: Spirit Bolt at the
        most wounded enemy in range, Puppet Strings, Shockwave with enemies in its Pulse, Mind Clash,
        Warding Presence with friends about, Inner Calm when Stunned."""
        order = ("Spirit Bolt", "Puppet Strings", "Shockwave", "Mind Clash", "Warding Presence", "Inner Calm")
        best = None
        for m in ready:
            for a in game.feat_actions(m.id):
                if a.feat not in order:
                    continue
                t = game.state.models.get(a.target or "")
                left = (t.wounds - t.damage) if t is not None else 99
                rank = (order.index(a.feat), left, m.id, a.target or "")
                if best is None or rank < best[0]:
                    best = (rank, a)
        return best[1] if best else None

    def _stand_up(self, game: Game, table, ready) -> Action | None:
        for m in ready:
            if "prone" in m.conditions:
                a = Action("stand_up", m.id)
                if game.is_legal(a)[0]:
                    return a
        return None

    def _rest(self, game: Game, table, ready) -> Action | None:
        order = sorted(ready, key=lambda m: (not any(c in m.conditions for c in WAIT_CLEARS),
                                             not (m.counters >= 2 and m.ki < m.ki_limit), m.id))
        for m in order:
            if any(c in m.conditions for c in WAIT_CLEARS) or m.counters < 2 or m.ki >= m.ki_limit:
                cands = [Action("wait", m.id), Action("focus", m.id)]
            else:
                cands = [Action("focus", m.id), Action("wait", m.id)]
            for a in cands:
                if game.is_legal(a)[0]:
                    return a
        return None

    # ---------------------------------------------------------------- exchange
    def allocate(self, game: Game) -> Action:
        """The greedy allocation of the model that allocates next (see the class doc),
        with one Melee Ki boost (+1 attack die) when the model can pay it and the boost
        raises its pool."""
        a = self._allocate(game)
        return self._boosted(game, a)

    @staticmethod
    def _boosted(game: Game, a: Action) -> Action:
        if a.kind != "allocate" or a.model is None:
            return a
        ex = game.state.exchange
        try:
            if game.ki_boost(replace(a, boost=1)) is None:
                return a
        except KiError:
            return a
        assert ex is not None, "an allocation is made in an exchange"
        is_att = a.model == ex["attacker"]
        other = ex["defender"] if is_att else ex["attacker"]
        me1 = game.combatant(a.model, is_att, ex["charge"] and is_att, boost=1)
        foe = game.combatant(other, not is_att, ex["charge"] and not is_att)
        before = game.exchange_pools()[a.model]
        pa, pb, _ = melee_pools(me1, foe) if is_att else melee_pools(foe, me1)
        after = pa if is_att else pb
        if after <= before:
            return a
        b = replace(a, attack=(a.attack or 0) + (after - before), boost=1)
        try:
            validate_allocation(me1, after, Allocation(b.attack or 0, b.defence or 0, b.special, b.direction))
        except Exception:  # noqa: BLE001 - a split the boosted pool does not allow: no boost
            return a
        return b

    def _allocate(self, game: Game) -> Action:
        ctx = exchange_context(game)
        if ctx is None:
            return self.rng.choice(game.legal_actions())
        me, foe, pool = ctx.me, ctx.foe, max(ctx.pool, 0)
        danger = me.wounds_left is not None and me.wounds_left <= hit_wounds(foe, me, total=9, level=2)
        kill = foe.wounds_left is not None and foe.wounds_left <= hit_wounds(me, foe, total=7, level=1)
        if danger and not kill:
            share = 1 / 3
        elif kill and not danger:
            share = 1.0
        else:
            share = 2 / 3
        for opt in self._rank_specials(game, ctx, danger, kill):
            n = pool - opt.cost
            split = self._split(legal_splits(me, ctx.pool, opt.key), n, share,
                                need="attack" if opt.kind == "attack" else "defence")
            if split is not None:
                direction = special_direction(game, ctx, opt)
                if direction is not None and not legal_splits(me, ctx.pool, opt.key, direction):
                    direction = None
                return Action("allocate", ctx.model, attack=split[0], defence=split[1], special=opt.key,
                              direction=direction)
        split = self._split(legal_splits(me, ctx.pool), pool, share)
        if split is None:
            return self.rng.choice(game.legal_actions())
        return Action("allocate", ctx.model, attack=split[0], defence=split[1])

    @staticmethod
    def _split(splits, n: int, share: float, need: str | None = None):
        """The legal split nearest ``share`` of ``n`` dice in attack (rounded), with at
        least one die of the ``need``-ed kind; ties: more attack dice."""
        if need == "attack":
            splits = [s for s in splits if s[0] >= 1]
        elif need == "defence":
            splits = [s for s in splits if s[1] >= 1]
        if not splits:
            return None
        want = round(share * n)
        return min(splits, key=lambda s: (abs(s[0] - want), -s[0]))

    def _rank_specials(self, game: Game, ctx: ExchangeContext, danger: bool, kill: bool) -> list[SpecialOption]:
        """The specials worth declaring now, best first (see the class doc)."""
        scored = []
        for opt in usable_specials(ctx.me, ctx.pool):
            if opt.rule is None:
                continue
            key, spare = opt.key, ctx.pool - opt.cost
            if opt.cost > 0 and spare < 3:
                continue
            if key == "gokusatsu-attack":
                continue
            s = None
            if key == "ivory-prison-attack":
                s = 5.0
            elif danger and not kill:
                if key in self.BREAK:
                    s = 3.0 if opt.kind == "defence" else 2.5
                elif key == "counterstrike-defence":
                    s = 2.0
                elif opt.kind == "defence":
                    s = 1.0
            elif key in self.DAMAGE:
                s = 4.0 - self.DAMAGE.index(key) * 0.25
            elif key in self.CONTROL:
                if not kill and spare >= 3 and self.rng.random() < 0.5:
                    s = 1.5
            elif opt.kind == "defence" and opt.cost == 0 and key in ("counterstrike-defence", "sweep-defence",
                                                                      "throw-defence", "grapple-defence"):
                s = 1.0
            if s is None:
                continue
            if not _throw_possible(game, ctx, opt):
                continue
            scored.append((s - 0.5 * opt.cost, opt.key, opt))
        scored.sort(key=lambda x: (-x[0], x[1]))
        return [o for *_, o in scored]


BOTS = {"random": RandomBot, "greedy": GreedyBot}


def play(game: Game, bots: tuple, max_actions: int = 10_000) -> Game:
    """Let ``bots[0]`` play player 1 and ``bots[1]`` player 2 until the game ends (the
    bot of :meth:`Game.to_move` decides each time)."""
    n = 0
    while not game.is_over():
        n += 1
        if n > max_actions:
            raise RuntimeError(f"the game did not end within {max_actions} actions")
        player = game.to_move()
        assert player is not None, "a game not over has a player to move"
        game.push(bots[player - 1].choose(game))
    return game
