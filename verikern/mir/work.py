"""A kernel's compile work, counted where it is done (never timed).

Compiling one kernel -- the typing search of a generic kernel, checking its
bodies, lowering each instance to MIR, verifying it and running the passes --
charges the meter of that kernel (`metering`, set by the frontend's driver):

- `typing`: each expression the body checker types (a kernel's or a func's;
  a func checked once and reused charges its recorded cost at every reuse,
  `reused`, so a kernel's count does not depend on which kernels were
  compiled before it in the same run);
- `building`: each MIR instruction and phi the builder emits;
- `passes`: each instruction, phi and block a verification or a pass of the
  default pipeline walks, charged before the walk;
- `reading`: each AST node of the kernel's file and of the project modules it
  imports read under a configuration (READ_UNITS), and `taking`: of each
  imported func taken into an importing module (TAKE_UNITS); the driver charges a read to every
  kernel that needs it (frontend/scan/module_reads.py: a module read once in a
  call is charged once in it, whether or not an earlier call read it).

Invariant: the count follows from the kernel's source and the configuration
alone -- the same on every machine and at every load. A meter with a `limit`
raises `CompileBudgetSpent` as soon as its count goes past it, before the
work it was charged for; the driver catches it and keeps what the kernel
compiled before (verikern.frontend.driver), and the application turns it
into an `unknown` verdict with the reason (`spent_text`). A meter without a
limit only counts. Outside `metering` nothing is counted.

Units: one unit is about a microsecond of CPU on the 2-core machine the
weights were measured on (TYPING_UNITS, BUILD_UNITS, PASS_UNITS: README,
session 23), so a million units is about a CPU second.
"""
from __future__ import annotations

import contextlib
import contextvars
from dataclasses import dataclass, field
from typing import Iterator

#: Units per expression typed, per MIR instruction built and per instruction
#: walked by one verification or pass (the module docstring).
TYPING_UNITS = 100
BUILD_UNITS = 15
PASS_UNITS = 3
#: Units per AST node of a module read (parsed and scanned), and per AST node of an
#: imported func taken into an importing module (README, session 24).
READ_UNITS = 20
TAKE_UNITS = 3
#: What each kind of charge counts, in the words of `spent_text` (in this order).
KINDS = {
    "typing": "expressions typed",
    "reused": "funcs' checks reused (each charged what checking it took)",
    "building": "MIR instructions built",
    "passes": "MIR instructions walked by the verifier and passes",
    "reading": "AST nodes of the file and its project's modules read",
    "taking": "AST nodes of imported funcs taken in",
}


@dataclass
class CompileMeter:
    """The compile work of one kernel (every instance and configuration of it)
    against `limit` units (None: no limit, counting only). Mutable on purpose:
    the one running count of a kernel's compile. `counts`: the charges by kind
    (KINDS), in their own units (expressions, instructions); `spent`: their
    units in all; `exhausted`: a charge went past `limit`."""

    limit: int | None = None
    spent: int = 0
    counts: dict = field(default_factory=dict)
    exhausted: bool = False

    def charge(self, units: int, kind: str, count: int = 1) -> None:
        """Count `units` of work of `kind` (`count` of its things); past the limit,
        raise CompileBudgetSpent (before the work is done)."""
        self.spent += units
        self.counts[kind] = self.counts.get(kind, 0) + count
        if self.limit is not None and self.spent > self.limit:
            self.exhausted = True
            raise CompileBudgetSpent(self)

    def absorb(self, other: "CompileMeter") -> None:
        """Charge all `other` counted, by kind (work done for this kernel and others at
        once, such as reading the file); past the limit, raise CompileBudgetSpent."""
        for kind, count in other.counts.items():
            self.counts[kind] = self.counts.get(kind, 0) + count
        self.charge(other.spent, "reading", 0)

    def spent_text(self) -> str:
        """"K expressions typed, ..., N million units in all": what was counted."""
        parts = [f"{self.counts[kind]:,} {words}" for kind, words in KINDS.items() if self.counts.get(kind)]
        return ", ".join(parts + [f"{self.spent / 1e6:.3g} million units in all"])


class CompileBudgetSpent(BaseException):
    """A kernel's compile meter went past its limit. A BaseException on purpose:
    the checker's and the lowerer's `except Exception` (a compiler bug reported at
    the kernel) must not take it for an internal error; only the driver catches it."""

    def __init__(self, meter: CompileMeter):
        super().__init__(f"compile budget of {meter.limit} units spent")
        self.meter = meter


_METER: contextvars.ContextVar[CompileMeter | None] = contextvars.ContextVar("verikern_compile_meter",
                                                                           default=None)


@contextlib.contextmanager
def metering(meter: CompileMeter | None) -> Iterator[CompileMeter | None]:
    """Charge the work of the block to `meter` (None: count nothing)."""
    token = _METER.set(meter)
    try:
        yield meter
    finally:
        _METER.reset(token)


def charge(units: int, kind: str, count: int = 1) -> None:
    """Charge the meter in use (none: nothing); see CompileMeter.charge."""
    meter = _METER.get()
    if meter is not None:
        meter.charge(units, kind, count)


def current_meter() -> CompileMeter | None:
    """The meter in use (None: none)."""
    return _METER.get()


def spent_now() -> int:
    """The units the meter in use has counted (0 without one)."""
    meter = _METER.get()
    return 0 if meter is None else meter.spent


def charge_walk(kernel) -> None:
    """One verification or pass is about to walk `kernel`: PASS_UNITS for each of
    its instructions, phis and blocks (nothing is counted without a meter)."""
    meter = _METER.get()
    if meter is not None:
        size = sum(len(b.instrs) + len(b.phis) + 1 for b in kernel.blocks)
        meter.charge(PASS_UNITS * size, "passes", size)


__all__ = ["BUILD_UNITS", "KINDS", "PASS_UNITS", "READ_UNITS", "TAKE_UNITS", "TYPING_UNITS",
           "CompileBudgetSpent", "CompileMeter",
           "charge", "charge_walk", "current_meter", "metering", "spent_now"]
