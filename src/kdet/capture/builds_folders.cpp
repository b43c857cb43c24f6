//===- capture/builds_folders.cpp - the capture folders a comparison reads ---===//
//
// `capture compare` reads folders that travel as CI artifacts, so nothing in them is taken
// on trust: a build-K that is a link, no folder, holds no capture or did not finish is named
// (a failed build), never skipped; raw/records behind a link is never followed; capture.json
// is read as a bounded stream, and one that cannot be read makes how the pipeline ended
// unknown, which fails the build, never passes it (docs/CAPTURE.md, "Builds").
//
//===----------------------------------------------------------------------===//
#include "kdet/capture/builds.hpp"
#include "kdet/capture/builds_internal.hpp"
#include "kdet/util/error.hpp"
#include "kdet/util/fs.hpp"
#include "kdet/util/strings.hpp"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sys/stat.h>
#include <unistd.h>

namespace kdet::capture {

namespace {

// The pipeline's status in a capture.json, read as a stream (a capture.json lists every
// compile, so it grows with the build; nothing but these three values is kept).
class CaptureJsonReader : public nlohmann::json_sax<nlohmann::json> {
public:
  std::optional<std::string> status;
  std::optional<int> exit_code;
  std::optional<double> seconds;
  size_t compiles = 0; // the entries of the top-level "compiles" list
  bool object = false; // the document is an object
  std::string error;

  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t v) override { return integer(static_cast<long long>(v)); }
  bool number_unsigned(number_unsigned_t v) override {
    return integer(v > static_cast<number_unsigned_t>(INT_MAX) ? static_cast<long long>(INT_MAX) + 1
                                                               : static_cast<long long>(v));
  }
  bool number_float(number_float_t v, const string_t&) override {
    if (at_top("seconds")) seconds = v;
    return true;
  }
  bool string(string_t& v) override {
    if (in_pipeline("status")) status = v;
    return true;
  }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override {
    if (m_keys.empty()) object = true;
    if (at_top("pipeline")) m_pipeline_depth = m_keys.size() + 1;
    if (m_keys.size() == 2 && m_keys[0] == "compiles" && m_keys[1] == "[") ++compiles;
    m_keys.emplace_back();
    return true;
  }
  bool end_object() override {
    if (m_keys.size() == m_pipeline_depth) m_pipeline_depth = 0;
    m_keys.pop_back();
    return true;
  }
  bool start_array(std::size_t) override {
    m_keys.emplace_back("[");
    return true;
  }
  bool end_array() override {
    m_keys.pop_back();
    return true;
  }
  bool key(string_t& k) override {
    m_keys.back() = k;
    return true;
  }
  bool parse_error(std::size_t position, const std::string&,
                   const nlohmann::detail::exception&) override {
    error = fmt::format("is not JSON (at byte {})", position);
    return false;
  }

private:
  std::vector<std::string> m_keys; // per open container: its current key ("[" in an array)
  size_t m_pipeline_depth = 0;     // the depth inside the top-level "pipeline" object, 0 outside

  bool at_top(const char* k) const { return m_keys.size() == 1 && m_keys[0] == k; }
  bool in_pipeline(const char* k) const {
    return m_pipeline_depth && m_keys.size() == m_pipeline_depth && m_keys.back() == k;
  }
  bool integer(long long v) {
    if (in_pipeline("exit_code") && v >= INT_MIN && v <= INT_MAX) exit_code = static_cast<int>(v);
    if (at_top("seconds")) seconds = static_cast<double>(v);
    return true;
  }
};

// Far more than the capture.json of any build kdet can compare.
constexpr uint64_t k_max_capture_json = uint64_t{1} << 30;

// Why the file at `fd` (open or not) cannot be read as a capture.json, or "".
std::string capture_json_problem(const Fd& fd, int open_errno) {
  if (!fd.ok())
    return open_errno == ELOOP ? "is a link (kdet never follows a link inside a capture folder)"
                               : fmt::format("cannot be read: {}", std::strerror(open_errno));
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) return "is not a regular file";
  if (static_cast<uint64_t>(st.st_size) > k_max_capture_json)
    return fmt::format("is {}, more than kdet reads ({})",
                       human_bytes(static_cast<uint64_t>(st.st_size)),
                       human_bytes(k_max_capture_json));
  return "";
}

} // namespace

