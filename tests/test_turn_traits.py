"""Traits of the turn, the activation and the End phase (issue 13), through the public
:class:`~sim.rules.game.Game` API: Jump Up, Kami, Rise, Last Stand, Regenerate, Heal,
Cultist, Impetuous, Banzai!. Each test quotes the card text of the Russian rulebook."""

from __future__ import annotations

import dataclasses
import json

from models.profiles import Trait, add_profile_source, get_profile
from sim.rules.game import Action, Game
from sim.table import load_table

TABLE = load_table()


def _with(cards: dict[str, list[Trait]], table=TABLE):
    """The default table with extra traits on some models' cards: ``{model id: [Trait]}``."""
    models = []
    for m in table.models:
        extra = cards.get(m.id)
        if extra:
            base = get_profile(m.profile)
            cid = base.id + "-" + "-".join(t.keyword + str(t.value or "") for t in extra)
            card = dataclasses.replace(base, id=cid, bs_id=f"test-{cid}", traits=base.traits + tuple(extra))
            add_profile_source({cid: card}, key=("test_turn_traits", cid))
            m = dataclasses.replace(m, profile=cid)
        models.append(m)
    return dataclasses.replace(table, models=tuple(models), _scene=[])


def T(keyword: str, value: int | None = None, text: str | None = None) -> Trait:
    return Trait(keyword, value, None, text or (keyword.replace("_", " ").title() + (f" ({value})" if value else "")))


def _at(g: Game, **models) -> Game:
    """Set player 1 active in the Main phase with the given model entries changed."""
    pos = g.position()
    pos.update(phase="main", active=1)
    for mid, entry in models.items():
        pos["models"][mid].update(entry)
    g.set_position(pos)
    return g


# ---------------------------------------------------------------- Jump Up (p.54)
def test_jump_up_removes_prone_before_the_action_and_the_model_then_walks():
    # p.54: "Подскок (Jump Up): в начале активации этой модели, но до того, как объявлено ее
    # действие, вы можете удалить с неё любые маркеры «Сбит с ног»."
    g = _at(Game(_with({"matsu": [T("jump_up")]}), seed=1, length=("fixed", 3)),
            matsu={"conditions": {"prone": 1}, "counters": 2}, akira={"conditions": {"prone": 1}, "counters": 2})
    offered = g.legal_actions()
    assert Action("jump_up", "matsu") in offered
    assert Action("jump_up", "akira") not in offered  # no Jump Up on Akira's card
    assert not g.is_legal(Action("walk", "matsu", point=(4.5, 8.0)))[0]  # still Prone
    g.push(Action("jump_up", "matsu"))
    st = g.state.models["matsu"]
    assert "prone" not in st.conditions and st.counters == 2 and g.state.active == 1
    # its activation has started: no other model activates before it declares its action
    assert not g.is_legal(Action("wait", "kokkio"))[0]
    assert all(a.model in (None, "matsu") for a in g.legal_actions())
    g.push(Action("walk", "matsu", point=(4.5, 8.0)))
    assert g.state.models["matsu"].position == (4.5, 8.0)
    assert "stood_up" not in g.state.models["matsu"].conditions  # no Stand Up, no -1 Melee
    assert "activating" not in g.state.models["matsu"].conditions


def test_jump_up_refused_without_the_trait_or_when_not_prone():
    g = _at(Game(_with({"matsu": [T("jump_up")]}), seed=1, length=("fixed", 3)), matsu={"counters": 2})
    assert not g.is_legal(Action("jump_up", "matsu"))[0]
    g = _at(Game(TABLE, seed=1, length=("fixed", 3)), matsu={"conditions": {"prone": 1}, "counters": 2})
    ok, why = g.is_legal(Action("jump_up", "matsu"))
    assert not ok and "Jump Up" in why


# ---------------------------------------------------------------- Regenerate (p.57)
def test_regenerate_heals_x_wounds_in_the_end_phase():
    # p.57: "Регенерация (Regenerate)(X): эта модель лечит X ран во время Завершающей фазы."
    g = Game(_with({"matsu": [T("regenerate", 2)]}), seed=2, length=("fixed", 3))
    pos = g.position()
    pos["phase"], pos["active"] = "main", 1
    for mid, m in pos["models"].items():
        m["counters"] = 1 if mid == "matsu" else 0
    pos["models"]["matsu"]["damage"] = 3
    pos["models"]["akira"]["damage"] = 2
    g.set_position(pos)
    g.push(Action("wait", "matsu"))  # the last counter: the End phase follows
    assert g.state.turn == 2
    assert g.state.models["matsu"].damage == 1 and g.state.models["akira"].damage == 2
    assert any(e.kind == "healed" and e.data["model"] == "matsu" and e.data["n"] == 2 for e in g.events)


