"""Bad BattleScribe input (issue #10): every bad catalogue, game system or roster gives one
line naming the file, the entry and the problem, exit status 2 and no traceback, within
bounded time and memory; nothing is half-loaded. The bounds are in docs/bounds.md
("Catalogues and rosters").

The files are built in ``tmp_path`` from a minimal game system and catalogue (fast); the
zip bombs are small files whose header declares a huge size, or a few MiB of spaces that
deflate to kilobytes. Each case runs through the Python API (the exception and its
message) and through ``main.py`` (status 2, one line on stderr)."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
import tracemalloc
import zipfile
from contextlib import contextmanager
from pathlib import Path

import pytest

from models import bsdata
from models.bsdata import CatalogueError, load_catalogues, read_xml
from models.warband import MAX_ROSTER_ITEMS, WarbandError, load_warband, read_roster

ROOT = Path(__file__).resolve().parents[1]
GID = "62e4-ab79-1c4c-9ffe"
GST = (f'<?xml version="1.0"?><gameSystem id="{GID}" name="Bushido: Risen Sun" revision="1" '
       'xmlns="http://www.battlescribe.net/schema/gameSystemSchema"><costTypes>'
       '<costType id="a111-8656-5c05-7415" name=" Rice"/></costTypes></gameSystem>')
#: Seconds any bad file may take to be refused (generous: CI shares two cores).
QUICK_S = 5.0


def cat(inner: str = "", head: str = '<?xml version="1.0"?>', extra: str = "", name: str = "Test Model") -> str:
    """A catalogue with one model (``inner`` goes inside its entry, ``extra`` at the end
    of the catalogue)."""
    return (f'{head}<catalogue id="c-1" name="Test Clan" library="false" gameSystemId="{GID}" '
            f'xmlns="http://www.battlescribe.net/schema/catalogueSchema"><selectionEntries>'
            f'<selectionEntry id="m-1" name="{name}" type="model"><profiles>'
            f'<profile id="p-1" name="{name}" typeName="Character Profile"><characteristics>'
            '<characteristic name="Melee Pool">3</characteristic><characteristic name="Ranged Pool">2</characteristic>'
            '<characteristic name="Move">4</characteristic><characteristic name="Ki">1</characteristic>'
            '<characteristic name="Ki Cap">6</characteristic><characteristic name="Wounds">5 OOOOO</characteristic>'
            '<characteristic name="Size &amp; Base">Small 30mm</characteristic></characteristics></profile>'
            f'</profiles><costs><cost name=" Rice" typeId="a111-8656-5c05-7415" value="7"/></costs>{inner}'
            f'</selectionEntry></selectionEntries>{extra}</catalogue>')


def roster(limit: str = "70.0", number: str = "1", inner: str = "", name: str = "Test Model",
           entry: str = "m-1", more: str = "") -> str:
    """A roster of the test catalogue: one selection (``more``: further selections)."""
    return (f'<?xml version="1.0"?><roster id="r-1" name="R" gameSystemId="{GID}" '
            'xmlns="http://www.battlescribe.net/schema/rosterSchema">'
            f'<costLimits><costLimit name=" Rice" typeId="a111-8656-5c05-7415" value="{limit}"/></costLimits>'
            '<forces><force id="f-1" name="F" entryId="x" catalogueId="c-1" catalogueName="Test Clan"><selections>'
            f'<selection id="s-1" name="{name}" entryId="{entry}" number="{number}" type="model">{inner}</selection>'
            f'{more}</selections></force></forces></roster>')


def folder(tmp_path: Path, files: dict, name: str = "data") -> Path:
    """A catalogue folder: the game system and the test catalogue unless ``files`` gives
    them (``None`` makes a FIFO, bytes are written as they are)."""
    d = tmp_path / name
    d.mkdir()
    if not any(k.endswith((".gst", ".gstz")) for k in files):
        files = {"g.gst": GST, **files}
    if not any(k.endswith((".cat", ".catz")) for k in files):
        files = {**files, "t.cat": cat()}
    for k, v in files.items():
        if v is None:
            os.mkfifo(d / k)
        else:
            (d / k).write_bytes(v.encode("utf-8") if isinstance(v, str) else v)
    return d


@pytest.fixture(scope="module")
def data(tmp_path_factory) -> Path:
    """A folder with the game system and the test catalogue."""
    return folder(tmp_path_factory.mktemp("cs"), {})


@pytest.fixture(scope="module")
def cs(data):
    """The test catalogue imported (rosters are read against it)."""
    return load_catalogues(data)


@contextmanager
def quick(limit: float = QUICK_S):
    """Fail if the block takes longer than ``limit`` seconds."""
    t0 = time.perf_counter()
    yield
    took = time.perf_counter() - t0
    assert took < limit, f"took {took:.1f} s"


@contextmanager
def fifo_watchdog(fifo: Path, after: float = QUICK_S):
    """If something blocks reading ``fifo``, open its write end after ``after`` seconds
    and close it (the reader gets end of file): a regression fails the test instead of
    hanging it."""
    stop = threading.Event()

    def release():
        if stop.wait(after):
            return
        try:
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        except OSError:
            pass  # nobody is reading it: nothing to release

    t = threading.Thread(target=release, daemon=True)
    t.start()
    try:
        with quick(after):
            yield
    finally:
        stop.set()
        t.join()


def refused(call, *, match: str, exc=CatalogueError, file: str | None = None) -> str:
    """Run ``call``; it must raise ``exc`` quickly, on one line, naming ``file`` and
    matching ``match``. Returns the message."""
    with quick(), pytest.raises(exc) as err:
        call()
    msg = str(err.value)
    assert len(msg.splitlines()) == 1 and msg.isprintable(), msg
    if file is not None:
        assert file in msg, msg
    assert __import__("re").search(match, msg), msg
    return msg


def cli(capsys, *argv) -> str:
    """Run ``main.py`` in this process; it must exit with 2, print nothing on stdout and
    one line on stderr (``error: ...``, no traceback). Returns that line."""
    from sim.cli.main import main

    with quick():
        code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert code == 2, (code, out, err)
    assert err.startswith("error: ") and err.count("\n") == 1 and "Traceback" not in err, err
    return err


def zipped(member: str, data: bytes) -> bytes:
    """``data`` deflated into a one-member zip, as bytes."""
    import io

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr(member, data)
    return buf.getvalue()


def declare_size(z: bytes, size: int) -> bytes:
    """``z`` (a one-member zip) with the member's uncompressed size in its local and
    central headers replaced by ``size`` (a header that lies)."""
    b = bytearray(z)
    i = b.find(b"PK\x03\x04")
    b[i + 22:i + 26] = size.to_bytes(4, "little")
    i = b.find(b"PK\x01\x02")
    b[i + 24:i + 28] = size.to_bytes(4, "little")
    return bytes(b)


# --- undecodable bytes, control characters ---------------------------------------------------------


def test_latin1_bytes_in_catalogue_name_the_byte_line_and_column(tmp_path, capsys):
    d = folder(tmp_path, {"t.cat": cat(name="Tést Model").encode("latin-1")})
    refused(lambda: load_catalogues(d), file="t.cat", match=r"not UTF-8 text: byte 0xe9 at line 1, column \d+")
    assert "not UTF-8 text: byte 0xe9" in cli(capsys, "catalogue", "import", d)


def test_latin1_roster_names_the_byte(tmp_path, cs, capsys):
    p = tmp_path / "r.ros"
    p.write_bytes(roster(name="Tést Model").encode("latin-1"))
    refused(lambda: read_roster(p, cs), exc=WarbandError, file="r.ros", match="not UTF-8 text: byte 0xe9")


def test_declared_latin1_and_utf16_catalogues_still_read(tmp_path):
    """The encodings BattleScribe files may name are read (only unknown ones refused)."""
    d = folder(tmp_path, {"t.cat": cat(head='<?xml version="1.0" encoding="ISO-8859-1"?>', name="Tést Model")
                          .encode("latin-1")})
    assert [p.name for p in load_catalogues(d).profiles] == ["Tést Model"]
    d2 = folder(tmp_path, {"t.cat": cat(head='<?xml version="1.0" encoding="UTF-16"?>', name="Tést Model")
                           .encode("utf-16")}, name="d2")
    assert [p.name for p in load_catalogues(d2).profiles] == ["Tést Model"]


def test_binary_junk_catalogue_is_refused_as_binary(tmp_path, capsys):
    junk = bytes(range(256)) * 8
    d = folder(tmp_path, {"t.cat": junk})
    refused(lambda: load_catalogues(d), file="t.cat", match=r"a binary file, not XML \(NUL byte at line 1, column 1\)")
    cli(capsys, "catalogue", "import", d)


def test_nul_in_catalogue_names_line_and_column(tmp_path, capsys):
    text = cat().replace("Small 30mm", "Small\x0030mm")
    d = folder(tmp_path, {"t.cat": "\n" * 1100 + text})  # past the first KiB: found by the parser
    refused(lambda: load_catalogues(d), file="t.cat", match=r"control character U\+0000 at line 1101, column \d+")
    d2 = folder(tmp_path, {"t.cat": text}, name="d2")  # in the first KiB: a binary file
    refused(lambda: load_catalogues(d2), file="t.cat", match=r"binary file, not XML \(NUL byte at line 1")
    cli(capsys, "catalogue", "import", d)


def test_control_character_in_catalogue_is_one_line(tmp_path, capsys):
    d = folder(tmp_path, {"t.cat": cat().replace("Small 30mm", "Small\x1b[2J30mm")})
    refused(lambda: load_catalogues(d), file="t.cat", match=r"control character U\+001B at line 1, column \d+")
    cli(capsys, "catalogue", "import", d)


def test_line_separators_in_roster_names_stay_on_one_line(tmp_path, cs, data, capsys):
    """Names echoed in a message are quoted: a character reference for a line break
    (&#10;, &#x2028;, &#x85;) never splits the message."""
    p = tmp_path / "r.ros"
    p.write_text(roster(name="Mystery&#10;Ninja&#x2028;&#x85;&#x9b;x", entry="zz"))
    msg = refused(lambda: read_roster(p, cs), exc=WarbandError, file="r.ros", match="entries not in the catalogues")
    assert "Mystery" in msg
    cli(capsys, "warband", "check", p, "--data", data)


# --- nesting ----------------------------------------------------------------------------------------


def test_deeply_nested_catalogue_is_refused_not_recursion_error(tmp_path, capsys):
    n = 20_000
    inner = ("<selectionEntries>" + '<selectionEntry id="x" name="x" type="upgrade"><selectionEntries>' * n
             + "</selectionEntries></selectionEntry>" * n + "</selectionEntries>")
    d = folder(tmp_path, {"t.cat": cat(inner=inner)})
    refused(lambda: load_catalogues(d), file="t.cat", match=rf"elements nested more than {bsdata.MAX_XML_DEPTH} deep")
    cli(capsys, "catalogue", "import", d)


def test_deeply_nested_roster_is_refused_not_recursion_error(tmp_path, cs, data, capsys):
    n = 20_000
    inner = ("<selections>"
             + '<selection id="y" name="Test Model" entryId="m-1" number="1" type="model"><selections>' * n
             + "</selections></selection>" * n + "</selections>")
    p = tmp_path / "r.ros"
    p.write_text(roster(inner=inner))
    refused(lambda: read_roster(p, cs), exc=WarbandError, file="r.ros", match="elements nested more than")
    cli(capsys, "warband", "check", p, "--data", data)


def _shared(entries: str) -> str:
    return cat(extra=f"<sharedSelectionEntries>{entries}</sharedSelectionEntries>")


def test_entry_link_chain_too_deep_is_refused_not_recursion_error(tmp_path, capsys):
    n = 3000  # flat in the XML, 3000 links deep
    entries = "".join(f'<selectionEntry id="e-{i}" name="E{i}" type="upgrade"><entryLinks>'
                      f'<entryLink id="l-{i}" name="L{i}" targetId="e-{i + 1}" type="selectionEntry"/>'
                      "</entryLinks></selectionEntry>" for i in range(n))
    d = folder(tmp_path, {"t.cat": _shared(entries)})
    refused(lambda: load_catalogues(d), file="t.cat",
            match=rf"entryLink 'L\d+' \(id 'l-\d+'\): entries and links nested more than {bsdata.MAX_LINK_DEPTH} deep")
    cli(capsys, "catalogue", "import", d)


def test_entry_links_that_multiply_are_refused_in_bounded_time(tmp_path, capsys):
    """Seven levels of entries each linking the next ten times: 10**7 walks unbounded."""
    levels, fan = 7, 10
    entries = "".join(f'<selectionEntry id="e-{i}" name="E{i}" type="upgrade"><entryLinks>'
                      + "".join(f'<entryLink id="l-{i}-{k}" name="x" targetId="e-{i + 1}" type="selectionEntry"/>'
                                for k in range(fan))
                      + "</entryLinks></selectionEntry>" for i in range(levels))
    entries += f'<selectionEntry id="e-{levels}" name="E{levels}" type="upgrade"/>'
    d = folder(tmp_path, {"t.cat": _shared(entries)})
    refused(lambda: load_catalogues(d), file="t.cat",
            match=rf"links expand to more than {bsdata.MAX_LINK_VISITS} entries")


def test_info_group_linking_itself_is_read_once(tmp_path):
    """A cycle of info groups is not an error (nothing new below it): it is skipped."""
    extra = ('<sharedInfoGroups><infoGroup id="g-1" name="G"><infoLinks>'
             '<infoLink id="il-2" name="G" targetId="g-1" type="infoGroup"/>'
             '</infoLinks></infoGroup></sharedInfoGroups>')
    d = folder(tmp_path, {"t.cat": cat(inner='<infoLinks><infoLink id="il-1" name="G" targetId="g-1" '
                                             'type="infoGroup"/></infoLinks>', extra=extra)})
    with quick():
        assert [p.name for p in load_catalogues(d).profiles] == ["Test Model"]


def test_info_groups_that_multiply_are_refused(tmp_path):
    n = 30
    groups = "".join(f'<infoGroup id="g-{i}" name="G{i}"><infoLinks>'
                     f'<infoLink id="i-{i}a" name="G" targetId="g-{i + 1}" type="infoGroup"/>'
                     f'<infoLink id="i-{i}b" name="G" targetId="g-{i + 1}" type="infoGroup"/></infoLinks></infoGroup>'
                     for i in range(n)) + f'<infoGroup id="g-{n}" name="G{n}"/>'
    d = folder(tmp_path, {"t.cat": cat(inner='<infoLinks><infoLink id="il" name="G" targetId="g-0" type="infoGroup"/>'
                                             "</infoLinks>", extra=f"<sharedInfoGroups>{groups}</sharedInfoGroups>")})
    refused(lambda: load_catalogues(d), file="t.cat", match="links expand to more than")


# --- encodings and entities ----------------------------------------------------------------------------


def test_unknown_xml_encoding_is_a_clean_error(tmp_path, capsys):
    d = folder(tmp_path, {"t.cat": cat(head='<?xml version="1.0" encoding="x-no-such"?>')})
    refused(lambda: load_catalogues(d), file="t.cat", match="unknown XML encoding 'x-no-such'")
    assert "unknown XML encoding" in cli(capsys, "catalogue", "import", d)


@pytest.mark.parametrize("encoding", ["utf-7", "big5", "rot13", "hex"])
def test_unsupported_xml_encoding_is_a_clean_error(tmp_path, capsys, encoding):
    d = folder(tmp_path, {"t.cat": cat(head=f'<?xml version="1.0" encoding="{encoding}"?>')})
    refused(lambda: load_catalogues(d), file="t.cat", match=f"unsupported XML encoding '{encoding}'")
    cli(capsys, "catalogue", "import", d)


def test_billion_laughs_in_utf16_is_refused_before_parsing(tmp_path, capsys):
    """The DTD is looked for in the decoded text: UTF-16 does not hide it."""
    dtd = ('<!DOCTYPE catalogue [<!ENTITY a "aaaaaaaaaa">'
           + "".join(f'<!ENTITY {chr(98 + i)} "' + f"&{chr(97 + i)};" * 10 + '">' for i in range(9)) + "]>")
    text = '<?xml version="1.0" encoding="UTF-16"?>' + dtd + cat(head="").replace("Small 30mm", "&j;")
    d = folder(tmp_path, {"t.cat": text.encode("utf-16")})
    refused(lambda: load_catalogues(d), file="t.cat", match="DTD or entity declarations are not allowed")
    cli(capsys, "catalogue", "import", d)


# --- zip files -------------------------------------------------------------------------------------------


def test_encrypted_catz_is_a_clean_error(tmp_path, capsys):
    z = bytearray(zipped("t.cat", cat().encode()))
    for sig, flags in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):  # set "encrypted" in both headers
        i = z.find(sig)
        z[i + flags] |= 1
    d = folder(tmp_path, {"t.catz": bytes(z)})
    refused(lambda: load_catalogues(d), file="t.catz",
            match="member 't.cat': encrypted (password-protected zip files are not supported)".replace("(", r"\(")
            .replace(")", r"\)"))
    cli(capsys, "catalogue", "import", d)


