"""Warp's typing rules that the type-oblivious proof's division rule relies on
(verikern/frontend/check/generic_scalars.py), checked against real Warp 1.19
on its CPU device: two generic values combined by `+ - * / // %`, `wp.min`,
`wp.max`, `wp.where` or a conditional expression must have one scalar type
(vectors and matrices included: a vec3f with a float64 does not build), a
local cannot be bound to a value of another type (in straight code, in the
other branch of an `if`, in a loop), and `wp.exp`, `wp.sqrt`, ... take float
scalars only. Each kernel is launched
with the mixed typing in a fresh module (Warp keeps a module's failed
overloads), and the build must fail for the typing reason, named in Warp's
message; the builtins' tables are read from Warp itself."""
from __future__ import annotations

import itertools
import re

import pytest

from shared_helpers import import_file
from verikern.frontend.check.generic_scalars import FLOAT_ONLY, SAME_TYPE
from warp_compat.compat_util import HERE, init_warp

wp = pytest.importorskip("warp", reason="NVIDIA Warp is not installed (pip install warp-lang)")

_FRESH = itertools.count()
_TYPE_ERROR = re.compile(r"Input types must be the same|must be of the same type|with different type|"
                         r"Couldn't find function overload|same scalar type|with different types")


@pytest.fixture(scope="module")
def fresh_kernels(tmp_path_factory):
    """A function giving the kernels file imported as a new module each call."""
    init_warp(wp, tmp_path_factory)
    folder = tmp_path_factory.mktemp("generic_scalars")
    text = (HERE / "kernels_generic_scalars.py").read_text(encoding="utf-8")

    def fresh():
        name = f"verikern_generic_scalars_{next(_FRESH)}"
        path = folder / f"{name}.py"
        path.write_text(text, encoding="utf-8")
        return import_file(path, name)
    return fresh


MIXED = [(k, a, b, out) for k in ("add_two", "sub_two", "mul_two", "div_two", "floordiv_two", "mod_two")
         for a, b, out in (("float32", "float64", "float32"), ("int32", "float32", "float32"),
                           ("vec3", "float64", "vec3"), ("int64", "int32", "int64"))] + [
    (k, a, b, out) for k in ("min_two", "max_two", "where_two", "ternary_two")
    for a, b, out in (("float32", "float64", "float32"), ("int32", "float32", "float32"))] + [
    ("mul_two", "mat33", "vec3d", "vec3"), ("div_two", "float64", "vec3", "vec3"),
    ("exp_of", "int32", "int32", "int32"), ("sqrt_of", "int64", "int64", "int64"),
    ("sqrt_of", "vec3", "vec3", "vec3"), ("exp_of", "uint8", "uint8", "uint8"),
] + [(k, "float32", "int32", "float32") for k in ("rebind_straight", "rebind_in_branches", "rebind_in_loop")]


@pytest.mark.parametrize("kernel, a, b, out", MIXED)
def test_warp_refuses_to_build_a_mixed_scalar_typing(fresh_kernels, kernel, a, b, out):
    k = getattr(fresh_kernels(), kernel)
    arrays = [wp.ones(2, dtype=getattr(wp, t), device="cpu") for t in (a, b, out)]
    with pytest.raises(Exception) as caught:
        wp.launch(k, dim=2, inputs=arrays, device="cpu")
    assert _TYPE_ERROR.search(str(caught.value)), str(caught.value)


def test_the_float_only_builtins_take_float_scalars_in_every_warp_overload():
    from warp._src.context import builtin_functions  # lazy: Warp's private table, read only here
    from warp._src.types import Float, float_types  # lazy: as above
    for name in sorted(FLOAT_ONLY):
        overloads = builtin_functions[name].overloads
        assert overloads, name
        for o in overloads:
            assert all(t in float_types or t is Float for t in o.input_types.values()), (name, o.input_types)


def test_the_same_type_builtins_take_one_type_in_every_warp_overload():
    from warp._src.context import builtin_functions  # lazy: Warp's private table, read only here
    for name in sorted(SAME_TYPE):
        for o in builtin_functions[name].overloads:
            types = list(o.input_types.values())
            assert len(types) == 1 or all(t == types[0] for t in types) or any(
                getattr(t, "__name__", "") == "array" for t in types), (name, o.input_types)
