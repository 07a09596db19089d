"""Warp builtins beyond docs/LANGUAGE.md's core list, and Warp's keyword
spellings of builtin arguments (docs/LANGUAGE.md section 4: "Warp's own builtins
on the types above keep Warp's meaning").

Invariant: every builtin here is rewritten into source-level expressions of
the core language (so every backend, the simulator and the prover give it
exactly the meaning of the formula in Warp's C++ headers, with no new MIR
op); an argument that the formula uses more than once must be free of side
effects (no atomics and no func calls), else a `warp-builtin-args` error asks
for a variable. Keyword arguments are matched to Warp's parameter names
(table.py's `warp_params`); table.py lists which builtins are rewritten here.
"""
from __future__ import annotations

import ast
import copy

from verikern.hir.types import BOOL, F32, F64, MatrixType, ScalarType, VectorType
from ..scan.factories import capture_of
from ..scan.constants import BINOPS, UNOPS, NotConstant, eval_module_constant
from .table import WARP_PARAMS

_DEG_TO_RAD = 0.01745329251994329577     # Warp's builtin.h constants (double)
_RAD_TO_DEG = 57.29577951308232087679
_ALIAS = "__verikern_dsl__"   # a synthetic DSL module alias for generated calls
_SIDE_EFFECTS = ("atomic_",)


def positional_args(chk, node: ast.Call, name: str) -> list:
    """The call's arguments in Warp's parameter order (keywords matched by name)."""
    if not node.keywords:
        return list(node.args)
    params = WARP_PARAMS.get(name)
    if params is None:
        raise chk.error(f"vk.{name}() takes no keyword arguments", node.keywords[0].value,
                        "keyword-args")
    args = list(node.args) + [None] * (len(params) - len(node.args))
    for kw in node.keywords:
        if kw.arg not in params:
            raise chk.error(f"vk.{name}() has no parameter {kw.arg!r} (Warp names them "
                            f"{', '.join(params)})", kw.value, "keyword-args")
        k = params.index(kw.arg)
        if k < len(node.args) or args[k] is not None:
            raise chk.error(f"vk.{name}() got {kw.arg!r} twice", kw.value, "keyword-args")
        args[k] = kw.value
    while args and args[-1] is None:
        args.pop()
    if any(a is None for a in args):
        missing = params[args.index(None)]
        raise chk.error(f"vk.{name}() is missing the argument {missing!r}", node, "arity")
    return args


def _dsl(chk, name: str, args, like) -> ast.Call:
    chk.info.aliases.add(_ALIAS)
    func = ast.Attribute(value=ast.Name(id=_ALIAS, ctx=ast.Load()), attr=name, ctx=ast.Load())
    return _at(ast.Call(func=func, args=list(args), keywords=[]), like)


def _at(node, like):
    for n in ast.walk(node):
        if not hasattr(n, "lineno") or getattr(n, "lineno", None) is None:
            ast.copy_location(n, like)
    return node


def _bin(a, op, b, like):
    return _at(ast.BinOp(left=a, op=op, right=b), like)


def _num(v, like):
    return _at(ast.Constant(v), like)


def _pure(chk, node, what: str, call) -> None:
    for n in ast.walk(node):
        if isinstance(n, ast.Call):
            dsl = chk.info.dsl_name(n.func) or ""
            if dsl.startswith(_SIDE_EFFECTS) or (isinstance(n.func, ast.Name)
                                                 and n.func.id in chk.info.funcs):
                raise chk.error(f"the argument {ast.unparse(node)!r} of {what}() has side "
                                "effects and the builtin uses it more than once", node,
                                "warp-builtin-args", "assign it to a variable first")


