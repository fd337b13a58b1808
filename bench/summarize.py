#!/usr/bin/env python3
"""Turns the raw timings of scripts/bench.sh into the Markdown tables of bench/results/latest.md.

Input: the bench work directory (raw.tsv, Google Benchmark JSON files, a few size files) and the
number of pairs. Ratios are medians of per-pair ratios (each tool run divided by the native run
of the same pair), so slow drifts of the machine's load cancel out; the spread is the min-max of
those ratios.
"""
import json
import os
import platform
import statistics
import sys
from collections import defaultdict

work, pairs = sys.argv[1], sys.argv[2]


def load_raw():
    # (part, workload) -> config -> {pair: (wall seconds, max rss kib, samples, cpu seconds)}
    rows = defaultdict(dict)
    path = os.path.join(work, "raw.tsv")
    if not os.path.exists(path):
        return rows
    for line in open(path):
        f = line.rstrip("\n").split("\t")
        part, wl, cfg, pair, sec, rss, samples = f[:7]
        cpu = float(f[7]) if len(f) > 7 and f[7] else float("nan")
        rows[(part, wl)].setdefault(cfg, {})[pair] = (float(sec), int(rss or 0), int(samples or 0), cpu)
    return rows


def med(xs):
    return statistics.median(xs) if xs else float("nan")


def ratios(runs, cfg, base="native", field=0):
    """Per-pair ratios of cfg to base; field 0 = wall time, 3 = CPU time (user + system)."""
    out = []
    for pair, v in runs.get(cfg, {}).items():
        if pair in runs.get(base, {}) and runs[base][pair][field] > 0:
            out.append(v[field] / runs[base][pair][field])
    return out


def fmt_ratio(rs):
    if not rs:
        return "n/a"
    return f"{med(rs):.3f}x ({min(rs):.2f}-{max(rs):.2f})"


def mib(kib):
    return f"{kib / 1024:.0f}"


raw = load_raw()
out = []
p = out.append
p("# hpcrun-lite benchmark results")
p("")
load = open("/proc/loadavg").read().split()[:3]
# bench/machine.sh's line (the CPU model, the hypervisor, the build), written by scripts/bench.sh.
machine_path = os.path.join(work, "machine.txt")
if os.path.exists(machine_path):
    machine = open(machine_path).read().strip()
else:
    machine = f"machine: {os.cpu_count()} CPUs, {platform.system()} {platform.release()}"
p(f"{machine[:1].upper()}{machine[1:]}. Load average at the end {' '.join(load)}. "
  f"Pairs per workload: {pairs}. Ratios: median of per-pair ratios (min-max).")
p("")

