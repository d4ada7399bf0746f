"""``python main.py game``: the game window from the command line (sim/cli/game.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import read_png

from sim.cli.main import main

ROOT = Path(__file__).resolve().parents[1]


def _main(capsys, monkeypatch, *argv):
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    try:
        code = main(list(argv))
    except SystemExit as exc:  # argparse's own one-line refusal
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def test_game_without_a_display_says_so_in_one_line(capsys, monkeypatch):
    code, out, err = _main(capsys, monkeypatch, "game")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "no display" in err and "--screenshot" in err and "hotseat" in err


@pytest.mark.parametrize("argv, words", [
    (("game", "--load", "x.json", "--setup"), "--load continues a saved game"),
    (("game", "data/tables/default.yaml", "--setup"), "--setup chooses the table in the window"),
    (("game", "--turns", "0"), "--turns must be between 1 and 20"),
    (("game", "--bot", "3=greedy"), "expected 1=NAME or 2=NAME"),
    (("game", "--screenshot", "out.txt"), ".png"),
    (("game", "no/such/table.yaml", "--screenshot", "x.png"), "no/such/table.yaml"),
])
def test_bad_game_arguments_are_one_line_with_status_2(capsys, monkeypatch, tmp_path, argv, words):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "data" / "tables").mkdir(parents=True)
    (tmp_path / "data" / "tables" / "default.yaml").write_text((ROOT / "data/tables/default.yaml").read_text())
    code, out, err = _main(capsys, monkeypatch, *argv)
    assert code == 2
    assert err.strip().count("\n") == 0 and words in err
    assert "Traceback" not in err


def _run(*argv, cwd):
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    return subprocess.run([sys.executable, str(ROOT / "main.py"), *argv], capture_output=True, text=True,
                          cwd=cwd, env=env, timeout=120)


def test_game_screenshot_renders_the_game_window_and_the_setup_headless(tmp_path):
    game, setup = tmp_path / "game.png", tmp_path / "setup.png"
    a = _run("game", "--bot", "2=greedy", "--screenshot", str(game), cwd=ROOT)
    b = _run("game", "--setup", "--screenshot", str(setup), cwd=ROOT)
    assert a.returncode == 0 and b.returncode == 0, a.stderr + b.stderr
    g, s = read_png(game).astype(int), read_png(setup).astype(int)
    assert g.shape == s.shape == (960, 1280, 3)
    # the game window shows the table (its sand colour) and both players' figures; the
    # set-up's first screen is panels only: no table yet
    sand = (np.abs(g - (200, 170, 120)) <= 40).all(axis=-1).mean()
    red = ((g[..., 0] > 170) & (g[..., 1] < 70) & (g[..., 2] < 70)).mean()
    blue = ((g[..., 2] > 170) & (g[..., 0] < 90)).mean()
    assert sand > 0.1 and red > 0.001 and blue > 0.001
    assert (np.abs(s - (200, 170, 120)) <= 40).all(axis=-1).mean() < 0.01
