//===- capture/replay.cpp - `kdet run BUNDLE_DIR`: replay a captured compile ===//
#include "kdet/capture/replay.hpp"

#include "kdet/capture/bundle_pack.hpp"
#include "kdet/capture/kernel_names.hpp"
#include "kdet/capture/output.hpp"
#include "kdet/capture/records.hpp"
#include "kdet/util/error.hpp"
#include "kdet/util/fs.hpp"
#include "kdet/util/hash.hpp"
#include "kdet/util/strings.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <map>
#include <sys/stat.h>

namespace kdet::capture {

namespace {

// A bundle's files: in its folder, or in a pack (capture/bundle_pack.hpp), where a file that
// must be a path (the input kdet run compiles) is written out to a temporary folder, unless
// `materialize` is false (capture's own check of what it wrote names the path it will have).
struct BundleFiles {
  std::string dir;
  std::optional<PackedBundle> packed;
  bool materialize = true;
  std::string read(const std::string& rel) const {
    if (!packed) return read_file(dir + "/" + rel);
    std::optional<std::string> data = packed->read(rel);
    if (!data) throw Error::format("{}: bundle {} has no file {}", packed->index, packed->id, rel);
    return *data;
  }
  std::string path(const std::string& rel) const {
    if (packed && materialize) return materialize_file(*packed, rel);
    return dir + "/" + rel;
  }
};

constexpr const char* k_schema = k_bundle_schema;
// Schema 1 named a captured output by the hash of its bytes as the library handed them out
// (PTX with its trailing NUL); schema 2 by its artifact hash (util/hash.hpp); schema 3 says
// "nondeterministic" where 2 said "varies", a key replay never reads. All still read.
constexpr const char* k_schema_1 = "kdet.capture.bundle/1";
constexpr const char* k_schema_2 = "kdet.capture.bundle/2";

// bundle.json's hash of output `o`, whose file holds `data`, after checking that it is the
// file's hash by the bundle's definition: a file changed since capture would be audited
// against a hash that is not its own.
std::string recorded_hash(const nlohmann::json& o, const std::string& data, bool schema_1,
                          const std::string& path, const std::string& id) {
  std::string recorded = o.at("hash").get<std::string>();
  std::string kind = o.at("kind").get<std::string>();
  std::string file = o.at("file").get<std::string>();
  std::string now = artifact_hash(output_form(kind), data);
  if (recorded == now || (schema_1 && recorded == hash_bytes(data))) return recorded;
  throw Error::format("{}/{}: bundle {}'s output has content hash {}, not the {} its "
                      "bundle.json records: the file changed since the capture",
                      path, file, id, now, recorded);
}

// The first input becomes kdet run's input file: a non-lazy module, a source, or
// a link input whose file extension gives the backend its captured type.
bool first_input_ok(const std::string& kind, const nlohmann::json& in) {
  std::string tag = in.at("tag").get<std::string>();
  if (kind == "nvvm") return tag == "module" && !in.value("lazy", false);
  if (kind == "nvrtc") return tag == "source";
  if (tag != "jit_input" || in.at("file").is_null()) return false;
  // nvJitLinkInputType as the nvjitlink backend reads it from the extension.
  static const std::map<std::string, int> by_ext = {{"cubin", 1},  {"ptx", 2}, {"ltoir", 3},
                                                    {"fatbin", 4}, {"o", 5},   {"a", 6}};
  auto it = by_ext.find(file_extension(in.at("file").get<std::string>()));
  return in.value("type", 0) == (it == by_ext.end() ? 10 : it->second);
}

// The program's content hash, checked as a library's is: a replay must audit the captured file.
void check_compiler(const ReplayPlan& p, const nlohmann::json& j, const std::string& path) {
  struct stat st {};
  std::string hash = j.at("library").at("hash").get<std::string>();
  if (p.lib.empty() || ::stat(p.lib.c_str(), &st) != 0)
    throw Error::format("{}: bundle {} was compiled by {}, which is no longer there", path, p.id,
                        p.lib.empty() ? "an unidentified compiler" : p.lib);
  if (hash_file(p.lib) != hash)
    throw Error::format("{}: bundle {} was compiled by {} with content hash {}; that file has "
                        "changed since, so a replay would audit another compiler",
                        path, p.id, p.lib, hash);
}

// A command compile replays as an exec template: the captured program with its argv, whose
// input file is {input} and output {output} already (capture wrote them so). One input file and
// one output file: the exec backend gives a compile one of each.
ReplayPlan exec_replay_plan(ReplayPlan p, const nlohmann::json& j, const std::string& path,
                            const BundleFiles& fs) {
  const auto& inputs = j.at("inputs");
  auto refuse = [&](const std::string& why) {
    return Error::format("{}: bundle {} (exec) cannot be replayed yet: {}", path, p.id, why);
  };
  if (inputs.size() != 1 || inputs[0].at("file").is_null())
    throw refuse(
        fmt::format("kdet replays a command with one input file, and it has {}", inputs.size()));
  std::vector<std::string> argv = j.at("options").get<std::vector<std::string>>();
  size_t n_in = 0, n_out = 0;
  for (const auto& a : argv) {
    if (a.find("{tmpxft}") != std::string::npos)
      throw refuse("its command names one of nvcc's temporary files");
    n_in += a.find("{input}") != std::string::npos;
    n_out += a.find("{output}") != std::string::npos;
  }
  if (n_in != 1 || n_out != 1)
    throw refuse(fmt::format("its command names {} input and {} output files; kdet replays one "
                             "of each",
                             n_in, n_out));
  std::vector<std::string> kinds;
  for (const auto& o : j.at("outputs"))
    if (std::find(kinds.begin(), kinds.end(), o.at("kind").get<std::string>()) == kinds.end())
      kinds.push_back(o.at("kind").get<std::string>());
  if (kinds.size() > 1) throw refuse("it wrote more than one output file");
  p.input = fs.path(inputs[0].at("file").get<std::string>());
  p.lib = j.at("library").at("path").get<std::string>();
  check_compiler(p, j, path);
  argv.insert(argv.begin(), p.lib);
  p.command = shell_join(argv);
  for (const auto& o : j.at("outputs"))
    if (!o.at("file").is_null()) {
      std::string data = fs.read(o.at("file").get<std::string>());
      p.bundle_hashes.push_back(recorded_hash(o, data, j.at("schema") == k_schema_1, path, p.id));
      // The exec backend's artifact is the command's output file, of no kind it knows: bytes.
      p.expected.emplace_back("output", artifact_hash(ArtifactForm::bytes, data));
    }
  return p;
}

// A tapped stage replays as a Python stage: the recipe in the bundle folder (checked by content
// hash, as a library is), its function, the kept input and the options read at capture.
ReplayPlan python_replay_plan(ReplayPlan p, const nlohmann::json& j, const std::string& path,
                              const BundleFiles& fs) {
  const auto& inputs = j.at("inputs");
  if (inputs.size() != 1 || inputs[0].at("file").is_null())
    throw Error::format("{}: bundle {} (python) has {} input files; a Python stage takes one", path,
                        p.id, inputs.size());
  std::string file = j.at("recipe").at("file").get<std::string>();
  if (file.empty() || file[0] == '/' || file.find("..") != std::string::npos)
    throw Error::format("{}: bundle {}'s recipe {} is not a file inside the bundle folder", path,
                        p.id, file);
  p.input = fs.path(inputs[0].at("file").get<std::string>());
  p.lib = fs.path(file);
  p.function = j.at("recipe").at("function").get<std::string>();
  if (auto py = j.find("python"); py != j.end() && py->is_string()) p.python = *py;
  check_compiler(p, j, path);
  p.options = j.at("options").get<std::vector<std::string>>();
  for (const auto& o : j.at("outputs"))
    if (!o.at("file").is_null()) {
      std::string data = fs.read(o.at("file").get<std::string>());
      p.bundle_hashes.push_back(recorded_hash(o, data, false, path, p.id));
      // A Python stage's artifact is what its function returned, of no kind kdet knows: bytes.
      p.expected.emplace_back("output", artifact_hash(ArtifactForm::bytes, data));
    }
  return p;
}

// The bundle's kernels: its bundle.json's "kernels", or, for a bundle written before kdet
// recorded them, the entry names of its PTX outputs, else of its inputs.
std::vector<std::string> bundle_kernels(const nlohmann::json& j, const BundleFiles& fs) {
  if (auto k = j.find("kernels"); k != j.end() && k->is_array()) {
    std::vector<std::string> out;
    for (const auto& n : *k)
      if (n.is_string()) out.push_back(n.get<std::string>());
    return out;
  }
  std::vector<std::string> out;
  for (const char* list : {"outputs", "inputs"}) {
    auto files = j.find(list);
    if (files == j.end() || !files->is_array()) continue;
    for (const auto& f : *files) {
      auto file = f.find("file");
      if (file == f.end() || !file->is_string()) continue;
      std::string text;
      try {
        text = fs.read(file->get<std::string>());
      } catch (const Error&) {
        continue; // a missing file is named by the replay's own checks
      }
      for (auto& n : entry_names(text))
        if (std::find(out.begin(), out.end(), n) == out.end()) out.push_back(std::move(n));
    }
    if (!out.empty()) break;
  }
  return out;
}

} // namespace

std::optional<ReplayPlan> bundle_replay_plan(const std::string& path, bool materialize) {
  struct stat st {};
  BundleFiles fs{path, std::nullopt, materialize};
  std::string file = path + "/bundle.json";
  if (::stat(path.c_str(), &st) != 0) {
    // DIR/bundles/ID of a capture folder whose bundles are packed.
    std::optional<PackedPath> pp = packed_path(path);
    if (!pp || !pp->rest.empty()) return std::nullopt;
    fs.packed = find_packed_bundle(pp->bundles_dir, pp->id);
    if (!fs.packed)
      throw Error::format("{}: no bundle {} in {}/{}", path, pp->id, pp->bundles_dir,
                          k_bundle_index);
  } else if (!S_ISDIR(st.st_mode) || ::stat(file.c_str(), &st) != 0) {
    return std::nullopt;
  }
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(fs.read("bundle.json"));
    ReplayPlan p;
    p.bundle_dir = path;
    p.id = j.at("id").get<std::string>();
    p.kind = j.at("kind").get<std::string>();
    if (j.at("schema") != k_schema && j.at("schema") != k_schema_2 && j.at("schema") != k_schema_1)
      throw Error::format("{}: schema {} is not {} (nor {} or {}, which kdet still reads)", file,
                          j.at("schema").dump(), k_schema, k_schema_2, k_schema_1);
    const auto& inputs = j.at("inputs");
    p.kernels = bundle_kernels(j, fs);
    if (p.kind == "exec") return exec_replay_plan(std::move(p), j, path, fs);
    if (p.kind == "python") return python_replay_plan(std::move(p), j, path, fs);
    if (p.kind != "nvvm" && p.kind != "nvrtc" && p.kind != "nvjitlink")
      throw Error::format("{}: bundle {} is of kind {}, which kdet run cannot replay", path, p.id,
                          p.kind);
    if (inputs.empty() || !first_input_ok(p.kind, inputs[0]))
      throw Error::format("{}: bundle {} ({}) does not start with {}, so kdet run cannot replay it "
                          "(docs/CAPTURE.md)",
                          path, p.id, p.kind,
                          p.kind == "nvvm"    ? "a module added non-lazily"
                          : p.kind == "nvrtc" ? "a source"
                                              : "a link input of a type its file name says");
    for (size_t n = 0; n < inputs.size(); ++n) {
      const auto& in = inputs[n];
      std::string tag = in.at("tag").get<std::string>();
      if (tag != "name_expr" && in.at("file").is_null())
        throw Error::format("{}: bundle {} lacks the bytes of its input {} (the pipeline was "
                            "killed while storing them)",
                            path, p.id, n + 1);
      if (n == 0) {
        p.input = fs.path(in.at("file").get<std::string>());
        continue;
      }
      backend::InputPart part;
      if (!in.at("name").is_null()) part.name = in.at("name").get<std::string>();
      if (tag == "module")
        part.role = in.value("lazy", false) ? backend::InputPart::Role::lazy_module
                                            : backend::InputPart::Role::module;
      else if (tag == "header")
        part.role = backend::InputPart::Role::header;
      else if (tag == "name_expr")
        part.role = backend::InputPart::Role::name_expr;
      else if (tag == "jit_input")
        part.role = backend::InputPart::Role::jit_input;
      else
        throw Error::format(
            "{}: bundle {}: input {} has tag '{}', which a {} compile does not take", path, p.id,
            n + 1, tag, p.kind);
      part.jit_type = in.value("type", 0);
      if (tag != "name_expr") part.bytes = fs.read(in.at("file").get<std::string>());
      p.parts.push_back(std::move(part));
    }
    p.lib = j.at("library").at("path").get<std::string>();
    std::string lib_hash = j.at("library").at("hash").get<std::string>();
    if (p.lib.empty() || ::stat(p.lib.c_str(), &st) != 0)
      throw Error::format("{}: bundle {} was compiled by {}, which is no longer there", path, p.id,
                          p.lib.empty() ? "an unidentified library" : p.lib);
    if (hash_file(p.lib) != lib_hash)
      throw Error::format("{}: bundle {} was compiled by {} with content hash {}; that file has "
                          "changed since, so a replay would audit another compiler",
                          path, p.id, p.lib, lib_hash);
    p.options = j.at("options").get<std::vector<std::string>>();
    bool linked_ptx = false;
    for (const auto& o : j.at("outputs")) {
      if (o.at("file").is_null()) continue;
      std::string kind = o.at("kind").get<std::string>();
      // kdet's nvjitlink backend fetches the linked cubin only.
      if (p.kind == "nvjitlink" && kind == "ptx") {
        linked_ptx = true;
        continue;
      }
      std::string data = fs.read(o.at("file").get<std::string>());
      std::string name = kind == "nvvm" ? "ptx" : kind; // libNVVM's result is PTX
      p.bundle_hashes.push_back(recorded_hash(o, data, j.at("schema") == k_schema_1, path, p.id));
      p.expected.emplace_back(name, artifact_hash(backend::artifact_form(name), data));
    }
    if (linked_ptx && p.expected.empty())
      throw Error::format("{}: bundle {}'s pipeline fetched only the linked PTX, which kdet's "
                          "nvjitlink backend does not fetch, so a replay could not check it",
                          path, p.id);
    return p;
  } catch (const nlohmann::json::exception& e) {
    throw Error::format("{}: not a readable bundle ({})", file, e.what());
  }
}

