"""Vector lengths read at run time, and module-level names of length-generic
types: warpsphcore's type_config binds `dim_t = _resolve_dim(os.getenv(
"warpSPHCore_DIM"))` (bound again under an if from a config module), where
`_resolve_dim` returns `Any` or a positive int parsed from the variable, and
then `vec_t = vector(length=dim_t, dtype=scalar_t)`, `vecArray_t =
wp.array(dtype=vec_t)`.

A *run-time length* is a module-level name every binding of which (read with
configuration.py's `_binding_sites`: `=` or annotated `=` at module level or
in module-level if/try/with blocks, nothing else) is the call of a plain
(undecorated, never rebound) function of the same module each of whose
`return`s is `Any`, a positive int literal, `int(...)` or a name local to the
function, or `int(...)` of an expression reading the environment. Whatever
the environment holds, the name is then `Any` or some length: verikern reads
it, where a vector's `length=` or a matrix's `shape=` takes it, as `Any`
(check/length_generic.py), and so proves the kernel for every length its
length-generic instances cover, exactly as for `Any` (the default the
function returns with the variable unset is not needed: `Any` covers every
length, that default included). Nothing is executed.

A *length alias* is a module-level name bound once (and never rebound) to an
expression; check/length_generic.py follows it, in the module that binds it
(imports followed through `ModuleInfo.name_origins`), when the expression
writes a length-generic pattern there.

Invariant: a name is read as a run-time length or an alias only from its
defining module's source, bound as described; anything else returns None
and the name keeps the located refusal it had. A kernel reading a run-time
length that may be `Any` (a function with a `return Any`: a type's length,
never a number) as a value (a loop bound, an index, arithmetic) gets a
located error saying so (`value_read_refusal`), and only such a length (or a
name bound once to a type written with it) is linked into a module that
takes an imported func reading it; an int read at run time (`int(os.getenv(
...))`) is length-generic only where `length=`/`shape=` takes it, and read
as a value it keeps the refusal of any non-constant name.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass

from .configuration import _binding_sites, _own_nodes, _locals
from .name_origins import _environment_reads, defining_module

#: how many aliases one annotation follows (`vecArray_t` -> `vec_t` -> pattern)
MAX_ALIAS_LINKS = 8


@dataclass(frozen=True)
class RuntimeLength:
    """The run-time length `name` of the module `filename`: where it is bound,
    (line, source of the value) for each binding, and the environment
    variables those bindings read."""

    filename: str
    name: str
    bindings: tuple[tuple[int, str], ...]
    environment: tuple[str, ...]
    may_be_any: bool        # a binding can be `Any`: a type's length, never a number

    def describe(self) -> str:
        where = "; ".join(f"{self.filename}:{line}: `{text}`" for line, text in self.bindings[:3])
        env = f" from the environment variable {', '.join(self.environment)}" if self.environment else ""
        return f"`{self.name}` is a vector length chosen when the module runs{env} ({where})"


_TREES: dict[tuple[str, str], ast.Module | None] = {}
#: (file, source, name) -> `_binding_sites` of that source's tree (`_TREES`'): a function
#: of the source alone, asked of the same module once per importer that takes a func
#: reading `name` (a star-imported project asks it thousands of times per read)
_SITES: dict[tuple[str, str, str], tuple | None] = {}


def _sites(info, name: str):
    """`_binding_sites(_tree(info), name)`, read once per source and name (the lists are
    shared: callers only read them)."""
    key = (info.filename, info.source, name)
    if key not in _SITES:
        tree = _tree(info)
        _SITES[key] = None if tree is None else _binding_sites(tree, name)
    return _SITES[key]


def _tree(info) -> ast.Module | None:
    key = (info.filename, info.source)
    if key not in _TREES:
        try:
            _TREES[key] = ast.parse(info.source, filename=info.filename)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            _TREES[key] = None
    return _TREES[key]


def _is_any_name(node: ast.AST) -> bool:
    return (isinstance(node, ast.Name) and node.id == "Any") or \
        (isinstance(node, ast.Attribute) and node.attr == "Any")


def _int_call(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "int"


def _length_return(value: ast.expr | None, local: set[str]) -> bool:
    """A `return` of `Any` or of something that is an int when it is one."""
    if value is None:
        return False
    if _is_any_name(value) or _int_call(value):
        return True
    if isinstance(value, ast.Constant):
        return isinstance(value.value, int) and not isinstance(value.value, bool) and value.value >= 1
    return isinstance(value, ast.Name) and value.id in local


def _length_binding(value: ast.expr, info, funcs: dict) -> str | None:
    """"any" when one binding's value is a run-time length that may be `Any`
    (a function with a `return Any`), "int" when it is an int read at run
    time, None when it is no run-time length (module docstring)."""
    if _int_call(value):
        return "int" if _environment_reads(value) else None
    if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in funcs
            and info.rebinding(value.func.id) is None):
        return None
    fn = funcs[value.func.id]
    local = _locals(fn)
    returns = [n for n in _own_nodes(fn) if isinstance(n, ast.Return)]
    if not returns or not all(_length_return(r.value, local) for r in returns) \
            or any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in _own_nodes(fn)):
        return None
    return "any" if any(r.value is not None and _is_any_name(r.value) for r in returns) else "int"


def _module_runtime_length(info, name: str) -> RuntimeLength | None:
    tree = _tree(info)
    if tree is None or info.rebinding(name) is not None or name in info.constants \
            or name in info.type_aliases:
        return None
    sites = _sites(info, name)
    if sites is None or not sites[0]:
        return None
    funcs = {s.name: s for s in tree.body if isinstance(s, ast.FunctionDef) and not s.decorator_list}
    every = sites[1]
    kinds = [_length_binding(s.value, info, funcs) for s in every]
    if None in kinds:
        return None
    env = sorted({v for s in every for v in _environment_reads(s.value)})
    return RuntimeLength(info.filename, name, tuple((s.lineno, ast.unparse(s.value)) for s in every),
                         tuple(env), "any" in kinds)


def runtime_length(info, node: ast.AST) -> RuntimeLength | None:
    """The run-time length a name `node` reads (followed to the module that
    binds it), else None."""
    if not isinstance(node, ast.Name) or node.id == "Any" or node.id not in info.nonconstant \
            or info.rebinding(node.id) is not None:
        return None
    owner, name = defining_module(info, node.id)
    return _module_runtime_length(owner, name)


def length_alias(info, node: ast.AST):
    """(module, expression) that the module-level name `node` is bound to, once
    and unconditionally, in the module that binds it (followed through
    imports); None for any other node or binding."""
    if not isinstance(node, ast.Name) or node.id not in info.nonconstant or node.id in info.type_aliases \
            or info.rebinding(node.id) is not None:
        return None
    owner, name = defining_module(info, node.id)
    tree = _tree(owner)
    if tree is None or owner.rebinding(name) is not None or name in owner.type_aliases:
        return None
    sites = _sites(owner, name)
    if sites is None or len(sites[1]) != 1 or len(sites[0]) != 1:
        return None
    return owner, sites[0][0].value


def value_read_refusal(info, name: str) -> str | None:
    """The message for a kernel that reads the run-time length `name` as a
    value, else None."""
    found = runtime_length(info, ast.Name(id=name, ctx=ast.Load()))
    if found is None or not found.may_be_any:
        return None      # an int read at run time: the refusal of any non-constant name
    return (f"kernel code cannot read {name!r} as a value: {found.describe()}; verikern reads it "
            "only as a vector or matrix length (`length=`, `shape=`), where it makes the type "
            "length-generic (`Any`), and not as a loop bound, an index or a number")



def _reads_runtime_length(info, node: ast.AST, depth: int) -> bool:
    """Whether `node` reads a run-time length, itself or through length aliases."""
    if depth > MAX_ALIAS_LINKS:
        return False
    for n in ast.walk(node):
        if not isinstance(n, ast.Name):
            continue
        found = runtime_length(info, n)
        if found is not None:
            return found.may_be_any
        found = length_alias(info, n)
        if found is not None and _reads_runtime_length(found[0], found[1], depth + 1):
            return True
    return False


def runtime_length_or_alias(info, name: str) -> bool:
    """Whether the module-level `name` of `info` is a run-time length or a name
    bound once to a type written with one (`vec_t`, `vecArray_t`): an imported
    func that reads it is taken with a link to it (imported_funcs.bring_global)."""
    return _reads_runtime_length(info, ast.Name(id=name, ctx=ast.Load()), 0)
