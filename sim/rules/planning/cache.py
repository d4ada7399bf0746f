"""Per-position caches of the planners: the same answers, computed once per table state.

The window asks for a model's Walk region, Run region and charge lanes again and again
(selecting it, switching an overlay on, reselecting it after looking at another model,
a new scene after a move elsewhere is taken back). Each answer depends only on the
table (:class:`sim.table.Table`: its size, terrain and every model's position, facing,
traits, Prone, Move) and the model, so it is kept in a least-recently-used cache keyed
by ``(table, model_id, resolution)``. Tables are frozen dataclasses compared by value:
two tables with the same pieces and the same models hit the same entry (a table made by
moving a model compares equal only to one with the model at the same place), so a cached
answer is always the one the planner would give for that position
(``tests/test_planning_cache.py`` holds them equal on random positions). The slow
reference stays: :func:`~sim.rules.planning.walk_region`, :func:`~sim.rules.planning.run_region`,
:func:`~sim.rules.planning.charge_lanes` compute afresh every time.

Geometries are immutable (shapely) and :class:`~sim.rules.movement.MoveResult` is
frozen; the lists of lanes are copied on the way out so a caller cannot change the
cache.
"""

from __future__ import annotations

import functools

from shapely.geometry.base import BaseGeometry

from sim.rules.movement import MoveResult

from .reach import charge_lanes
from .run import run_region
from .walk import walk_region

#: Entries kept per planner (a table state and a model each).
CACHE_SIZE = 256


@functools.lru_cache(maxsize=CACHE_SIZE)
def _walk(table, model_id: str, resolution: float) -> BaseGeometry:
    return walk_region(table, model_id, resolution)


@functools.lru_cache(maxsize=CACHE_SIZE)
def _run(table, model_id: str, resolution_deg: float) -> BaseGeometry:
    return run_region(table, model_id, resolution_deg)


@functools.lru_cache(maxsize=CACHE_SIZE)
def _lanes(table, model_id: str) -> tuple[MoveResult, ...]:
    return tuple(charge_lanes(table, model_id))


def cached_walk_region(table, model_id: str, resolution: float = 0.1) -> BaseGeometry:
    """:func:`~sim.rules.planning.walk_region`, computed once per table state (inches).

    Raises:
        MoveError: unknown model or no Move value (not cached: raised every time).
        ValueError: ``resolution`` not a positive number.
    """
    return _walk(table, model_id, float(resolution))


def cached_run_region(table, model_id: str, resolution_deg: float = 0.5) -> BaseGeometry:
    """:func:`~sim.rules.planning.run_region`, computed once per table state (inches).

    Raises:
        MoveError: unknown model or no Move value.
        ValueError: ``resolution_deg`` not a positive number.
    """
    return _run(table, model_id, float(resolution_deg))


def cached_charge_lanes(table, model_id: str) -> list[MoveResult]:
    """:func:`~sim.rules.planning.charge_lanes`, computed once per table state (a new
    list each call; the :class:`~sim.rules.movement.MoveResult` in it are frozen).

    Raises:
        MoveError: unknown model or no Move value.
    """
    return list(_lanes(table, model_id))


def cache_clear() -> None:
    """Empty the three caches (benchmarks time the first, uncached answer with it)."""
    for fn in (_walk, _run, _lanes):
        fn.cache_clear()


def cache_info() -> dict[str, tuple[int, int, int]]:
    """``{"walk": (hits, misses, size), "run": ..., "charges": ...}`` of the caches."""
    out = {}
    for name, fn in (("walk", _walk), ("run", _run), ("charges", _lanes)):
        info = fn.cache_info()
        out[name] = (info.hits, info.misses, info.currsize)
    return out
