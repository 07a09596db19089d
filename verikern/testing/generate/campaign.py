"""Running generated programs: every backend that can express one is run on
its launch and compared (verikern.testing.fuzzing.compare_launch); a
mismatch is shrunk, written as a standalone kernel file, diagnosed and
saved for `verikern fuzz --replay` (fuzzing's own finishing step); and the
prover is asked about the program and one planted defect of it.

Invariants:
- A program's outcome depends only on its seed and the backends: programs
  are written under `workdir` by name, never executed except by a backend
  (`warp` imports the generated file, which only defines the kernel).
- Wrong verdicts are exactly: a correct-by-construction program that ends
  `failed`, a planted defect that ends `proved`. `unknown` is counted, not
  wrong (its rate is the prover's precision figure).
- A program the frontend rejects is a finding too (`compile_error`): every
  program is in the language by construction.
"""
from __future__ import annotations

import itertools
import os
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Iterable, Sequence

from verikern.errors import VerikernError
from verikern.proofs.obligations import KernelStatus
from verikern.proofs.pipeline import prove_mir

from ..compare import Tolerance
from ..fuzzing import Mismatch, _finish, available_backends, compare_launch
from ..strategies import Launch
from ..target import KernelUnderTest, TestingError, compile_kernels, with_object
from .model import Program
from .program import MAX_PHASES, defects, launch_of, plant, program_from_seed
from .shrink import launch_for, shrink


@dataclass(frozen=True)
class Outcome:
    """What one generated program did: the backends compared and dropped
    (with why), the mismatch (shrunk, diagnosed, saved) or compile error,
    and the prover's verdicts on it and on its planted defect."""

    program: Program
    file: str
    compared: tuple[str, ...] = ()
    dropped: tuple[tuple[str, str], ...] = ()
    mismatch: Mismatch | None = None
    reproduce: str | None = None
    compile_error: str | None = None
    verdict: str | None = None              # the correct program's kernel status
    defect: str | None = None               # the planted defect's description
    defect_verdict: str | None = None
    defect_file: str | None = None

    @property
    def wrong_verdicts(self) -> list[str]:
        out = []
        if self.verdict == KernelStatus.FAILED.value:
            out.append(f"{self.file}: a generated kernel, correct by construction, ended failed")
        if self.defect_verdict == KernelStatus.PROVED.value:
            out.append(f"{self.defect_file}: a planted defect ({self.defect}) ended proved")
        return out


@dataclass
class Tally:
    """Totals over a campaign (see `Outcome`)."""

    kernels: int = 0
    compared: Counter = field(default_factory=Counter)     # backend -> kernels it ran
    mismatches: Counter = field(default_factory=Counter)   # "a vs b" -> count
    dropped: Counter = field(default_factory=Counter)      # "backend: reason" -> count
    compile_errors: int = 0
    verdicts: Counter = field(default_factory=Counter)
    defect_verdicts: Counter = field(default_factory=Counter)
    wrong: list[str] = field(default_factory=list)
    findings: list[Outcome] = field(default_factory=list)

    def add(self, o: Outcome) -> None:
        self.kernels += 1
        self.compared.update(o.compared)
        for name, why in o.dropped:
            self.dropped[f"{name}: {_reason_class(why)}"] += 1
        if o.mismatch is not None:
            self.mismatches[f"{o.mismatch.left} vs {o.mismatch.right}"] += 1
        if o.compile_error:
            self.compile_errors += 1
        if o.verdict:
            self.verdicts[o.verdict] += 1
        if o.defect_verdict:
            self.defect_verdicts[o.defect_verdict] += 1
        self.wrong += o.wrong_verdicts
        if o.mismatch is not None or o.compile_error or o.wrong_verdicts:
            self.findings.append(o)

    def unknown_rate(self) -> float | None:
        n = sum(self.verdicts.values())
        return self.verdicts[KernelStatus.UNKNOWN.value] / n if n else None

    def merge(self, other: "Tally") -> None:
        self.kernels += other.kernels
        for mine, theirs in ((self.compared, other.compared), (self.mismatches, other.mismatches),
                             (self.dropped, other.dropped), (self.verdicts, other.verdicts),
                             (self.defect_verdicts, other.defect_verdicts)):
            mine.update(theirs)
        self.compile_errors += other.compile_errors
        self.wrong += other.wrong
        self.findings += other.findings


def _reason_class(why: str) -> str:
    if "not valid Warp: it uses" in why:
        return "block-level features (not valid Warp)"
    return why.split(":")[-1].strip()[:80] if "not valid Warp" in why else why[:80]


def write_program(program: Program, directory) -> str:
    path = Path(directory) / f"{program.name}.py"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(program.source(), encoding="utf-8")
    return str(path)


def compile_program(program: Program, directory, imported: bool) -> KernelUnderTest:
    """The program written to `directory` and compiled from its file (imported
    too when `imported`, for the warp backend). TestingError on rejection."""
    path = write_program(program, directory)
    [target] = compile_kernels(path, [program.name])
    return with_object(target) if imported else target


_CANDIDATES = itertools.count()


def _disagree(program: Program, launch: Launch, pair, directory, imported: bool,
              had_error: bool) -> bool:
    # each candidate gets a file and kernel name of its own: imported modules and
    # Warp kernels are cached by path and name
    program = replace(program, name=f"{program.name}_c{next(_CANDIDATES)}")
    try:
        target = compile_program(program, directory, imported)
    except (TestingError, VerikernError):
        return False
    m = compare_launch(target, pair, launch, Tolerance.for_kernel(target.mir))
    if m is None:
        return False
    return had_error or m.difference.array is not None


