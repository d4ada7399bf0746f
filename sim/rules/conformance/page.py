"""The rows of the conformance page, read from the registries, and the page itself
(Markdown).

One :class:`Row` per rulebook section (:data:`~sim.rules.conformance.data.SECTIONS`),
action kind (:data:`sim.rules.game.ACTION_KINDS`), condition
(:data:`sim.rules.conditions.CONDITIONS`), special attack or defence
(:data:`sim.rules.melee.SPECIAL_RULES`), Ki feat (:data:`sim.rules.ki.GENERIC_FEATS`),
trait (:data:`models.traits.TRAITS`) and bundled scenario (``data/scenarios``), each with
its page, status, what the engine does, where it lives and the tests that cover it
(:mod:`sim.rules.conformance.coverage`). The geometric readings of
``docs/rulings-project.md`` are listed with the tests they name.
"""

from __future__ import annotations

import fnmatch
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from models.traits import STATUSES, TRAITS, trait_key
from sim.rules.conditions import CONDITIONS
from sim.rules.conformance.coverage import Probe, TestIndex, scan_tests
from sim.rules.conformance.data import (
    ACTION_STATUS,
    CHAPTERS,
    CONDITION_STATUS,
    EXAMPLES,
    SECTIONS,
    SPECIAL_PAGES,
    SPECIAL_STATUS,
    TRAIT_PROBES,
    Example,
    Status,
)
from sim.rules.game import ACTION_KINDS, Game
from sim.rules.ki import GENERIC_FEATS, Feat
from sim.rules.melee import SPECIAL_RULES, SpecialRule
from sim.rules.scenario import list_scenarios, load_scenario

__all__ = ["ROOT", "Reading", "Row", "TABLES", "build_page", "example_tests", "readings", "rows"]

#: The repository (``docs/``, ``tests/``).
ROOT = Path(__file__).resolve().parents[3]

#: The tables of the page, in order: key -> title.
TABLES = {
    "sections": "Rulebook sections",
    "actions": "Actions",
    "conditions": "Conditions",
    "specials": "Special attacks and defences",
    "feats": "Ki feats",
    "traits": "Traits",
    "scenarios": "Bundled scenarios",
}


@dataclass
class Row:
    """One line of a table of the page.

    Attributes:
        table: a key of :data:`TABLES`; group: the chapter (sections) or ``""``.
        key: the registry key; name: as the rulebook prints it; page: ``p.N``.
        status: ``automated``, ``partly`` or ``manual`` (``""`` for a scenario file).
        what: what the engine does (and, unless automated, what it leaves to the players).
        where: the modules that hold it; extra: more columns (name -> text).
        probe: what a covering test uses; tests: the ids of the covering tests.
    """

    table: str
    key: str
    name: str
    page: str
    status: str
    what: str
    where: tuple[str, ...]
    probe: Probe
    group: str = ""
    extra: dict[str, str] = field(default_factory=dict)
    tests: list[str] = field(default_factory=list)


def _section_rows() -> list[Row]:
    chapters = {c.key: c for c in CHAPTERS}
    out = []
    for s in SECTIONS:
        what = s.note + (f" ({s.rulings})" if s.rulings else "")
        out.append(Row("sections", s.key, s.name, s.page, s.status, what, s.where, s.probe,
                       group=f"{chapters[s.chapter].name} ({chapters[s.chapter].pages})"))
    return out


def _counters(n: int) -> str:
    return {0: "none", 1: "1 (Simple)", 2: "2 (Complex)"}[n]


def _action_rows() -> list[Row]:
    out = []
    for key, kind in ACTION_KINDS.items():
        st = ACTION_STATUS.get(key, Status("manual", "NO STATUS RECORDED in sim.rules.conformance.data.ACTION_STATUS"))
        what = f"counters {_counters(kind.counters)}, timing {kind.timing}"
        what += f", Ki boost: {kind.boost}" if kind.boost else ""
        what += f"; {st.note}" if st.note else ""
        out.append(Row("actions", key, kind.name, kind.page, st.status, what, (kind.resolve.__module__,),
                       Probe(actions=(key,))))
    return out


