"""The kernel generator (verikern.testing.generate): programs are
deterministic per seed, compile, run without runtime errors on the
simulator (well defined by construction), cover the language's features,
shrink without losing well-definedness, and plant defects that change the
program; `verikern fuzz --generate` finds, shrinks and reproduces a
backend that disagrees."""
from __future__ import annotations

import re
import shlex
from collections import Counter

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, settings

from verikern.cli import main
from verikern.testing import backends as backends_module
from verikern.testing.backends import Backend, run_device, safe_run
from verikern.testing.compare import RunError
from verikern.testing.generate.campaign import compile_program, run_program
from verikern.testing.generate.model import SCALARS, count_exprs
from verikern.testing.generate.program import (
    defects, launch_of, plant, program_from_seed, programs,
)
from verikern.testing.generate.shrink import shrink

CPU = backends_module.BACKENDS["cpu"]


def _sources(seeds):
    return [program_from_seed(s).source() for s in seeds]


def test_the_same_seed_writes_the_same_program_and_launch():
    a, b = program_from_seed(11), program_from_seed(11)
    assert a.source() == b.source()
    la, lb = launch_of(a), launch_of(b)
    assert la.dims == lb.dims and la.block_dim == lb.block_dim
    for name, v in la.values.items():
        np.testing.assert_array_equal(np.asarray(v), np.asarray(lb.values[name]))
    assert program_from_seed(12).source() != a.source()


def test_generated_programs_cover_the_language():
    srcs = _sources(range(300))
    text = "\n".join(srcs)
    ranks = Counter(len(m.group(1).split(",")) for m in re.finditer(r"^    (i0(?:, i\d)*) = vk.tid\(\)",
                                                                        text, re.M))
    assert set(ranks) == {1, 2, 3, 4}, ranks
    shared_ranks = {m.group(1).count(",") + 1 if m.group(1).count(",") else 1
                    for m in re.finditer(r"shared\.array\(shape=\(([^)]*)\)", text)}
    assert {1, 2, 3, 4} <= {len([x for x in s.split(",") if x.strip()]) for s in
                            re.findall(r"shared\.array\(shape=\(([^)]*)\)", text)}, shared_ranks
    assert 'layout="column_major"' in text
    assert re.search(r"shared\.array\(shape=\([^)]*\), dtype=vk\.float32\)", text)
    global_ndims = {int(n) for n in re.findall(r"vk\.array\(dtype=vk\.\w+, ndim=(\d)\)", text)}
    assert global_ndims == {2, 3, 4} and "vk.array(dtype=vk.int32)" in text
    for t in SCALARS:
        assert f"dtype=vk.{t}" in text, t
    for needle in ("vk.vec2", "vk.vec3", "vk.vec4", "mat33", "vk.cross(", "vk.dot(", "vk.transpose(",
                   "continue", "break", "while ", "@vk.func", "vk.atomic_add(", "vk.atomic_min(",
                   "vk.atomic_max(", "vk.atomic_cas(", "vk.atomic_exch(", "+= ", "vk.sync_threads()",
                   "vk.sin(", "vk.where(", "vk.clamp(",
                   "vk.sqrt(", "vk.floor(", " << ", " >> ", " // ", " % "):
        assert needle in text, needle
    assert any("@vk.func" in s and "p0_f1" in s for s in srcs), "no func calling another func"


@pytest.mark.parametrize("seed", range(0, 8))
def test_a_generated_program_compiles_and_runs_on_the_simulator_without_error(seed, tmp_path):
    program = program_from_seed(seed)
    target = compile_program(program, tmp_path, False)
    out = safe_run(CPU, target, launch_of(program))
    assert not isinstance(out, RunError), f"{out}\n{program.source()}"


@settings(max_examples=8, deadline=None)
@given(programs(max_phases=2))
def test_the_hypothesis_strategy_writes_programs_that_compile(program):
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        target = compile_program(program, tmp, False)
        assert target.mir.name == program.name


