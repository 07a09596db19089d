"""The whole kernel's work budget (proofs.deciding.budget.kernel_work, issue
26 item 3): one meter of z3 units for a kernel's proof, exact search,
suggestion and its re-proof -- each instance of a generic kernel a meter of its
own, the same whatever the number of instances; counted
across the z3 contexts the proof goes through; once spent, the obligations not
decided yet end UNKNOWN saying how many were decided -- never PROVED, never
FAILED -- and the same budget gives the same verdicts on every run."""
from __future__ import annotations

import z3

from verikern.app import prove as app_prove
from verikern.app.prove import prove_file
from verikern.frontend import compile_file, compile_source
from verikern.proofs.deciding import budget as work
from verikern.proofs.deciding.budget import MEGA, fresh_context, kernel_work, rlimit_count
from verikern.proofs.deciding.prover import prove_kernel
from verikern.proofs.deciding.session import SolverSession
from verikern.proofs.obligations import KernelStatus, Status
from verikern.proofs.pipeline import prove_mir

from shared_helpers import CORPUS

MATMUL = str(CORPUS / "ok_matmul_tiled.py")
#: proved on about 0.55 million units (the tiled one: 3.6 million, seven times the CPU)
MATMUL_NAIVE = str(CORPUS / "ok_matmul_naive.py")


def _some_work() -> int:
    """Solve a small bit-vector query in the current context; the units it took."""
    before = rlimit_count()
    x, y = z3.BitVecs("x y", 32)
    s = z3.SolverFor("QF_BV")
    s.add(x * y == 391, x > 1, y > 1, x < 1000, y < 1000)
    assert s.check() == z3.sat
    return rlimit_count() - before


def test_the_meter_counts_every_context_the_kernel_goes_through():
    fresh_context()
    with kernel_work(10 * MEGA) as meter:
        first = _some_work()
        fresh_context()                    # the proof's own context: the old one is banked
        second = _some_work()
        fresh_context()
        third = _some_work()
        assert first > 0 and second > 0 and third > 0
        assert meter.spent() >= first + second + third
        assert meter.spent() < first + second + third + 50_000     # the counters' own few units
        assert meter.left() == meter.limit - meter.spent()
    assert work.current_meter() is None


def test_an_inner_block_goes_on_counting_on_the_outer_meter():
    (k,) = compile_file(MATMUL_NAIVE).kernels
    with kernel_work(100 * MEGA) as outer:
        prove_mir(k.mir, file=MATMUL_NAIVE)      # makes no meter of its own inside an outer one
        spent = outer.spent()
        assert spent > MEGA // 10
        with kernel_work(1) as inner:
            assert inner is outer


def _exhausted(report) -> list[str]:
    return [o.reason for o in report.obligations if "budget exhausted after" in (o.reason or "")]


def test_a_spent_kernel_budget_leaves_the_rest_unknown_with_how_many_were_decided():
    # --budget 0.1: the proof context alone spends the kernel's 0.15 million units; before
    # the obligations' floor (budget.obligation_floor) none of the 25 was even tried (a
    # kernel total of 100 million units: the default, 0.4, would bound the floors too:
    # tests/proofs/test_kernel_total.py)
    runs = [prove_file(MATMUL, budget=0.1, kernel_budget=100) for _ in range(2)]
    (rep,) = runs[0]
    assert rep.status is KernelStatus.UNKNOWN
    assert not any(o.status is Status.FAILED for o in rep.obligations)
    proved = [n for n, o in enumerate(rep.obligations) if o.status is Status.PROVED]
    assert len(proved) >= 8 and proved[-1] > len(rep.obligations) // 2, proved   # each one tried
    reasons = _exhausted(rep)
    assert reasons, [o.reason for o in rep.obligations]
    assert all("budget exhausted after 0 of 25 obligations" in r for r in reasons), reasons[0]
    assert all("0.15 million z3 units" in r and "then 0.1 million z3 units for each obligation" in r
               and "raise --budget" in r for r in reasons)
    # work, not seconds: the same verdicts, obligation by obligation, on every run
    assert [(o.loc, o.status, o.reason) for o in rep.obligations] == \
        [(o.loc, o.status, o.reason) for o in runs[1][0].obligations]
    # the same kernel proved where the whole kernel may spend more (its floors included)
    (more,) = prove_file(MATMUL, budget=1)
    assert more.status is KernelStatus.PROVED


def test_a_small_budget_still_gives_every_obligation_its_floor():
    # at --budget 2 the kernel's 3 million units ran out after 4 of its 6 obligations, the
    # last two never tried; with a floor of half a million units each, both are proved (one
    # of the first four stays unknown: its own check needs more than 2 million units)
    (rep,) = prove_file(str(CORPUS / "ok_csr_edge_scale_sorted.py"), budget=2)
    assert not _exhausted(rep), _exhausted(rep)
    assert [o.status for o in rep.obligations][4:] == [Status.PROVED, Status.PROVED]
    assert sum(o.status is Status.PROVED for o in rep.obligations) == 5
    # the floors are bounded: the kernel's limit plus one floor per obligation
    fresh_context()
    (k,) = compile_file(str(CORPUS / "ok_csr_edge_scale_sorted.py")).kernels
    with kernel_work(3 * MEGA) as meter:
        prove_mir(k.mir, file="k.py", budget=2)
        assert meter.spent() <= 3 * MEGA + len(rep.obligations) * work.OBLIGATION_FLOOR + MEGA


