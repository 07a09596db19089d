"""Funcs called through a dotted name, as warp-simdata calls its dataset API
(`nface_n.DatasetAPI.get_elem_from_idx(ds, i)`): a `@wp.func` static method of
a plain class, reached through a project module alias (`handles.DatasetAPI.f`),
a class imported by name (`Elems.f`, `from .handles import ElementAPI as
Elems`) or the class's own name inside its methods; and a module-level func
through a module alias (`handles.clamp_count`). Real Warp on its CPU device
gives the same results as verikern's simulator and native backend; a bug
inside such a func is found; where something may change what the name means
(a base class, a metaclass, a class rebound or its attribute assigned
anywhere in the project), verikern does not resolve it and says so at the call.

The package is project-shaped (a handle struct, a dataset and an element API),
written here; no project code is copied."""
from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np
import pytest

import verikern as vk
from verikern.app.prove import prove_file
from verikern.frontend import compile_file
from verikern.proofs.obligations import KernelStatus, ObligationKind, Status
from warp_compat.compat_util import import_package_module, warp_module_from_text

HANDLES = '''
import warp as wp


@wp.struct
class Handle:
    offsets: wp.array(dtype=wp.int32)
    first_id: wp.int32


@wp.struct
class Elem:
    elem_id: wp.int32


@wp.func
def clamp_count(n: wp.int32, most: wp.int32) -> wp.int32:
    return wp.min(n, most)


class DatasetAPI:
    @staticmethod
    @wp.func
    def get_num_elems(ds: Handle) -> wp.int32:
        return ds.offsets.shape[0] - 1

    @staticmethod
    @wp.func
    def get_elem_from_idx(ds: Handle, idx: wp.int32) -> Elem:
        assert idx >= 0 and idx < DatasetAPI.get_num_elems(ds), "index out of range"
        e = Elem()
        e.elem_id = ds.first_id + idx
        return e


class ElementAPI:
    @staticmethod
    @wp.func
    def get_num_nodes(ds: Handle, e: Elem) -> wp.int32:
        i = e.elem_id - ds.first_id
        return clamp_count(ds.offsets[i + 1] - ds.offsets[i], 8)

    @wp.func
    def get_first_node(ds: Handle, e: Elem) -> wp.int32:
        return ds.offsets[e.elem_id - ds.first_id]
'''

KERNEL = '''
import warp as wp

from . import handles
from .handles import ElementAPI as Elems


@wp.kernel
def count_nodes(ds: handles.Handle, counts: wp.array(dtype=wp.int32)):
    i = wp.tid()
    if i < handles.DatasetAPI.get_num_elems(ds) and i < counts.shape[0]:
        e = handles.DatasetAPI.get_elem_from_idx(ds, i)
        counts[i] = Elems.get_num_nodes(ds, e) * 1000 + Elems.get_first_node(ds, e) * 10 \\
            + handles.clamp_count(e.elem_id, 9)
'''


def _package(tmp_path, handles: str = HANDLES, kernel: str = KERNEL, extra: dict | None = None):
    root = tmp_path / "src"
    files = {"vkapi/__init__.py": "", "vkapi/handles.py": handles, "vkapi/kern.py": kernel,
             **(extra or {})}
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(textwrap.dedent(text))
    return root


def test_dotted_funcs_run_as_under_warp(warp_cpu, tmp_path):
    wp = warp_cpu
    root = _package(tmp_path)
    ours = compile_file(root / "vkapi" / "kern.py")
    k = ours.kernel("count_nodes")
    assert k.error is None, k.error.render()
    offsets = np.array([0, 3, 3, 12, 20], np.int32)
    theirs = import_package_module(root, "vkapi", "kern")
    handle = theirs.handles.Handle()
    handle.offsets, handle.first_id = wp.array(offsets, dtype=wp.int32, device="cpu"), 7
    w_counts = wp.zeros(6, dtype=wp.int32, device="cpu")
    wp.launch(theirs.count_nodes, dim=6, inputs=[handle, w_counts], device="cpu")
    want = [3 * 1000 + 0 + 7, 0 + 30 + 8, 8 * 1000 + 30 + 9, 8 * 1000 + 120 + 9, 0, 0]
    assert w_counts.numpy().tolist() == want
    for dev in ("cpu", "cpu:native"):
        got = np.zeros(6, np.int32)
        vk.launch(k.mir, 6, [{"offsets": offsets.copy(), "first_id": 7}, got], device=dev)
        assert got.tolist() == want, dev


