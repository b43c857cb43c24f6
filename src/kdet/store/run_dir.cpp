#include "kdet/store/run_dir.hpp"

#include "kdet/report/run_report.hpp"
#include "kdet/util/error.hpp"
#include "kdet/util/fs.hpp"
#include "kdet/util/strings.hpp"

#include <filesystem>
#include <fmt/format.h>
#include <set>

namespace kdet::store {

std::string variant_dir_name(const std::string& id) { return id.substr(0, 12); }

void prepare_run_dir(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists(dir + "/result.json", ec) || fs::exists(dir + "/runs.jsonl", ec))
    throw Error::format("--out {}: it already holds a kdet result; choose another folder or remove it "
                        "(kdet never overwrites a recorded result)",
                        dir);
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec))
    throw Error::format("--out {}: exists and is not a folder", dir);
  make_dirs(dir);
}

void write_run_dir(const std::string& dir, const engine::RunOutput& out, const nlohmann::json& result) {
  make_dirs(dir + "/variants");
  for (const auto& v : out.variants) {
    std::string vdir = dir + "/variants/" + variant_dir_name(v.id);
    make_dirs(vdir);
    for (const auto& a : v.artifacts) write_file_atomic(vdir + "/" + a.name, a.data);
    if (v.status != backend::Status::ok) {
      std::string text = fmt::format("status: {}\ndetail: {}\nfirst run: {}\n", backend::to_string(v.status),
                                     v.detail, v.first_run + 1);
      const auto& rec = out.records[v.first_run];
      if (!rec.log.empty()) text += "\nlog:\n" + rec.log;
      write_file_atomic(vdir + "/failure.txt", text);
    }
  }
  std::set<std::string> logs_written;
  std::string lines;
  for (const auto& r : out.records) {
    if (!r.done) continue;
    lines += json_text(report::record_to_json(r), -1) + "\n";
    if (!r.log.empty() && logs_written.insert(r.log_hash).second) {
      make_dirs(dir + "/logs");
      write_file_atomic(fmt::format("{}/logs/{}.txt", dir, r.log_hash.substr(0, 12)), r.log);
    }
  }
  write_file_atomic(dir + "/runs.jsonl", lines);
  write_file_atomic(dir + "/result.json", json_text(result) + "\n");
}

} // namespace kdet::store
