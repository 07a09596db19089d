"""`verikern prove FILE -k NAME` and the re-proof of a suggestion compile only
the definitions named (verikern.app.kernel_names; a project file can hold a
hundred kernels): the others are not checked, so one that does not compile
costs nothing and is not reported, while the module's own errors still are."""
from __future__ import annotations

from verikern.app.kernel_names import definition_names
from verikern.app.prove import ProofOptions, prove_source
from verikern.frontend import compile_source
from verikern.proofs.obligations import KernelStatus

SOURCE = '''from typing import Any

import warp as wp


@wp.kernel
def good(x: wp.array(dtype=float)):
    i = wp.tid()
    if i < x.shape[0]:
        x[i] = 2.0 * x[i]


@wp.kernel
def broken(x: wp.array(dtype=float)):
    x[0] = not_defined_anywhere


@wp.kernel
def twice(keys: wp.array(dtype=Any), out: wp.array(dtype=float)):
    i = wp.tid()
    if i < keys.shape[0] and i < out.shape[0]:
        out[i] = float(keys[i])


wp.overload(twice, [wp.array(dtype=wp.int32), wp.array(dtype=float)])
wp.overload(twice, [wp.array(dtype=wp.float32), wp.array(dtype=float)])
'''


def test_the_definitions_of_instances_and_mir_names_are_kept():
    assert definition_names(None) is None
    def with_private(*names):          # a MIR name lost the definition's leading underscores
        return {lead + n for n in names for lead in ("", "_", "__")}
    assert definition_names({"twice[int32, float32]"}) == with_private("twice")
    assert definition_names({"twice__int32"}) == with_private("twice", "twice__int32")
    assert definition_names({"a__b__c"}) == with_private("a", "a__b", "a__b__c")


PRIVATE = '''from typing import Any

import warp as wp


@wp.kernel
def _scale_private(x: wp.array(dtype=Any), s: wp.array(dtype=Any)):
    i = wp.tid()
    x[i] = x[i] * s[i]


wp.overload(_scale_private, [wp.array(dtype=wp.float32), wp.array(dtype=wp.float32)])
wp.overload(_scale_private, [wp.array(dtype=wp.float64), wp.array(dtype=wp.float64)])
'''


def test_a_private_generic_kernels_suggestion_is_re_proved_on_the_pasted_source():
    # an instance's MIR name `scale_private__float32` has lost the leading underscore of
    # its definition `_scale_private`: the re-proof compiled no kernel, found none and
    # reported every such suggestion "not proved" (nvalchemi's kernels are all private)
    assert "_scale_private" in definition_names({"scale_private__float32"})
    instances = [r for r in prove_source(PRIVATE, "p.py", kernel="_scale_private[float32, float32]",
                                         options=ProofOptions(suggest=True)) if "..." not in r.kernel]
    assert [r.kernel for r in instances] == ["_scale_private[float32, float32]"]
    for r in instances:
        assert r.status is KernelStatus.FAILED
        assert set(r.suggested_requires) == {"vk.launch_dim() <= x.shape[0]", "vk.launch_dim() <= s.shape[0]"}
        assert r.proved_under_suggestion is True, r.kernel


def test_only_the_named_kernel_is_compiled_and_proved():
    everything = compile_source(SOURCE, "k.py")
    assert any(k.name == "broken" and k.error is not None for k in everything.kernels)
    only = compile_source(SOURCE, "k.py", kernels={"good"})
    assert [k.name for k in only.kernels] == ["good"] and only.kernels[0].error is None
    (report,) = prove_source(SOURCE, "k.py", kernel="good")
    assert (report.kernel, report.status) == ("good", KernelStatus.PROVED)
    # every instance of a generic kernel, by its name or one instance's
    instances = prove_source(SOURCE, "k.py", kernel="twice")
    assert len(instances) > 1 and all(r.status is KernelStatus.PROVED for r in instances)
    assert [k.name for k in compile_source(SOURCE, "k.py", kernels=definition_names(
        {instances[0].kernel})).kernels] == [r.kernel for r in instances]
    (bad,) = prove_source(SOURCE, "k.py", kernel="broken")
    assert bad.status is KernelStatus.ERROR and "not_defined_anywhere" in bad.error


def test_a_module_error_is_still_reported_with_a_kernel_named():
    text = SOURCE + "\nLIMIT = 3\nLIMIT = 4\n\n\n@wp.kernel\ndef uses(x: wp.array(dtype=float)):\n" \
        "    x[0] = float(LIMIT)\n"
    reports = prove_source(text, "k.py", kernel="uses")
    assert any(r.status is KernelStatus.ERROR for r in reports), [(r.kernel, r.status) for r in reports]
