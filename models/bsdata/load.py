"""Loading a game system and its catalogues: which files, the bounds on one import
(number of files, bytes, markup), the game system check, and the cache of the last
imports (re-read when a file changes).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Iterable

from models.bsdata import limits
from models.bsdata.catalogueset import CatalogueSet
from models.bsdata.importer import _Importer
from models.bsdata.records import CatalogueError
from models.bsdata.xmlread import _File, _read_document
from sim.files import quote


def _files_of(source: str | Path | Iterable[str | Path]) -> tuple[list[Path], Path | None]:
    if isinstance(source, (str, Path)):
        src = Path(source)
        if src.is_dir():
            files = sorted(p for p in src.iterdir() if p.suffix.lower() in (".gst", ".gstz", ".cat", ".catz"))
            return files, src
        if not src.exists():
            raise CatalogueError(f"{src}: no such file or directory")
        return [src], None
    return [Path(p) for p in source], None


def load_catalogues(source: str | Path | Iterable[str | Path], game_system: str | Path | None = None) -> CatalogueSet:
    """Import a game system and its catalogues.

    Args:
        source: a directory (every ``.gst``/``.gstz`` and ``.cat``/``.catz`` in it), one
            catalogue file, or a list of files.
        game_system: the ``.gst`` file when ``source`` does not hold it.

    Returns:
        A :class:`CatalogueSet` (profiles, cards, issues, counts). The last import is
        cached until one of its files changes (size or modification time); the result is
        immutable, so sharing it is safe.

    Raises:
        CatalogueError: no game system file or more than one, an unreadable or truncated
            file, a catalogue whose ``gameSystemId`` is not the game system's, a
            catalogue link to a catalogue that is not among the files. Nothing is
            returned in that case.
    """
    files, directory = _files_of(source)
    where = directory or (files[0].parent if files else Path("."))
    if game_system is not None:
        files = files + [Path(game_system)]
    try:
        key = tuple(sorted((str(f.resolve()), f.stat().st_mtime_ns, f.stat().st_size) for f in files))
    except OSError:
        key = None
    if key is not None and key in _CACHE:
        return _CACHE[key]
    result = _load(files, where, game_system)
    if key is not None:
        while len(_CACHE) >= 3:  # a few imports kept: they are large
            _CACHE.pop(next(iter(_CACHE)))
        _CACHE[key] = result
    return result


#: ``file signatures -> CatalogueSet`` of the last import (re-read when a file changes).
_CACHE: dict[tuple, "CatalogueSet"] = {}


def clear_cache() -> None:
    """Forget the cached imports: the next :func:`load_catalogues` reads its files again
    (for timing an import, as ``benchmarks/import_bench.py`` does)."""
    _CACHE.clear()


def _load(files: list[Path], where: Path, game_system) -> CatalogueSet:
    if game_system is not None:
        files = [Path(game_system)] + [f for f in files if f.suffix.lower() not in (".gst", ".gstz")]
        files = list(dict.fromkeys(files))
    gsts = [f for f in files if f.suffix.lower() in (".gst", ".gstz")]
    cats = [f for f in files if f.suffix.lower() in (".cat", ".catz")]
    if not gsts:
        raise CatalogueError(f"{where}: no game system file (.gst) found")
    if len(gsts) > 1:
        raise CatalogueError(f"{where}: more than one game system file: {', '.join(g.name for g in gsts)}")
    if not cats:
        raise CatalogueError(f"{where}: no catalogue files (.cat) found")
    if len(cats) + 1 > limits.MAX_IMPORT_FILES:
        raise CatalogueError(f"{where}: {len(cats) + 1} files; the limit is {limits.MAX_IMPORT_FILES} per import")
    total = [0, 0]  # bytes, markup

    def read(path: Path, kind: str) -> ET.Element:
        root, nbytes, markup = _read_document(path, (kind,), limits.MAX_XML_BYTES)
        total[0] += nbytes
        total[1] += markup
        if total[0] > limits.MAX_IMPORT_BYTES:
            raise CatalogueError(f"{path}: the files read so far hold {total[0]} bytes; "
                                 f"the limit is {limits.MAX_IMPORT_BYTES} per import")
        if total[1] > limits.MAX_IMPORT_MARKUP:
            raise CatalogueError(f"{path}: the files read so far hold {total[1]} markup characters '<'; "
                                 f"the limit is {limits.MAX_IMPORT_MARKUP} per import")
        return root

    gst = _File(gsts[0], read(gsts[0], "gameSystem"))
    parsed = []
    for c in cats:
        f = _File(c, read(c, "catalogue"))
        if f.game_system_id != gst.id:
            raise CatalogueError(
                f"{c}: its game system {quote(f.game_system_id)} is missing "
                f"(the game system file {gst.file} is {quote(gst.name)}, id {quote(gst.id)})"
            )
        parsed.append(f)
    seen: dict[str, _File] = {}
    for f in parsed:
        if f.id in seen:
            raise CatalogueError(f"{f.path}: catalogue id {quote(f.id)} also used by {seen[f.id].file}")
        seen[f.id] = f
    return _Importer(gst, parsed).run()
