"""The bot protocol, the fallback action, the random bot and the play loop.

A bot is any object with a ``name`` and ``choose(game) -> Action``
(:class:`Bot`); :func:`play` lets two of them play a game to its end. No rulebook
page of its own: the bots play by the rules the :class:`~sim.rules.game.Game` enforces
(refused declarations cost a counter, p.24).
"""

from __future__ import annotations

import random
from typing import Protocol, Sequence

from sim.rules.bots.estimates import charge_reaches
from sim.rules.bots.exchange import exchange_context, legal_splits, special_direction, throw_possible, usable_specials
from sim.rules.game import Action, Game


class Bot(Protocol):
    """What :func:`play` needs of a bot: a ``name`` and :meth:`choose`."""

    name: str

    def choose(self, game: Game) -> Action:
        """The action the bot plays now in ``game`` (an allocation while an exchange waits)."""
        ...


def fallback_action(game: Game, rng: random.Random) -> Action:
    """A legal action when a bot found none of its own: Stand Up/Wait/Focus first, else
    any of :meth:`Game.legal_actions`. When the game offers nothing legal (a model
    that must activate but may declare nothing), the game's own offer (an action it will
    refuse at the cost of a counter, p.24), else a pass when the player has a token,
    else a Wait of the first model that can act."""
    offered = game.legal_actions()
    legal = [a for a in offered if game.is_legal(a)[0]]
    for kind in ("stand_up", "wait", "focus"):
        for a in legal:
            if a.kind == kind:
                return a
    if legal:
        return rng.choice(legal)
    if offered:
        return offered[0]
    st = game.state
    if st.pass_tokens.get(st.active, 0) > 0:
        return Action("pass")
    ready = [m for m in st.alive(st.active) if not m.exhausted]
    return Action("wait", ready[0].id) if ready else Action("pass")


class RandomBot:
    """Plays a random legal action. ``seed`` makes it reproducible.

    Outside an exchange: :meth:`Game.random_action` (a random model, kind and geometry),
    checked by :meth:`Game.is_legal` (else a random one of :meth:`Game.legal_actions`).
    In an exchange: a random special of the weapon in use with probability
    ``special_rate`` (a random allowed direction for a Throw or Sidestep half of the
    time, else the engine's), then a random legal split of the dice left.
    """

    name = "random"

    def __init__(self, seed: int | None = None, special_rate: float = 1 / 3):
        self.rng = random.Random(seed)
        self.special_rate = special_rate
        #: The player whose model this bot allocates for when both allocate at once
        #: (networked play, :mod:`sim.net`); None: the model the engine asks first.
        self.player: int | None = None

    def choose(self, game: Game) -> Action:
        """The action this bot plays now (an allocation while an exchange waits)."""
        if game.state.exchange is not None:
            return self.allocate(game)
        a = game.random_action(self.rng)
        if game.is_legal(a)[0] and (a.kind != "charge" or charge_reaches(game, a)):
            return a
        return fallback_action(game, self.rng)

    def allocate(self, game: Game) -> Action:
        """A random legal allocation for the model that allocates next."""
        ctx = exchange_context(game, self.player)
        if ctx is None:
            return self.rng.choice(game.legal_actions())
        special, direction = None, None
        if self.rng.random() < self.special_rate:
            opts = [o for o in usable_specials(ctx.me, ctx.pool) if throw_possible(game, ctx, o)
                    and game.specials_refusal(ctx.model, ctx.enemy) is None]  # a feat's ban (no_specials)
            if opts:
                opt = self.rng.choice(opts)
                special = opt.key
                if self.rng.random() < 0.5:
                    direction = special_direction(game, ctx, opt, self.rng)
        splits = legal_splits(ctx.me, ctx.pool, special, direction)
        if not splits:
            special, direction = None, None
            splits = legal_splits(ctx.me, ctx.pool)
        if not splits:
            return self.rng.choice(game.legal_actions())
        k, d = self.rng.choice(splits)
        return Action("allocate", ctx.model, attack=k, defence=d, special=special, direction=direction)


def play(game: Game, bots: Sequence[Bot], max_actions: int = 10_000) -> Game:
    """Let ``bots[0]`` play player 1 and ``bots[1]`` player 2 until the game ends (the
    bot of :meth:`Game.to_move` decides each time)."""
    n = 0
    while not game.is_over():
        n += 1
        if n > max_actions:
            raise RuntimeError(f"the game did not end within {max_actions} actions")
        player = game.to_move()
        assert player is not None, "a game not over has a player to move"
        game.push(bots[player - 1].choose(game))
    return game
