"""What the report renderers share (text, JSON and short in
proofs.reporting.render, SARIF in .sarif, JUnit in .junit, HTML and Markdown
in .html, the sign-off in .signoff): the run context, the JSON report's
schema version, the words for each obligation kind, JSON-safe values, a
finding's location, the status counts, the counterexample's lines, the
sources and the one-line scope.

Invariant: every function here is a pure function of its arguments (reading
a kernel file only to hash it when its report carries no scope) and imports
no renderer, so every renderer may import it.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Iterable

from verikern.mir.nodes import SourceLoc
from verikern.proofs.obligations import KernelReport, KernelStatus, Obligation, ObligationKind

#: The version of the JSON report layout (docs/schemas/verikern-report.schema.json):
#: the minor number grows when keys are added, the major one if any ever changed.
SCHEMA_VERSION = "1.0"



@dataclass(frozen=True)
class RunContext:
    """How the reports were made: the command line and the options that
    decide verdicts (kernel filter, dims, block_dim, budget), as JSON values."""

    command: tuple[str, ...] = ()
    options: dict = field(default_factory=dict)


EXPLANATION = {
    ObligationKind.BOUNDS: "an index can leave its array on this launch: guard the access or state the "
                           "shape relation with vk.requires",
    ObligationKind.RACE: "two threads can access one element without a barrier between them, at least one "
                         "writing: add vk.sync_threads(), use an atomic, or give each thread its own element",
    ObligationKind.DIVERGENCE: "not every live thread of the block reaches this barrier the same number of "
                               "times: make the condition around it uniform across the block",
    ObligationKind.ASSERT: "the assert is false for this launch",
    ObligationKind.INVARIANT: "the loop invariant is false on entry or is not kept by an iteration",
    ObligationKind.DIV_ZERO: "the divisor can be zero on this launch: guard it or require it nonzero",
    ObligationKind.UNINIT: "this shared element may be read before any thread of the block wrote it: "
                           "write every element the block reads (halo and padding included) before "
                           "the barrier",
    ObligationKind.UNASSIGNED: "this path reads the variable without assigning it first (Warp reads an "
                               "indeterminate value there): assign it before the if or loop, or read it "
                               "only under the condition that assigned it",
}

#: the `why` of a div-zero failure whose counterexample divides INT_MIN by -1
OVERFLOW_EXPLANATION = ("an int32/int64 division or modulo of INT_MIN by -1 overflows (the CPU "
                        "traps, and Warp's run dies of SIGFPE): keep the divisor positive, or "
                        "require it or the dividend away from -1 and INT_MIN")


def explanation(ob: Obligation) -> str:
    """The `why` line of a failed obligation: its kind's, or the division
    overflow's where the counterexample shows that fault."""
    cex = ob.counterexample
    if ob.kind is ObligationKind.DIV_ZERO and cex is not None and cex.facts.get("fault") == "overflow":
        return OVERFLOW_EXPLANATION
    return EXPLANATION[ob.kind]


KIND_TEXT = {
    ObligationKind.BOUNDS: "array index out of bounds",
    ObligationKind.RACE: "data race",
    ObligationKind.DIVERGENCE: "barrier divergence",
    ObligationKind.ASSERT: "assertion can fail",
    ObligationKind.INVARIANT: "loop invariant can fail",
    ObligationKind.DIV_ZERO: "integer division by zero or overflow",
    ObligationKind.UNINIT: "read of uninitialised shared memory",
    ObligationKind.UNASSIGNED: "read of an unassigned variable",
}


def json_safe(value: Any) -> Any:
    """`value` with numpy scalars/arrays, tuples and non-finite floats turned
    into plain JSON values."""
    if isinstance(value, dict):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    if hasattr(value, "tolist") and not isinstance(value, (str, bytes)):
        return json_safe(value.tolist())
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return str(value)


