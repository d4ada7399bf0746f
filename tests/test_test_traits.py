"""Traits that change tests (issue #13), through the public Game API: Fear tests on contact
(Courage, Cowardly, Leadership, Dread, Terror, Spirit, Soulless), opposed Ki tests of a feat
(Resistance, Willpower, Mettle, Overwhelm, Mantra, Spirit, Soulless) and Size tests
(Swarm). Each test scripts the dice (PhysicalDice) and quotes the rulebook line it checks
(seed 000, the Russian Risen Sun rulebook)."""

from __future__ import annotations

import dataclasses
import itertools

from conftest import set_active, set_model

from models.profiles import Trait, add_profile_source, get_profile
from models.traits import parse_trait_text
from sim.rules.dice import PhysicalDice
from sim.rules.game import Action, Game
from sim.table import load_table

TABLE = load_table()
_N = itertools.count()


def _trait(text: str) -> Trait:
    tt = parse_trait_text(text)
    key, qual, value = tt.key, tt.qualifier, tt.value
    rng = None
    if value and "/" in value:
        x, _, y = value.partition("/")
        value, rng = x, float(y.strip('"'))
    num = int(value) if value not in (None, "") and value.lstrip("+-").isdigit() else None
    return Trait(key, num, qual.lower() if qual else None, text, rng)


def _table(changes: dict[str, tuple[tuple[str, ...], tuple[str, ...]]], feats: dict[str, tuple[str, ...]] = {}):
    """The default table with cards changed: ``{model: (traits added, trait keywords removed)}``;
    ``feats``: generic feats a model's table entry adds."""
    cards = {}
    for mid, (add, drop) in changes.items():
        m = next(x for x in TABLE.models if x.id == mid)
        base = get_profile(m.profile)
        n = next(_N)
        card = dataclasses.replace(base, id=f"{base.id}-tt{n}", bs_id=f"test-test-traits-{n}",
                                   traits=tuple(t for t in base.traits if t.keyword not in drop)
                                   + tuple(_trait(t) for t in add))
        cards[mid] = card
    add_profile_source({c.id: c for c in cards.values()}, key=("test_test_traits", next(_N)))
    models = tuple(dataclasses.replace(m, profile=cards[m.id].id if m.id in cards else m.profile,
                                       feats=feats.get(m.id, m.feats)) for m in TABLE.models)
    return dataclasses.replace(TABLE, models=models, _scene=[])


def _game(changes, feats={}, player: int = 1) -> tuple[Game, PhysicalDice]:
    dice = PhysicalDice([6, 1])  # the Tactical test
    g = Game(_table(changes, feats), dice=dice, length=("fixed", 3))
    set_active(g, player)
    return g, dice


def _fear_line(g: Game, who: str = "kenta") -> str:
    return next(line for line in g.log() if f"{who} takes a Fear test" in line)


# Kenta (Ki 2) charges Yatsumata (Fear (6)); without Fearless and his own Leadership
PLAIN_KENTA = ((), ("fearless", "leadership"))


def _charge(changes, rolls, player=1) -> tuple[Game, PhysicalDice]:
    g, dice = _game(changes, player=player)
    dice.feed(rolls)
    g.push(Action("charge", "kenta", target="yatsumata"))
    return g, dice


def test_without_traits_a_five_fails_fear_6():
    """p.29: "Проверки Страха - это проверки-Испытания с использованием показателя Ки
    модели." Kenta rolls two dice (5, 1): 5 < 6, the activation ends without an exchange."""
    g, dice = _charge({"kenta": PLAIN_KENTA}, [5, 1])
    assert "fails" in _fear_line(g) and g.state.exchange is None and dice.remaining == 0


def test_courage_changes_the_fear_test_result():
    """p.50: "Отвага (Courage)(X): при проверке на Страх измените результат на X." The same
    5 with Courage (1) is 6: passed, the Charge reaches its exchange."""
    g, _ = _charge({"kenta": (("Courage (1)",), ("fearless", "leadership"))}, [5, 1])
    line = _fear_line(g)
    assert "passes" in line and "Courage (+1)" in line and g.state.exchange is not None


