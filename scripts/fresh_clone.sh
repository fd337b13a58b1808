#!/usr/bin/env bash
# Checks a commit the way a new machine and CI see it: clones it into a fresh directory under a
# 0700 `mktemp -d` directory (other users, `nobody` among them, cannot reach the checkout), puts
# the shared/ directory beside the clone as CI does when there is one beside this checkout, and
# runs there, with no standard input, the README's two commands: `./scripts/demo.sh` (unless
# --no-demo) and `CI=true ./scripts/test.sh`. Prints the tail of each and exits non-zero when
# either fails. The clone is removed at the end unless --keep.
# Usage: scripts/fresh_clone.sh [--keep] [--no-demo] [COMMIT]   (COMMIT defaults to HEAD; only
# committed work is checked)
set -euo pipefail
# shellcheck source=scripts/lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

keep=0
demo=1
commit=HEAD
while [ $# -gt 0 ]; do
  case $1 in
    --keep) keep=1 ;;
    --no-demo) demo=0 ;;
    -h|--help) sed -n '2,9p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "fresh_clone.sh: unknown option $1" >&2; exit 2 ;;
    *) commit=$1 ;;
  esac
  shift
done
sha=$(git -C "$HPCL_ROOT" rev-parse --verify "$commit^{commit}") ||
  { echo "fresh_clone.sh: $commit is not a commit of $HPCL_ROOT" >&2; exit 2; }

top=$(mktemp -d)  # 0700, as mktemp makes it
if [ "$keep" = 0 ]; then trap 'chmod -R u+w "$top" 2>/dev/null; rm -rf "$top"' EXIT; fi
say "cloning $sha into $top/main (a 0700 directory)"
git clone -q --no-local "$HPCL_ROOT" "$top/main"
git -C "$top/main" checkout -q --detach "$sha"
if [ -d "$HPCL_ROOT/../shared" ]; then
  # CI's copy has no write bits; so does this one.
  cp -r "$HPCL_ROOT/../shared" "$top/shared"
  chmod -R a-w "$top/shared"
fi

status=0
run_step() {  # NAME CMD...: runs CMD in the clone, its output in $top/NAME.log
  local name=$1 rc=0
  shift
  say "$name: $* (output in $top/$name.log)"
  (cd "$top/main" && "$@") </dev/null >"$top/$name.log" 2>&1 || rc=$?
  tail -n 25 "$top/$name.log" >&2
  say "$name: exit status $rc"
  if [ "$rc" -ne 0 ] && [ "$status" -eq 0 ]; then status=$rc; fi
}
start=$SECONDS
if [ "$demo" = 1 ]; then run_step demo ./scripts/demo.sh; fi
run_step test env CI=true ./scripts/test.sh
say "fresh clone of ${sha:0:12}: $([ "$status" -eq 0 ] && echo green || echo "red (status $status)") in $((SECONDS - start)) s"
if [ "$keep" = 1 ]; then say "kept: $top"; fi
exit "$status"
