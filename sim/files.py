"""Reading and writing files safely: a bad file gets one clean error, a save or a table is
never left half written."""

from __future__ import annotations

import contextlib
import math
import os
import re
import stat
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import yaml


def _umask() -> int:
    """The process umask (read from /proc where it can be, so that it is never changed)."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def write_text_atomic(path: str | os.PathLike, text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` so that a crash never leaves a broken file: the
    text goes to a temporary file in the target's folder, is flushed to disk, then
    replaces the target in one step (``os.replace``).

    * A symbolic link is written through: its target gets the new text and the link
      stays a link.
    * An existing file keeps its permission bits; a new file gets the usual mode of a
      new file (``0o666`` less the umask), not the ``0o600`` of a temporary file.
    * On any error (or interruption) the temporary file is removed and the target keeps
      its old content.

    Returns ``path`` as a :class:`~pathlib.Path`.

    Raises:
        OSError: the folder is missing or not writable, the target is a folder, the disk
            is full, ...
    """
    path = Path(path)
    target = Path(os.path.realpath(path))
    try:
        mode = stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        mode = 0o666 & ~_umask()
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    fh = None
    try:
        fh = os.fdopen(fd, "w", encoding="utf-8")
        with fh:
            os.fchmod(fh.fileno(), mode)
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except BaseException:
        if fh is None:
            with contextlib.suppress(OSError):
                os.close(fd)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    return path


class OutputPathError(ValueError):
    """An output file that cannot be written, or whose writing would destroy a file that
    is not of the kind being written. The message names the file and the problem."""


PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def is_png(head: bytes) -> bool:
    """Whether the first bytes of a file are those of a PNG image."""
    return head.startswith(PNG_SIGNATURE)


def check_output_path(path: str | os.PathLike, *, suffix: str | None = None,
                      overwrite: Callable[[bytes], bool] | None = None, kind: str = "file",
                      create_folder: bool = False) -> Path:
    """Check, before any work is done, that ``path`` can be written and that writing it
    destroys nothing that is not of its kind. Nothing is written (except a missing
    folder, with ``create_folder``).

    Args:
        path: the output file (a symbolic link is judged by its target).
        suffix: the required file name ending, e.g. ``".png"`` (case-insensitive).
        overwrite: judges an existing non-empty file from its first 512 bytes: True when
            it may be replaced (e.g. :func:`is_png`); None: any file may be replaced.
        kind: what is written, for the message (``"PNG image"``, ``"game save"``).
        create_folder: create a missing folder (and its parents) instead of refusing.

    Returns ``path`` as a :class:`~pathlib.Path`.

    Raises:
        OutputPathError: wrong ending; the folder is missing (and not created) or not
            writable; the path is a folder or not a regular file; an existing file that
            ``overwrite`` refuses or that cannot be read to be judged.
    """
    path = Path(path)
    if suffix is not None and path.suffix.lower() != suffix.lower():
        raise OutputPathError(f"{path}: a {kind} file name must end in {suffix}")
    target = Path(os.path.realpath(path))
    folder = target.parent
    if not folder.exists():
        if not create_folder:
            raise OutputPathError(f"{path}: the folder {folder} does not exist")
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise OutputPathError(f"{path}: cannot create the folder {folder} ({exc.strerror or exc})") from None
    if not folder.is_dir():
        raise OutputPathError(f"{path}: {folder} is not a folder")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise OutputPathError(f"{path}: the folder {folder} is not writable")
    if target.exists() or target.is_symlink():
        if target.is_dir():
            raise OutputPathError(f"{path}: is a folder")
        if not target.is_file():
            raise OutputPathError(f"{path}: exists and is not a regular file; not overwritten")
        if overwrite is not None and target.stat().st_size > 0:
            try:
                with open(target, "rb") as fh:
                    head = fh.read(512)
            except OSError as exc:
                raise OutputPathError(f"{path}: exists and cannot be read ({exc.strerror or exc}); "
                                      "not overwritten") from None
            if not overwrite(head):
                raise OutputPathError(f"{path}: exists and is not a {kind}; not overwritten")
    return path


