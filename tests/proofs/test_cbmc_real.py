"""The real CBMC (proofs.deciding.cbmc with the `cbmc` on PATH; .ci/get-cbmc
provides one on CI, tests skip with the reason where there is none).

- contract assumptions: each of all_in_range, all_distinct, all_sorted and a
  shape relation changes CBMC's answer when it is dropped (proved with it,
  a failure without it), for every launch;
- agreement: on corpus kernels, on a fixed launch and for every launch,
  CBMC's verdict per obligation is compared with z3's (a proof against a
  failure fails the test), and CBMC decides them;
- a CBMC counterexample replays on the simulator (confirmed);
- a thread stops at a failed assert or a division by zero, as the launch
  would and as z3 assumes: what follows it is proved, not failed;
- float16 is exact under CBMC (`_Float16`): 2048 + 1 rounds to 2048, so an
  index built from it is proved in bounds, and one off by one fails,
  confirmed by the simulator (z3 abstracts that float and says unknown);
- a C library call whose CBMC model crashes CBMC's SMT back end (sqrt, log,
  exp, pow, fmod: encoders.c.ops.UNMODELLED) is an unknown value under
  CBMC: an index through sqrt is proved where guarded, fails (confirmed)
  where not;
- a one-thread check no path to which passes an unbounded loop is proved
  though that loop's unwinding assertion fails; after the loop it stays
  unknown, and so does a race before it;
- work, not seconds, bounds CBMC: out of z3 units, the same answer with a
  CPU burner beside it;
- each loop's unwinding depth lands on its loop (CBMC's own numbering), and
  a block-size ladder is unwound to its trip count.
The whole-corpus sweep (fixed launches and every launch) is
benchmarks/cbmc_agreement.py: about an hour of CBMC, too long for the suite.
"""
from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

from verikern.encoders.c import encode_c
from verikern.frontend import compile_source
from verikern.proofs.deciding import cbmc
from verikern.proofs.deciding.engines import obligation_key
from verikern.proofs.obligations import ObligationKind, Status
from verikern.proofs.pipeline import prove_mir
from verikern.proofs.reporting.common import OVERFLOW_EXPLANATION, explanation

from shared_helpers import CORPUS

pytestmark = pytest.mark.skipif(
    shutil.which("cbmc") is None,
    reason="cbmc is not installed (.ci/get-cbmc fetches Debian's; `apt-get install cbmc`)")

CONTRACTS = '''
import verikern as vk

@vk.kernel
def check_range(idx: vk.array(dtype=vk.int32), out: vk.array(dtype=vk.int32)):
    vk.requires(out.shape[0] == idx.shape[0])
    vk.requires(vk.all_in_range(idx, 0, 10))
    i = vk.tid()
    if i < idx.shape[0]:
        v = idx[i]
        assert v >= 0 and v < 10
        out[i] = v

@vk.kernel
def scatter(x: vk.array(dtype=vk.float32), perm: vk.array(dtype=vk.int32),
            out: vk.array(dtype=vk.float32)):
    vk.requires(vk.all_in_range(perm, 0, out.shape[0]))
    vk.requires(vk.all_distinct(perm))
    i = vk.tid()
    if i < perm.shape[0] and i < x.shape[0]:
        out[perm[i]] = x[i]

@vk.kernel
def gaps(offsets: vk.array(dtype=vk.int32), out: vk.array(dtype=vk.int32)):
    vk.requires(offsets.shape[0] == out.shape[0] + 1)
    vk.requires(vk.all_sorted(offsets))
    i = vk.tid()
    if i < out.shape[0]:
        a = offsets[i]
        b = offsets[i + 1]
        assert a <= b
        out[i] = 1

@vk.kernel
def saxpy(x: vk.array(dtype=vk.float32), y: vk.array(dtype=vk.float32), a: vk.float32):
    vk.requires(x.shape[0] == y.shape[0])
    i = vk.tid()
    if i < x.shape[0]:
        y[i] = a * x[i] + y[i]
'''


def _without(source: str, line: str) -> str:
    assert line in source       # the last requires of its kernel
    return source.replace(line, "")


def _statuses(source: str, name: str, **launch) -> dict[str, Status]:
    """CBMC's own verdicts (before replay) per obligation kind of one kernel."""
    k = compile_source(source, "contracts.py").kernel(name).mir
    out: dict[str, Status] = {}
    for ob in cbmc.prove_kernel_cbmc(k, **launch):
        kind = ob.kind.value
        worst = out.get(kind)
        out[kind] = ob.status if worst in (None, Status.PROVED) else worst
    return out


