//===- cli/impact.cpp - `kdet impact`: how far a variance reaches ------------===//
//
//   kdet impact A B [--arch sm_XX]     two PTX files (assembled with ptxas) or two cubins
//   kdet impact RUN_DIR                each variant of a `kdet run --out` folder against the
//                                      most common one
//   kdet impact --db DB --job ID       the same for a scan job's variants
//   ... --run --recipe FILE.toml       also launch both variants on the GPU (gpu/cuda.hpp):
//                                      same results or not, and B's speed against A's
// Exit 0: no difference reaches the GPU (identical, PTX only, cubin metadata only); 1: some
// kernel's SASS, resources or occupancy differs; 3: ptxas failed where nothing reached the GPU
// (the reach is unknown), or --run could not run (no GPU, a launch that failed); 2: bad input or
// options. With --run, results that differ between the variants are 1.
//
//===----------------------------------------------------------------------===//
#include "kdet/cli/main.hpp"
#include "kdet/cli/numbers.hpp"
#include "kdet/cli/output.hpp"
#include "kdet/diff/diff.hpp"
#include "kdet/diff/reach.hpp"
#include "kdet/diff/resources.hpp"
#include "kdet/gpu/cuda.hpp"
#include "kdet/store/run_dir.hpp"
#include "kdet/store/scan_db.hpp"
#include "kdet/util/error.hpp"
#include "kdet/util/fs.hpp"
#include "kdet/util/stream.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <memory>
#include <optional>
#include <sys/stat.h>
#include <unistd.h>

namespace kdet::cli {

namespace {

namespace fs = std::filesystem;

// Largest input read (a cubin or PTX file); larger ones are not what ptxas makes of a kernel.
constexpr uint64_t k_max_input = 1ULL << 30;

struct ImpactArgs {
  std::vector<std::string> paths;
  std::string arch;
  uint32_t block = 0; // 0: not given
  int carveout = -1;
  std::string ptxas;
  std::string db, job;
  bool run = false;
  std::string recipe;
  size_t launches = 200;
  OutputArgs output;
};

// One comparison of the command: what was compared, and how far it reaches.
struct Comparison {
  std::string a, b;    // labels: file paths or variant ids
  uint64_t runs_b = 0; // runs that gave B (run folders, scan jobs)
  diff::ImpactReport report;
  std::string data_a, data_b; // the compared bytes (PTX or cubin), for --run
};

std::string read_input(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    throw Error::format("cannot read {}: {}", path, std::strerror(errno));
  if (!S_ISREG(st.st_mode))
    throw Error::format("{}: is {}; kdet impact reads regular files", path,
                        describe_file_type(st.st_mode));
  if (static_cast<uint64_t>(st.st_size) > k_max_input)
    throw Error::format("{}: {} bytes is more than kdet impact reads (1 GiB)", path, st.st_size);
  return read_file(path);
}

// The file of a run folder's variant that impact compares: a cubin, else PTX; "" when none.
std::string pick_artifact(const std::string& variant_dir, std::string& data) {
  std::string ptx_path, ptx_data;
  std::error_code ec;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(variant_dir, ec))
    if (e.is_regular_file(ec) && !e.is_symlink(ec)) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    if (f.filename() == "failure.txt") continue;
    std::string d = read_input(f.string());
    diff::Format format = diff::detect_format(d);
    if (format == diff::Format::cubin) {
      data = std::move(d);
      return f.string();
    }
    if (format == diff::Format::ptx && ptx_path.empty()) ptx_path = f.string(), ptx_data = d;
  }
  data = std::move(ptx_data);
  return ptx_path;
}

diff::ImpactOptions impact_options(const ImpactArgs& a) {
  diff::ImpactOptions o;
  o.arch = a.arch;
  if (a.block) o.block = a.block;
  o.carveout = a.carveout;
  o.ptxas = diff::find_ptxas(a.ptxas, "--ptxas");
  return o;
}

diff::ImpactReport run_impact(std::string_view a, std::string_view b, const diff::ImpactOptions& o,
                              const std::string& la, const std::string& lb) {
  try {
    return diff::impact(a, b, o);
  } catch (const Error& e) {
    throw Error::format("{} vs {}: {}", la, lb, e.what());
  }
}

