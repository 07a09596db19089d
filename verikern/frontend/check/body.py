"""Type checking of kernel and func bodies: AST statements -> HIR.

Invariant: a BodyChecker either returns a HIR definition that satisfies every
rule of docs/LANGUAGE.md sections 2-5 or raises the first violated rule as a
located KernelError. Definite assignment is tracked (`defined`): a variable
is read unchecked only where every path has assigned it, and where only some
path has (`maybe_defined`), the read is an obligation (check/assigned_reads.py);
a variable keeps the type of its first assignment for its whole life.
"""
from __future__ import annotations

import ast
import copy

from verikern.hir import nodes as H
from verikern.hir.types import (
    ArrayType,
    StructType,
    struct_leaves,
)

from ..scan.annotations import parse_annotation
from .assignments import AssignChecks
from .expressions import ExprChecker
from .structs import StructChecks, StructScope
from .flow import FlowChecker
from .contracts import UNIFORM_BUILTINS, WarpChecks, is_dsl_call  # noqa: F401
from ..scan.factories import CAPTURE_PREFIX, relation_requires
from ..scan.module import Definition, ModuleInfo
from ..builtins.rand import hoist
from ..builtins.table import RAND_BUILTINS
from .registry import is_any, type_variable
from .assigned_reads import flag_sets, needs_another_check, note_assignment, with_flag_starts
from .statement_walks import calls_in, conditional_calls, stored_names
from .views import hoist_view_arguments
from .array_choices import split_array_choice
from .struct_passing import result_annotation
from ..scan.settings import setting_requires
from ..builtins.warp import expect_near_test
from ..builtins.warp import positional_args

_FORBIDDEN_STMTS = {
    "Try": ("no-try", "try/except is not allowed in kernels", "check conditions with if"),
    "TryStar": ("no-try", "try/except is not allowed in kernels", "check conditions with if"),
    "With": ("no-with", "with is not allowed in kernels", None),
    "AsyncWith": ("no-with", "with is not allowed in kernels", None),
    "AsyncFor": ("async", "async for is not allowed in kernels", None),
    "Import": ("import-in-kernel", "import inside a kernel", "import at module level"),
    "ImportFrom": ("import-in-kernel", "import inside a kernel", "import at module level"),
    "FunctionDef": ("nested-def", "functions cannot be defined inside kernels",
                    "define a module-level @vk.func"),
    "AsyncFunctionDef": ("nested-def", "functions cannot be defined inside kernels", None),
    "ClassDef": ("nested-def", "classes cannot be defined inside kernels", None),
    "Global": ("closure", "global is not allowed in kernels", "pass values as parameters"),
    "Nonlocal": ("closure", "nonlocal is not allowed in kernels", None),
    "Delete": ("unsupported-statement", "del is not allowed in kernels", None),
    "Raise": ("no-raise", "raise is not allowed in kernels", "use assert"),
    "Match": ("unsupported-statement", "match is not allowed in kernels", "use if/elif"),
}


def has_rand_header(chk, s) -> bool:
    """A random-number call in the test or range of an if/for/while."""
    header = getattr(s, "test", None) or getattr(s, "iter", None)
    return header is not None and any(chk.info.dsl_name(n.func) in RAND_BUILTINS for n in calls_in(header))


