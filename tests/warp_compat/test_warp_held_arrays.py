"""What Warp 1.19 does with an array of a struct whose fields are arrays
(warp-simdata's `ngon_n_blocks: wp.array(dtype=UGDatasetHandle)`), the facts a
model of such arrays must keep: each element holds its own array handle (its
own shape), two elements may hold the same array, and that array may also be
passed as another parameter of the same launch. Warp's launch rules forbid none
of this. verikern models reads of them (frontend/check/held_arrays.py; the
equivalence tests are test_warp_held_reads.py): a write through a held array,
which another element or argument may see, is a located error, and `vk.launch`
refuses a held array that overlaps another argument."""
from __future__ import annotations

import numpy as np
import pytest

import verikern as vk
from verikern.app.prove import prove_file
from verikern.frontend import compile_source

from warp_compat.compat_util import warp_module_from_text

SOURCE = '''import warp as wp


@wp.struct
class Block:
    data: wp.array(dtype=wp.int32)
    n: wp.int32


@wp.struct
class Mesh:
    blocks: wp.array(dtype=Block)
    count: wp.int32


@wp.kernel
def bump(m: Mesh, other: wp.array(dtype=wp.int32), lengths: wp.array(dtype=wp.int32)):
    i = wp.tid()
    b = m.blocks[i]
    b.data[0] = b.data[0] + 10 * (i + 1)
    m.blocks[i].data[1] = b.n
    lengths[i] = b.data.shape[0]
    other[2] = 99
'''


def test_elements_hold_arrays_of_their_own_shapes_and_may_share_one(warp_cpu, tmp_path):
    wp = warp_cpu
    module = warp_module_from_text(tmp_path, SOURCE, "verikern_held_arrays")
    shared = wp.array(np.zeros(4, np.int32), dtype=wp.int32, device="cpu")
    own = wp.array(np.zeros(6, np.int32), dtype=wp.int32, device="cpu")
    elements = []
    for data, n in ((shared, 5), (shared, 7), (own, 3)):
        b = module.Block()
        b.data, b.n = data, n
        elements.append(b)
    m = module.Mesh()
    m.blocks, m.count = wp.array(elements, dtype=module.Block, device="cpu"), 3
    lengths = wp.zeros(3, dtype=wp.int32, device="cpu")
    wp.launch(module.bump, dim=3, inputs=[m, shared, lengths], device="cpu")   # `shared` twice more
    assert lengths.numpy().tolist() == [4, 4, 6]         # each element's own shape
    # elements 0 and 1 wrote the one array they share (CPU threads run in order), and the
    # launch's `other` parameter is that array too
    assert shared.numpy().tolist() == [10 + 20, 7, 99, 0]
    assert own.numpy().tolist() == [30, 3, 0, 0, 0, 0]
    assert m.blocks.numpy().dtype["data"].names[:3] == ("data", "grad", "shape")   # a handle per element


def test_verikern_refuses_a_write_through_the_held_arrays():
    (err,) = [k.error for k in compile_source(SOURCE, "held.py").kernels]
    assert err is not None and err.rule == "struct-use"
    assert err.render().startswith("held.py:20:5: error: b.data[0]: the arrays held by the elements "
                                   "of a struct array are read-only here"), err.render()


# warp-simdata's `_nface_n_face_locations_kernel`: its dataset struct has the held arrays in a
# field the kernel never reaches; the field's leaves are parameters the kernel never reads, packed
# by the launch from Warp's instance or a list of elements
UNTOUCHED = SOURCE.replace("@wp.kernel\ndef bump", "@wp.kernel\ndef bump_unused") + '''

@wp.kernel
def counted(m: Mesh, starts: wp.array(dtype=wp.int32), out: wp.array(dtype=wp.int32)):
    i = wp.tid()
    if i < out.shape[0] and m.count > 0:
        k = wp.lower_bound(starts, i)
        out[i] = m.count * 100 + k
'''


def test_a_kernel_that_never_reaches_the_held_arrays_runs_as_under_warp(warp_cpu, tmp_path):
    wp = warp_cpu
    module = warp_module_from_text(tmp_path, UNTOUCHED, "verikern_held_untouched")
    ours = compile_source(UNTOUCHED, "held.py")
    assert ours.kernel("bump_unused").error is not None
    k = ours.kernel("counted")
    assert k.error is None, k.error.render()
    assert [p.name for p in k.hir.params] == ["m.blocks.data", "m.blocks.data.len", "m.blocks.n",
                                              "m.count", "starts", "out"]
    b = module.Block()
    b.data, b.n = wp.array(np.arange(3, dtype=np.int32), dtype=wp.int32, device="cpu"), 4
    m = module.Mesh()
    m.blocks, m.count = wp.array([b], dtype=module.Block, device="cpu"), 7
    starts = np.array([0, 2, 5, 5, 9], np.int32)
    out = wp.zeros(8, dtype=wp.int32, device="cpu")
    wp.launch(module.counted, dim=8, inputs=[m, wp.array(starts, device="cpu"), out], device="cpu")
    want = [700 + min(int(np.searchsorted(starts, i)), len(starts) - 1) for i in range(8)]
    assert out.numpy().tolist() == want
    for dev in ("cpu", "cpu:native"):
        for given in (m, {"count": 7, "blocks": [b]}):   # Warp's instance, a dict with a list
            got = np.zeros(8, np.int32)
            vk.launch(k.mir, 8, [given, starts.copy(), got], device=dev)
            assert got.tolist() == want, dev


@pytest.mark.slow
def test_the_kernel_that_never_reaches_them_is_proved(tmp_path):
    (tmp_path / "held.py").write_text(UNTOUCHED)
    reports = prove_file(tmp_path / "held.py", kernel="counted")
    assert [r.status.value for r in reports] == ["proved"], [r.status for r in reports]

