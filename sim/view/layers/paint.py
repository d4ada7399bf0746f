"""How the layers of the 3D table stack and are painted: the heights (inches above the
drawn ground) of every flat overlay, the cull bins that order them, colours with alpha
and the textures of Difficult and Ideal terrain (Terrain p.60-62).

The heights are listed together so that the stacking order reads in one place: from
the Walk and Run region fills just above Open terrain, through the special move's
swept paths, the front arc, the zone of control and the selection ring, to the LoS
lines just above the base tops, the charge lanes and a dragged move's path.
"""

from __future__ import annotations

from panda3d.core import CullBinEnums, CullBinManager, PNMImage, SamplerState, Texture

from sim.geometry import Passage

from .. import style

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


def overlay_bin() -> str:
    """The name of the :data:`OVERLAY_BIN` cull bin, registered on first use."""
    mgr = CullBinManager.get_global_ptr()
    if mgr.find_bin(OVERLAY_BIN) < 0:
        mgr.add_bin(OVERLAY_BIN, CullBinEnums.BT_fixed, 25)
    return OVERLAY_BIN


def solid_bin() -> str:
    """The name of the :data:`SOLID_BIN` cull bin, registered on first use."""
    mgr = CullBinManager.get_global_ptr()
    if mgr.find_bin(SOLID_BIN) < 0:
        mgr.add_bin(SOLID_BIN, CullBinEnums.BT_unsorted, 20)
    return SOLID_BIN


def rgba(rgb, a: float = 1.0):
    """``(r, g, b, a)`` from an ``(r, g, b)`` colour of :mod:`sim.view.style` (0..1)."""
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
