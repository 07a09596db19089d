"""Suggested contracts for what kernels of released Warp projects rely on
(issue 26 item 3): a count held in a one-element array, CSR offsets, index
arrays filled by an earlier kernel, per-world offsets, one-thread kernels, a
length relation the kernel asserts. Each suggestion is
checked as a claim: re-proved on the pasted source, and the pasted file,
loaded as the module real code imports, accepts and runs (on the simulator,
against numpy) the launch that project code makes. A kernel with a bug the
contract would have to hide gets no contract under which it is proved while
the launch that shows the bug is admitted: the simulator runs that launch out
of bounds, and `vk.check_launch` under any proved suggestion refuses it."""
from __future__ import annotations


import numpy as np
import pytest

import verikern as vk
from verikern.app.prove import prove_source
from verikern.errors import ContractError, OutOfBoundsError
from verikern.frontend import compile_source
from verikern.proofs.deciding.contract_templates import candidates, walker
from verikern.proofs.obligations import KernelStatus, ObligationKind, enumerate_obligations
from verikern.proofs.reporting.paste import pasted, suggestion_inserts

from shared_helpers import ROOT, import_file, search_of_failed

DOC = ROOT / "docs/examples/project_contracts.md"
HEAD = "import warp as wp\n\n\n"

COUNT = HEAD + '''@wp.kernel
def scale_active(count: wp.array(dtype=wp.int32), x: wp.array(dtype=wp.float32)):
    i = wp.tid()
    if i < count[0]:
        x[i] = 2.0 * x[i]
'''

CSR = HEAD + '''@wp.kernel
def segment_sum(offsets: wp.array(dtype=wp.int32), values: wp.array(dtype=wp.float32),
                out: wp.array(dtype=wp.float32)):
    s = wp.tid()
    acc = float(0.0)
    for k in range(offsets[s], offsets[s + 1]):
        acc += values[k]
    out[s] = acc
'''

SEGMENTS = HEAD + '''@wp.kernel
def segment_scale(offsets: wp.array(dtype=wp.int32), values: wp.array(dtype=wp.float32),
                  out: wp.array(dtype=wp.float32)):
    s = wp.tid()
    for k in range(offsets[s], offsets[s + 1]):
        out[k] = 2.0 * values[k]
'''

PAIRS = HEAD + '''@wp.kernel
def pair_force(pairs_i: wp.array(dtype=wp.int32), pairs_j: wp.array(dtype=wp.int32),
               pos: wp.array(dtype=wp.float32), force: wp.array(dtype=wp.float32)):
    p = wp.tid()
    i = pairs_i[p]
    j = pairs_j[p]
    d = pos[j] - pos[i]
    wp.atomic_add(force, i, d)
    wp.atomic_sub(force, j, d)
'''

WORLDS = HEAD + '''@wp.kernel
def gather_world(world_start: wp.array(dtype=wp.int32), x: wp.array(dtype=wp.float32),
                 y: wp.array2d(dtype=wp.float32)):
    w, k = wp.tid()
    y[w, k] = x[world_start[w] + k]
'''

TOTAL = HEAD + '''@wp.kernel
def total_energy(energies: wp.array(dtype=wp.float32), n: int, out: wp.array(dtype=wp.float32)):
    s = float(0.0)
    for i in range(n):
        s += energies[i]
    out[0] = s
'''

PREFIX = HEAD + '''@wp.kernel
def build_offsets(sizes: wp.array(dtype=wp.int32), starts: wp.array(dtype=wp.int32)):
    t = wp.tid()
    if t == 0:
        starts[0] = 0
        for i in range(sizes.shape[0]):
            starts[i + 1] = starts[i] + sizes[i]
'''

ASSERTED = HEAD + '''@wp.kernel
def shift_counts(counts: wp.array(dtype=wp.int32), offsets: wp.array(dtype=wp.int32)):
    assert offsets.shape[0] == counts.shape[0] + 1, "one more offset than counts"
    i = wp.tid()
    if i < counts.shape[0]:
        offsets[i + 1] = counts[i]
'''


RUNS = HEAD + '''@wp.kernel
def count_runs(idx: wp.array(dtype=wp.int32), out: wp.array(dtype=wp.int32), n: wp.int32,
               per_thread: wp.int32):
    t = wp.tid()
    start = t * per_thread
    if start >= n:
        return
    end = wp.min(start + per_thread, n)
    s_cur = idx[start]
    count = wp.int32(1)
    for i in range(start + 1, end):
        s = idx[i]
        if s == s_cur:
            count = count + wp.int32(1)
        else:
            wp.atomic_add(out, s_cur, count)
            s_cur = s
            count = wp.int32(1)
    wp.atomic_add(out, s_cur, count)
'''