def test_the_guarded_kernel_is_proved_and_a_bug_inside_a_static_func_is_found(tmp_path):
    root = _package(tmp_path)
    (report,) = prove_file(root / "vkapi" / "kern.py", suggest=False)
    assert report.status is KernelStatus.PROVED, report.status
    # the element API reads offsets[i + 2]: past the end for the last element
    buggy = _package(tmp_path / "buggy", HANDLES.replace(
        "ds.offsets[i + 1] - ds.offsets[i]", "ds.offsets[i + 2] - ds.offsets[i]"))
    (report,) = prove_file(buggy / "vkapi" / "kern.py", suggest=False)
    assert report.status is KernelStatus.FAILED, report.status
    failed = [o for o in report.obligations if o.status is Status.FAILED]
    assert failed and all(o.kind is ObligationKind.BOUNDS and o.loc.file.endswith("handles.py")
                          for o in failed), failed


CHANGED = [
    ("a base class may supply the attribute",
     HANDLES.replace("class DatasetAPI:", "class Base:\n    pass\n\n\nclass DatasetAPI(Base):"),
     None, "handles.DatasetAPI.get_num_elems"),
    ("a metaclass may intercept it",
     HANDLES.replace("class DatasetAPI:", "class DatasetAPI(metaclass=type):"),
     None, "handles.DatasetAPI.get_num_elems"),
    ("the class is rebound",
     HANDLES + "\n\ndef swap(other):\n    global DatasetAPI\n    DatasetAPI = other\n",
     None, "handles.DatasetAPI.get_num_elems"),
    ("its module assigns the attribute",
     HANDLES + "\n\nDatasetAPI.get_num_elems = clamp_count\n",
     None, "handles.DatasetAPI.get_num_elems"),
    ("another module of the project assigns it",
     HANDLES, {"vkapi/setup.py": "from .handles import ElementAPI\n\n\ndef more(f):\n"
                                 "    ElementAPI.get_num_nodes = f\n"},
     "Elems.get_num_nodes"),
    ("another module reaches it through the module",
     HANDLES, {"vkapi/setup.py": "from . import handles\n\n\ndef more(f):\n"
                                 "    setattr(handles.DatasetAPI, 'get_num_elems', f)\n"},
     "handles.DatasetAPI.get_num_elems"),
    ("another module changes it through an alias of the class",
     HANDLES, {"vkapi/setup.py": "from . import handles\n\n\ndef more(f):\n"
                                 "    api = handles.DatasetAPI\n    api.get_num_elems = f\n"},
     "handles.DatasetAPI.get_num_elems"),
    ("a class method sets an attribute of that name on its class",
     HANDLES, {"vkapi/setup.py": "class Patch:\n    @classmethod\n    def more(cls, f):\n"
                                 "        cls.get_num_elems = f\n"},
     "handles.DatasetAPI.get_num_elems"),
    ("a function of the project sets an attribute whose name it is passed",
     HANDLES, {"vkapi/setup.py": "def patch(cls, name, f):\n    setattr(cls, name, f)\n"},
     "handles.DatasetAPI.get_num_elems"),
]


@pytest.mark.parametrize("what, handles, extra, call", CHANGED, ids=[c[0] for c in CHANGED])
def test_a_name_something_may_change_is_not_resolved(tmp_path, what, handles, extra, call):
    root = _package(tmp_path, handles, extra=extra)
    k = compile_file(root / "vkapi" / "kern.py").kernel("count_nodes")
    assert k.error is not None, what
    text = k.error.render()
    assert f"error: {call}() is not a builtin or a @vk.func" in text, (what, text)
    assert text.startswith(str(root / "vkapi" / "kern.py") + ":"), text   # located at the call


