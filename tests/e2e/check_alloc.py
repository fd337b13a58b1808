#!/usr/bin/env python3
"""Checks an hpcprof-lite JSON report against what a program of issue 21 measured itself.

The programs (tests/programs/allocators.cpp, named_pool.c, mappings.c, stack_locals.c) time each
phase that reads one of their variables and write one line per phase (workload.h, write_timing) to PREFIX.<pid>:
the truth that time-weighted samples must match, whatever allocator, pool or mapping holds the
data.

  check_alloc.py REPORT [--timing PREFIX | --weights W...] --var LABEL ALLOCATOR NAME [--var ...]
                 [--light LABEL] [--max-untracked F] [--max-stack-unplaced F] [--max-sum S]
                 [--min-known F]

Each --var is a timed phase (LABEL, its timing line) and the variables that hold its data: those
whose allocator is ALLOCATOR (`*`: any; `stack`: a stack variable) and whose name starts with
NAME, summed (a hash map is
its bucket array and its nodes). Checks:
  - every --var matches at least one variable;
  - each one's share of the samples on all the --var variables is the phase's share of the
    timed time (or with --weights, one weight per --var, its share of the weights) within the
    tolerance of the sample count (tolerance.py: 4 standard deviations, binomial and those of the
    estimates of variables tracked one in k, plus the stated systematic allowance); a tolerance
    too wide to catch a variable losing half of its share fails as too few samples, but for a
    --light LABEL (a variable so light that the run cannot judge it so; said in the output);
  - the --var variables hold at least F (--min-known, default 0.80) of all data samples, so the
    shares compared are the report's own and not a remainder, leaving out what malloc's own code
    read; a shortfall within 4 standard deviations (tolerance.Z) of the estimates of blocks
    tracked one in k is the estimator's noise and passes (check_report.shortfall_sd);
  - [untracked heap] and [unknown data] together hold at most F (--max-untracked) of all samples;
  - [stack], the stack samples the runtime could not place in a frame, holds at most F
    (--max-stack-unplaced) of all samples;
  - the shares of all variables add up to at most S (--max-sum, default 1.02: the estimates of
    sampled variables have noise), and no note says samples were counted twice;
  - no variable's name contains a --forbid string (an allocator's frame, a number added to tell
    labels apart).
  check_alloc.py selftest    the checker rejects broken reports (no tool needed)

Python 3 standard library only. Exit status: 0 pass, 1 fail, 2 usage or unreadable report.
"""

import argparse
import contextlib
import copy
import io
import glob
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_report import malloc_own_reads, shortfall_sd  # noqa: E402
from tolerance import Z, share_check  # noqa: E402

TIMING_LINE = re.compile(r"timing: (?P<label>.*?)\s+weight\s+\d+\s+[\d.]+ us/call\s+"
                         r"(?P<seconds>[\d.]+) s total")
MIN_SAMPLES = 300


class CheckFailed(Exception):
    pass


def estimated(var):
    m = var.get("metrics", {})
    return float(m.get("samples_estimated", m.get("samples", 0)))


def timed_shares(prefix, labels):
    """Each label's share of the time of all the labelled phases, summed over the PREFIX.* files."""
    files = sorted(glob.glob(glob.escape(prefix) + ".*"))
    if not files:
        raise CheckFailed(f"no timing files {prefix}.*: the program did not write its timing")
    seconds = dict.fromkeys(labels, 0.0)
    for path in files:
        with open(path, encoding="utf-8") as f:
            for line in f:
                m = TIMING_LINE.match(line.strip())
                if m and m["label"].strip() in seconds:
                    seconds[m["label"].strip()] += float(m["seconds"])
    total = sum(seconds.values())
    missing = [k for k, v in seconds.items() if v <= 0]
    if missing or total <= 0:
        raise CheckFailed(f"{prefix}.*: no time measured for {', '.join(missing) or 'any phase'}")
    return {k: v / total for k, v in seconds.items()}


def listing(report, limit=20):
    rows = [f"  {v.get('name')!r:70} {v.get('kind'):7} {v.get('allocator', '-'):16} "
            f"{estimated(v):8.1f}" for v in report["variables"][:limit]]
    return "\n".join(rows)


def matching(report, allocator, name):
    if allocator == "stack":
        return [v for v in report["variables"] if v.get("kind") == "stack" and v.get("name", "").startswith(name)]
    return [v for v in report["variables"]
            if v.get("kind") in ("heap", "static") and v.get("name", "").startswith(name)
            and (allocator == "*" or v.get("allocator") == allocator)]


