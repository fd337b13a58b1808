#!/usr/bin/env bash
# The Debian package (cmake/Packaging.cmake, issue 39), as a user installs and runs it.
#
#   deb_install.sh BUILD_DIR
#
# BUILD_DIR is a built tree configured with include(Packaging) (it has CPackConfig.cmake);
# packages are best configured with -DCMAKE_INSTALL_PREFIX=/usr (cmake/Packaging.cmake says why).
#  1. `cpack -G DEB` in BUILD_DIR, into a scratch directory (again with
#     CPACK_DEBIAN_PACKAGE_SHLIBDEPS=OFF, the explicit Depends, if dpkg-shlibdeps fails);
#  2. `dpkg-deb --info`: name, version (the project's), maintainer, Depends with libc6 and the
#     dlopened libpfm4 and libunwind8; `dpkg-deb --contents`: the four commands, the runtime, the
#     validation kernel, the manual pages, the header, the CMake and pkg-config files, all under
#     ./usr/ and none naming the packaging's staging directory;
#  3. installs it into an empty root with `dpkg --root=ROOT --force-not-root --force-depends
#     --force-script-chrootless -i` (the maintainer scripts' ldconfig replaced by a no-op, so the
#     host is not touched), or, where dpkg refuses, unpacks it with `dpkg-deb -x`;
#  4. from ROOT/usr/bin, with LD_LIBRARY_PATH unset: --version of each command; the example the
#     package installs (share/doc/hpcrun-lite/examples/named_pool.c, compiled here against the
#     package's header) measured by ROOT/usr/bin/hpcrun-lite -v, which must preload ROOT's
#     runtime; `hpcprof-lite merge` and `report`, whose table must have its three named arrays
#     (pressure, velocity, density) as rows; `hpcrun-lite --check --validate`
#     (the kernel in ROOT/usr/libexec);
#  5. `dpkg --root=ROOT -r hpcrun-lite` leaves no file of the package.
# Prints the time of each step.
# Exit status: 0 pass, 1 fail ("FAIL: ..."), 77 when cpack or dpkg-deb is missing.
set -uo pipefail

fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*" >&2; exit 77; }
step() { echo "+ $*" >&2; }
t0=$EPOCHREALTIME
lap_start=$t0
lap() {  # lap NAME: prints the time since the previous lap
  local now=$EPOCHREALTIME
  awk -v n="$1" -v a="$lap_start" -v b="$now" 'BEGIN { printf "time: %-28s %6.1f s\n", n, b - a }'
  lap_start=$now
}

