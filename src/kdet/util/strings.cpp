#include "kdet/util/strings.hpp"

#include "kdet/util/error.hpp"

#include <charconv>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace kdet {

std::vector<std::string> split_command(std::string_view text) {
  std::vector<std::string> out;
  std::string cur;
  bool in_word = false;
  char quote = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (quote == '\'') {
      if (c == '\'')
        quote = 0;
      else
        cur += c;
      continue;
    }
    if (quote == '"') {
      if (c == '"')
        quote = 0;
      else if (c == '\\' && i + 1 < text.size() &&
               (text[i + 1] == '"' || text[i + 1] == '\\' || text[i + 1] == '$'))
        cur += text[++i];
      else
        cur += c;
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
    if (c == '\'' || c == '"')
      quote = c;
    else if (c == '\\' && i + 1 < text.size())
      cur += text[++i];
    else
      cur += c;
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
  if (s < 3600) {
    int m = static_cast<int>(s / 60);
    return fmt::format("{} min {:.0f} s", m, s - 60 * m);
  }
  // A census's estimate runs to days: hours, as CPU-hours are counted.
  long long h = static_cast<long long>(s / 3600);
  return fmt::format("{} h {} min", h,
                     static_cast<int>((s - 3600.0 * static_cast<double>(h)) / 60));
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

std::string plural(uint64_t n, std::string_view noun, std::string_view plural_form) {
  if (n == 1) return fmt::format("1 {}", noun);
  if (!plural_form.empty()) return fmt::format("{} {}", n, plural_form);
  return fmt::format("{} {}s", n, noun);
}

bool starts_with(std::string_view s, std::string_view p) {
  return s.substr(0, p.size()) == p;
}

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
    out.emplace_back(
        s.substr(start, p == std::string_view::npos ? std::string_view::npos : p - start));
    if (p == std::string_view::npos) break;
    start = p + 1;
  }
  return out;
}

std::string shell_join(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& a : argv) {
    if (!out.empty()) out += ' ';
    bool plain =
        !a.empty() && a.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                          "0123456789-_=./,:+@%") == std::string::npos;
    if (plain) {
      out += a;
      continue;
    }
    out += '\'';
    for (char c : a) {
      if (c == '\'')
        out += "'\\''";
      else
        out += c;
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

namespace {

// Length of the valid UTF-8 sequence at s[i], and its code point; 0 when invalid.
size_t utf8_sequence(std::string_view s, size_t i, uint32_t& cp) {
  auto b = [&](size_t k) { return static_cast<unsigned char>(s[i + k]); };
  unsigned char c = b(0);
  size_t n = c < 0x80             ? 1
             : (c & 0xE0) == 0xC0 ? 2
             : (c & 0xF0) == 0xE0 ? 3
             : (c & 0xF8) == 0xF0 ? 4
                                  : 0;
  if (n == 0 || i + n > s.size()) return 0;
  cp = n == 1 ? c : n == 2 ? c & 0x1F : n == 3 ? c & 0x0F : c & 0x07;
  for (size_t k = 1; k < n; ++k) {
    if ((b(k) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b(k) & 0x3F);
  }
  static constexpr uint32_t k_min[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < k_min[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return n;
}

void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

} // namespace

bool valid_utf8(std::string_view s) {
  uint32_t cp = 0;
  for (size_t i = 0; i < s.size();) {
    size_t n = utf8_sequence(s, i, cp);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

std::string utf8_safe(std::string_view s) {
  if (valid_utf8(s)) return std::string(s);
  std::string out;
  out.reserve(s.size() + s.size() / 4);
  uint32_t cp = 0;
  for (size_t i = 0; i < s.size();) {
    size_t n = utf8_sequence(s, i, cp);
    if (n == 0) {
      append_utf8(out, static_cast<unsigned char>(s[i]));
      ++i;
    } else {
      out.append(s.substr(i, n));
      i += n;
    }
  }
  return out;
}

std::string xml_text(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  uint32_t cp = 0;
  for (size_t i = 0; i < s.size();) {
    size_t n = utf8_sequence(s, i, cp);
    if (n == 0) {
      cp = static_cast<unsigned char>(s[i]);
      n = 1;
    }
    i += n;
    switch (cp) {
    case '&':
      out += "&amp;";
      continue;
    case '<':
      out += "&lt;";
      continue;
    case '>':
      out += "&gt;";
      continue;
    case '"':
      out += "&quot;";
      continue;
    case '\'':
      out += "&#39;";
      continue;
    default:
      break;
    }
    if (cp < 0x20 && cp != '\t' && cp != '\n' && cp != '\r')
      append_utf8(out, 0x2400 + cp);
    else if (cp == 0xFFFE || cp == 0xFFFF)
      append_utf8(out, 0xFFFD);
    else
      append_utf8(out, cp);
  }
  return out;
}

namespace {

// The length of kdet's own colour sequence at `s[i]` (ESC [ N;N... m, each N one kdet
// paints with); 0 when there is none.
size_t own_color_at(std::string_view s, size_t i) {
  if (s.substr(i, 2) != "\x1b[") return 0;
  size_t j = i + 2, start = j;
  for (;; ++j) {
    if (j == s.size()) return 0;
    if (s[j] == ';' || s[j] == 'm') {
      auto n = parse_u64(s.substr(start, j - start));
      // reset, bold, dim, normal intensity, and the plain and bright foreground colours
      bool known = n && (*n <= 2 || *n == 22 || (*n >= 30 && *n <= 39) || (*n >= 90 && *n <= 97));
      if (!known) return 0;
      if (s[j] == 'm') return j + 1 - i;
      start = j + 1;
    } else if (s[j] < '0' || s[j] > '9') {
      return 0;
    }
  }
}

} // namespace

std::string terminal_text(std::string_view s, bool keep_color) {
  std::string out;
  out.reserve(s.size());
  uint32_t cp = 0;
  for (size_t i = 0; i < s.size();) {
    if (size_t own = keep_color ? own_color_at(s, i) : 0) {
      out.append(s.substr(i, own));
      i += own;
      continue;
    }
    size_t n = utf8_sequence(s, i, cp);
    if (n == 0) {
      cp = static_cast<unsigned char>(s[i]);
      n = 1;
    }
    i += n;
    if ((cp < 0x20 && cp != '\t' && cp != '\n') || cp == 0x7f)
      out += fmt::format("\\x{:02x}", cp);
    else if (cp >= 0x80 && cp <= 0x9f)
      out += fmt::format("\\u{:04x}", cp);
    else
      append_utf8(out, cp);
  }
  return out;
}

nlohmann::json utf8_safe_json(const nlohmann::json& j) {
  if (j.is_string()) {
    const auto& s = j.get_ref<const std::string&>();
    return valid_utf8(s) ? j : nlohmann::json(utf8_safe(std::string_view(s)));
  }
  if (j.is_array()) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& e : j)
      out.push_back(utf8_safe_json(e));
    return out;
  }
  if (j.is_object()) {
    nlohmann::json out = nlohmann::json::object();
    for (auto it = j.begin(); it != j.end(); ++it)
      out[utf8_safe(std::string_view(it.key()))] = utf8_safe_json(it.value());
    return out;
  }
  return j;
}

std::string json_text(const nlohmann::json& j, int indent) {
  return utf8_safe_json(j).dump(indent);
}

} // namespace kdet