def test_stores_that_cannot_change_a_class_leave_the_funcs(tmp_path):
    # a setattr of other literal names; an instance's attribute; a struct field in a Warp func
    extra = {"vkapi/setup.py": "import warp as wp\n\n\ndef hook(obj, f):\n    attr = 'compile'\n"
                               "    if f is None:\n        attr = '_compile'\n    setattr(obj, attr, f)\n"
                               "    obj.get_first = f\n\n\nclass Cache:\n    def __init__(self, f):\n"
                               "        self.get_num_nodes = f\n\n\n@wp.func\ndef mark(e: int):\n"
                               "    c = Cursor()\n    c.get_elem_from_idx = e\n"}
    k = compile_file(_package(tmp_path, extra=extra) / "vkapi" / "kern.py").kernel("count_nodes")
    assert k.error is None, k.error.render()


def test_a_local_name_shadows_the_module_alias(tmp_path):
    kernel = KERNEL.replace("e = handles.DatasetAPI.get_elem_from_idx(ds, i)",
                            "handles = i\n        e = handles.DatasetAPI.get_elem_from_idx(ds, i)")
    k = compile_file(_package(tmp_path, kernel=kernel) / "vkapi" / "kern.py").kernel("count_nodes")
    assert k.error is not None     # a local name: the whole body's (Python), so the first call
    assert "error: handles.DatasetAPI.get_num_elems() is not a builtin or a @vk.func" in k.error.render()


def test_a_library_a_function_builds_at_run_time_is_named_with_that_function(tmp_path):
    # warp-simdata's `ShapesLibrary = sids_shapes.get_shapes_library()`: a class of funcs that
    # a function makes in closures when the module runs; nothing in the source is that class
    build = ("import warp as wp\n\n\ndef make_library(n):\n    class Library:\n"
             "        @staticmethod\n        @wp.func\n        def size() -> int:\n"
             "            return n\n    return Library\n")
    kernel = ("import warp as wp\n\nfrom . import build\n\nLIB = build.make_library(3)\n\n\n"
              "@wp.kernel\ndef k(out: wp.array(dtype=int)):\n    out[0] = LIB.size()\n")
    root = _package(tmp_path, extra={"vkapi/build.py": build, "vkapi/lib_kern.py": kernel})
    k = compile_file(root / "vkapi" / "lib_kern.py").kernel("k")
    assert k.error is not None
    text = k.error.render()
    assert "lib_kern.py:10:14: error: LIB.size() is not a builtin or a @vk.func verikern can read: " \
           "`LIB` is bound by " in text, text
    assert f"its value is what the function 'make_library' ({root / 'vkapi' / 'build.py'}:4) " \
           "returns when the module runs" in text, text


def test_the_corpus_kernel_runs_as_under_warp(warp_cpu, tmp_path):
    # the same-module form (`DatasetAPI.get_elem_id(ds, i)`, the class's own calls inside)
    wp = warp_cpu
    path = Path(vk.__file__).parent / "selftest_corpus" / "ok_class_static_func_dataset_api.py"
    theirs = warp_module_from_text(tmp_path, path.read_text(), "verikern_class_static_corpus")
    offsets = np.array([0, 4, 4, 9, 11], np.int32)
    ds = theirs.Dataset()
    ds.offsets, ds.first_id = wp.array(offsets, dtype=wp.int32, device="cpu"), 100
    w_counts = wp.zeros(6, dtype=wp.int32, device="cpu")
    wp.launch(theirs.node_counts, dim=6, inputs=[ds, w_counts], device="cpu")
    assert w_counts.numpy().tolist() == [4, 0, 5, 2, 0, 0]
    k = compile_file(path).kernel("node_counts")
    for dev in ("cpu", "cpu:native"):
        got = np.zeros(6, np.int32)
        vk.launch(k.mir, 6, [{"offsets": offsets.copy(), "first_id": 100}, got], device=dev)
        assert got.tolist() == [4, 0, 5, 2, 0, 0], dev


