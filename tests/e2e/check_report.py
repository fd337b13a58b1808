#!/usr/bin/env python3
"""Checks what an hpcprof-lite JSON report (data view) says about a test program.

The test programs read equal-size arrays through one kernel in known proportions, so each
array's share of the samples that fall on the known arrays must match its weight. Shares are
taken among the known arrays only: OpenMP barrier spinning, MPI progress loops and the fill phase
also take samples, and they are not what is being checked.

Subcommands:
  proportions REPORT --program NAME [--processes N] [--timing PREFIX]
                                                      shares within 5 points of the truth: the
                                                      weights, or with --timing the time shares
                                                      the program measured itself (PREFIX.<pid>)
  heap_list REPORT --mode walk|churn|free [--timing PREFIX] [--cpu NATIVE TOOL]
                                                      small list nodes: tracked or estimated
                                                      share, unattributed data, CPU cost, the
                                                      chunk-header rule (see heap_list.c)
  heat2d REPORT [--processes N]                       the example's story holds
  hottest REPORT                                      prints the first (hottest) variable's name
  selftest SAMPLE                                     the checker rejects broken reports

Python 3 standard library only. Exit status: 0 pass, 1 fail, 2 usage or unreadable report.
"""

import argparse
import contextlib
import copy
import io
import glob
import json
import re
import sys

# What each test program allocates, and how often it reads each array (kernel calls per round).
# A heap array is identified by its allocator and its allocation site (the function it is named after); the static
# arrays by their source-level name; the stack array by the runtime's "[stack]" class.
PROGRAMS = {
    "alloc_apis": {
        "arrays": [
            {"label": "malloc", "kind": "heap", "allocator": "malloc", "site": "alloc_with_malloc", "weight": 4},
            {"label": "calloc", "kind": "heap", "allocator": "calloc", "site": "alloc_with_calloc", "weight": 7},
            {"label": "realloc", "kind": "heap", "allocator": "realloc", "site": "alloc_with_realloc", "weight": 2},
            {"label": "posix_memalign", "kind": "heap", "allocator": "posix_memalign",
             "site": "alloc_with_posix_memalign", "weight": 9},
            {"label": "aligned_alloc", "kind": "heap", "allocator": "aligned_alloc",
             "site": "alloc_with_aligned_alloc", "weight": 1},
            {"label": "memalign", "kind": "heap", "allocator": "memalign", "site": "alloc_with_memalign", "weight": 6},
            {"label": "valloc", "kind": "heap", "allocator": "valloc", "site": "alloc_with_valloc", "weight": 3},
            {"label": "mmap", "kind": "heap", "allocator": "mmap", "site": "alloc_with_mmap", "weight": 8},
            {"label": "static_array", "kind": "static", "name": "static_array", "weight": 5},
            {"label": "[stack]", "kind": "unknown", "name": "[stack]", "weight": 10},
        ],
        "cold": [
            {"label": "never read", "kind": "heap", "allocator": "malloc", "site": "alloc_never_read"},
        ],
        "array_bytes": 4 << 20,
    },
    "cxx_new": {
        "arrays": [
            {"label": "new[]", "kind": "heap", "allocator": "operator new[]", "site": "main", "weight": 3},
            {"label": "std::vector", "kind": "heap", "allocator": "operator new", "site": "main", "weight": 1},
            {"label": "tables::lookup", "kind": "static", "name": "tables::lookup", "weight": 2},
        ],
        "cold": [],
        "array_bytes": 4 << 20,
    },
}
PROGRAMS["dlopen_static"] = {
    "arrays": [
        {"label": "plugin_table", "kind": "static", "name": "plugin_table", "weight": 2},
        {"label": "malloc", "kind": "heap", "allocator": "malloc", "site": "alloc_heap_array", "weight": 1},
    ],
    "cold": [],
    "array_bytes": 4 << 20,
}
PROGRAMS["short_threads"] = {
    "arrays": [
        {"label": "worker array", "kind": "heap", "allocator": "malloc", "site": "alloc_worker_array", "weight": 1},
        {"label": "main array", "kind": "heap", "allocator": "malloc", "site": "alloc_main_array", "weight": 1},
    ],
    "cold": [],
    "array_bytes": 4 << 20,
}
PROGRAMS["mpi_alloc_apis"] = PROGRAMS["alloc_apis"]
# 200 small tables in four groups of 50 (1, 2 and 3 KiB; 101,376 bytes per group), every one tracked.
PROGRAMS["small_tables"] = {
    "arrays": [
        {"label": f"group {g}", "kind": "heap", "allocator": "malloc", "site": f"alloc_group_{g}",
         "weight": w, "allocations": 50, "bytes": 101376}
        for g, w in (("a", 1), ("b", 2), ("c", 3), ("d", 4))
    ],
    "cold": [],
    "array_bytes": 101376,
}

