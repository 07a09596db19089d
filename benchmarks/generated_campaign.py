"""A long campaign over generated kernels (verikern.testing.generate):
each kernel runs on every requested backend that can express it and the
outputs are compared; every K-th kernel (one phase, so that its proof stays
short) is also proved, with one planted defect.

Prints kernels per second, mismatches per backend pair, generated kernels
the frontend rejected, wrong verdicts (generated kernels `failed`, planted
defects `proved`) and the rate of `unknown` on generated kernels (the
prover's precision figure). Findings (shrunk kernel files, saved launches)
go under --save-dir.

The seeds are split into --jobs shards run by as many worker processes
(seed s goes to shard s % jobs), for a machine's cores.

    python benchmarks/generated_campaign.py [--kernels N] [--seed S] [--jobs 2]
        [--backends cpu,cpu:native,warp,cuda] [--prove-every K] [--budget B]
        [--save-dir DIR] [--json OUT]
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


def _shard(args) -> dict:
    shard, jobs, opts = args
    from verikern.testing.generate.campaign import run_campaign  # lazy: in the worker process

    seeds = [s for s in range(opts["seed"], opts["seed"] + opts["kernels"]) if s % jobs == shard]
    with tempfile.TemporaryDirectory(prefix=f"verikern-campaign-{shard}-") as work:
        tally = run_campaign(seeds, opts["backends"], work, save_dir=opts["save_dir"],
                             prove_every=opts["prove_every"], budget=opts["budget"],
                             on_outcome=_progress(shard, len(seeds)))
    return {"kernels": tally.kernels, "compared": dict(tally.compared),
            "mismatches": dict(tally.mismatches), "dropped": dict(tally.dropped),
            "compile_errors": tally.compile_errors, "verdicts": dict(tally.verdicts),
            "defect_verdicts": dict(tally.defect_verdicts), "wrong": tally.wrong,
            "findings": [_finding(o) for o in tally.findings]}


def _progress(shard: int, total: int):
    done = [0]

    def show(o) -> None:
        done[0] += 1
        if o.mismatch is not None:
            print(f"[shard {shard}] MISMATCH {o.mismatch.left} vs {o.mismatch.right}: "
                  f"{o.reproduce}", flush=True)
        if o.compile_error:
            print(f"[shard {shard}] COMPILE ERROR {o.file}: {o.compile_error.splitlines()[0]}",
                  flush=True)
        for w in o.wrong_verdicts:
            print(f"[shard {shard}] WRONG VERDICT {w}", flush=True)
        if done[0] % 250 == 0:
            print(f"[shard {shard}] {done[0]}/{total} kernels", flush=True)
    return show


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
    ap.add_argument("--json", metavar="OUT")
    args = ap.parse_args()
    backends = [b.strip() for b in args.backends.split(",") if b.strip()]
    opts = {"seed": args.seed, "kernels": args.kernels, "backends": backends,
            "prove_every": args.prove_every, "budget": args.budget, "save_dir": args.save_dir}
    start = time.perf_counter()
    jobs = max(1, args.jobs)
    if jobs == 1:
        parts = [_shard((0, 1, opts))]
    else:
        with multiprocessing.get_context("spawn").Pool(jobs) as pool:
            parts = pool.map(_shard, [(k, jobs, opts) for k in range(jobs)])
    seconds = time.perf_counter() - start
    total: dict = {"kernels": 0, "compile_errors": 0, "wrong": [], "findings": []}
    for key in ("compared", "mismatches", "dropped", "verdicts", "defect_verdicts"):
        total[key] = {}
        for p in parts:
            for k, v in p[key].items():
                total[key][k] = total[key].get(k, 0) + v
    for p in parts:
        total["kernels"] += p["kernels"]
        total["compile_errors"] += p["compile_errors"]
        total["wrong"] += p["wrong"]
        total["findings"] += p["findings"]
    proved_total = sum(total["verdicts"].values())
    unknown = total["verdicts"].get("unknown", 0)
    print(f"generated kernels: {total['kernels']} in {seconds:.0f} s with {jobs} jobs "
          f"({total['kernels'] / seconds:.2f} kernels/s)")
    print("compared on: " + ", ".join(f"{b} {total['compared'].get(b, 0)}" for b in backends))
    for reason, n in sorted(total["dropped"].items()):
        print(f"  dropped out: {reason} ({n})")
    print("mismatches: " + ", ".join(f"{backends[0]} vs {b} "
                                     f"{total['mismatches'].get(f'{backends[0]} vs {b}', 0)}"
                                     for b in backends[1:]))
    print(f"generated kernels the frontend rejected: {total['compile_errors']}")
    print(f"prover on {proved_total} generated kernels: {total['verdicts']}; unknown rate "
          f"{100 * unknown / proved_total if proved_total else 0:.1f}% (budget {args.budget}M units)")
    print(f"prover on planted defects: {total['defect_verdicts']}")
    print(f"wrong verdicts: {total['verdicts'].get('failed', 0)} generated kernels failed, "
          f"{total['defect_verdicts'].get('proved', 0)} planted defects proved")
    if args.json:
        Path(args.json).write_text(json.dumps({**total, "seconds": seconds, "jobs": jobs,
                                               "backends": backends}, indent=1))
    bad = sum(total["mismatches"].values()) + total["compile_errors"] + len(total["wrong"])
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
