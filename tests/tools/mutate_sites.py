"""Mutation operators: where each kind of injected bug can be made in one
`@kernel` / `@func` body, and how (see `tools.mutate` for the kinds).

A site finder `finder(fn, info)` yields `(node, description, apply)` for
every site of its kind in function `fn`, in a deterministic walk order;
`apply()` mutates the tree that `fn` belongs to in place. `info` is the
`ModuleInfo` of that tree. Invariant: `apply` changes the one construct that
`node` (a node of the ORIGINAL tree walk, giving the site's line:col) names,
and finders never change the tree while they walk it.
"""
from __future__ import annotations

import ast
from collections import Counter
import copy
from dataclasses import dataclass, field
from typing import Callable, Iterator

from tools.mutate_rebind import sites_rebind_constant

Site = tuple[ast.AST, str, Callable[[], None]]

_EXITS = (ast.Return, ast.Continue, ast.Break)
_DIVISIONS = (ast.FloorDiv, ast.Mod, ast.Div)
#: Augmented assignments on an array element that are atomic (docs/LANGUAGE.md).
_ATOMIC_AUG = (ast.Add, ast.Sub, ast.BitAnd, ast.BitOr, ast.BitXor)
_ATOMIC_CALLS = ("atomic_add", "atomic_sub", "atomic_min", "atomic_max", "atomic_exch",
                 "atomic_cas", "atomic_and", "atomic_or", "atomic_xor")
_ATOMIC_BINOP = {"atomic_add": ast.Add, "atomic_sub": ast.Sub, "atomic_and": ast.BitAnd,
                 "atomic_or": ast.BitOr, "atomic_xor": ast.BitXor}


@dataclass(frozen=True)
class ModuleInfo:
    """What operators need to know beyond one function: `divisors[f]` is the
    source text of every non-constant divisor in function `f`, including the
    argument texts that `f` passes to a divisor parameter of a func it calls;
    `overloaded`: the names of top-level functions defined more than once (Warp
    overloads); `generic`: whether the module imports `Any` (it writes generic
    kernels); `tree`: the module, for operators that add a module-level line;
    `index_params[f]` the positions of `f`'s parameters its body indexes an
    array with."""

    divisors: dict
    overloaded: frozenset = frozenset()
    generic: bool = False
    tree: ast.Module | None = None
    #: func name -> positions of its parameters used in an array index in its body
    index_params: dict = field(default_factory=dict)


# ------------------------------------------------------------------ helpers
def call_name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Call):
        f = node.func
        if isinstance(f, ast.Attribute):
            return f.attr
        if isinstance(f, ast.Name):
            return f.id
    return None


def _builtin(call: ast.Call, name: str) -> ast.expr:
    """A reference to builtin `name` spelled like `call` spells its own (`vk.x` / `x`)."""
    if isinstance(call.func, ast.Attribute):
        return ast.Attribute(value=copy.deepcopy(call.func.value), attr=name, ctx=ast.Load())
    return ast.Name(id=name, ctx=ast.Load())


def _is_call_stmt(stmt: ast.stmt, name: str) -> bool:
    return isinstance(stmt, ast.Expr) and call_name(stmt.value) == name


def stmt_lists(fn: ast.FunctionDef) -> Iterator[tuple[list, ast.stmt | None, list | None]]:
    """Every statement list in `fn` as (list, owner statement, the list the
    owner is in): fn.body first (owner None), then nested lists, depth first."""
    def walk(stmts, owner, outer):
        yield stmts, owner, outer
        for stmt in stmts:
            for field_name in ("body", "orelse"):
                inner = getattr(stmt, field_name, None)
                if isinstance(inner, list) and inner:
                    yield from walk(inner, stmt, stmts)
    yield from walk(fn.body, None, None)


def _replace_child(root: ast.AST, old: ast.AST, new: ast.AST) -> None:
    """Put `new` where `old` (by identity) is in the tree under `root`."""
    for parent in ast.walk(root):
        for field_name, value in ast.iter_fields(parent):
            if value is old:
                setattr(parent, field_name, new)
                return
            if isinstance(value, list):
                for k, item in enumerate(value):
                    if item is old:
                        value[k] = new
                        return
    raise ValueError("node not found")


