"""Warp 1.19 spellings the frontend accepts (docs/LANGUAGE.md sections 1, 4, 5),
checked against hand-computed results on the simulator, and the errors for
what stays outside (each naming file:line:col and its rule)."""
from __future__ import annotations

import numpy as np
import pytest

import verikern as vk
from verikern.errors import ContractError, LaunchError, UnassignedReadError
from verikern.hir.types import F32, F64, I32, VECTOR_TYPES, ArrayType
from frontend.fe_util import compile_ok, compile_text, first_error, marker_loc

W = "import math\nimport typing\nimport numpy as np\nimport warp as wp\nimport verikern as vk\n\n"


@pytest.mark.parametrize("ann, dtype, ndim", [
    ("wp.array[float]", F32, 1), ("wp.array[wp.float64]", F64, 1), ("wp.array[int]", I32, 1),
    ("wp.array1d[wp.int32]", I32, 1), ("wp.array2d[float]", F32, 2),
    ("wp.array3d[wp.vec3]", VECTOR_TYPES["vec3"], 3), ("wp.array4d[float]", F32, 4),
    ("wp.array[float, typing.Literal[2]]", F32, 2), ("wp.array[wp.vec2f, 3]", VECTOR_TYPES["vec2"], 3),
    ("wp.array(dtype=float, ndim=2)", F32, 2), ("wp.array2d(dtype=wp.float32)", F32, 2),
    ("wp.array(dtype=wp.vec3)", VECTOR_TYPES["vec3"], 1),
])
def test_array_annotation_spellings(ann, dtype, ndim):
    r = compile_text(W + f"@wp.kernel\ndef k(a: {ann}):\n    pass\n")
    assert not r.all_errors, [e.render() for e in r.all_errors]
    assert r.kernels[0].hir.params[0].type == ArrayType(dtype, ndim)


@pytest.mark.parametrize("ann, needle", [
    ("wp.array[float, 5]", "5]"), ("wp.array2d[float, 2]", "wp.array2d"),
    ("wp.array[str]", "str]"), ("wp.array[float, n]", "n]"),
])
def test_bad_array_annotations(ann, needle):
    src = W + f"@wp.kernel\ndef k(a: {ann}):\n    pass\n"
    err = first_error(src)
    assert err.rule == "annotation"
    assert (err.loc.line, err.loc.col) == marker_loc(src, needle)


def test_module_constants_through_math_and_numpy():
    src = W + ("DX = 2.0 / math.sqrt(4.0)\nTWO_PI = 2 * np.pi\nN = round(DX * 10)\n"
               "@wp.kernel\ndef k(a: wp.array[float], b: wp.array[int]):\n"
               "    a[0] = DX + TWO_PI\n    b[0] = N\n")
    k = compile_ok(src)
    a, b = np.zeros(1, np.float32), np.zeros(1, np.int32)
    vk.launch(k, 1, [a, b])
    assert a[0] == np.float32(1.0 + 2 * np.pi) and b[0] == 10


def test_rebound_module_name_stays_invisible():
    src = W + "N = 4\nN = int(input())\n@wp.kernel\ndef k(b: wp.array[int]):\n    b[0] = N\n"
    assert first_error(src).rule == "closure"


def test_vector_matrix_quat_kernel_params_on_every_cpu_device():
    src = W + ("@wp.kernel\ndef k(out: wp.array[wp.vec3], u: wp.vec3, m: wp.mat22, q: wp.quat,"
               " s: float):\n    i = wp.tid()\n"
               "    out[i] = u * s + wp.vec3(m[0, 1], m[1, 0], q[3])\n")
    k = compile_ok(src)
    assert [p.name for p in k.params][:5] == ["out", "u[0]", "u[1]", "u[2]", "m[0]"]
    for dev in ("cpu", "cpu:native"):
        out = np.zeros((2, 3), np.float32)
        vk.launch(k, 2, [out, (1.0, 2.0, 3.0), np.array([[1, 2], [3, 4]]), (0, 0, 0, 7), 2.0],
                  device=dev)
        assert out.tolist() == [[4.0, 7.0, 13.0]] * 2
    with pytest.raises(LaunchError, match="argument u has 3 components"):
        vk.launch(k, 2, [np.zeros((2, 3), np.float32), (1.0, 2.0), np.eye(2), (0, 0, 0, 1), 1.0])