def expect_near_test(chk, node: ast.Call) -> ast.AST:
    """The condition `wp.expect_near(a, b, tolerance=1e-6)` asserts: Warp
    reports a failure when `abs(a - b) > tolerance` (per component for
    vectors and quats), so the test is `not (abs(a - b) > tolerance)` (a NaN
    difference passes, as in Warp)."""
    args = positional_args(chk, node, "expect_near")
    if not 2 <= len(args) <= 3:
        raise chk.error("wp.expect_near() takes 2 or 3 arguments", node, "arity")
    a, b = args[0], args[1]
    tol = args[2] if len(args) == 3 else _num(1.0e-6, node)
    t = chk.check_expr(a).type if not chk.is_literal_tree(a) else None
    if t is None and not chk.is_literal_tree(b):
        t = chk.check_expr(b).type
    n = t.length if isinstance(t, VectorType) else 1
    if isinstance(t, MatrixType):
        raise chk.error("wp.expect_near() compares scalars, vectors and quats", node,
                        "type-mismatch")
    if n > 1:
        for x in (a, b, tol):
            _pure(chk, x, "expect_near", node)

    def part(x, k):
        return x if n == 1 else _at(ast.Subscript(value=x, slice=ast.Constant(k),
                                                   ctx=ast.Load()), node)
    test = None
    for k in range(n):
        diff = _dsl(chk, "abs", [_bin(part(a, k), ast.Sub(), part(b, k), node)], node)
        far = _at(ast.Compare(left=diff, ops=[ast.Gt()], comparators=[tol]), node)
        ok = _at(ast.UnaryOp(op=ast.Not(), operand=far), node)
        test = ok if test is None else _at(ast.BoolOp(op=ast.And(), values=[test, ok]), node)
    assert test is not None   # n >= 1 components
    return test


def _strip_static(chk, node):
    """`node` with every nested `wp.static(x)` replaced by `x`."""
    class _Strip(ast.NodeTransformer):
        def visit_Call(self, call):
            self.generic_visit(call)
            if chk.info.dsl_name(call.func) == "static" and len(call.args) == 1 \
                    and not call.keywords:
                return call.args[0]
            return call
    return _Strip().visit(copy.deepcopy(node))


_STATIC_CALLS = ("float", "int", "len", "abs", "min", "max")


def _static_at_run_time(chk, node) -> bool:
    """Warp evaluates `wp.static(expr)` once per unrolled iteration: an
    expression of constants, captured names, the variables of loops over
    constant ranges and `len` of a vector has the same value computed at run
    time, so it may stay an ordinary expression. Anything else (locals,
    arrays, other calls) keeps the `static-not-constant` error."""
    unrolled = {v for v in getattr(chk, "unrollable_loop_vars", ()) if v is not None}
    for n in ast.walk(node):
        if isinstance(n, ast.Call):
            f = n.func
            if not (isinstance(f, ast.Name) and f.id in _STATIC_CALLS) or n.keywords:
                return False
            if f.id == "len":
                arg = n.args[0] if len(n.args) == 1 else None
                if not isinstance(arg, ast.Name):
                    return False
        elif isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
            if n.id in _STATIC_CALLS:
                continue
            if n.id in unrolled or n.id in chk.info.constants or \
                    capture_of(chk, n.id) is not None:
                continue
            if any(isinstance(c, ast.Call) and getattr(c.func, "id", None) == "len"
                   and c.args and c.args[0] is n for c in ast.walk(node)) \
                    and isinstance(chk.check_expr(n).type, (VectorType, MatrixType)):
                continue   # len(v) of a vector variable: a constant of its type
            return False
        elif isinstance(n, (ast.Attribute, ast.Subscript, ast.Lambda, ast.NamedExpr)):
            return False
    return True


