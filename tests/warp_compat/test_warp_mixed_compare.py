"""Comparisons of scalars of two types, against real Warp on its CPU device.

Warp compiles `a < b` to C++'s `a < b` whatever the operand types, so C++'s
usual arithmetic conversions give it its meaning: an int against a float
compares as the float (a float32 distance against an int8 cutoff, as
generic neighbour kernels do), int32 against uint32 as uint32 (-1 < 5u is
false), narrow ints as int32. float16 (Warp's C++ `half`) against any other
type does not build, and a chain whose later operands differ in type is
refused by Warp's codegen: verikern refuses both with a located error. A
generic kernel is instantiated with the mixed typings Warp builds, so their
bugs are found."""
from __future__ import annotations

import numpy as np
import pytest

import verikern as vk
from verikern.app.prove import prove_source
from verikern.frontend import compile_source
from shared_helpers import import_file
from warp_compat.compat_util import init_warp

wp = pytest.importorskip("warp", reason="NVIDIA Warp is not installed (pip install warp-lang)")

MIXED = '''import warp as wp


@wp.kernel
def mixed(a32: wp.int32, u32: wp.uint32, a8: wp.int8, u8: wp.uint8, a64: wp.int64, u64: wp.uint64,
          a16: wp.int16, f: wp.float32, d: wp.float64, flag: wp.bool, cutoff: wp.int8,
          out: wp.array(dtype=wp.int32)):
    out[0] = wp.where(a32 < u32, 1, 0)
    out[1] = wp.where(a8 < u8, 1, 0)
    out[2] = wp.where(a32 < a64, 1, 0)
    out[3] = wp.where(u32 < a64, 1, 0)
    out[4] = wp.where(a64 < u64, 1, 0)
    out[5] = wp.where(a16 < u32, 1, 0)
    out[6] = wp.where(f < a32, 1, 0)
    out[7] = wp.where(d < a64, 1, 0)
    out[8] = wp.where(flag == a32, 1, 0)
    out[9] = wp.where(f < d, 1, 0)
    out[10] = wp.where(a32 == u32, 1, 0)
    out[11] = wp.where(f < cutoff, 1, 0)
    out[12] = wp.where(u8 >= a16, 1, 0)
    out[13] = wp.where(a8 < u32 < u32, 1, 0)
'''
TYPES = (np.int32, np.uint32, np.int8, np.uint8, np.int64, np.uint64, np.int16, np.float32, np.float64,
         np.bool_, np.int8)
WARP_TYPES = ("int32", "uint32", "int8", "uint8", "int64", "uint64", "int16", "float32", "float64",
              "bool", "int8")
# values at the conversions' edges: negative against unsigned, ints float32 cannot hold
CASES = [
    (-1, 5, -1, 5, -1, 5, -1, 16777216.0, 9007199254740992.0, True, 3),
    (1, 4000000000, 7, 200, 9007199254740993, 2**63, 300, 2.5, 2.5, True, -2),
    (16777217, 16777217, -128, 0, -5, 0, -32768, -0.5, -0.25, False, 0),
]


@pytest.fixture(scope="module")
def warp_mixed(tmp_path_factory):
    init_warp(wp, tmp_path_factory)
    path = tmp_path_factory.mktemp("mixed") / "verikern_mixed_compare.py"
    path.write_text(MIXED)
    return import_file(path, "verikern_mixed_compare")


@pytest.mark.parametrize("values", CASES)
def test_mixed_scalar_comparisons_compare_as_warps_cpp(warp_mixed, values):
    theirs = wp.zeros(14, dtype=wp.int32, device="cpu")
    wp.launch(warp_mixed.mixed, dim=1, device="cpu",
              inputs=[getattr(wp, t)(v) for t, v in zip(WARP_TYPES, values)] + [theirs])
    kernel = compile_source(MIXED, "mixed.py").kernel("mixed").mir
    for dev in ("cpu", "cpu:native"):
        ours = np.zeros(14, np.int32)
        vk.launch(kernel, 1, [t(v) for t, v in zip(TYPES, values)] + [ours], device=dev)
        assert ours.tolist() == theirs.numpy().tolist(), dev
    if values == CASES[0]:     # the conversions, by hand: -1 as uint32 is not below 5
        assert theirs.numpy().tolist()[:2] == [0, 1] and theirs.numpy()[6] == 0


