"""The one scene builder behind both the window and offscreen rendering.

:class:`TableScene` turns a :class:`~sim.table.Table` into a Panda3D scene graph by
composing the visual layers of :mod:`sim.view.layers`: the table, grid, terrain and
lights (:mod:`~sim.view.layers.table_mesh`), the models (:mod:`~sim.view.layers.models`)
and their labels (:mod:`~sim.view.layers.labels`), and the overlays of a selected model
(LoS lines, ZoC, front arc: :mod:`~sim.view.layers.measure`; movement:
:mod:`~sim.view.layers.movement`), a move being set up
(:mod:`~sim.view.layers.preview`), a special move (:mod:`~sim.view.layers.special`),
the tape measure (:mod:`~sim.view.layers.tape`) and a game's markers on the models
(:mod:`~sim.view.layers.markers`, :meth:`TableScene.set_markers`). :func:`build_legend` and
:func:`status_text` draw the 2D panels (:mod:`~sim.view.layers.legend`). Table
coordinates throughout: inches, x right, y away from player 1, z up; facings in degrees
counter-clockwise from +x.

The heights and cull bins of the layers (:mod:`sim.view.layers.paint`) are re-exported
here, as are the legend functions and the terrain textures.
"""

from __future__ import annotations

from panda3d.core import Material, NodePath

from . import drag
from .layers.ground import Ground
from .layers.labels import Labels
from .layers.legend import build_legend, status_text
from .layers.markers import MarkersLayer
from .layers.measure import draw_measure
from .layers.models import ModelFigures
from .layers.movement import MovementLayer
from .layers.paint import (
    ARC_Z,
    DASH,
    DRAPE_STEP,
    GHOST_ALPHA,
    GHOST_HEIGHT,
    HATCH_REPEAT,
    LANE_Z,
    LOS_Z,
    MOVE_Z,
    OVERLAY_BIN,
    RING_Z,
    RUN_Z,
    SLOPE_CELL,
    SLOPE_LIFT,
    SOLID_BIN,
    SWEEP_Z,
    TILE_REPEAT,
    WALK_Z,
    ZOC_Z,
    hatch_texture,
    solid_bin,
    tile_texture,
)
from .layers.preview import draw_move_preview
from .layers.special import SpecialLayer
from .layers.table_mesh import add_lights, draw_surface, draw_terrain
from .layers.tape import draw_tape

__all__ = [
    "TableScene", "build_legend", "status_text", "hatch_texture", "tile_texture",
    "ARC_Z", "DASH", "DRAPE_STEP", "GHOST_ALPHA", "GHOST_HEIGHT", "HATCH_REPEAT", "LANE_Z", "LOS_Z", "MOVE_Z",
    "OVERLAY_BIN", "RING_Z", "RUN_Z", "SLOPE_CELL", "SLOPE_LIFT", "SOLID_BIN", "SWEEP_Z", "TILE_REPEAT", "WALK_Z",
    "ZOC_Z",
]


