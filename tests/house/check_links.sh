#!/usr/bin/env bash
# The launcher links what --check asks of the machine (the probe library), not the measurement
# runtime (issue 37): none of the address map, the calling-context tree, the access decoder or
# Zydis may be in its binary. The same names are looked for in the runtime, where they must be:
# a rename that made the check blind fails here instead of passing for nothing.
# With a third argument "static" (a build without sanitizers), the launcher needs libc and the
# loader alone (its C++ runtime and zstd linked in: 77 page faults a launch, not 118,
# PERFORMANCE.md), and the runtime library carries under 1 MiB of initialized data (its
# zero-initialized tables in .bss, not 8.6 MB of the file as when one non-zero word put the
# address maps in .data).
#   check_links.sh LAUNCHER RUNTIME_LIBRARY [static]
set -euo pipefail
launcher=$1 runtime=$2 static=${3:-}
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
if [ "$static" = static ]; then
  needed=$(readelf -d "$launcher" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | grep -Ev '^(libc\.so|ld-linux)' || true)
  [ -z "$needed" ] || { echo "FAIL: the launcher needs more than libc: $(tr '\n' ' ' <<<"$needed")" >&2; status=1; }
  hex=$(readelf -SW "$runtime" | awk '$2 == ".data" { print $6 }')
  data=$((16#${hex:-0}))
  if [ -z "$hex" ] || [ "$data" -ge 1048576 ]; then
    echo "FAIL: $runtime has $data bytes of .data (a table with a non-zero initializer?)" >&2
    status=1
  fi
fi
[ "$status" = 0 ] && echo "PASS: the launcher links none of ${parts[*]}${static:+; it needs libc alone; the .data of the runtime is small}"
exit "$status"
