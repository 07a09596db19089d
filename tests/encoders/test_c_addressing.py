"""Element addresses in the C encoding, run concretely by the C replay
(proofs/confirming/c_replay.py), against numpy multi-indices: the kernels
of tests/backends/simulator/addressing_kernels.py (shared and global
arrays, 1-4 dims, both shared layouts, scalar, vec3 and mat22 elements,
every uniform/varying mix of the indices) in their checked form, which
asserts that every value read back equals the numpy reference. The C
replay hands back failed checks, not arrays: a wrong address is a failed
assert, and a deliberately wrong reference shows that the asserts can fail."""
from __future__ import annotations

import pytest

from addressing_kernels import BLOCK, AddressCase, all_cases, inputs, reference, source
from shared_helpers import mir_of
from verikern.mir.nodes import ArrayRef
from verikern.proofs.confirming.c_replay import CReplay, find_compiler
from verikern.proofs.obligations import Counterexample

try:
    find_compiler()
except RuntimeError:                   # CCompilerMissing
    pytest.skip("no C compiler", allow_module_level=True)


def _launch(kernel, case: AddressCase, perturb: bool = False) -> dict:
    """The launch as the C replay reads it: every element of every array."""
    args = inputs(case)
    want = reference(case, args)
    values = args[:-1] + [want[-3], want[-2]]           # ..., want_snap, want_rd
    refs = [p for p in kernel.params if isinstance(p, ArrayRef)]
    arrays, shapes = {}, {}
    for ref, a in zip(refs, values):
        flat = a.reshape(-1).tolist()
        if perturb and ref.name == "want_rd":
            flat[-1] += 1
        arrays[ref.name] = dict(enumerate(flat))
        shapes[ref.name] = tuple(a.shape[:ref.ndim])
    return Counterexample(dims=(case.blocks * BLOCK,), block_dim=BLOCK, threads=((0, 0),),
                          scalars={"c": args[-1]}, shapes=shapes, arrays=arrays).to_json()


#: a C compile per kernel is slow (tens of seconds for the larger ones on
#: a loaded machine): 1-4 dims, global and both shared layouts, each element
#: kind, and of 3-D and 4-D arrays a part whose subsets mix uniform and
#: varying indices (addressing_kernels.every_subset)
C_CASES = [c for c in all_cases() if c.name in {
    "global1d_vec3_0", "shared1d_cm_mat22_0", "shared2d_cm_int32_0", "global3d_int32_1",
    "shared3d_cm_vec3_1", "shared4d_int32_2"}]


@pytest.mark.parametrize("case", C_CASES, ids=lambda c: c.name)
def test_address_shapes_match_numpy_in_c(case):
    kernel = mir_of(source(case, checked=True), filename=f"{case.name}.py")
    with CReplay(kernel) as program:
        run = program.run(_launch(kernel, case), complete=False)
        assert run.status == "ok", run.describe()
        wrong = program.run(_launch(kernel, case, perturb=True), complete=False)
        assert wrong.status == "failed" and all(i.startswith("assert@") for i in wrong.failed_ids), \
            wrong.describe()
