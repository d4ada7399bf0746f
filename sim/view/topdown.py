"""Top-down pictures of a table with matplotlib (Agg; imported only when drawing).

Shared by the ``reach`` picture (:mod:`sim.view.reach_png`) and the special-move picture
(:mod:`sim.view.special_png`). Everything is in table inches: the table with a 1" grid
(bold every 6"), terrain coloured by Passage (Difficult hatched) with its id, models in
their player's colour with a facing tick and their id.
"""

from __future__ import annotations

import math

from sim.geometry import Passage

#: Terrain fill per Passage (the 3D view's palette, docs/view.md).
PASSAGE_COLOURS = {
    Passage.IMPASSABLE: "#54545e",
    Passage.DIFFICULT: "#9961c2",
    Passage.NORMAL: "#66a145",
    Passage.IDEAL: "#edebdb",
}
#: Model colour per player.
PLAYER_COLOURS = {1: "#cc121f", 2: "#1a4cf2"}
TABLE_COLOUR = "#e6dcc3"
GRID_COLOUR = "#b9ab8a"


def polygons(geom):
    """Polygons of a shapely geometry (any collection)."""
    if geom is None or geom.is_empty:
        return []
    if geom.geom_type == "Polygon":
        return [geom]
    return [p for g in getattr(geom, "geoms", []) for p in polygons(g)]


def lines(geom):
    """Line strings of a shapely geometry (any collection)."""
    if geom is None or geom.is_empty:
        return []
    if geom.geom_type in ("LineString", "LinearRing"):
        return [geom]
    return [p for g in getattr(geom, "geoms", []) for p in lines(g)]


def patch(poly, **kw):
    """A matplotlib patch for a shapely polygon with holes."""
    import numpy as np
    from matplotlib.patches import PathPatch
    from matplotlib.path import Path as MPath

    verts, codes = [], []
    for ring in [poly.exterior, *poly.interiors]:
        xy = np.asarray(ring.coords)
        verts.extend(xy.tolist())
        codes.extend([MPath.MOVETO] + [MPath.LINETO] * (len(xy) - 2) + [MPath.CLOSEPOLY])
    return PathPatch(MPath(verts, codes), **kw)


def figure(dpi: int = 110):
    """A new ``(fig, ax)`` sized for a table picture with a legend on the right."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    return plt.subplots(figsize=(9, 8.6), dpi=dpi)


def draw_table(ax, table, highlight: str | None = None, positions: dict | None = None, models: bool = True) -> None:
    """Draw the table, its terrain and (unless ``models`` is False) its models.

    ``positions``: model id -> ``(x, y)`` to draw instead of the table's (inches);
    ``highlight``: a model id outlined in yellow.
    """
    from matplotlib.patches import Rectangle

    W, D = table.width, table.depth
    ax.add_patch(Rectangle((0, 0), W, D, facecolor=TABLE_COLOUR, edgecolor="black", lw=1.5, zorder=0))
    for x in range(1, int(W)):
        ax.plot([x, x], [0, D], color=GRID_COLOUR, lw=0.6 if x % 6 else 1.1, zorder=0.5)
    for y in range(1, int(D)):
        ax.plot([0, W], [y, y], color=GRID_COLOUR, lw=0.6 if y % 6 else 1.1, zorder=0.5)
    for t in table.terrain:
        colour = PASSAGE_COLOURS[t.passage]
        for poly in polygons(t.footprint.shape):
            ax.add_patch(patch(poly, facecolor=colour, edgecolor="#2b2b2b", lw=0.8, zorder=1,
                               hatch="///" if t.passage is Passage.DIFFICULT else None, alpha=0.9))
        c = t.footprint.shape.representative_point()
        ax.text(c.x, c.y, t.id, ha="center", va="center", fontsize=7, zorder=6,
                color="white" if t.passage in (Passage.IMPASSABLE, Passage.DIFFICULT) else "#222222")
    if models:
        for m in table.models:
            x, y = (positions or {}).get(m.id, m.position)
            draw_model(ax, m, (x, y), highlight == m.id)
    ax.set_xlim(-0.5, W + 0.5)
    ax.set_ylim(-0.5, D + 0.5)
    ax.set_aspect("equal")
    ax.set_xticks(range(0, int(W) + 1, 3))
    ax.set_yticks(range(0, int(D) + 1, 3))
    ax.tick_params(labelsize=8)
    ax.set_xlabel("inches")


def draw_model(ax, m, at, highlight: bool = False, alpha: float = 0.95, label: bool = True) -> None:
    """One base at ``at`` with its facing tick and id."""
    from matplotlib.patches import Circle

    x, y = at
    colour = PLAYER_COLOURS.get(m.player, "#777777")
    ax.add_patch(Circle((x, y), m.radius, facecolor=colour, edgecolor="#ffd21a" if highlight else "black",
                        lw=2.5 if highlight else 0.8, alpha=alpha, zorder=5))
    f = math.radians(m.facing)
    ax.plot([x, x + math.cos(f) * m.radius * 1.35], [y, y + math.sin(f) * m.radius * 1.35],
            color="white", lw=2, zorder=5.5, solid_capstyle="round", alpha=alpha)
    if label:
        ax.text(x, y - m.radius - 0.28, m.id, ha="center", va="top", fontsize=7, zorder=6,
                color="black", bbox=dict(boxstyle="round,pad=0.1", fc="white", ec="none", alpha=0.6))