# ---------------------------------------------------------------- Kami (p.54)
def test_kami_starts_with_full_ki_and_loses_ki_instead_of_wounds():
    # p.54: "Ками (Kami): При выставлении эта модель получает жетоны Ки, равные ее
    # максимальному Ки. Когда эта модель получает раны, вместо этого удалите равное
    # количество жетонов Ки. ... Если у этой модели нет жетонов Ки, она удаляется из игры."
    table = _with({"matsu": [T("kami")]})
    g = Game(table, seed=3, length=("fixed", 3))
    m = g.state.models["matsu"]
    assert m.kami and m.ki == m.ki_limit
    ki = m.ki
    g.wound("matsu", 2)
    m = g.state.models["matsu"]
    assert m.ki == ki - 2 and m.damage == 0 and m.alive
    g.wound("matsu", m.ki)
    assert not g.state.models["matsu"].alive


def test_kami_cannot_be_healed_and_gets_no_poison():
    # p.54: "Эта модель имеет Иммунитет (Яд, Огонь, Кровотечение, Болезнь) и не может быть излечена."
    g = _at(Game(_with({"matsu": [T("kami"), T("regenerate", 1)]}), seed=3, length=("fixed", 3)),
            matsu={"ki": 2})
    assert g.heal_refusal("matsu") is not None
    g.gain_condition("matsu", "diseased")
    assert "diseased" not in g.state.models["matsu"].conditions


# ---------------------------------------------------------------- Rise (p.57)
def _rise_game(seed: int, marker: str):
    g = Game(_with({"matsu": [T("rise", 4)]}), seed=seed, length=("fixed", 3))
    pos = g.position()
    pos["phase"], pos["active"] = "main", 1
    for mid, m in pos["models"].items():
        m["counters"] = 1 if mid == "matsu" else 0
    w = g.state.models["matsu"].wounds
    pos["models"]["matsu"].update(damage=w - 1, markers={marker: [2]})
    g.set_position(pos)
    g.push(Action("wait", "matsu", special="none"))
    return g


def test_rise_test_at_zero_wounds_heals_and_makes_prone_or_removes():
    # p.57: "Воскрешение (Rise)(X): когда эта модель уменьшена до 0 ран, немедленно проведите
    # проверку со значением испытания X. В случае успеха модель излечивает все раны и
    # становится Сбитой с ног. При провале удалите модель из игры как обычно."
    # p.28: "Если показатель не указан, то Испытательная проверка проводится с использованием одного D6."
    seen = set()
    for seed in range(40):
        g = _rise_game(seed, "poison")
        test = [e for e in g.events if e.kind == "test" and e.data["test"] == "rise"]
        assert len(test) == 1 and test[0].data["tn"] == 4
        m = g.state.models["matsu"]
        if test[0].data["passed"]:
            assert m.damage == 0 and "prone" in m.conditions
            assert not m.killed
        else:
            assert m.killed
        seen.add(test[0].data["passed"])
        if len(seen) == 2:
            break
    assert seen == {True, False}


def test_rise_is_not_used_after_fire_in_the_end_phase():
    # p.57: "Модели не могут использовать это свойство, если их последнее ранение было
    # вызвано состоянием Огня в Завершающей фазе."
    g = _rise_game(0, "fire")
    assert not any(e.kind == "test" and e.data["test"] == "rise" for e in g.events)
    assert g.state.models["matsu"].killed


# ---------------------------------------------------------------- Last Stand (p.54)
def test_last_stand_model_at_zero_wounds_still_activates_and_is_removed_in_the_end_phase():
    # p.54: "Последний рубеж (Last Stand): если эта модель уменьшена до 0 ран, она все еще
    # может быть активирована до конца хода и не будет удалена из игры. ... Во время
    # Завершающей фазы модель удаляется из игры."
    g = Game(_with({"matsu": [T("last_stand"), T("regenerate", 1)]}), seed=4, length=("fixed", 3))
    g.wound("matsu", g.state.models["matsu"].wounds)
    assert g.state.models["matsu"].alive
    pos = g.position()
    pos["phase"], pos["active"] = "main", 1
    for mid, m in pos["models"].items():
        m["counters"] = 1 if mid == "matsu" else 0
    g.set_position(pos)
    # "не может восстанавливать раны ... после того, как ее раны были уменьшены до 0"
    assert g.heal_refusal("matsu") is not None
    g.push(Action("walk", "matsu", point=(4.5, 8.0)))
    assert g.state.models["matsu"].position == (4.5, 8.0)
    assert g.state.turn == 2 and g.state.models["matsu"].killed
    assert not any(e.kind == "healed" and e.data["model"] == "matsu" for e in g.events)