def _condition_rows() -> list[Row]:
    out = []
    for key, c in CONDITIONS.items():
        st = CONDITION_STATUS[key]
        what = c.effect + (f"; {st.note}" if st.note else "")
        out.append(Row("conditions", key, c.title, f"p.{c.page}", st.status, what, ("sim.rules.conditions",),
                       Probe(conditions=(key,))))
    return out


def _special_effect(r: SpecialRule) -> str:
    parts = []
    if r.move:
        parts.append(f"move `{r.move}` ({r.mover})")
    if r.no_damage:
        parts.append("no damage roll")
    if r.halves:
        parts.append("damage halved")
    if r.enemy_prone:
        parts.append("the other model Prone")
    if r.enemy_condition:
        parts.append(f"the other model {r.enemy_condition.capitalize()}")
    if r.removes:
        parts.append({"enemy": "the Defender removed", "both": "both models removed"}[r.removes])
    extra = {"combo-attack": "further damage rolls at success level - 2",
             "critical-attack": "a double on the damage roll removes the Defender",
             "powerful-attack": "+3 Strength to the damage roll",
             "counterstrike-defence": "a damage roll at success level - 2",
             "eagles-flight-defence": "the Defender may move 3\" after the exchange",
             "dual-attack": "one more damage roll at the same success level (catalogue)",
             "web-defence": "the enemy may not move until the current activation ends (catalogue)"}
    if r.key in extra:
        parts.append(extra[r.key])
    return ", ".join(parts)


def _special_rows() -> list[Row]:
    out = []
    for key, r in SPECIAL_RULES.items():
        st = SPECIAL_STATUS.get(key)
        status, note = (st.status, st.note) if st else ("automated", "")
        what = _special_effect(r) + (f"; {note}" if note else "")
        where = ("sim.rules.melee",) + (("sim.rules.special",) if r.move else ())
        out.append(Row("specials", key, r.name, SPECIAL_PAGES.get(key, SPECIAL_PAGES[r.kind]), status, what, where,
                       Probe(specials=(key,)), extra={"kind": r.kind}))
    out.append(Row("specials", "card", "Specials printed only on cards", "p.39", "manual",
                   "paid and allocated like any special; its effect is the card's, applied by the players",
                   ("sim.rules.melee",), Probe()))
    return out


def _feat_text(f: Feat) -> str:
    area = f.area + (f" {f.range:g}\"" if f.range is not None else "")
    return f"cost {f.cost}, {f.timing}, {area}"


def _feat_rows() -> list[Row]:
    out = []
    for name, f in GENERIC_FEATS.items():
        automated = name in Game.AUTOMATED_FEATS or f.boost
        status = "automated" if automated else "manual"
        out.append(Row("feats", name, name, "p.47" if f.boost else "p.46-47", status,
                       f"{_feat_text(f)}: {f.effect}", ("sim.rules.ki", "sim.rules.game.ki_step"),
                       Probe(strings=(name,), titles=(f"*{trait_key(name)}*",)), extra={"feat": _feat_text(f)}))
    out.append(Row("feats", "card", "Ki feats of the profile cards", "p.46-47", "partly",
                   "read from the catalogues with cost, timing and area; paid, tested and logged; the effect is "
                   "the card's, applied by the players", ("sim.rules.ki", "sim.rules.game.ki_step"),
                   Probe(symbols=("sim.rules.ki.feat_from_card", "sim.rules.ki.model_feats"))))
    return out


def _trait_rows() -> list[Row]:
    return [Row("traits", t.key, t.name, f"p.{t.page}" if t.page else "catalogue", t.status, t.summary, t.acts,
                Probe(traits=(t.key,)) | TRAIT_PROBES.get(t.key, Probe()),
                extra={"weapon": "weapon" if t.weapon else ""})
            for t in TRAITS.values()]


