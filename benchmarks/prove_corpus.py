"""Prover benchmark over the shared corpus (tests/corpus/*.py), against a
z3 peer measured in the same run.

One run over the corpus with 2 worker processes (`--jobs`): prints each
kernel's prove time (prove + replay, measured in its worker), the median and
the wall time of the whole run, and how many failed obligations replay
confirmed. Every case is proved with its own `# prove-args:`.

The peer: plain z3 deciding five fixed queries (benchmarks/data/z3_peer,
dumped once from the tiled matmul's proof; each in a fresh context), run by
the same workers before, after and among the corpus files (every
PEER_EVERY), so it sees the same machine and load. Times are also shown as multiples of the peer's median time, and the
targets -- the issue's seconds on a quiet run of this machine, where the
peer took QUIET_PEER_S -- are checked in those units: a loaded or slower
machine slows the peer as much as the prover.

    python benchmarks/prove_corpus.py [--jobs 2] [--corpus DIR] [--no-recheck]

A kernel over the per-kernel target in that run is proved again alone (one
worker, between two peer samples taken alone), since that target is the
time of one kernel proved by itself; both measurements are printed.

Exit status 0 when both targets are met, 1 otherwise.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from corpus_loader import CORPUS_DIR, parse_header  # noqa: E402

MEDIAN_TARGET_S = 0.2     # issue #11: the median per kernel at most 0.2 s
KERNEL_TARGET_S = 2.0     # issue #11: the new classes within 2 s each
TOTAL_TARGET_S = 60.0
#: The peer's time on a quiet run of the machine the targets were set on
#: (2 cores, 2 jobs; 2026-12-02: 0.42 to 0.52 s over eight runs).
QUIET_PEER_S = 0.45
PEER_QUERIES = ROOT / "benchmarks" / "data" / "z3_peer"
#: A peer sample runs after every this many corpus files (and before and after all).
PEER_EVERY = 16
#: Work limit of each peer query (each needs under 0.5M units).
PEER_RLIMIT = 20_000_000


def _kwargs(prove_args) -> dict:
    from verikern.cli.prove import command

    p = command.make_context("prove", ["<path>", *prove_args]).params
    return {"kernel": p["kernel"], "dims": p["dims"], "block_dim": p["block_dim"], "budget": p["budget"]}


def peer_seconds(_: int = 0) -> float:
    """Seconds plain z3 takes for the peer's queries (each must be unsat)."""
    import z3

    start = time.perf_counter()
    for query in sorted(PEER_QUERIES.glob("*.smt2")):
        solver = z3.SolverFor("QF_BV", ctx=z3.Context())
        solver.set("rlimit", PEER_RLIMIT)
        solver.from_string(query.read_text())
        answer = solver.check()
        if answer != z3.unsat:
            raise RuntimeError(f"z3 peer: {query.name} answered {answer}, not unsat")
    return time.perf_counter() - start


def _run_task(path: str | None):
    """A peer sample (None) or one corpus file."""
    return peer_seconds() if path is None else prove_case(path)


