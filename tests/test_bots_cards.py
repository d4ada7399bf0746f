"""The greedy bot takes the card choices a sensible player takes (issue 13, helper B1):
Leech, Channel, Virtue, Command, Order, Pack, Rapid Fire and special attacks at range,
each in a small position where taking it is clearly right, through ``legal_actions`` /
``is_legal`` / ``push`` (the bot's module: :mod:`sim.rules.bots.greedy_cards`).

Rulebook (seeds/000) lines are quoted in each test.
"""

from __future__ import annotations

import dataclasses
import itertools

from models.bsdata.traittext import parse_trait
from models.profiles import Weapon, add_profile_source, get_profile
from sim.rules.bots import GreedyBot
from sim.rules.game import Action, Game
from sim.table import parse_table

_ids = itertools.count()
#: Edge-to-edge base contact of two 30 mm bases, centre to centre (inches).
TOUCH = 2 * 0.5905511811023623 + 0.0005


def card(base: str, traits=(), weapons=None) -> str:
    """A copy of profile ``base`` with ``traits`` added (and ``weapons`` instead of its
    own when given); returns its id."""
    b = get_profile(base)
    n = next(_ids)
    pid = f"{base}-b1-{n}"
    c = dataclasses.replace(b, id=pid, bs_id=f"test-b1-{n}", traits=b.traits + tuple(parse_trait(t) for t in traits),
                            weapons=b.weapons if weapons is None else tuple(weapons))
    add_profile_source({pid: c}, key=("test_bots_cards", pid))
    return pid


def game(models: list[tuple[str, int, str, tuple[float, float]]], **fields) -> Game:
    """A 24" x 24" open table with ``models`` (id, player, profile, position), in turn
    1's Main phase with player 1 active; every model has two counters and no Ki unless
    ``fields`` says otherwise (``akira={"ki": 3, "counters": 0}``)."""
    rows = "\n".join(f"  - {{id: {i}, player: {p}, profile: {prof}, position: [{x}, {y}], facing: 0}}"
                     for i, p, prof, (x, y) in models)
    yaml = f"format: bushido-table/1\nname: b1\ntable: {{width: 24, depth: 24}}\nterrain: []\nmodels:\n{rows}\n"
    g = Game(parse_table(yaml, "<test>"), seed=5, length=("fixed", 3))
    pos = g.position()
    pos["active"] = 1
    for mid, e in pos["models"].items():
        e["counters"], e["ki"] = 2, 0
        e.update(fields.get(mid, {}))
    g.set_position(pos)
    return g


def bot_choice(g: Game) -> Action:
    a = GreedyBot(seed=1).choose(g)
    assert g.is_legal(a)[0], g.is_legal(a)[1]
    return a


# ---------------------------------------------------------------- Leech, Channel, Virtue
def test_leech_takes_the_ki_of_an_exhausted_friend_before_fighting():
    """p.54: "Пиявка (Leech)(X/Y"): один раз за ход во время активации этой модели она может
    удалить до X жетонов Ки с любой дружественной модели (моделей) в пределах Y" и добавить
    их себе." The leecher is about to fight; its Exhausted friend cannot use its Ki this turn."""
    g = game([("lee", 1, card("takashi-akira", ['Leech (2/4")']), (10, 12)),
              ("tired", 1, "kokkio", (10, 15)),
              ("foe", 2, "ito-masunagi", (10 + TOUCH, 12))],
             tired={"ki": 3, "counters": 0}, lee={"ki": 0})
    a = bot_choice(g)
    assert a.kind == "leech" and a.model == "lee" and a.models == ("tired", "tired")
    g.push(a)
    assert g.state.models["lee"].ki == 2
    assert bot_choice(g).model == "lee"  # its activation goes on: it declares its action


def test_leech_leaves_the_ki_of_a_friend_that_may_still_use_it():
    """p.54 (Leech): taking is the player's choice ("может"); a friend that still activates
    this turn and has Ki feats keeps its Ki."""
    g = game([("lee", 1, card("takashi-akira", ['Leech (2/4")']), (10, 12)),
              ("busy", 1, "kokkio", (10, 15)),
              ("foe", 2, "ito-masunagi", (10 + TOUCH, 12))],
             busy={"ki": 3})
    assert all(a.kind != "leech" for a in [bot_choice(g)])


