"""Hand-built reports and obligations for the prove CLI/report tests."""
from __future__ import annotations

from verikern.mir.nodes import SourceLoc
from verikern.proofs.obligations import (
    Counterexample, KernelReport, KernelStatus, Obligation, ObligationKind, Status,
)


def cex(**kw) -> Counterexample:
    base = dict(dims=(8,), block_dim=4, threads=((1, 3),), scalars={"n": 7},
                shapes={"x": (7,)}, arrays={}, facts={"index": 7})
    base.update(kw)
    return Counterexample(**base)


def obligation(kind=ObligationKind.BOUNDS, status=Status.PROVED, file="k.py", line=5, col=9,
               message="x[i] is in bounds", **kw) -> Obligation:
    return Obligation(kind, SourceLoc(file, line, col), status, message, **kw)


def report(obligations, file="k.py", kernel="k", status=None, **kw) -> KernelReport:
    obligations = tuple(obligations)
    if status is None:
        status = KernelReport.summarize(obligations)
    return KernelReport(file, kernel, status, 0.25, obligations, line=3, **kw)


def error_report(file="k.py", kernel="bad", message="k.py:4:5: error: lists are not allowed") -> KernelReport:
    return KernelReport(file, kernel, KernelStatus.ERROR, 0.0, error=message, line=4)
