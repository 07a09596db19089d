"""The atomic-ticket facts in the CBMC harness (verikern.mir.tickets).

A ticket array is a global integer array that only atomic_adds of positive
constants outside loops write (`mir.tickets.ticket_arrays`, the same
classification the z3 prover uses). For each call on one whose old value the
kernel reads (`ticket_sites`), the CBMC build makes the old value

    old == init + d   (mod 2**bits of the array's type)

with fresh `init` (the element's launch-time value) and `d` (the sum of the
increments of the calls on that element before this one), and assumes what
every real execution gives them (docs/C_ENCODER.md, "Atomic tickets"):

- `d = c * k` with `k < size` (threads of the launch) when the array has one
  writer site of increment c, else `d < size * total` (total: the sum of
  every site's increment): each thread runs each site at most once;
- `lo <= init < hi` for each all_in_range contract of the array (a contract
  on the launch-time contents);
- against every call recorded before on the same element (the other
  harness thread's, or this thread's at another site of the array): the same
  `init` and a different `d` (the sum of the increments grows strictly).

Calls are recorded in the launch struct (`ticket_fields`: per site and per
harness thread, role 1 or 2), so a pair of calls is related when the later
one runs, whichever thread runs it. Every assumption holds of the harness
state that stands for a real execution, so the harness still covers every
execution: the facts can only remove states no launch reaches. The replay
build has none of this (it runs the launch's real atomics).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from verikern.mir.cfg import CfgShape, UnstructuredCycle
from verikern.mir.nodes import Atomic, Kernel, Operand, RequiresArray
from verikern.mir.tickets import ticket_arrays, used_values
from verikern.mir.types import ScalarType

from .ops import ctype, nondet, utype, wrap

if TYPE_CHECKING:
    from .emitter import StepEmitter


@dataclass(frozen=True)
class TicketSite:
    """One atomic_add on a ticket array whose old value the kernel reads."""

    number: int             # its fields in vk_launch: tk<number>_*
    array: str
    dtype: ScalarType       # the array's element type
    increment: int
    single: bool            # the array's only writer site
    total: int              # the sum of the increments of every writer site
    ranges: tuple[tuple[Operand, Operand], ...]   # (lo, hi) of its all_in_range contracts


def ticket_sites(kernel: Kernel) -> dict[tuple[str, int], TicketSite]:
    """The ticket calls of `kernel` by site (block label, instruction index)."""
    try:
        tickets = ticket_arrays(kernel, CfgShape(kernel))
    except UnstructuredCycle:
        return {}
    used = used_values(kernel)
    ranges: dict[str, list] = {}
    for _, ins in kernel.instructions():
        if isinstance(ins, RequiresArray) and ins.kind == "all_in_range":
            ranges.setdefault(ins.array.name, []).append((ins.lo, ins.hi))
    out: dict[tuple[str, int], TicketSite] = {}
    for b in kernel.blocks:
        for i, ins in enumerate(b.instrs):
            if not isinstance(ins, Atomic):
                continue
            ta = tickets.get(ins.array.name)
            if ta is not None and ins.result.id in used:
                out[(b.label, i)] = TicketSite(len(out), ta.name, ins.array.dtype, ta.increments[(b.label, i)],
                                               len(ta.increments) == 1, ta.total,
                                               tuple(ranges.get(ta.name, ())))
    return out


def ticket_fields(e: "StepEmitter") -> list[str]:
    """Fields of vk_launch: each ticket site's call per harness thread."""
    out = []
    for ts in e.tickets.values():
        n = ts.number
        out.append(f"    bool tk{n}_on[2]; uint64_t tk{n}_flat[2]; {ctype(ts.dtype)} tk{n}_init[2]; "
                   f"uint64_t tk{n}_d[2];")
    return out


def assume_ticket(e: "StepEmitter", site, old: str) -> None:
    """CBMC: the ticket facts of the call at `site` (module docstring), its
    old value in `old`; inside the access's in-bounds branch (T->flat set)."""
    ts = e.tickets.get(site)
    if ts is None:
        return
    t = ts.dtype
    n = ts.number
    e.emit("#ifndef VERIKERN_REPLAY", 0)
    e.emit(f"{{ {ctype(t)} init = {nondet(t)}(); uint64_t d = nondet_uint64(); int r = role - 1;", 2)
    if ts.single:      # k < 2**31 and c < 2**32: the product does not wrap
        e.emit(f"  uint64_t k = nondet_uint64(); "
               f"__CPROVER_assume(k < (uint64_t)L->size && d == k * {ts.increment}u);", 2)
    else:              # size < 2**31 and total < 2**32: no wrap either
        e.emit(f"  __CPROVER_assume(d < (uint64_t)L->size * {ts.total}u);", 2)
    u = utype(t)
    e.emit(f"  __CPROVER_assume({old} == {wrap(t, f'(({u})(init) + ({u})d)')});", 2)
    for lo, hi in ts.ranges:
        e.emit(f"  __CPROVER_assume(({e.operand(lo)}) <= init && init < ({e.operand(hi)}));", 2)
    for other in e.tickets.values():
        if other.array != ts.array:
            continue
        m = other.number
        for q in (0, 1):   # not this very call: the same site of the same thread
            guard = f"r != {q} && " if m == n else ""
            e.emit(f"  if (L->tk{m}_on[{q}] && {guard}L->tk{m}_flat[{q}] == T->flat) "
                   f"__CPROVER_assume(L->tk{m}_init[{q}] == init && L->tk{m}_d[{q}] != d);", 2)
    e.emit(f"  L->tk{n}_on[r] = 1; L->tk{n}_flat[r] = T->flat; L->tk{n}_init[r] = init; "
           f"L->tk{n}_d[r] = d; }}", 2)
    e.emit("#endif", 0)