def test_channel_gives_spare_ki_to_a_friend_in_a_fight():
    """p.50: "Канал (Channel)(X/Y"): один раз за ход во время активации этой модели она может
    удалить до X своих жетонов Ки. Затем контролирующий игрок выбирает любую дружественную
    модель (модели) в пределах Y", чтобы распределить эти жетоны Ки." The giver keeps the Ki
    of its dearest feat (2) and gives the rest to the friend in base contact with an enemy."""
    g = game([("aaa", 1, card("takashi-akira", ['Channel (2/4")']), (10, 12)),
              ("mate", 1, "takashi-akira", (10, 12 + TOUCH)),
              ("foe", 2, "ito-masunagi", (10 + TOUCH, 12)),
              ("foe2", 2, "ito-masunagi", (10 - TOUCH, 12 + TOUCH))],
             aaa={"ki": 4}, mate={"ki": 0})
    a = bot_choice(g)
    assert a.kind == "channel" and a.model == "aaa" and a.models == ("mate", "mate")
    g.push(a)
    assert (g.state.models["aaa"].ki, g.state.models["mate"].ki) == (2, 2)


def test_virtue_gives_its_token_to_the_friend_in_a_fight():
    """p.59: "Добродетель (Virtue)(X"): один раз за ход во время активации этой модели она
    может дать жетон Добродетели дружественной модели ... в пределах X"." Free: the bot gives
    it before its own action, to the friend in base contact with an enemy."""
    g = game([("vir", 1, card("takashi-akira", ['Virtue (4")']), (6, 6)),
              ("calm", 1, "takashi-akira", (6, 8)),
              ("mate", 1, "takashi-akira", (8, 6)),
              ("foe", 2, "ito-masunagi", (8 + TOUCH, 6))],
             mate={"counters": 0}, calm={"counters": 0})
    a = bot_choice(g)
    assert a.kind == "virtue" and a.model == "vir" and a.target == "mate"
    g.push(a)
    assert "virtue_token" in g.state.models[a.target or ""].conditions


# ---------------------------------------------------------------- Command, Order
def test_command_sends_two_friends_in_contact_into_melee_in_one_activation():
    """p.50: "Командование (Command)[K](X/Y"): ... простое действие ... выберите до X других
    не истощённых дружественных моделей [K] в пределах Y". Каждая из выбранных моделей может
    объявить одно Простое стандартное действие"; worked example p.24. Two friends in base
    contact with enemies attack in the commander's activation."""
    g = game([("boss", 1, card("takashi-akira", ['Command (2/6")']), (4, 4)),
              ("a1", 1, "takashi-akira", (8, 6)),
              ("a2", 1, "takashi-akira", (8, 9)),
              ("e1", 2, "ito-masunagi", (8 + TOUCH, 6)),
              ("e2", 2, "ito-masunagi", (8 + TOUCH, 9))])
    a = bot_choice(g)
    assert a.kind == "command" and a.model == "boss" and set(a.models) == {"a1", "a2"}
    g.push(a)
    nxt = bot_choice(g)
    assert nxt.model in ("a1", "a2") and nxt.kind in ("melee", "leech", "channel", "virtue", "feat")


def test_order_gives_counters_to_exhausted_friends():
    """p.55: "Приказ (Order)[K](X/Y"): сложное действие. До X других дружественных моделей [K]
    в пределах Y" получают по одному счётчику активации." The orderer has nothing to attack;
    its two Exhausted friends near the enemy get a counter each."""
    g = game([("boss", 1, card("takashi-akira", ['Order (2/6")']), (4, 4)),
              ("a1", 1, "takashi-akira", (8, 6)),
              ("a2", 1, "takashi-akira", (8, 8)),
              ("e1", 2, "ito-masunagi", (20, 16))],
             a1={"counters": 0}, a2={"counters": 0})
    a = bot_choice(g)
    assert a.kind == "order" and a.model == "boss" and set(a.models) == {"a1", "a2"}
    g.push(a)
    assert g.state.models["a1"].counters == 1 and g.state.models["a2"].counters == 1


# ---------------------------------------------------------------- Pack
def test_pack_charges_together_at_one_enemy():
    """p.55: "Стая (Pack)(X/Y"): когда эта модель активируется, до X дружественных моделей со
    Стаей в пределах Y" могут активироваться вместе с ней ... обязаны объявлять действия
    Рукопашной, Стрельбы или Нападения против одной и той же цели"."""
    wolf = card("takashi-akira", ['Pack (1/4")'])
    g = game([("w1", 1, wolf, (6, 12)), ("w2", 1, wolf, (6, 14)), ("e1", 2, "ito-masunagi", (12, 13))])
    a = bot_choice(g)
    assert a.kind == "pack" and a.target == "e1" and len(a.models) == 1
    g.push(a)
    nxt = bot_choice(g)
    assert nxt.target == "e1" and nxt.kind in ("charge", "melee")


