"""Throw and Sidestep directions in the secret melee allocation (p.41, rulings.md 8):
the engine judges a direction at the allocation (an impossible one is an illegal
allocation with its reason, never an exception inside the exchange), the play
controller offers the legal ones and previews the move."""

from __future__ import annotations

import pytest

from sim.rules.game import Action, Game, GameError
from sim.rules.special import SpecialMoveError
from sim.table import parse_table
from sim.view.play.controller import PlayController

# Mizuchi (Bite: Throw Attack (0)) charges Masunagi (Nodachi: Sidestep Defence (0)).
DUEL = """
format: bushido-table/1
name: duel
table: {width: 24, depth: 24}
terrain: []
models:
  - {id: mizuchi, player: 1, profile: mizuchi, position: [10, 10], facing: 0}
  - {id: masunagi, player: 2, profile: ito-masunagi, position: [14, 10], facing: 180}
  - {id: ishi, player: 2, profile: ishi, position: [20, 20], facing: 180}
"""


def charged() -> Game:
    """Mizuchi has charged Masunagi; the exchange waits for Mizuchi's allocation."""
    g = Game(parse_table(DUEL, "<duel>"), seed=5, length=("fixed", 2))
    assert g.state.active == 1
    g.push(Action("charge", "mizuchi", target="masunagi"))
    assert g.state.exchange is not None and g.to_move() == 1
    return g


def test_a_throw_direction_out_of_the_throwers_los_is_an_illegal_allocation_with_its_reason():
    g = charged()
    ok, why = g.is_legal(Action("allocate", "mizuchi", attack=2, defence=1, special="throw-attack", direction=180))
    assert not ok and "LoS" in why and "p.41" in why
    assert g.is_legal(Action("allocate", "mizuchi", attack=2, defence=1, special="throw-attack", direction=90))[0]
    with pytest.raises(GameError, match="LoS"):
        g.push(Action("allocate", "mizuchi", attack=2, defence=1, special="throw-attack", direction=180))
    assert g.state.exchange is not None and not g.state.exchange["allocations"]  # nothing half-played


def test_a_sidestep_towards_the_enemy_is_refused_at_the_allocation():
    g = charged()
    g.push(Action("allocate", "mizuchi", attack=3, defence=0))
    # masunagi (x 14) sidesteps away from mizuchi (x < 14): towards -x is refused
    ok, why = g.is_legal(Action("allocate", "masunagi", attack=0, defence=4, special="sidestep-defence",
                                direction=180))
    assert not ok and "away" in why
    assert g.is_legal(Action("allocate", "masunagi", attack=0, defence=4, special="sidestep-defence",
                             direction=30))[0]


def test_controller_offers_only_legal_directions_and_refuses_others_before_pushing():
    c = PlayController(charged())
    c.take_screen()
    dirs = c.allocation_directions("throw-attack")
    assert dirs and dirs[0][1].startswith("away (")
    assert all(not c.direction_refusal("throw-attack", d) for d, _ in dirs)
    assert 180.0 not in [d for d, _ in dirs] and c.direction_refusal("throw-attack", 180.0)
    choices = c.allocation_choices()
    got = {a.direction for a in choices if a.special == "throw-attack"}
    assert got == {None, *[d for d, _ in dirs]}
    with pytest.raises(GameError, match="LoS"):
        c.allocate(2, 1, "throw-attack", 180.0)
    assert c.game.state.exchange["allocations"] == {}
    res = c.special_preview("throw-attack", 90.0)
    assert res is not None and res.moves["masunagi"].end == pytest.approx((14.0, 12.0), abs=0.05)
    assert c.special_preview("powerful-attack", None) is None
    c.allocate(3, 0, "throw-attack", 90.0)
    assert c.game.events[-1].kind == "allocated" and c.game.events[-1].data["direction"] == 90.0


def test_a_direction_made_impossible_during_the_exchange_falls_back_to_the_engines(monkeypatch):
    import sim.rules.game.melee_step as ms

    g = charged()
    real = ms.resolve_exchange
    calls = []

    def flaky(a, b, al_a, al_b, dice, table=None):
        calls.append((al_a.direction, al_b.direction))
        if al_a.direction is not None:
            dice.roll(3)  # some dice were rolled before the move failed
            raise SpecialMoveError("a throw at 90 deg does not end in mizuchi's LoS")
        return real(a, b, al_a, al_b, dice, table=table)

    monkeypatch.setattr(ms, "resolve_exchange", flaky)
    g.push(Action("allocate", "mizuchi", attack=3, defence=0, special="throw-attack", direction=90))
    g.push(Action("allocate", "masunagi", attack=2, defence=2))
    assert calls == [(90, None), (None, None)]
    assert g.state.exchange is None
    notes = [e for e in g.events if e.kind == "note" and "direction cannot be used" in e.data["text"]]
    assert notes and "mizuchi" in notes[0].data["text"]
    # the dice were rewound: the same exchange with no direction rolls the same values
    monkeypatch.setattr(ms, "resolve_exchange", real)
    h = charged()
    h.push(Action("allocate", "mizuchi", attack=3, defence=0, special="throw-attack"))
    h.push(Action("allocate", "masunagi", attack=2, defence=2))
    assert g.rolls[-1] == h.rolls[-1] and len(g.rolls[-1]) > 0
