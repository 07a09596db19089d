"""Stable fingerprints of findings, for code-scanning tools and baselines.

A finding's fingerprint is the sha256 (first 32 hex digits) of: the file's
base name, the kernel name, the obligation kind, the whitespace-normalised
source text of its line (and, for a race, of the other access's line) and
its occurrence index among the kernel's obligations with the same kind and
texts. Invariants: it never contains a line or column number, so it survives
edits elsewhere in the file (lines moving, other kernels added, indentation
changed); it does not depend on the status (a finding that turns from
unknown to failed keeps its fingerprint); it depends only on the file's
current text, never on the run (no paths above the base name, no times).
"""
from __future__ import annotations

import hashlib
import os

from verikern.errors import source_line_at
from verikern.mir.nodes import SourceLoc
from verikern.proofs.obligations import KernelReport, Obligation

VERSION = "verikern/v1"   # the partialFingerprints key in SARIF


def _norm(text: str | None) -> str:
    return " ".join((text or "").split())


def _text(loc: SourceLoc | None, report: KernelReport, sources: dict) -> str:
    if loc is None or loc.line < 1:
        return ""
    file = report.file if (not loc.file or loc.file == "<unknown>") else loc.file
    if file not in sources:
        try:
            with open(file, encoding="utf-8") as fh:
                sources[file] = fh.read()
        except (OSError, ValueError):
            sources[file] = None
    return _norm(source_line_at(SourceLoc(file, loc.line, loc.col), sources[file] or "")
                 if sources[file] is not None else None)


def fingerprints(report: KernelReport, sources: dict | None = None) -> list[str]:
    """One fingerprint per obligation of `report`, in order (see module docstring).
    `sources` caches file texts across calls ({path: text or None})."""
    sources = {} if sources is None else sources
    seen: dict[tuple, int] = {}
    out = []
    for ob in report.obligations:
        parts = (os.path.basename(report.file), report.kernel, ob.kind.value,
                 _text(ob.loc, report, sources), _text(ob.other_loc, report, sources))
        index = seen.get(parts, 0)
        seen[parts] = index + 1
        out.append(hashlib.sha256("\x1f".join((*parts, str(index))).encode()).hexdigest()[:32])
    return out


def error_fingerprint(report: KernelReport) -> str:
    """The fingerprint of a kernel (or file) that does not compile: its first error line, without locations."""
    first = (report.error or "").splitlines()[0] if report.error else ""
    message = first.split(": error: ", 1)[-1].split(": warning: ", 1)[-1]
    parts = (os.path.basename(report.file), report.kernel, "compile-error", _norm(message))
    return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()[:32]


def engine_of(ob: Obligation) -> str:
    """Which engines decided the obligation, in words."""
    parts = ["z3 (bit-vector SMT)"]
    if ob.confirmed is not None:
        parts.append("CPU simulator replay")
    if ob.reason and "peeled" in ob.reason:
        parts.append("peeled loop iterations")
    return " + ".join(parts)
