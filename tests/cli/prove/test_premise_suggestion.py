"""The typing premise suggested for a generic kernel that is not proved
(verikern/app/premise_suggestion.py): built from its declared overloads,
else from its proved instances; suggested only when the pasted kernel has
no remainder and every instance is proved; never a premise that admits an
instance that fails or does not compile."""
from __future__ import annotations

import functools
from pathlib import Path

from verikern.app.prove import prove_source
from verikern.proofs.obligations import KernelStatus
from verikern.proofs.reporting.paste import pasted, suggestion_inserts

HEAD = "from typing import Any\n\nimport warp as wp\n\n\n"
CENTRE = HEAD + ("@wp.kernel\n"
                 "def centre(positions: wp.array(dtype=Any), out: wp.array(dtype=Any)):\n"
                 "    i = wp.tid()\n"
                 "    if i < positions.shape[0] and i < out.shape[0]:\n"
                 "        p = positions[i]\n"
                 "        out[i] = p[0] + p[1] + p[2]\n\n\n")
OVERLOADS = ("for _v, _t in zip([{}], [{}]):\n"
             "    wp.overload(centre, [wp.array(dtype=_v), wp.array(dtype=_t)])\n")
CORPUS = Path(__file__).resolve().parents[2] / "corpus"
#: the vec3f instance reads positions[i + 1]: it fails as written and is proved under its own
#: suggested requires beside the premise
NEAR = CENTRE.replace("p[0] + p[1] + p[2]", "p[0] + p[1] + p[2] + type(p[0])(positions[i + 1][0])") \
    + OVERLOADS.format("wp.vec3f", "wp.float32")


def _by_name(reports):
    return {r.kernel: r for r in reports}


def _count_premise_re_proofs(monkeypatch) -> list[str]:
    """The MIR names the typing-premise search proves again (app.premise_suggestion's
    prove_mir), appended as it calls it."""
    from verikern.app import premise_suggestion

    calls: list[str] = []
    real = premise_suggestion.prove_mir

    def counting(*args, **kwargs):
        calls.append(args[0].name)
        return real(*args, **kwargs)

    monkeypatch.setattr(premise_suggestion, "prove_mir", counting)
    return calls


@functools.lru_cache(maxsize=None)
def _near_proved():
    """NEAR proved with suggestions, and the MIR names the typing-premise search proved again
    meanwhile (as `_count_premise_re_proofs` counts them): the same proof for the two tests
    that read it, made once (a tuple of frozen reports, which they only read)."""
    from verikern.app import premise_suggestion

    calls: list[str] = []
    real = premise_suggestion.prove_mir

    def counting(*args, **kwargs):
        calls.append(args[0].name)
        return real(*args, **kwargs)

    premise_suggestion.prove_mir = counting
    try:
        reports = tuple(prove_source(NEAR, "t.py", suggest=True))
    finally:
        premise_suggestion.prove_mir = real
    return reports, tuple(calls)


def test_the_declared_overloads_become_the_premise_and_the_pasted_kernel_is_proved():
    src = CENTRE + OVERLOADS.format("wp.vec3f, wp.vec3d", "wp.float32, wp.float64")
    reports = _by_name(prove_source(src, "t.py", suggest=True))
    more = reports["centre[...]"]
    assert more.status is KernelStatus.UNKNOWN          # the verdict as written is unchanged
    # the typings declared pairwise: the joint premise of exactly those (not vec3f with float64)
    decorator = ("@vk.requires(lambda positions, out: (positions.dtype, out.dtype) in "
                 "((wp.vec3f, wp.float32), (wp.vec3d, wp.float64)))")
    assert more.suggested_decorators == (decorator,) and more.proved_under_suggestion is True
    assert "proved under the suggested typing premise" in more.error
    # pasted as users are told to: instances only, every one proved
    again = prove_source(pasted(src, suggestion_inserts(src, 7, [decorator])), "t.py", suggest=False)
    assert {r.kernel: r.status for r in again} == {
        "centre[vec3, float32]": KernelStatus.PROVED, "centre[vec3d, float64]": KernelStatus.PROVED}


