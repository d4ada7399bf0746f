"""The BattleScribe importer (models/bsdata/): every catalogue of ../shared/bsdata,
profiles checked field by field against the XML, the hand-written profile files, special
cards, the YAML writer, registration for get_profile, bad input and the CLI."""

from __future__ import annotations

import dataclasses
import re
import shutil
import xml.etree.ElementTree as ET
from functools import lru_cache
from pathlib import Path

import pytest
from conftest import BSDATA  # noqa: E402
from hypothesis import given, settings
from hypothesis import strategies as st

from models import bsdata
from models.bsdata import (
    CatalogueError,
    canonical_trait_text,
    load_catalogues,
    parse_trait,
    parse_traits,
    register_profiles,
    unregister_profiles,
    write_profiles,
)
from models.profiles import DEFAULT_DIRECTORY, Trait, get_profile, load_profile_file, load_profiles

NS = "{http://www.battlescribe.net/schema/catalogueSchema}"
GAME_SYSTEM_ID = "62e4-ab79-1c4c-9ffe"

needs_data = pytest.mark.skipif(not BSDATA.is_dir(), reason=f"no BattleScribe data at {BSDATA}")


@pytest.fixture(scope="module")
def cs():
    """Every catalogue of ../shared/bsdata, imported once (skips if absent)."""
    if not BSDATA.is_dir():
        pytest.skip(f"no BattleScribe data at {BSDATA}")
    return load_catalogues(BSDATA)


# --- an independent reading of the XML (the oracle) -------------------------------------------


@lru_cache(maxsize=None)
def _root(name: str):
    return ET.parse(BSDATA / name).getroot()


def _chars(profile) -> dict[str, str]:
    return {c.get("name"): " ".join((c.text or "").replace("\xa0", " ").split())
            for c in profile.iter(NS + "characteristic")}


def _entry(file: str, name: str):
    for e in _root(file).iter(NS + "selectionEntry"):
        if e.get("name") == name and any(p.get("typeName") == "Character Profile" for p in e.iter(NS + "profile")):
            return e
    raise LookupError(name)


@lru_cache(maxsize=None)
def _feat_ids() -> frozenset[str]:
    """Ids of the Library-Feats groups that hold a Ki feat."""
    return frozenset(g.get("id") for g in _root("Library-Feats.cat").iter(NS + "infoGroup")
                     if any(p.get("typeName", "").startswith("Ki Feat") for p in g.iter(NS + "profile")))


def _split(text: str) -> list[str]:
    """Split at commas outside brackets."""
    items, depth, cur = [], 0, ""
    for ch in text:
        depth += (ch in "[(") - (ch in "])")
        if ch == "," and depth == 0:
            items.append(cur)
            cur = ""
        else:
            cur += ch
    return [i.strip() for i in items + [cur] if i.strip()]


def _int(text: str):
    return int(text) if re.fullmatch(r"[+-]?\d+", text) else None


def _xml_profile(file: str, name: str) -> dict:
    """What the XML says of a simple model entry, read without the importer."""
    e = _entry(file, name)
    card = next(p for p in e.iter(NS + "profile") if p.get("typeName") == "Character Profile")
    c = _chars(card)
    size = re.sub(r"\s*\d+\s*mm\s*", "", c["Size & Base"])
    base = re.search(r"\d+", c["Size & Base"])[0]
    traits_text = next(_chars(p)["Traits"] for p in e.iter(NS + "profile") if p.get("typeName") == "Character Traits")
    weapons = []
    for p in e.iter(NS + "profile"):
        if p.get("typeName") in ("Melee Weapon", "Ranged Weapon"):
            wc = _chars(p)
            kind = p.get("typeName").split()[0]
            bands = {}
            if kind == "Ranged":
                ends = [_int(b) for b in wc["Range Bands"].split("/")]
                start = 0
                for band, end in zip(("short", "medium", "long"), ends):
                    if end is not None:
                        bands[band] = (float(start), float(end))
                        start = end
            weapons.append((" ".join(p.get("name").split()), kind.lower(), _int(wc[f"{kind} Weapon Strength"]), bands))
    cost = e.find(f"{NS}costs/{NS}cost")
    return {
        "id": e.get("id"), "rice": int(float(cost.get("value"))),
        "melee": _int(c["Melee Pool"]), "ranged": _int(c["Ranged Pool"]), "move": _int(c["Move"]),
        "ki": _int(c["Ki"]), "ki_limit": _int(c["Ki Cap"]), "wounds": int(c["Wounds"].split()[0]),
        "boosts": {k: _int(c[f"{k.title()} Boost"]) for k in ("melee", "ranged", "move", "ki")},
        "size": size.lower(), "base": int(base.removesuffix("mm")),
        "traits": _split(re.sub(r"\)\s+(?=[A-Z])", "), ", traits_text)),
        "weapons": weapons,
        "feats": [l.get("name").strip() for l in e.iter(NS + "infoLink")
                  if l.get("type") == "infoGroup" and l.get("targetId") in _feat_ids()],
        "types": [l.get("name").lower() for l in e.findall(f"{NS}categoryLinks/{NS}categoryLink")],
    }


