"""Source mutants of kernel files, for checking that the prover catches bugs.

Each mutant is the kernel file with ONE small, typical GPU bug injected into
a `@kernel` or `@func` body (ast-based, printed back with `ast.unparse`);
the operators live in `tools.mutate_sites`:

- `drop-barrier`: a `sync_threads()` call removed;
- `move-barrier`: a `sync_threads()` moved into a thread-dependent branch;
- `guard-bound`: a guard comparison's bound off by one in the direction that
  admits one more thread (`i < n` -> `i < n + 1`, `if i >= n: return` ->
  `if i >= n + 1: return`), or a `range` stop + 1;
- `index-shift`: an array index shifted by one (`a[i]` -> `a[i + 1]`,
  `a[i - 1]` -> `a[i - 2]`);
- `call-arg-shift`: an index argument of one call of a func called twice
  or more shifted by one (`load(y, i)` -> `load(y, i + 1)`): a bug in one
  inlined copy only;
- `lt-to-le`: a strict/non-strict swap that admits the boundary value;
- `atomic-to-plain`: every atomic site (`a[i] += v`, `&=`, `|=`, `^=` on an
  array element; `vk.atomic_*` as a statement or `x = vk.atomic_*(...)`)
  turned into a plain read-modify-write;
- `drop-requires`: a `vk.requires(...)` precondition removed;
- `div-guard`: a divisor's comparison with a constant (`d != 0`, `d > 0`)
  dropped from a guard or a requires;
- `assert-invert`: `assert c` -> `assert not (c)`;
- `assert-unguard`: an assert moved before the `if` (or early exit) guarding it;
- `invariant-break`: a comparison of a `vk.invariant` hint one step too strong;
- `overload-literal`: a bare float literal of integral value passed to an
  overloaded `@wp.func` written as an int (`reach(1.0)` -> `reach(1)`): Warp
  calls the int overload then;
- `generic-any`: in a module that imports `Any`, a kernel's integer array
  parameter made `dtype=Any` with the original signature as its one declared
  `wp.overload` (Warp instantiates it for any key type at launch);
- `rebind-constant`: a module-level int constant a kernel reads, rebound
  later in the module (`global` at import time, an import under its name,
  `globals()[...]`; `tools.mutate_rebind`). Its expected outcome is a
  refusal, not a failed obligation (REFUSAL_KINDS).

Invariants: a mutant differs from the original in the one construct its
`loc` names (line/col of the ORIGINAL source); generation is deterministic;
`kernels` names the kernels whose proofs cover the mutated function (the
function itself when it is a kernel, else every kernel that calls it,
directly or through other funcs). `compiled` keeps only mutants the
frontend compiles (and every REFUSAL_KINDS mutant), each distinct, and says
why the others were dropped.
"""
from __future__ import annotations

import ast
from collections import Counter
from dataclasses import dataclass

from verikern.mir.nodes import SourceLoc

from tools.mutate_sites import SITE_FINDERS, call_name, module_info

KINDS = ("drop-barrier", "move-barrier", "guard-bound", "index-shift", "call-arg-shift", "lt-to-le",
         "atomic-to-plain", "drop-requires", "div-guard", "assert-invert", "assert-unguard",
         "invariant-break", "overload-literal", "generic-any", "rebind-constant")
assert set(KINDS) == set(SITE_FINDERS)
#: Kinds whose mutant the frontend must refuse with a located error (the
#: file cannot be modelled as Python runs it): `compiled` keeps them although
#: they do not compile, and a refusal counts as caught.
REFUSAL_KINDS = frozenset({"rebind-constant"})


@dataclass(frozen=True)
class MutationSite:
    """Where a mutant of `kind` would be made: the `ordinal`-th site of that
    kind in function `function` (walk order), at `loc` in the original;
    `kernels` are the kernels that reach `function`."""

    kind: str
    loc: SourceLoc
    description: str
    function: str
    ordinal: int
    kernels: tuple[str, ...]

    @property
    def ident(self) -> str:
        """A stable id: `<kind>@<line>:<col>`."""
        return f"{self.kind}@{self.loc.line}:{self.loc.col}"


@dataclass(frozen=True)
class Mutant:
    """One mutated version of a file: its `site` and the whole mutated `source`."""

    site: MutationSite
    source: str

    kind = property(lambda self: self.site.kind)
    loc = property(lambda self: self.site.loc)
    description = property(lambda self: self.site.description)
    kernels = property(lambda self: self.site.kernels)
    ident = property(lambda self: self.site.ident)


