"""The one scene builder behind both the window and offscreen rendering.

:class:`TableScene` turns a :class:`~sim.table.Table` into a Panda3D scene graph (table,
grid, terrain, models, labels, lights) and draws the overlays of a selected model (LoS
lines, ZoC, front arc, movement), a move being set up, a special move (swept paths,
models along them) and the tape measure. :func:`build_legend` draws the 2D legend
panel. Table coordinates throughout: inches, x right, y away from player 1, z up;
facings in degrees counter-clockwise from +x.
"""

from __future__ import annotations

import math

import numpy as np
from panda3d.core import (
    AmbientLight,
    CardMaker,
    CullBinEnums,
    CullBinManager,
    DirectionalLight,
    LineSegs,
    NodePath,
    PNMImage,
    SamplerState,
    Material,
    TextNode,
    Texture,
    TransparencyAttrib,
    Vec3,
)

from sim.geometry import Passage, Visibility
from sim.geometry.measure import zoc_region

from . import drag, style
from .camera import font_px, legend_width
from .mesh import MeshBuilder, circle_ring, rings_of

#: Inches per repeat of the hatch (Difficult) and tile (Ideal) textures.
HATCH_REPEAT = 1.0
TILE_REPEAT = 0.75
#: Heights (inches) of the flat overlays: above Open terrain, below a base's top.
ARC_Z = 0.07
ZOC_Z = 0.08
RING_Z = 0.09
LOS_Z = style.BASE_HEIGHT + 0.02
#: Opacity of the "seen through" copy of the LoS lines drawn over everything.
GHOST_ALPHA = 0.35
#: Heights (inches above the ground) of the movement overlays: the run and walk region
#: fills (above Open terrain, below the front arc), the charge lanes (just above the
#: base tops and the LoS lines) and a dragged move's path.
RUN_Z = 0.056
WALK_Z = 0.062
LANE_Z = LOS_Z + 0.014
MOVE_Z = LOS_Z + 0.03
#: Height (inches above the ground) of a special move's swept paths: above the walk
#: region, below the front arc.
SWEEP_Z = 0.066
#: Height of the ghost base where a moved model started (below a base's top, so a
#: model standing there hides it).
GHOST_HEIGHT = 0.09
#: Longest straight piece (inches) of a line draped over raised ground, and the cells
#: (inches) a filled region is cut into on the slopes of raised ground.
DRAPE_STEP = 0.2
SLOPE_CELL = 0.2
#: Extra height (inches) of draped overlays on slopes, so the slope never pokes through.
SLOPE_LIFT = 0.04
#: Dashes of a charge lane that falls short: drawn and gap lengths, inches.
DASH = (0.28, 0.18)


#: Cull bin for flat overlays on the table: after opaque things, before translucent ones.
OVERLAY_BIN = "ground-overlay"


#: Cull bin for opaque things, drawn in scene-graph order so that pixels where two faces
#: are equally near (a base's rim seen from above) come out the same every time.
SOLID_BIN = "table-solid"


def _overlay_bin() -> str:
    mgr = CullBinManager.get_global_ptr()
    if mgr.find_bin(OVERLAY_BIN) < 0:
        mgr.add_bin(OVERLAY_BIN, CullBinEnums.BT_fixed, 25)
    return OVERLAY_BIN


def _solid_bin() -> str:
    mgr = CullBinManager.get_global_ptr()
    if mgr.find_bin(SOLID_BIN) < 0:
        mgr.add_bin(SOLID_BIN, CullBinEnums.BT_unsorted, 20)
    return SOLID_BIN


def _rgba(rgb, a: float = 1.0):
    return (rgb[0], rgb[1], rgb[2], a)


def _texture(name: str, painter) -> Texture:
    img = PNMImage(64, 64, 3)
    for y in range(64):
        for x in range(64):
            img.set_xel(x, y, *painter(x, y))
    tex = Texture(name)
    tex.load(img)
    tex.set_wrap_u(SamplerState.WM_repeat)
    tex.set_wrap_v(SamplerState.WM_repeat)
    tex.set_minfilter(SamplerState.FT_linear_mipmap_linear)
    tex.set_magfilter(SamplerState.FT_linear)
    return tex


_TEXTURES: dict[str, Texture] = {}


def hatch_texture() -> Texture:
    """Diagonal violet stripes: the Difficult pattern (two stripes per repeat)."""
    if "hatch" not in _TEXTURES:
        base, stripe = style.PASSAGE[Passage.DIFFICULT], style.DIFFICULT_STRIPE
        _TEXTURES["hatch"] = _texture("hatch", lambda x, y: stripe if (x + y) % 32 < 10 else base)
    return _TEXTURES["hatch"]


def tile_texture() -> Texture:
    """Square paving tiles with grout lines: the Ideal pattern (one tile per repeat)."""
    if "tile" not in _TEXTURES:
        base, grout = style.PASSAGE[Passage.IDEAL], style.IDEAL_GROUT
        _TEXTURES["tile"] = _texture("tile", lambda x, y: grout if (x < 4 or y < 4) else base)
    return _TEXTURES["tile"]


def _footprint_ring(footprint, segments: int = 64) -> np.ndarray:
    if footprint.is_circle:
        return circle_ring(footprint.center, footprint.radius, segments)
    return np.asarray(footprint.vertices, float)


_FONTS: dict[int, object] = {}


def _font(px: float | None = None):
    """The default font, rasterised for text about ``px`` pixels tall (None: Panda3D's
    default). Small text drawn from a bigger raster loses its thin strokes."""
    if px is None:
        return TextNode.get_default_font()
    key = max(6, int(round(px)))
    if key not in _FONTS:
        font = TextNode.get_default_font().make_copy()
        font.set_pixels_per_unit(key)
        _FONTS[key] = font
    return _FONTS[key]


