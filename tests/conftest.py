"""Suite-wide pytest configuration (every test folder sees it)."""
from __future__ import annotations

import os

from hypothesis import settings

# --- hypothesis profiles -----------------------------------------------------
# Hypothesis profiles: `ci` (when $CI is set, as in .ci/run: derandomized, no example database, 100 examples) and `dev` (local default: random, 200 examples); HYPOTHESIS_PROFILE=ci|dev overrides; a test's own max_examples wins.
settings.register_profile("ci", derandomize=True, database=None, max_examples=100, deadline=None,
                          print_blob=True)
settings.register_profile("dev", max_examples=200, deadline=None)


def hypothesis_profile_name(environ=os.environ) -> str:
    """The profile for this environment: $HYPOTHESIS_PROFILE, else `ci` when $CI is set (not "", "0", "false")."""
    if environ.get("HYPOTHESIS_PROFILE"):
        return environ["HYPOTHESIS_PROFILE"]
    return "ci" if environ.get("CI", "").strip().lower() not in ("", "0", "false") else "dev"


settings.load_profile(hypothesis_profile_name())