def test_gstz_declaring_gigabytes_is_refused_from_its_header(tmp_path, capsys):
    """A 1 KiB file that says it inflates to 4 GB: refused before inflating anything."""
    z = declare_size(zipped("g.gst", GST.encode()), 0xFFFF_FFF0)
    d = folder(tmp_path, {"g.gstz": z})
    tracemalloc.start()
    try:
        refused(lambda: load_catalogues(d), file="g.gstz",
                match=rf"member 'g.gst': inflates to {0xFFFF_FFF0} bytes; the limit is {bsdata.MAX_XML_BYTES} bytes")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 2 * 1024 * 1024
    cli(capsys, "catalogue", "import", d)


def test_gstz_just_over_the_real_cap_is_refused(tmp_path):
    """An honest bomb: the XML padded with spaces to one byte past MAX_XML_BYTES (it
    deflates to ~32 KiB)."""
    pad = bsdata.MAX_XML_BYTES + 1 - len(GST)
    data = GST.replace("</gameSystem>", " " * pad + "</gameSystem>").encode()
    d = folder(tmp_path, {"g.gstz": zipped("g.gst", data)})
    del data
    refused(lambda: load_catalogues(d), file="g.gstz", match=rf"inflates to {bsdata.MAX_XML_BYTES + 1} bytes")


