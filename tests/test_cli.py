"""The command line: ``measure`` JSON exactly as formats.md gives it, the readable
report, ``check``, and bad input (one line naming file, entry and problem; status 2)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from sim.cli.main import main
from sim.table import DEFAULT_TABLE, load_table

ROOT = Path(__file__).resolve().parents[1]
FORMAT_KEYS = {"from", "to", "distance", "in_arc", "los", "cover", "in_zoc"}


def run_main(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_measure_json_matches_formats(capsys):
    code, out, err = run_main(capsys, "measure", str(DEFAULT_TABLE), "--json")
    assert code == 0 and err == ""
    doc = json.loads(out)
    table = load_table(DEFAULT_TABLE)
    n = len(table.models)
    assert doc["table"] == table.name
    assert len(doc["pairs"]) == n * (n - 1)
    seen = set()
    scene = table.scene()
    for entry in doc["pairs"]:
        assert FORMAT_KEYS <= set(entry)
        assert isinstance(entry["distance"], float) and entry["distance"] >= 0
        for k in ("in_arc", "los", "cover", "in_zoc"):
            assert isinstance(entry[k], bool)
        if not entry["los"]:
            assert entry["cover"] is False
        assert entry["from"] != entry["to"]
        seen.add((entry["from"], entry["to"]))
        assert entry["distance"] == pytest.approx(scene.distance(entry["from"], entry["to"]), abs=1e-4)
    assert len(seen) == n * (n - 1)


def test_measure_from_one_model(capsys):
    code, out, _ = run_main(capsys, "measure", str(DEFAULT_TABLE), "--json", "--from", "akira")
    doc = json.loads(out)
    assert code == 0 and {p["from"] for p in doc["pairs"]} == {"akira"}
    assert len(doc["pairs"]) == len(load_table(DEFAULT_TABLE).models) - 1


def test_measure_text_report(capsys):
    code, out, _ = run_main(capsys, "measure", str(DEFAULT_TABLE))
    assert code == 0
    assert "blocked by house" in out and "cover from bamboo" in out
    assert out.strip().splitlines()[-1].endswith("in ZoC")


def test_check_default_table_is_legal(capsys):
    code, out, _ = run_main(capsys, "check", str(DEFAULT_TABLE))
    assert code == 0 and "0 set-up issue(s)" in out


def test_check_reports_broken_setup(tmp_path, capsys):
    p = tmp_path / "crowded.yaml"
    p.write_text("format: bushido-table/1\nname: c\nterrain:\n"
                 "  - {id: h1, preset: house, center: [6, 6]}\n  - {id: h2, preset: house, center: [6, 11]}\n")
    code, out, _ = run_main(capsys, "check", str(p))
    assert code == 1
    assert "impassable-gap" in out and "min-pieces" in out


def test_unknown_model_exits_2(capsys):
    code, _, err = run_main(capsys, "measure", str(DEFAULT_TABLE), "--from", "nobody")
    assert code == 2 and "nobody" in err


def test_bad_file_exits_2_without_traceback(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("format: bushido-table/1\nname: x\nmodels:\n"
                   "  - {id: akira, player: 1, base: 30, position: [0.1, 5]}\n")
    proc = subprocess.run([sys.executable, str(ROOT / "main.py"), "measure", str(bad), "--json"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert "Traceback" not in proc.stderr
    line = proc.stderr.strip()
    assert len(line.splitlines()) == 1
    assert str(bad) in line and "models[id=akira]" in line and "table" in line


def test_move_walk_json_and_exit_codes(capsys):
    code, out, _ = run_main(capsys, "move", str(DEFAULT_TABLE), "matsu", "walk", "4.5", "8", "--json")
    doc = json.loads(out)
    assert code == 0 and doc["move"]["legal"] is True and doc["move"]["cost"] == pytest.approx(2.0)
    code, out, _ = run_main(capsys, "move", str(DEFAULT_TABLE), "akira", "walk", "12", "14")
    assert "ILLEGAL" in out and "Impassable wall" in out and "[" in out


def test_move_run_text(capsys):
    code, out, _ = run_main(capsys, "move", str(DEFAULT_TABLE), "kenta", "run", "21.5", "4")
    assert code in (0, 1) and out.startswith("Run kenta")


def test_charge_text_and_json(capsys):
    code, out, _ = run_main(capsys, "charge", str(DEFAULT_TABLE), "kenta", "yatsumata")
    assert code == 0 and "reaches yatsumata" in out
    code, out, _ = run_main(capsys, "charge", str(DEFAULT_TABLE), "matsu", "ishi", "--json")
    doc = json.loads(out)
    assert doc["reached"] is False
    assert doc["stop"]["code"] == "stopped-by-impassable" and doc["stop"]["element"] == "house"


def test_charge_at_a_friend_exits_2(capsys):
    code, _, err = run_main(capsys, "charge", str(DEFAULT_TABLE), "matsu", "kokkio")
    assert code == 2 and "not an enemy" in err


def test_check_with_a_scenario_reports_objectives_near_impassable_terrain(capsys, tmp_path):
    code, out = run_main(capsys, "check", str(DEFAULT_TABLE), "--scenario", "shrines")[:2]
    assert code == 0 and "0 set-up issue(s)" in out  # the bundled scenarios fit the default table
    text = (Path(__file__).resolve().parents[1] / "data/scenarios/shrines.yaml").read_text()
    bad = tmp_path / "near_house.yaml"
    bad.write_text(text.replace("{id: west,   position: [4.75, 9.75]", "{id: west,   position: [5.0, 11.5]"))
    code, out = run_main(capsys, "check", str(DEFAULT_TABLE), "--scenario", str(bad))[:2]
    assert code == 1
    assert "impassable-objective: Impassable house" in out and "objective west" in out


def test_play_with_a_scenario_prints_victory_points(capsys):
    code, out = run_main(capsys, "play", str(DEFAULT_TABLE), "--seed", "1", "--scenario", "shrines", "--turns", "1")[:2]
    assert code == 0
    assert "Scenario Shrines: VP" in out and "victory points" in out


def test_view_with_a_scenario_draws_the_objectives(capsys, tmp_path):
    from conftest import read_png

    png = tmp_path / "t.png"
    code, _ = run_main(capsys, "view", str(DEFAULT_TABLE), "--scenario", "shrines", "--camera", "top",
                       "--screenshot", str(png))[:2]
    assert code == 0 and png.exists()
    plain = tmp_path / "plain.png"
    run_main(capsys, "view", str(DEFAULT_TABLE), "--camera", "top", "--screenshot", str(plain))
    a, b = read_png(png).astype(int), read_png(plain).astype(int)
    changed = (abs(a - b).sum(axis=2) > 60).sum()
    assert changed > 2000  # three 30 mm shrines and their labels appear

    def gold(img):  # the objective colour (style.OBJECTIVE) as lit from above: (216, 166, 44)
        return int((abs(img - np.array([216, 166, 44])).max(axis=2) <= 20).sum())

    assert gold(a) > 1500 and gold(b) < 50
    code, _ = run_main(capsys, "play", str(DEFAULT_TABLE), "--scenario", "nowhere")[:2]
    assert code == 2
