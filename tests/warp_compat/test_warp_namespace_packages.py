"""Project folders without `__init__.py` (PEP 420 namespace packages) in
project-aware reading (verikern/frontend/scan/project.py, `Project.of_file`):
a folder is a package where the file's own imports need it to be one (a
relative import climbing to it, or an import through the folder's name), as
Python resolves them; real Python and Warp import the same files and give the
simulator's results. Folders whose files use neither (Warp's own examples:
`warp/examples/core` has no `__init__.py`) keep their script-style reading."""
from __future__ import annotations

import ast
import textwrap

import numpy as np
import pytest

import verikern as vk
from verikern.app.prove import prove_paths
from verikern.frontend import compile_file
from verikern.frontend.scan.project import Project
from verikern.proofs.obligations import KernelStatus
from warp_compat.compat_util import import_package_module

CONSTS = "N = 6 * 7\nWIDTH = 3\n"
KERNEL = '''
import warp as wp
from .consts import N
from mypkg.consts import WIDTH


@wp.kernel
def k(out: wp.array(dtype=int)):
    i = wp.tid()
    if i < out.shape[0]:
        out[i] = N + WIDTH * i
'''
DEEP = '''
import warp as wp
from ..consts import N


@wp.kernel
def deep(out: wp.array(dtype=int)):
    i = wp.tid()
    if i < out.shape[0] - N:
        out[i + N] = 1
'''


def _write(root, files):
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))


@pytest.fixture
def namespace(tmp_path):
    """`mypkg/` and `mypkg/sub/` with no `__init__.py` anywhere."""
    _write(tmp_path, {"mypkg/consts.py": CONSTS, "mypkg/k.py": KERNEL, "mypkg/sub/deep.py": DEEP})
    return tmp_path


def test_a_namespace_package_folder_proves_with_its_imports(namespace):
    reports = prove_paths([namespace / "mypkg"])
    assert {r.kernel: r.status for r in reports} == {"k": KernelStatus.PROVED, "deep": KernelStatus.PROVED}
    assert Project.of_file(namespace / "mypkg" / "sub" / "deep.py", ast.parse(DEEP))[1] == "mypkg.sub.deep"


def test_the_values_are_those_real_python_and_warp_import(namespace, warp_cpu):
    wp = warp_cpu
    theirs = import_package_module(namespace, "mypkg", "k")
    w_out = wp.zeros(4, dtype=int, device="cpu")
    wp.launch(theirs.k, dim=4, inputs=[w_out], device="cpu")
    out = np.zeros(4, np.int32)
    vk.launch(compile_file(namespace / "mypkg" / "k.py").kernels[0].mir, 4, [out])
    assert out.tolist() == w_out.numpy().tolist() == [42, 45, 48, 51]
    deep = import_package_module(namespace, "mypkg.sub", "deep")
    w_deep = wp.zeros(44, dtype=int, device="cpu")
    wp.launch(deep.deep, dim=44, inputs=[w_deep], device="cpu")
    ours = np.zeros(44, np.int32)
    vk.launch(compile_file(namespace / "mypkg" / "sub" / "deep.py").kernels[0].mir, 44, [ours])
    assert ours.tolist() == w_deep.numpy().tolist() == [0] * 42 + [1, 1]


def test_a_namespace_folder_inside_a_regular_package_takes_relative_imports(tmp_path):
    """warpsphcore's layout: warpSPHCore/radiusSearch/small/ has no `__init__.py`
    and imports `from ...consts import N`."""
    _write(tmp_path, {"top/__init__.py": "", "top/consts.py": CONSTS, "top/search/__init__.py": "",
                      "top/search/small/kernel.py": DEEP.replace("from ..consts", "from ...consts")})
    r = compile_file(tmp_path / "top" / "search" / "small" / "kernel.py")
    assert not r.all_errors and r.kernels[0].error is None, [e.render() for e in r.all_errors]
    out = np.zeros(44, np.int32)
    vk.launch(r.kernels[0].mir, 44, [out])
    assert out.tolist() == [0] * 42 + [1, 1]


def test_folders_whose_files_need_no_package_keep_the_script_reading(tmp_path):
    """A script folder importing its sibling by its bare name, and a folder
    without `__init__.py` below a package whose files import absolutely
    (Warp's examples): neither becomes a package."""
    script = KERNEL.replace("from .consts import N\nfrom mypkg.consts import WIDTH", "from consts import N, WIDTH")
    _write(tmp_path, {"scripts/consts.py": CONSTS, "scripts/k.py": script,
                      "pkg/__init__.py": "", "pkg/examples/consts.py": CONSTS, "pkg/examples/k.py": script})
    for folder in ("scripts", "pkg/examples"):
        path = tmp_path / folder / "k.py"
        assert Project.of_file(path, ast.parse(script))[1] == "k"
        out = np.zeros(2, np.int32)
        vk.launch(compile_file(path).kernels[0].mir, 2, [out])
        assert out.tolist() == [42, 45]


def test_without_the_namespace_reading_the_relative_import_is_an_error(namespace):
    """What the namespace reading adds: read as a script, `from .consts import N`
    resolves nothing (the file's module would be the top-level `k`)."""
    assert Project.of_file(namespace / "mypkg" / "k.py")[1] == "k"
    assert Project.of_file(namespace / "mypkg" / "k.py", ast.parse(KERNEL))[1] == "mypkg.k"
