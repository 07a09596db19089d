"""The scan's cheaper copies and walks build what the plain ones built: `copy_tree`
is `copy.deepcopy` of an AST (sharing, attributes and all), and an imported func
is still taken with its own module's names when two modules define funcs and
helpers of the same name, or refused when its module rebinds a name after the
func reads it (imported_funcs.py, class_funcs.py)."""
from __future__ import annotations

import ast
import copy
import textwrap
from pathlib import Path

import numpy as np

import verikern as vk
from verikern.frontend import compile_file
from verikern.frontend.scan import module as scan_module_file
from verikern.frontend.scan.project import FOREIGN_FILE
from verikern.frontend.scan.tree_copy import copy_tree

ATOMS = (str, int, float, complex, bytes, bool, type(None), type(Ellipsis))


def _shape(x, seen: dict, originals: set, out: list) -> None:
    """`x` written out with its sharing: an object met before is `@n`, its first
    visit's number; an object of the original tree met in a copy is an error."""
    if isinstance(x, ATOMS):
        out.append(repr(x))
        return
    assert id(x) not in originals, f"the copy shares {x!r} with the original"
    if id(x) in seen:
        out.append(f"@{seen[id(x)]}")
        return
    seen[id(x)] = len(seen)
    if isinstance(x, ast.AST):
        out.append(type(x).__name__ + "(")
        for k, v in x.__dict__.items():
            out.append(k + "=")
            _shape(v, seen, originals, out)
        out.append(")")
    elif isinstance(x, (list, tuple)):
        out.append(type(x).__name__ + "[")
        for v in x:
            _shape(v, seen, originals, out)
        out.append("]")
    elif isinstance(x, dict):
        out.append("dict{")
        for k, v in x.items():
            out.append(repr(k) + ":")
            _shape(v, seen, originals, out)
        out.append("}")
    else:
        out.append(f"<{type(x).__name__}>")


def _written(tree, original=None) -> str:
    originals = {id(n) for n in _objects(original)} if original is not None else set()
    out: list = []
    _shape(tree, {}, originals, out)
    return " ".join(out)


def _objects(x, found=None) -> list:
    found = [] if found is None else found
    if isinstance(x, ATOMS) or any(o is x for o in found[-1:]):
        return found
    found.append(x)
    children = x.__dict__.values() if isinstance(x, ast.AST) else x.values() if isinstance(x, dict) \
        else x if isinstance(x, (list, tuple)) else ()
    for v in children:
        _objects(v, found)
    return found


def test_copy_tree_builds_what_deepcopy_builds_on_real_sources():
    sources = sorted(Path(scan_module_file.__file__).parent.glob("*.py"))[:4]
    assert len(sources) == 4
    for path in sources:
        tree = ast.parse(path.read_text(), filename=str(path))
        mine, theirs = copy_tree(tree), copy.deepcopy(tree)
        assert _written(mine, tree) == _written(theirs) == _written(tree)
        assert ast.dump(mine, include_attributes=True) == ast.dump(tree, include_attributes=True)


def test_copy_tree_keeps_attributes_sharing_and_copies_other_values():
    fn = ast.parse("def f(x):\n    return x + K\n").body[0]
    shared = fn.body[0].value.left              # the same Name reached twice
    fn.body.append(ast.Return(value=shared))
    for n in ast.walk(fn):
        setattr(n, FOREIGN_FILE, "other.py")
    fn._verikern_note = {"bound": [["K", 2]]}   # a value of no AST type: deep-copied
    mine, theirs = copy_tree(fn), copy.deepcopy(fn)
    assert _written(mine, fn) == _written(theirs)
    assert mine.body[1].value is mine.body[0].value.left and mine.body[1].value is not shared
    assert getattr(mine.body[0].value.right, FOREIGN_FILE) == "other.py"
    assert mine._verikern_note == fn._verikern_note and mine._verikern_note is not fn._verikern_note
    mine.body[0].value.right.id = "renamed"     # the copy is the copy's own
    assert fn.body[0].value.right.id == "K"
    twice = copy_tree([fn, fn])
    assert twice[0] is twice[1] and twice[0] is not fn


def _package(tmp_path, files: dict[str, str]) -> Path:
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    for name, text in files.items():
        (pkg / name).write_text(textwrap.dedent(text))
    return pkg


def _module(k: int) -> str:
    return f"""
    import warp as wp

    K = {k}

    @wp.func
    def helper(x: int):
        return x * K

    @wp.func
    def scale(x: int):
        return helper(x) + K
    """


KERNEL = """
import warp as wp
from .a import *
from .b import scale as scale_b
from . import b as mb

@wp.kernel
def k(out: wp.array(dtype=int)):
    i = wp.tid()
    if i < out.shape[0]:
        out[i] = scale(i) * 10000 + scale_b(i) * 100 + mb.helper(i) + helper(i) * 1000
"""


def test_same_named_funcs_of_two_modules_each_read_their_own_helper_and_constant(tmp_path):
    pkg = _package(tmp_path, {"a.py": _module(2), "b.py": _module(5), "k.py": KERNEL})
    r = compile_file(pkg / "k.py")
    assert r.kernels[0].error is None, r.kernels[0].error.render()
    out = np.zeros(4, np.int32)
    vk.launch(r.kernels[0].mir, 4, [out])
    want = [(2 * i + 2) * 10000 + (5 * i + 5) * 100 + 5 * i + 2 * i * 1000 for i in range(4)]
    assert out.tolist() == want