# ---- workloads ----
wls = [k for k in raw if k[0] == "wl"]
if wls:
    p("## Workloads: run time relative to native (default settings: soft@500, min-bytes 4096, small-every auto)")
    p("")
    p("Wall = elapsed time; CPU = user + system time of all threads (less sensitive to other processes on a "
      "shared machine). Each cell: median ratio (min-max over the pairs).")
    p("")
    p("| workload | native wall s / CPU s | hpcrun-lite wall | hpcrun-lite CPU | perf record wall | perf record CPU | heaptrack wall | max RSS native / tool MiB | samples/run |")
    p("|---|---|---|---|---|---|---|---|---|")
    for key in [("wl", w) for w in ["stream", "stencil", "pointer_chase", "alloc_heavy", "alloc_heavy_1cpu",
                                     "list_walk", "list_churn", "halo_mpi"]]:
        if key not in raw:
            continue
        runs = raw[key]
        nat = [v[0] for v in runs.get("native", {}).values()]
        nat_cpu = [v[3] for v in runs.get("native", {}).values()]
        rss_n = med([v[1] for v in runs.get("native", {}).values()])
        rss_t = med([v[1] for v in runs.get("hpcrun-lite", {}).values()])
        samples = med([v[2] for v in runs.get("hpcrun-lite", {}).values()])
        p(f"| {key[1]} | {med(nat):.2f} / {med(nat_cpu):.2f} | {fmt_ratio(ratios(runs, 'hpcrun-lite'))} | "
          f"{fmt_ratio(ratios(runs, 'hpcrun-lite', field=3))} | "
          f"{fmt_ratio(ratios(runs, 'perf'))} | {fmt_ratio(ratios(runs, 'perf', field=3))} | "
          f"{fmt_ratio(ratios(runs, 'heaptrack'))} | {mib(rss_n)} / {mib(rss_t)} | {samples:.0f} |")
    p("")
    for heavy in ["alloc_heavy", "list_churn"]:
      ah = raw.get(("wl", heavy), {})
      if "heaptrack" in ah:
        for field, what in [(0, "wall"), (3, "CPU")]:
            added_tool, added_ht = [], []
            for pair, v in ah["heaptrack"].items():
                if pair in ah.get("native", {}) and pair in ah.get("hpcrun-lite", {}):
                    added_tool.append(ah["hpcrun-lite"][pair][field] - ah["native"][pair][field])
                    added_ht.append(v[field] - ah["native"][pair][field])
            if added_tool:
                a, h = med(added_tool), med(added_ht)
                p(f"- {heavy} added {what} time: hpcrun-lite {a:.2f} s, heaptrack {h:.2f} s per run: heaptrack "
                  f"adds {h / a if a > 0 else float('inf'):.1f}x more (pairs with a heaptrack run: {len(added_ht)}).")
        p("")
    # Per-sample cost seen in the real runs: (tool - native) / samples.
    p("Added CPU time per sample in the real runs ((tool - native CPU time) / samples), kernels with few "
      "allocations, so nearly all of the difference is sampling (signal delivery + handler) plus start-up "
      "and the profile write:")
    p("")
    for w in ["stream", "stencil", "pointer_chase", "halo_mpi"]:
        runs = raw.get(("wl", w), {})
        per = []
        for pair, v in runs.get("hpcrun-lite", {}).items():
            if pair in runs.get("native", {}) and v[2] > 0:
                per.append((v[3] - runs["native"][pair][3]) / v[2] * 1e6)
        if per:
            p(f"- {w}: {med(per):.1f} us per sample (min {min(per):.1f}, max {max(per):.1f})")
    p("")

# ---- rate sweep ----
if ("rate", "stream") in raw:
    runs = raw[("rate", "stream")]
    p("## Sampling rate vs overhead (streaming kernel)")
    p("")
    p("| rate (samples/s per thread) | wall vs native | CPU vs native | samples per run | added CPU us per sample |")
    p("|---|---|---|---|---|")
    for r in ["250", "500", "1000", "2000"]:
        cfg = f"soft@{r}"
        if cfg not in runs:
            continue
        s = med([v[2] for v in runs[cfg].values()])
        per = []
        for pair, v in runs[cfg].items():
            if pair in runs.get("native", {}) and v[2] > 0:
                per.append((v[3] - runs["native"][pair][3]) / v[2] * 1e6)
        p(f"| {r} | {fmt_ratio(ratios(runs, cfg))} | {fmt_ratio(ratios(runs, cfg, field=3))} | {s:.0f} | {med(per):.1f} |")
    p("")


# ---- micro-benchmarks ----
def gbench(name):
    path = os.path.join(work, name)
    if not os.path.exists(path):
        return {}
    data = json.load(open(path))
    res = {}
    for b in data.get("benchmarks", []):
        # Medians of repetitions; a benchmark run once (the cold decode pass) has no aggregate.
        if b.get("aggregate_name") != "median" and not (b.get("run_type") == "iteration" and
                                                        b.get("repetitions", 1) == 1):
            continue
        n = b["run_name"]
        scale = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}[b.get("time_unit", "ns")]
        # CPU time, except for manually timed benchmarks: on a shared machine the wall time of a
        # nanosecond loop includes other processes' time slices.
        manual = "manual_time" in b["name"]
        res[n] = dict(b, real_ns=(b["real_time"] if manual else b["cpu_time"]) * scale)
    return res