def pydantic_problem(err: dict) -> str:
    """A readable problem for one pydantic validation error (``err``, an item of
    ``ValidationError.errors()``): "unknown field", "missing field", "must be a finite
    number ...", "unknown value 'x': ...", or pydantic's own message without its
    "Value error, " prefix. The caller names the file and the entry."""
    msg = err.get("msg", "invalid")
    typ = err.get("type", "")
    if typ == "extra_forbidden":
        msg = "unknown field"
    elif typ == "missing":
        msg = "missing field"
    elif typ == "finite_number":
        msg = "must be a finite number (NaN and infinity are not allowed)"
    elif typ == "literal_error":
        msg = f"unknown value {quote(err.get('input'))}: {msg}"
    return msg.removeprefix("Value error, ")


def yaml_problem(exc: Exception) -> str:
    """A readable YAML syntax error: ``"YAML syntax error: line L, column C: problem"``
    (the position when PyYAML gives one). The caller names the file."""
    mark = getattr(exc, "problem_mark", None)
    where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark else ""
    problem = getattr(exc, "problem", None) or str(exc)
    problem = one_line(" ".join(str(problem).split()), PROBLEM_CHARS)  # one line, cut short
    kind = "YAML error" if isinstance(exc, yaml.constructor.ConstructorError) else "YAML syntax error"
    return f"{kind}: {where}{problem}"


# --------------------------------------------------------------------------- reading
# One reading layer for every YAML and JSON file the project loads (tables, scenarios,
# warbands, profiles, presets, saves). A bad file gets one FileProblem: one line naming
# the file, the entry when known and the problem; nothing is half-loaded. The bounds are
# listed in docs/bounds.md.

#: Largest YAML file (table, scenario, warband, profiles, presets), bytes: 1 MiB.
MAX_YAML_BYTES = 1024 * 1024
#: Largest JSON file (a saved game), bytes: 16 MiB.
MAX_JSON_BYTES = 16 * 1024 * 1024
#: Deepest nesting of lists and mappings in a document (aliases counted expanded).
MAX_DEPTH = 64
#: Most nodes (scalars, lists, mappings) in one YAML document, aliases counted expanded.
MAX_NODES = 1_000_000
#: Input values quoted in a message are cut to this many characters (then "...").
QUOTE_CHARS = 40
#: Problems read from a parser are cut to this many characters.
PROBLEM_CHARS = 160


class FileProblem(ValueError):
    """A file that cannot be read or parsed. The message is one line:
    ``FILE: ENTRY: PROBLEM`` (``FILE: PROBLEM`` when no entry is known).

    Attributes:
        file: the file (or source label) as given.
        entry: where in the document (``terrain[2].rect``), or None.
        problem: what is wrong, with the line and column when known.
    """

    def __init__(self, file: str | os.PathLike, problem: str, entry: str | None = None):
        self.file = str(file)
        self.entry = entry
        self.problem = problem
        super().__init__(": ".join(p for p in (self.file, entry, problem) if p))


def _quote_repr():
    import reprlib

    r = reprlib.Repr()
    r.maxlevel, r.maxtuple, r.maxlist, r.maxarray, r.maxdict, r.maxset = 2, 4, 4, 4, 4, 4
    r.maxfrozenset, r.maxdeque = 4, 4
    r.maxstring, r.maxlong, r.maxother = QUOTE_CHARS + 8, QUOTE_CHARS + 8, QUOTE_CHARS + 8
    return r


_REPR = _quote_repr()


def quote(value: object, limit: int = QUOTE_CHARS) -> str:
    """``repr(value)`` for a message, on one line and cut to ``limit`` characters (then
    ``...``). Bounded work whatever the value (a huge or deeply shared structure, an
    integer too long to print)."""
    if isinstance(value, str):
        return repr(value[:limit]) + ("..." if len(value) > limit else "")
    try:
        text = _REPR.repr(value)
    except Exception:  # noqa: BLE001 - e.g. an int over sys.get_int_max_str_digits()
        text = f"<{type(value).__name__}>"
    text = one_line(text)
    return text if len(text) <= limit else text[:limit] + "..."


def key_label(key: object) -> str:
    """A mapping key or field name as a message shows it in an entry path: itself when it
    is a short plain word (``rect``, ``paved-road``), else quoted and cut short (a key
    holding a newline, a dot or 10,000 characters)."""
    if isinstance(key, str) and 0 < len(key) <= 40 and key.isprintable() and not _PATH_CHARS.search(key):
        return key
    return quote(key, 20)


def one_line(text: str, limit: int | None = None) -> str:
    """``text`` with every control character escaped (so it prints as one line and no
    terminal escape code gets through), cut to ``limit`` characters (then ``...``)."""
    if not text.isprintable():
        text = "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text)
    if limit is not None and len(text) > limit:
        text = text[:limit] + "..."
    return text


