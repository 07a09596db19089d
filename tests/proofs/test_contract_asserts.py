"""Asserted length relations as suggested contracts (proofs.deciding.contract_asserts):
which asserted comparisons become atoms, which do not, and that each atom's
requires compiles to the same int32 arithmetic as the assert it states (so the
contract says what the kernel asserts, no more). The end-to-end suggestion,
its re-proof and its near miss are tests/proofs/test_suggest_projects.py's."""
from __future__ import annotations

import pytest

from verikern.frontend import compile_source
from verikern.mir import facts
from verikern.mir.nodes import Assert, Compare
from verikern.proofs.deciding.contract_asserts import asserted_atoms
from verikern.proofs.deciding.contract_atoms import requires_instrs
from verikern.proofs.deciding.contract_templates import walker
from verikern.proofs.obligations import ObligationKind, enumerate_obligations

HEAD = "import warp as wp\nimport verikern as vk\n\n\n"
PARAMS = "a: wp.array(dtype=float), b: wp.array(dtype=float), n: int, m: wp.array2d(dtype=float)"


def _kernel(cond: str):
    src = HEAD + f"@wp.kernel\ndef k({PARAMS}):\n    assert {cond}\n    i = wp.tid()\n"
    (result,) = compile_source(src, "k.py").kernels
    assert result.mir is not None, result.error
    return result.mir


def _atoms(cond: str):
    k = _kernel(cond)
    (spec,) = [s for s in enumerate_obligations(k) if s.kind is ObligationKind.ASSERT]
    return k, asserted_atoms(k, spec, walker(k))


@pytest.mark.parametrize("cond, texts", [
    ("a.shape[0] == b.shape[0] + 1", ["a.shape[0] == b.shape[0] + 1"]),
    ("n <= a.shape[0] - 2", ["n <= a.shape[0] - 2"]),
    ("2 * n < m.shape[1]", ["2 * n < m.shape[1]"]),
    ("a.shape[0] >= 3", ["a.shape[0] >= 3"]),
    ("a.shape[0] == vk.launch_dim()", ["a.shape[0] == vk.launch_dim()"]),
    ("m.shape[0] == n and m.shape[1] != 0", ["m.shape[0] == n", "m.shape[1] != 0"]),
])
def test_an_asserted_comparison_of_nameable_terms_is_the_candidate(cond, texts):
    k, atoms = _atoms(cond)
    assert [a.text(k.launch_ndim) for a in atoms] == texts
    assert all(a.family < 0 for a in atoms)          # tried before every other template


@pytest.mark.parametrize("cond", [
    "a.shape[0] % 2 == 0",              # no term of the contract's form
    "3 - n < a.shape[0]",               # `c - t`
    "n * n <= a.shape[0]",              # a product of two unknowns
    "wp.tid() < a.shape[0]",            # a thread's own value, no launch relation
    "a.shape[0] == b.shape[0] or n > 0",
    "float(n) < 2.5",
])
def test_any_other_condition_gives_no_candidate(cond):
    _, atoms = _atoms(cond)
    assert atoms == []


@pytest.mark.parametrize("cond", ["a.shape[0] == b.shape[0] + 1", "n <= a.shape[0] - 2", "2 * n < m.shape[1]",
                                  "a.shape[0] == vk.launch_dim()"])
def test_the_requires_computes_what_the_assert_computes(cond):
    """The atom's MIR (as the search adds it, and as the pasted text compiles) is the
    asserted comparison's own definition chain, operation for operation: int32
    `add`/`sub`/`mul` of the same operands, then the same comparison."""
    k, (atom,) = _atoms(cond)
    ours = requires_instrs(k, [atom])
    compare = next(ins for ins in ours if isinstance(ins, Compare))
    (asserted,) = [ins for _, ins in k.instructions() if isinstance(ins, Assert)]
    defs = facts.definitions(k)
    made = {result.id: ins for ins in ours if (result := getattr(ins, "result", None)) is not None}

    def chain(op, table):
        ins = table.get(getattr(op, "id", None))
        if ins is None:
            return ("const", op.value) if hasattr(op, "value") else ("param", op.name)
        fields = tuple(getattr(ins, f) for f in ("op", "dim", "kind") if hasattr(ins, f))
        array = getattr(getattr(ins, "array", None), "name", None)
        return (type(ins).__name__, fields, array, tuple(chain(o, table) for o in ins.operands()))

    assert chain(compare.result, made) == chain(asserted.cond, defs)
