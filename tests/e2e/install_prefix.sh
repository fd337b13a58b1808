#!/usr/bin/env bash
# The installed tool, as a cluster gets it (issue 39): `cmake --install` into a prefix, the prefix
# moved elsewhere, and then, with LD_LIBRARY_PATH unset and nothing of the build tree on any path:
# each command's --version (version and commit), the bundled MPI example measured on 2 ranks,
# merged and reported as the demo's test checks it, and viewed in a terminal; `--check --validate` (the kernel under
# libexec/); and a program built against the installed package, by find_package(hpcrun-lite) and by
# pkg-config, whose named pool parts are rows of its report.
# Usage: install_prefix.sh CMAKE BUILD_DIR HEAT2D
source "$(dirname "$0")/lib.sh"
setup_mpi
cmake_cmd=$1 build=$2 heat2d=$3
[ -x "$heat2d" ] || skip "the example was not built (no MPI?): $heat2d"
command -v cc >/dev/null || skip "no C compiler (cc) for the program built against the package"

step "cmake --install $build --prefix $PWD/staged"
"$cmake_cmd" --install "$build" --prefix "$PWD/staged" >install.log || fail "cmake --install failed: $(tail -3 install.log)"
mv staged moved
p=$PWD/moved
unset LD_LIBRARY_PATH
# Nothing in the prefix may name where it was installed: a moved prefix would find stale files.
if grep -rl --binary-files=text "$PWD/staged" "$p" >stale.txt; then fail "the prefix names its first path: $(cat stale.txt)"; fi

for cmd in hpcrun-lite hpcprof-lite hpcprof-lite-mpi hpcviewer-tui; do
  [ -x "$p/bin/$cmd" ] || fail "$cmd is not installed in bin/"
  v=$("$p/bin/$cmd" --version) || fail "$cmd --version failed"
  [[ $v =~ ^$cmd\ [0-9]+\.[0-9]+\.[0-9]+\ \(commit\ [0-9a-z-]+\)$ ]] || fail "$cmd --version says '$v'"
  readelf -d "$p/bin/$cmd" | grep -q "$build" && fail "$cmd has a run path into the build tree"
done
for f in include/hpcrun-lite.h include/hpcrun_lite.f90 share/doc/hpcrun-lite/README.md share/doc/hpcrun-lite/USAGE.md \
  share/doc/hpcrun-lite/FORMAT.md share/doc/hpcrun-lite/examples/named_pool.c; do
  [ -f "$p/$f" ] || fail "$f is not installed"
done
# The manual pages and completions, as `man` and bash-completion find them under the prefix.
for cmd in hpcrun-lite hpcprof-lite hpcprof-lite-mpi hpcviewer-tui; do
  [ -f "$p/share/bash-completion/completions/$cmd" ] || fail "no bash completion for $cmd"
  MANWIDTH=80 MAN_DISABLE_SECCOMP=1 man --warnings -l "$p/share/man/man1/$cmd.1" >"man-$cmd.txt" 2>"man-$cmd.err" ||
    fail "man -l $cmd.1 failed: $(cat "man-$cmd.err")"
  [ ! -s "man-$cmd.err" ] || fail "man -l $cmd.1 warns: $(cat "man-$cmd.err")"
  grep -q "^SYNOPSIS" "man-$cmd.txt" || fail "the installed $cmd.1 has no SYNOPSIS"
  MANPATH=$p/share/man man -w "$cmd" >/dev/null 2>&1 || fail "man does not find $cmd under MANPATH=$p/share/man"
done

# The demo's program and check, with the installed tools in place of the build's.
HPCL_RUN=$p/bin/hpcrun-lite HPCL_PROF=$p/bin/hpcprof-lite
run_to native "${MPIRUN[@]}" -np 2 "$heat2d"
run_to tool "${MPIRUN[@]}" -np 2 "$HPCL_RUN" -o meas -- "$heat2d"
cat tool.err >&2
same_as_native native tool
expect_profiles meas 2
merge_and_report meas db.hpcdb report.json
check heat2d report.json --processes 2

