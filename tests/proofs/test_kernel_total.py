"""The kernel's total (proofs.deciding.budget.kernel_total, `--kernel-budget`,
issue 26): one hard bound in z3 units on everything a kernel spends -- every
instance of a generic kernel, its proof, searches, suggested contract and
re-proof. Once spent, nothing more is decided: the obligations left end
UNKNOWN saying which budget ran out and how to raise it, a failure decided
before stays FAILED with its counterexample, a suggestion it cut short is never
`proved` (`suggestion_unknown` says why), no floor raises it, and the verdicts
are the same on every run and whatever the proof cache holds."""
from __future__ import annotations

import textwrap
from pathlib import Path

from verikern.app.cache import ProofCache
from verikern.app.prove import ProveInputError, prove_file, prove_source
from verikern.proofs.deciding import budget as work
from verikern.proofs.deciding.budget import MEGA, fresh_context, kernel_total, new_total, rlimit_count
from verikern.proofs.obligations import KernelStatus, Status

import pytest
import z3

from corpus_loader import parse_header
from corpus_reports import case_reports
from kernel_total_helpers import compile_charge
from shared_helpers import CORPUS

MATMUL = str(CORPUS / "ok_matmul_tiled.py")
GENERIC = str(CORPUS / "ok_generic_every_instance_guarded.py")


def _total_reasons(report) -> list[str]:
    return [o.reason for o in report.obligations if "total work budget was spent" in (o.reason or "")]


def _verdicts(reports) -> list:
    return [(r.kernel, r.status, r.proved_under_suggestion, r.suggestion_unknown,
             [(o.loc, o.status, o.reason) for o in r.obligations]) for r in reports]


def test_the_default_total_is_ten_checks_and_a_given_one_is_in_million_units():
    assert work.kernel_total_units(None, work.per_check_units(None)) == 100 * MEGA
    assert work.kernel_total_units(None, work.per_check_units(2.5)) == 25 * MEGA
    assert work.kernel_total_units(0.5, work.per_check_units(None)) == MEGA // 2
    with pytest.raises(ProveInputError, match="bad kernel budget"):
        prove_file(MATMUL, kernel_budget=-1)


def test_a_spent_total_leaves_the_rest_unknown_with_which_budget_and_no_floor():
    # ok_matmul_tiled is proved (24 obligations) on 3.6 million units; with a total of 2
    # million the first obligations are proved and the others are not even tried, where
    # the per-check floors (budget.obligation_floor) would have decided them
    runs = [prove_file(MATMUL, kernel_budget=2) for _ in range(2)]
    (rep,) = runs[0]
    assert rep.status is KernelStatus.UNKNOWN
    assert not any(o.status is Status.FAILED for o in rep.obligations)
    # the report lists obligations by source location, not in the order they were decided:
    # those decided before the total ran out are proved, every other one is unknown for it
    statuses = [o.status for o in rep.obligations]
    decided = statuses.count(Status.PROVED)
    reasons = _total_reasons(rep)
    assert decided >= 3 and len(reasons) == len(statuses) - decided, [o.reason for o in rep.obligations]
    assert len(set(reasons)) == 1
    assert reasons[0].startswith(f"budget exhausted after {decided} of "), reasons[0]
    assert "(2 million z3 units for the whole kernel" in reasons[0] and "raise --kernel-budget" in reasons[0]
    # a hard bound, no floors on top: the parts' units and compiling the kernel (charged to
    # the total first) together spend the 2 million
    whole = rep.units + compile_charge(MATMUL)
    assert 2 * MEGA <= whole < 2 * MEGA + MEGA // 10
    # work, not seconds: the same verdicts, obligation by obligation, on every run
    assert _verdicts(runs[0]) == _verdicts(runs[1])
    (whole,) = prove_file(MATMUL)
    assert whole.status is KernelStatus.PROVED and not _total_reasons(whole)
    assert 2 * MEGA < whole.units < 40 * MEGA < work.kernel_total_units(None, work.per_check_units(None))


def test_a_total_spent_before_the_proof_decides_nothing():
    (rep,) = prove_file(MATMUL, kernel_budget=0.001)
    assert rep.status is KernelStatus.UNKNOWN
    assert all(o.status is Status.UNKNOWN for o in rep.obligations)
    assert all("budget exhausted after 0 of 25 obligations" in r for r in _total_reasons(rep))
    assert len(_total_reasons(rep)) == len(rep.obligations)


UNGUARDED = textwrap.dedent('''\
    import warp as wp


    @wp.kernel
    def shift(src: wp.array(dtype=float), dst: wp.array(dtype=float)):
        i = wp.tid()
        dst[i] = src[i + 1]
    ''')


