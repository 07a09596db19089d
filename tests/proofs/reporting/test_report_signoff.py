"""`verikern report` as a safety engineer signs it: the overall verdict, the
remedy of each failure, where each verdict came from, the qualification
evidence, the sources' commit, paths relative to the project root, a
sign-off block, and wording that says what it means."""
from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from helpers_report import SAXPY, UNGUARDED, cli, copy

BANNER = re.compile(r'<div class="verdict v-(\w+)" id="verdict">([^<]*)</div>')


def _md(*args):
    code, out, err = cli("report", *args, "--md")
    assert code in (0, 1), err
    return code, out


def test_the_banner_says_proved_only_when_every_kernel_is(tmp_path):
    saxpy, bug = copy(SAXPY, tmp_path), copy(UNGUARDED, tmp_path)
    out = tmp_path / "r.html"
    assert cli("report", saxpy, "-o", out, "--no-cache")[0] == 0
    assert BANNER.search(out.read_text()).groups() == (
        "proved", "PROVED: all 1 kernel proved for every launch and input the stated assumptions admit")
    assert cli("report", saxpy, bug, "-o", out, "--no-cache")[0] == 1
    assert BANNER.search(out.read_text()).groups() == (
        "failed", "NOT PROVED: 1 of 2 kernels not proved (1 proved, 1 failed, 0 unknown, 0 error)")
    _, md = _md(saxpy, bug, "--no-cache")
    assert md.splitlines()[4] == "> **NOT PROVED: 1 of 2 kernels not proved (1 proved, 1 failed, 0 unknown, 0 error)**"


def test_a_failed_kernel_shows_the_why_the_counterexample_and_the_suggested_contract(tmp_path):
    bug = copy(UNGUARDED, tmp_path)
    code, md = _md(bug, "--no-cache")
    assert code == 1
    # the same lines as `verikern prove` prints them
    _, text, _ = cli("prove", bug, "--no-cache")
    finding = md.split("Failures and unknowns, as `verikern prove` reports them:")[1].split("| # |")[0]
    for line in ("error: bounds: index out[i] is out of bounds: i = 63 but out.shape[0] = 0",
                 "why: an index can leave its array on this launch: guard the access or state the shape "
                 "relation with vk.requires",
                 "launch: dim=67, block_dim=32 (3 blocks)", "threads: thread 31 of block 1 (tid 63)",
                 "simulator: confirmed: the simulator raised OutOfBoundsError at line 11",
                 "suggested contract (paste it above the kernel; it stays FAILED until the contract is in "
                 "the source):", "@vk.requires(lambda out: vk.launch_dim() <= out.shape[0])",
                 "verdict under it: proved"):
        assert line in finding and line in text, line
    assert "suggested contract" not in _md(bug, "--no-cache", "--no-suggest")[1]


def test_provenance_says_fresh_or_cached_with_the_original_run(tmp_path):
    saxpy = copy(SAXPY, tmp_path)
    cache = tmp_path / "cache"
    _, first = _md(saxpy, "--cache-dir", cache)
    fresh = re.search(r"- saxpy \(saxpy\.py\): verdict fresh: computed in this run, (\S+ \S+ UTC)", first)
    assert fresh, first
    _, second = _md(saxpy, "--cache-dir", cache)
    assert (f"- saxpy (saxpy.py): verdict from the proof cache: computed {fresh.group(1)} by verikern "
            in second)
    assert "| saxpy | saxpy.py | **proved** | 5 | 0 | 0 | proof cache |" in second
    assert "| saxpy | saxpy.py | **proved** | 5 | 0 | 0 | this run |" in first


