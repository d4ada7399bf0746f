"""MeshBuilder.cap on rings with near-coincident vertices (issue 12): Panda3D's
Triangulator failed ("add_segment: error") and crashed the game window on a click at an
ordinary position of a greedy game (seed 0, action 15: masunagi's ZoC had three vertices
within 4e-14" of each other)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("panda3d.core")

from shapely.geometry import Polygon  # noqa: E402

from sim.view.mesh import DISTINCT, MeshBuilder, circle_ring, distinct_ring  # noqa: E402

#: A piece of that ZoC region's exterior (inches), around the three coincident vertices.
ZOC_PIECE = [
    (11.446875434030545, 12.8285055879417), (11.46022211412057, 12.905424400597408),
    (11.477326944798953, 12.981595670622616), (11.498148719030384, 13.056835894756018),
    (11.522637275336967, 13.130963812707412), (11.550733618641614, 13.203800843829613),
    (11.582370062392357, 13.275171517334881), (11.617470391625176, 13.344903895019405),
    (11.655950046572519, 13.412829985477508), (11.697716326375202, 13.478786148807657),
    (11.742668612406888, 13.54261349083531), (11.77354103249108, 13.582172841262345),
    (12.05, 13.10000000000004), (12.05, 13.1), (12.050000000000024, 13.1), (12.55, 13.1),
    (12.55, 13.401199773247997), (12.72271546234301, 13.105116123517124),
    (12.716607317482467, 13.101655902193963), (12.692118642978699, 13.086148620089006),
    (12.668420372423878, 13.069458414879222), (12.645569597027492, 13.051625494730851),
    (12.623621366308965, 13.03269282071051), (12.602628555478535, 13.01270600328822),
    (12.582641738056244, 12.991713192457789), (12.563709064035903, 12.969764961739262),
    (12.545876143887533, 12.946914186342877),
]


def _area(mb: MeshBuilder) -> float:
    """Total area of the triangles ``mb`` holds (from its vertex and index arrays)."""
    from panda3d.core import GeomVertexReader

    node = mb.node()
    total = 0.0
    for i in range(node.get_num_geoms()):
        geom = node.get_geom(i)
        reader = GeomVertexReader(geom.get_vertex_data(), "vertex")
        pts = []
        while not reader.is_at_end():
            v = reader.get_data3()
            pts.append((v[0], v[1]))
        for p in range(geom.get_num_primitives()):
            prim = geom.get_primitive(p).decompose()
            for k in range(prim.get_num_primitives()):
                a, b, c = (pts[prim.get_vertex(prim.get_primitive_start(k) + j)] for j in range(3))
                total += abs((b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])) / 2
    return total


def test_distinct_ring_drops_near_coincident_vertices_only():
    ring = np.asarray(ZOC_PIECE)
    out = distinct_ring(ring)
    assert len(out) == len(ring) - 2
    steps = np.hypot(*np.diff(np.vstack([out, out[:1]]), axis=0).T)
    assert steps.min() > DISTINCT
    circle = circle_ring((3.0, 4.0), 1.0, 48)
    assert distinct_ring(circle) is circle or np.array_equal(distinct_ring(circle), circle)
    closed = np.vstack([circle, circle[:1] + 1e-12])  # a closing vertex repeated
    assert len(distinct_ring(closed)) == 48


def test_cap_of_a_ring_with_coincident_vertices_covers_its_area():
    mb = MeshBuilder("zoc")
    mb.cap(np.asarray(ZOC_PIECE), 0.1, (1, 1, 1, 1))
    assert _area(mb) == pytest.approx(Polygon(ZOC_PIECE).area, rel=1e-5)  # float32 vertices


def test_cap_skips_a_ring_that_collapses_to_a_point():
    mb = MeshBuilder("dot")
    mb.cap(np.asarray([(1.0, 1.0), (1.0, 1.0 + 1e-12), (1.0 + 1e-12, 1.0)]), 0.0, (1, 1, 1, 1))
    outer = circle_ring((0.0, 0.0), 2.0, 32)
    mb.cap(outer, 0.0, (1, 1, 1, 1), holes=[np.asarray([(0.0, 0.0), (0.0, 1e-12), (1e-12, 0.0)])])
    assert _area(mb) == pytest.approx(Polygon(outer).area, rel=1e-5)  # float32 vertices
