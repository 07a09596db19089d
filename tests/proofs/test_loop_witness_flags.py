"""A variable assigned in a loop and read after it under a loop-carried witness
(`hit = 1` beside `v = ...`, then `if hit == 1: read v`): Houdini's `witness`
candidate `hit == initial or v's flag` (proofs/deciding/invariants.py) proves the
read, and only where it holds. Near misses, each a kernel whose read can really
come before any assignment, still fail, with a counterexample the simulator
confirms: the witness set on another path, a witness that starts at the value
it is tested for, and a witness reset in the loop after the assignment."""
from __future__ import annotations

import pytest

from verikern.app.prove import prove_source
from verikern.proofs.obligations import ObligationKind, Status

HEAD = '''import verikern as vk
import warp as wp


@vk.requires(lambda x, out: out.shape[0] == vk.launch_dim())
@wp.kernel
def last_positive(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
'''

CORRECT = HEAD + '''    hit = int(0)
    for j in range(x.shape[0]):
        if x[j] > 0.0:
            v = x[j] * float(i + 1)
            hit = 1
    if hit == 1:
        out[i] = v
'''

CORRECT_BOOL = HEAD + '''    found = False
    for j in range(x.shape[0]):
        if x[j] > 0.0:
            v = x[j]
            found = True
    if found:
        out[i] = v
'''

NEAR_MISSES = {
    # the witness is set on another path than the assignment
    "other_path": CORRECT.replace("            hit = 1\n", "        if x[j] < -1.0:\n            hit = 1\n"),
    # the witness starts at the value it is tested for: no iteration, no assignment
    "starts_set": CORRECT.replace("hit = int(0)", "hit = int(1)"),
    # the witness is reset after the assignment, then set again on another path
    "reset": CORRECT.replace("            hit = 1\n", "            hit = 0\n        else:\n            hit = 1\n"),
}


def unassigned(source: str):
    report, = prove_source(source, "witness.py", suggest=False)
    checks = [o for o in report.obligations if o.kind is ObligationKind.UNASSIGNED]
    assert len(checks) == 1, [o.message for o in report.obligations]
    return checks[0]


@pytest.mark.parametrize("source", [CORRECT, CORRECT_BOOL], ids=["int_witness", "bool_witness"])
def test_a_read_under_a_loop_carried_witness_is_proved(source):
    check = unassigned(source)
    assert check.status is Status.PROVED, check.message


@pytest.mark.parametrize("name", sorted(NEAR_MISSES))
def test_a_witness_that_does_not_follow_the_assignment_still_fails(name):
    source = NEAR_MISSES[name]
    assert source != CORRECT
    check = unassigned(source)
    assert check.status is Status.FAILED, check.message
    assert check.confirmed, check.message
