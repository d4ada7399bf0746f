"""Turn-level rules of the rulebook (issue 13, "Discrepancies already found"), through the
public :class:`~sim.rules.game.Game` API: Tactician (X) in every turn's Tactical test, and
the End phase at once when a shot kills a side's last model."""

from __future__ import annotations

import dataclasses

from models.profiles import Trait, add_profile_source, get_profile
from sim.rules.dice import PhysicalDice
from sim.rules.game import Action, Game
from sim.table import load_table

TABLE = load_table()


def _with_tactician(x: int):
    """The default table with Ishi (player 2) given Tactician (x) on its card."""
    base = get_profile("ishi")
    card = dataclasses.replace(base, id="ishi-tactician", bs_id=None,
                               traits=base.traits + (Trait("tactician", x, None, f"Tactician ({x})"),))
    add_profile_source({card.id: card}, key=("test_turn_card_rules", x))
    models = tuple(dataclasses.replace(m, profile=card.id) if m.id == "ishi" else m for m in TABLE.models)
    return dataclasses.replace(TABLE, models=models, _scene=[])


def test_tactician_adds_its_dice_to_the_turns_tactical_test():
    # Rulebook p.58: "Тактик (Tactician)(X): Эта модель добавляет X кубиков, когда выполняет
    # проверки Тактики." p.28: "Оба игрока назначают модель для проведения Встречной
    # проверки, используя один D6 (с применимыми модификаторами, такими как Тактик ...)".
    # Player 1 rolls one die (5); player 2, with Tactician (2), rolls three (2, 6, 1): its
    # 6 beats the 5. Without the trait player 2 would have rolled the 2 alone and lost.
    g = Game(_with_tactician(2), dice=PhysicalDice([5, 2, 6, 1]), length=("fixed", 3))
    tactical = next(e for e in g.events if e.kind == "tactical")
    assert tactical.data["winner"] == 2 and g.state.first == 2
    assert tactical.data["rolls"][0][0] == 5 and tactical.data["rolls"][0][1] >= 6


def test_without_tactician_each_player_rolls_one_die():
    g = Game(TABLE, dice=PhysicalDice([5, 2]), length=("fixed", 3))
    tactical = next(e for e in g.events if e.kind == "tactical")
    assert tactical.data["winner"] == 1 and tactical.data["rolls"] == [[5, 2]]


def _last_enemy_at_gunpoint(seed: int) -> Game:
    """Player 1 active; player 2 has only Ishi left, one wound from death, 4" in front of
    Kokkio's Arquebus."""
    g = Game(TABLE, seed=seed, length=("fixed", 6))
    pos = g.position()
    pos["active"] = 1
    for mid, m in pos["models"].items():
        if g.state.models[mid].player == 2 and mid != "ishi":
            m["alive"] = False
    pos["models"]["kokkio"].update(position=[12.0, 6.0], facing=90.0)
    pos["models"]["ishi"].update(position=[12.0, 10.0], facing=270.0,
                                 damage=g.state.models["ishi"].wounds - 1)
    g.set_position(pos)
    return g


def test_a_shot_that_kills_the_last_enemy_model_goes_to_the_end_phase_at_once():
    # Rulebook p.21 (End phase, step 4): "Если у кого-либо из игроков в игре не осталось
    # моделей, немедленно перейдите к Завершающей фазе, подсчитайте очки сценария и победные
    # очки, а затем определите окончательный результат." Player 1 still has models with
    # counters, yet the Main phase must not go on.
    for seed in range(60):
        g = _last_enemy_at_gunpoint(seed)
        g.push(Action("shoot", "kokkio", target="ishi"))
        if not g.state.models["ishi"].alive:
            break
    else:
        raise AssertionError("no seed in 60 let the Arquebus kill Ishi")
    assert g.is_over()
    kinds = [e.kind for e in g.events]
    after_shot = kinds[max(i for i, e in enumerate(g.events) if e.kind == "activate"):]
    assert ("phase", "end") in [(e.kind, e.data.get("phase")) for e in g.events]
    assert "active" not in after_shot and after_shot[-1] == "game_over"
    assert any(m.counters for m in g.state.alive(1))  # player 1 could still have acted


def test_a_shot_that_leaves_an_enemy_model_lets_the_main_phase_go_on():
    for seed in range(60):
        g = _last_enemy_at_gunpoint(seed)
        g.push(Action("shoot", "kokkio", target="ishi"))
        if g.state.models["ishi"].alive:
            break
    else:
        raise AssertionError("Ishi died on every seed")
    assert not g.is_over() and g.state.phase == "main"
