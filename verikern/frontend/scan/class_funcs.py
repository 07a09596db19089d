"""Funcs reached through a dotted name: a `@wp.func` static method of a plain
class (`API.get(h, i)`), a func of a project module alias (`m.f(x)`), and a
static func of a class of such a module (`m.API.get(h, i)`, warp-simdata's
`nface_n.DatasetAPI.get_elem_from_idx(ds, i)`).

Warp resolves such a call when it builds the kernel by reading the attribute
chain in the caller's globals: a class attribute that is a `@wp.func` (behind
`@staticmethod` or not) is that Function. verikern reads the same chain from
the source without running it, and only where nothing can change what it
names:

- the class is bound once at module level (no rebinding anywhere in the
  project), has no decorators, no metaclass or other keywords and no base but
  `object` (a base or a metaclass could supply or intercept the attribute),
  and nothing in its module stores into one of its attributes (`API.get = g`,
  `setattr(API, ...)`);
- each link of a module chain is a project module alias that its module cannot
  rebind (`project.module_member`).

Invariant: each static func `m` of class `C` is registered as the module-level
func `_vk_static_C__m` (a name no Python source binds) with the body written in
the class; `ModuleInfo.qualified_calls` maps the text of each dotted call target
that the module's kernels and funcs write to the name of the func it means in
this module (taken from another module like any imported func, `bring_global`).
A target not in that map is not a func: the checker reports it, as before.
"""
from __future__ import annotations

import ast
import copy

#: the prefix of the module-level name a class's static func is registered under
STATIC_PREFIX = "_vk_static_"


def static_func_name(cls: str, member: str) -> str:
    return f"{STATIC_PREFIX}{cls}__{member}"


def _plain_class(cls: ast.ClassDef) -> bool:
    """No decorator, keyword (metaclass=...) or base but `object`: the class's
    attributes are the functions its body binds, nothing else supplies them."""
    return not cls.decorator_list and not cls.keywords and all(
        isinstance(b, ast.Name) and b.id == "object" for b in cls.bases)


def _is_staticmethod(dec: ast.AST, info) -> bool:
    return isinstance(dec, ast.Name) and dec.id == "staticmethod" \
        and "staticmethod" not in info.own_names and info.rebinding("staticmethod") is None


#: stands for every attribute name (a setattr() whose name verikern cannot read)
ANY_ATTRIBUTE = "*"


def _string_values(tree: ast.Module, name: str) -> set[str] | None:
    """The strings the local variable `name` may hold: those of its bindings
    in the file when each is `name = "<literal>"` inside a function (never a
    parameter, an import, a global or nonlocal, a loop, with, except or
    comprehension target), else None (any string)."""
    simple: set[int] = set()
    values: set[str] = set()
    for fn in ast.walk(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for n in ast.walk(fn):
            if isinstance(n, ast.Assign) and len(n.targets) == 1 \
                    and isinstance(n.targets[0], ast.Name) and n.targets[0].id == name \
                    and isinstance(n.value, ast.Constant) and isinstance(n.value.value, str):
                simple.add(id(n.targets[0]))
                values.add(n.value.value)
    for n in ast.walk(tree):
        if (isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, (ast.Store, ast.Del))
                and id(n) not in simple) \
                or (isinstance(n, ast.arg) and n.arg == name) \
                or (isinstance(n, (ast.Global, ast.Nonlocal)) and name in n.names) \
                or (isinstance(n, ast.alias) and (n.asname or n.name) == name) \
                or (isinstance(n, ast.ExceptHandler) and n.name == name) \
                or (isinstance(n, (ast.MatchAs, ast.MatchStar)) and n.name == name):
            return None
    return values if simple else None


def _warp_body(fn: ast.AST) -> bool:
    """A function decorated `@<x>.kernel`/`@<x>.func` (`wp.kernel`, a project's
    `simdata.func`, with arguments or not): Warp compiles its body, Python never
    runs it, so a store in it (`cursor.is_valid = True`) is a struct field's."""
    for d in getattr(fn, "decorator_list", []):
        target = d.func if isinstance(d, ast.Call) else d
        name = target.attr if isinstance(target, ast.Attribute) else \
            target.id if isinstance(target, ast.Name) else None
        if name in ("kernel", "func"):
            return True
    return False


