"""Acceptance: every corpus kernel gets its expected verdict, every failure
is confirmed by replay (or says why not), and every example is proved."""
from __future__ import annotations

import functools
from pathlib import Path

import pytest

from corpus_loader import load_corpus
from prove_cli.prove_args import driver_kwargs
from verikern.proofs.obligations import KernelStatus, Status

EXAMPLES = sorted((Path(__file__).resolve().parents[2] / "examples").glob("*.py"))
CASES = load_corpus()


def _ready():
    try:
        from verikern.frontend import compile_file  # noqa: F401
        from verikern.proofs.prover import prove_kernel  # noqa: F401
    except ImportError as err:
        return str(err)
    return None


_missing = _ready()
pytestmark = pytest.mark.skipif(_missing is not None, reason=f"compiler/prover not ready: {_missing}")


def _describe(reports) -> str:
    from verikern.proofs.report import render_text
    return render_text(reports)


@functools.lru_cache(maxsize=None)
def _prove(path, prove_args=()):
    """Reports for one file (cached: the confirmation-rate test reuses them)."""
    from verikern.proofs.driver import prove_file
    return tuple(prove_file(path, **driver_kwargs(prove_args)))


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_corpus_verdict(case):
    reports = _prove(case.path, case.prove_args)
    assert reports, f"{case.path}: no kernel found"
    assert all(r.status is not KernelStatus.ERROR for r in reports), _describe(reports)
    obligations = [ob for r in reports for ob in r.obligations]
    if case.expect_status == "proved":
        assert all(r.status is KernelStatus.PROVED for r in reports), _describe(reports)
        assert all(ob.status is Status.PROVED for ob in obligations)
        return
    failed_kinds = {ob.kind.value for ob in obligations if ob.status is Status.FAILED}
    unknown = [ob for ob in obligations if ob.status is Status.UNKNOWN]
    assert failed_kinds == set(case.failing_kinds), (
        f"expected failures {sorted(case.failing_kinds)}, got {sorted(failed_kinds)}\n" + _describe(reports))
    assert not unknown, _describe(reports)
    for ob in obligations:
        if ob.status is Status.FAILED:
            assert ob.counterexample is not None, _describe(reports)
            assert ob.confirmed is True or (ob.confirmed is False and ob.reason and "not confirmed by replay" in ob.reason), \
                _describe(reports)


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_example_is_proved(path):
    reports = _prove(path)
    assert reports and all(r.status is KernelStatus.PROVED for r in reports), _describe(reports)


def test_corpus_failures_are_mostly_confirmed():
    """Replay must confirm the failures of the corpus, not merely explain them
    away: at least 90% of failed obligations over the failing cases."""
    failing = [c for c in CASES if c.expect_status == "failed"]
    if not failing:
        pytest.skip("the corpus has no failing cases yet")
    confirmed = total = 0
    for case in failing:
        for r in _prove(case.path, case.prove_args):
            for ob in r.obligations:
                if ob.status is Status.FAILED:
                    total += 1
                    confirmed += ob.confirmed is True
    assert total and confirmed >= 0.9 * total, f"only {confirmed} of {total} failures confirmed by replay"
