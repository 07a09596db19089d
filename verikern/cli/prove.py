"""`verikern prove`: the command line over `verikern.app.prove`.

Invariant (exit codes): 1 if any obligation failed; else 3 if any input
error (missing path, no kernels, bad option, a kernel that does not
compile); else 2 if any obligation is unknown; else 0 (everything proved).
With --baseline only findings not in the baseline count, and with
--fail-on failed unknown obligations do not (proofs.reporting.baseline.gate_exit_code).
"""
from __future__ import annotations

import json
import sys

import click

from verikern.cli.common import (InputErrorCommand, InputErrorExit, cross_check_option, debug_options,
                                 make_cache, proof_options, run_options, run_proofs, write_output,
                                 engine_options, check_engines)
from verikern.cli.progress import Progress, exit_interrupted

EXIT_PROVED, EXIT_FAILED, EXIT_UNKNOWN, EXIT_INPUT = 0, 1, 2, 3


def exit_code(reports) -> int:
    """The exit status for a list of KernelReports (see the module invariant)."""
    from verikern.proofs.obligations import KernelStatus  # lazy: CLI start-up

    statuses = {r.status for r in reports}
    if KernelStatus.FAILED in statuses:
        return EXIT_FAILED
    if KernelStatus.ERROR in statuses:
        return EXIT_INPUT
    if KernelStatus.UNKNOWN in statuses:
        return EXIT_UNKNOWN
    return EXIT_PROVED


_InputErrorExit = InputErrorExit