def _label(parent: NodePath, text: str, pos, scale: float, fg=(1, 1, 1, 1), bg=(0, 0, 0, 0.62),
           font_px: float | None = None) -> NodePath:
    """A billboard text label always drawn on top; its text node is the holder's only
    child (raise it with ``set_z`` to lift the label towards the top of the image)."""
    tn = TextNode(f"label-{text}")
    tn.set_font(_font(font_px))
    tn.set_text(text)
    tn.set_align(TextNode.A_center)
    tn.set_text_color(*fg)
    tn.set_card_color(*bg)
    tn.set_card_as_margin(0.25, 0.25, 0.12, 0.08)
    tn.set_card_decal(True)
    holder = parent.attach_new_node(f"label-{text}")
    holder.set_pos(*pos)
    holder.set_billboard_point_eye()
    np_ = holder.attach_new_node(tn)
    np_.set_scale(scale)
    holder.set_bin("fixed", 50)
    holder.set_depth_test(False)
    holder.set_depth_write(False)
    holder.set_light_off(1)
    holder.set_transparency(TransparencyAttrib.M_alpha)
    return holder


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
    """

    def __init__(self, table, selected: str | None = None, labels: bool = True, software: bool = False,
                 px_per_inch: float | None = None):
        self.table = table
        self._px_per_inch = px_per_inch
        self.root = NodePath(f"table-{table.name}")
        self.root.set_bin(_solid_bin(), 0)
        self._static = self.root.attach_new_node("static")
        self._overlay = self.root.attach_new_node("overlay")
        self._movement = self.root.attach_new_node("movement")
        self._preview = self.root.attach_new_node("move-preview")
        self._tape = self.root.attach_new_node("tape")
        self._labels = labels
        self.selected: str | None = None
        #: Movement overlays shown for the selected model (names from ``drag.OVERLAYS``).
        self.movement: tuple[str, ...] = ()
        #: Those of ``movement`` with nothing to draw for the selected model.
        self.movement_empty: set[str] = set()
        self._movement_cache: dict = {}
        self._raised_cache: list = []
        self._model_labels: list[tuple[NodePath, float]] = []
        #: model id -> (holder at its position, figure node, figure radius)
        self._figures: dict[str, tuple[NodePath, NodePath, float]] = {}
        self._special = self.root.attach_new_node("special")
        #: The special move shown (:meth:`show_special`), and the fraction of it.
        self.special = None
        self.special_t = 1.0
        self._special_cache: tuple = (None, None, None)
        self._prone_labels: list[tuple[NodePath, float, float, float]] = []
        self._label_widths: dict[str, float] = {}
        self._pitch = -90.0
        self._lights()
        if software:
            # p3tinydisplay multiplies the lit colour by the vertex colour once more; a
            # white material makes the lighting see white and the colour count once.
            mat = Material("software-lighting")
            mat.set_ambient((1, 1, 1, 1))
            mat.set_diffuse((1, 1, 1, 1))
            self.root.set_material(mat)
        self._surface()
        for piece in table.terrain:
            self._terrain(piece)
        for model in table.models:
            self._model(model)
        self.set_camera_pitch(-90.0)
        self.select(selected)

    def _label_size(self, inches: float, min_px: float) -> float:
        """Label text height: ``inches``, but at least ``min_px`` pixels when known."""
        return inches if self._px_per_inch is None else max(inches, min_px / self._px_per_inch)

    def _text_px(self, inches: float) -> float | None:
        return None if self._px_per_inch is None else inches * self._px_per_inch

    def set_camera_pitch(self, pitch: float) -> None:
        """Place the model labels for a camera looking down at ``pitch`` degrees (-90 =
        straight down): seen from above a label sits beside its model, not on it."""
        self._pitch = pitch
        steep = max(0.0, min(1.0, (abs(pitch) - 60.0) / 25.0))
        for label, r in self._model_labels:
            label.set_z(0.2 + steep * (r + 0.05))
        # "PRONE": right of the id label seen from the side, below the base from above
        # (clear of the figure, the collision marks and, from above, the other labels)
        for label, r, side, size in self._prone_labels:
            label.set_x((1.0 - steep) * side)
            label.set_z((1.0 - steep) * 0.2 - steep * (r + 0.12 + 0.8 * size))

    # ---------------------------------------------------------------- static
    def _lights(self) -> None:
        amb = AmbientLight("ambient")
        amb.set_color((0.62, 0.62, 0.62, 1))
        sun = DirectionalLight("sun")
        sun.set_color((0.42, 0.42, 0.42, 1))
        sun_np = self.root.attach_new_node(sun)
        sun_np.look_at(Vec3(-0.35, 0.45, -1.0))
        self.root.set_light(self.root.attach_new_node(amb))
        self.root.set_light(sun_np)

    def _surface(self) -> None:
        w, d = self.table.width, self.table.depth
        mb = MeshBuilder("table")
        mb.quad([(0, 0, 0), (w, 0, 0), (w, d, 0), (0, d, 0)], (0, 0, 1), _rgba(style.TABLE))
        # table edge: a thin dark rim so the table reads against the background
        edge = (0.30, 0.24, 0.16, 1)
        for a, b, n in (((0, 0), (w, 0), (0, -1, 0)), ((w, 0), (w, d), (1, 0, 0)),
                        ((w, d), (0, d), (0, 1, 0)), ((0, d), (0, 0), (-1, 0, 0))):
            mb.quad([(a[0], a[1], -0.6), (b[0], b[1], -0.6), (b[0], b[1], 0), (a[0], a[1], 0)], n, edge)
        for i in range(0, int(math.floor(w)) + 1, 6):
            mb.ribbon((i, 0), (i, d), 0.0, 0.06, _rgba(style.GRID_MAJOR))
        for j in range(0, int(math.floor(d)) + 1, 6):
            mb.ribbon((0, j), (w, j), 0.0, 0.06, _rgba(style.GRID_MAJOR))
        surface = self._static.attach_new_node(mb.node())
        lines = LineSegs("grid")
        lines.set_thickness(1.0)
        lines.set_color(*_rgba(style.GRID_MINOR))
        for i in range(1, int(math.ceil(w))):
            if i % 6:
                lines.move_to(i, 0, 0)
                lines.draw_to(i, d, 0)
        for j in range(1, int(math.ceil(d))):
            if j % 6:
                lines.move_to(0, j, 0)
                lines.draw_to(w, j, 0)
        grid = surface.attach_new_node(lines.create())
        grid.set_light_off(1)
        grid.set_bin("background", 1)
        # the table and its grid are drawn first, without depth: everything stands on them
        surface.set_bin("background", 0)
        surface.set_depth_write(False)

    def _terrain(self, piece) -> None:
        h = style.terrain_draw_height(piece)
        node = self._static.attach_new_node(f"terrain-{piece.id}")
        ring = _footprint_ring(piece.footprint)
        smooth = piece.footprint.is_circle
        alpha = style.OBSCURING_ALPHA if piece.visibility is Visibility.OBSCURING else 1.0
        if piece.passage is Passage.DIFFICULT:
            tex, repeat, colour = hatch_texture(), HATCH_REPEAT, (1, 1, 1, alpha)
        elif piece.passage is Passage.IDEAL:
            tex, repeat, colour = tile_texture(), TILE_REPEAT, (1, 1, 1, alpha)
        else:
            tex, repeat, colour = None, 1.0, _rgba(style.PASSAGE[piece.passage], alpha)
        if piece.id.startswith(style.OBJECTIVE_PREFIX):
            tex, repeat, colour = None, 1.0, _rgba(style.OBJECTIVE, alpha)
        top = ring
        if piece.visibility is Visibility.ENHANCING:
            top = self._plateau(piece.footprint, ring, h)
            slope = MeshBuilder(f"slope-{piece.id}")
            slope.walls(ring, top, 0.0, h, _rgba(style.ENHANCING_SLOPE, alpha), smooth=smooth)
            node.attach_new_node(slope.node())
            mb = MeshBuilder(f"top-{piece.id}")
        else:
            mb = MeshBuilder(f"terrain-{piece.id}")
            mb.walls(ring, ring, 0.0, h, colour, smooth=smooth, uv_scale=repeat)
        mb.cap(top, h, colour, uv_scale=repeat)
        body = node.attach_new_node(mb.node())
        if tex is not None:
            body.set_texture(tex)
        if self._labels:
            # the piece's id hangs below its front (south) top edge; hidden by what
            # stands in front of it, unlike the model labels
            ring_y = ring[:, 1]
            front = ring[ring_y <= ring_y.min() + 1e-6].mean(axis=0)
            size = self._label_size(0.34, 10)
            label = _label(self._static, piece.id, (front[0], front[1], h), size, font_px=self._text_px(size),
                           fg=(0.95, 0.93, 0.85, 1), bg=(0.2, 0.17, 0.12, 0.6))
            label.get_child(0).set_z(-1.0 * size)
            label.set_depth_test(True)
            label.set_bin(_overlay_bin(), 5)  # before translucent terrain: seen through it
        if alpha < 1:
            # depth writes stay on: a pixel on an edge shared by two triangles is then
            # blended once (the second fails the depth test), not twice
            node.set_transparency(TransparencyAttrib.M_alpha)
            node.set_bin("transparent", 0)

    @staticmethod
    def _plateau(footprint, ring: np.ndarray, h: float) -> np.ndarray:
        """Top ring of an Enhancing mound: the footprint shrunk towards its centroid."""
        inset, inner = style.plateau_inset(footprint, h)
        if inset <= 0:
            return ring
        c = np.array(footprint.shape.centroid.coords[0])
        return c + (ring - c) * (1.0 - inset / inner)

    def ground(self, xy) -> float:
        """Drawn ground height (inches) at ``xy``: 0, or the top of raised ground."""
        return style.ground_height(self.table, xy[0], xy[1])

    def _model(self, model) -> None:
        r = model.radius
        colour = _rgba(style.PLAYER[model.player])
        # the holder stands at the model's position on the ground; its body turns to the
        # facing and its label floats above it, so moving the holder moves all of it
        holder = self._static.attach_new_node(f"model-{model.id}")
        gz = self.ground(model.position)
        holder.set_pos(model.position[0], model.position[1], gz)
        node = holder.attach_new_node("body")
        node.set_h(model.facing)  # local +x is the facing
        base = MeshBuilder(f"base-{model.id}")
        base.cylinder((0, 0), r, 0.0, style.BASE_HEIGHT, colour, segments=40)
        node.attach_new_node(base.node())
        marks = MeshBuilder(f"marks-{model.id}")
        z = style.BASE_HEIGHT + 0.006
        white = _rgba(style.MARK)
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
        shade = _rgba([min(1.0, c * 0.85 + 0.08) for c in style.PLAYER[model.player]])
        fig.cylinder((0, 0), fr, 0.0, body_h, shade, segments=20, top_radius=0.7 * fr)
        fig.sphere((0, 0, body_h + hr), hr, shade, segments=14, rings=7)
        fig.sphere((hr * 0.8, 0, body_h + hr * 1.05), hr * 0.38, white, segments=8, rings=4)  # the "face"
        figure.attach_new_node(fig.node())
        self._figures[model.id] = (holder, figure, fr)
        self._lay_down(model.id, model.prone)
        if self._labels:
            size = self._label_size(0.42, 12)
            label = _label(holder, model.id, (0, 0, style.model_top(model, gz) - gz),
                           size, bg=(0.05, 0.05, 0.08, 0.7), font_px=self._text_px(size))
            self._model_labels.append((label.get_child(0), r))
            self._label_widths[model.id] = label.get_child(0).node().get_width() * size

    def _lay_down(self, model_id: str, prone: bool) -> None:
        """Draw ``model_id``'s figure lying on its base (Prone) or standing."""
        _, figure, fr = self._figures[model_id]
        if prone:
            figure.set_r(90)
            figure.set_pos(0, 0, style.BASE_HEIGHT + fr)
        else:
            figure.set_r(0)
            figure.set_pos(0, 0, style.BASE_HEIGHT)

    def _place(self, model_id: str, xy, prone: bool) -> None:
        """Draw ``model_id`` at ``xy`` (on the drawn ground), Prone or standing."""
        holder = self._figures[model_id][0]
        holder.set_pos(float(xy[0]), float(xy[1]), self.ground(xy))
        self._lay_down(model_id, prone)

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
        sel = self.table.model(model_id)
        self.selected = model_id
        self._draw_movement()
        scene = self.table.scene()
        flat = self._overlay.attach_new_node("flat")
        flat.set_light_off(1)
        flat.set_transparency(TransparencyAttrib.M_alpha)  # depth writes on: see _terrain
        flat.set_two_sided(True)
        # front arc: the half-disc in front of the arc line, and the arc line itself
        c = np.asarray(sel.position, float)
        flat.set_z(self.ground(c))
        f = np.array([math.cos(math.radians(sel.facing)), math.sin(math.radians(sel.facing))])
        side = np.array([-f[1], f[0]])
        arc = MeshBuilder("arc")
        R = style.ARC_REACH
        if sel.has_trait("aware"):
            arc.cap(circle_ring(c, R, 64), ARC_Z, _rgba(style.ARC, style.ARC_ALPHA))
        else:
            t = np.linspace(-math.pi / 2, math.pi / 2, 33)
            half = [c + R * (math.cos(a) * f + math.sin(a) * side) for a in t]
            arc.cap(np.asarray(half), ARC_Z, _rgba(style.ARC, style.ARC_ALPHA))
            arc.ribbon(c - side * R, c + side * R, ARC_Z + 0.002, 0.05, _rgba(style.ARC, 0.95))
        flat.attach_new_node(arc.node()).set_bin(_overlay_bin(), 0)
        mb = MeshBuilder("zoc")
        for ext, holes in rings_of(zoc_region(scene, model_id)):
            mb.cap(ext, ZOC_Z, _rgba(style.ZOC, style.ZOC_ALPHA), holes=holes)
        flat.attach_new_node(mb.node()).set_bin(_overlay_bin(), 1)
        # selection ring
        ring = MeshBuilder("selected")
        ring.cap(circle_ring(c, sel.radius + 0.14, 48), RING_Z, _rgba(style.MARK, 0.95),
                 holes=[circle_ring(c, sel.radius + 0.04, 48)])
        flat.attach_new_node(ring.node()).set_bin(_overlay_bin(), 2)
        # LoS lines: depth-tested, plus a faint copy seen through whatever hides them
        lines = MeshBuilder("los")
        for other in self.table.models:
            if other.id == model_id:
                continue
            pm = scene.measure_pair(model_id, other.id)
            if not pm.in_arc:
                continue  # behind the front arc: no line (the arc overlay shows why)
            if pm.los.visible and pm.los.line is not None:
                colour = style.LOS_COVER if pm.cover.cover else style.LOS_CLEAR
                a, b = pm.los.line.a, pm.los.line.b
            else:
                colour = style.LOS_NONE
                a, b = sel.position, other.position
            lines.ribbon(a, b, LOS_Z + self.ground(a), style.LOS_WIDTH, _rgba(colour), z_end=LOS_Z + self.ground(b))
        gn = lines.node()
        solid = self._overlay.attach_new_node(gn)
        solid.set_light_off(1)
        solid.set_two_sided(True)
        ghost = self._overlay.attach_new_node(gn.make_copy())
        ghost.set_light_off(1)
        ghost.set_two_sided(True)
        ghost.set_color_scale(1, 1, 1, GHOST_ALPHA)
        ghost.set_transparency(TransparencyAttrib.M_alpha)
        ghost.set_depth_test(False)
        ghost.set_depth_write(False)
        ghost.set_bin("fixed", 40)

    # --------------------------------------------------------------- movement
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
        self.movement = tuple(n for n, on in zip(drag.OVERLAYS, (walk, run, charges)) if on)
        self._draw_movement()

    def _movement_data(self, kind: str):
        key = (kind, self.selected)
        if key not in self._movement_cache:
            fn = {"walk": drag.walk_region, "run": drag.run_region, "charges": drag.charge_lanes}[kind]
            try:
                self._movement_cache[key] = fn(self.table, self.selected)
            except ValueError:  # MoveError: a model without a Move value
                self._movement_cache[key] = None
        return self._movement_cache[key]

    def _raised(self) -> list:
        """``(footprint shape, plateau shape or None, height)`` of each Enhancing piece
        (raised ground; the plateau is where ``style.ground_height`` is flat)."""
        if not self._raised_cache:
            out = []
            for t in self.table.terrain:
                if t.visibility is not Visibility.ENHANCING:
                    continue
                h = style.terrain_draw_height(t)
                inset, _ = style.plateau_inset(t.footprint, h)
                shape = t.footprint.shape
                top = shape.buffer(-inset) if inset > 0 else None
                out.append((shape, None if top is None or top.is_empty else top, h))
            self._raised_cache.append(out)
        return self._raised_cache[0]

    def _ground_xy(self, x: float, y: float) -> float:
        # a little extra on slopes: a flat cell's chords run below the curved slope
        g = self.ground((x, y))
        return g + (SLOPE_LIFT if g > 0 else 0.0)

    @staticmethod
    def _areal(geom):
        """The polygons of ``geom`` plus its lines as 0.12" strips (a Walk or Run region
        may hold the leg directly away from an enemy as a line); points are dropped."""
        if geom is None or geom.is_empty:
            return None
        from shapely.ops import unary_union

        polys, lines = [], []

        def walk(g):
            if g.is_empty:
                return
            if g.geom_type in ("Polygon", "MultiPolygon"):
                polys.append(g)
            elif g.geom_type in ("LineString", "LinearRing", "MultiLineString"):
                lines.append(g.buffer(0.06, cap_style="flat"))
            elif hasattr(g, "geoms"):
                for part in g.geoms:
                    walk(part)

        walk(geom)
        if not polys and not lines:
            return None
        return unary_union(polys + lines)

    def _drape_cap(self, mb: MeshBuilder, geom, z: float, colour) -> None:
        """Fill ``geom`` (shapely) ``z`` inches above the drawn ground: flat on the table
        and on the plateaus of raised ground, cut into small cells that follow the
        surface on its slopes."""
        if geom is None or geom.is_empty:
            return
        rest = geom
        for shape, top, h in self._raised():
            if not rest.intersects(shape):
                continue
            import shapely

            if top is not None:
                for ext, holes in rings_of(rest.intersection(top)):
                    mb.cap(ext, z + h, colour, holes=holes)
            slope = rest.intersection(shape if top is None else shape.difference(top))
            if not slope.is_empty:
                x0, y0, x1, y1 = slope.bounds
                xs, ys = np.arange(x0, x1, SLOPE_CELL), np.arange(y0, y1, SLOPE_CELL)
                gx, gy = (a.ravel() for a in np.meshgrid(xs, ys))
                cells = shapely.box(gx, gy, gx + SLOPE_CELL, gy + SLOPE_CELL)
                for part in shapely.intersection(cells, slope):
                    for ext, holes in rings_of(part):
                        mb.cap(ext, z, colour, holes=holes, z_of=self._ground_xy)
            rest = rest.difference(shape)
            if rest.is_empty:
                return
        for ext, holes in rings_of(rest):
            mb.cap(ext, z, colour, holes=holes)

    def _drape_line(self, points, z: float, closed: bool = False) -> np.ndarray:
        """3D points (n, 3) of the polyline ``points`` (x, y), cut into pieces of at most
        :data:`DRAPE_STEP` inches, ``z`` above the drawn ground."""
        pts = [tuple(map(float, p[:2])) for p in points]
        if closed and pts and pts[0] != pts[-1]:
            pts.append(pts[0])
        out = []
        for a, b in zip(pts, pts[1:]):
            n = max(1, int(math.ceil(math.dist(a, b) / DRAPE_STEP)))
            for i in range(n):
                t = i / n
                out.append((a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t))
        if pts:
            out.append(pts[-1])
        return np.array([(x, y, z + self._ground_xy(x, y)) for x, y in out], float).reshape(-1, 3)

    def _outline(self, mb: MeshBuilder, geom, z: float, width: float, colour) -> None:
        for ext, holes in rings_of(geom):
            for ring in (ext, *holes):
                mb.polyline(self._drape_line(ring, z, closed=True), width, colour)

    def _dashes(self, mb: MeshBuilder, pts3: np.ndarray, width: float, colour) -> None:
        """Dashes (:data:`DASH`) along the 3D polyline ``pts3``, from its start."""
        on, off = DASH
        pts3 = np.asarray(pts3, float)
        seg = np.hypot(*(pts3[1:, :2] - pts3[:-1, :2]).T)
        cum = np.concatenate([[0.0], np.cumsum(seg)])
        total = float(cum[-1])

        def at(d):
            k = int(np.clip(np.searchsorted(cum, d, side="right") - 1, 0, len(seg) - 1))
            f = 0.0 if seg[k] <= 0 else (d - cum[k]) / seg[k]
            return pts3[k] + (pts3[k + 1] - pts3[k]) * f

        for s0 in np.arange(0.0, total, on + off):
            s1 = min(total, s0 + on)
            inner = [pts3[k] for k in range(1, len(pts3) - 1) if s0 < cum[k] < s1]
            mb.polyline([at(s0), *inner, at(s1)], width, colour)

    def _end_marker(self, mb: MeshBuilder, centre, radius: float, z: float, colour, dot: bool = True) -> None:
        """Where a charge ends in contact: a thin ring the size of the mover's base (and
        a dot at its centre)."""
        gz = z + self.ground(centre)
        mb.cap(circle_ring(centre, radius + 0.03, 40), gz, _rgba(style.CHARGE_BORDER),
               holes=[circle_ring(centre, radius - 0.07, 40)])
        mb.cap(circle_ring(centre, radius, 40), gz + 0.003, colour, holes=[circle_ring(centre, radius - 0.04, 40)])
        if dot:
            mb.cap(circle_ring(centre, 0.12, 16), gz + 0.003, _rgba(style.CHARGE_BORDER))
            mb.cap(circle_ring(centre, 0.08, 16), gz + 0.006, colour)

    def _cross(self, mb: MeshBuilder, centre, size: float, z: float, colour, border=None) -> None:
        """An x ``size`` inches across at ``centre`` with a dark border: where a charge
        that falls short stops, where a special move's bases touched."""
        c = np.asarray(centre, float)
        gz = z + self.ground(centre)
        h = size / 2 / math.sqrt(2)
        border = _rgba(style.CHARGE_BORDER) if border is None else border
        for width, col, dz in ((0.15, border, 0.0), (0.08, colour, 0.003)):
            for d in ((h, h), (h, -h)):
                d = np.asarray(d)
                mb.ribbon(c - d, c + d, gz + dz, width, col)

    def _arrow(self, mb: MeshBuilder, a, b, z: float, size: float, colour, border=None) -> None:
        """An arrowhead with its tip at ``b``, pointing from ``a`` (``border``: the colour
        of its outline, dark by default)."""
        a, b = np.asarray(a, float), np.asarray(b, float)
        d = b - a
        L = float(np.hypot(*d))
        if L < 1e-9:
            return
        u = d / L
        n = np.array([-u[1], u[0]])
        base = b - u * size
        gz = z + self.ground(b)
        border = _rgba(style.CHARGE_BORDER) if border is None else border
        for grow, col, dz in ((0.05, border, 0.0), (0.0, colour, 0.003)):
            tip = b + u * grow
            left, right = base - u * grow + n * (size * 0.6 + grow), base - u * grow - n * (size * 0.6 + grow)
            idx = [mb.vertex((p[0], p[1], gz + dz), (0, 0, 1), col) for p in (tip, left, right)]
            mb.triangle(*idx)

    def _draw_movement(self) -> None:
        self._movement.node().remove_all_children()
        self.movement_empty = set()
        if self.selected is None or not self.movement:
            return
        flat = self._movement.attach_new_node("movement-flat")
        flat.set_light_off(1)
        flat.set_transparency(TransparencyAttrib.M_alpha)  # depth writes on: see _terrain
        flat.set_two_sided(True)
        walk = self._areal(self._movement_data("walk")) if "walk" in self.movement else None
        if "walk" in self.movement and (walk is None or walk.is_empty):
            self.movement_empty.add("walk")
        if "charges" in self.movement and not self._movement_data("charges"):
            self.movement_empty.add("charges")
        if "run" in self.movement:
            run = self._areal(self._movement_data("run"))
            if run is None or run.is_empty:
                self.movement_empty.add("run")
            else:
                shown = run.difference(walk) if walk is not None and not walk.is_empty else run
                mb = MeshBuilder("run-region")
                self._drape_cap(mb, shown, RUN_Z, _rgba(style.RUN, style.RUN_ALPHA))
                flat.attach_new_node(mb.node()).set_bin(_overlay_bin(), -4)
                edge = MeshBuilder("run-edge")
                self._outline(edge, run, RUN_Z + 0.002, 0.05, _rgba(style.RUN_EDGE))
                flat.attach_new_node(edge.node()).set_bin(_overlay_bin(), -3)
        if walk is not None and not walk.is_empty:
            mb = MeshBuilder("walk-region")
            self._drape_cap(mb, walk, WALK_Z, _rgba(style.WALK, style.WALK_ALPHA))
            flat.attach_new_node(mb.node()).set_bin(_overlay_bin(), -2)
            edge = MeshBuilder("walk-edge")
            self._outline(edge, walk, WALK_Z + 0.002, 0.05, _rgba(style.WALK_EDGE))
            flat.attach_new_node(edge.node()).set_bin(_overlay_bin(), -1)
        if "charges" in self.movement:
            lanes = self._movement_data("charges") or []
            if lanes:
                self._draw_lanes(lanes)

    def _draw_lanes(self, lanes) -> None:
        r = self.table.model(self.selected).radius
        w = style.CHARGE_WIDTH
        mb = MeshBuilder("charge-lanes")
        # lanes that fall short first: those that reach are drawn over them
        for lane in sorted(lanes, key=lambda ln: bool(ln.reached)):
            path = [tuple(p) for p in lane.path]
            if len(path) < 2:
                path = path * 2
            if lane.reached:
                colour = _rgba(style.CHARGE)
                end = np.asarray(path[-1], float)
                prev = np.asarray(path[-2], float)
                last = float(np.hypot(*(end - prev)))
                head = min(0.34, 0.6 * r)
                arrow = last > head * 1.2 and math.dist(path[0], path[-1]) > r
                if arrow:  # the lane stops where the arrowhead begins; its tip is the end
                    u = (end - prev) / last
                    path = path[:-1] + [tuple(end - u * head)]
                pts = self._drape_line(path, LANE_Z)
                mb.polyline(pts - (0, 0, 0.003), w + 0.07, _rgba(style.CHARGE_BORDER))
                mb.polyline(pts, w, colour)
                self._end_marker(mb, tuple(end), r, LANE_Z + 0.004, colour, dot=not arrow)
                if arrow:
                    self._arrow(mb, prev, end, LANE_Z + 0.008, head, colour)
            else:
                pts = self._drape_line(path, LANE_Z)
                colour = _rgba(style.CHARGE_SHORT)
                self._dashes(mb, pts - (0, 0, 0.003), 0.7 * w + 0.05, _rgba(style.CHARGE_BORDER))
                self._dashes(mb, pts, 0.7 * w, colour)
                self._cross(mb, path[-1], 0.42, LANE_Z + 0.004, colour)
        gn = mb.node()
        solid = self._movement.attach_new_node(gn)
        ghost = self._movement.attach_new_node(gn.make_copy())
        for np_ in (solid, ghost):
            np_.set_light_off(1)
            np_.set_two_sided(True)
        solid.set_bin("fixed", 42)
        ghost.set_color_scale(1, 1, 1, GHOST_ALPHA)
        ghost.set_transparency(TransparencyAttrib.M_alpha)
        ghost.set_depth_test(False)
        ghost.set_depth_write(False)
        ghost.set_bin("fixed", 41)

    def set_move_preview(self, model_id: str | None, dest=None, path=(), legal: bool = True,
                         text: str | None = None) -> None:
        """Show a move of ``model_id`` being set up: a ghost base at ``dest`` ((x, y),
        inches), the ``path`` line (base-centre points from the start) and ``text`` by
        the ghost, white when ``legal``, warning red when not. ``model_id`` None clears.

        Raises:
            KeyError: no such model.
        """
        self._preview.node().remove_all_children()
        if model_id is None or dest is None:
            return
        m = self.table.model(model_id)
        colour = style.MOVE_OK if legal else style.WARNING
        dest = (float(dest[0]), float(dest[1]))
        pts = [tuple(map(float, p)) for p in path] or [tuple(m.position)]
        if math.dist(pts[-1], dest) > 1e-6:
            pts.append(dest)
        if len(pts) == 1:
            pts.append(dest)
        line = MeshBuilder("move-path")
        p3 = self._drape_line(pts, MOVE_Z)
        line.polyline(p3 - (0, 0, 0.003), 0.13, (0.05, 0.05, 0.06, 1))
        line.polyline(p3, 0.07, _rgba(colour))
        line.cap(circle_ring(pts[0], 0.1, 16), MOVE_Z + self.ground(pts[0]) + 0.002, _rgba(colour))
        lnp = self._preview.attach_new_node(line.node())
        lnp.set_light_off(1)
        lnp.set_two_sided(True)
        lnp.set_depth_test(False)
        lnp.set_depth_write(False)
        lnp.set_bin("fixed", 46)
        gz = self.ground(dest)
        ghost = MeshBuilder("ghost-base")
        ghost.cylinder(dest, m.radius, gz, gz + style.BASE_HEIGHT, _rgba(colour, style.GHOST_ALPHA), segments=40)
        top = gz + style.BASE_HEIGHT + 0.004
        ghost.cap(circle_ring(dest, m.radius + 0.03, 40), top, (0.05, 0.05, 0.06, 1),
                  holes=[circle_ring(dest, m.radius - 0.03, 40)])
        ghost.cap(circle_ring(dest, m.radius, 40), top + 0.003, _rgba(colour),
                  holes=[circle_ring(dest, m.radius - 0.06, 40)])
        gnp = self._preview.attach_new_node(ghost.node())
        gnp.set_light_off(1)
        gnp.set_transparency(TransparencyAttrib.M_alpha)
        gnp.set_depth_write(False)
        gnp.set_bin("fixed", 47)
        if text and self._labels:
            size = self._label_size(0.4, 12)
            # north of the ghost (up the screen from both cameras), clear of its base
            _label(self._preview, text, (dest[0], dest[1] + m.radius + 0.35, gz + style.BASE_HEIGHT + 0.15), size,
                   fg=_rgba(colour), bg=(0.03, 0.03, 0.05, 0.8), font_px=self._text_px(size))

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
        from shapely.geometry import LineString
        from shapely.ops import unary_union

        from .specials import Timeline, contact_point

        for mid in set(result.moves) | set(result.prone):
            self.table.model(mid)
        t = min(1.0, max(0.0, float(t)))
        if self._special_cache[0] is not result:
            self._special_cache = (result, Timeline.of(result, self.table), self._start_ghosts(result))
        tl, ghost_node = self._special_cache[1:]
        self._special.node().remove_all_children()
        self.special, self.special_t = result, t
        newly = set(result.prone)
        now = tl.positions(result, t)
        stale = False
        for m in self.table.models:
            xy = now.get(m.id, m.position)
            prone = (t >= 1.0) if m.id in newly else m.prone
            self._place(m.id, xy, prone)
            stale = stale or math.dist(xy, m.position) > 1e-6 or prone != m.prone
        for np_ in (self._overlay, self._movement):
            (np_.hide if stale else np_.show)()

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
                cut = self._cut(trail, length - r)
                pts = self._drape_line(cut[:-1] + [self._cut(cut, max(0.0, length - r - head))[-1]], SWEEP_Z + 0.006)
                lines.polyline(pts, 0.08, _rgba(style.SWEEP_LINE))
                self._arrow(lines, cut[-2], cut[-1], SWEEP_Z + 0.008, head, _rgba(style.SWEEP_LINE),
                            border=_rgba(style.SWEEP_LINE))
        if swept:
            region = unary_union(swept)
            fill = MeshBuilder("special-swept")
            self._drape_cap(fill, region, SWEEP_Z, _rgba(style.SWEEP, style.SWEEP_ALPHA))
            # the outline as a thin band (one triangulation, not a ribbon per segment)
            self._drape_cap(outlines, region.boundary.buffer(0.025, quad_segs=2), SWEEP_Z + 0.003,
                            _rgba(style.SWEEP_EDGE))
            flat = self._special.attach_new_node("special-flat")
            flat.set_light_off(1)
            flat.set_transparency(TransparencyAttrib.M_alpha)
            flat.set_two_sided(True)
            fnp = flat.attach_new_node(fill.node())
            fnp.set_bin(_overlay_bin(), -8)
            # one polygon (the union: nothing is blended twice) that writes no depth, so
            # the outline and the centre line just above it never fight it for pixels
            fnp.set_depth_write(False)
            flat.attach_new_node(outlines.node()).set_bin(_overlay_bin(), -7)
            flat.attach_new_node(lines.node()).set_bin(_overlay_bin(), -6)
        gnp = self._special.attach_new_node(ghost_node)
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
            self._cross(marks, p, 0.42, style.BASE_HEIGHT + 0.04, _rgba(style.COLLISION),
                        border=_rgba(style.COLLISION_BORDER))
        mnp = self._special.attach_new_node(marks.node())
        mnp.set_light_off(1)
        mnp.set_two_sided(True)
        mnp.set_depth_test(False)
        mnp.set_depth_write(False)
        mnp.set_bin("fixed", 48)
        self._prone_labels = []
        if t >= 1.0 and self._labels:
            size = self._label_size(0.34, 10)
            for mid in result.prone:
                m = self.table.model(mid)
                x, y = now.get(mid, m.position)
                gz = self.ground((x, y))
                label = _label(self._special, "PRONE", (x, y, style.model_top(m, gz)), size,
                               fg=(1, 1, 1, 1), bg=_rgba(style.PRONE_LABEL, 0.92), font_px=self._text_px(size))
                text = label.get_child(0)
                side = (self._label_widths.get(mid, 0.0) + text.node().get_width() * size) / 2 + 0.6 * size
                self._prone_labels.append((text, m.radius, side, size))
            self.set_camera_pitch(self._pitch)

    def _start_ghosts(self, result):
        """The ghost bases where the models moved by ``result`` started (a GeomNode)."""
        ghosts = MeshBuilder("special-ghosts")
        for mid, mv in result.moves.items():
            if mv.distance <= 1e-6:
                continue
            r = self.table.model(mid).radius
            start = tuple(map(float, mv.start[:2]))
            gz = self.ground(start)
            # lower than a base: a model standing on the spot hides it
            top = gz + GHOST_HEIGHT
            ghosts.cylinder(start, r, gz, top, _rgba(style.START_GHOST, style.START_GHOST_ALPHA), segments=40)
            top += 0.004
            player = style.PLAYER[self.table.model(mid).player]
            ghosts.cap(circle_ring(start, r + 0.02, 40), top, (0.05, 0.05, 0.06, 0.8),
                       holes=[circle_ring(start, r - 0.1, 40)])
            ghosts.cap(circle_ring(start, r, 40), top + 0.003, _rgba(player, 0.95),
                       holes=[circle_ring(start, r - 0.08, 40)])
        return ghosts.node()

    def clear_special(self) -> None:
        """Remove the special move drawn by :meth:`show_special`: the models go back to
        where the scene's table has them, and the selected model's overlays come back."""
        self._special.node().remove_all_children()
        self._prone_labels = []
        if self.special is not None:
            for m in self.table.models:
                self._place(m.id, m.position, m.prone)
        self.special, self.special_t = None, 1.0
        self._overlay.show()
        self._movement.show()

    @staticmethod
    def _cut(points, d: float) -> list:
        """The polyline ``points`` up to ``d`` inches along it."""
        out = [tuple(points[0])]
        left = d
        for a, b in zip(points, points[1:]):
            L = math.dist(a, b)
            if L >= left:
                f = 0.0 if L <= 1e-12 else left / L
                out.append((a[0] + (b[0] - a[0]) * f, a[1] + (b[1] - a[1]) * f))
                return out
            out.append(tuple(b))
            left -= L
        return out

    def set_tape(self, a, b, text: str | None) -> None:
        """Show the tape measure from ``a`` to ``b`` ((x, y), inches) with ``text`` at its
        middle; ``a`` None clears it; ``b`` None shows only the first end."""
        self._tape.node().remove_all_children()
        if a is None:
            return
        mb = MeshBuilder("tape")
        mb.cap(circle_ring(a, 0.1, 16), LOS_Z + 0.02, _rgba(style.TAPE))
        if b is not None:
            mb.cap(circle_ring(b, 0.1, 16), LOS_Z + 0.02, _rgba(style.TAPE))
            mb.ribbon(a, b, LOS_Z + 0.02, 0.07, _rgba(style.TAPE))
        np_ = self._tape.attach_new_node(mb.node())
        np_.set_light_off(1)
        np_.set_two_sided(True)
        np_.set_depth_test(False)
        np_.set_depth_write(False)
        np_.set_bin("fixed", 45)
        if b is not None and text:
            mid = ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2, 0.6)
            _label(self._tape, text, mid, 0.5, fg=_rgba(style.TAPE), bg=(0, 0, 0, 0.8), font_px=self._text_px(0.5))


