"""Loop invariants: Houdini-style inference over candidate templates, and the
proof of `vk.invariant` hints.

Invariant: a candidate survives `houdini` only if z3 proved, assuming exactly
the surviving candidates of loops whose header visits precede the checked one
in every execution (enclosing and earlier loops; for consecution also the loop
itself and the loops nested in it), that it holds on every entry edge
(initiation) and is preserved along every back edge (consecution). The
surviving sets are therefore true at every header visit of every real
execution, and `invariant_facts` may be assumed. Hints are candidates like any
other: they are never assumed unless proved.
"""
from __future__ import annotations

import enum
from typing import Any, Mapping
from dataclasses import dataclass, field

import z3

from verikern.encoders.smt.encoder import ThreadEncoding
from verikern.encoders.smt.semantics import UnsupportedConstruct, int_binop, le, lt
from verikern.encoders.smt.terms import unseen_children
from verikern.mir.cfg import CfgShape
from verikern.mir.nodes import Assert, BinOp, Compare, Const, Kernel, Value

from verikern.proofs.deciding.budget import MEGA

#: Work limits of Houdini's checks (z3 resource units): a concrete-launch
#: probe, a small-model search, a short exact look, the abstract quick check.
HOUDINI_PROBE_RLIMIT = 3 * MEGA // 10
HOUDINI_SMALL_RLIMIT = 4 * MEGA // 10
HOUDINI_SHORT_RLIMIT = MEGA // 2
HOUDINI_QUICK_RLIMIT = 2 * MEGA


@dataclass(frozen=True)
class Candidate:
    """One template instance at loop `header` about phi `phi_id`.

    kind: ge0 gt0 ge_init le_init pow2 cong cong_sym le lt ge step_lt step_le
    witness hint;
    bound: the operand compared against, or the step of cong_sym (defined
    outside the loop), or for "witness" the bool header phi of a variable's
    assignment flag (`phi == initial or flag`: the phi changed only on a path
    that assigned the variable, as `hit = 1` beside `v = ...`);
    step: the constant increment for cong/step_*; hint: the Assert for "hint".
    """

    header: str
    kind: str
    phi_id: int = -1
    bound: object = None
    step: int = 0
    hint: Assert | None = None
    hint_site: tuple[str, int] | None = None

    def build(self, enc: ThreadEncoding, state: Mapping[Any, z3.ExprRef]) -> z3.BoolRef:
        """The candidate over `state` (phi id or "<iteration>" -> term)."""
        hv = enc.havoc[self.header]
        if self.kind == "hint":
            hint, site = self.hint_parts()
            expr = z3.Implies(enc.reach[site[0]], enc.term(hint.cond))
            pairs = [(hv.phis[i], state[i]) for i in hv.phis
                     if i in state and not hv.phis[i].eq(state[i])]
            return z3.substitute(expr, *pairs) if pairs else expr
        x = state[self.phi_id]
        phi = _phi_by_id(enc.kernel, self.header, self.phi_id)
        t = phi.result.type
        zero = z3.BitVecVal(0, t.bits)
        if self.kind == "ge0":
            return x >= zero
        if self.kind == "gt0":
            return x > zero if t.is_signed else x != zero
        if self.kind == "pow2":
            return (x & (x - 1)) == zero
        if self.kind == "witness":
            x0 = enc.term(_entry_value(enc.kernel, self.header, phi))
            flag = state[self.bound.id]   # type: ignore[attr-defined]
            return z3.Or(x == x0, flag if z3.is_bool(flag) else flag != 0)
        if self.kind in ("ge_init", "le_init", "cong", "step_lt", "step_le", "cong_sym"):
            x0 = enc.term(_entry_value(enc.kernel, self.header, phi))
            if self.kind == "cong_sym":
                u = enc.term(self.bound)
                return int_binop("mod", x, u, t) == int_binop("mod", x0, u, t)
            if self.kind == "ge_init":
                return le(x0, x, t)
            if self.kind == "le_init":
                return le(x, x0, t)
            if self.kind == "cong":
                return ((x - x0) & z3.BitVecVal(abs(self.step) - 1, t.bits)) == zero
            u = enc.term(self.bound)
            prev = x - z3.BitVecVal(self.step, t.bits)
            rel = lt(prev, u, t) if self.kind == "step_lt" else le(prev, u, t)
            return z3.Or(x == x0, rel)
        u = enc.term(self.bound)
        if self.kind == "le":
            return le(x, u, t)
        if self.kind == "lt":
            return lt(x, u, t)
        if self.kind == "ge":
            return le(u, x, t)
        raise ValueError(f"unknown candidate kind {self.kind}")

    def hint_parts(self) -> tuple[Assert, tuple[str, int]]:
        """The Assert of a "hint" candidate and its site (both set for that kind)."""
        assert self.hint is not None and self.hint_site is not None, self
        return self.hint, self.hint_site

    def describe(self, kernel: Kernel) -> str:
        if self.kind == "hint":
            return f"vk.invariant at line {self.hint_parts()[0].loc.line}"
        phi = _phi_by_id(kernel, self.header, self.phi_id)
        name = phi.result.name or str(phi.result)
        b = self.bound
        bname = (str(b.value) if isinstance(b, Const) else (b.name or str(b)) if isinstance(b, Value)
                 else str(b)) if b is not None else ""
        text = {"ge0": f"{name} >= 0", "gt0": f"{name} > 0", "pow2": f"{name} & ({name}-1) == 0",
                "ge_init": f"{name} >= initial", "le_init": f"{name} <= initial",
                "cong": f"({name} - initial) % {abs(self.step)} == 0",
                "cong_sym": f"{name} % {bname} == initial % {bname}",
                "le": f"{name} <= {bname}", "lt": f"{name} < {bname}", "ge": f"{name} >= {bname}",
                "step_lt": f"{name} == initial or {name} - {self.step} < {bname}",
                "step_le": f"{name} == initial or {name} - {self.step} <= {bname}",
                "witness": f"{name} == initial or {bname}"}
        return text[self.kind]


