"""SARIF 2.1.0: validated against the OASIS schema, one rule per obligation
kind with help, one result per failed/unknown obligation with its
counterexample, and fingerprints stable across runs and unrelated edits."""
from __future__ import annotations

import json

import pytest

from corpus_loader import load_corpus
from corpus_reports import case_reports
from tiers import covering_keys_of_the_run
from helpers_report import SAXPY, UNGUARDED, cli, copy, validate_sarif

FP = "verikern/v1"

EXTRA_KERNEL = '''

@vk.kernel
def unrelated(y: vk.array(dtype=vk.int32)):
    j = vk.tid()
    if j < y.shape[0]:
        y[j] = 2
'''


def _sarif(*paths):
    code, out, _ = cli("prove", *paths, "--format", "sarif")
    data = json.loads(out)
    validate_sarif(data)
    return code, data


def test_rules_results_counterexample_hashes_and_scope(tmp_path):
    saxpy, bug = copy(SAXPY, tmp_path), copy(UNGUARDED, tmp_path)
    code, data = _sarif(saxpy, bug)
    assert code == 1
    run = data["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == ["bounds", "race", "divergence", "assert", "invariant",
                                        "div-zero", "uninit", "unassigned", "compile-error", "generic-instances"]
    assert all(r["help"]["text"] and r["fullDescription"]["text"] for r in rules)
    (result,) = run["results"]
    assert (result["ruleId"], result["level"]) == ("bounds", "error")
    region = result["locations"][0]["physicalLocation"]["region"]
    assert (region["startLine"], region["startColumn"]) == (11, 5)
    cex = result["properties"]["counterexample"]
    assert cex["dims"] and cex["threads"] and result["properties"]["confirmed"] is True
    assert len(result["partialFingerprints"][FP]) == 32
    import hashlib
    assert [a["hashes"]["sha-256"] for a in run["artifacts"]] == \
        [hashlib.sha256(p.read_bytes()).hexdigest() for p in (saxpy, bug)]
    kernels = run["properties"]["kernels"]
    assert kernels[0]["scope"]["contracts"][0]["text"] == "x.shape[0] == y.shape[0]"
    assert run["properties"]["versions"]["z3"]
    assert "commandLine" in run["invocations"][0]


def test_unknown_is_a_warning():
    from helpers_prove import obligation, report
    from verikern.proofs.obligations import Status
    from verikern.proofs.reporting.render import to_sarif_data

    data = to_sarif_data([report([obligation(status=Status.UNKNOWN, reason="budget exhausted")])])
    validate_sarif(data)
    (result,) = data["runs"][0]["results"]
    assert result["level"] == "warning" and "budget exhausted" in result["message"]["text"]


def test_fingerprints_survive_reruns_and_unrelated_edits_but_not_a_changed_site(tmp_path):
    bug = copy(UNGUARDED, tmp_path)
    _, first = _sarif(bug)
    _, again = _sarif(bug)
    fp = first["runs"][0]["results"][0]["partialFingerprints"][FP]
    assert again["runs"][0]["results"][0]["partialFingerprints"][FP] == fp
    # unrelated edit: comments and another kernel above, the buggy line moves down
    lines = bug.read_text().splitlines(keepends=True)
    head = "".join(lines[:5])                               # header + import
    bug.write_text(head + "# a new comment\n# and another\n" + EXTRA_KERNEL + "".join(lines[5:]))
    _, edited = _sarif(bug)
    (res,) = edited["runs"][0]["results"]
    assert res["locations"][0]["physicalLocation"]["region"]["startLine"] != 11
    assert res["partialFingerprints"][FP] == fp
    # the offending line itself changes: a different finding
    bug.write_text(bug.read_text().replace("out[i] = 1.0", "out[i] = 2.0"))
    _, changed = _sarif(bug)
    assert changed["runs"][0]["results"][0]["partialFingerprints"][FP] != fp


def test_two_findings_on_equal_lines_get_distinct_fingerprints(tmp_path):
    src = tmp_path / "two.py"
    src.write_text("import verikern as vk\n\n@vk.kernel\ndef k(out: vk.array(dtype=vk.float32)):\n"
                   "    i = vk.tid()\n    out[i] = 1.0\n    out[i] = 1.0\n")
    _, data = _sarif(src)
    bounds = [r for r in data["runs"][0]["results"] if r["ruleId"] == "bounds"]
    prints = [r["partialFingerprints"][FP] for r in bounds]
    assert len(prints) == 2 and len(set(prints)) == 2


@pytest.mark.slow
def test_every_corpus_kernel_gives_valid_sarif_with_unique_stable_fingerprints(request):
    from verikern.proofs.reporting.render import to_sarif_data

    # buggy kernels (a proved one adds no result): the SARIF of every finding
    # kind, its rule and fingerprint. Every kernel with several findings
    # (where fingerprints could collide) and one kernel per failing kind: the
    # SARIF of the others would repeat these. The reports are
    # test_corpus_verdict's own proofs (corpus_reports: proved once per run,
    # by whichever test asks first), so in a full run this proves nothing again:
    # the cases of the run's sample of them (tests/tiers.py covering_keys_of_the_run)
    kept = covering_keys_of_the_run((c.name for c in load_corpus()), request.config.option.markexpr)
    buggy_cases = [c for c in load_corpus() if c.expect_status != "proved" and c.name in kept]
    first_of_kind = {k: c.name for c in reversed(buggy_cases) for k in c.failing_kinds}
    buggy = [c for c in buggy_cases if len(c.bugs) >= 2 or c.name in first_of_kind.values()]
    assert {k for c in buggy for k in c.failing_kinds} == {k for c in buggy_cases for k in c.failing_kinds}
    reports = [r for c in buggy for r in case_reports(c)]
    data = to_sarif_data(reports)
    validate_sarif(data)
    results = data["runs"][0]["results"]
    assert sum(r.status.value == "failed" for r in reports) <= len(results)
    prints = [r["partialFingerprints"][FP] for r in results]
    assert len(set(prints)) == len(prints)
    assert to_sarif_data(reports)["runs"][0]["results"] == results
