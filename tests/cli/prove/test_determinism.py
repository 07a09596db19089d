"""Same answer everywhere: budgets count work, not seconds, so a verdict never
depends on the machine's load, the process's history, the hash seed or the
job count, and one command's whole report (counterexamples and messages too)
is the same at any load and hash seed."""
from __future__ import annotations

import gc
import json
import subprocess
import sys

import pytest

from verikern.backends.simulator import WorkMeter
from verikern.errors import SimulationBudgetExceeded
from verikern.proofs.deciding.budget import MEGA, MIN_CHECK_RLIMIT, fresh_context
from verikern.proofs.deciding.session import SolverSession
from verikern.app.prove import prove_file
from verikern.proofs.obligations import Status

from shared_helpers import ROOT
sys.path.insert(0, str(ROOT / "benchmarks"))
from determinism import Burners, differences, strip_timing  # noqa: E402

CORPUS = ROOT / "tests" / "corpus"
# slow and model-rich kernels: abstracted failures, peeled iterations,
# focused replays of huge launches, tiled shared memory
FILES = [str(CORPUS / name) for name in (
    "bounds_transpose_tiled_no_edge_guard.py", "bounds_grid_stride_int32_overflow.py",
    "bounds_2d_swapped_guard.py", "race_odd_even_sort_all_pairs.py",
    "invariant_fails_wrong_congruence.py", "ok_invariant_grid_stride_int64.py")]


def _prove_json(paths, jobs: int, hash_seed: int) -> dict:
    """The JSON report of one `prove` run, without suggested contracts (read
    off z3's models, compared nowhere here)."""
    env = {"PYTHONHASHSEED": str(hash_seed), "PATH": "/usr/bin:/bin"}
    proc = subprocess.run([sys.executable, "-m", "verikern.cli", "prove", *paths, "--format",
                           "json", "--jobs", str(jobs), "--no-cache",
                           "--no-suggest"], capture_output=True, text=True,
                          cwd=ROOT, env=env, timeout=900)
    assert proc.returncode in (0, 1, 2), proc.stderr
    return json.loads(proc.stdout)


def _failures(report: dict) -> list:
    return [(k["kernel"], k["status"], sorted((o["kind"], o["line"], o["col"]) for o in k["obligations"]
                                              if o["status"] == "failed")) for k in report["kernels"]]


@pytest.mark.slow
def test_reports_identical_across_hash_seeds_and_load_and_failures_across_job_counts():
    """One command gives the same report -- verdicts, counterexample values,
    messages -- at any load and hash seed, and with another job count, which
    proves the kernels in other processes, after other kernels (each proof
    has a z3 context of its own: docs/PROVER.md, Determinism)."""
    quiet = _prove_json(FILES, jobs=1, hash_seed=1)
    with Burners(1):
        loaded = _prove_json(FILES, jobs=1, hash_seed=2)
    assert [k["status"] for k in quiet["kernels"]] == \
        ["failed", "failed", "failed", "failed", "failed", "proved"]
    assert differences(strip_timing(quiet), strip_timing(loaded)) == []
    two_jobs = _prove_json(FILES, jobs=2, hash_seed=3)
    assert _failures(two_jobs) == _failures(quiet)
    assert differences(strip_timing(quiet), strip_timing(two_jobs)) == []


def _report(path: str, **options) -> dict:
    from verikern.proofs.reporting.render import render
    return strip_timing(json.loads(render(prove_file(path, **options), "json")))


def _verdicts(report: dict) -> list:
    return [(k["kernel"], k["status"], [(o["kind"], o["line"], o["col"], o["status"])
                                        for o in k["obligations"]])
            for k in report["kernels"]]


@pytest.mark.slow
def test_a_proof_does_not_depend_on_earlier_proofs_in_the_process():
    """Verdicts, counterexamples and suggestions never depend on what the
    process proved before (each proof has a z3 context of its own). Two small
    proofs before (session 31: the tiled transpose, 1.2 of this test's 2.6 CPU s,
    went; either proof alone changes the counterexample of the second proof when
    the contexts are shared: `fresh_context` not dropping z3's main context)."""
    first = _report(FILES[2], suggest=True)
    for other in (str(CORPUS / "ok_matmul_naive.py"), str(CORPUS / "ok_2d_guarded.py")):
        prove_file(other)            # other z3 contexts before this proof's
    again = _report(FILES[2], suggest=True)
    assert _verdicts(again) == _verdicts(first)
    assert differences(again, first) == []