def prove_case(path: str):
    """(path, [(kernel, status, seconds)]) for one corpus file."""
    from verikern.app.prove import prove_file

    case = parse_header(Path(path))
    reports = prove_file(path, **_kwargs(case.prove_args))
    return path, [(r.kernel, r.status.value, r.seconds,
                   sum(o.status.value == "failed" for o in r.obligations),
                   sum(o.status.value == "failed" and o.confirmed is True for o in r.obligations))
                  for r in reports]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    ap.add_argument("--corpus", type=Path, default=CORPUS_DIR, help="corpus folder")
    ap.add_argument("--no-recheck", dest="recheck", action="store_false",
                    help="do not prove the kernels over the per-kernel target again alone")
    args = ap.parse_args(argv)
    files = [str(p) for p in sorted(args.corpus.glob("*.py"))]
    if not files:
        print(f"no corpus files in {args.corpus}", file=sys.stderr)
        return 1

    # peer samples before, among (every PEER_EVERY kernels) and after the
    # kernels, so that they see the load the kernels saw
    tasks: list[str | None] = [None] * args.jobs
    for n, path in enumerate(files):
        if n and n % PEER_EVERY == 0:
            tasks.append(None)
        tasks.append(path)
    tasks += [None] * args.jobs
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        start = time.perf_counter()
        done = list(pool.map(_run_task, tasks))
        elapsed = time.perf_counter() - start
    peers = [r for r in done if isinstance(r, float)]
    results = [r for r in done if not isinstance(r, float)]
    # the corpus's wall time: the run's, less the peer samples' share of it
    total = max(0.0, elapsed - sum(peers) / args.jobs)
    peer = statistics.median(peers)
    scale = QUIET_PEER_S / peer        # seconds here -> seconds on the quiet machine

    times: list[float] = []
    slow: list[tuple[str, float]] = []
    failed = confirmed = 0
    print(f"{'file:kernel':<60} {'status':<8} {'seconds':>8} {'x peer':>7}")
    for path, rows in results:
        for kernel, status, seconds, n_failed, n_confirmed in rows:
            times.append(seconds)
            failed += n_failed
            confirmed += n_confirmed
            name = Path(path).stem + ":" + kernel
            print(f"{name:<60} {status:<8} {seconds:>8.3f} {seconds / peer:>7.2f}")
            if seconds * scale > KERNEL_TARGET_S:
                slow.append((name, seconds))
    median = statistics.median(times) if times else float("nan")
    median_ok = median * scale <= MEDIAN_TARGET_S
    total_ok = total * scale < TOTAL_TARGET_S
    print()
    print(f"kernels: {len(times)} in {len(files)} files, one run with {args.jobs} jobs")
    print(f"failed obligations confirmed by replay: {confirmed} of {failed}")
    print(f"z3 peer (5 fixed queries, sampled among the kernels): {peer:.3f} s "
          f"(median of {len(peers)}; {QUIET_PEER_S} s on a quiet run of the reference machine)")
    print(f"median per kernel:    {median:8.3f} s = {median / peer:5.2f} x peer   "
          f"target <= {MEDIAN_TARGET_S / QUIET_PEER_S:.2f} x peer "
          f"({MEDIAN_TARGET_S} s on the reference machine)   {'ok' if median_ok else 'MISSED'}")
    print(f"whole corpus, {args.jobs} jobs: {total:8.3f} s = {total / peer:5.1f} x peer   "
          f"target < {TOTAL_TARGET_S / QUIET_PEER_S:.0f} x peer "
          f"({TOTAL_TARGET_S:.0f} s on the reference machine)   {'ok' if total_ok else 'MISSED'}")
    over = ", ".join(f"{n} ({t / peer:.1f} x peer)" for n, t in slow) or "none"
    print(f"over {KERNEL_TARGET_S:g} s on the reference machine "
          f"({KERNEL_TARGET_S / QUIET_PEER_S:.1f} x peer), {args.jobs} jobs: {over}")
    if slow and args.recheck:
        print("proved again alone (one worker; a user proves a kernel so):")
        for line in _alone(sorted({n.split(":")[0] for n, _ in slow}), args.corpus, scale):
            print("  " + line)
    return 0 if median_ok and total_ok else 1


def _alone(stems: list[str], corpus: Path, scale: float) -> list[str]:
    """Each of `stems` proved again in one worker with nothing beside it,
    between two peer samples taken the same way: one line per kernel with
    its seconds, its multiple of that alone peer, and its seconds on the
    reference machine (`scale`, the 2-job run's: the reference peer was
    measured in 2-job runs, and the peer alone is faster here as it would be
    there). The per-kernel target is a time of one kernel proved alone,
    which the 2-job run inflates by the other worker's load."""
    out = []
    with ProcessPoolExecutor(max_workers=1) as pool:
        for stem in stems:
            before, (_path, rows), after = pool.map(_run_task, [None, str(corpus / f"{stem}.py"),
                                                               None])
            alone_peer = (before + after) / 2
            for kernel, _status, seconds, _f, _c in rows:
                ref = seconds * scale
                out.append(f"{stem}:{kernel}: {seconds:.2f} s = {seconds / alone_peer:.1f} x "
                           f"the peer alone ({alone_peer:.3f} s); {ref:.2f} s on the reference "
                           f"machine   {'ok' if ref <= KERNEL_TARGET_S else 'MISSED'}")
    return out


if __name__ == "__main__":
    sys.exit(main())
