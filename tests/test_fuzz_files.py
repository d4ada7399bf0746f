"""Seeded fuzzing of the file loaders (issue #10, "Files: one clean error, nothing lost").

The bundled table, a bundled scenario, a warband file and a save made by playing a short
seeded game are mutated (byte flips, truncation, deleted, duplicated and swapped lines,
junk bytes, absurd numbers, NaN, odd strings, deep nesting, aliases and alias bombs,
duplicate keys) and loaded. Every outcome must be a clean load or the loader's own error
with a one-line message naming the file; a YAML text must load to the same data, or fail
with the same message, through libyaml's C parser and the pure-Python one.

Each case is a function of (seed, kind, index), so a failure names what reproduces it.
The run is time-bounded: ``FUZZ_SECONDS`` per file kind (default 10 s, so about 40 s
for the four kinds, in CI and locally), ``FUZZ_SEED`` (default 2024) picks the cases,
and ``FUZZ_REPORT=FILE`` appends one JSON line of figures per kind (cases tried,
outcomes by kind). A longer hunt::

    FUZZ_SECONDS=150 FUZZ_REPORT=out/fuzz.jsonl python -m pytest -q tests/test_fuzz_files.py -s
"""

from __future__ import annotations

import json
import os
import random
import re
import signal
import threading
import time
from collections import Counter
from pathlib import Path

import pytest
from conftest import BSDATA

from sim import files
from sim.files import FileProblem, load_yaml
from sim.rules.game import Game, GameError
from sim.rules.scenario import SCENARIO_DIR, ScenarioError, check_against_table, load_scenario
from sim.table import DEFAULT_TABLE, TableError, load_table
from terrain.setup import check_setup

SECONDS = float(os.environ.get("FUZZ_SECONDS", "10"))
SEED = int(os.environ.get("FUZZ_SEED", "2024"))
REPORT = os.environ.get("FUZZ_REPORT")
#: Stop a kind after this many failing cases (raise it to count them all in a long hunt).
MAX_FAILURES = int(os.environ.get("FUZZ_MAX_FAILURES", "5"))
#: A case that takes longer than this is a hang (seconds).
HANG_S = 60.0

WARBAND = """\
format: bushido-warband/1
name: Dragon's Claw
faction: Prefecture of Ryu
rice: 70
models:
  - profile: Takashi Akira
  - Kokkio
  - profile: Ton
    enhancements: []
events: []
terrain: []
"""

# ------------------------------------------------------------------------ mutations
NUMBER = re.compile(rb"-?\d+(?:\.\d+)?")
WORD = re.compile(rb"[A-Za-z_][A-Za-z0-9_-]*")
ABSURD_YAML = [b"1.0e+300", b"-1.0e+300", b"9223372036854775808", b"1.0e+15", b".nan", b".inf", b"-.inf", b"-0.0",
               b"1.0e-300", b"9" * 5000, b"0x7fffffffffffffffff", b"true", b"null", b"~", b"[]", b"{}", b"2020-13-45"]
ABSURD_JSON = [b"1e300", b"-1e300", b"9223372036854775808", b"1e15", b"NaN", b"Infinity", b"-Infinity", b"1e400",
               b"9" * 5000, b"true", b"null", b"[]", b"{}", b'"x"', b"-0.0", b"1e-300"]
STRINGS = [b'"a\\nb"', b'"\\e[31mred"', b"x" * 10_000, b'""', b'"two words"', b"\xc3\xa9t\xc3\xa9", b'"\\u202eevil"',
           b"'\\x00'", b'"\\0"']
JSON_STRINGS = [b'"a\\nb"', b'"\\u001b[31mred"', b'"' + b"x" * 10_000 + b'"', b'""', b'"two words"', b'"\\u0000"']
JUNK = [b"\x00", b"\x1b[2J", b"\xff\xfe", b"\xe9", b"\x80", b"\r", b"\t", b"\x7f", b"\xef\xbb\xbf", b"\xc3", b"\n",
        b": ", b"- ", b"{", b"[", b"]", b"}", b"&", b"*", b"!", b"|", b">", b"'", b'"', b"#", b"%", b"@", b"`", b"---",
        b"...", b"? ", b"<<: ", b"\\", b",", b"!!python/object:os.system "]


