"""Environment settings: a module-level int that the module reads from the
environment when it is imported, nvalchemi's

    BATCH_BLOCK_SIZE = int(os.environ.get("ALCH_EWALD_BATCH_BLOCK_SIZE", 16))
    BATCH_BLOCK_SIZE = BATCH_BLOCK_SIZE if BATCH_BLOCK_SIZE > 0 else 16

Any int can come from the environment, so no finite set of configurations
covers it (scan/configuration.py compiles those). A kernel reading such a
name reads it as an unknown int32 value, the hidden parameter `@NAME` of a
name rebound at run time (factories.py, `ModuleInfo.rebound`): one proof
covers every value the environment can give, the default among them.

Invariants:
- nothing is executed. A name is a setting when the module binds it only by
  single-name assignments (at module level, or under if/try/with: configuration
  `_binding_sites`), at least one of them reading the environment, and each
  value is one of: `int(os.environ.get("V", d))` / `int(os.getenv("V", d))`
  with `d` an int literal or a string of one, an int constant expression of
  literals, the name itself (its previous value), or `a if test else b` of
  these; `os` must be the module `import os` binds. A name bound only to int
  literals, at least one under if/try/with, with two or more values (`if
  os.environ.get("BIG"): N = 64 else: N = 16`) is one too, whose finitely
  many values are all covered. Nothing else may rebind
  it: no `global`, `globals()`, setattr on the module, no other module of the
  project (rebinding.py, read again without its own assignments). Any other
  name keeps the located refusal it had;
- the value is a Python int; Warp passes a Python int to a kernel as int32,
  so the proof covers every int32 value; a setting outside int32 is not
  covered (docs/LANGUAGE.md says so);
- a fact is stated only when it holds for every value: `least <= @NAME <=
  greatest` of a name bound only to literals; when the last binding
  in source order is unconditional and is `NAME if NAME > c else L` (or `>=`,
  or `c < NAME`) with L an int literal, the kernel requires `@NAME >= min(c + 1,
  L)` (`min(c, L)` for `>=`) at its entry (`setting_requires`); launches check
  it like any requires, and it holds by construction;
- the default (every environment variable unset) is recorded for the reports.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass

from verikern.hir import nodes as H
from verikern.hir.types import BOOL, I32
from verikern.mir.nodes import SourceLoc
from .configuration import _binding_sites
from .constants import NotConstant, eval_module_constant
from .factories import CAPTURE_PREFIX
from .rebinding import ANY, find_rebindings


@dataclass(frozen=True)
class Setting:
    """A module-level int read from the environment variables `variables`."""

    name: str
    where: tuple[int, int]       # line, column of its last binding's target (the scope's text)
    variables: tuple[str, ...]
    default: int | None          # its value with every variable unset, when read
    lower: int | None            # bounds every value meets (module docstring), or None
    upper: int | None = None


def read_settings(tree: ast.Module, info, outside: dict) -> None:
    """Record the settings of the module `info` (module docstring) in
    `info.settings`, and make each an unknown int32 (`info.rebound`);
    `outside`: the names other modules of the project can rebind."""
    os_names = {a.asname or a.name for s in tree.body if isinstance(s, ast.Import)
                for a in s.names if a.name == "os"}
    os_names = {n for n in os_names if info.rebinding(n) is None}
    for name in sorted(_candidates(tree, os_names)):
        if name in outside or name in info.funcs:
            continue
        setting = _setting(tree, info, name, os_names)
        if setting is None:
            continue
        info.settings[name] = setting
        info.constants.pop(name, None)
        info.typed_constants.pop(name, None)
        info.nonconstant.add(name)
        info.rebound[name] = setting.default if setting.default is not None else 0


def _candidates(tree: ast.Module, os_names: set[str]) -> set[str]:
    """Module-level names an assignment binds to an environment read, or to an int
    literal under an if/try/with (at module level, not in a def or class)."""
    out = set()

    def visit(stmts, conditional: bool) -> None:
        for s in stmts:
            if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name) and (
                    any(_environment_int(n, os_names) is not None for n in ast.walk(s.value))
                    or (conditional and isinstance(s.value, ast.Constant) and type(s.value.value) is int)):
                out.add(s.targets[0].id)
            elif isinstance(s, (ast.If, ast.Try, ast.With)):
                handlers = [h.body for h in s.handlers] if isinstance(s, ast.Try) else []
                for block in [s.body, getattr(s, "orelse", []), getattr(s, "finalbody", []), *handlers]:
                    visit(block, True)

    visit(tree.body, False)
    return out


def _environment_int(node: ast.AST, os_names: set[str]):
    """(variable, default int) of `int(os.environ.get("V", d))` / `int(os.getenv("V", d))`, else None."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "int"
            and len(node.args) == 1 and not node.keywords):
        return None
    read = node.args[0]
    if not (isinstance(read, ast.Call) and isinstance(read.func, ast.Attribute) and len(read.args) == 2
            and not read.keywords and isinstance(read.args[0], ast.Constant)
            and isinstance(read.args[0].value, str) and isinstance(read.args[1], ast.Constant)):
        return None
    f = read.func
    is_getenv = f.attr == "getenv" and isinstance(f.value, ast.Name) and f.value.id in os_names
    is_get = f.attr == "get" and isinstance(f.value, ast.Attribute) and f.value.attr == "environ" \
        and isinstance(f.value.value, ast.Name) and f.value.value.id in os_names
    if not (is_getenv or is_get):
        return None
    d = read.args[1].value
    try:
        default = int(d) if isinstance(d, str) else d
    except ValueError:
        return None
    if isinstance(default, bool) or not isinstance(default, int):
        return None
    return read.args[0].value, default


