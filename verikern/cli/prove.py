"""`verikern prove`: the command line over `verikern.proofs.driver`.

Invariant (exit codes): 1 if any obligation failed; else 3 if any input
error (missing path, no kernels, bad option, a kernel that does not
compile); else 2 if any obligation is unknown; else 0 (everything proved).
"""
from __future__ import annotations

import sys

import click

EXIT_PROVED, EXIT_FAILED, EXIT_UNKNOWN, EXIT_INPUT = 0, 1, 2, 3


def exit_code(reports) -> int:
    """The exit status for a list of KernelReports (see the module invariant)."""
    from verikern.proofs.obligations import KernelStatus

    statuses = {r.status for r in reports}
    if KernelStatus.FAILED in statuses:
        return EXIT_FAILED
    if KernelStatus.ERROR in statuses:
        return EXIT_INPUT
    if KernelStatus.UNKNOWN in statuses:
        return EXIT_UNKNOWN
    return EXIT_PROVED


def _parse_dims(ctx, param, value):
    if value is None:
        return None
    try:
        dims = tuple(int(part) for part in value.replace("x", ",").split(","))
    except ValueError:
        raise click.BadParameter(f"{value!r}: give launch dims as N or N,M,... (positive integers)")
    if not 1 <= len(dims) <= 4 or any(d < 1 for d in dims):
        raise click.BadParameter(f"{value!r}: give 1 to 4 positive integers")
    return dims


class _InputErrorExit(click.ClickException):
    exit_code = EXIT_INPUT


class _ProveCommand(click.Command):
    """Bad options and arguments are input errors: exit 3, not click's 2
    (2 means 'unknown' here)."""

    def make_context(self, *args, **kwargs):
        try:
            return super().make_context(*args, **kwargs)
        except click.UsageError as err:
            err.exit_code = EXIT_INPUT
            raise


def _progress_reporter():
    """A progress callback drawing on stderr: a rich bar on a terminal, else
    nothing (plain logs stay clean); returns (callback, closer)."""
    if not sys.stderr.isatty():
        return None, lambda: None
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    bar = Progress(TextColumn("proving"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                   TextColumn("{task.description}"), console=Console(stderr=True), transient=True)
    state = {"task": None}

    def callback(done: int, total: int, file: str) -> None:
        if state["task"] is None:
            bar.start()
            state["task"] = bar.add_task("", total=total)
        bar.update(state["task"], completed=done, description=file)

    def close() -> None:
        if state["task"] is not None:
            bar.stop()

    return callback, close


@click.command(cls=_ProveCommand, context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@click.option("--kernel", "-k", "kernel", metavar="NAME",
              help="Prove only the kernel(s) with this name (comma-separated for several).")
@click.option("--dim", "dims", metavar="N[,M..]", callback=_parse_dims,
              help="Fix the launch dims (e.g. 1024 or 64,64); default: every launch the requires admit.")
@click.option("--block-dim", type=click.IntRange(1, 1024), metavar="B",
              help="Fix the block size (1..1024); default: the kernel's, else every block size.")
@click.option("--budget", type=click.FloatRange(min=0, min_open=True), default=10.0, show_default=True,
              metavar="N", help="Solver work per check, in millions of z3 resource units (about a "
              "second each on a typical machine). It counts work, not time, so every machine gives "
              "the same verdicts; a check that needs more ends 'unknown' saying so.")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=1, show_default=True, metavar="N",
              help="Prove N files in parallel (processes).")
@click.option("--format", "fmt", type=click.Choice(["text", "json", "short", "sarif"]), default="text",
              show_default=True, help="Report format.")
@click.option("--output", "-o", type=click.Path(dir_okay=False, writable=True), metavar="FILE",
              help="Write the report to FILE instead of stdout.")
def command(paths, kernel, dims, block_dim, budget, jobs, fmt, output):
    """Prove that kernels are free of out-of-bounds accesses, data races,
    barrier divergence, failing asserts and division by zero.

    PATH is a kernel file or a folder (every .py file below it). The files
    are read, never executed. Each failure comes with a concrete launch that
    the simulator replays to confirm it.

    \b
    Exit status:
      0  every obligation proved
      1  some obligation failed (a bug, with a counterexample)
      2  nothing failed, but some obligation is unknown (see the reasons)
      3  input error: missing path, no kernels, bad option, or a kernel
         that does not compile (unless something failed)

    \b
    Examples:
      verikern prove saxpy.py
      verikern prove examples/ --jobs 2
      verikern prove k.py --kernel reduce --dim 1024 --block-dim 256
      verikern prove k.py --format short          # file:line:col: error: ...
      verikern prove big.py --budget 40           # more solver work per check
      verikern prove src/ --format sarif -o verikern.sarif
    """
    from verikern.proofs import driver, report

    callback, close = _progress_reporter() if fmt == "text" or output else (None, lambda: None)
    try:
        reports = driver.prove_paths(list(paths), kernel=kernel, dims=dims, block_dim=block_dim,
                                     budget=budget, jobs=jobs, progress=callback)
    except driver.ProveInputError as err:
        raise _InputErrorExit(str(err))
    finally:
        close()
    color = fmt == "text" and output is None and sys.stdout.isatty()
    text = report.render(reports, fmt, color=color)
    if output is not None:
        try:
            with open(output, "w", encoding="utf-8") as fh:
                fh.write(text)
        except OSError as err:
            raise _InputErrorExit(f"cannot write {output}: {err.strerror or err}")
    elif color:
        from rich.console import Console

        Console(highlight=False, soft_wrap=True).print(text, end="")
    else:
        click.echo(text, nl=False)
    sys.exit(exit_code(reports))
