"""The models on the 3D table: a base in the player's colour with its facing arrow and
front-arc ticks (Terms and Concepts p.4-9), a simple figure whose height follows the
model's Size, standing or lying on its base when Prone, and the model's id label.
"""

from __future__ import annotations

from panda3d.core import NodePath

from .. import style
from ..mesh import MeshBuilder
from .ground import Ground
from .labels import Labels, label
from .paint import rgba


class ModelFigures:
    """The models of ``table`` drawn under ``parent`` on ``ground``.

    Attributes:
        figures: model id -> (holder at its position, figure node, figure radius).
    """

    def __init__(self, parent: NodePath, table, ground: Ground, labels: Labels):
        self.parent = parent
        self.table = table
        self.ground = ground
        self.labels = labels
        self.figures: dict[str, tuple[NodePath, NodePath, float]] = {}

    def add(self, model) -> None:
        """Draw ``model`` (a :class:`~sim.table.Model`) where the table has it."""
        r = model.radius
        colour = rgba(style.PLAYER[model.player])
        # the holder stands at the model's position on the ground; its body turns to the
        # facing and its label floats above it, so moving the holder moves all of it
        holder = self.parent.attach_new_node(f"model-{model.id}")
        gz = self.ground.height(model.position)
        holder.set_pos(model.position[0], model.position[1], gz)
        node = holder.attach_new_node("body")
        node.set_h(model.facing)  # local +x is the facing
        base = MeshBuilder(f"base-{model.id}")
        base.cylinder((0, 0), r, 0.0, style.BASE_HEIGHT, colour, segments=40)
        node.attach_new_node(base.node())
        marks = MeshBuilder(f"marks-{model.id}")
        z = style.BASE_HEIGHT + 0.006
        white = rgba(style.MARK)
        fr = style.FIGURE_RADIUS * r
        # facing arrow: from the figure to the rim
        tri = [marks.vertex(p, (0, 0, 1), white) for p in
               ((0.98 * r, 0, z), (fr * 0.9, 0.36 * r, z), (fr * 0.9, -0.36 * r, z))]
        marks.triangle(*tri)
        # front-arc ticks: at both ends of the arc line, on the rim
        for side in (1, -1):
            y0, y1 = side * 0.7 * r, side * 1.0 * r
            lo, hi = sorted((y0, y1))
            marks.quad([(-0.05, lo, z), (0.05, lo, z), (0.05, hi, z), (-0.05, hi, z)], (0, 0, 1), white)
        m_np = node.attach_new_node(marks.node())
        m_np.set_light_off(1)
        figure = node.attach_new_node("figure")
        fig = MeshBuilder(f"figure-{model.id}")
        h = style.figure_height(model.size)
        hr = min(0.16 * h + 0.02, 0.42 * r)
        body_h = h - 2 * hr
        shade = rgba([min(1.0, c * 0.85 + 0.08) for c in style.PLAYER[model.player]])
        fig.cylinder((0, 0), fr, 0.0, body_h, shade, segments=20, top_radius=0.7 * fr)
        fig.sphere((0, 0, body_h + hr), hr, shade, segments=14, rings=7)
        fig.sphere((hr * 0.8, 0, body_h + hr * 1.05), hr * 0.38, white, segments=8, rings=4)  # the "face"
        figure.attach_new_node(fig.node())
        self.figures[model.id] = (holder, figure, fr)
        self.lay_down(model.id, model.prone)
        if self.labels.shown:
            size = self.labels.size(0.42, 12)
            lab = label(holder, model.id, (0, 0, style.model_top(model, gz) - gz),
                        size, bg=(0.05, 0.05, 0.08, 0.7), font_px=self.labels.text_px(size))
            self.labels.model_labels.append((lab.get_child(0), r))
            self.labels.widths[model.id] = lab.get_child(0).node().get_width() * size

    def lay_down(self, model_id: str, prone: bool) -> None:
        """Draw ``model_id``'s figure lying on its base (Prone) or standing."""
        _, figure, fr = self.figures[model_id]
        if prone:
            figure.set_r(90)
            figure.set_pos(0, 0, style.BASE_HEIGHT + fr)
        else:
            figure.set_r(0)
            figure.set_pos(0, 0, style.BASE_HEIGHT)

    def place(self, model_id: str, xy, prone: bool) -> None:
        """Draw ``model_id`` at ``xy`` (on the drawn ground), Prone or standing."""
        holder = self.figures[model_id][0]
        holder.set_pos(float(xy[0]), float(xy[1]), self.ground.height(xy))
        self.lay_down(model_id, prone)
