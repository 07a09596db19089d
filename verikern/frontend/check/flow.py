"""Control flow and func calls in the body checker.

Invariant: after an if, a variable is defined only if every branch that
falls through defines it; after a loop, exactly the variables defined before
it (the loop may run zero times) minus the loop variable, plus, for a loop
over a constant non-empty range without break/continue, those its body
always defines (it runs at least once); a variable some branch or loop body
assigned is `maybe_defined` after it (its reads are checked,
check/assigned_reads.py), and an else branch does not see what its if
branch assigned; a func call is
checked against the func's signature and never closes a call cycle.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import ast
import copy

from verikern.hir import nodes as H
from verikern.hir.types import (
    ArrayType, ScalarType, TupleType,
)
from verikern.errors import KernelError
from ..scan.annotations import parse_annotation
from ..scan.constants import NotConstant
from .overloads import pick_overload
from .assigned_reads import typed_zero
from .registry import is_any, type_variable, type_variable_takes
from .length_generic import length_generic
from .views import is_view_binding, view_argument
from .structs import struct_array, struct_class_name
from .struct_passing import struct_refusal


if TYPE_CHECKING:   # the state and methods of the class that mixes this in
    from .host import CheckerHost as _Host
else:
    _Host = object


class FlowChecker(_Host):
    """Mixin of BodyChecker: if/while/for and func calls."""

    def _branch(self, stmts, before, loop_body=False):
        self.defined = set(before)
        self.terminated = False
        body = self.check_body(stmts, loop_body=loop_body)
        return body, set(self.defined), self.terminated

    def _stmt_If(self, s):
        cond = self.check_cond(s.test)
        before = set(self.defined)
        maybe = set(self.maybe_defined)
        then, d1, t1 = self._branch(s.body, before)
        # as in Warp, the else branch does not see what the if branch assigned; after both, it does
        maybe, self.maybe_defined = self.maybe_defined, maybe
        orelse, d2, t2 = self._branch(s.orelse, before)
        self.maybe_defined |= maybe
        live = [d for d, t in ((d1, t1), (d2, t2)) if not t]
        self.terminated = not live
        self.defined = set.intersection(*live) if live else set(before)
        return H.If(cond, tuple(then), tuple(orelse), self.loc(s))

    def _loop_body(self, stmts, before):
        self.loop_depth += 1
        body, _, _ = self._branch(stmts, before, loop_body=True)
        self.loop_depth -= 1
        self.defined = set(before)
        self.terminated = False
        return tuple(body)

    def _stmt_While(self, s):
        if s.orelse:
            raise self.error("while ... else is not allowed", s.orelse[0], "loop-else",
                             "use a flag variable")
        cond = self.check_cond(s.test)
        body = self._loop_body(s.body, set(self.defined))
        return H.While(cond, body, self.loc(s))

    def _stmt_For(self, s):
        if s.orelse:
            raise self.error("for ... else is not allowed", s.orelse[0], "loop-else",
                             "use a flag variable")
        it = s.iter
        if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "reversed" \
                and "reversed" not in self.local_names and len(it.args) == 1 \
                and not it.keywords:
            it = reversed_range(self, it)
        if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name)
                and it.func.id == "range" and "range" not in self.local_names):
            raise self.error("only `for v in range(...)` loops are allowed", it, "for-not-range",
                             "iterate over an index: for i in range(n)")
        if not isinstance(s.target, ast.Name):
            raise self.error("the loop variable must be a plain name", s.target,
                             "bad-assign-target")
        if it.keywords or not 1 <= len(it.args) <= 3:
            raise self.error("range() takes 1 to 3 integer arguments", it, "arity")
        if any(isinstance(a, ast.Starred) for a in it.args):
            raise self.error("*args are not allowed in kernels", it, "varargs")
        var = s.target.id
        if var in self.loop_vars:
            raise self.error(f"the inner loop reuses the loop variable {var!r}", s.target,
                             "loop-var-assign", "give the inner loop its own variable")
        if var in self.arrays:
            raise self.error(f"cannot assign to the array {var!r}", s.target, "assign-to-array")
        args = list(it.args)
        if len(args) == 1:
            args = [ast.copy_location(ast.Constant(0), it)] + args
        if len(args) == 2:
            args = args + [ast.copy_location(ast.Constant(1), it)]
        t = self.var_types.get(var)
        for a in args:
            if not self.is_literal_tree(a):
                t = self.check_int(a, what="a range() argument").type
                break
        typed = tuple(self.check_int(a, t, what="a range() argument") for a in args)
        for e, a in zip(typed, args):
            if e.type != typed[0].type:
                raise self.error(f"range() arguments mix {typed[0].type} and {e.type}", a,
                                 "type-mismatch", "convert them to one integer type")
        try:
            step = self.const_eval(args[2])
        except NotConstant:
            step = None
        if step == 0:
            raise self.error("range() step must not be zero", args[2], "range-zero-step")
        before = set(self.defined)
        maybe_before = set(self.maybe_defined)
        self.declare(var, typed[0].type, s.target)
        inner = set(self.defined)
        self.defined = before
        self.loop_vars.append(var)
        # a loop over a constant range: Warp can unroll it, so wp.static() may read its variable
        unrollable = self.__dict__.setdefault("unrollable_loop_vars", [])
        unrollable.append(var if all(self.is_const(a) for a in args) else None)
        self.loop_depth += 1
        body, end_defined, _ = self._branch(s.body, inner, loop_body=True)
        self.loop_depth -= 1
        self.defined = set(before)
        self.terminated = False
        self.loop_vars.pop()
        unrollable.pop()
        self.defined.discard(var)
        self.maybe_defined.discard(var)     # Warp's value after a loop is not Python's: refused
        if self._trip_count(args) == 0:     # Warp unrolls it to nothing: its names stay unknown
            self.maybe_defined = maybe_before
        loop = H.ForRange(var, typed[0], typed[1], typed[2], tuple(body), self.loc(s))
        return self._runs_once_defs(s, args, before, end_defined, var) + [loop] + \
            self._loop_var_after(s, args, var, typed[0].type)

    def _loop_var_after(self, s, args, var, t) -> list:
        """After a loop over a constant, non-empty range without `break`, the
        loop variable holds the range's last value (Python and Warp; the
        body cannot assign it): `var = last`, defined from here on."""
        try:
            r = range(*(int(self.const_eval(a)) for a in args))
        except (NotConstant, TypeError, ValueError):
            return []
        if len(r) < 1 or any(isinstance(n, ast.Break) for n in ast.walk(s)) \
                or not isinstance(t, ScalarType) or not t.min_value <= r[-1] <= t.max_value:
            return []
        self.defined.add(var)
        return [H.Assign(var, H.Literal(r[-1], t, self.loc(s)), self.loc(s))]

    def _trip_count(self, args) -> int | None:
        """The number of iterations of `range(*args)` when its arguments are constants."""
        try:
            return len(range(*(int(self.const_eval(a)) for a in args)))
        except (NotConstant, TypeError, ValueError):
            return None

    def _runs_once_defs(self, s, args, before, end_defined, var) -> list:
        """A loop over a constant range with at least one iteration and no
        break/continue runs its body to the end at least once, so (as in
        Python and Warp) the names the body always assigns are defined after
        it. They get a typed zero before the loop: the body never reads it
        (it cannot read a name before assigning it), so it is never observed."""
        trip = self._trip_count(args)
        if trip is None or trip < 1 or any(isinstance(n, (ast.Break, ast.Continue)) for n in ast.walk(s)):
            return []
        out = []
        loc = self.loc(s)
        for name in sorted(end_defined - before - {var}):
            t = self.var_types.get(name)
            if name.startswith("$") or t is None:
                continue
            zero = typed_zero(t, loc)
            if zero is None:
                continue
            out.append(H.Assign(name, zero, loc))
            self.defined.add(name)
        return out

    # ------------------------------------------------------------ calls
    def _generic_types(self, d, node, name) -> tuple:
        """The types a generic func is specialized to at this call: each
        `Any` parameter takes its argument's type (a literal its default)."""
        out: list = []
        for p, a in zip(d.node.args.args, node.args):
            variable = type_variable(self.info, p.annotation)     # wp.Float, wp.Int, wp.Scalar
            pattern = length_generic(self.info, p.annotation)     # vector(length=Any, dtype=T)
            if pattern is not None:
                e = self.check_expr(a)
                if not pattern.takes(e.type):
                    raise self.error(f"argument {p.arg!r} of {name}() is {e.type}, but the parameter "
                                     f"is {pattern}: Warp finds no overload for it", a,
                                     "type-mismatch", "pass a value of that component type")
                out.append(e.type)
            elif variable is not None:
                e = self.check_expr(a)
                if not type_variable_takes(variable, e.type):
                    raise self.error(f"argument {p.arg!r} of {name}() is {e.type}, but the parameter "
                                     f"is wp.{variable}: Warp finds no overload for it", a,
                                     "type-mismatch", "convert the argument to a type of "
                                     f"wp.{variable}'s kind")
                out.append(e.type)
            elif is_any(self.info, p.annotation) and (st := self.structs.type_of(a)) is not None:
                if isinstance(p.annotation, (ast.Subscript, ast.Call)):    # an array of Any
                    raise self.error(f"argument {p.arg!r} of {name}() must be an array, got the "
                                     f"struct {st}", a, "type-mismatch")
                out.append(st)      # a struct: the func specialized to it (check/struct_passing.py)
            elif is_any(self.info, p.annotation):
                e = self.check_expr(a)
                if e.type is None or isinstance(e.type, TupleType):
                    raise self.error(f"argument {p.arg!r} of {name}() has no value type", a,
                                     "type-mismatch")
                if isinstance(p.annotation, (ast.Subscript, ast.Call)) and \
                        not isinstance(e.type, ArrayType):
                    raise self.error(f"argument {p.arg!r} of {name}() must be an array", a,
                                     "type-mismatch")
                out.append(e.type)
            elif struct_class_name(self.info, p.annotation) is not None \
                    or struct_array(self.info, p.annotation) is not None:
                out.append(None)     # a struct parameter: its leaves, as the func declares them
            else:
                out.append(parse_annotation(self, p.annotation, f"parameter {p.arg!r}"))
        return tuple(out)

    def _match_args(self, f, node, name) -> list:
        args = []
        given = self.structs.call_args(f.params, list(node.args))   # structs: their leaves
        if len(given) != len(f.params):
            raise self.error(f"{name}() takes {len(f.params)} value(s) once its struct "
                             f"arguments are split into fields, got {len(given)}", node, "arity",
                             "pass a struct where the func declares one")
        for p, a in zip(f.params, given):
            if isinstance(p.type, ArrayType) and is_view_binding(self, a):
                a = view_argument(self, a, node) or a    # `f(x[i])` of a 2-d x (check/views.py)
            e = self.check_expr(a, None if isinstance(p.type, ArrayType) else p.type)
            if isinstance(p.type, ArrayType):
                ok = isinstance(e.type, ArrayType) and e.type.dtype == p.type.dtype \
                    and e.type.ndim == p.type.ndim
            else:
                ok = e.type == p.type
            if not ok:
                rule = "implicit-conversion" if isinstance(e.type, ScalarType) and \
                    isinstance(p.type, ScalarType) and e.type.is_float != p.type.is_float \
                    else "type-mismatch"
                raise self.error(f"argument {p.name!r} of {name}() is {p.type}, got {e.type}",
                                 a, rule, "convert the argument explicitly")
            args.append(e)
        return args

    def check_func_call(self, node: ast.Call, name: str):
        loc = self.loc(node)
        tuple_ok, self.tuple_ok = self.tuple_ok, False   # only this call may be unpacked
        if name == self.name or self.registry.reaches(name, self.name):
            raise self.error(f"recursive call of {name!r}", node, "recursion",
                             "rewrite the recursion as a loop")
        if any(k.arg is None for k in node.keywords):
            raise self.error("**kwargs are not allowed in kernels", node, "varargs")
        if any(isinstance(a, ast.Starred) for a in node.args):
            raise self.error("*args are not allowed in kernels", node, "varargs")
        cands = self.registry.candidates(name)
        if len(cands) > 1:   # the one Warp builds (overloads.py), or an error
            cands = [pick_overload(self, cands, node, name, with_defaults)]
        failure: KernelError | None = None
        call = node
        for index, d, generic in cands:
            node = with_defaults(self, call, d.node)
            if len(d.node.args.args) != len(node.args):
                failure = failure or self.error(
                    f"{name}() takes {len(d.node.args.args)} argument(s), got {len(node.args)}",
                    node, "arity")
                continue
            refused = struct_refusal(self, d.node.args.args, node.args, name)   # struct_passing.py
            if refused is not None:
                raise refused
            types = self._generic_types(d, node, name) if generic else None
            info = self.registry.get(self.registry.key(name, index, types))  # its own errors
            f = info.fdef
            try:
                args = self._match_args(f, node, name)
            except KernelError as e:
                if len(cands) == 1:
                    raise
                failure = failure if failure is not None and failure.rule != "arity" else e
                continue
            name = f.name
            break
        else:
            assert failure is not None   # `name` is a func, so it has candidates, and each failed
            if len(cands) > 1:
                raise self.error(f"no overload of {name}() takes these arguments "
                                 f"({failure.message})", node, "no-overload",
                                 "convert the arguments to the types of one overload")
            raise failure
        if isinstance(f.returns, TupleType) and not tuple_ok:
            raise self.error(f"{name}() returns a tuple: unpack it, e.g. `a, b = {name}(...)`",
                             node, "no-tuples")
        self.called.add(name)
        self.called |= info.called
        for read in info.module_constants:
            self.module_constants.setdefault((read.text, read.defined_in), read)
        for cap, t in info.captures:
            if self.captures.setdefault(cap, t) != t:
                raise self.error(f"{name}() and its caller see {cap!r} with different types",
                                 node, "capture-type")
        if info.uses_block:
            self.uses_block = True
        if info.tid_arity is not None:
            self.note_tid(info.tid_arity, node)
        if info.launch_dim_max >= 0:
            self.note_launch_dim(info.launch_dim_max)
        return H.FuncCall(name, tuple(args), f.returns, loc)


