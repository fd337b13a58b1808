#!/usr/bin/env python3
"""Key figures of one hpcprof-lite JSON data-view report, for comparing case-study runs.

Prints, from `hpcprof-lite report DB --format json --top 0` (standard library only):
  - samples, samples with a data address, and their share;
  - where the data samples went: [unknown data], [stack], [untracked heap] (when the report has
    it), heap, static (module-data rows like `[libfoo.so data]` counted apart), other kinds;
  - the share of samples on MPI/network-library internals (static data of those modules, heap
    blocks they allocated) and how many of the top 20 rows are such internals, and the data
    samples taken in MPI/network code whatever they touched;
  - rows named by a hexadecimal offset (`module+0x...`), variables with 0 samples, and how many
    of the ten hottest heap variables have distinct names (a wrapper such as
    `Memory::smalloc` named for every block gives 1 of 10);
  - the hottest sampled instructions of [unknown data] and [stack] (module + link-time offset,
    ready for `objdump -d --start-address`);
  - with --times FILE (lines "native|tool RUN wall user sys"), medians of wall and CPU time.

Written to tolerate later versions of the report: unknown fields are ignored, kinds other than
heap/static/unknown are counted under their own name, `samples_estimated` and frame flags
(`tail_call`, `wrapper`) are reported when present. --json prints the figures as one JSON object.
"""
import argparse
import json
import re
import statistics
import sys
from collections import Counter, defaultdict

MPI_MODULE = re.compile(r"(libmpi|libopen-(pal|rte)|/openmpi/|mca_|libpsm|libfabric|libucp|libucs|libuct|"
                        r"libpmix|libhwloc|libevent|libibverbs|librdmacm|libmpich)")
HEX_NAME = re.compile(r"\+0x[0-9a-fA-F]+")


def samples_of(v):
    m = v.get("metrics") or {}
    return int(m.get("samples", 0) or 0)


def is_mpi_frame(frame):
    return bool(MPI_MODULE.search(frame.get("module", "") or ""))


def first_program_frame(v):
    """The first frame of the allocation path after the API pseudo-frame (module "")."""
    for f in v.get("allocation_path") or []:
        if f.get("module"):
            return f
    return {}


def is_mpi_variable(v):
    kind = v.get("kind", "")
    if kind == "static" or kind not in ("heap", "unknown"):
        return bool(MPI_MODULE.search(v.get("module", "") or "")) or bool(MPI_MODULE.search(v.get("name", "")))
    if kind == "heap":
        return is_mpi_frame(first_program_frame(v))
    return False


def category(v):
    kind = v.get("kind", "")
    name = v.get("name", "")
    if kind == "unknown" or (name.startswith("[") and name in ("[unknown data]", "[stack]", "[untracked heap]")):
        return name or "[unknown]"
    if kind == "static" and name.startswith("[") and name.endswith(" data]"):
        return "static: module data"
    if kind == "static":
        return "static: symbol"
    return kind or "?"


def leaf_counts(v, limit):
    c = Counter()
    for a in v.get("accesses") or []:
        path = a.get("path") or []
        if not path:
            continue
        f = path[0]
        c[(f.get("module", ""), f.get("offset", -1), f.get("function", ""))] += samples_of(a)
    return c.most_common(limit)


def frame_flags(variables):
    flags = Counter()
    for v in variables:
        frames = list(v.get("allocation_path") or [])
        for a in v.get("accesses") or []:
            frames += a.get("path") or []
        for f in frames:
            for k, val in f.items():
                if isinstance(val, bool) and val:
                    flags[k] += 1
    return flags


