"""A module-level name is a constant only when nothing in the file can rebind
it (docs/LANGUAGE.md section 1): every way a module can rebind its own names makes
a kernel that reads the name a located `closure` error naming the rebinding;
Python itself (and real Warp on the CPU) show that the name really changes."""
from __future__ import annotations

import importlib.util
import sys

import pytest

from frontend.fe_util import compile_ok, compile_text, first_error, marker_loc

HEAD = "import sys\nimport importlib\nimport warp as wp\n\nN = 4\n"
KERNEL = ("\n\n@wp.kernel\ndef k(out: wp.array[int]):\n"
          "    i = wp.tid()\n    if i < N:\n        out[i] = N\n")

# (the rebinding, what the error names, the line of the rebinding in HEAD + it)
REBINDINGS = [
    ("def setup():\n    global N\n    N = 100\n\n\nsetup()", "`global N` in the function 'setup'", 7),
    ("def outer():\n    def inner():\n        global N\n        N += 96\n    inner()\n\n\nouter()",
     "`global N` in the function 'inner'", 8),
    ("class Config:\n    global N\n    N = 100", "`global N` in the class 'Config'", 7),
    ("from math import e as N", "an import that binds 'N' again", 6),
    ("import os as N", "an import that binds 'N' again", 6),
    ('globals()["N"] = 100', "an assignment to globals()[...]", 6),
    ('globals().update({"N": 100})', "globals().update(...)", 6),
    ('vars()["N"] = 100', "an assignment to globals()[...]", 6),
    ("N = 100", "a second assignment to 'N'", 6),
    ("N += 96", "the augmented assignment to 'N'", 6),
    ('setattr(sys.modules[__name__], "N", 100)', "setattr(...) on the module", 6),
    ("sys.modules[__name__].N = 100", "an assignment to the module attribute 'N'", 6),
    ("me = sys.modules[__name__]\nme.N = 100", "an assignment to the module attribute 'N'", 7),
    ('exec("N = 100")', "exec(...)", 6),
    ('eval("globals().update(N=100)")', "eval(...)", 6),
    ('sys.modules[__name__].__dict__["N"] = 100', "an assignment to globals()[...]", 6),
    ('vars(sys.modules[__name__])["N"] = 100', "an assignment to globals()[...]", 6),
    ("print(N := 100)", "the assignment expression `N := ...`", 6),
]


@pytest.mark.parametrize("rebind, how, line", REBINDINGS, ids=[r[1] for r in REBINDINGS])
def test_a_rebindable_name_is_a_located_error(rebind, how, line):
    src = HEAD + rebind + KERNEL
    e = first_error(src)
    assert e.rule == "closure"
    assert (e.loc.line, e.loc.col) == marker_loc(src, "N:\n")    # the kernel's first read
    assert f"{how} at t.py:{line}:" in e.message and "not a constant" in e.message
    assert "pass the value as a kernel parameter" in e.hint
    # Python agrees that the file rebinds N (the test runs what verikern never runs)
    probe = type(sys)("rebinding_probe")
    sys.modules[probe.__name__] = probe    # what sys.modules[__name__] finds
    try:
        exec(compile(HEAD.replace("import warp as wp\n", "") + rebind, "t.py", "exec"),
             probe.__dict__)
        assert probe.__dict__["N"] != 4
    finally:
        del sys.modules[probe.__name__]


def test_constants_computed_from_a_rebindable_name_are_not_constants():
    src = HEAD + "M = N * 2\n\n\ndef setup():\n    global N\n    N = 100\n" + KERNEL.replace(
        "out[i] = N", "out[i] = M")
    e = first_error(src)
    assert e.rule == "closure" and "`global N`" in e.message
    r = compile_text(src.replace("if i < N:", "if i < 4:"))
    assert r.kernels[0].error is not None and r.kernels[0].error.rule == "closure" \
        and "'M'" in r.kernels[0].error.message


@pytest.mark.parametrize("harmless", [
    "def show():\n    print(N)",                          # reads N, never rebinds it
    "def local():\n    N = 5\n    return N",              # a local N, not the module's
    "def other():\n    global M\n    M = 1",              # rebinds another name
    'globals()["M"] = 3',                                 # idem
    "cfg = object()\nsetattr(cfg, 'N', 3)",               # another object's attribute
])
def test_names_the_file_does_not_rebind_stay_constants(harmless):
    k = compile_ok(HEAD + harmless + KERNEL)
    assert k is not None


def test_warp_reads_the_rebound_value(tmp_path):
    """Real Warp builds the kernel with the value the function stored, not the literal."""
    wp = pytest.importorskip("warp", reason="warp-lang is not installed")
    path = tmp_path / "rebound_probe.py"
    path.write_text(HEAD + REBINDINGS[0][0] + KERNEL.replace("if i < N:", "if i < 8:"))
    spec = importlib.util.spec_from_file_location("rebound_probe", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    wp.config.quiet = True
    wp.init()
    out = wp.zeros(8, dtype=int, device="cpu")
    wp.launch(module.k, dim=8, inputs=[out], device="cpu")
    assert out.numpy().tolist() == [100] * 8


@pytest.mark.parametrize("rebind, keeps", [
    ("    N = int(input())", True), ("    N = 8", True), ("    N += 1", True),
    ("    for N in range(3):\n        pass", True),
    ("    N = sys.argv[1]", True),      # a type not read: taken to be the literal's (Warp's
    ("    N = 3 * N // 2", True),       # own examples rebind their settings so)
    ("    N = 2.5", False), ("    N = float(sys.argv[1])", False), ("    N = N / 2", False),
    ("    N += 0.5", False), ("    for N in [0.5]:\n        pass", False),
    ("    import os as N", False), ("    def N():\n        pass", False),
    ("    with open('f') as (M, N):\n        pass", False),
])
def test_a_conditional_rebinding_keeps_the_literal_type_or_is_an_error(rebind, keeps):
    """Under an if (a loop, a with, a try) a name the file rebinds is an unknown value
    of its literal's type (a hidden parameter `@N`) only when the new value evidently
    has that type; otherwise a kernel reading it is an error, never a guessed type."""
    src = HEAD + "if __name__ == '__main__':\n" + rebind + KERNEL
    r = compile_text(src)
    (k,) = r.kernels
    if keeps:
        assert k.error is None and [p.name for p in k.mir.params] == ["out", "@N"]
    else:
        assert k.error is not None and k.error.rule == "closure"
        assert "under an if, loop, with or try" in k.error.message
