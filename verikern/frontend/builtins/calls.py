"""Builtin calls inside kernels: resolution of the callee, then the typing
rule table.py gives the builtin (docs/LANGUAGE.md sections 2-5).

Invariant: a call is either a builtin of table.py with a typing rule, one
rewritten into core calls first (DESUGARED), a cast to a scalar type, a
vector/matrix constructor, or a @vk.func; anything else is a
`call-not-allowed` KernelError. Statement-only builtins (sync_threads,
block_until, requires, invariant) are rejected here and handled by the
statement checker.
"""
from __future__ import annotations

import ast

from verikern.hir import nodes as H
from verikern.hir.types import ArrayType, MatrixType, ScalarType, VectorType, is_transform
from ..scan.annotations import value_type
from ..scan.name_origins import explain
from ..scan.class_funcs import qualified_func
from ..scan.type_names import SCALAR_ALIASES, value_type_by_name
from .rules import type_cast, type_construct
from .table import (
    BUILTIN_RULES, CONTRACT_ONLY, DESUGARED_BUILTINS, NOISE, PYTHON_BUILTINS, STATEMENT_BUILTINS,
    outside_construct,
)
from .type_ctors import TYPE_CONSTRUCTORS, check_type_constructor, typed_ctor_args
from .warp import desugar, positional_args


def callee_name(chk, func: ast.AST) -> tuple[str, str]:
    """('builtin'|'func', name) for a call target, or a KernelError."""
    dsl = chk.info.dsl_name(func)
    if dsl is not None:
        return "builtin", dsl
    if isinstance(func, ast.Name):
        n = func.id
        if n in chk.local_names or n in chk.arrays:
            raise chk.error(f"{n!r} is a variable, not a function", func, "call-not-allowed")
        if n in chk.info.type_aliases:
            return "type", n
        if n in chk.info.funcs:
            if n in chk.info.ambiguous_funcs:
                raise chk.error(f"several functions of this file define a func named {n!r}; "
                                "verikern cannot tell which one this call means", func,
                                "ambiguous-func", "give each func its own name")
            return "func", n
        if n in PYTHON_BUILTINS:
            return "builtin", PYTHON_BUILTINS[n]
        if n in ("print", "range"):
            raise chk.error(f"{n}() cannot be called here", func, "call-not-allowed",
                            "range() is allowed only as `for v in range(...)`")
        if any(d.node.name == n for d in chk.info.kernels):
            raise chk.error(f"a kernel cannot call the kernel {n!r}", func, "call-not-allowed",
                            "make the shared code a @vk.func")
        if n in chk.info.import_notes:    # a project func verikern could not take (scan/project.py)
            raise chk.error(f"{n}() {chk.info.import_notes[n]}", func, "imported-func",
                            "import the names the func reads too, or bind them to the same "
                            "values in this file")
    text = ast.unparse(func)
    qualified = qualified_func(chk, func)
    if qualified is not None:     # `m.f`, `C.f`, `m.C.f` (scan/class_funcs.py)
        return "func", qualified
    why = explain(chk.info, func)    # `Library.get_num_faces()`, `Library` computed at import
    if why is not None:
        raise chk.error(f"{text}() is not a builtin or a @vk.func verikern can read: {why}", func,
                        "call-not-allowed", "call a module-level @wp.func (defined in the project, "
                        "read from its source) instead of one reached through a value the module "
                        "computes")
    raise chk.error(f"{text}() is not a builtin or a @vk.func", func, "call-not-allowed",
                    "only verikern builtins and @vk.func functions can be called in kernels")


def outside_language_error(error, node: ast.Call, name: str, construct: str):
    """The located error of `node`, a call of Warp's builtin `name` of a construct
    outside the language (`error`: a checker's or a module's `error`)."""
    return error(f"wp.{name}() uses {construct}, which are outside verikern's language "
                 "(docs/LANGUAGE.md section 2)", node.func, "outside-language",
                 "verikern cannot prove this kernel; keep it out of `verikern prove` "
                 "or rewrite it over arrays")


