//===- diff/sass_compare.cpp - cubin .text compared as canonical SASS ------===//
//
// Where nvdisasm is found, each cubin is listed by it (in a private temporary
// folder, under a timeout, through util/exec, so a crash or hang is a note and
// the 16-byte word compare is used instead) and each kernel's instructions are
// canonicalised (sass_reader.hpp). An nvdisasm that timed out is not run again
// in the same process (kdet run describes every variant). Rules, per kernel
// whose .text bytes differ:
//  - listings the same as printed  -> the words' class (the encodings differ
//    only in what nvdisasm does not print, such as scheduling control bits)
//  - canonical sequences equal     -> renamed (registers or code addresses only)
//  - instructions (label lines aside) in another order: canonical multisets
//    equal, or shape multisets equal with other shape sequences
//                                  -> reordered (moved = off the shapes' LCS)
//  - anything else                 -> code (a branch to another place too: its
//    label line moves while the instructions stay)
// Hunks: shapes aligned (Myers), B's registers and labels mapped to A's names
// through aligned lines, then the canonical lines diffed, as for PTX; the lines
// shown are the listings' own, with their addresses and listing line numbers.
//
//===----------------------------------------------------------------------===//
#include "kdet/diff/internal.hpp"
#include "kdet/diff/line_diff.hpp"
#include "kdet/util/error.hpp"
#include "kdet/util/exec.hpp"
#include "kdet/util/fs.hpp"
#include "kdet/util/strings.hpp"

#include <algorithm>
#include <cstdlib>
#include <fmt/format.h>
#include <mutex>
#include <set>
#include <sys/stat.h>
#include <unistd.h>

