"""The issue #13 coverage count (benchmarks/card_coverage.py): trait instances and Ki feat
links of the real catalogues, with the registry's status and the feat data's verdict."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from models.traits import TRAITS

BSDATA = Path(__file__).resolve().parents[1].parent / "shared" / "bsdata"
pytestmark = pytest.mark.skipif(not BSDATA.is_dir(), reason="../shared/bsdata is not there")


def _script():
    spec = importlib.util.spec_from_file_location("card_coverage", Path(__file__).resolve().parents[1]
                                                  / "benchmarks" / "card_coverage.py")
    mod = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(mod)
    return mod


def test_every_instance_is_counted_once_with_the_registry_status():
    cov = _script().coverage(str(BSDATA))
    t = cov["traits"]
    assert sum(t["by_status"].values()) == t["instances"] == sum(d["instances"] for d in t["per_trait"].values())
    for key, d in t["per_trait"].items():
        assert d["status"] == (TRAITS[key].status if key in TRAITS else "unregistered")
    f = cov["feats"]
    assert f["links"] >= f["applied_links"] >= 0
    assert f["links"] - f["applied_links"] == sum(r["links"] for r in f["not_applied"])
    assert all(r["reason"] for r in f["not_applied"])  # every feat left to the players says why


def test_the_check_flag_fails_while_a_target_is_missed(capsys):
    mod = _script()
    cov = mod.coverage(str(BSDATA))
    missed = (cov["traits"]["automated_percent"] < mod.TRAIT_TARGET
              or cov["feats"]["applied_percent"] < mod.FEAT_TARGET)
    assert mod.main([str(BSDATA), "--check"]) == (1 if missed else 0)
    assert "automated:" in capsys.readouterr().out
