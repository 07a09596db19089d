"""Suggested contracts for indices that are no thread id (issue 26 item 3, as
nvalchemi's kernels write them): a 2-d neighbour matrix whose empty slots hold
the padding `num_atoms`, skipped by `if j >= num_atoms: continue`, and a
run-length chunk per thread (`start = t * per_thread`) scattering into
per-segment arrays through an index array. Each suggestion is a claim:
re-proved on the pasted source, and the pasted file, imported as project code
imports it, accepts the launch the project makes (`vk.check_launch`) and runs
it on the simulator against numpy. The same kernel with an off-by-one gets no
proved contract that admits the launch showing the bug."""
from __future__ import annotations

import numpy as np
import pytest

import verikern as vk
from verikern.app.prove import prove_source
from verikern.errors import ContractError, OutOfBoundsError
from verikern.proofs.obligations import KernelStatus
from verikern.proofs.reporting.paste import pasted, suggestion_inserts

from shared_helpers import ROOT, import_file, search_of_failed

DOC = ROOT / "docs/examples/project_contracts.md"
HEAD = "import warp as wp\n\n\n"

NEIGHBORS = HEAD + '''@wp.kernel
def pair_energy(positions: wp.array(dtype=wp.float32), charges: wp.array(dtype=wp.float32),
                neighbor_matrix: wp.array2d(dtype=wp.int32), energies: wp.array(dtype=wp.float32)):
    i = wp.tid()
    num_atoms = positions.shape[0]
    if i >= num_atoms:
        return
    acc = float(0.0)
    for slot in range(neighbor_matrix.shape[1]):
        j = neighbor_matrix[i, slot]
        if j >= num_atoms:
            continue
        acc += charges[i] * charges[j] / (1.0 + wp.abs(positions[i] - positions[j]))
    energies[i] = acc
'''

ARGMAX = HEAD + '''@wp.kernel
def segment_argmax(x: wp.array(dtype=wp.float32), idx: wp.array(dtype=wp.int32),
                   maxes: wp.array(dtype=wp.float32), arg: wp.array(dtype=wp.int32),
                   n: wp.int32, per_thread: wp.int32):
    t = wp.tid()
    start = t * per_thread
    if start >= n:
        return
    end = wp.min(start + per_thread, n)
    for i in range(start, end):
        s = idx[i]
        if x[i] == maxes[s]:
            wp.atomic_max(arg, s, i)
'''

PER_SYSTEM = HEAD + '''@wp.kernel
def per_system(batch_idx: wp.array(dtype=wp.int32), cosines: wp.array2d(dtype=wp.float32),
               positions: wp.array(dtype=wp.float32), w: wp.array2d(dtype=wp.float32),
               out: wp.array2d(dtype=wp.float32)):
    b, k = wp.tid()
    n_total = batch_idx.shape[0]
    acc = float(0.0)
    for i in range(n_total):
        if batch_idx[i] == b:
            acc += cosines[k, i] * positions[i]
    out[b, k] = acc * w[b, k]
'''

COMPONENTS = HEAD + '''@wp.kernel
def five_components(x: wp.array(dtype=wp.float32), out: wp.array2d(dtype=wp.float32)):
    i = wp.tid()
    out[i, 0] = x[i]
    out[i, 2] = 2.0 * x[i]
    out[i, 4] = 4.0 * x[i]
'''


def _suggested(source: str, name: str):
    """The report of the whole application (app.prove): the suggestion and its claim,
    `proved_under_suggestion`, checked by the application's re-proof of the pasted source."""
    (report,) = prove_source(source, f"{name}.py", suggest=True)
    assert report.status is KernelStatus.FAILED
    return report


def _searched(source: str, name: str):
    return search_of_failed(source, f"{name}.py", name)


def _load(text: str, tmp_path, stem: str):
    path = tmp_path / f"{stem}.py"
    path.write_text(text)
    return import_file(path, stem)


def _pasted_module(report, source: str, tmp_path, stem: str, shown: bool = True):
    """The report's suggestion pasted by hand, proved again, and the file imported."""
    text = pasted(source, suggestion_inserts(source, report.line, report.suggested_decorators))
    (again,) = prove_source(text, f"{stem}.py")
    assert again.status is KernelStatus.PROVED, [ob.message for ob in again.obligations]
    if shown:                          # the page of examples shows the suggestion as printed
        page = DOC.read_text(encoding="utf-8")
        assert all(line in page for line in report.suggested_decorators), report.suggested_decorators
    return _load(text, tmp_path, stem)


