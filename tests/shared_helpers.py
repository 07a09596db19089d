"""What many test modules share: the repository's folders and compiling a
kernel from source (tests/ is on pytest's pythonpath: `from shared_helpers import ...`).

Paths are absolute and derived from this file, so tests run from any folder
and never read outside the checkout.
"""
from __future__ import annotations

import importlib
import importlib.util
import sys
import textwrap
from pathlib import Path

from verikern.frontend import compile_source
from verikern.mir.nodes import Kernel

ROOT = Path(__file__).resolve().parents[1]          # the repository
CORPUS = ROOT / "tests" / "corpus"                  # -> verikern/selftest_corpus
EXAMPLES_DIR = ROOT / "examples"
EXAMPLE_FILES = sorted(EXAMPLES_DIR.glob("*.py"))
DATA = ROOT / "tests" / "data"
BENCHMARKS = ROOT / "benchmarks"

#: the import a snippet gets with `header=True`
HEADER = "import verikern as vk\n\n"
#: records after one header each (warp-simdata's `_scatter_connectivity_kernel`): record i of
#: `offsets[i+1] - offsets[i]` ids starts at `offsets[i] + i + 1` in `packed`, after its header
#: (the suggestion its tests expect: tests/proofs/test_suggest_record_headers.py, pasted under
#: real Warp: tests/warp_compat/test_warp_record_headers.py)
SCATTER_RECORDS = '''import warp as wp


@wp.kernel
def scatter_records(packed: wp.array(dtype=wp.int32), offsets: wp.array(dtype=wp.int32),
                    connectivity: wp.array(dtype=wp.int32)):
    i = wp.tid()
    start = offsets[i]
    point_count = offsets[i + 1] - start
    src = start + i + 1
    for k in range(point_count):
        connectivity[start + k] = packed[src + k]
'''



def mir_of(source: str, name: str | None = None, *, filename: str = "kernel_under_test.py",
           header: bool = False) -> Kernel:
    """The MIR of kernel `name` (else the first kernel) of `source`, dedented
    (and after HEADER with `header`); AssertionError with the rendered
    diagnostics when the module or that kernel does not compile."""
    text = (HEADER if header else "") + textwrap.dedent(source)
    res = compile_source(text, filename)
    if res.errors:
        raise AssertionError("module errors: " + "; ".join(e.render() for e in res.errors))
    kr = res.kernel(name) if name else res.kernels[0]
    if kr.error is not None or kr.mir is None:
        raise AssertionError(kr.error.render() if kr.error is not None else f"{kr.name}: no MIR")
    return kr.mir


def import_file(path: Path, name: str, *, keep: bool = True):
    """The module of the Python file `path`, imported as `name` (as user code
    imports it: executed). `keep`: left in sys.modules (a module whose
    kernels are launched later), else removed once loaded (its dataclasses
    resolve their module while it loads)."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None, path
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    finally:
        if not keep:
            del sys.modules[name]
    return module


def write_package(folder: Path, name: str, modules: dict[str, str]) -> Path:
    """A package `name` in `folder`: an empty `__init__.py` and one module per
    `modules` entry (its name without `.py`: its source, dedented)."""
    pkg = folder / name
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    for module, source in modules.items():
        (pkg / f"{module}.py").write_text(textwrap.dedent(source))
    return pkg


def import_package_modules(folder: Path, *names: str) -> list:
    """The modules `names` (dotted, e.g. `pkg.ops`) of a package in `folder`,
    imported as real Warp users import them (executed, with Warp initialised
    quietly on the CPU); `folder` is on sys.path only while they load."""
    import warp as wp  # lazy: only the tests that run real Warp need it

    wp.config.quiet = True
    wp.init()
    sys.path.insert(0, str(folder))
    try:
        return [importlib.import_module(n) for n in names]
    finally:
        sys.path.remove(str(folder))


def import_from_path(base: Path, dotted: str):
    """The module `dotted` of a package under the folder `base`, imported as user
    code imports it (executed), with `base` on sys.path only while it loads."""
    sys.path.insert(0, str(base))
    try:
        return importlib.import_module(dotted)
    finally:
        sys.path.remove(str(base))


def suggestion_of_failed(source: str, filename: str):
    """The one kernel of `source`, proved with suggestions: it must fail; its report."""
    from verikern.app.prove import prove_source     # lazy: the prover app, for the suggestion tests only
    from verikern.proofs.obligations import KernelStatus  # lazy: as above
    (report,) = prove_source(source, filename, suggest=True)
    assert report.status is KernelStatus.FAILED
    return report


def search_of_failed(source: str, filename: str, name: str | None = None):
    """Kernel `name` (else the first) of `source` proved with the suggestion search
    (proofs.pipeline): it must fail; its report holds the suggestion and the search's own
    claim that it proves the kernel. The application's re-proof of the pasted source
    (`suggestion_of_failed`'s) is left out: a test that takes this report re-proves the
    pasted source itself where the search claims a proof (`pasted_proved_and_loaded`),
    the same proof, made once."""
    from verikern.proofs.obligations import KernelStatus  # lazy: as above
    from verikern.proofs.pipeline import prove_mir       # lazy: as above
    report = prove_mir(mir_of(source, name, filename=filename), file=filename, suggest=True)
    assert report.status is KernelStatus.FAILED
    return report


def pasted_proved_and_loaded(report, source: str, tmp_path: Path, stem: str):
    """The suggestion of `report` pasted into `source` by hand, proved again (it must be
    proved), and the file written as `stem`.py and loaded as project code imports it."""
    from verikern.app.prove import prove_source     # lazy: the prover app, for the suggestion tests only
    from verikern.proofs.obligations import KernelStatus  # lazy: as above
    from verikern.proofs.reporting.paste import pasted, suggestion_inserts  # lazy: as above
    text = pasted(source, suggestion_inserts(source, report.line, report.suggested_decorators))
    (again,) = prove_source(text, f"{stem}.py")
    assert again.status is KernelStatus.PROVED, [ob.message for ob in again.obligations]
    return load_text(text, tmp_path, stem)


def load_text(text: str, tmp_path: Path, stem: str):
    """`text` written as `stem`.py under `tmp_path` and loaded as project code imports it."""
    path = tmp_path / f"{stem}.py"
    path.write_text(text)
    return import_file(path, stem)
