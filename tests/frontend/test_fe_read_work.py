"""Project modules read once for the configurations that read them alike, and reading
counted in the compile budget (verikern/frontend/scan/module_reads.py; issue 26).

A module's read is kept on all it depends on (its bytes, the modules it reads and
theirs, the layout answers, the project's files, the configuration's choices of
those modules), never on a path alone: a kept read gives the MIR a fresh read gives,
a changed file or configuration reads again, and a read that met a module being read
(a cycle, the kernel's own file) is never kept. Every read of a compile is charged to
the kernels that need it, kept or not, so a warm process counts what a cold one does,
and a budget smaller than the reading cuts the kernel to `unknown` naming the budget."""
from __future__ import annotations

import os

import pytest

from verikern.app.prove import prove_file
from verikern.frontend import compile_file, driver
from verikern.frontend.scan import module_reads, project
from verikern.mir import work
from verikern.mir.printer import format_kernel
from verikern.proofs.deciding import budget
from verikern.proofs.obligations import KernelStatus
from shared_helpers import write_package

TYPE_CONFIG = '''
import os
import warp as wp

_ALIASES = {"half": wp.float16, "single": wp.float32, "double": wp.float64}


def _resolve(value):
    if value is None:
        return wp.float32
    return _ALIASES[value]


scalar_t = _resolve(os.getenv("PKG_PRECISION"))
'''

# free of the configuration: reads no module that has a choice
CONSTS = '''
import warp as wp

WIDTH = 3


@wp.func
def widen(x: float):
    return x * float(WIDTH)
'''

# reads the choice: its read differs per configuration
HELPERS = '''
import warp as wp
from .type_config import scalar_t


@wp.func
def twice(x: scalar_t):
    return x + x
'''

KERNELS = '''
import warp as wp
from .type_config import scalar_t
from .consts import WIDTH, widen
from .helpers import twice


@wp.kernel
def scaled(a: wp.array(dtype=scalar_t)):
    i = wp.tid()
    if i < a.shape[0]:
        a[i] = twice(a[i]) * scalar_t(WIDTH)


@wp.kernel
def plain(a: wp.array(dtype=float)):
    i = wp.tid()
    if i < a.shape[0]:
        a[i] = widen(a[i])
'''


def _package(tmp_path, **changed):
    modules = {"type_config": TYPE_CONFIG, "consts": CONSTS, "helpers": HELPERS, "kernels": KERNELS}
    return write_package(tmp_path, "pkg", {**modules, **changed})


def _fresh_reads(monkeypatch) -> list:
    """The (module, configuration labels) of every module read made fresh from now on."""
    seen: list = []
    fresh = project._read_fresh

    def recording(proj, dotted, path, data):
        seen.append((dotted, tuple(c.alternatives[i][0] for c, i in proj.configuration)))
        return fresh(proj, dotted, path, data)
    monkeypatch.setattr(project, "_read_fresh", recording)
    return seen


def _never_kept(monkeypatch) -> None:
    monkeypatch.setattr(module_reads, "_installed", lambda *args: False)


def _made(module, counts: bool = True) -> list:
    """What a compile gave, by kernel: MIR text, error, budget; and each kernel's count."""
    kernels = [(k.name, format_kernel(k.mir) if k.mir is not None else None,
                k.error.render() if k.error is not None else None, k.budget_spent) for k in module.kernels]
    return kernels + (sorted((name, m.spent, sorted(m.counts.items())) for name, m in module.work.items())
                      if counts else [])


def test_a_module_free_of_the_configuration_is_read_once_and_a_warm_compile_reads_none(tmp_path, monkeypatch):
    module_reads.forget_reads()
    pkg = _package(tmp_path)
    seen = _fresh_reads(monkeypatch)
    cold = compile_file(pkg / "kernels.py")
    assert cold.kernel_names == ["scaled{scalar_t=float32}", "scaled{scalar_t=float16}",
                                 "scaled{scalar_t=float64}", "plain"]
    assert all(k.ok for k in cold.kernels), [k.error for k in cold.kernels]
    # consts reads no choice: once as written, once for all three configurations (whether a
    # configuration is in force at all is an input: it decides `if T == wp.float32:` tests)
    assert [c for d, c in seen if d == "pkg.consts"] == [(), ("float32",)]
    # type_config and helpers read the choice: as written, then once per configuration
    for dotted in ("pkg.type_config", "pkg.helpers"):
        assert [c for d, c in seen if d == dotted] == [(), ("float32",), ("float16",), ("float64",)]
    seen.clear()
    warm = compile_file(pkg / "kernels.py")
    assert seen == [] and _made(warm) == _made(cold)     # the same MIR, errors and counts
    assert warm.imports == cold.imports                   # every module read, with its sha256


def test_kept_reads_give_the_mir_of_fresh_reads_and_count_only_what_was_read(tmp_path, monkeypatch):
    pkg = _package(tmp_path)
    here = os.path.dirname(__file__)
    files = [pkg / "kernels.py", os.path.join(here, "..", "data", "project_pkg", "vkproj", "kernels.py")]
    module_reads.forget_reads()
    cold = [_made(compile_file(f)) for f in files]
    assert [_made(compile_file(f)) for f in files] == cold     # warm: the same counts too
    with monkeypatch.context() as m:
        _never_kept(m)
        fresh = [compile_file(f) for f in files]
    assert [_made(f, counts=False) for f in fresh] == [c[:len(c) - len(f.work)] for c, f in zip(cold, fresh)]
    # never kept, consts is read once per configuration and charged each time: 2 more reads
    nodes = {n: m.counts["reading"] for n, m in fresh[0].work.items()}
    assert all(nodes[n] > dict(c)["reading"] for n, _, c in cold[0][-len(nodes):])