#: Simple model entries from every catalogue, checked field by field against the XML.
SPOT = [
    ("Cult_of_Yurei.cat", "Yama Uba"), ("Cult_of_Yurei.cat", "Gendo"),
    ("Horse Lords of Ataka.cat", "Inoue Kikuko"), ("Horse Lords of Ataka.cat", "Taka Toshiyuki"),
    ("Ito_Clan.cat", "Akimoto"), ("Ito_Clan.cat", "Ito Itsunagi"), ("Jung_Pirates.cat", "Jung Mari"),
    ("Jung_Pirates.cat", "Tetsuso"), ("Kage_Kaze_Zoku.cat", "Wamu"), ("Kage_Kaze_Zoku.cat", "Ujimushi"),
    ("Kinshi_Temple.cat", "Master Shi"), ("Kinshi_Temple.cat", "Maru"), ("Library-Ronin.cat", "Hiroto, Drunken Master"),
    ("Library-Ronin.cat", "Hisoka"), ("Minimoto_Clan.cat", "Hauru"), ("Minimoto_Clan.cat", "Hoshi Kimiko"),
    ("Prefecture_of_Ryu.cat", "Ima"), ("Prefecture_of_Ryu.cat", "Takashi Akira"),
    ("Shiho_Clan.cat", "Tanaka Yue"), ("Shiho_Clan.cat", "Tanaka Tsuki"),
    ("Silvermoon_Trade_Syndicate.cat", "Yokozuna Akashi"), ("Silvermoon_Trade_Syndicate.cat", "Wasupu"),
    ("Temple_of_Ro-Kan.cat", "Aiko"), ("Temple_of_Ro-Kan.cat", "Yuuki"), ("The Imperial Court.cat", "Zuo Ci"),
    ("The_Awoken.cat", "Aiumi, With No Compassion"), ("The_Descension.cat", "Amaruq"),
    ("The_Descension.cat", "Buzenbo"), ("The_Savage_Wave.cat", "The Nian"),
]


def _same_trait(printed: str, t: Trait) -> bool:
    """A printed trait and a parsed one agree: same name (up to spacing), qualifier and numbers."""
    name = re.match(r"[^\[(:]*", printed)[0].strip()
    if re.sub(r"\W", "", name.lower()) != re.sub(r"\W", "", t.text.split("[")[0].split("(")[0].lower()):
        return False
    q = re.search(r"\[([^\]]*)\]", printed)
    if (q[1].strip().lower() if q else None) != (t.qualifier if q else None):
        return False
    return re.findall(r"-?\d+", printed) == re.findall(r"-?\d+", t.text)


@needs_data
@pytest.mark.parametrize("file, name", SPOT, ids=[n for _f, n in SPOT])
def test_profile_field_by_field(cs, file, name):
    want = _xml_profile(file, name)
    cp = cs.profile(name)
    p = cp.profile
    assert cp.source == file and p.bs_id == want["id"]
    assert (p.rice, p.melee, p.ranged, p.move, p.ki, p.ki_limit, p.wounds) == tuple(
        want[k] for k in ("rice", "melee", "ranged", "move", "ki", "ki_limit", "wounds"))
    assert (p.size, p.base) == (want["size"], want["base"])
    assert dict(cp.boosts) == want["boosts"]
    assert len(p.traits) == len(want["traits"])
    for printed, t in zip(want["traits"], p.traits):
        assert _same_trait(printed, t), (printed, t)
    assert [(w.name, w.kind, w.strength, w.range) for w in p.weapons] == want["weapons"]
    assert list(p.feats) == want["feats"]
    assert set(p.types) <= set(want["types"]) and p.types
    assert not any(t.startswith("faction") for t in p.types)