namespace detail {

void read_capture_json(const std::string& dir, BuildInfo& info) {
  Fd fd(::open((dir + "/capture.json").c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  int open_errno = errno;
  if (!fd.ok() && open_errno == ENOENT) return;
  std::string why = capture_json_problem(fd, open_errno);
  CaptureJsonReader reader;
  if (why.empty()) {
    std::FILE* f = ::fdopen(fd.get(), "r");
    if (!f) throw Error::format("{}/capture.json: {}", dir, std::strerror(errno));
    fd.release();
    nlohmann::json::sax_parse(f, &reader);
    std::fclose(f);
    if (!reader.error.empty())
      why = reader.error;
    else if (!reader.object || !reader.status || !reader.exit_code)
      why = "holds no pipeline status and exit code";
  }
  if (!why.empty()) {
    info.status_problem = "its capture.json " + why + ": how its pipeline ended is not known";
    info.pipeline_status = "unknown (capture.json unreadable)";
    return;
  }
  // One line, whatever the file holds: it is printed in a column.
  std::string status = terminal_text(reader.status->substr(0, 200));
  std::replace(status.begin(), status.end(), '\n', ' ');
  info.pipeline_status = status;
  info.pipeline_exit = *reader.exit_code;
  if (reader.seconds) info.seconds = *reader.seconds;
  info.listed = reader.compiles;
}

} // namespace detail

std::string capture_problem(const std::string& dir) {
  Fd top(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!top.ok()) return fmt::format("cannot be opened: {}", std::strerror(errno));
  Fd records(open_beneath(top.get(), "raw/records", O_RDONLY | O_DIRECTORY));
  if (records.ok()) return "";
  if (errno == ENOENT) return "holds no capture (no raw/records folder)";
  if (errno == ELOOP || errno == EXDEV)
    return "its raw/records is behind a link (kdet never follows a link inside a capture "
           "folder)";
  return fmt::format("its raw/records cannot be read: {}", std::strerror(errno));
}

namespace {

// A build-K entry of a --builds folder, and why it cannot be compared ("" when it can).
std::string build_folder_problem(const std::string& dir, bool canonical) {
  struct stat st {};
  if (!canonical) return "not a name kdet gives a build (build-K, K from 1, no leading 0)";
  if (::lstat(dir.c_str(), &st) != 0) return fmt::format("{}", std::strerror(errno));
  if (S_ISLNK(st.st_mode)) return "is a link (kdet never follows a link inside a capture folder)";
  if (!S_ISDIR(st.st_mode)) return "is not a folder";
  if (std::string why = capture_problem(dir); !why.empty()) return why;
  // capture.json is the last file a build writes: without it, the build never ended.
  if (::lstat((dir + "/capture.json").c_str(), &st) != 0 && errno == ENOENT)
    return "unfinished: it has no capture.json, which kdet writes when a build ends (kdet was "
           "stopped during this build)";
  return "";
}

} // namespace

std::vector<BuildInfo> capture_folders(const std::string& dir) {
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    throw Error::format("{}: not a folder (give a kdet capture --out folder)", dir);
  bool plain = ::lstat((dir + "/raw").c_str(), &st) == 0;
  // Every entry named build-DIGITS: a --builds folder's builds, each compared or named.
  std::vector<std::pair<long, BuildInfo>> found;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (dirent* e = ::readdir(d)) {
      std::string n = e->d_name;
      if (n.rfind("build-", 0) != 0) continue;
      std::string digits = n.substr(6);
      bool number = !digits.empty() && digits.find_first_not_of("0123456789") == std::string::npos;
      // build-logs and the like are no build's name; one that holds a capture is named.
      if (!number && ::lstat((dir + "/" + n + "/raw").c_str(), &st) != 0) continue;
      bool canonical = number && digits.size() <= 6 && digits[0] != '0';
      BuildInfo info;
      info.dir = dir + "/" + n;
      info.not_compared = build_folder_problem(info.dir, canonical);
      found.emplace_back(canonical ? std::stol(digits) : LONG_MAX, std::move(info));
    }
    ::closedir(d);
  }
  if (plain) {
    if (!found.empty())
      throw Error::format("{}: holds a capture (raw/) and build folders ({}) both; give the "
                          "capture folder or the --builds folder, not one inside the other",
                          dir, found.front().second.dir);
    BuildInfo info;
    info.dir = dir;
    info.not_compared = capture_problem(dir);
    // A capture writes capture.json as it ends, `--finish` bundles/ and manifest.toml: with
    // none of them, kdet capture was stopped before it ended (or still runs).
    auto absent = [&](const char* name) {
      return ::lstat((dir + "/" + name).c_str(), &st) != 0 && errno == ENOENT;
    };
    if (info.not_compared.empty() && absent("capture.json") && absent("manifest.toml"))
      info.not_compared = "unfinished: it has no capture.json, which kdet capture writes as it "
                          "ends, and no manifest.toml (kdet capture was stopped, or still runs; "
                          "`kdet capture --finish --out DIR` finishes a stopped one)";
    return {info};
  }
  if (found.empty())
    throw Error::format("{}: holds no capture (no raw/records, and no build-K folders with one)",
                        dir);
  // A build that ran before the last one left is missing: removed since (builds run in order of
  // K, and only the last, interrupted one is removed by kdet).
  std::set<long> ks;
  for (const auto& [k, info] : found)
    if (k != LONG_MAX) ks.insert(k);
  for (long k = 1; !ks.empty() && k < *ks.rbegin(); ++k)
    if (!ks.count(k)) {
      BuildInfo info;
      info.dir = fmt::format("{}/build-{}", dir, k);
      info.not_compared = fmt::format("is missing, though build-{} is there: removed after it "
                                      "ran",
                                      *ks.rbegin());
      found.emplace_back(k, std::move(info));
    }
  std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first < b.first : a.second.dir < b.second.dir;
  });
  std::vector<BuildInfo> out;
  out.reserve(found.size());
  for (auto& [k, info] : found)
    out.push_back(std::move(info));
  return out;
}

} // namespace kdet::capture