REFUSED = '''import warp as wp


@wp.kernel
def k(h: wp.float16, x: {T}, out: wp.array(dtype=wp.int32)):
    out[0] = wp.where({EXPR}, 1, 0)
'''


REFUSED_CASES = [
    ("wp.float32", "h < x", "k.py:6:23", "build failed"),      # half against float: ambiguous C++
    ("wp.int32", "x > h", "k.py:6:23", "build failed"),
    ("wp.float16", "x < h < 1", "k.py:6:23", "unequal types"),  # Warp's codegen refuses the chain
]


def _located_refusal(text: str, where: str) -> None:
    err = compile_source(text, "k.py").kernels[0].error
    assert err is not None and err.rule == "type-mismatch", err
    assert where in err.render() and "convert" in err.render()


@pytest.mark.parametrize("t, expr, where, warp_error", REFUSED_CASES)
def test_what_warp_cannot_build_is_a_located_error(tmp_path_factory, t, expr, where, warp_error):
    init_warp(wp, tmp_path_factory)
    text = REFUSED.format(T=t, EXPR=expr)
    path = tmp_path_factory.mktemp("refused") / "k.py"
    path.write_text(text)
    module = import_file(path, f"verikern_mixed_refused_{abs(hash(expr))}")
    value = getattr(wp, t.split(".")[1])(1.0 if "float" in t else 1)
    with pytest.raises(Exception, match=warp_error):
        wp.launch(module.k, dim=1, device="cpu",
                  inputs=[wp.float16(1.0), value, wp.zeros(1, dtype=wp.int32, device="cpu")])
    _located_refusal(text, where)


@pytest.mark.parametrize("t, expr, where, warp_error", REFUSED_CASES)
def test_verikern_refuses_every_comparison_warp_cannot_build_at_its_site(t, expr, where, warp_error):
    """verikern's half of the test above without Warp's build (clang compiling a
    kernel that fails, about 3 CPU s a case and never cached): the default run keeps
    the located refusal of every case here even where tests/tiers_nightly.py leaves
    Warp's failing build of a second case to `pytest -m slow`."""
    _located_refusal(REFUSED.format(T=t, EXPR=expr), where)


PICK = '''from typing import Any

import verikern as vk
import warp as wp


@vk.requires(lambda lo: lo >= 0)
@wp.kernel
def pick(idx: wp.array(dtype=Any), lo: Any, out: wp.array(dtype=wp.float32)):
    i = wp.tid()
    if i < idx.shape[0]:
        k = idx[i]
        if k >= lo and k < out.shape[0]:
            wp.atomic_add(out, k, 1.0)
'''


def test_a_generic_kernel_is_proved_for_the_mixed_typings_warp_builds_and_their_bug_found():
    """`k >= lo` with an int32 `k` and a uint32 `lo` compares as uint32 in Warp, so
    k = -1 passes the guard: the instance Warp builds for those types is proved
    separately and fails; int64 holds every uint32, so [int64, uint32] is proved.
    Only the four instances checked are proved (`kernel=`; all 80 cost ten times as
    much); the instances Warp cannot build are checked on the compiled module's names."""
    checked = ["pick[int32, int32]", "pick[int64, uint32]", "pick[int32, uint32]", "pick[int8, uint64]"]
    reports = {r.kernel: r for r in prove_source(PICK, "pick.py", kernel=checked, suggest=False)}
    assert sorted(reports) == sorted(checked), list(reports)
    assert reports["pick[int32, int32]"].status.value == "proved"
    assert reports["pick[int64, uint32]"].status.value == "proved"
    bad = reports["pick[int32, uint32]"]
    failed = [(o.kind.value, o.loc.line, o.confirmed) for o in bad.obligations if o.status.value == "failed"]
    assert failed == [("bounds", 14, True)], failed
    assert reports["pick[int8, uint64]"].status.value == "failed"
    names = [k.name for k in compile_source(PICK, "pick.py").kernels]
    assert set(checked) <= set(names)
    assert not any(name.endswith("float16]") for name in names)     # Warp cannot build them
