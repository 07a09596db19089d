"""A typing premise of a generic kernel (frontend/scan/typing_premise.py):
`@vk.requires(lambda p: p.dtype in (wp.vec3f, wp.vec3d))` pins the generic
array parameter p to the types it admits. Only those instances are
enumerated; the `kernel[...]` remainder is gone only when every generic
parameter is pinned; a premise that pins nothing or admits nothing is a
located error; vk.launch refuses an argument outside it."""
from __future__ import annotations

import numpy as np
import pytest

import verikern as vk
from verikern.app.prove import prove_source
from verikern.errors import LaunchError
from verikern.proofs.obligations import KernelStatus
from frontend.fe_util import compile_text

HEAD = "from typing import Any\n\nimport warp as wp\nimport verikern as vk\n\n\n"
BODY = ("def centre(positions: wp.array(dtype=Any), out: wp.array(dtype=Any)):\n"
        "    i = wp.tid()\n"
        "    if i < positions.shape[0] and i < out.shape[0]:\n"
        "        p = positions[i]\n"
        "        out[i] = p[0] + p[1] + p[2]\n")


def _kernel(premise: str | None = None, in_body: str | None = None, params: str = "positions") -> str:
    deco = f"@vk.requires(lambda {params}: {premise})\n" if premise else ""
    body = BODY if in_body is None else BODY.replace(
        "    i = wp.tid()\n", f"    vk.requires({in_body})\n    i = wp.tid()\n")
    return HEAD + deco + "@wp.kernel\n" + body


def test_without_a_premise_the_vec2_instantiation_keeps_the_remainder():
    r = compile_text(_kernel())
    # the vec3 typing found and its float64 twin are instances (generic_probed.py); Warp
    # builds it for vec2 too: the remainder stays, unknown, so the kernel is never proved whole
    assert r.kernel_names == ["centre[vec3, float32]", "centre[vec3d, float64]", "centre[...]"]
    assert r.kernel("centre[...]").unknown and "other vector, matrix" in r.kernel("centre[...]").error.message


def test_a_premise_enumerates_exactly_the_admitted_types_and_drops_the_remainder():
    r = compile_text(_kernel("positions.dtype in (wp.vec3f, wp.vec3d)"))
    assert r.kernel_names == ["centre[vec3, float32]", "centre[vec3d, float64]"]
    assert not r.all_errors
    premise = r.kernel("centre[vec3d, float64]").mir.typing_premise
    assert premise.text == "positions.dtype in (wp.vec3f, wp.vec3d)"
    assert premise.admitted == ("centre[vec3, float32]", "centre[vec3d, float64]")
    assert (premise.loc.line, premise.loc.col) == (7, 32)


def test_the_in_body_form_means_the_same_and_leaves_no_requires():
    r = compile_text(_kernel(in_body="positions.dtype == wp.vec3d"))
    assert r.kernel_names == ["centre[vec3d, float64]"]
    ops = {type(ins).__name__ for _, ins in r.kernels[0].mir.instructions()}
    assert "Requires" not in ops


def test_a_premise_beside_a_condition_keeps_the_condition_as_a_requires():
    src = _kernel("positions.dtype == wp.vec3f and positions.shape[0] == out.shape[0]").replace(
        "lambda positions:", "lambda positions, out:")
    r = compile_text(src)
    assert r.kernel_names == ["centre[vec3, float32]"]
    ops = [type(ins).__name__ for _, ins in r.kernels[0].mir.instructions()]
    assert ops.count("Requires") == 1


def test_the_remainder_stays_when_one_generic_parameter_is_unpinned():
    src = HEAD + ("@vk.requires(lambda a: a.dtype == wp.float32)\n@wp.kernel\n"
                  "def scale(a: wp.array(dtype=Any), b: wp.array(dtype=Any)):\n"
                  "    i = wp.tid()\n    if i < a.shape[0] and i < b.shape[0]:\n"
                  "        s = b[i]\n        a[i] = a[i] * float(s[2])\n")
    names = compile_text(src).kernel_names
    # b must be indexable: a vector of any length, which is not enumerated, so still `scale[...]`
    # beside the vec3 typing found (and no float64 twin: the premise pins a to float32)
    assert names == ["scale[float32, vec3]", "scale[...]"]
    reports = prove_source(src, "t.py", suggest=False)
    assert any(r.kernel == "scale[...]" and r.status is not KernelStatus.PROVED for r in reports)


def test_declared_overloads_outside_the_premise_are_dropped():
    src = _kernel("positions.dtype == wp.vec3d") + (
        "\n\nfor _v, _t in zip([wp.vec3f, wp.vec3d], [wp.float32, wp.float64]):\n"
        "    wp.overload(centre, [wp.array(dtype=_v), wp.array(dtype=_t)])\n")
    assert compile_text(src).kernel_names == ["centre[vec3d, float64]"]


