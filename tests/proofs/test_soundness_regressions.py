"""Kernels that once got (or could easily get) a false "proved".

Each has a real bug, marked `# BUG` on its line, that the CPU simulator shows
on a concrete launch: the runtime error is raised on that line (for a race,
the trace shows a racing pair with an access on that line). The prover must
report a *failed* obligation of that kind on that very line (not merely "not
proved": every encoding here is exact). Every obligation kind has a case.

The "after an assert, assume it held" rule (docs/PROVER.md, "Prior divisions
and asserts") has its negative cases here: an assert in a branch does not
protect an access after the join, an access before an assert is not protected
by it, and an assert of a later loop iteration does not protect an earlier
iteration's access.
"""
from __future__ import annotations

import os
import sys
import textwrap
from dataclasses import dataclass, field

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))

from prover_helpers import HEADER, compile_kernel, prove_src  # noqa: E402

from verikern import errors  # noqa: E402
from verikern.backends.simulator import simulate  # noqa: E402
from verikern.runtime import LaunchConfig  # noqa: E402
from verikern.trace import find_races  # noqa: E402

KINDS = {"bounds", "race", "divergence", "assert", "invariant", "div-zero", "unassigned"}
ERROR_OF = {"bounds": errors.OutOfBoundsError, "div-zero": errors.IntegerDivisionError,
            "divergence": errors.BarrierDivergenceError, "assert": errors.KernelAssertionError,
            "invariant": errors.KernelAssertionError, "unassigned": errors.UnassignedReadError}


@dataclass(frozen=True)
class Regression:
    """src: the kernel (one line marked `# BUG`); kind: the obligation kind
    that must fail on that line; dims, block_dim, arrays, scalars: a launch
    that shows the bug on the simulator."""

    src: str
    kind: str
    dims: tuple[int, ...]
    block_dim: int
    arrays: dict = field(default_factory=dict)
    scalars: dict = field(default_factory=dict)

    @property
    def bug_line(self) -> int:
        """The `# BUG` line as the compiled kernel numbers it (after HEADER)."""
        lines = (HEADER + textwrap.dedent(self.src)).splitlines()
        marked = [n for n, text in enumerate(lines, 1) if "# BUG" in text]
        assert len(marked) == 1, "one `# BUG` line per case"
        return marked[0]


