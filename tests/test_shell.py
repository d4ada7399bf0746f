"""The one ShowBase of the game's screens (sim.view.play.shell)."""

from types import SimpleNamespace

import pytest

from sim.view.play.shell import SOFTWARE_GL, software_gl


def _fake_base(renderer: str):
    gsg = SimpleNamespace(get_driver_renderer=lambda: renderer)
    win = SimpleNamespace(get_gsg=lambda: gsg)
    return SimpleNamespace(win=win, graphicsEngine=SimpleNamespace(render_frame=lambda: None))


@pytest.mark.parametrize("renderer", ["llvmpipe (LLVM 15.0.6, 256 bits)", "softpipe", "Mesa swrast",
                                      "GDI Generic"])
def test_a_cpu_opengl_renderer_is_recognised_so_multisampling_is_dropped(renderer):
    assert software_gl(_fake_base(renderer))


@pytest.mark.parametrize("renderer", ["NVIDIA GeForce RTX 4070/PCIe/SSE2", "AMD Radeon RX 7800 XT",
                                      "Mesa Intel(R) UHD Graphics 620 (KBL GT2)", "Apple M2"])
def test_a_gpu_renderer_keeps_multisampling(renderer):
    assert not software_gl(_fake_base(renderer))
    assert not any(s in renderer.lower() for s in SOFTWARE_GL)


def test_an_offscreen_base_asked_for_another_size_reopens_its_buffer_at_that_size():
    from sim.view.play.shell import get_base

    base = get_base(offscreen=True)
    before = (base.win.get_x_size(), base.win.get_y_size())
    other = (640, 480) if before != (640, 480) else (800, 600)
    try:
        base = get_base(offscreen=True, size=other)
        assert (base.win.get_x_size(), base.win.get_y_size()) == other
    finally:
        get_base(offscreen=True, size=before)
