"""The README's Warp demo (docs/examples/warp_saxpy_contract.py) runs under
real Warp on its CPU device with its suggested `@vk.requires` decorator:
the results match numpy, and `vk.check_launch` accepts the launch Warp code
makes and refuses one the contract rules out."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

import verikern as vk
from verikern.errors import ContractError
from warp_kernel_cache import init_warp_quietly

wp = pytest.importorskip("warp", reason="NVIDIA Warp is not installed (pip install warp-lang)")

DEMO = Path(__file__).resolve().parents[3] / "docs" / "examples" / "warp_saxpy_contract.py"


def test_the_demo_runs_under_warp_with_its_contract():
    init_warp_quietly(wp)
    spec = importlib.util.spec_from_file_location("verikern_readme_warp_demo", DEMO)
    demo = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(demo)
    n, a = 300, 1.5
    x_np = np.linspace(-2.0, 2.0, n).astype(np.float32)
    y_np = np.arange(n, dtype=np.float32)
    x = wp.array(x_np, dtype=float, device="cpu")
    y = wp.array(y_np, dtype=float, device="cpu")
    vk.check_launch(demo.saxpy, n, [x, y, a])
    wp.launch(demo.saxpy, dim=n, inputs=[x, y, a], device="cpu")
    wp.synchronize_device("cpu")
    np.testing.assert_allclose(y.numpy(), np.float32(a) * x_np + y_np, rtol=1e-6, atol=1e-6)
    with pytest.raises(ContractError):        # a launch larger than the arrays
        vk.check_launch(demo.saxpy, n + 1, [x, y, a])