def _size(n: int) -> str:
    return f"{n / 1024 / 1024:.1f} MiB" if n >= 1024 * 1024 else f"{n} bytes"


def _kind(mode: int) -> str | None:
    """What a non-regular file is, or None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    for test, name in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "not a regular file"


def read_text(path: str | os.PathLike, *, limit: int = MAX_YAML_BYTES) -> str:
    """The text of ``path``, read as UTF-8 (a leading byte order mark is dropped).

    Never blocks: a directory, FIFO, device or socket is refused from its ``stat`` before
    it is opened, and the file is opened non-blocking.

    Raises:
        FileProblem: cannot be read (missing, no permission, ...), not a regular file,
            more than ``limit`` bytes, not UTF-8 (the byte, line and column), or a control
            character such as NUL (line and column).
    """
    src = str(path)
    try:
        kind = _kind(os.stat(path).st_mode)
        if kind:
            raise FileProblem(src, f"cannot read: {kind}, not a regular file (nothing was read)")
        flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_BINARY", 0)
        fd = os.open(path, flags)
        with open(fd, "rb") as fh:
            kind = _kind(os.fstat(fd).st_mode)  # replaced between stat and open
            if kind:
                raise FileProblem(src, f"cannot read: {kind}, not a regular file (nothing was read)")
            data = fh.read(limit + 1)
    except OSError as exc:
        raise FileProblem(src, f"cannot read file ({exc.strerror or exc})") from None
    if len(data) > limit:
        raise FileProblem(src, f"file is larger than {_size(limit)}, the most a file of this kind may have")
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        start = exc.start
        line = data.count(b"\n", 0, start) + 1
        column = len(data[data.rfind(b"\n", 0, start) + 1:start].decode("utf-8", "replace")) + 1
        raise FileProblem(src, f"not UTF-8 text: byte 0x{data[start]:02x} at line {line}, column {column}"
                               " (save the file as UTF-8)") from None
    check_text(text, src, limit=limit)
    return text


#: Characters no text file may hold: the ones YAML forbids (C0 controls but tab, line
#: feed and carriage return; DEL; C1 controls but NEL; surrogates; U+FFFE and U+FFFF).
_NOT_TEXT = re.compile("[^\x09\x0a\x0d\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
_CONTROL_NAMES = {0: "NUL", 0x1B: "ESC", 0x7F: "DEL", 0x08: "backspace", 0x0C: "form feed"}


def check_text(text: str, source: str, *, limit: int = MAX_YAML_BYTES) -> str:
    """``text`` if it is sane text for a parser: at most ``limit`` characters and no
    control character (NUL, ESC ...). A leading byte order mark is dropped.

    Raises:
        FileProblem: naming ``source``, the character, its line and column.
    """
    if len(text) > limit:
        raise FileProblem(source, f"text is longer than {_size(limit)}, the most a file of this kind may have")
    text = text.removeprefix("\ufeff")
    bad = _NOT_TEXT.search(text)
    if bad:
        at = bad.start()
        line = text.count("\n", 0, at) + 1
        column = at - (text.rfind("\n", 0, at) + 1) + 1
        code = ord(bad.group())
        name = _CONTROL_NAMES.get(code, "control character" if code < 0xA0 else "character")
        raise FileProblem(source, f"line {line}, column {column}: {name} U+{code:04X} is not allowed in a text file")
    return text


def _mark(mark) -> str:
    return f"line {mark.line + 1}, column {mark.column + 1}: " if mark is not None else ""


class _Guard:
    """Mixin for a PyYAML loader: composes nodes like PyYAML's ``Composer`` but bounds
    the nesting depth and the node count (aliases counted expanded, so an alias bomb stops
    at once), refuses duplicate keys and aliases inside their own anchor (recursive
    structures), and names where (``terrain[2].rect``) in its :class:`FileProblem`.

    Each node it builds gets two attributes of its own: ``bounded_height`` (levels of
    nesting below it) and ``bounded_size`` (values in it, aliases expanded), read again
    when an alias repeats the node."""

    source = "<text>"

    def compose_document(self):
        self._depth, self._nodes, self._path = 0, 0, []
        self.get_event()  # DocumentStart
        node = self.compose_node(None, None)
        self.get_event()  # DocumentEnd
        self.anchors = {}
        return node

    def _entry(self) -> str | None:
        text = ""
        for p in self._path:
            if isinstance(p, int):
                text += f"[{p}]"
            else:
                text += ("." if text else "") + p
        return one_line(text, 60) or None

    def _fail(self, problem: str, mark) -> None:
        raise FileProblem(self.source, _mark(mark) + problem, self._entry())

    def _too_many(self, mark) -> None:
        self._fail(f"more than {MAX_NODES:,} values (aliases counted expanded); the limit keeps "
                   "an alias bomb from filling memory", mark)

    def compose_node(self, parent, index):
        event = self.peek_event()
        cls = type(event)
        if cls is _ev.AliasEvent:
            self.get_event()
            node = self.anchors.get(event.anchor)
            if node is None:
                raise _ComposerError(None, None, f"found undefined alias {quote(event.anchor)}", event.start_mark)
            size = getattr(node, "bounded_size", None)
            if size is None:
                self._fail(f"alias *{one_line(event.anchor, QUOTE_CHARS)} is inside its own anchor "
                           "(a recursive structure)", event.start_mark)
            self._nodes += size
            if self._nodes > MAX_NODES:
                self._too_many(event.start_mark)
            if self._depth + node.bounded_height > MAX_DEPTH:
                self._fail(f"nested deeper than {MAX_DEPTH} levels (aliases counted expanded)", event.start_mark)
            return node
        anchor = event.anchor
        if anchor is not None and anchor in self.anchors:
            raise _ComposerError(f"found duplicate anchor {quote(anchor)}; first occurrence",
                                 self.anchors[anchor].start_mark, "second occurrence", event.start_mark)
        self._nodes += 1
        if self._nodes > MAX_NODES:
            self._too_many(event.start_mark)
        if self.yaml_path_resolvers:  # pragma: no cover - none in the safe schema
            self.descend_resolver(parent, index)
        if cls is _ev.ScalarEvent:
            self.get_event()
            tag = event.tag
            if tag is None or tag == "!":
                tag = self.resolve(_nodes.ScalarNode, event.value, event.implicit)
            node = _nodes.ScalarNode(tag, event.value, event.start_mark, event.end_mark, style=event.style)
            if anchor is not None:
                self.anchors[anchor] = node
            node.bounded_height = 0
            node.bounded_size = 1
        else:
            before = self._nodes - 1
            self._depth += 1
            if self._depth > MAX_DEPTH:
                self._fail(f"nested deeper than {MAX_DEPTH} levels", event.start_mark)
            if cls is _ev.MappingStartEvent:
                node = self.compose_mapping_node(anchor)
            else:
                node = self.compose_sequence_node(anchor)
            self._depth -= 1
            node.bounded_size = self._nodes - before
        if self.yaml_path_resolvers:  # pragma: no cover
            self.ascend_resolver()
        return node

    def compose_sequence_node(self, anchor):
        start_event = self.get_event()
        tag = start_event.tag
        if tag is None or tag == "!":
            tag = self.resolve(_nodes.SequenceNode, None, start_event.implicit)
        node = _nodes.SequenceNode(tag, [], start_event.start_mark, None, flow_style=start_event.flow_style)
        if anchor is not None:
            self.anchors[anchor] = node
        height, items, path = 0, node.value, self._path
        path.append(0)
        while type(self.peek_event()) is not _ev.SequenceEndEvent:
            path[-1] = len(items)
            item = self.compose_node(node, len(items))
            if item.bounded_height > height:
                height = item.bounded_height
            items.append(item)
        path.pop()
        node.end_mark = self.get_event().end_mark
        node.bounded_height = height + 1
        return node

    def compose_mapping_node(self, anchor):
        start_event = self.get_event()
        tag = start_event.tag
        if tag is None or tag == "!":
            tag = self.resolve(_nodes.MappingNode, None, start_event.implicit)
        node = _nodes.MappingNode(tag, [], start_event.start_mark, None, flow_style=start_event.flow_style)
        if anchor is not None:
            self.anchors[anchor] = node
        height, seen, path = 0, {}, self._path
        while type(self.peek_event()) is not _ev.MappingEndEvent:
            key_node = self.compose_node(node, None)
            if type(key_node) is _nodes.ScalarNode:
                text = key_node.value
                key = self._key(key_node)
                first = seen.get(key)
                if first is not None:
                    self._fail(f"duplicate key {quote(text)} (first at line {first.line + 1}); "
                               "a key may be given once", key_node.start_mark)
                seen[key] = key_node.start_mark
                label = key_label(text)
            else:
                label = "?"
            path.append(label)
            value_node = self.compose_node(node, key_node)
            path.pop()
            height = max(height, key_node.bounded_height, value_node.bounded_height)
            node.value.append((key_node, value_node))
        node.end_mark = self.get_event().end_mark
        node.bounded_height = height + 1
        return node

    def _key(self, node):
        """What a scalar key becomes in the mapping, so that ``1`` and ``0x1`` (or
        ``yes`` and ``true``) are the same key; a plain string is itself."""
        if node.tag == _STR_TAG:
            return node.value
        ctor = self.yaml_constructors.get(node.tag)
        try:
            value = ctor(self, node) if ctor is not None else (node.tag, node.value)
            hash(value)
        except Exception:  # noqa: BLE001 - a key that cannot be built is compared by its text
            value = (node.tag, node.value)
        return value

    def _value_error(self, node, exc: Exception):
        return _ConstructorError(None, None, f"cannot read the value {quote(node.value)}: "
                                 f"{one_line(str(exc), QUOTE_CHARS * 2)}", node.start_mark)

    def construct_yaml_int(self, node):
        """PyYAML's, with an integer too long to convert reported at its node."""
        try:
            return yaml.constructor.SafeConstructor.construct_yaml_int(self, node)
        except ValueError as exc:
            raise self._value_error(node, exc) from None

    def construct_yaml_timestamp(self, node):
        """PyYAML's, with an impossible date reported at its node."""
        try:
            return yaml.constructor.SafeConstructor.construct_yaml_timestamp(self, node)
        except (ValueError, OverflowError) as exc:
            raise self._value_error(node, exc) from None


