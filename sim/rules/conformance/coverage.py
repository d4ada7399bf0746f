"""Which tests cover what: a scan of the test sources (``tests/test_*.py``) with :mod:`ast`.

Nothing is declared by hand, so nothing can go stale: every time the conformance page is
written the tests are read again. For each test function (``test_*`` at module level or
in a ``Test*`` class) the scan gathers its *evidence*:

* every string constant (``"prone"``, ``"Armour (2)"``, ``"slam-attack"``), docstrings
  excluded;
* the kind of every ``Action(...)`` it builds (first argument or ``kind=``) or compares
  (``a.kind == "walk"``, ``doc["kind"] in ("walk", "run")``);
* every identifier it uses (names and attribute names: ``special_move``, ``los``);
* every module it uses, through the names the test file imports
  (``from sim.rules.melee import resolve_exchange`` -> ``sim.rules.melee``).

A test's evidence includes that of its decorators (``pytest.mark.parametrize`` cases),
of the module-level helper functions, fixtures and constants it uses, in its own file or
in ``tests/conftest.py``, followed to any depth. A row of the page is covered by a test
when the row's probes (:class:`Probe`) meet the test's evidence: a condition row by a
string whose :func:`sim.rules.conditions.condition_key` is that condition, a trait row by
a string whose :func:`models.traits.parse_trait_text` key is that trait, an action row by
an ``Action`` of that kind, and so on (:meth:`TestIndex.covering`).
"""

from __future__ import annotations

import ast
import fnmatch
import re
from collections.abc import Callable, Iterable
from dataclasses import astuple, dataclass, field
from functools import lru_cache
from pathlib import Path

from models.traits import parse_trait_text
from sim.rules.conditions import CONDITIONS, condition_key
from sim.rules.melee import parse_special

__all__ = ["SELF_TESTS", "Evidence", "Probe", "TestIndex", "scan_tests", "special_key", "trait_of"]


@dataclass
class Evidence:
    """What one test (or one helper) uses: string constants, ``Action`` kinds,
    identifiers and imported modules (dotted names)."""

    strings: set[str] = field(default_factory=set)
    actions: set[str] = field(default_factory=set)
    names: set[str] = field(default_factory=set)
    attrs: set[str] = field(default_factory=set)
    keywords: set[str] = field(default_factory=set)
    trait_strings: set[str] = field(default_factory=set)
    modules: set[str] = field(default_factory=set)
    title: str = ""

    def update(self, other: "Evidence") -> None:
        """Add ``other``'s evidence to this one (its title stays)."""
        self.strings |= other.strings
        self.actions |= other.actions
        self.names |= other.names
        self.attrs |= other.attrs
        self.keywords |= other.keywords
        self.trait_strings |= other.trait_strings
        self.modules |= other.modules


@dataclass(frozen=True)
class Probe:
    """What a row of the page looks for in the tests. Every field is a tuple of keys:

    * ``traits``: trait keys (:data:`models.traits.TRAITS`), met by a string naming the
      trait in any spelling (``"Sixth Sense"``, ``"sixth_sense"``, ``"Armour (2)"``);
    * ``conditions``: condition keys (:data:`sim.rules.conditions.CONDITIONS`), met by a
      string whose :func:`~sim.rules.conditions.condition_key` is the key (``"fire"``);
    * ``specials``: special keys (:data:`sim.rules.melee.SPECIAL_RULES`), met by a string
      naming the special or its move (``"slam"``, ``"Slam Attack (1)"``);
    * ``actions``: action kinds (:data:`sim.rules.game.ACTION_KINDS`), met by an
      ``Action`` of that kind;
    * ``strings``: exact strings, compared case-blind (event kinds, feat names, scenario
      terms: each checked against its registry by the tests of this package);
    * ``symbols``: dotted paths of public functions, classes or methods
      (``sim.geometry.measure.Scene.los``), met by the use of the last name: as an
      attribute (``scene.los(...)``) when the name before it is capitalised (a member of a
      class: ``Scene.los``, ``Size.HUGE``), else also as a plain name
      (``check_walk(...)``);
    * ``modules``: dotted module names, met by a test that uses a name imported from that
      module or from a module inside it;
    * ``titles``: patterns of test names (``*melee_assist*``, :mod:`fnmatch`), met by a
      test whose name matches one.
    """

    traits: tuple[str, ...] = ()
    conditions: tuple[str, ...] = ()
    specials: tuple[str, ...] = ()
    actions: tuple[str, ...] = ()
    strings: tuple[str, ...] = ()
    symbols: tuple[str, ...] = ()
    modules: tuple[str, ...] = ()
    titles: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return any((self.traits, self.conditions, self.specials, self.actions, self.strings, self.symbols,
                    self.modules, self.titles))

    def __or__(self, other: "Probe") -> "Probe":
        """A probe met by what meets either."""
        return Probe(*(tuple(dict.fromkeys(a + b)) for a, b in zip(astuple(self), astuple(other))))


