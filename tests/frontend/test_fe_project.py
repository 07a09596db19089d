"""Project-aware reading (verikern/frontend/scan/project.py): names imported from
the project's other modules, read from their source, never executed; IntEnum
members as constants. The fake project is tests/data/project_pkg/vkproj."""
from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from click.testing import CliRunner

import verikern as vk
from verikern.cli import main
from verikern.app.cache import ProofCache
from verikern.errors import LaunchError
from verikern.app.prove import MODULE_KERNEL, prove_file, prove_paths
from verikern.frontend import compile_file, compile_source
from verikern.frontend.scan.project import PROJECT_SOURCES
from verikern.proofs.obligations import KernelStatus
from frontend.fe_util import compile_text, first_error

PROJECT = Path(__file__).resolve().parents[1] / "data" / "project_pkg"
PACKAGE = PROJECT / "vkproj"
EXPECTED = {"shifted_scale": KernelStatus.PROVED, "shifted_scale_unchecked": KernelStatus.FAILED,
            "by_mode": KernelStatus.PROVED, "first_n": KernelStatus.FAILED}


def _verdicts(reports):
    return {r.kernel: r.status for r in reports}


def test_a_package_folder_proves_with_its_imported_constants_and_funcs():
    reports = prove_paths([PACKAGE])
    # the helper modules (consts.py, math.py, __init__.py) hold no kernel and are no error
    assert _verdicts(reports) == EXPECTED
    assert all(r.file.endswith("kernels.py") for r in reports)
    failed = next(r for r in reports if r.kernel == "shifted_scale_unchecked")
    assert "out[(i + 1)]" in (failed.render() if hasattr(failed, "render") else str(failed))


def test_one_file_inside_the_package_finds_the_package_root():
    reports = prove_file(PACKAGE / "kernels.py")
    assert _verdicts(reports) == EXPECTED
    module = compile_file(PACKAGE / "kernels.py")
    assert {Path(p).name for p, _ in module.imports if p != PROJECT_SOURCES} == {"consts.py", "math.py"}
    assert PROJECT_SOURCES in dict(module.imports)     # every project file, for rebindings from outside


def test_without_the_project_the_imported_names_are_not_constants():
    text = (PACKAGE / "kernels.py").read_text()
    r = compile_source(text, "kernels.py")     # no project: the names are unknown values
    errors = [k.error for k in r.kernels]
    assert all(e is not None and e.rule in ("closure", "call-not-allowed") for e in errors), errors


def _package(tmp_path, files: dict[str, str]) -> Path:
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    for name, text in files.items():
        (pkg / name).write_text(textwrap.dedent(text))
    return pkg


KERNEL = """
import warp as wp
{imports}

@wp.kernel
def k(out: wp.array(dtype=int)):
    i = wp.tid()
    if i < out.shape[0]:
        out[i] = N
"""


def test_a_missing_project_module_is_a_located_error_naming_the_chain(tmp_path):
    pkg = _package(tmp_path, {"k.py": KERNEL.format(imports="from .missing import N")})
    r = compile_file(pkg / "k.py")
    err = next(e for e in r.all_errors if e.rule == "import")
    text = err.render()
    assert f"{pkg / 'k.py'}:3:1: `N` from pkg.missing" in text and "'pkg.missing'" in text
    assert str(tmp_path / "pkg" / "missing.py") in text and "__init__.py" in text
    assert r.kernels[0].error is not None and r.kernels[0].error.rule == "closure"


def test_imported_constant_values_reach_the_kernel(tmp_path):
    pkg = _package(tmp_path, {"consts.py": "N = 6 * 7\n",
                              "k.py": KERNEL.format(imports="from pkg.consts import N")})
    mir = compile_file(pkg / "k.py").kernels[0].mir
    out = np.zeros(3, np.int32)
    vk.launch(mir, 3, [out])
    assert out.tolist() == [42, 42, 42]


