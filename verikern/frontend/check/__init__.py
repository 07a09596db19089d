"""Stage 3 of the frontend: type checking of kernel and func bodies into HIR
(see ../README.md). Imports only `scan` and `builtins`."""
