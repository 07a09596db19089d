"""A float literal compared with a float64 value means what it means in Warp:
Warp types the literal float32 and C++ widens it, so `x < 0.1` compares
against (double)0.1f = 0.10000000149011612, not 0.1; so do arithmetic on
literals, a module-level float constant and `wp.constant(0.1)`, while
`wp.float64(0.1)` and `wp.constant(wp.float64(0.1))` are exact. The kernels of
tests/warp_compat/kernels_float_literals.py run on verikern's simulator and
cpu:native on values on either side of both readings, against a table by
hand; tests/warp_compat/test_warp_float_literals.py runs them under
warp-lang too. A float comparison is an opaque boolean to the prover
(encoders/smt/encoder.py `_enc_compare`), but a comparison of constants is
folded before the prover sees it: with the exact 0.1, `wp.float64(0.1) < 0.1`
folded to false and an out-of-bounds store under it was never checked (the
last test)."""
from __future__ import annotations

import numpy as np
import pytest

import verikern as vk
from verikern.frontend import compile_file
from shared_helpers import ROOT

KERNELS = ROOT / "tests" / "warp_compat" / "kernels_float_literals.py"
TENTH32 = float(np.float32(0.1))
THIRD32 = float(np.float32(1.0) / np.float32(3.0))
#: each literal's two readings, exact and through float32, and values between
X = np.array([0.1, TENTH32, 0.1000000001, np.nextafter(TENTH32, 1.0), np.nextafter(0.1, 0.0),
              -0.1, -TENTH32, -0.1000000001, 1.0 / 3.0, THIRD32, 0.0, 1.0], np.float64)
COLUMNS = 11


def by_hand() -> np.ndarray:
    """Warp's readings, column by column: every literal and float constant
    through float32 but `wp.float64(0.1)` (6) and `CONST_TENTH64` (10)."""
    return np.array([[v < TENTH32, v == TENTH32, TENTH32 >= v, v > -TENTH32, v != THIRD32,
                      np.float32(v) < np.float32(0.1), v < 0.1, v <= TENTH32,
                      v < TENTH32, v < TENTH32, v < 0.1] for v in X], np.int32)


def on_verikern(device: str) -> np.ndarray:
    (kernel,) = compile_file(KERNELS).kernels
    assert kernel.error is None, kernel.error
    out = np.zeros((len(X), COLUMNS), np.int32)
    vk.launch(kernel.mir, len(X), [X, X.astype(np.float32), out], device=device)
    return out


@pytest.mark.parametrize("device", ["cpu", "cpu:native"])
def test_float_literals_compare_with_float64_through_float32(device):
    out = on_verikern(device)
    assert list(out[:2, 0]) == [1, 0]          # 0.1 < 0.1f; 0.1f < 0.1f is false
    assert list(out[:2, 1]) == [0, 1]          # only 0.1f == 0.1f
    np.testing.assert_array_equal(out, by_hand())


FOLDED = """\
import warp as wp
import verikern as vk


@vk.requires(lambda a: a.shape[0] == 4)
@wp.kernel
def flit(a: wp.array(dtype=int)):
    x = wp.float64(0.1)
    if x < 0.1:
        a[100] = 1
    y = wp.float64(0.10000000149011612)
    if y > 0.1:
        a[200] = 1
"""


def test_a_folded_comparison_of_constants_keeps_warps_reading_in_the_proof(tmp_path):
    """warp-lang 1.19 on the CPU takes the first branch (0.1 < (double)0.1f)
    and not the second: the proof fails the store at line 10 (out of bounds,
    and every thread writes it), and nothing at line 13."""
    from verikern.app.prove import prove_file   # lazy: z3, only this test proves

    src = tmp_path / "flit.py"
    src.write_text(FOLDED)
    (report,) = prove_file(str(src))
    failed = sorted((o.kind.value, o.loc.line) for o in report.obligations if o.status.value == "failed")
    assert failed == [("bounds", 10), ("race", 10)]
    assert report.status.value == "failed"
