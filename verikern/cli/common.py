"""Options and steps shared by `prove`, `report`, `check-report` and `selftest`.

Invariant: every command that proves goes through `run_proofs`, so the
cache, the executor and the recorded options (`RunContext`) are the same
everywhere; the options recorded are exactly those that decide verdicts.
"""
from __future__ import annotations

import os
import sys
import logging

import click

EXIT_INPUT = 3


class InputErrorExit(click.ClickException):
    exit_code = EXIT_INPUT


class InputErrorCommand(click.Command):
    """Bad options and arguments are input errors: exit 3, not click's 2
    (2 means 'unknown' for prove)."""

    def make_context(self, *args, **kwargs):
        try:
            return super().make_context(*args, **kwargs)
        except click.UsageError as err:
            err.exit_code = EXIT_INPUT
            raise


def select_kernel(module, file, kernel_name, fail):
    """The KernelResult named `kernel_name` in a compiled `module` (the only
    kernel when None); `fail(message)` for every way that cannot be."""
    if module.errors and not module.kernels:
        fail("\n".join(e.render() for e in module.errors))
    names = module.kernel_names
    if kernel_name is None:
        if len(names) != 1:
            fail(f"error: {file} has kernels {', '.join(names) or '(none)'}; choose one with --kernel")
        kernel_name = names[0]
    if kernel_name not in names:
        fail(f"error: no kernel named {kernel_name!r} in {file}; kernels: {', '.join(names) or '(none)'}")
    result = module.kernel(kernel_name)
    if result.error is not None:
        fail(result.error.render())
    return result


def parse_dims(ctx, param, value):
    if value is None:
        return None
    try:
        dims = tuple(int(part) for part in value.replace("x", ",").split(","))
    except ValueError:
        raise click.BadParameter(f"{value!r}: give launch dims as N or N,M,... (positive integers)") from None
    if not 1 <= len(dims) <= 4 or any(d < 1 for d in dims):
        raise click.BadParameter(f"{value!r}: give 1 to 4 positive integers")
    return dims


def parse_pairs(ctx, param, values):
    """NAME=VALUE options: shapes (`--size NAME=N[,M..]`) as tuples of ints, other values as text."""
    out = {}
    for item in values:
        name, sep, text = item.partition("=")
        if not sep or not name.strip() or not text.strip():
            raise click.BadParameter(f"{item!r}: write NAME=VALUE")
        if param.name == "sizes":
            try:
                shape = tuple(int(p) for p in text.replace("x", ",").split(","))
            except ValueError:
                raise click.BadParameter(f"{item!r}: write NAME=N or NAME=N,M (integers)") from None
            if any(s < 0 for s in shape):
                raise click.BadParameter(f"{item!r}: lengths must be >= 0")
            out[name.strip()] = shape
        else:
            out[name.strip()] = text.strip()
    return out


def parse_bytes(ctx, param, value):
    """A byte count: N or 2**K (positive, at most 2**64); None stays None."""
    if value is None:
        return None
    text = str(value).strip().replace("_", "")
    try:
        if "**" in text:
            base, _, exp = text.partition("**")
            number = int(base) ** int(exp)
        else:
            number = int(text)
    except ValueError:
        raise click.BadParameter(f"{value!r}: give a number of bytes, e.g. 1099511627776 or 2**40") from None
    if not 1 <= number <= 2 ** 64:
        raise click.BadParameter(f"{value!r}: give a number of bytes from 1 to 2**64")
    return number


def proof_options(func):
    """The options that decide verdicts (recorded in every report)."""
    for deco in reversed([
        click.option("--kernel", "-k", "kernel", metavar="NAME",
                     help="Prove only the kernel(s) with this name (comma-separated for several; a generic "
                          "kernel's name selects all its instances, k[int8] one)."),
        click.option("--dim", "dims", metavar="N[,M..]", callback=parse_dims,
                     help="Fix the launch dims (e.g. 1024 or 64,64); default: every launch the requires admit."),
        click.option("--block-dim", type=click.IntRange(1, 1024), metavar="B",
                     help="Fix the block size (1..1024); default: the kernel's, else every block size."),
        click.option("--budget", type=click.FloatRange(min=0, min_open=True), default=10.0, show_default=True,
                     metavar="N", help="Solver work per check, in millions of z3 resource units (about a "
                     "second each on a typical machine). It counts work, not time, so every machine gives "
                     "the same verdicts; a check that needs more ends 'unknown' saying so."),
        click.option("--kernel-budget", "kernel_budget", type=click.FloatRange(min=0, min_open=True),
                     default=None, metavar="N", help="Work for the whole kernel -- compiling it, every "
                     "instance of a generic kernel, its checks, searches and suggested contract's re-proof -- in "
                     "millions of z3 resource units, each solver query and recompiled copy of the file charged "
                     "for its Python work too, and each unit of compiling as 3. Default: 10 times --budget (100: "
                     "under 60 CPU s on every project kernel measured alone). Once it is spent nothing more is "
                     "decided: the obligations left end 'unknown' and the suggested contract is not "
                     "proved, each saying which budget ran out."),
        click.option("--max-array-bytes", "max_array_bytes", metavar="N", callback=parse_bytes,
                     help="The largest array, in bytes, the proof assumes (dims times element size, "
                     "vector components included; N or 2**K). Default: 2**40 (one device's memory)."),
    ]):
        func = deco(func)
    return func