TOLERANCE = 0.05  # absolute, in share of the known arrays' samples
RELATIVE = 0.5  # and within 50% of the expected share, so a light array cannot vanish unnoticed
MIN_SAMPLES = 300  # fewer samples on the known arrays than this and the check means nothing


class CheckFailed(Exception):
    pass


def load(path):
    try:
        with open(path, encoding="utf-8") as f:
            report = json.load(f)
    except (OSError, ValueError) as e:
        print(f"check_report: cannot read {path}: {e}", file=sys.stderr)
        sys.exit(2)
    if report.get("format") != "hpcprof-lite-report" or report.get("version") != 1:
        raise CheckFailed(f"{path}: not an hpcprof-lite-report version 1 "
                          f"(format={report.get('format')!r}, version={report.get('version')!r})")
    if not isinstance(report.get("variables"), list):
        raise CheckFailed(f"{path}: no 'variables' list")
    return report


def samples(var):
    return int(var.get("metrics", {}).get("samples", 0))


def frame_functions(var):
    return [f.get("function", "") for f in var.get("allocation_path", [])]


def same_function(name, wanted):
    # GCC clones carry suffixes such as ".constprop.0" or ".isra.0".
    return name == wanted or name.startswith(wanted + ".")


def matches(var, spec):
    if var.get("kind") != spec["kind"]:
        return False
    if spec["kind"] == "heap":
        if var.get("allocator") != spec["allocator"]:
            return False
        # The allocation site is the function the report names the variable after (its
        # innermost frame that is not an allocator or C++ runtime frame), not any caller on the
        # path: an exception's string allocated below main must not pass for main's vector.
        site = var.get("name", "").split(" (")[0]
        return same_function(site, spec["site"])
    return var.get("name") == spec["name"]


def describe(var):
    text = f"{var.get('kind')} {var.get('name')!r}"
    if var.get("kind") == "heap":
        text += f" via {var.get('allocator')} path {frame_functions(var)[:4]}"
    return text + f": {samples(var)} samples"


def find(report, spec, required):
    found = [v for v in report["variables"] if matches(v, spec)]
    if len(found) > 1:
        raise CheckFailed(f"{spec['label']}: {len(found)} variables match, expected one:\n  " +
                          "\n  ".join(describe(v) for v in found))
    if not found:
        if required:
            raise CheckFailed(f"{spec['label']}: no variable matches {spec}")
        return None
    return found[0]


def listing(report, limit=25):
    return "\n".join("  " + describe(v) for v in report["variables"][:limit])


def check_totals(report, processes):
    totals = report.get("totals", {})
    if processes is not None and totals.get("processes") != processes:
        raise CheckFailed(f"totals.processes is {totals.get('processes')}, expected {processes}")
    if totals.get("samples", 0) <= 0:
        raise CheckFailed("totals.samples is not positive")


TIMING_LINE = re.compile(r"timing: (?P<label>.*?)\s+weight\s+(?P<weight>\d+)\s+[\d.]+ us/call\s+"
                         r"(?P<seconds>[\d.]+) s total")


