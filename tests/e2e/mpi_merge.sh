#!/usr/bin/env bash
# hpcprof-lite-mpi against hpcprof-lite merge on one measurement directory: the profiles of a
# 2-rank MPI run and of two separate runs given its run id, a truncated profile and a file that is no profile at
# all. On 2 and 3 ranks (an odd rank waits a round), with messages cut into 4 KiB chunks, the
# MPI merge writes the same database byte for byte (with --per-rank too), prints the same skipped
# files, warnings and summary line, and exits as merge does on a directory of damaged files and on a missing one.
# A rank bound to one core and asked for 2 threads says so once.
# Usage: mpi_merge.sh HPCPROF_LITE_MPI MPI_PROGRAM PROGRAM
source "$(dirname "$0")/lib.sh"
mpi_tool=$1
mpi_prog=$2
prog=$3
[ -x "$mpi_tool" ] || skip "hpcprof-lite-mpi was not built (no MPI): $mpi_tool"
[ -x "$mpi_prog" ] || skip "mpi_alloc_apis was not built: $mpi_prog"
setup_mpi

run_to mpirun_tool "${MPIRUN[@]}" -np 2 "$HPCL_RUN" -o meas -- "$mpi_prog" 10
[ "$(cat mpirun_tool.status)" = 0 ] || fail "the MPI run failed: $(cat mpirun_tool.err)"
expect_profiles meas 2
# The two separate runs join the MPI job's run (its run id, which the launcher keeps when the
# environment sets it): merge would leave the profiles of other runs out (runs_in_one_dir.sh).
run_id=$(profile_meta "$(profiles meas | head -n1)" run_id)
for d in one two; do
  HPCRUN_LITE_RUN_ID=$run_id run_to "$d" "$HPCL_RUN" -o "$d" -- "$prog" 10
  [ "$(cat "$d.status")" = 0 ] || fail "run $d failed: $(cat "$d.err")"
  cp "$(profiles "$d")" meas/
done
good=$(profiles meas | head -n1)
head -c $(( $(stat -c %s "$good") / 2 )) "$good" >meas/truncated.hpcl
echo "not a profile" >meas/junk.hpcl
expect_profiles meas 6

# prefixed_lines NAME PROGRAM: NAME.err's lines by PROGRAM (mpirun adds its own), prefix removed.
prefixed_lines() { sed -n "s/^$2: //p" "$1.err"; }

# same_outcome A B: the two merges' exit status, summary line and messages are the same.
same_outcome() {
  [ "$(cat "$1.status")" = "$(cat "$2.status")" ] ||
    fail "$2 exited $(cat "$2.status"), merge exited $(cat "$1.status"): $(cat "$2.err")"
  # The summary line names the output database, which differs.
  [ "$(sed 's/ into .*//' "$1.out")" = "$(sed 's/ into .*//' "$2.out")" ] ||
    fail "the summary lines differ: $(cat "$1.out") / $(cat "$2.out")"
  if ! diff <(prefixed_lines "$1" hpcprof-lite) <(prefixed_lines "$2" hpcprof-lite-mpi) >&2; then
    fail "$2 reports other skipped files, warnings or errors than merge"
  fi
}

run_to serial "$HPCL_PROF" merge meas -o serial.hpcdb -j 2
[ "$(cat serial.status)" = 0 ] || fail "hpcprof-lite merge failed: $(cat serial.err)"
[ "$(prefixed_lines serial hpcprof-lite | grep -c '^skipping ')" = 2 ] ||
  fail "merge did not skip exactly the two damaged files: $(cat serial.err)"
grep -q "merged 4 of 6 profiles" serial.out || fail "merge's summary: $(cat serial.out)"
"$HPCL_PROF" report serial.hpcdb --format json --top 0 >serial.json || fail "report of serial.hpcdb failed"