def _instance_stores(tree: ast.Module) -> set[int]:
    """The `self.x = ...` stores of plain methods (neither static nor class
    methods) whose first parameter is never rebound: they set an attribute of
    an instance, never one of a class."""
    out: set[int] = set()
    for cls in ast.walk(tree):
        if not isinstance(cls, ast.ClassDef):
            continue
        for fn in cls.body:
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) or not fn.args.args \
                    or fn.decorator_list:
                continue
            me = fn.args.args[0].arg
            if any(isinstance(n, ast.Name) and n.id == me and isinstance(n.ctx, (ast.Store, ast.Del))
                   for n in ast.walk(fn)):
                continue
            out |= {id(n) for n in ast.walk(fn) if isinstance(n, ast.Attribute)
                    and isinstance(n.ctx, ast.Store) and isinstance(n.value, ast.Name) and n.value.id == me}
    return out


def _changed_attributes(tree: ast.Module) -> set[str]:
    """The attribute names that code in `tree` may store into or delete on any
    object (`x.m = ...`, `del x.m`, setattr/delattr(x, "m", ...), also through
    `__setattr__`/`__delattr__`), with ANY_ATTRIBUTE when a name is not a
    string literal or a variable bound only to such literals. Left out: stores
    in Warp kernel and func bodies (`_warp_body`) and into `self` of a plain
    method (`_instance_stores`)."""
    skipped = {id(n) for fn in ast.walk(tree) if _warp_body(fn) for n in ast.walk(fn)}
    skipped |= _instance_stores(tree)
    out: set[str] = set()
    for n in ast.walk(tree):
        if id(n) in skipped:
            continue
        if isinstance(n, ast.Attribute) and isinstance(n.ctx, (ast.Store, ast.Del)):
            out.add(n.attr)
            continue
        if not isinstance(n, ast.Call):
            continue
        func = n.func
        setter = (isinstance(func, ast.Name) and func.id in ("setattr", "delattr")) or \
            (isinstance(func, ast.Attribute) and func.attr in ("__setattr__", "__delattr__"))
        if not setter:
            continue
        key = n.args[1] if len(n.args) > 1 else next(
            (k.value for k in n.keywords if k.arg == "name"), None)
        if isinstance(key, ast.Constant) and isinstance(key.value, str):
            out.add(key.value)
        elif isinstance(key, ast.Name) and _string_values(tree, key.id) is not None:
            out |= _string_values(tree, key.id) or set()
        else:
            out.add(ANY_ATTRIBUTE)      # a name verikern cannot read: any attribute
    return out


#: (path, source bytes) -> `_changed_attributes` of that file (None: it does not parse)
_CHANGED: dict = {}


def _changed_in_project(tree: ast.Module, info) -> set[str]:
    """The attribute names this module, or any source file of its project,
    may change on any object (`_changed_attributes`): a class's attribute that
    no code of the project may change is the function its body binds (code
    outside the project -- Warp, the standard library -- does not patch it)."""
    out = _changed_attributes(tree)
    if info.project is None:
        return out
    from .project import _project_data   # lazy: import cycle with .project
    for path, _, data in _project_data(info.project):
        if path == info.filename:
            continue
        key = (path, data)
        if key not in _CHANGED:
            try:
                _CHANGED[key] = _changed_attributes(ast.parse(data.decode("utf-8", "replace"),
                                                              filename=path))
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                _CHANGED[key] = set()      # it cannot run either
        out |= _CHANGED[key]
    return out