def test_after_a_run_of_obligations_undecided_on_their_floor_the_rest_are_not_tried(monkeypatch):
    # --budget 0.1 (a total of 100 million units, so that the kernel's own work binds): the
    # laplacian's work is spent after its second obligation; the next FLOOR_RUN are tried on
    # their floor and stay undecided, so this proof can no longer end proved: the rest are not
    # tried, each saying so (session 28: a spline kernel's three instances spent 67 floors each,
    # a third of its 90 million units, deciding 2)
    from verikern.proofs.deciding import prover
    from verikern.proofs.deciding.budget_reasons import meter_spent

    laplacian = str(CORPUS / "ok_grid3d_exact_launch_laplacian.py")
    runs = [prove_file(laplacian, budget=0.1, kernel_budget=100, suggest=False) for _ in range(2)]
    (rep,) = runs[0]
    reasons = [o.reason or "" for o in rep.obligations]
    skipped = [n for n, r in enumerate(reasons) if "this one was not tried" in r]
    assert skipped and skipped == list(range(skipped[0], len(reasons))), reasons   # the rest, in order
    run = list(range(skipped[0] - work.FLOOR_RUN, skipped[0]))
    assert all(meter_spent(reasons[n]) and "not tried" not in reasons[n] for n in run), reasons
    assert all(rep.obligations[n].status is Status.UNKNOWN and meter_spent(reasons[n])
               and f"until {work.FLOOR_RUN} in a row were undecided on it" in reasons[n] for n in skipped)
    assert rep.status is KernelStatus.UNKNOWN
    assert [(o.status, o.reason) for o in rep.obligations] == \
        [(o.status, o.reason) for o in runs[1][0].obligations]            # work, not seconds
    # every floor tried: the same verdict, at three times the units (three of the 24 skipped
    # end proved on their floor, after 20 in a row undecided: still not a proof)
    monkeypatch.setattr(prover, "FLOOR_RUN", 10 ** 9)
    (every,) = prove_file(laplacian, budget=0.1, kernel_budget=100, suggest=False)
    assert every.status is KernelStatus.UNKNOWN and not any("not tried" in (o.reason or "") for o in every.obligations)
    assert every.units > 2 * rep.units, (every.units, rep.units)


def test_a_bug_out_of_kernel_budget_is_unknown_never_proved():
    buggy = str(CORPUS / "bounds_prefix_offsets_one_short.py")
    (tiny,) = prove_file(buggy, budget=0.01)
    assert tiny.status is KernelStatus.UNKNOWN
    assert not any(o.status is Status.PROVED for o in tiny.obligations if o.kind.value == "bounds")
    (full,) = prove_file(buggy)
    assert full.status is KernelStatus.FAILED


def test_every_instance_of_a_generic_kernel_gets_a_whole_kernels_work(monkeypatch):
    # 11 scalar instances once split one kernel's work: at --budget 0.3 each had 0.04
    # million units and the 32- and 64-bit instances and the floats ended unknown ("budget
    # exhausted"), while each was proved alone at the same budget. Now every instance gets
    # a whole kernel's work, in the file or alone, so its verdict is the same either way
    limits = []
    real = app_prove.kernel_work

    def recording(limit):
        limits.append(limit)
        return real(limit)

    monkeypatch.setattr(app_prove, "kernel_work", recording)
    generic = str(CORPUS / "ok_generic_every_instance_guarded.py")
    reports = prove_file(generic, budget=0.3)
    n = len(reports)
    assert n == 11 and len(limits) == n
    assert limits == [work.kernel_work_limit(work.per_check_units(0.3))] * n == [450_000] * n
    assert all(r.status is KernelStatus.PROVED for r in reports), [(r.kernel, r.status) for r in reports]
    (alone,) = prove_file(generic, kernel=["gather_doubled[uint64]"], budget=0.3)
    assert alone.status is KernelStatus.PROVED and limits[n:] == limits[:1]


VACUOUS = '''import verikern as vk


@vk.kernel
def guarded_under_no_launch(x: vk.array(dtype=vk.float32), n: vk.int32):
    vk.requires(n * n == 2 * n + 7)
    i = vk.tid()
    if i < x.shape[0]:
        x[i] = 1.0
'''


def test_requires_no_launch_satisfies_are_never_a_proof_when_the_budget_cannot_show_a_launch():
    # (n - 1)**2 == 8 has no solution in 32 bits: no launch satisfies the requires, so
    # any proof under them would be vacuous. With a budget too small to decide that, the
    # guarded write was PROVED (50,000 units per check) before the admissibility check
    # turned an undecided answer into `unknown`
    (k,) = compile_source(VACUOUS, "vacuous.py").kernels
    for units in (2_000, 10_000, 50_000, 100_000):
        fresh_context()
        obligations = prove_kernel(k.mir, budget=SolverSession(units))
        assert obligations and all(o.status is Status.UNKNOWN for o in obligations), \
            [(o.status, o.reason) for o in obligations]
        assert all("launch satisfying the kernel's requires" in o.reason for o in obligations)
    fresh_context()
    decided = prove_kernel(k.mir, budget=SolverSession(10 * MEGA))
    assert all(o.status is Status.UNKNOWN and "no launch satisfies" in o.reason for o in decided)
