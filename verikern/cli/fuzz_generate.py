"""`verikern fuzz --generate N`: a campaign over generated kernels
(verikern.testing.generate) instead of a kernel file.

Invariant (exit codes, as `verikern fuzz`): 1 when two backends disagreed,
a generated kernel did not compile, or the prover gave a wrong verdict (a
correct-by-construction kernel `failed`, a planted defect `proved`); else
0. Every finding is printed with a standalone kernel file and, for a
mismatch, a command reproducing it.
"""
from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

import click

EXIT_OK, EXIT_FINDING = 0, 1

_GENERATED_NOTE = ("  note: this kernel was generated well defined by construction (indices in "
                   "bounds, race-free, every shared element written before it is read), so a "
                   "difference, or a runtime error on one backend only, is a backend bug even "
                   "where the diagnosis above blames the kernel")


def run_generated(count: int, seed: int, backends, save_dir: str, prove_every: int,
                  budget: float, keep: bool) -> int:
    """Run `count` generated kernels (seeds seed, seed+1, ...) and print
    findings and totals; the exit status."""
    from rich.console import Console  # lazy: CLI start-up
    from verikern.testing.generate.campaign import run_campaign  # lazy: CLI start-up

    console = Console(highlight=False, soft_wrap=True, width=200)
    if "cuda" in backends:
        from verikern.testing.backends import BACKENDS  # lazy: CLI start-up

        why = BACKENDS["cuda"].unavailable(None)   # type: ignore[arg-type]  # ignores the kernel
        if why:
            console.print(f"note: cuda dropped out: {why}", markup=False)
    start = time.perf_counter()
    done = [0]

    def show(o) -> None:
        done[0] += 1
        if o.compile_error:
            console.print(f"COMPILE ERROR {o.file}: a generated kernel was rejected:\n"
                          f"  {o.compile_error}", markup=False)
        if o.mismatch is not None:
            console.print("MISMATCH " + o.mismatch.report(o.reproduce), markup=False)
            console.print(_GENERATED_NOTE, markup=False)
        for w in o.wrong_verdicts:
            console.print(f"WRONG VERDICT {w}", markup=False)
        if sys.stderr.isatty() and done[0] % 10 == 0:
            print(f"\r{done[0]}/{count} kernels", end="", file=sys.stderr, flush=True)

    with tempfile.TemporaryDirectory(prefix="verikern-generate-") as scratch:
        work = str(Path(save_dir) / "generated") if keep else scratch
        tally = run_campaign(range(seed, seed + count), backends, work, save_dir=save_dir,
                             prove_every=prove_every, budget=budget, on_outcome=show, keep=keep)
    seconds = time.perf_counter() - start
    if sys.stderr.isatty():
        print(file=sys.stderr)
    console.print(summary(tally, seconds, backends), markup=False)
    bad = sum(tally.mismatches.values()) + tally.compile_errors + len(tally.wrong)
    return EXIT_FINDING if bad else EXIT_OK


def summary(tally, seconds: float, backends) -> str:
    """The totals of a campaign, one fact per line."""
    lines = [f"generated kernels: {tally.kernels} in {seconds:.1f} s "
             f"({tally.kernels / seconds if seconds else 0.0:.2f} kernels/s)",
             "compared on: " + ", ".join(f"{b} {tally.compared[b]}" for b in backends)]
    for reason, n in sorted(tally.dropped.items()):
        lines.append(f"  dropped out: {reason} ({n} kernels)")
    pairs = [f"{backends[0]} vs {b}" for b in backends[1:]]
    lines.append("mismatches: " + ", ".join(f"{p} {tally.mismatches[p]}" for p in pairs))
    lines.append(f"generated kernels the frontend rejected: {tally.compile_errors}")
    if tally.verdicts:
        n = sum(tally.verdicts.values())
        rate = tally.unknown_rate() or 0.0
        lines.append(f"prover on {n} generated kernels: "
                     + ", ".join(f"{k} {v}" for k, v in sorted(tally.verdicts.items()))
                     + f"; unknown rate {100 * rate:.1f}%")
        lines.append("prover on planted defects: "
                     + ", ".join(f"{k} {v}" for k, v in sorted(tally.defect_verdicts.items())))
        failed = tally.verdicts.get("failed", 0)
        proved_defects = tally.defect_verdicts.get("proved", 0)
        lines.append(f"wrong verdicts: {failed} generated kernels failed, "
                     f"{proved_defects} planted defects proved")
    return "\n".join(lines)


def check_options(file, replay, kernels, params, sizes) -> None:
    """--generate replaces FILE and the per-kernel options."""
    given = [name for name, v in (("FILE", file), ("--replay", replay), ("--kernel", kernels),
                                  ("--param", params), ("--size", sizes)) if v]
    if given:
        raise click.UsageError(f"--generate writes its own kernels: drop {', '.join(given)}")