def _static_value(chk, expr):
    """The Python value of a `wp.static()` argument read from source, or None:
    a constant the checker knows (a project module's class constant included,
    `vtk_shapes.VTKCellTypes.VTK_POLYHEDRON`), a literal module expression, or
    `int(...)`, `float(...)`, `bool(...)` of one (Python's builtins, when the
    module does not rebind their names), and Python's arithmetic on these."""
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) \
            and expr.func.id in _CONVERSIONS and len(expr.args) == 1 and not expr.keywords \
            and expr.func.id not in chk.info.nonconstant and expr.func.id not in chk.info.constants:
        inner = _static_value(chk, expr.args[0])
        if inner is not None:
            try:
                return _CONVERSIONS[expr.func.id](inner)
            except (ArithmeticError, ValueError):   # int() of an infinity or a NaN
                return None
    folded = _folded(chk, expr)
    if folded is not None:
        return folded
    try:
        v = chk.const_eval(expr)
    except Exception:
        v = None
    if v is None:
        try:
            v = eval_module_constant(expr, chk.info)
        except NotConstant:
            v = None
    return v if isinstance(v, (bool, int, float)) else None


_CONVERSIONS = {"int": int, "float": float, "bool": bool}


def _folded(chk, expr):
    """Python's arithmetic on two `_static_value`s, or None."""
    if isinstance(expr, ast.BinOp) and type(expr.op) in BINOPS:
        a, b = _static_value(chk, expr.left), _static_value(chk, expr.right)
        if a is None or b is None or isinstance(expr.op, ast.Pow) and abs(b) > 256:
            return None
        try:
            return _number(BINOPS[type(expr.op)](a, b))
        except (ArithmeticError, ValueError, TypeError):
            return None
    if isinstance(expr, ast.UnaryOp) and type(expr.op) in UNOPS:
        a = _static_value(chk, expr.operand)
        return None if a is None else _number(UNOPS[type(expr.op)](a))
    return None


def _number(v):
    return v if isinstance(v, (bool, int, float)) else None


def _arity(chk, node, name, args, n):
    if len(args) != n:
        raise chk.error(f"vk.{name}() takes {n} argument(s), got {len(args)}", node, "arity")


