"""Throughput of cpu:native against the simulator, NVIDIA Warp's CPU backend
and numpy, on saxpy, Moller-Trumbore ray-triangle intersection, a
neighbour gather (out[i] = x[idx[i]], idx within 8 of i, under
vk.all_in_range) and a column stencil (benchmarks/kernels/column_stencil.py,
out[i] = x[i - w] + x[i] + x[i + w], w = 1024).

Run: python benchmarks/native_vs_warp.py [--n 4194304] [--repeat 5] [--no-sim]
     [--threads K] [--clock wall|cpu]

cpu:native runs in two modes: "checked" (device "cpu:native": every index
checked at run time) and "proved-unchecked" (device "cpu:native:proved":
the checks whose bounds obligations are proved are left out). Each column
is the best of --repeat timed launches, the columns timed in turn round by
round (in an order that turns each round) so they see the same machine load (compile / JIT / proof time
excluded and printed separately; the simulator runs once). The ratio columns are
speed(proved-unchecked) / speed(other): >= 1.0 means cpu:native is at least
as fast; "unchk/chk" is proved-unchecked over checked. Both cpu:native
modes are checked against numpy before timing. Warp's CPU backend runs a
launch on one thread: `--threads 1 --clock cpu` compares one core with one
core (steady under load); the default uses every core for cpu:native.
"""
from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def load_example(name: str):
    import importlib.util

    path = ROOT / "examples" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"vk_bench_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def best_of(fn, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def best_interleaved(fns: dict, repeat: int, clock=time.perf_counter) -> dict:
    """The best time of each function, timed in turn (one run of each per
    round, `repeat` rounds), so that every column sees the same machine
    load -- on a shared machine the load changes within seconds; the order
    turns each round (use repeat >= the number of functions). `clock`:
    wall time, or time.process_time (CPU seconds of every thread of this
    process: what a run costs, not how long it waits for a core)."""
    best = {name: float("inf") for name in fns}
    names = list(fns)
    for r in range(repeat):
        # the order turns each round: the function timed right after a long
        # one (numpy's ray-triangle, 0.2-0.7 s) measured up to 2x slower in
        # wall time on a loaded machine (the scheduler charges this process
        # for the long run), so no column may always take that place
        for name in names[r % len(names):] + names[:r % len(names)]:
            fn = fns[name]
            start = clock()
            fn()
            best[name] = min(best[name], clock() - start)
    return best


# ------------------------------------------------------------------- numpy
def numpy_saxpy(inp):
    return inp["a"] * inp["x"] + inp["y"]


def numpy_gather(inp):
    return inp["x"][inp["idx"]]


def gather_inputs(rng, n):
    """x and, for each i, an index within 8 of i (clamped to the array)."""
    idx = np.minimum(np.arange(n) + rng.integers(0, 8, n), n - 1).astype(np.int32)
    return {"x": rng.standard_normal(n).astype(np.float32), "idx": idx}


GATHER_SOURCE = ROOT / "verikern" / "selftest_corpus" / "ok_gather_in_range.py"
STENCIL_SOURCE = ROOT / "benchmarks" / "kernels" / "column_stencil.py"
STENCIL_WIDTH = 1024
#: ray-triangle's reads and writes without its arithmetic: the memory floor
TRAFFIC_SOURCE = ROOT / "benchmarks" / "kernels" / "ray_traffic.py"
#: bytes a ray reads (five vec3 of float32) and writes (one float32); the
#: write's read for ownership, if the cache does one, is not counted
RAY_BYTES = 5 * 12 + 4


def numpy_stencil(inp):
    x, w = inp["x"], STENCIL_WIDTH
    out = np.zeros_like(x)
    out[w:-w] = x[:-2 * w] + x[w:-w] + x[2 * w:]
    return out


