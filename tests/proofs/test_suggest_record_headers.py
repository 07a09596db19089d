"""Suggested contracts for CSR segments walked by their length (`for k in
range(offsets[i + 1] - offsets[i])`) and for records that follow one header per
record before them (warp-simdata's `_scatter_connectivity_kernel`: a legacy
packed cell array `[count, id0, id1, ...]` per cell, record i starting at
`offsets[i] + i`). The segment length bounds the index like an end does, so the
offsets get the range one past the length (the last offset equals it) and, when
the segment is written, `vk.all_sorted`; the packed read gets room for the
launch's headers, `vk.all_in_range(offsets, 0, packed.shape[0] - vk.launch_dim()
+ 1)`. Each suggestion is re-proved on the pasted source, and the pasted kernel
accepts and runs (on the simulator, against numpy) the data the project's own
host code makes (`unpack_cell_array`: offsets by a prefix sum of the records'
counts, connectivity of `packed.shape[0] - num_cells` ids, one thread per
cell). A record read as if it had two headers gets no proved contract that
admits the launch showing the bug."""
from __future__ import annotations

import numpy as np
import pytest

import verikern as vk
from verikern.errors import ContractError, OutOfBoundsError
from verikern.frontend import compile_source
from verikern.mir import facts
from verikern.proofs.deciding.contract_templates import candidates, walker
from verikern.proofs.obligations import ObligationKind, enumerate_obligations

from shared_helpers import ROOT, SCATTER_RECORDS, load_text, pasted_proved_and_loaded, search_of_failed

DOC = ROOT / "docs/examples/project_contracts.md"

SCATTER = SCATTER_RECORDS

SEGMENT_COPY = '''import warp as wp


@wp.kernel
def segment_copy(offsets: wp.array(dtype=wp.int32), values: wp.array(dtype=wp.float32),
                 out: wp.array(dtype=wp.float32)):
    s = wp.tid()
    n = offsets[s + 1] - offsets[s]
    for k in range(n):
        out[offsets[s] + k] = 3.0 * values[offsets[s] + k]
'''

HEADERS = "vk.all_in_range(offsets, 0, packed.shape[0] - vk.launch_dim() + 1)"
ENDS = "vk.all_in_range(offsets, 0, connectivity.shape[0] + 1)"
SORTED = "vk.all_sorted(offsets)"


def project_cells(counts=(3, 0, 2, 4)):
    """The host data of warp-simdata's `unpack_cell_array`, made as its kernels
    make it: a packed array of `[count, ids...]` records, the CSR offsets of
    their ids (`_build_cell_offsets_kernel`: `offsets[i + 1] = offsets[i] +
    packed[pos]`), and a connectivity of `packed.shape[0] - num_cells` ids."""
    rng = np.random.default_rng(7)
    records, ids = [], []
    for c in counts:
        cell = rng.integers(0, 100, size=c).astype(np.int32)
        records += [c] + list(cell)
        ids.append(cell)
    packed = np.array(records, dtype=np.int32)
    offsets = np.zeros(len(counts) + 1, dtype=np.int32)
    pos = 0
    for i in range(len(counts)):
        offsets[i + 1] = offsets[i] + packed[pos]
        pos += packed[pos] + 1
    connectivity = np.zeros(packed.shape[0] - len(counts), dtype=np.int32)
    return packed, offsets, connectivity, np.concatenate(ids)


def test_records_after_headers_get_room_for_the_headers_and_the_ends(tmp_path):
    report = search_of_failed(SCATTER, "scatter_records.py")
    for atom in (HEADERS, ENDS, SORTED):
        assert atom in report.suggested_requires, report.suggested_requires
    assert report.proved_under_suggestion is True
    page = DOC.read_text(encoding="utf-8")
    assert all(line in page for line in report.suggested_decorators), report.suggested_decorators
    module = pasted_proved_and_loaded(report, SCATTER, tmp_path, "scatter_records_pasted")
    packed, offsets, connectivity, ids = project_cells()
    n = offsets.shape[0] - 1
    vk.check_launch(module.scatter_records, n, [packed, offsets, connectivity])
    with pytest.raises(ContractError):        # the packed array one slot short of its last id
        vk.check_launch(module.scatter_records, n, [packed[:-1].copy(), offsets, connectivity])
    with pytest.raises(ContractError):        # offsets out of order: two segments overlap
        vk.check_launch(module.scatter_records, n,
                        [packed, np.array([0, 3, 1, 5, 9], np.int32), connectivity])
    vk.launch(module.scatter_records, n, inputs=[packed, offsets, connectivity], device="cpu")
    np.testing.assert_array_equal(connectivity, ids)