def reversed_range(chk, call: ast.Call) -> ast.Call:
    """`reversed(range(a, b, s))` as the equivalent `range(...)` (Python's
    and Warp's `iter_reverse`): the same elements in reverse order, empty
    when the range is; a zero step gives an empty loop, as in Warp.  The
    arguments are repeated, so they must be free of side effects."""
    inner = call.args[0]
    if not (isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name)
            and inner.func.id == "range" and "range" not in chk.local_names
            and not inner.keywords and 1 <= len(inner.args) <= 3):
        raise chk.error("only `reversed(range(...))` loops are allowed", call, "for-not-range",
                        "iterate over an index: for i in reversed(range(n))")
    args = list(inner.args)
    for a in args:
        for n in ast.walk(a):
            if isinstance(n, ast.Call):
                raise chk.error("the arguments of reversed(range(...)) are used more than "
                                "once and must not call anything", a, "warp-builtin-args",
                                "assign them to variables first")
    a, b, s = (args if len(args) == 3 else
               ([ast.Constant(0)] + args + [ast.Constant(1)])[-3:] if len(args) == 1 else
               args + [ast.Constant(1)])

    def at(node):
        for n in ast.walk(node):
            if getattr(n, "lineno", None) is None:
                ast.copy_location(n, call)
        return node

    def first(delta):   # a + ((b - a + delta) // s) * s
        span = ast.BinOp(ast.BinOp(b, ast.Sub(), a), ast.Add(), ast.Constant(delta))
        return ast.BinOp(a, ast.Add(), ast.BinOp(ast.BinOp(span, ast.FloorDiv(), s),
                                                 ast.Mult(), s))
    try:
        step = chk.const_eval(s)
    except NotConstant:
        step = None
    if isinstance(step, int) and step > 0:
        start = first(-1)
    elif isinstance(step, int) and step < 0:
        start = first(1)
    else:   # run-time step: choose by its sign; 0 gives range(a, a, 0), an empty loop
        zero = ast.Constant(0)
        start = ast.IfExp(ast.Compare(s, [ast.Gt()], [zero]), first(-1),
                          ast.IfExp(ast.Compare(s, [ast.Lt()], [zero]), first(1), a))
    end = ast.BinOp(a, ast.Sub(), s)
    neg = ast.UnaryOp(ast.USub(), s)
    return at(ast.Call(func=ast.Name(id="range", ctx=ast.Load()), args=[start, end, neg],
                       keywords=[]))