def test_zip_whose_header_lies_small_is_read_no_further(tmp_path):
    """Declared 1000 bytes, really 8 MiB: inflating stops at the declared size (memory
    bounded by the 1 MiB chunks read) and the checksum fails."""
    data = GST.replace("</gameSystem>", " " * (8 << 20) + "</gameSystem>").encode()
    p = tmp_path / "g.gstz"
    p.write_bytes(declare_size(zipped("g.gst", data), 1000))
    del data
    tracemalloc.start()
    try:
        refused(lambda: read_xml(p), file="g.gstz", match="broken zip file: Bad CRC-32")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4 * 1024 * 1024


def test_zip_member_over_a_lowered_cap_is_refused(tmp_path):
    p = tmp_path / "r.rosz"
    p.write_bytes(zipped("r.ros", roster().replace("</roster>", " " * 5000 + "</roster>").encode()))
    assert p.stat().st_size < 1000
    refused(lambda: read_xml(p, max_bytes=1000), file="r.rosz", match="member 'r.ros': inflates to \\d+ bytes; "
            "the limit is 1000 bytes")
    assert read_xml(p).tag == "roster"


def test_zip_with_too_many_members_is_refused(tmp_path):
    import io

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for i in range(bsdata.MAX_ZIP_MEMBERS + 1):
            zf.writestr(f"x{i}.cat", "")
    d = folder(tmp_path, {"t.catz": buf.getvalue()})
    refused(lambda: load_catalogues(d), file="t.catz", match=f"more than {bsdata.MAX_ZIP_MEMBERS} files")


