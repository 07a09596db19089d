"""Constructs of Warp's own test kernels (benchmarks/warp_tests_sample.py)
that the frontend accepts as Warp 1.19 does, checked against hand-computed
values on the simulator, and the ones Warp rejects, rejected here too."""
from __future__ import annotations

import math

import numpy as np
import pytest

import verikern as vk
from verikern.errors import KernelAssertionError
from verikern.mir.params import captured_params
from frontend.fe_util import compile_ok, compile_text, first_error, marker_loc

W = "import warp as wp\n\n"


def test_warp_named_constants():
    k = compile_ok(W + "@wp.kernel\ndef k(out: wp.array[wp.float64]):\n"
                   "    out[0] = wp.float64(wp.PI)\n    out[1] = wp.float64(wp.TAU)\n"
                   "    out[2] = wp.float64(wp.HALF_PI)\n    out[3] = wp.float64(wp.LN2)\n"
                   "    out[4] = wp.float64(wp.LOG10E)\n    out[5] = wp.float64(wp.PHI)\n"
                   "    out[6] = wp.float64(wp.INF)\n    out[7] = wp.float64(wp.NAN)\n")
    out = np.zeros(8)
    vk.launch(k, 1, [out])
    want = [math.pi, 2 * math.pi, math.pi / 2, math.log(2), 1 / math.log(10),
            (1 + 5 ** 0.5) / 2, math.inf]
    np.testing.assert_allclose(out[:7], want, rtol=1e-15)
    assert np.isnan(out[7])


def test_expect_eq_compares_vectors_componentwise():
    src = W + ("@wp.kernel\ndef k(v: wp.array[wp.vec2], out: wp.array[int]):\n"
               "    i = wp.tid()\n    wp.expect_eq(v[i], wp.vec2(1.0, 2.0))\n"
               "    wp.expect_neq(v[i], wp.vec2(1.0, 3.0))\n    out[i] = 1\n")
    k = compile_ok(src)
    out = np.zeros(2, np.int32)
    vk.launch(k, 2, [np.float32([[1, 2], [1, 2]]), out])
    assert out.tolist() == [1, 1]
    with pytest.raises(KernelAssertionError, match=r"t.py:6:5: .*wp.expect_eq"):
        vk.launch(k, 2, [np.float32([[1, 2], [1, 2.5]]), out])


def test_vector_equality_outside_expect_is_rejected_as_warp_does():
    """Warp 1.19's C++ has no `==` on vectors: the kernel does not build."""
    src = W + ("@wp.kernel\ndef k(v: wp.array[wp.vec2], out: wp.array[int]):\n"
               "    if v[0] == v[1]:\n        out[0] = 1\n")
    err = first_error(src)
    assert err.rule == "type-mismatch" and "vec2" in err.message
    assert (err.loc.line, err.loc.col) == marker_loc(src, "v[0] ==")


def test_scalar_over_vector_matrix_quat_and_row_vector_times_matrix():
    src = W + ("@wp.kernel\ndef k(v: wp.vec3, m: wp.mat22, q: wp.quat, a: wp.array[wp.vec3],\n"
               "      b: wp.array[wp.mat22], c: wp.array[wp.quat], d: wp.array[wp.vec2]):\n"
               "    a[0] = 6.0 / v\n    b[0] = 12.0 / m\n    c[0] = 1.0 / q\n"
               "    d[0] = wp.vec2(v[0], v[1]) * m\n")
    k = compile_ok(src)
    a, b = np.zeros((1, 3), np.float32), np.zeros((1, 2, 2), np.float32)
    c, d = np.zeros((1, 4), np.float32), np.zeros((1, 2), np.float32)
    vk.launch(k, 1, [(1.0, 2.0, 3.0), ((1.0, 2.0), (3.0, 4.0)), (1.0, 2.0, 4.0, 8.0),
                     a, b, c, d])
    assert a[0].tolist() == [6.0, 3.0, 2.0]
    assert b[0].tolist() == [[12.0, 6.0], [4.0, 3.0]]
    assert c[0].tolist() == [1.0, 0.5, 0.25, 0.125]
    assert d[0].tolist() == [1 * 1 + 2 * 3, 1 * 2 + 2 * 4]     # row vector times matrix


