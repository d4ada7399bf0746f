"""A push is all or nothing: a dice source that fails part way leaves the game as it was
(the window's physical dice ask for values and push again)."""

import pytest

from sim.rules.dice import DiceError
from sim.rules.game import Game
from sim.table import load_table


class FailingDice:
    """Dice that roll a fixed value ``good`` times, then fail (no values given)."""

    def __init__(self, good: int):
        self.good = good

    def roll(self, n, purpose=None):
        if self.good < n:
            raise DiceError("no values typed")
        self.good -= n
        return [4] * n


def _game():
    return Game(load_table(), seed=3, length=("fixed", 2))


@pytest.mark.parametrize("good", [0, 1])
def test_a_shot_whose_dice_fail_is_taken_back_not_recorded_as_no_shot(good):
    g = _game()
    shot = next(a for a in g.legal_actions() if a.kind == "shoot" and a.model == "ishi")
    before, events = g.position(), list(g.events)
    g.dice = FailingDice(good)
    with pytest.raises(DiceError):
        g.push(shot)  # Bow: 2 dice to hit, so 0 or 1 are not enough
    assert g.position() == before
    assert g.events == events
    assert not any("no shot" in str(e.data) for e in g.events)
    assert g.actions == ()


def test_a_melee_exchange_whose_dice_fail_is_taken_back():
    g = _game()
    while g.state.exchange is None:
        charge = next((a for a in g.legal_actions() if a.kind == "charge"), None)
        g.push(charge if charge is not None else g.legal_actions()[0])
    alloc = [a for a in g.legal_actions() if a.kind == "allocate"]
    g.push(alloc[0])
    second = [a for a in g.legal_actions() if a.kind == "allocate"][0]
    before, n = g.position(), len(g.events)
    g.dice = FailingDice(0)
    with pytest.raises(DiceError):
        g.push(second)
    assert g.position() == before and len(g.events) == n
    assert g.state.exchange is not None  # still waiting for the second allocation


def test_the_same_push_succeeds_once_the_dice_are_there():
    g = _game()
    shot = next(a for a in g.legal_actions() if a.kind == "shoot" and a.model == "ishi")
    g.dice = FailingDice(0)
    with pytest.raises(DiceError):
        g.push(shot)
    g.dice = FailingDice(100)
    events = g.push(shot)
    assert any(e.kind == "shot" for e in events)
    assert len(g.actions) == 1
