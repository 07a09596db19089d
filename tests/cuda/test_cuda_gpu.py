"""On a real NVIDIA GPU (marked `gpu`; skipped with the reason elsewhere):
every example and every corpus kernel that the prover accepts runs on cuda:0
and agrees with the simulator within LANGUAGE.md section 6's tolerance."""
import copy
import importlib.util
from pathlib import Path

import numpy as np
import pytest

from verikern.backends.cuda import cuda_available

pytestmark = pytest.mark.gpu
AVAILABLE, REASON = cuda_available(0)
requires_gpu = pytest.mark.skipif(not AVAILABLE, reason=REASON or "no CUDA device")

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "examples").glob("*.py"))
# LANGUAGE.md section 6: 1e-6 relative or 4 ULP for + - * / sqrt (fast_math off).
RTOL, ULPS = 1e-6, 4
# fast_math on (div.approx, sqrt.approx, flushed denormals): the tolerance this
# suite uses, stated in every failure message.
FAST_RTOL, FAST_ULPS = 1e-5, 64
# Launch shapes for corpus kernels without `--dim` (multiples of 256 threads).
DEFAULT_DIMS = {1: (1024,), 2: (32, 48), 3: (8, 8, 16), 4: (4, 4, 4, 16)}


def ulp_distance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """|a - b| in units in the last place of their float type (0 for equal NaNs)."""
    ints = {2: np.int16, 4: np.int32, 8: np.int64}[a.dtype.itemsize]
    ia, ib = a.view(ints).astype(np.int64), b.view(ints).astype(np.int64)
    # map sign-magnitude to a monotonic integer line
    ia = np.where(ia < 0, np.iinfo(ints).min - ia, ia)
    ib = np.where(ib < 0, np.iinfo(ints).min - ib, ib)
    dist = np.abs(ia - ib)
    return np.where(np.isnan(a) & np.isnan(b), 0, dist)


def assert_agree(name: str, gpu: np.ndarray, cpu: np.ndarray, fast_math: bool) -> None:
    assert gpu.shape == cpu.shape and gpu.dtype == cpu.dtype, name
    if gpu.dtype.kind != "f":
        np.testing.assert_array_equal(gpu, cpu, err_msg=f"{name}: integer results differ")
        return
    rtol, ulps = (FAST_RTOL, FAST_ULPS) if fast_math else (RTOL, ULPS)
    close = np.isclose(gpu, cpu, rtol=rtol, atol=0.0, equal_nan=True) | (ulp_distance(gpu, cpu) <= ulps)
    if not close.all():
        bad = np.argwhere(~close)[:5]
        detail = ", ".join(f"{tuple(i)}: gpu {gpu[tuple(i)]!r} cpu {cpu[tuple(i)]!r}" for i in bad)
        pytest.fail(f"{name}: {int((~close).sum())} elements differ beyond rtol {rtol} / {ulps} ULP "
                    f"(fast_math={fast_math}): {detail}")


def load_example(path: Path):
    spec = importlib.util.spec_from_file_location(f"vk_example_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _outputs(result, inputs) -> dict:
    data = result if isinstance(result, dict) else inputs
    return {k: v for k, v in data.items() if isinstance(v, np.ndarray)}


def _uses_fast_math(module) -> bool:
    for value in vars(module).values():
        kernel = getattr(value, "mir", None) if hasattr(value, "source_file") else None
        if kernel is not None and getattr(kernel, "fast_math", False):
            return True
    return False


@requires_gpu
@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_example_on_gpu_matches_simulator(path):
    module = load_example(path)
    rng = np.random.default_rng(2024)
    inputs = module.make_inputs(rng, 4096)
    cpu_inputs, gpu_inputs = copy.deepcopy(inputs), copy.deepcopy(inputs)
    cpu = _outputs(module.run(cpu_inputs, device="cpu"), cpu_inputs)
    gpu = _outputs(module.run(gpu_inputs, device="cuda:0"), gpu_inputs)
    assert set(gpu) == set(cpu)
    fast = _uses_fast_math(module)
    for name in sorted(cpu):
        assert_agree(f"{path.stem}.{name}", gpu[name], cpu[name], fast)
    if hasattr(module, "reference"):
        expected = module.reference(copy.deepcopy(inputs))
        for name, want in expected.items():
            if name in gpu and np.asarray(want).dtype.kind != "f":
                np.testing.assert_array_equal(gpu[name], want, err_msg=f"{path.stem}.{name} vs reference")


def _corpus_cases():
    from corpus_loader import load_corpus

    return [c for c in load_corpus() if c.expect_status == "proved"]


@requires_gpu
@pytest.mark.parametrize("case", _corpus_cases(), ids=lambda c: c.name)
def test_proved_corpus_kernel_on_gpu_matches_simulator(case):
    from verikern.backends.cuda import run as cuda_run
    from verikern.backends.simulator import run as sim_run
    from verikern.frontend import compile_file
    from verikern.inputs import make_inputs, ordered_inputs
    from verikern.runtime import prepare_launch

    kernel = compile_file(case.path).kernels[0].mir
    block = int(case.option("--block-dim") or kernel.block_dim or 256)
    dim_text = case.option("--dim")
    dims = tuple(int(d) for d in dim_text.replace("x", ",").split(",")) if dim_text \
        else DEFAULT_DIMS[kernel.launch_ndim]
    values = make_inputs(kernel, dims, block, np.random.default_rng(7))
    k, cfg, arrays, scalars = prepare_launch(kernel, dims if len(dims) > 1 else dims[0],
                                             ordered_inputs(kernel, values), block)
    cpu = {n: a.copy() for n, a in arrays.items()}
    gpu = {n: a.copy() for n, a in arrays.items()}
    sim_run(k, cfg, cpu, scalars)
    cuda_run(k, cfg, gpu, scalars, device=0)
    for name in cpu:
        assert_agree(f"{case.name}.{name}", gpu[name], cpu[name], k.fast_math)


def test_ulp_distance_reference():
    """The comparison itself (runs everywhere): neighbours are 1 ULP apart."""
    a = np.array([1.0, -1.0, 0.0, np.nan], dtype=np.float32)
    b = np.nextafter(a, np.float32(np.inf)).astype(np.float32)
    b[3] = np.nan
    assert ulp_distance(a, b).tolist() == [1, 1, 1, 0]
    assert ulp_distance(np.array([-0.0], np.float32), np.array([0.0], np.float32)).tolist() == [0]