@pytest.mark.parametrize("expr", ["wp.vec3(1.0, 2.0, 3.0) * wp.mat22(1.0, 0.0, 0.0, 1.0)",
                                  "wp.vec2(1.0, 2.0) / wp.vec2(1.0, 2.0)"])
def test_mismatched_vector_products_stay_errors(expr):
    src = W + f"@wp.kernel\ndef k(out: wp.array[wp.vec2]):\n    x = {expr}\n"
    assert first_error(src).rule in ("type-mismatch", "vector-scalar-mix")


@pytest.mark.parametrize("call, rule, needle", [
    ("wp.types.vector(length=n, dtype=float)", "type-constructor", "n, dtype"),
    ("wp.types.vector(length=3, dtype=float, size=2)", "keyword-args", "2)"),
    ("wp.types.matrix(1.0, 2.0, shape=(2, 2), dtype=float)", "arity", "wp.types.matrix"),
    ("wp.types.vector(1.0)", "type-constructor", "wp.types.vector"),
])
def test_generic_type_constructor_errors(call, rule, needle):
    src = W + f"@wp.kernel\ndef k(n: int):\n    v = {call}\n"
    err = first_error(src)
    assert err.rule == rule
    assert (err.loc.line, err.loc.col) == marker_loc(src, needle)


def test_generic_type_constructors_by_hand():
    src = W + ("@wp.kernel\ndef k(out: wp.array[float]):\n"
               "    z = wp.types.vector(length=4, dtype=wp.float64)\n"
               "    f = wp.types.vector(2.5, length=3)\n"
               "    c = wp.types.vector(1, 2, 3)\n"
               "    m = wp.types.matrix(1.0, shape=(2, 3), dtype=float)\n"
               "    out[0] = float(z[3]) + f[2] + float(c[2]) + m[1, 2]\n")
    k = compile_ok(src)
    out = np.zeros(1, np.float32)
    vk.launch(k, 1, [out])
    assert out[0] == 0.0 + 2.5 + 3.0 + 1.0


PARTS = W + """@wp.kernel
def k(y: wp.array[wp.vec3], m: wp.array2d[wp.mat22], acc: wp.array[wp.vec2]):
    i = wp.tid()
    y[i].y = 5.0
    y[i][2] = 7.0
    m[i, 1][1] = wp.vec2(3.0, 4.0)
    m[i, 0][0, 1] = 9.0
    acc[0].x += 1.0
"""


def test_stores_into_part_of_an_element_touch_only_that_part():
    k = compile_ok(PARTS)
    y = np.full((3, 3), -1.0, np.float32)
    m = np.full((3, 2, 2, 2), -1.0, np.float32)
    acc = np.zeros((1, 2), np.float32)
    vk.launch(k, 3, [y, m, acc])
    assert y.tolist() == [[-1.0, 5.0, 7.0]] * 3
    assert m[:, 1].tolist() == [[[-1.0, -1.0], [3.0, 4.0]]] * 3
    assert m[:, 0].tolist() == [[[-1.0, 9.0], [-1.0, -1.0]]] * 3
    assert acc.tolist() == [[3.0, 0.0]]            # atomic: one per thread
    stores = [ins for _, ins in k.instructions() if ins.OPCODE == "store"]
    assert len(stores) == 1 + 1 + 2 + 1            # one MIR store per component written
    assert sum(ins.OPCODE == "atomic" for _, ins in k.instructions()) == 1


@pytest.mark.parametrize("stmt, rule, needle", [
    ("y[i].x *= 2.0", "warp-backward", "y[i].x"),     # Warp needs enable_backward=False
    ("y[i].w = 1.0", "bad-assign-target", "y[i].w"),
    ("y[i][3] = 1.0", "component-range", "3] = 1.0"),
    ("y[i][i] = 1.0", "component-not-constant", "i] = 1.0"),
    ("y[i].x = wp.float64(1.0)", "type-mismatch", "wp.float64(1.0)"),
])
def test_bad_stores_into_part_of_an_element(stmt, rule, needle):
    src = W + f"@wp.kernel\ndef k(y: wp.array[wp.vec3]):\n    i = wp.tid()\n    {stmt}\n"
    err = first_error(src)
    assert err.rule == rule, err.render()
    assert (err.loc.line, err.loc.col) == marker_loc(src, needle)


