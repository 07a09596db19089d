"""tests/cpu_costs.py measures what each test costs in CPU seconds, the
child processes it waits for included, and sums them by file and function."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from cpu_costs import FOLDER_ENV, RUN_FOLDER_ENV, WORKER_KEY, read_costs, recording, summary

TESTS = Path(__file__).resolve().parent

SAMPLE = '''
import subprocess, sys

BURN = "import time\\nt = time.process_time()\\nwhile time.process_time() - t < 0.4: pass"


def test_burns_in_a_child():
    subprocess.run([sys.executable, "-c", BURN], check=True)


def test_does_nothing():
    """The near-zero cost beside the burner: no work, no child."""
'''


def test_a_childs_cpu_is_counted_in_its_test_and_summed(tmp_path):
    (tmp_path / "test_sample.py").write_text(SAMPLE)
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    costs_dir = tmp_path / "costs"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:xdist", "-p", "no:cacheprovider",
                           "-p", "cpu_costs", "--cpu-costs", str(costs_dir), "test_sample.py"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    costs = read_costs(costs_dir)
    assert set(costs) == {"test_sample.py::test_burns_in_a_child", "test_sample.py::test_does_nothing"}
    assert costs["test_sample.py::test_burns_in_a_child"] >= 0.4
    assert costs["test_sample.py::test_does_nothing"] < 0.2
    text = summary(costs)
    assert text.splitlines()[0].startswith(f"{sum(costs.values()):.1f} CPU s in 2 tests")
    assert "test_sample.py::test_burns_in_a_child" in text.split("-- tests")[1].splitlines()[1]


NESTED = '''
import subprocess, sys


def test_runs_a_pytest_of_its_own():
    subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "0",
                    "inner_check.py"], check=True)
'''
INNER = '''
def test_inner():
    """A test of the pytest the outer test starts."""
'''


def test_a_worker_records_and_a_pytest_started_by_a_test_does_not(tmp_path):
    """The run's folder reaches a pytest its test starts ($VERIKERN_CPU_COSTS, or
    --cpu-costs in PYTEST_ADDOPTS): that pytest's CPU is counted in the outer test, as
    a child's, and it writes no line of its own; the xdist worker that ran the outer
    test wrote its line."""
    (tmp_path / "test_outer.py").write_text(NESTED)
    (tmp_path / "inner_check.py").write_text(INNER)
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    costs_dir = tmp_path / "costs"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")]),
           "PYTEST_ADDOPTS": "-p cpu_costs", FOLDER_ENV: str(costs_dir)}   # as a whole .ci/run
    env.pop(RUN_FOLDER_ENV, None)      # this suite's own run may be recording
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "1",
                           "test_outer.py"], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert set(read_costs(costs_dir)) == {"test_outer.py::test_runs_a_pytest_of_its_own"}
    assert len(list(costs_dir.glob("*.tsv"))) == 1         # the worker's; the controller ran no test


def test_workers_start_with_a_new_folder_given_after_a_space(tmp_path):
    """`pytest -n 2 --cpu-costs DIR` (a space, no test path, DIR not made yet), as this
    suite loads the plugin (its conftest's pytest_plugins), DIR outside the project: the
    workers parse the command line after the controller has configured, and DIR must
    not exist yet then (else it is their rootdir, without the project's ini file)."""
    project, costs_dir = tmp_path / "project", tmp_path / "elsewhere" / "costs"
    project.mkdir()
    (project / "conftest.py").write_text('pytest_plugins = ("cpu_costs",)\n')
    # the nodeids are what this checks, not the cost: the child runs but burns nothing
    (project / "test_sample.py").write_text(SAMPLE.replace("< 0.4", "< 0"))
    (project / "pytest.ini").write_text("[pytest]\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")])}
    env.pop(FOLDER_ENV, None)
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "2",
                           "--cpu-costs", str(costs_dir)], cwd=project, env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert set(read_costs(costs_dir)) == {"test_sample.py::test_burns_in_a_child",
                                          "test_sample.py::test_does_nothing"}


def test_which_processes_record():
    folder = Path("/run/costs")
    started_by_a_test = {RUN_FOLDER_ENV: str(folder)}
    assert recording(folder, None, {})                       # the run's controller
    assert not recording(folder, None, started_by_a_test)    # a pytest a test of the run starts
    assert recording(Path("/elsewhere"), None, started_by_a_test)   # its own folder: its own run
    assert recording(folder, {WORKER_KEY: True}, started_by_a_test)
    assert not recording(folder, {WORKER_KEY: False}, {})    # a worker of a controller that does not
    assert not recording(folder, {}, {})