@needs_data
def test_takashi_akira(cs):
    cp = cs.profile("Takashi Akira")
    p = cp.profile
    assert (p.melee, p.ranged, p.move, p.ki, p.ki_limit, p.wounds) == (4, 3, 4, 2, 8, 6)
    assert (p.size, p.base, p.rice) == ("small", 30, 18)
    assert [t.text for t in p.traits] == ["Armour (3)", "Bravery", "Resistance (1)", "Prowess [Melee] (1)"]
    assert p.traits[3] == Trait("prowess", 1, "melee", "Prowess [Melee] (1)")
    assert cp.boosts == {"melee": 3, "ranged": None, "move": None, "ki": None}
    assert (cp.wound_tracks, cp.max_copies, cp.recruitable, cp.ronin) == (1, 1, True, False)
    assert cp.factions == ("Prefecture of Ryu",)
    (katana,) = p.weapons
    assert (katana.strength, katana.special_attacks, katana.special_defences) == \
        (1, ("Critical Attack (0)",), ("Push Defence (0)",))
    do_kote = cp.ki_feats[0]
    assert (do_kote.name, do_kote.cost, do_kote.timing, do_kote.area, do_kote.range) == \
        ("Do-Kote", 2, "active", "personal", None)
    assert "Feint" in do_kote.description


@needs_data
def test_every_character_profile_becomes_a_profile(cs):
    ids = {p.element_id for p in cs.profiles}
    want = {}
    for f in sorted(BSDATA.glob("*.cat")):
        for p in _root(f.name).iter(NS + "profile"):
            if p.get("typeName") in ("Character Profile", "Character Profile & Traits"):
                want[p.get("id")] = (f.name, p.get("name"))
    assert len(want) > 700
    assert [want[i] for i in want if i not in ids] == []
    assert len({p.profile.id for p in cs.profiles}) == len(cs.profiles)  # ids are unique


@needs_data
def test_unparsed_fields_reported_and_rare(cs):
    s = cs.stats
    assert s.profiles == len(cs.profiles) and s.fields > 10000
    assert s.unparsed == sum(1 for i in cs.issues if i.kind == "unparsed")
    assert s.unparsed_fraction < 0.02
    assert f"{s.unparsed} of {s.fields} fields could not be parsed" in cs.summary()
    # what could not be parsed is kept as text on the profile, never dropped
    for i in cs.issues:
        if i.kind == "unparsed" and i.field == "Traits":
            p = cs.profile(i.where)
            assert i.text in [t.text for t in p.profile.traits] and ("Traits", i.text) in p.unparsed
    # each issue is reported once
    assert len(cs.issues) == len(set(cs.issues))
    assert any(i.kind == "repaired" and "Fearl" in i.text for i in cs.issues)


@needs_data
@pytest.mark.parametrize("name", ["prefecture_of_ryu.yaml", "ito_clan.yaml"])
def test_agrees_with_hand_written_profiles(cs, name):
    hand = load_profile_file(DEFAULT_DIRECTORY / name)
    for h in hand:
        (imp,) = [cp.profile for cp in cs.profiles if cp.profile.bs_id == h.bs_id]
        # ki_feats (cost, timing, area of each feat) exist only in the catalogue; the
        # hand-written files name the feats (``feats``), which are compared
        diffs = {f.name: (getattr(h, f.name), getattr(imp, f.name)) for f in dataclasses.fields(h)
                 if f.compare and getattr(h, f.name) != getattr(imp, f.name)}
        assert diffs == {}, h.id


# --- the shapes of entries: units, links, Ronin ----------------------------------------------------


@needs_data
def test_units_and_links(cs):
    a, b = cs.profile("Guardsman of Ryu A"), cs.profile("Guardsman of Ryu B")
    assert a.card == b.card == "Guardsmen of Ryu" and a.wound_tracks == 2 and a.max_copies == 1
    assert a.profile.traits[0].text == "Armour (2)"  # inherited from the unit
    assert [w.name for w in a.profile.weapons] == ["Tachi", "Arquebus"] and a.profile.rice == 8
    assert a.profile.weapons[1].range == {"short": (0, 6), "medium": (6, 12), "long": (12, 18)}
    # one profile standing for the card's two profile-less model entries
    kami = cs.profile("Kami of Blighted Earth")
    assert (kami.wound_tracks, kami.max_copies, kami.profile.rice, kami.profile.wounds) == (2, 2, 8, None)
    assert kami.printed["Wounds"] == "Special"
    # a shared profile linked three times, named by the links' modifiers
    heimin = ["Heimin A", "Heimin B", "Heimin C"]
    assert [cs.profile(n).profile.name for n in heimin] == heimin
    assert cs.profile("Heimin A").wound_tracks == 3
    # two unique models on one card
    aki = cs.profile("Aki")
    assert (aki.card, aki.wound_tracks, aki.profile.types) == ("Trained Dogs", 2, ("unique", "animal", "dog"))


