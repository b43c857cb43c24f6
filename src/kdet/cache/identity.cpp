//===- cache/identity.cpp - memoized compiler identity (hash + probed version) -===//
#include "kdet/cache/identity.hpp"

#include "kdet/backend/exec_template.hpp"
#include "kdet/engine/worker.hpp"
#include "kdet/util/error.hpp"
#include "kdet/util/exec.hpp"
#include "kdet/util/fs.hpp"
#include "kdet/util/hash.hpp"
#include "kdet/util/strings.hpp"
#include "kdet/util/tempdir.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <sys/stat.h>
#include <unistd.h>

namespace kdet::cache {

namespace {

// What identifies one version of a file on disk without reading it.
std::string stat_signature(const std::string& kind, const std::string& path, bool& ok) {
  struct stat st {};
  ok = ::stat(path.c_str(), &st) == 0;
  if (!ok) return {};
  Hasher h;
  h.add("kdet.cache.identity-memo/1").add(kind).add(path);
  h.add_u64(st.st_dev).add_u64(st.st_ino).add_u64(static_cast<uint64_t>(st.st_size));
  h.add_u64(static_cast<uint64_t>(st.st_mtim.tv_sec))
      .add_u64(static_cast<uint64_t>(st.st_mtim.tv_nsec));
  h.add_u64(static_cast<uint64_t>(st.st_ctim.tv_sec))
      .add_u64(static_cast<uint64_t>(st.st_ctim.tv_nsec));
  return h.hex();
}

std::string probe_version(const backend::BackendConfig& config, const std::string& file) {
  // An exec program is asked directly: a worker would only ask it the same.
  if (config.kind == backend::Kind::exec) return backend::exec_program_version(file);
  engine::WorkerLaunch launch;
  launch.backend = config;
  launch.env = current_environment();
  const TempDir temp("probe");
  const std::string& tmp = temp.path();
  launch.log_path = tmp + "/probe.log";
  engine::WorkerProcess probe;
  engine::HelloMessage hello;
  std::string error;
  if (!probe.start(launch, hello, error))
    throw Error::format("cannot load the {} compiler: {}", backend::to_string(config.kind), error);
  probe.stop();
  return hello.identity.version;
}

} // namespace

std::string compiler_file(const backend::BackendConfig& config) {
  std::string file;
  if (config.kind == backend::Kind::exec) {
    auto argv = backend::check_command_template(config.command, "--cmd");
    file = find_program(argv[0]);
    if (file.empty()) throw Error::format("--cmd: program '{}' not found in PATH", argv[0]);
  } else {
    file = config.lib.empty() ? backend::default_library_path(config.kind) : config.lib;
  }
  std::error_code ec;
  auto real = std::filesystem::canonical(file, ec);
  if (ec) throw Error::format("compiler {}: {}", file, ec.message());
  return real.string();
}

backend::Identity compiler_identity(const Store& store, const backend::BackendConfig& config) {
  backend::Identity id;
  id.backend = backend::to_string(config.kind);
  id.path = compiler_file(config);
  bool ok = false;
  std::string sig = stat_signature(id.backend, id.path, ok);
  if (!ok) throw Error::format("compiler {}: {}", id.path, std::strerror(errno));
  std::string memo = "identity/" + sig + ".json"; // beneath the cache's v1/, links refused
  std::string text;
  // Only a memo nobody else can have written: another member's could name another compiler's
  // content hash, and so serve this user that compiler's outputs.
  if (store.read_trusted(memo, text)) {
    auto j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_object() && j.value("path", "") == id.path && j.contains("content_hash") &&
        j.contains("version")) {
      id.content_hash = j["content_hash"].get<std::string>();
      id.version = j["version"].get<std::string>();
      return id;
    }
  }
  id.content_hash = hash_file(id.path);
  backend::BackendConfig probe = config;
  if (config.kind != backend::Kind::exec) probe.lib = id.path;
  id.version = probe_version(probe, id.path);
  // Memoize only when the file did not change while it was hashed and probed.
  bool still = false;
  if (stat_signature(id.backend, id.path, still) == sig && still) {
    nlohmann::json j = {{"path", id.path},
                        {"backend", id.backend},
                        {"content_hash", id.content_hash},
                        {"version", id.version}};
    store.write_atomic(memo, json_text(j) + "\n"); // best effort
  }
  return id;
}

} // namespace kdet::cache
