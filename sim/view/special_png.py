"""A top-down picture of a special move (Special abilities p.39-42): every moved model's
start (faint), path (arrow) and end, collisions marked, Prone models labelled."""

from __future__ import annotations

from pathlib import Path

from . import topdown


def render_special_png(table, result, path, dpi: int = 110) -> Path:
    """Draw ``result`` (a :class:`sim.rules.special.SpecialResult` on ``table``) as a PNG.

    Returns the path written. Raises ImportError when matplotlib is missing.
    """
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig, ax = topdown.figure(dpi)
    try:
        import matplotlib.pyplot as plt

        ends = result.positions()
        topdown.draw_table(ax, table, highlight=result.defender, positions=ends)
        for mid, mv in result.moves.items():
            m = table.model(mid)
            if len(mv.path) > 1:
                topdown.draw_model(ax, m, mv.start, alpha=0.25, label=False)
                xs = [p[0] for p in mv.path]
                ys = [p[1] for p in mv.path]
                ax.plot(xs, ys, color="#ff7f0e", lw=2.2, zorder=5.7)
                ax.annotate("", xy=mv.path[-1], xytext=mv.path[-2], zorder=5.8,
                            arrowprops=dict(arrowstyle="-|>", color="#ff7f0e", lw=2.2))
        for c in result.collisions:
            ax.plot([c.at[0]], [c.at[1]], marker="x", color="black", ms=10, mew=2.5, zorder=6)
        for mid in result.prone:
            x, y = ends.get(mid, table.model(mid).position)
            ax.text(x, y + table.model(mid).radius + 0.15, "PRONE", ha="center", va="bottom", fontsize=7,
                    color="#b00000", weight="bold", zorder=6.5)
        title = f"{table.name} - {result.move}: {result.attacker} vs {result.defender}"
        if result.direction is not None:
            title += f", direction {result.direction:.1f} deg"
        ax.set_title(title, fontsize=10)
        handles = [Line2D([], [], color="#ff7f0e", lw=2.2, label="path of a moved model"),
                   Patch(facecolor="#999999", alpha=0.3, label="start position"),
                   Line2D([], [], marker="x", ls="", color="black", ms=9, mew=2.5, label="collision"),
                   Patch(facecolor=topdown.PLAYER_COLOURS[1], label="Player 1"),
                   Patch(facecolor=topdown.PLAYER_COLOURS[2], label="Player 2")]
        ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8)
        fig.tight_layout()
        fig.savefig(out, dpi=dpi)
    finally:
        plt.close(fig)
    return out
