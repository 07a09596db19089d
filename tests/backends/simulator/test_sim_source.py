"""Kernels written as source text, compiled by the frontend, run on the
simulator and compared with numpy / hand-computed references."""
import numpy as np
import pytest

from simkit import compile_kernel
from verikern.errors import (
    BarrierDivergenceError, DivisionByZeroError, KernelAssertionError, OutOfBoundsError,
)
from verikern.runtime import launch

HEADER = "import verikern as vk\n\n"


def kern(body: str, name=None):
    return compile_kernel(HEADER + body, name)


SAXPY = kern('''
@vk.kernel
def saxpy(x: vk.array(dtype=vk.float32), y: vk.array(dtype=vk.float32), a: vk.float32):
    vk.requires(x.shape[0] == y.shape[0])
    i = vk.tid()
    if i < x.shape[0]:
        y[i] = a * x[i] + y[i]
''')


@pytest.mark.parametrize("n,block", [(1, 1), (1000, 256), (1000, 7), (4096, 1024)])
def test_saxpy_matches_numpy(n, block):
    rng = np.random.default_rng(n)
    x, y = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
    ref = np.float32(1.5) * x + y
    launch(SAXPY, n + 3, [x, y, 1.5], block_dim=block)      # extra threads are guarded
    np.testing.assert_array_equal(y, ref)


def test_block_reduction_with_while_loop_and_barriers():
    k = kern('''
@vk.kernel
def red(x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32)):
    s = vk.shared.array(shape=(64,), dtype=vk.float32)
    t = vk.thread_idx()
    s[t] = x[vk.tid()]
    vk.sync_threads()
    stride = 32
    while stride > 0:
        if t < stride:
            s[t] = s[t] + s[t + stride]
        vk.sync_threads()
        stride = stride // 2
    if t == 0:
        out[vk.block_idx()] = s[0]
''')
    x = (np.arange(64 * 5) % 13).astype(np.float32)
    out = np.zeros(5, np.float32)
    launch(k, 64 * 5, [x, out], block_dim=64)
    np.testing.assert_array_equal(out, x.reshape(5, 64).sum(axis=1))


def test_barrier_in_divergent_branch_is_reported():
    k = kern('''
@vk.kernel
def bad(out: vk.array(dtype=vk.int32)):
    t = vk.thread_idx()
    if t < 3:
        vk.sync_threads()
    out[vk.tid()] = t
''')
    with pytest.raises(BarrierDivergenceError) as e:
        launch(k, 8, [np.zeros(8, np.int32)], block_dim=8)
    assert e.value.loc.line == 8 and "line 8" in str(e.value)
    assert "thread 3 of the same block" in str(e.value)


def test_histogram_atomics_from_source():
    k = kern('''
@vk.kernel
def hist(data: vk.array(dtype=vk.int32), bins: vk.array(dtype=vk.int32)):
    vk.requires(vk.all_in_range(data, 0, 16))
    i = vk.tid()
    if i < data.shape[0]:
        vk.atomic_add(bins, data[i], 1)
''')
    rng = np.random.default_rng(7)
    data = rng.integers(0, 16, 10000).astype(np.int32)
    bins = np.zeros(16, np.int32)
    launch(k, 10000, [data, bins], block_dim=128)
    np.testing.assert_array_equal(bins, np.bincount(data, minlength=16))


def test_two_d_tid_unpacking():
    k = kern('''
@vk.kernel
def fill(out: vk.array(dtype=vk.int32, ndim=2)):
    i, j = vk.tid()
    out[i, j] = i * 1000 + j
''')
    out = np.zeros((13, 21), np.int32)
    launch(k, (13, 21), [out], block_dim=32)
    np.testing.assert_array_equal(out, np.arange(13)[:, None] * 1000 + np.arange(21))


def test_loops_break_continue_and_early_return():
    k = kern('''
@vk.kernel
def loops(n: vk.array(dtype=vk.int32), out: vk.array(dtype=vk.int32)):
    i = vk.tid()
    if i >= out.shape[0]:
        return
    acc = 0
    for k in range(n[i]):
        if k == 13:
            break
        if k % 3 == 0:
            continue
        for m in range(k):
            acc += m
    out[i] = acc
''')
    n = np.arange(40, dtype=np.int32) % 20
    out = np.zeros(40, np.int32)
    launch(k, 64, [n, out], block_dim=16)
    expect = [sum(sum(range(kk)) for kk in range(min(v, 13)) if kk % 3) for v in n]
    assert out.tolist() == expect


def test_out_of_bounds_from_source_names_the_location():
    k = kern('''
@vk.kernel
def oob(a: vk.array(dtype=vk.float32)):
    i = vk.tid()
    a[i + 1] = 1.0
''')
    with pytest.raises(OutOfBoundsError) as e:
        launch(k, 4, [np.zeros(4, np.float32)], block_dim=2)
    assert e.value.loc.line == 7 and e.value.detail["index"] == (4,)
    assert "thread 1 of block 1" in str(e.value)


def test_assert_and_division_by_zero_from_source():
    k = kern('''
@vk.kernel
def chk(a: vk.array(dtype=vk.int32), out: vk.array(dtype=vk.int32)):
    i = vk.tid()
    assert a[i] != 5, "five is not allowed"
    out[i] = 100 // a[i]
''')
    with pytest.raises(KernelAssertionError) as e:
        launch(k, 4, [np.array([1, 2, 5, 3], np.int32), np.zeros(4, np.int32)], block_dim=4)
    assert "five is not allowed" in str(e.value) and e.value.thread == 2
    with pytest.raises(DivisionByZeroError) as e:
        launch(k, 4, [np.array([1, 0, 2, 3], np.int32), np.zeros(4, np.int32)], block_dim=4)
    assert e.value.thread == 1 and e.value.loc.line == 8
    out = np.zeros(3, np.int32)
    launch(k, 3, [np.array([-7, 3, 200], np.int32), out], block_dim=4)
    assert out.tolist() == [100 // -7, 33, 0]


def test_shared_atomics_then_barrier_then_global_atomics():
    k = kern('''
@vk.kernel
def hist2(data: vk.array(dtype=vk.int32), bins: vk.array(dtype=vk.int32)):
    s = vk.shared.array(shape=(8,), dtype=vk.int32)
    t = vk.thread_idx()
    if t < 8:
        s[t] = 0
    vk.sync_threads()
    vk.atomic_add(s, data[vk.tid()] % 8, 1)
    vk.sync_threads()
    if t < 8:
        vk.atomic_add(bins, t, s[t])
''')
    data = np.random.default_rng(1).integers(0, 1000, 64 * 6).astype(np.int32)
    bins = np.zeros(8, np.int32)
    launch(k, 64 * 6, [data, bins], block_dim=64)
    np.testing.assert_array_equal(bins, np.bincount(data % 8, minlength=8))


def test_uniform_while_loop_with_barriers_per_block():
    k = kern('''
@vk.kernel
def rounds(out: vk.array(dtype=vk.int32)):
    s = vk.shared.array(shape=(1,), dtype=vk.int32)
    t = vk.thread_idx()
    if t == 0:
        s[0] = 0
    vk.sync_threads()
    n = 0
    while n < 5:
        if t == 0:
            s[0] = s[0] + vk.block_idx() + 1
        vk.sync_threads()
        n = n + 1
    out[vk.tid()] = s[0]
''')
    out = np.zeros(32 * 3, np.int32)
    launch(k, 32 * 3, [out], block_dim=32)
    np.testing.assert_array_equal(out, np.repeat([5, 10, 15], 32))
