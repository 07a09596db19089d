"""When a generic kernel gets a type-oblivious proof and when it does not
(frontend/check/generic_opaque.py), and the typing to start from for
parameters that need different types (generic_start.py)."""
from __future__ import annotations

import ast

import pytest

from verikern.frontend import compile_source
from verikern.frontend.check import generic_opaque
from verikern.frontend.check.body import BodyChecker
from verikern.frontend.check.generic_opaque import structure_refusal
from verikern.frontend.check.generic_start import search_typing
from verikern.frontend.check.registry import FuncRegistry
from verikern.frontend.scan.factories import collect_calls
from verikern.frontend.scan.module import ModuleInfo, scan_module
from verikern.hir.types import F32, ArrayType

HEAD = "from typing import Any\n\nimport warp as wp\n\n\n"


def _refusal(src: str) -> str | None:
    info = ModuleInfo("g.py", HEAD + src)
    tree = ast.parse(HEAD + src)
    collect_calls(tree, info)
    scan_module(tree, info)
    return structure_refusal(info, info.kernels[0], FuncRegistry(info, BodyChecker))


def _more(src: str):
    (more,) = [k for k in compile_source(HEAD + src, "g.py").kernels if k.name.endswith("[...]")]
    return more


KERNEL = '''@wp.kernel
def k(x: wp.array(dtype=Any), y: wp.array(dtype=Any)):
    i = wp.tid()
    if i < x.shape[0] and i < y.shape[0]:
        v = x[i]
{BODY}
'''


@pytest.mark.parametrize("body,word", [
    ("        if wp.static(wp.types.types_equal(type(v), wp.float32)):\n            y[i] = v", "wp.static"),
    ("        for c in range(len(v)):\n            y[i] = v", "len(v)"),
    ("        if isinstance(v, float):\n            y[i] = v", "isinstance"),
    ("        y[i] = wp.zeros(dtype=x.dtype)", "x.dtype"),
    ("        if type(v) == wp.float32:\n            y[i] = v", "type(v)"),
])
def test_a_kernel_that_inspects_a_type_gets_no_type_oblivious_proof(body, word):
    why = _refusal(KERNEL.format(BODY=body))
    assert why is not None and word in why and "inspects a type" in why


def test_a_conversion_to_the_generic_type_is_no_inspection():
    assert _refusal(KERNEL.format(BODY="        y[i] = v + type(v)(1.0) * x.dtype(2.0)")) is None


def test_a_static_of_module_level_names_is_no_inspection_but_one_of_a_local_is():
    """`wp.static(Mode.FAST)` has one value in every instantiation; `wp.static(v)`
    (or anything naming a parameter or local) may not."""
    assert _refusal("FAST = 1\n\n\n" + KERNEL.format(BODY="        if wp.static(FAST == 1):\n"
                                                           "            y[i] = v")) is None
    why = _refusal(KERNEL.format(BODY="        if wp.static(i > 1):\n            y[i] = v"))
    assert why is not None and "wp.static(i > 1)" in why


def test_an_overloaded_func_refuses_it_and_a_type_inspection_in_a_func_is_found():
    overloaded = ('@wp.func\ndef f(a: float) -> float:\n    return a\n\n\n'
                  '@wp.func\ndef f(a: wp.vec3) -> wp.vec3:\n    return a\n\n\n')
    why = _refusal(overloaded + KERNEL.format(BODY="        y[i] = f(v)"))
    assert why is not None and "'f' has 2 overloads" in why
    inspecting = '@wp.func\ndef g(a: Any):\n    return len(a)\n\n\n'
    why = _refusal(inspecting + KERNEL.format(BODY="        y[i] = v * float(g(v))"))
    assert why is not None and "in the func 'g'" in why


def test_a_run_time_component_index_into_a_generic_vector_refuses_it():
    src = KERNEL.format(BODY="        s = float(0.0)\n        for c in range(3):\n            s = s + v[c]\n"
                             "        y[i] = v * s")
    more = _more(src)
    assert more.opaque is None and "run-time component index" in more.opaque_refusal
    # the attributes are in range for every instantiation that builds (Warp refuses `v.z` on a vec2
    # when it builds the kernel)
    assert _more(KERNEL.format(BODY="        y[i] = v * (v.x + v.y + v.z)")).opaque is not None


@pytest.mark.parametrize("body", [
    "        y[i] = v * (v[0] + v[1] + v[2])",        # a vec2 instantiation reads v[2] past its end
    "        y[i] = v * v[1]",                        # ... and a vec1 one v[1]
    "        w = v\n        w[2] = v.x\n        y[i] = w",  # a constant component written
    "        x[i][2] = v.x\n        y[i] = v",          # ... in an array element
])
def test_a_constant_component_subscript_into_a_generic_value_refuses_it(body):
    """Warp builds `v[2]` for a vec2 (only `v.z` is refused at build time) and
    reads past the vector at run time ("vec index 2 out of bounds" in its
    debug mode); the float32-based carrier (a vec3) has a component 2, so the
    opaque proof would cover the vec2 instantiation without a check."""
    more = _more(KERNEL.format(BODY=body))
    assert more.opaque is None and "constant component index" in more.opaque_refusal


