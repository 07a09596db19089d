"""The backends a differential run compares: `cpu` (the simulator),
`cpu:native` (LLVM JIT), `cuda` (the first GPU) and `warp` (real warp-lang on
its CPU device, for kernels that are valid Warp).

Invariants: `Backend.run` never modifies the launch's values (it runs on
copies) and returns every array argument after the run, by name, or a
`RunError` when the kernel stopped with a runtime error (out of bounds,
assert, division by zero, ...) or the backend itself failed (kind
"backend-error"). A simulator run past its step limit raises
StepLimitExceeded instead: a launch too long for the caller's deadline is
no output to compare. `Backend.unavailable` returns None when the backend can
run the kernel here, else the reason, said once and shown to the user.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping

import numpy as np

from verikern.errors import KernelRuntimeError, StepLimitExceeded

from .compare import RunError
from .strategies import Launch
from .target import KernelUnderTest
from .warp_bridge import run_on_warp
from .warp_bridge import why_not_warp
from verikern.runtime import launch as vk_launch

DEFAULT_BACKENDS = ("cpu", "cpu:native")


@dataclass(frozen=True)
class Backend:
    """`name`, `run(target, launch) -> outputs | RunError`, and
    `unavailable(target) -> reason | None`."""

    name: str
    run: Callable[[KernelUnderTest, Launch], Mapping[str, np.ndarray] | RunError]
    unavailable: Callable[[KernelUnderTest], str | None] = lambda target: None


def _outputs(target: KernelUnderTest, args: list) -> dict[str, np.ndarray]:
    return {p.name: a for p, a in zip(target.mir.params, args) if isinstance(a, np.ndarray)}


def run_device(device: str, max_steps: int | None = None):
    """A runner through `vk.launch` on `device` (`max_steps`: the
    simulator's step limit, for device "cpu" only)."""
    limits = {"max_steps": max_steps} if max_steps is not None else {}

    def run(target: KernelUnderTest, launch: Launch):
        args = launch.inputs()
        try:
            vk_launch(target.mir, launch.dim, args, block_dim=launch.block_dim, device=device, **limits)
        except StepLimitExceeded:
            raise
        except KernelRuntimeError as err:
            return RunError(err.kind, str(err))
        return _outputs(target, args)
    return run


def with_step_limit(backends: list, max_steps: int | None) -> list:
    """`backends` with the simulator ("cpu") limited to `max_steps`
    scheduling steps per launch (None: unchanged)."""
    if max_steps is None:
        return backends
    return [Backend("cpu", run_device("cpu", max_steps)) if b.name == "cpu" else b for b in backends]


def _cuda_unavailable(target: KernelUnderTest) -> str | None:
    try:
        from verikern.backends.cuda import cuda_available  # lazy: optional dependency
    except ImportError as exc:
        return f"the CUDA backend cannot be imported ({exc})"
    ok, reason = cuda_available(0)
    return None if ok else (reason or "no CUDA device")


def _warp_run(target: KernelUnderTest, launch: Launch):
    return run_on_warp(target, launch)


def _warp_unavailable(target: KernelUnderTest) -> str | None:
    return why_not_warp(target)


BACKENDS: dict[str, Backend] = {
    "cpu": Backend("cpu", run_device("cpu")),
    "cpu:native": Backend("cpu:native", run_device("cpu:native")),
    "cuda": Backend("cuda", run_device("cuda:0"), _cuda_unavailable),
    "warp": Backend("warp", _warp_run, _warp_unavailable),
}


def resolve_backends(names) -> list[Backend]:
    """Backend objects for `names` (registered names or Backend objects);
    ValueError naming the valid ones for an unknown name."""
    out = []
    for n in names:
        if isinstance(n, Backend):
            out.append(n)
        elif n in BACKENDS:
            out.append(BACKENDS[n])
        else:
            raise ValueError(f"unknown backend {n!r}; valid backends: {', '.join(BACKENDS)}")
    if len({b.name for b in out}) != len(out):
        raise ValueError(f"backends repeat a name: {[b.name for b in out]}")
    return out


def safe_run(backend: Backend, target: KernelUnderTest, launch: Launch) -> Any:
    """`backend.run`, with a backend's own failure (not a kernel runtime
    error) turned into RunError("backend-error", ...) so it is compared and
    reported rather than aborting the run; StepLimitExceeded passes through."""
    try:
        return backend.run(target, launch)
    except StepLimitExceeded:
        raise
    except Exception as exc:   # a backend crash is a finding, shown with the input
        return RunError("backend-error", f"{type(exc).__name__}: {exc}")
