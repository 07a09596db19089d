"""CBMC's loop-invariant abstraction: a loop of unbounded trip count checked
through an invariant certificate that CBMC verifies itself.

A loop CBMC cannot unwind to its trip count (`for k in range(n)`, a `while`
over a shape) leaves every check behind it `unknown` ("bounded to ...").
Given an invariant for such a loop (`LoopAbstraction`: conjuncts over the
header's phis, `LoopFact`; proofs.deciding.cbmc_invariants takes them from
z3's Houdini), the CBMC build replaces the loop by its inductive abstraction:

- on every edge entering the header from outside the loop, after the phi
  copies: `assert(inv)` (the base case), then every value the loop defines
  is havocked (its phis, its instructions' results, those of loops nested in
  it: `loop_values`), then `assume(inv)`, and the pass counter is 0;
- on every back edge, after the phi copies: `assert(inv)` (the inductive
  step, from an arbitrary state satisfying inv through one iteration), then
  `assume(pass == 0)`, havoc, `assume(inv)`, pass = 1;
- so a thread runs at most two iterations from havocked states: the first
  stands for any iteration (its checks, the race record T1 may keep in it),
  the second for the one that leaves the loop (through the header or a
  `break`); a second back edge is cut (`assume(pass == 0)` fails there).

Soundness (docs/SOUNDNESS.md): both `assert(inv)` are CBMC properties
without an obligation id, i.e. checks of the harness itself, and a harness
check that does not hold makes every obligation `unknown`
(proofs.deciding.cbmc_answer.decide), so a wrong invariant can cost a
verdict, never give a proof. When both hold, inv holds at every header
visit of every execution (induction over the visits), and every state the
real loop runs from is one the havoc can pick: the abstract program has
every behaviour of the real one. What else a loop writes needs no havoc
under CBMC: memory any thread writes is read back as unknown values
(VK_WRITTEN_LOAD, atomics' old values too), arrays the kernel never writes
are not written in the loop, the race record keeps one access T1 picked
(one of an iteration's is among the abstract ones), and the contract logs
of all_distinct / all_sorted reads hold values really read from memory
(fewer or other kept reads constrain less). A loop with a barrier in it
(`refusal`) is not abstracted: vk_step returns in the middle of it, and two
threads' havocked iterations would no longer meet at the same barrier.
The replay build runs the real loop (everything here is `#ifndef
VERIKERN_REPLAY`).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from verikern.mir.facts import is_barrier
from verikern.mir.nodes import BinOp, Const, Kernel, LoopInfo, Value

from . import ops

#: The unwinding depth of an abstracted loop's back edges: taken at most once
#: per entry (pass 0 -> 1), so two header visits; one more for CBMC's count.
ABSTRACTED_DEPTH = 3


@dataclass(frozen=True)
class LoopFact:
    """One conjunct of a loop invariant about the header phi `phi`.

    kind (FACTS): ge0 (phi >= 0), gt0 (phi > 0, unsigned: != 0), pow2
    (phi & (phi - 1) == 0), ge_init / le_init (phi >= / <= entry), cong
    ((phi - entry) & (|step| - 1) == 0), cong_sym (phi % other == entry %
    other), le / lt / ge (phi <= / < / >= other), step_lt / step_le (phi ==
    entry or phi - step < / <= other); comparisons in phi's type (signed or
    unsigned), arithmetic wrapping as MIR's. `other` and `entry` are
    operands defined outside the loop (or constants): the loop never changes
    them."""

    kind: str
    phi: Value
    other: Value | Const | None = None
    entry: Value | Const | None = None
    step: int = 0


@dataclass(frozen=True)
class LoopAbstraction:
    """The invariant of the loop headed by `header`: the conjunction of
    `facts` (empty: true, the loop's values havocked with nothing assumed)."""

    header: str
    facts: tuple[LoopFact, ...] = ()


def _cmp(op: str, a: str, b: str, f: LoopFact) -> str:
    return ops.compare(op, a, b, f.phi.type)


def _int(n: int, f: LoopFact) -> str:
    return ops.const(n, f.phi.type)


def _bin(op: str, a: str, b: str, f: LoopFact) -> str:
    return ops.binary(op, a, b, f.phi.type)


#: C of each fact kind from (phi, other, entry) as C operands.
FACTS: dict[str, Callable[[LoopFact, str, str, str], str]] = {
    "ge0": lambda f, x, u, x0: _cmp("ge", x, _int(0, f), f),
    "gt0": lambda f, x, u, x0: _cmp("gt" if f.phi.type.is_signed else "ne", x, _int(0, f), f),
    "pow2": lambda f, x, u, x0: _cmp("eq", _bin("and", x, _bin("sub", x, _int(1, f), f), f),
                                     _int(0, f), f),
    "ge_init": lambda f, x, u, x0: _cmp("le", x0, x, f),
    "le_init": lambda f, x, u, x0: _cmp("le", x, x0, f),
    "cong": lambda f, x, u, x0: _cmp("eq", _bin("and", _bin("sub", x, x0, f),
                                                _int(abs(f.step) - 1, f), f), _int(0, f), f),
    "cong_sym": lambda f, x, u, x0: _cmp("eq", _bin("mod", x, u, f), _bin("mod", x0, u, f), f),
    "le": lambda f, x, u, x0: _cmp("le", x, u, f),
    "lt": lambda f, x, u, x0: _cmp("lt", x, u, f),
    "ge": lambda f, x, u, x0: _cmp("ge", x, u, f),
    "step_lt": lambda f, x, u, x0: (f"({_cmp('eq', x, x0, f)} || "
                                    f"{_cmp('lt', _bin('sub', x, _int(f.step, f), f), u, f)})"),
    "step_le": lambda f, x, u, x0: (f"({_cmp('eq', x, x0, f)} || "
                                    f"{_cmp('le', _bin('sub', x, _int(f.step, f), f), u, f)})"),
}


def refusal(kernel: Kernel, loop: LoopInfo) -> str | None:
    """Why `loop` cannot be abstracted (None: it can): a barrier in its body."""
    for lbl in loop.body:
        if any(is_barrier(ins) for ins in kernel.block(lbl).instrs):
            return "a barrier inside the loop"
    return None


def loop_values(kernel: Kernel, loop: LoopInfo) -> tuple[Value, ...]:
    """Every value the loop defines (phis and results of its blocks, nested
    loops' included): what the abstraction havocs."""
    out = []
    for lbl in loop.body:
        b = kernel.block(lbl)
        out += [phi.result for phi in b.phis]
        out += [r for ins in b.instrs if (r := getattr(ins, "result", None)) is not None]
    return tuple(sorted(out, key=lambda v: v.id))


class AbstractedLoops:
    """The abstracted loops of one kernel (by header) and the C of their
    entry and back edges; `operand` renders a MIR operand as the step
    function does (T->v<id>, L->s<i>, a constant)."""

    def __init__(self, kernel: Kernel, abstractions: tuple[LoopAbstraction, ...],
                 operand: Callable[[object], str]):
        self.kernel = kernel
        self.operand = operand
        loops = {lp.header: lp for lp in kernel.loops}
        self.by_header: dict[str, LoopAbstraction] = {}
        self.loops: dict[str, LoopInfo] = {}
        for a in abstractions:
            lp = loops.get(a.header)
            if lp is None:
                raise ValueError(f"{a.header} heads no loop of {kernel.name}")
            why = refusal(kernel, lp)
            if why is not None:
                raise ValueError(f"the loop at {lp.loc} cannot be abstracted: {why}")
            for f in a.facts:
                if f.kind not in FACTS:
                    raise ValueError(f"unknown loop fact {f.kind!r}")
            self.by_header[a.header] = a
            self.loops[a.header] = lp
        self.number = {h: n for n, h in enumerate(self.by_header)}

    def pass_fields(self) -> list[str]:
        """Fields of vk_thread: each abstracted loop's pass counter and its
        ghost iteration count (`induction`)."""
        return [f"    int32_t pass{n}; uint64_t it{n};" for n in self.number.values()]

    def induction(self, header: str) -> list[str]:
        """`phi == entry + c * it` (MIR's wrapping arithmetic in phi's type)
        for every integer phi of the header that each back edge steps by
        the same constant c (`phi + c`, `phi - c`), `it` the loop's ghost
        iteration count (0 on entry, + 1 on each back edge, havocked with
        the rest): the relation between induction variables (`s == k` when
        both count iterations) that z3's loop encoding states through its
        iteration variable, and Houdini's candidates assume. Checked by CBMC
        like every other conjunct; a loop with several entries gets none."""
        lp = self.loops[header]
        n = self.number[header]
        out = []
        for phi in self.kernel.block(header).phis:
            t = phi.result.type
            entries = [v for src, v in phi.incoming if src not in lp.body]
            steps = {_step_of(self.kernel, v, phi.result) for src, v in phi.incoming
                     if src in lp.body}
            if not t.is_int or len(entries) != 1 or len(steps) != 1 or None in steps:
                continue
            c = steps.pop()
            assert c is not None
            at = ops.binary("add", self.operand(entries[0]),
                            ops.binary("mul", ops.const(c, t), f"T->it{n}", t), t)
            out.append(ops.compare("eq", self.operand(phi.result), at, t))
        return out

    def invariant(self, header: str) -> str:
        """The loop's invariant as one C condition ("1" when it has no fact)."""
        parts = self.induction(header)
        for f in self.by_header[header].facts:
            other = self.operand(f.other) if f.other is not None else "0"
            entry = self.operand(f.entry) if f.entry is not None else "0"
            parts.append(FACTS[f.kind](f, self.operand(f.phi), other, entry))
        return " && ".join(f"({p})" for p in parts) or "1"

    def edge(self, src: str, dst: str) -> list[str]:
        """The CBMC-only lines of edge src -> dst (after its phi copies,
        before its goto) when dst heads an abstracted loop; [] otherwise."""
        if dst not in self.by_header:
            return []
        lp = self.loops[dst]
        n = self.number[dst]
        inv = self.invariant(dst)
        where = f"{lp.loc.file}:{lp.loc.line}:{lp.loc.col}"
        back = src in lp.body
        what = "is preserved by an iteration" if back else "holds on entry"
        msg = ops.c_string(f"loop invariant of the loop at {where} {what}")
        out = ["#ifndef VERIKERN_REPLAY", f"    T->it{n} = {f'T->it{n} + 1u' if back else '0u'};"]
        if inv != "1":
            out.append(f"    __CPROVER_assert({inv}, {msg});")
        if back:
            out.append(f"    __CPROVER_assume(T->pass{n} == 0);   /* a second iteration: cut */")
        for v in loop_values(self.kernel, lp):
            out.append(f"    T->v{v.id} = {ops.nondet(v.type)}();")
        out.append(f"    T->it{n} = nondet_uint64();")
        if inv != "1":
            out.append(f"    __CPROVER_assume({inv});")
        out.append(f"    T->pass{n} = {1 if back else 0};")
        out.append("#endif")
        return out



def _step_of(kernel: Kernel, value, phi: Value) -> int | None:
    """c when `value` is `phi + c` or `phi - c` (c a constant; -c then), else None."""
    if not isinstance(value, Value):
        return None
    for b in kernel.blocks:
        for ins in b.instrs:
            result = getattr(ins, "result", None)
            if result is not None and result.id == value.id:
                if (isinstance(ins, BinOp) and ins.op in ("add", "sub") and ins.lhs == phi
                        and isinstance(ins.rhs, Const) and isinstance(ins.rhs.value, int)):
                    return int(ins.rhs.value) if ins.op == "add" else -int(ins.rhs.value)
                if (isinstance(ins, BinOp) and ins.op == "add" and ins.rhs == phi
                        and isinstance(ins.lhs, Const) and isinstance(ins.lhs.value, int)):
                    return int(ins.lhs.value)
                return None
    return None
