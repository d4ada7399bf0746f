"""A top-down picture of one model's reach: Walk region, Run region, charge lanes.

Rulebook: Movement and Placement p.22-23 (Walk, Run, Charge). Drawn with matplotlib
(Agg backend, imported only when a picture is asked for), in table inches: the table
with a 1" grid, terrain coloured by Passage, models in their player's colour with a
facing tick, the Walk region (translucent green), the Run region (translucent blue) and
one lane per enemy for the Charge (solid orange when it reaches, dashed grey with an x
where it stops when it falls short).
"""

from __future__ import annotations

import math
from pathlib import Path

from sim.geometry import Passage

#: Terrain fill per Passage.
PASSAGE_COLOURS = {
    Passage.IMPASSABLE: "#54545e",
    Passage.DIFFICULT: "#9961c2",
    Passage.NORMAL: "#66a145",
    Passage.IDEAL: "#edebdb",
}
#: Model colour per player.
PLAYER_COLOURS = {1: "#cc121f", 2: "#1a4cf2"}
#: Walk region fill (RGB) and its alpha.
WALK_COLOUR = "#2ca02c"
WALK_ALPHA = 0.35
#: Run region fill and outline.
RUN_COLOUR = "#1f77b4"
RUN_ALPHA = 0.18
#: Charge lanes.
CHARGE_REACHED = "#ff7f0e"
CHARGE_SHORT = "#7f7f7f"
TABLE_COLOUR = "#e6dcc3"


def _polygons(geom):
    """Polygons of a shapely geometry (any collection)."""
    if geom is None or geom.is_empty:
        return []
    if geom.geom_type == "Polygon":
        return [geom]
    return [p for g in getattr(geom, "geoms", []) for p in _polygons(g)]


def _lines(geom):
    if geom is None or geom.is_empty:
        return []
    if geom.geom_type in ("LineString", "LinearRing"):
        return [geom]
    return [p for g in getattr(geom, "geoms", []) for p in _lines(g)]


def _patch(poly, **kw):
    """A matplotlib patch for a shapely polygon with holes."""
    import numpy as np
    from matplotlib.path import Path as MPath
    from matplotlib.patches import PathPatch

    verts, codes = [], []
    for ring in [poly.exterior, *poly.interiors]:
        xy = np.asarray(ring.coords)
        verts.extend(xy.tolist())
        codes.extend([MPath.MOVETO] + [MPath.LINETO] * (len(xy) - 2) + [MPath.CLOSEPOLY])
    return PathPatch(MPath(verts, codes), **kw)


