#!/usr/bin/env python3
"""Checks the access patterns, fields and advice of an hpcprof-lite JSON report (data view) of
tests/programs/access_patterns.c or access_patterns.f90, whose answers are known from their code:

  rows    summed in storage order                       -> sequential
  cols    summed along the other index                  -> strided, stride = the pitch (8 x 2048
                                                           bytes), line_use at most 1/8; advice
                                                           storage_order
  recs    64-byte records, two 8-byte fields read        -> strided 64; the two fields named and
                                                           holding 90% of its samples; element 64
                                                           bytes; advice split_structure
  values  read through a shuffled index                 -> indirect; advice sort_index
  index   summed in order by a loop of its own          -> sequential; in the gather, whatever
                                                           samples it takes are sequential too
  list    48-byte nodes walked by pointer                -> dependent; advice contiguous_allocation

A variable's pattern is judged on the accesses whose leaf is its kernel (the program's set-up,
a shuffle among others, reads some of them otherwise): at least 90% of those samples must carry
the expected pattern. Each variable needs MIN_SAMPLES samples (default 30) for a verdict. Read in
order beside the gather's misses, the index takes few samples there (0-4 of tens at 1,000/s, and
1 at 4,000/s in a run beside other tests), too few for a verdict of their own: its verdict comes
from its own loop, and the gather's samples of it, a pattern that the code gives each instruction
whatever its count, must agree when there are any.

With --heat2d bad|fixed, the bundled example instead (examples/heat2d.c, as the README tells it):
the field's accesses from column_means_bad are strided with the field's row pitch (2048 doubles:
16384 bytes) and line_use at most 1/8, with the storage_order advice; from column_means_fixed
(heat2d --fixed) sequential, and no such advice.

Usage: check_patterns.py REPORT (--lang c|fortran | --heat2d bad|fixed) [--min-samples N]
Python 3 standard library only. Exit status: 0 pass, 1 fail, 2 usage or unreadable report.
"""

import argparse
import json
import sys

PITCH = 8 * 2048

# Each variable: how to find it, the function whose accesses show its pattern, what they must be.
SPECS = {
    "c": [
        {"label": "rows", "kind": "heap", "site": "alloc_rows", "kernel": "sum_rows", "pattern": "sequential"},
        {"label": "cols", "kind": "static", "name": "cols", "kernel": "sum_columns", "pattern": "strided",
         "stride": PITCH, "max_line_use": 0.125, "advice": "storage_order"},
        {"label": "recs", "kind": "heap", "site": "alloc_recs", "kernel": "decay_records", "pattern": "strided",
         "stride": 64, "fields": ["x", "y"], "element_size": 64, "advice": "split_structure"},
        {"label": "values", "kind": "heap", "site": "alloc_values", "kernel": "gather", "pattern": "indirect",
         "advice": "sort_index"},
        {"label": "index", "kind": "heap", "site": "alloc_index", "kernel": "sum_index", "pattern": "sequential",
         "also_in": "gather"},
        {"label": "list", "kind": "heap", "site": "alloc_node", "kernel": "walk", "pattern": "dependent",
         "advice": "contiguous_allocation"},
    ],
    "fortran": [
        {"label": "rows", "kind": "static", "name": "patterns::rows", "kernel": "patterns::sum_storage_order",
         "pattern": "sequential"},
        {"label": "cols", "kind": "static", "name": "patterns::cols", "kernel": "patterns::sum_across",
         "pattern": "strided", "stride": PITCH, "max_line_use": 0.125, "advice": "storage_order"},
        {"label": "recs", "kind": "static", "name": "patterns::recs", "kernel": "patterns::decay_records",
         "pattern": "strided", "stride": 64, "fields": ["x", "y"], "element_size": 64,
         "advice": "split_structure"},
        {"label": "values", "kind": "static", "name": "patterns::vals", "kernel": "patterns::gather",
         "pattern": "indirect", "advice": "sort_index"},
        {"label": "index", "kind": "static", "name": "patterns::idx", "kernel": "patterns::sum_index",
         "pattern": "sequential", "also_in": "patterns::gather"},
        {"label": "list", "kind": "heap", "site": "patterns::build_list", "allocator": "malloc",
         "kernel": "patterns::walk", "pattern": "dependent", "advice": "contiguous_allocation"},
    ],
}


def find(report, spec):
    found = []
    for v in report["variables"]:
        if v["kind"] != spec["kind"]:
            continue
        if spec["kind"] == "static" and v["name"] == spec["name"]:
            found.append(v)
        if spec["kind"] == "heap" and (" in " + spec["site"] + " (") in v.get("allocation_site", "") and \
                v.get("allocator") == spec.get("allocator", v.get("allocator")):
            found.append(v)
    return found


def accesses_in(v, kernel):
    return [a for a in v["accesses"] if a["path"] and a["path"][0]["function"] == kernel]


def samples_in(v, kernel):
    return sum(a["metrics"]["samples"] for a in accesses_in(v, kernel))