# ---------------------------------------------------------------- Heal (p.52)
def test_heal_walks_into_contact_and_heals_x_wounds():
    # p.52: "Лечение (Heal)(X): эта модель может объявить простое действие Лечение и прийти в
    # контакт к другой не-Бездушной модели, перемещаясь на свой показатель Движения. Если в
    # конце своего движения она находится в контакте с выбранной моделью, то Лечит X
    # отмеченных ран выбранной модели."
    g = _at(Game(_with({"kazuha": [T("heal", 2)]}), seed=5, length=("fixed", 3)),
            kazuha={"counters": 2}, kokkio={"damage": 3, "counters": 2})
    offers = [a for a in g.legal_actions() if a.kind == "heal"]
    assert any(a.target == "kokkio" and a.point is not None for a in offers)
    a = next(a for a in offers if a.target == "kokkio")
    g.push(a)
    assert g.state.models["kokkio"].damage == 1
    assert g.state.models["kazuha"].counters == 1  # a Simple action
    assert g.state.models["kazuha"].position != (8.8, 7.6)


def test_heal_itself_without_moving():
    # p.52: "Эта модель может выбрать Лечить себя, в таком случае она не может двигаться."
    g = _at(Game(_with({"kazuha": [T("heal", 1)]}), seed=5, length=("fixed", 3)),
            kazuha={"counters": 2, "damage": 2})
    assert not g.is_legal(Action("heal", "kazuha", target="kazuha", point=(8.8, 8.6)))[0]
    g.push(Action("heal", "kazuha", target="kazuha"))
    assert g.state.models["kazuha"].damage == 1 and g.state.models["kazuha"].position == (8.8, 7.6)


def test_heal_refuses_a_soulless_model():
    g = _at(Game(_with({"kazuha": [T("heal", 1)], "kokkio": [T("soulless")]}), seed=5, length=("fixed", 3)),
            kazuha={"counters": 2}, kokkio={"damage": 2})
    ok, why = g.is_legal(Action("heal", "kazuha", target="kokkio", point=(7.6, 10.0)))
    assert not ok and "Soulless" in why


# ---------------------------------------------------------------- Cultist (p.50)
def test_cultist_wounds_friendly_cultists_for_ki_within_its_x():
    # p.50: "Культист (Cultist)(X): Когда эта модель активируется, она может нанести до X ран
    # любой дружественной модели (моделям), включая себя, которые имеют это свойство, не
    # более её значения X. ... Эта модель получает жетоны Ки, равные количеству нанесенных
    # ран. ... Эти раны игнорируют Живучесть."
    g = _at(Game(_with({"matsu": [T("cultist", 2)], "kokkio": [T("cultist", 1), T("tough", 1)]}),
                 seed=6, length=("fixed", 3)),
            matsu={"counters": 2, "ki": 0}, kokkio={"counters": 2})
    offers = g.legal_actions()
    assert Action("cultist", "matsu", target="kokkio", x=1) in offers
    assert Action("cultist", "matsu", target="akira", x=1) not in offers  # no Cultist on Akira
    assert not g.is_legal(Action("cultist", "matsu", target="kokkio", x=2))[0]  # Kokkio's own X is 1
    g.push(Action("cultist", "matsu", target="kokkio", x=1))
    assert g.state.models["kokkio"].damage == 1  # Tough ignored
    assert g.state.models["matsu"].ki == 1 and g.state.active == 1
    g.push(Action("cultist", "matsu", target="matsu", x=1))
    assert g.state.models["matsu"].damage == 1 and g.state.models["matsu"].ki == 2
    assert not g.is_legal(Action("cultist", "matsu", target="matsu", x=1))[0]  # X = 2 dealt
    assert not g.is_legal(Action("wait", "kokkio"))[0]  # Matsu's activation has started
    g.push(Action("wait", "matsu"))
    assert g.state.models["matsu"].counters == 1


