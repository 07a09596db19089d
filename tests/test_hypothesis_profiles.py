"""The hypothesis profile of tests/conftest.py: CI runs are derandomized."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from hypothesis import settings

from shared_helpers import ROOT


def test_loaded_profile_matches_the_environment():
    ci = os.environ.get("CI", "").strip().lower() not in ("", "0", "false")
    expected = os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if ci else "dev")
    assert settings.get_profile(expected) == settings.default
    if expected == "ci":
        assert settings.default.derandomize and settings.default.database is None


def test_ci_profile_is_deterministic_and_dev_draws_more():
    ci, dev = settings.get_profile("ci"), settings.get_profile("dev")
    assert ci.derandomize is True and ci.database is None and ci.deadline is None
    assert dev.derandomize is False and dev.max_examples > ci.max_examples


def _run_profile_check(env_updates: dict) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "HYPOTHESIS_PROFILE")}
    env.update(env_updates)
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "0",
         f"{Path(__file__).resolve()}::test_loaded_profile_matches_the_environment"],
        capture_output=True, text=True, env=env, cwd=ROOT, timeout=120)


def test_ci_environment_selects_the_ci_profile_and_local_runs_the_dev_one():
    """Fresh pytest runs: with CI=true (as .ci/run sets it) and without CI."""
    for env in ({"CI": "true"}, {}):
        proc = _run_profile_check(env)
        assert proc.returncode == 0 and "1 passed" in proc.stdout, (env, proc.stdout + proc.stderr)
