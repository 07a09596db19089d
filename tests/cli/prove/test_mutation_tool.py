"""The mutant generator (tests/tools/mutate.py): each operator makes exactly
its one change, mutants in funcs are proved through the kernels that call
them, and only distinct mutants that compile are kept (the others counted
by reason)."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tools import mutate

SAMPLE = '''\
import verikern as vk


@vk.func
def twice(v: float) -> float:
    return v * 2.0


@vk.func
def wrap(i: int, n: int) -> int:
    assert n > 0
    return i % n


@vk.func
def unused(v: int) -> int:
    assert v > 0
    return v // 3


@vk.kernel
def kern(x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32), c: vk.array(dtype=vk.int32), n: int, d: int):
    vk.requires(x.shape[0] == n)
    vk.requires(d != 0 and n > 0)
    s = vk.shared.array(shape=(64,), dtype=vk.float32)
    i = vk.tid()
    t = vk.thread_idx()
    if i >= n:
        return
    s[t] = twice(x[wrap(i, n)])
    vk.sync_threads()
    for j in range(4):
        out[0] += s[t]
    vk.atomic_sub(out, 0, 1.0)
    old = vk.atomic_max(c, i % d, 3)
    if t > 0:
        assert t >= 1
        c[t] = old
    w = 0
    while w < 4:
        vk.invariant(w >= 0 and w <= 4)
        w += 1


def host():
    x = [1, 2]
    x[0] += 1
'''


def _mutants(kind):
    return mutate.generate(SAMPLE, "s.py", kinds=(kind,))


def _changed(m):
    """(removed lines, added lines) of a mutant against the unparsed original."""
    before = ast.unparse(ast.parse(SAMPLE)).splitlines()
    after = m.source.splitlines()
    return ([ln.strip() for ln in before if ln not in after],
            [ln.strip() for ln in after if ln not in before])


def _only(kind, line):
    (m,) = [m for m in _mutants(kind) if m.loc.line == line]
    return _changed(m)


def test_every_kind_has_a_site_finder():
    from tools.mutate_sites import SITE_FINDERS
    assert set(mutate.KINDS) == set(SITE_FINDERS)
    with pytest.raises(ValueError, match="unknown mutant kind"):
        mutate.generate(SAMPLE, kinds=("swap-args",))


def test_barrier_requires_and_guard_operators():
    assert _only("drop-barrier", 31) == (["vk.sync_threads()"], ["pass"])
    assert _only("move-barrier", 31) == (
        ["vk.sync_threads()"], ["if vk.thread_idx() % 2 == 0:", "vk.sync_threads()"])
    # the requires is removed, not replaced: the next one stays first in the body
    assert _only("drop-requires", 23) == (["vk.requires(x.shape[0] == n)"], [])
    assert {_changed(m)[1][0] for m in _mutants("div-guard")} == {
        "vk.requires(True and n > 0)", "vk.requires(d != 0 and True)"}
    assert sorted(_changed(m)[1][0] for m in _mutants("guard-bound")) == [
        "for j in range(5):", "if i >= n + 1:", "if t > -1:", "while w < 5:"]
    assert sorted(_changed(m)[1][0] for m in _mutants("lt-to-le")) == [
        "if i > n:", "if t >= 0:", "while w <= 4:"]
    shifted = sorted(_changed(m)[1][0] for m in _mutants("index-shift"))
    assert shifted == ["c[t + 1] = old", "out[0] += s[t + 1]", "s[t + 1] = twice(x[wrap(i, n)])",
                       "s[t] = twice(x[wrap(i, n) + 1])"]


def test_every_atomic_site_becomes_one_plain_read_modify_write():
    changes = sorted(_changed(m) for m in _mutants("atomic-to-plain"))
    assert changes == [
        (["old = vk.atomic_max(c, i % d, 3)"], ["old = c[i % d]", "c[i % d] = vk.max(old, 3)"]),
        (["out[0] += s[t]"], ["out[0] = out[0] + s[t]"]),
        (["vk.atomic_sub(out, 0, 1.0)"], ["out[0] = out[0] - 1.0"]),
    ]


def test_assert_and_invariant_operators():
    inverted = sorted(_changed(m) for m in _mutants("assert-invert"))
    assert inverted == [(["assert n > 0"], ["assert not n > 0"]), (["assert t >= 1"], ["assert not t >= 1"])]
    (unguarded,) = _mutants("assert-unguard")
    lines = [ln.strip() for ln in unguarded.source.splitlines()]
    assert lines.index("assert t >= 1") == lines.index("if t > 0:") - 1
    assert lines[lines.index("if t > 0:") + 1] == "c[t] = old"
    broken = sorted(_changed(m)[1][0] for m in _mutants("invariant-break"))
    assert broken == ["vk.invariant(w >= 0 and w <= 3)", "vk.invariant(w >= 1 and w <= 4)"]


def test_func_mutants_name_the_kernels_that_call_them_and_unused_funcs_get_none():
    sites = mutate.plan(SAMPLE, "s.py")
    in_wrap = [s for s in sites if s.function == "wrap"]
    assert [s.ident for s in in_wrap] == ["assert-invert@11:5"]
    assert in_wrap[0].kernels == ("kern",)
    assert not [s for s in sites if s.function == "unused"]
    assert {s.kernels for s in sites} == {("kern",)}


def test_mutants_touch_only_kernel_and_func_bodies_and_stay_valid_python():
    mutants = mutate.generate(SAMPLE, "s.py")
    assert len(mutants) == 25
    original = ast.dump(ast.parse(SAMPLE).body[-1])
    for m in mutants:
        tree = ast.parse(m.source)
        assert ast.dump(tree.body[-1]) == original          # host code untouched
        assert m.source != ast.unparse(ast.parse(SAMPLE)) + "\n"
        assert m.loc.file == "s.py"


def test_only_distinct_mutants_that_compile_are_kept():
    kept, dropped = mutate.compiled(SAMPLE, "s.py", mutate.plan(SAMPLE, "s.py"))
    assert len(kept) == 25 and not dropped
    src = SAMPLE.replace("    if t > 0:\n        assert t >= 1\n",
                         "    if t > 0:\n        q = t\n        assert q >= 1\n")
    kept, dropped = mutate.compiled(src, "s.py", mutate.plan(src, "s.py", kinds=("assert-unguard",)))
    assert kept == []
    ((reason, count),) = dropped.items()
    assert count == 1 and reason.startswith("assert-unguard: does not compile (") and "q" in reason
    twin = SAMPLE.replace("    vk.requires(x.shape[0] == n)\n", "    vk.requires(x.shape[0] == n)\n" * 2)
    kept, dropped = mutate.compiled(twin, "s.py", mutate.plan(twin, "s.py", kinds=("drop-requires",)))
    assert len(kept) == 2          # removing either copy of the repeated requires: one mutant
    assert dropped == {"drop-requires: the same source as another mutant or the original": 1}


def test_selection_is_deterministic_and_covers_every_kind():
    # SAMPLE has no overloaded func, no generic kernel and no module constant, and
    # calls no func twice (the call-arg-shift mutants come from INLINED_TWICE):
    # every other kind, in order
    mutants = mutate.generate(SAMPLE, "s.py") + \
        mutate.generate(INLINED_TWICE, "t.py", kinds=("call-arg-shift",))
    present = [k for k in mutate.KINDS if k not in ("overload-literal", "generic-any", "rebind-constant")]
    first = mutate.select(mutants, len(present))
    assert first == mutate.select(list(mutants), len(present))
    assert [m.kind for m in first] == present
    assert len(mutate.select(mutants, 100)) == len(mutants)
    rotated = mutate.select(mutants, 2, start=2)
    assert [m.kind for m in rotated] == list(mutate.KINDS[2:4])


OVERLOADS_AND_GENERICS = (Path(__file__).parent / "mutation_sources" / "overloads_and_generics.py")


def test_overload_literal_and_generic_any_operators():
    src = OVERLOADS_AND_GENERICS.read_text()
    by_kind = {m.kind: m for m in mutate.generate(src, "o.py", kinds=("overload-literal", "generic-any"))}
    assert set(by_kind) == {"overload-literal", "generic-any"}
    assert "r = reach(1)\n" in by_kind["overload-literal"].source
    generic = by_kind["generic-any"].source
    assert "keys: wp.array(dtype=Any)" in generic
    assert generic.rstrip().endswith("wp.overload(gather_doubled, [wp.array(dtype=wp.int32), "
                                     "wp.array(dtype=float), wp.array(dtype=float)])")
    kept, dropped = mutate.compiled(src, "o.py", mutate.plan(src, "o.py", kinds=("generic-any",)))
    assert len(kept) == 1 and not dropped     # the generic kernel's instances all compile
    # no site in a module without overloads or an `Any` import
    assert not mutate.plan(SAMPLE, "s.py", kinds=("overload-literal", "generic-any"))


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
    def descriptions(kind):
        return {m.description for m in mutate.generate(POLARITY_SAMPLE, "d.py", kinds=(kind,))}
    assert descriptions("guard-bound") == {
        "guard bound 1 -> 0 in i >= 1", "guard bound a.shape[0] -> a.shape[0] + 1 in i < a.shape[0]",
        "guard bound 4 -> 5 in i > 4"}
    assert descriptions("lt-to-le") == {"< -> <= in i < a.shape[0]"}
    assert descriptions("index-shift") == {"index i -> i + 1 in out[...]", "index i - 1 -> i - 2 in a[...]"}


INLINED_TWICE = '''\
import verikern as vk


@vk.func
def load(a: vk.array(dtype=vk.float32), i: int, w: float) -> float:
    return a[i] * w


@vk.kernel
def k(x: vk.array(dtype=vk.float32), y: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32)):
    i = vk.tid()
    if i < x.shape[0] and i < y.shape[0] and i < out.shape[0]:
        out[i] = load(x, i, 1.0) + load(y, i - 1, 2.0)
        out[i] = out[i] + load(x, 0, 1.0)
'''


def test_call_arg_shift_moves_one_inlined_copys_index_argument():
    """Only index parameters (`i`, not the weight `w` or the array `a`), only
    funcs called twice or more, never a constant argument; each mutant
    changes exactly one call."""
    mutants = mutate.generate(INLINED_TWICE, "t.py", kinds=("call-arg-shift",))
    assert {m.description for m in mutants} == {
        "argument i -> i + 1 in one of the 3 calls of load()",
        "argument i - 1 -> i - 2 in one of the 3 calls of load()"}
    for m in mutants:
        before = [ast.unparse(c) for c in ast.walk(ast.parse(INLINED_TWICE)) if isinstance(c, ast.Call)
                  and getattr(c.func, "id", None) == "load"]
        after = [ast.unparse(c) for c in ast.walk(ast.parse(m.source)) if isinstance(c, ast.Call)
                 and getattr(c.func, "id", None) == "load"]
        assert sum(a != b for a, b in zip(before, after)) == 1
        assert m.kernels == ("k",)


CONSTANTS = """import warp as wp