# ---------------------------------------------------------------- Rapid Fire, specials at range
def _gun(traits=(), specials=()) -> str:
    base = get_profile("takashi-matsu")
    w = Weapon("Gun", "ranged", 2, {"short": (0.0, 4.0), "medium": (4.0, 8.0), "long": (8.0, 12.0)},
               tuple(traits), tuple(specials))
    return card("takashi-matsu", weapons=[x for x in base.weapons if x.kind == "melee"] + [w])


def test_rapid_fire_shoots_at_the_second_enemy_too():
    """p.56: "Быстрая стрельба (Rapid Fire)(X): ... она может выполнить до X стрелковых атак
    во время активации. Эти стрелковые атаки могут указывать разные цели ... Удалите только
    один счётчик активации"."""
    g = game([("gun", 1, _gun(traits=("Rapid Fire (2)",)), (4, 12)),
              ("e1", 2, "ito-masunagi", (12, 12)), ("e2", 2, "ito-masunagi", (12, 15))],
             gun={"counters": 1})
    a = bot_choice(g)
    assert a.kind == "shoot" and a.model == "gun" and len(a.models) == 1
    assert {a.target, a.models[0]} == {"e1", "e2"}


def test_a_free_damage_special_is_declared_at_range():
    """p.39: "Для Стрелковых атак вы можете выбрать только доступные специальные атаки ...
    Просто удалите необходимое количество кубиков из пула атаки." A Critical Attack (0)
    costs nothing: the bot declares it."""
    g = game([("gun", 1, _gun(specials=("Critical Attack (0)",)), (4, 12)), ("e1", 2, "ito-masunagi", (12, 12))],
             gun={"counters": 1})
    a = bot_choice(g)
    assert a.kind == "shoot" and a.special == "Critical Attack (0)"


def test_a_costly_special_is_not_declared_when_it_leaves_one_die():
    """p.39: the cost comes off the Ranged pool (3 here); Powerful Attack (2) would leave one
    die, so the bot shoots plainly."""
    g = game([("gun", 1, _gun(specials=("Powerful Attack (2)",)), (4, 12)), ("e1", 2, "ito-masunagi", (12, 12))],
             gun={"counters": 1})
    a = bot_choice(g)
    assert a.kind == "shoot" and a.special is None


# ---------------------------------------------------------------- Cavalry
def test_cavalry_moves_first_to_bring_an_enemy_within_a_charge():
    """p.50: "Кавалерия (Cavalry)(X"): ... эта модель может переместиться на X" до или после
    своего действия". The enemy is 1.5" beyond a Charge (2 x Move 4 = 8"): the Cavalry move
    before the action brings it within one, and the Charge follows."""
    g = game([("rider", 1, card("takashi-akira", ['Cavalry (3")']), (3, 12)),
              ("e1", 2, "ito-masunagi", (3 + TOUCH + 9.5, 12))])
    a = bot_choice(g)
    assert a.kind == "cavalry" and a.model == "rider" and a.point is not None and a.point[0] > 3
    g.push(a)
    nxt = bot_choice(g)
    assert nxt.kind == "charge" and nxt.model == "rider" and nxt.target == "e1"


def test_cavalry_moves_on_after_a_walk_and_keeps_out_of_the_enemy_zoc():
    """p.50 (Cavalry, "после своего действия"): after its Walk the rider moves X" more
    towards the enemy, ending outside its ZoC (1", p.22)."""
    g = game([("rider", 1, card("takashi-akira", ['Cavalry (3")']), (2, 2)),
              ("e1", 2, "ito-masunagi", (22, 22))])
    a = bot_choice(g)
    assert a.kind == "walk" and a.model == "rider"
    g.push(a)
    before = g.table_now().model("rider").position
    after = bot_choice(g)
    assert after.kind == "cavalry" and after.point is not None
    g.push(after)
    now = g.table_now().model("rider").position
    e = g.table_now().model("e1").position
    assert ((now[0] - e[0]) ** 2 + (now[1] - e[1]) ** 2) < ((before[0] - e[0]) ** 2 + (before[1] - e[1]) ** 2)