# ---------------------------------------------------------------------- legend
def _text(parent: NodePath, s: str, x: float, y: float, size: float, colour=(1, 1, 1, 1), wrap: float | None = None):
    tn = TextNode("legend-text")
    tn.set_font(_font(size))
    tn.set_text(s)
    tn.set_text_color(*colour)
    if wrap:
        tn.set_wordwrap(wrap)
    np_ = parent.attach_new_node(tn)
    np_.set_pos(x, 0, -y)
    np_.set_scale(size)
    return np_, tn


def _card(parent: NodePath, x: float, y: float, w: float, h: float, colour, texture=None, uv=(1, 1)) -> NodePath:
    cm = CardMaker("swatch")
    cm.set_frame(x, x + w, -y - h, -y)
    if texture is not None:
        cm.set_uv_range((0, 0), uv)
    np_ = parent.attach_new_node(cm.generate())
    np_.set_color(*colour)
    if texture is not None:
        np_.set_texture(texture)
    if len(colour) == 4 and colour[3] < 1:
        np_.set_transparency(TransparencyAttrib.M_alpha)
    return np_


def build_legend(table, width: int, height: int, selected: str | None = None, hint: str | None = None,
                 overlays=(), move: bool | None = None, empty=(), special: str | None = None) -> NodePath:
    """The legend panel on the right of a ``width`` x ``height`` image, in pixel
    coordinates (x right, z up, origin at the top-left corner: parent it to a
    ``pixel2d``-style node).

    ``overlays``: the movement overlays shown (``"walk"``, ``"run"``, ``"charges"``) get
    entries (those in ``empty`` say "none"); ``move``: a dragged move is shown, legal
    (True) or not (False); ``special``: the name of the special move shown (its swept
    paths, start ghosts, collisions and Prone labels get entries). The text
    shrinks (down to 70 %) when the entries would not fit the height."""
    fs = font_px(height)
    pw = legend_width(width, height)
    x0 = width - pw
    root = NodePath("legend")
    root.set_depth_test(False)
    root.set_depth_write(False)
    root.set_transparency(TransparencyAttrib.M_alpha)
    panel = _card(root, x0, 0, pw, height, (0.07, 0.075, 0.09, 0.92))
    panel.set_bin("fixed", 0)
    content = root.attach_new_node("content")
    args = (selected, hint, tuple(overlays), move, tuple(empty), special)
    end = _legend_content(content, table, x0, pw, fs, *args)
    if end > height:
        content.remove_node()
        content = root.attach_new_node("content")
        _legend_content(content, table, x0, pw, fs * max(0.7, height / end), *args)
    content.set_bin("fixed", 10)
    for i, child in enumerate(content.get_children()):  # draw in creation order
        child.set_bin("fixed", 10 + i)
    return root


