#include "kdet/store/run_dir.hpp"

#include "kdet/engine/variants.hpp"
#include "kdet/util/error.hpp"
#include "kdet/util/fs.hpp"
#include "kdet/util/stream.hpp"
#include "kdet/util/strings.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fmt/format.h>
#include <memory>
#include <mutex>
#include <set>
#include <sys/stat.h>
#include <unistd.h>

namespace kdet::store {

namespace {

// DIR opened as a folder (DIR itself may be a link: the user named it).
Fd open_out_dir(const std::string& dir) {
  Fd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!fd.ok()) throw Error::format("--out {}: {}", dir, std::strerror(errno));
  return fd;
}

} // namespace

std::string variant_dir_name(const std::string& id) {
  return id.substr(0, 12);
}

void prepare_run_dir(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  auto present = [&](const char* name) {
    struct stat st {};
    return ::lstat((dir + "/" + name).c_str(), &st) == 0;
  };
  if (present("result.json") || present("runs.jsonl"))
    throw Error::format(
        "--out {}: it already holds a kdet result; choose another folder or remove it "
        "(kdet never overwrites a recorded result)",
        dir);
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec))
    throw Error::format("--out {}: exists and is not a folder", dir);
  make_dirs(dir);
}

std::function<void(const engine::RunRecord&)>
run_log_appender(const std::string& dir, RecordToJson to_json,
                 std::function<void(const std::string&)> warn) {
  Fd d = open_out_dir(dir);
  // O_EXCL|O_NOFOLLOW: a planted runs.jsonl (or link) is refused, never appended to.
  Fd fd(::openat(d.get(), "runs.jsonl",
                 O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0644));
  if (!fd.ok())
    throw Error::format("--out {}: cannot create runs.jsonl: {}", dir, beneath_error(errno));
  struct Log {
    Fd fd;
    std::string dir;
    bool failed = false;
  };
  auto log = std::make_shared<Log>(Log{std::move(fd), dir});
  return [log, to_json = std::move(to_json), warn = std::move(warn)](const engine::RunRecord& r) {
    if (log->failed || !r.done) return;
    // One write() per line: a SIGKILL keeps every line written (the page cache outlives
    // the process); the whole file is fsynced and rewritten in run order at the end.
    std::string line = json_text(to_json(r), -1) + "\n";
    if (!write_all(log->fd.get(), line)) {
      log->failed = true;
      if (warn)
        warn(fmt::format("--out {}: cannot append to runs.jsonl ({}); it is written at the end",
                         log->dir, std::strerror(errno)));
    }
  };
}

void write_run_dir(const std::string& dir, const engine::RunOutput& out,
                   const nlohmann::json& result, const RecordToJson& to_json) {
  // Every path below DIR is reached from DIR's fd without following a link.
  Fd d = open_out_dir(dir);
  auto put = [&](const std::string& rel, std::string_view data) {
    write_file_beneath(d.get(), rel, data, dir + "/" + rel);
  };
  for (const auto& v : out.variants) {
    std::string vrel = "variants/" + variant_dir_name(v.id);
    for (const auto& a : v.artifacts) {
      if (a.name.empty() || a.name.find('/') != std::string::npos || a.name[0] == '.')
        throw Error::format("--out {}: artifact name '{}' is not a plain file name", dir, a.name);
      if (!a.file) {
        put(vrel + "/" + a.name, a.data);
        continue;
      }
      // A large artifact stays on disk: stream it across in bounded chunks.
      auto copy = [&](int fd) {
        bool ok = true;
        auto sr = stream_regular_file(a.file->path(), a.size, [&](std::string_view chunk) {
          ok = ok && write_all(fd, chunk);
        });
        return ok && sr.status == StreamResult::Status::ok;
      };
      write_file_beneath(d.get(), vrel + "/" + a.name, copy, dir + "/" + vrel + "/" + a.name);
    }
    if (v.status != backend::Status::ok) {
      std::string text = fmt::format("status: {}\ndetail: {}\nfirst run: {}\n",
                                     backend::to_string(v.status), v.detail, v.first_run + 1);
      const auto& rec = out.records[v.first_run];
      if (!rec.log.empty()) text += "\nlog:\n" + rec.log;
      put(vrel + "/failure.txt", text);
    }
  }
  std::set<std::string> logs_written;
  std::string lines;
  for (const auto& r : out.records) {
    if (!r.done) continue;
    lines += json_text(to_json(r), -1) + "\n";
    if (!r.log.empty() && logs_written.insert(r.log_hash).second)
      put(fmt::format("logs/{}.txt", r.log_hash.substr(0, 12)), r.log);
  }
  put("runs.jsonl", lines); // replaces the appended copy: the same records, in run order
  put("result.json", json_text(result) + "\n");
}

std::string resolve_variant(const std::string& dir, const std::string& id) {
  namespace fs = std::filesystem;
  std::string vdir = dir + "/variants";
  std::error_code ec;
  if (!fs::is_directory(vdir, ec))
    throw Error::format("{}: not a kdet run folder (no variants/ inside)", dir);
  std::vector<std::string> hits;
  for (const auto& e : fs::directory_iterator(vdir, ec)) {
    std::string name = e.path().filename().string();
    if (!e.is_directory()) continue;
    if (name == id) return e.path().string();
    if (name.rfind(id, 0) == 0 || id.rfind(name, 0) == 0) hits.push_back(e.path().string());
  }
  if (hits.size() == 1) return hits[0];
  if (hits.empty()) throw Error::format("{}: no variant matching '{}' in {}", dir, id, vdir);
  throw Error::format("{}: variant id '{}' is ambiguous ({} matches); give more digits", dir, id,
                      hits.size());
}

std::vector<std::pair<std::string, uint64_t>> variants_by_count(const std::string& dir) {
  std::string path = dir + "/result.json";
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(read_file(path));
  } catch (const nlohmann::json::exception& e) {
    throw Error::format("{}: not valid JSON: {}", path, e.what());
  }
  // "variants" is written most common first; sorting again keeps a hand-edited file right.
  if (!j.contains("variants") || !j["variants"].is_array())
    throw Error::format("{}: has no \"variants\" array", path);
  // Between two as common, the one listed first: its place in the file stands for its first run.
  struct Listed {
    std::string id;
    uint64_t count = 0, first_run = 0;
  };
  std::vector<Listed> listed;
  for (const auto& x : j["variants"]) {
    if (!x.is_object() || !x.contains("id") || !x["id"].is_string()) continue;
    const auto& count = x.contains("count") ? x["count"] : nlohmann::json();
    listed.push_back({x["id"].get<std::string>(),
                      count.is_number_unsigned() ? count.get<uint64_t>() : uint64_t{0},
                      listed.size()});
  }
  engine::order(listed);
  std::vector<std::pair<std::string, uint64_t>> v;
  v.reserve(listed.size());
  for (auto& x : listed)
    v.emplace_back(std::move(x.id), x.count);
  return v;
}

std::pair<std::string, std::string> two_most_common_variants(const std::string& dir) {
  auto v = variants_by_count(dir);
  if (v.size() < 2)
    throw Error::format("{}/result.json: {} variant{}, nothing to compare", dir, v.size(),
                        v.size() == 1 ? "" : "s");
  return {v[0].first, v[1].first};
}

} // namespace kdet::store
