"""CPU seconds per unit of a kernel's budgets: does the kernel's total still bound its time?

For each FILE:KERNEL (run from the project's root, as `verikern prove` is), one whole
`verikern prove FILE -k KERNEL --no-cache` in a child process of its own (compile, every
instance, proof, suggested contract's search, example launch and re-proof), measured
in that child: its user+system CPU seconds, the CPU seconds of compiling the kernel's
file (verikern.frontend.compile_file), the compile units counted (verikern.mir.work),
and the kernel total's units by kind (budget.KernelTotal.ledger: z3's own solving,
then each charge). It prints, per kernel, CPU microseconds per compile unit and per
unit of the proof's total, and their ratio -- both measured in the same process, so
the ratio does not depend on the machine's load the way either figure does (the proof's
CPU includes the process's start, about a second: small kernels' ratios are low). A kernel
whose proof costs far more CPU per unit than the others' is doing work no budget
counts; `budget.COMPILE_UNIT_WEIGHT` (what a compile unit weighs in the total) is that
ratio on the slowest compiles (session 25: about 3).

    python benchmarks/kernel_units.py FILE:KERNEL [FILE:KERNEL ...] [-- PROVE OPTIONS]

Prints one line per kernel and, with --json OUT, writes the figures. Nothing here
changes a verdict: the child runs the ordinary CLI, with the application's compile
and totals observed from outside (their functions wrapped in the child only).
"""
from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time


def _child(file: str, kernel: str, out: str, options: list[str]) -> int:
    """One whole prove of `kernel`, observed; the figures are written to `out` as JSON."""
    import verikern.app.prove as prove  # lazy: only the child imports verikern
    from verikern.cli import main  # lazy: only the child imports verikern

    totals: list = []
    compiling = {"cpu": 0.0, "units": 0}
    made_new, made_reserved, compile_file = prove.new_total, prove.reserved_total, prove.compile_file

    def new_total(units):
        totals.append(made_new(units))
        return totals[-1]

    def reserved_total(units):
        totals.append(made_reserved(units))
        return totals[-1]

    def observed_compile(*args, **kwargs):
        start = time.process_time()
        module = compile_file(*args, **kwargs)
        compiling["cpu"] += time.process_time() - start
        compiling["units"] += sum(meter.spent for meter in getattr(module, "work", {}).values())
        return module

    prove.new_total, prove.reserved_total, prove.compile_file = new_total, reserved_total, observed_compile
    sys.argv = ["verikern", "prove", file, "-k", kernel, "--format", "json", "--no-cache", "--quiet", *options]
    code = 0
    try:
        with open("/dev/null", "w") as sink:
            sys.stdout = sink
            main()
    except SystemExit as stop:
        code = stop.code if isinstance(stop.code, int) else 1
    finally:
        sys.stdout = sys.__stdout__
    usage = resource.getrusage(resource.RUSAGE_SELF)
    with open(out, "w", encoding="utf-8") as fh:
        json.dump({"exit": code, "cpu_s": usage.ru_utime + usage.ru_stime, "compile_cpu_s": compiling["cpu"],
                   "compile_units": compiling["units"],
                   "totals": [{"limit": t.limit, "spent": t.spent(), "compiled": t.compiled, "ledger": t.ledger}
                              for t in totals]}, fh)
    return 0


def measure(site: str, options: list[str]) -> dict:
    """The figures of one FILE:KERNEL, from a child process of its own."""
    file, _, kernel = site.rpartition(":")
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        subprocess.run([sys.executable, __file__, "--child", file, kernel, out.name, "--", *options], check=True)
        figures = json.load(open(out.name, encoding="utf-8"))
    proof_units = sum(t["spent"] - t["compiled"] for t in figures["totals"])
    proof_cpu = figures["cpu_s"] - figures["compile_cpu_s"]
    figures.update(site=site, proof_units=proof_units, proof_cpu_s=proof_cpu,
                   compile_us_per_unit=1e6 * figures["compile_cpu_s"] / max(1, figures["compile_units"]),
                   proof_us_per_unit=1e6 * proof_cpu / max(1, proof_units))
    figures["ratio"] = figures["compile_us_per_unit"] / max(1e-9, figures["proof_us_per_unit"])
    return figures


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    options = argv[argv.index("--") + 1:] if "--" in argv else []
    argv = argv[:argv.index("--")] if "--" in argv else argv
    if argv[:1] == ["--child"]:
        return _child(argv[1], argv[2], argv[3], options)
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("sites", nargs="+", metavar="FILE:KERNEL")
    ap.add_argument("--json", help="write every kernel's figures here")
    args = ap.parse_args(argv)
    rows = []
    for site in args.sites:
        row = measure(site, options)
        rows.append(row)
        print(f"{site}: {row['cpu_s']:.1f} CPU s; compile {row['compile_cpu_s']:.1f} s for "
              f"{row['compile_units'] / 1e6:.2f} M compile units ({row['compile_us_per_unit']:.2f} us each); "
              f"proof {row['proof_cpu_s']:.1f} s for {row['proof_units'] / 1e6:.1f} M units of its total "
              f"({row['proof_us_per_unit']:.2f} us each); ratio {row['ratio']:.1f}", flush=True)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(rows, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
