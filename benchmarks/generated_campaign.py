"""A long campaign over generated kernels (verikern.testing.generate):
each kernel runs on every requested backend that can express it and the
outputs are compared; every K-th kernel (one phase, so that its proof stays
short) is also proved, with one planted defect.

Prints kernels per second, mismatches per backend pair, generated kernels
the frontend rejected, wrong verdicts (generated kernels `failed`, planted
defects `proved`) and the rate of `unknown` on generated kernels (the
prover's precision figure). Findings (shrunk kernel files, saved launches)
go under --save-dir.

The seeds are split into chunks (--chunk, 50) run by --jobs worker processes (for
a machine's cores); the running totals are printed (and written to --json)
after every chunk, so a campaign stopped early still reports.

    python benchmarks/generated_campaign.py [--kernels N] [--seed S] [--jobs 2]
        [--backends cpu,cpu:native,warp,cuda] [--prove-every K] [--budget B]
        [--save-dir DIR] [--shrink-budget N] [--chunk N] [--json OUT]
"""
from __future__ import annotations

import argparse
import json
import multiprocessing
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))


def _chunk(args) -> dict:
    """Run the kernels of seeds `seeds` (in a worker process); their totals."""
    seeds, opts = args
    from verikern.testing.generate.campaign import run_campaign  # lazy: in the worker process

    with tempfile.TemporaryDirectory(prefix="verikern-campaign-") as work:
        tally = run_campaign(seeds, opts["backends"], work, save_dir=opts["save_dir"],
                             prove_every=opts["prove_every"], budget=opts["budget"],
                             on_outcome=_show, shrink_budget=opts["shrink_budget"])
    return {"kernels": tally.kernels, "compared": dict(tally.compared),
            "mismatches": dict(tally.mismatches), "dropped": dict(tally.dropped),
            "compile_errors": tally.compile_errors, "verdicts": dict(tally.verdicts),
            "defect_verdicts": dict(tally.defect_verdicts), "wrong": tally.wrong,
            "findings": [_finding(o) for o in tally.findings]}


def _show(o) -> None:
    if o.mismatch is not None:
        print(f"MISMATCH {o.mismatch.left} vs {o.mismatch.right}: {o.reproduce}", flush=True)
    if o.compile_error:
        print(f"COMPILE ERROR {o.file}: {o.compile_error.splitlines()[0]}", flush=True)
    for w in o.wrong_verdicts:
        print(f"WRONG VERDICT {w}", flush=True)


def _finding(o) -> dict:
    return {"seed": o.program.seed, "file": o.file, "mismatch": None if o.mismatch is None else
            f"{o.mismatch.left} vs {o.mismatch.right}", "reproduce": o.reproduce,
            "compile_error": o.compile_error, "wrong": o.wrong_verdicts}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kernels", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--backends", default="cpu,cpu:native,warp")
    ap.add_argument("--prove-every", type=int, default=50)
    ap.add_argument("--budget", type=float, default=2.0)
    ap.add_argument("--save-dir", default=".verikern-campaign")
    ap.add_argument("--shrink-budget", type=int, default=60)
    ap.add_argument("--chunk", type=int, default=50, help="kernels per reported chunk")
    ap.add_argument("--json", metavar="OUT")
    args = ap.parse_args()
    backends = [b.strip() for b in args.backends.split(",") if b.strip()]
    opts = {"seed": args.seed, "kernels": args.kernels, "backends": backends,
            "prove_every": args.prove_every, "budget": args.budget, "save_dir": args.save_dir,
            "shrink_budget": args.shrink_budget}
    start = time.perf_counter()
    jobs = max(1, args.jobs)
    seeds = list(range(args.seed, args.seed + args.kernels))
    chunks = [(seeds[k:k + args.chunk], opts) for k in range(0, len(seeds), args.chunk)]
    total: dict = {"kernels": 0, "compile_errors": 0, "wrong": [], "findings": [],
                   **{key: {} for key in COUNTERS}}
    with multiprocessing.get_context("spawn").Pool(jobs) as pool:
        for part in pool.imap_unordered(_chunk, chunks):
            _add(total, part)
            seconds = time.perf_counter() - start
            print(_summary(total, seconds, jobs, backends, args.budget), flush=True)
            if args.json:
                Path(args.json).write_text(json.dumps(
                    {**total, "seconds": seconds, "jobs": jobs, "backends": backends}, indent=1))
    bad = sum(total["mismatches"].values()) + total["compile_errors"] + len(total["wrong"])
    return 1 if bad else 0


COUNTERS = ("compared", "mismatches", "dropped", "verdicts", "defect_verdicts")


def _add(total: dict, part: dict) -> None:
    for key in COUNTERS:
        for k, v in part[key].items():
            total[key][k] = total[key].get(k, 0) + v
    total["kernels"] += part["kernels"]
    total["compile_errors"] += part["compile_errors"]
    total["wrong"] += part["wrong"]
    total["findings"] += part["findings"]


def _summary(total: dict, seconds: float, jobs: int, backends, budget: float) -> str:
    """The running totals, as `verikern fuzz --generate` prints them."""
    from collections import Counter  # lazy: only for the summary

    from verikern.cli.fuzz_generate import summary  # lazy: after the workers started
    from verikern.testing.generate.campaign import Tally  # lazy: after the workers started

    tally = Tally(total["kernels"], *(Counter(total[k]) for k in ("compared", "mismatches", "dropped")),
                  total["compile_errors"], Counter(total["verdicts"]),
                  Counter(total["defect_verdicts"]), list(total["wrong"]))
    return f"--- {jobs} jobs, solver budget {budget}M units\n" + summary(tally, seconds, backends)


if __name__ == "__main__":
    raise SystemExit(main())