# ---------------------------------------------------------------- Impetuous (p.54)
def test_impetuous_x_markers_in_the_starting_phase_and_fearless_while_marked():
    # p.54: "Порывистый (Impetuous)(X): Если эта модель на поле битвы в начальной фазе, она
    # получает X маркеров «Порывистый». Пока у этой модели есть маркеры «Порывистый», она
    # имеет свойство Бесстрашие."
    g = Game(_with({"matsu": [T("impetuous", 2)]}), seed=7, length=("fixed", 3))
    assert g.state.models["matsu"].conditions.get("impetuous") == 2
    g.gain_condition("matsu", "frightened", value=6)  # Fearless: Immune [Frightened]
    assert "frightened" not in g.state.models["matsu"].conditions


# ---------------------------------------------------------------- Banzai! (p.49)
def test_banzai_charge_is_a_simple_action():
    # p.49: "Банзай! (Banzai!): Эта модель может выполнять Действие Нападение как базовое
    # простое действие, а не сложное."
    g = _at(Game(_with({"akira": [T("banzai", text="Banzai!")]}), seed=8, length=("fixed", 3)),
            akira={"counters": 1})
    charges = [a for a in g.legal_actions() if a.kind == "charge" and a.model == "akira"]
    assert charges
    assert g.is_legal(charges[0])[0]
    g.push(charges[0])
    assert g.state.models["akira"].counters == 0 or g.state.exchange is not None
    plain = _at(Game(TABLE, seed=8, length=("fixed", 3)), akira={"counters": 1})
    assert not any(a.kind == "charge" and a.model == "akira" for a in plain.legal_actions())


# ---------------------------------------------------------------- Booted (p.50)
def _flank_turn_two(cards):
    g = Game(_with(cards), seed=3, elsewhere={"masunagi": (2, "east", "south")}, length=("fixed", 3))
    g.set_position({"turn": 1, "phase": "main", "active": 1,
                    "models": {"akira": {"position": [12.0, 12.0], "facing": 90.0, "counters": 1}}})
    g.push(Action("wait", "akira"))
    return g


def test_booted_model_walks_at_once_when_it_arrives_from_the_flank():
    # p.50: "Пинок (Booted): когда эта модель выставляется из флангового обхода, она может
    # немедленно совершить Ходьбу."
    g = _flank_turn_two({"masunagi": [T("booted")]})
    offered = g.legal_actions()
    walks = [a for a in offered if a.kind == "arrive" and a.path]
    assert walks and all(a.kind == "arrive" for a in offered)
    x0 = 24.0 - g.table.model("masunagi").radius
    a = Action("arrive", "masunagi", point=(x0, 18.0), facing=180.0, path=((x0 - 3.0, 18.0),))
    assert g.is_legal(a)[0]
    g.push(a)
    m = g.state.models["masunagi"]
    assert m.position == (x0 - 3.0, 18.0) and m.counters == 2 and g.state.phase == "main"
    # a Walk into an enemy's zone of control is refused as any Walk (p.24)
    g2 = _flank_turn_two({"masunagi": [T("booted")]})
    ok, why = g2.is_legal(Action("arrive", "masunagi", point=(x0, 12.0), facing=180.0, path=((x0 - 3.0, 12.0),)))
    assert not ok and "Booted Walk" in why


def test_an_arrival_walk_without_booted_is_refused():
    g = _flank_turn_two({})
    x0 = 24.0 - g.table.model("masunagi").radius
    assert not any(a.path for a in g.legal_actions())
    ok, why = g.is_legal(Action("arrive", "masunagi", point=(x0, 12.0), facing=180.0, path=((x0 - 3.0, 12.0),)))
    assert not ok and "Booted" in why


