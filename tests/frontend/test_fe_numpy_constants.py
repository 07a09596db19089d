"""numpy's and math's float constants in kernel code (scan/std_constants.py):
`np.pi` and `np.nan` are untyped float literals, as `wp.pi` and `wp.nan`
are, on the simulator and cpu:native, checked by hand against numpy
(tests/warp_compat/test_warp_numpy_constants.py runs the same file under real
Warp); a name that is not a module keeps its error."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import verikern as vk
from verikern.frontend import compile_file, compile_source

KERNELS = Path(__file__).resolve().parents[1] / "warp_compat" / "kernels_numpy_constants.py"
X = np.array([0.5, -1.25, 3.0, 0.0], np.float32)
R = np.array([1.0, 0.5, 2.0, 0.0], np.float64)


def by_hand() -> tuple[np.ndarray, np.ndarray]:
    f32 = np.float32
    out = np.stack([X * f32(np.pi), f32(np.e) + X, np.where(X > 0, f32(np.nan), X), np.minimum(X, np.inf),
                    X / f32(np.pi * 2), np.full(len(X), 3, np.float32)], axis=1).astype(np.float32)
    return out, np.float64(np.pi) * R * R


def on_verikern(device: str) -> tuple[np.ndarray, np.ndarray]:
    (kernel,) = compile_file(KERNELS).kernels
    assert kernel.error is None, kernel.error
    out, out64 = np.zeros((len(X), 6), np.float32), np.zeros(len(X), np.float64)
    vk.launch(kernel.mir, len(X), [X, R, out, out64], device=device)
    return out, out64


@pytest.mark.parametrize("device", ["cpu", "cpu:native"])
def test_numpy_constants_read_as_their_float_values(device):
    out, out64 = on_verikern(device)
    want, want64 = by_hand()
    np.testing.assert_allclose(out, want, rtol=1e-6, equal_nan=True)
    assert np.isnan(out[0, 2]) and np.isnan(out[2, 2]) and not np.isnan(out[1, 2])
    np.testing.assert_allclose(out64, want64, rtol=1e-12)


@pytest.mark.parametrize("head,read", [
    ("np = 3\n", "np.pi"),                       # np is not the numpy module
    ("import numpy as np\n", "np.nanx"),         # not one of numpy's constants
    ("import numpy as np\n", "np.float32"),      # a type, not a float constant
])
def test_other_attributes_keep_their_error(head, read):
    src = head + "import warp as wp\n\n\n@wp.kernel\ndef k(out: wp.array(dtype=float)):\n" \
        f"    out[0] = float({read})\n"
    assert compile_source(src, "t.py").kernels[0].error is not None
