"""One test per language rule: the error's rule id, line and column."""
from __future__ import annotations

import pytest

from frontend.fe_util import first_error, marker_loc

K = "import verikern as vk\n\n"
A = "a: vk.array(dtype=vk.float32)"
IB = "b: vk.array(dtype=vk.int32)"

# (rule, source, needle at the error location, occurrence)
CASES = [
    ("type-change", K + f"@vk.kernel\ndef k({A}):\n    x = 1\n    x = 2.0\n", "x = 2.0", 0),
    ("type-change", K + f"@vk.kernel\ndef k({A}):\n    x = 1.0\n    x = vk.tid()\n", "x = vk.tid", 0),
    ("varargs", K + "@vk.kernel\ndef k(*args):\n    pass\n", "args", 0),
    ("varargs", K + "@vk.kernel\ndef k(**kw):\n    pass\n", "kw", 0),
    ("closure", K + f"import numpy as np\nscale = np.float32(2)\n@vk.kernel\ndef k({A}):\n"
                    "    a[0] = scale\n", "scale\n", 0),
    ("import-in-kernel", K + f"@vk.kernel\ndef k({A}):\n    import math\n", "import math", 0),
    ("no-lists", K + f"@vk.kernel\ndef k({A}):\n    x = [1, 2]\n", "[1, 2]", 0),
    ("no-dicts", K + f"@vk.kernel\ndef k({A}):\n    x = {{1: 2}}\n", "{1: 2}", 0),
    ("no-sets", K + f"@vk.kernel\ndef k({A}):\n    x = {{1, 2}}\n", "{1, 2}", 0),
    ("no-strings", K + f"@vk.kernel\ndef k({A}):\n    x = 'hi'\n", "'hi'", 0),
    ("no-try", K + f"@vk.kernel\ndef k({A}):\n    try:\n        pass\n    except Exception:\n"
                   "        pass\n", "try", 0),
    ("no-with", K + f"@vk.kernel\ndef k({A}):\n    with x:\n        pass\n", "with", 0),
    ("no-lambda", K + f"@vk.kernel\ndef k({A}):\n    f = lambda: 1\n", "lambda", 0),
    ("no-generators", K + f"@vk.kernel\ndef k({A}):\n    x = (i for i in range(3))\n",
     "(i for", 0),
    ("no-comprehensions", K + f"@vk.kernel\ndef k({A}):\n    x = [i for i in range(3)]\n",
     "[i for", 0),
    ("recursion", K + "@vk.func\ndef f(x: int) -> int:\n    return f(x - 1)\n"
                      f"@vk.kernel\ndef k({IB}):\n    b[0] = f(1)\n", "f(x - 1)", 0),
    ("recursion", K + "@vk.func\ndef f(x: int) -> int:\n    return g(x)\n"
                      "@vk.func\ndef g(x: int) -> int:\n    return f(x)\n"
                      f"@vk.kernel\ndef k({IB}):\n    b[0] = f(1)\n", "f(x)", 0),
    ("call-not-allowed", K + f"import math\n@vk.kernel\ndef k({A}):\n    a[0] = math.sqrt(2.0)\n",
     "math.sqrt", 0),
    ("call-not-allowed", K + f"def helper(x):\n    return x\n@vk.kernel\ndef k({A}):\n"
                             "    a[0] = helper(1.0)\n", "helper(1.0)", 0),
    ("implicit-conversion", K + f"@vk.kernel\ndef k({A}):\n    i = vk.tid()\n    a[0] = a[1] * i\n",
     "a[1] * i", 0),
    ("implicit-conversion", K + f"@vk.kernel\ndef k({IB}):\n    b[0] = 1.5\n", "1.5", 0),
    ("vector-scalar-mix", K + f"@vk.kernel\ndef k({A}):\n    v = vk.vec2(1.0, 2.0)\n"
                              "    w = v + a[0]\n", "v + a[0]", 0),
    ("unknown-name", K + f"@vk.kernel\ndef k({A}):\n    a[0] = undefined_thing\n",
     "undefined_thing", 0),
    ("arity", K + f"@vk.kernel\ndef k({A}):\n    a[0] = vk.sqrt(1.0, 2.0)\n", "vk.sqrt(", 0),
    ("arity", K + "@vk.func\ndef f(x: float) -> float:\n    return x\n"
                  f"@vk.kernel\ndef k({A}):\n    a[0] = f(1.0, 2.0)\n", "f(1.0, 2.0)", 0),
    ("requires-position", K + f"@vk.kernel\ndef k({A}, n: int):\n    i = vk.tid()\n"
                              "    vk.requires(n > 0)\n", "vk.requires", 0),
    ("invariant-position", K + f"@vk.kernel\ndef k({A}, n: int):\n    for i in range(n):\n"
                               "        a[0] = 1.0\n        vk.invariant(i >= 0)\n",
     "vk.invariant", 0),
    ("shared-shape", K + f"@vk.kernel\ndef k({A}, n: int):\n"
                         "    s = vk.shared.array(shape=(n,), dtype=vk.float32)\n", "(n,)", 0),
    ("range-zero-step", K + f"@vk.kernel\ndef k({A}):\n    for i in range(0, 10, 0):\n"
                            "        pass\n", "0)", 0),
    ("kernel-return-value", K + f"@vk.kernel\ndef k({A}):\n    return 1\n", "1\n", 0),
    ("array-return", K + f"@vk.func\ndef f({A}) -> vk.array(dtype=vk.float32):\n    return a\n"
                         f"@vk.kernel\ndef k({A}):\n    pass\n", "vk.array(dtype=vk.float32):", 0),
    ("array-return", K + f"@vk.func\ndef f({A}):\n    return a\n"
                         f"@vk.kernel\ndef k({A}):\n    f(a)\n", "a\n@", 0),
    ("assign-to-array", K + f"@vk.kernel\ndef k({A}):\n    a = 1.0\n", "a = 1.0", 0),
    ("assign-to-array", K + f"@vk.kernel\ndef k({A}):\n"
                            "    s = vk.shared.array(shape=4, dtype=vk.float32)\n"
                            "    s = 1.0\n", "s = 1.0", 0),
    ("condition-not-bool", K + f"@vk.kernel\ndef k({A}):\n    x = a[0]\n    if x:\n"
                               "        a[0] = 1.0\n", "x:", 0),
    ("literal-range", K + "@vk.kernel\ndef k(b: vk.array(dtype=vk.uint8)):\n    b[0] = 300\n",
     "300", 0),
    ("index-count", K + "@vk.kernel\ndef k(b: vk.array(dtype=vk.float32, ndim=2)):\n"
                        "    b[0] = 1.0\n", "b[0]", 0),
    ("tid-arity", K + f"@vk.kernel\ndef k({A}):\n    i, j = vk.tid()\n    m = vk.tid()\n",
     "vk.tid()", 1),
    ("for-not-range", K + f"@vk.kernel\ndef k({A}):\n    for x in a:\n        pass\n", "a:\n", 0),
    ("loop-else", K + f"@vk.kernel\ndef k({A}):\n    while False:\n        pass\n    else:\n"
                      "        a[0] = 1.0\n", "a[0] = 1.0", 0),
    ("undefined-variable", K + f"@vk.kernel\ndef k({A}):\n    i = vk.tid()\n    if i > 0:\n"
                               "        x = 1.0\n    else:\n        a[0] = x\n", "x\n", 0),
    ("undefined-variable", K + f"@vk.kernel\ndef k({A}):\n    i = vk.tid()\n    a[0] = x\n"
                               "    if i > 0:\n        x = 1.0\n", "x\n", 0),
    ("undefined-variable", K + f"@vk.kernel\ndef k({A}, n: int):\n    for j in range(n):\n"
                               "        pass\n    a[j] = 1.0\n", "j] = 1.0", 0),
    ("missing-return", K + "@vk.func\ndef f(x: float) -> float:\n    if x > 0.0:\n"
                           f"        return x\n@vk.kernel\ndef k({A}):\n    a[0] = f(1.0)\n",
     "if x > 0.0", 0),
    ("requires-uniform", K + f"@vk.kernel\ndef k({A}):\n    vk.requires(a[0] > 0.0)\n",
     "a[0] > 0.0", 0),
    ("requires-uniform", K + f"@vk.kernel\ndef k({A}):\n    vk.requires(vk.tid() > 0)\n",
     "vk.tid() > 0", 0),
    ("annotation", K + "@vk.kernel\ndef k(x):\n    pass\n", "x)", 0),
    ("annotation", K + "@vk.kernel\ndef k(x: str):\n    pass\n", "str", 0),
    ("no-tuples", K + f"@vk.kernel\ndef k({A}):\n    x, y = 1, 2, 3\n", "x, y", 0),
    ("component-not-constant", K + f"@vk.kernel\ndef k({A}):\n    i = vk.tid()\n"
                                   "    a[0] = float(a.shape[i])\n", "i]", 0),
    ("statement-only", K + f"@vk.kernel\ndef k({A}):\n    x = vk.sync_threads()\n",
     "vk.sync_threads()", 0),
    ("contract-position", K + f"@vk.kernel\ndef k({IB}):\n    x = vk.all_distinct(b)\n",
     "vk.all_distinct", 0),
    ("float-bitwise", K + f"@vk.kernel\ndef k({A}):\n    a[0] = a[1] & a[2]\n", "a[1] &", 0),
    ("int-pow", K + f"@vk.kernel\ndef k({IB}):\n    b[0] = b[1] ** 2\n", "b[1] **", 0),
    ("multi-assign", K + f"@vk.kernel\ndef k({A}):\n    x = y = 1\n", "x = y", 0),
    ("loop-var-assign", K + f"@vk.kernel\ndef k({A}):\n    for i in range(3):\n        i = 5\n",
     "i = 5", 0),
    ("loop-var-assign", K + f"@vk.kernel\ndef k({A}):\n    for i in range(3):\n"
                            "        for i in range(2):\n            pass\n", "i in range(2)", 0),
    ("param-default", K + "@vk.kernel\ndef k(n: int = 3):\n    pass\n", "3)", 0),
    ("no-raise", K + f"@vk.kernel\ndef k({A}):\n    raise ValueError()\n", "raise", 0),
    ("nested-def", K + f"@vk.kernel\ndef k({A}):\n    def g():\n        pass\n", "def g", 0),
    ("array-alias", K + f"@vk.kernel\ndef k({A}):\n    c = a\n", "a\n", 0),
    ("break-outside-loop", K + f"@vk.kernel\ndef k({A}):\n    break\n", "break", 0),
    ("type-mismatch", K + f"@vk.kernel\ndef k({IB}, u: vk.uint32):\n    b[0] = b[1] + u\n",
     "b[1] + u", 0),
    ("bool-arith", K + f"@vk.kernel\ndef k({IB}):\n    c = b[0] > 0\n    d = c + c\n", "c + c", 0),
    ("block-dim", K + f"@vk.kernel(block_dim=2048)\ndef k({A}):\n    pass\n", "2048", 0),
    ("no-walrus", K + f"@vk.kernel\ndef k({A}):\n    if (x := 1) > 0:\n        pass\n", "x := 1", 0),
    ("atomic-type", K + f"@vk.kernel\ndef k({A}):\n    a[0] &= 1.0\n", "1.0", 0),
    ("contract-array", K + f"@vk.kernel\ndef k({A}):\n    vk.requires(vk.all_distinct(a))\n",
     "a))", 0),
    ("shared-decl", K + "@vk.func\ndef f(x: int) -> int:\n"
                        "    s = vk.shared.array(shape=4, dtype=vk.int32)\n    return x\n"
                        f"@vk.kernel\ndef k({IB}):\n    b[0] = f(1)\n", "vk.shared.array", 0),
    ("return-type", K + "@vk.func\ndef f(x: float) -> float:\n    return x > 1.0\n"
                        f"@vk.kernel\ndef k({A}):\n    a[0] = f(1.0)\n", "x > 1.0", 0),
    ("keyword-args", K + "@vk.func\ndef f(x: float) -> float:\n    return x\n"
                         f"@vk.kernel\ndef k({A}):\n    a[0] = f(y=1.0)\n", "1.0)", 0),
    ("launch-dim-range", K + f"@vk.kernel\ndef k({A}):\n    i = vk.tid()\n"
                             "    n = vk.launch_dim(1)\n", "@vk.kernel", 0),
    ("component-range", K + f"@vk.kernel\ndef k({A}):\n    v = vk.vec3()\n    a[0] = v[3]\n",
     "3]", 0),
    ("syntax", K + "@vk.kernel\ndef k(:\n    pass\n", "k(:", 0),
    ("syntax", K + "@vk.kernel\ndef k(n: int, n: int):\n    pass\n", "n: int):", 0),
]


