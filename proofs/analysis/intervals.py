"""Barrier intervals: which access sites two threads of one block can execute
between the same pair of barriers.

Invariant: an interval starts at kernel entry or just after a Barrier and
extends along every CFG path (back edges included) until the next Barrier.
If two threads of a block execute sites s1 and s2 in the same dynamic barrier
interval, then some start p reaches both s1 and s2 barrier-free
(`IntervalMap.common_starts`). `crossed` records, per path, the loops whose
back edge was taken (or that were left) since p; threads that agree on it for
a loop whose every cycle passes a barrier are in the same iteration of it.
`entered` names loops proven (by the caller, with z3) to run their body at
least once whenever they are entered: a path through such a loop from its
entry passes a barrier if every cycle of it does.

`crossed` keeps only the marks of loops with a barrier in their body
(`loops_with_barrier`): every query reads only those (the loops of
`barrier_every_cycle`, the loops around them and `_diverged`'s loops all have
one), and the marks' updates commute with dropping the others, so the walk
over the smaller states gives the same answers with far fewer states (a
barrier-free kernel of many loops had one state per subset of its loops).

The walk is bounded by a count (`limit`: states visited plus instructions
scanned, never seconds). A map whose count ran out (`spent`) keeps no
reachability and answers conservatively for the race and shared-load callers:
every start is common to every pair of sites, no loop iteration is shared,
every path may go through a loop with a barrier -- more pairs of accesses
possibly concurrent, never fewer. A race its queries find on such a map is not
believed (the prover reports it undecided with `spent_reason`).
"""
from __future__ import annotations

from dataclasses import dataclass

from verikern.mir.cfg import forward_successors
from verikern.mir.facts import accesses_memory, is_barrier
from verikern.mir.nodes import Barrier, Kernel, Return

Point = tuple[str, int]            # (block label, instruction position)
ENTRY: Point = ("<entry>", -1)


@dataclass(frozen=True)
class Start:
    point: Point                   # ENTRY or the barrier's position
    line: int                      # source line of the barrier (0: kernel start)


class _Spent(Exception):
    """The walk's count ran out (caught by IntervalMap.__init__)."""


