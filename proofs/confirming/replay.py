"""Replay a failed obligation's counterexample on the simulator.

Invariant: `replay` answers `(True, why)` only when the simulator, run on a
concrete launch with the counterexample's dims, block size, scalars and
shapes, actually exhibits the violation the obligation names at the
obligation's source position -- line and column, and the same array for
bounds; for divergence, its barrier (for races: two threads' conflicting
accesses to its array at its two positions in the trace of the accesses
that ran). The arrays hold the
recorded contents, zeros elsewhere. A launch too large to simulate runs
shrunk or only its offending blocks (a legal schedule; the explanation
says so). Only for a counterexample the prover marks as coming from an
abstraction are variants tried as well -- uniform contents, array shapes
grown to cover the launch, or shapes and scalars clamped when the arrays
are too large -- and the variant that shows the violation is returned as
the witness, describing exactly the launch, shapes, scalars and contents
that ran. Every other outcome -- a different error, no error, a refused
launch, a launch too large to simulate or one that spends the replay's work
budget -- is `(False, why)`. The budget counts simulated work
(`WorkMeter` warp-steps, shared by every launch one replay runs), so the
outcome is the same on any machine at any load; a wall-clock limit far
above it stays as a safety net only, and says so when it stops a replay.
"""
from __future__ import annotations

import dataclasses
import enum
import itertools
import signal
import threading
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import verikern.errors as errors
from verikern.backends.launch import prepare_mir_launch
from verikern.backends.trace_analysis import Trace, trace_of_columns
from verikern.mir.nodes import ArrayRef, Kernel
from verikern.proofs.obligations import Counterexample, Obligation, ObligationKind
from verikern.proofs.confirming.replay_launch import (  # noqa: F401  (re-exported)
    MAX_REPLAY_THREADS, ConcreteLaunch, clamped, concrete_launch, contracted_arrays,
    covering_shapes, focused, with_shapes,
)
import verikern.backends.simulator as simulator
from verikern.backends.simulator.engine import run_launch
from verikern.backends.trace_uninit import find_uninit_reads
from verikern.backends.simulator import WorkMeter
from verikern.proofs.confirming.counter_wrap import (
    float_scalar_variants, narrow_counters, wrap_variants,
)
from verikern.proofs.confirming.replay_sites import (
    _EXPECTED_ERROR, _ambiguous, _array_of, _find_race, _position, _race_lines, _same_site, _site, _where,
)

#: Simulated work one replay (every launch it runs, variants included) may
#: spend, in warp-steps (`WorkMeter`): deterministic, unlike seconds.
REPLAY_BUDGET = 500_000
#: Below this much work left, no further variant is started.
MIN_VARIANT_WORK = 10_000
#: Wall-clock safety net of one replay (seconds), far above what the budget
#: needs; reaching it is reported as machine-dependent.
SAFETY_NET_S = 300.0


class ReplayTimeout(Exception):
    """The simulation ran past the wall-clock safety net SAFETY_NET_S."""