std::vector<Comparison> from_run_dir(const std::string& dir, const diff::ImpactOptions& o,
                                     std::vector<std::string>& notes) {
  auto variants = store::variants_by_count(dir);
  if (variants.size() < 2)
    throw Error::format("{}: {} variant{}, nothing to compare", dir, variants.size(),
                        variants.size() == 1 ? "" : "s");
  std::string ref_data;
  std::string ref = pick_artifact(store::resolve_variant(dir, variants[0].first), ref_data);
  if (ref.empty())
    throw Error::format("{}: the most common variant {} has no PTX or cubin (a failure?)", dir,
                        variants[0].first);
  std::vector<Comparison> out;
  for (size_t i = 1; i < variants.size(); ++i) {
    std::string data;
    std::string path = pick_artifact(store::resolve_variant(dir, variants[i].first), data);
    if (path.empty()) {
      notes.push_back(fmt::format("variant {} has no PTX or cubin (a failed outcome): left out",
                                  variants[i].first));
      continue;
    }
    Comparison c{variants[0].first,  variants[i].first,
                 variants[i].second, run_impact(ref_data, data, o, ref, path),
                 ref_data,           data};
    out.push_back(std::move(c));
  }
  return out;
}

std::vector<Comparison> from_scan_job(const ImpactArgs& a, diff::ImpactOptions o,
                                      std::vector<std::string>& notes, std::string& label) {
  if (::access(a.db.c_str(), R_OK) != 0)
    throw Error::format("--db {}: {}", a.db, std::strerror(errno));
  store::ScanDb db(a.db, store::Access::read);
  store::ScanResult result = db.load();
  const store::JobRow* job = nullptr;
  for (const auto& j : result.jobs)
    if (j.id == a.job || j.label() == a.job || (a.job.size() >= 6 && j.id.rfind(a.job, 0) == 0)) {
      if (job && job != &j)
        throw Error::format("--job {}: names more than one job of {}", a.job, a.db);
      job = &j;
    }
  if (!job)
    throw Error::format("--job {}: no job of {} has this id (or id prefix of 6 or more "
                        "characters) or label",
                        a.job, a.db);
  label = job->label();
  if (o.arch.empty() && !job->target.empty() && diff::parse_sm(job->target))
    o.arch = "sm_" + job->target;
  // A variant's bytes: its cubin when the compiler made one, else its PTX (by content: an
  // exec compiler's artifact is named "output").
  auto bytes = [&](const store::VariantRow& v) -> std::string {
    std::string ptx;
    for (const auto& art : v.artifacts) {
      std::string data = db.blob(art.hash);
      diff::Format format = diff::detect_format(data);
      if (format == diff::Format::cubin) return data;
      if (format == diff::Format::ptx && ptx.empty()) ptx = std::move(data);
    }
    return ptx;
  };
  std::vector<const store::VariantRow*> ok;
  for (const auto& v : job->variants)
    if (v.status == "ok") ok.push_back(&v);
  if (ok.size() < 2)
    throw Error::format("--job {}: {} successful variant{}, nothing to compare", a.job, ok.size(),
                        ok.size() == 1 ? "" : "s");
  std::string ref = bytes(*ok[0]);
  if (ref.empty())
    throw Error::format("--job {}: the most common variant has no PTX or cubin stored", a.job);
  std::vector<Comparison> out;
  for (size_t i = 1; i < ok.size(); ++i) {
    std::string data = bytes(*ok[i]);
    if (data.empty()) {
      notes.push_back(fmt::format("variant {} has no PTX or cubin stored: left out", ok[i]->id));
      continue;
    }
    out.push_back({ok[0]->id, ok[i]->id, ok[i]->count,
                   run_impact(ref, data, o, ok[0]->id, ok[i]->id), ref, data});
  }
  return out;
}

// What --run adds to one comparison.
// NOLINTNEXTLINE(bugprone-exception-escape): its implicit destructor and moves do not throw
struct DynamicOutcome {
  std::string text;
  nlohmann::json json;
  bool differ = false; // reproducible results that differ between A and B
  bool failed = false; // not run where it was needed: no GPU, ptxas, a launch that failed
};

// The bytes a GPU loads: a cubin as it is, PTX assembled for the device.
std::string cubin_of(const std::string& data, const diff::ImpactOptions& o, const char* side,
                     std::string& error) {
  if (diff::detect_format(data) == diff::Format::cubin) return data;
  diff::Assembly as = diff::assemble(o.ptxas, data, o.arch);
  if (!as.ok) error = fmt::format("{}: ptxas: {}", side, as.error);
  return as.cubin;
}

