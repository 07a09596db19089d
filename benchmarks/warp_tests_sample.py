"""Warp's own test-suite kernels through verikern's frontend: the compile rate.

Reads the test files of the installed warp-lang in place (never copies them,
never imports warp: the package folder is found with
`importlib.util.find_spec`, or given with --warp-dir).

The sample (deterministic, no randomness): every `@wp.kernel` definition,
at module level or inside a function (kernel factories and test functions),
of every file `warp/tests/test_*.py` and `warp/tests/matrix/test_*.py`, in
file and line order.  The other folders of warp/tests (geometry, fem, tile,
interop, cuda, aot, deterministic) test features outside docs/LANGUAGE.md (meshes,
volumes, BVHs, hash grids, FEM, tiles, framework interop) or host-side CUDA
features (streams, graphs, IPC), and are not read.

The filter decides on what a kernel *uses*, syntactically: the names of its
signature, decorators and body, and of every `@wp.func` of the same file it
calls (transitively, by name).  A kernel is excluded, with the first reason
that applies, when it uses:

- a Warp feature outside docs/LANGUAGE.md: meshes, volumes, BVHs, hash grids and
  geometry queries (`wp.mesh_*`, `wp.volume_*`, `wp.bvh_*`, `wp.hash_grid_*`,
  `wp.intersect_*`, `wp.closest_point_*`, ...), tiles (`wp.tile*`), fabric,
  indexed and sparse arrays, transforms and spatial types (`wp.transform*`,
  `wp.spatial_*`), bfloat16, textures, `wp.ref[...]` / `wp.Function`
  parameters, gradients (`wp.adjoint`, `@wp.func_grad`, `@wp.func_replay`),
  native snippets (`@wp.func_native`), raw pointers (`wp.address_of`, ...),
  arrays local to a thread (`wp.zeros`, `wp.fixedarray`), `wp.grad`;
- array views (docs/LANGUAGE.md section 2 indexes elements only): an array
  parameter indexed with fewer indices than its dimensions, or used as a
  truth value;
- a `@wp.struct` class or a Python `enum` class of the file (docs/LANGUAGE.md
  section 2 has neither), also as a type in a `wp.overload` of the kernel;
- a construct docs/LANGUAGE.md section 4 forbids: `*args` unpacking, list, dict or
  set displays, comprehensions, `lambda`, `try`, `with`, `import`; slices
  (array and vector views: section 2 has only element indexing);
- a name that reading the file cannot give a meaning to (docs/LANGUAGE.md section 1:
  only literal module-level constants are visible, and verikern reads one
  file, never executing it; section 4: no closures over non-constant names,
  no calls to anything but builtins and funcs): a module-level name bound to
  something other than a literal expression, a `wp.`/`math.`/`numpy.`
  expression (constants, casts, type aliases) or another such name; a name
  imported from a module other than warp, math and numpy; a plain Python
  function or class of the file; a name defined nowhere in the file (from a
  star import).  Names bound in an enclosing function (kernel factories) and
  Python's own builtins stay in scope.

A kernel defined inside a test function that calls `assertRaises*` is one
that Warp's test expects to fail (at compile or launch time); it is listed
separately ("Warp expects an error") and kept out of the rate.

Each file is compiled once with `verikern.frontend.compile_source`; a kernel
counts as compiled when its compile result (any `wp.overload` instance of
it) has no error.  Printed: per kernel `compiled` or the first error (rule
and message), the excluded kernels and why, and the totals with the compile
rate and the most frequent failure rules.

    python benchmarks/warp_tests_sample.py [--warp-dir DIR] [--only SUBSTRING]
                                           [--quiet] [--json OUT]
"""
from __future__ import annotations

import argparse
import ast
import builtins
import importlib.util
import json
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