def _refused_if_proved(source: str, name: str, tmp_path, dim, inputs) -> None:
    """`dim`, `inputs` run the kernel out of bounds on the simulator; a suggestion
    claimed proved must refuse that launch. The claim is the search's (`search_of_failed`): the
    application claims a proof only where the search does, after re-proving the pasted
    source, which the test does itself here (`_pasted_module`, asserting it proved)."""
    module = _load(source, tmp_path, f"{name}_plain")
    with pytest.raises(OutOfBoundsError):
        vk.launch(getattr(module, name), dim, inputs=[a.copy() for a in inputs], device="cpu")
    report = _searched(source, name)
    if report.proved_under_suggestion:
        bad = _pasted_module(report, source, tmp_path, f"{name}_pasted_bad", shown=False)
        with pytest.raises(ContractError):
            vk.check_launch(getattr(bad, name), dim, inputs)


def _neighbors():
    """Three atoms; empty slots hold the padding 3 (num_atoms), as nvalchemi fills them."""
    positions = np.array([0.0, 1.0, 3.0], dtype=np.float32)
    charges = np.array([1.0, -2.0, 0.5], dtype=np.float32)
    matrix = np.array([[1, 2, 3], [0, 3, 3], [0, 3, 3]], dtype=np.int32)
    return positions, charges, matrix


def test_a_padded_neighbor_matrix_gets_elements_up_to_the_padding(tmp_path):
    report = _searched(NEIGHBORS, "pair_energy")
    assert "vk.all_in_range(neighbor_matrix, 0, positions.shape[0] + 1)" in report.suggested_requires
    # the 2-d matrix's elements are bounded, not its elements below charges' length
    assert not any("all_in_range(neighbor_matrix, 0, charges" in r for r in report.suggested_requires)
    assert report.proved_under_suggestion is True
    module = _pasted_module(report, NEIGHBORS, tmp_path, "pair_energy_pasted")
    positions, charges, matrix = _neighbors()
    energies = np.zeros(3, dtype=np.float32)
    vk.check_launch(module.pair_energy, 3, [positions, charges, matrix, energies])
    with pytest.raises(ContractError):     # a negative neighbour: the guard does not skip it
        vk.check_launch(module.pair_energy, 3, [positions, charges, np.where(matrix == 3, -1, matrix), energies])
    vk.launch(module.pair_energy, 3, inputs=[positions, charges, matrix, energies], device="cpu")
    expected = np.zeros(3, dtype=np.float32)
    for i in range(3):
        for j in matrix[i]:
            if j < 3:
                expected[i] += charges[i] * charges[j] / (1.0 + abs(positions[i] - positions[j]))
    np.testing.assert_allclose(energies, expected, rtol=1e-6)


def test_a_neighbor_matrix_read_at_the_padding_gets_no_contract_admitting_the_bad_launch(tmp_path):
    bad = NEIGHBORS.replace("if j >= num_atoms:", "if j > num_atoms:")
    positions, charges, matrix = _neighbors()
    _refused_if_proved(bad, "pair_energy", tmp_path, 3,
                       [positions, charges, matrix, np.zeros(3, dtype=np.float32)])


