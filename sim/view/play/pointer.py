"""The mouse buttons of a screen, turned into the screen's own input methods.

A screen (the game window, the replay window) handles input through plain methods --
``press_ndc(x, y, button)`` and ``release_ndc(x, y, button)``, with x and y in
normalised device coordinates (-1..1, y up) -- which tests call directly. The window's
``mouse1``/``mouse1-up`` ... events reach them through :class:`MouseButtons`.
"""

from __future__ import annotations

from typing import Any


def mouse_ndc(base) -> tuple[float, float] | None:
    """Where the mouse is over ``base``'s window, in normalised device coordinates
    (x, y in -1..1, y up); None when it is outside the window or there is no mouse
    (an offscreen buffer)."""
    mw = getattr(base, "mouseWatcherNode", None)
    if mw is None or not mw.has_mouse():
        return None
    m = mw.get_mouse()
    return (m.x, m.y)


class MouseButtons:
    """Mixin: ``_mouse_down(button)`` / ``_mouse_up(button)`` (bound to the window's
    button events) call the screen's ``press_ndc`` / ``release_ndc`` at the mouse; a
    button let go outside the window is released where the pressed drag was last seen
    (``self._press["last"]``)."""

    base: Any
    _press: dict | None

    def press_ndc(self, x: float, y: float, button: str = "mouse1") -> None:  # pragma: no cover - the screen's
        """The screen's own: ``button`` pressed at (x, y), NDC."""
        raise NotImplementedError

    def release_ndc(self, x: float, y: float, button: str = "mouse1") -> None:  # pragma: no cover - the screen's
        """The screen's own: ``button`` let go at (x, y), NDC."""
        raise NotImplementedError

    def _mouse_down(self, button: str) -> None:
        m = mouse_ndc(self.base)
        if m is not None:
            self.press_ndc(m[0], m[1], button)

    def _mouse_up(self, button: str) -> None:
        m = mouse_ndc(self.base)
        if m is None and self._press is not None:
            m = self._press["last"]
        if m is not None:
            self.release_ndc(m[0], m[1], button)
