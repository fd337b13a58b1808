#!/usr/bin/env bash
# `report --format html` of a real run, rendered by headless Chromium: a screenshot that is not
# blank, the variables' names in the DOM after the page's script ran (icicle frames and table),
# and no network reference in the page. Chromium runs with a proxy that refuses every connection
# and with network logging, so a load that slipped past the static check shows. Exit 77 only
# when there is no Chromium.
source "$(dirname "$0")/lib.sh"
: "${HPCL_SHARED:?}"
chromium=""
for c in chromium chromium-browser google-chrome; do
  if command -v "$c" >/dev/null 2>&1; then chromium=$(command -v "$c"); break; fi
done
[ -n "$chromium" ] || skip "chromium not found"

"$HPCL_PROF" report "$HPCL_SHARED/db.hpcdb" --format html >report.html || fail "html report failed"
size=$(stat -c %s report.html)
echo "report.html: $size bytes"
[ "$size" -lt 2000000 ] || fail "report.html is $size bytes: too large to mail"
# No network reference: no URL scheme, no src/href attribute, no CSS import or url().
if grep -Eio 'https?:|src=|href=|@import|url\(|//fonts' report.html; then
  fail "report.html refers to the network"
fi

# Chromium wants a writable home and its own profile directory; as root it needs --no-sandbox.
# Its own background traffic (updates, sync, spelling dictionaries, accounts) is turned off, so
# that any request left in the network log came from the page.
export HOME="$HPCL_WORK/home"
mkdir -p "$HOME"
flags=(--headless --no-sandbox --disable-gpu --no-first-run --disable-extensions
       --user-data-dir="$HPCL_WORK/profile" --proxy-server=127.0.0.1:9 --proxy-bypass-list='<-loopback>'
       --disable-background-networking --disable-component-update --disable-sync
       --disable-default-apps --disable-domain-reliability --disable-client-side-phishing-detection
       --disable-breakpad --no-pings --no-default-browser-check
       --disable-features=Translate,OptimizationHints,MediaRouter,SpellcheckService,AutofillServerCommunication
       --virtual-time-budget=3000 --window-size=1280,900)
step "$chromium --headless --screenshot"
timeout 60 "$chromium" "${flags[@]}" --screenshot="$HPCL_WORK/shot.png" \
  --log-net-log="$HPCL_WORK/net.json" "file://$HPCL_WORK/report.html" >chromium.out 2>&1 ||
  { cat chromium.out >&2; fail "chromium --screenshot failed"; }
step "$chromium --headless --dump-dom"
timeout 60 "$chromium" "${flags[@]}" --dump-dom "file://$HPCL_WORK/report.html" >dom.html 2>dump.err ||
  { cat dump.err >&2; fail "chromium --dump-dom failed"; }

"$HPCL_PYTHON" - "$HPCL_SHARED/report.json" <<'PY' || fail "the rendered page is wrong"
import html, json, re, struct, sys, zlib
report = json.load(open(sys.argv[1]))

# The screenshot: a PNG of the window's size whose pixels are not all one colour.
png = open("shot.png", "rb").read()
assert png[:8] == b"\x89PNG\r\n\x1a\n", "shot.png is not a PNG"
width, height = struct.unpack(">II", png[16:24])
assert (width, height) == (1280, 900), f"screenshot is {width}x{height}"
data, pos = b"", 8
while pos < len(png):
    n, kind = struct.unpack(">I4s", png[pos:pos + 8])
    if kind == b"IDAT":
        data += png[pos + 8:pos + 8 + n]
    pos += 12 + n
raw = zlib.decompress(data)
distinct = len(set(raw[i:i + 3] for i in range(1, min(len(raw), 2_000_000), 3)))
assert distinct > 20, f"screenshot looks blank ({distinct} distinct byte triples)"

# The DOM after the script ran: the icicle drew frames, and every variable with samples is in
# the page (the table, and the icicle's frames for the hottest).
dom = open("dom.html", encoding="utf-8").read()
text = html.unescape(re.sub(r"<[^>]*>", "\n", dom))
frames = re.findall(r'<div [^>]*title="([^"]*)"', dom)
assert len(frames) > 5, f"the icicle drew {len(frames)} frames"
names = [v["name"] for v in report["variables"] if v["metrics"]["samples"] > 0]
missing = [n for n in names if n not in text]
assert not missing, f"variables missing from the rendered page: {missing}"
hottest = max(report["variables"], key=lambda v: v["metrics"]["samples"])["name"]
assert any(html.unescape(t).startswith(hottest) for t in frames), f"no icicle frame for {hottest!r}"
# By default the icicle is of the samples on data: no [no data] frame, the root says so.
assert not any(html.unescape(t).startswith("[no data]") for t in frames), "[no data] drawn by default"
assert html.unescape(frames[0]).startswith("samples on data"), f"icicle root: {frames[0]!r}"
assert 'id="nodata"' in dom, "no checkbox to show the samples without a data address"
rows = dom.count("<tr>")
print(f"screenshot {width}x{height}, {distinct} colours; DOM: {len(frames)} icicle frames, "
      f"{rows} table rows, {len(names)} variables with samples all present")
PY

# The network log: every request the page made, whatever its scheme, has the page as initiator
# (Chromium's own requests have none: "not an origin"). A control page that loads an image
# through the failing proxy proves that such a load shows in the log.
page_requests() {
  "$HPCL_PYTHON" - "$1" <<'PY'
import json, sys
log = json.load(open(sys.argv[1]))
types = {v: k for k, v in log["constants"]["logEventTypes"].items()}
for e in log["events"]:
    p = e.get("params", {})
    if types.get(e["type"]) == "URL_REQUEST_START_JOB" and "url" in p and p.get("initiator") != "not an origin":
        print(p.get("initiator"), p.get("url"))
PY
}
[ -s net.json ] || fail "chromium wrote no network log"
if page_requests net.json | grep .; then
  fail "the page tried to load something from the network"
fi
printf '<!DOCTYPE html><html><body><img src="http://127.0.0.1:9/x.png">control</body></html>\n' >control.html
timeout 60 "$chromium" "${flags[@]}" --screenshot="$HPCL_WORK/control.png" \
  --log-net-log="$HPCL_WORK/control-net.json" "file://$HPCL_WORK/control.html" >control.out 2>&1 ||
  fail "chromium failed on the control page"
page_requests control-net.json | grep -q "127.0.0.1:9/x.png" ||
  fail "the network log does not show the control page's image load: the check above proves nothing"
echo "ok"
