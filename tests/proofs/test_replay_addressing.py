"""Correct kernels whose failed obligations come from an abstraction (values
loaded from a shared tile, a strided staging loop) are settled by replay:
replay must not confirm them. Each reads a shared tile at a constant row
beside a per-thread column -- the address shape whose constant terms the
simulator once dropped, so that replay read the wrong row and "confirmed" a
race, an out-of-bounds index and an uninitialised read that cannot happen
(issue 25). Each kernel is first run on the simulator and cpu:native
against a hand-computed result, so it is known to be correct."""
from __future__ import annotations

import numpy as np
import pytest

from shared_helpers import CORPUS, HEADER, mir_of
from verikern.frontend import compile_file
from verikern.proofs import KernelStatus, ObligationKind, Status
from verikern.proofs.pipeline import prove_mir
from verikern.runtime import launch

# the permutation read from row 1; row 0 (written last) holds one value for all
RACE = '''
@vk.kernel(block_dim=32)
def permute_through_tile_row(x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32)):
    vk.requires(out.shape[0] == 32 and x.shape[0] == 32)
    tile = vk.shared.array(shape=(2, 32), dtype=vk.int32)
    t = vk.thread_idx()
    tile[1, t] = (t + 7) % 32
    tile[0, t] = 0
    vk.sync_threads()
    j = tile[1, t]
    if vk.block_idx() == 0 and j >= 0 and j < 32:
        out[j] = x[t]
'''

# in-range indices in row 1; row 0 (written last) holds out-of-range ones
BOUNDS = '''
@vk.kernel(block_dim=32)
def scatter_through_tile_row(x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32)):
    vk.requires(out.shape[0] == 32 and x.shape[0] == 32)
    tile = vk.shared.array(shape=(2, 32), dtype=vk.int32)
    t = vk.thread_idx()
    tile[1, t] = 31 - t
    tile[0, t] = 1000000
    vk.sync_threads()
    k = tile[1, t]
    if vk.block_idx() == 0:
        out[k] = x[t]
'''

# two staging loops that start at 2 * thread_idx (even and odd columns; beyond
# the uninit prover, whose strided witness needs a start of thread_idx + offset)
# fill both rows
UNINIT = '''
@vk.kernel(block_dim=32)
def staged_row_broadcast(x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32)):
    vk.requires(out.shape[0] == x.shape[0])
    tile = vk.shared.array(shape=(2, 64), dtype=vk.float32)
    t = vk.thread_idx()
    i = vk.tid()
    for j in range(2 * t, 64, 2 * vk.block_dim()):
        tile[0, j] = 0.0
        tile[1, j] = float(j) + 1.0
    for j in range(2 * t + 1, 64, 2 * vk.block_dim()):
        tile[0, j] = 0.0
        tile[1, j] = float(j) + 1.0
    vk.sync_threads()
    if i < out.shape[0]:
        out[i] = tile[1, 0] + x[i]
'''

X = np.arange(64, dtype=np.float32) * 0.5
CASES = {
    # name: (source, kind, dim, x, expected out)
    "race": (RACE, ObligationKind.RACE, 64, X[:32], X[(np.arange(32) - 7) % 32]),
    "bounds": (BOUNDS, ObligationKind.BOUNDS, 64, X[:32], X[31 - np.arange(32)]),
    "uninit": (UNINIT, ObligationKind.UNINIT, 64, X, X + 1.0),
}


@pytest.mark.parametrize("device", ["cpu", "cpu:native"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_the_kernel_is_correct(name, device):
    src, _, dim, x, want = CASES[name]
    out = np.zeros(x.shape[0], np.float32)
    launch(mir_of(src, header=True), dim, [x.copy(), out], block_dim=32, device=device)
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("name", sorted(CASES))
def test_replay_does_not_confirm_the_abstract_failure(name):
    src, kind, *_ = CASES[name]
    report = prove_mir(mir_of(HEADER + src, filename="k.py"), file="k.py")
    assert report.status is not KernelStatus.FAILED, [o.message for o in report.obligations
                                                      if o.status is Status.FAILED]
    assert not any(o.status is Status.FAILED for o in report.obligations)
    unsettled = [o for o in report.obligations if o.kind is kind and o.status is Status.UNKNOWN]
    assert unsettled, f"the {kind.value} obligation was expected to need replay"
    assert all("not confirmed by replay" in (o.reason or "") for o in unsettled)


def test_a_race_after_an_uninitialised_read_is_confirmed_too():
    """Issue 27: replay records an uninitialised read and runs on (as
    compute-sanitizer's initcheck), so the race that thread 31's read of
    buf[32] comes before is confirmed as well as the read itself."""
    path = CORPUS / "race_uninit_shared_shift_in_place.py"
    kernel = compile_file(str(path)).kernels[0].mir
    report = prove_mir(kernel, file=str(path))
    failed = {o.kind: o for o in report.obligations if o.status is Status.FAILED}
    assert set(failed) == {ObligationKind.RACE, ObligationKind.UNINIT}
    assert failed[ObligationKind.UNINIT].confirmed, failed[ObligationKind.UNINIT].reason
    race = failed[ObligationKind.RACE]
    assert race.confirmed, race.reason
    assert "went on past an uninitialised shared read at line 21" in race.reason
