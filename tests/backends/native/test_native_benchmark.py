"""benchmarks/native_vs_warp.py: the columns "checked" and "proved-unchecked"
with their ratios, both modes checked against numpy, one core fixed with
--threads, ray-triangle's memory floor (the same bytes without the
arithmetic); the timing order turns each round so no column always follows
a long run."""
from __future__ import annotations

import importlib
import re
import subprocess
import sys

import llvmlite.binding as llvm
import numpy as np
import pytest

import verikern as vk
from shared_helpers import ROOT
from verikern.app.native_proved import unchecked_for
from verikern.backends.native.jit import compile_kernel
from verikern.frontend import compile_file

BENCH = ROOT / "benchmarks" / "native_vs_warp.py"
AVX512 = bool(llvm.get_host_cpu_features().get("avx512f", False))


def _bench_module():
    if str(BENCH.parent) not in sys.path:
        sys.path.insert(0, str(BENCH.parent))
    return importlib.import_module("native_vs_warp")


def test_every_function_is_timed_in_every_place_of_the_round():
    order: list[str] = []
    fns = {name: (lambda name=name: order.append(name)) for name in "abc"}
    ticks = iter(range(1000))
    best = _bench_module().best_interleaved(fns, 3, clock=lambda: next(ticks))
    rounds = [order[k:k + 3] for k in range(0, 9, 3)]
    assert rounds == [["a", "b", "c"], ["b", "c", "a"], ["c", "a", "b"]]
    assert best == {"a": 1, "b": 1, "c": 1}     # each call spans one tick of the fake clock


def test_the_benchmark_prints_both_modes_their_ratios_and_agreement():
    proc = subprocess.run(
        [sys.executable, str(BENCH), "--n", "4096", "--repeat", "2", "--no-sim",
         "--threads", "1", "--clock", "cpu"],
        capture_output=True, text=True, timeout=600)
    out = proc.stdout
    assert proc.returncode == 0, proc.stderr
    assert "cpu:native threads = 1" in out
    header = next(line for line in out.splitlines() if line.startswith("kernel"))
    assert header.split() == ["kernel", "checked", "proved-unchecked", "simulator", "warp",
                              "cpu", "numpy", "|", "unchk/chk", "unchk/warp", "unchk/numpy",
                              "chk/warp"]
    for case in ("saxpy", "ray_triangle", "gather", "stencil"):
        row = next(line for line in out.splitlines() if line.startswith(case + " "))
        cells = row.split()
        checked, unchecked, ratio = float(cells[1]), float(cells[2]), float(cells[7])
        assert ratio == pytest.approx(unchecked / checked, rel=0.01, abs=0.002)
        note = next(line for line in out.splitlines() if line.startswith(case + ":"))
        assert "agrees with numpy on 100.00% (checked) and 100.00% (proved-unchecked)" in note
        assert re.search(r"proof [0-9.]+ s removing [1-9]\d* index check", note), note
        if AVX512 and case in ("saxpy", "ray_triangle"):
            assert "checked vectorised, proved-unchecked vectorised" in note
        if AVX512 and case == "stencil":    # the proved checks kept it from vectorising
            assert "checked scalar, proved-unchecked vectorised" in note
        if case == "gather":                # a vector loop would gather: it stays scalar
            assert "checked scalar, proved-unchecked scalar" in note
    floor = next(line for line in out.splitlines() if line.startswith("ray_triangle memory floor"))
    assert "the same 64 bytes per ray" in floor and "agrees with numpy on 100.00%" in floor
    assert re.search(r"ran at [0-9.]+ M rays/s = [0-9.]+ GB/s", floor), floor
    assert re.search(r"4 times warp cpu would need [0-9.]+ M rays/s", floor) or \
        "warp-lang is not installed" in out
    assert re.search(r"load average \(1 min\) at the end: [0-9.]+ on \d+ cores", out)


def test_the_memory_floor_kernel_is_ray_triangles_traffic_proved_and_vectorised():
    """benchmarks/kernels/ray_traffic.py reads the five vec3 arrays and
    writes t_hit as ray-triangle does, with every index check proved away
    and a vector thread loop (so that it measures memory, not checks)."""
    k = compile_file(ROOT / "benchmarks" / "kernels" / "ray_traffic.py").kernel(
        "ray_traffic").mir
    unchecked = unchecked_for(k)
    assert len(unchecked) == 6           # five vec3 loads and the store
    if AVX512:
        assert "vector.body" in compile_kernel(k, unchecked=unchecked).optimized_ir
    n = 3001
    rng = np.random.default_rng(5)
    arrays = [rng.standard_normal((n, 3)).astype(np.float32) for _ in range(5)]
    got, sim = np.zeros(n, np.float32), np.zeros(n, np.float32)
    vk.launch(k, n, arrays + [got], device="cpu:native:proved")
    vk.launch(k, n, arrays + [sim], device="cpu")
    np.testing.assert_array_equal(got, sim)
    s = arrays[0] + arrays[1] + arrays[2] + arrays[3] + arrays[4]
    np.testing.assert_array_equal(got, s[:, 0] + s[:, 1] + s[:, 2])