from yaml import events as _ev  # noqa: E402
from yaml import nodes as _nodes  # noqa: E402
from yaml.composer import ComposerError as _ComposerError  # noqa: E402
from yaml.constructor import ConstructorError as _ConstructorError  # noqa: E402

_STR_TAG = "tag:yaml.org,2002:str"
_PATH_CHARS = re.compile(r"[\s.\[\]]")


class _PureLoader(_Guard, yaml.SafeLoader):
    """PyYAML's pure-Python safe loader, guarded (see :class:`_Guard`)."""


_PureLoader.add_constructor("tag:yaml.org,2002:int", _Guard.construct_yaml_int)
_PureLoader.add_constructor("tag:yaml.org,2002:timestamp", _Guard.construct_yaml_timestamp)


try:  # libyaml's C parser feeds the same guarded composer and constructor
    from yaml._yaml import CParser as _CParser
except ImportError:  # pragma: no cover - PyYAML built without libyaml
    _CParser = None

if _CParser is not None:
    from yaml.composer import Composer as _Composer
    from yaml.constructor import SafeConstructor as _SafeConstructor
    from yaml.resolver import Resolver as _Resolver

    class _FastLoader(_Guard, _Composer, _CParser, _SafeConstructor, _Resolver):
        """libyaml's C parser (events) with the guarded Python composer and PyYAML's safe
        constructor: the same documents and the same messages as :class:`_PureLoader`,
        several times faster."""

        def __init__(self, stream):
            _CParser.__init__(self, stream)
            _Composer.__init__(self)
            _SafeConstructor.__init__(self)
            _Resolver.__init__(self)

    _FastLoader.add_constructor("tag:yaml.org,2002:int", _Guard.construct_yaml_int)
    _FastLoader.add_constructor("tag:yaml.org,2002:timestamp", _Guard.construct_yaml_timestamp)
