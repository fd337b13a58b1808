#!/usr/bin/env bash
# The Lmod modulefile template (packaging/modules/hpcrun-lite.lua.in), issue 39.
#
#   modulefile.sh [TEMPLATE]      (default: the template of this checkout)
#
# (a) With @PREFIX@ an absolute prefix and @VERSION@ 0.1.0, no placeholder is left and the file
#     is valid Lua (`luac -p`, or `lua` loading it where there is no luac).
# (b) Evaluated by `lua` with a stand-in for Lmod's modulefile functions (whatis, help,
#     prepend_path, pathJoin, isFile, myFileName; any other global it calls fails the test): it
#     prepends PREFIX/bin to PATH, PREFIX/share/man to MANPATH, PREFIX to CMAKE_PREFIX_PATH and
#     the library directory's pkgconfig/ (the one holding hpcrun-lite.pc) to PKG_CONFIG_PATH, says
#     its version in whatis, and sets nothing else (no LD_LIBRARY_PATH).
# (c) The same with @PREFIX@ "../../../..", the form installed as
#     PREFIX/share/hpcrun-lite/modulefiles/hpcrun-lite/0.1.0.lua: the prefix is found from the
#     file's own path (here a lib64/ prefix).
# (d) Where Lmod is installed (LMOD_CMD, or Debian's /usr/share/lmod/lmod/libexec/lmod), the
#     installed form is loaded by `module load hpcrun-lite` for real and the environment checked.
#
# Needs lua5.4 (or lua5.3): Debian package lua5.4, in scripts/install-deps.sh.
# Exit status: 0 pass, 1 fail ("FAIL: ...").
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
template=${1:-$here/../../packaging/modules/hpcrun-lite.lua.in}
fail() { echo "FAIL: $*" >&2; exit 1; }
step() { echo "+ $*" >&2; }

[ -f "$template" ] || fail "no modulefile template at $template"
start=$EPOCHREALTIME

luac="" lua=""
for c in luac5.4 luac5.3 luac; do command -v "$c" >/dev/null && { luac=$c; break; }; done
for c in lua5.4 lua5.3 lua; do command -v "$c" >/dev/null && { lua=$c; break; }; done
[ -n "$lua" ] || fail "no Lua interpreter (lua5.4, lua5.3 or lua) to check the modulefile: install the Debian package lua5.4 (scripts/install-deps.sh)"

work=$(realpath "$(mktemp -d "${TMPDIR:-/tmp}/hpcl-modulefile.XXXXXX")")
trap 'rm -rf "$work"' EXIT
version=0.1.0

# A prefix as GNUInstallDirs lays it out: FAKE_PREFIX LIBDIR.
fake_prefix() {
  mkdir -p "$1/bin" "$1/share/man/man1" "$1/$2/pkgconfig" "$1/$2/cmake/hpcrun-lite"
  : >"$1/$2/pkgconfig/hpcrun-lite.pc"
}
# substitute PREFIX_VALUE OUTPUT
substitute() {
  mkdir -p "$(dirname "$2")"
  sed -e "s|@PREFIX@|$1|g" -e "s|@VERSION@|$version|g" "$template" >"$2"
  if grep -n '@[A-Z_][A-Z_]*@' "$2" >"$work/left.txt"; then
    fail "placeholders left after substituting @PREFIX@ and @VERSION@: $(cat "$work/left.txt")"
  fi
}
syntax() {
  if [ -n "$luac" ]; then
    step "$luac -p $1"
    "$luac" -p "$1" 2>"$work/luac.err" || fail "$luac -p rejects the modulefile: $(cat "$work/luac.err")"
  else
    step "$lua: loadfile $1 (no luac)"
    "$lua" -e "assert(loadfile(arg[1]))" "$1" 2>"$work/luac.err" ||
      fail "$lua cannot load the modulefile: $(cat "$work/luac.err")"
  fi
}

# The stand-in for Lmod: records each environment change as "OP VAR VALUE" and each whatis as
# "whatis TEXT"; a call of any other global fails, so the file uses only what is defined here.
cat >"$work/lmod_standin.lua" <<'LUA'
local file = arg[1]
local env = {}
env.whatis = function(s) print("whatis " .. s) end
env.help = function(...) for _, s in ipairs({...}) do assert(type(s) == "string") end print("help") end
env.prepend_path = function(var, val) print("prepend_path " .. var .. " " .. val) end
env.append_path = function(var, val) print("append_path " .. var .. " " .. val) end
env.setenv = function(var, val) print("setenv " .. var .. " " .. val) end
env.pushenv = function(var, val) print("pushenv " .. var .. " " .. val) end
env.pathJoin = function(...)
  local s = table.concat({...}, "/"):gsub("//+", "/")
  return s
end
env.isFile = function(p) local f = io.open(p, "r"); if f then f:close() return true end return false end
env.myFileName = function() return file end
for _, k in ipairs({"ipairs", "pairs", "type", "tostring", "tonumber", "string", "table", "os", "io", "math", "print", "assert", "error", "select"}) do
  env[k] = _G[k]
end
setmetatable(env, {__index = function(_, k) error("the modulefile uses '" .. tostring(k) .. "', which the check does not know (an Lmod function to add, or a typo)", 2) end})
local chunk, err = loadfile(file, "t", env)
if not chunk then io.stderr:write(err .. "\n") os.exit(1) end
local ok, msg = pcall(chunk)
if not ok then io.stderr:write(tostring(msg) .. "\n") os.exit(1) end
LUA