# ---------------------------------------------------------------- running it
@contextmanager
def _time_limit(seconds: float):
    """Raise ReplayTimeout in the main thread after `seconds`; no limit when
    called off the main thread or where SIGALRM does not exist."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        yield
        return

    def on_alarm(signum, frame):
        raise ReplayTimeout()

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _prepare(kernel: Kernel, launch: ConcreteLaunch):
    """Check the launch like vk.launch does (so a counterexample that breaks
    a `requires` or an array contract is refused): (kernel, config, arrays,
    scalars) for the simulator."""
    dim = launch.dims[0] if len(launch.dims) == 1 else launch.dims
    return prepare_mir_launch(kernel, dim, list(launch.inputs), launch.block_dim)


def _simulate(kernel: Kernel, launch: ConcreteLaunch, meter,
              uninit: simulator.UninitializedReads) -> None:
    """Check, then simulate the launch (raising the simulator's errors),
    charging `meter`; in the checked mode: uninitialised shared reads are
    recorded in `uninit` and the run goes on (an uninitialised read is not
    fatal on a GPU, so a later error is one a real run can reach)."""

    k, config, arrays, scalars = _prepare(kernel, launch)
    simulator.simulate(k, config, arrays, scalars, blocks=launch.blocks, threads=launch.threads,
                       meter=meter, uninit_reads=uninit)


def _ran_past(uninit: simulator.UninitializedReads) -> str:
    """Words for the uninitialised reads a checked run went on past ("" if none)."""
    if not uninit.errors:
        return ""
    first = uninit.errors[0]
    more = f" and {len(uninit.errors) - 1} more site(s)" if len(uninit.errors) > 1 else ""
    return (f" (the run went on past an uninitialised shared read at {_where(first)}{more}, "
            "as compute-sanitizer's initcheck does)")


#: Scheduling steps a replay that traces every access simulates before it
#: judges the partial trace (a violation in the first iterations of a
#: 2**31-iteration loop shows early; the trace stays small).
RACE_MAX_STEPS = 500
#: A race replay records only the accesses at the obligation's two positions
#: on its array (`_SiteRecorder`), so it runs until the work budget instead
#: (a race in iteration 511 of a loop is reached); it stops once it has
#: recorded this many accesses (a deterministic bound on the trace's memory).
RACE_MAX_EVENTS = 400_000
#: The scheduling-step limit of such a run: never the binding limit (every
#: step costs at least one warp-step of the work budget).
SITE_TRACE_MAX_STEPS = 1 << 40


class TraceFull(Exception):
    """A site-filtered trace reached RACE_MAX_EVENTS recorded accesses."""

    def __init__(self, limit: int):
        super().__init__(f"the trace recorded {limit} accesses at the two positions")
        self.limit = limit


def _site_recorder(positions: set | None, array: str | None, max_events: int | None):
    """A TraceRecorder keeping only accesses at `positions` ((line, col);
    any position when None) on `array` (any array when None), raising
    TraceFull past `max_events` (no limit when None). A race is a property of
    a pair of accesses, and whether a read of an element was written before
    depends only on the accesses to that array, so the races (and the
    uninitialised reads) among kept accesses are exactly those of the full
    trace there."""

    class _SiteRecorder(simulator.TraceRecorder):
        def __init__(self):
            super().__init__()
            self.recorded = 0

        def record(self, st, idx, mem, ixs, addr, op_kind, loc, site):
            if (positions is not None and (loc.line, loc.col) not in positions) or \
                    (array is not None and mem.ref.name != array):
                return
            super().record(st, idx, mem, ixs, addr, op_kind, loc, site)
            if max_events is not None:
                self.recorded += int(self._batches[-1][0].shape[0])
                if self.recorded > max_events:
                    raise TraceFull(max_events)

    return _SiteRecorder()


def _traced_run(kernel: Kernel, launch: ConcreteLaunch, meter,
                keep: tuple[set | None, str | None] = (None, None),
                until_budget: bool = False,
                ) -> tuple[Trace, Exception | None, simulator.UninitializedReads]:
    """Simulate with tracing, at most RACE_MAX_STEPS scheduling steps, in the
    checked mode (uninitialised shared reads are recorded and the run goes
    on), and return the trace of the accesses that happened at `keep` =
    (positions, array) (`_site_recorder`; everything by default) -- also
    when the run stopped early at a runtime error, the step limit, the work
    budget or the safety net -- with that stopping error (or None) and the
    uninitialised reads recorded. `until_budget`: the run goes on until the
    work budget (or RACE_MAX_EVENTS recorded accesses)."""

    k, config, arrays, scalars = _prepare(kernel, launch)
    recorder = _site_recorder(*keep, RACE_MAX_EVENTS if until_budget else None)
    steps = SITE_TRACE_MAX_STEPS if until_budget else RACE_MAX_STEPS
    stopped = None
    uninit = simulator.UninitializedReads()
    try:
        run_launch(simulator.program_for(k), config, arrays, scalars, recorder, False,
                   max_steps=steps, blocks=launch.blocks, threads=launch.threads,
                   meter=meter, uninit_reads=uninit)
    except (errors.KernelRuntimeError, errors.SimulationBudgetExceeded, ReplayTimeout,
            TraceFull) as err:
        stopped = err
    header = simulator.trace_document(k, config, arrays, [])
    return trace_of_columns(header, recorder.columns()), stopped, uninit


class ReplayVerdict(str, enum.Enum):
    """How one replay ended (decisions read this, never the words of `why`)."""

    CONFIRMED = "confirmed"                  # the obligation's own violation happened
    OTHER_ERROR_FIRST = "other-error-first"  # the run stopped at another runtime error
    NO_VIOLATION = "no-violation"            # the launch ran without this violation
    REFUSED = "refused"                      # the launch breaks a requires or contract
    TOO_LARGE = "too-large"                  # the launch or its arrays cannot be built
    OUT_OF_BUDGET = "out-of-budget"          # the work budget (warp-steps) was spent
    SAFETY_NET = "safety-net"                # the wall-clock safety net stopped it
    AMBIGUOUS = "ambiguous"                  # several operations stand at the position
    NO_COUNTEREXAMPLE = "no-counterexample"  # nothing to replay


@dataclass(frozen=True)
class ReplayOutcome:
    """The typed result of a replay: its verdict, the explanation for
    reports, and the counterexample that was confirmed when it differs from
    the obligation's (a variant's shapes, scalars and fill), else None;
    `observed` is the simulator's own error message when it confirmed a
    runtime error (its values are the run's, not the prover's)."""

    verdict: ReplayVerdict
    why: str
    witness: Counterexample | None = None
    observed: str | None = None

    @property
    def confirmed(self) -> bool:
        return self.verdict is ReplayVerdict.CONFIRMED

    def noted(self, note: str) -> "ReplayOutcome":
        return dataclasses.replace(self, why=self.why + note)


def _stop_verdict(stopped: Exception) -> ReplayVerdict:
    if isinstance(stopped, ReplayTimeout):
        return ReplayVerdict.SAFETY_NET
    if isinstance(stopped, (errors.SimulationBudgetExceeded, TraceFull)):
        return ReplayVerdict.OUT_OF_BUDGET
    return ReplayVerdict.OTHER_ERROR_FIRST


def _stopped_at_step_limit(stopped: Exception | None) -> bool:
    """The traced run may have ended at RACE_MAX_STEPS: the simulator's step
    limit raises StepLimitExceeded (the kernel's own errors are other
    subclasses of KernelRuntimeError)."""
    return isinstance(stopped, errors.StepLimitExceeded)


def _confirm_race(kernel: Kernel, launch: ConcreteLaunch, obligation: Obligation,
                  meter) -> ReplayOutcome:
    lines = _race_lines(obligation)
    positions = {_position(obligation.loc), _position(obligation.other_loc or obligation.loc)}
    keep = (positions, _array_of(obligation))   # only the two accesses matter
    document, stopped, uninit = _traced_run(kernel, launch, meter, keep)
    if _stopped_at_step_limit(stopped) and _find_race(document, obligation) is None \
            and meter.left >= MIN_VARIANT_WORK:
        # the race may come later (iteration 511 of a loop): run again until
        # the work budget
        document, stopped, uninit = _traced_run(kernel, launch, meter, keep, until_budget=True)
    if isinstance(stopped, errors.DataRaceError):
        if _position(stopped.loc) in positions and \
                stopped.detail.get("array", _array_of(obligation)) == _array_of(obligation):
            return ReplayOutcome(ReplayVerdict.CONFIRMED,
                                 f"the simulator detected the race at {_where(stopped)}"
                                 f"{_ran_past(uninit)}")
    found = _find_race(document, obligation)
    if found is not None:
        early = "" if stopped is None else " (in the accesses before the run stopped)"
        return ReplayOutcome(ReplayVerdict.CONFIRMED,
                             "the simulator trace shows it" + early + _ran_past(uninit) + ": "
                             + found)
    if stopped is None:
        return ReplayOutcome(ReplayVerdict.NO_VIOLATION, (
            f"the trace shows no conflicting accesses at lines {lines[0]} and {lines[1]}"
            " (the race may depend on values the counterexample does not fix)"))
    if isinstance(stopped, ReplayTimeout):
        what = _SAFETY_NET_WORDS
    elif isinstance(stopped, errors.SimulationBudgetExceeded):
        what = f"the replay's budget of {stopped.limit} warp-steps was spent"
    else:
        what = f"{type(stopped).__name__} at {_where(stopped)}"
    return ReplayOutcome(_stop_verdict(stopped), (
        f"the trace shows no conflicting accesses at lines {lines[0]} and {lines[1]} "
        f"before the run stopped ({what})"))


_SAFETY_NET_WORDS = (f"the wall-clock safety net of {SAFETY_NET_S:g} s was reached (this "
                     "outcome depends on the machine's speed)")


def _confirm_uninit(kernel: Kernel, launch: ConcreteLaunch, obligation: Obligation,
                    meter) -> ReplayOutcome:
    """A traced run in the checked mode confirms an uninit obligation when
    the simulator records an uninitialised read at its position (the run
    goes on past uninitialised reads elsewhere), or when the trace shows a
    read there (same array) that no write of the block happens before: a
    write by another thread in the same barrier interval is concurrent, so
    some schedule reads first (`backends.trace_uninit`)."""

    array = _array_of(obligation)
    document, stopped, uninit = _traced_run(kernel, launch, meter, (None, array))
    for err in uninit.errors:
        if _same_site(err, obligation):
            return ReplayOutcome(ReplayVerdict.CONFIRMED,
                                 f"the simulator recorded UninitializedReadError at {_where(err)}")
    at = _site(obligation.loc)
    for found in find_uninit_reads(document, file=obligation.loc.file):
        if (found.line, found.col) == at and (array is None or found.array == array):
            early = "" if stopped is None else " (in the accesses before the run stopped)"
            return ReplayOutcome(ReplayVerdict.CONFIRMED, (
                f"the simulator trace shows it{early}: thread {found.thread} of block "
                f"{found.block} reads {found.array}{list(found.index)} with no write of the "
                f"block before it"))
    if stopped is None:
        return ReplayOutcome(ReplayVerdict.NO_VIOLATION,
                             "the simulated launch ran without a uninit violation")
    if isinstance(stopped, ReplayTimeout):
        what = _SAFETY_NET_WORDS
    elif isinstance(stopped, errors.SimulationBudgetExceeded):
        what = f"the replay's budget of {stopped.limit} warp-steps was spent"
    else:
        what = f"{type(stopped).__name__} at {_where(stopped)}"
    return ReplayOutcome(_stop_verdict(stopped), (
        f"the simulator stopped at a different error first ({what}); the trace before it "
        f"shows no uninitialised read at line {at[0]}:{at[1]}"))


def _attempt(kernel: Kernel, obligation: Obligation, launch: ConcreteLaunch,
             meter) -> ReplayOutcome:
    """Simulate `launch` once, charging `meter`, and judge it against
    `obligation`."""
    expected = _EXPECTED_ERROR.get(obligation.kind)
    if expected is None:
        raise ValueError(f"replay: no confirmation rule for obligation kind {obligation.kind!r}")
    note = f"; {launch.note}" if launch.note else ""
    V = ReplayVerdict
    uninit = simulator.UninitializedReads()
    try:
        with _time_limit(SAFETY_NET_S):
            if obligation.kind is ObligationKind.RACE:
                return _confirm_race(kernel, launch, obligation, meter).noted(note)
            if obligation.kind is ObligationKind.UNINIT:
                return _confirm_uninit(kernel, launch, obligation, meter).noted(note)
            _simulate(kernel, launch, meter, uninit)
    except ReplayTimeout:
        return ReplayOutcome(V.SAFETY_NET, f"replay stopped: {_SAFETY_NET_WORDS}{note}")
    except errors.SimulationBudgetExceeded as err:
        return ReplayOutcome(V.OUT_OF_BUDGET,
                             f"replay spent its budget of {err.limit} simulated warp-steps{note}")
    except errors.LaunchError as err:
        return ReplayOutcome(V.REFUSED, "the launch was refused: "
                             f"{getattr(err, 'message', None) or err}")
    except expected as err:
        if not _same_site(err, obligation):
            at = obligation.loc
            return ReplayOutcome(V.OTHER_ERROR_FIRST, (
                f"the simulator stopped at a different error first ({type(err).__name__} at "
                f"{_where(err)}, not at line {at.line}:{at.col}): {err.message}{note}"))
        return ReplayOutcome(V.CONFIRMED, f"the simulator raised {type(err).__name__} at "
                                          f"{_where(err)}{_ran_past(uninit)}{note}",
                             observed=err.message)
    except errors.KernelRuntimeError as err:
        return ReplayOutcome(V.OTHER_ERROR_FIRST, (
            f"the simulator stopped at a different error first: {type(err).__name__} "
            f"at {_where(err)}: {err.message}{note}"))
    return ReplayOutcome(V.NO_VIOLATION,
                         f"the simulated launch ran without a {obligation.kind.value} "
                         f"violation{note}")


#: Uniform array contents tried when an abstraction-born counterexample's own
#: contents show nothing (its float and memory values are not concrete):
#: (float arrays, integer arrays) per variant. A descending ramp makes sorts
#: and other data-dependent swaps do their work. A negative fraction shows
#: where `int(x)` truncates toward zero (-0.75 passes `int(x) >= 0`, and
#: `int(x + x)` is -1).
CONTENT_VARIANTS: tuple[tuple[float | str, Any], ...] = (
    (-1.0, -1), (1.0e9, "ramp"), ("alternating", "alternating"), ("descending", "descending"),
    (float("nan"), 1), (-1.0e9, 1 << 30), (-0.75, 3),
)


def _is_abstracted(obligation: Obligation) -> bool:
    cex = obligation.counterexample
    return cex is not None and cex.abstracted


def _variant_fills(kernel: Kernel) -> list[dict]:
    """One fill per CONTENT_VARIANTS entry, over the global arrays without
    launch contracts (those keep the prover's contents)."""
    contracted = contracted_arrays(kernel)
    arrays = [p for p in kernel.params if isinstance(p, ArrayRef) and p.name not in contracted]
    fills = []
    for float_fill, int_fill in CONTENT_VARIANTS:
        fill = {}
        for a in arrays:
            if a.dtype.is_float:
                fill[a.name] = float_fill
            elif a.dtype.is_int:
                fill[a.name] = int_fill
        if fill:
            fills.append(fill)
    return fills


def _fills_something(fill: dict, shapes: dict) -> bool:
    """False when every array `fill` names has no element (the fill then
    changes nothing)."""
    return any(all(int(s) > 0 for s in shapes.get(name, (0,))) for name in fill)


def _variants(kernel: Kernel, cex: Counterexample):
    """The other launches tried for an abstraction-born counterexample, in
    order, as (counterexample, fill or None, how it differs from the
    prover's): each fill on the prover's shapes, then the shapes grown to
    cover the launch (`covering_shapes`) with the prover's contents and
    with each fill. Every variant is a Counterexample first, so the witness
    reported is exactly what ran."""
    fills = _variant_fills(kernel)
    for fill in fills:
        if _fills_something(fill, cex.shapes):
            yield cex, fill, ""
    for shapes in covering_shapes(kernel, cex):
        grown = with_shapes(kernel, cex, shapes)
        changed = ", ".join(f"{name}.shape={shapes[name]}" for name in shapes
                            if tuple(shapes[name]) != tuple(cex.shapes.get(name, ())))
        how = f"on array shapes grown to cover the launch ({changed})"
        yield grown, None, how
        for fill in fills:
            yield grown, fill, how


def _shrunk_variants(kernel: Kernel, cex: Counterexample):
    """For a counterexample whose arrays are too large to allocate: the
    same launch with shapes and integer scalars clamped (`clamped`) to
    the larger of 64 and the largest launch dim, with the prover's contents
    and with each fill."""
    limit = max(64, max(int(d) for d in cex.dims))
    small = clamped(kernel, cex, limit)
    if small is None:
        return
    changed = [f"{name}.shape={small.shapes[name]}" for name in small.shapes
               if tuple(small.shapes[name]) != tuple(cex.shapes.get(name, ()))]
    changed += [f"{name}={small.scalars[name]}" for name in small.scalars
                if small.scalars[name] != cex.scalars.get(name)]
    how = f"on array shapes and scalars clamped to at most {limit} ({', '.join(changed)})"
    yield small, None, how
    for fill in _variant_fills(kernel):
        yield small, fill, how


def _witness(variant: Counterexample, fill: dict | None) -> tuple[Counterexample, str]:
    """The counterexample a confirmed variant ran, and the words for its
    contents. Its facts are the fill only: the prover's violation values
    (index, shape, ...) came from the abstraction, not from this run."""
    if not fill:
        return variant, "with the prover's recorded contents"
    shown = {k: (v if not isinstance(v, float) or v == v else "nan") for k, v in fill.items()}
    witness = dataclasses.replace(
        variant, arrays={k: v for k, v in variant.arrays.items() if k not in fill},
        facts={"fill": shown})
    return witness, f"with array contents {shown} everywhere"


def _try_variants(kernel: Kernel, obligation: Obligation, variants,
                  meter) -> tuple[ReplayOutcome | None, int]:
    """(the confirmed outcome, with its witness, of the first of `variants`
    ((counterexample, fill, how) triples) that the simulator confirms while
    `meter` has work left, or None; the number of variants run)."""
    tried = 0
    for variant, fill, how in variants:
        if meter.left < MIN_VARIANT_WORK:
            break
        try:
            launch = concrete_launch(kernel, variant, fill)
        except ValueError:
            continue
        tried += 1
        outcome = _attempt(kernel, obligation, launch, meter)
        if outcome.confirmed:
            witness, contents = _witness(variant, fill)
            where = f" {how}" if how else ""
            return ReplayOutcome(ReplayVerdict.CONFIRMED, (
                f"{outcome.why}, {contents}{where} (the prover's contents came from an "
                "abstraction)"), witness, outcome.observed), tried
    return None, tried


def _first_attempt(kernel: Kernel, obligation: Obligation, launch: ConcreteLaunch,
                   meter) -> ReplayOutcome:
    """`_attempt` on the counterexample's own launch. For a kernel with loops
    and a kind cpu:native checks (proofs.confirming.native_replay), the
    simulator first gets NATIVE_SWITCH_WORK warp-steps; when it spends them,
    the same launch runs natively within its fuel (loop iterations, not
    seconds) and a confirmation there is the answer; otherwise the simulator
    runs again with the whole budget, so nothing but a confirmation changes."""
    from verikern.proofs.confirming.native_replay import (  # lazy: import cycle with confirming.native_replay
        NATIVE_KINDS, NATIVE_SWITCH_WORK, native_attempt,
    )

    if obligation.kind not in NATIVE_KINDS or not getattr(kernel, "loops", ()) \
            or meter.left <= NATIVE_SWITCH_WORK:
        return _attempt(kernel, obligation, launch, meter)
    whole = meter.limit
    meter.limit = meter.used + NATIVE_SWITCH_WORK
    try:
        outcome = _attempt(kernel, obligation, launch, meter)
    finally:
        meter.limit = whole
    if outcome.verdict is not ReplayVerdict.OUT_OF_BUDGET:
        return outcome
    deep = native_attempt(kernel, obligation, launch)
    if deep is not None and deep.confirmed:
        return deep
    outcome = _attempt(kernel, obligation, launch, meter)
    if deep is not None and outcome.verdict is ReplayVerdict.OUT_OF_BUDGET:
        outcome = outcome.noted(f"; {deep.why}")
    return outcome


def replay_outcome(kernel: Kernel, obligation: Obligation, *,
                   budget: int = REPLAY_BUDGET) -> ReplayOutcome:
    """Replay `obligation`'s counterexample, and for an abstraction-born one
    whose own launch shows nothing, a few variants (uniform contents
    CONTENT_VARIANTS, shapes grown to cover the launch) within the same work
    budget (`budget` warp-steps for every launch together) -- or, when its
    arrays are too large to allocate, the launch with shapes and scalars
    clamped (`_shrunk_variants`). When a run stops at another runtime error
    first, the offending threads (or blocks) run again first, alone; when it
    spends the budget, the same launch runs on cpu:native within its fuel
    (proofs.confirming.native_replay)."""
    V = ReplayVerdict
    cex = obligation.counterexample
    if cex is None:
        return ReplayOutcome(V.NO_COUNTEREXAMPLE, "no counterexample to replay")
    copies = _ambiguous(kernel, obligation)
    if copies:
        return ReplayOutcome(V.AMBIGUOUS, (
            f"{copies} operations of this kind stand at line {obligation.loc.line}:"
            f"{obligation.loc.col} (inlined copies of a func called more than once, "
            "or chained operations); the simulator's error could not say which one failed"))

    meter = WorkMeter(budget)
    wraps = wrap_variants(kernel, cex, _variant_fills(kernel))
    try:
        launch = concrete_launch(kernel, cex)
    except ValueError as err:
        outcome = ReplayOutcome(V.TOO_LARGE, str(err))
        # a narrow counter wraps only on a launch of its own (counter_wrap)
        variants = itertools.chain(wraps, _shrunk_variants(kernel, cex)) \
            if narrow_counters(kernel) else _shrunk_variants(kernel, cex)
    else:
        outcome = _first_attempt(kernel, obligation, launch, meter)
        alone = focused(kernel, launch, cex) \
            if outcome.verdict is V.OTHER_ERROR_FIRST else None
        if alone is not None and meter.left >= MIN_VARIANT_WORK:
            again = _attempt(kernel, obligation, alone, meter)
            if again.confirmed:
                return again
        # any outcome but a spent budget may differ on other contents
        variants = itertools.chain(_variants(kernel, cex), float_scalar_variants(kernel, cex),
                                   wraps) if meter.left >= MIN_VARIANT_WORK else iter(())
    if outcome.confirmed or not _is_abstracted(obligation):
        return outcome
    found, tried = _try_variants(kernel, obligation, variants, meter)
    if found is not None:
        return found
    if tried:
        outcome = outcome.noted(f" (nor did {tried} other array contents or shapes tried)")
    return outcome


def replay_with_witness(kernel: Kernel, obligation: Obligation, *,
                        budget: int = REPLAY_BUDGET) -> tuple[bool, str, Counterexample | None]:
    """`replay_outcome` as (confirmed, why, witness or None)."""
    out = replay_outcome(kernel, obligation, budget=budget)
    return out.confirmed, out.why, out.witness


def replay(kernel: Kernel, obligation: Obligation, *, budget: int = REPLAY_BUDGET) -> tuple[bool, str]:
    """Confirm `obligation`'s counterexample on the simulator: (True, how) when
    the simulated launch shows the violation at the obligation's line, else
    (False, why not)."""
    out = replay_outcome(kernel, obligation, budget=budget)
    return out.confirmed, out.why