def _searched(source: str, name: str):
    return search_of_failed(source, f"{name}.py", name)


def _pasted_module(report, source: str, tmp_path, stem: str):
    """The report's suggestion pasted by hand, proved again, and the file loaded
    as real code would import it."""
    text = pasted(source, suggestion_inserts(source, report.line, report.suggested_decorators))
    (again,) = prove_source(text, f"{stem}.py")
    assert again.status is KernelStatus.PROVED, [ob.message for ob in again.obligations]
    if not stem.endswith("_bad"):      # the page of examples shows the suggestion as printed
        page = DOC.read_text(encoding="utf-8")
        assert all(line in page for line in report.suggested_decorators), report.suggested_decorators
    return _load(text, tmp_path, stem)


def _load(text: str, tmp_path, stem: str):
    """`text` written to a file and imported, as project code imports it."""
    path = tmp_path / f"{stem}.py"
    path.write_text(text)
    return import_file(path, stem)


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
        pasted_module = _pasted_module(report, source, tmp_path, f"{name}_pasted_bad")
        with pytest.raises(ContractError):
            vk.check_launch(getattr(pasted_module, name), dim, inputs)


def test_a_count_in_a_one_element_array_gets_count_at_most_the_length(tmp_path):
    report = _searched(COUNT, "scale_active")
    assert "vk.all_in_range(count, 0, x.shape[0] + 1)" in report.suggested_requires
    assert not any("launch_dim" in r for r in report.suggested_requires), report.suggested_requires
    assert report.proved_under_suggestion is True
    module = _pasted_module(report, COUNT, tmp_path, "scale_active_pasted")
    # project code launches at the capacity, larger than the array, and keeps the count in it
    x = np.arange(10, dtype=np.float32)
    count = np.array([10], dtype=np.int32)
    vk.check_launch(module.scale_active, 64, [count, x])
    expected = 2.0 * x
    vk.launch(module.scale_active, 64, inputs=[count, x], device="cpu")
    np.testing.assert_array_equal(x, expected)


def test_a_count_read_one_past_gets_no_contract_admitting_the_bad_launch(tmp_path):
    bad = COUNT.replace("if i < count[0]:", "if i <= count[0]:")
    x = np.zeros(10, dtype=np.float32)
    _refused_if_proved(bad, "scale_active", tmp_path, 64, [np.array([10], dtype=np.int32), x])


def test_csr_offsets_get_the_end_equal_to_the_length_admitted(tmp_path):
    report = _searched(CSR, "segment_sum")
    assert "vk.all_in_range(offsets, 0, values.shape[0] + 1)" in report.suggested_requires
    assert "vk.launch_dim() < offsets.shape[0]" in report.suggested_requires
    assert report.proved_under_suggestion is True
    module = _pasted_module(report, CSR, tmp_path, "segment_sum_pasted")
    offsets = np.array([0, 2, 2, 5, 6], dtype=np.int32)      # the last offset is the length
    values = np.arange(6, dtype=np.float32)
    out = np.zeros(4, dtype=np.float32)
    vk.check_launch(module.segment_sum, 4, [offsets, values, out])
    vk.launch(module.segment_sum, 4, inputs=[offsets, values, out], device="cpu")
    np.testing.assert_array_equal(out, np.add.reduceat(values, offsets[:-1]) * (np.diff(offsets) > 0))


def test_csr_reading_one_past_the_segment_gets_no_contract_admitting_the_bad_launch(tmp_path):
    bad = CSR.replace("acc += values[k]", "acc += values[k + 1]")
    inputs = [np.array([0, 2, 2, 5, 6], dtype=np.int32), np.arange(6, dtype=np.float32),
              np.zeros(4, dtype=np.float32)]
    _refused_if_proved(bad, "segment_sum", tmp_path, 4, inputs)