def test_a_declared_overload_that_does_not_compile_is_left_out_of_the_premise():
    # vec2f is declared too: its instance reads p[2] past the vector (an error instance), so the
    # declared premise is not proved; the proved instances' premise (vec3f) is
    src = CENTRE + OVERLOADS.format("wp.vec2f, wp.vec3f", "wp.float32, wp.float32")
    reports = _by_name(prove_source(src, "t.py", suggest=True))
    assert reports["centre[vec3, float32]"].status is KernelStatus.PROVED
    assert any(r.status is not KernelStatus.PROVED for r in reports.values())
    for r in reports.values():
        if r.status is not KernelStatus.PROVED:
            assert r.suggested_decorators == (
                "@vk.requires(lambda positions, out: positions.dtype == wp.vec3f and out.dtype == wp.float32)",)
            assert r.proved_under_suggestion is True


def test_the_premise_comes_with_the_contract_its_instances_were_proved_under():
    # NEAR's vec3f instance reads positions[i + 1]: it fails as written and is proved under its
    # own suggested requires; the premise alone proves nothing, the premise with that requires does
    reports = _by_name(_near_proved()[0])
    inst = reports["centre[vec3, float32]"]
    assert inst.status is KernelStatus.FAILED
    premise = "@vk.requires(lambda positions, out: positions.dtype == wp.vec3f and out.dtype == wp.float32)"
    assert inst.suggested_decorators[0] == premise and len(inst.suggested_decorators) == 2
    assert inst.proved_under_suggestion is True
    assert reports["centre[...]"].suggested_decorators == inst.suggested_decorators
    again = prove_source(pasted(NEAR, suggestion_inserts(NEAR, 7, list(inst.suggested_decorators))), "t.py",
                         suggest=False)
    assert [r.status for r in again] == [KernelStatus.PROVED]


def test_a_failing_integer_instance_is_proved_under_the_declared_int32_premise():
    path = CORPUS / "bounds_generic_int8_instance_wraps.py"
    reports = _by_name(prove_source(path.read_text(), str(path), suggest=True))
    int8 = reports["gather_doubled[int8]"]
    assert int8.status is KernelStatus.FAILED       # still failed as written
    assert int8.suggested_decorators == ("@vk.requires(lambda keys: keys.dtype == wp.int32)",)
    assert int8.proved_under_suggestion is True


def test_a_kernel_with_only_its_remainder_gets_the_vec3_premise_it_found_and_its_float64_twin():
    # no overload, no scalar instance (p[0] needs an indexable element): the vec3 typing the
    # enumeration found and its float64 twin (check/generic_probed.py) beside `centre[...]`;
    # the premise admits vec3f and vec3d, each proved once pasted
    src = CENTRE.replace("out: wp.array(dtype=Any)", "out: wp.array(dtype=float)").replace(
        "out[i] = p[0] + p[1] + p[2]", "out[i] = float(p[0] + p[1] + p[2])")
    reports = _by_name(prove_source(src, "t.py", suggest=True))
    assert set(reports) == {"centre[vec3]", "centre[vec3d]", "centre[...]"}
    assert reports["centre[vec3]"].status is reports["centre[vec3d]"].status is KernelStatus.PROVED
    more = reports["centre[...]"]
    assert more.status is KernelStatus.UNKNOWN
    decorator = "@vk.requires(lambda positions: positions.dtype in (wp.vec3f, wp.vec3d))"
    assert more.suggested_decorators == (decorator,) and more.proved_under_suggestion is True
    again = prove_source(pasted(src, suggestion_inserts(src, 7, [decorator])), "t.py", suggest=False)
    assert {r.kernel: r.status for r in again} == {
        "centre[vec3]": KernelStatus.PROVED, "centre[vec3d]": KernelStatus.PROVED}


