"""Type checking of kernel expressions (AST -> typed HIR expressions).

Invariant: every returned HIR expression is well typed under docs/LANGUAGE.md
section 2; anything else raises a located KernelError with a stable rule id.
Compile-time constant expressions (literals, module constants and arithmetic
on them) stay untyped until their context fixes the type.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import ast
import math

from verikern.hir import nodes as H
from verikern.hir.types import (
    BOOL, F32, F64, I32, ArrayType, MatrixType, ScalarType, VectorType, named_parts, vector_type,
)
from verikern.mir.nodes import ModuleConstantRead
from verikern.mir.ops import UNBOUNDED_RING
from verikern.mir.ops import trunc_div as _c_div  # C division on unbounded ints
from verikern.mir.work import TYPING_UNITS, charge
from .held_arrays import HELD_CALL, check_held_read
from .dynamic_components import dynamic_read, past_components
from .views import check_view_use, flat_index
from .assigned_reads import maybe_assigned_read
from ..scan.factories import capture_of, capture_ref
from ..scan.enums import ValueEnumMembers
from ..scan.constants import NotConstant
from ..scan.project import aliased_module, chain_root, module_member
from ..scan.runtime_lengths import value_read_refusal
from ..scan.std_constants import std_float_constant
from ..builtins.operators import (
    BINOP_NAMES, COMPARE_NAMES, check_binary_types, comparison_type, is_integer_vector_or_matrix,
    literal_type_for, make_literal,
)
from ..builtins.calls import check_call
from ..builtins.table import LITERAL_CALLS
from ..builtins.rand import DESUGARED

DSL_CONSTANTS = {"pi": math.pi, "e": math.e, "tau": math.tau, "inf": math.inf, "nan": math.nan,
                 # Warp 1.19's named float constants (warp/constants: Python floats)
                 "PI": math.pi, "TAU": math.tau, "E": math.e, "INF": math.inf,
                 "NAN": math.nan, "HALF_PI": math.pi / 2, "LN2": math.log(2.0),
                 "LN10": math.log(10.0), "LOG2E": math.log2(math.e),
                 "LOG10E": math.log10(math.e), "PHI": (1.0 + math.sqrt(5.0)) / 2.0}
VECTOR_FIELDS = {"x": 0, "y": 1, "z": 2, "w": 3}

_FORBIDDEN_EXPRS = {
    ast.List: ("no-lists", "lists are not allowed in kernels", "use an array parameter or a vector type"),
    ast.ListComp: ("no-comprehensions", "comprehensions are not allowed in kernels", "write a for loop"),
    ast.SetComp: ("no-comprehensions", "comprehensions are not allowed in kernels", "write a for loop"),
    ast.DictComp: ("no-comprehensions", "comprehensions are not allowed in kernels", "write a for loop"),
    ast.GeneratorExp: ("no-generators", "generators are not allowed in kernels", "write a for loop"),
    ast.Yield: ("no-generators", "generators (yield) are not allowed in kernels", "return a value instead"),
    ast.YieldFrom: ("no-generators", "generators (yield) are not allowed in kernels", "return a value instead"),
    ast.Await: ("async", "await is not allowed in kernels", None),
    ast.Dict: ("no-dicts", "dicts are not allowed in kernels", "use separate variables or arrays"),
    ast.Set: ("no-sets", "sets are not allowed in kernels", "use separate variables or arrays"),
    ast.Lambda: ("no-lambda", "lambda is not allowed in kernels", "define a @vk.func instead"),
    ast.JoinedStr: ("no-strings", "strings are allowed only as assert messages", None),
    ast.NamedExpr: ("no-walrus", "`:=` is not allowed in kernels", "assign in a separate statement"),
    ast.Starred: ("varargs", "*-unpacking is not allowed in kernels", "pass each argument explicitly"),
    ast.Slice: ("no-slices", "slices are not allowed in kernels", "index one element at a time"),
    ast.Tuple: ("no-tuples", "tuples are allowed only to unpack vk.tid()", "use separate variables or a vector type"),
}


if TYPE_CHECKING:   # the state and methods of the class that mixes this in
    from .host import CheckerHost as _Host
else:
    _Host = object


class ExprChecker(_Host):
    """Mixin of the kernel/func checker: expression rules. Needs the state
    set up by `body.BodyChecker`."""

    # ---------------------------------------------------------- constants
    def const_eval(self, node: ast.AST):
        """The value of a compile-time constant expression (untyped int/float or
        bool), or raise NotConstant. Integer `/` and `%` follow C (Warp)."""
        if isinstance(node, ast.Constant):
            if isinstance(node.value, (bool, int, float)):
                return node.value
            raise NotConstant
        if isinstance(node, ast.Name):
            if node.id in self.local_names or node.id in self.arrays:
                raise NotConstant
            cap = capture_of(self, node.id)
            if cap is not None:
                if cap.known and not isinstance(cap.value, tuple):
                    return cap.value
                raise NotConstant
            if node.id in self.info.constants:
                v = self.info.constants[node.id]
                if isinstance(v, tuple):
                    raise NotConstant
                origin = self.info.name_origins.get(node.id)    # `from pkg.config import N`
                return v if origin is None else self._module_constant_read(node, origin[0], v)
            raise NotConstant
        if isinstance(node, ast.Attribute):
            if node.attr == "length" and isinstance(node.value, ast.Name) \
                    and node.value.id in self.local_names \
                    and isinstance(self.var_types.get(node.value.id), VectorType):
                return self.var_types[node.value.id].length   # `v.length`: a constant of v's type
            name = self.info.dsl_name(node)
            if name in DSL_CONSTANTS:
                return DSL_CONSTANTS[name]
            std = std_float_constant(self.info, node, self.local_names)   # np.pi, math.nan
            if std is not None:
                return std
            enum = self._enum_members(node.value)
            if enum is not None and node.attr in enum and not isinstance(enum, ValueEnumMembers):
                return enum[node.attr]                   # Flags.ACTIVE: an int constant
            if node.attr == "value" and isinstance(node.value, ast.Attribute):
                enum = self._enum_members(node.value.value)   # Scheme.GATHER.value of an Enum too
                if enum is not None and node.value.attr in enum:
                    return enum[node.value.attr]
            member = self._module_member(node)          # c.N, `import pkg.consts as c`
            if member is not None and isinstance(member[0].constants.get(member[1]),
                                                 (bool, int, float)):
                return self._module_constant_read(node, member[0], member[0].constants[member[1]])
            raise NotConstant
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) \
                and node.value.id not in self.local_names and node.value.id not in self.arrays \
                and isinstance(self._tuple_constant(node.value.id), tuple):
            tup = self._tuple_constant(node.value.id)
            idx = self.const_eval(node.slice)
            if isinstance(idx, int) and -len(tup) <= idx < len(tup):
                v = tup[idx]
                if not isinstance(v, tuple):
                    return v
            raise NotConstant
        if isinstance(node, ast.UnaryOp):
            v = self.const_eval(node.operand)
            if isinstance(node.op, ast.USub) and not isinstance(v, bool):
                return -v
            if isinstance(node.op, ast.UAdd) and not isinstance(v, bool):
                return v
            if isinstance(node.op, ast.Invert) and isinstance(v, int) and not isinstance(v, bool):
                return ~v
            raise NotConstant
        if isinstance(node, ast.BinOp) and type(node.op) in BINOP_NAMES:
            a, b = self.const_eval(node.left), self.const_eval(node.right)
            if isinstance(a, bool) or isinstance(b, bool):
                raise NotConstant
            op = BINOP_NAMES[type(node.op)]
            both_int = isinstance(a, int) and isinstance(b, int)
            try:
                if op in UNBOUNDED_RING:
                    return UNBOUNDED_RING[op](a, b)
                if op == "div":
                    return _c_div(a, b) if both_int else a / b
                if op == "floordiv":
                    return a // b if both_int else float(math.floor(a / b))
                if op == "mod":
                    return a - _c_div(a, b) * b if both_int else math.fmod(a, b)
                if op == "pow" and not both_int:
                    return float(a) ** float(b)
                if both_int and op == "shl" and 0 <= b < 64:
                    return a << b
                if both_int and op == "shr" and 0 <= b < 64:
                    return a >> b
                if both_int and op in ("and", "or", "xor"):
                    return {"and": a & b, "or": a | b, "xor": a ^ b}[op]
            except (ZeroDivisionError, OverflowError):
                raise NotConstant from None
            raise NotConstant
        raise NotConstant

    def _tuple_constant(self, name):
        cap = capture_of(self, name)
        if cap is not None:
            return cap.value if cap.known else None
        return self.info.constants.get(name)

    def is_const(self, node) -> bool:
        try:
            self.const_eval(node)
            return True
        except NotConstant:
            return False

    def literal_value(self, node: ast.AST):
        """The value of an untyped literal atom: a number, a module constant, a
        DSL constant (vk.pi), a constant tuple element, or +/- one of these.
        Arithmetic between literals is NOT folded here: it runs in the type the
        context gives it (machine arithmetic), see `is_literal_tree`."""
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            v = self.literal_value(node.operand)
            if isinstance(v, bool):
                raise NotConstant
            return -v if isinstance(node.op, ast.USub) else v
        if isinstance(node, (ast.Constant, ast.Name, ast.Attribute, ast.Subscript)):
            return self.const_eval(node)
        raise NotConstant

    def is_literal_tree(self, node) -> bool:
        """Only untyped literals and arithmetic on them (no typed operand)."""
        cache = self.__dict__.setdefault("_literal_tree_cache", {})
        key = id(node)
        if key not in cache:
            cache[key] = (node, self._is_literal_tree(node))  # node kept alive: id stays unique
        return cache[key][1]

    def _is_literal_tree(self, node) -> bool:
        try:
            v = self.literal_value(node)
            return not isinstance(v, bool)
        except NotConstant:
            pass
        if isinstance(node, ast.BinOp) and type(node.op) in BINOP_NAMES:
            return self.is_literal_tree(node.left) and self.is_literal_tree(node.right)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd,
                                                                   ast.Invert)):
            return self.is_literal_tree(node.operand)
        if isinstance(node, ast.IfExp):  # `0 if c else 1`: both arms take the context type
            return self.is_literal_tree(node.body) and self.is_literal_tree(node.orelse)
        if isinstance(node, ast.Call) and not node.keywords and node.args:
            name = self.info.dsl_name(node.func)
            if name is None and isinstance(node.func, ast.Name) \
                    and node.func.id not in self.local_names and node.func.id not in self.info.funcs:
                name = node.func.id
            return name in LITERAL_CALLS and all(self.is_literal_tree(a) for a in node.args)
        return False

    # ------------------------------------------------------- expressions
    def check_expr(self, node: ast.AST, expected=None) -> H.Expr:
        """Type-check `node`; `expected` types untyped literals inside it."""
        charge(TYPING_UNITS, "typing")      # the kernel's compile work (verikern.mir.work)
        try:
            value = self.literal_value(node)
        except NotConstant:
            pass
        else:
            return make_literal(self, value, expected, node)
        method = getattr(self, "_expr_" + type(node).__name__, None)
        if method is not None:
            return method(node, expected)
        if type(node) in _FORBIDDEN_EXPRS:
            rule, msg, hint = _FORBIDDEN_EXPRS[type(node)]
            raise self.error(msg, node, rule, hint)
        if isinstance(node, ast.Constant):
            if isinstance(node.value, str):
                raise self.error("strings are allowed only as assert messages", node,
                                 "no-strings")
            raise self.error(f"the constant {node.value!r} is not allowed in kernels", node,
                             "bad-constant")
        raise self.error(f"{type(node).__name__} expressions are not allowed in kernels",
                         node, "unsupported-expression")

    def check_scalar(self, node, expected=None, what="value") -> H.Expr:
        e = self.check_expr(node, expected)
        if not isinstance(e.type, ScalarType):
            raise self.error(f"{what} must be a scalar, got {e.type}", node, "type-mismatch")
        return e

    def check_cond(self, node) -> H.Expr:
        """A bool condition; an integer means `!= 0` (C and Warp truthiness)."""
        if self.is_literal_tree(node):
            try:
                v = self.const_eval(node)
            except NotConstant:
                v = None
            if isinstance(v, int) and not isinstance(v, bool):
                return H.Literal(v != 0, BOOL, self.loc(node))
        e = self.check_expr(node, BOOL)
        if isinstance(e.type, ScalarType) and e.type.is_int:
            return H.CompareExpr("ne", e, H.Literal(0, e.type, e.loc), BOOL, self.loc(node))
        if e.type != BOOL:
            raise self.error(f"a condition must be bool, got {e.type}", node, "condition-not-bool",
                             "compare explicitly, e.g. `x != 0`")
        return e

    def check_int(self, node, expected=None, what="index") -> H.Expr:
        e = self.check_expr(node, expected)
        if not (isinstance(e.type, ScalarType) and e.type.is_int):
            raise self.error(f"{what} must be an integer, got {e.type}", node, "index-not-int",
                             "convert with int(...)")
        return e

    def check_pair(self, lnode, rnode, op_for_literal: str, expected=None):
        """Check two operands so that untyped literals take the other's type
        (or `expected`, or int32/float32 when both sides are literals)."""
        lc, rc = self.is_literal_tree(lnode), self.is_literal_tree(rnode)
        if lc and rc:
            if isinstance(expected, ScalarType) and expected != BOOL:
                return self.check_expr(lnode, expected), self.check_expr(rnode, expected)
            lhs = self.check_expr(lnode)
            r = self.check_expr(rnode, literal_type_for(op_for_literal, lhs.type))
            if r.type != lhs.type and isinstance(r.type, ScalarType) and r.type.is_float:
                lhs = self.check_expr(lnode, r.type)
            return lhs, r
        if lc:
            r = self.check_expr(rnode)
            self.refuse_warp_literal(lnode, r.type, op_for_literal)
            return self.check_expr(lnode, literal_type_for(op_for_literal, r.type)), r
        lhs = self.check_expr(lnode)
        if rc:
            self.refuse_warp_literal(rnode, lhs.type, op_for_literal)
        return lhs, self.check_expr(rnode, literal_type_for(op_for_literal, lhs.type))

    #: Whether an untyped literal keeps Warp's own type (int32, float32) in
    #: arithmetic: set while checking a typing of a generic kernel that Warp
    #: would build only if the body compiles under Warp's rule (`k + 1` with
    #: an int8 `k` does not: "Input types must be the same").
    warp_literals = False

    def refuse_warp_literal(self, lit_node, other, op: str) -> None:
        """Under `warp_literals`, a type error for a literal operand of
        arithmetic whose other operand is a scalar of another type than the
        literal's own (comparisons are exempt, as in Warp)."""
        if not self.warp_literals or op == "eq" or not isinstance(other, ScalarType) \
                or getattr(lit_node, DESUGARED, False):    # verikern's own rewriting (rand.py)
            return
        own = self.check_expr(lit_node).type
        if isinstance(own, ScalarType) and own != other:
            raise self.error(f"Warp gives the literal `{ast.unparse(lit_node)}` its own type {own}, "
                             f"not {other}", lit_node, "type-mismatch",
                             f"write {other}({ast.unparse(lit_node)})")

    def _expr_Name(self, node: ast.Name, expected):
        name = node.id
        if name in self.arrays:
            check_view_use(self, name, node)
            return H.ArrayRefExpr(name, self.arrays[name], self.loc(node))
        if name in self.local_names:
            if name not in self.defined:
                checked = maybe_assigned_read(self, name, node)   # check/assigned_reads.py
                if checked is not None:
                    return checked
                raise self.error(f"variable {name!r} may be used before it is assigned", node,
                                 "undefined-variable",
                                 "assign it on every path before this point (before the loop/if)")
            return H.LocalRef(name, self.var_types[name], self.loc(node))
        cap = capture_of(self, name)
        if cap is not None and not (cap.known and isinstance(cap.value, tuple)):
            return capture_ref(self, cap, node)
        if name in self.info.constants:
            raise self.error(f"the tuple constant {name!r} can only be indexed with a constant",
                             node, "no-tuples", f"write {name}[0]")
        if name in self.info.aliases:
            raise self.error(f"the module {name!r} is not a value", node, "unknown-name")
        if name in self.info.typed_constants:   # X = wp.constant(wp.float64(2.0)): typed
            v, t = self.info.typed_constants[name]
            origin = self.info.name_origins.get(name)        # imported from a project module
            if origin is not None:
                v = self._module_constant_read(node, origin[0], v)
            return H.Literal(v, t, self.loc(node))
        self.refuse_rebound(node)
        if name in self.info.nonconstant or name in self.info.funcs or \
                any(d.node.name == name for d in self.info.kernels):
            raise self.error(value_read_refusal(self.info, name) or   # scan/runtime_lengths.py
                             f"kernel code cannot read the module-level name {name!r}: only "
                             "literal constants are visible", node, "closure",
                             "make it a literal constant or pass it as a parameter")
        raise self.error(f"unknown name {name!r}", node, "unknown-name",
                         "define it in the kernel, or make it a module-level literal constant")

    def refuse_rebound(self, node: ast.Name) -> None:
        """Raise the located error for a kernel's read of a module-level name
        the file can rebind (docs/LANGUAGE.md section 1); return for any other name."""
        name = node.id
        rebinding = self.info.rebinding(name) if name in self.info.nonconstant else None
        if rebinding is not None and name not in self.info.funcs:
            raise self.error(f"kernel code cannot read the module-level name {name!r}: the file "
                             f"can rebind it ({rebinding.describe()}), so it is not a constant",
                             node, "closure", f"bind {name} once, to a literal, and never rebind "
                             "it; or pass the value as a kernel parameter")

    def _expr_BinOp(self, node: ast.BinOp, expected):
        op = BINOP_NAMES[type(node.op)]     # every operator of Python's grammar
        lhs, r = self.check_pair(node.left, node.right, op, expected)
        t = check_binary_types(self, op, lhs, r, node)
        return H.BinaryExpr(op, lhs, r, t, self.loc(node))

    def _expr_UnaryOp(self, node: ast.UnaryOp, expected):
        loc = self.loc(node)
        if isinstance(node.op, ast.Not):
            return H.UnaryExpr("not", self.check_cond(node.operand), BOOL, loc)
        e = self.check_expr(node.operand, expected)
        if isinstance(e.type, ArrayType):
            raise self.error("arithmetic on an array", node, "array-arith")
        if isinstance(node.op, ast.UAdd):
            return e
        if isinstance(node.op, ast.USub):
            if e.type == BOOL:
                raise self.error("`-` on a bool", node, "bool-arith", "convert with int(...)")
            assert e.type is not None   # check_expr refuses statement-only builtins
            return H.UnaryExpr("neg", e, e.type, loc)
        if is_integer_vector_or_matrix(e.type):     # Warp builds it, componentwise
            raise self.error(f"`~` of a {e.type} value (componentwise in Warp) is not modelled by "
                             "verikern yet", node, "unsupported-vector-op",
                             "apply it to each component")
        if not (isinstance(e.type, ScalarType) and e.type.is_int):
            raise self.error(f"`~` needs an integer, got {e.type}", node, "float-bitwise")
        return H.UnaryExpr("invert", e, e.type, loc)

    def _expr_BoolOp(self, node: ast.BoolOp, expected):
        op = "and" if isinstance(node.op, ast.And) else "or"
        acc = self.check_cond(node.values[0])
        for v in node.values[1:]:
            acc = H.BoolOpExpr(op, acc, self.check_cond(v), BOOL, self.loc(node))
        return acc

    def _compare_operands(self, lnode, rnode, node, checked=None):
        lhs, r = checked if checked is not None else self.check_pair(lnode, rnode, "eq")
        lhs, r = self._warp_float_literal(lnode, lhs, r), self._warp_float_literal(rnode, r, lhs)
        for e, n in ((lhs, lnode), (r, rnode)):
            if not isinstance(e.type, ScalarType):
                raise self.error(f"comparisons need scalars, got {e.type}", n, "type-mismatch")
        # Warp compiles a mixed comparison to C++, whose usual arithmetic conversions
        # give it its meaning (int32 against uint32 compares as uint32): the same here
        common = comparison_type(lhs.type, r.type)
        if common is None:
            raise self.error(f"comparison mixes {lhs.type} and {r.type}: Warp's C++ build of it "
                             "fails (its float16 compares only with float16)", node, "type-mismatch",
                             f"convert one side explicitly, e.g. {r.type}({ast.unparse(lnode)})")
        lhs, r = (e if e.type == common else H.CastExpr(e, common, e.loc) for e in (lhs, r))
        return lhs, r

    def _warp_float_literal(self, node, e: H.Expr, other: H.Expr) -> H.Expr:
        """The compared operand `e` (checked from `node`), as Warp types it:
        a float literal (or arithmetic on literals) against a float64 operand
        keeps its own type, float32, and the conversion below widens it, as
        Warp's C++ does: `x < 0.1` with a float64 `x` compares against
        (double)0.1f = 0.10000000149011612, not 0.1 (checked against
        warp-lang on its CPU device: tests/frontend/test_fe_float_literal_compare.py).
        Every other operand is `e`."""
        if e.type != F64 or other.type != F64 or not self.is_literal_tree(node):
            return e
        own = self.check_expr(node)
        return own if own.type == F32 else e

    def _composite_equality(self, lnode, rnode, op, node):
        """The comparison of `wp.expect_eq(u, v)` / `wp.expect_neq(u, v)` on two
        vectors, matrices or quats of one type (Warp: equal when every
        component is equal; `expect_neq` passes when some component differs),
        else None; with the checked operands.  Only there: Warp's C++ has no
        `==` on vectors, so `u == v` in kernel code stays an error."""
        lhs, r = self.check_pair(lnode, rnode, "eq")
        if not isinstance(lhs.type, (VectorType, MatrixType)) and \
                not isinstance(r.type, (VectorType, MatrixType)):
            return None, (lhs, r)
        if lhs.type != r.type:
            raise self.error(f"comparison mixes {lhs.type} and {r.type}", node, "type-mismatch",
                             "compare values of one vector or matrix type")
        return H.CompareExpr(op, lhs, r, BOOL, self.loc(node)), (lhs, r)

    def _expr_Compare(self, node: ast.Compare, expected):
        for op in node.ops:
            if type(op) not in COMPARE_NAMES:
                raise self.error("only == != < <= > >= comparisons are allowed", node,
                                 "unsupported-expression")
        ops = tuple(COMPARE_NAMES[type(o)] for o in node.ops)
        nodes = [node.left, *node.comparators]
        if len(ops) == 1:
            checked = None
            if ops[0] in ("eq", "ne") and node is getattr(self, "expect_compare", None):
                composite, checked = self._composite_equality(nodes[0], nodes[1], ops[0], node)
                if composite is not None:
                    return composite
            lhs, r = self._compare_operands(nodes[0], nodes[1], node, checked)
            if lhs.type == BOOL and ops[0] not in ("eq", "ne"):
                raise self.error("bools compare only with == and !=", node, "bool-arith")
            return H.CompareExpr(ops[0], lhs, r, BOOL, self.loc(node))
        # chain: check pairwise, but each operand once. Warp converts in the first
        # comparison only (as C++) and refuses later operands of unequal types
        typed = []
        for k in range(len(ops)):
            pair = self.check_pair(nodes[k], nodes[k + 1], "eq")
            # a literal keeps its own type there (int32, float32), as in Warp
            own = [self.check_expr(n).type if self.is_literal_tree(n) else e.type
                   for n, e in zip(nodes[k:k + 2], pair)]
            if k > 0 and own[0] != own[1]:
                raise self.error(f"comparison chain mixes {own[0]} and {own[1]}: Warp refuses "
                                 "chained comparisons of unequal types", node, "type-mismatch",
                                 "convert one side explicitly")
            lhs, r = self._compare_operands(nodes[k], nodes[k + 1], node, pair)
            if k == 0:
                typed.append(lhs)
            elif lhs.type != typed[-1].type:   # Warp compares the converted operand once, raw after
                raise self.error(f"the first comparison of this chain converts its middle operand "
                                 f"to {typed[-1].type}, which verikern cannot compare again as "
                                 f"{lhs.type}", node, "comparison-chain",
                                 "write the comparisons separately, joined with `and`")
            typed.append(r)
        return H.ChainCompare(ops, tuple(typed), BOOL, self.loc(node))

    def _expr_IfExp(self, node: ast.IfExp, expected):
        cond = self.check_cond(node.test)
        a, b = self.check_pair(node.body, node.orelse, "add", expected)
        if a.type != b.type:
            raise self.error(f"the two branches have types {a.type} and {b.type}", node,
                             "type-mismatch", "convert one branch explicitly")
        if isinstance(a.type, ArrayType):
            raise self.error("a conditional expression cannot choose an array", node,
                             "array-value")
        return H.CondExpr(cond, a, b, a.type, self.loc(node))

    def _enum_members(self, node: ast.AST) -> dict[str, int] | None:
        """The members of the module-level IntEnum `node` names (here, or
        in a project module imported as a name), else None."""
        if isinstance(node, ast.Name) and node.id in self.info.enums \
                and node.id not in self.local_names and node.id not in self.arrays \
                and capture_of(self, node.id) is None:
            return self.info.enums[node.id]
        member = self._module_member(node)
        return member[0].enums.get(member[1]) if member is not None else None

    def _module_constant_read(self, node: ast.expr, module, value):
        """`value`, the constant `node` (`c.N`, or `N` imported by name) reads
        from `module`'s source, recorded as an assumption of the kernel
        (mir.nodes.ModuleConstantRead): Warp reads the value the module holds
        when it builds the kernel (for `from m import N`, when the kernel's
        module imported it)."""
        text = ast.unparse(node)
        self.module_constants.setdefault(
            (text, module.filename), ModuleConstantRead(text, value, module.filename, self.loc(node)))
        return value

    def _module_member(self, node: ast.AST):
        """(ModuleInfo, name) for `c.name` (or `pkg.config.name`) with `c`
        (`pkg`) a project module alias that no local, array or capture
        shadows, else None."""
        root = chain_root(node) if isinstance(node, ast.Attribute) else None
        if root is not None and (root.id in self.local_names or root.id in self.arrays
                                 or capture_of(self, root.id) is not None):
            return None
        return module_member(self.info, node)

    def _expr_Attribute(self, node: ast.Attribute, expected):
        if self.info.dsl_name(node) is not None:
            raise self.error(f"{ast.unparse(node)} is not a value", node, "unknown-name",
                             "call it, e.g. vk.tid()")
        member = self._module_member(node)
        if member is not None and member[1] in member[0].typed_constants:   # c.X = wp.constant(..)
            v, t = member[0].typed_constants[member[1]]
            return H.Literal(self._module_constant_read(node, member[0], v), t, self.loc(node))
        root = chain_root(node.value)
        defining = aliased_module(self.info, node.value) if root is not None \
            and root.id not in self.local_names and root.id not in self.arrays \
            and capture_of(self, root.id) is None else None
        if defining is not None:     # `c.X`, `pkg.config.X`: not a constant of that module
            rebinding = defining.rebinding(node.attr)
            why = (f"{defining.filename} can rebind it ({rebinding.describe()})"
                   if rebinding is not None else "it is not a literal constant there")
            raise self.error(f"kernel code cannot read {ast.unparse(node)}: {why}", node,
                             "closure", "make it a literal constant bound once in its module, "
                             "or pass the value as a parameter")
        base = self.check_expr(node.value)
        if isinstance(base.type, ArrayType):
            if node.attr == "shape":
                raise self.error("a.shape must be indexed with a constant, e.g. a.shape[0]",
                                 node, "shape-index")
            raise self.error(f"arrays have no attribute {node.attr!r}", node, "unknown-name")
        part = named_parts(base.type).get(node.attr)
        if part is not None:   # v.x, t.p, t.q
            return H.ComponentExpr(base, part[0], part[1], part[2], self.loc(node))
        if node.attr == "length" and isinstance(base.type, VectorType):   # Warp's `v.length`: its type's
            return H.Literal(base.type.length, I32, self.loc(node))      # length, an int32 constant
        raise self.error(f"{base.type} has no attribute {node.attr!r}", node, "unknown-name")

    def constant_index(self, node, limit: int, what: str) -> int:
        try:
            v = self.const_eval(node)
        except NotConstant:
            v = None
        if not isinstance(v, int) or isinstance(v, bool):
            raise self.error(f"{what} must be a constant integer", node,
                             "component-not-constant", "write a literal such as 0, 1 or 2")
        if not 0 <= v < limit:
            raise self.error(f"{what} {v} is out of range 0..{limit - 1}", node,
                             "component-range")
        return v

    def index_list(self, slice_node) -> list:
        return list(slice_node.elts) if isinstance(slice_node, ast.Tuple) else [slice_node]

    def check_indices(self, arr: H.ArrayRefExpr, nodes, at) -> tuple:
        if len(nodes) < arr.type.ndim and arr.type.space != "shared":
            raise self.error(f"{arr.name} has {arr.type.ndim} dimension(s) but {len(nodes)} "
                             f"index(es) were given: a view of {arr.name}, which verikern "
                             "takes only bound to a name, or as a call argument whose "
                             "indices are names and int literals under + - * (check/views.py)",
                             at, "index-count",
                             f"bind the view first (v = {ast.unparse(at)}) and use v, or index "
                             f"it as {arr.name}[{', '.join('ijkl'[:arr.type.ndim])}]")
        if len(nodes) != arr.type.ndim:
            raise self.error(f"{arr.name} has {arr.type.ndim} dimension(s) but "
                             f"{len(nodes)} index(es) were given", at, "index-count",
                             f"index it as {arr.name}[{', '.join('ijkl'[:arr.type.ndim])}]")
        return tuple(self.check_int(n) for n in nodes)

    def _expr_Subscript(self, node: ast.Subscript, expected):
        flat = flat_index(self, node)      # a[i][j] of a 2-d array: a[i, j] (check/views.py)
        if flat is not None:
            node = flat
        loc = self.loc(node)
        v = node.value
        if isinstance(v, ast.Attribute) and v.attr == "shape":
            base = self.check_expr(v.value)
            if not isinstance(base.type, ArrayType):
                raise self.error(f"{base.type} has no shape", v, "unknown-name")
            assert isinstance(base, H.ArrayRefExpr)   # arrays never live in locals ("array-copy")
            k = self.constant_index(node.slice, base.type.ndim, "a shape dimension")
            if base.type.space == "shared":
                assert base.type.shape is not None   # a shared array's shape is static
                return H.Literal(base.type.shape[k], I32, loc)
            return H.ShapeExpr(base, k, I32, loc)
        base = self.check_expr(v)
        if isinstance(base.type, ArrayType):
            assert isinstance(base, H.ArrayRefExpr)   # arrays never live in locals ("array-copy")
            idx = self.check_indices(base, self.index_list(node.slice), node)
            return H.IndexExpr(base, idx, base.type.dtype, loc)
        if isinstance(base.type, (VectorType, MatrixType)):
            parts = self.index_list(node.slice)
            if not all(self.is_const(p) for p in parts) or past_components(self, base.type, parts):
                return dynamic_read(self, base, parts, loc)     # v[i]: Warp allows it
        if isinstance(base.type, VectorType):
            k = self.constant_index(node.slice, base.type.length, "a vector component")
            return H.ComponentExpr(base, k, 1, base.type.dtype, loc)
        if isinstance(base.type, MatrixType):
            t = base.type
            parts = self.index_list(node.slice)
            if len(parts) == 1:
                r = self.constant_index(parts[0], t.rows, "a matrix row")
                return H.ComponentExpr(base, r * t.cols, t.cols, vector_type(t.cols, t.dtype), loc)
            if len(parts) == 2:
                r = self.constant_index(parts[0], t.rows, "a matrix row")
                c = self.constant_index(parts[1], t.cols, "a matrix column")
                return H.ComponentExpr(base, r * t.cols + c, 1, t.dtype, loc)
        raise self.error(f"a value of type {base.type} cannot be indexed", node, "not-indexable")

    def _expr_Call(self, node: ast.Call, expected):
        if isinstance(node.func, ast.Name) and node.func.id == HELD_CALL:   # check/held_arrays.py
            return check_held_read(self, node)
        return check_call(self, node, expected)
