"""Weapon rules through the public :class:`~sim.rules.game.Game` API (issue 13, helper H14):
special attacks printed on ranged weapons (p.39), Rapid Fire (X) (p.56), and the
catalogue specials Dual Attack and Web Defence.

Rulebook (seeds/000), p.39: "Для Стрелковых атак вы можете выбрать только доступные
специальные атаки, так как они не включают кубики защиты. Просто удалите необходимое
количество кубиков из пула атаки." and "Пул кубиков модели не может быть уменьшен до 0 за
счет использования специальной атаки или защиты".
"""

from __future__ import annotations

import dataclasses
import itertools
import os

import pytest

from models.profiles import Weapon, add_profile_source, get_profile
from sim.rules.dice import PhysicalDice, RollKind
from sim.rules.game import Action, Game
from sim.rules.melee import Allocation, Combatant, MeleeWeapon, resolve_exchange
from sim.table import parse_table
from tests.conftest import set_active

BSDATA = os.path.join(os.path.dirname(__file__), "..", "..", "shared", "bsdata")

YAML = """
format: bushido-table/1
name: weapon rules 2
table: {width: 24, depth: 24}
terrain: []
models:
  - {id: matsu, player: 1, profile: PROFILE, position: [8, 12], facing: 0}
  - {id: masunagi, player: 2, profile: ito-masunagi, position: [14, 12], facing: 180}
  - {id: ishi, player: 2, profile: ishi, position: [14, 4], facing: 180}
"""


class Script:
    """Dice by purpose: Ranged attacks roll ``ranged`` (default sixes), damage rolls take
    pairs from ``damage`` in order (then 3, 4), melee attack and defence dice come from
    ``attack``/``defence``; anything else cycles 1..6 (the Tactical test)."""

    def __init__(self, damage=(), ranged=6, attack=1, defence=6):
        self.damage = list(damage)
        self.ranged, self.attack, self.defence = ranged, attack, defence
        self.other = itertools.cycle([6, 5, 4, 3, 2, 1, 2, 3, 4, 5])
        self.rolls: list[tuple[str, list[int]]] = []

    def roll(self, n, purpose=None):
        kind = purpose.kind if purpose is not None else None
        if kind is RollKind.RANGED_ATTACK or kind is RollKind.BTB_TARGETING:
            out = [self.ranged] * n
        elif kind is RollKind.DAMAGE:
            out = list(self.damage.pop(0) if self.damage else (3, 4))[:n]
            out += [1] * (n - len(out))
        elif kind is RollKind.MELEE_ATTACK:
            out = [self.attack] * n
        elif kind is RollKind.MELEE_DEFENCE:
            out = [self.defence] * n
        else:
            out = [next(self.other) for _ in range(n)]
        self.rolls.append((kind.value if kind else "?", out))
        return out


def shooter(*, strength=2, traits=(), specials=(), name="Sling", extra=()):
    """A copy of Takashi Matsu's card (Ranged 3) whose ranged weapon is ``name`` with these
    traits and special attacks (Short 0-4", Medium 4-8", Long 8-12")."""
    base = get_profile("takashi-matsu")
    w = Weapon(name, "ranged", strength, {"short": (0.0, 4.0), "medium": (4.0, 8.0), "long": (8.0, 12.0)},
               tuple(traits), tuple(specials))
    weapons = tuple(x for x in base.weapons if x.kind == "melee") + (w,) + tuple(extra)
    words = [name, str(strength), *traits, *specials, *(x.name for x in extra)]
    pid = "h14-" + "-".join("".join(c for c in w.lower() if c.isalnum()) for w in words)
    card = dataclasses.replace(base, id=pid, bs_id=pid, weapons=weapons, traits=())
    add_profile_source({pid: card}, key=("test_weapon_rules2", pid))
    return pid


def game(pid, dice=None, yaml=YAML) -> Game:
    g = Game(parse_table(yaml.replace("PROFILE", pid), "<test>"), dice=dice or Script(), length=("fixed", 3))
    set_active(g, 1)
    return g


