"""Achieved memory bandwidth of verikern's saxpy on cuda:0, next to NVIDIA Warp
and a device-to-device copy measured in the same run.

    python benchmarks/gpu_saxpy_bandwidth.py [--log2n 28] [--reps 20] [--json out.json]

Invariant: every time reported is the median of `reps` CUDA-event intervals
around one kernel launch (or copy) alone, after warm-up launches, each timed
launch enqueued behind an untimed one so host latency is not counted; the
bytes counted are 3 * 4 * n for saxpy (read x, read y, write y) and
2 * 4 * n for the copy (read, write). verikern's result is checked on the
device data before any number is printed; a wrong result exits 1.
Exit 0: ran and reached >= 80 % of the copy ceiling; 1: wrong result or
below 80 %; 3: no usable GPU (the reason is printed).
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
from dataclasses import dataclass

import numpy as np

SAXPY_SOURCE = '''
import verikern as vk

@vk.kernel
def saxpy(x: vk.array(dtype=vk.float32), y: vk.array(dtype=vk.float32), a: vk.float32):
    vk.requires(x.shape[0] == y.shape[0])
    i = vk.tid()
    if i < x.shape[0]:
        y[i] = a * x[i] + y[i]
'''

BLOCK_DIM = 256
X_VALUE, Y_VALUE, A_VALUE = 1.0, 2.0, 3.0
TARGET_FRACTION = 0.80


@dataclass(frozen=True)
class Launch:
    """Launch geometry in the shape verikern's device protocol reads."""

    dims: tuple
    block_dim: int
    grid_dim: int
    size: int


def _f32_bits(value: float) -> int:
    return int(np.array(value, dtype=np.float32).view(np.uint32))


class Events:
    """A pair of CUDA events timing one interval on the default stream."""

    def __init__(self, cu):
        self.cu = cu
        self.start = cu.call("cuEventCreate", 0)
        self.end = cu.call("cuEventCreate", 0)

    def time_ms(self, enqueue) -> float:
        self.cu.call("cuEventRecord", self.start, 0)
        enqueue()
        self.cu.call("cuEventRecord", self.end, 0)
        self.cu.call("cuEventSynchronize", self.end)
        name = "cuEventElapsedTime_v2" if hasattr(self.cu.driver_module(), "cuEventElapsedTime_v2") \
            else "cuEventElapsedTime"
        return float(self.cu.call(name, self.start, self.end))


def measure(events: Events, enqueue, warmup: int, reps: int) -> float:
    """Median seconds of `reps` timed runs of `enqueue` after `warmup` untimed
    ones. Each timed run follows an untimed one still executing on the GPU, so
    the start event fires only when the GPU reaches it and the host's enqueue
    latency is not counted. `enqueue` thus runs warmup + 2 * reps times."""
    for _ in range(warmup):
        enqueue()
    events.cu.call("cuCtxSynchronize")
    times = []
    for _ in range(reps):
        enqueue()  # keeps the GPU busy while the timed run is enqueued
        times.append(events.time_ms(enqueue))
    return statistics.median(times) / 1e3


def theoretical_peak_bytes_per_s(cu, device_index: int) -> float | None:
    """2 * memory clock * bus width, when the driver reports both (it may not on CUDA 13)."""
    drv = cu.driver_module()
    attr = drv.CUdevice_attribute
    try:
        dev = cu.get_device(device_index)
        clock_khz = cu.call("cuDeviceGetAttribute", attr.CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, dev)
        bus_bits = cu.call("cuDeviceGetAttribute", attr.CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH, dev)
    except Exception:
        return None
    if not clock_khz or not bus_bits:
        return None
    return 2.0 * float(clock_khz) * 1e3 * float(bus_bits) / 8.0