# --------------------------------------------------------------- the filter
# (reason, predicate on the name after `wp.` / `wp.types.`)
_EXCLUDED_NAMES: tuple[tuple[str, object], ...] = (
    ("mesh/volume/bvh/hash-grid geometry", lambda n: n.startswith((
        "mesh_", "Mesh", "volume_", "Volume", "bvh_", "Bvh", "hash_grid_", "HashGrid",
        "intersect_", "closest_point", "triangle_closest_point", "MarchingCubes",
        "lookup_mesh", "sparse_volume"))),
    ("tiles", lambda n: n.startswith(("tile", "Tile"))),
    ("fabric/indexed/sparse arrays", lambda n: n.startswith((
        "fabricarray", "indexedfabricarray", "indexedarray", "sparse", "fem"))),
    ("transforms/spatial types", lambda n: n.startswith(("transform", "spatial_"))),
    ("bfloat16", lambda n: n in ("bfloat16", "bf16")),
    ("textures", lambda n: n.lower().startswith("texture")),
    ("reference/function parameters", lambda n: n in ("ref", "Function")),
    ("gradients", lambda n: n in ("adjoint", "func_grad", "func_replay", "Tape", "grad")),
    ("native snippets", lambda n: n == "func_native"),
    ("pointers", lambda n: n in ("address_of", "array_from_ptr", "pointer", "handle")),
    ("structs", lambda n: n == "struct"),
    ("local arrays", lambda n: n in ("zeros", "fixedarray", "full", "ones", "empty")),
)

_FORBIDDEN_NODES: tuple[tuple[type, str], ...] = (
    (ast.Starred, "*args unpacking (docs/LANGUAGE.md section 4)"),
    (ast.List, "lists (docs/LANGUAGE.md section 4)"),
    (ast.Dict, "dicts (docs/LANGUAGE.md section 4)"),
    (ast.Set, "sets (docs/LANGUAGE.md section 4)"),
    (ast.Slice, "slices (array and vector views; docs/LANGUAGE.md section 2 has none)"),
    (ast.ListComp, "comprehensions (docs/LANGUAGE.md section 4)"),
    (ast.DictComp, "comprehensions (docs/LANGUAGE.md section 4)"),
    (ast.SetComp, "comprehensions (docs/LANGUAGE.md section 4)"),
    (ast.GeneratorExp, "generators (docs/LANGUAGE.md section 4)"),
    (ast.Lambda, "lambda (docs/LANGUAGE.md section 4)"),
    (ast.Try, "try (docs/LANGUAGE.md section 4)"),
    (ast.With, "with (docs/LANGUAGE.md section 4)"),
    (ast.Import, "import (docs/LANGUAGE.md section 4)"),
    (ast.ImportFrom, "import (docs/LANGUAGE.md section 4)"),
)

_WARP_MODULES = ("wp", "warp")


def _wp_name(node: ast.AST) -> str | None:
    """`X` of `wp.X`, `wp.types.X`, `warp.X` (else None)."""
    if not isinstance(node, ast.Attribute):
        return None
    base = node.value
    if isinstance(base, ast.Name) and base.id in _WARP_MODULES:
        return node.attr
    if isinstance(base, ast.Attribute) and isinstance(base.value, ast.Name) \
            and base.value.id in _WARP_MODULES and base.attr == "types":
        return node.attr
    return None


def _decorator_names(fn: ast.FunctionDef | ast.ClassDef) -> list[str]:
    out = []
    for d in fn.decorator_list:
        d = d.func if isinstance(d, ast.Call) else d
        name = _wp_name(d)
        if name:
            out.append(name)
    return out


_PY_BUILTINS = frozenset(dir(builtins)) | {"Any", "typing", "Literal", "math", "np", "numpy"}
_CONSTANT_ROOTS = frozenset({"wp", "warp", "math", "np", "numpy", "typing"})


def _root_name(node: ast.AST) -> str | None:
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else None


