"""Every report states its scope: contracts, launch, limits, budgets,
versions and hashes (JSON validated against the schema in docs/schemas)."""
from __future__ import annotations

import hashlib
import json
import platform
import xml.etree.ElementTree as ET

import z3

from helpers_report import GATHER, SAXPY, UNGUARDED, cli, copy, validate_report
from verikern import __version__


def test_json_states_contracts_launch_limits_budget_versions_and_hashes(tmp_path):
    saxpy, gather = copy(SAXPY, tmp_path), copy(GATHER, tmp_path)
    code, out, _ = cli("prove", saxpy, gather, "--format", "json", "--budget", "7", "--block-dim", "64")
    assert code == 0, out
    data = json.loads(out)
    validate_report(data)
    assert data["schema_version"] == "1.0"
    assert data["versions"]["verikern"] == __version__
    assert data["versions"]["z3"] == z3.get_version_string()
    assert data["versions"]["python"] == platform.python_version()
    assert data["options"] == {"kernel": None, "dims": None, "block_dim": 64, "budget": 7.0,
                               "max_array_bytes": 2 ** 40}
    assert data["sources"] == [
        {"path": str(p), "sha256": hashlib.sha256(p.read_bytes()).hexdigest()} for p in (saxpy, gather)]
    sx, ga = data["kernels"]
    # the contract as written in the source, at its line
    assert sx["scope"]["contracts"] == [{"kind": "requires", "line": 14, "col": 5,
                                         "text": "x.shape[0] == y.shape[0]"}]
    assert "vk.requires(x.shape[0] == y.shape[0])" in saxpy.read_text().splitlines()[13]
    assert [(c["kind"], c["text"]) for c in ga["scope"]["contracts"]] == \
        [("all_in_range", "vk.all_in_range(idx, 0, x.shape[0])")]
    assert sx["scope"]["launch"] == {"dims": None, "block_dim": 64, "block_dim_from": "option",
                                     "launch_ndim": 1}
    assert sx["scope"]["budget"]["per_check_million_units"] == 7.0
    # the kernel's total the run had: --kernel-budget's default, 10 per-check budgets
    assert sx["scope"]["budget"]["kernel_total_units"] == 70_000_000
    assert "total thread count < 2**31" in sx["scope"]["hardware_limits"]
    assert "2**31" in sx["scope"]["array_bound"] and "--max-array-bytes" in sx["scope"]["array_bound"]
    assert any(x.startswith("float accuracy") for x in sx["scope"]["not_checked"])
    assert any(x.startswith("termination") for x in sx["scope"]["not_checked"])
    assert sx["cached"] is False


def test_the_kernel_total_stated_is_the_one_given(tmp_path):
    """--kernel-budget N is the total the report states (it once stated a fixed 4 checks'
    worth whatever the option said), and it survives the report's JSON round trip."""
    from verikern.proofs.reporting.scope import Scope

    saxpy = copy(SAXPY, tmp_path)
    code, out, _ = cli("prove", saxpy, "--format", "json", "--kernel-budget", "55", "--no-cache")
    assert code == 0, out
    scope = json.loads(out)["kernels"][0]["scope"]
    assert scope["budget"]["kernel_total_units"] == 55_000_000
    assert Scope.from_json(scope).to_json()["budget"] == scope["budget"]


def test_mir_hash_is_the_hash_of_the_printed_mir(tmp_path):
    from verikern.frontend import compile_file
    from verikern.mir.printer import format_kernel

    saxpy = copy(SAXPY, tmp_path)
    code, out, _ = cli("prove", saxpy, "--format", "json")
    mir = compile_file(str(saxpy)).kernels[0].mir
    expected = hashlib.sha256(format_kernel(mir).encode()).hexdigest()
    assert json.loads(out)["kernels"][0]["scope"]["mir_sha256"] == expected
    # an edit that changes the kernel changes the MIR hash; a comment does not
    saxpy.write_text(saxpy.read_text() + "\n# a comment\n")
    _, out2, _ = cli("prove", saxpy, "--format", "json")
    assert json.loads(out2)["kernels"][0]["scope"]["mir_sha256"] == expected
    assert json.loads(out2)["sources"][0]["sha256"] != json.loads(out)["sources"][0]["sha256"]
    saxpy.write_text(saxpy.read_text().replace("a * x[i] + y[i]", "a * x[i] - y[i]"))
    _, out3, _ = cli("prove", saxpy, "--format", "json")
    assert json.loads(out3)["kernels"][0]["scope"]["mir_sha256"] != expected


