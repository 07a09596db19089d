"""`vk.requires` conditions keep Python's short-circuit meaning although they
are evaluated without branches: a division in an operand Python would skip
divides by 1 instead (the launch check, the simulator and the prover agree)."""
from __future__ import annotations

import numpy as np
import pytest

from frontend.fe_util import HEADER, compile_ok

from verikern.errors import ContractError, DivisionOverflowError
from verikern.proofs import prove_kernel
from verikern.runtime import launch

KERNEL = HEADER + """
@vk.kernel
def k(x: vk.array(dtype=vk.int32), n: vk.int32, d: vk.int32):
    vk.requires(COND)
    i = vk.tid()
    if i < x.shape[0]:
        x[i] = n
"""


def _kernel(cond: str):
    return compile_ok(KERNEL.replace("COND", cond))


# (the guards keep d positive: `d != 0` alone leaves INT_MIN // -1, which faults)
@pytest.mark.parametrize("cond", [
    "d <= 0 or n // d > 2",
    "d > 0 and n % d == 1",
    "n // d > 2 if d > 0 else n > 0",
    "0 < d < n // d",
])
def test_guarded_division_in_requires_is_proved_and_never_faults(cond):
    k = _kernel(cond)
    assert all(o.status.value == "proved" for o in prove_kernel(k)), \
        [o.message for o in prove_kernel(k) if o.status.value != "proved"]
    ref = eval(cond, {}, {"n": 7, "d": 0})    # Python's own answer
    x = np.zeros(2, np.int32)
    if ref:
        launch(k, 2, [x, 7, 0], block_dim=2)
        assert x.tolist() == [7, 7]
    else:
        with pytest.raises(ContractError):
            launch(k, 2, [x, 7, 0], block_dim=2)


def test_unguarded_division_in_requires_still_fails():
    """`d != 0 or ...` evaluates n // d exactly when d == 0: a real division
    by zero, which the prover reports and the launch check raises."""
    k = _kernel("d != 0 or n // d > 2")
    bad = [o for o in prove_kernel(k) if o.kind.value == "div-zero"]
    assert bad and bad[0].status.value == "failed"
    from verikern.errors import DivisionByZeroError
    with pytest.raises(DivisionByZeroError):
        launch(k, 2, [np.zeros(2, np.int32), 7, 0], block_dim=2)


def test_a_zero_guard_leaves_int_min_by_minus_one_which_faults():
    """`d == 0 or n // d > 2` never divides by zero, but n = INT_MIN, d = -1
    divides INT_MIN by -1 in int32: the prover fails it with that launch and
    the launch check raises, as it does for a zero divisor."""
    k = _kernel("d == 0 or n // d > 2")
    bad = [o for o in prove_kernel(k) if o.kind.value == "div-zero"]
    assert bad and bad[0].status.value == "failed" and "INT_MIN // -1" in bad[0].message
    assert bad[0].counterexample.scalars == {"n": -2**31, "d": -1}
    with pytest.raises(DivisionOverflowError):
        launch(k, 2, [np.zeros(2, np.int32), -2**31, -1], block_dim=2)


def test_requires_values_match_python():
    k = _kernel("d == 0 or n // d > 2")
    for n, d in [(7, 0), (7, 1), (7, 3), (2, 1), (-7, 2)]:
        x = np.zeros(1, np.int32)
        if d == 0 or n // d > 2:
            launch(k, 1, [x, n, d], block_dim=1)
        else:
            with pytest.raises(ContractError):
                launch(k, 1, [x, n, d], block_dim=1)
