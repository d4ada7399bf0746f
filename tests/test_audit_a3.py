"""Audit A3 of issue #13: Model Conditions (p.43-45), Terrain (p.60-62), Scenario Rules
(p.63) and the rules of the Cards chapter that act in play (p.14-17), checked through the
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


# ---------------------------------------------------------------- Scenario Rules p.63
@needs_bsdata
def test_an_open_vim_loses_disguised_and_cannot_gain_it():
    """p.63, VIM (Open): "Эта Модель теряет свойство Фланговый обход и состояние
    Неузнаваемый и не может их получить." Tsubaki (Disguise (5)) is player 1's VIM: she
    starts the game without the Disguised marker, and a later effect cannot give it; Saki,
    not a VIM, keeps hers."""
    table = catalogue_table(
        "  - {id: tsubaki, player: 1, profile: tsubaki, position: [3, 3], facing: 0}\n"
        "  - {id: saki, player: 1, profile: saki, position: [3, 6], facing: 0}\n"
        "  - {id: masunagi, player: 2, profile: ito-masunagi, position: [21, 21], facing: 180}\n")
    g = Game(table, seed=1, scenario="marked_for_death", vims={1: "tsubaki", 2: "masunagi"})
    assert "disguised" not in g.state.models["tsubaki"].conditions
    assert g.state.models["saki"].conditions.get("disguised") == 5
    assert any("is a VIM: it loses its Disguised marker" in line for line in g.log())
    g.gain_condition("tsubaki", "disguised", 1, value=5)
    assert "disguised" not in g.state.models["tsubaki"].conditions
