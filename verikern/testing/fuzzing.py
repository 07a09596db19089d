"""Differential runs: every generated launch on every backend, outputs
compared; and the pytest-facing test-function makers.

Invariants:
- A `Mismatch` is only ever reported for a launch the kernel's contracts
  admit (see strategies), after hypothesis has shrunk it, with both
  outputs at the first differing element and a diagnosis (kernel bug or
  backend disagreement, see explain).
- The first backend is the reference; every other backend is compared
  with it. Warp performs no runtime checks, so when the reference stopped
  with a runtime error the `warp` result is not compared on that input.
- Test functions made by `differential` / `matches` are ordinary hypothesis
  tests: the active settings profile applies, and `@settings(...)` on top
  of them overrides it.
"""
from __future__ import annotations

import hashlib
import inspect
import os
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import numpy as np

from verikern.mir.nodes import ArrayRef

from verikern.backends.simulator.engine import MAX_STEPS
from verikern.errors import StepLimitExceeded

from .backends import DEFAULT_BACKENDS, Backend, resolve_backends, safe_run, with_step_limit
from .compare import Difference, RunError, Tolerance, first_difference
from .strategies import Launch, launches
from .target import KernelUnderTest, TestingError, kernel_under_test
from .explain import diagnose as run_diagnosis, save_launch
from .reproducible import constant_pool_pinned
from .explain import diagnose


@dataclass(frozen=True, eq=False)
class Mismatch:
    """Two backends disagree on `launch`."""

    target: KernelUnderTest
    launch: Launch
    left: str
    right: str
    difference: Difference
    tolerance: Tolerance
    diagnosis: Any = None          # explain.Diagnosis, filled in after shrinking
    replay: str | None = None      # the saved launch

    def report(self, command: str | None = None) -> str:
        t = self.target
        lines = [f"{t.where}: kernel {t.name}: {self.left} and {self.right} disagree "
                 f"(floats compared within {self.tolerance}, NaN equal to NaN)"]
        lines += ["  " + ln for ln in self.difference.describe(self.left, self.right).splitlines()]
        lines.append("  input (shrunk):")
        lines += ["    " + ln for ln in self.launch.describe().splitlines()]
        if self.diagnosis is not None:
            lines.append("  diagnosis: " + self.diagnosis.text.replace("\n", "\n  "))
        if command:
            lines.append(f"  reproduce: {command}")
        return "\n".join(lines)


class DifferentialFailure(AssertionError):
    """A differential or reference test failed; `mismatch` says where."""

    def __init__(self, mismatch: Mismatch, command: str | None = None):
        self.mismatch = mismatch
        super().__init__(mismatch.report(command))


@dataclass(frozen=True, eq=False)
class FuzzResult:
    """The outcome of `fuzz` for one kernel."""

    target: KernelUnderTest
    compared: tuple[str, ...]
    dropped: tuple[tuple[str, str], ...]
    examples: int
    seconds: float
    mismatch: Mismatch | None = None
    error: str | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)
    over_deadline: int = 0         # launches past the per-launch step limit: not compared

    @property
    def status(self) -> str:
        if self.error:
            return "error"
        if self.mismatch is not None:
            return "mismatch"
        if self.examples and self.over_deadline == self.examples:
            return "too slow"
        return "agree" if len(self.compared) >= 2 else "skipped"


def why_slow(launch: Launch, err: StepLimitExceeded, max_steps: int) -> str:
    """Why a launch ran past the deadline, in words: where the simulator was,
    on which launch, and what to change."""
    loc = f"line {err.loc.line}" if err.loc is not None else "an unknown line"
    scalars = ", ".join(f"{n}={v.item() if isinstance(v, np.generic) else v!r}"
                        for n, v in launch.values.items() if not isinstance(v, np.ndarray))
    shapes = ", ".join(f"{n}{list(v.shape)}" for n, v in launch.values.items() if isinstance(v, np.ndarray))
    return (f"the simulator was still running at {loc} after {max_steps} scheduling steps on the launch "
            f"dims={list(launch.dims)}, block_dim={launch.block_dim}"
            + (f", {scalars}" if scalars else "") + (f", shapes {shapes}" if shapes else "")
            + ": a loop there runs that long (its trip count comes from these values) or does not end; "
            "fix the values that bound it (--param/--size), lower --max-threads, or raise --max-steps")


def available_backends(target: KernelUnderTest, names) -> tuple[list[Backend], list[tuple[str, str]]]:
    """(backends that can run `target` here, [(name, why not)] for the others)."""
    ok, dropped = [], []
    for b in resolve_backends(names):
        reason = b.unavailable(target)
        if reason is None:
            ok.append(b)
        else:
            dropped.append((b.name, reason))
    return ok, dropped