def finding_loc(ob_loc: SourceLoc, report: KernelReport) -> SourceLoc:
    """The obligation's location, with the report's file where the loc has none."""
    if not ob_loc.file or ob_loc.file == "<unknown>":
        return SourceLoc(report.file, ob_loc.line, ob_loc.col)
    return ob_loc


def status_counts(reports: Iterable[KernelReport]) -> dict[str, int]:
    counts = {s.value: 0 for s in KernelStatus}
    for r in reports:
        counts[r.status.value] += 1
    return counts


def sources_of(reports: Iterable[KernelReport]) -> list[dict]:
    """Every source file once, in order, with the sha256 its proofs saw (None: unreadable)."""
    from verikern.proofs.reporting.scope import sha256_file  # lazy: z3 (reporting.scope)

    out: dict[str, str | None] = {}
    for r in reports:
        if r.file in out:
            continue
        out[r.file] = r.scope.source_sha256 if r.scope is not None else sha256_file(r.file)
    return [{"path": path, "sha256": digest} for path, digest in out.items()]


def fmt_value(v: Any) -> str:
    v = json_safe(v)
    return repr(v) if isinstance(v, float) else str(v)


def counterexample_lines(ob: Obligation) -> list[str]:
    cex = ob.counterexample
    if cex is None:
        return []
    size = math.prod(cex.dims) if cex.dims else 0
    grid = -(-size // cex.block_dim) if cex.block_dim else 0
    out = [f"launch: dim={tuple(cex.dims) if len(cex.dims) > 1 else cex.dims[0]}, "
           f"block_dim={cex.block_dim} ({grid} block{'s' if grid != 1 else ''})"]
    if cex.threads:
        out.append("threads: " + ", ".join(
            f"thread {t} of block {b} (tid {b * cex.block_dim + t})" for b, t in cex.threads))
    if cex.scalars:
        out.append("params: " + ", ".join(f"{k}={fmt_value(v)}" for k, v in cex.scalars.items()))
    if cex.shapes:
        out.append("shapes: " + ", ".join(
            f"{k}.shape={tuple(int(s) for s in v)}" for k, v in cex.shapes.items()))
    for name, contents in cex.arrays.items():
        items = list(contents.items())
        shown = ", ".join(f"{name}[{i}]={fmt_value(v)}" for i, v in items[:8])
        more = f" (+{len(items) - 8} more)" if len(items) > 8 else ""
        out.append(f"contents: {shown}{more} (all other elements 0)")
    facts = dict(cex.facts)
    if facts:
        out.append("values: " + ", ".join(f"{k}={fmt_value(v)}" for k, v in facts.items()))
    return out


def scope_line(r: KernelReport) -> str | None:
    """One line: what the kernel's verdict assumed (the full scope is in --format json)."""
    sc = r.scope
    if sc is None:
        return None
    contracts = "; ".join(c.text if c.kind == "requires" else f"{c.kind}: {c.text}" for c in sc.contracts)
    launch = (f"dim={tuple(sc.dims) if len(sc.dims) > 1 else sc.dims[0]}" if sc.dims is not None
              else "every launch")
    block = f"block_dim={sc.block_dim}" if sc.block_dim is not None else "every block_dim"
    cached = ", from the cache" if r.cached else ""
    return (f"  assumes: {contracts or 'no requires'}; {launch}, {block}; budget {sc.budget:g}M "
            f"units/check; mir sha256 {sc.mir_sha256[:16]}{cached}")


def type_oblivious_lines(r) -> list[str]:
    """What a type-oblivious proof of a generic kernel covers (frontend/check/
    generic_opaque.py): for `kernel[...]`, every instantiation and the
    instances enumerated; for an instance, the proof that covers it."""
    if r.covers is not None:
        covered = "".join(f"{c}, " for c in r.covers) + "and " if r.covers else ""
        return ["proved for every instantiation by a type-oblivious proof (every value of a generic "
                f"type opaque); it covers {covered}every instantiation not enumerated"]
    if r.covered_by:
        return [f"proved by the type-oblivious proof of {r.covered_by}, not on its own"]
    return []
