"""Assignment statements of kernel and func bodies: AST -> HIR.

Invariant: every assignment form (`x = e`, `x: T = e`, tuple unpacking, an
element, a component or a part of an array or local vector/matrix, `x op= e`,
a shared-array declaration) is either checked against docs/LANGUAGE.md
section 4 and returned as HIR, declaring or re-typing nothing a later read
could see differently, or raised as a located KernelError. A mixin of
BodyChecker (check/body.py), which holds the scope these methods read.
"""
from __future__ import annotations

import ast

from verikern.errors import KernelError
from verikern.hir import nodes as H
from verikern.hir.types import (
    I32,
    ArrayType,
    MatrixType,
    ScalarType,
    VectorType,
    named_parts,
)

from ..scan.annotations import parse_annotation
from ..builtins.rules import check_atomic_value
from .contracts import is_dsl_call
from .dynamic_components import dynamic_write, past_components
from .dynamic_updates import dynamic_update
from .element_parts import assign_local_matrix_part, assign_part, augassign_part
from .views import bind_view, flat_index, is_view_binding
from ..builtins.operators import BINOP_NAMES, check_binary_types, literal_type_for
from .shared_arrays import shared_array_type

ATOMIC_AUG = {"add": "add", "sub": "sub", "and": "and", "or": "or", "xor": "xor"}


