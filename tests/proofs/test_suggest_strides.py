"""Suggested contracts for a row packed with a literal stride per loop counter:
`contribs[i, s * 12 + beta * 4 + lm]` for `s < grad.shape[1]` (nvalchemi's
`_feat_pg_back_positions_reduce_kernel` packs 36 values per basis function).
The suggestion states the row's length as the stride times the counter's bound,
in int64 (`vk.int64(12) * vk.int64(grad.shape[1]) <= vk.int64(contribs.shape[1])`);
it is re-proved on the pasted source and runs the project's launch on the
simulator against numpy. A column that reaches past its stride gets no proved
contract that admits the launch showing it."""
from __future__ import annotations

import numpy as np
import pytest

import verikern as vk
from verikern.errors import ContractError, OutOfBoundsError

from shared_helpers import ROOT, load_text, pasted_proved_and_loaded, search_of_failed

ROWS = '''import warp as wp


@wp.kernel
def reduce_rows(grad: wp.array3d(dtype=wp.float64), contribs: wp.array2d(dtype=wp.float64),
                out: wp.array2d(dtype=wp.float64)):
    i = wp.tid()
    n_sigma = grad.shape[1]
    for beta in range(3):
        total = wp.float64(0.0)
        for s in range(n_sigma):
            for lm in range(4):
                total += grad[i, s, lm] * contribs[i, s * 12 + beta * 4 + lm]
        out[i, beta] = total
'''

STRIDE = "vk.int64(12) * vk.int64(grad.shape[1]) <= vk.int64(contribs.shape[1])"


def _inputs():
    """Two rows of three basis functions: 36 packed columns."""
    grad = np.arange(24, dtype=np.float64).reshape(2, 3, 4)
    contribs = np.linspace(0.0, 1.0, 72).reshape(2, 36)
    return [grad, contribs, np.zeros((2, 3), dtype=np.float64)]


def test_a_row_of_strides_gets_its_length_as_the_stride_times_the_counters_bound(tmp_path):
    report = search_of_failed(ROWS, "reduce_rows.py")
    assert STRIDE in report.suggested_requires, report.suggested_requires
    assert report.proved_under_suggestion is True
    page = (ROOT / "docs/examples/project_contracts.md").read_text(encoding="utf-8")
    assert all(line in page for line in report.suggested_decorators), report.suggested_decorators
    module = pasted_proved_and_loaded(report, ROWS, tmp_path, "reduce_rows_pasted")
    inputs = _inputs()
    vk.check_launch(module.reduce_rows, 2, inputs)
    with pytest.raises(ContractError):          # a row one column short
        vk.check_launch(module.reduce_rows, 2, [inputs[0], inputs[1][:, :35].copy(), inputs[2]])
    vk.launch(module.reduce_rows, 2, inputs=inputs, device="cpu")
    grad, contribs = inputs[0], inputs[1].reshape(2, 3, 3, 4)    # (row, s, beta, lm)
    np.testing.assert_allclose(inputs[2], np.einsum("isl,isbl->ib", grad, contribs))


def test_a_column_past_its_stride_gets_no_contract_admitting_the_bad_launch(tmp_path):
    bad = ROWS.replace("beta * 4 + lm", "beta * 5 + lm")
    plain = load_text(bad, tmp_path, "reduce_rows_plain")
    with pytest.raises(OutOfBoundsError):
        vk.launch(plain.reduce_rows, 2, inputs=_inputs(), device="cpu")
    # the search's claim (`search_of_failed`): the application claims a proof only where the search
    # does, after the re-proof of the pasted source made here
    report = search_of_failed(bad, "reduce_rows.py")
    if report.proved_under_suggestion:
        module = pasted_proved_and_loaded(report, bad, tmp_path, "reduce_rows_pasted_bad")
        with pytest.raises(ContractError):
            vk.check_launch(module.reduce_rows, 2, _inputs())
