//===- capture/tap_recipes.cpp - which tapped stage which recipe replays -----===//
//
// The table of framework/stage pairs kdet replays in-process, and the options each
// reads from the kernel's kept files (tap_recipes.hpp). The bundles are written by
// tap_bundles.cpp.
//
//===----------------------------------------------------------------------===//
#include "kdet/capture/tap_recipes.hpp"

#include "kdet/util/error.hpp"
#include "kdet/util/fs.hpp"
#include "kdet/util/strings.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <map>
#include <nlohmann/json.hpp>

namespace kdet::capture {

namespace {

// The recipes kdet ships, embedded at build time (src/CMakeLists.txt).
const char k_llvmlite_ptx[] =
#include "kdet/capture/recipe_llvmlite_ptx.inc"
    ;
const char k_triton_stage[] =
#include "kdet/capture/recipe_triton_stage.inc"
    ;
const char k_cute_dsl[] =
#include "kdet/capture/recipe_cute_dsl.inc"
    ;

// The word after `key` at a line's start in PTX (".target sm_80, debug" -> "sm_80").
std::string ptx_word(const std::string& ptx, const std::string& key) {
  size_t at = ptx.starts_with(key) ? 0 : ptx.find('\n' + key);
  if (at == std::string::npos) return "";
  if (ptx[at] == '\n') ++at;
  size_t from = at + key.size();
  size_t to = ptx.find_first_of(", \t\r\n", from);
  return ptx.substr(from, to == std::string::npos ? std::string::npos : to - from);
}

// "7.8" -> "78"; "" when it is no PTX version.
std::string version_digits(const std::string& v) {
  size_t dot = v.find('.');
  if (dot == std::string::npos || dot == 0 || dot + 1 >= v.size()) return "";
  std::string out = v.substr(0, dot) + v.substr(dot + 1);
  bool digits = std::all_of(out.begin(), out.end(), [](char c) { return c >= '0' && c <= '9'; });
  return digits ? out : "";
}

// LLVM IR -> PTX through llvmlite: the target and PTX version the kept PTX names. Its
// optimisation level is in no file; the recipe's -O3 is taken (a replay that does not give the
// kept PTX back says so: kdet run BUNDLE, "NOT REPRODUCED").
std::vector<std::string> llvmlite_options(const TapStage& s, std::string& why) {
  std::string target = ptx_word(s.output, ".target ");
  if (!target.starts_with("sm_")) {
    why = "the kept PTX names no .target sm_NN";
    return {};
  }
  std::vector<std::string> o = {"-mcpu=" + target};
  if (std::string v = version_digits(ptx_word(s.output, ".version ")); !v.empty())
    o.push_back("-mattr=+ptx" + v);
  o.emplace_back("-O3");
  return o;
}

// A JSON number, or a string of digits after "sm_"/"sm" ("sm90a" -> 90); -1 when neither.
long capability(const nlohmann::json& v) {
  if (v.is_number_integer()) return v.get<long>();
  if (!v.is_string()) return -1;
  std::string s = v.get<std::string>();
  if (s.starts_with("sm_"))
    s = s.substr(3);
  else if (s.starts_with("sm"))
    s = s.substr(2);
  while (!s.empty() && (s.back() < '0' || s.back() > '9'))
    s.pop_back();
  if (s.empty() || !std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return -1;
  return std::stol(s);
}

// The options Triton's metadata (.json beside the kernel's stages) records for the recipe's
// --arch, --ptx-version, --no-fp-fusion and, for ttgir -> llir, --num-warps/ctas/stages.
std::vector<std::string> triton_options(const TapStage& s, bool layout, std::string& why) {
  nlohmann::json j = nlohmann::json::object();
  if (!s.metadata.empty()) {
    j = nlohmann::json::parse(s.metadata, nullptr, false);
    if (!j.is_object()) j = nlohmann::json::object();
  }
  long arch = -1;
  if (auto t = j.find("target"); t != j.end() && t->is_object() && t->contains("arch"))
    arch = capability((*t)["arch"]);
  for (const char* key : {"capability", "arch"})
    if (arch < 0 && j.contains(key)) arch = capability(j[key]);
  if (arch < 0) arch = capability(nlohmann::json(ptx_word(s.ptx, ".target ")));
  if (arch < 0) {
    why = "the capability Triton compiled for is in neither its .json nor a kept .ptx";
    return {};
  }
  std::vector<std::string> o = {fmt::format("--arch={}", arch)};
  if (auto v = j.find("ptx_version"); v != j.end() && v->is_number_integer())
    o.push_back(fmt::format("--ptx-version={}", v->get<long>()));
  else if (std::string d = version_digits(ptx_word(s.ptx, ".version ")); !d.empty())
    o.push_back("--ptx-version=" + d);
  if (auto v = j.find("enable_fp_fusion"); v != j.end() && v->is_boolean() && !v->get<bool>())
    o.emplace_back("--no-fp-fusion");
  if (layout)
    for (const char* key : {"num_warps", "num_ctas", "num_stages"})
      if (auto v = j.find(key); v != j.end() && v->is_number_integer()) {
        std::string name = key;
        std::replace(name.begin(), name.end(), '_', '-');
        o.push_back(fmt::format("--{}={}", name, v->get<long>()));
      }
  return o;
}

std::vector<std::string> triton_ptx_options(const TapStage& s, std::string& why) {
  return triton_options(s, false, why);
}
std::vector<std::string> triton_llir_options(const TapStage& s, std::string& why) {
  return triton_options(s, true, why);
}

// CuTe DSL's MLIR -> PTX: the pipeline CuTe DSL runs is in no kept file; kdet gives
// cute-to-nvvm for the chip the kept PTX names (or CUTE_DSL_ARCH), and the replay's
// "reproduced" line says whether that was the pipeline.
std::vector<std::string> cute_options(const TapStage& s, std::string& why) {
  std::string chip = ptx_word(s.ptx, ".target ");
  for (const auto& r : s.recorded)
    if (chip.empty() && r.starts_with("CUTE_DSL_ARCH=") && r != "CUTE_DSL_ARCH=(unset)")
      chip = r.substr(14);
  if (!chip.starts_with("sm_")) {
    why = "the chip CuTe DSL compiled for is in no kept .ptx nor CUTE_DSL_ARCH";
    return {};
  }
  return {fmt::format("--pipeline=builtin.module(cute-to-nvvm{{cubin-chip={}}})", chip)};
}

// One row per framework/stage pair (tap_recipes.hpp says how to add one).
const std::vector<TapRecipe> k_recipes = {
    {"artifacts", ".ll", ".ptx", "llvmlite_ptx.py", "compile", llvmlite_options},
    {"artifacts", ".bc", ".ptx", "llvmlite_ptx.py", "compile", llvmlite_options},
    {"triton", ".llir", ".ptx", "triton_stage.py", "llir_to_ptx", triton_ptx_options},
    {"triton", ".ttgir", ".llir", "triton_stage.py", "ttgir_to_llir", triton_llir_options},
    {"cute-dsl", ".mlir", ".ptx", "cute_dsl.py", "compile", cute_options},
};

std::string read_tap(const std::string& build_dir, const TapFile& t,
                     std::vector<std::string>& problems) {
  try {
    return read_file(build_dir + "/taps/" + t.rel);
  } catch (const Error& e) {
    problems.emplace_back(e.what());
    return "";
  }
}

} // namespace

const std::vector<TapRecipe>& tap_recipes() {
  return k_recipes;
}

const char* recipe_source(const std::string& file) {
  if (file == "llvmlite_ptx.py") return k_llvmlite_ptx;
  if (file == "triton_stage.py") return k_triton_stage;
  if (file == "cute_dsl.py") return k_cute_dsl;
  return nullptr;
}

const TapRecipe* find_tap_recipe(const TapFile& from, const TapFile& to) {
  if (from.framework != to.framework || from.group != to.group) return nullptr;
  for (const auto& r : k_recipes)
    if (from.framework == r.framework && from.rel.ends_with(r.from) && to.rel.ends_with(r.to))
      return &r;
  return nullptr;
}

std::vector<TapReplay> tap_replays(const std::vector<TapFile>& taps, const std::string& build_dir,
                                   const std::vector<std::string>& recorded,
                                   std::vector<std::string>& problems) {
  // The staged files of each kernel in stage order, and its metadata.
  std::map<std::string, std::vector<const TapFile*>> groups;
  std::map<std::string, const TapFile*> metadata;
  for (const auto& t : taps) {
    std::string key = t.framework + "\n" + t.group;
    if (t.cls == StageClass::none) {
      if (t.rel.ends_with(".json")) metadata.emplace(key, &t);
      continue;
    }
    groups[key].push_back(&t);
  }
  std::vector<TapReplay> out;
  for (auto& [key, files] : groups) {
    std::stable_sort(files.begin(), files.end(), [](const TapFile* a, const TapFile* b) {
      return a->rank != b->rank ? a->rank < b->rank : a->label < b->label;
    });
    for (size_t i = 1; i < files.size(); ++i) {
      const TapRecipe* r = find_tap_recipe(*files[i - 1], *files[i]);
      if (!r) continue;
      TapStage s;
      size_t known = problems.size();
      s.input = read_tap(build_dir, *files[i - 1], problems);
      s.output = read_tap(build_dir, *files[i], problems);
      for (size_t k = i; k < files.size() && s.ptx.empty(); ++k)
        if (files[k]->cls == StageClass::ptx)
          s.ptx = k == i ? s.output : read_tap(build_dir, *files[k], problems);
      if (auto m = metadata.find(key); m != metadata.end())
        s.metadata = read_tap(build_dir, *m->second, problems);
      s.recorded = recorded;
      if (problems.size() != known) continue; // a kept file that cannot be read
      std::string why;
      TapReplay rp;
      rp.options = r->options(s, why);
      if (!why.empty()) {
        problems.push_back(fmt::format("stage tap {} -> {}: not replayed: {}", files[i - 1]->rel,
                                       files[i]->rel, why));
        continue;
      }
      rp.recipe = r;
      rp.from = files[i - 1];
      rp.to = files[i];
      rp.input = std::move(s.input);
      rp.output = std::move(s.output);
      out.push_back(std::move(rp));
    }
  }
  return out;
}

} // namespace kdet::capture
