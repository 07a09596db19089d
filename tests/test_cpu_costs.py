"""tests/cpu_costs.py measures what each test costs in CPU seconds, the
child processes it waits for included, and sums them by file and function."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from cpu_costs import read_costs, summary

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