# --- sizes and totals -----------------------------------------------------------------------------------------


def test_file_over_the_size_cap_is_refused_before_reading(tmp_path):
    p = tmp_path / "t.cat"
    p.write_text(cat())
    refused(lambda: read_xml(p, max_bytes=100), file="t.cat", match=r"file is \d+ bytes; the limit is 100 bytes")


def test_markup_over_the_cap_is_refused_before_parsing(tmp_path, monkeypatch):
    monkeypatch.setattr(bsdata.limits, "MAX_XML_MARKUP", 10)
    d = folder(tmp_path, {})
    refused(lambda: load_catalogues(d), file="t.cat", match=r"\d+ markup characters '<'; the limit is 10")


def test_import_totals_are_bounded(tmp_path, monkeypatch):
    d = folder(tmp_path, {"t.cat": cat(), "u.cat": cat().replace('id="c-1"', 'id="c-2"')})
    monkeypatch.setattr(bsdata.limits, "MAX_IMPORT_FILES", 2)
    refused(lambda: load_catalogues(d), match="3 files; the limit is 2 per import")
    monkeypatch.setattr(bsdata.limits, "MAX_IMPORT_FILES", 200)
    monkeypatch.setattr(bsdata.limits, "MAX_IMPORT_MARKUP", 60)
    refused(lambda: load_catalogues(d), match="the files read so far hold \\d+ markup characters '<'; the limit is 60")


def test_failed_import_is_not_cached_or_half_loaded(tmp_path):
    d = folder(tmp_path, {"u.cat": cat(head='<?xml version="1.0" encoding="x-no-such"?>')
                          .replace('id="c-1"', 'id="c-2"')})
    before = dict(bsdata._CACHE)
    refused(lambda: load_catalogues(d), file="u.cat", match="unknown XML encoding")
    assert bsdata._CACHE == before