for np in 2 3; do
  HPCPROF_LITE_MPI_CHUNK=4096 run_to "mpi$np" "${MPIRUN[@]}" -np "$np" "$mpi_tool" meas -o "mpi$np.hpcdb" -j 1
  same_outcome serial "mpi$np"
  cmp serial.hpcdb "mpi$np.hpcdb" || fail "-np $np: the database differs from merge's"
  "$HPCL_PROF" report "mpi$np.hpcdb" --format json --top 0 >"mpi$np.json" || fail "report of mpi$np.hpcdb failed"
  cmp -s serial.json "mpi$np.json" || fail "-np $np: the JSON report differs from merge's"
done

# --per-rank: each node's values per rank travel with the partials, through the chunked messages
# too; the database is merge's, byte for byte.
run_to serial_ranks "$HPCL_PROF" merge meas -o serial_ranks.hpcdb -j 2 --per-rank
HPCPROF_LITE_MPI_CHUNK=4096 run_to mpi_ranks "${MPIRUN[@]}" -np 3 "$mpi_tool" meas -o mpi_ranks.hpcdb -j 1 --per-rank
same_outcome serial_ranks mpi_ranks
cmp serial_ranks.hpcdb mpi_ranks.hpcdb || fail "--per-rank: the MPI merge's database differs from merge's"
if cmp -s serial.hpcdb serial_ranks.hpcdb; then fail "--per-rank wrote the database of a merge without it"; fi

# A rank bound to one core with -j 2 says once that its threads take turns (and still writes
# merge's database); unbound, it says nothing. Open MPI binds as asked with --bind-to.
if [ "$(nproc)" -ge 2 ]; then
  run_to bound "${MPIRUN[@]}" --bind-to core -np 1 "$mpi_tool" meas -o bound.hpcdb -j 2
  grep -q "^hpcprof-lite-mpi: 2 threads per rank, but a rank may run on 1 CPU only" bound.err ||
    fail "no warning for 2 threads on a rank bound to one core: $(cat bound.err)"
  cmp serial.hpcdb bound.hpcdb || fail "-j 2 on a bound rank: the database differs from merge's"
  run_to unbound "${MPIRUN[@]}" --bind-to none -np 1 "$mpi_tool" meas -o unbound.hpcdb -j 2
  if grep -q "threads per rank" unbound.err; then fail "a warning without binding: $(cat unbound.err)"; fi
fi

# Exit status and messages where nothing can be merged.
mkdir damaged
cp meas/truncated.hpcl meas/junk.hpcl damaged/
for dir in damaged missing; do
  run_to "serial_$dir" "$HPCL_PROF" merge "$dir" -o "serial_$dir.hpcdb"
  run_to "mpi_$dir" "${MPIRUN[@]}" -np 2 "$mpi_tool" "$dir" -o "mpi_$dir.hpcdb"
  [ "$(cat "serial_$dir.status")" = 1 ] || fail "merge of $dir exited $(cat "serial_$dir.status")"
  same_outcome "serial_$dir" "mpi_$dir"
  [ ! -e "mpi_$dir.hpcdb" ] || fail "hpcprof-lite-mpi wrote a database of $dir"
done
# The merge options are parsed by the same code (merge_cli.h): an unknown one is named, status 2,
# on every rank, and no database is written.
run_to serial_bad "$HPCL_PROF" merge meas --frobnicate -o bad.hpcdb
run_to mpi_bad "${MPIRUN[@]}" -np 2 "$mpi_tool" meas --frobnicate -o bad.hpcdb
[ "$(cat serial_bad.status)" = 2 ] || fail "merge --frobnicate exited $(cat serial_bad.status)"
[ "$(cat mpi_bad.status)" = 2 ] || fail "hpcprof-lite-mpi --frobnicate exited $(cat mpi_bad.status)"
[ "$(prefixed_lines serial_bad hpcprof-lite)" = "merge: unknown option --frobnicate" ] ||
  fail "merge --frobnicate: $(cat serial_bad.err)"
[ "$(prefixed_lines mpi_bad hpcprof-lite-mpi)" = "unknown option --frobnicate" ] ||
  fail "hpcprof-lite-mpi --frobnicate: $(cat mpi_bad.err)"
[ ! -e bad.hpcdb ] || fail "a database was written despite the bad option"
echo "hpcprof-lite-mpi wrote merge's database on 2 and 3 ranks"
