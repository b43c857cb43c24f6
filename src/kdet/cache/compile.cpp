//===- cache/compile.cpp - get-or-compile with sampled verification -------------===//
#include "kdet/cache/compile.hpp"

#include "kdet/cache/identity.hpp"
#include "kdet/engine/differences.hpp"
#include "kdet/engine/runner.hpp"
#include "kdet/engine/variants.hpp"
#include "kdet/util/error.hpp"
#include "kdet/util/fs.hpp"
#include "kdet/util/hash.hpp"
#include "kdet/util/strings.hpp"

#include <fmt/format.h>
#include <random>

namespace kdet::cache {

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

nlohmann::json identity_json(const backend::Identity& id) {
  return {{"backend", id.backend},
          {"path", id.path},
          {"content_hash", id.content_hash},
          {"version", id.version}};
}

} // namespace

Policy parse_policy(const std::string& text, const std::string& option) {
  if (text == "serve-first") return Policy::serve_first;
  if (text == "fail") return Policy::fail;
  throw Error::format("{} {}: expected serve-first or fail", option, text);
}

Recompiled compile_once(const backend::BackendConfig& config, const std::string& input_path,
                        const std::vector<std::string>& options, std::chrono::milliseconds timeout,
                        const std::vector<std::string>& env, uint64_t max_output,
                        const std::optional<backend::Identity>& known) {
  engine::RunPlan plan;
  plan.known.identity = known;
  plan.max_output = max_output;
  plan.backend = config;
  plan.input_path = input_path;
  plan.options = options;
  plan.timeout = timeout;
  plan.runs = 1;
  plan.jobs = 1;
  plan.setting.process = perturb::ProcessMode::fresh;
  plan.setting.heap = perturb::HeapMode::none;
  plan.setting.env = env;
  plan.setting.seed = std::random_device{}();
  engine::RunOutput out = engine::execute(plan);
  // SIGINT/SIGTERM is the user's, not the compiler's failure: exit 130, nothing stored.
  if (out.interrupted) throw Interrupted();
  Recompiled r;
  r.identity = out.identity;
  if (out.records.empty() || !out.records[0].done) {
    r.detail = out.interrupted ? "interrupted" : "the compile did not run";
    return r;
  }
  const auto& rec = out.records[0];
  r.log = rec.log;
  if (rec.status != backend::Status::ok) {
    r.detail = rec.detail.empty() ? backend::to_string(rec.status) : rec.detail;
    return r;
  }
  if (const engine::Variant* v = engine::find_variant(out.variants, rec.variant))
    r.artifacts = v->artifacts;
  for (auto& a : r.artifacts) // the cache stores bytes; --max-output bounds them
    if (a.file) a.data = backend::artifact_bytes(a), a.file.reset();
  bool any_bytes = false;
  for (const auto& a : r.artifacts)
    any_bytes = any_bytes || !a.data.empty();
  if (!any_bytes) {
    r.detail = "the compiler succeeded but produced no output (no artifact, or only empty ones); "
               "nothing is cached";
    return r;
  }
  r.ok = true;
  return r;
}

KeyMaterial job_key_material(const Store& store, const CompileJob& job, std::string& input) {
  input = read_file(job.input_path);
  KeyMaterial m;
  m.backend = backend::to_string(job.backend.kind);
  m.compiler = compiler_identity(store, job.backend);
  if (job.backend.kind == backend::Kind::exec) {
    auto argv = split_command(job.backend.command);
    m.command.assign(argv.begin() + 1, argv.end());
    m.output_ext = job.backend.output_ext;
  }
  m.options = job.options;
  m.env = read_env(job.key_env, "--key-env");
  m.input_hash = hash_bytes(input);
  m.input_size = input.size();
  auto slash = job.input_path.find_last_of('/');
  m.input_name = slash == std::string::npos ? job.input_path : job.input_path.substr(slash + 1);
  m.deps_hash = job.deps_hash;
  m.deps = job.deps;
  return m;
}

