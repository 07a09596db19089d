"""The sign-off document: `verikern report` as self-contained HTML or Markdown.

Sections, in order (HTML element ids in brackets): the overall verdict
banner [verdict]; the command, tool and platform versions and options
[run]; the project root, the sources' commit and dirty state and where each
verdict came from (this run, or the proof cache with its original run's time
and versions) [provenance]; the qualification evidence (the shipped
corpus's hash and the self-test summary, run or referenced) [qualification];
a summary table [summary]; what every proof assumes and what verikern does
not check [assumptions]; the sha256 of every source file and kernel MIR
[hashes]; then per kernel [kernel-N] its status, its assumptions, its source
with every obligation marked at its line and coloured by the worst status
there, every failure as the text output shows it (the why, the
counterexample, the replay verdict) with the suggested contract, and a table
of every obligation; last a sign-off block with fields to fill in [signoff].

Invariants: the HTML has no external asset (inline CSS, no scripts, no
links to fetch), so it reads offline and prints as is; all user text is
escaped; a kernel that did not compile is shown with its error, never as
proved; the banner says PROVED only when every kernel is; file names are
relative to the project root (proofs.reporting.signoff); the document is a
function of the reports, the run context, the evidence, the kernel files'
current text (source listings) and the generation time.
"""
from __future__ import annotations

import ast
import contextlib
import html
import json
from datetime import datetime, timezone
from typing import Iterable

from verikern.proofs.reporting.fingerprint import engine_of, fingerprints
from verikern.proofs.obligations import KernelReport, KernelStatus, Obligation, Status
from verikern.proofs.reporting.common import (
    RunContext, counterexample_lines, finding_loc, json_safe, sources_of, status_counts,
    type_oblivious_lines,
)
from verikern.proofs.reporting.render import obligation_text, replay_text, suggestion_lines
from verikern.proofs.reporting.signoff import (
    SIGNOFF_FIELDS, Evidence, overall, provenance, qualification_lines, source_lines,
)

_RANK = {"proved": 0, "unknown": 1, "failed": 2}
_CSS = """
body{font-family:-apple-system,Segoe UI,Helvetica,Arial,sans-serif;margin:24px;color:#1d1d1f;max-width:1300px}
h1{font-size:24px;margin:0 0 4px} h2{font-size:19px;border-bottom:1px solid #ccc;padding-bottom:3px;margin-top:28px}
h3{font-size:16px;margin:18px 0 6px} code,pre{font-family:Menlo,Consolas,monospace;font-size:12.5px}
table{border-collapse:collapse;margin:6px 0 10px}
th,td{border:1px solid #d0d0d0;padding:3px 7px;text-align:left;vertical-align:top;font-size:13px}
th{background:#f2f2f2} .muted{color:#666}
.kernel{border:1px solid #ddd;border-radius:6px;padding:4px 14px 10px;margin:16px 0}
.badge{display:inline-block;padding:1px 8px;border-radius:10px;color:#fff;font-weight:600;font-size:12px}
.b-proved{background:#1a7f37} .b-failed{background:#cf222e} .b-unknown{background:#bf8700} .b-error{background:#8250df}
pre.src{background:#fafafa;border:1px solid #e2e2e2;padding:6px 0;overflow-x:auto}
.ln{display:block;padding:0 8px;white-space:pre}
.ln .no{display:inline-block;width:3.2em;color:#999;text-align:right;margin-right:10px}
.l-proved{background:#dafbe1} .l-unknown{background:#fff8c5} .l-failed{background:#ffebe9}
.mark{float:right;font-size:11px;color:#444;margin-left:16px}
td.cex{white-space:pre-wrap;font-family:Menlo,Consolas,monospace;font-size:12px}
.verdict{padding:10px 16px;border-radius:6px;color:#fff;font-size:18px;font-weight:700;margin:10px 0}
.v-proved{background:#1a7f37} .v-failed{background:#cf222e} .v-unknown{background:#bf8700} .v-error{background:#8250df}
pre.finding{background:#fff5f5;border-left:4px solid #cf222e;padding:6px 10px;white-space:pre-wrap}
pre.finding.unknown{background:#fffbea;border-left-color:#bf8700}
pre.suggest{background:#f0f7ff;border-left:4px solid #0969da;padding:6px 10px;white-space:pre-wrap}
table.signoff td{min-width:420px;height:30px} .warn{color:#cf222e;font-weight:600}
"""


