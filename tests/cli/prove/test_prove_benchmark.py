"""benchmarks/prove_corpus.py runs on a small corpus and reports each
kernel, the median and the total next to the targets, in seconds and as
multiples of a z3 peer measured in the same run."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[3] / "benchmarks" / "prove_corpus.py"

CASE = '''\
# expect: proved
# prove-args: --block-dim 64
import verikern as vk

@vk.kernel
def fill(x: vk.array(dtype=vk.float32)):
    i = vk.tid()
    if i < x.shape[0]:
        x[i] = 1.0
'''


def test_benchmark_reports_kernels_median_and_total(tmp_path):
    for name in ("a_fill", "b_fill"):
        (tmp_path / f"{name}.py").write_text(CASE)
    proc = subprocess.run([sys.executable, str(BENCH), "--corpus", str(tmp_path), "--jobs", "2"],
                          capture_output=True, text=True, timeout=240)
    out, code = proc.stdout, proc.returncode
    rows = [line.split() for line in out.splitlines() if line.startswith(("a_fill:", "b_fill:"))]
    assert [(r[0], r[1]) for r in rows] == [("a_fill:fill", "proved"), ("b_fill:fill", "proved")]
    assert all(float(r[2]) >= 0 for r in rows)
    assert "kernels: 2 in 2 files, one run with 2 jobs" in out
    assert "failed obligations confirmed by replay: 0 of 0" in out
    peer = re.search(r"z3 peer \(5 fixed queries.*\): ([0-9.]+) s \(median of 4;", out)
    assert peer and float(peer.group(1)) > 0, out
    median = re.search(r"median per kernel: +([0-9.]+) s = +([0-9.]+) x peer +target <= 0.44 x peer "
                       r"\(0.2 s on the reference machine\)", out)
    assert median, out
    # the ratio is the median over the peer's time (both as printed, rounded)
    assert abs(float(median.group(2)) - float(median.group(1)) / float(peer.group(1))) < 0.02
    assert "target < 133 x peer (60 s on the reference machine)" in out
    assert "over 2 s on the reference machine (4.4 x peer), 2 jobs: none" in out
    assert "proved again alone" not in out            # nothing over the target
    assert code == 0, proc.stderr


class _Replayed:
    """A stand-in for `_alone`'s ProcessPoolExecutor that gives back the
    results of the pool `recorded` (the same kernel's measurement), so a
    second `_alone` judges that measurement at another scale without
    starting a worker and measuring it again."""

    def __init__(self, recorded: list):
        self.recorded = recorded

    def __call__(self, max_workers):
        return self

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def map(self, fn, items):
        assert len(items) == len(self.recorded)
        return iter(self.recorded)


def test_a_kernel_over_the_target_is_proved_again_alone(tmp_path, monkeypatch):
    """`_alone`: the kernel proved in one worker between two peer samples;
    its line gives the seconds, the multiple of that peer and the seconds on
    the reference machine at the run's scale, judged against the target
    (scale 1: ok; the same measurement at scale 1e6, replayed: MISSED)."""
    import importlib

    (tmp_path / "a_fill.py").write_text(CASE)
    if str(BENCH.parent) not in sys.path:     # the workers import it by name
        sys.path.insert(0, str(BENCH.parent))
    bench = importlib.import_module("prove_corpus")
    real_pool, recorded = bench.ProcessPoolExecutor, []

    class Recording(real_pool):
        def map(self, fn, *iterables, **kw):
            recorded[:] = list(super().map(fn, *iterables, **kw))
            return iter(recorded)

    monkeypatch.setattr(bench, "ProcessPoolExecutor", Recording)
    (line,) = bench._alone(["a_fill"], tmp_path, scale=1.0)
    m = re.fullmatch(r"a_fill:fill: ([0-9.]+) s = ([0-9.]+) x the peer alone \(([0-9.]+) s\); "
                     r"([0-9.]+) s on the reference machine +ok", line)
    assert m, line
    assert m.group(1) == m.group(4)                       # scale 1: the same seconds
    assert len(recorded) == 3                             # peer, the kernel, peer
    monkeypatch.setattr(bench, "ProcessPoolExecutor", _Replayed(recorded))
    (slow,) = bench._alone(["a_fill"], tmp_path, scale=1e6)
    assert slow.endswith("MISSED"), slow
    assert slow.split(" s = ")[0] == line.split(" s = ")[0]     # the same measurement, judged again
