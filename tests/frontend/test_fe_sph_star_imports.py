"""The import shapes between warpsphcore's kernel functions and its operator
kernels: an `__all__` extended by comprehensions over a literal suffix list
(scan/all_comprehensions.py), a name bound both by a star import and by an
explicit import of the same binding (scan/same_origin.py), and a func whose
annotations read a run-time vector length, re-exported through a package
`__init__` that does not bind the length itself (imported_funcs.bring_global
links it to its origin). Each with a near miss that stays refused."""
from __future__ import annotations

import pytest

from verikern.app.prove import prove_file
from verikern.frontend import compile_file
from verikern.proofs.obligations import KernelStatus
from shared_helpers import write_package

CONFIG = '''
import os
from typing import Any
import warp as wp
from warp.types import vector


def _resolve_dim(value):
    if value is None:
        return Any
    return int(value)


dim_t = _resolve_dim(os.getenv("PKG_DIM"))
scalar_t = wp.float32

__all__ = ["dim_t", "scalar_t"]
'''

# kernelFunctions/__init__.py's shape: suffixes, a star import, then __all__.extend([...])
FUNCS_INIT = '''
__all__ = []
suffixes = ["_k", "_dk"]

from .wendland import *
__all__.extend(["wendland" + suffix for suffix in suffixes])
'''

WENDLAND = '''
import warp as wp
from ...config import *


@wp.func
def wendland_k(q: scalar_t):
    return (scalar_t(1.0) - q) * (scalar_t(1.0) - q)


@wp.func
def wendland_dk(q: scalar_t):
    return scalar_t(-2.0) * (scalar_t(1.0) - q)
'''

# kernels/eval.py: no __all__, star-imports the function package and the config
EVAL = '''
from .functions import *
from ..config import *
import warp as wp


@wp.func
def eval_k(q: scalar_t):
    return wendland_k(q)
'''

# kernels/kernel.py: both star imports, and scalar_t, dim_t imported by name too
KERNEL = '''
from ..config import *
import warp as wp
from warp.types import vector
from .eval import *
from ..config import scalar_t, dim_t


@wp.func
def sph_kernel(x: vector(dtype=scalar_t, length=dim_t), h: scalar_t):
    return eval_k(wp.length(x) / h)
'''

# kernels/__init__.py re-exports the func; it binds neither scalar_t nor dim_t
KERNELS_INIT = '''
from .kernel import sph_kernel
'''

OPS = '''
import warp as wp
from warp.types import vector
from ..config import *
from ..kernels import *


@wp.kernel
def density(x: wp.array(dtype=vector(dtype=scalar_t, length=dim_t)), h: scalar_t,
            out: wp.array(dtype=scalar_t)):
    i = wp.tid()
    if i < x.shape[0] and i < out.shape[0]:
        out[i] = sph_kernel(x[i], h)
'''


def _project(tmp_path, funcs_init=FUNCS_INIT, kernel=KERNEL, wendland=WENDLAND):
    pkg = write_package(tmp_path, "pkg", {"config": CONFIG})
    for sub, modules in (("kernels", {"__init__": KERNELS_INIT, "eval": EVAL, "kernel": kernel}),
                         ("kernels/functions", {"__init__": funcs_init, "wendland": wendland}),
                         ("ops", {"__init__": "", "density": OPS})):
        (pkg / sub).mkdir()
        for name, text in modules.items():
            (pkg / sub / f"{name}.py").write_text(text)
    return pkg


def test_the_sph_import_chain_compiles_and_is_proved_at_each_length(tmp_path):
    pkg = _project(tmp_path)
    module = compile_file(pkg / "ops" / "density.py")
    assert module.kernel_names == ["density[vec1f]", "density[vec2]", "density[vec3]", "density[vec4]",
                                   "density[...]"], [e.render() for e in module.all_errors]
    assert not [e.render() for e in module.all_errors if "[...]" not in e.render()
                and "generic over the length" not in e.render()]
    verdicts = {r.kernel: r.status for r in prove_file(pkg / "ops" / "density.py")}
    assert verdicts["density[vec3]"] == KernelStatus.PROVED and verdicts["density[...]"] == KernelStatus.UNKNOWN


@pytest.mark.parametrize("funcs_init", [
    FUNCS_INIT.replace('suffixes = ["_k", "_dk"]', 'suffixes = ["_k", "_dk"]\nsuffixes = ["_x"]'),  # bound twice
    FUNCS_INIT.replace("for suffix in suffixes]", "for suffix in suffixes if suffix]"),   # a filter
    FUNCS_INIT.replace('"wendland" + suffix', 'suffix.upper()'),                            # a call
])
def test_an_all_the_source_cannot_read_leaves_the_names_unbound(tmp_path, funcs_init):
    module = compile_file(_project(tmp_path, funcs_init=funcs_init) / "ops" / "density.py")
    assert not any(k.ok for k in module.kernels)
    rendered = " ".join(e.render() for e in module.all_errors)
    assert "sph_kernel() is not a builtin or a @vk.func" in rendered or "wendland_k" in rendered, rendered


def test_a_name_imported_from_another_binding_is_still_a_rebinding(tmp_path):
    # kernel.py's explicit scalar_t now comes from a module binding a scalar_t of its own
    kernel = KERNEL.replace("from ..config import scalar_t, dim_t", "from .other import scalar_t, dim_t")
    pkg = _project(tmp_path, kernel=kernel)
    (pkg / "kernels" / "other.py").write_text("import warp as wp\nfrom ..config import dim_t\n"
                                              "scalar_t = wp.float64\n")
    module = compile_file(pkg / "ops" / "density.py")
    assert not any(k.ok for k in module.kernels)
    assert "sph_kernel() is not a builtin or a @vk.func" in " ".join(e.render() for e in module.all_errors)
    rendered = " ".join(e.render() for e in compile_file(pkg / "kernels" / "kernel.py").all_errors)
    assert "`scalar_t` can be bound again" in rendered, rendered