def with_defaults(chk, call: ast.Call, fdef: ast.FunctionDef) -> ast.Call:
    """`call` as positional arguments only: keyword arguments put in their
    parameter's place and the missing trailing ones taken from `fdef`'s
    default values (Warp funcs take Python keywords and defaults), when each
    of those defaults is a constant expression; otherwise `call` unchanged."""
    params, defaults = fdef.args.args, fdef.args.defaults
    first = len(params) - len(defaults)
    names = [p.arg for p in params]
    kw = {k.arg: k.value for k in call.keywords}
    for k in call.keywords:
        if k.arg not in names or names.index(k.arg) < len(call.args):
            raise chk.error(f"{fdef.name}() has no parameter {k.arg!r} left to name"
                            if k.arg in names else
                            f"{fdef.name}() has no parameter {k.arg!r}", k.value, "keyword-args")
    if not kw and not first <= len(call.args) < len(params):
        return call
    args = list(call.args)
    for i in range(len(call.args), len(params)):
        if names[i] in kw:
            args.append(kw[names[i]])
            continue
        if i < first:
            return call if not kw else _missing(chk, fdef, names[i], call)
        x = copy.deepcopy(defaults[i - first])
        try:
            chk.const_eval(x)
        except NotConstant:
            if not chk.is_literal_tree(x):
                return call
        for n in ast.walk(x):
            ast.copy_location(n, call)
        args.append(x)
    return ast.copy_location(ast.Call(func=call.func, args=args, keywords=[]), call)


def _missing(chk, fdef, name, call):
    raise chk.error(f"{fdef.name}() is missing the argument {name!r}", call, "arity")