else:  # pragma: no cover
    _FastLoader = None

#: Characters of the constructs libyaml and PyYAML read differently (found by fuzzing:
#: tests/test_fuzz_files.py compares the two on every case).
_LIBYAML_DIFFERS = re.compile("[\t?\ufeff]|[|>][-+0-9]*#")

#: True when libyaml's C parser is installed and :func:`load_yaml` uses it.
HAVE_LIBYAML = _FastLoader is not None


def _load_with(loader_class, text: str, source: str):
    loader = loader_class(text)
    loader.source = source
    try:
        return loader.get_single_data()
    finally:
        loader.dispose()


def load_yaml(text: str, source: str, *, fast: bool | None = None, limit: int = MAX_YAML_BYTES):
    """Parse one YAML document safely (PyYAML's safe schema: no Python objects).

    Bounds (docs/bounds.md): ``limit`` characters, :data:`MAX_DEPTH` levels of nesting,
    :data:`MAX_NODES` nodes with aliases expanded; no control characters; no duplicate
    key in a mapping; no alias inside its own anchor.

    Args:
        text: the document.
        source: names it in errors (a file path).
        fast: use libyaml's C parser (default: when installed). The result and every
            message are the same either way: PyYAML's pure-Python parser is the
            reference, words every error, and alone reads a text holding one of the few
            constructs the two parsers read differently (docs/bounds.md).

    Raises:
        FileProblem: ``SOURCE: [ENTRY: ]PROBLEM`` on one line; YAML syntax errors read
            ``YAML syntax error: line L, column C: ...``.
    """
    text = check_text(text, source, limit=limit)
    use_fast = HAVE_LIBYAML if fast is None else (fast and HAVE_LIBYAML)
    # PyYAML's pure parser is the reference; libyaml only makes the common case fast.
    # libyaml accepts a few constructs PyYAML refuses (a tab as a separator, '?' keys in
    # flow collections, a byte order mark or '#' in odd places): a text holding one of
    # their characters is parsed by the reference parser alone.
    if use_fast and not _LIBYAML_DIFFERS.search(text):
        try:
            return _load_with(_FastLoader, text, source)
        except (yaml.YAMLError, FileProblem):
            pass  # an error is always worded by the reference parser (same position, same words)
    try:
        return _load_with(_PureLoader, text, source)
    except yaml.YAMLError as exc:
        raise FileProblem(source, yaml_problem(exc)) from None
    except RecursionError:  # pragma: no cover - the depth bound comes first
        raise FileProblem(source, f"nested deeper than {MAX_DEPTH} levels") from None