def _scenario_rows() -> list[Row]:
    out = []
    for key in list_scenarios():
        sc = load_scenario(key)
        out.append(Row("scenarios", key, sc.name, "p.63", "automated",
                       f"{', '.join(sc.types)}; deployment {sc.deployment}", ("sim.rules.scenario",),
                       Probe(strings=(key,))))
    return out


def rows(index: TestIndex | None = None) -> list[Row]:
    """Every row of the page, in page order, with the ids of its covering tests (found in
    ``index``, the tests of ``tests/`` by default)."""
    index = index if index is not None else scan_tests(ROOT / "tests")
    out = (_section_rows() + _action_rows() + _condition_rows() + _special_rows() + _feat_rows() + _trait_rows()
           + _scenario_rows())
    for r in out:
        r.tests = index.covering(r.probe)
    return out


# --------------------------------------------------------------------- readings
@dataclass(frozen=True)
class Reading:
    """A numbered reading of ``docs/rulings-project.md``: its number, question, the test
    names its table gives (``test_zoc_of_*``, ``tests/test_game_invariants.py``), the ids
    of the tests they name, and the names that name no test."""

    number: int
    question: str
    named: tuple[str, ...]
    tests: tuple[str, ...]
    missing: tuple[str, ...]


def _resolve(name: str, ids: Sequence[str]) -> list[str]:
    """The test ids a name of the readings table stands for: a file (``tests/test_x.py``),
    an id (``test_x.py::test_y``), a pattern (``test_zoc_of_*``), ``test_y...`` (a prefix)
    or a test's name; parameters in brackets are ignored."""
    name = re.sub(r"\[[^\]]*\]$", "", name)
    if name.startswith("tests/") and name.endswith(".py"):
        return [i for i in ids if i.startswith(name[len("tests/"):] + "::")]
    if "::" in name:
        return [i for i in ids if i == name]
    if name.endswith("..."):
        name = name[:-3] + "*"
    return [i for i in ids if fnmatch.fnmatchcase(i.rsplit("::", 1)[-1], name)]


def readings(path: Path | None = None, index: TestIndex | None = None) -> list[Reading]:
    """The readings of ``docs/rulings-project.md`` (rows ``| N | question | ... | tests |``)
    with the tests their last column names."""
    path = path if path is not None else ROOT / "docs" / "rulings-project.md"
    index = index if index is not None else scan_tests(ROOT / "tests")
    ids = index.tests()
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        m = re.match(r"\|\s*(\d+)\s*\|", line)
        if not m:
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        named = tuple(n for n in re.findall(r"`([^`]+)`", cells[-1]) if n.startswith(("test", "tests/")))
        found: list[str] = []
        missing = []
        for n in named:
            hit = _resolve(n, ids)
            found += [h for h in hit if h not in found]
            if not hit:
                missing.append(n)
        out.append(Reading(int(m.group(1)), cells[1], named, tuple(found), tuple(missing)))
    return sorted(out, key=lambda r: r.number)


# --------------------------------------------------------------------- markdown
def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _where(mods: Iterable[str]) -> str:
    return ", ".join(f"`{m}`" for m in mods) or "—"


def _words(text: str) -> set[str]:
    return {w for w in re.split(r"[^a-z0-9]+", text.lower()) if len(w) >= 4}


def _tests_cell(row: Row, shown: int = 3) -> str:
    """``N: id, id, id +k more``, the tests whose name names the row first."""
    if not row.tests:
        return "—"
    words = _words(f"{row.key} {row.name}")
    ranked = sorted(row.tests, key=lambda t: not (words & set(t.rsplit("::", 1)[-1].split("_"))))
    more = len(row.tests) - shown
    return f"{len(row.tests)}: " + ", ".join(f"`{t}`" for t in ranked[:shown]) + (f" +{more} more" if more > 0 else "")


def _status(row: Row) -> str:
    return f"**{row.status}**" if row.status == "automated" else row.status


