"""The conformance page (issue #11, `docs/conformance.md`): written from the registries,
never stale, every automated row covered by a test that exists, the data held to the
registries and to the rulebook text, and the test scan itself."""

from __future__ import annotations

import importlib
import textwrap
from pathlib import Path

import pytest

from models.traits import STATUSES, TRAITS
from sim.rules.conditions import CONDITIONS
from sim.rules.conformance import DEFAULT_OUT, Probe, TestIndex, build_page, readings, rows, scan_tests
from sim.rules.conformance.__main__ import main as conformance_main
from sim.rules.conformance.data import (
    ACTION_STATUS,
    CHAPTERS,
    CONDITION_STATUS,
    SECTIONS,
    SPECIAL_PAGES,
    SPECIAL_STATUS,
    TRAIT_PROBES,
)
from sim.rules.game import ACTION_KINDS
from sim.rules.ki import GENERIC_FEATS
from sim.rules.melee import SPECIAL_RULES

ROOT = Path(__file__).resolve().parents[1]
SEED = ROOT.parent / "shared" / "seeds" / "000_c026e9e1ed7bf21e.txt"
REGENERATE = "python -m sim.rules.conformance"


@pytest.fixture(scope="module")
def index() -> TestIndex:
    return scan_tests(ROOT / "tests")


@pytest.fixture(scope="module")
def all_rows(index):
    return rows(index)


def test_conformance_page_is_up_to_date(index):
    page = build_page(index)
    on_disk = DEFAULT_OUT.read_text(encoding="utf-8") if DEFAULT_OUT.exists() else ""
    assert page == on_disk, f"docs/conformance.md is stale: run `{REGENERATE}` and commit it"


def test_every_automated_row_is_covered_by_an_existing_test(all_rows, index):
    ids = set(index.tests())
    uncovered = [f"{r.table}: {r.key}" for r in all_rows if r.status == "automated" and not r.tests]
    assert uncovered == [], "automated rows no test covers (write one, or correct the status)"
    assert all(t in ids for r in all_rows for t in r.tests)


def test_every_registry_entry_has_one_row_and_a_known_status(all_rows):
    by_table: dict[str, list[str]] = {}
    for r in all_rows:
        by_table.setdefault(r.table, []).append(r.key)
        assert r.status in STATUSES, (r.table, r.key, r.status)
    for keys in by_table.values():
        assert len(keys) == len(set(keys))
    assert set(by_table["actions"]) == set(ACTION_KINDS) == set(ACTION_STATUS)
    assert set(by_table["conditions"]) == set(CONDITIONS) == set(CONDITION_STATUS)
    assert set(by_table["specials"]) == set(SPECIAL_RULES) | {"card"}
    assert set(by_table["feats"]) == set(GENERIC_FEATS) | {"card"}
    assert set(by_table["traits"]) == set(TRAITS)
    assert set(by_table["sections"]) == {s.key for s in SECTIONS}
    assert set(SPECIAL_STATUS) <= set(SPECIAL_RULES) and set(TRAIT_PROBES) <= set(TRAITS)
    assert set(SPECIAL_PAGES) <= set(SPECIAL_RULES) | {"attack", "defence"}
    assert {s.status for s in ACTION_STATUS.values()} | {s.status for s in CONDITION_STATUS.values()} <= set(STATUSES)


def _resolves(path: str) -> bool:
    """Whether a dotted path names a module, or an attribute reached from one."""
    parts = path.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        try:
            for name in parts[i:]:
                obj = getattr(obj, name)
        except AttributeError:
            return False
        return True
    return False


def _source(module: str) -> str:
    mod = importlib.import_module(module)
    files = [Path(mod.__file__)]
    if files[0].name == "__init__.py":
        files = sorted(files[0].parent.rglob("*.py"))
    return "\n".join(f.read_text(encoding="utf-8") for f in files)


def test_sections_are_well_formed_and_their_probes_name_what_exists():
    chapters = {c.key: c for c in CHAPTERS}
    assert len({s.key for s in SECTIONS}) == len(SECTIONS)
    for s in SECTIONS:
        ch = chapters[s.chapter]
        assert s.status in STATUSES and s.note and s.name, s.key
        first, _, last = s.page.removeprefix("p.").partition("-")
        assert ch.first_page <= int(first) <= int(last or first) <= ch.last_page, (s.key, s.page, ch.pages)
        assert ch.first_line <= s.line <= ch.last_line, (s.key, s.line)
        assert all(_resolves(m) for m in s.where), (s.key, s.where)
        p = s.probe
        assert set(p.traits) <= set(TRAITS) and set(p.conditions) <= set(CONDITIONS), s.key
        assert set(p.specials) <= set(SPECIAL_RULES) and set(p.actions) <= set(ACTION_KINDS), s.key
        assert all(_resolves(x) for x in p.symbols + p.modules), (s.key, p.symbols, p.modules)
        # a probe string is a word of the code that holds the section (an event kind, a key)
        code = "\n".join(_source(m) for m in s.where)
        assert all(f'"{x}"' in code or f"'{x}'" in code or x in code.split() for x in p.strings), (s.key, p.strings)
        if s.status == "automated":
            assert p, f"{s.key}: an automated section needs a probe to find its tests"