def test_cowardly_must_reroll_a_passed_fear_test():
    """p.50: "Трусливый (Cowardly): эта модель обязана перебрасывать успешные проверки на
    Страх. Каждая проверка может быть переброшена только один раз." 6 passes, the forced
    re-roll (2, 1) fails."""
    g, dice = _charge({"kenta": (("Cowardly",), ("fearless", "leadership"))}, [6, 1, 2, 1])
    assert "fails" in _fear_line(g) and "Cowardly" in _fear_line(g)
    assert g.state.exchange is None and dice.remaining == 0


def test_cowardly_and_bravery_cancel():
    """p.50: "Если модель с Трусостью приобретает свойство Храбрость, считается, что у нее
    нет ни одного свойства." A pass (6) is not re-rolled."""
    g, dice = _charge({"kenta": (("Cowardly", "Bravery"), ("fearless", "leadership"))}, [6, 1, 1, 1])
    assert "passes" in _fear_line(g) and dice.remaining == 2


def test_leadership_of_a_friend_within_range_adds_to_the_fear_test():
    """p.54: "Лидерство (Leadership) [Ключевое слово] (X/Y): дружественные модели [Ключевое
    слово] в пределах Y" добавляют X к наибольшему значению кубика при прохождении проверки на
    Страх." Ton (5" away) has Leadership [Takashi] (1/6"); Kenta is a Takashi: 5 + 1 = 6."""
    g, _ = _charge({"kenta": PLAIN_KENTA, "ton": (('Leadership [Takashi] (1/6")',), ())}, [5, 1])
    line = _fear_line(g)
    assert "passes" in line and "Leadership (+1) of ton" in line


def test_leadership_for_other_keywords_or_out_of_range_does_not_help():
    """p.54: only "[Ключевое слово]" models "в пределах Y"" add X."""
    g, _ = _charge({"kenta": PLAIN_KENTA, "ton": (('Leadership [Ashigaru] (1/6")',), ())}, [5, 1])
    assert "fails" in _fear_line(g)
    g, _ = _charge({"kenta": PLAIN_KENTA, "ton": (('Leadership [Takashi] (1/2")',), ())}, [5, 1])
    assert "fails" in _fear_line(g)


def test_leadership_counts_the_highest_x_only():
    """p.54: "Если в дальности от нескольких моделей с Лидерством, используйте только самое
    высокое значение X." Ton (1) and Akira (2): +2, not +3; 3 + 2 = 5 fails, 4 + 2 passes."""
    changes = {"kenta": PLAIN_KENTA, "ton": (('Leadership [Takashi] (1/6")',), ()),
               "akira": (('Leadership [Samurai] (2/12")',), ())}
    g, _ = _charge(changes, [3, 1])
    assert "fails" in _fear_line(g) and "Leadership (+2) of akira" in _fear_line(g)
    g, _ = _charge(changes, [4, 1])
    assert "passes" in _fear_line(g)


def test_dread_lowers_the_ki_and_forbids_the_automatic_pass():
    """p.51: "Зловещий (Dread)(X): Модели, проходящие проверку на Страх от этой модели,
    уменьшают свой показатель Ки на X. Это не может уменьшить количество бросаемых кубиков
    ниже 1. Вражеские модели со значением Страх, равным или превышающим значение страха этой
    модели, не проходят автоматически". Kenta with Fear (6) must roll, with one die (Ki 2 - 1)."""
    g, dice = _charge({"kenta": (("Fear (6)",), ("fearless", "leadership")), "yatsumata": (("Dread (1)",), ())},
                      [5, 6, 6])
    line = _fear_line(g)
    assert "fails" in line and "Dread (1)" in line and dice.remaining == 2


def test_own_fear_passes_automatically_without_dread():
    """p.29: "Модели автоматически проходят проверки Страха со значением Испытания, равным
    или ниже, чем их свойство Страшный (X)"."""
    g, dice = _charge({"kenta": (("Fear (6)",), ("fearless", "leadership"))}, [1, 1])
    assert "passes" in _fear_line(g) and "own Fear (6)" in _fear_line(g) and dice.remaining == 2