def run_program(program: Program, backends: Sequence[str], workdir, *,
                save_dir: str | None = None, shrink_budget: int = 150,
                prove: bool = False, budget: float = 2.0, defect_choice: int = 0) -> Outcome:
    """Run `program` on every backend that can express it and compare; on a
    mismatch shrink it, write it to `save_dir` and diagnose it; with `prove`,
    also prove it and its planted defect number `defect_choice`."""
    imported = "warp" in backends
    try:
        target = compile_program(program, workdir, imported)
    except (TestingError, VerikernError) as err:
        return Outcome(program, str(Path(workdir) / f"{program.name}.py"), compile_error=str(err))
    runnable, dropped = available_backends(target, backends)
    outcome = Outcome(program, target.file, tuple(b.name for b in runnable), tuple(dropped))
    launch = launch_of(program)
    if len(runnable) >= 2:
        m = compare_launch(target, runnable, launch, Tolerance.for_kernel(target.mir))
        if m is not None:
            outcome = _finish_mismatch(outcome, m, runnable, launch, workdir, save_dir, shrink_budget)
    if prove:
        outcome = _prove(outcome, target, workdir, budget, defect_choice)
        if outcome.wrong_verdicts:     # keep the kernels behind a wrong verdict
            out_dir = save_dir or str(Path(workdir) / "findings")
            file = write_program(program, out_dir) if outcome.verdict == "failed" else outcome.file
            defect_file = outcome.defect_file
            if outcome.defect_verdict == "proved" and defect_file and os.path.isfile(defect_file):
                defect_file = str(Path(out_dir) / Path(defect_file).name)
                Path(defect_file).parent.mkdir(parents=True, exist_ok=True)
                Path(defect_file).write_text(Path(outcome.defect_file or "").read_text(), encoding="utf-8")
            outcome = replace(outcome, file=file, defect_file=defect_file)
    return outcome


def _finish_mismatch(outcome: Outcome, m: Mismatch, runnable, launch: Launch, workdir,
                     save_dir: str | None, shrink_budget: int) -> Outcome:
    pair = [b for b in runnable if b.name in (m.left, m.right)]
    imported = any(b.name == "warp" for b in pair)
    had_error = m.difference.array is None
    scratch = Path(workdir) / "shrink"
    small, small_launch, _ = shrink(
        outcome.program, launch,
        lambda p, lnch: _disagree(p, lnch, pair, scratch, imported, had_error), shrink_budget)
    out_dir = save_dir or str(Path(workdir) / "findings")
    small = replace(small, name=f"{outcome.program.name}_shrunk")
    target = compile_program(small, out_dir, imported)
    shrunk = compare_launch(target, pair, small_launch, Tolerance.for_kernel(target.mir))
    if shrunk is None:      # flaky: keep the original program as the finding
        target = compile_program(outcome.program, out_dir, imported)
        small_launch = launch_for(outcome.program, launch)
        shrunk = compare_launch(target, pair, small_launch, Tolerance.for_kernel(target.mir)) or \
            Mismatch(target, small_launch, m.left, m.right, m.difference, m.tolerance)
    final = _finish(shrunk, True, out_dir)
    command = " ".join(["verikern", "fuzz", target.file, "--kernel", target.name, "--backends",
                        f"{final.left},{final.right}", "--replay", final.replay or "?"])
    return replace(outcome, mismatch=final, reproduce=command)


def _status(target: KernelUnderTest, budget: float) -> str:
    report = prove_mir(target.mir, file=target.file, budget=budget)
    return report.status.value


def _prove(outcome: Outcome, target: KernelUnderTest, workdir, budget: float,
           defect_choice: int) -> Outcome:
    verdict = _status(target, budget)
    program = outcome.program
    if not defects(program):
        return replace(outcome, verdict=verdict)
    bad = plant(replace(program, name=f"{program.name}_defect"), defect_choice)
    try:
        bad_target = compile_program(bad, Path(workdir) / "defects", False)
    except (TestingError, VerikernError) as err:
        return replace(outcome, verdict=verdict, defect=bad.defect,
                       defect_verdict="error", defect_file=str(err)[:200])
    return replace(outcome, verdict=verdict, defect=bad.defect,
                   defect_verdict=_status(bad_target, budget), defect_file=bad_target.file)


def run_campaign(seeds: Iterable[int], backends: Sequence[str], workdir, *,
                 save_dir: str | None = None, prove_every: int = 0, budget: float = 2.0,
                 on_outcome: Callable[[Outcome], None] | None = None,
                 shrink_budget: int = 150, keep: bool = False) -> Tally:
    """Generate a program per seed and run each (see `run_program`); every
    `prove_every`-th one (0: none) is also proved with a planted defect.
    Generated files that showed nothing are removed unless `keep`."""
    tally = Tally()
    for n, seed in enumerate(seeds):
        prove = bool(prove_every) and n % prove_every == 0
        # a kernel that is also proved has one phase: proofs of bigger ones cost minutes
        program = program_from_seed(seed, max_phases=1 if prove else MAX_PHASES)
        o = run_program(program, backends, workdir, save_dir=save_dir, prove=prove, budget=budget,
                        defect_choice=seed, shrink_budget=shrink_budget)
        tally.add(o)
        if on_outcome is not None:
            on_outcome(o)
        if not keep:
            _cleanup(o)
    return tally


def _cleanup(o: Outcome) -> None:
    """Remove a generated file that showed nothing (findings stay)."""
    if o.mismatch is None and not o.compile_error and not o.wrong_verdicts:
        for path in (o.file, o.defect_file):
            if path and os.path.isfile(path):
                os.remove(path)