def shot_lines(g):
    return [line for line in g.log() if "damage" in line or "Attack" in line or "roll" in line]


# ----------------------------------------------------------------------------- specials at range
def test_a_ranged_special_costs_dice_from_the_pool_and_sweeps():
    # p.39: "Просто удалите необходимое количество кубиков из пула атаки"; p.40 Sweep:
    # "Защитник становится Сбитым с ног. Защитник получает половину ран"
    pid = shooter(specials=("Sweep Attack (1)",))
    g = game(pid)
    a = Action("shoot", "matsu", target="masunagi", weapon="Sling", special="Sweep Attack (1)")
    assert g.is_legal(a)[0]
    assert a in g.legal_actions()
    g.push(a)
    assert "prone" in g.state.models["masunagi"].conditions
    text = "\n".join(g.log())
    assert "2 dice" in text  # Ranged 3 less the cost 1
    assert "(halved)" in text and "Sweep Attack (1) succeeds" in text
    assert g.replay().snapshot() == g.snapshot()


def test_a_ranged_special_may_not_take_the_pool_to_zero():
    # p.39: "Пул кубиков модели не может быть уменьшен до 0 за счет использования специальной
    # атаки или защиты, и в этом случае игрок не может объявить эту специальную атаку"
    pid = shooter(specials=("Powerful Attack (3)",))
    g = game(pid)
    ok, why = g.is_legal(Action("shoot", "matsu", target="masunagi", weapon="Sling", special="Powerful Attack"))
    assert not ok and "pool to 0" in why
    assert not any(a.special for a in g.legal_actions() if a.kind == "shoot")
    ok, why = g.is_legal(Action("shoot", "matsu", target="masunagi", weapon="Sling", special="Stun Attack"))
    assert not ok and "no special attack" in why


def test_powerful_attack_at_range_adds_three_strength():
    # p.40: "Мощная атака (Powerful Attack): ... атакующий получает дополнительно +3 к силе"
    pid = shooter(strength=0, specials=("Powerful Attack (1)",))
    g = game(pid, Script(damage=[(3, 4)]))
    g.push(Action("shoot", "matsu", target="masunagi", special="Powerful Attack (1)"))
    assert any("Strength 3" in line for line in g.log())


def test_stun_attack_at_range_stuns():
    # p.40: "Оглушающая атака (Stun Attack): Если атака успешна, Защитник получает Оглушение
    # в дополнение к броску урона."
    pid = shooter(specials=("Stun Attack (0)",))
    g = game(pid)
    g.push(Action("shoot", "matsu", target="masunagi", special="Stun Attack (0)"))
    assert "stunned" in g.state.models["masunagi"].conditions


def test_combo_attack_at_range_rolls_damage_again():
    # p.39: "Комбинированная Атака (Combo Attack): ... вычитите 2 из уровня успешности атаки.
    # Если новый уровень успеха равен 0 или выше, сделайте еще один бросок урона"
    pid = shooter(specials=("Combo Attack (0)",))
    dice = Script(damage=[(2, 1), (2, 1), (2, 1)])
    g = game(pid, dice)
    g.push(Action("shoot", "matsu", target="masunagi", special="Combo Attack (0)"))
    damage = [r for r in dice.rolls if r[0] == "damage"]
    # 3 sixes: 6 + 2 supports = 8 against TN 6 (Long, 6") ... at least one extra roll
    assert len(damage) >= 2
    assert any("Combo Attack" in line for line in g.log())


def test_critical_attack_at_range_removes_on_a_double():
    # p.39: "Критическая атака (Critical Attack): Если атака успешна, и значения кубиков в
    # броске урона совпадают, удалите Защитника из игры."
    pid = shooter(specials=("Critical Attack (0)",))
    g = game(pid, Script(damage=[(2, 2)]))
    g.push(Action("shoot", "matsu", target="masunagi", special="Critical Attack (0)"))
    assert not g.state.models["masunagi"].alive
    assert g.replay().snapshot() == g.snapshot()


