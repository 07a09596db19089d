"""The `verikern` command line (click). Each subcommand lives in its own module
of this package and exposes a click command named `command`; modules are
imported only when their command runs, so `verikern --help` stays fast.

Invariants (exit status, the table in README.md "Exit status"): 3 is every
command's input error, bad options and unknown commands included (click's
usage errors would be 2, which `prove` uses for 'unknown'); 130 is Ctrl-C in
every command (click's would be 1, which reads as a finding)."""
from __future__ import annotations

import importlib

import click

from verikern.version import __version__

# name -> (module, one-line help shown by `verikern --help`)
COMMANDS = {
    "prove": ("verikern.cli.prove", "Prove bounds, race freedom, barrier convergence, asserts, loop invariants, "
              "division safety, no uninitialised shared reads and no reads of unassigned variables."),
    "emit": ("verikern.cli.emit", "Print a kernel's HIR, MIR, LLVM IR, PTX, SMT-LIB queries (smt2) or C encoding (c)."),
    "trace": ("verikern.cli.trace", "Run a kernel on generated inputs and report races and bank conflicts."),
    "info": ("verikern.cli.info", "Report registers, shared memory and spills per kernel (ptxas -v)."),
    "fuzz": ("verikern.cli.fuzz", "Compare backends (cpu, cpu:native, cuda, warp) on generated launches."),
    "report": ("verikern.cli.report", "Prove and write a self-contained sign-off document (HTML or Markdown)."),
    "check-report": ("verikern.cli.check_report",
                     "Re-run the proofs of a JSON report and check that everything still matches."),
    "selftest": ("verikern.cli.selftest", "Prove the shipped corpus and print a qualification summary."),
    "build": ("verikern.cli.build",
              "Build a kernel file into a C library (CPU) or PTX + C loader (GPU), with its proof."),
    "replay": ("verikern.cli.replay",
               "Run a counterexample through the kernel's C encoding (a check independent of the simulator)."),
}


EXIT_INPUT, EXIT_INTERRUPTED = 3, 130


class LazyGroup(click.Group):
    def parse_args(self, ctx, args):
        ctx.meta["verikern.argv"] = tuple(args)     # the exact command, for reports
        try:
            return super().parse_args(ctx, args)
        except click.UsageError as err:
            err.exit_code = EXIT_INPUT
            raise

    def resolve_command(self, ctx, args):
        try:
            return super().resolve_command(ctx, args)
        except click.UsageError as err:          # an unknown command
            err.exit_code = EXIT_INPUT
            raise

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            from verikern.cli.progress import exit_interrupted  # lazy: CLI start-up

            click.echo("interrupted (Ctrl-C)", err=True)
            exit_interrupted()

    def list_commands(self, ctx):
        return sorted(COMMANDS)

    def get_command(self, ctx, name):
        if name not in COMMANDS:
            return None
        module = importlib.import_module(COMMANDS[name][0])
        return module.command

    def format_commands(self, ctx, formatter):
        rows = [(name, COMMANDS[name][1]) for name in sorted(COMMANDS)]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="verikern")
def main():
    """verikern: formal verification for GPU kernels written in Python.

    \b
    Examples:
      verikern prove examples/                 prove every kernel in a folder
      verikern prove k.py --kernel saxpy --format json
      verikern emit k.py --kernel saxpy --ir mir
      verikern trace k.py --kernel reduce --dim 1024 --block-dim 256
    """