def _span(rng: random.Random, data: bytes) -> tuple[int, int]:
    a = rng.randrange(len(data) + 1)
    return a, min(len(data), a + rng.randint(1, 64))


def mutate(rng: random.Random, data: bytes, is_json: bool) -> tuple[bytes, str]:
    """One random mutation of ``data``: ``(new bytes, its name)``."""
    lines = data.split(b"\n")
    op = rng.choice(["flip", "truncate", "delete", "del-line", "dup-line", "swap-lines", "junk", "number", "string",
                     "nest", "alias", "bomb", "dup-key", "huge", "word", "indent"])
    if op == "flip" and data:
        i = rng.randrange(len(data))
        return data[:i] + bytes([data[i] ^ (1 << rng.randrange(8))]) + data[i + 1:], op
    if op == "truncate":
        return data[:rng.randrange(len(data) + 1)], op
    if op == "delete":
        a, b = _span(rng, data)
        return data[:a] + data[b:], op
    if op == "del-line" and len(lines) > 1:
        del lines[rng.randrange(len(lines))]
        return b"\n".join(lines), op
    if op in ("dup-line", "dup-key"):
        i = rng.randrange(len(lines))
        j = rng.randrange(len(lines) + 1) if op == "dup-line" else i + 1
        lines.insert(j, lines[i])
        return b"\n".join(lines), op
    if op == "swap-lines" and len(lines) > 1:
        i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
        return b"\n".join(lines), op
    if op == "junk":
        i = rng.randrange(len(data) + 1)
        junk = b"".join(rng.choice(JUNK) for _ in range(rng.randint(1, 3))) if rng.random() < 0.7 else \
            bytes(rng.randrange(256) for _ in range(rng.randint(1, 16)))
        return data[:i] + junk + data[i:], op
    if op == "number":
        hits = list(NUMBER.finditer(data))
        if hits:
            m = rng.choice(hits)
            return data[:m.start()] + rng.choice(ABSURD_JSON if is_json else ABSURD_YAML) + data[m.end():], op
    if op in ("string", "word"):
        hits = list(WORD.finditer(data))
        if hits:
            m = rng.choice(hits)
            if is_json:  # a word inside "..." or a key: replace the quoted string around it
                a, b = data.rfind(b'"', 0, m.start()), data.find(b'"', m.end())
                if a >= 0 and b >= 0:
                    return data[:a] + rng.choice(JSON_STRINGS) + data[b + 1:], op
            return data[:m.start()] + rng.choice(STRINGS) + data[m.end():], op
    if op == "nest":
        hits = list(NUMBER.finditer(data)) or list(WORD.finditer(data))
        if hits:
            m = rng.choice(hits)
            n = rng.choice([2, 10, 63, 64, 65, 100, 900, 5000])
            open_, close = (b"[", b"]") if rng.random() < 0.5 or not is_json else (b'{"k": ', b"}")
            if not is_json and rng.random() < 0.3:
                open_, close = b"{k: ", b"}"
            return data[:m.start()] + open_ * n + m.group() + close * n + data[m.end():], op
    if op in ("alias", "bomb") and not is_json:
        hits = list(NUMBER.finditer(data)) or list(WORD.finditer(data))
        if len(hits) >= 2:
            m1, m2 = sorted(rng.sample(hits, 2), key=lambda m: m.start())
            if op == "alias":
                second = rng.choice([b"*a", b"*zz", b"&a x", b"*a *a", b"&a [*a]"])
                return data[:m1.start()] + b"&a " + m1.group() + data[m1.end():m2.start()] + second + \
                    data[m2.end():], op
            levels = rng.randint(2, 10)
            chain = [b'&b0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
            for k in range(1, levels):
                chain.append(b"&b%d [" % k + b",".join([b"*b%d" % (k - 1)] * 9) + b"]")
            return data[:m1.start()] + b"[" + b", ".join(chain) + b"]" + data[m1.end():m2.start()] + \
                b"*b%d" % (levels - 1) + data[m2.end():], op
    if op == "huge":
        i = rng.randrange(len(data) + 1)
        return data[:i] + b"#" * rng.choice([1000, 100_000]) + data[i:], op
    if op == "indent" and len(lines) > 1:
        i = rng.randrange(len(lines))
        lines[i] = rng.choice([b" ", b"  ", b"\t", b"- "]) + lines[i] if rng.random() < 0.7 else lines[i].lstrip()
        return b"\n".join(lines), op
    # the operation did not apply to this text: flip a byte instead
    if not data:
        return b"\x00", "flip"
    i = rng.randrange(len(data))
    return data[:i] + bytes([rng.randrange(256)]) + data[i + 1:], "flip"


def make_case(seed: int, kind: str, index: int, base: bytes) -> tuple[bytes, list[str]]:
    rng = random.Random(f"{seed}:{kind}:{index}")
    data, ops = base, []
    for _ in range(rng.choice([1, 1, 1, 2, 3])):
        data, op = mutate(rng, data, kind == "save")
        ops.append(op)
    return data, ops


# ------------------------------------------------------------------------ outcomes
CATEGORIES = [
    ("not UTF-8", "not-utf8"), ("is not allowed in a text file", "control-char"), ("nested deeper", "depth"),
    ("aliases counted expanded", "alias-bomb"), ("inside its own anchor", "recursive-alias"),
    ("duplicate key", "duplicate-key"), ("YAML syntax error", "yaml-syntax"), ("YAML error", "yaml-value"),
    ("JSON syntax error", "json-syntax"), ("JSON: ", "json-value"), ("larger than", "size"),
    ("longer than", "size"), ("must be within", "bound"), ("an id is", "id"), ("a name has", "name"),
    ("at most", "length"), ("unknown field", "unknown-field"), ("missing field", "missing-field"),
    ("unknown value", "unknown-value"), ("finite number", "nan"), ("Input should be", "type"),
    ("duplicate id", "duplicate-id"), ("overlaps", "placement"), ("not wholly on", "placement"),
    ("Impassable", "placement"), ("not simple", "footprint"), ("degenerate", "footprint"),
    ("differs", "save-verification"), ("re-simulat", "save-verification"), ("unknown profile", "unknown-name"),
    ("unknown", "unknown-name"), ("not a bushido", "not-this-format"), ("format", "not-this-format"),
    ("expected", "wrong-field"), ("missing", "missing-field"),
]


def category(msg: str) -> str:
    for needle, name in CATEGORIES:
        if needle in msg:
            return name
    return "other"


def _use_table(table) -> None:
    """What ``check`` and ``measure`` do with a table that loaded."""
    check_setup(table.terrain, table.width, table.depth)
    table.scene().measure_all()


def _load_table(path: Path):
    _use_table(load_table(path))


def _load_scenario(path: Path):
    scen = load_scenario(path)
    check_against_table(scen, _DEFAULT_TABLE, setup=True)


def _load_save(path: Path):
    g = Game.load(path)
    g.snapshot()


_DEFAULT_TABLE = load_table()
_CATALOGUES: list = []


def _load_warband(path: Path):
    from models.warband import check_warband, load_warband

    cs = _CATALOGUES[0]
    check_warband(load_warband(path, cs), cs)


def _warband_error():
    from models.warband import WarbandError

    return WarbandError


def _failure_kind(exc: BaseException) -> str:
    text = str(exc)
    for needle in ("not one line", "does not name the file", "message of", "parsers differ"):
        if needle in text:
            return needle
    return type(exc).__name__


class Hang(Exception):
    pass


def _alarm(signum, frame):  # pragma: no cover - only on a hang
    raise Hang(f"took more than {HANG_S:g} s")


def run_case(kind: str, path: Path, data: bytes):
    """Load ``path`` (holding ``data``) with the loader of ``kind``: ``("load", None)`` or
    ``("error", category)``. Raises AssertionError for an unclean outcome."""
    loader, error = {"table": (_load_table, TableError), "scenario": (_load_scenario, ScenarioError),
                     "save": (_load_save, GameError), "warband": (_load_warband, _warband_error())}[kind]
    path.write_bytes(data)
    if kind != "save":
        _same_through_both_parsers(data)
    try:
        loader(path)
    except error as exc:
        msg = str(exc)
        assert "\n" not in msg and "\r" not in msg, f"message is not one line: {msg!r}"
        assert str(path) in msg, f"message does not name the file: {msg!r}"
        assert len(msg) < 2000, f"message of {len(msg)} characters: {msg[:200]!r}..."
        return "error", category(msg)
    return "load", None


def _same_through_both_parsers(data: bytes) -> None:
    if not files.HAVE_LIBYAML:
        return
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return

    def outcome(fast):
        try:
            return "ok", repr(load_yaml(text, "same.yaml", fast=fast))
        except FileProblem as exc:
            return "error", str(exc)

    fast, pure = outcome(True), outcome(False)
    assert fast == pure, f"libyaml and pure parsers differ:\n  libyaml: {fast}\n  pure:    {pure}"


# ---------------------------------------------------------------------------- tests
@pytest.fixture(scope="module")
def bases(tmp_path_factory) -> dict[str, bytes]:
    """The files to mutate: the bundled table and scenario, a warband file, a save of a
    short seeded game."""
    from sim.rules.bots import GreedyBot, play

    g = Game(_DEFAULT_TABLE, seed=5, length=("fixed", 1), scenario="shrines")
    play(g, (GreedyBot(5), GreedyBot(6)))
    save = tmp_path_factory.mktemp("fuzz") / "game.json"
    g.save(save)
    return {"table": DEFAULT_TABLE.read_bytes(), "scenario": (SCENARIO_DIR / "shrines.yaml").read_bytes(),
            "warband": WARBAND.encode(), "save": save.read_bytes()}


@pytest.mark.parametrize("kind", ["table", "scenario", "warband", "save"])
def test_fuzzed_files_load_cleanly_or_fail_with_one_line(tmp_path, bases, kind):
    if kind == "warband":
        if not BSDATA.is_dir():
            pytest.skip("shared/bsdata not present")
        if not _CATALOGUES:
            from models.bsdata import load_catalogues

            _CATALOGUES.append(load_catalogues(BSDATA))
    path = tmp_path / ("game.json" if kind == "save" else f"{kind}.yaml")
    outcomes: Counter = Counter()
    ops: Counter = Counter()
    failures: list[str] = []
    failure_kinds: Counter = Counter()
    use_alarm = hasattr(signal, "SIGALRM") and threading.current_thread() is threading.main_thread()
    if use_alarm:
        old = signal.signal(signal.SIGALRM, _alarm)
    start = time.perf_counter()
    slowest = (0.0, None)
    index = 0
    try:
        while time.perf_counter() - start < SECONDS:
            data, names = make_case(SEED, kind, index, bases[kind])
            ops.update(names)
            t0 = time.perf_counter()
            try:
                if use_alarm:
                    signal.setitimer(signal.ITIMER_REAL, HANG_S)
                result, cat = run_case(kind, path, data)
                outcomes[result if cat is None else f"error:{cat}"] += 1
            except (AssertionError, Exception) as exc:  # noqa: BLE001 - every unclean outcome is reported
                failures.append(f"seed {SEED} {kind} case {index} ({'+'.join(names)}): "
                                f"{type(exc).__name__}: {str(exc)[:300]}")
                failure_kinds[_failure_kind(exc)] += 1
            finally:
                if use_alarm:
                    signal.setitimer(signal.ITIMER_REAL, 0)
            dt = time.perf_counter() - t0
            if dt > slowest[0]:
                slowest = (dt, f"case {index} ({'+'.join(names)})")
            index += 1
            if len(failures) >= MAX_FAILURES:
                break
    finally:
        if use_alarm:
            signal.signal(signal.SIGALRM, old)
    figures = {"kind": kind, "seed": SEED, "seconds": round(time.perf_counter() - start, 1), "cases": index,
               "loaded": outcomes["load"], "clean_errors": sum(v for k, v in outcomes.items() if k != "load"),
               "failures": len(failures), "failure_kinds": dict(failure_kinds.most_common()),
               "slowest_s": round(slowest[0], 3), "slowest_case": slowest[1],
               "outcomes": dict(outcomes.most_common()), "mutations": dict(ops.most_common())}
    print(json.dumps(figures))
    if REPORT:
        Path(REPORT).parent.mkdir(parents=True, exist_ok=True)
        with open(REPORT, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(figures) + "\n")
    assert index > 0
    assert not failures, "\n".join(failures[:10])


def test_fuzz_cases_are_reproducible():
    base = DEFAULT_TABLE.read_bytes()
    assert make_case(7, "table", 3, base) == make_case(7, "table", 3, base)
    assert make_case(7, "table", 3, base) != make_case(7, "table", 4, base)
