"""The repository's feat data as the game reads it: the drafted file with every
hand-curated file of ``data/feats/curated`` laid over it loads in one piece (a broken
curated file would otherwise pass unnoticed: the other feat tests read fixtures)."""

from __future__ import annotations

import sim.rules.feat_effects as fe


def test_every_curated_file_loads_and_they_merge_without_a_clash():
    fe.reset_cache()
    try:
        paths = fe.curated_paths()
        assert paths, "no curated feat file"
        names: dict[str, str] = {}
        files = {p.name: fe.load_effects(p) for p in paths}
        for p in paths:
            for name in files[p.name]:  # each file alone: one line naming the file on error
                assert name.lower() not in names, f"{name} in {p.name} and {names[name.lower()]}"
                names[name.lower()] = p.name
        merged = fe.feat_effects()
        assert len(merged) >= len(names)
        for low, fname in names.items():  # a curated entry wins over the drafted one
            entry = fe.feat_effect(low)
            assert entry is not None and entry == files[fname][entry.name]
        applied = sum(1 for n in merged if fe.effect_status(n)[0])
        assert 0 < applied <= len(merged)
    finally:
        fe.reset_cache()
