"""A generic kernel with too many typings to enumerate (verikern/app/premise_suggestion.py):
its probed instances (every generic parameter at its vec3/float32 typing, and the float64 twin)
fail as written and are proved under their own contract, no type-oblivious proof covers it (a
constant component index), and the premise pinning every parameter to either precision admits
2**14 typings, more than verikern enumerates -- so the premise suggested is the joint one,
`(positions.dtype, w0.dtype, ...) in ((wp.vec3f, wp.float32, ...), (wp.vec3d, wp.float64, ...))`,
admitting the two typings only, both precisions, as projects register their overloads
(nvalchemiops' `register_overloads` with `(vec3f, float32)` and `(vec3d, float64)`); as
nvalchemiops' `_pme_multipole_corrections_backward_kernel` (14 generic parameters) is. When the
float64 typing has a bug no contract removes, the premise is one precision's typing alone,
float32 (candidates (b'), or (d) when the joint premise is not proved). With 5 generic
parameters (mixed precisions do not type-check, so the per-parameter premise would admit the
same two instances) the joint premise is suggested too: it names exactly the typings proved.
The references are independent: the pasted source compiled again and proved as written (every
instance), and a kernel with a bug no contract removes (a write one past the end, at every
precision) gets no typing premise. The float64 bug and the bug at every precision are written
on the 5-parameter kernel (too many typings to enumerate too, its probed instances the same
two and their premises tried the same way, at a third of the 14 parameters' cost: each
instance's own contract search covers every array)."""
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
F32 = "weigh_heights[vec3, " + ", ".join(["float32"] * 13) + "]"
F64 = "weigh_heights[vec3d, " + ", ".join(["float64"] * 13) + "]"
#: the 5-parameter kernel's weights and its two probed instances
_FEW = ["w0", "w1", "w2"]
_FEW_PARAMS = ["positions", *_FEW, "heights"]
F32_FEW = "weigh_heights[vec3, float32, float32, float32, float32]"
F64_FEW = "weigh_heights[vec3d, float64, float64, float64, float64]"
# out of bounds at every launch, every typing
PAST_THE_END = _kernel("heights[heights.shape[0]]", _FEW)


def _rows(*types_per_row: tuple[str, str]) -> str:
    return ", ".join("(" + ", ".join([pos] + [scalar] * 13) + ")" for pos, scalar in types_per_row)


def test_too_many_typings_get_the_joint_premise_of_both_precisions_and_the_pasted_kernel_is_proved():
    reports = {r.kernel: r for r in prove_source(WEIGH, "w.py", suggest=True)}
    assert set(reports) == {F32, F64, "weigh_heights[...]"}
    assert reports["weigh_heights[...]"].status is KernelStatus.UNKNOWN      # verdicts as written unchanged
    assert reports[F32].status is KernelStatus.FAILED and reports[F64].status is KernelStatus.FAILED
    r = reports[F32]
    assert r.proved_under_suggestion is True
    premise, *contract = r.suggested_decorators
    # the text the user pastes: the two typings, jointly, by Warp's own names
    assert premise == ("@vk.requires(lambda " + ", ".join(_PARAMS) + ": ("
                       + ", ".join(f"{p}.dtype" for p in _PARAMS) + ") in ("
                       + _rows(("wp.vec3f", "wp.float32"), ("wp.vec3d", "wp.float64")) + "))")
    assert contract and "vk.launch_dim() <= heights.shape[0]" in contract[0]
    assert all(reports[k].suggested_decorators == r.suggested_decorators for k in reports)
    # pasted as users are told to: the two instances, proved as written; no remainder, no mixed typing
    again = prove_source(pasted(WEIGH, suggestion_inserts(WEIGH, 6, list(r.suggested_decorators))),
                         "w.py", suggest=False)
    assert {a.kernel: a.status for a in again} == {F32: KernelStatus.PROVED, F64: KernelStatus.PROVED}


def test_a_float64_bug_no_contract_removes_leaves_the_float32_premise_alone():
    # `pick` is a func overloaded by precision (Warp picks one per argument type): 1 for float64,
    # so the float64 instance writes past the end at every launch (the 5-parameter kernel: its
    # premise is found the same way as the 14 parameters', by (b'), at a third of the cost)
    head, body = _kernel("heights[heights.shape[0] * pick(w0[0]) + i]", _FEW).split("@wp.kernel\n")
    source = (head + "@wp.func\ndef pick(x: wp.float32) -> int:\n    return 0\n\n\n"
              "@wp.func\ndef pick(x: wp.float64) -> int:\n    return 1\n\n\n@wp.kernel\n" + body)
    reports = {r.kernel: r for r in prove_source(source, "w.py", suggest=True)}
    assert set(reports) == {F32_FEW, F64_FEW, "weigh_heights[...]"}
    r = reports[F32_FEW]
    assert r.proved_under_suggestion is True
    premise = r.suggested_decorators[0]
    assert premise == ("@vk.requires(lambda " + ", ".join(_FEW_PARAMS) + ": positions.dtype == wp.vec3f and "
                       + " and ".join(f"{p}.dtype == wp.float32" for p in _FEW_PARAMS[1:]) + ")")
    assert "float64" not in " ".join(r.suggested_decorators)
    line = source.splitlines().index("@wp.kernel", 10) + 1
    again = prove_source(pasted(source, suggestion_inserts(source, line, list(r.suggested_decorators))),
                         "w.py", suggest=False)
    assert {a.kernel: a.status for a in again} == {F32_FEW: KernelStatus.PROVED}


def test_a_bug_at_every_precision_gets_no_typing_premise():
    reports = prove_source(PAST_THE_END, "w.py", suggest=True)
    assert {r.kernel for r in reports} == {F32_FEW, F64_FEW, "weigh_heights[...]"}
    assert all(r.status is not KernelStatus.PROVED for r in reports)
    for r in reports:
        assert not any(".dtype" in d for d in r.suggested_decorators), (r.kernel, r.suggested_decorators)
        assert r.proved_under_suggestion is not True, r.kernel


def test_five_parameters_get_the_joint_premise_of_both_precisions_too():
    source = _kernel("heights[i]", _FEW)
    reports = {r.kernel: r for r in prove_source(source, "w.py", suggest=True)}
    f32, f64 = F32_FEW, F64_FEW
    assert set(reports) == {f32, f64, "weigh_heights[...]"}
    assert reports["weigh_heights[...]"].status is KernelStatus.UNKNOWN      # verdicts as written unchanged
    assert reports[f32].status is KernelStatus.FAILED and reports[f64].status is KernelStatus.FAILED
    premise, *contract = reports[f32].suggested_decorators
    assert reports[f32].proved_under_suggestion is True
    assert contract and "vk.launch_dim() <= heights.shape[0]" in contract[0]
    assert all(reports[k].suggested_decorators == reports[f32].suggested_decorators for k in reports)
    assert premise == ("@vk.requires(lambda positions, w0, w1, w2, heights: "
                       "(positions.dtype, w0.dtype, w1.dtype, w2.dtype, heights.dtype) in ("
                       "(wp.vec3f, wp.float32, wp.float32, wp.float32, wp.float32), "
                       "(wp.vec3d, wp.float64, wp.float64, wp.float64, wp.float64)))")
    again = prove_source(pasted(source, suggestion_inserts(source, 6, list(reports[f32].suggested_decorators))),
                         "w.py", suggest=False)
    assert {a.kernel: a.status for a in again} == {f32: KernelStatus.PROVED, f64: KernelStatus.PROVED}
