"""Suggested contracts for a packed layout with a fixed number of extra rows per
group: `ext[atom_i + 2 * batch_idx[atom_i]]` (nvalchemi's
`_lbfgs_unpack_atoms_kernel`: each system's atoms, then its 2 cell rows,
`num_packed = num_atoms + 2 * num_systems`). The suggestion states the room
in int64 (`vk.int64(2) * vk.int64(phi.shape[0]) <= vk.int64(ext.shape[0] -
vk.launch_dim())`) with the group array's range; it is re-proved on the pasted
source and runs the project's launch on the simulator against numpy. Three rows
per group read under the same layout get no proved contract admitting that
launch, and the same room stated in int32 (where `2 * phi.shape[0]` wraps)
proves nothing."""
from __future__ import annotations

import numpy as np
import pytest

import verikern as vk
from verikern.app.prove import prove_source
from verikern.errors import ContractError, OutOfBoundsError
from verikern.proofs.obligations import KernelStatus, Status

from shared_helpers import ROOT, load_text, pasted_proved_and_loaded, suggestion_of_failed

PACKED = '''import warp as wp


@wp.kernel
def unpack_rows(ext: wp.array(dtype=wp.float32), phi: wp.array(dtype=wp.float32),
                batch_idx: wp.array(dtype=wp.int32), out: wp.array(dtype=wp.float32)):
    atom_i = wp.tid()
    s = batch_idx[atom_i]
    out[atom_i] = phi[s] * ext[atom_i + 2 * s]
'''

ROOM = "vk.int64(2) * vk.int64(phi.shape[0]) <= vk.int64(ext.shape[0] - vk.launch_dim())"
GROUPS = "vk.all_in_range(batch_idx, 0, phi.shape[0])"


def _inputs(systems=(0, 0, 0, 1, 1)):
    """Five atoms in systems `systems` (sorted), each system's atoms then its 2
    cell rows: a buffer of 5 + 2 * num_systems rows."""
    batch_idx = np.array(systems, dtype=np.int32)
    n_sys = int(batch_idx[-1]) + 1
    phi = np.linspace(2.0, -1.0, n_sys).astype(np.float32)
    ext = np.arange(5 + 2 * n_sys, dtype=np.float32)
    return [ext, phi, batch_idx, np.zeros(5, dtype=np.float32)]


def test_a_packed_layout_gets_room_for_the_launch_and_the_rows_per_group(tmp_path):
    report = suggestion_of_failed(PACKED, "unpack_rows.py")
    assert ROOM in report.suggested_requires, report.suggested_requires
    assert GROUPS in report.suggested_requires, report.suggested_requires
    assert report.proved_under_suggestion is True
    page = (ROOT / "docs/examples/project_contracts.md").read_text(encoding="utf-8")
    assert all(line in page for line in report.suggested_decorators), report.suggested_decorators
    module = pasted_proved_and_loaded(report, PACKED, tmp_path, "unpack_rows_pasted")
    inputs = _inputs()
    vk.check_launch(module.unpack_rows, 5, inputs)
    with pytest.raises(ContractError):          # the buffer one row short
        vk.check_launch(module.unpack_rows, 5, [inputs[0][:-1].copy()] + inputs[1:])
    with pytest.raises(ContractError):          # an atom of a third system that phi lacks
        vk.check_launch(module.unpack_rows, 5, inputs[:2] + [np.array([0, 0, 0, 1, 2], np.int32), inputs[3]])
    vk.launch(module.unpack_rows, 5, inputs=inputs, device="cpu")
    ext, phi, batch_idx = inputs[:3]
    rows = np.arange(5) + 2 * batch_idx         # system 0: rows 0..2, system 1: rows 5, 6
    np.testing.assert_allclose(inputs[3], phi[batch_idx] * ext[rows])


def test_three_rows_per_group_get_no_contract_admitting_the_two_row_layout(tmp_path):
    bad = PACKED.replace("atom_i + 2 * s", "atom_i + 3 * s")
    plain = load_text(bad, tmp_path, "unpack_rows_plain")
    four = (0, 1, 2, 3, 3)     # four systems: atom 4 of system 3 reads row 4 + 9 = 13 of 0..12
    with pytest.raises(OutOfBoundsError):
        vk.launch(plain.unpack_rows, 5, inputs=_inputs(four), device="cpu")
    report = suggestion_of_failed(bad, "unpack_rows.py")
    assert ROOM not in report.suggested_requires, report.suggested_requires
    if report.proved_under_suggestion:
        module = pasted_proved_and_loaded(report, bad, tmp_path, "unpack_rows_pasted_bad")
        with pytest.raises(ContractError):
            vk.check_launch(module.unpack_rows, 5, _inputs(four))


def test_the_room_stated_in_int32_proves_nothing():
    """`2 * phi.shape[0]` wraps in int32 for phi.shape[0] >= 2**30 and then holds
    for any buffer; the group index `2 * s` wraps with it, so the kernel is not
    proved under that text (the template states it in int64)."""
    wrapping = PACKED.replace(
        "@wp.kernel",
        "@vk.requires(lambda ext, phi, batch_idx, out: 2 * phi.shape[0] <= ext.shape[0] - vk.launch_dim() "
        "and vk.launch_dim() <= batch_idx.shape[0] and vk.launch_dim() <= out.shape[0])\n"
        f"@vk.requires(lambda phi, batch_idx: {GROUPS})\n@wp.kernel").replace(
        "import warp as wp", "import warp as wp\nimport verikern as vk")
    (report,) = prove_source(wrapping, "unpack_rows_int32.py")
    assert report.status is not KernelStatus.PROVED
    line = wrapping.splitlines().index("    out[atom_i] = phi[s] * ext[atom_i + 2 * s]") + 1
    failing = [ob for ob in report.obligations if ob.status is not Status.PROVED]
    assert failing and all(ob.loc.line == line for ob in failing), [(ob.loc, ob.message) for ob in failing]
