"""`verikern.trace`: the public name of the trace analyses (races, bank
conflicts) over the simulator's JSON access trace; they live with the
backends (verikern.backends.trace_analysis) so that replay can use them."""
from verikern.backends.trace_analysis import (  # noqa: F401  (the public API)
    ArrayInfo, BankConflict, Race, Trace, TraceFormatError, bank_conflicts, find_races,
    load_trace, summary_json,
)
from verikern.backends.trace_uninit import UninitRead, find_uninit_reads  # noqa: F401
