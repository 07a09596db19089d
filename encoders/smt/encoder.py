"""One thread's CFG as guarded SSA in z3.

Invariant: for every real execution of the thread (every launch admitted by
the launch facts, every memory content) and any choice of one header visit per
loop, there is an assignment of the encoding's fresh variables under which
every `facts` term holds, `reach[b]` is true iff the thread executes block b in
that choice of iterations, and `val[v]` is the value v takes there. So an
`unsat` answer to "facts and reach(site) and not property" proves the property
at the site. Loop headers are havocked ("an arbitrary iteration"): their phis
are fresh variables constrained only by invariants the caller has proven
(`add_loop_facts`). Floats, loads of memory the kernel writes, atomics and
float->int casts are fresh variables and are marked abstract; so is a load of
a never-written array at an abstract index.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any, Callable, Union

import z3

from verikern.mir.nodes import (
    ArrayRef, Assert, Atomic, Barrier, BinOp, Branch, Cast, Compare, Const, Jump, Kernel, Operand,
    Load, Phi, Requires, RequiresArray, Return, Select, ShapeOf, Special, Store,
    UnaryOp, Value,
)

from verikern.mir.facts import is_int_division
from verikern.mir.types import I64 as _I64

from .launch import LaunchModel, ThreadIdentity
from .lemmas import (  # noqa: F401  (divmod_lemmas: used by the prover)
    division_lemmas, divmod_lemmas, nested_mod_lemma, widening_product_lemmas,
)
from .semantics import UnsupportedConstruct, const_term, int_binop, int_cast, int_compare, int_unop, sort_of, widen
from verikern.mir.cfg import CfgShape


#: A key of a havocked loop header's variables: a phi's value id, or the
#: string "<iteration>" (the loop's ghost iteration counter).
HavocKey = Union[int, str]


@dataclass
class LoopHavoc:
    """The havocked header of one loop in one thread copy."""

    header: str
    reach_var: z3.BoolRef
    phis: dict[HavocKey, z3.ExprRef]
    shared: frozenset[HavocKey]     # phi ids whose variable is shared with another copy
    entry_edges: list[tuple[str, str]] = field(default_factory=list)
    latch_edges: list[tuple[str, str]] = field(default_factory=list)
    entry_abstract: bool = False


@dataclass
class LoadRecord:
    """A load (or an atomic's read of the old value) executed by this copy
    (for array-contract facts and counterexamples)."""

    site: tuple[str, int]
    array: ArrayRef
    indices: tuple[z3.ExprRef, ...]        # widened, one per full dimension
    value: z3.ExprRef
    reach: z3.BoolRef


def _serial() -> "itertools.count[int]":
    """The counter that makes fresh variable names unique within the current
    z3 context. It lives on the context, so names (and with them z3's
    variable order and models) do not depend on what earlier proofs in this
    process created."""
    ctx = z3.main_ctx()
    counter = getattr(ctx, "_verikern_serial", None)
    if counter is None:
        counter = itertools.count()
        ctx._verikern_serial = counter
    return counter


class ThreadEncoding:
    """The guarded-SSA encoding of one thread copy (see module docstring)."""

    def __init__(self, kernel: Kernel, shape: CfgShape, launch: LaunchModel,
                 tag: str, shared_havoc: dict[str, dict[HavocKey, z3.ExprRef]] | None = None):
        self.kernel = kernel
        self.shape = shape
        self.launch = launch
        self.tag = tag
        self.ident, id_facts = ThreadIdentity.fresh(tag, launch)
        self.facts: list[z3.BoolRef] = list(id_facts)
        self.val: dict[int, z3.ExprRef] = dict(launch.scalars)
        self.abstract: set[int] = set()
        self.reach: dict[str, z3.BoolRef] = {}
        self.reach_abstract: dict[str, bool] = {}
        self.edges: dict[tuple[str, str], z3.BoolRef] = {}
        self.edge_abstract: dict[tuple[str, str], bool] = {}
        self.havoc: dict[str, LoopHavoc] = {}
        self.loads: list[LoadRecord] = []
        self.atomics: list[LoadRecord] = []       # each atomic's old value, as a read
        self.var_loop: dict[str, str | None] = {}     # fresh var name -> innermost loop
        self.requires_array: list[RequiresArray] = []
        self.requires_at: list[tuple[tuple[str, int], z3.BoolRef]] = []   # (site, fact)
        self.divmods: dict[tuple, list] = {}      # (lhs, rhs) -> [n, d, quotient, remainder, type]
        self._shared_havoc = shared_havoc or {}
        self._current_label = ""
        self._encode()

    # ------------------------------------------------------------ helpers
    def fresh(self, hint: str, t, loop: str | None = None) -> z3.ExprRef:
        name = f"{self.tag}_{hint}_{next(_serial())}"
        self.var_loop[name] = loop if loop is not None else self.shape.innermost_loop(
            self._current_label)
        return z3.Const(name, sort_of(t))

    def term(self, op) -> z3.ExprRef:
        if isinstance(op, Const):
            return const_term(op.value, op.type)
        if isinstance(op, Value):
            try:
                return self.val[op.id]
            except KeyError:
                raise UnsupportedConstruct(f"value {op} used before its definition") from None
        raise UnsupportedConstruct(f"operand {op!r}")

    def is_abstract(self, op) -> bool:
        return isinstance(op, Value) and op.id in self.abstract

    def define(self, v: Value, term: z3.ExprRef, abstract: bool) -> None:
        self.val[v.id] = term
        if abstract:
            self.abstract.add(v.id)

    # ------------------------------------------------------------ encoding
    def _encode(self) -> None:
        k = self.kernel
        for lbl in self.shape.order:
            self._current_label = lbl
            block = k.block(lbl)
            preds = self.shape.forward_preds[lbl]
            if lbl == k.entry.label:
                reach, reach_abs = z3.BoolVal(True), False
            else:
                into = [self.edges[(p, lbl)] for p in preds if (p, lbl) in self.edges]
                reach = z3.Or(*into) if len(into) > 1 else (into[0] if into else z3.BoolVal(False))
                reach_abs = any(self._edge_taint(p, lbl) for p in preds)
            if lbl in self.shape.loops:
                reach, reach_abs = self._havoc_header(lbl, block, reach, preds), True
                self.reach[lbl], self.reach_abstract[lbl] = reach, reach_abs
            else:
                self.reach[lbl], self.reach_abstract[lbl] = reach, reach_abs
                for phi in block.phis:
                    self._encode_join_phi(lbl, phi)
            for pos, ins in enumerate(block.instrs):
                handler = INSTRUCTION_ENCODERS.get(type(ins))
                if handler is None:
                    raise UnsupportedConstruct(
                        f"no SMT encoding for MIR instruction {type(ins).__name__}")
                handler(self, lbl, pos, ins)
            term = block.terminator
            term_handler = TERMINATOR_ENCODERS.get(type(term))
            if term_handler is None:
                raise UnsupportedConstruct(
                    f"no SMT encoding for terminator {type(term).__name__}")
            term_handler(self, lbl, term)

    def _edge_taint(self, src: str, dst: str) -> bool:
        """Whether reaching `dst` along src->dst depends on an abstraction. The
        edges into the exit of a loop without `return` are, together, as exact
        as the loop entry: every terminating thread that enters leaves through
        them, whatever the havocked iteration (only *which* edge depends on it)."""
        lp = self.shape.clean_exit_of.get(dst)
        if lp is not None and src in self.shape.loop_bodies[lp]:
            hv = self.havoc.get(lp)
            return hv.entry_abstract if hv is not None else True
        return self.edge_abstract.get((src, dst), False)

    def _havoc_header(self, lbl, block, entry_reach, preds) -> z3.BoolRef:
        loop = self.shape.loops[lbl]
        r = z3.Bool(f"{self.tag}_in_loop_{lbl}")
        self.var_loop[str(r)] = None
        self.facts.append(r == entry_reach)
        shared = self._shared_havoc.get(lbl, {})
        phis: dict[HavocKey, z3.ExprRef] = {}
        for phi in block.phis:
            if phi.result.id in shared:
                var = shared[phi.result.id]
            else:
                var = self.fresh(f"loop{lbl}_{phi.result.name or phi.result.id}",
                                 phi.result.type, loop=lbl)
            phis[phi.result.id] = var
            self.define(phi.result, var, abstract=True)
        ghost = shared.get("<iteration>")
        if ghost is None:
            ghost = self.fresh(f"iteration_{lbl}", _I64, loop=lbl)
        phis["<iteration>"] = ghost
        self.facts.extend(self._additive_phi_facts(loop, block, r, ghost))
        hv = LoopHavoc(lbl, r, phis, frozenset(shared))
        hv.entry_abstract = any(self.edge_abstract.get((p, lbl), False) for p in preds)
        hv.entry_edges = [(p, lbl) for p in preds]
        hv.latch_edges = [(latch, lbl) for latch in loop.latches]
        self.havoc[lbl] = hv
        return r

    def _additive_phi_facts(self, loop, block, in_loop, ghost) -> list:
        """x == x0 + k*s (mod 2**w) in the k-th iteration, for every header phi
        whose every back edge brings `x + s` with s defined outside the loop: a
        theorem by induction on k (the ghost iteration counter)."""
        body = self.shape.loop_bodies[loop.header]
        defs = self.shape.defined_in
        out = []
        for phi in block.phis:
            t = phi.result.type
            if not t.is_int:
                continue
            entries = [v for src, v in phi.incoming if src not in loop.latches]
            steps: set[Operand] = set()
            symbolic = False   # a step that is not a constant
            for src, v in phi.incoming:
                if src not in loop.latches:
                    continue
                ins = self.shape.defining.get(v.id) if isinstance(v, Value) else None
                step = None
                if isinstance(ins, BinOp) and ins.op == "add":
                    if ins.lhs == phi.result:
                        step = ins.rhs
                    elif ins.rhs == phi.result:
                        step = ins.lhs
                # constant steps only (literal, or fixed by the launch): a symbolic
                # one makes k*s a multiplier circuit in every query
                if step is None or (isinstance(step, Value) and defs.get(step.id) in body) \
                        or not z3.is_bv_value(z3.simplify(self.term(step))):
                    symbolic = True
                    break
                steps.add(step)
            if len(entries) != 1 or symbolic or len(steps) != 1:
                continue
            (step,) = steps
            k = z3.Extract(t.bits - 1, 0, ghost) if t.bits < 64 else ghost
            x0 = self.term(entries[0])
            out.append(z3.Implies(in_loop, self.val[phi.result.id] == x0 + k * self.term(step)))
        return out

    def _encode_join_phi(self, lbl: str, phi: Phi) -> None:
        incoming = [(src, v) for src, v in phi.incoming if (src, lbl) in self.edges]
        if not incoming:
            self.define(phi.result, self.fresh("dead_phi", phi.result.type), abstract=False)
            return
        src, v = incoming[-1]
        term = self.term(v)
        abstract = self.is_abstract(v)
        for src, v in reversed(incoming[:-1]):
            term = z3.If(self.edges[(src, lbl)], self.term(v), term)
            abstract = abstract or self.is_abstract(v) or self.edge_abstract[(src, lbl)]
        if len(incoming) > 1:
            abstract = abstract or self.edge_abstract[(incoming[-1][0], lbl)]
        self.define(phi.result, term, abstract)

    def set_edge(self, src: str, dst: str, cond: z3.BoolRef, abstract: bool) -> None:
        if (src, dst) in self.edges:      # both branch targets equal
            self.edges[(src, dst)] = z3.Or(self.edges[(src, dst)], cond)
            self.edge_abstract[(src, dst)] |= abstract
        else:
            self.edges[(src, dst)] = cond
            self.edge_abstract[(src, dst)] = abstract

    # ------------------------------------------------------------ queries
    def leaving_condition(self, header: str) -> z3.BoolRef:
        """In the havocked iteration of loop `header`, the thread leaves the loop
        (an edge out of its body, or a `return` inside it)."""
        body = self.shape.loop_bodies[header]
        conds = []
        for lbl in self.shape.loops[header].body:    # source order, not set order
            if lbl not in self.reach:
                continue
            term = self.kernel.block(lbl).terminator
            if isinstance(term, Return):
                conds.append(self.reach[lbl])
            for succ in term.successors():
                if succ not in body and (lbl, succ) in self.edges:
                    conds.append(self.edges[(lbl, succ)])
        return z3.Or(*conds) if conds else z3.BoolVal(False)

    def exit_mode_facts(self, site_label: str | None) -> list:
        """For a query about a site in `site_label`: every loop that does not
        contain the site and cannot run after it may be taken in its last
        iteration (the one that leaves it), so post-loop code sees the loop's
        final state. Valid for every terminating thread (proofs assume
        termination, docs/LANGUAGE.md section 5): a thread that enters such a loop
        and reaches the site left the loop first (by an exit edge or not at
        all: a `return` inside it is a way of leaving), whether or not the
        loop's exit dominates the site -- a loop inside a block-uniform `if`
        is left before the join. A loop the site can reach along forward
        edges (after the site in its own iteration of the enclosing loops)
        gets no such fact: it may never end, and must not hide the site. A
        loop beside the site (neither reaches the other) is never visited in
        the same pass as the site, so its fact is vacuous there."""
        out = []
        after = self.shape.forward_reachable(site_label) if site_label is not None else ()
        for h, hv in self.havoc.items():
            if site_label is None or site_label in self.shape.loop_bodies[h]:
                continue
            if h in after:
                continue
            out.append(z3.Implies(hv.reach_var, self.leaving_condition(h)))
        return out

    def index_terms(self, ins) -> tuple[z3.ExprRef, ...]:
        return tuple(widen(self.term(i), i.type) for i in ins.indices)

    def loop_facts(self, header: str, invariant_terms: list[z3.BoolRef]) -> z3.BoolRef:
        """`in loop => invariants` for this copy's havoc of `header`."""
        hv = self.havoc[header]
        return z3.Implies(hv.reach_var, z3.And(*invariant_terms)) if invariant_terms \
            else z3.BoolVal(True)


# ---------------------------------------------------------------- dispatch
def _enc_binop(enc: ThreadEncoding, lbl, pos, ins: BinOp):
    t = ins.result.type
    if t.is_float:
        enc.define(ins.result, enc.fresh("float", t), abstract=True)
        return
    a, b = enc.term(ins.lhs), enc.term(ins.rhs)
    term = int_binop(ins.op, a, b, t)
    enc.define(ins.result, term, enc.is_abstract(ins.lhs) or enc.is_abstract(ins.rhs))
    if ins.op == "mul" and t.is_int:
        enc.facts.extend(widening_product_lemmas(enc, ins, a, b, term, t))
    if is_int_division(ins):
        enc.facts.extend(division_lemmas(ins.op, a, b, term, t))
        key = (_operand_key(ins.lhs), _operand_key(ins.rhs))
        slot = enc.divmods.setdefault(key, [a, b, None, None, t])
        slot[3 if ins.op == "mod" else 2] = term
    if ins.op == "mod" and t.is_int and isinstance(ins.lhs, Value):
        inner = enc.shape.defining.get(ins.lhs.id)
        if isinstance(inner, BinOp) and inner.op == "mod":
            enc.facts.append(nested_mod_lemma(enc.term(inner.lhs), enc.term(inner.rhs), b,
                                              term, t))


def _operand_key(op):
    return ("v", op.id) if isinstance(op, Value) else ("c", op.value, op.type.name)


def _enc_compare(enc, lbl, pos, ins: Compare):
    t = ins.lhs.type
    if t.is_float:
        enc.define(ins.result, enc.fresh("fcmp", ins.result.type), abstract=True)
        return
    term = int_compare(ins.op, enc.term(ins.lhs), enc.term(ins.rhs), t)
    enc.define(ins.result, term, enc.is_abstract(ins.lhs) or enc.is_abstract(ins.rhs))


def _enc_unop(enc, lbl, pos, ins: UnaryOp):
    t = ins.result.type
    if t.is_float:
        enc.define(ins.result, enc.fresh("float", t), abstract=True)
        return
    enc.define(ins.result, int_unop(ins.op, enc.term(ins.operand), t),
               enc.is_abstract(ins.operand))


def _enc_cast(enc, lbl, pos, ins: Cast):
    src, dst = ins.operand.type, ins.result.type
    if src == dst:
        enc.define(ins.result, enc.term(ins.operand), enc.is_abstract(ins.operand))
        return
    if src.is_float or dst.is_float:
        enc.define(ins.result, enc.fresh("fcast", dst), abstract=True)
        return
    enc.define(ins.result, int_cast(enc.term(ins.operand), src, dst),
               enc.is_abstract(ins.operand))


def _enc_select(enc, lbl, pos, ins: Select):
    term = z3.If(enc.term(ins.cond), enc.term(ins.if_true), enc.term(ins.if_false))
    enc.define(ins.result, term, any(enc.is_abstract(o) for o in ins.operands()))


def _enc_special(enc, lbl, pos, ins: Special):
    launch = enc.launch
    if ins.kind == "thread_idx":
        term = enc.ident.thread_idx
    elif ins.kind == "block_idx":
        term = enc.ident.block_idx
    elif ins.kind == "block_dim":
        term = launch.block_dim
    elif ins.kind == "grid_dim":
        term = launch.grid_dim
    elif ins.kind == "launch_dim":
        if not 0 <= ins.dim < len(launch.dims):
            raise UnsupportedConstruct(f"launch_dim({ins.dim}) of a "
                                       f"{len(launch.dims)}-d launch")
        term = launch.dims[ins.dim]
    else:
        raise UnsupportedConstruct(f"special register {ins.kind!r}")
    enc.define(ins.result, term, abstract=False)


def _enc_shape(enc, lbl, pos, ins: ShapeOf):
    enc.define(ins.result, enc.launch.shape(ins.array, ins.dim), abstract=False)


def _enc_load(enc, lbl, pos, ins: Load):
    arr = ins.array
    written = arr.name in enc.shape.written
    value = enc.fresh(f"load_{arr.name}", ins.result.type)
    # a never-written global array's element is exact only at an exact index:
    # at an abstract one, the model's contents sit where no real thread reads
    abstract = written or arr.space == "shared" or any(enc.is_abstract(i) for i in ins.indices)
    enc.define(ins.result, value, abstract=abstract)
    enc.loads.append(LoadRecord((lbl, pos), arr, enc.index_terms(ins), value, enc.reach[lbl]))


def _enc_atomic(enc, lbl, pos, ins: Atomic):
    value = enc.fresh(f"atomic_{ins.array.name}", ins.result.type)
    enc.define(ins.result, value, abstract=True)
    enc.atomics.append(LoadRecord((lbl, pos), ins.array, enc.index_terms(ins), value,
                                  enc.reach[lbl]))


def _enc_nothing(enc, lbl, pos, ins):
    """Store, Barrier, Assert: no value; the prover reads their operands."""


def _enc_requires(enc, lbl, pos, ins: Requires):
    fact = enc.term(ins.cond)
    enc.facts.append(fact)
    enc.requires_at.append(((lbl, pos), fact))


def _enc_requires_array(enc, lbl, pos, ins: RequiresArray):
    enc.requires_array.append(ins)


def _term_jump(enc, lbl, t: Jump):
    enc.set_edge(lbl, t.target, enc.reach[lbl], enc.reach_abstract[lbl])


def _term_branch(enc, lbl, t: Branch):
    c = enc.term(t.cond)
    r = enc.reach[lbl]
    ab = enc.reach_abstract[lbl] or enc.is_abstract(t.cond)
    enc.set_edge(lbl, t.if_true, z3.And(r, c), ab)
    enc.set_edge(lbl, t.if_false, z3.And(r, z3.Not(c)), ab)


def _term_return(enc, lbl, t: Return):
    """The thread ends: no outgoing edge."""


INSTRUCTION_ENCODERS: dict[type, Callable[[Any, str, int, Any], None]] = {
    BinOp: _enc_binop,
    Compare: _enc_compare,
    UnaryOp: _enc_unop,
    Cast: _enc_cast,
    Select: _enc_select,
    Special: _enc_special,
    ShapeOf: _enc_shape,
    Load: _enc_load,
    Store: _enc_nothing,
    Atomic: _enc_atomic,
    Barrier: _enc_nothing,
    Assert: _enc_nothing,
    Requires: _enc_requires,
    RequiresArray: _enc_requires_array,
}

# Phis are encoded by the block walker (join: ite over edges; loop header: havoc).
PHI_ENCODING = {Phi: "ite over incoming edges, or havoc at a loop header"}

TERMINATOR_ENCODERS: dict[type, Callable[[Any, str, Any], None]] = {
    Jump: _term_jump,
    Branch: _term_branch,
    Return: _term_return,
}
