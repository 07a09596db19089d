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
from verikern.hir.types import MatrixType, ScalarType, VectorType, is_transform
from ..scan.annotations import value_type
from ..scan.type_names import SCALAR_ALIASES, value_type_by_name
from .rules import type_cast, type_construct
from .table import (
    BUILTIN_RULES, CONTRACT_ONLY, DESUGARED_BUILTINS, NOISE, PYTHON_BUILTINS, STATEMENT_BUILTINS,
)
from .type_ctors import TYPE_CONSTRUCTORS, check_type_constructor
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
    raise chk.error(f"{text}() is not a builtin or a @vk.func", func, "call-not-allowed",
                    "only verikern builtins and @vk.func functions can be called in kernels")


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


def check_call(chk, node: ast.Call, expected) -> H.Expr:
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
    loc = chk.loc(node)
    args = node.args
    t = SCALAR_ALIASES.get(name) or value_type_by_name(name)
    if is_transform(t) and node.keywords:   # Warp's transformation(p=..., q=...)
        args = transform_args(chk, node)
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