def test_warp_builtins_meaning():
    src = W + ("@wp.kernel\ndef k(x: wp.array[float], out: wp.array[float], n: wp.array[int]):\n"
               "    i = wp.tid()\n    v = x[i]\n"
               "    out[i] = wp.lerp(v, 3.0, t=0.5) + wp.mod(v, 1.5) + wp.sign(v) "
               "+ wp.clamp(v, low=0.0, high=1.0) + wp.radians(180.0)\n"
               "    n[i] = wp.mod(-7, 3) + wp.static(2 ** 4)\n"
               "    wp.expect_eq(i, i)\n    print(i)\n    wp.printf(\"%d\", i)\n")
    k = compile_ok(src)
    x = np.array([-2.0, 0.25, 2.0], np.float32)
    out, n = np.zeros(3, np.float32), np.zeros(3, np.int32)
    vk.launch(k, 3, [x, out, n])
    want = (x * 0.5 + 1.5) + np.fmod(x, 1.5) + np.where(x < 0, -1, 1) + np.clip(x, 0, 1) + np.pi
    np.testing.assert_allclose(out, want, rtol=1e-6)
    assert n.tolist() == [-1 + 16] * 3          # C's %: the sign of the dividend


def test_identity_and_quat_rpy():
    src = W + ("@wp.kernel\ndef k(m: wp.array[wp.mat33], q: wp.array[wp.quat]):\n"
               "    m[0] = wp.identity(n=3, dtype=float)\n    q[0] = wp.quat_rpy(0.0, 0.0, 1.0)\n")
    k = compile_ok(src)
    m, q = np.zeros((1, 3, 3), np.float32), np.zeros((1, 4), np.float32)
    vk.launch(k, 1, [m, q])
    assert m[0].tolist() == np.eye(3).tolist()
    np.testing.assert_allclose(q[0], [0, 0, np.sin(0.5), np.cos(0.5)], rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("body, rule, needle", [
    ("a[0] = wp.lerp(1.0, 2.0, s=0.5)", "keyword-args", "0.5)"),
    ("a[0] = wp.lerp(1.0, 2.0, wp.atomic_add(a, 0, 1.0))", "warp-builtin-args", "wp.atomic_add"),
    ("a[0] = float(wp.static(n))", "static-not-constant", "n))"),
    ("a[0] = wp.sqrt(y=2.0)", "keyword-args", "2.0)"),
    ("v = 1.0\n    v = 2\n    a[0] = v", "type-change", "v = 2"),
])
def test_warp_builtin_errors(body, rule, needle):
    src = W + f"@wp.kernel\ndef k(a: wp.array[float], n: int):\n    {body}\n"
    err = first_error(src)
    assert err.rule == rule
    assert (err.loc.line, err.loc.col) == marker_loc(src, needle)


def test_mixed_comparison_converts_the_int_like_c():
    src = W + ("@wp.kernel\ndef k(x: wp.array[float], r: int, out: wp.array[int]):\n"
               "    i = wp.tid()\n    if x[i] < r:\n        out[i] = 1\n")
    k = compile_ok(src)
    out = np.zeros(3, np.int32)
    # 16777217 rounds to 16777216.0 in float32, so 16777216.0 < 16777217 is false in C
    vk.launch(k, 3, [np.array([0.5, 16777216.0, 3.0], np.float32), 16777217, out])
    assert out.tolist() == [1, 0, 1]


DECORATED = W + '''
@vk.requires(lambda a, b: a.shape[0] == vk.launch_dim())
@wp.kernel
@vk.requires(lambda a, b: b.shape[0] == a.shape[0])
def k(a: wp.array[float], b: wp.array[float]):
    i = wp.tid()
    b[i] = a[i] + 1.0
'''


def test_decorator_requires_is_checked_by_launch():
    k = compile_ok(DECORATED)
    a, b = np.ones(4, np.float32), np.zeros(4, np.float32)
    vk.launch(k, 4, [a], outputs=[b])
    assert b.tolist() == [2.0] * 4
    with pytest.raises(ContractError, match="precondition at t.py:8:"):
        vk.check_launch(k, 5, [a, b])
    with pytest.raises(ContractError, match="precondition at t.py:10:"):
        vk.check_launch(k, 4, [a, np.zeros(3, np.float32)])


def test_decorator_requires_is_proved_like_in_body():
    from verikern.app.prove import prove_source
    text = compile_text(DECORATED)   # noqa: F841 (compiles)
    import textwrap
    reports = prove_source(textwrap.dedent(DECORATED), "d.py")
    assert [r.status.value for r in reports] == ["proved"]
    undecorated = "\n".join(line for line in textwrap.dedent(DECORATED).splitlines()
                            if not line.startswith("@vk.requires"))
    assert [r.status.value for r in prove_source(undecorated, "u.py")] == ["failed"]


@pytest.mark.parametrize("dec, rule, needle", [
    ("@vk.requires(lambda z: z > 0)", "requires-decorator", "z: z"),
    ("@vk.requires(lambda a: b.shape[0] > 0)", "requires-decorator", "b.shape"),
    ("@vk.requires(lambda a: a[0] > 0.0)", "requires-uniform", "a[0]"),
    ("@vk.requires(lambda a, *r: True)", "requires-decorator", "lambda"),
    ("@vk.requires(a_condition)", "requires-decorator", "@vk.requires"),
])
def test_decorator_requires_errors(dec, rule, needle):
    src = W + f"{dec}\n@wp.kernel\ndef k(a: wp.array[float], b: wp.array[float]):\n    pass\n"
    err = first_error(src)
    assert err.rule == rule
    line, col = marker_loc(src, needle)
    assert err.loc.line == line and (needle.startswith("@") or err.loc.col == col)


def test_requires_on_a_func_is_an_error():
    src = W + "@vk.requires(lambda x: x > 0.0)\n@wp.func\ndef f(x: float) -> float:\n    return x\n"
    assert first_error(src).rule == "requires-position"


def test_runtime_requires_returns_its_argument():
    marker = object()
    assert vk.requires(lambda a: True)(marker) is marker
    with pytest.raises(Exception, match="inside a @vk.kernel body"):
        vk.requires(True)


TUPLES = W + '''
@wp.func
def split(x: float) -> tuple[float, wp.vec2, int]:
    return x * 2.0, wp.vec2(x, -x), 3

@wp.func
def again(x: float):
    return split(x)

@wp.kernel
def k(a: wp.array[float], b: wp.array[wp.vec2], c: wp.array[int]):
    i = wp.tid()
    p, q, r = again(a[i])
    a[i] = p
    b[i] = q
    c[i] = r
'''


@pytest.mark.parametrize("device", ["cpu", "cpu:native"])
def test_func_tuple_returns(device):
    k = compile_ok(TUPLES)
    a, b, c = np.arange(3, dtype=np.float32), np.zeros((3, 2), np.float32), np.zeros(3, np.int32)
    vk.launch(k, 3, [a, b, c], device=device)
    assert a.tolist() == [0.0, 2.0, 4.0] and c.tolist() == [3, 3, 3]
    assert b.tolist() == [[0.0, -0.0], [1.0, -1.0], [2.0, -2.0]]


@pytest.mark.parametrize("use, needle", [
    ("t = split(1.0)", "split(1.0)"),
    ("a[0] = split(1.0) + 1.0", "split(1.0)"),
    ("p, q = split(1.0)", "p, q"),
])
def test_tuple_results_must_be_unpacked_whole(use, needle):
    src = TUPLES.split("@wp.kernel")[0] + f"@wp.kernel\ndef k2(a: wp.array[float]):\n    {use}\n"
    e = first_error(src)
    assert e.rule in ("no-tuples",)
    assert (e.loc.line, e.loc.col) == marker_loc(src, needle)


LOOP_DEF = W + '''
@wp.kernel
def k(a: wp.array[float], n: int):
    t = 0.0
    for j in range(3):
        d = a[j] * 2.0
        t = t + d
    a[3] = d + t
'''


def test_constant_loop_defines_what_its_body_always_assigns():
    k = compile_ok(LOOP_DEF)
    a = np.array([1, 2, 3, 0], np.float32)
    vk.launch(k, 1, [a, 0])
    assert a[3] == 6.0 + 12.0          # d from the last iteration, plus the sum


@pytest.mark.parametrize("loop", ["range(n)", "range(0)", "range(3)"])
def test_loops_that_may_skip_or_leave_early_do_not_define(loop):
    """After them the read is checked (Warp builds it; check/assigned_reads.py),
    except after `range(0)`, which Warp unrolls to nothing ("undefined symbol")."""
    body = "        if a[j] > 0.0:\n            break\n" if loop == "range(3)" else ""
    src = W + (f"@wp.kernel\ndef k(a: wp.array[float], n: int):\n    for j in {loop}:\n"
               f"{body}        d = 1.0\n    a[0] = d\n")
    if loop == "range(0)":
        assert first_error(src).rule == "undefined-variable"
        return
    k = compile_ok(src)
    a = np.ones(4, np.float32)
    with pytest.raises(UnassignedReadError):    # no iteration, or a break before `d = 1.0`
        vk.launch(k, 1, [a, 0])
    vk.launch(k, 1, [-a, 2])
    assert a[0] == 1.0


@pytest.mark.parametrize("body, needle", [
    ("x = wp.randf(s) if n > 0 else 0.0", "wp.randf(s) if"),
    ("while wp.randf(s) < 0.5:\n        pass", "wp.randf(s) < 0.5"),
    ("x = wp.randf(n + 0)", "n + 0"),
    ("x = wp.randf(n)", ("n)\n", 1)),
])
def test_random_number_call_positions(body, needle):
    src = W + f"@wp.kernel\ndef k(a: wp.array[float], n: int):\n    s = wp.rand_init(n)\n    {body}\n"
    e = first_error(src)
    assert e.rule in ("rand-position", "rand-state")
    needle, nth = needle if isinstance(needle, tuple) else (needle, 0)
    assert (e.loc.line, e.loc.col) == marker_loc(src, needle, nth)


def test_random_numbers_follow_warps_pcg():
    src = W + ("@wp.kernel\ndef k(out: wp.array[wp.uint32], f: wp.array[float]):\n"
               "    s = wp.rand_init(7)\n    out[0] = wp.randu(s)\n    f[0] = wp.randf(s)\n")
    k = compile_ok(src)
    out, f = np.zeros(1, np.uint32), np.zeros(1, np.float32)
    vk.launch(k, 1, [out, f])

    def pcg(x):   # Warp's rand.h, written out independently
        b = (x * 747796405 + 2891336453) & 0xFFFFFFFF
        c = (((b >> ((b >> 28) + 4)) ^ b) * 277803737) & 0xFFFFFFFF
        return (c >> 22) ^ c
    s1 = pcg(pcg(7))
    assert out[0] == s1
    assert f[0] == np.float32(pcg(s1) >> 8) * np.float32(2.0 ** -24)


OVERLOADS = "from typing import Any\n" + W + '''
@wp.func
def f(x: float) -> float:
    return x * 2.0

@wp.func
def f(x: int) -> int:
    return x * 3

@wp.func
def f(x: float) -> float:
    return x * 5.0

@wp.func
def add(a: Any, b: Any):
    return a + b
'''


def test_overloads_replace_same_signature_and_generics_specialize():
    src = OVERLOADS + ("@wp.kernel\ndef k(a: wp.array[float], b: wp.array[int]):\n"
                       "    a[0] = f(1.0) + add(0.5, 0.25)\n    b[0] = f(2) + add(1, 2)\n")
    k = compile_ok(src)
    a, b = np.zeros(1, np.float32), np.zeros(1, np.int32)
    vk.launch(k, 1, [a, b])
    assert a[0] == 5.75 and b[0] == 9      # the later f(float) replaced the first one


@pytest.mark.parametrize("use, rule, needle", [
    ("a[0] = f(wp.vec2(1.0, 2.0))", "no-overload", "f(wp.vec2"),
    ("a[0] = add(1.0, 2)", "implicit-conversion", "a + b"),
])
def test_overload_errors(use, rule, needle):
    src = OVERLOADS + f"@wp.kernel\ndef k(a: wp.array[float]):\n    {use}\n"
    e = first_error(src)
    assert e.rule == rule
    assert (e.loc.line, e.loc.col) == marker_loc(src, needle)


def test_generic_kernel_instances_declared_then_every_scalar_type():
    src = "from typing import Any\n" + W + ("@wp.kernel\ndef g(a: wp.array[Any]):\n    pass\n\n"
                                           "wp.overload(g, [wp.array[float]])\n"
                                           "wp.overload(g, {'a': wp.array[int]})\n"
                                           "@wp.kernel\ndef h(x: Any):\n    pass\n")
    r = compile_text(src)
    scalars = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
               "float16", "float32", "float64"]
    declared = ["float32", "int32"]
    assert r.kernel_names == [f"g[{t}]" for t in declared + [t for t in scalars if t not in declared]] \
        + ["g[...]"] + [f"h[{t}]" for t in scalars] + ["h[...]"]
    assert [p.type for p in r.kernel("g[int32]").hir.params] == [ArrayType(I32, 1)]
    assert r.kernel("g[int32]").mir.name == "g__int32"
    # an empty body type-checks with vec3 too: Warp would build that (and vec5, structs, ...)
    for name, needle in (("g[...]", "def g"), ("h[...]", "def h")):
        e = r.kernel(name).error
        assert e.rule == "generic-kernel" and "[vec3]" in e.message and "concrete type" in e.hint
        assert e.loc.line == marker_loc(src, needle)[0]


