#!/usr/bin/env python3
"""Checks what an hpcprof-lite JSON report (data view) says about a test program.

The test programs read equal-size arrays through one kernel in known proportions, so each
array's share of the samples that fall on the known arrays must match its weight. Shares are
taken among the known arrays only: OpenMP barrier spinning, MPI progress loops and the fill phase
also take samples, and they are not what is being checked.

Subcommands:
  proportions REPORT --program NAME [--processes N] [--timing PREFIX]
                                                      shares within the tolerance of their sample
                                                      count (tolerance.py) of the truth: the
                                                      weights, or with --timing the time shares
                                                      the program measured itself (PREFIX.<pid>)
     [--min-data-fraction F]                          and at least F of all samples with an address
  same_shares REPORT1 REPORT2 --program NAME [--timing PREFIX1 PREFIX2]
                                                      two builds give the same shares within the
                                                      tolerance of both sample counts (with
                                                      --timing: the same distances from each
                                                      run's measured time shares)
  store_join REPORT                                   the store before a branch target is charged
                                                      to the table, not the stack
  heap_list REPORT --mode walk|churn|free [--timing PREFIX] [--cpu NATIVE TOOL]
                                                      small list nodes: tracked or estimated
                                                      share, unattributed data, CPU cost, the
                                                      chunk-header rule (see heap_list.c)
  heat2d REPORT [--processes N]                       the example's story holds
  names REPORT --source FILE [options]                heap variables are named after the
                                                      `site: FUNCTION` lines of FILE (see
                                                      check_names), statics and regions as given
  hottest REPORT                                      prints the first (hottest) variable's name
  tail_calls REPORT --wrapper F --callers A B [--reader R]
                                                      each caller's heap variable has F, marked
                                                      tail_call, between malloc and the caller;
                                                      with --reader, the first caller's array is
                                                      read through R, marked tail_call
  unnamed_sites REPORT --module M [--timing PREFIX]   two malloc sites labelled M!0xF+0xA and
                                                      M!0xF+0xB: one function, two labels; their
                                                      shares match the program's measured time
  debug_sites REPORT --function F --lines L1 L2       two malloc sites named F (file:L1), (file:L2)
  work REPORT --site F (--min-samples N | --expected E)
                                                      the heap variable allocated in F has at
                                                      least N samples (the work before an ending),
                                                      or 4 Poisson sd under E (tolerance.py)
  selftest SAMPLE                                     the checker rejects broken reports

Python 3 standard library only. Exit status: 0 pass, 1 fail, 2 usage or unreadable report.
"""

import argparse
import contextlib
import copy
import io
import glob
import json
import math
import re
import sys

import tolerance
from tolerance import Z, share_check

