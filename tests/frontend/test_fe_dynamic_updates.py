"""Updates of a local vector or matrix at a run-time index
(check/dynamic_updates.py, check/element_parts.py): `res[i] += x`,
`m[i] *= s`, `m[i, j] -= x` and `m[i][j] = x` as Warp 1.19 runs them, on the
simulator and cpu:native against numpy by hand (real Warp:
tests/warp_compat/test_warp_dynamic_updates.py); an index past the vector
fails its one range assertion, confirmed by the simulator; an index that
calls something is still refused."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import verikern as vk
from verikern.app.prove import prove_file, prove_source
from verikern.frontend import compile_file, compile_source
from verikern.proofs.obligations import KernelStatus

KERNELS = Path(__file__).resolve().parents[1] / "warp_compat" / "kernels_dynamic_updates.py"
N = 4
M = np.arange(N * 9, dtype=np.float32).reshape(N, 3, 3) / 4.0 - 3.0
V = (np.arange(N * 3, dtype=np.float32).reshape(N, 3) - 5.0) / 2.0
K = np.array([0, 2, 1, 2], np.int32)


def by_hand():
    out = np.einsum("nij,nj->ni", M, V).astype(np.float32)
    eye = np.stack([np.eye(3, dtype=np.float32) * (i + 1) for i in range(N)])
    rows = M.copy()
    for i, k in enumerate(K):
        rows[i, k] *= 2.0
        rows[i, k, 2 - k] -= 1.0
    return out, eye, rows


def on_verikern(device: str):
    (kernel,) = compile_file(KERNELS).kernels
    assert kernel.error is None, kernel.error
    out, eye, rows = np.zeros((N, 3), np.float32), np.zeros((N, 3, 3), np.float32), np.zeros((N, 3, 3), np.float32)
    vk.launch(kernel.mir, N, [M, V, K, out, eye, rows], device=device)
    return out, eye, rows


@pytest.mark.parametrize("device", ["cpu", "cpu:native"])
def test_run_time_index_updates_match_numpy(device):
    for got, want in zip(on_verikern(device), by_hand()):
        np.testing.assert_allclose(got, want, rtol=1e-6)


def test_the_updates_are_proved_with_their_index_guard():
    # k[i] is any int32: the run-time row index must be asserted in range, and it fails
    (report,) = prove_file(KERNELS)
    assert report.status == KernelStatus.FAILED
    shapes = " or ".join(f"i >= {a}.shape[0]" for a in ("m", "v", "k", "out", "eye", "rows"))
    guarded = KERNELS.read_text().replace("    i = wp.tid()\n", f"    i = wp.tid()\n    if {shapes}:\n"
                                          "        return\n").replace(
        "    r = m[i]\n", "    r = m[i]\n    if k[i] < 0 or k[i] > 2:\n        return\n")
    assert [r.status for r in prove_source(guarded, "g.py")] == [KernelStatus.PROVED]


PAST = '''import warp as wp


@wp.func
def matvec4(mat: wp.mat33, vec: wp.vec3):
    res = wp.vec3(0.0)
    for i in range(4):
        for j in range(3):
            res[i] += mat[i % 3, j] * vec[j]
    return res


@wp.kernel
def apply(m: wp.array(dtype=wp.mat33), v: wp.array(dtype=wp.vec3), out: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    if i < m.shape[0] and i < v.shape[0] and i < out.shape[0]:
        out[i] = matvec4(m[i], v[i])
'''


def test_an_update_past_the_vector_fails_its_one_assertion():
    (report,) = prove_source(PAST, "p.py")
    assert report.status == KernelStatus.FAILED
    failures = [o for o in report.obligations if o.status.name == "FAILED"]
    assert len(failures) == 1 and "vector index in range" in failures[0].message
    assert failures[0].loc.line == 9 and failures[0].confirmed


def test_an_index_that_calls_something_is_still_refused():
    src = PAST.replace("res[i] += mat[i % 3, j] * vec[j]", "res[wp.min(i, 2)] += mat[i % 3, j] * vec[j]")
    err = compile_source(src, "c.py").kernels[0].error
    assert err is not None and "cannot update" in err.render()
