"""The walks of a statement the body checker makes, remembered per statement
object (verikern/frontend/check/statement_walks.py): a generic kernel checked
once per typing it may take walks each statement once, and the answers are
those of a fresh walk."""
from __future__ import annotations

import ast
import copy

from verikern.frontend import compile_source
from verikern.frontend.check import statement_walks

from shared_helpers import CORPUS

#: a generic kernel (keys of dtype Any): every typing Warp can build is checked
GENERIC = CORPUS / "ok_generic_every_instance_guarded.py"


class _CountingAst:
    """The `ast` module as statement_walks sees it, counting the walks of statements."""

    def __init__(self, every_node: bool = False):
        self.walked: list[ast.AST] = []
        self.every_node = every_node

    def __getattr__(self, name):
        return getattr(ast, name)

    def walk(self, node):
        if self.every_node or isinstance(node, ast.stmt):
            self.walked.append(node)
        return ast.walk(node)


def test_each_statement_of_a_generic_kernel_is_walked_once_for_all_its_typings(monkeypatch):
    counting = _CountingAst()
    monkeypatch.setattr(statement_walks, "ast", counting)
    module = compile_source(GENERIC.read_text(), GENERIC.name)
    instances = [k.name for k in module.kernels]
    assert len(instances) > 5, instances          # int8 ... float64: each typing checked the body
    walks = [id(s) for s in counting.walked]
    # conditional_calls, calls_in and bindings_in: at most three walks per statement
    # object, however many BodyCheckers checked it (stored_names walks the body's
    # statements once more)
    statements = set(walks)
    assert statements and max(walks.count(s) for s in statements) <= 4, sorted(map(walks.count, statements))


def test_the_struct_locals_and_the_random_draws_in_headers_are_looked_for_once_per_statement(monkeypatch):
    """find_locals (structs.py) and has_rand_header (body.py) read the remembered
    walks: checking every typing of a generic kernel walks none of its statements or
    if/for/while headers again (each typing's BodyChecker walked every one of them)."""
    from verikern.frontend.builtins import rand
    from verikern.frontend.check import structs

    counting = _CountingAst(every_node=True)
    monkeypatch.setattr(structs, "ast", counting)
    monkeypatch.setattr(rand, "ast", counting)
    module = compile_source(GENERIC.read_text(), GENERIC.name)
    assert len(module.kernels) > 5 and all(k.mir is not None for k in module.kernels)
    assert counting.walked == [], len(counting.walked)


def test_the_remembered_walks_are_those_of_a_fresh_walk_and_a_copy_has_its_own():
    stmt = ast.parse("x = f(a) or g(b) if h(c) else k(d)").body[0]
    first = statement_walks.conditional_calls(stmt)
    calls = {ast.unparse(c.func): id(c) for c in ast.walk(stmt) if isinstance(c, ast.Call)}
    # g after `or`, and both branches of the conditional expression (k; f and g inside
    # the `or` of its body); h, the test, is always evaluated
    assert first == {calls["f"], calls["g"], calls["k"]}
    assert statement_walks.conditional_calls(stmt) is first
    assert statement_walks.calls_in(stmt) == tuple(c for c in ast.walk(stmt) if isinstance(c, ast.Call))
    nested = ast.parse("if a:\n    x = 1\n    if b:\n        y: int = 2\n    z = 3\nelse:\n    w = 4\n").body[0]
    assert [ast.unparse(n) for n in statement_walks.bindings_in(nested)] == \
        ["x = 1", "z = 3", "w = 4", "y: int = 2"]    # ast.walk's order: the first binding first
    twin = copy.deepcopy(stmt)
    ids = statement_walks.conditional_calls(twin)
    assert len(ids) == 3 and not ids & first      # the copy's own calls, not the original's
    fn = ast.parse("def f():\n    a = 1\n    for b in range(2):\n        c, d = b, a\n").body[0]
    assert statement_walks.stored_names(fn) == {"a", "b", "c", "d"}