def test_qualification_evidence_is_referenced_or_read_from_a_selftest_log(tmp_path):
    from verikern.selftest import cases, corpus_hash

    saxpy = copy(SAXPY, tmp_path)
    _, md = _md(saxpy, "--no-cache")
    assert f"- shipped corpus: {len(cases())} cases, sha256 {corpus_hash()}" in md
    assert "- self-test: not run with this report; run `verikern selftest`" in md
    # a partial self-test is embedded, and said not to cover the build
    code, log, _ = cli("selftest", "--only", "bounds_unguarded_write")
    assert code == 0
    (tmp_path / "st.txt").write_text(log)
    _, md = _md(saxpy, "--no-cache", "--selftest-log", tmp_path / "st.txt")
    assert f"- self-test: PASSED (read from {tmp_path / 'st.txt'})" in md
    assert f"self-test evidence does NOT cover this build: it ran 1 of {len(cases())} cases" in md
    assert "ok  bounds_unguarded_write.py: expected failed bounds, got failed bounds -- as expected" in md
    # a log of another corpus or another build is flagged
    (tmp_path / "old.txt").write_text(log.replace(corpus_hash(), "0" * 64).replace("z3 ", "z3 0.0.0-"))
    _, md = _md(saxpy, "--no-cache", "--selftest-log", tmp_path / "old.txt")
    assert f"it ran the corpus sha256 {'0' * 64}, this build ships {corpus_hash()}" in md
    assert "self-test evidence does NOT cover this build: it ran verikern " in md
    # anything else is an input error
    (tmp_path / "junk.txt").write_text("hello\n")
    code, _, err = cli("report", saxpy, "--selftest-log", tmp_path / "junk.txt")
    assert code == 3 and "not the output of `verikern selftest`" in err


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_the_sources_commit_dirty_state_and_relative_paths(tmp_path):
    repo = tmp_path / "repo"
    (repo / "kernels").mkdir(parents=True)
    saxpy, bug = copy(SAXPY, repo / "kernels"), copy(UNGUARDED, repo / "kernels")

    def git(*args):
        return subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", *args],
                              capture_output=True, text=True, check=True).stdout.strip()

    git("init", "-q")
    git("add", ".")
    git("commit", "-qm", "kernels")
    head = git("rev-parse", "HEAD")
    _, md = _md(saxpy, bug, "--no-cache")
    assert f"- project root: {repo} (paths below are relative to it)" in md
    assert f"- source commit: {head}" in md and "- source state: clean" in md
    assert "| fill_unguarded | kernels/bounds_unguarded_write.py | **failed** |" in md
    assert "kernels/bounds_unguarded_write.py:11:5: error: bounds:" in md
    body = md.replace(f"- command: `verikern report {saxpy} {bug} --no-cache --md`", "")
    assert str(repo) + "/kernels" not in body          # no absolute name but the root's
    bug.write_text(bug.read_text() + "\n# edited\n")
    (repo / "notes.txt").write_text("x")
    _, md = _md(saxpy, bug, "--no-cache")
    assert ("- source state: DIRTY: these sources differ from the commit or are untracked: "
            "kernels/bounds_unguarded_write.py") in md
    bug.write_text(bug.read_text().replace("\n# edited\n", ""))
    _, md = _md(saxpy, bug, "--no-cache")
    assert "- source state: the report's sources are as committed; other files" in md


def test_outside_a_repository_the_report_says_so_and_names_files_from_the_current_folder(tmp_path,
                                                                                             monkeypatch):
    sub = tmp_path / "plain" / "src"
    sub.mkdir(parents=True)
    saxpy = copy(SAXPY, sub)
    monkeypatch.chdir(tmp_path / "plain")
    _, md = _md(saxpy, "--no-cache")
    if "source commit: none" not in md:              # tmp_path inside some repository: nothing to check
        pytest.skip("the temporary folder lies in a git work tree")
    assert f"- project root: {tmp_path / 'plain'} (paths below are relative to it)" in md
    assert "| saxpy | src/saxpy.py | **proved** |" in md


def test_the_sign_off_block_has_fields_to_fill_in(tmp_path):
    saxpy = copy(SAXPY, tmp_path)
    _, md = _md(saxpy, "--no-cache")
    block = md.split("## Sign-off")[1]
    for field in ("reviewer (name, role)", "date", "decision (accepted / accepted with conditions / rejected)",
                  "signature"):
        assert f"| {field} | |" in block
    assert "Verdict reviewed: **PROVED: all 1 kernel proved" in block


def test_the_wording_says_what_it_means(tmp_path):
    saxpy, bug = copy(SAXPY, tmp_path), copy(UNGUARDED, tmp_path)
    _, md = _md(saxpy, bug, "--no-cache")
    assert "the index into dimension 0 of y at line 17 is always in bounds" in md
    assert not re.search(r"\bindex \d of \w", md)
    assert "confirmed by replay" not in md and "simulator replay confirmed: the simulator raised" in md
    # no contract: one line, not "every launch" and then "the requires admit"
    unguarded = md.split("### fill_unguarded")[1]
    assert "- no requires: every 1-D launch and every argument" in unguarded
    assert "requires admit" not in unguarded
    assert "- every 1-D launch and argument the requires admit" in md.split("### saxpy")[1]
    _, fixed = _md(bug, "--no-cache", "--dim", "64")
    assert "- no requires: every argument\n- launch dims fixed to 64" in fixed


def test_selftest_runs_with_the_report_when_asked(tmp_path, monkeypatch):
    from verikern import selftest

    one = [c for c in selftest.cases() if c.path.stem == "bounds_unguarded_write"]
    monkeypatch.setattr(selftest, "cases", lambda corpus=None, only=None: one)   # one case: seconds, not minutes
    saxpy = copy(SAXPY, tmp_path)
    code, md = _md(saxpy, "--no-cache", "--selftest")
    assert code == 0                                   # evidence only: the exit code is the proofs'
    assert "- self-test: PASSED (run with this report)" in md
    assert "ok  bounds_unguarded_write.py: expected failed bounds, got failed bounds -- as expected" in md
    assert "self-test evidence does NOT cover this build: it ran 1 of " in md
    code, _, err = cli("report", saxpy, "--selftest", "--selftest-log", saxpy)
    assert code == 3 and "not both" in err
