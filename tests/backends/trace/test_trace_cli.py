"""`verikern trace` end to end: kernel files -> frontend -> cpu:trace -> reports."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from verikern.cli.trace import command


REDUCE = """\
import verikern as vk


@vk.kernel
def reduce(x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32)):
    sh = vk.shared.array(shape=(256,), dtype=vk.float32)
    t = vk.thread_idx()
    sh[t] = x[vk.tid()]
    vk.sync_threads()
    s = vk.block_dim() // 2
    while s > 0:
        if t < s:
            sh[t] = sh[t] + sh[t + s]
        vk.sync_threads()
        s = s // 2
    if t == 0:
        out[vk.block_idx()] = sh[0]
"""

TRANSPOSE = """\
import verikern as vk


@vk.kernel
def transpose(a: vk.array(dtype=vk.float32, ndim=2), b: vk.array(dtype=vk.float32, ndim=2)):
    tile = vk.shared.array(shape=(32, WIDTH), dtype=vk.float32)
    t = vk.thread_idx()
    r = t // 32
    c = t % 32
    per_row = a.shape[1] // 32
    br = (vk.block_idx() // per_row) * 32
    bc = (vk.block_idx() % per_row) * 32
    tile[r, c] = a[br + r, bc + c]
    vk.sync_threads()
    b[bc + r, br + c] = tile[c, r]
"""

OOB = """\
import verikern as vk


@vk.kernel
def shift(x: vk.array(dtype=vk.float32), y: vk.array(dtype=vk.float32)):
    i = vk.tid()
    y[i] = x[i + 1]
"""

SCALE = """\
import verikern as vk


@vk.kernel
def scale(x: vk.array(dtype=vk.float32), n: int, a: float):
    vk.requires(n == 77)
    i = vk.tid()
    if i < n:
        x[i] = x[i] * a
"""

ROTATE = """\
import verikern as vk


@vk.kernel
def rotate(x: vk.array(dtype=vk.float32)):
    vk.requires(vk.block_dim() <= 128)
    buf = vk.shared.array(shape=(128,), dtype=vk.float32)
    t = vk.thread_idx()
    buf[t] = x[vk.tid()]
    vk.sync_threads()
    x[vk.tid()] = buf[(t + 1) % vk.block_dim()]
"""


def write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text)
    return str(p)


def run(*args):
    result = CliRunner().invoke(command, [str(a) for a in args], catch_exceptions=False)
    return result.exit_code, result.output


def test_correct_reduction_has_no_race(tmp_path):
    f = write(tmp_path, "reduce.py", REDUCE)
    code, out = run(f, "--kernel", "reduce", "--dim", 512, "--block-dim", 256)
    assert code == 0, out
    assert "no data races" in out and "no shared-memory bank conflicts" in out


def test_reduction_without_barrier_races(tmp_path):
    f = write(tmp_path, "reduce_racy.py", REDUCE.replace(
        "        vk.sync_threads()\n        s = s // 2", "        s = s // 2"))
    code, out = run(f, "--kernel", "reduce", "--dim", 512, "--block-dim", 256)
    assert code == 1, out
    assert f"{f}:13:13: error: race on sh[" in out
    code, out = run(f, "--dim", 512, "--block-dim", 256, "--format", "json")
    doc = json.loads(out)
    assert code == 1 and doc["status"] == "race" and doc["kernel"] == "reduce"
    assert {r["array"] for r in doc["races"]} == {"sh"}
    assert all(r["kind"] == "intra-block" and r["file"] == f for r in doc["races"])


@pytest.mark.parametrize("width, degree", [(32, 32), (33, None)])
def test_tiled_transpose_bank_conflicts(tmp_path, width, degree):
    f = write(tmp_path, "t.py", TRANSPOSE.replace("WIDTH", str(width)))
    out_path = tmp_path / "trace.json"
    shapes = ("--size", "a=32,64", "--size", "b=64,32")
    code, out = run(f, "-k", "transpose", "--dim", 2048, "--block-dim", 1024, *shapes,
                    "--out", out_path, "--format", "json")
    doc = json.loads(out)
    assert code == 0 and doc["races"] == [] and doc["trace"] == str(out_path)
    assert json.loads(out_path.read_text())["verikern_trace"] == 1
    if degree is None:
        assert doc["bank_conflicts"] == []
    else:
        (c,) = doc["bank_conflicts"]
        assert (c["line"], c["degree"], c["array"], c["op"]) == (15, degree, "tile", "read")
        assert c["conflicted"] == c["accesses"] == 2 * 32
        code, text = run(f, "-k", "transpose", "--dim", 2048, "--block-dim", 1024, *shapes)
        assert code == 0 and f"{f}:15:" in text and "32-way bank conflict" in text


def test_runtime_error_is_reported_with_location(tmp_path):
    f = write(tmp_path, "oob.py", OOB)
    code, out = run(f, "--dim", 64, "--block-dim", 32)
    assert code == 1 and f"{f}:7:" in out and "Traceback" not in out
    code, out = run(f, "--dim", 64, "--block-dim", 32, "--format", "json")
    doc = json.loads(out)
    assert code == 1 and doc["status"] == "runtime-error"
    assert doc["error"]["kind"] == "bounds" and doc["error"]["line"] == 7


def test_requires_are_solved_or_reported(tmp_path):
    f = write(tmp_path, "scale.py", SCALE)
    code, out = run(f, "--dim", 128, "--block-dim", 64, "--format", "json")
    assert code == 0 and json.loads(out)["params"]["n"] == 77
    code, out = run(f, "--dim", 128, "--block-dim", 64, "--param", "n=5", "--param", "a=2")
    assert code == 3 and "--param" in out and "scale.py:6" in out


def test_block_dim_is_searched_when_not_fixed(tmp_path):
    f = write(tmp_path, "rot.py", ROTATE)
    code, out = run(f, "--dim", 512, "--format", "json")
    doc = json.loads(out)
    assert code == 0 and doc["block_dim"] == 128 and doc["races"] == []
    code, out = run(f, "--dim", 512, "--block-dim", 256)
    assert code == 3 and "rot.py:6" in out


def test_input_errors_exit_3(tmp_path):
    f = write(tmp_path, "scale.py", SCALE)
    assert run(tmp_path / "missing.py", "--dim", 4)[0] == 3
    code, out = run(f, "--kernel", "nope", "--dim", 4)
    assert code == 3 and "no kernel named 'nope'" in out and "scale" in out
    code, out = run(f, "--dim", 4, "--param", "zz=1")
    assert code == 3 and "no scalar parameter 'zz'" in out
    code, out = run(f, "--dim", 4, "--param", "n=abc")
    assert code == 3 and "not a valid int32" in out
    code, out = run(f, "--dim", 4, "--size", "x=2,3")
    assert code == 3 and "not a shape for a 1-d array" in out
    code, out = run(f, "--dim", 128, "--out", tmp_path / "no" / "such" / "dir.json")
    assert code == 3 and "cannot write the trace" in out
    code, out = run(f, "--dim", 4, "--format", "json", "--kernel", "nope")
    assert code == 3 and json.loads(out)["status"] == "input-error"
    bad = write(tmp_path, "bad.py",
                "import verikern as vk\n\n@vk.kernel\ndef k(x: vk.array(dtype=vk.float32)):\n    y = [1]\n")
    code, out = run(bad, "--dim", 4)
    assert code == 3 and "bad.py:5:" in out
    binary = tmp_path / "binary.py"
    binary.write_bytes(b"\xff\xfe not utf-8")
    code, out = run(binary, "--dim", 4)
    assert code == 3 and "binary.py" in out and "Traceback" not in out


def test_bad_options_exit_3(tmp_path):
    f = write(tmp_path, "scale.py", SCALE)
    assert run(f, "--dim", "0")[0] == 3
    assert run(f, "--dim", "a,b")[0] == 3
    assert run(f, "--dim", 4, "--param", "novalue")[0] == 3
    assert run(f)[0] == 3                      # --dim is required


def test_help_has_examples():
    code, out = run("--help")
    assert code == 0 and "Examples:" in out and "--param NAME=VALUE" in out
    assert "Exit status:" in out


ROWSUM = """\
import warp as wp


@wp.kernel
def rowsum(m: wp.array(dtype=wp.float32, ndim=2), out: wp.array(dtype=wp.float32)):
    i, j = wp.tid()
    out[i] = out[i] + m[i, j]
"""


def test_2d_launch_plain_read_modify_write_races_and_reports_inputs(tmp_path):
    f = write(tmp_path, "rowsum.py", ROWSUM)
    code, out = run(f, "--dim", "8,16", "--block-dim", 32, "--format", "json", "--seed", 3)
    doc = json.loads(out)
    assert code == 1 and doc["shapes"] == {"m": [8, 16], "out": [128]} and doc["params"] == {}
    kinds = {(r["kind"], r["array"], r["op"], r["other_op"]) for r in doc["races"]}
    # threads (i, j) and (i, j') share out[i]; a row (16 threads) never spans two blocks
    assert kinds == {("intra-block", "out", "write", "write"),
                     ("intra-block", "out", "write", "read")}
    assert all(r["line"] == 7 and r["other_line"] == 7 for r in doc["races"])
    atomic = write(tmp_path, "rowsum_atomic.py",
                   ROWSUM.replace("out[i] = out[i] + m[i, j]", "out[i] += m[i, j]"))
    code, out = run(atomic, "--dim", "8,16", "--block-dim", 32)
    assert code == 0, out


LONG_LOOP = """\
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


def test_max_steps_is_an_option_and_the_message_names_it(tmp_path):
    src = tmp_path / "spin.py"
    src.write_text(LONG_LOOP)
    runner = CliRunner()
    stopped = runner.invoke(command, [str(src), "--dim", "32", "--param", "n=2000", "--max-steps", "500"])
    assert stopped.exit_code == 1, stopped.output
    assert "did not finish after 500 scheduling steps" in stopped.stdout
    assert "--max-steps N" in stopped.stdout and "simulate(" not in stopped.stdout
    enough = runner.invoke(command, [str(src), "--dim", "32", "--param", "n=2000", "--max-steps", "100000"])
    assert enough.exit_code == 0, enough.output
    assert "no data race" in enough.stdout
    assert "--max-steps N" in runner.invoke(command, ["--help"]).stdout
