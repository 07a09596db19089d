"""`verikern prove` end to end: exit codes, filters, folders, formats, and
the guarantee that user files are read, never executed."""
from __future__ import annotations

import json
import subprocess
import sys
import re
import textwrap

from click.testing import CliRunner

from helpers_prove import obligation
from verikern.cli import main
from verikern.proofs.obligations import Status

PROGRESS = re.compile(r"\[\d+/\d+ files\] ")      # a per-kernel progress line on stderr

GOOD = '''\
import verikern as vk

@vk.kernel
def saxpy(x: vk.array(dtype=vk.float32), y: vk.array(dtype=vk.float32), a: vk.float32):
    vk.requires(x.shape[0] == y.shape[0])
    i = vk.tid()
    if i < x.shape[0]:
        y[i] = a * x[i] + y[i]
'''

BOUNDS_BUG = '''\
import verikern as vk

@vk.kernel
def shift(x: vk.array(dtype=vk.float32), y: vk.array(dtype=vk.float32)):
    vk.requires(x.shape[0] == y.shape[0])
    i = vk.tid()
    if i < x.shape[0]:
        y[i] = x[i + 1]
'''

ONE_BAD_ONE_GOOD = '''\
import verikern as vk

@vk.kernel
def bad(x: vk.array(dtype=vk.float32)):
    i = vk.tid()
    xs = [1.0, 2.0]
    x[0] = xs[0]

@vk.kernel
def good(x: vk.array(dtype=vk.float32)):
    i = vk.tid()
    if i < x.shape[0]:
        x[i] = 1.0
'''

SYNTAX_ERROR = '''\
import verikern as vk

@vk.kernel
def broken(x: vk.array(dtype=vk.float32):
    x[0] = 1.0
'''


def write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(textwrap.dedent(text))
    return str(p)


def prove(*args):
    """(exit code, stdout then stderr without the per-kernel progress lines)."""
    result = CliRunner().invoke(main, ["prove", *args], catch_exceptions=False)
    errors = [line for line in result.stderr.splitlines(keepends=True) if not PROGRESS.match(line)]
    return result.exit_code, result.stdout + "".join(errors)


def test_all_proved_exits_0(tmp_path):
    code, out = prove(write(tmp_path, "good.py", GOOD))
    assert code == 0, out
    assert out.startswith("PROVED  saxpy (")
    assert out.splitlines()[-1] == "1 kernel: 1 proved, 0 failed, 0 unknown, 0 error"


def test_failure_exits_1_with_a_confirmed_counterexample(tmp_path):
    path = write(tmp_path, "bug.py", BOUNDS_BUG)
    code, out = prove(path)
    assert code == 1, out
    assert out.startswith("FAILED  shift (")
    assert f"{path}:8:" in out and "error: bounds:" in out
    assert "        y[i] = x[i + 1]" in out or "      y[i] = x[i + 1]" in out
    assert "simulator: confirmed" in out
    code, out = prove(path, "--format", "short")
    assert code == 1
    lines = out.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"{path}:8:") and ": error: bounds: " in lines[0]


def test_unknown_exits_2(tmp_path, monkeypatch):
    import verikern.proofs.deciding.prover as prover

    def undecided(kernel, **kw):
        return (obligation(status=Status.UNKNOWN, reason="solver timeout after 0.1 s"),)
    monkeypatch.setattr(prover, "prove_kernel", undecided)
    code, out = prove(write(tmp_path, "good.py", GOOD), "--format", "short")
    assert code == 2
    assert out.strip().endswith("warning: unknown: solver timeout after 0.1 s")


def test_input_errors_exit_3(tmp_path):
    good = write(tmp_path, "good.py", GOOD)
    assert prove(str(tmp_path / "missing.py"))[0] == 3
    assert prove(good, "--dim", "0")[0] == 3
    assert prove(good, "--block-dim", "2000")[0] == 3
    assert prove(good, "--budget", "-1")[0] == 3
    assert prove(good, "--budget", "0")[0] == 3
    assert prove(good, "--format", "xml")[0] == 3
    code, out = prove(good, "--kernel", "nope")
    assert code == 3 and "no kernel named nope" in out
    empty = tmp_path / "empty"
    empty.mkdir()
    assert prove(str(empty))[0] == 3
    code, _ = prove()
    assert code == 3


def test_syntax_error_gives_one_error_report_for_the_file(tmp_path):
    path = write(tmp_path, "broken.py", SYNTAX_ERROR)
    code, out = prove(path, "--format", "json")
    assert code == 3
    data = json.loads(out)
    assert len(data["kernels"]) == 1
    (k,) = data["kernels"]
    assert k["status"] == "error" and k["file"] == path and k["obligations"] == []
    assert f"{path}:4:" in k["error"]


