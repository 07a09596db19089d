"""Configuration choices (verikern/frontend/scan/configuration.py): a corpus
kernel whose element type `scalar_t` is chosen from an environment variable
when the module is imported, and whose lanes per row a module-level
`if scalar_t == wp.float16:` picks. Real Warp imports the module under each
setting of the variable (unset: float32, "double": float64, "half":
float16); verikern's simulator runs the instance of that configuration,
`axpy_rows{scalar_t=...}`, on the same inputs: the same results, half
precision updating 8 columns and the others 4."""
from __future__ import annotations

import importlib.util

import numpy as np
import pytest

import verikern as vk
from corpus_loader import CORPUS_DIR
from verikern.frontend import compile_file

CASE = CORPUS_DIR / "ok_config_precision_choice_axpy_rows.py"
#: the environment variable's value -> (the configuration's type, numpy dtype, columns updated)
SETTINGS = {None: ("float32", np.float32, 4), "double": ("float64", np.float64, 4),
            "half": ("float16", np.float16, 8)}


def _warp_kernel(wp, setting, monkeypatch, tag):
    if setting is None:
        monkeypatch.delenv("CORPUS_PRECISION", raising=False)
    else:
        monkeypatch.setenv("CORPUS_PRECISION", setting)
    spec = importlib.util.spec_from_file_location(f"verikern_config_{tag}", CASE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)       # Warp reads the variable here, as warpsphcore's type_config does
    return module.axpy_rows, module.scalar_t


@pytest.mark.parametrize("setting", list(SETTINGS), ids=lambda s: s or "default")
def test_each_configuration_matches_warp(warp_cpu, monkeypatch, setting):
    wp = warp_cpu
    label, dtype, columns = SETTINGS[setting]
    kernel, scalar_t = _warp_kernel(wp, setting, monkeypatch, label)
    assert scalar_t is getattr(wp, label)
    rng = np.random.default_rng(7)
    x = rng.uniform(-2, 2, (5, 8)).astype(dtype)
    y = rng.uniform(-2, 2, (5, 8)).astype(dtype)
    a = 1.5
    w_y = wp.array(y, dtype=scalar_t, device="cpu")
    wp.launch(kernel, dim=(5, 8), inputs=[wp.array(x, dtype=scalar_t, device="cpu"), w_y, a], device="cpu")
    ours = y.copy()
    module = compile_file(CASE)
    assert [k.name for k in module.kernels] == [
        "axpy_rows{scalar_t=float32}", "axpy_rows{scalar_t=float16}", "axpy_rows{scalar_t=float64}"]
    vk.launch(module.kernel(f"axpy_rows{{scalar_t={label}}}").mir, (5, 8), inputs=[x.copy(), ours, a],
              block_dim=8, device="cpu")
    np.testing.assert_array_equal(ours, w_y.numpy())
    expected = y.copy()
    expected[:, :columns] = (dtype(a) * x[:, :columns] + y[:, :columns]).astype(dtype)
    np.testing.assert_allclose(ours.astype(np.float64), expected.astype(np.float64), rtol=2e-3)
    assert np.array_equal(ours[:, columns:], y[:, columns:]), "the lanes past LANES are untouched"