@lru_cache(maxsize=65536)
def trait_of(text: str) -> str | None:
    """The trait key a string names (``"Armour (2)"`` -> ``armour``), None when it is not of
    the form ``Name [Qualifier] (Value)`` or is longer than 60 characters (a sentence)."""
    if len(text) > 60:
        return None
    t = parse_trait_text(text)
    return t.key if t is not None and t.key else None


@lru_cache(maxsize=65536)
def _condition_of(text: str) -> str | None:
    return condition_key(text) if len(text) <= 40 else None


@lru_cache(maxsize=65536)
def special_key(text: str) -> str | None:
    """The special key a string names (``"slam"``, ``"Slam Attack (1)"``, ``"push-defence"``
    -> ``slam-attack``, ``slam-attack``, ``push-defence``), None for a string that names
    none of :data:`sim.rules.melee.SPECIAL_RULES` or is longer than 40 characters."""
    if len(text) > 40 or not text.strip():
        return None
    for printed in (text, f"{text} (0)"):  # printed with its cost, or a bare name
        try:
            option = parse_special(printed)
        except ValueError:
            continue
        return option.key if option.rule is not None else None
    return None


def _is_docstring(node: ast.AST, parent: ast.AST | None) -> bool:
    return (isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Module))
            and bool(parent.body) and parent.body[0] is node)


class _Module:
    """One test file: its imports, module-level helpers and constants, and tests."""

    def __init__(self, path: Path, tree: ast.Module) -> None:
        self.path = path
        self.imports: dict[str, str] = {}  # local name -> dotted module (or module.name)
        self.defs: dict[str, ast.AST] = {}  # helpers, fixtures, constants, classes
        self.tests: list[tuple[str, ast.AST]] = []  # (test id, function node)
        for node in tree.body:
            if isinstance(node, ast.Import):
                for a in node.names:
                    self.imports[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name.split(".")[0]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                for a in node.names:
                    self.imports[a.asname or a.name] = f"{node.module}.{a.name}"
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if node.name.startswith("test"):
                    self.tests.append((f"{path.name}::{node.name}", node))
                else:
                    self.defs[node.name] = node
            elif isinstance(node, ast.ClassDef):
                if node.name.startswith("Test"):
                    for sub in node.body:
                        if isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef)) and sub.name.startswith("test"):
                            self.tests.append((f"{path.name}::{node.name}::{sub.name}", sub))
                else:
                    self.defs[node.name] = node
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for t in targets:
                    for n in ast.walk(t):
                        if isinstance(n, ast.Name):
                            self.defs[n.id] = node


#: ``traits: [a, b]`` in a YAML text.
_YAML_TRAITS = re.compile(r"traits:\s*\[([^\]\n]*)\]")


