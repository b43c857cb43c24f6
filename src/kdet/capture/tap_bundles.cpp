//===- capture/tap_bundles.cpp - bundle folders of tapped stages -------------===//
//
// Writes a bundle of kind "python" for each tapped stage that a shipped recipe
// replays (tap_recipes.hpp): bundle.json, the recipe under recipe/, the kept
// input under inputs/, the kept output under outputs/; and taps/replays.tsv, which
// names the bundle of each kept output for the builds report's next command.
//
//===----------------------------------------------------------------------===//
#include "kdet/capture/kernel_names.hpp"
#include "kdet/capture/output.hpp"
#include "kdet/capture/tap_recipes.hpp"
#include "kdet/util/error.hpp"
#include "kdet/util/fs.hpp"
#include "kdet/util/hash.hpp"
#include "kdet/util/strings.hpp"

#include <fmt/format.h>
#include <sys/stat.h>

namespace kdet::capture {

namespace {

// The bundle of one replay (not yet written).
Bundle tap_bundle(const TapReplay& r, const std::string& recipe_text) {
  Bundle b;
  b.kind = "python";
  b.lib = std::string("recipe/") + r.recipe->recipe;
  b.lib_hash = hash_bytes(recipe_text);
  b.lib_size = recipe_text.size();
  b.function = r.recipe->function;
  Input in;
  in.tag = "file";
  in.hash = r.from->hash;
  in.size = r.input.size();
  in.name = "taps/" + r.from->rel;
  b.inputs.push_back(std::move(in));
  b.options = r.options;
  Hasher h;
  h.add("kdet.capture.tap/1").add(b.kind).add(b.lib_hash).add(b.function).add(r.from->hash);
  h.add_u64(b.options.size());
  for (const auto& o : b.options)
    h.add(o);
  b.id = h.hex().substr(0, 16);
  b.compiles = 1;
  b.results[0] = 1;
  std::string kind = file_extension(r.to->rel);
  std::string hash = artifact_hash(output_form(kind), r.output);
  b.outputs.emplace_back(kind, hash);
  b.counts[{kind, hash}] = 1;
  b.sizes[hash] = r.output.size();
  b.kernels = entry_names(r.output);
  if (b.kernels.empty()) b.kernels = entry_names(r.input);
  return b;
}

} // namespace

std::vector<Bundle> write_tap_bundles(int out_fd, const std::string& shown,
                                      const std::vector<TapFile>& taps,
                                      const std::vector<std::string>& recorded,
                                      std::vector<std::string>& problems) {
  std::vector<Bundle> out;
  std::string index;
  for (const auto& r : tap_replays(taps, shown, recorded, problems)) {
    const char* text = recipe_source(r.recipe->recipe);
    if (!text) {
      problems.push_back(
          fmt::format("stage tap {}: kdet has no recipe {}", r.to->rel, r.recipe->recipe));
      continue;
    }
    Bundle b = tap_bundle(r, text);
    std::string dir = "bundles/" + b.id;
    nlohmann::json j = bundle_json(b);
    j["tap"] = {{"framework", r.from->framework},
                {"input", "taps/" + r.from->rel},
                {"output", "taps/" + r.to->rel}};
    std::string input = j["inputs"][0]["file"].get<std::string>();
    std::string output = j["outputs"][0]["file"].get<std::string>();
    // Named: a temporary in the loop's range would be gone before the body reads it.
    const std::string meta = json_text(j) + "\n";
    try {
      for (const auto& [rel, data] : {std::pair<std::string, std::string_view>{b.lib, text},
                                      {input, r.input},
                                      {output, r.output},
                                      {"bundle.json", meta}})
        write_file_beneath(out_fd, dir + "/" + rel, data, shown + "/" + dir + "/" + rel);
    } catch (const Error& e) {
      problems.emplace_back(e.what());
      continue;
    }
    index += fmt::format("taps/{}\t{}\n", r.to->rel, b.id);
    out.push_back(std::move(b));
  }
  if (!index.empty()) {
    try {
      write_file_beneath(out_fd, "taps/replays.tsv", index, shown + "/taps/replays.tsv");
    } catch (const Error& e) {
      problems.emplace_back(e.what());
    }
  }
  return out;
}

std::string tap_replay_bundle(const std::string& dir, const std::string& file) {
  std::string path = dir + "/taps/replays.tsv";
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return "";
  std::string text;
  try {
    text = read_file(path);
  } catch (const Error&) {
    return "";
  }
  for (const auto& line : split(text, '\n')) {
    auto f = split(line, '\t');
    if (f.size() != 2 || f[0] != file) continue;
    // An id as kdet writes them (16 hex digits) whose folder is there.
    bool hex = f[1].size() == 16 && f[1].find_first_not_of("0123456789abcdef") == std::string::npos;
    std::string bundle = dir + "/bundles/" + f[1];
    if (hex && ::lstat(bundle.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) return f[1];
  }
  return "";
}

} // namespace kdet::capture
