"""A variable first assigned under a condition (or in a loop body) and read
after it: Warp 1.19 builds the kernel (nvalchemi's dsf.py reads
`virial_acc`, assigned under `if compute_virial:`, later under the same
test), and so does verikern, with an `unassigned` obligation at each such
read (check/assigned_reads.py). Real Warp on its CPU device is the reference
where every read follows an assignment; where one does not, Warp reads an
indeterminate value and verikern's proof fails, with a counterexample the
simulator replays (UnassignedReadError at the read)."""
from __future__ import annotations

import numpy as np
import pytest

import verikern as vk
from verikern.app.prove import prove_source
from verikern.errors import UnassignedReadError
from verikern.frontend import compile_source
from verikern.proofs.obligations import ObligationKind, Status
from warp_compat.compat_util import warp_module_from_text

wp = pytest.importorskip("warp", reason="NVIDIA Warp is not installed (pip install warp-lang)")

SOURCE = '''import warp as wp


@wp.kernel
def virial(x: wp.array(dtype=wp.vec3), compute_virial: bool, scale: float,
           energy: wp.array(dtype=float), out: wp.array(dtype=wp.mat33)):
    i = wp.tid()
    if compute_virial:
        acc = wp.mat33()
        if scale > 0.0:
            s = scale
        else:
            s = -scale
    e = float(0.0)
    for j in range(x.shape[0]):
        d = x[j] - x[i]
        e += wp.dot(d, d)
        if compute_virial:
            acc += wp.outer(d, x[j]) * s
    energy[i] = e
    if compute_virial and s >= 0.0:
        out[i] = acc


@wp.kernel
def last_positive(x: wp.array(dtype=float), out: wp.array(dtype=float), found: wp.array(dtype=int)):
    i = wp.tid()
    hit = int(0)
    for j in range(x.shape[0]):
        if x[j] > 0.0:
            v = x[j] * float(i + 1)
            hit = 1
    found[i] = hit
    if hit == 1:
        out[i] = v
'''


@pytest.mark.parametrize("compute_virial", [True, False])
def test_a_variable_assigned_under_a_flag_runs_as_under_warp(warp_cpu, tmp_path, compute_virial):
    module = warp_module_from_text(tmp_path, SOURCE, f"verikern_assigned_reads_{compute_virial}")
    ours = compile_source(SOURCE, "assigned_reads.py")
    assert not ours.all_errors, [e.render() for e in ours.all_errors]
    rng = np.random.default_rng(5)
    x = rng.uniform(-2, 2, (6, 3)).astype(np.float32)
    for scale in (0.5, -1.5):
        energy, out = np.zeros(6, np.float32), np.full((6, 3, 3), 7.0, np.float32)
        vk.launch(ours.kernel("virial").mir, 6, [x, compute_virial, scale, energy, out])
        w_energy = wp.zeros(6, dtype=float, device="cpu")
        w_out = wp.array(np.full((6, 3, 3), 7.0, np.float32), dtype=wp.mat33, device="cpu")
        wp.launch(module.virial, dim=6, device="cpu", inputs=[
            wp.array(x, dtype=wp.vec3, device="cpu"), compute_virial, scale, w_energy, w_out])
        np.testing.assert_allclose(energy, w_energy.numpy(), rtol=1e-6)
        np.testing.assert_allclose(out, w_out.numpy(), rtol=1e-5, atol=1e-6)
        if not compute_virial:
            assert (out == 7.0).all()          # nothing read, nothing stored


def test_a_variable_assigned_in_a_loop_and_read_under_its_witness_runs_as_under_warp(warp_cpu, tmp_path):
    module = warp_module_from_text(tmp_path, SOURCE, "verikern_assigned_reads_loop")
    ours = compile_source(SOURCE, "assigned_reads.py")
    for x in (np.array([-1.0, 2.0, -3.0, 4.0, -5.0], np.float32), np.full(5, -1.0, np.float32)):
        out, found = np.full(3, 9.0, np.float32), np.zeros(3, np.int32)
        vk.launch(ours.kernel("last_positive").mir, 3, [x, out, found], device="cpu")
        w_out, w_found = wp.array(np.full(3, 9.0, np.float32), device="cpu"), wp.zeros(3, dtype=int, device="cpu")
        wp.launch(module.last_positive, dim=3, device="cpu", inputs=[wp.array(x, device="cpu"), w_out, w_found])
        np.testing.assert_array_equal(out, w_out.numpy())
        np.testing.assert_array_equal(found, w_found.numpy())


