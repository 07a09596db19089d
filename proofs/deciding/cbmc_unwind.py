"""CBMC's unwinding depth per loop, read off the kernel's MIR.

`unwind_plan(kernel, loops, dims, block_dim)` gives every loop CBMC sees in
the C harness (encoders.c.CLoop) a depth: a MIR loop whose trip count is
bounded by what the kernel states (`trip_bounds`) gets that bound plus one
(CBMC's unwinding assertion of a loop that runs t times holds at depth
t + 1); main's barrier-interval loops get the number of barrier intervals a
thread can pass through (every barrier weighted by the trip bounds of the
loops around it; the loop runs once per interval and leaves in the last
one without going back, so that number is its depth); every other loop the default depth (`--unwind`, else
DEFAULT_UNWIND).

Invariant (soundness): the plan only chooses how far CBMC unrolls. CBMC runs
with `--unwinding-assertions`, so a bound that is too small makes CBMC fail
an unwinding assertion (the obligation is `unknown`, "bounded to ..."),
never a proof over fewer iterations than the kernel runs. A wrong bound can
cost a verdict, never soundness.

Trip bounds (`trip_bounds`), each a pure function of the MIR and the launch
the caller fixes:
- `for v in range(start, stop, step)` with a constant step: the largest
  count over the ranges of start and stop;
- a `while` loop whose header tests one counter phi against a value defined
  outside the loop (`<`, `<=`, `>`, `>=`), the counter updated on every
  back edge by one constant step (`v + c`, `v - c`, `v * c`, `v // c`,
  `v << c`, `v >> c`): the largest count over the ranges of its start and
  of the bound, found by running the update (the count is monotone in
  both, so the extremes give the largest); a loop that would run past
  MAX_TRIPS or out of its type has no bound;
- ranges (`value_range`) come from constants, the block size (1..1024, or
  the fixed one), thread_idx (below the block size), fixed launch dims,
  arithmetic by constants, and the values an enclosing loop's counter takes
  in its body: `s = vk.block_dim() // 2; while s > 0: s //= 2` runs at most
  10 times, `j = k // 2` inside `while k <= 64: k *= 2` at most 6.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

from verikern.encoders.c.harness import CLoop
from verikern.encoders.c.loops import ABSTRACTED_DEPTH
from verikern.mir.facts import definitions
from verikern.mir.nodes import (
    Barrier, BinOp, Branch, Cast, Compare, Const, Kernel, LoopInfo, Phi, Special, Value,
)

#: Unwinding depth of a loop whose trip count the kernel does not bound.
DEFAULT_UNWIND = 8
#: The most iterations a bound is read off for (more: no bound, the default).
MAX_TRIPS = 4096
#: The hardware's largest block (docs/LANGUAGE.md section 5).
MAX_BLOCK = 1024

Range = tuple[int, int]


@dataclass(frozen=True)
class UnwindPlan:
    """The depth of every loop CBMC sees: `depths` ((CBMC loop id, depth,
    derived), in the order of CLoop; derived: read off the kernel), and
    `default` for any other loop (`--unwind`)."""

    depths: tuple[tuple[str, int, bool], ...]
    default: int
    #: (CBMC loop id, the MIR loop header its goto returns to, or None)
    headers: tuple[tuple[str, str | None], ...] = ()

    def argv(self) -> list[str]:
        """cbmc's options: `--unwind DEFAULT --unwindset id:N,...`."""
        out = ["--unwind", str(self.default)]
        if self.depths:
            out += ["--unwindset", ",".join(f"{i}:{n}" for i, n, _ in self.depths)]
        return out

    @property
    def derived(self) -> bool:
        """Was every loop's depth read off the kernel?"""
        return all(d for _, _, d in self.depths)

    @property
    def deepest(self) -> int:
        """The largest depth of any loop."""
        return max([self.default, *(n for _, n, _ in self.depths)])

    def deeper(self, factor: int) -> "UnwindPlan":
        """The same plan with every depth not read off the kernel times
        `factor` (a fixed launch's second run); derived depths stay."""
        return UnwindPlan(tuple((i, n if d else n * factor, d) for i, n, d in self.depths),
                          self.default * factor, self.headers)

    def describe(self) -> str:
        """`--unwind N` and the derived depths, for a verdict's reason."""
        exact = [f"{i}:{n}" for i, n, d in self.depths if d]
        return f"--unwind {self.default}" + (f" --unwindset {','.join(exact)}" if exact else "")


