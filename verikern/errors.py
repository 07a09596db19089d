"""Every error verikern raises on purpose.

Invariant: a user never sees a bare Python traceback for bad input; each class
here carries what the user needs (a SourceLoc where there is source to point
at) and renders itself as `file:line:col: error: message` plus detail.
"""
from __future__ import annotations

from verikern.mir.nodes import SourceLoc


class VerikernError(Exception):
    """Base of all deliberate verikern errors.

    Every one pickles (a compile result carrying its errors crosses processes:
    Dask workers, pytest-xdist's shared results): rebuilt from its class, its
    `args` and its attributes, not through `__init__`, whose signature a
    subclass may change (KernelError's location is required)."""

    def __reduce__(self):
        return _rebuilt_error, (type(self), self.args, dict(self.__dict__))


def _rebuilt_error(cls: type, args: tuple, state: dict) -> "VerikernError":
    """The error `VerikernError.__reduce__` pickled."""
    err: VerikernError = Exception.__new__(cls)
    err.args = args
    err.__dict__.update(state)
    return err


def render_location(loc: SourceLoc | None, kind: str, message: str,
                    hint: str | None = None, source_line: str | None = None) -> str:
    """`file:line:col: kind: message`, then the source line with a caret and a hint."""
    if loc is None:
        head = f"{kind}: {message}"
    else:
        head = f"{loc.file}:{loc.line}:{loc.col}: {kind}: {message}"
    lines = [head]
    if source_line is not None and loc is not None:
        lines.append(f"    {source_line.rstrip()}")
        lines.append("    " + " " * max(loc.col - 1, 0) + "^")
    if hint:
        lines.append(f"  hint: {hint}")
    return "\n".join(lines)


def source_line_at(loc: SourceLoc, source: str | None = None) -> str | None:
    """The text of line `loc.line` from `source`, or from the file on disk."""
    try:
        text = source if source is not None else open(loc.file, encoding="utf-8").read()
    except (OSError, ValueError):     # missing, unreadable or not UTF-8
        return None
    lines = text.splitlines()
    if 1 <= loc.line <= len(lines):
        return lines[loc.line - 1]
    return None


class KernelError(VerikernError):
    """A kernel breaks a rule of the language (compile time).

    rule: a short stable identifier of the rule (e.g. "type-change", "no-lists"),
    loc: where; hint: what to do instead.
    """

    def __init__(self, message: str, loc: SourceLoc, rule: str = "syntax",
                 hint: str | None = None, source_line: str | None = None):
        super().__init__(message)
        self.message = message
        self.loc = loc
        self.rule = rule
        self.hint = hint
        self.source_line = source_line

    def render(self) -> str:
        line = self.source_line if self.source_line is not None else source_line_at(self.loc)
        return render_location(self.loc, "error", self.message, self.hint, line)

    def __str__(self) -> str:
        return self.render()


class LaunchError(VerikernError):
    """vk.launch refused a launch (arguments, dims, contracts, device)."""


class ContractError(LaunchError):
    """A launch breaks a `vk.requires` contract."""


class DeviceUnavailableError(LaunchError):
    """The requested device (e.g. cuda:0) is missing; the message says what."""


class SimulationBudgetExceeded(VerikernError):
    """A simulation spent its work budget (`WorkMeter`) before it finished: a
    limit of the caller's (e.g. replay), not a bug of the kernel."""

    def __init__(self, message: str, used: int, limit: int):
        super().__init__(message)
        self.message = message
        self.used = used
        self.limit = limit


class KernelRuntimeError(VerikernError):
    """A kernel misbehaved while running (simulator or native checks).

    loc: the source location of the offending instruction; thread/block: the
    (first) offending thread; detail: extra, human-readable facts.
    """

    kind = "runtime"

    def __init__(self, message: str, loc: SourceLoc | None = None,
                 thread: int | None = None, block: int | None = None, **detail):
        super().__init__(message)
        self.message = message
        self.loc = loc
        self.thread = thread
        self.block = block
        self.detail = detail

    def __str__(self) -> str:
        line = source_line_at(self.loc) if self.loc is not None else None
        return render_location(self.loc, "error", self.message, None, line)


class StepLimitExceeded(KernelRuntimeError):
    """The simulator ran out of scheduling steps (`max_steps`) before the
    threads finished: an endless loop, or a loop longer than the caller's
    limit; a limit of the run, not a verdict on the kernel."""

    kind = "step-limit"


class OutOfBoundsError(KernelRuntimeError):
    kind = "bounds"


class BarrierDivergenceError(KernelRuntimeError):
    kind = "divergence"


class KernelAssertionError(KernelRuntimeError):
    kind = "assert"


class IntegerDivisionError(KernelRuntimeError):
    """An integer `/`, `//` or `%` that faults (the `div-zero` obligation,
    docs/LANGUAGE.md section 5): one of the two subclasses below."""

    kind = "div-zero"


class DivisionByZeroError(IntegerDivisionError):
    """An integer division or modulo by zero."""


class DivisionOverflowError(IntegerDivisionError):
    """INT_MIN / -1 (or `//`, `%`) on int32/int64: the quotient does not fit;
    Warp's CPU run dies of SIGFPE there (x86 idiv traps) and C++ leaves it
    undefined, so verikern stops the kernel as for a zero divisor."""


class UnassignedReadError(KernelAssertionError):
    """A read of a local variable that the path this thread took never
    assigned (the `unassigned` obligation, docs/LANGUAGE.md section 5): Warp
    builds the kernel and reads an indeterminate scalar (a zero vector)."""

    kind = "unassigned"


class DataRaceError(KernelRuntimeError):
    kind = "race"


class UninitializedReadError(KernelRuntimeError):
    """A read (a load or an atomic) of a shared-array element that no thread
    of the block wrote earlier in the launch (docs/LANGUAGE.md section 5, property
    6). Only the simulator checks it; `cpu:native` and `cuda:N` do not."""

    kind = "uninit"
