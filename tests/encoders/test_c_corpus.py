"""The C encoding of every example and corpus kernel (encoders/c).

- It compiles warning-free with gcc (-std=c11 -Wall -Wextra -Werror, replay
  mode with the shipped header; clang too when installed): one compiler run
  per folder.
- For every counterexample of a corpus kernel that the simulator confirms,
  the compiled C program, run on it, fails the same obligation (by id): an
  independent confirmation.
- For every proved corpus kernel, a handful of launches its contracts admit
  (verikern.testing.launches, solved with z3) run through the C program
  without any failed check (the launch's two race-checked threads drawn at
  random); a launch the C program calls inadmissible fails the test too.
"""
from __future__ import annotations

import random
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from corpus_loader import compiled, load_corpus
from corpus_reports import case_reports
from tiers import keys_of_the_run
from verikern.encoders.c import HEADER_DIR, emit_c
from verikern.proofs.confirming.c_replay import CFLAGS, CReplay
from verikern.mir.nodes import ParamOrigin, RequiresArray

from shared_helpers import ROOT
CASES = load_corpus()
FAILING = [c for c in CASES if c.expect_status == "failed"]
PROVED = [c for c in CASES if c.expect_status == "proved"]
COMPILERS = [c for c in ("gcc", "clang") if shutil.which(c)]
needs_cc = pytest.mark.skipif(not (COMPILERS or shutil.which("cc")),
                              reason="no C compiler (apt-get install gcc)")


def _kernels(path: Path):
    """(name, MIR) of every kernel of the file the frontend compiles."""
    m = compiled(str(path))
    for name in m.kernel_names:
        r = m.kernel(name)
        if r.error is None:
            yield name, r.mir


@pytest.mark.parametrize("compiler", COMPILERS or ["gcc"])
@pytest.mark.parametrize("folder", ["examples", "tests/corpus"])
def test_c_of_every_kernel_compiles_warning_free(folder, compiler, tmp_path, request):
    if not shutil.which(compiler):
        pytest.skip(f"{compiler} is not installed (apt-get install {compiler})")
    paths = sorted((ROOT / folder).glob("*.py"))
    # the corpus: its stratified sample (every class of kernel) in the default run, every
    # file with -m slow (68 s of a profiled run at load ~9 for the whole corpus)
    kept = keys_of_the_run((p.stem for p in paths), request.config.option.markexpr)
    sources = []
    for path in (p for p in paths if p.stem in kept or folder == "examples"):
        for name, mir in _kernels(path):
            src = tmp_path / f"{path.stem}__{name}.c"
            src.write_text(emit_c(mir), encoding="utf-8")
            sources.append(src)
    assert len(sources) >= 10
    proc = subprocess.run([compiler, *CFLAGS, "-DVERIKERN_REPLAY", f"-I{HEADER_DIR}",
                           "-fsyntax-only", *map(str, sources)],
                          capture_output=True, text=True, timeout=600)
    bad = sorted({Path(m).name for m in re.findall(r"^(\S+\.c):\d+", proc.stderr, re.M)})
    assert proc.returncode == 0 and not proc.stderr.strip(), \
        f"{len(bad)} files draw diagnostics: {bad}\n{proc.stderr[-3000:]}"


