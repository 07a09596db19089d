"""Renderers for `verikern prove` results: text (default), short, JSON, SARIF
(proofs.reporting.sarif), JUnit (proofs.reporting.junit), HTML and Markdown
(proofs.reporting.html); what they share is proofs.reporting.common.

Invariants: every renderer is a function of the reports and the run context
(it reads the kernel files only to quote source lines and fingerprint
findings); the JSON layout `{"verikern": VERSION, "kernels": [...]}` is
stable (keys are only ever added, never renamed or removed; it is described
by docs/schemas/verikern-report.schema.json, whose version is
SCHEMA_VERSION); apart from keys named "seconds" it is the same on every run
of the same proofs, except the "cached" flags (so it records the options
that decide verdicts, not the command line, which differs with --jobs); every failed obligation appears
as an error and every unknown one as a warning in text, short and SARIF
output; values from counterexamples are rendered JSON-safe (numpy scalars
become Python numbers, non-finite floats become strings).
"""
from __future__ import annotations

import json
from typing import Iterable

from verikern.version import __version__
from verikern.errors import source_line_at
from verikern.mir.nodes import SourceLoc
from verikern.proofs.obligations import (
    KernelReport, KernelStatus, Obligation, Status,
)
from verikern.proofs.reporting.fingerprint import engine_of
from verikern.proofs.reporting.paste import vk_import_line_in
from verikern.proofs.reporting.fingerprint import error_fingerprint, fingerprints
from verikern.proofs.reporting.common import (
    SCHEMA_VERSION, RunContext, counterexample_lines, explanation, finding_loc, json_safe, scope_line,
    sources_of, status_counts, type_oblivious_lines,
)
from verikern.proofs.reporting import junit, sarif

FORMATS = ("text", "json", "short", "sarif", "junit")

_STATUS_STYLE = {
    KernelStatus.PROVED: "bold green",
    KernelStatus.FAILED: "bold red",
    KernelStatus.UNKNOWN: "bold yellow",
    KernelStatus.ERROR: "bold magenta",
}

# ------------------------------------------------------------------ helpers
def summary_line(reports: Iterable[KernelReport]) -> str:
    """`N kernels: P proved, F failed, U unknown, E error`, counting kernels
    only; a file-level error (a syntax error, a module that does not compile)
    is no kernel and is counted after it: `; 1 file does not compile`."""
    reports = list(reports)
    kernels = [r for r in reports if r.kernel != "<module>"]
    files = len({r.file for r in reports if r.kernel == "<module>"})
    counts = status_counts(kernels)
    line = (f"{len(kernels)} kernel{'s' if len(kernels) != 1 else ''}: "
            + ", ".join(f"{counts[s.value]} {s.value}" for s in KernelStatus))
    if files:
        line += f"; {files} file{'s' if files != 1 else ''} {'does' if files == 1 else 'do'} not compile"
    return line


# ------------------------------------------------------------------ short
def render_short(reports: Iterable[KernelReport], accepted: frozenset[str] = frozenset()) -> str:
    """One `file:line:col: error|warning: ...` line per failed or unknown
    obligation and per kernel that did not compile (for CI and editors). A
    finding whose fingerprint is in `accepted` (a --baseline's) is a `note:`
    saying so instead: it does not fail the run, and editors must not show
    it as an error."""
    lines = []
    texts: dict = {}
    for r in reports:
        if r.status is KernelStatus.ERROR:
            first = (r.error or "error").splitlines()[0]
            if ": error:" not in first:
                first = f"{r.file}:{r.line}:1: error: {first}"
            if error_fingerprint(r) in accepted:
                first = first.replace(": error: ", ": note: accepted in the baseline: ", 1)
            lines.append(first)
            continue
        if r.status is KernelStatus.UNKNOWN and not r.obligations and r.error:
            lines.append(r.error.splitlines()[0])   # unknown as a whole (a generic kernel's rest)
            continue
        prints = fingerprints(r, texts) if accepted else [None] * len(r.obligations)
        # an instance of a generic kernel (`sort[int8]`) names itself: one source line, many verdicts
        which = f" (in {r.kernel})" if "[" in r.kernel else ""
        for ob, fp in zip(r.obligations, prints):
            loc = finding_loc(ob.loc, r)
            if ob.status is Status.PROVED:
                continue
            text = (f"{ob.kind.value}: {ob.message}" if ob.status is Status.FAILED
                    else f"unknown: {ob.reason or ob.message}") + which
            if fp is not None and fp in accepted:
                lines.append(f"{loc}: note: accepted in the baseline: {text}")
            elif ob.status is Status.FAILED:
                lines.append(f"{loc}: error: {text}")
            elif ob.status is Status.UNKNOWN:
                lines.append(f"{loc}: warning: {text}")
    return "\n".join(lines) + ("\n" if lines else "")


