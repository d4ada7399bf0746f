"""Melee traits and their ranged halves in play (issue #13, helper H2), through the
public :class:`~sim.rules.game.Game` API: Bear Stands Alone, Co-ordinated Attack [K],
Vengeance [K], Brutal (X) and Prowess [Ranged] on a shot, Prowess [Tactical], Adept [K],
Assassin on a shot. Each test quotes the rulebook line it checks (seeds/000).
"""

from __future__ import annotations

import dataclasses
import itertools

from models.bsdata.traittext import parse_trait
from models.profiles import Profile, add_profile_source, get_profile
from sim.rules.card_keywords import KeywordView, keyword_matches, view_of
from sim.rules.dice import PhysicalDice
from sim.rules.game import Action, Game
from sim.rules.melee import combatant_from_profile
from sim.table import load_table

TABLE = load_table()
_KEYS = itertools.count()


def _card(model_id: str, *traits: str, weapon_traits: dict[str, tuple[str, ...]] | None = None) -> Profile:
    """The default table's card of ``model_id`` with printed ``traits`` added."""
    base = get_profile(TABLE.model(model_id).profile)
    weapons = tuple(dataclasses.replace(w, traits=w.traits + (weapon_traits or {}).get(w.name, ()))
                    for w in base.weapons)
    n = next(_KEYS)  # a bs_id of its own: a registered card with a known bs_id is not added
    return dataclasses.replace(base, id=f"{base.id}-h2-{n}", bs_id=f"test-melee-traits-{n}", weapons=weapons,
                               traits=base.traits + tuple(parse_trait(t) for t in traits))


def _table(cards: dict[str, Profile]):
    """The default table with the models of ``cards`` playing those cards."""
    add_profile_source({c.id: c for c in cards.values()}, key=("test_melee_traits", next(_KEYS)))
    models = tuple(dataclasses.replace(m, profile=cards[m.id].id) if m.id in cards else m for m in TABLE.models)
    return dataclasses.replace(TABLE, models=models, _scene=[])


def _game(cards: dict[str, Profile], places: dict[str, tuple[float, float]], *, active: int = 1,
          dead: tuple[str, ...] = (), dice=None, **model_extra) -> Game:
    """A game on the default table with ``cards``, models at ``places`` (the others off
    the table unless in ``places``... they stay where they are), ``dead`` removed."""
    g = Game(_table(cards), seed=3, length=("fixed", 6)) if dice is None else \
        Game(_table(cards), dice=dice, length=("fixed", 6))
    pos = g.position()
    pos["active"] = active
    for mid, xy in places.items():
        pos["models"][mid].update(position=list(xy))
    for mid in dead:
        pos["models"][mid]["alive"] = False
    for mid, extra in model_extra.items():
        pos["models"][mid].update(extra)
    g.set_position(pos)
    return g


#: Every model but the named ones removed from the table.
def _only(*keep: str) -> tuple[str, ...]:
    return tuple(m.id for m in TABLE.models if m.id not in keep)


# ----------------------------------------------------------------- keywords (p.48)

def test_keywords_name_types_factions_names_traits_conditions_and_sides():
    akira = view_of(get_profile("takashi-akira"), friendly=False, conditions=["frightened"])
    assert keyword_matches("Samurai", akira) and keyword_matches("Takashi", akira)
    assert keyword_matches("Prefecture", akira) and keyword_matches("Enemy", akira)
    assert keyword_matches("Frightened", akira) and keyword_matches("Held, Prone", akira) is False
    assert keyword_matches("Held & Frightened", akira)
    assert not keyword_matches("Friendly", akira) and not keyword_matches("Ito", akira)
    assert keyword_matches("Non-Samurai", akira) is False and keyword_matches("Non-Ashigaru", akira)
    assert keyword_matches("Enemy models with RC &gt; 10", akira)  # Akira costs 18
    assert keyword_matches("Chosen model", akira) is None  # the player's choice: a manual step
    assert keyword_matches("Soulless", KeywordView(traits=frozenset({"soulless"})))


# ----------------------------------------------------------------- Bear Stands Alone (p.49)