def test_terror_forces_a_reroll_of_a_pass():
    """p.58: "Ужас (Terror): если модель выполняет проверку на Страх от этой модели, она
    обязана перебросить успешную проверку." 6 passes, the re-roll (3, 1) fails."""
    g, dice = _charge({"kenta": PLAIN_KENTA, "yatsumata": (("Terror",), ())}, [6, 1, 3, 1])
    assert "fails" in _fear_line(g) and "Terror" in _fear_line(g) and dice.remaining == 0


def test_spirit_adds_dice_to_the_fear_test():
    """p.58: "Дух (Spirit)(X): эта модель изменяет свой показатель Ки на X при выполнении
    испытаний Ки"; p.29: "Любые эффекты, действующие на Испытания Ки, также действуют на
    Испытания Страха." Ki 2 + Spirit (1): three dice 5, 1, 2 -> 5 + 1 support = 6."""
    g, dice = _charge({"kenta": (("Spirit (1)",), ("fearless", "leadership"))}, [5, 1, 2])
    assert "passes" in _fear_line(g) and "Spirit (+1)" in _fear_line(g) and dice.remaining == 0


def test_soulless_passes_fear_tests():
    """p.58: "Бездушный (Soulless): эта модель автоматически успешно проходит все проверки
    Страхa"."""
    g, dice = _charge({"kenta": (("Soulless",), ("fearless", "leadership"))}, [1, 1])
    assert "passes" in _fear_line(g) and "Soulless" in _fear_line(g) and dice.remaining == 2


# ----------------------------------------------------------------- opposed Ki tests
def _mind_clash(changes, rolls, target="akira") -> tuple[Game, PhysicalDice]:
    """Masunagi (player 2, active, Ki 2) uses Mind Clash (OKi) on ``target``."""
    g, dice = _game(changes, feats={"masunagi": ("Mind Clash",)}, player=2)
    set_model(g, "masunagi", ki=3)
    dice.feed(rolls)
    a = Action("ki_feat", "masunagi", feat="Mind Clash", target=target)
    ok, why = g.is_legal(a)
    assert ok, why
    g.push(a)
    return g, dice


def _stunned(g: Game, mid: str = "akira") -> bool:
    return "stunned" in g.state.models[mid].conditions


def test_resistance_helps_the_model_that_is_not_active():
    """p.57: "Спротивление (Resistance)(X): эта модель изменяет результат на X, когда
    участвует во встречной проверке Ки и не является активной моделью." Masunagi 4 against
    Akira 4 + Resistance (1): Akira wins; without it the tie goes to the active side (p.27)."""
    g, _ = _mind_clash({}, [4, 1, 4, 1])
    assert not _stunned(g) and any("Resistance (+1)" in line for line in g.log())
    g, _ = _mind_clash({"akira": ((), ("resistance",))}, [4, 1, 4, 1])
    assert _stunned(g)


def test_willpower_helps_the_active_model():
    """p.59: "Сила воли (Willpower)(X): эта модель изменяет на X результат встречных
    проверок Ки, когда он активная модель." 4 + 1 against 4 + 1: the tie goes to the active
    model (p.27)."""
    g, _ = _mind_clash({"masunagi": (("Willpower (1)",), ())}, [4, 1, 4, 1])
    assert _stunned(g)


def test_mettle_makes_the_active_opponent_drop_its_highest_dice():
    """p.55: "Мужество (Mettle)(X): Когда эта модель не активная, при встречной проверке Ки
    атакующий должен удалить X наибольших кубиков". Masunagi's 6 is dropped: 3 against 4."""
    g, _ = _mind_clash({"akira": (("Mettle (1)",), ("resistance",))}, [6, 3, 4, 1])
    assert not _stunned(g)
    g, _ = _mind_clash({"akira": ((), ("resistance",))}, [6, 3, 4, 1])
    assert _stunned(g)


def test_overwhelm_makes_the_opponent_of_the_active_model_drop_its_highest_dice():
    """p.55: "Ошеломление (Overwhelm)(X): Когда эта модель активная, при встречной проверке
    Ки вражеская модель должна удалить X наибольших кубиков". Akira's 6 is dropped."""
    g, _ = _mind_clash({"masunagi": (("Overwhelm (1)",), ()), "akira": ((), ("resistance",))}, [4, 1, 6, 2])
    assert _stunned(g)