def test_forward_only_kernels_may_scale_part_of_an_element():
    src = W + ("@wp.kernel(enable_backward=False)\ndef k(y: wp.array[wp.vec3]):\n"
               "    i = wp.tid()\n    y[i].z *= 3.0\n    y[i][0] /= 2.0\n")
    k = compile_ok(src)
    y = np.float32([[4, 5, 6], [8, 9, 10]])
    vk.launch(k, 2, [y])
    assert y.tolist() == [[2, 5, 18], [4, 9, 30]]


DYNAMIC = W + """@wp.kernel
def k(idx: wp.array[int], out: wp.array[float]):
    t = wp.tid()
    j = idx[t]
    v = wp.vec4(1.0, 2.0, 3.0, 4.0)
    m = wp.mat33(1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0)
    v[j] = -1.0
    out[t] = v[j] + v[0] + m[j, j] + m[j][0] + v[wp.uint8(3)]
"""


@pytest.mark.parametrize("device", ["cpu", "cpu:native"])
def test_run_time_component_indices_by_hand(device):
    k = compile_ok(DYNAMIC)
    idx, out = np.int32([0, 1, 2]), np.zeros(3, np.float32)
    vk.launch(k, 3, [idx, out], device=device)
    m = np.arange(1, 10, dtype=np.float32).reshape(3, 3)
    want = [-1.0 + (-1.0 if j == 0 else 1.0) + m[j, j] + m[j, 0] + (-1.0 if j == 3 else 4.0)
            for j in idx]
    assert out.tolist() == want
    with pytest.raises(KernelAssertionError, match=r"t.py:9:5: .*vector index in range"):
        vk.launch(k, 3, [np.int32([0, 4, 1]), out], device=device)
    with pytest.raises(KernelAssertionError, match="vector index in range"):
        vk.launch(k, 3, [np.int32([0, -1, 1]), out], device=device)   # negative: refused


def test_run_time_component_index_must_be_an_integer():
    src = W + "@wp.kernel\ndef k(x: float):\n    v = wp.vec2(1.0, 2.0)\n    y = v[x]\n"
    err = first_error(src)
    assert err.rule == "index-not-int"
    assert (err.loc.line, err.loc.col) == marker_loc(src, "x]")


def test_loop_variable_after_the_loop():
    ok = W + ("@wp.kernel\ndef k(out: wp.array[int]):\n    for i in range(3, 11, 4):\n"
              "        out[0] = i\n    out[1] = i\n")
    out = np.zeros(2, np.int32)
    vk.launch(compile_ok(ok), 1, [out])
    assert out.tolist() == [7, 7]
    for loop in ("for i in range(n):", "for i in range(0):",
                 "for i in range(3):\n        if n > 0:\n            break"):
        src = W + (f"@wp.kernel\ndef k(n: int, out: wp.array[int]):\n    {loop}\n"
                   "        out[0] = 1\n    out[1] = i\n")
        err = first_error(src)
        assert err.rule == "undefined-variable", (loop, err.render())


@pytest.mark.parametrize("body, ok", [
    ("for i in range(3):\n        s += wp.static(i * 2)", True),
    ("for i in range(n):\n        s += wp.static(i * 2)", False),    # Warp cannot unroll it
    ("j = 2\n    s += wp.static(j)", False),                          # a local variable
    ("s += wp.static(len(v)) + wp.static(1 + wp.static(2))", True),
    ("s += wp.static(len(a))", False),                                # an array's length
])
def test_static_expressions(body, ok):
    src = W + (f"@wp.kernel\ndef k(n: int, v: wp.vec3, a: wp.array[int]):\n    s = int(0)\n"
               f"    {body}\n    a[0] = s\n")
    if ok:
        compile_ok(src)
    else:
        assert first_error(src).rule == "static-not-constant"


def test_len_of_vectors_and_matrices_is_constant():
    src = W + ("@wp.kernel\ndef k(v: wp.vec3, m: wp.mat22, out: wp.array[int]):\n"
               "    q = wp.quat(0.0, 0.0, 0.0, 1.0)\n    out[0] = len(v) + 10 * len(m) + 100 * len(q)\n")
    out = np.zeros(1, np.int32)
    vk.launch(compile_ok(src), 1, [(1.0, 2.0, 3.0), ((1.0, 2.0), (3.0, 4.0)), out])
    assert out[0] == 3 + 20 + 400


