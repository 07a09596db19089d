"""Renderers: short, text, JSON (stable schema) and SARIF (validated)."""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from helpers_prove import cex, error_report, obligation, report
from verikern import __version__
from verikern.mir.nodes import SourceLoc
from verikern.proofs.reporting import common
from verikern.proofs.reporting import render as rep
from verikern.proofs.obligations import KernelStatus, ObligationKind, Status

# The official OASIS schema, copied into the repository (origin and licence: tests/data/README.md).
SARIF_SCHEMA = Path(__file__).resolve().parents[2] / "data" / "sarif-schema-2.1.0.json"

# The JSON schema promised to users: these key sets may only grow, never change.
TOP_KEYS = {"verikern", "kernels"}
KERNEL_KEYS = {"file", "kernel", "status", "seconds", "obligations"}
OBLIGATION_KEYS = {"kind", "status", "line", "col", "message", "counterexample", "confirmed"}
CEX_KEYS = {"dims", "block_dim", "threads", "scalars", "shapes", "arrays", "facts", "abstracted"}


@pytest.fixture
def kernel_file(tmp_path):
    p = tmp_path / "k.py"
    p.write_text("import verikern as vk\n\n@vk.kernel\ndef k(x: vk.array(dtype=vk.float32), n: int):\n"
                 "    i = vk.tid()\n    x[i + 1] = 0.0\n")
    return str(p)


def sample_reports(file):
    failed = obligation(status=Status.FAILED, file=file, line=6, col=5,
                        message="x[i + 1] reads index 7 but x.shape[0] == 7",
                        counterexample=cex(arrays={"idx": {2: np.int32(9)}}), confirmed=True,
                        reason="confirmed by replay: OutOfBoundsError at line 6")
    unknown = obligation(kind=ObligationKind.RACE, status=Status.UNKNOWN, file=file, line=6, col=5,
                         message="race on x", reason="solver timeout after 10 s",
                         other_loc=SourceLoc(file, 5, 5))
    proved = obligation(kind=ObligationKind.DIV_ZERO, status=Status.PROVED, file=file, line=5, col=9)
    return [report([failed, unknown, proved], file=file, kernel="k"),
            report([proved], file=file, kernel="ok"),
            error_report(file=file)]


def test_short_has_one_line_per_failure_unknown_and_error(kernel_file):
    text = rep.render_short(sample_reports(kernel_file))
    assert text.splitlines() == [
        f"{kernel_file}:6:5: error: bounds: x[i + 1] reads index 7 but x.shape[0] == 7",
        f"{kernel_file}:6:5: warning: unknown: solver timeout after 10 s",
        "k.py:4:5: error: lists are not allowed",
    ]


def test_short_is_empty_when_everything_is_proved():
    assert rep.render_short([report([obligation()])]) == ""


def test_json_schema_is_stable(kernel_file):
    data = json.loads(rep.render_json(sample_reports(kernel_file)))
    assert TOP_KEYS <= set(data)       # keys are only ever added
    assert data["verikern"] == __version__
    assert [k["status"] for k in data["kernels"]] == ["failed", "proved", "error"]
    for k in data["kernels"]:
        assert KERNEL_KEYS <= set(k)
        for ob in k["obligations"]:
            assert OBLIGATION_KEYS <= set(ob)
            assert ob["kind"] in {"bounds", "race", "divergence", "assert", "invariant", "div-zero",
                                  "uninit"}
            assert ob["status"] in {"proved", "failed", "unknown"}
            assert ob["confirmed"] in (True, False, None)
            if ob["counterexample"] is not None:
                assert CEX_KEYS == set(ob["counterexample"])
    failed = data["kernels"][0]["obligations"][0]
    assert failed["counterexample"]["threads"] == [{"block": 1, "thread": 3}]
    assert failed["counterexample"]["arrays"] == {"idx": {"2": 9}}
    assert failed["confirmed"] is True
    race = data["kernels"][0]["obligations"][1]
    assert (race["other_line"], race["other_col"]) == (5, 5)
    assert data["kernels"][2]["error"] == "k.py:4:5: error: lists are not allowed"


