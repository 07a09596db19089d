"""Mutation testing of the prover: a typical bug injected into a correct
kernel must never be reported PROVED.

Sources: every example in examples/ and every `# expect: proved` corpus
case; at most MUTANTS_PER_FILE mutants per file, chosen deterministically
(round-robin over the mutant kinds). A surviving mutant (still PROVED) is a
test failure unless ALLOWED below names it with the reason it is still a
correct kernel; every entry there has been reviewed by reading the mutant.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from corpus_loader import load_corpus
from prove_cli.prove_args import driver_kwargs
from verikern.proofs import mutate

ROOT = Path(__file__).resolve().parents[2]
# The prover needs up to ~10 s of CPU for a tiled shared-memory kernel, so the
# caps keep this file to a few minutes of CPU: examples are the realistic
# kernels (more mutants each); corpus cases get one each, the kind rotating
# from file to file so that every kind is exercised.
MUTANTS_PER_EXAMPLE = 3
MUTANTS_PER_CORPUS_CASE = 1
PROOF_TIMEOUT = 3.0           # a mutant that times out is 'unknown': not proved, fine

# (file stem, mutant ident) -> why the mutant is still a correct kernel.
ALLOWED: dict[tuple[str, str], str] = {
    ("block_reduce", "drop-requires@17:5"):
        "the requires only asks for a power-of-two block_dim, which the SUM needs; memory "
        "safety does not: threads t < s read buf[t + s] < 2*s <= block_dim <= 1024 and write "
        "buf[t], disjoint index ranges, with a barrier after every halving step",
    ("matmul", "guard-bound@37:24"):
        "range(0, kdim + 1, TILE) may run one more tile, but every load is still guarded by "
        "k0 + tx < kdim / k0 + ty < kdim and kdim <= 2**30 keeps the counter from wrapping",
    ("ok_swap_pairs_no_overflow", "index-shift@10:15"):
        "t = x[2 * i + 1] reads the thread's own odd element, in bounds under the guard "
        "i < x.shape[0] // 2; a wrong swap, but no out-of-bounds access and no race",
    ("ok_vec3_cross_next_guarded", "index-shift@11:13"):
        "out[i + 1] is in bounds under the guard i + 1 < v.shape[0] == out.shape[0], and "
        "distinct threads still write distinct elements; a wrong result, but memory-safe",
}


def _sources():
    """(path, prove args, mutants per file) of every correct kernel file."""
    out = [(p, (), MUTANTS_PER_EXAMPLE) for p in sorted((ROOT / "examples").glob("*.py"))]
    out += [(c.path, c.prove_args, MUTANTS_PER_CORPUS_CASE)
            for c in load_corpus() if c.expect_status == "proved"]
    return out


def _selected():
    """(path, prove args, site) of every mutant under test."""
    for n, (path, args, cap) in enumerate(_sources()):
        try:
            sites = mutate.plan(path.read_text(), str(path))
        except SyntaxError:
            continue
        for site in mutate.select(sites, cap, start=n):
            yield path, args, site


def _params():
    return [pytest.param(path, args, site, id=f"{path.stem}-{site.ident}")
            for path, args, site in _selected()]


@pytest.mark.parametrize("path,prove_args,site", _params())
def test_mutant_is_not_proved(path, prove_args, site):
    from verikern.proofs.driver import prove_source
    from verikern.proofs.obligations import KernelStatus
    from verikern.proofs.report import render_text

    mutant = mutate.make(path.read_text(), site)
    kwargs = driver_kwargs(prove_args, timeout=PROOF_TIMEOUT)
    kwargs["kernel"] = mutant.kernel if kwargs["kernel"] is None else kwargs["kernel"]
    reports = prove_source(mutant.source, f"{path.stem}.mutant.py", replay=False, **kwargs)
    proved = bool(reports) and all(r.status is KernelStatus.PROVED for r in reports)
    key = (path.stem, mutant.ident)
    if key in ALLOWED:
        return      # reviewed: still a correct kernel, PROVED is the right answer
    assert not proved, (f"mutant survived: {mutant.description} at {path}:{mutant.loc.line}:{mutant.loc.col} "
                        f"({mutant.kind}) is reported PROVED\n" + render_text(reports))


def test_allow_list_entries_exist_and_have_reasons():
    idents = {(path.stem, site.ident) for path, _, _ in _sources()
              for site in mutate.plan(path.read_text(), str(path))}
    for key, reason in ALLOWED.items():
        assert key in idents, f"ALLOWED names a mutant that is not generated: {key}"
        assert len(reason) > 20


# ---------------------------------------------------------- the generator
SAMPLE = '''\
import verikern as vk

@vk.func
def twice(v: float) -> float:
    return v * 2.0

@vk.kernel
def k(x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32), n: int):
    vk.requires(x.shape[0] == n)
    s = vk.shared.array(shape=(64,), dtype=vk.float32)
    i = vk.tid()
    t = vk.thread_idx()
    if i >= n:
        return
    s[t] = x[i]
    vk.sync_threads()
    for j in range(4):
        out[0] += s[t]
    vk.atomic_sub(out, 0, 1.0)

def host():
    x = [1, 2]
    x[0] += 1
'''


def _mutant(kind, line):
    (m,) = [m for m in mutate.generate(SAMPLE, "s.py", kinds=(kind,)) if m.loc.line == line]
    return m


def _line(m, n):
    return m.source.splitlines()[n - 1].strip()


def test_every_kind_has_a_site_finder():
    assert set(mutate.KINDS) == set(mutate._SITE_FINDERS)
    with pytest.raises(ValueError, match="unknown mutant kind"):
        mutate.generate(SAMPLE, kinds=("swap-args",))


def test_each_kind_makes_exactly_the_expected_change():
    assert _line(_mutant("drop-barrier", 16), 16) == "pass"
    assert _line(_mutant("drop-requires", 9), 9) == "pass"
    assert _line(_mutant("guard-bound", 13), 13) == "if i >= n + 1:"
    assert _line(_mutant("guard-bound", 17), 17) == "for j in range(5):"
    assert _line(_mutant("lt-to-le", 13), 13) == "if i > n:"
    assert _line(_mutant("atomic-to-plain", 18), 18) == "out[0] = out[0] + s[t]"
    assert _line(_mutant("atomic-to-plain", 19), 19) == "out[0] = out[0] - 1.0"
    shifted = sorted(_line(m, m.loc.line) for m in mutate.generate(SAMPLE, "s.py", kinds=("index-shift",)))
    assert shifted == ["out[0] += s[t + 1]", "s[t + 1] = x[i]", "s[t] = x[i + 1]"]


def test_mutants_touch_only_kernel_and_func_bodies_and_stay_valid_python():
    mutants = mutate.generate(SAMPLE, "s.py")
    assert len(mutants) == 10
    original = ast.dump(ast.parse(SAMPLE).body[-1])
    for m in mutants:
        tree = ast.parse(m.source)
        assert ast.dump(tree.body[-1]) == original          # host code untouched
        assert m.source != ast.unparse(ast.parse(SAMPLE)) + "\n"
        assert m.kernel == "k" and m.loc.file == "s.py"


def test_selection_is_deterministic_and_covers_every_kind():
    mutants = mutate.generate(SAMPLE, "s.py")
    first = mutate.select(mutants, 6)
    assert first == mutate.select(list(mutants), 6)
    assert [m.kind for m in first] == list(mutate.KINDS)
    assert len(mutate.select(mutants, 100)) == len(mutants)
    rotated = mutate.select(mutants, 2, start=2)
    assert [m.kind for m in rotated] == list(mutate.KINDS[2:4])


POLARITY_SAMPLE = '''\
import verikern as vk

@vk.kernel
def d(a: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32)):
    i = vk.tid()
    if i >= 1 and i < a.shape[0]:
        out[i] = a[i - 1]
    if not i > 4:
        out[0] = 1.0
'''


def test_guard_mutants_weaken_the_guard_in_both_polarities():
    bounds = {m.description for m in mutate.generate(POLARITY_SAMPLE, "d.py", kinds=("guard-bound",))}
    assert bounds == {"guard bound 1 -> 0 in i >= 1", "guard bound a.shape[0] -> a.shape[0] + 1 in i < a.shape[0]",
                      "guard bound 4 -> 5 in i > 4"}
    swaps = {m.description for m in mutate.generate(POLARITY_SAMPLE, "d.py", kinds=("lt-to-le",))}
    assert swaps == {"< -> <= in i < a.shape[0]"}
    shifts = {m.description for m in mutate.generate(POLARITY_SAMPLE, "d.py", kinds=("index-shift",))}
    assert shifts == {"index i -> i + 1 in out[...]", "index i - 1 -> i - 2 in a[...]"}
