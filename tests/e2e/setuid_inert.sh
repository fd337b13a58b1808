#!/usr/bin/env bash
# A setuid-root program that loads the runtime, run by nobody: it runs as if unmeasured (same
# output, same exit status) and nothing is written for it (else the runtime would create
# root-owned files wherever the user's HPCRUN_LITE_OUT points). The loader ignores LD_PRELOAD
# paths in setuid programs, so the program here is linked against the runtime with an absolute
# RUNPATH, which the loader does honour. The control run, the same program without the setuid
# bit, writes a profile. Needs root, setpriv, cc and a file system that honours setuid; else
# skipped (77).
# Usage: setuid_inert.sh PROGRAM_SOURCE   (tests/programs/endings.c; "exit" ends with status 5)
source "$(dirname "$0")/lib.sh"
src=$1
libdir=$(cd "$(dirname "$HPCL_RUN")/../lib" && pwd)
[ -f "$libdir/libhpcrun-lite.so" ] || fail "no runtime library in $libdir"
[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root to make a setuid copy" >&2; exit 77; }
command -v setpriv >/dev/null || { echo "SKIP: no setpriv" >&2; exit 77; }
command -v cc >/dev/null || { echo "SKIP: no cc to link the program against the runtime" >&2; exit 77; }
if findmnt -no OPTIONS --target . 2>/dev/null | grep -qw nosuid; then
  echo "SKIP: this file system ignores setuid bits" >&2
  exit 77
fi
chmod 777 .
step "cc $src -lhpcrun-lite (RUNPATH $libdir)"
cc -O1 -o linked "$src" -Wl,--no-as-needed -L"$libdir" -lhpcrun-lite -Wl,-rpath,"$libdir" -lpthread ||
  fail "cannot link the program against the runtime"
cp linked suid
chmod 4755 suid
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }

HPCRUN_LITE_OUT=$PWD/plain-meas run_to plain as_nobody ./linked exit
[ "$(cat plain.status)" = 5 ] || fail "control: status $(cat plain.status), not 5"
expect_profiles plain-meas 1
HPCRUN_LITE_OUT=$PWD/suid-meas run_to suid as_nobody ./suid exit
[ "$(cat suid.status)" = 5 ] || fail "setuid: status $(cat suid.status), not 5"
cmp -s plain.out suid.out || fail "setuid: the program's output differs"
[ ! -e suid-meas ] || { ls -laR suid-meas >&2; fail "setuid: the runtime wrote into $PWD/suid-meas"; }
echo "setuid copy run as nobody: status 5, nothing written; the plain copy wrote its profile" >&2
