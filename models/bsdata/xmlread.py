"""The bounded reader of BattleScribe XML (``.gst``/``.cat``/``.ros`` and zipped
``.gstz``/``.catz``/``.rosz``), added for issue #10: a regular file of bounded size, a zip
member inflated never past the limit, the encoding from the byte order mark or the
declaration, no DTD or entity, bounded markup and nesting, namespaces stripped. Every
refusal is one :class:`~models.bsdata.records.CatalogueError` line. Bounds:
:mod:`models.bsdata.limits`.

Also :class:`_File`, one catalogue file read and indexed by id for the importer.
"""

from __future__ import annotations

import codecs
import io
import os
import re
import stat
import xml.etree.ElementTree as ET
import zipfile
import zlib
from pathlib import Path
from typing import Iterable

from models.bsdata import limits
from models.bsdata.records import CatalogueError
from models.bsdata.text import clean
from sim.files import quote

#: Encodings an XML declaration may name (Python codec names after ``codecs.lookup``).
#: BattleScribe and NewRecruit write UTF-8.
_XML_ENCODINGS = frozenset(
    ["utf-8", "utf-16", "utf-16-le", "utf-16-be", "utf-32", "utf-32-le", "utf-32-be", "ascii"]
    + [f"iso8859-{i}" for i in range(1, 17) if i != 12]
    + [f"cp125{i}" for i in range(9)]
)
_BOMS = ((b"\x00\x00\xfe\xff", "utf-32-be"), (b"\xff\xfe\x00\x00", "utf-32-le"), (b"\xef\xbb\xbf", "utf-8-sig"),
         (b"\xfe\xff", "utf-16-be"), (b"\xff\xfe", "utf-16-le"))
_DECLARED = re.compile(rb"""<\?xml[^>]{0,200}?\sencoding\s*=\s*["']([^"']{0,60})["']""")
#: Characters XML 1.0 never allows (also not as character references).
_NOT_XML_CHAR = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")
_FILE_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
               (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
               (stat.S_ISSOCK, "a socket"))


