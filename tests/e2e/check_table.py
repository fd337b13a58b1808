#!/usr/bin/env python3
"""Checks that a text table names its rows as distinctly as the JSON report does.

  check_table.py cells TEXT JSON --column HEADER --field FIELD [--rows N] [--kind KIND]
      [--width W] [--expect-hidden]
  check_table.py selftest

`cells`: TEXT is `hpcprof-lite report` as a terminal gets it, JSON the same report as JSON (the
same --view, --top and order). Row i of the table is item i of the JSON (`variables`, or
`locations` for the code view). Among the first N rows (of kind KIND, when given), two rows whose
JSON FIELD differs must have different cells in the column HEADER; no line of the table may be
wider than W; with --expect-hidden the table must say which columns it left out.
"""
import argparse
import json
import re
import sys


def table(text):
    """(header line, rows) of the first table in a text report: the line starting with '#' and
    the numbered lines under it."""
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if line.lstrip().startswith("#  "):
            rows = []
            for row in lines[i + 1:]:
                if not row.strip() or not row.lstrip()[0].isdigit():
                    break
                rows.append(row)
            return line, rows, lines
    raise SystemExit("FAIL: no table (no header line starting with '#') in the text report")


def column_cells(header, rows, name):
    """The cells of the left-aligned column `name`: from its header's first character to the next
    header's (text columns are padded on the right; the last runs to the end of the line)."""
    starts = [m.start() for m in re.finditer(r"(?<!\S)\S+(?: \S+)*", header)]
    names = [header[s:].split("  ")[0] for s in starts]
    if name not in names:
        return None
    k = names.index(name)
    start, end = starts[k], starts[k + 1] if k + 1 < len(starts) else None
    return [row[start:end].strip() if end else row[start:].strip() for row in rows]


def check_cells(text, report, column, field, nrows, kind, width, expect_hidden):
    header, rows, lines = table(text)
    problems = []
    if width:
        for line in lines:
            if len(line) > width:
                problems.append(f"a line of {len(line)} columns, wider than {width}: {line!r}")
    if expect_hidden and not any(l.startswith("(hidden at this width:") for l in lines):
        problems.append("columns were left out without a word")
    cells = column_cells(header, rows, column)
    if cells is None:
        problems.append(f"no column {column!r} in the table header {header!r}")
        return problems
    items = report.get("variables", report.get("locations", []))
    if len(items) < len(cells):
        problems.append(f"the JSON has {len(items)} rows, the table {len(cells)}: not the same report?")
        return problems
    picked = [(cells[i], items[i]) for i in range(len(cells)) if not kind or items[i].get("kind") == kind]
    picked = picked[:nrows] if nrows else picked
    if not picked:
        problems.append(f"no row of kind {kind!r} in the table")
    for a in range(len(picked)):
        for b in range(a + 1, len(picked)):
            (ca, ja), (cb, jb) = picked[a], picked[b]
            fa, fb = ja.get(field), jb.get(field)
            if fa != fb and ca == cb:
                problems.append(f"two rows read {ca!r} in column {column!r} while JSON {field} "
                                f"differs: {fa!r} / {fb!r}")
    return problems


def selftest():
    report = {"variables": [
        {"kind": "heap", "name": "ns::A::grow(int) (lib.so+0x10)", "hottest_access": "f (a.c:1)"},
        {"kind": "heap", "name": "ns::A::grow(int) (lib.so+0x20)", "hottest_access": "f (a.c:2)"},
        {"kind": "static", "name": "table", "hottest_access": "f (a.c:1)"}]}
    bad = (" #  variable  kind    hottest access\n"
           " 1  A::grow   heap    f\n"
           " 2  A::grow   heap    f\n"
           " 3  table     static  f\n")
    good = (" #  variable          kind    hottest access\n"
            " 1  A::grow (+0x10)  heap    f (:1)\n"
            " 2  A::grow (+0x20)  heap    f (:2)\n"
            " 3  table            static  f (:1)\n"
            "(hidden at this width: allocator / module; --wide shows it)\n")
    assert check_cells(bad, report, "variable", "name", 0, "heap", 0, False), "alike names passed"
    assert check_cells(bad, report, "hottest access", "hottest_access", 0, None, 0, False), \
        "alike accesses passed"
    assert check_cells(bad, report, "variable", "name", 0, None, 0, True), "silent hiding passed"
    assert check_cells(good, report, "variable", "name", 0, None, 70, True) == []
    assert check_cells(good, report, "hottest access", "hottest_access", 0, None, 0, False) == []
    assert check_cells(good, report, "variable", "name", 0, None, 20, False), "a wide line passed"
    print("check_table.py selftest: ok")


def main():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command", required=True)
    c = sub.add_parser("cells")
    c.add_argument("text")
    c.add_argument("json")
    c.add_argument("--column", required=True)
    c.add_argument("--field", required=True)
    c.add_argument("--rows", type=int, default=0)
    c.add_argument("--kind")
    c.add_argument("--width", type=int, default=0)
    c.add_argument("--expect-hidden", action="store_true")
    sub.add_parser("selftest")
    args = parser.parse_args()
    if args.command == "selftest":
        selftest()
        return
    text = open(args.text, encoding="utf-8").read()
    report = json.load(open(args.json, encoding="utf-8"))
    problems = check_cells(text, report, args.column, args.field, args.rows, args.kind, args.width,
                           args.expect_hidden)
    for p in problems:
        print("FAIL: " + p, file=sys.stderr)
    if problems:
        print(text, file=sys.stderr)
        sys.exit(1)
    print(f"{args.text}: column {args.column!r} tells apart every row whose {args.field} differs")


if __name__ == "__main__":
    main()
