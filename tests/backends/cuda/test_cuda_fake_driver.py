"""backends/cuda's whole launch path (module load, allocation, copies,
parameter packing, launch geometry, copy-back, error status) against a fake
CUDA driver that executes the launch with the CPU simulator, reading every
argument back out of the raw parameter buffer the real driver would get."""
import copy
import ctypes
import re
import sys
from pathlib import Path

import numpy as np
import pytest

from verikern.backends.cuda import abi, driver, runner
from verikern.errors import OutOfBoundsError
from verikern.mir import (
    BOOL, F32, I32, ArrayRef, BinOp, Branch, Compare, Jump, Load, Return, ShapeOf, SourceLoc,
    Special, Store,
)
from verikern.mir.builder import MirBuilder

from shared_helpers import EXAMPLE_FILES

L = SourceLoc("k.py", 6, 5)
# The fake driver answers with cuda-python's own CUresult codes (cuda-python is a
# dependency of verikern; only a broken install lacks it).
CUresult = pytest.importorskip(
    "cuda.bindings.driver",
    reason="cuda.bindings is not importable (a dependency of verikern): pip install cuda-python",
).CUresult


def saxpy(guarded=True):
    """y[i] = a * x[i] + y[i] for i = tid (guarded by i < x.shape[0] when `guarded`)."""
    b = MirBuilder("saxpy", L)
    x = b.array_param(ArrayRef("x", F32, 1))
    y = b.array_param(ArrayRef("y", F32, 1))
    a = b.scalar_param("a", F32)
    entry, then, done = b.new_block("entry"), b.new_block("then"), b.new_block("exit")
    b.set_block(entry)
    t, bi, bd, m, i = (b.new_value(I32) for _ in range(5))
    b.emit(Special(t, "thread_idx", L))
    b.emit(Special(bi, "block_idx", L))
    b.emit(Special(bd, "block_dim", L))
    b.emit(BinOp(m, "mul", bi, bd, L))
    b.emit(BinOp(i, "add", m, t, L))
    if guarded:
        n, c = b.new_value(I32), b.new_value(BOOL)
        b.emit(ShapeOf(n, x, 0, L))
        b.emit(Compare(c, "lt", i, n, L))
        b.terminate(Branch(c, then, done, L))
    else:
        b.terminate(Jump(then, L))
    b.set_block(then)
    xv, yv, r, s = (b.new_value(F32) for _ in range(4))
    b.emit(Load(xv, x, (i,), L))
    b.emit(Load(yv, y, (i,), L))
    b.emit(BinOp(r, "mul", a, xv, L))
    b.emit(BinOp(s, "add", r, yv, L))
    b.emit(Store(y, (i,), s, L))
    b.terminate(Jump(done, L))
    b.set_block(done)
    b.terminate(Return(L))
    return b.finish()


