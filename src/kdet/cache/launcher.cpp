//===- cache/launcher.cpp - reading a compiler's command line for the cache -----===//
#include "kdet/cache/launcher.hpp"

#include "kdet/util/error.hpp"
#include "kdet/util/fs.hpp"
#include "kdet/util/hash.hpp"
#include "kdet/util/strings.hpp"

#include <array>
#include <cctype>
#include <sys/stat.h>

namespace kdet::cache {

namespace {

std::string base_name(const std::string& path) {
  auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

bool is_regular_file(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// Extensions a primary input has; any other existing file named is an extra input.
bool is_source(const std::string& path) {
  static const std::array<const char*, 12> exts = {"cu", "ptx", "c",    "cc",     "cpp",   "cxx",
                                                   "ll", "bc",  "nvvm", "fatbin", "cubin", "ltoir"};
  std::string e = file_extension(path);
  for (const char* x : exts)
    if (e == x) return true;
  return false;
}

// nvcc options whose next word is a value (an output or dependency name, never an input).
bool takes_output_value(const std::string& w) {
  return w == "-o" || w == "--output-file" || w == "-MF" || w == "--dependency-output" ||
         w == "-MT" || w == "--dependency-target-name" || w == "-MQ";
}

} // namespace

LaunchPlan plan_launch(const std::vector<std::string>& argv) {
  LaunchPlan p;
  if (argv.empty()) return p;
  const std::string tool = base_name(argv[0]);
  const bool nvcc = tool.starts_with("nvcc");
  const bool ptxas = tool.starts_with("ptxas");
  bool compile_only = false, depfile_wanted = false, has_target = false;
  std::string default_ext, odir;
  std::vector<std::string> files;
  p.command.push_back(argv[0]);
  p.deps_command.push_back(argv[0]);
  for (size_t i = 1; i < argv.size(); ++i) {
    const std::string& w = argv[i];
    bool has_next = i + 1 < argv.size();
    if ((w == "-o" || w == "--output-file") && has_next) {
      p.output = argv[i + 1];
      p.command.push_back(w), p.command.push_back(argv[++i]);
      continue;
    }
    if (w.starts_with("--output-file=") || w.starts_with("-o=")) {
      p.output = w.substr(w.find('=') + 1);
      p.command.push_back(w);
      continue;
    }
    if (nvcc && (w == "-MF" || w == "--dependency-output") && has_next) {
      p.depfile = argv[++i], depfile_wanted = true;
      continue; // kdet writes the dependency file from its own -M run
    }
    if (nvcc && (w == "-MD" || w == "-MMD" || w == "--generate-dependencies-with-compile" ||
                 w == "--generate-nonsystem-dependencies-with-compile")) {
      depfile_wanted = true;
      continue;
    }
    if (nvcc && (w == "-MT" || w == "--dependency-target-name") && has_next) {
      has_target = true;
      p.deps_command.push_back(w), p.deps_command.push_back(argv[++i]);
      continue;
    }
    if (nvcc && (w == "-M" || w == "-MM" || w == "-E" || w == "--preprocess" ||
                 w == "--generate-dependencies" || w == "-run" || w == "--run")) {
      p.why = w + " writes to stdout or runs a program";
      return p;
    }
    // nvcc -odir DIR: the default output goes to DIR (an -o name is not moved there).
    if (nvcc && (w == "-odir" || w == "--output-directory") && has_next) odir = argv[i + 1];
    if (nvcc && (w.starts_with("-odir=") || w.starts_with("--output-directory=")))
      odir = w.substr(w.find('=') + 1);
    // -optf FILE,...: the options a file holds change the compile, so its bytes enter the key
    // (FILE alone as the next word is found below as any existing file is).
    if ((nvcc || ptxas) && (w == "-optf" || w == "--options-file") && has_next)
      for (const auto& f : split(argv[i + 1], ','))
        if (f != argv[i + 1]) p.extra_inputs.push_back(f);
    if ((nvcc || ptxas) && (w.starts_with("-optf=") || w.starts_with("--options-file=")))
      for (const auto& f : split(w.substr(w.find('=') + 1), ','))
        p.extra_inputs.push_back(f);
    if (nvcc && (w == "-c" || w == "--compile")) compile_only = true, default_ext = "o";
    if (nvcc && (w == "-ptx" || w == "--ptx")) compile_only = true, default_ext = "ptx";
    if (nvcc && (w == "-cubin" || w == "--cubin")) compile_only = true, default_ext = "cubin";
    if (nvcc && (w == "-fatbin" || w == "--fatbin")) compile_only = true, default_ext = "fatbin";
    p.command.push_back(w);
    bool stage = w == "-c" || w == "--compile" || w == "-ptx" || w == "--ptx" || w == "-cubin" ||
                 w == "--cubin" || w == "-fatbin" || w == "--fatbin";
    if (!stage) p.deps_command.push_back(w);
    if (takes_output_value(w)) continue;
    if (!w.starts_with("-") && is_regular_file(w) && w != p.output) files.push_back(w);
  }
  for (const auto& f : files)
    if (p.input.empty() && is_source(f))
      p.input = f;
    else if (f != p.output)
      p.extra_inputs.push_back(f);
  if (p.input.empty()) {
    p.why = "no input file (.cu, .ptx, .c, .cpp, .ll, ...) among the arguments";
    return p;
  }
  if (p.output.empty()) {
    std::string stem = base_name(p.input);
    stem = stem.substr(0, stem.find_last_of('.'));
    if (nvcc && compile_only)
      p.output = (odir.empty() ? "" : odir + "/") + stem + "." + default_ext;
    else if (ptxas)
      p.output = "elf.o"; // ptxas's own default
    else {
      p.why = "no -o output file (and no default known for " + tool + ")";
      return p;
    }
    p.command.push_back("-o"), p.command.push_back(p.output);
  }
  if (nvcc && !compile_only) {
    p.why = "nvcc links (no -c, -ptx, -cubin or -fatbin)";
    return p;
  }
  if (nvcc) {
    p.deps_command.push_back("-M");
    if (!has_target) p.deps_command.push_back("-MT"), p.deps_command.push_back(p.output);
    if (depfile_wanted && p.depfile.empty())
      p.depfile = p.output.substr(0, p.output.find_last_of('.')) + ".d";
    p.key_env = {"NVCC_APPEND_FLAGS", "NVCC_CCBIN", "NVCC_PREPEND_FLAGS"};
  } else {
    p.deps_command.clear();
  }
  p.cacheable = true;
  return p;
}

std::vector<std::string> make_rule_files(const std::string& rule) {
  std::vector<std::string> out;
  size_t colon = std::string::npos;
  for (size_t i = 0; i < rule.size(); ++i)
    if (rule[i] == ':' &&
        (i + 1 == rule.size() || std::isspace(static_cast<unsigned char>(rule[i + 1])))) {
      colon = i;
      break;
    }
  if (colon == std::string::npos) return out;
  std::string cur;
  for (size_t i = colon + 1; i < rule.size(); ++i) {
    char c = rule[i];
    if (c == '\\' && i + 1 < rule.size()) {
      char n = rule[i + 1];
      if (n == '\n') {
        ++i;
        c = ' ';
      } else if (n == ' ') {
        cur += ' ', ++i;
        continue;
      }
    }
    if (std::isspace(static_cast<unsigned char>(c))) {
      if (!cur.empty()) out.push_back(cur), cur.clear();
      continue;
    }
    cur += c;
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

std::string files_hash(const std::vector<std::string>& files) {
  Hasher h;
  h.add_u64(files.size());
  for (const auto& f : files) {
    h.add(f);
    try {
      h.add_u64(1).add(hash_bytes(read_file(f)));
    } catch (const Error&) {
      h.add_u64(0);
    }
  }
  return h.hex();
}

} // namespace kdet::cache