def test_the_projects_cells_satisfy_the_contract_for_every_shape_of_record():
    """Empty cells, one cell, many: the offsets the project's prefix sum makes are
    sorted, end at the connectivity's length and leave one packed slot per header."""
    for counts in ((0,), (5,), (1, 1, 1), (0, 0, 4, 0), tuple(range(12))):
        packed, offsets, connectivity, _ = project_cells(counts)
        n = len(counts)
        assert np.all(np.diff(offsets) >= 0)
        assert offsets.min() >= 0 and offsets.max() < packed.shape[0] - n + 1
        assert offsets.max() < connectivity.shape[0] + 1
        assert offsets[-1] == connectivity.shape[0]    # the last offset equals the length


def test_a_record_read_with_two_headers_gets_no_contract_admitting_the_bad_launch(tmp_path):
    bad = SCATTER.replace("src = start + i + 1", "src = start + i + 2")
    packed, offsets, connectivity, _ = project_cells((1,))
    plain = load_text(bad, tmp_path, "scatter_records_plain")
    with pytest.raises(OutOfBoundsError):
        vk.launch(plain.scatter_records, 1, inputs=[packed, offsets, connectivity.copy()], device="cpu")
    # the search's claim (`search_of_failed`): the application claims a proof only where the search
    # does, after the re-proof of the pasted source made here
    report = search_of_failed(bad, "scatter_records.py")
    # (a contract proved here admits only empty records: `packed.shape[0] == vk.launch_dim()`
    # with the room for headers leaves every offset 0 -- it must refuse the project's launch)
    if report.proved_under_suggestion:
        module = pasted_proved_and_loaded(report, bad, tmp_path, "scatter_records_pasted_bad")
        with pytest.raises(ContractError):
            vk.check_launch(module.scatter_records, 1, [packed, offsets, connectivity])


def test_a_segment_walked_by_its_length_gets_offsets_up_to_the_length(tmp_path):
    """`for k in range(offsets[s + 1] - offsets[s])`: the last offset equals the
    values' length, so the range is one past it (`[0, values.shape[0])` would refuse
    every CSR array), and the written segments get sorted offsets."""
    report = search_of_failed(SEGMENT_COPY, "segment_copy.py")
    assert "vk.all_in_range(offsets, 0, values.shape[0] + 1)" in report.suggested_requires
    assert "vk.all_in_range(offsets, 0, out.shape[0] + 1)" in report.suggested_requires
    assert SORTED in report.suggested_requires
    assert "vk.all_in_range(offsets, 0, values.shape[0])" not in report.suggested_requires
    assert report.proved_under_suggestion is True
    module = pasted_proved_and_loaded(report, SEGMENT_COPY, tmp_path, "segment_copy_pasted")
    offsets = np.array([0, 2, 2, 5], dtype=np.int32)
    values = np.arange(5, dtype=np.float32)
    out = np.zeros(5, dtype=np.float32)
    vk.check_launch(module.segment_copy, 3, [offsets, values, out])
    vk.launch(module.segment_copy, 3, inputs=[offsets, values, out], device="cpu")
    np.testing.assert_array_equal(out, 3.0 * values)


def test_a_segment_walked_by_its_length_ranks_the_range_one_past_first_and_sorted_offsets_for_its_race():
    """The kernel of test_a_segment_walked_by_its_length_gets_offsets_up_to_the_length at the
    template layer (contract_templates.candidates), without its search and re-proof (whose
    rule, a length-walked segment's offsets one past its array's length and sorted when
    written, test_records_after_headers_get_room_for_the_headers_and_the_ends searches and
    proves on the project's kernel): the read and the write at `offsets[s] + k` rank the range
    one past each array's length first, before `[0, length)`, which every CSR array breaks
    (its last offset equals the length), and the writes' race ranks `vk.all_sorted(offsets)` first."""
    kernel = compile_source(SEGMENT_COPY, "segment_copy.py").kernel("segment_copy").mir
    w = walker(kernel)
    ranked = {}
    for spec in enumerate_obligations(kernel):
        ins = kernel.block(spec.site[0]).instrs[spec.site[1]]
        texts = [a.text(kernel.launch_ndim) for a in candidates(kernel, spec, w)]
        if spec.kind is ObligationKind.RACE or ins.array.name != "offsets":
            ranked.setdefault((spec.kind, ins.array.name), []).append(texts)
    assert set(ranked) == {(ObligationKind.BOUNDS, "values"), (ObligationKind.BOUNDS, "out"),
                           (ObligationKind.RACE, "out")}, ranked
    for name in ("values", "out"):
        for texts in ranked[(ObligationKind.BOUNDS, name)]:
            assert texts[0] == f"vk.all_in_range(offsets, 0, {name}.shape[0] + 1)", texts
            assert f"vk.all_in_range(offsets, 0, {name}.shape[0])" in texts[1:], texts
    assert all(texts[0] == SORTED for texts in ranked[(ObligationKind.RACE, "out")]), ranked