def check_pattern(v, spec, kernel, errors):
    """At least 90% of the variable's samples whose leaf is KERNEL carry the expected pattern."""
    def expected(p):
        if p["kind"] != spec["pattern"]:
            return False
        if "stride" in spec and p["stride_bytes"] != spec["stride"]:
            return False
        if "max_line_use" in spec and (p["line_use"] is None or p["line_use"] > spec["max_line_use"]):
            return False
        return True

    accesses = accesses_in(v, kernel)
    ksamples = sum(a["metrics"]["samples"] for a in accesses)
    right = sum(a["metrics"]["samples"] for a in accesses if expected(a["pattern"]))
    if right < 0.9 * ksamples:
        seen = sorted({json.dumps(a["pattern"], sort_keys=True) for a in accesses})
        errors.append(f"{spec['label']}: {right} of {ksamples} samples in {kernel} are {spec['pattern']}"
                      f" {spec.get('stride', '')}; the patterns: {'; '.join(seen)}")


def check_variable(v, spec, min_samples, errors):
    label = spec["label"]
    total = v["metrics"]["samples"]
    if total < min_samples:
        errors.append(f"{label}: {total} samples, fewer than {min_samples}: no verdict")
        return
    ksamples = samples_in(v, spec["kernel"])
    if ksamples < max(min_samples // 2, 1):
        errors.append(f"{label}: {ksamples} samples in {spec['kernel']} of {total}")
        return
    check_pattern(v, spec, spec["kernel"], errors)
    if "also_in" in spec:
        check_pattern(v, spec, spec["also_in"], errors)
    if "fields" in spec:
        fields = {f["name"]: f for f in v["fields"]}
        missing = [n for n in spec["fields"] if n not in fields]
        held = sum(fields[n]["samples"] for n in spec["fields"] if n in fields)
        if missing:
            errors.append(f"{label}: fields {missing} not named; fields: {v['fields']}, {v.get('fields_note', '')}")
        elif held < 0.9 * total:
            errors.append(f"{label}: fields {spec['fields']} hold {held} of {total} samples")
        if v.get("element_size") != spec["element_size"]:
            errors.append(f"{label}: element_size {v.get('element_size')}, expected {spec['element_size']}")
    if "advice" in spec and spec["advice"] not in [a["kind"] for a in v["advice"]]:
        errors.append(f"{label}: no {spec['advice']} advice; advice: {v['advice']}")
    if "no_advice" in spec and spec["no_advice"] in [a["kind"] for a in v["advice"]]:
        errors.append(f"{label}: {spec['no_advice']} advice given: {v['advice']}")


def check_constants(report, kernels, errors):
    """The compilers' literal pools are no variable: the program's kernels read constants of
    .rodata (gfortran's record loop multiplies by 0.5d0 from memory), and the samples after such
    a load are computation's, so a module's data row (`[exe data]`) takes at most 1% of the
    samples in them (63% of the record loop's samples went there before the decoder knew
    read-only data)."""
    rows = [v for v in report["variables"] if v["name"].endswith(" data]") and v["kind"] == "static"]
    held = sum(a["metrics"]["samples"] for v in rows for a in v["accesses"]
               if a["path"] and a["path"][0]["function"] in kernels)
    total = report["totals"]["samples"]
    if held > 0.01 * total:
        names = sorted({v["name"] for v in rows})
        errors.append(f"module data rows {names} hold {held} samples of the kernels (of {total})")


HEAT2D = {
    "bad": {"label": "field", "kind": "heap", "site": "alloc_field", "kernel": "column_means_bad [omp region 0]",
            "pattern": "strided", "stride": PITCH, "max_line_use": 0.125, "advice": "storage_order"},
    "fixed": {"label": "field", "kind": "heap", "site": "alloc_field", "kernel": "column_means_fixed [omp region 0]",
              "pattern": "sequential", "no_advice": "storage_order"},
}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("report")
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--lang", choices=sorted(SPECS))
    mode.add_argument("--heat2d", choices=sorted(HEAT2D))
    parser.add_argument("--min-samples", type=int, default=30)
    args = parser.parse_args()
    try:
        with open(args.report) as f:
            report = json.load(f)
    except (OSError, ValueError) as e:
        print(f"cannot read {args.report}: {e}", file=sys.stderr)
        return 2
    errors = []
    for spec in SPECS[args.lang] if args.lang else [HEAT2D[args.heat2d]]:
        found = find(report, spec)
        if len(found) != 1:
            names = [v["name"] for v in report["variables"][:20]]
            errors.append(f"{spec['label']}: {len(found)} variables match, expected 1; variables: {names}")
            continue
        check_variable(found[0], spec, args.min_samples, errors)
    if args.lang:
        check_constants(report, {spec["kernel"] for spec in SPECS[args.lang]}, errors)
    for e in errors:
        print("FAIL: " + e, file=sys.stderr)
    if not errors:
        print(f"access patterns, fields and advice as the {args.lang or 'heat2d ' + args.heat2d} code says")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
