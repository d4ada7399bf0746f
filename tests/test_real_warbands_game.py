"""A seeded game between two real catalogue warbands (issue #13 "Done when"): Prefecture of
Ryu against Cult of Yurei, picked from ../shared/bsdata, deployed by the engine's set-up
policy (sim.rules.setup.auto) on the default table's terrain, played by the greedy bots
to the end; its log shows catalogue Ki feats and traits at work, and the save replays."""

from __future__ import annotations

from pathlib import Path

import pytest

from sim.cli.main import main
from sim.rules.game import Game
from sim.rules.setup import GameSetup, TableChoice, catalogues
from sim.rules.setup.auto import auto_setup, pick_warband

ROOT = Path(__file__).resolve().parents[1]
BSDATA = ROOT.parent / "shared" / "bsdata"
pytestmark = pytest.mark.skipif(not BSDATA.is_dir(), reason="../shared/bsdata is not there")


def test_picked_warbands_are_legal_and_deployed_by_the_rules():
    cs = catalogues(BSDATA)
    a = pick_warband(cs, "Prefecture of Ryu", 70, seed=1)
    b = pick_warband(cs, "Cult of Yurei", 70, seed=1)
    setup = GameSetup(TableChoice.terrain_of(ROOT / "data" / "tables" / "default.yaml"), warbands={1: a, 2: b},
                      seed=1)
    auto_setup(setup)
    assert setup.phase == "done"
    g = setup.game()
    assert {m.player for m in g.state.models.values()} == {1, 2}
    from shapely.geometry import Point
    for m in g.state.models.values():  # every base in its player's zone (p.63)
        assert setup.zones[m.player].shape.buffer(1e-6).contains(Point(m.position))


def test_a_seeded_catalogue_game_uses_feats_and_traits_and_replays(tmp_path, capsys):
    save = tmp_path / "g.json"
    assert main(["play", str(ROOT / "data" / "tables" / "default.yaml"), "--warbands",
                 "Prefecture of Ryu,Cult of Yurei", "--seed", "3", "--data", str(BSDATA),
                 "--save", str(save)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Player 1: ") and "=== Game over" in out
    g = Game.load(save)  # verified: the actions re-simulate to the same events
    kinds = {e.kind for e in g.events}
    assert "feat_used" in kinds  # catalogue Ki feats applied by the greedy bots
    assert g.is_over()


def test_bad_warbands_argument_is_one_line(capsys):
    assert main(["play", str(ROOT / "data" / "tables" / "default.yaml"), "--warbands", "Prefecture of Ryu",
                 "--data", str(BSDATA)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--warbands" in err[0]


def test_picked_warbands_leave_out_models_without_a_base():
    """A card without a base size (Shiho Clan's Cub, a part of Kazuo's card) cannot be
    deployed on its own: the picker never takes it."""
    cs = catalogues(BSDATA)
    for seed in range(6):
        choice = pick_warband(cs, "Shiho Clan", 100, seed=seed)
        assert choice.profiles and all(p.base for p in choice.profiles)


def test_every_answer_offered_in_a_catalogue_game_is_legal():
    """What legal_actions offers while the game waits for an answer (a triggered Ki feat,
    a Starting phase choice, Bodyguard, Sacrifice ...) passes is_legal: the window offers
    the offers, the engine judges them (fuzz seed 8: a triggered feat's decline was offered
    while a Fortune choice made is_legal refuse it)."""
    import importlib.util
    import sys

    from sim.rules.bots import GreedyBot

    spec = importlib.util.spec_from_file_location("fuzz_warbands", ROOT / "benchmarks" / "fuzz_warbands.py")
    fuzz = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    sys.modules.setdefault("fuzz_warbands", fuzz)
    spec.loader.exec_module(fuzz)
    cs = catalogues(BSDATA)
    for seed in (8,):
        p = fuzz.plan(seed, cs.factions())
        g = fuzz.build(p, str(BSDATA))
        bots = (GreedyBot(seed), GreedyBot(seed + 1))
        while not g.is_over() and len(g.actions) < 300:
            offers = g.legal_actions()
            answers = [a for a in offers if a.counters == 0 and a.kind not in ("pass", "allocate")]
            for a in answers:
                ok, why = g.is_legal(a)
                assert ok, f"seed {seed}, action {len(g.actions)}: {a} offered but refused: {why}"
            g.push(bots[g.to_move() - 1].choose(g))