class FakeDriver:
    """The subset of cuda.bindings.driver that backends/cuda calls; device
    memory is host memory, a launch runs the simulator."""

    class CUdevice_attribute:
        CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = "major"
        CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = "minor"

    CODES = {"bounds": 1, "div-zero": 2, "assert": 3, "divergence": 4}

    def __init__(self, kernel=None):
        self.kernels = {kernel.name: kernel} if kernel is not None else {}
        self.memory = {}      # address -> numpy uint8 buffer
        self.freed = []
        self.launches = []
        self.modules = {}

    def cuGetErrorName(self, status):
        return (0, b"CUDA_ERROR_FAKE")

    def cuInit(self, flags):
        return (0,)

    def cuDeviceGetCount(self):
        return (0, 1)

    def cuDeviceGet(self, index):
        return (0, index)

    def cuDeviceGetAttribute(self, attr, dev):
        return (0, {"major": 9, "minor": 0}[attr])

    def cuDevicePrimaryCtxRetain(self, dev):
        return (0, "ctx")

    def cuCtxSetCurrent(self, ctx):
        return (0,)

    def cuModuleLoadData(self, image):
        assert isinstance(image, int), "the image is passed by address"
        handle = len(self.modules) + 1
        self.modules[handle] = ctypes.string_at(image).decode()   # NUL-terminated PTX
        return (0, handle)

    def cuModuleGetFunction(self, module, name):
        return (0, (module, name.decode()))

    def cuMemAlloc(self, nbytes):
        buf = np.zeros(nbytes, dtype=np.uint8)
        addr = buf.ctypes.data
        self.memory[addr] = buf
        return (0, addr)

    def cuMemFree(self, addr):
        self.freed.append(addr)
        del self.memory[addr]
        return (0,)

    def cuMemcpyHtoD(self, dst, src, nbytes):
        assert dst in self.memory and nbytes <= self.memory[dst].nbytes
        ctypes.memmove(dst, src, nbytes)
        return (0,)

    def cuMemcpyDtoH(self, dst, src, nbytes):
        self._owner(src, nbytes)
        ctypes.memmove(dst, src, nbytes)
        return (0,)

    def cuCtxSynchronize(self):
        return (self.sync_status,)

    # used by benchmarks/gpu_saxpy_bandwidth.py
    def cuDeviceGetName(self, length, dev):
        return (0, b"Fake GPU\0")

    def _owner(self, addr, nbytes):
        for base, buf in self.memory.items():
            if base <= addr and addr + nbytes <= base + buf.nbytes:
                return
        raise AssertionError(f"access [{addr:#x}, +{nbytes}) outside every allocation")

    def cuMemsetD32(self, dst, value, count):
        self._owner(dst, 4 * count)
        np.ctypeslib.as_array(ctypes.cast(dst, ctypes.POINTER(ctypes.c_uint32)), (count,))[:] = value
        return (0,)

    def cuMemcpyDtoDAsync(self, dst, src, nbytes, stream):
        self._owner(dst, nbytes)
        self._owner(src, nbytes)
        ctypes.memmove(dst, src, nbytes)
        return (0,)

    def cuEventCreate(self, flags):
        return (0, object())

    def cuEventRecord(self, event, stream):
        return (0,)

    busy_polls = 2  # cuEventQuery answers NOT_READY this many times per event
    sync_status = 0

    def cuEventQuery(self, event):
        self.polls = getattr(self, "polls", 0) + 1
        if self.busy_polls is None or self.polls <= self.busy_polls:
            return (CUresult.CUDA_ERROR_NOT_READY,)
        self.polls = 0
        return (0,)

    def cuEventDestroy(self, event):
        return (0,)

    def cuEventSynchronize(self, event):
        return (0,)

    def cuEventElapsedTime(self, start, end):
        return (0, 0.5)

    def cuLaunchKernel(self, func, gx, gy, gz, bx, by, bz, shmem, stream, params, extra):
        from verikern.backends.simulator import simulate
        from verikern.runtime import LaunchConfig

        module, entry = func
        kernel = self.kernels[entry]
        ptx_params = abi.ptx_entry_params(self.modules[module], entry)
        argv = ctypes.cast(params, ctypes.POINTER(ctypes.c_void_p))
        raw = [ctypes.string_at(argv[k], p.size) for k, p in enumerate(ptx_params)]
        slots = abi.abi_slots(kernel)
        ints = [int.from_bytes(r, "little", signed=True) for r in raw]
        dims = tuple(v for s, v in zip(slots, ints) if s.kind == "launch_dim")
        size = next(v for s, v in zip(slots, ints) if s.kind == "launch_size")
        assert size == int(np.prod(dims)) and (gy, gz, by, bz) == (1, 1, 1, 1)
        arrays, scalars, status_addr = {}, {}, None
        for ref in kernel.params:
            if isinstance(ref, ArrayRef):
                k = next(j for j, s in enumerate(slots) if s.kind == "pointer" and s.name == ref.name)
                shape = tuple(ints[k + 1 + d] for d in range(ref.ndim)) + ref.inner
                count = int(np.prod(shape))
                arrays[ref.name] = np.ctypeslib.as_array(
                    ctypes.cast(ints[k], ctypes.POINTER(ctypes.c_uint8)),
                    (count * ref.dtype.np_dtype.itemsize,)).view(ref.dtype.np_dtype).reshape(shape)
            else:
                k = next(j for j, s in enumerate(slots) if s.kind == "scalar" and s.name == ref.name)
                scalars[ref.name] = np.frombuffer(raw[k], dtype=ref.value.type.np_dtype)[0]
        status_addr = ints[-1]
        launch = LaunchConfig(dims, bx, gx, size)
        self.launches.append((launch, dict(scalars)))
        try:
            simulate(kernel, launch, arrays, scalars)
        except Exception as exc:  # the GPU kernel's checks write the status instead of raising
            words = np.array([self.CODES[exc.kind], 0, int(exc.thread or 0), int(exc.block or 0),
                              0, 0, 0, 0], dtype=np.int64)
            ctypes.memmove(status_addr, words.ctypes.data, 64)
        return (0,)


