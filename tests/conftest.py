"""Shared helpers for tests: build scenes in a few lines."""

from __future__ import annotations

import sys
from contextlib import contextmanager
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from sim.geometry import Body, Footprint, Passage, Piece, Scene, Size, Visibility, base_radius  # noqa: E402

SHARED = ROOT.parent / "shared"
#: The real BattleScribe catalogues (tests that need them skip when absent).
BSDATA = SHARED / "bsdata"

# CI runs the property tests derandomized (the same examples every run), so a CI result
# never depends on luck; developers' runs stay random and keep hunting for new cases.
import os  # noqa: E402

from hypothesis import settings as _hyp_settings  # noqa: E402

_hyp_settings.register_profile("ci", derandomize=True, database=None)
if os.environ.get("CI"):
    _hyp_settings.load_profile("ci")


def body(id, x, y, base=30, facing=0.0, size=None, **kw) -> Body:
    """A model's base at ``(x, y)`` with the default size of its base."""
    from sim.geometry import size_from_base

    return Body(id, (float(x), float(y)), base_radius(base), size or size_from_base(base), float(facing), **kw)


def piece(id, footprint, visibility="blocking", size="huge", passage="impassable") -> Piece:
    return Piece(id, footprint, Visibility(visibility), Size.parse(size), Passage(passage))


def rect(cx, cy, w, d, rot=0.0) -> Footprint:
    return Footprint.rect((cx, cy), w, d, rot)


def scene(*items) -> Scene:
    bodies = [i for i in items if isinstance(i, Body)]
    pieces = [i for i in items if isinstance(i, Piece)]
    return Scene(bodies, pieces)


@pytest.fixture
def default_table():
    from sim.table import load_table

    return load_table()


def make_table(models, terrain=(), move: float = 4):
    """A 24" x 24" table from short model and terrain entries (30 mm, facing 0, Move 4
    by default; any key given overrides)."""
    import yaml

    from sim.table import parse_table

    doc = {"format": "bushido-table/1", "name": "test", "table": {"width": 24, "depth": 24},
           "terrain": list(terrain), "models": []}
    for m in models:
        entry = {"player": 1, "base": 30, "facing": 0, "move": move}
        entry.update(m)
        doc["models"].append(entry)
    return parse_table(yaml.safe_dump(doc), "test.yaml")


def assert_witness_ok(s: Scene, a: str, b: str, line) -> None:
    """A witness sight line of ``a`` to ``b`` is right: it starts in ``a``'s base, ends in
    ``b``'s base inside ``a``'s front arc, and (unless the bases are in BtB, which always
    see each other) crosses no blocker's interior shrunk by 1e-5" (checked independently
    with shapely)."""
    import math

    import numpy as np
    from shapely.geometry import LineString, Point, Polygon

    A, B = s.bodies[a], s.bodies[b]
    pa, pb = np.asarray(line.a, float), np.asarray(line.b, float)
    assert math.dist(pa, A.center) <= A.radius + 1e-5
    assert math.dist(pb, B.center) <= B.radius + 1e-5
    if not A.aware:
        assert float((pb - np.asarray(A.center)) @ A.facing_vector) >= -1e-5, "witness outside the front arc"
    if s.btb(a, b):
        return
    seg = LineString([pa, pb]) if math.dist(pa, pb) > 1e-9 else Point(pa)
    for ob in s.blockers(s.los_threshold(A, B), (a, b)):
        if ob.is_disc:
            assert seg.distance(Point(ob.center)) >= ob.radius - 1e-5, ob.key
        else:
            assert not seg.intersects(Polygon(ob.vertices).buffer(-1e-5, join_style="mitre")), ob.key


def read_png(path):
    """A rendered PNG as an ``(height, width, 3)`` uint8 array, top row first (read with
    Panda3D, so the render tests need no other image library)."""
    import numpy as np
    from panda3d.core import Filename, PNMImage, Texture

    img = PNMImage(Filename.from_os_specific(str(path)))
    tex = Texture()
    tex.load(img)
    data = np.frombuffer(bytes(tex.get_ram_image_as("RGB")), np.uint8)
    return data.reshape(img.get_y_size(), img.get_x_size(), 3)[::-1]


