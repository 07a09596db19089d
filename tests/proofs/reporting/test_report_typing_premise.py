"""A generic kernel's typing premise is stated in every report format's scope
(text, JSON -- schema-valid, contract kind `typing premise` --, Markdown and
HTML), with the instantiations it admits; a kernel without one states none."""
from __future__ import annotations

import json

from helpers_report import cli, validate_report

KERNEL = """\
from typing import Any

import warp as wp
import verikern as vk


@vk.requires(lambda positions: positions.dtype in (wp.vec3f, wp.vec3d))
@wp.kernel
def centre(positions: wp.array(dtype=Any), out: wp.array(dtype=float)):
    i = wp.tid()
    if i < positions.shape[0] and i < out.shape[0]:
        p = positions[i]
        out[i] = float(p[0] + p[1] + p[2])
"""
ADMITS = "admits: centre[vec3], centre[vec3d], each with its own verdict"


def test_every_format_states_the_premise_and_what_it_admits(tmp_path, monkeypatch):
    path = tmp_path / "prem.py"
    path.write_text(KERNEL)
    monkeypatch.chdir(tmp_path)
    code, out, _ = cli("prove", path, "--format", "json", "--no-cache", "--no-suggest")
    assert code == 0, out
    data = json.loads(out)
    validate_report(data)
    assert [k["kernel"] for k in data["kernels"]] == ["centre[vec3]", "centre[vec3d]"]
    for k in data["kernels"]:
        assert k["status"] == "proved"
        (c,) = [c for c in k["scope"]["contracts"] if c["kind"] == "typing premise"]
        assert (c["line"], c["col"]) == (7, 32)
        assert c["text"].startswith("positions.dtype in (wp.vec3f, wp.vec3d) (the kernel is proved only")
        assert ADMITS in c["text"]
    code, text, _ = cli("prove", path, "--no-cache", "--no-suggest")
    assert code == 0 and "assumes: typing premise: positions.dtype in (wp.vec3f, wp.vec3d)" in text
    for fmt in ("--md", None):
        code, doc, _ = cli("report", path, "--no-cache", *([fmt] if fmt else []))
        assert code == 0, doc
        assert "typing premise: positions.dtype in (wp.vec3f, wp.vec3d)" in doc
        assert ADMITS in doc


def test_a_generic_kernel_without_a_premise_states_none(tmp_path, monkeypatch):
    path = tmp_path / "plain.py"
    path.write_text(KERNEL.replace("@vk.requires(lambda positions: positions.dtype in (wp.vec3f, wp.vec3d))\n",
                                   "").replace("float(p[0] + p[1] + p[2])", "float(p)"))
    monkeypatch.chdir(tmp_path)
    code, out, _ = cli("prove", path, "--format", "json", "--no-cache", "--no-suggest")
    data = json.loads(out)
    validate_report(data)
    assert data["kernels"] and all(c["kind"] != "typing premise" for k in data["kernels"]
                                   for c in (k.get("scope") or {}).get("contracts", []))