GUARDED_FILL = '''import warp as wp


@wp.kernel
def fill_unique(offsets: wp.array(dtype=wp.int32), ids: wp.array(dtype=wp.int32),
                out: wp.array(dtype=wp.int32)):
    e = wp.tid()
    start = offsets[e]
    end = offsets[e + 1]
    count = wp.int32(0)
    for j in range(ids.shape[0]):
        if start + count < end:
            out[start + count] = ids[j]
            count += 1
'''


def test_a_guard_recomputing_the_index_bounds_it_by_the_end_offset():
    """warp-simdata's `_compute_unique_element_node_connectivity_kernel` guards its
    store with `if output_offset + count < output_end` and stores at `output_offset +
    count`, computed again: the guard still bounds the index by an offset, so the
    candidate range ends one past `out`'s length (the project's last offset equals
    it) and comes before `[0, out.shape[0])`, which that data breaks."""
    kernel = compile_source(GUARDED_FILL, "fill_unique.py").kernels[0].mir
    w = walker(kernel)
    store = next((b.label, i) for b in kernel.blocks for i, ins in enumerate(b.instrs)
                 if facts.writes_memory(ins) and ins.array.name == "out")
    spec = next(s for s in enumerate_obligations(kernel) if s.site == store and s.kind is ObligationKind.BOUNDS)
    texts = [a.text(kernel.launch_ndim) for a in candidates(kernel, spec, w)]
    one_past = "vk.all_in_range(offsets, 0, out.shape[0] + 1)"
    assert one_past in texts, texts
    at_length = "vk.all_in_range(offsets, 0, out.shape[0])"
    assert at_length not in texts or texts.index(one_past) < texts.index(at_length), texts



LISTED_COUNTS = '''import warp as wp


@wp.kernel
def listed_counts(face_locations: wp.array(dtype=wp.int32), source_offsets: wp.array(dtype=wp.int32),
                  counts: wp.array(dtype=wp.int32)):
    slot = wp.tid()
    face_idx = face_locations[slot]
    counts[slot] = source_offsets[face_idx + 1] - source_offsets[face_idx]
'''
LISTED = "vk.all_in_range(face_locations, 0, source_offsets.shape[0] - 1)"


def _listed_inputs(ids=(2, 0, 3, 3)):
    """warp-simdata's `_count_oriented_face_nodes` data: face ids chosen from 4 faces
    whose CSR offsets (5 of them) hold their node counts."""
    offsets = np.array([0, 3, 7, 7, 12], dtype=np.int32)
    return [np.array(ids, dtype=np.int32), offsets, np.zeros(len(ids), dtype=np.int32)]


def test_a_listed_ids_segment_end_gets_ids_one_below_the_offsets(tmp_path):
    report = search_of_failed(LISTED_COUNTS, "listed_counts.py")
    assert LISTED in report.suggested_requires, report.suggested_requires
    assert report.proved_under_suggestion is True
    page = DOC.read_text(encoding="utf-8")
    assert all(line in page for line in report.suggested_decorators), report.suggested_decorators
    module = pasted_proved_and_loaded(report, LISTED_COUNTS, tmp_path, "listed_counts_pasted")
    inputs = _listed_inputs()
    vk.check_launch(module.listed_counts, 4, inputs)
    with pytest.raises(ContractError):        # face 4 has no end offset
        vk.check_launch(module.listed_counts, 4, _listed_inputs((2, 0, 4, 3)))
    vk.launch(module.listed_counts, 4, inputs=inputs, device="cpu")
    np.testing.assert_array_equal(inputs[2], np.diff(inputs[1])[inputs[0]])


def test_a_listed_ids_read_two_past_gets_no_contract_admitting_the_bad_launch(tmp_path):
    bad = LISTED_COUNTS.replace("source_offsets[face_idx + 1]", "source_offsets[face_idx + 2]")
    plain = load_text(bad, tmp_path, "listed_counts_plain")
    with pytest.raises(OutOfBoundsError):     # face 3, the last, reads offsets[5] of 5
        vk.launch(plain.listed_counts, 4, inputs=_listed_inputs(), device="cpu")
    report = search_of_failed(bad, "listed_counts.py")     # the search's claim, as above
    assert LISTED not in report.suggested_requires or not report.proved_under_suggestion
    if report.proved_under_suggestion:
        module = pasted_proved_and_loaded(report, bad, tmp_path, "listed_counts_pasted_bad")
        with pytest.raises(ContractError):
            vk.check_launch(module.listed_counts, 4, _listed_inputs())