def read_file_bytes(path: str | Path, max_bytes: int = limits.MAX_XML_BYTES) -> bytes:
    """The bytes of a regular file of at most ``max_bytes`` bytes.

    The file is checked with ``stat`` before it is opened, so a FIFO, a device or a
    directory given as a file is refused at once (never read, never waited on); it is
    then opened without blocking, checked again, and read in chunks up to
    ``max_bytes + 1`` bytes (a file that grows while read is refused too).

    Raises:
        CatalogueError: ``"<file>: <problem>"``: missing or unreadable, not a regular
            file, larger than ``max_bytes``.
    """
    path = Path(path)

    def check(st) -> None:
        for test, kind in _FILE_KINDS:
            if test(st.st_mode):
                raise CatalogueError(f"{path}: cannot read: {kind}, not a regular file (nothing was read)")
        if not stat.S_ISREG(st.st_mode):
            raise CatalogueError(f"{path}: not a regular file")
        if st.st_size > max_bytes:
            raise CatalogueError(f"{path}: file is {st.st_size} bytes; the limit is {max_bytes} bytes")

    try:
        check(os.stat(path))
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except OSError as exc:
        raise CatalogueError(f"{path}: cannot read file: {exc.strerror or exc}") from None
    try:
        check(os.fstat(fd))  # the file opened is the file checked
        chunks, size = [], 0
        while size <= max_bytes:
            chunk = os.read(fd, min(1 << 20, max_bytes + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as exc:
        raise CatalogueError(f"{path}: cannot read file: {exc.strerror or exc}") from None
    finally:
        os.close(fd)
    if size > max_bytes:
        raise CatalogueError(f"{path}: file grew past the limit of {max_bytes} bytes while read")
    return b"".join(chunks)


def _unzip(path: Path, data: bytes, max_bytes: int) -> bytes:
    """The XML member of a zipped file (``.gstz``/``.catz``/``.rosz``), inflated in
    chunks and never past ``max_bytes``."""
    if data.count(b"PK\x01\x02") > limits.MAX_ZIP_MEMBERS:  # before zipfile lists them all
        raise CatalogueError(f"{path}: zip file holds more than {limits.MAX_ZIP_MEMBERS} files")
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            infos = [i for i in zf.infolist() if not i.is_dir()]
            if len(infos) > limits.MAX_ZIP_MEMBERS:
                raise CatalogueError(f"{path}: zip file holds more than {limits.MAX_ZIP_MEMBERS} files")
            xmls = [i for i in infos if i.filename.lower().endswith((".ros", ".cat", ".gst", ".xml"))] or infos
            if not xmls:
                raise CatalogueError(f"{path}: zip file holds no roster or catalogue")
            info = xmls[0]
            where = f"{path}: member {quote(info.filename)}"
            if info.flag_bits & 0x1:
                raise CatalogueError(f"{where}: encrypted (password-protected zip files are not supported)")
            if info.file_size > max_bytes:
                raise CatalogueError(f"{where}: inflates to {info.file_size} bytes; the limit is {max_bytes} bytes")
            chunks, size = [], 0
            with zf.open(info) as fh:
                while size <= max_bytes:
                    chunk = fh.read(min(1 << 20, max_bytes + 1 - size))
                    if not chunk:
                        break
                    chunks.append(chunk)
                    size += len(chunk)
            if size > max_bytes:
                raise CatalogueError(f"{where}: inflates to more than the limit of {max_bytes} bytes")
            return b"".join(chunks)
    except CatalogueError:
        raise
    except NotImplementedError as exc:  # a compression method zipfile does not know
        raise CatalogueError(f"{path}: unsupported zip file: {exc}") from None
    except (zipfile.BadZipFile, zlib.error, EOFError, ValueError, OSError) as exc:
        raise CatalogueError(f"{path}: broken zip file: {' '.join(str(exc).split())}") from None


def _position(data: bytes, offset: int) -> str:
    """``"line L, column C"`` of the byte at ``offset`` (columns count bytes)."""
    line = data.count(b"\n", 0, offset) + 1
    column = offset - (data.rfind(b"\n", 0, offset) + 1) + 1
    return f"line {line}, column {column}"


def _decode(path: Path, data: bytes) -> str:
    """The text of an XML document: the encoding from its byte order mark, else from its
    XML declaration (only the encodings of ``_XML_ENCODINGS``), else UTF-8."""
    enc = next((e for bom, e in _BOMS if data.startswith(bom)), None)
    m = None
    if enc is None:
        if data.startswith(b"<\x00?\x00"):
            enc = "utf-16-le"
        elif data.startswith(b"\x00<\x00?"):
            enc = "utf-16-be"
        else:
            m = _DECLARED.match(data)
            declared = m.group(1).decode("ascii", "replace") if m else "utf-8"
            try:
                enc = codecs.lookup(declared).name
            except (LookupError, ValueError):
                raise CatalogueError(f"{path}: unknown XML encoding {quote(declared)}") from None
            if enc not in _XML_ENCODINGS:
                raise CatalogueError(f"{path}: unsupported XML encoding {quote(declared)} "
                                     "(UTF-8, UTF-16, US-ASCII, ISO-8859-x and windows-125x are read)")
    if enc.startswith(("utf-16", "utf-32")) and m is not None:
        raise CatalogueError(f"{path}: declares encoding {quote(declared)} but is not {enc} text")
    nul = data.find(b"\x00", 0, 1024)
    if nul >= 0 and not enc.startswith(("utf-16", "utf-32")):
        raise CatalogueError(f"{path}: a binary file, not XML (NUL byte at {_position(data, nul)})")
    try:
        text = data.decode(enc)
    except UnicodeDecodeError as exc:
        where = _position(data, exc.start) if enc in ("utf-8", "utf-8-sig") else f"byte offset {exc.start}"
        raise CatalogueError(f"{path}: not {enc.removesuffix('-sig').upper()} text: byte 0x{data[exc.start]:02x} "
                             f"at {where}") from None
    return text


def _check_text(path: Path, text: str, max_markup: int) -> int:
    """Refuse a DTD (and with it every entity declaration); count the markup. Returns
    the number of ``<``."""
    if "<!DOCTYPE" in text or "<!ENTITY" in text:
        raise CatalogueError(f"{path}: DTD or entity declarations are not allowed")
    markup = text.count("<")
    if markup > max_markup:
        raise CatalogueError(f"{path}: {markup} markup characters '<'; the limit is {max_markup}")
    return markup


def _read_document(path: Path, expect: Iterable[str] | None, max_bytes: int) -> tuple[ET.Element, int, int]:
    """``(root, bytes read, markup characters)`` of a BattleScribe XML file."""
    data = read_file_bytes(path, max_bytes)
    if data[:4] == b"PK\x03\x04":
        data = _unzip(path, data, max_bytes)
    nbytes = len(data)
    text = _decode(path, data)
    del data
    markup = _check_text(path, text, limits.MAX_XML_MARKUP)
    # A str is parsed as UTF-8 whatever the declaration says: the parser reads exactly
    # the text checked above (no DTD, no entity, no other encoding).
    try:
        root = ET.fromstring(text)
    except ET.ParseError as exc:
        bad = _NOT_XML_CHAR.search(text)  # expat says "invalid token": say which character
        if bad is not None:
            at = bad.start()
            line, col = text.count("\n", 0, at) + 1, at - (text.rfind("\n", 0, at) + 1) + 1
            raise CatalogueError(f"{path}: control character U+{ord(bad.group()):04X} at line {line}, "
                                 f"column {col} (not allowed in XML)") from None
        raise CatalogueError(f"{path}: XML syntax error: {exc}") from None
    del text
    level, depth = [root], 1
    while level:  # level by level: strip namespaces, bound the depth (the importer recurses along it)
        for el in level:
            tag = el.tag
            if tag[:1] == "{":
                el.tag = tag.split("}", 1)[1]
        level = [ch for el in level for ch in el]
        depth += 1
        if level and depth > limits.MAX_XML_DEPTH:
            label = next((x for el in level for x in (el.get("name"), el.get("id")) if x), None)
            raise CatalogueError(f"{path}: elements nested more than {limits.MAX_XML_DEPTH} deep "
                                 f"(at <{level[0].tag.rpartition('}')[2]}>{' ' + quote(label) if label else ''})")
    if expect is not None and root.tag not in tuple(expect):
        raise CatalogueError(
            f"{path}: not a BattleScribe {' or '.join(expect)} file (root element <{root.tag}>)"
        )
    return root, nbytes, markup


def read_xml(path: str | Path, expect: Iterable[str] | None = None, *,
             max_bytes: int = limits.MAX_XML_BYTES) -> ET.Element:
    """Read a BattleScribe XML file (``.gst``/``.cat``/``.ros``, or zipped ``.gstz``/
    ``.catz``/``.rosz``) and return its root with namespaces stripped from tags.

    ``expect``: allowed root tags (``gameSystem``, ``catalogue``, ``roster``).
    ``max_bytes``: the largest document read (the file, and its zip member inflated).

    Bounds (docs/bounds.md): :data:`MAX_XML_BYTES`, :data:`MAX_XML_MARKUP`,
    :data:`MAX_XML_DEPTH`, :data:`MAX_ZIP_MEMBERS`. The file must be a regular file (a
    FIFO or device is refused without being opened).

    Raises:
        CatalogueError: ``"<file>: <problem>"`` on one line: unreadable or not a regular
            file, too large (a zip member is refused from its declared size, and
            inflated never past the limit), a broken, encrypted or crowded zip, an
            unknown or unsupported encoding, bytes that are not text in the encoding
            (line and column), characters XML does not allow, a DTD or entity
            declaration (refused: they are never needed and can be abused), too much
            markup or nesting, an XML syntax error (line and column), an unexpected root.
    """
    return _read_document(Path(path), expect, max_bytes)[0]


class _File:
    __slots__ = ("path", "root", "kind", "id", "name", "library", "revision", "ids", "scope",
                 "links", "game_system_id", "own_categories", "rule_names")

    def __init__(self, path: Path, root: ET.Element):
        self.path = path
        self.root = root
        self.kind = root.tag
        self.id = root.get("id") or ""
        self.name = clean(root.get("name")) or path.stem
        self.library = root.get("library") == "true"
        self.revision = root.get("revision")
        self.game_system_id = root.get("gameSystemId")
        self.ids: dict[str, ET.Element] = {}
        self.scope: list[_File] = []
        self.links = [(l.get("targetId"), clean(l.get("name")))
                      for l in root.iterfind("catalogueLinks/catalogueLink")]
        self.own_categories = {c.get("id"): clean(c.get("name"))
                               for c in root.iterfind("categoryEntries/categoryEntry")}
        self.rule_names = set()
        for p in root.iter("profile"):
            for c in p.iter("characteristic"):
                if c.text is not None and len(c.text) > limits.MAX_FIELD_CHARS:
                    raise CatalogueError(
                        f"{path}: profile {quote(clean(p.get('name')))} (id {quote(p.get('id') or '')}): "
                        f"{quote(clean(c.get('name')))}: {len(c.text)} characters; "
                        f"the limit is {limits.MAX_FIELD_CHARS}")
        for tag in ("selectionEntry", "selectionEntryGroup", "profile", "rule", "infoGroup",
                    "categoryEntry", "forceEntry"):
            for el in root.iter(tag):
                i = el.get("id")
                if i:
                    self.ids.setdefault(i, el)
                if tag == "rule":
                    self.rule_names.add(clean(el.get("name")).lower())

    @property
    def file(self) -> str:
        """The file name."""
        return self.path.name
