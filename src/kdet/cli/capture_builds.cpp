//===- cli/capture_builds.cpp - `kdet capture --builds N` and `capture compare` ===//
//
// --builds N runs the pipeline N times as cold builds (every kernel cache kdet
// knows of gets a fresh empty folder, DIR/caches/NAME, the same path in every
// build so that paths in generated code do not differ for that alone), captures
// build K into DIR/build-K, then compares the builds kernel by kernel
// (capture/builds). `capture compare` makes the same comparison of captures made
// apart. docs/CAPTURE.md, "Builds".
//
//===----------------------------------------------------------------------===//
#include "kdet/capture/blobs.hpp"
#include "kdet/capture/builds.hpp"
#include "kdet/capture/bundle_pack.hpp"
#include "kdet/capture/output.hpp"
#include "kdet/capture/records.hpp"
#include "kdet/capture/tap_recipes.hpp"
#include "kdet/capture/taps.hpp"
#include "kdet/cli/annotations.hpp"
#include "kdet/cli/capture_pipeline.hpp"
#include "kdet/cli/output.hpp"
#include "kdet/diff/ptxas.hpp"
#include "kdet/engine/interrupt.hpp"
#include "kdet/report/builds_report.hpp"
#include "kdet/util/error.hpp"
#include "kdet/util/fs.hpp"
#include "kdet/util/strings.hpp"

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <memory>
#include <set>
#include <sys/stat.h>
#include <unistd.h>

namespace kdet::cli {

namespace {

struct ReportArgs {
  OutputArgs out;
  std::string junit, html;
  bool annotations = false; // --annotations
  bool no_reach = false;    // --no-reach
};

// Checks the report paths before any build runs (a summary must not be lost after them).
void check_report_paths(const ReportArgs& r, const std::string& out_dir) {
  check_output_path(names_stdout(r.out.json_path) ? "" : r.out.json_path, "--json");
  for (auto [path, name] : {std::pair{r.junit, "--junit"}, {r.html, "--report-html"}})
    if (!path.empty() && names_stdout(path))
      throw Error::format("{} {}: only --json may go to stdout (one document there); give {} "
                          "FILE",
                          name, path, name);
  check_output_path(r.junit, "--junit");
  check_output_path(r.html, "--report-html");
  for (auto [path, name] :
       {std::pair{r.out.json_path, "--json"}, {r.junit, "--junit"}, {r.html, "--report-html"}})
    if (!path.empty() && !out_dir.empty() && absolute_path(path) == absolute_path(out_dir))
      throw Error::format("{} and --out name the same path; {} is a file, --out a folder", name,
                          name);
}

int write_reports(capture::BuildsResult& r, const ReportArgs& a) {
  Output out(a.out);
  if (!a.no_reach) capture::add_reaches(r, diff::find_ptxas("", "KDET_PTXAS"));
  // Names, paths and messages come from capture folders, which travel as CI artifacts.
  out.print_text(terminal_text(report::builds_to_text(r, out.color()), out.color()));
  // Only when asked: the document holds every kernel, kilobytes each.
  if (!a.out.json_path.empty()) out.write_json(report::builds_to_json(r));
  if (!a.junit.empty()) write_output(a.junit, report::builds_to_junit(r), "--junit");
  if (!a.html.empty()) write_output(a.html, report::builds_to_html(r), "--report-html");
  if (a.annotations) std::fputs(builds_annotations(r).c_str(), stderr);
  if (r.interrupted) throw Interrupted();
  return report::builds_exit_code(r);
}

// Makes DIR (its parent must exist); refuses one that already holds builds or a capture.
Fd prepare_builds_out(const std::string& dir) {
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0 && (errno != ENOENT || ::mkdir(dir.c_str(), 0755) != 0))
    throw Error::format("--out {}: cannot create the folder: {}", dir, std::strerror(errno));
  Fd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW));
  if (!fd.ok()) throw Error::format("--out {}: {} (a folder is needed)", dir, std::strerror(errno));
  for (const char* name : {"raw", "bundles", "manifest.toml", "build-1", "caches", "packs"})
    if (::fstatat(fd.get(), name, &st, AT_SYMLINK_NOFOLLOW) == 0)
      throw Error::format("--out {}: it already holds a capture ({} exists); choose another folder "
                          "or remove it (kdet never overwrites a recorded capture)",
                          dir, name);
  return fd;
}

