"""A race obligation between two accesses with different constant indices in
one position (two components of a vec3 element, `a[0]` and `a[1]`) is proved
without a query: a race needs every index equal. Equal constants, or constants
of different types, are asked as before."""
from __future__ import annotations

import logging

from verikern.proofs.obligations import ObligationKind, Status, obligation_id
from verikern.proofs.pipeline import prove_mir

from shared_helpers import mir_of

TWO_SLOTS = """
@vk.kernel
def slots(a: vk.array(dtype=vk.float32)):
    i = vk.tid()
    if a.shape[0] >= 2:
        if i == 0:
            a[0] = 1.0
        if i == 1:
            a[1] = 2.0
"""

# every thread below 2 writes a[0]: a race on the same constant index
ONE_SLOT = TWO_SLOTS.replace("if i == 0:", "if i < 2:")


def _races(report):
    return [o for o in report.obligations if o.kind is ObligationKind.RACE]


def test_two_different_constant_indices_are_proved_apart_without_a_query(caplog):
    with caplog.at_level(logging.DEBUG, logger="verikern.proofs.solver"):
        report = prove_mir(mir_of(TWO_SLOTS, header=True), file="slots.py")
    assert report.status.value == "proved"
    apart = [o for o in _races(report) if "never touch the same element (index 0 against 1)" in o.message]
    assert len(apart) == 1 and apart[0].status is Status.PROVED
    pair = obligation_id(apart[0].spec)
    asked = [r.getMessage() for r in caplog.records if ".race@" in r.getMessage()]
    assert asked and not any(f".{pair}." in m for m in asked), asked   # the self-pairs only


def test_the_same_constant_index_written_by_two_threads_still_races():
    report = prove_mir(mir_of(ONE_SLOT, header=True), file="slots.py")
    failed = [o for o in _races(report) if o.status is Status.FAILED]
    assert failed and all("a[0]" in o.message for o in failed), [o.message for o in _races(report)]
