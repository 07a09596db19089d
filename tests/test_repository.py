"""The repository stands alone: every link in README.md and docs/*.md resolves
to a file (and heading) in it, every `*.md` path named in a tracked file
exists, no tracked file names an absolute path of one machine, and the test
tiers of tests/tiers.py name tests that exist."""
from __future__ import annotations

import ast
import functools
import re
import shutil
import subprocess
import unicodedata
from pathlib import Path

import pytest

import tiers

from shared_helpers import ROOT
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

# [text](target "title") and reference definitions `[id]: target`
INLINE_LINK = re.compile(r"!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE_LINK = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$", re.M)
FENCE = re.compile(r"^(```|~~~).*?^\1", re.M | re.S)
# A path-like token naming a Markdown file: segments of [\w.-] joined by '/'
# and not part of a longer path or a URL.
MD_PATH = re.compile(r"(?<![\w/.:-])((?:[\w.-]+/)*[\w-][\w.-]*\.md)\b")
# Absolute paths that exist on one machine only.  Spelled in pieces so that
# this file does not match itself.
_ROOTS = ("work", "root", "home", "tmp", "Users", "scratch")
MACHINE_PATH = re.compile(r"(?<![\w.~-])/(?:" + "|".join(_ROOTS) + r")/[\w.-]")


