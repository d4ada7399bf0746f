"""What a click means on the table: picking and the tape measure (pure Python: no Panda3D).

Inches and table coordinates throughout. The window (``sim.view.app``) turns the mouse
into a ray and asks these functions what it hit and how far apart two things are.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Union

from . import style

#: A tape end: a model id, or a point ``(x, y)`` on the table.
End = Union[str, tuple[float, float]]

#: Extra reach (inches) around a base that still picks it.
PICK_TOLERANCE = 0.12


def ray_plane(origin, direction, z: float) -> tuple[float, float] | None:
    """Where the ray ``origin + t * direction`` (t >= 0) crosses the plane at height
    ``z``, as ``(x, y)``; None when it never does."""
    dz = float(direction[2])
    if abs(dz) < 1e-12:
        return None
    t = (z - float(origin[2])) / dz
    if t < 0:
        return None
    return (float(origin[0]) + t * float(direction[0]), float(origin[1]) + t * float(direction[1]))


def pick(table, origin, direction) -> End | None:
    """What a mouse ray hits first: the id of a model whose base top it crosses (within
    :data:`PICK_TOLERANCE`), else the point where it meets the table (or None if it
    misses the table)."""
    best, best_t = None, math.inf
    dz = float(direction[2])
    for m in table.models:
        z = style.ground_height(table, *m.position) + style.BASE_HEIGHT
        hit = ray_plane(origin, direction, z)
        if hit is None:
            continue
        if math.dist(hit, m.position) <= m.radius + PICK_TOLERANCE:
            t = (z - float(origin[2])) / dz
            if t < best_t:
                best, best_t = m.id, t
    if best is not None:
        return best
    hit = ray_plane(origin, direction, 0.0)
    if hit is None or not (0 <= hit[0] <= table.width and 0 <= hit[1] <= table.depth):
        return None
    return hit


@dataclass(frozen=True)
class Tape:
    """A tape-measure reading.

    Attributes:
        distance: inches, edge to edge for models (rulings: bases, never centres).
        a, b: the drawn ends ``(x, y)``: the closest points of the two things.
        text: e.g. ``'kazuha -> ton: 3.42"'``.
    """

    distance: float
    a: tuple[float, float]
    b: tuple[float, float]
    text: str


def _name(end: End) -> str:
    return end if isinstance(end, str) else f"({end[0]:.1f}, {end[1]:.1f})"


def _toward(c, r: float, p) -> tuple[float, float]:
    d = math.dist(c, p)
    if d < 1e-12:
        return (float(c[0]), float(c[1]))
    return (c[0] + (p[0] - c[0]) * r / d, c[1] + (p[1] - c[1]) * r / d)


def tape(table, a: End, b: End) -> Tape:
    """The tape measure between two ends: model to model is ``scene.distance`` (edge to
    edge), point to model is the distance to the base's edge (0 inside it), point to point
    the straight distance.

    Raises:
        KeyError: an unknown model id.
    """
    if isinstance(a, str) and isinstance(b, str):
        ma, mb = table.model(a), table.model(b)
        d = table.scene().distance(a, b)
        pa, pb = _toward(ma.position, ma.radius, mb.position), _toward(mb.position, mb.radius, ma.position)
    elif isinstance(a, str) or isinstance(b, str):
        mid, p = (a, b) if isinstance(a, str) else (b, a)
        m = table.model(mid)
        d = max(0.0, math.dist(m.position, p) - m.radius)
        edge = _toward(m.position, m.radius, p) if d > 0 else (float(p[0]), float(p[1]))
        pa, pb = (edge, tuple(p)) if isinstance(a, str) else (tuple(p), edge)
    else:
        d = math.dist(a, b)
        pa, pb = tuple(a), tuple(b)
    return Tape(float(d), pa, pb, f'{_name(a)} -> {_name(b)}: {d:.2f}"')