def test_fixed_dims_and_kernel_block_dim_are_stated(tmp_path):
    src = tmp_path / "k.py"
    src.write_text("import verikern as vk\n\n@vk.kernel(block_dim=32)\n"
                   "def k(x: vk.array(dtype=vk.float32)):\n    i = vk.tid()\n"
                   "    if i < x.shape[0]:\n        x[i] = 0.0\n")
    code, out, _ = cli("prove", src, "--format", "json", "--dim", "64")
    assert code == 0, out
    k = json.loads(out)["kernels"][0]
    validate_report(json.loads(out))
    assert k["scope"]["launch"]["dims"] == [64]
    assert (k["scope"]["launch"]["block_dim"], k["scope"]["launch"]["block_dim_from"]) == (32, "kernel")
    assert k["scope"]["contracts"] == []


def test_text_states_the_assumptions_and_versions(tmp_path):
    code, out, _ = cli("prove", copy(SAXPY, tmp_path), "--dim", "8")
    lines = out.splitlines()
    assert lines[1].startswith("  assumes: x.shape[0] == y.shape[0]; dim=8, every block_dim; budget 10M")
    assert f"verikern {__version__}, z3 {z3.get_version_string()}, Python {platform.python_version()}" \
        in lines[-2]
    assert lines[-1] == "1 kernel: 1 proved, 0 failed, 0 unknown, 0 error"


def test_junit_has_a_case_per_kernel_and_a_failure_per_failed_obligation(tmp_path):
    saxpy, bug = copy(SAXPY, tmp_path), copy(UNGUARDED, tmp_path)
    code, out, _ = cli("prove", saxpy, bug, "--format", "junit")
    assert code == 1
    root = ET.fromstring(out)
    assert (root.get("tests"), root.get("failures"), root.get("errors")) == ("2", "1", "0")
    cases = root.findall("./testsuite/testcase")
    assert [c.get("name") for c in cases] == ["saxpy", "fill_unguarded"]
    assert cases[0].find("failure") is None
    failures = cases[1].findall("failure")
    assert len(failures) == 1 and failures[0].get("type") == "bounds"
    assert failures[0].get("message").startswith(f"{bug}:11:5: ")
    assert "launch: dim=" in failures[0].text and "simulator: confirmed" in failures[0].text


def test_no_report_calls_a_decided_obligation_kind_unchecked(tmp_path):
    """The scope's 'not checked' list names no property an obligation kind
    decides: a kernel whose shared reads are proved initialised ('uninit')
    is not reported beside 'uninit is not checked' in any format."""
    from helpers_report import CORPUS
    from verikern.proofs.obligations import ObligationKind
    from verikern.proofs.reporting.scope import NOT_CHECKED

    kernel = copy(CORPUS / "ok_shared_uniform_flag_init.py", tmp_path)
    code, out, _ = cli("prove", kernel, "--format", "json")
    assert code == 0, out
    (data,) = json.loads(out)["kernels"]
    assert any(o["kind"] == "uninit" and o["status"] == "proved" for o in data["obligations"])
    listed = " ".join(NOT_CHECKED).lower()
    assert data["scope"]["not_checked"] == list(NOT_CHECKED)
    for kind in ObligationKind:
        assert f"'{kind.value}'" not in listed, kind
    assert "no thread wrote" not in listed and "not checked yet" not in listed
    html = tmp_path / "r.html"
    assert cli("report", kernel, "-o", html)[0] == 0
    code, markdown, _ = cli("report", kernel, "--md")
    assert code == 0 and "not checked" in markdown
    for text in (html.read_text(), markdown, out):
        assert "not checked yet" not in text and "no thread wrote" not in text
