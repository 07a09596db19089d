"""Local structs that hold arrays (check/struct_aliases.py), row views passed
straight to a func (check/views.py `view_argument`), `wp.vec3i(..., dtype=...)`
and a plain Enum's `.value`: what compiles, and every body that breaks a rule
the substitution relies on is a located error, never a guess."""
from __future__ import annotations

import pytest

from verikern.mir import nodes as M

from frontend.fe_util import compile_ok, first_error, marker_loc

HEAD = '''import warp as wp
from enum import Enum


class Mode(Enum):
    A = 3


@wp.struct
class D:
    lo: wp.array(dtype=float)
    hi: wp.array(dtype=float)
    n: int


@wp.func
def width(d: D, k: int) -> float:
    return d.hi[k] - d.lo[k]


@wp.kernel
def k(lo: wp.array(dtype=float), hi: wp.array(dtype=float), ints: wp.array(dtype=int),
      p: D, x: wp.array2d(dtype=float), out: wp.array(dtype=float)):
'''


def test_array_fields_read_the_parameters_they_were_assigned():
    body = ("    d = D()\n    d.lo = lo\n    d.hi = p.hi\n    d.n = 2\n"
            "    out[0] = width(d, 0) + d.lo[1] + float(d.n)\n")
    mir = compile_ok(HEAD + body)
    names = {p.name for p in mir.params}
    assert not any(n.startswith("d.") for n in names), names
    reads = {ins.array.name for b in mir.blocks for ins in b.instrs if isinstance(ins, M.Load)}
    assert reads == {"lo", "p.hi"}, reads   # d.hi is the struct parameter's field


def test_a_view_argument_a_dtype_keyword_and_an_enum_value_compile():
    body = ("    d = D()\n    d.lo = lo\n    d.hi = hi\n"
            "    v = wp.vec3i(1, 2, 3, dtype=wp.int32)\n"
            "    if v[0] == wp.static(Mode.A.value):\n"
            "        out[0] = width(d, 0) + total(x[1], 2)\n")
    compile_ok(HEAD.replace("@wp.kernel", "@wp.func\ndef total(a: wp.array(dtype=float), m: int) -> float:\n"
                            "    return a[m]\n\n\n@wp.kernel") + body)


BAD = [
    ("    d = D()\n    out[0] = d.lo[0]\n    d.lo = lo\n", "out[0] = d.lo[0]", "before it is assigned"),
    ("    d = D()\n    out[0] = width(d, 0)\n", "out[0] = width(d, 0)", "d.lo is never assigned"),
    ("    d = D()\n    d.lo = lo\n    d.lo = hi\n", "d.lo = lo", "assigned once"),
    ("    d = D()\n    if out.shape[0] > 0:\n        d.lo = lo\n", "d.lo = lo", "assigned once"),
    ("    d = D()\n    d.lo = ints\n", "ints", "d.lo is array<float32, 1>, assigned ints"),
    ("    d = D()\n    v = x[0]\n    d.lo = v\n", "d.lo = v", "from an array parameter"),
    ("    for j in range(2):\n        d = D()\n", "d = D()", "made once"),
    ("    d = D()\n    d.lo = lo\n    d.hi = hi\n    e = d\n", "e = d", "made once"),
    ("    v = wp.vec3i(1, 2, 3, dtype=wp.float32)\n", "wp.float32", "Warp refuses dtype=wp.float32"),
    ("    out[0] = float(wp.static(Mode.A))\n", "Mode.A", "compile-time constants"),
]


@pytest.mark.parametrize("body,marker,words", BAD, ids=[b[2] for b in BAD])
def test_rule_breaking_bodies_are_located_errors(body, marker, words):
    src = HEAD + body
    err = first_error(src)
    assert words in err.message, err.render()
    line, col = marker_loc(src, marker, nth=src.count(marker) - 1)
    assert err.loc.line == line and err.loc.col in (col, 5, 9), err.render()


def test_a_view_argument_whose_index_calls_something_is_refused():
    src = HEAD.replace("@wp.kernel", "@wp.func\ndef first(a: wp.array(dtype=float)) -> float:\n"
                       "    return a[0]\n\n\n@wp.kernel") + "    out[0] = first(x[wp.tid()])\n"
    err = first_error(src)
    assert "which verikern takes only bound to a name, or as a call argument whose indices are names" \
        in err.message and err.rule == "index-count", err.render()
