"""Suggested contracts for per-system values written by each system's first
atom (nvalchemi's `is_first_atom_of_system`: `s = batch_idx[i]`, written only
where `i == 0 or batch_idx[i - 1] != s`). Callers build `batch_idx` sorted, one
run per system, with several atoms per system: the suggestion must be
`vk.all_sorted(batch_idx)` and `vk.all_in_range(batch_idx, 0, energy.shape[0])`
-- not `vk.all_distinct(batch_idx)` (one atom per system) nor
`energy.shape[0] == vk.launch_dim()` (as many systems as atoms), which remove
the failures only by refusing the launches real code makes. Each suggestion is
re-proved on the pasted source and runs the project's launch on the simulator
against numpy; kernels with a bug (a guard that lets every atom through, a
per-system value every atom reads while the first writes it, an id one past)
get no proved contract that admits the launch showing it."""
from __future__ import annotations

import numpy as np
import pytest

import verikern as vk
from verikern.app.prove import prove_source
from verikern.errors import ContractError, OutOfBoundsError
from verikern.frontend import compile_source
from verikern.proofs.deciding.contract_templates import candidates, walker
from verikern.proofs.obligations import KernelStatus, ObligationKind, enumerate_obligations
from verikern.trace import find_races, load_trace

from shared_helpers import ROOT, load_text, pasted_proved_and_loaded, search_of_failed

FIRST = '''import warp as wp


@wp.kernel
def first_atom_energy(batch_idx: wp.array(dtype=wp.int32), atom_energy: wp.array(dtype=wp.float32),
                      energy: wp.array(dtype=wp.float32)):
    i = wp.tid()
    s = batch_idx[i]
    if i == 0 or batch_idx[i - 1] != s:
        energy[s] = atom_energy[i]
'''

#: the project's launch: three systems of 2, 3 and 1 atoms
IDS = np.array([0, 0, 1, 1, 1, 2], dtype=np.int32)


def _inputs():
    return [IDS.copy(), np.arange(1.0, 7.0, dtype=np.float32), np.zeros(3, dtype=np.float32)]


def test_a_segments_first_atom_writing_gets_sorted_ids_in_range(tmp_path):
    report = search_of_failed(FIRST, "first_atom_energy.py")
    assert "vk.all_sorted(batch_idx)" in report.suggested_requires
    assert "vk.all_in_range(batch_idx, 0, energy.shape[0])" in report.suggested_requires
    # neither refuses the launch above: one atom per system, as many systems as atoms
    assert "vk.all_distinct(batch_idx)" not in report.suggested_requires
    assert not any(r.startswith("energy.shape[0]") for r in report.suggested_requires), report.suggested_requires
    assert report.proved_under_suggestion is True
    page = (ROOT / "docs/examples/project_contracts.md").read_text(encoding="utf-8")
    assert all(line in page for line in report.suggested_decorators), report.suggested_decorators
    module = pasted_proved_and_loaded(report, FIRST, tmp_path, "first_atom_energy_pasted")
    assert not _races_on_energy(module.first_atom_energy, tmp_path)
    inputs = _inputs()
    vk.check_launch(module.first_atom_energy, 6, inputs)
    vk.launch(module.first_atom_energy, 6, inputs=inputs, device="cpu")
    firsts = np.flatnonzero(np.r_[True, IDS[1:] != IDS[:-1]])
    np.testing.assert_array_equal(inputs[2], inputs[1][firsts])


def _races_on_energy(kernel, tmp_path) -> bool:
    """The project's launch, traced on the simulator, has a race on `energy`."""
    path = tmp_path / "launch.trace.json"
    vk.launch(kernel, 6, inputs=_inputs(), block_dim=2, device="cpu:trace", trace_path=str(path))
    return any(r.array == "energy" for r in find_races(load_trace(path)))


def _refused_if_proved(source: str, tmp_path, error=None) -> None:
    """The project's launch shows the bug on the simulator (raises `error`, else
    races on `energy`); a suggestion claimed proved must refuse that launch. The claim is
    the search's (`search_of_failed`): the application claims a proof only where the search does,
    after re-proving the pasted source, which the test does itself here
    (`pasted_proved_and_loaded`, asserting it proved)."""
    plain = load_text(source, tmp_path, "first_atom_energy_plain")
    if error is None:
        assert _races_on_energy(plain.first_atom_energy, tmp_path)
    else:
        with pytest.raises(error):
            vk.launch(plain.first_atom_energy, 6, inputs=_inputs(), device="cpu")
    report = search_of_failed(source, "first_atom_energy.py")
    if report.proved_under_suggestion:
        module = pasted_proved_and_loaded(report, source, tmp_path, "first_atom_energy_pasted_bad")
        with pytest.raises(ContractError):
            vk.check_launch(module.first_atom_energy, 6, _inputs())


