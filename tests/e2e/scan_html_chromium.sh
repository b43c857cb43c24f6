#!/usr/bin/env bash
# tier: slow
# scan_html_chromium.sh: the one-file HTML report of a scan, built for triage.
# Without script (the file as written): every job has exactly one anchor
# "job-ID", its input is in the page's text, nothing is hidden, every in-page
# link has its target, the counts link to their sections in triage order
# (varies, regressed, fixed, then the rest), rate bars carry their interval (in every card, and
# in the table where runs differed),
# runs count from 1 (HTML and JSON), and nothing is loaded from outside.
# In headless Chromium: the DOM after the script holds the sort and filter
# controls, the anchors, the SVG charts and a classified diff per varying job;
# screenshots at 1280 and 420 px are PNGs of that width and not blank.
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
# chrome ARGS...: headless Chromium with a private profile; skips (77) where it cannot start.
chrome() {
  local profile rc=0
  profile=$(mktemp -d)
  timeout 120 "$chrome" --headless --no-sandbox --disable-gpu --disable-background-networking \
    --disable-component-update --no-first-run --disable-sync --hide-scrollbars \
    --user-data-dir="$profile" "$@" 2>"$T/chrome.err" || rc=$?
  rm -rf "$profile"
  if ((rc != 0)); then
    if grep -qiE "cannot open display|no usable sandbox|Failed to launch|crashpad" "$T/chrome.err"; then
      echo "scan_html_chromium: SKIP: chromium cannot start here (rc $rc): $(head -c 300 "$T/chrome.err")"
      exit 77
    fi
    echo "scan_html_chromium: FAIL: chromium exited $rc: $(tail -c 600 "$T/chrome.err")"
    exit 1
  fi
}
chrome --dump-dom "file://$T/r.html" >"$T/dom.html"
[[ -s $T/dom.html ]] || fail "chromium dumped no DOM"
for w in 1280 420; do
  chrome --screenshot="$T/shot-$w.png" --window-size="$w,900" "file://$T/r.html" >/dev/null
