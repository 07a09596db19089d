"""The mutants the mutation tests prove, and how each one's verdict is read.

Sources: every example in examples/, the kernels of mutation_sources/
and every `# expect: proved` corpus case. Two sets, both deterministic:

- `fast`: per file, up to FAST_PER_EXAMPLE compiled mutants of an example,
  FAST_PER_MUTATION_SOURCE of a mutation source and FAST_PER_CORPUS_CASE of each corpus case in the
  default run's stratified sample (tests/tiers.py `sample_keys`), chosen
  round-robin over the kinds (the first kind rotating from file to file),
  and every mutant of the RARE_KINDS, but for the costly few FULL_ONLY names;
- `full` (`-m slow`): every other compiled mutant.

Without `-m slow` only the mutants `fast` takes are compiled (`_fast_candidates`:
`tools.mutate.select_compiled`, the same mutants as `select` over every compiled
one; none of a FAST_BARREN source, none of whose mutants compiles); with it, every
candidate (the full set, the drop counts).
Only mutants the frontend compiles are proved (`tools.mutate.compiled`);
the others are counted by reason (a REFUSAL_KINDS mutant is kept: it must
not compile). The outcome of a mutant (`outcome`): `caught` (some
obligation of a kernel that reaches it FAILED), `refused` (every such
kernel is an error saying it cannot read a module-level name: the name, or
one computed from it, can be rebound; the expected outcome of a
REFUSAL_KINDS mutant), `proved` (every such kernel PROVED),
`unknown` (neither: not caught), `error`. The score is (caught + refused) /
mutants in the set (`score`).
"""
from __future__ import annotations

import functools
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import run_shared
from corpus_loader import load_corpus
from tiers import sample_keys
from tools import mutate
from verikern.app.cache import code_hash

from shared_helpers import ROOT
#: the mutation tool (tests/tools): part of what a source's mutants are a function of
TOOLS = ROOT / "tests" / "tools"
#: Session 24 (rule 6 of tests/tiers.py: a fixed representative subset, every kind kept,
#: test_every_kind_is_in_the_fast_set): one mutant of an example and two of a mutation
#: source (two and four before). atomic-to-plain stays a rare kind: with the caps alone the
#: fast set held none of its mutants.
FAST_PER_EXAMPLE = 1
FAST_PER_MUTATION_SOURCE = 2
FAST_PER_CORPUS_CASE = 1
#: Kinds with few sites in the sources: all of their mutants are in `fast`.
RARE_KINDS = ("call-arg-shift", "atomic-to-plain", "div-guard", "assert-invert", "assert-unguard",
              "invariant-break", "overload-literal", "generic-any", "rebind-constant")