DynamicOutcome run_dynamic(const Comparison& c, const gpu::Recipe& recipe, const gpu::Probe& probe,
                           const diff::ImpactOptions& o, size_t launches) {
  DynamicOutcome d;
  auto skip = [&](const std::string& why) {
    d.text = fmt::format("run: skipped: {}\n", why);
    d.json = {{"skipped", why}};
    d.failed = true;
    return d;
  };
  if (!probe.ok) return skip(probe.why_not);
  std::string error_a, error_b;
  std::string cubin_a = cubin_of(c.data_a, o, "A", error_a);
  std::string cubin_b = cubin_of(c.data_b, o, "B", error_b);
  if (!error_a.empty() || !error_b.empty()) return skip(error_a.empty() ? error_b : error_a);
  gpu::RunOptions ro;
  ro.params_a = diff::kernel_params(cubin_a, recipe.kernel);
  ro.params_b = diff::kernel_params(cubin_b, recipe.kernel);
  ro.launches = launches;
  ro.warmup = std::min(ro.warmup, launches);
  gpu::RunResult r = gpu::run_pair(cubin_a, cubin_b, recipe, ro);
  d.text = gpu::run_text(r, recipe);
  // Identical cubins still run: their spread is the noise floor of the measurement.
  if (cubin_a == cubin_b) d.text += "  (the cubins are identical: this measures the noise)\n";
  d.json = gpu::to_json(r, recipe);
  d.differ = gpu::reproducible(r) && r.results.differing > 0;
  d.failed = !r.error.empty();
  return d;
}