def bench_verikern(cu, n: int, warmup: int, reps: int, events: Events) -> dict:
    from verikern.backends.cuda import load_kernel, pack_parameters, synchronize
    from verikern.backends.cuda.abi import ERROR_STATUS, ERROR_STATUS_WORDS
    from verikern.frontend import compile_source

    module = compile_source(SAXPY_SOURCE, "<gpu_saxpy_bandwidth>")
    result = module.kernel("saxpy")
    if result.mir is None:
        raise SystemExit(f"saxpy did not compile: {result.error}")
    kernel = result.mir
    loaded = load_kernel(kernel, 0)
    nbytes = 4 * n
    x = int(cu.call("cuMemAlloc", nbytes))
    y = int(cu.call("cuMemAlloc", nbytes))
    status = int(cu.call("cuMemAlloc", 8 * ERROR_STATUS_WORDS))
    try:
        cu.call("cuMemsetD32", x, _f32_bits(X_VALUE), n)
        cu.call("cuMemsetD32", y, _f32_bits(Y_VALUE), n)
        cu.call("cuMemsetD32", status, 0, 2 * ERROR_STATUS_WORDS)
        launch = Launch((n,), BLOCK_DIM, -(-n // BLOCK_DIM), n)
        pointers = {"x": x, "y": y, ERROR_STATUS: status}
        shapes = {"x": (n,), "y": (n,)}

        packed = pack_parameters(kernel, loaded.params, pointers=pointers, shapes=shapes,
                                 scalars={"a": A_VALUE}, dims=launch.dims)
        launches = 0

        def enqueue():  # the parameters are packed once, outside the timed region
            nonlocal launches
            cu.call("cuLaunchKernel", loaded.function, launch.grid_dim, 1, 1, launch.block_dim,
                    1, 1, 0, 0, packed.address, 0)
            launches += 1

        seconds = measure(events, enqueue, warmup, reps)
        synchronize(kernel.name)
        expected = np.float32(Y_VALUE)
        for _ in range(launches):  # the same float32 arithmetic the GPU performed
            expected = np.float32(np.float32(A_VALUE) * np.float32(X_VALUE) + expected)
        sample = np.empty(4096, dtype=np.float32)
        cu.call("cuMemcpyDtoH", sample.ctypes.data, y, 2048 * 4)
        cu.call("cuMemcpyDtoH", sample[2048:].ctypes.data, y + nbytes - 2048 * 4, 2048 * 4)
        words = np.empty(ERROR_STATUS_WORDS, dtype=np.int64)
        cu.call("cuMemcpyDtoH", words.ctypes.data, status, 8 * ERROR_STATUS_WORDS)
        correct = bool(np.all(sample == expected)) and int(words[0]) == 0
    finally:
        for ptr in (x, y, status):
            cu.call("cuMemFree", ptr)
    return {"seconds": seconds, "bytes_per_s": 12.0 * n / seconds, "correct": correct,
            "expected": float(expected), "sample": [float(sample[0]), float(sample[-1])],
            "status_code": int(words[0]), "arch": loaded.arch, "loaded_from": loaded.loaded_from}


def bench_copy(cu, n: int, warmup: int, reps: int, events: Events) -> dict:
    nbytes = 4 * n
    src = int(cu.call("cuMemAlloc", nbytes))
    dst = int(cu.call("cuMemAlloc", nbytes))
    try:
        cu.call("cuMemsetD32", src, _f32_bits(X_VALUE), n)
        seconds = measure(events, lambda: cu.call("cuMemcpyDtoDAsync", dst, src, nbytes, 0), warmup, reps)
    finally:
        cu.call("cuMemFree", src)
        cu.call("cuMemFree", dst)
    return {"seconds": seconds, "bytes_per_s": 8.0 * n / seconds}


def warp_saxpy_kernel(wp):
    """The same computation as SAXPY_SOURCE, as a Warp kernel."""

    @wp.kernel
    def saxpy_warp(x: wp.array(dtype=wp.float32), y: wp.array(dtype=wp.float32), a: wp.float32):
        i = wp.tid()
        y[i] = a * x[i] + y[i]

    return saxpy_warp


def bench_warp(n: int, warmup: int, reps: int) -> dict | None:
    """Warp's CUDA backend on the same saxpy, or None (with why) when Warp is absent."""
    try:
        import warp as wp
    except Exception as exc:  # not installed, or failing to load its native library
        return {"skipped": f"warp not importable: {exc}"}
    wp.config.quiet = True
    wp.init()
    saxpy_warp = warp_saxpy_kernel(wp)
    device = "cuda:0"
    x = wp.full(n, X_VALUE, dtype=wp.float32, device=device)
    y = wp.full(n, Y_VALUE, dtype=wp.float32, device=device)
    for _ in range(warmup):
        wp.launch(saxpy_warp, dim=n, inputs=[x, y, A_VALUE], device=device, block_dim=BLOCK_DIM)
    wp.synchronize_device(device)
    start = wp.Event(device, enable_timing=True)
    end = wp.Event(device, enable_timing=True)
    times = []
    for _ in range(reps):  # as in `measure`: an untimed launch keeps the GPU busy first
        wp.launch(saxpy_warp, dim=n, inputs=[x, y, A_VALUE], device=device, block_dim=BLOCK_DIM)
        wp.record_event(start)
        wp.launch(saxpy_warp, dim=n, inputs=[x, y, A_VALUE], device=device, block_dim=BLOCK_DIM)
        wp.record_event(end)
        wp.synchronize_event(end)
        times.append(wp.get_event_elapsed_time(start, end) / 1e3)
    seconds = statistics.median(times)
    del x, y
    return {"seconds": seconds, "bytes_per_s": 12.0 * n / seconds}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--log2n", type=int, default=28)
    parser.add_argument("--reps", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--no-warp", action="store_true")
    parser.add_argument("--json", default=None, help="also write the results here")
    args = parser.parse_args(argv)

    from verikern.backends.cuda import driver as cu

    ok, reason = cu.cuda_available(0)
    if not ok:
        print(f"gpu_saxpy_bandwidth: skipped: {reason}")
        return 3
    n = 2 ** args.log2n
    cu.activate(0)
    events = Events(cu)
    name = cu.device_name(0)
    peak = theoretical_peak_bytes_per_s(cu, 0)
    copy = bench_copy(cu, n, args.warmup, args.reps, events)
    vk = bench_verikern(cu, n, args.warmup, args.reps, events)
    warp = None if args.no_warp else bench_warp(n, args.warmup, args.reps)

    gbs = lambda r: r["bytes_per_s"] / 1e9  # noqa: E731
    print(f"device: {name} (cuda:0), n = 2**{args.log2n}, block_dim {BLOCK_DIM}, "
          f"median of {args.reps} after {args.warmup} warm-up")
    if peak:
        print(f"  theoretical peak   {peak / 1e9:8.1f} GB/s")
    print(f"  device copy (D2D)  {gbs(copy):8.1f} GB/s   (practical ceiling)")
    print(f"  verikern saxpy     {gbs(vk):8.1f} GB/s   {vk['seconds'] * 1e3:.3f} ms  "
          f"{vk['arch']} via {vk['loaded_from']}  result {'correct' if vk['correct'] else 'WRONG'}")
    if warp and "bytes_per_s" in warp:
        print(f"  warp saxpy         {gbs(warp):8.1f} GB/s   {warp['seconds'] * 1e3:.3f} ms")
        print(f"  verikern / warp    {vk['bytes_per_s'] / warp['bytes_per_s']:8.3f}")
    elif warp:
        print(f"  warp saxpy         {warp['skipped']}")
    vs_copy = vk["bytes_per_s"] / copy["bytes_per_s"]
    print(f"  verikern / copy    {vs_copy:8.3f}")
    if peak:
        print(f"  verikern / peak    {vk['bytes_per_s'] / peak:8.3f}")
    reached = vs_copy >= TARGET_FRACTION
    print(f"  >= {TARGET_FRACTION:.0%} of the device's (copy) bandwidth: {'yes' if reached else 'NO'}")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"device": name, "n": n, "peak_bytes_per_s": peak, "copy": copy,
                       "verikern": vk, "warp": warp, "verikern_over_copy": vs_copy,
                       "reached_target": reached}, fh, indent=2)
    if not vk["correct"]:
        print(f"verikern saxpy gave a wrong result: sample {vk['sample']}, expected {vk['expected']}, "
              f"status code {vk['status_code']}")
        return 1
    return 0 if reached else 1


if __name__ == "__main__":
    sys.exit(main())
