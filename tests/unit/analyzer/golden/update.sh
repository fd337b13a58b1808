#!/bin/sh
# Regenerates the golden test's inputs (profiles/, from golden_gen.cpp) and expected outputs
# (expected/) with a built tree. Review the diff before committing: it is the point of the test.
# usage: update.sh BUILD_DIR
set -eu
build=${1:?usage: update.sh BUILD_DIR}
here=$(cd "$(dirname "$0")" && pwd)
bin=$build/bin
unset COLUMNS  # the golden text tables are 120 columns wide
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

rm -f "$here"/profiles/*.hpcl
"$bin/analyzer_golden_gen" "$here/profiles"
"$bin/hpcprof-lite" merge "$here/profiles" -o "$work/stencil.hpcdb" -j 2 \
  >/dev/null 2>"$here/expected/merge.stderr"
for view in data code; do
  for fmt in text json csv; do
    "$bin/hpcprof-lite" report "$work/stencil.hpcdb" --format $fmt --view $view --top 0 \
      >"$here/expected/$view.$fmt"
  done
done
"$bin/hpcprof-lite" report "$work/stencil.hpcdb" --format folded >"$here/expected/data.folded"
"$bin/hpcprof-lite" report "$work/stencil.hpcdb" --format csv --view accesses \
  >"$here/expected/accesses.csv"
"$bin/hpcprof-lite" report "$work/stencil.hpcdb" --top 3 >"$here/expected/top3.text"
"$bin/hpcprof-lite" report "$work/stencil.hpcdb" --no-group --all --width 80 \
  >"$here/expected/nogroup-all-80.text"
mem=$here/memory
mkdir -p "$mem/profiles" "$mem/expected"
rm -f "$mem"/profiles/*.hpcl
"$bin/analyzer_golden_gen" --memory "$mem/profiles"
"$bin/hpcprof-lite" merge "$mem/profiles" -o "$work/chase.hpcdb" -j 2 \
  >/dev/null 2>"$mem/expected/merge.stderr"
for fmt in text json csv; do
  "$bin/hpcprof-lite" report "$work/chase.hpcdb" --format $fmt --top 0 >"$mem/expected/data.$fmt"
done
"$bin/hpcprof-lite" report "$work/chase.hpcdb" --width 80 >"$mem/expected/data-80.text"
# The JSON diff of a synthetic pair (diff/diff.json) is written by its unit test.
HPCL_UPDATE_GOLDEN=1 "$bin/analyzer_tests" --gtest_filter='DiffFormat.GoldenJson' >/dev/null
echo "updated $here; review with git diff"
