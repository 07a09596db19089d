"""The corpus files written with `import warp as wp` are real Warp modules:
Warp itself (on its CPU device) and the verikern simulator compute the same
results for the correct ones."""
from __future__ import annotations

import importlib.util

import numpy as np
import pytest

import verikern as vk
from corpus_loader import CORPUS_DIR, corpus_kernel, parse_header

wp = pytest.importorskip("warp", reason="NVIDIA Warp is not installed (pip install warp-lang)")


def warp_kernel(name):
    spec = importlib.util.spec_from_file_location(f"verikern_warp_{name}", CORPUS_DIR / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    kernels = [v for v in vars(module).values() if isinstance(v, wp.Kernel)]
    assert len(kernels) == 1
    return kernels[0]


def verikern_kernel(name):
    return corpus_kernel(parse_header(CORPUS_DIR / f"{name}.py")).mir


# name -> (dim, inputs factory: list of numpy arrays / scalars, index of the output)
CASES = {
    "ok_warp_saxpy_guarded": (37, lambda rng: [rng.standard_normal(37).astype(np.float32),
                                               rng.standard_normal(37).astype(np.float32), 1.5], 1),
    "ok_warp_func_clamp": (50, lambda rng: [rng.uniform(-2, 2, 50).astype(np.float32)], 0),
    # halo(1) is the int overload in both (2 cells), not the float one declared first
    "ok_warp_overload_literal_picks_int": (40, lambda rng: [rng.standard_normal(40).astype(np.float32),
                                                            np.zeros(40, np.float32)], 1),
    # Warp builds the int8 instance at this launch; verikern runs the `# kernel:` one, int8 too
    "ok_generic_every_instance_guarded": (48, lambda rng: [rng.integers(-128, 128, 48).astype(np.int8),
                                                           rng.standard_normal(100).astype(np.float32),
                                                           np.zeros(48, np.float32)], 2),
    "ok_module_constant_read_by_host": (40, lambda rng: [rng.standard_normal(40).astype(np.float32),
                                                         np.zeros(40, np.float32)], 1),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(CASES))
def test_warp_and_verikern_agree(name):
    wp.config.quiet = True
    wp.init()
    dim, make, out_index = CASES[name]
    values = make(np.random.default_rng(4))
    ours = [v.copy() if isinstance(v, np.ndarray) else v for v in values]
    vk.launch(verikern_kernel(name), dim, inputs=ours, block_dim=32, device="cpu")
    theirs = [wp.array(v, device="cpu") if isinstance(v, np.ndarray) else v for v in values]
    wp.launch(warp_kernel(name), dim=dim, inputs=theirs, device="cpu")
    np.testing.assert_allclose(ours[out_index], theirs[out_index].numpy(), rtol=1e-6, atol=1e-6)
    assert not np.array_equal(ours[out_index], values[out_index]), "the kernel changed nothing"
