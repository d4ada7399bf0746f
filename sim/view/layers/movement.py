"""The movement overlay of the selected model (Movement p.22-23): where its base centre
can end a Walk (translucent green) or a Run (translucent blue, beyond the walk region
when both are shown), and its charge lanes (solid orange to a ring where the base ends
in contact with the target, dashed grey to a cross where a charge that falls short
stops). The regions and lanes come from :mod:`sim.view.drag` (``sim.rules.planning``
when available), draped over raised ground, and are computed once per model.
"""

from __future__ import annotations

import math

import numpy as np
from panda3d.core import NodePath, TransparencyAttrib

from .. import drag, style
from ..mesh import MeshBuilder
from .ground import Ground
from .marks import areal, arrow, cross, dashes, end_marker
from .paint import GHOST_ALPHA, LANE_Z, RUN_Z, WALK_Z, overlay_bin, rgba


class MovementLayer:
    """The movement overlays drawn under ``node`` for the selected model.

    Attributes:
        shown: the overlays shown (names from ``drag.OVERLAYS``), kept when the
            selection changes.
        empty: those of ``shown`` with nothing to draw for the selected model.
    """

    def __init__(self, node: NodePath, table, ground: Ground):
        self.node = node
        self.table = table
        self.ground = ground
        self.shown: tuple[str, ...] = ()
        self.empty: set[str] = set()
        self._cache: dict = {}

    def data(self, kind: str, selected: str):
        """The ``kind`` overlay's region or lanes for ``selected`` (None: a model
        without a Move value)."""
        key = (kind, selected)
        if key not in self._cache:
            fn = {"walk": drag.walk_region, "run": drag.run_region, "charges": drag.charge_lanes}[kind]
            try:
                self._cache[key] = fn(self.table, selected)
            except ValueError:  # MoveError: a model without a Move value
                self._cache[key] = None
        return self._cache[key]

    def draw(self, selected: str | None) -> None:
        """Draw the :attr:`shown` overlays of ``selected`` (None: nothing)."""
        self.node.node().remove_all_children()
        self.empty = set()
        if selected is None or not self.shown:
            return
        flat = self.node.attach_new_node("movement-flat")
        flat.set_light_off(1)
        flat.set_transparency(TransparencyAttrib.M_alpha)  # depth writes on: see table_mesh.draw_terrain
        flat.set_two_sided(True)
        walk = areal(self.data("walk", selected)) if "walk" in self.shown else None
        if "walk" in self.shown and (walk is None or walk.is_empty):
            self.empty.add("walk")
        if "charges" in self.shown and not self.data("charges", selected):
            self.empty.add("charges")
        if "run" in self.shown:
            run = areal(self.data("run", selected))
            if run is None or run.is_empty:
                self.empty.add("run")
            else:
                shown = run.difference(walk) if walk is not None and not walk.is_empty else run
                mb = MeshBuilder("run-region")
                self.ground.cap(mb, shown, RUN_Z, rgba(style.RUN, style.RUN_ALPHA))
                flat.attach_new_node(mb.node()).set_bin(overlay_bin(), -4)
                edge = MeshBuilder("run-edge")
                self.ground.outline(edge, run, RUN_Z + 0.002, 0.05, rgba(style.RUN_EDGE))
                flat.attach_new_node(edge.node()).set_bin(overlay_bin(), -3)
        if walk is not None and not walk.is_empty:
            mb = MeshBuilder("walk-region")
            self.ground.cap(mb, walk, WALK_Z, rgba(style.WALK, style.WALK_ALPHA))
            flat.attach_new_node(mb.node()).set_bin(overlay_bin(), -2)
            edge = MeshBuilder("walk-edge")
            self.ground.outline(edge, walk, WALK_Z + 0.002, 0.05, rgba(style.WALK_EDGE))
            flat.attach_new_node(edge.node()).set_bin(overlay_bin(), -1)
        if "charges" in self.shown:
            lanes = self.data("charges", selected) or []
            if lanes:
                self._draw_lanes(lanes, selected)

    def _draw_lanes(self, lanes, selected: str) -> None:
        r = self.table.model(selected).radius
        w = style.CHARGE_WIDTH
        mb = MeshBuilder("charge-lanes")
        # lanes that fall short first: those that reach are drawn over them
        for lane in sorted(lanes, key=lambda ln: bool(ln.reached)):
            path = [tuple(p) for p in lane.path]
            if len(path) < 2:
                path = path * 2
            if lane.reached:
                colour = rgba(style.CHARGE)
                end = np.asarray(path[-1], float)
                prev = np.asarray(path[-2], float)
                last = float(np.hypot(*(end - prev)))
                head = min(0.34, 0.6 * r)
                has_arrow = last > head * 1.2 and math.dist(path[0], path[-1]) > r
                if has_arrow:  # the lane stops where the arrowhead begins; its tip is the end
                    u = (end - prev) / last
                    path = path[:-1] + [tuple(end - u * head)]
                pts = self.ground.line(path, LANE_Z)
                mb.polyline(pts - (0, 0, 0.003), w + 0.07, rgba(style.CHARGE_BORDER))
                mb.polyline(pts, w, colour)
                end_marker(mb, self.ground, tuple(end), r, LANE_Z + 0.004, colour, dot=not has_arrow)
                if has_arrow:
                    arrow(mb, self.ground, prev, end, LANE_Z + 0.008, head, colour)
            else:
                pts = self.ground.line(path, LANE_Z)
                colour = rgba(style.CHARGE_SHORT)
                dashes(mb, pts - (0, 0, 0.003), 0.7 * w + 0.05, rgba(style.CHARGE_BORDER))
                dashes(mb, pts, 0.7 * w, colour)
                cross(mb, self.ground, path[-1], 0.42, LANE_Z + 0.004, colour)
        gn = mb.node()
        solid = self.node.attach_new_node(gn)
        ghost = self.node.attach_new_node(gn.make_copy())
        for np_ in (solid, ghost):
            np_.set_light_off(1)
            np_.set_two_sided(True)
        solid.set_bin("fixed", 42)
        ghost.set_color_scale(1, 1, 1, GHOST_ALPHA)
        ghost.set_transparency(TransparencyAttrib.M_alpha)
        ghost.set_depth_test(False)
        ghost.set_depth_write(False)
        ghost.set_bin("fixed", 41)
