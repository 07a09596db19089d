"""Reads of arrays held by the elements of a struct array (frontend/check/held_arrays.py,
verikern/held_launch.py) against real Warp 1.19 on its CPU device: the simulator and
cpu:native give Warp's results, for a Warp struct array and for a list of struct
instances, with elements of different lengths, an unset (null) array and two elements
holding one array; the launch refuses a held array that overlaps another argument; a
write through a held array is a located error."""
from __future__ import annotations

import numpy as np
import pytest

import verikern as vk
from verikern.errors import LaunchError
from verikern.frontend import compile_source

from warp_compat.compat_util import warp_module_from_text

SOURCE = '''import warp as wp


@wp.struct
class Block:
    data: wp.array(dtype=wp.int32)
    scale: wp.float32
    span: wp.vec2i


@wp.struct
class Mesh:
    blocks: wp.array(dtype=Block)
    count: wp.int32


@wp.kernel
def block_totals(m: Mesh, out: wp.array(dtype=wp.float32), sizes: wp.array(dtype=wp.int32)):
    b = wp.tid()
    blk = m.blocks[b]
    total = wp.float32(0.0)
    for j in range(blk.data.shape[0]):
        total += wp.float32(blk.data[j]) * blk.scale
    out[b] = total + wp.float32(blk.span.y - blk.span.x)
    sizes[b] = len(m.blocks[b].data) + m.count


@wp.kernel
def last_of_each(blocks: wp.array(dtype=Block), out: wp.array(dtype=wp.int32)):
    b = wp.tid()
    n = blocks[b].data.shape[0]
    if n > 0:
        out[b] = blocks[b].data[n - 1]
    else:
        out[b] = -1
'''


def _blocks(wp, module):
    shared = wp.array(np.array([4, 5], np.int32), dtype=wp.int32, device="cpu")
    out = []
    for data, scale, span in ((np.arange(1, 4, dtype=np.int32), 0.5, (1, 4)), (None, 2.0, (0, 0)),
                              (shared, 1.0, (2, 9)), (shared, 3.0, (5, 6)),
                              (np.arange(10, 17, dtype=np.int32), 0.25, (0, 1))):
        b = module.Block()
        if data is not None:
            b.data = data if not isinstance(data, np.ndarray) else wp.array(data, dtype=wp.int32,
                                                                            device="cpu")
        b.scale, b.span = scale, wp.vec2i(*span)
        out.append(b)
    return out


@pytest.fixture
def held(warp_cpu, tmp_path):
    module = warp_module_from_text(tmp_path, SOURCE, "verikern_held_reads")
    return warp_cpu, module, compile_source(SOURCE, "held.py")


def test_struct_field_form_runs_as_under_warp(held):
    wp, module, ours = held
    elements = _blocks(wp, module)
    m = module.Mesh()
    m.blocks, m.count = wp.array(elements, dtype=module.Block, device="cpu"), 100
    w_out = wp.zeros(5, dtype=wp.float32, device="cpu")
    w_sizes = wp.zeros(5, dtype=wp.int32, device="cpu")
    wp.launch(module.block_totals, dim=5, inputs=[m, w_out, w_sizes], device="cpu")
    assert w_sizes.numpy().tolist() == [103, 100, 102, 102, 107]   # each element's own length
    k = ours.kernel("block_totals")
    assert k.error is None, k.error.render()
    for dev in ("cpu", "cpu:native"):
        for given in (m, {"count": 100, "blocks": elements}):   # a Warp struct array, a list
            out, sizes = np.zeros(5, np.float32), np.zeros(5, np.int32)
            vk.launch(k.mir, 5, [given, out, sizes], device=dev)
            assert out.tolist() == w_out.numpy().tolist(), dev
            assert sizes.tolist() == w_sizes.numpy().tolist(), dev


def test_parameter_form_runs_as_under_warp(held):
    wp, module, ours = held
    elements = _blocks(wp, module)
    arr = wp.array(elements, dtype=module.Block, device="cpu")
    w_out = wp.zeros(5, dtype=wp.int32, device="cpu")
    wp.launch(module.last_of_each, dim=5, inputs=[arr, w_out], device="cpu")
    assert w_out.numpy().tolist() == [3, -1, 5, 5, 16]
    k = ours.kernel("last_of_each")
    for dev in ("cpu", "cpu:native"):
        out = np.zeros(5, np.int32)
        vk.launch(k.mir, 5, [arr, out], device=dev)
        assert out.tolist() == [3, -1, 5, 5, 16], dev


