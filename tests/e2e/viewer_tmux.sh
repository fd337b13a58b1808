#!/usr/bin/env bash
# hpcviewer-tui in a real terminal: tmux at 160x45 on the database of a measured run (the
# short_run fixture: alloc_apis, heap arrays from eight allocation APIs, a static array, a stack
# array). The first screen lists the report's variables hottest first, with the static by name
# and the heap ones by allocation site; / finds a variable further down; Tab switches the view;
# a resize redraws; q quits with status 0. Records the time to the first full screen. Also the
# command line: --help lists the options, a bad option or database is an error naming it. And
# --diff of the database with itself.
# usage: viewer_tmux.sh HPCVIEWER-TUI
source "$(dirname "$0")/lib.sh"
viewer=${1:?usage: viewer_tmux.sh HPCVIEWER-TUI}
: "${HPCL_SHARED:?}"
command -v tmux >/dev/null 2>&1 || skip "tmux not found (scripts/install-deps.sh installs it)"
[ -x "$viewer" ] || fail "hpcviewer-tui not built: $viewer"
db="$HPCL_SHARED/db.hpcdb"
[ -f "$db" ] || fail "the short_run fixture left no database"

# --- The command line, outside the terminal.
"$viewer" --help >help.out 2>&1 || fail "--help failed"
for opt in --view --no-color --no-group --alloc-wrapper --startup-report --diff --version; do
  grep -q -- "$opt" help.out || fail "--help does not list $opt"
done
status=0
"$viewer" --bogus "$db" >bad.out 2>&1 || status=$?
[ "$status" -eq 2 ] || fail "an unknown option exits $status, expected 2 (a usage error)"
grep -q -- "--bogus" bad.out || fail "the error does not name the bad option: $(cat bad.out)"
status=0
"$viewer" "$HPCL_WORK/missing.hpcdb" >missing.out 2>&1 || status=$?
[ "$status" -eq 1 ] || fail "a missing database exits $status, expected 1"
grep -q "missing.hpcdb" missing.out || fail "the error does not name the file: $(cat missing.out)"
echo "not a database" >junk.hpcdb
status=0
"$viewer" junk.hpcdb >junk.out 2>&1 || status=$?
[ "$status" -eq 1 ] || fail "a damaged database exits $status, expected 1"
grep -q "junk.hpcdb" junk.out || fail "the error does not name the file: $(cat junk.out)"

# --- The variables the report lists, in its order (its JSON, made by the fixture).
"$HPCL_PYTHON" - "$HPCL_SHARED/report.json" >expected.tsv <<'PY'
import json, sys
for v in json.load(open(sys.argv[1]))["variables"]:
    m = v.get("metrics", {})
    if m.get("samples", 0) > 0 or m.get("page_faults", 0) > 0:
        print(v["kind"] + "\t" + v["name"])
PY
cat expected.tsv >&2
n=$(wc -l <expected.tsv)
[ "$n" -ge 4 ] || fail "the fixture's report lists only $n variables"
grep -q "^static	static_array$" expected.tsv || fail "no static_array in the report"

# --- The viewer in tmux, on a server of its own.
sock=$(tmux_socket)
tm() { tmux -S "$sock" "$@"; }
cleanup() { tm kill-server >/dev/null 2>&1 || true; rm -f "$sock"; }
trap cleanup EXIT
# wait_for TEXT SECONDS: polls the screen until it shows TEXT.
wait_for() {
  local i
  for ((i = 0; i < $2 * 20; i++)); do
    screen >screen.txt 2>/dev/null || true
    grep -qF -- "$1" screen.txt && return 0
    sleep 0.05
  done
  cat screen.txt >&2
  return 1
}
# viewer_in WINDOW ENV-ASSIGNMENT... -- VIEWER-ARGS...: runs the viewer in a tmux window of that
# name (the first one starts the 160x45 session); its exit status lands in WINDOW.status.
viewer_in() {
  local window=$1 envs=() args="" a
  shift
  while [ "$1" != "--" ]; do envs+=("$1"); shift; done
  shift
  for a in "$@"; do args+=" '$a'"; done
  local cmd="env ${envs[*]} '$viewer'$args; echo \$? >'$HPCL_WORK/$window.status'; sleep 600"
  rm -f "$HPCL_WORK/$window.status"
  if tm has-session -t viewer 2>/dev/null; then
    tm new-window -t viewer -n "$window" "$cmd"
  else
    tm new-session -d -s viewer -n "$window" -x 160 -y 45 "$cmd"
  fi
  shown_window=$window
}
# The screen of the window viewer_in started last.
screen() { tm capture-pane -p -t "viewer:$shown_window"; }
# quits_with_0 WINDOW: q ends the viewer of that window with status 0.
quits_with_0() {
  local i
  tm send-keys -t "viewer:$1" q
  for ((i = 0; i < 100; i++)); do
    [ -s "$HPCL_WORK/$1.status" ] && break
    sleep 0.05
  done
  [ -s "$HPCL_WORK/$1.status" ] || fail "$1: q did not quit"
  [ "$(cat "$HPCL_WORK/$1.status")" = 0 ] || fail "$1: q quit with status $(cat "$HPCL_WORK/$1.status")"
}
utf8=(LANG=C.UTF-8 LC_ALL=C.UTF-8)
started=$(date +%s.%N)
viewer_in main "${utf8[@]}" -- --startup-report "$HPCL_WORK/startup.txt" "$db"
wait_for "row 1/$n " 20 || fail "no first screen within 20 s"
shown=$(date +%s.%N)
first=$(awk -v a="$started" -v b="$shown" 'BEGIN { printf "%.3f", b - a }')
inside=$(awk '{ print $2 }' "$HPCL_WORK/startup.txt" 2>/dev/null || echo "?")
echo "first full screen: $first s in tmux (the viewer's own count: $inside s)" | tee first_screen.txt >&2
cp screen.txt first_screen.screen
cat first_screen.screen >&2

