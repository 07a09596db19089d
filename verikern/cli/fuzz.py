"""`verikern fuzz`: differential testing of a kernel file's kernels across
backends on hypothesis-generated launches (verikern.testing).

Invariant (exit codes): 3 for input errors (missing file, unknown kernel, a
kernel that does not compile, bad option, no launch satisfies the
contracts); else 1 if two backends disagreed on some kernel; else 0.
Backends that cannot run a kernel here drop out with a note; a kernel that
fewer than two backends can run is reported "skipped", not failed.
"""
from __future__ import annotations

import shlex
import sys

import click

from verikern.cli.common import InputErrorCommand, parse_pairs

EXIT_OK, EXIT_MISMATCH, EXIT_INPUT = 0, 1, 3
DEFAULT_BACKENDS = "cpu,cpu:native"
#: The default deadline of one launch, in simulator scheduling steps (about a
#: second or two of simulation; a count, so every machine cuts the same launches).
DEFAULT_MAX_STEPS = 200_000


class _InputError(click.ClickException):
    exit_code = EXIT_INPUT


def _parse_backends(ctx, param, value):
    from verikern.testing.backends import BACKENDS  # lazy: CLI start-up

    names = [n.strip() for n in value.split(",") if n.strip()]
    bad = [n for n in names if n not in BACKENDS]
    if bad or not names:
        raise click.BadParameter(f"{', '.join(bad) or value!r}: choose from {', '.join(BACKENDS)}")
    if len(set(names)) != len(names):
        raise click.BadParameter(f"{value!r} names a backend twice")
    return names


EPILOG = """\b
Exit status:
  0  every compared kernel agreed on every generated launch
  1  two backends disagreed (the shrunk input, both outputs at the first
     differing element, a diagnosis and a command reproducing it are shown)
  3  input error: missing file, unknown kernel, compile error, bad option,
     or no launch satisfies the kernel's contracts
"""


