//===- reduce/repro.cpp - SMALL.repro/: a reduced input's reproducer folder -===//
#include "kdet/reduce/repro.hpp"

#include "kdet/diff/diff.hpp"
#include "kdet/perturb/files.hpp"
#include "kdet/reduce/names.hpp"
#include "kdet/stats/stats.hpp"
#include "kdet/store/run_dir.hpp"
#include "kdet/util/error.hpp"
#include "kdet/util/fs.hpp"
#include "kdet/util/hash.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <set>
#include <sys/stat.h>
#include <unistd.h>

namespace kdet::reduce {

void check_repro_dir(const std::string& dir) {
  struct stat st {};
  if (::lstat(dir.c_str(), &st) == 0 && !S_ISDIR(st.st_mode))
    throw Error::format("-o: {} exists and is not a folder (a link is not followed); remove it or "
                        "name another SMALL",
                        dir);
}

namespace {

// The README's table of long names and their stand-ins; empty when none.
std::string names_table(const ReduceResult& r) {
  if (r.renames.empty()) return "";
  std::string out = fmt::format(
      "\n## Names\n\n{}\n\n| short | original |\n| --- | --- |\n",
      r.renamed ? "Long names are renamed in the input (the renamed input still varied), so its "
                  "outputs and the diff above use the short ones:"
                : "The input keeps its long names (renamed, it no longer varied the same way); "
                  "the diff above shows them shortened:");
  for (const auto& n : r.renames)
    out += fmt::format("| `{}` | `{}` |\n", n.to, n.from);
  return out;
}

// The files a reduced input names, copied into SMALL.repro/files/.
struct NamedCopies {
  std::vector<std::pair<std::string, std::string>> copied; // (the named file, its copy's name)
  std::vector<std::string> still_original; // copied, but the input names them another way
  std::string text;                        // the input, naming the copies where it can
};

// A compile may read or record the files its input names (ptxas writes the modification time of
// each PTX `.file` into the cubin), so the reproducer keeps them: every named file that exists
// here (perturb::named_files: `.file`, `#line`, `#include`, `!DIFile`), copied into `files`, and
// each quoted absolute path to one in the input replaced by its copy's. A file named another way
// (an include found through -I, a !DIFile's folder and name) stays named as it was.
NamedCopies copy_named_files(const std::string& text, const engine::RunPlan& plan,
                             const std::string& files) {
  NamedCopies c{{}, {}, text};
  std::vector<std::string> named =
      perturb::named_files(text, plan.input_path, plan.options, current_folder(), 64);
  if (access(files.c_str(), F_OK) == 0) remove_tree(files);
  if (named.empty()) return c;
  make_dirs(files);
  std::set<std::string> taken;
  for (const auto& f : named) {
    std::string base = f.substr(f.rfind('/') + 1);
    std::string to = base;
    for (int k = 2; !taken.insert(to).second; ++k)
      to = fmt::format("{}-{}", k, base);
    write_file_atomic(files + "/" + to, read_file(f));
    c.copied.emplace_back(f, to);
    std::string quoted = "\"" + f + "\"";
    std::string copy = "\"" + absolute_path(files + "/" + to) + "\"";
    if (c.text.find(quoted) == std::string::npos) {
      c.still_original.push_back(f);
      continue;
    }
    for (size_t at = c.text.find(quoted); at != std::string::npos;
         at = c.text.find(quoted, at + copy.size()))
      c.text.replace(at, quoted.size(), copy);
  }
  return c;
}

// The README's list of the copied files; empty when none.
std::string files_section(const NamedCopies& c) {
  if (c.copied.empty()) return "";
  std::string out =
      "- `files/`: copies of the files the input names, which the compiler may read or record "
      "(ptxas writes the modification time of each PTX `.file` into the cubin); the input here "
      "names the copies";
  out += c.still_original.empty() ? ":\n" : ", except those marked (it names them otherwise):\n";
  for (const auto& [from, to] : c.copied) {
    bool kept =
        std::find(c.still_original.begin(), c.still_original.end(), from) != c.still_original.end();
    out += fmt::format("  - `files/{}`: `{}`{}\n", to, from, kept ? " (named as before)" : "");
  }
  return out;
}

} // namespace

uint64_t final_runs_for(double rate, uint64_t floor) {
  if (!(rate > 0)) return floor;
  const double needed = std::ceil(4.6 / rate);
  return std::clamp<uint64_t>(static_cast<uint64_t>(std::min(needed, 1e9)), floor, 8 * floor);
}

ReproResult write_repro(const ReproOptions& options, const engine::RunPlan& plan,
                        const ReduceResult& r) {
  std::string dir = options.out + ".repro";
  check_repro_dir(dir);
  make_dirs(dir);
  std::string name = options.out.substr(options.out.rfind('/') + 1);
  NamedCopies copies = copy_named_files(r.text, plan, dir + "/files");
  write_file_atomic(dir + "/" + name, copies.text);
  engine::RunPlan p = plan;
  p.input_path = absolute_path(dir + "/" + name);
  p.runs = options.final_runs;
  p.jobs = options.jobs;
  std::string run_dir = dir + "/run";
  if (access(run_dir.c_str(), F_OK) == 0) remove_tree(run_dir);
  store::prepare_run_dir(run_dir);
  engine::RunOutput out = engine::execute(p);
  engine::annotate_differences(out);
  engine::Assessment as = engine::assess(out);
  nlohmann::json result = options.render.result(out, as, hash_bytes(r.text));
  store::write_run_dir(run_dir, out, result, options.render.record);
  Measure m = measure_of(out);
  stats::Interval ci = stats::clopper_pearson(m.differing, m.runs);

  const bool varied = as.outcomes >= 2;
  std::string diff_text = "(fewer than two successful variants in the final runs)\n";
  std::vector<const engine::Variant*> ok;
  for (const auto& v : out.variants)
    if (v.status == backend::Status::ok && !v.artifacts.empty()) ok.push_back(&v);
  const bool diffed = ok.size() >= 2;
  if (diffed) {
    auto art = [&](const engine::Variant* v) {
      return read_file(run_dir + "/variants/" + store::variant_dir_name(v->id) + "/" +
                       v->artifacts[0].name);
    };
    diff::Report d = diff::compare(art(ok[0]), art(ok[1]));
    diff_text = diff::to_text(d, false, ok[0]->id.substr(0, 12), ok[1]->id.substr(0, 12));
    // The variants still name what the input names: the table's stand-ins shorten them.
    diff_text = apply_renames(TextFormat::text, diff_text, r.renames);
    write_file_atomic(dir + "/diff.txt", diff_text);
  }
  // While reducing, the text varied; these runs may not show it (a low rate, or a variance that
  // came from the reduction's own runs): then this is no reproducer, and the README says so.
  const std::string title =
      varied ? "# Nondeterministic compile: reduced reproducer\n\n"
             : fmt::format("# Reduced input: it did not vary in its {} final runs\n\n"
                           "While kdet reduce reduced it, this input varied (rate {:.1f} % in its "
                           "last measurement, {} runs); the final runs below gave one outcome. "
                           "Run the command below, with more runs, before reporting it.\n\n",
                           m.runs, 100 * r.last.rate(), r.last.runs);
  std::string readme = fmt::format(
      "{title}"
      "Input: `{name}` ({bytes} bytes, reduced by kdet reduce from {orig} bytes).\n\n"
      "## Reproduce\n\n```sh\n{cmd}\n```\n\n"
      "Exit status 1 means two or more different outputs were seen.\n\n"
      "## Observed\n\n"
      "{runs} runs, {diff} differing from the most common output: rate {rate:.1f} % "
      "(95 % interval {lo:.1f} % .. {hi:.1f} %), {nv} distinct outcomes.\n\n"
      "Compiler: {compiler} (version {version}, content hash {hash}).\n\n"
      "## Files\n\n"
      "- `{name}`: the reduced input\n"
      "- `run/`: these runs as `kdet run --out` keeps them: `run/result.json` (with kdet's "
      "environment record under \"environment\"), `run/runs.jsonl`, one folder per variant "
      "under `run/variants/`\n"
      "{difffile}"
      "{files}\n"
      "## Difference of two variants\n\n```\n{difftext}```\n{names}",
      fmt::arg("title", title),
      fmt::arg("difffile",
               diffed ? "- `diff.txt`: `kdet diff run` of the two most common variants\n" : ""),
      fmt::arg("name", name), fmt::arg("bytes", r.text.size()), fmt::arg("orig", r.original_bytes),
      fmt::arg("cmd", options.run_command), fmt::arg("runs", m.runs), fmt::arg("diff", m.differing),
      fmt::arg("rate", 100 * m.rate()), fmt::arg("lo", 100 * ci.low), fmt::arg("hi", 100 * ci.high),
      fmt::arg("nv", out.variants.size()), fmt::arg("compiler", out.identity.path),
      fmt::arg("version", out.identity.version), fmt::arg("hash", out.identity.content_hash),
      fmt::arg("difftext", diff_text), fmt::arg("names", names_table(r)),
      fmt::arg("files", files_section(copies)));
  write_file_atomic(dir + "/README.md", readme);
  return {m, as.outcomes};
}

} // namespace kdet::reduce
