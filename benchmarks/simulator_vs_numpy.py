"""Simulator throughput next to plain numpy, on saxpy and Möller–Trumbore
ray–triangle intersection (vec3 arrays), at n = 2**22 threads.

Run:  python benchmarks/simulator_vs_numpy.py [--n N] [--repeat R]
Prints, per kernel, the best-of-R time and threads/s of the simulator
(device "cpu" via vk.launch, including the launch checks) and of the same
computation written as numpy expressions, the ratio, and whether the results
agree exactly.
"""
from __future__ import annotations

import argparse
import os
import tempfile
import time

import numpy as np

SOURCE = '''
import verikern as vk

@vk.kernel
def saxpy(x: vk.array(dtype=vk.float32), y: vk.array(dtype=vk.float32), a: vk.float32):
    i = vk.tid()
    if i < x.shape[0]:
        y[i] = a * x[i] + y[i]

@vk.kernel
def ray_triangle(orig: vk.array(dtype=vk.vec3), dirs: vk.array(dtype=vk.vec3),
                 v0: vk.array(dtype=vk.vec3), v1: vk.array(dtype=vk.vec3),
                 v2: vk.array(dtype=vk.vec3), t_out: vk.array(dtype=vk.float32)):
    i = vk.tid()
    if i < t_out.shape[0]:
        d = dirs[i]
        a = v0[i]
        e1 = v1[i] - a
        e2 = v2[i] - a
        p = vk.cross(d, e2)
        det = vk.dot(e1, p)
        inv = 1.0 / det
        s = orig[i] - a
        u = vk.dot(s, p) * inv
        q = vk.cross(s, e1)
        v = vk.dot(d, q) * inv
        t = vk.dot(e2, q) * inv
        ok = abs(det) > 1e-8
        ok = ok and u >= 0.0
        ok = ok and v >= 0.0
        ok = ok and u + v <= 1.0
        ok = ok and t > 0.0
        t_out[i] = t if ok else -1.0
'''


def load_kernels():
    from verikern.frontend import compile_file
    path = os.path.join(tempfile.mkdtemp(prefix="vk_bench_"), "bench_kernels.py")
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(SOURCE)
    res = compile_file(path)
    out = {}
    for k in res.kernels:
        if k.mir is None:
            raise SystemExit(f"benchmark kernel {k.name} did not compile:\n{k.error}")
        out[k.name] = k.mir
    return out


def _dot(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def _cross(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def _sub(a, b):
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


def ray_triangle_numpy(orig, dirs, v0, v1, v2):
    """The kernel's arithmetic, in the same order, as numpy float32 expressions."""
    cols = [tuple(m[:, c] for c in range(3)) for m in (orig, dirs, v0, v1, v2)]
    o, d, a, b, c = cols
    e1, e2 = _sub(b, a), _sub(c, a)
    p = _cross(d, e2)
    det = _dot(e1, p)
    with np.errstate(all="ignore"):
        inv = np.float32(1.0) / det
        s = _sub(o, a)
        u = _dot(s, p) * inv
        q = _cross(s, e1)
        v = _dot(d, q) * inv
        t = _dot(e2, q) * inv
        ok = (np.abs(det) > np.float32(1e-8)) & (u >= 0) & (v >= 0) & (u + v <= 1) & (t > 0)
    return np.where(ok, t, np.float32(-1.0))


def best_time(fn, repeat):
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=2 ** 22)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    from verikern.runtime import launch

    n = args.n
    kernels = load_kernels()
    rng = np.random.default_rng(0)
    rows = []

    # saxpy -------------------------------------------------------------
    x = rng.random(n, dtype=np.float32)
    y0 = rng.random(n, dtype=np.float32)
    y = y0.copy()
    a = np.float32(2.5)

    def sim_saxpy():
        y[:] = y0
        launch(kernels["saxpy"], n, [x, y, a], block_dim=256)

    def np_saxpy():
        return a * x + y0
    # the simulator updates y in place, so each run first restores y (timed
    # separately and subtracted)
    t_sim = best_time(sim_saxpy, args.repeat) - best_time(lambda: y.__setitem__(slice(None), y0),
                                                          args.repeat)
    t_np = best_time(np_saxpy, args.repeat)
    sim_saxpy()
    rows.append(("saxpy", t_sim, t_np, np.array_equal(y, np_saxpy())))

    # Möller–Trumbore --------------------------------------------------------
    v0 = rng.random((n, 3), dtype=np.float32)
    v1 = v0 + rng.random((n, 3), dtype=np.float32)
    v2 = v0 + rng.random((n, 3), dtype=np.float32)
    orig = rng.random((n, 3), dtype=np.float32) * 2 - 0.5
    orig[:, 2] -= 3.0
    target = (v0 + v1 + v2) / 3 + (rng.random((n, 3), dtype=np.float32) - 0.5)
    dirs = (target - orig).astype(np.float32)
    t_out = np.zeros(n, np.float32)

    def sim_mt():
        launch(kernels["ray_triangle"], n, [orig, dirs, v0, v1, v2, t_out], block_dim=256)

    def np_mt():
        return ray_triangle_numpy(orig, dirs, v0, v1, v2)
    t_sim = best_time(sim_mt, args.repeat)
    t_np = best_time(np_mt, args.repeat)
    ref = np_mt()
    rows.append(("moller_trumbore", t_sim, t_np, np.array_equal(t_out, ref)))
    hits = float(np.mean(ref >= 0))

    print(f"n = {n} threads, best of {args.repeat}")
    print(f"{'kernel':<17}{'simulator s':>12}{'Mthreads/s':>12}{'numpy s':>10}"
          f"{'Mthreads/s':>12}{'ratio':>8}  exact")
    for name, ts, tn, same in rows:
        print(f"{name:<17}{ts:>12.4f}{n / ts / 1e6:>12.1f}{tn:>10.4f}{n / tn / 1e6:>12.1f}"
              f"{ts / tn:>8.2f}  {'yes' if same else 'NO'}")
    print(f"(ray-triangle hit rate {hits:.0%})")
    return rows


if __name__ == "__main__":
    main()
