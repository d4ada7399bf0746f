"""Answers and group activations (issue 13), through the public :class:`~sim.rules.game.Game`
API: Blood of Orochi (p.49), Pack (p.55), Bodyguard (p.49), Sacrifice (p.57), Protected
(p.56), In Defiance of the Gods (catalogue). Each test quotes the card text."""

from __future__ import annotations

import dataclasses

import pytest

from models.profiles import Trait, add_profile_source, get_profile
from sim.rules.game import Action, Game, GameError
from sim.table import load_table

TABLE = load_table()


def _with(cards: dict[str, list[Trait]], table=TABLE, **fields):
    """The default table with extra traits on some models' cards: ``{model id: [Trait]}``;
    ``fields``: ``{model id: {card field: value}}`` changes of the card (faction, types)."""
    models = []
    for m in table.models:
        extra = cards.get(m.id, [])
        change = fields.get(m.id, {})
        if extra or change:
            base = get_profile(m.profile)
            cid = base.id + "-h13-" + "-".join(t.keyword + str(t.value or "") + str(t.range or "") for t in extra)
            cid += "-".join(f"{k}{v}" for k, v in sorted(change.items()))
            card = dataclasses.replace(base, id=cid, bs_id=f"test-{cid}", traits=base.traits + tuple(extra), **change)
            add_profile_source({cid: card}, key=("test_answer_traits", cid))
            m = dataclasses.replace(m, profile=cid)
        models.append(m)
    return dataclasses.replace(table, models=tuple(models), _scene=[])


def T(keyword: str, value=None, qualifier=None, rng=None, text: str | None = None) -> Trait:
    return Trait(keyword, value, qualifier, text or keyword.replace("_", " ").title(), range=rng)


def _at(g: Game, active: int = 1, **models) -> Game:
    """The Main phase with ``active`` to act and the given model entries changed."""
    pos = g.position()
    pos.update(phase="main", active=active)
    for mid, entry in models.items():
        pos["models"][mid].update(entry)
    g.set_position(pos)
    return g


# ---------------------------------------------------------------- Blood of Orochi (p.49)
def test_blood_of_orochi_default_pool_gives_poison_until_the_end_phase():
    # p.49: "Во время начальной фазы поместите в пул все жетоны «Кровь Орочи», созданные
    # дружественными моделями ... Каждая выбранная модель может получить до 2 жетонов ...
    # Оружие моделей с жетоном «Кровь Орочи» получает Яд (1/Y), где Y - количество жетонов на
    # этой модели. Удалите все жетоны «Кровь Орочи» в завершающую фазу."
    g = Game(TABLE, seed=1, length=("fixed", 3))  # Nanako and Kaihime: Blood of Orochi (1) each
    assert g.orochi_pool(2) == 2 and g.orochi_pool(1) == 0
    given = {m.id: g.orochi_tokens(m.id) for m in g.state.alive(2) if g.orochi_tokens(m.id)}
    assert sum(given.values()) == 2 and all(v <= 2 for v in given.values())
    mid = next(iter(given))
    assert all("Poison (1/2)" in w.traits for w in g.profile(mid).weapons)
    assert all(not any(t.startswith("Poison") for t in w.traits) for w in g.printed_profile(mid).weapons)
    # the last activation of the turn: the End phase removes every token
    g = _at(g, active=1, **{m.id: {"counters": 1 if m.id == "akira" else 0} for m in g.state.models.values()})
    events = g.push(Action("wait", "akira"))
    end = next(i for i, e in enumerate(events) if e.kind == "phase" and e.data["phase"] == "end")
    nxt = next(i for i, e in enumerate(events) if e.kind == "turn")
    off = {e.data["model"] for e in events[end:nxt] if e.kind == "condition" and e.data["name"] == "blood_of_orochi"}
    assert off == set(given)


def test_blood_of_orochi_tokens_given_again_before_the_first_activation_only():
    # p.49: "Выберите любое количество дружественных моделей Ито. Каждая выбранная модель может
    # получить до 2 жетонов «Кровь Орочи» из пула."
    g = _at(Game(TABLE, seed=1, length=("fixed", 3)), active=2)
    offered = [a for a in g.legal_actions() if a.kind == "orochi"]
    assert offered and all(len(a.models) == 2 for a in offered)
    assert not g.is_legal(Action("orochi", "nanako", models=("kaihime",) * 3))[0]  # at most 2 a model
    assert not g.is_legal(Action("orochi", "nanako", models=("kaihime", "kaihime", "ishi")))[0]  # pool of 2
    assert not g.is_legal(Action("orochi", "nanako", models=("akira",)))[0]  # not a friendly Ito model
    g.push(Action("orochi", "nanako", models=("kaihime", "ishi")))
    assert g.orochi_tokens("kaihime") == 1 and g.orochi_tokens("ishi") == 1 and g.orochi_tokens("masunagi") == 0
    assert "Poison (1/1)" in g.profile("kaihime").weapons[0].traits
    assert g.state.active == 2  # a free step: the side still activates
    g.push(Action("wait", "asp"))
    assert g.state.active == 1
    assert not [a for a in g.legal_actions() if a.kind == "orochi"]
    g.push(Action("wait", "akira"))
    ok, why = g.is_legal(Action("orochi", "nanako", models=("masunagi", "masunagi")))
    assert not ok and "activated" in why
    with pytest.raises(GameError):
        g.push(Action("orochi", "nanako", models=("masunagi", "masunagi")))
    # the position keeps the tokens
    g2 = Game(TABLE, seed=1, length=("fixed", 3), position=g.position())
    assert g2.orochi_tokens("kaihime") == 1 and "Poison (1/1)" in g2.profile("kaihime").weapons[0].traits