def read_yaml(path: str | os.PathLike, *, fast: bool | None = None):
    """:func:`read_text` then :func:`load_yaml` (at most :data:`MAX_YAML_BYTES`).

    Raises:
        FileProblem: see both.
    """
    return load_yaml(read_text(path, limit=MAX_YAML_BYTES), str(path), fast=fast)


#: A JSON string (skipped), an opening bracket (group 1) or a closing one.
_JSON_NESTING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|([\[{])|[\]}]', re.S)


class _JsonValue(ValueError):
    """A value :func:`load_json` refuses (raised from a json hook)."""


def _json_pairs(pairs):
    out = {}
    for k, v in pairs:
        if k in out:
            raise _JsonValue(f"duplicate key {quote(k)} in an object; a key may be given once")
        out[k] = v
    return out


def _json_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _JsonValue(f"number {quote(text)} is out of range")
    return value


def _json_constant(text: str):
    raise _JsonValue(f"{text} is not a JSON number (NaN and infinity are not allowed)")


def load_json(text: str, source: str, *, limit: int = MAX_JSON_BYTES):
    """Parse a JSON document (a save): at most ``limit`` characters and :data:`MAX_DEPTH`
    levels of nesting (checked before parsing, not by running out of stack), no control
    characters, no duplicate keys, no NaN or infinity.

    Raises:
        FileProblem: ``SOURCE: PROBLEM`` on one line; syntax errors read ``JSON syntax
            error: line L, column C: ...``.
    """
    import json

    text = check_text(text, source, limit=limit)
    depth = 0
    for m in _JSON_NESTING.finditer(text):
        if m.group(1):
            depth += 1
            if depth > MAX_DEPTH:
                at = m.start()
                line = text.count("\n", 0, at) + 1
                column = at - (text.rfind("\n", 0, at) + 1) + 1
                raise FileProblem(source, f"line {line}, column {column}: nested deeper than {MAX_DEPTH} levels")
        elif m.group()[0] in "]}":
            depth -= 1
    try:
        return json.loads(text, object_pairs_hook=_json_pairs, parse_float=_json_float, parse_constant=_json_constant)
    except json.JSONDecodeError as exc:
        raise FileProblem(source, f"JSON syntax error: line {exc.lineno}, column {exc.colno}: {exc.msg}") from None
    except _JsonValue as exc:
        raise FileProblem(source, f"JSON: {exc}") from None
    except (ValueError, RecursionError) as exc:  # e.g. an integer of more than 4300 digits
        problem = str(exc)
        if "integer string conversion" in problem:
            problem = f"an integer has more than {sys.get_int_max_str_digits()} digits"
        raise FileProblem(source, f"JSON: {one_line(problem, PROBLEM_CHARS)}") from None


def read_json(path: str | os.PathLike):
    """:func:`read_text` then :func:`load_json` (at most :data:`MAX_JSON_BYTES`).

    Raises:
        FileProblem: see both.
    """
    return load_json(read_text(path, limit=MAX_JSON_BYTES), str(path))
