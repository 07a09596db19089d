"""Source mutants of kernel files, for checking that the prover catches bugs.

Each mutant is the kernel file with ONE small, typical GPU bug injected into
a `@kernel` or `@func` body (ast-based, printed back with `ast.unparse`):

- `drop-barrier`: a `sync_threads()` call removed;
- `guard-bound`: a guard comparison's bound (an `if`/`while` test) off by
  one in the direction that admits one more thread (`i < n` -> `i < n + 1`,
  `if i >= n: return` -> `if i >= n + 1: return`), or a `range` stop + 1;
- `index-shift`: an array index shifted by one (`a[i]` -> `a[i + 1]`,
  `a[i - 1]` -> `a[i - 2]`);
- `lt-to-le`: a strict/non-strict swap that admits the boundary value
  (`<` -> `<=`, `>` -> `>=`; in an early-exit test `>=` -> `>`, `<=` -> `<`);
- `atomic-to-plain`: an atomic add/sub (`a[i] += v`, `vk.atomic_add(a, i, v)`)
  turned into a plain read-modify-write (`a[i] = a[i] + v`);
- `drop-requires`: a `vk.requires(...)` precondition removed.

Invariant: a mutant differs from the original in exactly the one place its
`loc` names (line/col of the ORIGINAL source); generation is deterministic.
"""
from __future__ import annotations

import ast
import copy
from dataclasses import dataclass
from typing import Callable, Iterator

from verikern.mir.nodes import SourceLoc

KINDS = ("drop-barrier", "guard-bound", "index-shift", "lt-to-le", "atomic-to-plain", "drop-requires")
_DECORATORS = {"kernel", "func"}
_ATOMIC_RMW = {"atomic_add": ast.Add, "atomic_sub": ast.Sub}


@dataclass(frozen=True)
class Mutant:
    """One mutated version of a file: `kind` (one of KINDS), `loc` (where in
    the original source), `description` (what changed), `kernel` (the
    function it is in) and the whole mutated `source`."""

    kind: str
    loc: SourceLoc
    description: str
    kernel: str
    source: str

    @property
    def ident(self) -> str:
        """A stable id: `<kind>@<line>:<col>`."""
        return f"{self.kind}@{self.loc.line}:{self.loc.col}"


# ------------------------------------------------------------------ sites
def _decorator_name(dec: ast.expr) -> str | None:
    if isinstance(dec, ast.Call):
        dec = dec.func
    if isinstance(dec, ast.Attribute):
        return dec.attr
    if isinstance(dec, ast.Name):
        return dec.id
    return None


def _kernel_functions(tree: ast.Module) -> list[ast.FunctionDef]:
    return [n for n in tree.body if isinstance(n, ast.FunctionDef)
            and any(_decorator_name(d) in _DECORATORS for d in n.decorator_list)]


def _call_name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Call):
        f = node.func
        if isinstance(f, ast.Attribute):
            return f.attr
        if isinstance(f, ast.Name):
            return f.id
    return None


def _is_call_stmt(stmt: ast.stmt, name: str) -> bool:
    return isinstance(stmt, ast.Expr) and _call_name(stmt.value) == name


_EXITS = (ast.Return, ast.Continue, ast.Break)


def _compares_with_polarity(test: ast.expr, positive: bool) -> Iterator[tuple[ast.Compare, bool]]:
    """Compare nodes in a test, each with True when making it true lets MORE
    threads reach the guarded code (`not` flips; `and`/`or` keep)."""
    if isinstance(test, ast.Compare):
        yield test, positive
    elif isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        yield from _compares_with_polarity(test.operand, not positive)
    elif isinstance(test, ast.BoolOp):
        for v in test.values:
            yield from _compares_with_polarity(v, positive)


