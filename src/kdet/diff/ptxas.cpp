//===- diff/ptxas.cpp - assembles PTX with ptxas for `kdet impact` ----------===//
#include "kdet/diff/ptxas.hpp"

#include "kdet/util/error.hpp"
#include "kdet/util/exec.hpp"
#include "kdet/util/fs.hpp"

#include <cstdlib>
#include <fmt/format.h>
#include <regex>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace kdet::diff {

namespace {

bool executable_file(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

constexpr size_t k_max_log = 16 << 20;

// The line of ptxas's output that says what went wrong: the first naming an error or a fatal
// condition, else the first.
std::string error_line(const std::string& s) {
  std::string first;
  size_t pos = 0;
  while (pos < s.size()) {
    size_t end = s.find('\n', pos);
    if (end == std::string::npos) end = s.size();
    std::string line = s.substr(pos, std::min<size_t>(end - pos, 300));
    pos = end + 1;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    if (line.find("error") != std::string::npos || line.find("fatal") != std::string::npos)
      return line;
    if (first.empty()) first = line;
  }
  return first;
}

} // namespace

PtxasOptions find_ptxas(const std::string& requested, const std::string& what) {
  PtxasOptions o;
  std::string value = requested, source = what;
  if (value.empty()) {
    const char* env = std::getenv("KDET_PTXAS");
    if (env && *env) value = env, source = "KDET_PTXAS";
  }
  if (!value.empty()) {
    std::string path = value.find('/') == std::string::npos ? find_program(value) : value;
    if (path.empty() || !executable_file(path))
      throw Error::format("{} {}: not an executable file; give the path of ptxas", source, value);
    o.ptxas = path;
    return o;
  }
  std::vector<std::string> candidates;
  if (std::string p = find_program("ptxas"); !p.empty()) candidates.push_back(p);
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"})
    if (const char* h = std::getenv(var); h && *h)
      candidates.push_back(std::string(h) + "/bin/ptxas");
  candidates.push_back(std::string(KDET_DEFAULT_CUDA_HOME) + "/bin/ptxas");
  candidates.push_back("/usr/local/cuda/bin/ptxas");
  for (const auto& c : candidates)
    if (executable_file(c)) {
      o.ptxas = c;
      return o;
    }
  o.why_not = "ptxas not found; --ptxas PATH or KDET_PTXAS names it";
  return o;
}

std::map<std::string, PtxasFunction> parse_ptxas_verbose(std::string_view log) {
  // ptxas 13.0 -v, per function:
  //   ptxas info    : Compiling entry function 'k' for 'sm_80'
  //   ptxas info    : Function properties for k
  //       0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
  //   ptxas info    : Used 51 registers, used 1 barriers, 3072 bytes smem, 444 bytes cmem[0]
  static const std::regex compiling(R"(Compiling (?:entry )?function '([^']+)')");
  static const std::regex properties(R"(Function properties for (\S+))");
  static const std::regex frame(
      R"((\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads)");
  static const std::regex used(R"(Used (\d+) registers)");
  static const std::regex barriers(R"(used (\d+) barriers)");
  static const std::regex smem(R"((\d+) bytes smem)");
  static const std::regex cmem(R"((\d+) bytes cmem\[(\d+)\])");
  std::map<std::string, PtxasFunction> out;
  std::string current, props;
  size_t pos = 0;
  std::string text(log);
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(pos, end - pos);
    pos = end + 1;
    std::smatch m;
    if (std::regex_search(line, m, compiling)) {
      current = m[1];
      out[current];
    } else if (std::regex_search(line, m, properties)) {
      props = m[1];
    } else if (std::regex_search(line, m, frame) && !props.empty()) {
      PtxasFunction& f = out[props];
      f.stack_frame = std::stoull(m[1]);
      f.spill_stores = std::stoull(m[2]);
      f.spill_loads = std::stoull(m[3]);
    } else if (std::regex_search(line, m, used) && !current.empty()) {
      PtxasFunction& f = out[current];
      f.registers = static_cast<uint32_t>(std::stoul(m[1]));
      if (std::regex_search(line, m, barriers))
        f.barriers = static_cast<uint32_t>(std::stoul(m[1]));
      if (std::regex_search(line, m, smem)) f.shared = std::stoull(m[1]);
      for (auto it = std::sregex_iterator(line.begin(), line.end(), cmem);
           it != std::sregex_iterator(); ++it)
        f.constant[static_cast<uint32_t>(std::stoul((*it)[2]))] = std::stoull((*it)[1]);
    }
  }
  return out;
}

std::string ptx_target(std::string_view ptx) {
  size_t p = 0;
  while ((p = ptx.find(".target", p)) != std::string_view::npos) {
    bool line_start = p == 0 || ptx[p - 1] == '\n' || ptx[p - 1] == ' ' || ptx[p - 1] == '\t';
    p += 7;
    if (!line_start || p >= ptx.size() || (ptx[p] != ' ' && ptx[p] != '\t')) continue;
    size_t b = ptx.find_first_not_of(" \t", p);
    if (b == std::string_view::npos) return "";
    size_t e = ptx.find_first_of(" \t,\r\n", b);
    return std::string(ptx.substr(b, e == std::string_view::npos ? e : e - b));
  }
  return "";
}

Assembly assemble(const PtxasOptions& options, std::string_view ptx, const std::string& arch) {
  Assembly a;
  if (options.ptxas.empty()) {
    a.error = options.why_not;
    return a;
  }
  while (!ptx.empty() && ptx.back() == '\0')
    ptx.remove_suffix(1);
  std::string dir;
  try {
    dir = make_temp_dir("kdet-ptxas");
    write_file_synced(dir + "/in.ptx", ptx, true);
  } catch (const Error& e) {
    if (!dir.empty()) remove_tree(dir);
    a.error = fmt::format("cannot write the PTX for ptxas: {}", e.what());
    return a;
  }
  SpawnOptions so;
  so.argv = {options.ptxas, "-v", "-arch=" + arch, dir + "/in.ptx", "-o", dir + "/out.cubin"};
  so.cwd = dir;
  CapturedRun run = run_captured(so, options.timeout, k_max_log);
  a.log = run.err + run.out;
  if (!run.status.ok()) {
    std::string msg = error_line(run.err.empty() ? run.out : run.err);
    a.error = fmt::format("ptxas {}{}{}", run.status.describe(), msg.empty() ? "" : ": ", msg);
    remove_tree(dir);
    return a;
  }
  try {
    a.cubin = read_file(dir + "/out.cubin");
    a.ok = true;
  } catch (const Error& e) {
    a.error = fmt::format("ptxas exited 0 but left no cubin: {}", e.what());
  }
  remove_tree(dir);
  a.functions = parse_ptxas_verbose(a.log);
  return a;
}

} // namespace kdet::diff