# --- what the importer parses: numbers, field lengths, work ---------------------------------------------


def _model_entries(n: int, chars: dict[str, str], traits: str | None = None) -> str:
    """A catalogue of ``n`` models with the characteristics ``chars`` (and a Character
    Traits profile when ``traits`` is given)."""
    extra = (f'<profile id="t-{{i}}" name="M{{i}}" typeName="Character Traits"><characteristics>'
             f'<characteristic name="Traits">{traits}</characteristic></characteristics></profile>') if traits else ""
    cs = "".join(f'<characteristic name="{k}">{v}</characteristic>' for k, v in chars.items())
    entries = "".join(f'<selectionEntry id="m-{i}" name="M{i}" type="model"><profiles>'
                      f'<profile id="p-{i}" name="M{i}" typeName="Character Profile"><characteristics>{cs}'
                      f"</characteristics></profile>{extra.format(i=i)}</profiles></selectionEntry>" for i in range(n))
    return (f'<?xml version="1.0"?><catalogue id="c-1" name="Test Clan" library="false" gameSystemId="{GID}">'
            f"<selectionEntries>{entries}</selectionEntries></catalogue>")


BASE_CHARS = {"Melee Pool": "3", "Ranged Pool": "2", "Move": "4", "Ki": "1", "Ki Cap": "6", "Wounds": "5",
              "Size &amp; Base": "Small 30mm"}


@pytest.mark.parametrize("field, text", [
    ("Melee Pool", "99999"), ("Melee Pool", "9" * 3900), ("Wounds", "9" * 3900), ("Wounds", "O" * 1001),
    ("Size &amp; Base", "Small " + "9" * 3900 + "mm"), ("Size &amp; Base", "Small 1000mm"),
])
def test_absurd_numbers_in_characteristics_are_kept_as_text(tmp_path, field, text):
    """A 3900-digit Melee Pool used to raise Python's int() digit limit (a traceback); a
    value beyond the profile bounds is now unparsed: kept as text, reported, not written."""
    d = folder(tmp_path, {"t.cat": _model_entries(1, {**BASE_CHARS, field: text})})
    with quick():
        cs = load_catalogues(d)
    (cp,) = cs.profiles
    assert any(i.field == field.replace("&amp;", "&") and i.problem == "cannot parse; kept as text" for i in cs.issues)
    rep = bsdata.write_profiles(cs, tmp_path / "out")
    assert rep.written == 0 and rep.skipped[0][0] == cp.profile.id


def test_negative_stat_is_skipped_by_the_writer_not_fatal(tmp_path):
    d = folder(tmp_path, {"t.cat": _model_entries(1, {**BASE_CHARS, "Move": "-400"})})
    cs = load_catalogues(d)
    rep = bsdata.write_profiles(cs, tmp_path / "out")
    assert rep.written == 0 and rep.skipped == (("m0", "move is -400"),)


def test_control_character_in_a_profile_name_is_skipped_by_the_writer(tmp_path):
    d = folder(tmp_path, {"t.cat": cat(name="Test&#x9b;Model")})
    rep = bsdata.write_profiles(load_catalogues(d), tmp_path / "out")
    assert rep.written == 0 and "not one line of 1 to 200 printable characters" in rep.skipped[0][1]


def test_characteristic_over_the_length_cap_is_refused(tmp_path, capsys):
    d = folder(tmp_path, {"t.cat": _model_entries(1, {**BASE_CHARS, "Size &amp; Base": "Small 30mm" + " x" * 2000})})
    refused(lambda: load_catalogues(d), file="t.cat",
            match=rf"profile 'M0' \(id 'p-0'\): 'Size & Base': 4010 characters; the limit is {bsdata.MAX_FIELD_CHARS}")
    cli(capsys, "catalogue", "import", d)


def test_long_fields_parse_in_linear_time(tmp_path):
    """40 models whose Size & Base is 3990 digits without 'mm' and whose traits are 1995
    words run together: quadratic before (about 25 s), linear now."""
    d = folder(tmp_path, {"t.cat": _model_entries(40, {**BASE_CHARS, "Size &amp; Base": "Small " + "1" * 3990},
                                                  traits="x " * 1995)})
    with quick():
        cs = load_catalogues(d)
    assert len(cs.profiles) == 40 and all(p.profile.base is None for p in cs.profiles)


@pytest.mark.parametrize("value", ["inf", "nan", "abc", "1e400"])
def test_card_max_constraint_that_is_not_a_number_is_no_limit(tmp_path, value):
    """``value="inf"`` used to raise OverflowError, ``nan`` and ``abc`` ValueError."""
    inner = (f'<constraints><constraint id="k-1" type="max" value="{value}" field="selections" scope="roster"/>'
             '</constraints>')
    d = folder(tmp_path, {"t.cat": cat(inner=inner)})
    with quick():
        cs = load_catalogues(d)
    assert [c.max_copies for c in cs.cards] == [None]


@pytest.mark.parametrize("value", ["inf", "nan", "1e400"])
def test_rice_cost_that_is_not_a_finite_number_is_reported(tmp_path, value):
    d = folder(tmp_path, {"t.cat": cat().replace('value="7"', f'value="{value}"')})
    cs = load_catalogues(d)
    assert cs.profiles[0].profile.rice is None
    assert any(i.field == "cost" and i.text == value and i.problem.startswith("not a number") for i in cs.issues)