nlohmann::json replay_json(const ReplayPlan& plan, const engine::RunOutput& out, bool& reproduced) {
  reproduced = true;
  nlohmann::json j = {{"bundle", plan.id},
                      {"kernels", plan.kernels},
                      {"library", plan.lib},
                      {"outputs", nlohmann::json::array()}};
  for (size_t i = 0; i < plan.expected.size(); ++i) {
    const auto& [name, hash] = plan.expected[i];
    uint64_t runs = 0;
    std::string variant; // the first (most common) variant that gave it back
    for (const auto& v : out.variants)
      for (const auto& a : v.artifacts)
        if (a.name == name && a.hash == hash) {
          runs += v.count;
          if (variant.empty()) variant = v.id;
        }
    if (runs == 0) reproduced = false;
    nlohmann::json o = {{"artifact", name}, {"hash", hash}, {"runs", runs}};
    // bundle.json's hash: the same, but for a schema 1 bundle's PTX (hashed with its NUL).
    if (i < plan.bundle_hashes.size()) o["bundle_hash"] = plan.bundle_hashes[i];
    if (!variant.empty()) o["variant"] = variant;
    j["outputs"].push_back(std::move(o));
  }
  j["completed"] = out.completed;
  j["reproduced"] = reproduced;
  return j;
}

