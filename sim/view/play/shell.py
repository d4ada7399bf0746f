"""One ShowBase for the game window, onscreen or offscreen (the same code path).

The game's screens (:mod:`sim.view.play`) are objects that take a ShowBase and attach
their nodes, DirectGUI widgets and event handlers to it; they never create one. This
module makes that ShowBase: an onscreen window, or -- for tests, screenshots and
machines without a display -- an offscreen buffer with Panda3D's software renderer
(``p3tinydisplay``), driven by calling the same handlers the window's events call.
Only one ShowBase may exist in a process: :func:`get_base` returns the one there is.
"""

from __future__ import annotations

from pathlib import Path

from panda3d.core import Filename, PNMImage, load_prc_file_data

from .. import style

_BASE = None


def get_base(offscreen: bool = True, size: tuple[int, int] = (1280, 960), title: str = "Bushido"):
    """The process's ShowBase, made on the first call.

    Args:
        offscreen: True: an offscreen buffer rendered by the software renderer (no X
            server, no GPU); False: an onscreen window.
        size: (width, height) pixels.
        title: the window title.

    Raises:
        RuntimeError: no window or buffer could be opened, or a ShowBase of the other
            kind already exists in this process.
    """
    global _BASE
    if _BASE is not None:
        if _BASE.bushido_offscreen != offscreen:
            raise RuntimeError("a ShowBase of the other kind (onscreen/offscreen) already exists in this process")
        if offscreen and (_BASE.win.get_x_size(), _BASE.win.get_y_size()) != tuple(size):
            _resize_offscreen(_BASE, size)
        return _BASE
    from direct.showbase.ShowBase import ShowBase

    prc = (f"win-size {size[0]} {size[1]}\nwindow-title {title}\naudio-library-name null\n"
           "notify-level-x11display fatal\nnotify-level-device fatal\n")
    if offscreen:
        prc += "load-display p3tinydisplay\naux-display p3tinydisplay\n"
    else:
        prc += "framebuffer-multisample 1\nmultisamples 4\n"
    load_prc_file_data("bushido-play", prc)
    if offscreen:
        from panda3d.core import GraphicsPipeSelection

        base = ShowBase(windowType="none")
        pipe = GraphicsPipeSelection.get_global_ptr().make_pipe("TinyOffscreenGraphicsPipe")
        if pipe is None or not pipe.is_valid():
            raise RuntimeError("Panda3D's software renderer (p3tinydisplay offscreen) is not available")
        base.pipe = pipe
        base.open_default_window(type="offscreen")
    else:
        base = ShowBase(windowType="onscreen")
        if base.win is not None and software_gl(base):
            _drop_multisampling(base, size)
    if base.win is None:
        raise RuntimeError("could not open a window" if not offscreen else "could not open an offscreen buffer")
    base.disable_mouse()
    base.set_background_color(*style.BACKGROUND, 1)
    base.bushido_offscreen = offscreen
    _BASE = base
    return base


#: OpenGL renderers that draw on the CPU (Mesa's llvmpipe/softpipe, Windows' GDI
#: Generic): 4x multisampling costs them about 60% of the frame rate (19.7 against
#: 47.5 frames per second under Xvfb, benchmarks/game_window_bench.py).
SOFTWARE_GL = ("llvmpipe", "softpipe", "swrast", "software rasterizer", "gdi generic")


def software_gl(base) -> bool:
    """Whether the window's OpenGL renderer draws on the CPU (:data:`SOFTWARE_GL`)."""
    gsg = base.win.get_gsg()
    if gsg is None:
        base.graphicsEngine.render_frame()
        gsg = base.win.get_gsg()
    name = (gsg.get_driver_renderer() if gsg is not None else "").lower()
    return any(s in name for s in SOFTWARE_GL)


def _drop_multisampling(base, size) -> None:
    """Reopen the onscreen window without multisampling (a software OpenGL renderer)."""
    from panda3d.core import FrameBufferProperties, WindowProperties

    fb = FrameBufferProperties(FrameBufferProperties.get_default())
    fb.set_multisamples(0)
    props = WindowProperties(WindowProperties.get_default())  # the title and the rest from the config
    props.set_size(*size)
    base.open_main_window(props=props, fbprops=fb)


def _resize_offscreen(base, size) -> None:
    """Reopen the offscreen buffer at ``size`` (a buffer cannot be resized); the scene
    graph, the cameras and the DirectGUI widgets are kept, display regions made on the
    old buffer are not (screens are built after :func:`get_base`).

    Raises:
        RuntimeError: the new buffer could not be opened.
    """
    from panda3d.core import WindowProperties

    props = WindowProperties.size(*size)
    if not base.open_main_window(type="offscreen", props=props, keepCamera=True) or base.win is None:
        raise RuntimeError(f"could not open a {size[0]}x{size[1]} offscreen buffer")
    base.adjustWindowAspectRatio(base.getAspectRatio())
    base.graphicsEngine.render_frame()


def screenshot(base, path) -> Path:
    """Render two frames and write what the ShowBase shows to the PNG ``path``
    (parent folders are created).

    Raises:
        RuntimeError: the frame could not be read back or written.
    """
    path = Path(path)
    base.graphicsEngine.render_frame()
    base.graphicsEngine.render_frame()
    img = PNMImage()
    if not base.win.get_screenshot(img):
        raise RuntimeError("could not read back the frame")
    img.remove_alpha()
    path.parent.mkdir(parents=True, exist_ok=True)
    if not img.write(Filename.from_os_specific(str(path))):
        raise RuntimeError(f"could not write {path}")
    return path


def mouse_ray(base, ndc: tuple[float, float]):
    """The ray under the point ``ndc`` (x, y in -1..1, y up) of the window, in table
    coordinates: ``(origin, direction)`` as two 3-tuples (inches)."""
    from panda3d.core import Point2, Point3

    near, far = Point3(), Point3()
    base.camLens.extrude(Point2(*ndc), near, far)
    o = base.render.get_relative_point(base.camera, near)
    f = base.render.get_relative_point(base.camera, far)
    return (o.x, o.y, o.z), (f.x - o.x, f.y - o.y, f.z - o.z)