def test_a_remainder_whose_vec3_instance_fails_gets_the_premise_only_with_the_instances_contract():
    # positions[i + 1] is read one element past the guard: every vec3 instance fails as written,
    # so the premise alone proves nothing; the instances' own suggested contract (found now that
    # the vec3 typings are instances) beside it does, and pasted with both every instance is proved
    src = CENTRE.replace("out: wp.array(dtype=Any)", "out: wp.array(dtype=float)").replace(
        "        p = positions[i]\n", "        p = positions[i + 1]\n").replace(
        "out[i] = p[0] + p[1] + p[2]", "out[i] = float(p[0] + p[1] + p[2])")
    reports = _by_name(prove_source(src, "t.py", suggest=True))
    assert reports["centre[vec3]"].status is KernelStatus.FAILED
    more = reports["centre[...]"]
    premise = "@vk.requires(lambda positions: positions.dtype in (wp.vec3f, wp.vec3d))"
    # (the guard's `i < out.shape[0]` bounds i + 1 by out's length: the contract relates them)
    contract = "@vk.requires(lambda positions, out: out.shape[0] < positions.shape[0])"
    assert more.status is KernelStatus.UNKNOWN and more.suggested_decorators == (premise, contract)
    alone = _by_name(prove_source(pasted(src, suggestion_inserts(src, 7, [premise])), "t.py", suggest=False))
    assert {r.status for r in alone.values()} == {KernelStatus.FAILED}      # the near miss still fails
    both = prove_source(pasted(src, suggestion_inserts(src, 7, [premise, contract])), "t.py", suggest=False)
    assert {r.kernel: r.status for r in both} == {
        "centre[vec3]": KernelStatus.PROVED, "centre[vec3d]": KernelStatus.PROVED}


def test_no_instance_with_a_confirmed_bug_is_proved_again_under_a_premise(monkeypatch):
    # both declared instances read positions[i - 1] at thread 0, a bug replay confirms and no
    # contract removes: a premise admitting them pastes the same MIR, which has the same bug
    # on the same launch, so the search proves nothing again (each re-proof cost a kernel's work)

    calls = _count_premise_re_proofs(monkeypatch)
    src = CENTRE.replace("p = positions[i]", "p = positions[i - 1]")
    src += OVERLOADS.format("wp.vec3f, wp.vec3d", "wp.float32, wp.float64")
    reports = _by_name(prove_source(src, "t.py", suggest=True))
    for name in ("centre[vec3, float32]", "centre[vec3d, float64]"):
        r = reports[name]
        assert r.status is KernelStatus.FAILED
        assert any(ob.status.value == "failed" and ob.confirmed for ob in r.obligations)
        assert r.proved_under_suggestion is not True
    assert reports["centre[...]"].proved_under_suggestion is not True
    assert calls == []


def test_no_instance_whose_own_work_ran_out_is_proved_again_under_a_premise(monkeypatch):
    # at --budget 0.01 (a total of 100 million units, so that each instance's own work binds,
    # not the total) both declared instances leave an obligation undecided when their work ran
    # out: a premise admitting them pastes the same MIR, whose re-proof has a meter of the
    # same size and asks the same queries, so the search proves nothing again (session 28: a
    # spline kernel's premise search so spent 25 of its 60 CPU s, and proved nothing)
    from verikern.proofs.deciding.budget_reasons import meter_spent

    calls = _count_premise_re_proofs(monkeypatch)
    src = CENTRE + OVERLOADS.format("wp.vec3f, wp.vec3d", "wp.float32, wp.float64")
    reports = _by_name(prove_source(src, "t.py", suggest=True, budget=0.01, kernel_budget=100))
    for name in ("centre[vec3, float32]", "centre[vec3d, float64]"):
        r = reports[name]
        assert r.status is KernelStatus.UNKNOWN and r.proved_under_suggestion is not True
        assert any(ob.status.value == "unknown" and meter_spent(ob.reason) for ob in r.obligations)
    assert reports["centre[...]"].proved_under_suggestion is not True
    assert calls == []
    # what the search skipped proves nothing: the declared premise, pasted and proved from
    # scratch at the same budgets
    premise = ("@vk.requires(lambda positions, out: (positions.dtype, out.dtype) in "
               "((wp.vec3f, wp.float32), (wp.vec3d, wp.float64)))")
    line = src.splitlines().index("@wp.kernel") + 1
    again = prove_source(pasted(src, suggestion_inserts(src, line, [premise])), "t.py", suggest=False,
                         budget=0.01, kernel_budget=100)
    assert len(again) == 2 and all(a.status is KernelStatus.UNKNOWN for a in again), again


