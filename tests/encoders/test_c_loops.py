"""CBMC's loop abstraction in the C encoding (encoders/c/loops.py), without
CBMC: what is havocked, where the invariant is asserted and assumed, that
the replay build runs the real loop unchanged, that a loop with a barrier
is refused, and that each fact kind means in C what it means in Python.
(tests/proofs/test_cbmc_loops.py has the real CBMC check them.)"""
from __future__ import annotations

import math
import re
import shutil
import subprocess

import pytest

from verikern.encoders.c import HEADER_DIR, encode_c, ops
from verikern.encoders.c.loops import FACTS, LoopAbstraction, LoopFact, loop_values
from verikern.frontend import compile_source
from verikern.encoders.c.prelude import prelude
from verikern.mir.nodes import Const, Value
from verikern.mir.types import I32, U32
from verikern.proofs.deciding.cbmc_invariants import abstractable

from shared_helpers import CORPUS

RANGE = CORPUS / "ok_prefix_offsets_one_thread.py"


def _kernel(path=RANGE):
    return compile_source(path.read_text(), path.name).kernels[0].mir


def _replay_text(text: str) -> str:
    """The file as the replay build sees it: every `#ifndef VERIKERN_REPLAY`
    block dropped (they hold no nested conditionals here)."""
    return re.sub(r"#ifndef VERIKERN_REPLAY\n.*?#endif\n", "", text, flags=re.S)


def test_the_abstraction_havocs_every_value_of_the_loop_on_each_edge_into_it():
    k = _kernel()
    lp = k.loops[0]
    phi = k.block(lp.header).phis[0].result
    text = encode_c(k, abstractions=(LoopAbstraction(lp.header, (LoopFact("ge0", phi),)),)).text
    defined = {v.id for v in loop_values(k, lp)}
    # every phi and result of the loop's blocks, none from outside it
    assert defined == {phi.id for b in lp.body for phi in (p.result for p in k.block(b).phis)} | {
        r.id for b in lp.body for ins in k.block(b).instrs
        if (r := getattr(ins, "result", None)) is not None}
    havocked = [set(map(int, re.findall(r"T->v(\d+) = nondet_", block)))
                for block in re.findall(r"#ifndef VERIKERN_REPLAY\n(.*?)#endif", text, flags=re.S)
                if "loop invariant" in block]
    assert len(havocked) == 2 and all(h == defined for h in havocked)   # entry edge, back edge
    assert text.count("holds on entry") == 1 and text.count("is preserved by an iteration") == 1
    assert text.count("__CPROVER_assume(T->pass0 == 0)") == 1     # the second back edge is cut
    assert text.count("T->it0 = nondet_uint64();") == 2


