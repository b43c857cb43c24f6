//===- cache/key.hpp - what a cache key covers, and where the cache lives ----===//
//
// A key is an XXH3-128 over everything that decides a compiler's output:
// input bytes, compiler identity (content hash + reported version), options,
// the exec command template, and the environment variables the user declared
// relevant. The file path of the compiler and of the input are recorded but
// do not enter the key (the cache is content-addressed). docs/CACHE.md.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kdet/backend/backend.hpp"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kdet::cache {

// The parts of a key. to_json() writes them out as the entry's key.json.
struct KeyMaterial {
  std::string backend;        // nvvm | nvrtc | nvjitlink | exec | capi
  backend::Identity compiler; // content_hash and version enter the key; path is recorded only
  std::vector<std::string>
      command;            // exec: template words after the program ({input}, {output} kept)
  std::string output_ext; // exec: extension of {output}
  std::vector<std::string> options; // in order
  std::vector<std::pair<std::string, std::optional<std::string>>>
      env;                // declared names (sorted), value or unset
  std::string input_hash; // hash_bytes(input)
  uint64_t input_size = 0;
  std::string input_name; // recorded only
  // Launcher mode: a hash over the other files the compile reads (headers from the compiler's
  // own dependency list, extra inputs); keyed only when not empty, so other keys are unchanged.
  std::string deps_hash;
  std::vector<std::string> deps; // their paths, recorded only
};

// The key: 32 hex digits. Changing any keyed part changes it.
std::string compute_key(const KeyMaterial& m);

// key.json content ("schema": "kdet.cache.key/1"), and back (throws Error on junk).
nlohmann::json to_json(const KeyMaterial& m);
KeyMaterial key_material_from_json(const nlohmann::json& j);

// Reads the declared variables from this process's environment, sorted by name;
// throws Error naming `option` for a name that is empty or contains '='.
std::vector<std::pair<std::string, std::optional<std::string>>>
read_env(const std::vector<std::string>& names, const std::string& option);

// The -arch=/--gpu-name=/-arch X value among the options, "" when none (shown in reports).
std::string target_of(const std::vector<std::string>& options);

// The cache folder: `dir` if given, else $KDET_CACHE_DIR, else $XDG_CACHE_HOME/kdet, else
// ~/.cache/kdet.
std::string resolve_cache_dir(const std::string& dir);

// Parses a verify rate: "1/32", "0.25", "1" (always), "0" (never); throws Error naming `option`.
double parse_verify_rate(const std::string& text, const std::string& option);

// True with probability `rate` (thread-safe; seeded from std::random_device).
bool sample(double rate);

// The default verify rate: 1 in 32 hits.
inline constexpr double k_default_verify_rate = 1.0 / 32.0;

} // namespace kdet::cache