def test_a_proof_does_not_depend_on_when_the_cyclic_collector_runs():
    """z3 reuses the ids of freed terms and its search follows term ids, so a
    garbage collection in the middle of a proof chose another model: in CI
    two runs of one command printed `j = 30` and `j = 29`. The collector is
    paused for the whole proof (budget.z3_memory_order): when it would have
    run changes nothing."""
    first = _report(FILES[2])
    assert first["kernels"][0]["status"] == "failed"
    old = gc.get_threshold()
    try:
        for threshold in (10, 100, 5000):
            gc.set_threshold(threshold)
            assert differences(first, _report(FILES[2])) == [], threshold
    finally:
        gc.set_threshold(*old)
    assert gc.isenabled()


def test_strip_timing_and_differences():
    a = {"kernels": [{"seconds": 1.0, "status": "proved", "obligations": [{"seconds": 2}]}]}
    b = {"kernels": [{"seconds": 9.0, "status": "failed", "obligations": [{"seconds": 3}]}]}
    assert strip_timing(a) == {"kernels": [{"status": "proved", "obligations": [{}]}]}
    assert differences(strip_timing(a), strip_timing(b)) == \
        ["/kernels[0]/status: 'proved' != 'failed'"]


def test_a_tiny_budget_gives_unknown_with_the_reason_every_time():
    path = str(CORPUS / "ok_matmul_tiled.py")
    runs = [prove_file(path, budget=0.001) for _ in range(2)]
    for reports in runs:
        (rep,) = reports
        undecided = [o for o in rep.obligations if o.status is Status.UNKNOWN]
        assert undecided, "a budget of 1000 units cannot prove a tiled matmul"
        # 1000 units a check make a kernel total of 10,000, which the first query's charge
        # for its Python work spends (proofs/deciding/budget.py): either budget may be named
        assert all("solver budget was exhausted" in (o.reason or "")
                   or "kernel's total work budget was spent" in (o.reason or "") for o in undecided)
        assert not any(o.status is Status.FAILED for o in rep.obligations)
    assert [(o.kind, o.loc, o.status, o.message) for o in runs[0][0].obligations] == \
        [(o.kind, o.loc, o.status, o.message) for o in runs[1][0].obligations]


def test_solver_budget_limits():
    fresh_context()
    b = SolverSession(3 * MEGA, total=10 * MEGA)
    assert b.limit() == 3 * MEGA and b.limit(MEGA) == MEGA
    assert b.spent == 0
    assert SolverSession.from_megaunits(2.5).per_check == 2_500_000
    assert SolverSession.from_megaunits(None).per_check == 10 * MEGA
    with pytest.raises(ValueError):
        SolverSession.from_megaunits(0)
    spent = SolverSession(MEGA, total=1)          # nothing left: the floor still applies
    assert spent.limit() == MIN_CHECK_RLIMIT


def test_work_meter_counts_warp_steps_and_stops():
    meter = WorkMeter(100)
    meter.charge(3, 64, "k")                      # 3 steps x 2 warps
    assert meter.used == 6 and meter.left == 94
    meter.charge(0, 1, "k")                       # at least one unit
    assert meter.used == 7
    with pytest.raises(SimulationBudgetExceeded) as err:
        meter.charge(10, 320, "k")
    assert err.value.limit == 100 and "budget of 100 warp-steps" in err.value.message


def test_replay_reports_a_spent_work_budget(tmp_path):
    from verikern.frontend import compile_file
    from verikern.proofs.deciding.prover import prove_kernel
    from verikern.proofs.confirming.replay import replay

    src = tmp_path / "spin.py"
    src.write_text(
        "import verikern as vk\n\n\n"
        "@vk.kernel\n"
        "def spin(x: vk.array(dtype=vk.int32), n: vk.int32):\n"
        "    vk.requires(n >= 0 and n < 100000)\n"
        "    k = 0\n"
        "    while k < n:\n"
        "        k += 1\n"
        "    x[vk.tid() + 1] = k\n")
    kernel = compile_file(src).kernels[0].mir
    (ob,) = [o for o in prove_kernel(kernel) if o.status is Status.FAILED]
    ok, why = replay(kernel, ob, budget=5)
    assert not ok and "spent its budget of 5 simulated warp-steps" in why
