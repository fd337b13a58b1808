#!/usr/bin/env bash
# A setuid-root program that loads the runtime, run by nobody: it runs as if unmeasured (same
# output, same exit status) and nothing is written for it (else the runtime would create
# root-owned files wherever the user's HPCRUN_LITE_OUT points). The loader ignores LD_PRELOAD
# paths in setuid programs, so the program here is linked against the runtime with an absolute
# RUNPATH, which the loader does honour. The control run, the same program without the setuid
# bit, writes a profile. Needs root, setpriv, cc and a temporary directory that nobody can reach
# on a file system that honours setuid; else skipped (77) with the reason.
# Usage: setuid_inert.sh PROGRAM_SOURCE   (tests/programs/endings.c; "exit" ends with status 5)
source "$(dirname "$0")/lib.sh"
src=$1
libdir=$(cd "$(dirname "$HPCL_RUN")/../lib" && pwd)
[ -f "$libdir/libhpcrun-lite.so" ] || fail "no runtime library in $libdir"
[ "$(id -u)" -eq 0 ] || skip "needs root to make a setuid copy"
command -v setpriv >/dev/null || skip "no setpriv"
command -v cc >/dev/null || skip "no cc to link the program against the runtime"
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }

# nobody may not reach the checkout (a clone under a 0700 `mktemp -d` directory): the program,
# the runtime it is linked against and the output directories live in a directory of their own
# that every user can traverse, removed at the end.
shared=$(mktemp -d "${TMPDIR:-/tmp}/hpcl-setuid.XXXXXX")
trap 'rm -rf "$shared"' EXIT
chmod 755 "$shared"
as_nobody test -x "$shared" ||
  skip "nobody cannot reach $shared (a parent directory closed to other users?): set TMPDIR"
if findmnt -no OPTIONS --target "$shared" 2>/dev/null | grep -qw nosuid; then
  skip "the file system of $shared ignores setuid bits (nosuid): set TMPDIR"
fi
cp "$libdir/libhpcrun-lite.so" "$shared/"
step "cc $src -lhpcrun-lite (RUNPATH $shared)"
cc -O1 -o "$shared/linked" "$src" -Wl,--no-as-needed -L"$shared" -lhpcrun-lite -Wl,-rpath,"$shared" -lpthread ||
  fail "cannot link the program against the runtime"
cp "$shared/linked" "$shared/suid"
chmod 4755 "$shared/suid"
chmod 777 "$shared"

HPCRUN_LITE_OUT=$shared/plain-meas run_to plain as_nobody "$shared/linked" exit
[ "$(cat plain.status)" = 5 ] || fail "control: status $(cat plain.status), not 5: $(cat plain.err)"
expect_profiles "$shared/plain-meas" 1
HPCRUN_LITE_OUT=$shared/suid-meas run_to suid as_nobody "$shared/suid" exit
[ "$(cat suid.status)" = 5 ] || fail "setuid: status $(cat suid.status), not 5: $(cat suid.err)"
cmp -s plain.out suid.out || fail "setuid: the program's output differs"
[ ! -e "$shared/suid-meas" ] || { ls -laR "$shared/suid-meas" >&2; fail "setuid: the runtime wrote into $shared/suid-meas"; }
echo "setuid copy run as nobody: status 5, nothing written; the plain copy wrote its profile" >&2