def test_slam_attack_at_range_moves_the_target_three_inches():
    # p.40: "Таран (Slam Attack): Если атака успешна, Защитник перемещается на 3" прямо от
    # атакующего ... и становится Сбитым с ног."
    pid = shooter(specials=("Slam Attack (0)",))
    g = game(pid)
    g.push(Action("shoot", "matsu", target="masunagi", special="Slam Attack (0)"))
    m = g.state.models["masunagi"]
    assert m.position[0] == pytest.approx(17.0, abs=1e-6) and "prone" in m.conditions


# ----------------------------------------------------------------------------- Rapid Fire
def test_rapid_fire_shoots_twice_for_one_counter():
    # p.56: "Быстрая стрельба (Rapid Fire)(X): ... она может выполнить до X стрелковых атак во
    # время активации. Эти стрелковые атаки могут указывать разные цели ... Удалите только
    # один счетчик активации, независимо от количества атак."
    pid = shooter(traits=("Rapid Fire (2)", "Ammo (3)"))
    g = game(pid)
    before = g.state.models["matsu"].counters
    g.push(Action("shoot", "matsu", target="masunagi", models=("ishi",)))
    shots = [e for e in g.events if e.kind == "shot"]
    assert len(shots) == 2
    assert g.state.models["matsu"].counters == before - 1
    assert g.state.models["matsu"].ammo.get("Sling") == 1  # one Ammo token per shot (p.32)
    # the second shot: "Атакующая модель уже делала стрелковую атаку в этот ход +1" (p.31)
    assert any("already" in line.lower() or "shot this turn" in line.lower() for line in shots[1].data["summary"])
    assert g.replay().snapshot() == g.snapshot()


def test_rapid_fire_allows_at_most_x_attacks():
    pid = shooter(traits=("Rapid Fire (2)",))
    g = game(pid)
    ok, why = g.is_legal(Action("shoot", "matsu", target="masunagi", models=("ishi", "masunagi")))
    assert not ok and "at most 2" in why
    plain = game(shooter())
    ok, why = plain.is_legal(Action("shoot", "matsu", target="masunagi", models=("ishi",)))
    assert not ok and "no Rapid Fire" in why


def test_rapid_fire_with_reload_the_second_shot_is_blocked():
    # p.57 Reload (X): "получает X маркеров Перезарядки"; p.30 step 1g: "Если у оружия есть
    # свойство Перезарядка, проверьте, есть ли у него маркеры Перезарядки. Если это так,
    # атака завершается"
    pid = shooter(traits=("Rapid Fire (2)", "Reload (1)"))
    g = game(pid)
    g.push(Action("shoot", "matsu", target="masunagi", models=("masunagi",)))
    shots = [e for e in g.events if e.kind == "shot"]
    assert len(shots) <= 2
    assert sum(1 for e in shots if any("damage roll" in s for s in e.data["summary"])) == 1


def test_rapid_fire_variable_x_is_given_and_logged_as_a_manual_step():
    pid = shooter(traits=("Rapid Fire (X)",))
    g = game(pid)
    ok, why = g.is_legal(Action("shoot", "matsu", target="masunagi", models=("ishi",)))
    assert not ok and "x" in why
    g.push(Action("shoot", "matsu", target="masunagi", models=("ishi",), x=2))
    assert any(e.kind == "manual_step" and e.data["source"] == "Rapid Fire (X)" for e in g.events)


# ----------------------------------------------------------------------------- Dual Attack, Web Defence
def test_dual_attack_rolls_damage_twice_at_the_same_level():
    # catalogue special (Library-SpecialAbilities): a successful Dual Attack makes one more
    # damage roll at the same success level (our words).
    att = Combatant("a", 3, active=True, weapon=MeleeWeapon.of("Dual Swords", 1, (), ["Dual Attack (0)"]))
    dfn = Combatant("d", 2, wounds_left=20, weapon=MeleeWeapon.of("Katana", 0))
    r = resolve_exchange(att, dfn, Allocation(3, 0, "Dual Attack"), Allocation(0, 2),
                         PhysicalDice([6, 6, 6, 1, 1, 3, 4, 3, 4]))
    rolls = [d for d in r.damage if d.by == "a"]
    assert [d.source for d in rolls] == ["attack", "dual"]
    assert rolls[0].success_level == rolls[1].success_level