#: every array at most SMALL_INPUT elements of 4 bytes: a failure's trace is small
#: enough to replay as it is, so CBMC is not run again on small launches (VK_SMALL;
#: that run: race_all_threads_write_slot0's agreement case and
#: test_a_cbmc_counterexample_replays_on_the_simulator)
SMALL_ARRAYS = 4 * cbmc.SMALL_INPUT


# every launch, except gaps: for every launch, the all_sorted kernel runs z3
# (CBMC's solver) out of its default units (docs/C_ENCODER.md), so it is
# checked on a launch of two blocks of two threads (and arrays of SMALL_ARRAYS)
@pytest.mark.parametrize("name, contract, kind, launch", [
    ("check_range", "vk.requires(vk.all_in_range(idx, 0, 10))", "assert", {}),
    ("scatter", "vk.requires(vk.all_distinct(perm))", "race", {}),
    ("gaps", "vk.requires(vk.all_sorted(offsets))", "assert",
     {"dims": (4,), "block_dim": 2, "max_array_bytes": SMALL_ARRAYS}),
    ("saxpy", "vk.requires(x.shape[0] == y.shape[0])", "bounds", {}),
])
def test_dropping_a_contract_changes_cbmcs_answer(name, contract, kind, launch):
    with_it = _statuses(CONTRACTS, name, **launch)
    assert set(with_it.values()) == {Status.PROVED}, with_it
    without = _statuses(_without(CONTRACTS, contract), name, **launch)
    assert without[kind] is Status.FAILED, without


def test_cbmc_reports_its_version():
    version = cbmc.cbmc_version()
    assert version is not None and cbmc.version_tuple(version)[0] >= 5


def _agree(path, dims, block_dim) -> list[str]:
    """Every obligation of every kernel of `path`: z3 and CBMC (both settled
    by replay) never contradict, and CBMC decides every non-uninit one.
    Returns the undecided ones."""
    module = compile_source(path.read_text(), path.name)
    undecided = []
    for r in module.kernels:
        z3 = {obligation_key(o): o for o in prove_mir(r.mir, file=path.name, dims=dims,
                                                      block_dim=block_dim).obligations}
        cb = prove_mir(r.mir, file=path.name, dims=dims, block_dim=block_dim, engine="cbmc")
        assert cb.error is None, cb.error
        for o in cb.obligations:
            other = z3[obligation_key(o)]
            assert {o.status, other.status} != {Status.PROVED, Status.FAILED}, (o, other)
            if o.kind is not ObligationKind.UNINIT and o.status is Status.UNKNOWN:
                undecided.append(f"{r.name} {obligation_key(o)}: {o.reason}")
            if o.status is Status.FAILED:      # confirmed, or exact (cbmc_answer.exact_traces)
                assert o.confirmed or not o.counterexample.abstracted, o
    return undecided


@pytest.mark.parametrize("name, dims, block_dim", [
    ("bounds_off_by_one_le.py", None, None),
    ("ok_2d_guarded.py", (2, 64), 32),
    ("ok_scatter_permutation.py", None, None),
    ("ok_assert_contents_with_contract.py", None, None),
    ("bounds_gather_range_off_by_one.py", (64,), 32),
    ("race_reduce_missing_barrier.py", (128,), None),
    # arrays of two dimensions, whose element accesses have CBMC's pointer checks
    # off (implied): proved, and an access past the array still fails
    ("ok_conv3x3_zero_pad.py", (1, 64), 32),
    ("bounds_2d_launch_dims_swapped.py", (2, 1), 2),
    # a 3-D launch: a fixed launch's dims are constants to CBMC (out of units
    # while they were nondet values assumed equal to them); its buggy twin fails
    ("ok_grid3d_fill_guarded.py", (1, 2, 64), 32),
    ("bounds_grid3d_guard_wrong_dim.py", (1, 2, 2), 4),
    # the simulator stops at the first bad access of the stencil: CBMC's traces
    # of the later ones are exact (no check reads memory), so they stay failed
    ("bounds_2d_stencil_missing_halo.py", (1, 1), 1),
    # a race on a 2-D array through a division by a parameter: the race key is
    # the packed index pair (emitter.race_key); its buggy twin's race fails
    ("ok_transpose_tiles_1d_column_major.py", (512,), 256),
    ("race_tiles_1d_overlapping_columns.py", (512,), 256),
    # a race CBMC finds, looked for again small enough to replay (VK_SMALL) and
    # confirmed by the simulator: the cheap case of the failed race (race_tiles's
    # is NIGHTLY, tests/tiers_nightly.py)
    ("race_all_threads_write_slot0.py", (2,), 2),
    # INT_MIN // -1 behind a count guarded != 0: the C assert is the obligation's
    # condition (the harness's own division stays total); its twin is proved
    ("divzero_segment_mean_count_nonzero.py", (64,), 32),
    ("ok_segment_mean_positive_count.py", (64,), 32),
    # x[i % x.shape[0]] after the division by zero of an empty x: the thread stops
    # there (z3 proves the access; the harness used to go on and fail it)
    ("divzero_mod_by_shape_unguarded.py", (1,), 1),
])
def test_real_cbmc_decides_and_agrees_with_z3(name, dims, block_dim):
    assert _agree(CORPUS / name, dims, block_dim) == []