@click.command(cls=InputErrorCommand, context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@proof_options
@engine_options
@run_options
@debug_options
@cross_check_option
@click.option("--confirm-with", "confirm_with", type=click.Choice(["c"]), default=None,
              help="Also run every counterexample through the kernel's C encoding (needs a C "
              "compiler); obligations record who confirmed them (JSON: confirmed_by).")
@click.option("--format", "fmt", type=click.Choice(["text", "json", "short", "sarif", "junit"]), default="text",
              show_default=True, help="Report format.")
@click.option("--output", "-o", type=click.Path(dir_okay=False, writable=True), metavar="FILE",
              help="Write the report to FILE instead of stdout.")
@click.option("--fail-on", type=click.Choice(["failed", "unknown"]), default=None,
              help="Which findings fail the run: 'failed' (unknown ones exit 0) or 'unknown' "
              "(both; the default).")
@click.option("--baseline", type=click.Path(dir_okay=False), metavar="FILE",
              help="A JSON or SARIF report of accepted findings: those (matched by fingerprint) do "
              "not fail the run; new and fixed findings are listed on stderr.")
@click.option("--suggest/--no-suggest", default=True, show_default=True,
              help="For a failed kernel, search the launch and shape contracts Warp code relies on "
              "(launch dims equal to or bounded by array lengths, equal lengths, non-empty arrays, "
              "index ranges...) for the weakest one under which it is proved, and print it as a "
              "ready-to-paste @vk.requires(lambda ...) line (JSON: suggested_requires, "
              "proved_under_suggestion, suggested_example; SARIF: a fix). 'proved' under it means "
              "the kernel with the contract pasted in was proved again whole; an example launch it "
              "admits is shown. The search costs at most twice the proof's solver work; the kernel "
              "stays failed.")
@click.option("--skip-no-kernels", is_flag=True,
              help="Files without kernels are skipped, even when no file given has one (exit 0, "
              "nothing to prove): for hooks that pass every staged .py file.")
@click.option("--quiet", "-q", is_flag=True,
              help="No progress on stderr (by default a bar on a terminal, else one line per "
              "kernel as its file finishes).")
def command(paths, kernel, dims, block_dim, budget, jobs, executor, scheduler, cache_dir, no_cache,
            fmt, output, fail_on, baseline, confirm_with=None, max_array_bytes=None, suggest=True,
            engine="z3", unwind=None, skip_no_kernels=False, quiet=False, dump_smt=None,
            cross_check=None, kernel_budget=None):
    """Prove that kernels are free of out-of-bounds accesses, data races,
    barrier divergence, failing asserts and division by zero.

    PATH is a kernel file or a folder (every .py file below it). The files
    are read, never executed. Each failure comes with a concrete launch that
    the simulator replays to confirm it. Verdicts are cached by the kernel's
    MIR, the options and the tool versions (--no-cache, --cache-dir;
    VERIKERN_NO_CACHE=1 turns the default cache off).

    Progress goes to stderr: a bar on a terminal, else one line per kernel
    as its file finishes (--quiet: none). Ctrl-C stops at once: exit 130,
    with the verdicts of the files finished so far.

    \b
    Exit status:
      0  every obligation proved (or only accepted / allowed findings)
      1  some obligation failed (a bug, with a counterexample)
      2  nothing failed, but some obligation is unknown (see the reasons;
         0 with --fail-on failed)
      3  input error: missing path, no kernels, bad option, or a kernel
         that does not compile (unless something failed)
      130  interrupted (Ctrl-C)

    \b
    Examples:
      verikern prove saxpy.py
      verikern prove examples/ --jobs 2
      verikern prove k.py --kernel reduce --dim 1024 --block-dim 256
      verikern prove k.py --format short          # file:line:col: error: ...
      verikern prove big.py --budget 40           # more solver work per check
      verikern prove big.py --kernel-budget 100   # more solver work for each whole kernel
      verikern prove k.py --max-array-bytes 2**34 # arrays of at most 16 GiB
      verikern prove src/ --format sarif -o verikern.sarif
      verikern prove src/ --baseline accepted.json --fail-on failed
      verikern prove warp_kernels.py --no-suggest   # no suggested contracts
      verikern prove k.py --engine z3,cbmc          # CBMC too; disagreements exit 3
      verikern prove src/ --executor dask --scheduler tcp://10.0.0.5:8786
    """
    from verikern.proofs.reporting import render as report  # lazy: CLI start-up
    from verikern.proofs.reporting.baseline import (  # lazy: CLI start-up
        BaselineError, compare, gate_exit_code, load_baseline,
    )
    from verikern.proofs.deciding.session import SolverSettings, solver_settings  # lazy: CLI start-up

    accepted = None
    if baseline is not None:
        try:
            accepted = load_baseline(baseline)
        except BaselineError as err:
            raise _InputErrorExit(str(err)) from err
    engine = check_engines(engine)
    # --dump-smt and --cross-check need every query to run: no default cache
    cache = make_cache(cache_dir, no_cache, default_on=not (dump_smt or cross_check))
    progress = Progress(quiet=quiet)
    try:
        reports, context = run_proofs(paths, kernel=kernel, dims=dims, block_dim=block_dim, budget=budget,
                                      jobs=jobs, executor=executor, scheduler=scheduler, cache=cache,
                                      progress=progress, max_array_bytes=max_array_bytes,
                                      suggest=suggest, engine=engine, unwind=unwind,
                                      skip_no_kernels=skip_no_kernels, dump_smt=dump_smt,
                                      cross_check=cross_check, kernel_budget=kernel_budget)
    except KeyboardInterrupt:
        progress.close()
        _stop_interrupted(progress, fmt, output)
    finally:
        progress.close()
    if not reports and skip_no_kernels:
        sys.exit(EXIT_PROVED)
    if confirm_with == "c":
        from verikern.proofs.confirming.confirm_c import confirm_reports  # lazy: CLI start-up
        from verikern.app.prove import compiled_kernels  # lazy: CLI start-up
        reports = confirm_reports(reports, compiled_kernels)
    gate = compare(reports, accepted) if accepted is not None else None
    color = fmt == "text" and output is None and sys.stdout.isatty()
    if fmt == "short" and accepted:
        text = report.render_short(reports, accepted=frozenset(accepted))
    else:   # the report's versions name the cross-check solver the run asked for
        with solver_settings(SolverSettings(dump_smt=dump_smt, cross_check=cross_check)):
            text = report.render(reports, fmt, color=color, context=context)
    if gate is not None and fmt == "json":
        data = json.loads(text)
        data["baseline"] = dict(gate.to_json(), file=baseline)
        text = json.dumps(data, indent=2) + "\n"
    if output is None and color:
        from rich.console import Console  # lazy: CLI start-up

        Console(highlight=False, soft_wrap=True).print(text, end="")
    else:
        write_output(text, output)
    if gate is not None:
        click.echo("\n".join(gate.summary_lines()), err=True)
    disagreements = [q for r in reports for ob in r.obligations for q in ob.disagreements]
    if disagreements:
        click.echo(f"error: {len(disagreements)} disagreement(s) between solvers or engines "
                   f"(first: {disagreements[0]}); the verdicts resting on them are not trusted "
                   "(see each obligation's reason)", err=True)
        sys.exit(EXIT_INPUT)
    sys.exit(gate_exit_code(reports, fail_on=fail_on, baseline=gate))


def _stop_interrupted(progress: Progress, fmt: str, output) -> None:
    """Exit 130 after Ctrl-C: in text format to stdout, the report of the files
    finished so far; always, on stderr, a summary saying the run is partial.
    No JSON, SARIF, JUnit or short report is written (a partial one could be
    taken for a whole run)."""
    from verikern.proofs.reporting import render as report  # lazy: CLI start-up

    if fmt == "text" and output is None and progress.reports:
        click.echo(report.render_text(progress.reports), nl=False)
    click.echo(progress.interrupted_summary(), err=True)
    exit_interrupted()
