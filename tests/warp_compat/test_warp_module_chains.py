"""A constant read through a chain of project modules, `pkg.config.N`, as
warp-simdata reads `simdata.config.max_nodes_per_element` (`import
warp_simdata as simdata`, whose `__init__` binds `config` with `from .core
import config`): the value is read from `config`'s source (its module-level
default; nothing is executed), under the rules of any project constant -- no
module on the chain, and no other module of the project, may rebind the link
or the name. Real Warp on its CPU device, which reads the attribute when it
builds the kernel, gives the same results."""
from __future__ import annotations

import textwrap

import numpy as np
import pytest

import verikern as vk
from verikern.frontend import compile_file
from warp_compat.compat_util import import_package_module, init_warp

wp = pytest.importorskip("warp", reason="NVIDIA Warp is not installed (pip install warp-lang)")

KERNEL = """
import warp as wp

import vkchain as proj


@wp.kernel
def clamp_counts(counts: wp.array(dtype=wp.int32), out: wp.array(dtype=wp.int32)):
    i = wp.tid()
    if i < counts.shape[0] and i < out.shape[0]:
        c = counts[i]
        if c > proj.config.max_nodes:
            c = proj.config.max_nodes
        out[i] = c * proj.config.scale
"""


def _project(tmp_path, kernel: str = KERNEL, extra: dict | None = None):
    root = tmp_path / "src"
    files = {"vkchain/__init__.py": "from .core import config\n",
             "vkchain/core/__init__.py": "from . import config\n",
             "vkchain/core/config.py": "import os\n\nmax_nodes = 5\nscale = 3\n"
                                       "verbose = os.environ.get('VKCHAIN_VERBOSE', '0') != '0'\n",
             "vkchain/kern.py": kernel, **(extra or {})}
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(textwrap.dedent(text))
    return root


def test_a_constant_through_a_chain_of_modules_is_read_as_warp_reads_it(tmp_path, tmp_path_factory):
    root = _project(tmp_path)
    module = compile_file(root / "vkchain" / "kern.py")
    assert not module.all_errors, [e.render() for e in module.all_errors]
    counts = np.array([0, 3, 5, 6, 64, -2, 4, 9], np.int32)
    init_warp(wp, tmp_path_factory)
    kern = import_package_module(root, "vkchain", "kern")
    theirs = wp.zeros(8, dtype=wp.int32, device="cpu")
    wp.launch(kern.clamp_counts, dim=8, device="cpu",
              inputs=[wp.array(counts, dtype=wp.int32, device="cpu"), theirs])
    expected = np.minimum(counts, 5) * 3
    assert theirs.numpy().tolist() == expected.tolist()
    for dev in ("cpu", "cpu:native"):
        ours = np.zeros(8, np.int32)
        vk.launch(module.kernel("clamp_counts").mir, 8, [counts, ours], device=dev)
        assert ours.tolist() == expected.tolist(), dev


@pytest.mark.parametrize("where, files", [
    ("the kernel's file stores into the chain",
     {"vkchain/kern.py": KERNEL + "\n\ndef configure(n):\n    proj.config.max_nodes = n\n"}),
    ("another module of the project sets it",
     {"vkchain/setup.py": "import vkchain\n\n\ndef more():\n    vkchain.config.max_nodes = 64\n"}),
    ("its own module can rebind it",
     {"vkchain/core/config.py": "max_nodes = 5\nscale = 3\n\n\ndef more():\n"
                                "    global max_nodes\n    max_nodes = 64\n"}),
    ("a link of the chain is rebound",
     {"vkchain/__init__.py": "from .core import config\n\n\ndef swap(other):\n"
                             "    global config\n    config = other\n"}),
])
def test_a_chain_something_can_rebind_is_no_constant(tmp_path, where, files):
    root = _project(tmp_path, extra=files)
    err = compile_file(root / "vkchain" / "kern.py").kernel("clamp_counts").error
    assert err is not None and err.rule == "closure", where
    assert "kern.py:" in err.render() and "proj.config" in err.render(), err.render()


def test_a_name_that_is_no_literal_constant_there_names_the_chain(tmp_path):
    root = _project(tmp_path, KERNEL.replace("proj.config.max_nodes:", "proj.config.verbose:"))
    err = compile_file(root / "vkchain" / "kern.py").kernel("clamp_counts").error
    assert err is not None and err.rule == "closure"
    assert "cannot read proj.config.verbose: it is not a literal constant there" in err.render()


def test_a_func_reached_through_a_value_the_module_computes_is_a_located_error(tmp_path):
    """warp-simdata's `ValidationShapesLibrary = sids_shapes.get_shapes_library()` then
    `ValidationShapesLibrary.get_num_faces(...)` in a kernel: a class of funcs built when
    the module runs. verikern names the call, where the value is bound, and what to do."""
    kernel = ("import warp as wp\n\nfrom .core import config\n\n\ndef make_library():\n    return config\n\n\n"
              "Library = make_library()\n\n\n@wp.kernel\ndef faces(out: wp.array(dtype=int)):\n"
              "    out[0] = Library.num_faces(3)\n")
    root = _project(tmp_path, kernel)
    err = compile_file(root / "vkchain" / "kern.py").kernel("faces").error
    assert err is not None and err.rule == "call-not-allowed", err
    text = err.render()
    assert "kern.py:15:14" in text and "Library.num_faces() is not a builtin or a @vk.func verikern can read" in text
    assert "`Library` is bound by" in text and "kern.py:10: `make_library()`" in text
    assert "hint: call a module-level @wp.func" in text
