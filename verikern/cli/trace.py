"""`verikern trace`: run one kernel on generated inputs on device "cpu:trace"
and report the data races and shared-memory bank conflicts of that run.

Invariant (exit codes): 3 for input errors (missing file, unknown kernel, a
kernel that does not compile, bad option, inputs that cannot satisfy the
contracts, a refused launch); else 1 if the run raced or hit a kernel runtime
error (out of bounds, barrier divergence, assert, division by zero); else 0.
Bank conflicts are performance findings and never change the exit code.
A trace shows one run: no race reported is not a proof of race freedom.
"""
from __future__ import annotations

import json
import os
import sys
import tempfile

import click
import numpy as np

from verikern.backends.simulator.engine import MAX_STEPS
from verikern.cli.common import InputErrorCommand, parse_dims, parse_pairs

EXIT_OK, EXIT_RACE, EXIT_INPUT = 0, 1, 3


class _InputError(click.ClickException):
    exit_code = EXIT_INPUT


class _Reporter:
    """Collects the run's outcome and renders it as text (rich) or JSON."""

    def __init__(self, fmt: str, header: dict):
        self.fmt = fmt
        self.doc = dict(header, status="ok", races=[], bank_conflicts=[], error=None)

    def input_error(self, message: str):
        if self.fmt == "json":
            self.doc.update(status="input-error", error={"kind": "input", "message": message})
            click.echo(json.dumps(self.doc, indent=2, sort_keys=True))
            sys.exit(EXIT_INPUT)
        raise _InputError(message)

    def runtime_error(self, err) -> int:
        loc = err.loc
        self.doc.update(status="runtime-error", error={
            "kind": err.kind, "message": err.message,
            "file": loc.file if loc else None, "line": loc.line if loc else None,
            "col": loc.col if loc else None, "thread": err.thread, "block": err.block})
        if self.fmt == "json":
            click.echo(json.dumps(self.doc, indent=2, sort_keys=True))
        else:
            click.echo(f"{err}\n  (kernel runtime error: {err.kind}; the run stopped, so there "
                       "is no race or bank-conflict report)")
        return EXIT_RACE

    def findings(self, races, conflicts, n_events: int, uninit=()) -> int:
        from verikern.trace import summary_json  # lazy: CLI start-up

        status = "race" if races else "uninit" if uninit else "ok"
        self.doc.update(summary_json(races, conflicts), events=n_events, status=status,
                        uninit_reads=[u.to_json() for u in uninit])
        if self.fmt == "json":
            click.echo(json.dumps(self.doc, indent=2, sort_keys=True))
        else:
            self._text(races, conflicts, n_events)
            self._uninit_text(uninit)
        return EXIT_RACE if races or uninit else EXIT_OK

    def _uninit_text(self, uninit) -> None:
        if not uninit:
            click.echo("no reads of uninitialised shared memory in this run")
            return
        click.echo(f"{len(uninit)} read site{'s' if len(uninit) > 1 else ''} of uninitialised "
                   "shared memory:")
        for u in uninit:
            click.echo(u.long())

    def _text(self, races, conflicts, n_events: int) -> None:
        from rich.console import Console  # lazy: CLI start-up
        from rich.table import Table  # lazy: CLI start-up

        console = Console(highlight=False, soft_wrap=True, width=max(100, Console().width))
        d = self.doc
        console.print(f"kernel {d['kernel']} ({d['file']}): dims {d['dims']}, block_dim "
                      f"{d['block_dim']}, seed {d['seed']}: {n_events} memory accesses traced"
                      + (f", trace in {d['trace']}" if d["trace"] else ""), markup=False)
        inputs = [f"{n}={v!r}" for n, v in d.get("params", {}).items()]
        inputs += [f"{n}: {'x'.join(map(str, s)) or 'scalar'}" for n, s in d.get("shapes", {}).items()]
        if inputs:
            console.print("inputs: " + ", ".join(inputs), markup=False)
        if races:
            table = Table(title=f"{len(races)} data race{'s' if len(races) > 1 else ''}")
            for col in ("location", "element", "first access", "second access", "when", "instances"):
                table.add_column(col)
            for r in races:
                first = f"{r.op} by thread {r.thread} (block {r.block}) at {r.line}:{r.col}"
                second = (f"{r.other_op} by thread {r.other_thread} (block {r.other_block}) "
                          f"at {r.other_line}:{r.other_col}")
                when = (f"interval {r.interval}" if r.kind == "intra-block" else "different blocks")
                table.add_row(f"{r.file}:{r.line}:{r.col}", f"{r.array}{list(r.index)}",
                              first, second, when, str(r.count))
            console.print(table)
            for r in races:
                console.print(r.long(), markup=False)
        else:
            console.print("no data races in this run (a trace covers one launch; "
                          "`verikern prove` covers all)", markup=False)
        if conflicts:
            table = Table(title="shared-memory bank conflicts")
            for col in ("location", "array", "op", "worst", "conflicting warp accesses", "example"):
                table.add_column(col)
            for c in conflicts:
                table.add_row(f"{c.file}:{c.line}:{c.col}", c.array, c.op, f"{c.degree}-way",
                              f"{c.conflicted} of {c.accesses}",
                              f"block {c.block} warp {c.warp}: bank {c.bank}, {len(c.words)} words")
            console.print(table)
            for c in conflicts:
                console.print(c.long(), markup=False)
        else:
            console.print("no shared-memory bank conflicts", markup=False)