def _e(text) -> str:
    return html.escape(str(text), quote=True)


def _badge(status: str) -> str:
    return f'<span class="badge b-{_e(status)}">{_e(status.upper())}</span>'


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8") as fh:
            return fh.read()
    except (OSError, ValueError):
        return None


def _kernel_lines(source: str | None, r: KernelReport) -> list[int]:
    """Line numbers to list for the kernel: its decorated definition, and every
    obligation line outside it (inlined functions), in order."""
    lines: set[int] = set()
    if source is not None:
        with contextlib.suppress(SyntaxError):   # a file that no longer parses: obligation lines only
            for node in ast.walk(ast.parse(source)):
                if isinstance(node, ast.FunctionDef) and node.name == r.kernel.split("[")[0]:
                    first = min([node.lineno] + [d.lineno for d in node.decorator_list])
                    lines.update(range(first, (node.end_lineno or node.lineno) + 1))
                    break
    for ob in r.obligations:
        for loc in (ob.loc, ob.other_loc):
            if loc is not None and loc.line >= 1:
                lines.add(loc.line)
    return sorted(lines)


def _line_marks(r: KernelReport) -> dict[int, list[Obligation]]:
    marks: dict[int, list[Obligation]] = {}
    for ob in r.obligations:
        marks.setdefault(ob.loc.line, []).append(ob)
        if ob.other_loc is not None and ob.other_loc.line != ob.loc.line:
            marks.setdefault(ob.other_loc.line, []).append(ob)
    return marks


def _worst(obs: list[Obligation]) -> str:
    return max((ob.status.value for ob in obs), key=_RANK.__getitem__)


def _mark_text(obs: list[Obligation]) -> str:
    """'bounds: failed, race x3: proved' for the obligations at one line."""
    groups: dict[tuple[str, str], int] = {}
    for ob in obs:
        key = (ob.kind.value, ob.status.value)
        groups[key] = groups.get(key, 0) + 1
    return ", ".join(f"{kind}{f' x{n}' if n > 1 else ''}: {status.upper()}"
                     for (kind, status), n in groups.items())


def _confirmation(ob: Obligation) -> str:
    if ob.status is Status.PROVED:
        return "proved by the solver (no replay needed)"
    if ob.status is Status.UNKNOWN:
        return f"not established: {ob.reason}" if ob.reason else "not established"
    return "simulator replay " + replay_text(ob)


def _budget(r: KernelReport) -> str:
    return f"{r.scope.budget:g}M units/check" if r.scope is not None else "-"


def _finding_lines(r: KernelReport, ev: Evidence) -> list[tuple[str, list[str]]]:
    """(status, lines) per failed or unknown obligation, as `verikern prove`
    prints it (location, source and caret, why, counterexample, replay
    verdict), with the file named relative to the project root."""
    here, shown = f"{r.file}:", f"{ev.shown(r.file)}:"
    out = []
    for ob in r.obligations:
        if ob.status is not Status.PROVED:
            lines = [line.replace(here, shown) for line in obligation_text(ob, r)]
            out.append((ob.status.value, [line[2:] if line.startswith("  ") else line for line in lines]))
    return out


def _suggestion(r: KernelReport) -> list[str]:
    return [line[2:] if line.startswith("  ") else line for line in suggestion_lines(r)]


def _evidence(reports: list[KernelReport], evidence: Evidence | None) -> Evidence:
    if evidence is not None:
        return evidence
    from verikern.proofs.reporting.signoff import gather  # lazy: runs git; only when the caller gave none

    return gather(reports)


def _li(text: str, warn: bool) -> str:
    return f'<li class="warn">{_e(text)}</li>' if warn else f"<li>{_e(text)}</li>"


def _when(generated: datetime | None) -> str:
    return (generated or datetime.now(timezone.utc)).strftime("%Y-%m-%d %H:%M:%S UTC")