def compare_launch(target: KernelUnderTest, backends: Sequence[Backend], launch: Launch,
                   tol: Tolerance) -> Mismatch | None:
    """Run `launch` on every backend; the first disagreement with backends[0]."""
    ref = safe_run(backends[0], target, launch)
    for b in backends[1:]:
        if b.name == "warp" and isinstance(ref, RunError):
            continue
        out = safe_run(b, target, launch)
        diff = first_difference(ref, out, tol)
        if diff is not None:
            return Mismatch(target, launch, backends[0].name, b.name, diff, tol)
    return None


def _settings(overrides: dict):
    from hypothesis import HealthCheck, settings  # lazy: hypothesis, heavy

    base = settings()   # the active profile
    checks = set(base.suppress_health_check) | {HealthCheck.too_slow, HealthCheck.filter_too_much,
                                                 HealthCheck.data_too_large}
    kw: dict[str, Any] = {"deadline": None, "suppress_health_check": list(checks)}
    kw.update(overrides)
    return settings(base, **kw)


def fuzz(kernel, backends=DEFAULT_BACKENDS, *, examples: int = 100, seed: int | None = None,
         on_example: Callable[[int], None] | None = None, diagnose: bool = True,
         replay_dir: str | None = None, command: Callable[[str], str] | None = None,
         launch: Launch | None = None, max_steps: int | None = None,
         on_mismatch: Callable[[int], None] | None = None, **strategy_options) -> FuzzResult:
    """Compare `backends` on `examples` generated launches of `kernel` (or on
    the single given `launch`). Unavailable backends drop out (with the
    reason in `dropped`); fewer than two left means nothing is compared.
    A mismatch is shrunk, diagnosed (`diagnose`), saved under `replay_dir`
    (when given) and returned, never raised; `on_mismatch(n)` is called when
    the first one is found (at launch n), before shrinking.

    `max_steps`: the deadline of one launch, in the simulator's scheduling
    steps (a count of work, not seconds: the same launches are cut on every
    machine). A launch the simulator ("cpu") cannot finish within it is not
    compared; it is counted in `over_deadline`, and a note says why the
    first one was slow. Backends listed before "cpu" still run it."""
    from hypothesis import given  # lazy: hypothesis, heavy
    from hypothesis import seed as hseed  # lazy: hypothesis, heavy
    from hypothesis.errors import Unsatisfiable  # lazy: hypothesis, heavy

    target = kernel_under_test(kernel)
    start = time.perf_counter()
    runnable, dropped = available_backends(target, backends)
    runnable = with_step_limit(runnable, max_steps)
    notes = tuple(f"{name} dropped out: {why}" for name, why in dropped)
    if len(runnable) < 2:
        return FuzzResult(target, tuple(b.name for b in runnable), tuple(dropped), 0,
                          time.perf_counter() - start, notes=notes +
                          ("fewer than two backends can run this kernel: nothing compared",))
    tol = Tolerance.for_kernel(target.mir)
    count = [0]
    found: list[Mismatch] = []
    slow: list[str] = []

    def check(lnch: Launch) -> None:
        count[0] += 1
        if on_example is not None:
            on_example(count[0])
        try:
            m = compare_launch(target, runnable, lnch, tol)
        except StepLimitExceeded as err:
            slow.append("" if slow else why_slow(lnch, err, max_steps or MAX_STEPS))
            return
        if m is not None:
            if not found and on_mismatch is not None:
                on_mismatch(count[0])
            found.append(m)
            raise DifferentialFailure(m)

    mismatch = None
    error = None
    if launch is not None:
        try:
            check(launch)
        except DifferentialFailure as exc:
            mismatch = exc.mismatch
    else:
        strategy = launches(target, **strategy_options)
        test = given(strategy)(check)
        test = _settings({"max_examples": examples, "database": None,
                          **({"derandomize": False} if seed is not None else {})})(test)
        if seed is not None:
            test = hseed(seed)(test)
        try:
            with constant_pool_pinned():    # the same --seed draws the same launches anywhere
                test()
        except DifferentialFailure as exc:
            mismatch = exc.mismatch    # the shrunk example: hypothesis re-raises its error
        except Unsatisfiable:
            error = (f"{target.where}: kernel {target.name}: no generated launch satisfied its "
                     "contracts; fix sizes or parameters (--size/--param) or raise --max-threads")
    if mismatch is not None:
        mismatch = _finish(mismatch, diagnose, replay_dir)
    if slow:
        notes += (f"{len(slow)} of {count[0]} launches ran past the deadline of {max_steps or MAX_STEPS} "
                  f"simulator steps per launch and were not compared; the first: {slow[0]}",)
    return FuzzResult(target, tuple(b.name for b in runnable), tuple(dropped), count[0],
                      time.perf_counter() - start, mismatch, error, notes, len(slow))


def _finish(m: Mismatch, diagnose: bool, replay_dir: str | None) -> Mismatch:
    diag = run_diagnosis(m.target, m.launch) if diagnose else None
    path = None
    if replay_dir is not None:
        digest = hashlib.sha1(m.launch.describe(limit=1 << 30).encode()).hexdigest()[:10]
        path = save_launch(m.launch, os.path.join(replay_dir, f"{m.target.name}-{digest}.npz"))
    return Mismatch(m.target, m.launch, m.left, m.right, m.difference, m.tolerance, diag, path)


