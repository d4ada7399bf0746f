"""Profile files: loading, a cross-check of every number against the BattleScribe XML,
Takashi Akira field by field, and the errors raised for bad files."""

from __future__ import annotations

import dataclasses
import re
import xml.etree.ElementTree as ET
from collections import Counter
from functools import lru_cache

import pytest
import yaml
from conftest import BSDATA  # noqa: E402

from models.profiles import (
    DEFAULT_DIRECTORY,
    Profile,
    ProfileError,
    Trait,
    get_profile,
    load_profile_file,
    load_profiles,
)

NS = "{http://www.battlescribe.net/schema/catalogueSchema}"
FILES = {"Prefecture of Ryu": "prefecture_of_ryu.yaml", "Ito Clan": "ito_clan.yaml"}
CATALOGUES = {"Prefecture of Ryu": "Prefecture_of_Ryu.cat", "Ito Clan": "Ito_Clan.cat"}


# --- (a) loading ------------------------------------------------------------------------


@pytest.mark.parametrize("faction", sorted(FILES))
def test_files_load_with_enough_variety(faction):
    profiles = load_profile_file(DEFAULT_DIRECTORY / FILES[faction])
    assert len(profiles) >= 6
    assert {p.faction for p in profiles} == {faction}
    assert any(w.kind == "ranged" for p in profiles for w in p.weapons)
    assert len({p.base for p in profiles}) >= 2


@pytest.fixture
def bundled_only():
    """Only the bundled profiles: no catalogue source another test's server or window
    registered for the process (models.profiles.add_profile_source)."""
    from models.profiles import profile_sources, restore_profile_sources

    snapshot = profile_sources()
    restore_profile_sources(())
    yield
    restore_profile_sources(snapshot)


def test_load_profiles_and_lookup(bundled_only):
    profiles = load_profiles()
    assert len(profiles) >= 12
    assert {p.base for p in profiles.values()} == {30, 40, 50, 60}
    assert get_profile("TAKASHI AKIRA") == get_profile("takashi-akira")
    with pytest.raises(KeyError, match="takashi-akira"):
        get_profile("Takashi Akra")
    assert get_profile("yatsumata").has_trait("Lightning Reflexes")
    assert {"tough", "immovable"} <= get_profile("ton").trait_keywords
    assert get_profile("asp").size == "tiny"
    assert get_profile("kazuha").size == "huge" and get_profile("kazuha").base == 60


# --- (b) cross-check against the catalogues ----------------------------------------------


@lru_cache(maxsize=None)
def _catalogue(name: str):
    root = ET.parse(BSDATA / name).getroot()
    parents = {child: parent for parent in root.iter() for child in parent}
    entries = {e.get("id"): e for e in root.iter(NS + "selectionEntry")}
    return entries, parents


def _chars(profile) -> dict[str, str]:
    return {
        c.get("name"): " ".join((c.text or "").replace("\xa0", " ").split())
        for c in profile.iter(NS + "characteristic")
    }


def _ancestors(entry, parents):
    node = entry
    while node is not None:
        if node.tag == NS + "selectionEntry":
            yield node
        node = parents.get(node)


def _split(text: str) -> list[str]:
    """Split a printed list at commas outside brackets ('Armour (2) Fear (6)' also splits)."""
    text = re.sub(r"\)\s+(?=[A-Z])", "), ", text)
    items, depth, cur = [], 0, ""
    for ch in text:
        depth += (ch in "[(") - (ch in "])")
        if ch == "," and depth == 0:
            items.append(cur)
            cur = ""
        else:
            cur += ch
    return [i.strip() for i in items + [cur] if i.strip()]


def _norm_trait(text: str) -> str:
    text = re.sub(r"\s*:\s*\(", " (", text)
    text = re.sub(r"(\S)\[", r"\1 [", text)
    return " ".join(text.split())


def _int(text: str):
    return int(text) if re.fullmatch(r"[+-]?\d+", text) else None