def compares_with_polarity(test: ast.expr, positive: bool) -> Iterator[tuple[ast.Compare, bool]]:
    """Compare nodes in a test, each with True when making it true lets MORE
    threads reach the guarded code (`not` flips; `and`/`or` keep)."""
    if isinstance(test, ast.Compare):
        yield test, positive
    elif isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        yield from compares_with_polarity(test.operand, not positive)
    elif isinstance(test, ast.BoolOp):
        for v in test.values:
            yield from compares_with_polarity(v, positive)


def guard_compares(fn: ast.FunctionDef) -> Iterator[tuple[ast.Compare, bool]]:
    """Compare nodes of `if` / `while` / conditional-expression tests with
    their polarity: an `if` whose body ends in return/break/continue (and has
    no else) guards the code AFTER it, so its test is negative."""
    for node in ast.walk(fn):
        if isinstance(node, ast.If):
            exits = bool(node.body) and isinstance(node.body[-1], _EXITS) and not node.orelse
            yield from compares_with_polarity(node.test, not exits)
        elif isinstance(node, (ast.While, ast.IfExp)):
            yield from compares_with_polarity(node.test, True)


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


def array_names(fn: ast.FunctionDef) -> set[str]:
    """Names of the arrays of `fn`: parameters annotated with an array type
    and locals bound to `*.shared.array(...)` (or another `array` constructor)."""
    names = {a.arg for a in fn.args.args if a.annotation is not None
             and "array" in ast.unparse(a.annotation)}
    for node in ast.walk(fn):
        if (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name) and isinstance(node.value, ast.Call)
                and "array" in ast.unparse(node.value.func)):
            names.add(node.targets[0].id)
    return names


# ------------------------------------------------------------------ barriers, requires
def _sites_drop_barrier(fn, info):
    """A `sync_threads()` statement replaced by `pass`."""
    for stmts, _, _ in stmt_lists(fn):
        for i, stmt in enumerate(stmts):
            if _is_call_stmt(stmt, "sync_threads"):
                def apply(stmts=stmts, i=i, stmt=stmt):
                    stmts[i] = ast.copy_location(ast.Pass(), stmt)
                yield stmt, "removed sync_threads()", apply


def _sites_move_barrier(fn, info):
    """A `sync_threads()` moved into a thread-dependent branch:
    `if thread_idx() % 2 == 0: sync_threads()` (divergent for block_dim >= 2)."""
    for stmts, _, _ in stmt_lists(fn):
        for i, stmt in enumerate(stmts):
            if _is_call_stmt(stmt, "sync_threads"):
                def apply(stmts=stmts, i=i, stmt=stmt):
                    tidx = ast.Call(func=_builtin(stmt.value, "thread_idx"), args=[], keywords=[])
                    test = ast.Compare(left=ast.BinOp(left=tidx, op=ast.Mod(), right=ast.Constant(2)),
                                       ops=[ast.Eq()], comparators=[ast.Constant(0)])
                    stmts[i] = ast.copy_location(ast.If(test=test, body=[stmt], orelse=[]), stmt)
                yield stmt, "sync_threads() moved into `if thread_idx() % 2 == 0`", apply


def _sites_drop_requires(fn, info):
    """A `requires(...)` statement removed (the others stay first in the body)."""
    for stmts, _, _ in stmt_lists(fn):
        for i, stmt in enumerate(stmts):
            if _is_call_stmt(stmt, "requires"):
                def apply(stmts=stmts, i=i, stmt=stmt):
                    del stmts[i]
                    if not stmts:
                        stmts.append(ast.copy_location(ast.Pass(), stmt))
                yield stmt, f"removed {ast.unparse(stmt)}", apply


# ------------------------------------------------------------------ guards and indices
def _sites_guard_bound(fn, info):
    """Off by one in the direction that lets one more thread/iteration in:
    the right side of `a < b` grows, of `a > b` shrinks (reversed for a
    negative test such as `if i >= n: return`); a `range` stop + 1."""
    for cmp, positive in guard_compares(fn):
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
        if isinstance(node, ast.For) and call_name(node.iter) == "range" and node.iter.args:
            args = node.iter.args
            stop_at = 0 if len(args) == 1 else 1
            stop = args[stop_at]

            def apply(args=args, stop_at=stop_at, stop=stop):
                args[stop_at] = _shift(stop, 1)
            yield stop, f"range stop {ast.unparse(stop)} -> {ast.unparse(_shift(stop, 1))}", apply


