"""`verikern check-report`: re-runs the proofs of a JSON report and detects
an edited source, a changed option and an edited report."""
from __future__ import annotations

import json

from helpers_report import SAXPY, UNGUARDED, cli, copy


def _report(tmp_path, *extra):
    saxpy, bug = copy(SAXPY, tmp_path), copy(UNGUARDED, tmp_path)
    out = tmp_path / "report.json"
    code, _, _ = cli("prove", saxpy, bug, "--format", "json", "-o", out, *extra)
    assert code == 1
    return out, saxpy, bug


def test_an_unchanged_report_matches(tmp_path):
    out, _, _ = _report(tmp_path, "--budget", "8")
    code, text, _ = cli("check-report", out)
    assert code == 0, text
    assert "every source hash, verdict, assumption and option of 2 kernel(s) matches" in text


def test_an_edited_source_is_detected_even_when_verdicts_stay(tmp_path):
    out, saxpy, _ = _report(tmp_path)
    saxpy.write_text(saxpy.read_text() + "# edited\n")
    code, text, _ = cli("check-report", out)
    assert code == 1
    assert f"MISMATCH source {saxpy}: source hash: sha256" in text and "(the file changed)" in text
    assert "verdict" not in text.split("MISMATCH source")[0]


def test_a_fixed_bug_is_a_changed_verdict(tmp_path):
    out, _, bug = _report(tmp_path)
    bug.write_text(bug.read_text().replace("    out[i] = 1.0", "    if i < out.shape[0]:\n        out[i] = 1.0"))
    code, text, _ = cli("check-report", out)
    assert code == 1
    assert "verdict: failed in the report, proved now" in text
    assert ": MIR hash: " in text


def test_a_changed_option_is_detected(tmp_path):
    out, _, _ = _report(tmp_path)
    code, text, _ = cli("check-report", out, "--budget", "5")
    assert code == 1
    assert "MISMATCH option budget: the report says 10.0, the re-check used 5.0" in text
    assert "assumption budget" in text


def test_an_edited_option_in_the_report_is_detected(tmp_path):
    out, _, _ = _report(tmp_path)
    data = json.loads(out.read_text())
    data["options"]["dims"] = [64]                 # claims a proof for dim=64 only
    out.write_text(json.dumps(data))
    code, text, _ = cli("check-report", out)
    assert code == 1
    assert "assumption launch" in text


def test_an_unreadable_report_is_an_input_error(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert cli("check-report", bad)[0] == 3
    bad.write_text(json.dumps({"version": "2.1.0", "runs": []}))
    code, _, err = cli("check-report", bad)
    assert code == 3 and "not a verikern JSON report" in err


def test_only_fingerprints_changed_is_named_as_a_fingerprint_difference_and_nothing_else(tmp_path):
    out, _, bug = _report(tmp_path)
    data = json.loads(out.read_text())
    (failed,) = [ob for k in data["kernels"] for ob in k["obligations"] if ob["status"] == "failed"]
    recorded = failed["fingerprint"]
    failed["fingerprint"] = "0" * 32
    out.write_text(json.dumps(data))
    code, text, _ = cli("check-report", out)
    assert code == 1
    mismatches = [line for line in text.splitlines() if line.startswith("MISMATCH")]
    assert mismatches == [f"MISMATCH kernel fill_unguarded ({bug}): fingerprint: bounds at 11:5: fingerprint "
                          f"{'0' * 32} in the report, {recorded} now"]


def test_a_changed_counterexample_and_a_changed_confirmation_are_named_by_kind(tmp_path):
    out, _, bug = _report(tmp_path)
    data = json.loads(out.read_text())
    (failed,) = [ob for k in data["kernels"] for ob in k["obligations"] if ob["status"] == "failed"]
    failed["counterexample"]["dims"] = [12345]
    failed["confirmed"] = False
    out.write_text(json.dumps(data))
    code, text, _ = cli("check-report", out)
    assert code == 1
    mismatches = [line for line in text.splitlines() if line.startswith("MISMATCH")]
    assert len(mismatches) == 2
    assert mismatches[0].startswith(f"MISMATCH kernel fill_unguarded ({bug}): verdict: bounds at 11:5: "
                                    "confirmed False in the report, True now")
    assert mismatches[1].startswith(f"MISMATCH kernel fill_unguarded ({bug}): counterexample: bounds at "
                                    '11:5: counterexample {"abstracted": ')
    assert '"dims": [12345]' in mismatches[1]


def test_an_obligation_missing_from_the_report_is_named(tmp_path):
    out, saxpy, _ = _report(tmp_path)
    data = json.loads(out.read_text())
    (kernel,) = [k for k in data["kernels"] if k["kernel"] == "saxpy"]
    gone = kernel["obligations"].pop()
    out.write_text(json.dumps(data))
    code, text, _ = cli("check-report", out)
    assert code == 1
    (mismatch,) = [line for line in text.splitlines() if line.startswith("MISMATCH")]
    assert mismatch.startswith(f"MISMATCH kernel saxpy ({saxpy}): obligation {gone['kind']} at "
                               f"{gone['line']}:{gone['col']}")
    assert mismatch.endswith(": not in the report")