CASES = {
    # unsigned // by a zero parameter (a division lemma once hid d == 0)
    "udiv_zero": Regression("""
        @vk.kernel
        def k(x: vk.array(dtype=vk.uint32), d: vk.uint32):
            i = vk.tid()
            if i < x.shape[0]:
                x[i] = vk.uint32(7) // d  # BUG
    """, "div-zero", (4,), 4, {"x": np.zeros(4, np.uint32)}, {"d": 0}),
    # INT_MIN // -1 on int32 behind a divisor guarded only `!= 0` (proved until
    # session 14: Warp's CPU run dies of SIGFPE there, x86's idiv traps)
    "int_min_floordiv_minus_one": Regression("""
        @vk.kernel
        def k(x: vk.array(dtype=vk.int32), d: vk.int32):
            i = vk.tid()
            if i < x.shape[0] and d != 0:
                x[i] = x[i] // d  # BUG
    """, "div-zero", (1,), 1, {"x": np.array([-2**31], np.int32)}, {"d": -1}),
    # the same fault with a literal -1 divisor on int64 (`%` too traps)
    "int64_min_mod_literal_minus_one": Regression("""
        @vk.kernel
        def k(x: vk.array(dtype=vk.int64)):
            i = vk.tid()
            if i < x.shape[0]:
                x[i] = x[i] % vk.int64(-1)  # BUG
    """, "div-zero", (1,), 1, {"x": np.array([-2**63], np.int64)}),
    # an out-of-bounds write before a loop that some threads never leave
    "oob_before_nonterminating_loop": Regression("""
        @vk.kernel
        def k(x: vk.array(dtype=vk.int32), n: vk.int32):
            vk.requires(n % 2 == 0)
            i = vk.tid()
            if i % 2 == 1:
                x[x.shape[0]] = 1  # BUG
            k = i
            while k != n:
                k += 2
    """, "bounds", (2,), 2, {"x": np.zeros(4, np.int32)}, {"n": 0}),
    "oob_before_while_true": Regression("""
        @vk.kernel
        def k(x: vk.array(dtype=vk.int32)):
            i = vk.tid()
            x[i + 1] = 1  # BUG
            while True:
                pass
    """, "bounds", (1,), 1, {"x": np.zeros(1, np.int32)}),
    # a thread-dependent break nested under an if, in a loop with a barrier
    "divergence_nested_break": Regression("""
        @vk.kernel(block_dim=32)
        def k(out: vk.array(dtype=vk.int32)):
            t = vk.thread_idx()
            k = 0
            while k < 8:
                vk.sync_threads()  # BUG
                if t < 16:
                    if k == 2:
                        break
                k += 1
    """, "divergence", (32,), 32, {"out": np.zeros(1, np.int32)}),
    "divergence_two_exits": Regression("""
        @vk.kernel(block_dim=32)
        def k(out: vk.array(dtype=vk.int32)):
            t = vk.thread_idx()
            k = 0
            while k < 100:
                vk.sync_threads()  # BUG
                if t < 16:
                    if k == 2:
                        break
                else:
                    if k == 5:
                        break
                k += 1
    """, "divergence", (32,), 32, {"out": np.zeros(1, np.int32)}),
    # a division inside a requires, checked under that very requires (z3's
    # value of n // 0 made it false, so d == 0 looked impossible)
    "division_inside_requires": Regression("""
        @vk.kernel
        def k(x: vk.array(dtype=vk.int32), n: vk.int32, d: vk.int32):
            vk.requires(n // d > 2)  # BUG
            i = vk.tid()
            if i < x.shape[0]:
                x[i] = n
    """, "div-zero", (1,), 1, {"x": np.zeros(1, np.int32)}, {"n": 7, "d": 0}),
    # a func's return inside a loop with a barrier leaves the loop early
    "divergence_func_return_in_loop": Regression("""
        @vk.func
        def steps(t: vk.int32) -> vk.int32:
            k = 0
            while k < 8:
                vk.sync_threads()  # BUG
                if t < 16:
                    return k
                k += 1
            return k

        @vk.kernel(block_dim=32)
        def k(out: vk.array(dtype=vk.int32)):
            t = vk.thread_idx()
            r = steps(t)
            if vk.tid() < out.shape[0]:
                out[vk.tid()] = r
    """, "divergence", (32,), 32, {"out": np.zeros(32, np.int32)}),
    # a barrier in a block-uniform branch that is not taken: no barrier then
    # separates the store buf[t] from the neighbour's read
    "race_barrier_in_untaken_uniform_branch": Regression("""
        @vk.kernel(block_dim=32)
        def k(x: vk.array(dtype=vk.int32), flag: vk.int32):
            buf = vk.shared.array(shape=(32,), dtype=vk.int32)
            t = vk.thread_idx()
            buf[t] = t
            if flag > 0:
                vk.sync_threads()
            v = buf[(t + 1) % 32]  # BUG
            if vk.tid() < x.shape[0]:
                x[vk.tid()] = v
    """, "race", (32,), 32, {"x": np.zeros(32, np.int32)}, {"flag": 0}),
    # an assert that holds in the first two iterations and fails in the third
    "assert_fails_in_third_iteration": Regression("""
        @vk.kernel
        def k(out: vk.array(dtype=vk.int32), n: vk.int32):
            i = vk.tid()
            v = 1
            j = 0
            while j < n:
                v = v * 3
                assert v < 20, "v stays small"  # BUG
                j += 1
            if i < out.shape[0]:
                out[i] = v
    """, "assert", (1,), 1, {"out": np.zeros(1, np.int32)}, {"n": 3}),
    # an inner-loop invariant that holds on the first entries of the inner
    # loop but not once the outer counter has grown
    "invariant_fails_on_inner_loop_reentry": Regression("""
        @vk.kernel
        def k(out: vk.array(dtype=vk.int32), n: vk.int32):
            i = vk.tid()
            acc = 0
            o = 0
            while o < n:
                j = 0
                while j < 3:
                    vk.invariant(j + o < 4)  # BUG
                    acc += j
                    j += 1
                o += 1
            if i < out.shape[0]:
                out[i] = acc
    """, "invariant", (1,), 1, {"out": np.zeros(1, np.int32)}, {"n": 3}),
    # "after an assert, assume it held": an assert in a branch says nothing
    # about the threads that skipped the branch, so the access after the join
    # must not assume it
    "assert_in_branch_access_after_join": Regression("""
        @vk.kernel
        def k(a: vk.array(dtype=vk.int32)):
            i = vk.tid()
            if i % 2 == 0:
                assert i < a.shape[0], "even threads in range"
            a[i] = 1  # BUG
    """, "bounds", (2,), 2, {"a": np.zeros(1, np.int32)}),
    # an access before the assert is not protected by it
    "access_before_the_assert": Regression("""
        @vk.kernel
        def k(a: vk.array(dtype=vk.int32), n: vk.int32):
            i = vk.tid()
            a[i + n] = 1  # BUG
            assert i + n < a.shape[0], "in range"
    """, "bounds", (1,), 1, {"a": np.zeros(1, np.int32)}, {"n": 1}),
    # the same inside a loop: iteration k's assert comes after its access
    "access_before_the_assert_in_a_loop": Regression("""
        @vk.kernel
        def k(a: vk.array(dtype=vk.int32), n: vk.int32):
            if vk.tid() == 0:
                k = 0
                while k < n:
                    a[k] = 1  # BUG
                    assert k < a.shape[0], "k in range"
                    k += 1
    """, "bounds", (1,), 1, {"a": np.zeros(1, np.int32)}, {"n": 2}),
    # iteration k passes its own assert (k <= len) before the access a[k]; the
    # assert of iteration k + 1 (k + 1 <= len) would make a[k] safe, but a
    # thread that runs off the end stops at a[k] and never gets there
    "assert_of_a_later_iteration": Regression("""
        @vk.kernel
        def k(a: vk.array(dtype=vk.int32), n: vk.int32):
            if vk.tid() == 0:
                k = 0
                while k < n:
                    assert k <= a.shape[0], "k at most len"
                    a[k] = 1  # BUG
                    k += 1
    """, "bounds", (1,), 1, {"a": np.zeros(1, np.int32)}, {"n": 2}),
    # a variable assigned under `c and d` and read under `c` alone (the flag of
    # check/assigned_reads.py must follow the path, not the first test)
    "assigned_under_a_stronger_test": Regression("""
        @vk.kernel
        def k(a: vk.array(dtype=vk.float32), c: vk.int32, d: vk.int32):
            if c > 0 and d > 0:
                v = 1.0
            if c > 0:
                a[0] = v  # BUG
    """, "unassigned", (1,), 1, {"a": np.zeros(1, np.float32)}, {"c": 1, "d": 0}),
    # `v += 1.0` in a loop sets no flag (its read is checked first): on a path
    # that never assigned v, the first iteration's read fails
    "accumulated_without_the_assignment": Regression("""
        @vk.kernel
        def k(a: vk.array(dtype=vk.float32), c: vk.int32, n: vk.int32):
            if c > 0:
                v = 0.0
            for j in range(n):
                v += 1.0  # BUG
            if c > 0:
                a[0] = v
    """, "unassigned", (1,), 1, {"a": np.zeros(1, np.float32)}, {"c": 0, "n": 2}),
    # assigned in a while body that may not run: the read after the loop
    "assigned_in_a_loop_that_may_not_run": Regression("""
        @vk.kernel
        def k(a: vk.array(dtype=vk.float32), n: vk.int32):
            k = 0
            while k < n:
                v = vk.float32(k)
                k += 1
            a[0] = v  # BUG
    """, "unassigned", (1,), 1, {"a": np.zeros(1, np.float32)}, {"n": 0}),
}