# ------------------------------------------------------------------ functions
def _decorator_name(dec: ast.expr) -> str | None:
    if isinstance(dec, ast.Call):
        dec = dec.func
    if isinstance(dec, ast.Attribute):
        return dec.attr
    if isinstance(dec, ast.Name):
        return dec.id
    return None


def _functions(tree: ast.Module) -> list[tuple[ast.FunctionDef, bool]]:
    """(function, is_kernel) for every top-level @kernel / @func."""
    out = []
    for n in tree.body:
        if isinstance(n, ast.FunctionDef):
            names = {_decorator_name(d) for d in n.decorator_list}
            if "kernel" in names or "func" in names:
                out.append((n, "kernel" in names))
    return out


def _reaching_kernels(functions) -> dict[str, tuple[str, ...]]:
    """function name -> the kernels (source order) that are it or call it."""
    names = {fn.name for fn, _ in functions}
    calls = {fn.name: {call_name(c) for c in ast.walk(fn) if call_name(c) in names} for fn, _ in functions}
    out: dict[str, list[str]] = {fn.name: [] for fn, _ in functions}
    for fn, is_kernel in functions:
        if not is_kernel:
            continue
        seen, todo = {fn.name}, [fn.name]
        while todo:
            for callee in calls[todo.pop()] - seen:
                seen.add(callee)
                todo.append(callee)
        for name in seen:
            out[name].append(fn.name)
    return {k: tuple(v) for k, v in out.items()}


# ------------------------------------------------------------------ plan / make
def plan(source: str, filename: str = "<mutant>", kinds=KINDS) -> list[MutationSite]:
    """Every mutation site of `source` of the given kinds, ordered by kind
    (KINDS order) then source position; sites with the same ident and
    description are listed once; sites in a func no kernel calls are left
    out (no proof covers them). Raises SyntaxError for unparsable source."""
    tree = ast.parse(source, filename)
    functions = _functions(tree)
    info = module_info(tree, [fn for fn, _ in functions])
    reach = _reaching_kernels(functions)
    out: list[MutationSite] = []
    for kind in kinds:
        if kind not in SITE_FINDERS:
            raise ValueError(f"unknown mutant kind {kind!r}; choose from {', '.join(KINDS)}")
        found = []
        for fn, _ in functions:
            if not reach[fn.name]:
                continue
            for ordinal, (node, description, _) in enumerate(SITE_FINDERS[kind](fn, info)):
                loc = SourceLoc(filename, getattr(node, "lineno", 0), getattr(node, "col_offset", -1) + 1)
                found.append(MutationSite(kind, loc, description, fn.name, ordinal, reach[fn.name]))
        found.sort(key=lambda m: (m.loc.line, m.loc.col))
        seen = set()
        for site in found:
            key = (site.ident, site.description)
            if key not in seen:
                seen.add(key)
                out.append(site)
    return out


def make(source: str, site: MutationSite) -> Mutant:
    """The mutant of `source` at `site` (from `plan` on the same source)."""
    tree = ast.parse(source, site.loc.file)
    functions = _functions(tree)
    info = module_info(tree, [fn for fn, _ in functions])
    fn = next(f for f, _ in functions if f.name == site.function)
    _, _, apply = list(SITE_FINDERS[site.kind](fn, info))[site.ordinal]
    apply()
    return Mutant(site, ast.unparse(ast.fix_missing_locations(tree)) + "\n")


def generate(source: str, filename: str = "<mutant>", kinds=KINDS) -> list[Mutant]:
    """Every mutant of `source` of the given kinds, in `plan` order."""
    return [make(source, site) for site in plan(source, filename, kinds)]


def compile_problem(source: str, filename: str, kernels) -> str | None:
    """None when the frontend compiles `source` and each of `kernels`; else
    a short reason (the error class and the start of its message)."""
    from verikern.frontend import compile_source

    try:
        module = compile_source(source, filename)
    except SyntaxError as err:
        return f"SyntaxError: {err.msg}"
    except Exception as err:   # the frontend's own errors carry file:line:col
        return _reason(err)
    errors = list(module.errors or ())
    for name in kernels:   # a generic kernel compiles to instances `name[int8]`, ...
        instances = [k for k in module.kernels if k.name == name or k.name.startswith(name + "[")]
        if not instances:
            errors.append(f"kernel {name} is missing")
        for k in instances:
            if k.error is not None or k.mir is None:
                errors.append(k.error or f"kernel {k.name} has no MIR")
    return _reason(errors[0]) if errors else None