#: Scores (caught / compiled) measured 2026-12-01: full 593/666 = 89.0% (4
#: unknown); 2026-12-02 with one mutant per corpus case in `fast` (the suite's
#: 10-minute budget; the others are in `full`): fast 165/180 = 91.7% (1
#: unknown, 14 allow-listed correct mutants). The floors leave a margin of
#: about six mutants that may end `unknown` when the budget runs out.
SCORE_FLOOR = {"fast": 0.88, "full": 0.86}
#: Mutants the caps put in `fast` that are left to `full` (`-m slow`): the two
#: costliest of the fast set (7.6 and 6.7 of its 74.5 CPU s in a profiled run,
#: 2026-12-05 session 13), each a kind three or more other fast mutants keep
#: (move-barrier: block_reduce, scan; div-guard: eleven corpus kernels).
#: The next eight costliest (17.9 of the fast set's 55.7 CPU s, profiled 2026-12-05
#: session 15), each of a kind that at least two cheaper fast mutants keep: guard-bound
#: (8 others), drop-barrier (scan's and 3 more), atomic-to-plain (24), lt-to-le (18),
#: move-barrier (scan, block_reduce), drop-requires (7), div-guard (10).
FULL_ONLY = frozenset({("bitonic_sort", "move-barrier@27:5"),
                       ("ok_transpose_tiles_1d_column_major", "div-guard@8:17"),
                       ("transform", "guard-bound@25:12"), ("bitonic_sort", "drop-barrier@27:5"),
                       ("ok_cell_binning_3d_int64_contract", "atomic-to-plain@16:9"),
                       ("ok_cell_binning_3d_flat_index", "atomic-to-plain@16:9"),
                       ("matmul", "lt-to-le@39:12"), ("ok_matmul_tiled", "move-barrier@34:9"),
                       ("matmul", "drop-requires@20:5"),
                       ("ok_tiles_1d_launch_block_idx_div", "div-guard@8:17"),
                       # session 17: the ten fast mutants over 1.2 CPU s (15.7 of the fast
                       # set's 42.0, profiled 2026-12-05 `CI=true`, load 12-14), each of a kind
                       # that more cheaper fast mutants keep: lt-to-le (19 left), move-barrier
                       # (scan, block_reduce), atomic-to-plain (23), div-guard (9),
                       # index-shift (11), drop-requires (6), guard-bound (7)
                       ("ok_bitonic_sort_block", "lt-to-le@12:8"),
                       ("ok_image_flat_int64_index", "lt-to-le@11:8"),
                       ("ok_invariant_grid_stride_int64", "lt-to-le@12:11"),
                       ("ok_segment_mean_positive_count", "lt-to-le@11:8"),
                       ("ok_odd_even_sort_block", "move-barrier@15:5"),
                       ("ok_spatial_wrench_accumulate_atomic", "atomic-to-plain@15:9"),
                       ("ok_block_segments_range", "div-guard@8:17"),
                       ("transpose", "index-shift@32:19"),
                       ("ok_matmul_tiled", "drop-requires@10:5"),
                       ("transpose", "guard-bound@28:23"),
                       # session 20: the eight costliest fast mutants whose kind seven or more
                       # cheaper fast mutants keep (7.6 of the fast set's 34.0 CPU s, profiled
                       # 2026-12-06 `CI=true -n 2`, load about 9): guard-bound (10 left),
                       # lt-to-le (18), invariant-break (the same loop's other bound, and 7
                       # more), index-shift (10), div-guard (7)
                       ("ok_reduce_interleaved", "guard-bound@12:12"),
                       ("ok_csr_edge_scale_sorted", "lt-to-le@14:8"),
                       ("ok_invariant_grid_stride_int64", "invariant-break@13:33"),
                       ("division_guards", "index-shift@10:13"),
                       ("division_guards", "lt-to-le@9:8"),
                       ("ok_segment_mean_positive_count", "div-guard@13:12"),
                       ("ok_shared_block_dim_at_most", "div-guard@8:17"),
                       ("block_reduce", "guard-bound@22:12"),
                       # session 21 (the coverage policy of tests/tiers.py: mutants of one kind
                       # keep their cheaper cases): the four costliest fast mutants once the
                       # sample is an eighth (5.5 of the fast set's 21.6 CPU s, profiled
                       # 2026-12-06 `CI=true -n 2`, load 10-16), each of a kind that cheaper
                       # fast mutants keep: guard-bound (6 left), move-barrier (block_reduce's),
                       # invariant-break (7 left)
                       ("ok_stride_row_int64_length", "guard-bound@15:23"),
                       ("scan", "move-barrier@32:5"),
                       ("ok_segment_mean_positive_count", "guard-bound@11:12"),
                       ("ok_invariant_grid_stride_int64", "invariant-break@13:22"),
                       # session 23 (rule 3 again): four of the costliest fast mutants whose kind
                       # many cheaper fast mutants keep (4.7 of the fast set's 26.9 CPU s,
                       # session 22's profiled default run, load 8-11): div-guard (6 left),
                       # atomic-to-plain (20), index-shift (9)
                       ("ok_array_choice_call_argument", "div-guard@20:29"),
                       ("ok_labels_read_by_atomic_add_zero", "atomic-to-plain@12:9"),
                       ("ok_neighbor_matrix_padded", "index-shift@18:29"),
                       ("atomics_and_invariants", "atomic-to-plain@13:9")})