# ------------------------------------------------------------------ json
def obligation_json(ob: Obligation, report: KernelReport, fingerprint: str | None = None) -> dict:
    d = ob.to_json()
    if ob.other_loc is not None:
        d["other_line"] = ob.other_loc.line
        d["other_col"] = ob.other_loc.col
    d["seconds"] = round(ob.seconds, 4)
    d["engine"] = engine_of(ob)
    if fingerprint is not None:
        d["fingerprint"] = fingerprint
    return json_safe(d)


def to_json_data(reports: Iterable[KernelReport], context: RunContext | None = None) -> dict:
    """The JSON report (schema: docs/schemas/verikern-report.schema.json)."""
    from verikern.proofs.reporting.scope import (  # lazy: z3 (reporting.scope)
        HARDWARE_LIMITS, NOT_CHECKED, array_bound, versions,
    )

    reports = list(reports)
    context = context or RunContext()
    kernels = []
    texts: dict = {}
    for r in reports:
        d = r.to_json()
        d["line"] = r.line
        prints = fingerprints(r, texts)
        d["obligations"] = [obligation_json(ob, r, fp) for ob, fp in zip(r.obligations, prints)]
        d["scope"] = r.scope.to_json() if r.scope is not None else None
        d["cached"] = bool(r.cached)
        if r.status is KernelStatus.ERROR:
            d["fingerprint"] = error_fingerprint(r)
        kernels.append(json_safe(d))
    return {"verikern": __version__, "schema_version": SCHEMA_VERSION, "versions": versions(),
            "options": json_safe(dict(context.options)),
            "assumptions": {"hardware_limits": list(HARDWARE_LIMITS),
                            "array_bound": array_bound(context.options.get("max_array_bytes")),
                            "not_checked": list(NOT_CHECKED)},
            "sources": sources_of(reports), "summary": status_counts(reports), "kernels": kernels}


def render_json(reports: Iterable[KernelReport], context: RunContext | None = None) -> str:
    return json.dumps(to_json_data(reports, context), indent=2) + "\n"


to_sarif_data = sarif.to_sarif_data
render_junit = junit.render_junit


def render_sarif(reports: Iterable[KernelReport], context: RunContext | None = None) -> str:
    return json.dumps(to_sarif_data(reports, context), indent=2) + "\n"


# ------------------------------------------------------------------ text
def _source_lines(loc: SourceLoc, indent: str) -> list[str]:
    text = source_line_at(loc) if loc.line >= 1 else None
    if text is None:
        return []
    stripped = text.lstrip()
    shift = len(text) - len(stripped)
    caret = " " * max(loc.col - 1 - shift, 0) + "^"
    return [indent + stripped.rstrip(), indent + caret]


def replay_text(ob: Obligation) -> str:
    """The simulator's replay verdict on a failed obligation and its detail,
    once: 'confirmed: the simulator raised ...', 'NOT confirmed: ...' or
    'not replayed' (the reason's own 'confirmed by replay: ' prefix dropped)."""
    verdict = {True: "confirmed", False: "NOT confirmed", None: "not replayed"}[ob.confirmed]
    reason = (ob.reason or "").replace("not confirmed by replay: ", "").replace("confirmed by replay: ", "")
    return verdict + (f": {reason}" if reason else "")


def obligation_text(ob: Obligation, r: KernelReport) -> list[str]:
    loc = finding_loc(ob.loc, r)
    if ob.status is Status.FAILED:
        lines = [f"  {loc}: error: {ob.kind.value}: {ob.message}"]
    else:
        lines = [f"  {loc}: warning: unknown: {ob.reason or ob.message}"]
    lines += _source_lines(loc, "      ")
    if ob.other_loc is not None and ob.other_loc != ob.loc:
        other = finding_loc(ob.other_loc, r)
        lines.append(f"    and at {other}:")
        lines += _source_lines(other, "      ")
    if ob.status is Status.FAILED:
        lines.append(f"    why: {explanation(ob)}")
        for cl in counterexample_lines(ob):
            lines.append(f"    {cl}")
        lines.append(f"    simulator: {replay_text(ob)}")
    elif ob.counterexample is not None:
        for cl in counterexample_lines(ob):
            lines.append(f"    possible {cl}")
    return lines


def vk_import_line(file: str, before: int) -> int | None:
    """proofs.reporting.paste.vk_import_line_in for the file's text; None
    when the file has the import already or cannot be read."""

    try:
        source = open(file, encoding="utf-8").read()
    except (OSError, ValueError):
        return None
    return vk_import_line_in(source, before)