def test_held_arrays_reached_through_a_static_func_of_another_module(tmp_path):
    # warp-simdata's ElementAPI.get_face reads ds.ngon_n_blocks[b]: the held read is modelled
    # (frontend/check/held_arrays.py) whichever way the body is reached, with its length assert
    mesh = ("import warp as wp\n\n\n@wp.struct\nclass Block:\n    data: wp.array(dtype=wp.int32)\n\n\n"
            "@wp.struct\nclass Mesh:\n    blocks: wp.array(dtype=Block)\n\n\nclass MeshAPI:\n"
            "    @staticmethod\n    @wp.func\n    def first(m: Mesh, b: int) -> int:\n"
            "        return m.blocks[b].data[0]\n")
    kernel = ("import warp as wp\n\nfrom . import mesh\n\n\n@wp.kernel\n"
              "def k(m: mesh.Mesh, out: wp.array(dtype=int)):\n    i = wp.tid()\n"
              "    out[i] = mesh.MeshAPI.first(m, i)\n")
    root = _package(tmp_path, extra={"vkapi/mesh.py": mesh, "vkapi/mesh_kern.py": kernel})
    k = compile_file(root / "vkapi" / "mesh_kern.py").kernel("k")
    assert k.error is None, k.error.render()
    asserts = [ins for _, ins in k.mir.instructions() if type(ins).__name__ == "Assert"]
    assert [(a.loc.line, a.loc.col) for a in asserts] == [(18, 16)], asserts
    out = np.zeros(2, np.int32)
    blocks = [{"data": np.array([7, 1], np.int32)}, {"data": np.array([9], np.int32)}]
    vk.launch(k.mir, 2, [{"blocks": blocks}, out], device="cpu")
    assert out.tolist() == [7, 9]


def test_a_factory_parameter_shadows_the_class_of_the_same_name(tmp_path):
    # `API` in the factory's kernel is whatever make() is passed, not the module's class, even
    # where a module-level kernel of the same file calls the class's `API.get`
    source = ("import warp as wp\n\n\nclass API:\n    @staticmethod\n    @wp.func\n"
              "    def get(x: int) -> int:\n        return x\n\n\n@wp.kernel\n"
              "def direct(out: wp.array(dtype=int)):\n    out[0] = API.get(1)\n\n\n"
              "def make(API, n: int):\n    @wp.kernel\n    def k(out: wp.array(dtype=int)):\n"
              "        out[0] = API.get(n)\n    return k\n\n\nK = make(API, 3)\n")
    path = tmp_path / "factory.py"
    path.write_text(source)
    module = compile_file(path)
    assert module.kernel("direct").error is None, module.kernel("direct").error.render()
    err = module.kernel("k").error
    assert err is not None and err.render().startswith(
        f"{path}:19:18: error: API.get() is not a builtin or a @vk.func"), err


def test_a_class_body_that_binds_the_name_again_is_not_read(tmp_path):
    handles = HANDLES.replace("        return clamp_count(ds.offsets[i + 1] - ds.offsets[i], 8)\n",
                              "        return clamp_count(ds.offsets[i + 1] - ds.offsets[i], 8)\n\n"
                              "    get_first_node = staticmethod(clamp_count)\n")
    k = compile_file(_package(tmp_path, handles) / "vkapi" / "kern.py").kernel("count_nodes")
    assert k.error is not None
    assert "error: Elems.get_first_node() is not a builtin or a @vk.func" in k.error.render(), \
        k.error.render()


def test_a_kernel_defined_in_a_class_keeps_its_name(tmp_path):
    path = tmp_path / "ops.py"
    path.write_text("import warp as wp\n\n\nclass Ops:\n    @staticmethod\n    @wp.kernel\n"
                    "    def fill(out: wp.array(dtype=int)):\n        i = wp.tid()\n"
                    "        if i < out.shape[0]:\n            out[i] = i\n")
    assert [(k.name, k.error) for k in compile_file(path).kernels] == [("fill", None)]