def test_json_safe_converts_numpy_and_non_finite_floats():
    value = {"a": np.float32(1.5), "b": (np.int64(3), math.nan), 4: -math.inf, "c": np.arange(2)}
    assert rep.json_safe(value) == {"a": 1.5, "b": [3, "nan"], "4": "-inf", "c": [0, 1]}
    json.dumps(rep.json_safe(value), allow_nan=False)


def test_text_shows_status_lines_source_caret_counterexample_and_replay(kernel_file):
    text = rep.render_text(sample_reports(kernel_file))
    lines = text.splitlines()
    assert lines[0].startswith("FAILED  k (3 obligations, 0.25 s)")
    assert any(line.startswith("PROVED  ok (1 obligation, 0.25 s)") for line in lines)
    assert any(line.startswith("ERROR   bad") for line in lines)
    src = lines.index("      x[i + 1] = 0.0")
    assert lines[src + 1] == "      ^"                     # col 5 == first char after the indent
    assert "    launch: dim=8, block_dim=4 (2 blocks)" in lines
    assert "    threads: thread 3 of block 1 (tid 7)" in lines
    assert "    params: n=7" in lines
    assert any(line.startswith("    why: an index can leave its array") for line in lines)
    assert "    shapes: x.shape=(7,)" in lines
    assert "    contents: idx[2]=9 (all other elements 0)" in lines
    assert "    simulator: confirmed: OutOfBoundsError at line 6" in lines
    assert f"  {kernel_file}:6:5: warning: unknown: solver timeout after 10 s" in lines
    assert lines[-1] == "3 kernels: 1 proved, 1 failed, 0 unknown, 1 error"


def test_text_color_is_rich_markup_with_escaped_user_text(kernel_file):
    text = rep.render_text(sample_reports(kernel_file), color=True)
    assert "[bold red]FAILED [/]" in text
    assert r"x\[i + 1]" in text            # user text escaped, not parsed as markup
    from rich.console import Console
    console = Console(record=True, width=200, color_system=None)
    console.print(text)
    assert "FAILED  k (3 obligations" in console.export_text()


def test_text_reports_unconfirmed_failure():
    ob = obligation(status=Status.FAILED, message="bad", counterexample=cex(), confirmed=False,
                    reason="not confirmed by replay: launch too large to replay: 4194304 threads")
    text = rep.render_text([report([ob])])
    assert "    simulator: NOT confirmed: launch too large to replay: 4194304 threads\n" in text


def test_render_rejects_unknown_format():
    with pytest.raises(ValueError, match="unknown report format 'xml'"):
        rep.render([], "xml")


def test_sarif_validates_against_the_2_1_0_schema(kernel_file):
    import jsonschema  # installed by the test extra: this check never skips

    data = json.loads(rep.render_sarif(sample_reports(kernel_file)))
    schema = json.loads(SARIF_SCHEMA.read_text())
    jsonschema.validate(data, schema)
    results = data["runs"][0]["results"]
    assert [(r["ruleId"], r["level"]) for r in results] == [
        ("bounds", "error"), ("race", "warning"), ("compile-error", "error")]
    region = results[0]["locations"][0]["physicalLocation"]["region"]
    assert (region["startLine"], region["startColumn"]) == (6, 5)
    rules = data["runs"][0]["tool"]["driver"]["rules"]
    assert all(rules[r["ruleIndex"]]["id"] == r["ruleId"] for r in results)


def test_sarif_required_fields_by_hand():
    data = rep.to_sarif_data([report([obligation(status=Status.FAILED, line=0, col=0, message="m")])])
    assert data["version"] == "2.1.0" and len(data["runs"]) == 1
    result = data["runs"][0]["results"][0]
    assert result["message"]["text"] == "k: m"
    assert "region" not in result["locations"][0]["physicalLocation"]   # line 0: no region


def test_every_kernel_status_has_a_style():
    assert set(rep._STATUS_STYLE) == set(KernelStatus)
    assert set(common.KIND_TEXT) == set(ObligationKind)
    assert set(common.EXPLANATION) == set(ObligationKind)
