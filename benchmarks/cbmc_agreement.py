"""CBMC against z3 over the shared corpus (tests/corpus/*.py): per obligation,
each engine's settled verdict (replay included), the share CBMC decides, every
disagreement, and CBMC's time per kernel.

    python benchmarks/cbmc_agreement.py [--fixed | --every-launch] [--timeout S]
                                        [--every N] [--examples] [--json-dir DIR]
                                        [NAME ...]

`--fixed` (the default): every kernel on one fixed launch (`launch_of`: the
case's `# prove-args:`, else its first witness's launch, else two blocks of
the kernel's block size, 32 when it fixes none), both engines on the same
launch. `--every-launch`: no `--dim`; only a fixed `block_dim` the case's
prove-args give is kept. `--every N`: every N-th corpus file in sorted
order, from the first (the sample docs/C_ENCODER.md reports). `--examples`:
the kernels of examples/*.py instead of the corpus, for every launch
(what `verikern prove examples/X.py --engine z3,cbmc` decides). `--timeout S` is CBMC's safety net per kernel
(verikern.proofs.deciding.budget.SAFETY_NET_S otherwise). `--json-dir DIR`:
one JSON file per corpus file (DIR/NAME.json: its counts, every undecided
obligation with CBMC's reason, its kernels' CPU seconds), written as each
file finishes; a file that already has one is read back instead of run, so
an interrupted sweep resumes, and the totals cover every file's JSON.

A disagreement is one engine proving what the other failed; `uninit`
obligations are left out of CBMC's share (its two-thread harness has no
check for them: docs/C_ENCODER.md). Exit status 1 on any disagreement.
Runs one CBMC process at a time. "Within 60 s" counts the CPU seconds of
CBMC and its solver (the children of this process), which the machine's
load does not inflate; the wall time is printed beside it.
"""
from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from corpus_loader import CORPUS_DIR, CorpusCase, parse_header  # noqa: E402

from verikern.frontend import compile_source  # noqa: E402
from verikern.proofs.deciding import budget as budget_module  # noqa: E402
from verikern.proofs.deciding.cbmc import cbmc_version, killed_cpu_seconds  # noqa: E402
from verikern.proofs.deciding.engines import obligation_key  # noqa: E402
from verikern.proofs.obligations import ObligationKind, Status, enumerate_obligations  # noqa: E402
from verikern.proofs.pipeline import prove_mir  # noqa: E402


def launch_of(case: CorpusCase, kernel) -> tuple[tuple[int, ...], int]:
    """The fixed launch a case is checked on (module docstring)."""
    block = case.option("--block-dim")
    dim = case.option("--dim")
    if dim is not None:
        dims = tuple(int(d) for d in dim.split(","))
        return dims, int(block) if block else (kernel.block_dim or 32)
    if case.witnesses:
        w = case.witnesses[0]
        return tuple(w.dims), w.block_dim
    b = kernel.block_dim or (int(block) if block else 32)
    return (1,) * (kernel.launch_ndim - 1) + (2 * b,), b


def _children_cpu() -> float:
    """CPU seconds of the finished children (cbmc, and the z3 it ran),
    those the safety net killed included (cbmc.killed_cpu_seconds: a
    killed cbmc's solver is never waited for, so RUSAGE_CHILDREN misses it)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime + killed_cpu_seconds()


@dataclass
class Tally:
    """Counts over the obligations CBMC can decide (every kind but uninit)."""

    total: int = 0
    decided: int = 0
    agreed: int = 0
    disagreements: list[str] = field(default_factory=list)
    kernel_times: list[tuple[str, float, bool]] = field(default_factory=list)
    undecided: list[tuple[str, str]] = field(default_factory=list)

    def add(self, other: Tally) -> None:
        """Adds another tally's counts and lists to this one."""
        self.total += other.total
        self.decided += other.decided
        self.agreed += other.agreed
        self.disagreements += other.disagreements
        self.kernel_times += other.kernel_times
        self.undecided += other.undecided

    def to_json(self) -> dict:
        return {"total": self.total, "decided": self.decided, "agreed": self.agreed,
                "disagreements": self.disagreements,
                "kernel_times": [list(t) for t in self.kernel_times],
                "undecided": [list(u) for u in self.undecided]}

    @staticmethod
    def from_json(d: dict) -> Tally:
        return Tally(d["total"], d["decided"], d["agreed"], list(d["disagreements"]),
                     [(str(n), float(t), bool(a)) for n, t, a in d["kernel_times"]],
                     [(str(k), str(r)) for k, r in d["undecided"]])