# ------------------------------------------------------------------ html
def render_html(reports: Iterable[KernelReport], context: RunContext | None = None,
                *, generated: datetime | None = None, evidence: Evidence | None = None) -> str:
    from verikern.proofs.reporting.scope import (  # lazy: z3 (reporting.scope)
        HARDWARE_LIMITS, NOT_CHECKED, array_bound, versions,
    )

    reports = list(reports)
    context = context or RunContext()
    ev = _evidence(reports, evidence)
    counts = status_counts(reports)
    word, sentence = overall(reports)
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           "<title>verikern sign-off report</title>", f"<style>{_CSS}</style></head><body>",
           "<h1>verikern sign-off report</h1>",
           f'<p class="muted">generated {_e(_when(generated))}; {len(reports)} kernel(s): '
           + ", ".join(f"{counts[s.value]} {s.value}" for s in KernelStatus) + "</p>",
           f'<div class="verdict v-{_e(word)}" id="verdict">{_e(sentence)}</div>']
    # run
    out.append('<h2 id="run">Command and tools</h2><table>')
    out.append(f"<tr><th>command</th><td><code>{_e(' '.join(context.command) or '-')}</code></td></tr>")
    for key, value in versions().items():
        out.append(f"<tr><th>{_e(key)}</th><td>{_e(value)}</td></tr>")
    out.append(f"<tr><th>options</th><td><code>{_e(json.dumps(json_safe(dict(context.options))))}</code></td></tr>")
    out.append("</table>")
    # provenance
    out.append('<h2 id="provenance">Provenance</h2><ul>')
    out += [_li(line, "DIRTY" in line) for line in source_lines(ev)]
    out.append("</ul><table><tr><th>kernel</th><th>file</th><th>verdict from</th></tr>")
    out += [f"<tr><td>{_e(r.kernel)}</td><td>{_e(ev.shown(r.file))}</td><td>{_e(provenance(r))}</td></tr>"
            for r in reports]
    out.append("</table>")
    # qualification
    q = ev.qualification
    out.append('<h2 id="qualification">Qualification evidence</h2><ul>')
    out += [_li(line, "NOT" in line or "FAILED" in line) for line in qualification_lines(q)]
    out.append("</ul>")
    if q is not None and q.summary:
        out.append("<pre>" + _e("\n".join(q.summary)) + "</pre>")
    # summary
    out.append('<h2 id="summary">Summary</h2><table><tr><th>kernel</th><th>file</th><th>status</th>'
               "<th>obligations</th><th>failed</th><th>unknown</th><th>verdict from</th></tr>")
    for n, r in enumerate(reports):
        failed = sum(ob.status is Status.FAILED for ob in r.obligations)
        unknown = sum(ob.status is Status.UNKNOWN for ob in r.obligations)
        out.append(f'<tr><td><a href="#kernel-{n}">{_e(r.kernel)}</a></td><td>{_e(ev.shown(r.file))}</td>'
                   f"<td>{_badge(r.status.value)}</td><td>{len(r.obligations)}</td><td>{failed}</td>"
                   f"<td>{unknown}</td><td>{'proof cache' if r.cached else 'this run'}</td></tr>")
    out.append("</table>")
    # assumptions
    out.append('<h2 id="assumptions">What every proof assumes, and what it does not check</h2>')
    out.append("<h3>Hardware limits</h3><ul>" + "".join(f"<li>{_e(x)}</li>" for x in HARDWARE_LIMITS) + "</ul>")
    bound = array_bound(context.options.get("max_array_bytes"))
    out.append(f"<h3>Array sizes</h3><p>{_e(bound)}</p>")
    out.append("<h3>Not checked</h3><ul>" + "".join(f"<li>{_e(x)}</li>" for x in NOT_CHECKED) + "</ul>")
    # hashes
    out.append('<h2 id="hashes">Hashes (sha256)</h2><table><tr><th>source file</th><th>sha256</th></tr>')
    for src in sources_of(reports):
        out.append(f"<tr><td>{_e(ev.shown(src['path']))}</td>"
                   f"<td><code>{_e(src['sha256'] or 'unreadable')}</code></td></tr>")
    out.append("</table><table><tr><th>kernel</th><th>MIR sha256</th></tr>")
    for r in reports:
        if r.scope is not None:
            out.append(f"<tr><td>{_e(r.kernel)}</td><td><code>{_e(r.scope.mir_sha256)}</code></td></tr>")
    out.append("</table>")
    # kernels
    out.append('<h2 id="kernels">Kernels</h2>')
    texts: dict = {}
    for n, r in enumerate(reports):
        out.extend(_kernel_html(n, r, texts, ev))
    # sign-off
    out.append('<h2 id="signoff">Sign-off</h2><p>I have reviewed this report: the verdict above, every '
               "failure and unknown, the assumptions and what is not checked.</p>"
               f'<p>Verdict reviewed: <b>{_e(sentence)}</b></p><table class="signoff">')
    out += [f"<tr><th>{_e(name)}</th><td></td></tr>" for name in SIGNOFF_FIELDS]
    out.append("</table></body></html>")
    return "\n".join(out) + "\n"