# ------------------------------------------------------------- pytest API
def differential(kernel, backends=DEFAULT_BACKENDS, **strategy_options):
    """A test function (collect it as `test_x = differential(k, ...)`) that
    runs hypothesis-generated launches of `kernel` on every backend and
    fails when two disagree; backends that are not available here drop out
    (the test skips when fewer than two remain). Hypothesis settings and
    profiles apply as to any hypothesis test, and `@settings(...)` stacked
    on the result overrides them."""
    from hypothesis import given  # lazy: hypothesis, heavy
    from hypothesis import strategies as st  # lazy: hypothesis, heavy

    state: dict[str, Any] = {}

    def setup():
        if "target" not in state:
            target = kernel_under_test(kernel)
            state["target"] = target
            state["backends"], state["dropped"] = available_backends(target, backends)
        return state["target"], state["backends"], state["dropped"]

    def test_differential(launch):
        import pytest  # lazy: optional dependency

        target, runnable, dropped = setup()
        if len(runnable) < 2:
            pytest.skip("; ".join(f"{n}: {why}" for n, why in dropped) or "fewer than two backends")
        m = compare_launch(target, runnable, launch, Tolerance.for_kernel(target.mir))
        if m is not None:
            raise DifferentialFailure(Mismatch(m.target, m.launch, m.left, m.right,
                                               m.difference, m.tolerance, diagnose(target, launch)))

    strategy = st.deferred(lambda: launches(setup()[0], **strategy_options))
    test = given(launch=strategy)(test_differential)
    test.__name__ = test.__qualname__ = f"differential_{getattr(kernel, 'name', 'kernel')}"
    return test


def matches(kernel, reference, *, backends=("cpu",), rtol: float = 1e-5, atol: float = 1e-6,
            float_range=(-1e3, 1e3), **strategy_options):
    """A test function checking `kernel` against `reference`, a numpy
    function of the launch's values (a dict by parameter name; also given
    `dims=` and `block_dim=` when it accepts them) that returns the expected
    arrays by name. Floats agree within rtol/atol (NaN equal to NaN),
    integers and bools exactly. Floats are drawn from `float_range`. The
    launch has one thread per element of the first array parameter (pass
    `cover="name"` for another array, `cover=None` for free launches, and
    then a reference taking `dims`)."""
    from hypothesis import given  # lazy: hypothesis, heavy
    from hypothesis import strategies as st  # lazy: hypothesis, heavy

    params = inspect.signature(reference).parameters
    extra = {n for n in ("dims", "block_dim") if n in params}

    def test_matches(launch):
        target = kernel_under_test(kernel)
        values = {n: (v.copy() if isinstance(v, np.ndarray) else v) for n, v in launch.values.items()}
        kwargs = {k: v for k, v in (("dims", launch.dims), ("block_dim", launch.block_dim)) if k in extra}
        expected = reference(values, **kwargs)
        for b in resolve_backends(backends):
            got = safe_run(b, target, launch)
            diff = _reference_difference(got, expected, rtol, atol)
            if diff is not None:
                tol = Tolerance(rtol, 0, atol)
                raise DifferentialFailure(Mismatch(target, launch, b.name, "reference", diff, tol))

    def strategy_for():
        target = kernel_under_test(kernel)
        arrays = [p.name for p in target.mir.params if isinstance(p, ArrayRef)]
        options = {"float_range": float_range, "cover": arrays[0] if arrays else None}
        options.update(strategy_options)
        return launches(target, **options)

    strategy = st.deferred(strategy_for)
    test = given(launch=strategy)(test_matches)
    test.__name__ = test.__qualname__ = f"matches_{getattr(kernel, 'name', 'kernel')}"
    return test


def _reference_difference(got, expected, rtol, atol) -> Difference | None:
    if isinstance(got, RunError):
        return Difference(None, (), str(got), "returns results")
    for name, want in expected.items():
        if name not in got:
            raise TestingError(f"the reference returns {name!r}, which is not an array parameter "
                               f"of the kernel (arrays: {', '.join(got)})")
        a = np.asarray(got[name])
        w = np.asarray(want).reshape(a.shape) if np.size(want) == a.size else np.asarray(want)
        if w.shape != a.shape:
            return Difference(name, (), f"shape {list(a.shape)}", f"shape {list(w.shape)}")
        if a.dtype.kind == "f" or w.dtype.kind == "f":
            ok = np.isclose(a.astype(np.float64), w.astype(np.float64), rtol=rtol, atol=atol,
                            equal_nan=True)
        else:
            ok = a == w
        if not np.all(ok):
            bad = np.argwhere(~np.asarray(ok))
            idx = tuple(int(i) for i in bad[0])
            return Difference(name, idx, repr(a[idx].item()), repr(w[idx].item()), int(bad.shape[0]))
    return None