HALO = 1
TILE = 16
NBINS = 8
LIMIT = 3
LIMIT = 4


@wp.kernel
def k(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    TILE = 2
    if i + HALO < x.shape[0] and i < y.shape[0] and i < NBINS + TILE + LIMIT:
        y[i] = x[i + HALO] + x[i + HALO]
"""


def test_rebind_constant_rebinds_each_read_constant_once_and_is_refused():
    """One mutant per module int constant the kernel reads (its first read),
    none for a name the kernel binds itself (TILE) or one bound twice already
    (LIMIT); each appends a rebinding in one of three spellings, and the
    frontend refuses the mutant at the kernel's read (the expected outcome)."""
    from verikern.frontend import compile_source

    mutants = mutate.generate(CONSTANTS, "c.py", kinds=("rebind-constant",))
    assert [(m.loc.line, m.loc.col) for m in mutants] == [(14, 12), (14, 57)]   # HALO, NBINS
    tails = [m.source.split("y[i] = x[i + HALO] + x[i + HALO]\n", 1)[1] for m in mutants]
    spellings = {"global HALO" in t or "global NBINS" in t or "import ENOENT as" in t or "globals()[" in t
                 for t in tails}
    assert spellings == {True}
    for m in mutants:
        assert mutate.compile_problem(m.source, "c.py", m.kernels) is not None
        (kr,) = compile_source(m.source, "c.py").kernels
        assert "can rebind it" in kr.error.render()
    kept, dropped = mutate.compiled(CONSTANTS, "c.py", mutate.plan(CONSTANTS, "c.py", kinds=("rebind-constant",)))
    assert len(kept) == 2 and not dropped, dropped
