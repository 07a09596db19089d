"""The struct typing search's uniform typings (check/generic_struct_search.py) without
real Warp: one is kept only when it type-checks all through -- a uniform typing that
ends at another error (a constant component past a vec2, where the vec3 one builds)
adds no error instance -- and they are counted apart from the search's 240 checks.
Warp's own results for the found typings: tests/warp_compat/test_warp_struct_uniform.py."""
from __future__ import annotations

from pathlib import Path

from verikern.frontend import compile_source
from verikern.frontend.check import generic_struct_search

SOURCE = (Path(__file__).resolve().parents[1] / "warp_compat" / "kernels_struct_uniform.py").read_text()
CLOUD3 = "dot_flux[Cloud3, vec3, vec3, vec3, vec3, vec3]"


def _kernels(text: str) -> dict:
    return {k.name: k for k in compile_source(text, "t.py").kernels}


def test_a_uniform_typing_ending_at_another_error_is_no_instance():
    text = SOURCE.replace("    out[i] = acc\n", "    acc[0] = acc[2]\n    out[i] = acc\n")
    assert text != SOURCE
    kernels = _kernels(text)
    assert list(kernels) == [CLOUD3, "dot_flux[...]"], list(kernels)
    assert kernels[CLOUD3].mir is not None and kernels[CLOUD3].error is None


def test_the_uniform_checks_leave_the_searches_parts_alone(monkeypatch):
    spent: list[int] = []
    real = generic_struct_search.search_typing

    def counting(pools, attempt, max_checks, **kw):
        spent.append(max_checks)
        return real(pools, attempt, max_checks, **kw)
    monkeypatch.setattr(generic_struct_search, "search_typing", counting)
    assert CLOUD3 in _kernels(SOURCE)
    # two struct typings: the first search gets half of 240, the second what the first left
    assert spent[0] == generic_struct_search.MAX_SEARCH_CHECKS // 2, spent
    first = list(spent)
    spent.clear()
    monkeypatch.setattr(generic_struct_search, "MAX_UNIFORM_CHECKS", 0)
    _kernels(SOURCE)
    assert spent == first, (spent, first)
