"""Imported `@func`s: a func another project module defines is taken into
the importing file as a copy of its definition, read from source.

Invariant: a func is taken only when every module-level name its body reads
means the same in both files (same DSL alias, same constant, same func, same
type alias), or can be brought over under a name of its own
(`bring_global`); otherwise the name stays non-constant and a kernel calling
it gets a located error naming what differs.
"""
from __future__ import annotations

import ast
import copy

from verikern.mir.work import TAKE_UNITS

from .annotations import value_type
from .module_reads import count_read
from .project import FOREIGN_FILE
from .runtime_lengths import runtime_length_or_alias
from .tree_copy import copy_tree, renamed_tree


def bind_imported_funcs(info) -> None:
    """After the whole importing file is scanned: take each imported @func
    whose module-level names mean the same here as in its own module (in
    rounds, so a func calling another imported one is taken in any order)."""
    pending = list(info.pending_funcs)
    while True:
        left = [p for p in pending if not _take_func(info, *p)]
        if len(left) == len(pending):
            break
        pending = left
    for defining, name, local in pending:
        ds = defining.func_definitions(name)
        differing = [n for d in ds for n in _differing_globals(d.node, defining, info, True)]
        differing.sort(key=lambda n: _has_source_meaning(defining, n))   # the unreadable first
        if differing and local in info.nonconstant:
            info.import_notes[local] = (
                f"is the func {name!r} of {defining.filename}, which reads the module-level "
                f"name {differing[0]!r}; verikern cannot read that name's value from the "
                "source of its module (not a constant, or rebound), so it does not take the func")


def _take_func(info, defining, name: str, local: str, taking: frozenset = frozenset()) -> bool:
    """Take one imported func into `info` (True), or leave it (False). A
    module-level name its body reads that means something else here (a helper
    func of its module, a constant, the DSL's alias) is brought along under a
    name of its own (`bring_global`) and the copied body reads that name."""
    if local not in info.nonconstant or info.rebinding(local) is not None or \
            local in info.constants or local in info.funcs:
        return True     # rebound after the import: never taken
    ds = defining.func_definitions(name)
    sizes = []
    for d in ds:
        size = _memo(defining, ("size", id(d.node)), d.node)
        if size is None:
            size = _memo(defining, ("size", id(d.node)), d.node, sum(1 for _ in ast.walk(d.node)))
        sizes.append(size)
        count_read(info.project, size, TAKE_UNITS, "taking")   # the reading work (module_reads.py)
        if _memo(defining, ("marked", id(d.node)), d.node) is None:
            for sub in ast.walk(d.node):   # locations inside the func name its own file
                if not hasattr(sub, FOREIGN_FILE):    # (a re-exported func: the file defining it)
                    setattr(sub, FOREIGN_FILE, defining.filename)
            _memo(defining, ("marked", id(d.node)), d.node, True)
    # `m.f(...)`, `C.f(...)` in the body: the plain names of their funcs in `defining`
    # (class_funcs.py), on a copy; then taken like any other name the body reads
    nodes = [_inlined(d.node, defining) for d in ds]
    renames: dict[str, str] = {}
    for g in sorted({g for d, n in zip(ds, nodes)
                      for g in _differing_globals(n, defining, info, n is d.node)}):
        brought = bring_global(info, defining, g, taking | {(id(defining), name)})
        if brought is None:
            return False
        renames[g] = brought
    for d, fn, size in zip(ds, nodes, sizes):
        if renames and fn is d.node:    # the renamed copy, made once per func and renames:
            key = ("renamed", id(fn), tuple(sorted(renames.items())))
            renamed = _memo(defining, key, fn)  # importers that bring the same names share it,
            if renamed is None:         # as importers that need no renames share `fn`'s body
                renamed = renamed_tree(fn, renames)     # (and this copy the subtrees it leaves alone)
                _memo(defining, key, fn, renamed)
            node = copy.copy(renamed)
            node.body = list(renamed.body)  # a body of its own: `_differing_globals` tells
        else:                               # funcs apart by their bodies' identity
            node = copy.copy(fn)
            _rename_globals(node, renames)
        node.name = local
        info.definitions.append(type(d)(d.kind, node, d.loc, d.block_dim, d.requires, None,
                                        d.fast_math))
        if fn is d.node:    # `d.node`'s shape, and its nodes (shared, or copies of them) marked:
            _memo(info, ("size", id(node)), node, size)     # what a module taking it from
            _memo(info, ("marked", id(node)), node, True)   # `info` would walk it again for
    info.nonconstant.discard(local)
    return True


def _memo(defining, key: tuple, node: ast.AST, value=None):
    """`defining.taken_memo[key]`'s value (None: none yet); with `value`, store it. An
    entry holds its node, so the id in its key is that node's while the module lives."""
    if value is not None:
        defining.taken_memo[key] = (node, value)
        return value
    got = defining.taken_memo.get(key)
    return got[1] if got is not None and got[0] is node else None


def _inlined(fn: ast.FunctionDef, defining) -> ast.FunctionDef:
    """`fn`, or a copy of it whose dotted func calls read plain names of `defining`."""
    if not defining.qualified_calls or not any(
            isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
            and ast.unparse(n.func) in defining.qualified_calls for n in ast.walk(fn)):
        return fn
    from .class_funcs import inline_qualified_calls   # lazy: import cycle with .class_funcs
    fn = copy_tree(fn)
    inline_qualified_calls(fn, defining)
    return fn


def _brought_name(defining, name: str) -> str:
    """The name under which `defining`'s module-level `name` is brought into
    an importing module (dotted module names are unique in a project)."""
    module = (defining.module_name or "module").replace(".", "_")
    return f"_vk_{module}__{name}"


