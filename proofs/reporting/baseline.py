"""CI gates: which findings are new against a baseline, and the exit status.

A finding is a failed or unknown obligation, or a kernel/file that does not
compile, identified by its fingerprint (proofs.reporting.fingerprint). A baseline is a
report written earlier: verikern JSON (`--format json`) or SARIF
(`--format sarif`). Invariants: a finding is "known" only when its exact
fingerprint is in the baseline; everything else is "new" and counts for the
exit status exactly as without a baseline; "fixed" lists the baseline's
findings that no longer occur. A baseline that cannot be read is an input
error, never an empty baseline.
"""
from __future__ import annotations

import json
from dataclasses import dataclass

from verikern.proofs.reporting.fingerprint import VERSION as FP_KEY, error_fingerprint, fingerprints
from verikern.proofs.obligations import KernelReport, KernelStatus, Status

EXIT_PROVED, EXIT_FAILED, EXIT_UNKNOWN, EXIT_INPUT = 0, 1, 2, 3


class BaselineError(ValueError):
    """A baseline file that cannot be read or is neither verikern JSON nor SARIF."""


@dataclass(frozen=True)
class Finding:
    fingerprint: str
    status: str          # "failed", "unknown" or "error"
    where: str           # file:line:col or file
    text: str


def findings(reports) -> list[Finding]:
    """Every finding of `reports`, in report order."""
    out: list[Finding] = []
    texts: dict = {}
    for r in reports:
        if r.status is KernelStatus.ERROR:
            first = (r.error or "error").splitlines()[0]
            out.append(Finding(error_fingerprint(r), "error", f"{r.file}:{r.line}", first))
            continue
        if r.status is KernelStatus.UNKNOWN and not r.obligations:   # unknown as a whole (with its reason)
            first = (r.error or "unknown").splitlines()[0]
            out.append(Finding(error_fingerprint(r), "unknown", f"{r.file}:{r.line}", first))
            continue
        for ob, fp in zip(r.obligations, fingerprints(r, texts)):
            if ob.status is not Status.PROVED:
                out.append(Finding(fp, ob.status.value, f"{r.file}:{ob.loc.line}:{ob.loc.col}",
                                   f"{r.kernel}: {ob.kind.value}: "
                                   + (ob.message if ob.status is Status.FAILED else (ob.reason or ob.message))))
    return out


def load_baseline(path: str) -> dict[str, str]:
    """{fingerprint: description} of the findings recorded in a JSON or SARIF report."""
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except OSError as err:
        raise BaselineError(f"{path}: cannot read the baseline: {err.strerror or err}") from err
    except ValueError as err:
        raise BaselineError(f"{path}: the baseline is not JSON: {err}") from err
    out: dict[str, str] = {}
    if isinstance(data, dict) and isinstance(data.get("runs"), list):         # SARIF
        for run in data["runs"]:
            for res in run.get("results", []):
                fp = (res.get("partialFingerprints") or {}).get(FP_KEY)
                if fp:
                    out[fp] = (res.get("message") or {}).get("text", "")
        return out
    if isinstance(data, dict) and isinstance(data.get("kernels"), list):      # verikern JSON
        for k in data["kernels"]:
            if k.get("status") == "error" and k.get("fingerprint"):
                out[k["fingerprint"]] = f"{k.get('file')}: {k.get('kernel')}: does not compile"
            for ob in k.get("obligations", []):
                if ob.get("status") in ("failed", "unknown") and ob.get("fingerprint"):
                    out[ob["fingerprint"]] = f"{k.get('file')}:{ob.get('line')}: {k.get('kernel')}: " \
                                             f"{ob.get('kind')}: {ob.get('message')}"
        return out
    raise BaselineError(f"{path}: not a verikern JSON report or a SARIF log")


@dataclass(frozen=True)
class BaselineResult:
    known: tuple[Finding, ...]
    new: tuple[Finding, ...]
    fixed: tuple[tuple[str, str], ...]      # (fingerprint, description) no longer found

    def to_json(self) -> dict:
        return {"known": [f.fingerprint for f in self.known],
                "new": [{"fingerprint": f.fingerprint, "status": f.status, "where": f.where, "text": f.text}
                        for f in self.new],
                "fixed": [{"fingerprint": fp, "text": text} for fp, text in self.fixed]}

    def summary_lines(self) -> list[str]:
        lines = [f"baseline: {len(self.known)} known, {len(self.new)} new, {len(self.fixed)} fixed"]
        lines += [f"  new: {f.where}: {f.status}: {f.text}" for f in self.new]
        lines += [f"  fixed: {text or fp}" for fp, text in self.fixed]
        return lines


def compare(reports, baseline: dict[str, str]) -> BaselineResult:
    current = findings(reports)
    seen = {f.fingerprint for f in current}
    return BaselineResult(tuple(f for f in current if f.fingerprint in baseline),
                          tuple(f for f in current if f.fingerprint not in baseline),
                          tuple((fp, text) for fp, text in baseline.items() if fp not in seen))


def gate_exit_code(reports: list[KernelReport], *, fail_on: str | None = None,
                   baseline: BaselineResult | None = None) -> int:
    """The exit status: 1 a (new) failure; else 3 a (new) compile error; else 2
    a (new) unknown unless `fail_on == "failed"`; else 0. Without a
    baseline and `fail_on`, this is `verikern prove`'s usual status."""
    if fail_on not in (None, "failed", "unknown"):
        raise ValueError(f"bad --fail-on {fail_on!r}: choose failed or unknown")
    statuses = {f.status for f in (baseline.new if baseline is not None else findings(reports))}
    if "failed" in statuses:
        return EXIT_FAILED
    if "error" in statuses:
        return EXIT_INPUT
    if "unknown" in statuses and fail_on != "failed":
        return EXIT_UNKNOWN
    return EXIT_PROVED
