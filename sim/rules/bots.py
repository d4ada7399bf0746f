"""Bots that play whole games for testing (issue 5): a random legal-action bot and a
simple greedy bot. Both choose among legal actions only; both are seeded.

* :class:`RandomBot` -- a random legal action (:meth:`Game.random_action`).
* :class:`GreedyBot` -- charges an enemy it can reach; else Stands Up if Prone; else walks
  towards the nearest enemy, stopping short of its ZoC (the movement service says where
  it may go); else Focuses or Waits. In a melee exchange it puts two thirds of its dice
  in attack.
"""

from __future__ import annotations

import math
import random

from sim.rules.game import Action, Game


class RandomBot:
    """Plays a random legal action. ``seed`` makes it reproducible."""

    name = "random"

    def __init__(self, seed: int | None = None):
        self.rng = random.Random(seed)

    def choose(self, game: Game) -> Action:
        """The action this bot plays now (an allocation while an exchange waits)."""
        return game.random_action(self.rng)


class GreedyBot:
    """Charges what it can reach, else closes in on the nearest enemy (legal moves only)."""

    name = "greedy"

    def __init__(self, seed: int | None = None):
        self.rng = random.Random(seed)

    def choose(self, game: Game) -> Action:
        """The action this bot plays now (an allocation while an exchange waits)."""
        st = game.state
        if st.exchange is not None:  # allocate: as near two thirds to attack as allowed
            options = game.legal_actions()
            pool = (options[0].attack or 0) + (options[0].defence or 0) if options else 0
            want = (2 * pool + 2) // 3
            return min(options, key=lambda a: abs((a.attack or 0) - want))
        p = st.active
        ready = [m for m in st.alive(p) if not m.exhausted]
        table = game._table_now()
        # 1. a charge that reaches, preferring the nearest target
        for m in sorted(ready, key=lambda m: -m.counters):
            if m.counters < 2 or "prone" in m.conditions:
                continue
            cands = sorted(game._charge_candidates(table, m), key=lambda e: math.dist(e.position, m.position))
            for e in cands[:3]:
                res = game.charge(m.id, e.id)
                if res.legal and res.reached:
                    return Action("charge", m.id, target=e.id)
        m = self.rng.choice(ready)
        if "prone" in m.conditions:
            return Action("stand_up", m.id)
        enemies = st.alive(3 - p)
        if enemies:
            e = min(enemies, key=lambda e: math.dist(e.position, m.position))
            dx, dy = e.position[0] - m.position[0], e.position[1] - m.position[1]
            d = math.hypot(dx, dy) or 1.0
            move = table.model(m.id).move or 0
            for frac in (1.0, 0.75, 0.5, 0.25):
                step = min(move * frac, max(0.0, d - 3.0))
                if step <= 0.05:
                    break
                pt = (m.position[0] + dx / d * step, m.position[1] + dy / d * step)
                a = Action("walk", m.id, point=pt)
                if game.is_legal(a)[0]:
                    return a
        if m.counters >= 2 and m.ki < m.ki_limit:
            return Action("focus", m.id)
        return Action("wait", m.id)


BOTS = {"random": RandomBot, "greedy": GreedyBot}


def play(game: Game, bots: tuple, max_actions: int = 10_000) -> Game:
    """Let ``bots[0]`` play player 1 and ``bots[1]`` player 2 until the game ends."""
    n = 0
    while not game.is_over():
        n += 1
        if n > max_actions:
            raise RuntimeError(f"the game did not end within {max_actions} actions")
        game.push(bots[game.to_move() - 1].choose(game))
    return game
