"""`verikern fuzz` on the command line: agreement, a mismatch with its
shrunk input, diagnosis and a replay command that reproduces it, backends
dropping out with a note, and input errors (exit 3)."""
from __future__ import annotations

import shlex
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from verikern.cli import main
from verikern.testing import backends as backends_module
from verikern.testing.backends import Backend, run_device
from verikern.testing.compare import RunError

HERE = Path(__file__).resolve().parent
FILE = str(HERE / "kernels_fuzz.py")


def _wrong(target, launch):
    out = run_device("cpu")(target, launch)
    if not isinstance(out, RunError) and out["y"].size > 2:
        out["y"][2] = -out["y"][2] + np.float32(7.0)
    return out


def invoke(*args):
    return CliRunner().invoke(main, ["fuzz", *args], catch_exceptions=False)


def test_backends_that_agree_exit_0_with_a_summary_table():
    r = invoke(FILE, "--kernel", "scale", "-n", "10")
    assert r.exit_code == 0, r.output
    assert "scale" in r.output and "agree" in r.output and "cpu, cpu:native" in r.output
    assert "kernels_fuzz.py:" in r.output


def test_a_mismatch_is_shown_and_its_command_reproduces_it(monkeypatch, tmp_path):
    monkeypatch.setitem(backends_module.BACKENDS, "wrong", Backend("wrong", _wrong))
    r = invoke(FILE, "--kernel", "scale", "--backends", "cpu,wrong", "-n", "50",
               "--save-dir", str(tmp_path))
    assert r.exit_code == 1, r.output
    out = r.output
    assert "MISMATCH" in out and "kernel scale: cpu and wrong disagree" in out
    assert "y[2] differs" in out and "input (shrunk):" in out and "backend disagreement" in out
    line = next(ln for ln in out.splitlines() if ln.strip().startswith("reproduce: "))
    argv = shlex.split(line.split("reproduce: ", 1)[1])
    assert argv[:2] == ["verikern", "fuzz"] and "--replay" in argv
    again = invoke(*argv[2:])
    assert again.exit_code == 1 and "y[2] differs" in again.output


def test_an_unavailable_backend_drops_out_visibly():
    from verikern.backends.cuda import cuda_available

    r = invoke(FILE, "--kernel", "scale", "--backends", "cpu,cpu:native,cuda", "-n", "5")
    assert r.exit_code == 0, r.output
    if cuda_available(0)[0]:
        assert "cpu, cpu:native, cuda" in r.output
    else:
        assert "note: scale: cuda dropped out:" in r.output and "cpu, cpu:native" in r.output


@pytest.mark.parametrize("args, message", [
    (["--kernel", "nope"], "no kernel named 'nope'"),
    (["--backends", "cpu,tpu"], "choose from"),
    (["--kernel", "scale", "--size", "z=3"], "no array parameter 'z'"),
])
def test_input_errors_exit_3(args, message):
    r = invoke(FILE, *args)
    assert r.exit_code == 3 and message in r.output, r.output


def test_help_says_the_warp_backend_imports_the_file():
    r = invoke("--help")
    assert r.exit_code == 0
    assert "IMPORTED" in r.output and "verikern prove` never does" in r.output


SPIN = """\
import verikern as vk


@vk.kernel
def spin(out: vk.array(dtype=vk.int32), n: vk.int32):
    i = vk.tid()
    total = 0
    for k in range(n):
        total = total + k
    if i < out.shape[0]:
        out[i] = total
"""


def test_a_launch_past_the_step_deadline_is_not_compared_and_the_run_says_why(tmp_path):
    src = tmp_path / "spin.py"
    src.write_text(SPIN)
    slow = CliRunner().invoke(main, ["fuzz", str(src), "--param", "n=100000", "-n", "3", "--max-steps", "3000",
                                     "--max-threads", "64"], catch_exceptions=False)
    assert slow.exit_code == 0, slow.output
    assert "note: spin: 3 of 3 launches ran past the deadline of 3000 simulator steps per launch" in slow.stdout
    assert "still running at line 8 after 3000 scheduling steps" in slow.stdout and ", n=100000," in slow.stdout
    assert "too slow (every launch past --max-steps)" in slow.stdout
    err = slow.stderr.splitlines()                     # progress without a terminal: stderr lines
    assert err[0] == "[1/1] spin: fuzzing 3 launch(es) on cpu, cpu:native"
    assert err[-1].startswith("[1/1] spin: too slow (3 launch(es), 3 past the deadline, ")
    fast = CliRunner().invoke(main, ["fuzz", str(src), "--param", "n=20", "-n", "3", "--max-steps", "3000",
                                     "--max-threads", "64"], catch_exceptions=False)
    assert fast.exit_code == 0 and "deadline" not in fast.stdout and " agree " in fast.stdout, fast.output