def engine_options(func):
    """Which engines decide (`verikern prove`): z3, CBMC, or both."""
    for deco in reversed([
        click.option("--engine", default="z3", show_default=True, metavar="z3|cbmc|z3,cbmc",
                     help="The engine that decides every obligation: z3 (the prover), cbmc (the "
                     "kernel's C encoding checked by CBMC from PATH, proved only when its unwinding "
                     "assertions hold), or z3,cbmc (both; every disagreement is an error, exit 3)."),
        click.option("--unwind", type=click.IntRange(min=1), metavar="N",
                     help="CBMC's unwinding depth of every loop whose trip count is not read off "
                     "the kernel (default 8; a loop the kernel bounds is unwound to its own "
                     "count); deeper covers more, slower."),
    ]):
        func = deco(func)
    return func


def check_engines(engine: str) -> str:
    """The engine list, checked, with CBMC found on PATH when named (exit 3 otherwise)."""
    from verikern.proofs.deciding.cbmc import CbmcMissing, find_cbmc  # lazy: CLI start-up
    from verikern.proofs.deciding.engines import parse_engines  # lazy: CLI start-up

    try:
        engines = parse_engines(engine)
        if "cbmc" in engines:
            find_cbmc()
    except (ValueError, CbmcMissing) as err:
        raise InputErrorExit(str(err)) from err
    return ",".join(engines)


def run_options(func):
    """How proofs run (never recorded as deciding verdicts): jobs, executor, cache."""
    for deco in reversed([
        click.option("--jobs", "-j", type=click.IntRange(min=1), default=1, show_default=True, metavar="N",
                     help="Prove N files in parallel (local processes)."),
        click.option("--executor", type=click.Choice(["local", "dask"]), default="local", show_default=True,
                     help="Where proofs run: local processes (--jobs) or a dask.distributed cluster."),
        click.option("--scheduler", metavar="ADDRESS",
                     help="The dask scheduler's address (with --executor dask), e.g. tcp://host:8786."),
        click.option("--cache-dir", type=click.Path(file_okay=False), metavar="DIR",
                     help="Proof cache folder (default: the platform's cache folder; may be shared)."),
        click.option("--no-cache", is_flag=True, help="Neither read nor write the proof cache."),
    ]):
        func = deco(func)
    return func


def make_cache(cache_dir, no_cache: bool, *, default_on: bool = True):
    """The ProofCache to use, or None: --no-cache wins; then --cache-dir; then
    the default folder unless VERIKERN_NO_CACHE=1 or `default_on` is False."""
    from verikern.app.cache import ProofCache, cache_disabled_by_env, default_cache_dir  # lazy: CLI start-up

    if no_cache:
        return None
    if cache_dir:
        return ProofCache(str(cache_dir))
    if not default_on or cache_disabled_by_env():
        return None
    return ProofCache(str(default_cache_dir()))


def options_record(kernel, dims, block_dim, budget, max_array_bytes=None, engine="z3",
                   unwind=None, kernel_budget=None) -> dict:
    from verikern.encoders.smt.launch import DEFAULT_MAX_ARRAY_BYTES  # lazy: CLI start-up

    record = {"kernel": kernel, "dims": list(dims) if dims is not None else None,
              "block_dim": block_dim, "budget": budget,
              "max_array_bytes": int(max_array_bytes) if max_array_bytes is not None
              else DEFAULT_MAX_ARRAY_BYTES}
    if engine != "z3":           # recorded only when another engine decided
        record.update(engine=engine, unwind=unwind)
    if kernel_budget is not None:    # recorded only when given (default: 4 x budget)
        record["kernel_budget"] = kernel_budget
    return record


def command_line() -> tuple[str, ...]:
    """The command as the user typed it (program name shortened to `verikern`)."""
    ctx = click.get_current_context(silent=True)
    if ctx is not None and "verikern.argv" in ctx.meta:
        return ("verikern", *ctx.meta["verikern.argv"])
    argv = list(sys.argv)
    if argv and (os.path.basename(argv[0]) in ("verikern", "__main__.py") or argv[0] == "-m"):
        argv[0] = "verikern"
    return tuple(argv)