def measured_time_shares(prefix, spec):
    """The time share of each array as the measured program timed it (workload.c writes one line
    per array to PREFIX.<pid>, in the program's order): the truth a time-weighted profile must
    match. Calls of one array do not all cost the same on every CPU (an array read rarely misses
    in the caches and TLBs more), so the weights are only the expected order of magnitude."""
    files = sorted(glob.glob(glob.escape(prefix) + ".*"))
    if not files:
        raise CheckFailed(f"no timing files {prefix}.*: the program did not write its timing")
    seconds = [0.0] * len(spec["arrays"])
    for path in files:
        with open(path, encoding="utf-8") as f:
            rows = [TIMING_LINE.match(line) for line in f if line.startswith("timing:")]
        if len(rows) != len(spec["arrays"]):
            raise CheckFailed(f"{path}: {len(rows)} timing lines, expected {len(spec['arrays'])}")
        for i, (row, array) in enumerate(zip(rows, spec["arrays"])):
            if row is None or int(row["weight"]) != array["weight"]:
                raise CheckFailed(f"{path}: timing line {i + 1} is not {array['label']}'s (weight "
                                  f"{array['weight']})")
            seconds[i] += float(row["seconds"])
    total = sum(seconds)
    if total <= 0:
        raise CheckFailed(f"{prefix}.*: no time measured")
    return [t / total for t in seconds]


def check_proportions(report, program, processes, verbose=True, timing=None):
    say = print if verbose else (lambda *a, **k: None)
    check_totals(report, processes)
    spec = PROGRAMS[program]
    try:
        found = [(a, find(report, a, required=True)) for a in spec["arrays"]]
    except CheckFailed as e:
        raise CheckFailed(f"{e}\nvariables in the report:\n{listing(report)}") from None

    known = sum(samples(v) for _, v in found)
    if known < MIN_SAMPLES:
        raise CheckFailed(f"only {known} samples on the known arrays (need {MIN_SAMPLES})")
    weights = sum(a["weight"] for a in spec["arrays"])
    truth = measured_time_shares(timing, spec) if timing else [a["weight"] / weights for a in spec["arrays"]]
    ranks = processes or 1
    errors = []
    say(f"{'array':<16} {'samples':>8} {'share':>7} {'expected':>8}" + ("  (measured time)" if timing else ""))
    for (array, var), expected in zip(found, truth):
        share = samples(var) / known
        say(f"{array['label']:<16} {samples(var):>8} {share:7.3f} {expected:8.3f}")
        if abs(share - expected) > TOLERANCE or abs(share - expected) > RELATIVE * expected:
            errors.append(f"{array['label']}: share {share:.3f}, expected {expected:.3f}")
        if array["kind"] == "heap":
            if var.get("sampled"):
                errors.append(f"{array['label']}: flagged as sampled, but it is above --min-bytes")
            allocations = ranks * array.get("allocations", 1)
            nbytes = ranks * array.get("bytes", spec["array_bytes"])
            if var.get("allocations") != allocations or var.get("bytes") != nbytes:
                errors.append(f"{array['label']}: {var.get('allocations')} allocations, "
                              f"{var.get('bytes')} bytes; expected {allocations} of {nbytes} bytes")
            path = var.get("allocation_path", [])
            if not path or array["allocator"] not in path[0].get("function", ""):
                errors.append(f"{array['label']}: allocation_path[0] is "
                              f"{path[0] if path else None}, expected the allocation API")

    hottest = max(samples(v) for _, v in found)
    for cold in spec["cold"]:
        var = find(report, cold, required=False)
        n = samples(var) if var else 0
        say(f"{cold['label']:<16} {n:>8}  (must stay under {hottest / 10:.0f})")
        if n * 10 >= hottest:
            errors.append(f"{cold['label']}: {n} samples, not under a tenth of the hottest ({hottest})")
    if errors:
        raise CheckFailed("\n".join(errors) + f"\nvariables in the report:\n{listing(report)}")