[ $# -eq 1 ] || { echo "usage: $0 BUILD_DIR" >&2; exit 2; }
build=$(cd "$1" 2>/dev/null && pwd) || fail "no build directory $1"
command -v dpkg-deb >/dev/null || skip "dpkg-deb is not installed"
cpack_cmd=""
cmake_bin=$(sed -n 's/^CMAKE_COMMAND:INTERNAL=//p' "$build/CMakeCache.txt" 2>/dev/null)
if [ -n "$cmake_bin" ] && [ -x "$(dirname "$cmake_bin")/cpack" ]; then
  cpack_cmd=$(dirname "$cmake_bin")/cpack  # the cpack of the cmake that configured BUILD_DIR
elif command -v cpack >/dev/null; then
  cpack_cmd=$(command -v cpack)
fi
[ -n "$cpack_cmd" ] || skip "cpack is not installed"
[ -f "$build/CPackConfig.cmake" ] ||
  fail "$build has no CPackConfig.cmake: configure it with include(Packaging) in CMakeLists.txt (after include(Install))"
[ -x "$build/bin/hpcrun-lite" ] || fail "$build is not built (no bin/hpcrun-lite): cmake --build $build"
command -v cc >/dev/null || fail "no C compiler (cc) for the measured program (build-essential)"
version=$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$build/CMakeCache.txt")
[ -n "$version" ] || fail "no CMAKE_PROJECT_VERSION in $build/CMakeCache.txt"

work=$(mktemp -d "${TMPDIR:-/tmp}/hpcl-deb.XXXXXX") || fail "mktemp"
trap 'rm -rf "$work"' EXIT
cd "$work" || fail "cd $work"

# 1. The package.
step "(cd $build && $cpack_cmd -G DEB -B $work/pkg)"
if ! (cd "$build" && "$cpack_cmd" -G DEB -B "$work/pkg") >cpack.log 2>&1; then
  grep -q "dpkg-shlibdeps" cpack.log || fail "cpack -G DEB failed: $(tail -15 cpack.log)"
  echo "note: dpkg-shlibdeps failed ($(grep -m1 -o "dpkg-shlibdeps: .*" cpack.log | cut -c1-200)); packaging with the explicit Depends" >&2
  step "(cd $build && $cpack_cmd -G DEB -B $work/pkg -D CPACK_DEBIAN_PACKAGE_SHLIBDEPS=OFF)"
  (cd "$build" && "$cpack_cmd" -G DEB -B "$work/pkg" -D CPACK_DEBIAN_PACKAGE_SHLIBDEPS=OFF) >cpack.log 2>&1 ||
    fail "cpack -G DEB failed with CPACK_DEBIAN_PACKAGE_SHLIBDEPS=OFF too: $(tail -15 cpack.log)"
fi
mapfile -t debs < <(find "$work/pkg" -maxdepth 1 -name '*.deb')
[ ${#debs[@]} -eq 1 ] || fail "cpack made ${#debs[@]} .deb files in $work/pkg: ${debs[*]}; $(tail -5 cpack.log)"
deb=${debs[0]}
echo "package: $(basename "$deb"), $(du -h "$deb" | cut -f1)"
lap "cpack -G DEB"

# 2. Its control fields and its files.
dpkg-deb --info "$deb" >info.txt || fail "dpkg-deb --info failed"
field() { sed -n "s/^ $1: //p" info.txt; }
[ "$(field Package)" = hpcrun-lite ] || fail "Package is '$(field Package)', not hpcrun-lite"
[[ $(field Version) == "$version" || $(field Version) == "$version"-* ]] ||
  fail "Version is '$(field Version)', not the project's $version"
[ "$(field Maintainer)" = "hpcrun-lite team" ] || fail "Maintainer is '$(field Maintainer)'"
[ "$(field Architecture)" = "$(dpkg --print-architecture)" ] || fail "Architecture is '$(field Architecture)'"
depends=$(field Depends)
echo "Depends: $depends"
for d in libc6 libpfm4 libunwind8 libzstd1 libdw1; do
  grep -qE "(^|, )$d( |,|$)" <<<"$depends" || fail "Depends lacks $d: $depends"
done
grep -q "^ Description: ." info.txt || fail "no Description"

dpkg-deb --contents "$deb" | awk '{ print $NF }' | sed 's|^\./|/|' >contents.txt || fail "dpkg-deb --contents failed"
grep -v '^/usr/' contents.txt | grep -q . && fail "files outside /usr: $(grep -v '^/usr/' contents.txt | head -5 | tr '\n' ' ')"
for want in /usr/bin/hpcrun-lite /usr/bin/hpcprof-lite /usr/libexec/hpcrun-lite/hpcrun-lite-validate-kernel \
  /usr/share/man/man1/hpcrun-lite.1 /usr/share/man/man1/hpcprof-lite.1 /usr/include/hpcrun-lite.h \
  /usr/share/doc/hpcrun-lite/README.md /usr/share/bash-completion/completions/hpcrun-lite; do
  grep -qE "^$want(\.gz)?$" contents.txt || fail "the package lacks $want"
done
for cmd in hpcprof-lite-mpi hpcviewer-tui; do  # where the build has them
  if [ -x "$build/bin/$cmd" ]; then
    grep -qx "/usr/bin/$cmd" contents.txt || fail "the package lacks /usr/bin/$cmd"
    grep -qE "^/usr/share/man/man1/$cmd\.1(\.gz)?$" contents.txt || fail "the package lacks the manual page of $cmd"
  fi
done
runtime=$(grep -E '^/usr/lib(64)?(/[^/]+)?/libhpcrun-lite\.so$' contents.txt)
[ -n "$runtime" ] || fail "the package has no runtime (/usr/lib*/libhpcrun-lite.so)"
grep -qE '^/usr/lib(64)?(/[^/]+)?/cmake/hpcrun-lite/hpcrun-liteConfig\.cmake$' contents.txt || fail "no CMake package file"
grep -qE '^/usr/lib(64)?(/[^/]+)?/pkgconfig/hpcrun-lite\.pc$' contents.txt || fail "no pkg-config file"
echo "runtime: $runtime; $(grep -vc '/$' contents.txt) files"
lap "dpkg-deb --info/--contents"

# 3. Installed into an empty root.
root=$work/root
mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates" "$root/var/lib/dpkg/triggers" "$root/var/log" stub-bin
: >"$root/var/lib/dpkg/status"
: >"$root/var/lib/dpkg/available"
# The maintainer scripts run on the host (--force-script-chrootless): their ldconfig is a no-op here.
printf '#!/bin/sh\nexit 0\n' >stub-bin/ldconfig
chmod +x stub-bin/ldconfig
how=""
step "dpkg --root=$root --force-not-root --force-depends --force-script-chrootless -i $(basename "$deb")"
if PATH=$work/stub-bin:$PATH:/usr/sbin:/sbin dpkg --root="$root" --force-not-root --force-depends \
  --force-script-chrootless --force-unsafe-io --log=/dev/null -i "$deb" >dpkg.log 2>&1; then
  status=$(dpkg --root="$root" -s hpcrun-lite 2>/dev/null | sed -n 's/^Status: //p')
  [ "$status" = "install ok installed" ] || fail "dpkg --root -s hpcrun-lite says '$status'"
  dpkg --root="$root" -L hpcrun-lite | grep -qx /usr/bin/hpcrun-lite || fail "dpkg -L does not list /usr/bin/hpcrun-lite"
  how="dpkg --root"
else
  echo "note: dpkg --root -i is unworkable here ($(tail -2 dpkg.log | tr '\n' ' ')); unpacking with dpkg-deb -x" >&2
  rm -rf "$root" && mkdir -p "$root"
  dpkg-deb -x "$deb" "$root" || fail "dpkg-deb -x failed"
  how="dpkg-deb -x"
fi
p=$root/usr
if [ ! -x "$p/bin/hpcrun-lite" ] || [ ! -f "$root$runtime" ]; then
  fail "the install ($how) has no $p/bin/hpcrun-lite or $root$runtime"
fi
if grep -rl --binary-files=text "_CPack_Packages" "$root/usr" >stale.txt; then
  fail "installed files name the packaging's staging directory: $(head -3 stale.txt | tr '\n' ' ')"
fi
lap "install ($how)"

# 4. Run from the root.
unset LD_LIBRARY_PATH LD_PRELOAD HPCRUN_LITE_OUT HPCRUN_LITE_EVENTS
for cmd in hpcrun-lite hpcprof-lite hpcprof-lite-mpi hpcviewer-tui; do
  [ -x "$p/bin/$cmd" ] || continue
  v=$("$p/bin/$cmd" --version 2>&1) || fail "$p/bin/$cmd --version failed: $v"
  [[ $v =~ ^$cmd\ ${version//./\\.}\ \(commit\ [^\)]+\)$ ]] || fail "$cmd --version says '$v'"
done
echo "version: $("$p/bin/hpcrun-lite" --version)"

# The example the package installs: a pool carved into three arrays named with the API of
# include/hpcrun-lite.h, read 3:2:1.
example=$p/share/doc/hpcrun-lite/examples/named_pool.c
[ -f "$example" ] || fail "the package has no $example"
cc -O2 -g -I "$p/include" -o prog "$example" || fail "cannot compile the installed example against the package's header"
./prog >native.out || fail "the program fails without the tool"
step "$p/bin/hpcrun-lite -v -o meas -- ./prog"
"$p/bin/hpcrun-lite" -v -o meas -- ./prog >tool.out 2>tool.err || fail "hpcrun-lite -o meas -- ./prog failed (status $?): $(tail -5 tool.err)"
cmp -s native.out tool.out || fail "the program's output under the tool differs: $(cat tool.out)"
used=$(sed -n 's/^hpcrun-lite: module \(.*libhpcrun-lite\.so\)$/\1/p' tool.err | head -1)
[ "$(realpath "$used" 2>/dev/null)" = "$(realpath "$root$runtime")" ] ||
  fail "the measured program loaded the runtime '$used', not the package's $root$runtime"
n=$(find meas -maxdepth 1 -name '*.hpcl' | wc -l)
[ "$n" = 1 ] || fail "expected 1 profile in meas/, found $n: $(tail -3 tool.err)"
step "$p/bin/hpcprof-lite merge meas -o db"
"$p/bin/hpcprof-lite" merge meas -o db >merge.log 2>&1 || fail "hpcprof-lite merge failed: $(tail -3 merge.log)"
step "$p/bin/hpcprof-lite report db"
"$p/bin/hpcprof-lite" report db >report.txt 2>report.err || fail "hpcprof-lite report failed: $(cat report.err)"
for name in pressure velocity density; do
  row=$(grep -E "^ *[0-9]+ +$name +heap " report.txt) ||
    fail "the report has no row for the named array $name:
$(head -30 report.txt)"
  echo "row: $row"
done
lap "measure, merge, report"

step "$p/bin/hpcrun-lite --check --validate"
"$p/bin/hpcrun-lite" --check --validate >validate.txt 2>&1 || fail "--check --validate from the package: $(tail -5 validate.txt)"
grep -q "^validation passed" validate.txt || fail "--check --validate did not pass: $(tail -5 validate.txt)"
lap "--check --validate"

# 5. Removed again.
if [ "$how" = "dpkg --root" ]; then
  PATH=$work/stub-bin:$PATH:/usr/sbin:/sbin dpkg --root="$root" --force-not-root --force-script-chrootless \
    --force-unsafe-io --log=/dev/null -r hpcrun-lite >remove.log 2>&1 || fail "dpkg --root -r hpcrun-lite failed: $(tail -3 remove.log)"
  left=$(find "$root/usr" -type f 2>/dev/null | head -5)
  [ -z "$left" ] || fail "files left after dpkg -r: $left"
  lap "dpkg --root -r"
fi

awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "time: %-28s %6.1f s\n", "total", b - a }'
echo "PASS: $(basename "$deb") installs ($how) and measures, merges and reports from its root"