@needs_data
def test_ronin_resolved_through_links(cs):
    gs = cs.profile("Golden Sentinel A")
    assert gs.ronin and gs.profile.faction == "Ronin" and gs.catalogue == "Library-Ronin"
    assert {"Prefecture of Ryu", "Ito Clan"} <= set(gs.factions)
    assert gs.ki_feats[0].name == "Tenacious" and gs.ki_feats[0].cost == 2  # from Library-Feats
    assert "Bodyguard [Imperial] (3\")" in [t.text for t in gs.profile.traits]
    bodyguard = next(t for t in gs.profile.traits if t.keyword == "bodyguard")
    assert (bodyguard.qualifier, bodyguard.value, bodyguard.range) == ("imperial", None, 3.0)
    ryu = cs.faction_profiles("Prefecture of Ryu")
    assert any(p.ronin for p in ryu) and all("Prefecture of Ryu" in p.factions for p in ryu)
    assert not any(p.ronin for p in cs.faction_profiles("Prefecture of Ryu", ronin=False))
    assert "Ronin" not in cs.factions() and "Library-Ronin" not in cs.factions()


@needs_data
def test_su_sp_and_variable_stats(cs):
    assert cs.profile("Matashichi").recruitable is False and cs.profile("Matashichi").marker == "Su/Sp"
    swarm = cs.profile("Large Rat Swarm A").profile
    assert swarm.melee is None and swarm.ki is None  # printed X
    boomer = cs.profile("Bakemono Boomer A")
    assert boomer.profile.ki_limit is None and boomer.printed["Ki Cap"] == "*"
    assert cs.profile("Okishisa").profile.move == 0  # '-' counts as zero
    assert "ki_limit is '*'" in boomer.yaml_problems()[0]


@needs_data
def test_ki_feats_fields(cs):
    feats = {f.name: f for p in cs.profiles for f in p.ki_feats}
    hope = feats["Hope"]
    assert (hope.cost, hope.timing, hope.area, hope.range) == (2, "active", "target", 6.0)
    opposed = [f for f in feats.values() if f.opposed]
    assert opposed and all(f.area for f in opposed)
    pulse = [f for f in feats.values() if f.area == "pulse" and f.range]
    assert pulse and all(f.range > 0 for f in pulse)
    assert {f.timing for f in feats.values()} <= {"active", "instant", "simple", "complex", "special", None}


@needs_data
def test_special_cards(cs):
    hs = cs.card("Heroic Stand", prefer="Prefecture of Ryu")
    assert (hs.kind, hs.rice, hs.max_copies, hs.catalogue) == ("event", 1, 1, "Prefecture of Ryu")
    dh = cs.card("Dragon Heart")
    assert (dh.kind, dh.rice, dh.equipment, dh.required_categories) == ("enhancement", 2, False, ("Samurai",))
    assert cs.card("Masamune Blade").equipment
    assert cs.card("Confession").max_copies == 3 and cs.card("Confession").required == ("Passing the Night theme",)
    flag = cs.card("Signal Flag")
    assert flag.kind == "terrain"
    assert (flag.terrain.base, flag.terrain.passage, flag.terrain.visibility, flag.terrain.size) == \
        (30, "normal", "clear", "small")
    assert flag.terrain.destructible
    theme = cs.card("Blood of the Dragon")
    assert theme.kind == "theme" and theme.permitted == ("Samurai, Ronin Kami, Shugenja, Ronin Seishin na Goei",)
    dogs = cs.card("Trained Dogs")
    assert dogs.max_copies == 0 and "Edogawa" in dogs.unlocked_by[0].describe()
    assert dogs.key in cs.card_by_key(cs.profile("Edogawa").card_key).allows
    ronin_event = cs.card("Imperial Censure")
    assert ronin_event.ronin and "Prefecture of Ryu" in ronin_event.factions
    kinds = {c.kind for c in cs.cards}
    assert {"profile", "enhancement", "event", "terrain", "theme"} <= kinds
    with pytest.raises(KeyError, match="Heroic Stand"):
        cs.card("Heroic Stnad")