def _kernel_html(n: int, r: KernelReport, texts: dict, ev: Evidence) -> list[str]:
    out = [f'<section class="kernel" id="kernel-{n}"><h3>{_badge(r.status.value)} {_e(r.kernel)} '
           f'<span class="muted">{_e(ev.shown(r.file))}:{r.line}; verdict {_e(provenance(r))}'
           "</span></h3>"]
    if r.status is KernelStatus.ERROR:
        out.append(f"<pre>{_e((r.error or 'error').replace(r.file + ':', ev.shown(r.file) + ':'))}</pre></section>")
        return out
    out += [f"<p>{_e(line)}</p>" for line in type_oblivious_lines(r)]
    if r.scope is not None:
        out.append("<b>Assumptions</b><ul>" + "".join(f"<li>{_e(x)}</li>" for x in r.scope.assumption_lines())
                   + f"<li>solver budget: {_e(_budget(r))}</li></ul>")
    source = _read(r.file)
    marks = _line_marks(r)
    if source is None:
        out.append('<p class="muted">source file unreadable now</p>')
    else:
        lines = source.splitlines()
        listing = []
        previous = None
        for no in _kernel_lines(source, r):
            if not 1 <= no <= len(lines):
                continue
            if previous is not None and no != previous + 1:
                listing.append('<span class="ln muted">   ...</span>')
            previous = no
            obs = marks.get(no, [])
            cls = f" l-{_worst(obs)}" if obs else ""
            mark = ""
            if obs:
                mark = f'<span class="mark">{_e(_mark_text(obs))}</span>'
            listing.append(f'<span class="ln{cls}" data-line="{no}"><span class="no">{no}</span>'
                           f"{_e(lines[no - 1])}{mark}</span>")
        out.append('<pre class="src">' + "".join(listing) + "</pre>")   # block spans: no newlines
    findings = _finding_lines(r, ev)
    if findings:
        out.append("<b>Failures and unknowns, as <code>verikern prove</code> reports them</b>")
        out += [f'<pre class="finding {_e(status)}">{_e(chr(10).join(lines))}</pre>' for status, lines in findings]
    suggestion = _suggestion(r)
    if suggestion:
        out.append('<pre class="suggest">' + _e("\n".join(suggestion)) + "</pre>")
    out.append("<table><tr><th>#</th><th>kind</th><th>at</th><th>status</th><th>engine</th><th>budget</th>"
               "<th>message</th><th>counterexample</th><th>confirmation</th><th>fingerprint</th></tr>")
    for i, (ob, fp) in enumerate(zip(r.obligations, fingerprints(r, texts)), 1):
        loc = finding_loc(ob.loc, r)
        cex = "\n".join(counterexample_lines(ob)) or "-"
        out.append(f"<tr><td>{i}</td><td>{_e(ob.kind.value)}</td><td>{loc.line}:{loc.col}</td>"
                   f"<td>{_badge(ob.status.value)}</td><td>{_e(engine_of(ob))}</td><td>{_e(_budget(r))}</td>"
                   f"<td>{_e(ob.message)}</td><td class=\"cex\">{_e(cex)}</td><td>{_e(_confirmation(ob))}</td>"
                   f"<td><code>{_e(fp)}</code></td></tr>")
    out.append("</table></section>")
    return out


# ------------------------------------------------------------------ markdown
def _md(text) -> str:
    return str(text).replace("|", "\\|").replace("\n", "<br>")


