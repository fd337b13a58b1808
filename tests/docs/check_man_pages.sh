#!/usr/bin/env bash
# Checks the manual pages and the bash completion of the four commands against the binaries.
#
#   check_man_pages.sh BIN_DIR MAN_DIR COMPLETION_FILE
#
# For hpcrun-lite, hpcprof-lite, hpcprof-lite-mpi and hpcviewer-tui (the last two are skipped,
# with a message, when BIN_DIR lacks their binary):
#   (a) MAN_DIR/<cmd>.1 renders with `man --warnings -l` with nothing on standard error;
#   (b) every option (-x, --long-option) that `<cmd> --help` prints (for hpcprof-lite also
#       `merge --help`, `report --help`, `diff --help`) is in the OPTIONS section of the
#       rendered page; for hpcprof-lite, each option a command's --help lists on a line of
#       its own (but -h, --help) is also in that command's subsection (.SS merge, ...);
#       and no line of those --help texts is wider than 80 columns;
#   (c) the page has the sections NAME, SYNOPSIS, DESCRIPTION, OPTIONS, EXIT STATUS, SEE ALSO.
# Then (d) COMPLETION_FILE, sourced in `bash --norc`, registers a function for each command
# and completes `hpcrun-lite -e s` to soft, `hpcprof-lite rep` to report and
# `hpcprof-lite report --format ` to json (in plain bash, and again after bash-completion
# when that package is installed).
#
# Exit status: 0 when everything passes, 1 on a failure (each printed as "FAIL: ..."),
# 77 when man itself is not installed.
set -uo pipefail

if [ $# -ne 3 ]; then
  echo "usage: $0 BIN_DIR MAN_DIR COMPLETION_FILE" >&2
  exit 2
fi
# Absolute paths: the completion checks run in a scratch directory.
absolute() { case $1 in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }
BIN_DIR=$(absolute "$1")
MAN_DIR=$(absolute "$2")
COMPLETION=$(absolute "$3")

if ! command -v man >/dev/null 2>&1; then
  echo "SKIP: man is not installed" >&2
  exit 77
fi

failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

WORK=$(mktemp -d "${TMPDIR:-/tmp}/check_man_pages.XXXXXX") || exit 1
trap 'rm -rf "$WORK"' EXIT

# Render as a user at an 80-column terminal would see the page, with nothing from the caller's
# man configuration in the way (a pager, kept formatting, extra options).
unset MANOPT MANPAGER PAGER MAN_KEEP_FORMATTING MANROFFOPT GROFF_TMAC_PATH
export MANWIDTH=80
export MAN_DISABLE_SECCOMP=1 # man-db's sandbox fails in some containers; it is not under test
if locale -a 2>/dev/null | grep -qiE '^c\.utf-?8$'; then
  export LC_ALL=C.UTF-8
else
  export LC_ALL=C
fi

# Runs a command with a time limit where `timeout` exists.
limited() {
  if command -v timeout >/dev/null 2>&1; then
    timeout 60 "$@"
  else
    "$@"
  fi
}

# The options that a --help text (stdin) names: -x and --long-option tokens that start a word.
help_options() {
  grep -oE '(^|[^A-Za-z0-9_-])--?[A-Za-z][A-Za-z0-9-]*' |
    sed -E 's/^[^-]//' |
    grep -E '^(-[A-Za-z]|--[A-Za-z][A-Za-z0-9-]*[A-Za-z0-9])$' |
    sort -u
}

# Plain text of a rendered page (stdin): no overstriking, ASCII hyphens and minus signs, and a
# word broken at a hyphen at the end of a line joined again.
plain_text() {
  sed -e 's/.\x08//g' -e 's/\xe2\x80\x90/-/g' -e 's/\xe2\x80\x91/-/g' -e 's/\xe2\x88\x92/-/g' |
    awk '{
      if (held != "") { sub(/^[ \t]+/, ""); $0 = held $0; held = "" }
      if ($0 ~ /[A-Za-z0-9]-$/) { held = $0; next }
      print
    } END { if (held != "") print held }'
}

