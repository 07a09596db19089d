"""`verikern prove` spends the same z3 units on every query of a kernel
whether it proves the file alone, a list of files in another order, or the
same files with `--jobs 2`, under any hash seed: every query's answer and
unit count (its `-vv` line) is the same, so a kernel at the edge of a budget
gets the same verdict everywhere, and so does the whole report.

The kernels are among the corpus's nearest to a budget (measured with -vv on
the whole corpus, session 32; the prover's work per query fell since the first
choice, whose 4-d launch's admissibility took 9.7 of its 10 million units and
now 0.7): the block segments, whose race probe runs out at its 1.5 million
cap, and two failing kernels with the most queries whose every query names its
kernel (a counterexample search's peeled copy logs its queries as `peeled.N`,
which two jobs interleave): the 3x3 convolution without its pad check (107
queries, a 1.9 million exact query) and the wrapping window guard (78, 1.9
million)."""
from __future__ import annotations

import json
import re
import subprocess
import sys

from shared_helpers import ROOT
sys.path.insert(0, str(ROOT / "benchmarks"))
from determinism import differences, strip_timing  # noqa: E402

CORPUS = ROOT / "tests" / "corpus"
NEAR_BUDGET = [str(CORPUS / name) for name in (
    "bounds_conv3x3_missing_pad_check.py", "ok_block_segments_range.py",
    "bounds_factory_window_guard_wraps.py")]
#: A query's -vv line: `verikern.proofs.solver: FILE.KERNEL.[PART.]N.TOPIC: ANSWER (N z3 units)`.
QUERY = re.compile(r"^verikern\.proofs\.solver: (?P<file>[^.]+)\.(?P<kernel>[^.]+)\.(?P<rest>.+ z3 units\))$")


def _prove(paths: list[str], jobs: int, hash_seed: str) -> tuple[dict, dict[tuple[str, str], list[str]]]:
    """The JSON report (without timing) and every kernel's queries in order:
    (file stem, kernel) -> [`N.TOPIC: ANSWER (N z3 units)`]."""
    env = {"PYTHONHASHSEED": hash_seed, "PATH": "/usr/bin:/bin"}
    proc = subprocess.run([sys.executable, "-m", "verikern.cli", "prove", *paths, "-vv",
                           "--format", "json", "--jobs", str(jobs), "--no-cache"],
                          capture_output=True, text=True, cwd=ROOT, env=env, timeout=900)
    assert proc.returncode in (0, 1), proc.stderr[-2000:]
    queries: dict[tuple[str, str], list[str]] = {}
    for line in proc.stderr.splitlines():
        m = QUERY.match(line)
        if m:
            queries.setdefault((m["file"], m["kernel"]), []).append(m["rest"])
    report = strip_timing(json.loads(proc.stdout))
    # in the order of the paths
    report["kernels"].sort(key=lambda k: (k["file"], k["kernel"]))
    report["sources"].sort(key=lambda source: source["path"])
    return report, queries


def test_every_query_costs_the_same_units_alone_in_another_order_and_with_two_jobs():
    together, units = _prove(NEAR_BUDGET, jobs=1, hash_seed="0")
    assert {k["kernel"]: k["status"] for k in together["kernels"]} == {
        "conv3x3_no_pad": "failed", "scale_segments": "proved", "window_mean": "failed"}
    assert len(units) == 3 and all(len(q) > 20 for q in units.values())
    # the near-edge queries are there: a probe that spends its whole 1.5 million cap without
    # an answer, and exact queries of the suggestion search past 1.5 million units
    conv = units[("bounds_conv3x3_missing_pad_check", "conv3x3_no_pad")]
    assert any("suggest.exact" in q and int(q.split("(")[-1].split()[0]) > 1_500_000 for q in conv)
    segments = units[("ok_block_segments_range", "scale_segments")]
    assert any(q.endswith("unknown (1500000 z3 units)") for q in segments)

    reversed_two_jobs = _prove(NEAR_BUDGET[::-1], jobs=2, hash_seed="1")
    alone = _prove(NEAR_BUDGET[1:2], jobs=1, hash_seed="random")
    assert reversed_two_jobs[1] == units
    assert differences(together, reversed_two_jobs[0]) == []
    key = ("ok_block_segments_range", "scale_segments")
    assert alone[1] == {key: units[key]}
    assert alone[0]["kernels"] == [k for k in together["kernels"] if k["kernel"] == key[1]]
