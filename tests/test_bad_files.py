"""Issue #10, "Files: one clean error, nothing lost": every example of the issue as a named
regression, for every loader that reads YAML or JSON (tables, scenarios, warbands,
profiles, presets, saves), through both YAML parsers (libyaml's C parser and PyYAML's
pure-Python one). A bad file gets one line naming the file, the entry and the problem;
the command line prints it and exits with status 2."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import pytest
import yaml

from sim import files
from sim.files import FileProblem, load_json, load_yaml, quote, read_text
from sim.rules.game import Game, GameError
from sim.rules.scenario import SCENARIO_DIR, ScenarioError, load_scenario
from sim.table import DEFAULT_TABLE, TableError, load_table

ROOT = Path(__file__).resolve().parents[1]
DEFAULT = DEFAULT_TABLE.read_text(encoding="utf-8")
SHRINES = (SCENARIO_DIR / "shrines.yaml").read_text(encoding="utf-8")
PROFILES = ROOT / "data" / "profiles" / "ito_clan.yaml"

#: Both YAML parsers where libyaml is installed (the pure one always).
PARSERS = [pytest.param(True, id="libyaml"), pytest.param(False, id="pure")] if files.HAVE_LIBYAML \
    else [pytest.param(False, id="pure")]


def write(tmp_path, name: str, data: str | bytes) -> Path:
    p = tmp_path / name
    if isinstance(data, bytes):
        p.write_bytes(data)
    else:
        p.write_text(data, encoding="utf-8")
    return p


def one_line(exc: BaseException, path: Path) -> str:
    """The message of ``exc``: one line, naming ``path``, of a sane length."""
    msg = str(exc)
    assert "\n" not in msg and "\r" not in msg, msg
    assert str(path) in msg, msg
    assert len(msg) < 400, msg
    return msg


def bad_table(tmp_path, name: str, data: str | bytes) -> str:
    p = write(tmp_path, name, data)
    with pytest.raises(TableError) as err:
        load_table(p)
    return one_line(err.value, p)


def a_save(tmp_path) -> Path:
    """A short seeded game between greedy bots, saved."""
    from sim.rules.bots import GreedyBot, play

    g = Game(load_table(), seed=5, length=("fixed", 1))
    play(g, (GreedyBot(5), GreedyBot(6)))
    p = tmp_path / "game.json"
    g.save(p)
    return p


# ----------------------------------------------------------- undecodable bytes, NUL
def test_latin1_table_names_the_file_byte_line_and_column(tmp_path):
    msg = bad_table(tmp_path, "latin1.yaml", DEFAULT.replace("Bridge of Ryu", "Pont d'\u00e9t\u00e9").encode("latin-1"))
    assert "not UTF-8 text: byte 0xe9 at line 2, column 14" in msg


def test_binary_junk_table_is_not_utf8(tmp_path):
    msg = bad_table(tmp_path, "junk.yaml", bytes(range(256)) * 8)
    assert "not UTF-8 text" in msg


def test_nul_character_is_one_line_with_its_position(tmp_path):
    msg = bad_table(tmp_path, "nul.yaml", DEFAULT.replace("name: Bridge", "name: Bri\0dge"))
    assert msg.endswith("line 2, column 10: NUL U+0000 is not allowed in a text file")


def test_terminal_escape_in_the_text_is_refused(tmp_path):
    msg = bad_table(tmp_path, "esc.yaml", DEFAULT.replace("name: Bridge", "name: \x1b[2JBridge"))
    assert "ESC U+001B is not allowed" in msg and "\x1b" not in msg


def test_byte_order_mark_is_accepted(tmp_path):
    p = write(tmp_path, "bom.yaml", b"\xef\xbb\xbf" + DEFAULT.encode())
    assert load_table(p).name == "Bridge of Ryu - turn 2"


@pytest.mark.parametrize("kind", ["scenario", "profiles", "save"])
def test_latin1_bytes_in_every_loader_name_the_file(tmp_path, kind):
    data = "name: caf\u00e9\n".encode("latin-1")
    p = write(tmp_path, f"latin1.{'json' if kind == 'save' else 'yaml'}", data)
    load = {"scenario": load_scenario, "profiles": _load_profiles, "save": Game.load}[kind]
    with pytest.raises(ValueError) as err:
        load(p)
    assert "not UTF-8 text: byte 0xe9 at line 1, column 10" in one_line(err.value, p)


def _load_profiles(path):
    from models.profiles import load_profile_file

    return load_profile_file(path)


# ------------------------------------------------------------------- deep nesting
DEEP_YAML = "[" * 900 + "]" * 900


def test_deep_nesting_900_levels_table(tmp_path):
    msg = bad_table(tmp_path, "deep.yaml", DEFAULT + f"extra: {DEEP_YAML}\n")
    assert "nested deeper than 64 levels" in msg and "extra[0][0]" in msg


def test_deep_nesting_900_levels_scenario(tmp_path):
    p = write(tmp_path, "deep.yaml", SHRINES.replace("format:", f"deep: {DEEP_YAML}\nformat:", 1))
    with pytest.raises(ScenarioError) as err:
        load_scenario(p)
    assert "nested deeper than 64 levels" in one_line(err.value, p)


def test_deep_nesting_900_levels_save(tmp_path):
    doc = json.loads(a_save(tmp_path).read_text())
    text = json.dumps(doc).replace('"seed": 5', '"seed": ' + "[" * 900 + "]" * 900, 1)
    p = write(tmp_path, "deep.json", text)
    with pytest.raises(GameError) as err:
        Game.load(p)
    assert "nested deeper than 64 levels" in one_line(err.value, p)


def test_deep_nesting_900_levels_profiles(tmp_path):
    p = write(tmp_path, "deep.yaml", PROFILES.read_text().replace("profiles:", f"deep: {DEEP_YAML}\nprofiles:", 1))
    from models.profiles import ProfileError

    with pytest.raises(ProfileError) as err:
        _load_profiles(p)
    assert "nested deeper than 64 levels" in one_line(err.value, p)


def test_deep_nesting_900_levels_warband(tmp_path):
    from conftest import BSDATA

    if not BSDATA.is_dir():
        pytest.skip("shared/bsdata not present")
    from models.bsdata import load_catalogues
    from models.warband import WarbandError, load_warband

    p = write(tmp_path, "deep.yaml", f"format: bushido-warband/1\nfaction: Prefecture of Ryu\nmodels: {DEEP_YAML}\n")
    with pytest.raises(WarbandError) as err:
        load_warband(p, load_catalogues(BSDATA))
    assert "nested deeper than 64 levels" in one_line(err.value, p)


@pytest.mark.parametrize("fast", PARSERS)
def test_depth_is_counted_through_aliases(fast):
    text = "a: &a " + "[" * 40 + "]" * 40 + "\nb: " + "[" * 30 + "*a" + "]" * 30 + "\n"
    with pytest.raises(FileProblem, match="nested deeper than 64 levels"):
        load_yaml(text, "t.yaml", fast=fast)


# -------------------------------------------------------------------- alias bombs
def _bomb(field: str = "format") -> str:
    lines = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, 9):
        lines.append(f"a{i}: &a{i} [" + ",".join([f"*a{i - 1}"] * 9) + "]")
    return "\n".join(lines) + f"\n{field}: *a8\nname: x\n"


@pytest.mark.parametrize("fast", PARSERS)
def test_alias_bomb_in_an_enum_field_stops_at_once(tmp_path, fast, monkeypatch):
    text = _bomb("format")
    assert len(text) < 3000  # the 2.9 KB
    t0 = time.perf_counter()
    with pytest.raises(FileProblem) as err:
        load_yaml(text, "bomb.yaml", fast=fast)
    assert time.perf_counter() - t0 < 1.0
    assert "aliases counted expanded" in str(err.value)
    # and through the table loader and the command line
    p = write(tmp_path, "bomb.yaml", text)
    monkeypatch.setattr(files, "HAVE_LIBYAML", fast)
    assert "aliases counted expanded" in bad_table(tmp_path, "bomb.yaml", text)
    assert p.exists()


def test_recursive_alias_is_refused():
    with pytest.raises(FileProblem, match="inside its own anchor"):
        load_yaml("format: &a [*a]\n", "t.yaml")


def test_error_messages_quote_input_values_cut_short(tmp_path):
    msg = bad_table(tmp_path, "long.yaml", DEFAULT.replace("bushido-table/1", "x" * 100_000, 1))
    assert "unknown value 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'..." in msg
    assert quote("y" * 1000) == repr("y" * 40) + "..."
    assert len(quote(list(range(10**6)))) < 50
    assert quote(10**5000) == "<int>"  # an int too long to print


def test_document_size_is_capped_and_refused_before_reading(tmp_path):
    p = tmp_path / "huge.yaml"
    with open(p, "wb") as fh:
        fh.write(DEFAULT.encode())
        fh.truncate(100 * 1024 * 1024)  # a 100 MB table (sparse: nothing to write)
    t0 = time.perf_counter()
    with pytest.raises(TableError) as err:
        load_table(p)
    assert time.perf_counter() - t0 < 1.0
    assert "larger than 1.0 MiB" in one_line(err.value, p)
    with pytest.raises(FileProblem, match="longer than 1.0 MiB"):
        load_yaml("#" * (files.MAX_YAML_BYTES + 1), "t.yaml")


# ----------------------------------------------------------------- duplicate keys
@pytest.mark.parametrize("fast", PARSERS)
def test_duplicate_models_key_is_refused(tmp_path, fast, monkeypatch):
    monkeypatch.setattr(files, "HAVE_LIBYAML", fast)
    msg = bad_table(tmp_path, "dup.yaml", DEFAULT + "models: []\n")
    assert "duplicate key 'models' (first at line 20)" in msg


@pytest.mark.parametrize("fast", PARSERS)
@pytest.mark.parametrize("text, key", [
    ("a: 1\nb: {x: 1, x: 2}\n", "'x'"),
    ("1: a\n0x1: b\n", "'0x1'"),          # the same integer
    ("yes: 1\ntrue: 2\n", "'true'"),      # the same boolean
    ("<<: {a: 1}\n<<: {b: 2}\n", "'<<'"),
])
def test_duplicate_keys_are_refused_whatever_their_spelling(fast, text, key):
    with pytest.raises(FileProblem, match=f"duplicate key {key}"):
        load_yaml(text, "t.yaml", fast=fast)


def test_duplicate_key_in_a_scenario_names_the_entry(tmp_path):
    p = write(tmp_path, "dup.yaml", SHRINES.replace("  base_mm: 30\n", "  base_mm: 30\n  base_mm: 50\n", 1))
    assert "base_mm: 30" in SHRINES
    with pytest.raises(ScenarioError) as err:
        load_scenario(p)
    assert ": objectives: line" in one_line(err.value, p) and "duplicate key 'base_mm'" in str(err.value)


def test_duplicate_key_in_a_save_is_refused(tmp_path):
    text = a_save(tmp_path).read_text()
    p = write(tmp_path, "dup.json", text.replace('"seed": 5', '"seed": 5, "seed": 6', 1))
    with pytest.raises(GameError) as err:
        Game.load(p)
    assert "duplicate key 'seed'" in one_line(err.value, p)


# ------------------------------------------------------------------ absurd numbers
def test_rect_of_1e300_is_refused_with_the_bound(tmp_path):
    msg = bad_table(tmp_path, "r.yaml", DEFAULT.replace("width: 5, depth: 4}", "width: 1.0e+300, depth: 4}", 1))
    assert "terrain[0] (id=house): rect.width: a size must be within 0.01 to 120 inches, not 1e+300" in msg


def test_circle_centre_of_2_pow_63_is_refused_with_the_bound(tmp_path):
    msg = bad_table(tmp_path, "c.yaml", DEFAULT.replace("center: [12.0, 4.8]", f"center: [{2**63}, 4.8]", 1))
    assert "terrain[2] (id=pond): circle.center.0: a coordinate must be within -240 to 240 inches" in msg


def test_table_1e15_inches_wide_is_refused_with_the_bound(tmp_path):
    msg = bad_table(tmp_path, "t.yaml", DEFAULT.replace("{width: 24, depth: 24}", "{width: 1.0e+15, depth: 24}"))
    assert "table: width: a table side must be within 1 to 120 inches, not 1e+15" in msg


@pytest.mark.parametrize("old, new, problem", [
    ("rotation: 15}", "rotation: 1.0e+300}", "an angle must be within -360 to 360 degrees"),
    ("facing: 90}", "facing: -1.0e+20}", "an angle must be within -360 to 360 degrees"),
    ("radius: 2.2}", "radius: 0.0000001}", "a size must be within 0.01 to 120 inches"),
    ("[12.0, 12.0]", "[12.0, -1.0e+300]", "a coordinate must be within -240 to 240 inches"),
    ("[12.0, 12.0]", "[12.0, 123456789012345678901234567890]", "a coordinate must be within"),
    ("[12.0, 12.0]", "[12.0, " + "9" * 5000 + "]", "Exceeds the limit"),
])
def test_other_absurd_numbers_are_refused(tmp_path, old, new, problem):
    assert old in DEFAULT
    assert problem in bad_table(tmp_path, "n.yaml", DEFAULT.replace(old, new, 1))


def test_absurd_numbers_in_a_scenario_are_refused(tmp_path):
    p = write(tmp_path, "s.yaml", SHRINES.replace("[4.75, 9.75]", "[1.0e+300, 9.75]", 1))
    with pytest.raises(ScenarioError) as err:
        load_scenario(p)
    assert "a coordinate must be within -240 to 240 inches" in one_line(err.value, p)


@pytest.mark.parametrize("number", ["NaN", "Infinity", "1e400"])
def test_nan_and_huge_numbers_in_a_save_are_refused(tmp_path, number):
    text = a_save(tmp_path).read_text()
    p = write(tmp_path, "n.json", text.replace('"seed": 5', f'"seed": {number}', 1))
    with pytest.raises(GameError) as err:
        Game.load(p)
    assert "JSON: " in one_line(err.value, p)


# ----------------------------------------------------------------------------- ids
@pytest.mark.parametrize("bad_id, why", [
    ('"aki\\nra"', "has a space or a control character"),
    ('"\\e[31makira"', "has a space or a control character"),
    ("a" * 10_000, "is 10000 characters long"),
    ('"two words"', "has a space"),
    ('""', "is empty"),
])
def test_ids_are_short_printable_names(tmp_path, bad_id, why):
    msg = bad_table(tmp_path, "id.yaml", DEFAULT.replace("{id: akira,", f"{{id: {bad_id},", 1))
    assert "models[0]: id: an id is 1 to 64 printable characters with no spaces" in msg and why in msg
    assert "\x1b" not in msg


def test_scenario_ids_are_short_printable_names(tmp_path):
    p = write(tmp_path, "s.yaml", SHRINES.replace("{id: west,", '{id: "we\\nst",', 1))
    with pytest.raises(ScenarioError) as err:
        load_scenario(p)
    assert "an id is 1 to 64 printable characters" in one_line(err.value, p)


# ----------------------------------------------------------------- not a plain file
def test_directory_is_refused(tmp_path):
    with pytest.raises(TableError, match="a directory, not a regular file"):
        load_table(tmp_path)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_fifo_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "table.yaml"
    os.mkfifo(fifo)
    t0 = time.perf_counter()
    with pytest.raises(TableError, match="a FIFO"):
        load_table(fifo)  # no writer: reading would block forever
    with pytest.raises(GameError, match="a FIFO"):
        Game.load(fifo)
    assert time.perf_counter() - t0 < 1.0


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero here")
def test_device_is_refused():
    with pytest.raises(FileProblem, match="a character device"):
        read_text("/dev/zero")


# ------------------------------------------------------------- both parsers, speed
SAME_WORDS = [
    "format: [unclosed\n",
    "a: 'unterminated\n",
    "a: 1\n b: 2\n",
    "- a\nb: c\n",
    "a: *missing\n",
    "a: &x 1\nb: &x 2\n",
    "a: !!python/object:os.system x\n",
    "a: !!binary 'not base64!'\n",
    "when: 2020-13-45\n",
    "{a: 1}}\n",
    "a: [1, 2\n",
    "\t- tab\n",
    "a: b: c\n",
    "--- 1\n--- 2\n",
    "a: \u00e9\u00e9\n\u00e9: 1\n\u00e9: 2\n",
    "%YAML 2.0\n--- a\n",
    "? [1, 2]\n: x\n",
    "a: @at\n",
    # constructs libyaml accepts and PyYAML refuses (found by fuzzing): the reference decides
    "a: [1,\t2]\n",
    "a: {b: 1, ? c}\n",
    "a: 1\n\ufeffb: 2\n",
    "a: |#\n  x\n",
    "a: [1, \\? 2]\n",
    "a: &x [1,\t2]\nb: &x 3\n",
]


@pytest.mark.skipif(not files.HAVE_LIBYAML, reason="libyaml not installed")
@pytest.mark.parametrize("text", SAME_WORDS)
def test_libyaml_and_pure_parsers_give_the_same_result_or_message(text):
    def outcome(fast):
        try:
            return ("ok", repr(load_yaml(text, "same.yaml", fast=fast)))
        except FileProblem as exc:
            return ("error", str(exc))

    assert outcome(True) == outcome(False)


@pytest.mark.skipif(not files.HAVE_LIBYAML, reason="libyaml not installed")
def test_tables_load_with_libyaml_several_times_faster_than_pure_python():
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from measure_bench import generated_table_yaml

    text = generated_table_yaml(1)

    def best(fast):
        times = []
        for _ in range(7):
            t0 = time.process_time()
            load_yaml(text, "t.yaml", fast=fast)
            times.append(time.process_time() - t0)
        return min(times)

    assert load_yaml(text, "t.yaml") == yaml.safe_load(text)
    assert best(False) > 2.5 * best(True)  # measured about 5-6x


# ------------------------------------------------------------- the command line
def _cli(argv, capsys):
    from sim.cli.main import main

    rc = main(argv)
    err = capsys.readouterr().err
    return rc, err


@pytest.mark.parametrize("command", ["measure", "check", "view", "play", "hotseat", "move"])
def test_command_line_prints_one_line_and_exits_2_for_a_bad_table(tmp_path, capsys, monkeypatch, command):
    p = write(tmp_path, "bad.yaml", DEFAULT + f"extra: {DEEP_YAML}\n")
    argv = {"measure": ["measure", str(p)], "check": ["check", str(p)],
            "view": ["view", str(p), "--screenshot", str(tmp_path / "x.png")], "play": ["play", str(p)],
            "hotseat": ["hotseat", str(p)], "move": ["move", str(p), "akira", "walk", "1", "1"]}[command]
    monkeypatch.setattr("sys.stdin", __import__("io").StringIO(""))
    rc, err = _cli(argv, capsys)
    assert rc == 2
    assert err.count("\n") == 1 and err.startswith(f"error: {p}: ") and "nested deeper" in err


@pytest.mark.parametrize("command", ["replay", "hotseat"])
def test_command_line_prints_one_line_and_exits_2_for_a_bad_save(tmp_path, capsys, monkeypatch, command):
    p = write(tmp_path, "bad.json", b'{"format": "bushido-game/1", "a": "caf\xe9"}')
    argv = ["replay", str(p)] if command == "replay" else ["hotseat", "--load", str(p)]
    monkeypatch.setattr("sys.stdin", __import__("io").StringIO(""))
    rc, err = _cli(argv, capsys)
    assert rc == 2
    assert err.count("\n") == 1 and err.startswith(f"error: {p}: not UTF-8 text")


def test_command_line_bad_scenario_file_is_one_line(tmp_path, capsys):
    p = write(tmp_path, "bomb.yaml", _bomb("name"))
    rc, err = _cli(["check", str(DEFAULT_TABLE), "--scenario", str(p)], capsys)
    assert rc == 2 and err.count("\n") == 1 and str(p) in err and "aliases counted expanded" in err


# ------------------------------------------------------------------- JSON details
@pytest.mark.parametrize("text, problem", [
    ('{"a": [1, 2', "JSON syntax error: line 1, column 12"),
    ("[" * 65 + "]" * 65, "nested deeper than 64 levels"),
    ('{"a": "' + "[" * 100 + '"}', None),  # brackets inside a string are text
    ('{"a": 1, "a": 2}', "duplicate key 'a'"),
    ('{"a": ' + "1" * 5000 + "}", "more than 4300 digits"),
])
def test_json_reading(text, problem):
    if problem is None:
        assert load_json(text, "s.json") == {"a": "[" * 100}
    else:
        with pytest.raises(FileProblem, match=problem):
            load_json(text, "s.json")
