"""The cuda:N device without a GPU: clear unavailability errors, parameter
packing against real NVPTX .entry signatures, and error-status decoding."""
import ctypes
import re

import numpy as np
import pytest
from llvmlite import ir

from verikern.backends.cuda import (
    AbiMismatchError, abi_slots, cuda_available, pack_parameters, ptx_entry_params,
)
from verikern.backends.cuda import status as status_mod
from verikern.backends.ptx import compile_llvm_ir
from verikern.errors import (
    BarrierDivergenceError, DeviceUnavailableError, DivisionByZeroError, DivisionOverflowError,
    KernelAssertionError, KernelRuntimeError, OutOfBoundsError,
)
from verikern.mir import BOOL, F16, F32, F64, I64, U8, ArrayRef, Return, SourceLoc
from verikern.mir.builder import MirBuilder

L = SourceLoc("k.py", 4, 9)
AVAILABLE, REASON = cuda_available(0)


def mixed_kernel(launch_ndim=2):
    """Arrays of 1 and 2 logical dims plus scalars of awkward sizes, no body."""
    b = MirBuilder("mixed", L)
    b.array_param(ArrayRef("x", F32, 1))
    b.scalar_param("flag", BOOL)
    b.array_param(ArrayRef("m", F64, 2, inner=(3,)))
    b.scalar_param("h", F16)
    b.scalar_param("big", I64)
    b.scalar_param("small", U8)
    b.scalar_param("a", F32)
    b.set_block(b.new_block("entry"))
    b.terminate(Return(L))
    return b.finish(launch_ndim=launch_ndim)


def nvptx_entry_for(kernel):
    """PTX of an empty .entry with the LLVM backend's ABI for `kernel`
    (its leading parameters plus the i64* error-status pointer)."""
    from verikern.backends.llvm.abi import kernel_params

    types = [p.type for p in kernel_params(kernel, addrspace=1)]
    types.append(ir.PointerType(ir.IntType(64), 1))
    mod = ir.Module(name="m")
    mod.triple = "nvptx64-nvidia-cuda"
    fn = ir.Function(mod, ir.FunctionType(ir.VoidType(), types), name=kernel.name)
    fn.calling_convention = "ptx_kernel"
    ir.IRBuilder(fn.append_basic_block("entry")).ret_void()
    return compile_llvm_ir(str(mod), "sm_80")


@pytest.mark.skipif(AVAILABLE, reason="a CUDA device is present; this checks the no-GPU path")
def test_cuda_available_says_why_not():
    ok, reason = cuda_available(0)
    assert not ok
    assert reason in ("no NVIDIA driver: libcuda.so.1 not found",
                      "cuda-python is not installed: pip install cuda-python") \
        or reason.startswith(("no CUDA device", "the NVIDIA driver"))


@pytest.mark.skipif(AVAILABLE, reason="a CUDA device is present; this checks the no-GPU path")
def test_run_without_gpu_raises_device_unavailable():
    from verikern.backends.cuda import run

    class Launch:
        dims, block_dim, grid_dim, size = (4,), 4, 1, 4

    with pytest.raises(DeviceUnavailableError) as info:
        run(mixed_kernel(1), Launch(), {"x": np.zeros(4, np.float32)}, {}, device=0)
    assert str(info.value) == REASON
    assert "\n" not in str(info.value)


def test_missing_cuda_python_message(monkeypatch):
    from verikern.backends.cuda import driver

    monkeypatch.setattr(driver, "_import_driver", lambda: None)
    ok, reason = driver.cuda_available(0)
    assert not ok and reason == "cuda-python is not installed: pip install cuda-python"


def test_missing_device_index_message(monkeypatch):
    from verikern.backends.cuda import driver

    monkeypatch.setattr(driver, "device_count", lambda: 1)
    ok, reason = driver.cuda_available(1)
    assert (ok, reason) == (False, "no CUDA device 1: 1 device present")


def test_abi_slots_follow_the_llvm_abi():
    slots = abi_slots(mixed_kernel())
    assert [(s.kind, s.name, s.dim) for s in slots] == [
        ("pointer", "x", 0), ("shape", "x", 0), ("scalar", "flag", 0),
        ("pointer", "m", 0), ("shape", "m", 0), ("shape", "m", 1),
        ("scalar", "h", 0), ("scalar", "big", 0), ("scalar", "small", 0), ("scalar", "a", 0),
        ("launch_dim", "launch_dim", 0), ("launch_dim", "launch_dim", 1),
        ("launch_size", "launch_size", 0), ("pointer", "<error_status>", 0)]


def test_ptx_entry_params_sizes():
    params = ptx_entry_params(nvptx_entry_for(mixed_kernel()), "mixed")
    assert [p.size for p in params] == [8, 4, 1, 8, 4, 4, 2, 8, 1, 4, 4, 4, 4, 8]


def _bytes(obj):
    return ctypes.string_at(ctypes.addressof(obj), ctypes.sizeof(obj))


