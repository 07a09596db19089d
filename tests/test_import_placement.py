"""Imports sit at module top (docs/INTERFACES.md, issue 9): an import inside a
function hides a dependency from the reader and from tests/test_layering.py's
picture of the layers. The exceptions are deliberate, and each says why with
a `# lazy: <reason>` comment on the import's own line(s), e.g.
`# lazy: optional dependency`, `# lazy: import cycle with .module`,
`# lazy: CLI start-up`, `# lazy: z3 (reporting.scope)`."""
from __future__ import annotations

import ast
import io
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = ("verikern", "proofs", "encoders", "backends")   # the package as installed (setup.py)
SKIP = ("selftest_corpus",)                                 # DSL kernels, not package code
REASON = "# lazy:"


def _comments_by_line(source: str) -> dict[int, str]:
    out: dict[int, str] = {}
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.COMMENT:
            out[tok.start[0]] = out.get(tok.start[0], "") + tok.string
    return out


def unexplained_imports(path: Path, root: Path = ROOT) -> list[str]:
    """`file:line: <statement>` for each import inside a function (or lambda)
    of `path` with no `# lazy:` comment on any of its lines."""
    source = path.read_text()
    tree = ast.parse(source, filename=str(path))
    inner: list[ast.stmt] = []

    def walk(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if in_function and isinstance(child, (ast.Import, ast.ImportFrom)):
                inner.append(child)
            walk(child, in_function or isinstance(
                child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)))

    walk(tree, False)
    if not inner:          # most modules: no need to tokenize them for comments
        return []
    comments = _comments_by_line(source)
    return [f"{path.relative_to(root)}:{imp.lineno}: {ast.unparse(imp)}" for imp in inner
            if not any(REASON in comments.get(n, "")
                       for n in range(imp.lineno, (imp.end_lineno or imp.lineno) + 1))]


def package_files(root: Path = ROOT) -> list[Path]:
    return [p for folder in FOLDERS for p in sorted((root / folder).rglob("*.py"))
            if not any(part in SKIP for part in p.parts) and "__pycache__" not in p.parts]


def test_every_function_level_import_says_why_it_is_lazy():
    files = package_files()
    assert len(files) > 100          # the walk sees the whole package
    found = [f for path in files for f in unexplained_imports(path)]
    assert found == [], ("move these imports to the module top, or say why they must stay "
                         "lazy with a `# lazy: <reason>` comment:\n" + "\n".join(found))


def test_the_check_sees_nested_unexplained_imports_only(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text(
        "import os\n"                                        # module top: fine
        "def f():\n"
        "    import json\n"                                  # 3: no reason
        "    from math import (  # lazy: optional dependency\n"
        "        sqrt,\n"
        "    )\n"
        "    class C:\n"
        "        def g(self):\n"
        "            from re import compile  # noqa: F401\n"  # 9: a comment, but not a reason
        "    return lambda: __import__('sys')\n"
        "# lazy: a reason on another line does not count\n"
        "def h():\n"
        "    import sys\n")                                  # 13
    assert unexplained_imports(probe, tmp_path) == [
        "probe.py:3: import json", "probe.py:9: from re import compile", "probe.py:13: import sys"]
