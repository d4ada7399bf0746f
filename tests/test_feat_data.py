"""The curated Ki feat data file (``data/feats/effects.yaml``) against the catalogues
(issue #13).

Rulebook p.46 (line 1411): «**Ta** Цель (*Target*) (X): Умение влияет на конкретную
указанную модель. Цель должна быть в пределах X"» -- the range is a fact of the card, so
every entry's facts (cost, timing, area, range, opposed test, limitation icons) must be the
catalogue's. Every catalogue feat name has an entry; every entry loads through the engine's
loader (:func:`sim.rules.feat_effects.load_effects`); manual entries say why.
Skips when ``../shared/bsdata`` is absent.
"""

from __future__ import annotations

import sys
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BSDATA = ROOT.parent / "shared" / "bsdata"
DATA = ROOT / "data" / "feats" / "effects.yaml"

pytestmark = pytest.mark.skipif(not BSDATA.is_dir(), reason="no ../shared/bsdata")


@pytest.fixture(scope="module")
def records():
    """``{feat name: [KiFeat records]}`` from the catalogues."""
    from models.bsdata import load_catalogues

    out = defaultdict(list)
    for p in load_catalogues(BSDATA).profiles:
        for f in p.ki_feats:
            out[f.name].append(f)
    return out


@pytest.fixture(scope="module")
def entries():
    from sim.rules.feat_effects import load_effects

    return load_effects(DATA)


@pytest.fixture(scope="module")
def drafter():
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import draft_feat_effects
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    return draft_feat_effects


def test_every_catalogue_feat_has_an_entry(records, entries):
    missing = sorted(set(records) - set(entries))
    assert not missing, f"{len(missing)} catalogue feats without an entry: {missing[:10]}"
    extra = sorted(set(entries) - set(records))
    assert not extra, f"entries for feats no catalogue has: {extra[:10]}"


def test_facts_equal_the_catalogue(records, entries, drafter):
    """Cost, timing, area, range (inches; None for BtB, X, unlimited), BtB, opposed and the
    limitation icons (p.46-47) are copied, never guessed."""
    wrong = []
    for name, recs in records.items():
        e = entries[name]
        f = recs[0]
        cost = f.cost if f.cost is not None else f.cost_text.strip()
        got = (e.cost, e.timing, e.area, e.range, e.btb, e.opposed, sorted(e.limits))
        want = (cost, f.timing, f.area, f.range, (f.range_text or "").strip().lower() == "btb", bool(f.opposed),
                sorted(drafter.limits_of(f.limitation)))
        if got != want:
            wrong.append((name, got, want))
    assert not wrong, f"{len(wrong)} entries differ from the catalogue, e.g. {wrong[:3]}"


def test_limitation_icons_read():
    """«noBtB», «noWalk», «OpT», «OpG», «OpA» and the catalogues' spelled-out variants map to
    the schema keys; an unknown icon is an error, not silently dropped."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        from draft_feat_effects import limits_of
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    assert limits_of("noWalk, noBtB, OpT") == ["no_btb", "no_move", "once_per_turn"]
    assert limits_of("One Per Turn") == ["once_per_turn"]
    assert limits_of("No BtB") == ["no_btb"]
    assert limits_of("noBtB, OpA") == ["no_btb", "once_per_activation"]
    assert limits_of(None) == []
    with pytest.raises(ValueError):
        limits_of("Once per Blue Moon")


def test_manual_entries_give_a_reason_and_applied_ones_have_effects(entries):
    for name, e in entries.items():
        if e.manual is None:
            assert e.effects, f"{name}: automated but no effects"
            assert e.summary, f"{name}: no summary"
        else:
            assert e.manual.strip(), f"{name}: empty manual reason"


def test_the_file_is_the_drafters_output(drafter):
    """The data file is regenerated from the catalogues and the hand table, not edited by hand."""
    doc, _, _, _ = drafter.build(BSDATA)
    assert drafter.dump(doc) == DATA.read_text(encoding="utf-8")


def test_worked_readings(entries):
    """A few cards read by hand, with the catalogue's numbers.

    Do-Kote: Feint (1) for the current exchange; Rally: Frightened removed from the friends
    in the Pulse, the user included («Модель-источник Импульса всегда считается в
    Импульсе», p.46 line 1415); Distraction: a Ki (6) challenge, then a facing change;
    Consume Soul: heals the killed model's Ki statistic."""
    dk = entries["Do-Kote"]
    assert [(o.op, o.traits, o.until) for o in dk.effects] == [("grant", ["Feint (1)"], "exchange")]
    rally = entries["Rally"]
    assert rally.affects == "friends_and_self" and rally.effects[0].name == "frightened"
    dis = entries["Distraction"]
    assert dis.test is not None and (dis.test.stat, dis.test.tn) == ("ki", 6) and dis.ops == ("facing",)
    cs = entries["Consume Soul"]
    assert cs.when == "trigger:killed_enemy_within" and cs.effects[0].n == "target_ki"
