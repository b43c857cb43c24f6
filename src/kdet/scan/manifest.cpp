//===- scan/manifest.cpp - parse and validate a scan manifest (TOML) -----------===//
#include "kdet/scan/manifest.hpp"

#include "kdet/backend/exec_template.hpp"
#include "kdet/backend/python_stage.hpp"
#include "kdet/perturb/registry.hpp"
#include "kdet/scan/manifest_bundles.hpp"
#include "kdet/scan/manifest_checker.hpp"
#include "kdet/stats/stats.hpp"
#include "kdet/util/error.hpp"
#include "kdet/util/exec.hpp"
#include "kdet/util/fs.hpp"
#include "kdet/util/hash.hpp"
#include "kdet/util/numbers.hpp"
#include "kdet/util/strings.hpp"
#include "kdet/util/toml_text.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <fnmatch.h>
#include <glob.h>
#include <set>
#include <sys/stat.h>
#include <toml++/toml.h>
#include <unistd.h>

namespace kdet::scan {

namespace {

using manifest_detail::Checker;

std::string default_target_option(backend::Kind kind) {
  switch (kind) {
  case backend::Kind::nvvm:
    return "-arch=compute_{target}";
  case backend::Kind::nvrtc:
  case backend::Kind::nvjitlink:
    return "-arch=sm_{target}";
  case backend::Kind::exec:
  case backend::Kind::python:
    break;
  }
  return ""; // exec: {target} in the command template; python: none
}

bool valid_name(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.' ||
           c == '+';
  });
}

// Patterns GLOB_BRACE expands at most; each {a,b} pair doubles the count, so 22 pairs would be
// four million globs.
constexpr uint64_t k_max_brace_expansions = 4096;

// How many patterns GLOB_BRACE makes of `p[i..)` up to the closing brace at depth > 0,
// saturating at `cap + 1`. Advances `i` past what it read.
uint64_t brace_count(std::string_view p, size_t& i, bool inside, uint64_t cap) {
  uint64_t total = 0, product = 1;
  auto mul = [&](uint64_t a, uint64_t b) { return a && b > (cap + 1) / a ? cap + 1 : a * b; };
  while (i < p.size()) {
    char ch = p[i];
    if (ch == '\\' && i + 1 < p.size()) {
      i += 2;
    } else if (ch == '{') {
      ++i;
      product = mul(product, brace_count(p, i, true, cap));
    } else if (inside && ch == ',') {
      ++i;
      total = std::min(cap + 1, total + product);
      product = 1;
    } else if (inside && ch == '}') {
      ++i;
      return std::min(cap + 1, total + product);
    } else {
      ++i;
    }
  }
  return std::min(cap + 1, total + product); // an unclosed brace: glob reads it as text
}

// `key` as (text, line) pairs: one string or an array of strings, not empty.
std::vector<std::pair<std::string, int>> patterns_of(const Checker& c, const toml::node& n,
                                                     const char* key, const char* what) {
  std::vector<std::pair<std::string, int>> patterns;
  if (n.is_string())
    patterns.emplace_back(std::string(*n.value<std::string_view>()), Checker::line_of(n));
  else if (const toml::array* a = n.as_array()) {
    for (auto&& e : *a) {
      if (!e.is_string())
        c.fail(Checker::line_of(e), fmt::format("{} must hold strings ({})", key, what));
      patterns.emplace_back(std::string(*e.value<std::string_view>()), Checker::line_of(e));
    }
  } else
    c.fail(Checker::line_of(n), fmt::format("{} must be an array of {}", key, what));
  if (patterns.empty())
    c.fail(Checker::line_of(n), fmt::format("{} is empty; name at least one", key));
  return patterns;
}