def _reason(err) -> str:
    text = getattr(err, "message", None) or str(err)
    text = text.split("error: ", 1)[-1]
    words = text.split()
    short = " ".join(words[:6])
    return f"{type(err).__name__}: {short}" if not isinstance(err, str) else short


def distinct(source: str, sites) -> tuple[list[Mutant], Counter]:
    """The mutants of `sites`, in order, each with a source no earlier one has
    (and that differs from the original's), and a Counter of the others
    ("<kind>: the same source as another mutant or the original")."""
    out: list[Mutant] = []
    dropped: Counter = Counter()
    seen = {ast.unparse(ast.parse(source)) + "\n"}
    for site in sites:
        m = make(source, site)
        if m.source in seen:
            dropped[f"{site.kind}: the same source as another mutant or the original"] += 1
            continue
        seen.add(m.source)
        out.append(m)
    return out, dropped


def compiled(source: str, filename: str, sites) -> tuple[list[Mutant], Counter]:
    """The mutants of `sites` that compile, each with a source no earlier one
    has (and that differs from the original's), and a Counter of why the
    others were dropped ("<kind>: <reason>")."""
    unique, dropped = distinct(source, sites)
    kept: list[Mutant] = []
    for m in unique:
        problem = compile_problem(m.source, filename, m.kernels)
        if problem is not None and m.kind not in REFUSAL_KINDS:
            dropped[f"{m.kind}: does not compile ({problem})"] += 1
            continue
        kept.append(m)
    return kept, dropped


def select(items: list, cap: int = 8, start: int = 0) -> list:
    """At most `cap` mutants (or sites), chosen deterministically: round-robin
    over the kinds present (so each is represented when cap allows), each
    kind in source order; the round starts at the `start`-th kind present
    (rotate it across files to spread small caps over every kind)."""
    by_kind: dict[str, list] = {}
    for m in items:
        by_kind.setdefault(m.kind, []).append(m)
    present = [k for k in KINDS if k in by_kind]
    if present:
        s = start % len(present)
        present = present[s:] + present[:s]
    chosen: list = []
    depth = 0
    while len(chosen) < cap and any(depth < len(v) for v in by_kind.values()):
        for kind in present:
            group = by_kind.get(kind, [])
            if depth < len(group) and len(chosen) < cap:
                chosen.append(group[depth])
        depth += 1
    return chosen


def select_compiled(mutants: list, compiles, cap: int, start: int = 0, every_of=()) -> list:
    """`select([m for m in mutants if compiles(m)], cap, start)` plus every
    mutant of the kinds `every_of` that compiles, in `mutants` order, calling
    `compiles` (at most once a mutant) only on the mutants that decide it: of
    each kind, the first ones up to the one `select` takes last (a mutant
    compiles in about 0.2 CPU s, and a file's selection needs only a few)."""
    answers: dict[int, bool] = {}
    by_kind: dict[str, list] = {}
    for m in mutants:
        by_kind.setdefault(m.kind, []).append(m)
    done: dict[str, list] = {k: [] for k in by_kind}
    tried = dict.fromkeys(by_kind, 0)

    def ok(m) -> bool:
        if id(m) not in answers:
            answers[id(m)] = bool(compiles(m))
        return answers[id(m)]

    def nth(kind: str, depth: int):
        """The `depth`-th mutant of `kind` that compiles, else None."""
        group, found = by_kind.get(kind, []), done.get(kind, [])
        while len(found) <= depth and tried.get(kind, 0) < len(group):
            m = group[tried[kind]]
            tried[kind] += 1
            if ok(m):
                found.append(m)
        return found[depth] if depth < len(found) else None

    chosen: list = []
    if cap > 0:
        present = [k for k in KINDS if nth(k, 0) is not None]
        if present:
            s = start % len(present)
            present = present[s:] + present[:s]
        depth = 0
        while len(chosen) < cap and any(nth(k, depth) is not None for k in by_kind):
            for kind in present:
                m = nth(kind, depth) if len(chosen) < cap else None
                if m is not None:
                    chosen.append(m)
            depth += 1
    taken = set(map(id, chosen))
    return [m for m in mutants if id(m) in taken or (m.kind in every_of and ok(m))]