def xml_mismatches(p: Profile, catalogue: str) -> list[str]:
    """Differences between a profile and its catalogue entry (empty when they agree)."""
    entries, parents = _catalogue(catalogue)
    entry = entries.get(p.bs_id)
    if entry is None:
        return [f"{p.id}: no selectionEntry {p.bs_id}"]
    bad = []

    def check(what, ours, theirs):
        if ours != theirs:
            bad.append(f"{p.id}.{what}: yaml {ours!r} != xml {theirs!r}")

    check("name", p.name, " ".join(entry.get("name").split()))
    cost = entry.find(f"{NS}costs/{NS}cost")
    check("rice", p.rice, None if cost is None else int(float(cost.get("value"))))
    card = next(x for x in entry.find(NS + "profiles") if x.get("typeName") == "Character Profile")
    c = _chars(card)
    for ours, key in [("melee", "Melee Pool"), ("ranged", "Ranged Pool"), ("move", "Move"),
                      ("ki", "Ki"), ("ki_limit", "Ki Cap")]:
        check(ours, getattr(p, ours), _int(c[key]))
    boxes = c["Wounds"].split()
    check("wounds", p.wounds, int(boxes[0]) if boxes[0].isdigit() else len(boxes[0]))
    size, base = c["Size & Base"].split()
    check("size", p.size, size.lower())
    check("base", p.base, int(base.removesuffix("mm")))

    printed = next(
        (_chars(x)["Traits"] for e in _ancestors(entry, parents) for x in e.iter(NS + "profile")
         if x.get("typeName") == "Character Traits"),
        "",
    )
    check("traits", Counter(_norm_trait(t.text) for t in p.traits),
          Counter(_norm_trait(t) for t in _split(printed)))

    kinds = ("Melee Weapon", "Ranged Weapon")
    weapons = [x for x in entry.iter(NS + "profile") if x.get("typeName") in kinds]
    check("weapons", [w.name for w in p.weapons], [" ".join(x.get("name").split()) for x in weapons])
    for w, x in zip(p.weapons, weapons):
        wc = _chars(x)
        kind = x.get("typeName").split()[0]
        check(f"{w.name}.kind", w.kind, kind.lower())
        check(f"{w.name}.strength", w.strength, _int(wc[f"{kind} Weapon Strength"]))
        check(f"{w.name}.traits", list(w.traits), _split(wc.get("Traits", "")))
        check(f"{w.name}.specials", list(w.special_attacks + w.special_defences),
              [s for s in _split(wc.get("Specials", "")) if "Attack" in s]
              + [s for s in _split(wc.get("Specials", "")) if "Defence" in s])
        if kind == "Ranged":
            ends = [_int(b) for b in wc["Range Bands"].split("/")]
            ours = {}
            for band, end, start in zip(("short", "medium", "long"), ends, [0] + ends):
                if end is not None:
                    ours[band] = (float(start or 0), float(end))
            check(f"{w.name}.range", w.range, ours)
    return bad


def _all_profiles():
    return [p for p in load_profiles().values() if p.faction in CATALOGUES]


@pytest.mark.parametrize("profile", _all_profiles(), ids=lambda p: p.id)
def test_profile_matches_catalogue(profile):
    if not BSDATA.is_dir():
        pytest.skip(f"no BattleScribe data at {BSDATA}")
    assert xml_mismatches(profile, CATALOGUES[profile.faction]) == []


def test_cross_check_catches_wrong_numbers():
    if not BSDATA.is_dir():
        pytest.skip(f"no BattleScribe data at {BSDATA}")
    p = get_profile("takashi-akira")
    cat = CATALOGUES[p.faction]
    prowess_2 = dataclasses.replace(p.traits[-1], text="Prowess [Melee] (2)")
    for change in [{"melee": 5}, {"ranged": 2}, {"wounds": 7}, {"base": 40}, {"ki_limit": 6},
                   {"rice": 19}, {"traits": p.traits[:-1] + (prowess_2,)},
                   {"weapons": (dataclasses.replace(p.weapons[0], strength=2),)}]:
        assert xml_mismatches(dataclasses.replace(p, **change), cat), change


def test_trait_fields_agree_with_text(bundled_only):
    for p in load_profiles().values():
        for t in p.traits:
            m = re.fullmatch(r"([^\[(]+?)(?: \[([^\]]+)\])?(?: \(([^)]*)\))?", t.text)
            assert m, t
            assert t.keyword == m[1].lower().replace(" ", "_"), t
            assert t.qualifier == (m[2].lower() if m[2] else None), t
            value = re.fullmatch(r"(\d+)(?:/.*)?", m[3] or "")
            assert t.value == (int(value[1]) if value else None), t


# --- (c) Takashi Akira --------------------------------------------------------------------


