//===- cli/cache.cpp - `kdet cache ...` and `kdet cc`: a cache that checks itself -===//
//
// kdet cache compile INPUT|BUNDLE_DIR [--backend/--lib/--cmd] [--out FILE|-] -- options
// kdet cc INPUT -o OUTPUT -- <command template with {input} {output}, or the
//                              build's own command naming INPUT and OUTPUT>
// kdet cache report | stats | gc --max-size SIZE | verify [--sample F]
// The library is src/kdet/cache/; keys and layout are in docs/CACHE.md.
//
//===----------------------------------------------------------------------===//
#include "kdet/backend/exec_template.hpp"
#include "kdet/cache/compile.hpp"
#include "kdet/cache/key.hpp"
#include "kdet/cache/launcher.hpp"
#include "kdet/cache/maintain.hpp"
#include "kdet/cache/store.hpp"
#include "kdet/capture/bundle_pack.hpp"
#include "kdet/capture/replay.hpp"
#include "kdet/cli/cache_stats.hpp"
#include "kdet/cli/launcher.hpp"
#include "kdet/cli/main.hpp"
#include "kdet/cli/numbers.hpp"
#include "kdet/cli/output.hpp"
#include "kdet/cli/run_options.hpp"
#include "kdet/engine/interrupt.hpp"
#include "kdet/report/cache_junit.hpp"
#include "kdet/util/error.hpp"
#include "kdet/util/exec.hpp"
#include "kdet/util/fs.hpp"
#include "kdet/util/hash.hpp"
#include "kdet/util/strings.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fmt/format.h>
#include <memory>
#include <optional>
#include <sys/stat.h>
#include <unistd.h>