def compare(case: CorpusCase, tally: Tally, every_launch: bool) -> None:
    module = compile_source(case.path.read_text(), case.path.name)
    for r in module.kernels:
        k = r.mir
        if k is None:                  # refused by the frontend (an `expect: refused` case)
            print(f"  {case.name}:{r.name}: refused, no obligations", flush=True)
            continue
        if every_launch:
            dims = None
            block = case.option("--block-dim")
            block_dim = int(block) if block else None
        else:
            dims, block_dim = launch_of(case, k)
        z3 = prove_mir(k, file=case.path.name, dims=dims, block_dim=block_dim)
        start, cpu = time.perf_counter(), _children_cpu()
        cb = prove_mir(k, file=case.path.name, dims=dims, block_dim=block_dim, engine="cbmc")
        wall, took = time.perf_counter() - start, _children_cpu() - cpu
        if cb.error is not None:
            n = sum(1 for s in enumerate_obligations(k) if s.kind is not ObligationKind.UNINIT)
            tally.total += n
            tally.kernel_times.append((f"{case.name}:{r.name}", took, n == 0))
            tally.undecided += [(f"{case.name}:{r.name}", f"error: {cb.error}")] * n
            print(f"  {case.name}:{r.name}: error {cb.error}", flush=True)
            continue
        theirs = {obligation_key(o): o for o in z3.obligations}
        all_decided = True
        for o in cb.obligations:
            if o.kind is ObligationKind.UNINIT:
                continue
            tally.total += 1
            other = theirs.get(obligation_key(o))
            if o.status is Status.UNKNOWN:
                all_decided = False
                tally.undecided.append((f"{case.name}:{r.name} {obligation_key(o)}", o.reason or ""))
                print(f"    {r.name} {obligation_key(o)}: cbmc unknown: {o.reason}")
                continue
            tally.decided += 1
            if other is not None and {o.status, other.status} == {Status.PROVED, Status.FAILED}:
                tally.disagreements.append(f"{case.name}:{r.name} {obligation_key(o)}: "
                                           f"cbmc {o.status.value}, z3 {other.status.value}")
                print("    DISAGREEMENT", tally.disagreements[-1], flush=True)
            elif other is not None and other.status is o.status:
                tally.agreed += 1
        tally.kernel_times.append((f"{case.name}:{r.name}", took, all_decided))
        print(f"  {case.name}:{r.name} dims={dims} block_dim={block_dim}: cbmc {took:.2f} s CPU "
              f"({wall:.1f} s wall) "
              f"{'all decided' if all_decided else 'some unknown'}", flush=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--fixed", action="store_true", help="one fixed launch per kernel (default)")
    mode.add_argument("--every-launch", action="store_true", help="no --dim: every launch")
    ap.add_argument("--timeout", type=float, default=None, help="CBMC's safety net per kernel, s")
    ap.add_argument("--every", type=int, default=1, metavar="N",
                    help="every N-th corpus file (sorted), from the first")
    ap.add_argument("--examples", action="store_true",
                    help="the examples (examples/*.py) for every launch, not the corpus")
    ap.add_argument("--json-dir", type=Path, default=None, metavar="DIR",
                    help="one JSON file per corpus file; existing ones are read, not re-run")
    ap.add_argument("names", nargs="*", help="corpus case names, run in this order (default: all)")
    args = ap.parse_args(argv)
    if args.timeout is not None:       # CBMC reads it at each run (z3 too)
        budget_module.SAFETY_NET_S = args.timeout
    print(f"CBMC {cbmc_version()}")
    if args.examples:
        args.every_launch = True
        cases = [CorpusCase(p, "proved", frozenset(), ())
                 for p in sorted((ROOT / "examples").glob("*.py"))[::max(1, args.every)]]
    else:
        cases = [parse_header(p) for p in sorted(CORPUS_DIR.glob("*.py"))[::max(1, args.every)]]
    if args.names:                     # in the order given (a sweep resumed in pieces)
        by_name = {c.name: c for c in cases}
        cases = [by_name[n] for n in dict.fromkeys(args.names) if n in by_name]
    tally = Tally()
    if args.json_dir is not None:
        args.json_dir.mkdir(parents=True, exist_ok=True)
    for case in cases:
        record = args.json_dir / f"{case.name}.json" if args.json_dir is not None else None
        if record is not None and record.exists():
            tally.add(Tally.from_json(json.loads(record.read_text())))
            continue
        one = Tally()
        compare(case, one, args.every_launch)
        tally.add(one)
        if record is not None:
            record.write_text(json.dumps(one.to_json(), indent=1) + "\n")
    n = len(tally.kernel_times)
    fast = sum(1 for _, t, d in tally.kernel_times
               if d and t <= 60.0)
    print(f"obligations (not uninit): {tally.total}; CBMC decided {tally.decided} "
          f"({100.0 * tally.decided / max(1, tally.total):.1f}%), agreeing with z3 on "
          f"{tally.agreed}; disagreements: {len(tally.disagreements)}")
    print(f"kernels: {n}; all obligations decided within 60 s: {fast}; "
          f"CBMC CPU time total {sum(t for _, t, _ in tally.kernel_times):.1f} s, "
          f"max {max((t for _, t, _ in tally.kernel_times), default=0.0):.1f} s")
    for d in tally.disagreements:
        print("DISAGREEMENT", d)
    return 1 if tally.disagreements else 0


if __name__ == "__main__":
    sys.exit(main())
