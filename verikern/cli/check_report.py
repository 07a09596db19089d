"""`verikern check-report REPORT.json`: the assessor's re-check.

Re-proves the files a JSON report (`verikern prove --format json`) names,
with the options it records (or those given here), and says whether every
source hash, every verdict, every counterexample, every MIR hash, every
fingerprint, every assumption and every option still matches. Each
difference is one line named by its kind (`source hash`, `verdict`,
`counterexample`, `fingerprint`, `MIR hash`, `assumption FIELD`, `option
FIELD`, a kernel or an obligation gone or new); what is equal is never
listed.

Invariants: nothing recorded is trusted: every verdict is proved again
(no proof cache unless --cache-dir is given); a mismatch of any kind, a
kernel that is gone or new, or a source file that changed or cannot be
read, is reported and makes the exit status 1.

Exit status: 0 everything matches; 1 something differs (each difference
listed); 3 the report cannot be read or is not a verikern JSON report of a
known layout, or the re-run could not start (a bad option, no file).
"""
from __future__ import annotations

import json
import sys
import os

import click

from verikern.cli.common import InputErrorCommand, InputErrorExit, make_cache, parse_dims, run_proofs
from verikern.cli.progress import Progress

EXIT_MATCH, EXIT_MISMATCH = 0, 1
#: What identifies an obligation within its kernel (its place in the kernel).
OBLIGATION_KEY = ("kind", "line", "col", "other_line", "other_col")
#: Per-obligation fields compared, and the kind of difference each one is.
OBLIGATION_FIELDS = (("status", "verdict"), ("confirmed", "verdict"),
                     ("counterexample", "counterexample"), ("fingerprint", "fingerprint"))
#: Scope fields compared as recorded (everything the verdict assumed), and
#: the kind of difference each is; the hashes have kinds of their own.
SCOPE_KINDS = {"source_sha256": "source hash", "mir_sha256": "MIR hash",
               **{key: f"assumption {key}" for key in ("contracts", "launch", "hardware_limits",
                                                     "array_bound", "not_checked", "budget")}}


def load_report(path: str) -> dict:
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except OSError as err:
        raise InputErrorExit(f"{path}: cannot read the report: {err.strerror or err}") from err
    except ValueError as err:
        raise InputErrorExit(f"{path}: not JSON: {err}") from err
    if not isinstance(data, dict) or not isinstance(data.get("kernels"), list) \
            or not isinstance(data.get("options"), dict) or not isinstance(data.get("sources"), list):
        raise InputErrorExit(f"{path}: not a verikern JSON report with options and sources "
                             "(write one with: verikern prove ... --format json -o report.json)")
    if str(data.get("schema_version", "")).split(".")[0] != "1":
        raise InputErrorExit(f"{path}: report layout {data.get('schema_version')!r} is not one this "
                             "verikern reads (1.x)")
    return data


def compare(recorded: dict, fresh: dict, options: dict) -> list[str]:
    """Every difference between the recorded report and the re-run, in words,
    each named by its kind: option, source hash, kernel (gone or new),
    verdict, obligation (gone or new), counterexample, fingerprint, MIR hash,
    assumption. Nothing that is equal on both sides is listed."""
    diffs = []
    for key in ("kernel", "dims", "block_dim", "budget"):
        if recorded["options"].get(key) != options.get(key):
            diffs.append(f"option {key}: the report says {recorded['options'].get(key)!r}, "
                         f"the re-check used {options.get(key)!r}")
    now = {s["path"]: s["sha256"] for s in fresh["sources"]}
    for src in recorded["sources"]:
        if src["path"] not in now:
            diffs.append(f"source {src['path']}: not proved again")
        elif now[src["path"]] is None:
            diffs.append(f"source {src['path']}: cannot be read now")
        elif now[src["path"]] != src["sha256"]:
            diffs.append(f"source {src['path']}: source hash: sha256 {src['sha256']} in the report, "
                         f"{now[src['path']]} now (the file changed)")
    old = {(k["file"], k["kernel"]): k for k in recorded["kernels"]}
    new = {(k["file"], k["kernel"]): k for k in fresh["kernels"]}
    for pair in old.keys() - new.keys():
        diffs.append(f"kernel {pair[1]} ({pair[0]}): in the report, gone now")
    for pair in new.keys() - old.keys():
        diffs.append(f"kernel {pair[1]} ({pair[0]}): not in the report")
    for pair in [k for k in old if k in new]:
        diffs += _kernel_differences(f"kernel {pair[1]} ({pair[0]})", old[pair], new[pair])
    return diffs


