"""A project's own kernel decorators (verikern/frontend/scan/decorators.py),
read from their source in the shapes real projects use (warp-simdata's
`@simdata.kernel`: a function returning `wp.kernel(**kwargs)(fn)` through a
nested decorator and an identity guard, re-exported by the package's
`__init__.py`), and the located error for a decorator that is not one."""
from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np
import pytest

import verikern as vk
from verikern.app.prove import prove_file
from verikern.frontend import compile_file
from verikern.proofs.obligations import KernelStatus
from shared_helpers import import_package_modules

UTILS = '''
import warp as wp


def checked(obj):
    """An identity guard: raises or returns its argument unchanged."""
    if obj is None:
        raise RuntimeError("no kernel")
    return obj


def kernel(warp_kernel=None, /, **kwargs):
    kwargs.setdefault("enable_backward", False)

    def decorator(fn):
        return checked(wp.kernel(**kwargs)(fn))

    if warp_kernel is not None:
        return decorator(warp_kernel)
    return decorator


def func(warp_func):
    return checked(wp.func(warp_func))


@func
def twice(x: int):
    return 2 * x


@kernel
def fill_twice(out: wp.array(dtype=int)):
    i = wp.tid()
    if i < out.shape[0]:
        out[i] = twice(i)
'''

OPS = '''
import warp as wp
import {pkg} as proj
from .core.utils import kernel as plain_kernel


@proj.kernel
def shifted(x: wp.array(dtype=int), out: wp.array(dtype=int)):
    i = wp.tid()
    if i + 1 < x.shape[0] and i < out.shape[0]:
        out[i] = x[i + 1] - x[i]


@proj.kernel(module="unique")
def unchecked(x: wp.array(dtype=int), out: wp.array(dtype=int)):
    i = wp.tid()
    out[i] = x[i + 1]


@plain_kernel
def squares(out: wp.array(dtype=int)):
    i = wp.tid()
    if i < out.shape[0]:
        out[i] = i * i
'''


def _project(tmp_path, name: str) -> Path:
    pkg = tmp_path / name
    (pkg / "core").mkdir(parents=True)
    (pkg / "__init__.py").write_text("from .core import utils\n\nkernel = utils.kernel\nfunc = utils.func\n")
    (pkg / "core" / "__init__.py").write_text("")
    (pkg / "core" / "utils.py").write_text(textwrap.dedent(UTILS))
    (pkg / "ops.py").write_text(textwrap.dedent(OPS).format(pkg=name))
    return pkg


def test_a_project_decorator_around_wp_kernel_is_a_kernel(tmp_path):
    pkg = _project(tmp_path, "vkdeco_a")
    verdicts = {r.kernel: r.status for r in prove_file(pkg / "ops.py")}
    assert verdicts == {"shifted": KernelStatus.PROVED, "unchecked": KernelStatus.FAILED,
                        "squares": KernelStatus.PROVED}
    # the decorator's own module: @kernel and @func used bare there
    assert {r.kernel: r.status for r in prove_file(pkg / "core" / "utils.py")} == {
        "fill_twice": KernelStatus.PROVED}


def test_real_warp_runs_the_decorated_kernels_as_verikern_does(tmp_path):
    wp = pytest.importorskip("warp")
    pkg = _project(tmp_path, "vkdeco_b")
    # real Warp executes the package
    ops, utils = import_package_modules(tmp_path, "vkdeco_b.ops", "vkdeco_b.core.utils")
    assert isinstance(ops.shifted, wp.Kernel) and isinstance(utils.fill_twice, wp.Kernel)
    x = np.array([3, -1, 4, 1, -5, 9, 2, 6], np.int32)
    cases = [(ops, "shifted", 7, [x]), (ops, "squares", 8, []), (utils, "fill_twice", 8, [])]
    for module, name, n, inputs in cases:
        ours = np.zeros(n, np.int32)
        mine = compile_file(pkg / ("ops.py" if module is ops else "core/utils.py")).kernel(name)
        vk.launch(mine.mir, n, [*inputs, ours])
        theirs = wp.zeros(n, dtype=int, device="cpu")
        wp.launch(getattr(module, name), dim=n, device="cpu",
                  inputs=[*(wp.array(a, dtype=int, device="cpu") for a in inputs), theirs])
        np.testing.assert_array_equal(ours, theirs.numpy())


@pytest.mark.parametrize("body", [
    "return fn",                                   # no wp.kernel at all
    "return wp.kernel(other)",                     # another function
    "fn = other\n    return wp.kernel(fn)",         # its parameter rebound
    "return wp.kernel(fn, block_dim=64)",          # an option verikern does not pass through
    "if fn:\n        return wp.kernel(fn)",         # may return None
])
def test_a_kernel_named_decorator_that_is_not_one_is_a_located_error(tmp_path, body):
    pkg = tmp_path / "vkdeco_c"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    text = ("import warp as wp\n\n\ndef other(a):\n    pass\n\n\n"
            f"def kernel(fn):\n    {body}\n\n\n"
            "@kernel\ndef k(out: wp.array(dtype=int)):\n    out[0] = 1\n")
    (pkg / "k.py").write_text(text)
    module = compile_file(pkg / "k.py")
    assert module.kernels == []
    (err,) = [e for e in module.errors if e.rule == "unknown-decorator"]
    line = text.splitlines().index("@kernel") + 1
    assert f"{pkg / 'k.py'}:{line}:2: error: 'k' is decorated with @kernel" in err.render()
    assert "wp.kernel(f, ...)" in err.render()


def test_an_unknown_imported_kernel_decorator_names_itself(tmp_path):
    pkg = tmp_path / "vkdeco_d"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "k.py").write_text("import warp as wp\nimport numpy as lib\n\n\n@lib.kernel(x=1)\n"
                              "def k(out: wp.array(dtype=int)):\n    out[0] = 1\n")
    (err,) = compile_file(pkg / "k.py").errors
    assert err.rule == "unknown-decorator" and f"{pkg / 'k.py'}:5:2" in err.render()
    assert "@lib.kernel" in err.render()


def test_a_decorator_its_module_can_rebind_is_not_taken(tmp_path):
    pkg = _project(tmp_path, "vkdeco_e")
    utils = pkg / "core" / "utils.py"
    utils.write_text(utils.read_text() + "\n\ndef swap():\n    global kernel\n    kernel = print\n")
    module = compile_file(pkg / "ops.py")
    assert "squares" not in module.kernel_names and "shifted" not in module.kernel_names
    assert any(e.rule == "unknown-decorator" for e in module.errors)
