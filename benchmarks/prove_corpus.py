"""Prover benchmark over the shared corpus (tests/corpus/*.py).

One run over the corpus with 2 worker processes (`--jobs`): prints each
kernel's prove time (prove + replay, measured in its worker), the median and
the wall time of the whole run, each next to its target, and how many failed
obligations replay confirmed. Every case is
proved with its own `# prove-args:`.

    python benchmarks/prove_corpus.py [--jobs 2] [--corpus DIR]

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
TOTAL_TARGET_S = 60.0


def _kwargs(prove_args) -> dict:
    from verikern.cli.prove import command

    p = command.make_context("prove", ["<path>", *prove_args]).params
    return {"kernel": p["kernel"], "dims": p["dims"], "block_dim": p["block_dim"], "budget": p["budget"]}


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
    args = ap.parse_args(argv)
    files = [str(p) for p in sorted(args.corpus.glob("*.py"))]
    if not files:
        print(f"no corpus files in {args.corpus}", file=sys.stderr)
        return 1

    start = time.perf_counter()
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        results = list(pool.map(prove_case, files))
    total = time.perf_counter() - start

    times: list[float] = []
    failed = confirmed = 0
    print(f"{'file:kernel':<60} {'status':<8} {'seconds':>8}")
    for path, rows in results:
        for kernel, status, seconds, n_failed, n_confirmed in rows:
            times.append(seconds)
            failed += n_failed
            confirmed += n_confirmed
            print(f"{Path(path).stem + ':' + kernel:<60} {status:<8} {seconds:>8.3f}")
    median = statistics.median(times) if times else float("nan")
    median_ok = median < MEDIAN_TARGET_S
    total_ok = total < TOTAL_TARGET_S
    print()
    print(f"kernels: {len(times)} in {len(files)} files, one run with {args.jobs} jobs")
    print(f"failed obligations confirmed by replay: {confirmed} of {failed}")
    print(f"median per kernel:    {median:8.3f} s   target < {MEDIAN_TARGET_S} s   {'ok' if median_ok else 'MISSED'}")
    print(f"whole corpus, {args.jobs} jobs: {total:8.3f} s   target < {TOTAL_TARGET_S:.0f} s    "
          f"{'ok' if total_ok else 'MISSED'}")
    return 0 if median_ok and total_ok else 1


if __name__ == "__main__":
    sys.exit(main())
