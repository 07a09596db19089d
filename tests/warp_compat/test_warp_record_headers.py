"""The contract suggested for records after one header each (warp-simdata's
`_scatter_connectivity_kernel`; tests/proofs/test_suggest_record_headers.py asserts
that verikern suggests these decorators and proves the pasted kernel), pasted: real
Warp 1.19 builds and runs the kernel on its CPU device on the data the project's host
code makes (same ids as numpy), vk.check_launch admits those Warp arrays and refuses a
packed array one slot short, which the last record's copy would read past."""
from __future__ import annotations

import numpy as np
import pytest

import verikern as vk
from verikern.errors import ContractError
from verikern.proofs.reporting.paste import pasted, suggestion_inserts
from shared_helpers import SCATTER_RECORDS
from warp_compat.compat_util import warp_module_from_text

SOURCE = SCATTER_RECORDS
SUGGESTED = (
    "@vk.requires(lambda offsets: vk.launch_dim() < offsets.shape[0])",
    "@vk.requires(lambda packed, offsets: vk.all_in_range(offsets, 0, packed.shape[0] - vk.launch_dim() + 1))",
    "@vk.requires(lambda offsets, connectivity: vk.all_in_range(offsets, 0, connectivity.shape[0] + 1))",
    "@vk.requires(lambda offsets: vk.all_sorted(offsets))",
)


def test_real_warp_runs_the_pasted_kernel_on_the_projects_cells(warp_cpu, tmp_path):
    wp = warp_cpu
    text = pasted(SOURCE, suggestion_inserts(SOURCE, 4, list(SUGGESTED)))
    mod = warp_module_from_text(tmp_path, "import verikern as vk\n" + text, "vk_record_headers")
    cells = [np.array([4, 9, 1], np.int32), np.array([], np.int32), np.array([7, 7], np.int32),
             np.array([0, 3, 5, 8], np.int32)]
    packed = np.concatenate([np.concatenate([[len(c)], c]) for c in cells]).astype(np.int32)
    offsets = np.concatenate([[0], np.cumsum([len(c) for c in cells])]).astype(np.int32)
    n = len(cells)
    wpacked = wp.array(packed, dtype=wp.int32, device="cpu")
    woffsets = wp.array(offsets, dtype=wp.int32, device="cpu")
    wconn = wp.zeros(packed.shape[0] - n, dtype=wp.int32, device="cpu")   # as unpack_cell_array sizes it
    vk.check_launch(mod.scatter_records, n, [wpacked, woffsets, wconn])
    wp.launch(mod.scatter_records, dim=n, inputs=[wpacked, woffsets, wconn], device="cpu")
    np.testing.assert_array_equal(wconn.numpy(), np.concatenate(cells))
    short = wp.array(packed[:-1], dtype=wp.int32, device="cpu")
    with pytest.raises(ContractError):
        vk.check_launch(mod.scatter_records, n, [short, woffsets, wconn])