def test_a_held_array_that_overlaps_another_argument_is_refused(held):
    wp, module, ours = held
    elements = _blocks(wp, module)
    arr = wp.array(elements, dtype=module.Block, device="cpu")
    with pytest.raises(LaunchError, match="overlaps the argument out"):
        vk.launch(ours.kernel("last_of_each").mir, 2, [arr, elements[4].data], device="cpu")
    with pytest.raises(LaunchError, match="overlaps the argument out"):
        vk.check_launch(ours.kernel("last_of_each").mir, 2, [elements, elements[0].data.numpy()])


def test_writes_and_other_uses_of_a_held_array_are_located_errors():
    head = SOURCE.split("@wp.kernel")[0]
    for body, col, words in (
            ("    m.blocks[0].data[0] = 1\n", 5, "read-only here"),
            ("    wp.atomic_add(m.blocks[0].data, 0, 1)\n", 19, "can be indexed"),
            ("    blk = m.blocks[0]\n    x = blk.data\n", 9, "can be indexed")):
        text = head + "@wp.kernel\ndef k(m: Mesh):\n" + body
        (err,) = [x.error for x in compile_source(text, "w.py").kernels]
        assert err is not None and err.rule == "struct-use", err
        line = 18 + body.count("\n")
        assert err.render().startswith(f"w.py:{line}:{col}: error:") and words in err.render(), \
            err.render()


def test_the_model_bounds_every_read_by_its_own_element_length(tmp_path):
    # the near miss: one past the element's length is inside the padded width W of a longer
    # element, and still fails, with the witness the simulator replays
    text = SOURCE.replace("out[b] = blocks[b].data[n - 1]", "out[b] = blocks[b].data[n]")
    (tmp_path / "held.py").write_text(text)
    from verikern.app.prove import prove_file
    (r,) = prove_file(tmp_path / "held.py", kernel="last_of_each")
    assert r.status.value == "failed"
    held = [o for o in r.obligations if o.kind.value == "assert" and o.loc.line == 33]
    assert [o.status.name for o in held] == ["FAILED"] and held[0].confirmed, held
    (tmp_path / "held.py").write_text(SOURCE)      # `data[n - 1]`: that assert is proved
    (r,) = prove_file(tmp_path / "held.py", kernel="last_of_each")
    held = [o for o in r.obligations if o.kind.value == "assert" and o.loc.line == 33]
    assert [o.status.name for o in held] == ["PROVED"], held


def test_the_held_reads_assemble_with_ptxas(tmp_path):
    from verikern.backends.ptx import assemble, compile_ptx_bundle, find_ptxas
    if find_ptxas() is None:
        pytest.skip("ptxas not found (pip install 'verikern[cuda]')")
    ours = compile_source(SOURCE, "held.py")
    ptx, entries = compile_ptx_bundle([k.mir for k in ours.kernels], "sm_80")
    result = assemble(ptx, "sm_80")
    assert result.ok, result.log
    assert len(entries) == 2


OUTSIDE = '''import warp as wp


@wp.struct
class Grid:
    cells: wp.array2d(dtype=wp.int32)


@wp.struct
class Inner:
    data: wp.array(dtype=wp.int32)


@wp.struct
class Nested:
    inner: wp.array(dtype=Inner)


@wp.kernel
def {body}
'''


@pytest.mark.parametrize("body, words", [
    ("two_d(grids: wp.array(dtype=Grid), out: wp.array(dtype=wp.int32)):\n    out[0] = 1\n",
     "its elements hold the 2-d array cells"),
    ("nested(n: wp.array(dtype=Nested), out: wp.array(dtype=wp.int32)):\n    out[0] = 1\n",
     "its elements hold the struct array inner"),
    ("rows(blocks: wp.array2d(dtype=Inner), out: wp.array(dtype=wp.int32)):\n    out[0] = 1\n",
     "a 2-d array of structs that hold arrays"),
])
def test_what_the_model_does_not_cover_stays_a_located_error(body, words):
    (err,) = [k.error for k in compile_source(OUTSIDE.format(body=body), "o.py").kernels]
    assert err is not None and err.rule == "struct-use", err
    assert err.render().startswith("o.py:20:") and words in err.render(), err.render()


def test_an_element_copy_is_read_through_its_fields_only():
    head = SOURCE.split("@wp.kernel")[0]
    helper = "@wp.func\ndef first(b: Block) -> wp.int32:\n    return b.data[0]\n\n\n"
    for body, words in (("    blk = m.blocks[0]\n    x = first(blk)\n", "pass that array and the index"),
                        ("    blk = m.blocks[0]\n    blk = Block()\n", "can only be assigned elements")):
        text = head + helper + "@wp.kernel\ndef k(m: Mesh):\n" + body
        (err,) = [x.error for x in compile_source(text, "w.py").kernels]
        assert err is not None and words in err.render(), err.render()