nat, tool, nosmall = gbench("bm_alloc.native.json"), gbench("bm_alloc.tool.json"), gbench("bm_alloc.nosmall.json")
if nat:
    p("## Micro-benchmarks: allocation wrappers through the preloaded runtime (CPU ns, median of 5 repetitions)")
    p("")
    p("| benchmark | native ns | preloaded ns (default) | ratio | added ns | preloaded, small-every 0 | ratio |")
    p("|---|---|---|---|---|---|---|")
    for n, b in nat.items():
        t = tool.get(n, {}).get("real_ns", float("nan"))
        z = nosmall.get(n, {}).get("real_ns", float("nan"))
        p(f"| {n} | {b['real_ns']:.1f} | {t:.1f} | {t / b['real_ns']:.2f}x | {t - b['real_ns']:.1f} | "
          f"{z:.1f} | {z / b['real_ns']:.2f}x |")
    p("")

for fname, title in [("bm_runtime.json", "runtime internals (hpcrun_rt_core, no preloading)"),
                     ("bm_analyzer.json", "analyzer internals (synthetic profiles)")]:
    res = gbench(fname)
    if not res:
        continue
    p(f"## Micro-benchmarks: {title}")
    p("")
    p("| benchmark | median (CPU time; manual_time: the handler's own clock) | counters |")
    p("|---|---|---|")
    skip = {"name", "run_name", "run_type", "repetitions", "repetition_index", "threads", "iterations",
            "real_time", "cpu_time", "time_unit", "aggregate_name", "real_ns", "family_index",
            "per_family_instance_index", "aggregate_unit", "label"}
    for n, b in res.items():
        ns = b["real_ns"]
        t = f"{ns:.1f} ns" if ns < 1e4 else f"{ns / 1e3:.1f} us" if ns < 1e7 else f"{ns / 1e6:.1f} ms"
        counters = ", ".join(f"{k}={v:.4g}" for k, v in b.items() if k not in skip and isinstance(v, (int, float)))
        label = f" ({b['label']})" if b.get("label") else ""
        p(f"| {n}{label} | {t} | {counters} |")
    p("")

# ---- analyzer ----
merge = {k[1]: v for k, v in raw.items() if k[0] == "merge"}
if merge:
    gen = open(os.path.join(work, "gen.txt")).read().strip() if os.path.exists(os.path.join(work, "gen.txt")) else ""
    p("## hpcprof-lite merge of synthetic process profiles (median of 3; wall s, max RSS MiB)")
    p("")
    if gen:
        p(f"Input: {gen}.")
        p("")
    p("| profiles | -j1 wall s (CPU s) | -j2 wall s (CPU s) | speed-up | max RSS -j1 MiB | max RSS -j2 MiB |")
    p("|---|---|---|---|---|---|")
    t = {}
    for n in ["256", "512", "1024"]:
        if n not in merge:
            continue
        j1 = med([v[0] for v in merge[n].get("j1", {}).values()])
        j2 = med([v[0] for v in merge[n].get("j2", {}).values()])
        c1 = med([v[3] for v in merge[n].get("j1", {}).values()])
        c2 = med([v[3] for v in merge[n].get("j2", {}).values()])
        r1 = med([v[1] for v in merge[n].get("j1", {}).values()])
        r2 = med([v[1] for v in merge[n].get("j2", {}).values()])
        t[n] = (j1, j2, r1, r2)
        p(f"| {n} | {j1:.2f} ({c1:.2f}) | {j2:.2f} ({c2:.2f}) | {j1 / j2:.2f}x | {mib(r1)} | {mib(r2)} |")
    p("")
    if "256" in t and "512" in t and "1024" in t:
        p(f"Scaling (-j1): 512/256 = {t['512'][0] / t['256'][0]:.2f}x, 1024/512 = {t['1024'][0] / t['512'][0]:.2f}x "
          f"time; max RSS 1024/256 = {t['1024'][2] / t['256'][2]:.2f}x.")
        p("")
rep = {k[1]: v for k, v in raw.items() if k[0] == "report"}
if rep:
    db = open(os.path.join(work, "db1024.bytes")).read().strip() if os.path.exists(os.path.join(work, "db1024.bytes")) else "?"
    p(f"Report generation on the 1024-profile database ({db} bytes), median of 3:")
    p("")
    for cfg, runs in rep["1024"].items():
        p(f"- `report` {cfg}: {med([v[0] for v in runs.values()]):.2f} s, max RSS {mib(med([v[1] for v in runs.values()]))} MiB")
    p("")

print("\n".join(out))