def test_bear_stands_alone_gives_indomitable_only_with_no_friend_within_3_inches():
    """p.49: "Одинокой медведь (Bear Stands Alone): пока в пределах 3\\" от этой модели нет
    дружественных моделей, она получает Упорство (+1).\""""
    cards = {"akira": _card("akira", "Bear Stands Alone")}
    dead = _only("akira", "kokkio", "masunagi")
    alone = _game(cards, {"akira": (12, 12), "kokkio": (12, 4), "masunagi": (12, 13.2)}, dead=dead)
    assert alone.combatant("akira", True).indomitable == 1
    near = _game(cards, {"akira": (12, 12), "kokkio": (12, 15.0), "masunagi": (12, 10.8)}, dead=dead)
    assert near.combatant("akira", True).indomitable == 0  # Kokkio's base is 1.8" away


def test_bear_stands_alone_ignores_one_supporting_enemy_in_the_exchange():
    """p.49 Bear Stands Alone gives Indomitable (+1); p.54 Indomitable (X) ignores X
    supporting enemies: Akira alone against Masunagi with Ishi also in contact keeps his
    four dice."""
    cards = {"akira": _card("akira", "Bear Stands Alone")}
    dead = _only("akira", "masunagi", "ishi")
    g = _game(cards, {"akira": (12, 12), "masunagi": (12, 13.2), "ishi": (13.182, 12)}, dead=dead)
    g.push(Action("melee", "akira", target="masunagi"))
    assert g.exchange_pools()["akira"] == 4
    plain = _game({}, {"akira": (12, 12), "masunagi": (12, 13.2), "ishi": (13.182, 12)}, dead=dead)
    plain.push(Action("melee", "akira", target="masunagi"))
    assert plain.exchange_pools()["akira"] == 3


# ----------------------------------------------------------------- Co-ordinated Attack (p.50)

def test_coordinated_attack_adds_one_melee_while_a_friendly_k_model_touches_the_target():
    """p.50: "Если эта модель участвует в Обмене ударами, а одна или несколько дружественных
    [Ключевое слово] моделей также находятся в контакте с целью, эта модель получает +1 к
    Рукопашному бою.\""""
    cards = {"kenta": _card("kenta", "Co-ordinated Attack [Samurai]")}
    dead = _only("kenta", "akira", "masunagi")
    g = _game(cards, {"kenta": (13.4, 11.5), "akira": (11, 11.5), "masunagi": (12.182, 11.5)}, dead=dead)
    g.push(Action("melee", "kenta", target="masunagi"))
    assert g.combatant("kenta", True).melee == 5  # Akira (Samurai) also touches Masunagi
    other = _game({"kenta": _card("kenta", "Co-ordinated Attack [Ashigaru]")},
                  {"kenta": (13.4, 11.5), "akira": (11, 11.5), "masunagi": (12.182, 11.5)}, dead=dead)
    other.push(Action("melee", "kenta", target="masunagi"))
    assert other.combatant("kenta", True).melee == 4  # Akira is no Ashigaru


# ----------------------------------------------------------------- Vengeance (p.59)

def test_vengeance_gives_brutal_and_strength_against_k_models_only():
    """p.59: "Возмездие (Vengeance) [Ключевое слово]: рукопашное оружие этой модели получает
    Brutal (+1) и +1 к силе при выполнении Обмена ударами с моделью [Ключевое слово].\""""
    dead = _only("akira", "masunagi")
    for q, hit in (("Ito", True), ("Samurai", True), ("Ashigaru", False), ("Frightened", False)):
        g = _game({"akira": _card("akira", f"Vengeance [{q}]")}, {"akira": (12, 12), "masunagi": (12, 13.2)},
                  dead=dead)
        g.push(Action("melee", "akira", target="masunagi"))
        c = g.combatant("akira", True)
        assert (c.weapon.strength, c.brutal_value) == ((2, 1) if hit else (1, 0)), q


def test_vengeance_against_a_condition_reads_the_opponents_markers():
    dead = _only("akira", "masunagi")
    g = _game({"akira": _card("akira", "Vengeance [Stunned]")}, {"akira": (12, 12), "masunagi": (12, 13.2)},
              dead=dead, masunagi={"conditions": {"stunned": 1}})
    g.push(Action("melee", "akira", target="masunagi"))
    assert g.combatant("akira", True).brutal_value == 1


def test_vengeance_chosen_model_is_a_manual_step_in_the_exchange_log():
    dead = _only("akira", "masunagi")
    g = _game({"akira": _card("akira", "Vengeance [Chosen model]")}, {"akira": (12, 12), "masunagi": (12, 13.2)},
              dead=dead)
    g.push(Action("melee", "akira", target="masunagi"))
    while g.state.exchange is not None:
        g.push(next(a for a in g.legal_actions() if a.kind == "allocate"))
    text = "\n".join(g.log())
    assert "manual step: akira's Vengeance [Chosen model]" in text