def render_reach_png(table, model_id: str, path, reach=None, dpi: int = 110) -> Path:
    """Draw ``model_id``'s reach on ``table`` as a PNG (top-down, inches).

    Args:
        table: a loaded :class:`sim.table.Table`.
        model_id: the model whose Walk, Run and Charge are drawn.
        path: where to write the PNG (parent folders are created).
        reach: a :class:`sim.rules.planning.Reach` already computed for this model
            (default: computed here with :func:`sim.rules.planning.reach`).
        dpi: resolution; the figure is 9 x 8.6 inches.

    Returns:
        the path written, as :class:`pathlib.Path`.

    Raises:
        MoveError: unknown model or no Move value (when ``reach`` is computed here).
        ImportError: matplotlib is not installed.
    """
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D
    from matplotlib.patches import Circle, Patch, Rectangle

    from sim.rules.planning import reach as compute_reach

    if reach is None:
        reach = compute_reach(table, model_id)
    table.model(model_id)  # KeyError: unknown model
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)

    fig, ax = plt.subplots(figsize=(9, 8.6), dpi=dpi)
    try:
        W, D = table.width, table.depth
        ax.add_patch(Rectangle((0, 0), W, D, facecolor=TABLE_COLOUR, edgecolor="black", lw=1.5, zorder=0))
        for x in range(1, int(W)):
            ax.plot([x, x], [0, D], color="#b9ab8a", lw=0.6 if x % 6 else 1.1, zorder=0.5)
        for y in range(1, int(D)):
            ax.plot([0, W], [y, y], color="#b9ab8a", lw=0.6 if y % 6 else 1.1, zorder=0.5)

        # terrain
        for t in table.terrain:
            colour = PASSAGE_COLOURS[t.passage]
            for poly in _polygons(t.footprint.shape):
                ax.add_patch(_patch(poly, facecolor=colour, edgecolor="#2b2b2b", lw=0.8, zorder=1,
                                    hatch="///" if t.passage is Passage.DIFFICULT else None,
                                    alpha=0.9))
            c = t.footprint.shape.representative_point()
            ax.text(c.x, c.y, t.id, ha="center", va="center", fontsize=7, zorder=6,
                    color="white" if t.passage in (Passage.IMPASSABLE, Passage.DIFFICULT) else "#222222")

        # regions
        for poly in _polygons(reach.run_region):
            ax.add_patch(_patch(poly, facecolor=RUN_COLOUR, alpha=RUN_ALPHA, edgecolor="none", zorder=2))
            ax.add_patch(_patch(poly, facecolor="none", edgecolor=RUN_COLOUR, lw=1.4, zorder=2.7))
        for ln in _lines(reach.run_region):
            xs, ys = ln.xy
            ax.plot(xs, ys, color=RUN_COLOUR, lw=3, alpha=0.7, zorder=2.1)
        for poly in _polygons(reach.walk_region):
            ax.add_patch(_patch(poly, facecolor=WALK_COLOUR, alpha=WALK_ALPHA, edgecolor="none", zorder=2.5))
            ax.add_patch(_patch(poly, facecolor="none", edgecolor="#1c6b1c", lw=1.0, zorder=2.6))
        for ln in _lines(reach.walk_region):
            xs, ys = ln.xy
            ax.plot(xs, ys, color=WALK_COLOUR, lw=3, zorder=2.6)

        # charge lanes
        for res in reach.charge_lanes:
            xs = [p[0] for p in res.path]
            ys = [p[1] for p in res.path]
            if res.reached:
                ax.plot(xs, ys, color=CHARGE_REACHED, lw=2.4, zorder=5.8, solid_capstyle="round")
                ax.plot([xs[-1]], [ys[-1]], marker="o", color=CHARGE_REACHED, mec="black", ms=5, zorder=5.9)
            else:
                ax.plot(xs, ys, color=CHARGE_SHORT, lw=1.6, ls="--", zorder=5.8)
                ax.plot([xs[-1]], [ys[-1]], marker="x", color="#333333", ms=8, mew=2, zorder=5.9)

        # models
        for m in table.models:
            x, y = m.position
            colour = PLAYER_COLOURS.get(m.player, "#777777")
            ax.add_patch(Circle((x, y), m.radius, facecolor=colour, edgecolor="black" if m.id != model_id else "#ffd21a",
                                lw=2.5 if m.id == model_id else 0.8, alpha=0.95, zorder=5))
            f = math.radians(m.facing)
            ax.plot([x, x + math.cos(f) * m.radius * 1.35], [y, y + math.sin(f) * m.radius * 1.35],
                    color="white", lw=2, zorder=5.5, solid_capstyle="round")
            ax.text(x, y - m.radius - 0.28, m.id, ha="center", va="top", fontsize=7, zorder=6,
                    color="black", bbox=dict(boxstyle="round,pad=0.1", fc="white", ec="none", alpha=0.6))

        ax.set_xlim(-0.5, W + 0.5)
        ax.set_ylim(-0.5, D + 0.5)
        ax.set_aspect("equal")
        ax.set_xticks(range(0, int(W) + 1, 3))
        ax.set_yticks(range(0, int(D) + 1, 3))
        ax.tick_params(labelsize=8)
        ax.set_xlabel("inches")
        reached = [r.target for r in reach.charge_lanes if r.reached]
        ax.set_title(f"{table.name} - {model_id} (Move {reach.move:g}\"): Walk {reach.move:g}\", "
                     f"Run {1.5 * reach.move:g}\", Charge {2 * reach.move:g}\""
                     + (f"; charge reaches {', '.join(reached)}" if reached else "; no charge reaches"),
                     fontsize=10)
        handles = [
            Patch(facecolor=WALK_COLOUR, alpha=WALK_ALPHA + 0.15, edgecolor="#1c6b1c", label="Walk: can end here"),
            Patch(facecolor=RUN_COLOUR, alpha=RUN_ALPHA + 0.15, edgecolor=RUN_COLOUR, label="Run: can end here"),
            Line2D([], [], color=CHARGE_REACHED, lw=2.4, marker="o", markevery=[1], mec="black", ms=5,
                   label="Charge reaches (o: contact)"),
            Line2D([], [], color=CHARGE_SHORT, lw=1.6, ls="--", marker="x", markevery=[1], mec="#333333",
                   label="Charge falls short (x: stop)"),
            Patch(facecolor=PASSAGE_COLOURS[Passage.IMPASSABLE], label="Impassable"),
            Patch(facecolor=PASSAGE_COLOURS[Passage.DIFFICULT], hatch="///", label="Difficult"),
            Patch(facecolor=PASSAGE_COLOURS[Passage.NORMAL], label="Normal terrain"),
            Patch(facecolor=PASSAGE_COLOURS[Passage.IDEAL], edgecolor="#999999", label="Ideal (+2\")"),
            Line2D([], [], marker="o", ls="", color=PLAYER_COLOURS[1], ms=8, label="Player 1"),
            Line2D([], [], marker="o", ls="", color=PLAYER_COLOURS[2], ms=8, label="Player 2"),
        ]
        ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8, frameon=True)
        fig.tight_layout()
        fig.savefig(out, dpi=dpi)
    finally:
        plt.close(fig)
    return out