def test_every_obligation_kind_has_a_regression():
    assert {c.kind for c in CASES.values()} == KINDS


def _launch(case: Regression) -> LaunchConfig:
    size = int(np.prod(case.dims))
    return LaunchConfig(tuple(case.dims), case.block_dim, -(-size // case.block_dim), size)


@pytest.mark.parametrize("name", sorted(CASES))
def test_bug_is_real_on_the_simulator_at_the_marked_line(name):
    case = CASES[name]
    kernel = compile_kernel(case.src)
    arrays = {k: v.copy() for k, v in case.arrays.items()}
    if case.kind == "race":
        result = simulate(kernel, _launch(case), arrays, dict(case.scalars), trace=True)
        races = find_races(result.document)
        lines = [{r.line, r.other_line} for r in races]
        assert any(case.bug_line in pair for pair in lines), f"no race on line {case.bug_line}: {races}"
        return
    with pytest.raises(ERROR_OF[case.kind]) as info:
        simulate(kernel, _launch(case), arrays, dict(case.scalars))
    assert info.value.loc is not None and info.value.loc.line == case.bug_line, str(info.value)


@pytest.mark.parametrize("name", sorted(CASES))
def test_prover_fails_the_buggy_obligation_at_the_marked_line(name):
    case = CASES[name]
    obligations = prove_src(case.src, timeout=10.0)

    def lines(o):
        return {o.loc.line} | ({o.other_loc.line} if o.other_loc is not None else set())

    at_bug = [o for o in obligations if o.kind.value == case.kind and case.bug_line in lines(o)]
    summary = [f"{o.kind.value} {o.status.value} L{o.loc.line}:{o.loc.col}: {o.message}" for o in obligations]
    assert at_bug, (f"no {case.kind} obligation on line {case.bug_line}", summary)
    assert any(o.status.value == "failed" for o in at_bug), summary