def test_a_guard_letting_every_atom_through_gets_no_contract_admitting_sorted_runs(tmp_path):
    bad = FIRST.replace("batch_idx[i - 1] != s", "batch_idx[i - 1] <= s")
    _refused_if_proved(bad, tmp_path)


def test_a_value_every_atom_reads_while_the_first_writes_stays_a_race_under_sorted_ids(tmp_path):
    """FIRE's per-system updates read dt[s] in every atom and write it in the first:
    unordered across blocks whatever the ids (a real race of the project's kernels)."""
    bad = FIRST.replace("    s = batch_idx[i]\n", "    s = batch_idx[i]\n    e = energy[s]\n") \
        .replace("energy[s] = atom_energy[i]", "energy[s] = e + atom_energy[i]")
    _refused_if_proved(bad, tmp_path)


def test_an_id_one_past_gets_no_contract_admitting_the_bad_launch(tmp_path):
    bad = FIRST.replace("energy[s] = atom_energy[i]", "energy[s + 1] = atom_energy[i]")
    _refused_if_proved(bad, tmp_path, OutOfBoundsError)


UPHILL = '''import warp as wp


@wp.kernel
def uphill_check(energy: wp.array(dtype=wp.float32), energy_last: wp.array(dtype=wp.float32),
                 batch_idx: wp.array(dtype=wp.int32), uphill_flag: wp.array(dtype=wp.int32)):
    i = wp.tid()
    s = batch_idx[i]
    is_uphill = energy[s] > energy_last[s]
    if i == 0 or batch_idx[i - 1] != s:
        if is_uphill:
            uphill_flag[s] = 1
            energy[s] = energy_last[s]
        else:
            uphill_flag[s] = 0
            energy_last[s] = energy[s]
'''


def test_per_system_arrays_under_the_first_atom_guard_get_the_ids_range_not_the_launch():
    """nvalchemi's `_fire_uphill_check_kernel`: the accesses under the guard read the
    thread id through it, but their index is an id, which no launch relation bounds:
    each per-system array gets `all_in_range(batch_idx, ...)`, not a length equal to
    the launch (as many systems as atoms, which no caller launches). Every atom reads
    energy[s] while the first writes it, so under sorted ids the race stays: only
    `all_distinct` removes it (a benign race of the project: the value read is unused)."""
    (report,) = prove_source(UPHILL, "uphill_check.py", suggest=True)
    assert report.status is KernelStatus.FAILED
    for name in ("energy", "energy_last", "uphill_flag"):
        assert f"vk.all_in_range(batch_idx, 0, {name}.shape[0])" in report.suggested_requires
        assert f"{name}.shape[0] == vk.launch_dim()" not in report.suggested_requires
    assert "vk.all_sorted(batch_idx)" not in report.suggested_requires
    assert report.proved_under_suggestion is True


def test_per_system_arrays_under_the_first_atom_guard_rank_the_ids_range_first():
    """`_fire_uphill_check_kernel` (UPHILL) at the template layer (contract_templates.candidates),
    without the search and proofs of
    test_per_system_arrays_under_the_first_atom_guard_get_the_ids_range_not_the_launch: every
    access of a per-system array, under the first-atom guard or not, ranks the ids' range
    `vk.all_in_range(batch_idx, 0, X.shape[0])` first and any length equal to the launch after
    it, and every race among them has `vk.all_sorted(batch_idx)` and `vk.all_distinct(batch_idx)`.
    Which of them proves the race is the search's: the same race (every atom reads a per-system
    value the first writes) is searched by
    test_a_value_every_atom_reads_while_the_first_writes_stays_a_race_under_sorted_ids."""
    kernel = compile_source(UPHILL, "uphill_check.py").kernel("uphill_check").mir
    w = walker(kernel)
    seen: dict[tuple, int] = {}
    for spec in enumerate_obligations(kernel):
        name = kernel.block(spec.site[0]).instrs[spec.site[1]].array.name
        texts = [a.text(kernel.launch_ndim) for a in candidates(kernel, spec, w)]
        seen[(spec.kind, name)] = seen.get((spec.kind, name), 0) + 1
        if spec.kind is ObligationKind.RACE:
            assert {"vk.all_sorted(batch_idx)", "vk.all_distinct(batch_idx)"} <= set(texts), (spec, texts)
        elif name != "batch_idx":
            assert texts[0] == f"vk.all_in_range(batch_idx, 0, {name}.shape[0])", (spec, texts)
    # every per-system array is read or written at several sites, and races
    for name in ("energy", "energy_last", "uphill_flag"):
        assert seen[(ObligationKind.BOUNDS, name)] >= 2 and seen[(ObligationKind.RACE, name)] >= 1, seen
