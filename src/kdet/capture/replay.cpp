//===- capture/replay.cpp - `kdet run BUNDLE_DIR`: replay a captured compile ===//
#include "kdet/capture/replay.hpp"

#include "kdet/util/error.hpp"
#include "kdet/util/fs.hpp"
#include "kdet/util/hash.hpp"

#include <fmt/format.h>
#include <sys/stat.h>

namespace kdet::capture {

namespace {

// kdet's backends keep PTX without its trailing NUL(s); libraries hand it out with one.
std::string as_backend_keeps(const std::string& kind, std::string data) {
  if (kind == "nvvm" || kind == "ptx")
    while (!data.empty() && data.back() == '\0')
      data.pop_back();
  return data;
}

} // namespace

std::optional<ReplayPlan> bundle_replay_plan(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return std::nullopt;
  std::string file = path + "/bundle.json";
  if (::stat(file.c_str(), &st) != 0) return std::nullopt;
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(read_file(file));
    ReplayPlan p;
    p.bundle_dir = path;
    p.id = j.at("id").get<std::string>();
    p.kind = j.at("kind").get<std::string>();
    if (j.at("schema") != "kdet.capture.bundle/1")
      throw Error::format("{}: schema {} is not kdet.capture.bundle/1", file,
                          j.at("schema").dump());
    const auto& inputs = j.at("inputs");
    bool single = inputs.size() == 1 && !inputs[0].value("lazy", false) &&
                  inputs[0].at("tag") == (p.kind == "nvvm" ? "module" : "source");
    if ((p.kind != "nvvm" && p.kind != "nvrtc") || !single)
      throw Error::format(
          "{}: bundle {} ({}, {} inputs) cannot be replayed yet: kdet run replays one NVVM module "
          "or one NVRTC source without headers (docs/CAPTURE.md)",
          path, p.id, p.kind, inputs.size());
    if (inputs[0].at("file").is_null())
      throw Error::format("{}: bundle {} lacks its input's bytes (the pipeline was killed while "
                          "storing them)",
                          path, p.id);
    p.input = path + "/" + inputs[0].at("file").get<std::string>();
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
    for (const auto& o : j.at("outputs")) {
      if (o.at("file").is_null()) continue;
      std::string kind = o.at("kind").get<std::string>();
      std::string data = read_file(path + "/" + o.at("file").get<std::string>());
      p.expected.emplace_back(kind == "nvvm" ? "ptx" : kind,
                              hash_bytes(as_backend_keeps(kind, std::move(data))));
    }
    return p;
  } catch (const nlohmann::json::exception& e) {
    throw Error::format("{}: not a readable bundle ({})", file, e.what());
  }
}

nlohmann::json replay_json(const ReplayPlan& plan, const engine::RunOutput& out, bool& reproduced) {
  reproduced = true;
  nlohmann::json j = {
      {"bundle", plan.id}, {"library", plan.lib}, {"outputs", nlohmann::json::array()}};
  for (const auto& [name, hash] : plan.expected) {
    uint64_t runs = 0;
    for (const auto& v : out.variants)
      for (const auto& a : v.artifacts)
        if (a.name == name && a.hash == hash) runs += v.count;
    if (runs == 0) reproduced = false;
    j["outputs"].push_back({{"artifact", name}, {"hash", hash}, {"runs", runs}});
  }
  j["completed"] = out.completed;
  j["reproduced"] = reproduced;
  return j;
}

std::string replay_text(const nlohmann::json& j) {
  std::string s = fmt::format("bundle    {} replayed with {}\n", j["bundle"].get<std::string>(),
                              j["library"].get<std::string>());
  for (const auto& o : j["outputs"])
    s += fmt::format("captured  {} {}: {} of {} runs gave it back{}\n",
                     o["artifact"].get<std::string>(), o["hash"].get<std::string>(),
                     o["runs"].get<uint64_t>(), j["completed"].get<uint64_t>(),
                     o["runs"].get<uint64_t>() == 0 ? " (NOT REPRODUCED)" : "");
  return s;
}

} // namespace kdet::capture

namespace kdet::capture {

void apply_replay(const ReplayPlan& plan, std::string& input, std::string& backend,
                  std::string& lib, std::vector<std::string>& options, const std::string& command) {
  if (!lib.empty() || !backend.empty() || !command.empty() || !options.empty())
    throw Error::format("{}: a bundle brings its own library, backend and options; give none of "
                        "--lib, --backend, --cmd or options after --",
                        plan.bundle_dir);
  input = plan.input;
  backend = plan.kind;
  lib = plan.lib;
  options = plan.options;
}

} // namespace kdet::capture
