"""The MIR passes' use-count worklists (DCE, constant folding, trivial phis)
give what sweeping the whole kernel until nothing changes gives.

The old passes swept the kernel once per removed link of a chain (quadratic
on warpsphcore's inlined kernels); these tests pin the cases where a sweep
needed several rounds, against hand-written expectations and against a
sweeping reference written here (its own substitution, the op table's
per-instruction facts and folding rules, which these passes do not change).
"""
from __future__ import annotations

import dataclasses
import random

from verikern.mir import nodes as M
from verikern.mir.builder import MirBuilder
from verikern.mir.facts import removable_if_unused
from verikern.mir.parser import parse_kernel
from verikern.mir.passes import ConstantFolding, DeadCodeElimination, TrivialPhiRemoval
from verikern.mir.passes.const_fold import fold
from verikern.mir.printer import format_kernel
from verikern.mir.types import BOOL, I32
from verikern.mir.verifier import verify

L = M.SourceLoc("t.py", 1, 1)
DCE, FOLD, TRIVIAL = DeadCodeElimination(), ConstantFolding(), TrivialPhiRemoval()


def _names(kernel) -> list[str]:
    """Every defined value's printed name, in block order (phis first)."""
    return [str(i.result) for b in kernel.blocks for i in (*b.phis, *b.instrs)
            if getattr(i, "result", None) is not None]


# ------------------------------------------------------------ hand-written
DEAD_CHAIN = "\n".join(
    ["kernel chain(a: array<int32, 1>, %n.0: int32) [launch_ndim=1] {  ; c.py:1:1",
     "entry0:",
     "  %1: int32 = add %n.0, 1:int32  ; 2:5"]
    + [f"  %{i}: int32 = mul %{i - 1}, 3:int32  ; 2:5" for i in range(2, 41)]
    + ["  store a[0:int32], %n.0  ; 3:5", "  ret  ; 1:1", "}", ""])


def test_a_dead_chain_goes_in_one_run():
    # each sweep of the old pass removed only the chain's last link: 40 sweeps
    k = parse_kernel(DEAD_CHAIN)
    out = DCE.run(k)
    verify(out)
    assert _names(out) == []
    assert [type(i).__name__ for _, i in out.instructions()] == ["Store"]
    assert DCE.run(out) is out                    # nothing left to remove: the same kernel


DEAD_CYCLE = """\
kernel cycle(a: array<int32, 1>, %n.0: int32, %d.1: int32) [launch_ndim=1] {  ; c.py:1:1
entry0:
  %2: int32 = add %n.0, 5:int32  ; 2:5
  %3: int32 = mul %2, 2:int32  ; 2:5
  %4: int32 = add %d.1, 1:int32  ; 3:5
  %5: int32 = div %n.0, %4  ; 3:5
  %6: int32 = add %n.0, 7:int32  ; 4:5
  %7: int32 = div %6, 2:int32  ; 4:5
  jmp head1  ; 5:5
head1:
  %s.8: int32 = phi [entry0: %3], [body2: %s.10]  ; 5:5
  %9: bool = cmp.lt %s.8, %n.0  ; 5:5
  br %9, body2, exit3  ; 5:5
body2:
  %s.10: int32 = add %s.8, 1:int32  ; 6:9
  %11: int32 = mul %s.10, 3:int32  ; 7:9
  %12: int32 = sub %11, 1:int32  ; 7:9
  jmp head1  ; 5:5
exit3:
  store a[0:int32], %n.0  ; 8:5
  ret  ; 1:1
}
"""


def test_dead_cycle_dead_chain_and_unused_division():
    k = parse_kernel(DEAD_CYCLE)
    out = DCE.run(k)
    verify(out)
    # kept: the loop-carried %s (it reads itself around the cycle, so no sweep
    # ever finds it unused), the chain only the cycle reads (%2, %3), the test
    # %9 (the branch reads it), and the division by %4, which may be zero: an
    # obligation stays though nothing reads its quotient (and %4 with it).
    # Gone: %12 then %11 (a chain hanging off the cycle) and the division by
    # the constant 2 with its dividend %6.
    assert _names(out) == ["%2", "%3", "%4", "%5", "%s.8", "%9", "%s.10"]
    assert _names(out) == _names(_sweep_dce(k))


