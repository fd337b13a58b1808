#!/usr/bin/env python3
"""Reads a `report --format pprof` file with a protobuf wire reader of its own (not the writer's
generated code) and checks it against the JSON report of the same database: the sample values add
up to totals.samples; every stack has the variable as its root and its leaf frame and the label
`variable` naming it; each variable's samples, kind and bytes are the JSON's; the other roots are
[no data] and [profiler's own work] with the no-data samples.
Usage: check_pprof.py PROFILE.pb.gz REPORT.json"""
import collections
import gzip
import json
import sys


def varint(buf, i):
    shift = value = 0
    while True:
        b = buf[i]
        i += 1
        value |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return value, i


def fields(buf):
    """(field number, value) of a message: ints for varints, bytes for length-delimited."""
    i = 0
    while i < len(buf):
        key, i = varint(buf, i)
        num, wire = key >> 3, key & 7
        if wire == 0:
            v, i = varint(buf, i)
        elif wire == 2:
            n, i = varint(buf, i)
            v, i = buf[i:i + n], i + n
        elif wire == 1:
            v, i = int.from_bytes(buf[i:i + 8], "little"), i + 8
        elif wire == 5:
            v, i = int.from_bytes(buf[i:i + 4], "little"), i + 4
        else:
            raise ValueError(f"wire type {wire} of field {num}")
        yield num, v


def repeated_ints(values):
    """A repeated integer field, packed (bytes) or not (ints)."""
    out = []
    for v in values:
        if isinstance(v, int):
            out.append(v)
        else:
            i = 0
            while i < len(v):
                x, i = varint(v, i)
                out.append(x)
    return out


def message(buf):
    m = collections.defaultdict(list)
    for num, v in fields(buf):
        m[num].append(v)
    return m


def main():
    raw = open(sys.argv[1], "rb").read()
    assert raw[:2] == b"\x1f\x8b", "not gzipped"
    prof = message(gzip.decompress(raw))
    strings = [s.decode() for s in prof[6]]
    assert strings and strings[0] == "", "string_table[0] must be empty"
    types = [(strings[message(t)[1][0]], strings[message(t)[2][0]]) for t in prof[1]]
    assert types[0] == ("samples", "count"), f"first sample type {types[0]}"
    functions = {}
    for f in prof[5]:
        f = message(f)
        functions[f[1][0]] = strings[f[2][0]]
    locations = {}
    for loc in prof[4]:
        loc = message(loc)
        lines = [message(line) for line in loc[4]]
        assert lines, f"location {loc[1][0]} without a line"
        locations[loc[1][0]] = functions[lines[0][1][0]]

    report = json.load(open(sys.argv[2]))
    totals = report["totals"]
    variables = {v["name"]: v for v in report["variables"]}
    by_root, total, stacks = collections.Counter(), 0, 0
    for s in prof[2]:
        s = message(s)
        ids = repeated_ints(s[1])
        values = repeated_ints(s[2])
        assert len(values) == len(types), f"{len(values)} values for {len(types)} types"
        leaf, root = locations[ids[0]], locations[ids[-1]]
        assert leaf == root, f"a stack from {root!r} ends at {leaf!r}, not at its variable"
        labels = {}
        for label in s[3]:
            label = message(label)
            key = strings[label[1][0]]
            labels[key] = strings[label[2][0]] if label.get(2) else label[3][0]
        if root in ("[no data]", "[profiler's own work]"):
            assert not labels, f"{root} carries labels {labels}"
        else:
            assert labels.get("variable") == root, f"label variable {labels.get('variable')!r} on {root!r}"
            v = variables.get(root)
            assert v, f"root frame {root!r} is no variable of the JSON report"
            assert labels["kind"] == v["kind"], f"{root}: kind {labels['kind']}, JSON {v['kind']}"
            if v.get("bytes"):
                assert labels["bytes"] == v["bytes"], f"{root}: bytes {labels['bytes']}, JSON {v['bytes']}"
        by_root[root] += values[0]
        total += values[0]
        stacks += 1
    assert total == totals["samples"], f"pprof samples add up to {total}, the report has {totals['samples']}"
    own = by_root.pop("[profiler's own work]", 0)
    assert own == totals.get("samples_in_runtime", 0), f"own work {own}"
    assert by_root.pop("[no data]", 0) + own == totals["no_data_samples"]
    for name, count in by_root.items():
        want = variables[name]["metrics"]["samples"]
        assert count == want, f"{name}: {count} samples in pprof, {want} in JSON"
    with_samples = [n for n, v in variables.items() if v["metrics"]["samples"] > 0]
    assert set(by_root) == set(with_samples), "the variables with samples differ"
    print(f"pprof: {stacks} samples, {total} = totals.samples, {len(by_root)} variables as root and leaf")


if __name__ == "__main__":
    main()
