"""The array-size bound of the type-oblivious proof (app/type_oblivious.py):
the opaque kernel's bound is --max-array-bytes times the carrier's element
size, so each generic array may hold as many elements as an instantiation of
1-byte elements. When that product is over what the encoder accepts, a capped
bound would let generic arrays hold fewer elements than an instantiation may:
no type-oblivious proof then, never a proof under a smaller bound."""
from __future__ import annotations

from corpus_loader import CORPUS_DIR
from verikern.app.prove import prove_source
from verikern.encoders.smt.launch import MAX_ARRAY_BYTES_LIMIT
from verikern.proofs.obligations import KernelStatus

#: a generic segmented sum proved as a whole (its carrier: a vec3, 12 bytes)
SEGMENTED_SUM = (CORPUS_DIR / "ok_generic_segment_sum_every_instantiation.py").read_text()


def _more(reports):
    (more,) = [r for r in reports if r.kernel.endswith("[...]")]
    return more


def test_a_scaled_bound_over_the_encoders_limit_gives_no_type_oblivious_proof():
    proved = _more(prove_source(SEGMENTED_SUM, "g.py", suggest=False, kernel="segment_sum[...]"))
    assert proved.status is KernelStatus.PROVED
    factor = proved.scope.max_array_bytes // (1 << 40)     # the carrier's element size
    assert factor > 1 and proved.scope.max_array_bytes == factor << 40
    too_big = MAX_ARRAY_BYTES_LIMIT // factor + 1          # times the factor: over the limit
    more = _more(prove_source(SEGMENTED_SUM, "g.py", suggest=False, max_array_bytes=too_big,
                              kernel="segment_sum[...]"))
    assert more.status is KernelStatus.UNKNOWN and not more.obligations
    assert "no type-oblivious proof: --max-array-bytes times the carrier's element size" in more.error