def test_generic_kernel_typed_by_its_launch_sites():
    src = "from typing import Any\nimport numpy as np\n" + W + '''
@wp.kernel
def fill(a: wp.array[Any], value: Any):
    i = wp.tid()
    a[i] = value

def run(n):
    ints = wp.zeros(8, dtype=int)
    wp.launch(fill, dim=8, inputs=[ints, 3])
    vs = wp.empty(shape=(8,), dtype=wp.vec3)
    wp.launch(fill, 8, inputs=[vs, wp.vec3(1.0, 2.0, 3.0)])
    wp.launch(fill, 8, inputs=[wp.zeros(8, dtype=int)], outputs=[])
    wp.launch(fill, n, inputs=[wp.array(np.zeros(n), dtype=float), 1.0])
    wp.launch(fill, n, inputs=[wp.zeros(n, dtype=float), 1.0])
    wp.launch(fill, 8, inputs=[wp.zeros(8, dtype=wp.int32), 5])
'''
    r = compile_text(src)
    assert [k.name for k in r.kernels if k.error is not None] == ["fill[...]"]   # vec types
    # uncertain sites (unknown data ndim, a shape that may be a tuple, a missing argument)
    # are skipped; the same typing twice gives one instance; then every scalar typing
    assert [[str(p.type) for p in k.hir.params] for k in r.kernels[:2]] == [
        ["array<int32, 1>", "int32"], ["array<vec3, 1>", "vec3"]]
    assert r.kernel_names[:3] == ["fill[int32, int32]", "fill[vec3, vec3]", "fill[bool, bool]"]
    a = np.zeros(4, np.int32)
    vk.launch(r.kernel("fill[int32, int32]").mir, 4, [a, 9])
    assert a.tolist() == [9] * 4
