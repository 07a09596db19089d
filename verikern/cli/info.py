"""`verikern info FILE`: per-kernel GPU resources reported by `ptxas -v`.

Invariant (exit codes): 0 when every selected kernel compiled and ptxas
assembled it; 1 when ptxas rejected the PTX of some kernel (its log is
printed); 3 for input errors (missing file, no such kernel, a kernel that
does not compile, an unsupported --arch) and when no ptxas is installed
(with how to get one). The numbers are ptxas's own, never estimated.
"""
from __future__ import annotations

import json
import sys
import os

import click

from verikern.cli.common import InputErrorCommand

EXIT_OK, EXIT_PTXAS_FAILED, EXIT_INPUT = 0, 1, 3

COLUMNS = ("kernel", "registers", "shared_bytes", "stack_bytes", "spill_stores", "spill_loads")


def _fail(message: str, code: int = EXIT_INPUT):
    click.echo(f"error: {message}", err=True)
    sys.exit(code)


def collect(path: str, kernel: str | None, arch: str, fast_math: bool | None):
    """(rows, errors, ptxas_failures) for the kernels of `path`."""
    from verikern.backends.ptx import assemble, compile_ptx  # lazy: CLI start-up
    from verikern.errors import VerikernError  # lazy: CLI start-up
    from verikern.frontend import compile_file  # lazy: CLI start-up

    module = compile_file(path)
    errors = [e.render() if hasattr(e, "render") else str(e) for e in module.errors]
    results = module.kernels
    if kernel is not None:
        results = [k for k in results if k.name == kernel]
        if not results:
            names = ", ".join(k.name for k in module.kernels) or "none"
            errors.append(f"{path}: no kernel named {kernel!r} (kernels here: {names})")
    rows, failures = [], []
    for result in results:
        if result.error is not None or result.mir is None:
            err = result.error
            errors.append(err.render() if err is not None else f"{result.name}: does not compile")
            continue
        try:
            ptx = compile_ptx(result.mir, arch, fast_math)
        except VerikernError as exc:
            errors.append(f"{path}: kernel {result.name}: {exc}")
            continue
        asm = assemble(ptx, arch)
        if not asm.ok:
            failures.append((result.name, asm.log))
            continue
        entry = asm.entries.get(result.name)
        rows.append({"kernel": result.name, "arch": arch, "registers": asm.registers,
                     "shared_bytes": asm.shared_bytes, "stack_bytes": asm.stack_bytes,
                     "spill_stores": asm.spill_stores, "spill_loads": asm.spill_loads,
                     "barriers": entry.barriers if entry is not None else 0})
    if not results and not errors:
        errors.append(f"{path}: no @kernel functions found")
    return rows, errors, failures


def _print_table(rows, arch: str, path: str) -> None:
    from rich.console import Console  # lazy: CLI start-up
    from rich.table import Table  # lazy: CLI start-up

    table = Table(title=f"{path} on {arch} (ptxas -v)")
    for col, head in zip(COLUMNS, ("kernel", "registers", "shared B", "stack B",
                                    "spill st B", "spill ld B")):
        table.add_column(head, justify="left" if col == "kernel" else "right")
    for row in rows:
        table.add_row(*(str(row[c]) for c in COLUMNS))
    Console().print(table)


@click.command(cls=InputErrorCommand)
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--kernel", "kernel", default=None, help="Only this kernel (default: every kernel).")
@click.option("--arch", default="sm_80", show_default=True,
              help="GPU architecture: sm_75 .. sm_100 (and newer names LLVM knows).")
@click.option("--fast-math/--no-fast-math", "fast_math", default=None,
              help="Override the module's fast_math option.")
@click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table",
              show_default=True)
def command(file, kernel, arch, fast_math, fmt):
    """Registers, static shared memory, stack and spills per kernel, from `ptxas -v`.

    \b
    Example:
      verikern info examples/saxpy.py --kernel saxpy --arch sm_90
    """

    from verikern.backends.ptx import PTXAS_HINT, ArchError, check_arch, find_ptxas  # lazy: CLI start-up

    if not os.path.isfile(file):
        _fail(f"{file}: no such file")
    try:
        arch = check_arch(arch)
    except ArchError as exc:
        _fail(str(exc))
    if find_ptxas() is None:
        _fail(f"ptxas (NVIDIA's PTX assembler) was not found; {PTXAS_HINT}.")
    rows, errors, failures = collect(file, kernel, arch, fast_math)
    if fmt == "json":
        click.echo(json.dumps({"file": file, "arch": arch, "kernels": rows, "errors": errors,
                               "ptxas_failures": [{"kernel": k, "log": log} for k, log in failures]},
                              indent=2))
    else:
        if rows:
            _print_table(rows, arch, file)
        for err in errors:
            click.echo(err, err=True)
        for name, log in failures:
            click.echo(f"error: ptxas rejected the PTX of kernel {name} (a verikern bug; "
                       f"please report it):\n{log}", err=True)
    if errors:
        sys.exit(EXIT_INPUT)
    if failures:
        sys.exit(EXIT_PTXAS_FAILED)
    sys.exit(EXIT_OK)
