"""Local struct variables with array fields: each array field an alias of the
parameter array assigned to it (docs/LANGUAGE.md section 2).

Warp lets a kernel or func build a struct that holds arrays, field by field,
from its own array parameters (warpSPHCore's radius search):

    domainState = domainData()
    domainState.domainMin = min_domain     # an array parameter
    domainState.dim = D
    dist = computeCartesianDistance(x[i], y[j], domainState)

A struct's array field holds a reference to an array, so after the field
store `d.f` *is* `min_domain`: this pass, run on the body after the struct
rewrite (check/structs.py has made `d.f` the Name "d.f"), drops each such
field store and reads the parameter wherever "d.f" is read, passing `d` to a
func included (StructScope.leaf_nodes). The MIR never holds the local
struct's arrays; every backend and encoder sees the parameter arrays only.

Invariant (what makes the substitution exact, else a located `struct-use`
error that says which rule the body breaks): the struct variable `d` is bound
once, by `d = S()` as a statement of the body's top level; each of its array
fields is stored at most once, by `d.f = p` at the top level after that
binding, with `p` an array parameter of the same type (parameters cannot be
reassigned); and nothing reads `d.f`, or `d` (or a struct field of it) as a
whole, before that store. A field never stored is Warp's null array: reading
it, or passing `d` on with it, is refused. So every read of `d.f` is
dominated by its only store, and reads exactly `p`.
"""
from __future__ import annotations

import ast

from verikern.hir.types import ArrayType, StructType, struct_leaves

_RULE = "struct-use"


def _loads(stmt: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(stmt) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _stores(body: list, name: str) -> list[tuple[int, ast.AST]]:
    """(top-level index, node) of every statement anywhere in `body` that binds `name`."""
    out: list[tuple[int, ast.AST]] = []
    for k, top in enumerate(body):
        for n in ast.walk(top):
            if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, (ast.Store, ast.Del)):
                out.append((k, n))
    return out


def array_field_aliases(chk, types: dict[str, StructType], params: set[str], body: list) -> dict[str, str]:
    """leaf name ("d.f") -> the array parameter it aliases, for every local struct
    variable of `types` (not in `params`) with array fields, checked against the
    module docstring's invariant on the rewritten `body` (a located error if not)."""
    aliases: dict[str, str] = {}
    for root, t in types.items():
        arrays = [(leaf, lt) for leaf, lt in struct_leaves(t, root) if isinstance(lt, ArrayType)]
        if root in params or not arrays:
            continue
        binds = _stores(body, root)
        first = binds[0][1] if binds else None
        top = body[binds[0][0]] if binds else None
        made = isinstance(top, ast.Assign) and len(top.targets) == 1 and top.targets[0] is first \
            and isinstance(top.value, ast.Call) and not top.value.args and not top.value.keywords
        if len(binds) != 1 or not made:
            at = binds[-1][1] if len(binds) > 1 or not binds else first
            raise chk.error(f"{root} is a {t.name}, which holds arrays: a local one must be made "
                            f"once, by `{root} = {t.name}()` at the top of the body, and its array "
                            "fields set from array parameters", at, _RULE,
                            "read the fields from the parameter struct directly, or build the struct "
                            "once, outside any branch or loop")
        made_at = binds[0][0]
        for leaf, lt in arrays:
            stores = _stores(body, leaf)
            prefixes = {leaf} | {leaf[:k] for k in range(len(leaf)) if leaf[k] == "."}
            uses = [k for k, s in enumerate(body) if _loads(s) & prefixes]
            if not stores:
                if uses:
                    raise chk.error(f"{leaf} is never assigned: in Warp it is a null array, and "
                                    f"{root} is read or passed on with it", body[uses[0]], _RULE,
                                    f"assign an array parameter to {leaf} after {root} = {t.name}()")
                continue
            k, node = stores[0]
            stmt = body[k]
            ok = len(stores) == 1 and k > made_at and isinstance(stmt, ast.Assign) \
                and len(stmt.targets) == 1 and stmt.targets[0] is node
            value = stmt.value if isinstance(stmt, ast.Assign) else None
            if not ok or not (isinstance(value, ast.Name) and value.id in chk.param_arrays):
                raise chk.error(f"{leaf} is an array field of a local {t.name}: verikern takes it "
                                "only assigned once, from an array parameter, at the top of the body "
                                f"after {root} = {t.name}()", node, _RULE,
                                "assign it once, from a parameter, outside any branch or loop")
            given = chk.arrays.get(value.id)
            if given != lt:
                raise chk.error(f"{leaf} is {lt}, assigned {value.id}: {given}", value,
                                "type-mismatch", f"assign an array of {lt}")
            early = [u for u in uses if u < k]
            if early:
                raise chk.error(f"{leaf} is read (or {root} passed on) before it is assigned: "
                                "in Warp it is a null array there", body[early[0]], _RULE,
                                f"assign {leaf} first")
            aliases[leaf] = value.id
    return aliases


class AliasReads(ast.NodeTransformer):
    """Drops the field stores `d.f = p` that array_field_aliases took and reads
    `p` for every "d.f" (see the module docstring)."""

    def __init__(self, aliases: dict[str, str]):
        self.aliases = aliases

    def visit_Assign(self, node: ast.Assign):
        t = node.targets[0] if len(node.targets) == 1 else None
        if isinstance(t, ast.Name) and t.id in self.aliases:
            return ast.copy_location(ast.Pass(), node)
        return self.generic_visit(node)

    def visit_Name(self, node: ast.Name):
        if isinstance(node.ctx, ast.Load) and node.id in self.aliases:
            return ast.copy_location(ast.Name(id=self.aliases[node.id], ctx=ast.Load()), node)
        return node
