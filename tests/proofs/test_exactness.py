"""No false `failed`: the four causes of issue 11 and their negative cases.

A failed obligation stays `failed` without a replay only when its model is
exact by construction (docs/PROVER.md, "When a model is exact"). Each cause
below once gave a correct kernel an exact-looking model that no execution has;
each test shows the fix, and a twin shows the new fact is not applied where it
would hide a real bug.

1. Loop-exit facts (`ThreadEncoding.exit_mode_facts`) apply to every loop the
   site cannot reach along forward edges, not only to loops whose exit
   dominates the site; a loop after the site gets none.
2. Two threads of one barrier interval took the same path w.r.t. the
   barriers outside loops (`IntervalMap.path_blocks`, the race query); a
   barrier that one of them really skips still leaves the race.
3. An invariant hint refuted on loop entry by an abstracted entry value
   (shared memory) is `abstracted`; an exact entry value is not.
4. A never-written array read at an abstracted index is abstracted; read at
   an exact index it is not.
"""
from __future__ import annotations

import contextlib
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))

from prover_helpers import compile_kernel, deciding_only, prove_src  # noqa: E402

from verikern.proofs.analysis.intervals import ENTRY  # noqa: E402
from verikern.proofs.deciding import prover as z3_prover  # noqa: E402
from verikern.proofs.deciding.prover_context import ProofContext  # noqa: E402
from verikern.proofs.obligations import KernelStatus, ObligationKind, Status  # noqa: E402
from verikern.proofs.pipeline import prove_mir  # noqa: E402


def _of(obs, kind: str) -> list:
    return [o for o in obs if o.kind.value == kind]


def _not_proved(obs) -> list[str]:
    return [f"{o.kind.value} {o.status.value} L{o.loc.line}: {o.message}"
            for o in obs if o.status is not Status.PROVED]


def _settled(src: str):
    """The pipeline's verdicts (prove, then replay) for the kernel of `src`."""
    return prove_mir(compile_kernel(src), file="<test>").obligations


def _proved_and_settled(src: str, *kinds: ObligationKind) -> tuple:
    """(the prover's verdicts, the pipeline's) for the kernel of `src`, from
    one run of the pipeline: the first are what its prover (the default z3
    prove_kernel) returned before replay, so the kernel is proved once.
    With `kinds`, only their obligations are decided (`deciding_only`)."""
    decided = []

    def prover(kernel, **options):
        decided.append(z3_prover.prove_kernel(kernel, **options))
        return decided[-1]

    with deciding_only(*kinds) if kinds else contextlib.nullcontext():
        settled = prove_mir(compile_kernel(src), file="<test>", prover=prover).obligations
    (obligations,) = decided
    return obligations, settled


# ---------------------------------------------------------------- 1. loop exits
LOOP_IN_UNIFORM_IF = """
    @vk.kernel(block_dim=64)
    def k(out: vk.array(dtype=vk.float32), flag: vk.int32):
        buf = vk.shared.array(shape=(64,), dtype=vk.float32)
        t = vk.thread_idx()
        acc = 0.0
        if flag > 0:
            for j in range(t):
                RETURN
                acc = acc + 1.0
        buf[t] = acc
        vk.sync_threads()
        if vk.tid() < out.shape[0]:
            out[vk.tid()] = buf[63 - t]
"""


def test_thread_dependent_loop_in_uniform_branch_reaches_the_barrier():
    """Thread t runs t iterations inside `if flag > 0`; the loop's exit does
    not dominate the barrier after the join, yet every thread that entered
    the loop left it before the join."""
    obs = prove_src(LOOP_IN_UNIFORM_IF.replace("RETURN", "pass"))
    div = _of(obs, "divergence")
    assert div and all(o.status is Status.PROVED for o in div), _not_proved(obs)


def test_return_inside_that_loop_is_still_divergence():
    """Leaving the loop by `return` is leaving it too: threads 41..63 never
    reach the barrier, and replay confirms it."""
    obs = _settled(LOOP_IN_UNIFORM_IF.replace("RETURN", "if j == 40:\n                    return"))
    div = _of(obs, "divergence")
    assert any(o.status is Status.FAILED and o.confirmed for o in div), _not_proved(obs)


NEVER_LEFT_AFTER_SITE = """
    @vk.kernel
    def k(out: vk.array(dtype=vk.float32)):
        i = vk.tid()
        out[i + 1] = 1.0
        j = 0
        while j >= 0:
            j = j & 1
"""