def _counts(rs: Sequence[Row]) -> list[str]:
    c = Counter(r.status for r in rs)
    covered = sum(1 for r in rs if r.tests)
    return [str(len(rs))] + [str(c.get(s, 0)) for s in STATUSES] + [str(covered)]


def _summary(all_rows: Sequence[Row], reads: Sequence[Reading]) -> list[str]:
    lines = ["| table | rows | automated | partly | manual | covered by a test |", "|---|---:|---:|---:|---:|---:|"]
    for key, title in TABLES.items():
        rs = [r for r in all_rows if r.table == key]
        lines.append(f"| [{title}](#{_anchor(title)}) | " + " | ".join(_counts(rs)) + " |")
    lines.append("| **all** | " + " | ".join(f"**{x}**" for x in _counts(all_rows)) + " |")
    with_tests = sum(1 for r in reads if r.tests)
    auto_without = [r for r in all_rows if r.status == "automated" and not r.tests]
    lines += ["", f"Readings of `docs/rulings-project.md`: {len(reads)}, {with_tests} of them name a test that exists."
              f" Automated rows without a covering test: {len(auto_without)}."]
    return lines


def _anchor(title: str) -> str:
    return re.sub(r"[^a-z0-9 -]", "", title.lower()).replace(" ", "-")


_HEAD = """# Conformance: what the engine does

Generated from the registries by `python -m sim.rules.conformance` (do not edit; run it
after changing a registry or a test: `tests/test_conformance.py` fails while this page is
stale). One row per rulebook section, action kind, condition, special attack or defence,
Ki feat, trait and bundled scenario: its page in the Risen Sun rulebook, its status, what
the engine does, where it lives and the tests that cover it.

* **automated**: the engine applies it; **partly**: the text says what it leaves to the
  players; **manual**: the players apply it (the engine may still read or check it).
* Pages are the book's (its table of contents); a page without a citation in the code is
  placed by the entry's position in its chapter and may be one page off.
* Tests are found, not listed by hand: every test function of `tests/` is read (with the
  helpers, fixtures and constants it uses) and a row is covered by the tests that use its
  key: an `Action` of the kind, a string naming the condition, trait or special in any
  spelling (`"Armour (2)"`, `"on fire"`, `"slam"`), a keyword argument named after a trait
  (`strong=True`), a test name that names it, or, for a rulebook section, a use of the
  functions that implement it (`sim.rules.conformance.coverage`). The first tests shown
  are those whose name names the row.
"""


def _table(rs: Sequence[Row], cols: Sequence[tuple[str, str]]) -> list[str]:
    head = [name for name, _ in cols]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rs:
        vals = []
        for _, what in cols:
            if what == "name":
                keyed = r.table in ("actions", "specials", "scenarios")
                vals.append(_cell(r.name) + (f" (`{r.key}`)" if keyed else ""))
            elif what == "status":
                vals.append(_status(r))
            elif what == "where":
                vals.append(_where(r.where))
            elif what == "tests":
                vals.append(_tests_cell(r))
            elif what in ("page", "what"):
                vals.append(_cell(getattr(r, what)))
            else:
                vals.append(_cell(r.extra.get(what, "")))
        lines.append("| " + " | ".join(vals) + " |")
    return lines


_COLUMNS = [("name", "name"), ("page", "page"), ("status", "status"), ("what the engine does", "what"),
            ("where", "where"), ("tests", "tests")]


def _catalogue_feats_section() -> list[str]:
    """The catalogue Ki feats of the feat data (``data/feats``, :mod:`sim.rules.feat_effects`):
    how many the engine applies, and why the others are left to the players, by reason."""
    from sim.rules.feat_effects import effect_status, feat_effects

    entries = feat_effects()
    verdicts = {name: effect_status(name) for name in sorted(entries)}
    applied = [n for n, (ok, _) in verdicts.items() if ok]
    out = ["", "## Catalogue Ki feats", "",
           f"The curated feat data (`data/feats/effects.yaml` drafted, `data/feats/curated/*.yaml` by hand) describes "
           f"{len(entries)} catalogue feats; the engine applies the effect of {len(applied)} of them in play "
           "(`benchmarks/card_coverage.py` counts the links on the catalogues' cards). Every other feat is paid, "
           "tested and logged with its card text as a manual step; each is listed here with the reason.", "",
           "| feat | why the players apply it |", "|---|---|"]
    for name, (ok, why) in verdicts.items():
        if not ok:
            out.append(f"| {_cell(name)} | {_cell(why.removeprefix('manual: '))} |")
    return out