def test_integer_conditions_mean_nonzero():
    src = W + ("@wp.kernel\ndef k(n: int, out: wp.array[float]):\n"
               "    b = 2.0 if 123 else -2.0\n    c = 4.0 if 0 else 7.0\n    x = 0\n"
               "    if not 123:\n        x = 123\n    if n:\n        x = x + 10\n"
               "    while n:\n        n = n - 1\n        x = x + 1000\n"
               "    out[0] = b + c + float(x)\n")
    k = compile_ok(src)
    for n, want in ((0, 9.0), (3, 9.0 + 10 + 3000)):
        out = np.zeros(1, np.float32)
        vk.launch(k, 1, [n, out])
        assert out[0] == want


@pytest.mark.parametrize("call", ["wp.matrix_from_rows(wp.vec2(1.0, 2.0), wp.vec3(1.0, 2.0, 3.0))",
                                  "wp.matrix_from_cols(wp.vec2i(1, 2), wp.vec2i(3, 4))",
                                  "wp.vec3h(wp.vec2(1.0, 2.0))"])
def test_matrices_from_vectors_and_conversions_reject_mismatches(call):
    src = W + f"@wp.kernel\ndef k(out: wp.array[float]):\n    m = {call}\n"
    assert first_error(src).rule in ("type-mismatch", "arity")


FACTORY = W + """def make(v, n=3):
    @wp.kernel
    def k(a: wp.array[wp.float32]):
        s = float(0.0)
        for i in range(n):
            s += v
        a[0] = s

    return k

{calls}
"""


@pytest.mark.parametrize("calls, ok", [
    ("k1, k2 = make(1.0), make(2.5, n=4)", True),
    ("k1 = make(v=wp.float32(2.0))", True),
    ("k1, k2 = make(1.0), make(2)", False),          # two types: no single proof
    ("k1 = make(1.0, n=2.5)", False),
    ("k1 = make(x)", False),                          # not a literal
    ("", False),                                      # no call in the file
])
def test_factory_parameters_typed_by_their_call_sites(calls, ok):
    src = FACTORY.format(calls=calls)
    if ok:
        k = compile_ok(src)
        hidden = {p.name: (p.user_name, p.value.type.name) for p in captured_params(k)}
        assert hidden == {"@v": ("v", "float32"), "@n": ("n", "int32")}
    else:
        err = first_error(src)
        assert err.rule in ("capture-type", "index-not-int"), err.render()


@pytest.mark.parametrize("stmt, rule", [
    ("wp.expect_near(m, m)", "type-mismatch"),             # Warp: scalars, vectors, quats
    ("wp.expect_near(1.0)", "arity"),
    ("x = wp.trace(wp.types.matrix(shape=(2, 3), dtype=float))", "type-mismatch"),
    ("x = wp.isnan(1)", "type-mismatch"),
])
def test_expect_near_trace_isnan_errors(stmt, rule):
    src = W + f"@wp.kernel\ndef k(m: wp.mat22):\n    {stmt}\n"
    assert first_error(src).rule == rule


def test_local_matrix_rows_and_elements():
    src = W + ("@wp.kernel\ndef k(out: wp.array[wp.mat22]):\n    a = wp.mat22()\n"
               "    a[1] = wp.vec2(3.0, 4.0)\n    a[0][1] = 2.0\n    out[0] = a\n")
    out = np.zeros((1, 2, 2), np.float32)
    vk.launch(compile_ok(src), 1, [out])
    assert out.tolist() == [[[0.0, 2.0], [3.0, 4.0]]]
    bad = W + ("@wp.kernel\ndef k(out: wp.array[wp.mat22]):\n    a = wp.mat22()\n"
               "    a[1] = wp.vec3(3.0, 4.0, 5.0)\n")
    assert first_error(bad).rule == "type-mismatch"


@pytest.mark.parametrize("args", ["5", "2, 9", "2, 9, 3", "9, 2, -3", "4, 4, 2", "0, 10, 4"])
def test_reversed_range_matches_python(args):
    src = W + (f"@wp.kernel\ndef k(out: wp.array[int], n: wp.array[int]):\n    c = int(0)\n"
               f"    for i in reversed(range({args})):\n        out[c] = i\n        c += 1\n"
               "    n[0] = c\n")
    out, n = np.zeros(16, np.int32), np.zeros(1, np.int32)
    vk.launch(compile_ok(src), 1, [out, n])
    want = list(reversed(eval(f"range({args})")))
    assert out[:n[0]].tolist() == want


