"""A stream compaction `if mask[i] != 0: indices[scan[i]] = i` (warp-simdata's
`_compact_kernel` in operators/element_in_box.py and `_compact_indices_kernel` in
operators/_batched_contour.py) gets no contents contract on `scan`
(proofs/deciding/contract_compaction.py): the project fills `scan` with the exclusive scan
of the mask plus its trailing sum, which repeats where the mask is 0 and reaches the count,
so `vk.all_distinct(scan)` and `vk.all_in_range(scan, 0, indices.shape[0])` -- the contract
suggested until session 24 -- are refused by `vk.check_launch` on the project's own data.
The kernel stays failed, never proved under a contract its real launch breaks; a scatter
through an index array that no other array's element guards keeps its contract."""
from __future__ import annotations

import numpy as np
import pytest

import verikern as vk
from verikern.app.prove import prove_source
from verikern.errors import ContractError
from verikern.proofs.obligations import KernelStatus

from shared_helpers import load_text

COMPACT = '''import warp as wp


@wp.kernel
def compact(mask: wp.array(dtype=wp.int32), scan: wp.array(dtype=wp.int32), indices: wp.array(dtype=wp.int32)):
    i = wp.tid()
    if mask[i] != 0:
        indices[scan[i]] = i
'''
# the contract suggested before session 24 (and proved): what the project's scan breaks
OLD = ("@vk.requires(lambda mask, scan: vk.launch_dim() <= mask.shape[0] and vk.launch_dim() <= scan.shape[0])\n"
       "@vk.requires(lambda scan: vk.all_distinct(scan))\n"
       "@vk.requires(lambda scan, indices: vk.all_in_range(scan, 0, indices.shape[0]))\n")


def _projects_launch(mask: list[int]):
    """The project's arrays: `scan` = exclusive scan of the mask with its trailing sum
    (simdata.utils.array_scan(mask, scan, inclusive=False, add_trailing_sum=True)), `indices`
    as long as the count; launched over the mask's elements."""
    m = np.array(mask, np.int32)
    scan = np.concatenate([[0], np.cumsum(m != 0)]).astype(np.int32)
    return len(m), m, scan, np.full(int(scan[-1]), -1, np.int32)


def test_the_compaction_gets_no_contract_its_projects_scan_breaks():
    (report,) = prove_source(COMPACT, "compact.py", suggest=True)
    assert report.status is KernelStatus.FAILED
    assert not report.proved_under_suggestion
    assert not any("all_distinct(scan)" in r or "all_in_range(scan" in r for r in report.suggested_requires)


def test_the_kernel_is_right_on_the_projects_data_and_the_old_contract_refuses_it(tmp_path):
    n, mask, scan, indices = _projects_launch([1, 0, 1, 0])
    mod = load_text("import verikern as vk\n" + COMPACT, tmp_path, "compact_plain")
    vk.launch(mod.compact, n, [mask, scan, indices], device="cpu")      # no fault on the real data
    np.testing.assert_array_equal(indices, np.flatnonzero(mask))       # numpy's compaction
    old = load_text("import verikern as vk\n" + COMPACT.replace("@wp.kernel\n", OLD + "@wp.kernel\n"),
                    tmp_path, "compact_old")
    with pytest.raises(ContractError):
        vk.check_launch(old.compact, n, [mask, scan, np.zeros_like(indices)])


def test_a_scatter_no_other_array_guards_keeps_its_contents_contract():
    scatter = COMPACT.replace("    if mask[i] != 0:\n        indices[scan[i]] = i\n",
                              "    if i < scan.shape[0]:\n        indices[scan[i]] = i\n")
    (report,) = prove_source(scatter, "scatter.py", suggest=True)
    assert report.status is KernelStatus.FAILED and report.proved_under_suggestion is True
    assert any("vk.all_distinct(scan)" in r for r in report.suggested_requires)
