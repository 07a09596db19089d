"""Replay's launches for values an abstraction leaves free
(`proofs.confirming.counter_wrap`): a narrow atomic counter confirmed on the
smallest launch on which it wraps, float parameters set to a few values.
Each confirmation is a real simulated launch (checked again here, run
directly), and the same counterexample on the fixed kernel is never confirmed."""
from __future__ import annotations

import functools
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))

from prover_helpers import compile_kernel, prove_src  # noqa: E402
from test_replay_more import run_witness  # noqa: E402
from verikern.backends.trace_analysis import find_races  # noqa: E402
from verikern.proofs.confirming.counter_wrap import wrap_sizes  # noqa: E402
from verikern.proofs.confirming.replay import replay_with_witness  # noqa: E402
from verikern.proofs.obligations import ObligationKind, Status  # noqa: E402

SCATTER = """
@vk.kernel
def arrival_order(x: vk.array(dtype=vk.float32), count: vk.array(dtype=vk.{t}),
                  out: vk.array(dtype=vk.float32)):
    vk.requires(count.shape[0] == 1)
    vk.requires(vk.all_in_range(count, 0, 1))
    vk.requires(x.shape[0] == vk.launch_dim())
    vk.requires(out.shape[0] == x.shape[0]){limit}
    i = vk.tid()
    if i < x.shape[0]:
        slot = vk.atomic_add(count, 0, vk.{t}(1))
        out[int(slot)] = x[i]
"""
WRAPS = SCATTER.format(t="uint16", limit="")
NO_WRAP = SCATTER.format(t="uint16", limit="\n    vk.requires(vk.launch_dim() <= 65536)")

RESAMPLE = """
@vk.kernel
def resample(table: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32),
             scale: float, shift: float):
    i = vk.tid()
    if i < out.shape[0]:
        k = int(float(i) * scale - shift)
        if k {low}< table.shape[0]:
            out[i] = table[k]
"""


def _failed(obs, kind):
    return [o for o in obs if o.kind is kind and o.status is Status.FAILED]


@functools.cache
def _wraps_races() -> tuple:
    """The failed race obligations of WRAPS's proof, proved once for the two tests that
    replay them (obligations are frozen)."""
    return tuple(_failed(prove_src(WRAPS), ObligationKind.RACE))


@pytest.mark.parametrize("dtype, sizes", [
    ("int8", [129, 257]), ("uint8", [257]), ("int16", [32769, 65537]), ("uint16", [65537]),
    ("int32", []), ("uint32", []),
])
def test_wrap_sizes_are_where_the_counter_turns_negative_or_repeats(dtype, sizes):
    assert wrap_sizes(compile_kernel(SCATTER.format(t=dtype, limit=""))) == sizes


def test_a_uint16_ticket_race_is_confirmed_on_a_launch_where_the_counter_wraps():
    k = compile_kernel(WRAPS)
    races = _wraps_races()
    assert races, "the prover must find the repeated slot"
    ok, why, witness = replay_with_witness(k, races[0])
    assert ok and "65537 threads" in why, why
    assert witness is not None and witness.dims == (65537,)
    # the witness is what ran: simulated directly, its trace races on out
    races_run = find_races(run_witness(k, witness).document)
    assert any(r.line == r.other_line == races[0].loc.line for r in races_run)


def test_the_counterexample_is_not_confirmed_where_the_launch_cannot_wrap():
    """The same obligation replayed on the kernel that limits the launch to
    65,536 threads (no slot repeats): the wrap launch breaks its requires,
    and nothing else shows a race."""
    races = _wraps_races()
    assert races
    ok, why, _ = replay_with_witness(compile_kernel(NO_WRAP), races[0])
    assert not ok, why
    assert not _failed(prove_src(NO_WRAP), ObligationKind.RACE)


def test_a_negative_index_from_float_parameters_is_confirmed_with_a_fraction():
    src = RESAMPLE.format(low="")
    k = compile_kernel(src)
    bounds = _failed(prove_src(src), ObligationKind.BOUNDS)
    assert bounds
    ok, why, witness = replay_with_witness(k, bounds[0])
    assert ok and "float parameters" in why, why
    assert witness is not None and witness.scalars["scale"] == witness.scalars["shift"] != 0.0
    # an independent reference: numpy's truncation gives a negative index
    i = np.arange(witness.dims[0], dtype=np.float32)
    k_np = (i * np.float32(witness.scalars["scale"]) - np.float32(witness.scalars["shift"]))
    assert (k_np.astype(np.int64) < 0).any()


def test_the_float_counterexample_is_not_confirmed_on_the_guarded_kernel():
    bounds = _failed(prove_src(RESAMPLE.format(low="")), ObligationKind.BOUNDS)
    assert bounds
    guarded = RESAMPLE.format(low=">= 0 and k ")
    ok, why, _ = replay_with_witness(compile_kernel(guarded), bounds[0])
    assert not ok, why
    assert not _failed(prove_src(guarded), ObligationKind.BOUNDS)
