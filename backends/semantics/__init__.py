"""MIR's value semantics on the host, shared by every consumer that computes
MIR values in numpy: the simulator (every lane of a launch) and the
device-neutral launch check (verikern.backends.contracts, one thread).

`ops`: the elementwise semantics of MIR's pure ops (the reference semantics
of docs/MIR.md, the op table's facts in numpy); `libm`: the C library's
float64 transcendentals they call. Invariant: nothing here depends on a
device backend (tests/test_layering.py).
"""
