"""Facts about array contents that need an argument: atomic tickets, the
`all_in_range` contracts of arrays the kernel writes, and `all_sorted`.

Invariants (each fact below holds in every real execution; docs/PROVER.md,
"Facts that need an argument", gives the arguments):

- **Tickets.** A global integer array is a *ticket array* when every
  instruction that writes it is an `atomic_add` of a positive constant,
  none inside a loop, the constants summing to less than 2**32. Then each
  thread runs each such site at most once, so the element's updates are at
  most `size` calls per site, each adding a positive amount: the old value a
  call returns is `init + d (mod 2**w)`, where `init` is the element's
  launch-time value and `d` the sum of the increments of the calls on that
  element before it. So `0 <= d < size * sum(c)`; with a single site of
  increment c, `d = c*k` with `0 <= k < size`. Two different calls (two
  threads, or two sites) on one element have different `d` (the sum grows
  strictly); both see the same `init`, and `init` satisfies the array's
  `all_in_range` contract. *Callers below a bound*: when z3 proves, for an
  arbitrary thread (the copy, under the launch facts and its own encoding
  only), that reaching a single-site ticket call implies its linear id
  `block_idx * block_dim + thread_idx < X` for a launch constant X (a
  length, a scalar parameter, a launch dim or a literal an `<` compares
  against: the same value in every thread), then every call comes from a
  distinct thread with a distinct linear id in [0, X), so there are at most
  X calls and `k < X` (an int16 counter of a compaction guarded by
  `i < x.shape[0]` with `x.shape[0] <= 32767` does not wrap, whatever the
  launch). A loop around any writer, a plain store, another
  atomic operation or a non-constant increment keeps every result of the
  array an unconstrained (havocked) value.
- **Kept ranges.** `all_in_range(a, lo, hi)` of a global array the kernel
  writes is assumed for loads of `a` (and for the old values its atomics
  return) only once z3 proved, under the very facts used everywhere else plus
  that assumption for every array of the set, that every store to those
  arrays writes a value in [lo, hi), and that each of their atomics is an
  `exch`, `min`, `max` or `cas` whose new value is in [lo, hi). By induction
  over the memory operations of an execution (the first store that would
  leave the range reads only in-range memory before it), the contents then
  stay in range. Arrays whose stores are not proved are dropped and the rest
  re-checked (a greatest fixpoint); `notes` says why each dropped array's
  contract is not assumed.
- **Sorted.** For a never-written 1-d array with `all_sorted`, two loads at
  in-bounds indices i <= j read values v_i <= v_j (both in one launch).
"""
from __future__ import annotations

import itertools
from dataclasses import replace

import z3

from verikern.encoders.smt.abstraction import NonlinearAbstraction
from verikern.encoders.smt.semantics import le, lt, widen
from verikern.mir.types import I32
from verikern.mir.facts import writes_memory
from verikern.mir.tickets import ticket_arrays, used_values
from verikern.mir.nodes import (
    Atomic, BinOp, Compare, Const, Kernel, Load, Phi, ScalarParam, Select, ShapeOf, Special, Store, Value,
)

from verikern.proofs.deciding.budget import MEGA
from verikern.proofs.deciding.solving import check
from verikern.proofs.obligations import Status

#: Work of one check that a store keeps an array's range (abstract, then exact).
KEEP_RLIMIT = 2 * MEGA
#: Atomic operations whose new value is the operand, or lies between the old
#: value and the operand: they keep a range the operand is in.
RANGE_KEEPING_ATOMICS = ("exch", "min", "max", "cas")
#: atomics whose new value is the old one moved by the operand: kept when the
#: moved value is proved in range for every old value in range
RANGE_MOVING_ATOMICS = ("add", "sub")
#: Work of one check that a ticket call's threads have linear ids below a bound.
CALLERS_RLIMIT = MEGA // 2
#: At most this many launch constants are tried as such a bound per call site.
MAX_CALLER_BOUNDS = 4


