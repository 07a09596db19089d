"""Obligations of a repeated access (proofs/deciding/covered.py): an access to
the element of one that runs first on every path takes that one's proof, and
is left undecided (never proved) when that one fails; an access on another
path, a store after a load, or an access past a barrier is decided on its own."""
from __future__ import annotations

import logging

import pytest

from verikern.proofs.deciding.covered import CoveringAccesses
from verikern.proofs.deciding.smtlib_export import obligation_queries
from verikern.proofs.obligations import ObligationKind, Status, obligation_id
from verikern.proofs.pipeline import prove_mir

from shared_helpers import HEADER, mir_of

REPEATED = """
@vk.kernel
def twice(a: vk.array(dtype=vk.float32), b: vk.array(dtype=vk.float32)):
    i = vk.tid()
    if i < a.shape[0] and i < b.shape[0]:
        x = a[i]
        a[i] = x * 2.0 + a[i] + b[i]
        b[i] = a[i]
"""

# the else branch stores past the end: the then branch's proof says nothing of it
OTHER_BRANCH = """
@vk.kernel
def branches(a: vk.array(dtype=vk.float32)):
    i = vk.tid()
    if i < a.shape[0]:
        a[i] = 1.0
    else:
        a[i] = 2.0
"""

# every thread reads a[i % 2] (no race among reads), then writes it: the stores race
READ_THEN_WRITE = """
@vk.kernel
def pairs(a: vk.array(dtype=vk.float32)):
    i = vk.tid()
    if a.shape[0] >= 2:
        x = a[i % 2]
        a[i % 2] = x + 1.0
"""

# thread t reads s[t] before the barrier and again after it, where thread t - 1 writes s[t]:
# the read after the barrier races, the one before it does not
PAST_A_BARRIER = """
@vk.kernel(block_dim=64)
def shifted(out: vk.array(dtype=vk.float32)):
    s = vk.shared.array(shape=(64,), dtype=vk.float32)
    t = vk.thread_idx()
    s[t] = 1.0
    x = s[t]
    vk.sync_threads()
    y = s[t]
    if t + 1 < 64:
        s[t + 1] = y
    if vk.tid() < out.shape[0]:
        out[vk.tid()] = x
"""


def _line(src: str, text: str) -> int:
    """The 1-based line of `text` in `src` as mir_of(header=True) compiles it."""
    return next(n for n, line in enumerate((HEADER + src).splitlines(), 1) if text in line)


def _by_line(report, kind: ObligationKind):
    return sorted(((o.loc.line, o.loc.col, o.status) for o in report.obligations if o.kind is kind))


def test_repeated_reads_and_writes_take_the_first_access_proof(caplog):
    kernel = mir_of(REPEATED, header=True)
    with caplog.at_level(logging.DEBUG, logger="verikern.proofs.solver"):
        report = prove_mir(kernel, file="twice.py")
    assert report.status.value == "proved"
    bounds = [o for o in report.obligations if o.kind is ObligationKind.BOUNDS]
    covered = [o for o in bounds if "first on every path" in o.message]
    # after `x = a[i]`, a[i] is read twice and written once; b[i] is read once, then written
    assert len(bounds) == 6 and len(covered) == 4, [o.message for o in bounds]
    asked = [r.getMessage() for r in caplog.records if ".bounds@" in r.getMessage()]
    assert len(asked) == 2, asked        # one query per array element, not per access
    races = [o for o in report.obligations if o.kind is ObligationKind.RACE]
    assert races and all(o.status is Status.PROVED for o in races)
    assert any("first on every path" in o.message for o in races)


def test_a_covered_obligation_exports_the_queries_its_proof_rests_on():
    kernel = mir_of(REPEATED, header=True)
    queries = dict(obligation_queries(kernel))
    read, update = _line(REPEATED, "x = a[i]"), _line(REPEATED, "a[i] = x")
    first = [q for name, q in queries.items() if name.startswith(f"bounds@{read}:")]
    later = [q for name, q in queries.items() if name.startswith(f"bounds@{update}:")]
    names = [[n for n, _, _ in q] for q in later]
    # the read and the write of a[i] on the update's line rest on the query of `x = a[i]`,
    # by its name; the read of b[i] there is b's first access: a query of its own
    assert len(first) == 1 and len(later) == 3, (first, later)
    assert names.count([n for n, _, _ in first[0]]) == 2, names