def test_a_name_the_defining_module_can_rebind_is_not_a_constant(tmp_path):
    consts = "N = 4\n\ndef reset():\n    global N\n    N = 5\n"
    pkg = _package(tmp_path, {"consts.py": consts,
                              "k.py": KERNEL.format(imports="from .consts import N")})
    err = compile_file(pkg / "k.py").kernels[0].error
    assert err is not None and err.rule == "closure"


def test_an_import_the_file_itself_rebinds_is_not_a_constant(tmp_path):
    pkg = _package(tmp_path, {"consts.py": "N = 4\n",
                              "k.py": KERNEL.format(imports="from .consts import N\nif True:\n"
                                                    "    N = 3")})
    r = compile_file(pkg / "k.py")
    # an unknown int of the literal's type (rebound at run time): never the value 4
    assert r.kernels[0].error is None
    assert _verdicts(prove_file(pkg / "k.py")) == {"k": KernelStatus.PROVED}
    out = np.full(2, 7, np.int32)
    with pytest.raises(LaunchError, match="reads 'N' from the code around it"):
        vk.launch(r.kernels[0].mir, 2, [out])     # its value is read at launch, never assumed


def test_a_name_from_outside_the_project_is_not_a_constant(tmp_path):
    pkg = _package(tmp_path, {"k.py": KERNEL.format(imports="from torch import N")})
    err = compile_file(pkg / "k.py").kernels[0].error
    assert err is not None and err.rule == "closure"


def test_an_imported_func_reads_the_names_of_its_own_module(tmp_path):
    helpers = "import warp as wp\nM = 2\n\n@wp.func\ndef f(x: int):\n    return x * M\n"
    kernel = KERNEL.replace("out[i] = N", "out[i] = f(i) + M").format(
        imports="from .helpers import f\nM = 3")
    pkg = _package(tmp_path, {"helpers.py": helpers, "k.py": kernel})
    mir = compile_file(pkg / "k.py").kernels[0].mir   # f's M is helpers' 2, the kernel's M is 3
    out = np.zeros(4, np.int32)
    vk.launch(mir, 4, [out])
    assert out.tolist() == [3, 5, 7, 9]
    (tmp_path / "b").mkdir()
    unknown = "import warp as wp\nimport os\nM = int(os.environ['M'])\n\n" \
        "@wp.func\ndef f(x: int):\n    return x * M\n"
    bad = _package(tmp_path / "b", {"helpers.py": unknown, "k.py": kernel})
    err = compile_file(bad / "k.py").kernels[0].error
    assert err is not None      # f reads a value known only at run time: never compiled
    assert err.rule == "imported-func" and "'M'" in err.render()


def test_a_change_in_an_imported_module_misses_the_proof_cache(tmp_path):
    pkg = _package(tmp_path, {"consts.py": "N = 4\n",
                              "k.py": KERNEL.format(imports="from .consts import N")})
    cache = ProofCache(str(tmp_path / "cache"))
    prove_file(pkg / "k.py", cache=cache)
    entries = set((tmp_path / "cache").rglob("*.json"))
    prove_file(pkg / "k.py", cache=cache)
    assert set((tmp_path / "cache").rglob("*.json")) == entries      # a hit
    (pkg / "consts.py").write_text("N = 4  # same value, other text\n")
    prove_file(pkg / "k.py", cache=cache)
    assert len(set((tmp_path / "cache").rglob("*.json")) - entries) == 1   # a miss


ENUM = """
import warp as wp
from enum import IntEnum
import enum


class Mode(IntEnum):
    COPY = 0
    TRIPLE = 3


class Flag(enum.IntFlag):
    A = 1
    B = 4


@wp.kernel
def k(out: wp.array(dtype=int)):
    i = wp.tid()
    if i < out.shape[0]:
        out[i] = i * Mode.TRIPLE + Flag.B
"""


def test_int_enum_members_are_constants():
    mir = compile_text(ENUM).kernels[0].mir
    assert mir is not None
    out = np.zeros(3, np.int32)
    vk.launch(mir, 3, [out])
    assert out.tolist() == [4, 7, 10]


