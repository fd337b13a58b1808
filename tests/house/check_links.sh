#!/usr/bin/env bash
# The launcher links what --check asks of the machine (the probe library), not the measurement
# runtime (issue 37): none of the address map, the calling-context tree, the access decoder or
# Zydis may be in its binary. The same names are looked for in the runtime, where they must be:
# a rename that made the check blind fails here instead of passing for nothing.
#   check_links.sh LAUNCHER RUNTIME_LIBRARY
set -euo pipefail
launcher=$1 runtime=$2
parts=("hpcrun::HeapMap::" "hpcrun::Cct::" "hpcrun::resolve_sample" "ZydisDecoderDecode")
symbols() { nm -C "$1" 2>/dev/null | sed -E 's/^[0-9a-f ]{16} [A-Za-z] //'; }  # defined or needed
in_launcher=$(symbols "$launcher") in_runtime=$(symbols "$runtime")
[ -n "$in_launcher" ] || { echo "FAIL: no symbols in $launcher (stripped?)" >&2; exit 1; }
status=0
for p in "${parts[@]}"; do
  grep -qF -- "$p" <<<"$in_runtime" || { echo "FAIL: $runtime has no $p: the check would be blind" >&2; status=1; }
  if hits=$(grep -F -- "$p" <<<"$in_launcher" | head -3) && [ -n "$hits" ]; then
    echo "FAIL: the launcher links the runtime's $p:" >&2
    echo "$hits" >&2
    status=1
  fi
done
[ "$status" = 0 ] && echo "PASS: the launcher links none of ${parts[*]}"
exit "$status"