namespace kdet::cli {

namespace {

struct CacheOptions {
  std::string dir;
  std::string verify_rate = "1/32";
  std::string on_variants = "serve-first";
  // Where each came from, for an error about a bad value: the option or the variable.
  std::string verify_rate_from = "--verify-rate";
  std::string on_variants_from = "--on-variants";
  std::vector<std::string> key_env;
  OutputArgs output;     // --json and --quiet; cache commands print no colour
  bool verbose = false;  // -v or KDET_CACHE_VERBOSE: the status line (quiet on success otherwise)
  std::string deps_hash; // launcher mode: headers and other files read
  std::vector<std::string> deps;
};

// KDET_CACHE_VERBOSE set to anything but "" or "0".
bool verbose_from_env() {
  const char* v = std::getenv("KDET_CACHE_VERBOSE");
  return v && *v && std::string(v) != "0";
}

void add_dir_option(CLI::App* cmd, CacheOptions& o) {
  cmd->add_option(
      "--dir", o.dir,
      "Cache folder (default: $KDET_CACHE_DIR, else $XDG_CACHE_HOME/kdet, else ~/.cache/kdet)");
}

void add_serving_options(CLI::App* cmd, CacheOptions& o) {
  add_dir_option(cmd, o);
  cmd->add_option("--verify-rate", o.verify_rate,
                  "Fraction of hits recompiled and compared (default 1/32; 1 = always, 0 = never)");
  cmd->add_option(
      "--on-variants", o.on_variants,
      "When a key holds more than one variant: serve-first (warn, default) or fail (exit 1)");
  cmd->add_option("--key-env", o.key_env,
                  "An environment variable whose value decides the output; its value enters the "
                  "key (repeatable)");
  add_json_option(cmd, o.output, "what happened", "kdet.cache.compile/1");
  add_quiet_option(cmd, o.output, "No status line (the default; warnings still go to stderr)");
  cmd->add_flag("-v,--verbose", o.verbose,
                "Print a status line (hit/miss, key, variant) on success too; also "
                "KDET_CACHE_VERBOSE=1");
}

// Counts the outcome in the cache's counters (`kdet cache stats`).
void count_outcome(const cache::Store& store, const cache::CompileOutcome& o) {
  if (o.result == "hit" || o.result == "verified" || o.result == "mismatch") store.count('h');
  if (o.result == "verified") store.count('v');
  if (o.result == "mismatch") store.count('x');
  if (o.result == "miss") store.count('m');
  if (o.result == "failed") store.count('f');
  if (o.result == "refused") store.count('r');
}

void write_artifact(const cache::CompileOutcome& o, const std::string& out) {
  if (out.empty() || o.artifacts.empty()) return;
  if (o.artifacts.size() > 1)
    fmt::print(stderr, "kdet: warning: the compile gave {} artifacts; {} gets the first ({})\n",
               o.artifacts.size(), out, o.artifacts[0].name);
  write_output(out, o.artifacts[0].data, "--out");
}

int finish(const cache::CompileOutcome& o, const CacheOptions& opt, const std::string& out) {
  for (const auto& w : o.warnings)
    fmt::print(stderr, "kdet: warning: {}\n", w);
  if (o.exit_code == 0) write_artifact(o, out);
  // Quiet on success, as ccache (unless -v); a failed compile stores nothing: no variant to name.
  if (!opt.output.quiet && o.variant.empty())
    fmt::print(stderr, "kdet cache: {} {} (nothing stored, {})\n", o.result, o.key,
               human_seconds(o.seconds));
  else if ((opt.verbose || verbose_from_env()) && !opt.output.quiet)
    fmt::print(stderr, "kdet cache: {} {} (variant {}, {} under the key, {})\n", o.result, o.key,
               o.variant.substr(0, 12), plural(o.variants, "variant"), human_seconds(o.seconds));
  if (!opt.output.json_path.empty()) {
    nlohmann::json j = {{"schema", "kdet.cache.compile/1"},
                        {"result", o.result},
                        {"key", o.key},
                        {"variant", o.variant},
                        {"variants", o.variants},
                        {"seconds", o.seconds},
                        {"warnings", o.warnings},
                        {"exit_code", o.exit_code}};
    if (!o.error.empty()) j["error"] = o.error;
    Output(opt.output).write_json(j);
  }
  if (o.exit_code == 1) print_error(o.error);
  if (o.exit_code == 3) print_error("the compiler failed: " + o.error);
  return o.exit_code;
}

cache::CompileJob make_job(const CacheOptions& opt, const engine::RunPlan& plan) {
  cache::CompileJob job;
  job.backend = plan.backend;
  job.input_path = plan.input_path;
  job.options = plan.options;
  job.timeout = plan.timeout;
  job.max_output = plan.max_output;
  job.key_env = opt.key_env;
  job.verify_rate = cache::parse_verify_rate(opt.verify_rate, opt.verify_rate_from);
  job.policy = cache::parse_policy(opt.on_variants, opt.on_variants_from);
  job.command_line = invocation();
  job.deps_hash = opt.deps_hash;
  job.deps = opt.deps;
  return job;
}

struct CompileCmd {
  CompileArgs compile;
  CacheOptions cache;
  std::string out;
};

// A warning for each served artifact of a bundle's kind that is not an output the
// pipeline got: the cache holds (or just made) another output of the captured compile.
void check_captured(const capture::ReplayPlan& replay, cache::CompileOutcome& o) {
  for (const auto& art : o.artifacts) {
    std::string hash = art.hash.empty() ? artifact_hash(backend::artifact_form(art.name),
                                                        backend::artifact_bytes(art))
                                        : art.hash;
    bool known = false, kind = false;
    for (const auto& [name, h] : replay.expected)
      if (name == art.name) {
        kind = true;
        known = known || h == hash;
      }
    if (kind && !known)
      o.warnings.push_back(fmt::format("bundle {}: the {} served ({}) is not an output the "
                                       "pipeline got from this compile (docs/CAPTURE.md)",
                                       replay.id, art.name, hash));
  }
}

int do_compile(CompileCmd& a) {
  // A bundle folder of kdet capture brings its input, library and options, as for run.
  std::optional<capture::ReplayPlan> replay = capture::bundle_replay_plan(a.compile.input);
  if (replay) capture::require_single_input(*replay, "kdet cache compile");
  if (replay)
    capture::apply_replay(*replay, a.compile.input, a.compile.backend, a.compile.lib,
                          a.compile.options, a.compile.command, &a.compile.py, &a.compile.python);
  // A file inside a packed bundle (DIR/bundles/ID/inputs/FILE): a copy made from the pack.
  else
    a.compile.input = capture::resolve_bundle_path(a.compile.input);
  engine::RunPlan plan;
  resolve_compile_args(a.compile, plan);
  if (plan.backend.kind == backend::Kind::python)
    throw Error("kdet cache compile does not take a Python stage (--py): its output is not "
                "cached; use kdet run --py");
  cache::Store store(cache::resolve_cache_dir(a.cache.dir));
  engine::install_interrupt_handler();
  cache::CompileOutcome o = cache::cached_compile(store, make_job(a.cache, plan));
  count_outcome(store, o);
  if (replay && o.exit_code == 0) check_captured(*replay, o);
  return finish(o, a.cache, a.out);
}

// do_cc's answer in launcher mode when the compiler failed.
constexpr int k_rerun_uncached = -1;

struct CcCmd {
  std::string input;
  std::string out;
  std::vector<std::string> command;
  std::string output_ext;
  double timeout_seconds = 300;
  CacheOptions cache;
  bool launcher = false; // `kdet cc COMPILER ARGS...`
};

// Whether template word `word` names the file `path` (as written, or the same absolute path).
bool names_file(const std::string& word, const std::string& path) {
  return !path.empty() && !word.empty() &&
         (word == path || absolute_path(word) == absolute_path(path));
}

// `kdet cc k.ptx -o k.cubin -- ptxas k.ptx -o k.cubin` is a build's own command line: the
// compiler writes k.cubin itself. Left as it is, kdet would find nothing in {output} or on
// stdout. So, where the template has no {output} ({input}), the words that name the -o file
// (the input) become the placeholder: "-o k.cubin", "-ok.cubin", "--output=k.cubin", "k.cubin".
void adopt_output_convention(CcCmd& a) {
  auto words_name = [&](const char* name) { return backend::template_names(a.command, name); };
  auto rewrite = [&](const std::string& path, const std::string& placeholder) {
    bool done = false;
    for (auto& w : a.command) {
      if (names_file(w, path)) {
        w = placeholder, done = true;
        continue;
      }
      for (const char* prefix : {"-o", "--output=", "-output=", "--out=", "-Fo"}) {
        std::string p = prefix;
        if (w.size() > p.size() && w.starts_with(p) && names_file(w.substr(p.size()), path)) {
          w = p + placeholder, done = true;
          break;
        }
      }
    }
    return done;
  };
  if (!words_name("output") && a.out != "-" && rewrite(a.out, "{output}")) {
    if (a.output_ext.empty()) {
      // The -o file's own extension, when it is a plain one; else {output} has none.
      try {
        a.output_ext = backend::check_output_ext(file_extension(a.out), "-o");
      } catch (const Error&) {
      }
    }
    if (!a.launcher && (a.cache.verbose || verbose_from_env()))
      fmt::print(
          stderr,
          "kdet cc: the command writes {} itself; kdet gives it {{output}} there and copies the "
          "result to {}\n",
          a.out, a.out);
  }
  if (!words_name("input")) {
    // The program word stays: only arguments can name the input.
    std::string program = a.command[0];
    if (rewrite(a.input, "{input}")) a.command[0] = program;
  }
}

// KDET_CACHE_VERIFY_RATE and KDET_CACHE_ON_VARIANTS where no option gave the setting; a bad
// value is exit 2 naming the variable.
void settings_from_env(CacheOptions& o, bool rate_given, bool policy_given) {
  const char* rate = std::getenv("KDET_CACHE_VERIFY_RATE");
  const char* policy = std::getenv("KDET_CACHE_ON_VARIANTS");
  if (!rate_given && rate && *rate) {
    o.verify_rate = rate;
    o.verify_rate_from = "KDET_CACHE_VERIFY_RATE";
    cache::parse_verify_rate(o.verify_rate, o.verify_rate_from);
  }
  if (!policy_given && policy && *policy) {
    o.on_variants = policy;
    o.on_variants_from = "KDET_CACHE_ON_VARIANTS";
    cache::parse_policy(o.on_variants, o.on_variants_from);
  }
}

int do_cc(CcCmd& a) {
  if (a.command.empty())
    throw Error("kdet cc needs a command template after --, e.g. kdet cc k.ptx -o k.cubin -- ptxas "
                "-arch=sm_90a "
                "{input} -o {output}");
  adopt_output_convention(a);
  CompileArgs c;
  c.input = a.input;
  c.backend = backend::to_string(backend::Kind::exec);
  c.command = shell_join(a.command);
  c.output_ext = backend::check_output_ext(a.output_ext, "--output-ext");
  c.timeout_seconds = a.timeout_seconds;
  engine::RunPlan plan;
  resolve_compile_args(c, plan);
  cache::Store store(cache::resolve_cache_dir(a.cache.dir));
  engine::install_interrupt_handler();
  auto o = cache::cached_compile(store, make_job(a.cache, plan));
  count_outcome(store, o);
  // Launcher mode: the compiler's own messages (warnings) reach the build, on a hit as on the
  // miss that stored them.
  if (a.launcher && o.exit_code == 0 && !o.log.empty()) fmt::print(stderr, "{}", o.log);
  // A failed compile is rerun uncached by the launcher, so the build sees the compiler's own
  // messages and exit status.
  if (a.launcher && o.exit_code == 3) return k_rerun_uncached;
  return finish(o, a.cache, a.out);
}

int do_report(const CacheOptions& o, const std::string& junit) {
  check_output_path(junit, "--junit");
  const bool junit_to_stdout = !junit.empty() && names_stdout(junit);
  if (junit_to_stdout && !o.output.json_path.empty() && names_stdout(o.output.json_path))
    throw Error("--json and --junit cannot both go to stdout");
  cache::Store store(cache::resolve_cache_dir(o.dir));
  auto keys = cache::multi_variant_keys(store);
  Output output(o.output);
  if (!o.output.json_path.empty()) output.write_json(cache::report_to_json(store, keys));
  if (!junit.empty())
    write_output(junit, report::cache_report_to_junit(keys, store.keys().size()), "--junit");
  // With the JSON or the JUnit on stdout, the text goes to stderr.
  fmt::print(output.json_to_stdout() || junit_to_stdout ? stderr : stdout, "{}",
             cache::report_to_text(keys));
  return keys.empty() ? k_exit_deterministic : k_exit_nondeterministic;
}

} // namespace

void add_cache(CLI::App& root, Action& action) {
  auto* cache = root.add_subcommand(
      "cache", "A compiled-kernel cache that checks itself: keeps every variant, "
               "recompiles a sample of hits, reports nondeterminism");
  cache->require_subcommand(1);
  cache->footer(
      "Keys and layout: docs/CACHE.md. Exit codes: report exits 1 when a key holds more than one "
      "variant; compile exits 1 when --on-variants fail refuses, 3 when the compiler failed.\n"
      "As a compiler launcher: kdet cc nvcc -c k.cu -o k.o "
      "(CMAKE_CUDA_COMPILER_LAUNCHER=\"kdet;cc\"); "
      "kdet cache stats shows hits, misses and the hit rate, -z zeroes them.");

  auto c = std::make_shared<CompileCmd>();
  auto* compile = cache->add_subcommand(
      "compile", "Compile through the cache: a hit is served, a miss compiled "
                 "and stored, a sample of hits recompiled and compared");
  add_compile_options(compile, c->compile);
  add_serving_options(compile, c->cache);
  compile->add_option("--out,-o", c->out, "Write the (first) artifact to FILE, or - for stdout");
  compile->footer("Examples:\n"
                  "  kdet cache compile saxpy.ll --out saxpy.ptx -- -arch=compute_90a -opt=3\n"
                  "  kdet cache compile k.ptx --backend exec --cmd 'ptxas -arch=sm_90a {input} -o "
                  "{output}' -o k.cubin\n"
                  "  kdet cache compile cap/bundles/ID -o k.ptx   (a kdet capture bundle: its "
                  "library,\n"
                  "      input and options; warns when the output served is not the captured "
                  "one)");
  compile->callback([c, &action] { action = [c] { return do_compile(*c); }; });

  struct ReportArgs {
    CacheOptions o;
    std::string junit;
  };
  auto r = std::make_shared<ReportArgs>();
  auto* report =
      cache->add_subcommand("report", "List keys with more than one variant (exit 1 if any)");
  add_dir_option(report, r->o);
  add_json_option(report, r->o.output, "the report", "kdet.cache.report/1");
  report->add_option("--junit", r->junit,
                     "JUnit XML to FILE, or - for stdout: a failing test case per key with more "
                     "than one variant, one passing case for the other keys");
  report->callback([r, &action] { action = [r] { return do_report(r->o, r->junit); }; });

  struct StatsArgs {
    CacheOptions o;
    bool zero = false;
  };
  auto s = std::make_shared<StatsArgs>();
  auto* stats = cache->add_subcommand(
      "stats", "Hits, misses, hit rate, size against the gc limit, verification results, "
               "keys, variants, damaged entries");
  add_dir_option(stats, s->o);
  add_json_option(stats, s->o.output, "the stats", "kdet.cache.stats/1");
  stats->add_flag("-z,--zero", s->zero, "Zero the hit/miss/verification counters (as ccache -z)");
  stats->callback([s, &action] {
    action = [s] { return cache_stats_command(s->o.dir, s->o.output, s->zero); };
  });

  struct GcArgs {
    CacheOptions o;
    std::string max_size;
    double staging_age = 3600;
  };
  auto g = std::make_shared<GcArgs>();
  auto* gc = cache->add_subcommand(
      "gc", "Shrink the cache below --max-size: stale staging, damaged evidence, then "
            "least recently used keys (multi-variant keys last)");
  add_dir_option(gc, g->o);
  gc->add_option("--max-size", g->max_size,
                 "Size limit, e.g. 500M, 2G (K/M/G/T are powers of 1024)")
      ->required();
  gc->add_option(
        "--staging-age", g->staging_age,
        "Remove abandoned staging folders older than this many seconds (default 3600; a write in "
        "progress is never removed, whatever the age)")
      ->check(real_option({0, 1e9}));
  gc->callback([g, &action] {
    action = [g] {
      uint64_t max = cache::parse_size(g->max_size, "--max-size");
      double age = cache::check_staging_age(g->staging_age, "--staging-age");
      cache::Store store(cache::resolve_cache_dir(g->o.dir));
      auto res = cache::gc(store, max, age);
      for (const auto& w : res.warnings)
        fmt::print(stderr, "kdet: warning: {}\n", w);
      fmt::print(
          "gc: {} -> {} (limit {}); removed {} key{}, {} damaged, {} staging{}\n",
          human_bytes(res.bytes_before), human_bytes(res.bytes_after), human_bytes(max),
          res.keys_removed, res.keys_removed == 1 ? "" : "s", res.damaged_removed,
          res.staging_removed,
          (res.not_removed == 0 ? "" : fmt::format("; {} could not be removed", res.not_removed)) +
              (res.bytes_after > max ? ", the cache stays over its limit" : ""));
      // Exit 1: gc chose something it could not remove (docs/CACHE.md).
      return res.not_removed > 0 ? 1 : 0;
    };
  });

  struct VerifyArgs {
    CacheOptions o;
    std::string sample = "1";
  };
  auto v = std::make_shared<VerifyArgs>();
  auto* verify = cache->add_subcommand(
      "verify", "Recompile every key (or --sample F of them) and compare with the "
                "served variant; exit 1 on a mismatch");
  add_dir_option(verify, v->o);
  verify->add_option("--sample", v->sample,
                     "Fraction of keys to recompile (default 1 = all; e.g. 1/10)");
  add_quiet_option(verify, v->o.output, "Only the summary line");
  verify->callback([v, &action] {
    action = [v] {
      double f = cache::parse_verify_rate(v->sample, "--sample");
      cache::Store store(cache::resolve_cache_dir(v->o.dir));
      engine::install_interrupt_handler();
      auto res = cache::verify_all(store, f, invocation());
      if (!v->o.output.quiet)
        for (const auto& l : res.lines)
          fmt::print("{}\n", l);
      fmt::print("verify: {} recompiled, {} match, {} mismatch, {} failed, {} skipped\n",
                 res.checked, res.matched, res.mismatched, res.failed, res.skipped);
      return res.mismatched > 0 ? k_exit_nondeterministic : k_exit_deterministic;
    };
  });
}

void add_cc(CLI::App& root, Action& action) {
  auto a = std::make_shared<CcCmd>();
  auto* cmd = root.add_subcommand(
      "cc", "Wrap a command compiler with kdet's verifying cache (kdet cc nvcc ARGS: a launcher)");
  cmd->add_option("input", a->input, "The input file ({input} in the template)")->required();
  cmd->add_option("command", a->command,
                  "After --: the command template with {input} and {output} (words naming "
                  "INPUT or the -o file become them)");
  cmd->add_option("--out,-o", a->out,
                  "Where the artifact goes (the file the command would have written), or -")
      ->required();
  cmd->add_option("--output-ext", a->output_ext, "Extension given to {output} (e.g. cubin)");
  cmd->add_option("--timeout", a->timeout_seconds,
                  "Seconds before a compile counts as hung (default 300; 0 = never)")
      ->check(real_option(k_timeout_range));
  add_serving_options(cmd, a->cache);
  cmd->footer(
      "Launcher mode (no --; the arguments are the compiler's own, as CMake passes them):\n"
      "  kdet cc nvcc -arch=sm_90a -c k.cu -o k.o\n"
      "  kdet cc ptxas -arch=sm_90a k.ptx -o k.cubin\n"
      "  cmake -DCMAKE_CUDA_COMPILER_LAUNCHER=\"kdet;cc\" ...\n"
      "  The output is -o/--output-file (or nvcc's and ptxas's default name); nvcc's headers "
      "enter the key through one nvcc -M run, which also writes the build's -MF depfile. "
      "Silent on success; what kdet cannot cache, or a failing compile, runs as it is. "
      "Settings: KDET_CACHE_DIR, KDET_CACHE_VERIFY_RATE, KDET_CACHE_ON_VARIANTS, "
      "KDET_CACHE_KEY_ENV=A,B, KDET_CACHE_VERBOSE=1. docs/CACHE.md.\n"
      "Template mode (KDET_CACHE_DIR, KDET_CACHE_VERIFY_RATE, KDET_CACHE_ON_VARIANTS and "
      "KDET_CACHE_VERBOSE apply too; an option given wins):\n  kdet cc k.ptx -o k.cubin -- "
      "ptxas -arch=sm_90a {input} -o {output}\n"
      "  kdet cc k.ptx -o k.cubin -- ptxas -arch=sm_90a k.ptx -o k.cubin    (the same)\n"
      "A template without {output} makes stdout the artifact; a compile that leaves no "
      "output (or an empty "
      "one) fails with exit 3 and nothing is cached.");
  cmd->callback([a, cmd, &action] {
    bool rate = cmd->count("--verify-rate") > 0, policy = cmd->count("--on-variants") > 0;
    action = [a, rate, policy] {
      // Template mode takes the launcher's settings too (docs/CACHE.md); an option given wins.
      settings_from_env(a->cache, rate, policy);
      return do_cc(*a);
    };
  });
}

namespace {

std::string env_or(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}

} // namespace

int cc_launcher_main(int argc, char** argv) {
  std::vector<std::string> words(argv + 2, argv + argc);
  bool verbose = verbose_from_env();
  // SIGINT/SIGTERM end the compiler's dependency or compile run and kdet with 130, leaving no
  // process behind (the uncached path execs the compiler, which takes the signals itself).
  engine::install_interrupt_handler();
  bool settings_read = false;
  try {
    // A bad setting names the variable that holds it (exit 2), not an option never given.
    std::string rate = env_or("KDET_CACHE_VERIFY_RATE", "1/32");
    std::string policy = env_or("KDET_CACHE_ON_VARIANTS", "serve-first");
    cache::parse_verify_rate(rate, "KDET_CACHE_VERIFY_RATE");
    cache::parse_policy(policy, "KDET_CACHE_ON_VARIANTS");
    settings_read = true;
    cache::LaunchPlan p = cache::plan_launch(words);
    cache::Store store(cache::resolve_cache_dir(""));
    auto uncached = [&](const std::string& why) {
      if (verbose) fmt::print(stderr, "kdet cc: not cached: {}\n", why);
      store.count('u');
      return run_uncached(words);
    };
    if (!p.cacheable) return uncached(p.why);
    CcCmd a;
    a.launcher = true;
    a.input = p.input;
    a.out = p.output;
    a.command = p.command;
    a.cache.verbose = verbose;
    a.cache.verify_rate = rate;
    a.cache.on_variants = policy;
    a.cache.verify_rate_from = "KDET_CACHE_VERIFY_RATE";
    a.cache.on_variants_from = "KDET_CACHE_ON_VARIANTS";
    a.cache.key_env = p.key_env;
    for (const auto& name : split(env_or("KDET_CACHE_KEY_ENV", ""), ','))
      if (!trim(name).empty()) a.cache.key_env.push_back(trim(name));
    std::vector<std::string> deps;
    if (!p.deps_command.empty()) {
      // The compiler's own dependency list (nvcc -M): every header the compile reads.
      SpawnOptions so;
      so.argv = p.deps_command;
      CapturedRun r =
          run_captured(so, std::chrono::milliseconds(300000), 16 << 20, engine::interrupt_fd());
      if (engine::interrupted()) throw Interrupted();
      if (!r.status.ok()) return uncached("the dependency run (-M) " + r.status.describe());
      deps = cache::make_rule_files(r.out);
      if (!p.depfile.empty()) write_output(p.depfile, r.out, "-MF");
    }
    deps.insert(deps.end(), p.extra_inputs.begin(), p.extra_inputs.end());
    if (!deps.empty()) {
      a.cache.deps = deps;
      a.cache.deps_hash = cache::files_hash(deps);
    }
    int rc = do_cc(a);
    if (rc == k_rerun_uncached) return run_uncached(words);
    return rc;
  } catch (const Interrupted&) {
    fmt::print(stderr, "kdet: interrupted\n");
    return k_exit_interrupted;
  } catch (const std::exception& e) {
    const auto* bad_setting = settings_read ? nullptr : dynamic_cast<const Error*>(&e);
    if (bad_setting) {
      fmt::print(stderr, "kdet cc: error: {}\n", e.what());
      return bad_setting->exit_code();
    }
    if (engine::interrupted()) {
      fmt::print(stderr, "kdet: interrupted\n");
      return k_exit_interrupted;
    }
    // kdet's own trouble (no temporary or cache folder, an output it cannot place) never fails
    // the build's compile step: the compiler runs as it would without kdet, after a warning.
    return run_uncached(words, e.what());
  }
}

} // namespace kdet::cli