def candidate_operands(kernel: Kernel, c: Candidate) -> tuple[Value, object, object]:
    """A template candidate's MIR operands: its phi's value, the operand it
    compares against (`bound`, or cong_sym's step; None for the others) and
    the phi's value on loop entry (None for the kinds that do not read it).
    Raises ValueError for a "hint" (a condition, not a template) and
    UnsupportedConstruct for an entry value of a loop with several entries.
    (The accessor CBMC's loop abstraction writes z3's invariants in C with:
    proofs.deciding.cbmc_invariants.)"""
    if c.kind == "hint":
        raise ValueError("a vk.invariant hint has no template operands")
    if c.kind == "witness":
        raise ValueError("a witness relates two phis: no template operands")
    phi = _phi_by_id(kernel, c.header, c.phi_id)
    entry = (_entry_value(kernel, c.header, phi)
             if c.kind in ("ge_init", "le_init", "cong", "cong_sym", "step_lt", "step_le") else None)
    return phi.result, c.bound, entry


def _phi_by_id(kernel: Kernel, header: str, phi_id: int):
    for phi in kernel.block(header).phis:
        if phi.result.id == phi_id:
            return phi
    raise KeyError(phi_id)


def _entry_value(kernel: Kernel, header: str, phi):
    lp = next(lp for lp in kernel.loops if lp.header == header)
    entries = [v for src, v in phi.incoming if src not in lp.latches]
    if len(entries) != 1:
        raise UnsupportedConstruct("loop with several entry edges")
    return entries[0]


