"""A kernel file's text is parsed once for all its instances' report parts
(proofs/reporting/parsed.py): the scope's contracts and the import line of a pasted
suggestion read the same as from a fresh parse, and a changed text is parsed again."""
from __future__ import annotations

import ast
import textwrap

from verikern.frontend import compile_source
from verikern.proofs.reporting import paste, scope
from verikern.proofs.reporting.parsed import parsed_source

GENERIC = textwrap.dedent('''
    import warp as wp
    import verikern as vk
    from typing import Any


    @wp.kernel
    def scale(x: wp.array(dtype=Any), y: wp.array(dtype=Any), n: int):
        vk.requires(x.shape[0] == y.shape[0])
        i = wp.tid()
        if i < n and i < x.shape[0]:
            y[i] = x[i] + x[i]


    wp.overload(scale, {"x": wp.array(dtype=wp.float32), "y": wp.array(dtype=wp.float32)})
    wp.overload(scale, {"x": wp.array(dtype=wp.float64), "y": wp.array(dtype=wp.float64)})
    wp.overload(scale, {"x": wp.array(dtype=wp.int32), "y": wp.array(dtype=wp.int32)})
''')


def _contracts(source: str) -> list[tuple]:
    module = compile_source(source, "scale.py")
    kernels = [k for k in module.kernels if k.mir is not None]
    assert len(kernels) >= 3, [e.render() for e in module.all_errors]
    return [scope.contracts_of(k.mir, source) for k in kernels]


def test_the_instances_contracts_read_as_from_a_fresh_parse(monkeypatch):
    parsed_source.cache_clear()
    shared = _contracts(GENERIC)
    assert parsed_source.cache_info().misses == 1 and parsed_source.cache_info().hits >= 2
    with monkeypatch.context() as m:
        m.setattr(scope, "parsed_source", ast.parse)
        fresh = _contracts(GENERIC)
    assert shared == fresh
    assert [[c.text for c in cs] for cs in shared] == [["x.shape[0] == y.shape[0]"]] * len(shared)


def test_a_changed_text_is_parsed_again():
    changed = GENERIC.replace("x.shape[0] == y.shape[0]", "x.shape[0] == n")
    changed += "#" * (len(GENERIC) - len(changed))     # the same length: only the text tells them apart
    assert len(changed) == len(GENERIC)
    before, after = _contracts(GENERIC), _contracts(changed)
    assert {c.text for cs in before for c in cs} == {"x.shape[0] == y.shape[0]"}
    assert {c.text for cs in after for c in cs} == {"x.shape[0] == n"}


def test_the_import_line_follows_the_text_and_a_bad_text_raises_each_time():
    plain = "import warp as wp\n\n\ndef f():\n    pass\n"
    with_vk = "import warp as wp\nimport verikern as vk\n\n\ndef f():\n    pass\n"
    assert paste.vk_import_line_in(plain, 4) == 2
    assert paste.vk_import_line_in(with_vk, 5) is None
    assert paste.vk_import_line_in(plain, 4) == 2
    for _ in range(2):
        assert paste.vk_import_line_in("def (:\n", 1) is None
