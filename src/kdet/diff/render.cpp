//===- diff/render.cpp - text, JSON and HTML renderings of a Report --------===//
#include "kdet/diff/diff.hpp"
#include "kdet/diff/impact.hpp"
#include "kdet/util/strings.hpp"

#include <fmt/format.h>

namespace kdet::diff {

namespace {

// Lines of one entry's hunks shown in text output; --json has them all.
constexpr size_t k_max_text_lines = 400;

struct Palette {
  const char* bold = "";
  const char* red = "";
  const char* green = "";
  const char* cyan = "";
  const char* yellow = "";
  const char* reset = "";
};

Palette palette(bool color) {
  if (!color) return {};
  return {"\033[1m", "\033[31m", "\033[32m", "\033[36m", "\033[33m", "\033[0m"};
}

nlohmann::json hunks_json(const std::vector<Hunk>& hunks) {
  auto out = nlohmann::json::array();
  for (const auto& h : hunks) {
    auto lines = nlohmann::json::array();
    for (const auto& l : h.lines) {
      nlohmann::json line = {{"op", std::string(1, l.op)},
                             {"text", l.text},
                             {"line_a", l.line_a},
                             {"line_b", l.line_b}};
      if (!l.text_b.empty()) line["text_b"] = l.text_b;
      lines.push_back(std::move(line));
    }
    out.push_back({{"start_a", h.start_a},
                   {"count_a", h.count_a},
                   {"start_b", h.start_b},
                   {"count_b", h.count_b},
                   {"lines", std::move(lines)}});
  }
  return out;
}

std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) out += sep;
    out += v[i];
  }
  return out;
}

void hunks_text(std::string& out, const std::vector<Hunk>& hunks, const Palette& p) {
  size_t shown = 0, total = 0;
  for (const auto& h : hunks)
    total += h.lines.size();
  for (const auto& h : hunks) {
    if (shown >= k_max_text_lines) break;
    out += fmt::format("{}@@ -{},{} +{},{} @@{}\n", p.cyan, h.start_a, h.count_a, h.start_b,
                       h.count_b, p.reset);
    for (const auto& l : h.lines) {
      if (shown++ >= k_max_text_lines) break;
      const char* c = l.op == '-' ? p.red : l.op == '+' ? p.green : "";
      auto num = [](size_t n) { return n ? fmt::format("{:>5}", n) : std::string(5, ' '); };
      if (!l.text_b.empty()) { // the same statement up to renaming: each side's own text
        out += fmt::format("~ {} {}  {}\n", num(l.line_a), num(0), l.text);
        out += fmt::format("~ {} {}  {}\n", num(0), num(l.line_b), l.text_b);
        continue;
      }
      out += fmt::format("{}{} {} {}  {}{}\n", c, l.op, num(l.line_a), num(l.line_b), l.text,
                         *c ? p.reset : "");
    }
  }
  if (shown < total) out += fmt::format("  ... {} more diff lines (see --json)\n", total - shown);
}

std::string html_escape(std::string_view s) {
  // Valid XML whatever the bytes: controls and bytes that are not UTF-8 are mapped (util/strings).
  return xml_text(s);
}

} // namespace

nlohmann::json to_json(const Report& r) {
  nlohmann::json j;
  j["schema"] = "kdet.diff/1";
  j["format"] = to_string(r.format);
  j["identical"] = identical(r);
  j["overall"] = to_string(r.overall);
  j["summary"] = summary_line(r);
  j["size_a"] = r.size_a;
  j["size_b"] = r.size_b;
  j["approximate"] = r.approximate;
  j["summary_only"] = r.summary_only;
  j["ordering_only"] = r.ordering_only;
  j["functions_reordered"] = r.functions_reordered;
  j["notes"] = r.notes;
  auto entries = nlohmann::json::array();
  for (const auto& e : r.entries) {
    auto values = nlohmann::json::array();
    for (const auto& v : e.values)
      values.push_back({{"name", v.name}, {"a", v.a}, {"b", v.b}});
    entries.push_back({{"name", e.name},
                       {"kind", e.kind},
                       {"change", to_string(e.change)},
                       {"aspects", e.aspects},
                       {"count_a", e.count_a},
                       {"count_b", e.count_b},
                       {"moved", e.moved},
                       {"values", std::move(values)},
                       {"notes", e.notes},
                       {"hunks", hunks_json(e.hunks)}});
  }
  j["entries"] = std::move(entries);
  j["hunks"] = hunks_json(r.hunks);
  auto ranges = nlohmann::json::array();
  for (const auto& br : r.byte_ranges)
    ranges.push_back({{"offset", br.offset}, {"length", br.length}});
  j["byte_ranges"] = std::move(ranges);
  j["bytes_differing"] = r.bytes_differing;
  return j;
}

nlohmann::json to_json(const Report& report, const std::string& name_a, const std::string& name_b,
                       const ImpactReport* impact) {
  nlohmann::json j = to_json(report);
  if (impact) j["impact"] = to_json(*impact);
  j["a"] = name_a;
  j["b"] = name_b;
  return j;
}

