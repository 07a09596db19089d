"""The device-neutral launch check (verikern.backends.contracts) against the
simulator: for every launch below, the check raises exactly the error
(type and message) the simulator raises when its run meets the same
contract or trap, and passes exactly when the run meets none. Hand-computed
expectations pin which launches fail."""
from __future__ import annotations

import dataclasses
import textwrap

import numpy as np
import pytest

from verikern.backends.contracts import EVALUATORS, check_contracts, contract_region
from verikern.backends.launch import launch_config, prepare_mir_launch, written_globals
from verikern.backends.simulator import simulate
from verikern.errors import (
    ContractError, DivisionByZeroError, KernelAssertionError, KernelRuntimeError, LaunchError,
)
from verikern.frontend import compile_source
from verikern.mir import facts
from verikern.mir.nodes import BOOL, INSTRUCTION_CLASSES, Assert, Const

SRC = textwrap.dedent('''
import verikern as vk

@vk.kernel
def floaty(x: vk.array(dtype=vk.float32), f: vk.float32, n: vk.int32):
    vk.requires(f > 0.5 and f * f < 2.25)
    vk.requires(float(n) * f < 100.0)
    vk.requires(vk.launch_dim() <= x.shape[0])
    i = vk.tid()
    x[i] = f

@vk.kernel
def ratio(x: vk.array(dtype=vk.int32), n: vk.int32, d: vk.int32):
    vk.requires(n // d > 2)
    i = vk.tid()
    if i < x.shape[0]:
        x[i] = n

@vk.kernel
def table(idx: vk.array(dtype=vk.int32), keys: vk.array(dtype=vk.int64), out: vk.array(dtype=vk.float32)):
    vk.requires(vk.all_in_range(idx, 0, out.shape[0]))
    vk.requires(vk.all_distinct(idx))
    vk.requires(vk.all_sorted(keys))
    i = vk.tid()
    if i < idx.shape[0]:
        out[idx[i]] = 1.0
''')

KERNELS = {k.name: k.mir for k in compile_source(SRC, "contracts_probe.py").kernels}


def _asserting(k):
    """`ratio` with a false assert first in its entry block (MIR allows an
    assert in the contract region; the frontend puts requires first)."""
    entry = k.entry
    check = Assert(Const(False, BOOL), "never", entry.instrs[0].loc)
    return dataclasses.replace(k, blocks=(dataclasses.replace(entry, instrs=(check,) + entry.instrs),)
                               + k.blocks[1:])


KERNELS["asserting"] = _asserting(KERNELS["ratio"])
f32, i32, i64 = np.float32, np.int32, np.int64

# (kernel, dims, arrays, scalars, the error the launch must raise or None)
LAUNCHES = [
    ("floaty", 8, {"x": np.zeros(8, f32)}, {"f": 0.75, "n": 3}, None),
    ("floaty", 8, {"x": np.zeros(8, f32)}, {"f": 0.5, "n": 3}, ContractError),     # f > 0.5
    ("floaty", 8, {"x": np.zeros(8, f32)}, {"f": 1.6, "n": 3}, ContractError),     # 1.6 * 1.6 >= 2.25
    ("floaty", 8, {"x": np.zeros(8, f32)}, {"f": 0.75, "n": 200}, ContractError),  # 150 >= 100
    ("floaty", 8, {"x": np.zeros(4, f32)}, {"f": 0.75, "n": 3}, ContractError),    # 8 > 4
    ("asserting", 4, {"x": np.zeros(4, i32)}, {"n": 9, "d": 3}, KernelAssertionError),
    ("ratio", 4, {"x": np.zeros(4, i32)}, {"n": 9, "d": 3}, None),
    ("ratio", 4, {"x": np.zeros(4, i32)}, {"n": 9, "d": 4}, ContractError),        # 9 // 4 = 2
    ("ratio", 4, {"x": np.zeros(4, i32)}, {"n": 9, "d": 0}, DivisionByZeroError),
    ("ratio", 4, {"x": np.zeros(4, i32)}, {"n": -9, "d": -3}, None),               # 3 > 2
    ("table", 4, {"idx": np.array([3, 1, 0, 2], i32), "keys": np.array([1, 1, 5], i64),
                  "out": np.zeros(4, f32)}, {}, None),
    ("table", 4, {"idx": np.array([3, 1, 4, 2], i32), "keys": np.array([1, 1, 5], i64),
                  "out": np.zeros(4, f32)}, {}, ContractError),                    # 4 not in [0, 4)
    ("table", 4, {"idx": np.array([3, 1, 3, 2], i32), "keys": np.array([1, 1, 5], i64),
                  "out": np.zeros(4, f32)}, {}, ContractError),                    # 3 twice
    ("table", 4, {"idx": np.array([3, 1, 0, 2], i32), "keys": np.array([2, 1, 5], i64),
                  "out": np.zeros(4, f32)}, {}, ContractError),                    # 2 > 1
    ("table", 4, {"idx": np.zeros(0, i32), "keys": np.zeros(0, i64), "out": np.zeros(4, f32)}, {},
     None),                                                                         # empty: vacuous
]