def test_the_replay_build_runs_the_real_loop():
    """Outside its `#ifndef VERIKERN_REPLAY` blocks the file is the one
    without the abstraction, but for the thread's two ghost fields."""
    k = _kernel()
    lp = k.loops[0]
    plain = encode_c(k).text
    abstracted = encode_c(k, abstractions=(LoopAbstraction(lp.header),)).text
    assert _replay_text(abstracted).replace("    int32_t pass0; uint64_t it0;\n", "") == \
        _replay_text(plain)


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
def test_the_abstracted_file_replays_a_counterexample_as_before(tmp_path):
    """The near miss's counterexample (one offset short) fails the same
    obligation in the replay program built from the abstracted file."""
    path = CORPUS / "bounds_prefix_offsets_one_short.py"
    k = _kernel(path)
    c = tmp_path / "k.c"
    c.write_text(encode_c(k, abstractions=(LoopAbstraction(k.loops[0].header),)).text)
    subprocess.run(["gcc", "-std=c11", "-DVERIKERN_REPLAY", f"-I{HEADER_DIR}", str(c), "-o",
                    str(tmp_path / "k"), "-lm"], check=True, capture_output=True, timeout=120)
    cex = tmp_path / "cex.json"
    cex.write_text('{"dims": [1], "block_dim": 1, "threads": [{"block": 0, "thread": 0}], "scalars": {}, '
                   '"shapes": {"counts": [2], "offsets": [2]}, "arrays": {}}')
    done = subprocess.run([str(tmp_path / "k"), str(cex)], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 1 and "VERIKERN-FAIL bounds@17:13#0" in done.stdout, done.stdout


BARRIER_LOOP = '''
import verikern as vk


@vk.kernel(block_dim=32)
def sync_n(x: vk.array(dtype=vk.float32), n: vk.int32):
    s = vk.shared.array(shape=(32,), dtype=vk.float32)
    t = vk.thread_idx()
    for k in range(n):
        s[t] = 1.0
        vk.sync_threads()
'''


def test_a_loop_with_a_barrier_is_not_abstracted():
    k = compile_source(BARRIER_LOOP, "b.py").kernels[0].mir
    header = k.loops[0].header
    assert abstractable(k, frozenset({header})) == frozenset()
    with pytest.raises(ValueError, match="barrier"):
        encode_c(k, abstractions=(LoopAbstraction(header),))
    assert abstractable(_kernel(), frozenset({_kernel().loops[0].header}))


#: (kind, x, other, entry, step, type) -> what the fact says, in Python
CASES = [
    ("ge0", -1, 0, 0, 0, I32), ("ge0", 0, 0, 0, 0, I32), ("gt0", 0, 0, 0, 0, U32),
    ("gt0", 3, 0, 0, 0, U32), ("gt0", -3, 0, 0, 0, I32), ("pow2", 8, 0, 0, 0, I32),
    ("pow2", 6, 0, 0, 0, I32), ("ge_init", 5, 0, 5, 0, I32), ("ge_init", 4, 0, 5, 0, I32),
    ("le_init", 4, 0, 5, 0, I32), ("cong", 9, 0, 1, 4, I32), ("cong", 10, 0, 1, 4, I32),
    ("cong_sym", 10, 3, 1, 0, I32), ("cong_sym", -2, 3, 1, 0, I32), ("cong_sym", 11, 3, 1, 0, I32),
    ("le", 3, 3, 0, 0, I32), ("lt", 3, 3, 0, 0, I32), ("ge", -1, 0, 0, 0, I32),
    ("lt", 0xFFFFFFFF, 3, 0, 0, U32), ("step_lt", 4, 3, 0, 1, I32), ("step_lt", 5, 3, 0, 1, I32),
    ("step_le", 4, 3, 0, 1, I32), ("step_lt", 0, -9, 0, 1, I32),
    ("step_le", -2147483648, 5, 0, 1, I32),       # x - 1 wraps to INT_MAX: not <= 5
]


def _wrapped(v: int) -> int:
    return (v + 2**31) % 2**32 - 2**31


#: each kind in Python on ints (x already in its type's range)
MEANING = {
    "ge0": lambda x, u, x0, c: x >= 0, "gt0": lambda x, u, x0, c: x > 0,
    "pow2": lambda x, u, x0, c: x & (x - 1) == 0, "ge_init": lambda x, u, x0, c: x >= x0,
    "le_init": lambda x, u, x0, c: x <= x0, "cong": lambda x, u, x0, c: (x - x0) % abs(c) == 0,
    # MIR's `%` takes the dividend's sign (docs/LANGUAGE.md): -2 % 3 is -2
    "cong_sym": lambda x, u, x0, c: math.fmod(x, u) == math.fmod(x0, u), "le": lambda x, u, x0, c: x <= u,
    "lt": lambda x, u, x0, c: x < u, "ge": lambda x, u, x0, c: x >= u,
    "step_lt": lambda x, u, x0, c: x == x0 or _wrapped(x - c) < u,
    "step_le": lambda x, u, x0, c: x == x0 or _wrapped(x - c) <= u,
}


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
def test_each_fact_kind_means_in_c_what_it_says(tmp_path):
    """Every LoopFact kind rendered to C (with the prelude's exact integer
    helpers) and run, against the same statement evaluated in Python."""
    lines = []
    for kind, x, u, x0, step, t in CASES:
        f = LoopFact(kind, Value(1, t), Const(u, t), Const(x0, t), step)
        c = FACTS[kind](f, ops.const(x, t), ops.const(u, t), ops.const(x0, t))
        lines.append(f'    printf("%d\\n", ({c}) ? 1 : 0);')
    src = (prelude(False) + "#include <stdio.h>\nint main(void) {\n" + "\n".join(lines)
           + "\n    return 0;\n}\n")
    (tmp_path / "f.c").write_text(src)
    subprocess.run(["gcc", "-std=c11", "-DVERIKERN_REPLAY", f"-I{HEADER_DIR}",
                    str(tmp_path / "f.c"), "-o", str(tmp_path / "f"), "-lm"], check=True,
                   capture_output=True, timeout=120)
    got = subprocess.run([str(tmp_path / "f")], capture_output=True, text=True, timeout=60,
                         check=True).stdout.split()
    want = []
    for kind, x, u, x0, step, t in CASES:
        want.append("1" if MEANING[kind](_wrapped(x) if t.is_signed else x, u, x0, step) else "0")
    assert got == want, [(c[0], g, w) for c, g, w in zip(CASES, got, want) if g != w]
