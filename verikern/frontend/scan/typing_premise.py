"""Typing premises of generic kernels (docs/LANGUAGE.md section 5, "Typing premises"):

    @vk.requires(lambda positions, masses: positions.dtype in (wp.vec3f, wp.vec3d)
                 and masses.dtype == wp.float32)

or, in the body, `vk.requires(positions.dtype == wp.vec3f)`. A premise atom is
`p.dtype == T` or `p.dtype in (T1, T2, ...)` for an array parameter `p` whose
dtype is `Any`, or a joint atom `(p.dtype, q.dtype) in ((T1, U1), (T2, U2))`
that admits the listed rows only (a kernel launched with float32 positions
and charges or float64 ones, never mixed); atoms are top-level conjuncts of a
requires (joined by `and` to each other and to ordinary conditions). The premise restricts the
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
  none left is an error; a joint atom admits a typing only when its row is
  listed, and its rows that another atom excludes are dropped (none left is an
  error): `admits` and `pinned_rows` agree with `pins`.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass

from verikern.errors import KernelError

from .annotations import is_any, value_type

RULE = "typing-premise"
_HINT = ("write p.dtype == wp.vec3f or p.dtype in (wp.vec3f, wp.vec3d) for an array parameter "
         "p: wp.array(dtype=Any), or (p.dtype, q.dtype) in ((wp.vec3f, wp.float32), (wp.vec3d, "
         "wp.float64)) for several, joined with `and` to the rest of the requires")


@dataclass(frozen=True)
class PremiseAtom:
    """`param.dtype == T` / `param.dtype in (T, ...)`: the types admitted, in written order."""

    param: str
    types: tuple
    node: ast.expr


@dataclass(frozen=True)
class JointAtom:
    """`(p.dtype, q.dtype, ...) in ((T1, U1, ...), ...)`: the rows admitted, each a type per
    parameter (in `params` order), in written order, without repeats."""

    params: tuple[str, ...]
    rows: tuple[tuple, ...]
    node: ast.expr


@dataclass(frozen=True)
class TypingPremise:
    """Every atom of a kernel's requires (decorators first, then the body's)."""

    atoms: tuple[PremiseAtom | JointAtom, ...]

    def pins(self) -> dict[str, tuple]:
        """param -> the element types every atom on it admits (first atom's order); a joint
        atom admits, for each of its parameters, the types of its rows."""
        out: dict[str, tuple] = {}
        for a in self.atoms:
            for param, types in _per_param(a):
                out[param] = tuple(t for t in out[param] if t in types) if param in out else types
        return out

    def joint(self) -> tuple[JointAtom, ...]:
        return tuple(a for a in self.atoms if isinstance(a, JointAtom))

    def admits(self, typing: dict) -> bool:
        """Whether the typing (param -> element type; parameters missing from it are not
        constrained) is admitted by every atom."""
        pins = self.pins()
        if any(p in typing and typing[p] not in ts for p, ts in pins.items()):
            return False
        return all(tuple(typing[p] for p in a.params) in a.rows
                   for a in self.joint() if all(p in typing for p in a.params))

    def pinned_rows(self) -> list[dict]:
        """Every typing of the parameters the premise pins that it admits (param -> element
        type), in the order of the atoms' types and rows: the joint atoms' rows joined where
        they share parameters, then every other pinned parameter's types."""
        pins = self.pins()
        partial: list[dict] = [{}]
        for a in self.joint():
            partial = [{**done, **row} for done in partial for row in (dict(zip(a.params, r)) for r in a.rows)
                       if all(done.get(p, t) == t and t in pins[p] for p, t in row.items())]
        free = [p for p in pins if not any(p in a.params for a in self.joint())]
        out = partial
        for p in free:
            out = [{**done, p: t} for done in out for t in pins[p]]
        return out

    def text(self) -> str:
        return " and ".join(" ".join(ast.unparse(a.node).split()) for a in self.atoms)


def _per_param(atom) -> list[tuple[str, tuple]]:
    """(param, the types the atom admits for it) for each parameter the atom names."""
    if isinstance(atom, PremiseAtom):
        return [(atom.param, atom.types)]
    return [(p, tuple(dict.fromkeys(r[k] for r in atom.rows))) for k, p in enumerate(atom.params)]


def _dtype_of(node: ast.AST) -> str | None:
    """`p` for `p.dtype`, else None."""
    if isinstance(node, ast.Attribute) and node.attr == "dtype" and isinstance(node.value, ast.Name):
        return node.value.id
    return None


def _is_joint(node: ast.AST) -> bool:
    """`(p.dtype, q.dtype, ...) in (...)` (syntax only: the rows are read by read_atom)."""
    return (isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], ast.In)
            and isinstance(node.left, ast.Tuple) and len(node.left.elts) >= 2
            and all(_dtype_of(e) is not None for e in node.left.elts)
            and isinstance(node.comparators[0], (ast.Tuple, ast.List, ast.Set)))