_TEXT = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">="}
# strict <-> non-strict, in the direction that admits the boundary value:
# for a positive test `<` -> `<=` and `>` -> `>=`; for a negative one
# (`if i >= n: return`) `>=` -> `>` and `<=` -> `<`.
_WEAKEN = {True: {ast.Lt: ast.LtE, ast.Gt: ast.GtE}, False: {ast.GtE: ast.Gt, ast.LtE: ast.Lt}}


def _sites_lt_to_le(fn, info):
    for cmp, positive in guard_compares(fn):
        swap = _WEAKEN[positive]
        for k, op in enumerate(cmp.ops):
            if type(op) in swap:
                new = swap[type(op)]

                def apply(cmp=cmp, k=k, new=new):
                    cmp.ops[k] = new()
                yield cmp, f"{_TEXT[type(op)]} -> {_TEXT[new]} in {ast.unparse(cmp)}", apply


def _is_array_subscript(node: ast.AST) -> bool:
    """`name[index]` with a non-constant index (constant indices are mostly
    vector components, e.g. `v[0]`)."""
    if not (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name)):
        return False
    sl = node.slice
    if isinstance(sl, ast.Tuple):
        return any(not isinstance(e, ast.Constant) for e in sl.elts)
    return not isinstance(sl, ast.Constant)


def _index_shift(expr: ast.expr) -> ast.expr:
    """One element further from the middle: `i - c` -> `i - c - 1`, else `+ 1`."""
    down = (isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Sub)
            and isinstance(expr.right, ast.Constant))
    return _shift(expr, -1 if down else 1)


def _sites_index_shift(fn, info):
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
            shifted = ast.unparse(_index_shift(target))
            yield target, f"index {ast.unparse(target)} -> {shifted} in {node.value.id}[...]", apply


def _sites_call_arg_shift(fn, info):
    """An index argument of one call of a func that `fn` calls twice or more
    shifted by one (`load(y, i)` -> `load(y, i + 1)`): a bug in one inlined
    copy of the func only, which the other copies' proofs must not hide."""
    calls = [c for c in ast.walk(fn) if isinstance(c, ast.Call) and isinstance(c.func, ast.Name)
             and c.func.id in info.index_params and c.func.id != fn.name]
    count = Counter(c.func.id for c in calls)
    for call in calls:
        name = call.func.id
        if count[name] < 2:
            continue
        for pos in info.index_params[name]:
            if pos >= len(call.args) or isinstance(call.args[pos], (ast.Constant, ast.Starred)):
                continue
            target = call.args[pos]

            def apply(call=call, pos=pos, target=target):
                call.args[pos] = _index_shift(target)
            shifted = ast.unparse(_index_shift(target))
            yield target, (f"argument {ast.unparse(target)} -> {shifted} in one of the "
                           f"{count[name]} calls of {name}()"), apply


def _requires_compares(fn):
    for node in ast.walk(fn):
        if isinstance(node, ast.Call) and call_name(node) == "requires":
            for arg in node.args:
                yield from compares_with_polarity(arg, True)


def _sites_div_guard(fn, info):
    """A comparison of a divisor with a constant (`d != 0`, `d > 0`, `if d == 0:
    return`), in a guard or a requires, dropped: replaced by the constant
    that lets the guarded code run (True, or False in an early-exit test)."""
    divisors = info.divisors.get(fn.name, set())
    seen = set()
    for cmp, positive in [*guard_compares(fn), *_requires_compares(fn)]:
        if len(cmp.ops) != 1 or id(cmp) in seen:
            continue
        seen.add(id(cmp))
        left, right = cmp.left, cmp.comparators[0]
        if not any(ast.unparse(side) in divisors and isinstance(other, ast.Constant)
                   for side, other in ((left, right), (right, left))):
            continue

        def apply(cmp=cmp, positive=positive):
            _replace_child(fn, cmp, ast.copy_location(ast.Constant(positive), cmp))
        yield cmp, f"division guard {ast.unparse(cmp)} -> {positive}", apply


