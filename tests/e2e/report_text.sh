#!/usr/bin/env bash
# `report --format text` has its header and names the hottest variable of the JSON report.
source "$(dirname "$0")/lib.sh"
: "${HPCL_SHARED:?}"
[ -f "$HPCL_SHARED/db.hpcdb" ] || fail "the short_run fixture left no database"
step "$HPCL_PROF report $HPCL_SHARED/db.hpcdb --format text"
"$HPCL_PROF" report "$HPCL_SHARED/db.hpcdb" --format text >report.txt || fail "report failed"
cat report.txt >&2
hottest=$(check hottest "$HPCL_SHARED/report.json")
head -n1 report.txt | grep -q "^hpcprof-lite report, data view" || fail "no header line"
grep -q "^samples: " report.txt || fail "no sample totals in the header"
# The table shortens long names in the middle; their first 16 characters always survive.
grep -E '^ *1  ' report.txt | grep -qF -- "${hottest:0:16}" \
  || fail "row 1 of the text report is not the hottest variable ($hottest)"
grep -qi "time-weighted" report.txt || fail "the text report does not say that shares are time-weighted"
