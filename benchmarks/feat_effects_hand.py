"""Hand-curated Ki feat effects (issue #13): entries the drafting patterns of
``benchmarks/draft_feat_effects.py`` miss or read wrongly, keyed by the feat's printed name.

Each value holds the effect part of a ``data/feats/effects.yaml`` entry (``when``, ``affects``,
``test``, ``effects``, ``manual``, optional ``summary``, ``target_keywords``, ``target_rice``);
the facts (cost, timing, area, range, opposed, limits) always come from the catalogues.
Summaries are our words, never the card's text.
"""

from __future__ import annotations

from typing import Any

HAND: dict[str, dict[str, Any]] = {
}
