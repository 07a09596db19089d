"""A call argument choosing between two arrays (check/array_choices.py):
`f(..., a if c else b)` is checked as `if c: f(..., a) else: f(..., b)`, each
read bounds-checked against its own array; on the simulator and cpu:native
against numpy by hand (real Warp: tests/warp_compat/test_warp_array_choices.py);
a guard that covers only one of the arrays fails on the other, replayed; a
test that calls something, or a choice stored in a variable, stays refused."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import verikern as vk
from verikern.app.prove import prove_source
from verikern.frontend import compile_file, compile_source
from verikern.proofs.obligations import KernelStatus

KERNELS = Path(__file__).resolve().parents[1] / "warp_compat" / "kernels_array_choices.py"
NEIGHBORS = np.array([0, 1, 2, 3, 4, 5], np.int32)
ORDER = np.array([5, 4, 3, 2, 1, 0], np.int32)
VALS = np.array([1, 2, 4, 8, 16, 32], np.float32)
WIDTH = 2


def by_hand(use_neighbors: bool) -> np.ndarray:
    idx = NEIGHBORS if use_neighbors else ORDER
    return np.array([VALS[idx[i * WIDTH:(i + 1) * WIDTH]].sum() for i in range(3)], np.float32)


def on_verikern(device: str, use_neighbors: bool) -> np.ndarray:
    (kernel,) = compile_file(KERNELS).kernels
    assert kernel.error is None, kernel.error
    out = np.full(3, 7.0, np.float32)
    vk.launch(kernel.mir, 3, [{"neighbors": NEIGHBORS, "order": ORDER}, VALS, use_neighbors, WIDTH, out],
              device=device)
    return out


@pytest.mark.parametrize("device", ["cpu", "cpu:native"])
@pytest.mark.parametrize("use_neighbors", [True, False])
def test_the_chosen_array_is_the_one_read(device, use_neighbors):
    np.testing.assert_array_equal(on_verikern(device, use_neighbors), by_hand(use_neighbors))


def test_the_kernel_is_proved_and_a_guard_on_one_array_fails_on_the_other():
    text = KERNELS.read_text()
    assert [r.status for r in prove_source(text, "c.py")] == [KernelStatus.PROVED]
    guard = "wp.min(lists.neighbors.shape[0], lists.order.shape[0])"
    assert guard in text
    one_sided = text.replace(guard, "lists.neighbors.shape[0]")
    (report,) = prove_source(one_sided, "c.py")
    assert report.status == KernelStatus.FAILED
    failed = [o for o in report.obligations if o.status.name == "FAILED"]
    assert failed and all(o.loc.line == 19 for o in failed) and any(o.confirmed for o in failed)


@pytest.mark.parametrize("old,new", [
    ("if use_neighbors else", "if wp.abs(width) > 0 else"),          # the test calls something
    ("out[i] += gather_sum(lists.neighbors if use_neighbors else lists.order,",
     "chosen = lists.neighbors if use_neighbors else lists.order\n        out[i] += gather_sum(chosen,"),
])
def test_other_choices_of_an_array_stay_refused(old, new):
    text = KERNELS.read_text()
    assert old in text
    err = compile_source(text.replace(old, new), "c.py").kernels[0].error
    assert err is not None and "cannot choose an array" in err.render()
