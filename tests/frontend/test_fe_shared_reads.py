"""Session 25's cheaper reading of star-imported projects builds what the plain reading
built: the module's func index (scan/definitions.py `FuncIndex`) against the list it
indexes, `renamed_tree` against `copy_tree` then `_rename_globals`, and a whole project
compile (MIR, errors, work counted) against the same compile with every new reuse turned
off (imported_funcs.py's carried size and marks, class_funcs.py's kept walks,
runtime_lengths.py's kept binding sites); a changed module is read again."""
from __future__ import annotations

import ast
import random
import textwrap

from verikern.frontend import compile_file
from verikern.frontend.scan import class_funcs, imported_funcs, runtime_lengths
from verikern.frontend.scan.definitions import Definition
from verikern.frontend.scan.module import ModuleInfo
from verikern.frontend.scan.project import FOREIGN_FILE
from verikern.frontend.scan.tree_copy import copy_tree, renamed_tree
from verikern.mir import format_kernel
from verikern.mir.nodes import SourceLoc
from shared_helpers import write_package


def _definition(kind: str, name: str) -> Definition:
    fn = ast.parse(f"def {name}():\n    pass\n").body[0]
    return Definition(kind, fn, SourceLoc("m.py", 1, 1))


def test_the_func_index_follows_appends_and_a_replaced_list():
    rng = random.Random(25)
    info = ModuleInfo("m.py", "")
    held = []       # (an earlier `funcs` answer, what it was then)
    for step in range(400):
        if step % 97 == 96:     # class_funcs.py's undo: the list replaced by a copy of a prefix
            info.definitions = list(info.definitions[:rng.randrange(len(info.definitions) + 1)])
        else:
            info.definitions.append(_definition(rng.choice(["func", "func", "kernel"]),
                                                rng.choice("abcdefg")))
        if rng.random() < 0.5:
            funcs = info.funcs
            reference = {d.node.name: d for d in info.definitions if d.kind == "func"}
            assert funcs == reference and list(funcs) == list(reference)
            held.append((funcs, dict(reference)))
        name = rng.choice("abcdefgh")
        assert info.func_definitions(name) == [d for d in info.definitions
                                               if d.kind == "func" and d.node.name == name]
    assert all(funcs == then for funcs, then in held)     # an earlier answer never changes


SOURCE = '''
@wp.func
def f(x: scalar_t, y: vec_t) -> scalar_t:
    z = helper(x) + scalar_t(2.0) * other.helper(y[0])
    def inner(q):
        helper = q          # a store: never renamed
        return helper + scalar_t(1.0)
    return inner(z) + wp.min(x, helper(x))
'''


def _with_attributes(tree) -> tuple:
    return ast.dump(tree, include_attributes=True), [
        sorted((k, v) for k, v in n.__dict__.items() if not isinstance(v, (ast.AST, list)))
        for n in ast.walk(tree)]


def test_renamed_tree_is_the_copy_renamed_and_shares_only_what_it_leaves_alone():
    fn = ast.parse(textwrap.dedent(SOURCE)).body[0]
    for n in ast.walk(fn):
        setattr(n, FOREIGN_FILE, "defining.py")
    before = ast.dump(fn, include_attributes=True)
    for renames in ({"helper": "_vk_m__helper"}, {"scalar_t": "_vk_m__scalar_t", "vec_t": "_vk_m__vec_t"},
                    {"absent": "_vk_m__absent"}, {"helper": "h2", "scalar_t": "s2", "wp": "w2"}):
        got = renamed_tree(fn, renames)
        reference = copy_tree(fn)
        imported_funcs._rename_globals(reference, renames)
        assert _with_attributes(got) == _with_attributes(reference)
        assert ast.dump(fn, include_attributes=True) == before     # the original is left alone
        originals = {id(n) for n in ast.walk(fn)}
        for n in ast.walk(got):     # a node of the original, shared, holds no renamed load
            if id(n) in originals:
                assert not any(isinstance(m, ast.Name) and isinstance(m.ctx, ast.Load) and m.id in renames
                               for m in ast.walk(n))
    assert renamed_tree(fn, {"absent": "x"}) is fn and renamed_tree(fn, {}) is fn


def test_renamed_tree_keeps_a_node_reached_twice_one_node():
    call = ast.parse("helper(x)", mode="eval").body
    tree = ast.Module(body=[ast.Expr(call), ast.Expr(call)], type_ignores=[])
    got = renamed_tree(tree, {"helper": "h"})
    assert got.body[0].value is got.body[1].value and got.body[0].value.func.id == "h"
    reference = copy_tree(tree)
    imported_funcs._rename_globals(reference, {"helper": "h"})
    assert ast.dump(got) == ast.dump(reference)


