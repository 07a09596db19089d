"""The default run's sample of the corpus verdicts (tests/tiers.py
`covering_sample`): the stratified sample completed with every construct of
the corpus, a function of the corpus files; `-m slow` proves every case."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import tiers
from corpus_loader import KINDS, load_corpus

ROOT = Path(__file__).resolve().parent.parent
VERDICTS = "tests/cli/prove/test_corpus_verdicts.py::test_corpus_verdict"


def _kernel(folder: Path, name: str, body: str) -> None:
    (folder / f"{name}.py").write_text("import verikern as vk\n\n\n@vk.kernel\n"
                                       f"def k(x: vk.array(dtype=vk.int32)):\n{body}")


def test_a_construct_outside_the_stratified_sample_brings_its_case_in(tmp_path):
    for i in range(8):
        _kernel(tmp_path, f"ok_{i}", "    x[vk.tid()] = 1\n")
    _kernel(tmp_path, "ok_5", "    vk.atomic_add(x, 0, 1)\n")            # the one atomic
    _kernel(tmp_path, "ok_6", "    for j in range(3):\n        x[j] = j << 1\n")   # a loop and a shift
    _kernel(tmp_path, "ok_7", "    for j in range(3):\n        x[j] = j\n")        # a loop only
    keys = [f"ok_{i}" for i in range(8)]
    assert tiers.sample_keys(keys) == {"ok_0"}
    kept = tiers.covering_sample(keys, tmp_path)
    # one case per construct: ok_6 first (the loop's two constructs beside the
    # common ones), then ok_0 for vk.tid (the first of five equals) and ok_5 for
    # vk.atomic_add; ok_7's loop is held already
    assert kept == {"ok_0", "ok_5", "ok_6"}
    assert tiers.covering_sample(reversed(keys), tmp_path) == kept       # the order given is no input
    assert tiers.constructs(tmp_path / "ok_6.py") == {"api:kernel", "api:array", "api:int32", "syntax:For",
                                                      "op:LShift"}
    assert tiers.covering_sample(["saxpy", "ok_0"], tmp_path) == tiers.sample_keys(["saxpy", "ok_0"])


def test_the_corpus_sample_holds_every_verdict_kind_and_construct_and_slow_runs_all():
    cases = load_corpus()
    keys = [c.name for c in cases]
    kept = tiers.covering_keys_of_the_run(keys, None)
    assert kept == tiers.covering_sample(keys) and kept < set(keys)
    assert tiers.covering_keys_of_the_run(keys, "slow") == set(keys)
    sample = [c for c in cases if c.name in kept]
    assert {c.expect_status for c in sample} == {c.expect_status for c in cases}
    assert {k for c in sample for k in c.failing_kinds} == {k for c in cases for k in c.failing_kinds} == KINDS
    assert {tiers.case_class(k) for k in kept} == {tiers.case_class(k) for k in keys}
    used = set().union(*(tiers.constructs(c.path) for c in cases))
    assert set().union(*(tiers.constructs(c.path) for c in sample)) == used
    assert tiers.FAST_CORPUS <= kept
    assert len(kept) <= len(keys) // 2


def test_the_default_run_proves_the_sample_and_slow_every_case():
    def collected(*args):
        out = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-n", "0",
                              "-p", "no:cacheprovider", VERDICTS, *args],
                             capture_output=True, text=True, cwd=ROOT, check=True).stdout
        return {line.split("[", 1)[1][:-1] for line in out.splitlines() if line.startswith(VERDICTS)}

    every = collected("-m", "slow or not slow")
    assert every == {c.name for c in load_corpus()}
    assert collected() == tiers.covering_sample(every)


def test_every_class_of_a_sweep_keeps_its_listed_case():
    """Rule 6 of tests/tiers.py (b): a SAMPLED sweep's default-run subset holds, for every
    class (family) of the full set's cases, the case `kept_case_of_each_class` lists for
    it, and nothing else but the fast tier's cases; with `-m slow` nothing is left out."""

    class Spec:
        def __init__(self, id):
            self.id = id

    class Item:
        def __init__(self, nodeid, case):
            self.nodeid, self.callspec = nodeid, Spec(case)

    corpus = sorted(p.stem for p in (ROOT / "tests" / "corpus").glob("*.py"))
    table = tiers.kept_case_of_each_class(corpus)
    assert set(table) == {tiers.case_class(k) for k in corpus}
    assert all(tiers.case_class(key) == family and key in corpus for family, key in table.items())
    assert table == tiers.kept_case_of_each_class(reversed(corpus))      # no draw: the order is no input
    for function in sorted(tiers.SAMPLED):
        items = [Item(f"{function}[{k}-cpu]", f"{k}-cpu") for k in corpus]
        out = {id(it) for it in tiers.sampled_out(items)}
        kept = {tiers.case_of(it.callspec.id) for it in items if id(it) not in out}
        assert set(table.values()) <= kept, function
        assert kept - set(table.values()) <= tiers.FAST_CASES | tiers.FAST_PARAMS.get(function, set()), function
        assert len(kept) < len(corpus) // 8