@pytest.mark.parametrize("premise, at, words", [
    # a parameter the kernel is not generic in
    ("out.dtype == wp.float32", "out.dtype", "not an array of Any"),
    ("n.dtype == wp.int32", "n.dtype", "a bare Any"),
    ("q.dtype == wp.int32", "q.dtype", "not a parameter"),
    ("positions.dtype == wp.nothing", "wp.nothing", "not a Warp scalar"),
    ("positions.dtype != wp.vec3f", "positions.dtype", "top-level conjunct"),
    ("positions.dtype == wp.vec3f or n == 0", "positions.dtype", "top-level conjunct"),
    # admits types, but none that the body type-checks with (Warp cannot build one)
    ("positions.dtype in (wp.float32, wp.int8)", "positions.dtype", "admits no instantiation"),
    ("positions.dtype == wp.vec3f and positions.dtype == wp.vec3d", "positions.dtype", "exclude each other"),
])
def test_a_premise_that_pins_nothing_or_admits_nothing_is_a_located_error(premise, at, words):
    src = HEAD + ("N = 1\n\n\n"
                  f"@vk.requires(lambda positions, out, n, q: {premise})\n@wp.kernel\n"
                  "def centre(positions: wp.array(dtype=Any), out: wp.array(dtype=wp.float32), n: Any):\n"
                  "    i = wp.tid()\n"
                  "    if i < positions.shape[0] and i < out.shape[0]:\n"
                  "        p = positions[i]\n"
                  "        out[i] = float(p[0] + p[1] + p[2])\n")
    if "q." not in premise:
        src = src.replace(", q:", ":")
    line_col = (10, src.splitlines()[9].index(at) + 1)
    e = _first_error(src, words, ("typing-premise", "requires-decorator"))
    if e.rule == "typing-premise":
        assert (e.loc.line, e.loc.col) == line_col, e.render()
        assert e.render().startswith(f"t.py:{line_col[0]}:{line_col[1]}: error:")


def _first_error(src: str, words: str, rules: tuple[str, ...]):
    """The first error compiling `src` gives, checked to be one of `rules` and to say `words`."""
    errors = compile_text(src).all_errors
    assert errors, "the premise was accepted"
    e = errors[0]
    assert e.rule in rules, e.render()
    assert words in e.message, e.render()
    return e


def test_a_premise_on_a_kernel_that_is_not_generic_is_an_error():
    src = HEAD + ("@vk.requires(lambda a: a.dtype == wp.float32)\n@wp.kernel\n"
                  "def k(a: wp.array(dtype=wp.float32)):\n    a[0] = 1.0\n")
    (e,) = compile_text(src).all_errors
    assert e.rule == "typing-premise" and "not generic" in e.message and e.loc.line == 7


def test_an_admitted_buggy_instantiation_still_fails():
    src = HEAD + ("@vk.requires(lambda keys: keys.dtype in (wp.int32, wp.int8))\n@wp.kernel\n"
                  "def k(keys: wp.array(dtype=Any), table: wp.array(dtype=float), out: wp.array(dtype=float)):\n"
                  "    i = wp.tid()\n    if i < keys.shape[0] and i < out.shape[0]:\n        j = keys[i]\n"
                  "        if int(j) >= 0 and int(j) < table.shape[0] // 2:\n"
                  "            out[i] = table[int(j + j)]\n")
    verdicts = {r.kernel: r.status for r in prove_source(src, "t.py", suggest=False)}
    assert verdicts == {"k[int32]": KernelStatus.PROVED, "k[int8]": KernelStatus.FAILED}


def test_reports_state_the_premise_and_the_admitted_instances():
    (a, b) = prove_source(_kernel("positions.dtype in (wp.vec3f, wp.vec3d)"), "t.py", suggest=False)
    assert a.status is b.status is KernelStatus.PROVED
    (c,) = [c for c in a.scope.contracts if c.kind == "typing premise"]
    assert c.text.startswith("positions.dtype in (wp.vec3f, wp.vec3d) (the kernel is proved only for "
                             "the instantiations it admits: centre[vec3, float32], centre[vec3d, float64]")
    lines = a.scope.assumption_lines()
    assert lines[0].startswith("typing premise: positions.dtype in (wp.vec3f, wp.vec3d)")
    assert "no requires: every 1-D launch and every argument" in lines


def _launched(tmp_path, monkeypatch, module: str, source: str, scalar):
    """The kernel module imported from `source`, after one launch of `centre` on 4 positions of
    `scalar` (vk.launch, checked against numpy), and the positions."""
    (tmp_path / f"{module}.py").write_text(source)
    monkeypatch.syspath_prepend(str(tmp_path))
    mod = __import__(module)
    pos = np.arange(12, dtype=scalar).reshape(4, 3)
    out = np.zeros(4, scalar)
    vk.launch(mod.centre, 4, [pos, out])
    np.testing.assert_array_equal(out, pos.sum(axis=1))
    return mod, pos, out