def module_info(tree: ast.Module, functions: list[ast.FunctionDef]) -> ModuleInfo:
    """Divisor texts per function, with divisor parameters of called funcs
    mapped to the argument texts at each call (to a fixpoint)."""
    own: dict[str, set[str]] = {}
    params = {fn.name: [a.arg for a in fn.args.args] for fn in functions}
    for fn in functions:
        texts = set()
        for node in ast.walk(fn):
            if isinstance(node, ast.BinOp) and isinstance(node.op, _DIVISIONS):
                divisor = node.right
            elif isinstance(node, ast.AugAssign) and isinstance(node.op, _DIVISIONS):
                divisor = node.value
            else:
                continue
            if not isinstance(divisor, ast.Constant):
                texts.add(ast.unparse(divisor))
        own[fn.name] = texts
    changed = True
    while changed:
        changed = False
        for fn in functions:
            for node in ast.walk(fn):
                callee = call_name(node)
                if callee not in params or callee == fn.name:
                    continue
                for name, arg in zip(params[callee], node.args):
                    text = ast.unparse(arg)
                    if name in own[callee] and text not in own[fn.name]:
                        own[fn.name].add(text)
                        changed = True
    defs = [n.name for n in tree.body if isinstance(n, ast.FunctionDef)]
    generic = any(isinstance(n, ast.ImportFrom) and n.module == "typing"
                  and any(a.name == "Any" for a in n.names) for n in tree.body)
    index_params = {}
    for fn in functions:
        names = params[fn.name]
        used = {n.id for sub in ast.walk(fn) if _is_array_subscript(sub)
                for n in ast.walk(sub.slice) if isinstance(n, ast.Name)}
        index_params[fn.name] = tuple(i for i, name in enumerate(names) if name in used)
    return ModuleInfo(own, frozenset(d for d in defs if defs.count(d) > 1), generic, tree, index_params)


# ------------------------------------------------------------------ overloads and generics
def _sites_overload_literal(fn, info):
    """A bare float literal of integral value passed to an overloaded func,
    written as an int (`reach(1.0)` -> `reach(1)`): Warp then calls the int
    overload (a bare literal has its default type, whatever the overloads)."""
    for node in ast.walk(fn):
        if not (isinstance(node, ast.Call) and call_name(node) in info.overloaded):
            continue
        for k, arg in enumerate(node.args):
            if isinstance(arg, ast.Constant) and type(arg.value) is float and arg.value.is_integer():
                def apply(node=node, k=k, arg=arg):
                    node.args[k] = ast.copy_location(ast.Constant(int(arg.value)), arg)
                yield arg, f"{ast.unparse(node)}: the literal written {int(arg.value)}", apply


def _kernel_decorator(fn: ast.FunctionDef) -> ast.expr | None:
    for d in fn.decorator_list:
        target = d.func if isinstance(d, ast.Call) else d
        if (isinstance(target, ast.Attribute) and target.attr == "kernel") or \
                (isinstance(target, ast.Name) and target.id == "kernel"):
            return target
    return None


_INT_DTYPES = ("int", "wp.int32", "vk.int32", "wp.int64", "vk.int64")


def _sites_generic_any(fn, info):
    """In a module that writes generic kernels (imports `Any`), a kernel's
    integer array parameter `wp.array(dtype=T)` made `wp.array(dtype=Any)`,
    its original signature kept as the one declared `wp.overload`: Warp still
    instantiates the kernel at launch for any key type (int8 wraps)."""
    deco = _kernel_decorator(fn)
    if not info.generic or info.tree is None or deco is None:
        return
    for arg in fn.args.args:
        ann = arg.annotation
        if not (isinstance(ann, ast.Call) and call_name(ann) == "array"):
            continue
        dtype = next((kw for kw in ann.keywords if kw.arg == "dtype"), None)
        if dtype is None or ast.unparse(dtype.value) not in _INT_DTYPES:
            continue

        def apply(arg=arg, dtype=dtype, deco=deco):
            signature = [copy.deepcopy(a.annotation) for a in fn.args.args]
            dtype.value = ast.copy_location(ast.Name(id="Any", ctx=ast.Load()), dtype.value)
            overload = _builtin(ast.Call(func=deco, args=[], keywords=[]), "overload")
            info.tree.body.append(ast.Expr(ast.Call(
                func=overload, args=[ast.Name(id=fn.name, ctx=ast.Load()), ast.List(signature, ast.Load())],
                keywords=[])))
        yield arg, f"{arg.arg}: dtype {ast.unparse(dtype.value)} -> Any, the original kept as the " \
                   "one wp.overload", apply


