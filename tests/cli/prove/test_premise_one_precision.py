"""A generic kernel with too many typings to enumerate (verikern/app/premise_suggestion.py,
candidates (d)): its probed instances (every generic parameter at its vec3/float32 typing, and
the float64 twin) fail as written and are proved under their own contract, no type-oblivious
proof covers it (a constant component index), and the premise pinning every parameter to
either precision admits 2**14 typings, more than verikern enumerates -- so the premise suggested
is one precision's typing alone, the first that is proved: float32. As nvalchemiops'
`_pme_multipole_corrections_backward_kernel` (14 generic parameters) is. With 5 generic
parameters the per-parameter premise admits exactly the two typings (mixed precisions do not
type-check) and is suggested as before: both precisions. The references are independent: the
pasted source compiled again and proved as written (every instance), and a kernel with a bug
no contract removes (a write one past the end, at every precision) gets no typing premise."""
from __future__ import annotations

from verikern.app.prove import prove_source
from verikern.proofs.obligations import KernelStatus
from verikern.proofs.reporting.paste import pasted, suggestion_inserts

_WEIGHTS = [f"w{j}" for j in range(12)]
_PARAMS = ["positions", *_WEIGHTS, "heights"]


def _kernel(write: str, weights: list[str] = _WEIGHTS) -> str:
    params = ["positions", *weights, "heights"]
    return (
        "from typing import Any\n\nimport warp as wp\n\n\n@wp.kernel\n"
        "def weigh_heights(" + ", ".join(f"{p}: wp.array(dtype=Any)" for p in params) + "):\n"
        "    i = wp.tid()\n"
        f"    {write} = positions[i][2] * w0[0] * wp.sqrt("
        + " + ".join(f"{w}[i]" for w in weights[1:]) + ")\n")


WEIGH = _kernel("heights[i]")
PAST_THE_END = _kernel("heights[heights.shape[0]]")     # out of bounds at every launch, every typing
F32 = "weigh_heights[vec3, " + ", ".join(["float32"] * 13) + "]"
F64 = "weigh_heights[vec3d, " + ", ".join(["float64"] * 13) + "]"


def test_too_many_typings_get_the_float32_premise_and_the_pasted_kernel_is_proved():
    reports = {r.kernel: r for r in prove_source(WEIGH, "w.py", suggest=True)}
    assert set(reports) == {F32, F64, "weigh_heights[...]"}
    assert reports["weigh_heights[...]"].status is KernelStatus.UNKNOWN      # verdicts as written unchanged
    assert reports[F32].status is KernelStatus.FAILED and reports[F64].status is KernelStatus.FAILED
    r = reports[F32]
    assert r.proved_under_suggestion is True
    premise, *contract = r.suggested_decorators
    # the text the user pastes: one precision, every generic parameter pinned by Warp's own names
    assert premise == ("@vk.requires(lambda " + ", ".join(_PARAMS) + ": positions.dtype == wp.vec3f and "
                       + " and ".join(f"{p}.dtype == wp.float32" for p in _PARAMS[1:]) + ")")
    assert contract and "vk.launch_dim() <= heights.shape[0]" in contract[0]
    assert all(reports[k].suggested_decorators == r.suggested_decorators for k in reports)
    # pasted as users are told to: one instance, the float32 one, proved as written; no remainder
    again = prove_source(pasted(WEIGH, suggestion_inserts(WEIGH, 6, list(r.suggested_decorators))),
                         "w.py", suggest=False)
    assert {a.kernel: a.status for a in again} == {F32: KernelStatus.PROVED}


def test_a_bug_at_every_precision_gets_no_typing_premise():
    reports = prove_source(PAST_THE_END, "w.py", suggest=True)
    assert {r.kernel for r in reports} == {F32, F64, "weigh_heights[...]"}
    assert all(r.status is not KernelStatus.PROVED for r in reports)
    for r in reports:
        assert not any(".dtype" in d for d in r.suggested_decorators), (r.kernel, r.suggested_decorators)
        assert r.proved_under_suggestion is not True, r.kernel


def test_a_joint_premise_admitting_exactly_its_typings_is_still_suggested_for_both_precisions():
    few = ["w0", "w1", "w2"]
    source = _kernel("heights[i]", few)
    reports = {r.kernel: r for r in prove_source(source, "w.py", suggest=True)}
    f32, f64 = "weigh_heights[vec3, float32, float32, float32, float32]", \
        "weigh_heights[vec3d, float64, float64, float64, float64]"
    assert set(reports) == {f32, f64, "weigh_heights[...]"}
    premise = reports[f32].suggested_decorators[0]
    assert reports[f32].proved_under_suggestion is True
    assert premise == ("@vk.requires(lambda positions, w0, w1, w2, heights: "
                       "positions.dtype in (wp.vec3f, wp.vec3d) and "
                       + " and ".join(f"{p}.dtype in (wp.float32, wp.float64)" for p in [*few, "heights"]) + ")")
    again = prove_source(pasted(source, suggestion_inserts(source, 6, list(reports[f32].suggested_decorators))),
                         "w.py", suggest=False)
    assert {a.kernel: a.status for a in again} == {f32: KernelStatus.PROVED, f64: KernelStatus.PROVED}