def _names_traits(node: ast.AST, child: ast.AST | None) -> bool:
    """Whether ``node`` makes the strings below it (``child``'s) trait names: a
    ``traits=`` argument, a call of a ``*trait*`` function, a ``"traits"`` entry of a
    dict, an assignment to a ``*trait*`` name."""
    if isinstance(node, ast.keyword):
        return "trait" in (node.arg or "")
    if isinstance(node, ast.Call):
        f = node.func
        return "trait" in (f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else "")
    if isinstance(node, ast.Dict):
        return any(v is child and isinstance(k, ast.Constant) and "trait" in str(k.value)
                   for k, v in zip(node.keys, node.values))
    if isinstance(node, (ast.Assign, ast.AnnAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return any(isinstance(t, ast.Name) and "trait" in t.id.lower() for t in targets)
    return False


def _is_kind(node: ast.AST) -> bool:
    """``x.kind`` or ``x["kind"]``: an action's kind."""
    if isinstance(node, ast.Attribute):
        return node.attr == "kind"
    return isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and node.slice.value == "kind"


def _own_evidence(node: ast.AST, imports: dict[str, str]) -> tuple[Evidence, set[str]]:
    """The evidence found in ``node`` itself and the module-level names it refers to."""
    ev = Evidence()
    refs: set[str] = set()
    parents: dict[ast.AST, ast.AST] = {}
    for parent in ast.walk(node):
        for child in ast.iter_child_nodes(parent):
            parents[child] = parent
    for n in ast.walk(node):
        if isinstance(n, ast.Constant) and isinstance(n.value, str):
            expr = parents.get(n)
            if not (isinstance(expr, ast.Expr) and _is_docstring(expr, parents.get(expr))):
                ev.strings.add(n.value)
                for listed in _YAML_TRAITS.findall(n.value):  # a table written as YAML text
                    ev.trait_strings.update(t.strip(" '\"") for t in listed.split(","))
                below: ast.AST = n
                up = parents.get(n)
                while up is not None:
                    if _names_traits(up, below):
                        ev.trait_strings.add(n.value)
                        break
                    below, up = up, parents.get(up)
        elif isinstance(n, ast.Name):
            ev.names.add(n.id)
            refs.add(n.id)
            if n.id in imports:
                ev.modules.add(imports[n.id])
        elif isinstance(n, ast.Attribute):
            ev.attrs.add(n.attr)
        elif isinstance(n, ast.arg):
            refs.add(n.arg)  # a fixture of that name
        elif isinstance(n, ast.keyword) and n.arg:
            ev.keywords.add(n.arg)  # fighter(strong=True), body(construct=True)
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "Action":
            kind: ast.expr | None = (n.args[0] if n.args
                                     else next((k.value for k in n.keywords if k.arg == "kind"), None))
            if isinstance(kind, ast.Constant) and isinstance(kind.value, str):
                ev.actions.add(kind.value)
        elif isinstance(n, ast.Compare) and _is_kind(n.left):  # a.kind == "walk", a["kind"] in ("walk", "run")
            for c in n.comparators:
                for k in (c.elts if isinstance(c, (ast.Tuple, ast.List, ast.Set)) else [c]):
                    if isinstance(k, ast.Constant) and isinstance(k.value, str):
                        ev.actions.add(k.value)
        elif isinstance(n, ast.Dict):  # Action.from_json({"kind": "walk", ...})
            for key, val in zip(n.keys, n.values):
                if (isinstance(key, ast.Constant) and isinstance(key.value, str) and isinstance(val, ast.Constant)
                        and isinstance(val.value, (bool, int))):
                    ev.keywords.add(key.value)  # {"aggressive": True}: keyword arguments passed as **dict
                if (isinstance(key, ast.Constant) and key.value == "kind" and isinstance(val, ast.Constant)
                        and isinstance(val.value, str) and any(
                            isinstance(kk, ast.Constant) and kk.value == "model" for kk in n.keys)):
                    ev.actions.add(val.value)
    return ev, refs


class TestIndex:
    """The tests of a folder and what each uses (:class:`Evidence`).

    Args:
        tests_dir: the folder of ``test_*.py`` files (and ``conftest.py``, whose helpers
            and fixtures the tests may use).
        exclude: names of test files to leave out.

    Attributes:
        evidence: test id (``test_melee.py::test_slam_halves_the_damage``) -> its evidence.
    """

    __test__ = False  # not a pytest class

    def __init__(self, tests_dir: Path, exclude: Iterable[str] = ()) -> None:
        self.tests_dir = Path(tests_dir)
        self.evidence: dict[str, Evidence] = {}
        self._facts: dict[str, _Facts] | None = None
        conftest = self.tests_dir / "conftest.py"
        shared = _Module(conftest, ast.parse(conftest.read_text(encoding="utf-8"))) if conftest.exists() else None
        for path in sorted(self.tests_dir.glob("test_*.py")):
            if path.name in exclude:
                continue
            mod = _Module(path, ast.parse(path.read_text(encoding="utf-8"), filename=str(path)))
            cache: dict[tuple[int, str], Evidence] = {}
            for test_id, node in mod.tests:
                ev = self._gather(node, mod, shared, cache, set())
                ev.title = test_id.rsplit("::", 1)[-1]
                self.evidence[test_id] = ev

    def _gather(self, node: ast.AST, mod: _Module, shared: _Module | None, cache: dict[tuple[int, str], Evidence],
                seen: set[str]) -> Evidence:
        ev, refs = _own_evidence(node, {**(shared.imports if shared else {}), **mod.imports})
        for name in sorted(refs - seen):
            seen.add(name)
            owner = mod if name in mod.defs else shared if shared is not None and name in shared.defs else None
            if owner is None:
                continue
            key = (id(owner), name)
            if key not in cache:
                cache[key] = Evidence()  # a recursive helper sees itself as empty
                cache[key] = self._gather(owner.defs[name], owner, shared, cache, seen)
            ev.update(cache[key])
        return ev

    def tests(self) -> list[str]:
        """Every test id, in file order."""
        return list(self.evidence)

    def covering(self, probe: Probe) -> list[str]:
        """The ids of the tests whose evidence meets ``probe`` (see :class:`Probe`), in file
        order; empty for an empty probe."""
        if not probe:
            return []
        if self._facts is None:
            self._facts = {tid: _Facts.of(ev) for tid, ev in self.evidence.items()}
        return [tid for tid, facts in self._facts.items() if facts.meet(probe)]


def _keys(values: Iterable[str], key: Callable[[str], str | None]) -> set[str]:
    return {k for k in map(key, values) if k}


def _spans(title: str, longest: int = 3) -> set[str]:
    """The runs of one to ``longest`` words of a test name (``test_on_fire_wounds`` ->
    ``on``, ``on_fire``, ``fire_wounds`` ...), ``test`` dropped."""
    words = [w for w in title.split("_") if w][1:]
    return {"_".join(words[i:i + n]) for n in range(1, longest + 1) for i in range(len(words) - n + 1)}


#: Trait names that are ordinary words in a test's name (``command_line``, ``byte_order``,
#: ``walk_reach``, ``huge_numbers``, ``spirit_bolt``): a test name never counts for these
#: traits (their rows may add probes of their own, e.g. ``Size.HUGE``).
_ORDINARY_WORDS = frozenset({"command", "group", "order", "reach", "huge", "tiny", "spirit"})


def _title_traits(title: str) -> set[str]:
    """The spans of a test name that may name a trait: not an ordinary word
    (:data:`_ORDINARY_WORDS`) and not a condition's name (``fire``, ``bleed`` name the
    conditions in a test's name)."""
    return {sp for sp in _spans(title) if sp not in _ORDINARY_WORDS and _condition_of(sp) not in CONDITIONS}


def _title_specials(title: str) -> set[str]:
    """Specials a test name names: ``slam_attack``, ``push_defence``, or a bare ``slam``
    (the attack) not followed by ``defence``."""
    words = [w for w in title.split("_") if w]
    found = set()
    for i, w in enumerate(words):
        nxt = words[i + 1] if i + 1 < len(words) else ""
        key = special_key(f"{w}-{nxt}") if nxt in ("attack", "defence", "defense") else special_key(w)
        if key is not None:
            found.add(key)
    return found


@dataclass(frozen=True)
class _Facts:
    """What a test's evidence names, as keys: trait, condition and special keys, action
    kinds, lower-case strings, identifiers, modules, its name."""

    traits: frozenset[str]
    conditions: frozenset[str]
    specials: frozenset[str]
    actions: frozenset[str]
    strings: frozenset[str]
    names: frozenset[str]
    attrs: frozenset[str]
    modules: frozenset[str]
    title: str

    @classmethod
    def of(cls, ev: Evidence) -> "_Facts":
        strings = ev.strings if "trait" in ev.title else ev.trait_strings
        traits = _keys(strings, trait_of) | _keys(ev.keywords, trait_of) | _keys(_title_traits(ev.title), trait_of)
        # in a test name, "control" is a control character, not the condition Controlled
        conditions = _keys(ev.strings, _condition_of) | _keys(_spans(ev.title, 2) - {"control"}, _condition_of)
        specials = _keys(ev.strings, special_key) | _title_specials(ev.title)
        modules = set()
        for m in ev.modules:
            parts = m.split(".")
            modules |= {".".join(parts[:i]) for i in range(1, len(parts) + 1)}
        return cls(frozenset(traits), frozenset(conditions), frozenset(specials), frozenset(ev.actions),
                   frozenset(x.lower() for x in ev.strings), frozenset(ev.names | ev.attrs),
                   frozenset(ev.attrs), frozenset(modules), ev.title)

    def meet(self, probe: Probe) -> bool:
        """Whether ``probe`` is met (see :class:`Probe`)."""
        return bool(
            self.actions.intersection(probe.actions)
            or self.traits.intersection(probe.traits)
            or self.conditions.intersection(probe.conditions)
            or self.specials.intersection(probe.specials)
            or self.strings.intersection(x.lower() for x in probe.strings)
            or any(_uses(self, x) for x in probe.symbols)
            or self.modules.intersection(probe.modules)
            or any(fnmatch.fnmatchcase(self.title, t) for t in probe.titles))


def _uses(facts: _Facts, symbol: str) -> bool:
    """Whether a test uses ``symbol`` (see :attr:`Probe.symbols`)."""
    parts = symbol.split(".")
    member = len(parts) > 1 and parts[-2][:1].isupper()
    return parts[-1] in (facts.attrs if member else facts.names)


#: Test files :func:`scan_tests` leaves out: the tests of the scan itself, whose probes and
#: sample tests name traits and conditions without testing them.
SELF_TESTS = ("test_conformance.py",)


@lru_cache(maxsize=4)
def _scan(tests_dir: str, stamp: tuple[tuple[str, int], ...]) -> TestIndex:
    return TestIndex(Path(tests_dir), exclude=SELF_TESTS)


def scan_tests(tests_dir: str | Path) -> TestIndex:
    """The :class:`TestIndex` of ``tests_dir`` without :data:`SELF_TESTS`, cached while no
    test file changes (by name, modification time and size)."""
    path = Path(tests_dir).resolve()
    stamp = tuple((p.name, p.stat().st_mtime_ns ^ p.stat().st_size) for p in sorted(path.glob("*.py")))
    return _scan(str(path), stamp)
