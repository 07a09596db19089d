"""Warp structs in kernel and func bodies (docs/LANGUAGE.md section 2):
`@wp.struct` classes as parameters, locals, func arguments and results and
array dtypes, `s.field` reads and writes, nested structs.

A struct never reaches HIR as a value: every struct variable is flattened
into one variable per leaf field, named by its dotted path (`s.pos`,
`s.inner.n`; `hir.types.struct_leaves`). Before a body is checked,
`StructScope.rewrite` replaces each attribute chain rooted at a struct
variable by the Name of the field it reaches (`s.inner.n` -> Name
"s.inner.n", `s.pos.x` -> Attribute(Name "s.pos", "x")), so the rest of the
checker sees ordinary scalars, vectors and arrays (an array field is an
array parameter named "s.points"). An array of structs is one array per
leaf field, of one shape (`parts[i].pos` -> `parts.pos[i]`); a func's struct
result is the tuple of its leaves, unpacked into the caller's variable.

Invariants: the rewrite works on a copy of the body (the module's AST is
shared by every instance and overload); a struct variable's type is fixed
by its first binding (a parameter annotation, `S()`, another struct
variable); leaves keep declaration order, so a func's flattened parameters
line up with the leaves of the struct its caller passes; a struct is used
through a field, as a whole in a copy `a = b`, an element store `arr[i] =
s`, a `return s` or as a func argument; a misuse of those forms is a
located `struct-use` KernelError, and any other use of the struct's own
name finds no variable of that name (a located `unknown-name` error).
"""
from __future__ import annotations

import ast
import copy
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from verikern.hir import nodes as H
from verikern.mir.nodes import StructArg
from ..scan.annotations import ARRAY_CTORS, parse_annotation
from ..scan.constants import NotConstant
from ..scan.class_funcs import qualified_func
from ..scan.project import module_member
from ..scan.tree_copy import copy_tree
from .held_arrays import (
    ROW_SUFFIX, HeldReads, field_struct_arrays, has_held, held_model_refusal, held_requires,
    leaf_paths, row_binding, row_copy,
)
from .statement_walks import bindings_in
from .struct_aliases import AliasReads, array_field_aliases
from .struct_ctors import ctor_parts
from .struct_passing import call_result_struct, unpacked_result
from .struct_field_names import _FieldNames, _binding, _located, _path, _shape
from verikern.hir.types import (
    ArrayType, MatrixType, ScalarType, StructArrayType, StructType, TupleType, UnmodelledField,
    VectorType, component_count, struct_array_leaves, struct_leaves,
)

_RULE = "struct-use"

if TYPE_CHECKING:   # the state and methods of the class that mixes this in
    from .host import CheckerHost as _Host
else:
    _Host = object


