#!/usr/bin/env bash
# -o on a read-only bind mount: the launcher refuses before the program starts (exit 2, the
# reason), both for a directory to create there and for the mount point itself; a program that
# would create a marker file did not run. Exits 77 where a bind mount cannot be made (not root,
# no CAP_SYS_ADMIN).
# Usage: outdir_readonly.sh
source "$(dirname "$0")/lib.sh"

mkdir src ro
mount --bind src ro 2>/dev/null || skip "cannot bind-mount here (needs root)"
trap 'umount "$PWD/ro" 2>/dev/null || true' EXIT
mount -o remount,bind,ro ro 2>/dev/null || skip "cannot remount a bind mount read-only here"
if touch ro/writable 2>/dev/null; then skip "the read-only mount takes files (root bypasses it?)"; fi

for out in ro/meas ro; do
  run_to refused "$HPCL_RUN" -o "$out" -- touch marker
  [ "$(cat refused.status)" = 2 ] || { cat refused.err >&2; fail "-o $out: exit status $(cat refused.status), expected 2"; }
  grep -qi "read-only file system" refused.err || fail "-o $out: no reason given: $(cat refused.err)"
  [ ! -e marker ] || fail "-o $out: the program ran"
done
echo "a read-only measurement directory is refused before the program starts" >&2
