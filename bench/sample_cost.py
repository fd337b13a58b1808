#!/usr/bin/env python3
"""Summarises bench/sample_cost.sh's raw lines (threads rate config round cpu_s samples) into a
Markdown table: per configuration, the median extra CPU per sample (us) and the median overhead
(CPU / native - 1), per thread count and rate; then the cost of each stage (difference of
successive medians). See sample_cost.sh for the configurations."""
import statistics
import sys
from collections import defaultdict

ORDER = ["bare-timer", "bare-signal", "bare-syscalls", "rt-entry", "rt-decode", "rt-classify",
         "rt-unwind", "rt-full"]
WHAT = {
    "bare-timer": "timer only (event overflows, no signal)",
    "bare-signal": "+ signal, empty handler",
    "bare-syscalls": "+ the handler's 2 system calls",
    "rt-entry": "runtime handler, no record_sample",
    "rt-decode": "+ decoder",
    "rt-classify": "+ classification",
    "rt-unwind": "+ unwinding",
    "rt-full": "+ tree (the real runtime)",
    "bare-ring": "timer + ring record with the user registers, no signal",
    "bare-ringstack": "ring record + a copy of the user stack, no signal",
}
# The signal-free configurations: in the main table after the others, and in the stage table
# as differences from the timer alone and from each other.
RING = ["bare-ring", "bare-ringstack"]


def main(path):
    cpu = {}
    samples = {}
    for line in open(path):
        t, r, cfg, p, c, s = line.split("\t")
        key = (int(t), int(r), cfg, int(p))
        cpu[key] = float(c)
        samples[key] = int(s)
    threads = sorted({k[0] for k in cpu})
    rates = sorted({k[1] for k in cpu if k[1] > 0})
    per_sample = defaultdict(list)  # (t, r, cfg) -> us per sample, per round
    overhead = defaultdict(list)
    counts = defaultdict(list)
    for (t, r, cfg, p), c in cpu.items():
        if r == 0 or cfg == "native":
            continue
        native = cpu.get((t, r, "native", p))
        if native is None:
            continue
        extra = c - native
        if cfg.startswith("rt-"):
            idle, idle_native = cpu.get((t, 0, "rt-idle", p)), cpu.get((t, 0, "native", p))
            if idle is not None and idle_native is not None:
                extra -= idle - idle_native
        # The timer mode delivers nothing to count: its overflows are about CPU s x rate.
        n = native * r if cfg == "bare-timer" else samples[(t, r, cfg, p)]
        per_sample[(t, r, cfg)].append(extra / n * 1e6 if n else float("nan"))
        overhead[(t, r, cfg)].append(c / native - 1)
        counts[(t, r, cfg)].append(n)
    rounds = max((len(v) for v in per_sample.values()), default=0)
    natives = {t: statistics.median(c for (tt, r, cfg, p), c in cpu.items() if tt == t and cfg == "native")
               for t in threads}
    idle = {}
    for t in threads:
        d = [cpu[(t, 0, "rt-idle", p)] - cpu[(t, 0, "native", p)]
             for (tt, r, cfg, p) in cpu if tt == t and cfg == "rt-idle" and (t, 0, "native", p) in cpu]
        idle[t] = statistics.median(d) if d else float("nan")
    print(f"Extra CPU per sample, us (median of {rounds} rounds), and [overhead = CPU / native - 1]")
    print()
    for t in threads:
        print(f"**{t} thread{'s' if t > 1 else ''}** (native CPU {natives[t]:.2f} s; "
              f"runtime's fixed cost, rt-idle: {idle[t] * 1000:+.0f} ms, subtracted from rt-*)")
        print()
        print("| configuration | " + " | ".join(f"{r}/s" for r in rates) + " |")
        print("|---|" + "---|" * len(rates))
        for cfg in ORDER + [c for c in RING if any(k[2] == c for k in per_sample)]:
            cells = []
            for r in rates:
                v = per_sample.get((t, r, cfg))
                if not v:
                    cells.append("")
                    continue
                cells.append(f"{statistics.median(v):.1f} [{statistics.median(overhead[(t, r, cfg)]) * 100:+.1f}%]")
            print(f"| {cfg}: {WHAT[cfg]} | " + " | ".join(cells) + " |")
        cells = [f"{statistics.median(counts[(t, r, 'rt-full')]):.0f}" if counts.get((t, r, "rt-full")) else ""
                 for r in rates]
        print("| samples (rt-full) | " + " | ".join(cells) + " |")
        print()
        print("Stage costs, us per sample (difference of the medians above):")
        print()
        print("| stage | " + " | ".join(f"{r}/s" for r in rates) + " |")
        print("|---|" + "---|" * len(rates))
        for a, b in list(zip(ORDER, ORDER[1:])) + [("bare-timer", "bare-ring"), ("bare-ring", "bare-ringstack")]:
            cells = []
            for r in rates:
                va, vb = per_sample.get((t, r, a)), per_sample.get((t, r, b))
                cells.append(f"{statistics.median(vb) - statistics.median(va):+.1f}" if va and vb else "")
            if any(cells):
                print(f"| {WHAT[b]} | " + " | ".join(cells) + " |")
        print()


if __name__ == "__main__":
    main(sys.argv[1])