def register_class_funcs(cls: ast.ClassDef, info, register) -> set[int]:
    """Register the `@wp.func` members of the module-level class `cls` (each
    behind at most a leading `@staticmethod`) as module-level funcs named by
    `static_func_name`, through `register` (module.register_definition) on a
    copy without `@staticmethod`; record them in `info.class_funcs`. Returns the
    ids of the members taken (the caller scans the others as before)."""
    info.class_funcs.pop(cls.name, None)
    if not _plain_class(cls):
        return set()
    members: dict[str, str] = {}
    taken: set[int] = set()
    rebound = _bound_otherwise(cls)
    for member in cls.body:
        if not isinstance(member, ast.FunctionDef) or not member.decorator_list \
                or member.name in rebound:
            continue
        decorators = list(member.decorator_list)
        if _is_staticmethod(decorators[0], info):
            decorators = decorators[1:]
        if not decorators or any(_is_staticmethod(d, info) or (isinstance(d, ast.Name) and d.id
                                                              == "classmethod") for d in decorators):
            continue
        fn = copy.deepcopy(member)
        fn.decorator_list = decorators
        fn.name = static_func_name(cls.name, member.name)
        definitions, errors = list(info.definitions), list(info.errors)
        if not register(fn, info):
            continue
        if len(info.definitions) <= len(definitions) or info.definitions[-1].kind != "func":
            info.definitions, info.errors = definitions, errors   # a kernel: read as before
            continue
        taken.add(id(member))
        members[member.name] = fn.name
    if members:
        info.class_funcs[cls.name] = members
    return taken


def _bound_otherwise(cls: ast.ClassDef) -> set[str]:
    """The names the class body binds other than by a decorated `def`
    (`get = other`, `del get`, an import, a plain `def`, a nested class...):
    the class attribute may not be the func a `def` of that name made."""
    out: set[str] = set()
    for stmt in cls.body:
        if isinstance(stmt, ast.FunctionDef) and stmt.decorator_list:
            continue
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(stmt.name)
            continue
        for n in ast.walk(stmt):
            if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
                out.add(n.id)
            elif isinstance(n, ast.alias):
                out.add((n.asname or n.name).split(".")[0])
    return out


def drop_changed_classes(tree: ast.Module, info) -> None:
    """Forget the static funcs of a class that the module can rebind, and each
    one whose name some code of the project may store into any object's
    attribute of (read by name: never too few); calls through them stay
    unresolved, the checker's error."""
    if not info.class_funcs:
        return
    changed = _changed_in_project(tree, info)
    for name in list(info.class_funcs):
        kept = {m: flat for m, flat in info.class_funcs[name].items()
                if m not in changed and ANY_ATTRIBUTE not in changed}
        if info.rebinding(name) is not None or not kept:
            del info.class_funcs[name]
        else:
            info.class_funcs[name] = kept