# What each test program allocates, and how often it reads each array (kernel calls per round).
# A heap array is identified by its allocator and its allocation site (the function it is named after); the static
# arrays by their source-level name; the stack array by its row's name up to its declaration's line (the local of
# the frame that owns it, named from DWARF).
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
            {"label": "stack_array", "kind": "stack", "prefix": "stack_array (local of main, alloc_apis.c:",
             "weight": 10},
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
        {"label": "plugin_tls", "kind": "static", "name": "plugin_tls", "weight": 2},
    ],
    "cold": [],
    "array_bytes": 4 << 20,
}
# Thread-local arrays of the executable: each thread's own block, then another thread's.
PROGRAMS["tls_threads"] = {
    "arrays": [
        {"label": "own_tls", "kind": "static", "name": "own_tls", "weight": 2},
        {"label": "peer_tls", "kind": "static", "name": "peer_tls", "weight": 1},
    ],
    "cold": [],
    "array_bytes": 512 << 10,
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
# Programs of the decoder's rules (hpcrun-lite/runtime/decode/access_decode.cpp): vectorized loads (LoadFeeds),
# the same in Fortran, and a linked list walked by pointer chasing (ChasedNext). A static array may be
# matched by several names: the raw symbol or a demangled Fortran form (fields::mod_table, /legacy/).
PROGRAMS["vector_loads"] = {
    "arrays": [
        {"label": "calloc", "kind": "heap", "allocator": "calloc", "site": "alloc_counts", "weight": 3},
        {"label": "malloc", "kind": "heap", "allocator": "malloc", "site": "alloc_values", "weight": 2},
        {"label": "vector_table", "kind": "static", "name": "vector_table", "weight": 1},
    ],
    "cold": [],
    "array_bytes": 4 << 20,
}
PROGRAMS["fortran_arrays"] = {
    "arrays": [
        {"label": "mod_table", "kind": "static", "name": "__fields_MOD_mod_table",
         "names": ["__fields_MOD_mod_table", "fields::mod_table"], "weight": 3},
        {"label": "heap", "kind": "heap", "allocator": "malloc", "site": "fortran_arrays", "weight": 2},
        {"label": "legacy", "kind": "static", "name": "legacy_", "names": ["legacy_", "/legacy/"], "weight": 1},
    ],
    "cold": [],
    "array_bytes": 4 << 20,
}
# The list's share runs high against the program's timing of the walk: +1.0 points on average,
# 0 to +2.1, over 9 runs at 4,000/s (the binomial sd there is 0.6 points): a systematic allowance
# of 3 points of its own instead of tolerance.systematic_allowance's 1.4 (p = 0.8).
PROGRAMS["list_walk"] = {
    "systematic": 0.03,
    "arrays": [
        {"label": "list", "kind": "heap", "allocator": "malloc", "site": "alloc_node", "weight": 1,
         "allocations": 2 << 20, "bytes": (2 << 20) * 48},
        {"label": "big array", "kind": "heap", "allocator": "malloc", "site": "alloc_big", "weight": 16,
         "bytes": 64 << 20},
    ],
    "cold": [],
    "array_bytes": 4 << 20,
}
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

# Shares are held to tolerance.share_tolerance of their sample count (4 binomial standard
# deviations plus the stated systematic allowance), and a tolerance that could not catch a light
# array losing half its share fails as too few samples (tolerance.share_check).
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
    # GCC clones carry suffixes such as ".constprop.0" or ".isra.0"; the report names an OpenMP
    # region outlined from `wanted` "wanted [omp region N]".
    return name == wanted or name.startswith(wanted + ".") or name.startswith(wanted + " [omp region ")


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
    if "prefix" in spec:
        return var.get("name", "").startswith(spec["prefix"])
    names = spec.get("names", [spec["name"]])
    return var.get("name") in names or var.get("symbol") in names


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
    say(f"shares of the {known} samples on the known arrays against the "
        + ("time shares the program measured" if timing else "weights")
        + f" (tolerance: {Z:g} binomial sd + the systematic allowance, tolerance.py)")
    for (array, var), expected in zip(found, truth):
        err = share_check(array["label"], samples(var), known, expected, spec.get("systematic"), say=say)
        if err:
            errors.append(err)
        if array["kind"] == "heap":
            if var.get("sampled"):
                errors.append(f"{array['label']}: flagged as sampled, but it is above --min-bytes")
            allocations = ranks * array.get("allocations", 1)
            size = ranks * array.get("bytes", spec["array_bytes"])
            if var.get("allocations") != allocations or var.get("bytes") != size:
                errors.append(f"{array['label']}: {var.get('allocations')} allocations, "
                              f"{var.get('bytes')} bytes; expected {allocations} of {size} bytes in all")
            path = var.get("allocation_path", [])
            if not path or array["allocator"] not in path[0].get("function", ""):
                errors.append(f"{array['label']}: allocation_path[0] is "
                              f"{path[0] if path else None}, expected the allocation API")

    # What of the stack could not be placed in a frame, when it is large, is explained.
    unplaced = find(report, {"label": "[stack]", "kind": "unknown", "name": "[stack]"}, required=False)
    if unplaced:
        errors += stack_note_errors(report, unplaced)

    hottest = max(samples(v) for _, v in found)
    for cold in spec["cold"]:
        var = find(report, cold, required=False)
        n = samples(var) if var else 0
        say(f"{cold['label']:<16} {n:>8}  (must stay under {hottest / 10:.0f})")
        if n * 10 >= hottest:
            errors.append(f"{cold['label']}: {n} samples, not under a tenth of the hottest ({hottest})")
    if errors:
        raise CheckFailed("\n".join(errors) + f"\nvariables in the report:\n{listing(report)}")


def stack_note_errors(report, var):
    """[stack] with 5% of the samples or more is explained in a note that names first the
    function reading most of it (the leaf of its accesses, summed by function)."""
    share = samples(var) / max(1, report["totals"]["samples"])
    if share < 0.05:
        return []
    by_function = {}
    for a in var.get("accesses", []):
        if a.get("path"):
            f = a["path"][0]["function"]
            by_function[f] = by_function.get(f, 0) + a["metrics"]["samples"]
    reader = max(by_function, key=by_function.get) if by_function else "?"
    notes = [n for n in report.get("notes", []) if n.startswith("[stack] holds")]
    if len(notes) != 1 or ("Read in " + reader + " (") not in notes[0]:
        return [f"[stack] ({share:.1%} of the samples, read most in {reader}): notes {notes}"]
    return []


def data_fraction(report):
    totals = report.get("totals", {})
    return totals.get("data_samples", 0) / max(1, totals.get("samples", 0))


def check_data_fraction(report, minimum):
    """At least `minimum` of all samples carry a data address (the decoder found the access)."""
    fraction = data_fraction(report)
    print(f"samples with a data address: {fraction:.3f} (need {minimum:.2f})")
    if fraction < minimum:
        raise CheckFailed(f"only {fraction:.3f} of the samples have a data address, expected at least {minimum}")


def known_shares(report, program):
    """[(label, share)] of the known arrays, and the number of samples on them."""
    found = [(a, find(report, a, required=True)) for a in PROGRAMS[program]["arrays"]]
    known = sum(samples(v) for _, v in found)
    if known < MIN_SAMPLES:
        raise CheckFailed(f"only {known} samples on the known arrays (need {MIN_SAMPLES})")
    return [(a["label"], samples(v) / known) for a, v in found], known


def check_same_shares(first, second, program, timings=None):
    """Two builds of one program (e.g. SSE2 and AVX2 code) give the same shares: each array's
    share, or with the two runs' timing prefixes its distance from its own run's measured time
    share, differs between the runs by no more than the binomial noise of both sample counts
    allows (tolerance.two_sample_tolerance, 4 sd; no systematic allowance: one source read the
    same way must be attributed the same way). Two runs on a busy machine do not spend exactly
    the same time on each array, hence the distances from the measured shares."""
    spec = PROGRAMS[program]
    weights = sum(a["weight"] for a in spec["arrays"])
    truth = ([measured_time_shares(t, spec) for t in timings] if timings
             else [[a["weight"] / weights for a in spec["arrays"]]] * 2)
    (shares1, n1), (shares2, n2) = known_shares(first, program), known_shares(second, program)
    errors = []
    print(f"{'array':<16} {'first':>7} {'second':>7} {'tolerance':>9}  ({n1} and {n2} samples"
          + (", minus the measured time shares)" if timings else ", minus the weights)"))
    for (label, a), (_, b), ta, tb in zip(shares1, shares2, truth[0], truth[1]):
        da, db = a - ta, b - tb
        tol = tolerance.two_sample_tolerance((ta + tb) / 2, n1, n2)
        print(f"{label:<16} {da:7.3f} {db:7.3f} {tol:9.3f}")
        if tol >= (ta + tb) / 4:
            errors.append(f"{label}: {n1} and {n2} samples are too few: the tolerance {tol:.3f} would "
                          f"not catch a build losing half of its share")
        elif abs(da - db) > tol:
            errors.append(f"{label}: {da:.3f} and {db:.3f} differ by more than {tol:.3f}")
    if errors:
        raise CheckFailed("\n".join(errors))


def stack_data(report):
    """Samples on the threads' stacks: [stack] and the rows of the frames' locals."""
    return sum(samples(v) for v in report["variables"]
               if v.get("kind") == "stack" or (v.get("kind") == "unknown" and v.get("name") == "[stack]"))


def check_store_join(report):
    """The cache-missing store before a branch target (store_join.c): the table has at least 75%
    of the samples with a data address, the stack (its locals and [stack]) under 10%."""
    check_totals(report, 1)
    data = report["totals"].get("data_samples", 0)
    if data < MIN_SAMPLES:
        raise CheckFailed(f"only {data} samples with a data address (need {MIN_SAMPLES})")
    table = find(report, {"label": "table", "kind": "heap", "allocator": "malloc", "site": "alloc_table"},
                 required=True)
    t, k = samples(table) / data, stack_data(report) / data
    print(f"table {t:.3f} of the data samples (need 0.75), stack data {k:.3f} (must stay under 0.10)")
    if t < 0.75 or k >= 0.10:
        raise CheckFailed(f"table {t:.3f}, stack data {k:.3f} of the data samples\n{listing(report)}")


def check_compute_spills(report, timing):
    """Spilling compute beside an array pass (compute_spills.c, decoder rule Compute): stack data
    (its locals and [stack]) under 10% of the data samples (its truth is none), and the array's share of all samples within the
    tolerance of their count (tolerance.py) of the time share of its passes the program measured
    (its timing lines: compute, then alloc_stream)."""
    check_totals(report, 1)
    total = report["totals"].get("samples", 0)
    data = report["totals"].get("data_samples", 0)
    if data < MIN_SAMPLES:
        raise CheckFailed(f"only {data} samples with a data address (need {MIN_SAMPLES})")
    spec = {"arrays": [{"label": "compute", "weight": 1}, {"label": "alloc_stream", "weight": 1}]}
    truth = measured_time_shares(timing, spec)[1]
    array = find(report, {"label": "stream", "kind": "heap", "allocator": "malloc", "site": "alloc_stream"},
                 required=True)
    k = stack_data(report) / data
    print("the array's share of all samples against the measured time share of its passes:")
    err = share_check("array", samples(array), total, truth)
    print(f"stack data {k:.3f} of the data samples (must stay under 0.10)")
    if err or k >= 0.10:
        raise CheckFailed(f"{err or ''}; stack data {k:.3f}\n{listing(report)}")


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


def check_tail_calls(report, wrapper, callers, reader=None):
    """Tail-called wrappers recovered (tests/programs/tail_alloc.c): the allocation path of each
    caller's array is malloc, then the wrapper marked tail_call, then the caller."""
    found = {}
    for var in report["variables"]:
        path = var.get("allocation_path", [])
        if var.get("kind") != "heap" or len(path) < 3:
            continue
        for caller in callers:
            if same_function(path[2].get("function", ""), caller):
                found.setdefault(caller, []).append(var)
    for caller in callers:
        hits = found.get(caller, [])
        if len(hits) != 1:
            raise CheckFailed(f"{len(hits)} heap variables allocated from {caller}, expected one:\n"
                              f"{listing(report)}")
        path = hits[0]["allocation_path"]
        print(f"{caller}: {[(f.get('function'), f.get('tail_call', False)) for f in path[:4]]}")
        if path[0].get("function") != "malloc":
            raise CheckFailed(f"{caller}: allocation_path[0] is {path[0]}, expected malloc")
        if not same_function(path[1].get("function", ""), wrapper) or path[1].get("tail_call") is not True:
            raise CheckFailed(f"{caller}: allocation_path[1] is {path[1]}, expected {wrapper} "
                              f"marked tail_call")
        if any(f.get("tail_call") for f in path[2:]):
            raise CheckFailed(f"{caller}: a frame after the wrapper is marked tail_call: {path}")
    if reader:
        grid = found[callers[0]][0]
        through = sum(int(a.get("metrics", {}).get("samples", 0)) for a in grid.get("accesses", [])
                      if any(same_function(f.get("function", ""), reader) and f.get("tail_call")
                             for f in a.get("path", [])))
        other = found[callers[1]][0]
        wrong = [a for a in other.get("accesses", [])
                 if any(same_function(f.get("function", ""), reader) for f in a.get("path", []))]
        print(f"{callers[0]}: {through} of {samples(grid)} samples read through {reader} (tail call)")
        if through == 0:
            raise CheckFailed(f"no access path of {callers[0]}'s array holds {reader} marked tail_call")
        if wrong:
            raise CheckFailed(f"{callers[1]}'s array is never read through {reader}, yet: {wrong[0]}")


UNNAMED_LABEL = re.compile(r"^(?P<function>(?P<module>[^!]+)!0x[0-9a-f]+)\+0x[0-9a-f]+$")


def malloc_sites(report, count):
    sites = [v for v in report["variables"] if v.get("kind") == "heap" and v.get("allocator") == "malloc"
             and v.get("bytes") == 4 << 20]
    if len(sites) != count:
        raise CheckFailed(f"{len(sites)} heap variables of 4 MiB from malloc, expected {count}:\n"
                          f"{listing(report)}")
    return sites


def check_unnamed_sites(report, module, timing):
    """A stripped program's two malloc sites in one function (tests/programs/split_sites.c)."""
    sites = malloc_sites(report, 2)
    labels = [v["name"] for v in sites]
    print(f"sites: {labels}")
    found = [UNNAMED_LABEL.match(label) for label in labels]
    if not all(found) or any(m["module"] != module for m in found):
        raise CheckFailed(f"site labels {labels} are not {module}!0xSTART+0xOFFSET")
    if found[0]["function"] != found[1]["function"]:
        raise CheckFailed(f"the two sites of one function are named after different functions: {labels}")
    if labels[0] == labels[1]:
        raise CheckFailed(f"the two sites share one label: {labels}")
    if timing:
        spec = {"arrays": [{"label": "first", "weight": 2}, {"label": "second", "weight": 1}]}
        truth = sorted(measured_time_shares(timing, spec))
        known = sum(samples(v) for v in sites)
        if known < MIN_SAMPLES:
            raise CheckFailed(f"only {known} samples on the two arrays (need {MIN_SAMPLES})")
        # Which label is which array depends on code layout; the shares, sorted, must match.
        counts = sorted(samples(v) for v in sites)
        errors = [e for i, (k, expected) in enumerate(zip(counts, truth))
                  if (e := share_check(f"site {i + 1}", k, known, expected))]
        if errors:
            raise CheckFailed("\n".join(errors))
    notes = " ".join(report.get("notes", []))
    if module not in notes or "debug information" not in notes:
        raise CheckFailed(f"the report's notes do not repeat that {module} lacks debug information: {notes}")


def check_debug_sites(report, function, lines):
    """The same sites with the debug information found by build-id: function, file and line."""
    sites = malloc_sites(report, 2)
    labels = sorted(v["name"] for v in sites)
    print(f"sites: {labels}")
    wanted = sorted(f"{function} (split_sites.c:{line})" for line in lines)
    if labels != wanted:
        raise CheckFailed(f"site labels {labels}, expected {wanted}")


SITE_MARK = re.compile(r"^\s*[^/!\s].*(?://|!)\s*site:\s*([\w:]+)\s*$")


def site_markers(source):
    """(line, function) of every `// site: FUNCTION` (C/C++) or `! site: FUNCTION` (Fortran)
    comment: the line whose allocation names a heap variable, and the function it is in."""
    with open(source, encoding="utf-8") as f:
        return [(n, m.group(1)) for n, text in enumerate(f, 1) for m in [SITE_MARK.search(text)] if m]


def all_paths(var):
    yield var.get("allocation_path", [])
    for access in var.get("accesses", []):
        yield access.get("path", [])


def check_names(report, source, one_per_site, wrappers, top_distinct, statics, regions, frames, forbid,
                forbid_frames):
    """Heap variables allocated from `source` are named after its code, never after a wrapper or
    the C++ runtime: for each `site:` line, a variable `FUNCTION(...) (FILE:LINE)` (a ` #N` or
    ` <- caller` suffix allowed) whose label_frame is that line; every frame of `source` before
    the label frame is marked "wrapper" (with --wrappers there must be one); no variable name
    matches a --forbid pattern, no frame function of any path a --forbid-frame pattern. Stack
    rows are exempt from --forbid: they are named by the function whose frame holds the data,
    which is rightly the standard library's when a sample of a short run lands in its locals
    (`[stack of std::vector::_M_default_append]`, instantiated in the program), not by a naming
    rule the patterns guard."""
    base = source.rsplit("/", 1)[-1]
    heap = [v for v in report["variables"] if v.get("kind") == "heap"]
    errors = []
    for line, func in site_markers(source):
        label = re.compile(rf"^{re.escape(func)}(\(.*\))? \({re.escape(base)}:{line}\)( \u2190 .*)?( #\d+)?$")
        named = [v for v in heap if label.match(v.get("name", ""))]
        print(f"{base}:{line} {func}: {[v['name'] for v in named]}")
        if not named or (one_per_site and len(named) != 1):
            errors.append(f"{base}:{line}: {len(named)} heap variables named after {func} at this line")
        for v in named:
            path, i = v.get("allocation_path", []), v.get("label_frame", -1)
            frame = path[i] if 0 <= i < len(path) else {}
            if not frame.get("function", "").startswith(func) or frame.get("line") != line:
                errors.append(f"{v['name']}: label_frame {i} is {frame}, not {func} at line {line}")
            if wrappers and not any(f.get("wrapper") for f in path[:max(i, 0)]):
                errors.append(f"{v['name']}: no allocation-path frame before the label is marked wrapper")
    for v in heap:
        path, i = v.get("allocation_path", []), v.get("label_frame", 0)
        ours = [k for k, f in enumerate(path) if f.get("file", "").endswith("/" + base)]
        if not ours:
            continue
        if i not in ours:
            errors.append(f"{v['name']}: allocated from {base} but named after frame {i}, {path[i] if i < len(path) else None}")
        for k in ours:
            if k < i and not path[k].get("wrapper"):
                errors.append(f"{v['name']}: frame {k} of {base} ({path[k].get('function')}) skipped but not marked wrapper")
    if top_distinct:
        hottest = sorted(heap, key=samples, reverse=True)[:10]
        distinct = len({v["name"] for v in hottest})
        print(f"ten hottest heap variables: {distinct} distinct names")
        if distinct < top_distinct or any(samples(v) == 0 for v in hottest):
            errors.append(f"the ten hottest heap variables have {distinct} distinct names (need "
                          f"{top_distinct}) or some have no samples")
    for name in statics:
        if not any(v.get("kind") == "static" and v.get("name") == name for v in report["variables"]):
            errors.append(f"no static variable named {name!r}")
    for name in regions:
        ok = False
        for v in report["variables"]:
            for access in v.get("accesses", []):
                p = access.get("path", [])
                for k, f in enumerate(p):
                    parent = name.split(" [omp region")[0]
                    if f.get("function") == name and f.get("omp_region") is True and \
                            any(g.get("function") == parent for g in p[k + 1:]):
                        ok = True
        if not ok:
            errors.append(f"no access path has the OpenMP region {name!r} (omp_region true) below its parent")
    functions = {f.get("function", "") for v in report["variables"] for p in all_paths(v) for f in p}
    for name in frames:
        if name not in functions:
            errors.append(f"no frame of any path is the function {name!r}")
    for pattern in forbid:
        bad = sorted(v.get("name", "") for v in report["variables"]
                     if v.get("kind") != "stack" and re.search(pattern, v.get("name", "")))
        if bad:
            errors.append(f"variable names matching {pattern!r}: {bad[:5]}")
    for pattern in forbid_frames:
        bad = sorted(f for f in functions if re.search(pattern, f))
        if bad:
            errors.append(f"frame functions matching {pattern!r}: {bad[:5]}")
    if errors:
        raise CheckFailed("\n".join(errors) + f"\nvariables in the report:\n{listing(report)}")


def estimated(var):
    return float(var.get("metrics", {}).get("samples_estimated", samples(var)))


def unattributed(report):
    """[unknown data] and [untracked heap] after the estimates took their share."""
    return sum(estimated(v) for v in report["variables"]
               if v.get("kind") == "unknown" and v.get("name") in ("[unknown data]", "[untracked heap]"))


def malloc_own_reads(report):
    """Samples of [unknown data] and [untracked heap] whose instruction is libc's: what malloc's
    own code read (chunk headers, the top chunk) while the program allocated. No variable's, and
    never an estimate's to claim."""
    return sum(int(a["metrics"]["samples"]) for v in report["variables"]
               if v.get("kind") == "unknown" and v.get("name") in ("[unknown data]", "[untracked heap]")
               for a in v.get("accesses", [])
               if a.get("path") and a["path"][0].get("module", "").rsplit("/", 1)[-1].startswith("libc."))


def shortfall_sd(variables, shortfall):
    """The standard deviation of what the estimates of `variables` (blocks tracked one in k)
    leave unattributed. The variance the report gives is computed from the tracked samples it saw
    (sum of w(w-1)), so it shrinks exactly when the estimate comes out low; under an unbiased
    estimate it is that of the variables' true samples, estimated + shortfall, so it is scaled to
    them (one tracked block in k: the variance grows with the count)."""
    est = sum(estimated(v) for v in variables)
    variance = sum(float(v["metrics"].get("samples_estimated_var", 0)) for v in variables)
    if est > 0:
        variance *= max(1.0, (est + shortfall) / est)
    return variance ** 0.5


NODES = {"label": "list nodes", "kind": "heap", "allocator": "malloc", "site": "make_nodes"}
ARRAY = {"label": "array", "kind": "heap", "allocator": "malloc", "site": "make_array"}


def check_work(report, site, minimum=None, expected=None):
    """The heap variable allocated in `site` has at least `minimum` samples, or with `expected`
    at least tolerance.count_lower_bound(expected) (4 Poisson sd under it)."""
    spec = {"label": site, "kind": "heap", "allocator": "malloc", "site": site}
    var = find(report, spec, True)
    if expected is not None:
        err = tolerance.count_check(site, samples(var), expected)
        if err:
            raise CheckFailed(err + ":\n" + listing(report, 8))
        return
    if samples(var) < minimum:
        raise CheckFailed(f"{site}: {samples(var)} samples, expected at least {minimum}:\n" +
                          listing(report, 8))
    print(f"{site}: {samples(var)} samples")


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
        # The nodes' estimate against the walk's share of the data samples: its spread is the
        # estimate's own (samples_estimated_var, scaled to the expected count as in
        # shortfall_sd) plus the binomial one of the share, and it may fall Z of those standard
        # deviations short; the bar must stay above half of the expected count, or the check
        # could not catch an estimate that loses half of the nodes' samples (then the run is
        # too short: heap_list.sh samples the walk at 2,000/s, about 17% sd at the default
        # 500/s, 9% at 2,000/s).
        est_sd = shortfall_sd([nodes], max(0.0, expected - estimated(nodes)))
        sd = math.sqrt(est_sd ** 2 + (tolerance.binomial_sd(share_list, data) * data) ** 2)
        floor = expected - Z * sd
        print(f"nodes: the walk took {share_list:.3f} of the timed phases: {expected:.0f} of the "
              f"{data:.0f} data samples; the estimate's sd {sd:.0f}: at least {floor:.0f} "
              f"({floor / max(expected, 1):.0%}, {Z:g} sd below) required")
        if data < MIN_SAMPLES:
            errors.append(f"only {data:.0f} data samples (need {MIN_SAMPLES})")
        if floor <= 0.5 * expected:
            errors.append(f"nodes: {Z:g} sd of the estimate ({Z * sd:.0f}) are half of the expected "
                          f"{expected:.0f} or more: too few samples to catch an estimate that loses half")
        elif estimated(nodes) < floor:
            errors.append(f"nodes: estimated {estimated(nodes):.0f} samples, under {floor:.0f} "
                          f"({expected:.0f} expected, {Z:g} sd below)")
        # What the estimate left unattributed is its shortfall, whose spread is the estimate's
        # own: sd = sqrt(samples_estimated_var), about 10% of the data samples here. A fixed 20%
        # bar is 2 sd and failed about one run in 20 (CI: 541 of 2067, the estimate 2 sd low);
        # the bar is Z = 4 sd (tolerance.py), 20% of the data samples when that is more (a
        # stated allowance: reads of the nodes no estimate claims, such as malloc's that the
        # libc rule below misses). Two corrections make it the shortfall alone:
        # - untracked heap that malloc's own code read while make_nodes allocated (its chunk
        #   headers and top chunk, 6-7% of the data samples with every block tracked) is no
        #   node's and was never the estimate's to claim: samples whose instruction is libc's
        #   are left out;
        # - the variance the report gives is computed from the tracked samples it saw
        #   (sum of w(w-1)), so it shrinks exactly when the estimate comes out low; under an
        #   unbiased estimate it is that of the nodes' true samples, estimated + shortfall, and
        #   it is scaled to them (one tracked block in k: the variance grows with the count).
        metadata = malloc_own_reads(report)
        shortfall = max(0.0, unattributed(report) - metadata)
        sd = shortfall_sd([nodes], shortfall)
        bar = max(0.2 * data, Z * sd)
        print(f"nodes: unattributed {unattributed(report):.0f}, of which malloc's own {metadata}: "
              f"shortfall {shortfall:.0f}, bar {bar:.0f} (20% of the data samples or {Z:g} sd of "
              f"the estimate, {sd:.0f})")
        if shortfall > bar:
            errors.append(f"unattributed node data {shortfall:.0f} is over {bar:.0f} "
                          f"(20% of {data:.0f}, or {Z:g} sd of the estimate: {Z * sd:.0f})")
        find(report, ARRAY, required=True)
    elif mode == "churn":
        if totals.get("samples_dropped") != 0:
            errors.append(f"{totals.get('samples_dropped')} samples dropped")
        if not isinstance(totals.get("samples_in_runtime"), int):
            errors.append("totals.samples_in_runtime is missing")
        if not nodes.get("sampled") or estimated(nodes) <= samples(nodes):
            errors.append("nodes: not sampled with estimates above the raw samples")
        # 14 alternating rounds on a busy 2-core VM: median 1.50x, range 1.18-1.75x, the same
        # before and after the 2026-11-23 changes; the bar is above that spread (best of 3).
        native, tool = cpu
        print(f"CPU time: native {native:.2f} s, under the tool {tool:.2f} s ({tool / native:.2f}x, at most 1.8x)")
        if tool > 1.8 * native:
            errors.append(f"CPU time {tool:.2f} s is over 1.8x the native {native:.2f} s")
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

    def split_stack(report):  # half of main's stack array not placed in its frame
        s = next(v for v in report["variables"] if v["kind"] == "stack" and v["name"].startswith("stack_array ("))
        s["metrics"]["samples"] //= 2

    def unexplained_stack(report):  # a 15% [stack] row without the note on who reads it
        report["notes"] = [n for n in report["notes"] if not n.startswith("[stack] holds")]
        share = sum(samples(v) for v in report["variables"]) * 15 // 100
        path = [{"function": "sum_array", "file": "kernel.c", "line": 9, "module": "alloc_apis"}]
        report["variables"].append({"kind": "unknown", "name": "[stack]", "metrics": {"samples": share},
                                    "accesses": [{"path": path, "metrics": {"samples": share}}]})

    def cold_hot(report):
        cold = next(v for v in report["variables"] if "alloc_never_read" in frame_functions(v))
        cold["metrics"]["samples"] = 10 ** 6

    expect_failure("shares shifted by 8 points", shift)
    expect_failure("half of the stack's samples missing", split_stack)
    expect_failure("a hot never-read array", cold_hot)
    expect_failure("a large [stack] row unexplained", unexplained_stack)
    expect_failure("a missing array", lambda r: r["variables"].remove(var(r, "static", "name", "static_array")))
    expect_failure("a wrong allocator", lambda r: var(r, "heap", "allocator", "valloc").update(allocator="malloc"))
    expect_failure("two processes", lambda r: r["totals"].update(processes=2))
    expect_failure("a lost light array", lambda r: var(r, "heap", "allocator", "aligned_alloc")["metrics"].update(samples=1))
    print("selftest: good report passes, 8 broken ones fail")
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
        expect("churn", "1.9x CPU", lambda r: None, cpu=(1.0, 1.9))
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
    p.add_argument("--min-data-fraction", type=float,
                   help="also require this fraction of all samples to carry a data address")
    q = sub.add_parser("same_shares")
    q.add_argument("first")
    q.add_argument("second")
    q.add_argument("--program", required=True, choices=sorted(PROGRAMS))
    q.add_argument("--timing", nargs=2, metavar=("PREFIX1", "PREFIX2"),
                   help="timing prefixes of the two runs: compare distances from the measured shares")
    j = sub.add_parser("store_join")
    j.add_argument("report")
    cs = sub.add_parser("compute_spills")
    cs.add_argument("report")
    cs.add_argument("--timing", required=True)
    h = sub.add_parser("heat2d")
    h.add_argument("report")
    h.add_argument("--processes", type=int)
    n = sub.add_parser("names")
    n.add_argument("report")
    n.add_argument("--source", required=True, help="the program's source, with `site:` comments")
    n.add_argument("--one-per-site", action="store_true", help="each site line names one variable")
    n.add_argument("--wrappers", action="store_true", help="each site is reached through wrappers")
    n.add_argument("--top-distinct", type=int, default=0, help="distinct names among the ten hottest heap variables")
    n.add_argument("--static", action="append", default=[], help="a static variable with this name exists")
    n.add_argument("--omp-region", action="append", default=[], help="an access path has this OpenMP region")
    n.add_argument("--frame", action="append", default=[], help="some path has a frame of this function")
    n.add_argument("--forbid", action="append", default=[], help="no variable name matches this regex")
    n.add_argument("--forbid-frame", action="append", default=[], help="no frame function matches this regex")
    hl = sub.add_parser("heap_list")
    hl.add_argument("report")
    hl.add_argument("--mode", required=True, choices=["walk", "churn", "free"])
    hl.add_argument("--timing", help="walk: prefix of the timing files")
    hl.add_argument("--cpu", nargs=2, type=float, metavar=("NATIVE", "TOOL"),
                    help="churn: CPU seconds of the native run and of the run under the tool")
    t = sub.add_parser("hottest")
    t.add_argument("report")
    c = sub.add_parser("tail_calls")
    c.add_argument("report")
    c.add_argument("--wrapper", required=True)
    c.add_argument("--callers", nargs=2, required=True)
    c.add_argument("--reader")
    u = sub.add_parser("unnamed_sites")
    u.add_argument("report")
    u.add_argument("--module", required=True)
    u.add_argument("--timing")
    d = sub.add_parser("debug_sites")
    d.add_argument("report")
    d.add_argument("--function", required=True)
    d.add_argument("--lines", nargs=2, type=int, required=True)
    s = sub.add_parser("selftest")
    s.add_argument("sample")
    w = sub.add_parser("work")
    w.add_argument("report")
    w.add_argument("--site", required=True)
    wm = w.add_mutually_exclusive_group(required=True)
    wm.add_argument("--min-samples", type=int)
    wm.add_argument("--expected", type=float, help="the samples expected: at least 4 Poisson sd under it")
    args = parser.parse_args()

    try:
        if args.command == "proportions":
            report = load(args.report)
            check_proportions(report, args.program, args.processes, timing=args.timing)
            if args.min_data_fraction is not None:
                check_data_fraction(report, args.min_data_fraction)
        elif args.command == "same_shares":
            check_same_shares(load(args.first), load(args.second), args.program, args.timing)
        elif args.command == "compute_spills":
            check_compute_spills(load(args.report), args.timing)
        elif args.command == "store_join":
            check_store_join(load(args.report))
        elif args.command == "tail_calls":
            check_tail_calls(load(args.report), args.wrapper, args.callers, args.reader)
        elif args.command == "unnamed_sites":
            check_unnamed_sites(load(args.report), args.module, args.timing)
        elif args.command == "debug_sites":
            check_debug_sites(load(args.report), args.function, args.lines)
        elif args.command == "names":
            check_names(load(args.report), args.source, args.one_per_site, args.wrappers, args.top_distinct,
                        args.static, args.omp_region, args.frame, args.forbid, args.forbid_frame)
        elif args.command == "heap_list":
            check_heap_list(load(args.report), args.mode, args.timing, args.cpu)
        elif args.command == "work":
            check_work(load(args.report), args.site, args.min_samples, args.expected)
        elif args.command == "heat2d":
            check_heat2d(load(args.report), args.processes)
        elif args.command == "hottest":
            report = load(args.report)
            if not report["variables"]:
                raise CheckFailed("the report has no variables")
            # The first variable in report order, which must also have the most (estimated) samples: the
            # text report's row 1 is the same variable.
            first = report["variables"][0]
            if estimated(first) != max(estimated(v) for v in report["variables"]):
                raise CheckFailed("the variables are not sorted by (estimated) samples")
            print(first["name"])
        else:
            selftest(args.sample)
    except CheckFailed as e:
        print(f"check_report: FAIL: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