def test_mantra_counts_ones_in_opposed_ki_tests():
    """p.55: "Мантра (Mantra): Выполняя встречную проверку Ки, эта модель может использовать
    1 на своих кубиках как значение 1, а не 0. Кубы не удаляются, и каждый может быть
    использован в качестве вспомогательного и для критериев ничьей." Masunagi's 1, 1 = 1 + 1
    support = 2 ties Akira's 2, 1 and wins on dice counted (2 against 1); without Mantra its
    two 1s are removed and Akira wins."""
    g, _ = _mind_clash({"masunagi": (("Mantra",), ()), "akira": ((), ("resistance",))}, [1, 1, 2, 1])
    assert _stunned(g)
    g, _ = _mind_clash({"akira": ((), ("resistance",))}, [1, 1, 2, 1])
    assert not _stunned(g)


def test_spirit_adds_dice_to_an_opposed_ki_test():
    """p.58: Spirit (X) changes the Ki "при выполнении испытаний Ки". Masunagi with Spirit
    (1) rolls three dice."""
    g, dice = _mind_clash({"masunagi": (("Spirit (1)",), ()), "akira": ((), ("resistance",))}, [4, 4, 1, 5, 1])
    assert _stunned(g) and dice.remaining == 0  # 4 + 1 support = 5 against 5: more dice counted wins


def test_soulless_passes_ki_tests_when_not_active():
    """p.58: "Эта модель также автоматически успешно проходит все проверки Ки, когда она не
    Активная." Yatsumata (Soulless) resists without dice."""
    g, dice = _game({}, feats={"kenta": ("Mind Clash",)}, player=1)
    set_model(g, "kenta", ki=3)
    dice.feed([6, 6, 6, 6])
    a = Action("ki_feat", "kenta", feat="Mind Clash", target="yatsumata")
    set_model(g, "kenta", position=[21.2, 14.0])  # within the feat's 4"
    ok, why = g.is_legal(a)
    assert ok, why
    g.push(a)
    assert not _stunned(g, "yatsumata") and dice.remaining == 4
    assert any("Soulless" in line for line in g.log())


# ----------------------------------------------------------------- Size tests
def test_swarm_rolls_one_die_fewer_in_size_tests():
    """p.28: "Рой (Swarm) -1" in the Size test table; p.44: an Immobilised model "должна
    пройти проверку Размера (6)" before it moves. Kenta (Small: 2 dice) with Swarm rolls one."""
    g, dice = _game({"kenta": (("Swarm",), ())})
    set_model(g, "kenta", conditions={"immobilised": 1})
    dice.feed([6, 6])
    g.push(Action("walk", "kenta", point=(21.5, 8.0)))
    assert dice.remaining == 1 and "immobilised" not in g.state.models["kenta"].conditions
    assert any("Size (6) test (Swarm) passed" in line for line in g.log())


# ----------------------------------------------------------------- Intimidate (Starting phase)
def _intimidating_kenta() -> tuple[Game, PhysicalDice]:
    """Kenta (player 1, Ki 2) with Intimidate; player 1 wins the Tactical test."""
    dice = PhysicalDice([6, 1])
    g = Game(_table({"kenta": (("Intimidate",), ("resistance",))}), dice=dice, length=("fixed", 3))
    return g, dice


def test_intimidate_is_offered_in_the_starting_phase():
    """p.54: "Запугивание (Intimidate): Во время Начальной фазы эта модель может указать
    вражескую модель в 8"." The game waits for the choice: targets within 8" and declining;
    no other action is legal meanwhile."""
    g, _ = _intimidating_kenta()
    assert g.state.phase == "start" and g.state.active == 1
    offered = g.legal_actions()
    assert offered and all(a.kind == "intimidate" and a.model == "kenta" for a in offered)
    assert Action("intimidate", "kenta") in offered and Action("intimidate", "kenta", target="masunagi") in offered
    assert Action("intimidate", "kenta", target="ishi") not in offered  # 13" away
    assert not g.is_legal(Action("intimidate", "kenta", target="ishi"))[0]
    assert not g.is_legal(Action("walk", "kenta", point=(21.5, 8.0)))[0]
    g.push(Action("intimidate", "kenta"))  # declined: the Main phase starts
    assert g.state.phase == "main" and "intimidate_offer" not in g.state.models["kenta"].conditions


