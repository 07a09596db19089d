"""What a sign-off document adds to the proofs: the overall verdict, where
each verdict came from, the qualification evidence, the sources' commit,
and the paths as the project names them (proofs.reporting.html renders it).

`Evidence` is gathered once per document (`gather`): the project root (the
git work tree holding the sources, else the current folder when it holds
them all, else their common folder), the git commit and dirty state of the
sources (`git` run as a subprocess, read-only; no git or no repository:
None), and the qualification evidence the caller passes (the `verikern
selftest` summary, run with the report or read from its saved output, and
always the shipped corpus's hash).

Invariants: nothing here changes a verdict or reads a cache; every text is
a function of the reports, the Evidence and the current files; a report
whose verdicts are not all proved never gets a PROVED banner; a dirty or
untracked source file is named, never hidden behind a commit id.
"""
from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from typing import Iterable

from verikern.proofs.obligations import KernelReport, KernelStatus
from verikern.proofs.reporting.common import status_counts

#: Seconds a `git` query may take before it is treated as "no git information".
GIT_TIMEOUT_S = 20


@dataclass(frozen=True)
class GitState:
    """The commit the sources are at: `root` the work tree, `commit` HEAD's
    id, `changed` the report's source files (relative to root) that differ
    from HEAD or are untracked, `dirty` whether anything in the work tree
    differs from HEAD."""

    root: str
    commit: str
    changed: tuple[str, ...]
    dirty: bool


@dataclass(frozen=True)
class Qualification:
    """The qualification evidence: the shipped corpus (`cases`, `sha256`) and,
    when a self-test ran with the report or its saved output was given,
    its summary lines, where they came from, whether it passed, and every
    way it does not match this build (`mismatches`)."""

    cases: int
    sha256: str
    summary: tuple[str, ...] = ()
    origin: str = ""
    passed: bool | None = None
    mismatches: tuple[str, ...] = ()


@dataclass(frozen=True)
class Evidence:
    root: str
    git: GitState | None = None
    qualification: Qualification | None = None

    def shown(self, path: str) -> str:
        """`path` relative to the project root when it lies under it, else as given."""
        absolute = os.path.realpath(path)
        try:
            rel = os.path.relpath(absolute, os.path.realpath(self.root))
        except ValueError:            # another drive (Windows)
            return path
        return path if rel.startswith("..") else rel.replace(os.sep, "/")


def _git(cwd: str, *args: str) -> str | None:
    try:
        done = subprocess.run(["git", "-C", cwd, *args], capture_output=True, text=True,
                              timeout=GIT_TIMEOUT_S, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 else None


def git_state(files: Iterable[str]) -> GitState | None:
    """The git state of the first file's work tree (None: no git, no repository)."""
    files = [os.path.abspath(f) for f in files]
    if not files:
        return None
    top = _git(os.path.dirname(files[0]), "rev-parse", "--show-toplevel")
    head = _git(os.path.dirname(files[0]), "rev-parse", "--verify", "HEAD")
    if not top or not head:
        return None
    root = top.strip()
    status = _git(root, "status", "--porcelain=v1", "--untracked-files=all", "-z")
    if status is None:
        return None
    changed_all = set()
    entries = iter(status.split("\0"))
    for entry in entries:
        if len(entry) > 3:
            changed_all.add(entry[3:])
            if entry[0] in "RC":              # a rename or copy: its source path follows
                changed_all.add(next(entries, ""))
    real_root = os.path.realpath(root)
    mine = []
    for f in files:
        rel = os.path.relpath(os.path.realpath(f), real_root).replace(os.sep, "/")
        if rel in changed_all and rel not in mine:
            mine.append(rel)
    return GitState(root, head.strip(), tuple(mine), bool(changed_all))


def project_root(files: Iterable[str], git: GitState | None, cwd: str | None = None) -> str:
    """The git work tree, else `cwd` when it holds every file, else their common folder."""
    files = [os.path.abspath(f) for f in files]
    if git is not None:
        return git.root
    cwd = os.path.abspath(cwd or os.getcwd())
    if not files or all(os.path.commonpath([cwd, f]) == cwd for f in files):
        return cwd
    try:
        return os.path.commonpath([os.path.dirname(f) for f in files])
    except ValueError:
        return cwd


def gather(reports: Iterable[KernelReport], qualification: Qualification | None = None,
           cwd: str | None = None) -> Evidence:
    files = list(dict.fromkeys(r.file for r in reports))
    git = git_state(files)
    return Evidence(project_root(files, git, cwd), git, qualification)


# ------------------------------------------------------------------ texts
def overall(reports: list[KernelReport]) -> tuple[str, str]:
    """(status word, sentence) for the banner: PROVED only when every kernel is
    (and there is at least one); else the worst of ERROR, FAILED, UNKNOWN."""
    counts = status_counts(reports)
    n = len(reports)
    tally = ", ".join(f"{counts[s.value]} {s.value}" for s in KernelStatus)
    if n and counts["proved"] == n:
        return "proved", (f"PROVED: all {n} kernel{'s' if n != 1 else ''} proved for every launch "
                          "and input the stated assumptions admit")
    if n == 0:
        return "error", "NOT PROVED: no kernel was proved (none found)"
    worst = next(s for s in ("error", "failed", "unknown") if counts[s])
    return worst, f"NOT PROVED: {n - counts['proved']} of {n} kernel{'s' if n != 1 else ''} not proved ({tally})"


def provenance(r: KernelReport) -> str:
    """Where the verdict came from: this run, or the proof cache with the run that computed it."""
    by = ", ".join(f"{k} {v}" for k, v in r.computed_by)
    when = r.computed_at or "an unrecorded time"
    if r.cached:
        return (f"from the proof cache: computed {when}" + (f" by {by}" if by else "")
                + " (an entry for the same MIR, options, versions and verikern code)")
    return f"fresh: computed in this run, {when}" if r.computed_at else "fresh: computed in this run"


def source_lines(ev: Evidence) -> list[str]:
    """The project root and the sources' commit, in words."""
    out = [f"project root: {ev.root} (paths below are relative to it)"]
    g = ev.git
    if g is None:
        out.append("source commit: none (the sources are not in a git repository, or git is unavailable)")
        return out
    out.append(f"source commit: {g.commit}")
    if g.changed:
        out.append("source state: DIRTY: these sources differ from the commit or are untracked: "
                   + ", ".join(g.changed))
    elif g.dirty:
        out.append("source state: the report's sources are as committed; other files of the work "
                   "tree differ from the commit")
    else:
        out.append("source state: clean (the work tree is the commit)")
    return out


def qualification_lines(q: Qualification | None) -> list[str]:
    if q is None:
        return ["no qualification evidence recorded"]
    out = [f"shipped corpus: {q.cases} cases, sha256 {q.sha256}"]
    if not q.summary:
        out.append("self-test: not run with this report; run `verikern selftest` with this build "
                   "and attach its output (`verikern report --selftest-log FILE` embeds it)")
        return out
    verdict = {True: "PASSED", False: "FAILED", None: "no result line"}[q.passed]
    out.append(f"self-test: {verdict} ({q.origin})")
    out += [f"self-test evidence does NOT cover this build: {m}" for m in q.mismatches]
    return out


SIGNOFF_FIELDS = ("reviewer (name, role)", "date", "decision (accepted / accepted with conditions / rejected)",
                  "conditions or remarks", "signature")
