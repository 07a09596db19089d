"""`verikern prove --suggest`: a failed Warp-style kernel (written for this
test) gets a suggested contract in text, JSON and SARIF; pasting it -- by
hand above `@wp.kernel`, or by applying the SARIF fix -- makes verikern
prove the file."""
from __future__ import annotations

import json
import re
from pathlib import Path

from helpers_report import cli, validate_report, validate_sarif

from verikern.app.cache import report_from_data, report_to_data
from verikern.app.prove import prove_file

SRC = '''"""out = alpha * x + y, one thread per element (Warp style)."""
import warp as wp


@wp.kernel
def scale_add(x: wp.array[float], y: wp.array[float], out: wp.array[float], alpha: float):
    i = wp.tid()
    out[i] = alpha * x[i] + y[i]
'''
ARRAYS = ("x", "y", "out")


def _write(tmp_path, text=SRC, name="scale_add.py"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def _decorators(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip().startswith("@vk.requires(")]


def test_text_shows_a_ready_to_paste_decorator_and_the_verdict_under_it(tmp_path):
    code, out, _ = cli("prove", _write(tmp_path), "--no-cache")
    assert code == 1 and out.startswith("FAILED  scale_add")
    assert "suggested contract (paste it above the kernel; it stays FAILED" in out
    assert "    import verikern as vk      # at the top of the file" in out
    (line,) = _decorators(out)
    assert line.startswith("@vk.requires(lambda x, y, out: ")
    for name in ARRAYS:      # each array the kernel indexes by thread id covers the launch
        assert re.search(rf"vk\.launch_dim\(\) (<=|==) {name}\.shape\[0\]|{name}\.shape\[0\] == "
                         rf"vk\.launch_dim\(\)", line), line
    assert "  verdict under it: proved" in out
    assert out.rstrip().endswith("1 kernel: 0 proved, 1 failed, 0 unknown, 0 error")

    code, plain, _ = cli("prove", _write(tmp_path), "--no-cache", "--no-suggest")
    assert code == 1 and "suggested contract" not in plain and not _decorators(plain)


def test_pasting_the_suggestion_above_the_kernel_proves_it(tmp_path):
    _, out, _ = cli("prove", _write(tmp_path), "--no-cache")
    fixed = SRC.replace("import warp as wp\n", "import warp as wp\nimport verikern as vk\n")
    fixed = fixed.replace("@wp.kernel\n", "\n".join(_decorators(out)) + "\n@wp.kernel\n")
    code, again, _ = cli("prove", _write(tmp_path, fixed, "pasted.py"), "--no-cache")
    assert code == 0, again
    assert again.startswith("PROVED  scale_add") and "suggested contract" not in again


def test_json_carries_the_suggestion_and_validates(tmp_path):
    code, out, _ = cli("prove", _write(tmp_path), "--no-cache", "--format", "json")
    data = json.loads(out)
    validate_report(data)
    (k,) = data["kernels"]
    assert code == 1 and k["status"] == "failed"
    assert k["proved_under_suggestion"] is True
    assert {re.search(r"\b(x|y|out)\.shape", r).group(1) for r in k["suggested_requires"]} == set(ARRAYS)
    (line,) = k["suggested_decorators"]
    assert line.startswith("@vk.requires(lambda x, y, out: ")
    assert line.endswith(" and ".join(k["suggested_requires"]) + ")")


def _apply_fix(text: str, fix: dict) -> str:
    """The file with the fix's insertions (empty deleted regions) applied."""
    lines = text.splitlines(keepends=True)
    (change,) = fix["artifactChanges"]
    for rep in sorted(change["replacements"], key=lambda r: -r["deletedRegion"]["startLine"]):
        region = rep["deletedRegion"]
        assert region["startColumn"] == region["endColumn"] == 1
        assert region["startLine"] == region["endLine"]
        lines.insert(region["startLine"] - 1, rep["insertedContent"]["text"])
    return "".join(lines)


def test_sarif_fix_inserts_the_contract_and_the_fixed_file_is_proved(tmp_path):
    path = _write(tmp_path)
    code, out, _ = cli("prove", path, "--no-cache", "--format", "sarif")
    data = json.loads(out)
    validate_sarif(data)
    results = data["runs"][0]["results"]
    failed = [r for r in results if r["level"] == "error"]
    assert code == 1 and failed and all(len(r["fixes"]) == 1 for r in failed)
    fix = failed[0]["fixes"][0]
    assert fix["artifactChanges"][0]["artifactLocation"]["uri"] == str(path).replace("\\", "/")
    lines = [rep["deletedRegion"]["startLine"] for rep in fix["artifactChanges"][0]["replacements"]]
    assert lines == [3, 6]           # the import after `import warp as wp`; the decorator at `def`
    fixed = _apply_fix(SRC, fix)
    assert "import warp as wp\nimport verikern as vk\n" in fixed
    assert "@wp.kernel\n@vk.requires(lambda x, y, out: " in fixed
    code, again, _ = cli("prove", _write(tmp_path, fixed, "fixed.py"), "--no-cache")
    assert code == 0, again


DEMO = Path(__file__).resolve().parents[3] / "docs" / "examples" / "warp_saxpy_contract.py"


def test_the_readme_demo_is_proved_and_carries_exactly_the_suggested_contract(tmp_path):
    """docs/examples/warp_saxpy_contract.py (README): proved as it is; without
    its decorator it fails, and verikern suggests that very decorator."""
    code, out, _ = cli("prove", DEMO, "--no-cache")
    assert code == 0 and "PROVED  saxpy" in out
    text = DEMO.read_text(encoding="utf-8")
    (decorator,) = [line for line in text.splitlines() if line.startswith("@vk.requires(")]
    bare = _write(tmp_path, text.replace(decorator + "\n", ""), "bare.py")
    code, out, _ = cli("prove", bare, "--no-cache")
    assert code == 1 and "FAILED  saxpy" in out
    assert _decorators(out) == [decorator] and "verdict under it: proved" in out


def test_a_cached_verdict_keeps_its_suggestion(tmp_path):
    path, cache = _write(tmp_path), tmp_path / "cache"
    _, first, _ = cli("prove", path, "--cache-dir", cache, "--format", "json")
    _, second, _ = cli("prove", path, "--cache-dir", cache, "--format", "json")
    (a,), (b,) = json.loads(first)["kernels"], json.loads(second)["kernels"]
    assert not a["cached"] and b["cached"]
    for key in ("status", "suggested_requires", "suggested_decorators", "proved_under_suggestion"):
        assert a[key] == b[key]
    # --no-suggest is another cache entry: no suggestion read back for it
    _, third, _ = cli("prove", path, "--cache-dir", cache, "--format", "json", "--no-suggest")
    (c,) = json.loads(third)["kernels"]
    assert not c["cached"] and "suggested_requires" not in c
    (report,) = prove_file(path, suggest=True)
    assert report_from_data(report_to_data(report)) == report