def _outcome(run):
    try:
        run()
    except (ContractError, KernelRuntimeError) as err:
        return type(err), str(err)
    return None


@pytest.mark.parametrize("case", range(len(LAUNCHES)))
def test_the_launch_check_raises_what_the_simulators_run_raises(case):
    name, dims, arrays, scalars, expected = LAUNCHES[case]
    k = KERNELS[name]
    launch = launch_config(k, dims, 4)
    ours = _outcome(lambda: check_contracts(k, launch, {n: a.copy() for n, a in arrays.items()}, scalars))
    sim = _outcome(lambda: simulate(k, launch, {n: a.copy() for n, a in arrays.items()}, scalars))
    assert (ours[0] if ours else None) is expected, ours
    if expected is None:
        assert sim is None or not issubclass(sim[0], (ContractError, DivisionByZeroError)), sim
    else:
        assert ours == sim


def test_a_broken_precondition_names_the_kernel_the_source_and_the_launch():
    k = KERNELS["floaty"]
    with pytest.raises(ContractError) as e:
        check_contracts(k, launch_config(k, 8, 4), {"x": np.zeros(4, f32)}, {"f": 0.75, "n": 3})
    text = str(e.value)
    assert "kernel floaty: this launch breaks the precondition at contracts_probe.py:8:" in text
    assert "(dims [8], block_dim 4)" in text


def test_the_region_holds_only_what_the_evaluators_cover():
    """Every opcode a contract region of these kernels holds has an
    evaluator, and the evaluators cover only instructions that neither
    access memory nor synchronise (what MIR's placement rule allows)."""
    for k in KERNELS.values():
        region = contract_region(k)
        assert region and all(ins.OPCODE in EVALUATORS for ins in region)
    by_opcode = {cls.OPCODE: cls for cls in INSTRUCTION_CLASSES}
    for opcode in EVALUATORS:
        facts_of = facts.INSTRUCTION_FACTS[opcode]
        assert not (facts_of.reads_memory or facts_of.writes_memory or facts_of.barrier), opcode
        assert opcode in by_opcode


WRITES = textwrap.dedent('''
import verikern as vk

@vk.kernel(block_dim=4)
def writes(a: vk.array(dtype=vk.float32), b: vk.array(dtype=vk.int32),
           c: vk.array(dtype=vk.int32), d: vk.array(dtype=vk.float32)):
    s = vk.shared.array(shape=(4,), dtype=vk.float32)
    i = vk.tid()
    s[i % 4] = a[i]
    vk.atomic_add(b, 0, c[i])
    d[i] = s[i % 4]
''')


def test_the_arrays_a_launch_must_find_writeable_are_the_global_ones_written():
    """Stores and atomics of global arrays count, shared arrays and reads do
    not; the set is found once per kernel object."""
    k = compile_source(WRITES, "writes_probe.py").kernel("writes").mir
    assert written_globals(k) == frozenset({"b", "d"})
    assert written_globals(k) is written_globals(k)
    c = np.zeros(8, np.int32)
    c.flags.writeable = False                          # only read: fine
    prepare_mir_launch(k, 8, [np.zeros(8, np.float32), np.zeros(1, np.int32), c,
                              np.zeros(8, np.float32)], 4)
    d = np.zeros(8, np.float32)
    d.flags.writeable = False
    with pytest.raises(LaunchError, match="argument d is a read-only array, but the kernel "
                                          "writes it"):
        prepare_mir_launch(k, 8, [np.zeros(8, np.float32), np.zeros(1, np.int32),
                                  np.zeros(8, np.int32), d], 4)
