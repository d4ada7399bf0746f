"""The trait registry and its one key (models/traits.py): key spelling, the parser of
printed trait text, has_trait over every kind of trait holder, the registry against the
rulebook text and against the code that looks traits up, and the one condition table
(sim/rules/conditions.py ALIASES, used by melee too)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from conftest import SHARED  # noqa: E402
from hypothesis import given, settings
from hypothesis import strategies as st

from models.bsdata import parse_trait
from models.bsdata.traittext import PRINTED_TRAIT_ALIASES as PRINTED_ALIASES
from models.model import Model
from models.profiles import Trait, get_profile
from models.traits import (
    NOT_TRAITS,
    STATUSES,
    TRAIT_ALIASES,
    TRAITS,
    has_trait,
    keyword_of,
    parse_trait_text,
    registry_counts,
    trait_key,
    trait_rule,
    trait_values,
)
from sim.geometry import Size
from sim.rules import conditions, melee, ranged

ROOT = Path(__file__).resolve().parents[1]
RULEBOOK = next(iter(sorted((SHARED / "seeds").glob("000_*.txt"))), None) if (SHARED / "seeds").is_dir() else None


# --- one key per trait -------------------------------------------------------------------------


@pytest.mark.parametrize("spelling, key", [
    ("Sixth Sense", "sixth_sense"), ("sixth-sense", "sixth_sense"), ("SIXTH_SENSE", "sixth_sense"),
    ("  sixth   sense ", "sixth_sense"), ("Lightning Reflexes", "lightning_reflexes"),
])
def test_key_is_lower_snake_case_whatever_the_separators(spelling, key):
    assert trait_key(spelling) == key


@pytest.mark.parametrize("spelling, key", [
    ("Lightweight", "light_weight"), ("Light Weight", "light_weight"), ("light_footed", "lightfooted"),
    ("Ki-Block", "ki_block"), ("KiBlock", "ki_block"), ("Co-ordinated Attack", "coordinated_attack"),
])
def test_key_of_a_registered_trait_split_differently_is_that_traits_key(spelling, key):
    assert trait_key(spelling) == key


@pytest.mark.parametrize("spelling, key", [
    ("Ranged Defense", "ranged_defence"), ("armor", "armour"), ("Toughness", "tough"),
    ("Range Defence", "ranged_defence"), ("Banzai!", "banzai"), ("Shōgun's Eye", "shoguns_eye"),
])
def test_key_reads_us_spellings_aliases_and_punctuation(spelling, key):
    assert trait_key(spelling) == key


def test_key_of_an_unknown_trait_is_its_snake_case_and_conditions_stay_apart():
    assert trait_key("Foo Bar") == "foo_bar"
    assert trait_key("disguised") == "disguised" != trait_key("Disguise")  # the condition is not the trait
    assert trait_key("!!") == ""


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=40))
def test_key_is_idempotent_and_snake_case(name):
    k = trait_key(name)
    assert trait_key(k) == k
    assert re.fullmatch(r"([a-z0-9]+(_[a-z0-9]+)*)?", k)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.from_regex(r"[A-Z][a-z]{2,9}", fullmatch=True), min_size=1, max_size=3).map(" ".join))
def test_stored_keyword_and_printed_name_have_one_key(name):
    """What a profile stores (keyword_of) and the printed name compare equal."""
    assert trait_key(keyword_of(name)) == trait_key(name)


def test_printed_text_repairs_of_the_importer_agree_with_the_keys():
    """models.bsdata's table of printed spellings maps each to a name of the same key."""
    for spelling, name in PRINTED_ALIASES.items():
        assert trait_key(spelling) == trait_key(name), spelling
    for spelling, key in TRAIT_ALIASES.items():
        assert key in TRAITS and trait_key(spelling) == key


# --- the parser of printed trait text ----------------------------------------------------------


@pytest.mark.parametrize("text, key, qualifier, value", [
    ("Pierce (2)", "pierce", None, "2"),
    ("Poison (1/2)", "poison", None, "1/2"),
    ('Leadership [Ashigaru] (1/6")', "leadership", "Ashigaru", '1/6"'),
    ("Charging Bonus [Pierce (2)]", "charging_bonus", "Pierce (2)", None),
    ("Lightweight", "light_weight", None, None),
    ("  Chain Weapon ( 1 ) ", "chain_weapon", None, " 1 "),
])
def test_parse_trait_text(text, key, qualifier, value):
    t = parse_trait_text(text)
    assert (t.key, t.qualifier, t.value) == (key, qualifier, value)


