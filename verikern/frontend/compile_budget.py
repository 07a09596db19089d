"""Each kernel's compile budget in one `compile_source` call (verikern.mir.work).

Invariants:
- every kernel definition (by name) has one meter for the whole call: all its
  instances and all the file's configurations charge it, so its budget bounds
  the kernel's whole compile;
- a kernel whose meter ran out is never taken for compiled: each instance it
  did not finish (or the kernel itself, when its typing search did not
  finish) gets an error of rule `compile-budget` that says what was counted,
  how far it got and how to raise the budget; the instances that reached MIR
  before are kept as they are (the driver builds the results);
- reading the file and its project's modules under a configuration is work
  for every kernel that needs that read: its count is charged to each (a
  read past the largest budget left of them stops, and spends them all).
"""
from __future__ import annotations

from typing import Callable, TypeVar

from verikern.errors import KernelError
from verikern.mir.work import CompileBudgetSpent, CompileMeter, metering

from .check.generic_lengths import length_patterns
from .check.registry import is_any
from .scan.module import Definition, ModuleInfo

T = TypeVar("T")

#: The hint of a spent budget's error when the caller gives none.
DEFAULT_HINT = "compile it with a larger compile budget"


class KernelMeters:
    """The meters of one compile_source call, by kernel name. Mutable on purpose:
    the meters count as the call goes. `limit`: each kernel's budget in units (None:
    counting only); `hint`: how the caller's user raises it."""

    def __init__(self, limit: int | None, hint: str | None = None):
        self.limit, self.hint = limit, hint or DEFAULT_HINT
        self.by_kernel: dict[str, CompileMeter] = {}
        #: the kernels whose budget ran out reading the file (not compiling it)
        self.read_out: set[str] = set()

    def of(self, name: str) -> CompileMeter:
        """The meter of kernel `name` (made at its first use)."""
        meter = self.by_kernel.get(name)
        if meter is None:
            meter = self.by_kernel[name] = CompileMeter(self.limit)
        return meter

    def read_for(self, names, read: "Callable[[], T]") -> "T | None":
        """`read()` (a read of the file under a configuration, needed by the kernels
        `names`: those whose meters are not spent) counted on a meter of its own, then
        charged to each of them; None when it went past the largest budget left of them
        (it stops there, and every one of them is spent)."""
        names = [n for n in names if not self.of(n).exhausted]
        left = [self.limit - self.of(n).spent for n in names] if self.limit is not None else []
        meter = CompileMeter(max(left) if left else None)
        try:
            with metering(meter):
                got = read()
        except CompileBudgetSpent:
            got = None
        self.charge_read(names, meter)
        return got

    def charge_read(self, names, meter: CompileMeter) -> None:
        """Charge what `meter` counted reading the file to each kernel of `names` whose
        meter is not spent (one past its budget: spent, by reading)."""
        for name in names:
            if not self.of(name).exhausted:
                try:
                    self.of(name).absorb(meter)
                except CompileBudgetSpent:
                    self.read_out.add(name)

    def spent_error(self, info: ModuleInfo, d: Definition, name: str, reached: int,
                    total: int | None, earlier: bool = False) -> KernelError:
        """Why kernel `name` (definition `d`) is not compiled whole: `reached` of its
        `total` instances reached MIR (None: its instances were not all found; `earlier`:
        the budget ran out in an earlier configuration of the file)."""
        meter, generic = self.of(name), generic_definition(info, d)
        if name in self.read_out:
            far = ("it ran out reading the file and the project modules it imports (read as written, "
                   "then once per configuration), before it was compiled")
        elif earlier:
            far = "it ran out in an earlier configuration of the file, so this one was not compiled"
        elif total is not None and generic:
            far = f"{reached} of its {total} instances reached MIR before it ran out"
        elif generic:
            far = "it ran out in the typing search, before the instances to compile were all found"
        else:
            far = "it ran out before the kernel reached MIR"
        return info.error(f"{name} was not compiled whole: its compile work budget of "
                          f"{(meter.limit or 0) / 1e6:g} million units was spent (counted: {meter.spent_text()}); "
                          f"{far}; nothing is proved about the rest", d.loc, "compile-budget", self.hint)


def generic_definition(info: ModuleInfo, d: Definition) -> bool:
    """Whether kernel `d` has instances (a parameter annotated with `Any` or a length pattern)."""
    return any(is_any(info, a.annotation) for a in d.node.args.args) or bool(length_patterns(info, d))


__all__ = ["DEFAULT_HINT", "KernelMeters", "generic_definition"]