def test_a_loop_after_the_site_gets_no_exit_fact():
    """The loop after the store is never left (j stays in {0, 1}); taking it
    in a leaving iteration would make every path into it infeasible and prove
    the out-of-bounds store vacuously."""
    kernel = compile_kernel(NEVER_LEFT_AFTER_SITE)
    ctx = ProofContext(kernel, None, None)
    store_block = next(b.label for b in kernel.blocks
                       if any(getattr(ins, "array", None) is not None for ins in b.instrs))
    (loop,) = kernel.loops
    assert loop.header in ctx.shape.forward_reachable(store_block)
    assert ctx.A.exit_mode_facts(store_block) == []
    # the block after the loop does get it (the loop is before it)
    assert len(ctx.A.exit_mode_facts(loop.exit)) == 1
    obs = prove_src(NEVER_LEFT_AFTER_SITE)
    assert any(o.status is Status.FAILED for o in _of(obs, "bounds")), _not_proved(obs)


# ---------------------------------------------------------------- 2. intervals
UNIFORM_BARRIER = """
    @vk.kernel(block_dim=64)
    def k(x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32), mode: vk.int32):
        vk.requires(out.shape[0] == x.shape[0])
        buf = vk.shared.array(shape=(64,), dtype=vk.float32)
        t = vk.thread_idx()
        i = vk.tid()
        v = 0.0
        if i < x.shape[0]:
            v = x[i]
        buf[t] = v
        vk.sync_threads()
        if mode == 1:
            buf[t] = buf[t] * 2.0
            SYNC
        if i < out.shape[0]:
            out[i] = buf[63 - t]
"""


def test_barrier_inside_a_uniform_branch_separates_the_accesses():
    """The doubling write and the reversed read meet in one interval only if
    one thread took `mode == 1` and the other did not: impossible in a block."""
    obs = prove_src(UNIFORM_BARRIER.replace("SYNC", "vk.sync_threads()"))
    assert all(o.status is Status.PROVED for o in obs), _not_proved(obs)


def test_without_that_barrier_the_race_is_found_and_confirmed():
    obs = _settled(UNIFORM_BARRIER.replace("SYNC", "pass"))
    races = [o for o in _of(obs, "race") if o.status is Status.FAILED]
    assert races and all(o.confirmed for o in races), _not_proved(obs)


SKIPPABLE_BARRIER = """
    @vk.kernel(block_dim=64)
    def k(out: vk.array(dtype=vk.float32), flag: vk.int32):
        buf = vk.shared.array(shape=(64,), dtype=vk.float32)
        t = vk.thread_idx()
        buf[t] = 1.0
        if flag > 0:
            vk.sync_threads()
        if vk.tid() < out.shape[0]:
            out[vk.tid()] = buf[63 - t]
"""


def test_a_uniform_barrier_both_threads_skip_does_not_separate():
    """With flag <= 0 no thread passes the barrier: the write and the read
    share the launch's first interval (a real race; replay confirms it)."""
    obs = _settled(SKIPPABLE_BARRIER)
    races = [o for o in _of(obs, "race") if o.status is Status.FAILED]
    assert races and all(o.confirmed for o in races), _not_proved(obs)


BARRIER_LOOP = """
    @vk.kernel(block_dim=64)
    def k(out: vk.array(dtype=vk.float32), n: vk.int32):
        buf = vk.shared.array(shape=(64,), dtype=vk.float32)
        t = vk.thread_idx()
        buf[t] = 1.0
        if n > 7:
            vk.sync_threads()
        for r in range(n):
            vk.sync_threads()
        if vk.tid() < out.shape[0]:
            out[vk.tid()] = buf[63 - t]
"""


def test_path_blocks_lists_only_barriers_outside_loops():
    """Between the launch start and the read: the barrier under `n > 7` runs
    at most once and is listed; the one in the loop (maybe zero iterations,
    maybe several) is not, and no barrier block must have run."""
    kernel = compile_kernel(BARRIER_LOOP)
    ctx = ProofContext(kernel, None, None)
    (loop,) = kernel.loops
    barriers = [(b.label, i) for b in kernel.blocks for i, ins in enumerate(b.instrs)
                if type(ins).__name__ == "Barrier"]
    outside = [p for p in barriers if p[0] not in loop.body]
    inside = [p for p in barriers if p[0] in loop.body]
    assert len(outside) == 1 and len(inside) == 1
    read = next((b.label, i) for b in kernel.blocks for i, ins in enumerate(b.instrs)
                if type(ins).__name__ == "Load")
    ran, skipped = ctx.intervals.path_blocks(ENTRY, read)
    assert ran is None and skipped == (outside[0][0],)
    # from the barrier in the loop: it ran in some iteration, which is not encoded
    ran, skipped = ctx.intervals.path_blocks(inside[0], read)
    assert ran is None and skipped == ()
    # from the barrier under `n > 7`: it ran; the loop's barrier is not listed
    ran, skipped = ctx.intervals.path_blocks(outside[0], read)
    assert ran == outside[0][0] and skipped == ()


