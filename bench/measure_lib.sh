# Shared by the report benchmarks (report_scale.sh, report_sites.sh): `measure CMD...` runs
# CMD $reps times with its output to /dev/null and prints "median_seconds s | max_rss MiB"
# (wall time by date, peak RSS by /usr/bin/time into $root/time.out). Sourced, not run.
measure() {
  local times=() rss=0 t0 t1 r
  for _ in $(seq "$reps"); do
    t0=$(date +%s%N)
    /usr/bin/time -f '%M' -o "$root/time.out" "$@" >/dev/null 2>&1 || { echo "$(basename "$0"): $* failed" >&2; exit 1; }
    t1=$(date +%s%N)
    times+=("$(( (t1 - t0) / 1000000 ))")
    r=$(tail -1 "$root/time.out")
    [ "$r" -gt "$rss" ] && rss=$r
  done
  local med
  med=$(printf '%s\n' "${times[@]}" | sort -n | sed -n "$(( (reps + 1) / 2 ))p")
  awk -v ms="$med" -v kib="$rss" 'BEGIN { printf "%.2f s | %.1f MiB", ms / 1000, kib / 1024 }'
}
