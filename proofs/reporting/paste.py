"""Pasting a suggested contract into a kernel's source: the one edit that
the text report tells users to make, the SARIF fix makes and
verikern.app.suggestion proves (so what is proved is what gets pasted).

Invariant: `suggestion_inserts` gives the whole edit -- the decorator lines
inserted before the kernel's `def` line, indented as the `def` is, and
`import verikern as vk` after the module's last top-level import above it
(or its docstring) when the file does not import it already -- and `pasted`
applies such an edit to the text and nothing else.
"""
from __future__ import annotations

import ast

from .parsed import parsed_source


def vk_import_line_in(source: str, before: int) -> int | None:
    """Where `import verikern as vk` goes in `source` so that a pasted
    `@vk.requires` decorator means something (the line it is inserted before:
    after the module's last top-level import above line `before`, else after
    its docstring); None when the source has it already or does not parse."""
    try:
        tree = parsed_source(source)    # shared with the file's other kernels: only read
    except (ValueError, SyntaxError):
        return None
    after = 0
    for i, node in enumerate(tree.body):
        if isinstance(node, ast.Import) and any(a.name == "verikern" and a.asname == "vk"
                                                for a in node.names):
            return None
        if node.lineno >= before:
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)) or (
                i == 0 and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)):
            after = max(after, node.end_lineno or node.lineno)
    return after + 1


def suggestion_inserts(source: str, line: int, decorators) -> list[tuple[int, str]]:
    """(line, text) insertions, in order, that paste `decorators` above the
    kernel whose `def` is at `line` (1-based) of `source`: each text goes
    before that line of the original source."""
    lines = source.splitlines()
    text = lines[line - 1] if 1 <= line <= len(lines) else ""
    indent = text[:len(text) - len(text.lstrip())]
    inserts = [(line, "".join(f"{indent}{d}\n" for d in decorators))]
    at = vk_import_line_in(source, line)
    if at is not None:                 # the decorators need the name `vk`
        inserts.insert(0, (at, "import verikern as vk\n"))
    return inserts


def pasted(source: str, inserts) -> str:
    """`source` with each (line, text) of `inserts` put before that line."""
    lines = source.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    for line, text in sorted(inserts, key=lambda x: -x[0]):
        at = min(max(line - 1, 0), len(lines))
        lines[at:at] = [text]
    return "".join(lines)