def transform_args(chk, node: ast.Call) -> list:
    """`wp.transform(p=..., q=...)` (p may be positional): [p, q]."""
    given = dict(zip(("p", "q"), node.args))
    for k in node.keywords:
        if k.arg not in ("p", "q") or k.arg in given or len(node.args) > 2:
            raise chk.error(f"wp.transform() takes p and q, got {k.arg!r}", k.value or node,
                            "keyword-args")
        given[k.arg] = k.value
    for part in ("p", "q"):
        if part not in given:
            raise chk.error(f"wp.transform() needs {part} when the other part is a keyword",
                            node, "arity", "pass both p and q")
    return [given["p"], given["q"]]


#: the HIR of an operand whose type `type(e)` takes without evaluating it: evaluating it reads
#: no memory, calls nothing and cannot trap, so leaving it out changes nothing (any other
#: operand is evaluated where Warp evaluates it, operand_type)
_TYPE_OPERANDS = (H.Literal, H.LocalRef, H.ArrayRefExpr, H.ShapeExpr, H.ComponentExpr, H.CastExpr)


def _pure(e) -> bool:
    if not isinstance(e, _TYPE_OPERANDS):
        return False
    if isinstance(e, H.ComponentExpr):
        return _pure(e.value)
    if isinstance(e, H.CastExpr):
        return _pure(e.operand)
    return True


def _load(e) -> bool:
    """An array element (or a component of one) at pure indices: evaluated for its load."""
    if isinstance(e, H.ComponentExpr):
        return _load(e.value)
    return isinstance(e, H.IndexExpr) and all(_arith(i) for i in e.indices)


def _arith(e) -> bool:
    """`_pure`, or + - * and negation of such (which wrap, never trap)."""
    if isinstance(e, H.BinaryExpr) and e.op in ("add", "sub", "mul"):
        return _arith(e.lhs) and _arith(e.rhs)
    if isinstance(e, H.UnaryExpr) and e.op in ("neg", "-", "usub"):
        return _arith(e.operand)
    return _pure(e)


def operand_type(chk, func: ast.AST):
    """The type a call target `type(e)` or `x.dtype` names (Warp resolves both when
    it compiles: `type(mass)(0.0)` is a float64 zero for a float64 `mass`; `x.dtype`
    is an array's element type, a vector's or matrix's component type, a scalar's
    own type), or None for any other target; and the operand of `type(e)` to
    evaluate in place (H.EffectThen): a load Warp evaluates only under a condition,
    or an operand that is no variable, component or load (see below), else None."""
    if isinstance(func, ast.Call) and isinstance(func.func, ast.Name) and func.func.id == "type" \
            and "type" not in chk.local_names and "type" not in chk.info.nonconstant \
            and "type" not in chk.info.funcs:
        if len(func.args) != 1 or func.keywords:
            raise chk.error("type() takes one argument", func, "arity")
        e = chk.check_expr(func.args[0], None)
        deferred = None
        if _load(e):
            # Warp evaluates the operand: `a[i]` is only an address (wp::address, its index
            # checked in debug builds, nothing read); `a[i][k]` and `a[i].x` load the element.
            # Before the statement, unless Warp evaluates it only under a condition (the right
            # of and/or, a branch of a conditional expression) or again and again (a while
            # test): there it stays in place (H.EffectThen, check_call)
            if chk.effects is None or id(func) in chk.conditional_calls:
                deferred = e
            else:
                chk.effects.append(H.ExprStmt(e, chk.loc(func.args[0]),
                                              address_only=isinstance(e, H.IndexExpr)))
        elif not _pure(e):
            # any other operand (`type(wp.outer(x, x))`, a func's result, a quotient):
            # Warp emits it as it emits any expression, right before the call's arguments,
            # and takes its static type; it is evaluated there (H.EffectThen), its traps
            # and effects included, and its value unused
            if not isinstance(e.type, (ScalarType, VectorType, MatrixType, ArrayType)):
                what = "a call that returns no value" if e.type is None else f"a {e.type}"
                raise chk.error(f"type({ast.unparse(func.args[0])}) of {what}: Warp cannot deduce "
                                "a type to call from it either", func.args[0], "type-of",
                                "take the type of a scalar, vector or matrix value")
            deferred = e
        if isinstance(e.type, ArrayType):
            raise chk.error("type() of an array cannot be called: it is no value type", func,
                            "type-constructor", "write a.dtype(...) for the element type")
        return e.type, deferred
    if isinstance(func, ast.Attribute) and func.attr == "dtype" and isinstance(func.value, ast.Name) \
            and (func.value.id in chk.local_names or func.value.id in chk.arrays):
        t = chk.check_expr(func.value, None).type
        return (t.dtype if isinstance(t, (ArrayType, VectorType, MatrixType)) else t), None
    return None, None


