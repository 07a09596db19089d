"""Mutable construction of MIR kernels, frozen by `finish()`.

Invariant: a builder hands out Values with ids unique in its kernel; it never
reorders what it was given; `finish()` returns a frozen `Kernel` (run
`verikern.mir.verifier.verify` on it in tests).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .nodes import (
    ArrayRef, Block, Const, Instr, Kernel, LoopInfo, Operand, ParamOrigin, Phi, ScalarParam,
    SourceLoc, Terminator, Value,
)
from .types import ScalarType
from .work import BUILD_UNITS, charge


@dataclass(eq=False)
class _OpenBlock:
    label: str
    phis: list = field(default_factory=list)
    instrs: list = field(default_factory=list)
    terminator: Terminator | None = None


class MirBuilder:
    """Build one kernel: `new_value`, `new_block`, `set_block`, `emit`,
    `terminate`, then `finish`."""

    def __init__(self, name: str, loc: SourceLoc):
        self.name = name
        self.loc = loc
        self.params: list = []
        self.shared: list[ArrayRef] = []
        self.loops: list[LoopInfo] = []
        # the blocks in their printed order (a dict keeps insertion order): moving one to
        # the end is constant time, where a list's remove compared whole blocks
        self._by_label: dict[str, _OpenBlock] = {}
        self._next_id = 0
        self._next_block = 0
        self.current: _OpenBlock | None = None

    # values ---------------------------------------------------------------
    def new_value(self, type_: ScalarType, name: str = "") -> Value:
        v = Value(self._next_id, type_, name)
        self._next_id += 1
        return v

    @staticmethod
    def const(value, type_: ScalarType) -> Const:
        if type_.is_bool:
            return Const(bool(value), type_)
        if type_.is_int:
            return Const(type_.wrap(int(value)), type_)
        return Const(float(value), type_)

    def scalar_param(self, name: str, type_: ScalarType, origin: ParamOrigin = ParamOrigin.USER,
                     user_name: str = "") -> Value:
        """A scalar parameter called `name` in MIR; `origin` and `user_name`
        say what the user passes for it (see ScalarParam)."""
        v = self.new_value(type_, name)
        self.params.append(ScalarParam(name, v, origin, user_name))
        return v

    def array_param(self, array: ArrayRef) -> ArrayRef:
        self.params.append(array)
        return array

    def shared_array(self, array: ArrayRef) -> ArrayRef:
        self.shared.append(array)
        return array

    # blocks ---------------------------------------------------------------
    def new_block(self, hint: str = "bb") -> str:
        label = f"{hint}{self._next_block}"
        self._next_block += 1
        self._by_label[label] = _OpenBlock(label)
        return label

    def set_block(self, label: str) -> None:
        self.current = self._by_label[label]

    def emit(self, ins: Instr) -> Instr:
        assert self.current is not None and self.current.terminator is None, \
            "emit into a terminated block"
        charge(BUILD_UNITS, "building")      # the kernel's compile work (work.py)
        self.current.instrs.append(ins)
        return ins

    def add_phi(self, label: str, phi: Phi) -> None:
        charge(BUILD_UNITS, "building")
        self._by_label[label].phis.append(phi)

    def terminate(self, t: Terminator) -> None:
        assert self.current is not None and self.current.terminator is None
        self.current.terminator = t

    def move_block_to_end(self, label: str) -> None:
        """Keep printed order close to source order (e.g. a loop exit after
        its body)."""
        self._by_label[label] = self._by_label.pop(label)

    def finish(self, **kernel_attrs) -> Kernel:
        blocks = []
        for b in self._by_label.values():
            if b.terminator is None:
                raise ValueError(f"block {b.label} of {self.name} has no terminator")
            blocks.append(Block(b.label, tuple(b.phis), tuple(b.instrs), b.terminator))
        return Kernel(
            name=self.name,
            params=tuple(self.params),
            shared=tuple(self.shared),
            blocks=tuple(blocks),
            loops=tuple(self.loops),
            loc=self.loc,
            **kernel_attrs,
        )


Operand = Operand  # re-exported for builder users
