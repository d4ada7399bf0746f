"""A special move on the 3D table (push, slam, throw ...; Special abilities p.39-42,
rulings.md section 8), at any fraction of its animation: the moved models where they
are (a chained push starting when the model is hit, :class:`sim.view.specials.Timeline`),
the area their bases swept (translucent orange, darker outline, a centre line with an
arrowhead at the base's rim), a faint ghost base where each started, an x where bases
touched once it has happened, and at the end the models knocked Prone lying on their
bases with a "PRONE" label.
"""

from __future__ import annotations

import math

from panda3d.core import NodePath, TransparencyAttrib
from shapely.geometry import LineString
from shapely.ops import unary_union

from .. import style
from ..mesh import MeshBuilder, circle_ring
from ..specials import Timeline, contact_point
from .ground import Ground
from .labels import Labels, label
from .marks import arrow, cross, cut
from .models import ModelFigures
from .paint import GHOST_HEIGHT, SWEEP_Z, overlay_bin, rgba


class SpecialLayer:
    """The special move drawn under ``node``, its models moved through ``figures``.

    Attributes:
        result: the special move shown (:meth:`show`), or None.
        t: the fraction of its animation shown (1: its end).
    """

    def __init__(self, node: NodePath, table, ground: Ground, labels: Labels, figures: ModelFigures):
        self.node = node
        self.table = table
        self.ground = ground
        self.labels = labels
        self.figures = figures
        self.result = None
        self.t = 1.0
        self._cache: tuple = (None, None, None)

    def show(self, result, t: float = 1.0) -> bool:
        """Draw ``result`` (a :class:`~sim.rules.special.SpecialResult`) at fraction ``t``
        (see :meth:`sim.view.scene3d.TableScene.show_special`). Returns True when a model
        is drawn elsewhere than the table has it (or Prone where it stands).

        Raises:
            KeyError: a model of ``result`` is not on the table.
        """
        for mid in set(result.moves) | set(result.prone):
            self.table.model(mid)
        t = min(1.0, max(0.0, float(t)))
        if self._cache[0] is not result:
            self._cache = (result, Timeline.of(result, self.table), self._start_ghosts(result))
        tl, ghost_node = self._cache[1:]
        self.node.node().remove_all_children()
        self.result, self.t = result, t
        newly = set(result.prone)
        now = tl.positions(result, t)
        stale = False
        for m in self.table.models:
            xy = now.get(m.id, m.position)
            prone = (t >= 1.0) if m.id in newly else m.prone
            self.figures.place(m.id, xy, prone)
            stale = stale or math.dist(xy, m.position) > 1e-6 or prone != m.prone

        radius = {m.id: m.radius for m in self.table.models}
        swept, outlines, lines = [], MeshBuilder("special-outline"), MeshBuilder("special-lines")
        for mid, mv in result.moves.items():
            if mv.distance <= 1e-6:
                continue
            r = radius[mid]
            trail = tl.trail(result, mid, t)
            length = sum(math.dist(a, b) for a, b in zip(trail, trail[1:]))
            if length <= 1e-6:
                continue
            area = LineString(trail).buffer(r, quad_segs=16)
            swept.append(area)
            # the centre line from the start to the rim of the base where it is now
            head = min(0.36, 0.6 * r)
            if length > r + 0.5 * head:
                part = cut(trail, length - r)
                pts = self.ground.line(part[:-1] + [cut(part, max(0.0, length - r - head))[-1]], SWEEP_Z + 0.006)
                lines.polyline(pts, 0.08, rgba(style.SWEEP_LINE))
                arrow(lines, self.ground, part[-2], part[-1], SWEEP_Z + 0.008, head, rgba(style.SWEEP_LINE),
                      border=rgba(style.SWEEP_LINE))
        if swept:
            region = unary_union(swept)
            fill = MeshBuilder("special-swept")
            self.ground.cap(fill, region, SWEEP_Z, rgba(style.SWEEP, style.SWEEP_ALPHA))
            # the outline as a thin band (one triangulation, not a ribbon per segment)
            self.ground.cap(outlines, region.boundary.buffer(0.025, quad_segs=2), SWEEP_Z + 0.003,
                            rgba(style.SWEEP_EDGE))
            flat = self.node.attach_new_node("special-flat")
            flat.set_light_off(1)
            flat.set_transparency(TransparencyAttrib.M_alpha)
            flat.set_two_sided(True)
            fnp = flat.attach_new_node(fill.node())
            fnp.set_bin(overlay_bin(), -8)
            # one polygon (the union: nothing is blended twice) that writes no depth, so
            # the outline and the centre line just above it never fight it for pixels
            fnp.set_depth_write(False)
            flat.attach_new_node(outlines.node()).set_bin(overlay_bin(), -7)
            flat.attach_new_node(lines.node()).set_bin(overlay_bin(), -6)
        gnp = self.node.attach_new_node(ghost_node)
        gnp.set_light_off(1)
        gnp.set_transparency(TransparencyAttrib.M_alpha)
        gnp.set_depth_write(False)
        gnp.set_bin("fixed", 39)
        # collisions: an x where the bases touched, once it has happened
        marks = MeshBuilder("special-collisions")
        still = {m.id: tuple(m.position) for m in self.table.models if m.id not in result.moves}
        for i, c in enumerate(result.collisions):
            if not tl.happened(i, t):
                continue
            when = tl.hits[i] / tl.total if tl.total > 0 else 1.0
            p = contact_point(self.table, c, {**still, **tl.positions(result, min(when, 0.999999))})
            cross(marks, self.ground, p, 0.42, style.BASE_HEIGHT + 0.04, rgba(style.COLLISION),
                  border=rgba(style.COLLISION_BORDER))
        mnp = self.node.attach_new_node(marks.node())
        mnp.set_light_off(1)
        mnp.set_two_sided(True)
        mnp.set_depth_test(False)
        mnp.set_depth_write(False)
        mnp.set_bin("fixed", 48)
        self.labels.prone_labels = []
        if t >= 1.0 and self.labels.shown:
            size = self.labels.size(0.34, 10)
            for mid in result.prone:
                m = self.table.model(mid)
                x, y = now.get(mid, m.position)
                gz = self.ground.height((x, y))
                lab = label(self.node, "PRONE", (x, y, style.model_top(m, gz)), size,
                            fg=(1, 1, 1, 1), bg=rgba(style.PRONE_LABEL, 0.92), font_px=self.labels.text_px(size))
                text = lab.get_child(0)
                side = (self.labels.widths.get(mid, 0.0) + text.node().get_width() * size) / 2 + 0.6 * size
                self.labels.prone_labels.append((text, m.radius, side, size))
            self.labels.set_camera_pitch(self.labels.pitch)
        return stale

    def _start_ghosts(self, result):
        """The ghost bases where the models moved by ``result`` started (a GeomNode)."""
        ghosts = MeshBuilder("special-ghosts")
        for mid, mv in result.moves.items():
            if mv.distance <= 1e-6:
                continue
            r = self.table.model(mid).radius
            start = tuple(map(float, mv.start[:2]))
            gz = self.ground.height(start)
            # lower than a base: a model standing on the spot hides it
            top = gz + GHOST_HEIGHT
            ghosts.cylinder(start, r, gz, top, rgba(style.START_GHOST, style.START_GHOST_ALPHA), segments=40)
            top += 0.004
            player = style.PLAYER[self.table.model(mid).player]
            ghosts.cap(circle_ring(start, r + 0.02, 40), top, (0.05, 0.05, 0.06, 0.8),
                       holes=[circle_ring(start, r - 0.1, 40)])
            ghosts.cap(circle_ring(start, r, 40), top + 0.003, rgba(player, 0.95),
                       holes=[circle_ring(start, r - 0.08, 40)])
        return ghosts.node()

    def clear(self) -> None:
        """Remove the special move: the models go back to where the table has them."""
        self.node.node().remove_all_children()
        self.labels.prone_labels = []
        if self.result is not None:
            for m in self.table.models:
                self.figures.place(m.id, m.position, m.prone)
        self.result, self.t = None, 1.0