def _binop_range(op: str, a: Range, c: int) -> Range | None:
    """The range of `a op c` for a constant c (None: not one this reads)."""
    lo, hi = a
    if op == "add":
        return lo + c, hi + c
    if op == "sub":
        return lo - c, hi - c
    if op == "mul" and c >= 0:
        return lo * c, hi * c
    if op in ("floordiv", "div") and c > 0:
        return lo // c, hi // c
    if op == "shr" and 0 <= c < 64:
        return lo >> c, hi >> c
    if op == "shl" and 0 <= c < 64 and lo >= 0:
        return lo << c, hi << c
    if op == "and" and c >= 0:
        return (0, c) if lo < 0 else (0, min(hi, c))
    return None


def _type_range(t) -> Range:
    if t.is_bool:
        return 0, 1
    bits = t.bits
    return (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if t.is_signed else (0, (1 << bits) - 1)


@dataclass(frozen=True)
class _Launch:
    """What the launch fixes: the block size's range and fixed dims."""

    block: Range
    dims: tuple[int, ...] | None


def value_range(op, defs: dict, launch: _Launch, counters: dict[int, Range]) -> Range | None:
    """The values `op` can take (inclusive), or None when this reads none
    (module docstring). `counters`: the ranges loop counters take in their
    loop's body."""
    if isinstance(op, Const):
        return (int(op.value), int(op.value)) if isinstance(op.value, (int, bool)) else None
    if not isinstance(op, Value) or not (op.type.is_int or op.type.is_bool):
        return None
    if op.id in counters:
        return counters[op.id]
    d = defs.get(op.id)
    if isinstance(d, Special):
        if d.kind == "block_dim":
            return launch.block
        if d.kind == "thread_idx":
            return 0, launch.block[1] - 1
        if d.kind == "launch_dim" and launch.dims is not None and d.dim < len(launch.dims):
            return launch.dims[d.dim], launch.dims[d.dim]
        return None
    if isinstance(d, Cast) and d.operand.type.is_int:
        inner = value_range(d.operand, defs, launch, counters)
        lo, hi = _type_range(op.type)
        return inner if inner is not None and lo <= inner[0] and inner[1] <= hi else None
    if isinstance(d, BinOp):
        for x, y in ((d.lhs, d.rhs), (d.rhs, d.lhs)):
            if isinstance(y, Const) and isinstance(y.value, int):
                if x is d.rhs and d.op not in ("add", "mul", "and"):
                    continue       # c - x, c // x: not read
                inner = value_range(x, defs, launch, counters)
                out = _binop_range(d.op, inner, int(y.value)) if inner is not None else None
                lo, hi = _type_range(op.type)
                return out if out is not None and lo <= out[0] and out[1] <= hi else None
    return None


#: The update of a counter by a constant step c, as Python on ints.
_STEPS: dict[str, Callable[[int, int], int]] = {
    "add": lambda v, c: v + c, "sub": lambda v, c: v - c, "mul": lambda v, c: v * c,
    "floordiv": lambda v, c: v // c, "div": lambda v, c: v // c,
    "shl": lambda v, c: v << c, "shr": lambda v, c: v >> c,
}
_TESTS: dict[str, Callable[[int, int], bool]] = {
    "lt": lambda v, b: v < b, "le": lambda v, b: v <= b,
    "gt": lambda v, b: v > b, "ge": lambda v, b: v >= b,
}
_MIRROR = {"lt": "gt", "le": "ge", "gt": "lt", "ge": "le"}
_NEGATE = {"lt": "ge", "le": "gt", "gt": "le", "ge": "lt"}


@dataclass(frozen=True)
class _Counter:
    """A loop's counter: it starts in `start`, is updated by `step(v, c)` on
    every back edge and the loop runs while `test(v, bound)`."""

    value: Value
    start: Range
    step: str
    c: int
    test: str
    bound: Range


def _run(counter: _Counter, start: int, bound: int) -> list[int] | None:
    """The values the counter takes in the body, or None past MAX_TRIPS or
    out of its type."""
    lo, hi = _type_range(counter.value.type)
    v, seen = start, []
    while _TESTS[counter.test](v, bound):
        seen.append(v)
        if len(seen) > MAX_TRIPS:
            return None
        v = _STEPS[counter.step](v, counter.c)
        if not lo <= v <= hi:
            return None
    return seen


def _counter(loop: LoopInfo, kernel: Kernel, defs: dict, launch: _Launch,
             counters: dict[int, Range]) -> _Counter | None:
    """The counter of `loop` (module docstring), or None."""
    if loop.range is not None:
        r = loop.range
        if not (isinstance(r.step, Const) and isinstance(r.step.value, int) and r.step.value != 0):
            return None
        start = value_range(r.start, defs, launch, counters)
        stop = value_range(r.stop, defs, launch, counters)
        if start is None or stop is None:
            return None
        return _Counter(r.counter, start, "add", int(r.step.value),
                        "lt" if r.step.value > 0 else "gt", stop)
    header = kernel.block(loop.header)
    term = header.terminator
    if not isinstance(term, Branch) or not isinstance(term.cond, Value):
        return None
    test = defs.get(term.cond.id)
    if not isinstance(test, Compare) or test.op not in _TESTS:
        return None
    phis = {p.result.id: p for p in header.phis}
    if isinstance(test.lhs, Value) and test.lhs.id in phis:
        phi, other, op = phis[test.lhs.id], test.rhs, test.op
    elif isinstance(test.rhs, Value) and test.rhs.id in phis:
        phi, other, op = phis[test.rhs.id], test.lhs, _MIRROR[test.op]
    else:
        return None
    if term.if_true not in loop.body:
        op = _NEGATE[op]
    # `other` may be computed in the loop (the header's `vk.block_dim()`): a
    # range value_range reads depends on no value the loop changes
    bound = value_range(other, defs, launch, counters)
    update = _update(phi, loop, defs)
    starts = [value_range(v, defs, launch, counters) for lbl, v in phi.incoming
              if lbl not in loop.body]
    if bound is None or update is None or not starts or any(s is None for s in starts):
        return None
    lo = min(s[0] for s in starts if s is not None)
    hi = max(s[1] for s in starts if s is not None)
    return _Counter(phi.result, (lo, hi), update[0], update[1], op, bound)


def _update(phi: Phi, loop: LoopInfo, defs: dict) -> tuple[str, int] | None:
    """(op, c) when every back edge gives the counter `phi op c`."""
    steps = set()
    for lbl, v in phi.incoming:
        if lbl not in loop.body:
            continue
        d = defs.get(v.id) if isinstance(v, Value) else None
        if not (isinstance(d, BinOp) and d.op in _STEPS and isinstance(d.rhs, Const)
                and isinstance(d.rhs.value, int)
                and isinstance(d.lhs, Value) and d.lhs.id == phi.result.id):
            return None
        steps.add((d.op, int(d.rhs.value)))
    return steps.pop() if len(steps) == 1 else None


def trip_bounds(kernel: Kernel, dims: Sequence[int] | None = None,
                block_dim: int | None = None) -> dict[str, int | None]:
    """MIR loop header -> the most times the loop body runs on one entry
    (module docstring), or None when the kernel does not bound it."""
    fixed = block_dim if block_dim is not None else kernel.block_dim
    launch = _Launch((fixed, fixed) if fixed is not None else (1, MAX_BLOCK),
                     tuple(dims) if dims else None)
    defs = definitions(kernel)
    body_ranges: dict[str, tuple[int, Range]] = {}     # header -> (counter id, range)
    out: dict[str, int | None] = {}
    for loop in kernel.loops:           # outermost first: inner starts may read outer counters
        counters = dict(body_ranges[lp.header] for lp in kernel.loops
                        if lp.header in body_ranges and loop.header in lp.body
                        and lp.header != loop.header)
        c = _counter(loop, kernel, defs, launch, counters)
        runs = [] if c is None else [
            _run(c, s, b) for s in sorted(set(c.start)) for b in sorted(set(c.bound))]
        if c is None or any(r is None for r in runs):
            out[loop.header] = None
            continue
        seen = [v for r in runs if r is not None for v in r]
        out[loop.header] = max(len(r) for r in runs if r is not None)
        if seen:
            body_ranges[loop.header] = (c.value.id, _body_range(c, min(seen), max(seen)))
    return out


def _body_range(c: _Counter, low: int, high: int) -> Range:
    """Every value the counter takes in the body, from any start and bound
    in their ranges: from the extreme start to the value the test allows."""
    if c.test in ("lt", "le"):
        return min(low, c.start[0]), max(high, c.bound[1] - (1 if c.test == "lt" else 0))
    return min(low, c.bound[0] + (1 if c.test == "gt" else 0)), max(high, c.start[1])


def barrier_intervals(kernel: Kernel, trips: dict[str, int | None]) -> int | None:
    """The most barrier intervals one thread runs (1 + every barrier times the
    trip bounds of the loops around it), None when a loop around a barrier
    has no bound."""
    total = 1
    for b in kernel.blocks:
        for ins in b.instrs:
            if isinstance(ins, Barrier):
                times = 1
                for lp in kernel.loops:
                    if b.label in lp.body:
                        t = trips.get(lp.header)
                        if t is None:
                            return None
                        times *= t
                total += times
    return total


def barrier_every_iteration(kernel: Kernel) -> frozenset[str]:
    """Headers of the MIR loops every iteration of which runs a barrier: no
    path from the header back to it through the loop's body avoids a block
    holding a Barrier. vk_step returns at each barrier, so one call of it
    goes back to such a header at most once (from where it resumed, around
    to the next barrier): CBMC's depth 2 covers any trip count, per call
    (CBMC counts a loop's iterations per call frame)."""
    barrier_blocks = {b.label for b in kernel.blocks
                      if any(isinstance(ins, Barrier) for ins in b.instrs)}
    out = set()
    for loop in kernel.loops:
        if loop.header in barrier_blocks:
            out.add(loop.header)
            continue
        body = set(loop.body) - barrier_blocks
        seen: set[str] = set()
        todo = list(kernel.block(loop.header).terminator.successors())
        back = False
        while todo and not back:
            lbl = todo.pop()
            if lbl == loop.header:
                back = True
            elif lbl in body and lbl not in seen:
                seen.add(lbl)
                todo.extend(kernel.block(lbl).terminator.successors())
        if not back:
            out.add(loop.header)
    return frozenset(out)


def unwind_plan(kernel: Kernel, loops: Sequence[CLoop], dims: Sequence[int] | None = None,
                block_dim: int | None = None, default: int | None = None,
                abstracted: frozenset[str] = frozenset()) -> UnwindPlan:
    """The depth of every loop of the C harness (module docstring); `default`
    (`--unwind`) for the loops the kernel does not bound; `abstracted`: the
    MIR loop headers whose loops the C checks through an invariant
    (encoders.c.loops: each back edge taken at most once per entry, depth
    ABSTRACTED_DEPTH; their unwinding assertions still hold CBMC to it)."""
    trips = trip_bounds(kernel, dims, block_dim)
    intervals = barrier_intervals(kernel, trips)
    once_per_call = barrier_every_iteration(kernel)
    base = default if default is not None else DEFAULT_UNWIND
    depths = []
    for lp in loops:
        if lp.header is None and lp.cbmc_id.startswith("main."):
            n = intervals      # one call of vk_step per interval; the last one leaves
        elif lp.header in abstracted:
            n = ABSTRACTED_DEPTH   # back to the header at most once per entry (pass 0 -> 1)
        elif lp.header in once_per_call:
            n = 2              # back to the header at most once per call of vk_step
        else:
            t = trips.get(lp.header) if lp.header is not None else None
            n = t + 1 if t is not None else None
        depths.append((lp.cbmc_id, base, False) if n is None else (lp.cbmc_id, max(2, n), True))
    return UnwindPlan(tuple(depths), base, tuple((lp.cbmc_id, lp.header) for lp in loops))


def blocks_before(kernel: Kernel, plan: UnwindPlan, failed: Sequence[str]) -> frozenset[str]:
    """The blocks of `kernel` no path reaches from the header of a loop
    whose unwinding assertion failed (`failed`: CBMC loop ids). Empty when
    one of them is main's (the barrier intervals are not covered) or returns
    to no MIR loop header.

    A check in such a block that CBMC reports as holding holds for every
    execution (`cbmc_answer.decide`): a thread that breaks it there does so
    before it ever enters those loops, and the harness has an execution in
    which that thread runs alone (T1, no T2) up to the check, within every
    depth CBMC unwound (the loops it passed are bounded; their unwinding
    assertions held). Checks of one thread only (bounds, div-zero, assert,
    invariant): a race check of T2 runs after T1's whole interval, which
    may have entered such a loop."""
    header_of = dict(plan.headers)
    if any(i.startswith("main.") or header_of.get(i) is None for i in failed):
        return frozenset()
    reached: set[str] = set()
    todo = [header_of[i] for i in failed]
    while todo:
        lbl = todo.pop()
        if lbl is not None and lbl not in reached:
            reached.add(lbl)
            todo.extend(kernel.block(lbl).terminator.successors())
    return frozenset(b.label for b in kernel.blocks) - reached
