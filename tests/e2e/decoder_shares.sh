#!/usr/bin/env bash
# Programs whose data the decoder finds only through its dependence rules (access_decode.cpp):
# each is measured natively and under the tool, the shares are checked against the time shares
# the program measured itself (within the tolerance of their sample count, tolerance.py), and at
# least half of all samples must carry a data address. With two programs (the same source built
# for SSE2 and for AVX2), both must also attribute the same way: each array's distance from its
# measured share the same in both builds, within 4 binomial sd of the two sample counts (4 points
# on the 50% share at 4,000/s: about 6,500 and 3,400 samples; a fixed 3 points was 2.8 sd).
# --min-data-fraction F raises the share of samples that must carry a data address (default 0.5).
# Usage: decoder_shares.sh NAME [--tool-options "OPTS"] [--min-data-fraction F] PROGRAM [PROGRAM2]
source "$(dirname "$0")/lib.sh"

name=$1
shift
opts=(-e "soft@$SOFT_RATE")
min_data=0.5
if [ "${1:-}" = "--tool-options" ]; then
  # Options that name their own source replace the rate; the others go beside it.
  read -r -a extra <<<"$2"
  if [[ " ${extra[*]} " == *" -e "* ]]; then opts=("${extra[@]}"); else opts+=("${extra[@]}"); fi
  shift 2
fi
if [ "${1:-}" = "--min-data-fraction" ]; then
  min_data=$2
  shift 2
fi
progs=("$@")
for p in "${progs[@]}"; do
  [ -x "$p" ] || skip "$name was not built: $p"
  case "$(basename "$p")" in
    *avx2*) cpu_has avx2 || skip "this CPU has no AVX2 for $(basename "$p")" ;;
  esac
done

reports=()
timings=()
for i in "${!progs[@]}"; do
  prog=${progs[$i]}
  run_to "native$i" "$prog"
  HPCL_TEST_TIMING_FILE=$PWD/timing$i run_to "tool$i" "$HPCL_RUN" "${opts[@]}" -o "meas$i" -- "$prog"
  cat "tool$i.err" >&2
  same_as_native "native$i" "tool$i"
  expect_profiles "meas$i" 1
  merge_and_report "meas$i" "db$i.hpcdb" "report$i.json"
  step "check_report.py proportions report$i.json --program $name --timing timing$i --min-data-fraction $min_data"
  check proportions "report$i.json" --program "$name" --processes 1 --timing "timing$i" --min-data-fraction "$min_data"
  reports+=("report$i.json")
  timings+=("timing$i")
done
if [ "${#progs[@]}" -eq 2 ]; then
  step "check_report.py same_shares ${reports[*]} --program $name --timing ${timings[*]}"
  check same_shares "${reports[@]}" --program "$name" --timing "${timings[@]}"
fi