@pytest.mark.skipif(not SEED.exists(), reason="the rulebook text (shared/seeds) is not here")
def test_every_section_is_at_its_line_of_the_rulebook_text():
    lines = SEED.read_text(encoding="utf-8").splitlines()
    for s in SECTIONS:
        assert s.anchor.lower() in lines[s.line - 1].lower(), (s.key, s.line, lines[s.line - 1][:80])
    toc = "\n".join(lines[:30])
    for c in CHAPTERS:
        for name in c.name_ru.split("; "):
            assert name in toc, c.key


def test_every_test_a_reading_names_exists(index):
    reads = readings(index=index)
    assert [r.number for r in reads][:3] == [1, 2, 3] and len(reads) >= 34
    assert {r.number: r.missing for r in reads if r.missing} == {}
    assert all(r.tests for r in reads if r.named)


# ---------------------------------------------------------------- the test scan
SCANNED = '''
    import pytest
    from sim.rules.game import Action
    from sim.rules.special import special_move

    TRAIT_CASES = ["Sixth Sense", "Pierce (2)"]

    def _fighter(**kw):
        return dict(traits=["Armour (2)"], **kw)

    @pytest.fixture
    def burning():
        return {"conditions": {"fire": [2]}}

    @pytest.mark.parametrize("trait", TRAIT_CASES)
    def test_uses_a_helper_and_constants(trait):
        _fighter(strong=True)
        assert trait

    def test_slam_by_name_and_a_walk(burning):
        """Docstrings do not count: prone, Reach."""
        Action("walk", "a", point=(1, 2))
        special_move(None, "a", "b", "push")

    def test_command_line_in_order_with_reach():
        assert "reach" and "spirit"
'''


@pytest.fixture
def scanned(tmp_path) -> TestIndex:
    (tmp_path / "test_sample.py").write_text(textwrap.dedent(SCANNED), encoding="utf-8")
    return TestIndex(tmp_path)


def test_scan_follows_helpers_fixtures_constants_and_parametrize(scanned):
    helper, walk, words = ("test_sample.py::" + n for n in
                           ("test_uses_a_helper_and_constants", "test_slam_by_name_and_a_walk",
                            "test_command_line_in_order_with_reach"))
    assert scanned.tests() == [helper, walk, words]
    assert scanned.covering(Probe(traits=("armour",))) == [helper]          # traits=[...] in a helper
    assert scanned.covering(Probe(traits=("strong",))) == [helper]          # a keyword argument
    assert scanned.covering(Probe(traits=("sixth_sense", "pierce"))) == [helper]  # parametrize cases
    assert scanned.covering(Probe(conditions=("on_fire",))) == [walk]       # "fire" in a fixture
    assert scanned.covering(Probe(specials=("slam-attack",))) == [walk]     # the test's name
    assert scanned.covering(Probe(specials=("push-attack",))) == [walk]     # a string naming it
    assert scanned.covering(Probe(actions=("walk",))) == [walk]
    assert scanned.covering(Probe(symbols=("sim.rules.special.special_move",))) == [walk]
    assert scanned.covering(Probe(modules=("sim.rules.special",))) == [walk]
    assert scanned.covering(Probe(titles=("*in_order*",))) == [words]
    assert scanned.covering(Probe()) == []


def test_scan_ignores_docstrings_ordinary_words_and_strings_outside_a_trait(scanned):
    assert scanned.covering(Probe(conditions=("prone",))) == []             # only in a docstring
    assert scanned.covering(Probe(traits=("reach",))) == []                 # a bare string, a docstring
    assert scanned.covering(Probe(traits=("command", "order", "spirit"))) == []  # ordinary words
    assert scanned.covering(Probe(conditions=("controlled",))) == []


def test_command_writes_the_page_and_check_tells_a_stale_one(tmp_path, capsys):
    out = tmp_path / "conformance.md"
    assert conformance_main(["--out", str(out), "--check"]) == 1
    assert REGENERATE in capsys.readouterr().err
    assert conformance_main(["--out", str(out)]) == 0
    assert conformance_main(["--out", str(out), "--check"]) == 0
    assert out.read_text(encoding="utf-8").startswith("# Conformance")


def test_every_worked_example_of_the_rulebook_is_played_by_a_test(index):
    from sim.rules.conformance.page import example_tests

    rulebook = SEED
    for ex, found, missing in example_tests(index):
        assert found and not missing, f"line {ex.line} ({ex.topic}): tests {missing or ex.tests} name no test"
    if rulebook.is_file():  # every "Пример" paragraph of the rulebook is in the list
        lines = rulebook.read_text(encoding="utf-8").splitlines()
        marked = {i + 1 for i, text in enumerate(lines) if "Пример" in text}
        from sim.rules.conformance.data import EXAMPLES
        assert marked <= {ex.line for ex in EXAMPLES}
