"""No decision of the proof pipeline depends on message text: rewording every
message, reason and replay explanation leaves every verdict, confirmation
and counterexample as it was."""
from __future__ import annotations

import dataclasses

import pytest

from verikern.proofs.pipeline import prove_mir
from verikern.proofs.deciding.prover import prove_kernel
from verikern.proofs.confirming.replay import replay_outcome

from corpus_loader import compiled
from shared_helpers import CORPUS
# failures confirmed directly, through variants, through peeled iterations,
# unconfirmed behind another error, abstracted and downgraded, invariants
CASES = ["bounds_off_by_one_le", "bounds_range_step_counter_wraps", "race_odd_even_sort_all_pairs",
         "bounds_race_reduce_wrong_guard", "invariant_fails_halving_too_strong",
         "divergence_barrier_data_dependent", "ok_grid_stride_loop_bounded"]


def _garble(text: str | None) -> str | None:
    return None if text is None else "~" + text[::-1].upper() + "~"


def _reworded_prover(kernel, **kw):
    return tuple(dataclasses.replace(o, message=_garble(o.message), reason=_garble(o.reason))
                 for o in prove_kernel(kernel, **kw))


def _reworded_replayer(kernel, ob):
    out = replay_outcome(kernel, ob)
    return dataclasses.replace(out, why=_garble(out.why))


def _decisions(report):
    """What the pipeline decided, without the counterexample's values: those
    are read off z3's models, which can differ between two runs in one
    process (docs/PROVER.md, Determinism) whatever the messages say."""
    return [(o.kind, o.loc, o.other_loc, o.status, o.confirmed, o.counterexample is not None,
             o.counterexample is not None and o.counterexample.abstracted)
            for o in report.obligations]


@pytest.mark.parametrize("name", CASES)
def test_rewording_every_message_changes_no_decision(name):
    path = CORPUS / f"{name}.py"
    (kernel,) = [k.mir for k in compiled(path).kernels]
    plain = prove_mir(kernel, file=str(path))
    reworded = prove_mir(kernel, file=str(path), prover=_reworded_prover,
                         replayer=_reworded_replayer)
    assert plain.status == reworded.status
    assert _decisions(plain) == _decisions(reworded)