def test_a_func_whose_module_rebinds_a_name_after_the_func_reads_it_is_not_taken(tmp_path):
    kernel = KERNEL.replace("from .a import *", "from .a import scale, helper")
    rebound = _module(2) + "\nK = 3\n"      # rebound below the funcs that read it
    pkg = _package(tmp_path, {"a.py": rebound, "b.py": _module(5), "k.py": kernel})
    err = compile_file(pkg / "k.py").kernels[0].error
    assert err is not None and err.rule == "call-not-allowed" and "scale()" in err.render(), err
    (tmp_path / "again").mkdir()
    fine = _package(tmp_path / "again", {"a.py": _module(2), "b.py": _module(5), "k.py": kernel})
    assert compile_file(fine / "k.py").kernels[0].error is None     # the same, not rebound


def test_module_funcs_follow_every_change_of_the_definitions():
    from verikern.frontend.scan.module import ModuleInfo, scan_module
    src = "import warp as wp\n\n@wp.func\ndef f(x: int):\n    return x\n\n" \
          "@wp.func\ndef g(x: int):\n    return x + 1\n"
    info = ModuleInfo("m.py", src)
    scan_module(ast.parse(src), info)
    first = info.funcs
    assert sorted(first) == ["f", "g"] and info.funcs is first     # unchanged: made once
    kept = list(info.definitions)
    info.definitions.append(type(kept[0])("func", ast.parse("def h(y):\n    return y\n").body[0],
                                          kept[0].loc, None, (), None, False))
    assert sorted(info.funcs) == ["f", "g", "h"]                    # an append
    info.definitions = kept[:1] + [kept[1]]                         # a new list, same length and last
    info.definitions.pop(0)
    info.definitions.append(kept[0])
    assert sorted(info.funcs) == ["f", "g"] and info.funcs["f"] is kept[0]
    info.definitions = [kept[1]]
    assert sorted(info.funcs) == ["g"]


STAR_KERNEL = """
import warp as wp
from .a import *

@wp.kernel
def k(out: wp.array(dtype=int)):
    i = wp.tid()
    if i < out.shape[0]:
        out[i] = N
"""


def test_a_star_import_reads_the_module_as_it_is_now_not_as_first_read(tmp_path):
    pkg = _package(tmp_path, {"a.py": "__all__ = ['N']\nN = 4\n", "k.py": STAR_KERNEL})
    out = np.zeros(2, np.int32)
    vk.launch(compile_file(pkg / "k.py").kernels[0].mir, 2, [out])
    assert out.tolist() == [4, 4]
    (pkg / "a.py").write_text("__all__ = ['M']\nN = 4\nM = 6\n")    # N no longer exported
    err = compile_file(pkg / "k.py").kernels[0].error
    assert err is not None and err.rule == "unknown-name" and "'N'" in err.render(), err
    (pkg / "a.py").write_text("N = 7\n")                            # no __all__: its own names
    vk.launch(compile_file(pkg / "k.py").kernels[0].mir, 2, [out])
    assert out.tolist() == [7, 7]


#: struct kernels of every kind the struct rewrite handles: held arrays, a local struct's
#: array fields (aliases), arrays of structs, a constructor, a generic struct search
STRUCT_CORPUS = ("ok_struct_held_arrays_block_sizes.py", "bounds_local_struct_domain_arrays_hi_unchecked.py",
                 "ok_struct_array_bodies_integrate.py", "ok_struct_ctor_face_cursor.py",
                 "bounds_struct_search_moments_masses_unchecked.py")


def test_the_struct_rewrite_in_place_builds_the_mir_of_two_deep_copies(monkeypatch):
    """struct_body copies each statement once (copy_tree) and rewrites its field
    chains in place (`rewrite(..., copied=True)`); it used to deep-copy the statement,
    then deep-copy the result again. The reference is that old way, put back by
    patching: the same MIR text and errors for every struct kernel of the sample
    (the generic struct search's too, whose attempts each rewrite the same body)."""
    from verikern.frontend.check import structs
    from verikern.mir.printer import format_kernel

    corpus = Path(__file__).resolve().parents[1] / "corpus"

    def outcome(path: Path) -> list[str]:
        result = compile_file(str(path))
        return [e.render() for e in result.errors] + \
            [f"{k.name} {k.error.render() if k.error else ''}\n{format_kernel(k.mir) if k.mir else ''}"
             for k in result.kernels]

    now = {name: outcome(corpus / name) for name in STRUCT_CORPUS}
    assert all(any("\n" in part and "kernel" in part for part in parts) for parts in now.values()), now
    old_rewrite = structs.StructScope.rewrite
    monkeypatch.setattr(structs, "copy_tree", copy.deepcopy)
    monkeypatch.setattr(structs.StructScope, "rewrite",
                        lambda self, body, copied=False: old_rewrite(self, body, copied=False))
    assert {name: outcome(corpus / name) for name in STRUCT_CORPUS} == now
