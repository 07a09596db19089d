"""The CPU thread loop: a leading `if i < n` guard becomes the loop's bound
(backends/llvm/guard.py), and barrier-free kernels with contiguous accesses
get LLVM's loop vectoriser on AVX-512 hosts; results stay the simulator's."""
from __future__ import annotations

import llvmlite.binding as llvm
import numpy as np
import pytest

import verikern as vk
from verikern.backends.llvm.guard import thread_guard
from verikern.backends.native.jit import compile_kernel
from verikern.backends.native.vectorize import contiguous_across_threads
from verikern.frontend import compile_file, compile_source

from shared_helpers import ROOT

AVX512 = bool(llvm.get_host_cpu_features().get("avx512f", False))


def _kernel(source: str, name: str):
    return compile_source(source, "k.py").kernel(name).mir


GUARDED = '''import verikern as vk


@vk.kernel
def scale(x: vk.array(dtype=vk.float32), n: vk.int32, out: vk.array(dtype=vk.float32)):
    i = vk.tid()
    if i < n and i < x.shape[0] and 7 > i - 1:
        out[i] = 2.0 * x[i]
'''

EFFECT_BEFORE_GUARD = '''import verikern as vk


@vk.kernel
def scale(x: vk.array(dtype=vk.float32), n: vk.int32, out: vk.array(dtype=vk.float32)):
    i = vk.tid()
    out[0] = 1.0
    if i < n:
        out[i] = 2.0 * x[i]
'''


def test_the_guard_is_recognised_only_when_skipped_threads_do_nothing():
    assert thread_guard(_kernel(EFFECT_BEFORE_GUARD, "scale")) is None
    k = _kernel(GUARDED.replace(" and 7 > i - 1", ""), "scale")
    assert thread_guard(k).bounds == (("param", "n", 0), ("shape", "x", 0))
    saxpy = compile_file(ROOT / "examples" / "saxpy.py").kernel("saxpy").mir
    assert thread_guard(saxpy) is not None
    # `7 > i - 1` compares a value other than the linear id: no guard
    assert thread_guard(_kernel(GUARDED, "scale")) is None


@pytest.mark.parametrize("n", [-5, 0, 3, 300, 10_000])
def test_a_guarded_kernel_runs_exactly_the_threads_the_guard_admits(n):
    k = _kernel(GUARDED.replace(" and 7 > i - 1", ""), "scale")
    x = np.arange(1000, dtype=np.float32)
    got = np.full(1000, -1.0, np.float32)
    want = got.copy()
    vk.launch(k, 1000, [x, n, got], block_dim=96, device="cpu:native")
    vk.launch(k, 1000, [x, n, want], block_dim=96, device="cpu")
    np.testing.assert_array_equal(got, want)


def test_only_contiguous_barrier_free_kernels_are_vectorised():
    examples = ROOT / "examples"
    assert contiguous_across_threads(compile_file(examples / "saxpy.py").kernel("saxpy").mir)
    assert contiguous_across_threads(
        compile_file(examples / "ray_triangle.py").kernel("intersect").mir)
    gather = compile_file(ROOT / "verikern" / "selftest_corpus" / "ok_gather_in_range.py")
    assert not contiguous_across_threads(gather.kernel("gather_checked").mir)
    assert not contiguous_across_threads(
        compile_file(examples / "block_reduce.py").kernel("block_sum").mir)


@pytest.mark.skipif(not AVX512, reason="the thread loop is vectorised only on AVX-512 hosts")
def test_ray_triangle_is_vectorised_and_equals_the_simulator():
    module = compile_file(ROOT / "examples" / "ray_triangle.py")
    k = module.kernel("intersect").mir
    ck = compile_kernel(k)
    assert "vector.body" in ck.optimized_ir
    rng = np.random.default_rng(1)
    n = 1000
    arrays = [rng.standard_normal((n, 3)).astype(np.float32) for _ in range(5)]
    got, want = np.zeros(n, np.float32), np.zeros(n, np.float32)
    vk.launch(k, n, arrays + [got], block_dim=128, device="cpu:native")
    vk.launch(k, n, arrays + [want], block_dim=128, device="cpu")
    np.testing.assert_array_equal(got, want)