# evaluate MODULEFILE PREFIX LIBDIR: runs it in the stand-in and checks what it sets.
evaluate() {
  local mf=$1 p=$2 libdir=$3
  step "$lua lmod_standin.lua $mf"
  "$lua" "$work/lmod_standin.lua" "$mf" >"$work/ops.txt" 2>"$work/ops.err" ||
    fail "evaluating the modulefile failed: $(cat "$work/ops.err")"
  local want
  for want in "prepend_path PATH $p/bin" "prepend_path MANPATH $p/share/man" \
    "prepend_path CMAKE_PREFIX_PATH $p" "prepend_path PKG_CONFIG_PATH $p/$libdir/pkgconfig" \
    "whatis Version: $version" "help"; do
    grep -qxF "$want" "$work/ops.txt" || fail "the modulefile does not do '$want'; it does: $(tr '\n' ';' <"$work/ops.txt")"
  done
  grep -q "LD_LIBRARY_PATH\|LD_PRELOAD" "$work/ops.txt" && fail "the modulefile sets LD_LIBRARY_PATH or LD_PRELOAD (not needed): $(grep LD_ "$work/ops.txt")"
  # Besides those four, only the empty MANPATH entry that keeps man's own search path.
  local others
  others=$(grep -v '^whatis \|^help$' "$work/ops.txt" | grep -vxF -e "prepend_path PATH $p/bin" \
    -e "prepend_path MANPATH $p/share/man" -e "prepend_path CMAKE_PREFIX_PATH $p" \
    -e "prepend_path PKG_CONFIG_PATH $p/$libdir/pkgconfig" -e "append_path MANPATH ")
  [ -z "$others" ] || fail "the modulefile also does: $(tr '\n' ';' <<<"$others")"
}

# (a) and (b): an absolute prefix, libraries in lib/<multiarch> (a /usr-like layout).
abs=$work/abs-prefix
fake_prefix "$abs" lib/x86_64-linux-gnu
substitute "$abs" "$work/site-modulefiles/hpcrun-lite/$version.lua"
syntax "$work/site-modulefiles/hpcrun-lite/$version.lua"
evaluate "$work/site-modulefiles/hpcrun-lite/$version.lua" "$abs" lib/x86_64-linux-gnu

# (c): the installed form, the prefix relative to the file, libraries in lib64/.
rel=$work/moved/prefix
fake_prefix "$rel" lib64
installed=$rel/share/hpcrun-lite/modulefiles/hpcrun-lite/$version.lua
substitute "../../../.." "$installed"
syntax "$installed"
evaluate "$installed" "$rel" lib64

# (d): Lmod itself, where it is installed.
lmod_cmd=${LMOD_CMD:-}
[ -n "$lmod_cmd" ] || for c in /usr/share/lmod/lmod/libexec/lmod /opt/apps/lmod/lmod/libexec/lmod; do
  [ -x "$c" ] && { lmod_cmd=$c; break; }
done
if [ -n "$lmod_cmd" ] && [ -x "$lmod_cmd" ]; then
  step "$lmod_cmd bash load hpcrun-lite (MODULEPATH=$rel/share/hpcrun-lite/modulefiles)"
  # shellcheck disable=SC2016  # the inner bash expands them
  out=$(env -i HOME="$work" PATH=/usr/bin:/bin MODULEPATH="$rel/share/hpcrun-lite/modulefiles" \
    LMOD_SHORT_TIME=86400 bash --norc --noprofile -c '
      eval "$("$1" bash load hpcrun-lite)" || exit 1
      echo "PATH=$PATH"; echo "MANPATH=${MANPATH-}"; echo "CMAKE_PREFIX_PATH=${CMAKE_PREFIX_PATH-}"
      echo "PKG_CONFIG_PATH=${PKG_CONFIG_PATH-}"; echo "LD_LIBRARY_PATH=${LD_LIBRARY_PATH-}"
      echo "LOADED=${LOADEDMODULES-}"' _ "$lmod_cmd" 2>"$work/lmod.err") ||
    fail "module load hpcrun-lite failed: $(cat "$work/lmod.err")"
  [ ! -s "$work/lmod.err" ] || fail "module load hpcrun-lite complains: $(cat "$work/lmod.err")"
  # env -i: MANPATH was unset, so it ends with the empty entry that keeps man's own pages.
  for want in "PATH=$rel/bin:/usr/bin:/bin" "MANPATH=$rel/share/man::" "CMAKE_PREFIX_PATH=$rel" \
    "PKG_CONFIG_PATH=$rel/lib64/pkgconfig" "LD_LIBRARY_PATH=" "LOADED=hpcrun-lite/$version"; do
    grep -qxF "$want" <<<"$out" || fail "after module load, expected $want; got: $(tr '\n' ';' <<<"$out")"
  done
  grep -q "^LD_LIBRARY_PATH=.\+" <<<"$out" && fail "module load sets LD_LIBRARY_PATH"
  echo "lmod: module load hpcrun-lite/$version sets PATH, MANPATH, CMAKE_PREFIX_PATH, PKG_CONFIG_PATH ($lmod_cmd)"
else
  echo "lmod: not installed, the modulefile was checked with the stand-in only"
fi

echo "PASS: the modulefile template parses (${luac:-$lua}) and sets PATH, MANPATH, CMAKE_PREFIX_PATH," \
  "PKG_CONFIG_PATH for an absolute and a relative prefix ($(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }') s)"