def suggestion_lines(r: KernelReport) -> list[str]:
    """For a failed kernel with a suggested contract: the lines to paste
    above its `def` (and the import they need, when the file lacks it) and
    the verdict under them (a suggestion is not a proof: the kernel stays
    FAILED until the contract is in the source)."""
    if r.status is KernelStatus.FAILED and r.suggestion_unknown and not r.suggested_requires:
        return [f"  suggested contract: unknown: {r.suggestion_unknown}"]
    if r.status is not KernelStatus.FAILED or not r.suggested_requires:
        return []
    verdict = ("proved" if r.proved_under_suggestion
               else f"unknown: {r.suggestion_unknown}" if r.suggestion_unknown
               else "not proved (some obligations still fail or stay unknown)")
    lines = ["  suggested contract (paste it above the kernel; it stays FAILED until the contract "
             "is in the source):"]
    if vk_import_line(r.file, r.line or 1) is not None:
        lines.append("    import verikern as vk      # at the top of the file")
    example = ([f"  for example: {r.suggested_example.text()}"]
               if r.suggested_example is not None else [])
    return (lines + [f"    {line}" for line in r.suggested_decorators]
            + [f"  verdict under it: {verdict}"] + example)


def versions_line(max_array_bytes: int | None = None) -> str:
    from verikern.encoders.smt.launch import DEFAULT_MAX_ARRAY_BYTES  # lazy: z3 (encoders.smt)
    from verikern.proofs.reporting.scope import bytes_text, versions  # lazy: z3 (reporting.scope)

    v = versions()
    limit = bytes_text(max_array_bytes if max_array_bytes is not None else DEFAULT_MAX_ARRAY_BYTES)
    return (f"verikern {v['verikern']}, z3 {v['z3']}, Python {v['python']}; every proof assumes "
            "1 <= block_dim <= 1024, launch dims >= 1, fewer than 2**31 threads, array dims "
            f"below 2**31 and arrays of at most {limit} bytes (--max-array-bytes), and does not "
            "check float accuracy or termination (--format json states the full scope)")


def render_text(reports: Iterable[KernelReport], *, color: bool = False,
                context: RunContext | None = None) -> str:
    """A status line per kernel and a line of what it assumed, then each
    failure (source line and caret, counterexample, explanation, replay
    verdict), each unknown obligation and each compile error; the versions
    and a summary line last. With `color`, the result is rich console markup
    (everything else escaped)."""
    from rich.markup import escape  # lazy: rich, only for text output

    reports = list(reports)
    out: list[str] = []

    def emit(text: str, style: str | None = None) -> None:
        if not color:
            out.append(text)
        elif style:
            out.append(f"[{style}]{escape(text)}[/]")
        else:
            out.append(escape(text))

    for r in reports:
        word = r.status.value.upper()
        where = f"{r.file}:{r.line}" if r.line else r.file
        if r.status is KernelStatus.ERROR and r.kernel == "<module>":
            head = f"{r.file} (the file does not compile)"
        elif r.status is KernelStatus.ERROR:
            head = f"{r.kernel} ({where})"
        else:
            n = len(r.obligations)
            head = f"{r.kernel} ({n} obligation{'s' if n != 1 else ''}, {r.seconds:.2f} s) {where}"
        if color:
            out.append(f"[{_STATUS_STYLE[r.status]}]{word:<7}[/] {escape(head)}")
        else:
            out.append(f"{word:<7} {head}")
        if r.status is KernelStatus.ERROR or (r.status is KernelStatus.UNKNOWN and r.error):
            for i, line in enumerate((r.error or "").splitlines()):
                emit("  " + line, "yellow" if i == 0 and r.status is KernelStatus.UNKNOWN else None)
            continue
        for line in type_oblivious_lines(r):
            emit("  " + line, "green")
        assumed = scope_line(r)
        if assumed is not None:
            emit(assumed, "dim")
        for ob in r.obligations:
            if ob.status is Status.PROVED:
                continue
            style = "red" if ob.status is Status.FAILED else "yellow"
            for i, line in enumerate(obligation_text(ob, r)):
                emit(line, style if i == 0 else None)
        for i, line in enumerate(suggestion_lines(r)):
            emit(line, "cyan" if i == 0 else None)
    emit(versions_line((context or RunContext()).options.get("max_array_bytes")), "dim")
    emit(summary_line(reports), "bold")
    return "\n".join(out) + "\n"


RENDERERS = {
    "short": lambda reports, context: render_short(reports),
    "json": render_json,
    "sarif": render_sarif,
    "junit": render_junit,
}


def render(reports: Iterable[KernelReport], fmt: str, *, color: bool = False,
           context: RunContext | None = None) -> str:
    """Render in one of FORMATS; raises ValueError for any other name."""
    if fmt == "text":
        return render_text(reports, color=color, context=context)
    if fmt not in RENDERERS:
        raise ValueError(f"unknown report format {fmt!r}; choose one of {', '.join(FORMATS)}")
    return RENDERERS[fmt](reports, context)
