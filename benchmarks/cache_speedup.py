"""The proof cache's speed-up: prove a corpus twice through the command line
with one fresh cache folder and print both wall times and their ratio
(the target is at least 20x: an unchanged kernel is not proved again).

    python benchmarks/cache_speedup.py [--jobs 2] [PATH ...]

Also checks that the second report equals the first apart from timing
fields and the "cached" flags (every verdict of the second run cached);
exits 1 when it does not or when the ratio is below the target. The cache
key includes a hash of verikern's own code, so run it on a tree nobody edits
meanwhile (an edit between the runs makes every entry stale, by design).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
from determinism import differences, strip_timing  # noqa: E402

TARGET = 20.0


def run(paths, jobs: int, cache_dir: str) -> tuple[dict, float]:
    env = dict(os.environ)
    env.pop("VERIKERN_NO_CACHE", None)
    cmd = [sys.executable, "-m", "verikern.cli", "prove", *paths, "--format", "json",
           "--jobs", str(jobs), "--cache-dir", cache_dir]
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=ROOT)
    seconds = time.perf_counter() - start
    if proc.returncode not in (0, 1, 2):
        sys.exit(f"verikern prove failed ({proc.returncode}):\n{proc.stderr}")
    return json.loads(proc.stdout), seconds


def _uncached(report: dict) -> dict:
    return strip_timing({**report, "kernels": [{k: v for k, v in kern.items() if k != "cached"}
                                               for kern in report["kernels"]]})


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", default=[str(ROOT / "tests" / "corpus")])
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="verikern-cache-") as cache_dir:
        cold, cold_s = run(args.paths, args.jobs, cache_dir)
        warm, warm_s = run(args.paths, args.jobs, cache_dir)
    ratio = cold_s / warm_s
    compiled = [k for k in warm["kernels"] if k["status"] != "error"]
    all_cached = all(k["cached"] for k in compiled) and not any(k["cached"] for k in cold["kernels"])
    diff = differences(_uncached(cold), _uncached(warm))
    print(f"kernels: {len(cold['kernels'])}; first run (cold cache) {cold_s:.2f} s; second run "
          f"{warm_s:.2f} s; speed-up {ratio:.1f}x (target >= {TARGET:g}x)")
    print(f"second run: every verdict from the cache: {all_cached}; reports equal apart from "
          f"timing and 'cached': {not diff}")
    for d in diff[:20]:
        print("  differs:", d)
    return 0 if ratio >= TARGET and all_cached and not diff else 1


if __name__ == "__main__":
    sys.exit(main())
