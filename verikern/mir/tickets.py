"""Ticket arrays: global integer arrays that only atomic_adds of positive
constants outside loops write (the slot counters of compactions and queues).

Invariant (docs/PROVER.md, "Facts that need an argument"): each thread runs
each writer site of a ticket array at most once, so the old value a call
returns is `init + d (mod 2**bits)`, `init` the element's launch-time value
and `d` the sum of the increments of the earlier calls on that element:
`0 <= d < size * total` (`size` threads), `d = c * k` with `k < size` when
the array has one site (increment c), and two different calls on one
element see the same `init` and different `d`. Both the z3 prover
(proofs.deciding.content_facts) and the CBMC harness (encoders.c.tickets)
state these facts of the arrays `ticket_arrays` finds; a loop around a
writer, a plain store, another atomic operation or a non-constant increment
makes the array no ticket array.
"""
from __future__ import annotations

from dataclasses import dataclass

from verikern.mir.facts import writes_memory
from verikern.mir.nodes import Atomic, Const, Kernel, Value


@dataclass(frozen=True)
class TicketArray:
    """A ticket array: `increments` maps each writer site to its constant."""

    name: str
    increments: dict
    total: int          # sum of the increments of every site


def ticket_arrays(kernel: Kernel, shape) -> dict[str, TicketArray]:
    """The ticket arrays of `kernel` (see the module docstring), by name;
    `shape` is the kernel's mir.cfg.CfgShape (its `loop_of`)."""
    writers: dict[str, list] = {}
    for b in kernel.blocks:
        for i, ins in enumerate(b.instrs):
            if writes_memory(ins):
                writers.setdefault(ins.array.name, []).append((b.label, i, ins))
    out = {}
    for name, sites in writers.items():
        incs = {}
        for lbl, i, ins in sites:
            t = ins.array.dtype
            if not (isinstance(ins, Atomic) and ins.op == "add" and ins.array.space == "global"
                    and t.is_int and not t.is_bool and isinstance(ins.value, Const)
                    and 0 < int(ins.value.value) < 2 ** 32 and not shape.loop_of.get(lbl)):
                break
            incs[(lbl, i)] = int(ins.value.value)
        else:
            total = sum(incs.values())
            if total < 2 ** 32:
                out[name] = TicketArray(name, incs, total)
    return out


def used_values(kernel: Kernel) -> frozenset[int]:
    """Ids of the values some instruction, phi or terminator reads (a ticket
    call whose old value none reads, as in `hist[b] += 1`, needs no facts)."""
    used: set[int] = set()
    for b in kernel.blocks:
        for phi in b.phis:
            used.update(v.id for _, v in phi.incoming if isinstance(v, Value))
        for ins in (*b.instrs, b.terminator):
            used.update(op.id for op in ins.operands() if isinstance(op, Value))
    return frozenset(used)
