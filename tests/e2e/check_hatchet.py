#!/usr/bin/env python3
"""Checks `hpcprof-lite report --format hatchet` against what Hatchet's JSON reader needs and
against the JSON report of the same database.

  check_hatchet.py HATCHET REPORT [--ranks N] [--timing PREFIX]

The schema, from Hatchet's reader (hatchet/readers/json_reader.py, GraphFrame.from_json):
- top level: "graph" (a list of objects), "dataframe" (a list of records), "dataframe_indices",
  "exclusive_metrics" and "inclusive_metrics" (lists of column names);
- a graph object maps a node id (a decimal string) to {"data": {...}, "children": [ids]}: the
  reader makes a Node of each "data" (a Frame, so "name" and "type" strings here), connects each
  child id (looked up as a string in the same object) and takes the nodes without a parent as the
  roots;
- the records become a pandas DataFrame whose "node" column is mapped to those Nodes, indexed by
  "dataframe_indices".
Then what Hatchet's operations assume: (node, rank) unique, a row for every node and rank (the
console renderer looks rows up by (node, rank), drop_index_levels averages the rows it has), every
metric column present and numeric, each inclusive value the node's exclusive one plus its
children's inclusive ones, rank by rank, and one parent per node.

Against the report (--format json --top 0 of the same database): the roots are its rows with
samples (groups, variables) and "[no data]"; a root's inclusive samples, summed over the ranks,
are the row's samples; the rows add up to totals.samples. With --ranks N the dataframe is indexed
by node and rank over ranks 0..N-1, and for every variable with a BALANCE summary and no estimated
samples, the largest rank's share and that rank are the report's ranks.max and ranks.max_rank.

With --timing PREFIX (mpi_imbalance's timing files, as check_balance.py reads them): rank 1's
fraction of `skewed`'s samples is the fraction of its kernel time measured on rank 1 within Z = 4
binomial sigmas of its sample count (tolerance.py), plus 0.02 for what the kernel's clock does
not see.

pandas is required (Debian's python3-pandas, which scripts/install-deps.sh installs): the
dataframe is built and indexed as the reader builds it. Exit status: 0 pass, 1 fail, 2 usage.
"""

import argparse
import json
import sys

from check_balance import rank_times
from check_report import CheckFailed, load, samples
from tolerance import binomial_tolerance


def read_graph(doc):
    """{id: (data, children)} over every graph object, and the roots, as the reader links them."""
    for key in ("graph", "dataframe", "dataframe_indices", "exclusive_metrics", "inclusive_metrics"):
        if key not in doc:
            raise CheckFailed(f"no top-level {key!r}")
    if not isinstance(doc["graph"], list) or not doc["graph"]:
        raise CheckFailed("'graph' is not a non-empty list")
    nodes, parents = {}, {}
    for g, spec in enumerate(doc["graph"]):
        for nid, value in spec.items():
            if not nid.isdigit() or str(int(nid)) != nid:
                raise CheckFailed(f"graph {g}: node id {nid!r} is not a decimal integer")
            if int(nid) in nodes:
                raise CheckFailed(f"node {nid} is in two graphs")
            data = value.get("data")
            if not isinstance(data, dict) or not isinstance(data.get("name"), str) or not isinstance(data.get("type"), str):
                raise CheckFailed(f"node {nid}: data {data!r} has no name and type strings")
            if not isinstance(value.get("children"), list):
                raise CheckFailed(f"node {nid}: no children list")
            for child in value["children"]:
                if str(child) not in spec:
                    raise CheckFailed(f"node {nid}: child {child} is not a node of its graph")
                parents.setdefault(int(child), []).append(int(nid))
            nodes[int(nid)] = (data, [int(c) for c in value["children"]])
    for child, of in parents.items():
        if len(of) != 1:
            raise CheckFailed(f"node {child} has {len(of)} parents {of}")
    roots = [n for n in nodes if n not in parents]
    if not roots:
        raise CheckFailed("no root")
    return nodes, roots


