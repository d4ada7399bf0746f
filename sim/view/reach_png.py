"""A top-down picture of one model's reach: Walk region, Run region, charge lanes.

Rulebook: Movement and Placement p.22-23 (Walk, Run, Charge). Drawn with matplotlib
(Agg backend, imported only when a picture is asked for) through the shared top-down
drawing module :mod:`sim.view.topdown`, in table inches: the table with a 1" grid,
terrain coloured by Passage, models in their player's colour with a facing tick (the
moving model ringed in yellow), the Walk region (translucent green), the Run region
(translucent blue with a blue outline) and one lane per enemy for the Charge (solid
orange with a dot at the contact when it reaches, dashed grey with an x where it stops
when it falls short).
"""

from __future__ import annotations

from pathlib import Path

from sim.geometry import Passage

from . import topdown
from .topdown import PASSAGE_COLOURS, PLAYER_COLOURS, TABLE_COLOUR  # noqa: F401  (re-exported)

#: Walk region fill and its alpha.
WALK_COLOUR = "#2ca02c"
WALK_ALPHA = 0.35
WALK_EDGE = "#1c6b1c"
#: Run region fill, its alpha, and its outline colour.
RUN_COLOUR = "#1f77b4"
RUN_ALPHA = 0.18
#: Charge lanes.
CHARGE_REACHED = "#ff7f0e"
CHARGE_SHORT = "#7f7f7f"


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
        KeyError: unknown model (when ``reach`` is given).
        ImportError: matplotlib is not installed.
    """
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    from sim.rules.planning import reach as compute_reach

    if reach is None:
        reach = compute_reach(table, model_id)
    table.model(model_id)  # KeyError: unknown model
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)

    fig, ax = topdown.figure(dpi)
    try:
        topdown.draw_table(ax, table, highlight=model_id)

        # regions: Run under Walk, both outlines on top of both fills
        for poly in topdown.polygons(reach.run_region):
            ax.add_patch(topdown.patch(poly, facecolor=RUN_COLOUR, alpha=RUN_ALPHA, edgecolor="none", zorder=2))
            ax.add_patch(topdown.patch(poly, facecolor="none", edgecolor=RUN_COLOUR, lw=1.4, zorder=2.7))
        for ln in topdown.lines(reach.run_region):
            xs, ys = ln.xy
            ax.plot(xs, ys, color=RUN_COLOUR, lw=3, alpha=0.7, zorder=2.7)
        for poly in topdown.polygons(reach.walk_region):
            ax.add_patch(topdown.patch(poly, facecolor=WALK_COLOUR, alpha=WALK_ALPHA, edgecolor="none", zorder=2.5))
            ax.add_patch(topdown.patch(poly, facecolor="none", edgecolor=WALK_EDGE, lw=1.0, zorder=2.6))
        for ln in topdown.lines(reach.walk_region):  # the leg directly away from an enemy ZoC
            xs, ys = ln.xy
            ax.plot(xs, ys, color=WALK_COLOUR, lw=3, zorder=2.6)

        # charge lanes, above the models
        for res in reach.charge_lanes:
            xs = [p[0] for p in res.path]
            ys = [p[1] for p in res.path]
            if res.reached:
                ax.plot(xs, ys, color=CHARGE_REACHED, lw=2.4, zorder=5.8, solid_capstyle="round")
                ax.plot([xs[-1]], [ys[-1]], marker="o", color=CHARGE_REACHED, mec="black", ms=5, zorder=5.9)
            else:
                ax.plot(xs, ys, color=CHARGE_SHORT, lw=1.6, ls="--", zorder=5.8)
                ax.plot([xs[-1]], [ys[-1]], marker="x", color="#333333", ms=8, mew=2, zorder=5.9)

        reached = [r.target for r in reach.charge_lanes if r.reached]
        move = reach.move
        ax.set_title(f"{table.name} - {model_id} (Move {move:g}\"): Walk {move:g}\", Run {1.5 * move:g}\", "
                     f"Charge {2 * move:g}\"" + (f"; charge reaches {', '.join(reached)}" if reached
                                                 else "; no charge reaches"), fontsize=10)
        handles = [
            Patch(facecolor=WALK_COLOUR, alpha=WALK_ALPHA + 0.15, edgecolor=WALK_EDGE, label="Walk: can end here"),
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
            Line2D([], [], marker="o", ls="", mfc="none", mec="#ffd21a", mew=2.5, ms=9, label=f"{model_id} (moving)"),
        ]
        ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8, frameon=True)
        fig.tight_layout()
        fig.savefig(out, dpi=dpi)
    finally:
        import matplotlib.pyplot as plt

        plt.close(fig)
    return out

