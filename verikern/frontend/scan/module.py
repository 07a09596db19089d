"""Reading a kernel file without executing it: import aliases, literal
module constants, module options and the @kernel / @func definitions.

Invariant: nothing in the file is executed; only literal constants (ints,
floats, bools, tuples, arithmetic on them and references to earlier
constants, optionally wrapped in `vk.constant(...)`) become visible to
kernels; every other module-level name is recorded as non-constant so a
kernel that reads it gets a `closure` error.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any

from verikern.errors import KernelError
from verikern.hir.types import BOOL, ScalarType
from verikern.mir.nodes import SourceLoc
from .annotations import subclassed_type, value_type
from .constants import NotConstant, eval_module_constant
from .rebinding import ANY, Rebinding, conditional_rebindings, find_rebindings, other_targets
from .project import (
    FOREIGN_FILE, bind_import_from, bind_module_alias, chain_root,
    rebindings_from_outside,
)
from .type_names import round_float
from .star_imports import module_level_names, unread_star
from .decorators import decorator_of, read_definition
from .overload_decls import MUTATORS, Fn
from .class_constants import changing_use, plain_int_class_members
from .class_funcs import bind_qualified_calls, drop_changed_classes, register_class_funcs
from .imported_funcs import bind_imported_funcs
from .definitions import Definition, FuncIndex, module_options, register_definition
from .enums import int_enum_members

DSL_MODULES = ("verikern", "warp")
#: the DSL's module of types: `from warp.types import matrix` is `wp.types.matrix`, and its
#: other names (`vec3`, `float32`, `array`) are the DSL's own
DSL_TYPES_MODULES = ("warp.types", "verikern.types")
TYPE_FACTORIES = ("vector", "matrix", "quaternion", "transformation")


def loc_of(filename: str, node: ast.AST) -> SourceLoc:
    """The 1-based line and column of an AST node, in `filename` -- or in
    the project module a func was imported from (project.py tags its nodes
    with FOREIGN_FILE)."""
    return SourceLoc(getattr(node, FOREIGN_FILE, filename), getattr(node, "lineno", 0),
                     getattr(node, "col_offset", -1) + 1)


@dataclass
class ModuleInfo:
    filename: str
    source: str
    aliases: set[str] = field(default_factory=set)       # names bound to the DSL module
    from_imports: dict[str, str] = field(default_factory=dict)  # local name -> DSL name
    constants: dict[str, object] = field(default_factory=dict)
    nonconstant: set[str] = field(default_factory=set)
    definitions: list[Definition] = field(default_factory=list)
    fast_math: bool = False
    errors: list[KernelError] = field(default_factory=list)
    std_modules: dict[str, str] = field(default_factory=dict)  # local name -> "math"/"numpy"
    type_aliases: dict[str, ast.AST] = field(default_factory=dict)  # name -> type expression
    # module-level names first bound to a literal, later rebound at run time
    # (e.g. under `if __name__ == "__main__":`): name -> the literal's value,
    # whose type the kernel sees; the value itself is unknown
    rebound: dict[str, object] = field(default_factory=dict)
    ambiguous_funcs: set[str] = field(default_factory=set)  # funcs defined in several scopes
    overloads: dict[str, list] = field(default_factory=dict)  # kernel -> wp.overload(...) calls
    kernel_fast_math: bool | None = None   # scratch: the decorator being read
    launch_sites: dict[str, list] = field(default_factory=dict)  # kernel -> [(wp.launch, fn)]
    calls: dict[str, list] = field(default_factory=dict)  # plain name -> its ast.Call nodes
    # names bound once to a typed literal (`X = wp.constant(wp.float64(2.0))`) -> (value, type)
    typed_constants: dict[str, tuple] = field(default_factory=dict)
    # name (or rebinding.ANY) -> a site that can rebind it anywhere in the file
    # (a `global` statement, globals()[...], a second binding, ...): never a constant
    rebindings: dict[str, Rebinding] = field(default_factory=dict)
    # `class Flags(IntEnum): ACTIVE = 1`: enum name -> {member: int value}
    enums: dict[str, dict[str, int]] = field(default_factory=dict)
    enum_imports: dict[str, str] = field(default_factory=dict)  # local -> "IntEnum"/"IntFlag"
    # plain classes of int constants read as enums (scan/class_constants.py)
    plain_classes: set[str] = field(default_factory=set)
    structs: dict[str, ast.ClassDef] = field(default_factory=dict)  # @wp.struct classes
    # a struct of `structs` another project module defines -> that module, whose
    # names its field annotations use (check/structs.py reads them there)
    struct_origins: dict[str, Any] = field(default_factory=dict)
    # module-level ints read from the environment (scan/settings.py): name -> Setting
    settings: dict[str, Any] = field(default_factory=dict)
    # project-aware reading (project.py): the project (None: imports from
    # other modules are never constants), this module's dotted name, whether
    # it is a package's __init__.py, and the imports that led here
    project: Any = None
    module_name: str = ""
    is_package: bool = False
    # name -> the import chain that failed to resolve it (project.py)
    unresolved: dict[str, list[str]] = field(default_factory=dict)
    # `import pkg.consts as c`: c -> the ModuleInfo of pkg.consts (project.py)
    module_aliases: dict[str, Any] = field(default_factory=dict)
    pending_funcs: list[tuple] = field(default_factory=list)  # (defining info, name, local)
    import_notes: dict[str, str] = field(default_factory=dict)  # func -> why it was not taken
    # the project's own decorators read from source (decorators.py): name -> "kernel"/"func",
    # and the identity guards they may call: name -> the function
    decorators: dict[str, str] = field(default_factory=dict)
    guards: dict[str, ast.FunctionDef] = field(default_factory=dict)
    # for overload_decls.py: module-level lists/tuples bound once (name -> (node, the
    # ModuleInfo it is written in)) and undecorated module-level functions (name -> Fn)
    literal_lists: dict[str, tuple] = field(default_factory=dict)
    project_funcs: dict[str, Any] = field(default_factory=dict)
    # star imports (star_imports.py): the names this module's own statements bind, and
    # the names its `from <project module> import *` statements bound
    own_names: set[str] = field(default_factory=set)
    star_names: set[str] = field(default_factory=set)
    # a name imported from a project module -> (that ModuleInfo, its name there): for errors
    name_origins: dict[str, tuple] = field(default_factory=dict)
    # class_funcs.py: class -> {static func: its module-level name}, and the text of a
    # dotted call target (`m.C.f`, `m.f`, `C.f`) -> the name of the func it means here
    class_funcs: dict[str, dict[str, str]] = field(default_factory=dict)
    qualified_calls: dict[str, str] = field(default_factory=dict)
    # imported_funcs.py's work on this module's own func nodes, done once per node while
    # this ModuleInfo lives (one compile): (what, id(node), ...) -> (node, the result)
    taken_memo: dict[tuple, tuple] = field(default_factory=dict)

    #: `funcs` and `func_definitions`' index of `definitions` (definitions.py `FuncIndex`)
    func_index: FuncIndex | None = field(default=None, repr=False, compare=False)

    def _func_index(self) -> FuncIndex:
        index = self.func_index
        if index is None or not index.fits(self.definitions):
            index = self.func_index = FuncIndex(self.definitions)
        return index.caught_up()

    @property
    def funcs(self) -> dict[str, Definition]:
        """The module's funcs by name (the last definition of a name wins), made again
        only when `definitions` grew, from the entries it grew by (definitions are only
        appended to the list or the list replaced: class_funcs.py). Callers never change it."""
        return self._func_index().func_map()

    def func_definitions(self, name: str) -> list[Definition]:
        """Every func definition named `name`, in the order of `definitions` (a list of
        the caller's own)."""
        return list(self._func_index().by_name.get(name, ()))

    @property
    def kernels(self) -> list[Definition]:
        return [d for d in self.definitions if d.kind == "kernel"]

    def loc(self, node: ast.AST) -> SourceLoc:
        return loc_of(self.filename, node)

    def rebinding(self, name: str) -> Rebinding | None:
        """A site that can rebind the module-level `name`, or None."""
        return self.rebindings.get(name) or self.rebindings.get(ANY)

    def line(self, loc: SourceLoc) -> str | None:
        source = self.source
        if loc.file != self.filename and self.project is not None:   # an imported func's line
            source = next((m.source for m in self.project.modules.values()
                           if m is not None and m.filename == loc.file), "")
        lines = source.splitlines()
        return lines[loc.line - 1] if 1 <= loc.line <= len(lines) else None

    def error(self, message: str, node_or_loc, rule: str, hint: str | None = None) -> KernelError:
        loc = node_or_loc if isinstance(node_or_loc, SourceLoc) else self.loc(node_or_loc)
        return KernelError(message, loc, rule=rule, hint=hint, source_line=self.line(loc))

    def dsl_name(self, node: ast.AST) -> str | None:
        """`vk.x.y` (any DSL alias) -> "x.y"; a from-imported name -> its DSL name."""
        parts = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if isinstance(node, ast.Name):
            if node.id in self.aliases and parts:
                return ".".join(reversed(parts))
            if node.id in self.from_imports:
                return ".".join([self.from_imports[node.id], *reversed(parts)])
        return None


def _rebind(info: ModuleInfo, name: str) -> None:
    """`name` may get a value the file computes at run time (inside an if,
    a loop, a with or a try: e.g. `if __name__ == "__main__": N = args.n`):
    kernels see an unknown value of the type of its literal binding."""
    old = info.constants.pop(name, None)
    info.typed_constants.pop(name, None)
    info.enums.pop(name, None)
    info.module_aliases.pop(name, None)
    if isinstance(old, (bool, int, float)) and name not in info.nonconstant:
        info.rebound[name] = old
    info.nonconstant.add(name)


def typed_constant(node: ast.AST, info: ModuleInfo):
    """(value, type) of `wp.constant(T(literal))` or `T(literal)` with T a
    numeric scalar type and the literal in T's range (floats rounded to T),
    else None."""

    if isinstance(node, ast.Call) and info.dsl_name(node.func) == "constant" \
            and len(node.args) == 1 and not node.keywords:
        node = node.args[0]
    if not (isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords):
        return None
    t = value_type(info, node.func)
    if not isinstance(t, ScalarType) or t == BOOL:
        return None
    try:
        v = eval_module_constant(node.args[0], info)
    except NotConstant:
        return None
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    if t.is_float:
        return round_float(float(v), t), t
    if isinstance(v, int) and t.min_value <= v <= t.max_value:
        return v, t
    return None


def _list_like(value) -> bool:
    """A value overload_decls.py may read as a list or dict: a literal, `tuple(...)`,
    `list(...)`, `zip(...)` or `+`/`*` of such."""
    if isinstance(value, (ast.List, ast.Tuple, ast.Dict)):
        return True
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name):
        return value.func.id in ("tuple", "list", "zip")
    return isinstance(value, ast.BinOp) and (_list_like(value.left) or _list_like(value.right))