def test_an_enum_the_file_rebinds_is_not_a_constant():
    err = first_error(ENUM + "\nMode = None\n")
    assert err.rule in ("closure", "unknown-name")


def test_a_plain_class_of_int_constants_reads_as_warp_reads_it_and_one_with_more_does_not():
    """(scan/class_constants.py; tests/warp_compat/test_warp_class_constants.py compares with Warp)"""
    plain = ENUM.replace("class Mode(IntEnum)", "class Mode(object)")
    out = np.zeros(3, np.int32)
    vk.launch(compile_text(plain).kernels[0].mir, 3, [out])
    assert out.tolist() == [4, 7, 10]
    err = first_error(plain.replace("    TRIPLE = 3\n", "    TRIPLE = 3\n\n    def f(self):\n        pass\n"))
    assert "Mode" in err.render()


def test_real_warp_runs_the_package_as_the_simulator_does():
    wp = pytest.importorskip("warp")
    wp.config.quiet = True
    wp.init()
    sys.path.insert(0, str(PROJECT))
    try:
        from vkproj import kernels    # real Warp executes the package; verikern only reads it
    finally:
        sys.path.remove(str(PROJECT))
    module = compile_file(PACKAGE / "kernels.py")
    rng = np.random.default_rng(7)
    x = rng.uniform(-4, 4, 9).astype(np.float32)
    x[2] = 0.0
    for name, extra in (("shifted_scale", ()), ("by_mode", (0,)), ("by_mode", (1,))):
        ours = np.zeros(9, np.float32)
        vk.launch(module.kernel(name).mir, 9, [x, ours, *extra])
        xs, theirs = wp.array(x, dtype=float, device="cpu"), wp.zeros(9, dtype=float, device="cpu")
        wp.launch(getattr(kernels, name), dim=9, inputs=[xs, theirs, *extra], device="cpu")
        np.testing.assert_array_equal(ours, theirs.numpy())
    assert MODULE_KERNEL not in _verdicts(prove_paths([PACKAGE]))


def test_an_unresolved_name_further_down_names_the_whole_chain(tmp_path):
    pkg = _package(tmp_path, {"consts.py": "from .base import N\n", "base.py": "M = 1\n",
                              "k.py": KERNEL.format(imports="from .consts import N")})
    r = compile_file(pkg / "k.py")
    text = next(e for e in r.all_errors if e.rule == "import").render()
    assert f"{pkg / 'k.py'}:3:1: `N` from pkg.consts" in text
    assert f"{pkg / 'consts.py'}:1:1: `N` from pkg.base" in text
    assert f"{pkg / 'base.py'} binds no module-level name 'N'" in text


def test_a_submodule_imported_by_name_is_a_module_not_an_error(tmp_path):
    pkg = _package(tmp_path, {"consts.py": "N = 4\n",
                              "k.py": KERNEL.format(imports="from . import consts\nN = 2")})
    r = compile_file(pkg / "k.py")
    assert not r.all_errors
    out = np.zeros(2, np.int32)
    vk.launch(r.kernels[0].mir, 2, [out])
    assert out.tolist() == [2, 2]


def test_an_imported_func_reports_errors_and_failures_in_its_own_file(tmp_path):
    acc = "import warp as wp\n\n@wp.func\ndef get(a: wp.array(dtype=int), i: int):\n" \
          "    return a[i + 1]\n"
    kernel = KERNEL.replace("out[i] = N", "out[i] = get(out, i)").format(
        imports="from .acc import get")
    pkg = _package(tmp_path, {"acc.py": acc, "k.py": kernel})
    (report,) = prove_file(pkg / "k.py")
    assert report.status is KernelStatus.FAILED
    failure = next(o for o in report.obligations if o.status.name == "FAILED")
    assert (Path(failure.loc.file).name, failure.loc.line) == ("acc.py", 5)