def test_trait_name_comparisons_are_bounded(tmp_path, monkeypatch):
    monkeypatch.setattr(bsdata.limits, "MAX_NAME_COMPARISONS", 50)
    rules = "".join(f'<rule id="r{i}" name="Rule{i}x"/>' for i in range(20))
    text = _model_entries(1, BASE_CHARS, traits="Abcdef, Ghijkl, Mnopqr, Stuvwx").replace(
        "</catalogue>", f"<sharedRules>{rules}</sharedRules></catalogue>")
    d = folder(tmp_path, {"t.cat": text})
    refused(lambda: load_catalogues(d), file="t.cat",
            match="'M0': Traits: more than 50 comparisons with the 20 known rule names")


def test_parsed_fields_are_bounded(tmp_path, monkeypatch):
    monkeypatch.setattr(bsdata.limits, "MAX_PARSED_FIELDS", 5)
    d = folder(tmp_path, {})
    refused(lambda: load_catalogues(d), file="t.cat",
            match="'Test Model': .*: more than 5 fields to parse in one import")


# --- rosters: cost limits and numbers --------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["inf", "-inf", "nan", "1e400", "10001", "70.5", "lots"])
def test_roster_cost_limit_must_be_finite_whole_and_sane(tmp_path, cs, data, capsys, value):
    p = tmp_path / "r.ros"
    p.write_text(roster(limit=value))
    refused(lambda: read_roster(p, cs), exc=WarbandError, file="r.ros", match=f"costLimit 'Rice': .*'{value}'")
    cli(capsys, "warband", "check", p, "--data", data)


def test_roster_cost_limit_in_range_is_read(tmp_path, cs):
    p = tmp_path / "r.ros"
    for value, limit in (("70.0", 70), ("100", 100), ("0", None), ("-1", None)):
        p.write_text(roster(limit=value))
        assert read_roster(p, cs).rice_limit == limit


@pytest.mark.parametrize("value", ["100000000", "1e400", "inf", "nan", "0", "-1", "2.5", "many"])
def test_roster_number_must_be_a_sane_whole_number(tmp_path, cs, data, capsys, value):
    p = tmp_path / "r.ros"
    p.write_text(roster(number=value))
    refused(lambda: read_roster(p, cs), exc=WarbandError, file="r.ros",
            match=f"selection 'Test Model' \\(id 's-1'\\): number: expected a whole number from 1 to 100, "
                  f"got '{value}'")
    cli(capsys, "warband", "check", p, "--data", data)


