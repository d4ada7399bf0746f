"""Offscreen rendering with Panda3D's software renderer (``p3tinydisplay``).

No ShowBase and no window: one ``TinyOffscreenGraphicsPipe`` per process, and a fresh
offscreen buffer, scene graph and cameras for each picture, so :func:`render_png` can be
called any number of times in one process and needs no X server or GPU.
"""

from __future__ import annotations

from pathlib import Path

from panda3d.core import (
    Camera,
    Filename,
    FrameBufferProperties,
    GraphicsEngine,
    GraphicsPipe,
    GraphicsPipeSelection,
    LColor,
    NodePath,
    OrthographicLens,
    PNMImage,
    WindowProperties,
    load_prc_file_data,
)

from . import style
from .camera import CameraSetup, setup_camera
from .scene3d import TableScene, build_legend, status_text

_PIPE = None


def _pipe():
    global _PIPE
    if _PIPE is None:
        load_prc_file_data(
            "bushido-offscreen",
            "load-display p3tinydisplay\n"
            "window-type offscreen\n"
            "audio-library-name null\n"
            "notify-level-x11display fatal\n"
            "notify-level-device fatal\n",
        )
        pipe = GraphicsPipeSelection.get_global_ptr().make_pipe("TinyOffscreenGraphicsPipe")
        if pipe is None or not pipe.is_valid():
            raise RuntimeError("Panda3D's software renderer (p3tinydisplay offscreen) is not available")
        _PIPE = pipe
    return _PIPE


def pixel2d(render2d: NodePath, width: int, height: int) -> NodePath:
    """A node under an NDC ``render2d`` whose units are pixels (origin top-left, z up)."""
    px = render2d.attach_new_node("pixel2d")
    px.set_pos(-1, 0, 1)
    px.set_scale(2.0 / width, 1.0, 2.0 / height)
    return px


def render_png(table, path, *, selected=None, width=1280, height=960, camera="oblique", overlays=(),
               move_to=None, special=None, special_t=None, before=None, markers=None,
               caption=None) -> tuple[Path, CameraSetup]:
    """Render ``table`` to the PNG ``path``; returns the path and the camera used.

    ``overlays``: movement overlays of ``selected`` (``"walk"``, ``"run"``,
    ``"charges"``); ``move_to``: ``(x, y)`` destination of a Walk of ``selected`` shown
    as in the window's drag (ghost base, path, readout at the top-left); ``special``: a
    :class:`~sim.rules.special.SpecialResult` played on ``table``, drawn on the table
    after it (:meth:`TableScene.show_special`) at fraction ``special_t`` (None: 1) of
    its animation, its description at the top-left; ``before``: called with the
    :class:`TableScene` just before it is drawn (scripts and tests change it there, e.g.
    ``clear_special``; the legend and the top-left line follow what it leaves);
    ``markers``: a game's markers on the models (model id ->
    :class:`~sim.view.play.state.ModelMarkers`, :meth:`TableScene.set_markers`);
    ``caption``: a line for the top-left when no move readout or special move takes it
    (a replay names its event there)."""
    path = Path(path)
    if special is not None:
        from .specials import special_table

        table = special_table(table, special)
    setup = setup_camera(table, camera, width, height)
    engine = GraphicsEngine.get_global_ptr()
    fb = FrameBufferProperties()
    fb.set_rgb_color(True)
    fb.set_color_bits(24)
    fb.set_depth_bits(24)
    buf = engine.make_output(_pipe(), f"offscreen-{width}x{height}", 0, fb,
                             WindowProperties.size(width, height), GraphicsPipe.BF_refuse_window)
    if buf is None:
        raise RuntimeError(f"could not open a {width}x{height} offscreen buffer")
    try:
        buf.set_clear_color(LColor(*style.BACKGROUND, 1))
        render = NodePath("render")
        cx, cy = table.width / 2, table.depth / 2
        ends = setup.project([(cx - 0.5, cy, 0), (cx + 0.5, cy, 0)], width, height)
        scene = TableScene(table, selected, software=True, px_per_inch=float(abs(ends[1, 0] - ends[0, 0])))
        scene.set_camera_pitch(setup.hpr[1])
        scene.set_movement_overlays(**{name: True for name in overlays})
        if special is not None:
            scene.show_special(special, 1.0 if special_t is None else special_t)
        if markers is not None:
            scene.set_markers(markers)
        if before is not None:
            before(scene)
        special = scene.special
        move = None
        readout = None
        if move_to is not None and selected is not None:
            from .drag import readout as judge

            text, move, route = judge(table, selected, move_to)
            readout = text
            scene.set_move_preview(selected, move_to, route, move, text.split(" — ")[0])
        scene.root.reparent_to(render)
        dr = buf.make_display_region()
        dr.set_camera(setup.node(render))
        render2d = NodePath("render2d")
        render2d.set_depth_test(False)
        render2d.set_depth_write(False)
        cam2d = Camera("cam2d")
        lens = OrthographicLens()
        lens.set_film_size(2, 2)
        lens.set_near_far(-1000, 1000)
        cam2d.set_lens(lens)
        dr2 = buf.make_display_region()
        dr2.set_sort(20)
        dr2.set_camera(render2d.attach_new_node(cam2d))
        px2d = pixel2d(render2d, width, height)
        build_legend(table, width, height, scene.selected, overlays=scene.movement if scene.selected else (),
                     move=move, empty=scene.movement_empty,
                     special=None if special is None else special.move,
                     markers=bool(scene.markers)).reparent_to(px2d)
        if readout is not None:
            status_text(readout, move, width, height).reparent_to(px2d)
        elif special is not None:
            from .specials import describe_special

            status_text(describe_special(special), None, width, height).reparent_to(px2d)
        elif caption:
            status_text(caption, None, width, height).reparent_to(px2d)
        engine.render_frame()
        engine.render_frame()
        img = PNMImage()
        if not buf.get_screenshot(img):
            raise RuntimeError("could not read back the offscreen buffer")
        img.remove_alpha()
        path.parent.mkdir(parents=True, exist_ok=True)
        if not img.write(Filename.from_os_specific(str(path))):
            raise RuntimeError(f"could not write {path}")
    finally:
        engine.remove_window(buf)
    return path, setup