def test_a_cbmc_counterexample_replays_on_the_simulator():
    path = CORPUS / "bounds_off_by_one_le.py"
    k = compile_source(path.read_text(), path.name).kernels[0].mir
    rep = prove_mir(k, file=path.name, engine="cbmc")
    failed = [o for o in rep.obligations if o.status is Status.FAILED]
    assert failed and all(o.confirmed and o.counterexample is not None for o in failed)
    assert all(o.counterexample.facts.get("engine") == "cbmc" for o in failed)


HALF_ROUND = '''
import verikern as vk


@vk.kernel
def half_round(out: vk.array(dtype=vk.float32), x: vk.float16):
    vk.requires(out.shape[0] == 1)
    y = x + vk.float16(1.0)
    if x == vk.float16(2048.0):
        out[int(y) - OFFSET] = 1.0
'''


@pytest.mark.parametrize("offset, status", [(2048, Status.PROVED), (2049, Status.FAILED)])
def test_float16_rounds_in_cbmc_as_on_the_gpu(offset, status):
    """In float16, 2048 + 1 is a tie between 2048 and 2050 and rounds to the
    even 2048: `int(y) - 2048` is 0 (in bounds), `int(y) - 2049` is -1. In
    float32 it would be 2049, the other way round. CBMC decides both (the
    failure confirmed by the simulator's float16); z3, whose floats are
    abstract here, leaves the bounds obligation unknown."""
    k = compile_source(HALF_ROUND.replace("OFFSET", str(offset)), "half.py").kernels[0].mir
    cb = prove_mir(k, file="half.py", dims=(1,), block_dim=1, engine="cbmc")
    bounds = [o for o in cb.obligations if o.kind is ObligationKind.BOUNDS]
    assert bounds and {o.status for o in bounds} == {status}, [o.reason for o in bounds]
    if status is Status.FAILED:
        assert all(o.confirmed for o in bounds)


ROOT_INDEX = '''
import verikern as vk


@vk.kernel
def root_index(x: vk.array(dtype=vk.float32), tab: vk.array(dtype=vk.float32),
               res: vk.array(dtype=vk.float32)):
    i = vk.tid()
    if i < x.shape[0] and i < res.shape[0]:
        j = int(vk.sqrt(x[i]))
        if GUARD:
            res[i] = tab[j]
'''


@pytest.mark.parametrize("guard, status", [("j >= 0 and j < tab.shape[0]", Status.PROVED),
                                           ("j >= 0", Status.FAILED)])
def test_an_index_through_sqrt_is_decided(guard, status):
    """CBMC 6.6's model of sqrt (and log, exp, pow, fmod) aborts its SMT back
    end ("floatbv expressions should be flattened when using FPA theory"):
    every obligation of such a kernel was `unknown` ("CBMC exited -6").
    Under CBMC the call is now any float (VK_UNMODELLED), so the guarded
    access is proved, and the unguarded one fails, confirmed by replay (one
    thread: the checks are `tab[j]`'s, a thread's own)."""
    src = ROOT_INDEX.replace("GUARD", guard)
    k = compile_source(src, "root.py").kernels[0].mir
    cb = prove_mir(k, file="root.py", dims=(1,), block_dim=1, engine="cbmc")
    bounds = [o for o in cb.obligations if o.kind is ObligationKind.BOUNDS and o.loc.line == 12
              and o.loc.col > 20]
    assert bounds and {o.status for o in bounds} == {status}, [o.reason for o in cb.obligations]
    assert all(o.confirmed for o in bounds if o.status is Status.FAILED)