# ----------------------------------------------------------------- Adept (p.48), Prowess (p.56)

def test_adept_attack_size_acts_on_attack_dice_only():
    """p.48: "При выполнении проверок [Ключевое слово] эта модель может сохранить до X
    дополнительных Вспомогательных кубиков"; [Attack] is the exchange's attack roll (p.56)."""
    c = combatant_from_profile(_card("akira", "Adept [Attack, Size] (1)"))
    assert c.adept == 1 and c.adept_on == frozenset({"attack"})
    m = combatant_from_profile(_card("akira", "Adept [Melee] (2)"))
    assert m.adept == 2 and m.adept_on == frozenset({"attack", "defence"})


def test_prowess_with_two_keywords_rerolls_in_melee():
    """p.56: "во время теста [Ключевое слово] модель может перебросить до X своих кубиков\";
    the catalogues print Prowess [Melee, Ranged] and Prowess [Attack, Tactical]."""
    c = combatant_from_profile(_card("kokkio", "Prowess [Attack, Tactical] (1)"))
    assert [sorted(r.kinds) for r in c.rerolls] == [["attack"]]
    d = combatant_from_profile(_card("kokkio", "Prowess [Melee, Ranged] (2)"))
    assert [(sorted(r.kinds), r.limit) for r in d.rerolls] == [(["attack", "defence"], 2)]


def test_prowess_tactical_rerolls_the_players_die_in_the_tactical_test():
    """p.56 Prowess [Tactical] (X); p.28: "Оба игрока назначают модель для проведения
    Встречной проверки, используя один D6". Player 1 rolls 2, player 2 rolls 5; Akira's
    Prowess [Tactical] (1) re-rolls the 2 into a 6 and player 1 wins."""
    g = Game(_table({"akira": _card("akira", "Prowess [Tactical] (1)")}), dice=PhysicalDice([2, 5, 6]),
             length=("fixed", 3))
    tactical = next(e for e in g.events if e.kind == "tactical")
    assert tactical.data["winner"] == 1 and tactical.data["rolls"] == [[6, 5]]


# ----------------------------------------------------------------- the ranged halves

def _shot(cards, dice, target_extra=None):
    dead = _only("kokkio", "masunagi")
    extra = {"masunagi": target_extra} if target_extra else {}
    g = _game(cards, {"kokkio": (12, 6), "masunagi": (12, 10)}, dead=dead, dice=PhysicalDice([2, 1]), **extra)
    g.dice = PhysicalDice(dice)
    g.push(Action("shoot", "kokkio", target="masunagi"))
    return next(e for e in g.events if e.kind == "shot").data["summary"]


def test_brutal_adds_to_the_ranged_attack_result():
    """p.50: "При стрельбе эта модель добавляет X к результату при расчете окончательного
    результата стрелковой атаки." Kokkio rolls 3 dice [3, 2, 2]: 3 + 2 supports = 5, +1."""
    summary = _shot({"kokkio": _card("kokkio", "Brutal (1)")}, [3, 2, 2, 1, 1])
    roll = next(s for s in summary if s.startswith("2 roll"))
    assert "+1 = 6" in roll, roll
    plain = _shot({}, [3, 2, 2, 1, 1])
    assert "= 5" in next(s for s in plain if s.startswith("2 roll"))


def test_prowess_ranged_rerolls_the_shooters_dice():
    """p.56 Prowess [Ranged] (1): one of Kokkio's dice re-rolled in the Ranged test: the
    1 becomes a 6."""
    summary = _shot({"kokkio": _card("kokkio", "Prowess [Ranged] (1)")}, [1, 4, 4, 6, 1, 1])
    roll = next(s for s in summary if s.startswith("2 roll"))
    assert "[6, 4, 4]" in roll, roll


def test_assassin_damage_on_a_surprised_target_rolls_three_dice_keeps_two():
    """p.49: "Если эта модель Захватила врага врасплох, она может бросить три кубика на бросок
    урона от атаки, и выбрать два, игнорируя свойства Слабы и Сильный." Kokkio hits the
    Surprised Masunagi: the damage roll has three dice."""
    summary = _shot({"kokkio": _card("kokkio", "Assassin")}, [6, 6, 6, 2, 5, 6, 6, 6],
                    target_extra={"conditions": {"surprised": 1}})
    dmg = next(s for s in summary if s.startswith("5 damage"))
    assert dmg.startswith("5 damage: damage roll [2, 5, 6] keep [6, 5]"), dmg