def test_csr_segments_written_get_sorted_offsets(tmp_path):
    report = _searched(SEGMENTS, "segment_scale")
    assert "vk.all_sorted(offsets)" in report.suggested_requires
    assert "vk.all_in_range(offsets, 0, out.shape[0] + 1)" in report.suggested_requires
    assert report.proved_under_suggestion is True
    module = _pasted_module(report, SEGMENTS, tmp_path, "segment_scale_pasted")
    offsets = np.array([0, 2, 2, 5, 6], dtype=np.int32)
    values = np.arange(6, dtype=np.float32)
    out = np.zeros(6, dtype=np.float32)
    vk.check_launch(module.segment_scale, 4, [offsets, values, out])
    with pytest.raises(ContractError):          # overlapping segments: two threads write out[1]
        vk.check_launch(module.segment_scale, 4, [np.array([0, 2, 1, 5, 6], dtype=np.int32), values, out])
    vk.launch(module.segment_scale, 4, inputs=[offsets, values, out], device="cpu")
    np.testing.assert_array_equal(out, 2.0 * values)


def test_csr_segments_written_one_past_get_no_contract_admitting_the_bad_launch(tmp_path):
    bad = SEGMENTS.replace("range(offsets[s], offsets[s + 1])", "range(offsets[s], offsets[s + 1] + 1)")
    inputs = [np.array([0, 2, 2, 5, 6], dtype=np.int32), np.arange(6, dtype=np.float32),
              np.zeros(6, dtype=np.float32)]
    _refused_if_proved(bad, "segment_scale", tmp_path, 4, inputs)


def test_two_index_arrays_filled_earlier_each_get_their_range(tmp_path):
    report = _searched(PAIRS, "pair_force")
    for name in ("pairs_i", "pairs_j"):
        assert f"vk.all_in_range({name}, 0, pos.shape[0])" in report.suggested_requires
        assert f"vk.all_in_range({name}, 0, force.shape[0])" in report.suggested_requires
    assert report.proved_under_suggestion is True
    module = _pasted_module(report, PAIRS, tmp_path, "pair_force_pasted")
    pi, pj = np.array([0, 1, 2], dtype=np.int32), np.array([3, 3, 0], dtype=np.int32)
    pos = np.array([1.0, 2.0, 4.0, 8.0], dtype=np.float32)
    force = np.zeros(4, dtype=np.float32)
    vk.check_launch(module.pair_force, 3, [pi, pj, pos, force])
    vk.launch(module.pair_force, 3, inputs=[pi, pj, pos, force], device="cpu")
    expected = np.zeros(4, dtype=np.float32)
    np.add.at(expected, pi, pos[pj] - pos[pi])
    np.subtract.at(expected, pj, pos[pj] - pos[pi])
    np.testing.assert_array_equal(force, expected)


def test_pairs_indexing_one_past_get_no_contract_admitting_the_bad_launch(tmp_path):
    bad = PAIRS.replace("d = pos[j] - pos[i]", "d = pos[j + 1] - pos[i]")
    inputs = [np.array([0, 1, 2], dtype=np.int32), np.array([3, 3, 0], dtype=np.int32),
              np.zeros(4, dtype=np.float32), np.zeros(4, dtype=np.float32)]
    _refused_if_proved(bad, "pair_force", tmp_path, 3, inputs)


def test_per_world_offsets_leave_room_for_the_launchs_second_index(tmp_path):
    report = _searched(WORLDS, "gather_world")
    assert "vk.all_in_range(world_start, 0, x.shape[0] - vk.launch_dim(1) + 1)" in report.suggested_requires
    assert report.proved_under_suggestion is True
    module = _pasted_module(report, WORLDS, tmp_path, "gather_world_pasted")
    # three worlds of four bodies each, packed into x
    start = np.array([0, 4, 8], dtype=np.int32)
    x = np.arange(12, dtype=np.float32)
    y = np.zeros((3, 4), dtype=np.float32)
    vk.check_launch(module.gather_world, (3, 4), [start, x, y])
    vk.launch(module.gather_world, (3, 4), inputs=[start, x, y], device="cpu")
    np.testing.assert_array_equal(y, x.reshape(3, 4))


def test_a_world_read_one_past_gets_no_contract_admitting_the_bad_launch(tmp_path):
    bad = WORLDS.replace("x[world_start[w] + k]", "x[world_start[w] + k + 1]")
    inputs = [np.array([0, 4, 8], dtype=np.int32), np.arange(12, dtype=np.float32),
              np.zeros((3, 4), dtype=np.float32)]
    _refused_if_proved(bad, "gather_world", tmp_path, (3, 4), inputs)