// Empties DIR/caches and makes one fresh folder per known cache; returns the variables.
std::vector<std::string> fresh_caches(int dir_fd, const std::string& abs_dir) {
  remove_tree_beneath(dir_fd, "caches");
  std::vector<std::string> env;
  for (const auto& c : capture::known_caches()) {
    std::string rel = std::string("caches/") + c.name;
    Fd made(make_dirs_beneath(dir_fd, rel, 0700));
    if (!made.ok())
      throw Error::format("cannot create {}/{}: {}", abs_dir, rel, beneath_error(errno));
    env.push_back(std::string(c.variable) + "=" + abs_dir + "/" + rel);
  }
  return env;
}

// The last `n` lines of a log, indented, for a failed build's message.
std::string log_tail(int dir_fd, const std::string& rel, size_t n) {
  Fd fd(open_beneath(dir_fd, rel, O_RDONLY | O_NONBLOCK));
  if (!fd.ok()) return "";
  std::string text;
  char buf[65536];
  ssize_t got;
  while ((got = ::read(fd.get(), buf, sizeof buf)) > 0) {
    text.append(buf, static_cast<size_t>(got));
    if (text.size() > (1u << 20)) text.erase(0, text.size() - (1u << 19));
  }
  auto lines = split(text, '\n');
  while (!lines.empty() && lines.back().empty())
    lines.pop_back();
  std::string out;
  for (size_t i = lines.size() > n ? lines.size() - n : 0; i < lines.size(); ++i)
    out += "    | " + terminal_text(lines[i]) + "\n";
  return out;
}

// Runs --clean CMD through /bin/sh with its output in the build's log; false when it fails.
bool run_clean(const std::string& cmd, int log_fd, std::string& why) {
  SpawnOptions opt;
  opt.argv = {"/bin/sh", "-c", cmd};
  opt.guard = true;
  opt.inherit_fds = true; // the caller's descriptors, as without kdet
  opt.new_process_group = false;
  opt.fds = {{0, -1}, {1, log_fd}, {2, log_fd}};
  ExitStatus st;
  pid_t pid = spawn(opt, st);
  if (pid < 0) {
    why = st.describe();
    return false;
  }
  st = wait_child(pid, std::nullopt, engine::interrupt_fd());
  why = st.describe();
  return st.kind == ExitStatus::Kind::exited && st.code == 0;
}

// Where a build keeps its stage taps: the pipeline's working folder (for --artifacts), the
// recorded variables, and the frameworks whose files were kept (added to).
struct TapPlace {
  std::string cwd;
  std::vector<std::string> recorded;
  std::set<std::string> tapped;
};

