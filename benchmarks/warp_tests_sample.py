"""Warp's own test-suite kernels through verikern's frontend: the compile rate.

Reads the test files of the installed warp-lang in place (never copies them,
never imports warp: the package folder is found with
`importlib.util.find_spec`, or given with --warp-dir).

The sample (deterministic, no randomness): every `@wp.kernel` definition,
at module level or inside a function (kernel factories and test functions),
of every file `warp/tests/test_*.py` and `warp/tests/matrix/test_*.py`, in
file and line order.  The other folders of warp/tests (geometry, fem, tile,
interop, cuda, aot, deterministic) test features outside LANGUAGE.md (meshes,
volumes, BVHs, hash grids, FEM, tiles, framework interop) or host-side CUDA
features (streams, graphs, IPC), and are not read.

The filter decides on what a kernel *uses*, syntactically: the names of its
signature, decorators and body, and of every `@wp.func` of the same file it
calls (transitively, by name).  A kernel is excluded, with the first reason
that applies, when it uses:

- a Warp feature outside LANGUAGE.md: meshes, volumes, BVHs, hash grids and
  geometry queries (`wp.mesh_*`, `wp.volume_*`, `wp.bvh_*`, `wp.hash_grid_*`,
  `wp.intersect_*`, `wp.closest_point_*`, ...), tiles (`wp.tile*`), fabric,
  indexed and sparse arrays, transforms and spatial types (`wp.transform*`,
  `wp.spatial_*`), bfloat16, textures, `wp.ref[...]` / `wp.Function`
  parameters, gradients (`wp.adjoint`, `@wp.func_grad`, `@wp.func_replay`),
  native snippets (`@wp.func_native`), raw pointers (`wp.address_of`, ...);
- a `@wp.struct` class or a Python `enum` class of the file (LANGUAGE.md
  section 2 has neither);
- a construct LANGUAGE.md section 4 forbids: `*args` unpacking, list, dict or
  set displays, comprehensions, `lambda`, `try`, `with`, `import`.

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
    ("gradients", lambda n: n in ("adjoint", "func_grad", "func_replay", "Tape")),
    ("native snippets", lambda n: n == "func_native"),
    ("pointers", lambda n: n in ("address_of", "array_from_ptr", "pointer", "handle")),
    ("structs", lambda n: n == "struct"),
)

_FORBIDDEN_NODES: tuple[tuple[type, str], ...] = (
    (ast.Starred, "*args unpacking (LANGUAGE.md section 4)"),
    (ast.List, "lists (LANGUAGE.md section 4)"),
    (ast.Dict, "dicts (LANGUAGE.md section 4)"),
    (ast.Set, "sets (LANGUAGE.md section 4)"),
    (ast.ListComp, "comprehensions (LANGUAGE.md section 4)"),
    (ast.DictComp, "comprehensions (LANGUAGE.md section 4)"),
    (ast.SetComp, "comprehensions (LANGUAGE.md section 4)"),
    (ast.GeneratorExp, "generators (LANGUAGE.md section 4)"),
    (ast.Lambda, "lambda (LANGUAGE.md section 4)"),
    (ast.Try, "try (LANGUAGE.md section 4)"),
    (ast.With, "with (LANGUAGE.md section 4)"),
    (ast.Import, "import (LANGUAGE.md section 4)"),
    (ast.ImportFrom, "import (LANGUAGE.md section 4)"),
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
        self.kernels: list[tuple[ast.FunctionDef, list[ast.FunctionDef]]] = []
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
        return None


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
    out = []
    for fn, outer in scan.kernels:
        first = min([fn.lineno] + [d.lineno for d in fn.decorator_list])
        out.append(Kernel(rel, fn.lineno, fn.end_lineno or fn.lineno, first, fn.name,
                          ".".join(o.name for o in outer), scan.exclusion(fn),
                          _expects_error(outer)))
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
    print("\nexcluded (uses a construct outside LANGUAGE.md):", file=out)
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