def test_a_won_intimidate_makes_the_target_cowardly_and_unable_to_attack_until_the_end_phase():
    """p.54: "Выполните встречную проверку Ки против цели. Если эта модель побеждает, цель
    получает Трусость, теряет Агрессивность и не может выбирать или указывать эту модель целью
    Рукопашной, Нападения или Стрельбы до Завершающей фазы." Kenta 6 against Masunagi 2."""
    g, dice = _intimidating_kenta()
    dice.feed([6, 1, 2, 1])
    g.push(Action("intimidate", "kenta", target="masunagi"))
    assert dice.remaining == 0 and g.state.phase == "main"
    card = g.profile("masunagi")
    assert card is not None and card.has_trait("cowardly")
    set_active(g, 2)
    set_model(g, "masunagi", position=[20.0, 11.6])  # next to Kenta
    ok, why = g.is_legal(Action("melee", "masunagi", target="kenta"))
    assert not ok and "Intimidated" in why


def test_a_lost_intimidate_does_nothing_and_soulless_targets_resist_without_dice():
    """p.58: Soulless "автоматически успешно проходит все проверки Ки, когда она не Активная"
    (no model is active in the Starting phase)."""
    g, dice = _intimidating_kenta()
    dice.feed([6, 6, 6])
    g.push(Action("intimidate", "kenta", target="yatsumata"))
    assert dice.remaining == 3
    card = g.profile("yatsumata")
    assert card is not None and not card.has_trait("cowardly")
    assert any("Soulless" in line and "kenta loses" in line for line in g.log())


def test_bots_answer_the_intimidate_choice_and_play_on():
    """The Starting phase choice is a legal action like any other: the greedy bot picks a
    target (never a Soulless one), the random bot any offer, and the game plays to its end."""
    from sim.rules.bots import GreedyBot, RandomBot, play

    for bots in ((GreedyBot(3), GreedyBot(4)), (RandomBot(5), RandomBot(6))):
        g = Game(_table({"kenta": (("Intimidate",), ()), "masunagi": (("Intimidate",), ())}), seed=2,
                 length=("fixed", 2))
        play(g, bots, max_actions=400)
        assert g.is_over()
        lines = g.log()
        assert any("Intimidates" in line or "does not Intimidate" in line for line in lines)
        assert not any("Intimidates yatsumata" in line for line in lines) or isinstance(bots[0], RandomBot)


def test_a_frightened_model_fails_fear_tests_in_the_main_phase():
    """p.44: "Во время основной фазы Испуганные модели автоматически проваливают проверки
    Страх." Yatsumata (Fear (6)) charges a Frightened Kenta: no dice, Kenta fails (and stays
    Frightened)."""
    g, dice = _game({"kenta": PLAIN_KENTA}, player=2)
    set_model(g, "kenta", conditions={"frightened": 6})
    dice.feed([6, 6])
    a = Action("charge", "yatsumata", target="kenta")
    ok, why = g.is_legal(a)
    assert ok, why
    g.push(a)
    line = _fear_line(g)
    assert "fails" in line and "Frightened" in line and dice.remaining == 2
    assert "frightened" in g.state.models["kenta"].conditions


def test_strong_adds_a_size_test_die_but_strong_melee_does_not():
    """p.28: "Сильный (Strong) +1" in the Size test table; p.48 example: "Сильный [Рукопашная]
    применяет свойство Сильный только к броскам урона в рукопашной." Kenta (Small: 2 dice)
    Immobilised: Strong rolls 3 dice, Strong [Melee] 2."""
    for text, n in (("Strong", 3), ("Strong [Melee]", 2)):
        g, dice = _game({"kenta": ((text,), ())})
        set_model(g, "kenta", conditions={"immobilised": 1})
        dice.feed([6, 6, 6, 6])
        g.push(Action("walk", "kenta", point=(21.5, 8.0)))
        assert dice.remaining == 4 - n, text