# --- trait text parsing -------------------------------------------------------------------------


@pytest.mark.parametrize("text, keyword, value, qualifier, rng, canonical", [
    ("Armour (2)", "armour", 2, None, None, "Armour (2)"),
    ('Leadership [Ashigaru]:(1/6")', "leadership", 1, "ashigaru", 6.0, 'Leadership [Ashigaru] (1/6")'),
    ('Bodyguard [X] (3")', "bodyguard", None, "x", 3.0, 'Bodyguard [X] (3")'),
    ("Immune [Poison, Prone]", "immune", None, "poison, prone", None, "Immune [Poison, Prone]"),
    ("Charging Bonus [Pierce (2)]", "charging_bonus", None, "pierce (2)", None, "Charging Bonus [Pierce (2)]"),
    ("Immune (Fire)", "immune", None, "fire", None, "Immune [Fire]"),
    ('Scout (0,0")', "scout", 0, None, 0.0, 'Scout (0/0")'),
    ("Tough (X)", "tough", None, None, None, "Tough (X)"),
    ("Resistance (-1)", "resistance", -1, None, None, "Resistance (-1)"),
    ("Poison (1/2)", "poison", 1, None, None, "Poison (1/2)"),
    ("Banzai!", "banzai", None, None, None, "Banzai!"),
    ("Prowess [Melee ]:(1)", "prowess", 1, "melee", None, "Prowess [Melee] (1)"),
    ("Spirit (I)", "spirit", 1, None, None, "Spirit (1)"),
])
def test_parse_trait(text, keyword, value, qualifier, rng, canonical):
    t = parse_trait(text)
    assert (t.keyword, t.value, t.qualifier, t.range, t.text) == (keyword, value, qualifier, rng, canonical)


def test_parse_traits_repairs():
    vocab = ["Fear", "Fearless", "Bravery", "Prowess", "Armour", "Cloudwalk", "Parry"]
    assert [t.text for t in parse_traits("Armour (2) Cloudwalk, Fear (6)")] == ["Armour (2)", "Cloudwalk", "Fear (6)"]
    assert [t.text for t in parse_traits("Bravery Prowess [Melee]:(1)", vocab)] == ["Bravery", "Prowess [Melee] (1)"]
    assert [t.keyword for t in parse_traits("Bravery, Fearl(4), Parry (1)", vocab)] == ["bravery", "fear", "parry"]
    assert [t.text for t in parse_traits("Armour (3), Indomitable (1). Last Stand")] == [
        "Armour (3)", "Indomitable (1)", "Last Stand"]
    with pytest.raises(ValueError):
        parse_trait('Leadership /6")')


_WORD = st.from_regex(r"[A-Z][a-z]{2,9}", fullmatch=True)


@settings(max_examples=150, deadline=None)
@given(
    name=st.lists(_WORD, min_size=1, max_size=3).map(" ".join),
    qualifier=st.none() | st.lists(_WORD, min_size=1, max_size=3).map(", ".join),
    value=st.none() | st.integers(-3, 12).map(str) | st.tuples(st.integers(0, 9), st.integers(0, 24)).map(
        lambda t: f'{t[0]}/{t[1]}"') | st.integers(1, 12).map(lambda n: f'{n}"') | st.just("X"),
    colon=st.booleans(),
)
def test_trait_text_round_trip(name, qualifier, value, colon):
    """Any printed trait parses, and its canonical text parses to the same trait."""
    printed = name + (f" [{qualifier}]" if qualifier else "") + (":" if colon and value else "") + (
        f" ({value})" if value is not None else "")
    t = parse_trait(printed)
    assert t.text == canonical_trait_text(name, qualifier, value)
    assert parse_trait(t.text) == t
    assert t.keyword == name.lower().replace(" ", "_")
    assert t.qualifier == (qualifier.lower() if qualifier else None)
    number = re.match(r"(-?\d+)(/|$)", value or "")
    assert t.value == (int(number[1]) if number else None)
    dist = re.search(r"(\d+)\"$", value or "")
    assert t.range == (float(dist[1]) if dist else None)


# --- writing and registering --------------------------------------------------------------------