class AssignChecks:
    """Assignment statements, for BodyChecker."""

    def _stmt_Assign(self, s):
        if len(s.targets) != 1:
            raise self.error("chained assignment is not allowed", s, "multi-assign",
                             "assign each variable separately")
        return self.assign(s.targets[0], s.value, s)

    def _stmt_AnnAssign(self, s):
        if s.value is None or not isinstance(s.target, ast.Name):
            raise self.error("an annotated assignment needs a simple name and a value", s,
                             "bad-assign-target")
        if s.target.id in self.structs.types:
            return self.structs.assign(s.target.id, s.value, s.target)
        t = parse_annotation(self, s.annotation, f"variable {s.target.id!r}")
        if isinstance(t, ArrayType):
            raise self.error("local array variables are not allowed", s, "array-alias",
                             "use the parameter directly or vk.shared.array(...)")
        e = self.check_expr(s.value, t)
        if e.type != t:
            raise self.error(f"value of type {e.type} assigned to {s.target.id!r}: {t}", s.value,
                             "implicit-conversion" if isinstance(e.type, ScalarType) and
                             isinstance(t, ScalarType) and e.type.is_float != t.is_float
                             else "type-mismatch", "convert explicitly")
        self.declare(s.target.id, t, s.target)
        return H.Assign(s.target.id, e, self.loc(s.target))

    def assign(self, target, value, s):
        loc = self.loc(target)
        if isinstance(target, (ast.Tuple, ast.List)):
            return self._assign_tuple(target, value, s)
        if isinstance(target, ast.Name):
            name = target.id
            whole = self.structs.assign(name, value, target)   # a struct variable: its leaves
            if whole is not None:
                return whole
            if is_dsl_call(self.info, value, "shared.array"):
                return self._shared_decl(name, value, target)
            if is_view_binding(self, value):    # `m = a[i, j]` of a 4-d array (check/views.py)
                return bind_view(self, name, value, target)
            if name in self.arrays:
                raise self.error(f"cannot assign to the array {name!r}", target,
                                 "assign-to-array", "write to its elements: a[i] = ...")
            prev = self.var_types.get(name)
            if isinstance(prev, ScalarType) and prev.is_float and self._int_literal(value):
                prev = None   # `v = 1.0` then `v = 2`: Warp rejects the change of type too
            try:
                e = self.check_expr(value, prev)
            except KernelError as err:
                # a literal of another kind re-assigned: that is a change of type
                if err.rule not in ("implicit-conversion", "literal-range") \
                        or not self.is_literal_tree(value):
                    raise
                e = self.check_expr(value)
            if isinstance(e.type, ArrayType):
                raise self.error("arrays cannot be copied into local variables", value,
                                 "array-alias", f"use {ast.unparse(value)} directly")
            if e.type is None:
                raise self.error(f"{ast.unparse(value)} has no value", value, "no-value")
            if name in self.loop_vars:
                raise self.error(f"cannot assign to the loop variable {name!r}", target,
                                 "loop-var-assign", "use another variable")
            self.declare(name, e.type, target)
            return H.Assign(name, e, loc)
        if isinstance(target, ast.Subscript):
            target = flat_index(self, target) or target      # a[i][j] = v of a 2-d array
        part = assign_part(self, target, value, loc)   # a[i].x = v, m[i][r] = row
        if part is not None:
            return part
        if isinstance(target, ast.Subscript):
            whole = self.structs.store_element(target, value, s)   # arr[i] = struct
            if whole is not None:
                return whole
            return self._assign_subscript(target, value, s, loc)
        if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name):
            var = self._local_vector(target.value)
            part = named_parts(var.type).get(target.attr)
            if part is not None:   # v.x = s, t.p = v
                e = self._typed(value, part[2], what="a component")
                return H.AssignComponent(var.name, part[0], part[1], e, loc)
        raise self.error(f"cannot assign to `{ast.unparse(target)}`", target, "bad-assign-target",
                         "assign to a variable, an array element a[i] or a vector component")

    def _typed(self, node, t, what="value"):
        e = self.check_expr(node, t)
        if e.type != t:
            raise self.error(f"{what} of type {e.type} where {t} is needed", node,
                             "implicit-conversion" if isinstance(e.type, ScalarType) and
                             isinstance(t, ScalarType) and e.type.is_float != t.is_float
                             else "type-mismatch", f"convert with {t}(...)")
        return e

    def _local_vector(self, node):
        e = self.check_expr(node)
        if not isinstance(e, H.LocalRef) or not isinstance(e.type, (VectorType, MatrixType)):
            raise self.error(f"cannot assign into `{ast.unparse(node)}`", node,
                             "bad-assign-target")
        if e.name not in self.defined:    # a part written: the rest is read unchecked
            raise self.error(f"variable {e.name!r} may be used before it is assigned", node,
                             "undefined-variable",
                             "assign it on every path before this point (before the loop/if)")
        return e

    def _assign_subscript(self, target, value, s, loc):
        base = target.value
        if isinstance(base, ast.Name) and base.id in self.arrays:
            arr = self.check_expr(base)
            idx = self.check_indices(arr, self.index_list(target.slice), target)
            v = self._typed(value, arr.type.dtype, what="stored value")
            return H.StoreStmt(arr, idx, v, loc)
        if isinstance(base, ast.Attribute) and base.attr == "shape":
            raise self.error("array shapes cannot be assigned", target, "bad-assign-target")
        if isinstance(base, ast.Name):
            var = self._local_vector(base)
            t = var.type
            parts = self.index_list(target.slice)
            if not all(self.is_const(p) for p in parts) or past_components(self, t, parts):
                return dynamic_write(self, var, parts, value, loc)    # v[i] = x
            if isinstance(t, VectorType) and len(parts) == 1:
                k = self.constant_index(parts[0], t.length, "a vector component")
                return H.AssignComponent(var.name, k, 1, self._typed(value, t.dtype), loc)
            if isinstance(t, MatrixType) and len(parts) == 2:
                r = self.constant_index(parts[0], t.rows, "a matrix row")
                c = self.constant_index(parts[1], t.cols, "a matrix column")
                return H.AssignComponent(var.name, r * t.cols + c, 1,
                                         self._typed(value, t.dtype), loc)
        part = assign_local_matrix_part(self, target, value, loc)   # m[r] = row, m[r][c] = x
        if part is not None:
            return part
        raise self.error(f"cannot assign to `{ast.unparse(target)}`", target, "bad-assign-target",
                         "index the array directly: a[i, j] = v")

    def _assign_tuple(self, target, value, s):
        names = target.elts
        if is_dsl_call(self.info, value, "tid"):
            if value.args or value.keywords:
                raise self.error("vk.tid() takes no arguments", value, "arity")
            if not all(isinstance(n, ast.Name) for n in names) or not 1 <= len(names) <= 4:
                raise self.error("unpack vk.tid() into 1 to 4 plain names", target,
                                 "bad-assign-target")
            self.note_tid(len(names), value)
            for n in names:
                if n.id in self.arrays:
                    raise self.error(f"cannot assign to the array {n.id!r}", n, "assign-to-array")
                self.declare(n.id, I32, n)
            return H.TidUnpack(tuple(n.id for n in names), self.loc(value))
        if isinstance(value, ast.Call) and not is_dsl_call(self.info, value, "tid"):
            out = self._unpack_call(target, value, s)
            if out is not None:
                return out
        if isinstance(value, ast.Tuple) and len(value.elts) == len(names):
            temps, out = [], []
            for v in value.elts:
                e = self.check_expr(v)
                t = self.temp()
                self.declare(t, e.type, v)
                temps.append(t)
                out.append(H.Assign(t, e, self.loc(v)))
            for n, t in zip(names, temps):
                fake = ast.Name(id=t, ctx=ast.Load(), lineno=n.lineno, col_offset=n.col_offset)
                out.append(self.assign(n, fake, s))
            return out
        raise self.error("tuple assignment is allowed only to unpack vk.tid() or a tuple of "
                         "the same length", target, "no-tuples",
                         "assign each variable separately")

    def _shared_decl(self, name, call, target):
        if not self.is_kernel:
            raise self.error("shared arrays are declared in kernels only", call, "shared-decl",
                             "declare it in the kernel and pass it to the func")
        if name in self.arrays or name in self.var_types:
            raise self.error(f"{name!r} is already defined", target, "shared-decl",
                             "use a new name for each shared array")
        t = shared_array_type(self, call)
        self.arrays[name] = t
        self.local_names.discard(name)
        self.uses_block = True
        return H.SharedDecl(name, t, self.loc(call))

    def _stmt_AugAssign(self, s):
        if type(s.op) not in BINOP_NAMES:
            raise self.error("unsupported augmented assignment", s, "unsupported-statement")
        op = BINOP_NAMES[type(s.op)]
        t = flat_index(self, s.target) or s.target     # a[i][j] += v of a 2-d array
        loc = self.loc(s)
        if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) \
                and t.value.id in self.arrays:
            arr = self.check_expr(t.value)
            idx = self.check_indices(arr, self.index_list(t.slice), t)
            if op in ATOMIC_AUG:
                v = self.check_expr(s.value, arr.type.dtype)
                check_atomic_value(self, ATOMIC_AUG[op], arr, (v,), (s.value,))
                return H.AtomicUpdate(ATOMIC_AUG[op], arr, idx, v, loc)
            out = []
            fixed = []
            for e in idx:
                if isinstance(e, (H.Literal, H.LocalRef)):
                    fixed.append(e)
                else:
                    tmp = self.temp()
                    self.declare(tmp, e.type, t)
                    out.append(H.Assign(tmp, e, e.loc))
                    fixed.append(H.LocalRef(tmp, e.type, e.loc))
            old = H.IndexExpr(arr, tuple(fixed), arr.type.dtype, self.loc(t))
            rhs = self.check_expr(s.value, literal_type_for(op, old.type))
            rt = check_binary_types(self, op, old, rhs, s)
            if rt != arr.type.dtype:
                raise self.error(f"result {rt} does not fit the element type {arr.type.dtype}",
                                 s, "type-mismatch")
            out.append(H.StoreStmt(arr, tuple(fixed), H.BinaryExpr(op, old, rhs, rt, loc), loc))
            return out
        if isinstance(t, ast.Name):
            if t.id in self.arrays:
                raise self.error(f"cannot assign to the array {t.id!r}", t, "assign-to-array")
            if t.id in self.loop_vars:
                raise self.error(f"cannot assign to the loop variable {t.id!r}", t,
                                 "loop-var-assign", "use another variable")
            cur = self.check_expr(ast.Name(id=t.id, ctx=ast.Load(), lineno=t.lineno,
                                           col_offset=t.col_offset))
            rhs = self.check_expr(s.value, literal_type_for(op, cur.type))
            rt = check_binary_types(self, op, cur, rhs, s)
            self.declare(t.id, rt, t, read_first=True)
            return H.Assign(t.id, H.BinaryExpr(op, cur, rhs, rt, loc), self.loc(t))
        part = augassign_part(self, s, op, ATOMIC_AUG, loc)   # a[i].x += v
        if part is None:
            part = dynamic_update(self, s)     # v[i] += x, i a run-time index
        if part is not None:
            return part
        # component of a local vector: v.x += ..., v[0] += ...
        load = self.check_expr(ast.fix_missing_locations(
            ast.copy_location(ast.Subscript(value=t.value, slice=t.slice, ctx=ast.Load())
                              if isinstance(t, ast.Subscript) else
                              ast.Attribute(value=t.value, attr=t.attr, ctx=ast.Load()), t)))
        rhs = self.check_expr(s.value, literal_type_for(op, load.type))
        rt = check_binary_types(self, op, load, rhs, s)
        if isinstance(load, H.ComponentExpr) and isinstance(load.value, H.LocalRef) \
                and rt == load.type:
            return H.AssignComponent(load.value.name, load.index, load.count,
                                     H.BinaryExpr(op, load, rhs, rt, loc), loc)
        raise self.error(f"cannot update `{ast.unparse(t)}`", t, "bad-assign-target")