def test_a_project_module_imported_as_a_name_gives_its_constants(tmp_path):
    consts = ("import warp as wp\nfrom enum import IntEnum\nN = 5\nX = wp.constant(wp.int32(2))\n"
              "class Mode(IntEnum):\n    A = 10\n")
    kernel = KERNEL.replace("out[i] = N", "out[i] = c.N * c.X + c.Mode.A").format(
        imports="import pkg.consts as c")
    pkg = _package(tmp_path, {"consts.py": consts, "k.py": kernel})
    r = compile_file(pkg / "k.py")
    assert not r.all_errors, [e.render() for e in r.all_errors]
    out = np.zeros(2, np.int32)
    vk.launch(r.kernels[0].mir, 2, [out])
    assert out.tolist() == [20, 20]
    (pkg / "k.py").write_text(textwrap.dedent(kernel) + "\ndef bump():\n    c.N = 6\n")
    assert compile_file(pkg / "k.py").kernels[0].error.rule == "closure"   # stored into here
    (pkg / "k.py").write_text(textwrap.dedent(kernel))
    (pkg / "consts.py").write_text(consts + "\ndef bump():\n    global N\n    N += 1\n")
    err = compile_file(pkg / "k.py").kernels[0].error
    assert err is not None and err.rule == "closure"   # N can be rebound in its module
    assert "cannot read c.N" in err.render() and "global" in err.render()


def test_an_unresolvable_project_module_alias_is_a_located_error(tmp_path):
    pkg = _package(tmp_path, {"k.py": KERNEL.format(imports="import pkg.nothere as c")})
    err = next(e for e in compile_file(pkg / "k.py").all_errors if e.rule == "import")
    assert f"{pkg / 'k.py'}:3:1" in err.render() and "nothere.py" in err.render()


def _cli(*args):
    result = CliRunner().invoke(main, ["prove", *map(str, args)], catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def test_the_command_line_proves_a_package_folder_in_one_report():
    code, out, err = _cli(PACKAGE)
    assert code == 1                        # shifted_scale_unchecked and first_n fail
    assert "4 kernels: 2 proved, 2 failed, 0 unknown, 0 error" in out
    assert out.count("FAILED  shifted_scale_unchecked") == 1
    verdicts = [line for line in out.splitlines()
                if line.startswith(("PROVED", "FAILED", "UNKNOWN", "ERROR"))]
    assert not any("consts.py" in v or "math.py" in v for v in verdicts)   # helper modules: no report
    # the constants read from them are assumptions of the kernels' scope
    assert "module constant: SCALE == 2.0 (its value in " in out
    assert "PROVED  by_mode" in err                           # per-kernel progress


def test_a_single_helper_module_still_holds_no_kernels():
    code, _, err = _cli(PACKAGE / "consts.py")
    assert code == 3 and "no kernels found" in err


def test_a_suggested_contract_is_proved_with_the_project_names():
    (report,) = prove_file(PACKAGE / "kernels.py", kernel="first_n", suggest=True)
    assert report.status is KernelStatus.FAILED
    assert report.suggested_decorators == (
        "@vk.requires(lambda x, out, n: n < x.shape[0] and vk.launch_dim() <= out.shape[0])",)
    assert report.proved_under_suggestion is True   # the pasted file reads OFFSET, SCALE, safe_div


# ------------------------------------------------------------------ rebound from another module
KERNEL_READING = '''\
import warp as wp
from {src} import {name}


@wp.kernel
def k(x: wp.array(dtype=float)):
    i = wp.tid()
    if i < {name}:
        x[i] = 1.0
'''


def _consts_package(tmp_path, rebinder: str | None):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "consts.py").write_text("N = 4\n")
    (pkg / "kern.py").write_text(KERNEL_READING.format(src=".consts", name="N"))
    if rebinder is not None:
        (pkg / "main.py").write_text(rebinder)
    return pkg