class ContentFacts:
    """The facts above for one proof context (see the module docstring).
    Fresh ticket variables are made once per thread copy and site."""

    def __init__(self, kernel: Kernel, shape, launch, contracts: dict):
        self.kernel = kernel
        self.shape = shape
        self.launch = launch
        self.contracts = contracts
        self.tickets = ticket_arrays(kernel, shape)
        self._used = used_values(kernel)
        self.kept: frozenset[str] = frozenset()
        self.notes: dict[str, str] = {}
        self._vars: dict[tuple, tuple] = {}
        self._single: dict[tuple, list] = {}
        self._callers: dict[tuple, list] = {}
        self._closure: dict[str, frozenset[int]] = {}
        self.sorted = frozenset(
            name for name, cs in contracts.items()
            if any(c.kind == "all_sorted" for c in cs) and name not in shape.written)
        self.increasing = frozenset(
            name for name in self.sorted
            if any(c.kind == "all_distinct" for c in contracts[name]))

    # ------------------------------------------------------------ ranges
    def ranges(self, name: str) -> list:
        return [c for c in self.contracts.get(name, []) if c.kind == "all_in_range"]

    @property
    def unwritten_ranged(self) -> frozenset[str]:
        """Global arrays the kernel never writes that have an all_in_range contract."""
        return frozenset(n for n in self.contracts if self.ranges(n) and n not in self.shape.written)

    def range_candidates(self) -> list[str]:
        """Written global arrays with an all_in_range contract."""
        return sorted(n for n in self.shape.written if self.ranges(n)
                      and n not in self.tickets)

    def settle_kept(self, ctx, extra: list | None = None) -> None:
        """Find the arrays whose contracts every write keeps (a greatest
        fixpoint: assume the candidates, drop those with a write not proved
        to keep them, repeat). `ctx` supplies the thread copy A, its facts
        and the solver budget; `extra` are further facts proven without
        assuming any candidate beyond `self.kept` (loop invariants)."""
        cands = [n for n in self.range_candidates() if n not in self.kept]
        if not cands:
            return
        base_kept = self.kept
        chosen = set(cands)
        why: dict[str, str] = {}
        while chosen:
            self.kept = base_kept | frozenset(chosen)
            failed = {}
            for name in sorted(chosen):
                bad = self._first_breaking_write(ctx, name, extra or [])
                if bad is not None:
                    failed[name] = bad
            if not failed:
                break
            why.update(failed)
            chosen -= set(failed)
        self.kept = base_kept | frozenset(chosen)
        for name in cands:
            if name in self.kept:
                self.notes.pop(name, None)
            else:
                self.notes[name] = why[name]

    def _first_breaking_write(self, ctx, name: str, extra: list) -> str | None:
        """None when every write to `name` provably keeps its ranges; else
        why not (naming the write's line)."""
        enc = ctx.A
        base = list(ctx.launch.facts) + enc.facts + ctx.single_array_facts(enc) + extra
        for b in self.kernel.blocks:
            if b.label not in enc.reach:
                continue
            for ins in b.instrs:
                if not (writes_memory(ins) and ins.array.name == name):
                    continue
                what = f"the {'store' if isinstance(ins, Store) else 'atomic_' + ins.op} " \
                       f"at line {ins.loc.line}"
                if isinstance(ins, Atomic) and ins.op not in RANGE_KEEPING_ATOMICS + RANGE_MOVING_ATOMICS:
                    return f"{what} may take an element out of the range"
                t = ins.array.dtype
                v = enc.term(ins.value)
                if isinstance(ins, Atomic) and ins.op in RANGE_MOVING_ATOMICS and t.is_int:
                    # the element becomes old +/- v (wrapping): the old value is
                    # in range (every earlier write kept it), so prove the new one is
                    old = enc.term(ins.result)
                    v = old + v if ins.op == "add" else old - v
                elif isinstance(ins, Atomic) and ins.op in RANGE_MOVING_ATOMICS:
                    return f"{what} may take an element out of the range"
                for c in self.ranges(name):
                    lo, hi = enc.term(c.lo), enc.term(c.hi)
                    query = base + enc.exit_mode_facts(b.label) + [
                        enc.reach[b.label], z3.Not(z3.And(le(lo, v, t), lt(v, hi, t)))]
                    if not self._unsat(ctx, query, f"keeps-range-{name}"):
                        return (f"{what} may write a value outside the range of the "
                                f"all_in_range at line {c.loc.line}")
        return None

    @staticmethod
    def _unsat(ctx, query: list, purpose: str) -> bool:
        if check(ctx.budget, NonlinearAbstraction().apply(query), KEEP_RLIMIT,
                 purpose + "-abstract")[0] == z3.unsat:
            return True
        return check(ctx.budget, query, KEEP_RLIMIT, purpose)[0] == z3.unsat

    def describe_dropped(self) -> str | None:
        """Why contracts of written arrays are not assumed, or None."""
        if not self.notes:
            return None
        parts = [f"all_in_range({name}, ...) is not assumed for the written array {name}: "
                 f"{why}" for name, why in sorted(self.notes.items())]
        return "; ".join(parts)

    def explain(self, ob):
        """`ob` with the reason why contracts of written arrays were not
        assumed added to its reason (and, for UNKNOWN, to its message), when
        it is not proved and some contract was dropped."""
        note = self.describe_dropped()
        if note is None or ob.status is Status.PROVED:
            return ob
        changes = {"reason": f"{ob.reason}; {note}" if ob.reason else note}
        if ob.status is Status.UNKNOWN:
            changes["message"] = f"{ob.message} ({note})"
        return replace(ob, **changes)

    def launch_contents(self, model, encs, shapes: dict) -> dict:
        """{array: {flat index: value}}: the launch-time values the model
        gives the elements of ticket arrays that the copies' reached atomics
        update (so that a replay starts the counter where the model did)."""
        out: dict = {}
        for enc in encs:
            for rec in enc.atomics:
                key = (enc.tag, rec.site)
                if rec.array.name not in self.tickets or key not in self._vars:
                    continue
                if not z3.is_true(model.eval(rec.reach, model_completion=True)):
                    continue
                idx = [_signed(model.eval(i, model_completion=True)) for i in rec.indices]
                full = list(shapes.get(rec.array.name, ())) + list(rec.array.inner)
                if len(idx) != len(full) or any(not 0 <= i < n for i, n in zip(idx, full)):
                    continue
                flat = 0
                for i, n in zip(idx, full):
                    flat = flat * n + i
                init = model.eval(self._vars[key][0], model_completion=True).as_long()
                out.setdefault(rec.array.name, {})[flat] = rec.array.dtype.wrap(init)
        return out

    # ------------------------------------------------------------ per copy
    def single(self, ctx, enc) -> list:
        """Facts of one copy: range facts on the old values of atomics on
        kept arrays, ticket equations and bounds, and distinct tickets of
        the copy's different sites on one element."""
        key = (enc.tag, self.kept)
        cached = self._single.get(key)
        if cached is None:
            cached = self._single[key] = self._single_facts(ctx, enc)
        return cached

    def _single_facts(self, ctx, enc) -> list:
        out = self._loop_closure_facts(enc) + self._room_facts(ctx, enc)
        for rec in enc.atomics:
            name = rec.array.name
            if name in self.kept:
                t = rec.array.dtype
                for c in self.ranges(name):
                    lo, hi = enc.term(c.lo), enc.term(c.hi)
                    out.append(z3.Implies(z3.And(rec.reach, ctx.in_bounds(enc, rec)),
                                          z3.And(le(lo, rec.value, t), lt(rec.value, hi, t))))
            elif self._is_ticket(rec):
                out += self._ticket_facts(ctx, enc, rec)
        recs = [r for r in enc.atomics if self._is_ticket(r)]
        for r1, r2 in itertools.combinations(recs, 2):
            if r1.array.name == r2.array.name:
                out += self._ticket_pair(enc, r1, enc, r2, z3.BoolVal(True))
        return out

    def _loop_closure_facts(self, enc) -> list:
        """For each kept array's range, and each `all_in_range` of a global
        array the kernel never writes: a loop-header phi whose every incoming
        value is a load of that array (or a select or phi of such values) is
        in the range in every iteration (the current segment `s_cur = idx[i]`
        of a run-length loop). Its value is one a load returned earlier on
        the thread's path, and a load that returns (in bounds) reads
        in-range memory: a kept array's by the induction above, a never-written
        one's because the launch checked its contract."""
        out = []
        for name in sorted(self.kept | self.unwritten_ranged):
            inside = self._range_closure(name)
            for c in self.ranges(name):
                for hv in enc.havoc.values():
                    for pid, var in hv.phis.items():
                        if pid in inside:
                            t = self.shape.defining[pid].result.type
                            lo, hi = enc.term(c.lo), enc.term(c.hi)
                            if t == c.lo.type:
                                out.append(z3.Implies(hv.reach_var, z3.And(
                                    le(lo, var, t), lt(var, hi, t))))
        return out

    def _range_closure(self, name: str) -> frozenset[int]:
        """Ids of values that are loads (or atomic old values) of `name`, or
        phis and selects of such values only -- the greatest such set, so
        that two phis feeding each other (a loop's header phi and the merge
        of its body's `if`) are in it: by induction over an execution, every
        value such a phi or select takes was taken before by one of its
        operands, and at the start only loads have values."""
        got = self._closure.get(name)
        if got is not None:
            return got
        loads: set[int] = set()
        merges: dict[int, list] = {}
        for b in self.kernel.blocks:
            for node in (*b.phis, *b.instrs):
                if isinstance(node, (Load, Atomic)) and node.array.name == name \
                        and node.array.space == "global":
                    loads.add(node.result.id)
                elif isinstance(node, Phi):
                    merges[node.result.id] = [v for _, v in node.incoming]
                elif isinstance(node, Select):
                    merges[node.result.id] = [node.if_true, node.if_false]
        inside = loads | set(merges)
        changed = True
        while changed:
            changed = False
            for rid, ops in merges.items():
                if rid in inside and not all(isinstance(v, Value) and v.id in inside for v in ops):
                    inside.discard(rid)
                    changed = True
        got = self._closure[name] = frozenset(inside)
        return got

    def _is_ticket(self, rec) -> bool:
        """A call on a ticket array whose old value the kernel uses (an
        unused one, as in `hist[b] += 1`, needs no facts)."""
        if rec.array.name not in self.tickets:
            return False
        ins = self.kernel.block(rec.site[0]).instrs[rec.site[1]]
        return ins.result.id in self._used

    def _ticket_vars(self, enc, rec) -> tuple:
        """(init, d, k) of one copy's call at one site: the element's
        launch-time value, the sum of the earlier calls' increments, the
        number of earlier calls (used with a single site)."""
        key = (enc.tag, rec.site)
        got = self._vars.get(key)
        if got is None:
            t = rec.array.dtype
            tag = f"{enc.tag}_{rec.array.name}_{len(self._vars)}"
            got = (z3.BitVec(f"ticket_init_{tag}", t.bits), z3.BitVec(f"ticket_sum_{tag}", 64),
                   z3.BitVec(f"ticket_k_{tag}", 64))
            self._vars[key] = got
        return got

    def _ticket_facts(self, ctx, enc, rec) -> list:
        ta = self.tickets[rec.array.name]
        t = rec.array.dtype
        init, d, k = self._ticket_vars(enc, rec)
        size = z3.ZeroExt(32, self.launch.size)
        low = z3.Extract(t.bits - 1, 0, d) if t.bits < 64 else d
        out = [rec.value == init + low]
        if len(ta.increments) == 1:
            out += [d == k * ta.increments[rec.site], z3.ULT(k, size)]
            out += [z3.Implies(rec.reach, k < z3.SignExt(32, x)) for x in self._caller_bounds(ctx, enc, rec)]
        else:
            out.append(z3.ULT(d, size * ta.total))
        for c in self.ranges(rec.array.name):
            lo, hi = enc.term(c.lo), enc.term(c.hi)
            out.append(z3.Implies(z3.And(rec.reach, ctx.in_bounds(enc, rec)),
                                  z3.And(le(lo, init, t), lt(init, hi, t))))
        return out

    def _uniform_bounds(self) -> list:
        """Int32 launch constants some `<` compares a value below (`v < X`,
        `X > v`): lengths, scalar parameters, launch dims, literals; in
        program order, at most MAX_CALLER_BOUNDS."""
        params = {p.value.id for p in self.kernel.params if isinstance(p, ScalarParam)}
        defs = {ins.result.id: ins for _, ins in self.kernel.instructions()
                if isinstance(ins, (ShapeOf, Special))}

        def uniform(op) -> bool:
            if op.type != I32:
                return False
            if isinstance(op, Const):
                return True
            d = defs.get(op.id)
            return op.id in params or isinstance(d, ShapeOf) or \
                (isinstance(d, Special) and d.kind == "launch_dim")

        out: list = []
        for _, ins in self.kernel.instructions():
            if isinstance(ins, Compare) and ins.op in ("lt", "gt"):
                x = ins.rhs if ins.op == "lt" else ins.lhs
                if uniform(x) and all(x != y for y in out):
                    out.append(x)
        return out[:MAX_CALLER_BOUNDS]

    def _caller_bounds(self, ctx, enc, rec) -> list:
        """The terms X of `_uniform_bounds` for which z3 proves that the copy
        reaching `rec` has linear id below X, from the launch facts and the
        copy's own encoding only (an arbitrary thread: so every caller does;
        module docstring)."""
        key = (enc.tag, rec.site)
        got = self._callers.get(key)
        if got is None:
            got = self._callers[key] = []
            linear = enc.ident.block_idx * self.launch.block_dim + enc.ident.thread_idx
            base = list(self.launch.facts) + list(enc.facts) + [rec.reach]
            for op in self._uniform_bounds():
                x = enc.term(op)
                res, _, _ = check(ctx.budget, base + [z3.Not(linear < x)], CALLERS_RLIMIT,
                                  "ticket-callers")
                if res == z3.unsat:
                    got.append(x)
        return got

    def _ticket_pair(self, e1, r1, e2, r2, distinct_call) -> list:
        i1, d1, _ = self._ticket_vars(e1, r1)
        i2, d2, _ = self._ticket_vars(e2, r2)
        same = z3.And(r1.reach, r2.reach, *[a == b for a, b in zip(r1.indices, r2.indices)])
        return [z3.Implies(same, i1 == i2), z3.Implies(z3.And(same, distinct_call), d1 != d2)]

    # ------------------------------------------------------------ pairs
    def pair(self, ctx, encs: list) -> list:
        """Facts between copies (and within one): tickets of different
        calls on one element differ and share the launch-time value; loads
        of sorted arrays are ordered like their indices."""
        out = []
        for e1, e2 in itertools.combinations(encs, 2):
            other = z3.Or(e1.ident.block_idx != e2.ident.block_idx,
                          e1.ident.thread_idx != e2.ident.thread_idx)
            for r1 in e1.atomics:
                if not self._is_ticket(r1):
                    continue
                for r2 in e2.atomics:
                    if r2.array.name == r1.array.name and self._is_ticket(r2):
                        distinct = other if r1.site == r2.site else z3.BoolVal(True)
                        out += self._ticket_pair(e1, r1, e2, r2, distinct)
        if self.sorted:
            recs = [(e, r) for e in encs for r in e.loads if r.array.name in self.sorted
                    and r.array.space == "global"]
            for (e1, r1), (e2, r2) in itertools.combinations(recs, 2):
                if r1.array.name != r2.array.name:
                    continue
                t = r1.array.dtype
                x1, x2 = self._index_pair(e1, r1, e2, r2)
                out.append(z3.Implies(x1 <= x2, le(r1.value, r2.value, t)))
                out.append(z3.Implies(x2 <= x1, le(r2.value, r1.value, t)))
                out += self._successor_facts(e1, r1, e2, r2)
                out += self._successor_facts(e2, r2, e1, r1)
                if r1.array.name in self.increasing:
                    out += self._gap_facts(ctx, e1, r1, e2, r2)
        return out

    def _gap_facts(self, ctx, e1, r1, e2, r2) -> list:
        """Sorted and distinct: strictly increasing, so in-bounds loads at
        i <= j differ by at least j - i (in exact 66-bit arithmetic). With
        the room facts of `_room_facts` this keeps every model's recorded
        contents extendable to a whole array the launch accepts."""
        t = r1.array.dtype
        w1, w2 = widen(r1.value, t), widen(r2.value, t)
        i1, i2 = r1.indices[0], r2.indices[0]
        both = z3.And(ctx.in_bounds(e1, r1), ctx.in_bounds(e2, r2))
        return [z3.Implies(z3.And(both, i1 <= i2), w2 - w1 >= i2 - i1),
                z3.Implies(z3.And(both, i2 <= i1), w1 - w2 >= i1 - i2)]

    def _room_facts(self, ctx, enc) -> list:
        """Strictly increasing arrays: an in-bounds load at index i leaves
        room for the i elements before it (above `lo`, or the type's
        minimum) and the n - 1 - i after it (below `hi`, or above the type's
        maximum)."""
        out = []
        for rec in enc.loads:
            name = rec.array.name
            if name not in self.increasing or rec.array.space != "global":
                continue
            t = rec.array.dtype
            v, i = widen(rec.value, t), rec.indices[0]
            n = widen(self.launch.shape(rec.array, 0), I32)
            lows = [widen(enc.term(c.lo), t) for c in self.ranges(name)] or \
                [z3.BitVecVal(t.min_value, v.size())]
            highs = [widen(enc.term(c.hi), t) - 1 for c in self.ranges(name)] or \
                [z3.BitVecVal(t.max_value, v.size())]
            inside = ctx.in_bounds(enc, rec)
            out += [z3.Implies(inside, v - lo >= i) for lo in lows]
            out += [z3.Implies(inside, hi - v >= n - 1 - i) for hi in highs]
        return out

    def _index_pair(self, e1, r1, e2, r2) -> tuple:
        """The two loads' (first) indices in a signed comparable form: the
        terms of their own type when both have one type (order is the same
        as on the widened values, and a narrower comparison is cheaper),
        else the widened terms."""
        op1 = self.kernel.block(r1.site[0]).instrs[r1.site[1]].indices[0]
        op2 = self.kernel.block(r2.site[0]).instrs[r2.site[1]].indices[0]
        if op1.type == op2.type and op1.type.is_signed:
            return e1.term(op1), e2.term(op2)
        return r1.indices[0], r2.indices[0]

    def _successor_facts(self, e1, r1, e2, r2) -> list:
        """When r1 reads index `b + 1` and r2 index `c` (one integer type):
        `b < c` implies `b + 1 <= c` without wrap-around, so r1's value is
        at most r2's. The same fact as the general one, stated so that the
        solver needs no adder reasoning (CSR's offsets[v + 1] <= offsets[w]
        for v < w)."""
        op1 = self.kernel.block(r1.site[0]).instrs[r1.site[1]].indices[0]
        op2 = self.kernel.block(r2.site[0]).instrs[r2.site[1]].indices[0]
        ins = self.shape.defining.get(op1.id) if isinstance(op1, Value) else None
        if not (isinstance(ins, BinOp) and ins.op == "add" and op1.type == op2.type
                and op1.type.is_int and not op1.type.is_bool):
            return []
        if isinstance(ins.rhs, Const) and ins.rhs.value == 1:
            base = ins.lhs
        elif isinstance(ins.lhs, Const) and ins.lhs.value == 1:
            base = ins.rhs
        else:
            return []
        t = op1.type
        return [z3.Implies(lt(e1.term(base), e2.term(op2), t),
                           le(r1.value, r2.value, r1.array.dtype))]


def _signed(value) -> int:
    """A bit-vector model value read as a signed integer."""
    raw, width = value.as_long(), value.size()
    return raw - (1 << width) if raw >= 1 << (width - 1) else raw
