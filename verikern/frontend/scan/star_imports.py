"""`from <project module> import *`, read from source (warpsphcore's kernel
files star-import their package's types, funcs and constants).

What a star import binds is what Python binds: the names of the module's
`__all__` when it has one, else every module-level name it binds that does
not start with `_` (its own star imports' names included).

Invariants:
- `__all__` is read only from literal lists or tuples of strings: `__all__ =
  [...]`, `__all__ += [...]`, `__all__.extend([...])`, `__all__.append("x")`
  at module level; any other use of `__all__` that can change it (a binding
  under an if, a computed value) makes the star import unreadable;
- a module without `__all__` whose names verikern does not all know (it
  star-imports a module it cannot read, or outside the project) gives no
  names: the star import stays unreadable, and every name not otherwise bound
  in the importing file stays non-constant, as before (`"*"` in
  `nonconstant`); with an `__all__`, a name of it that the module binds in a
  way verikern cannot read is bound as non-constant;
- each name is brought in as `from m import name` brings it in
  (project._bind_name: constants, typed constants, IntEnums, type aliases,
  funcs, structs, with the defining module's rebinding sites), and the DSL's
  alias, DSL names and `math`/`numpy` keep their meaning;
- a name the importing file also binds by a statement of its own (before or
  after the star import) is bound to two values in turn: unless both mean the
  same module or DSL name, it can be rebound, so it is no constant
  (`ModuleInfo.rebindings`), whichever order Python runs them in.
"""
from __future__ import annotations

import ast

from .all_comprehensions import comprehension_strings, literal_string_lists
from .rebinding import Rebinding
from .same_origin import same_object_imports

#: the calls on `__all__` that add names to it
_ALL_ADDS = ("extend", "append", "__iadd__")


