"""What each test costs in CPU seconds: a pytest plugin and its summary.

`pytest --cpu-costs DIR ...` (tests/conftest.py loads this plugin; outside
this suite `-p cpu_costs`), or $VERIKERN_CPU_COSTS=DIR for a whole `.ci/run`,
makes every process of the run (the controller and each pytest-xdist
worker) append one line per test to
`DIR/<pid>.tsv`: the node id, the CPU seconds (user + system, of the process
and of the child processes it waited for: a CLI test's subprocess, a
compiler, CBMC) spent in the test's setup, call and teardown, and the wall
seconds. `python tests/cpu_costs.py DIR` sums them by file, by test function
and by test. CPU seconds, unlike `--durations`' wall seconds, hardly change
with the machine's load, so a new test's cost can be judged on a shared
machine (README, "Developer notes"): tests over a few seconds belong in
tests/tiers.py.

Invariant: the plugin only measures; it changes no test's outcome or order.
A module-scoped fixture's cost is counted in the first test that uses it.
A pytest that a test starts (a CLI or collection check) inherits the run's
options (PYTEST_ADDOPTS) but records nothing into the run's folder: its CPU
is its test's, counted there as a child's (`recording`).
"""
from __future__ import annotations

import os
import resource
import sys
import time
from collections import Counter
from pathlib import Path

import pytest


def cpu_seconds() -> float:
    """User + system CPU seconds of this process and its waited-for children."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def pytest_addoption(parser):
    parser.addoption("--cpu-costs", metavar="DIR", default=None,
                     help="append each test's CPU seconds (children included) to DIR/<pid>.tsv "
                          "(summary: python tests/cpu_costs.py DIR)")


class _Recorder:
    """Appends a line per test to `folder`/<pid>.tsv. The folder is made at the first
    line, not before: pytest picks its rootdir (the ini file, so this suite's
    conftest, which defines --cpu-costs) from the arguments that name existing paths,
    so an existing DIR after `--cpu-costs DIR` (with a space) would be taken for a
    test path, the rootdir, and the option be unknown. xdist workers parse the
    controller's command line again once it has configured; the controller of a run
    with workers runs no test, so DIR does not exist yet when they start. A DIR that
    exists before the run still needs `--cpu-costs=DIR` (or $VERIKERN_CPU_COSTS)."""

    def __init__(self, folder: Path):
        self.path = folder / f"{os.getpid()}.tsv"

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item, nextitem):
        cpu, wall = cpu_seconds(), time.monotonic()
        yield
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("a", encoding="utf-8") as fh:
            fh.write(f"{item.nodeid}\t{cpu_seconds() - cpu:.3f}\t{time.monotonic() - wall:.3f}\n")


#: the folder a recording process records into, for the processes it starts
RUN_FOLDER_ENV = "VERIKERN_CPU_COSTS_RUN"
#: the workerinput key by which a recording controller tells its xdist workers to record
WORKER_KEY = "verikern_cpu_costs"


def recording(folder: Path, workerinput: dict | None, environ=os.environ) -> bool:
    """Whether this process records into `folder`: a controller unless a recording
    process of the run started it (a pytest a test starts inherits the run's options,
    but its CPU is its test's, counted there as a child's); a worker when its
    controller records."""
    if workerinput is not None:
        return bool(workerinput.get(WORKER_KEY))
    return environ.get(RUN_FOLDER_ENV) != str(folder)


#: the folder as an environment variable, for a run whose command line is not at hand
#: (`VERIKERN_CPU_COSTS=DIR .ci/run`): xdist workers parse PYTEST_ADDOPTS before this
#: suite's conftest defines --cpu-costs, so the option cannot travel that way
FOLDER_ENV = "VERIKERN_CPU_COSTS"


def pytest_configure(config):
    folder = config.getoption("--cpu-costs", None) or os.environ.get(FOLDER_ENV)
    if not folder:
        return
    folder = Path(folder).resolve()
    if recording(folder, getattr(config, "workerinput", None)):
        os.environ[RUN_FOLDER_ENV] = str(folder)
        config.pluginmanager.register(_Recorder(folder), "cpu-costs-recorder")


@pytest.hookimpl(optionalhook=True)   # a pytest-xdist hook: absent with -p no:xdist
def pytest_configure_node(node):
    """Tell the worker `node` whether this controller records."""
    node.workerinput[WORKER_KEY] = node.config.pluginmanager.has_plugin("cpu-costs-recorder")


def read_costs(folder: Path) -> dict[str, float]:
    """node id -> CPU seconds, over every process's file in `folder`."""
    out: Counter = Counter()
    for tsv in sorted(Path(folder).glob("*.tsv")):
        for line in tsv.read_text(encoding="utf-8").splitlines():
            node, cpu, _wall = line.rsplit("\t", 2)
            out[node] += float(cpu)
    return dict(out)


def summary(costs: dict[str, float], top: int = 25) -> str:
    """The costliest files, test functions and tests, CPU seconds first."""
    by_file: Counter = Counter()
    by_function: Counter = Counter()
    for node, cpu in costs.items():
        by_file[node.split("::", 1)[0]] += cpu
        by_function[node.split("[", 1)[0]] += cpu
    lines = [f"{sum(costs.values()):.1f} CPU s in {len(costs)} tests"]
    for title, table in (("files", by_file), ("test functions", by_function), ("tests", Counter(costs))):
        lines.append(f"-- {title}")
        lines += [f"{cpu:8.1f}  {name}" for name, cpu in table.most_common(top)]
    return "\n".join(lines)


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3):
        sys.exit("usage: python tests/cpu_costs.py DIR [TOP]")
    print(summary(read_costs(Path(sys.argv[1])), int(sys.argv[2]) if len(sys.argv) == 3 else 25))
