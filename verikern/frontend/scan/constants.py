"""The compile-time value of a module-level expression, computed from its
source without executing the file: literals, earlier constants that nothing
rebinds, arithmetic on them, and pure functions of math, numpy and Python on
such values.

Invariant: `eval_module_constant` returns a value only for an expression
whose every part is one of these (a name another module or a later statement
may rebind is no constant); anything else raises NotConstant.
"""
from __future__ import annotations

import ast
import math
import operator
from typing import Any, Callable


_BINOPS: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod,
    ast.Pow: operator.pow, ast.LShift: operator.lshift, ast.RShift: operator.rshift,
    ast.BitAnd: operator.and_, ast.BitOr: operator.or_, ast.BitXor: operator.xor,
}
_UNOPS: dict[type, Callable[[Any], Any]] = {ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Invert: operator.invert,
          ast.Not: operator.not_}
BINOPS, UNOPS = _BINOPS, _UNOPS   # Python's operators, for wp.static()'s folding (builtins/warp.py)


class NotConstant(Exception):
    """The expression is no compile-time constant."""


def eval_module_constant(node: ast.AST, info: Any):
    """Evaluate a literal module-level expression with Python semantics, or
    raise NotConstant. `info`: the module.ModuleInfo of the file (its
    constants, rebindings, DSL and standard-module aliases)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, (bool, int, float)):
        return node.value
    if isinstance(node, ast.Name) and node.id in info.constants \
            and info.rebinding(node.id) is None:
        return info.constants[node.id]
    if isinstance(node, ast.Tuple):
        return tuple(eval_module_constant(e, info) for e in node.elts)
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNOPS:
        v = eval_module_constant(node.operand, info)
        if isinstance(v, tuple):
            raise NotConstant
        return _UNOPS[type(node.op)](v)
    if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
        a, b = eval_module_constant(node.left, info), eval_module_constant(node.right, info)
        if isinstance(a, tuple) or isinstance(b, tuple):
            raise NotConstant
        if isinstance(node.op, ast.Pow) and isinstance(b, int) and abs(b) > 256:
            raise NotConstant
        try:
            return _BINOPS[type(node.op)](a, b)
        except (ArithmeticError, ValueError, TypeError):
            raise NotConstant from None
    if isinstance(node, ast.Call) and info.dsl_name(node.func) == "constant" \
            and len(node.args) == 1 and not node.keywords:
        return eval_module_constant(node.args[0], info)
    if isinstance(node, ast.Attribute):
        std = _std_name(node, info)
        if std in _STD_CONSTANTS:
            return _STD_CONSTANTS[std]
    if isinstance(node, ast.Call) and not node.keywords:
        std = _std_name(node.func, info)
        if std is None and isinstance(node.func, ast.Name) and node.func.id in _PY_BUILTINS \
                and node.func.id not in info.nonconstant and node.func.id not in info.constants:
            std = node.func.id
        fn = _STD_FUNCS.get(std) if std else None
        if fn is not None:
            args = [eval_module_constant(a, info) for a in node.args]
            if any(isinstance(a, tuple) for a in args):
                raise NotConstant
            try:
                v = fn(*args)
            except (ArithmeticError, ValueError, TypeError):
                raise NotConstant from None
            if isinstance(v, float) and not math.isfinite(v):
                raise NotConstant
            return v
    raise NotConstant


# Pure functions of the standard library and numpy that module constants may
# use (`DT = 0.95 * DX / math.sqrt(3.0)`): evaluated on literal arguments
# only, never on anything the file computes at run time.
_STD_CONSTANTS = {"math.pi": math.pi, "math.e": math.e, "math.tau": math.tau,
                  "numpy.pi": math.pi, "numpy.e": math.e}
_MATH_FUNCS = ("sqrt", "exp", "log", "log2", "log10", "sin", "cos", "tan", "asin", "acos",
               "atan", "atan2", "sinh", "cosh", "tanh", "floor", "ceil", "radians",
               "degrees", "pow", "fabs", "hypot")
_STD_FUNCS = {f"math.{n}": getattr(math, n) for n in _MATH_FUNCS}
_STD_FUNCS.update({f"numpy.{n}": getattr(math, n) for n in
                   ("sqrt", "exp", "log", "log2", "log10", "sin", "cos", "tan", "sinh",
                    "cosh", "tanh", "radians", "degrees")})
_STD_FUNCS.update({"math.floor": lambda x: int(math.floor(x)),
                   "math.ceil": lambda x: int(math.ceil(x))})
_PY_BUILTINS = {"round": round, "float": float, "int": int, "abs": abs, "min": min, "max": max}
_STD_FUNCS.update(_PY_BUILTINS)


def _std_name(node: ast.AST, info: Any) -> str | None:
    """`math.sqrt` / `np.pi` (through the file's import aliases) -> "math.sqrt"."""
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
            and node.value.id in info.std_modules:
        return f"{info.std_modules[node.value.id]}.{node.attr}"
    return None