def generate_candidates(kernel: Kernel, shape: CfgShape) -> dict[str, list[Candidate]]:
    """Candidate invariants per loop header (templates of the module docstring)."""
    defined_in: dict[int, str] = {}
    for b in kernel.blocks:
        for ins in (*b.phis, *b.instrs):
            r = getattr(ins, "result", None)
            if r is not None:
                defined_in[r.id] = b.label
    out: dict[str, list[Candidate]] = {}
    checked_flags = _checked_flags(kernel)
    preds = kernel.predecessors()      # once: a kernel of many loops rebuilt it per loop
    for lp in kernel.loops:
        body = set(lp.body)
        cands: list[Candidate] = []
        header = kernel.block(lp.header)
        bounds = []
        for lbl in lp.body:
            for ins in kernel.block(lbl).instrs:
                if isinstance(ins, (Compare, BinOp)):
                    for op in (ins.lhs, ins.rhs):
                        if isinstance(ins, BinOp) and not isinstance(op, Const):
                            continue
                        if isinstance(op, Const) or (isinstance(op, Value)
                                                      and defined_in.get(op.id) not in body):
                            if op not in bounds:
                                bounds.append(op)
        single_entry = len([p for p in preds[lp.header]
                            if p not in lp.latches]) == 1
        for phi in header.phis:
            t = phi.result.type
            if not t.is_int:
                continue
            pid = phi.result.id
            kinds = ["gt0", "pow2"] + (["ge0"] if t.is_signed else [])
            if single_entry:
                kinds += ["ge_init", "le_init"]
            for kind in kinds:
                cands.append(Candidate(lp.header, kind, pid))
            steps = set()
            for src, nxt in phi.incoming:
                if src in lp.latches and isinstance(nxt, Value):
                    steps |= _constant_steps(kernel, defined_in, nxt, phi.result)
            for u in bounds:
                if u.type != t:
                    continue
                for kind in ("le", "lt", "ge"):
                    cands.append(Candidate(lp.header, kind, pid, bound=u))
                if single_entry:
                    for c in steps:
                        if c > 0:
                            cands.append(Candidate(lp.header, "step_lt", pid, bound=u, step=c))
                            cands.append(Candidate(lp.header, "step_le", pid, bound=u, step=c))
            if single_entry:
                for c in steps:
                    if abs(c) > 1 and abs(c) & (abs(c) - 1) == 0:
                        cands.append(Candidate(lp.header, "cong", pid, step=c))
                for src, nxt in phi.incoming:
                    if src in lp.latches and isinstance(nxt, Value):
                        for u in _loop_invariant_steps(kernel, defined_in, body, nxt, phi.result):
                            cands.append(Candidate(lp.header, "cong_sym", pid, bound=u))
        if single_entry:
            cands += _witness_candidates(lp.header, header.phis, checked_flags)
        unique: list[Candidate] = []
        seen: set[str] = set()
        for cand in cands:
            key = cand.describe(kernel)
            if key not in seen:
                seen.add(key)
                unique.append(cand)
        cands = unique
        for a in lp.invariants:
            site = _find_site(kernel, a)
            cands.append(Candidate(lp.header, "hint", hint=a, hint_site=site))
        out[lp.header] = cands
    return out


def _checked_flags(kernel: Kernel) -> set[int]:
    """The ids of the values an `unassigned` check reads (the flag of a variable
    only some paths assign) and of every phi they come through."""
    phis = {phi.result.id: phi for b in kernel.blocks for phi in b.phis}
    todo = [ins.cond for b in kernel.blocks for ins in b.instrs
            if isinstance(ins, Assert) and ins.kind == "unassigned" and isinstance(ins.cond, Value)]
    seen: set[int] = set()
    while todo:
        v = todo.pop()
        if v.id in seen:
            continue
        seen.add(v.id)
        if v.id in phis:
            todo += [x for _, x in phis[v.id].incoming if isinstance(x, Value)]
    return seen


def _witness_candidates(header: str, phis, checked_flags: set[int]) -> list[Candidate]:
    """`x == initial or flag` for each checked flag phi of the header and each
    other int or bool phi x: a value that a loop changes only where it also
    assigns the variable witnesses the assignment after the loop."""
    flags = [p.result for p in phis if p.result.type.is_bool and p.result.id in checked_flags]
    return [Candidate(header, "witness", p.result.id, bound=f) for f in flags for p in phis
            if p.result.id != f.id and (p.result.type.is_int or p.result.type.is_bool)]