@pytest.mark.parametrize("rebinder", [
    "import pkg.consts as c\n\n\ndef configure():\n    c.N = 100\n",
    "from pkg import consts\nconsts.N = 100\n",
    "from . import consts\nsetattr(consts, 'N', 100)\n",
    "import pkg.consts\npkg.consts.N = 100\n",
    "import sys\nimport pkg.consts\nsys.modules['pkg.consts'].N = 100\n",
    "from . import consts as c\nvars(c)['N'] = 100\n",
])
def test_a_name_another_project_module_rebinds_is_not_a_constant(tmp_path, rebinder):
    pkg = _consts_package(tmp_path, rebinder)
    # plain Python: the other module really changes what the kernel module reads
    probe = "import pkg.main, pkg.consts, sys\nf = getattr(pkg.main, 'configure', None)\n" \
            "f and f()\nprint(pkg.consts.N)\n"
    assert subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, capture_output=True,
                          text=True, check=True).stdout.strip() == "100"
    (k,) = compile_file(pkg / "kern.py").kernels
    assert k.error is not None and k.error.rule == "closure" and "main.py" in k.error.message, k.error


def test_a_script_beside_a_kernel_file_that_sets_its_constant(tmp_path):
    (tmp_path / "kf.py").write_text(KERNEL_READING.replace("from {src} import {name}\n", "M = 4\n")
                                    .format(name="M"))
    (k,) = compile_file(tmp_path / "kf.py").kernels
    assert k.error is None                                   # nothing rebinds M yet
    before = dict(compile_file(tmp_path / "kf.py").imports)[PROJECT_SOURCES]
    (tmp_path / "run.py").write_text("import kf\nsetattr(kf, 'M', 100)\n")
    module = compile_file(tmp_path / "kf.py")
    (k,) = module.kernels
    assert k.error is not None and "run.py:2:1" in k.error.message, k.error
    assert dict(module.imports)[PROJECT_SOURCES] != before   # the proof cache misses


def test_an_unrelated_module_of_the_project_leaves_the_constant(tmp_path):
    pkg = _consts_package(tmp_path, "import pkg.consts as c\nOTHER = c.N + 1\n\n\ndef f(o):\n    o.N = 3\n")
    (k,) = compile_file(pkg / "kern.py").kernels
    assert k.error is None and k.mir is not None


def test_a_submodule_or_package_imported_by_name_gives_its_constants(tmp_path):
    pkg = _package(tmp_path, {"consts.py": "N = 4\n", "k.py": KERNEL.replace(
        "out[i] = N", "out[i] = consts.N + pkg.M").format(imports="import pkg\nfrom . import consts")})
    (pkg / "__init__.py").write_text("M = 10\n")
    r = compile_file(pkg / "k.py")
    assert not r.all_errors, [e.render() for e in r.all_errors]
    out = np.zeros(2, np.int32)
    vk.launch(r.kernels[0].mir, 2, [out])
    assert out.tolist() == [14, 14]
    (pkg / "consts.py").write_text("N = 4\n\n\ndef bump():\n    global N\n    N = 5\n")
    err = compile_file(pkg / "k.py").kernels[0].error
    assert err is not None and err.rule == "closure"      # the submodule can rebind N


def test_the_project_read_again_in_one_process_follows_every_change(tmp_path):
    # the outside rebindings are remembered per process by the project's contents: a compile
    # again (as the re-proof of a suggestion does) gives the same answer, a change a new one
    pkg = _consts_package(tmp_path, "import pkg.consts as c\n\n\ndef configure():\n    c.N = 100\n")
    for _ in range(2):
        (k,) = compile_file(pkg / "kern.py").kernels
        assert k.error is not None and "main.py" in k.error.message, k.error
    (pkg / "main.py").write_text("import pkg.consts as c\nOTHER = c.N + 1\n")
    (k,) = compile_file(pkg / "kern.py").kernels
    assert k.error is None and k.mir is not None
    (pkg / "main.py").write_text("import pkg.consts as c\nc.N = 5\n")
    (k,) = compile_file(pkg / "kern.py").kernels
    assert k.error is not None and "main.py" in k.error.message, k.error