class StructChecks(_Host):
    """Mixin of BodyChecker: struct parameters, the struct body rewrite and
    the launch's view of struct parameters (see the module docstring)."""

    def _leaf_param(self, name: str, t, arg) -> H.Param:
        if isinstance(t, ArrayType):
            self.arrays[name] = t
            self.param_arrays.add(name)
        else:
            self.local_names.add(name)
            self.declare(name, t, arg)
        return H.Param(name, t, self.loc(arg))

    def struct_param(self, arg) -> list[H.Param] | None:
        """The leaf parameters of a struct or array-of-structs parameter, else None."""
        name = struct_class_name(self.info, arg.annotation)
        if name is not None:
            t = struct_type(self, name)
            self.struct_params[arg.arg] = t
            return [self._leaf_param(leaf, lt, arg) for leaf, lt in struct_leaves(t, arg.arg)]
        elements = struct_array(self.info, arg.annotation)
        if elements is None:
            return None
        t = struct_type(self, elements[0])   # one array per leaf field
        self.struct_arrays[arg.arg] = t
        return [self._leaf_param(leaf, lt, arg)
                for leaf, lt in array_leaves(self, t, elements[1], arg.arg, arg)]

    def struct_result_type(self, annotation) -> TupleType | None:
        """A func's `-> S` for a struct S: the tuple of its leaves (as a tuple
        result: the caller unpacks it into the struct variable), else None."""
        name = struct_class_name(self.info, annotation)
        if name is None:
            return None
        t = struct_type(self, name)
        leaves = struct_leaves(t, "")
        if not all(is_value_leaf(lt) for _, lt in leaves):
            raise self.error(f"a func cannot return {t.name}: it has array fields", annotation,
                             _RULE, "return its value fields, or pass the struct in")
        self.struct_return = t
        return TupleType(tuple(lt for _, lt in leaves))

    def structs_of_params(self) -> StructScope:
        arrays = dict(self.struct_arrays)
        for root, t in self.struct_params.items():   # struct-array fields (held_arrays.py)
            arrays.update(field_struct_arrays(t, root))
        return StructScope(self, self.struct_params, arrays)

    def struct_body(self) -> list:
        """The body to check: struct field chains made Names."""
        self.structs = self.structs_of_params()
        self.structs.find_locals(self.node.body)
        if not self.structs.types and not self.structs.arrays:
            return self.node.body
        refuse_unmodelled(self, self.node.body, self.structs)
        held = HeldReads(self, self.structs.arrays, self.structs.rows)
        body = self.structs.rewrite([held.visit(copy_tree(s)) for s in self.node.body], copied=True)
        aliases = array_field_aliases(self, self.structs.types,   # rows: check/held_arrays.py
                                      set(self.struct_params) | set(self.structs.rows), body)
        if aliases:   # a local struct's array fields: the parameters they alias
            self.structs.aliases = aliases
            body = [AliasReads(aliases).visit(s) for s in body]
        self.local_names |= {n.id for s in body for n in ast.walk(s)
                             if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        self.local_names |= self.structs.leaf_names()
        self.local_names |= {hidden for _, hidden in self.structs.rows.values()}
        return body

    def struct_shape_requires(self) -> list:
        sites = {a.arg: a.annotation or a for a in self.node.args.args}
        held = {k: t for k, t in self.structs.arrays.items() if has_held(t)}
        return [self._requires(c) for c in self.structs.shape_requires(sites)] + \
            held_requires(self, held, sites)

    def struct_args(self) -> tuple[StructArg, ...]:
        """How a launch passes each struct parameter (mir.nodes.StructArg)."""
        names = [a.arg for a in self.node.args.args]
        return tuple(StructArg(n, names.index(n), leaf_paths(t, n in self.struct_arrays),
                               n in self.struct_arrays)
                     for n, t in {**self.struct_params, **self.struct_arrays}.items())


def refuse_unmodelled(chk, body: list, scope: "StructScope") -> None:
    """A located error at the first field chain of `body` that reaches an
    UnmodelledField (`ds.ngon_n_blocks[i]`, `parts[k].held`), else nothing."""
    for node in (n for s in body for n in ast.walk(s)):
        if not isinstance(node, ast.Attribute):
            continue
        attrs: list[str] = []
        base: ast.AST = node
        while isinstance(base, ast.Attribute):
            attrs.append(base.attr)
            base = base.value
        t: object = None
        if isinstance(base, ast.Name):
            t = scope.types.get(base.id)
        elif isinstance(base, ast.Subscript) and isinstance(base.value, ast.Name):
            t = scope.arrays.get(base.value.id)
        for attr in reversed(attrs):
            if not isinstance(t, StructType):
                break
            t = t.field(attr)
            if isinstance(t, UnmodelledField):
                raise chk.error(f"{ast.unparse(node)}: {t.reason}", node, _RULE, t.hint)


def struct_class_name(info, node: ast.AST | None) -> str | None:
    """The name of the `@wp.struct` class `node` names, or None: `S`, or
    `mod.S` with `mod` a project module alias (`from . import mod`) that
    cannot rebind `S` (registered in info.structs under "mod.S")."""
    if isinstance(node, ast.Name) and node.id in info.structs:
        return node.id
    if not isinstance(node, ast.Attribute):
        return None
    member = module_member(info, node)
    if member is not None and member[1] in member[0].structs:
        key = ast.unparse(node)
        info.structs.setdefault(key, member[0].structs[member[1]])
        info.struct_origins.setdefault(key, member[0].struct_origins.get(member[1], member[0]))
        return key
    return None


@dataclass(frozen=True)
class _FieldReader:
    """What parse_annotation needs to read a struct's field annotations in the
    module that defines the struct: its names, and errors at its file:line:col."""

    info: Any

    current_node = None

    def error(self, message, node, rule, hint=None):
        return self.info.error(message, node, rule, hint)

    def const_eval(self, node: ast.AST):
        """An int or float literal, or a literal constant of the defining module
        (an array's `ndim=2`, `ndim=NDIM`); NotConstant otherwise."""
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
            return node.value
        if isinstance(node, ast.Name) and isinstance(self.info.constants.get(node.id), (int, float)):
            return self.info.constants[node.id]
        raise NotConstant


def struct_type(chk, name: str, _depth: int = 0) -> StructType:
    """The StructType of the module's `@wp.struct class name`, its field
    annotations read as parameter annotations are, with the names of the module
    that defines it (a struct imported from another project module reads its
    own imports and aliases there; an error names that module's file)."""
    cls = chk.info.structs[name]
    origin = chk.info.struct_origins.get(name)
    reader = chk if origin is None or origin is chk.info else _FieldReader(origin)
    if _depth > 16:
        raise reader.error(f"struct {name!r} contains itself", cls, _RULE)
    fields: list[tuple[str, Any]] = []
    for stmt in cls.body:
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
            continue   # a docstring
        if not (isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)):
            raise reader.error(f"struct {name!r}: only annotated fields (`x: wp.float32`) are "
                               "supported in a @wp.struct body", stmt, _RULE)
        inner = struct_class_name(reader.info, stmt.annotation)
        elements = struct_array(reader.info, stmt.annotation) if inner is None else None
        if elements is not None:     # warp-simdata's `ngon_n_blocks: wp.array(dtype=UGDatasetHandle)`
            elem = struct_type(reader, elements[0], _depth + 1)
            refusal = held_model_refusal(elem, elements[1])
            if refusal is None:      # modelled (check/held_arrays.py)
                fields.append((stmt.target.id, StructArrayType(elem, elements[1])))
                continue
            held = [leaf for leaf, lt in struct_leaves(struct_type(reader, elements[0], _depth + 1), "")
                    if not isinstance(lt, (ScalarType, VectorType, MatrixType))]
            what = (f"whose elements hold arrays ({elements[0]}'s field{'s' if len(held) > 1 else ''} "
                    f"{', '.join(h.lstrip('.') for h in held[:3])}): {refusal} is outside what "
                    "verikern models")
            where = reader.info.loc(stmt.annotation)
            at = f" (declared at {where.file}:{where.line}:{where.col})"
            fields.append((stmt.target.id, UnmodelledField(
                f"the field {stmt.target.id!r} of the struct {_shown(name, cls)!r} is an array of the struct "
                f"{elements[0]!r}{at}, {what}", "pass the arrays the kernel reads as parameters "
                "of their own (or as fields of a struct parameter)")))
            continue
        ft = struct_type(reader, inner, _depth + 1) if inner is not None else \
            parse_annotation(reader, stmt.annotation, f"field {stmt.target.id!r} of {name}")
        fields.append((stmt.target.id, ft))
    return StructType(name, tuple(fields))


