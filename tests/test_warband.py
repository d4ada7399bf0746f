"""Warband building rules (models/warband.py, rulebook p.18-19), one test per rule with a
legal and an illegal case; BattleScribe/NewRecruit rosters (.ros, .rosz) and bad input;
the ``warband check`` command."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
import yaml
from conftest import BSDATA  # noqa: E402

from models.bsdata import load_catalogues
from models.warband import (
    WarbandError,
    check_warband,
    load_warband,
    parse_selectors,
    read_roster,
    read_warband,
    warband_profiles,
)

RYU = "Prefecture of Ryu"


@pytest.fixture(scope="module")
def cs():
    """Every catalogue of ../shared/bsdata, imported once (skips if absent)."""
    if not BSDATA.is_dir():
        pytest.skip(f"no BattleScribe data at {BSDATA}")
    return load_catalogues(BSDATA)


def wb(cs, models, faction=RYU, rice=100, **cards):
    """A warband from profile names (a name, or ``(name, [enhancements])``)."""
    doc = {"format": "bushido-warband/1", "name": "test", "faction": faction, "rice": rice,
           "models": [m if isinstance(m, str) else {"profile": m[0], "enhancements": m[1]} for m in models]}
    doc.update(cards)
    if rice is None:
        del doc["rice"]
    return read_warband(doc, cs)


def rules(cs, *args, **kw) -> list[str]:
    """The rules the warband breaks (sorted, repeated per reason)."""
    res = check_warband(wb(cs, *args, **kw), cs)
    return sorted(v.rule for v in res.violations)


BASE = ["Takashi Akira", "Kokkio"]  # 30 rice, legal


def test_legal_warband(cs):
    res = check_warband(wb(cs, BASE + ["Guardsman of Ryu A", "Guardsman of Ryu B"], rice=70, events=["Heroic Stand"]),
                        cs)
    assert res.legal, res.violations
    assert res.cost == 18 + 12 + 8 + 8 + 1
    assert [p.name for p in warband_profiles(res.warband, cs)][:2] == ["Takashi Akira", "Kokkio"]


# --- faction (p.19, Ronin e) ----------------------------------------------------------------------


def test_faction(cs):
    assert rules(cs, BASE) == []
    assert "faction" in rules(cs, ["Golden Sentinel A"], faction="Ronin")
    assert "faction" in rules(cs, ["Golden Sentinel A"], faction="Library-Ronin")
    assert "faction" in rules(cs, BASE, faction="Dragon Clan")


def test_all_ronin_warband_is_legal(cs):
    # Ronin rule e: a faction warband made only of Ronin that work for it
    assert rules(cs, ["Golden Sentinel A", "Golden Sentinel B", "Yu"]) == []


# --- rice (p.19) --------------------------------------------------------------------------------------


def test_rice_limit(cs):
    assert rules(cs, BASE, rice=30) == []
    assert rules(cs, BASE, rice=29) == ["rice-limit"]
    assert rules(cs, BASE, rice=None) == ["rice-limit"]
    res = check_warband(wb(cs, BASE, rice=45), cs)
    assert res.legal and any("not a standard" in n for n in res.notes)


# --- models (p.12, p.19, Ronin a) --------------------------------------------------------------------


def test_model_faction(cs):
    assert rules(cs, BASE + ["Golden Sentinel A"]) == []  # a Ronin who works for the Prefecture
    assert rules(cs, BASE + ["Ito Masunagi"]) == ["model-faction"]
    res = check_warband(wb(cs, BASE + ["Kami of Blighted Earth"]), cs)  # a Ronin who does not
    assert [v.rule for v in res.violations] == ["model-faction"] and "Ronin" in res.violations[0].message
    assert res.violations[0].page == "p.19 (Ronin a)"


def test_su_sp_not_recruitable(cs):
    assert rules(cs, ["Matashichi"], faction="Ito Clan") == ["recruitable"]
    assert rules(cs, ["Ito Masunagi"], faction="Ito Clan") == []


def test_copies_up_to_wound_tracks(cs):
    assert rules(cs, ["Guardsman of Ryu A", "Guardsman of Ryu B"]) == []
    assert rules(cs, ["Guardsman of Ryu A", "Guardsman of Ryu A"]) == ["copies"]
    assert rules(cs, ["Takashi Akira", "Takashi Akira"]) == ["copies"]  # one copy of each card
    assert rules(cs, ["Kami of Evening Flame", "Kami of Evening Flame"]) == []  # two tracks
    assert rules(cs, ["Kami of Evening Flame"] * 3) == ["copies"]
    assert rules(cs, ["Guardsman of Ryu A", "Guardsman of Ryu B", "Guardsman of Ryu A"]) == ["copies", "copies"]


def test_model_required_by_catalogue(cs):
    # Trained Dogs may only be recruited into warbands containing Edogawa
    assert rules(cs, ["Aki"]) == ["requires"]
    assert rules(cs, ["Aki", "Emi", "Edogawa"]) == []


def test_catalogue_conditions(cs):
    # Imperial Censure (a Ronin event) needs Yu or Koshimori Yukio in the warband
    res = check_warband(wb(cs, BASE, events=["Imperial Censure"]), cs)
    assert [v.rule for v in res.violations] == ["catalogue"] and "Yu" in res.violations[0].message
    assert rules(cs, BASE + ["Yu"], events=["Imperial Censure"]) == []
    # Takashi Hida may only be recruited with the Passing the Night theme
    assert "catalogue" in rules(cs, ["Takashi Hida"])


# --- special cards (p.18) -----------------------------------------------------------------------------


def test_card_faction(cs):
    assert rules(cs, BASE, events=["Heroic Stand"]) == []
    assert rules(cs, BASE, events=["Full Moon"]) == ["card-faction"]  # a Shiho Clan event


def test_card_copies_and_max(cs):
    assert rules(cs, BASE, events=["Heroic Stand", "Heroic Stand"]) == ["card-copies"]
    shiho = ["Tanaka Yue"]
    assert rules(cs, shiho, faction="Shiho Clan", events=["Full Moon", "Full Moon"]) == []  # Max (2)
    assert rules(cs, shiho, faction="Shiho Clan", events=["Full Moon"] * 3) == ["card-copies"]


def test_card_required(cs):
    samurai = ["Takashi Akira", "Takashi Kenta"]
    assert rules(cs, samurai, events=["Confession"]) == ["card-required"]
    assert rules(cs, samurai, events=["Confession"], theme="Passing the Night") == []
    res = check_warband(wb(cs, BASE, events=["Crush the Uprising"]), cs)
    assert res.legal and any("not checked automatically" in n for n in res.notes)


def test_terrain_card(cs):
    res = check_warband(wb(cs, BASE, terrain=["Signal Flag"]), cs)
    assert res.legal and res.cost == 30
    assert rules(cs, BASE, terrain=["Signal Flag", "Signal Flag"]) == ["card-copies"]


# --- enhancements (p.18, Ronin c) ---------------------------------------------------------------------


def test_enhancement_required_type(cs):
    assert rules(cs, [("Takashi Akira", ["Dragon Heart"])]) == []
    assert rules(cs, [("Kokkio", ["Dragon Heart"])]) == ["enh-required"]  # not a Samurai
    ito = "Ito Clan"
    assert rules(cs, [("Njak-Ra", ["Orochi's Favour"])], faction=ito) == []  # Requirement [Hebimiman]
    assert rules(cs, [("Ito Masunagi", ["Orochi's Favour"])], faction=ito) == ["enh-required"]


def test_enhancement_exclusion(cs):
    assert rules(cs, [("Takashi Akira", ["Battle Plans"])]) == []
    # Battle Plans may not go to Animal, Construct, Kami or Swarm models (catalogue)
    res = check_warband(wb(cs, [("Aki", ["Battle Plans"]), "Edogawa"]), cs)
    assert "enh-excluded" in [v.rule for v in res.violations]


def test_enhancement_equipment_one_per_model(cs):
    assert rules(cs, [("Takashi Akira", ["Masamune Blade"])]) == []
    assert rules(cs, [("Takashi Akira", ["Masamune Blade", "Takashi Clan Armour"])]) == ["enh-equipment"]


def test_enhancement_insignificant(cs):
    assert rules(cs, ["Kami of Evening Flame"]) == []
    assert "enh-insignificant" in rules(cs, [("Kami of Evening Flame", ["Arashi's Fan"])])


def test_enhancement_restricted_types(cs):
    # Animal, Construct, Kami and Swarm models only take enhancements requiring them
    got = rules(cs, [("Aki", ["Rookie Ashigaru"]), "Edogawa"])
    assert "enh-restricted-type" in got
    assert rules(cs, [("Edogawa", ["Rookie Ashigaru"])]) == []


def test_enhancement_ronin_only_ronin_cards(cs):
    assert rules(cs, BASE + [("Golden Sentinel A", ["Arashi's Fan"])]) == []
    assert rules(cs, BASE + [("Golden Sentinel A", ["Masamune Blade"])]) == ["enh-ronin"]


def test_enhancement_max_and_theme_requirement(cs):
    samurai = ["Takashi Akira", "Takashi Kenta"]
    assert rules(cs, [(samurai[0], ["Retribution"]), (samurai[1], ["Retribution"])],
                 theme="Passing the Night") == []  # Max (4)
    assert "enh-required" in rules(cs, [(samurai[0], ["Retribution"])])  # needs that theme


# --- themes (p.18-19, Ronin c and d) ------------------------------------------------------------------


def test_one_theme(cs):
    assert rules(cs, ["Takashi Akira"], theme="Blood of the Dragon") == []
    got = rules(cs, ["Takashi Akira"], cards=["Blood of the Dragon", "Prefecture Patrol"])
    assert "theme-one" in got


def test_theme_permitted(cs):
    assert rules(cs, ["Takashi Akira", "Takashi Kenta"], theme="Blood of the Dragon") == []
    assert rules(cs, ["Takashi Akira", "Guardsman of Ryu A"], theme="Blood of the Dragon") == ["theme-permitted"]


def test_theme_exclusion_wins(cs):
    ito = "Ito Clan"
    assert rules(cs, ["Ito Masunagi"], faction=ito, theme="Lords of Izu") == []
    # Ito Kaihime is a Samurai (permitted) and a Hebimiman (excluded): the exclusion wins
    assert rules(cs, ["Ito Masunagi", "Ito Kaihime"], faction=ito, theme="Lords of Izu") == ["theme-excluded"]
    # an exclusion by trait: "Models with Booted trait"
    assert rules(cs, ["Shiho Keita"], faction="Shiho Clan", theme="New Eagle Army") == ["theme-excluded"]


def test_theme_ronin(cs):
    # Ronin rule c: a faction theme takes Ronin only of the types it names
    assert rules(cs, ["Takashi Akira", "Kami of Evening Flame"], theme="Blood of the Dragon") == []  # Ronin Kami
    assert rules(cs, ["Takashi Akira", "Golden Sentinel A"], theme="Blood of the Dragon") == ["theme-ronin"]
    # Ronin rule d: Ronin themes take Ronin
    assert rules(cs, ["Takashi Akira", "Golden Sentinel A"], theme="Strategic Deployment") == []


def test_theme_permitted_model_allows_another(cs):
    # Edogawa (Ashigaru) is permitted in Claws of the Dragon and allows Trained Dogs,
    # which the theme would not permit on their own
    assert rules(cs, ["Edogawa", "Aki", "Emi"], theme="Claws of the Dragon") == []
    assert rules(cs, ["Kokkio", "Aki"], theme="Claws of the Dragon") == ["requires", "theme-permitted"]


def test_selectors():
    sels = parse_selectors(["Wolf models, Ronin Kami", "Any Jung profile", "models with Blood of Orochi",
                            "Loyal & Samurai", "Passing the Night theme", "Warband including a Samurai",
                            "Takashi Hida or Fujitaka"], ["Jung Pirates"])
    assert [(s.kind, s.value) for s in sels] == [
        ("type", "wolf"), ("ronin-type", "kami"), ("faction", "Jung Pirates"), ("trait", "blood of orochi"),
        ("all", ""), ("theme", "passing the night"), ("unsupported", ""), ("type", "takashi hida"),
        ("type", "fujitaka")]


# --- warband files ----------------------------------------------------------------------------------


def test_unknown_names_listed(cs):
    with pytest.raises(WarbandError) as err:
        wb(cs, ["Takashi Akra", ("Kokkio", ["Dragon Hart"])], events=["Heroic Stnad"])
    msg = str(err.value)
    assert "models[0].profile" in msg and "Takashi Akira" in msg  # close match offered
    assert "models[1].enhancements[0]" in msg and "events[0]" in msg


def test_bad_warband_file(cs, tmp_path):
    p = tmp_path / "w.yaml"
    p.write_text("format: bushido-warband/1\nfaction: [unclosed\n")
    with pytest.raises(WarbandError, match=r"w\.yaml: YAML syntax error: line \d+, column \d+"):
        load_warband(p, cs)
    p.write_text(yaml.safe_dump({"format": "bushido-warband/1", "faction": RYU, "rice": -5, "models": []}))
    with pytest.raises(WarbandError, match="rice: expected a positive whole number"):
        load_warband(p, cs)
    p.write_text(yaml.safe_dump({"format": "bushido-warband/2", "faction": RYU}))
    with pytest.raises(WarbandError, match="format"):
        load_warband(p, cs)


# --- rosters ---------------------------------------------------------------------------------------------

ROSTER = """<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<roster id="r-1" name="Dragon's Claw" battleScribeVersion="2.03" gameSystemId="{gs}" gameSystemName="Bushido: Risen Sun"
        gameSystemRevision="28" xmlns="http://www.battlescribe.net/schema/rosterSchema">
  <costs><cost name=" Rice" typeId="a111-8656-5c05-7415" value="69"/></costs>
  <costLimits><costLimit name=" Rice" typeId="a111-8656-5c05-7415" value="70"/></costLimits>
  <forces>
    <force id="f-1" name="Risen Sun" entryId="2150-40b1-52f8-4a8a" catalogueId="0cac-b8ad-fb7f-ef84"
           catalogueRevision="56" catalogueName="Prefecture of Ryu">
      <selections>
        <selection id="s-1" name="Takashi Akira" entryId="c4ff-605f-469a-7ee4" number="1" type="model">
          <selections>
            <selection id="s-2" name="Dragon Heart" entryId="c8b6-cccc-15a8-cf43::eed5-174e-18a9-461e"
                       entryGroupId="c8b6-cccc-15a8-cf43::3dad-1423-9b3c-86a7" number="1" type="upgrade">
              <costs><cost name=" Rice" typeId="a111-8656-5c05-7415" value="2"/></costs>
            </selection>
          </selections>
          <costs><cost name=" Rice" typeId="a111-8656-5c05-7415" value="18"/></costs>
          <categories><category id="c-1" name="Samurai" entryId="e12a-f782-3281-7444" primary="false"/></categories>
        </selection>
        <selection id="s-3" name="Guardsmen of Ryu" entryId="ab36-dbe0-7a54-bada" number="1" type="unit">
          <selections>
            <selection id="s-4" name="Guardsman of Ryu A" entryId="097b-965d-1300-f56a::1b09-d9ec-a2a3-410b"
                       number="1" type="model"/>
            <selection id="s-5" name="Guardsman of Ryu B" entryId="3f4d-d08d-ca58-ccdc::1b09-d9ec-a2a3-410b"
                       number="1" type="model"/>
          </selections>
        </selection>
        <selection id="s-6" name="Golden Sentinel" entryId="90af-3b54-3e2a-9168::49fb-d207-3a25-9327" number="1"
                   type="unit">
          <selections>
            <selection id="s-7" name="Golden Sentinel A" entryId="90af-3b54-3e2a-9168::a218-b749-8176-e97c"
                       number="1" type="model"/>
          </selections>
        </selection>
        <selection id="s-8" name="Heroic Stand" entryId="5048-3a52-5689-6d0b" number="1" type="upgrade"/>
        {extra}
      </selections>
    </force>
  </forces>
