"""Turn a corpus case's `# prove-args:` into driver keyword arguments, with
the same parser as the command line (so the header means what the CLI means)."""
from __future__ import annotations


def driver_kwargs(prove_args, budget: float | None = None, *, timeout: float | None = None) -> dict:
    """Driver keywords of `verikern prove <path> *prove_args`; `budget`
    (million z3 resource units per check) applies unless the args set one.
    `timeout` is the old name of `budget` (one unit per former second)."""
    from verikern.cli.prove import command

    budget = budget if budget is not None else timeout
    ctx = command.make_context("prove", ["<path>", *prove_args])
    p = ctx.params
    kwargs = {"kernel": p["kernel"], "dims": p["dims"], "block_dim": p["block_dim"],
              "budget": p["budget"]}
    if budget is not None and "--budget" not in prove_args:
        kwargs["budget"] = budget
    return kwargs
