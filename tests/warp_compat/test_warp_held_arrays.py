"""What Warp 1.19 does with an array of a struct whose fields are arrays
(warp-simdata's `ngon_n_blocks: wp.array(dtype=UGDatasetHandle)`), the facts a
model of such arrays must keep: each element holds its own array handle (its
own shape), two elements may hold the same array, and that array may also be
passed as another parameter of the same launch. Warp's launch rules forbid none
of this, so a proof could assume no distinctness between those arrays; verikern
does not model them yet and refuses such a type where it is written (the
located error of test_warp_structs.py)."""
from __future__ import annotations

import numpy as np

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


def test_verikern_refuses_the_type_where_it_is_written():
    (err,) = [k.error for k in compile_source(SOURCE, "held.py").kernels]
    assert err is not None and err.rule == "struct-use"
    assert "held.py:12:13" in err.render() and "whose elements hold arrays" in err.render(), err.render()