def _constant_expr(node: ast.AST, names: dict[str, str]) -> bool:
    """A literal expression, a `wp.`/`math.`/`numpy.` expression of such, or
    a name of another constant: what reading the file can evaluate."""
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, (ast.Tuple, ast.List)):
        return all(_constant_expr(e, names) for e in node.elts)
    if isinstance(node, ast.UnaryOp):
        return _constant_expr(node.operand, names)
    if isinstance(node, ast.BinOp):
        return _constant_expr(node.left, names) and _constant_expr(node.right, names)
    if isinstance(node, ast.Name):
        return names.get(node.id) in ("ok", "func") or node.id in _PY_BUILTINS
    if isinstance(node, (ast.Attribute, ast.Subscript)):
        return _root_name(node) in _CONSTANT_ROOTS
    if isinstance(node, ast.Call):
        head = _root_name(node.func)
        if head in _CONSTANT_ROOTS or names.get(head) == "ok" or head in _PY_BUILTINS:
            return all(_constant_expr(a, names) for a in node.args) and \
                all(_constant_expr(k.value, names) for k in node.keywords)
    return False


def _module_bindings(tree: ast.Module) -> dict[str, str]:
    """Module-level name -> "ok" (a constant expression or type alias),
    "func" (a @wp.func/@wp.kernel), "def", "class", "import" or "runtime"."""
    names: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            decos = _decorator_names(node)
            names[node.name] = "func" if {"func", "kernel", "overload"} & set(decos) else "def"
        elif isinstance(node, ast.ClassDef):
            names[node.name] = "class"
        elif isinstance(node, ast.Import):
            for a in node.names:
                top = a.name.split(".")[0]
                names[a.asname or top] = "ok" if top in ("warp", "math", "numpy", "typing") \
                    else "import"
        elif isinstance(node, ast.ImportFrom):
            top = (node.module or "").split(".")[0]
            for a in node.names:
                if a.name != "*":
                    names[a.asname or a.name] = "ok" if top in ("math", "typing") or \
                        node.module in ("warp", "warp.types") else "import"
        elif isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            kind = "ok" if _constant_expr(node.value, names) else "runtime"
            for t in targets:
                for n in ast.walk(t):
                    if isinstance(n, ast.Name):
                        # a name bound twice keeps the worse kind (rebinding at run time)
                        names[n.id] = kind if names.get(n.id, "ok") == "ok" else names[n.id]
    return names


_ARRAY_NDIM = {"array": 1, "array1d": 1, "array2d": 2, "array3d": 3, "array4d": 4}


def _array_ndim(ann) -> int | None:
    """The number of dimensions of a `wp.array...` annotation, or None."""
    if ann is None:
        return None
    head = ann.func if isinstance(ann, ast.Call) else ann.value if isinstance(
        ann, ast.Subscript) else ann
    name = _wp_name(head)
    if name not in _ARRAY_NDIM:
        return None
    nd = _ARRAY_NDIM[name]
    if isinstance(ann, ast.Call):
        for k in ann.keywords:
            if k.arg == "ndim" and isinstance(k.value, ast.Constant) and isinstance(k.value.value, int):
                nd = k.value.value
    elif isinstance(ann, ast.Subscript) and isinstance(ann.slice, ast.Tuple) \
            and len(ann.slice.elts) == 2:
        last = ann.slice.elts[1]
        if isinstance(last, ast.Subscript):   # typing.Literal[2]
            last = last.slice
        if isinstance(last, ast.Constant) and isinstance(last.value, int):
            nd = last.value
    return nd


def _bound_names(fn: ast.FunctionDef) -> set[str]:
    """Parameters, assigned names and nested definitions of one function."""
    a = fn.args
    out = {p.arg for p in (*a.posonlyargs, *a.args, *a.kwonlyargs)}
    out |= {p.arg for p in (a.vararg, a.kwarg) if p is not None}
    for node in ast.walk(fn):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            out.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) \
                and node is not fn:
            out.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            out |= {(x.asname or x.name).split(".")[0] for x in node.names}
    return out


@dataclass(frozen=True)
class Kernel:
    """One `@wp.kernel` definition of a test file."""

    file: str          # relative to the folder holding `warp/`
    line: int          # the `def` line (decorators excluded)
    end: int
    first: int         # first line, decorators included
    name: str
    nesting: str       # "" at module level, else the enclosing functions
    excluded: str | None
    expects_error: bool


