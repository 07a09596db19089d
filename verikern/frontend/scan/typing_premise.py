"""Typing premises of generic kernels (docs/LANGUAGE.md section 5, "Typing premises"):

    @vk.requires(lambda positions, masses: positions.dtype in (wp.vec3f, wp.vec3d)
                 and masses.dtype == wp.float32)

or, in the body, `vk.requires(positions.dtype == wp.vec3f)`. A premise atom is
`p.dtype == T` or `p.dtype in (T1, T2, ...)` for an array parameter `p` whose
dtype is `Any`; atoms are top-level conjuncts of a requires (joined by `and`
to each other and to ordinary conditions). The premise restricts the
instantiations the kernel is proved for: generic_kernels.py enumerates, for
a pinned parameter, exactly the types it admits (and drops declared
overloads and launch sites outside it); a kernel whose every generic
parameter is pinned has no `kernel[...]` remainder. It is no assumption of
the proof itself: the body checker drops the atoms, so no MIR depends on them.

Invariants:
- an atom is read only from the source (never executed); every type it names
  is a scalar, vector, matrix or quat type `value_type` reads, else an error;
- an atom on a parameter that is not an array of `Any` (a concrete dtype, a
  bare `Any`, a scalar, no parameter at all) is an error naming the atom;
  so is a `.dtype` test anywhere else in a requires (under `or`, `not`, `!=`):
  a premise is never half-read;
- several atoms on one parameter admit the types every one of them admits;
  none left is an error.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass

from verikern.errors import KernelError

from .annotations import is_any, value_type

RULE = "typing-premise"
_HINT = ("write p.dtype == wp.vec3f or p.dtype in (wp.vec3f, wp.vec3d) for an array parameter "
         "p: wp.array(dtype=Any), joined with `and` to the rest of the requires")


@dataclass(frozen=True)
class PremiseAtom:
    """`param.dtype == T` / `param.dtype in (T, ...)`: the types admitted, in written order."""

    param: str
    types: tuple
    node: ast.expr


@dataclass(frozen=True)
class TypingPremise:
    """Every atom of a kernel's requires (decorators first, then the body's)."""

    atoms: tuple[PremiseAtom, ...]

    def pins(self) -> dict[str, tuple]:
        """param -> the element types every atom on it admits (first atom's order)."""
        out: dict[str, tuple] = {}
        for a in self.atoms:
            out[a.param] = tuple(t for t in out[a.param] if t in a.types) if a.param in out else a.types
        return out

    def text(self) -> str:
        return " and ".join(" ".join(ast.unparse(a.node).split()) for a in self.atoms)


def _dtype_of(node: ast.AST) -> str | None:
    """`p` for `p.dtype`, else None."""
    if isinstance(node, ast.Attribute) and node.attr == "dtype" and isinstance(node.value, ast.Name):
        return node.value.id
    return None


def is_atom(node: ast.AST) -> bool:
    """`p.dtype == T` or `p.dtype in (T, ...)` (syntax only)."""
    return (isinstance(node, ast.Compare) and len(node.ops) == 1 and _dtype_of(node.left) is not None
            and (isinstance(node.ops[0], ast.Eq) or (
                isinstance(node.ops[0], ast.In)
                and isinstance(node.comparators[0], (ast.Tuple, ast.List, ast.Set)))))


def split(cond: ast.expr) -> tuple[list[ast.expr], ast.expr | None]:
    """(the premise atoms among `cond`'s top-level conjuncts, the condition left
    without them or None when nothing is left)."""
    parts = cond.values if isinstance(cond, ast.BoolOp) and isinstance(cond.op, ast.And) else [cond]
    atoms = [p for p in parts if is_atom(p)]
    rest = [p for p in parts if not is_atom(p)]
    if not atoms:
        return [], cond
    if not rest:
        return atoms, None
    if len(rest) == 1:
        return atoms, rest[0]
    return atoms, ast.copy_location(ast.BoolOp(op=ast.And(), values=rest), rest[0])


def stray_dtype(node: ast.AST) -> ast.AST | None:
    """A `p.dtype` inside `node` (a condition left after `split`): no premise atom."""
    return next((n for n in ast.walk(node) if _dtype_of(n) is not None), None)


def _is_array_of_any(info, ann) -> bool:
    """An array annotation whose dtype is `Any` (annotations.is_any, spelled as an array)."""
    return isinstance(ann, (ast.Subscript, ast.Call)) and is_any(info, ann)


def read_atom(info, fn: ast.FunctionDef, node: ast.expr) -> PremiseAtom:
    """The atom `node` of kernel `fn`, checked (module docstring); a KernelError naming it."""
    param = _dtype_of(node.left) if isinstance(node, ast.Compare) else None
    if param is None or not isinstance(node, ast.Compare) or not is_atom(node):
        raise info.error("this is no typing premise", node, RULE, _HINT)
    arg = next((a for a in fn.args.args if a.arg == param), None)
    if arg is None:
        raise info.error(f"the typing premise names {param!r}, which is not a parameter of kernel "
                         f"{fn.name!r}", node, RULE, _HINT)
    if not _is_array_of_any(info, arg.annotation):
        what = ("a bare Any parameter (a typing premise pins the dtype of an array of Any)"
                if isinstance(arg.annotation, (ast.Name, ast.Attribute)) and is_any(info, arg.annotation) else
                "not an array of Any: the kernel is not generic in its dtype, so the premise "
                "pins nothing")
        raise info.error(f"the typing premise names {param!r} of kernel {fn.name!r}, {what}", node, RULE,
                         "state a typing premise only on parameters annotated wp.array(dtype=Any), "
                         "and drop this one")
    written = node.comparators[0]
    elts = written.elts if isinstance(written, (ast.Tuple, ast.List, ast.Set)) else [written]
    types = []
    for e in elts:
        t = value_type(info, e)
        if t is None:
            raise info.error(f"{ast.unparse(e)} in the typing premise is not a Warp scalar, vector, "
                             "matrix or quat type", e, RULE, "name types such as wp.vec3f or wp.float64")
        if t not in types:
            types.append(t)
    if not types:
        raise info.error("the typing premise admits no type", node, RULE, _HINT)
    return PremiseAtom(param, tuple(types), node)


def premise_conditions(info, d) -> list[ast.expr]:
    """The conditions of kernel `d`'s requires: its decorators' lambda bodies, then
    the leading in-body `vk.requires(cond)` statements (docstring skipped)."""
    out: list[ast.expr] = []
    for dec in d.requires:
        if len(dec.args) == 1 and isinstance(dec.args[0], ast.Lambda):
            out.append(dec.args[0].body)
    for i, s in enumerate(d.node.body):
        if i == 0 and isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant) \
                and isinstance(s.value.value, str):
            continue
        if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Call)
                and info.dsl_name(s.value.func) == "requires"):
            break
        if len(s.value.args) == 1:
            out.append(s.value.args[0])
    return out


def read_premise(info, d) -> TypingPremise | None:
    """Kernel `d`'s typing premise, None when it states none; a KernelError
    for a bad atom or atoms on one parameter that admit no common type."""
    atoms = []
    for cond in premise_conditions(info, d):
        found, rest = split(cond)
        stray = stray_dtype(rest) if rest is not None else None
        if stray is not None:
            raise premise_error(info, stray)
        atoms += [read_atom(info, d.node, a) for a in found]
    if not atoms:
        return None
    premise = TypingPremise(tuple(atoms))
    for param, types in premise.pins().items():
        if not types:
            first = next(a for a in atoms if a.param == param)
            raise info.error(f"the typing premise admits no dtype of {param!r} (its atoms exclude "
                             "each other)", first.node, RULE, "keep one atom per parameter")
    return premise


def premise_error(info, node: ast.AST) -> KernelError:
    """A `.dtype` test that is no top-level premise atom."""
    return info.error("a typing premise must be a top-level conjunct of a requires "
                      "(p.dtype == T or p.dtype in (T, ...)), never under or / not / a comparison "
                      "other than == and in", node, RULE, _HINT)