done
python3 - "$T" <<'PY'
import json, re, struct, sys, zlib, html.parser
tmp = sys.argv[1]
raw = open(f"{tmp}/r.html", encoding="utf-8").read()
dom = open(f"{tmp}/dom.html", encoding="utf-8").read()
res = json.load(open(f"{tmp}/s.json"))
class P(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(); self.ids = []; self.svgs = 0; self.rects = 0; self.job_divs = set()
        self.diffs = 0; self.hrefs = []; self.text = []; self.in_script = 0; self.hidden = []
        self.srcs = []; self.cis = 0
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a: self.ids.append(a["id"])
        if tag == "svg": self.svgs += 1
        if tag == "rect": self.rects += 1
        if tag == "script": self.in_script += 1
        cls = (a.get("class") or "").split()
        if tag == "div" and "job" in cls: self.job_divs.add(a.get("id"))
        if tag == "div" and "kdet-diff" in cls: self.diffs += 1
        if tag == "g" and "ci" in cls: self.cis += 1
        if tag == "a" and "href" in a: self.hrefs.append(a["href"])
        if "hidden" in a or "display:none" in (a.get("style") or "").replace(" ", ""):
            self.hidden.append(tag)
        for k in ("src", "href"):
            if re.match(r"^(https?:)?//", a.get(k) or ""): self.srcs.append(a[k])
    def handle_endtag(self, tag):
        if tag == "script": self.in_script -= 1
    def handle_data(self, d):
        if not self.in_script: self.text.append(d)
def parse(doc):
    p = P(); p.feed(doc); p.text = " ".join(p.text); return p
errors = []
jobs = res["jobs"]
varying = [j for j in jobs if j["status"] == "nondeterministic"]
if len(varying) != 16: errors.append(f"expected 16 varying jobs in the scan, got {len(varying)}")
# Runs count from 1: every job's most common variant showed first, at run 1.
firsts = [v["first_run"] for j in jobs for v in j["variants"]]
if not firsts or min(firsts) < 1: errors.append(f"JSON first_run counts from 0: {sorted(set(firsts))[:5]}")
if not all(j["variants"][0]["first_run"] == 1 for j in jobs if j["variants"]):
    errors.append("a job's first variant does not start at run 1 in the JSON")

# The file as written, read without its script.
p = parse(raw)
for j in jobs:
    n = p.ids.count(f"job-{j['id']}")
    if n != 1: errors.append(f"job {j['id']}: {n} elements with id job-{j['id']}, want 1")
    if j["input"] not in p.text: errors.append(f"the text without script lacks {j['input']}")
dup = {i for i in p.ids if p.ids.count(i) > 1}
if dup: errors.append(f"duplicate ids: {sorted(dup)[:5]}")
for h in p.hrefs:
    if h.startswith("#") and h[1:] not in p.ids: errors.append(f"link {h} has no target")
for j in varying:
    if f"#job-{j['id']}" not in p.hrefs: errors.append(f"no link to job {j['id']}")
if p.hidden: errors.append(f"hidden before any script runs: {p.hidden[:5]}")
if p.srcs: errors.append(f"external resources: {p.srcs[:5]}")
if "controls" in p.ids or "filter-status" in p.ids: errors.append("controls in the page before the script")
order = re.findall(r'<section id="(sec-[a-z-]+)"', raw)
want = ["sec-nondeterministic", "sec-regressed", "sec-fixed"]
if order[:3] != want: errors.append(f"sections in order {order}, want {want} first")
if not order or order[-1] != "sec-all": errors.append(f"the table of every job is not last: {order}")
counts = re.search(r'<section id="summary">(.*?)</section>', raw, re.S)
if not counts: errors.append("no summary section")
else:
    summary_links = re.findall(r'href="#(sec-[a-z-]+)"', counts.group(1))
    for sec in order:
        if sec not in summary_links: errors.append(f"no count links to {sec}")
    for j in varying:
        if f'href="#job-{j["id"]}"' not in counts.group(1): errors.append(f"the summary does not link job {j['id']}")
# Every job with a card has a bar with its interval there; in the table of every job, a bar
# where runs differed (a job with one output shows its count and bound as text: 13,000 inline
# bars stalled a census page).
differed = [j for j in jobs if j["differing"] > 0]
carded = [j for j in jobs if j["status"] != "deterministic"]
if p.cis < len(carded) + len(differed):
    errors.append(f"{p.cis} interval whiskers for {len(carded)} cards and {len(differed)} rows that differed")
fr = re.findall(r"<th>first run</th>.*?</tr><tr><td><code>[0-9a-f]+</code></td><td>\d+</td><td>(\d+)</td>", raw)
if not fr or "0" in fr: errors.append(f"HTML first runs {fr[:5]} do not count from 1")

# The DOM after the script.
d = parse(dom)
for cid in ("chart-target", "chart-options", "chart-variants", "chart-compare",
            "controls", "filter-status", "filter-text", "sort-by", "filter-count", "summary"):
    if cid not in d.ids: errors.append(f"no id={cid} in the DOM after the script")
if d.rects < 10: errors.append(f"only {d.rects} SVG rects")
for j in varying:
    if f"job-{j['id']}" not in d.job_divs: errors.append(f"no card for varying job {j['id']}")
    if f"#job-{j['id']}" not in d.hrefs: errors.append(f"the DOM has no link to job {j['id']}")
m = re.search(r'id="filter-count"[^>]*>(\d+) of (\d+) jobs shown', dom)
if not m or m.group(1) != m.group(2) or int(m.group(2)) != len(jobs):
    errors.append(f"the filter count says {m.group(0) if m else None!r}, want all {len(jobs)} jobs")
if d.diffs < len(varying): errors.append(f"{d.diffs} diffs for {len(varying)} varying jobs")
if "html &lt;check&gt;" not in dom: errors.append("scan name not escaped into the title")

# png(path): (width, height, distinct colours in the first rows, counted up to 16), or None.
def png(path):
    b = open(path, "rb").read()
    if b[:8] != b"\x89PNG\r\n\x1a\n": return None
    pos, idat, w, h, ctype = 8, b"", 0, 0, 6
    while pos < len(b):
        n, typ = struct.unpack(">I", b[pos:pos + 4])[0], b[pos + 4:pos + 8]
        body = b[pos + 8:pos + 8 + n]; pos += 12 + n
        if typ == b"IHDR": w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
        elif typ == b"IDAT": idat += body
    bpp = {2: 3, 6: 4}[ctype]; data = zlib.decompress(idat); stride = w * bpp
    prev, colours = bytearray(stride), set()
    for y in range(h):
        f = data[y * (stride + 1)]; line = bytearray(data[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0; up = prev[i]; c = prev[i - bpp] if i >= bpp else 0
            if f == 1: line[i] = (line[i] + a) & 255
            elif f == 2: line[i] = (line[i] + up) & 255
            elif f == 3: line[i] = (line[i] + (a + up) // 2) & 255
            elif f == 4:
                q = a + up - c; pa, pb, pc = abs(q - a), abs(q - up), abs(q - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else up if pb <= pc else c)) & 255
        colours.update(bytes(line[x:x + 3]) for x in range(0, stride, bpp))
        prev = line
        if len(colours) >= 16: break
    return w, h, len(colours)
for w in (1280, 420):
    r = png(f"{tmp}/shot-{w}.png")
    if r is None: errors.append(f"the {w} px screenshot is not a PNG"); continue
    if r[0] != w: errors.append(f"the {w} px screenshot is {r[0]} px wide")
    if r[2] < 16: errors.append(f"the {w} px screenshot looks blank ({r[2]} colours)")
if errors:
    print("scan_html_chromium: FAIL: " + "; ".join(errors[:20])); sys.exit(1)
print(f"scan_html_chromium: PASS: {len(jobs)} jobs with one anchor each, {d.svgs} SVGs, "
      f"{len(varying)} varying jobs linked, {d.diffs} diffs, controls after the script, "
      "screenshots 1280 and 420 px wide")
PY
