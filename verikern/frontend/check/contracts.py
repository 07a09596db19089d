"""Contracts and Warp-specific parts of the body checker: `vk.requires`
(in the body and as `@vk.requires(lambda ...)` decorators), func tuple
results and Warp's type-change rule for re-assigned literals (docs/LANGUAGE.md
sections 4 and 5).

Invariant: a decorator contract is checked exactly as the in-body
`vk.requires(cond)` (same HIR, same uniformity rule); a tuple result is only
ever built by `return a, b` in a func and only ever unpacked whole.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import ast

from verikern.hir import nodes as H
from verikern.hir.types import ArrayType, ScalarType, TupleType, component_count

from ..scan.factories import CAPTURE_PREFIX
from ..scan.constants import NotConstant
from ..scan.annotations import parse_annotation
from ..scan import typing_premise
from ..builtins.table import CONTRACT_ONLY, UNIFORM_BUILTINS
from .registry import is_any



def is_dsl_call(info, node, name: str) -> bool:
    return isinstance(node, ast.Call) and info.dsl_name(node.func) == name


if TYPE_CHECKING:   # the state and methods of the class that mixes this in
    from .host import CheckerHost as _Host
else:
    _Host = object


class WarpChecks(_Host):
    """Mixin of BodyChecker: contracts (`vk.requires` in the body and as
    decorators, with their uniformity rule), func tuple results and Warp's
    type-change rule for re-assigned literals."""

    def _requires(self, call):
        """The HIR of a requires, None when it is only a typing premise: its atoms
        are checked (scan/typing_premise.py) and dropped, since the instantiation
        being checked is one the premise admits (generic_kernels.py enumerates
        only those), and no obligation depends on them."""
        self._no_args(call, 1)
        atoms, arg = typing_premise.split(call.args[0])
        for atom in atoms:
            typing_premise.read_atom(self.info, self.node, atom)
        if arg is None:
            return None
        stray = typing_premise.stray_dtype(arg)
        if stray is not None:
            raise typing_premise.premise_error(self.info, stray)
        loc = self.loc(call)
        for kind in sorted(CONTRACT_ONLY):
            if is_dsl_call(self.info, arg, kind):
                n = 3 if kind == "all_in_range" else 1
                self._no_args(arg, n)
                arr = self.check_expr(arg.args[0])
                if not (isinstance(arr.type, ArrayType) and arr.name in self.param_arrays
                        and isinstance(arr.type.dtype, ScalarType) and arr.type.dtype.is_int):
                    raise self.error(f"vk.{kind}() needs an integer array parameter",
                                     arg.args[0], "contract-array")
                if kind == "all_sorted" and arr.type.ndim != 1:
                    raise self.error("vk.all_sorted() needs a one-dimensional integer array",
                                     arg.args[0], "contract-array")
                lo = hi = None
                if kind == "all_in_range":
                    lo = self.check_expr(arg.args[1], arr.type.dtype)
                    hi = self.check_expr(arg.args[2], arr.type.dtype)
                    for e, n_ in ((lo, arg.args[1]), (hi, arg.args[2])):
                        if e.type != arr.type.dtype:
                            raise self.error(f"bound has type {e.type}, the array holds "
                                             f"{arr.type.dtype}", n_, "type-mismatch")
                        self._check_uniform(e, n_)
                return H.RequiresArrayStmt(kind, arr, lo, hi, loc)
        cond = self.check_cond(arg)
        self._check_uniform(cond, arg)
        return H.RequiresStmt(cond, loc)

    def _check_uniform(self, e, node):
        bad = None
        stack = [e]
        while stack:
            x = stack.pop()
            if isinstance(x, H.IndexExpr) or isinstance(x, H.FuncCall):
                bad = "array contents or func calls"
            elif isinstance(x, H.BuiltinCall) and x.name not in UNIFORM_BUILTINS \
                    and x.name not in ("construct",):
                bad = f"vk.{x.name}()"
            elif isinstance(x, H.LocalRef) and not x.name.startswith(CAPTURE_PREFIX) and not any(
                    p.arg == x.name for p in self.node.args.args) \
                    and x.name.split(".")[0] not in self.struct_params:   # a struct param's field
                bad = f"the local variable {x.name!r}"
            for f in ("lhs", "rhs", "operand", "cond", "if_true", "if_false", "value"):
                if hasattr(x, f) and getattr(x, f) is not None and not isinstance(getattr(x, f), (str, int)):
                    stack.append(getattr(x, f))
            for f in ("args", "operands"):
                if hasattr(x, f):
                    stack.extend(getattr(x, f))
            if bad:
                raise self.error(f"vk.requires may only use scalar parameters, shapes and launch "
                                 f"geometry, not {bad}", node, "requires-uniform",
                                 "state a precondition on the launch, or use assert")

    def decorator_requires(self, params) -> list:
        """`@vk.requires(lambda x, y: cond)` decorators (docs/LANGUAGE.md section 5),
        each checked exactly as the in-body `vk.requires(cond)`; the lambda's
        parameters must be kernel parameters, and every kernel parameter the
        body reads must be one of them (as Python would evaluate it)."""
        out = []
        names = {p.name for p in params} | set(self.struct_params)
        for dec in self.defn.requires:
            self.current_node = dec
            if dec.keywords or len(dec.args) != 1 or not isinstance(dec.args[0], ast.Lambda):
                raise self.error("@vk.requires takes one lambda over kernel parameters", dec,
                                 "requires-decorator",
                                 "write @vk.requires(lambda x, y: x.shape[0] == y.shape[0])")
            lam = dec.args[0]
            a = lam.args
            if a.vararg or a.kwarg or a.kwonlyargs or a.posonlyargs or a.defaults:
                raise self.error("the requires lambda takes plain parameter names only", lam,
                                 "requires-decorator", "write lambda x, y: ...")
            own = [x.arg for x in a.args]
            for x in a.args:
                if x.arg not in names:
                    raise self.error(f"the requires lambda names {x.arg!r}, which is not a "
                                     f"parameter of kernel {self.name!r}", x,
                                     "requires-decorator",
                                     "name the lambda's parameters after the kernel's")
            for n in ast.walk(lam.body):
                if isinstance(n, ast.Name) and n.id in names and n.id not in own:
                    raise self.error(f"the requires lambda reads {n.id!r} without naming it "
                                     "as a lambda parameter", n, "requires-decorator",
                                     f"add {n.id} to the lambda's parameters")
                if isinstance(n, ast.Lambda):
                    raise self.error("a lambda inside a requires lambda", n,
                                     "requires-decorator")
            cond = lam.body
            if self.struct_params:   # `c.n`, `c.points.shape[0]`: the fields' own names
                cond = self.structs_of_params().rewrite([ast.Expr(cond)])[0].value
            call = ast.copy_location(ast.Call(func=dec.func, args=[cond], keywords=[]),
                                     lam.body)
            stmt = self._requires(call)
            if stmt is not None:     # None: a typing premise only
                out.append(stmt)
        return out

    def tuple_result_pattern(self, node) -> tuple | None:
        """For a func result annotated `tuple[...]` with an `Any` element (Warp
        matches such an annotation generically against the returned types:
        `Any` takes whatever is returned there, the other elements must be
        returned exactly), one entry per element: its type, or None for `Any`.
        None for every other annotation."""
        if not isinstance(node, ast.Subscript):
            return None
        base = node.value
        if (base.attr if isinstance(base, ast.Attribute) else getattr(base, "id", None)) \
                not in ("tuple", "Tuple"):
            return None
        parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        if not any(is_any(self.info, p) for p in parts):
            return None
        what = f"the result of {self.name}"
        return tuple(None if is_any(self.info, p) else parse_annotation(self, p, what)
                     for p in parts)

    def match_result_pattern(self, returned, node) -> None:
        """The first returned type against the `tuple[..., Any, ...]` annotation, as Warp
        validates it: same length, every non-`Any` element equal."""
        pattern = self.result_pattern
        if pattern is None:
            return
        elems = returned.elems if isinstance(returned, TupleType) else None
        if elems is None or len(elems) != len(pattern) or any(
                want is not None and want != got for want, got in zip(pattern, elems)):
            shown = ", ".join("Any" if t is None else str(t) for t in pattern)
            raise self.error(f"returns {returned} but {self.name!r} is annotated as returning "
                             f"tuple[{shown}]", node, "return-type",
                             "return values of the annotated types")

    def _tuple_value(self, node: ast.Tuple):
        """`return a, b` in a func: a tuple of the elements' components."""
        pattern = self.result_pattern if self.returns is None else None
        want = self.returns.elems if isinstance(self.returns, TupleType) and \
            len(self.returns.elems) == len(node.elts) else pattern \
            if pattern is not None and len(pattern) == len(node.elts) else (None,) * len(node.elts)
        elems = tuple(self.check_expr(v, t) for v, t in zip(node.elts, want))
        for e, v in zip(elems, node.elts):
            if isinstance(e.type, (ArrayType, TupleType)) or e.type is None:
                raise self.error(f"a tuple result cannot hold {e.type}", v, "no-tuples")
        t = TupleType(tuple(e.type for e in elems))
        return H.BuiltinCall("construct", elems, t, self.loc(node))

    def _unpack_call(self, target, value, s):
        """`x, y = f(...)` for a func that returns a tuple."""
        self.tuple_ok = True
        try:
            e = self.check_expr(value)
        finally:
            self.tuple_ok = False
        if not isinstance(e.type, TupleType) or len(e.type.elems) != len(target.elts):
            return None
        tmp = self.temp()
        self.declare(tmp, e.type, value)
        loc = self.loc(value)
        out = [H.Assign(tmp, e, loc)]
        offset = 0
        for n, t in zip(target.elts, e.type.elems):
            if not isinstance(n, ast.Name):
                raise self.error("unpack a tuple result into plain names", n,
                                 "bad-assign-target")
            if n.id in self.arrays or n.id in self.loop_vars:
                raise self.error(f"cannot assign to {n.id!r}", n, "bad-assign-target")
            k = component_count(t)
            part = H.ComponentExpr(H.LocalRef(tmp, e.type, loc), offset, k, t, loc)
            offset += k
            self.declare(n.id, t, n)
            out.append(H.Assign(n.id, part, self.loc(n)))
        return out

    def _int_literal(self, node) -> bool:
        """An untyped literal (tree) with a Python int value, e.g. `2` or `N * 2`."""
        if not self.is_literal_tree(node):
            return False
        try:
            v = self.const_eval(node)
        except NotConstant:
            return False
        return isinstance(v, int) and not isinstance(v, bool)