def test_roster_with_too_many_models_is_refused(tmp_path, cs):
    more = "".join(f'<selection id="s-{i}" name="Test Model" entryId="m-1" number="100" type="model"/>'
                   for i in range(2, MAX_ROSTER_ITEMS // 100 + 2))
    p = tmp_path / "r.ros"
    p.write_text(roster(number="100", more=more))
    refused(lambda: read_roster(p, cs), exc=WarbandError, file="r.ros",
            match=f"more than {MAX_ROSTER_ITEMS} models, enhancements and cards")


def test_roster_listing_many_unknown_entries_stays_short(tmp_path, cs):
    more = "".join(f'<selection id="u-{i}" name="Ghost {i}" entryId="zz-{i}" number="1" type="model"/>'
                   for i in range(100))
    p = tmp_path / "r.ros"
    p.write_text(roster(more=more))
    msg = refused(lambda: read_roster(p, cs), exc=WarbandError, file="r.ros", match=r"; \.\.\. 80 more$")
    assert "'Ghost 19'" in msg and "'Ghost 20'" not in msg


# --- not regular files ------------------------------------------------------------------------------------------------


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_fifo_given_as_catalogue_is_refused_without_blocking(tmp_path, capsys):
    d = folder(tmp_path, {"t.cat": None})
    with fifo_watchdog(d / "t.cat"):
        refused(lambda: load_catalogues(d), file="t.cat",
                match=r"cannot read: a FIFO \(named pipe\), not a regular file")
        cli(capsys, "catalogue", "import", d)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_fifo_given_as_roster_is_refused_without_blocking(tmp_path, cs, data, capsys):
    p = tmp_path / "r.ros"
    os.mkfifo(p)
    with fifo_watchdog(p):
        refused(lambda: load_warband(p, cs), exc=WarbandError, file="r.ros", match="a FIFO")
        msg = cli(capsys, "warband", "check", p, "--data", data)
    assert "a FIFO" in msg


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero")
def test_device_given_as_roster_is_refused_without_reading(cs):
    refused(lambda: read_roster("/dev/zero", cs), exc=WarbandError, file="/dev/zero", match="a character device")


def test_directory_given_as_catalogue_is_refused(tmp_path, capsys):
    d = folder(tmp_path, {})
    (d / "x.cat").mkdir()
    refused(lambda: load_catalogues(d), file="x.cat", match="a directory, not a regular file")
    cli(capsys, "catalogue", "import", d)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_fifo_roster_in_a_table_file_is_refused(tmp_path, data):
    from sim.table import TableError, load_table

    os.mkfifo(tmp_path / "w.ros")
    t = tmp_path / "t.yaml"
    t.write_text(f"format: bushido-table/1\nname: t\ncatalogues: {data}\n"
                 "models:\n  - {id: a, player: 1, profile: Test Model, position: [4, 4]}\n"
                 "warbands:\n  - {file: w.ros, player: 2, positions: [[6, 20]]}\n")
    with fifo_watchdog(tmp_path / "w.ros"):
        refused(lambda: load_table(t), exc=TableError, file="t.yaml",
                match=r"warbands\[0\]: .*w\.ros: cannot read: a FIFO")


# --- warband YAML files read by the warband command ---------------------------------------------------------------


def test_latin1_warband_yaml_is_one_line(tmp_path, cs, data, capsys):
    p = tmp_path / "w.yaml"
    p.write_bytes("format: bushido-warband/1\nname: Tést\nfaction: Test Clan\nmodels: [Test Model]\n".encode("latin-1"))
    refused(lambda: load_warband(p, cs), exc=WarbandError, file="w.yaml", match="not UTF-8 text: byte 0xe9 at line 2")
    cli(capsys, "warband", "check", p, "--data", data)


def test_nul_in_warband_yaml_is_one_line(tmp_path, cs, data, capsys):
    p = tmp_path / "w.yaml"
    p.write_bytes(b"format: bushido-warband/1\nname: T\x00\nfaction: Test Clan\nmodels: [Test Model]\n")
    refused(lambda: load_warband(p, cs), exc=WarbandError, file="w.yaml", match=r"line 2, column \d+: NUL U\+0000")
    cli(capsys, "warband", "check", p, "--data", data)


def test_warband_yaml_problems_are_one_line(tmp_path, cs):
    p = tmp_path / "w.yaml"
    p.write_text("format: bushido-warband/1\nfaction: Test Clan\nmodels: [Nobody, Noone]\nevents: [Nothing]\n")
    refused(lambda: load_warband(p, cs), exc=WarbandError, file="w.yaml", match="models\\[0\\].*; .*models\\[1\\]")


# --- end to end: a fresh process ----------------------------------------------------------------------------------


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_main_py_refuses_a_bomb_and_a_fifo_with_status_2(tmp_path):
    """``python main.py`` itself: status 2, one line, no traceback, bounded time (the
    child is killed after 60 s, which fails the test)."""
    bomb = folder(tmp_path, {"g.gstz": declare_size(zipped("g.gst", GST.encode()), 0xFFFF_FFF0)}, name="bomb")
    fifo = folder(tmp_path, {"t.cat": None}, name="fifo")
    for d, what in ((bomb, "inflates to"), (fifo, "a FIFO")):
        r = subprocess.run([sys.executable, str(ROOT / "main.py"), "catalogue", "import", str(d)],
                           capture_output=True, text=True, timeout=60, cwd=ROOT)
        assert r.returncode == 2 and r.stdout == "", r
        assert r.stderr.count("\n") == 1 and what in r.stderr and "Traceback" not in r.stderr, r.stderr


# --- any change to a catalogue's attributes or texts: a result or one clean line --------------------------

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

#: A small catalogue using what the importer reads: a unit with a model, a weapon, traits,
#: a Ki feat link, categories, costs, constraints, a modifier with a condition, an entry
#: link, shared entries and rules.
RICH = (f'<?xml version="1.0"?><catalogue id="c-1" name="Test Clan" library="false" gameSystemId="{GID}">'
        '<categoryEntries><categoryEntry id="k-1" name="Faction Profile Cards"/>'
        '<categoryEntry id="k-2" name="Samurai"/>'
        '<categoryEntry id="k-3" name="Faction Enhancement Cards"/></categoryEntries>'
        '<rules><rule id="r-1" name="Fear"/><rule id="r-2" name="Armour"/></rules>'
        '<selectionEntries><selectionEntry id="u-1" name="Unit" type="unit">'
        '<categoryLinks><categoryLink id="cl-1" targetId="k-1" primary="true"/><categoryLink id="cl-2" targetId="k-2"/>'
        '</categoryLinks><constraints><constraint id="q-1" type="max" value="1" field="selections" scope="roster"/>'
        '</constraints><profiles><profile id="tp-1" name="Unit" typeName="Character Traits"><characteristics>'
        '<characteristic name="Traits">Fear (2), Armour [Melee]:(1/6")</characteristic></characteristics></profile>'
        '</profiles><infoLinks><infoLink id="il-1" name="Feat" targetId="g-1" type="infoGroup"/></infoLinks>'
        '<selectionEntries><selectionEntry id="m-1" name="Model A" type="model"><profiles>'
        '<profile id="p-1" name="Model A" typeName="Character Profile"><characteristics>'
        '<characteristic name="Melee Pool">3</characteristic><characteristic name="Ranged Pool">2</characteristic>'
        '<characteristic name="Move">4</characteristic><characteristic name="Ki">1</characteristic>'
        '<characteristic name="Ki Cap">6</characteristic><characteristic name="Wounds">5 OOOOO</characteristic>'
        '<characteristic name="Size &amp; Base">Small 30mm</characteristic></characteristics></profile>'
        '<profile id="w-1" name="Bow" typeName="Ranged Weapon"><characteristics>'
        '<characteristic name="Ranged Weapon Strength">+1</characteristic>'
        '<characteristic name="Range Bands">4/8/12</characteristic>'
        '<characteristic name="Traits">Ammo (2)</characteristic></characteristics></profile></profiles>'
        '<costs><cost name="Rice" typeId="a111-8656-5c05-7415" value="7"/></costs></selectionEntry></selectionEntries>'
        '<entryLinks><entryLink id="el-1" name="Charm" targetId="s-1" type="selectionEntry"/></entryLinks>'
        '</selectionEntry></selectionEntries>'
        '<sharedSelectionEntries><selectionEntry id="s-1" name="Charm" type="upgrade"><categoryLinks>'
        '<categoryLink id="cl-3" targetId="k-3" primary="true"/></categoryLinks>'
        '<modifiers><modifier type="set" field="hidden" value="true"><conditions>'
        '<condition type="atLeast" value="1" field="selections" scope="roster" childId="m-1"/></conditions>'
        '</modifier></modifiers><profiles><profile id="sp-1" name="Charm" typeName="Special Card"><characteristics>'
        '<characteristic name="Description">Required [Samurai]. Exclusion [Kami].</characteristic></characteristics>'
        '</profile></profiles><costs><cost name="Rice" typeId="a111-8656-5c05-7415" value="2"/></costs>'
        '</selectionEntry></sharedSelectionEntries>'
        '<sharedInfoGroups><infoGroup id="g-1" name="Feat"><profiles><profile id="f-1" name="Feat" typeName="Ki Feat">'
        '<characteristics><characteristic name="Cost">1</characteristic>'
        '<characteristic name="Timing">Active</characteristic>'
        '<characteristic name="Subject">Target 8&quot;, Opp. Ki</characteristic></characteristics></profile></profiles>'
        '</infoGroup></sharedInfoGroups></catalogue>')
_ATTRS = ["id", "name", "targetId", "childId", "type", "value", "field", "scope", "primary", "hidden", "typeId",
          "typeName", "library", "gameSystemId", "importRootEntries", "#text"]
_VALUES = ["", "x", "0", "1", "-1", "2.5", "inf", "nan", "1e400", "99999999999", "true", "false", "max", "min",
           "roster", "parent", "selections", "model", "unit", "upgrade", "selectionEntry", "infoGroup", "profile",
           "atLeast", "set", "hidden", "Character Profile", "Character Traits", "Special Card", "Ki Feat", "X", "-",
           "Small 30mm", "Huge 9999mm", "Fear (99999)", "-/4-", "Pulse 1e9\"", "a\u2028b\x85c\x9b", "9" * 600,
           "m-1", "u-1", "s-1", "g-1", "k-1", "k-3", "c-1", "p-1", "a111-8656-5c05-7415"]


@settings(max_examples=int(os.environ.get("CATALOGUE_EXAMPLES", 150)), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.integers(0, 10_000), st.sampled_from(_ATTRS), st.sampled_from(_VALUES)),
                min_size=1, max_size=8))
