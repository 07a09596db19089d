"""Obligations whose proof is another's: a repeated access to the same element.

A kernel reads `dt[sys]` fifteen times; each read carries a bounds obligation
and, with every write of `dt`, a race obligation. When an earlier access to
the same array with the same index values runs first on every path to a
later one, the later one's obligations follow from the earlier one's:

- bounds (one dimension k): the earlier access A dominates the later B (or
  precedes it in its block), both index dimension k of the same array with
  the same SSA operand. In strict SSA every execution that reaches B ran A
  after the last definition of that operand (else a path from the entry to B
  would avoid A), so B's index is the one A checked, and an array's shape
  never changes: A in bounds on every execution proves B in bounds;
- race (only in a kernel without barriers, where every two accesses of two
  threads are concurrent): a race on (B, O) -- two threads, one at B and one
  at O, at the same element -- makes the threads race on (A, O') too, where A
  is B's covering access and O' is O's (or O), provided A writes whenever B
  does and A is atomic only when B is (A a store covers a load or a store;
  otherwise the same kind of access). So (A, O') proved proves (B, O).

Only PROVED travels (`CoveringAccesses.proved_by`): a covering obligation that
failed or stayed unknown says nothing about the later access, which is then
decided on its own. The covered obligation's message names the access its
proof rests on. Requires every value to be defined once (it checks, and
covers nothing otherwise).
"""
from __future__ import annotations

import functools
from typing import Union

from verikern.mir import facts
from verikern.mir.cfg import dominators, runs_before
from verikern.mir.nodes import Atomic, Kernel, Load, Store
from verikern.proofs.deciding.prover_messages import proved_obligation
from verikern.proofs.obligations import Obligation, ObligationKind, ObligationSpec, Point, Status


def _kind(ins) -> str:
    if isinstance(ins, Atomic):
        return "atomic"
    return "store" if isinstance(ins, Store) else "load"


#: An obligation's key: (site, dimension) of a bounds obligation, the ordered
#: pair of access sites of a race.
CoverKey = Union[tuple[Point, int], tuple[Point, Point]]


def _race_covers(earlier, later) -> bool:
    """A race witness at `later` is one at `earlier` (module docstring)."""
    a, b = _kind(earlier), _kind(later)
    return a == b or (a == "store" and b == "load")


class CoveringAccesses:
    """For each access site: the earliest access that runs before it on every
    path with the same array and index operands (per bounds dimension, and
    for races with a kind that covers it)."""

    def __init__(self, kernel: Kernel, runs_before) -> None:
        self.bounds: dict[tuple[Point, int], Point] = {}
        self.race: dict[Point, Point] = {}
        if not _single_definitions(kernel):
            return
        sites = [((b.label, i), ins) for b in kernel.blocks for i, ins in enumerate(b.instrs)
                 if facts.accesses_memory(ins)]
        barriers = any(facts.is_barrier(ins) for b in kernel.blocks for ins in b.instrs)
        by_index: dict[tuple, list] = {}      # (array, dimension, operand) -> sites, in order
        by_element: dict[tuple, list] = {}    # (array, operands) -> race sites, in order
        for site, ins in sites:
            for k in range(ins.array.ndim):
                key = (ins.array, k, ins.indices[k])
                found = _first_before(by_index.get(key, ()), site, runs_before)
                if found is not None:
                    self.bounds[(site, k)] = found
                by_index.setdefault(key, []).append(site)
            if barriers or (isinstance(ins, Load) and ins.address_only):
                continue
            group = by_element.setdefault((ins.array, ins.indices), [])
            found = _first_before([s for s, e in group if _race_covers(e, ins)], site, runs_before)
            if found is not None:
                self.race[site] = found
            group.append((site, ins))

    @classmethod
    def of(cls, kernel: Kernel) -> "CoveringAccesses":
        """The covering accesses of `kernel`, its dominators computed here."""
        return cls(kernel, functools.partial(runs_before, dominators(kernel)))

    def covering(self, spec: ObligationSpec) -> CoverKey | None:
        """The sites of the obligation whose proof proves `spec`: (site,
        dimension) for bounds, the pair of access sites for a race; None when
        nothing covers it."""
        if spec.kind is ObligationKind.BOUNDS:
            site = self.bounds.get((spec.site, spec.dim))
            return None if site is None else (site, spec.dim)
        if spec.kind is ObligationKind.RACE and spec.other is not None:
            a = self.race.get(spec.site, spec.site)
            b = self.race.get(spec.other, spec.other)
            if (a, b) == (spec.site, spec.other):
                return None
            return _pair(a, b)
        return None

    @staticmethod
    def key(spec: ObligationSpec) -> CoverKey | None:
        """The key `covering` names for `spec` itself."""
        if spec.kind is ObligationKind.BOUNDS:
            return (spec.site, spec.dim)
        if spec.kind is ObligationKind.RACE and spec.other is not None:
            return _pair(spec.site, spec.other)
        return None


