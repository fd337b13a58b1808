#!/usr/bin/env bash
# `report --format folded` on a real run: every line is "frame;...;frame COUNT", the counts add
# up to the JSON report's samples (totals.samples = data samples + no-data samples), each root
# frame is a variable of the JSON report (with its samples), [no data] or [profiler's own work]
# (the no-data samples that interrupted the runtime, totals.samples_in_runtime), and `--view accesses`
# CSV rows add up to each variable's samples. A bad option is named, with status 2.
source "$(dirname "$0")/lib.sh"
: "${HPCL_SHARED:?}"
"$HPCL_PROF" report "$HPCL_SHARED/db.hpcdb" --format folded >report.folded || fail "folded report failed"
"$HPCL_PROF" report "$HPCL_SHARED/db.hpcdb" --format csv --view accesses >accesses.csv ||
  fail "csv --view accesses failed"
"$HPCL_PYTHON" - "$HPCL_SHARED/report.json" <<'PY' || fail "folded stacks do not match the JSON report"
import collections, csv, json, re, sys
report = json.load(open(sys.argv[1]))
totals = report["totals"]
line_re = re.compile(r"^([^\n]*) (\d+)$")
total, roots, lines = 0, collections.Counter(), 0
for line in open("report.folded", encoding="utf-8").read().splitlines():
    m = line_re.match(line)
    assert m, f"not a folded line: {line!r}"
    frames = m.group(1).split(";")
    assert all(frames), f"empty frame in {line!r}"
    total += int(m.group(2))
    roots[frames[0]] += int(m.group(2))
    lines += 1
assert total == totals["samples"], f"folded counts add up to {total}, the report has {totals['samples']}"
assert totals["samples"] == totals["data_samples"] + totals["no_data_samples"]
own = roots.pop("[profiler's own work]", 0)
assert own == totals.get("samples_in_runtime", 0), f"own work {own}, the report has {totals.get('samples_in_runtime')}"
assert roots.pop("[no data]", 0) + own == totals["no_data_samples"]
variables = {v["name"]: v["metrics"]["samples"] for v in report["variables"]}
for name, count in roots.items():
    assert name in variables, f"root frame {name!r} is no variable of the report"
    assert count == variables[name], f"{name}: {count} in folded, {variables[name]} in JSON"
hottest = max(variables, key=variables.get)
assert hottest in roots, f"the hottest variable {hottest!r} is no root frame"
print(f"{lines} stacks, {total} samples = totals.samples; {len(roots)} variables as root frames")

rows = list(csv.DictReader(open("accesses.csv", newline="")))
by_var = collections.Counter()
for r in rows:
    by_var[r["variable"]] += int(r["samples"])
for name, count in by_var.items():
    assert count == variables[name], f"accesses.csv: {name} rows add up to {count}, not {variables[name]}"
assert sum(by_var.values()) == totals["data_samples"]
print(f"accesses.csv: {len(rows)} rows, adding up to data_samples {totals['data_samples']}")
PY
# A bad option on the real database: status 2, one line naming it, no report.
set +e
"$HPCL_PROF" report "$HPCL_SHARED/db.hpcdb" --format folded --frobnicate >bad.out 2>bad.err
rc=$?
set -e
[ "$rc" = 2 ] || fail "report --frobnicate exited $rc"
[ "$(head -n1 bad.err)" = "hpcprof-lite: report: unknown option --frobnicate" ] ||
  fail "report --frobnicate: $(cat bad.err)"
[ ! -s bad.out ] || fail "report --frobnicate printed a report"
# Optional: the tools themselves, when installed, read it.
if command -v flamegraph.pl >/dev/null 2>&1; then
  flamegraph.pl report.folded >flame.svg || fail "flamegraph.pl rejected the folded stacks"
  grep -q "<svg" flame.svg || fail "flamegraph.pl wrote no SVG"
fi
if command -v inferno-flamegraph >/dev/null 2>&1; then
  inferno-flamegraph report.folded >inferno.svg || fail "inferno-flamegraph rejected the folded stacks"
fi
echo "ok"