def test_a_barrier_loop_that_may_not_run_does_not_separate():
    """n == 0: no thread passes either barrier (a real race); the loop's
    barrier is not taken as skipped-or-run, so the race is never proved."""
    obs = prove_src(BARRIER_LOOP)
    races = _of(obs, "race")
    assert races and any(o.status is not Status.PROVED for o in races), _not_proved(obs)


# ---------------------------------------------------------------- 3. invariants
HINT_FROM_SHARED = """
    @vk.kernel(block_dim=64)
    def k(out: vk.array(dtype=vk.int32), n: vk.int32):
        buf = vk.shared.array(shape=(64,), dtype=vk.int32)
        t = vk.thread_idx()
        buf[t] = 4
        vk.sync_threads()
        j = ENTRY
        m = buf[t]
        acc = 0
        while j > 0:
            vk.invariant(j <= 4)
            acc += m
            j -= 1
        if vk.tid() < out.shape[0]:
            out[vk.tid()] = acc
"""


def test_hint_refuted_by_a_shared_entry_value_is_abstracted():
    """Every thread reads back 4: the hint holds. The prover sees an arbitrary
    shared value; its model is marked abstracted and, unconfirmed, the
    pipeline reports `unknown`, not `failed` (only the invariant obligations
    decided: the others are not checked here)."""
    obs, settled_obs = _proved_and_settled(HINT_FROM_SHARED.replace("ENTRY", "buf[63 - t]"),
                                           ObligationKind.INVARIANT)
    (inv,) = _of(obs, "invariant")
    assert inv.status is Status.FAILED and inv.counterexample.abstracted, inv.message
    (settled,) = _of(settled_obs, "invariant")
    assert settled.status is Status.UNKNOWN and settled.confirmed is False, settled.message
    assert "not confirmed by replay" in settled.reason


def test_hint_refuted_by_an_exact_entry_value_is_exact():
    """j starts at the parameter n (exact), and the hint does not read the
    shared value m: the model is exact, and the failure is confirmed (only the
    invariant obligations decided)."""
    obs, settled_obs = _proved_and_settled(HINT_FROM_SHARED.replace("ENTRY", "n"),
                                           ObligationKind.INVARIANT)
    (inv,) = _of(obs, "invariant")
    assert inv.status is Status.FAILED and not inv.counterexample.abstracted, inv.message
    (settled,) = _of(settled_obs, "invariant")
    assert settled.status is Status.FAILED and settled.confirmed, settled.message
    assert settled.counterexample.scalars["n"] > 4


# ---------------------------------------------------------------- 4. gathers
GATHER = """
    @vk.kernel(block_dim=64)
    def k(table: vk.array(dtype=vk.int32), out: vk.array(dtype=vk.int32)):
        vk.requires(table.shape[0] >= 2)
        buf = vk.shared.array(shape=(64,), dtype=vk.int32)
        t = vk.thread_idx()
        buf[t] = 0
        vk.sync_threads()
        k = INDEX
        a = table[k]
        assert a == table[0]
        if vk.tid() < out.shape[0]:
            out[vk.tid()] = a
"""


def test_never_written_array_at_an_abstract_index_is_abstracted():
    """k comes back from shared memory as 0 (no branch on it: the site's
    reach is exact): the assert holds. A model with k = 1 and
    table[1] != table[0] is no execution: abstracted, then unknown."""
    src = GATHER.replace("INDEX", "buf[63 - t] & 1")
    (a,) = _of(prove_src(src), "assert")
    assert a.status is Status.FAILED and a.counterexample.abstracted, a.message
    rep = prove_mir(compile_kernel(src), file="<test>")
    assert rep.status is KernelStatus.UNKNOWN
    (a,) = _of(rep.obligations, "assert")
    assert a.status is Status.UNKNOWN, a.message


def test_never_written_array_at_an_exact_index_is_exact():
    """k = t & 1 is exact: the model's table contents are what thread 1 reads,
    the failure is exact and replay confirms it."""
    obs, settled_obs = _proved_and_settled(GATHER.replace("INDEX", "t & 1"))
    (a,) = _of(obs, "assert")
    assert a.status is Status.FAILED and not a.counterexample.abstracted, a.message
    (a,) = _of(settled_obs, "assert")
    assert a.status is Status.FAILED and a.confirmed, a.message
