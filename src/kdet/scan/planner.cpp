//===- scan/planner.cpp - jobs, ids and shards ------------------------------===//
#include "kdet/scan/planner.hpp"

#include "kdet/backend/exec_template.hpp"
#include "kdet/util/error.hpp"
#include "kdet/util/exec.hpp"
#include "kdet/util/fs.hpp"
#include "kdet/util/hash.hpp"
#include "kdet/util/strings.hpp"

#include <chrono>
#include <fmt/format.h>
#include <map>

namespace kdet::scan {

Shard parse_shard(const std::string& text) {
  auto parts = split(text, '/');
  std::optional<uint64_t> i, n;
  if (parts.size() == 2) {
    i = parse_u64(parts[0]);
    n = parse_u64(parts[1]);
  }
  if (!i || !n || *n == 0 || *i == 0 || *i > *n)
    throw Error::format("--shard {}: expected I/N with 1 <= I <= N, e.g. --shard 2/8", text);
  return {*i, *n};
}

std::vector<ResolvedCompiler> resolve_compilers(const Manifest& m) {
  std::vector<ResolvedCompiler> out;
  std::map<std::string, std::string> hashes;
  for (const auto& c : m.compilers) {
    ResolvedCompiler r;
    r.name = c.name;
    r.config = c.config;
    if (c.config.kind == backend::Kind::exec) {
      r.path = find_program(split_command(c.config.command).at(0));
    } else {
      r.path = c.config.lib.empty() ? backend::default_library_path(c.config.kind) : c.config.lib;
      if (r.path.empty() || ::access(r.path.c_str(), R_OK) != 0)
        throw Error::format(
            "{}:{}: compiler '{}': no {} library found (set lib = \"/path/to/lib...so\")", m.path,
            c.line, c.name, backend::to_string(c.config.kind));
    }
    r.stamp = file_stamp(r.path);
    r.content_hash = backend::cached_file_hash(r.path);
    out.push_back(std::move(r));
  }
  return out;
}

const std::string& option_set_name(const Manifest& m, const Job& j) {
  static const std::string captured = k_captured_option_set;
  return j.bundle ? captured : m.option_sets[j.option_set].name;
}

namespace {

// Sets the job's id, seed and expectation from every field that defines it.
void finish_job(const Manifest& m, const std::vector<ResolvedCompiler>& compilers,
                const std::string& setting_text, const std::string& command, Job& j) {
  const auto& spec = m.compilers[j.compiler];
  if (const auto& c = compilers[j.compiler]; c.stamp)
    j.compiler_file = engine::CompilerFile{*c.stamp, c.content_hash};
  Hasher h;
  h.add("kdet.scan.job/1")
      .add(j.input->name)
      .add(j.input_hash)
      .add(spec.name)
      .add(backend::to_string(spec.config.kind));
  h.add(compilers[j.compiler].content_hash)
      .add(command) // as before word-wise expansion
      .add(j.backend.output_ext)
      .add(j.target);
  // A Python stage's function and interpreter (none for other backends: their ids stay).
  if (spec.config.kind == backend::Kind::python)
    h.add(spec.config.function).add(spec.config.python);
  h.add(option_set_name(m, j));
  for (const auto& o : j.options)
    h.add(o);
  // A bundle's further inputs are part of what is compiled (none: the id stays as it was).
  if (j.bundle)
    for (const auto& part : j.bundle->parts)
      h.add_u64(static_cast<uint64_t>(part.role))
          .add_u64(part.name ? 1 : 0)
          .add(part.name.value_or(""))
          .add(hash_bytes(part.bytes))
          .add_u64(static_cast<uint64_t>(part.jit_type));
  h.add(setting_text).add_u64(m.setting.seed);
  j.id = h.hex();
  j.seed = mix_seed(m.setting.seed, std::stoull(j.id.substr(0, 16), nullptr, 16));
  j.expect = find_expectation(m, j.input->name, spec.name, j.target, option_set_name(m, j));
}

} // namespace

std::vector<Job> plan_jobs(const Manifest& m, const std::vector<ResolvedCompiler>& compilers) {
  std::vector<Job> jobs;
  std::string setting_text = perturb::describe([&] {
    perturb::Setting s = m.setting;
    s.seed = 0; // the master seed is hashed separately below
    return s;
  }());
  // Varying the unnamed factors is part of the setting (manifests that say unnamed = "natural"
  // keep the ids they had before kdet varied them).
  if (m.unnamed_vary) setting_text += " unnamed=vary";
  for (const auto& in : m.inputs) {
    std::string input_hash = backend::cached_file_hash(in.path);
    for (size_t ci = 0; ci < m.compilers.size(); ++ci) {
      const auto& spec = m.compilers[ci];
      if (spec.captured) continue; // compiles bundles only
      std::vector<std::string> targets = spec.targets.empty() ? m.targets : spec.targets;
      if (targets.empty()) targets.push_back("");
      for (const auto& target : targets) {
        for (size_t oi = 0; oi < m.option_sets.size(); ++oi) {
          Job j;
          j.input = &in;
          j.input_hash = input_hash;
          j.compiler = ci;
          j.target = target;
          j.option_set = oi;
          j.backend = spec.config;
          std::map<std::string, std::string> vars{{"target", target}};
          // {target} is replaced inside each argv word: a target with blanks or quotes must not
          // split or quote words when the command is split again (then it is re-quoted).
          j.backend.command = substitute(spec.config.command, vars);
          if (!spec.config.command.empty()) {
            std::vector<std::string> words = split_command(spec.config.command);
            for (auto& w : words)
              w = backend::expand_word(w, vars);
            bool same = false;
            try {
              same = split_command(j.backend.command) == words;
            } catch (const Error&) {
            }
            if (!same) j.backend.command = shell_join(words);
          }
          j.options = spec.options;
          if (!target.empty() && !spec.target_option.empty())
            j.options.push_back(substitute(spec.target_option, vars));
          for (const auto& o : m.option_sets[oi].options)
            j.options.push_back(o);
          finish_job(m, compilers, setting_text, substitute(spec.config.command, vars), j);
          jobs.push_back(std::move(j));
        }
      }
    }
  }
  // A bundle brings its compiler and options: one job each, crossed with nothing.
  for (const auto& b : m.bundles) {
    Job j;
    j.input = &b.input;
    j.input_hash = backend::cached_file_hash(b.input.path);
    j.compiler = b.compiler;
    j.backend = m.compilers[b.compiler].config;
    j.options = b.options;
    j.bundle = &b;
    finish_job(m, compilers, setting_text, "", j);
    jobs.push_back(std::move(j));
  }
  return jobs;
}

bool in_shard(const std::string& job_id, const Shard& shard) {
  uint64_t v = std::stoull(job_id.substr(0, 16), nullptr, 16);
  return v % shard.count == shard.index - 1;
}

engine::RunPlan job_run_plan(const Manifest& m, const Job& job, const perturb::Setting& setting,
                             uint64_t first, uint64_t runs, size_t stop_at_outcomes) {
  engine::RunPlan plan;
  plan.backend = job.backend;
  plan.known.file = job.compiler_file;
  plan.setting = setting;
  plan.setting.seed = mix_seed(job.seed, first);
  plan.input_path = job.input->path;
  plan.options = job.options;
  if (job.bundle) plan.parts = job.bundle->parts;
  plan.runs = runs;
  plan.jobs = 1;
  plan.timeout = std::chrono::milliseconds(static_cast<long long>(m.timeout_seconds * 1000));
  plan.stop.outcomes = stop_at_outcomes;
  if (const auto limit = m.compilers[job.compiler].run_limit; limit.count() > 0) {
    plan.timeout = plan.timeout.count() > 0 ? std::min(plan.timeout, limit) : limit;
    plan.stop.after_failures = 2;
  }
  return plan;
}

} // namespace kdet::scan