def _kernel_differences(where: str, a: dict, b: dict) -> list[str]:
    diffs = []
    if a.get("status") != b.get("status"):
        diffs.append(f"{where}: verdict: {a.get('status')} in the report, {b.get('status')} now")
    before, after = _obligations(a), _obligations(b)
    for key in before.keys() - after.keys():
        diffs.append(f"{where}: obligation {_name(key)}: in the report, gone now")
    for key in after.keys() - before.keys():
        diffs.append(f"{where}: obligation {_name(key)}: not in the report")
    for key in [k for k in before if k in after]:
        x, y = before[key], after[key]
        for field, kind in OBLIGATION_FIELDS:
            if x.get(field) != y.get(field):
                diffs.append(f"{where}: {kind}: {_name(key)}: {field} {_show(x.get(field))} in the "
                             f"report, {_show(y.get(field))} now")
    sa, sb = a.get("scope") or {}, b.get("scope") or {}
    for field, kind in SCOPE_KINDS.items():
        if sa.get(field) != sb.get(field):
            diffs.append(f"{where}: {kind}: {json.dumps(sa.get(field))} in the report, "
                         f"{json.dumps(sb.get(field))} now")
    return diffs


def _obligations(kernel: dict) -> dict[tuple, dict]:
    """{(kind, line, col, other_line, other_col, n): obligation}; n tells apart
    obligations at the same place, in report order."""
    out: dict[tuple, dict] = {}
    for ob in kernel.get("obligations", []):
        place = tuple(ob.get(f) for f in OBLIGATION_KEY)
        n = sum(1 for k in out if k[:-1] == place)
        out[place + (n,)] = ob
    return out


def _name(key: tuple) -> str:
    kind, line, col, other_line, other_col, n = key
    other = f" (with {other_line}:{other_col})" if other_line is not None and \
        (other_line, other_col) != (line, col) else ""
    return f"{kind} at {line}:{col}{other}" + (f" #{n + 1}" if n else "")


def _show(value) -> str:
    return json.dumps(value, sort_keys=True) if isinstance(value, (dict, list)) else str(value)


@click.command(cls=InputErrorCommand, context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("report_file", type=click.Path(dir_okay=False), metavar="REPORT.json")
@click.option("--kernel", "-k", metavar="NAME", help="Re-check with this kernel filter instead of the recorded one.")
@click.option("--dim", "dims", metavar="N[,M..]", callback=parse_dims,
              help="Re-check with these launch dims instead of the recorded ones.")
@click.option("--block-dim", type=click.IntRange(1, 1024), metavar="B",
              help="Re-check with this block size instead of the recorded one.")
@click.option("--budget", type=click.FloatRange(min=0, min_open=True), metavar="N",
              help="Re-check with this solver budget instead of the recorded one.")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=1, show_default=True, metavar="N",
              help="Prove N files in parallel.")
@click.option("--cache-dir", type=click.Path(file_okay=False), metavar="DIR",
              help="Read verdicts from this proof cache (default: none, every proof runs again).")
def command(report_file, kernel, dims, block_dim, budget, jobs, cache_dir):
    """Re-run the proofs recorded in REPORT.json and check that every source
    hash, verdict, counterexample, MIR hash, fingerprint, assumption and
    option still matches; each difference is listed, named by its kind.

    \b
    Exit status:
      0  everything matches
      1  something differs (each difference is listed)
      3  the report cannot be read, or the re-run cannot start

    \b
    Examples:
      verikern prove src/ --format json -o report.json
      verikern check-report report.json
    """
    from verikern.proofs.reporting.render import to_json_data  # lazy: CLI start-up

    recorded = load_report(report_file)
    opts = dict(recorded["options"])
    given = {"kernel": kernel, "dims": list(dims) if dims is not None else None, "block_dim": block_dim,
             "budget": budget}
    for key, value in given.items():
        if value is not None:
            opts[key] = value
    paths = [s["path"] for s in recorded["sources"]]
    if not paths:
        raise InputErrorExit(f"{report_file}: the report names no source file")
    missing = [p for p in paths if not _exists(p)]
    progress = Progress()                    # on stderr: a bar on a terminal, else a line per kernel
    try:
        fresh_reports, context = run_proofs(
            [p for p in paths if p not in missing], kernel=opts.get("kernel"), dims=opts.get("dims"),
            block_dim=opts.get("block_dim"), budget=opts.get("budget"), jobs=jobs, progress=progress,
            max_array_bytes=opts.get("max_array_bytes"), kernel_budget=opts.get("kernel_budget"),
            cache=make_cache(cache_dir, False, default_on=False)) if len(missing) < len(paths) else ([], None)
    finally:
        progress.close()
    fresh = to_json_data(fresh_reports, context)
    diffs = [f"source {p}: missing now" for p in missing] + compare(recorded, fresh, opts)
    n = len(recorded["kernels"])
    if diffs:
        for d in diffs:
            click.echo(f"MISMATCH {d}")
        click.echo(f"{report_file}: {len(diffs)} difference(s) over {n} kernel(s): the report does NOT "
                   "match a re-run")
        sys.exit(EXIT_MISMATCH)
    click.echo(f"{report_file}: every source hash, verdict, assumption and option of {n} kernel(s) "
               f"matches a re-run (verikern {fresh['versions']['verikern']}, z3 {fresh['versions']['z3']})")
    sys.exit(EXIT_MATCH)


def _exists(path: str) -> bool:
    return os.path.exists(path)
