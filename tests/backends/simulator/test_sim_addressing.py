"""Element addresses on the simulator and on cpu:native against numpy
multi-indices: shared and global arrays of 1 to 4 dimensions, both shared
layouts, scalar, vec3 and mat22 elements, every mix of uniform and per-lane
index parts (addressing_kernels.py), and the two shapes issue 25 found
(a shared tile row read at a constant row, a vec3 element of a shared
array: the constant terms of the address were dropped once another index
varied per lane)."""
from __future__ import annotations

import numpy as np
import pytest

from addressing_kernels import BLOCK, AddressCase, all_cases, inputs, reference, source
from simkit import KB, compile_kernel, launch_config
from verikern.backends.cuda import cuda_available
from verikern.backends.simulator import simulate
from verikern.backends.simulator.memory import MemoryArray, element_strides, flat_address
from verikern.mir.nodes import ArrayRef
from verikern.mir.types import I32
from verikern.runtime import launch

DEVICES = ("cpu", "cpu:native")
CUDA_OK, CUDA_WHY = cuda_available(0)

TILE_ROW = compile_kernel('''
import verikern as vk

@vk.kernel(block_dim=4)
def tile_row(x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32)):
    tile = vk.shared.array(shape=(2, 4), dtype=vk.float32)
    t = vk.thread_idx()
    i = vk.tid()
    tile[1, t] = x[i] + 100.0
    tile[0, t] = x[i]
    vk.sync_threads()
    out[i] = tile[1, (t + 1) % 4]
''')

VEC3_ELEMENT = compile_kernel('''
import verikern as vk

@vk.kernel(block_dim=4)
def vec_elem(out: vk.array(dtype=vk.vec3)):
    s = vk.shared.array(shape=(4,), dtype=vk.vec3)
    t = vk.thread_idx()
    s[t] = vk.vec3(3.0, 4.0, 5.0) + vk.vec3(float(t), 0.0, 0.0)
    vk.sync_threads()
    out[vk.tid()] = s[(t + 1) % 4]
''')


@pytest.mark.parametrize("device", DEVICES)
def test_shared_tile_row_is_read_at_its_constant_row(device):
    x = np.arange(12, dtype=np.float32)
    out = np.zeros(12, np.float32)
    launch(TILE_ROW, 12, [x, out], block_dim=4, device=device)
    t = np.arange(12) % 4
    want = x[(np.arange(12) - t) + (t + 1) % 4] + 100.0     # row 1, the next column
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("device", DEVICES)
def test_vec3_element_of_a_shared_array_keeps_its_components(device):
    out = np.zeros((8, 3), np.float32)
    launch(VEC3_ELEMENT, 8, [out], block_dim=4, device=device)
    nxt = (np.arange(8) % 4 + 1) % 4
    np.testing.assert_array_equal(out, np.stack([3.0 + nxt, np.full(8, 4.0), np.full(8, 5.0)],
                                                axis=1).astype(np.float32))


def _memory(shape, block_elems, nblocks):
    ref = ArrayRef("s", I32, len(shape), (), "shared", shape)
    flat = np.zeros(block_elems * nblocks, np.int32)
    return MemoryArray(ref, flat, shape, element_strides(shape), block_elems)


@pytest.mark.parametrize("pattern", ["uu", "uv", "vu", "vv"])
@pytest.mark.parametrize("with_base", [False, True])
@pytest.mark.parametrize("buffer", [False, True])
def test_flat_address_adds_every_term(pattern, with_base, buffer):
    """Each mix of uniform (u) and per-lane (v) indices, with and without a
    block base and an output buffer: the address is base + sum(i_k * stride_k)."""
    shape, lanes = (3, 5), 6
    mem = _memory(shape, 15, 2)
    rng = np.random.default_rng(len(pattern) + with_base)
    per_lane = [rng.integers(0, n, lanes).astype(np.int32) for n in shape]
    uniform = [np.int32(2), np.int32(4)]
    ixs = [per_lane[k] if ch == "v" else uniform[k] for k, ch in enumerate(pattern)]
    base = np.array([0, 0, 0, 15, 15, 15], np.int64) if with_base else None
    out = np.empty(lanes, np.int64) if buffer else None
    got = flat_address(mem, ixs, base, lanes, out)
    want = np.broadcast_to(ixs[0], lanes) * 5 + np.broadcast_to(ixs[1], lanes)
    if with_base:
        want = want + base
    np.testing.assert_array_equal(got, want)


