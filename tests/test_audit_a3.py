"""Audit A3 of issue #13: Model Conditions (p.43-45), Terrain (p.60-62), Scenario Rules
(p.63) and the rules of the Cards chapter that act in play (p.14-17), checked through the
`Game`'s public API against the Russian rulebook (seeds/000)."""

from __future__ import annotations

from pathlib import Path

import pytest

from sim.rules.game import Action, Game
from sim.table import parse_table
from tests.conftest import make_table, set_active, set_model

ROOT = Path(__file__).resolve().parents[1]
BSDATA = ROOT.parent / "shared" / "bsdata"
needs_bsdata = pytest.mark.skipif(not BSDATA.is_dir(), reason="../shared/bsdata is not there")


def catalogue_table(models: str, terrain: str = "[]"):
    """A 24" table whose models may name catalogue profiles (``../shared/bsdata``)."""
    yaml = (f"format: bushido-table/1\nname: audit\ntable: {{width: 24, depth: 24}}\n"
            f"catalogues: {BSDATA}\nterrain: {terrain}\nmodels:\n{models}")
    return parse_table(yaml, str(ROOT / "audit.yaml"))


# ---------------------------------------------------------------- Scenario Rules p.63
@needs_bsdata
def test_an_open_vim_loses_disguised_and_cannot_gain_it():
    """p.63, VIM (Open): "Эта Модель теряет свойство Фланговый обход и состояние
    Неузнаваемый и не может их получить." Tsubaki (Disguise (5)) is player 1's VIM: she
    starts the game without the Disguised marker, and a later effect cannot give it; Saki,
    not a VIM, keeps hers."""
    table = catalogue_table(
        "  - {id: tsubaki, player: 1, profile: tsubaki, position: [3, 3], facing: 0}\n"
        "  - {id: saki, player: 1, profile: saki, position: [3, 6], facing: 0}\n"
        "  - {id: masunagi, player: 2, profile: ito-masunagi, position: [21, 21], facing: 180}\n")
    g = Game(table, seed=1, scenario="marked_for_death", vims={1: "tsubaki", 2: "masunagi"})
    assert "disguised" not in g.state.models["tsubaki"].conditions
    assert g.state.models["saki"].conditions.get("disguised") == 5
    assert any("is a VIM: it loses its Disguised marker" in line for line in g.log())
    g.gain_condition("tsubaki", "disguised", 1, value=5)
    assert "disguised" not in g.state.models["tsubaki"].conditions


# ---------------------------------------------------------------- Terrain Cards p.16, Wait p.25
def _crate_game(enemy_at=(20.0, 20.0)) -> Game:
    """Player 1's ``a`` touches the Destructible crate (a 2" square to its north); ``b`` is
    in base contact with ``a``; the enemy ``e`` stands at ``enemy_at``."""
    crate = {"id": "crate", "rect": {"center": [5, 6.599], "width": 2, "depth": 2}, "traits": ["Destructible"],
             "passage": "impassable", "visibility": "blocking", "size": "small"}
    t = make_table([{"id": "a", "position": [5, 5]}, {"id": "b", "position": [6.1861, 5]},
                    {"id": "e", "player": 2, "position": list(enemy_at)}], terrain=[crate])
    g = Game(t, seed=1, length=("fixed", 3))
    set_active(g, 1)
    set_model(g, "a", ki=3, counters=2)
    return g


