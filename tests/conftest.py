"""Suite-wide pytest configuration (every test folder sees it)."""
from __future__ import annotations

import os

import pytest
from hypothesis import settings

from verikern.testing.reproducible import pin_constant_pool
from warp_kernel_cache import use_in_this_run

#: `pytest --cpu-costs DIR` records each test's CPU seconds (tests/cpu_costs.py)
pytest_plugins = ("cpu_costs",)

# --- hypothesis profiles -----------------------------------------------------
# Hypothesis profiles: `ci` (when $CI is set, as in .ci/run: derandomized, no example
# database, 100 examples) and `dev` (local default: random, 200 examples);
# HYPOTHESIS_PROFILE=ci|dev overrides; a test's own max_examples wins.
settings.register_profile("ci", derandomize=True, database=None, max_examples=100, deadline=None,
                          print_blob=True)
# explicit: under CI Hypothesis's own "ci" profile is the default that unnamed settings inherit
settings.register_profile("dev", parent=settings.get_profile("default"), max_examples=200,
                          deadline=None, derandomize=False)


def hypothesis_profile_name(environ=os.environ) -> str:
    """The profile for this environment: $HYPOTHESIS_PROFILE, else `ci` when $CI is set (not "", "0", "false")."""
    if environ.get("HYPOTHESIS_PROFILE"):
        return environ["HYPOTHESIS_PROFILE"]
    return "ci" if environ.get("CI", "").strip().lower() not in ("", "0", "false") else "dev"


settings.load_profile(hypothesis_profile_name())

# Hypothesis mixes into its draws the constants of every *local* module the process has
# imported so far, so under xdist a derandomized test's examples depended on which tests
# had run before it in the same worker (a CI run drew no INT_MIN/INT_MAX scalar in
# test_edge_values_are_drawn). The suite pins that pool empty (verikern.testing.reproducible;
# tests/test_hypothesis_order.py fails without it).
pin_constant_pool()

# --- proof cache ----------------------------------------------------------------
# No test reads or fills the user's proof cache (a stale or monkeypatched verdict
# must never leak between runs); cache tests pass --cache-dir / a ProofCache.
os.environ["VERIKERN_NO_CACHE"] = "1"

# --- Warp's kernel cache ------------------------------------------------------------
# Real Warp compiles each kernel module with clang: every Warp of the run (the tests' and
# their child processes') keeps its modules in this suite's own persistent folder, never
# the user's Warp cache, so a repeat run loads what an earlier one compiled
# (tests/warp_kernel_cache.py; Warp keys each module by its content and version).
use_in_this_run()


@pytest.fixture(autouse=True)
def _verikern_environment_restored():
    """Each test starts with the session's VERIKERN_* variables: an in-process
    CLI run with --cross-check or --dump-smt sets them for its process
    (verikern/cli/common.py), and they must not reach later tests (or the
    subprocesses those start) in the same worker."""
    saved = {k: v for k, v in os.environ.items() if k.startswith("VERIKERN_")}
    yield
    for k in [k for k in os.environ if k.startswith("VERIKERN_") and k not in saved]:
        del os.environ[k]
    os.environ.update(saved)


# --- bytecode --------------------------------------------------------------------
# The CLI and docs tests start the package anew in subprocesses; where
# PYTHONDONTWRITEBYTECODE is set (as on this project's CI image) each of them
# would compile every module again (about a second of CPU each). Let them
# write the bytecode once, as a developer's checkout does.
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)


# --- work shared by the run's processes ------------------------------------------
@pytest.hookimpl(trylast=True)   # after pytest's tmpdir plugin has made its basetemp factory
def pytest_configure(config):
    """Give this process the run's shared folder (tests/run_shared.py)."""
    import run_shared

    run_shared.configure(config)


@pytest.hookimpl(optionalhook=True)   # a pytest-xdist hook: absent with -p no:xdist
def pytest_configure_node(node):
    """Hand the controller's shared folder to the worker `node`."""
    import run_shared

    node.workerinput[run_shared.WORKER_KEY] = str(run_shared.folder())


# --- test tiers ----------------------------------------------------------------
@pytest.hookimpl(tryfirst=True)  # before `-m` selects by marker
def pytest_collection_modifyitems(config, items):
    """Mark the slow tier (tables in tests/tiers.py; `pytest -m "not slow"` is the fast one)
    and, unless `-m` names the slow tier, leave the exhaustive sweeps to their sample and
    the NIGHTLY cases to `-m slow`; then order the modules holding slow tests first."""
    from tiers import heavy_modules_first, mark_slow, nightly_out, runs_every_case, sampled_out

    mark_slow(items)
    if not runs_every_case(config.option.markexpr):
        out = sampled_out(items)
        seen = set(map(id, out))
        out += [it for it in nightly_out(items) if id(it) not in seen]
        if out:
            config.hook.pytest_deselected(items=out)
            dropped = set(map(id, out))
            items[:] = [it for it in items if id(it) not in dropped]
    heavy_modules_first(items)


def pytest_ignore_collect(collection_path, config):
    """With `-m "not slow"`, files whose tests are all slow are not even imported."""
    from tiers import fast_tier_only, ignored_in_fast_tier

    if fast_tier_only(config.option.markexpr) and ignored_in_fast_tier(collection_path):
        return True
    return None


# --- golden files ----------------------------------------------------------------
def pytest_addoption(parser):
    parser.addoption("--update-goldens", action="store_true", default=False,
                     help="rewrite the golden files tests compare against (as "
                          "VERIKERN_UPDATE_GOLDENS=1; see tests/goldens.py)")


@pytest.fixture
def update_goldens(request) -> bool:
    """Whether this run rewrites golden files (tests/goldens.py)."""
    from goldens import update_requested

    return update_requested(request.config)


# --- prover mutation score and differential coverage ------------------------------
# Here, not in tests/cli/prove/: under xdist only the controller sees every
# report, and it loads no conftest below this one (tests/cli/prove/session_results.py).
def pytest_runtest_logreport(report):
    from session_results import record

    record(report)


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session):
    from session_results import judge

    judge(session)


def pytest_terminal_summary(terminalreporter):
    from session_results import summarize

    summarize(terminalreporter)
