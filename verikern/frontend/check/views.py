"""Array views: `m = a[i, j]` of an array with more dimensions than indices
(Warp's `array_t` view; nvalchemi's DFT-D3 binds `c6ab = c6_reference[z_i,
z_j]` of a 4-d array and passes it to a func taking a 2-d one).

Invariants:
- a view is bound by an assignment to a plain name, once in a definition (a
  second binding of the name is a located error: which elements it views
  would depend on the path taken), of a global array (a kernel or func
  parameter, or another view); views of shared arrays are a located error;
  a view passed straight as a call argument with plain leading indices (names,
  int literals, `+ - *`), outside a condition, is bound so to a hidden name just
  before its statement (`hoist_view_arguments`); any other unbound view is a
  located error (check/expressions.py, `check_indices`);
- its leading indices are evaluated where it is bound, in order, each into a
  hidden local (`$tN`, a name the source cannot write), so a later change of
  `i` does not move it; a use where one of them may be unassigned (the view
  bound on one branch only) is the same located error as for any variable;
- an access through it (read, write, atomic, `type(v[k])`'s address) is an
  access of the array it views, at the leading indices then its own: every
  index, the leading ones included, is a bounds obligation of that access, and
  the race and uninit analyses see the viewed array's elements;
  `v.shape[d]` is the viewed array's `shape[d + number of leading indices]`;
- Warp's debug build also asserts the leading indices when the view is made;
  a view that no access goes through touches no memory, so that assertion is
  no obligation of its own (docs/LANGUAGE.md, "Array views").
The lowering (lower/lowerer.py, `array_of`) resolves a view's name to the
viewed array and the current values of the hidden locals; no MIR construct is
added.
"""
from __future__ import annotations

import ast
import copy

from verikern.hir import nodes as H
from verikern.hir.types import ArrayType
from .statement_walks import conditional_calls

_RULE = "array-view"


def is_view_binding(chk, value: ast.AST) -> bool:
    """`value` is `a[i, ...]` of an array `a` with fewer indices than dimensions."""
    if not (isinstance(value, ast.Subscript) and isinstance(value.value, ast.Name)):
        return False
    arr = chk.arrays.get(value.value.id)
    return isinstance(arr, ArrayType) and value.value.id not in chk.local_names \
        and len(chk.index_list(value.slice)) < arr.ndim


def bind_view(chk, name: str, value: ast.Subscript, target: ast.AST) -> list:
    """The HIR of `name = a[i, ...]` (a view, see the module docstring): the
    hidden locals of its leading indices, then the H.ViewDecl."""
    assert isinstance(value.value, ast.Name)
    base_name = value.value.id
    base = chk.arrays[base_name]
    if base.space == "shared":
        raise chk.error(f"{ast.unparse(value)} is a view of the shared array {base_name!r}; "
                        "verikern takes views of global arrays only", value, _RULE,
                        f"index the shared array with all {base.ndim} indices")
    if name in chk.arrays or name in chk.var_types or name in chk.views:
        raise chk.error(f"{name!r} is bound to an array view here and is already defined; a view "
                        "is bound once in a kernel or func", target, _RULE,
                        "use a new name for each view")
    out: list = []
    temps: list[str] = []
    for node in chk.index_list(value.slice):
        e = chk.check_int(node)
        t = chk.temp()
        chk.declare(t, e.type, node)
        out.append(H.Assign(t, e, chk.loc(node)))
        temps.append(t)
    root, leading = chk.views.get(base_name, (base_name, ()))
    chk.views[name] = (root, leading + tuple(temps))
    chk.arrays[name] = ArrayType(base.dtype, base.ndim - len(temps))
    chk.local_names.discard(name)
    out.append(H.ViewDecl(name, H.ArrayRefExpr(root, chk.arrays[root], chk.loc(value.value)),
                          leading + tuple(temps), chk.loc(target)))
    return out


def flat_index(chk, node: ast.AST) -> ast.Subscript | None:
    """`a[i][j]` of a 2-d array `a` (a view of `a` indexed at once, as nvalchemi's
    `type(virial[0][0])`) as the one subscript `a[i, j]` it accesses: a chain of
    subscripts of an array name whose every link but the last leaves dimensions
    and whose indices, all together, are one per dimension; else None."""
    groups: list[list[ast.expr]] = []
    base = node
    while isinstance(base, ast.Subscript):
        groups.insert(0, chk.index_list(base.slice))
        base = base.value
    if len(groups) < 2 or not isinstance(base, ast.Name) or base.id in chk.local_names:
        return None
    arr = chk.arrays.get(base.id)
    if not isinstance(arr, ArrayType) or sum(len(g) for g in groups) != arr.ndim:
        return None
    flat = ast.Subscript(value=base, slice=ast.Tuple(elts=[i for g in groups for i in g], ctx=ast.Load()),
                         ctx=getattr(node, "ctx", ast.Load()))
    return ast.copy_location(flat, node)


