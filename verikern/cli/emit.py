"""`verikern emit FILE --kernel K --ir hir|mir|llvm|ptx|smt2|c [--arch sm_80]`.

Invariant: exit 0 with the requested IR on stdout, or a clear message on
stderr and exit 3 (compile error, unknown kernel, missing backend); never a
bare traceback for bad input.
"""
from __future__ import annotations

import sys

import click
from verikern.cli.common import InputErrorCommand, select_kernel

EXIT_ERROR = 3


def _fail(message: str) -> None:
    click.echo(message, err=True)
    sys.exit(EXIT_ERROR)


def _write(text: str, output) -> None:
    if output is None:
        click.echo(text, nl=not text.endswith("\n"))
        return
    try:
        with open(output, "w", encoding="utf-8") as fh:
            fh.write(text)
    except OSError as e:
        _fail(f"error: cannot write {output}: {e}")


@click.command(name="emit", cls=InputErrorCommand)
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--kernel", "-k", "kernel_name", default=None,
              help="Kernel to print (required when the file has several).")
@click.option("--ir", type=click.Choice(["hir", "mir", "llvm", "ptx", "smt2", "c"]), default="mir",
              show_default=True, help="Which representation to print.")
@click.option("--arch", default="sm_80", show_default=True, help="GPU architecture for --ir ptx.")
@click.option("--no-opt", is_flag=True, help="MIR before the default pass pipeline.")
@click.option("--output", "-o", "output", type=click.Path(dir_okay=False), default=None,
              help="Write to this file instead of stdout (--ir c: the C harness).")
@click.option("--obligation", metavar="ID", default=None,
              help="With --ir smt2: only this obligation's queries (ids as kind@line:col[#dim]"
              "[+line:col], e.g. bounds@12:9#0) and the shared ones.")
def command(file, kernel_name, ir, arch, no_opt, obligation, output=None):
    """Print a kernel's HIR, MIR, LLVM IR, PTX, SMT-LIB queries (smt2: every
    obligation's solver queries) or C encoding (c: a CBMC harness that also
    runs concretely)."""
    from verikern.frontend import compile_file, compile_source  # lazy: CLI start-up

    try:
        with open(file, encoding="utf-8") as fh:
            text = fh.read()
    except (OSError, UnicodeDecodeError) as e:
        _fail(f"error: cannot read {file}: {e}")
    module = compile_source(text, file, optimize=not no_opt) if no_opt else compile_file(file)

    result = select_kernel(module, file, kernel_name, _fail)
    kernel_name = result.name
    if ir == "hir":
        from verikern.hir.printer import format_kernel as format_hir  # lazy: CLI start-up
        click.echo(format_hir(result.hir), nl=False)
        return
    if ir == "mir":
        from verikern.mir.printer import format_kernel  # lazy: CLI start-up
        click.echo(format_kernel(result.mir), nl=False)
        return
    if ir == "c":
        from verikern.encoders.c import CEncodeError, emit_c  # lazy: CLI start-up
        try:
            text = emit_c(result.mir)
        except CEncodeError as e:
            _fail(f"error: {e}")
        _write(text, output)
        return
    if ir == "smt2":
        from verikern.proofs.deciding.smtlib_export import obligation_queries, render  # lazy: CLI start-up
        groups = obligation_queries(result.mir)
        ids = [key for key, _ in groups if key != "shared"]
        if obligation is not None and obligation not in ids:
            _fail(f"error: no obligation {obligation!r} in {kernel_name}; obligations: "
                  f"{', '.join(ids) or '(none)'}")
        click.echo(render(result.mir, groups, obligation))
        return
    try:
        if ir == "llvm":
            from verikern.backends.llvm import lower  # lazy: optional dependency
            text = lower(result.mir, target="cpu")
        else:
            from verikern.backends.ptx import compile_ptx  # lazy: optional dependency
            text = compile_ptx(result.mir, arch=arch)
    except ImportError as e:
        _fail(f"error: the {ir} backend is not available: {e}")
    except Exception as e:  # a backend's own error, reported without a traceback
        _fail(f"error: the {ir} backend failed on {kernel_name!r}: {type(e).__name__}: {e}")
    click.echo(text, nl=not text.endswith("\n"))