# ----------------------------------------------------------------- Charging Bonus (p.50)

_CHARGE_PLACES = {"akira": (11.0, 10.8), "masunagi": (11.0, 13.8)}


def _charged(cards, *, weapon_traits=None) -> Game:
    dead = _only("akira", "masunagi")
    g = _game(cards, _CHARGE_PLACES, dead=dead, akira={"facing": 90.0})
    g.push(Action("charge", "akira", target="masunagi"))
    return g


def test_charging_bonus_fear_acts_on_the_contact_of_its_charge():
    """p.50: "Бонус нападения (Charging Bonus) [Bonus]: когда эта модель выполняет действие
    Нападение, она получает бонус в скобках до конца своей текущей активации." With
    Charging Bonus [Fear (6)] the charged Masunagi takes a Fear test (p.29)."""
    g = _charged({"akira": _card("akira", "Charging Bonus [Fear (6)]")})
    assert g.state.exchange is not None or any("Fear test" in line for line in g.log())
    assert any("masunagi takes a Fear test (TN 6)" in line for line in g.log())
    plain = _charged({})
    assert not any("Fear test" in line for line in plain.log())


def test_charging_bonus_ends_with_the_activation():
    g = _charged({"akira": _card("akira", "Charging Bonus [+1 Melee Pool]")})
    assert g.exchange_pools()["akira"] == 5  # Melee 4 + 1 in the charge's exchange
    while g.state.exchange is not None:
        g.push(next(a for a in g.legal_actions() if a.kind == "allocate"))
    assert g.profile("akira").melee == 4 and not g.state.models["akira"].effects


def test_charging_bonus_slam_attack_is_offered_only_in_the_charge_exchange():
    """Charging Bonus [Slam Attack (0)]: the special is on the weapon in the exchange of the
    Charge (p.50), not in an exchange of a Melee action."""
    cards = {"akira": _card("akira", "Charging Bonus [Slam Attack (0)]")}
    g = _charged(cards)
    ok, why = g.is_legal(Action("allocate", "akira", attack=2, defence=2, special="Slam Attack"))
    assert ok, why
    dead = _only("akira", "masunagi")
    m = _game(cards, {"akira": (11.0, 12.618), "masunagi": (11.0, 13.8)}, dead=dead)
    m.push(Action("melee", "akira", target="masunagi"))
    ok, _why = m.is_legal(Action("allocate", "akira", attack=2, defence=2, special="Slam Attack"))
    assert not ok


def test_a_weapon_charging_bonus_acts_with_that_weapon_when_charging():
    """p.50: "Это свойство также может быть свойством оружия, в этом случае бонус
    применяется только при выборе этого оружия." Akira's Katana with Charging Bonus
    [Pierce (2)] has Pierce (2) in the exchange of his Charge only."""
    card = _card("akira", weapon_traits={"Katana": ("Charging Bonus [Pierce (2)]",)})
    g = _charged({"akira": card})
    assert g.combatant("akira", True, charge=True).weapon.trait_value("pierce") == 2
    assert g.combatant("akira", True, charge=False).weapon.trait_value("pierce") == 0


def test_charging_bonus_banzai_makes_its_charge_a_simple_action():
    """Charging Bonus [+1 Move, Banzai!] (catalogues); Banzai! p.49: the Charge is a Simple
    action (reading: the bonus acts on the Charge that gives it, rulings H2)."""
    g = _charged({"akira": _card("akira", "Charging Bonus [+1 Move, Banzai!]")})
    assert g.state.models["akira"].counters == 1
    plain = _charged({})
    assert plain.state.models["akira"].counters == 0


# ----------------------------------------------------------------- Split Attack (p.58)

def _fight_out(g: Game) -> list[dict]:
    """Allocate for every waiting exchange (first legal split) until none waits; the
    ``exchange_open`` data of each exchange in order."""
    opened = []
    start = len(g.events)
    while g.state.exchange is not None:
        g.push(next(a for a in g.legal_actions() if a.kind == "allocate"))
    for e in g.events[start - 1:]:
        if e.kind == "exchange_open":
            opened.append(e.data)
    return opened