# ---------------------------------------------------------------- Bodyguard [K] (X") (p.49)
def _guard_table():
    """No terrain; Masunagi (player 2) has Bodyguard [Friendly] (3"), faces player 1 (270
    degrees); Ishi in front of it, Kaihime behind it, Nanako far away, the Asp in contact
    with Akira; Kokkio (player 1, Arquebus) faces them from 7.5" away."""
    t = _with({"masunagi": [T("bodyguard", qualifier="Friendly", rng=3.0, text='Bodyguard [Friendly] (3")')]})
    t = dataclasses.replace(t, terrain=(), _scene=[])
    r_asp = t.model("asp").radius + t.model("akira").radius
    spots = {"kokkio": ((12.0, 4.0), 90.0), "masunagi": ((12.0, 14.0), 270.0), "ishi": ((12.0, 11.5), 270.0),
             "kaihime": ((12.0, 16.5), 270.0), "nanako": ((19.0, 11.0), 270.0), "asp": ((6.0, 12.0), 270.0),
             "akira": ((6.0, 12.0 - r_asp), 90.0), "ton": ((2.0, 1.5), 90.0), "matsu": ((22.0, 1.5), 90.0),
             "kenta": ((12.0, 8.0), 90.0), "kazuha": ((18.0, 2.0), 90.0), "yatsumata": ((21.0, 22.0), 270.0)}
    models = tuple(dataclasses.replace(m, position=spots[m.id][0], facing=spots[m.id][1]) for m in t.models)
    return dataclasses.replace(t, models=models, _scene=[])


def _guard_game(seed: int = 3) -> Game:
    g = Game(_guard_table(), seed=seed, length=("fixed", 3))
    return _at(g, active=1, **{m: {"counters": 2} for m in g.state.models})


def test_bodyguard_worked_example_who_may_guard():
    # p.49, "Пример": "Модель A имеет свойство Телохранитель. Модель B объявляет действие дальней
    # атаки. Если целью является модель C, то модель A может использовать «Телохранитель». Если
    # целью является модель D, то она не может ..., так как модель A не имеет прямой видимости к
    # модели D ... Модель E не входит в зону действия «Телохранитель». Если целью является модель
    # F, она не может ..., поскольку модель F находится в VtV с моделью G."
    g = _guard_game()
    assert g.bodyguards("ishi") == ["masunagi"]  # C: in front, within 3"
    assert g.bodyguards("kaihime") == []  # D: behind A, out of its LoS
    assert g.bodyguards("nanako") == []  # E: out of range
    assert g.bodyguards("asp") == []  # F: in base contact with G (Akira)
    g.push(Action("shoot", "kokkio", target="ishi"))
    assert g.to_move() == 2 and g.state.active == 1
    offered = g.legal_actions()
    assert set(offered) == {Action("bodyguard", "ishi", target="masunagi"), Action("bodyguard", "ishi")}
    assert not g.is_legal(Action("wait", "kenta"))[0]  # the answer first
    with pytest.raises(GameError):
        g.push(Action("wait", "kenta"))
    assert g.state.models["kokkio"].counters == 1  # the declared Shoot spent its counter


def test_bodyguard_swap_places_and_becomes_the_target_of_the_shot():
    # p.49: "эта модель может поменяться местами с той дружественной моделью прежде начала
    # действия ... Затем отыгрывается действие противника, и эта модель объявляется целью."
    g = _guard_game()
    g.push(Action("shoot", "kokkio", target="ishi"))
    events = g.push(Action("bodyguard", "ishi", target="masunagi"))
    assert g.state.models["masunagi"].position == (12.0, 11.5) and g.state.models["ishi"].position == (12.0, 14.0)
    if g.state.interception is not None:  # friends of the new target may intercept (p.30): none
        events += g.push(Action("intercept"))
    shot = [e for e in events if e.kind == "shot"]
    assert shot and "masunagi" in " ".join(shot[0].data["summary"]) and "ishi" not in shot[0].data.get("wounds", {})
    assert g.to_move() == 2 and g.state.active == 2  # the turn goes on as after any action


