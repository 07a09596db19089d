"""Replay on the "cpu:native" device (LLVM-compiled, with the same checks as
the simulator) for counterexamples whose violation lies beyond the
simulator's work budget: a bug behind a 400,000-iteration loop.

Invariants:
- the native run gets exactly the launch the simulator ran (dims, block
  size, scalars, arrays; every launch check of `vk.launch` first), on one
  host thread, so it runs the same sequential schedule on every machine;
- its work is bounded by fuel, counted in loop-header executions of all
  threads together (NATIVE_REPLAY_FUEL; backends/llvm/kernel_cpu.py), never by
  seconds: running out is OUT_OF_BUDGET, the same on every machine;
- CONFIRMED only when the native code raises the obligation's own runtime
  error at the obligation's source position (and array and dimension for
  bounds), as for the simulator: the generated code checks bounds, zero
  divisors and asserts at every access, division and assert
  (backends/native), so that error is a real execution of the violation;
- only kinds the native checks report one by one are replayed here: bounds,
  division by zero, asserts and invariant hints (races and uninitialised
  reads need the simulator's trace).
"""
from __future__ import annotations

from verikern import errors
from verikern.mir.nodes import Kernel
from verikern.proofs.obligations import Obligation, ObligationKind
from verikern.proofs.confirming.replay import (
    _EXPECTED_ERROR, ReplayOutcome, ReplayVerdict, _prepare, _same_site, _where,
)

#: Loop-header executions (every thread together) one native replay may run.
NATIVE_REPLAY_FUEL = 1 << 28
#: Warp-steps the simulator gets on a kernel with loops before replay tries
#: the launch natively (then, unless that confirms, the whole budget).
NATIVE_SWITCH_WORK = 50_000
#: The kinds a native replay can confirm.
NATIVE_KINDS = frozenset({ObligationKind.BOUNDS, ObligationKind.DIV_ZERO,
                          ObligationKind.ASSERT, ObligationKind.INVARIANT})


def native_attempt(kernel: Kernel, obligation: Obligation, launch, *,
                   fuel: int = NATIVE_REPLAY_FUEL):
    """The ReplayOutcome of running `launch` (a replay_launch.ConcreteLaunch)
    natively with `fuel`, or None when the native device cannot run this
    kernel here (no LLVM lowering for it, e.g. float16 without F16C) or the
    kind is not one of NATIVE_KINDS."""

    if obligation.kind not in NATIVE_KINDS:
        return None
    V = ReplayVerdict
    expected = _EXPECTED_ERROR[obligation.kind]
    try:
        from verikern.backends import native  # lazy: llvmlite, only to compile
        from verikern.backends.llvm import LoweringError  # lazy: llvmlite, only to compile

        k, config, arrays, scalars = _prepare(kernel, launch)
    except errors.LaunchError as err:
        return ReplayOutcome(V.REFUSED, "the launch was refused: "
                             f"{getattr(err, 'message', None) or err}")
    except ImportError:
        return None
    where = "on cpu:native (LLVM-compiled, every access checked, one host thread)"
    try:
        native.run(k, config, arrays, scalars, fuel=fuel)
    except LoweringError:
        return None
    except errors.SimulationBudgetExceeded:
        return ReplayOutcome(V.OUT_OF_BUDGET, f"the run {where} spent its fuel of {fuel} "
                                              "loop iterations")
    except expected as err:
        if not _same_site(err, obligation):
            at = obligation.loc
            return ReplayOutcome(V.OTHER_ERROR_FIRST, (
                f"the run {where} stopped at a different error first ({type(err).__name__} "
                f"at {_where(err)}, not at line {at.line}:{at.col}): {err.message}"))
        return ReplayOutcome(V.CONFIRMED, f"the run {where} raised {type(err).__name__} at "
                                          f"{_where(err)} (the simulator's work budget ends "
                                          "before it)")
    except errors.KernelRuntimeError as err:
        return ReplayOutcome(V.OTHER_ERROR_FIRST, (
            f"the run {where} stopped at a different error first: {type(err).__name__} at "
            f"{_where(err)}: {err.message}"))
    return ReplayOutcome(V.NO_VIOLATION, f"the run {where} ended without a "
                                         f"{obligation.kind.value} violation")
