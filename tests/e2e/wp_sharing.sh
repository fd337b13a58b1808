#!/usr/bin/env bash
# False sharing from debug-register watchpoints (-e wp-sharing): tests/programs/wp_sharing.c.
#   same:   two threads bump two fields of one static struct in one cache line -> the struct
#           `together` is flagged false_sharing, with false traps at offsets 0 and 8 of its line;
#   ints:   two int fields in one 8-byte word (one watch covers both) -> `ints` flagged: the
#           trapping access is decoded, and different bytes are false sharing;
#   shared: both threads increment one field atomically -> true sharing: `shared` has true
#           traps and is not flagged;
#   apart:  the same fields on separate lines -> `apart` is not flagged;
#   halves: two threads read disjoint halves of a 16 MiB array -> no variable is flagged.
# The program's output and exit status are unchanged under the tool. The text report flags the
# struct. Skipped (77) only when perf refuses breakpoint events (hpcrun-lite --check).
# Usage: wp_sharing.sh WP_SHARING_PROGRAM
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/wp_lib.sh"
prog=$1
[ -x "$prog" ] || skip "test program not built: $prog"
require_watchpoints
WP_EVENTS=(-e soft -e wp-sharing)

check_sharing() {  # NAME EXPECTED-FLAGGED-SYMBOL-OR-none
  "$HPCL_PYTHON" - "$1.json" "$2" <<'PY' || fail "$1: sharing"
import json, sys
report = json.load(open(sys.argv[1]))
want = sys.argv[2]
def fail(msg):
    sys.exit(f"FAIL: {msg}")
flagged = []
for v in report["variables"]:
    s = v.get("sharing")
    if s is None:
        continue
    for key in ("false_sharing", "false", "true", "threads", "lines", "offsets"):
        if key not in s:
            fail(f"{v['name']}: sharing has no {key}: {s}")
    print(f"{v['name']}: {s}")
    if s["false_sharing"]:
        flagged.append(v["name"])
if want == "none":
    if flagged:
        fail(f"flagged as false sharing: {flagged}, expected none")
else:
    if flagged != [want]:
        fail(f"flagged: {flagged}, expected exactly [{want}]")
    s = next(v["sharing"] for v in report["variables"] if v["name"] == want)
    offsets = [0] if want == "ints" else [0, 8]
    if s["threads"] < 2 or s["lines"] != 1 or s["offsets"] != offsets:
        fail(f"{want}: {s}; expected false traps by 2 threads on 1 line at offsets {offsets}")
PY
}

wp_run same "$prog" same
check_sharing same together
grep -q "FALSE SHARING" same.txt || fail "text report: no FALSE SHARING line: $(cat same.txt)"
grep -A3 "^Sharing and reuse" same.txt

wp_run ints "$prog" ints
check_sharing ints ints

wp_run shared "$prog" shared
check_sharing shared none
"$HPCL_PYTHON" - shared.json <<'PY' || fail "shared: no true sharing seen"
import json, sys
r = json.load(open(sys.argv[1]))
s = next((v.get("sharing") for v in r["variables"] if v["name"] == "shared"), None)
if not s or s["true"] < 5 or s["true"] <= s["false"]:
    sys.exit(f"FAIL: shared: {s}; expected mostly true-sharing traps")
PY

wp_run apart "$prog" apart
check_sharing apart none
# The writes were watched: the test says nothing if no watch was armed on `apart` at all.
"$HPCL_PYTHON" - apart.json <<'PY' || fail "apart: no sharing watch armed"
import json, sys
r = json.load(open(sys.argv[1]))
s = next((v.get("sharing") for v in r["variables"] if v["name"] == "apart"), None)
if not s or s["armed"] < 10:
    sys.exit(f"FAIL: apart: {s}; expected at least 10 armings")
PY

wp_run halves "$prog" halves
check_sharing halves none
echo "wp-sharing: ok"
