"""`verikern build FILE --target cpu|sm_XY -o DIR [--checks all|unproved]`.

Invariant: exit 0 after writing the library (or PTX and loader), its
header, the proof report and the manifest into DIR, and one line per file;
exit 3 with a clear message on stderr (compile error, bad option, missing
C compiler or ptxas failure) and nothing claimed; never a bare traceback
for bad input.
"""
from __future__ import annotations

import sys

import click

from verikern.cli.common import InputErrorCommand

EXIT_ERROR = 3


@click.command(name="build", cls=InputErrorCommand, context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--target", default="cpu", show_default=True,
              help="cpu (a shared library for this machine) or an NVIDIA arch such as sm_80 "
                   "(PTX, a cubin where ptxas is present, and a C loader).")
@click.option("-o", "--output", "out_dir", required=True, type=click.Path(file_okay=False),
              help="The folder to write into (created when missing).")
@click.option("--checks", type=click.Choice(["all", "unproved"]), default="all", show_default=True,
              help="all: every access keeps its run-time bounds check; unproved: a check is "
                   "left out where its bounds obligation is proved (listed in the manifest).")
@click.option("--kernel", "-k", "kernels", multiple=True,
              help="Only this kernel (repeatable; default: every kernel of the file).")
@click.option("--budget", type=float, default=None,
              help="Million z3 resource units per check (default: the prover's).")
@click.option("--name", default=None, help="The library's name (default: the file's stem).")
@click.option("--cc", default="cc", show_default=True, help="The C compiler that links it.")
def command(file, target, out_dir, checks, kernels, budget, name, cc):
    """Build a kernel file into a C-callable library with its proof."""
    from verikern.app.build import BuildOptions, build  # lazy: CLI start-up
    from verikern.errors import VerikernError  # lazy: CLI start-up

    options = BuildOptions(target=target, checks=checks, budget=budget,
                           kernels=tuple(kernels) or None, name=name, cc=cc)
    try:
        result = build(file, out_dir, options)
    except VerikernError as err:
        click.echo(f"error: {err}", err=True)
        sys.exit(EXIT_ERROR)
    for k in result.manifest["kernels"]:
        removed = len(k["checks"]["removed"])
        click.echo(f"{k['proof']['status'].upper():8}{k['name']}: {k['entry']} "
                   f"({removed} bounds check(s) removed, {k['checks']['kept_bounds_checks']} kept)")
    for f in result.files:
        click.echo(f"wrote {f}")
