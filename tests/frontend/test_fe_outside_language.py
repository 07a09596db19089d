"""Warp builtins of the constructs docs/LANGUAGE.md section 2 leaves outside
the language (tiles, meshes, volumes, hash grids, BVH, textures) are a located
error naming the construct, whatever their arguments (keywords included), in
the shapes released projects write them."""
from __future__ import annotations

import pytest

from frontend.fe_util import first_error, marker_loc

TILED = """
import warp as wp

@wp.kernel
def total(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    {line}
"""

CASES = [
    ("t = wp.tile_load(x, shape=256, offset=i * 256)", "tile_load", "tiles"),
    ("t = wp.tile(x[i])", "tile", "tiles"),
    ("wp.tile_atomic_add(out, wp.tile_sum(wp.tile(x[i])))", "tile_atomic_add", "tiles"),
    ("t = wp.tile_zeros(shape=(4, 4), dtype=float)", "tile_zeros", "tiles"),
    ("q = wp.mesh_query_point(wp.uint64(0), wp.vec3(), 1.0)", "mesh_query_point", "meshes"),
    ("v = wp.volume_sample_f(wp.uint64(0), wp.vec3(), 0)", "volume_sample_f", "volumes"),
    ("q = wp.hash_grid_query(wp.uint64(0), wp.vec3(), 1.0)", "hash_grid_query", "hash grids"),
    ("q = wp.bvh_query_aabb(wp.uint64(0), wp.vec3(), wp.vec3())", "bvh_query_aabb", "BVH"),
]


@pytest.mark.parametrize("line,name,construct", CASES, ids=[c[1] for c in CASES])
def test_outside_constructs_are_located_errors_naming_them(line, name, construct):
    src = TILED.format(line=line)
    err = first_error(src)
    assert err.rule == "outside-language", err.render()
    text = err.render()
    assert f"wp.{name}()" in text and construct in text and "outside verikern's language" in text
    assert (err.loc.line, err.loc.col) == marker_loc(src, f"wp.{name}(")