def test_takashi_akira():
    p = get_profile("Takashi Akira")
    assert (p.id, p.name, p.faction) == ("takashi-akira", "Takashi Akira", "Prefecture of Ryu")
    assert p.bs_id == "c4ff-605f-469a-7ee4"
    assert p.rice == 18
    assert (p.base, p.size) == (30, "small")
    assert "samurai" in p.types
    assert (p.melee, p.ranged, p.move, p.ki, p.ki_limit, p.wounds) == (4, 3, 4, 2, 8, 6)
    assert p.traits == (
        Trait("armour", 3, None, "Armour (3)"),
        Trait("bravery", None, None, "Bravery"),
        Trait("resistance", 1, None, "Resistance (1)"),
        Trait("prowess", 1, "melee", "Prowess [Melee] (1)"),
    )
    assert p.trait_keywords == {"armour", "bravery", "resistance", "prowess"}
    assert p.has_trait("Armour") and not p.has_trait("aware")
    (katana,) = p.weapons
    assert (katana.name, katana.kind, katana.strength, katana.range) == ("Katana", "melee", 1, {})
    assert katana.special_attacks == ("Critical Attack (0)",)
    assert katana.special_defences == ("Push Defence (0)",)
    assert p.feats == ("Do-Kote", "Hack")


# --- (d) bad files ---------------------------------------------------------------------------

GOOD = {
    "id": "bad-one", "name": "Bad One", "base": 30, "size": "small", "melee": 3, "ranged": 2,
    "move": 4, "ki": 1, "ki_limit": 6, "wounds": 5,
    "weapons": [{"name": "Bow", "kind": "ranged", "strength": 1,
                 "range": {"short": [0, 6], "medium": [6, 12]}}],
}


def _write(tmp_path, profiles, name="bad.yaml"):
    path = tmp_path / name
    doc = {"format": "bushido-profiles/1", "faction": "Test", "source": "test"}
    path.write_text(yaml.safe_dump({**doc, "profiles": profiles}))
    return path


def test_good_file_loads(tmp_path):
    (p,) = load_profile_file(_write(tmp_path, [GOOD]))
    assert p.weapons[0].range == {"short": (0.0, 6.0), "medium": (6.0, 12.0)}


def test_yaml_syntax_error(tmp_path):
    path = tmp_path / "broken.yaml"
    path.write_text("format: bushido-profiles/1\nprofiles:\n  - id: [unclosed\n    name: x\n")
    with pytest.raises(ProfileError) as err:
        load_profile_file(path)
    assert "broken.yaml" in str(err.value) and "line" in str(err.value)
    assert "YAML syntax error" in str(err.value)


@pytest.mark.parametrize(
    "change, where, problem",
    [
        ({"melee": None}, "profiles[id=bad-one]", "missing field 'melee'"),
        ({"size": "gigantic"}, "profiles[id=bad-one].size", "gigantic"),
        ({"base": 35}, "profiles[id=bad-one].base", "35"),
        ({"melee": float("nan")}, "profiles[id=bad-one].melee", "NaN"),
        ({"weapons": [dict(GOOD["weapons"][0], range={"short": [0, float("nan")]})]},
         "profiles[id=bad-one].weapons[0].range.short[1]", "NaN"),
        ({"move": "4"}, "profiles[id=bad-one].move", "integer"),
        ({"colour": "red"}, "profiles[id=bad-one].colour", "unknown field"),
    ],
)
def test_bad_entry(tmp_path, change, where, problem):
    entry = {k: v for k, v in {**GOOD, **change}.items() if v is not None}
    path = _write(tmp_path, [entry])
    with pytest.raises(ProfileError) as err:
        load_profile_file(path)
    message = str(err.value)
    assert "bad.yaml" in message and where in message and problem in message, message


def test_duplicate_id(tmp_path):
    path = _write(tmp_path, [GOOD, dict(GOOD, name="Other")])
    with pytest.raises(ProfileError, match=r"bad\.yaml: profiles\[id=bad-one\]: duplicate id"):
        load_profile_file(path)


def test_duplicate_id_across_files(tmp_path):
    _write(tmp_path, [GOOD], "a.yaml")
    _write(tmp_path, [GOOD], "b.yaml")
    match = r"b\.yaml: profiles\[id=bad-one\]: duplicate id.*a\.yaml"
    with pytest.raises(ProfileError, match=match):
        load_profiles(tmp_path)


def test_a_keyed_profile_source_is_added_once_and_a_snapshot_restores_the_sources():
    from models.profiles import add_profile_source, get_profile, profile_sources, restore_profile_sources

    snapshot = profile_sources()
    key = object()
    card = get_profile("takashi-akira")
    assert add_profile_source({"akira-copy": card}, key=key) is True
    assert add_profile_source({"akira-copy": card}, key=key) is False  # the same key: not twice
    assert len(profile_sources()) == len(snapshot) + 1
    restore_profile_sources(snapshot)
    assert profile_sources() == snapshot
