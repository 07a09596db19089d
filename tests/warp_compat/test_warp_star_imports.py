"""`from <project module> import *` (warpsphcore's kernel files star-import
their package's types, constants and funcs) and `from warp.types import
vector, matrix`, read from source (verikern/frontend/scan/star_imports.py):
the names Python binds -- the module's `__all__` (literal lists, `+=`,
`.extend`), else its public names -- under the rules of any project name.
Real Warp on its CPU device runs the same package and gives the same results.
A type the package chooses when it is imported (warpsphcore's precision from
an environment variable) is a located error naming the variable."""
from __future__ import annotations

import textwrap

import numpy as np
import pytest

import verikern as vk
from verikern.frontend import compile_file
from warp_compat.compat_util import import_package_module, init_warp

wp = pytest.importorskip("warp", reason="NVIDIA Warp is not installed (pip install warp-lang)")

FILES = {
    "vkstar/__init__.py": "",
    "vkstar/consts.py": """
        import warp as wp
        from warp.types import vector

        __all__ = ["SCALE"]
        __all__ += ["vec2h_t"]
        __all__.extend(["offset"])

        SCALE = 3
        HIDDEN = 100                  # not in __all__: a star import does not bind it
        vec2h_t = vector(length=2, dtype=wp.float64)


        @wp.func
        def offset(x: wp.float64) -> wp.float64:
            return x + wp.float64(SCALE)
    """,
    "vkstar/types.py": """
        import warp as wp
        from .consts import *         # no __all__ here: its public names, SCALE among them


        @wp.struct
        class Pair:
            lo: wp.float64
            hi: wp.float64

        _PRIVATE = 7
    """,
    "vkstar/kern.py": """
        import warp as wp
        from warp.types import matrix

        from .types import *


        @wp.kernel
        def star(x: wp.array(dtype=vec2h_t), m: wp.array(dtype=matrix(shape=(2, 2), dtype=wp.float64)),
                 p: Pair, out: wp.array(dtype=wp.float64)):
            i = wp.tid()
            v = m[i] * x[i]
            out[i] = offset(v[0] * wp.float64(SCALE) + v[1]) + p.hi - p.lo
    """,
}


FILES = {rel: textwrap.dedent(text) for rel, text in FILES.items()}


def _package(tmp_path, files=FILES):
    root = tmp_path / "src"
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def test_star_imported_types_funcs_and_constants_run_as_in_warp(tmp_path, tmp_path_factory):
    root = _package(tmp_path)
    module = compile_file(root / "vkstar" / "kern.py")
    assert not module.all_errors, [e.render() for e in module.all_errors]
    rng = np.random.default_rng(5)
    x, m = rng.uniform(-2, 2, (6, 2)), rng.uniform(-2, 2, (6, 2, 2))
    init_warp(wp, tmp_path_factory)
    kern = import_package_module(root, "vkstar", "kern")
    pair = kern.Pair()
    pair.lo, pair.hi = 0.25, 2.0
    theirs = wp.zeros(6, dtype=wp.float64, device="cpu")
    wp.launch(kern.star, dim=6, device="cpu", inputs=[
        wp.array(x, dtype=kern.vec2h_t, device="cpu"), wp.array(m, dtype=wp.mat22d, device="cpu"), pair, theirs])
    v = np.einsum("nij,nj->ni", m, x)
    np.testing.assert_allclose(theirs.numpy(), v[:, 0] * 3 + v[:, 1] + 3 + 1.75, rtol=1e-12)
    for dev in ("cpu", "cpu:native"):
        out = np.zeros(6)
        vk.launch(module.kernel("star").mir, 6, [x, m, {"lo": 0.25, "hi": 2.0}, out], device=dev)
        np.testing.assert_allclose(out, theirs.numpy(), rtol=1e-12, err_msg=dev)


def _error(root, kernel: str = "star"):
    err = compile_file(root / "vkstar" / "kern.py").kernel(kernel).error
    assert err is not None
    return err


def test_a_name_outside_all_or_private_is_not_bound(tmp_path):
    for name in ("HIDDEN", "_PRIVATE"):
        files = dict(FILES)
        files["vkstar/kern.py"] = FILES["vkstar/kern.py"].replace("+ p.hi - p.lo", f"+ wp.float64({name})")
        err = _error(_package(tmp_path / name, files))
        assert err.rule in ("unknown-name", "closure") and name in err.render(), err.render()


@pytest.mark.parametrize("change", [
    "SCALE = 3\nSCALE = 4\n",                                        # its module binds it twice
    "SCALE = 3\n\n\ndef set_scale(n):\n    global SCALE\n    SCALE = n\n",    # or can rebind it
])
def test_a_star_imported_name_its_module_can_rebind_is_no_constant(tmp_path, change):
    files = dict(FILES)
    files["vkstar/consts.py"] = FILES["vkstar/consts.py"].replace("SCALE = 3\n", change)
    err = _error(_package(tmp_path, files))
    assert err.rule == "closure" and "SCALE" in err.render(), err.render()


