"""Lowering of a checked HIR kernel to MIR: SSA construction, control flow,
loops, func inlining.

Invariants: the environment maps every live source variable to a tuple of
MIR operands (one per scalar component); at every join, a variable survives
only if all incoming paths define it, with a phi where they disagree; loop
headers get a phi for every variable the loop body may assign; every source
loop becomes one LoopInfo; every array access in the source stays an
instruction. Trivial phis are left to `verikern.mir.passes`.
"""
from __future__ import annotations

from typing import Any, Callable

from verikern.hir import nodes as H
from verikern.hir.types import ArrayType, ScalarType, component_count, inner_shape
from verikern.mir.builder import MirBuilder
from verikern.mir.nodes import (
    ArrayRef, Assert, Barrier, Branch, Jump, LoopInfo, ParamOrigin, Phi, RangeLoopInfo, Requires,
    RequiresArray, Return, SourceLoc, Store,
)
from ..scan.factories import CAPTURE_PREFIX
from .rigid_calls import RigidLowering
from .builtin_calls import BuiltinLowering
from .contexts import ArrayView, FuncContext, LoopContext
from .expressions import ExprLowering


def assigned_vars(stmts) -> set[str]:
    """Names a statement list may assign (nested statements included)."""
    out: set[str] = set()
    stack = list(stmts)
    while stack:
        s = stack.pop()
        if isinstance(s, (H.Assign, H.AssignComponent)):
            out.add(s.name)
        elif isinstance(s, H.TidUnpack):
            out.update(s.names)
        elif isinstance(s, H.If):
            stack.extend(s.then)
            stack.extend(s.orelse)
        elif isinstance(s, H.While):
            stack.extend(s.body)
        elif isinstance(s, H.ForRange):
            out.add(s.var)
            stack.extend(s.body)
    return out


def mir_array(name: str, t: ArrayType) -> ArrayRef:
    dtype = t.dtype if isinstance(t.dtype, ScalarType) else t.dtype.dtype
    return ArrayRef(name, dtype, t.ndim, inner_shape(t.dtype), t.space, t.shape, t.layout)


