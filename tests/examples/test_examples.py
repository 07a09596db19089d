"""Every example in examples/ against its independent numpy reference, on the
CPU simulator: random inputs, sizes that leave a partial last block, and
several block sizes (for the kernels whose block size is not fixed)."""
from __future__ import annotations

import contextlib
import importlib.util
import io
import re
import runpy

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verikern.errors import LaunchError
from verikern.frontend import compile_file

from shared_helpers import EXAMPLES_DIR
EXAMPLE_NAMES = ["saxpy", "ray_triangle", "block_reduce", "scan", "histogram", "transpose",
                 "matmul", "bitonic_sort", "conv2d", "transform"]
# examples whose reference depends on the block size (per-block results)
PER_BLOCK = {"block_reduce", "scan", "bitonic_sort"}
# examples whose kernels fix block_dim with @vk.kernel(block_dim=...)
FIXED_BLOCK = {"transpose": 256, "matmul": 256}
BLOCK_SIZES = [32, 64, 256]
# n values: 1 element, sizes that are not multiples of any block size, a full block
SIZES_1D = [1, 37, 300, 256]
SIZES_2D = [1, 23, 45]


def load_example(name: str):
    spec = importlib.util.spec_from_file_location(f"verikern_example_{name}",
                                                  EXAMPLES_DIR / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def examples():
    return {name: load_example(name) for name in EXAMPLE_NAMES}


def assert_matches(got: dict, want: dict, context: str) -> None:
    """Floats within 1e-5 relative (to the element or to the output's overall
    magnitude, so results near zero after cancellation are judged fairly);
    integers exactly."""
    assert set(got) == set(want), context
    for key, expected in want.items():
        actual = got[key]
        assert actual.shape == np.shape(expected), f"{context}: {key} shape"
        if np.issubdtype(actual.dtype, np.integer):
            np.testing.assert_array_equal(actual, expected, err_msg=f"{context}: {key}")
        else:
            scale = max(1.0, float(np.max(np.abs(expected)))) if np.size(expected) else 1.0
            np.testing.assert_allclose(actual, expected, rtol=1e-5, atol=1e-5 * scale,
                                       err_msg=f"{context}: {key}")


def check(module, name, n, block_dim, seed):
    inputs = module.make_inputs(np.random.default_rng(seed), n)
    got = module.run(inputs, device="cpu", block_dim=block_dim)
    want = module.reference(inputs, block_dim=block_dim) if name in PER_BLOCK \
        else module.reference(inputs)
    assert_matches(got, want, f"{name} n={n} block_dim={block_dim}")


def test_example_list_is_complete():
    on_disk = {p.stem for p in EXAMPLES_DIR.glob("*.py")}
    assert on_disk == set(EXAMPLE_NAMES)


@pytest.mark.parametrize("name", EXAMPLE_NAMES)
def test_example_compiles_and_has_host_api(name, examples):
    result = compile_file(EXAMPLES_DIR / f"{name}.py")
    assert not result.errors, [e.render() for e in result.errors]
    assert result.kernels, f"{name} defines no kernel"
    for k in result.kernels:
        assert k.error is None, k.error.render()
        assert k.mir is not None
    module = examples[name]
    for fn in ("make_inputs", "reference", "run"):
        assert callable(getattr(module, fn, None)), f"{name}.{fn} missing"


@pytest.mark.parametrize("block_dim", BLOCK_SIZES)
@pytest.mark.parametrize("n", SIZES_1D)
@pytest.mark.parametrize("name", ["saxpy", "ray_triangle", "block_reduce", "scan", "histogram",
                                  "bitonic_sort", "transform"])
def test_1d_example_matches_numpy(name, n, block_dim, examples):
    check(examples[name], name, n, block_dim, seed=1000 * n + block_dim)


@pytest.mark.parametrize("block_dim", BLOCK_SIZES)
@pytest.mark.parametrize("n", SIZES_2D)
def test_conv2d_matches_numpy(n, block_dim, examples):
    check(examples["conv2d"], "conv2d", n, block_dim, seed=n)


@pytest.mark.parametrize("n", SIZES_2D + [70])
@pytest.mark.parametrize("name", sorted(FIXED_BLOCK))
def test_fixed_block_example_matches_numpy(name, n, examples):
    check(examples[name], name, n, FIXED_BLOCK[name], seed=n)


@pytest.mark.parametrize("name", sorted(FIXED_BLOCK))
def test_fixed_block_example_refuses_other_block_sizes(name, examples):
    module = examples[name]
    inputs = module.make_inputs(np.random.default_rng(0), 8)
    with pytest.raises(LaunchError, match="block_dim"):
        module.run(inputs, block_dim=128)


def test_block_kernels_refuse_partial_last_block(examples):
    module = examples["block_reduce"]
    x = np.ones(100, dtype=np.float32)
    partial = np.zeros(2, dtype=np.float32)
    with pytest.raises(LaunchError, match="multiple of block_dim"):
        import verikern as vk
        vk.launch(module.block_sum, 100, inputs=[x, partial], block_dim=64)


def test_histogram_contract_rejects_out_of_range_keys(examples):
    module = examples["histogram"]
    inputs = {"keys": np.array([0, 5, module.NBINS], dtype=np.int32)}
    with pytest.raises(LaunchError):
        module.run(inputs, block_dim=32)


def test_ray_triangle_inputs_cover_hits_and_misses(examples):
    module = examples["ray_triangle"]
    want = module.reference(module.make_inputs(np.random.default_rng(3), 90))["t_hit"]
    assert 20 <= np.sum(want > 0) <= 40 and np.sum(want == -1.0) >= 50


def test_bitonic_sort_output_is_sorted_per_block(examples):
    module = examples["bitonic_sort"]
    inputs = module.make_inputs(np.random.default_rng(5), 200)
    keys = module.run(inputs, block_dim=64)["keys"]
    for start in range(0, 200, 64):
        chunk = keys[start:start + 64]
        assert np.all(chunk[:-1] <= chunk[1:])
        assert sorted(chunk.tolist()) == sorted(inputs["keys"][start:start + 64].tolist())


@settings(max_examples=15, deadline=None)
@given(n=st.integers(1, 700), block_dim=st.integers(1, 1024), a=st.floats(-4, 4, width=32))
def test_saxpy_any_launch_shape(n, block_dim, a):
    module = load_example("saxpy")
    inputs = module.make_inputs(np.random.default_rng(n), n)
    inputs["a"] = np.float32(a)
    assert_matches(module.run(inputs, block_dim=block_dim), module.reference(inputs),
                   f"saxpy n={n} block_dim={block_dim} a={a}")


@pytest.mark.parametrize("name", EXAMPLE_NAMES)
def test_demo_runs(name):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        runpy.run_path(str(EXAMPLES_DIR / f"{name}.py"), run_name="__main__")
    text = out.getvalue()
    assert name.split("_")[0] in text, text
    reported = [float(v) for v in re.findall(r"(?:error|mismatches): (\S+)", text)]
    assert reported, text
    assert all(v < 1e-3 for v in reported), text