def numpy_ray_triangle(inp):
    o, d = inp["origins"], inp["directions"]
    v0, v1, v2 = inp["v0"], inp["v1"], inp["v2"]
    e1, e2 = v1 - v0, v2 - v0
    p = np.cross(d, e2)
    det = np.einsum("ij,ij->i", e1, p)
    with np.errstate(divide="ignore", invalid="ignore"):
        inv = np.float32(1.0) / det
        s = o - v0
        u = np.einsum("ij,ij->i", s, p) * inv
        q = np.cross(s, e1)
        v = np.einsum("ij,ij->i", d, q) * inv
        t = np.einsum("ij,ij->i", e2, q) * inv
    ok = (np.abs(det) > 1e-8) & (u >= 0) & (u <= 1) & (v >= 0) & (u + v <= 1) & (t > 1e-6)
    return np.where(ok, t, np.float32(-1.0))


# -------------------------------------------------------------------- warp
def warp_kernels():
    try:
        import warp as wp
    except ImportError:
        return None
    wp.config.quiet = True
    wp.init()

    @wp.kernel
    def saxpy(x: wp.array(dtype=wp.float32), y: wp.array(dtype=wp.float32), a: wp.float32):
        i = wp.tid()
        if i < x.shape[0]:
            y[i] = a * x[i] + y[i]

    @wp.kernel
    def gather(x: wp.array(dtype=wp.float32), idx: wp.array(dtype=wp.int32),
               out: wp.array(dtype=wp.float32)):
        i = wp.tid()
        if i < idx.shape[0] and i < out.shape[0]:
            out[i] = x[idx[i]]

    @wp.kernel
    def column_stencil(x: wp.array(dtype=wp.float32), out: wp.array(dtype=wp.float32),
                       w: wp.int32):
        i = wp.tid()
        if i < out.shape[0]:
            if i >= w and i < x.shape[0] - w:
                out[i] = x[i - w] + x[i] + x[i + w]

    @wp.kernel
    def intersect(origins: wp.array(dtype=wp.vec3), directions: wp.array(dtype=wp.vec3),
                  v0: wp.array(dtype=wp.vec3), v1: wp.array(dtype=wp.vec3),
                  v2: wp.array(dtype=wp.vec3), t_hit: wp.array(dtype=wp.float32)):
        i = wp.tid()
        if i < origins.shape[0]:
            o = origins[i]
            d = directions[i]
            a = v0[i]
            e1 = v1[i] - a
            e2 = v2[i] - a
            p = wp.cross(d, e2)
            det = wp.dot(e1, p)
            result = float(-1.0)
            if wp.abs(det) > 1.0e-8:
                inv = 1.0 / det
                s = o - a
                u = wp.dot(s, p) * inv
                if u >= 0.0 and u <= 1.0:
                    q = wp.cross(s, e1)
                    v = wp.dot(d, q) * inv
                    if v >= 0.0 and u + v <= 1.0:
                        t = wp.dot(e2, q) * inv
                        if t > 1.0e-6:
                            result = t
            t_hit[i] = result

    return wp, saxpy, intersect, gather, column_stencil


def bench_warp(wk, case: str, inp, n: int):
    """(one timed launch, seconds of the first launch with its build/load)."""
    wp, saxpy, intersect, gather, column_stencil = wk
    dev = "cpu"
    if case == "stencil":
        out = wp.zeros(n, dtype=wp.float32, device=dev)
        args = [wp.array(inp["x"], dtype=wp.float32, device=dev), out, STENCIL_WIDTH]
        kernel = column_stencil
    elif case == "gather":
        out = wp.zeros(n, dtype=wp.float32, device=dev)
        args = [wp.array(inp["x"], dtype=wp.float32, device=dev),
                wp.array(inp["idx"], dtype=wp.int32, device=dev), out]
        kernel = gather
    elif case == "saxpy":
        x = wp.array(inp["x"], dtype=wp.float32, device=dev)
        y = wp.array(inp["y"].copy(), dtype=wp.float32, device=dev)
        args = [x, y, float(inp["a"])]
        kernel, out = saxpy, y
    else:
        arrs = [wp.array(inp[k], dtype=wp.vec3, device=dev)
                for k in ("origins", "directions", "v0", "v1", "v2")]
        out = wp.zeros(n, dtype=wp.float32, device=dev)
        args, kernel = arrs + [out], intersect
    start = time.perf_counter()
    wp.launch(kernel, dim=n, inputs=args, device=dev)
    wp.synchronize()
    first = time.perf_counter() - start

    def once():
        wp.launch(kernel, dim=n, inputs=args, device=dev)
        wp.synchronize()

    return once, first


