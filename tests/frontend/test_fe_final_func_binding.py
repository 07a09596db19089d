"""A module-level name whose last bindings are @func defs means that func once the
module has run, whatever it was bound to before (warpSPHCore's type_config:
`scalar: type = scalar_t`, `if ...: scalar = scalar_t`, then `@wp.func def
scalar(value: float)`), so a module importing it calls the func
(scan/module.py `_unbind_func_overloads`). A binding after the defs, or a
`global` rebinding in a function, keeps the name rebound: no call of it compiles."""
from __future__ import annotations

import pytest

from verikern.frontend import compile_file

CONFIG = '''import os
import warp as wp

scalar_t = wp.float32
scalar: type = scalar_t
if os.getenv("PRECISION") == "double":
    scalar = wp.float64


@wp.func
def scalar(value: float) -> wp.float32:
    return wp.float32(value) * 2.0
'''
KERNEL = '''import warp as wp

from .config import *


@wp.kernel
def fill(out: wp.array(dtype=wp.float32)):
    i = wp.tid()
    if i < out.shape[0]:
        out[i] = scalar(1.5)
'''


def _compile(tmp_path, config: str):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "config.py").write_text(config)
    (pkg / "kern.py").write_text(KERNEL)
    return compile_file(pkg / "kern.py")


def test_the_last_func_def_is_what_an_importer_calls(tmp_path):
    r = _compile(tmp_path, CONFIG)
    (k,) = r.kernels
    assert k.error is None and k.mir is not None, k.error.render() if k.error else r.all_errors
    assert [f.name for f in k.hir.funcs] == ["scalar"]    # the func (it doubles), not a cast


@pytest.mark.parametrize("tail", [
    "\n\nscalar = wp.float64\n",                                   # bound again after the def
    "\n\ndef setup():\n    global scalar\n    scalar = wp.float64\n",  # rebound by a function
])
def test_a_later_or_global_rebinding_keeps_it_rebound(tmp_path, tail):
    r = _compile(tmp_path, CONFIG + tail)
    (k,) = r.kernels
    assert k.mir is None and k.error is not None
    assert "scalar" in k.error.render(), k.error.render()