def test_reversed_needs_a_range_and_pure_arguments():
    for loop in ("reversed(x)", "reversed(range(f()))"):
        src = W + ("@wp.func\ndef f() -> int:\n    return 3\n\n"
                   f"@wp.kernel\ndef k(x: wp.array[int]):\n    for i in {loop}:\n        x[0] = i\n")
        assert first_error(src).rule in ("for-not-range", "warp-builtin-args")


def test_func_defaults_and_where_they_stay_errors():
    src = W + ("@wp.func\ndef f(a: float, s: float = 2.0, n: int = 3) -> float:\n"
               "    return a * s + float(n)\n\n"
               "@wp.kernel\ndef k(out: wp.array[float]):\n"
               "    out[0] = f(1.0) + f(1.0, 10.0) + f(1.0, 1.0, 0)\n")
    out = np.zeros(1, np.float32)
    vk.launch(compile_ok(src), 1, [out])
    assert out[0] == (2 + 3) + (10 + 3) + 1
    kernel_default = W + "@wp.kernel\ndef k(a: wp.array[float], s: float = 1.0):\n    a[0] = s\n"
    assert first_error(kernel_default).rule == "param-default"
    runtime_default = W + ("X = [1]\n@wp.func\ndef f(a: float, s: float = X[0]) -> float:\n"
                           "    return a\n\n@wp.kernel\ndef k(a: wp.array[float]):\n"
                           "    a[0] = f(1.0)\n")
    assert first_error(runtime_default).rule == "param-default"
    too_few = W + ("@wp.func\ndef f(a: float, s: float = 2.0) -> float:\n    return a\n\n"
                   "@wp.kernel\ndef k(a: wp.array[float]):\n    a[0] = f()\n")
    assert first_error(too_few).rule == "arity"


def test_factory_call_sites_are_read_per_scope():
    """Two tests each define their own `make`: each one's calls type its parameter."""
    src = W + ("def test_a():\n    def make(v):\n        @wp.kernel\n"
               "        def ka(a: wp.array[float]):\n            a[0] = v\n        return ka\n"
               "    k = make(1.5)\n\n"
               "def test_b():\n    def make(v):\n        @wp.kernel\n"
               "        def kb(a: wp.array[int]):\n            a[0] = v\n        return kb\n"
               "    k = make(7)\n")
    r = compile_text(src)
    assert not r.all_errors, [e.render() for e in r.all_errors]
    types = {k.name: [p.value.type.name for p in k.mir.params if p.name == "@v"] for k in r.kernels}
    assert types == {"ka": ["float32"], "kb": ["int32"]}


def test_func_keyword_arguments():
    src = W + ("@wp.func\ndef f(a: int = 123, b: int = 234) -> int:\n    return a + b\n\n"
               "@wp.kernel\ndef k(out: wp.array[int]):\n    out[0] = f(a=111)\n"
               "    out[1] = f(b=111)\n    out[2] = f(b=1, a=2)\n    out[3] = f(5, b=6)\n")
    out = np.zeros(4, np.int32)
    vk.launch(compile_ok(src), 1, [out])
    assert out.tolist() == [345, 234, 3, 11]
    for call, rule in (("f(c=1)", "keyword-args"), ("f(1, a=2)", "keyword-args"),
                       ("g(b=1)", "arity")):
        bad = W + ("@wp.func\ndef f(a: int = 123, b: int = 234) -> int:\n    return a + b\n\n"
                   "@wp.func\ndef g(a: int, b: int) -> int:\n    return a + b\n\n"
                   f"@wp.kernel\ndef k(out: wp.array[int]):\n    out[0] = {call}\n")
        assert first_error(bad).rule == rule, call


@pytest.mark.parametrize("other, ok", [
    ("", True),
    ("def g():\n    dtype = wp.float64\n", False),         # two different bindings
    ("def g(dtype):\n    pass\n", False),                  # also a parameter
    ("dtype = wp.float16\n", True),                        # a module-level alias
])
def test_type_aliases_bound_in_functions(other, ok):
    src = W + other + ("def make():\n    dtype = wp.float16\n\n    @wp.kernel\n"
                       "    def k(a: wp.array(dtype=dtype)):\n        a[0] = dtype(1.5)\n"
                       "    return k\n")
    if ok:
        k = compile_ok(src)
        assert k.params[0].dtype.name == "float16"
    else:
        assert first_error(src).rule == "annotation"