STOPS = '''
import verikern as vk


@vk.kernel
def assert_then_read(x: vk.array(dtype=vk.float32), n: vk.int32, out: vk.array(dtype=vk.float32)):
    vk.requires(x.shape[0] == n and out.shape[0] == n)
    i = vk.tid()
    assert i < n
    out[i] = x[i]


@vk.kernel(block_dim=2)
def assert_then_barrier(x: vk.array(dtype=vk.float32)):
    t = vk.thread_idx()
    assert t == 0
    vk.sync_threads()
'''


@pytest.mark.parametrize("name, dims, block_dim", [("assert_then_read", (4,), 2),
                                                   ("assert_then_barrier", (2,), 2)])
def test_a_thread_stops_at_a_failed_assert_as_z3_assumes(name, dims, block_dim):
    """z3 proves an obligation assuming the asserts (and divisions) its thread
    passed held (docs/PROVER.md, "Prior divisions and asserts"): the launch
    stops at a failed one. The CBMC harness went on after a failed check, so
    `x[i]` past a failed `assert i < n` failed (an exact trace: nothing read
    from memory), and thread 1 stopping at its assert while thread 0 waits at
    the barrier was a divergence. Now the thread stops there (the other goes
    on): both engines fail the assert and prove the rest. The same held for
    divisions: divzero_mod_by_shape_unguarded's `x[i % x.shape[0]]` failed
    its bounds under CBMC (x empty), proved under z3 (the agreement case)."""
    k = compile_source(STOPS, "stops.py").kernel(name).mir
    z3 = {obligation_key(o): o.status for o in prove_mir(k, file="stops.py", dims=dims,
                                                         block_dim=block_dim).obligations}
    cb = {obligation_key(o): o.status for o in prove_mir(k, file="stops.py", dims=dims,
                                                         block_dim=block_dim, engine="cbmc").obligations
          if o.kind is not ObligationKind.UNINIT}
    assert cb == {key: z3[key] for key in cb}, (cb, z3)
    assert sorted(key for key, st in cb.items() if st is Status.FAILED) == [
        key for key in sorted(cb) if key.startswith("assert@")]
    assert set(cb.values()) == {Status.PROVED, Status.FAILED}


BEFORE_LOOP = '''
import verikern as vk


@vk.kernel
def write_then_walk(x: vk.array(dtype=vk.int32), y: vk.array(dtype=vk.int32), n: vk.int32,
                    d: vk.int32):
    vk.requires(d >= 1)
    i = vk.tid()
    if i < x.shape[0]:
        x[i] = n // d
    s = 0
    for k in range(n):
        s = s + k
    if i < y.shape[0]:
        y[i] = s
'''


def test_a_check_before_every_unbounded_loop_is_proved(monkeypatch):
    """`range(n)` has no bound, so CBMC's unwinding assertion of that loop
    fails at every depth (here --unwind 1: a deeper one only costs CBMC more
    work). The div-zero and bounds checks of `x[i] = n // d`
    come before it on every path: a thread breaking them does so alone,
    before the loop, within the depths CBMC unwound, so CBMC's SUCCESS is a
    proof (cbmc_unwind.blocks_before). `y[i]` after the loop, and the race on
    `x[i]` (T2 checks after T1's whole run, loop included), stay unknown
    there (without the run that checks the loop through its invariant, which
    proves them: tests/proofs/test_cbmc_loops.py)."""
    monkeypatch.setattr(cbmc, "_unbounded_loops", lambda *args: frozenset())
    k = compile_source(BEFORE_LOOP, "loop.py").kernels[0].mir
    obs = {obligation_key(o): o for o in cbmc.prove_kernel_cbmc(k, dims=(4,), block_dim=2, unwind=1)}
    status = {key: o.status for key, o in obs.items()}
    assert status == {"div-zero@11:16": Status.PROVED, "bounds@11:9#0": Status.PROVED,
                      "race@11:9+11:9": Status.UNKNOWN, "bounds@16:9#0": Status.UNKNOWN,
                      "race@16:9+16:9": Status.UNKNOWN}, status
    assert "no path to it passes a loop" in obs["bounds@11:9#0"].reason
    assert obs["bounds@16:9#0"].reason.startswith("bounded to")


