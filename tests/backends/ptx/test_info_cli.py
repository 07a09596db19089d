"""`verikern info`: ptxas -v resources per kernel as a table or JSON; exit codes."""
import json

import pytest
from click.testing import CliRunner

from verikern.backends.ptx import find_ptxas
from verikern.cli import main

needs_ptxas = pytest.mark.skipif(find_ptxas() is None, reason="ptxas not found (pip install 'verikern[cuda]')")

SOURCE = '''import verikern as vk

@vk.kernel
def scale(x: vk.array(dtype=vk.float32), a: vk.float32):
    i = vk.tid()
    if i < x.shape[0]:
        x[i] = a * x[i]

@vk.kernel(block_dim=128)
def tile_sum(x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32)):
    buf = vk.shared.array(shape=(128,), dtype=vk.float32)
    t = vk.thread_idx()
    i = vk.tid()
    v = 0.0
    if i < x.shape[0]:
        v = x[i]
    buf[t] = v
    vk.sync_threads()
    if t == 0:
        s = 0.0
        for k in range(128):
            s = s + buf[k]
        if vk.block_idx() < out.shape[0]:
            out[vk.block_idx()] = s
'''


@pytest.fixture
def kernel_file(tmp_path):
    path = tmp_path / "two.py"
    path.write_text(SOURCE)
    return path


def invoke(*args):
    return CliRunner().invoke(main, ["info", *map(str, args)])


@needs_ptxas
def test_json_reports_ptxas_numbers(kernel_file):
    res = invoke(kernel_file, "--format", "json", "--arch", "sm_90")
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    rows = {r["kernel"]: r for r in data["kernels"]}
    assert set(rows) == {"scale", "tile_sum"}
    assert rows["tile_sum"]["shared_bytes"] == 128 * 4
    assert rows["scale"]["shared_bytes"] == 0
    assert (rows["tile_sum"]["barriers"], rows["scale"]["barriers"]) == (1, 0)
    assert all(r["registers"] > 0 and r["arch"] == "sm_90" for r in rows.values())
    assert all(r["spill_stores"] == 0 and r["stack_bytes"] == 0 for r in rows.values())


@needs_ptxas
def test_json_matches_a_direct_assemble(kernel_file):
    from verikern.backends.ptx import assemble, compile_ptx
    from verikern.frontend import compile_file

    mir = compile_file(kernel_file).kernel("tile_sum").mir
    direct = assemble(compile_ptx(mir, "sm_80"), "sm_80")
    res = invoke(kernel_file, "--kernel", "tile_sum", "--format", "json")
    row, = json.loads(res.output)["kernels"]
    assert (row["registers"], row["shared_bytes"], row["stack_bytes"]) == \
        (direct.registers, direct.shared_bytes, direct.stack_bytes)


@needs_ptxas
def test_table_lists_each_kernel(kernel_file):
    res = invoke(kernel_file)
    assert res.exit_code == 0, res.output
    assert "scale" in res.output and "tile_sum" in res.output and "512" in res.output
    assert "sm_80" in res.output


def test_missing_ptxas_exits_3_with_how_to_get_it(kernel_file, monkeypatch):
    import verikern.backends.ptx as ptx

    monkeypatch.setattr(ptx, "find_ptxas", lambda: None)
    res = invoke(kernel_file)
    assert res.exit_code == 3
    assert "pip install 'verikern[cuda]'" in res.output


@pytest.mark.parametrize("args,text", [
    (("--arch", "sm_70"), "sm_75 or newer"),
    # the kernel is looked up after ptxas is found (no ptxas is itself exit 3)
    pytest.param(("--kernel", "nope"), "no kernel named 'nope'", marks=needs_ptxas),
])
def test_input_errors_exit_3(kernel_file, args, text):
    res = invoke(kernel_file, *args)
    assert res.exit_code == 3
    assert text in res.output


def test_missing_file_exits_3(tmp_path):
    res = invoke(tmp_path / "absent.py")
    assert res.exit_code == 3 and "no such file" in res.output


@needs_ptxas
def test_kernel_compile_error_exits_3(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("import verikern as vk\n\n@vk.kernel\ndef k(x: vk.array(dtype=vk.float32)):\n"
                   "    x[0] = [1.0]\n")
    res = invoke(bad)
    assert res.exit_code == 3
    assert "bad.py:5" in res.output


def test_kernel_handle_ptx_property():
    import importlib.util
    from pathlib import Path

    from verikern.backends.ptx import ptx_for

    path = Path(__file__).resolve().parents[3] / "examples" / "saxpy.py"
    spec = importlib.util.spec_from_file_location("vk_example_saxpy_ptx", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    handle = module.saxpy
    assert ".target sm_80" in handle.ptx and ".visible .entry saxpy(" in handle.ptx
    assert ".target sm_90" in ptx_for(handle, "sm_90")
    assert ptx_for(handle.mir, "sm_90") == ptx_for(handle, "sm_90")