@pytest.mark.parametrize("text", ["Reach (", "Pierce (3) Reach", "(2)", ""])
def test_text_that_is_not_name_qualifier_value_names_no_trait(text):
    assert parse_trait_text(text) is None
    assert not has_trait([text], "reach") and not has_trait([text], "pierce")


def test_importer_canonical_text_parses_to_the_same_key():
    for printed in ("Armour (2)", 'Leadership [Ashigaru]:(1/6")', "Immune (Fire)", "Co-ordinated Attack"):
        t = parse_trait(printed)
        assert parse_trait_text(t.text).key == trait_key(t.keyword)


# --- has_trait: one normalisation for every holder --------------------------------------------


def test_has_trait_is_the_same_for_printed_traits_records_weapons_profiles_and_models():
    printed = ["Ki-Block", "Sixth Sense", "Tough (2)"]
    records = [Trait("ki-block", None, None, "Ki-Block"), Trait("sixth_sense", None, None, "Sixth Sense"),
               Trait("tough", 2, None, "Tough (2)")]
    weapon = melee.MeleeWeapon("Katana", 1, tuple(printed))
    model = Model("m", 1, 30, Size.SMALL, (0.0, 0.0), traits=("ki-block", "sixth sense", "tough"))
    for query in ("ki block", "Ki_Block", "kiblock", "sixth sense", "SIXTH-SENSE", "tough"):
        assert has_trait(printed, query) and has_trait(records, query), query
        assert ranged.has_trait(printed, query) and weapon.has_trait(query), query
        assert model.has_trait(query), query
    for holder in (printed, records, weapon, model):
        assert not (holder.has_trait("fear") if hasattr(holder, "has_trait") else has_trait(holder, "fear"))


def test_ki_block_spelled_with_a_hyphen_places_its_marker_in_melee():
    """A catalogue weapon prints 'Ki-Block': melee reads it as Ki Block (it used to miss it)."""
    assert melee.MeleeWeapon("Katana", 1, ("Ki-Block",)).trait_values("ki_block") == (1,)


def test_trait_values_keep_the_rules_own_readings():
    assert trait_values(["Poison (1/2)", "Reach", "Poison"], "poison") == ["1/2", None]
    assert melee.MeleeWeapon("x", 0, ("Poison (1/2)",)).trait_values("poison") == (1, 2)
    assert ranged.trait_value(["Reload (2)", "Reload (1)"], "reload") == 2  # the highest (p.48)
    assert ranged.trait_value(["Reload"], "reload") == 0
    with pytest.raises(ValueError):
        ranged.trait_value(["Pierce (X)"], "pierce")


def test_profile_trait_and_has_trait_compare_keys():
    p = get_profile("takashi-akira")
    assert p.has_trait("Sixth Sense") == p.has_trait("sixth_sense") == ("sixth_sense" in p.trait_keywords)
    for t in p.traits:
        assert p.trait(t.text.split(" (")[0].split(" [")[0]) is not None
        assert p.has_trait(t.keyword.upper().replace("_", " "))


# --- the registry --------------------------------------------------------------------------------


def test_registry_entries_are_well_formed():
    assert set(STATUSES) == {"automated", "partly", "manual"}
    for key, t in TRAITS.items():
        assert t.key == key == trait_key(t.name), t
        assert t.status in STATUSES, t
        assert 48 <= t.page <= 59 or t.catalogue and t.page == t.line == 0, t
        assert t.summary and "\n" not in t.summary and len(t.summary) <= 200, t
        assert bool(t.acts) == (t.status != "manual"), t
        for module in t.acts:
            path = ROOT / module.replace(".", "/")
            assert path.with_suffix(".py").is_file() or (path / "__init__.py").is_file(), (key, module)
    assert trait_rule("Light-Weight") is TRAITS["light_weight"] and trait_rule("Foo") is None
    counts = registry_counts()
    assert sum(counts.values()) == len(TRAITS) and counts["automated"] >= 40