def is_atom(node: ast.AST) -> bool:
    """`p.dtype == T`, `p.dtype in (T, ...)` or `(p.dtype, q.dtype) in ((T, U), ...)` (syntax only)."""
    return _is_joint(node) or (
        isinstance(node, ast.Compare) and len(node.ops) == 1 and _dtype_of(node.left) is not None
        and (isinstance(node.ops[0], ast.Eq) or (
            isinstance(node.ops[0], ast.In)
            and isinstance(node.comparators[0], (ast.Tuple, ast.List, ast.Set)))))


def dtype_nodes(atom: ast.expr) -> list[ast.expr]:
    """The `p.dtype` nodes of a premise atom (one, or a joint atom's each)."""
    left = atom.left if isinstance(atom, ast.Compare) else None
    return list(left.elts) if isinstance(left, ast.Tuple) else [left] if left is not None else []


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


def read_atom(info, fn: ast.FunctionDef, node: ast.expr) -> PremiseAtom | JointAtom:
    """The atom `node` of kernel `fn`, checked (module docstring); a KernelError naming it."""
    if _is_joint(node):
        return _read_joint(info, fn, node)
    param = _dtype_of(node.left) if isinstance(node, ast.Compare) else None
    if param is None or not isinstance(node, ast.Compare) or not is_atom(node):
        raise info.error("this is no typing premise", node, RULE, _HINT)
    _check_param(info, fn, param, node)
    written = node.comparators[0]
    elts = written.elts if isinstance(written, (ast.Tuple, ast.List, ast.Set)) else [written]
    types = []
    for e in elts:
        t = _type_named(info, e)
        if t not in types:
            types.append(t)
    if not types:
        raise info.error("the typing premise admits no type", node, RULE, _HINT)
    return PremiseAtom(param, tuple(types), node)


def _type_named(info, e: ast.expr):
    t = value_type(info, e)
    if t is None:
        raise info.error(f"{ast.unparse(e)} in the typing premise is not a Warp scalar, vector, "
                         "matrix or quat type", e, RULE, "name types such as wp.vec3f or wp.float64")
    return t


def _read_joint(info, fn: ast.FunctionDef, node: ast.expr) -> JointAtom:
    """A joint atom: distinct parameters, each an array of `Any`, and rows of one type each."""
    assert isinstance(node, ast.Compare) and isinstance(node.left, ast.Tuple)     # _is_joint
    left = node.left
    params = tuple(_dtype_of(e) or "" for e in left.elts)          # _is_joint: every one a `p.dtype`
    for p in params:
        _check_param(info, fn, p, node)
    if len(set(params)) != len(params):
        raise info.error("a joint typing premise names a parameter twice", node, RULE,
                         "name each parameter once in (p.dtype, q.dtype, ...)")
    rows: list[tuple] = []
    written = node.comparators[0]
    for row in written.elts if isinstance(written, (ast.Tuple, ast.List, ast.Set)) else ():
        if not isinstance(row, (ast.Tuple, ast.List)) or len(row.elts) != len(params):
            raise info.error(f"each row of a joint typing premise is a tuple of {len(params)} types, one per "
                             f"parameter of ({', '.join(p + '.dtype' for p in params)})", row, RULE,
                             "write ((wp.vec3f, wp.float32), (wp.vec3d, wp.float64)) for two parameters")
        types = tuple(_type_named(info, e) for e in row.elts)
        if types not in rows:
            rows.append(types)
    if not rows:
        raise info.error("the typing premise admits no type", node, RULE, _HINT)
    return JointAtom(params, tuple(rows), node)


def _check_param(info, fn: ast.FunctionDef, param: str, node: ast.expr) -> None:
    """`param` is an array-of-`Any` parameter of `fn`, else a KernelError naming the atom."""
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
            first = next(a for a in atoms if any(p == param for p, _ in _per_param(a)))
            raise info.error(f"the typing premise admits no dtype of {param!r} (its atoms exclude "
                             "each other)", first.node, RULE, "keep one atom per parameter")
    if premise.joint() and not premise.pinned_rows():
        raise info.error("the typing premise admits no typing (its atoms exclude each other's rows)",
                         premise.joint()[0].node, RULE, "keep one atom per parameter")
    return premise


def premise_error(info, node: ast.AST) -> KernelError:
    """A `.dtype` test that is no top-level premise atom."""
    return info.error("a typing premise must be a top-level conjunct of a requires "
                      "(p.dtype == T, p.dtype in (T, ...) or (p.dtype, q.dtype) in ((T, U), ...)), never "
                      "under or / not / a comparison other than == and in", node, RULE, _HINT)
