"""Independent groups of a generic kernel's parameters, so that the typings
Warp can create are found without trying the whole cross product
(generic_kernels.py).

Two generic parameters are in one group when a chain of statements links
them: each simple statement links every generic parameter and every local
whose type can depend on one (`_typed_by`) that it names, an `if`/`while` its test's names, a `for` its target's and
iterable's names, a contract (`vk.requires`, in the body or a decorator) its
names. Module-level names (constants, funcs, the DSL alias) link nothing.

Invariant (what makes the factorised search exact): the checker accepts or
refuses each statement from the types of the names in it, and a local's type
comes from the statements that bind it, which name it (a local no generic
type reaches has the same type in every typing); so every rule a
typing must satisfy involves the names of one group only, and a typing
type-checks exactly when each group's part does with the other groups' parts
held at any typing that type-checks. Linking more than needed (a local name
reused for unrelated values) only makes groups bigger, never wrong.
"""
from __future__ import annotations

import ast


class _Links:
    def __init__(self, names: set[str]):
        self.names = names
        self.parent = {n: n for n in names}

    def find(self, n: str) -> str:
        while self.parent[n] != n:
            self.parent[n] = self.parent[self.parent[n]]
            n = self.parent[n]
        return n

    def link(self, nodes) -> None:
        found = sorted({n.id for node in nodes if node is not None for n in ast.walk(node)
                        if isinstance(n, ast.Name) and n.id in self.names})
        for other in found[1:]:
            self.parent[self.find(other)] = self.find(found[0])


def _statements(links: _Links, body: list) -> None:
    for s in body:
        if isinstance(s, (ast.If, ast.While)):
            links.link([s.test])
            _statements(links, s.body)
            _statements(links, s.orelse)
        elif isinstance(s, ast.For):
            links.link([s.target, s.iter])
            _statements(links, s.body)
            _statements(links, s.orelse)
        elif isinstance(s, ast.With):
            links.link([i.context_expr for i in s.items] + [i.optional_vars for i in s.items])
            _statements(links, s.body)
        elif isinstance(s, ast.Try):
            links.link([s])        # not kernel code: one unit, never split
        else:
            links.link([s])


def _names(node: ast.AST | None) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)} if node is not None else set()


def _bound(target: ast.AST | None) -> set[str]:
    """The names a target rebinds (`x`, `x, y`), not those it only reads (`a[i] = ...`)."""
    return {n.id for n in ast.walk(target) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)} \
        if target is not None else set()


def _typed_by(fn: ast.FunctionDef, generic: set[str]) -> set[str]:
    """The locals whose type can depend on the generic parameters' types: bound
    (assigned, augmented, a loop target, walrus) from an expression naming a
    generic parameter or such a local. Any other local has one type in every
    typing, so it links nothing."""
    binds: list[tuple[set[str], set[str]]] = []      # (names bound, names read)
    for n in ast.walk(fn):
        if isinstance(n, ast.Assign):
            binds.append((set().union(*map(_bound, n.targets)), _names(n.value)))
        elif isinstance(n, (ast.AugAssign, ast.AnnAssign)):
            binds.append((_bound(n.target), _names(n.value) | _names(n.target)))
        elif isinstance(n, ast.For):
            binds.append((_bound(n.target), _names(n.iter)))
        elif isinstance(n, ast.NamedExpr):
            binds.append((_bound(n.target), _names(n.value)))
        elif isinstance(n, ast.withitem) and n.optional_vars is not None:
            binds.append((_bound(n.optional_vars), _names(n.context_expr)))
    typed: set[str] = set()
    changed = True
    while changed:
        changed = False
        for bound, read in binds:
            if read & (generic | typed) and not bound <= typed:
                typed |= bound
                changed = True
    return typed - generic


def parameter_groups(fn: ast.FunctionDef, generic: list[str], contracts=()) -> list[list[str]]:
    """The generic parameters `generic` of kernel `fn` in independent groups
    (module docstring), each in parameter order, groups in order of their
    first parameter. `contracts`: the kernel's `@vk.requires(...)` decorator calls."""
    links = _Links(set(generic) | _typed_by(fn, set(generic)))
    _statements(links, fn.body)
    for call in contracts:
        links.link([call])
    groups: dict[str, list[str]] = {}
    for p in generic:
        groups.setdefault(links.find(p), []).append(p)
    return list(groups.values())
