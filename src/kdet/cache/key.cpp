//===- cache/key.cpp - cache keys, cache folder, verify sampling -------------===//
#include "kdet/cache/key.hpp"

#include "kdet/util/error.hpp"
#include "kdet/util/hash.hpp"
#include "kdet/util/strings.hpp"

#include <algorithm>
#include <cstdlib>
#include <random>

namespace kdet::cache {

namespace {
constexpr const char* k_key_schema = "kdet.cache.key/1";
}

std::string compute_key(const KeyMaterial& m) {
  Hasher h;
  h.add(k_key_schema).add(m.backend).add(m.compiler.content_hash).add(m.compiler.version);
  h.add_u64(m.command.size());
  for (const auto& w : m.command)
    h.add(w);
  h.add(m.output_ext);
  h.add_u64(m.options.size());
  for (const auto& o : m.options)
    h.add(o);
  h.add_u64(m.env.size());
  for (const auto& [name, value] : m.env) {
    h.add(name).add_u64(value ? 1 : 0);
    if (value) h.add(*value);
  }
  h.add(m.input_hash).add_u64(m.input_size);
  if (!m.deps_hash.empty()) h.add("deps").add(m.deps_hash);
  return h.hex();
}

nlohmann::json to_json(const KeyMaterial& m) {
  nlohmann::json env = nlohmann::json::object();
  for (const auto& [name, value] : m.env)
    env[name] = value ? nlohmann::json(*value) : nlohmann::json(nullptr);
  nlohmann::json j = {
      {"schema", k_key_schema},
      {"backend", m.backend},
      {"compiler",
       {{"path", m.compiler.path},
        {"content_hash", m.compiler.content_hash},
        {"version", m.compiler.version}}},
      {"options", m.options},
      {"target", target_of(m.options)},
      {"env", env},
      {"input", {{"hash", m.input_hash}, {"size", m.input_size}, {"name", m.input_name}}},
  };
  if (!m.deps_hash.empty()) j["deps"] = {{"hash", m.deps_hash}, {"files", m.deps}};
  if (m.backend == backend::to_string(backend::Kind::exec)) {
    j["command"] = m.command;
    j["output_ext"] = m.output_ext;
  }
  return j;
}

KeyMaterial key_material_from_json(const nlohmann::json& j) {
  try {
    if (j.at("schema").get<std::string>() != k_key_schema)
      throw Error::format("key.json: schema {} is not {}", j.at("schema").dump(), k_key_schema);
    KeyMaterial m;
    m.backend = j.at("backend").get<std::string>();
    const auto& c = j.at("compiler");
    m.compiler.backend = m.backend;
    m.compiler.path = c.at("path").get<std::string>();
    m.compiler.content_hash = c.at("content_hash").get<std::string>();
    m.compiler.version = c.at("version").get<std::string>();
    if (j.contains("command")) m.command = j.at("command").get<std::vector<std::string>>();
    if (j.contains("output_ext")) m.output_ext = j.at("output_ext").get<std::string>();
    m.options = j.at("options").get<std::vector<std::string>>();
    for (const auto& [name, value] : j.at("env").items())
      m.env.emplace_back(name, value.is_null()
                                   ? std::nullopt
                                   : std::optional<std::string>(value.get<std::string>()));
    std::sort(m.env.begin(), m.env.end());
    const auto& in = j.at("input");
    m.input_hash = in.at("hash").get<std::string>();
    m.input_size = in.at("size").get<uint64_t>();
    m.input_name = in.value("name", "");
    if (j.contains("deps")) {
      m.deps_hash = j.at("deps").at("hash").get<std::string>();
      m.deps = j.at("deps").at("files").get<std::vector<std::string>>();
    }
    return m;
  } catch (const nlohmann::json::exception& e) {
    throw Error::format("key.json: {}", e.what());
  }
}

std::vector<std::pair<std::string, std::optional<std::string>>>
read_env(const std::vector<std::string>& names, const std::string& option) {
  std::vector<std::pair<std::string, std::optional<std::string>>> env;
  for (const auto& n : names) {
    if (n.empty() || n.find('=') != std::string::npos)
      throw Error::format("{} {}: expected a variable name such as OPENBLAS_NUM_THREADS", option,
                          n);
    if (std::any_of(env.begin(), env.end(), [&](const auto& e) { return e.first == n; })) continue;
    const char* v = std::getenv(n.c_str());
    env.emplace_back(n, v ? std::optional<std::string>(v) : std::nullopt);
  }
  std::sort(env.begin(), env.end());
  return env;
}

std::string target_of(const std::vector<std::string>& options) {
  for (size_t i = 0; i < options.size(); ++i) {
    const auto& o = options[i];
    for (const char* p : {"-arch=", "--gpu-architecture=", "--gpu-name=", "-gpu-name="})
      if (starts_with(o, p)) return o.substr(std::string_view(p).size());
    if ((o == "-arch" || o == "--gpu-architecture" || o == "--gpu-name") && i + 1 < options.size())
      return options[i + 1];
  }
  return {};
}

std::string resolve_cache_dir(const std::string& dir) {
  if (!dir.empty()) return dir;
  if (const char* d = std::getenv("KDET_CACHE_DIR"); d && *d) return d;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/kdet";
  if (const char* home = std::getenv("HOME"); home && *home)
    return std::string(home) + "/.cache/kdet";
  throw Error("no cache folder: give --dir DIR or set KDET_CACHE_DIR (HOME is not set)");
}

double parse_verify_rate(const std::string& text, const std::string& option) {
  auto bad = [&] {
    return Error::format(
        "{} {}: expected a fraction between 0 and 1 such as 1/32, 0.1, 1 (always) or 0 (never)",
        option, text);
  };
  double v = 0;
  try {
    size_t used = 0;
    auto slash = text.find('/');
    if (slash != std::string::npos) {
      double num = std::stod(text.substr(0, slash), &used);
      if (used != slash) throw bad();
      std::string den_s = text.substr(slash + 1);
      double den = std::stod(den_s, &used);
      if (used != den_s.size() || den <= 0) throw bad();
      v = num / den;
    } else {
      v = std::stod(text, &used);
      if (used != text.size()) throw bad();
    }
  } catch (const std::logic_error&) {
    throw bad();
  }
  if (!(v >= 0 && v <= 1)) throw bad();
  return v;
}

bool sample(double rate) {
  if (rate <= 0) return false;
  if (rate >= 1) return true;
  thread_local std::mt19937_64 rng{(static_cast<uint64_t>(std::random_device{}()) << 32) ^
                                   std::random_device{}()};
  return std::uniform_real_distribution<double>(0.0, 1.0)(rng) < rate;
}

} // namespace kdet::cache
