"""The bots (issue 5): every action they return is legal, the greedy bot's priorities
(charge, shoot, walk into cover), melee allocations with special attacks and defences,
and whole games between bots."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from sim.rules.bots import (
    GreedyBot,
    RandomBot,
    exchange_context,
    legal_splits,
    play,
    special_direction,
    usable_specials,
)
from sim.rules.game import Action, Game
from sim.rules.melee import Allocation, validate_allocation
from sim.rules.special import throw_directions
from sim.table import load_table
from tests.conftest import make_table, set_model

TABLE = load_table()
R30 = 15 / 25.4  # radius of a 30 mm base, inches
CONTACT_GAP = 2 * R30  # centre distance of two 30 mm bases in contact


def _wait_until_active(g: Game, player: int) -> None:
    """Let the other player Wait until ``player`` is active."""
    while g.state.active != player:
        m = next(x for x in g.state.alive(g.state.active) if not x.exhausted)
        g.push(Action("wait", m.id))


def _check(g: Game, a: Action) -> None:
    """``a`` is legal now: an allocation passes validate_allocation for the model that
    allocates next; any other action passes Game.is_legal (unless the game itself offers
    nothing legal, when a refused declaration is the only way on, p.24)."""
    if a.kind == "allocate":
        ctx = exchange_context(g)
        assert ctx is not None and a.model == ctx.model
        if not a.boost and not a.weapon:  # (a weapon chosen at step 2, p.33: the game's check below)
            validate_allocation(ctx.me, ctx.pool, Allocation(a.attack, a.defence, a.special, a.direction))
        ok, why = g.is_legal(a)  # the game's check, with any Ki boost
        assert ok, why
        return
    ok, why = g.is_legal(a)
    if not ok:
        assert not any(g.is_legal(x)[0] for x in g.legal_actions()), f"{a} is illegal ({why})"


def _play_checked(g: Game, bots) -> dict:
    """Play to the end, checking every action; count what happened."""
    seen = {"actions": 0, "specials": 0, "special_moves": 0, "shots": 0, "charges": 0, "walks": 0}
    while not g.is_over():
        a = bots[g.to_move() - 1].choose(g)
        _check(g, a)
        seen["actions"] += 1
        seen["specials"] += a.kind == "allocate" and a.special is not None
        seen["shots"] += a.kind == "shoot"
        seen["charges"] += a.kind == "charge"
        seen["walks"] += a.kind == "walk"
        for ev in g.push(a):
            if ev.kind == "exchange" and any("step 10" in line and ": moved" in line and "moved nothing" not in line
                                             for line in ev.data.get("summary", [])):
                seen["special_moves"] += 1
        assert seen["actions"] < 1000
    return seen


# ------------------------------------------------------------------ whole games
PAIRS = {0: (GreedyBot, GreedyBot), 1: (RandomBot, RandomBot), 2: (GreedyBot, RandomBot)}


@pytest.mark.parametrize("seed", range(30))
def test_whole_games_between_bots_end_and_every_action_is_legal(seed):
    b1, b2 = PAIRS[seed % 3]
    g = Game(TABLE, seed=seed, length=("fixed", 4) if seed % 2 else ("variable", 3))
    seen = _play_checked(g, (b1(seed), b2(seed + 1000)))
    assert g.is_over() and g.state.result
    assert g.replay().snapshot() == g.snapshot()
    if b1 is GreedyBot and b2 is GreedyBot:
        assert seen["charges"] + seen["shots"] > 0


def test_greedy_games_use_specials_and_their_moves_resolve():
    totals = {"specials": 0, "special_moves": 0, "shots": 0, "charges": 0}
    for seed in range(3):
        seen = _play_checked(Game(TABLE, seed=seed, length=("fixed", 6)), (GreedyBot(seed), GreedyBot(seed + 7)))
        for k in totals:
            totals[k] += seen[k]
    assert all(v > 0 for v in totals.values()), totals


def test_random_bot_declares_random_specials_that_resolve():
    specials = moves = 0
    for seed in range(3):
        bots = (RandomBot(seed, special_rate=1.0), GreedyBot(seed + 3))
        seen = _play_checked(Game(TABLE, seed=seed, length=("fixed", 5)), bots)
        specials += seen["specials"]
        moves += seen["special_moves"]
    assert specials > 0 and moves > 0


# ------------------------------------------------------------------ priorities
def test_greedy_shoots_a_visible_target_it_cannot_charge():
    t = make_table([
        {"id": "kokkio", "player": 1, "profile": "kokkio", "position": [6, 3], "facing": 90},
        {"id": "ton", "player": 2, "profile": "ton", "position": [6, 17], "facing": 270},
    ])
    g = Game(t, seed=0, length=("fixed", 2))
    _wait_until_active(g, 1)
    a = GreedyBot(0).choose(g)
    assert (a.kind, a.model, a.target, a.walk) == ("shoot", "kokkio", "ton", None)
    assert g.is_legal(a)[0]
    assert any(ev.kind == "shot" for ev in g.push(a))


def test_greedy_shoots_the_target_with_the_best_hit_chance():
    # two targets at the same range; "hidden" stands behind an Obscuring hedge (Cover: TN +2)
    t = make_table([
        {"id": "kokkio", "player": 1, "profile": "kokkio", "position": [12, 3], "facing": 90},
        {"id": "hidden", "player": 2, "profile": "ton", "position": [9, 15], "facing": 270},
        {"id": "open", "player": 2, "profile": "ton", "position": [15, 15], "facing": 270},
    ], terrain=[{"id": "hedge", "rect": {"center": [9, 14.0], "width": 3, "depth": 0.4},
                 "passage": "normal", "visibility": "obscuring", "size": "small"}])
    assert t.scene().cover("kokkio", "hidden").cover and not t.scene().cover("kokkio", "open").cover
    g = Game(t, seed=1, length=("fixed", 2))
    _wait_until_active(g, 1)
    a = GreedyBot(1).choose(g)
    assert (a.kind, a.target) == ("shoot", "open")


def test_greedy_walks_before_shooting_a_target_just_out_of_range():
    t = make_table([
        {"id": "kokkio", "player": 1, "profile": "kokkio", "position": [12, 1.5], "facing": 90},
        {"id": "ton", "player": 2, "profile": "ton", "position": [12, 22.5], "facing": 270},
    ])
    assert t.scene().distance("kokkio", "ton") > 18  # the Arquebus reaches 18"
    g = Game(t, seed=2, length=("fixed", 2))
    _wait_until_active(g, 1)
    a = GreedyBot(2).choose(g)
    assert (a.kind, a.target, a.walk) == ("shoot", "ton", "before")
    assert g.is_legal(a)[0]
    events = g.push(a)
    assert [ev.kind for ev in events if ev.kind in ("move", "shot")] == ["move", "shot"]


def test_greedy_prefers_a_charge_that_reaches_to_a_shot():
    # Kazuha could shoot Ton (Call Lightning, 6") but charges it
    t = make_table([
        {"id": "kazuha", "player": 1, "profile": "kazuha", "position": [12, 6], "facing": 90},
        {"id": "ton", "player": 2, "profile": "ton", "position": [12, 10.5], "facing": 270},
    ])
    g = Game(t, seed=3, length=("fixed", 2))
    _wait_until_active(g, 1)
    assert g.is_legal(Action("shoot", "kazuha", target="ton"))[0]
    a = GreedyBot(3).choose(g)
    assert (a.kind, a.target) == ("charge", "ton")
    g.push(a)
    assert g.state.exchange is not None  # the charge reached: an exchange waits


def _choice_after_feats(bot, g):
    """The bot's action once it has used the Instant/Active Ki feats it buys first (a buff
    before its own fight, sim.rules.bots.feat_value)."""
    a = bot.choose(g)
    while a.kind == "feat":
        g.push(a)
        a = bot.choose(g)
    return a


def test_greedy_charges_the_enemy_it_is_likely_to_hurt():
    t = make_table([
        {"id": "akira", "player": 1, "profile": "takashi-akira", "position": [12, 6], "facing": 90},
        {"id": "near", "player": 2, "profile": "ton", "position": [9, 9], "facing": 270},
        {"id": "hurt", "player": 2, "profile": "ton", "position": [15, 10.5], "facing": 270},
    ])
    g = Game(t, seed=4, length=("fixed", 2))
    assert g.charge("akira", "near").reached and g.charge("akira", "hurt").reached
    set_model(g, "hurt", damage=7)
    _wait_until_active(g, 1)
    a = _choice_after_feats(GreedyBot(4), g)
    assert (a.kind, a.target) == ("charge", "hurt")


def test_greedy_melees_an_enemy_in_contact_rather_than_charging_it():
    t = make_table([
        {"id": "akira", "player": 1, "profile": "takashi-akira", "position": [12, 6], "facing": 90},
        {"id": "ton", "player": 2, "profile": "ton", "position": [12, 6 + CONTACT_GAP], "facing": 270},
    ])
    g = Game(t, seed=5, length=("fixed", 2))
    _wait_until_active(g, 1)
    a = _choice_after_feats(GreedyBot(5), g)
    assert (a.kind, a.target) == ("melee", "ton")


def test_greedy_walk_ends_in_cover_from_the_enemy_shooter():
    # Akira cannot shoot nor reach Kokkio: it walks towards it. Of its five headings the
    # straight one is seen in the open; the one 30 deg right ends behind an Obscuring bush.
    t = make_table([
        {"id": "akira", "player": 1, "profile": "takashi-akira", "position": [12, 3], "facing": 90},
        {"id": "kokkio", "player": 2, "profile": "kokkio", "position": [12, 21], "facing": 270},
    ], terrain=[{"id": "bush", "rect": {"center": [14.2, 7.6], "width": 1.6, "depth": 0.4},
                 "passage": "normal", "visibility": "obscuring", "size": "small"}])
    sc = t.scene()
    straight = replace(sc.bodies["akira"], center=(12.0, 7.0))
    assert sc.los("kokkio", straight).visible and not sc.cover("kokkio", straight).cover
    g = Game(t, seed=6, length=("fixed", 2))
    _wait_until_active(g, 1)
    a = GreedyBot(6).choose(g)
    assert a.kind == "walk" and g.is_legal(a)[0]
    end = replace(sc.bodies["akira"], center=a.point)
    assert sc.cover("kokkio", end).cover
    assert math.dist(a.point, (12, 21)) < math.dist((12, 3), (12, 21)) - 2  # still closing in
    assert abs(a.facing - math.degrees(math.atan2(21 - a.point[1], 12 - a.point[0]))) < 1e-6  # faces it
    g.push(a)
    assert g.state.models["akira"].position == pytest.approx(a.point)


def test_greedy_walk_stops_outside_the_enemy_zoc():
    t = make_table([
        {"id": "akira", "player": 1, "profile": "takashi-akira", "position": [12, 3], "facing": 90},
        {"id": "ton", "player": 2, "profile": "ton", "position": [12, 9], "facing": 270},
    ])
    g = Game(t, seed=7, length=("fixed", 2))
    _wait_until_active(g, 1)
    set_model(g, "akira", counters=g.state.models["akira"].counters - 1)  # one counter: no charge
    a = GreedyBot(7).choose(g)
    assert a.kind == "walk"
    gap = math.dist(a.point, (12, 9)) - 2 * R30
    assert 1.0 < gap < 1.6


def test_greedy_stands_up_then_rests():
    t = make_table([
        {"id": "akira", "player": 1, "profile": "takashi-akira", "position": [3, 3], "facing": 90, "prone": True},
        {"id": "ton", "player": 2, "profile": "ton", "position": [21, 21], "facing": 270, "move": 0},
    ])
    g = Game(t, seed=8, length=("fixed", 2))
    _wait_until_active(g, 1)
    assert GreedyBot(8).choose(g) == Action("stand_up", "akira")


# ------------------------------------------------------------------ allocations
def _exchange(models, attacker, defender, seed=0, terrain=()):
    t = make_table(models, terrain=terrain)
    g = Game(t, seed=seed, length=("fixed", 2))
    _wait_until_active(g, t.model(attacker).player)
    g.push(Action("melee", attacker, target=defender))
    assert g.state.exchange is not None
    return g


def test_greedy_allocation_adds_a_free_damage_special():
    g = _exchange([
        {"id": "akira", "player": 1, "profile": "takashi-akira", "position": [12, 6], "facing": 90},
        {"id": "ton", "player": 2, "profile": "ton", "position": [12, 6 + CONTACT_GAP], "facing": 270},
    ], "akira", "ton")
    a = GreedyBot(0).choose(g)
    ctx = exchange_context(g)
    assert a.model == "akira" and a.special == "critical-attack" and a.attack >= 1
    validate_allocation(ctx.me, ctx.pool, Allocation(a.attack, a.defence, a.special))
    assert a.attack > a.defence  # two thirds in attack


def test_greedy_in_danger_defends_and_breaks_contact():
    models = [
        {"id": "kenta", "player": 1, "profile": "takashi-kenta", "position": [12, 10], "facing": 90},
        {"id": "akira", "player": 2, "profile": "takashi-akira", "position": [12, 10 + CONTACT_GAP], "facing": 270},
    ]
    pushed = 0
    for seed in range(12):
        t = make_table(models)
        g = Game(t, seed=seed, length=("fixed", 2))
        set_model(g, "akira", damage=5)  # one wound left
        _wait_until_active(g, 1)
        g.push(Action("melee", "kenta", target="akira"))
        bots = (GreedyBot(seed), GreedyBot(seed + 1))
        g.push(bots[0].choose(g))
        a = bots[1].choose(g)
        assert a.model == "akira" and a.special == "push-defence"
        assert a.defence > a.attack
        events = g.push(a)
        summary = next(ev for ev in events if ev.kind == "exchange").data["summary"]
        if any("push-defence: moved kenta" in line for line in summary):
            pushed += 1
            tm, ta = g.table_now().model("kenta"), g.table_now().model("akira")
            assert math.dist(tm.position, ta.position) > CONTACT_GAP + 0.5
        play(g, bots)
        assert g.is_over()
    assert pushed > 0


def test_throw_direction_aims_at_impassable_terrain_and_resolves():
    models = [
        {"id": "mizuchi", "player": 1, "profile": "mizuchi", "position": [12, 12], "facing": 90},
        {"id": "akira", "player": 2, "profile": "takashi-akira", "position": [12, 12 + CONTACT_GAP], "facing": 270},
    ]
    water = [{"id": "water", "rect": {"center": [14.1, 13.5], "width": 0.6, "depth": 4},
              "passage": "impassable", "visibility": "open", "size": "zero"}]
    thrown = 0
    for seed in range(15):
        g = _exchange(models, "mizuchi", "akira", seed=seed, terrain=water)
        ctx = exchange_context(g)
        opt = ctx.me.weapon.special("throw-attack")
        assert opt in usable_specials(ctx.me, ctx.pool)
        deg = special_direction(g, ctx, opt)
        assert deg is not None
        land = (12 + 2 * math.cos(math.radians(deg)), 12 + CONTACT_GAP + 2 * math.sin(math.radians(deg)))
        assert g.table.piece("water").footprint.distance_to_disc(land, R30) <= 0.01  # against the water
        faced = g.table_now()
        faced = replace(faced, models=tuple(replace(m, facing=90.0 if m.id == "mizuchi" else m.facing)
                                            for m in faced.models), _scene=[])
        assert any(lo <= deg <= hi or lo <= deg + 360 <= hi for lo, hi in throw_directions(faced, "mizuchi", "akira"))
        k, d = max(legal_splits(ctx.me, ctx.pool, opt.key, deg))
        g.push(Action("allocate", "mizuchi", attack=k, defence=d, special=opt.key, direction=deg))
        events = g.push(GreedyBot(seed).choose(g))
        summary = next(ev for ev in events if ev.kind == "exchange").data["summary"]
        if any("throw-attack: moved akira" in line for line in summary) and g.state.models["akira"].alive:
            thrown += 1
            pos = g.state.models["akira"].position
            assert g.table.piece("water").footprint.distance_to_disc(pos, R30) <= 0.01
            assert "prone" in g.state.models["akira"].conditions
        play(g, (GreedyBot(seed), RandomBot(seed)))
    assert thrown > 0


def test_random_bot_allocations_are_legal_splits_with_specials():
    models = [
        {"id": "kazuha", "player": 1, "profile": "kazuha", "position": [12, 6], "facing": 90},
        {"id": "kenta", "player": 2, "profile": "takashi-kenta", "position": [12, 6 + CONTACT_GAP], "facing": 270},
    ]
    chosen = set()
    for seed in range(20):
        g = _exchange(models, "kazuha", "kenta", seed=seed)
        bot = RandomBot(seed, special_rate=0.9)
        while g.state.exchange is not None:
            a = bot.choose(g)
            _check(g, a)
            chosen.add(a.special)
            g.push(a)
    assert {"push-attack", "powerful-attack"} & chosen and None in chosen and len(chosen) >= 3
