"""A generic kernel whose own body uses tiles where Warp always builds them
(nvalchemi's `_ewald_recip_fill_sf_fp32_nostore`: `wp.static(BLOCK)` of a
setting read through a helper, then `wp.tile_reduce`) is the located error
naming tiles, as a kernel with concrete types is -- not an `unknown` whose
reason is the typing search's first refusal (check/outside_language.py).
A tile call in a branch Warp may drop when it builds the module is left to
the enumeration."""
from __future__ import annotations

import ast

from frontend.fe_util import compile_text, marker_loc
from verikern.frontend.check.outside_language import unconditional_outside_call
from verikern.frontend.scan.factories import collect_calls
from verikern.frontend.scan.module import ModuleInfo, scan_module

HEAD = """
import os
from typing import Any
import warp as wp


def _env_int(name, default):
    value = int(os.environ.get(name, default))
    return value if value > 0 else default


BLOCK = _env_int("TILE_DIM", 128)
USE_TILES = False
"""

# the shape of nvalchemi's tiled Ewald fills: a setting no proof can read comes first
FILL = HEAD + """
@wp.kernel
def fill(positions: wp.array(dtype=Any), out: wp.array(dtype=wp.float64)):
    k, lane = wp.tid()
    block = wp.static(BLOCK)
    acc = wp.float64(0.0)
    for start in range(0, positions.shape[0], block):
        acc += wp.float64(positions[start + lane][0])
    total = wp.tile_reduce(wp.add, wp.tile(acc))
    if lane == 0:
        wp.tile_store(out, total, k)
"""

UNDER_LANE = HEAD + """
@wp.kernel
def lane0(x: wp.array(dtype=Any), out: wp.array(dtype=Any)):
    k, lane = wp.tid()
    if lane == 0:
        wp.tile_store(out, wp.tile(x[k]), k)
"""

UNDER_STATIC = HEAD + """
@wp.kernel
def maybe(x: wp.array(dtype=Any), out: wp.array(dtype=Any)):
    i = wp.tid()
    if wp.static(USE_TILES):
        t = wp.tile(x[i])
    out[i] = x[i] + x[i]
"""

UNDER_CONSTANT = UNDER_STATIC.replace("if wp.static(USE_TILES):", "if USE_TILES:")


def _kernels(src: str):
    return compile_text(src, "tiled.py").kernels


def _outside_call(src: str, name: str):
    info = ModuleInfo("tiled.py", src)
    tree = ast.parse(src)
    collect_calls(tree, info)
    scan_module(tree, info)
    (d,) = [d for d in info.kernels if d.node.name == name]
    return unconditional_outside_call(info, d.node)


def test_a_generic_kernel_using_tiles_is_the_located_tile_error_not_an_unknown():
    (k,) = _kernels(FILL)
    assert k.name == "fill[...]" and not k.unknown and k.mir is None and k.opaque is None
    assert k.error is not None and k.error.rule == "outside-language", k.error.render()
    assert k.error.render().startswith(
        "tiled.py:22:13: error: wp.tile_reduce() uses tiles, which are outside verikern's language "
        "(docs/LANGUAGE.md section 2)"), k.error.render()
    assert (k.error.loc.line, k.error.loc.col) == marker_loc(FILL, "wp.tile_reduce(")


def test_a_tile_call_under_a_run_time_test_is_always_built():
    (k,) = _kernels(UNDER_LANE)
    assert k.name == "lane0[...]" and not k.unknown
    assert k.error is not None and k.error.rule == "outside-language"
    assert (k.error.loc.line, k.error.loc.col) == marker_loc(UNDER_LANE, "wp.tile_store(")


def test_a_tile_call_in_a_branch_warp_may_drop_is_left_to_the_enumeration():
    for src in (UNDER_STATIC, UNDER_CONSTANT):
        assert _outside_call(src, "maybe") is None
        names = [k.name for k in _kernels(src)]    # the typings were enumerated (verikern still
        assert any(n != "maybe[...]" for n in names), names   # checks the dropped branch)


def test_the_first_always_built_call_is_named_and_nested_functions_are_not_read():
    src = HEAD + """
@wp.kernel
def two(x: wp.array(dtype=Any), out: wp.array(dtype=Any)):
    i = wp.tid()
    f = lambda: wp.tile_zeros(shape=4, dtype=float)
    if wp.static(USE_TILES):
        t = wp.tile_load(x, shape=4)
    a = wp.tile(x[i]) if i > 0 else wp.tile(x[0])
    q = wp.mesh_query_point(wp.uint64(0), wp.vec3(), 1.0)
"""
    call, name, what = _outside_call(src, "two")
    assert (name, what) == ("tile", "tiles")
    assert (call.lineno, call.col_offset + 1) == marker_loc(src, "wp.tile(x[i])")


def test_a_func_of_the_module_shadowing_a_warp_tile_name_is_no_tile():
    src = HEAD + """
from warp import tile_sum


@wp.func
def tile_sum(v: Any):
    return v + v


@wp.kernel
def own(x: wp.array(dtype=Any), out: wp.array(dtype=Any)):
    i = wp.tid()
    out[i] = tile_sum(x[i])
"""
    assert _outside_call(src, "own") is None
    assert _outside_call(src.replace("out[i] = tile_sum(x[i])", "out[i] = wp.tile_sum(x[i])"),
                         "own")[1:] == ("tile_sum", "tiles")