def check_heat2d(report, processes):
    """The example's story: the temperature field (one block per rank from alloc_field) is the
    hottest variable, and most of its samples come from column_means_bad."""
    check_totals(report, processes)
    variables = sorted(report["variables"], key=samples, reverse=True)
    field = find(report, {"label": "field", "kind": "heap", "allocator": "malloc", "site": "alloc_field"},
                 required=True)
    find(report, {"label": "coefficients", "kind": "heap", "allocator": "calloc",
                  "site": "make_coefficients"}, required=True)
    if variables[0] is not field:
        raise CheckFailed(f"hottest variable is not the field:\n{listing(report)}")
    if field.get("allocations") != (processes or 1):
        raise CheckFailed(f"field: {field.get('allocations')} allocations, expected 1 per rank")
    bad = 0
    for access in field.get("accesses", []):
        if any(same_function(f.get("function", ""), "column_means_bad") for f in access.get("path", [])):
            bad += int(access.get("metrics", {}).get("samples", 0))
    print(f"field: {samples(field)} samples, {bad} of them in column_means_bad")
    if bad * 2 < samples(field):
        raise CheckFailed("column_means_bad does not account for most of the field's samples")


def estimated(var):
    return float(var.get("metrics", {}).get("samples_estimated", samples(var)))


def unattributed(report):
    """[unknown data] and [untracked heap] after the estimates took their share."""
    return sum(estimated(v) for v in report["variables"]
               if v.get("kind") == "unknown" and v.get("name") in ("[unknown data]", "[untracked heap]"))


NODES = {"label": "list nodes", "kind": "heap", "allocator": "malloc", "site": "make_nodes"}
ARRAY = {"label": "array", "kind": "heap", "allocator": "malloc", "site": "make_array"}


def check_heap_list(report, mode, timing=None, cpu=None):
    """heap_list (tests/programs/heap_list.c): small nodes tracked, sampled or estimated."""
    check_totals(report, 1)
    totals = report["totals"]
    data = float(totals.get("estimated_data_samples", totals.get("data_samples", 0)))
    nodes = find(report, NODES, required=True)
    errors = []
    print(f"nodes: {samples(nodes)} samples, estimated {estimated(nodes):.0f} "
          f"(variance {nodes['metrics'].get('samples_estimated_var', 0)}), sampled {nodes.get('sampled')}; "
          f"data samples {data:.0f}, unattributed {unattributed(report):.0f}, "
          f"in the runtime {totals.get('samples_in_runtime')}, dropped {totals.get('samples_dropped')}")
    if "samples_estimated" not in nodes.get("metrics", {}) or "estimated_data_samples" not in totals:
        raise CheckFailed("the report has no samples_estimated / estimated_data_samples")
    if estimated(nodes) < samples(nodes):
        errors.append("nodes: the estimate is below the raw samples")
    if mode == "walk":
        spec = {"arrays": [dict(NODES, weight=1), dict(ARRAY, weight=16)]}
        share_list = measured_time_shares(timing, spec)[0]
        expected = share_list * data
        print(f"nodes: the walk took {share_list:.3f} of the timed phases: {expected:.0f} of the "
              f"data samples; at least 60% of that is required")
        if data < MIN_SAMPLES:
            errors.append(f"only {data:.0f} data samples (need {MIN_SAMPLES})")
        if estimated(nodes) < 0.6 * expected:
            errors.append(f"nodes: estimated {estimated(nodes):.0f} samples, under 60% of {expected:.0f}")
        if unattributed(report) > 0.2 * data:
            errors.append(f"unattributed data {unattributed(report):.0f} is over 20% of {data:.0f}")
        find(report, ARRAY, required=True)
    elif mode == "churn":
        if totals.get("samples_dropped") != 0:
            errors.append(f"{totals.get('samples_dropped')} samples dropped")
        if not isinstance(totals.get("samples_in_runtime"), int):
            errors.append("totals.samples_in_runtime is missing")
        if not nodes.get("sampled") or estimated(nodes) <= samples(nodes):
            errors.append("nodes: not sampled with estimates above the raw samples")
        native, tool = cpu
        print(f"CPU time: native {native:.2f} s, under the tool {tool:.2f} s ({tool / native:.2f}x, at most 1.5x)")
        if tool > 1.5 * native:
            errors.append(f"CPU time {tool:.2f} s is over 1.5x the native {native:.2f} s")
    elif mode == "free":
        def through_free(var):  # samples of free() itself, called from free_nodes
            return sum(int(a["metrics"]["samples"]) for a in var.get("accesses", [])
                       if a.get("path") and "heap_list" not in a["path"][0].get("module", "")
                       and any(same_function(f.get("function", ""), "free_nodes") for f in a["path"]))
        if nodes.get("sampled"):
            errors.append("nodes: sampled, but every block should be tracked (--small-every 1)")
        total = sum(through_free(v) for v in report["variables"])
        mine = through_free(nodes)
        # free() reads the node's own header (the node's) and the next chunk's size field (the
        # next node's while it is live, free memory once it was freed first): about half. Without
        # the chunk-header rule the nodes would get none of them.
        print(f"free() under free_nodes: {total} data samples, {mine} of them on the nodes "
              f"(at least 30% required)")
        if total < 50:
            errors.append(f"only {total} data samples in free() under free_nodes (need 50)")
        elif mine < 0.3 * total:
            errors.append(f"nodes: {mine} of the {total} data samples in free() under free_nodes")
    if errors:
        raise CheckFailed("\n".join(errors) + f"\nvariables in the report:\n{listing(report)}")


