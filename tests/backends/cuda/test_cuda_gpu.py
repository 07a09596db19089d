"""On a real NVIDIA GPU (marked `gpu`; skipped with the reason elsewhere):
every example and every corpus kernel that the prover accepts runs on cuda:0
and agrees with the simulator within docs/LANGUAGE.md section 6's tolerance."""
import copy
import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

from verikern.backends.cuda import cuda_available

from shared_helpers import ROOT

pytestmark = pytest.mark.gpu
AVAILABLE, REASON = cuda_available(0)
requires_gpu = pytest.mark.skipif(not AVAILABLE, reason=REASON or "no CUDA device")

EXAMPLES = sorted((ROOT / "examples").glob("*.py"))
# docs/LANGUAGE.md section 6: 1e-6 relative or 4 ULP for + - * / sqrt (fast_math off).
RTOL, ULPS = 1e-6, 4
# fast_math on (div.approx, sqrt.approx, flushed denormals): the tolerance this
# suite uses, stated in every failure message.
FAST_RTOL, FAST_ULPS = 1e-5, 64
# `n` for each example's make_inputs (rows for 2-D examples): small enough
# for the simulator, big enough for several blocks and a partial one.
GPU_TEST_N = 200
# Launch shapes tried, in order, for corpus kernels without `--dim` (each a
# multiple of 256 threads, so barrier kernels may use any block_dim tried).
DEFAULT_DIMS = {1: [(1024,), (4096,)],
                2: [(32, 48), (4, 1024), (2, 4096), (64, 64)],
                3: [(8, 8, 16), (4, 4, 256)],
                4: [(4, 4, 4, 16), (2, 2, 2, 256)]}


def ulp_distance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """|a - b| in units in the last place of their float type (0 for equal NaNs)."""
    ints = {2: np.int16, 4: np.int32, 8: np.int64}[a.dtype.itemsize]
    ia, ib = a.view(ints).astype(np.int64), b.view(ints).astype(np.int64)
    # map sign-magnitude to a monotonic integer line
    ia = np.where(ia < 0, np.iinfo(ints).min - ia, ia)
    ib = np.where(ib < 0, np.iinfo(ints).min - ib, ib)
    dist = np.abs(ia - ib)
    return np.where(np.isnan(a) & np.isnan(b), 0, dist)


def assert_agree(name: str, gpu: np.ndarray, cpu: np.ndarray, fast_math: bool,
                 atol: float = 0.0) -> None:
    """Equal ints; floats within the tolerance above (or `atol`, for sums whose
    order the GPU chooses: float atomics)."""
    assert gpu.shape == cpu.shape and gpu.dtype == cpu.dtype, name
    if gpu.dtype.kind != "f":
        np.testing.assert_array_equal(gpu, cpu, err_msg=f"{name}: integer results differ")
        return
    rtol, ulps = (FAST_RTOL, FAST_ULPS) if fast_math else (RTOL, ULPS)
    close = np.isclose(gpu, cpu, rtol=rtol, atol=atol, equal_nan=True) | (ulp_distance(gpu, cpu) <= ulps)
    if not close.all():
        bad = np.argwhere(~close)[:5]
        detail = ", ".join(f"{tuple(i)}: gpu {gpu[tuple(i)]!r} cpu {cpu[tuple(i)]!r}" for i in bad)
        pytest.fail(f"{name}: {int((~close).sum())} elements differ beyond rtol {rtol} / {ulps} ULP / atol {atol} "
                    f"(fast_math={fast_math}): {detail}")


def load_example(path: Path):
    spec = importlib.util.spec_from_file_location(f"vk_example_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def outputs_of(result, inputs) -> dict:
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
    inputs = module.make_inputs(rng, GPU_TEST_N)
    cpu_inputs, gpu_inputs = copy.deepcopy(inputs), copy.deepcopy(inputs)
    cpu = outputs_of(module.run(cpu_inputs, device="cpu"), cpu_inputs)
    gpu = outputs_of(module.run(gpu_inputs, device="cuda:0"), gpu_inputs)
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


def corpus_case_agrees(case) -> None:
    """Run a corpus kernel on generated inputs on the simulator and on cuda:0; compare."""
    from verikern.backends.cuda import run as cuda_run
    from verikern.backends.simulator import run as sim_run
    from corpus_loader import corpus_kernel, generated_input_sizes
    from verikern.inputs import make_inputs, ordered_inputs
    from verikern.runtime import prepare_launch

    from verikern.errors import VerikernError

    kernel = corpus_kernel(case).mir
    fixed_block = case.option("--block-dim") or kernel.block_dim
    blocks = [int(fixed_block)] if fixed_block else [256, 128, 64]
    dim_text = case.option("--dim")
    shapes = [tuple(int(d) for d in dim_text.replace("x", ",").split(","))] if dim_text \
        else DEFAULT_DIMS[kernel.launch_ndim]
    problems = []
    for block in blocks:  # the first launch shape the kernel's requires admit
        for dims in shapes:
            try:
                values = make_inputs(kernel, dims, block, np.random.default_rng(7),
                                     sizes=generated_input_sizes(case.name, dims[0]))
                k, cfg, arrays, scalars = prepare_launch(
                    kernel, dims if len(dims) > 1 else dims[0], ordered_inputs(kernel, values), block)
                break
            except VerikernError as exc:
                problems.append(f"dims {dims} block {block}: {str(exc).splitlines()[0]}")
        else:
            continue
        break
    else:
        pytest.fail(f"{case.name}: no candidate launch is admitted:\n" + "\n".join(problems))
    cpu = {n: a.copy() for n, a in arrays.items()}
    gpu = {n: a.copy() for n, a in arrays.items()}
    atol = atomic_sum_tolerance(k, cfg, arrays)
    sim_run(k, cfg, cpu, scalars)
    cuda_run(k, cfg, gpu, scalars, device=0)
    for name in cpu:
        assert_agree(f"{case.name}.{name}", gpu[name], cpu[name], k.fast_math, atol.get(name, 0.0))


def atomic_sum_tolerance(kernel, cfg, arrays) -> dict:
    """For arrays accumulated by float atomic add/sub, whose summation order
    differs between the GPU and the simulator: two orders of summing n terms
    differ by at most 2 (n - 1) u sum|x_i|; sum|x_i| is bounded here by the
    absolute sum of every float input (an over-estimate, never an under-one)."""
    from verikern.mir.nodes import Atomic

    names = {i.array.name for _, i in kernel.instructions()
             if isinstance(i, Atomic) and i.array.dtype.is_float and i.op in ("add", "sub")}
    if not names:
        return {}
    total = sum(float(np.abs(a.astype(np.float64)).sum()) for a in arrays.values() if a.dtype.kind == "f")
    return {n: 2.0 * cfg.size * float(np.finfo(arrays[n].dtype).eps) * total for n in names}


@requires_gpu
@pytest.mark.parametrize("case", _corpus_cases(), ids=lambda c: c.name)
def test_proved_corpus_kernel_on_gpu_matches_simulator(case):
    corpus_case_agrees(case)


def test_ulp_distance_reference():
    """The comparison itself (runs everywhere): neighbours are 1 ULP apart."""
    a = np.array([1.0, -1.0, 0.0, np.nan], dtype=np.float32)
    b = np.nextafter(a, np.float32(np.inf)).astype(np.float32)
    b[3] = np.nan
    assert ulp_distance(a, b).tolist() == [1, 1, 1, 0]
    assert ulp_distance(np.array([-0.0], np.float32), np.array([0.0], np.float32)).tolist() == [0]