EPILOG = """\b
Exit status:
  0  no data race and no read of uninitialised shared memory in this run
     (bank conflicts are reported, not failures)
  1  a data race, a read of a shared element no thread of the block wrote
     before it, or a kernel runtime error (out of bounds, barrier
     divergence, failed assert, division by zero, uninitialised read),
     reported with its location
  3  input error: missing file, unknown kernel, compile error, bad option,
     no inputs satisfy the kernel's requires, or a refused launch
"""


@click.command(cls=InputErrorCommand, epilog=EPILOG,
               context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--kernel", "-k", "kernel_name", metavar="NAME",
              help="The kernel to run (optional when FILE has exactly one).")
@click.option("--dim", "dims", required=True, metavar="N[,M..]", callback=parse_dims,
              help="Launch dims, e.g. 1024 or 64,64.")
@click.option("--block-dim", type=click.IntRange(1, 1024), metavar="B",
              help="Threads per block; default: the kernel's, else min(256, launch size) or the "
                   "first power of two whose launch satisfies the requires.")
@click.option("--param", "params", multiple=True, metavar="NAME=VALUE", callback=parse_pairs,
              help="Fix a scalar parameter (repeatable); default: generated.")
@click.option("--size", "sizes", multiple=True, metavar="NAME=N[,M..]", callback=parse_pairs,
              help="Fix an array's shape (repeatable); default: follows the launch dims.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed for generated inputs.")
@click.option("--out", type=click.Path(dir_okay=False), metavar="TRACE.json",
              help="Keep the JSON trace in this file (default: a temporary file, deleted).")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
              show_default=True, help="Report format (json is stable, for tools).")
@click.option("--max-steps", type=click.IntRange(min=1), default=MAX_STEPS, show_default=True, metavar="N",
              help="The simulator's scheduling steps per chunk of threads before it reports an "
                   "endless loop; raise it for kernels with long loops.")
def command(file, kernel_name, dims, block_dim, params, sizes, seed, out, fmt, max_steps=MAX_STEPS):
    """Run a kernel on generated inputs on the tracing simulator, then report
    data races (two threads touching one element without a barrier between
    them, at least one writing), reads of uninitialised shared memory (a
    shared element read with no write of the block before it) and
    shared-memory bank conflicts.

    FILE is read, never executed. Inputs follow the launch: 1-D arrays get
    the launch size, n-d arrays the launch dims; they respect the kernel's
    vk.requires, vk.all_in_range and vk.all_distinct contracts. A trace shows
    one run: "no race" here is evidence, not proof (`verikern prove` covers
    every launch).

    \b
    Examples:
      verikern trace reduce.py --kernel reduce --dim 1024 --block-dim 256
      verikern trace transpose.py -k transpose --dim 64,64 --block-dim 256
      verikern trace saxpy.py --dim 1000 --param a=2.5 --size x=1000
      verikern trace k.py --dim 4096 --out trace.json --format json
    """
    header = {"file": file, "kernel": kernel_name, "dims": list(dims), "block_dim": block_dim,
              "seed": seed, "trace": out, "events": 0, "params": {}, "shapes": {}}
    rep = _Reporter(fmt, header)
    kernel = _compile(file, kernel_name, rep)
    rep.doc.update(kernel=kernel.name)
    sys.exit(_run(kernel, file, dims, block_dim, params, sizes, seed, out, rep, max_steps))