def test_a_reduction_written_for_one_thread_gets_the_one_thread_launch(tmp_path):
    report = _searched(TOTAL, "total_energy")
    assert "vk.launch_dim() == 1" in report.suggested_requires
    assert "n <= energies.shape[0]" in report.suggested_requires
    assert report.proved_under_suggestion is True
    module = _pasted_module(report, TOTAL, tmp_path, "total_energy_pasted")
    energies = np.arange(5, dtype=np.float32)
    out = np.zeros(1, dtype=np.float32)
    vk.check_launch(module.total_energy, 1, [energies, 5, out])
    with pytest.raises(ContractError):        # two threads would race on out[0]
        vk.check_launch(module.total_energy, 2, [energies, 5, out])
    vk.launch(module.total_energy, 1, inputs=[energies, 5, out], device="cpu")
    assert out[0] == energies.sum()


def test_a_prefix_sum_into_offsets_gets_one_more_offset_than_counts(tmp_path):
    report = _searched(PREFIX, "build_offsets")
    assert report.suggested_requires == ("sizes.shape[0] < starts.shape[0]",)
    assert report.proved_under_suggestion is True
    module = _pasted_module(report, PREFIX, tmp_path, "build_offsets_pasted")
    sizes = np.array([2, 0, 3, 1], dtype=np.int32)
    starts = np.zeros(5, dtype=np.int32)
    vk.check_launch(module.build_offsets, 1, [sizes, starts])
    with pytest.raises(ContractError):        # as many offsets as counts: one short
        vk.check_launch(module.build_offsets, 1, [sizes, np.zeros(4, dtype=np.int32)])
    vk.launch(module.build_offsets, 1, inputs=[sizes, starts], device="cpu")
    np.testing.assert_array_equal(starts, np.concatenate([[0], np.cumsum(sizes)]))


def test_a_prefix_sum_one_past_gets_no_contract_admitting_the_bad_launch(tmp_path):
    bad = PREFIX.replace("starts[i + 1] = starts[i] + sizes[i]", "starts[i + 2] = starts[i] + sizes[i]")
    inputs = [np.array([2, 0, 3, 1], dtype=np.int32), np.zeros(5, dtype=np.int32)]
    _refused_if_proved(bad, "build_offsets", tmp_path, 1, inputs)


def test_an_asserted_length_relation_is_suggested_as_the_contract(tmp_path):
    # warp-simdata checks its offsets' length with `assert` (compiled only in Warp's debug
    # builds): the suggestion is the asserted relation, as the kernel states it
    report = _searched(ASSERTED, "shift_counts")
    assert report.suggested_requires == ("offsets.shape[0] == counts.shape[0] + 1",)
    assert report.proved_under_suggestion is True
    module = _pasted_module(report, ASSERTED, tmp_path, "shift_counts_pasted")
    counts = np.array([3, 1, 4], dtype=np.int32)
    offsets = np.zeros(4, dtype=np.int32)
    vk.check_launch(module.shift_counts, 8, [counts, offsets])
    vk.launch(module.shift_counts, 8, inputs=[counts, offsets], device="cpu")
    np.testing.assert_array_equal(offsets, [0, 3, 1, 4])
    with pytest.raises(ContractError):           # as many offsets as counts: refused
        vk.check_launch(module.shift_counts, 8, [counts, np.zeros(3, dtype=np.int32)])


def test_an_asserted_relation_two_past_gets_no_contract_admitting_the_bad_launch(tmp_path):
    bad = ASSERTED.replace("offsets[i + 1]", "offsets[i + 2]")
    _refused_if_proved(bad, "shift_counts", tmp_path, 3,
                       [np.array([3, 1, 4], dtype=np.int32), np.zeros(4, dtype=np.int32)])


