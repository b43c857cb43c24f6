#include "kdet/util/strings.hpp"

#include "kdet/util/error.hpp"

#include <fmt/format.h>

#include <charconv>

namespace kdet {

std::vector<std::string> split_command(std::string_view text) {
  std::vector<std::string> out;
  std::string cur;
  bool in_word = false;
  char quote = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (quote == '\'') {
      if (c == '\'') quote = 0;
      else cur += c;
      continue;
    }
    if (quote == '"') {
      if (c == '"') quote = 0;
      else if (c == '\\' && i + 1 < text.size() &&
               (text[i + 1] == '"' || text[i + 1] == '\\' || text[i + 1] == '$'))
        cur += text[++i];
      else cur += c;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\n') {
      if (in_word) {
        out.push_back(std::move(cur));
        cur.clear();
        in_word = false;
      }
      continue;
    }
    in_word = true;
    if (c == '\'' || c == '"') quote = c;
    else if (c == '\\' && i + 1 < text.size()) cur += text[++i];
    else cur += c;
  }
  if (quote) throw Error::format("command template has an unclosed {} quote: {}", quote, text);
  if (in_word) out.push_back(std::move(cur));
  return out;
}

std::string substitute(std::string_view text, const std::map<std::string, std::string>& values) {
  std::string out;
  size_t i = 0;
  while (i < text.size()) {
    if (text[i] == '{') {
      size_t close = text.find('}', i);
      if (close != std::string_view::npos) {
        auto it = values.find(std::string(text.substr(i + 1, close - i - 1)));
        if (it != values.end()) {
          out += it->second;
          i = close + 1;
          continue;
        }
      }
    }
    out += text[i++];
  }
  return out;
}

std::string human_bytes(uint64_t bytes) {
  if (bytes < 1024) return fmt::format("{} B", bytes);
  double v = static_cast<double>(bytes);
  const char* units[] = {"KiB", "MiB", "GiB", "TiB"};
  int u = -1;
  while (v >= 1024 && u < 3) {
    v /= 1024;
    ++u;
  }
  return fmt::format("{:.1f} {}", v, units[u]);
}

std::string human_seconds(double s) {
  if (s < 1e-3) return fmt::format("{:.0f} us", s * 1e6);
  if (s < 1) return fmt::format("{:.0f} ms", s * 1e3);
  if (s < 60) return fmt::format("{:.2f} s", s);
  int m = static_cast<int>(s / 60);
  return fmt::format("{} min {:.0f} s", m, s - 60 * m);
}

std::string percent(double f) {
  double p = f * 100;
  if (p == 0) return "0%";
  if (p < 0.01) return "<0.01%";
  if (p < 1) return fmt::format("{:.2f}%", p);
  if (p < 10) return fmt::format("{:.1f}%", p);
  return fmt::format("{:.0f}%", p);
}

std::optional<uint64_t> parse_u64(std::string_view t) {
  uint64_t v = 0;
  auto r = std::from_chars(t.data(), t.data() + t.size(), v);
  if (t.empty() || r.ec != std::errc() || r.ptr != t.data() + t.size()) return std::nullopt;
  return v;
}

std::optional<uint64_t> parse_seed(std::string_view t) {
  if (t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) {
    uint64_t v = 0;
    auto body = t.substr(2);
    auto r = std::from_chars(body.data(), body.data() + body.size(), v, 16);
    if (r.ec != std::errc() || r.ptr != body.data() + body.size()) return std::nullopt;
    return v;
  }
  return parse_u64(t);
}

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

std::string trim(std::string_view s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) return {};
  size_t e = s.find_last_not_of(" \t\r\n");
  return std::string(s.substr(b, e - b + 1));
}

std::vector<std::string> split(std::string_view s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  for (;;) {
    size_t p = s.find(sep, start);
    out.emplace_back(s.substr(start, p == std::string_view::npos ? std::string_view::npos : p - start));
    if (p == std::string_view::npos) break;
    start = p + 1;
  }
  return out;
}

std::string shell_join(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& a : argv) {
    if (!out.empty()) out += ' ';
    bool plain = !a.empty() && a.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                                    "0123456789-_=./,:+@%") == std::string::npos;
    if (plain) {
      out += a;
      continue;
    }
    out += '\'';
    for (char c : a) {
      if (c == '\'') out += "'\\''";
      else out += c;
    }
    out += '\'';
  }
  return out;
}

std::string first_line(std::string_view text) {
  auto t = trim(text);
  auto nl = t.find('\n');
  return trim(std::string_view(t).substr(0, nl));
}

} // namespace kdet