void parse_inputs(const Checker& c, const toml::table& root, Manifest& m) {
  const toml::node* n = root.get("inputs");
  if (!n) {
    if (root.get("bundles")) return; // bundles alone
    c.fail(0, "no 'inputs': give inputs = [\"kernels/*.ll\", ...] (files or globs, relative to the "
              "manifest), or bundles = [\"bundles/*\"] (bundle folders of kdet capture)");
  }
  auto patterns = patterns_of(c, *n, "inputs", "file names or globs");
  std::set<std::string> seen;
  for (const auto& [pat, line] : patterns) {
    size_t at = 0;
    if (brace_count(pat, at, false, k_max_brace_expansions) > k_max_brace_expansions)
      c.fail(line,
             fmt::format("input '{}' expands to more than {} patterns through {{a,b}} braces; "
                         "use a * or ? wildcard, or list the files",
                         pat, k_max_brace_expansions));
    std::string full = pat.starts_with("/") ? pat : m.dir + "/" + pat;
    glob_t g{};
    int rc = ::glob(full.c_str(), GLOB_ERR | GLOB_BRACE, nullptr, &g);
    std::vector<std::string> hits;
    if (rc == 0)
      for (size_t i = 0; i < g.gl_pathc; ++i)
        hits.emplace_back(g.gl_pathv[i]);
    ::globfree(&g);
    if (hits.empty())
      c.fail(line,
             fmt::format("input '{}' matches no file (looked for {}); globs take * ? [..] {{a,b}}",
                         pat, full));
    for (const auto& h : hits) {
      struct stat st {};
      if (::stat(h.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
        continue; // folders matched by a glob
      if (::access(h.c_str(), R_OK) != 0) c.fail(line, fmt::format("input {} is not readable", h));
      std::string abs = absolute_path(h);
      if (!seen.insert(abs).second) continue;
      std::string name = abs.starts_with(m.dir + "/") ? abs.substr(m.dir.size() + 1) : abs;
      m.inputs.push_back({abs, name});
    }
  }
  if (m.inputs.empty()) c.fail(Checker::line_of(*n), "inputs match only folders; name files");
  std::sort(m.inputs.begin(), m.inputs.end(),
            [](const Input& a, const Input& b) { return a.name < b.name; });
}

// A Python stage: file (relative to the manifest), function and python, checked as --py is.
void parse_python_compiler(const Checker& c, const toml::table& t, const Manifest& m,
                           const std::string& where, const std::string& lib, CompilerSpec& s) {
  auto at = [&](const char* key) {
    const toml::node* k = t.get(key);
    return k ? Checker::line_of(*k) : Checker::line_of(t);
  };
  if (!lib.empty() || !s.config.command.empty() || !s.config.output_ext.empty())
    c.fail(at(!lib.empty()                ? "lib"
              : !s.config.command.empty() ? "command"
                                          : "output_ext"),
           fmt::format("{}: a Python stage takes file = \"stage.py\" and function = \"NAME\", "
                       "not lib, command or output_ext",
                       where));
  std::string file = c.str(t, "file", where, true);
  std::string fn = c.str(t, "function", where, true);
  std::string py = c.str(t, "python", where, false);
  if (!file.empty() && !file.starts_with("/")) file = absolute_path(m.dir + "/" + file);
  if (std::string why = backend::python_stage_config(file, fn, py, s.config); !why.empty())
    c.fail(at(why.starts_with("function")      ? "function"
              : why.starts_with("interpreter") ? "python"
                                               : "file"),
           fmt::format("{}: {}", where, why));
}

void parse_compilers(const Checker& c, const toml::table& root, Manifest& m) {
  const toml::node* n = root.get("compiler");
  if (!n) {
    if (m.inputs.empty()) return; // bundles alone bring their compilers
    c.fail(0, "no compiler: add [[compiler]] with name = \"...\" and backend = "
              "\"nvvm|nvrtc|nvjitlink|exec\"");
  }
  if (m.inputs.empty())
    c.fail(Checker::line_of(*n), "[[compiler]] compiles the manifest's inputs, and there are none: "
                                 "add inputs = [...] (bundles bring their own compilers)");
  const toml::array* arr = n->as_array();
  if (!arr || !arr->is_array_of_tables())
    c.fail(Checker::line_of(*n), "compiler must be written [[compiler]] (an array of tables)");
  std::set<std::string> names;
  for (auto&& e : *arr) {
    const toml::table& t = *e.as_table();
    int line = Checker::line_of(t);
    c.keys(t,
           {"name", "backend", "lib", "command", "output_ext", "target_option", "options",
            "targets", "file", "function", "python"},
           "[[compiler]]");
    // An error about one key points at that key's line, not the [[compiler]] line.
    auto at = [&t, line](const char* key) {
      const toml::node* k = t.get(key);
      return k ? Checker::line_of(*k) : line;
    };
    CompilerSpec s;
    s.line = line;
    s.name = c.str(t, "name", "[[compiler]]", true);
    if (!valid_name(s.name))
      c.fail(at("name"),
             fmt::format("compiler name '{}': use letters, digits and - _ . +", s.name));
    if (!names.insert(s.name).second)
      c.fail(at("name"), fmt::format("compiler name '{}' is used twice", s.name));
    std::string where = fmt::format("compiler '{}'", s.name);
    std::string kind = c.str(t, "backend", where, true);
    auto parsed = backend::parse_kind(kind);
    if (!parsed)
      c.fail(
          at("backend"),
          fmt::format("{}: backend '{}' is not valid; use nvvm, nvrtc, nvjitlink, exec or python",
                      where, kind));
    s.config.kind = *parsed;
    const auto k = s.config.kind;
    std::string lib = c.str(t, "lib", where, false);
    s.config.command = c.str(t, "command", where, false);
    try {
      s.config.output_ext =
          backend::check_output_ext(c.str(t, "output_ext", where, false), where + ": output_ext");
    } catch (const Error& e) {
      c.fail(at("output_ext"), e.what());
    }
    for (const char* key : {"file", "function", "python"})
      if (k != backend::Kind::python && t.get(key))
        c.fail(at(key), fmt::format("{}: {} is for backend python, not {}", where, key,
                                    backend::to_string(k)));
    if (k == backend::Kind::python) {
      parse_python_compiler(c, t, m, where, lib, s);
    } else if (k == backend::Kind::exec) {
      if (s.config.command.empty())
        c.fail(line,
               fmt::format("{}: backend exec needs command = \"prog {{input}} -o {{output}} ...\"",
                           where));
      if (!lib.empty())
        c.fail(at("lib"),
               fmt::format("{}: lib is for nvvm/nvrtc/nvjitlink; exec takes command", where));
      std::vector<std::string> argv;
      try {
        argv = backend::check_command_template(s.config.command, where + ": command", {"target"});
      } catch (const Error& e) {
        c.fail(at("command"), e.what());
      }
      if (argv.empty() || find_program(argv[0]).empty())
        c.fail(at("command"), fmt::format("{}: program '{}' not found in PATH", where,
                                          argv.empty() ? "" : argv[0]));
    } else {
      if (!s.config.command.empty())
        c.fail(at("command"), fmt::format("{}: command is for backend exec, not {}", where,
                                          backend::to_string(k)));
      if (!lib.empty()) {
        s.config.lib = lib.starts_with("/") ? lib : absolute_path(m.dir + "/" + lib);
        struct stat st {};
        if (::access(s.config.lib.c_str(), R_OK) != 0)
          c.fail(at("lib"),
                 fmt::format("{}: lib {} does not exist or is unreadable", where, s.config.lib));
        // dlopen of a FIFO waits for a writer for ever.
        if (::stat(s.config.lib.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
          c.fail(at("lib"), fmt::format("{}: lib {} is not a regular file", where, s.config.lib));
      } else if (t.get("lib")) {
        c.fail(at("lib"), fmt::format("{}: lib = \"\" is empty; name the library or leave lib out "
                                      "(default: $CUDA_HOME, then /usr/local/cuda)",
                                      where));
      }
    }
    s.target_option =
        t.get("target_option") ? c.str(t, "target_option", where, false) : default_target_option(k);
    s.options = c.strs(t, "options", where);
    s.targets = c.targets(t, where);
    m.compilers.push_back(std::move(s));
  }
}

void parse_setting(const Checker& c, const toml::table& root, Manifest& m) {
  const toml::table* t = root.get_as<toml::table>("setting");
  bool all_exec = std::all_of(m.compilers.begin(), m.compilers.end(), [](const CompilerSpec& s) {
    return s.config.kind == backend::Kind::exec;
  });
  auto& s = m.setting;
  // Library compilers default to both regimes, as `kdet run` does (perturb/registry.hpp).
  s.process = all_exec ? perturb::ProcessMode::fresh : perturb::ProcessMode::both;
  s.heap = all_exec ? perturb::HeapMode::none : perturb::HeapMode::churn;
  s.seed = 0;
  if (!t) return;
  // The registry's manifest keys, plus env, seed and unnamed.
  std::vector<std::string> keys{"history", "env", "seed", "unnamed"};
  for (const auto& f : perturb::factor_registry())
    keys.push_back(f.manifest_key);
  c.keys(*t, keys, "[setting]");
  auto at = [&](const char* key) {
    return t->get(key) ? Checker::line_of(*t->get(key)) : Checker::line_of(*t);
  };
  for (const auto& f : perturb::factor_registry())
    if (t->get(f.manifest_key)) m.named_factors.insert(f.name);
  if (t->get("unnamed")) {
    const std::string u = c.str(*t, "unnamed", "setting", false);
    if (u != "vary" && u != "natural")
      c.fail(at("unnamed"),
             fmt::format("[setting] unnamed = \"{}\": must be \"vary\" (vary every factor not "
                         "named here, as kdet run does) or \"natural\" (leave them as a plain "
                         "compile sees them)",
                         u));
    m.unnamed_vary = u == "vary";
  }
  // Factors spelled as one string go through the registry; aslr (also a boolean), threads (a
  // number) and env_vary (a list) are read below.
  for (const auto& f : perturb::factor_registry()) {
    const std::string& key = f.manifest_key;
    if (key == "aslr" || key == "threads" || key == "env_vary" || !t->get(key)) continue;
    try {
      f.set(s, c.str(*t, key.c_str(), "setting", false), key);
    } catch (const Error& e) {
      c.fail(at(key.c_str()), fmt::format("[setting] {}", e.what()));
    }
  }
  if (const toml::node* a = t->get("aslr")) {
    if (a->is_boolean())
      s.aslr = *a->value<bool>();
    else if (a->is_string() &&
             (*a->value<std::string_view>() == "on" || *a->value<std::string_view>() == "off"))
      s.aslr = *a->value<std::string_view>() == "on";
    else
      c.fail(Checker::line_of(*a), "[setting] aslr must be \"on\" or \"off\"");
  }
  // Whole: 1.5 threads is refused, not cut to 1.
  s.threads = static_cast<int>(c.whole(*t, "threads", "setting", 0, WholeRange{0, 256},
                                       "extra allocating threads per worker"));
  s.history = c.whole(*t, "history", "setting", 0, WholeRange{0, 1000000},
                      "the most compiles one same-process worker makes in a row; 0: no limit");
  s.env = c.strs(*t, "env", "setting");
  for (const auto& kv : s.env)
    if (kv.find('=') == std::string::npos || kv.front() == '=')
      c.fail(at("env"), fmt::format("[setting] env entry '{}': expected \"KEY=VALUE\"", kv));
  if (const toml::node* n = t->get("seed")) {
    if (n->is_integer() && *n->value<int64_t>() >= 0)
      s.seed = static_cast<uint64_t>(*n->value<int64_t>());
    else if (n->is_string() && parse_seed(*n->value<std::string_view>()))
      s.seed = *parse_seed(*n->value<std::string_view>());
    else
      c.fail(Checker::line_of(*n),
             "[setting] seed must be a non-negative integer or a \"0x...\" string");
  }
  for (const auto& v : c.strs(*t, "env_vary", "setting")) {
    try {
      perturb::factor("env-vary").set(s, v, "env_vary");
    } catch (const Error& e) {
      c.fail(at("env_vary"), fmt::format("[setting] env_vary: {}", e.what()));
    }
  }
  if (all_exec &&
      (s.process != perturb::ProcessMode::fresh || s.heap == perturb::HeapMode::churn || s.threads))
    c.fail(Checker::line_of(*t),
           "[setting] every compiler is exec: use process = \"fresh\", heap = \"none\", "
           "threads = 0 (an exec compiler runs in its own process)");
}

// "kernels/*.ll" for "kernels/gen_0001.ll": the shape of a pattern that matches a name.
std::string example_glob(const std::string& name) {
  auto slash = name.find_last_of('/');
  auto dot = name.find_last_of('.');
  std::string dir = slash == std::string::npos ? "" : name.substr(0, slash + 1);
  std::string ext = dot == std::string::npos || (slash != std::string::npos && dot < slash)
                        ? ""
                        : name.substr(dot);
  return dir + "*" + ext;
}

void parse_expectations(const Checker& c, const toml::table& root, Manifest& m) {
  const toml::node* n = root.get("expect");
  if (!n) return;
  const toml::array* arr = n->as_array();
  if (!arr || !arr->is_array_of_tables())
    c.fail(Checker::line_of(*n), "expect must be written [[expect]] (an array of tables)");
  for (auto&& e : *arr) {
    const toml::table& t = *e.as_table();
    c.keys(t, {"input", "compiler", "target", "options", "reason"}, "[[expect]]");
    Expectation x;
    x.line = Checker::line_of(t);
    auto at_input = [&t, &x] {
      return t.get("input") ? Checker::line_of(*t.get("input")) : x.line;
    };
    x.input = c.str(t, "input", "[[expect]]", true);
    x.compiler = c.str(t, "compiler", "[[expect]]", false, "*");
    x.target = c.str(t, "target", "[[expect]]", false, "*");
    x.option_set = c.str(t, "options", "[[expect]]", false, "*");
    x.reason = c.str(t, "reason", "[[expect]]", true);
    if (x.compiler != "*" &&
        std::none_of(m.compilers.begin(), m.compilers.end(),
                     [&](const CompilerSpec& s) { return s.name == x.compiler; }))
      c.fail(x.line,
             fmt::format("[[expect]] compiler '{}' is not a [[compiler]] name", x.compiler));
    if (x.option_set != "*" &&
        std::none_of(m.option_sets.begin(), m.option_sets.end(),
                     [&](const OptionSet& o) { return o.name == x.option_set; }))
      c.fail(x.line,
             fmt::format("[[expect]] options '{}' is not an [option_sets] name", x.option_set));
    auto matches = [&](const Input& in) {
      return ::fnmatch(x.input.c_str(), in.name.c_str(), 0) == 0;
    };
    bool any = std::any_of(m.inputs.begin(), m.inputs.end(), matches) ||
               std::any_of(m.bundles.begin(), m.bundles.end(),
                           [&](const BundleJob& b) { return matches(b.input); });
    if (!any)
      c.fail(at_input(),
             fmt::format("[[expect]] input '{}' matches none of the {} and {}; "
                         "input names are paths relative to the manifest's folder, e.g. '{}' (a "
                         "pattern like '{}' matches by glob)",
                         x.input, plural(m.inputs.size(), "input"),
                         plural(m.bundles.size(), "bundle"),
                         m.inputs.empty() ? m.bundles.front().input.name : m.inputs.front().name,
                         example_glob(m.inputs.empty() ? m.bundles.front().input.name
                                                       : m.inputs.front().name)));
    m.expectations.push_back(std::move(x));
  }
}

} // namespace

Manifest parse_manifest(const std::string& text, const std::string& path) {
  Checker c(path);
  toml::table root = parse_toml(text, path);
  Manifest m;
  m.path = path;
  std::string abs = absolute_path(path);
  m.dir = abs.substr(0, abs.find_last_of('/'));
  if (m.dir.empty()) m.dir.assign(1, '/');
  m.text_hash = hash_bytes(text);
  c.keys(root,
         {"name", "inputs", "bundles", "targets", "option_sets", "compiler", "setting", "budget",
          "expect"},
         "the manifest");
  // Unnamed: the file's stem (census.toml: "census"), which reports use as their title.
  std::string stem = std::filesystem::path(path).stem().string();
  m.name = c.str(root, "name", "manifest", false, stem.empty() ? "scan" : stem);
  parse_inputs(c, root, m);
  parse_compilers(c, root, m);
  if (const toml::node* n = root.get("bundles"))
    add_bundles(m, patterns_of(c, *n, "bundles", "bundle folders or globs"));
  m.targets = c.targets(root, "manifest");
  // Bundles bring their own options: targets and option sets would silently do nothing.
  for (const char* key : {"targets", "option_sets"})
    if (m.inputs.empty() && root.get(key))
      c.fail(Checker::line_of(*root.get(key)),
             fmt::format("{} apply to the jobs of inputs, and there are none: a bundle brings its "
                         "own options (leave {} out)",
                         key, key));
  for (const auto& cs : m.compilers) {
    if (cs.captured) continue; // bundles take no target
    const auto& targets = cs.targets.empty() ? m.targets : cs.targets;
    bool has_target = cs.target_option.find("{target}") != std::string::npos ||
                      cs.config.command.find("{target}") != std::string::npos;
    if (targets.size() > 1 && !has_target)
      c.fail(
          cs.line,
          fmt::format("compiler '{}' has {} targets but neither target_option nor command contains "
                      "{{target}}; e.g. target_option = \"-arch=sm_{{target}}\"",
                      cs.name, targets.size()));
  }
  if (const toml::node* n = root.get("option_sets")) {
    const toml::table* t = n->as_table();
    if (!t)
      c.fail(Checker::line_of(*n), "option_sets must be a table: [option_sets] O3 = [\"-opt=3\"]");
    for (auto&& [k, v] : *t) {
      std::string name(k.str());
      if (!valid_name(name))
        c.fail(Checker::line_of(v),
               fmt::format("option set name '{}': use letters, digits, - _ .", name));
      if (!v.is_array())
        c.fail(Checker::line_of(v),
               fmt::format("option set '{}' must be an array of strings", name));
      if (name == k_captured_option_set && !m.bundles.empty())
        c.fail(Checker::line_of(v), fmt::format("option set name '{}' is what bundle jobs show; "
                                                "name this set otherwise",
                                                name));
      m.option_sets.push_back({name, c.strs(*t, name.c_str(), "option_sets")});
    }
    if (m.option_sets.empty())
      c.fail(Checker::line_of(*n), "[option_sets] is empty; give at least one");
  } else {
    m.option_sets.push_back({"default", {}});
  }
  parse_setting(c, root, m);
  if (const toml::node* n = root.get("budget")) {
    const toml::table* t = n->as_table();
    if (!t) c.fail(Checker::line_of(*n), "budget must be a table: [budget] target_rate = 0.05");
    c.keys(*t, {"target_rate", "max_runs", "first_round", "max_round", "timeout"}, "[budget]");
    m.target_rate = c.num(*t, "target_rate", "budget", m.target_rate, 1e-6, 0.5,
                          "0.01 = bound the rate below 1%");
    m.max_runs = c.whole(*t, "max_runs", "budget", 0, {0, 10'000'000}, "0 = from target_rate");
    m.first_round =
        c.whole(*t, "first_round", "budget", 8, {1, 1'000'000}, "runs in a job's first round");
    m.max_round = c.whole(*t, "max_round", "budget", std::max<uint64_t>(64, m.first_round),
                          {1, 1'000'000}, "the most runs in one round");
    if (m.max_round < m.first_round)
      c.fail(t->get("max_round") ? Checker::line_of(*t->get("max_round")) : Checker::line_of(*t),
             fmt::format("budget.max_round = {} is below first_round = {}", m.max_round,
                         m.first_round));
    m.timeout_seconds = c.real(*t, "timeout", "budget", 300, k_timeout_range, "seconds, 0 = never");
  }
  parse_expectations(c, root, m);
  for (auto& spec : m.compilers)
    spec.setting = m.setting; // until scan::vary_unnamed varies what [setting] does not name
  return m;
}

Manifest load_manifest(const std::string& path) {
  if (::access(path.c_str(), R_OK) != 0)
    throw Error::format("manifest {}: {}", path, std::strerror(errno));
  return parse_manifest(read_file(path), path);
}

const Expectation* find_expectation(const Manifest& m, const std::string& input_name,
                                    const std::string& compiler, const std::string& target,
                                    const std::string& option_set) {
  auto match = [](const std::string& pat, const std::string& s) {
    return pat == "*" || ::fnmatch(pat.c_str(), s.c_str(), 0) == 0;
  };
  for (const auto& x : m.expectations)
    if (match(x.input, input_name) && match(x.compiler, compiler) && match(x.target, target) &&
        match(x.option_set, option_set))
      return &x;
  return nullptr;
}

uint64_t job_budget(const Manifest& m) {
  return m.max_runs ? m.max_runs : stats::runs_to_bound(m.target_rate);
}

} // namespace kdet::scan