def _setting(tree: ast.Module, info, name: str, os_names: set[str]) -> Setting | None:
    sites = _binding_sites(tree, name)
    if sites is None or info.rebindings.get(ANY) is not None:
        return None
    top, every = sites
    if not every or any(not isinstance(s, ast.Assign) for s in every):
        return None
    variables: list[str] = []
    for s in every:
        if not _readable(s.value, name, info, os_names, variables):
            return None
    literals = [_int_constant(s.value, info) for s in every]
    finite = all(v is not None for v in literals)
    if not variables and not (finite and len(every) > len(top) and len(set(literals)) > 1):
        return None         # no environment read, and not several literals chosen at run time
    # nothing but its own assignments may rebind it: read the module again without them
    mine = {id(s) for s in every}
    kept = ast.Module(body=[s for s in tree.body if id(s) not in mine], type_ignores=[])
    again = find_rebindings(kept, info.filename)
    if name in again or ANY in again:
        return None
    if finite:      # one of finitely many literals: between the least and the greatest
        bounds: tuple = (min(literals), max(literals))      # type: ignore[type-var]
    else:
        bounds = (_lower(every[-1], name) if top and every[-1] is top[-1] else None, None)
    target = every[-1].targets[0]
    return Setting(name, (target.lineno, target.col_offset + 1), tuple(dict.fromkeys(variables)),
                   _default(top, name, info, os_names) if top else None, *bounds)


def _readable(node: ast.expr, name: str, info, os_names: set[str], variables: list[str]) -> bool:
    """Whether `node` is a setting's value (module docstring); the variables it reads go
    to `variables`."""
    env = _environment_int(node, os_names)
    if env is not None:
        variables.append(env[0])
        return True
    if isinstance(node, ast.Name) and node.id == name:
        return True
    if isinstance(node, ast.IfExp):
        return _readable(node.body, name, info, os_names, variables) \
            and _readable(node.orelse, name, info, os_names, variables)
    return _int_constant(node, info) is not None