def test_vk_launch_refuses_an_array_outside_the_premise(tmp_path, monkeypatch):
    mod, pos, out = _launched(tmp_path, monkeypatch, "premise_kernel",
                              _kernel("positions.dtype in (wp.vec3f, wp.vec3d)"), np.float32)
    with pytest.raises(LaunchError, match=r"float32 array of shape \(4, 2\).*its typing premise "
                                          r"positions.dtype in \(wp.vec3f, wp.vec3d\) \(line 7\) admits "
                                          r"centre\[vec3, float32\], centre\[vec3d, float64\] only"):
        vk.check_launch(mod.centre, 4, [np.zeros((4, 2), np.float32), out])
    with pytest.raises(LaunchError, match="typing premise"):
        vk.launch(mod.centre, 4, [np.zeros(4, np.float32), out])


JOINT = "(positions.dtype, out.dtype) in ((wp.vec3f, wp.float32), (wp.vec3d, wp.float64))"


def _converting(premise: str) -> str:
    """The kernel storing through `out.dtype(...)`, so that mixed precisions type-check too."""
    return _kernel(premise, params="positions, out").replace(
        "out[i] = p[0] + p[1] + p[2]", "out[i] = out.dtype(p[0] + p[1] + p[2])")


def test_a_joint_premise_enumerates_exactly_its_rows_not_the_mixed_typings():
    r = compile_text(_converting(JOINT))
    # the per-parameter premise of the same types also admits [vec3, float64] and [vec3d, float32]
    assert r.kernel_names == ["centre[vec3, float32]", "centre[vec3d, float64]"]
    assert not r.all_errors
    premise = r.kernel("centre[vec3, float32]").mir.typing_premise
    assert premise.text == JOINT
    assert premise.admitted == ("centre[vec3, float32]", "centre[vec3d, float64]")
    wide = _converting("positions.dtype in (wp.vec3f, wp.vec3d) and out.dtype in (wp.float32, wp.float64)")
    assert compile_text(wide).kernel_names == ["centre[vec3, float32]", "centre[vec3, float64]",
                                               "centre[vec3d, float32]", "centre[vec3d, float64]"]


def test_a_joint_premise_in_the_body_and_beside_another_atom():
    r = compile_text(_kernel(in_body=JOINT))
    assert r.kernel_names == ["centre[vec3, float32]", "centre[vec3d, float64]"]
    # another atom on one of its parameters drops the rows it excludes
    src = _kernel(JOINT + " and out.dtype == wp.float64", params="positions, out")
    assert compile_text(src).kernel_names == ["centre[vec3d, float64]"]


def test_declared_overloads_outside_a_joint_premise_are_dropped():
    src = _kernel(JOINT, params="positions, out") + (
        "\n\nfor _v, _t in [(wp.vec3f, wp.float64), (wp.vec3d, wp.float64)]:\n"
        "    wp.overload(centre, [wp.array(dtype=_v), wp.array(dtype=_t)])\n")
    assert compile_text(src).kernel_names == ["centre[vec3d, float64]", "centre[vec3, float32]"]


@pytest.mark.parametrize("premise, at, words", [
    ("(positions.dtype, positions.dtype) in ((wp.vec3f, wp.vec3f),)", "(positions.dtype", "a parameter twice"),
    ("(positions.dtype, out.dtype) in ((wp.vec3f, wp.float32),)", "(positions.dtype", "not an array of Any"),
    ("(positions.dtype, w.dtype) in ((wp.vec3f,), (wp.vec3d, wp.float64))", "(wp.vec3f,)", "a tuple of 2 types"),
    ("(positions.dtype, w.dtype) in ((wp.vec3f, wp.nothing),)", "wp.nothing", "not a Warp scalar"),
    ("(positions.dtype, w.dtype) in ((wp.vec3f, wp.float32),) or n == 0", "positions.dtype", "top-level conjunct"),
    ("(positions.dtype, w.dtype) in ((wp.vec3f, wp.float32),) and w.dtype == wp.float64", "(positions.dtype",
     "exclude each other"),
])
def test_a_bad_joint_premise_is_a_located_error(premise, at, words):
    src = HEAD + (f"@vk.requires(lambda positions, out, w, n: {premise})\n@wp.kernel\n"
                  "def centre(positions: wp.array(dtype=Any), out: wp.array(dtype=wp.float32), "
                  "w: wp.array(dtype=Any), n: Any):\n"
                  "    i = wp.tid()\n"
                  "    if i < positions.shape[0] and i < out.shape[0] and i < w.shape[0]:\n"
                  "        p = positions[i]\n"
                  "        out[i] = float(p[0] + p[1] + p[2]) + float(w[i])\n")
    line_col = (7, src.splitlines()[6].index(at) + 1)
    e = _first_error(src, words, ("typing-premise",))
    assert (e.loc.line, e.loc.col) == line_col, e.render()


def test_vk_launch_refuses_a_mixed_typing_a_joint_premise_leaves_out(tmp_path, monkeypatch):
    mod, pos, _ = _launched(tmp_path, monkeypatch, "joint_premise_kernel",
                            _kernel(JOINT, params="positions, out"), np.float64)
    with pytest.raises(LaunchError, match=r"its typing premise \(positions.dtype, out.dtype\) in .* admits "
                                          r"centre\[vec3, float32\], centre\[vec3d, float64\] only"):
        vk.check_launch(mod.centre, 4, [pos, np.zeros(4, np.float32)])
