#!/usr/bin/env bash
# hpcviewer-tui on a database of about a million tree nodes: the model's first screen and the
# work of each key (bench/viewer_bench.cpp), then the real viewer in tmux at 160x45: seconds to
# its first full screen and its peak RSS. Targets: first screen < 1 s, a key < 50 ms.
# usage: bench/viewer_bench.sh [BUILD_DIR] [PATHS_PER_THREAD]   (50000: ~1M merged nodes)
set -euo pipefail
build=$(cd "${1:-build}" && pwd)
"$(dirname "${BASH_SOURCE[0]}")/machine.sh" "$build" >&2
paths=${2:-50000}
work="$build/bench/viewer"
for t in bench/gen_profiles bin/hpcprof-lite bench/viewer_bench bin/hpcviewer-tui; do
  [ -x "$build/$t" ] || { echo "viewer_bench.sh: $build/$t is not built" >&2; exit 1; }
done
mkdir -p "$work"
db="$work/db-$paths.hpcdb"
if [ ! -f "$db" ]; then
  rm -rf "$work/meas"
  "$build/bench/gen_profiles" "$work/meas" 1 4 "$paths"
  "$build/bin/hpcprof-lite" merge "$work/meas" -o "$db" 2>/dev/null
fi
ls -l "$db"
"$build/bench/viewer_bench" "$db"

if ! command -v tmux >/dev/null 2>&1; then
  echo "tmux not found: the real viewer's first screen is not measured" >&2
  exit 0
fi
sock="$work/tmux.sock"
rm -f "$work/startup.txt" "$work/rss.txt"
tmux -S "$sock" new-session -d -s bench -x 160 -y 45 \
  "/usr/bin/time -f '%M' -o '$work/rss.txt' '$build/bin/hpcviewer-tui' --startup-report '$work/startup.txt' '$db'"
for ((i = 0; i < 600; i++)); do [ -s "$work/startup.txt" ] && break; sleep 0.05; done
sleep 0.2
tmux -S "$sock" send-keys -t bench q
for ((i = 0; i < 200; i++)); do [ -s "$work/rss.txt" ] && break; sleep 0.05; done
tmux -S "$sock" kill-server >/dev/null 2>&1 || true
echo "hpcviewer-tui in tmux 160x45: $(cat "$work/startup.txt" 2>/dev/null || echo 'no first screen') s," \
  "peak RSS $(awk '{ printf "%.1f MiB", $1 / 1024 }' "$work/rss.txt" 2>/dev/null)"
