"""Annotations generic over a vector's length (check/length_generic.py) and the
instances of a kernel generic over lengths (check/generic_lengths.py), on
small project-shaped fixtures: which patterns are read, which argument types
each takes (Warp's match), the overload a call picks, `x.length` as a constant,
and that a call with a mismatched component type is refused, as Warp refuses it."""
from __future__ import annotations

import ast

import pytest

from verikern.frontend import compile_source
from verikern.frontend.check.length_generic import length_generic
from verikern.frontend.scan.module import ModuleInfo
from verikern.hir.types import F32, F64, QUAT, ArrayType, matrix_type, vector_type

from frontend.fe_util import first_error

HEAD = '''from typing import Any
import warp as wp
from warp.types import vector, matrix
'''


def _pattern(text: str):
    info = ModuleInfo("t.py", HEAD)
    for stmt in ast.parse(HEAD).body:
        if isinstance(stmt, ast.ImportFrom) and stmt.module in ("warp.types",):
            for a in stmt.names:
                info.from_imports[a.asname or a.name] = f"types.{a.name}"
    info.aliases.add("wp")
    return length_generic(info, ast.parse(text, mode="eval").body)


@pytest.mark.parametrize("text,takes,refuses", [
    ("vector(length=Any, dtype=wp.float32)", [vector_type(3), vector_type(1)], [vector_type(3, F64), QUAT, F32]),
    ("vector(dtype=wp.float64)", [vector_type(2, F64)], [vector_type(2)]),
    ("matrix(shape=(Any, Any), dtype=wp.float32)", [matrix_type(3, 3), matrix_type(2, 3)], [vector_type(3)]),
    ("wp.array(dtype=vector(dtype=wp.float32, length=Any))", [ArrayType(vector_type(3), 1),
                                                              ArrayType(vector_type(2), 2)],
     [ArrayType(F32, 1), vector_type(3)]),
])
def test_patterns_take_what_warp_matches(text, takes, refuses):
    p = _pattern(text)
    assert p is not None, text
    assert all(p.takes(t) for t in takes), [t for t in takes if not p.takes(t)]
    assert not any(p.takes(t) for t in refuses), [t for t in refuses if p.takes(t)]


@pytest.mark.parametrize("text", ["vector(length=3, dtype=wp.float32)", "vector(length=Any, dtype=wp.bool)",
                                  "matrix(shape=(3, Any), dtype=wp.float32)", "Any", "wp.vec3"])
def test_other_annotations_are_no_pattern(text):
    assert _pattern(text) is None


FUNCS = HEAD + '''

@wp.func
def scale(x: vector(length=Any, dtype=wp.float32)):
    d = wp.vector(wp.float32(0.0), length=x.length, dtype=wp.float32)
    for k in range(x.length):
        d[k] = 2.0 * x[k]
    return d


@wp.func
def scale(x: wp.float32):
    return 3.0 * x


@wp.kernel
def k(p: wp.array(dtype=wp.vec3), s: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    out[0] = wp.length(scale(p[0])) + scale(s[0]) + float(p[0].length)
'''


def test_a_length_generic_overload_is_built_for_the_argument_and_the_scalar_one_for_a_float():
    r = compile_source(FUNCS, "t.py")
    assert not r.all_errors, [e.render() for e in r.all_errors]
    (kernel,) = r.kernels
    called = sorted(f.name for f in kernel.hir.funcs)
    assert called == ["scale#0<vec3>", "scale#1"], called


def test_a_vector_of_another_component_type_finds_no_overload():
    err = first_error(FUNCS.replace("wp.array(dtype=wp.vec3)", "wp.array(dtype=wp.vec3d)")
                      .replace("+ scale(s[0])", ""))
    assert "no overload of scale() takes (vec3d)" in err.message, err.render()


KERNEL = HEAD + '''

@wp.kernel
def k(a: wp.array(dtype=vector(dtype=wp.float32, length=Any)), out: wp.array(dtype=float)):
    i = wp.tid()
    if i < a.shape[0] and i < out.shape[0]:
        out[i] = a[i][a[i].length - 1]
'''


def test_a_length_generic_kernel_has_an_instance_per_length_and_one_for_the_others():
    r = compile_source(KERNEL, "t.py")
    names = [(k.name, k.mir is not None, k.unknown) for k in r.kernels]
    assert names == [("k[vec1f]", True, False), ("k[vec2]", True, False), ("k[vec3]", True, False),
                     ("k[vec4]", True, False), ("k[...]", False, True)], names
    assert "cannot prove it for the others" in r.kernels[-1].error.message
    assert r.kernels[-1].opaque is None and "vector length" in r.kernels[-1].opaque_refusal


STRUCT_FUNC = HEAD + '''

@wp.struct
class Box:
    lo: wp.array(dtype=float)
    n: int


@wp.func
def shifted(x: vector(length=Any, dtype=wp.float32), b: Box, k: int):
    return x[k] - b.lo[k]


@wp.kernel
def k(p: wp.array(dtype=wp.vec2), b: Box, out: wp.array(dtype=float)):
    i = wp.tid()
    if i < p.shape[0] and i < out.shape[0] and b.lo.shape[0] >= 2:
        out[i] = shifted(p[i], b, 1)
'''


def test_a_generic_func_takes_a_struct_parameter_beside_its_generic_one():
    r = compile_source(STRUCT_FUNC, "t.py")
    assert not r.all_errors, [e.render() for e in r.all_errors]
    (kernel,) = r.kernels
    assert [p.name for p in kernel.hir.funcs[0].params] == ["x", "b.lo", "b.n", "k"]
