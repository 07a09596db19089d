"""`verikern report`: prove PATHs and write the sign-off document (HTML, or
Markdown with --md); proofs.reporting.html says what it contains.

Invariant (exit codes): those of `verikern prove` (0 proved, 1 a failure,
2 an unknown, 3 input error), so a CI step can both publish the document
and gate on it; the document is written whatever the verdicts.
"""
from __future__ import annotations

import sys

import click

from verikern.cli.common import (InputErrorCommand, make_cache, proof_options, run_options, run_proofs,
                                 write_output)
from verikern.cli.progress import Progress
from verikern.cli.prove import exit_code


@click.command(cls=InputErrorCommand, context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@proof_options
@run_options
@click.option("--output", "-o", type=click.Path(dir_okay=False, writable=True), metavar="FILE",
              help="Write the document to FILE (default: stdout).")
@click.option("--md", "markdown", is_flag=True, help="Markdown instead of HTML.")
def command(paths, kernel, dims, block_dim, budget, jobs, executor, scheduler, cache_dir, no_cache,
            output, markdown, max_array_bytes=None):
    """Prove PATH... and write a self-contained sign-off document: the exact
    command, tool and platform versions, a summary table, the assumptions,
    each kernel's source with every obligation marked at its line, every
    obligation with status, engine, budget, counterexample and confirmation,
    and the sha256 of every source file and kernel MIR.

    \b
    Examples:
      verikern report examples/ -o report.html
      verikern report src/ --md          # Markdown on stdout
    """
    from verikern.proofs.reporting.html import render_html, render_markdown  # lazy: CLI start-up

    progress = Progress()                    # on stderr: a bar on a terminal, else a line per kernel
    try:
        reports, context = run_proofs(paths, kernel=kernel, dims=dims, block_dim=block_dim, budget=budget,
                                      jobs=jobs, executor=executor, scheduler=scheduler, progress=progress,
                                      cache=make_cache(cache_dir, no_cache), max_array_bytes=max_array_bytes)
    finally:
        progress.close()
    text = (render_markdown if markdown else render_html)(reports, context)
    write_output(text, output)
    if output is not None:
        click.echo(f"wrote {output}: {len(reports)} kernel(s)", err=True)
    sys.exit(exit_code(reports))
