#!/usr/bin/env bash
# The measurement directory fails the writer three ways: it cannot be created (a file stands in
# its path), the file-size limit is too small for the profile (RLIMIT_FSIZE: the write raises
# SIGXFSZ, which by default ends the process), and its file system is full (a small tmpfs; that
# part is skipped, with a note, where tmpfs cannot be mounted). Each time the program runs to
# the end with its own output and exit status, the tool says on stderr what failed, and no
# profile or temporary file is left. A profile that is written is 0600 in a 0700 directory
# (--umask: the umask's modes).
# Usage: output_failures.sh PROGRAM   (tests/programs/endings.c; "exit" ends with status 5)
source "$(dirname "$0")/lib.sh"
prog=$1
lib=$(dirname "$HPCL_RUN")/../lib/libhpcrun-lite.so
[ -f "$lib" ] || lib=$(find "$(dirname "$HPCL_RUN")/.." -name 'libhpcrun-lite*.so' | head -n1)
[ -f "$lib" ] || fail "cannot find the runtime library next to $HPCL_RUN"

run_to native "$prog" exit
[ "$(cat native.status)" = 5 ] || fail "the native run ended with $(cat native.status), not 5"

# 1. The directory cannot be created: the runtime (preloaded by hand, as the launcher would
#    refuse the directory before starting) warns and the program ends as it would have.
: >a-file
HPCRUN_LITE_OUT=$PWD/a-file/meas LD_PRELOAD=$lib run_to nodir "$prog" exit
[ "$(cat nodir.status)" = 5 ] || { cat nodir.err >&2; fail "cannot-create: status $(cat nodir.status), not 5"; }
cmp -s native.out nodir.out || fail "cannot-create: the program's output differs"
grep -q "cannot create the measurement directory $PWD/a-file/meas: Not a directory" nodir.err ||
  { cat nodir.err >&2; fail "cannot-create: no message naming the directory"; }

# 2. RLIMIT_FSIZE of 1 KiB: the profile cannot be written (EFBIG); SIGXFSZ must not end the
#    program. The program's output and the tool's messages are far below 1 KiB.
mkdir fsize
(ulimit -f 1; run_to fsize "$HPCL_RUN" -o fsize/meas -- "$prog" exit)
status=$(cat fsize.status)
[ "$status" = 5 ] || { cat fsize.err >&2; fail "RLIMIT_FSIZE: the program ended with $status, not 5"; }
cmp -s native.out fsize.out || fail "RLIMIT_FSIZE: the program's output differs"
grep -q "cannot write the profile: .*File too large" fsize.err ||
  { cat fsize.err >&2; fail "RLIMIT_FSIZE: no message saying the profile could not be written"; }
left=$(find fsize/meas -type f | wc -l)
[ "$left" -eq 0 ] || { ls -la fsize/meas >&2; fail "RLIMIT_FSIZE: $left files left"; }

# 3. A full file system: a 256 KiB tmpfs filled before the run.
mkdir full
if mount -t tmpfs -o size=256k tmpfs full 2>/dev/null; then
  trap 'umount "$PWD/full" 2>/dev/null || true' EXIT
  mkdir full/meas
  dd if=/dev/zero of=full/meas/filler bs=4k 2>/dev/null || true
  run_to disk "$HPCL_RUN" -o full/meas -- "$prog" exit
  [ "$(cat disk.status)" = 5 ] || { cat disk.err >&2; fail "full disk: status $(cat disk.status), not 5"; }
  cmp -s native.out disk.out || fail "full disk: the program's output differs"
  grep -q "cannot write the profile: .*No space left on device" disk.err ||
    { cat disk.err >&2; fail "full disk: no message saying the disk is full"; }
  left=$(find full/meas -type f ! -name filler | wc -l)
  [ "$left" -eq 0 ] || { ls -la full/meas >&2; fail "full disk: $left files left"; }
  umount full
  trap - EXIT
else
  echo "NOTE: cannot mount a tmpfs here; the full-disk case was not run (RLIMIT_FSIZE was)" >&2
fi

# 4. Modes: 0700 directory, 0600 profile; --umask: the umask decides.
run_to ok "$HPCL_RUN" -o private/meas -- "$prog" exit
[ "$(cat ok.status)" = 5 ] || fail "a normal run ended with $(cat ok.status)"
[ "$(stat -c %a private/meas)" = 700 ] || fail "the measurement directory is $(stat -c %a private/meas), not 700"
profile=$(profiles private/meas | head -n1)
[ -n "$profile" ] || fail "no profile written"
[ "$(stat -c %a "$profile")" = 600 ] || fail "the profile is $(stat -c %a "$profile"), not 600"
(umask 022; run_to shared "$HPCL_RUN" --umask -o shared/meas -- "$prog" exit)
[ "$(stat -c %a shared/meas)" = 755 ] || fail "--umask: the directory is $(stat -c %a shared/meas), not 755"
profile=$(profiles shared/meas | head -n1)
[ "$(stat -c %a "$profile")" = 644 ] || fail "--umask: the profile is $(stat -c %a "$profile"), not 644"
echo "exit status 5 kept when the directory cannot be made, the file-size limit is hit and the disk is full" >&2