class _FileScan:
    """The kernels, funcs, structs and enums of one parsed test file."""

    def __init__(self, tree: ast.Module, rel: str):
        self.rel = rel
        self.funcs: dict[str, list[ast.FunctionDef]] = {}
        self.native: set[str] = set()
        self.structs: set[str] = set()
        self.enums: set[str] = set()
        self.func_outer: dict[int, list[ast.FunctionDef]] = {}
        self.kernels: list[tuple[ast.FunctionDef, list[ast.FunctionDef]]] = []
        self.module_names = _module_bindings(tree)
        self.overloads: dict[str, list[ast.Call]] = {}
        for n in ast.walk(tree):
            if isinstance(n, ast.Call) and _wp_name(n.func) == "overload" and n.args \
                    and isinstance(n.args[0], ast.Name):
                self.overloads.setdefault(n.args[0].id, []).append(n)
        self._walk(tree, [])

    def _walk(self, node: ast.AST, outer: list[ast.FunctionDef]) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef):
                if "struct" in _decorator_names(child):
                    self.structs.add(child.name)
                bases = {b.attr if isinstance(b, ast.Attribute) else getattr(b, "id", "")
                         for b in child.bases}
                if bases & {"Enum", "IntEnum", "IntFlag", "Flag"}:
                    self.enums.add(child.name)
                self._walk(child, outer)
            elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                decos = _decorator_names(child)
                if "kernel" in decos:
                    self.kernels.append((child, list(outer)))
                elif "func_native" in decos:
                    self.native.add(child.name)
                elif "func" in decos:
                    self.funcs.setdefault(child.name, []).append(child)
                    self.func_outer[id(child)] = list(outer)
                self._walk(child, outer + [child])
            else:
                self._walk(child, outer)

    def _used_nodes(self, kernel: ast.FunctionDef):
        """Every node of the kernel and of the same-file funcs it calls."""
        seen: set[int] = set()
        todo = [kernel]
        while todo:
            fn = todo.pop()
            if id(fn) in seen:
                continue
            seen.add(id(fn))
            parts = [fn.args, *fn.body] + ([fn.returns] if fn.returns else [])
            for node in (n for part in parts for n in ast.walk(part)):
                yield node
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                    todo.extend(self.funcs.get(node.func.id, ()))

    def exclusion(self, kernel: ast.FunctionDef) -> str | None:
        for call in self.overloads.get(kernel.name, ()):   # wp.overload(k, [Struct, ...])
            for n in ast.walk(call):
                if isinstance(n, ast.Name) and n.id in self.structs:
                    return f"structs ({n.id} in a wp.overload, line {n.lineno})"
                if isinstance(n, ast.Name) and self.module_names.get(n.id) == "import":
                    return (f"unresolvable names ({n.id}: imported from another module, "
                            f"line {n.lineno})")
        for node in self._used_nodes(kernel):
            name = _wp_name(node)
            if name is not None:
                for reason, pred in _EXCLUDED_NAMES:
                    if pred(name):
                        return f"{reason} (wp.{name}, line {node.lineno})"
            if isinstance(node, ast.Name):
                if node.id in self.structs:
                    return f"structs ({node.id}, line {node.lineno})"
                if node.id in self.enums:
                    return f"enums ({node.id}, line {node.lineno})"
                if node.id in self.native:
                    return f"native snippets ({node.id}, line {node.lineno})"
            for cls, reason in _FORBIDDEN_NODES:
                if isinstance(node, cls):
                    return f"{reason}, line {getattr(node, 'lineno', kernel.lineno)}"
        return self._array_views(kernel) or self._unresolved(kernel)

    def _array_views(self, kernel: ast.FunctionDef) -> str | None:
        """An array parameter indexed with fewer indices than its dimensions
        (a view of a sub-array) or used as a truth value."""
        for fn, _outer in self._used_functions(kernel):
            ndims = {a.arg: _array_ndim(a.annotation) for a in fn.args.args}
            ndims = {k: v for k, v in ndims.items() if v is not None}
            for node in ast.walk(fn):
                if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) \
                        and node.value.id in ndims:
                    n = len(node.slice.elts) if isinstance(node.slice, ast.Tuple) else 1
                    if n < ndims[node.value.id]:
                        return (f"array views (partial indexing of {node.value.id}, "
                                f"line {node.lineno}; docs/LANGUAGE.md section 2 indexes elements)")
                tests = []
                if isinstance(node, (ast.If, ast.While, ast.IfExp)):
                    tests = [node.test]
                elif isinstance(node, ast.BoolOp):
                    tests = list(node.values)
                elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
                    tests = [node.operand]
                for t in tests:
                    if isinstance(t, ast.Name) and t.id in ndims:
                        return f"array views (the array {t.id} as a truth value, line {t.lineno})"
        return None

    def _unresolved(self, kernel: ast.FunctionDef) -> str | None:
        """Why a name the kernel (or a func it calls) reads has no meaning
        that reading the file can give it, or None."""
        for fn, outer in self._used_functions(kernel):
            bound = _bound_names(fn)
            for o in outer:
                bound |= _bound_names(o)
            for node in ast.walk(fn):
                if not (isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)):
                    continue
                n = node.id
                if n in bound or n in _PY_BUILTINS or n in _WARP_MODULES:
                    continue
                kind = self.module_names.get(n)
                if kind in ("ok", "func", None) and n in self.funcs:
                    continue
                why = {None: "defined nowhere in the file (a star import)",
                       "import": "imported from another module",
                       "runtime": "a module-level name bound at run time",
                       "def": "a plain Python function", "class": "a Python class"}.get(kind)
                if why is not None:
                    return f"unresolvable names ({n}: {why}, line {node.lineno})"
        return None

    def _used_functions(self, kernel: ast.FunctionDef):
        """(function, its enclosing functions) for the kernel and the funcs it calls."""
        outer_of = {id(k): o for k, o in self.kernels}
        outer_of.update(self.func_outer)
        seen: set[int] = set()
        todo = [kernel]
        while todo:
            fn = todo.pop()
            if id(fn) in seen:
                continue
            seen.add(id(fn))
            yield fn, outer_of.get(id(fn), [])
            for node in ast.walk(fn):
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                    todo.extend(self.funcs.get(node.func.id, ()))


