"""The layering of docs/INTERFACES.md, checked on every import statement
(module top or inside a function): data flows source -> HIR -> MIR ->
(encoder | backend | prover) and no layer imports one above it. No layer
imports the top-level `verikern` package itself (`import verikern`, `from
verikern import name` for a name that is not a submodule): it is the
language surface, above them all; the version is `verikern.version`."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# folder -> (installed package, verikern modules it must never import)
ABOVE_THE_PROVER = ("verikern.frontend", "verikern.hir", "verikern.runtime", "verikern.app",
                    "verikern.cli", "verikern.lang", "verikern.trace", "verikern.inputs",
                    "verikern.input_values", "verikern.testing", "verikern.selftest")
# the application layer, above the frontend and the language surface
APPLICATION = ("verikern.runtime", "verikern.app", "verikern.cli", "verikern.trace", "verikern.inputs",
               "verikern.input_values", "verikern.testing", "verikern.selftest")
# what the frontend never needs: it compiles source to MIR, and proving,
# running and the language surface sit on top of it
BESIDE_THE_FRONTEND = APPLICATION + ("verikern.lang", "verikern.encoders", "verikern.backends",
                                     "verikern.proofs")
#: the device backends vk.launch runs on
DEVICES = ("verikern.backends.simulator", "verikern.backends.native", "verikern.backends.cuda")
LAYERS = {
    "verikern/hir": ("verikern.hir", BESIDE_THE_FRONTEND + ("verikern.frontend",)),
    "verikern/frontend": ("verikern.frontend", BESIDE_THE_FRONTEND),
    "verikern/lang.py": ("verikern", APPLICATION),   # compiles (frontend) and emits PTX lazily
    "verikern/mir": ("verikern.mir", ABOVE_THE_PROVER + ("verikern.encoders", "verikern.backends",
                                                          "verikern.proofs")),
    "encoders": ("verikern.encoders", ABOVE_THE_PROVER + ("verikern.proofs",)),   # but the model:
    "backends": ("verikern.backends", ABOVE_THE_PROVER + ("verikern.proofs",)),
    # device-neutral: the launch check and the shared host semantics depend on no device,
    # and no device depends on another one
    "backends/launch.py": ("verikern.backends", ABOVE_THE_PROVER + ("verikern.proofs",) + DEVICES),
    "backends/contracts.py": ("verikern.backends", ABOVE_THE_PROVER + ("verikern.proofs",) + DEVICES),
    # (libm.py JIT-compiles the C library's functions with native's host pipeline, jit.py)
    "backends/semantics": ("verikern.backends.semantics",
                           ABOVE_THE_PROVER + ("verikern.proofs", "verikern.backends.contracts",
                                               "verikern.backends.simulator", "verikern.backends.cuda")),
    "backends/native": ("verikern.backends.native",
                        ABOVE_THE_PROVER + ("verikern.proofs", "verikern.backends.simulator",
                                            "verikern.backends.cuda")),
    "backends/cuda": ("verikern.backends.cuda",
                      ABOVE_THE_PROVER + ("verikern.proofs", "verikern.backends.simulator",
                                          "verikern.backends.native")),
    "proofs": ("verikern.proofs", ABOVE_THE_PROVER),
    "verikern/app": ("verikern.app", ("verikern.cli", "verikern.testing")),
}
#: package folders outside verikern/ (setup.py maps them to verikern.<name>)
MAPPED_PACKAGES = ("encoders", "backends", "proofs")


# the obligation model (kinds, specs, ids) is the one piece of verikern.proofs
# an encoder shares: the C encoding asserts exactly the prover's obligations
ALLOWED = ("verikern.proofs.obligations",)


def imported_modules(path: Path, package: str) -> list[tuple[int, str]]:
    """(line, absolute module name) of every import in `path`; `from P import
    x` gives P.x, and P too unless P is the top-level `verikern` (importing a
    submodule from it, `from verikern import errors`, does not import the
    package's own names)."""
    tree = ast.parse(path.read_text(), filename=str(path))
    here = package.split(".")
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = ".".join(here[:len(here) - node.level + 1])
                name = f"{base}.{node.module}" if node.module else base
            else:
                name = node.module or ""
            if name != "verikern":
                out.append((node.lineno, name))
            out += [(node.lineno, f"{name}.{alias.name}") for alias in node.names]
    return out


def is_top_level_package(name: str) -> bool:
    """`verikern` itself, or a name of it that is no submodule (`verikern.__version__`)."""
    if name == "verikern":
        return True
    top, _, rest = name.partition(".")
    if top != "verikern" or "." in rest:
        return False
    return not (rest in MAPPED_PACKAGES or (ROOT / "verikern" / f"{rest}.py").is_file()
                or (ROOT / "verikern" / rest / "__init__.py").is_file())


def _package_of(path: Path, folder: str, root_package: str, root: Path) -> str:
    if path == root / folder:         # a single module: it lives in root_package
        return root_package
    rel = path.relative_to(root / folder).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        return ".".join([root_package] + parts[:-1])
    return ".".join([root_package] + parts[:-1])


def _within(name: str, module: str) -> bool:
    return name == module or name.startswith(module + ".")


def violations(folder: str, root: Path = ROOT) -> list[str]:
    package, forbidden = LAYERS[folder]
    found = []
    top = root / folder
    for path in [top] if top.suffix == ".py" else sorted(top.rglob("*.py")):
        pkg = _package_of(path, folder, package, root)
        for line, name in imported_modules(path, pkg):
            if any(_within(name, f) for f in forbidden) and not any(_within(name, a) for a in ALLOWED):
                found.append(f"{path.relative_to(root)}:{line}: imports {name}")
            elif is_top_level_package(name):
                found.append(f"{path.relative_to(root)}:{line}: imports the top-level package ({name})")
    return found


@pytest.mark.parametrize("folder", sorted(LAYERS))
def test_no_layer_imports_a_layer_above_it(folder):
    assert violations(folder) == []


def test_the_check_sees_imports_inside_functions_and_relative_ones(tmp_path):
    (tmp_path / "proofs" / "deciding").mkdir(parents=True)
    (tmp_path / "proofs" / "deciding" / "probe.py").write_text(
        "from verikern.proofs.obligations import Status\n"
        "def f():\n    from verikern.frontend import compile_file\n"
        "    from ...app import prove\n")
    found = violations("proofs", tmp_path)
    assert "proofs/deciding/probe.py:3: imports verikern.frontend" in found
    assert "proofs/deciding/probe.py:4: imports verikern.app" in found
    assert not any(":1:" in f for f in found)


def test_the_check_sees_the_top_level_package_but_not_its_submodules(tmp_path):
    (tmp_path / "proofs").mkdir()
    (tmp_path / "proofs" / "probe.py").write_text(
        "from verikern import errors, version\n"
        "from verikern import __version__\n"
        "import verikern\n"
        "import verikern.mir\n"
        "from verikern import encoders\n")
    assert violations("proofs", tmp_path) == [
        "proofs/probe.py:2: imports the top-level package (verikern.__version__)",
        "proofs/probe.py:3: imports the top-level package (verikern)"]


def test_the_frontend_and_hir_are_checked_too(tmp_path):
    (tmp_path / "verikern" / "frontend").mkdir(parents=True)
    (tmp_path / "verikern" / "hir").mkdir()
    (tmp_path / "verikern" / "frontend" / "probe.py").write_text(
        "from verikern.hir.types import HType\n"
        "from verikern.mir.nodes import Kernel\n"
        "from verikern.backends.simulator import simulate\n"
        "from ..lang import kernel\n")
    (tmp_path / "verikern" / "hir" / "probe.py").write_text("from ..frontend import compile_file\n")
    (tmp_path / "verikern" / "lang.py").write_text(
        "def f():\n    from verikern.frontend import compile_file\n    from verikern.runtime import launch\n")
    assert violations("verikern/frontend", tmp_path) == [
        "verikern/frontend/probe.py:3: imports verikern.backends.simulator",
        "verikern/frontend/probe.py:3: imports verikern.backends.simulator.simulate",
        "verikern/frontend/probe.py:4: imports verikern.lang",
        "verikern/frontend/probe.py:4: imports verikern.lang.kernel"]
    assert violations("verikern/hir", tmp_path) == [
        "verikern/hir/probe.py:1: imports verikern.frontend",
        "verikern/hir/probe.py:1: imports verikern.frontend.compile_file"]
    assert violations("verikern/lang.py", tmp_path) == [
        "verikern/lang.py:3: imports verikern.runtime", "verikern/lang.py:3: imports verikern.runtime.launch"]


def test_the_launch_check_depends_on_no_device(tmp_path):
    """backends/launch.py and backends/contracts.py (the contract check every
    device's launch runs) may not import the simulator, nor native/cuda it."""
    (tmp_path / "backends" / "native").mkdir(parents=True)
    (tmp_path / "backends" / "launch.py").write_text(
        "from verikern.backends.simulator import simulate\nfrom verikern.backends.contracts import x\n")
    (tmp_path / "backends" / "contracts.py").write_text("from .semantics import ops\nfrom .simulator import engine\n")
    (tmp_path / "backends" / "native" / "probe.py").write_text("from ..simulator import run\n")
    assert violations("backends/launch.py", tmp_path) == [
        "backends/launch.py:1: imports verikern.backends.simulator",
        "backends/launch.py:1: imports verikern.backends.simulator.simulate"]
    assert violations("backends/contracts.py", tmp_path) == [
        "backends/contracts.py:2: imports verikern.backends.simulator",
        "backends/contracts.py:2: imports verikern.backends.simulator.engine"]
    assert violations("backends/native", tmp_path) == [
        "backends/native/probe.py:1: imports verikern.backends.simulator",
        "backends/native/probe.py:1: imports verikern.backends.simulator.run"]


def test_encoders_may_share_only_the_obligation_model(tmp_path):
    (tmp_path / "encoders").mkdir()
    (tmp_path / "encoders" / "probe.py").write_text(
        "from verikern.proofs.obligations import ObligationKind\n"
        "from verikern.proofs.deciding.prover import prove_kernel\n")
    assert violations("encoders", tmp_path) == [
        "encoders/probe.py:2: imports verikern.proofs.deciding.prover",
        "encoders/probe.py:2: imports verikern.proofs.deciding.prover.prove_kernel"]


@pytest.mark.parametrize("module", [
    "verikern.mir", "verikern.encoders.c", "verikern.encoders.smt", "verikern.backends.simulator",
    "verikern.backends.launch", "verikern.backends.contracts", "verikern.backends.semantics.ops",
    "verikern.proofs.obligations", "verikern.proofs.deciding.prover",
    "verikern.proofs.pipeline", "verikern.proofs.reporting.render", "verikern.proofs.reporting.junit",
    "verikern.hir", "verikern.frontend", "verikern.app.prove", "verikern.cli"])
def test_each_layer_imports_first_in_a_fresh_interpreter(module):
    """No import cycle: whichever module a program imports first loads."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True, text=True,
                          check=False)
    assert done.returncode == 0, done.stderr[-2000:]
