"""Movement planning: the cheapest legal Walk, where a Walk or a Run can end, charge lanes.

Rulebook: Movement and Placement p.22-23 (Move, Walk, Run, Charge), Zone of Control
(Terms and Concepts p.9), Terrain p.60 (Difficult, Ideal, Impassable). Project rulings:
``shared/rulings.md`` section 7. All lengths are inches, all angles degrees
(counter-clockwise from +x, like a model's facing).

Two kinds of answer live here:

* **Verdicts** -- :func:`shortest_walk` plans on a grid, then straightens the path and
  hands it to the exact checker :func:`sim.rules.movement.check_walk`; it only says
  ``legal=True`` when the checker does. :func:`charge_lanes` is
  :func:`sim.rules.movement.plan_charge` for every enemy.
* **Drawing aids** -- :func:`walk_region` and :func:`run_region` are shapely areas at
  grid (Walk) or angular (Run) resolution: where the base centre can end a legal move.
  Their edges may be off by about one grid step (Walk) or one ray gap (Run); the
  verdict for a particular path always comes from the checker.

The modules, one concept each (each docstring says how its part works):

* :mod:`.cspace` -- the areas a moving base must respect (configuration space), the
  exact test of one straight segment, what the start position imposes;
* :mod:`.grid` -- the Walk planner's grid graph and Dijkstra (:class:`~.grid.Plan`);
* :mod:`.walk` -- :func:`walk_region` and :func:`shortest_walk` (path, straightening);
* :mod:`.rays` -- legal end distances along a straight ray (Run, directly-away leg);
* :mod:`.run` -- :func:`run_region` (a fan of rays, refined where they disagree);
* :mod:`.reach` -- :func:`charge_lanes` and :func:`reach` (all three, timed);
* :mod:`.cache` -- the same three computed once per table state
  (:func:`cached_walk_region`, :func:`cached_run_region`, :func:`cached_charge_lanes`),
  for the window, which asks again and again.

``benchmarks/movement_bench.py`` times the three parts of :func:`reach` (about 20-110 ms
CPU together per model on the default and on a crowded table).
"""

from sim.rules.movement import MoveError as MoveError  # raised by every function here (unknown model, no Move)

from .cache import cache_clear, cache_info, cached_charge_lanes, cached_run_region, cached_walk_region
from .cspace import RULING as RULING
from .reach import Reach, charge_lanes, reach
from .run import run_region
from .walk import shortest_walk, walk_region

__all__ = ["Reach", "cache_clear", "cache_info", "cached_charge_lanes", "cached_run_region", "cached_walk_region",
           "charge_lanes", "reach", "run_region", "shortest_walk", "walk_region"]