def test_a_name_the_importing_file_binds_too_is_no_constant(tmp_path):
    """`SCALE = 2` before `from .types import *` (which binds SCALE = 3 over it) and after it
    (which wins): the value depends on the order, so neither is taken as a constant."""
    for where in ("before", "after"):
        files = dict(FILES)
        text = FILES["vkstar/kern.py"]
        files["vkstar/kern.py"] = text.replace("from .types import *\n", "SCALE = 2\nfrom .types import *\n") \
            if where == "before" else text.replace("from .types import *\n", "from .types import *\nSCALE = 2\n")
        err = _error(_package(tmp_path / where, files))
        assert err.rule == "closure" and "SCALE" in err.render(), (where, err.render())


def test_an_all_verikern_cannot_read_leaves_the_star_import_unread(tmp_path):
    files = dict(FILES)
    files["vkstar/consts.py"] = FILES["vkstar/consts.py"].replace(
        '__all__.extend(["offset"])', '__all__.extend([n for n in ("offset",)])')
    err = _error(_package(tmp_path, files))
    assert err.rule in ("unknown-name", "closure", "annotation", "call-not-allowed"), err.render()


def _precision_package(tmp_path, resolve: str):
    files = dict(FILES)
    files["vkstar/consts.py"] = FILES["vkstar/consts.py"] + textwrap.dedent("""
        import os


        def _resolve(value):
            return RESOLVED


        scalar_t = _resolve(os.getenv("VKSTAR_PRECISION"))
        __all__.append("scalar_t")
    """).replace("RESOLVED", resolve)
    files["vkstar/kern.py"] = FILES["vkstar/kern.py"].replace(
        "out: wp.array(dtype=wp.float64)", "out: wp.array(dtype=wp.float64), s: wp.array(dtype=scalar_t)")
    return _package(tmp_path, files)


def test_a_type_chosen_from_the_environment_is_one_instance_per_choice(tmp_path):
    """warpsphcore's `scalar_t = _resolve_precision(os.getenv("warpSPHCore_PRECISION"))`:
    which precision the kernels have is decided when the package is imported; verikern
    reads the alternatives from source (scan/configuration.py) and compiles the kernel
    once per alternative, the one with the variable unset first."""
    root = _precision_package(tmp_path, "wp.float32 if value is None else wp.float64")
    module = compile_file(root / "vkstar" / "kern.py")
    assert module.kernel_names == ["star{scalar_t=float32}", "star{scalar_t=float64}"]
    assert all(k.ok for k in module.kernels), [k.error for k in module.kernels]


def test_a_type_chosen_unreadably_is_a_located_error_naming_the_variable(tmp_path):
    """A choice whose alternatives the source does not say (`getattr(wp, value)`): verikern
    never runs it, so it says which name, where it is bound, and from which variable."""
    root = _precision_package(tmp_path, "wp.float32 if value is None else getattr(wp, value)")
    err = _error(root)
    text = err.render()
    assert err.rule == "annotation" and "kern.py:10:" in text, text
    assert "`scalar_t` is bound by" in text and "consts.py:" in text and "VKSTAR_PRECISION" in text
    assert "bind the name once to one type" in text


@pytest.mark.parametrize("star", ["from numpy import *", "from .unreadable import *"])
def test_a_star_import_verikern_cannot_read_unbinds_the_constants_before_it(tmp_path, star):
    """`SCALE = 2` then a star import verikern cannot read (outside the project, or a module
    whose names it does not know): Python may bind SCALE again there, so it is no constant;
    a constant bound after the star import stays one."""
    files = dict(FILES)
    files["vkstar/unreadable.py"] = "from numpy import *\n"
    text = FILES["vkstar/kern.py"].replace("from .types import *\n", f"from .types import *\nSCALE = 2\n{star}\n")
    files["vkstar/kern.py"] = text
    err = _error(_package(tmp_path / "before", files))     # the first name read: the type vec2h_t
    assert err.rule == "annotation" and "`vec2h_t` can be bound again" in err.render(), err.render()
    assert f"`{star}`, which verikern cannot read and which may bind 'vec2h_t'" in err.render()
    files["vkstar/kern.py"] = text.replace("from .types import *\n", "").replace("dtype=vec2h_t", "dtype=wp.vec2d") \
        .replace("p: Pair, ", "").replace(" + p.hi - p.lo", "").replace("offset(", "wp.float64(1.0) + (") \
        .replace("wp.float64(SCALE)", "wp.float64(2.0)")    # only `matrix` (from warp.types) is read before
    err = _error(_package(tmp_path / "dsl_name", files))
    assert "may bind 'matrix'" in err.render(), err.render()
    files["vkstar/kern.py"] = text.replace("from warp.types import matrix\n", "").replace(
        f"SCALE = 2\n{star}\n", f"{star}\nfrom warp.types import matrix\nLATER = 2\nvec2h_t = wp.vec2d\n") \
        .replace("wp.float64(SCALE)", "wp.float64(LATER)").replace("from .types import *\n", "")
    files["vkstar/kern.py"] = files["vkstar/kern.py"].replace(
        "p: Pair, ", "").replace(" + p.hi - p.lo", "").replace("offset(", "wp.float64(1.0) + (")
    r = compile_file(_package(tmp_path / "after", files) / "vkstar" / "kern.py")
    assert r.kernel("star").error is None, r.kernel("star").error.render()