class BodyChecker(AssignChecks, StructChecks, WarpChecks, FlowChecker, ExprChecker):
    """Checks one kernel or func body (see module docstring)."""

    def __init__(self, info: ModuleInfo, definition: Definition, registry, param_types=None,
                 func_key: str | None = None):
        # the variables read where only some path assigned them: each has a flag (assigned_reads.py)
        self.shadowed: frozenset[str] = frozenset()
        self.unassigned_reads: set[str] = set()   # the variables read so
        self.maybe_defined: set[str] = set()      # assigned on some path to here
        self.pending_flags: list[str] = []        # flags the current statement sets
        self.param_types = param_types   # a generic func's specialization: one type per param
        self.param_anns: dict = {}       # a generic kernel's wp.overload: name -> annotation
        self.func_key = func_key or definition.node.name
        self.info = info
        self.defn = definition
        self.node = definition.node
        self.name = definition.node.name
        self.is_kernel = definition.kind == "kernel"
        self.registry = registry
        self.current_node: ast.AST = definition.node
        self.arrays: dict[str, ArrayType] = {}
        # array views (check/views.py): name -> (the array viewed, the locals of its leading indices)
        self.views: dict[str, tuple[str, tuple[str, ...]]] = {}
        self.param_arrays: set[str] = set()
        self.var_types: dict = {}
        self.defined: set[str] = set()
        self.terminated = False
        self.local_names = set(stored_names(self.node))
        self.loop_depth = 0
        # the loads `type(a[i])` evaluates for their effect, checked before the statement
        # being checked (None: where that is no statement of its own, e.g. a while test)
        self.effects: list | None = None
        self.conditional_calls: frozenset[int] = frozenset()   # ids of calls Warp may not evaluate
        self.loop_vars: list[str] = []
        self.tid_arity: int | None = None
        self.launch_dim_max = -1
        self.uses_block = False
        self.called: set[str] = set()
        self.returns = None
        self.result_pattern: tuple | None = None   # `-> tuple[Any, float]`: see contracts.py
        self.temp_counter = 0
        self.captures: dict = {}   # captured unknown constants read: name -> type
        # module attributes read as constants: (text, file) -> mir.nodes.ModuleConstantRead
        self.module_constants: dict = {}
        self.tuple_ok: bool = False   # a tuple-returning func call may appear here
        self.struct_params: dict[str, StructType] = {}   # struct parameter -> its type
        self.struct_arrays: dict[str, StructType] = {}   # array of structs -> element type
        self.struct_return: StructType | None = None      # a func's struct result
        self.structs = StructScope(self, {})

    # ---------------------------------------------------------- helpers
    def loc(self, node):
        return self.info.loc(node)

    def error(self, message, node, rule, hint=None):
        return self.info.error(message, node, rule, hint)

    def declare(self, name: str, t, node, read_first: bool = False) -> None:
        """`name` is assigned a `t` here (`read_first`: by a statement that
        read it first, `v += e`)."""
        if name in self.var_types and self.var_types[name] != t:
            raise self.error(f"variable {name!r} changes type from {self.var_types[name]} to {t}",
                             node, "type-change",
                             "use a new variable name, or convert explicitly")
        self.var_types[name] = t
        note_assignment(self, name, read_first)
        self.defined.add(name)

    def note_tid(self, arity: int, node) -> None:
        if self.tid_arity is not None and self.tid_arity != arity:
            raise self.error(f"vk.tid() is used with {self.tid_arity} and {arity} dimensions",
                             node, "tid-arity", "unpack vk.tid() the same way everywhere")
        self.tid_arity = arity

    def note_launch_dim(self, k: int) -> None:
        self.launch_dim_max = max(self.launch_dim_max, k)

    def temp(self) -> str:
        self.temp_counter += 1
        name = f"$t{self.temp_counter}"
        self.local_names.add(name)
        return name

    # ------------------------------------------------------- definitions
    def params(self) -> tuple[H.Param, ...]:
        a = self.node.args
        if a.vararg or a.kwarg:
            bad = a.vararg or a.kwarg
            raise self.error("*args/**kwargs are not allowed", bad, "varargs",
                             "declare each parameter with a type")
        if a.kwonlyargs or a.posonlyargs:
            raise self.error("keyword-only and positional-only parameters are not allowed",
                             (a.kwonlyargs or a.posonlyargs)[0], "varargs")
        for dflt in a.defaults:   # @wp.func defaults (Warp): constants, filled in at calls
            if self.is_kernel or not (self.is_literal_tree(dflt) or self.is_const(dflt)):
                raise self.error("parameters cannot have default values" if self.is_kernel
                                 else "a parameter default must be a constant", dflt,
                                 "param-default", "pass the value at every call")
        out: list[H.Param] = []
        seen: set[str] = set()
        for index, arg in enumerate(a.args):
            self.current_node = arg
            if arg.arg in seen:
                raise self.error(f"duplicate parameter {arg.arg!r}", arg, "syntax",
                                 "give every parameter its own name")
            seen.add(arg.arg)
            if self.param_types is not None and self.param_types[index] is not None:
                t = self.param_types[index]   # a generic func's specialization (None: a struct)
            elif arg.arg in self.param_anns:   # wp.overload annotation, or a launch site's type
                ann = self.param_anns[arg.arg]
                t = parse_annotation(self, ann, f"parameter {arg.arg!r}") \
                    if isinstance(ann, ast.AST) else ann
            elif is_any(self.info, arg.annotation):
                raise self.error(f"the generic parameter {arg.arg!r} (Any) has no concrete type "
                                 "here", arg, "generic-kernel",
                                 f"declare its types with wp.overload({self.name}, [...]) in this "
                                 "file, launch it there with arguments of evident types "
                                 "(e.g. wp.zeros(n, dtype=float)), or annotate a concrete type")
            elif (leaves := self.struct_param(arg)) is not None:   # check/structs.py
                out += leaves
                continue
            else:
                t = parse_annotation(self, arg.annotation, f"parameter {arg.arg!r}")
            if isinstance(t, StructType):   # a generic parameter given a struct: its leaves
                self.struct_params[arg.arg] = t
                out += [self._leaf_param(leaf, lt, arg) for leaf, lt in struct_leaves(t, arg.arg)]
                continue
            if isinstance(t, ArrayType):
                self.arrays[arg.arg] = t
                self.param_arrays.add(arg.arg)
                if arg.arg in self.local_names:
                    store = next(n for n in ast.walk(self.node) if isinstance(n, ast.Name)
                                 and n.id == arg.arg and isinstance(n.ctx, ast.Store))
                    raise self.error(f"cannot assign to the array parameter {arg.arg!r}", store,
                                     "assign-to-array", "write to its elements: a[i] = ...")
            else:
                self.local_names.add(arg.arg)
                self.declare(arg.arg, t, arg)
            out.append(H.Param(arg.arg, t, self.loc(arg)))
        return tuple(out)

    def check_again(self, shadowed: frozenset[str]) -> None:
        """Start over with a flag for each variable of `shadowed`
        (check/assigned_reads.py): a fresh state, the settings kept."""
        kept: dict[str, object] = {k: self.__dict__[k] for k in ("param_anns", "warp_literals", "typed")
                if k in self.__dict__}
        args = (self.info, self.defn, self.registry, self.param_types, self.func_key)
        self.__dict__.clear()
        BodyChecker.__init__(self, *args)
        self.__dict__.update(kept)
        self.shadowed = shadowed

    def check_kernel(self) -> H.KernelDef:
        hir = self._check_kernel()
        while (shadowed := needs_another_check(self)) is not None:
            self.check_again(shadowed)
            hir = self._check_kernel()
        return hir

    def check_func(self) -> H.FuncDef:
        fdef = self._check_func()
        while (shadowed := needs_another_check(self)) is not None:
            self.check_again(shadowed)
            fdef = self._check_func()
        return fdef

    def _check_kernel(self) -> H.KernelDef:
        params = self.params()
        if self.node.returns is not None and not (isinstance(self.node.returns, ast.Constant)
                                                  and self.node.returns.value is None):
            raise self.error("kernels do not return values", self.node.returns,
                             "kernel-return-value", "write results into an array")
        body = self.decorator_requires(params) + self.check_body(self.struct_body(), top=True)
        body = self.struct_shape_requires() + with_flag_starts(self, body, self.defn.loc)
        if self.tid_arity is not None and self.launch_dim_max >= self.tid_arity:
            raise self.error(f"vk.launch_dim({self.launch_dim_max}) in a kernel that unpacks "
                             f"vk.tid() into {self.tid_arity} dimension(s)", self.node,
                             "launch-dim-range")
        ndim = self.tid_arity or max(1, self.launch_dim_max + 1)
        funcs = tuple(self.registry.get(n).fdef for n in sorted(self.called))
        # the relations a kernel factory computes between the captures read
        body = relation_requires(self) + setting_requires(self) + body
        # captured unknown constants: hidden scalar parameters after the others
        params = params + tuple(H.Param(CAPTURE_PREFIX + n, t, self.defn.loc)
                                for n, t in sorted(self.captures.items()))
        return H.KernelDef(self.func_key, params, tuple(body), self.defn.loc, funcs, ndim,
                           self.defn.block_dim, self.info.fast_math if self.defn.fast_math is None
                           else self.defn.fast_math, self.uses_block, self.struct_args(),
                           tuple(self.module_constants.values()))

    def _check_func(self) -> H.FuncDef:
        params = self.params()
        r = result_annotation(self.info, self.node)   # `-> S`, or the S it returns built (struct_passing.py)
        self.result_pattern = self.tuple_result_pattern(r)
        if r is not None and not (isinstance(r, ast.Constant) and r.value is None) \
                and not is_any(self.info, r) and type_variable(self.info, r) is None \
                and self.result_pattern is None:
            self.returns = self.struct_result_type(r) or \
                parse_annotation(self, r, f"the result of {self.name}")
            if isinstance(self.returns, ArrayType):
                raise self.error("funcs cannot return arrays", r, "array-return",
                                 "pass the output array as a parameter")
        self.declared_return = self.returns
        body = self.check_body(self.struct_body(), top=True)
        if not self.terminated and self.returns is not None:
            last = self.node.body[-1]
            raise self.error(f"func {self.name!r} can reach its end without returning a "
                             f"{self.returns}", last, "missing-return",
                             "return a value on every path")
        body = with_flag_starts(self, body, self.defn.loc)
        return H.FuncDef(self.func_key, params, self.returns, tuple(body), self.defn.loc)

    # -------------------------------------------------------- statements
    def check_body(self, stmts, top=False, loop_body=False) -> list:
        out = []
        preamble = True  # still in the leading requires/invariant run
        for i, s in enumerate(stmts):
            self.current_node = s
            if isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant) \
                    and isinstance(s.value.value, str) and i == 0 and top:
                continue  # docstring
            is_req = isinstance(s, ast.Expr) and is_dsl_call(self.info, s.value, "requires")
            is_inv = isinstance(s, ast.Expr) and is_dsl_call(self.info, s.value, "invariant")
            if is_req and not (top and self.is_kernel and preamble):
                raise self.error("vk.requires(...) must be at the top of a kernel body", s,
                                 "requires-position",
                                 "move it before every other statement of the kernel")
            if is_inv and not (loop_body and preamble):
                raise self.error("vk.invariant(...) must be the first statement of a loop body",
                                 s, "invariant-position",
                                 "move it to the start of the loop body")
            if not ((is_req and top) or (is_inv and loop_body)):
                preamble = False
            was_terminated = self.terminated
            r = self.check_stmt(s)
            if was_terminated:
                self.terminated = True
            if r is not None:
                out.extend(r if isinstance(r, list) else [r])
            if self.pending_flags:
                out.extend(flag_sets(self, self.loc(s)))
        return out

    def check_stmt(self, s):
        """The HIR of `s`, after the loads its `type(a[i])` calls evaluate (builtins/calls.py)."""
        saved = (self.effects, self.conditional_calls)
        # a while test is evaluated again and again, a contract where it is written (its
        # position is checked): nothing of theirs is moved before the statement
        self.effects = None if isinstance(s, ast.While) or (
            isinstance(s, ast.Expr) and isinstance(s.value, ast.Call)
            and self.info.dsl_name(s.value.func) in ("requires", "invariant")) else []
        self.conditional_calls = conditional_calls(s)
        try:
            r = self._check_stmt_effects(s)
            effects = self.effects or []
        finally:
            self.effects, self.conditional_calls = saved
        if not effects:
            return r
        return effects + _as_list(r)

    def _check_hoisted(self, pre, s) -> list:
        """The HIR of the statements `pre` moved before (a copy of) `s`, each checked
        as a statement of its own; `s`'s conditional calls are the copy's."""
        self.conditional_calls = conditional_calls(s)
        return [h for p in pre for h in _as_list(self.check_stmt(p))]

    def _check_stmt_effects(self, s):
        split = split_array_choice(self, s)     # f(..., a if c else b): check/array_choices.py
        if split is not None:
            return self._check_stmt_effects(split)
        views, s = hoist_view_arguments(self, s, self.conditional_calls)
        if views:       # `f(k_vectors[s], ...)`: the view bound first (check/views.py)
            out = self._check_hoisted(views, s)
            return out + _as_list(self._check_stmt_effects(s))
        if any(self.info.dsl_name(n.func) in RAND_BUILTINS
               for n in calls_in(s)) and not isinstance(s, (ast.If, ast.For, ast.While)) \
                or isinstance(s, (ast.If, ast.For, ast.While)) and has_rand_header(self, s):
            pre, s = hoist(self, copy.deepcopy(s))
            out = self._check_hoisted(pre, s)
            r = self._check_stmt(s)
            if self.effects:     # s's own type() loads: after the draws they may index by
                out.extend(self.effects)
                self.effects = []
            return out + _as_list(r)
        return self._check_stmt(s)

    def _check_stmt(self, s):
        kind = type(s).__name__
        if kind in _FORBIDDEN_STMTS:
            rule, msg, hint = _FORBIDDEN_STMTS[kind]
            raise self.error(msg, s, rule, hint)
        method = getattr(self, "_stmt_" + kind, None)
        if method is None:
            raise self.error(f"{kind} statements are not allowed in kernels", s,
                             "unsupported-statement")
        return method(s)

    def _stmt_Pass(self, s):
        return None

    def _stmt_Break(self, s):
        if not self.loop_depth:
            raise self.error("break outside a loop", s, "break-outside-loop")
        self.terminated = True
        return H.Break(self.loc(s))

    def _stmt_Continue(self, s):
        if not self.loop_depth:
            raise self.error("continue outside a loop", s, "break-outside-loop")
        self.terminated = True
        return H.Continue(self.loc(s))

    def _stmt_Return(self, s):
        loc = self.loc(s)
        if self.is_kernel:
            if s.value is not None:
                raise self.error("a kernel cannot return a value", s.value,
                                 "kernel-return-value", "write results into an array")
            self.terminated = True
            return H.ReturnStmt(None, loc)
        if s.value is None:
            if self.returns is not None:
                raise self.error(f"{self.name!r} must return a {self.returns}", s,
                                 "return-type")
            self.terminated = True
            return H.ReturnStmt(None, loc)
        if isinstance(s.value, ast.Tuple) and s.value.elts:
            e = self._tuple_value(s.value)
        elif self.struct_return is not None:   # a struct result: its leaves (check/structs.py)
            e = self.structs.result(s.value, self.struct_return, self.returns)
        else:
            self.tuple_ok = isinstance(s.value, ast.Call)
            try:
                e = self.check_expr(s.value, self.returns)
            finally:
                self.tuple_ok = False
        if isinstance(e.type, ArrayType):
            raise self.error("funcs cannot return arrays", s.value, "array-return",
                             "pass the output array as a parameter")
        if self.returns is None and self.declared_return is None and (
                self.node.returns is None or is_any(self.info, self.node.returns)
                or type_variable(self.info, self.node.returns) is not None
                or self.result_pattern is not None):
            self.match_result_pattern(e.type, s.value)
            self.returns = self.declared_return = e.type
        if e.type != self.returns:
            raise self.error(f"returns {e.type} but {self.name!r} returns {self.returns}",
                             s.value, "return-type", "convert the value explicitly")
        self.terminated = True
        return H.ReturnStmt(e, loc)

    def _stmt_Assert(self, s):
        cond = self.check_cond(s.test)
        msg = ""
        if s.msg is not None:
            if not (isinstance(s.msg, ast.Constant) and isinstance(s.msg.value, str)):
                raise self.error("an assert message must be a plain string literal", s.msg,
                                 "no-strings")
            msg = s.msg.value
        return H.AssertStmt(cond, msg or ast.unparse(s.test), "assert", self.loc(s))

    def _stmt_Expr(self, s):
        v = s.value
        loc = self.loc(s)
        if isinstance(v, ast.Constant) and v.value is Ellipsis:
            return None
        if isinstance(v, ast.Call):
            name = self.info.dsl_name(v.func)
            if name == "sync_threads":
                self._no_args(v, 0)
                self.uses_block = True
                return H.BarrierStmt(self.loc(v))
            if name == "block_until":
                self._no_args(v, 1)
                self.uses_block = True
                return H.BlockUntil(self.check_cond(v.args[0]), self.loc(v))
            if name == "requires":
                return self._requires(v)
            if name in ("printf", "print") or (name is None and isinstance(v.func, ast.Name)
                                                and v.func.id == "print"
                                                and "print" not in self.local_names):
                return None   # Warp's printing: no meaning for proofs or results
            if name == "expect_near":   # Warp's test assertion: an assert
                return H.AssertStmt(self.check_cond(expect_near_test(self, v)), ast.unparse(v),
                                    "assert", loc)
            if name in ("expect_eq", "expect_neq"):  # Warp's test assertion: an assert
                a, b = (positional_args(self, v, name) + [None, None])[:2]
                if a is None or b is None or len(v.args) + len(v.keywords) != 2:
                    raise self.error(f"wp.{name}() takes 2 arguments", v, "arity")
                op = ast.Eq() if name == "expect_eq" else ast.NotEq()
                test = ast.copy_location(ast.Compare(left=a, ops=[op], comparators=[b]), v)
                self.expect_compare = test   # vectors and matrices compare here only
                return H.AssertStmt(self.check_cond(test), ast.unparse(v), "assert", loc)
            if name == "invariant":
                self._no_args(v, 1)
                cond = self.check_cond(v.args[0])
                return H.AssertStmt(cond, "invariant " + ast.unparse(v.args[0]), "invariant",
                                    self.loc(v))
        return H.ExprStmt(self.check_expr(v), loc)

    def _no_args(self, call, n):
        if call.keywords or len(call.args) != n:
            raise self.error(f"{ast.unparse(call.func)}() takes {n} argument(s)", call, "arity")


def _as_list(r) -> list:
    """A statement check's HIR as a list: None (nothing emitted), one node, or a list."""
    return r if isinstance(r, list) else [] if r is None else [r]
