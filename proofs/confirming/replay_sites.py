"""Where a replay's violation happened: whether the simulator's error or a
race in the trace of the accesses is the obligation's own, at its source
position (line and column) and on its array, and how many instructions share
that position (a position several copies share cannot be told apart).

Invariant: `_same_site` and `_find_race` answer True / a race only for the
obligation's kind of violation at the obligation's position (for bounds and
uninit reads on its array, for divergence at its barrier); replay
(proofs/confirming/replay.py) confirms nothing else.
"""
from __future__ import annotations

import verikern.errors as errors
from verikern.backends.trace_analysis import Trace, find_races
from verikern.mir.facts import is_int_division
from verikern.mir.nodes import Assert, Atomic, Barrier, BinOp, Kernel, Load, SourceLoc, Store
from verikern.proofs.obligations import Obligation, ObligationKind

_EXPECTED_ERROR: dict[ObligationKind, type[errors.KernelRuntimeError]] = {
    ObligationKind.BOUNDS: errors.OutOfBoundsError,
    ObligationKind.DIV_ZERO: errors.IntegerDivisionError,
    ObligationKind.ASSERT: errors.KernelAssertionError,
    ObligationKind.INVARIANT: errors.KernelAssertionError,
    ObligationKind.DIVERGENCE: errors.BarrierDivergenceError,
    ObligationKind.RACE: errors.DataRaceError,
    ObligationKind.UNINIT: errors.UninitializedReadError,
    ObligationKind.UNASSIGNED: errors.UnassignedReadError,
}


def _where(err: Exception) -> str:
    """Where a run stopped: the error's line and thread, when it carries them
    (kernel runtime errors do; a timeout or budget error does not)."""
    loc = getattr(err, "loc", None)
    who = ""
    thread = getattr(err, "thread", None)
    if thread is not None:
        who = f" (thread {thread} of block {getattr(err, 'block', None)})"
    return (f"line {loc.line}" if loc is not None else "an unknown line") + who


def _race_lines(obligation: Obligation) -> tuple[int, int]:
    other = obligation.other_loc or obligation.loc
    return obligation.loc.line, other.line


def _position(loc: SourceLoc | None) -> tuple[int, int] | None:
    return None if loc is None else (loc.line, loc.col)


def _site(loc: SourceLoc) -> tuple[int, int]:
    """(line, col) of a location that is known to exist."""
    return loc.line, loc.col


def _array_of(obligation: Obligation) -> str | None:
    cex = obligation.counterexample
    return cex.facts.get("array") if cex is not None else None


def _same_site(err: errors.KernelRuntimeError, obligation: Obligation) -> bool:
    """The simulator's error is the obligation's violation: the same source
    position (line and column), and for bounds the same array; for
    divergence, the obligation's barrier is the one threads wait at or the
    one the missing thread waits at."""
    at = _position(obligation.loc)
    if obligation.kind is ObligationKind.DIVERGENCE:
        return at in (_position(err.loc), _position(err.detail.get("other_barrier")))
    if _position(err.loc) != at:
        return False
    if obligation.kind is ObligationKind.BOUNDS:
        wanted = _array_of(obligation)
        dim = obligation.counterexample.facts.get("dim") if obligation.counterexample else None
        return (wanted is None or err.detail.get("array") == wanted) and \
            (dim is None or err.detail.get("dim", dim) == dim)
    if obligation.kind is ObligationKind.UNINIT:
        wanted = _array_of(obligation)
        return wanted is None or err.detail.get("array") == wanted
    return True


_SITE_CLASSES = {
    ObligationKind.BOUNDS: (Load, Store, Atomic), ObligationKind.RACE: (Load, Store, Atomic),
    ObligationKind.DIVERGENCE: (Barrier,), ObligationKind.ASSERT: (Assert,),
    ObligationKind.INVARIANT: (Assert,), ObligationKind.DIV_ZERO: (BinOp,),
    ObligationKind.UNINIT: (Load, Atomic), ObligationKind.UNASSIGNED: (Assert,),
}


def _ambiguous(kernel: Kernel, obligation: Obligation) -> int:
    """How many instructions of the obligation's kind stand at its source
    position (on its array), when more than one: a func inlined at several
    calls puts copies at one position, as do chained operations (`n // d // e`),
    and the simulator's error cannot say which one failed. 0 when the
    position is unambiguous."""
    classes = _SITE_CLASSES.get(obligation.kind, ())
    array = _array_of(obligation)
    at = {_position(obligation.loc), _position(obligation.other_loc or obligation.loc)}
    copies: dict[tuple, set] = {}      # (position, instruction class) -> distinct copies
    for n, (_, ins) in enumerate(kernel.instructions()):
        cls = type(ins)
        if cls not in classes or _position(ins.loc) not in at:
            continue
        if cls is BinOp and not is_int_division(ins):
            continue
        if array is not None and getattr(getattr(ins, "array", None), "name", array) != array:
            continue
        ident: tuple[object, ...]
        if hasattr(ins, "array"):        # the components of one vector access are one copy
            ident = tuple(map(repr, ins.indices[:ins.array.ndim]))
        elif cls is BinOp:
            ident = (repr(ins.lhs), repr(ins.rhs))
        else:
            ident = (n,)
        copies.setdefault((_position(ins.loc), cls), set()).add(ident)
    most = max((len(v) for v in copies.values()), default=0)
    return most if most > 1 else 0


def _find_race(document: Trace, obligation: Obligation) -> str | None:
    """A description of a race in the trace between accesses at the
    obligation's two source positions on its array (distinct threads, one
    element, same barrier interval of one block or different blocks for
    global arrays, at least one writing, not both atomic --
    verikern.backends.trace_analysis.find_races decides); None if there is none."""
    wanted = sorted([_site(obligation.loc), _site(obligation.other_loc or obligation.loc)])
    array = _array_of(obligation)
    for race in find_races(document):
        if sorted([(race.line, race.col), (race.other_line, race.other_col)]) == wanted \
                and (array is None or race.array == array):
            return race.short().split(": error: ", 1)[-1]
    return None
