"""`type(f(x))(...)`: the type of a builtin's or a func's result (warpsphcore's
`type(wp.outer(x, x))(scalar_t(0.0))` in kernels/hessian.py). Warp 1.19's codegen
evaluates the operand of `type()` like any expression (`adj.eval`, emitted right
before the call's arguments) and takes its static type; verikern evaluates it there
too (H.EffectThen), so its traps count and its value is unused. Real Warp on its CPU
device is the reference: the same kernels give the same results under Warp, the
simulator and cpu:native, and what Warp refuses (the type of a func that returns
nothing) is a located error."""
from __future__ import annotations

import numpy as np
import pytest

import verikern as vk
from verikern.app.prove import prove_source
from verikern.frontend import compile_source
from warp_compat.compat_util import warp_module_from_text

wp = pytest.importorskip("warp", reason="NVIDIA Warp is not installed (pip install warp-lang)")

SOURCE = '''import warp as wp


@wp.func
def scaled(v: wp.vec3, s: float):
    return v * s


@wp.kernel
def calls(x: wp.array(dtype=wp.vec3), s: wp.array(dtype=float), out: wp.array(dtype=wp.mat33),
          outv: wp.array(dtype=wp.vec3), outs: wp.array(dtype=float)):
    i = wp.tid()
    v = x[i]
    out[i] = type(wp.outer(v, v))(s[i]) + wp.outer(v, v)
    outv[i] = type(scaled(v, s[i]))(s[i], 2.0, -1.0) + type(wp.cross(v, x[0]))(1.0)
    outs[i] = type(wp.length(v) / s[i])(3) + type(wp.dot(v, v))(s[i])
'''

NOTHING = '''import warp as wp


@wp.func
def nothing(x: float):
    y = x


@wp.kernel
def refused(s: wp.array(dtype=float)):
    i = wp.tid()
    s[i] = type(nothing(s[i]))(1.0)
'''


def test_type_of_a_call_converts_as_warp_does(warp_cpu, tmp_path):
    module = warp_module_from_text(tmp_path, SOURCE, "verikern_type_of_call")
    ours = compile_source(SOURCE, "type_of_call.py")
    assert not ours.all_errors, [e.render() for e in ours.all_errors]
    x = np.arange(15, dtype=np.float32).reshape(5, 3) - 6.0
    s = np.array([1.0, 2.0, 0.0, -3.0, 0.5], np.float32)    # s = 0: a float quotient is inf, no trap
    w_out = wp.zeros(5, dtype=wp.mat33, device="cpu")
    w_outv = wp.zeros(5, dtype=wp.vec3, device="cpu")
    w_outs = wp.zeros(5, dtype=wp.float32, device="cpu")
    wp.launch(module.calls, dim=5, device="cpu", inputs=[
        wp.array(x, dtype=wp.vec3, device="cpu"), wp.array(s, dtype=wp.float32, device="cpu"),
        w_out, w_outv, w_outs])
    for dev in ("cpu", "cpu:native"):
        out = np.zeros((5, 3, 3), np.float32)
        outv, outs = np.zeros((5, 3), np.float32), np.zeros(5, np.float32)
        vk.launch(ours.kernel("calls").mir, 5, [x, s, out, outv, outs], device=dev)
        np.testing.assert_array_equal(out, w_out.numpy(), err_msg=dev)
        np.testing.assert_array_equal(outv, w_outv.numpy(), err_msg=dev)
        np.testing.assert_array_equal(outs, w_outs.numpy(), err_msg=dev)


def test_the_type_of_a_func_that_returns_nothing_is_refused_by_both(warp_cpu, tmp_path):
    module = warp_module_from_text(tmp_path, NOTHING, "verikern_type_of_nothing")
    with pytest.raises(Exception, match="Cannot deduce the type"):
        wp.launch(module.refused, dim=1, device="cpu", inputs=[wp.zeros(1, dtype=wp.float32, device="cpu")])
    err = compile_source(NOTHING, "k.py").kernels[0].error
    assert err is not None and err.rule == "type-of", err
    assert "k.py:12:17" in err.render() and "returns no value" in err.render()


TRAPS = '''import warp as wp


@wp.kernel
def k(q: wp.array(dtype=wp.int32), x: wp.array(dtype=wp.float32), out: wp.array(dtype=wp.int32)):
    i = wp.tid()
    if i < out.shape[0] and i < q.shape[0]:
        out[i] = type(q[i] // {divisor})(3) + int(type(wp.length(wp.vec2(x[{index}], 1.0)))(2.0))
'''


def test_the_operand_of_type_is_evaluated_so_its_traps_are_obligations():
    """The operand's value is unused, and still its integer division and its load are
    checked where Warp evaluates them (a near miss: dropping the operand, as a type-only
    reading would, proves a kernel Warp's evaluation can fault in)."""
    (r,) = prove_source(TRAPS.format(divisor="q[0]", index="i"), "k.py", suggest=False)
    assert r.status.value == "failed", r.status
    failed = {(o.kind.value, o.loc.line) for o in r.obligations if o.status.value == "failed"}
    assert ("div-zero", 8) in failed, failed           # q[0] may be 0
    assert ("bounds", 8) in failed, failed             # x may be shorter than out
    guarded = TRAPS.format(divisor="wp.max(q[0], 1)", index="wp.min(i, x.shape[0] - 1)") \
        .replace("i < q.shape[0]:", "i < q.shape[0] and x.shape[0] > 0:")
    (r,) = prove_source(guarded, "k.py", suggest=False)
    assert r.status.value == "proved", [(o.kind.value, o.status.value, o.loc.line) for o in r.obligations]
