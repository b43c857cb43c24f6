#!/usr/bin/env bash
# scan_html_chromium.sh: the one-file HTML report of a scan renders in headless
# Chromium: the DOM it builds names every varying job, holds the SVG charts
# (variance by target and option set, variants per job, compiler comparison)
# and a classified diff for the varying jobs.
# Env: KDET, KDET_FAKES_DIR, KDET_SOURCE_DIR. Exit 0 pass, 1 fail, 77 skipped.
source "$(dirname "$0")/lib/common.bash"
need_fakes libfakenvvm.so
chrome=$(command -v chromium || command -v chromium-browser || true)
[[ -n $chrome ]] || skip "chromium not installed (apt-get install -y chromium)"
cat >"$T/m.toml" <<TOML
name = "html <check>"
inputs = ["$EX/nvvm/llvm7/*.ll"]
targets = ["80", "90a"]
[option_sets]
O2 = ["-opt=2"]
O3 = ["-opt=3"]
[[compiler]]
name = "old"
backend = "nvvm"
lib = "$FAKES/libfakenvvm.so"
options = ["-fake-mode=heaporder"]
[[compiler]]
name = "new"
backend = "nvvm"
lib = "$FAKES/libfakenvvm.so"
[budget]
target_rate = 0.1
TOML
"$KDET" scan "$T/m.toml" --db "$T/s.db" --report-html "$T/r.html" --json "$T/s.json" -q || true
[[ -s $T/r.html ]] || fail "no HTML written"
profile=$(mktemp -d)
timeout 120 "$chrome" --headless --no-sandbox --disable-gpu --disable-background-networking \
  --disable-component-update --no-first-run --disable-sync --user-data-dir="$profile" \
  --dump-dom "file://$T/r.html" >"$T/dom.html" 2>"$T/chrome.err" && rc=0 || rc=$?
rm -rf "$profile"
if ((rc != 0)) || [[ ! -s $T/dom.html ]]; then
  if grep -qiE "cannot open display|no usable sandbox|Failed to launch|crashpad" "$T/chrome.err"; then
    echo "scan_html_chromium: SKIP: chromium cannot start here (rc $rc): $(head -c 300 "$T/chrome.err")"; exit 77
  fi
  echo "scan_html_chromium: FAIL: chromium exited $rc: $(tail -c 600 "$T/chrome.err")"; exit 1
fi
python3 - "$T" <<'PY'
import json, sys, html.parser
tmp = sys.argv[1]
dom = open(f"{tmp}/dom.html", encoding="utf-8").read()
res = json.load(open(f"{tmp}/s.json"))
class P(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(); self.ids = set(); self.svgs = 0; self.rects = 0; self.job_divs = set(); self.diffs = 0
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a: self.ids.add(a["id"])
        if tag == "svg": self.svgs += 1
        if tag == "rect": self.rects += 1
        cls = a.get("class", "") or ""
        if tag == "div" and "job" in cls.split(): self.job_divs.add(a.get("id"))
        if tag == "div" and "kdet-diff" in cls.split(): self.diffs += 1
p = P(); p.feed(dom)
errors = []
for cid in ("chart-target", "chart-options", "chart-variants", "chart-compare"):
    if cid not in p.ids: errors.append(f"no <svg id={cid}> in the DOM")
if p.rects < 10: errors.append(f"only {p.rects} SVG rects")
varying = [j for j in res["jobs"] if j["status"] == "varies"]
if len(varying) != 16: errors.append(f"expected 16 varying jobs in the scan, got {len(varying)}")
for j in varying:
    if f"job-{j['id']}" not in p.job_divs: errors.append(f"no section for varying job {j['id']}")
    if j["input"] not in dom: errors.append(f"DOM does not name {j['input']}")
if p.diffs < len(varying): errors.append(f"{p.diffs} diffs for {len(varying)} varying jobs")
if "html &lt;check&gt;" not in dom: errors.append("scan name not escaped into the title")
if errors:
    print("scan_html_chromium: FAIL: " + "; ".join(errors)); sys.exit(1)
print(f"scan_html_chromium: rendered; {p.svgs} SVG charts, {p.rects} rects, {len(varying)} varying jobs named, {p.diffs} diffs")
PY