def test_one_bad_and_one_good_kernel(tmp_path):
    path = write(tmp_path, "mixed.py", ONE_BAD_ONE_GOOD)
    code, out = prove(path, "--format", "json")
    assert code == 3
    kernels = {k["kernel"]: k for k in json.loads(out)["kernels"]}
    assert kernels["bad"]["status"] == "error" and f"{path}:6:" in kernels["bad"]["error"]
    assert kernels["good"]["status"] == "proved" and kernels["good"]["obligations"]
    # a failure elsewhere wins over the input error
    code, _ = prove(path, write(tmp_path, "bug.py", BOUNDS_BUG))
    assert code == 1


def test_kernel_filter_and_folder_input(tmp_path):
    folder = tmp_path / "kernels"
    (folder / "sub").mkdir(parents=True)
    write(folder, "a_good.py", GOOD)
    write(folder / "sub", "b_bug.py", BOUNDS_BUG)
    code, out = prove(str(folder), "--format", "json")
    data = json.loads(out)
    assert code == 1
    assert [(k["kernel"], k["status"]) for k in data["kernels"]] == [("saxpy", "proved"), ("shift", "failed")]
    code, out = prove(str(folder), "--kernel", "saxpy", "--format", "json")
    assert code == 0
    assert [k["kernel"] for k in json.loads(out)["kernels"]] == ["saxpy"]
    code2, out2 = prove(str(folder), "--format", "json", "--jobs", "2")
    assert code2 == 1
    assert [(k["kernel"], k["status"]) for k in json.loads(out2)["kernels"]] == [("saxpy", "proved"),
                                                                              ("shift", "failed")]


def test_dim_and_block_dim_reach_the_prover(tmp_path, monkeypatch):
    import verikern.proofs.deciding.prover as prover
    seen = {}

    def record(kernel, *, dims=None, block_dim=None, budget=None):
        seen.update(dims=dims, block_dim=block_dim, per_check=budget.per_check, total=budget.total)
        return (obligation(),)
    monkeypatch.setattr(prover, "prove_kernel", record)
    code, _ = prove(write(tmp_path, "good.py", GOOD), "--dim", "64", "--block-dim", "128", "--budget", "3")
    assert code == 0
    # 3 million z3 resource units per check; the kernel's total is the default floor
    assert seen == {"dims": (64,), "block_dim": 128, "per_check": 3_000_000,
                    "total": 20_000_000}


def test_output_file_and_sarif(tmp_path):
    out_file = tmp_path / "report.sarif"
    code, out = prove(write(tmp_path, "bug.py", BOUNDS_BUG), "--format", "sarif", "--output", str(out_file))
    assert code == 1 and out == ""
    data = json.loads(out_file.read_text())
    assert data["version"] == "2.1.0"
    assert [r["ruleId"] for r in data["runs"][0]["results"]] == ["bounds"]


MARKER_HOST_CODE = '''\
import verikern as vk
open({marker!r}, "w").write("executed")

@vk.kernel
def k(x: vk.array(dtype=vk.float32)):
    i = vk.tid()
    if i < x.shape[0]:
        x[i] = 2.0

def make_inputs(rng, n):
    open({marker!r}, "w").write("executed")

raise RuntimeError("importing this file is an error")
'''


def test_prove_never_executes_the_file(tmp_path):
    marker = tmp_path / "marker.txt"
    path = write(tmp_path, "host.py", MARKER_HOST_CODE.format(marker=str(marker)))
    code, out = prove(path)
    assert not marker.exists()
    assert code == 0, out
    proc = subprocess.run([sys.executable, "-c", "from verikern.cli import main; main()", "prove", path],
                          capture_output=True, text=True, timeout=120)
    assert not marker.exists()
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "PROVED  k" in proc.stdout


def test_progress_callback_sees_every_file(tmp_path):
    from verikern.app.prove import prove_paths
    a = write(tmp_path, "a.py", GOOD)
    b = write(tmp_path, "b.py", ONE_BAD_ONE_GOOD)
    calls = []
    reports = prove_paths([tmp_path], progress=lambda done, total, f, rs: calls.append((done, total, f, len(rs))))
    assert calls == [(1, 2, a, 1), (2, 2, b, 2)]
    assert [(r.kernel, r.status.value) for r in reports] == [("saxpy", "proved"), ("bad", "error"), ("good", "proved")]