FOLD_CHAIN = """\
kernel fold(a: array<int32, 1>, %n.0: int32) [launch_ndim=1] {  ; f.py:1:1
entry0:
  %1: int32 = add 1:int32, 2:int32  ; 2:5
  %2: int32 = mul %1, 3:int32  ; 3:5
  %3: bool = cmp.gt %2, 5:int32  ; 4:5
  %4: int32 = select %3, %2, %n.0  ; 5:5
  %5: int32 = sub %4, 9:int32  ; 6:5
  %6: int32 = div 7:int32, %5  ; 7:5
  %7: int32 = add %4, %n.0  ; 8:5
  store a[0:int32], %6  ; 9:5
  store a[1:int32], %7  ; 10:5
  jmp next1  ; 10:5
next1:
  %x.8: int32 = phi [entry0: %4]  ; 11:5
  store a[2:int32], %x.8  ; 11:5
  ret  ; 1:1
}
"""


def test_a_folding_chain_folds_in_one_run():
    k = parse_kernel(FOLD_CHAIN)
    out = FOLD.run(k)
    verify(out)
    # 1 + 2 = 3, 3 * 3 = 9, 9 > 5, so the select is 9, 9 - 9 = 0; the division
    # 7 / 0 is never folded (it stays, with its obligation, on a constant 0);
    # %7 reads the folded select as the constant 9; the phi reads 9 too
    assert format_kernel(out).splitlines()[2:8] == [
        "  %6: int32 = div 7:int32, 0:int32  ; 7:5",
        "  %7: int32 = add 9:int32, %n.0  ; 8:5",
        "  store a[0:int32], %6  ; 9:5",
        "  store a[1:int32], %7  ; 10:5",
        "  jmp next1  ; 10:5",
        "next1:",
    ]
    assert "phi [entry0: 9:int32]" in format_kernel(out)
    assert format_kernel(out) == format_kernel(_sweep_fold(k))
    assert FOLD.run(out) is out


SELECT_FIRST = """\
kernel pick(a: array<int32, 1>, %n.0: int32) [launch_ndim=1] {  ; f.py:1:1
entry0:
  %5: int32 = add 4:int32, 5:int32  ; 2:5
  %1: int32 = add %5, 0:int32  ; 2:5
  %2: int32 = select true, %1, %n.0  ; 3:5
  %3: int32 = sub %2, 9:int32  ; 4:5
  %4: int32 = mul %3, %n.0  ; 5:5
  store a[0:int32], %4  ; 6:5
  ret  ; 1:1
}
"""


def test_a_select_folded_to_a_value_that_folds_later():
    # the select folds first, to %1, which folds a round later (after %5):
    # whatever read the select reads %1's constant 9 then, and folds in its turn
    out = FOLD.run(parse_kernel(SELECT_FIRST))
    verify(out)
    assert format_kernel(out).splitlines()[2:4] == [
        "  %4: int32 = mul 0:int32, %n.0  ; 5:5", "  store a[0:int32], %4  ; 6:5"]


TRIVIAL_CHAIN = """\
kernel phis(a: array<int32, 1>, %n.0: int32) [launch_ndim=1] {  ; p.py:1:1
entry0:
  %1: bool = cmp.gt %n.0, 0:int32  ; 2:5
  br %1, l1, r2  ; 2:5
l1:
  jmp j3  ; 2:5
r2:
  jmp j3  ; 2:5
j3:
  %x.4: int32 = phi [l1: %n.0], [r2: %n.0]  ; 3:5
  br %1, l5, r6  ; 3:5
l5:
  jmp j7  ; 3:5
r6:
  jmp j7  ; 3:5
j7:
  %y.8: int32 = phi [l5: %x.4], [r6: %n.0]  ; 4:5
  store a[0:int32], %y.8  ; 5:5
  ret  ; 1:1
}
"""


def test_a_phi_made_trivial_by_another_goes_in_one_run():
    # %y is trivial only once %x is replaced by %n: two sweeps of the old pass
    k = parse_kernel(TRIVIAL_CHAIN)
    out = TRIVIAL.run(k)
    verify(out)
    assert _names(out) == ["%1"]
    assert "store a[0:int32], %n.0" in format_kernel(out)


# ------------------------------------------------- the sweeping references
def _map(x, f):
    if isinstance(x, M.Value):
        return f(x)
    if isinstance(x, tuple):
        return tuple(_map(e, f) for e in x)
    return x


_OPERAND_FIELDS = ("lhs", "rhs", "operand", "cond", "if_true", "if_false", "indices",
                   "value", "compare", "lo", "hi", "incoming")