def traffic_twin(inp, n: int):
    """(one launch of ray_traffic on the ray-triangle inputs, on
    cpu:native:proved, fraction of its outputs that agree with numpy)."""
    import verikern as vk
    from verikern.frontend import compile_file

    mir = compile_file(TRAFFIC_SOURCE).kernel("ray_traffic").mir
    args = launch_inputs("ray_triangle", inp, n)
    vk.launch(mir, n, args, device="cpu:native:proved")     # proves it once
    arrays = [inp[k] for k in ("origins", "directions", "v0", "v1", "v2")]
    want = np.sum(arrays, axis=0, dtype=np.float32).sum(axis=1, dtype=np.float32)
    agree = float(np.mean(np.isclose(args[-1], want, rtol=1e-4, atol=1e-4)))
    return (lambda: vk.launch(mir, n, args, device="cpu:native:proved")), agree


def launch_inputs(case: str, inp, n: int) -> list:
    """The vk.launch argument list (arrays allocated once, outside the timing)."""
    if case == "saxpy":
        return [inp["x"], inp["y"].copy(), inp["a"]]
    if case == "gather":
        return [inp["x"], inp["idx"], np.zeros(n, np.float32)]
    if case == "stencil":
        return [inp["x"], np.zeros(n, np.float32), STENCIL_WIDTH]
    arrays = [inp[k] for k in ("origins", "directions", "v0", "v1", "v2")]
    return arrays + [np.zeros(n, np.float32)]


