"""Struct constructors with arguments and `wp.static(int(...))` of a class constant
(tests/warp_compat/kernels_struct_ctors.py) under real Warp on its CPU device and
under verikern's simulator and `cpu:native`: equal results, with numpy as an
independent reference, and the kernel proved under its contract."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import verikern as vk
from verikern.app.prove import prove_file
from verikern.backends.ptx import find_ptxas

from warp_compat.compat_util import load_kernels, ptxas_entries

wp = pytest.importorskip("warp")

HERE = Path(__file__).resolve().parent
DEVICES = ("cpu", "cpu:native")


@pytest.fixture(scope="module")
def kernels(tmp_path_factory):
    return load_kernels(wp, tmp_path_factory, "kernels_struct_ctors")


def spread(e, c0, c1, k):
    return e * 1000 + c0 * 100 + c1 * 10 + k


def test_struct_constructors_agree_with_warp_and_numpy(kernels):
    m = kernels
    n = 9
    kinds = np.array([42, 13, 0, 42, 42, 7, 13, 42, 0], np.int32)
    offsets = np.array([0, 3, 3, 4, 9, 10, 10, 12, 20, 20], np.int32)
    out = wp.zeros(n, dtype=wp.int32, device="cpu")
    cells = wp.zeros(n, dtype=m.Cell, device="cpu")
    wp.launch(m.cursors, dim=n, inputs=[wp.array(kinds, dtype=wp.int32, device="cpu"),
                                        wp.array(offsets, dtype=wp.int32, device="cpu"), out, cells],
              device="cpu")
    want_out, want_cells = out.numpy(), cells.numpy()
    i = np.arange(n)
    count = np.where(kinds == 42, offsets[1:] - offsets[:-1], 0)
    ref = (spread(i, i, 2 * i, kinds) + 7 * spread(i + 1, 3, i, 13) + 11 * spread(3 * i, i, 7, 42)
           + 13 * spread(3 * i, i, 7, 42) + count + spread(1, 2, 3, 4) + 1)
    np.testing.assert_array_equal(want_out, ref)
    np.testing.assert_array_equal(want_cells["elem_id"], i + count)
    np.testing.assert_array_equal(want_cells["corner"], np.stack([np.full(n, 3), i], axis=1))
    np.testing.assert_array_equal(want_cells["kind"], np.full(n, 42))
    for dev in DEVICES:
        o = np.zeros(n, np.int32)
        c = np.zeros_like(want_cells)
        vk.launch(m.cursors, n, [kinds.copy(), offsets.copy(), o, c], device=dev)
        np.testing.assert_array_equal(o, want_out, err_msg=dev)
        for f in want_cells.dtype.names:
            np.testing.assert_array_equal(c[f], want_cells[f], err_msg=f"{dev} {f}")


def test_a_partial_constructor_is_refused_as_warp_refuses_it(tmp_path, kernels):
    """Warp 1.19 finds no overload for `Cell(elem_id=.., kind=..)`: neither does verikern."""
    text = (HERE / "kernels_struct_ctors.py").read_text().replace(
        "return Cell(elem_id=i, corner=wp.vec2i(i, 2 * i), kind=kind)",
        "return Cell(elem_id=i, kind=kind)")
    (tmp_path / "partial.py").write_text(text)
    from verikern.frontend import compile_file   # lazy: this test only
    errors = compile_file(tmp_path / "partial.py").all_errors
    assert errors and "without its field corner" in errors[0].render(), errors
    assert "partial.py:33:12" in errors[0].render()
    spec_wp = pytest.importorskip("warp")
    from warp_compat.compat_util import warp_module_from_text
    mod = warp_module_from_text(tmp_path, text, "partial_ctor")
    with pytest.raises(Exception, match="Couldn't find function overload"):
        spec_wp.launch(mod.cursors, dim=1, inputs=[
            spec_wp.zeros(1, dtype=spec_wp.int32), spec_wp.zeros(2, dtype=spec_wp.int32),
            spec_wp.zeros(1, dtype=spec_wp.int32), spec_wp.zeros(1, dtype=mod.Cell)], device="cpu")


@pytest.mark.slow
def test_struct_constructor_kernel_is_proved():
    assert {r.kernel: r.status.value for r in prove_file(HERE / "kernels_struct_ctors.py")} == {
        "cursors": "proved"}


@pytest.mark.skipif(find_ptxas() is None, reason="ptxas not found (pip install 'verikern[cuda]')")
def test_struct_constructor_kernel_assembles_with_ptxas():
    assert len(ptxas_entries("kernels_struct_ctors")) == 1