def test_destructible_terrain_is_removed_by_a_wait_and_two_ki(tmp_path):
    """p.16, Разрушаемый (Destructible): "модель, находящаяся в контакте с этим элементом
    местности, и не во вражеской ЗК, может объявить действие Ожидания и потратить 2 Ки,
    чтобы убрать его со стола"; p.25, Wait: "Убрать со стола разрушаемый элемент местности,
    с которым активная модель находится в контакте, потратив 2 Ки." The option is offered,
    costs 2 Ki, the piece leaves the table (LoS and movement no longer see it), and the
    game saves, loads and replays with it gone."""
    g = _crate_game()
    wait = Action("wait", "a", special="destructible", target="crate")
    assert wait in g.legal_actions()
    assert not g.is_legal(Action("wait", "b", special="destructible", target="crate"))[0]  # not in contact
    g.push(wait)
    assert g.state.models["a"].ki == 1
    assert [t.id for t in g.table_now().terrain] == []
    assert g.position()["removed_terrain"] == ["crate"]
    assert any("removes the Destructible terrain piece crate" in line for line in g.log())
    path = tmp_path / "g.json"
    g.save(path)
    assert Game.load(path).snapshot() == g.snapshot() == g.replay().snapshot()
    g.pop()
    assert [t.id for t in g.table_now().terrain] == ["crate"] and g.state.models["a"].ki == 3


def test_destructible_terrain_needs_two_ki_and_no_enemy_zoc():
    """p.16: only a model "не во вражеской ЗК" may remove it, and it pays 2 Ki."""
    g = _crate_game(enemy_at=(3.3189, 5.0))  # the enemy is 0.5" from a, facing it
    why = g.is_legal(Action("wait", "a", special="destructible", target="crate"))
    assert not why[0] and "ZoC" in why[1]
    g = _crate_game()
    set_model(g, "a", ki=1)
    why = g.is_legal(Action("wait", "a", special="destructible", target="crate"))
    assert not why[0] and "2 Ki" in why[1]


# ---------------------------------------------------------------- Model Conditions p.43-45
def test_a_friend_in_contact_waits_to_remove_two_fire_markers():
    """p.44, В огне (On Fire): "Модель с маркерами Огня или дружественная модель в контакте
    может выполнить действие Ожидание, чтобы удалить два маркера Огня из модели." ``a``
    waits for ``b`` (in base contact, three Fire markers): the two highest go, one stays."""
    g = _crate_game()
    set_model(g, "b", markers={"fire": [1, 2, 1]})
    wait = Action("wait", "a", special="on_fire", target="b")
    assert wait in g.legal_actions()
    g.push(wait)
    assert g.state.models["b"].markers["fire"] == [1]
    assert not g.is_legal(Action("wait", "e", special="on_fire", target="b"))[0]  # not a friend


# ---------------------------------------------------------------- Terrain p.60: Enhancing gives Reach
HILL = {"id": "hill", "circle": {"center": [12, 12], "radius": 3}, "passage": "normal", "visibility": "enhancing",
        "size": "large"}


def _hill_game(attacker_x: float) -> Game:
    t = make_table([{"id": "a", "position": [attacker_x, 12]},
                    {"id": "d", "player": 2, "position": [12, 12], "facing": 180}], terrain=[HILL])
    g = Game(t, seed=1, length=("fixed", 3))
    set_active(g, 1)
    set_model(g, "a", counters=2)
    return g


def test_enhancing_terrain_gives_reach_against_an_enemy_that_came_from_below():
    """p.60, Возвышенная (Enhancing): "модели, находящиеся на холмах или иных
    возвышенностях, получают свойство Длинное (Reach) на своё рукопашное оружие для
    Обменов ударами, если только не-Летающий (Cloudwalk) противник не начал активацию на
    той же возвышенной местности." ``a`` charges up the hill at ``d``: ``d`` (on the hill)
    fights with Reach; ``a``, though it ends on the hill, gets none (``d`` was there)."""
    g = _hill_game(5.0)
    g.push(Action("charge", "a", target="d"))
    assert g.state.exchange is not None
    assert g.combatant("d", False).has_reach
    assert not g.combatant("a", True).has_reach


def test_no_reach_when_both_began_the_activation_on_the_same_hill():
    """p.60: no Reach from the hill when the non-Cloudwalk opponent began the activation on
    the same Enhancing terrain: ``a`` and ``d`` both stand on the hill when ``a`` declares
    Melee."""
    g = _hill_game(9.5)
    g.push(Action("melee", "a", target="d"))
    assert g.state.exchange is not None
    assert not g.combatant("d", False).has_reach
    assert not g.combatant("a", True).has_reach