# -------------------------------------------------------------------- main
def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1 << 22)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--no-sim", action="store_true", help="skip the (slow) simulator")
    ap.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                    help="wall: elapsed time; cpu: CPU seconds of all of this process's threads "
                         "(steadier on a loaded machine; it counts both cpu:native workers, so "
                         "it hides their parallel speed-up)")
    ap.add_argument("--threads", type=int, default=None,
                    help="host threads for cpu:native (sets VERIKERN_NATIVE_THREADS; default: "
                         "every core). Warp's CPU backend runs a launch on one thread: "
                         "--threads 1 compares one core with one core")
    args = ap.parse_args()
    n = args.n

    import verikern as vk
    from verikern.app.native_proved import unchecked_for
    from verikern.backends.native import THREADS_ENV, compile_kernel, workers
    from verikern.frontend import compile_file

    if args.threads is not None:
        os.environ[THREADS_ENV] = str(args.threads)

    wk = warp_kernels()
    rng = np.random.default_rng(0)
    print(f"n = {n}, host cores = {os.cpu_count()}, cpu:native threads = {workers()}, "
          f"load average at start {os.getloadavg()[0]:.2f}")
    rows = []
    numpy_of = {"saxpy": numpy_saxpy, "ray_triangle": numpy_ray_triangle, "gather": numpy_gather,
                "stencil": numpy_stencil}
    for case, example, kname in (("saxpy", "saxpy", "saxpy"),
                                 ("ray_triangle", "ray_triangle", "intersect"),
                                 ("gather", None, "gather_checked"),
                                 ("stencil", None, "column_stencil")):
        if case == "gather":
            inp = gather_inputs(rng, n)
            handle = compile_file(GATHER_SOURCE).kernel(kname).mir
        elif case == "stencil":
            inp = {"x": rng.standard_normal(n).astype(np.float32)}
            handle = compile_file(STENCIL_SOURCE).kernel(kname).mir
        else:
            ex = load_example(example)
            inp = ex.make_inputs(rng, n)
            handle = getattr(ex, kname)
        mir = getattr(handle, "mir", handle)
        start = time.perf_counter()
        unchecked = unchecked_for(mir)
        prove_seconds = time.perf_counter() - start
        compiled = compile_kernel(mir)
        vector = {mode: "vector.body" in ck.optimized_ir for mode, ck in
                  (("checked", compiled), ("proved-unchecked", compile_kernel(mir, unchecked=unchecked)))}
        ref = numpy_of[case](inp)
        agree = {}
        contenders = {}
        for device in ("cpu:native", "cpu:native:proved"):
            launch_args = launch_inputs(case, inp, n)
            vk.launch(handle, n, launch_args, device=device)
            got = launch_args[1] if case in ("saxpy", "stencil") else launch_args[-1]
            agree[device] = float(np.mean(np.isclose(got, ref, rtol=1e-4, atol=1e-4)))
            contenders[device] = lambda h=handle, a=launch_args, d=device: vk.launch(h, n, a, device=d)
        contenders["numpy"] = lambda i=inp, c=case: numpy_of[c](i)
        if case == "ray_triangle":
            contenders["memory floor"], floor_agree = traffic_twin(inp, n)
        warp_first = None
        if wk is not None:
            contenders["warp"], warp_first = bench_warp(wk, case, inp, n)
        times = best_interleaved(contenders, args.repeat,
                                 time.process_time if args.clock == "cpu" else time.perf_counter)
        t_sim = None
        if not args.no_sim:
            launch_args = launch_inputs(case, inp, n)
            t_sim = best_of(lambda h=handle, a=launch_args: vk.launch(h, n, a, device="cpu"), 1)
        if case == "ray_triangle":
            floor = (times["memory floor"], times["cpu:native:proved"], times.get("warp"),
                     floor_agree)
        rows.append((case, compiled.compile_seconds, times["cpu:native"], times["cpu:native:proved"],
                     t_sim, times.get("warp"), warp_first, times["numpy"], agree, prove_seconds,
                     len(unchecked), vector))

    def rate(t):
        return f"{n / t / 1e6:10.1f}" if t else "       n/a"

    print(f"\nthroughput in million threads (elements) per {args.clock} second; best of "
          f"{args.repeat} runs (simulator: 1 run)")
    print(f"{'kernel':14} {'checked':>10} {'proved-unchecked':>16} {'simulator':>10} "
          f"{'warp cpu':>10} {'numpy':>10} | {'unchk/chk':>9} {'unchk/warp':>10} "
          f"{'unchk/numpy':>11} {'chk/warp':>8}")
    for case, _jit, tc, tu, ts, tw, _wfirst, tnp, _agree, _prove, _removed, _ck in rows:
        def r(t, width, tn=tu):
            return f"{t / tn:{width}.3f}" if t else " " * (width - 3) + "n/a"
        print(f"{case:14} {rate(tc)} {rate(tu):>16} {rate(ts)} {rate(tw)} {rate(tnp)} | "
              f"{tc / tu:9.3f} {r(tw, 10)} {r(tnp, 11)} {r(tw, 8, tc)}")
    print()
    for case, jit, _tc, _tu, _ts, _tw, wfirst, _tnp, agree, prove, removed, vector in rows:
        warp_note = f", warp first launch (incl. build/load) {wfirst:.3f} s" if wfirst else ""
        loops = ", ".join(f"{mode} {'vectorised' if v else 'scalar'}" for mode, v in vector.items())
        print(f"{case}: cpu:native JIT compile {jit * 1e3:.1f} ms (thread loop: {loops}), proof "
              f"{prove:.2f} s removing {removed} index check(s){warp_note}; agrees with numpy on "
              f"{agree['cpu:native'] * 100:.2f}% (checked) and "
              f"{agree['cpu:native:proved'] * 100:.2f}% (proved-unchecked) of elements")
    t_floor, t_ray, t_warp, floor_agree = floor
    need = (f"; 4 times warp cpu would need {4 * n / t_warp / 1e6:.1f} M rays/s = "
            f"{4 * n / t_warp * RAY_BYTES / 1e9:.1f} GB/s" if t_warp else "")
    print(f"ray_triangle memory floor: the same {RAY_BYTES} bytes per ray without the arithmetic "
          f"(benchmarks/kernels/ray_traffic.py, proved-unchecked, same threads, same rounds) ran "
          f"at {n / t_floor / 1e6:.1f} M rays/s = {n / t_floor * RAY_BYTES / 1e9:.1f} GB/s "
          f"(agrees with numpy on {floor_agree * 100:.2f}%); ray_triangle proved-unchecked ran "
          f"at {t_floor / t_ray * 100:.0f}% of it{need}")
    if wk is None:
        print("warp-lang is not installed: the warp column is skipped")
    print(f"load average (1 min) at the end: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