def test_cbmc_is_bounded_by_work_not_by_the_machines_load():
    """saxpy for every launch needs about 27 million z3 units in one solver
    call: at --budget 0.2 (2 million per call) CBMC runs out of units on some
    obligations, and says so, the same alone and with a CPU burner beside it
    (the obligations it still proves, asked alone with the harness's own checks
    asked in groups, are the same too); at the default budget every one is
    proved (test_dropping_a_contract_changes_cbmcs_answer)."""
    k = compile_source(CONTRACTS, "contracts.py").kernel("saxpy").mir

    def verdicts():
        return [(o.status, o.reason) for o in cbmc.prove_kernel_cbmc(k, budget=0.2)]
    alone = verdicts()
    burner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        loaded = verdicts()
    finally:
        burner.kill()
        burner.wait()
    assert alone == loaded
    assert {s for s, _ in alone} <= {Status.UNKNOWN, Status.PROVED}
    # out of units in the call over all properties; an obligation then proved alone counts
    # only when the harness's own checks, asked in groups, hold too (cbmc_split.py)
    unknown = [r for s, r in alone if s is Status.UNKNOWN]
    assert unknown and all("out of CBMC's work budget" in r and "2 million resource units" in r
                           for r in unknown), alone
    assert all(r.startswith("proved by CBMC") for s, r in alone if s is Status.PROVED), alone


@pytest.mark.parametrize("name", ["ok_reduce_tree.py", "ok_bitonic_sort_block.py",
                                  "ok_shared_tile_rows_loop_init.py", "bounds_off_by_one_le.py"])
def test_cbmc_numbers_the_loops_as_the_encoder_says(name, tmp_path):
    """`cbmc --show-loops`: the same loop ids at the same lines as
    encode_c's CLoops, so each --unwindset depth lands on its loop."""
    path = CORPUS / name
    for r in compile_source(path.read_text(), path.name).kernels:
        enc = encode_c(r.mir)
        c = tmp_path / f"{r.name}.c"
        c.write_text(enc.text)
        done = subprocess.run(["cbmc", str(c), "--show-loops", "--json-ui"], capture_output=True,
                              text=True, timeout=120, check=True)
        shown = sorted((lp["name"], int(lp["sourceLocation"]["line"]))
                       for item in json.loads(done.stdout) if isinstance(item, dict)
                       for lp in item.get("loops", ()) or ())
        assert shown == sorted((lp.cbmc_id, lp.line) for lp in enc.loops)


def test_a_halving_loop_is_unwound_to_its_trip_count_for_every_launch():
    """ok_reduce_tree's `while s > 0: s //= 2` from 64 runs 7 times, each with a
    barrier: at the old single depth 8 CBMC's unwinding assertions failed
    (9 barrier intervals), with the depths read off the kernel it proves every
    obligation for every launch. The loop itself is unwound twice per call of
    vk_step (it passes a barrier every iteration): CBMC counts a loop's
    iterations per call, so its unwinding assertion holds there."""
    path = CORPUS / "ok_reduce_tree.py"
    k = compile_source(path.read_text(), path.name).kernels[0].mir
    obs = [o for o in cbmc.prove_kernel_cbmc(k) if o.kind is not ObligationKind.UNINIT]
    assert obs and {o.status for o in obs} == {Status.PROVED}, [o.reason for o in obs]
    assert "main.0:9" in obs[0].reason and "vk_step.0:2" in obs[0].reason


def test_an_int_min_by_minus_one_failure_names_the_overflow():
    """The div-zero obligation of an int32 division has two C asserts, the
    divisor's and INT_MIN / -1's: CBMC's failure says which one failed (the
    overflow here: k is required nonzero), and its counterexample carries
    the fault, so the report's why-line is the overflow's, not a zero
    divisor's; replay confirms it (DivisionOverflowError). Arrays of at most
    SMALL_ARRAYS bytes: the trace replays as CBMC gives it."""
    path = CORPUS / "divzero_floordiv_param_int_min_by_minus_one.py"
    k = compile_source(path.read_text(), path.name).kernels[0].mir
    rep = prove_mir(k, file=path.name, dims=(1,), block_dim=1, engine="cbmc",
                    max_array_bytes=SMALL_ARRAYS)
    ob = next(o for o in rep.obligations if o.kind is ObligationKind.DIV_ZERO)
    assert ob.status is Status.FAILED and ob.confirmed, ob
    assert "INT_MIN by -1" in ob.reason and "overflows (INT_MIN / -1)" in ob.message, ob
    assert explanation(ob) == OVERFLOW_EXPLANATION
