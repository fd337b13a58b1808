#!/usr/bin/env bash
# A C++ allocator that does not call malloc (tests/programs/own_new_lib.cpp): the tool's hint
# that a malloc comes from operator new must not outlive the new, or the program's next malloc
# is reported as new[]. Usage: own_new.sh PROGRAM
source "$(dirname "$0")/lib.sh"
prog=$1

measure_like_native "$prog"
"$HPCL_PYTHON" - report.json <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
heap = [v for v in report["variables"] if v.get("kind") == "heap"]
def made_in(fn):
    return [v for v in heap if v.get("name", "").startswith(fn)]
mallocs = made_in("alloc_with_malloc")
if not mallocs:
    sys.exit("FAIL: no heap variable allocated in alloc_with_malloc:\n" +
             "\n".join(f"  {v.get('name')} via {v.get('allocator')}" for v in heap[:10]))
for v in mallocs:
    if v.get("allocator") != "malloc":
        sys.exit(f"FAIL: the block from malloc is reported as {v.get('allocator')!r}")
print("malloc'd block reported as malloc")
PY