std::string replay_text(const nlohmann::json& j) {
  std::string s = fmt::format("bundle    {} replayed with {}\n", j["bundle"].get<std::string>(),
                              j["library"].get<std::string>());
  // By entry name (shortened as every report does; --json has them in full).
  if (auto k = j.find("kernels"); k != j.end() && !k->empty())
    s += fmt::format("kernel    {}\n", display_names(k->get<std::vector<std::string>>()));
  for (const auto& o : j["outputs"]) {
    std::vector<std::string> names; // where else this output is named
    if (o.contains("variant"))
      names.push_back("variant " + o["variant"].get<std::string>().substr(0, 12));
    if (o.contains("bundle_hash") && o["bundle_hash"] != o["hash"])
      names.push_back("bundle.json " + o["bundle_hash"].get<std::string>());
    s += fmt::format("captured  {} {}: {} of {} runs gave it back{}{}\n",
                     o["artifact"].get<std::string>(), o["hash"].get<std::string>(),
                     o["runs"].get<uint64_t>(), j["completed"].get<uint64_t>(),
                     o["runs"].get<uint64_t>() == 0 ? " (NOT REPRODUCED)" : "",
                     names.empty() ? "" : fmt::format(" ({})", fmt::join(names, "; ")));
  }
  return s;
}

} // namespace kdet::capture

