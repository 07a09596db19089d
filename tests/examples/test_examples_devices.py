"""The examples on the other devices: the native CPU backend (LLVM) and, on a
machine with an NVIDIA GPU, cuda:0. Each must match the numpy reference and
agree with the simulator (docs/LANGUAGE.md section 6: devices agree up to float
tolerance; integer results exactly)."""
from __future__ import annotations

import numpy as np
import pytest

from verikern.errors import DeviceUnavailableError


def _load_harness():
    """The example list and comparison helpers of test_examples.py (loaded
    by path: test modules are not importable under --import-mode=importlib)."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).with_name("test_examples.py")
    spec = importlib.util.spec_from_file_location("verikern_examples_harness", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_harness = _load_harness()
EXAMPLE_NAMES, FIXED_BLOCK, PER_BLOCK = _harness.EXAMPLE_NAMES, _harness.FIXED_BLOCK, _harness.PER_BLOCK
assert_matches, load_example = _harness.assert_matches, _harness.load_example


def run_on(module, name, inputs, device, block_dim):
    """Only a missing GPU (or its driver / cuda-python) skips, and only for
    cuda devices; a backend that fails to import is a failure."""
    try:
        return module.run(inputs, device=device, block_dim=block_dim)
    except DeviceUnavailableError as exc:
        if not device.startswith("cuda"):
            raise
        pytest.skip(f"{device} unavailable (needs an NVIDIA GPU and its driver): {exc}")


def differential(name, device, n=45, block_dim=64):
    module = load_example(name)
    block_dim = FIXED_BLOCK.get(name, block_dim)
    inputs = module.make_inputs(np.random.default_rng(n), n)
    got = run_on(module, name, inputs, device, block_dim)
    want = module.reference(inputs, block_dim=block_dim) if name in PER_BLOCK \
        else module.reference(inputs)
    assert_matches(got, want, f"{name} on {device}")
    simulated = module.run(inputs, device="cpu", block_dim=block_dim)
    assert_matches(got, simulated, f"{name}: {device} vs simulator")


@pytest.mark.parametrize("name", EXAMPLE_NAMES)
def test_example_on_native_cpu(name):
    differential(name, "cpu:native")


@pytest.mark.gpu
@pytest.mark.parametrize("name", EXAMPLE_NAMES)
def test_example_on_cuda(name):
    differential(name, "cuda:0", n=300, block_dim=256)