@pytest.mark.parametrize("rule,src,needle,nth", CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_rule_reports_rule_line_and_column(rule, src, needle, nth):
    err = first_error(src)
    line, col = marker_loc(src, needle, nth)
    assert err.rule == rule, err.render()
    if rule == "syntax":  # Python's own parser picks the column
        assert err.loc.line == line
    elif rule == "launch-dim-range":
        assert err.loc.line == line + 1  # the kernel's def line
    else:
        assert (err.loc.line, err.loc.col) == (line, col), err.render()
    text = err.render()
    assert text.startswith(f"t.py:{err.loc.line}:{err.loc.col}: error: ")
    assert "^" in text  # the source line with a caret


def test_every_rule_has_a_hint_or_clear_message():
    for rule, src, _needle, _nth in CASES:
        err = first_error(src)
        assert len(err.message) > 10, (rule, err.message)


def test_one_bad_kernel_does_not_stop_the_others():
    from frontend.fe_util import compile_text
    src = K + (f"@vk.kernel\ndef bad({A}):\n    x = 1\n    x = 2.5\n\n"
               f"@vk.kernel\ndef good({A}):\n    i = vk.tid()\n    a[i] = 1.0\n")
    r = compile_text(src)
    assert [k.name for k in r.kernels] == ["bad", "good"]
    assert r.kernel("bad").error.rule == "type-change" and r.kernel("bad").mir is None
    assert r.kernel("good").error is None and r.kernel("good").mir is not None


def test_syntax_error_is_a_module_error_with_location():
    from frontend.fe_util import compile_text
    r = compile_text("import verikern as vk\n\ndef k(:\n")
    assert r.kernels == [] and len(r.errors) == 1
    e = r.errors[0]
    assert e.rule == "syntax" and e.loc.line == 3 and e.loc.file == "t.py"
    assert e.render().startswith("t.py:3:")


def test_bad_func_error_reported_in_module_when_unused():
    from frontend.fe_util import compile_text
    r = compile_text(K + "@vk.func\ndef f(x: float) -> float:\n    return x + vk.tid()\n")
    assert [e.rule for e in r.errors] == ["implicit-conversion"]


def test_hostile_inputs_give_located_errors_not_tracebacks():
    from frontend.fe_util import compile_text
    from verikern.frontend import compile_source
    deep = "a" + " + a" * 4000
    r = compile_source(K + f"@vk.kernel\ndef k(o: vk.array(dtype=vk.int32), a: int):\n"
                           f"    o[0] = {deep}\n", "deep.py")
    errs = r.all_errors
    assert all(e.loc.file == "deep.py" for e in errs)
    long_sum = "a" + " + a" * 700
    r = compile_source(K + f"@vk.kernel\ndef k(o: vk.array(dtype=vk.int32), a: int):\n"
                           f"    o[0] = {long_sum}\n", "long.py")
    assert r.kernels[0].error is None
    r = compile_source("\x00", "nul.py")
    assert r.errors[0].rule == "syntax" and r.errors[0].loc.file == "nul.py"
    r = compile_text(K + "@vk.kernel\nasync def k():\n    pass\n")
    assert r.errors[0].rule == "async" and r.errors[0].loc.line == 4