def _find_site(kernel: Kernel, a: Assert) -> tuple[str, int]:
    for b in kernel.blocks:
        for i, ins in enumerate(b.instrs):
            if ins is a:
                return (b.label, i)
    for b in kernel.blocks:
        for i, ins in enumerate(b.instrs):
            if ins == a:
                return (b.label, i)
    raise UnsupportedConstruct(f"invariant at line {a.loc.line} is not in the kernel")


def _constant_steps(kernel, defined_in, nxt: Value, phi_val: Value) -> set[int]:
    lbl = defined_in.get(nxt.id)
    if lbl is None:
        return set()
    for ins in kernel.block(lbl).instrs:
        if isinstance(ins, BinOp) and ins.result.id == nxt.id and ins.op in ("add", "sub"):
            if ins.lhs == phi_val and isinstance(ins.rhs, Const):
                c = int(ins.rhs.value)
                return {c if ins.op == "add" else -c}
            if ins.op == "add" and ins.rhs == phi_val and isinstance(ins.lhs, Const):
                return {int(ins.lhs.value)}
    return set()


def _loop_invariant_steps(kernel, defined_in, body, nxt: Value, phi_val: Value) -> list:
    """`s` when `nxt` is phi + s (or s + phi) with s a value defined outside
    the loop (a grid-stride step)."""
    lbl = defined_in.get(nxt.id)
    if lbl is None:
        return []
    for ins in kernel.block(lbl).instrs:
        if isinstance(ins, BinOp) and ins.result.id == nxt.id and ins.op == "add":
            for mine, other in ((ins.lhs, ins.rhs), (ins.rhs, ins.lhs)):
                if mine == phi_val and isinstance(other, Value) \
                        and defined_in.get(other.id) not in body:
                    return [other]
    return []


class HintPhase(str, enum.Enum):
    """Why a `vk.invariant` hint was removed."""

    INITIATION = "initiation"        # false on some loop entry (model: that entry)
    CONSECUTION = "consecution"      # not preserved by some iteration
    UNSUPPORTED = "unsupported"      # not a function of the loop's phis (detail: why)
    UNDECIDED = "unknown"            # the solver gave no answer within its budget


@dataclass(frozen=True)
class HintFailure:
    """A removed hint: the phase, a model that shows it (None for the last
    two phases), and the detail (the block of the failing edge, or why the
    hint is unsupported)."""

    phase: HintPhase
    model: object | None
    detail: str


@dataclass
class HoudiniResult:
    """Surviving candidates per loop header, and for each removed hint
    (keyed by its Assert instruction) the HintFailure that removed it."""

    invariants: dict[str, list[Candidate]]
    hint_failures: dict[Assert, HintFailure] = field(default_factory=dict)
    checks: int = 0


def _hint_supported(enc: ThreadEncoding, shape: CfgShape, c: Candidate) -> str | None:
    """None when the hint is a function of the loop's havocked phis and values
    defined outside the loop; else the reason it cannot be checked."""
    hint, site = c.hint_parts()
    try:
        expr = z3.Implies(enc.reach[site[0]], enc.term(hint.cond))
    except UnsupportedConstruct as err:
        return str(err)
    body = set(next(lp.body for lp in enc.kernel.loops if lp.header == c.header))
    own = {str(v) for v in enc.havoc[c.header].phis.values()}
    seen, stack = set(), [expr]
    while stack:
        e = stack.pop()
        if e.get_id() in seen:
            continue
        seen.add(e.get_id())
        if z3.is_const(e) and e.decl().kind() == z3.Z3_OP_UNINTERPRETED:
            name = str(e)
            loop = enc.var_loop.get(name)
            if name not in own and loop is not None and loop in body:
                return ("the invariant depends on a value computed inside the loop "
                        "(memory, float, or an inner loop)")
        stack.extend(unseen_children(e, seen))
    return None


def invariant_facts(enc: ThreadEncoding, invariants: dict[str, list[Candidate]]) -> list:
    """`in loop => proven invariants` for every havocked loop of `enc`."""
    out = []
    for h, cs in invariants.items():
        hv = enc.havoc.get(h)
        if hv is None or not cs:
            continue
        out.append(enc.loop_facts(h, [c.build(enc, hv.phis) for c in cs]))
    return out
