"""The real CBMC checks loops the kernel does not bound through their
invariants (encoders.c.loops, proofs.deciding.cbmc_invariants):

- a `range(n)` loop over a shape, whose unwinding assertion fails at every
  depth, is proved by CBMC through z3's invariant, for every launch and on
  a fixed one, agreeing with z3 obligation by obligation;
- its near miss (one offset short) still fails, confirmed by replay, and
  nothing of it is proved that z3 fails;
- a wrong invariant fed to the encoder -- one false on entry, one not
  preserved by an iteration, one that would hide the near miss's bug --
  makes CBMC fail its own invariant check, and nothing is proved through it.
"""
from __future__ import annotations

import shutil

import pytest

from verikern.encoders.c import encode_c
from verikern.encoders.c.loops import LoopAbstraction, LoopFact
from verikern.frontend import compile_source
from verikern.mir.nodes import Const, Kernel
from verikern.proofs.deciding import cbmc
from verikern.proofs.deciding.cbmc_unwind import unwind_plan
from verikern.proofs.deciding.engines import obligation_key
from verikern.proofs.obligations import ObligationKind, Status, enumerate_obligations
from verikern.proofs.pipeline import prove_mir

from shared_helpers import CORPUS

pytestmark = pytest.mark.skipif(
    shutil.which("cbmc") is None,
    reason="cbmc is not installed (.ci/get-cbmc fetches Debian's; `apt-get install cbmc`)")


def _kernel(name: str) -> Kernel:
    path = CORPUS / name
    return compile_source(path.read_text(), path.name).kernels[0].mir


def _both(name: str, dims, block_dim, unwind: int | None = None) -> tuple[dict, dict]:
    """Per obligation key: CBMC's settled obligation (at `unwind`, CBMC's
    default depth when None) and z3's."""
    k = _kernel(name)
    z3 = {obligation_key(o): o for o in prove_mir(k, file=name, dims=dims,
                                                  block_dim=block_dim).obligations}
    cb = {obligation_key(o): o for o in prove_mir(k, file=name, dims=dims, block_dim=block_dim,
                                                  engine="cbmc", unwind=unwind).obligations}
    return cb, z3


@pytest.mark.parametrize("dims, block_dim", [(None, None), ((1,), 1)], ids=["every-launch", "fixed-launch"])
def test_an_unbounded_loop_is_proved_through_its_invariant(dims, block_dim):
    """`for i in range(counts.shape[0])`: no depth covers every shape, so
    before the abstraction every check in and after the loop was unknown
    ("bounded to ..."). With z3's invariant (i >= 0, i <= counts.shape[0],
    ...) checked by CBMC, every obligation is proved, as z3 proves it, for
    every launch and on the one-thread launch the kernel is written for
    (dim=1: the abstraction's run costs CBMC a third of (64,) in blocks of
    32, whose other threads skip the loop). The unwound run is at depth 1
    (no depth covers the loop, so the default 8 only costs CBMC more work
    before the same "bounded to ...")."""
    cb, z3 = _both("ok_prefix_offsets_one_thread.py", dims, block_dim, unwind=1)
    assert {o.status for o in cb.values()} == {Status.PROVED}, [o.reason for o in cb.values()]
    assert {o.status for o in z3.values()} == {Status.PROVED}
    inside = cb["bounds@14:13#0"].reason
    assert "checked through its invariant, which CBMC verified" in inside, inside


RANGE_THEN_WRITE = '''
import verikern as vk


@vk.kernel
def step_then_store(x: vk.array(dtype=vk.int32), out: vk.array(dtype=vk.int32), n: vk.int32):
    i = vk.tid()
    s = 0
    for k in range(n):
        if i < x.shape[0]:
            x[i] = k
        s = s + 1
    if i < out.shape[0]:
        out[i] = s
'''


def test_checks_in_and_after_a_loop_over_a_parameter_are_proved():
    """`range(n)` has no bound: before the abstraction the bounds check
    and the race of `x[i]` in it and `out[i]` after it were unknown ("bounded
    to ..."); through the loop's invariant CBMC proves them all on a fixed
    launch (one block of two threads, enough for the race), as z3 does. The
    unwound run is at depth 1, as the every-launch case's (no depth covers
    `range(n)`: a deeper one only costs CBMC more work)."""
    k = compile_source(RANGE_THEN_WRITE, "loop.py").kernels[0].mir
    z3 = {obligation_key(o): o.status for o in prove_mir(k, file="loop.py").obligations}
    assert set(z3.values()) == {Status.PROVED}
    obs = {obligation_key(o): o for o in cbmc.prove_kernel_cbmc(k, dims=(2,), block_dim=2, unwind=1)}
    assert {o.status for o in obs.values()} == {Status.PROVED}, \
        {key: o.reason for key, o in obs.items()}
    assert obs.keys() == z3.keys()
    assert "checked through its invariant" in obs["bounds@14:9#0"].reason