# ---------------------------------------------------------------- Fortune (p.52)
def test_fortune_offers_the_coin_toss_at_ki_generation_and_doubles_or_cancels_the_ki():
    # p.52: "Удача (Fortune): Во время генерации Ки, контролирующий игрок может подбросить
    # монету, загадав орла или решку. При успехе удвойте количество полученных жетонов Ки;
    # если нет, то эта модель вовсе не получает жетонов Ки."
    seen = set()
    for seed in range(30):
        g = Game(_with({"matsu": [T("fortune")]}), seed=seed, length=("fixed", 3))
        assert g.state.phase == "start" and g.to_move() == 1
        assert set(g.legal_actions()) == {Action("fortune", "matsu", special="toss"), Action("fortune", "matsu")}
        assert not g.is_legal(Action("wait", "matsu"))[0]
        ki_stat = g.state.models["matsu"].ki_stat
        g.push(Action("fortune", "matsu", special="toss"))
        toss = next(e for e in g.events if e.kind == "test" and e.data["test"] == "fortune")
        ki = next(e for e in g.events if e.kind == "ki")
        assert ki.data["gains"]["matsu"] == (2 * ki_stat if toss.data["passed"] else 0)
        assert g.state.phase == "main"
        seen.add(toss.data["passed"])
        if len(seen) == 2:
            break
    assert seen == {True, False}
    g = Game(_with({"matsu": [T("fortune")]}), seed=0, length=("fixed", 3))
    g.push(Action("fortune", "matsu"))  # declined: the usual Ki
    assert next(e for e in g.events if e.kind == "ki").data["gains"]["matsu"] == g.state.models["matsu"].ki_stat


# ---------------------------------------------------------------- Oni Rage (p.55)
def test_oni_rage_may_become_berserk_in_the_starting_phase_for_two_ki_and_is_tougher():
    # p.55: "Ярость они (Oni Rage): когда эта модель имеет состояние Берсерк, она получает
    # Живучесть (+1). В фазе начала хода эта модель на поле боя может получить состояние
    # Берсерк. Если она делает это, получает 2 жетона Ки."
    g = Game(_with({"ishi": [T("oni_rage")]}), seed=1, length=("fixed", 3))
    assert set(g.legal_actions()) == {Action("oni_rage", "ishi", special="berserk"), Action("oni_rage", "ishi")}
    ki = g.state.models["ishi"].ki
    tough = g.profile("ishi").trait("tough")
    g.push(Action("oni_rage", "ishi", special="berserk"))
    m = g.state.models["ishi"]
    assert "berserk" in m.conditions and m.ki == min(m.ki_limit, ki + 2) and g.state.phase == "main"
    t = g.profile("ishi").trait("tough")
    assert t is not None and int(t.value) == (int(tough.value) if tough else 0) + 1
    g2 = Game(_with({"ishi": [T("oni_rage")]}), seed=1, length=("fixed", 3))
    g2.push(Action("oni_rage", "ishi"))
    assert "berserk" not in g2.state.models["ishi"].conditions and g2.profile("ishi").trait("tough") == tough


# ---------------------------------------------------------------- Strategy [B] (p.58)
def test_strategy_bonus_when_its_player_wins_the_tactical_roll():
    # p.58: "Стратегия (Strategy) [Бонус]: всякий раз, когда вы выигрываете Tактический
    # бросок, эта модель получает бонус в скобках."
    cards = {"akira": [Trait("strategy", None, "+1 ki token", "Strategy [+1 Ki Token]")],
             "ishi": [Trait("strategy", None, "+1 ki token", "Strategy [+1 Ki Token]")],
             "matsu": [Trait("strategy", None, "durable, mettle (1)", "Strategy [Durable, Mettle (1)]")],
             "kokkio": [Trait("strategy", None, "+1 pass token", "Strategy [+1 Pass Token]")]}
    for seed in range(6):
        g = Game(_with(cards), seed=seed, length=("fixed", 3))
        winner = next(e for e in g.events if e.kind == "tactical").data["winner"]
        gains = next(e for e in g.events if e.kind == "ki").data["gains"]
        mine, theirs = ("akira", "ishi") if winner == 1 else ("ishi", "akira")
        m = g.state.models[mine]
        assert m.ki == min(m.ki_limit, gains[mine] + 1)
        assert g.state.models[theirs].ki == gains[theirs]
        if winner == 1:
            assert g.profile("matsu").trait("durable") is not None and g.profile("matsu").trait("mettle") is not None
            tokens = next(e for e in g.events if e.kind == "pass_tokens").data["tokens"]["1"]
            assert g.state.pass_tokens[1] == tokens + 1
        else:
            assert g.profile("matsu").trait("durable") is None


