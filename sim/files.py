"""Writing files safely: a save or a table is never left half written."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_text_atomic(path: str | os.PathLike, text: str) -> Path:
    """Write ``text`` to ``path`` so that a crash never leaves a broken file: the text
    goes to a temporary file in the same folder, is flushed to disk, then replaces
    ``path`` in one step. On any error the temporary file is removed and ``path`` keeps
    its old content.

    Raises:
        OSError: the folder is not writable, the disk is full, ...
    """
    path = Path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
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