def selftest(path):
    """Runs the proportions check on a hand-written good report, then on broken copies of it."""
    good = load(path)
    check_proportions(good, "alloc_apis", 1, verbose=False)

    def expect_failure(what, mutate):
        broken = copy.deepcopy(good)
        mutate(broken)
        try:
            check_proportions(broken, "alloc_apis", 1, verbose=False)
        except CheckFailed:
            return
        raise CheckFailed(f"selftest: a report with {what} passed")

    def var(report, kind, key, value):
        return next(v for v in report["variables"] if v["kind"] == kind and v.get(key) == value)

    def shift(report):  # moves 8 points of share from calloc to malloc
        a, b = var(report, "heap", "allocator", "malloc"), var(report, "heap", "allocator", "calloc")
        moved = int(0.08 * sum(samples(v) for v in report["variables"]))
        a["metrics"]["samples"] += moved
        b["metrics"]["samples"] -= moved

    def split_stack(report):  # the workers' reads of main's stack classed as unknown data
        s = var(report, "unknown", "name", "[stack]")
        s["metrics"]["samples"] //= 2

    def cold_hot(report):
        cold = next(v for v in report["variables"] if "alloc_never_read" in frame_functions(v))
        cold["metrics"]["samples"] = 10 ** 6

    expect_failure("shares shifted by 8 points", shift)
    expect_failure("half of the stack's samples missing", split_stack)
    expect_failure("a hot never-read array", cold_hot)
    expect_failure("a missing array", lambda r: r["variables"].remove(var(r, "static", "name", "static_array")))
    expect_failure("a wrong allocator", lambda r: var(r, "heap", "allocator", "valloc").update(allocator="malloc"))
    expect_failure("two processes", lambda r: r["totals"].update(processes=2))
    expect_failure("a lost light array", lambda r: var(r, "heap", "allocator", "aligned_alloc")["metrics"].update(samples=1))
    print("selftest: good report passes, 7 broken ones fail")
    selftest_heap_list()