def _legend_content(root: NodePath, table, x0: float, pw: float, fs: float, selected, hint, overlays, move,
                    empty=(), special=None) -> float:
    """Draw the legend's entries under ``root`` with text ``fs`` pixels tall; returns the
    bottom (pixels from the top) of the last one."""
    pad = 0.6 * fs
    x = x0 + pad
    y = pad
    row = 1.42 * fs
    sw = 1.6 * fs  # swatch width

    title, tn = _text(root, table.name, x, y + fs, fs * 1.05, (1, 1, 1, 1), wrap=(pw - 2 * pad) / (fs * 1.05))
    y += (tn.get_num_rows() - 1) * fs * 1.05 * 1.2 + row * 1.15
    if selected:
        _text(root, f"selected: {selected}", x, y + fs * 0.2, fs * 0.95, (1.0, 1.0, 0.55, 1))
        y += row

    def header(s):
        nonlocal y
        y += 0.35 * fs
        _text(root, s, x, y + fs * 0.8, fs * 0.9, (0.75, 0.8, 0.9, 1))
        y += row * 0.95

    def entry(label, colour, texture=None, height_frac=0.8, uv=(1, 1), under=None):
        nonlocal y
        sh = fs * height_frac
        top = y + (fs - sh) / 2 - 0.1 * fs
        if under is not None:
            _card(root, x, y - 0.1 * fs, sw, fs, under[0], under[1], (2, 1.2))
        _card(root, x, top, sw, sh, colour, texture, uv)
        _text(root, label, x + sw + 0.45 * fs, y + fs * 0.72, fs * 0.85)
        y += row

    header("Passage (colour)")
    for p in (Passage.IMPASSABLE, Passage.DIFFICULT, Passage.NORMAL, Passage.IDEAL):
        tex = hatch_texture() if p is Passage.DIFFICULT else tile_texture() if p is Passage.IDEAL else None
        colour = (1, 1, 1, 1) if tex else _rgba(style.PASSAGE[p])
        entry(f"{p.value.title()} ({style.PASSAGE_PATTERN[p]})", colour, tex, uv=(1.6, 1.0))
    header("Visibility (material)")
    grey = style.PASSAGE[Passage.IMPASSABLE]
    entry("Blocking: opaque", _rgba(grey))
    entry("Obscuring: translucent", _rgba(style.PASSAGE[Passage.NORMAL], style.OBSCURING_ALPHA),
          under=((1, 1, 1, 1), hatch_texture()))
    entry("Enhancing: raised", _rgba(style.ENHANCING_SLOPE))
    entry("Open: flat, flush", _rgba(grey), height_frac=0.22)
    if any(t.id.startswith(style.OBJECTIVE_PREFIX) for t in table.terrain):
        entry("scenario objective", _rgba(style.OBJECTIVE))
    header("Models")
    entry("Player 1", _rgba(style.PLAYER[1]))
    entry("Player 2", _rgba(style.PLAYER[2]))
    entry("facing arrow, arc ticks", _rgba(style.MARK), height_frac=0.3)
    header("Selected model")
    entry("LoS, no cover", _rgba(style.LOS_CLEAR), height_frac=0.3)
    entry("LoS, target in cover", _rgba(style.LOS_COVER), height_frac=0.3)
    entry("no LoS: blocked", _rgba(style.LOS_NONE), height_frac=0.3)
    entry("(behind the arc: no line)", (0, 0, 0, 0), height_frac=0.01)
    entry("zone of control", _rgba(style.ZOC, 0.7))
    entry("front arc", _rgba(style.ARC, 0.5))
    entry("grid: 1\", bold 6\"", _rgba(style.GRID_MAJOR), height_frac=0.2)
    if selected and (overlays or move is not None):
        header("Movement")
        if "walk" in overlays:
            entry("Walk: none possible" if "walk" in empty else "Walk: centre can end",
                  _rgba(style.blend(style.WALK, style.TABLE, style.WALK_ALPHA)))
        if "run" in overlays:
            entry("Run: none possible" if "run" in empty else "Run: centre can end",
                  _rgba(style.blend(style.RUN, style.TABLE, style.RUN_ALPHA)))
        if "charges" in overlays and "charges" in empty:
            entry("Charge: no lanes", _rgba(style.CHARGE), height_frac=0.35)
        elif "charges" in overlays:
            entry("Charge: reaches target", _rgba(style.CHARGE), height_frac=0.35)
            entry("Charge: falls short", _rgba(style.CHARGE_SHORT), height_frac=0.35)
        if move is not None:
            entry("move: legal" if move else "move: illegal", _rgba(style.MOVE_OK if move else style.WARNING),
                  height_frac=0.35)
    if special:
        header("Special move")
        entry("path swept by a base", _rgba(style.blend(style.SWEEP, style.TABLE, style.SWEEP_ALPHA)))
        entry("where it started", _rgba(style.blend(style.START_GHOST, style.TABLE, style.START_GHOST_ALPHA)),
              under=((0.05, 0.05, 0.06, 1), None))
        entry("collision: x", _rgba(style.COLLISION), height_frac=0.35, under=(_rgba(style.COLLISION_BORDER), None))
        entry("knocked Prone: PRONE", _rgba(style.PRONE_LABEL), height_frac=0.6)
    if hint:
        _text(root, hint, x, y + fs * 0.6, fs * 0.7, (0.7, 0.7, 0.7, 1), wrap=(pw - 2 * pad) / (fs * 0.7))
        y += fs
    return y


def status_text(text: str, legal: bool | None, width: int, height: int) -> NodePath:
    """A line of text at the top-left of a ``width`` x ``height`` image in pixel
    coordinates (like :func:`build_legend`): a move's readout, white when ``legal``,
    warning red when not (None: neutral yellow), wrapped left of the legend."""
    fs = font_px(height)
    colour = (1, 1, 0.6, 1) if legal is None else _rgba(style.MOVE_OK if legal else style.WARNING)
    room = max(10 * fs, width - legend_width(width, height) - 1.6 * fs)
    tn = TextNode("status-text")
    tn.set_font(_font(fs))
    tn.set_text(text)
    tn.set_text_color(*colour)
    tn.set_card_color(0.02, 0.02, 0.03, 0.78)
    tn.set_card_as_margin(0.4, 0.4, 0.25, 0.25)
    tn.set_wordwrap(room / fs)
    root = NodePath("status")
    np_ = root.attach_new_node(tn)
    np_.set_pos(0.8 * fs, 0, -1.3 * fs)
    np_.set_scale(fs)
    root.set_depth_test(False)
    root.set_depth_write(False)
    root.set_transparency(TransparencyAttrib.M_alpha)
    root.set_bin("fixed", 60)
    return root