def _shown(name: str, cls: ast.ClassDef) -> str:
    """How an error names the struct `name`: its class's own name when a taken
    func's annotation brought it under a `_vk_<module>__` name (scan/project.py)."""
    return cls.name if name.startswith("_vk_") else name


def struct_array(info, node: ast.AST | None) -> tuple[str, int] | None:
    """(struct name, ndim) of `wp.array(dtype=S[, ndim=k])`, `wp.array2d(dtype=S)`
    or `wp.array[S]` with S a `@wp.struct`, else None."""
    if isinstance(node, ast.Subscript) and info.dsl_name(node.value) == "array":
        name = struct_class_name(info, node.slice)
        return (name, 1) if name is not None else None
    if not isinstance(node, ast.Call) or info.dsl_name(node.func) not in ARRAY_CTORS:
        return None
    kw = {k.arg: k.value for k in node.keywords}
    dtype = kw.get("dtype", node.args[0] if node.args else None)
    name = struct_class_name(info, dtype)
    if name is None:
        return None
    ndim = ARRAY_CTORS[info.dsl_name(node.func)] or 1
    given = kw.get("ndim")
    if isinstance(given, ast.Constant) and isinstance(given.value, int):
        ndim = given.value
    return name, ndim


def array_leaves(chk, t: StructType, ndim: int, prefix: str, node) -> list[tuple[str, ArrayType]]:
    """An array of structs as one array per value leaf field, of the same shape
    (an array of a struct with array fields, which Warp takes, holds arrays in its
    elements: outside what verikern models, a located error)."""
    refusal = held_model_refusal(t, ndim) if has_held(t) else None
    if refusal is not None:
        raise chk.error(f"an array of {t.name}: {refusal} is outside what verikern models",
                        node, _RULE, "pass the arrays the kernel reads as parameters of their "
                        "own (or as fields of a struct parameter)")
    leaves = struct_array_leaves(t, prefix, ndim)   # held arrays: check/held_arrays.py
    return [(name, lt) for name, lt in leaves if isinstance(lt, ArrayType)]


