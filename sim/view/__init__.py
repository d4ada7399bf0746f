"""The 3D view of a table (Panda3D): an onscreen window or offscreen software rendering.

Both are configurations of one scene builder (:class:`sim.view.scene3d.TableScene`).
This module imports Panda3D only inside its functions, so it can be imported on
machines without a display (or without Panda3D at all).

Coordinates are table inches (x right, y away from player 1, z up); facings in degrees.
See ``docs/view.md`` for the palette and the controls.
"""

from __future__ import annotations

import os
import sys

import numpy as np

CAMERAS = ("oblique", "top")

__all__ = ["CAMERAS", "has_display", "project_points", "render_png", "run_interactive"]


def has_display() -> bool:
    """True when an onscreen window can be opened (Linux/BSD: ``DISPLAY`` or
    ``WAYLAND_DISPLAY`` is set; Windows and macOS: always)."""
    if sys.platform.startswith(("win", "darwin")):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def _check(table, selected, camera, width, height, overlays=(), move_to=None, special=None, special_t=None) -> None:
    from .drag import OVERLAYS

    if special_t is not None:
        if special is None:
            raise ValueError("special_t needs a special move (special=...)")
        if not 0.0 <= float(special_t) <= 1.0:
            raise ValueError(f"special_t must be between 0 and 1, not {special_t}")
    if special is not None:
        for mid in set(special.moves) | set(special.prone):
            table.model(mid)  # KeyError naming the known ids

    unknown = [o for o in overlays if o not in OVERLAYS]
    if unknown:
        raise ValueError(f"unknown overlay {unknown[0]!r} (expected some of: {', '.join(OVERLAYS)})")
    if move_to is not None and selected is None:
        raise ValueError("move_to needs a selected model (the one that moves)")
    if camera not in CAMERAS:
        raise ValueError(f"unknown camera {camera!r} (expected one of: {', '.join(CAMERAS)})")
    if int(width) < 64 or int(height) < 64:
        raise ValueError(f"image size must be at least 64x64 pixels, not {width}x{height}")
    if selected is not None:
        table.model(selected)  # KeyError naming the known ids


def render_png(table, path, *, selected: str | None = None, width: int = 1280, height: int = 960,
               camera: str = "oblique", return_projector: bool = False, overlays=(), move_to=None,
               special=None, special_t: float | None = None, markers=None, caption: str | None = None):
    """Render ``table`` offscreen with the software renderer and write a PNG to ``path``.

    Works headless (no X server, no GPU) and can be called repeatedly in one process.

    Args:
        table: a :class:`sim.table.Table`.
        path: output PNG file (parent folders are created).
        selected: id of the model whose LoS lines, ZoC and front arc are drawn.
        width, height: image size in pixels.
        camera: ``"oblique"`` (3/4 view from player 1's side) or ``"top"``
            (orthographic, straight down, +y up).
        return_projector: also return a function mapping table points (n, 3) in inches
            to pixel coordinates (n, 2) of this image (see :func:`project_points`).
        overlays: movement overlays of ``selected`` to draw, any of ``"walk"`` (where
            its base centre can end a Walk: translucent green), ``"run"`` (a Run:
            translucent blue) and ``"charges"`` (charge lanes: orange when they reach the
            target, dashed grey when they fall short); ignored without ``selected``.
        move_to: ``(x, y)`` inches: show a Walk of ``selected`` to there as the window's
            drag does (ghost base, path, readout line at the top-left).
        special: a :class:`~sim.rules.special.SpecialResult` played on ``table``
            (:func:`sim.rules.special.special_move`): the models are drawn where it
            leaves them (the newly Prone ones lying down, labelled "PRONE"), with the
            area each moved base swept (translucent orange, an arrow along its centre),
            a faint ghost base where each started, an x where bases touched, its
            description at the top-left and legend entries.
        special_t: draw the frame at fraction ``special_t`` (0..1) of the move's
            animation instead (models along their paths, the swept area so far; a model
            pushed by another starts when it is hit). None: the end.
        markers: a game's markers on the models, model id ->
            :class:`~sim.view.play.state.ModelMarkers` (as
            :func:`sim.view.play.state.model_markers` reads them off a game): condition
            tokens right of each base (p.43-45), a wounds bar below it (green: wounds
            left, p.38), Ki pips (p.46) and activation counter discs (p.24). Ids not on
            ``table`` are skipped (a killed model is not on the table).
        caption: a line of text at the top-left (when no ``move_to`` readout or
            ``special`` description takes it), e.g. the event a replay shows.

    Returns:
        The PNG's :class:`~pathlib.Path`, or ``(path, projector)`` with ``return_projector``.

    Raises:
        ValueError: unknown camera or overlay, a too small image, ``move_to`` without
            ``selected``, ``special_t`` without ``special`` or outside 0..1.
            KeyError: unknown ``selected``, a model of ``special`` not on ``table``.
        RuntimeError: Panda3D's software renderer cannot open an offscreen buffer.
    """
    if isinstance(overlays, str):
        overlays = (overlays,)
    overlays = tuple(overlays or ())
    _check(table, selected, camera, width, height, overlays, move_to, special, special_t)
    from .offscreen import render_png as _render

    out, setup = _render(table, path, selected=selected, width=int(width), height=int(height), camera=camera,
                         overlays=overlays, move_to=move_to, special=special,
                         special_t=None if special_t is None else float(special_t), markers=markers,
                         caption=caption)
    if return_projector:
        return out, lambda points: setup.project(points, int(width), int(height))
    return out


def project_points(table, points, camera: str = "oblique", width: int = 1280, height: int = 960) -> np.ndarray:
    """Pixel coordinates of table points in the image :func:`render_png` makes with the
    same ``camera``, ``width`` and ``height``.

    Args:
        points: ``(n, 3)`` (or one ``(3,)``) table points ``(x, y, z)`` in inches.

    Returns:
        ``(n, 2)`` float array ``(column, row)``: x to the right and y down from the
        image's top-left corner; NaN for points behind the camera. Needs Panda3D (no
        window).
    """
    _check(table, None, camera, width, height)
    from .camera import setup_camera

    return setup_camera(table, camera, int(width), int(height)).project(points, int(width), int(height))


def run_interactive(table, *, selected: str | None = None) -> None:
    """Open a window on ``table`` and run until it is closed or ``escape`` is pressed.

    Controls: left-drag orbit, right- or middle-drag pan, wheel zoom, click a model to
    select it (click the table to clear); press on the selected model's base and drag to
    set up a Walk (or ``m``: move mode, then click destinations): a ghost base, the path
    and a readout show whether it is legal; ``enter`` commits it (the model moves in the
    in-memory table), ``escape`` cancels it (``escape`` with nothing to cancel quits).
    ``w``, ``r``, ``c`` toggle the walk region, run region and charge lanes of the
    selected model; ``s`` plays the next special move (``shift-s``: the previous one,
    in the order of :data:`sim.rules.special.MOVES`) of the selected model against the
    nearest enemy (in base contact if any) as a 1.5 s animation and leaves the swept
    paths drawn: ``enter`` commits it to the in-memory table, ``escape`` cancels it,
    ``x`` dismisses the drawing (cancelling the move if it was not committed);
    ``t`` toggles the tape measure (then click two points or models),
    ``l`` toggles the legend, ``v`` (or ``home``) resets the camera.

    Raises:
        KeyError: unknown ``selected``. RuntimeError: no window can be opened.
    """
    if selected is not None:
        table.model(selected)
    from .app import TableApp

    app = TableApp(table, selected=selected)
    try:
        app.run()
    finally:
        app.close()