def test_overloads_bound_to_names():
    src = ("from typing import Any\n" + W + "@wp.kernel\ndef fill(a: wp.array[Any], v: Any):\n"
           "    a[wp.tid()] = v\n\nfill_int = wp.overload(fill, [wp.array[int], int])\n"
           "fill_vec = wp.overload(fill, [wp.array[wp.vec2], wp.vec2])\n")
    r = compile_text(src)
    assert [k.name for k in r.kernels if k.error is not None] == ["fill[...]"]   # vec types
    assert r.kernel_names[:2] == ["fill[int32, int32]", "fill[vec2, vec2]"]
    a, v = np.zeros(3, np.int32), np.zeros((2, 2), np.float32)
    vk.launch(r.kernel("fill[int32, int32]").mir, 3, [a, 7])
    vk.launch(r.kernel("fill[vec2, vec2]").mir, 2, [v, (1.0, 2.0)])
    assert a.tolist() == [7, 7, 7] and v.tolist() == [[1.0, 2.0]] * 2


def test_generic_kernel_typed_by_a_launch_with_tuple_data():
    src = ("from typing import Any\n" + W + "@wp.kernel\ndef dbl(a: wp.array[Any]):\n"
           "    i = wp.tid()\n    a[i] = a[i] + a[i]\n\n"
           "def run():\n    a0 = wp.array((1, 2, 3), dtype=wp.vec3)\n"
           "    a1 = wp.array((1.5, 2.5), dtype=float)\n"
           "    wp.launch(dbl, a0.shape, (a0,))\n    wp.launch(dbl, a1.shape, (a1,))\n")
    r = compile_text(src)
    assert [k.name for k in r.kernels if k.error is not None] == ["dbl[...]"]   # vec types
    v, f = np.float32([[1, 2, 3]]), np.float32([1.5, 2.5])
    vk.launch(r.kernel("dbl[vec3]").mir, 1, [v])
    vk.launch(r.kernel("dbl[float32]").mir, 2, [f])
    assert v.tolist() == [[2, 4, 6]] and f.tolist() == [3.0, 5.0]


def test_run_time_matrix_row_writes():
    src = W + ("@wp.kernel\ndef k(j: int, out: wp.array[wp.mat22]):\n    m = wp.mat22()\n"
               "    m[j] = wp.vec2(1.0, 2.0)\n    out[0] = m\n")
    k = compile_ok(src)
    for j, want in ((0, [[1.0, 2.0], [0.0, 0.0]]), (1, [[0.0, 0.0], [1.0, 2.0]])):
        out = np.zeros((1, 2, 2), np.float32)
        vk.launch(k, 1, [j, out])
        assert out[0].tolist() == want
    with pytest.raises(KernelAssertionError, match="vector index in range"):
        vk.launch(k, 1, [2, np.zeros((1, 2, 2), np.float32)])


@pytest.mark.parametrize("binding, use, ok", [
    ("X = wp.constant(wp.float64(0.5))", "out[0] = X * wp.float64(4.0)", True),
    ("X = wp.float64(0.5)", "out[0] = X * wp.float64(4.0)", True),
    ("X = wp.constant(wp.float64(0.5))", "out[0] = wp.float64(X * 4.0) + wp.float64(1.5)", True),
    ("X = wp.constant(wp.float64(0.5))\nX = wp.float64(1.0)", "out[0] = X", False),   # rebound
    ("X = wp.float32(0.5)", "out[0] = X", False),     # float32 into a float64 element
    ("X = wp.int8(300)", "out[0] = wp.float64(X)", False),   # out of range: not a constant
])
def test_typed_module_constants(binding, use, ok):
    src = W + binding + "\n\n@wp.kernel\ndef k(out: wp.array[wp.float64]):\n    " + use + "\n"
    if ok:
        out = np.zeros(1)
        vk.launch(compile_ok(src), 1, [out])
        assert out[0] in (2.0, 3.5)
    else:
        assert first_error(src).rule in ("closure", "type-mismatch", "implicit-conversion")
