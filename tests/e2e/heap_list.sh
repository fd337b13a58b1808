#!/usr/bin/env bash
# Small heap blocks at default settings (tests/programs/heap_list.c has the expected proportions):
#   heap_list.sh walk|churn|free PROGRAM [ROUNDS]
# walk: the node site's estimated share against the program's own timing, little unattributed
#   (both within 4 standard deviations of the estimate, tolerance.py);
# churn: estimates present, nothing dropped, CPU time at most 1.8x native (best of three pairs);
# free: with every block tracked, free()'s reads of the chunk headers belong to the nodes;
# temps: 4M temporaries, each freed at once: the controller (-v) saw them die young and tracked
#   at most 60,000 of them (131,000 when grants ignored it, 28,000 here), and its estimate of how
#   many small blocks the program made is within 10% of the 4,194,304 it did.
source "$(dirname "$0")/lib.sh"

mode=$1
prog=$2
shift 2
[ -x "$prog" ] || skip "heap_list was not built: $prog"
[ -x /usr/bin/time ] || skip "/usr/bin/time is needed to measure CPU time"

if [ "$mode" = temps ]; then
  run_to native "$prog" temps
  run_to tool "$HPCL_RUN" -v -o meas -- "$prog" temps
  # -v speaks on stderr: the program's output and status only.
  if ! cmp -s native.out tool.out || ! cmp -s native.status tool.status; then
    fail "the program's output or exit status differs under the tool"
  fi
  expect_profiles meas 1
  # "thread 0: tracked N of ~M small blocks, now one in K, C ns each; Y died young (P% of late)"
  line=$(grep -m1 'thread 0: tracked' tool.err) || fail "no controller line in tool.err (-v)"
  step "$line"
  pattern='.*tracked ([0-9]+) of ~([0-9]+) small blocks.* ([0-9]+) died young \(([0-9]+)% of late\).*'
  read -r tracked seen young late < <(sed -E "s/$pattern/\\1 \\2 \\3 \\4/" <<<"$line")
  [ "$late" -ge 90 ] || fail "only $late% of the late tracked blocks died young"
  [ "$young" -ge $((tracked * 3 / 4)) ] || fail "$young of $tracked tracked blocks died young"
  [ "$tracked" -le 60000 ] || fail "$tracked temporaries tracked (at most 60,000)"
  # Each a malloc of the program's, plus the few the C library makes at start-up.
  awk -v m="$seen" 'BEGIN { exit !(m > 0.9 * 4194304 && m < 1.1 * 4194304) }' ||
    fail "the controller estimated ~$seen small blocks, the program made 4,194,304"
  exit 0
fi


extra=()
[ "$mode" = free ] && extra=(--small-every 1)
# walk: the nodes' estimate (blocks tracked one in k) is checked against the walk's share within
# 4 of its standard deviations (check_report.py), which must stay under half of it: at the
# default 500/s its sd is ~17% of the expected count, at 2,000/s ~9%.
[ "$mode" = walk ] && extra=(-e soft@2000)
rounds=("$@")
if [ "$mode" = churn ] && [ $# -eq 0 ]; then
  # The default 40 rounds take 0.4 s of CPU on a machine whose caches hold a round's 13 MB of
  # nodes, and 5 s on one whose do not. At 0.4 s (about 400 samples, most of them in malloc and
  # free on blocks the adaptive controller left untracked) the node site's few tracked blocks
  # sometimes get no sample at all, so the run is scaled to about 2 s of CPU here first.
  run_to calibrate /usr/bin/time -f '%U %S' -o calibrate.cpu "$prog" churn 40
  rounds=("$(awk 'END { r = int(40 * 2.0 / ($1 + $2 + 0.01)); if (r < 8) r = 8;
                        if (r > 400) r = 400; print r }' calibrate.cpu)")
  step "churn: 40 rounds took $(awk 'END { print $1 + $2 }' calibrate.cpu) s of CPU; running ${rounds[0]}"
fi
best_native="" best_tool=""
pairs=1
[ "$mode" = churn ] && pairs=3
for ((p = 1; p <= pairs; p++)); do
  run_to native /usr/bin/time -f '%U %S' -o native.cpu "$prog" "$mode" "${rounds[@]}"
  rm -rf meas timing.*
  HPCL_TEST_TIMING_FILE=$PWD/timing run_to tool /usr/bin/time -f '%U %S' -o tool.cpu \
    "$HPCL_RUN" "${extra[@]}" -o meas -- "$prog" "$mode" "${rounds[@]}"
  native=$(awk 'END { print $1 + $2 }' native.cpu)
  tool=$(awk 'END { print $1 + $2 }' tool.cpu)
  step "pair $p: CPU native $native s, tool $tool s"
  if [ -z "$best_tool" ] || awk -v a="$tool" -v b="$native" -v c="$best_tool" -v d="$best_native" \
       'BEGIN { exit !(a / b < c / d) }'; then
    best_native=$native best_tool=$tool
  fi
done
cat tool.err >&2
same_as_native native tool
expect_profiles meas 1
merge_and_report meas db.hpcdb report.json
check heap_list report.json --mode "$mode" --timing timing --cpu "$best_native" "$best_tool"