def _root(node: ast.AST) -> ast.Name | None:
    """The name an attribute chain starts from (`m` of `m.C.f`), or None."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return node if isinstance(node, ast.Name) else None


def _arg_names(fn: ast.FunctionDef) -> set[str]:
    args = fn.args
    names = {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]}
    return names | {a.arg for a in (args.vararg, args.kwarg) if a is not None}


def _local_names(fn: ast.FunctionDef) -> set[str]:
    names = _arg_names(fn)
    for n in ast.walk(fn):
        if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
            names.add(n.id)
    return names


def _class_of(info, node: ast.AST):
    """(ModuleInfo, class name) of the plain class `node` names here: a class of
    this module (`C`), one imported by name (`from m import C`), or one reached
    through a module alias chain (`m.C`); else None."""
    from .project import module_member   # lazy: import cycle with .project
    if isinstance(node, ast.Name):
        if info.rebinding(node.id) is not None:
            return None
        if node.id in info.class_funcs:
            return info, node.id
        origin = info.name_origins.get(node.id)
        if origin is not None and origin[1] in origin[0].class_funcs \
                and origin[0].rebinding(origin[1]) is None:
            return origin
        return None
    member = module_member(info, node)
    if member is not None and member[1] in member[0].class_funcs:
        return member
    return None


def _resolve(info, target: ast.Attribute) -> str | None:
    """The name, in `info`, of the func the dotted call target means (taken
    from its module if need be), else None."""
    from .imported_funcs import bring_global   # lazy: import cycle with .project
    from .project import module_member   # lazy: import cycle with .project
    owner = _class_of(info, target.value)
    if owner is not None:
        defining, cls = owner
        flat = defining.class_funcs[cls].get(target.attr)
        if flat is None:
            return None
        return flat if defining is info else bring_global(info, defining, flat, frozenset())
    member = module_member(info, target)
    if member is None:
        return None
    defining, name = member
    if name not in defining.funcs or name in defining.ambiguous_funcs or name in defining.class_funcs:
        return None
    return bring_global(info, defining, name, frozenset())


def bind_qualified_calls(info) -> None:
    """Fill `info.qualified_calls` for the dotted call targets of the module's
    kernels and funcs (in rounds: a func taken for one call brings calls of
    its own)."""
    seen: set[int] = set()
    walks = info.project.func_walks if info.project is not None else None
    while True:
        fresh = [d for d in info.definitions if id(d.node) not in seen]
        if not fresh:
            return
        for d in fresh:
            seen.add(id(d.node))
            stored, calls = _stores_and_dotted_calls(d.node, walks)
            local = _arg_names(d.node) | set(d.scope or ()) | stored   # a factory's names too
            for n in calls:
                assert isinstance(n.func, ast.Attribute)
                root = _root(n.func)
                if root is None or root.id in local or info.dsl_name(n.func):
                    continue
                text = ast.unparse(n.func)
                if text in info.qualified_calls:
                    continue
                name = _resolve(info, n.func)
                if name is not None:
                    info.qualified_calls[text] = name


def _stores_and_dotted_calls(fn: ast.FunctionDef, walks: dict | None) -> tuple[frozenset, tuple]:
    """The names `fn` stores or deletes (its locals, _local_names' but its parameters) and
    its calls of a dotted target, in one walk. A function of `fn`'s child nodes alone, which
    the frontend never changes once read: `walks` (one project read's, project.py
    `Project.func_walks`; None: none kept) keeps it by their identities, so a func taken
    into many modules with the same children (imported_funcs.py shares them) is walked
    once. An entry holds the children, so their ids stay theirs."""
    children = [v for f in fn._fields for v in (getattr(fn, f, None),)
                for v in (v if isinstance(v, list) else [v]) if isinstance(v, ast.AST)]
    key = tuple(id(c) for c in children)
    kept = walks.get(key) if walks is not None else None
    if kept is not None:
        return kept[1], kept[2]
    stored: set[str] = set()
    calls: list[ast.Call] = []
    for n in ast.walk(fn):
        if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
            stored.add(n.id)
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute):
            calls.append(n)
    made = (children, frozenset(stored), tuple(calls))
    if walks is not None:
        walks[key] = made
    return made[1], made[2]


def inline_qualified_calls(fn: ast.FunctionDef, info) -> None:
    """Rewrite, in place, the dotted call targets of `fn` (a copy) that
    `info.qualified_calls` resolves to the plain name of their func in `info`
    (before the copy is taken into another module, whose names differ)."""
    local = _local_names(fn)
    for n in ast.walk(fn):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute):
            root = _root(n.func)
            name = info.qualified_calls.get(ast.unparse(n.func))
            if name is not None and root is not None and root.id not in local:
                named = ast.copy_location(ast.Name(id=name, ctx=ast.Load()), n.func)
                for attr in vars(n.func):
                    if attr.startswith("_verikern"):
                        setattr(named, attr, getattr(n.func, attr))
                n.func = named


def qualified_func(chk, func: ast.AST) -> str | None:
    """For the checker `chk`: the func a dotted call target (`m.f`, `C.f`,
    `m.C.f`) means in its module, unless a local name or an array of the body,
    or a name of an enclosing function (a factory's parameter `API`), shadows
    the name the target starts from; else None."""
    if not isinstance(func, ast.Attribute):
        return None
    root = _root(func)
    scope = chk.defn.scope or {}      # the names of a kernel factory the body captures
    if root is None or root.id in chk.local_names or root.id in chk.arrays or root.id in scope:
        return None
    name = chk.info.qualified_calls.get(ast.unparse(func))
    return name if name is not None and name in chk.info.funcs else None