@needs_data
def test_write_profiles_round_trip(cs, tmp_path):
    rep = write_profiles(cs, tmp_path / "imported", existing=DEFAULT_DIRECTORY)
    loaded = load_profiles(tmp_path / "imported")
    assert len(loaded) == rep.written > 600
    assert rep.written + len(rep.skipped) + len(rep.kept_existing) == len(cs.profiles)
    assert len(rep.kept_existing) == 16  # the hand-written ones stay
    hand_bs = {p.bs_id for p in load_profiles().values()}
    assert not hand_bs & {p.bs_id for p in loaded.values()}
    assert not set(load_profiles()) & set(loaded)  # both directories can be loaded together
    assert all(why for _pid, why in rep.skipped)
    g = loaded["guardsman-of-ryu-a"]
    assert (g.faction, g.rice, g.wounds, g.weapons[1].range["long"]) == ("Prefecture of Ryu", 8, 6, (12.0, 18.0))
    text = (tmp_path / "imported" / "bsdata-prefecture-of-ryu.yaml").read_text(encoding="utf-8")
    assert "format: bushido-profiles/1" in text and "Play in the Starting Phase" not in text  # facts only


@needs_data
def test_register_profiles_for_tables(cs, tmp_path):
    from sim.table import parse_table

    table = ("format: bushido-table/1\nname: t\ntable: {width: 24, depth: 24}\nmodels:\n"
             "  - {id: g, player: 1, profile: Golden Sentinel A, position: [5, 5]}\n"
             "  - {id: b, player: 2, profile: bakemono-boomer-a, position: [15, 15]}\n")
    with pytest.raises(KeyError):
        get_profile("Golden Sentinel A")
    try:
        assert register_profiles(cs) >= len(cs.profiles) - 16
        assert get_profile("Golden Sentinel A").base == 30
        assert get_profile("takashi-akira") == load_profile_file(DEFAULT_DIRECTORY / "prefecture_of_ryu.yaml")[0]
        t = parse_table(table, "t.yaml") if _accepts_source(parse_table) else parse_table(table)
        boomer = cs.profile("bakemono-boomer-a").profile
        assert {m.id: (m.base, m.name) for m in t.models} == {
            "g": (30, "Golden Sentinel A"), "b": (boomer.base, boomer.name)}
    finally:
        unregister_profiles()
    with pytest.raises(KeyError):
        get_profile("Golden Sentinel A")
    write_profiles(cs, tmp_path)
    try:
        register_profiles(tmp_path)
        assert get_profile("Guardsman of Ryu B").name == "Guardsman of Ryu B"
    finally:
        unregister_profiles()
    assert bsdata.registered_profiles() == {}


def _accepts_source(fn) -> bool:
    import inspect

    return len(inspect.signature(fn).parameters) >= 2


# --- bad input ------------------------------------------------------------------------------------

GST = (f'<?xml version="1.0"?><gameSystem id="{GAME_SYSTEM_ID}" name="Bushido: Risen Sun" revision="1" '
       'xmlns="http://www.battlescribe.net/schema/gameSystemSchema"><costTypes>'
       '<costType id="a111-8656-5c05-7415" name=" Rice"/></costTypes></gameSystem>')


def _cat(gid=GAME_SYSTEM_ID, cid="c-1", links="") -> str:
    return (f'<?xml version="1.0"?><catalogue id="{cid}" name="Test Clan" library="false" gameSystemId="{gid}" '
            f'xmlns="http://www.battlescribe.net/schema/catalogueSchema">{links}<selectionEntries>'
            '<selectionEntry id="m-1" name="Test Model" type="model"><profiles>'
            '<profile id="p-1" name="Test Model" typeName="Character Profile"><characteristics>'
            '<characteristic name="Melee Pool">3</characteristic><characteristic name="Ranged Pool">2</characteristic>'
            '<characteristic name="Move">4</characteristic><characteristic name="Ki">1</characteristic>'
            '<characteristic name="Ki Cap">6</characteristic><characteristic name="Wounds">5 OOOOO</characteristic>'
            '<characteristic name="Size &amp; Base">Small 30mm</characteristic></characteristics></profile>'
            '</profiles><costs><cost name=" Rice" typeId="a111-8656-5c05-7415" value="7"/></costs>'
            '</selectionEntry></selectionEntries></catalogue>')


def _write(tmp_path, files: dict[str, str]) -> Path:
    d = tmp_path / "data"
    d.mkdir()
    for name, text in files.items():
        (d / name).write_text(text, encoding="utf-8")
    return d