def test_element_0_of_a_struct_field_that_may_be_an_array_refuses_it():
    """The transform carrier types `a[i].p[0]` as component 0 of `t.p`, but Warp
    also instantiates the kernel with an array of structs whose field `p` is an
    array: `a[i].p[0]` of an empty one is out of bounds (Warp's debug mode
    asserts `i < arr.shape[0]`)."""
    src = '''@wp.kernel
def first_p(a: wp.array(dtype=Any), out: wp.array(dtype=float)):
    i = wp.tid()
    if i < a.shape[0] and i < out.shape[0]:
        out[i] = float(a[i].p[0])
'''
    more = _more(src)
    assert more.opaque is None and "constant component index" in more.opaque_refusal
    # the attribute alone is a value of the field, whatever its type
    assert _more(src.replace(".p[0]", ".p.x")).opaque is not None


def test_a_matrix_entry_past_the_smallest_matrix_refuses_it():
    src = '''@wp.kernel
def diagonal(m: wp.array(dtype=Any), out: wp.array(dtype=float)):
    i = wp.tid()
    if i < m.shape[0] and i < out.shape[0]:
        out[i] = float(m[i][2, 2])
'''
    more = _more(src)      # a mat22 instantiation reads m[i][2, 2] past its end
    assert more.opaque is None and "constant component index" in more.opaque_refusal


def test_a_subscript_of_a_bare_any_refuses_it_because_it_may_be_an_array():
    """`a: Any` types with a vector carrier when the kernel reads `a[0]`, but
    Warp also instantiates the kernel with an array for `a`: `a[0]` of an
    empty array is out of bounds (Warp's debug mode asserts `i <
    arr.shape[0]`)."""
    src = '''@wp.kernel
def first_of(a: Any, out: wp.array(dtype=float)):
    i = wp.tid()
    if i < out.shape[0]:
        out[i] = float(a[0])
'''
    more = _more(src)
    assert more.opaque is None and "bare `Any`" in more.opaque_refusal


def test_parameters_that_need_different_types_find_a_typing_to_start_from():
    """`positions` type-checks only as a vector, `cutoff` only as a scalar, and
    three generic parameters have too many typings to try whole: before,
    'no typing ... to start from'; now the search finds one, the
    instantiations are enumerated per group, and the opaque proof is built."""
    src = '''@wp.kernel
def near(positions: wp.array(dtype=Any), cutoff: Any, weights: wp.array(dtype=Any), out: wp.array(dtype=int)):
    i = wp.tid()
    if i >= positions.shape[0] or i >= out.shape[0] or i >= weights.shape[0]:
        return
    n = int(0)
    for j in range(positions.shape[0]):
        if wp.length(positions[j] - positions[i]) < cutoff and weights[j] > weights[i]:
            n += 1
    out[i] = n
'''
    more = _more(src)
    assert "to start from" not in more.error.message
    assert more.opaque is not None, more.opaque_refusal


def test_the_start_search_keeps_a_change_only_when_the_body_types_further():
    """A toy checker: parameter 0 must be 'v' (else refused after typing one
    expression), then parameter 1 must be 's' (else refused after two)."""

    def attempt(combo):
        if combo[0] != "v":
            return None, 1
        if combo[1] != "s":
            return None, 2
        return "hir", None

    assert search_typing([["a", "v"], ["b", "c", "s"]], attempt, 20) == (["v", "s"], "hir")
    assert search_typing([["a", "w"], ["b", "s"]], attempt, 20) is None    # no change goes further
    assert search_typing([["a", "v"], ["b", "c", "s"]], attempt, 2) is None  # out of checks


def test_without_a_carrier_the_refusal_quotes_the_furthest_typing_s_error(monkeypatch):
    """With float32 the only carrier tried, `wp.length` of a position cannot type:
    the reason names what refused the typing that got furthest."""
    monkeypatch.setattr(generic_opaque, "_CARRIER_ELEMENTS", (F32,))
    monkeypatch.setattr(generic_opaque, "_float_based",      # and no vec3 start from the enumeration
                        lambda t: ArrayType(F32, t.ndim) if isinstance(t, ArrayType) else F32)
    src = KERNEL.format(BODY="        if wp.length(v) < 1.0:\n            y[i] = v")
    more = _more(src)
    assert more.opaque is None
    assert "no float32-based typing" in more.opaque_refusal and "length" in more.opaque_refusal