def check(report, timing, specs, max_untracked=None, max_sum=1.02, min_known=0.8, forbid=(), weights=None,
          light=(), max_stack_unplaced=None):
    truth = timed_shares(timing, [s[0] for s in specs]) if timing else None
    if weights:
        if len(weights) != len(specs):
            raise CheckFailed(f"{len(weights)} weights for {len(specs)} --var")
        truth = {label: w / sum(weights) for (label, _, _), w in zip(specs, weights)}
    totals = report.get("totals", {})
    total = float(totals.get("samples", 0))
    data = float(totals.get("estimated_data_samples", totals.get("data_samples", 0)))
    errors = []
    found = {}
    for label, allocator, name in specs:
        vs = matching(report, allocator, name)
        if not vs:
            errors.append(f"{label}: no variable with allocator {allocator!r} named {name!r}...")
        found[label] = vs
    if errors:
        raise CheckFailed("\n".join(errors) + "\nvariables in the report:\n" + listing(report))
    known = sum(estimated(v) for vs in found.values() for v in vs)
    if known < MIN_SAMPLES:
        raise CheckFailed(f"only {known:.0f} samples on the checked variables (need {MIN_SAMPLES})")
    if truth:
        print(f"shares of the {known:.0f} samples on the checked variables against "
              + ("the time the program measured" if timing else "the weights")
              + f" (tolerance: {Z:g} sd, binomial and the estimates', + the systematic allowance)")
    # Blocks tracked one in k: the variance of each phase's estimate (samples_estimated_var).
    est_var = {label: sum(float(v.get("metrics", {}).get("samples_estimated_var", 0)) for v in found[label])
               for label, _, _ in specs}
    for label, _, _ in specs:
        got = sum(estimated(v) for v in found[label])
        if truth is None:
            print(f"{label:<14} {len(found[label]):>3} variables {got:8.0f} samples  share {got / known:.3f}")
            continue
        # A share E_i / K (K the sum of the estimates) moves by (1 - p) / K with its own estimate
        # and by -p / K with each other's.
        p = got / known
        extra = ((1 - p) ** 2 * est_var[label] + p ** 2 * (sum(est_var.values()) - est_var[label])) ** 0.5 / known
        err = share_check(label, round(got), round(known), truth[label], extra_sd=extra, width=14,
                          light=label in light)
        if err:
            errors.append(err)
    # The data samples the checked variables could hold: not what malloc's own code read.
    data -= min(data, malloc_own_reads(report))
    shortfall = max(0.0, min_known * data - known)
    if shortfall > 0:
        checked = [v for vs in found.values() for v in vs]
        sd = shortfall_sd(checked, data - known)
        print(f"the checked variables hold {known / data:.3f} of the data samples: {shortfall:.0f} "
              f"under {min_known}, {Z:g} sd of their estimates {Z * sd:.0f}")
        if shortfall > Z * sd:
            errors.append(f"the checked variables hold {known / data:.3f} of the data samples, under "
                          f"{min_known} by {shortfall:.0f} samples, over {Z:g} sd of their estimates ({Z * sd:.0f})")
    untracked = sum(estimated(v) for v in report["variables"]
                    if v.get("name") in ("[untracked heap]", "[unknown data]"))
    print(f"untracked and unknown: {untracked:.0f} of {total:.0f} samples")
    if max_untracked is not None and untracked > max_untracked * total:
        errors.append(f"[untracked heap] and [unknown data] hold {untracked / total:.3f} of all "
                      f"samples, over {max_untracked}")
    unplaced = sum(estimated(v) for v in report["variables"] if v.get("name") == "[stack]")
    if max_stack_unplaced is not None:
        print(f"[stack] (not placed in a frame): {unplaced:.0f} of {total:.0f} samples")
        if unplaced > max_stack_unplaced * total:
            errors.append(f"[stack] holds {unplaced / total:.3f} of all samples, over {max_stack_unplaced}")
    share_sum = sum(float(v.get("share", 0)) for v in report["variables"])
    print(f"sum of the variables' shares: {share_sum:.3f} (at most {max_sum})")
    if share_sum > max_sum:
        errors.append(f"the variables' shares add up to {share_sum:.3f}, over {max_sum}")
    for note in report.get("notes", []):
        if "counted twice" in note:
            errors.append(f"the report says: {note}")
    for v in report["variables"]:
        for bad in forbid:
            if bad in v.get("name", ""):
                errors.append(f"variable {v.get('name')!r} has {bad!r} in its name")
    if errors:
        raise CheckFailed("\n".join(errors) + "\nvariables in the report:\n" + listing(report))