def _expects_error(outer: list[ast.FunctionDef]) -> bool:
    for fn in outer:
        for node in ast.walk(fn):
            if isinstance(node, ast.Attribute) and node.attr.startswith("assertRaises"):
                return True
    return False


def scan_file(text: str, rel: str) -> list[Kernel]:
    """The kernels of one test file, each with its exclusion reason (or None)."""
    tree = ast.parse(text, rel)
    scan = _FileScan(tree, rel)
    # `wp` itself from a star import (`from warp.tests.unittest_utils import *`)
    star_wp = not any(scan.module_names.get(n) == "ok" for n in _WARP_MODULES)
    out = []
    for fn, outer in scan.kernels:
        first = min([fn.lineno] + [d.lineno for d in fn.decorator_list])
        why = "unresolvable names (wp: the file never imports warp, a star import does)" \
            if star_wp else scan.exclusion(fn)
        out.append(Kernel(rel, fn.lineno, fn.end_lineno or fn.lineno, first, fn.name,
                          ".".join(o.name for o in outer), why, _expects_error(outer)))
    return sorted(out, key=lambda k: k.line)


# --------------------------------------------------------------- compiling
def warp_root(warp_dir: str | None) -> Path:
    """The folder that holds the `warp` package."""
    if warp_dir:
        p = Path(warp_dir).resolve()
        return p.parent if p.name == "warp" else p
    spec = importlib.util.find_spec("warp")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("warp-lang is not installed: pip install warp-lang, or pass --warp-dir")
    return Path(list(spec.submodule_search_locations)[0]).parent


def test_files(root: Path) -> list[Path]:
    tests = root / "warp" / "tests"
    return sorted(tests.glob("test_*.py")) + sorted((tests / "matrix").glob("test_*.py"))


