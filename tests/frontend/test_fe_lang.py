"""The DSL surface (verikern.lang) and `verikern emit`."""
from __future__ import annotations

import numpy as np
import pytest
from click.testing import CliRunner

import verikern as vk
from verikern.errors import KernelError
from verikern.lang import BUILTIN_NAMES, KernelHandle, KernelOnlyError
from frontend.kernels import fe_lang_kernels as mod


def test_kernel_handle_compiles_lazily_from_its_file():
    h = mod.inc
    assert isinstance(h, KernelHandle) and h.name == "inc" and h.block_dim == 64
    assert h.source_file.endswith("fe_lang_kernels.py")
    k = h.mir
    assert k.name == "inc" and k.block_dim == 64 and k.fast_math
    assert h.hir.name == "inc"


def test_broken_kernel_raises_kernel_error_on_mir():
    with pytest.raises(KernelError) as ei:
        _ = mod.broken.mir
    assert ei.value.rule == "assign-to-array" and ei.value.loc.line == 22


@pytest.mark.parametrize("name", BUILTIN_NAMES)
def test_builtins_raise_clear_error_outside_kernels(name):
    with pytest.raises(KernelOnlyError, match="inside a @vk.kernel"):
        getattr(vk, name)()


def test_kernels_and_funcs_cannot_be_called_from_python():
    with pytest.raises(KernelOnlyError, match="vk.launch"):
        mod.inc(np.zeros(3, np.float32))
    with pytest.raises(KernelOnlyError):
        mod.add_one(1.0)
    with pytest.raises(KernelOnlyError):
        vk.shared.array(shape=3, dtype=vk.float32)


def test_types_on_the_host():
    assert vk.float32(1.5) == np.float32(1.5) and vk.float32(1).dtype == np.float32
    assert vk.uint8(300 % 256) == 44
    np.testing.assert_array_equal(vk.vec3(1, 2, 3), np.array([1, 2, 3], np.float32))
    assert vk.mat33().shape == (3, 3) and vk.quat().shape == (4,)
    a = vk.array(dtype=vk.float32, ndim=2)
    assert a.ndim == 2 and a.dtype is vk.float32
    assert vk.array(dtype=float).dtype == vk.float32
    assert vk.array(dtype=int).dtype == vk.int32
    with pytest.raises(TypeError):
        vk.array(dtype=vk.float32, ndim=7)
    assert vk.pi == pytest.approx(3.14159265)
    assert vk.constant(5) == 5


def test_decorator_forms():
    def f(a):
        pass
    assert vk.kernel(f).block_dim is None
    assert vk.kernel(block_dim=128)(f).block_dim == 128
    with pytest.raises(TypeError):
        vk.kernel(block_dim=0)


def test_unknown_attribute_is_an_attribute_error():
    with pytest.raises(AttributeError):
        _ = vk.definitely_not_a_builtin


# ----------------------------------------------------------------- emit
def _emit(*args):
    from verikern.cli.emit import command
    return CliRunner().invoke(command, list(args))


def test_emit_mir_and_hir():
    path = mod.__file__
    r = _emit(path, "--kernel", "inc", "--ir", "mir")
    assert r.exit_code == 0, r.output
    assert r.output.startswith("kernel inc(") and "block_dim=64" in r.output
    r = _emit(path, "--kernel", "inc", "--ir", "hir")
    assert r.exit_code == 0 and "func add_one" in r.output


def test_emit_errors_exit_3():
    path = mod.__file__
    r = _emit(path, "--kernel", "nope")
    assert r.exit_code == 3 and "inc" in r.output and "broken" in r.output
    r = _emit(path, "--kernel", "broken")
    assert r.exit_code == 3 and ":22:5: error:" in r.output
    r = _emit(path)
    assert r.exit_code == 3 and "--kernel" in r.output
    r = _emit("/nonexistent/file.py")
    assert r.exit_code in (2, 3)


def test_emit_syntax_error(tmp_path):
    p = tmp_path / "bad.py"
    p.write_text("import verikern as vk\n@vk.kernel\ndef k(:\n")
    r = _emit(str(p), "--ir", "mir")
    assert r.exit_code == 3 and "bad.py:3:" in r.output


def test_emit_llvm_reports_missing_backend_clearly(monkeypatch):
    import sys
    monkeypatch.setitem(sys.modules, "verikern.backends.llvm", None)
    r = _emit(mod.__file__, "--kernel", "inc", "--ir", "llvm")
    assert r.exit_code == 3 and "not available" in r.output


def test_a_compile_result_and_its_errors_pickle_as_they_render():
    """A module's compile result crosses processes (Dask workers, the test run's shared
    results): pickled and loaded, its kernels print the same MIR and its errors -- a
    KernelError needs its location to be built -- render the same, with their rule,
    hint and source line; a runtime error keeps its thread, block and detail."""
    import pickle

    from verikern.errors import OutOfBoundsError
    from verikern.frontend import compile_source
    from verikern.mir.printer import format_kernel

    src = ("import warp as wp\n\n@wp.kernel\ndef good(a: wp.array(dtype=float)):\n    a[wp.tid()] = 1.0\n\n"
           "@wp.kernel\ndef bad(a: wp.array(dtype=float)):\n    a = a\n")
    result = compile_source(src, "two.py")
    assert result.all_errors, "the bad kernel must be refused"
    back = pickle.loads(pickle.dumps(result))
    assert [str(e) for e in back.all_errors] == [str(e) for e in result.all_errors]
    for before, after in zip(result.all_errors, back.all_errors):
        assert type(after) is type(before)
        assert (after.rule, after.hint, after.loc) == (before.rule, before.hint, before.loc)
    assert format_kernel(back.kernel("good").mir) == format_kernel(result.kernel("good").mir)
    oob = OutOfBoundsError("index 9 of a (length 4)", result.kernel("good").mir.loc, thread=3, block=1, index=9)
    again = pickle.loads(pickle.dumps(oob))
    assert (str(again), again.thread, again.block, again.detail) == (str(oob), 3, 1, {"index": 9})
