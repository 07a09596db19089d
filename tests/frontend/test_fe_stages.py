"""The frontend's stages (verikern/frontend/README.md): `scan` reads the
module, `builtins` knows each builtin, `check` types bodies into HIR, `lower`
turns HIR into MIR and `driver` runs them in turn. The import graph between
stages, read from the AST of every module (imports at module top, inside
functions and under TYPE_CHECKING alike), has no circle, and every edge goes
from a later stage to an earlier one in STAGE_ORDER."""
from __future__ import annotations

from pathlib import Path

from test_layering import imported_modules

ROOT = Path(__file__).resolve().parent.parent.parent
FRONTEND = ROOT / "verikern" / "frontend"
PACKAGE = "verikern.frontend"
#: the stages, each using only those before it
STAGE_ORDER = ("scan", "builtins", "check", "lower", "driver")
#: modules directly in verikern/frontend/ and the stage they belong to
TOP_MODULES = {"driver": "driver", "__init__": "driver", "configured": "driver", "compile_budget": "driver"}


def stage_of(module: str) -> str | None:
    """The stage of a module name (or of a name imported from a module) inside the
    frontend; None outside it. `verikern.frontend` itself is the driver's entry."""
    if module != PACKAGE and not module.startswith(PACKAGE + "."):
        return None
    parts = module.split(".")[2:]
    if not parts:
        return "driver"
    head = parts[0]
    return TOP_MODULES.get(head, head)


def _module_name(path: Path, frontend: Path) -> tuple[str, str]:
    """(module name, package it resolves relative imports against)."""
    rel = path.relative_to(frontend).with_suffix("").parts
    package = ".".join((PACKAGE,) + rel[:-1])
    if rel[-1] == "__init__":
        return package, package
    return ".".join((PACKAGE,) + rel), package


def stage_graph(frontend: Path = FRONTEND) -> dict[str, dict[str, list[str]]]:
    """stage -> {imported stage: ["file:line", ...]} over every module of the frontend."""
    graph: dict[str, dict[str, list[str]]] = {}
    for path in sorted(frontend.rglob("*.py")):
        name, package = _module_name(path, frontend)
        here = stage_of(name)
        assert here is not None
        edges = graph.setdefault(here, {})
        for line, imported in imported_modules(path, package):
            there = stage_of(imported)
            where = f"{path.relative_to(frontend)}:{line}"
            if there is not None and there != here and where not in edges.get(there, ()):
                edges.setdefault(there, []).append(where)
    return graph


def find_cycle(graph: dict) -> list[str] | None:
    """One circle of the directed graph (node -> iterable of nodes) as
    [a, b, ..., a], or None when it has none. Depth-first, nodes in sorted
    order, so the answer is deterministic."""
    state: dict[str, int] = {}      # 1 on the current path, 2 finished
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def test_every_frontend_module_belongs_to_a_known_stage():
    assert set(stage_graph()) <= set(STAGE_ORDER)
    for stage in STAGE_ORDER[:-1]:
        assert (FRONTEND / stage / "__init__.py").is_file(), stage


def test_no_import_circle_between_the_stages():
    graph = stage_graph()
    assert find_cycle(graph) is None, graph


def test_each_stage_imports_only_the_stages_before_it():
    late = [f"{stage} imports {there} at {', '.join(where)}"
            for stage, edges in stage_graph().items()
            for there, where in edges.items()
            if STAGE_ORDER.index(there) >= STAGE_ORDER.index(stage)]
    assert late == []


def test_the_cycle_finder_finds_a_circle_and_only_a_circle():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"a"}}) == ["a", "a"]
    assert find_cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) is None   # a diamond, no circle
    assert find_cycle({}) is None


def test_a_synthetic_circle_between_stages_is_found(tmp_path):
    """Two stages importing each other (one of them lazily, inside a function,
    and one through a relative import) form a circle the test reports."""
    for stage in ("scan", "check"):
        (tmp_path / stage).mkdir()
        (tmp_path / stage / "__init__.py").write_text("")
    (tmp_path / "scan" / "module.py").write_text(
        "def f():\n    from ..check.body import BodyChecker\n")
    (tmp_path / "check" / "body.py").write_text("from verikern.frontend.scan.module import f\n")
    graph = stage_graph(tmp_path)
    assert graph == {"scan": {"check": ["scan/module.py:2"]},
                     "check": {"scan": ["check/body.py:1"]}}
    assert find_cycle(graph) == ["check", "scan", "check"]
