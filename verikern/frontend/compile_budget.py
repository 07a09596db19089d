"""Each kernel's compile budget in one `compile_source` call (verikern.mir.work).

Invariants:
- every kernel definition (by name) has one meter for the whole call: all its
  instances and all the file's configurations charge it, so its budget bounds
  the kernel's whole compile;
- a kernel whose meter ran out is never taken for compiled: each instance it
  did not finish (or the kernel itself, when its typing search did not
  finish) gets an error of rule `compile-budget` that says what was counted,
  how far it got and how to raise the budget; the instances that reached MIR
  before are kept as they are (the driver builds the results).
"""
from __future__ import annotations

from verikern.errors import KernelError
from verikern.mir.work import CompileMeter

from .check.generic_lengths import length_patterns
from .check.registry import is_any
from .scan.module import Definition, ModuleInfo

#: The hint of a spent budget's error when the caller gives none.
DEFAULT_HINT = "compile it with a larger compile budget"


class KernelMeters:
    """The meters of one compile_source call, by kernel name. Mutable on purpose:
    the meters count as the call goes. `limit`: each kernel's budget in units (None:
    counting only); `hint`: how the caller's user raises it."""

    def __init__(self, limit: int | None, hint: str | None = None):
        self.limit, self.hint = limit, hint or DEFAULT_HINT
        self.by_kernel: dict[str, CompileMeter] = {}

    def of(self, name: str) -> CompileMeter:
        """The meter of kernel `name` (made at its first use)."""
        meter = self.by_kernel.get(name)
        if meter is None:
            meter = self.by_kernel[name] = CompileMeter(self.limit)
        return meter

    def spent_error(self, info: ModuleInfo, d: Definition, name: str, reached: int,
                    total: int | None, earlier: bool = False) -> KernelError:
        """Why kernel `name` (definition `d`) is not compiled whole: `reached` of its
        `total` instances reached MIR (None: its instances were not all found; `earlier`:
        the budget ran out in an earlier configuration of the file)."""
        meter, generic = self.of(name), generic_definition(info, d)
        if earlier:
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