def selftest_heap_list():
    """The heap_list checks on hand-made reports: a good one passes, broken copies fail."""
    frame = lambda fn, module="/lib/x86_64-linux-gnu/libc.so.6": {"function": fn, "module": module}
    free_path = [frame("_int_free"), frame("free"), frame("free_nodes", "/x/heap_list"), frame("main", "/x/heap_list")]
    good = {
        "totals": {"samples": 2000, "data_samples": 1000, "estimated_data_samples": 1000.0,
                   "processes": 1, "samples_dropped": 0, "samples_in_runtime": 150},
        "variables": [
            {"kind": "heap", "name": "make_nodes (heap_list.c:76)", "allocator": "malloc", "sampled": True,
             "metrics": {"samples": 40, "samples_estimated": 600.0, "samples_estimated_var": 9000.0},
             "accesses": [{"path": free_path, "metrics": {"samples": 40}}]},
            {"kind": "unknown", "name": "[untracked heap]",
             "metrics": {"samples": 900, "samples_estimated": 340.0, "samples_estimated_var": 9000.0},
             "accesses": [{"path": free_path, "metrics": {"samples": 60}}]},
        ]}

    def expect(mode, what, mutate, cpu=(1.0, 1.2), passes=False):
        report = copy.deepcopy(good)
        mutate(report)
        try:
            check_heap_list(report, mode, cpu=cpu)
        except CheckFailed:
            if passes:
                raise
            return
        if not passes:
            raise CheckFailed(f"selftest: a heap_list {mode} report with {what} passed")

    with contextlib.redirect_stdout(io.StringIO()):
        expect("churn", "nothing wrong", lambda r: None, passes=True)
        expect("churn", "dropped samples", lambda r: r["totals"].update(samples_dropped=3))
        expect("churn", "no estimate", lambda r: r["variables"][0]["metrics"].update(samples_estimated=40.0))
        expect("churn", "1.6x CPU", lambda r: None, cpu=(1.0, 1.6))
        expect("churn", "no estimate fields", lambda r: r["totals"].pop("estimated_data_samples"))
        def exact(r):
            r["variables"][0]["sampled"] = False
        expect("free", "nothing wrong", exact, passes=True)
        def headers_lost(r):
            exact(r)
            r["variables"][0]["accesses"][0]["metrics"]["samples"] = 5
        expect("free", "the chunk headers in [untracked heap]", headers_lost)
    print("selftest: heap_list: good reports pass, 5 broken ones fail")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("proportions")
    p.add_argument("report")
    p.add_argument("--program", required=True, choices=sorted(PROGRAMS))
    p.add_argument("--processes", type=int)
    p.add_argument("--timing", help="prefix of the timing files the measured program wrote")
    h = sub.add_parser("heat2d")
    h.add_argument("report")
    h.add_argument("--processes", type=int)
    hl = sub.add_parser("heap_list")
    hl.add_argument("report")
    hl.add_argument("--mode", required=True, choices=["walk", "churn", "free"])
    hl.add_argument("--timing", help="walk: prefix of the timing files")
    hl.add_argument("--cpu", nargs=2, type=float, metavar=("NATIVE", "TOOL"),
                    help="churn: CPU seconds of the native run and of the run under the tool")
    t = sub.add_parser("hottest")
    t.add_argument("report")
    s = sub.add_parser("selftest")
    s.add_argument("sample")
    args = parser.parse_args()

    try:
        if args.command == "proportions":
            check_proportions(load(args.report), args.program, args.processes, timing=args.timing)
        elif args.command == "heap_list":
            check_heap_list(load(args.report), args.mode, args.timing, args.cpu)
        elif args.command == "heat2d":
            check_heat2d(load(args.report), args.processes)
        elif args.command == "hottest":
            report = load(args.report)
            if not report["variables"]:
                raise CheckFailed("the report has no variables")
            # The first variable in report order, which must also have the most samples: the
            # text report's row 1 is the same variable.
            first = report["variables"][0]
            if samples(first) != max(samples(v) for v in report["variables"]):
                raise CheckFailed("the variables are not sorted by samples")
            print(first["name"])
        else:
            selftest(args.sample)
    except CheckFailed as e:
        print(f"check_report: FAIL: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
