"""HIR: typed, structured kernels and funcs (see nodes.py, types.py, printer.py)."""