# The body of section $1 of a plain page (stdin): from its heading to the next heading.
section() {
  awk -v name="$1" '
    $0 == name { inside = 1; next }
    /^[A-Z][A-Z ]*[A-Z]$/ { inside = 0 }
    inside'
}

# The body of subsection $1 (.SS, rendered indented by 3 columns) of a section (stdin).
subsection() {
  awk -v name="$1" '
    /^   [^ ]/ { inside = ($1 == name) ; next }
    inside'
}

# Is option $1 in the text file $2?
names_option() {
  grep -qE -- "(^|[^A-Za-z0-9_-])$1([^A-Za-z0-9_-]|\$)" "$2"
}

# lacking FILE OPTION...: prints the options FILE does not name, separated by spaces.
lacking() {
  local file=$1 opt
  shift
  for opt; do names_option "$opt" "$file" || printf '%s ' "$opt"; done
}

check_page() {
  local cmd=$1
  local page="$MAN_DIR/$cmd.1"
  if [ ! -f "$page" ]; then
    fail "$cmd: no manual page $page"
    return
  fi

  # (a) It renders without warnings.
  local out="$WORK/$cmd.txt" err="$WORK/$cmd.err"
  local status=0
  man --warnings -E UTF-8 -l "$page" >"$out" 2>"$err" || status=$?
  if [ "$status" -ne 0 ]; then
    fail "$cmd: man --warnings -l $page failed (status $status): $(cat "$err")"
    return
  fi
  if [ -s "$err" ]; then
    fail "$cmd: man --warnings -l $page printed warnings:"
    sed 's/^/    /' "$err" >&2
  fi
  plain_text <"$out" >"$WORK/$cmd.plain"
  if [ ! -s "$WORK/$cmd.plain" ]; then
    fail "$cmd: $page renders to nothing"
    return
  fi

  # (c) The sections.
  local s
  for s in NAME SYNOPSIS DESCRIPTION OPTIONS "EXIT STATUS" "SEE ALSO"; do
    grep -qx "$s" "$WORK/$cmd.plain" || fail "$cmd: $page has no $s section"
  done

  # (b) Every option of --help, in the OPTIONS section.
  local helps=("")
  [ "$cmd" = hpcprof-lite ] && helps=("" merge report diff)
  section OPTIONS <"$WORK/$cmd.plain" >"$WORK/$cmd.options"
  local sub help opt what
  for sub in "${helps[@]}"; do
    what="$cmd${sub:+ $sub} --help"
    # shellcheck disable=SC2086 # $sub is one word or none
    if ! help=$(limited "$BIN_DIR/$cmd" $sub --help 2>&1); then
      fail "$what exited with a failure status: $help"
      continue
    fi
    # A terminal of 80 columns shows --help whole: no line breaks mid-word.
    local wide
    wide=$(awk 'length($0) > 80 { n++ } END { print n + 0 }' <<<"$help")
    [ "$wide" = 0 ] || fail "$what prints $wide lines wider than 80 columns"
    local options
    options=$(help_options <<<"$help")
    if [ -z "$options" ]; then
      fail "$what names no option (cannot check the page)"
      continue
    fi
    local missing
    # shellcheck disable=SC2086  # the options are words
    missing=$(lacking "$WORK/$cmd.options" $options)
    if [ -n "$missing" ]; then
      fail "$cmd: the OPTIONS section of $page lacks ${missing% } (printed by $what)"
    else
      echo "ok: $cmd.1 names the $(wc -w <<<"$options") options of $what"
    fi
    [ -n "$sub" ] || continue
    # The options that the command's own list defines (lines that start with an option),
    # in its subsection.
    subsection "$sub" <"$WORK/$cmd.options" >"$WORK/$cmd.$sub"
    if [ ! -s "$WORK/$cmd.$sub" ]; then
      fail "$cmd: the OPTIONS section of $page has no subsection $sub"
      continue
    fi
    options=$(grep -E '^[[:space:]]+-' <<<"$help" | help_options | grep -vxE -- '-h|--help')
    # shellcheck disable=SC2086
    missing=$(lacking "$WORK/$cmd.$sub" $options)
    if [ -n "$missing" ]; then
      fail "$cmd: the subsection $sub of $page lacks ${missing% } (listed by $what)"
    fi
  done
}