std::string to_text(const Report& r, bool color, const std::string& name_a,
                    const std::string& name_b, size_t name_width) {
  Palette p = palette(color);
  // numba's mangled names run to thousands of characters: one would fill the screen per line.
  auto shown = [name_width](const std::string& n) {
    return name_width && n.size() > name_width ? display_name(n, name_width) : n;
  };
  std::string out;
  out += fmt::format("{}{} vs {} ({}): {}{}\n", p.bold, name_a, name_b, to_string(r.format),
                     summary_line(r), p.reset);
  for (const auto& n : r.notes)
    out += fmt::format("  note: {}\n", n);
  if (identical(r)) return out;
  size_t same = 0;
  for (const auto& e : r.entries) {
    if (e.change == Change::identical) {
      ++same;
      continue;
    }
    const char* c = p.yellow;
    out += fmt::format("  {}{:<10}{} {:<8} {}", c, to_string(e.change), p.reset, e.kind,
                       shown(e.name));
    if (!e.notes.empty()) out += ": " + join(e.notes, "; ");
    out += '\n';
    for (const auto& v : e.values)
      if (v.name.rfind(".reg", 0) != 0) // .reg changes are already in the notes
        out += fmt::format("      {}: {} -> {}\n", v.name, v.a.empty() ? "(none)" : v.a,
                           v.b.empty() ? "(none)" : v.b);
  }
  if (same) out += fmt::format("  ({} identical part{} not listed)\n", same, same == 1 ? "" : "s");
  for (const auto& e : r.entries) {
    if (e.hunks.empty()) continue;
    out += fmt::format("{}--- {}:{}\n+++ {}:{}{}\n", p.bold, name_a, shown(e.name), name_b,
                       shown(e.name), p.reset);
    hunks_text(out, e.hunks, p);
  }
  if (!r.hunks.empty()) {
    out += fmt::format("{}--- {}\n+++ {}{}\n", p.bold, name_a, name_b, p.reset);
    hunks_text(out, r.hunks, p);
  }
  for (const auto& br : r.byte_ranges)
    out += fmt::format("  bytes 0x{:x}..0x{:x} ({} byte{})\n", br.offset, br.offset + br.length,
                       br.length, br.length == 1 ? "" : "s");
  return out;
}

std::string to_html(const Report& r) {
  std::string out = fmt::format("<div class=\"kdet-diff kdet-diff-{}\" data-format=\"{}\">\n",
                                to_string(r.overall), to_string(r.format));
  out += fmt::format("<p class=\"kdet-diff-summary\">{}</p>\n", html_escape(summary_line(r)));
  for (const auto& n : r.notes)
    out += fmt::format("<p class=\"kdet-diff-note\">{}</p>\n", html_escape(n));
  if (!r.entries.empty()) {
    out += "<table "
           "class=\"kdet-diff-entries\">\n<tr><th>name</th><th>kind</th><th>change</"
           "th><th>details</th></tr>\n";
    for (const auto& e : r.entries) {
      std::vector<std::string> details = e.notes;
      for (const auto& v : e.values)
        if (v.name.rfind(".reg", 0) != 0) details.push_back(v.name + ": " + v.a + " -> " + v.b);
      out += fmt::format(
          "<tr class=\"kdet-diff-{}\"><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
          to_string(e.change), html_escape(e.name), html_escape(e.kind), to_string(e.change),
          html_escape(join(details, "; ")));
    }
    out += "</table>\n";
  }
  auto hunks_html = [&](const std::vector<Hunk>& hunks, const std::string& title) {
    if (hunks.empty()) return;
    out += fmt::format("<pre class=\"kdet-diff-hunks\" title=\"{}\">", html_escape(title));
    for (const auto& h : hunks) {
      out += fmt::format("<span class=\"kdet-diff-at\">@@ -{},{} +{},{} @@</span>\n", h.start_a,
                         h.count_a, h.start_b, h.count_b);
      for (const auto& l : h.lines) {
        const char* cls = l.op == '-' ? "del" : l.op == '+' ? "add" : "ctx";
        if (!l.text_b.empty()) {
          out += fmt::format("<span class=\"kdet-diff-ctx\">~ {}</span>\n", html_escape(l.text));
          out += fmt::format("<span class=\"kdet-diff-ctx\">~ {}</span>\n", html_escape(l.text_b));
          continue;
        }
        out += fmt::format("<span class=\"kdet-diff-{}\">{} {}</span>\n", cls, l.op,
                           html_escape(l.text));
      }
    }
    out += "</pre>\n";
  };
  for (const auto& e : r.entries)
    hunks_html(e.hunks, e.name);
  hunks_html(r.hunks, "text");
  if (!r.byte_ranges.empty()) {
    out += "<ul class=\"kdet-diff-bytes\">\n";
    for (const auto& br : r.byte_ranges)
      out += fmt::format("<li>0x{:x}..0x{:x} ({} bytes)</li>\n", br.offset, br.offset + br.length,
                         br.length);
    out += "</ul>\n";
  }
  out += "</div>\n";
  return out;
}

} // namespace kdet::diff