def test_a_list_whose_value_fields_the_kernel_writes_is_refused(held):
    wp, module, _ = held
    text = SOURCE.split("@wp.kernel")[0] + (
        "@wp.kernel\ndef rescale(m: Mesh):\n    b = wp.tid()\n    m.blocks[b].scale = 2.0\n")
    k = compile_source(text, "w.py").kernel("rescale")
    assert k.error is None, k.error.render()
    elements = _blocks(wp, module)
    with pytest.raises(LaunchError, match="writes m.blocks.scale"):
        vk.launch(k.mir, 5, [{"count": 0, "blocks": elements}], device="cpu")
    m = module.Mesh()
    m.blocks, m.count = wp.array(elements, dtype=module.Block, device="cpu"), 0
    vk.launch(k.mir, 5, [m], device="cpu")      # a Warp struct array: written in place
    assert [float(x) for x in m.blocks.numpy()["scale"]] == [2.0] * 5


def test_a_whole_element_store_is_a_located_error():
    head = SOURCE.split("@wp.kernel")[0]
    text = head + "@wp.kernel\ndef k(m: Mesh):\n    blk = m.blocks[0]\n    blk.scale = 3.0\n    m.blocks[1] = blk\n"
    (err,) = [x.error for x in compile_source(text, "w.py").kernels]
    assert err is not None and err.render().startswith("w.py:21:5: error: m.blocks holds structs that "
                                                       "hold arrays"), err.render()


def test_an_element_copy_made_on_some_paths_only_is_a_checked_read_named_by_its_variable():
    head = SOURCE.split("@wp.kernel")[0]
    text = head + ("@wp.kernel\ndef k(m: Mesh, out: wp.array(dtype=wp.int32), c: wp.int32):\n"
                   "    if c > 0:\n        blk = m.blocks[0]\n    out[0] = blk.data[0]\n")
    k = compile_source(text, "w.py").kernel("k")
    assert k.error is None, k.error.render()
    checks = [ins.message for _, ins in k.mir.instructions()
              if type(ins).__name__ == "Assert" and ins.kind == "unassigned"]
    assert checks == ["variable 'blk' is read before it is assigned"], checks
    out = np.zeros(1, np.int32)
    from verikern.errors import UnassignedReadError
    with pytest.raises(UnassignedReadError):
        vk.launch(k.mir, 1, [{"count": 0, "blocks": [{"data": np.ones(1, np.int32), "scale": 1.0,
                                                      "span": (0, 0)}]}, out, 0], device="cpu")


def test_type_of_a_held_element_checks_its_own_length_too():
    # `type(blk.data[j])(...)`: Warp computes the element's address (nothing read); its index is
    # checked against the element's own length, as a read's is, not only the padded width
    head = SOURCE.split("@wp.kernel")[0]
    text = head + ("@wp.kernel\ndef k(m: Mesh, out: wp.array(dtype=wp.int32), j: wp.int32):\n"
                   "    blk = m.blocks[0]\n    out[0] = type(blk.data[j])(3)\n")
    k = compile_source(text, "w.py").kernel("k")
    assert k.error is None, k.error.render()
    held = [ins for _, ins in k.mir.instructions()
            if type(ins).__name__ == "Assert" and "held array index" in ins.message]
    assert [(a.loc.line, a.loc.col) for a in held] == [(20, 19)], held
    blocks = [{"data": np.ones(2, np.int32), "scale": 1.0, "span": (0, 0)},
              {"data": np.ones(5, np.int32), "scale": 1.0, "span": (0, 0)}]
    out = np.zeros(1, np.int32)
    vk.launch(k.mir, 1, [{"count": 0, "blocks": blocks}, out, 1], device="cpu")
    assert out.tolist() == [3]
    from verikern.errors import KernelAssertionError
    with pytest.raises(KernelAssertionError):    # 2 < the padded width 5, past its own length 2
        vk.launch(k.mir, 1, [{"count": 0, "blocks": blocks}, out, 2], device="cpu")


def test_only_the_held_arrays_a_kernel_reads_carry_contracts():
    # the contracts on a held leaf the kernel never reads are dropped (a weaker assumption;
    # frontend/driver.py), those on a leaf it reads or measures are kept
    head = SOURCE.replace("    scale: wp.float32\n", "    scale: wp.float32\n    other: wp.array(dtype=wp.float32)\n")
    head = head.split("@wp.kernel")[0]
    for body, want in (("    out[0] = m.blocks[0].data[1]\n", ["m.blocks.data.len"]),
                       ("    out[0] = m.blocks[0].other.shape[0]\n", ["m.blocks.other.len"]),
                       ("    out[0] = m.count\n", [])):
        text = head + "@wp.kernel\ndef k(m: Mesh, out: wp.array(dtype=wp.int32)):\n" + body
        k = compile_source(text, "w.py").kernel("k")
        assert k.error is None, k.error.render()
        contracts = [ins.array.name for _, ins in k.mir.instructions()
                     if type(ins).__name__ == "RequiresArray"]
        assert contracts == want, (body, contracts)


