"""Invariants every game position must keep, for tests and for debugging.

After any action of any game (issue 10): no two bases on the table overlap, no base is
off the table or inside Impassable terrain (scenario objectives included), activation
counters are never negative, Ki stays within ``0..Ki limit`` and damage within
``0..wounds``. The functions here only report; they change nothing.

Tolerance: a base may touch another base, the table edge or Impassable terrain, and
may reach into them by at most ``tolerance`` inches (default ``CONTACT`` = 0.01", the
loader's tolerance for "inside Impassable terrain", docs/rulings-project.md 6), so
that rounding in a saved position never reads as a broken rule.

    >>> from sim.table import load_table
    >>> position_problems(load_table())
    []
"""

from __future__ import annotations

from sim.geometry import CONTACT
from sim.table import placement_problems

__all__ = ["position_problems", "state_problems", "game_problems"]


def position_problems(table, tolerance: float = CONTACT) -> list[str]:
    """Every way the models of ``table`` stand where no model may stand.

    Args:
        table: a :class:`sim.table.Table` (for a game, :meth:`Game.table_now`: the
            living models where the game has them, objectives as Impassable pieces).
        tolerance: how far (inches) a base may reach into another base, past the
            table edge or into Impassable terrain before it counts.

    Returns:
        One readable line per problem (empty when the position is sound), e.g.
        ``"kazuha's base overlaps akira's base by 0.6000\\""``.
    """
    out: list[str] = []
    for p in placement_problems(table, tolerance, tolerance, tolerance):
        if p.kind == "off-table":
            m = table.model(p.model)
            x, y = float(m.position[0]), float(m.position[1])
            out.append(f"{p.model}'s base at ({x:.4f}, {y:.4f}) is {p.amount:.4f}\" off the "
                       f"{table.width:g}\" x {table.depth:g}\" table")
        elif p.kind == "overlap":
            out.append(f"{p.other}'s base overlaps {p.model}'s base by {p.amount:.4f}\"")
        else:
            out.append(f"{p.model}'s base stands {p.amount:.4f}\" inside Impassable {p.other}")
    return out


def state_problems(state) -> list[str]:
    """Counters, Ki and damage out of range in a :class:`sim.rules.game.GameState`:
    activation counters < 0, Ki outside ``0..ki_limit``, damage outside ``0..wounds``
    (models removed from play included). One readable line per problem."""
    out: list[str] = []
    for m in state.models.values():
        if m.counters < 0:
            out.append(f"{m.id} has {m.counters} activation counters")
        if not 0 <= m.ki <= max(m.ki_limit, 0):
            out.append(f"{m.id} has {m.ki} Ki (limit {m.ki_limit})")
        if not 0 <= m.damage <= m.wounds:
            out.append(f"{m.id} has {m.damage} damage of {m.wounds} wounds")
    return out


def game_problems(game, tolerance: float = CONTACT) -> list[str]:
    """:func:`position_problems` of the game's table now plus :func:`state_problems`
    of its state: everything wrong with a :class:`sim.rules.game.Game` position."""
    return position_problems(game.table_now(), tolerance) + state_problems(game.state)