namespace kdet::diff {

namespace {

bool executable_file(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

// Largest listing kept from one nvdisasm run; a longer one is cut, and then fails the
// instruction-count check, so the words are compared.
constexpr size_t k_max_listing = 256 << 20;

} // namespace

SassOptions find_sass_options(const std::string& requested, const std::string& what) {
  SassOptions o;
  std::string value = requested, source = what;
  if (value.empty()) {
    const char* env = std::getenv("KDET_NVDISASM");
    if (env && *env) value = env, source = "KDET_NVDISASM";
  }
  if (value == "none") {
    o.why_not = fmt::format("nvdisasm not used: {} none", source);
    return o;
  }
  if (!value.empty()) {
    std::string path = value.find('/') == std::string::npos ? find_program(value) : value;
    if (path.empty() || !executable_file(path))
      throw Error::format("{} {}: not an executable file; give the path of nvdisasm, or none to "
                          "compare SASS as 16-byte instruction words",
                          source, value);
    o.nvdisasm = path;
    return o;
  }
  std::vector<std::string> candidates;
  if (std::string p = find_program("nvdisasm"); !p.empty()) candidates.push_back(p);
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"})
    if (const char* h = std::getenv(var); h && *h)
      candidates.push_back(std::string(h) + "/bin/nvdisasm");
  candidates.push_back(std::string(KDET_DEFAULT_CUDA_HOME) + "/bin/nvdisasm");
  candidates.push_back("/usr/local/cuda/bin/nvdisasm");
  for (const auto& c : candidates)
    if (executable_file(c)) {
      o.nvdisasm = c;
      return o;
    }
  o.why_not = "nvdisasm not found; --nvdisasm PATH or KDET_NVDISASM names it";
  return o;
}

const SassOptions& default_sass_options() {
  static const SassOptions options = [] {
    try {
      return find_sass_options("", "--nvdisasm");
    } catch (const Error& e) {
      SassOptions o;
      o.why_not = e.what();
      return o;
    }
  }();
  return options;
}

namespace detail {

namespace {

// The nvdisasm programs that timed out in this process: not run again, so that kdet run's
// description of many variants does not wait out the timeout for each.
std::mutex g_hung_mutex;
std::set<std::string> g_hung;

// Lists one cubin written to `path`; false with `why` when nvdisasm failed.
Result<SassListing> list(const SassOptions& sass, const std::string& path, const char* side) {
  SpawnOptions so;
  so.argv = {sass.nvdisasm, path};
  CapturedRun run = run_captured(so, sass.timeout, k_max_listing);
  if (run.status.kind == ExitStatus::Kind::timed_out) {
    std::lock_guard<std::mutex> lock(g_hung_mutex);
    g_hung.insert(sass.nvdisasm);
  }
  if (!run.status.ok()) {
    std::string err = run.err.substr(0, run.err.find('\n'));
    return failure(fmt::format("nvdisasm {} on {}{}{}", run.status.describe(), side,
                               err.empty() ? "" : ": ", err.substr(0, 200)));
  }
  return read_sass(run.out);
}

std::vector<std::string> sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

} // namespace

Result<std::pair<SassListing, SassListing>> disassemble(const SassOptions& sass, std::string_view a,
                                                        std::string_view b) {
  {
    std::lock_guard<std::mutex> lock(g_hung_mutex);
    if (g_hung.count(sass.nvdisasm))
      return failure("nvdisasm timed out earlier in this process; not run again");
  }
  std::string dir;
  try {
    dir = make_temp_dir("kdet-nvdisasm");
    write_file_synced(dir + "/a.cubin", a, true);
    write_file_synced(dir + "/b.cubin", b, true);
  } catch (const Error& e) {
    if (!dir.empty()) remove_tree(dir);
    return failure(fmt::format("cannot write the cubins for nvdisasm: {}", e.what()));
  }
  Result<SassListing> la = list(sass, dir + "/a.cubin", "A");
  Result<SassListing> lb = la ? list(sass, dir + "/b.cubin", "B") : failure("");
  remove_tree(dir);
  if (!la) return failure(la.why());
  if (!lb) return failure(lb.why());
  return std::pair{std::move(la).value(), std::move(lb).value()};
}

Change compare_sass(const SassFunction& fa, const SassFunction& fb, bool canonical, Entry& e,
                    bool& approximate, size_t& budget, bool& cut) {
  e.count_a = fa.instructions.size();
  e.count_b = fb.instructions.size();
  SassCanonical a = canonicalise(fa), b = canonicalise(fb);
  std::vector<std::string> canon_a = canonical_text(a), canon_b = canonical_text(b);
  std::vector<std::string> shape_a, shape_b, ins_a, ins_b; // ins: instruction shapes alone
  for (const auto& l : a.lines) {
    shape_a.push_back(render(l, nullptr));
    if (!l.definition) ins_a.push_back(shape_a.back());
  }
  for (const auto& l : b.lines) {
    shape_b.push_back(render(l, nullptr));
    if (!l.definition) ins_b.push_back(shape_b.back());
  }

  Interner interner;
  std::vector<uint32_t> ids_a, ids_b;
  for (const auto& s : shape_a)
    ids_a.push_back(interner.id(s));
  for (const auto& s : shape_b)
    ids_b.push_back(interner.id(s));
  EditScript align = diff_sequences(ids_a, ids_b);
  approximate |= align.approximate;

  Change change;
  if (canon_a == canon_b) {
    e.aspects.push_back("names");
    e.notes.push_back("same canonical SASS: only register numbers or code addresses differ");
    return Change::renamed;
  }
  e.aspects.push_back("text");
  if (ins_a != ins_b && (sorted(canon_a) == sorted(canon_b) ||
                         (shape_a != shape_b && sorted(shape_a) == sorted(shape_b)))) {
    change = Change::reordered;
    e.aspects.push_back("order");
    e.moved = shape_a.size() - align.kept;
    e.notes.push_back(fmt::format("SASS: same instructions in another order, {} of {} moved",
                                  e.moved, shape_a.size()));
  } else {
    change = Change::code;
    e.notes.push_back(fmt::format(
        "SASS: {} and {}, {} of {} listing lines in common{}", e.count_a,
        plural(e.count_b, "instruction"), align.kept, shape_a.size(),
        ins_a == ins_b && shape_a != shape_b ? " (the same instructions, with other branch targets)"
        : shape_a == shape_b                 ? " (same shapes: registers flow differently)"
                                             : ""));
  }

  // Hunks: B's symbols take A's names where aligned lines pin them down, so a renaming does
  // not show; the lines shown are each listing's own (or, on request, the canonical ones),
  // numbered by listing line.
  std::vector<std::string> mapped = map_names(align, a.lines, b.lines, a.names, b.names);
  LabelsByAddress labels_a = labels_by_address(fa), labels_b = labels_by_address(fb);
  HunkSide ha, hb;
  ha.compared = std::move(canon_a);
  for (const auto& l : a.lines)
    ha.own.push_back(listed_text(l, fa, labels_a)), ha.line.push_back(listed_line(l, fa, labels_a));
  for (const auto& l : b.lines)
    hb.compared.push_back(render(l, &mapped)), hb.own.push_back(listed_text(l, fb, labels_b)),
        hb.line.push_back(listed_line(l, fb, labels_b));
  e.hunks = renamed_hunks(ha, hb, canonical, approximate, budget, cut);
  return change;
}

} // namespace detail

} // namespace kdet::diff
