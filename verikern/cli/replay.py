"""`verikern replay FILE --kernel K --counterexample CE.json [--obligation ID]`.

Compiles the kernel's C encoding (`verikern emit --ir c`) with the shipped
header in replay mode and runs it on a counterexample: a confirmation that
does not use the simulator.  CE.json is a `verikern prove --format json`
report, one obligation of it, or one counterexample object.

Exit status: 0 the same obligation failed in the C program (confirmed);
1 it did not (the program ran clean, failed another obligation first, or the
launch is not admissible); 3 input errors (unreadable file, unknown kernel
or obligation, no C compiler).
"""
from __future__ import annotations

import json
import sys

import click
from verikern.cli.common import InputErrorCommand, select_kernel

EXIT_CONFIRMED, EXIT_NOT_CONFIRMED, EXIT_ERROR = 0, 1, 3


def _fail(message: str) -> None:
    click.echo(message, err=True)
    sys.exit(EXIT_ERROR)


def json_obligation_id(ob: dict) -> str:
    """The id (proofs.obligations.obligation_id) of an obligation as the JSON
    report writes it: kind@line:col, #dim for bounds (from the
    counterexample's facts), +line:col of a race's second access."""
    out = f"{ob['kind']}@{ob['line']}:{ob['col']}"
    if ob["kind"] == "bounds":
        facts = (ob.get("counterexample") or {}).get("facts") or {}
        out += f"#{int(facts.get('dim', 0))}"
    if ob.get("other_line") is not None:
        out += f"+{ob['other_line']}:{ob['other_col']}"
    return out


def select_counterexamples(data: dict, kernel: str, obligation: str | None):
    """[(obligation id or None, counterexample dict)] chosen from a report, an
    obligation or a bare counterexample (see the module docstring)."""
    if "dims" in data and "block_dim" in data:          # a bare counterexample
        return [(obligation, data)]
    if "kind" in data and "counterexample" in data:     # one obligation
        obs = [data]
    else:
        obs = [ob for k in data.get("kernels", []) if k.get("kernel") == kernel
               for ob in k.get("obligations", [])]
    picked = [(json_obligation_id(ob), ob["counterexample"]) for ob in obs
              if ob.get("counterexample")]
    if obligation is not None:
        picked = [p for p in picked if p[0] == obligation]
    return picked


@click.command(name="replay", cls=InputErrorCommand)
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--kernel", "-k", "kernel_name", default=None,
              help="The kernel (required when the file has several).")
@click.option("--counterexample", "ce_path", required=True, type=click.Path(dir_okay=False),
              help="A `verikern prove --format json` report, one of its obligations, or a "
              "counterexample object.")
@click.option("--obligation", metavar="ID", default=None,
              help="Which obligation of the report (kind@line:col[#dim][+line:col]); "
              "default: every failed obligation with a counterexample.")
def command(file, kernel_name, ce_path, obligation):
    """Run a counterexample through the kernel's C encoding (independent of the simulator)."""
    from verikern.encoders.c import CEncodeError  # lazy: CLI start-up
    from verikern.proofs.confirming.c_replay import CCompilerMissing, CReplay  # lazy: CLI start-up
    from verikern.frontend import compile_file  # lazy: CLI start-up

    try:
        with open(ce_path, encoding="utf-8") as fh:
            data = json.load(fh)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        _fail(f"error: cannot read {ce_path}: {e}")
    try:
        module = compile_file(file)
    except OSError as e:
        _fail(f"error: cannot read {file}: {e}")

    result = select_kernel(module, file, kernel_name, _fail)
    kernel_name = result.name
    cases = select_counterexamples(data, kernel_name, obligation)
    if not cases:
        _fail(f"error: {ce_path} holds no counterexample for kernel {kernel_name}"
              + (f" and obligation {obligation}" if obligation else ""))
    try:
        replay = CReplay(result.mir)
    except (CEncodeError, CCompilerMissing, RuntimeError) as e:
        _fail(f"error: {e}")
    status = EXIT_CONFIRMED
    with replay:
        for ob_id, ce in cases:
            run = replay.run(ce)
            if ob_id is None:
                label = "counterexample"
                ok = run.status == "failed"
            else:
                label = ob_id
                ok = run.confirms(ob_id)
            verdict = "confirmed" if ok else "not confirmed"
            click.echo(f"{label}: {verdict}: {run.describe(ob_id)}")
            if not ok:
                status = EXIT_NOT_CONFIRMED
    sys.exit(status)
