"""The pytest side: `differential` and `matches` make hypothesis tests that
pass and fail as they should (with the kernel's file:line in the failure),
and `pytest --verikern-prove PATH` adds one proof item per kernel that
fails with the located findings (run in a separate pytest with pytester)."""
from __future__ import annotations

import shutil
from pathlib import Path

import numpy  # noqa: F401  (imported here: pytester's in-process runs must not re-import them)

import verikern.frontend  # noqa: F401
import verikern.app.prove  # noqa: F401
import verikern.proofs.reporting.render  # noqa: F401
import verikern.runtime  # noqa: F401
import verikern.testing.fuzzing  # noqa: F401
import verikern.testing.explain  # noqa: F401
import verikern.testing.plugin  # noqa: F401

pytest_plugins = ["pytester"]

HERE = Path(__file__).resolve().parent

USER_TESTS = '''
import numpy as np
from hypothesis import Phase, settings

import verikern.testing as vt
import kernels_fuzz as k

test_scale_agrees = settings(max_examples=8)(vt.differential(k.scale, backends=["cpu", "cpu:native"]))
test_scale_matches = settings(max_examples=8)(vt.matches(k.scale, lambda v: {"y": v["x"] * v["a"]}))
# one bug: shrink the first failure found (no search for others after it),
# and no explain phase (the failure's text is checked, not hypothesis's notes)
test_relu_matches = settings(max_examples=200, report_multiple_bugs=False,
                             phases=[p for p in Phase if p is not Phase.explain])(
    vt.matches(k.relu_buggy, lambda v: {"y": np.maximum(v["x"], 0.0)}))
'''

GOOD = '''import verikern as vk


@vk.kernel
def guarded(x: vk.array(dtype=vk.float32), y: vk.array(dtype=vk.float32)):
    vk.requires(y.shape[0] == x.shape[0])
    i = vk.tid()
    if i < x.shape[0]:
        y[i] = x[i]
'''

BAD = '''import verikern as vk


@vk.kernel
def unguarded(x: vk.array(dtype=vk.float32), y: vk.array(dtype=vk.float32)):
    i = vk.tid()
    y[i] = x[i]
'''

BROKEN = '''import verikern as vk


@vk.kernel
def broken(x: vk.array(dtype=vk.float32)):
    x[0] = undefined_name
'''


def test_differential_and_matches_pass_and_fail(pytester):
    shutil.copy(HERE / "kernels_fuzz.py", pytester.path / "kernels_fuzz.py")
    pytester.makepyfile(test_user=USER_TESTS)
    result = pytester.runpytest("-p", "no:cacheprovider", "-q")
    result.assert_outcomes(passed=2, failed=1)
    out = result.stdout.str()
    assert "test_relu_matches" in out and "kernel relu_buggy: cpu and reference disagree" in out
    assert "kernels_fuzz.py:" in out and "y[0] differs" in out
    assert "x: float32[1]" in out          # shrunk to one element


def test_the_proof_gate_adds_one_item_per_kernel(pytester):
    kernels = pytester.mkdir("kernels")
    (kernels / "good.py").write_text(GOOD)
    (kernels / "bad.py").write_text(BAD)
    pytester.makepyfile(test_plain="def test_plain():\n    assert True\n")
    plain = pytester.runpytest("-p", "no:cacheprovider", "-q")
    plain.assert_outcomes(passed=1)                    # nothing added without the option
    result = pytester.runpytest("-p", "no:cacheprovider", "-q", "--verikern-prove", "kernels",
                                "-rA")
    result.assert_outcomes(passed=2, failed=1)
    out = result.stdout.str()
    assert "bad.py:7:5: error: bounds: index y[i] is out of bounds" in out
    assert "FAILED kernels/bad.py::unguarded" in out
    assert "PASSED kernels/good.py::guarded" in out


def test_the_proof_gate_fails_a_kernel_that_does_not_compile(pytester):
    kernels = pytester.mkdir("kernels")
    (kernels / "broken.py").write_text(BROKEN)
    result = pytester.runpytest("-p", "no:cacheprovider", "-q", "--verikern-prove", "kernels")
    result.assert_outcomes(failed=1)
    assert "broken.py:6:" in result.stdout.str() and "undefined_name" in result.stdout.str()


def test_the_proof_gate_refuses_a_missing_path(pytester):
    result = pytester.runpytest("-p", "no:cacheprovider", "--verikern-prove", "nowhere")
    assert result.ret != 0 and "--verikern-prove nowhere: no such file or folder" in result.stderr.str()
