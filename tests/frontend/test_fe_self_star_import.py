"""A module that star-imports itself (warpsphcore's math/wp_sqrt.py has `from
.wp_sqrt import *`): Python binds its own names to themselves, so its funcs stay
importable by the rest of the project (scan/project.py), and a kernel calling one
through the package compiles and is proved; before, the self-import read as a
star import of a module being read, which made every name of it unknown."""
from __future__ import annotations

from verikern.app.prove import prove_file
from verikern.frontend import compile_file
from verikern.proofs.obligations import KernelStatus
from shared_helpers import write_package


def test_a_module_star_importing_itself_keeps_its_funcs(tmp_path):
    pkg = write_package(tmp_path, "pkg", {
        "wp_sqrt": '''
            import warp as wp
            from .wp_sqrt import *


            @wp.func
            def safe_sqrt(x: float):
                return wp.sqrt(wp.max(x, 0.0))
            ''',
        "k": '''
            import warp as wp
            from .wp_sqrt import safe_sqrt


            @wp.kernel
            def roots(x: wp.array(dtype=float)):
                i = wp.tid()
                if i < x.shape[0]:
                    x[i] = safe_sqrt(x[i])
            ''',
    })
    module = compile_file(pkg / "k.py")
    assert module.kernel("roots").ok, module.kernel("roots").error
    assert [r.status for r in prove_file(pkg / "k.py")] == [KernelStatus.PROVED]