def check(doc, report, ranks, times):
    import pandas as pd

    nodes, roots = read_graph(doc)
    indices, exc, inc = doc["dataframe_indices"], doc["exclusive_metrics"], doc["inclusive_metrics"]
    want = ["node", "rank"] if ranks else ["node"]
    if indices != want:
        raise CheckFailed(f"dataframe_indices {indices}, expected {want}")
    if "samples" not in exc or "samples (inc)" not in inc:
        raise CheckFailed(f"metrics {exc} / {inc} lack samples / samples (inc)")
    df = pd.DataFrame(doc["dataframe"])
    for column in indices + ["name"] + exc + inc:
        if column not in df.columns:
            raise CheckFailed(f"the dataframe has no column {column!r}")
    for column in exc + inc:
        if not pd.api.types.is_integer_dtype(df[column]) or (df[column] < 0).any():
            raise CheckFailed(f"column {column!r} is not non-negative integers ({df[column].dtype})")
    unknown = set(df["node"]) - set(nodes)
    if unknown:
        raise CheckFailed(f"rows of nodes not in the graph: {sorted(unknown)[:5]}")
    indexed = df.set_index(indices)
    if not indexed.index.is_unique:
        raise CheckFailed("the dataframe's index (node, rank) is not unique")
    rank_list = list(range(ranks)) if ranks else [None]
    if len(df) != len(nodes) * len(rank_list):
        raise CheckFailed(f"{len(df)} rows for {len(nodes)} nodes and {len(rank_list)} ranks: not one per node and rank")
    if ranks and sorted(set(df["rank"])) != rank_list:
        raise CheckFailed(f"ranks {sorted(set(df['rank']))}, expected {rank_list}")

    def value(n, rank, column):
        return int(indexed.at[(n, rank) if ranks else n, column])

    for n, (data, children) in nodes.items():
        for rank in rank_list:
            if indexed.at[(n, rank) if ranks else n, "name"] != data["name"]:
                raise CheckFailed(f"node {n}: row name differs from the graph's {data['name']!r}")
            for e, i in zip(exc, inc):
                total = value(n, rank, e) + sum(value(c, rank, i) for c in children)
                if value(n, rank, i) != total:
                    raise CheckFailed(f"node {n} ({data['name']}) rank {rank}: {i} {value(n, rank, i)}, "
                                      f"its subtree sums to {total}")

    # The roots against the report's rows.
    # Names are compared, so each must be one row's (the report numbers equal names: "#2").
    rows = {v["name"]: v for v in report["variables"] if samples(v) > 0}
    if len(rows) != sum(1 for v in report["variables"] if samples(v) > 0):
        raise CheckFailed("two rows of the report have one name")
    root_samples = {}
    for n in roots:
        name = nodes[n][0]["name"]
        if name in root_samples:
            raise CheckFailed(f"two roots are named {name!r}")
        root_samples[name] = sum(value(n, r, "samples (inc)") for r in rank_list)
    no_data = root_samples.pop("[no data]", 0)
    if no_data != report["totals"]["no_data_samples"]:
        raise CheckFailed(f"[no data]: {no_data} samples, the report {report['totals']['no_data_samples']}")
    if sorted(root_samples) != sorted(rows):
        raise CheckFailed(f"roots {sorted(root_samples)[:8]} are not the report's rows {sorted(rows)[:8]}")
    for name, n in root_samples.items():
        if n != samples(rows[name]):
            raise CheckFailed(f"{name}: {n} samples in the export, {samples(rows[name])} in the report")
    total = int(df["samples"].sum())
    if total != report["totals"]["samples"]:
        raise CheckFailed(f"the exclusive samples add up to {total}, the report's total is {report['totals']['samples']}")
    print(f"hatchet: {len(nodes)} nodes, {len(roots)} roots, {len(df)} rows, {total} samples, as the report")
    if not ranks:
        return

    # Per rank, each variable's split against the report's BALANCE summary (the same samples).
    variables = [n for n in nodes if nodes[n][0]["type"] == "variable"]
    by_name = {nodes[n][0]["name"]: n for n in variables}
    if len(by_name) != len(variables):
        raise CheckFailed("two variable nodes have one name")
    checked = 0
    for v in report["variables"]:
        r = v.get("ranks")
        if not r or v["name"] not in by_name or v["metrics"]["samples_estimated"] != samples(v):
            continue
        per = {k: value(by_name[v["name"]], k, "samples (inc)") for k in rank_list}
        top = max(per, key=lambda k: (per[k], -k))
        if per[top] != r["max"] or (r["max"] > 0 and top != r["max_rank"]):
            raise CheckFailed(f"{v['name']}: ranks {per}, the report's max {r['max']} on rank {r['max_rank']}")
        checked += 1
    print(f"  {checked} variables split over the ranks as the report's balance says")
    if times is None:
        return
    skewed = [n for name, n in by_name.items() if name.startswith("alloc_skewed")]
    if len(skewed) != 1:
        raise CheckFailed(f"{len(skewed)} variables named alloc_skewed")
    n0, n1 = value(skewed[0], 0, "samples (inc)"), value(skewed[0], 1, "samples (inc)")
    t0, t1 = times[0]["skewed"], times[1]["skewed"]
    p, got, n = t1 / (t0 + t1), n1 / max(1, n0 + n1), n0 + n1
    allowed = binomial_tolerance(p, n) + 0.02
    print(f"  skewed: rank 0 {n0}, rank 1 {n1} samples: rank 1's fraction {got:.4f}, "
          f"measured {p:.4f} (allowed {allowed:.4f})")
    if abs(got - p) > allowed:
        raise CheckFailed(f"skewed: rank 1 took {got:.4f} of the samples, {p:.4f} of the kernel time")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("hatchet")
    parser.add_argument("report")
    parser.add_argument("--ranks", type=int, default=0, help="expect a dataframe over ranks 0..N-1")
    parser.add_argument("--timing", help="mpi_imbalance's timing files (PREFIX.<pid>)")
    args = parser.parse_args()
    try:
        import pandas  # noqa: F401
    except ImportError:
        print("check_hatchet: pandas is missing (scripts/install-deps.sh installs python3-pandas)", file=sys.stderr)
        return 1
    try:
        with open(args.hatchet, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        print(f"check_hatchet: cannot read {args.hatchet}: {e}", file=sys.stderr)
        return 2
    try:
        check(doc, load(args.report), args.ranks, rank_times(args.timing) if args.timing else None)
    except CheckFailed as e:
        print(f"check_hatchet: FAIL: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