#: Sources none of whose mutants compiles (the full set's drop counts: every mutant of
#: the directed generic kernel leaves the typings its hints reach, "has 268435456
#: typings"), so the fast set takes none of them. Without `-m slow` they are not
#: compiled at all: finding that out took 8.3 of the 13 CPU s the fast set's compiles
#: took per run (session 20, measured alone), one worker busy with it while the other
#: waited at collection. The nightly test_mutation_barren.py checks that each still
#: compiles no mutant; the selection of every other source is unchanged.
FAST_BARREN = frozenset({"ok_generic_directed_effective_moments"})
#: Solver budget per check for a mutant (million z3 resource units, as
#: `verikern prove --budget`); a mutant not decided within it is `unknown`,
#: which never counts as caught.
MUTANT_BUDGET = 3.0


@dataclass(frozen=True)
class Source:
    path: Path
    prove_args: tuple[str, ...]
    per_file: int


@dataclass(frozen=True)
class Planned:
    """One mutant to prove: the file it mutates (with the corpus case's
    prove arguments) and the mutant."""

    source: Source
    mutant: mutate.Mutant

    @property
    def key(self) -> tuple[str, str]:
        return (self.source.path.stem, self.mutant.ident)

    @property
    def test_id(self) -> str:
        return f"{self.source.path.stem}-{self.mutant.ident}"


#: Correct kernels written for the operators the other sources rarely
#: reach (guarded asserts, division guards, every atomic, invariants).
EXTRA_SOURCES = Path(__file__).resolve().parent / "mutation_sources"


def sources() -> list[Source]:
    out = [Source(p, (), FAST_PER_EXAMPLE) for p in sorted((ROOT / "examples").glob("*.py"))]
    out += [Source(p, (), FAST_PER_MUTATION_SOURCE) for p in sorted(EXTRA_SOURCES.glob("*.py"))]
    proved = [c for c in load_corpus() if c.expect_status == "proved"]
    sample = sample_keys(c.path.stem for c in proved)
    out += [Source(c.path, c.prove_args, FAST_PER_CORPUS_CASE if c.path.stem in sample else 0)
            for c in proved]
    return out


def _compile_mutants(path: Path) -> tuple[tuple[mutate.Mutant, ...], tuple[tuple[str, int], ...], int]:
    """(compiled mutants, dropped reasons and counts, candidates) of one file."""
    text = path.read_text()
    sites = mutate.plan(text, str(path.relative_to(ROOT)))
    kept, dropped = mutate.compiled(text, path.name, sites)
    return tuple(kept), tuple(sorted(dropped.items())), len(sites)


def _key(path: Path) -> tuple:
    """What `_compile_mutants(path)` is a function of: the file, the mutation
    tool and the frontend that compiles the mutants (verikern's code)."""
    tool = b"".join(p.read_bytes() for p in sorted(TOOLS.glob("*.py")))
    return (sys.version, code_hash(), tool, str(path.relative_to(ROOT)), path.read_bytes())


@functools.lru_cache(maxsize=1)
def _compiled_by_path() -> dict[Path, tuple]:
    """`_compile_mutants` of every source, computed once per test run: the
    xdist workers, which each collect this set, split the files between them
    and read each other's results (tests/run_shared.py)."""
    paths = [src.path for src in sources()]
    results = run_shared.shared_each(
        "compiled-mutants", [(_key(p), functools.partial(_compile_mutants, p)) for p in paths])
    return dict(zip(paths, results))


def _compiled(path: Path) -> tuple[tuple[mutate.Mutant, ...], tuple[tuple[str, int], ...], int]:
    """(compiled mutants, dropped reasons and counts, candidates) of one source."""
    return _compiled_by_path()[path]


#: Whether this process compiles every mutant (the full set, the drop counts) or only
#: those the fast set takes (`fast_only_mutants`). tests/cli/prove/conftest.py sets it
#: from the run's `-m` (every mutant with `-m slow`, tiers.runs_every_case); outside
#: pytest every mutant is compiled.
_EVERY_MUTANT = [True]


