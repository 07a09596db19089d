"""Source-level kernels (through the frontend) on cpu:native: 3-D launches,
loops with breaks, float16 math, int64 indices, and the error locations
pointing at the kernel file's line and column."""
from __future__ import annotations

import textwrap

import numpy as np
import pytest

from verikern.errors import DivisionByZeroError, OutOfBoundsError
from verikern.frontend import compile_source
from verikern.runtime import launch

SOURCE = textwrap.dedent('''
    import verikern as vk

    @vk.kernel
    def fill3(out: vk.array(dtype=vk.int32, ndim=3)):
        i, j, k = vk.tid()
        if i < out.shape[0] and j < out.shape[1] and k < out.shape[2]:
            out[i, j, k] = i * 10000 + j * 100 + k

    @vk.kernel
    def first_negative(x: vk.array(dtype=vk.float32, ndim=2), pos: vk.array(dtype=vk.int64)):
        r = vk.tid()
        if r < x.shape[0]:
            found = vk.int64(-1)
            for c in range(x.shape[1]):
                if x[r, c] < 0.0:
                    found = vk.int64(c)
                    break
            pos[r] = found

    @vk.kernel
    def half_poly(x: vk.array(dtype=vk.float16), y: vk.array(dtype=vk.float16)):
        i = vk.tid()
        if i < x.shape[0]:
            v = x[i]
            y[i] = v * v * vk.float16(0.5) + vk.sin(v) - vk.float16(0.1)

    @vk.kernel(block_dim=16)
    def shuffle_cm(x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32)):
        s = vk.shared.array(shape=(4, 4), dtype=vk.float32, layout="column_major")
        t = vk.thread_idx()
        i = vk.tid()
        s[t % 4, t // 4] = x[i]
        vk.sync_threads()
        out[i] = s[t // 4, t % 4]

    @vk.kernel
    def gather_div(idx: vk.array(dtype=vk.int64), d: vk.array(dtype=vk.int32),
                   src: vk.array(dtype=vk.int32), out: vk.array(dtype=vk.int32)):
        i = vk.tid()
        if i < out.shape[0]:
            out[i] = src[idx[i]] // d[i]
''')


GATHER_LINE = SOURCE.splitlines().index("        out[i] = src[idx[i]] // d[i]") + 1


@pytest.fixture(scope="module")
def kernels():
    result = compile_source(SOURCE, "native_source_kernels.py")
    assert not result.errors, result.errors
    out = {}
    for kr in result.kernels:
        assert kr.error is None, kr.error
        out[kr.name] = kr.mir
    return out


def both(kernel, dim, make, block):
    res = []
    for dev in ("cpu", "cpu:native"):
        args = make()
        launch(kernel, dim, args, block_dim=block, device=dev)
        res.append(args)
    return res


def test_3d_launch_with_partial_last_block(kernels):
    shape = (5, 7, 9)
    sim, nat = both(kernels["fill3"], shape, lambda: [np.zeros(shape, np.int32)], 32)
    i, j, k = np.indices(shape)
    np.testing.assert_array_equal(nat[0], i * 10000 + j * 100 + k)
    assert sim[0].tobytes() == nat[0].tobytes()


def test_loop_with_break_and_int64_output(kernels):
    rng = np.random.default_rng(4)
    x = rng.uniform(-0.2, 1.0, (50, 13)).astype(np.float32)
    sim, nat = both(kernels["first_negative"], 50,
                    lambda: [x.copy(), np.zeros(50, np.int64)], 16)
    expect = [next((c for c in range(13) if x[r, c] < 0), -1) for r in range(50)]
    assert nat[1].tolist() == expect
    assert sim[1].tobytes() == nat[1].tobytes()


def test_float16_arithmetic_bitwise_equal(kernels):
    x = np.linspace(-3, 3, 101).astype(np.float16)
    sim, nat = both(kernels["half_poly"], 101, lambda: [x.copy(), np.zeros(101, np.float16)], 32)
    assert sim[1].tobytes() == nat[1].tobytes()


def test_column_major_shared_array_with_barrier(kernels):
    x = np.arange(64, dtype=np.float32)
    sim, nat = both(kernels["shuffle_cm"], 64, lambda: [x.copy(), np.zeros(64, np.float32)], 16)
    expect = x.reshape(4, 4, 4).transpose(0, 2, 1).reshape(-1)   # per-block transpose
    np.testing.assert_array_equal(nat[1], expect)
    assert sim[1].tobytes() == nat[1].tobytes()


def test_errors_point_at_the_source(kernels):
    k = kernels["gather_div"]
    n = 40
    idx = np.arange(n, dtype=np.int64)
    d = np.ones(n, np.int32)
    src = np.arange(n, dtype=np.int32)
    bad_idx = idx.copy()
    bad_idx[17] = -1          # negative index: out of bounds, never wrapped
    for dev in ("cpu", "cpu:native"):
        with pytest.raises(OutOfBoundsError) as info:
            launch(k, n, [bad_idx, d, src, np.zeros(n, np.int32)], block_dim=8, device=dev)
        e = info.value
        assert (e.loc.file, e.loc.line) == ("native_source_kernels.py", GATHER_LINE)
        assert (e.thread, e.block) == (1, 2)
    bad_d = d.copy()
    bad_d[33] = 0
    for dev in ("cpu", "cpu:native"):
        with pytest.raises(DivisionByZeroError) as info:
            launch(k, n, [idx, bad_d, src, np.zeros(n, np.int32)], block_dim=8, device=dev)
        assert info.value.loc.line == GATHER_LINE and (info.value.thread, info.value.block) == (1, 4)
