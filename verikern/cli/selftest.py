"""`verikern selftest`: prove the shipped corpus with its expected verdicts
and print a qualification summary (verikern.selftest).

Exit status: 0 every verdict as expected; 1 some verdict is not; 3 input
error (no case matches --only, a bad option).
"""
from __future__ import annotations

import contextlib
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import click

from verikern.cli.common import InputErrorCommand, InputErrorExit
from verikern.cli.prove import command as prove_command


@click.command(cls=InputErrorCommand, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--only", metavar="TEXT", help="Run only the cases whose file name contains TEXT.")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=1, show_default=True, metavar="N",
              help="Prove N cases in parallel (processes).")
@click.option("--cache-dir", type=click.Path(file_okay=False), metavar="DIR",
              help="Read and write verdicts in this proof cache (default: none, every proof runs).")
def command(only, jobs, cache_dir):
    """Prove every kernel of the corpus shipped with verikern and check each
    verdict against the one the case expects: the evidence a
    tool-qualification kit needs (tool version, z3 version, corpus hash,
    every verdict as expected or not).

    \b
    Examples:
      verikern selftest --jobs 2
      verikern selftest --only race
    """
    from verikern.cli.progress import allow_interrupts  # lazy: CLI start-up

    allow_interrupts()                          # Ctrl-C stops the run (exit 130), never one z3 query
    selected = _selected(only)
    bad = 0
    for line, ok in run_selftest(selected, jobs, cache_dir):
        bad += not ok
        click.echo(line)                        # each case as soon as it is known
    sys.exit(1 if bad else 0)


def _selected(only):
    from verikern.selftest import cases  # lazy: CLI start-up

    selected = cases(only=only)
    if not selected:
        raise InputErrorExit(f"no corpus case matches {only!r} (the case names are the corpus file names)")
    return selected


def run_selftest(selected, jobs: int = 1, cache_dir=None):
    """Yield (line, ok) for the self-test of the `selected` cases: the
    header (tool, corpus), one line per case as soon as it is known, the
    PASSED / FAILED line last (`ok` False only on the lines of cases not as
    expected)."""
    from verikern.proofs.reporting.scope import versions  # lazy: CLI start-up
    from verikern import selftest  # lazy: CLI start-up
    from verikern.selftest import corpus_hash, expected_text  # lazy: CLI start-up

    v = versions()
    yield "verikern qualification self-test", True
    yield f"  tool: verikern {v['verikern']}; z3 {v['z3']}; Python {v['python']}; {v['platform']}", True
    yield (f"  corpus: {len(selected)} of {len(list(selftest.CORPUS.glob('*.py')))} cases, "
           f"sha256 {corpus_hash()}"), True
    tasks = [(str(c.path), c.prove_args, cache_dir) for c in selected]
    bad = 0
    with contextlib.ExitStack() as stack:
        if jobs > 1 and len(tasks) > 1:
            pool = stack.enter_context(ProcessPoolExecutor(max_workers=jobs))
            outcomes = pool.map(_run_case, tasks)       # in case order, each as soon as it is known
        else:
            outcomes = map(_run_case, tasks)
        for case, (got, ok, cached) in zip(selected, outcomes):
            bad += not ok
            tag = "as expected" if ok else "NOT AS EXPECTED"
            yield (f"  {'ok ' if ok else 'BAD'} {case.path.name}: expected {expected_text(case)}, got {got}"
                   f" -- {tag}{' (cached)' if cached else ''}"), ok
    if bad:
        yield f"FAILED: {bad} of {len(selected)} verdicts not as expected", True
    else:
        yield f"PASSED: all {len(selected)} verdicts as expected", True


def _run_case(task):
    """(got, ok, cached) for one case: proved with its own prove-args, never executed."""
    path, prove_args, cache_dir = task

    from verikern.app.cache import ProofCache  # lazy: CLI start-up
    from verikern.app.prove import prove_file  # lazy: CLI start-up
    from verikern.selftest import judge, parse_case  # lazy: CLI start-up

    params = prove_command.make_context("prove", [path, *prove_args]).params
    reports = prove_file(path, kernel=params["kernel"], dims=params["dims"], block_dim=params["block_dim"],
                         budget=params["budget"], cache=ProofCache(cache_dir) if cache_dir else None)
    outcome = judge(parse_case(Path(path)), reports)
    return outcome.got, outcome.ok, outcome.cached
