//===- capture/exec_records.cpp - command compiles in the record logs -------===//
#include "kdet/capture/exec_records.hpp"

#include "kdet/capture/records.hpp"
#include "kdet/util/hash.hpp"

#include <algorithm>

namespace kdet::capture {

namespace {

// "x" + hex pairs is the bytes ("-", a null pointer, is not used by the shim).
bool decode(const std::string& s, std::string& out) {
  if (s.empty() || s[0] != 'x' || s.size() % 2 != 1) return false;
  auto nib = [](char c) {
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
  };
  out.clear();
  for (size_t i = 1; i < s.size(); i += 2) {
    int hi = nib(s[i]), lo = nib(s[i + 1]);
    if (hi < 0 || lo < 0) return false;
    out.push_back(static_cast<char>(hi * 16 + lo));
  }
  return true;
}

bool is_hash(const std::string& s) {
  return s.size() == 32 && std::all_of(s.begin(), s.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

} // namespace

const std::vector<std::string>& default_exec_names() {
  static const std::vector<std::string> names = {"ptxas", "nvcc", "cicc", "fatbinary", "nvlink"};
  return names;
}

bool valid_exec_name(const std::string& name) {
  if (name.empty() || name == "." || name == ".." || name.size() > 255) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '_' || c == '+' || c == '-';
  });
}

bool apply_exec_line(Compile& c, const std::vector<std::string>& w) {
  const std::string& key = w[0];
  std::string text;
  ExecInfo& e = c.exec.mut();
  if (key == "argv0" && w.size() == 2 && decode(w[1], text))
    e.argv0 = text;
  else if (key == "arg" && w.size() == 2 && decode(w[1], text))
    e.args.push_back(text);
  else if (key == "cwd" && w.size() == 2 && decode(w[1], text))
    e.cwd = text;
  else if (key == "env" && w.size() == 2 && decode(w[1], text))
    e.env.push_back(text);
  else if (key == "file" && w.size() == 4 && is_hash(w[1]) && decode(w[3], text)) {
    uint64_t n = 0;
    if (w[2].empty() || w[2].size() > 19 ||
        !std::all_of(w[2].begin(), w[2].end(), [](char ch) { return ch >= '0' && ch <= '9'; }))
      return false;
    n = std::stoull(w[2]);
    c.call_mut().inputs.push_back({"file", w[1], n, false, text});
  } else if (key == "status" && w.size() == 3 && (w[1] == "exited" || w[1] == "signaled"))
    e.status = w[1] + " " + w[2];
  else if (key == "output_file" && w.size() == 3 && decode(w[2], text))
    e.outputs.emplace_back(w[1], text);
  else
    return false;
  return true;
}

void add_exec_identity(Hasher& h, const Compile& c) {
  size_t n = 0;
  for (const auto& kv : c.exec->env)
    n += kv.rfind("TMPDIR=", 0) != 0;
  h.add_u64(n);
  for (const auto& kv : c.exec->env)
    if (kv.rfind("TMPDIR=", 0) != 0) h.add(kv);
}

std::string exec_input_name(const std::optional<std::string>& given) {
  std::string g = given.value_or("");
  size_t eq = g.rfind('=');
  if (eq != std::string::npos) g = g.substr(eq + 1); // --flag=FILE
  size_t slash = g.rfind('/');
  if (slash != std::string::npos) g = g.substr(slash + 1);
  std::string out;
  for (char ch : g)
    out.push_back((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                          (ch >= '0' && ch <= '9') || ch == '.' || ch == '_' || ch == '-' ||
                          ch == '+'
                      ? ch
                      : '_');
  if (out.empty() || out == "." || out == ".." || out.size() > 200) out = "input";
  return out;
}

nlohmann::json exec_json(const Compile& c) {
  const ExecInfo& e = *c.exec;
  nlohmann::json outs = nlohmann::json::array();
  for (const auto& [kind, path] : e.outputs)
    outs.push_back({{"kind", kind}, {"path", path}});
  return {{"argv0", e.argv0},
          {"args", e.args},
          {"cwd", e.cwd},
          {"env", e.env},
          {"status", e.status.empty() ? nlohmann::json(nullptr) : nlohmann::json(e.status)},
          {"outputs", outs},
          {"ppid", c.ppid}};
}

} // namespace kdet::capture