def test_shared_store_and_load_with_a_constant_row_through_hand_built_mir():
    """The same shape without the frontend: s[1, t] = t, then out[g] = s[1, (t + 1) % 4]."""
    kb = KB("rows")
    out = kb.arr("out", "int32")
    s = kb.shared("s", "int32", (2, 4))
    t = kb.special("thread_idx")
    kb.store(s, (kb.c(0), t), kb.c(-1))
    kb.store(s, (kb.c(1), t), kb.op("add", t, kb.c(10)))
    kb.barrier()
    kb.store(out, kb.tid(), kb.load(s, kb.c(1), kb.op("mod", kb.op("add", t, kb.c(1)), kb.c(4))))
    kb.ret()
    k = kb.finish()
    got = np.zeros(8, np.int32)
    simulate(k, launch_config(8, 4), {"out": got}, {})
    np.testing.assert_array_equal(got, (np.arange(8) % 4 + 1) % 4 + 10)


@pytest.mark.gpu
@pytest.mark.skipif(not CUDA_OK, reason=CUDA_WHY or "no CUDA device")
@pytest.mark.parametrize("case", all_cases(), ids=lambda c: c.name)
def test_every_address_shape_matches_numpy_on_cuda(case: AddressCase):
    """The same kernels through the PTX backend (its shared memory and
    column-major layout are the GPU's own)."""
    test_every_address_shape_matches_numpy(case, "cuda:0")


@pytest.mark.parametrize("case", all_cases(), ids=lambda c: c.name)
@pytest.mark.parametrize("device", DEVICES)
def test_every_address_shape_matches_numpy(case: AddressCase, device):
    kernel = compile_kernel(source(case), filename=f"{case.name}.py")
    args = inputs(case)
    want = reference(case, args)
    launch(kernel, case.blocks * BLOCK, args, block_dim=BLOCK, device=device)
    names = ["src"] + (["s"] if case.space == "global" else []) + ["snap", "rd"]
    for name, got, ref in zip(names, args, want):
        if isinstance(got, np.ndarray):
            np.testing.assert_array_equal(got, ref, err_msg=f"{case.name} on {device}: {name}")


ROW_OF_TID = compile_kernel('''
import verikern as vk

@vk.kernel
def rows(a: vk.array(dtype=vk.int32, ndim=2), b: vk.array(dtype=vk.int32, ndim=3),
         v: vk.array(dtype=vk.vec3), m: vk.array(dtype=vk.mat22, ndim=2),
         out: vk.array(dtype=vk.int32, ndim=2), ov: vk.array(dtype=vk.vec3, ndim=2),
         om: vk.array(dtype=vk.mat22)):
    i = vk.tid()
    out[i, 2] = a[i, 1] + b[i, 2, 1]
    out[i, 0] = b[i, 0, 3]
    ov[i, 1] = v[i]
    om[i] = m[i, 1]
''')


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("n,block", [(40, 8), (37, 64)])
def test_the_thread_id_as_first_index_beside_constant_ones(device, n, block):
    """Every lane active, the first index the thread id and the others
    constants (the simulator reads such an access as one strided slice)."""
    rng = np.random.default_rng(n)
    a = rng.integers(-99, 99, (n, 3)).astype(np.int32)
    b = rng.integers(-99, 99, (n, 3, 4)).astype(np.int32)
    v = rng.integers(-9, 9, (n, 3)).astype(np.float32)
    m = rng.integers(-9, 9, (n, 2, 2, 2)).astype(np.float32)
    out = np.zeros((n, 3), np.int32)
    ov = np.zeros((n, 2, 3), np.float32)
    om = np.zeros((n, 2, 2), np.float32)
    launch(ROW_OF_TID, n, [a, b, v, m, out, ov, om], block_dim=block, device=device)
    want = np.zeros((n, 3), np.int32)
    want[:, 2] = a[:, 1] + b[:, 2, 1]
    want[:, 0] = b[:, 0, 3]
    np.testing.assert_array_equal(out, want)
    np.testing.assert_array_equal(ov[:, 1], v)
    np.testing.assert_array_equal(ov[:, 0], 0)
    np.testing.assert_array_equal(om, m[:, 1])
