#!/usr/bin/env bash
# `report --format pprof` on a real run (issue 39): a gzipped profile.proto that our own wire
# reader (check_pprof.py) finds consistent with the JSON report, and that Go's pprof reads:
# `go tool pprof -top` lists the variables by samples in the text report's order with the
# JSON's counts, `-tagfocus` selects one variable by its label, `-tags` lists the labels. On a
# terminal the format is refused (binary); with --view code it is a usage error.
source "$(dirname "$0")/lib.sh"
: "${HPCL_SHARED:?}"
db=$HPCL_SHARED/db.hpcdb
"$HPCL_PROF" report "$db" --format pprof >profile.pb.gz || fail "report --format pprof failed"
"$HPCL_PYTHON" "$E2E_DIR/check_pprof.py" profile.pb.gz "$HPCL_SHARED/report.json" ||
  fail "the pprof profile does not match the JSON report"

set +e
"$HPCL_PROF" report "$db" --format pprof --view code >code.out 2>code.err
rc=$?
set -e
[ "$rc" = 2 ] || fail "--format pprof --view code exited $rc, not 2"
grep -q "data view" code.err || fail "--format pprof --view code: $(cat code.err)"

command -v go >/dev/null || fail "go is missing (scripts/install-deps.sh installs golang-go)"
export HOME=$PWD PPROF_TMPDIR=$PWD GOFLAGS=-mod=mod GOCACHE=$PWD/gocache
step "go tool pprof -top profile.pb.gz"
# pprof hides nodes under 0.5% of the total by default: a variable with 1 or 2 samples of a few
# hundred came and went with the run (CI failed so); -nodefraction=0 lists every one.
go tool pprof -top -nodecount=1000 -nodefraction=0 -edgefraction=0 profile.pb.gz >top.txt 2>top.err || fail "go tool pprof -top failed: $(cat top.err)"
go tool pprof -tags profile.pb.gz >tags.txt 2>tags.err || fail "go tool pprof -tags failed: $(cat tags.err)"
"$HPCL_PYTHON" - top.txt tags.txt "$HPCL_SHARED/report.json" <<'PY' || fail "go tool pprof does not read what the report says"
import json, re, sys
top, tags, report = open(sys.argv[1]).read(), open(sys.argv[2]).read(), json.load(open(sys.argv[3]))
# "      flat  flat%   sum%        cum   cum%  name": the rows with a flat count are the leaves.
rows = []
for line in top.splitlines():
    m = re.match(r"^\s*(\d+)\s+[\d.]+%\s+[\d.]+%\s+(\d+)\s+[\d.]+%\s+(.*)$", line)
    if m and int(m.group(1)) > 0:
        rows.append((m.group(3), int(m.group(1))))
names = [n for n, _ in rows if n not in ("[no data]", "[profiler's own work]")]
want = [(v["name"], v["metrics"]["samples"]) for v in report["variables"] if v["metrics"]["samples"] > 0]
missing = sorted({n for n, _ in want} - set(names))
extra = sorted(set(names) - {n for n, _ in want})
assert not missing and not extra, f"pprof -top lacks {missing} and adds {extra} (of {len(want)} variables)"
assert len(names) == len(want), f"pprof -top lists {len(names)} rows for {len(want)} variables"
counts = dict(rows)
for name, samples in want:
    assert counts[name] == samples, f"{name}: pprof {counts[name]}, report {samples}"
# The report's order is by samples (ties by name); pprof's the same, up to how it breaks ties.
in_order = [counts[n] for n in names]
assert in_order == sorted(in_order, reverse=True), f"pprof -top is not by samples: {in_order[:10]}"
for label in ("variable:", "kind:", "bytes:"):
    assert label in tags, f"pprof -tags lacks {label}"
print(f"go tool pprof -top: {len(names)} variables in the report's order with its counts")
PY
hottest=$("$HPCL_PYTHON" -c 'import json,sys; print(json.load(open(sys.argv[1]))["variables"][0]["name"])' "$HPCL_SHARED/report.json")
step "go tool pprof -top -tagfocus=variable=<hottest>"
go tool pprof -top -tagfocus="variable=^$(printf '%s' "$hottest" | sed 's/[][().*+?^$|\\]/\\&/g')\$" profile.pb.gz >focus.txt 2>&1 ||
  fail "go tool pprof -tagfocus failed: $(tail -3 focus.txt)"
grep -qF "$hottest" focus.txt || fail "-tagfocus on $hottest does not show it"
echo "PASS: the pprof export reads back as the report"