# The first screen: the report's variables in its order, static by name, heap by site.
"$HPCL_PYTHON" - expected.tsv first_screen.screen <<'PY' || fail "the first screen is not the report's variables hottest first"
import sys
expected = [l.rstrip("\n").split("\t", 1) for l in open(sys.argv[1], encoding="utf-8")]
lines = open(sys.argv[2], encoding="utf-8").read().split("\n")
rows = lines[2:2 + len(expected)]
ok = True
for i, ((kind, name), row) in enumerate(zip(expected, rows)):
    label = row[2:].split("  ")[0]
    # A long label is shortened in the middle: its first 12 characters survive.
    if not name.startswith(label.rstrip("…")[:12]) or kind not in row:
        print(f"row {i + 1}: expected {kind} {name!r}, screen has {row!r}", file=sys.stderr)
        ok = False
kinds = {k for k, _ in expected}
if "heap" not in kinds:
    print("no heap variable on the first screen", file=sys.stderr); ok = False
heap = [n for k, n in expected if k == "heap"]
if not any("alloc_with_" in n for n in heap):
    print(f"heap variables not named by their allocation site: {heap}", file=sys.stderr); ok = False
sys.exit(0 if ok else 1)
PY

# / finds a variable further down: the last one listed, at its row.
target=$(tail -n1 expected.tsv | cut -f2)
query=${target:0:14}
row=$("$HPCL_PYTHON" -c '
import sys
names = [l.rstrip("\n").split("\t", 1)[1] for l in open(sys.argv[1], encoding="utf-8")]
q = sys.argv[2].lower()
print(next(i + 1 for i, n in enumerate(names) if i > 0 and q in n.lower()))' expected.tsv "$query")
[ "$row" -gt 1 ] || fail "no variable further down to search for"
tm send-keys -t viewer:main / && tm send-keys -t viewer:main -l "$query" && tm send-keys -t viewer:main Enter
wait_for "row $row/$n " 5 || fail "/$query did not select row $row"

# Tab: the top-down view; 1: back.
tm send-keys -t viewer:main Tab
wait_for "[2 top-down]" 5 || fail "Tab did not switch to the top-down view"
tm send-keys -t viewer:main 1
wait_for "[1 data-centric]" 5 || fail "1 did not switch back to the data-centric view"

# A resize redraws at the new size, down to 80x24: tmux first clips the old screen, so wait
# for a screen whose first line is the title and whose last is the status line.
redrawn() {
  local i
  for ((i = 0; i < 100; i++)); do
    screen >screen.txt 2>/dev/null || true
    if head -n1 screen.txt | grep -qF "[1 data-centric]" && tail -n1 screen.txt | grep -qF "row $row/$n "; then
      return 0
    fi
    sleep 0.05
  done
  cat screen.txt >&2
  return 1
}
for size in "100 30" "80 24" "200 50"; do
  set -- $size
  tm resize-window -t viewer:main -x "$1" -y "$2"
  redrawn || fail "no redraw after resizing to $1x$2"
  lines=$(wc -l <screen.txt)
  [ "$lines" -eq "$2" ] || fail "the screen has $lines lines at $1x$2"
  grep -qF "static_array" screen.txt || fail "static_array not shown at $1x$2"
  grep -F "static_array" screen.txt | grep -qE "[0-9.]+% +[0-9]+( |$)" \
    || fail "the samples column is cut at $1x$2: $(grep -F static_array screen.txt)"
done

# ? shows the help, any key closes it; q quits with status 0.
tm send-keys -t viewer:main '?'
wait_for "hot path" 5 || fail "? shows no help"
tm send-keys -t viewer:main Escape
quits_with_0 main

# A terminal without colours and a locale that is not UTF-8: ASCII markers, the same rows.
viewer_in ascii TERM=vt100 LANG=C LC_ALL=C -- "$db"
wait_for "row 1/$n " 10 || fail "no first screen on a vt100 in the C locale"
grep -qE "^\+ static_array " screen.txt || fail "no ASCII marker before static_array on a vt100"
LC_ALL=C grep -q $'[\x80-\xff]' screen.txt && fail "non-ASCII drawn in the C locale"
quits_with_0 ascii

# --diff BEFORE AFTER: the database against itself, one flat view, q quits with status 0.
viewer_in diff "${utf8[@]}" -- --diff "$db" "$db"
wait_for "[1 diff]" 10 || fail "--diff shows no diff view"
# The header can be on the screen before the rows (tmux captures what has arrived so far).
wait_for "static_array" 10 || fail "--diff does not list static_array"
grep -qF "change" screen.txt || fail "--diff has no change column"
# At 80 columns every column of the diff is there, the ratio whole ("1.00x", not "1.0"), and the
# status line still ends with the way out (issue 24).
tm resize-window -t viewer:diff -x 80 -y 24
for ((i = 0; i < 100; i++)); do
  screen >screen.txt 2>/dev/null || true
  [ "$(wc -l <screen.txt)" -eq 24 ] && sed -n 2p screen.txt | grep -qF ratio && break
  sleep 0.05
done
cat screen.txt >&2
sed -n 2p screen.txt | grep -qE "before +after +change +ratio *$" || fail "--diff at 80 columns lacks columns: $(sed -n 2p screen.txt)"
grep -F "static_array" screen.txt | grep -qE " 1\.00x *$" || fail "--diff at 80 columns cuts the ratio"
tail -n1 screen.txt | grep -qE "\? help  q quit *$" || fail "the status line at 80 columns: $(tail -n1 screen.txt)"
quits_with_0 diff
echo "viewer_tmux: ok" >&2
