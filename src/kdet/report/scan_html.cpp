//===- report/scan_html.cpp - one self-contained HTML page for a scan ---------===//
//
// No scripts, no external files: inline CSS and SVG. Charts: variance rate
// by target and by option set, variants per job, the compiler comparison
// matrix. Then each varying job with the classified diff of its variants
// (diff::to_html of the most common variant against each other one), and a
// table of every job.
//
//===----------------------------------------------------------------------===//
#include "kdet/diff/diff.hpp"
#include "kdet/report/scan_report.hpp"
#include "kdet/util/strings.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace kdet::report {

namespace {

constexpr const char* k_css = R"css(
body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222;max-width:1200px}
h1{font-size:1.6em}h2{margin-top:2em;border-bottom:1px solid #ccc}
.summary{font-size:1.2em;font-weight:600}.bad{color:#b00020}.good{color:#137333}.warn{color:#a35b00}
table{border-collapse:collapse;font-size:12px}td,th{border:1px solid #ddd;padding:2px 6px;text-align:left}
tr.varies td{background:#fde7e9}tr.varies-expected td{background:#fff4e0}tr.no-longer-varies td{background:#fff4e0}
tr.failed td{background:#eee}svg{display:block;margin:1em 0}svg text{font:12px sans-serif}
.job{border:1px solid #ccc;border-radius:6px;padding:.5em 1em;margin:1em 0}
.kdet-diff pre{background:#f7f7f7;padding:.5em;overflow:auto;max-height:30em}
code{font-size:12px}
)css";

std::string esc(std::string_view s) {
  return xml_escape(s);
}

// Horizontal bars: one per (label, jobs, varying).
std::string bars_svg(const std::string& id, const std::string& title,
                     const std::map<std::string, Tally>& t) {
  const int row = 22, label_w = 170, bar_w = 420;
  int h = 30 + row * static_cast<int>(t.size());
  std::string s = fmt::format("<svg id=\"{}\" class=\"chart\" width=\"{}\" height=\"{}\" "
                              "xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" aria-label=\"{}\">"
                              "<text x=\"0\" y=\"16\" font-weight=\"bold\">{}</text>",
                              id, label_w + bar_w + 160, h, esc(title), esc(title));
  int y = 28;
  for (const auto& [k, v] : t) {
    double rate = v.jobs ? static_cast<double>(v.varying) / static_cast<double>(v.jobs) : 0;
    int w = static_cast<int>(rate * bar_w);
    s += fmt::format(
        "<text x=\"0\" y=\"{}\">{}</text><rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" "
        "fill=\"#ddd\"/><rect class=\"bar\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" "
        "fill=\"#c62828\">"
        "<title>{}: {} of {} jobs vary</title></rect><text x=\"{}\" y=\"{}\">{} of {} ({})</text>",
        y + 13, esc(k.empty() ? "(none)" : k), label_w, y, bar_w, row - 6, label_w, y, w, row - 6,
        esc(k), v.varying, v.jobs, label_w + bar_w + 6, y + 13, v.varying, v.jobs, percent(rate));
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
                     "fill=\"{}\"><title>{} jobs "
                     "with {} variants</title></rect><text x=\"{}\" y=\"{}\">{}</text><text "
                     "x=\"{}\" y=\"{}\">{}</text>",
                     x, y, col - 14, h, i >= 2 ? "#c62828" : "#2e7d32", n[i], names[i], x, y - 3,
                     n[i], x, 44 + plot_h + 16, names[i]);
  }
  return s + "</svg>\n";
}

std::string matrix_svg(const std::vector<CompilerComparison>& cmps) {
  const int cell = 90, label_w = 260;
  int h = 50 + 26 * static_cast<int>(cmps.size());
  std::string s = fmt::format(
      "<svg id=\"chart-compare\" class=\"chart\" width=\"{}\" height=\"{}\" "
      "xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" aria-label=\"compiler comparison\">"
      "<text x=\"0\" y=\"16\" font-weight=\"bold\">Compiler comparison</text>",
      label_w + cell * static_cast<int>(scan::k_all_labels.size()), h);
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

std::string job_section(const store::JobRow& j, double rate, const BlobLoader& blobs) {
  std::string s = fmt::format("<div class=\"job {}\" id=\"job-{}\"><h3>{}</h3>",
                              scan::to_string(scan::job_status(j, rate)), j.id, esc(j.label()));
  s += fmt::format(
      "<p>{} variants in {} runs ({} differ from the most common). Options: <code>{}</code>. Job "
      "<code>{}</code>{}</p>",
      j.variants.size(), j.runs, j.differing(), esc(shell_join(j.options)), j.id,
      j.expected_vary ? " &mdash; known to vary: " + esc(j.expect_reason) : "");
  s += "<table><tr><th>variant</th><th>runs</th><th>first "
       "run</th><th>status</th><th>artifacts</th></tr>";
  for (const auto& v : j.variants) {
    std::string arts;
    for (const auto& a : v.artifacts)
      arts += fmt::format("{} {} ", esc(a.name), human_bytes(a.size));
    s +=
        fmt::format("<tr><td><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                    v.id.substr(0, 12), v.count, v.first_run,
                    esc(v.status + (v.detail.empty() ? "" : ": " + v.detail)), arts);
  }
  s += "</table>";
  if (j.variants.size() >= 2) {
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
  }
  return s + "</div>\n";
}

} // namespace

std::string scan_to_html(const store::ScanResult& r, const BlobLoader& blobs, size_t max_diffs,
                         const std::vector<CompilerComparison>* given) {
  scan::ScanCounts c = scan::count(r);
  double rate = scan::expected_rate(r);
  std::string s;
  s.reserve(4096 + r.jobs.size() * 300);
  auto name = r.meta.count("name") ? r.meta.at("name") : std::string("scan");
  s += fmt::format("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>kdet "
                   "scan: {}</title>"
                   "<style>{}</style></head><body>\n<h1>kdet scan: {}</h1>\n",
                   esc(name), k_css, esc(name));
  s += fmt::format("<p class=\"summary {}\" id=\"summary\">{} of {} jobs vary</p>\n",
                   c.varying ? "bad" : "good", c.varying, c.jobs);
  s += "<ul>";
  if (c.unexpected) s += fmt::format("<li class=\"bad\">{} vary unexpectedly</li>", c.unexpected);
  if (c.expected) s += fmt::format("<li>{} vary as expected by the manifest</li>", c.expected);
  if (c.no_longer_varies)
    s += fmt::format("<li class=\"warn\">{} were expected to vary and no longer do (rate bounded "
                     "below the expected {})</li>",
                     c.no_longer_varies, percent(rate));
  if (c.not_seen)
    s += fmt::format("<li>{} expected to vary were not seen to (too few runs to bound the rate "
                     "below {})</li>",
                     c.not_seen, percent(rate));
  if (c.failed) s += fmt::format("<li class=\"warn\">{} failed on every run</li>", c.failed);
  if (c.incomplete) s += fmt::format("<li class=\"warn\">{} not finished</li>", c.incomplete);
  s += "</ul>\n<h2>Compilers</h2><table><tr><th>name</th><th>backend</th><th>version</th><th>file</"
       "th><th>hash</th></tr>";
  for (const auto& x : r.compilers)
    s += fmt::format(
        "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td><code>{}</code></td></tr>",
        esc(x.name), esc(x.backend), esc(x.version), esc(x.path), x.content_hash.substr(0, 16));
  s += "</table>\n<h2>Variance</h2>\n";
  s += bars_svg("chart-target", "Variance rate by target", tally_by(r, &store::JobRow::target));
  s += bars_svg("chart-options", "Variance rate by option set",
                tally_by(r, &store::JobRow::option_set));
  if (r.compilers.size() > 1)
    s += bars_svg("chart-compiler", "Variance rate by compiler",
                  tally_by(r, &store::JobRow::compiler));
  s += variants_svg(r);
  auto cmps = given ? *given : compare_compilers(r);
  if (!cmps.empty()) {
    s += "<h2>Compiler comparison</h2>\n" + matrix_svg(cmps);
    for (const auto& cmp : cmps) {
      std::string answers = esc(compare_answers(cmp));
      for (size_t at = answers.find('\n'); at != std::string::npos; at = answers.find('\n', at))
        answers.replace(at, 1, "<br>");
      s += "<p class=\"answers\">" + answers + "</p>";
      s += fmt::format("<table class=\"labels\"><tr><th colspan=\"3\">{} &#8594; {}</th></tr>",
                       esc(cmp.a), esc(cmp.b));
      for (const auto& p : cmp.pairs)
        if (p.label != scan::Label::identical && p.label != scan::Label::changed)
          s += fmt::format(
              "<tr><td>{}</td><td>{}</td><td>{}</td></tr>", scan::to_string(p.label), esc(p.key),
              esc(pair_evidence(p, cmp.margin) +
                  (p.stress != scan::Pairing::Stress::not_run ? "; " + stress_evidence(p) : "")));
      s += "</table>\n";
    }
  }
  s += "<h2 id=\"varying\">Varying jobs</h2>\n";
  // Unexpected variance first, then stale expectations, then expected variance.
  std::vector<const store::JobRow*> listed;
  for (auto want : {scan::JobStatus::varies, scan::JobStatus::no_longer_varies,
                    scan::JobStatus::varies_expected})
    for (const auto& j : r.jobs)
      if (scan::job_status(j, rate) == want) listed.push_back(&j);
  size_t shown = 0;
  for (const store::JobRow* jp : listed) {
    const auto& j = *jp;
    if (shown++ < max_diffs)
      s += job_section(j, rate, blobs);
    else
      s += fmt::format("<p>{} ({} variants; diff not shown past {} jobs)</p>\n", esc(j.label()),
                       j.variants.size(), max_diffs);
  }
  if (shown == 0) s += "<p>None.</p>\n";
  s += "<h2>All jobs</h2>\n<table "
       "id=\"jobs\"><tr><th>input</th><th>compiler</th><th>target</th><th>options</th>"
       "<th>status</th><th>runs</th><th>variants</th><th>rate bound</th></tr>\n";
  for (const auto& j : r.jobs) {
    const char* st = scan::to_string(scan::job_status(j, rate));
    s += fmt::format(
        "<tr "
        "class=\"{}\"><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
        "<td>{}</td></tr>\n",
        st, esc(j.input), esc(j.compiler), esc(j.target), esc(j.option_set), st, j.runs,
        j.variants.size(), j.varies() ? "" : "&lt; " + percent(j.upper_bound()));
  }
  s += "</table>\n</body></html>\n";
  return s;
}

} // namespace kdet::report
