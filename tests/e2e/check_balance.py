#!/usr/bin/env python3
"""Checks the per-rank balance of mpi_imbalance (tests/programs/mpi_imbalance.c) in hpcprof-lite's
JSON report: `skewed` is read twice as often on rank 1 as on rank 0, `wide` 5:4.

  check_balance.py REPORT SORTED --timing PREFIX

REPORT is the data view (--format json --top 0), SORTED the same with --sort imbalance. PREFIX.<pid>
are the timing files of the two ranks (workload.h); a rank is told by its `skewed` weight (1 on
rank 0, 2 on rank 1). What is checked:

- skewed: ranks.count 2, ranks.max_rank 1, ranks.imbalance within Z sigma + 0.02 of the measured
  truth (max / mean of the two ranks' kernel time on it), and within Z sigma + 0.07 of 4/3
  (Z = 4, tolerance.py: a false failure at most once in 10,000 runs). sigma is the binomial
  spread of the rank-1 fraction of its N samples: imbalance = 2 n1 / N, so sigma =
  2 sqrt(p (1 - p) / N) with p the measured rank-1 fraction of its time. The 0.02 covers what
  the kernel's clock does not see (the fill, the samples landing just after a call); the 0.07 a
  rank's calls costing up to 15% more than the other's (10% measured on these VMs), which moves
  the truth away from 4/3.
- wide: max_rank 0, imbalance below skewed's.
- the merged shares of the two among themselves within the tolerance of their sample count
  (tolerance.share_check: Z binomial sd + the clocks' stated allowance) of the measured time
  shares, and of the weights (wide 3/4, skewed 1/4) within that plus 0.02: one array's calls
  costing up to 10% more than the other's (above) move a share of 1/4 by up to 0.1 x 1/4 x 3/4.
- SORTED lists skewed first.

Python 3 standard library only. Exit status: 0 pass, 1 fail, 2 usage or unreadable report.
"""

import argparse
import glob
import re
import sys

from check_report import CheckFailed, find, load, samples
from tolerance import Z, binomial_sd, share_check, systematic_allowance

TIMING = re.compile(r"timing: (?P<label>\S+)\s+weight\s+(?P<weight>\d+)\s+[\d.]+ us/call\s+(?P<seconds>[\d.]+) s total")
SKEWED = {"label": "skewed", "kind": "heap", "allocator": "malloc", "site": "alloc_skewed"}
WIDE = {"label": "wide", "kind": "heap", "allocator": "malloc", "site": "alloc_wide"}


def rank_times(prefix):
    """{rank: {label: seconds}} from the two ranks' timing files."""
    out = {}
    for path in sorted(glob.glob(glob.escape(prefix) + ".*")):
        with open(path, encoding="utf-8") as f:
            rows = {m["label"]: (int(m["weight"]), float(m["seconds"]))
                    for m in map(TIMING.match, f) if m}
        if set(rows) != {"wide", "skewed"}:
            raise CheckFailed(f"{path}: timing lines {sorted(rows)}, expected wide and skewed")
        rank = rows["skewed"][0] - 1
        out[rank] = {label: seconds for label, (_, seconds) in rows.items()}
    if sorted(out) != [0, 1]:
        raise CheckFailed(f"{prefix}.*: timing of ranks {sorted(out)}, expected 0 and 1")
    return out


def check(report, by_imbalance, times):
    errors = []
    skewed, wide = find(report, SKEWED, True), find(report, WIDE, True)
    for var in (skewed, wide):
        if "ranks" not in var or "threads" not in var:
            raise CheckFailed(f"{var.get('name')}: no ranks/threads fields")
    r, w = skewed["ranks"], wide["ranks"]
    t0, t1 = times[0]["skewed"], times[1]["skewed"]
    truth = max(t0, t1) / ((t0 + t1) / 2)
    n = samples(skewed)
    p = t1 / (t0 + t1)
    sigma = 2 * binomial_sd(p, n)
    print(f"skewed: {n} samples, ranks {r}")
    print(f"  imbalance {r['imbalance']:.4f}; measured truth {truth:.4f}, 4/3 = {4 / 3:.4f}, sigma {sigma:.4f}")
    print(f"wide: ranks {w}")
    if r["count"] != 2:
        errors.append(f"skewed: ranks.count {r['count']}, expected 2")
    if r["max_rank"] != 1:
        errors.append(f"skewed: ranks.max_rank {r['max_rank']}, expected 1")
    print(f"  allowed: {Z * sigma + 0.02:.4f} from the measured truth, {Z * sigma + 0.07:.4f} from 4/3")
    if abs(r["imbalance"] - truth) > Z * sigma + 0.02:
        errors.append(f"skewed: imbalance {r['imbalance']:.4f}, measured {truth:.4f} (allowed {Z * sigma + 0.02:.4f})")
    if abs(r["imbalance"] - 4 / 3) > Z * sigma + 0.07:
        errors.append(f"skewed: imbalance {r['imbalance']:.4f} is not 4/3 (allowed {Z * sigma + 0.07:.4f})")
    if skewed["threads"]["count"] < 4:
        errors.append(f"skewed: threads.count {skewed['threads']['count']}, expected at least 2 x 2")
    if w["max_rank"] != 0 or w["imbalance"] >= r["imbalance"]:
        errors.append(f"wide: max_rank {w['max_rank']}, imbalance {w['imbalance']} (expected rank 0, below skewed)")

    known = samples(skewed) + samples(wide)
    seconds = {label: times[0][label] + times[1][label] for label in ("wide", "skewed")}
    total = sum(seconds.values())
    for label, var, weight in (("wide", wide, 0.75), ("skewed", skewed, 0.25)):
        measured = seconds[label] / total
        for truth_name, truth_share, extra in (("measured", measured, 0.0), ("weights", weight, 0.02)):
            err = share_check(f"{label} ({truth_name})", samples(var), known, truth_share,
                              systematic=systematic_allowance(truth_share) + extra, width=18)
            if err:
                errors.append(err)

    first = by_imbalance["variables"][0]
    print(f"--sort imbalance: first {first.get('name')!r}")
    if first.get("name") != skewed.get("name"):
        errors.append(f"--sort imbalance lists {first.get('name')!r} first, not {skewed.get('name')!r}")
    if errors:
        raise CheckFailed("\n".join(errors))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("report")
    parser.add_argument("sorted")
    parser.add_argument("--timing", required=True)
    args = parser.parse_args()
    try:
        check(load(args.report), load(args.sorted), rank_times(args.timing))
    except CheckFailed as e:
        print(f"FAIL: {e}", file=sys.stderr)
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