def test_a_pasted_instance_is_taken_as_proved_only_when_its_mir_is_a_proved_ones_but_for_positions(monkeypatch):
    # the paste moves every line of the kernel: the proved instances' MIR is matched less its
    # source positions, so the declared premise takes both as proved (before, each was proved
    # again); an instance that needs its own contract has, pasted below the premise and that
    # contract, the MIR its suggestion's re-proof proved (a premise leaves no MIR): taken as
    # proved too (session 26), and proved again when that MIR is not the one proved
    from verikern.app import suggestion

    calls = _count_premise_re_proofs(monkeypatch)
    src = CENTRE + OVERLOADS.format("wp.vec3f, wp.vec3d", "wp.float32, wp.float64")
    reports = _by_name(prove_source(src, "t.py", suggest=True))
    assert reports["centre[...]"].proved_under_suggestion is True
    assert calls == []
    # (NEAR proved once for this test and the one above: `_near_proved`, which counts the
    # premise search's re-proofs as `calls` does)
    near_reports, near_calls = _near_proved()
    r = _by_name(near_reports)["centre[vec3, float32]"]
    assert r.status is KernelStatus.FAILED and r.pasted_mir_sha is not None
    assert r.proved_under_suggestion is True and any(".dtype" in d for d in r.suggested_decorators)
    assert near_calls == (), "the pasted instance was proved again though its suggestion's re-proof proved its MIR"
    # the premise and the contract, pasted and proved from scratch: proved (an independent check)
    line = NEAR.splitlines().index("@wp.kernel") + 1
    again = prove_source(pasted(NEAR, suggestion_inserts(NEAR, line, list(r.suggested_decorators))), "t.py",
                         suggest=False)
    assert [a.status for a in again] == [KernelStatus.PROVED]
    # a re-proof's MIR that is not the pasted instance's: proved again, never taken as proved
    monkeypatch.setattr(suggestion, "sha_without_positions", lambda mir: "0" * 64)
    reports = _by_name(prove_source(NEAR, "t.py", suggest=True))
    assert reports["centre[vec3, float32]"].pasted_mir_sha == "0" * 64
    assert calls == ["centre__vec3_float32"], calls


def test_a_cached_run_reuses_the_suggestions_re_proof_as_a_fresh_run_does(tmp_path, monkeypatch):
    # the premise search reuses an instance's suggestion re-proof by its MIR (pasted_mir_sha):
    # read back from the proof cache too, so a cached run proves nothing again and ends the same
    from verikern.app.cache import ProofCache
    from verikern.app.prove import prove_file

    calls = _count_premise_re_proofs(monkeypatch)
    path = tmp_path / "t.py"
    path.write_text(CENTRE.replace("p[0] + p[1] + p[2]", "p[0] + p[1] + p[2] + type(p[0])(positions[i + 1][0])")
                    + OVERLOADS.format("wp.vec3f", "wp.float32"))
    cache = ProofCache(str(tmp_path / "cache"))
    fresh = _by_name(prove_file(path, cache=cache, suggest=True))
    cached = _by_name(prove_file(path, cache=cache, suggest=True))
    r = cached["centre[vec3, float32]"]
    assert r.cached and r.pasted_mir_sha == fresh["centre[vec3, float32]"].pasted_mir_sha is not None
    assert calls == []
    for name, a in fresh.items():
        b = cached[name]
        assert (a.status, a.suggested_decorators, a.proved_under_suggestion) == \
            (b.status, b.suggested_decorators, b.proved_under_suggestion), name
