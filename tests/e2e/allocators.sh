#!/usr/bin/env bash
# One program linked against each allocator (tests/programs/allocators.cpp has the expected
# proportions): the variables and their shares must not depend on the allocator.
#   allocators.sh arrays|nodes|containers PROGRAM [API]
# arrays: three new[] arrays, one malloc array and (API, when the allocator has one: mallocx,
#   tc_malloc, mi_malloc, scalable_malloc) one from the allocator's own entry point; each a
#   variable named by its allocating function, its share within the tolerance of its sample
#   count (check_alloc.py, tolerance.py) of the program's timing, at most 10% of the samples
#   untracked.
# nodes: 1M small nodes from malloc: the shares add up to at most 102%, no sample counted twice.
# containers: a vector beside a hash map: each its measured share, within its tolerance.
# new_handler: bad_alloc and the new_handler behave as natively (the output says how), and the
#   two new[] arrays allocated after the throw are variables with their measured shares.
# Rates: arrays at 2,000/s (about 5,000-6,600 samples: 4.6 points on a 3/8 share, 5.7 at
# 1,000/s), new_handler at 4,000/s (about 5,400: 4.1 points on 2/3; 6.9 at 1,000/s).
source "$(dirname "$0")/lib.sh"

mode=$1
prog=$2
api=${3:-}
[ -x "$prog" ] || skip "$(basename "$prog") was not built (its allocator is not installed): $prog"

# tcmalloc reports a failed large allocation with its call stack's addresses, which differ from
# run to run; the new_handler mode makes one on purpose.
export TCMALLOC_LARGE_ALLOC_REPORT_THRESHOLD=$((1 << 62))
if [ "$mode" = new_handler ] && ! "$prog" new_handler 1 2>/dev/null | grep -q "bad_alloc caught"; then
  # mimalloc's operator new aborts when memory runs out and no handler is left, by design: then
  # the tool must abort it the same way (status, output), not throw for it nor keep it alive.
  run_to native "$prog" new_handler 1
  run_to tool "$HPCL_RUN" -e "soft@$SOFT_RATE" -o meas -- "$prog" new_handler 1
  same_as_native native tool
  echo "$(basename "$prog"): operator new ends the program natively (status $(cat native.status)); so it does under the tool" >&2
  exit 0
fi
# The containers mode checks whose rows a vector's and a hash map's samples land in, so every
# small block is tracked: its map of 1M nodes is built in one burst, tracked one in up to 64, and
# the estimate of such a site came out at 497 where ~1,100 was true once in about eight runs (44
# samples in its tracked nodes where ~90 are expected), which is the estimator's noise, not the
# attribution this test is about.
[ "$mode" = containers ] && export HPCRUN_LITE_SMALL_EVERY=1
[ "$mode" = arrays ] && SOFT_RATE=2000
[ "$mode" = new_handler ] && SOFT_RATE=4000
measure_timed_like_native "$prog" "$mode"

checker=("$HPCL_PYTHON" "$E2E_DIR/check_alloc.py" report.json --timing timing)
case $mode in
  arrays)
    vars=(--var new_alpha "operator new[]" new_alpha --var new_beta "operator new[]" new_beta
          --var new_gamma "operator new[]" new_gamma --var malloc_delta malloc malloc_delta)
    [ -n "$api" ] && vars+=(--var api_epsilon "$api" api_epsilon)
    "${checker[@]}" "${vars[@]}" --max-untracked 0.10 ;;
  nodes)
    # The nodes are tracked one in k: their estimate's noise is about 10% of the samples here
    # (the report's own 95% interval about 25%); their share's tolerance counts it (check_alloc.py).
    # Up to 30% of the data samples may stay in [untracked heap] (tbb: 23% once, the estimate
    # 22% low, inside its interval); what this mode checks is the sum of the shares. The array
    # is read for 1.2% of the time, too little at this rate for a check that catches it losing
    # half (--light): its share is held to its tolerance, the nodes' to theirs.
    "${checker[@]}" --var "list nodes" malloc make_nodes --var array malloc make_array \
      --light array --min-known 0.7 ;;
  containers)
    "${checker[@]}" --var vector "operator new" make_vector --var "hash map" "*" make_map ;;
  new_handler)
    "${checker[@]}" --var new_alpha "operator new[]" new_alpha --var new_beta "operator new[]" new_beta \
      --max-untracked 0.10 ;;
  *) fail "unknown mode $mode" ;;
esac
