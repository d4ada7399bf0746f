"""Audit A4 of issue #13: the Cards chapter in play (enhancement, event, theme and terrain
cards, p.14-17), Death Sentence (p.43) and Disguised (p.44, p.51), checked through the
`Game`'s public API against the Russian rulebook (seeds/000)."""

from __future__ import annotations

from pathlib import Path

import pytest

from sim.rules.game import Game
from sim.table import parse_table

ROOT = Path(__file__).resolve().parents[1]
BSDATA = ROOT.parent / "shared" / "bsdata"
needs_bsdata = pytest.mark.skipif(not BSDATA.is_dir(), reason="../shared/bsdata is not there")


def catalogue_table(models: str, terrain: str = "[]"):
    """A 24" table whose models may name catalogue profiles (``../shared/bsdata``)."""
    yaml = (f"format: bushido-table/1\nname: audit\ntable: {{width: 24, depth: 24}}\n"
            f"catalogues: {BSDATA}\nterrain: {terrain}\nmodels:\n{models}")
    return parse_table(yaml, str(ROOT / "audit.yaml"))


# ---------------------------------------------------------------- Disguised p.44, Disguise p.51
@needs_bsdata
def test_a_disguise_model_keeps_the_higher_disguised_value():
    """p.51, Disguise: "**Неузнаваемый (Disguise)(X):** эта модель начинает игру с маркером
    Неузнаваемый (X)"; p.44, Disguised: "Пока модель имеет маркер Неузнаваемый (X) ...".
    Saki (Disguise (5)) starts Disguised (5); an effect giving Disguised (6) raises it to 6
    (the higher X is kept, docs/conditions-and-ki.md), a later Disguised (3) keeps 6. The
    trait Disguise is no immunity to the condition (it was read as one)."""
    table = catalogue_table(
        "  - {id: saki, player: 1, profile: saki, position: [3, 6], facing: 0}\n"
        "  - {id: masunagi, player: 2, profile: ito-masunagi, position: [21, 21], facing: 180}\n")
    g = Game(table, seed=1)
    assert g.state.models["saki"].conditions.get("disguised") == 5
    g.gain_condition("saki", "disguised", value=6)
    assert g.state.models["saki"].conditions.get("disguised") == 6
    g.gain_condition("saki", "disguised", value=3)
    assert g.state.models["saki"].conditions.get("disguised") == 6
