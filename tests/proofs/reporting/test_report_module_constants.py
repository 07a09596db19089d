"""A constant a kernel reads as an attribute of a project module (`c.N`,
`pkg.config.N`) is read from that module's source, while Warp reads the
value the module holds when it builds the kernel (a settings module users
set from their own code). Every report states the value proved with as an
assumption of the kernel's scope (mir.nodes.ModuleConstantRead)."""
from __future__ import annotations

import json

from helpers_report import cli, validate_report

KERNEL = """\
import warp as wp
import verikern as vk

import vkc as proj


@vk.requires(lambda out: out.shape[0] == 4)
@wp.kernel
def fill(out: wp.array(dtype=wp.int32)):
    i = wp.tid()
    if i < proj.config.max_nodes:
        out[i] = 1
"""

PLAIN = """\
import warp as wp
import verikern as vk


@vk.requires(lambda out: out.shape[0] == 4)
@wp.kernel
def fill(out: wp.array(dtype=wp.int32)):
    i = wp.tid()
    if i < 4:
        out[i] = 1
"""


def _project(tmp_path, kernel_text: str):
    pkg = tmp_path / "vkc"
    (pkg / "core").mkdir(parents=True)
    (pkg / "__init__.py").write_text("from .core import config\n")
    (pkg / "core" / "__init__.py").write_text("from . import config\n")
    (pkg / "core" / "config.py").write_text("max_nodes = 4\n")
    (pkg / "kern.py").write_text(kernel_text)
    return pkg / "kern.py"


def test_a_settings_module_constant_is_an_assumption_in_json_and_text(tmp_path, monkeypatch):
    kern = _project(tmp_path, KERNEL)
    monkeypatch.chdir(tmp_path)
    code, out, _ = cli("prove", kern, "--format", "json", "--no-cache", "--no-suggest")
    assert code == 0, out
    data = json.loads(out)
    validate_report(data)
    (k,) = data["kernels"]
    assert k["status"] == "proved"
    reads = [c for c in k["scope"]["contracts"] if c["kind"] == "module constant"]
    assert [(c["line"], c["col"]) for c in reads] == [(11, 12)]
    assert reads[0]["text"].startswith("proj.config.max_nodes == 4 (its value in vkc/core/config.py;")
    assert "not covered" in reads[0]["text"]
    code, text, _ = cli("prove", kern, "--no-cache", "--no-suggest")
    assert code == 0, text
    assert "module constant: proj.config.max_nodes == 4" in text
    # the sign-off document lists it among the assumptions; the requires stays the requires
    code, md, _ = cli("report", kern, "--md", "--no-cache")
    assert code == 0, md
    assert "module constant proj.config.max_nodes == 4 (its value in vkc/core/config.py;" in md
    assert "every 1-D launch and argument the requires admit" in md


def test_a_kernel_without_module_attributes_states_none(tmp_path, monkeypatch):
    kern = _project(tmp_path, PLAIN)
    monkeypatch.chdir(tmp_path)
    code, out, _ = cli("prove", kern, "--format", "json", "--no-cache", "--no-suggest")
    assert code == 0, out
    (k,) = json.loads(out)["kernels"]
    assert [c["kind"] for c in k["scope"]["contracts"]] == ["requires"]


FROM_IMPORT = KERNEL.replace("import vkc as proj\n", "from vkc.core.config import max_nodes\n").replace(
    "proj.config.max_nodes", "max_nodes")


def test_a_constant_imported_by_name_from_a_project_module_is_an_assumption_too(tmp_path, monkeypatch):
    """`from pkg.config import N` binds the value the module holds when the
    kernel's module is imported: a program that sets `config.N` first changes it."""
    kern = _project(tmp_path, FROM_IMPORT)
    monkeypatch.chdir(tmp_path)
    code, out, _ = cli("prove", kern, "--format", "json", "--no-cache", "--no-suggest")
    assert code == 0, out
    (k,) = json.loads(out)["kernels"]
    reads = [c for c in k["scope"]["contracts"] if c["kind"] == "module constant"]
    assert [c["text"].split(" (")[0] for c in reads] == ["max_nodes == 4"]
    assert "vkc/core/config.py" in reads[0]["text"]