def test_a_chunked_scatter_through_an_index_array_ties_no_length_to_the_launch(tmp_path):
    """nvalchemi's `_segmented_max_norm_argmax_kernel`: launched with `ceil(n /
    per_thread)` threads, so no per-element or per-segment array has the launch's
    length; the lengths cover `n` and the segment ids the per-segment arrays."""
    report = _searched(ARGMAX, "segment_argmax")
    assert set(report.suggested_requires) == {
        "n <= x.shape[0]", "n <= idx.shape[0]", "per_thread > 0",
        "vk.int64(vk.launch_dim()) * vk.int64(per_thread) <= vk.int64(2147483647)",
        "vk.all_in_range(idx, 0, arg.shape[0])", "vk.all_in_range(idx, 0, maxes.shape[0])"}, \
        report.suggested_requires
    assert report.proved_under_suggestion is True
    module = _pasted_module(report, ARGMAX, tmp_path, "segment_argmax_pasted")
    x = np.array([1.0, 3.0, 2.0, 5.0, 5.0, 0.5, 4.0], dtype=np.float32)
    idx = np.array([0, 0, 0, 1, 1, 2, 2], dtype=np.int32)
    maxes = np.array([3.0, 5.0, 4.0], dtype=np.float32)
    arg = np.full(3, -1, dtype=np.int32)
    n, per_thread = 7, 3
    dim = -(-n // per_thread)                  # 3 threads for 7 elements: no length is the launch
    vk.check_launch(module.segment_argmax, dim, [x, idx, maxes, arg, n, per_thread])
    vk.launch(module.segment_argmax, dim, inputs=[x, idx, maxes, arg, n, per_thread], device="cpu")
    np.testing.assert_array_equal(arg, [1, 4, 6])   # the last index holding each segment's max


def test_a_chunked_scatter_read_one_past_gets_no_contract_admitting_the_bad_launch(tmp_path):
    bad = ARGMAX.replace("range(start, end)", "range(start, end + 1)")
    inputs = [np.zeros(7, dtype=np.float32), np.array([0, 0, 0, 1, 1, 2, 2], dtype=np.int32),
              np.zeros(3, dtype=np.float32), np.zeros(3, dtype=np.int32), np.int32(7), np.int32(3)]
    _refused_if_proved(bad, "segment_argmax", tmp_path, 3, inputs)


def test_a_loop_over_every_atom_ties_what_it_reads_to_the_atom_count_not_the_launch(tmp_path):
    """nvalchemi's `_batch_project_kphase_grad_kernel`: each (system, k) thread
    loops over every atom and keeps its system's (`if batch_idx[i] == b`). The
    loop counter is no thread id: the per-atom arrays cover the atom count, not
    a launch dimension, and `batch_idx`, read only by the guard, gets no range."""
    report = _searched(PER_SYSTEM, "per_system")
    req = report.suggested_requires
    assert "batch_idx.shape[0] <= cosines.shape[1]" in req and "batch_idx.shape[0] <= positions.shape[0]" in req, req
    assert not any("all_in_range(batch_idx" in r for r in req), req
    assert not any(r.startswith("positions.shape[0]") and "launch_dim" in r for r in req), req
    assert report.proved_under_suggestion is True
    module = _pasted_module(report, PER_SYSTEM, tmp_path, "per_system_pasted", shown=False)
    batch_idx = np.array([0, 0, 1, 1, 1], dtype=np.int32)
    rng = np.random.default_rng(7)
    cosines = rng.standard_normal((3, 5)).astype(np.float32)
    positions = rng.standard_normal(5).astype(np.float32)
    w = rng.standard_normal((2, 3)).astype(np.float32)
    out = np.zeros((2, 3), dtype=np.float32)
    vk.check_launch(module.per_system, (2, 3), [batch_idx, cosines, positions, w, out])
    vk.launch(module.per_system, (2, 3), inputs=[batch_idx, cosines, positions, w, out], device="cpu")
    expected = np.array([[(cosines[k] * positions * (batch_idx == b)).sum() * w[b, k] for k in range(3)]
                         for b in range(2)], dtype=np.float32)
    np.testing.assert_allclose(out, expected, rtol=1e-5)


def test_a_loop_over_one_atom_too_many_gets_no_contract_admitting_the_bad_launch(tmp_path):
    bad = PER_SYSTEM.replace("range(n_total)", "range(n_total + 1)")
    inputs = [np.array([0, 0, 1], dtype=np.int32), np.zeros((3, 3), dtype=np.float32),
              np.zeros(3, dtype=np.float32), np.zeros((2, 3), dtype=np.float32), np.zeros((2, 3), dtype=np.float32)]
    _refused_if_proved(bad, "per_system", tmp_path, (2, 3), inputs)


def test_a_component_bound_implied_by_a_larger_one_is_left_out():
    report = _suggested(COMPONENTS, "five_components")
    assert "out.shape[1] > 4" in report.suggested_requires, report.suggested_requires
    assert not any(r in report.suggested_requires for r in ("out.shape[1] > 0", "out.shape[1] > 2"))
    assert report.proved_under_suggestion is True