@pytest.fixture
def fake(monkeypatch):
    def install(kernel=None):
        import verikern.backends.ptx as ptx

        fake_driver = FakeDriver(kernel)
        real_compile = ptx.compile_ptx

        def recording_compile(k, *args, **kwargs):  # the fake needs the MIR of each entry
            fake_driver.kernels[k.name] = k
            return real_compile(k, *args, **kwargs)

        monkeypatch.setattr(ptx, "compile_ptx", recording_compile)
        monkeypatch.setattr(driver, "_import_driver", lambda: fake_driver)
        monkeypatch.setattr(driver, "_contexts", {})
        driver._init.cache_clear()
        runner._module_cache.clear()
        return fake_driver
    yield install
    driver._init.cache_clear()
    runner._module_cache.clear()


def test_runtime_launch_on_fake_gpu_matches_numpy(fake):
    from verikern.runtime import launch

    kernel = saxpy()
    fd = fake(kernel)
    rng = np.random.default_rng(1)
    x = rng.standard_normal(1000).astype(np.float32)
    y = rng.standard_normal(1000).astype(np.float32)
    expected = np.float32(2.5) * x + y
    launch(kernel, 1000, [x, y, 2.5], block_dim=128, device="cuda:0")
    np.testing.assert_array_equal(y, expected)
    (cfg, scalars), = fd.launches
    assert (cfg.dims, cfg.block_dim, cfg.grid_dim, cfg.size) == ((1000,), 128, 8, 1000)
    assert scalars == {"a": np.float32(2.5)}
    assert fd.memory == {} and len(fd.freed) == 3    # x, y and the status buffer
    assert runner.default_arch(0) == "sm_90"


def test_module_is_loaded_once_per_kernel_and_device(fake):
    kernel = saxpy()
    fd = fake(kernel)
    from verikern.runtime import LaunchConfig

    for _ in range(3):
        runner.run(kernel, LaunchConfig((4,), 4, 1, 4),
                   {"x": np.ones(4, np.float32), "y": np.zeros(4, np.float32)}, {"a": 1.0})
    assert len(fd.modules) == 1 and len(fd.launches) == 3


def test_kernel_fault_status_becomes_out_of_bounds_error(fake):
    from verikern.runtime import LaunchConfig

    kernel = saxpy(guarded=False)
    fd = fake(kernel)
    arrays = {"x": np.ones(6, np.float32), "y": np.zeros(8, np.float32)}
    with pytest.raises(OutOfBoundsError, match="on cuda:0") as info:
        runner.run(kernel, LaunchConfig((8,), 8, 1, 8), arrays, {"a": 1.0})
    assert info.value.loc is not None and info.value.loc.line == 6
    assert fd.memory == {}


def test_device_index_beyond_count_is_refused(fake):
    from verikern.errors import DeviceUnavailableError
    from verikern.runtime import launch

    fake(saxpy())
    with pytest.raises(DeviceUnavailableError, match="no CUDA device 1: 1 device present"):
        launch(saxpy(), 4, [np.ones(4, np.float32), np.ones(4, np.float32), 1.0], block_dim=4,
               device="cuda:1")


def load_example(path):
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"vk_fake_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