@click.command(cls=InputErrorCommand, epilog=EPILOG,
               context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("file", type=click.Path(dir_okay=False), required=False)
@click.option("--kernel", "-k", "kernels", metavar="NAME[,NAME..]",
              help="Kernels to test (default: every kernel in FILE).")
@click.option("--backends", "-b", default=DEFAULT_BACKENDS, show_default=True, metavar="LIST",
              callback=_parse_backends,
              help="Comma-separated backends to compare: cpu (simulator), cpu:native (LLVM), "
                   "cuda (first GPU), warp (warp-lang on its CPU device). The first is the "
                   "reference.")
@click.option("--examples", "-n", type=click.IntRange(min=1), default=100, show_default=True,
              help="Generated launches per kernel.")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Seed for the generated launches (the same seed gives the same launches).")
@click.option("--max-threads", type=click.IntRange(1, 1 << 20), default=1024, show_default=True,
              metavar="N", help="The largest launch generated.")
@click.option("--finite", is_flag=True, help="No NaN or infinities in generated floats.")
@click.option("--param", "params", multiple=True, metavar="NAME=VALUE", callback=parse_pairs,
              help="Fix a scalar parameter (repeatable).")
@click.option("--size", "sizes", multiple=True, metavar="NAME=N[,M..]", callback=parse_pairs,
              help="Fix an array's shape (repeatable).")
@click.option("--replay", type=click.Path(dir_okay=False, exists=True), metavar="FILE.npz",
              help="Run only the launch saved in FILE.npz (as printed after a mismatch).")
@click.option("--save-dir", default=".verikern-fuzz", show_default=True, metavar="DIR",
              help="Where a mismatching launch is saved for --replay.")
@click.option("--max-steps", type=click.IntRange(min=1), default=DEFAULT_MAX_STEPS, show_default=True,
              metavar="N", help="The deadline of one launch, in simulator scheduling steps (work, not "
              "seconds: the same on every machine). A launch past it is not compared; the run says "
              "how many and why the first was slow.")
@click.option("--generate", type=click.IntRange(min=1), metavar="N",
              help="Instead of FILE: generate N kernels (seeds --seed, --seed+1, ...), well "
                   "defined by construction, run each on every backend that can express it and "
                   "compare; a mismatch is shrunk and saved as a kernel file under --save-dir.")
@click.option("--prove-every", type=click.IntRange(min=0), default=0, show_default=True,
              metavar="K", help="With --generate: prove every K-th generated kernel and one "
                                "planted defect of it (0: never).")
@click.option("--budget", type=click.FloatRange(min=0.01), default=2.0, show_default=True,
              help="With --prove-every: solver work per check, in millions of z3 resource units.")
@click.option("--keep", is_flag=True, help="With --generate: keep every generated kernel file "
                                           "under --save-dir, not only the findings.")
def command(file, kernels, backends, examples, seed, max_threads, finite, params, sizes,
            replay, save_dir, max_steps=DEFAULT_MAX_STEPS, generate=None, prove_every=0,
            budget=2.0, keep=False):
    """Run each kernel of FILE on hypothesis-generated launches on every
    requested backend and compare every output array: integers and bools
    bit for bit, floats within docs/LANGUAGE.md section 6's tolerance (1e-6
    relative or 4 ULP; 1e-5 / 64 ULP with fast_math), NaN equal to NaN.

    Launches satisfy the kernel's contracts (launch dims, block size,
    scalars, shapes and contents are solved with z3) and include edge
    values: NaN, infinities, signed zeros, subnormals, INT_MIN/INT_MAX,
    empty arrays where admitted. A disagreement is shrunk to a small launch
    and diagnosed: a data race or uninitialised shared read in the kernel,
    or a backend disagreement. Each launch has a deadline counted in
    simulator steps (--max-steps). Progress goes to stderr: a bar on a
    terminal, else a line per kernel (and when a mismatch is being shrunk).

    FILE is read, not executed, for cpu, cpu:native and cuda. The warp
    backend needs the kernel's Python function, so with --backends ...,warp
    (or for kernels that read constants from the code around them) FILE is
    IMPORTED, which runs its module-level code; `verikern prove` never does.

    \b
    Examples:
      verikern fuzz examples/saxpy.py
      verikern fuzz examples/saxpy.py --backends cpu,cpu:native,warp -n 200
      verikern fuzz k.py --kernel reduce --backends cpu,cuda --seed 3
      verikern fuzz k.py --kernel reduce --replay .verikern-fuzz/reduce-0123abcd.npz
      verikern fuzz --generate 500 --seed 7 --backends cpu,cpu:native,warp,cuda
      verikern fuzz --generate 50 --prove-every 5
    """
    from verikern.errors import VerikernError  # lazy: CLI start-up
    from verikern.testing.target import TestingError, compile_kernels, with_object  # lazy: CLI start-up

    if generate:
        from verikern.cli.fuzz_generate import check_options, run_generated  # lazy: CLI start-up

        check_options(file, replay, kernels, params, sizes)
        sys.exit(run_generated(generate, seed, backends, save_dir, prove_every, budget, keep))
    if not file:
        raise click.UsageError("give a kernel FILE, or --generate N")
    names = [n.strip() for n in kernels.split(",") if n.strip()] if kernels else None
    try:
        targets = compile_kernels(file, names)
        if "warp" in backends or any(t.captured for t in targets):
            targets = [_imported(t, with_object) for t in targets]
    except (TestingError, VerikernError) as err:
        raise _InputError(str(err)) from err
    if replay and len(targets) != 1:
        raise _InputError("--replay runs one kernel: choose it with --kernel NAME")
    options = {"max_threads": max_threads, "finite": finite, "params": params, "sizes": sizes,
               "max_steps": max_steps}
    results = _run_all(file, targets, backends, examples, seed, options, replay, save_dir)
    sys.exit(_report(file, results, backends))


def _imported(target, with_object):
    """The target with its Python object; an import failure leaves it as is
    (warp then drops out with the reason)."""
    from verikern.testing.target import TestingError  # lazy: CLI start-up

    try:
        return with_object(target)
    except TestingError as err:
        click.echo(f"note: {err}", err=True)
        return target


def _run_all(file, targets, backends, examples, seed, options, replay, save_dir):
    from verikern.errors import VerikernError  # lazy: CLI start-up
    from verikern.testing.fuzzing import fuzz  # lazy: CLI start-up
    from verikern.testing.explain import load_launch  # lazy: CLI start-up
    from verikern.testing.target import TestingError  # lazy: CLI start-up

    bar, task = _progress(len(targets) * (1 if replay else examples))
    results = []
    done = [0]
    try:
        for number, t in enumerate(targets, 1):
            base = done[0]
            where = f"[{number}/{len(targets)}] {t.name}"
            if bar is None:
                click.echo(f"{where}: fuzzing {1 if replay else examples} launch(es) on "
                           f"{', '.join(backends)}", err=True)

            def shrinking(n, where=where):
                if bar is None:
                    click.echo(f"{where}: backends disagree on launch {n}; shrinking it to a small "
                               "launch (this re-runs the kernel many times)", err=True)

            def tick(n, base=base, t=t):
                done[0] = base + n
                if bar is not None:
                    bar.update(task, completed=done[0], description=t.name)

            def command(path, t=t):
                return " ".join(["verikern", "fuzz", shlex.quote(file), "--kernel", t.name,
                                 "--backends", ",".join(backends), "--replay", shlex.quote(path)])
            try:
                launch = load_launch(replay) if replay else None
                r = fuzz(t, backends, examples=examples, seed=seed, on_example=tick, on_mismatch=shrinking,
                         replay_dir=None if replay else save_dir, launch=launch, **options)
            except (TestingError, VerikernError, ValueError, OSError) as err:
                raise _InputError(str(err)) from err
            saved = replay or (r.mismatch.replay if r.mismatch else None)
            results.append((r, command(saved) if r.mismatch and saved else None))
            done[0] = base + (1 if replay else examples)
            if bar is None:
                slow = f", {r.over_deadline} past the deadline" if r.over_deadline else ""
                click.echo(f"{where}: {r.status} ({r.examples} launch(es){slow}, {r.seconds:.1f} s)", err=True)
    finally:
        if bar is not None:
            bar.stop()
    return results


def _progress(total: int):
    """A rich progress bar on stderr when it is a terminal (else None: the
    caller writes a line per kernel)."""
    if not sys.stderr.isatty():
        return None, None
    from rich.console import Console  # lazy: CLI start-up
    from rich.progress import (  # lazy: CLI start-up
        BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn,
    )

    bar = Progress(TextColumn("fuzzing"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                   TextColumn("{task.description}"), console=Console(stderr=True), transient=True)
    bar.start()
    return bar, bar.add_task("", total=total)


def _report(file, results, backends) -> int:
    from rich.console import Console  # lazy: CLI start-up
    from rich.table import Table  # lazy: CLI start-up

    console = Console(highlight=False, soft_wrap=True,
                      width=max(100, Console().width) if sys.stdout.isatty() else 200)
    code = EXIT_OK
    for r, command in results:
        for note in r.notes:
            console.print(f"note: {r.target.name}: {note}", markup=False)
        if r.error:
            console.print(r.error, markup=False)
            code = max(code, EXIT_INPUT)
        if r.mismatch is not None:
            console.print("MISMATCH " + r.mismatch.report(command), markup=False)
            code = EXIT_MISMATCH if code != EXIT_INPUT else code
    table = Table(title=f"verikern fuzz {file}: {', '.join(backends)}")
    for col in ("kernel", "location", "compared", "launches", "result", "time"):
        table.add_column(col)
    for r, _ in results:
        result = {"agree": "agree", "mismatch": f"MISMATCH ({r.mismatch.left} vs {r.mismatch.right})"
                  if r.mismatch else "", "skipped": "skipped (fewer than 2 backends)",
                  "error": "error", "too slow": "too slow (every launch past --max-steps)"}[r.status]
        table.add_row(r.target.name, r.target.where, ", ".join(r.compared), str(r.examples),
                      result, f"{r.seconds:.1f} s")
    console.print(table)
    if any(r.mismatch and r.mismatch.diagnosis and r.mismatch.diagnosis.kernel_bug for r, _ in results):
        console.print("a mismatch above is explained by a bug in the kernel (see its diagnosis), "
                      "not by a backend", markup=False)
    return code