def example_tests(index: TestIndex | None = None) -> list[tuple[Example, list[str], list[str]]]:
    """``(example, test ids, names that name no test)`` for every worked example of the
    rulebook (:data:`~sim.rules.conformance.data.EXAMPLES`)."""
    index = index if index is not None else scan_tests(ROOT / "tests")
    ids = sorted(index.evidence)
    out: list[tuple[Example, list[str], list[str]]] = []
    for ex in EXAMPLES:
        found: list[str] = []
        missing: list[str] = []
        for name in ex.tests:
            got = _resolve(name, ids)
            found += [t for t in got if t not in found]
            if not got:
                missing.append(name)
        out.append((ex, found, missing))
    return out


def build_page(index: TestIndex | None = None, readings_path: Path | None = None) -> str:
    """The whole page (Markdown, ending with a newline). Deterministic: the same
    registries and tests give the same text."""
    index = index if index is not None else scan_tests(ROOT / "tests")
    all_rows = rows(index)
    reads = readings(readings_path, index)
    out = [_HEAD, "## Summary", ""] + _summary(all_rows, reads)
    for key, title in TABLES.items():
        rs = [r for r in all_rows if r.table == key]
        out += ["", f"## {title}", ""]
        if key == "sections":
            out += ["Each chapter of the rulebook; the actions, conditions, specials, Ki feats and traits have "
                    "their own tables below."]
            for group in dict.fromkeys(r.group for r in rs):
                out += ["", f"### {group}", ""] + _table([r for r in rs if r.group == group], _COLUMNS)
        else:
            cols = list(_COLUMNS)
            if key == "specials":
                cols.insert(1, ("kind", "kind"))
            if key == "traits":
                cols.insert(1, ("weapon", "weapon"))
            out += _table(rs, cols)
    out += _catalogue_feats_section()
    examples = example_tests(index)
    played = sum(1 for _, found, missing in examples if found and not missing)
    out += ["", "## Worked examples", "",
            f"Every worked example of the rulebook (its \"Пример\" paragraphs) and the tests that play it: "
            f"{played} of {len(examples)} played by tests; \"game\": through the `Game`, \"rules\": through the "
            "rules function the `Game` uses.", "",
            "| line | page | example | via | tests | missing |", "|---|---|---|---|---|---|"]
    for ex, found, missing in examples:
        tests = (f"{len(found)}: " + ", ".join(f"`{t}`" for t in found[:3])
                 + (f" +{len(found) - 3} more" if len(found) > 3 else "")) if found else "—"
        out.append(f"| {ex.line} | p.{ex.page} | {_cell(ex.topic)} | {ex.via} | {tests} | "
                   f"{', '.join(f'`{m}`' for m in missing)} |")
    out += ["", "## Readings (docs/rulings-project.md)", "",
            "The project's own readings of geometric questions, with the tests their table names "
            "(a name that names no test is listed as missing).", "",
            "| # | question | tests | missing |", "|---|---|---|---|"]
    for r in reads:
        q = r.question if len(r.question) <= 110 else r.question[:107].rstrip() + "..."
        tests = f"{len(r.tests)}: " + ", ".join(f"`{t}`" for t in r.tests[:3]) + (
            f" +{len(r.tests) - 3} more" if len(r.tests) > 3 else "") if r.tests else "—"
        out.append(f"| {r.number} | {_cell(q)} | {tests} | {', '.join(f'`{m}`' for m in r.missing) or ''} |")
    return "\n".join(out).rstrip() + "\n"
