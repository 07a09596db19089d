"""Helpers shared by the frontend tests (compile snippets, locate markers)."""
from __future__ import annotations

import textwrap

from verikern.frontend import compile_source
from verikern.mir.verifier import verify

HEADER = "import verikern as vk\n\n"


def compile_text(src: str, filename: str = "t.py"):
    return compile_source(textwrap.dedent(src), filename)


def compile_ok(src: str, name: str | None = None):
    """The MIR of the (only / named) kernel, asserting it compiled and verifies."""
    r = compile_text(src)
    assert not r.errors, [e.render() for e in r.errors]
    for k in r.kernels:
        assert k.error is None, k.error.render()
        verify(k.mir)
    return (r.kernel(name) if name else r.kernels[0]).mir


def marker_loc(src: str, needle: str, nth: int = 0) -> tuple[int, int]:
    """1-based (line, col) of the nth occurrence of `needle` in dedented `src`."""
    text = textwrap.dedent(src)
    pos = -1
    for _ in range(nth + 1):
        pos = text.index(needle, pos + 1)
    line = text.count("\n", 0, pos) + 1
    col = pos - (text.rfind("\n", 0, pos) + 1) + 1
    return line, col


def first_error(src: str):
    r = compile_text(src)
    errs = list(r.errors) + [k.error for k in r.kernels if k.error is not None]
    assert errs, "expected a compile error"
    return errs[0]