# ---------------------------------------------------------------- bots and replays
def test_bots_play_a_game_with_the_turn_traits_and_it_replays():
    from sim.rules.bots import GreedyBot, RandomBot, play
    from sim.rules.invariants import game_problems

    cards = {"akira": [T("banzai", text="Banzai!"), T("fortune")], "matsu": [T("jump_up"), T("heal", 1)],
             "kokkio": [T("cultist", 1)], "kazuha": [T("cultist", 2), T("regenerate", 1)],
             "ishi": [T("oni_rage"), T("rise", 4)], "masunagi": [T("kami")], "asp": [T("last_stand")],
             "nanako": [T("impetuous", 1)], "kenta": [Trait("cavalry", 3, None, 'Cavalry (3")')],
             "kaihime": [Trait("strategy", None, "+1 ki token", "Strategy [+1 Ki Token]")]}
    for bots in ((GreedyBot(1), GreedyBot(2)), (RandomBot(3), GreedyBot(4))):
        g = Game(_with(cards), seed=11, length=("fixed", 3))
        play(g, bots)
        assert g.is_over() and not game_problems(g)
        assert g.replay().snapshot() == g.snapshot()
        loaded = Game.from_save(json.loads(json.dumps(g.to_json())))  # verified: every action re-simulated
        assert loaded.verified and loaded.snapshot() == g.snapshot()


# ---------------------------------------------------------------- Group (p.52)
def _two_asps():
    """The default table with a second Asp (the Asp card has Group) near Kokkio."""
    asp = next(m for m in TABLE.models if m.id == "asp")
    models = TABLE.models + (dataclasses.replace(asp, id="asp-2", position=(9.0, 14.0)),)
    table = dataclasses.replace(TABLE, models=models, _scene=[])
    g = Game(table, seed=12, length=("fixed", 3))
    pos = g.position()
    pos["phase"], pos["active"] = "main", 2
    for mid, m in pos["models"].items():
        m["counters"] = 2 if mid in ("asp", "asp-2", "ishi", "matsu") else 0
    pos["models"]["asp"].update(position=[4.5, 8.0], facing=270.0)
    pos["models"]["asp-2"].update(position=[8.0, 10.5], facing=180.0)
    g.set_position(pos)
    return g


def test_group_models_activate_together_one_after_the_other():
    # p.52: "Группа (Group): Все модели, представленные этой карточкой профиля, активируются
    # в одной активации."
    g = _two_asps()
    g.push(Action("walk", "asp", point=(3.5, 9.0)))
    assert g.state.active == 2 and g.state.models["asp-2"].conditions.get("group_pending") == 1
    assert not g.is_legal(Action("wait", "ishi"))[0] and not g.is_legal(Action("pass"))[0]
    assert {a.model for a in g.legal_actions()} == {"asp-2"}
    g.push(Action("wait", "asp-2"))
    assert g.state.active == 1 and not g.group_pending()


def test_group_models_all_move_before_any_exchange_in_the_order_their_player_chooses():
    # p.52: "Каждая модель на этой карточке профиля выполняет любое движение до выполнения
    # любых Обменов ударами. Обмены ударами затем отыгрываются в порядке, выбранном
    # контролирующим игроком."
    g = _two_asps()
    g.push(Action("melee", "asp", target="matsu"))
    assert g.state.exchange is None and g.group_fights() == ["asp"]  # held back: asp-2 has not moved
    g.push(Action("melee", "asp-2", target="kokkio"))
    assert g.state.exchange is None and g.to_move() == 2
    assert set(g.legal_actions()) == {Action("group_fight", "asp"), Action("group_fight", "asp-2")}
    assert not g.is_legal(Action("wait", "ishi"))[0]
    pos = g.position()  # the held-back exchanges are part of the position
    assert Game(g.table, seed=12, length=("fixed", 3), position=pos).position() == pos
    g.push(Action("group_fight", "asp-2"))  # its player fights asp-2's exchange first
    assert g.state.exchange is not None and g.state.exchange["attacker"] == "asp-2"
    order = ["asp-2"]
    while not g.is_over() and (g.state.exchange is not None or g.group_fights()):
        if g.state.exchange is not None and g.state.exchange["attacker"] not in order:
            order.append(g.state.exchange["attacker"])
        g.push(next(a for a in g.legal_actions() if a.kind in ("allocate", "group_fight")))
    assert order == ["asp-2", "asp"]
    assert sum(1 for e in g.events if e.kind == "exchange") == 2 and g.state.active == 1


