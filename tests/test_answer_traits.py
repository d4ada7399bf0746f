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