@pytest.mark.skipif(RULEBOOK is None, reason="no rulebook text in ../shared/seeds")
def test_registry_holds_every_trait_of_the_rulebook_at_its_line():
    """Every '(English Name)' entry of the Traits chapter is registered, with its line."""
    lines = RULEBOOK.read_text(encoding="utf-8").split("\n")
    start = next(i for i, x in enumerate(lines) if "(Adept)" in x)
    end = next(i for i, x in enumerate(lines) if "(Willpower)" in x) + 1
    found = {}
    for i in range(start, end):
        m = re.search(r"\(\*?([A-Z][A-Za-z' !-]+?)\*?\)", lines[i])
        if m and lines[i].startswith(("**", "#")):
            found.setdefault(trait_key(m[1]), i + 1)
    rulebook = {k: t for k, t in TRAITS.items() if not t.catalogue}  # catalogue-only traits: page/line 0
    assert set(found) == set(rulebook)
    assert {k: t.line for k, t in rulebook.items()} == found


# --- the registry against the code ------------------------------------------------------------


def _literals(node: ast.AST) -> list[str]:
    return [n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)]


def _name(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


_NOT_LOOKUPS = {"parse_trait", "parse_traits", "parse_trait_text", "canonical_trait_text", "keyword_of"}
_KEYWORD = re.compile(r"[a-z][a-z0-9 _\-']*")


def trait_lookups(path: Path) -> set[str]:
    """The trait keywords a module looks up: literal arguments of calls to a function
    whose name holds 'trait' (has_trait, trait_value(s), trait, _trait, trait_key, and
    local names bound to one), with loop variables over literal tuples expanded;
    literals compared with or tested in a name holding 'trait' or a name bound from
    trait_key(...)/.keyword; the values of ``*_TRAITS`` constants and of ``traits=`` /
    ``immune_traits=`` arguments."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out: set[str] = set()
    loops: dict[str, list[str]] = {}
    bound: set[str] = set()  # local names holding a trait-lookup function
    keyed: set[str] = set()  # local names holding a trait key
    for node in ast.walk(tree):
        if (isinstance(node, ast.For) and isinstance(node.target, ast.Name)
                and isinstance(node.iter, (ast.Tuple, ast.List, ast.Set))):
            loops.setdefault(node.target.id, []).extend(_literals(node.iter))
        if isinstance(node, ast.Assign):
            pairs = []
            for tgt in node.targets:
                if isinstance(tgt, ast.Tuple) and isinstance(node.value, ast.Tuple):
                    pairs += list(zip(tgt.elts, node.value.elts))
                else:
                    pairs.append((tgt, node.value))
            for tgt, val in pairs:
                if not isinstance(tgt, ast.Name):
                    if _name(tgt).endswith("_TRAITS"):
                        out.update(_literals(val))
                    continue
                if tgt.id.endswith("_TRAITS"):
                    out.update(_literals(val) if not isinstance(val, ast.Dict) else
                               [k.value for k in val.keys if isinstance(k, ast.Constant)])
                if isinstance(val, (ast.Name, ast.Attribute)) and "trait" in _name(val).lower():
                    bound.add(tgt.id)
                if any(isinstance(n, ast.Call) and _name(n.func) == "trait_key" or
                       isinstance(n, ast.Attribute) and n.attr == "keyword" for n in ast.walk(val)):
                    keyed.add(tgt.id)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            fname = _name(node.func)
            if fname in _NOT_LOOKUPS:
                continue
            if "trait" in fname.lower() or fname in bound:
                for arg in list(node.args) + [k.value for k in node.keywords]:
                    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                        out.add(arg.value)
                    elif isinstance(arg, ast.Name) and arg.id in loops:
                        out.update(loops[arg.id])
            for k in node.keywords:
                if k.arg in ("traits", "immune_traits"):
                    out.update(_literals(k.value))
        elif isinstance(node, ast.Compare):
            sides = [node.left] + list(node.comparators)
            if any("trait" in _name(s).lower() or _name(s) == "keyword" or (isinstance(s, ast.Name) and s.id in keyed)
                   for s in sides):
                for s in sides:
                    if isinstance(s, (ast.Constant, ast.Tuple, ast.Set, ast.List)):
                        out.update(_literals(s))
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitAnd):
            if any("trait" in _name(s).lower() for s in (node.left, node.right)):
                for s in (node.left, node.right):
                    if isinstance(s, (ast.Set, ast.Tuple, ast.List)):
                        out.update(_literals(s))
    return {trait_key(s) for s in out if _KEYWORD.fullmatch(s)}


def _code_lookups() -> dict[str, set[str]]:
    got: dict[str, set[str]] = {}
    for top in ("models", "sim", "terrain"):
        for path in sorted((ROOT / top).rglob("*.py")):
            if path == ROOT / "models" / "traits.py":
                continue
            module = ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
            for key in trait_lookups(path):
                got.setdefault(key, set()).add(module)
    return got


@pytest.fixture(scope="module")
def lookups():
    return _code_lookups()


def test_the_scanner_finds_the_lookup_patterns_of_the_code(tmp_path):
    src = tmp_path / "m.py"
    src.write_text(
        "X_TRAITS = ('aware',)\n"
        "def f(m, w, p, t):\n"
        "    has = m.has_trait\n"
        "    a = has('evasive') or w.trait_value('pierce') or p.trait('fear')\n"
        "    for kind in ('poison', 'fire'):\n"
        "        w.trait_values(kind)\n"
        "    k = trait_key(t.keyword)\n"
        "    if k == 'armour' or k in ('tough', 'durable') or 'intangible' in p.trait_keywords:\n"
        "        pass\n"
        "    return traits & {'flank'}, parse_trait('Reach (x)')\n")
    assert trait_lookups(src) == {"aware", "evasive", "pierce", "fear", "poison", "fire", "armour", "tough",
                                  "durable", "intangible", "flank"}


def test_every_trait_the_code_looks_up_is_registered(lookups):
    unknown = {k: sorted(m) for k, m in lookups.items() if k not in TRAITS and k not in NOT_TRAITS}
    assert not unknown, f"trait keywords looked up but not in models.traits.TRAITS: {unknown}"


def test_every_automated_trait_is_looked_up_by_one_of_the_modules_it_acts_in(lookups):
    for key, t in TRAITS.items():
        if t.status != "automated":
            continue
        assert key in lookups, f"{key} is 'automated' but no code looks it up"
        assert any(m == a or m.startswith(a + ".") or m.startswith(a + "_")
                   for m in lookups[key] for a in t.acts), (key, sorted(lookups[key]), t.acts)


# --- the one condition table -------------------------------------------------------------------

#: The two tables before they became one (sim/rules/conditions.py _ALIASES and
#: sim/rules/melee.py _CONDITION_ALIASES), with what each spelling meant.
_CONDITIONS_TABLE = {
    "immobilized": "immobilised", "immobilise": "immobilised", "immobilize": "immobilised",
    "fire": "on_fire", "onfire": "on_fire", "burning": "on_fire", "poison": "poisoned",
    "bleeding": "bleed", "stun": "stunned", "frighten": "frightened", "knocked_down": "prone",
    "blinded": "blind", "reload": "reloading", "spiritblock": "spirit_block",
    "death": "death_sentence", "deathsentence": "death_sentence", "disease": "diseased",
    "disguise": "disguised", "control": "controlled",
}
_MELEE_TABLE = {
    "immobilized": "immobilised", "knocked_down": "prone", "stand_up": "stood_up",
    "standing_up": "stood_up", "run": "ran", "running": "ran", "stun": "stunned",
    "frighten": "frightened", "poison": "poisoned", "fire": "on_fire", "bleeding": "bleed",
}


@pytest.mark.parametrize("spelling, key", sorted({**_CONDITIONS_TABLE, **_MELEE_TABLE}.items()))
def test_one_condition_table_keeps_both_old_readings(spelling, key):
    assert conditions.condition_key(spelling) == key
    assert conditions.canonical(spelling) == (key if key in conditions.CONDITIONS else None)
    if key in melee.KNOWN_CONDITIONS:
        assert melee.Combatant("a", 2, conditions={spelling}).conditions == {key}


def test_condition_spellings_melee_refused_before_are_read_now():
    """Melee's own table lacked these spellings of conditions.py: they raised MeleeError."""
    assert melee.Combatant("a", 2, conditions={"Burning", "Immobilize", "On  Fire"}).conditions == {
        "on_fire", "immobilised"}
    with pytest.raises(melee.MeleeError):
        melee.Combatant("a", 2, conditions={"sleepy"})