def _guard_compares(fn: ast.FunctionDef) -> Iterator[tuple[ast.Compare, bool]]:
    """Compare nodes of `if` / `while` / conditional-expression tests with
    their polarity: an `if` whose body ends in return/break/continue (and has
    no else) guards the code AFTER it, so its test is negative."""
    for node in ast.walk(fn):
        if isinstance(node, ast.If):
            exits = bool(node.body) and isinstance(node.body[-1], _EXITS) and not node.orelse
            yield from _compares_with_polarity(node.test, not exits)
        elif isinstance(node, (ast.While, ast.IfExp)):
            yield from _compares_with_polarity(node.test, True)


def _is_array_subscript(node: ast.AST) -> bool:
    """`name[index]` with a non-constant index (constant indices are mostly
    vector components, e.g. `v[0]`)."""
    if not (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name)):
        return False
    sl = node.slice
    if isinstance(sl, ast.Tuple):
        return any(not isinstance(e, ast.Constant) for e in sl.elts)
    return not isinstance(sl, ast.Constant)


def _shift(expr: ast.expr, delta: int) -> ast.expr:
    """`expr + delta` (folded into an int constant or a trailing `+ c`/`- c`)."""
    if isinstance(expr, ast.Constant) and isinstance(expr.value, int) and not isinstance(expr.value, bool):
        return ast.Constant(expr.value + delta)
    if (isinstance(expr, ast.BinOp) and isinstance(expr.op, (ast.Add, ast.Sub))
            and isinstance(expr.right, ast.Constant) and isinstance(expr.right.value, int)):
        c = expr.right.value if isinstance(expr.op, ast.Add) else -expr.right.value
        c += delta
        if c == 0:
            return copy.deepcopy(expr.left)
        return ast.BinOp(left=copy.deepcopy(expr.left), op=ast.Add() if c > 0 else ast.Sub(),
                         right=ast.Constant(abs(c)))
    return ast.BinOp(left=copy.deepcopy(expr), op=ast.Add() if delta > 0 else ast.Sub(),
                     right=ast.Constant(abs(delta)))


def _plus_one(expr: ast.expr) -> ast.expr:
    return _shift(expr, 1)


def _index_shift(expr: ast.expr) -> ast.expr:
    """One element further from the middle: `i - c` -> `i - c - 1`, else `+ 1`."""
    down = (isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Sub)
            and isinstance(expr.right, ast.Constant))
    return _shift(expr, -1 if down else 1)


# Each site finder yields (node, description, apply) for one kind, in a
# deterministic walk order; `apply` mutates the (copied) tree in place.
Site = tuple[ast.AST, str, Callable[[], None]]


def _drop_stmt_sites(fn: ast.FunctionDef, call: str, what: str) -> Iterator[Site]:
    for node in ast.walk(fn):
        for field_name in ("body", "orelse"):
            stmts = getattr(node, field_name, None)
            if not isinstance(stmts, list):
                continue
            for i, stmt in enumerate(stmts):
                if isinstance(stmt, ast.stmt) and _is_call_stmt(stmt, call):
                    def apply(stmts=stmts, i=i, stmt=stmt):
                        stmts[i] = ast.copy_location(ast.Pass(), stmt)
                    yield stmt, f"removed {what}", apply


def _sites_drop_barrier(fn):
    yield from _drop_stmt_sites(fn, "sync_threads", "sync_threads()")


def _sites_drop_requires(fn):
    yield from _drop_stmt_sites(fn, "requires", "a requires(...) precondition")


