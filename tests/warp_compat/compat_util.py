"""Helpers shared by the real-Warp comparisons of tests/warp_compat: load a
kernels file under real Warp (its kernel cache the suite's own,
tests/warp_kernel_cache.py), and assemble a file's kernels with ptxas."""
from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path

from verikern.backends.ptx import assemble, compile_ptx_bundle
from verikern.frontend import compile_file
from warp_kernel_cache import init_warp_quietly

HERE = Path(__file__).resolve().parent


def init_warp(wp, tmp_path_factory=None):
    """`wp` initialised quietly, its kernel cache the suite's persistent one
    (tests/warp_kernel_cache.py). `tmp_path_factory` is not used: the callers
    pass it from when each module compiled into a temporary cache of its own."""
    return init_warp_quietly(wp)


def load_kernels(wp, tmp_path_factory, name: str):
    """tests/warp_compat/<name>.py imported (Warp initialised by init_warp)."""
    init_warp(wp, tmp_path_factory)
    spec = importlib.util.spec_from_file_location(f"verikern_warp_compat_{name}",
                                                  HERE / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def warp_module_from_text(tmp_path, text: str, name: str):
    """`text` written to `tmp_path/<name>.py` and imported as the module `name` (Warp
    initialised by init_warp builds its kernels at their first launch)."""
    path = tmp_path / f"{name}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def import_package_module(root, package: str, module: str):
    """`package.module` of a package folder below `root`, imported by real Python (real
    Warp executes the package; verikern only reads it), then forgotten again."""
    sys.path.insert(0, str(root))
    try:
        return importlib.import_module(f"{package}.{module}")
    finally:
        sys.path.remove(str(root))
        for name in [m for m in sys.modules if m == package or m.startswith(package + ".")]:
            del sys.modules[name]


def ptxas_entries(name: str, arch: str = "sm_80") -> list[str]:
    """The entry names of one PTX module of every kernel of the file, after
    asserting that it compiles and that ptxas assembles it."""
    module = compile_file(HERE / f"{name}.py")
    assert not module.all_errors, [e.render() for e in module.all_errors]
    ptx, entries = compile_ptx_bundle([k.mir for k in module.kernels], arch)
    result = assemble(ptx, arch)
    assert result.ok, result.log
    return entries