// One build: runs the pipeline into DIR/build-K, keeps its stage taps, writes its bundles (those
// of tapped stages a recipe replays too) and capture.json.
capture::BuildInfo run_build(const BuildsArgs& a, const CaptureTools& tools, int dir_fd,
                             const std::string& abs_dir, int k, const std::vector<std::string>& env,
                             TapPlace& taps, std::string& failure,
                             capture::BundlePackWriter* pack) {
  BuildVary vary = vary_for(a.vary, k);
  std::string sub = fmt::format("build-{}", k);
  for (const char* part : {"/raw/records", "/raw/blobs", "/raw/notes"}) {
    Fd made(make_dirs_beneath(dir_fd, sub + part, 0755));
    if (!made.ok())
      throw Error::format("--out {}: cannot create {}{}: {}", a.out, sub, part,
                          beneath_error(errno));
  }
  capture::BuildInfo info;
  info.dir = a.out + "/" + sub;
  info.log = info.dir + "/pipeline.log";
  Fd log(open_beneath(dir_fd, sub + "/pipeline.log", O_WRONLY | O_CREAT | O_EXCL | O_APPEND, 0644));
  if (!log.ok())
    throw Error::format("--out {}: cannot create {}/pipeline.log: {}", a.out, sub,
                        beneath_error(errno));
  std::string why;
  if (!a.clean.empty() && !run_clean(a.clean, log.get(), why)) {
    info.pipeline_status = "not run (--clean " + why + ")";
    failure =
        fmt::format("build {}: --clean {}, so the build did not run; its log {}", k, why, info.log);
    return info;
  }
  capture::CaptureResult cr;
  cr.children.seen = true;
  cr.children.limit_s = a.wait_children;
  ExitStatus st = run_captured(tools, a.command, abs_dir + "/" + sub + "/raw", env,
                               {{0, -1}, {1, log.get()}, {2, log.get()}}, cr.seconds,
                               &cr.children.report, &vary);
  cr.command = a.command;
  cr.out_dir = info.dir;
  cr.pipeline_status = st.describe();
  cr.pipeline_exit = pipeline_exit_code(st);
  std::string raw = abs_dir + "/" + sub + "/raw";
  cr.compiles = capture::read_records(raw, cr.problems);
  cr.notes = capture::read_notes(raw, cr.problems);
  capture::BlobStore blobs(raw, cr.problems);
  cr.bundles = capture::bundle_records(cr.compiles, blobs);
  capture::find_compilers_inside(raw, cr);
  capture::find_loads(raw, blobs, cr);
  // Compiles lost, programs started without the preload, children killed: said per build.
  std::string lost = capture::notes_summary(cr.notes, cr.children);
  if (!lost.empty())
    std::fprintf(stderr, "kdet capture: build %d:\n%s", k, terminal_text(lost).c_str());
  Fd sub_fd(open_beneath(dir_fd, sub, O_RDONLY | O_DIRECTORY));
  if (!sub_fd.ok())
    throw Error::format("--out {}: cannot open {}: {}", a.out, sub, beneath_error(errno));
  capture::note_missing_blobs(blobs, cr.bundles, cr.problems);
  if (!engine::interrupted()) {
    std::vector<capture::TapFile> kept =
        capture::keep_taps(sub_fd.get(), info.dir, abs_dir, a.artifacts, taps.cwd, info.problems);
    for (const auto& t : kept)
      taps.tapped.insert(t.framework);
    for (auto& b :
         capture::write_tap_bundles(sub_fd.get(), info.dir, kept, taps.recorded, info.problems))
      cr.bundles.push_back(std::move(b));
  }
  capture::write_bundles(sub_fd.get(), info.dir, blobs, cr.bundles, pack);
  capture::write_loads(sub_fd.get(), info.dir, blobs, cr.loads);
  write_file_beneath(
      sub_fd.get(), "capture.json",
      [&](int fd) {
        return capture::write_capture_json(cr,
                                           [&](std::string_view s) { return write_all(fd, s); });
      },
      info.dir + "/capture.json");
  info.pipeline_status = cr.pipeline_status;
  info.pipeline_exit = cr.pipeline_exit;
  info.seconds = cr.seconds;
  if (cr.pipeline_exit != 0 && !engine::interrupted())
    failure = fmt::format("build {}: the pipeline {}; its log {}", k, cr.pipeline_status, info.log);
  return info;
}

} // namespace

void check_artifact_globs(const std::vector<std::string>& globs) {
  for (const auto& g : globs) {
    bool up = g == ".." || starts_with(g, "../") || g.find("/../") != std::string::npos ||
              (g.size() >= 3 && g.compare(g.size() - 3, 3, "/..") == 0);
    if (g.empty() || g[0] == '/' || up)
      throw Error::format("--artifacts '{}': give a pattern relative to the pipeline's working "
                          "folder, inside it (no leading '/', no '..'), e.g. --artifacts "
                          "'out/*.ptx'",
                          g);
  }
}

