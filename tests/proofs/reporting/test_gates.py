"""CI gates: --fail-on, and --baseline that accepts known findings by
fingerprint and reports new and fixed ones."""
from __future__ import annotations

import json

from helpers_report import SAXPY, UNGUARDED, cli, copy

TWO_BUGS = """import verikern as vk


@vk.kernel
def two(a: vk.array(dtype=vk.float32), b: vk.array(dtype=vk.float32), n: vk.int32):
    i = vk.tid()
    a[i] = 1.0
    b[i + n] = 2.0
"""


def test_fail_on_failed_lets_unknowns_pass_but_not_failures(tmp_path, monkeypatch):
    import verikern.proofs.deciding.prover as prover
    from helpers_prove import obligation
    from verikern.proofs.obligations import Status

    saxpy = copy(SAXPY, tmp_path)
    monkeypatch.setattr(prover, "prove_kernel", lambda kernel, **kw: (
        obligation(status=Status.UNKNOWN, reason="the solver budget was exhausted"),))
    assert cli("prove", saxpy)[0] == 2
    assert cli("prove", saxpy, "--fail-on", "unknown")[0] == 2
    assert cli("prove", saxpy, "--fail-on", "failed")[0] == 0
    monkeypatch.undo()
    assert cli("prove", copy(UNGUARDED, tmp_path), "--fail-on", "failed")[0] == 1


def test_a_baseline_accepts_known_findings_and_lists_new_and_fixed_ones(tmp_path):
    src = tmp_path / "two.py"
    src.write_text(TWO_BUGS)
    base = tmp_path / "baseline.json"
    code, _, _ = cli("prove", src, "--format", "json", "-o", base)
    assert code == 1
    known = [ob["fingerprint"] for ob in json.loads(base.read_text())["kernels"][0]["obligations"]
             if ob["status"] == "failed"]
    assert len(known) == 2
    # unchanged (lines moved by an unrelated edit): every finding known, the gate passes
    src.write_text("# moved\n\n" + TWO_BUGS)
    code, out, err = cli("prove", src, "--format", "json", "--baseline", base)
    assert code == 0, err
    assert "baseline: 2 known, 0 new, 0 fixed" in err
    assert sorted(json.loads(out)["baseline"]["known"]) == sorted(known)
    # one bug fixed, a new one added: the new one fails the run, the fixed one is listed
    src.write_text(TWO_BUGS.replace("    a[i] = 1.0\n", "    a[i + 1] = 1.0\n"))
    code, out, err = cli("prove", src, "--baseline", base)
    assert code == 1
    assert "baseline: 1 known, 1 new, 1 fixed" in err
    assert ":7:5: failed: two: bounds:" in err.split("new:")[1]
    # a SARIF log works as a baseline too
    sarif = tmp_path / "baseline.sarif"
    cli("prove", src, "--format", "sarif", "-o", sarif)
    code, _, err = cli("prove", src, "--baseline", sarif)
    assert code == 0 and "baseline: 2 known, 0 new, 0 fixed" in err


def test_an_unreadable_baseline_is_an_input_error(tmp_path):
    saxpy = copy(SAXPY, tmp_path)
    bad = tmp_path / "b.json"
    bad.write_text("[1, 2]")
    code, _, err = cli("prove", saxpy, "--baseline", bad)
    assert code == 3 and "not a verikern JSON report or a SARIF log" in err
    code, _, err = cli("prove", saxpy, "--baseline", tmp_path / "missing.json")
    assert code == 3 and "cannot read the baseline" in err