def run_proofs(paths, *, kernel, dims, block_dim, budget, jobs=1, executor="local", scheduler=None,
               cache=None, progress=None, max_array_bytes=None, suggest=False, engine="z3",
               unwind=None, skip_no_kernels=False, dump_smt=None, cross_check=None, kernel_budget=None):
    """(reports, RunContext) for these options; input errors exit 3.
    `suggest`: suggested contracts for failed kernels (they never change a
    verdict, so the options recorded leave it out). `skip_no_kernels`: files
    without kernels are no input error even when no file has one (the
    reports are then empty). Ctrl-C raises KeyboardInterrupt promptly
    (verikern.cli.progress.allow_interrupts). `dump_smt` and `cross_check`:
    the solver sessions' settings (ProofOptions)."""
    from verikern.app import prove as driver  # lazy: CLI start-up
    from verikern.proofs.reporting.render import RunContext  # lazy: CLI start-up
    from verikern.cli.progress import allow_interrupts  # lazy: CLI start-up

    if executor == "dask" and not scheduler:
        raise InputErrorExit("--executor dask needs --scheduler ADDRESS (the dask scheduler)")
    allow_interrupts()
    try:
        reports = driver.prove_paths(list(paths), kernel=kernel, dims=dims, block_dim=block_dim,
                                     budget=budget, jobs=jobs, progress=progress, cache=cache,
                                     executor=executor, scheduler=scheduler,
                                     max_array_bytes=max_array_bytes, suggest=suggest,
                                     engine=engine, unwind=unwind, dump_smt=dump_smt,
                                     cross_check=cross_check, kernel_budget=kernel_budget)
    except driver.NoKernelsFound as err:
        if not skip_no_kernels:
            raise InputErrorExit(f"{err} (--skip-no-kernels makes that no error)") from err
        click.echo(f"{err}: nothing to prove (--skip-no-kernels)", err=True)
        reports = []
    except driver.ProveInputError as err:
        raise InputErrorExit(str(err)) from err
    return reports, RunContext(command_line(), options_record(kernel, dims, block_dim, budget,
                                                              max_array_bytes, engine, unwind,
                                                              kernel_budget))


def write_output(text: str, output) -> None:
    if output is None:
        click.echo(text, nl=False)
        return
    try:
        with open(output, "w", encoding="utf-8") as fh:
            fh.write(text)
    except OSError as err:
        raise InputErrorExit(f"cannot write {output}: {err.strerror or err}") from err


def _set_verbosity(ctx, param, value):
    """-v: one line per kernel on stderr (logger `verikern`); -vv: every solver query too."""
    if value:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(name)s: %(message)s"))
        log = logging.getLogger("verikern")
        log.addHandler(handler)
        log.setLevel(logging.INFO if value == 1 else logging.DEBUG)
    return value


def _set_dump_smt(ctx, param, value):
    """--dump-smt DIR: every solver query is written to DIR as SMT-LIB 2
    (ProofOptions.dump_smt, the absolute path: it travels to the workers);
    the default cache is off, so that every query runs."""
    if value:
        os.makedirs(value, exist_ok=True)
        return os.path.abspath(value)
    return value


def debug_options(func):
    """-v/-vv and --dump-smt: seeing what the prover does (they never change a verdict)."""
    for deco in reversed([
        click.option("-v", "--verbose", count=True, expose_value=False, callback=_set_verbosity,
                     help="Log each kernel's verdict and solver work on stderr; -vv logs every "
                     "solver query (its name, answer and z3 units)."),
        click.option("--dump-smt", "dump_smt", type=click.Path(file_okay=False), metavar="DIR",
                     callback=_set_dump_smt,
                     help="Write every solver query to DIR as an SMT-LIB 2 file named "
                     "FILE.KERNEL.NNNNN.OBLIGATION.PURPOSE.smt2 (turns the default cache off; "
                     "local executor only)."),
    ]):
        func = deco(func)
    return func


def _set_cross_check(ctx, param, value):
    """--cross-check NAME: every z3 answer is re-decided by NAME
    (ProofOptions.cross_check: it travels to the workers); the default cache
    is off, so every query runs."""
    if value:
        from verikern.proofs.deciding.crosscheck import unavailable  # lazy: CLI start-up

        why = unavailable(value)
        if why is not None:
            raise click.BadParameter(why, ctx=ctx, param=param)
    return value


def cross_check_option(func):
    """--cross-check cvc5|bitwuzla: a second solver re-decides every query (proofs/deciding/crosscheck.py)."""
    return click.option(
        "--cross-check", "cross_check", type=click.Choice(["cvc5", "bitwuzla"]), metavar="SOLVER",
        callback=_set_cross_check,
        help="Re-decide every solver query with SOLVER (cvc5 or bitwuzla, from its SMT-LIB "
             "text). Obligations record the solvers that agreed (JSON: cross_checked_by); a "
             "disagreement makes the verdicts resting on it unknown and the run exit 3. "
             "Turns the default cache off; local executor only.")(func)