def test_an_access_on_another_path_is_decided_on_its_own():
    report = prove_mir(mir_of(OTHER_BRANCH, header=True), file="branches.py")
    then, other = _line(OTHER_BRANCH, "a[i] = 1.0"), _line(OTHER_BRANCH, "a[i] = 2.0")
    assert _by_line(report, ObligationKind.BOUNDS) == [(then, 9, Status.PROVED), (other, 9, Status.FAILED)]


def test_a_store_after_a_load_of_the_same_element_is_not_covered_by_it():
    report = prove_mir(mir_of(READ_THEN_WRITE, header=True), file="pairs.py")
    races = [o for o in report.obligations if o.kind is ObligationKind.RACE]
    store = _line(READ_THEN_WRITE, "a[i % 2] = x")
    store_races = [o for o in races if o.loc.line == store and (o.other_loc or o.loc).line == store]
    assert store_races and all(o.status is Status.FAILED for o in store_races), \
        [(o.loc.line, o.other_loc, o.status, o.message) for o in races]
    assert report.status.value == "failed"


def test_no_race_is_covered_in_a_kernel_with_barriers():
    kernel = mir_of(PAST_A_BARRIER, header=True)
    assert CoveringAccesses.of(kernel).race == {}
    report = prove_mir(kernel, file="shifted.py")
    racing = {(o.loc.line, (o.other_loc or o.loc).line) for o in report.obligations
              if o.kind is ObligationKind.RACE and o.status is Status.FAILED}
    after, write = _line(PAST_A_BARRIER, "y = s[t]"), _line(PAST_A_BARRIER, "s[t + 1] = y")
    assert (after, write) in racing, racing      # y = s[t] after the barrier against s[t + 1] = y


def test_a_failed_access_leaves_its_repeats_undecided_and_the_kernel_failed():
    unguarded = REPEATED.replace("    if i < a.shape[0] and i < b.shape[0]:\n", "    if True:\n")
    report = prove_mir(mir_of(unguarded, header=True), file="twice.py")
    assert report.status.value == "failed"
    bounds = [o for o in report.obligations if o.kind is ObligationKind.BOUNDS]
    assert {o.status for o in bounds} == {Status.FAILED, Status.UNKNOWN}
    for o in bounds:
        if o.status is Status.UNKNOWN:
            read = _line(REPEATED, "x = a[i]")
            assert o.reason.startswith(f"not decided on its own: it is the index of the access at line {read}:") \
                or o.reason.startswith("not decided on its own: it is the index of the access at line "
                                       f"{_line(REPEATED, 'b[i]')}:"), o.reason


# corpus kernels with repeated accesses, correct and buggy, bounds and races covered
DIFFERENTIAL = ("bounds_struct_uniform_dot_flux_masses_unchecked.py", "bounds_type_of_call_operand_reads_next.py",
                "ok_atomic_min_max_global.py", "assert_fails_struct_held_arrays_block_sizes_one_past.py")


@pytest.mark.parametrize("name", DIFFERENTIAL)
def test_no_covered_obligation_is_proved_that_fails_when_decided_on_its_own(name, monkeypatch):
    """The same kernel proved with covering and with every obligation decided on its own:
    nothing covering proves fails alone, and the kernel's verdict is the same."""
    from corpus_loader import CORPUS_DIR, compiled
    module = compiled(CORPUS_DIR / name)
    kernel = next(kr.mir for kr in module.kernels if kr.mir is not None
                  and (CoveringAccesses.of(kr.mir).bounds or CoveringAccesses.of(kr.mir).race))
    covered = prove_mir(kernel, file=name)
    monkeypatch.setattr(CoveringAccesses, "covering", lambda self, spec: None)
    alone = prove_mir(kernel, file=name)
    assert covered.status == alone.status
    by_id = {obligation_id(o.spec): o.status for o in alone.obligations}
    rested = [o for o in covered.obligations if "first on every path" in o.message]
    assert rested, "the kernel has covered obligations"
    for o in rested:
        assert o.status is Status.PROVED and by_id[obligation_id(o.spec)] is not Status.FAILED, o.message