def test_a_failure_decided_first_stays_failed_and_a_suggestion_cut_short_is_never_proved():
    (full,) = prove_source(UNGUARDED, "shift.py", suggest=True)
    assert full.status is KernelStatus.FAILED and full.proved_under_suggestion is True
    assert full.suggestion_unknown is None
    (proof,) = prove_source(UNGUARDED, "shift.py", suggest=False)
    assert proof.units < full.units
    # enough for the proof, not for the suggestion's search, example launch and re-proof
    cut = (proof.units + (full.units - proof.units) // 3) / MEGA
    runs = [prove_source(UNGUARDED, "shift.py", suggest=True, kernel_budget=cut) for _ in range(2)]
    (rep,) = runs[0]
    assert rep.status is KernelStatus.FAILED
    assert [(o.loc, o.status, o.confirmed) for o in rep.obligations] == \
        [(o.loc, o.status, o.confirmed) for o in full.obligations]
    failed = [o for o in rep.obligations if o.status is Status.FAILED]
    assert failed and all(o.counterexample is not None and o.confirmed for o in failed)
    assert rep.proved_under_suggestion is not True
    assert rep.suggestion_unknown is not None and "raise --kernel-budget" in rep.suggestion_unknown
    data = rep.to_json()
    assert data["suggestion_unknown"] == rep.suggestion_unknown
    assert data.get("proved_under_suggestion") in (None, False)
    assert _verdicts(runs[0]) == _verdicts(runs[1])


def test_the_instances_of_a_generic_kernel_share_its_total_whatever_the_cache_holds(tmp_path):
    # 11 instances, each proved on about 145,000 units (its Python work's charges included,
    # analysis steps and terms walked too): a total of 1.61 million after compiling (52,554
    # compile units, COMPILE_UNIT_WEIGHT z3 units each, are charged to it first) gives each
    # an equal share of what is left (budget.kernel_part),
    # which decides some and leaves the others unknown, saying so; none is FAILED
    budget = 1.61 + work.COMPILE_UNIT_WEIGHT * 52_554 / MEGA
    plain = prove_file(GENERIC, kernel_budget=budget)
    assert len(plain) == 11
    statuses = [r.status for r in plain]
    assert KernelStatus.PROVED in statuses and KernelStatus.UNKNOWN in statuses, statuses
    assert KernelStatus.FAILED not in statuses
    for r in plain:
        if r.status is KernelStatus.UNKNOWN:
            assert _total_reasons(r) and all("this part's share of it was 0.146" in x for x in _total_reasons(r))
    assert sum(r.units for r in plain) <= 1.61 * MEGA + 11_000      # what compiling left
    # under the default total every instance is proved: the corpus case's own proof (the
    # same options), made once per run (corpus_reports: test_corpus_verdict reads it too)
    assert all(r.status is KernelStatus.PROVED for r in case_reports(parse_header(Path(GENERIC))))
    # an instance proved alone first (with the whole total) is not reused in the kernel's
    # run, where its share was smaller; a cached instance charges what it spent
    cache = ProofCache(str(tmp_path / "cache"))
    last = next(r.kernel for r in reversed(plain) if r.status is KernelStatus.UNKNOWN)
    (alone,) = prove_file(GENERIC, kernel=[last], kernel_budget=budget, cache=cache)
    assert alone.status is KernelStatus.PROVED
    cold = prove_file(GENERIC, kernel_budget=budget, cache=cache)
    warm = prove_file(GENERIC, kernel_budget=budget, cache=cache)
    assert all(r.cached for r in warm)
    assert _verdicts(cold) == _verdicts(plain) == _verdicts(warm)


def test_the_total_counts_every_context_and_is_charged_by_an_inner_total():
    def some_work() -> int:
        before = rlimit_count()
        x, y = z3.BitVecs("x y", 32)
        s = z3.SolverFor("QF_BV")
        s.add(x * y == 391, x > 1, y > 1, x < 1000, y < 1000)
        assert s.check() == z3.sat
        return rlimit_count() - before

    fresh_context()
    outer, inner = new_total(10 * MEGA), new_total(10 * MEGA)
    with kernel_total(outer):
        a = some_work()
        fresh_context()                      # banked across contexts
        with kernel_total(inner):
            b = some_work()
        c = some_work()
    assert inner.spent() >= b and inner.spent() < b + 50_000
    assert outer.spent() >= a + b + c and outer.spent() < a + b + c + 100_000
    held = outer.spent()
    some_work()                              # outside any block: not counted
    assert outer.spent() == held and work.total_left() is None
    with pytest.raises(TypeError):
        outer.grant_floor(MEGA)


def test_the_cli_takes_kernel_budget_records_it_and_refuses_a_bad_one(tmp_path):
    import json

    from click.testing import CliRunner

    from verikern.cli import main

    def run(*args):
        result = CliRunner().invoke(main, ["prove", *args, "--no-cache"], catch_exceptions=False)
        return result.exit_code, result.stdout, result.stderr

    code, out, _ = run(MATMUL, "--kernel-budget", "2", "--format", "json")
    assert code == 2                                   # unknown
    data = json.loads(out)
    (kernel,) = data["kernels"]
    assert kernel["status"] == "unknown"
    assert any("raise --kernel-budget" in (o.get("reason") or "") for o in kernel["obligations"])
    assert data["options"]["kernel_budget"] == 2
    code, _, err = run(MATMUL, "--kernel-budget", "0")
    assert code == 3 and "--kernel-budget" in err
    src = tmp_path / "shift.py"
    src.write_text(UNGUARDED)
    (proof,) = prove_source(UNGUARDED, str(src), suggest=False)
    code, out, _ = run(str(src), "--kernel-budget", f"{(proof.units + 20_000) / MEGA}")
    assert code == 1                                   # failed, as without a total
    assert "suggested contract: unknown: the kernel's total work budget was spent" in out