def test_any_attribute_or_text_gives_a_catalogue_or_one_clean_line(tmp_path_factory, changes):
    """Property: whatever attributes and texts a catalogue holds, the import gives a
    result (that lists, reports and writes without error) or one CatalogueError line."""
    import xml.etree.ElementTree as ET

    root = ET.fromstring(RICH)
    els = list(root.iter())
    for i, attr, value in changes:
        el = els[i % len(els)]
        if attr == "#text":
            el.text = value
        else:
            el.set(attr, value)
    d = tmp_path_factory.mktemp("prop")
    (d / "g.gst").write_text(GST, encoding="utf-8")
    (d / "t.cat").write_bytes(ET.tostring(root, encoding="utf-8"))
    with quick():
        try:
            cs = load_catalogues(d)
        except CatalogueError as exc:
            msg = str(exc)
            assert len(msg.splitlines()) == 1 and msg.isprintable() and ("t.cat" in msg or "g.gst" in msg), msg
            return
        cs.summary()
        assert all(len(line.splitlines()) == 1
                   for line in cs.report(("unparsed", "link", "missing", "skipped", "repaired")))
        bsdata.write_profiles(cs, d / "out")


_ROSTER_ATTRS = ["id", "name", "entryId", "number", "type", "value", "typeId", "catalogueId", "gameSystemId",
                 "customName"]
_ROSTER_VALUES = ["", "x", "0", "1", "2", "100", "101", "-1", "2.5", "inf", "nan", "1e400", "m-1", "u-1", "s-1", "c-1",
                  "m-1::s-1", "::", GID, "a111-8656-5c05-7415", "a\u2028b\x85c", "9" * 500]


@settings(max_examples=int(os.environ.get("CATALOGUE_EXAMPLES", 150)), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.integers(0, 10_000), st.sampled_from(_ROSTER_ATTRS), st.sampled_from(_ROSTER_VALUES)),
                min_size=1, max_size=8), st.integers(0, 3))
def test_any_roster_attribute_gives_a_warband_or_one_clean_line(tmp_path_factory, changes, copies):
    """Property: whatever attributes a roster's elements hold (and however often its
    selections are repeated), reading and checking it gives a result or one WarbandError
    line, quickly."""
    import xml.etree.ElementTree as ET

    from models.warband import check_warband

    d = tmp_path_factory.mktemp("rprop")
    (d / "g.gst").write_text(GST, encoding="utf-8")
    (d / "t.cat").write_text(RICH, encoding="utf-8")
    cs = load_catalogues(d)
    more = ('<selection id="s-2" name="Unit" entryId="u-1" number="1" type="unit"><selections>'
            '<selection id="s-3" name="Model A" entryId="u-1::m-1" number="1" type="model"><selections>'
            '<selection id="s-4" name="Charm" entryId="u-1::el-1::s-1" number="1" type="upgrade"/>'
            '</selections></selection></selections></selection>') * copies
    root = ET.fromstring(roster(entry="u-1::m-1", name="Model A", more=more))
    els = list(root.iter())
    for i, attr, value in changes:
        els[i % len(els)].set(attr, value)
    p = d / "r.ros"
    p.write_bytes(ET.tostring(root, encoding="utf-8"))
    with quick():
        try:
            wb = read_roster(p, cs)
        except WarbandError as exc:
            msg = str(exc)
            assert len(msg.splitlines()) == 1 and msg.isprintable() and "r.ros" in msg, msg
            return
        res = check_warband(wb, cs)
        assert all(len(str(v).splitlines()) == 1 for v in res.violations)
