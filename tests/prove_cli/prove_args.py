"""Turn a corpus case's `# prove-args:` into driver keyword arguments, with
the same parser as the command line (so the header means what the CLI means)."""
from __future__ import annotations


def driver_kwargs(prove_args, timeout: float | None = None) -> dict:
    from verikern.cli.prove import command

    ctx = command.make_context("prove", ["<path>", *prove_args])
    p = ctx.params
    kwargs = {"kernel": p["kernel"], "dims": p["dims"], "block_dim": p["block_dim"],
              "timeout": p["timeout"]}
    if timeout is not None and "--timeout" not in prove_args:
        kwargs["timeout"] = timeout
    return kwargs
