"""`verikern selftest`: the shipped corpus is tests/corpus itself (one source
of truth: tests/corpus is a link to verikern/selftest_corpus), and the
qualification summary judges every verdict against its header."""
from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from helpers_report import ROOT, cli



def test_the_shipped_corpus_is_the_test_corpus():
    from verikern.selftest import CORPUS

    assert (ROOT / "tests" / "corpus").resolve() == CORPUS.resolve()
    assert len(list(CORPUS.glob("*.py"))) >= 129


def test_the_shipped_corpus_is_package_data():
    setup = (ROOT / "setup.py").read_text()
    assert '"selftest_corpus/*.py"' in setup


def test_corpus_hash_is_over_names_and_bytes():
    from verikern.selftest import CORPUS, corpus_hash

    digest = hashlib.sha256()
    for p in sorted(CORPUS.glob("*.py")):
        digest.update(p.name.encode() + b"\0" + p.read_bytes() + b"\0")
    assert corpus_hash() == digest.hexdigest()


def test_summary_names_tool_corpus_and_every_verdict():
    import z3
    from verikern import __version__
    from verikern.selftest import corpus_hash

    code, out, _ = cli("selftest", "--only", "gather")
    assert code == 0, out
    assert f"verikern {__version__}; z3 {z3.get_version_string()}" in out
    assert f"sha256 {corpus_hash()}" in out
    assert "  ok  bounds_gather_range_off_by_one.py: expected failed bounds, got failed bounds -- as expected" in out
    assert "  ok  ok_gather_in_range.py: expected proved, got proved -- as expected" in out
    gathers = sorted(p for p in ROOT.joinpath("tests", "corpus").glob("*gather*.py"))
    assert len(gathers) >= 4
    assert out.splitlines()[-1] == f"PASSED: all {len(gathers)} verdicts as expected"


def test_a_wrong_verdict_fails_the_selftest(tmp_path, monkeypatch):
    import verikern.selftest as selftest

    src = (ROOT / "tests" / "corpus" / "bounds_unguarded_write.py").read_text()
    (tmp_path / "claims_proved.py").write_text(src.replace("# expect: failed bounds", "# expect: proved"))
    (tmp_path / "ok_copy.py").write_text((ROOT / "tests" / "corpus" / "ok_gather_in_range.py").read_text())
    monkeypatch.setattr(selftest, "CORPUS", tmp_path)
    code, out, _ = cli("selftest")
    assert code == 1
    assert "  BAD claims_proved.py: expected proved, got failed bounds -- NOT AS EXPECTED" in out
    assert "  ok  ok_copy.py: expected proved, got proved -- as expected" in out
    assert out.splitlines()[-1] == "FAILED: 1 of 2 verdicts not as expected"


def test_a_header_without_expect_is_rejected(tmp_path):
    from verikern.selftest import parse_case

    p = tmp_path / "x.py"
    p.write_text("# prove-args: --dim 4\nimport verikern as vk\n")
    with pytest.raises(ValueError, match="no valid '# expect:' line"):
        parse_case(Path(p))


def test_a_refused_case_passes_only_when_the_frontend_refuses_it(tmp_path, monkeypatch):
    """`# expect: refused`: the rebinding refusal passes; the same file with
    the rebinding removed is proved, which is NOT as expected; and a case
    expected to be proved that the frontend refuses is not as expected either."""
    import verikern.selftest as selftest

    src = (ROOT / "tests" / "corpus" / "refused_rebinding_global_in_function.py").read_text()
    (tmp_path / "refused_rebind.py").write_text(src)
    (tmp_path / "refused_not_rebound.py").write_text(src.replace("\n_configure()\n", "\n")
                                                     .replace("    global N\n    N = 8\n", "    pass\n"))
    (tmp_path / "ok_rebound.py").write_text(src.replace("# expect: refused", "# expect: proved")
                                            .replace("# refused: 13:16 rebind\n", ""))
    monkeypatch.setattr(selftest, "CORPUS", tmp_path)
    code, out, _ = cli("selftest")
    assert code == 1
    assert "  ok  refused_rebind.py: expected refused, got refused -- as expected" in out
    assert "  BAD refused_not_rebound.py: expected refused, got proved -- NOT AS EXPECTED" in out
    assert "  BAD ok_rebound.py: expected proved, got refused -- NOT AS EXPECTED" in out
