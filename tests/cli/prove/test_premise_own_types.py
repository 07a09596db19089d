"""A typing premise for a generic kernel whose instances use a vector type with no Warp
name (nvalchemi's `vec9f = wp.types.vector(length=9, dtype=wp.float32)` in npt.py): the
premise names the module's own name of the type (premise_suggestion.file_type_names), so
it can be stated at all; before, no premise was suggested and the kernel stayed unknown.
What would claim too much, tested: a premise naming a type other than the one proved (a
name the file binds again), a type the file does not name, and a near miss the premise
cannot save."""
from __future__ import annotations

from verikern.app.premise_suggestion import file_type_names, premise_decorator
from verikern.app.prove import prove_source
from verikern.hir.types import F32, F64, ArrayType, VectorType
from verikern.proofs.obligations import KernelStatus
from verikern.proofs.reporting.paste import pasted, suggestion_inserts

ALIASES = ("vec9f = wp.types.vector(length=9, dtype=wp.float32)\n"
           "vec9d = wp.types.vector(length=9, dtype=wp.float64)\n")
KERNEL = ("@wp.kernel\n"
          "def pressure_trace(tensors: wp.array(dtype=Any), out: wp.array(dtype=Any)):\n"
          "    i = wp.tid()\n"
          "    if i < tensors.shape[0] and i < out.shape[0]:\n"
          "        P = tensors[i]\n"
          "        out[i] = P[0] + P[4] + P[8]\n\n\n")
OVERLOADS = ("for _v, _t in zip([{}], [wp.float32, wp.float64]):\n"
             "    wp.overload(pressure_trace, [wp.array(dtype=_v), wp.array(dtype=_t)])\n")
HEAD = "from typing import Any\n\nimport warp as wp\n\n"
SOURCE = HEAD + ALIASES + "\n\n" + KERNEL + OVERLOADS.format("vec9f, vec9d")
PREMISE = ("@vk.requires(lambda tensors, out: (tensors.dtype, out.dtype) in "
           "((vec9f, wp.float32), (vec9d, wp.float64)))")


def _kernel_line(source: str) -> int:
    return source.splitlines().index("@wp.kernel") + 1


def test_the_premise_names_the_modules_own_vec9_and_the_pasted_kernel_is_proved(tmp_path):
    reports = {r.kernel: r for r in prove_source(SOURCE, "npt_like.py", suggest=True)}
    more = reports["pressure_trace[...]"]
    assert more.status is KernelStatus.UNKNOWN          # as written: P[8] of a vec3 is past it
    assert more.suggested_decorators == (PREMISE,) and more.proved_under_suggestion is True
    # pasted as users are told to: instances only, each proved by the solver
    text = pasted(SOURCE, suggestion_inserts(SOURCE, _kernel_line(SOURCE), [PREMISE]))
    again = prove_source(text, "npt_like.py", suggest=False)
    assert {r.kernel: r.status for r in again} == {
        "pressure_trace[vec9f, float32]": KernelStatus.PROVED,
        "pressure_trace[vec9d, float64]": KernelStatus.PROVED}


def test_a_name_bound_again_or_not_bound_at_all_spells_no_premise():
    # `vec9f` bound a second time (to an 8-vector) is no name of the proved type: no premise
    rebound = HEAD + ALIASES + "vec9f = wp.types.vector(length=8, dtype=wp.float32)\n"
    named = file_type_names(rebound, "t.py")
    assert "vec9f" not in named.values() and named[VectorType("vec9d", 9, F64)] == "vec9d"
    typing = {"tensors": ArrayType(VectorType("vec9f", 9, F32), 1), "out": ArrayType(F32, 1)}
    assert premise_decorator([typing], "wp", named) is None
    # a type the file only writes inline (in the overloads) has no name to state it with
    assert premise_decorator([typing], "wp", file_type_names(HEAD, "t.py")) is None
    assert premise_decorator([typing], "wp", file_type_names(SOURCE, "t.py"))[0] == (
        "tensors.dtype == vec9f and out.dtype == wp.float32")


def test_an_inline_vec9_kernel_stays_unknown_and_claims_no_premise():
    inline = HEAD + "\n" + KERNEL + OVERLOADS.format(
        "wp.types.vector(length=9, dtype=wp.float32), wp.types.vector(length=9, dtype=wp.float64)")
    reports = prove_source(inline, "t.py", suggest=True)
    more = next(r for r in reports if r.kernel == "pressure_trace[...]")
    assert more.status is KernelStatus.UNKNOWN and not more.proved_under_suggestion


def test_a_near_miss_gets_no_premise_that_proves_it():
    # every vec9 instance's thread 0 reads tensors[tensors.shape[0]], one past the end
    # whatever the launch: no typing premise (with or without the instances' contracts) may be
    # claimed to prove it
    near = SOURCE.replace("P = tensors[i]", "P = tensors[tensors.shape[0] - i]")
    reports = prove_source(near, "npt_like.py", suggest=True)
    assert any(r.status is KernelStatus.FAILED for r in reports)
    assert not any(r.proved_under_suggestion for r in reports), [
        (r.kernel, r.suggested_decorators) for r in reports]
