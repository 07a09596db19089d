"""Why two backends disagree: a kernel bug (a data race, a read of shared
memory nothing wrote, a runtime error) or a backend disagreement.

Invariant: the verdict "backend disagreement" is given only when the
simulator's trace of the same launch shows no race and no uninitialised
shared read, the simulator ran it to the end, and `verikern prove` (when
run) found no race; every kernel finding names its file:line:col.
"""
from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass

import numpy as np

from .strategies import Launch
from .target import KernelUnderTest
from verikern.backends.trace_analysis import READ
from verikern.errors import KernelRuntimeError
from verikern.runtime import launch as vk_launch
from verikern.trace import find_races, load_trace
from verikern.proofs.obligations import ObligationKind, Status


@dataclass(frozen=True)
class Diagnosis:
    """`kernel_bug`: the kernel, not a backend, explains the difference;
    `text`: one or more lines saying why."""

    kernel_bug: bool
    text: str


def uninitialised_shared_reads(trace) -> list[str]:
    """Sites reading a shared element before any thread of its block wrote
    it (events in the trace's execution order)."""

    shared = {i for i, a in enumerate(trace.arrays) if a.space == "shared"}
    written: dict[tuple, tuple[int, int]] = {}   # (array, block, flat) -> first write (interval, thread)
    found: dict[tuple, str] = {}
    for k in range(trace.n_events):
        arr = int(trace.array[k])
        if arr not in shared:
            continue
        key = (arr, int(trace.block[k]), int(trace.flat[k]))
        interval, thread = int(trace.interval[k]), int(trace.thread[k])
        if int(trace.op[k]) != READ:
            written.setdefault(key, (interval, thread))
            continue
        w = written.get(key)
        if w is None:   # (a write by another thread in this interval would be a race)
            site = (trace.file, int(trace.line[k]), int(trace.col[k]))
            if site not in found:
                idx = [int(x) for x in trace.index[k, :int(trace.rank[k])]]
                found[site] = (f"{trace.file}:{site[1]}:{site[2]}: reads "
                               f"{trace.arrays[arr].name}{idx} in block {key[1]} (thread {thread}) "
                               "before any thread of the block wrote it")
    return list(found.values())


def diagnose(target: KernelUnderTest, launch: Launch, *, prove: bool = True,
             budget: float = 2.0) -> Diagnosis:
    """Run `launch` on the tracing simulator (and, when that finds nothing,
    `verikern prove` on the kernel) and say whether the kernel explains a
    difference between backends."""

    with tempfile.TemporaryDirectory(prefix="verikern-fuzz-") as tmp:
        path = os.path.join(tmp, "trace.json")
        try:
            vk_launch(target.mir, launch.dim, launch.inputs(), block_dim=launch.block_dim,
                      device="cpu:trace", trace_path=path)
        except KernelRuntimeError as err:
            return Diagnosis(True, f"kernel bug: on this input the kernel stops with a runtime "
                                   f"error ({err.kind}), so its results are undefined:\n  {err}")
        trace = load_trace(path, file=target.file)
    races = find_races(trace)
    if races:
        return Diagnosis(True, "the kernel has a data race (found in the simulator's trace of this "
                               "launch); backends may order the racing accesses differently:\n" +
                         "\n".join("  " + r.short() for r in races[:3]))
    uninit = uninitialised_shared_reads(trace)
    if uninit:
        return Diagnosis(True, "the kernel reads uninitialised shared memory (found in the "
                               "simulator's trace of this launch); its value differs between "
                               "backends:\n" + "\n".join("  " + u for u in uninit[:3]))
    if prove:
        from verikern.proofs.pipeline import prove_mir  # lazy: z3 (the prover)

        report = prove_mir(target.mir, file=target.file, budget=budget)
        failed = [o for o in report.obligations
                  if o.status == Status.FAILED and o.kind == ObligationKind.RACE]
        if failed:
            o = failed[0]
            return Diagnosis(True, "the kernel has a data race (verikern prove):\n  "
                                   f"{o.loc}: {o.message}")
    return Diagnosis(False, "backend disagreement: the simulator's trace of this launch shows no "
                            "data race and no uninitialised shared read" +
                     (", and verikern prove finds no race" if prove else "") +
                     "; this looks like a backend bug, not a kernel bug")


def save_launch(launch: Launch, path) -> str:
    """Write `launch` to an .npz file that `load_launch` (and `verikern fuzz
    --replay`) reads back exactly."""

    os.makedirs(os.path.dirname(os.fspath(path)) or ".", exist_ok=True)
    names = list(launch.values)
    arrays = {f"v{k}": np.asarray(launch.values[n]) for k, n in enumerate(names)}
    kinds = ["array" if isinstance(launch.values[n], np.ndarray) else "scalar" for n in names]
    np.savez(path, __meta__=np.array(json.dumps({
        "dims": list(launch.dims), "block_dim": launch.block_dim, "names": names, "kinds": kinds})),
        **arrays)  # type: ignore[arg-type]  # the keys are v0, v1, ...: never allow_pickle
    return os.fspath(path)


def load_launch(path) -> Launch:
    with np.load(path, allow_pickle=False) as data:
        meta = json.loads(str(data["__meta__"]))
        values = {}
        for k, (n, kind) in enumerate(zip(meta["names"], meta["kinds"])):
            v = data[f"v{k}"]
            values[n] = v.copy() if kind == "array" else v[()]
    return Launch(tuple(meta["dims"]), int(meta["block_dim"]), values)