def _check_run_length_launches(count_runs, refused_counts) -> None:
    """`count_runs` under its contract: the project's launch (ten sorted segment ids, four
    per thread) is admitted and counts as np.bincount does; each per-thread count in
    `refused_counts` is refused by the contract."""
    idx = np.array([0, 0, 1, 1, 1, 2, 2, 2, 2, 3], dtype=np.int32)
    out = np.zeros(4, dtype=np.int32)
    n, per_thread = 10, 4
    dim = -(-n // per_thread)
    vk.check_launch(count_runs, dim, [idx, out, n, per_thread])
    for count in refused_counts:
        with pytest.raises(ContractError):
            vk.check_launch(count_runs, dim, [idx, out, n, count])
    vk.launch(count_runs, dim, inputs=[idx, out, n, per_thread], device="cpu")
    np.testing.assert_array_equal(out, np.bincount(idx, minlength=4))


def test_a_run_length_chunk_per_thread_gets_a_launch_that_fits_int32(tmp_path):
    """nvalchemi's run-length kernels (`start = t * elems_per_thread`, launched
    with `ceil(n / elems_per_thread)` threads): the count is positive and the
    launch times it fits in int32, so neither the chunk's start nor its end
    wraps; sorted segment indices in range; `n` within the index array."""
    report = _searched(RUNS, "count_runs")
    assert set(report.suggested_requires) == {
        "n <= idx.shape[0]", "per_thread > 0",
        "vk.int64(vk.launch_dim()) * vk.int64(per_thread) <= vk.int64(2147483647)",
        "vk.all_in_range(idx, 0, out.shape[0])"}, report.suggested_requires
    assert report.proved_under_suggestion is True
    _check_run_length_launches(_pasted_module(report, RUNS, tmp_path, "count_runs_pasted").count_runs,
                               refused_counts=(2 ** 30,))


def test_a_run_length_chunk_read_one_past_gets_no_contract_admitting_the_bad_launch(tmp_path):
    bad = RUNS.replace("range(start + 1, end)", "range(start + 1, end + 1)")
    inputs = [np.array([0, 0, 1, 1, 1, 2, 2, 2, 2, 3], dtype=np.int32), np.zeros(4, dtype=np.int32),
              np.int32(10), np.int32(4)]
    _refused_if_proved(bad, "count_runs", tmp_path, 3, inputs)


#: the suggestion test_a_run_length_chunk_per_thread_gets_a_launch_that_fits_int32 expects,
#: written by hand as a user would (not the search's text)
RUNS_CONTRACT = RUNS.replace("import warp as wp\n", "import warp as wp\nimport verikern as vk\n").replace(
    "@wp.kernel\n", "@vk.requires(lambda idx, n: n <= idx.shape[0])\n"
    "@vk.requires(lambda per_thread: per_thread > 0 and "
    "vk.int64(vk.launch_dim()) * vk.int64(per_thread) <= vk.int64(2147483647))\n"
    "@vk.requires(lambda idx, out: vk.all_in_range(idx, 0, out.shape[0]))\n@wp.kernel\n")


def test_a_run_length_chunks_reads_rank_the_int32_fit_first_and_that_contract_refuses_a_wrapping_launch(tmp_path):
    """The run-length kernel of test_a_run_length_chunk_per_thread_gets_a_launch_that_fits_int32
    at the template layer (contract_templates.candidates), without its search and re-proof:
    each read of `idx` (at the chunk's start and in its loop) ranks first the launch times
    `per_thread` fitting in int32, stated in int64, with the positive count, then the length
    covering `n` before any length tied to the launch; each atomic on `out` ranks the ids'
    range first. That contract, written by hand, accepts the project's launch, refuses one
    whose chunks wrap in int32 and one with no positive count, and runs it against numpy.
    (The search and proof of the same templates: the chunked scatter of
    test_suggest_indirect.py, test_a_chunked_scatter_through_an_index_array_ties_no_length_to_the_launch.)"""
    kernel = compile_source(RUNS, "count_runs.py").kernel("count_runs").mir
    w = walker(kernel)
    fit = "vk.int64(vk.launch_dim()) * vk.int64(per_thread) <= vk.int64(2147483647)"
    texts = {}
    for spec in enumerate_obligations(kernel):
        if spec.kind is ObligationKind.BOUNDS:
            name = kernel.block(spec.site[0]).instrs[spec.site[1]].array.name
            texts.setdefault(name, []).append([a.text(kernel.launch_ndim) for a in candidates(kernel, spec, w)])
    assert len(texts["idx"]) == 2 and len(texts["out"]) == 2, texts
    for ranked in texts["idx"]:
        assert ranked[:2] == [fit, "per_thread > 0"] and "n <= idx.shape[0]" in ranked, ranked
        # a length tied to the launch, which such launches do not keep, comes after the count's
        assert all(ranked.index("n <= idx.shape[0]") < i for i, r in enumerate(ranked[2:], 2)
                   if "launch_dim" in r), ranked
    for ranked in texts["out"]:
        assert ranked[0] == "vk.all_in_range(idx, 0, out.shape[0])", ranked
    # 2**30: a launch whose chunks wrap in int32; 0: a count with which no chunk advances
    _check_run_length_launches(_load(RUNS_CONTRACT, tmp_path, "count_runs_contract").count_runs,
                               refused_counts=(2 ** 30, 0))
