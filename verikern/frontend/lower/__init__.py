"""Stage 4 of the frontend: HIR -> MIR (see ../README.md). Imports only
`builtins` of the earlier stages (the facts of builtin ops)."""
