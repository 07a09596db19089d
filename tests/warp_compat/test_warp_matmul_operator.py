"""The `@` operator (tests/warp_compat/kernels_matmul_operator.py): Warp 1.19
maps it to its builtin `mul`, the builtin of `*` (`warp/_src/codegen.py`,
`builtin_operators[ast.MatMult] = "mul"`), so it takes exactly the operands
`*` takes. Real Warp on its CPU device and verikern's simulator and
`cpu:native` give the same results on the same inputs, numpy is the
independent reference of the formulas, the kernel is proved, and what Warp
refuses (`vec3 @ vec3`: no `mul` overload) verikern refuses too."""
from __future__ import annotations

import numpy as np
import pytest

import verikern as vk
from verikern.app.prove import prove_file
from verikern.frontend import compile_source
from warp_compat.compat_util import HERE, load_kernels

wp = pytest.importorskip("warp")


@pytest.fixture(scope="module")
def kernels(tmp_path_factory):
    return load_kernels(wp, tmp_path_factory, "kernels_matmul_operator")


def _inputs(n):
    rng = np.random.default_rng(17)
    q = rng.normal(size=(n, 4))
    return [rng.normal(size=(n, 3, 3)).astype(np.float32), rng.normal(size=(n, 3)).astype(np.float32),
            (q / np.linalg.norm(q, axis=1, keepdims=True)).astype(np.float32), rng.normal(size=(n, 2, 2)),
            rng.integers(-50, 50, n).astype(np.int32)]


def test_matmul_operator_computes_what_warp_computes(kernels):
    n = 5
    a, v, q, d, ints = _inputs(n)
    dtypes = [wp.mat33, wp.vec3, wp.quat, wp.mat22d, int, wp.vec3, wp.mat33, wp.quat, wp.mat22d, int, wp.vec2]
    outs = [np.zeros((n, 3), np.float32), np.zeros((n, 3, 3), np.float32), np.zeros((n, 4), np.float32),
            np.zeros((n, 2, 2)), np.zeros(n, np.int32), np.zeros((n, 2), np.float32)]
    arrays = [wp.array(x, dtype=t, device="cpu") for x, t in zip([a, v, q, d, ints] + outs, dtypes)]
    wp.launch(kernels.matmul_ops, dim=n, inputs=arrays, device="cpu")
    theirs = [x.numpy() for x in arrays[5:]]
    # numpy: `m @ x` a column, `x @ m` a row; `@=` multiplies on the right
    y = (np.einsum("nij,nj->ni", a, v) + np.einsum("ni,nij->nj", v, a))
    np.testing.assert_allclose(theirs[0], np.einsum("ni,nij->nj", y, a), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(theirs[1], (a @ a @ a) * 0.5 + 2.0 * a, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(theirs[3], d @ d, rtol=1e-12)
    np.testing.assert_array_equal(theirs[4], ints * 3)
    np.testing.assert_allclose(theirs[5], np.einsum("ij,nj->ni", np.arange(1.0, 7.0).reshape(2, 3), v),
                               rtol=1e-5, atol=1e-5)
    for dev in ("cpu", "cpu:native"):
        ours = [x.copy() for x in [a, v, q, d, ints] + outs]
        vk.launch(kernels.matmul_ops, n, ours, device=dev)
        for k, (o, w) in enumerate(zip(ours[5:], theirs)):
            np.testing.assert_allclose(o, w.reshape(o.shape), rtol=1e-5, atol=1e-5, err_msg=f"output {k} on {dev}")


def test_matmul_operator_kernel_is_proved():
    reports = prove_file(HERE / "kernels_matmul_operator.py")
    assert {r.kernel: r.status.value for r in reports} == {"matmul_ops": "proved"}


@pytest.mark.parametrize("expr", ["v[i] @ v[i]", "a[i] @ v2"])
def test_what_warp_has_no_mul_for_is_refused(expr):
    text = ("import warp as wp\n\n\n@wp.kernel\ndef k(a: wp.array(dtype=wp.mat33), v: wp.array(dtype=wp.vec3), "
            f"out: wp.array(dtype=wp.vec3)):\n    i = wp.tid()\n    v2 = wp.vec2()\n    x = {expr}\n")
    err = compile_source(text, "k.py").kernels[0].error
    assert err is not None and err.loc.line == 8, err