# ---------------------------------------------------------------- Cavalry (X") (p.50)
def test_cavalry_moves_x_before_or_after_its_action():
    # p.50: "Кавалерия (Cavalry)(X"): до или после того, как эта модель выполнит какое-либо
    # действие, она может пройти X"."
    cav = Trait("cavalry", 3, None, 'Cavalry (3")')
    g = _at(Game(_with({"matsu": [cav]}), seed=13, length=("fixed", 3)), matsu={"counters": 2})
    before = [a for a in g.legal_actions() if a.kind == "cavalry"]
    assert before and all(a.model == "matsu" and a.point is not None for a in before)
    assert not g.is_legal(Action("cavalry", "matsu", point=(4.5, 10.0)))[0]  # 4": more than X
    g.push(Action("cavalry", "matsu", point=(4.5, 8.5)))
    assert g.state.models["matsu"].position == (4.5, 8.5) and g.state.active == 1
    assert not g.is_legal(Action("cavalry", "matsu", point=(4.5, 9.0)))[0]  # once before the action
    assert not g.is_legal(Action("wait", "kokkio"))[0]  # matsu's activation has started
    g.push(Action("wait", "matsu"))
    # after the action: its player chooses a move of X" or none, and the game waits for it
    assert g.to_move() == 1 and Action("cavalry", "matsu") in g.legal_actions()
    assert not g.is_legal(Action("wait", "kokkio"))[0]
    g.push(Action("cavalry", "matsu", point=(4.5, 6.0)))
    assert g.state.models["matsu"].position == (4.5, 6.0) and g.state.active == 2


def test_a_model_without_cavalry_has_no_cavalry_move():
    g = _at(Game(TABLE, seed=13, length=("fixed", 3)), matsu={"counters": 2})
    assert not any(a.kind == "cavalry" for a in g.legal_actions())
    g.push(Action("wait", "matsu"))
    assert g.state.active == 2


def test_bots_play_a_game_with_a_group_card_and_it_replays():
    from sim.rules.bots import GreedyBot, RandomBot, play
    from sim.rules.invariants import game_problems

    asp = next(m for m in TABLE.models if m.id == "asp")
    asp2 = dataclasses.replace(asp, id="asp-2", position=(8.0, 22.5))
    table = dataclasses.replace(TABLE, models=TABLE.models + (asp2,), _scene=[])
    for bots in ((GreedyBot(1), GreedyBot(2)), (RandomBot(5), RandomBot(6))):
        g = Game(table, seed=14, length=("fixed", 3))
        play(g, bots)
        assert g.is_over() and not game_problems(g)
        assert any(e.kind == "condition" and e.data["name"] == "group_pending" for e in g.events)
        assert g.replay().snapshot() == g.snapshot()
        assert Game.from_save(json.loads(json.dumps(g.to_json()))).snapshot() == g.snapshot()


def test_the_melee_exchange_counts_a_kamis_ki_and_never_kills_last_stand_or_rise_at_once():
    # p.54 (Kami): "камы считает свои жетоны Ки, как если бы они были неотмеченными клетками
    # ран"; Last Stand and Rise act after the exchange (the model is not removed at once).
    g = _at(Game(_with({"matsu": [T("kami")], "kokkio": [T("last_stand")], "kazuha": [T("rise", 3)]}),
                 seed=15, length=("fixed", 3)), matsu={"ki": 3})
    assert g.combatant("matsu", False).wounds_left == 3
    assert g.combatant("kokkio", False).wounds_left is None
    assert g.combatant("kazuha", False).wounds_left is None
    assert g.combatant("akira", False).wounds_left == g.state.models["akira"].wounds


def test_a_cultist_that_wounds_itself_to_death_ends_its_activation_and_the_turn_goes_on():
    # p.50: Cultist wounds "любой дружественной модели (моделям), включая себя"; a model killed
    # at the start of its activation declares nothing: the other player acts next (p.21), or the
    # End phase comes when nobody can (found by fuzz seed 806: player 2 was left active with
    # no model able to act and no pass token).
    g = _at(Game(_with({"matsu": [T("cultist", 2)]}), seed=6, length=("fixed", 3)),
            matsu={"counters": 2, "ki": 0, "damage": 4})
    left = g.state.models["matsu"].wounds - g.state.models["matsu"].damage
    assert left == 1
    g.push(Action("cultist", "matsu", target="matsu", x=1))
    assert not g.state.models["matsu"].alive
    assert g.state.active == 2 and g.to_move() == 2
    assert any(g.is_legal(a)[0] for a in g.legal_actions())  # player 2 has a real decision
    assert "its activation ends" in "\n".join(g.log()[-3:])