def _plain(value):
    """A numpy scalar as the shortest Python value that reads back to it (--param)."""
    if isinstance(value, np.floating):
        return float(str(value))
    return value.item() if hasattr(value, "item") else value


def _compile(file, kernel_name, rep: _Reporter):
    if not os.path.isfile(file):
        rep.input_error(f"{file}: no such file")
    from verikern.frontend import compile_file  # lazy: CLI start-up

    try:
        module = compile_file(file)
    except (OSError, UnicodeDecodeError) as err:
        rep.input_error(f"{file}: cannot read: {err}")
    names = [k.name for k in module.kernels]
    if kernel_name is None:
        if len(names) != 1:
            errs = "\n".join(e.render() for e in module.errors)
            rep.input_error((errs + "\n" if errs else "") +
                            f"{file}: {'no kernels' if not names else 'several kernels'} "
                            f"({', '.join(names) or 'none'}); choose one with --kernel NAME")
        kernel_name = names[0]
    if kernel_name not in names:
        errs = "\n".join(e.render() for e in module.errors)
        rep.input_error((errs + "\n" if errs else "") + f"{file}: no kernel named "
                        f"{kernel_name!r} (kernels: {', '.join(names) or 'none'})")
    result = module.kernel(kernel_name)
    if result.error is not None or result.mir is None:
        rep.input_error(result.error.render() if result.error is not None
                        else f"{file}: kernel {kernel_name} did not compile")
    return result.mir


def _run(kernel, file, dims, block_dim, params, sizes, seed, out, rep: _Reporter, max_steps: int) -> int:
    from verikern.errors import KernelRuntimeError, LaunchError  # lazy: CLI start-up
    from verikern.inputs import (  # lazy: CLI start-up
        InputGenerationError, coerce_scalar, make_launch_inputs, ordered_inputs,
    )
    from verikern.runtime import launch  # lazy: CLI start-up
    from verikern.trace import (  # lazy: CLI start-up
        TraceFormatError, bank_conflicts, find_races, find_uninit_reads, load_trace,
    )

    types = {p.name: p.value.type for p in kernel.scalar_params}
    try:
        fixed = {n: coerce_scalar(types[n], v, n) if n in types else v for n, v in params.items()}
        block_dim, values = make_launch_inputs(kernel, dims, np.random.default_rng(seed),
                                               block_dim=block_dim, sizes=sizes, params=fixed)
    except InputGenerationError as err:
        rep.input_error(str(err))
    rep.doc.update(
        block_dim=block_dim,
        params={n: _plain(v) for n, v in values.items() if not isinstance(v, np.ndarray)},
        shapes={n: list(v.shape) for n, v in values.items() if isinstance(v, np.ndarray)})
    tmpdir = None
    path = out
    if path is None:
        tmpdir = tempfile.TemporaryDirectory(prefix="verikern-trace-")
        path = os.path.join(tmpdir.name, "trace.json")
    try:
        try:
            launch(kernel, dims if len(dims) > 1 else dims[0], ordered_inputs(kernel, values),
                   block_dim=block_dim, device="cpu:trace", trace_path=path, max_steps=max_steps)
        except KernelRuntimeError as err:
            return rep.runtime_error(err)
        except LaunchError as err:
            rep.input_error(f"launch refused: {err}")
        except OSError as err:
            rep.input_error(f"cannot write the trace to {path}: {err.strerror or err}")
        try:
            trace = load_trace(path, file=file)
        except TraceFormatError as err:
            rep.input_error(f"the simulator's trace could not be read: {err}")
        return rep.findings(find_races(trace), bank_conflicts(trace), trace.n_events,
                            find_uninit_reads(trace))
    finally:
        if tmpdir is not None:
            tmpdir.cleanup()
