//===- diff/diff.cpp - format detection, dispatch and the one-line summary -===//
#include "kdet/diff/diff.hpp"

#include "kdet/diff/internal.hpp"
#include "kdet/diff/ptx_reader.hpp"
#include "kdet/util/error.hpp"
#include "kdet/util/strings.hpp"

#include <algorithm>
#include <cstring>
#include <fmt/format.h>
#include <map>

namespace kdet::diff {

namespace {

constexpr unsigned char k_elf_magic[4] = {0x7f, 'E', 'L', 'F'};
constexpr uint16_t k_em_cuda = 190;

bool is_cuda_elf(std::string_view d) {
  if (d.size() < 20 || std::memcmp(d.data(), k_elf_magic, 4) != 0) return false;
  bool little = d[5] == 1;
  auto b0 = static_cast<unsigned char>(d[18]), b1 = static_cast<unsigned char>(d[19]);
  uint16_t machine =
      little ? static_cast<uint16_t>(b0 | (b1 << 8)) : static_cast<uint16_t>((b0 << 8) | b1);
  return machine == k_em_cuda;
}

bool is_text(std::string_view d) {
  std::string_view head = d.substr(0, 1 << 16);
  size_t odd = 0;
  for (char ch : head) {
    auto c = static_cast<unsigned char>(ch);
    if (c == 0) return false;
    if (c < 0x20 && c != '\n' && c != '\r' && c != '\t' && c != '\f' && c != '\v' && c != 0x1b)
      ++odd;
  }
  return odd * 100 <= head.size();
}

// PTX as libNVVM and NVRTC hand it over is a C string: the text, then a NUL (a ctypes user
// writes it so to a file; capture keeps those bytes). `data` without its trailing NULs.
std::string_view without_trailing_nuls(std::string_view data) {
  while (!data.empty() && data.back() == '\0')
    data.remove_suffix(1);
  return data;
}

} // namespace

Format detect_format(std::string_view data) {
  if (is_cuda_elf(data)) return Format::cubin;
  std::string_view text = without_trailing_nuls(data);
  if (text.size() != data.size() && is_text(text) && detail::looks_like_ptx(text))
    return Format::ptx;
  if (!is_text(data)) return Format::binary;
  if (detail::looks_like_ptx(data)) return Format::ptx;
  return Format::text;
}

const char* to_string(Format format) {
  switch (format) {
  case Format::ptx:
    return "ptx";
  case Format::cubin:
    return "cubin";
  case Format::text:
    return "text";
  case Format::binary:
    return "binary";
  }
  return "binary";
}

std::optional<Format> parse_format(std::string_view name) {
  for (Format f : {Format::ptx, Format::cubin, Format::text, Format::binary})
    if (name == to_string(f)) return f;
  return std::nullopt;
}

const char* to_string(Change change) {
  switch (change) {
  case Change::identical:
    return "identical";
  case Change::trivia:
    return "trivia";
  case Change::metadata:
    return "metadata";
  case Change::renamed:
    return "renamed";
  case Change::reordered:
    return "reordered";
  case Change::reg_decls:
    return "reg_decls";
  case Change::attributes:
    return "attributes";
  case Change::code:
    return "code";
  case Change::removed:
    return "removed";
  case Change::added:
    return "added";
  }
  return "code";
}

int severity(Change change) {
  switch (change) {
  case Change::identical:
    return 0;
  case Change::trivia:
  case Change::metadata:
    return 1;
  case Change::renamed:
    return 2;
  case Change::reordered:
    return 3;
  case Change::reg_decls:
  case Change::attributes:
    return 4;
  case Change::code:
    return 5;
  case Change::removed:
  case Change::added:
    return 6;
  }
  return 5;
}

namespace detail {
Entry one_sided_entry(std::string name, std::string kind, bool only_in_a, size_t count) {
  Entry e;
  e.name = std::move(name);
  e.kind = std::move(kind);
  e.change = only_in_a ? Change::removed : Change::added;
  (only_in_a ? e.count_a : e.count_b) = count;
  e.notes.push_back(only_in_a ? "only in A" : "only in B");
  return e;
}

void set_overall(Report& report) {
  report.overall = Change::identical;
  for (const auto& e : report.entries)
    if (severity(e.change) > severity(report.overall)) report.overall = e.change;
}
} // namespace detail

Report compare(std::string_view a, std::string_view b, std::optional<Format> force) {
  CompareOptions options;
  options.force = force;
  return compare(a, b, options);
}

Report compare(std::string_view a, std::string_view b, const CompareOptions& options) {
  const std::optional<Format>& force = options.force;
  Format fa = force ? *force : detect_format(a);
  Format fb = force ? *force : detect_format(b);
  Format f = fa;
  std::string mixed;
  if (fa != fb) {
    // Different kinds of content: compare as the most general format both fit.
    bool both_text =
        fa != Format::binary && fa != Format::cubin && fb != Format::binary && fb != Format::cubin;
    f = both_text ? Format::text : Format::binary;
    mixed = fmt::format("A looks like {}, B like {}; compared as {}", to_string(fa), to_string(fb),
                        to_string(f));
  }
  Report r;
  switch (f) {
  case Format::ptx: {
    // The NULs that end a C string are no part of the PTX; a file without them is the same PTX.
    std::string_view ta = without_trailing_nuls(a), tb = without_trailing_nuls(b);
    r = detail::compare_ptx(ta, tb, options.canonical_hunks);
    r.size_a = a.size();
    r.size_b = b.size();
    if (a.size() - ta.size() != b.size() - tb.size()) {
      r.notes.push_back(fmt::format("A ends in {} NUL byte(s), B in {} (PTX as libNVVM and NVRTC "
                                    "hand it over ends in one); the PTX is compared without them",
                                    a.size() - ta.size(), b.size() - tb.size()));
      if (r.overall == Change::identical) r.overall = Change::trivia;
    }
    break;
  }
  case Format::cubin:
    try {
      r = detail::compare_cubin(a, b, options.sass ? *options.sass : default_sass_options(),
                                options.canonical_hunks);
    } catch (const Error& e) {
      if (force) throw;
      // Detected by its header but unreadable further on: still say where the bytes differ.
      r = detail::compare_binary(a, b);
      r.notes.push_back(std::string("read as binary: ") + e.what());
    }
    break;
  case Format::text:
    r = detail::compare_text(a, b);
    break;
  case Format::binary:
    r = detail::compare_binary(a, b);
    break;
  }
  if (!mixed.empty()) r.notes.insert(r.notes.begin(), mixed);
  if (a == b) r.overall = Change::identical;
  return r;
}

bool identical(const Report& report) {
  return report.overall == Change::identical;
}

namespace {

std::string ptx_summary(const Report& r) {
  size_t total = 0;
  std::map<Change, size_t> count;
  const Entry* module = nullptr;
  for (const auto& e : r.entries) {
    if (e.kind == "module") {
      module = &e;
      continue;
    }
    ++total;
    ++count[e.change];
  }
  if (severity(r.overall) <= severity(Change::trivia))
    return "differ only in comments or whitespace";
  if (r.overall == Change::renamed) return "same after register renaming";
  std::vector<std::string> parts;
  auto of = [&](Change c, const char* what) {
    if (count[c])
      parts.push_back(
          fmt::format("{} in {} of {} function{}", what, count[c], total, total == 1 ? "" : "s"));
  };
  if (count[Change::removed])
    parts.push_back(fmt::format("{} function{} only in A", count[Change::removed],
                                count[Change::removed] == 1 ? "" : "s"));
  if (count[Change::added])
    parts.push_back(fmt::format("{} function{} only in B", count[Change::added],
                                count[Change::added] == 1 ? "" : "s"));
  of(Change::code, "code changed");
  of(Change::reg_decls, "register declarations changed");
  of(Change::reordered, "differ by instruction order");
  if (r.functions_reordered) parts.push_back("functions in another order");
  if (module && module->change == Change::code)
    parts.push_back("module-level declarations changed");
  if (module && module->change == Change::reordered)
    parts.push_back("module-level statements reordered");
  // Renaming beside another change: both are named ("a function swap plus a renaming").
  of(Change::renamed, "registers renamed");
  if (parts.empty() && !r.notes.empty()) parts.push_back(r.notes.back());
  if (parts.empty()) return "differ";
  std::string out = r.ordering_only ? "ordering differences only: " + parts[0] : parts[0];
  for (size_t i = 1; i < parts.size(); ++i)
    out += "; " + parts[i];
  return out;
}

// Kernels and device functions, counted apart.
struct CubinTally {
  size_t total = 0, reordered = 0, added = 0, removed = 0;
  std::map<std::string, size_t> aspect;
};

// "in 1 of 2 kernels", "in 1 of 2 kernels and 1 of 3 device functions", "in 1 of 3 device
// functions".
std::string in_of(size_t kernels, const CubinTally& k, size_t functions, const CubinTally& f) {
  std::string out = "in ";
  if (kernels || !functions) out += fmt::format("{} of {}", kernels, plural(k.total, "kernel"));
  if (functions)
    out += fmt::format("{}{} of {}", kernels ? " and " : "", functions,
                       plural(f.total, "device function"));
  return out;
}

std::string cubin_summary(const Report& r) {
  CubinTally k, f;
  bool module_changed = false, meta = false;
  for (const auto& e : r.entries) {
    if (e.kind == "kernel" || e.kind == "function") {
      CubinTally& t = e.kind == "kernel" ? k : f;
      ++t.total;
      for (const auto& a : e.aspects)
        ++t.aspect[a];
      t.reordered += e.change == Change::reordered;
      t.added += e.change == Change::added;
      t.removed += e.change == Change::removed;
    } else if (e.kind == "metadata") {
      meta |= e.change != Change::identical;
    } else if (e.change != Change::identical) {
      module_changed = true;
    }
  }
  bool sass = false; // .text compared as canonical SASS
  for (const auto& n : r.notes)
    sass |= n.rfind("SASS compared as canonical", 0) == 0;
  std::vector<std::string> parts;
  for (const auto& [t, what] : {std::pair{&k, "kernel"}, std::pair{&f, "device function"}}) {
    if (t->removed) parts.push_back(plural(t->removed, what) + " only in A");
    if (t->added) parts.push_back(plural(t->added, what) + " only in B");
  }
  const std::pair<const char*, const char*> names[] = {
      {"register_count", "register count changed"},
      {"stack", "stack size changed"},
      {"shared_memory", "shared memory changed"},
      {"text", ".text changed"},
      {"names", "same SASS up to register and address renaming"},
      {"constants", "constant bank changed"},
      {"attributes", ".nv.info attributes changed"},
      {"symbol", "symbol changed"}};
  for (const auto& [key, phrase] : names) {
    size_t nk = k.aspect[key], nf = f.aspect[key];
    if (!nk && !nf) continue;
    if (std::string(key) == "text" && k.reordered == nk && f.reordered == nf)
      parts.push_back("SASS instruction order changed " + in_of(nk, k, nf, f));
    else if (std::string(key) == "text" && sass)
      parts.push_back("SASS changed " + in_of(nk, k, nf, f));
    else
      parts.push_back(fmt::format("{} {}", phrase, in_of(nk, k, nf, f)));
  }
  if (module_changed) parts.push_back("module-level sections changed");
  if (parts.empty() && meta) return "metadata only (debug or note sections differ)";
  if (parts.empty()) return r.notes.empty() ? "differ" : r.notes.back();
  std::string out = r.ordering_only ? "ordering differences only: " + parts[0] : parts[0];
  for (size_t i = 1; i < parts.size(); ++i)
    out += "; " + parts[i];
  return out;
}

} // namespace

std::string size_only_summary(uint64_t size_a, uint64_t size_b) {
  auto mib = [](uint64_t n) {
    return fmt::format("{:.1f} MiB", static_cast<double>(n) / (1 << 20));
  };
  return fmt::format("differ ({} vs {}; too large for a detailed comparison)", mib(size_a),
                     mib(size_b));
}

Report summary_report(Format format, uint64_t size_a, uint64_t size_b, bool same, uint64_t limit) {
  Report r;
  r.format = format;
  r.size_a = size_a;
  r.size_b = size_b;
  r.summary_only = true;
  r.overall = same ? Change::identical : Change::code;
  r.notes.push_back(fmt::format(
      "larger than {} MiB: compared by content hash and size only (--max-size)", limit >> 20));
  return r;
}

std::string summary_line(const Report& report) {
  if (identical(report)) return "identical";
  if (report.summary_only) return size_only_summary(report.size_a, report.size_b);
  switch (report.format) {
  case Format::ptx:
    return ptx_summary(report);
  case Format::cubin:
    return cubin_summary(report);
  case Format::text: {
    if (report.ordering_only) {
      std::string how = "the same lines in another order";
      for (const auto& n : report.notes)
        if (n.rfind(how, 0) == 0) how = n;
      return "ordering differences only: " + how;
    }
    size_t plus = 0, minus = 0;
    for (const auto& h : report.hunks)
      for (const auto& l : h.lines)
        plus += l.op == '+', minus += l.op == '-';
    return fmt::format("text differs: {} hunk{}, +{} -{} lines", report.hunks.size(),
                       report.hunks.size() == 1 ? "" : "s", plus, minus);
  }
  case Format::binary:
    return fmt::format("binary differs: {} byte{} in {} range{}{}", report.bytes_differing,
                       report.bytes_differing == 1 ? "" : "s", report.byte_ranges.size(),
                       report.byte_ranges.size() == 1 ? "" : "s",
                       report.size_a != report.size_b
                           ? fmt::format(" (sizes {} and {})", report.size_a, report.size_b)
                           : "");
  }
  return "differ";
}

} // namespace kdet::diff
