"""The pytest plugin (entry point `pytest11`: verikern).

`pytest --verikern-prove [PATH]` adds one test item per kernel of every
kernel file under PATH (default: the current folder), next to the user's
own tests. An item passes when `verikern prove` proves every obligation of
its kernel, and fails with the located findings (`file:line:col: error:
...`, as `verikern prove --format short` prints them) otherwise; an
`unknown` verdict fails too, saying why, unless `--verikern-allow-unknown`.
Files are read, never executed. Without the option the plugin adds nothing.

Invariant: an item never passes for a kernel that did not compile or whose
proof is not complete (`proved`), so a proof gate cannot pass vacuously.
"""
from __future__ import annotations

from pathlib import Path

import pytest

_KERNEL_MARKERS = ("kernel",)


def pytest_addoption(parser):
    group = parser.getgroup("verikern", "verikern proof gate")
    group.addoption("--verikern-prove", action="store", nargs="?", const=".", default=None,
                    metavar="PATH",
                    help="Prove every kernel in the kernel files under PATH (default: .), one "
                         "test item per kernel; a failed or unknown proof fails its item.")
    group.addoption("--verikern-budget", action="store", type=float, default=None, metavar="N",
                    help="Solver work per check for --verikern-prove, in millions of z3 "
                         "resource units (verikern prove's --budget).")
    group.addoption("--verikern-allow-unknown", action="store_true", default=False,
                    help="With --verikern-prove, let kernels whose verdict is 'unknown' pass.")


def pytest_configure(config):
    config.addinivalue_line("markers", "verikern_prove: a proof item added by --verikern-prove")


def _kernel_files(root: Path) -> list[Path]:
    """Python files under `root` that define kernels (a cheap text test; the
    frontend decides). Hidden folders, __pycache__ and virtualenvs are skipped."""
    from verikern.app.prove import collect_files  # lazy: pytest plugin start-up

    out = []
    for f in collect_files([root]):
        if any(part in ("site-packages", "node_modules") for part in f.parts):
            continue
        try:
            text = f.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        if "kernel" in text and ("@vk." in text or "@wp." in text or "@verikern." in text
                                 or "@warp." in text or "@kernel" in text):
            out.append(f)
    return out


class ProofFailure(Exception):
    """A kernel's proof failed or is incomplete: the located findings."""


class KernelFile(pytest.File):
    """One kernel file: one ProofItem per kernel (compiled, never executed)."""

    def collect(self):
        from verikern.frontend import compile_file  # lazy: pytest plugin start-up

        module = compile_file(self.path)
        for err in module.errors:
            line = getattr(getattr(err, "loc", None), "line", 0)
            yield ProofItem.from_parent(self, name="<module>", kernel=None, line=line,
                                        error=err.render() if hasattr(err, "render") else str(err))
        for k in module.kernels:
            yield ProofItem.from_parent(self, name=k.name, kernel=k.name, line=k.loc.line,
                                        error=None)


class ProofItem(pytest.Item):
    """`verikern prove FILE --kernel NAME` as a test."""

    def __init__(self, *, kernel, line, error, **kw):
        super().__init__(**kw)
        self.kernel = kernel
        self.line = line
        self.compile_error = error
        self.add_marker("verikern_prove")

    def runtest(self):
        from verikern.app.prove import prove_file  # lazy: pytest plugin start-up
        from verikern.proofs.obligations import KernelStatus  # lazy: pytest plugin start-up
        from verikern.proofs.reporting.render import render_short  # lazy: pytest plugin start-up

        if self.compile_error is not None:
            raise ProofFailure(self.compile_error)
        budget = self.config.getoption("verikern_budget")
        reports = prove_file(self.path, kernel=self.kernel, budget=budget)
        allow_unknown = self.config.getoption("verikern_allow_unknown")
        ok = {KernelStatus.PROVED} | ({KernelStatus.UNKNOWN} if allow_unknown else set())
        if not reports:
            raise ProofFailure(f"{self.path}:{self.line}: error: kernel {self.kernel} was not proved "
                               "(the prover returned no report)")
        bad = [r for r in reports if r.status not in ok]
        if bad:
            text = render_short(bad).rstrip("\n")
            if not text.strip():
                text = "\n".join(r.error or f"{r.file}:{r.line}: {r.status.value}" for r in bad)
            raise ProofFailure(f"{self.path}:{self.line}: kernel {self.kernel}: "
                               f"{bad[0].status.value}\n{text}")

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, ProofFailure):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style)

    def reportinfo(self):
        return self.path, max(0, self.line - 1), f"prove {self.kernel or '<module>'}"


@pytest.hookimpl(tryfirst=True)   # before -k / -m deselect, so they apply to proof items too
def pytest_collection_modifyitems(session, config, items):
    """Append the proof items (PATH may lie outside the collected test paths)."""
    root = config.getoption("verikern_prove")
    if root is None:
        return
    path = Path(root)
    if not path.exists():
        raise pytest.UsageError(f"--verikern-prove {root}: no such file or folder")
    seen = {str(i.path) for i in items if isinstance(i, ProofItem)}
    for f in _kernel_files(path):
        if str(f) in seen:
            continue
        node = KernelFile.from_parent(session, path=f.resolve())
        items.extend(node.collect())