class IntervalMap:
    """Barrier-free reachability from every interval start."""

    def __init__(self, kernel: Kernel, entered: frozenset[str] = frozenset(),
                 limit: int | None = None):
        self.kernel = kernel
        self.entered = entered
        self.loop_body = {lp.header: set(lp.body) for lp in kernel.loops}
        self.back_edges = {(latch, lp.header) for lp in kernel.loops for latch in lp.latches}
        self.loops_with_barrier = {
            h for h, body in self.loop_body.items()
            if any(isinstance(ins, Barrier) for lbl in body
                   for ins in kernel.block(lbl).instrs)}
        self.starts: list[Start] = [Start(ENTRY, 0)]
        for b in kernel.blocks:
            for i, ins in enumerate(b.instrs):
                if isinstance(ins, Barrier):
                    self.starts.append(Start((b.label, i), ins.loc.line))
        #: the walk's count: states visited plus instructions scanned
        self.limit = limit
        self.steps = 0
        self.spent = False
        # start point -> site -> set of crossed-sets
        self.sites_from: dict[Point, dict[Point, set[frozenset]]] = {}
        self.barriers_from: dict[Point, set[Point]] = {}
        try:
            for s in self.starts:
                if s.point == ENTRY:
                    sites, bars = self._walk(kernel.entry.label, 0)
                else:
                    sites, bars = self._walk(s.point[0], s.point[1] + 1)
                self.sites_from[s.point] = sites
                self.barriers_from[s.point] = bars
        except _Spent:
            self.spent = True
            self.sites_from, self.barriers_from = {}, {}
        self.header_exit_only = {
            h for h, body in self.loop_body.items()
            if all(succ in body or lbl == h for lbl in body
                   for succ in kernel.block(lbl).terminator.successors())
            and not any(isinstance(kernel.block(lbl).terminator, Return)
                        for lbl in body)}
        # innermost loops first: an outer loop's cycles may pass through an
        # inner loop that always runs (and so always passes a barrier)
        self.barrier_every_cycle: set[str] = set()
        for h in sorted(self.loop_body, key=lambda h: len(self.loop_body[h])):
            if self._every_cycle_has_barrier(h):
                self.barrier_every_cycle.add(h)

    @property
    def spent_reason(self) -> str:
        """Why a spent map's race findings are not believed (a count, never seconds)."""
        return (f"the barrier-interval map of the kernel was cut after {self.limit:,} steps "
                f"(states of its walk and instructions scanned; {len(self.starts) - 1} "
                "barriers), so which accesses share a barrier interval is not known and "
                "every pair was taken as possibly concurrent; raise --budget")

    def _walk(self, label: str, pos: int):
        sites: dict[Point, set[frozenset]] = {}
        bars: set[Point] = set()
        seen = set()
        kept = self.loops_with_barrier
        # loops whose leaving changes a kept mark or `fresh`
        exits = {h: body for h, body in self.loop_body.items() if h in kept or h in self.entered}
        # `fresh`: `entered` loops the path came into from outside and has not
        # yet gone around; leaving one at its header is infeasible
        # (the sets hold loop headers and ("left", header) marks)
        work: list[tuple[str, int, frozenset, frozenset]] = [(label, pos, frozenset(), frozenset())]
        while work:
            lbl, p, crossed, fresh = work.pop()
            if (lbl, p, crossed, fresh) in seen:
                continue
            seen.add((lbl, p, crossed, fresh))
            block = self.kernel.block(lbl)
            self._count(1 + len(block.instrs) - p)
            stopped = False
            for i in range(p, len(block.instrs)):
                ins = block.instrs[i]
                if is_barrier(ins):
                    bars.add((lbl, i))
                    stopped = True
                    break
                if accesses_memory(ins):
                    sites.setdefault((lbl, i), set()).add(crossed)
            if stopped:
                continue
            for succ in block.terminator.successors():
                if lbl in fresh and succ not in self.loop_body[lbl]:
                    continue
                c, f = set(crossed), set(fresh)
                if (lbl, succ) in self.back_edges:
                    if succ in kept:
                        c.add(succ)
                    f.discard(succ)
                elif succ in self.entered and lbl not in self.loop_body[succ]:
                    f.add(succ)
                for h, body in exits.items():
                    if lbl in body and succ not in body:
                        if h in kept:
                            c.add(("left", h))
                        f.discard(h)
                work.append((succ, 0, frozenset(c), frozenset(f)))
        return sites, bars

    def _count(self, steps: int) -> None:
        self.steps += steps
        if self.limit is not None and self.steps > self.limit:
            raise _Spent

    def _every_cycle_has_barrier(self, header: str) -> bool:
        body = self.loop_body[header]
        seen, work = set(), [header]
        while work:
            lbl = work.pop()
            if lbl in seen:
                continue
            seen.add(lbl)
            block = self.kernel.block(lbl)
            if any(isinstance(ins, Barrier) for ins in block.instrs):
                continue
            for succ in block.terminator.successors():
                if succ == header and (lbl, succ) in self.back_edges:
                    return False
                if succ not in body:
                    continue
                if self._always_passes_barrier(succ, lbl):
                    continue
                work.append(succ)
        return True

    def _always_passes_barrier(self, header: str, pred: str) -> bool:
        """Entering loop `header` from `pred` (outside it), the thread passes a
        barrier before leaving: its body runs at least once (`entered`), it is
        left only at its header, and every cycle of it passes a barrier."""
        body = self.loop_body.get(header)
        return (body is not None and pred not in body and header in self.entered
                and header in self.barrier_every_cycle and header in self.header_exit_only)

    def common_starts(self, s1: Point, s2: Point) -> list[Start]:
        """Starts from which both sites are reachable barrier-free (a spent map: all)."""
        if self.spent:
            return list(self.starts)
        return [st for st in self.starts
                if s1 in self.sites_from[st.point] and s2 in self.sites_from[st.point]]

    def same_iteration_loops(self, s1: Point, s2: Point, starts: list[Start]) -> frozenset[str]:
        """Loops (headers) whose iteration two threads of a block executing s1
        and s2 in one barrier interval must share: every cycle of the loop
        passes a barrier, both paths from every common start crossed its back
        edge equally often (0 or 1), and both re-entered it through enclosing
        loops alike or not at all. A site after the loop is then in the
        iteration that left it. Path pairs in which, after the same back edges,
        one thread stays in the loop and the other leaves it are impossible
        (the exits of loops with barriers are block-uniform: divergence
        obligations) and are ignored. A spent map: none."""
        if self.spent:
            return frozenset()
        combos = [(c1, c2) for st in starts
                  for c1 in self.sites_from[st.point][s1]
                  for c2 in self.sites_from[st.point][s2]
                  if not self._diverged(s1, s2, c1, c2)]
        out = set()
        for h in self.barrier_every_cycle:
            body = self.loop_body[h]
            in1, in2 = s1[0] in body, s2[0] in body
            if not (in1 or in2):
                continue
            outer = {o for o, ob in self.loop_body.items() if o != h and h in ob}
            ok = True
            for c1, c2 in combos:
                left1, left2 = ("left", h) in c1, ("left", h) in c2
                if (h in c1) != (h in c2):
                    ok = False
                elif outer & (c1 | c2):
                    if not (in1 and in2) or (outer & c1) != (outer & c2) or left1 != left2:
                        ok = False
                # inside: never left; outside: got there by leaving it
                elif left1 == in1 or left2 == in2:
                    ok = False
            if ok:
                out.add(h)
        return frozenset(out)

    def _diverged(self, s1: Point, s2: Point, c1: frozenset, c2: frozenset) -> bool:
        """Path pair impossible for two threads of one barrier interval: after
        the same number of back edges of a loop with barriers whose only way out
        is its header, one thread stayed in the loop and the other left it,
        i.e. they decided its (block-uniform, by the divergence obligations)
        exit test differently at the same header visit. Crossing counts are
        equal when neither crossed, or both did and every cycle has a barrier."""
        for g in self.loops_with_barrier & self.header_exit_only:
            both = g in c1 and g in c2
            if not ((g not in c1 and g not in c2) or (both and g in self.barrier_every_cycle)):
                continue
            body = self.loop_body[g]
            left1, left2 = ("left", g) in c1, ("left", g) in c2
            stay1 = s1[0] in body and s1[0] != g and not left1
            stay2 = s2[0] in body and s2[0] != g and not left2
            if (stay1 and left2) or (stay2 and left1):
                return True
        return False

    def through_barrier_loop(self, s1: Point, s2: Point, starts: list[Start]) -> bool:
        """Whether some barrier-free path from a common start to s1 or s2 goes
        around or out of a loop that contains a barrier: the two-thread query
        does not encode which iterations skipped that barrier, so a race
        found through such a path needs a replay to be believed. A spent
        map: yes."""
        if self.spent:
            return True
        for st in starts:
            for site in (s1, s2):
                for crossed in self.sites_from[st.point].get(site, ()):
                    for x in crossed:
                        h = x[1] if isinstance(x, tuple) else x
                        if h in self.loops_with_barrier:
                            return True
        return False

    def path_blocks(self, start: Point, site: Point) -> tuple[str | None, tuple[str, ...]]:
        """What a thread that runs `site` in a barrier interval begun at
        `start` did, as blocks to use with its `reach` terms: `(ran, skipped)`.

        `ran` is the start barrier's block when that barrier lies outside
        every loop (it ran exactly once, before this interval), else None.
        `skipped` are the blocks of the barriers outside every loop that lie
        on a forward path strictly between `start` and `site`. Such a barrier
        b runs at most once; had the thread run it, then either before
        `start` (a path start -> b -> start: a cycle through b), between
        `start` and `site` (not one interval), or after `site` (a path
        site -> b -> site: a cycle) -- so it did not. Barriers inside loops
        are not listed (which iteration ran them is not encoded)."""
        ran = None
        if start != ENTRY and not self._in_loop(start[0]):
            ran = start[0]
        skipped = []
        for st in self.starts:
            b = st.point
            if b == ENTRY or b == start or self._in_loop(b[0]):
                continue
            if (start == ENTRY or self._precedes(start, b)) and self._precedes(b, site):
                skipped.append(b[0])
        return ran, tuple(dict.fromkeys(skipped))

    def _in_loop(self, label: str) -> bool:
        return any(label in body for body in self.loop_body.values())

    def _precedes(self, p: Point, q: Point) -> bool:
        """A forward path (no back edge) runs point p and then point q."""
        if p[0] == q[0]:
            return p[1] < q[1]
        return q[0] in self._forward(p[0])

    def _forward(self, label: str) -> frozenset[str]:
        cache = self.__dict__.setdefault("_forward_cache", {})
        out = cache.get(label)
        if out is None:
            out = cache[label] = forward_successors(self.kernel, self.back_edges, label)
        return out

    def describe(self, starts: list[Start]) -> str:
        lines = sorted({st.line for st in starts})
        if lines == [0]:
            return "before any barrier"
        parts = ["the kernel start" if ln == 0 else f"the barrier at line {ln}" for ln in lines]
        return "in one barrier interval (after " + " or ".join(parts) + ")"