def _int_constant(node: ast.expr, info) -> int | None:
    try:
        v = eval_module_constant(node, info)
    except NotConstant:
        return None
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def _default(top: list[ast.Assign], name: str, info, os_names: set[str]) -> int | None:
    """The value after the unconditional bindings with every variable unset (the
    conditional ones not taken), or None when a test cannot be read."""
    value: int | None = None
    for s in top:
        value = _value(s.value, name, value, info, os_names)
        if value is None:
            return None
    return value


def _value(node: ast.expr, name: str, current: int | None, info, os_names: set[str]) -> int | None:
    env = _environment_int(node, os_names)
    if env is not None:
        return env[1]
    if isinstance(node, ast.Name) and node.id == name:
        return current
    if isinstance(node, ast.IfExp):
        test = _compare(node.test, name, current)
        if test is None:
            return None
        return _value(node.body if test else node.orelse, name, current, info, os_names)
    return _int_constant(node, info)


_COMPARE = {ast.Gt: lambda a, b: a > b, ast.GtE: lambda a, b: a >= b, ast.Lt: lambda a, b: a < b,
            ast.LtE: lambda a, b: a <= b, ast.Eq: lambda a, b: a == b, ast.NotEq: lambda a, b: a != b}


def _compare(test: ast.expr, name: str, current: int | None) -> bool | None:
    """`NAME op literal` (or `literal op NAME`) with NAME's value `current`, else None."""
    if current is None or not (isinstance(test, ast.Compare) and len(test.ops) == 1
                               and type(test.ops[0]) in _COMPARE):
        return None
    sides = []
    for side in (test.left, test.comparators[0]):
        if isinstance(side, ast.Name) and side.id == name:
            sides.append(current)
        elif isinstance(side, ast.Constant) and isinstance(side.value, int) and not isinstance(side.value, bool):
            sides.append(side.value)
        else:
            return None
    return _COMPARE[type(test.ops[0])](sides[0], sides[1])


def _lower(last: ast.Assign, name: str) -> int | None:
    """min(c + 1, L) for the last binding `NAME if NAME > c else L` (module docstring)."""
    v = last.value
    if not (isinstance(v, ast.IfExp) and isinstance(v.body, ast.Name) and v.body.id == name
            and isinstance(v.orelse, ast.Constant) and isinstance(v.orelse.value, int)
            and not isinstance(v.orelse.value, bool)):
        return None
    t = v.test
    if not (isinstance(t, ast.Compare) and len(t.ops) == 1):
        return None
    left, op, right = t.left, t.ops[0], t.comparators[0]
    if isinstance(right, ast.Name) and isinstance(op, (ast.Lt, ast.LtE)):    # `c < NAME`
        left, right, op = right, left, ast.Gt() if isinstance(op, ast.Lt) else ast.GtE()
    if not (isinstance(left, ast.Name) and left.id == name and isinstance(right, ast.Constant)
            and isinstance(right.value, int) and not isinstance(right.value, bool)
            and isinstance(op, (ast.Gt, ast.GtE))):
        return None
    bound = right.value + 1 if isinstance(op, ast.Gt) else right.value
    return min(bound, v.orelse.value)


def setting_requires(chk) -> list:
    """`requires(@NAME >= lower)` for each setting with a lower bound that the kernel
    reads as its hidden parameter (module docstring), in name order."""
    out = []
    for name in sorted(chk.captures):
        setting = chk.info.settings.get(name)
        if setting is None or chk.captures[name] != I32:
            continue
        loc = SourceLoc(chk.info.filename, *setting.where)      # the scope names the setting there
        own = H.LocalRef(CAPTURE_PREFIX + name, I32, loc)
        for op, bound in (("ge", setting.lower), ("le", setting.upper)):
            if bound is not None and I32.min_value <= bound <= I32.max_value:
                out.append(H.RequiresStmt(H.CompareExpr(op, own, H.Literal(bound, I32, loc), BOOL, loc), loc))
    return out
