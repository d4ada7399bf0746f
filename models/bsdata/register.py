"""Registering imported profiles so that :func:`models.profiles.get_profile` (the table
loader's ``profile: <id or name>``, the game engine) finds them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterable

from models.bsdata.catalogueset import CatalogueSet
from models.profiles import Profile

_REGISTERED: list[object] = []  # directories (Path) or dicts of profiles


def registered_profiles() -> dict[str, Profile]:
    """The profiles made visible by :func:`register_profiles`, keyed by id (profiles of
    the default directory not included)."""
    from models import profiles as mp

    out: dict[str, Profile] = {}
    for src in _REGISTERED:
        got = mp.load_profiles(src) if isinstance(src, Path) else src
        for pid, p in got.items():
            out.setdefault(pid, p)
    return out


def register_profiles(source: "str | Path | CatalogueSet | Iterable[Profile]") -> int:
    """Make :func:`models.profiles.get_profile` (and so the table loader's
    ``profile: <id or name>`` and the game engine) find imported profiles.

    ``source``: a directory of ``bushido-profiles/1`` files (such as the output of
    :func:`write_profiles`), a :class:`CatalogueSet` (every imported profile, including
    those the YAML format cannot hold), or profiles. The repository's own
    ``data/profiles`` stays first: a registered profile whose id or ``bs_id`` it already
    has is not added (:func:`models.profiles.add_profile_source`). Returns the number of
    profiles now registered. Undo with :func:`unregister_profiles`.

    Raises:
        FileNotFoundError: ``source`` is a path that is not a directory.
        ProfileError: a profile file in the directory is invalid.
    """
    from models import profiles as mp

    if isinstance(source, CatalogueSet):
        entry: object = {p.profile.id: p.profile for p in source.profiles}
    elif isinstance(source, (str, Path)):
        entry = Path(source).resolve()
        if not entry.is_dir():
            raise FileNotFoundError(f"{source}: not a directory of profile files")
        mp.load_profiles(entry)  # validate now: raises ProfileError
    else:
        entry = {p.id: p for p in source}
    _REGISTERED.append(entry)
    mp.add_profile_source(entry)
    return len(registered_profiles())


def unregister_profiles() -> None:
    """Forget every registration made by :func:`register_profiles`."""
    from models import profiles as mp

    _REGISTERED.clear()
    mp.clear_profile_sources()