def render_markdown(reports: Iterable[KernelReport], context: RunContext | None = None,
                    *, generated: datetime | None = None, evidence: Evidence | None = None) -> str:
    """The same sections as the HTML document, as GitHub-flavoured Markdown."""
    from verikern.proofs.reporting.scope import (  # lazy: z3 (reporting.scope)
        HARDWARE_LIMITS, NOT_CHECKED, array_bound, versions,
    )

    reports = list(reports)
    context = context or RunContext()
    ev = _evidence(reports, evidence)
    _word, sentence = overall(reports)
    out = ["# verikern sign-off report", "", f"Generated {_when(generated)}.", "", f"> **{sentence}**", "",
           "## Command and tools", "", f"- command: `{' '.join(context.command) or '-'}`"]
    out += [f"- {k}: {v}" for k, v in versions().items()]
    out += [f"- options: `{json.dumps(json_safe(dict(context.options)))}`", "", "## Provenance", ""]
    out += [f"- {line}" for line in source_lines(ev)]
    out += [f"- {r.kernel} ({ev.shown(r.file)}): verdict {provenance(r)}" for r in reports]
    out += ["", "## Qualification evidence", ""] + [f"- {line}" for line in qualification_lines(ev.qualification)]
    if ev.qualification is not None and ev.qualification.summary:
        out += ["", "```", *ev.qualification.summary, "```"]
    out += ["", "## Summary", "",
            "| kernel | file | status | obligations | failed | unknown | verdict from |",
            "|---|---|---|---|---|---|---|"]
    for r in reports:
        out.append(f"| {_md(r.kernel)} | {_md(ev.shown(r.file))} | **{r.status.value}** | {len(r.obligations)} | "
                   f"{sum(o.status is Status.FAILED for o in r.obligations)} | "
                   f"{sum(o.status is Status.UNKNOWN for o in r.obligations)} | "
                   f"{'proof cache' if r.cached else 'this run'} |")
    out += ["", "## What every proof assumes, and what it does not check", ""]
    bound = array_bound(context.options.get("max_array_bytes"))
    out += [f"- hardware: {x}" for x in HARDWARE_LIMITS] + [f"- arrays: {bound}"]
    out += [f"- not checked: {x}" for x in NOT_CHECKED]
    out += ["", "## Hashes (sha256)", "", "| file or kernel | sha256 |", "|---|---|"]
    out += [f"| {_md(ev.shown(s['path']))} | `{s['sha256']}` |" for s in sources_of(reports)]
    out += [f"| kernel {_md(r.kernel)} (MIR) | `{r.scope.mir_sha256}` |" for r in reports if r.scope is not None]
    out += ["", "## Kernels"]
    texts: dict = {}
    for r in reports:
        out += _kernel_markdown(r, texts, ev)
    out += ["", "## Sign-off", "", "I have reviewed this report: the verdict above, every failure and "
            "unknown, the assumptions and what is not checked.", "", f"Verdict reviewed: **{sentence}**", "",
            "| field | entry |", "|---|---|"] + [f"| {name} | |" for name in SIGNOFF_FIELDS]
    return "\n".join(out) + "\n"


def _kernel_markdown(r: KernelReport, texts: dict, ev: Evidence) -> list[str]:
    out = ["", f"### {r.kernel}: {r.status.value.upper()}", "",
           f"`{ev.shown(r.file)}:{r.line}`; verdict {provenance(r)}", ""]
    if r.status is KernelStatus.ERROR:
        return out + ["```", (r.error or "error").replace(r.file + ":", ev.shown(r.file) + ":"), "```"]
    if covered := type_oblivious_lines(r):
        out += [*covered, ""]
    if r.scope is not None:
        out += [f"- {x}" for x in r.scope.assumption_lines()] + [f"- solver budget: {_budget(r)}", ""]
    source = _read(r.file)
    if source is not None:
        lines, marks = source.splitlines(), _line_marks(r)
        out.append("```python")
        for no in _kernel_lines(source, r):
            if 1 <= no <= len(lines):
                obs = marks.get(no, [])
                tag = f"    # <- {_mark_text(obs)}" if obs else ""
                out.append(f"{no:4d}  {lines[no - 1]}{tag}")
        out.append("```")
    findings = _finding_lines(r, ev)
    if findings:
        out += ["", "Failures and unknowns, as `verikern prove` reports them:", ""]
        for _status, lines in findings:
            out += ["```", *lines, "```"]
    suggestion = _suggestion(r)
    if suggestion:
        out += ["", "```", *suggestion, "```"]
    out += ["", "| # | kind | at | status | engine | budget | message | counterexample | confirmation |",
            "|---|---|---|---|---|---|---|---|---|"]
    for i, (ob, _fp) in enumerate(zip(r.obligations, fingerprints(r, texts)), 1):
        loc = finding_loc(ob.loc, r)
        out.append(f"| {i} | {ob.kind.value} | {loc.line}:{loc.col} | **{ob.status.value}** | "
                   f"{_md(engine_of(ob))} | {_budget(r)} | {_md(ob.message)} | "
                   f"{_md(chr(10).join(counterexample_lines(ob)) or '-')} | {_md(_confirmation(ob))} |")
    return out