int do_impact(const ImpactArgs& a) {
  diff::ImpactOptions o = impact_options(a);
  if (!a.arch.empty() && !diff::parse_sm(a.arch))
    throw Error::format("--arch {}: expected sm_XX, such as sm_80 or sm_90a", a.arch);
  std::optional<gpu::Recipe> recipe;
  gpu::Probe probe;
  if (!a.recipe.empty() && !a.run) throw Error("--recipe FILE goes with --run");
  if (a.run) {
    if (a.recipe.empty())
      throw Error("--run needs --recipe FILE.toml (the kernel, grid, block and arguments; "
                  "`kdet corpus` writes one beside each kernel)");
    recipe = gpu::parse_recipe(read_input(a.recipe), a.recipe);
    probe = gpu::probe_gpu();
    // PTX is assembled for the GPU that runs it, so the SASS measured is what it runs.
    if (probe.ok && o.arch.empty()) o.arch = probe.device.arch();
  }
  Output output(a.output);
  std::vector<Comparison> comparisons;
  std::vector<std::string> notes;
  nlohmann::json source;
  if (!a.db.empty() || !a.job.empty()) {
    if (a.db.empty() || a.job.empty()) throw Error("--db DB and --job ID go together");
    if (!a.paths.empty()) throw Error("give --db DB --job ID, or files, not both");
    std::string label;
    comparisons = from_scan_job(a, o, notes, label);
    source = {{"kind", "scan_job"}, {"db", a.db}, {"job", a.job}, {"label", label}};
  } else if (a.paths.size() == 1) {
    struct stat st {};
    if (::stat(a.paths[0].c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
      throw Error::format("{}: give a `kdet run --out` folder, or two files A B", a.paths[0]);
    comparisons = from_run_dir(a.paths[0], o, notes);
    source = {{"kind", "run_dir"}, {"path", a.paths[0]}};
  } else if (a.paths.size() == 2) {
    std::string da = read_input(a.paths[0]), db = read_input(a.paths[1]);
    comparisons.push_back(
        {a.paths[0], a.paths[1], 0, run_impact(da, db, o, a.paths[0], a.paths[1]), da, db});
    source = {{"kind", "files"}};
  } else {
    throw Error("give two files (A B), a `kdet run --out` folder, or --db DB --job ID");
  }

  diff::ReachCensus census;
  bool gpu = false, failed = false;
  std::string text;
  nlohmann::json list = nlohmann::json::array();
  for (const auto& c : comparisons) {
    census.add(c.report);
    gpu |= !c.report.failed && diff::reaches_gpu(c.report.reach);
    failed |= c.report.failed;
    if (comparisons.size() > 1 || source["kind"] != "files")
      text += fmt::format("{}{} vs {}{}\n", text.empty() ? "" : "\n", c.b, c.a,
                          c.runs_b ? fmt::format(" ({} run{})", c.runs_b, c.runs_b == 1 ? "" : "s")
                                   : "");
    text += diff::to_text(c.report, output.color());
    std::optional<DynamicOutcome> d;
    if (recipe) {
      d = run_dynamic(c, *recipe, probe, o, a.launches);
      text += d->text;
      gpu |= d->differ;
      failed |= d->failed;
    }
    list.push_back(diff::to_json(c.report, c.a, c.b, c.runs_b, d ? &d->json : nullptr));
  }
  if (source["kind"] != "files") text += census.line("variant") + "\n";
  for (const auto& n : notes)
    text += "note: " + n + "\n";
  nlohmann::json doc = {{"schema", "kdet.impact/1"},
                        {"source", source},
                        {"default_block", diff::k_default_block},
                        {"comparisons", std::move(list)},
                        {"census", census.to_json()},
                        {"notes", notes}};
  output.write_json(doc);
  output.print_text(text);
  if (gpu) return k_exit_nondeterministic;
  if (failed) return k_exit_compiler_failed;
  return k_exit_deterministic;
}

} // namespace

void add_impact(CLI::App& root, Action& action) {
  auto args = std::make_shared<ImpactArgs>();
  auto* cmd = root.add_subcommand(
      "impact", "How far a difference reaches: PTX only, SASS, resources or occupancy");
  cmd->footer(
      "Two PTX files are assembled with ptxas -v for --arch (default: their .target); two\n"
      "cubins are read as they are. Per kernel: the reach, the 16-byte SASS words changed,\n"
      "moved, added and removed, registers, stack, spills (ptxas -v; unknown for cubins given\n"
      "as they are), shared and constant memory, barriers, launch bounds, and the blocks and\n"
      "warps per SM CUDA's occupancy calculator gives, at the kernel's launch bounds, else\n"
      "--block N, else 256 threads. docs/IMPACT.md.\n"
      "Exit status: 0 nothing reaches the GPU (identical, PTX only, cubin metadata only), 1 some\n"
      "kernel's SASS, resources or occupancy differs, 2 bad input or options, 3 ptxas failed\n"
      "and nothing else reached the GPU.\n"
      "--run --recipe FILE also launches both on device 0 (libcuda loaded at run time; PTX\n"
      "assembled for the device): output buffers compared bit for bit (each variant also\n"
      "against a second launch of itself), and the median of N interleaved timed launches:\n"
      "\"same results, B 2.1 % slower (±0.4 %)\". Results that differ: exit 1; no GPU or a\n"
      "launch that failed: 3 (unless 1).");
  cmd->add_option("paths", args->paths,
                  "A B (two PTX files or two cubins), or a kdet run --out "
                  "folder");
  cmd->add_option("--arch", args->arch,
                  "Target to assemble PTX for (sm_80, sm_90a, ...); default: the PTX's .target, "
                  "or a scan job's target. Cubins: must match theirs when given")
      ->type_name("sm_XX");
  cmd->add_option("--block", args->block,
                  "Threads per block for occupancy where a kernel has no launch bounds (.reqntid "
                  "or .maxntid); default 256")
      ->type_name("N")
      ->check(whole_option({1, 1024}));
  cmd->add_option("--carveout", args->carveout,
                  "Preferred shared memory carveout in percent of the SM's largest (as "
                  "cudaFuncAttributePreferredSharedMemoryCarveout); default: the largest")
      ->type_name("PERCENT")
      ->check(whole_option({0, 100}));
  cmd->add_option("--ptxas", args->ptxas,
                  "The ptxas to run. Default: $KDET_PTXAS, else ptxas from PATH, $CUDA_HOME/bin "
                  "or /usr/local/cuda/bin")
      ->type_name("PATH");
  cmd->add_option("--db", args->db, "A scan database; with --job, compare that job's variants");
  cmd->add_option("--job", args->job,
                  "A scan job: its id (or a prefix of 6 or more characters) or its label "
                  "(\"input compiler target option_set\")")
      ->type_name("ID");
  cmd->add_flag("--run", args->run,
                "Also launch both variants on the GPU with --recipe: compare every output buffer "
                "bit for bit and time them interleaved (no GPU: skipped, exit 3)");
  cmd->add_option("--recipe", args->recipe,
                  "With --run: the kernel, grid, block and arguments (TOML; `kdet corpus` writes "
                  "gen_NNNN.recipe.toml beside each kernel)")
      ->type_name("FILE");
  cmd->add_option("--launches", args->launches,
                  "With --run: timed launches of each variant, interleaved (default 200)")
      ->type_name("N")
      ->check(whole_option({1, 100000}));
  add_json_option(cmd, args->output, "the report", "kdet.impact/1");
  add_color_option(cmd, args->output);
  cmd->callback([args, &action] { action = [args] { return do_impact(*args); }; });
}

} // namespace kdet::cli