def test_the_near_miss_still_fails_and_replays():
    """offsets one short (`<=` in the requires): the write `offsets[i + 1]`
    fails under CBMC too, confirmed by the simulator, as z3 fails it; every
    obligation agrees with z3."""
    cb, z3 = _both("bounds_prefix_offsets_one_short.py", (1,), 1)
    bad = cb["bounds@17:13#0"]
    assert bad.status is Status.FAILED and bad.confirmed, bad
    for key, o in cb.items():
        assert {o.status, z3[key].status} != {Status.PROVED, Status.FAILED}, (key, o, z3[key])
        if o.kind is not ObligationKind.UNINIT:
            assert o.status is z3[key].status, (key, o.reason, z3[key].reason)


#: every array at most SMALL_INPUT elements of 4 bytes: a failure's trace is small
#: enough to replay as it is, so CBMC is not run again on small launches (VK_SMALL;
#: that run: test_cbmc_real.py's race_all_threads_write_slot0 and
#: test_a_cbmc_counterexample_replays_on_the_simulator)
SMALL_ARRAYS = 4 * cbmc.SMALL_INPUT


def _abstracted_run(k: Kernel, facts: tuple[LoopFact, ...], tmp_path, dims=None, block_dim=None):
    """CBMC's verdicts on C that checks k's one loop through `facts` (the
    engine's own run: cbmc._Attempt, with arrays of at most SMALL_ARRAYS
    bytes), and the statuses of the invariant checks."""
    header = k.loops[0].header
    enc = encode_c(k, dims=dims, block_dim=block_dim,
                   abstractions=(LoopAbstraction(header, facts),))
    plan = unwind_plan(k, enc.loops, dims, block_dim, None, frozenset({header}))
    rlimit = cbmc.sat_rlimit(None)
    cbmc.solver_wrapper(tmp_path, cbmc.find_z3(), rlimit)
    seen: list = []

    def run(argv):
        done = cbmc._run(argv, env=cbmc.solver_env(tmp_path))
        seen.append(cbmc.parse_json_ui(done.stdout))
        return done
    attempt = cbmc._Attempt(k, tuple(enumerate_obligations(k)), tmp_path, cbmc.find_cbmc(),
                            cbmc.cbmc_version(), SMALL_ARRAYS, rlimit, run)
    obs = attempt.decide(enc.text, plan, deeper=False, abstraction="a test's invariant")
    checks = {p.description: p.status for p in seen[0].properties
              if p.description.startswith("loop invariant")}
    return obs, checks


def _phi(k: Kernel):
    return k.block(k.loops[0].header).phis[0].result


def _zero(k: Kernel) -> Const:
    return Const(0, _phi(k).type)


# gt0: i > 0, false on entry (i = 0); le: i <= 0, true on entry, not after i += 1
@pytest.mark.parametrize("dims, block_dim, kind, check", [
    pytest.param((1,), 1, "gt0", "holds on entry", id="one-thread-gt0"),
    pytest.param((1,), 1, "le", "is preserved by an iteration", id="one-thread-le"),
    pytest.param(None, None, "gt0", "holds on entry", id="every-launch-gt0"),
    pytest.param(None, None, "le", "is preserved by an iteration", id="every-launch-le"),
])
def test_a_wrong_invariant_fails_cbmcs_check_and_proves_nothing(dims, block_dim, kind, check, tmp_path):
    """On the correct kernel every obligation is provable; through a wrong
    invariant CBMC fails the invariant's own check, so none is proved (the
    reason names the check; a trace through it is the abstraction's, left to
    replay) -- a wrong certificate costs verdicts, never soundness. On the
    one-thread launch the kernel is written for and on every launch (the
    latter, and the invariant false on entry on one thread, which
    test_an_invariant_that_would_hide_a_bug_is_refuted_not_assumed also checks,
    left to the nightly run, tests/tiers_nightly.py)."""
    k = _kernel("ok_prefix_offsets_one_thread.py")
    fact = LoopFact(kind, _phi(k), _zero(k) if kind == "le" else None)
    obs, checks = _abstracted_run(k, (fact,), tmp_path, dims, block_dim)
    failed = [d for d, s in checks.items() if s == "FAILURE"]
    assert failed and all(check in d for d in failed), checks
    assert Status.PROVED not in {o.status for o in obs}, [(o.status, o.reason) for o in obs]
    unknown = [o for o in obs if o.status is Status.UNKNOWN]
    assert unknown and all("did not show the invariant of the loop" in o.reason
                           for o in unknown), unknown[0].reason
    # a trace through the wrong invariant (i < 0 admitted) is the abstraction's:
    # never exact, so it is a failure only where replay confirms it
    assert all(o.counterexample.abstracted for o in obs if o.status is Status.FAILED)


def test_an_invariant_that_would_hide_a_bug_is_refuted_not_assumed(tmp_path):
    """`i < 0` on the near miss's loop: assumed without its check it would
    make every state in the loop impossible and "prove" `offsets[i + 1]`,
    which the launch breaks. CBMC fails the invariant on entry instead, and
    the obligation is not proved (here it even fails: the base case is a
    check, not an assumption)."""
    k = _kernel("bounds_prefix_offsets_one_short.py")
    obs, checks = _abstracted_run(k, (LoopFact("lt", _phi(k), _zero(k)),), tmp_path,
                                  (1,), 1)
    assert any(s == "FAILURE" and "holds on entry" in d for d, s in checks.items()), checks
    status = {obligation_key(o): o.status for o in obs}
    assert Status.PROVED not in status.values(), status