def test_bodyguard_declined_the_action_goes_on_at_the_first_target():
    g = _guard_game()
    g.push(Action("shoot", "kokkio", target="ishi"))
    events = g.push(Action("bodyguard", "ishi"))
    assert g.state.models["masunagi"].position == (12.0, 14.0)
    if g.state.interception is not None:
        events += g.push(Action("intercept"))
    assert any(e.kind == "shot" for e in events) and g.state.active == 2


def test_bodyguard_swap_before_a_charge_the_bodyguard_fights():
    # p.49: "Если вражеская модель объявляет действие, которое переместит её в контакт с
    # дружественной моделью [Ключевое слово] ... эта модель может поменяться местами"
    g = _guard_game()
    g.push(Action("charge", "kenta", target="ishi"))
    assert g.to_move() == 2
    g.push(Action("bodyguard", "ishi", target="masunagi"))
    ex = g.state.exchange
    assert ex is not None and ex["attacker"] == "kenta" and ex["defender"] == "masunagi"
    assert g.state.models["kenta"].counters == 0


def test_bodyguard_greedy_bot_answers_and_game_replays():
    from sim.rules.bots import GreedyBot

    g = _guard_game()
    g.push(Action("shoot", "kokkio", target="ishi"))
    a = GreedyBot(seed=1).choose(g)
    assert a.kind == "bodyguard" and a.model == "ishi"
    g.push(a)
    again = Game(_guard_table(), seed=3, length=("fixed", 3), events=g.events)
    assert again.position() == g.position()


# ---------------------------------------------------------------- Pack (X/Y) (p.55)
def _pack_game() -> Game:
    t = _with({"kenta": [T("pack", 2, rng=6.0, text='Pack (2/6")')], "akira": [T("pack", 0, rng=0.0, text="Pack")],
               "matsu": [T("pack", 0, rng=0.0, text="Pack")]})
    spots = {"kenta": ((12.0, 8.0), 90.0), "akira": ((9.0, 11.5), 0.0), "matsu": ((15.0, 11.5), 180.0),
             "ishi": ((12.0, 11.5), 270.0), "masunagi": ((20.0, 20.0), 270.0), "kaihime": ((4.0, 20.0), 270.0),
             "nanako": ((21.0, 14.0), 270.0), "asp": ((2.0, 22.0), 270.0), "yatsumata": ((22.0, 22.0), 270.0),
             "kokkio": ((2.0, 2.0), 90.0), "ton": ((6.0, 2.0), 90.0), "kazuha": ((20.0, 2.0), 90.0)}
    models = tuple(dataclasses.replace(m, position=spots[m.id][0], facing=spots[m.id][1]) for m in t.models)
    t = dataclasses.replace(t, terrain=(), models=models, _scene=[])
    g = Game(t, seed=4, length=("fixed", 3))
    return _at(g, active=1, **{m: {"counters": 2} for m in g.state.models})


def test_pack_friends_activate_against_the_same_target_moves_before_exchanges():
    # p.55: "Когда эта модель активируется, вы также можете выбрать до X не Изнуренных дружественных
    # моделей со свойством Стая в пределах Y", чтобы также активировать. Эта модель и каждая
    # выбранная модель обязаны объявлять действия Рукопашной, Стрельбы или Нападения против одной и
    # той же цели. Каждая модель выполняет любое движение до того, как будут выполнены Обмены
    # ударами. Обмены ударами затем выполняются в порядке, выбранном контролирующим игроком."
    g = _pack_game()
    call = Action("pack", "kenta", target="ishi", models=("akira", "matsu"))
    assert call in g.legal_actions()
    assert not g.is_legal(Action("pack", "kenta", target="ishi", models=("akira", "matsu", "ton")))[0]  # X = 2
    g.push(call)
    assert not g.is_legal(Action("walk", "akira", point=(10.0, 9.0)))[0]  # must attack Ishi
    assert not g.is_legal(Action("wait", "kokkio"))[0]  # the pack activates first
    assert all(a.target == "ishi" for a in g.legal_actions()
               if a.model in ("kenta", "akira", "matsu") and a.kind != "feat")  # Instant feats stay free
    g.push(Action("melee", "kenta", target="ishi"))
    assert g.state.exchange is None and g.state.active == 1  # held back: the others move first
    g.push(Action("melee", "akira", target="ishi"))
    g.push(Action("melee", "matsu", target="ishi"))
    offered = g.legal_actions()
    assert offered and {a.kind for a in offered} == {"group_fight"}  # the player's order
    g.push(Action("group_fight", "matsu"))
    assert g.state.exchange is not None and g.state.exchange["attacker"] == "matsu"
