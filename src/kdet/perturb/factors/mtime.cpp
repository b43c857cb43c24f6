//===- perturb/factors/mtime.cpp - the times of the files the input names ----===//
//
// The modification time the compiler sees for the files the input names (perturb/files.hpp),
// set on kdet's copies bound over them in the worker's private mount namespace, and
// SOURCE_DATE_EPOCH.
//
//===----------------------------------------------------------------------===//
#include "kdet/perturb/factors/kit.hpp"
#include "kdet/perturb/files.hpp"
#include "kdet/perturb/presets.hpp"

#include <algorithm>
#include <exception>
#include <fmt/format.h>

namespace kdet::perturb {

namespace {

// mtime=vary: a time from 2001-09-09 (1e9 s) on, within 30 years.
constexpr int64_t k_vary_epoch_from = 1000000000;
constexpr uint64_t k_vary_epoch_span = 30ULL * 365 * 86400;

// "a, b and c", or the first four "and 3 more".
std::string file_list(const std::vector<std::string>& files) {
  constexpr size_t k_shown = 4;
  std::string out;
  const size_t shown = files.size() > k_shown + 1 ? k_shown : files.size();
  for (size_t i = 0; i < shown; ++i)
    out += (i == 0 ? "" : i + 1 == shown && shown == files.size() ? " and " : ", ") + files[i];
  if (shown < files.size()) out += fmt::format(" and {} more", files.size() - shown);
  return out;
}

// One time per run for every named file (and an exec compiler's input), on copies in a folder
// of the run's own; SOURCE_DATE_EPOCH says the same time.
void plan_file_times(const Setting& s, const Context& ctx, const RunSpot& at, RunPerturbation& p) {
  const Level level = level_of(s, "mtime");
  if (level == Level::inherit) return;
  const int64_t t =
      level == Level::fixed
          ? k_fixed_epoch
          : k_vary_epoch_from + static_cast<int64_t>(kit::pick(at.seed, 9) % k_vary_epoch_span);
  p.host.env.push_back(fmt::format("SOURCE_DATE_EPOCH={}", t));
  std::vector<std::string> files;
  for (size_t i = 0; i < ctx.named_files.size(); ++i) {
    // A name relative to the working folder, under cwd=vary: kdet's own folder, where the copy
    // goes at that name (no bind), as it would be found in the user's folder.
    const std::string rel = i < ctx.named_in_cwd.size() ? ctx.named_in_cwd[i] : "";
    if (!rel.empty() && level_of(s, "cwd") == Level::vary && !p.host.cwd.empty())
      p.file_times.push_back({p.host.cwd + "/" + rel, "", t, ctx.named_files[i]});
    else
      files.push_back(ctx.named_files[i]);
  }
  if (ctx.exec_backend) {
    if (p.copy_input)
      p.file_times.push_back({p.input_path, "", t, ""}); // kdet's own copy: set in place
    else if (std::find(files.begin(), files.end(), ctx.input_path) == files.end())
      files.insert(files.begin(), ctx.input_path);
  }
  if (files.empty()) return;
  std::string dir = fmt::format("{}/m{}-{}", ctx.session_dir, at.index,
                                kit::random_name(kit::pick(at.seed, 10), 6));
  p.make_dirs.push_back(dir);
  for (size_t i = 0; i < files.size(); ++i) {
    p.file_times.push_back({files[i], fmt::format("{}/{}", dir, i), t, ""});
    p.host.binds.emplace_back(p.file_times.back().copy, files[i]);
  }
}

} // namespace

bool needs_private_mounts(const Setting& s, const Context& ctx) {
  if (level_of(s, "mtime") == Level::inherit) return false;
  return !ctx.named_files.empty() || (ctx.exec_backend && level_of(s, "path") == Level::fixed);
}

const FactorInfo& factor_mtime() {
  static const FactorInfo f = [] {
    FactorInfo r = kit::level_row(
        "mtime",
        "real, fixed (2020-01-01), or vary (a random time each run): the modification time the "
        "compiler sees for the files the input names (PTX .file, #include, #line, !DIFile; "
        "kdet's copies bound over them in a private mount namespace, never the files "
        "themselves) and SOURCE_DATE_EPOCH",
        "the modification time of the files the input names", Regime::both,
        {"real", "fixed", "vary"}, Level::inherit, Level::inherit);
    r.json_when_set = true;
    r.check = [](const Setting& s, Context& ctx) -> std::string {
      if (level_of(s, "mtime") == Level::inherit) return {};
      ctx.named_files =
          named_files(ctx.input, ctx.input_path, ctx.options, ctx.base_cwd, 256, &ctx.named_in_cwd);
      std::string why;
      if (needs_private_mounts(s, ctx) && !(why = ask(ctx.probes.private_mounts)).empty())
        return fmt::format("--mtime {}: the files' times are set on kdet's copies bound over "
                           "them in a private mount namespace, which this machine does not "
                           "allow ({})",
                           level_name("mtime", level_of(s, "mtime")), why);
      return {};
    };
    // It cannot matter for an input that names no file: left out of the cells, as exec-only
    // factors are for library backends (the exec input's own time moves with path=vary).
    r.trial = [](const Context& ctx) {
      Trial t;
      std::vector<std::string> files;
      try {
        files = named_files(ctx.input, ctx.input_path, ctx.options, ctx.base_cwd);
      } catch (const std::exception&) {
        files.clear();
      }
      if (files.empty()) {
        t.applies = false;
        return t;
      }
      t.untestable = ask(ctx.probes.private_mounts);
      t.noun = "the modification time of " + file_list(files);
      return t;
    };
    r.launch = [](const Setting& s, const Context& ctx, Launch& l) {
      l.private_mounts = needs_private_mounts(s, ctx);
    };
    r.run = [](const Setting& s, const Context& ctx, const RunSpot& at, RunPerturbation& p) {
      plan_file_times(s, ctx, at, p);
    };
    return r;
  }();
  return f;
}

} // namespace kdet::perturb