def _sites_guard_bound(fn):
    """Off by one in the direction that lets one more thread/iteration in:
    the right side of `a < b` grows, of `a > b` shrinks (reversed for a
    negative test such as `if i >= n: return`)."""
    for cmp, positive in _guard_compares(fn):
        op = cmp.ops[-1]
        if not isinstance(op, (ast.Lt, ast.LtE, ast.Gt, ast.GtE)):
            continue
        grows = isinstance(op, (ast.Lt, ast.LtE)) == positive
        bound = cmp.comparators[-1]
        new = _shift(bound, 1 if grows else -1)

        def apply(cmp=cmp, new=new):
            cmp.comparators[-1] = new
        yield bound, f"guard bound {ast.unparse(bound)} -> {ast.unparse(new)} in {ast.unparse(cmp)}", apply
    for node in ast.walk(fn):
        if isinstance(node, ast.For) and _call_name(node.iter) == "range" and node.iter.args:
            args = node.iter.args
            stop_at = 0 if len(args) == 1 else 1
            stop = args[stop_at]

            def apply(args=args, stop_at=stop_at, stop=stop):
                args[stop_at] = _plus_one(stop)
            yield stop, f"range stop {ast.unparse(stop)} -> {ast.unparse(_plus_one(stop))}", apply


_TEXT = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">="}
# strict <-> non-strict, in the direction that admits the boundary value:
# for a positive test `<` -> `<=` and `>` -> `>=`; for a negative one
# (`if i >= n: return`) `>=` -> `>` and `<=` -> `<`.
_WEAKEN = {True: {ast.Lt: ast.LtE, ast.Gt: ast.GtE}, False: {ast.GtE: ast.Gt, ast.LtE: ast.Lt}}


def _sites_lt_to_le(fn):
    for cmp, positive in _guard_compares(fn):
        swap = _WEAKEN[positive]
        for k, op in enumerate(cmp.ops):
            if type(op) in swap:
                new = swap[type(op)]

                def apply(cmp=cmp, k=k, new=new):
                    cmp.ops[k] = new()
                yield cmp, f"{_TEXT[type(op)]} -> {_TEXT[new]} in {ast.unparse(cmp)}", apply


def _sites_index_shift(fn):
    for node in ast.walk(fn):
        if not _is_array_subscript(node):
            continue
        sl = node.slice
        elts = sl.elts if isinstance(sl, ast.Tuple) else None
        positions = range(len(elts)) if elts is not None else [None]
        for pos in positions:
            target = elts[pos] if elts is not None else sl
            if isinstance(target, ast.Constant):
                continue

            def apply(node=node, pos=pos, target=target):
                if pos is None:
                    node.slice = _index_shift(target)
                else:
                    node.slice.elts[pos] = _index_shift(target)
            yield target, f"index {ast.unparse(target)} -> {ast.unparse(_index_shift(target))} in {node.value.id}[...]", apply


def _rmw_assign(target: ast.Subscript, op: ast.operator, value: ast.expr, like: ast.AST) -> ast.Assign:
    load = copy.deepcopy(target)
    load.ctx = ast.Load()
    store = copy.deepcopy(target)
    store.ctx = ast.Store()
    new = ast.Assign(targets=[store], value=ast.BinOp(left=load, op=op, right=copy.deepcopy(value)))
    return ast.copy_location(new, like)


def _sites_atomic_to_plain(fn):
    for node in ast.walk(fn):
        for field_name in ("body", "orelse"):
            stmts = getattr(node, field_name, None)
            if not isinstance(stmts, list):
                continue
            for i, stmt in enumerate(stmts):
                if (isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Subscript)
                        and isinstance(stmt.op, (ast.Add, ast.Sub))):
                    def apply(stmts=stmts, i=i, stmt=stmt):
                        stmts[i] = _rmw_assign(stmt.target, stmt.op, stmt.value, stmt)
                    yield stmt, f"atomic {ast.unparse(stmt)} -> plain read-modify-write", apply
                elif isinstance(stmt, ast.Expr) and _call_name(stmt.value) in _ATOMIC_RMW:
                    call = stmt.value
                    if len(call.args) < 3 or call.keywords or not isinstance(call.args[0], ast.Name):
                        continue
                    arr, *idx, value = call.args
                    index = idx[0] if len(idx) == 1 else ast.Tuple(elts=list(idx), ctx=ast.Load())
                    target = ast.Subscript(value=copy.deepcopy(arr), slice=copy.deepcopy(index), ctx=ast.Store())
                    op = _ATOMIC_RMW[_call_name(call)]()

                    def apply(stmts=stmts, i=i, stmt=stmt, target=target, op=op, value=value):
                        stmts[i] = _rmw_assign(target, op, value, stmt)
                    yield stmt, f"{ast.unparse(call)} -> plain read-modify-write", apply