@needs_cc
@pytest.mark.parametrize("case", FAILING, ids=[c.name for c in FAILING])
def test_confirmed_counterexample_fails_the_same_obligation_in_c(case):
    from verikern.proofs.obligations import Status, obligation_id

    reports = case_reports(case)       # test_corpus_verdict's proof, made once per run
    kernels = dict(_kernels(case.path))
    checked = 0
    for rep in reports:
        obs = [o for o in rep.obligations if o.status is Status.FAILED and o.confirmed
               and o.counterexample is not None and o.spec is not None]
        if not obs:
            continue
        with CReplay(kernels[rep.kernel]) as replay:
            for ob in obs:
                oid = obligation_id(ob.spec)
                run = replay.run(ob.counterexample.to_json())
                if ob.kind.value == "uninit" and not run.confirms(oid):
                    # a read before the write that a missing barrier allows depends on the
                    # schedule: C's (threads in lockstep) may write first, and must then
                    # report the race on that element, also a failure of the kernel
                    races = {obligation_id(o.spec) for o in rep.obligations
                             if o.kind.value == "race" and o.status is Status.FAILED and o.spec}
                    assert run.status == "failed" and set(run.failed_ids) & races, \
                        f"{case.name}: {oid}: {run.describe(oid)}"
                elif ob.counterexample.abstracted and not run.confirms(oid):
                    # the model went through a loop abstraction: the witness thread's
                    # earlier iterations are not exact, and C runs that thread first, so
                    # it may break another dimension of the same access first (the
                    # simulator confirmed this dimension on the whole launch)
                    site = oid.split("#")[0]
                    assert run.status == "failed" and run.failed_ids and \
                        run.failed_ids[0].split("#")[0] == site, \
                        f"{case.name}: {oid}: {run.describe(oid)}"
                else:
                    assert run.confirms(oid), f"{case.name}: {oid}: {run.describe(oid)}"
                checked += 1
    if not checked:
        pytest.skip(f"{case.name}: no counterexample the simulator confirms")


def _as_counterexample(mir, launch, rng) -> dict:
    """A launch of verikern.testing as counterexample JSON (two random threads)."""
    from verikern.mir.nodes import ArrayRef
    size = int(np.prod(launch.dims))
    ids = rng.sample(range(size), min(2, size))
    threads = [{"block": i // launch.block_dim, "thread": i % launch.block_dim} for i in ids]
    scalars, shapes, arrays = {}, {}, {}
    values = dict(launch.values)
    for p in mir.params:
        v = values[p.name]
        if isinstance(p, ArrayRef):
            shapes[p.name] = list(v.shape[:p.ndim])
            flat = np.asarray(v).reshape(-1)
            arrays[p.name] = {str(i): flat[i].item() for i in (flat != 0).nonzero()[0].tolist()}
        else:
            scalars[p.name] = np.asarray(v).item()
    return {"dims": list(launch.dims), "block_dim": launch.block_dim, "threads": threads,
            "scalars": scalars, "shapes": shapes, "arrays": arrays, "facts": {}}


@needs_cc
@pytest.mark.parametrize("case", PROVED, ids=[c.name for c in PROVED])
def test_admissible_launches_of_a_proved_kernel_never_fail_a_check(case):
    from hypothesis import HealthCheck, given, settings

    from verikern.testing import TestingError, launches

    from hypothesis import strategies as st

    rng = random.Random(case.name)
    # the launches the proof covers: the case's own --dim/--block-dim; integer
    # scalars small, so that loops they bound finish (the C run has a time limit)
    dims = case.option("--dim")
    block_dim = case.option("--block-dim")
    for _name, mir in _kernels(case.path):     # `run` is called within its iteration
        small = {p.name: st.integers(0, 64) for p in mir.scalar_params
                 if p.value.type.is_int and p.origin is not ParamOrigin.CAPTURED}
        # integer array contents small too, where no content contract constrains them:
        # `range(offsets[s], offsets[s + 1])` must not ask the C run for 2**31 iterations
        contracted = {ins.array.name for _, ins in mir.instructions() if isinstance(ins, RequiresArray)}
        short = {a.name: st.integers(0 if a.dtype.kind == "uint" else -64, 64) for a in mir.arrays
                 if a.space == "global" and not a.inner and a.dtype.kind in ("int", "uint")
                 and a.name not in contracted}
        try:
            strategy = launches(mir, max_threads=256, params=small, elements=short,
                                dims=tuple(int(d) for d in dims.split(",")) if dims else None,
                                block_dim=int(block_dim) if block_dim else None)
        except TestingError as e:
            pytest.skip(str(e))
        with CReplay(mir) as replay:
            @settings(max_examples=4, deadline=None, database=None,
                      suppress_health_check=list(HealthCheck))
            @given(strategy)
            def run(launch):
                ce = _as_counterexample(mir, launch, rng)  # noqa: B023 (run() is called in this iteration)
                got = replay.run(ce, complete=False)
                assert got.status == "ok", f"{case.name}: {launch!r}: {got.describe()}"
            run()
