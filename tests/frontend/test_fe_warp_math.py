"""`wp.atan2` (a float MIR BinOp, Warp's parameter names `y`, `x`) and Warp's
noise builtins (a compile error naming the construct and what to do), checked
against numpy and hand-computed angles on the simulator and cpu:native."""
from __future__ import annotations

import numpy as np
import pytest

import verikern as vk
from frontend.fe_util import compile_ok, first_error, marker_loc

W = "import warp as wp\n\n"
ATAN2 = W + """@wp.kernel
def k(y: wp.array[float], x: wp.array[float], out: wp.array[float], o64: wp.array[wp.float64]):
    i = wp.tid()
    out[i] = wp.atan2(y[i], x[i])
    o64[i] = wp.atan2(x=wp.float64(x[i]), y=wp.float64(y[i]))
"""


def test_atan2_is_one_mir_op_per_precision():
    k = compile_ok(ATAN2)
    ops = [(ins.op, ins.result.type.name) for _, ins in k.instructions()
           if getattr(ins, "op", None) == "atan2"]
    assert ops == [("atan2", "float32"), ("atan2", "float64")]


@pytest.mark.parametrize("device", ["cpu", "cpu:native"])
def test_atan2_quadrants_against_numpy(device):
    k = compile_ok(ATAN2)
    y = np.array([0.0, 1.0, 1.0, -1.0, -1.0, -0.0, 0.0, 3.0, -2.5], np.float32)
    x = np.array([1.0, 0.0, -1.0, -1.0, 1.0, -1.0, -1.0, 4.0, -0.5], np.float32)
    out, o64 = np.zeros(9, np.float32), np.zeros(9)
    vk.launch(k, 9, [y, x, out, o64], device=device)
    by_hand = [0.0, np.pi / 2, 3 * np.pi / 4, -3 * np.pi / 4, -np.pi / 4, -np.pi, np.pi]
    np.testing.assert_allclose(o64[:7], by_hand, rtol=1e-15)
    np.testing.assert_allclose(o64, np.arctan2(y.astype(np.float64), x.astype(np.float64)),
                               rtol=1e-15)
    np.testing.assert_allclose(out, np.arctan2(y, x), rtol=1e-6)
    assert np.signbit(out[5]) and out[5] == np.float32(-np.pi)   # atan2(-0, -1) = -pi


@pytest.mark.parametrize("call, rule", [
    ("wp.atan2(1, 2)", "implicit-conversion"),          # Warp's atan2 takes floats only
    ("wp.atan2(1.0)", "arity"),
    ("wp.atan2(wp.float32(1.0), wp.float64(2.0))", "type-mismatch"),
    ("wp.atan2(1.0, z=2.0)", "keyword-args"),
])
def test_atan2_rejects_what_warp_rejects(call, rule):
    src = W + f"@wp.kernel\ndef k(out: wp.array[float]):\n    out[0] = float({call})\n"
    assert first_error(src).rule == rule


@pytest.mark.parametrize("call, needle", [
    ("wp.noise(s, 0.5)", "wp.noise"), ("wp.pnoise(s, wp.vec2(0.5, 0.5), 4, 4)", "wp.pnoise"),
    ("wp.curlnoise(s, wp.vec2(0.5, 0.5))[0]", "wp.curlnoise"),
])
def test_noise_is_a_clear_error(call, needle):
    src = W + ("@wp.kernel\ndef k(out: wp.array[float]):\n    s = wp.rand_init(42)\n"
               f"    out[0] = {call}\n")
    err = first_error(src)
    assert err.rule == "warp-noise"
    assert (err.loc.line, err.loc.col) == marker_loc(src, needle)
    assert needle in err.message and "implementation-defined" in err.message
    assert "pass it in an array" in err.render()