def _strings(node: ast.AST) -> list[str] | None:
    """The strings of a literal list or tuple of strings (or one string), else None."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, (ast.List, ast.Tuple)) and all(
            isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts):
        return [e.value for e in node.elts]      # type: ignore[attr-defined]
    return None


def declared_all(tree: ast.Module) -> tuple[bool, list[str] | None]:
    """Whether the module has an `__all__`, and its names (None: not readable
    from literal lists at module level)."""
    names: list[str] = []
    seen = False
    lists = None
    for stmt in tree.body:
        mentions = any(isinstance(n, ast.Name) and n.id == "__all__" for n in ast.walk(stmt))
        if not mentions:
            continue
        seen = True
        value = None
        if isinstance(stmt, (ast.Assign, ast.AnnAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            if len(targets) == 1 and isinstance(targets[0], ast.Name) and stmt.value is not None:
                value = _strings(stmt.value)
                if value is not None:
                    names = list(value)
                    continue
        elif isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name) \
                and isinstance(stmt.op, ast.Add):
            value = _strings(stmt.value)
        elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) \
                and isinstance(stmt.value.func, ast.Attribute) \
                and isinstance(stmt.value.func.value, ast.Name) \
                and stmt.value.func.value.id == "__all__" and stmt.value.func.attr in _ALL_ADDS \
                and len(stmt.value.args) == 1 and not stmt.value.keywords:
            value = _strings(stmt.value.args[0])
            if value is None and stmt.value.func.attr != "append":   # [P + s for s in SUFFIXES]
                lists = literal_string_lists(tree) if lists is None else lists
                value = comprehension_strings(stmt.value.args[0], lists, stmt.lineno)
            if value is not None and stmt.value.func.attr == "append" \
                    and not isinstance(stmt.value.args[0], ast.Constant):
                value = None
        elif isinstance(stmt, ast.ImportFrom) or isinstance(stmt, ast.Import):
            continue        # `from x import __all__` is a binding we cannot read: below
        if value is None:
            return True, None
        names += value
    return seen, names


def module_level_names(tree: ast.Module) -> set[str]:
    """Every name the module's own top-level statements bind (compound statements
    included, function and class bodies not), star imports aside."""
    out: set[str] = set()
    stack: list[ast.AST] = list(tree.body)
    while stack:
        n = stack.pop()
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(n.name)
            stack.extend(n.decorator_list)
            continue
        if isinstance(n, (ast.Import, ast.ImportFrom)):
            out.update(a.asname or a.name.split(".")[0] for a in n.names if a.name != "*")
            continue
        if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
            out.add(n.id)
        if isinstance(n, ast.Lambda):
            continue
        stack.extend(ast.iter_child_nodes(n))
    return out


def exported_names(defining) -> list[str] | None:
    """The names `from <defining> import *` binds, or None when they cannot be
    read (see the module docstring). With an `__all__`, its names, even when
    the module's own names are not all known (a name it cannot read is then
    bound as non-constant)."""
    if defining is None:
        return None
    facts = _tree_facts(defining)
    if facts is None:
        return None
    has_all, declared, own = facts
    if has_all:
        return None if declared is None else list(dict.fromkeys(declared))
    if "*" in defining.nonconstant:
        return None
    names = own | set(defining.star_names)
    return sorted(n for n in names if not n.startswith("_"))


#: (file, source) -> its parsed tree: a module star-imported by several files is parsed once
_TREES: dict[tuple[str, str], ast.Module | None] = {}


#: (file, source) -> its tree's `declared_all` and `module_level_names`: functions of the
#: source alone, read once however many files star-import it
_FACTS: dict[tuple[str, str], tuple[bool, tuple[str, ...] | None, frozenset[str]]] = {}


def _tree_facts(info) -> tuple[bool, tuple[str, ...] | None, frozenset[str]] | None:
    """(has an `__all__`, its names, the module's own names) of `info`'s source, or
    None when it does not parse."""
    key = (info.filename, info.source)
    if key not in _FACTS:
        tree = _tree(info)
        if tree is None:
            return None
        has_all, declared = declared_all(tree)
        _FACTS[key] = (has_all, None if declared is None else tuple(declared),
                       frozenset(module_level_names(tree)))
    return _FACTS[key]


def _tree(info) -> ast.Module | None:
    key = (info.filename, info.source)
    if key not in _TREES:
        try:
            _TREES[key] = ast.parse(info.source, filename=info.filename)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            _TREES[key] = None
    return _TREES[key]


def _meaning(info, name: str):
    """What `name` means in `info` when it is a module or a DSL name (the same
    in any module that binds it so), else None."""
    if name in info.aliases:
        return ("dsl",)
    if name in info.from_imports:
        return ("dsl", info.from_imports[name])
    if name in info.std_modules:
        return ("std", info.std_modules[name])
    return None


def bind_star(info, defining, stmt: ast.ImportFrom, bind_name) -> bool:
    """Bind the names of `from <defining> import *` in `info` (True), or return
    False when they cannot be read. `bind_name`: project._bind_name."""
    names = exported_names(defining)
    if names is None:
        return False
    for name in names:
        meaning = _meaning(defining, name)
        if name in info.own_names and not same_object_imports(info, _tree(info), defining, name):
            if meaning is None or meaning != _meaning(info, name):
                info.rebindings.setdefault(name, Rebinding(info.loc(stmt), (
                    f"`from {defining.module_name} import *`, which binds {name!r} too")))
                _forget(info, name)
            if meaning is not None or name in info.nonconstant:
                continue            # the file's own binding of the same module or DSL name
        info.star_names.add(name)
        if meaning is not None:
            info.nonconstant.discard(name)
            if meaning[0] == "dsl" and len(meaning) == 1:
                info.aliases.add(name)
            elif meaning[0] == "dsl":
                info.from_imports[name] = meaning[1]
            else:
                info.std_modules[name] = meaning[1]
            continue
        if name in defining.module_aliases and defining.rebinding(name) is None:
            info.nonconstant.add(name)
            info.module_aliases[name] = defining.module_aliases[name]
            continue
        if not _bound(defining, name):     # in __all__, from a star import verikern cannot read
            info.nonconstant.add(name)     # (or bound nowhere: then Python fails the import)
            continue
        bind_name(info, defining, name, name, stmt)
    return True


def unread_star(info, stmt: ast.ImportFrom) -> None:
    """A star import verikern cannot read (outside the project, or its names
    unknown): it may bind any name, so no name is known to be unbound
    (`"*"` in `nonconstant`), and every name the file bound before it may now
    mean something else: none of them is a constant any more (a rebinding
    site names the import), a name imported from the DSL by name included
    (`from numpy import *` binds `matrix` and `float32`). Names bound after it
    override it as usual. The DSL module's own alias (`wp`) is kept: a star
    import that binds `wp` to anything but Warp is not considered."""
    info.nonconstant.add("*")
    earlier = set(info.constants) | set(info.typed_constants) | set(info.enums) \
        | set(info.type_aliases) | set(info.structs) | set(info.module_aliases) | set(info.rebound) \
        | set(info.from_imports)     # `from warp.types import matrix`: numpy's star binds `matrix`
    for name in sorted(earlier):
        info.rebindings.setdefault(name, Rebinding(info.loc(stmt), (
            f"`from {'.' * stmt.level}{stmt.module or ''} import *`, which verikern cannot read "
            f"and which may bind {name!r}")))
        _forget(info, name)


def _forget(info, name: str) -> None:
    """`name`, bound by the file earlier, is bound again: no value of it is known."""
    for table in (info.constants, info.typed_constants, info.enums, info.type_aliases,
                  info.structs, info.module_aliases, info.project_funcs, info.literal_lists,
                  info.from_imports):
        table.pop(name, None)
    info.rebound.pop(name, None)
    info.nonconstant.add(name)


def _bound(info, name: str) -> bool:
    return name in info.nonconstant or name in info.star_names or any(
        name in names for names in (info.constants, info.typed_constants, info.enums,
                                    info.type_aliases, info.funcs, info.structs,
                                    info.module_aliases)) \
        or any(d.node.name == name for d in info.definitions)