EXAMPLES = EXAMPLE_FILES


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_example_through_the_cuda_device_path(fake, path):
    """The same harness as the GPU test (test_cuda_gpu.py), on the fake driver:
    every argument of every example kernel survives packing and decoding."""
    gpu_test = load_example(Path(__file__).with_name("test_cuda_gpu.py"))  # its helpers
    fd = fake()
    outputs_of = gpu_test.outputs_of
    module = load_example(path)
    inputs = module.make_inputs(np.random.default_rng(3), gpu_test.GPU_TEST_N)
    cpu_inputs, gpu_inputs = copy.deepcopy(inputs), copy.deepcopy(inputs)
    cpu = outputs_of(module.run(cpu_inputs, device="cpu"), cpu_inputs)
    gpu = outputs_of(module.run(gpu_inputs, device="cuda:0"), gpu_inputs)
    assert fd.launches, "the example never reached the cuda device"
    assert set(gpu) == set(cpu)
    for name in cpu:
        gpu_test.assert_agree(name, gpu[name], cpu[name], fast_math=False)
        np.testing.assert_array_equal(gpu[name], cpu[name])   # same simulator: bit-identical
    assert fd.memory == {}


def _corpus_sample():
    from corpus_loader import load_corpus

    return [c for c in load_corpus() if c.expect_status == "proved"][::6]


@pytest.mark.parametrize("case", _corpus_sample(), ids=lambda c: c.name)
def test_corpus_harness_through_the_cuda_device_path(fake, case):
    """test_cuda_gpu.py's corpus harness on the fake driver (every 6th proved case)."""
    gpu_test = load_example(Path(__file__).with_name("test_cuda_gpu.py"))
    fd = fake()
    gpu_test.corpus_case_agrees(case)
    assert fd.launches and fd.memory == {}


def test_bandwidth_benchmark_runs_and_checks_its_result(fake, capsys, tmp_path):
    """benchmarks/gpu_saxpy_bandwidth.py end to end on the fake driver (no Warp):
    its saxpy result check passes, and the numbers follow from the event times."""
    import json

    bench = load_example(Path(__file__).resolve().parents[3] / "benchmarks" / "gpu_saxpy_bandwidth.py")
    fd = fake()
    out = tmp_path / "bw.json"
    code = bench.main(["--log2n", "12", "--reps", "2", "--warmup", "1", "--no-warp", "--json", str(out)])
    text = capsys.readouterr().out
    data = json.loads(out.read_text())
    assert data["verikern"]["correct"], text
    assert data["verikern"]["expected"] == 2.0 + 3.0 * 5       # 1 + 2 * 2 launches of y += 3 * 1
    n = 2 ** 12
    assert data["verikern"]["bytes_per_s"] == pytest.approx(12 * n / 0.5e-3)
    assert data["copy"]["bytes_per_s"] == pytest.approx(8 * n / 0.5e-3)
    assert data["verikern_over_copy"] == pytest.approx(1.5)
    assert code == 0 and "verikern / copy" in text and "Fake GPU" in text
    assert len(fd.launches) == 5 and fd.memory == {}


def _small_launch():
    from verikern.runtime import LaunchConfig

    return LaunchConfig((8,), 8, 1, 8), {"x": np.ones(8, np.float32), "y": np.zeros(8, np.float32)}


def test_endless_kernel_times_out_instead_of_hanging(fake, monkeypatch):
    from verikern.errors import KernelRuntimeError

    fd = fake(saxpy())
    fd.busy_polls = None                      # the GPU never finishes
    monkeypatch.setenv("VERIKERN_CUDA_TIMEOUT_S", "0.05")
    cfg, arrays = _small_launch()
    with pytest.raises(KernelRuntimeError, match="did not finish within 0.05 s"):
        runner.run(fd.kernels["saxpy"], cfg, arrays, {"a": 1.0})
    assert fd.memory == {}


@pytest.mark.parametrize("status,cls,text", [
    ("CUDA_ERROR_ILLEGAL_ADDRESS", "KernelRuntimeError", "faulted on the GPU (CUDA_ERROR_ILLEGAL_ADDRESS)"),
    ("CUDA_ERROR_ASSERT", "KernelAssertionError", "an assert failed in kernel saxpy"),
])
def test_kernel_fault_reported_by_the_driver(fake, status, cls, text):
    import verikern.errors as errors

    fd = fake(saxpy())
    fd.sync_status = getattr(CUresult, status)
    cfg, arrays = _small_launch()
    with pytest.raises(getattr(errors, cls), match=re.escape(text)):
        runner.run(fd.kernels["saxpy"], cfg, arrays, {"a": 1.0})
    assert fd.memory == {}