int do_capture_builds(const BuildsArgs& a) {
  if (a.builds < 2 || a.builds > 100)
    throw Error::format("--builds {}: give 2 to 100 builds to compare", a.builds);
  if (a.out.empty()) throw Error("--builds needs --out DIR: build K is captured into DIR/build-K");
  if (a.command.empty())
    throw Error("kdet capture --builds: give the pipeline after --, e.g. kdet capture --builds 3 "
                "--out builds -- python3 build.py");
  CaptureTools tools = capture_tools(a.exec);
  tools.wait_children = std::chrono::milliseconds(std::llround(a.wait_children * 1000));
  ReportArgs rep;
  rep.out.json_path = a.json;
  rep.junit = a.junit;
  rep.html = a.html;
  rep.annotations = a.annotations;
  rep.no_reach = a.no_reach;
  check_report_paths(rep, a.out);
  check_artifact_globs(a.artifacts);
  std::vector<std::string> varied = check_vary(a.vary);
  Fd dir = prepare_builds_out(a.out);
  std::string abs_dir = absolute_path(a.out);
  engine::install_interrupt_handler(/*leave_terminal_sigint=*/true);
  // Every build's bundles in one pack: a bundle byte-identical in every build is stored once.
  std::unique_ptr<capture::BundlePackWriter> pack;
  if (!a.folders)
    pack = std::make_unique<capture::BundlePackWriter>(
        dir.get(), "packs/bundles.pack", capture::k_shared_pack, a.out + "/packs/bundles.pack");

  std::vector<std::string> dirs;
  std::vector<capture::BuildInfo> infos;
  std::vector<std::string> failures;
  std::vector<std::string> caches, recorded;
  std::string cwd = absolute_path(".");
  std::set<std::string> tapped; // the frameworks whose files were kept
  for (int k = 1; k <= a.builds && !engine::interrupted(); ++k) {
    std::vector<std::string> env;
    if (!a.warm) env = caches = fresh_caches(dir.get(), abs_dir);
    // Stage taps: each framework's dumps into a fresh folder, the --artifacts files of the
    // previous build removed, so that nothing stale counts (capture/taps.hpp).
    recorded.clear();
    for (auto& e : capture::fresh_tap_folders(dir.get(), abs_dir, recorded))
      env.push_back(std::move(e));
    capture::clear_artifacts(a.artifacts, cwd);
    std::fprintf(stderr, "kdet capture: build %d of %d ...\n", k, a.builds);
    std::string failure;
    TapPlace place{cwd, recorded, {}};
    capture::BuildInfo info;
    try {
      info = run_build(a, tools, dir.get(), abs_dir, k, env, place, failure, pack.get());
    } catch (const Interrupted&) {
      throw;
    } catch (const Error& e) {
      // Its folder could not be made or written (a --clean that removed --out or it): that
      // build failed; the others are still compared.
      info = capture::BuildInfo{};
      info.dir = fmt::format("{}/build-{}", a.out, k);
      info.not_compared = fmt::format("its folder could not be made or written: {}", e.what());
      failure = fmt::format("build {}: {}", k, e.what());
    }
    tapped.insert(place.tapped.begin(), place.tapped.end());
    if (engine::interrupted()) {
      // An interrupted build is not compared, and its folder goes: a later capture compare
      // of DIR would take it for a build that failed.
      remove_tree_beneath(dir.get(), fmt::format("build-{}", k));
      break;
    }
    std::fprintf(stderr, "kdet capture: build %d: the pipeline %s%s after %.1f s\n", k,
                 starts_with(info.pipeline_status, "killed") ? "was " : "",
                 info.pipeline_status.c_str(), info.seconds);
    if (!failure.empty()) {
      failures.push_back(failure);
      std::fprintf(stderr, "kdet capture: FAILED %s; its last lines:\n%s", failure.c_str(),
                   log_tail(dir.get(), fmt::format("build-{}/pipeline.log", k), 15).c_str());
    }
    dirs.push_back(info.dir);
    infos.push_back(std::move(info));
  }
  // DIR/caches keeps the last build's caches: the files its compiles name (a PTX .file in
  // Inductor's cache) are there for kdet explain and replays of its bundles.
  if (dirs.size() < 2)
    std::fprintf(stderr,
                 "kdet capture: interrupted after %zu build%s: nothing to compare (the "
                 "builds done are kept in %s)\n",
                 dirs.size(), dirs.size() == 1 ? "" : "s", a.out.c_str());
  // A later build's --clean (or anything else) may have removed an earlier build's folder:
  // that build is named as failed, the others are compared.
  for (size_t b = 0; b < infos.size(); ++b) {
    struct stat st {};
    if (infos[b].not_compared.empty() &&
        (::fstatat(dir.get(), fmt::format("build-{}", b + 1).c_str(), &st, AT_SYMLINK_NOFOLLOW) !=
             0 ||
         !S_ISDIR(st.st_mode)))
      infos[b].not_compared = "its folder is gone or replaced since the build ran (by a later "
                              "build's --clean?)";
  }
  // The report is written whatever happened, an interrupt before two builds ran included:
  // its JSON says `interrupted`.
  capture::BuildsResult r = capture::compare_builds(dirs, std::move(infos));
  r.warm = a.warm;
  r.caches = caches;
  r.failed_builds.insert(r.failed_builds.begin(), failures.begin(), failures.end());
  r.artifacts = a.artifacts;
  // A framework's recorded variables, where its files were kept (CuTe DSL's CUTE_DSL_ARCH).
  for (const auto& f : capture::framework_taps())
    if (f.recorded && tapped.count(f.name))
      for (const auto& v : recorded)
        if (starts_with(v, std::string(f.recorded) + "=")) r.recorded.push_back(v);
  r.varied = varied;
  r.interrupted = engine::interrupted() || static_cast<int>(dirs.size()) < a.builds;
  return write_reports(r, rep);
}

