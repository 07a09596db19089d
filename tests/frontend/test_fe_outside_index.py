"""A project file is parsed and walked once for every module whose outside
rebindings are looked for in it (verikern/frontend/scan/outside_index.py): its
answers are those of the walks it replaces, node for node, and a file whose
content changed is read again."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from verikern.frontend.scan import rebinding
from verikern.frontend.scan.outside_index import OutsideIndex, outside_index

SCAN = Path(rebinding.__file__).resolve().parent
REBINDS = '''\
import sys
import importlib
import pkg.consts as c
from pkg import consts
m = sys.modules["pkg.consts"]
alias = m
other = importlib.import_module("pkg.other")
c.N = 7
setattr(consts, "M", 1)
vars(alias)["K"] = 2
alias.__dict__.update({})
del other.Q
x = [y.attr for y in range(3)]
x.attr = 1
'''


def _expressions(tree: ast.Module) -> list[ast.AST]:
    return [n for n in ast.walk(tree) if isinstance(n, ast.expr)]


@pytest.mark.parametrize("name", ["REBINDS"] + [p.name for p in sorted(SCAN.glob("*.py"))[:6]])
def test_may_be_module_is_the_walks_answer_for_every_expression(name):
    tree = ast.parse(REBINDS if name == "REBINDS" else (SCAN / name).read_text())
    index = OutsideIndex(tree)
    names = sorted({n.id for n in ast.walk(tree) if isinstance(n, ast.Name)})
    for handles in (set(), {"c", "consts"}, {"m", "alias"}, set(names[::3])):
        for node in _expressions(tree):
            assert index.may_be_module(node, handles) == rebinding._may_be_module(node, handles), \
                (ast.dump(node)[:80], handles)
    walked = list(ast.walk(tree))
    assert index.imports == [n for n in walked if isinstance(n, (ast.Import, ast.ImportFrom))]
    assert index.assigns == [n for n in walked if isinstance(n, ast.Assign)]


def test_the_outside_rebindings_are_found_through_the_index_as_by_the_walk():
    index = OutsideIndex(ast.parse(REBINDS))
    found = rebinding.outside_rebindings(index, "r.py", {"c", "consts"})
    # the first site per name, in walk order: the names stored into, and ANY for the update
    assert {"N", "M", "K", "Q", rebinding.ANY} <= set(found)
    assert "attr" not in found                 # `x` is no module
    assert (found["N"].loc.line, found["M"].loc.line, found["K"].loc.line) == (8, 9, 10)
    assert rebinding._module_handles(index.tree, {"c"}, index) == rebinding._module_handles(index.tree, {"c"})


def test_a_file_is_indexed_once_per_content():
    first = outside_index("p/consts.py", b"N = 1\n")
    assert outside_index("p/consts.py", b"N = 1\n") is first
    again = outside_index("p/consts.py", b"N = 2\n")
    assert again is not first and again is not None
    assert outside_index("p/broken.py", b"def (:\n") is None