def test_reads_under_the_assigning_condition_are_proved():
    report, = prove_source(SOURCE, "assigned_reads.py", kernel="virial", suggest=False)
    checks = [o for o in report.obligations if o.kind is ObligationKind.UNASSIGNED]
    # `acc +=` in the loop, and at the store `s` (right of `and`) and `acc`
    assert sorted((o.loc.line, o.loc.col) for o in checks) == [(19, 13), (19, 40), (21, 27), (22, 18)]
    assert all(o.status is Status.PROVED for o in checks), [o.message for o in checks]


def test_a_read_after_a_loop_carried_witness_is_proved():
    """`hit == 1` holds only after the assignment in the loop: Houdini's
    `witness` invariant (`hit == initial or v's flag`, proofs/deciding/invariants.py)
    carries that fact past the loop, so the correct kernel's read is proved
    (near misses that must still fail: tests/proofs/test_loop_witness_flags.py)."""
    report, = prove_source(SOURCE, "assigned_reads.py", kernel="last_positive", suggest=False)
    checks = [o for o in report.obligations if o.kind is ObligationKind.UNASSIGNED]
    assert len(checks) == 1
    assert checks[0].status is Status.PROVED, checks[0].message


NEAR_MISS = SOURCE.replace("    if compute_virial and s >= 0.0:\n        out[i] = acc\n",
                           "    if s >= 0.0:\n        out[i] = acc\n")


def test_a_read_outside_the_assigning_condition_fails_and_the_simulator_confirms_it():
    assert NEAR_MISS != SOURCE
    report, = prove_source(NEAR_MISS, "assigned_reads.py", kernel="virial", suggest=False)
    failed = [o for o in report.obligations if o.status is Status.FAILED]
    assert {o.kind for o in failed} >= {ObligationKind.UNASSIGNED}
    bad = [o for o in failed if o.kind is ObligationKind.UNASSIGNED]
    assert {(o.loc.line, o.loc.col) for o in bad} == {(21, 8)}         # `s` in `if s >= 0.0`
    assert bad[0].counterexample.scalars["compute_virial"] is False and bad[0].confirmed, bad[0].message
    # the simulator flags the read on its own, with the variable's name
    k = compile_source(NEAR_MISS, "assigned_reads.py").kernel("virial").mir
    with pytest.raises(UnassignedReadError, match="variable 's' is read before it is assigned") as info:
        vk.launch(k, 2, [np.zeros((2, 3), np.float32), False, 1.0, np.zeros(2, np.float32),
                         np.zeros((2, 3, 3), np.float32)])
    assert (info.value.loc.line, info.value.loc.col) == (21, 8)


def test_warp_reads_a_vector_never_assigned_as_zero_and_verikern_still_fails_the_read(warp_cpu, tmp_path):
    """The fact docs/LANGUAGE.md states: Warp declares the variable at the top
    of the C++ function, so a vector read where no path assigned it is zero
    (a scalar's value is indeterminate). verikern treats both as Python does:
    the read fails."""
    text = ('import warp as wp\n\n\n@wp.kernel\ndef k(flag: int, out: wp.array(dtype=wp.vec3)):\n'
            '    i = wp.tid()\n    if flag > 0:\n        w = wp.vec3(1.0, 2.0, 3.0)\n    out[i] = w\n')
    module = warp_module_from_text(tmp_path, text, "verikern_assigned_reads_vector")
    w_out = wp.array(np.full((2, 3), 7.0, np.float32), dtype=wp.vec3, device="cpu")
    wp.launch(module.k, dim=2, device="cpu", inputs=[0, w_out])
    assert (w_out.numpy() == 0.0).all()
    report, = prove_source(text, "k.py", suggest=False)
    bad = [o for o in report.obligations if o.kind is ObligationKind.UNASSIGNED]
    assert [o.status for o in bad] == [Status.FAILED] and bad[0].confirmed