def check_call(chk, node: ast.Call, expected) -> H.Expr:
    named, deferred = operand_type(chk, node.func)
    if deferred is not None and isinstance(named, (ScalarType, VectorType, MatrixType)):
        made = type_cast(chk, node, named, node.args) if isinstance(named, ScalarType) \
            else type_construct(chk, node, named, node.args)
        assert made.type is not None      # a conversion or construction has its type
        return H.EffectThen(deferred, isinstance(deferred, H.IndexExpr), made, made.type, chk.loc(node))
    if isinstance(named, ScalarType):
        return type_cast(chk, node, named, node.args)
    if isinstance(named, (VectorType, MatrixType)):
        return type_construct(chk, node, named, node.args)
    if named is not None:
        raise chk.error(f"{ast.unparse(node.func)} is {named}, which cannot be constructed", node.func,
                        "type-constructor")
    kind, name = callee_name(chk, node.func)
    if kind == "func":
        return chk.check_func_call(node, name)
    if kind == "type":   # a module-level type alias used as a constructor or cast
        t = value_type(chk.info, node.func)
        return type_cast(chk, node, t, node.args) if isinstance(t, ScalarType) else \
            type_construct(chk, node, t, node.args)
    if name in STATEMENT_BUILTINS:
        raise chk.error(f"vk.{name}() is a statement, not a value", node, "statement-only",
                        f"call vk.{name}(...) on its own line")
    if name in CONTRACT_ONLY:
        raise chk.error(f"vk.{name}() is allowed only inside vk.requires(...)", node,
                        "contract-position")
    if name == "shared.array":
        raise chk.error("vk.shared.array(...) must be assigned to a variable: "
                        "`s = vk.shared.array(shape=..., dtype=...)`", node, "shared-decl")
    if any(isinstance(a, ast.Starred) for a in node.args):
        raise chk.error("*args are not allowed in kernels", node, "varargs",
                        "pass each argument explicitly")
    if name in TYPE_CONSTRUCTORS:
        return check_type_constructor(chk, node, name)
    outside = outside_construct(name)
    if outside is not None:
        raise outside_language_error(chk.error, node, name, outside)
    loc = chk.loc(node)
    args = node.args
    t = SCALAR_ALIASES.get(name) or value_type_by_name(name)
    if is_transform(t) and node.keywords:   # Warp's transformation(p=..., q=...)
        args = transform_args(chk, node)
    elif isinstance(t, (VectorType, MatrixType)) and node.keywords:   # `wp.vec3i(..., dtype=wp.int32)`
        args = typed_ctor_args(chk, node, t)
    elif name != "launch_dim":
        args = positional_args(chk, node, name)
    if name in DESUGARED_BUILTINS:
        return chk.check_expr(desugar(chk, node, name, args), expected)
    if isinstance(t, ScalarType):
        return type_cast(chk, node, t, args)
    if isinstance(t, (VectorType, MatrixType)):
        return type_construct(chk, node, t, args)
    rule = BUILTIN_RULES.get(name)
    if rule is None and name in NOISE:
        raise chk.error(
            f"wp.{name}() is not supported: Warp documents its values as implementation-"
            "defined (they differ between Warp's CPU and CUDA backends and between Warp "
            "versions), so verikern cannot give it one meaning on every device", node.func,
            "warp-noise", "compute the noise outside the kernel (numpy, or a separate Warp "
            "kernel) and pass it in an array")
    if rule is None:
        raise chk.error(f"vk.{name} is not a verikern builtin", node.func, "call-not-allowed",
                        "see docs/LANGUAGE.md section 4 for the builtins")
    return rule(chk, node, name, args, expected, loc)