# ------------------------------------------------------------------ asserts, invariants
def _sites_assert_invert(fn, info):
    """`assert c` -> `assert not (c)`."""
    for node in ast.walk(fn):
        if isinstance(node, ast.Assert):
            def apply(node=node):
                node.test = ast.UnaryOp(op=ast.Not(), operand=node.test)
            yield node, f"assert {ast.unparse(node.test)} inverted", apply


def _sites_assert_unguard(fn, info):
    """An assert moved out of the `if` that guards it (to just before that
    `if`), or, at the top level of a block, to before the closest earlier
    early-exit `if ...: return/break/continue` of that block."""
    for stmts, owner, outer in stmt_lists(fn):
        for i, stmt in enumerate(stmts):
            if not isinstance(stmt, ast.Assert):
                continue
            if isinstance(owner, ast.If):
                dest, at = outer, next(k for k, s in enumerate(outer) if s is owner)
            else:
                exits = [k for k in range(i) if isinstance(stmts[k], ast.If) and stmts[k].body
                         and isinstance(stmts[k].body[-1], _EXITS) and not stmts[k].orelse]
                if not exits:
                    continue
                dest, at = stmts, exits[-1]

            def apply(stmts=stmts, stmt=stmt, dest=dest, at=at):
                guard = dest[at]
                stmts.remove(stmt)
                if not stmts:
                    stmts.append(ast.copy_location(ast.Pass(), stmt))
                dest.insert(next(k for k, s in enumerate(dest) if s is guard), stmt)
            yield stmt, f"assert {ast.unparse(stmt.test)} moved before its guard", apply


def _strengthen(cmp: ast.Compare, positive: bool) -> ast.Compare:
    """`cmp` made stronger by one (when `positive`; weaker under a `not`):
    `a < b` -> `a < b - 1`, `a >= b` -> `a >= b + 1`, `a == b` -> `a == b + 1`,
    `a != b` -> `a == b`."""
    new = copy.deepcopy(cmp)
    op = type(cmp.ops[-1])
    if op is ast.NotEq:
        new.ops[-1] = ast.Eq()
        return new
    up = op in (ast.Gt, ast.GtE, ast.Eq)
    new.comparators[-1] = _shift(cmp.comparators[-1], 1 if up == positive else -1)
    return new


def _sites_invariant_break(fn, info):
    """One comparison of a `vk.invariant(...)` hint made one step too strong."""
    for node in ast.walk(fn):
        if not (isinstance(node, ast.Expr) and call_name(node.value) == "invariant" and node.value.args):
            continue
        for cmp, positive in compares_with_polarity(node.value.args[0], True):
            new = _strengthen(cmp, positive)

            def apply(cmp=cmp, new=new):
                _replace_child(fn, cmp, ast.copy_location(new, cmp))
            yield cmp, f"invariant {ast.unparse(cmp)} -> {ast.unparse(new)}", apply


# ------------------------------------------------------------------ atomics
def _element(arr: ast.expr, idx: list, ctx) -> ast.Subscript:
    index = copy.deepcopy(idx[0]) if len(idx) == 1 else ast.Tuple(elts=copy.deepcopy(idx), ctx=ast.Load())
    return ast.Subscript(value=copy.deepcopy(arr), slice=index, ctx=ctx)


def _plain_value(call: ast.Call, old: ast.expr) -> ast.expr | None:
    """The value a plain write stores for atomic `call`, given the old element."""
    name = call_name(call)
    if name == "atomic_cas":
        compare, value = call.args[-2], call.args[-1]
        return ast.IfExp(test=ast.Compare(left=copy.deepcopy(old), ops=[ast.Eq()],
                                          comparators=[copy.deepcopy(compare)]),
                         body=copy.deepcopy(value), orelse=copy.deepcopy(old))
    value = copy.deepcopy(call.args[-1])
    if name in _ATOMIC_BINOP:
        return ast.BinOp(left=copy.deepcopy(old), op=_ATOMIC_BINOP[name](), right=value)
    if name in ("atomic_min", "atomic_max"):
        return ast.Call(func=_builtin(call, name[len("atomic_"):]), args=[copy.deepcopy(old), value], keywords=[])
    return value                                               # atomic_exch