_SITE_FINDERS: dict[str, Callable[[ast.FunctionDef], Iterator[Site]]] = {
    "drop-barrier": _sites_drop_barrier,
    "guard-bound": _sites_guard_bound,
    "index-shift": _sites_index_shift,
    "lt-to-le": _sites_lt_to_le,
    "atomic-to-plain": _sites_atomic_to_plain,
    "drop-requires": _sites_drop_requires,
}


# ------------------------------------------------------------------ mutants
@dataclass(frozen=True)
class MutationSite:
    """Where a mutant of `kind` would be made: the `ordinal`-th site of that
    kind in function `kernel` (walk order), at `loc` in the original."""

    kind: str
    loc: SourceLoc
    description: str
    kernel: str
    ordinal: int

    @property
    def ident(self) -> str:
        return f"{self.kind}@{self.loc.line}:{self.loc.col}"


def plan(source: str, filename: str = "<mutant>", kinds=KINDS) -> list[MutationSite]:
    """Every mutation site of `source` of the given kinds, ordered by kind
    (KINDS order) then source position; sites that would print identically
    are listed once. Raises SyntaxError for unparsable source."""
    tree = ast.parse(source, filename)
    out: list[MutationSite] = []
    for kind in kinds:
        if kind not in _SITE_FINDERS:
            raise ValueError(f"unknown mutant kind {kind!r}; choose from {', '.join(KINDS)}")
        found = []
        for fn in _kernel_functions(tree):
            for ordinal, (node, description, _) in enumerate(_SITE_FINDERS[kind](fn)):
                loc = SourceLoc(filename, getattr(node, "lineno", 0), getattr(node, "col_offset", -1) + 1)
                found.append(MutationSite(kind, loc, description, fn.name, ordinal))
        found.sort(key=lambda m: (m.loc.line, m.loc.col))
        seen = set()
        for site in found:
            key = (site.ident, site.description)
            if key not in seen:
                seen.add(key)
                out.append(site)
    return out


def make(source: str, site: MutationSite) -> Mutant:
    """The mutant of `source` at `site` (from `plan` on the same source)."""
    tree = ast.parse(source, site.loc.file)
    fn = next(f for f in _kernel_functions(tree) if f.name == site.kernel)
    _, _, apply = list(_SITE_FINDERS[site.kind](fn))[site.ordinal]
    apply()
    mutated = ast.unparse(ast.fix_missing_locations(tree))
    return Mutant(site.kind, site.loc, site.description, site.kernel, mutated + "\n")


def generate(source: str, filename: str = "<mutant>", kinds=KINDS) -> list[Mutant]:
    """Every mutant of `source` of the given kinds, in `plan` order."""
    return [make(source, site) for site in plan(source, filename, kinds)]


def select(items: list, cap: int = 8, start: int = 0) -> list:
    """At most `cap` mutants (or sites), chosen deterministically: round-robin
    over the kinds present (so each is represented when cap allows), each
    kind in source order; the round starts at the `start`-th kind present
    (rotate it across files to spread small caps over every kind)."""
    by_kind: dict[str, list] = {}
    for m in items:
        by_kind.setdefault(m.kind, []).append(m)
    present = [k for k in KINDS if k in by_kind]
    if present:
        s = start % len(present)
        present = present[s:] + present[:s]
    chosen: list = []
    depth = 0
    while len(chosen) < cap and any(depth < len(v) for v in by_kind.values()):
        for kind in present:
            group = by_kind.get(kind, [])
            if depth < len(group) and len(chosen) < cap:
                chosen.append(group[depth])
        depth += 1
    return chosen