def u8(rgb):
    """A 0-1 RGB colour as 0-255 integers."""
    return tuple(round(255 * c) for c in rgb)


@pytest.fixture(autouse=True)
def _profile_sources_restored():
    """Tables that deploy catalogue profiles register them as profile sources for the
    rest of the process (``models.profiles.add_profile_source``); each test starts and
    ends with the sources it found, so no test sees another's catalogues."""
    import threading

    from models import profiles

    snapshot = profiles.profile_sources()
    yield
    for th in threading.enumerate():  # the window's background catalogue loading registers sources too
        if th.name == "bushido-catalogues":
            th.join(60)
    profiles.restore_profile_sources(snapshot)


def set_active(g, player: int) -> None:
    """Make ``player`` the active player of the game ``g`` (a position set by hand,
    :meth:`sim.rules.game.Game.set_position`)."""
    if g.state.active != player:
        pos = g.position()
        pos["active"] = player
        g.set_position(pos)


def set_model(g, mid: str, **entry) -> None:
    """Change keys of model ``mid``'s entry in the position of ``g`` (``damage=7``,
    ``counters=1``, ``conditions={...}`` ...), a position set by hand."""
    pos = g.position()
    pos["models"][mid].update(entry)
    g.set_position(pos)


def feat_data(text: str, tmp_path, monkeypatch):
    """Make the game read the feat effects file ``text`` (format ``bushido-feat-effects/1``)
    instead of the repository's drafted and curated files, for one test (a generator for an
    autouse fixture: ``yield from feat_data(FIXTURE, tmp_path, monkeypatch)``)."""
    from sim.rules import feat_effects as fe

    path = tmp_path / "effects.yaml"
    path.write_text(text, encoding="utf-8")
    monkeypatch.setattr(fe, "DEFAULT_PATH", path)
    monkeypatch.setattr(fe, "CURATED_DIR", tmp_path / "curated")
    fe.reset_cache()
    yield
    fe.reset_cache()


@pytest.fixture
def repository_feat_data():
    """The repository's own feat data (drafted file and curated entries), read afresh
    before and after the test (``sim.rules.feat_effects`` caches it per process)."""
    from sim.rules import feat_effects as fe

    fe.reset_cache()
    yield
    fe.reset_cache()


# ---------------------------------------------------------------- loopback servers (networked play)
async def serve_loopback(store, body, timeout: float = 120.0, data: str | None = None):
    """Run ``await body(url)`` against a fresh loopback game server (port 0, its SQLite
    store at ``store``) on the running event loop, within ``timeout`` seconds; the server
    is stopped after."""
    import asyncio

    from sim.net.server import run_server

    loop = asyncio.get_running_loop()
    ready, stop = loop.create_future(), asyncio.Event()
    task = asyncio.create_task(run_server("127.0.0.1", 0, store, data, ready=ready, stop=stop))
    url = await asyncio.wait_for(ready, 10)
    try:
        return await asyncio.wait_for(body(url), timeout)
    finally:
        stop.set()
        await asyncio.wait_for(task, 10)


@contextmanager
def loopback_server(store, data: str | None = None):
    """``(url, loop)``: a loopback game server (port 0, its store at ``store``) on an event
    loop of its own thread, for tests whose own thread drives a window; stopped after."""
    import asyncio
    import concurrent.futures
    import threading

    from sim.net.server import run_server

    loop = asyncio.new_event_loop()
    ready: concurrent.futures.Future = concurrent.futures.Future()
    stop: dict = {}

    async def main():
        stop["event"] = asyncio.Event()
        fut = loop.create_future()
        task = asyncio.create_task(run_server("127.0.0.1", 0, store, data, ready=fut, stop=stop["event"]))
        try:
            ready.set_result(await asyncio.wait_for(fut, 10))
        except Exception as exc:  # noqa: BLE001 (handed to the test)
            ready.set_exception(exc)
        await task

    th = threading.Thread(target=lambda: loop.run_until_complete(main()), daemon=True)
    th.start()
    try:
        yield ready.result(timeout=15), loop
    finally:
        if "event" in stop:
            loop.call_soon_threadsafe(stop["event"].set)
        th.join(15)
        if not th.is_alive():
            loop.close()
