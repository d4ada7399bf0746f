"""The planners' per-position cache (``sim.rules.planning.cache``) gives exactly the
answers of the uncached reference planners, on random positions, and is keyed by the
table state (a moved model is a new entry, an equal table is the same one)."""

from __future__ import annotations

import random

import pytest

from sim.rules import planning
from sim.rules.movement import MoveError
from sim.table import load_table, placement_problems
from sim.view.drag import move_model


@pytest.fixture(scope="module")
def table():
    return load_table()


def _same_geometry(a, b) -> bool:
    return a.geom_type == b.geom_type and a.equals_exact(b, 0.0)


def _random_positions(table, rng: random.Random, moves: int = 3):
    """``table`` with ``moves`` models moved to random clear places (no overlap, on the table)."""
    ids = [m.id for m in table.models]
    for mid in rng.sample(ids, moves):
        for _ in range(200):
            r = table.model(mid).radius
            p = (rng.uniform(r, table.width - r), rng.uniform(r, table.depth - r))
            cand = move_model(table, mid, p, rng.uniform(0, 360))
            if not placement_problems(cand):
                table = cand
                break
    return table


def test_cached_planners_equal_the_uncached_reference_on_random_positions(table):
    rng = random.Random(12)
    planning.cache_clear()
    for _ in range(3):
        t = _random_positions(table, rng)
        for m in rng.sample(list(t.models), 3):
            try:
                ref_walk = planning.walk_region(t, m.id)
            except MoveError:
                continue
            assert _same_geometry(planning.cached_walk_region(t, m.id), ref_walk), m.id
            assert _same_geometry(planning.cached_run_region(t, m.id), planning.run_region(t, m.id)), m.id
            assert planning.cached_charge_lanes(t, m.id) == planning.charge_lanes(t, m.id), m.id
            # asked again: the same answer, from the cache
            assert _same_geometry(planning.cached_walk_region(t, m.id), ref_walk)
    info = planning.cache_info()
    assert info["walk"][0] >= 1 and info["walk"][1] >= 1


def test_cache_is_keyed_by_the_table_state(table):
    planning.cache_clear()
    first = planning.cached_walk_region(table, "kenta")
    assert planning.cached_walk_region(table, "kenta") is first  # a hit
    moved = move_model(table, "kenta", (21.5, 11.0))
    after = planning.cached_walk_region(moved, "kenta")
    assert after is not first and _same_geometry(after, planning.walk_region(moved, "kenta"))
    # a table equal to the first (kenta moved back) hits the first entry
    back = move_model(moved, "kenta", table.model("kenta").position)
    assert back == table and planning.cached_walk_region(back, "kenta") is first
    # moving another model changes the answer's key too (it may block or give ZoC)
    other = move_model(table, "masunagi", (20.0, 12.5))
    assert planning.cached_walk_region(other, "kenta") is not first
    # lanes come out as a new list: changing it does not change the cache
    lanes = planning.cached_charge_lanes(table, "kenta")
    lanes.clear()
    assert planning.cached_charge_lanes(table, "kenta") == planning.charge_lanes(table, "kenta")


def test_cached_planner_raises_like_the_reference(table):
    with pytest.raises(MoveError):
        planning.cached_walk_region(table, "nobody")
    with pytest.raises(ValueError):
        planning.cached_walk_region(table, "kenta", resolution=-1.0)
