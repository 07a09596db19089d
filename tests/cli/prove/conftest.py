"""The full mutation set runs only with `-m slow` (see session_results)."""
from __future__ import annotations


def pytest_collection_modifyitems(config, items):
    from session_results import deselect_full_set

    deselect_full_set(config, items)
