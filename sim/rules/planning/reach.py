"""Charge lanes and the bundle of everything one model can do with a move.

:func:`charge_lanes` is :func:`sim.rules.movement.plan_charge` at every enemy;
:func:`reach` times and bundles the Walk region, the Run region and the charge lanes
(``benchmarks/movement_bench.py`` reports it: about 20-110 ms CPU per model on the
default and on a crowded table).

Rulebook: Movement p.22-23 (Walk, Run, Charge), Charge p.25. Inches.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from shapely.geometry.base import BaseGeometry

from sim.rules.movement import Mover, MoveResult, plan_charge

from .cspace import Point
from .run import run_region
from .walk import walk_region


def charge_lanes(table, model_id: str) -> list[MoveResult]:
    """The Charge of the model at every enemy (Charge p.22-23, p.25; rulings.md 7).

    One :func:`sim.rules.movement.plan_charge` per enemy model, sorted by target id:
    each tells whether it reaches (``reached``), its path, and where and why it stops
    (``stop``). Straight at the target's centre, up to 2 x Move (+2" Ideal).

    Args:
        table: a loaded :class:`sim.table.Table`.
        model_id: the charging model.

    Returns:
        list of :class:`~sim.rules.movement.MoveResult` (``kind="charge"``), one per enemy.

    Raises:
        MoveError: unknown model or no Move value.
    """
    mover = Mover(table, model_id)  # MoveError: unknown model, no Move
    enemies = sorted(e.id for e in mover.enemies)
    return [plan_charge(table, model_id, eid) for eid in enemies]


@dataclass
class Reach:
    """Everything one model can do with a Walk, a Run or a Charge (Movement p.22-23).

    Attributes:
        model: the model's id.
        move: its Move, inches.
        start: its position ``(x, y)``, inches.
        walk_region: :func:`walk_region` (shapely geometry, inches).
        run_region: :func:`run_region` (shapely geometry, inches).
        charge_lanes: :func:`charge_lanes` (one MoveResult per enemy, sorted by id).
        timings_ms: process CPU milliseconds for ``walk_region``, ``run_region``,
            ``charge_lanes`` and ``total``.
    """

    model: str
    move: float
    start: Point
    walk_region: BaseGeometry
    run_region: BaseGeometry
    charge_lanes: list[MoveResult]
    timings_ms: dict[str, float] = field(default_factory=dict)


def reach(table, model_id: str, resolution: float = 0.1, resolution_deg: float = 0.5) -> Reach:
    """Walk region, Run region and charge lanes of one model (Movement p.22-23).

    Args:
        table: a loaded :class:`sim.table.Table`.
        model_id: the model.
        resolution: Walk grid step, inches (see :func:`walk_region`).
        resolution_deg: Run ray spacing, degrees (see :func:`run_region`).

    Returns:
        a :class:`Reach`.

    Raises:
        MoveError: unknown model or no Move value.
        ValueError: a resolution that is not a positive number.
    """
    mover = Mover(table, model_id)
    t0 = time.process_time()
    walk = walk_region(table, model_id, resolution)
    t1 = time.process_time()
    run = run_region(table, model_id, resolution_deg)
    t2 = time.process_time()
    charges = charge_lanes(table, model_id)
    t3 = time.process_time()
    ms = {"walk_region": (t1 - t0) * 1e3, "run_region": (t2 - t1) * 1e3, "charge_lanes": (t3 - t2) * 1e3,
          "total": (t3 - t0) * 1e3}
    return Reach(model_id, mover.move, mover.start, walk, run, charges, ms)
