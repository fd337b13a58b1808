#!/usr/bin/env bash
# A measurement of two processes, one of them damaged four ways (truncated, bytes flipped,
# emptied, replaced by random bytes): each time `merge` names the damaged file, merges the good
# one and counts the skipped file in its summary; `merge --strict` fails without writing a
# database; `report` refuses a damaged database with a message and status 1.
# Usage: damaged_inputs.sh HPCPROF GOLDEN_PROFILES_DIR WORK
set -u
prof=$1 golden=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
cd "$work" || exit 1
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

good=$golden/stencil-rank0.hpcl
other=$golden/stencil-rank1.hpcl
size=$(stat -c %s "$other")

damage() {  # damage KIND FILE
  case $1 in
    truncated) head -c $((size * 2 / 3)) "$other" >"$2" ;;
    flipped)
      cp "$other" "$2"
      for off in 40 $((size / 2)) $((size - 9)); do
        printf '\xa5' | dd of="$2" bs=1 seek="$off" conv=notrunc status=none
      done ;;
    emptied) : >"$2" ;;
    random) head -c 4096 /dev/urandom >"$2" ;;
  esac
}

for kind in truncated flipped emptied random; do
  dir=$kind
  mkdir -p "$dir"
  cp "$good" "$dir/"
  damage "$kind" "$dir/stencil-rank1.hpcl"
  status=0
  "$prof" merge "$dir" -o "$kind.hpcdb" -j 1 >"$kind.out" 2>"$kind.err" || status=$?
  [ "$status" -eq 0 ] || fail "$kind: merge exited $status with one good profile"
  grep -q "skipping $dir/stencil-rank1.hpcl: " "$kind.err" || fail "$kind: merge did not name the damaged file: $(cat "$kind.err")"
  grep -q "merged 1 of 2 profiles .*; skipped 1 damaged$" "$kind.out" || fail "$kind: summary: $(cat "$kind.out")"
  # A truncated profile says how much arrived and what of it is whole (issue 24), not
  # "damaged compressed payload (Src size is incorrect)".
  if [ "$kind" = truncated ]; then
    grep -q "stencil-rank1.hpcl: truncated: [0-9]* of [0-9]* bytes of its payload; whole before the cut: META (rank 1, pid " "$kind.err" ||
      fail "truncated: the message does not say how much arrived: $(cat "$kind.err")"
  fi
  "$prof" report "$kind.hpcdb" --format json >"$kind.json" 2>&1 || fail "$kind: report failed"
  grep -q '"processes": 1,' "$kind.json" || fail "$kind: the database does not hold the good process"

  status=0
  "$prof" merge "$dir" -o "$kind-strict.hpcdb" --strict >"$kind-strict.out" 2>"$kind-strict.err" || status=$?
  [ "$status" -eq 1 ] || fail "$kind: merge --strict exited $status"
  grep -q "damaged input $dir/stencil-rank1.hpcl: " "$kind-strict.err" || fail "$kind: --strict did not name the file"
  grep -q -- "--strict: 1 of 2 profiles is damaged; no database written" "$kind-strict.err" || fail "$kind: --strict: $(cat "$kind-strict.err")"
  [ ! -e "$kind-strict.hpcdb" ] || fail "$kind: merge --strict wrote a database"
done

# report on damaged databases: random bytes, truncated, flipped, empty.
"$prof" merge truncated -o ok.hpcdb >/dev/null 2>&1
dbsize=$(stat -c %s ok.hpcdb)
head -c 4096 /dev/urandom >random.hpcdb
head -c $((dbsize / 2)) ok.hpcdb >cut.hpcdb
cp ok.hpcdb flip.hpcdb
printf '\x5a' | dd of=flip.hpcdb bs=1 seek=$((dbsize - 12)) conv=notrunc status=none
: >empty.hpcdb
for db in random cut flip empty; do
  status=0
  "$prof" report "$db.hpcdb" >"$db.report" 2>"$db.rerr" || status=$?
  [ "$status" -eq 1 ] || fail "report $db.hpcdb exited $status"
  grep -q "^hpcprof-lite: $db.hpcdb: " "$db.rerr" || fail "report $db.hpcdb: message: $(cat "$db.rerr")"
  [ "$(wc -l <"$db.rerr")" -eq 1 ] || fail "report $db.hpcdb: not one line: $(cat "$db.rerr")"
  [ ! -s "$db.report" ] || fail "report $db.hpcdb printed a report"
done
grep -q "cut.hpcdb: truncated: [0-9]* of [0-9]* bytes of its payload" cut.rerr || fail "report cut.hpcdb: $(cat cut.rerr)"

[ "$failures" -eq 0 ] || exit 1
echo "all damaged inputs handled"