def _result_of(module, k: Kernel) -> tuple[bool, str | None]:
    """(compiled, first error) of kernel `k` in a ModuleResult."""
    mine = [r for r in module.kernels
            if (r.name == k.name or r.name.startswith(k.name + "__"))
            and k.first <= r.loc.line <= k.end]
    if any(r.error is None for r in mine):
        return True, None
    errs = [r.error for r in mine if r.error is not None]
    errs += [e for e in module.errors if k.first <= e.loc.line <= k.end]
    if not errs:
        return False, "not-found: verikern found no kernel here"
    e = min(errs, key=lambda e: (e.loc.line, e.loc.col))
    return False, f"{e.rule}: {e.message.splitlines()[0]} (line {e.loc.line})"


def run(root: Path, only: str | None = None, quiet: bool = False, out=sys.stdout) -> dict:
    from verikern.frontend import compile_source

    rows, excluded, expected = [], [], []
    for path in test_files(root):
        rel = path.relative_to(root).as_posix()
        text = path.read_text(encoding="utf-8")
        kernels = [k for k in scan_file(text, rel)
                   if not only or only in f"{k.file}:{k.line}:{k.name}"]
        if not kernels:
            continue
        module = None
        for k in kernels:
            where = f"{k.file}:{k.line}:{k.name}"
            if k.excluded:
                excluded.append({"kernel": where, "reason": k.excluded})
                continue
            if module is None:
                module = compile_source(text, rel)
            ok, err = _result_of(module, k)
            row = {"kernel": where, "compiled": ok, "error": err}
            (expected if k.expects_error else rows).append(row)
            if not quiet and not k.expects_error:
                print(f"{'compiled' if ok else 'ERROR':9s} {where}", file=out)
                if err:
                    print(f"          {err}", file=out)
    return {"rows": rows, "excluded": excluded, "expects_error": expected}


def summary(result: dict, out=sys.stdout) -> dict:
    rows, excluded, expected = result["rows"], result["excluded"], result["expects_error"]
    print("\nexcluded (uses a construct outside docs/LANGUAGE.md):", file=out)
    for e in excluded:
        print(f"  {e['kernel']}: {e['reason']}", file=out)
    why = Counter(e["reason"].split(" (")[0].split(",")[0] for e in excluded)
    print("\nexclusions by reason:", file=out)
    for reason, n in why.most_common():
        print(f"  {n:4d}  {reason}", file=out)
    print(f"\nWarp expects an error ({len(expected)} kernels, kept out of the rate): "
          f"verikern rejects {sum(not r['compiled'] for r in expected)}", file=out)
    rules = Counter(r["error"].split(":")[0] for r in rows if not r["compiled"])
    print("\nfailures by rule:", file=out)
    for rule, n in rules.most_common():
        print(f"  {n:4d}  {rule}", file=out)
    n, ok = len(rows), sum(r["compiled"] for r in rows)
    totals = {"kernels": n, "compiled": ok, "rate": round(ok / n, 4) if n else 0.0,
              "excluded": len(excluded), "expects_error": len(expected),
              "failures_by_rule": dict(rules.most_common())}
    print(f"\nsample: {n} kernels in scope ({len(excluded)} excluded, {len(expected)} "
          f"expected to fail under Warp); compiled {ok}/{n} = {100 * totals['rate']:.1f}%",
          file=out)
    return totals


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--warp-dir", help="the installed warp package folder (default: found)")
    ap.add_argument("--only", help="only kernels whose file:line:name contains this")
    ap.add_argument("--quiet", action="store_true", help="print only exclusions and totals")
    ap.add_argument("--json", type=Path, help="also write the rows and totals as JSON")
    args = ap.parse_args(argv)
    start = time.perf_counter()
    result = run(warp_root(args.warp_dir), args.only, args.quiet)
    totals = summary(result)
    print(f"({time.perf_counter() - start:.1f} s)")
    if args.json:
        args.json.write_text(json.dumps({**result, "totals": totals}, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