for cmd in hpcrun-lite hpcprof-lite hpcprof-lite-mpi hpcviewer-tui; do
  if [ ! -x "$BIN_DIR/$cmd" ]; then
    case $cmd in
      hpcprof-lite-mpi | hpcviewer-tui)
        echo "skipped: $cmd (no $BIN_DIR/$cmd: not built here)"
        continue
        ;;
      *)
        fail "$cmd: no executable $BIN_DIR/$cmd"
        continue
        ;;
    esac
  fi
  check_page "$cmd"
done

# (d) The completion, called as bash calls it on TAB: COMP_WORDS, COMP_CWORD, COMP_LINE and
# COMP_POINT set, and the function given the command, the word and the word before it.
if [ ! -f "$COMPLETION" ]; then
  fail "no completion file $COMPLETION"
else
  # shellcheck disable=SC2016 # expanded by the inner bash
  completion_checks='
    status=0
    for cmd in hpcrun-lite hpcprof-lite hpcprof-lite-mpi hpcviewer-tui; do
      complete -p "$cmd" 2>/dev/null | grep -q -- " -F " ||
        { echo "FAIL: $label: no completion function for $cmd"; status=1; }
    done
    # expect WORD COMMAND ARGS... CURRENT: completing CURRENT offers WORD.
    expect() {
      local want=$1; shift
      local f line="$*"
      f=$(complete -p "$1" 2>/dev/null | sed -n "s/.* -F \([^ ]*\) .*/\1/p")
      [ -n "$f" ] || return 0 # reported above
      COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
      COMP_LINE=$line; COMP_POINT=${#line}; COMP_TYPE=9; COMP_KEY=9
      COMPREPLY=()
      "$f" "$1" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}" 2>/dev/null
      local w
      for w in "${COMPREPLY[@]}"; do [ "$w" = "$want" ] && { echo "ok: $label: \"$line<TAB>\" offers $want"; return 0; }; done
      echo "FAIL: $label: \"$line<TAB>\" offers \"${COMPREPLY[*]}\", not $want"
      status=1
    }
    expect soft hpcrun-lite -e s
    expect report hpcprof-lite rep
    expect json hpcprof-lite report --format ""
    expect top-down hpcviewer-tui --view ""
    expect --jobs hpcprof-lite-mpi --jo
    exit $status'
  mkdir -p "$WORK/cwd"
  run_completion() { # label, then the script to source first (or nothing)
    local label=$1 pre=${2-} out
    out=$(cd "$WORK/cwd" && label=$label PRE=$pre COMPLETION=$COMPLETION \
      bash --norc --noprofile -c '
        if [ -n "$PRE" ]; then source "$PRE" || echo "FAIL: $label: cannot source $PRE"; fi
        source "$COMPLETION" || { echo "FAIL: $label: cannot source $COMPLETION"; exit 1; }
        '"$completion_checks" 2>&1)
    local line
    while IFS= read -r line; do
      case $line in
        FAIL:*) fail "${line#FAIL: }" ;;
        ok:*) echo "$line" ;;
        *) fail "$label: unexpected output: $line" ;;
      esac
    done <<<"$out"
  }
  run_completion "completion in plain bash"
  # HPCL_BASH_COMPLETION names bash-completion's main script where it is elsewhere.
  bc=${HPCL_BASH_COMPLETION:-/usr/share/bash-completion/bash_completion}
  if [ -f "$bc" ]; then
    run_completion "completion with bash-completion" "$bc"
  else
    echo "skipped: completion with bash-completion ($bc is not installed)"
  fi
fi

if [ "$failures" -gt 0 ]; then
  echo "FAIL: $failures check(s) failed" >&2
  exit 1
fi
echo "PASS: manual pages and bash completion"
exit 0