def _subst(kernel, mapping):
    def f(v):
        while isinstance(v, M.Value) and v.id in mapping:
            v = mapping[v.id]
        return v

    def one(ins):
        return dataclasses.replace(ins, **{n: _map(getattr(ins, n), f) for n in _OPERAND_FIELDS
                                           if hasattr(ins, n)})
    blocks = [M.Block(b.label, tuple(one(p) for p in b.phis), tuple(one(i) for i in b.instrs),
                      one(b.terminator)) for b in kernel.blocks]
    return dataclasses.replace(kernel, blocks=tuple(blocks))


def _sweep_dce(kernel):
    while True:
        used = {o.id for b in kernel.blocks for i in (*b.phis, *b.instrs, b.terminator)
                for o in i.operands() if isinstance(o, M.Value)}
        used |= {o.id for lp in kernel.loops if lp.range is not None
                 for o in (lp.range.counter, lp.range.start, lp.range.stop, lp.range.step)
                 if isinstance(o, M.Value)}
        blocks = [M.Block(b.label, tuple(p for p in b.phis if p.result.id in used),
                          tuple(i for i in b.instrs if not (removable_if_unused(i) and getattr(
                              i, "result", None) is not None and i.result.id not in used)),
                          b.terminator) for b in kernel.blocks]
        new = dataclasses.replace(kernel, blocks=tuple(blocks))
        if new == kernel:
            return kernel
        kernel = new


def _sweep_fold(kernel):
    while True:
        mapping = {i.result.id: r for _, i in kernel.instructions()
                   if (r := fold(i)) is not None}
        if not mapping:
            return kernel
        kernel = _subst(kernel, mapping)
        kernel = dataclasses.replace(kernel, blocks=tuple(
            M.Block(b.label, b.phis, tuple(i for i in b.instrs if getattr(i, "result", None) is None
                                           or i.result.id not in mapping), b.terminator)
            for b in kernel.blocks))


def _random_kernel(rng: random.Random):
    """Straight-line int32 code (many constants, so folds chain), then a
    diamond whose join has phis, then stores of a few values."""
    b = MirBuilder("rand", L)
    arr = b.array_param(M.ArrayRef("a", I32, 1))
    pool: list = [b.scalar_param("n", I32), b.scalar_param("m", I32)]
    b.set_block(b.new_block("entry"))

    def operand():
        return M.Const(rng.randint(-3, 3), I32) if rng.random() < 0.4 else rng.choice(pool)

    for _ in range(rng.randint(5, 30)):
        kind = rng.random()
        v = b.new_value(I32)
        if kind < 0.6:
            b.emit(M.BinOp(v, rng.choice(["add", "sub", "mul", "div", "mod", "xor"]),
                           operand(), operand(), L))
        elif kind < 0.8:
            c = b.new_value(BOOL)
            b.emit(M.Compare(c, rng.choice(["lt", "eq"]), operand(), operand(), L))
            b.emit(M.Select(v, c, operand(), operand(), L))
        else:
            b.emit(M.Load(v, arr, (operand(),), L))
        pool.append(v)
    cond = b.new_value(BOOL)
    b.emit(M.Compare(cond, "lt", operand(), operand(), L))
    left, right, join = b.new_block("l"), b.new_block("r"), b.new_block("j")
    b.terminate(M.Branch(cond, left, right, L))
    for side in (left, right):
        b.set_block(side)
        b.terminate(M.Jump(join, L))
    b.set_block(join)
    before_join = list(pool)            # a phi reads only values of the blocks before

    def operand():
        return M.Const(rng.randint(-3, 3), I32) if rng.random() < 0.4 else rng.choice(before_join)

    for _ in range(rng.randint(0, 4)):
        x = operand()
        phi = M.Phi(b.new_value(I32), ((left, x), (right, x if rng.random() < 0.5 else operand())), L)
        b.add_phi(join, phi)
        pool.append(phi.result)
    for v in rng.sample(pool, min(len(pool), rng.randint(0, 3))):
        b.emit(M.Store(arr, (M.Const(0, I32),), v, L))
    b.terminate(M.Return(L))
    k = b.finish()
    verify(k)
    return k


def test_worklists_equal_sweeping_on_random_kernels():
    rng = random.Random(2026_12_06)
    for _ in range(150):
        k = _random_kernel(rng)
        folded = FOLD.run(k)
        verify(folded)
        assert format_kernel(folded) == format_kernel(_sweep_fold(k))
        cleaned = DCE.run(folded)
        verify(cleaned)
        assert format_kernel(cleaned) == format_kernel(_sweep_dce(folded))