def times_summary(path):
    runs = defaultdict(list)
    for line in open(path):
        f = line.split()
        if len(f) < 5:
            continue
        wall, user, sys_ = float(f[2]), float(f[3]), float(f[4])
        runs[f[0]].append((wall, user + sys_))
    out = {}
    for label, rs in runs.items():
        out[label] = {"runs": len(rs), "wall_median": statistics.median(r[0] for r in rs),
                      "cpu_median": statistics.median(r[1] for r in rs),
                      "wall_all": [r[0] for r in rs], "cpu_all": [r[1] for r in rs]}
    if "native" in out and "tool" in out:
        n, t = runs["native"], runs["tool"]
        pairs = list(zip(n, t))
        out["ratio"] = {"wall_median_of_pairs": statistics.median(b[0] / a[0] for a, b in pairs),
                        "cpu_median_of_pairs": statistics.median(b[1] / a[1] for a, b in pairs)}
    return out


def figures(report, top_rows=20, top_heap=10):
    totals = report.get("totals") or {}
    variables = report.get("variables") or []
    total = int(totals.get("samples", 0) or 0)
    data = int(totals.get("data_samples", 0) or 0)
    by_cat = Counter()
    for v in variables:
        by_cat[category(v)] += samples_of(v)
    heap = [v for v in variables if v.get("kind") == "heap"]
    heap_top = heap[:top_heap]
    mpi_samples = sum(samples_of(v) for v in variables if is_mpi_variable(v))
    # Data samples whose sampled instruction is MPI/network code, whatever variable it touched
    # (polling loops on shared-memory segments and on the stack land in [unknown data]/[stack]).
    mpi_code = sum(samples_of(a) for v in variables for a in v.get("accesses") or []
                   if (a.get("path") or [{}])[0] and is_mpi_frame((a.get("path") or [{}])[0]))
    top = variables[:top_rows]
    fig = {
        "samples": total,
        "data_samples": data,
        "data_share": data / total if total else 0.0,
        "samples_dropped": totals.get("samples_dropped"),
        "samples_estimated": totals.get("samples_estimated"),
        "processes": totals.get("processes"), "threads": totals.get("threads"),
        "variables": len(variables),
        "categories_of_data": {k: {"samples": s, "of_data": s / data if data else 0.0,
                                   "of_all": s / total if total else 0.0}
                               for k, s in by_cat.most_common()},
        "mpi_internal_samples": mpi_samples,
        "mpi_internal_of_data": mpi_samples / data if data else 0.0,
        "mpi_code_samples": mpi_code,
        "mpi_code_of_data": mpi_code / data if data else 0.0,
        "mpi_rows_in_top": sum(1 for v in top if is_mpi_variable(v)),
        "hex_named_rows_in_top": sum(1 for v in top if HEX_NAME.search(v.get("name", ""))),
        "hex_hottest_access_in_top": sum(1 for v in top if HEX_NAME.search(v.get("hottest_access", "") or "")),
        "zero_sample_rows": sum(1 for v in variables if samples_of(v) == 0),
        "top_heap": [{"name": v.get("name", ""), "samples": samples_of(v), "bytes": v.get("bytes"),
                      "caller": caller_below_name(v)} for v in heap_top],
        "top_heap_distinct_names": len({v.get("name", "") for v in heap_top}),
        "top_heap_count": len(heap_top),
        "frame_flags": dict(frame_flags(variables)),
        "hot_instructions": {},
    }
    for v in variables:
        if v.get("name") in ("[unknown data]", "[stack]", "[untracked heap]"):
            fig["hot_instructions"][v["name"]] = [
                {"module": m, "offset": o, "function": fn, "samples": s} for (m, o, fn), s in leaf_counts(v, 6)]
    return fig


def frame_label(f):
    """function, else module+0xoffset (stripped binaries), else ""."""
    if f.get("function"):
        return f["function"]
    if f.get("module") and isinstance(f.get("offset"), int):
        return "%s+%s" % (f["module"].rsplit("/", 1)[-1], hex(f["offset"]))
    return ""