# The installed viewer, in a terminal of its own (tmux at 120x40): its first screen lists the
# report's hottest variable, and q quits with status 0.
command -v tmux >/dev/null || fail "tmux is missing (scripts/install-deps.sh installs it)"
hottest=$("$HPCL_PYTHON" -c 'import json,sys; print(json.load(open(sys.argv[1]))["variables"][0]["name"][:12])' report.json)
sock=$(tmux_socket)
trap 'tmux -S "$sock" kill-server >/dev/null 2>&1 || true; rm -f "$sock"' EXIT
step "$p/bin/hpcviewer-tui db.hpcdb in tmux"
tmux -S "$sock" new-session -d -s viewer -x 120 -y 40 \
  "env -u LD_LIBRARY_PATH '$p/bin/hpcviewer-tui' db.hpcdb; echo \$? >'$PWD/viewer.status'; sleep 600"
for ((i = 0; i < 200; i++)); do
  tmux -S "$sock" capture-pane -p -t viewer >screen.txt 2>/dev/null || true
  grep -qF -- "$hottest" screen.txt && break
  sleep 0.05
done
grep -qF -- "$hottest" screen.txt || { cat screen.txt >&2; fail "the installed viewer does not show $hottest"; }
tmux -S "$sock" send-keys -t viewer q
for ((i = 0; i < 100; i++)); do [ -s viewer.status ] && break; sleep 0.05; done
[ "$(cat viewer.status 2>/dev/null)" = 0 ] || fail "the installed viewer did not quit with status 0 on q"

step "$HPCL_RUN --check --validate"
"$HPCL_RUN" --check --validate >validate.txt 2>&1 || fail "--check --validate from the prefix: $(tail -5 validate.txt)"
grep -q "^validation passed" validate.txt || fail "--check --validate did not pass: $(tail -5 validate.txt)"

# A program built against the installed package: CMake's find_package, then pkg-config.
mkdir consumer
cp "$p/share/doc/hpcrun-lite/examples/named_pool.c" consumer/
cat >consumer/CMakeLists.txt <<'CMAKE'
cmake_minimum_required(VERSION 3.20)
project(consumer C)
find_package(hpcrun-lite 0.1 REQUIRED)
add_executable(named_pool named_pool.c)
target_link_libraries(named_pool PRIVATE hpcrun-lite::api)
CMAKE
step "find_package(hpcrun-lite) with CMAKE_PREFIX_PATH=$p"
"$cmake_cmd" -S consumer -B consumer/build -DCMAKE_PREFIX_PATH="$p" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  >consumer.log 2>&1 || fail "configuring against the package failed: $(tail -5 consumer.log)"
"$cmake_cmd" --build consumer/build >>consumer.log 2>&1 || fail "building against the package failed: $(tail -5 consumer.log)"
run_to pool "$HPCL_RUN" -o pool-meas -- consumer/build/named_pool
[ "$(cat pool.status)" = 0 ] || fail "the program built against the package failed: $(tail -3 pool.err)"
merge_and_report pool-meas pool.hpcdb pool.json
"$HPCL_PYTHON" "$E2E_DIR/check_alloc.py" pool.json --var pressure named pressure \
  --var velocity named velocity --var density named density --min-known 0.8

pc_dir=$(dirname "$(find "$p" -name hpcrun-lite.pc | head -1)")
[ -n "$pc_dir" ] || fail "no hpcrun-lite.pc in the prefix"
command -v pkg-config >/dev/null || fail "pkg-config is missing (scripts/install-deps.sh installs it)"
cflags=$(PKG_CONFIG_PATH=$pc_dir pkg-config --cflags hpcrun-lite) || fail "pkg-config --cflags hpcrun-lite failed"
step "cc $cflags named_pool.c"
# shellcheck disable=SC2086  # pkg-config's flags are words
cc $cflags -O2 -g -o pool-pc consumer/named_pool.c || fail "compiling with pkg-config's flags failed"
inc=${cflags#-I}
inc=${inc%% *}
[ "$(realpath "$inc")" = "$(realpath "$p/include")" ] ||
  fail "pkg-config's include directory '$cflags' is not the moved prefix's"
echo "PASS: the moved prefix measures, merges, reports and builds against its package"
