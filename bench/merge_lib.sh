# shellcheck shell=bash
# Helpers of the merge benchmarks (merge_scaling.sh, merge_sizes.sh, merge_regress.sh; sourced,
# not run): the synthetic profiles, one timed merge, a median.

# merge_profiles ROOT GEN N: prints a directory holding N profiles of bench/gen_profiles. The
# largest set asked for is generated once into ROOT/pN (4 threads, 21,402 tree nodes, ~97 KB
# each); smaller sets are its first N files, hard-linked into ROOT/pN. The sets are written again
# when GEN is another build than the one that wrote them (ROOT/generator, its checksum): files of
# an older writer time the reader on files users no longer get (27 Nov: merge reads each file's
# META in 0.01 ms since the writer ends a block after it, in 0.12 ms from a file written before).
merge_profiles() {
  local root=$1 gen=$2 n=$3 dir=$1/p$3 big stamp
  stamp=$(cksum <"$gen")
  if [ "$(cat "$root/generator" 2>/dev/null)" != "$stamp" ]; then
    rm -rf "$root"/p[0-9]*
    mkdir -p "$root"
    echo "$stamp" >"$root/generator"
  fi
  if [ "$(find "$dir" -maxdepth 1 -name '*.hpcl' 2>/dev/null | wc -l)" -ne "$n" ]; then
    big=$(find "$root" -maxdepth 1 -name 'p*' -type d 2>/dev/null | while read -r d; do
      m=${d##*/p}
      if [ "$m" -gt "$n" ] 2>/dev/null && [ "$(find "$d" -maxdepth 1 -name '*.hpcl' | wc -l)" -eq "$m" ]; then
        echo "$d"
      fi
    done | awk 'NR == 1')  # reads every line: head would end the loop with SIGPIPE under pipefail
    rm -rf "$dir"
    if [ -n "$big" ]; then
      mkdir -p "$dir"
      find "$big" -maxdepth 1 -name '*.hpcl' | sort | awk -v n="$n" 'NR <= n' | xargs -I{} ln {} "$dir/"
    else
      say "writing $n profiles into $dir"
      "$gen" "$dir" "$n" >&2
    fi
  fi
  echo "$dir"
}

# timed OUT CMD...: runs CMD under /usr/bin/time with its output thrown away; prints
# "wall_s cpu_s max_rss_kib" (CPU = user + system). Its stderr stays in OUT.err.
timed() {
  local out=$1 start end
  shift
  start=$(date +%s.%N)
  /usr/bin/time -f "%U %S %M" -o "$out.time" "$@" >/dev/null 2>"$out.err"
  end=$(date +%s.%N)
  read -r user sys kib < <(tail -n1 "$out.time")
  echo "$start $end $user $sys $kib" | awk '{printf "%.3f %.3f %d\n", $2 - $1, $3 + $4, $5}'
}

# Median of the numbers on stdin, one a line.
median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
