"""Round 6 (helper F7): Ki feats that cancel the Melee pool penalty for having Run (p.36:
a model that Ran this turn rolls one die fewer in melee).

``{op: pool_penalties, ignore: run}`` -- read in two ways:

* in an Aura (``area: aura``, ``affects`` an area's models): while a model the Aura reaches is
  inside it (:meth:`~sim.rules.game.feat_auras.FeatAuras.aura_effects`), its effect source
  ends with :data:`RUN_MARK` (To the Front!, Quick March);
* applied to a model (any other area): the mark ``feat_pool:<feat>`` whose JSON ``ignore`` is
  ``"run"`` until its ``until``.

Either way, a model carrying the mark ``ran`` gets ``+1`` on its Melee pool
(:func:`run_pool_modifiers`, added by :meth:`~sim.rules.game.feat_assists.FeatAssists.assist_feat_modifiers`).
"""

from __future__ import annotations

import json
from typing import Any

#: The end of an Aura effect's source that cancels the Ran penalty.
RUN_MARK = ": no Ran penalty"
#: The mark of a ``pool_penalties`` op on a model (as :data:`sim.rules.game.feat_assists.POOL_MARK`).
_POOL_MARK = "feat_pool:"


def _ignores_run(value: Any) -> bool:
    try:
        return json.loads(str(value)).get("ignore") == "run"
    except (ValueError, AttributeError):
        return False


def run_pool_modifiers(game: Any, mid: str) -> tuple[tuple[str, int], ...]:
    """``((label, +1),)`` when model ``mid`` Ran this turn and a feat cancels that Melee
    pool penalty (p.36) for it now; ``()`` otherwise."""
    m = game.state.models.get(mid)
    if m is None or "ran" not in m.conditions:
        return ()
    feats = [k[len(_POOL_MARK):] for k, v in m.conditions.items() if k.startswith(_POOL_MARK) and _ignores_run(v)]
    if not feats and game.state.models[mid].alive:
        feats = [str(e["source"])[:-len(RUN_MARK)] for e in game.aura_effects(mid)
                 if str(e.get("source", "")).endswith(RUN_MARK)]
    return ((f"{feats[0]}: no penalty for having Run", 1),) if feats else ()


def ignores_run(value: Any) -> bool:
    """Whether a ``feat_pool:`` mark's value cancels the Ran penalty (not the conditions')."""
    return _ignores_run(value)
