"""The struct typing search (check/generic_struct_search.py) without real Warp: a
kernel whose found typing reaches a tile through a func (warpSPHCore's
`*_KernelTiled` operators through `laneSum`) is the located tile error for each
struct, never an `unknown` that hides it; the search is bounded by its count of
checks; and the typings it finds are the ones the checker accepts, in a fixed order.
Warp's own results for the found typings: tests/warp_compat/test_warp_struct_search.py."""
from __future__ import annotations

from pathlib import Path

from verikern.frontend import compile_source
from verikern.frontend.check import generic_struct_search

SOURCE = (Path(__file__).resolve().parents[1] / "warp_compat" / "kernels_struct_search.py").read_text()

TILED = SOURCE + '''

@wp.func
def lane_sum(value: Any):
    return wp.tile_sum(wp.tile(value, preserve_type=True))[0]


@wp.kernel
def moments_tiled(q: Any, out_m1: wp.array(dtype=Any), out_m2: wp.array(dtype=Any)):
    i, lane = wp.tid()
    m1 = type(out_m1[i])()
    m2 = type(out_m2[i])()
    x = q.positions[lane] - q.positions[i]
    m1 += x * q.masses[lane]
    m2 += wp.outer(x, x)
    total = lane_sum(m1)
    if lane == 0:
        out_m1[i] = total
        out_m2[i] = m2
'''


def _names(text: str, kernel: str) -> dict:
    return {k.name: k for k in compile_source(text, "t.py").kernels if k.name.startswith(kernel + "[")}


def test_the_found_typings_are_the_ones_of_each_dimension_in_order():
    ks = _names(SOURCE, "moments")
    assert list(ks) == ["moments[Cloud2, float32, vec2, mat22]", "moments[Cloud3, float32, vec3, mat33]",
                        "moments[...]"], list(ks)
    assert [k.name for k in compile_source(SOURCE, "t.py").kernels] == list(ks)     # deterministic


def test_a_found_typing_that_reaches_a_tile_is_the_located_tile_error():
    ks = _names(TILED, "moments_tiled")
    errors = [k for n, k in ks.items() if not n.endswith("[...]")]
    assert errors, list(ks)
    for k in errors:
        assert k.mir is None and k.error is not None and k.error.rule == "outside-language", k.error
        assert "wp.tile_sum() uses tiles" in k.error.render() and "t.py:53:12" in k.error.render()


def test_the_search_is_bounded_by_its_count_of_checks(monkeypatch):
    monkeypatch.setattr(generic_struct_search, "MAX_SEARCH_CHECKS", 6)
    ks = _names(SOURCE, "moments")
    assert list(ks) == ["moments[...]"], list(ks)
    more = ks["moments[...]"].error.render()
    assert "at most 6 checks" in more and "which found 0" in more, more


VALUES = SOURCE + '''

@wp.func
def pick(a: wp.array(dtype=Any), j: wp.int32):
    return a[j]


@wp.kernel
def gather(q: Any, values: Any, others: Any, out: wp.array(dtype=Any)):
    i = wp.tid()
    fi = values[i]
    out[i] = fi + pick(others, i) + q.positions[i]
'''


def test_a_bare_any_the_body_indexes_is_searched_as_an_array_of_the_field_type_first():
    """`values[i]` indexes a vector as well; an array of the structs' field type is tried
    first, so the search does not stop at `pick(others, i)`, which takes an array."""
    ks = _names(VALUES, "gather")
    assert "gather[Cloud2, array<vec2, 1>, array<vec2, 1>, vec2]" in ks, list(ks)
    assert "gather[Cloud3, array<vec3, 1>, array<vec3, 1>, vec3]" in ks, list(ks)
