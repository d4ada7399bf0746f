"""Writing files safely: a save or a table is never left half written."""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path


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
                raise OutputPathError(f"{path}: exists and cannot be read ({exc.strerror or exc}); not overwritten") from None
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
        msg = f"unknown value {err.get('input')!r}: {msg}"
    return msg.removeprefix("Value error, ")


def yaml_problem(exc: Exception) -> str:
    """A readable YAML syntax error: ``"YAML syntax error: line L, column C: problem"``
    (the position when PyYAML gives one). The caller names the file."""
    mark = getattr(exc, "problem_mark", None)
    where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark else ""
    problem = getattr(exc, "problem", None) or str(exc)
    return f"YAML syntax error: {where}{problem}"
