"""The application layer above the prover: compiling files, proving many
kernels (process pools, dask), the proof cache. The CLI and the pytest plugin
use it; verikern.proofs never imports it (docs/INTERFACES.md)."""