VECTORS = '''import warp as wp


@wp.struct
class Patch:
    pts: wp.array(dtype=wp.vec3)
    ids: wp.array(dtype=wp.int32)


@wp.kernel
def patch_sums(patches: wp.array(dtype=Patch), out: wp.array(dtype=wp.vec3)):
    b = wp.tid()
    p = patches[b]
    s = wp.vec3(0.0, 0.0, 0.0)
    for j in range(p.pts.shape[0]):
        s += p.pts[j] * wp.float32(p.ids.shape[0])
    out[b] = s
'''


def test_held_arrays_of_vectors_run_as_under_warp(warp_cpu, tmp_path):
    # warp-simdata's blocks also hold `grid_coords: wp.array(dtype=wp.vec3f)`: a held array of
    # vectors is packed with its components ([n, W, 3]), from Warp's memory or from numpy
    wp = warp_cpu
    module = warp_module_from_text(tmp_path, VECTORS, "verikern_held_vectors")
    rng = np.random.default_rng(5)
    elements = []
    for n, m in ((3, 2), (0, 1), (5, 0)):
        p = module.Patch()
        if n:
            p.pts = wp.array(rng.standard_normal((n, 3)).astype(np.float32), dtype=wp.vec3, device="cpu")
        if m:
            p.ids = wp.array(np.arange(m, dtype=np.int32), dtype=wp.int32, device="cpu")
        elements.append(p)
    arr = wp.array(elements, dtype=module.Patch, device="cpu")
    w_out = wp.zeros(3, dtype=wp.vec3, device="cpu")
    wp.launch(module.patch_sums, dim=3, inputs=[arr, w_out], device="cpu")
    k = compile_source(VECTORS, "v.py").kernel("patch_sums")
    assert k.error is None, k.error.render()
    as_numpy = [{"pts": e.pts.numpy() if e.pts is not None else None,
                 "ids": e.ids.numpy() if e.ids is not None else None} for e in elements]
    for dev in ("cpu", "cpu:native"):
        for given in (arr, as_numpy):
            out = np.zeros((3, 3), np.float32)
            vk.launch(k.mir, 3, [given, out], device=dev)
            np.testing.assert_allclose(out, w_out.numpy(), rtol=1e-6, atol=1e-6)


HANDLE = '''import warp as wp


@wp.struct
class Section:
    offsets: wp.array(dtype=wp.int32)
    span: wp.vec2i


@wp.struct
class Handle:
    own: Section
    sections: wp.array(dtype=Section)


@wp.kernel
def section_sizes(h: Handle, faces: wp.array(dtype=wp.int32), nodes: wp.array(dtype=wp.int32)):
    b = wp.tid()
    s = h.sections[b]
    count = s.span.y - s.span.x + 1
    faces[b] = count + h.own.span.y + h.own.offsets.shape[0]
    nodes[b] = s.offsets[count]
'''


def test_a_handle_with_unset_fields_runs_as_under_warp(warp_cpu, tmp_path):
    # warp-simdata's _nface_n_block_sizes_kernel shape, launched with Warp's own instance whose
    # other fields are unset: an unset array field is Warp's null array (shape 0), an int vector
    # field keeps int components
    wp = warp_cpu
    module = warp_module_from_text(tmp_path, HANDLE, "verikern_held_handle")
    sections = []
    for start, sizes in ((1, (3, 4)), (3, (3, 3, 5))):
        s = module.Section()
        s.span = wp.vec2i(start, start + len(sizes) - 1)
        s.offsets = wp.array(np.concatenate(([0], np.cumsum(sizes))).astype(np.int32), dtype=wp.int32,
                             device="cpu")
        sections.append(s)
    h = module.Handle()
    h.sections = wp.array(sections, dtype=module.Section, device="cpu")
    h.own.span = wp.vec2i(4, 7)
    w_faces, w_nodes = (wp.zeros(2, dtype=wp.int32, device="cpu") for _ in range(2))
    wp.launch(module.section_sizes, dim=2, inputs=[h, w_faces, w_nodes], device="cpu")
    assert w_faces.numpy().tolist() == [9, 10] and w_nodes.numpy().tolist() == [7, 11]
    k = compile_source(HANDLE, "h.py").kernel("section_sizes")
    assert k.error is None, k.error.render()
    for dev in ("cpu", "cpu:native"):
        faces, nodes = np.zeros(2, np.int32), np.zeros(2, np.int32)
        vk.launch(k.mir, 2, [h, faces, nodes], device=dev)
        assert faces.tolist() == [9, 10] and nodes.tolist() == [7, 11], dev
