"""Same answer everywhere: prove the corpus and the examples twice -- the
second time with CPU-burning processes in the background and another hash
seed -- and compare the JSON reports, which must be identical apart from
timing fields.

    python benchmarks/determinism.py [--jobs 2] [--burners 2] [PATH ...]

Prints both wall times and their ratio (the load's cost, measured in the same
run) and every difference; exits 1 when the reports differ, or when a kernel
that was decided in the quiet run turned `unknown` under load.
"""
from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_PATHS = [str(ROOT / "tests" / "corpus"), str(ROOT / "examples")]
#: Report keys that measure time, not the answer.
TIMING_KEYS = frozenset({"seconds"})


def strip_timing(node):
    """`node` (a parsed JSON report) without its timing fields."""
    if isinstance(node, dict):
        return {k: strip_timing(v) for k, v in node.items() if k not in TIMING_KEYS}
    if isinstance(node, list):
        return [strip_timing(v) for v in node]
    return node


def differences(a, b, path: str = "") -> list[str]:
    """Where two stripped reports differ (JSON paths), first ones first."""
    if type(a) is not type(b):
        return [f"{path or '/'}: {a!r} != {b!r}"]
    if isinstance(a, dict):
        out = []
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                out.append(f"{path}/{k}: only in the {'first' if k in a else 'second'} run")
            else:
                out += differences(a[k], b[k], f"{path}/{k}")
        return out
    if isinstance(a, list):
        if len(a) != len(b):
            return [f"{path}: {len(a)} items != {len(b)} items"]
        return [d for i, (x, y) in enumerate(zip(a, b)) for d in differences(x, y, f"{path}[{i}]")]
    return [] if a == b else [f"{path}: {a!r} != {b!r}"]


def prove_json(paths: list[str], jobs: int, hash_seed: int) -> tuple[dict, float]:
    """The parsed `verikern prove --format json` report and its wall time."""
    env = dict(os.environ, PYTHONHASHSEED=str(hash_seed))
    cmd = [sys.executable, "-m", "verikern.cli", "prove", *paths, "--format", "json",
           "--jobs", str(jobs), "--no-cache"]
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=ROOT)
    seconds = time.perf_counter() - start
    if proc.returncode not in (0, 1, 2):
        raise SystemExit(f"verikern prove failed (exit {proc.returncode}):\n{proc.stderr[-2000:]}")
    return json.loads(proc.stdout), seconds


def _burn(stop) -> None:
    x = 0
    while not stop.is_set():
        for _ in range(100_000):
            x = (x * 1103515245 + 12345) & 0xFFFFFFFF


class Burners:
    """`n` processes that keep CPUs busy while the block runs."""

    def __init__(self, n: int):
        self.n = n
        self.stop = mp.Event()
        self.procs: list[mp.Process] = []

    def __enter__(self):
        for _ in range(self.n):
            p = mp.Process(target=_burn, args=(self.stop,), daemon=True)
            p.start()
            self.procs.append(p)
        return self

    def __exit__(self, *exc):
        self.stop.set()
        for p in self.procs:
            p.join(10)
            if p.is_alive():
                p.terminate()


def turned_unknown(quiet: dict, loaded: dict) -> list[str]:
    """Kernels decided in the quiet run that are `unknown` in the loaded one."""
    before = {(k["file"], k["kernel"]): k["status"] for k in quiet.get("kernels", [])}
    return [f"{f}::{name}" for k in loaded.get("kernels", [])
            for f, name in [(k["file"], k["kernel"])]
            if k["status"] == "unknown" and before.get((f, name)) in ("proved", "failed")]


def compare_runs(paths: list[str], jobs: int, burners: int) -> tuple[list[str], list[str], float, float]:
    """(differences, kernels turned unknown, quiet seconds, loaded seconds)."""
    quiet, t_quiet = prove_json(paths, jobs, hash_seed=1)
    with Burners(burners):
        loaded, t_loaded = prove_json(paths, jobs, hash_seed=2)
    return (differences(strip_timing(quiet), strip_timing(loaded)),
            turned_unknown(quiet, loaded), t_quiet, t_loaded)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="*", default=DEFAULT_PATHS)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--burners", type=int, default=2, help="CPU-burning processes in the second run")
    args = ap.parse_args(argv)
    diffs, unknown, t_quiet, t_loaded = compare_runs(args.paths, args.jobs, args.burners)
    print(f"quiet run: {t_quiet:.1f} s; loaded run ({args.burners} burners): {t_loaded:.1f} s; "
          f"ratio {t_loaded / t_quiet:.2f}")
    if unknown:
        print(f"{len(unknown)} kernel(s) turned unknown under load: " + ", ".join(unknown))
    if diffs:
        print(f"the reports differ in {len(diffs)} place(s):")
        for d in diffs[:40]:
            print("  " + d)
        return 1
    print("identical reports (apart from timing fields)" + ("" if not unknown else ", but see above"))
    return 1 if unknown else 0


if __name__ == "__main__":
    sys.exit(main())