def _unpacked_constants(targets: list, value, info: ModuleInfo) -> dict | None:
    """`A, B = (1.0, 2.0)`: one tuple (or list) target of distinct names and a
    tuple (or list) of as many literal constants give {name: value}; None for
    anything else, or when the module can rebind one of the names anywhere."""
    if len(targets) != 1 or not isinstance(targets[0], (ast.Tuple, ast.List)) \
            or not isinstance(value, (ast.Tuple, ast.List)) or len(value.elts) != len(targets[0].elts):
        return None
    names = [t.id for t in targets[0].elts if isinstance(t, ast.Name)]
    if len(names) != len(value.elts) or len(set(names)) != len(names) \
            or any(info.rebinding(n) is not None for n in names):
        return None
    try:
        return {n: eval_module_constant(v, info) for n, v in zip(names, value.elts)}
    except NotConstant:
        return None


def _bind_target_names(target: ast.AST, out: set[str]) -> None:
    for n in ast.walk(target):
        if isinstance(n, ast.Name):
            out.add(n.id)


def _module_scope_binders(tree: ast.Module) -> dict[str, list[ast.stmt]]:
    """name -> the top-level statements that bind it at module scope, in order: a
    def, class, import or assignment, or a compound statement (if, for, with, try)
    binding it anywhere outside the bodies of the functions and classes in it."""
    binders: dict[str, list[ast.stmt]] = {}
    for stmt in tree.body:
        names: list[str] = []
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names = [stmt.name]
        else:
            stack: list[ast.AST] = [stmt]
            while stack:
                n = stack.pop()
                if n is not stmt and isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    names.append(n.name)
                    continue
                if isinstance(n, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
                    continue
                if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
                    names.append(n.id)
                elif isinstance(n, (ast.Import, ast.ImportFrom)):
                    names += [a.asname or a.name.split(".")[0] for a in n.names if a.name != "*"]
                stack.extend(ast.iter_child_nodes(n))
        for name in dict.fromkeys(names):
            binders.setdefault(name, []).append(stmt)
    return binders


def _unbind_func_overloads(tree: ast.Module, info: ModuleInfo, outside: dict) -> None:
    """A name whose last module-level bindings are `def`s of @funcs of this
    module (Warp adds each @func to the overloads of one function, or replaces
    the one of the same signature) is no rebinding: once the module has run,
    the name means that function, so another module importing it takes every
    overload. Bindings before those defs (warpSPHCore's `scalar: type =
    scalar_t`, then `if ...: scalar = scalar_t`, then `@wp.func def
    scalar(value: float)`) are overwritten by them, whatever they bound; what
    they left in `info` (a type alias, a constant) is dropped. Any other site
    that can rebind it (a binding after the defs, `global`, globals(), another
    module) keeps it rebound."""
    binders = _module_scope_binders(tree)
    funcs = {id(d.node) for d in info.definitions if d.kind == "func" and d.scope is None}
    tails: dict[str, list[ast.stmt]] = {}
    for name, stmts in binders.items():
        k = len(stmts)
        while k > 0 and isinstance(stmts[k - 1], ast.FunctionDef) and id(stmts[k - 1]) in funcs:
            k -= 1
        if k < len(stmts) and len(stmts) > 1 and name not in outside:
            tails[name] = stmts[k:]
    if not tails:
        return
    dropped = {id(st) for name, stmts in tails.items() for st in binders[name]
               if st is not stmts[0] and not isinstance(st, (ast.If, ast.For, ast.While, ast.With, ast.Try))}
    kept = [st for st in tree.body if id(st) not in dropped]
    again = find_rebindings(ast.Module(body=kept, type_ignores=[]), info.filename)
    for name, stmts in tails.items():
        if name in again:
            continue
        info.rebindings.pop(name, None)
        if stmts[0] is not binders[name][0]:     # bound otherwise first: the defs overwrite it
            for table in (info.constants, info.typed_constants, info.enums, info.type_aliases,
                          info.module_aliases, info.rebound, info.literal_lists):
                table.pop(name, None)


def scan_module(tree: ast.Module, info: ModuleInfo) -> None:
    """Fill `info` from the top-level statements of `tree` (in order). A
    name that something in the file can rebind (rebinding.py) never becomes
    a constant, nor does anything computed from it. Funcs imported from the
    project are taken last, once every name of the file is known."""
    info.rebindings = find_rebindings(tree, info.filename)
    info.own_names = module_level_names(tree)
    outside: dict[str, Rebinding] = {}
    if info.project is not None:    # another module of the project may rebind them too
        outside = rebindings_from_outside(info.project, info.module_name)
        for name, site in outside.items():
            info.rebindings.setdefault(name, site)
    _scan_statements(tree, info)
    drop_changed_classes(tree, info)
    for name in sorted(info.plain_classes):    # taken only where nothing may change them
        change = changing_use(tree, info, name)
        if change is not None:
            info.enums.pop(name, None)
            info.rebindings.setdefault(name, change)
    _unbind_func_overloads(tree, info, outside)
    from .settings import read_settings  # lazy: import cycle through .factories
    read_settings(tree, info, outside)
    bind_imported_funcs(info)
    if info.module_aliases:
        for n in ast.walk(tree):   # `c.N = 7`, `pkg.config.N = 7`, setattr(c, ...) here rebind
            root = None           # the names of the modules they reach: no alias read through
            if isinstance(n, ast.Attribute) and isinstance(n.ctx, (ast.Store, ast.Del)):
                root = chain_root(n.value)
            elif isinstance(n, ast.Call) and isinstance(n.func, ast.Name) \
                    and n.func.id in ("setattr", "delattr", "vars") and n.args:
                root = chain_root(n.args[0])
            if root is not None:
                info.module_aliases.pop(root.id, None)
    bind_qualified_calls(info)


def _changed_in_place(stmt: ast.stmt) -> set[str]:
    """Module-level names whose list or dict `stmt` changes in place (`d[k] = v`,
    `del d[k]`, `d.update(...)`, `xs.append(...)`): not read as literals after it."""
    out = set()
    for n in ast.walk(stmt):
        if isinstance(n, ast.Subscript) and isinstance(n.ctx, (ast.Store, ast.Del)) \
                and isinstance(n.value, ast.Name):
            out.add(n.value.id)
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and isinstance(n.func.value, ast.Name) \
                and n.func.attr in MUTATORS:
            out.add(n.func.value.id)
    return out


def _scan_statements(tree: ast.Module, info: ModuleInfo) -> None:
    for stmt in tree.body:
        if not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            for n in _changed_in_place(stmt):
                info.literal_lists.pop(n, None)
        if isinstance(stmt, ast.Import):
            for a in stmt.names:
                root = a.name.split(".")[0]
                if a.name in DSL_MODULES:
                    info.aliases.add(a.asname or a.name)
                elif a.name in ("math", "numpy", "enum"):
                    info.std_modules[a.asname or a.name] = a.name
                else:
                    info.nonconstant.add(a.asname or root)
                    info.module_aliases.pop(a.asname or root, None)
                    if a.asname is not None or "." not in a.name:   # `import pkg.consts as c`:
                        bind_module_alias(stmt, a.name, a.asname or a.name, info)   # c.N reads its source
        elif isinstance(stmt, ast.ImportFrom):
            if bind_import_from(stmt, info):
                continue
            if stmt.module == "enum" and stmt.level == 0:
                info.enum_imports.update({a.asname or a.name: a.name for a in stmt.names})
            for a in stmt.names:
                local = a.asname or a.name
                if stmt.module in DSL_MODULES and stmt.level == 0 and a.name != "*":
                    info.from_imports[local] = a.name
                elif stmt.module in DSL_TYPES_MODULES and stmt.level == 0 and a.name != "*":
                    # `from warp.types import vector, matrix, vec3`: Warp's type module
                    info.from_imports[local] = f"types.{a.name}" if a.name in TYPE_FACTORIES else a.name
                elif a.name == "*" and not (stmt.level == 0 and (stmt.module or "").split(".")[0]
                                            in DSL_MODULES):
                    unread_star(info, stmt)    # `from numpy import *`: any earlier name may change
                else:
                    info.nonconstant.add(local)
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            value = stmt.value
            if isinstance(value, ast.Call) and info.dsl_name(value.func) == "overload" \
                    and value.args and isinstance(value.args[0], ast.Name):
                # `fill_int = wp.overload(kernel, [...])`: an overload, whatever it is bound to
                info.overloads.setdefault(value.args[0].id, []).append(value)
            single = targets[0].id if len(targets) == 1 and isinstance(targets[0], ast.Name) else None
            deco = decorator_of(info, value) if single is not None and value is not None else None
            if single is not None and value is not None and info.rebinding(single) is None:
                try:
                    info.constants[single] = eval_module_constant(value, info)
                    info.nonconstant.discard(single)
                    continue
                except NotConstant:
                    pass
            unpacked = _unpacked_constants(targets, value, info)
            if unpacked is not None:    # `A, B = (1.0, -1.0 / 3.0)`: each a literal constant
                for n, v in unpacked.items():
                    info.constants[n] = v
                    info.nonconstant.discard(n)
                continue
            typed = None
            if single is not None and value is not None:
                if value_type(info, value) is not None:   # `vec5 = wp.types.vector(5, float)`
                    info.type_aliases[single] = value
                else:
                    info.type_aliases.pop(single, None)
                typed = typed_constant(value, info) if info.rebinding(single) is None else None
            names: set[str] = set()
            for t in targets:
                _bind_target_names(t, names)
            for n in names:
                if n == single and typed is not None and n not in info.typed_constants \
                        and n not in info.nonconstant:
                    info.typed_constants[n] = typed
                else:   # bound twice: which value a kernel sees depends on run time
                    info.typed_constants.pop(n, None)
            for n in names:   # replaced for good: its literal says nothing of its type
                info.constants.pop(n, None)
                info.enums.pop(n, None)
                info.module_aliases.pop(n, None)
                info.rebound.pop(n, None)
                info.decorators.pop(n, None)
                info.guards.pop(n, None)
                info.literal_lists.pop(n, None)
                info.project_funcs.pop(n, None)
                info.nonconstant.add(n)
            if single is not None and _list_like(value) \
                    and info.rebinding(single) is None and single not in info.rebound:
                info.literal_lists[single] = (value, info)
            if deco is not None and single is not None and info.rebinding(single) is None:
                info.decorators[single] = deco     # `kernel = utils.kernel`
        elif isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name) \
                and stmt.target.id in info.constants and info.rebinding(stmt.target.id) is None:
            name = stmt.target.id
            try:  # N += 1 on a constant: still a constant
                info.constants[name] = eval_module_constant(ast.BinOp(
                    left=ast.Name(id=name, ctx=ast.Load()), op=stmt.op, right=stmt.value), info)
            except NotConstant:
                info.constants.pop(name, None)
                info.nonconstant.add(name)
        elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) \
                and info.dsl_name(stmt.value.func) == "set_module_options":
            module_options(stmt.value, info)
        elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) \
                and info.dsl_name(stmt.value.func) == "overload" and stmt.value.args \
                and isinstance(stmt.value.args[0], ast.Name):
            info.overloads.setdefault(stmt.value.args[0].id, []).append(stmt.value)
        elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if not register_definition(stmt, info):
                info.nonconstant.add(stmt.name)
                info.constants.pop(stmt.name, None)
                read_definition(stmt, info)
                info.literal_lists.pop(stmt.name, None)
                info.project_funcs.pop(stmt.name, None)
                if isinstance(stmt, ast.FunctionDef) and not stmt.decorator_list \
                        and info.rebinding(stmt.name) is None:
                    info.project_funcs[stmt.name] = Fn(stmt, info)
                from .factories import scan_factory  # lazy: import cycle with .factories
                scan_factory(stmt, info, {})
                continue
            info.constants.pop(stmt.name, None)
        elif isinstance(stmt, ast.ClassDef):
            info.nonconstant.add(stmt.name)
            named = subclassed_type(stmt, info)     # `class vec1f(vector(1, wp.float32)): pass`
            if named is not None and info.rebinding(stmt.name) is None:
                info.type_aliases[stmt.name] = named
            else:
                info.type_aliases.pop(stmt.name, None)
            info.enums.pop(stmt.name, None)
            members = int_enum_members(stmt, info)
            if members is None:      # a plain class of int constants (scan/class_constants.py)
                members = plain_int_class_members(stmt, info)
                if members is not None:
                    info.plain_classes.add(stmt.name)
            if members is not None and info.rebinding(stmt.name) is None:
                info.enums[stmt.name] = members
            info.structs.pop(stmt.name, None)
            if any(info.dsl_name(d) == "struct" for d in stmt.decorator_list):
                info.structs[stmt.name] = stmt   # @wp.struct (check/structs.py reads it)
            from .factories import scan_factory  # lazy: import cycle with .factories
            taken = set() if stmt.name in info.structs else \
                register_class_funcs(stmt, info, register_definition)    # `API.get(...)`
            for member in stmt.body:   # kernels built in methods (class scope is not visible)
                if isinstance(member, ast.FunctionDef) and id(member) not in taken \
                        and not register_definition(member, info, {}):
                    scan_factory(member, info, {})
        else:
            for sub in ast.walk(stmt):
                if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
                    _rebind(info, sub.id)
                for t in other_targets(sub):   # `import os as N` under an if, ...
                    _rebind(info, t.id)
            for name, node in conditional_rebindings(stmt, info.rebound, info.constants):
                # a value of another (or an unreadable) type: not the literal's type
                info.rebound.pop(name, None)
                info.rebindings.setdefault(name, Rebinding(info.loc(node), (
                    f"a binding of {name!r} under an if, loop, with or try whose value "
                    "verikern cannot read as its literal's type")))