void add_capture_compare(CLI::App* capture, Action& action) {
  auto args = std::make_shared<ReportArgs>();
  auto dirs = std::make_shared<std::vector<std::string>>();
  auto* cmd = capture->add_subcommand(
      "compare", "Compare captures made apart (kdet capture --out folders, or a --builds folder) "
                 "kernel by kernel, as kdet capture --builds does");
  cmd->footer("Each DIR is a kdet capture --out folder (with raw/), or a kdet capture --builds\n"
              "folder, whose build-K folders are taken in order. Kernels are matched by their\n"
              "entry names (as a set), first compiler and options (temporary paths normalized),\n"
              "never by bundle ids. No link inside a capture folder is followed. Exit status: 0\n"
              "every kernel the same in every capture, 1 one is not, 3 a capture's pipeline\n"
              "failed (its capture.json says so, or cannot be read), a build is unfinished or\n"
              "cannot be read (named), or none holds a compile, 2 usage.\n"
              "Example: kdet capture compare before/ after/ --report-html triage.html");
  cmd->add_option("dirs", *dirs, "Capture folders (two or more in all)")->required();
  add_json_option(cmd, args->out, "the comparison", report::k_builds_schema);
  cmd->add_option("--junit", args->junit, "JUnit XML to FILE, a test case per kernel");
  cmd->add_option("--report-html", args->html, "A self-contained HTML triage page to FILE");
  cmd->add_flag(
      "--annotations", args->annotations,
      "Also write GitHub Actions annotations (::error file=...::message) to stderr, one per "
      "failure of the gate");
  cmd->add_flag("--no-reach", args->no_reach,
                "Leave out how far each varying kernel's difference reaches (default: its PTX "
                "assembled with ptxas; docs/IMPACT.md)");
  add_color_option(cmd, args->out);
  add_quiet_option(cmd, args->out, "Print no text report (JSON, JUnit and HTML still written)");
  cmd->callback([args, dirs, &action] {
    action = [args, dirs] {
      check_report_paths(*args, "");
      std::vector<capture::BuildInfo> infos;
      for (const auto& d : *dirs)
        for (auto& f : capture::capture_folders(d))
          infos.push_back(std::move(f));
      std::set<std::pair<dev_t, ino_t>> ids;
      std::vector<std::string> folders;
      for (const auto& f : infos) {
        struct stat st {};
        if (f.not_compared.empty() && ::stat((f.dir + "/raw/records").c_str(), &st) == 0 &&
            !ids.insert({st.st_dev, st.st_ino}).second)
          throw Error::format("kdet capture compare: {} is the same capture twice (a folder "
                              "given twice, or through a link); give each capture once",
                              f.dir);
        folders.push_back(f.dir);
      }
      if (folders.size() < 2)
        throw Error::format("kdet capture compare: {} holds one capture; give two or more "
                            "(folders of kdet capture --out, or a --builds folder)",
                            dirs->front());
      capture::BuildsResult r = capture::compare_builds(folders, std::move(infos));
      for (size_t b = 0; b < r.builds.size(); ++b)
        if (r.builds[b].pipeline_exit > 0)
          r.failed_builds.push_back(fmt::format("capture {} ({}): the pipeline {}", b + 1,
                                                r.builds[b].dir, r.builds[b].pipeline_status));
      return write_reports(r, *args);
    };
  });
}

} // namespace kdet::cli
