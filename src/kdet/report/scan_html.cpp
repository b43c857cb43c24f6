//===- report/scan_html.cpp - one self-contained HTML page for a scan ---------===//
//
// Built for triage: the counts first (each a link to its section, with links
// to its jobs' cards), then the jobs that vary unexpectedly, the regressions
// and the fixed ones between compilers, then the rest (stale expectations,
// failures, expected variance, not seen, unfinished), the charts and a table
// of every job. Every job has one anchor, id "job-ID" (its card, or its row
// in the table when it has no card). Rate bars carry their 95% Clopper-Pearson
// interval (stats::clopper_pearson).
//
// No external files and no network: inline CSS and SVG, and one small inline
// script that adds the sort and filter controls. Nothing is hidden until the
// script runs, so the page reads fully without it.
//
//===----------------------------------------------------------------------===//
#include "kdet/diff/diff.hpp"
#include "kdet/report/scan_report.hpp"
#include "kdet/stats/stats.hpp"
#include "kdet/util/strings.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>

namespace kdet::report {

namespace {

constexpr const char* k_css = R"css(
body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222;max-width:1200px}
h1{font-size:1.6em;overflow-wrap:anywhere}h2{margin-top:2em;border-bottom:1px solid #ccc}
.summary{font-size:1.2em;font-weight:600}.bad{color:#b00020}.good{color:#137333}.warn{color:#a35b00}
.counts li{margin:.2em 0}.counts a.job-link{font-weight:normal;font-size:12px}
table{border-collapse:collapse;font-size:12px}td,th{border:1px solid #ddd;padding:2px 6px;text-align:left}
tr.nondeterministic td{background:#fde7e9}tr.nondeterministic-expected td{background:#fff4e0}tr.no-longer-nondeterministic td{background:#fff4e0}
tr.failed td{background:#eee}svg.chart{display:block;margin:1em 0;max-width:100%;height:auto}svg text{font:12px sans-serif}
svg.rate{display:inline-block;vertical-align:middle;margin:0 .3em}
.job{border:1px solid #ccc;border-radius:6px;padding:.5em 1em;margin:1em 0;overflow-wrap:anywhere}
.job.nondeterministic{border-left:6px solid #c62828}.job.no-longer-nondeterministic,.job.failed{border-left:6px solid #ef6c00}
.job h3{margin:.2em 0;font-size:1.05em}.status{font-size:12px;padding:0 .4em;border-radius:3px;background:#eee}
.kdet-diff pre{background:#f7f7f7;padding:.5em;overflow:auto;max-height:30em}
.wide{overflow-x:auto}code{font-size:12px}pre.log{background:#f7f7f7;padding:.5em;overflow:auto;max-height:20em}
#controls{position:sticky;top:0;background:#fff;padding:.4em 0;border-bottom:1px solid #ccc;z-index:1}
#controls label{margin-right:1em;white-space:nowrap}
@media (max-width:600px){body{margin:.6em}}
)css";

// Adds the controls (so a page without script shows none that do nothing), then
// filters every element with data-status (cards and table rows) by status and
// text, and sorts each card list and the job table by triage order, rate or name.
constexpr const char* k_script = R"js(
(function(){
var items=[].slice.call(document.querySelectorAll('[data-status]'));
var statuses=[];items.forEach(function(e){if(statuses.indexOf(e.dataset.status)<0)statuses.push(e.dataset.status);});
var bar=document.createElement('div');bar.id='controls';
function add(label,el){var l=document.createElement('label');l.textContent=label+' ';l.appendChild(el);bar.appendChild(l);return el;}
function sel(id,opts){var s=document.createElement('select');s.id=id;opts.forEach(function(o){var e=document.createElement('option');e.value=o[0];e.textContent=o[1];s.appendChild(e);});return s;}
var st=add('Status',sel('filter-status',[['','every status']].concat(statuses.map(function(x){return [x,x];}))));
var tx=document.createElement('input');tx.type='search';tx.id='filter-text';tx.placeholder='input, compiler, target, options, id';add('Find',tx);
var so=add('Sort',sel('sort-by',[['triage','triage order'],['rate','rate, highest first'],['name','name']]));
var shown=document.createElement('span');shown.id='filter-count';bar.appendChild(shown);
var top=document.getElementById('summary');top.parentNode.insertBefore(bar,top.nextSibling);
function apply(){
  var s=st.value,t=tx.value.toLowerCase(),n=0,jobs=0;
  items.forEach(function(e){var ok=(!s||e.dataset.status===s)&&(!t||e.dataset.key.indexOf(t)>=0);e.style.display=ok?'':'none';if(e.tagName==='TR'){jobs++;n+=ok;}});
  shown.textContent=n+' of '+jobs+' jobs shown';
}
function key(e){return so.value==='rate'?-parseFloat(e.dataset.rate):so.value==='name'?e.dataset.key:parseInt(e.dataset.order,10);}
function sort(){
  document.querySelectorAll('.sortable').forEach(function(box){
    var kids=[].slice.call(box.children).filter(function(e){return e.dataset.status;});
    kids.sort(function(a,b){var x=key(a),y=key(b);return x<y?-1:x>y?1:parseInt(a.dataset.order,10)-parseInt(b.dataset.order,10);});
    kids.forEach(function(e){box.appendChild(e);});
  });
}
st.onchange=apply;tx.oninput=apply;so.onchange=function(){sort();apply();};apply();
})();
)js";

std::string esc(std::string_view s) {
  return xml_escape(s);
}

// ASCII lower case: the filter's text match ignores case.
std::string lower(std::string s) {
  for (char& c : s)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return s;
}

// A small bar for k of n: the observed rate, with its two-sided 95% interval as a whisker.
std::string rate_bar(uint64_t k, uint64_t n, int width = 120) {
  stats::Interval ci = stats::clopper_pearson(k, n);
  double rate = n ? static_cast<double>(k) / static_cast<double>(n) : 0;
  auto x = [width](double f) { return fmt::format("{:.1f}", f * width); };
  std::string what = n ? fmt::format("{} of {} ({}), 95% interval {} to {}", k, n, percent(rate),
                                     percent(ci.low), percent(ci.high))
                       : std::string("no runs");
  return fmt::format(
      "<svg class=\"rate\" width=\"{w}\" height=\"14\" viewBox=\"0 0 {w} 14\" "
      "xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" aria-label=\"{t}\"><title>{t}</title>"
      "<rect x=\"0\" y=\"3\" width=\"{w}\" height=\"8\" fill=\"#e4e4e4\"/>"
      "<rect class=\"bar\" x=\"0\" y=\"3\" width=\"{r}\" height=\"8\" fill=\"#c62828\"/>"
      "<g class=\"ci\" stroke=\"#222\" stroke-width=\"1.5\"><line x1=\"{lo}\" x2=\"{hi}\" y1=\"7\" "
      "y2=\"7\"/><line x1=\"{lo}\" x2=\"{lo}\" y1=\"2\" y2=\"12\"/><line x1=\"{hi}\" x2=\"{hi}\" "
      "y1=\"2\" y2=\"12\"/></g></svg>",
      fmt::arg("w", width), fmt::arg("t", what), fmt::arg("r", x(rate)), fmt::arg("lo", x(ci.low)),
      fmt::arg("hi", x(n ? ci.high : 0)));
}

// Horizontal bars: one per (label, jobs, varying), each with the share's 95% interval.
std::string bars_svg(const std::string& id, const std::string& title,
                     const std::map<std::string, Tally>& t) {
  const int row = 22, label_w = 170, bar_w = 420;
  int h = 30 + row * static_cast<int>(t.size());
  int w = label_w + bar_w + 160;
  std::string s = fmt::format("<svg id=\"{}\" class=\"chart\" width=\"{}\" height=\"{}\" "
                              "viewBox=\"0 0 {} {}\" xmlns=\"http://www.w3.org/2000/svg\" "
                              "role=\"img\" aria-label=\"{}\">"
                              "<text x=\"0\" y=\"16\" font-weight=\"bold\">{} (whiskers: 95% "
                              "interval)</text>",
                              id, w, h, w, h, esc(title), esc(title));
  int y = 28;
  for (const auto& [k, v] : t) {
    double rate = v.jobs ? static_cast<double>(v.varying) / static_cast<double>(v.jobs) : 0;
    stats::Interval ci = stats::clopper_pearson(v.varying, v.jobs);
    int bw = static_cast<int>(rate * bar_w);
    int lo = label_w + static_cast<int>(ci.low * bar_w);
    int hi = label_w + static_cast<int>(ci.high * bar_w);
    int mid = y + (row - 6) / 2;
    s += fmt::format(
        "<text x=\"0\" y=\"{}\">{}</text><rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" "
        "fill=\"#ddd\"/><rect class=\"bar\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" "
        "fill=\"#c62828\">"
        "<title>{}: {} of {} {}, 95% interval {} to {}</title></rect>"
        "<g class=\"ci\" stroke=\"#222\" stroke-width=\"1.5\"><line x1=\"{lo}\" x2=\"{hi}\" "
        "y1=\"{m}\" y2=\"{m}\"/><line x1=\"{lo}\" x2=\"{lo}\" y1=\"{t}\" y2=\"{b}\"/><line "
        "x1=\"{hi}\" x2=\"{hi}\" y1=\"{t}\" y2=\"{b}\"/></g>"
        "<text x=\"{}\" y=\"{}\">{} of {} ({})</text>",
        y + 13, esc(k.empty() ? "(none)" : k), label_w, y, bar_w, row - 6, label_w, y, bw, row - 6,
        esc(k.empty() ? "(none)" : k), v.varying, plural(v.jobs, "job"),
        v.jobs == 1 ? "varies" : "vary", percent(ci.low), percent(ci.high), label_w + bar_w + 6,
        y + 13, v.varying, v.jobs, percent(rate), fmt::arg("lo", lo), fmt::arg("hi", hi),
        fmt::arg("m", mid), fmt::arg("t", y + 1), fmt::arg("b", y + row - 7));
    y += row;
  }
  return s + "</svg>\n";
}

// Column chart: how many jobs had 1, 2, 3, 4, 5+ variants.
std::string variants_svg(const store::ScanResult& r) {
  std::array<size_t, 6> n{}; // 0 (no runs), 1, 2, 3, 4, 5+
  for (const auto& j : r.jobs)
    ++n[std::min<size_t>(j.variants.size(), 5)];
  size_t top = std::max<size_t>(1, *std::max_element(n.begin(), n.end()));
  const int col = 70, plot_h = 140;
  std::string s = fmt::format(
      "<svg id=\"chart-variants\" class=\"chart\" width=\"{}\" height=\"{}\" "
      "xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" aria-label=\"variants per job\">"
      "<text x=\"0\" y=\"16\" font-weight=\"bold\">Variants per job</text>",
      col * 6 + 20, plot_h + 84);
  const char* names[] = {"none", "1", "2", "3", "4", "5+"};
  for (size_t i = 0; i < n.size(); ++i) {
    // Log-ish scale so 161 of 6491 stays visible: sqrt of the share.
    int h = n[i] ? std::max(2, static_cast<int>(plot_h * std::sqrt(static_cast<double>(n[i]) /
                                                                   static_cast<double>(top))))
                 : 0;
    int x = 10 + static_cast<int>(i) * col, y = 44 + plot_h - h;
    s += fmt::format("<rect class=\"bar\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" "
                     "fill=\"{}\"><title>{} "
                     "with {}</title></rect><text x=\"{}\" y=\"{}\">{}</text><text "
                     "x=\"{}\" y=\"{}\">{}</text>",
                     x, y, col - 14, h, i >= 2 ? "#c62828" : "#2e7d32", plural(n[i], "job"),
                     i == 0   ? std::string("no runs yet")
                     : i == 5 ? std::string("5 or more variants")
                              : plural(i, "variant"),
                     x, y - 3, n[i], x, 44 + plot_h + 16, names[i]);
  }
  return s + "</svg>\n";
}

std::string matrix_svg(const std::vector<CompilerComparison>& cmps) {
  const int cell = 90, label_w = 260;
  int h = 50 + 26 * static_cast<int>(cmps.size());
  int w = label_w + cell * static_cast<int>(scan::k_all_labels.size());
  std::string s = fmt::format(
      "<svg id=\"chart-compare\" class=\"chart\" width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\" "
      "xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" aria-label=\"compiler comparison\">"
      "<text x=\"0\" y=\"16\" font-weight=\"bold\">Compiler comparison</text>",
      w, h, w, h);
  const char* colors[] = {"#2e7d32", "#1565c0", "#43a047", "#f9a825",
                          "#c62828", "#ef6c00", "#616161", "#9e9e9e"};
  static_assert(std::size(colors) == scan::k_all_labels.size());
  for (size_t i = 0; i < scan::k_all_labels.size(); ++i)
    s += fmt::format("<text x=\"{}\" y=\"40\">{}</text>", label_w + static_cast<int>(i) * cell,
                     scan::to_string(scan::k_all_labels[i]));
  int y = 48;
  for (const auto& c : cmps) {
    auto n = scan::count_labels(c.pairs);
    size_t total = std::max<size_t>(1, c.pairs.size());
    s += fmt::format("<text x=\"0\" y=\"{}\">{} &#8594; {}</text>", y + 15, esc(c.a), esc(c.b));
    for (size_t i = 0; i < n.size(); ++i) {
      double op =
          n[i] ? 0.25 + 0.75 * static_cast<double>(n[i]) / static_cast<double>(total) : 0.05;
      int x = label_w + static_cast<int>(i) * cell;
      s += fmt::format(
          "<rect class=\"cell\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"22\" fill=\"{}\" "
          "fill-opacity=\"{:.2f}\"><title>{}: {}</title></rect><text x=\"{}\" y=\"{}\">{}</text>",
          x, y, cell - 4, colors[i], op, scan::to_string(scan::k_all_labels[i]), n[i], x + 6,
          y + 15, n[i]);
    }
    y += 26;
  }
  return s + "</svg>\n";
}

// A bundle job's full kernel names as a tooltip (its label shows them cut); "" for other jobs.
std::string names_title(const store::JobRow& j) {
  if (j.kernels.empty()) return "";
  return fmt::format(" title=\"{}\"", esc(fmt::format("{}", fmt::join(j.kernels, "\n"))));
}

// What sort and filter read: status, lower-case text (full kernel names), observed rate,
// triage position.
std::string data_attrs(const store::JobRow& j, const char* status, size_t order) {
  double rate = j.runs ? static_cast<double>(j.differing()) / static_cast<double>(j.runs) : 0;
  return fmt::format(" data-status=\"{}\" data-key=\"{}\" data-rate=\"{:.6f}\" data-order=\"{}\"",
                     status, esc(lower(j.label(0) + " " + j.id)), rate, order);
}

std::string rate_text(const store::JobRow& j) {
  if (j.runs == 0) return "no runs yet";
  if (j.variants.size() < 2)
    return fmt::format("one output in {}: rate below {} at 95% confidence", plural(j.runs, "run"),
                       percent(j.upper_bound()));
  stats::Interval ci = stats::clopper_pearson(j.differing(), j.runs);
  return fmt::format("{} of {} runs differ from the most common ({}, 95% interval {} to {})",
                     j.differing(), j.runs,
                     percent(static_cast<double>(j.differing()) / static_cast<double>(j.runs)),
                     percent(ci.low), percent(ci.high));
}

// One job's card (anchor "job-ID"); with the classified diffs of its variants when `diffs`.
std::string job_card(const store::JobRow& j, scan::JobStatus status, size_t order, bool diffs,
                     const BlobLoader& blobs, const scan::ScanReaches* reaches) {
  const char* st = scan::to_string(status);
  std::string s = fmt::format(
      "<div class=\"job {}\" id=\"job-{}\"{}><h3{}>{} <span class=\"status\">{}</span> {}</h3>", st,
      j.id, data_attrs(j, st, order), names_title(j), esc(j.label()), st,
      rate_bar(j.differing(), j.runs));
  s += fmt::format("<p>{} in {}; {}. Options: <code>{}</code>. Job <code>{}</code>{}</p>",
                   plural(j.variants.size(), "variant"), plural(j.runs, "run"), esc(rate_text(j)),
                   esc(shell_join(j.options)), j.id,
                   j.expected_vary ? " &mdash; known to vary: " + esc(j.expect_reason) : "");
  s += "<div class=\"wide\"><table><tr><th>variant</th><th>runs</th><th>first "
       "run</th><th>status</th><th>artifacts</th></tr>";
  for (const auto& v : j.variants) {
    std::string arts;
    for (const auto& a : v.artifacts)
      arts += fmt::format("{} {} ", esc(a.name), human_bytes(a.size));
    // Runs count from 1 for people, as in kdet run; the database keeps 0-based indices.
    s +=
        fmt::format("<tr><td><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                    v.id.substr(0, 12), v.count, v.first_run + 1,
                    esc(v.status + (v.detail.empty() ? "" : ": " + v.detail)), arts);
  }
  s += "</table></div>";
  for (const auto& line : split(job_reach_lines(reaches, j, ""), '\n'))
    if (!line.empty()) s += fmt::format("<p class=\"reach\">{}</p>", esc(line));
  // The compiler's own words on how it failed (the most common failing variant's log).
  for (const auto& v : j.variants)
    if (v.status != "ok" && !v.log.empty()) {
      s += variant_log_html(v);
      break;
    }
  if (diffs && j.variants.size() >= 2) {
    const auto& modal = j.variants.front();
    for (size_t k = 1; k < j.variants.size() && k < 4; ++k) {
      const auto& other = j.variants[k];
      for (const auto& a : modal.artifacts) {
        auto it = std::find_if(other.artifacts.begin(), other.artifacts.end(),
                               [&](const store::ArtifactRow& x) { return x.name == a.name; });
        if (it == other.artifacts.end() || it->hash == a.hash) continue;
        std::string da = blobs(a.hash), db = blobs(it->hash);
        if (da.empty() || db.empty()) continue;
        diff::Report rep = diff::compare(da, db);
        s += fmt::format("<h4>{}: variant {} &#8594; {}: {}</h4>", esc(a.name),
                         modal.id.substr(0, 12), other.id.substr(0, 12),
                         esc(diff::summary_line(rep)));
        s += diff::to_html(rep);
      }
    }
  } else if (j.variants.size() >= 2) {
    s += "<p>Diff not shown: the page shows the diffs of its first jobs only.</p>";
  }
  return s + "</div>\n";
}

// The sections in triage order, after the counts. Statuses with a card each.
struct CardSection {
  scan::JobStatus status;
  const char* title;
};
constexpr CardSection k_first{scan::JobStatus::nondeterministic, "Nondeterministic, unexpectedly"};
constexpr CardSection k_rest[] = {
    {scan::JobStatus::no_longer_nondeterministic, "No longer nondeterministic (expected to vary)"},
    {scan::JobStatus::failed, "Failed on every run"},
    {scan::JobStatus::nondeterministic_expected, "Nondeterministic, as expected"},
    {scan::JobStatus::not_seen, "Expected to vary, not seen yet"},
    {scan::JobStatus::incomplete, "Not finished"}};

struct Page {
  const store::ScanResult& r;
  const BlobLoader& blobs;
  size_t max_diffs;
  double rate;
  std::vector<CompilerComparison> cmps;
  const scan::ScanReaches* reaches;
  std::map<const store::JobRow*, scan::JobStatus> status;
  std::map<std::string, size_t> order; // job id -> triage position
  size_t diffs_shown = 0;

  std::vector<const store::JobRow*> with(scan::JobStatus st) const {
    std::vector<const store::JobRow*> out;
    for (const auto& j : r.jobs)
      if (status.at(&j) == st) out.push_back(&j);
    return out;
  }
  std::vector<std::pair<const CompilerComparison*, const scan::Pairing*>>
  pairs(scan::Label l) const {
    std::vector<std::pair<const CompilerComparison*, const scan::Pairing*>> out;
    for (const auto& c : cmps)
      for (const auto& p : c.pairs)
        if (p.label == l) out.emplace_back(&c, &p);
    return out;
  }
  // Whether a job has a card (else its anchor is its row in the table of all jobs).
  bool has_card(const store::JobRow& j) const {
    return status.at(&j) != scan::JobStatus::deterministic;
  }
};

std::string job_link(const store::JobRow& j) {
  return fmt::format("<a class=\"job-link\" href=\"#job-{}\"{}>{}</a>", j.id, names_title(j),
                     esc(j.label()));
}

// One count line: the count links to its section, then links to (at most 100 of) its jobs.
std::string count_line(const char* cls, const std::string& section, const std::string& text,
                       const std::vector<const store::JobRow*>& jobs) {
  std::string s = fmt::format("<li class=\"{}\"><a href=\"#{}\">{}</a>", cls, section, text);
  for (size_t i = 0; i < jobs.size() && i < 100; ++i)
    s += (i ? ", " : ": ") + job_link(*jobs[i]);
  if (jobs.size() > 100)
    s += fmt::format(", <a href=\"#{}\">and {} more</a>", section, jobs.size() - 100);
  return s + "</li>\n";
}

std::string summary(const Page& pg) {
  scan::ScanCounts c = scan::count(pg.r);
  std::string s = fmt::format("<section id=\"summary\"><p class=\"summary {}\">{} of {} {}</p>\n"
                              "<ul class=\"counts\">\n",
                              c.varying ? "bad" : "good", c.varying, plural(c.jobs, "job"),
                              c.jobs == 1 ? "varies" : "vary");
  s += count_line(c.unexpected ? "bad" : "good", "sec-nondeterministic",
                  fmt::format("{} vary unexpectedly", c.unexpected),
                  pg.with(scan::JobStatus::nondeterministic));
  if (!pg.cmps.empty()) {
    std::vector<const store::JobRow*> reg, fix;
    for (auto [cmp, p] : pg.pairs(scan::Label::regressed))
      if (p->b) reg.push_back(p->b);
    for (auto [cmp, p] : pg.pairs(scan::Label::fixed))
      if (p->a) fix.push_back(p->a);
    s += count_line(reg.empty() ? "good" : "bad", "sec-regressed",
                    fmt::format("{} regressed between compilers", reg.size()), reg);
    s +=
        count_line("good", "sec-fixed", fmt::format("{} fixed between compilers", fix.size()), fix);
  }
  const std::pair<size_t, const char*> rest[] = {{c.no_longer_varies, "warn"},
                                                 {c.failed, "warn"},
                                                 {c.expected, ""},
                                                 {c.not_seen, ""},
                                                 {c.incomplete, "warn"}};
  const std::string what[] = {
      fmt::format("{} were expected to vary and no longer do (rate bounded below the expected {})",
                  c.no_longer_varies, percent(pg.rate)),
      fmt::format("{} failed on every run", c.failed),
      fmt::format("{} vary as expected by the manifest", c.expected),
      fmt::format("{} expected to vary were not seen to (too few runs to bound the rate below {})",
                  c.not_seen, percent(pg.rate)),
      fmt::format("{} not finished", c.incomplete)};
  for (size_t i = 0; i < std::size(k_rest); ++i)
    if (rest[i].first)
      s += count_line(rest[i].second, fmt::format("sec-{}", scan::to_string(k_rest[i].status)),
                      what[i], pg.with(k_rest[i].status));
  size_t det = c.jobs - c.varying - c.no_longer_varies - c.not_seen - c.failed - c.incomplete;
  s += fmt::format("<li><a href=\"#sec-all\">{} deterministic (one output in every run)</a></li>\n",
                   det);
  if (pg.reaches && pg.reaches->census.total)
    s += fmt::format("<li class=\"reach\">reach: {}</li>\n", esc(pg.reaches->census.line("job")));
  return s + "</ul></section>\n";
}

std::string cards(Page& pg, const CardSection& sec) {
  auto jobs = pg.with(sec.status);
  const char* st = scan::to_string(sec.status);
  std::string s =
      fmt::format("<section id=\"sec-{}\"><h2>{} ({})</h2>\n", st, sec.title, jobs.size());
  // Failures, one row per way of failing, before the jobs' own cards.
  if (sec.status == scan::JobStatus::failed) s += failures_to_html(scan::group_failures(pg.r));
  s += "<div class=\"sortable\">\n";
  for (const store::JobRow* j : jobs) {
    bool diffs = j->variants.size() >= 2 && pg.diffs_shown < pg.max_diffs;
    pg.diffs_shown += diffs;
    s += job_card(*j, sec.status, pg.order.at(j->id), diffs, pg.blobs, pg.reaches);
  }
  if (jobs.empty()) s += "<p>None.</p>\n";
  return s + "</div></section>\n";
}

// Regressed or fixed pairs: a table linking each side's job.
std::string pair_section(const Page& pg, scan::Label l, const char* id, const char* title) {
  auto ps = pg.pairs(l);
  std::string s = fmt::format("<section id=\"{}\"><h2>{} ({})</h2>\n", id, title, ps.size());
  if (ps.empty()) return s + "<p>None.</p></section>\n";
  s += "<div class=\"wide\"><table><tr><th>job</th><th>A</th><th>B</th><th>evidence</th></tr>";
  for (auto [cmp, p] : ps) {
    auto side = [](const store::JobRow* j, const std::string& name) {
      return j ? fmt::format("<a href=\"#job-{}\">{}</a> {}", j->id, esc(name),
                             rate_bar(j->differing(), j->runs, 80))
               : esc(name);
    };
    std::string why = pair_evidence(*p, cmp->margin);
    if (p->stress != scan::Pairing::Stress::not_run)
      why += (why.empty() ? "" : "; ") + stress_evidence(*p);
    s += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>", esc(p->name()),
                     side(p->a, cmp->a), side(p->b, cmp->b), esc(why));
  }
  return s + "</table></div></section>\n";
}

std::string compilers_and_charts(const Page& pg) {
  const auto& r = pg.r;
  std::string s = "<h2>Compilers</h2><div class=\"wide\"><table><tr><th>name</th><th>backend</"
                  "th><th>version</th><th>file</th><th>hash</th></tr>";
  for (const auto& x : r.compilers)
    s += fmt::format(
        "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td><code>{}</code></td></tr>",
        esc(x.name), esc(x.backend), esc(x.version), esc(x.path), x.content_hash.substr(0, 16));
  s += "</table></div>\n<h2>Variance</h2>\n";
  s += bars_svg("chart-target", "Variance rate by target", tally_by(r, &store::JobRow::target));
  s += bars_svg("chart-options", "Variance rate by option set",
                tally_by(r, &store::JobRow::option_set));
  if (r.compilers.size() > 1)
    s += bars_svg("chart-compiler", "Variance rate by compiler",
                  tally_by(r, &store::JobRow::compiler));
  s += variants_svg(r);
  if (pg.cmps.empty()) return s;
  s += "<h2>Compiler comparison</h2>\n" + matrix_svg(pg.cmps);
  for (const auto& cmp : pg.cmps) {
    std::string answers = esc(compare_answers(cmp));
    for (size_t at = answers.find('\n'); at != std::string::npos; at = answers.find('\n', at))
      answers.replace(at, 1, "<br>");
    s += "<p class=\"answers\">" + answers + "</p>";
    s += fmt::format(
        "<div class=\"wide\"><table class=\"labels\"><tr><th colspan=\"3\">{} &#8594; {}</th></tr>",
        esc(cmp.a), esc(cmp.b));
    for (const auto& p : cmp.pairs)
      if (p.label != scan::Label::identical && p.label != scan::Label::changed)
        s += fmt::format(
            "<tr><td>{}</td><td>{}</td><td>{}</td></tr>", scan::to_string(p.label), esc(p.name()),
            esc(pair_evidence(p, cmp.margin) +
                (p.stress != scan::Pairing::Stress::not_run ? "; " + stress_evidence(p) : "")));
    s += "</table></div>\n";
  }
  return s;
}

// A row's rate: the bar with its interval where runs differed, else the count as text. 13,000
// inline SVGs (8 elements each) took most of a census page's load in Chromium (6 s of 7 to
// parse, docs/PERFORMANCE.md); a job with one output has nothing to draw but its bound.
std::string table_rate(const store::JobRow& j) {
  if (j.differing() > 0) return rate_bar(j.differing(), j.runs);
  return j.runs ? fmt::format("0 of {}", j.runs) : std::string("no runs");
}

// Every job, one row each; a job without a card has its anchor here.
std::string all_jobs(const Page& pg) {
  std::string s =
      "<section id=\"sec-all\"><h2>All jobs</h2>\n<div class=\"wide\"><table "
      "id=\"jobs\"><thead><tr><th>input</th><th>compiler</th><th>target</th><th>options</th>"
      "<th>status</th><th>runs</th><th>variants</th><th>rate (95% interval)</th><th>rate "
      "bound</th></tr></thead><tbody class=\"sortable\">\n";
  for (const auto& j : pg.r.jobs) {
    const char* st = scan::to_string(pg.status.at(&j));
    bool card = pg.has_card(j);
    s += fmt::format(
        "<tr class=\"{}\"{}{}><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</"
        "td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
        st, card ? "" : fmt::format(" id=\"job-{}\"", j.id), data_attrs(j, st, pg.order.at(j.id)),
        card ? fmt::format("<a href=\"#job-{}\"{}>{}</a>", j.id, names_title(j),
                           esc(j.input_label()))
             : fmt::format("<span{}>{}</span>", names_title(j), esc(j.input_label())),
        esc(j.compiler), esc(j.target), esc(j.option_set), st, j.runs, j.variants.size(),
        table_rate(j), j.varies() ? "" : "&lt; " + percent(j.upper_bound()));
  }
  return s + "</tbody></table></div></section>\n";
}

} // namespace

std::string scan_to_html(const store::ScanResult& r, const BlobLoader& blobs, size_t max_diffs,
                         const std::vector<CompilerComparison>* given,
                         const scan::ScanReaches* reaches) {
  Page pg{
      r,  blobs, max_diffs, scan::expected_rate(r), given ? *given : compare_compilers(r), reaches,
      {}, {},    0};
  for (const auto& j : r.jobs)
    pg.status[&j] = scan::job_status(j, pg.rate);
  // Triage order: the statuses in section order, then the deterministic jobs.
  for (auto st : {k_first.status, k_rest[0].status, k_rest[1].status, k_rest[2].status,
                  k_rest[3].status, k_rest[4].status, scan::JobStatus::deterministic})
    for (const store::JobRow* j : pg.with(st))
      pg.order.emplace(j->id, pg.order.size());
  std::string s;
  s.reserve(8192 + r.jobs.size() * 900);
  auto name = r.meta.count("name") ? r.meta.at("name") : std::string("scan");
  s += fmt::format("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                   "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
                   "<title>kdet scan: {}</title><style>{}</style></head><body>\n"
                   "<h1>kdet scan: {}</h1>\n",
                   esc(name), k_css, esc(name));
  s += summary(pg);
  s += cards(pg, k_first);
  if (!pg.cmps.empty()) {
    s += pair_section(pg, scan::Label::regressed, "sec-regressed", "Regressed between compilers");
    s += pair_section(pg, scan::Label::fixed, "sec-fixed", "Fixed between compilers");
  }
  for (const auto& sec : k_rest)
    if (!pg.with(sec.status).empty()) s += cards(pg, sec);
  s += compilers_and_charts(pg);
  s += all_jobs(pg);
  s += fmt::format("<script>{}</script>\n</body></html>\n", k_script);
  return s;
}

} // namespace kdet::report