namespace kdet::capture {

void apply_replay(const ReplayPlan& plan, std::string& input, std::string& backend,
                  std::string& lib, std::vector<std::string>& options, std::string& command,
                  std::string* py, std::string* python) {
  if (!lib.empty() || !backend.empty() || !command.empty() || !options.empty() ||
      (py && !py->empty()))
    throw Error::format("{}: a bundle brings its own library, backend and options; give none of "
                        "--lib, --backend, --cmd, --py or options after --",
                        plan.bundle_dir);
  input = plan.input;
  backend = plan.kind;
  if (plan.kind == "python") {
    if (!py)
      throw Error::format("{}: bundle {} replays a tapped stage in Python (kdet run, explain and "
                          "scan take it), not here",
                          plan.bundle_dir, plan.id);
    *py = plan.lib + ":" + plan.function;
    if (python && python->empty()) *python = plan.python;
    options = plan.options;
    return;
  }
  if (plan.kind == "exec") {
    command = plan.command;
    return;
  }
  lib = plan.lib;
  options = plan.options;
}

void require_single_input(const ReplayPlan& plan, const std::string& command) {
  if (plan.parts.empty()) return;
  throw Error::format("bundle {} ({}, {} inputs) cannot be replayed yet by {}: it would compile "
                      "the first input alone; kdet run, explain and scan replay every input",
                      plan.id, plan.kind, plan.parts.size() + 1, command);
}

} // namespace kdet::capture
