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