def caller_below_name(v):
    """The first allocation-path frame whose label differs from that of the frame the variable is
    named by: what a user needs when every block is named after the same wrapper."""
    path = [f for f in v.get("allocation_path") or [] if f.get("module")]
    if not path:
        return ""
    named = frame_label(path[0])
    for f in path[1:]:
        label = frame_label(f)
        if label and label != named:
            return label
    return ""


def pct(x):
    return "%.1f%%" % (100.0 * x)


def print_text(fig, times):
    if times:
        print("timing (median of %d native / %d measured runs, alternating):" %
              (times.get("native", {}).get("runs", 0), times.get("tool", {}).get("runs", 0)))
        for label in ("native", "tool"):
            t = times.get(label)
            if t:
                print("  %-6s wall %7.2f s  cpu(user+sys) %7.2f s   (walls %s; cpus %s)" % (
                    label, t["wall_median"], t["cpu_median"],
                    " ".join("%.2f" % x for x in t["wall_all"]), " ".join("%.2f" % x for x in t["cpu_all"])))
        r = times.get("ratio")
        if r:
            print("  tool/native (median of per-pair ratios): wall %.3f, cpu %.3f" % (
                r["wall_median_of_pairs"], r["cpu_median_of_pairs"]))
    print("samples %d, with a data address %d (%s); %d variables; %s processes, %s threads" % (
        fig["samples"], fig["data_samples"], pct(fig["data_share"]), fig["variables"],
        fig["processes"], fig["threads"]))
    if fig.get("samples_dropped"):
        print("samples dropped: %s" % fig["samples_dropped"])
    if fig.get("samples_estimated") is not None:
        print("samples estimated: %s" % fig["samples_estimated"])
    print("data samples by category (of data samples / of all samples):")
    for k, c in fig["categories_of_data"].items():
        print("  %-22s %6d  %6s  %6s" % (k, c["samples"], pct(c["of_data"]), pct(c["of_all"])))
    print("MPI/network internals: %d samples on their variables (%s of data samples), %d of the top rows;"
          " %d data samples (%s) taken in MPI/network code" % (
              fig["mpi_internal_samples"], pct(fig["mpi_internal_of_data"]), fig["mpi_rows_in_top"],
              fig["mpi_code_samples"], pct(fig["mpi_code_of_data"])))
    print("hex-named rows in the top: %d (hottest access hex-named: %d); rows with 0 samples: %d" % (
        fig["hex_named_rows_in_top"], fig["hex_hottest_access_in_top"], fig["zero_sample_rows"]))
    print("top %d heap variables: %d distinct names" % (fig["top_heap_count"], fig["top_heap_distinct_names"]))
    for h in fig["top_heap"]:
        print("  %6d  %-70.70s  <- %s" % (h["samples"], h["name"], h["caller"] or "-"))
    if fig["frame_flags"]:
        print("frame flags: " + ", ".join("%s=%d" % kv for kv in sorted(fig["frame_flags"].items())))
    for name, rows in fig["hot_instructions"].items():
        print("hottest sampled instructions of %s (module offset function samples):" % name)
        for r in rows:
            off = r["offset"]
            print("  %-45s %10s  %-50.50s %5d" % (r["module"].rsplit("/", 1)[-1],
                                                  hex(off) if isinstance(off, int) and off >= 0 else "?",
                                                  r["function"] or "-", r["samples"]))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("report", help="JSON data-view report (hpcprof-lite report DB --format json --top 0)")
    ap.add_argument("--times", help="times.tsv written by bench/cases/lib.sh")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = ap.parse_args()
    with open(args.report) as f:
        report = json.load(f)
    if report.get("view", "data") != "data":
        sys.exit("summarize.py: %s is not a data-view report" % args.report)
    fig = figures(report)
    times = times_summary(args.times) if args.times else None
    if args.json:
        fig["times"] = times
        json.dump(fig, sys.stdout, indent=1)
        print()
    else:
        print_text(fig, times)


if __name__ == "__main__":
    main()