def test_minimal_catalogue_imports(tmp_path):
    cs = load_catalogues(_write(tmp_path, {"g.gst": GST, "t.cat": _cat()}))
    (p,) = cs.profiles
    assert (p.profile.name, p.profile.rice, p.profile.wounds, p.profile.size) == ("Test Model", 7, 5, "small")


def test_truncated_catalogue(tmp_path):
    text = _cat()
    d = _write(tmp_path, {"g.gst": GST, "t.cat": text[: len(text) // 2]})
    with pytest.raises(CatalogueError, match=r"t\.cat: XML syntax error: .*line 1"):
        load_catalogues(d)


@needs_data
def test_truncated_real_catalogue_imports_nothing(tmp_path):
    d = tmp_path / "bs"
    d.mkdir()
    for f in BSDATA.glob("*.*"):
        shutil.copy(f, d / f.name)
    data = (d / "Ito_Clan.cat").read_bytes()
    (d / "Ito_Clan.cat").write_bytes(data[: len(data) // 3])
    with pytest.raises(CatalogueError) as err:
        load_catalogues(d)
    assert "Ito_Clan.cat" in str(err.value) and "XML syntax error" in str(err.value)
    assert "\n" not in str(err.value)


def test_game_system_missing(tmp_path):
    with pytest.raises(CatalogueError, match="no game system file"):
        load_catalogues(_write(tmp_path, {"t.cat": _cat()}))


def test_game_system_of_another_id(tmp_path):
    d = _write(tmp_path, {"g.gst": GST, "t.cat": _cat(gid="0000-other")})
    with pytest.raises(CatalogueError, match=r"t\.cat: its game system '0000-other' is missing"):
        load_catalogues(d)


def test_linked_catalogue_missing(tmp_path):
    link = ('<catalogueLinks><catalogueLink id="l-1" name="Library-Ronin" targetId="lib-9" '
            'type="catalogue" importRootEntries="true"/></catalogueLinks>')
    d = _write(tmp_path, {"g.gst": GST, "t.cat": _cat(links=link)})
    with pytest.raises(CatalogueError, match="links catalogue 'Library-Ronin' .*not among the files"):
        load_catalogues(d)


def test_doctype_and_wrong_root_refused(tmp_path):
    evil = '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaa">]>' + _cat()[len('<?xml version="1.0"?>'):]
    with pytest.raises(CatalogueError, match="DTD or entity"):
        load_catalogues(_write(tmp_path, {"g.gst": GST, "t.cat": evil}))
    d2 = tmp_path / "d2"
    d2.mkdir()
    (d2 / "g.gst").write_text(GST)
    (d2 / "t.cat").write_text('<?xml version="1.0"?><html/>')
    with pytest.raises(CatalogueError, match=r"t\.cat: not a BattleScribe catalogue file \(root element <html>\)"):
        load_catalogues(d2)


# --- CLI --------------------------------------------------------------------------------------------


def _cli(argv):
    from sim.cli.catalogue import main

    return main(argv)


@needs_data
def test_cli_import_and_list(cs, tmp_path, capsys):
    assert _cli(["catalogue", "import", str(BSDATA), "--out", str(tmp_path / "out")]) == 0
    out = capsys.readouterr().out
    summary = out.strip().splitlines()[-1]
    assert re.search(r"\d+ profiles, \d+ traits, \d+ weapons.*\d+ of \d+ fields could not be parsed", summary)
    assert "Wrote" in out and len(list((tmp_path / "out").glob("bsdata-*.yaml"))) >= 15
    assert _cli(["catalogue", "list", str(BSDATA), "--faction", "prefecture of ryu", "--cards"]) == 0
    out = capsys.readouterr().out
    assert "takashi-akira" in out and "Golden Sentinel A" in out and "Heroic Stand" in out


def test_cli_bad_input(tmp_path, capsys):
    assert _cli(["catalogue", "import", str(tmp_path / "nowhere")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "nowhere" in err and err.count("\n") == 1
    text = _cat()
    d = _write(tmp_path, {"g.gst": GST, "t.cat": text[:200]})
    assert _cli(["catalogue", "list", str(d)]) == 2
    err = capsys.readouterr().err
    assert "t.cat" in err and "XML syntax error" in err and err.count("\n") == 1


# --- speed --------------------------------------------------------------------------------------------