def _atomic_call(node: ast.AST, arrays: set[str]) -> ast.Call | None:
    if call_name(node) not in _ATOMIC_CALLS or node.keywords:
        return None
    extra = 2 if call_name(node) == "atomic_cas" else 1
    if len(node.args) < 2 + extra or not isinstance(node.args[0], ast.Name):
        return None
    return node if node.args[0].id in arrays else None


def _sites_atomic_to_plain(fn, info):
    """Every atomic site once: `a[i] += v` (and -=, &=, |=, ^=) on an array
    element, `vk.atomic_*(a, i, ...)` as a statement, and `x = vk.atomic_*(...)`
    (old value read, then a plain write) become plain read-modify-writes."""
    arrays = array_names(fn)
    for stmts, _, _ in stmt_lists(fn):
        for i, stmt in enumerate(stmts):
            if (isinstance(stmt, ast.AugAssign) and isinstance(stmt.op, _ATOMIC_AUG)
                    and isinstance(stmt.target, ast.Subscript) and isinstance(stmt.target.value, ast.Name)
                    and stmt.target.value.id in arrays):
                def apply(stmts=stmts, i=i, stmt=stmt):
                    load = copy.deepcopy(stmt.target)
                    load.ctx = ast.Load()
                    new = ast.Assign(targets=[stmt.target],
                                     value=ast.BinOp(left=load, op=stmt.op, right=stmt.value))
                    stmts[i] = ast.copy_location(new, stmt)
                yield stmt, f"atomic {ast.unparse(stmt)} -> plain read-modify-write", apply
                continue
            if isinstance(stmt, ast.Expr):
                call, old_name = _atomic_call(stmt.value, arrays), None
            elif (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1
                  and isinstance(stmt.targets[0], ast.Name)):
                call, old_name = _atomic_call(stmt.value, arrays), stmt.targets[0].id
            else:
                continue
            if call is None:
                continue
            extra = 2 if call_name(call) == "atomic_cas" else 1
            idx = call.args[1:-extra]
            if old_name is not None and any(isinstance(n, ast.Name) and n.id == old_name
                                            for a in call.args for n in ast.walk(a)):
                continue

            def apply(stmts=stmts, i=i, stmt=stmt, call=call, idx=idx, old_name=old_name):
                arr = call.args[0]
                if old_name is None:
                    old = _element(arr, idx, ast.Load())
                    new = [ast.Assign(targets=[_element(arr, idx, ast.Store())], value=_plain_value(call, old))]
                else:
                    read = ast.Assign(targets=[ast.Name(id=old_name, ctx=ast.Store())],
                                      value=_element(arr, idx, ast.Load()))
                    old = ast.Name(id=old_name, ctx=ast.Load())
                    new = [read, ast.Assign(targets=[_element(arr, idx, ast.Store())],
                                            value=_plain_value(call, old))]
                stmts[i:i + 1] = [ast.copy_location(s, stmt) for s in new]
            yield stmt, f"{ast.unparse(call)} -> plain read-modify-write", apply


SITE_FINDERS: dict[str, Callable[[ast.FunctionDef, ModuleInfo], Iterator[Site]]] = {
    "drop-barrier": _sites_drop_barrier,
    "move-barrier": _sites_move_barrier,
    "guard-bound": _sites_guard_bound,
    "index-shift": _sites_index_shift,
    "call-arg-shift": _sites_call_arg_shift,
    "lt-to-le": _sites_lt_to_le,
    "atomic-to-plain": _sites_atomic_to_plain,
    "drop-requires": _sites_drop_requires,
    "div-guard": _sites_div_guard,
    "assert-invert": _sites_assert_invert,
    "assert-unguard": _sites_assert_unguard,
    "invariant-break": _sites_invariant_break,
    "overload-literal": _sites_overload_literal,
    "generic-any": _sites_generic_any,
    "rebind-constant": sites_rebind_constant,
}