def test_a_changed_module_is_read_again(tmp_path, monkeypatch):
    module_reads.forget_reads()
    pkg = _package(tmp_path)
    before = compile_file(pkg / "kernels.py")
    seen = _fresh_reads(monkeypatch)
    (pkg / "consts.py").write_text(CONSTS.replace("WIDTH = 3", "WIDTH = 5"))
    after = compile_file(pkg / "kernels.py")
    assert ("pkg.consts", ()) in seen
    text = {k.name: format_kernel(k.mir) for k in after.kernels}
    old = {k.name: format_kernel(k.mir) for k in before.kernels}
    assert "3.0:float64" in old["scaled{scalar_t=float64}"] and "3.0:float32" in old["plain"]
    assert "5.0:float64" in text["scaled{scalar_t=float64}"] and "5.0:float32" in text["plain"]
    with monkeypatch.context() as m:
        _never_kept(m)
        assert _made(compile_file(pkg / "kernels.py"), False) == _made(after, False)


CYCLE_USER = '''
import warp as wp
from .y import helper


@wp.kernel
def user(a: wp.array(dtype=float)):
    i = wp.tid()
    if i < a.shape[0]:
        a[i] = helper(a[i])
'''

CYCLE_Y = '''
import warp as wp
from .z import SCALE


@wp.func
def helper(x: float):
    return x * float(SCALE)
'''

CYCLE_Z = '''
import warp as wp
from .y import helper

SCALE = 2


@wp.kernel
def zk(a: wp.array(dtype=float)):
    i = wp.tid()
    if i < a.shape[0]:
        a[i] = helper(a[i])
'''


def test_a_read_that_met_a_module_being_read_is_never_kept(tmp_path, monkeypatch):
    pkg = write_package(tmp_path, "pkg", {"user": CYCLE_USER, "y": CYCLE_Y, "z": CYCLE_Z})
    module_reads.forget_reads()
    cold = _made(compile_file(pkg / "z.py"))     # y read while z is being read: z's SCALE not read
    module_reads.forget_reads()
    user = _made(compile_file(pkg / "user.py"))  # y and z import each other: the order decides
    seen = _fresh_reads(monkeypatch)
    assert _made(compile_file(pkg / "user.py")) == user
    assert sorted(seen) == [("pkg.y", ()), ("pkg.z", ())]      # read again, never kept
    seen.clear()
    assert _made(compile_file(pkg / "z.py")) == cold and seen == [("pkg.y", ())]


def test_the_same_verdicts_twice_cold_and_warm(tmp_path):
    pkg = _package(tmp_path)
    module_reads.forget_reads()
    runs = [[(r.kernel, r.status, r.error) for r in prove_file(pkg / "kernels.py")] for _ in range(2)]
    assert runs[0] == runs[1]
    assert {s for _, s, _ in runs[0]} == {KernelStatus.PROVED}


def _read_spent(monkeypatch) -> list:
    """Each kernel's units spent after each configured run of the file (the driver's)."""
    after: list = []
    run = driver._configured_run

    def recording(*args):
        got = run(*args)
        after.append({k: m.spent for k, m in args[-1].by_kernel.items()})
        return got
    monkeypatch.setattr(driver, "_configured_run", recording)
    return after


@pytest.mark.parametrize("warm", [False, True])
def test_a_budget_smaller_than_the_reading_cuts_the_kernels_to_unknown_naming_it(tmp_path, monkeypatch, warm):
    pkg = _package(tmp_path)
    module_reads.forget_reads()
    if warm:
        compile_file(pkg / "kernels.py")        # kept reads are charged as fresh ones are
    whole = compile_file(pkg / "kernels.py").work["scaled"]
    assert whole.counts["reading"] > 0 and whole.counts["taking"] > 0
    reading = whole.counts["reading"] * work.READ_UNITS + whole.counts["taking"] * work.TAKE_UNITS
    cut = compile_file(pkg / "kernels.py", work=reading // 8, work_hint="raise --budget")
    assert all(k.budget_spent or k.unknown for k in cut.kernels) and not any(k.mir for k in cut.kernels)
    text = cut.kernels[0].error.render()
    assert "compile work budget of" in text and "ran out reading the file and the project modules" in text
    assert "hint: raise --budget" in text
    monkeypatch.setattr(budget, "COMPILE_CHECKS", (reading // 8) / budget.DEFAULT_CHECK_RLIMIT)
    monkeypatch.setattr(budget, "MIN_COMPILE_UNITS", 0)
    reports = prove_file(pkg / "kernels.py")
    assert reports and all(r.status is KernelStatus.UNKNOWN for r in reports)
    assert "compile work budget" in reports[0].error


def test_a_configuration_read_past_the_budget_stops_and_keeps_what_reached_mir(tmp_path, monkeypatch):
    pkg = _package(tmp_path)
    module_reads.forget_reads()
    after = _read_spent(monkeypatch)
    whole = compile_file(pkg / "kernels.py")
    first = after[0]["scaled"]       # as written and the default configuration, read and compiled
    seen = _fresh_reads(monkeypatch)
    module_reads.forget_reads()
    cut = compile_file(pkg / "kernels.py", work=first + 1)
    default, second, third = (k for k in cut.kernels if k.name.startswith("scaled"))
    assert default.mir == whole.kernels[0].mir and default.ok
    assert second.budget_spent and "ran out reading the file" in second.error.render()
    assert third.budget_spent and third.mir is None
    # the second configuration's read stopped; the third was never read
    assert not any(c == ("float64",) for _, c in seen)