def test_split_attack_moves_into_contact_with_two_enemies_and_fights_both_at_minus_one():
    """p.58: "когда эта модель объявляет действие Рукопашный бой или Нападение, она может
    прийти в контакт с двумя или более вражескими моделями и игнорировать их ЗК ... Эта
    модель имеет штраф -1 кубик за каждый дополнительный Обмен ударами, она будет активной
    во всех Обменах ударами ... Удалите только один счетчик активации с этой модели после
    последнего Обмена ударами." Worked example: "если он приходит в ближний бой с двумя
    моделями и выполняет Обмен ударами против обеих, он получает штраф -1 в обоих Обменах"."""
    dead = _only("yatsumata", "akira", "kenta")
    g = _game({}, {"yatsumata": (11.0, 9.8 + 3.5), "akira": (10.2, 11.3), "kenta": (11.8, 11.3)}, dead=dead, active=2)
    act = Action("melee", "yatsumata", target="akira", models=("kenta",))
    assert act in g.legal_actions()
    counters = g.state.models["yatsumata"].counters
    g.push(act)
    assert g.state.exchange["split_n"] == 2
    yats = g.combatant("yatsumata", True)
    assert ("Split Attack", -1) in yats.modifiers
    assert g.exchange_pools()["yatsumata"] == 3  # Melee 4, -1 Split Attack (Kenta's assist: Indomitable (1))
    first = g.state.exchange["defender"]
    while g.state.exchange is not None and g.state.exchange["defender"] == first:
        g.push(next(a for a in g.legal_actions() if a.kind == "allocate"))
    if g.state.models["yatsumata"].alive and g.state.models["kenta"].alive:
        assert g.state.exchange is not None and g.state.exchange["defender"] == "kenta"
        assert g.state.exchange["attacker"] == "yatsumata"  # active in every exchange
        assert ("Split Attack", -1) in g.combatant("yatsumata", True).modifiers
        _fight_out(g)
    assert g.state.models["yatsumata"].counters == counters - 1  # one counter for the whole action
    assert g.state.active == 1


def test_split_attack_against_three_enemies_in_contact_costs_two_dice_in_each():
    """The worked example's second half (p.58): "Если Кенко сделает Распределенную атаку
    против всех трех моделей, он получит штраф -2 куба на всех трех Обменах ударами"."""
    dead = _only("yatsumata", "akira", "kenta", "matsu")
    g = _game({}, {"yatsumata": (12.0, 12.0), "akira": (10.42, 12.0), "kenta": (13.58, 12.0),
                   "matsu": (12.0, 13.58)}, dead=dead, active=2)
    act = next(a for a in g.legal_actions() if a.kind == "melee" and len(a.models) == 2)
    g.push(act)
    assert g.state.exchange["split_n"] == 3
    assert ("Split Attack", -2) in g.combatant("yatsumata", True).modifiers
    seen = [g.state.exchange["defender"]] + [d["defender"] for d in _fight_out(g)]
    assert seen[0] == act.target and set(seen) <= {"akira", "kenta", "matsu"}


def test_a_model_without_split_attack_fights_one_enemy():
    dead = _only("masunagi", "akira", "kenta")
    g = _game({}, {"masunagi": (11.0, 13.3), "akira": (10.2, 11.3), "kenta": (11.8, 11.3)}, dead=dead, active=2)
    ok, why = g.is_legal(Action("melee", "masunagi", target="akira", models=("kenta",)))
    assert not ok and "Split Attack" in why


def test_adept_size_adds_a_supporting_die_in_a_size_test():
    """p.48: Adept [Ключевое слово](X): "может сохранить до X дополнительных Вспомогательных
    кубиков"; the catalogue's Adept [Attack, Size] (1) in the Immobilised model's Size (6)
    test (p.44): Yatsumata (Large, 4 dice) rolls [3, 2, 2, 2]: 3 + 3 supports = 6 passes,
    where 3 + 2 = 5 would fail."""
    dead = _only("yatsumata", "akira")
    for adept, passed in ((True, True), (False, False)):
        cards = {"yatsumata": _card("yatsumata", "Adept [Attack, Size] (1)")} if adept else {}
        g = _game(cards, {"yatsumata": (11.0, 11.3), "akira": (3.0, 3.0)}, dead=dead, active=2,
                  dice=PhysicalDice([2, 1]), yatsumata={"conditions": {"immobilised": 1}})
        g.dice = PhysicalDice([3, 2, 2, 2])
        g.push(Action("walk", "yatsumata", point=(11.0, 12.0)))
        test = next(e for e in g.events if e.kind == "test")
        assert test.data["passed"] is passed, test.data


