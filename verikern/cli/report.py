"""`verikern report`: prove PATHs and write the sign-off document (HTML, or
Markdown with --md); proofs.reporting.html says what it contains.

Invariant (exit codes): those of `verikern prove` (0 proved, 1 a failure,
2 an unknown, 3 input error), so a CI step can both publish the document
and gate on it; the document is written whatever the verdicts. A self-test
run with the report (--selftest) or read from its saved output
(--selftest-log) is evidence in the document only: it never changes the
exit code.
"""
from __future__ import annotations

import sys

import click

from verikern.cli.common import (
    InputErrorCommand, InputErrorExit, make_cache, proof_options, run_options, run_proofs, write_output,
)
from verikern.cli.progress import Progress
from verikern.cli.prove import exit_code


@click.command(cls=InputErrorCommand, context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@proof_options
@run_options
@click.option("--output", "-o", type=click.Path(dir_okay=False, writable=True), metavar="FILE",
              help="Write the document to FILE (default: stdout).")
@click.option("--md", "markdown", is_flag=True, help="Markdown instead of HTML.")
@click.option("--suggest/--no-suggest", default=True, show_default=True,
              help="For a failed kernel, search a contract under which it is proved and show it.")
@click.option("--selftest", "run_selftest", is_flag=True,
              help="Also run `verikern selftest` (the shipped corpus against its expected verdicts; "
                   "minutes) and include its summary as qualification evidence.")
@click.option("--selftest-log", type=click.Path(exists=True, dir_okay=False), metavar="FILE",
              help="Include a saved `verikern selftest` output as qualification evidence (checked "
                   "against this build's versions and corpus hash).")
def command(paths, kernel, dims, block_dim, budget, jobs, executor, scheduler, cache_dir, no_cache,
            output, markdown, suggest, run_selftest, selftest_log, max_array_bytes=None, kernel_budget=None):
    """Prove PATH... and write a self-contained sign-off document: the overall
    verdict, the exact command, tool and platform versions, the sources'
    git commit and dirty state, where each verdict came from (this run or
    the proof cache, with the time it was computed), qualification evidence
    (the shipped corpus's hash, the self-test summary), a summary table, the
    assumptions, each kernel's source with every obligation marked at its
    line, every failure with its why, counterexample, replay verdict and
    suggested contract, every obligation's status, engine and budget, the
    sha256 of every source file and kernel MIR, and a sign-off block to fill in.

    \b
    Examples:
      verikern report examples/ -o report.html
      verikern report src/ --md          # Markdown on stdout
      verikern selftest > selftest.txt; verikern report src/ --selftest-log selftest.txt -o report.html
    """
    from verikern.proofs.reporting.html import render_html, render_markdown  # lazy: CLI start-up
    from verikern.proofs.reporting.signoff import gather  # lazy: CLI start-up

    if run_selftest and selftest_log:
        raise InputErrorExit("give --selftest (run it now) or --selftest-log FILE (a saved run), not both")
    qualification = _qualification(selftest_log, jobs, cache_dir) if selftest_log or run_selftest else None
    progress = Progress()                    # on stderr: a bar on a terminal, else a line per kernel
    try:
        reports, context = run_proofs(paths, kernel=kernel, dims=dims, block_dim=block_dim, budget=budget,
                                      jobs=jobs, executor=executor, scheduler=scheduler, progress=progress,
                                      cache=make_cache(cache_dir, no_cache), max_array_bytes=max_array_bytes,
                                      suggest=suggest, kernel_budget=kernel_budget)
    finally:
        progress.close()
    if qualification is None:
        qualification = _qualification(None, jobs, cache_dir, run=False)
    evidence = gather(reports, qualification)
    text = (render_markdown if markdown else render_html)(reports, context, evidence=evidence)
    write_output(text, output)
    if output is not None:
        click.echo(f"wrote {output}: {len(reports)} kernel(s)", err=True)
    sys.exit(exit_code(reports))


def _qualification(log, jobs, cache_dir, *, run: bool = True):
    """The qualification evidence: the shipped corpus always; the self-test's
    summary read from `log`, or run now when `run` and no log is given."""
    from verikern import selftest  # lazy: CLI start-up
    from verikern.cli.selftest import run_selftest  # lazy: CLI start-up
    from verikern.proofs.reporting.scope import versions  # lazy: CLI start-up
    from verikern.proofs.reporting.signoff import Qualification  # lazy: CLI start-up

    shipped = selftest.corpus_hash()
    cases = len(selftest.cases())
    if log is None and not run:
        return Qualification(cases, shipped)
    if log is None:
        lines = [line for line, _ok in run_selftest(selftest.cases(), jobs, cache_dir)]
        origin = "run with this report"
        text = "\n".join(lines)
    else:
        try:
            with open(log, encoding="utf-8") as fh:
                text = fh.read()
        except (OSError, ValueError) as err:
            raise InputErrorExit(f"cannot read --selftest-log {log}: {err}") from err
        origin = f"read from {log}"
    try:
        summary = selftest.read_summary(text)
    except ValueError as err:
        raise InputErrorExit(f"--selftest-log {log}: {err}") from err
    v = versions()
    mismatches = []
    if summary.corpus_sha256 != shipped:
        mismatches.append(f"it ran the corpus sha256 {summary.corpus_sha256 or '(not stated)'}, "
                          f"this build ships {shipped}")
    here = f"verikern {v['verikern']}; z3 {v['z3']}; Python {v['python']}"
    if summary.tool != here:
        mismatches.append(f"it ran {summary.tool or '(no tool line)'}, this report {here}")
    if summary.ran != summary.of or summary.of != cases:
        mismatches.append(f"it ran {summary.ran} of {summary.of} cases; the shipped corpus has {cases}")
    return Qualification(cases, shipped, summary.lines, origin, summary.passed, tuple(mismatches))