def selftest():
    """A good hand-made report passes; each broken copy fails."""
    def var(name, allocator, est, share, kind="heap"):
        return {"name": name, "kind": kind, "allocator": allocator, "share": share,
                "metrics": {"samples": int(est), "samples_estimated": est}}
    good = {"totals": {"samples": 10000, "data_samples": 10000, "estimated_data_samples": 10000},
            "notes": [],
            "variables": [var("alpha", "named", 5000, 0.5), var("beta", "named", 3300, 0.33),
                          var("gamma", "named", 1600, 0.16), var("[untracked heap]", "-", 100, 0.01, "unknown")]}
    specs = [("alpha", "named", "alpha"), ("beta", "named", "beta"), ("gamma", "named", "gamma")]
    truth = {"alpha": 0.5, "beta": 1 / 3, "gamma": 1 / 6}

    def run(report, timed=True):
        global timed_shares
        saved = timed_shares
        timed_shares = lambda prefix, labels: truth  # noqa: E731
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                check(report, "T" if timed else None, specs, max_untracked=0.1, max_stack_unplaced=0.005)
        finally:
            timed_shares = saved

    run(good)

    def expect_failure(what, mutate):
        broken = copy.deepcopy(good)
        mutate(broken)
        try:
            run(broken)
        except CheckFailed:
            return
        raise CheckFailed(f"selftest: a report with {what} passed")

    expect_failure("a variable missing", lambda r: r["variables"].pop(1))
    stack = copy.deepcopy(good)
    for v in stack["variables"][:3]:
        v.update(kind="stack", name=v["name"] + " (local of f, a.c:3)")
        v.pop("allocator")
    stack_specs = [("alpha", "stack", "alpha (local of f"), ("beta", "stack", "beta"), ("gamma", "stack", "gamma")]
    with contextlib.redirect_stdout(io.StringIO()):
        check(stack, None, stack_specs, weights=[3, 2, 1])
        stack["variables"][0]["kind"] = "heap"
        try:
            check(stack, None, stack_specs, weights=[3, 2, 1])
        except CheckFailed:
            pass
        else:
            raise CheckFailed("selftest: a heap variable passed for a stack one")
    expect_failure("a wrong allocator", lambda r: r["variables"][0].update(allocator="malloc"))
    expect_failure("shares off by 10 points", lambda r: r["variables"][0]["metrics"].update(samples_estimated=7000))
    expect_failure("the light variable losing half", lambda r: r["variables"][2]["metrics"].update(samples_estimated=800))
    expect_failure("shares over 102%", lambda r: r["variables"].append(var("x", "mmap", 0, 0.05)))
    expect_failure("too much untracked", lambda r: r["variables"][3].update(
        metrics={"samples": 2000, "samples_estimated": 2000}))
    expect_failure("stack samples not placed", lambda r: r["variables"][3].update(name="[stack]"))
    expect_failure("a note of double counting", lambda r: r["notes"].append("some samples were counted twice"))
    expect_failure("too few samples to judge a light variable",
                   lambda r: [v["metrics"].update(samples_estimated=v["metrics"]["samples_estimated"] / 50)
                              for v in r["variables"]])
    # Half of the data samples outside the checked variables, with estimates that cannot explain
    # it, fails; the same shortfall within 4 sd of noisy estimates passes (such noise leaves the
    # shares unjudgeable, so that report is checked without its timing), and so does data that
    # malloc's own code read.
    def lose_half(r, var=0.0):
        r["totals"].update(estimated_data_samples=20000, data_samples=20000)
        r["variables"][0]["metrics"]["samples_estimated_var"] = var
    expect_failure("the checked variables holding half the data", lose_half)
    noisy = copy.deepcopy(good)
    lose_half(noisy, var=(10000 / 4) ** 2)
    run(noisy, timed=False)
    malloc_read = copy.deepcopy(good)
    malloc_read["totals"].update(estimated_data_samples=20000, data_samples=20000)
    malloc_read["variables"][3]["accesses"] = [
        {"metrics": {"samples": 10000}, "path": [{"function": "_int_malloc", "module": "/usr/lib/libc.so.6"}]}]
    run(malloc_read)
    # The weights as the truth (a program that times nothing).
    with contextlib.redirect_stdout(io.StringIO()):
        check(good, None, specs, weights=[3, 2, 1])
        try:
            check(good, None, specs, weights=[1, 2, 3])
        except CheckFailed:
            pass
        else:
            raise CheckFailed("selftest: shares against the wrong weights passed")
    try:
        check(good, None, specs, forbid=["bet"])
    except CheckFailed:
        pass
    else:
        raise CheckFailed("selftest: a forbidden name passed")
    print("selftest: the checker rejects broken reports")


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "selftest":
        try:
            selftest()
        except CheckFailed as e:
            print(f"check_alloc: FAIL: {e}", file=sys.stderr)
            return 1
        return 0
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("report")
    p.add_argument("--timing")
    p.add_argument("--var", nargs=3, action="append", required=True, metavar=("LABEL", "ALLOCATOR", "NAME"))
    p.add_argument("--weights", type=float, nargs="+", help="the truth when the program times nothing")
    p.add_argument("--light", action="append", default=[],
                   help="a --var LABEL too light to judge for a lost half: only its tolerance is held")
    p.add_argument("--max-untracked", type=float)
    p.add_argument("--max-stack-unplaced", type=float)
    p.add_argument("--max-sum", type=float, default=1.02)
    p.add_argument("--min-known", type=float, default=0.8)
    p.add_argument("--forbid", action="append", default=[])
    args = p.parse_args()
    try:
        with open(args.report, encoding="utf-8") as f:
            report = json.load(f)
    except (OSError, json.JSONDecodeError) as e:
        print(f"check_alloc: cannot read {args.report}: {e}", file=sys.stderr)
        return 2
    try:
        check(report, args.timing, [tuple(v) for v in args.var], args.max_untracked,
              args.max_sum, args.min_known, args.forbid, args.weights, args.light, args.max_stack_unplaced)
    except CheckFailed as e:
        print(f"check_alloc: FAIL: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