</roster>
"""


def roster(tmp_path, name="list.ros", gs="62e4-ab79-1c4c-9ffe", extra="") -> Path:
    """Write the test roster (with ``extra`` selections) and return its path."""
    p = tmp_path / name
    p.write_text(ROSTER.format(gs=gs, extra=extra), encoding="utf-8")
    return p


def test_read_roster(cs, tmp_path):
    w = read_roster(roster(tmp_path), cs)
    assert (w.name, w.faction, w.rice_limit) == ("Dragon's Claw", RYU, 70)
    assert [cs.profile(m.profile).name for m in w.models] == [
        "Takashi Akira", "Guardsman of Ryu A", "Guardsman of Ryu B", "Golden Sentinel A"]
    assert [cs.card_by_key(k).name for k in w.models[0].enhancements] == ["Dragon Heart"]
    assert [cs.card_by_key(k).name for k in w.cards] == ["Heroic Stand"]
    assert cs.card_by_key(w.cards[0]).catalogue == RYU  # the faction's copy of a shared entry
    res = check_warband(w, cs)
    assert res.legal and res.cost == 18 + 2 + 8 + 8 + 16 + 1


def test_read_rosz(cs, tmp_path):
    ros = roster(tmp_path)
    z = tmp_path / "list.rosz"
    with zipfile.ZipFile(z, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.write(ros, "list.ros")
    assert load_warband(z, cs) == read_roster(ros, cs).__class__(**{**read_roster(ros, cs).__dict__, "source": str(z)})


def test_roster_unknown_entries(cs, tmp_path):
    extra = ('<selection id="x-1" name="Mystery Ninja" entryId="dead-beef-0000-0000" number="1" type="model"/>'
             '<selection id="x-2" name="Secret Scroll" entryId="aaaa::bbbb-cccc" number="1" type="upgrade"/>')
    with pytest.raises(WarbandError) as err:
        read_roster(roster(tmp_path, extra=extra), cs)
    msg = str(err.value)
    assert "list.ros" in msg and "Mystery Ninja" in msg and "Secret Scroll" in msg and "dead-beef-0000-0000" in msg


def test_roster_bad_input(cs, tmp_path):
    with pytest.raises(WarbandError, match="roster is for game system '0000-0000'"):
        read_roster(roster(tmp_path, gs="0000-0000"), cs)
    p = tmp_path / "cut.ros"
    p.write_text(ROSTER.format(gs="62e4-ab79-1c4c-9ffe", extra="")[:900])
    with pytest.raises(WarbandError, match=r"cut\.ros: XML syntax error"):
        read_roster(p, cs)
    other = ROSTER.replace('catalogueId="0cac-b8ad-fb7f-ef84"', 'catalogueId="ffff-ffff"')
    (tmp_path / "o.ros").write_text(other.format(gs="62e4-ab79-1c4c-9ffe", extra=""))
    with pytest.raises(WarbandError, match="not among the imported catalogues"):
        read_roster(tmp_path / "o.ros", cs)
    (tmp_path / "e.rosz").write_bytes(b"PK\x03\x04 not really a zip")
    with pytest.raises(WarbandError, match="e.rosz"):
        read_roster(tmp_path / "e.rosz", cs)


def test_roster_kami_card_with_two_models(cs, tmp_path):
    kami = cs.profile("Kami of Evening Flame")
    link = next(e for e in kami.entry_ids if e not in (kami.card_id,) and e != kami.element_id)
    extra = (f'<selection id="k-1" name="Kami of Evening Flame" entryId="{link}::{kami.card_id}" '
             'number="1" type="unit">'
             '<selections>'
             + "".join(f'<selection id="k-{i}" name="Kami of Evening Flame {ab}" entryId="{link}::{eid}" '
                       'number="1" type="model"/>'
                       for i, (ab, eid) in enumerate(zip("AB", kami.entry_ids[-3:-1]), 2))
             + "</selections></selection>")
    w = read_roster(roster(tmp_path, extra=extra), cs)
    assert sum(m.profile == kami.profile.id for m in w.models) == 2


# --- the command ------------------------------------------------------------------------------------------


def _cli(argv):
    from sim.cli.catalogue import main

    return main(argv)


def test_cli_warband_check(cs, tmp_path, capsys):
    good = tmp_path / "good.yaml"
    good.write_text(yaml.safe_dump({"format": "bushido-warband/1", "name": "g", "faction": RYU, "rice": 70,
                                    "models": BASE, "data": str(BSDATA)}))
    assert _cli(["warband", "check", str(good)]) == 0
    assert "LEGAL" in capsys.readouterr().out
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump({"format": "bushido-warband/1", "name": "b", "faction": RYU, "rice": 20,
                                   "models": BASE + ["Ito Masunagi"]}))
    assert _cli(["warband", "check", str(bad), "--data", str(BSDATA)]) == 1
    out = capsys.readouterr().out
    assert "ILLEGAL, 2 reason(s)" in out and "rice-limit" in out and "model-faction" in out
    assert _cli(["warband", "check", str(roster(tmp_path)), "--data", str(BSDATA), "--json"]) == 0
    assert '"legal": true' in capsys.readouterr().out
    assert _cli(["warband", "check", str(tmp_path / "missing.yaml"), "--data", str(BSDATA)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "missing.yaml" in err and err.count("\n") == 1
    unknown = tmp_path / "u.yaml"
    unknown.write_text(yaml.safe_dump({"format": "bushido-warband/1", "faction": RYU, "rice": 70,
                                       "models": ["Nobody", "Noone"]}))
    assert _cli(["warband", "check", str(unknown), "--data", str(BSDATA)]) == 2
    err = capsys.readouterr().err
    assert "Nobody" in err and "Noone" in err and err.count("\n") == 1


def test_hatred_forbids_the_hated_models_in_the_warband(cs):
    # p.52: "Ненависть (Hatred) [Ключевое слово]: эта модель не может быть включена в отряд,
    # который включает в себя модели [Ключевое слово]." The Lone Swordsman (a Ronin for Ryu)
    # has Hatred [Tengu]; Somabo is a Tengu.
    assert "hatred" in rules(cs, BASE + ["Lone Swordsman A", "Somabo"])
    res = check_warband(wb(cs, BASE + ["Lone Swordsman A", "Somabo"]), cs)
    msg = next(v.message for v in res.violations if v.rule == "hatred")
    assert "Lone Swordsman A" in msg and "Somabo" in msg and next(
        v.page for v in res.violations if v.rule == "hatred") == "p.52"
    assert "hatred" not in rules(cs, BASE + ["Lone Swordsman A"])