def bring_global(info, defining, name: str, taking: frozenset) -> str | None:
    """Bind `defining`'s module-level `name` in `info` under `_brought_name`
    with the same meaning (a literal or typed constant, an IntEnum, the DSL
    module or one of its names, math/numpy, a type alias that reads the same
    here, a struct (its fields read in its own module), or a func, taken in
    turn); None when it has none of these meanings or `defining` can rebind it."""
    brought = _brought_name(defining, name)
    if defining.rebinding(name) is not None or name in defining.ambiguous_funcs:
        return None
    if brought in info.funcs or (id(defining), name) in taking:
        return brought    # taken already, or being taken (a call cycle: Warp refuses it later)
    if name in defining.constants:
        info.constants[brought] = defining.constants[name]
    elif name in defining.typed_constants:
        info.typed_constants[brought] = defining.typed_constants[name]
    elif name in defining.enums:
        info.enums[brought] = defining.enums[name]
    elif name in defining.aliases:
        info.aliases.add(brought)
    elif name in defining.from_imports:
        info.from_imports[brought] = defining.from_imports[name]
    elif name in defining.std_modules:
        info.std_modules[brought] = defining.std_modules[name]
    elif name in defining.type_aliases:
        node = defining.type_aliases[name]
        t = value_type(defining, node)
        if t is not None and value_type(info, node) != t:   # `wp` not bound here: bring it too
            node = copy_tree(node)
            for n in ast.walk(node):
                if isinstance(n, ast.Name) and n.id != name and _has_source_meaning(defining, n.id):
                    n.id = bring_global(info, defining, n.id, taking) or n.id
        if t is None or value_type(info, node) != t:
            return None
        info.type_aliases[brought] = node
    elif name in defining.structs:      # a @wp.struct a func's annotation names (`d: domainData`)
        info.structs[brought] = defining.structs[name]
        info.struct_origins[brought] = defining.struct_origins.get(name, defining)
    elif name in defining.funcs:
        info.nonconstant.add(brought)
        if not _take_func(info, defining, name, brought, taking):
            info.nonconstant.discard(brought)
            return None
    elif name in defining.structs:    # a @wp.struct a taken func's annotations name
        info.structs[brought] = defining.structs[name]
        info.struct_origins[brought] = defining.struct_origins.get(name, defining)
    elif runtime_length_or_alias(defining, name):   # `dim_t`, `vec_t` (scan/runtime_lengths.py)
        info.nonconstant.add(brought)
        info.name_origins[brought] = (defining, name)
    else:
        return None
    return brought


def _has_source_meaning(defining, name: str) -> bool:
    """Whether `bring_global` can read `name`'s meaning in `defining` (before
    following a func's or a type alias's own names)."""
    return defining.rebinding(name) is None and name not in defining.ambiguous_funcs and any(
        name in names for names in (defining.constants, defining.typed_constants, defining.enums,
                                    defining.aliases, defining.from_imports,
                                    defining.std_modules, defining.type_aliases, defining.funcs,
                                    defining.structs))


def _rename_globals(fn: ast.FunctionDef, renames: dict[str, str]) -> None:
    """Rename the module-level names `fn` reads (never its parameters or locals:
    _differing_globals lists only names the body does not bind)."""
    if not renames:
        return
    for n in ast.walk(fn):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id in renames:
            n.id = renames[n.id]


def _differing_globals(fn: ast.FunctionDef, defining, info, lasting: bool = False) -> list[str]:
    """The module-level names `fn` reads that do not mean the same in `info`
    as in `defining` (its parameters and locals aside), each once, in the order
    of their first read; a helper func of `defining` it calls counts as
    differing (the importer must import it). `lasting`: `fn` is a func node of
    `defining` (never changed), whose reads are then walked once."""
    reads = _memo(defining, ("reads", id(fn)), fn) if lasting else None
    if reads is None:
        reads = _global_reads(fn)
        if lasting:
            _memo(defining, ("reads", id(fn)), fn, reads)
    funcs = (defining.funcs, info.funcs)    # built once, not once per name
    out = []
    for name in reads:
        meanings = [(m.constants.get(name), name in m.aliases, m.from_imports.get(name),
                     m.std_modules.get(name), m.typed_constants.get(name), name in m.nonconstant,
                     name in fs, name in m.type_aliases, id(m.structs.get(name)),
                     id(m.enums.get(name)))
                    for m, fs in zip((defining, info), funcs)]
        same_func = name in funcs[0] and name in funcs[1] and \
            funcs[1][name].node.body is funcs[0][name].node.body
        if meanings[0] != meanings[1] or (name in funcs[0] and not same_func) or (
                name in defining.type_aliases and
                ast.dump(defining.type_aliases[name]) != ast.dump(info.type_aliases[name])):
            out.append(name)
    return out


def _global_reads(fn: ast.FunctionDef) -> tuple[str, ...]:
    """The names `fn` reads (once each, first read first) that are neither its
    parameters, nor names it stores, nor its own name, nor `Any` (a generic
    parameter wherever it is): the module-level names it reads."""
    local = {a.arg for a in fn.args.args + fn.args.kwonlyargs} | {fn.name, "Any"}
    read: dict[str, None] = {}
    for n in ast.walk(fn):
        if isinstance(n, ast.Name):
            if isinstance(n.ctx, ast.Store):
                local.add(n.id)
            elif isinstance(n.ctx, ast.Load):
                read.setdefault(n.id)
    return tuple(name for name in read if name not in local)
