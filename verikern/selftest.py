"""The qualification self-test: prove the corpus shipped with verikern
(`verikern/selftest_corpus/`: the repository's tests/corpus is a link to it,
so the shipped corpus and the tests' are one set of files) and compare
every verdict with the one its header expects.

Header lines used (tests/corpus_loader.py documents the full format):
`# expect: proved`, `# expect: failed KIND[,KIND...]` or `# expect: refused`
(a file the frontend must refuse: it rebinds a module-level name a kernel
reads), and optionally `# prove-args: ...` (the options the case is proved
with).

Invariants: a case passes only when it gets exactly its expected verdict:
`proved` means every kernel of the file PROVED; `failed K` means the set of
kinds with a failed obligation is exactly K and nothing is unknown or an
error; `refused` means every kernel is an error saying it cannot read a
module-level name (never a verdict). The corpus hash is the sha256 over the sorted file names and bytes,
so a summary names exactly the corpus it ran.
"""
from __future__ import annotations

import hashlib
import re
import shlex
from dataclasses import dataclass
from pathlib import Path
from verikern.proofs.obligations import KernelStatus, Status

CORPUS = Path(__file__).resolve().parent / "selftest_corpus"
#: What the frontend's error says for a kernel that reads a module-level name
#: the file can rebind (or one computed from such a name).
REFUSAL = "kernel code cannot read the module-level name"


@dataclass(frozen=True)
class Case:
    path: Path
    expect: str                       # "proved", "failed" or "refused"
    kinds: frozenset[str]             # failing kinds (empty when proved)
    prove_args: tuple[str, ...]


@dataclass(frozen=True)
class Outcome:
    case: Case
    got: str                          # "proved", "failed K,K", "unknown", "error"
    ok: bool
    cached: bool


def parse_case(path: Path) -> Case:
    expect: str | None = None
    kinds: frozenset[str] = frozenset()
    args: tuple[str, ...] = ()
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.startswith("#"):
            break
        body = line[1:].strip()
        if body.startswith("expect:"):
            words = body[len("expect:"):].split()
            expect = words[0]
            kinds = frozenset(words[1].split(",")) if len(words) > 1 else frozenset()
        elif body.startswith("prove-args:"):
            args = tuple(shlex.split(body[len("prove-args:"):]))
    if expect not in ("proved", "failed", "refused") or (expect == "failed") != bool(kinds):
        raise ValueError(f"{path}: the header has no valid '# expect:' line")
    return Case(path, expect, kinds, args)


def cases(corpus: Path | None = None, only: str | None = None) -> list[Case]:
    corpus = CORPUS if corpus is None else corpus
    return [parse_case(p) for p in sorted(corpus.glob("*.py")) if only is None or only in p.stem]


def corpus_hash(corpus: Path | None = None) -> str:
    digest = hashlib.sha256()
    for p in sorted((CORPUS if corpus is None else corpus).glob("*.py")):
        digest.update(p.name.encode() + b"\0" + p.read_bytes() + b"\0")
    return digest.hexdigest()


def judge(case: Case, reports) -> Outcome:
    statuses = {r.status for r in reports}
    failed = frozenset(ob.kind.value for r in reports for ob in r.obligations if ob.status is Status.FAILED)
    if reports and statuses == {KernelStatus.ERROR} and all(
            REFUSAL in (r.error or "") for r in reports):
        got = "refused"
    elif KernelStatus.ERROR in statuses or not reports:
        got = "error"
    elif any(ob.status is Status.UNKNOWN for r in reports for ob in r.obligations):
        got = "unknown" + (f" (failed {','.join(sorted(failed))})" if failed else "")
    elif failed:
        got = "failed " + ",".join(sorted(failed))
    else:
        got = "proved"
    return Outcome(case, got, got == expected_text(case), bool(reports) and all(r.cached for r in reports))


def expected_text(case: Case) -> str:
    return "failed " + ",".join(sorted(case.kinds)) if case.expect == "failed" else case.expect


@dataclass(frozen=True)
class Summary:
    """What a saved `verikern selftest` output says: its tool line (without the
    platform), the corpus sha256 it ran, how many cases of how many, and
    whether it passed (None: no PASSED/FAILED line, an interrupted run)."""

    tool: str | None
    corpus_sha256: str | None
    ran: int
    of: int
    passed: bool | None
    lines: tuple[str, ...]


def read_summary(text: str) -> Summary:
    """Parse the output of `verikern selftest` (ValueError when it is not one)."""
    lines = tuple(line.rstrip() for line in text.splitlines() if line.strip())
    if not lines or lines[0] != "verikern qualification self-test":
        raise ValueError("not the output of `verikern selftest` (its first line is "
                         "'verikern qualification self-test')")
    tool = corpus = None
    ran = of = 0
    passed = None
    for line in lines:
        body = line.strip()
        if body.startswith("tool: "):
            tool = "; ".join(body[len("tool: "):].split("; ")[:3])
        elif body.startswith("corpus: "):
            m = re.match(r"corpus: (\d+) of (\d+) cases, sha256 ([0-9a-f]{64})$", body)
            if m:
                ran, of, corpus = int(m.group(1)), int(m.group(2)), m.group(3)
        elif body.startswith("PASSED:"):
            passed = True
        elif body.startswith("FAILED:"):
            passed = False
    return Summary(tool, corpus, ran, of, passed, lines)