WEB_YAML = """
format: bushido-table/1
name: web
table: {width: 24, depth: 24}
terrain: []
models:
  - {id: matsu, player: 1, profile: takashi-matsu, position: [10, 12], facing: 0}
  - {id: spider, player: 2, profile: PROFILE, position: [11.186, 12], facing: 180}
"""


def web_card():
    base = get_profile("ito-masunagi")
    w = Weapon("Mandibles", "melee", 0, {}, (), (), ("Web Defence (0)",))
    card = dataclasses.replace(base, id="h14-web-spider", bs_id="h14-web-spider",
                               weapons=(w,) + tuple(x for x in base.weapons if x.kind == "ranged"))
    add_profile_source({card.id: card}, key=("test_weapon_rules2", card.id))
    return card.id


def test_web_defence_stops_the_disengaging_model_walking():
    # catalogue special Web Defence: when it succeeds, the enemy may not move until the
    # current activation ends (our words). Disengage (p.24) walks after the exchange.
    pid = web_card()
    g = game(pid, Script(attack=1, defence=6), yaml=WEB_YAML)
    g.push(Action("disengage", "matsu", target="spider", point=(6.0, 12.0)))
    pools = g.exchange_pools()
    g.push(Action("allocate", "matsu", attack=1, defence=pools["matsu"] - 1))
    g.push(Action("allocate", "spider", attack=0, defence=pools["spider"], special="Web Defence (0)"))
    text = "\n".join(g.log())
    assert "may not move until the end of the current activation" in text
    assert "may not move (Web Defence)" in text
    assert g.state.models["matsu"].position[0] == pytest.approx(10.0)
    assert not g.state.models["matsu"].effects  # the effect ended with the activation
    assert g.replay().snapshot() == g.snapshot()


@pytest.mark.skipif(not os.path.isdir(BSDATA), reason="no ../shared/bsdata")
def test_the_catalogue_specials_are_known():
    from models.bsdata import load_catalogues
    from sim.rules.melee import parse_special

    cs = load_catalogues(BSDATA)
    names = {s for cp in cs.profiles for w in cp.profile.weapons for s in w.special_attacks + w.special_defences}
    for text in names:
        if "Dual Attack" in text or "Web Defence" in text:
            assert parse_special(text).rule is not None


IC_YAML = """
format: bushido-table/1
name: rapid interception
table: {width: 24, depth: 24}
terrain: []
models:
  - {id: matsu, player: 1, profile: PROFILE, position: [4, 12], facing: 0}
  - {id: masunagi, player: 2, profile: ito-masunagi, position: [12, 12], facing: 180}
  - {id: ishi, player: 2, profile: ishi, position: [8, 13.4], facing: 270}
"""


def test_rapid_fire_shots_each_open_their_interception_window():
    # p.30 step 1d: "Игрок, контролирующий цель, может в этот момент назначить другую
    # дружественную модель в качестве новой цели" -- for each of Rapid Fire's attacks (p.56)
    pid = shooter(traits=("Rapid Fire (2)",))
    g = game(pid, yaml=IC_YAML)
    g.push(Action("shoot", "matsu", target="masunagi", models=("masunagi",)))
    assert g.state.interception is not None and g.state.interception["rest"] == [["masunagi", None]]
    assert g.position()["interception"]["rest"] == [["masunagi", None]]  # kept by positions and saves
    g.push(Action("intercept"))
    assert sum(1 for e in g.events if e.kind == "shot") == 1
    assert g.state.interception is not None and not g.state.interception.get("rest")  # the second shot waits
    g.push(Action("intercept", target="ishi"))
    assert sum(1 for e in g.events if e.kind == "shot") == 2
    assert g.state.interception is None and g.state.active == 2
    assert g.replay().snapshot() == g.snapshot()