class TableScene:
    """The 3D scene of a table, shared by the window and the offscreen renderer.

    Attributes:
        table: the :class:`~sim.table.Table` drawn.
        root: NodePath holding everything (attach it under a ``render`` node).
        selected: id of the model whose overlays are shown, or None.

    ``labels`` draws the model and terrain ids; ``px_per_inch`` (about how many pixels an
    inch of table takes on screen) sizes and sharpens the label text; ``software``
    corrects the lighting of Panda3D's software renderer (p3tinydisplay), which would
    otherwise darken coloured faces.

    The scene graph under ``root``, in drawing order: ``static`` (table, terrain,
    models), ``overlay`` (measure), ``movement``, ``move-preview``, ``tape``,
    ``special``, then the lights.
    """

    def __init__(self, table, selected: str | None = None, labels: bool = True, software: bool = False,
                 px_per_inch: float | None = None):
        self.table = table
        self.root = NodePath(f"table-{table.name}")
        self.root.set_bin(solid_bin(), 0)
        self._static = self.root.attach_new_node("static")
        self._overlay = self.root.attach_new_node("overlay")
        self._movement = self.root.attach_new_node("movement")
        self._preview = self.root.attach_new_node("move-preview")
        self._tape = self.root.attach_new_node("tape")
        self._special = self.root.attach_new_node("special")
        self.selected: str | None = None
        self._ground = Ground(table)
        self._labels = Labels(labels, px_per_inch)
        self._models = ModelFigures(self._static, table, self._ground, self._labels)
        #: model id -> (holder at its position, figure node, figure radius)
        self._figures = self._models.figures
        self._moves = MovementLayer(self._movement, table, self._ground)
        self._specials = SpecialLayer(self._special, table, self._ground, self._labels, self._models)
        self._markers = MarkersLayer(table, self._models, self._labels)
        add_lights(self.root)
        if software:
            # p3tinydisplay multiplies the lit colour by the vertex colour once more; a
            # white material makes the lighting see white and the colour count once.
            mat = Material("software-lighting")
            mat.set_ambient((1, 1, 1, 1))
            mat.set_diffuse((1, 1, 1, 1))
            self.root.set_material(mat)
        draw_surface(self._static, table)
        for piece in table.terrain:
            draw_terrain(self._static, piece, self._labels)
        for model in table.models:
            self._models.add(model)
        self.set_camera_pitch(-90.0)
        self.select(selected)

    # --------------------------------------------------------- layer state
    @property
    def movement(self) -> tuple[str, ...]:
        """Movement overlays shown for the selected model (names from ``drag.OVERLAYS``)."""
        return self._moves.shown

    @property
    def movement_empty(self) -> set[str]:
        """Those of :attr:`movement` with nothing to draw for the selected model."""
        return self._moves.empty

    @property
    def special(self):
        """The special move shown (:meth:`show_special`), or None."""
        return self._specials.result

    @property
    def special_t(self) -> float:
        """The fraction of :attr:`special` shown (1: its end)."""
        return self._specials.t

    def ground(self, xy) -> float:
        """Drawn ground height (inches) at ``xy``: 0, or the top of raised ground."""
        return self._ground.height(xy)

    def set_camera_pitch(self, pitch: float) -> None:
        """Place the model labels for a camera looking down at ``pitch`` degrees (-90 =
        straight down): seen from above a label sits beside its model, not on it."""
        self._labels.set_camera_pitch(pitch)

    # -------------------------------------------------------------- overlays
    def select(self, model_id: str | None) -> None:
        """Show the overlays (LoS lines, ZoC, front arc) of ``model_id``; None clears them.

        Raises:
            KeyError: no such model.
        """
        self._overlay.node().remove_all_children()
        self._movement.node().remove_all_children()
        self.selected = None
        if model_id is None:
            return
        self.table.model(model_id)
        self.selected = model_id
        self._moves.draw(model_id)
        draw_measure(self._overlay, self.table, model_id, self._ground)

    def set_movement_overlays(self, walk: bool = False, run: bool = False, charges: bool = False) -> None:
        """Choose the movement overlays drawn for the selected model (kept when the
        selection changes):

        * ``walk``: where its base centre can end a Walk (translucent green);
        * ``run``: where it can end a Run (translucent blue, beyond the walk region
          when both are shown);
        * ``charges``: its charge lanes: solid orange to a ring where the base ends in
          contact with the target, dashed grey to a ring where a charge that falls short
          stops.

        The regions and lanes come from :mod:`sim.view.drag` (``sim.rules.planning``
        when available) and are computed once per model.
        """
        self._moves.shown = tuple(n for n, on in zip(drag.OVERLAYS, (walk, run, charges)) if on)
        self._moves.draw(self.selected)

    def move_figure(self, model_id: str, xy, facing: float | None = None) -> None:
        """Draw ``model_id``'s figure (base, body, label and markers) at ``xy`` ((x, y)
        inches, on the drawn ground) and, when ``facing`` (degrees) is given, turned to
        it -- for animating a move; the scene's table is not changed (a scene rebuilt
        from it draws the model where the table has it).

        Raises:
            KeyError: no such model.
        """
        holder = self._figures[model_id][0]
        holder.set_pos(float(xy[0]), float(xy[1]), self._ground.height(xy))
        if facing is not None:
            holder.find("body").set_h(float(facing))

    def figure_poses(self) -> dict[str, tuple[float, float, float, float, bool]]:
        """Where each model's figure is drawn: model id -> ``(x, y, z, facing, prone)``
        (inches of its holder's position, degrees of its body's heading, whether the
        figure lies on its base) -- what tests compare between scenes."""
        out = {}
        for mid, (holder, figure, _r) in self._figures.items():
            p = holder.get_pos()
            out[mid] = (float(p.x), float(p.y), float(p.z), float(holder.find("body").get_h()) % 360.0,
                        abs(figure.get_r()) > 45.0)
        return out

    def remove_figure(self, model_id: str) -> None:
        """Remove ``model_id``'s figure (base, body, label and markers) from the scene --
        a model taken off the table (killed); the scene's table is not changed
        (:meth:`set_table` changes both).

        Raises:
            KeyError: no such figure.
        """
        holder = self._figures.pop(model_id)[0]
        self._labels.model_labels = [(lab, r) for lab, r in self._labels.model_labels
                                     if not holder.is_ancestor_of(lab)]
        self._labels.widths.pop(model_id, None)
        self._markers.shown.pop(model_id, None)
        holder.remove_node()

    def set_table(self, table) -> bool:
        """Show ``table`` in place of :attr:`table` without building the scene again,
        when only where its models stand changed: the same size and terrain, and each of
        its models drawn already with the same player, base and Size (some may be gone,
        none new). The figures move, turn and lie down or stand up as ``table`` has them,
        those not on it are removed (:meth:`remove_figure`), a special move and a move
        preview shown are cleared, and the selected model's overlays (LoS lines, ZoC,
        front arc, the movement overlays shown) are drawn again for the new positions
        (no selection when the model is gone). The markers stay: set them again
        (:meth:`set_markers`). The scene then shows what ``TableScene(table, ...)``
        would. Returns False, changing nothing, when ``table`` differs otherwise (build
        a new scene)."""
        old = self.table
        if (table.width, table.depth) != (old.width, old.depth) or not (
                table.terrain is old.terrain or table.terrain == old.terrain):
            return False
        drawn = {m.id: m for m in old.models}
        for m in table.models:
            o = drawn.get(m.id)
            if o is None or m.id not in self._figures or (o.player, o.base, o.size) != (m.player, m.base, m.size):
                return False
        if self._specials.result is not None:
            self.clear_special()
        self.set_move_preview(None)
        self.table = table
        for layer in (self._ground, self._models, self._specials, self._markers):
            layer.table = table
        keep = {m.id for m in table.models}
        for mid in [k for k in self._figures if k not in keep]:
            self.remove_figure(mid)
        for m in table.models:
            self._models.place(m.id, m.position, m.prone)
            self._figures[m.id][0].find("body").set_h(float(m.facing))
        shown = self._moves.shown
        self._movement.node().remove_all_children()
        self._moves = MovementLayer(self._movement, table, self._ground)
        self._moves.shown = shown
        self.select(self.selected if self.selected in keep else None)
        return True

    def set_move_preview(self, model_id: str | None, dest=None, path=(), legal: bool = True,
                         text: str | None = None, facing: float | None = None) -> None:
        """Show a move of ``model_id`` being set up: a ghost base at ``dest`` ((x, y),
        inches), the ``path`` line (base-centre points from the start) and ``text`` by
        the ghost, white when ``legal``, warning red when not; ``facing`` (degrees): an
        arrow on the ghost, the facing it ends with. ``model_id`` None clears.

        Raises:
            KeyError: no such model.
        """
        self._preview.node().remove_all_children()
        if model_id is None or dest is None:
            return
        draw_move_preview(self._preview, self.table, self._ground, self._labels, model_id, dest, path, legal, text,
                          facing)

    # ------------------------------------------------------------ special moves
    def show_special(self, result, t: float = 1.0) -> None:
        """Show a special move (a :class:`~sim.rules.special.SpecialResult` played on
        this scene's table, or on the table before it, see below) at fraction ``t`` of
        its animation (1: its end):

        * every moved model is drawn where it is at ``t`` (along its path, a chained
          push starting when the model is hit: :class:`sim.view.specials.Timeline`);
        * the area its base swept so far: translucent orange, darker outline, a centre
          line with an arrowhead at the base's rim;
        * a faint ghost base (white, rim in the player's colour) where it started;
        * an x where bases touched (or met Impassable terrain or the table edge), once
          the collision has happened;
        * at the end (``t`` = 1) the models knocked Prone lie on their bases, with a
          "PRONE" label.

        The scene may be built from the table before the move or after it
        (:func:`sim.view.specials.special_table`): models are drawn where the move puts
        them either way. While they are drawn elsewhere than the scene's table says
        (the move not applied, or ``t`` < 1), the selected model's overlays (LoS, ZoC,
        movement) are hidden: they would be those of the table. Call again with
        another ``t`` to animate; :meth:`clear_special` removes it all.

        Raises:
            KeyError: a model of ``result`` is not on the table.
        """
        stale = self._specials.show(result, t)
        for np_ in (self._overlay, self._movement):
            (np_.hide if stale else np_.show)()

    def clear_special(self) -> None:
        """Remove the special move drawn by :meth:`show_special`: the models go back to
        where the scene's table has them, and the selected model's overlays come back."""
        self._specials.clear()
        self._overlay.show()
        self._movement.show()

    # ----------------------------------------------------------------- markers
    @property
    def markers(self) -> dict:
        """The game markers drawn (:meth:`set_markers`), by model id."""
        return dict(self._markers.shown)

    def set_markers(self, markers) -> None:
        """Draw a game's markers on the models (:mod:`sim.view.layers.markers`): a
        mapping model id -> :class:`~sim.view.play.state.ModelMarkers` (as
        :func:`sim.view.play.state.model_markers` reads them off a game), in place of
        those drawn before; None clears them. The table has only positions, so the game
        state comes from outside: conditions as tokens right of the base (p.43-45),
        wounds as a bar below it (p.38), Ki as pips (p.46), activation counters as discs
        (p.24). Models not on this table, or not alive, are skipped; the markers follow
        a model a special move draws elsewhere."""
        self._markers.draw(markers)

    def set_tape(self, a, b, text: str | None) -> None:
        """Show the tape measure from ``a`` to ``b`` ((x, y), inches) with ``text`` at its
        middle; ``a`` None clears it; ``b`` None shows only the first end."""
        self._tape.node().remove_all_children()
        if a is None:
            return
        draw_tape(self._tape, self._labels, a, b, text)