def desugar(chk, node: ast.Call, name: str, args: list):
    """The core-language expression a Warp builtin call means (Warp's formula)."""
    if name == "static":
        _arity(chk, node, name, args, 1)
        expr = _strip_static(chk, args[0])
        v = _static_value(chk, expr)
        if isinstance(v, (bool, int, float)):
            return _num(v, node)
        if _static_at_run_time(chk, expr):
            return expr
        raise chk.error("wp.static() needs an expression of compile-time constants",
                        args[0], "static-not-constant",
                        "use literals, module-level constants, captured names and the "
                        "variables of loops over constant ranges only") from None
    if name == "trace":   # the sum of the diagonal of a square matrix
        _arity(chk, node, name, args, 1)
        t = chk.check_expr(args[0]).type
        if not isinstance(t, MatrixType) or t.rows != t.cols:
            raise chk.error(f"wp.trace() needs a square matrix, got {t}", args[0], "type-mismatch")
        _pure(chk, args[0], name, node)
        out = None
        for k in range(t.rows):
            d = _at(ast.Subscript(value=args[0], slice=_at(ast.Tuple(
                elts=[ast.Constant(k), ast.Constant(k)], ctx=ast.Load()), node),
                ctx=ast.Load()), node)
            out = d if out is None else _bin(out, ast.Add(), d, node)
        return out
    if name in ("isnan", "isinf", "isfinite"):   # IEEE: NaN is the one value != itself
        _arity(chk, node, name, args, 1)
        x = args[0]
        t = chk.check_expr(x).type
        if not (isinstance(t, ScalarType) and t.is_float):
            raise chk.error(f"wp.{name}() needs a float, got {t}", x, "type-mismatch")
        _pure(chk, x, name, node)
        nan = _at(ast.Compare(left=x, ops=[ast.NotEq()], comparators=[x]), node)
        inf = _at(ast.Compare(left=_dsl(chk, "abs", [x], node), ops=[ast.Eq()],
                              comparators=[_dsl(chk, "inf", [], node).func]), node)
        if name == "isnan":
            return nan
        if name == "isinf":
            return inf
        return _at(ast.UnaryOp(op=ast.Not(), operand=_at(ast.BoolOp(
            op=ast.Or(), values=[nan, inf]), node)), node)
    if name == "mod":   # Warp: a % b on ints (C), fmod on floats: the `%` of docs/LANGUAGE.md
        _arity(chk, node, name, args, 2)
        return _bin(args[0], ast.Mod(), args[1], node)
    if name == "lerp":  # a*(1-t) + b*t
        _arity(chk, node, name, args, 3)
        a, b, t = args
        _pure(chk, t, name, node)
        return _bin(_bin(a, ast.Mult(), _bin(_num(1.0, node), ast.Sub(), t, node), node),
                    ast.Add(), _bin(b, ast.Mult(), t, node), node)
    if name == "smoothstep":  # t = clamp((x-a)/(b-a), 0, 1); t*t*(3-2t)
        _arity(chk, node, name, args, 3)
        for x in args:
            _pure(chk, x, name, node)
        a, b, x = args
        t = _dsl(chk, "clamp", [_bin(_bin(x, ast.Sub(), a, node), ast.Div(),
                                     _bin(b, ast.Sub(), a, node), node),
                                _num(0.0, node), _num(1.0, node)], node)
        return _bin(_bin(t, ast.Mult(), t, node), ast.Mult(),
                    _bin(_num(3.0, node), ast.Sub(), _bin(_num(2.0, node), ast.Mult(), t, node),
                         node), node)
    if name in ("radians", "degrees"):  # C: float x * a double constant, rounded back
        _arity(chk, node, name, args, 1)
        t = chk.check_expr(args[0]).type
        if t not in (F32, F64):
            raise chk.error(f"wp.{name}() needs a float32 or float64, got {t}", args[0],
                            "type-mismatch", "convert it with float(...)")
        k = _num(_DEG_TO_RAD if name == "radians" else _RAD_TO_DEG, node)
        wide = _bin(_dsl(chk, "float64", [args[0]], node), ast.Mult(), k, node)
        return wide if t == F64 else _dsl(chk, "float32", [wide], node)
    if name == "sign":  # x < T(0) ? T(-1) : T(1), in the type T of x
        _arity(chk, node, name, args, 1)
        _pure(chk, args[0], name, node)
        t = chk.check_expr(args[0]).type
        if not isinstance(t, ScalarType) or t == BOOL:
            raise chk.error(f"wp.sign() on {t}: verikern takes a number here", args[0],
                            "type-mismatch", "apply it to each component")
        test = _at(ast.Compare(left=args[0], ops=[ast.Lt()], comparators=[_num(0, node)]), node)
        return _at(ast.IfExp(test=test, body=_dsl(chk, t.name, [_num(-1, node)], node),
                             orelse=_dsl(chk, t.name, [_num(1, node)], node)), node)
    if name == "quat_rpy":
        _arity(chk, node, name, args, 3)
        for x in args:
            _pure(chk, x, name, node)
        roll, pitch, yaw = args

        def half(fn, angle):
            return _dsl(chk, fn, [_bin(angle, ast.Mult(), _num(0.5, node), node)], node)

        cy, sy = (lambda: half("cos", yaw)), (lambda: half("sin", yaw))
        cr, sr = (lambda: half("cos", roll)), (lambda: half("sin", roll))
        cp, sp = (lambda: half("cos", pitch)), (lambda: half("sin", pitch))

        def prod(f, g, h):
            return _bin(_bin(f(), ast.Mult(), g(), node), ast.Mult(), h(), node)

        w = _bin(prod(cy, cr, cp), ast.Add(), prod(sy, sr, sp), node)
        x = _bin(prod(cy, sr, cp), ast.Sub(), prod(sy, cr, sp), node)
        y = _bin(prod(cy, cr, sp), ast.Add(), prod(sy, sr, cp), node)
        z = _bin(prod(sy, cr, cp), ast.Sub(), prod(cy, sr, sp), node)
        return _dsl(chk, "quat", [x, y, z, w], node)
    return None