def repo_files() -> list[Path]:
    """Tracked files plus untracked ones git does not ignore (what the next
    commit can contain); skips when this is not a git work tree."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed (apt-get install git): cannot list the repository's files")
    proc = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                          cwd=ROOT, capture_output=True, text=True)
    if proc.returncode != 0:
        pytest.skip(f"not a git work tree ({proc.stderr.strip()}): clone the repository to run this check")
    return sorted({ROOT / name for name in proc.stdout.split("\0") if name and (ROOT / name).is_file()})


def text_of(path: Path) -> str | None:
    """The file's text, or None for a binary file (a NUL byte or not UTF-8)."""
    data = path.read_bytes()
    if b"\0" in data[:8192]:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def github_slug(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped,
    spaces turned into '-'."""
    text = re.sub(r"[`*_]", "", heading.strip()).lower()
    text = "".join(ch for ch in text if ch in " -" or unicodedata.category(ch)[0] in "LN")
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    body = FENCE.sub("", path.read_text())
    slugs: dict[str, int] = {}
    out = set()
    for m in re.finditer(r"^#{1,6}\s+(.*?)\s*#*\s*$", body, re.M):
        slug = github_slug(m.group(1))
        n = slugs.get(slug, 0)
        slugs[slug] = n + 1
        out.add(slug if n == 0 else f"{slug}-{n}")
    return out


def link_targets(text: str) -> list[str]:
    body = FENCE.sub("", text)
    body = re.sub(r"`[^`\n]*`", "", body)  # code spans are not links
    return INLINE_LINK.findall(body) + REFERENCE_LINK.findall(body)


def broken_links(doc: Path) -> list[str]:
    """Every relative link of `doc` that names no file (or no heading) of the repository."""
    bad = []
    for target in link_targets(doc.read_text()):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):  # http:, https:, mailto:
            continue
        path_part, _, anchor = target.partition("#")
        dest = (doc.parent / path_part).resolve() if path_part else doc
        if not dest.exists() or ROOT not in (dest, *dest.parents):
            bad.append(f"{doc.relative_to(ROOT)}: {target} (no such file in the repository)")
        elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
            bad.append(f"{doc.relative_to(ROOT)}: {target} (no heading #{anchor})")
    return bad


def machine_paths(text: str) -> list[tuple[int, str]]:
    """(line number, line) of every absolute machine path in `text`."""
    return [(n, line.strip()) for n, line in enumerate(text.splitlines(), 1)
            if MACHINE_PATH.search(line)]


def unresolved_md_paths(path: Path, text: str) -> list[str]:
    """`*.md` paths named in `text` that name no file of the repository,
    neither relative to its root nor to the file's own folder."""
    def inside(candidate: Path) -> bool:
        real = candidate.resolve()
        return real.is_file() and ROOT in real.parents

    if path.suffix == ".md":  # links are checked by test_every_relative_link_resolves
        text = INLINE_LINK.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    bad = []
    for m in MD_PATH.finditer(text):
        name = m.group(1)
        if not (inside(ROOT / name) or inside(path.parent / name)):
            line = text.count("\n", 0, m.start()) + 1
            bad.append(f"{path.relative_to(ROOT)}:{line}: {name}")
    return bad


# ------------------------------------------------------------------ the checks
def test_the_language_reference_is_in_the_repository():
    text = (ROOT / "docs" / "LANGUAGE.md").read_text()
    for section in ("## 1. A kernel file", "## 2. Types", "## 3. Threads, blocks and launches",
                    "## 4. Statements and builtins", "## 5. Contracts and what a proof means",
                    "## 6. Floats"):
        assert section in text


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_relative_link_resolves(doc):
    assert broken_links(doc) == []


@functools.cache
def _repo_texts() -> tuple[tuple[Path, str | None], ...]:
    """(path, text_of(path)) of every repo_files() file, read once per module: the
    Markdown-path and machine-path checks each read the whole repository."""
    return tuple((path, text_of(path)) for path in repo_files())


@functools.cache
def _functions_in(file: str) -> frozenset[str]:
    """The names of the functions defined in `file` (relative to ROOT), parsed once per
    module: the tier checks name 160 tests in 90 files."""
    return frozenset(n.name for n in ast.walk(ast.parse((ROOT / file).read_text()))
                     if isinstance(n, ast.FunctionDef))


def test_markdown_paths_named_anywhere_exist():
    bad = []
    for path, text in _repo_texts():
        if text is not None and path != Path(__file__).resolve():  # its examples are deliberate
            bad += unresolved_md_paths(path, text)
    assert bad == [], "Markdown files named but not in the repository:\n" + "\n".join(bad)


def test_no_absolute_machine_paths():
    found = []
    for path, text in _repo_texts():
        if text is None:
            continue
        found += [f"{path.relative_to(ROOT)}:{n}: {line}" for n, line in machine_paths(text)]
    assert found == [], ("absolute paths of one machine (use paths relative to the repository, "
                         "tmp_path or tempfile):\n" + "\n".join(found))


def test_the_checks_themselves_catch_what_they_look_for(tmp_path):
    fixed = "/" + "tmp" + "/x.json"
    assert machine_paths(f'open("{fixed}")\nok = tmp_path / "x"\n') == [(1, f'open("{fixed}")')]
    assert machine_paths("/usr/local/cuda/bin/ptxas and https://example.org/home/x") == []
    doc = ROOT / "docs" / "MIR.md"
    assert link_targets("[a](../README.md) [b](missing.md#x) `[c](nope.md)`\n[d]: PROVER.md\n") == [
        "../README.md", "missing.md#x", "PROVER.md"]
    assert github_slug("5. Contracts and what a proof means") == "5-contracts-and-what-a-proof-means"
    assert github_slug("What `vk.requires` means") == "what-vkrequires-means"
    code = ROOT / "verikern" / "lang.py"
    assert unresolved_md_paths(code, "see docs/PROVER.md,\nLANGUAGE.md and README.md") == [
        "verikern/lang.py:2: LANGUAGE.md"]
    assert unresolved_md_paths(doc, "PROVER.md, ../outside/LANGUAGE.md, https://x.org/a/B.md") == [
        "docs/MIR.md:1: ../outside/LANGUAGE.md"]
    fake = tmp_path / "n.md"
    fake.write_text("# Title\n")
    assert anchors(fake) == {"title"}


def test_tier_tables_name_existing_tests():
    stale = []
    named = {*tiers.SLOW_TESTS, *tiers.CORPUS_WIDE, *tiers.FAST_PARAMS, *tiers.SAMPLED, *tiers.COVERED,
             *tiers.NIGHTLY}
    for entry in sorted(tiers.SLOW_FILES | {n.split("::")[0] for n in named}):
        if not (ROOT / entry).is_file():
            stale.append(entry)
    for entry in sorted(named):
        file, _, function = entry.partition("::")
        if (ROOT / file).is_file() and function not in _functions_in(file):
            stale.append(entry)
    # a case id is written in its file, or is a corpus kernel or an example (ids a test
    # parametrized over their files takes from the file names)
    for entry, ids in sorted(tiers.NIGHTLY.items()):
        text = (ROOT / entry.split("::")[0]).read_text() if (ROOT / entry.split("::")[0]).is_file() else ""
        stale += [f"{entry}[{i}]" for i in sorted(ids or ())
                  if f'"{i}' not in text and i not in tiers._CASE_NAMES]
    cases = set(tiers._CASE_NAMES)
    stale += sorted(tiers.FAST_CASES - cases)
    assert stale == [], "tests/tiers.py names tests that do not exist:\n" + "\n".join(stale)


@functools.cache
def _corpus_covering_sample() -> frozenset[str]:
    """The corpus verdicts' default-run sample (computed only if a kept test needs it: 1 CPU s)."""
    return frozenset(tiers.covering_sample(p.stem for p in (ROOT / "tests" / "corpus").glob("*.py")))


def test_every_nightly_entry_names_kept_tests_the_default_run_runs():
    """tests/tiers.py rule 5: each NIGHTLY entry names, in NIGHTLY_KEPT, the default-run
    tests that make its check. Each kept test exists (file, function, and a case id written
    in its file or a corpus or example name), is no NIGHTLY case itself, and, in a sampled
    sweep (SAMPLED, COVERED), is a case its sample always keeps."""
    from tiers_nightly import NIGHTLY_KEPT

    wrong = [f"{entry}: no kept test" for entry in sorted(set(tiers.NIGHTLY) - set(NIGHTLY_KEPT))]
    wrong += [f"{entry}: not NIGHTLY" for entry in sorted(set(NIGHTLY_KEPT) - set(tiers.NIGHTLY))]
    for entry, kept in sorted(NIGHTLY_KEPT.items()):
        wrong += [f"{entry}: no kept test"] if not kept else []
        for name in kept:
            function, _, case = name.removesuffix("]").partition("[")
            file, _, func = function.partition("::")
            text = (ROOT / file).read_text() if (ROOT / file).is_file() else ""
            defined = text and func in _functions_in(file)
            if not defined or (case and f'"{case}' not in text and case not in tiers._CASE_NAMES
                               and case not in tiers.FAST_PARAMS.get(function, set())):
                wrong.append(f"{entry}: {name} does not exist")
            elif tiers.is_nightly(function, case or None):      # without a case: the whole function
                wrong.append(f"{entry}: {name} is NIGHTLY itself")
            elif function in tiers.COVERED and case not in _corpus_covering_sample() or \
                    function in tiers.SAMPLED and case not in tiers.FAST_CASES | tiers.FAST_PARAMS.get(function, set()):
                wrong.append(f"{entry}: {name} is a sampled case the default run may leave out")
    assert wrong == [], "\n".join(wrong)


def test_tier_rules():
    assert tiers.case_of("bounds_off_by_one_le") == "bounds_off_by_one_le"
    assert tiers.case_of("race_reduce_missing_barrier-race") == "race_reduce_missing_barrier"
    assert tiers.case_of("saxpy") == "saxpy" and tiers.case_of("int32") is None
    wide = "tests/cli/prove/test_corpus_verdicts.py::test_corpus_verdict"
    assert not tiers.is_slow(wide + "[bounds_off_by_one_le]", "bounds_off_by_one_le")
    assert tiers.is_slow(wide + "[ok_matmul_tiled]", "ok_matmul_tiled")
    assert tiers.is_slow("tests/backends/ptx/test_ptx_corpus.py::test_all_kernels_assemble[sm_80]", "sm_80")
    assert not tiers.is_slow("tests/frontend/test_fe_rules.py::test_x", None)
    assert tiers.fast_tier_only(" not  slow ") and not tiers.fast_tier_only("slow")
    assert not tiers.fast_tier_only(None)


def test_the_default_run_samples_each_class_of_an_exhaustive_sweep():
    keys = [f"bounds_{i:02}" for i in range(9)] + ["race_a", "race_b", "ok_2d_guarded", "ok_a", "ok_b"]
    kept = tiers.sample_keys(keys)
    # the first of each class in sorted order (rule 6 of tests/tiers.py); fast-tier cases always
    assert kept == {"bounds_00", "race_a", "ok_2d_guarded"}
    assert tiers.kept_case_of_each_class(keys) == {"bounds": "bounds_00", "race": "race_a", "ok": "ok_2d_guarded"}
    assert tiers.sample_keys(["ok_a", "ok_b", "ok_c", "ok_d", "ok_e"]) == {"ok_a"}
    assert tiers.case_class("cpu:native-global1d_int32_0") == "cpu"
    assert tiers.sample_keys(["0", "25", "50", "75", "100"]) == {"0"}
    # every class keeps a case, however small: here and in the corpus, whose
    # sweeps are sampled so
    assert {tiers.case_class(k) for k in kept} == {"bounds", "race", "ok"}
    corpus = [p.stem for p in (ROOT / "tests" / "corpus").glob("*.py")]
    sampled = tiers.sample_keys(corpus)
    assert {tiers.case_class(k) for k in sampled} == {tiers.case_class(k) for k in corpus}
    assert len(sampled) < len(corpus) // 4
    assert tiers.runs_every_case("slow") and tiers.runs_every_case("slow and not cuda")
    assert not tiers.runs_every_case(None) and not tiers.runs_every_case("not slow")


def test_modules_with_slow_tests_go_first_each_kept_whole_and_in_order():
    class Item:
        def __init__(self, nodeid, slow=False):
            self.nodeid, self.slow = nodeid, slow

        def get_closest_marker(self, name):
            return name if name == "slow" and self.slow else None

    items = [Item("a.py::t1"), Item("b.py::t1"), Item("b.py::t2", slow=True), Item("c.py::t1"),
             Item("d.py::t1", slow=True), Item("d.py::t2")]
    tiers.heavy_modules_first(items)
    assert [it.nodeid for it in items] == ["b.py::t1", "b.py::t2", "d.py::t1", "d.py::t2",
                                           "a.py::t1", "c.py::t1"]


def test_nightly_cases_are_slow_and_matched_by_their_listed_id(monkeypatch):
    monkeypatch.setattr(tiers, "NIGHTLY", {"tests/t.py::test_a": frozenset({"x.py"}),
                                           "tests/t.py::test_b": None})
    assert tiers.is_nightly("tests/t.py::test_a", "x.py") and tiers.is_nightly("tests/t.py::test_a", "x.py-None")
    assert not tiers.is_nightly("tests/t.py::test_a", "x.pyz") and not tiers.is_nightly("tests/t.py::test_a", None)
    assert tiers.is_nightly("tests/t.py::test_b", None) and tiers.is_nightly("tests/t.py::test_b", "any")
    assert not tiers.is_nightly("tests/t.py::test_c", "x.py")
    assert tiers.is_slow("tests/t.py::test_a[x.py-1]", "x.py-1") and not tiers.is_slow("tests/t.py::test_a[y]", "y")

    class Spec:
        def __init__(self, id):
            self.id = id

    class Item:
        def __init__(self, nodeid, case=None):
            self.nodeid, self.callspec = nodeid, Spec(case) if case is not None else None

    items = [Item("tests/t.py::test_a[x.py-1]", "x.py-1"), Item("tests/t.py::test_a[y]", "y"),
             Item("tests/t.py::test_b"), Item("tests/t.py::test_c")]
    assert [it.nodeid for it in tiers.nightly_out(items)] == ["tests/t.py::test_a[x.py-1]", "tests/t.py::test_b"]


def test_a_sweep_inside_one_test_keeps_the_sample_by_default_and_every_key_with_slow():
    keys = [f"bounds_{i}" for i in range(9)] + [f"ok_{i}" for i in range(5)] + ["ok_2d_guarded"]
    assert tiers.keys_of_the_run(keys, "slow") == set(keys)
    kept = tiers.keys_of_the_run(keys, None)
    assert kept == tiers.keys_of_the_run(keys, "not slow") == tiers.sample_keys(keys)
    assert {"bounds_0", "ok_0", "ok_2d_guarded"} == kept


def test_the_default_run_keeps_a_sample_of_every_sweep_and_slow_runs_all(pytestconfig):
    import subprocess
    import sys

    sweep = "tests/backends/trace/test_trace_corpus.py::test_trace_agrees_with_expected_verdict"

    def collected(*args):
        out = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-n", "0",
                              "-p", "no:cacheprovider", sweep, *args],
                             capture_output=True, text=True, cwd=ROOT, check=True).stdout
        return {line for line in out.splitlines() if line.startswith(sweep)}

    every, default = collected("-m", "slow or not slow"), collected()
    assert default < every and 4 * len(default) <= len(every) + 4 * len(tiers.FAST_CASES)
    classes = {tiers.case_class(tiers.case_of(n.split("[", 1)[1][:-1]) or "") for n in every}
    assert {tiers.case_class(tiers.case_of(n.split("[", 1)[1][:-1]) or "") for n in default} == classes