CompileOutcome cached_compile(Store& store, const CompileJob& job) {
  auto t0 = std::chrono::steady_clock::now();
  CompileOutcome o;
  std::string input;
  KeyMaterial km = job_key_material(store, job, input);
  o.key = compute_key(km);
  std::vector<std::string> env;
  for (const auto& [k, v] : km.env)
    if (v) env.push_back(k + "=" + *v);

  auto refuse_if_variants = [&](const std::vector<std::string>& ids) {
    o.variants = ids.size();
    if (ids.size() <= 1) return false;
    std::string msg = fmt::format(
        "cache key {} holds {} variants: the compiler is nondeterministic for this input "
        "(see `kdet cache report`)",
        o.key, ids.size());
    if (job.policy == Policy::fail) {
      o.result = "refused";
      o.error = msg + "; --on-variants fail";
      o.artifacts.clear();
      o.exit_code = 1;
      return true;
    }
    o.warnings.push_back(msg + "; serving the first stored");
    return false;
  };

  Lookup l = store.lookup(o.key);
  o.warnings = l.warnings;
  if (!l.untrusted.empty())
    o.warnings.push_back(fmt::format(
        "cache key {}: {} stored by a user this one does not trust (not this user, root or the "
        "cache folder's owner) and never given by this user's compile: passed over, not "
        "served; {}",
        o.key,
        l.untrusted.size() == 1 ? "variant " + l.untrusted[0].substr(0, 12)
                                : fmt::format("{} variants", l.untrusted.size()),
        // On a hit nothing is compiled: a variant this user trusts is served instead.
        l.hit ? "a variant this user trusts is served" : "the input is compiled instead"));
  Origin origin;
  origin.command = job.command_line;
  if (l.hit) {
    o.result = "hit";
    o.variant = l.first.meta.id;
    // What the compiler printed when it made this variant (its warnings), for a launcher to replay.
    if (l.first.meta.extra.is_object() && l.first.meta.extra.contains("log") &&
        l.first.meta.extra["log"].is_string())
      o.log = l.first.meta.extra["log"].get<std::string>();
    o.artifacts = l.first.artifacts;
    if (refuse_if_variants(l.trusted_variants())) {
      o.seconds = seconds_since(t0);
      return o;
    }
    if (sample(job.verify_rate)) {
      Recompiled r = compile_once(job.backend, job.input_path, job.options, job.timeout, env,
                                  job.max_output, km.compiler);
      if (!r.ok) {
        o.warnings.push_back(fmt::format(
            "verification compile of {} failed ({}); serving the cached variant", o.key, r.detail));
      } else {
        std::string vid = variant_id(r.artifacts);
        if (vid == o.variant) {
          o.result = "verified";
          store.log_event(o.key, {{"event", "verify"}, {"result", "match"}, {"variant", vid}});
        } else {
          o.result = "mismatch";
          origin.how = "verify";
          origin.extra = {{"compiler", identity_json(r.identity)}, {"verified_against", o.variant}};
          PutResult p = store.put(o.key, to_json(km), input, r.artifacts, origin);
          store.log_event(o.key, {{"event", "verify"},
                                  {"result", "mismatch"},
                                  {"served", o.variant},
                                  {"recompiled", vid}});
          o.warnings.push_back(fmt::format(
              "verification MISMATCH for cache key {}: the recompile gave variant {} ({}), the "
              "cache holds {}; "
              "both are kept ({} variants), this compile's output is served; difference: {}",
              o.key, vid.substr(0, 12), p.added ? "new" : "already known", o.variant.substr(0, 12),
              p.variants, engine::describe(o.artifacts, r.artifacts)));
          o.variants = p.variants;
          // Never the stored bytes: the compile just made is the one output known to be this
          // compiler's answer now (the stored one may be another run's, or not a compile's).
          o.variant = vid;
          o.artifacts = r.artifacts;
          o.log = r.log;
          if (job.policy == Policy::fail) {
            o.result = "refused";
            o.error = fmt::format(
                "cache key {}: verification found a second variant; --on-variants fail", o.key);
            o.artifacts.clear();
            o.exit_code = 1;
          }
        }
      }
    }
    o.seconds = seconds_since(t0);
    return o;
  }

  // Miss: compile, store, serve.
  Recompiled r = compile_once(job.backend, job.input_path, job.options, job.timeout, env,
                              job.max_output, km.compiler);
  if (!r.ok) {
    o.result = "failed";
    o.error = r.detail;
    if (!r.log.empty()) o.error += "\n" + r.log;
    o.exit_code = 3;
    o.seconds = seconds_since(t0);
    return o;
  }
  // The identity came from the memo before the compile; a compiler replaced in
  // between has another stat signature, so this asks again only then.
  o.log = r.log;
  r.identity = compiler_identity(store, job.backend);
  if (r.identity.content_hash != km.compiler.content_hash) {
    o.warnings.push_back(fmt::format(
        "the compiler {} changed while kdet was using it; stored under its new identity",
        r.identity.path));
    km.compiler.content_hash = r.identity.content_hash;
    km.compiler.version = r.identity.version;
    o.key = compute_key(km);
  }
  origin.how = "fill";
  origin.extra = {{"compiler", identity_json(r.identity)}};
  if (!r.log.empty()) origin.extra["log"] = r.log;
  PutResult p;
  try {
    p = store.put(o.key, to_json(km), input, r.artifacts, origin);
  } catch (const Error& e) {
    // A cache that cannot store (full, read-only, a link in the way) still serves the compile.
    o.warnings.push_back(fmt::format("{}; the compile is served but not stored", e.what()));
    p.variant = variant_id(r.artifacts);
  }
  for (auto& w : store.take_warnings())
    o.warnings.push_back(std::move(w));
  o.result = "miss";
  o.variant = p.variant;
  o.artifacts = r.artifacts;
  o.variants = p.variants;
  if (p.variants > 1) {
    // Another process stored a different variant first (or a damaged one was set aside).
    Lookup again = store.lookup(o.key);
    if (again.hit && again.first.meta.id != p.variant) {
      o.warnings.push_back(
          fmt::format("cache key {}: this compile gave variant {}, another process stored {} first",
                      o.key, p.variant.substr(0, 12), again.first.meta.id.substr(0, 12)));
      if (!refuse_if_variants(again.trusted_variants())) {
        o.variant = again.first.meta.id;
        o.artifacts = again.first.artifacts;
      }
    } else {
      refuse_if_variants(again.trusted_variants());
    }
  }
  o.seconds = seconds_since(t0);
  return o;
}

} // namespace kdet::cache