def zero_value(t, loc) -> H.Expr:
    """The zero of a scalar, vector or matrix type (Warp's default field value)."""
    if isinstance(t, ScalarType):
        return H.Literal(False if t.is_bool else (0.0 if t.is_float else 0), t, loc)
    n = t.length if isinstance(t, VectorType) else t.rows * t.cols
    zero = H.Literal(0.0 if t.dtype.is_float else 0, t.dtype, loc)
    return H.BuiltinCall("construct", (zero,) * n, t, loc)


class StructScope:
    """The struct variables of one body: name -> StructType."""

    def __init__(self, chk, params: dict[str, StructType],
                 arrays: dict[str, StructType] | None = None):
        self.chk = chk
        self.types: dict[str, StructType] = dict(params)
        #: arrays of structs (parameters): name -> element type; each is one
        #: array per leaf field, named by the dotted path (`parts.pos`)
        self.arrays: dict[str, StructType] = dict(arrays or {})
        #: the array fields of local structs: leaf -> the parameter it aliases
        #: (check/struct_aliases.py)
        self.aliases: dict[str, str] = {}
        #: struct locals bound to an element `X[b]` of a struct array whose
        #: elements hold arrays: name -> (X's key, the hidden local keeping b)
        self.rows: dict[str, tuple[str, str]] = {}

    def find_locals(self, body: list) -> None:
        """Locals bound to `S()` or to another struct variable (to a fixed point)."""
        changed = True
        while changed:
            changed = False
            for node in (n for s in body for n in bindings_in(s)):
                target, value, ann = _binding(node)
                key = row_binding(self, value) if target is not None else None
                if key is not None:   # `blk = X[b]`: its held arrays read through b
                    if self.rows.setdefault(target, (key, target + ROW_SUFFIX))[0] != key:
                        raise self.chk.error(f"{target} is bound to elements of two struct arrays "
                                             f"({self.rows[target][0]} and {key})", node, _RULE,
                                             "use one variable for each")
                if target is None or target in self.types:
                    continue
                t = self.type_of(value) if value is not None else None
                name = struct_class_name(self.chk.info, ann) if ann is not None else None
                if name is not None:
                    t = struct_type(self.chk, name)
                if t is not None:
                    self.types[target] = t
                    changed = True

    def type_of(self, node: ast.AST) -> StructType | None:
        """The struct type of a struct-valued expression (`S(...)`, a call of
        a func that returns a struct, a struct variable or a struct field of
        one), else None."""
        name = struct_class_name(self.chk.info, node.func) if isinstance(node, ast.Call) else None
        func = node.func.id if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
            else qualified_func(self.chk, node.func) if isinstance(node, ast.Call) else None
        if name is not None:
            return struct_type(self.chk, name)
        if isinstance(node, ast.Call) and func is not None:   # by its overloads (check/struct_passing.py)
            return call_result_struct(self, node, func)
        if isinstance(node, ast.Subscript) and ".".join(_path(node.value) or ()) in self.arrays:
            return self.arrays[".".join(_path(node.value) or ())]   # an element of an array of structs
        path = _path(node)
        if path is None or path[0] not in self.types:
            return None
        t: object = self.types[path[0]]
        for attr in path[1:]:
            if not isinstance(t, StructType) or t.field(attr) is None:
                return None
            t = t.field(attr)
        return t if isinstance(t, StructType) else None

    def rewrite(self, body: list, copied: bool = False) -> list:
        """A copy of `body` with every field chain of a struct variable a Name.
        `copied`: the statements are the caller's own copy, which nothing else
        holds (struct_body's), rewritten in place rather than copied again: the
        result is the same, a copy_tree (deepcopy) keeping a statement's shared
        nodes shared."""
        fields = _FieldNames(self.types, self.arrays)
        return [fields.visit(s if copied else copy_tree(s)) for s in body]

    def leaf_names(self) -> set[str]:
        """The dotted names of every value (non-array) leaf of a struct variable."""
        return {n for root, t in self.types.items() for n, lt in struct_leaves(t, root)
                if is_value_leaf(lt)}

    # ------------------------------------------------------------ statements
    def assign(self, target: str, value: ast.AST, node) -> list | None:
        """The HIR of `target = value` for a struct variable `target` (one
        Assign per value leaf), or None when `target` is not a struct."""
        t = self.types.get(target)
        if t is None:
            return None
        chk = self.chk
        loc = chk.loc(node)
        leaves = struct_leaves(t, target)
        held = [name for name, lt in leaves if isinstance(lt, ArrayType)]
        if held and target in self.rows:   # `blk = X[b]` (check/held_arrays.py)
            return row_copy(self, target, t, value, node)
        if held and target not in chk.struct_params and isinstance(value, ast.Call) \
                and not value.args and not value.keywords:   # `d = S()`, its array fields checked
            leaves = [(name, lt) for name, lt in leaves if name not in held]   # by struct_aliases.py
        elif held:
            raise chk.error(f"struct {t} has array fields: such a struct can be a parameter, "
                            "not a local variable", node, _RULE,
                            "read its fields from the parameter directly")
        if isinstance(value, ast.Call) and struct_class_name(chk.info, value.func) == t.name:
            if value.args or value.keywords:   # every field given (check/struct_ctors.py)
                return self._built(target, leaves, ctor_parts(self, value, t), node)
            out = []
            for name, lt in leaves:
                chk.declare(name, lt, node)
                out.append(H.Assign(name, zero_value(lt, loc), loc))
            return out
        src = self.type_of(value)
        if src != t:
            raise chk.error(f"{target} is a {t}, assigned {ast.unparse(value)}", value, _RULE,
                            f"assign a {t.name}() or another {t.name} variable")
        if isinstance(value, ast.Call):   # a func's struct result: a tuple of the leaves
            return self._unpack(value, leaves, node)
        out = []
        for (name, lt), part in zip(leaves, self.leaf_nodes(value, t)):
            e = chk.check_expr(part)
            chk.declare(name, lt, node)
            out.append(H.Assign(name, e, loc))
        return out

    def _built(self, target: str, leaves, parts: list, node) -> list:
        """`target = S(...)` with every field given: each part typed as its
        field, through temporaries when a part reads the target itself."""
        chk = self.chk
        loc = chk.loc(node)
        values = [chk._typed(part, lt, what=f"a value for {name}")
                  for (name, lt), part in zip(leaves, parts)]
        reads_target = any(isinstance(n, ast.Name) and (n.id == target or
                                                        n.id.startswith(target + "."))
                           for part in parts for n in ast.walk(part))
        out = []
        if reads_target and len(values) > 1:
            temps = []
            for e in values:
                tmp = chk.temp()
                chk.declare(tmp, e.type, node)
                out.append(H.Assign(tmp, e, loc))
                temps.append(H.LocalRef(tmp, e.type, loc))
            values = temps
        for (name, lt), e in zip(leaves, values):
            chk.declare(name, lt, node)
            out.append(H.Assign(name, e, loc))
        return out

    def _unpack(self, call: ast.Call, leaves, node) -> list:
        chk = self.chk
        loc = chk.loc(node)
        chk.tuple_ok = True
        try:
            e = chk.check_expr(call)
        finally:
            chk.tuple_ok = False
        unpacked_result(chk, call, e.type, leaves)    # the struct the overload it picks returns
        tmp = chk.temp()
        chk.declare(tmp, e.type, call)
        out = [H.Assign(tmp, e, loc)]
        offset = 0
        for name, lt in leaves:
            k = component_count(lt)
            chk.declare(name, lt, node)
            out.append(H.Assign(name, H.ComponentExpr(H.LocalRef(tmp, e.type, loc), offset, k,
                                                      lt, loc), loc))
            offset += k
        return out

    def result(self, value: ast.AST, t: StructType, returns: TupleType) -> H.Expr:
        """`return s` in a func that returns the struct `t`: the tuple of s's leaves."""
        chk = self.chk
        loc = chk.loc(value)
        if self.type_of(value) != t:
            raise chk.error(f"{chk.name!r} returns {t.name}, got {ast.unparse(value)}", value,
                            _RULE, f"return a {t.name} variable")
        if isinstance(value, ast.Call):
            if struct_class_name(chk.info, value.func) == t.name:
                if not value.args and not value.keywords:
                    return H.BuiltinCall("construct", tuple(zero_value(lt, loc) for lt in
                                                            returns.elems), returns, loc)
                leaves = struct_leaves(t, "")
                parts = tuple(chk._typed(part, lt, what=f"a value for {t.name}{name}")
                              for (name, lt), part in zip(leaves, ctor_parts(self, value, t)))
                return H.BuiltinCall("construct", parts, returns, loc)
            raise chk.error(f"return a {t.name} variable: assign {ast.unparse(value)} to one "
                            "first", value, _RULE)
        parts = tuple(chk.check_expr(n) for n in self.leaf_nodes(value, t))
        return H.BuiltinCall("construct", parts, returns, loc)

    def leaf_nodes(self, value: ast.AST, t: StructType) -> list[ast.expr]:
        """The leaves of a struct-valued expression as expressions: Names of
        a variable's fields, or `arr.f[i]` for an element `arr[i]` (its index
        must be free of calls, as it is read once per field), or the arguments
        of a constructor that gives every field."""
        if isinstance(value, ast.Call) and (value.args or value.keywords) \
                and struct_class_name(self.chk.info, value.func) == t.name:
            return ctor_parts(self, value, t)
        if isinstance(value, ast.Subscript):
            if any(isinstance(n, ast.Call) for n in ast.walk(value.slice)):
                raise self.chk.error("an element of an array of structs is read field by "
                                     "field: its index must not call anything", value.slice,
                                     _RULE, "compute the index into a variable first")
            root = ".".join(_path(value.value) or ())
            return [_located(ast.Subscript(value=ast.Name(id=n, ctx=ast.Load()),
                                           slice=copy.deepcopy(value.slice), ctx=ast.Load()),
                             value) for n, _ in struct_leaves(t, root)]
        prefix = ".".join(_path(value) or ())
        return [ast.copy_location(ast.Name(id=self.aliases.get(n, n), ctx=ast.Load()), value)
                for n, _ in struct_leaves(t, prefix)]

    def store_element(self, target: ast.Subscript, value: ast.AST, node) -> list | None:
        """`arr[i] = s` into an array of structs: one store per leaf field
        (each checked as the store `arr.f[i] = s.f`), else None."""
        key = ".".join(_path(target.value) or ())
        if key in self.arrays and has_held(self.arrays[key]):
            raise self.chk.error(f"{key} holds structs that hold arrays, which are read-only "
                                 "here: store its value fields one by one, not a whole element "
                                 "(check/held_arrays.py)", target, _RULE,
                                 f"write {ast.unparse(target)}.field = ... for each value field")
        if not (isinstance(target.value, ast.Name) and target.value.id in self.arrays):
            return None
        t = self.arrays[target.value.id]
        if self.type_of(value) != t:
            raise self.chk.error(f"{target.value.id} holds {t}, assigned {ast.unparse(value)}",
                                 value, _RULE, f"assign a {t.name} variable")
        if any(isinstance(n, ast.Call) for n in ast.walk(target.slice)):
            raise self.chk.error("an element of an array of structs is written field by "
                                 "field: its index must not call anything", target.slice,
                                 _RULE, "compute the index into a variable first")
        out = []
        for (name, _), part in zip(struct_leaves(t, target.value.id), self.leaf_nodes(value, t)):
            store = _located(ast.Subscript(value=ast.Name(id=name, ctx=ast.Load()),
                                           slice=copy.deepcopy(target.slice),
                                           ctx=ast.Store()), target)
            r = self.chk.assign(store, part, node)
            out += r if isinstance(r, list) else [r]
        return out

    def shape_requires(self, sites: dict[str, ast.AST]) -> list:
        """`vk.requires` that the leaf arrays of each array of structs have one
        shape (true of every launch: they are the fields of one array),
        located at the parameter's annotation (`sites`: name -> annotation)."""
        out = []
        for root, t in self.arrays.items():
            node = sites[root.split(".")[0]]
            leaves = [n for n, _ in struct_array_leaves(t, root)]
            ndim = min(self.chk.arrays[n].ndim for n in leaves)   # the elements' (held arrays add one)
            for other in leaves[1:]:
                for d in range(ndim):
                    cond = ast.Compare(left=_shape(other, d), ops=[ast.Eq()],
                                       comparators=[_shape(leaves[0], d)])
                    out.append(_located(ast.Call(func=ast.Name(id="requires", ctx=ast.Load()),
                                                 args=[cond], keywords=[]), node))
        return out

    def call_args(self, params, args: list) -> list:
        """The call's arguments with each struct-valued one replaced by the
        Names of its leaves, lined up with the func's flattened `params`."""
        out: list = []
        for a in args:
            if isinstance(a, ast.Name) and a.id in self.rows:
                raise self.chk.error(f"{a.id} reads its arrays through an element of "
                                     f"{self.rows[a.id][0]}: pass that array and the index "
                                     "instead", a, _RULE)
            if isinstance(a, ast.Name) and a.id in self.arrays:   # an array of structs
                out += [ast.copy_location(ast.Name(id=n, ctx=ast.Load()), a)
                        for n, _ in struct_leaves(self.arrays[a.id], a.id)]
                continue
            t = self.type_of(a)
            if t is None or isinstance(a, ast.Subscript):
                out.append(a)
                continue
            out += self.leaf_nodes(a, t)
        return out


def is_value_leaf(t) -> bool:
    return isinstance(t, (ScalarType, VectorType, MatrixType))