def test_split_attack_charge_ends_in_contact_with_both_enemies_and_fights_both():
    """p.58: Split Attack when the model declares a Charge ("Рукопашный бой или Нападение"):
    it ignores the second enemy's ZoC, ends touching both and fights both, the Charge's
    +2 on each exchange's first damage roll (rulings H2). Without Split Attack the same
    charge stops before the second enemy's ZoC."""
    places = {"yatsumata": (10.2, 17.5), "akira": (10.2, 11.3), "kenta": (11.683, 12.335)}
    dead = _only("yatsumata", "akira", "kenta")
    g = _game({}, places, dead=dead, active=2, yatsumata={"facing": 270.0})
    assert not g.charge("yatsumata", "akira").reached  # it stops before Kenta's ZoC (p.22)
    assert g.charge("yatsumata", "akira", also=("kenta",)).reached
    act = Action("charge", "yatsumata", target="akira", models=("kenta",))
    ok, why = g.is_legal(act)
    assert ok, why
    g.push(act)
    assert g.state.exchange is not None and g.state.exchange["split_n"] == 2 and g.state.exchange["charge"]
    opened = [{"defender": "akira"}] + _fight_out(g)
    assert [d["defender"] for d in opened][:2] == ["akira", "kenta"] or not g.state.models["kenta"].alive


# ----------------------------------------------------------------- gaining traits in melee (p.48)

def test_kuma_and_naoko_armour_in_a_melee_exchange():
    """p.48 worked examples: "Кума имеет броню (1). Если он получит Броню (2) ... Кума теперь
    имеет Броню (2)"; "Наоко ... не имеет свойства Брони, но использует Мутацию, чтобы
    получить Броню (+1) ... дающий ей Броню (1)". The exchange's damage reads the gained
    Armour: Akira printed with Armour (1) is Armour (2) after Armour (2); Ishi (no Armour)
    is Armour (1) after Armour (+1), and Armour (2) after another Armour (+1)."""
    base = _card("akira")
    kuma = dataclasses.replace(base, traits=tuple(t for t in base.traits if t.keyword != "armour")
                               + (parse_trait("Armour (1)"),))
    dead = _only("akira", "ishi")
    g = _game({"akira": kuma}, {"akira": (11.0, 11.3), "ishi": (12.182, 11.3)}, dead=dead)
    assert g.combatant("akira", False).armour == 1
    g.grant("akira", "Kami of the Eternal Earth", "end_phase", traits=["Armour (2)"])
    assert g.combatant("akira", False).armour == 2  # not 3: they do not stack
    assert g.combatant("ishi", False).armour == 0
    g.grant("ishi", "Mutation", "end_phase", traits=["Armour (+1)"])
    assert g.combatant("ishi", False).armour == 1
    g.grant("ishi", "Mutation", "end_phase", traits=["Armour (+1)"])
    assert g.combatant("ishi", False).armour == 2


def test_a_split_attack_waiting_for_allocations_survives_position_replay_and_pop():
    dead = _only("yatsumata", "akira", "kenta")
    g = _game({}, {"yatsumata": (11.0, 13.3), "akira": (10.2, 11.3), "kenta": (11.8, 11.3)}, dead=dead, active=2)
    g.push(Action("melee", "yatsumata", target="akira", models=("kenta",)))
    pos = g.position()
    assert pos["exchange"]["split"] == ["kenta"] and pos["exchange"]["split_n"] == 2
    again = Game(g.table, seed=3, position=pos)
    assert again.position() == pos
    assert g.replay().snapshot() == g.snapshot()
    g.pop()
    assert g.state.exchange is None


def test_the_greedy_bot_uses_split_attack_against_the_enemies_it_touches():
    """Bots use traits sensibly (issue #13): Yatsumata (Melee 4, Split Attack) touching
    Akira and Kenta fights both at -1 die each."""
    from sim.rules.bots import GreedyBot

    dead = _only("yatsumata", "akira", "kenta")
    g = _game({}, {"yatsumata": (11.0, 12.66), "akira": (10.2, 11.3), "kenta": (11.8, 11.3)}, dead=dead, active=2)
    act = GreedyBot(2).choose(g)
    assert act.kind == "melee" and act.model == "yatsumata" and len(act.models) == 1, act
