#!/usr/bin/env bash
# Runs the libFuzzer targets of the readers (tests/fuzz/) for a set time each.
#
#   scripts/fuzz.sh [--seconds N] [--build-dir DIR] [--target fuzz_profile|fuzz_database]...
#
# Configures and builds its own clang build (-DHPCL_FUZZ=ON; default build-fuzz/ in the source
# tree), starts each target from the checked-in seeds (tests/fuzz/corpus/<target>/) plus what
# earlier runs found (DIR/corpus/<target>/, never written back to the source tree), and stops
# after N seconds (default 60) per target. Inputs that crash are kept in DIR/artifacts/; turn each
# into a regression test (tests/unit/format/fuzz_regressions/). Exit status: 0 when no target
# crashed, 1 when one did, 77 when clang cannot build libFuzzer programs here (ctest: skipped).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
seconds=60
build=$root/build-fuzz
targets=()
while [ $# -gt 0 ]; do
  case $1 in
    --seconds) seconds=$2; shift 2 ;;
    --build-dir) build=$2; shift 2 ;;
    --target) targets+=("$2"); shift 2 ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    *) echo "fuzz.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
[ ${#targets[@]} -gt 0 ] || targets=(fuzz_profile fuzz_database)

# libFuzzer is part of clang: without a clang that links -fsanitize=fuzzer there is nothing to run.
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
printf '#include <cstdint>\n#include <cstddef>\nextern "C" int LLVMFuzzerTestOneInput(const uint8_t*, size_t) { return 0; }\n' >"$probe/p.cpp"
if ! command -v clang++ >/dev/null || ! clang++ -fsanitize=fuzzer,address "$probe/p.cpp" -o "$probe/p" 2>"$probe/err"; then
  echo "fuzz.sh: clang++ with -fsanitize=fuzzer is not available here (apt install clang); skipped" >&2
  cat "$probe/err" >&2 2>/dev/null || true
  exit 77
fi

if [ ! -f "$build/CMakeCache.txt" ]; then
  CC=clang CXX=clang++ cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DHPCL_FUZZ=ON -DHPCL_BUILD_TESTS=OFF -DHPCL_BUILD_BENCH=OFF >"$build.configure.log" 2>&1 ||
    { cat "$build.configure.log" >&2; exit 1; }
fi
cmake --build "$build" -j2 --target "${targets[@]}" >&2

mkdir -p "$build/artifacts"
status=0
for t in "${targets[@]}"; do
  seeds=$root/tests/fuzz/corpus/${t#fuzz_}
  work=$build/corpus/${t#fuzz_}
  mkdir -p "$work"
  log=$build/$t.log
  echo "fuzz.sh: $t for ${seconds}s (seeds: $seeds)" >&2
  # rss_limit: a reader that allocates what a small input claims is a bug, not an OOM of the
  # machine. max_len: profiles of a few KiB reach every section.
  if ! "$build/bin/$t" -max_total_time="$seconds" -rss_limit_mb=1024 -max_len=65536 -timeout=10 \
       -print_final_stats=1 -artifact_prefix="$build/artifacts/$t-" "$work" "$seeds" >"$log" 2>&1; then
    status=1
    echo "fuzz.sh: $t FOUND A CRASH; the input is in $build/artifacts/ (log: $log)" >&2
    grep -E "ERROR|SUMMARY|Test unit written" "$log" >&2 || tail -20 "$log" >&2
  fi
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 || true)
  echo "fuzz.sh: $t: $runs executions, $cov" >&2
done
exit $status