def test_a_kept_walk_answers_only_for_the_same_children():
    fn = ast.parse("def f(a):\n    b = m.g(a)\n    return b\n").body[0]
    walks: dict = {}
    first = class_funcs._stores_and_dotted_calls(fn, walks)
    assert first[0] == {"b"} and [ast.unparse(c) for c in first[1]] == ["m.g(a)"]
    shallow = ast.FunctionDef(**{f: getattr(fn, f) for f in fn._fields})    # the same children
    assert class_funcs._stores_and_dotted_calls(shallow, walks) == first and len(walks) == 1
    changed = ast.FunctionDef(**{f: getattr(fn, f) for f in fn._fields})
    changed.body = [ast.parse("c = n.h(a)").body[0], fn.body[1]]           # one child new
    got = class_funcs._stores_and_dotted_calls(changed, walks)
    assert got[0] == {"c"} and [ast.unparse(c) for c in got[1]] == ["n.h(a)"] and len(walks) == 2


def test_kept_binding_sites_follow_the_source_not_the_file_name():
    old = ModuleInfo("cfg.py", "import os\nN = int(os.getenv('N'))\n")
    new = ModuleInfo("cfg.py", "N = 3\nN = 4\n")
    assert len(runtime_lengths._sites(old, "N")[0]) == 1
    assert [ast.unparse(s.value) for s in runtime_lengths._sites(new, "N")[1]] == ["3", "4"]
    assert len(runtime_lengths._sites(old, "N")[0]) == 1


# a chain of star imports: each hop takes the funcs with the helpers they read
# brought along under names of their own (renamed copies of renamed copies)
BASE = '''
import warp as wp

scalar_t = wp.float32


@wp.func
def _half(x: scalar_t):
    return x * scalar_t(0.5)


@wp.func
def scale(x: scalar_t):
    return _half(x) + _half(x)


@wp.func
def clamp_index(i: int, n: int):
    return wp.min(wp.max(i, 0), n - 1)
'''

MIDDLE = '''
import warp as wp
from .base import *


@wp.func
def _twice(x: scalar_t):
    return scale(x) * scalar_t(2.0)


@wp.func
def scaled_twice(x: scalar_t):
    return _twice(x)
'''

TOP = '''
from .middle import *
from . import base
'''

KERNEL = '''
import warp as wp
from .top import *


@wp.kernel
def smooth(values: wp.array(dtype=float), out: wp.array(dtype=float), n: int):
    i = wp.tid()
    j = clamp_index(i + 1, n)
    if i < out.shape[0] and j < values.shape[0]:
        out[i] = scaled_twice(values[j]) + base.scale(values[i % values.shape[0]])
'''


def _compiled(path) -> tuple:
    module = compile_file(path)
    return ([(k.name, k.error.render() if k.error else None, format_kernel(k.mir) if k.mir else None)
             for k in module.kernels], [e.render() for e in module.errors],
            {k: (w.spent, sorted(w.counts.items())) for k, w in module.work.items()})


def _no_new_reuse(monkeypatch):
    """Every reuse of this session's work off: the plain copy, every size and mark walked
    again, every walk and binding site made again."""
    plain_memo = imported_funcs._memo

    def memo(defining, key, node, value=None):
        if value is None and key[0] in ("size", "marked"):
            return None
        return plain_memo(defining, key, node, value)

    def renamed(fn, renames):
        made = copy_tree(fn)
        imported_funcs._rename_globals(made, renames)
        return made

    monkeypatch.setattr(imported_funcs, "_memo", memo)
    monkeypatch.setattr(imported_funcs, "renamed_tree", renamed)
    monkeypatch.setattr(class_funcs, "_stores_and_dotted_calls",
                        lambda fn, walks: _plain_walk(fn))
    monkeypatch.setattr(runtime_lengths, "_sites",
                        lambda info, name: runtime_lengths._binding_sites(runtime_lengths._tree(info), name))


_PLAIN_WALK = class_funcs._stores_and_dotted_calls


def _plain_walk(fn):
    return _PLAIN_WALK(fn, None)


def test_a_star_import_chain_compiles_to_the_same_mir_and_work_as_without_the_reuse(tmp_path, monkeypatch):
    pkg = write_package(tmp_path, "pkg", {"base": BASE, "middle": MIDDLE, "top": TOP, "kernels": KERNEL})
    shared = _compiled(pkg / "kernels.py")
    names = [name for name, error, mir in shared[0] if mir is not None]
    assert names == ["smooth"], shared
    assert dict(shared[2]["smooth"][1])["taking"] > 0        # funcs were taken, and counted
    with monkeypatch.context() as m:
        _no_new_reuse(m)
        plain = _compiled(pkg / "kernels.py")
    assert shared == plain


def test_a_changed_helper_is_read_again(tmp_path):
    pkg = write_package(tmp_path, "pkg", {"base": BASE, "middle": MIDDLE, "top": TOP, "kernels": KERNEL})
    before = _compiled(pkg / "kernels.py")
    (pkg / "base.py").write_text(textwrap.dedent(BASE).replace("x * scalar_t(0.5)", "x * scalar_t(0.25)"))
    after = _compiled(pkg / "kernels.py")
    assert "0.25" in after[0][0][2] and "0.25" not in before[0][0][2]
