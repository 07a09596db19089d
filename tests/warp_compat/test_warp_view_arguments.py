"""A view passed straight as a call argument, `f(k_vectors[system_id], ...)` of a
2-d array (nvalchemi's batched reciprocal Ewald kernel hands each system's row to
the func the single-system kernel uses; verikern/frontend/check/views.py,
`hoist_view_arguments`): Warp 1.19 makes the view where the argument is
evaluated; verikern binds it to a hidden name just before the statement, which
makes the same view when its leading indices are names and int literals under
`+ - *` (they read no memory, call nothing, cannot fault). Real Warp on its CPU
device is the reference for the results; every index of an access through the
view, the leading one included, is a bounds obligation; a view argument verikern
does not take stays a located error."""
from __future__ import annotations

import numpy as np
import pytest

import verikern as vk
from verikern.app.prove import prove_source
from verikern.frontend import compile_source
from warp_compat.compat_util import warp_module_from_text

wp = pytest.importorskip("warp", reason="NVIDIA Warp is not installed (pip install warp-lang)")

ROWS = '''import warp as wp
from typing import Any


@wp.func
def weighted(row: wp.array(dtype=Any), n: int, scale: float) -> float:
    s = float(0.0)
    for k in range(n):
        s += float(row[k]) * scale * float(k + 1)
    return s


@wp.func
def bump(row: wp.array(dtype=wp.int32), k: int):
    wp.atomic_add(row, k, 1)


@wp.kernel
def row_sums(batch: wp.array(dtype=wp.int32), table: wp.array2d(dtype=wp.float32),
             counts: wp.array2d(dtype=wp.int32), out: wp.array(dtype=wp.float32)):
    i = wp.tid()
    s = batch[i]
    out[i] = weighted(table[s], table.shape[1], 0.5) + weighted(table[2 * s - s], 2, -1.0)
    s = 0                       # the view argument above was made with the old s
    q = i % 2
    bump(counts[q], s + 1)
'''


def test_view_arguments_read_and_write_as_warp_does(warp_cpu, tmp_path):
    module = warp_module_from_text(tmp_path, ROWS, "verikern_view_arguments")
    ours = compile_source(ROWS, "rows.py")
    assert not ours.all_errors, [e.render() for e in ours.all_errors]
    rng = np.random.default_rng(5)
    batch = np.array([2, 0, 1, 2, 1], np.int32)
    table = rng.uniform(-1, 1, (3, 4)).astype(np.float32)
    counts = np.zeros((2, 3), np.int32)
    w_counts = wp.array(counts, dtype=wp.int32, device="cpu")
    theirs = wp.zeros(5, dtype=wp.float32, device="cpu")
    wp.launch(module.row_sums, dim=5, device="cpu", inputs=[
        wp.array(batch, dtype=wp.int32, device="cpu"), wp.array(table, dtype=wp.float32, device="cpu"),
        w_counts, theirs])
    # the reference by numpy: row b weighted by 0.5 * (k + 1) over 4, minus the first two
    k = np.arange(1, 5, dtype=np.float64)
    expected = [(table[b] * 0.5 * k).sum() - (table[b][:2] * k[:2]).sum() for b in batch]
    np.testing.assert_allclose(theirs.numpy(), expected, rtol=1e-5)
    np.testing.assert_array_equal(w_counts.numpy(), [[0, 3, 0], [0, 2, 0]])
    for dev in ("cpu", "cpu:native"):
        out, c = np.zeros(5, np.float32), counts.copy()
        vk.launch(ours.kernel("row_sums").mir, 5, [batch, table, c, out], device=dev)
        np.testing.assert_allclose(out, theirs.numpy(), rtol=1e-6, err_msg=dev)
        np.testing.assert_array_equal(c, w_counts.numpy(), err_msg=dev)


GATHER = '''import warp as wp


@wp.func
def first(row: wp.array(dtype=wp.float32)) -> wp.float32:
    return row[0]


@wp.kernel
def k(batch: wp.array(dtype=wp.int32), table: wp.array2d(dtype=wp.float32),
      out: wp.array(dtype=wp.float32)):
    i = wp.tid()
    if i < batch.shape[0] and i < out.shape[0] and table.shape[1] > 0:
        s = batch[i]
        GUARD
        out[i] = first(table[s])
'''


def _failed(text: str) -> list:
    (r,) = prove_source(text, "k.py", suggest=False)
    return sorted((o.kind.value, o.loc.line, o.loc.col) for o in r.obligations if o.status.value == "failed")


def test_the_leading_index_of_a_view_argument_is_a_bounds_obligation():
    """`first(table[s])` reads table[s, 0]: out of bounds where s = batch[i] is
    unchecked (the failure is at the func's read), proved once s is guarded; a guard
    one too wide still fails."""
    assert _failed(GATHER.replace("GUARD", "pass")) == [("bounds", 6, 12)]
    assert _failed(GATHER.replace("GUARD", "if s < 0 or s >= table.shape[0]:\n            return")) == []
    assert _failed(GATHER.replace("GUARD", "if s < 0 or s > table.shape[0]:\n            return")) \
        == [("bounds", 6, 12)]


@pytest.mark.parametrize("call, where", [
    ("first(table[batch[i]])", "k.py:16:24"),                   # the index reads memory
    ("first(table[s // 2])", "k.py:16:24"),                     # `//` can fault
    ("first(table[s]) if s > 0 else 0.0", "k.py:16:24"),        # evaluated under a condition
])
def test_a_view_argument_verikern_does_not_take_is_a_located_error(call, where):
    text = GATHER.replace("GUARD", "pass").replace("first(table[s])", call)
    err = compile_source(text, "k.py").kernels[0].error
    assert err is not None and err.rule == "index-count", (err.render() if err else None)
    assert where in err.render(), err.render()


def test_a_view_argument_in_a_contract_is_not_moved_before_it():
    """`vk.requires(...)` stays where it is written: a view argument inside it is not bound
    before it (the located error of an unbound view, not a contract moved after a binding)."""
    text = ("import warp as wp\nimport verikern as vk\n\n\n@wp.func\n"
            "def count(row: wp.array(dtype=wp.float32)) -> int:\n    return row.shape[0]\n\n\n"
            "@wp.kernel\ndef k(table: wp.array2d(dtype=wp.float32), out: wp.array(dtype=wp.float32)):\n"
            "    vk.requires(count(table[0]) > 0)\n    i = wp.tid()\n    out[i] = 0.0\n")
    err = compile_source(text, "k.py").kernels[0].error
    assert err is not None and err.rule == "index-count" and "k.py:12:23" in err.render(), \
        err.render() if err else None