def _pair(a: Point, b: Point) -> tuple[Point, Point]:
    return (a, b) if a <= b else (b, a)


#: the most earlier sites of one key tried for a site (a kernel of tens of
#: thousands of blocks may read `a[0]` thousands of times)
MAX_TRIED = 64


def _first_before(candidates, site: Point, runs_before) -> Point | None:
    """The first of `candidates` (sites in block order) that runs before `site`."""
    for other in list(candidates)[:MAX_TRIED]:
        if runs_before(other, site):
            return other
    return None


def covered_obligation(spec: ObligationSpec, key: CoverKey | None, decided: dict,
                       ins) -> Obligation | None:
    """`spec`'s verdict from the obligation that covers it (`key`: its
    `CoveringAccesses.covering`; `decided`: by `CoveringAccesses.key`,
    (obligation, query records); `ins`: the instruction at `spec.site`): PROVED when that one
    is; UNKNOWN, not decided on its own, when that one failed on an exact model
    (one replay cannot demote: the kernel stays failed; its counterexample need
    not reach this access); None otherwise -- no covering obligation, or one
    unknown or failed through an abstraction: then `spec` is decided on its own."""
    base = decided[key][0] if key in decided else None
    if base is None or base.spec is None or base.status is Status.UNKNOWN:
        return None
    first, array = base.spec.loc, ins.array.name
    if base.status is Status.FAILED:
        if base.counterexample is None or base.counterexample.abstracted:
            return None
        kind = "index" if spec.kind is ObligationKind.BOUNDS else "pair of elements"
        reason = (f"not decided on its own: it is the {kind} of the access at line {first.line}:"
                  f"{first.col}, which runs first on every path and fails there; once that one "
                  "is proved, this one is too")
        return Obligation(spec.kind, spec.loc, Status.UNKNOWN,
                          f"{spec.kind.value} at line {spec.loc.line} undecided: {reason}",
                          reason=reason, other_loc=spec.other_loc, spec=spec)
    if spec.kind is ObligationKind.BOUNDS:
        message = (f"the index into dimension {spec.dim} of {array} at line {spec.loc.line} is "
                   f"always in bounds: it is the index proved in bounds at line {first.line}:"
                   f"{first.col}, which runs first on every path")
    else:
        lines = sorted({first.line, (base.spec.other_loc or first).line})
        other = (spec.other_loc or spec.loc).line
        own = (f"the access to {array} at line {other}" if spec.site == spec.other
               else f"the accesses to {array} at lines {spec.loc.line} and {other}")
        message = (f"no two threads race on {own}: they touch the elements of the accesses at "
                   f"line{'s' * (len(lines) > 1)} {' and '.join(map(str, lines))}, which run "
                   f"first on every path and are proved race-free")
    return proved_obligation(spec, message)


def _single_definitions(kernel: Kernel) -> bool:
    seen: set[int] = set()
    for b in kernel.blocks:
        for ins in (*b.phis, *b.instrs):
            r = getattr(ins, "result", None)
            if r is not None:
                if r.id in seen:
                    return False
                seen.add(r.id)
    return True


__all__ = ["CoveringAccesses", "covered_obligation"]