def check_view_use(chk, name: str, node: ast.AST) -> None:
    """A use of the view `name`: each of its leading indices is assigned on every path here."""
    view = chk.views.get(name)
    if view is not None and any(t not in chk.defined for t in view[1]):
        raise chk.error(f"the array view {name!r} may be used before it is bound", node,
                        "undefined-variable", "bind it on every path before this point")


#: the statements whose call arguments may be views made in place (`hoist_view_arguments`)
_HOISTING_STATEMENTS = (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Expr, ast.Return)
#: the index operators of a view argument's leading indices: none can fault or read memory
_PLAIN_OPERATORS = (ast.Add, ast.Sub, ast.Mult)


def _plain_index(node: ast.AST) -> bool:
    """A name, an int literal, or `+`/`-`/`*`/unary `-` of them: evaluating it reads no
    memory, calls nothing and cannot fault (int arithmetic wraps), so evaluating it just
    before its statement gives the value Warp computes at the argument."""
    if isinstance(node, ast.Name):
        return True
    if isinstance(node, ast.Constant):
        return isinstance(node.value, int) and not isinstance(node.value, bool)
    if isinstance(node, ast.BinOp):
        return isinstance(node.op, _PLAIN_OPERATORS) and _plain_index(node.left) and _plain_index(node.right)
    if isinstance(node, ast.UnaryOp):
        return isinstance(node.op, ast.USub) and _plain_index(node.operand)
    return False


def view_arguments(chk, stmt: ast.stmt, conditional: frozenset) -> list[ast.Subscript]:
    """The call arguments of `stmt` that are views (`f(k_vectors[s], ...)` of a 2-d
    array) and can be bound just before it: every leading index is `_plain_index`, and
    the call is not one Warp evaluates only under a condition (`conditional`: the ids
    of such calls, statement_walks.conditional_calls) nor `type(...)`/`len(...)`."""
    if not isinstance(stmt, _HOISTING_STATEMENTS) or (
            isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)
            and chk.info.dsl_name(stmt.value.func) in ("requires", "invariant")):
        return []           # a contract stays where it is written (its position is checked)
    out: list[ast.Subscript] = []
    for call in ast.walk(stmt):
        if not isinstance(call, ast.Call) or id(call) in conditional \
                or (isinstance(call.func, ast.Name) and call.func.id in ("type", "len")):
            continue
        for arg in [*call.args, *(k.value for k in call.keywords)]:
            if isinstance(arg, ast.Subscript) and is_view_binding(chk, arg) \
                    and all(_plain_index(i) for i in chk.index_list(arg.slice)):
                out.append(arg)
    return out


def hoist_view_arguments(chk, stmt: ast.stmt, conditional: frozenset):
    """(`$tN = a[i]` for each of `stmt`'s view arguments (`view_arguments`), a copy of
    `stmt` passing `$tN` instead), or ([], stmt) when it has none. Warp makes the view
    where the argument is evaluated; its leading indices are plain, so making it just
    before the statement makes the same view, and a view touches no memory until an
    access goes through it (module docstring). Each hidden name is bound once, like
    any view, and its errors point at the argument as written."""
    if not view_arguments(chk, stmt, conditional):
        return [], stmt
    stmt = copy.deepcopy(stmt)      # the kernel's AST stays as written
    names = {id(arg): chk.temp() for arg in view_arguments(chk, stmt, conditional_calls(stmt))}
    pre = []

    class _Replace(ast.NodeTransformer):
        def visit_Subscript(self, node):
            if id(node) not in names:
                return self.generic_visit(node)
            target = ast.copy_location(ast.Name(id=names[id(node)], ctx=ast.Store()), node)
            pre.append(ast.copy_location(ast.Assign(targets=[target], value=node), node))
            return ast.copy_location(ast.Name(id=names[id(node)], ctx=ast.Load()), node)

    return pre, _Replace().visit(stmt)

def view_argument(chk, value: ast.Subscript, call: ast.Call):
    """`f(x[i], ...)` with `x[i]` a view passed straight to a func's array
    parameter in a statement `hoist_view_arguments` does not rewrite (an `if` or
    `for` header, warpSPHCore's `if computeCartesianDistance(x[i], y[j], d) < h:`):
    bound to a hidden name (`$tN`) just before the statement, as `v = x[i]` would
    be, under the same rules: every leading index `_plain_index` (evaluated first, it
    reads no memory and has no effect, so binding the view ahead of the statement
    changes nothing else it does: a view touches no memory until an access goes
    through it), a call Warp evaluates unconditionally, and not a `while` header
    (evaluated on every iteration). None where those rules refuse it: the caller then
    gives the located error of an unbound view."""
    if chk.effects is None or id(call) in chk.conditional_calls \
            or not all(_plain_index(i) for i in chk.index_list(value.slice)):
        return None
    name = chk.temp()
    chk.effects.extend(bind_view(chk, name, value, value))
    return ast.copy_location(ast.Name(id=name, ctx=ast.Load()), value)