class Lowerer(ExprLowering, BuiltinLowering, RigidLowering):
    """Lowers one HIR KernelDef; `lower()` returns the MIR Kernel."""

    def __init__(self, kdef: H.KernelDef):
        self.k = kdef
        self.b = MirBuilder(kdef.name, kdef.loc)
        self.env: dict[str, tuple] = {}
        self.arrays: dict[str, ArrayRef | ArrayView] = {}
        # array views bound in the definition being lowered (H.ViewDecl): name -> (the array
        # viewed, the locals of its leading indices)
        self.views: dict[str, tuple[str, tuple[str, ...]]] = {}
        self.loops: list[LoopContext] = []
        self.funcs: list[FuncContext] = []
        self.created: list[str] = []
        self.cur: str | None = None

    # ------------------------------------------------------------ blocks
    def new_block(self, hint: str) -> str:
        label = self.b.new_block(hint)
        self.created.append(label)
        return label

    def set_block(self, label: str | None) -> None:
        self.cur = label
        if label is not None:
            self.b.set_block(label)

    def emit(self, ins):
        self.b.emit(ins)
        return ins

    def terminate(self, t) -> None:
        self.b.terminate(t)
        self.cur = None

    def pend(self) -> tuple:
        """Leave the current block open; its jump is added by `join_into`."""
        p = (self.cur, dict(self.env))
        self.cur = None
        return p

    def join_into(self, label: str, incoming, loc: SourceLoc, open_preds=()) -> None:
        """Make `label` current with the merged environment of `incoming`
        [(pred, env)]; the preds in `open_preds` get a Jump to `label` first."""
        for pred, _ in open_preds:
            self.b.set_block(pred)
            self.b.terminate(Jump(label, loc))
        self.set_block(label)
        incoming = list(incoming) + list(open_preds)
        if not incoming:
            self.env = {}
            return
        names = set(incoming[0][1])
        for _, env in incoming[1:]:
            names &= set(env)
        merged = {}
        for name in sorted(names):
            comps = []
            for c in range(len(incoming[0][1][name])):
                ops = [env[name][c] for _, env in incoming]
                if all(o == ops[0] for o in ops):
                    comps.append(ops[0])
                    continue
                v = self.b.new_value(ops[0].type, name.lstrip("$"))
                self.b.add_phi(label, Phi(v, tuple((p, env[name][c]) for p, env in incoming), loc))
                comps.append(v)
            merged[name] = tuple(comps)
        self.env = merged

    # ------------------------------------------------------------- kernel
    def lower(self):
        k = self.k
        self.set_block(self.new_block("entry"))
        for p in k.params:
            if isinstance(p.type, ArrayType):
                self.arrays[p.name] = self.b.array_param(mir_array(p.name, p.type))
            elif isinstance(p.type, ScalarType) and p.name.startswith(CAPTURE_PREFIX):
                self.env[p.name] = (self.b.scalar_param(p.name, p.type, ParamOrigin.CAPTURED,
                                                        p.name[len(CAPTURE_PREFIX):]),)
            elif isinstance(p.type, ScalarType):
                self.env[p.name] = (self.b.scalar_param(p.name, p.type),)
            else:  # vector/matrix/quat: one MIR scalar param per component, `v[k]`
                self.env[p.name] = tuple(
                    self.b.scalar_param(f"{p.name}[{i}]", p.type.dtype, ParamOrigin.COMPONENT, p.name)
                    for i in range(component_count(p.type)))
        self.lower_stmts(k.body)
        if self.cur is not None:
            self.terminate(Return(k.loc))
        return self.b.finish(launch_ndim=k.launch_ndim, block_dim=k.block_dim,
                             fast_math=k.fast_math, uses_block_features=k.uses_block_features,
                             struct_args=k.struct_args, module_constants=k.module_constants)

    def lower_stmts(self, stmts) -> None:
        for s in stmts:
            if self.cur is None:
                return  # the rest is unreachable
            handler = STMT_LOWERING.get(type(s))
            if handler is None:
                raise TypeError(f"no MIR lowering for HIR statement {type(s).__name__}")
            handler(self, s)

    # ---------------------------------------------------------- statements
    def _assign(self, s: H.Assign):
        self.env[s.name] = self.lower_expr(s.value, hint=s.name.lstrip("$"))

    def _assign_component(self, s: H.AssignComponent):
        vals = list(self.env[s.name])
        new = self.lower_expr(s.value, hint=s.name)
        vals[s.index:s.index + s.count] = new
        self.env[s.name] = tuple(vals)

    def _tid_unpack(self, s: H.TidUnpack):
        for name, v in zip(s.names, self.lower_tid(len(s.names), s.loc, s.names)):
            self.env[name] = (v,)

    def array_of(self, name: str) -> tuple[ArrayRef, tuple]:
        """The MIR array `name` accesses and the operands of the leading indices it
        fixes: none for an array, the current values of a view's (H.ViewDecl)."""
        view = self.views.get(name)
        if view is not None:
            root, temps = view
            arr, leading = self.array_of(root)
            return arr, leading + tuple(self.env[t][0] for t in temps)
        a = self.arrays[name]
        if isinstance(a, ArrayView):
            return a.base, a.leading
        return a, ()

    def _view_decl(self, s: H.ViewDecl):
        self.views[s.name] = (s.array.name, s.leading)

    def _store(self, s: H.StoreStmt):
        arr, leading = self.array_of(s.array.name)
        vals = self.lower_expr(s.value)  # Python evaluates the value before the target
        idx = leading + self.lower_indices(s.indices)
        inners = self.inner_indices(arr)
        if s.count:
            inners = inners[s.component:s.component + s.count]
        for inner, v in zip(inners, vals):
            self.emit(Store(arr, idx + inner, v, s.loc))

    def _atomic_update(self, s: H.AtomicUpdate):
        arr, leading = self.array_of(s.array.name)
        idx = leading + self.lower_indices(s.indices)
        vals = self.lower_expr(s.value)
        self.atomic(s.op, arr, idx, vals, None, s.loc, part=(s.component, s.count))

    def _expr_stmt(self, s: H.ExprStmt):
        if s.address_only:     # type(a[i]): one bounds-checked address, nothing read
            assert isinstance(s.value, H.IndexExpr), "an address-only statement names an array element"
            self.address_check(s.value)
            return
        self.lower_expr(s.value)

    def _shared_decl(self, s: H.SharedDecl):
        self.arrays[s.name] = self.b.shared_array(mir_array(s.name, s.type))

    def _barrier(self, s: H.BarrierStmt):
        self.emit(Barrier(s.loc))

    def _assert(self, s: H.AssertStmt):
        (c,) = self.lower_expr(s.cond)
        ins = self.emit(Assert(c, s.message, s.loc, s.kind))
        if s.kind == "invariant":
            self.loops[-1].invariants.append(ins)

    def _requires(self, s: H.RequiresStmt):
        # `requires(a and b)` is `requires(a); requires(b)`: b is evaluated where a holds
        parts, stack = [], [s.cond]
        while stack:
            e = stack.pop()
            if isinstance(e, H.BoolOpExpr) and e.op == "and":
                stack.extend((e.rhs, e.lhs))
            else:
                parts.append(e)
        for e in parts:
            (c,) = self.lower_expr(e, eager=True)
            self.emit(Requires(c, s.loc))

    def _requires_array(self, s: H.RequiresArrayStmt):
        arr, leading = self.array_of(s.array.name)
        assert not leading, "contracts name parameters, never views"
        lo = self.lower_expr(s.lo, eager=True)[0] if s.lo is not None else None
        hi = self.lower_expr(s.hi, eager=True)[0] if s.hi is not None else None
        self.emit(RequiresArray(s.kind, arr, s.loc, lo, hi))

    def _return(self, s: H.ReturnStmt):
        if not self.funcs:
            self.terminate(Return(s.loc))
            return
        vals = self.lower_expr(s.value) if s.value is not None else ()
        if self.cur is None:
            return
        label, _ = self.pend()
        self.funcs[-1].returns.append((label, vals))

    def _break(self, s: H.Break):
        self.loops[-1].breaks.append(self.pend())

    def _continue(self, s: H.Continue):
        self.loops[-1].continues.append(self.pend())

    def _if(self, s: H.If):
        (c,) = self.lower_expr(s.cond)
        if self.cur is None:
            return
        before_label, before_env = self.cur, dict(self.env)
        then_l = self.new_block("then")
        else_l = self.new_block("else") if s.orelse else None
        join_l = None if s.orelse else self.new_block("endif")  # with else: made on demand
        false_l = else_l or join_l
        assert false_l is not None   # exactly one of them was made
        self.terminate(Branch(c, then_l, false_l, s.loc))
        open_preds = []
        self.set_block(then_l)
        self.env = dict(before_env)
        self.lower_stmts(s.then)
        if self.cur is not None:
            open_preds.append(self.pend())
        incoming = []
        if else_l is not None:
            self.set_block(else_l)
            self.env = dict(before_env)
            self.lower_stmts(s.orelse)
            if self.cur is not None:
                open_preds.append(self.pend())
        else:
            incoming.append((before_label, before_env))
        if not incoming and not open_preds:
            self.cur = None  # every branch left: what follows is unreachable
            return
        if join_l is None:
            join_l = self.new_block("endif")
        self.b.move_block_to_end(join_l)
        self.join_into(join_l, incoming, s.loc, open_preds)

    # --------------------------------------------------------------- loops
    def _loop(self, loc, assigned, test, body_stmts, counter=None, step_fn=None,
              range_info=None):
        """Shared shape of every loop; `test()` lowers the header test and
        returns the condition; `step_fn(env)` emits the latch update."""
        pre_label, pre_env = self.cur, dict(self.env)
        first = len(self.created)
        loop_slot = len(self.b.loops)  # outer loops are listed before inner ones
        header = self.new_block("loop")
        self.terminate(Jump(header, loc))
        self.set_block(header)
        placeholders = {}
        for name in sorted(assigned & set(pre_env)):
            vals = tuple(self.b.new_value(o.type, name.lstrip("$")) for o in pre_env[name])
            placeholders[name] = vals
            self.env[name] = vals
        if counter is not None:
            self.env[counter[0]] = (counter[1],)
        header_env = dict(self.env)
        ctx = LoopContext()
        self.loops.append(ctx)
        cond = test()
        pre_inv = {}
        for st in body_stmts:  # pure invariant conditions: computed with the test
            if not (isinstance(st, H.AssertStmt) and st.kind == "invariant"):
                break
            if self.is_safe(st.cond):
                pre_inv[id(st)] = self.lower_expr(st.cond)[0]
        test_label = self.cur
        body = self.new_block("body")
        exit_l = self.new_block("endloop")
        self.terminate(Branch(cond, body, exit_l, loc))
        self.set_block(body)
        self.env = dict(header_env)
        self.lower_body(body_stmts, pre_inv)
        if self.cur is not None:
            ctx.continues.append(self.pend())
        self.loops.pop()
        latches = ()
        latch_env = None
        if ctx.continues:
            latch = self.new_block("latch")
            self.join_into(latch, [], loc, ctx.continues)
            if step_fn is not None:
                step_fn()
            latch_env = dict(self.env)
            self.terminate(Jump(header, loc))
            latches = (latch,)
        for name, vals in placeholders.items():
            for c, v in enumerate(vals):
                inc = [(pre_label, pre_env[name][c])]
                if latch_env is not None:
                    inc.append((latches[0], latch_env[name][c]))
                self.b.add_phi(header, Phi(v, tuple(inc), loc))
        if counter is not None:
            inc = [(pre_label, range_info.start)]
            if latch_env is not None:
                inc.append((latches[0], latch_env[counter[0]][0]))
            self.b.add_phi(header, Phi(counter[1], tuple(inc), loc))
        body_labels = tuple(lab for lab in self.created[first:] if lab != exit_l)
        self.b.move_block_to_end(exit_l)
        self.join_into(exit_l, [(test_label, header_env)], loc, ctx.breaks)
        self.b.loops.insert(loop_slot, LoopInfo(header, body_labels, latches, exit_l, loc,
                                                range_info, tuple(ctx.invariants)))

    def lower_body(self, stmts, pre_inv):
        """Loop body; leading invariants whose conditions were computed in the
        header test block become the first instructions of the body block."""
        rest = list(stmts)
        while rest and id(rest[0]) in pre_inv:
            st = rest.pop(0)
            ins = self.emit(Assert(pre_inv[id(st)], st.message, st.loc, st.kind))
            self.loops[-1].invariants.append(ins)
        self.lower_stmts(rest)

    def _while(self, s: H.While):
        def test():
            return self.lower_expr(s.cond)[0]
        self._loop(s.loc, assigned_vars(s.body), test, s.body)

    def _for(self, s: H.ForRange):
        start = self.lower_expr(s.start)[0]
        stop = self.lower_expr(s.stop)[0]
        step = self.lower_expr(s.step)[0]
        if self.cur is None:
            return
        old = self.env.get(s.var)
        counter = self.b.new_value(start.type, s.var)
        info = RangeLoopInfo(counter, start, stop, step)

        def test():
            return self.range_test(counter, stop, step, s.loc)

        def step_fn():
            nxt = self.binop("add", counter, step, s.loc, s.var)
            self.env[s.var] = (nxt,)
        self._loop(s.loc, assigned_vars(s.body), test, s.body, (s.var, counter), step_fn, info)
        if old is not None:
            self.env[s.var] = old
        else:
            self.env.pop(s.var, None)

    def _block_until(self, s: H.BlockUntil):
        def test():
            (c,) = self.lower_expr(s.cond)
            return self.unop("not", c, s.loc)
        barrier = H.BarrierStmt(s.loc)
        self._loop(s.loc, set(), test, (barrier,))


STMT_LOWERING: dict[type, Callable[[Any, Any], None]] = {
    H.Assign: Lowerer._assign, H.AssignComponent: Lowerer._assign_component,
    H.TidUnpack: Lowerer._tid_unpack, H.StoreStmt: Lowerer._store,
    H.AtomicUpdate: Lowerer._atomic_update, H.ExprStmt: Lowerer._expr_stmt,
    H.SharedDecl: Lowerer._shared_decl, H.ViewDecl: Lowerer._view_decl, H.If: Lowerer._if, H.While: Lowerer._while,
    H.ForRange: Lowerer._for, H.BlockUntil: Lowerer._block_until, H.Break: Lowerer._break,
    H.Continue: Lowerer._continue, H.ReturnStmt: Lowerer._return,
    H.BarrierStmt: Lowerer._barrier, H.AssertStmt: Lowerer._assert,
    H.RequiresStmt: Lowerer._requires, H.RequiresArrayStmt: Lowerer._requires_array,
}