def test_pack_parameters_values_and_layout():
    kernel = mixed_kernel()
    params = ptx_entry_params(nvptx_entry_for(kernel), "mixed")
    packed = pack_parameters(
        kernel, params,
        pointers={"x": 0x1000, "m": 0x2000, "<error_status>": 0x3000},
        shapes={"x": (7,), "m": (5, 6)},
        scalars={"flag": True, "h": 1.5, "big": -2**40, "small": 200, "a": 0.25},
        dims=(3, 4))
    objs = packed.objects[:-1]
    assert [_bytes(o) for o in objs] == [
        (0x1000).to_bytes(8, "little"), (7).to_bytes(4, "little"), b"\x01",
        (0x2000).to_bytes(8, "little"), (5).to_bytes(4, "little"), (6).to_bytes(4, "little"),
        np.float16(1.5).tobytes(), (-2**40).to_bytes(8, "little", signed=True), bytes([200]),
        np.float32(0.25).tobytes(), (3).to_bytes(4, "little"), (4).to_bytes(4, "little"),
        (12).to_bytes(4, "little"), (0x3000).to_bytes(8, "little")]
    argv = ctypes.cast(packed.address, ctypes.POINTER(ctypes.c_void_p))
    assert [argv[i] for i in range(len(objs))] == [ctypes.addressof(o) for o in objs]


def test_pack_parameters_refuses_a_count_mismatch():
    kernel = mixed_kernel()
    params = ptx_entry_params(nvptx_entry_for(kernel), "mixed")
    with pytest.raises(AbiMismatchError, match="PTX entry has 13 parameters"):
        pack_parameters(kernel, params[:-1], pointers={}, shapes={}, scalars={}, dims=(1, 1))


def test_status_codes_match_the_llvm_backend():
    from verikern.backends.llvm import abi

    assert (abi.ERR_NONE, abi.ERR_BOUNDS, abi.ERR_DIV_ZERO, abi.ERR_ASSERT, abi.ERR_DIVERGENCE) == \
        (status_mod.ERR_NONE, status_mod.ERR_BOUNDS, status_mod.ERR_DIV_ZERO,
         status_mod.ERR_ASSERT, status_mod.ERR_DIVERGENCE)
    assert abi.ERR_WORDS == 8
    assert abi.DIVISION_OVERFLOW_NOTE == status_mod.DIVISION_OVERFLOW_NOTE


def _sites():
    from verikern.backends.llvm import abi
    from verikern.backends.llvm.abi import ErrorSite

    return [ErrorSite(1, SourceLoc("k.py", 7, 3), "x out of bounds", "x"),
            ErrorSite(3, SourceLoc("k.py", 9, 5), "sum must be positive"),
            ErrorSite(2, SourceLoc("k.py", 11, 9), "integer division or modulo overflow "
                      "(int32 INT_MIN / -1)", detail=abi.DIVISION_OVERFLOW_NOTE)]


def test_status_zero_is_silent():
    status_mod.raise_for_status(np.zeros(8, np.int64), _sites(), "k", "cuda:0")


@pytest.mark.parametrize("words,cls,text,line", [
    ([1, 0, 5, 2, 0, 9, 8, 0], OutOfBoundsError, "index 9 in dimension 0 (length 8) by thread 5 of block 2", 7),
    ([3, 1, 0, 0, 0, 0, 0, 0], KernelAssertionError, "sum must be positive", 9),
    ([2, 7, 1, 1, 0, 0, 0, 0], DivisionByZeroError, "division or modulo by zero", None),
    ([2, 2, 1, 1, 0, 0, 0, 0], DivisionOverflowError, "overflow (int32 INT_MIN / -1)", 11),
    ([4, 7, 1, 0, 3, 6, 0, 0], BarrierDivergenceError, "thread 6 reached another", None),
    ([9, 0, 0, 0, 0, 0, 0, 0], KernelRuntimeError, "unknown error code 9", 7),
])
def test_status_raises_the_simulators_kind(words, cls, text, line):
    with pytest.raises(cls, match=re.escape(text)) as info:
        status_mod.raise_for_status(np.array(words, np.int64), _sites(), "k", "cuda:0")
    assert (info.value.loc.line if info.value.loc else None) == line


SAXPY = '''import verikern as vk

@vk.kernel
def saxpy(x: vk.array(dtype=vk.float32), y: vk.array(dtype=vk.float32), a: vk.float32):
    i = vk.tid()
    if i < x.shape[0]:
        y[i] = a * x[i] + y[i]
'''


@pytest.mark.skipif(AVAILABLE, reason="a CUDA device is present; this checks the no-GPU path")
@pytest.mark.parametrize("device", ["cuda:0", "cuda", "cuda:3"])
def test_vk_launch_on_cuda_without_gpu_is_a_clear_error(device):
    from verikern.frontend import compile_source
    from verikern.runtime import launch

    kernel = compile_source(SAXPY, "saxpy.py").kernel("saxpy").mir
    x, y = np.ones(8, np.float32), np.zeros(8, np.float32)
    with pytest.raises(DeviceUnavailableError) as info:
        launch(kernel, 8, [x, y, 2.0], block_dim=8, device=device)
    assert str(info.value) == REASON
    assert np.all(y == 0)


@pytest.mark.parametrize("code,text", [
    (100, "no CUDA device: the NVIDIA driver reports 0 devices"),
    (803, "the NVIDIA driver failed to initialise (CUDA_ERROR_SYSTEM_DRIVER_MISMATCH)"),
    (999, "the NVIDIA driver failed to initialise (CUDA_ERROR_UNKNOWN)"),
])
def test_cuinit_failures_are_device_unavailable(monkeypatch, code, text):
    real = pytest.importorskip(
        "cuda.bindings.driver",
        reason="cuda.bindings is not importable (a dependency of verikern): pip install cuda-python")

    from verikern.backends.cuda import driver

    class InitFails:
        CUresult = real.CUresult

        def cuInit(self, flags):
            return (real.CUresult(code),)

    monkeypatch.setattr(driver, "_import_driver", lambda: InitFails())
    driver._init.cache_clear()
    try:
        assert driver.cuda_available(0) == (False, text)
    finally:
        driver._init.cache_clear()