def test_every_planted_defect_changes_the_source_and_names_itself():
    seen = Counter()
    for seed in range(60):
        p = program_from_seed(seed)
        for k, (_, name) in enumerate(defects(p)):
            bad = plant(p, k)
            assert bad.source() != p.source() and bad.defect.startswith(name)
            seen[name] += 1
    assert set(seen) == {"dropped guard", "off-by-one", "off-by-one read", "plain store",
                         "removed barrier", "read before write"}, seen


def test_shrinking_keeps_programs_well_defined(tmp_path):
    """Shrinking with a predicate that accepts everything goes as far as it
    can; the result still compiles and runs without a runtime error (its
    divisors, shift amounts and indices are still made safe)."""
    program = program_from_seed(3)
    launch = launch_of(program)
    small, small_launch, tries = shrink(program, launch, lambda p, lnch: True, budget=400)
    assert len(small.phases) == 1 and count_exprs(small) < count_exprs(program) and tries > 0
    target = compile_program(small, tmp_path, False)
    assert not isinstance(safe_run(CPU, target, small_launch), RunError), small.source()


def _wrong(target, launch):
    """A backend that gets the first element of the last written array wrong."""
    out = run_device("cpu")(target, launch)
    if isinstance(out, RunError):
        return out
    name = [n for n in out if n.endswith("out") and out[n].size][-1:]
    for n in name:
        first = (0,) * out[n].ndim     # (the array may be in Fortran order: no flat view)
        v = out[n][first]
        out[n][first] = ~v if out[n].dtype.kind in "iub" else v + np.array(1000, out[n].dtype)
    return out


def test_a_disagreeing_backend_is_found_shrunk_written_and_reproducible(tmp_path):
    wrong = Backend("wrong", _wrong)
    seed = next(s for s in range(100) if not program_from_seed(s).block_level
                and any(a.name.endswith("out") for a in program_from_seed(s).arrays()))
    o = run_program(program_from_seed(seed), [CPU, wrong], tmp_path / "work",
                    save_dir=str(tmp_path / "found"))
    assert o.mismatch is not None and o.mismatch.left == "cpu" and o.mismatch.right == "wrong"
    assert o.mismatch.diagnosis is not None and not o.mismatch.diagnosis.kernel_bug
    shrunk = (tmp_path / "found" / f"gen_{seed}_shrunk.py").read_text()
    assert len(shrunk) <= len(program_from_seed(seed).source())
    argv = shlex.split(o.reproduce)
    assert argv[:2] == ["verikern", "fuzz"] and "--replay" in argv


def test_fuzz_generate_on_the_command_line(monkeypatch, tmp_path):
    runner = CliRunner()
    r = runner.invoke(main, ["fuzz", "--generate", "4", "--seed", "7", "--save-dir", str(tmp_path)],
                      catch_exceptions=False)
    assert "generated kernels: 4" in r.output and "compared on: cpu 4, cpu:native 4" in r.output
    assert r.exit_code in (0, 1), r.output
    monkeypatch.setitem(backends_module.BACKENDS, "wrong", Backend("wrong", _wrong))
    r = runner.invoke(main, ["fuzz", "--generate", "2", "--seed", "1", "--backends", "cpu,wrong",
                             "--save-dir", str(tmp_path)], catch_exceptions=False)
    assert r.exit_code == 1 and "MISMATCH" in r.output and "reproduce: verikern fuzz" in r.output
    line = next(ln for ln in r.output.splitlines() if ln.strip().startswith("reproduce: "))
    again = runner.invoke(main, shlex.split(line.split("reproduce: ", 1)[1])[1:],
                          catch_exceptions=False)
    assert again.exit_code == 1 and "cpu and wrong disagree" in again.output
    bad = runner.invoke(main, ["fuzz", str(tmp_path / "x.py"), "--generate", "2"])
    assert bad.exit_code != 0 and "--generate writes its own kernels" in bad.output