def compile_every_mutant(every: bool) -> None:
    _EVERY_MUTANT[0] = every


def compiles_every_mutant() -> bool:
    return _EVERY_MUTANT[0]


def _fast_candidates(path: Path, cap: int, start: int) -> tuple[mutate.Mutant, ...]:
    """The compiled mutants of `path` that the fast set takes before FULL_ONLY and
    `always` (`select(kept, cap, start)` and every one of the RARE_KINDS), compiling
    only the mutants that decide them (mutate.select_compiled), not every candidate;
    none, compiling nothing, for a FAST_BARREN source."""
    if path.stem in FAST_BARREN:      # no mutant of it compiles: nothing to take
        return ()
    text = path.read_text()
    unique, _ = mutate.distinct(text, mutate.plan(text, str(path.relative_to(ROOT))))

    def compiles(m: mutate.Mutant) -> bool:
        return m.kind in mutate.REFUSAL_KINDS or mutate.compile_problem(m.source, path.name, m.kernels) is None
    return tuple(mutate.select_compiled(unique, compiles, cap, start, every_of=RARE_KINDS))


@functools.lru_cache(maxsize=1)
def _fast_candidates_by_path() -> dict[Path, tuple[mutate.Mutant, ...]]:
    """`_fast_candidates` of every source, computed once per test run (split between
    the xdist workers as `_compiled_by_path` is)."""
    jobs = [(_key(src.path) + ("fast", src.per_file, n),
             functools.partial(_fast_candidates, src.path, src.per_file, n))
            for n, src in enumerate(sources())]
    return dict(zip((src.path for src in sources()), run_shared.shared_each("fast-mutants", jobs)))


@functools.lru_cache(maxsize=None)
def mutation_set(name: str, always: frozenset = frozenset()) -> tuple[Planned, ...]:
    """The `fast` or `full` set (see the module doc); `always` holds the
    (file stem, ident) keys that belong to `fast` whatever the caps."""
    chosen: list[Planned] = []
    fast_only = name == "fast" and not always and not compiles_every_mutant()
    for n, src in enumerate(sources()):
        if fast_only:      # the same mutants, without compiling the full set's
            kept = list(_fast_candidates_by_path()[src.path])
            fast = set(map(id, kept))
        else:
            kept = list(_compiled(src.path)[0])
            fast = set(map(id, mutate.select(kept, src.per_file, start=n)))
        for m in kept:
            key = (src.path.stem, m.ident)
            in_fast = (id(m) in fast or m.kind in RARE_KINDS or key in always) \
                and key not in FULL_ONLY
            if in_fast == (name == "fast"):
                chosen.append(Planned(src, m))
    return tuple(chosen)


def candidates_and_drops() -> tuple[int, Counter]:
    """How many mutants were generated over all sources, and why the ones
    that are never proved were dropped."""
    total, drops = 0, Counter()
    for src in sources():
        _, dropped, n = _compiled(src.path)
        total += n
        drops.update(dict(dropped))
    return total, drops


def outcome(reports) -> tuple[str, tuple[str, ...]]:
    """(outcome, the kinds of the failed obligations) of one mutant's reports."""
    from verikern.proofs.obligations import KernelStatus, Status
    from verikern.selftest import REFUSAL

    failed = tuple(sorted({o.kind.value for r in reports for o in r.obligations if o.status is Status.FAILED}))
    statuses = {r.status for r in reports}
    if failed:
        return "caught", failed
    if reports and statuses == {KernelStatus.ERROR} and all(REFUSAL in (r.error or "") for r in reports):
        return "refused", ()
    if not reports or KernelStatus.ERROR in statuses:
        return "error", ()
    if statuses == {KernelStatus.PROVED}:
        return "proved", ()
    return "unknown", ()


def score(results) -> tuple[int, int, float]:
    """(caught, mutants, caught / mutants) of outcome records."""
    n = len(results)
    caught = sum(1 for r in results if r["outcome"] in ("caught", "refused"))
    return caught, n, (caught / n if n else 0.0)
