//===- cli/capture.cpp - `kdet capture [--out DIR] [--json FILE] -- CMD...` -===//
//
// Runs a build pipeline unchanged with libkdet_capture.so preloaded (inherited
// by every child through LD_PRELOAD), then reads what it recorded, groups the
// compiles into bundles and says whether one bundle gave two outputs in this
// very run (docs/CAPTURE.md).
//
//===----------------------------------------------------------------------===//
#include "kdet/capture/blobs.hpp"
#include "kdet/capture/builds.hpp"
#include "kdet/capture/bundle_pack.hpp"
#include "kdet/capture/exec_records.hpp"
#include "kdet/capture/output.hpp"
#include "kdet/capture/records.hpp"
#include "kdet/capture/tap_recipes.hpp"
#include "kdet/capture/taps.hpp"
#include "kdet/cli/annotations.hpp"
#include "kdet/cli/capture_pipeline.hpp"
#include "kdet/cli/main.hpp"
#include "kdet/cli/numbers.hpp"
#include "kdet/engine/interrupt.hpp"
#include "kdet/perturb/factors.hpp"
#include "kdet/report/builds_report.hpp"
#include "kdet/util/error.hpp"
#include "kdet/util/exec.hpp"
#include "kdet/util/file_lock.hpp"
#include "kdet/util/fs.hpp"
#include "kdet/util/strings.hpp"
#include "kdet/util/tempdir.hpp"

#include <cerrno>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <memory>
#include <optional>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace kdet::cli {

namespace {

struct CaptureArgs {
  bool finish = false;
  std::string out;
  std::string json;
  int builds = 0; // --builds N: N cold builds, compared kernel by kernel
  std::string junit, html, clean;
  bool warm = false;
  bool annotations = false;           // --annotations
  bool no_reach = false;              // --no-reach
  std::vector<std::string> exec;      // --exec NAME, beside the compilers always captured
  std::vector<std::string> artifacts; // --artifacts GLOB: the build's own stage files
  std::vector<std::string> vary;      // --vary-builds FACTOR,...
  double wait_children = 30;          // --wait-children SECONDS
  bool folders = false;               // --bundle-layout folders: a folder per bundle, unpacked
  std::vector<std::string> command;
};

// The bundle pack of OUT (`out_fd`), unless --bundle-layout folders.
std::unique_ptr<capture::BundlePackWriter> bundle_pack(const CaptureArgs& a, int out_fd) {
  if (a.folders) return nullptr;
  return std::make_unique<capture::BundlePackWriter>(out_fd, "bundles/bundles.pack", "bundles.pack",
                                                     a.out + "/bundles/bundles.pack");
}

// libkdet_capture.so beside the kdet executable (build tree) or in lib/kdet (installed).
std::string find_capture_library() {
  std::string lib = find_kdet_library("libkdet_capture.so");
  if (!lib.empty()) return lib;
  throw Error("kdet capture: libkdet_capture.so was not found beside the kdet binary or in its "
              "installed lib/kdet folder (build the kdet_capture target)");
}

// A capture folder's raw/ locked (flock) for as long as one kdet writes or finishes it, so that a
// `--finish` cannot finish a capture that is still running. Throws when another holds it.
Fd lock_raw(int dir_fd, const std::string& dir, const char* doing) {
  Fd raw(::openat(dir_fd, "raw", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!raw.ok()) throw Error::format("--out {}: cannot open raw/: {}", dir, std::strerror(errno));
  if (::flock(raw.get(), LOCK_EX | LOCK_NB) == 0) return raw;
  int e = errno;
  struct stat st {};
  long pid = ::fstat(raw.get(), &st) == 0 ? flock_holder(st.st_dev, st.st_ino).pid : 0;
  if (e == EWOULDBLOCK)
    throw Error::format("--out {}: a kdet capture{} is still writing it; {} waits until it ends "
                        "(--finish is for a capture that was killed)",
                        dir, pid > 0 ? fmt::format(" (pid {})", pid) : "", doing);
  throw Error::format("--out {}: cannot lock raw/: {}", dir, std::strerror(e));
}

// Makes DIR (its parent must exist) and DIR/raw/{records,blobs,notes}; refuses a
// folder that already holds a capture. Returns DIR opened, and `lock` holds raw/ locked.
Fd prepare_out(const std::string& dir, Fd& lock) {
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0) {
    if (errno != ENOENT || ::mkdir(dir.c_str(), 0755) != 0)
      throw Error::format("--out {}: cannot create the folder: {}", dir, std::strerror(errno));
  }
  Fd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!fd.ok()) throw Error::format("--out {}: {} (a folder is needed)", dir, std::strerror(errno));
  // manifest.toml too: capture writes its own, and a user's scan manifest there was replaced.
  for (const char* name : {"raw", "bundles", "manifest.toml"})
    if (::fstatat(fd.get(), name, &st, AT_SYMLINK_NOFOLLOW) == 0)
      throw Error::format("--out {}: it already holds a capture ({} exists); choose another folder "
                          "or remove it (kdet never overwrites a recorded capture)",
                          dir, name);
  for (const char* sub : {"raw/records", "raw/blobs", "raw/notes"}) {
    Fd made(make_dirs_beneath(fd.get(), sub, 0755));
    if (!made.ok())
      throw Error::format("--out {}: cannot create {}: {}", dir, sub, beneath_error(errno));
  }
  lock = lock_raw(fd.get(), dir, "kdet capture");
  return fd;
}

// Writes --json FILE a compile at a time (capture::write_capture_json), never holding the text.
void write_capture_json(const std::string& path, const capture::CaptureResult& r) {
  write_output(
      path,
      [&](int fd) {
        return capture::write_capture_json(r, [&](std::string_view s) { return write_all(fd, s); });
      },
      "--json");
}

// --finish: a kdet capture killed before it wrote the bundles left OUT/raw (the
// records are appended as the pipeline runs); this writes OUT/bundles and the manifest.
int finish_capture(const CaptureArgs& a) {
  if (a.out.empty()) throw Error("--finish needs --out DIR, the folder of the killed capture");
  if (!a.command.empty())
    throw Error("--finish runs no pipeline: give --out DIR only (the records are in DIR/raw)");
  Fd fd(::open(a.out.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!fd.ok())
    throw Error::format("--out {}: {} (a folder is needed)", a.out, std::strerror(errno));
  struct stat st {};
  if (::fstatat(fd.get(), "raw/records", &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR(st.st_mode))
    throw Error::format("--out {}: no raw/records folder: not a folder of kdet capture --out",
                        a.out);
  Fd lock = lock_raw(fd.get(), a.out, "--finish");
  for (const char* name : {"bundles", "manifest.toml"})
    if (::fstatat(fd.get(), name, &st, AT_SYMLINK_NOFOLLOW) == 0)
      throw Error::format("--out {}: {} exists: this capture was finished already", a.out, name);
  check_output_path(a.json, "--json");
  check_output_path(a.junit, "--junit");
  std::string raw = absolute_path(a.out) + "/raw";
  capture::CaptureResult r;
  r.out_dir = a.out;
  r.finished = true;
  r.pipeline_status = "unknown (kdet capture --finish)";
  r.pipeline_exit = -1;
  r.compiles = capture::read_records(raw, r.problems);
  r.notes = capture::read_notes(raw, r.problems);
  capture::BlobStore blobs(raw, r.problems);
  r.bundles = capture::bundle_records(r.compiles, blobs);
  capture::find_compilers_inside(raw, r);
  capture::find_loads(raw, blobs, r);
  capture::note_missing_blobs(blobs, r.bundles, r.problems);
  capture::write_bundles(fd.get(), a.out, blobs, r.bundles, bundle_pack(a, fd.get()).get());
  capture::write_loads(fd.get(), a.out, blobs, r.loads);
  if (!a.json.empty()) write_capture_json(a.json, r);
  if (!a.junit.empty()) write_output(a.junit, report::capture_to_junit(r), "--junit");
  std::fputs(terminal_text(capture::capture_summary(r)).c_str(), stderr);
  if (a.annotations) std::fputs(capture_annotations(r).c_str(), stderr);
  return capture::capture_exit_code(r);
}

int do_capture(const CaptureArgs& a) {
  if (a.finish) return finish_capture(a);
  if (a.command.empty())
    throw Error("kdet capture: give the pipeline after --, e.g. kdet capture --out cap -- python3 "
                "build.py");
  CaptureTools tools = capture_tools(a.exec);
  tools.wait_children = std::chrono::milliseconds(std::llround(a.wait_children * 1000));
  if (!a.json.empty() && a.json != "-" && a.json == a.out)
    throw Error("--json and --out name the same path; --json is a file, --out a folder");
  // The pipeline's stdout is its own: the document would be mixed into it, unparsable.
  if (names_stdout(a.json))
    throw Error("--json " + a.json +
                ": the pipeline writes to stdout too, so the JSON would be mixed into its "
                "output; give --json FILE");
  check_output_path(a.json, "--json"); // now, not after the pipeline (its summary would be lost)
  check_output_path(a.junit, "--junit");

  std::optional<TempDir> temp;
  Fd out_fd, raw_lock;
  std::string raw;
  if (!a.out.empty()) {
    out_fd = prepare_out(a.out, raw_lock);
    raw = absolute_path(a.out) + "/raw";
  } else {
    temp.emplace("capture");
    raw = temp->path();
    for (const char* sub : {"records", "blobs", "notes"})
      if (::mkdir((raw + "/" + sub).c_str(), 0755) != 0)
        throw Error::format("cannot create {}/{}: {}", raw, sub, std::strerror(errno));
  }
  check_artifact_globs(a.artifacts);
  if (!a.artifacts.empty() && a.out.empty())
    throw Error("--artifacts keeps files in the capture folder: give --out DIR too");
  std::string cwd = absolute_path(".");
  capture::clear_artifacts(a.artifacts, cwd);
  engine::install_interrupt_handler(/*leave_terminal_sigint=*/true);
  capture::CaptureResult r;
  ExitStatus st = run_captured(tools, a.command, raw, {}, {{0, 0}, {1, 1}, {2, 2}}, r.seconds,
                               &r.children.report);
  r.children.seen = true;
  r.children.limit_s = a.wait_children;
  r.command = a.command;
  r.out_dir = a.out;
  r.pipeline_status = st.describe();
  r.pipeline_exit = pipeline_exit_code(st);
  r.compiles = capture::read_records(raw, r.problems);
  r.notes = capture::read_notes(raw, r.problems);
  // Read without --out too: the report names PTX by its artifact hash, made from its bytes.
  capture::BlobStore blobs(raw, r.problems);
  r.bundles = capture::bundle_records(r.compiles, blobs);
  capture::find_compilers_inside(raw, r);
  capture::find_loads(raw, blobs, r);
  std::vector<capture::TapFile> kept;
  if (out_fd.ok() && !a.artifacts.empty())
    kept =
        capture::keep_taps(out_fd.get(), a.out, absolute_path(a.out), a.artifacts, cwd, r.problems);
  r.taps = kept.size();
  // --out that cannot be written (a full file system) still gets the summary, and what the
  // pipeline lost with it, before the error.
  std::optional<Error> unwritten;
  if (out_fd.ok()) {
    capture::note_missing_blobs(blobs, r.bundles, r.problems);
    try {
      // A kept stage that a shipped recipe replays in-process becomes a bundle too.
      for (auto& b : capture::write_tap_bundles(out_fd.get(), a.out, kept, {}, r.problems))
        r.bundles.push_back(std::move(b));
      capture::write_bundles(out_fd.get(), a.out, blobs, r.bundles,
                             bundle_pack(a, out_fd.get()).get());
      capture::write_loads(out_fd.get(), a.out, blobs, r.loads);
      // How the pipeline ended stays with the capture, for kdet capture compare.
      write_file_beneath(
          out_fd.get(), "capture.json",
          [&](int fd) {
            return capture::write_capture_json(
                r, [&](std::string_view s) { return write_all(fd, s); });
          },
          a.out + "/capture.json");
    } catch (const Error& e) {
      unwritten = e;
    }
  }
  if (!a.json.empty()) write_capture_json(a.json, r);
  if (!a.junit.empty()) write_output(a.junit, report::capture_to_junit(r), "--junit");
  std::fputs(terminal_text(capture::capture_summary(r)).c_str(), stderr);
  if (a.annotations) std::fputs(capture_annotations(r).c_str(), stderr);
  if (engine::interrupted()) throw Interrupted();
  if (unwritten)
    throw Error::format("the capture in {} is incomplete: {}", a.out, unwritten->what());
  return capture::capture_exit_code(r);
}

} // namespace

CaptureTools capture_tools(const std::vector<std::string>& exec) {
  CaptureTools t;
  t.lib = find_capture_library();
  t.shim = t.lib.substr(0, t.lib.find_last_of('/')) + "/kdet-exec-shim";
  if (::access(t.shim.c_str(), X_OK) != 0)
    throw Error::format("kdet capture: {} was not found beside libkdet_capture.so (build the "
                        "kdet_exec_shim target)",
                        t.shim);
  for (const auto& n : capture::default_exec_names())
    t.names += (t.names.empty() ? "" : ":") + n;
  for (const auto& n : exec) {
    if (!capture::valid_exec_name(n))
      throw Error::format("--exec '{}': give a program's base name (letters, digits, '.', '_', "
                          "'+', '-'; no '/'), e.g. --exec my-ptxas",
                          n);
    t.names += ":" + n;
  }
  return t;
}

ExitStatus run_captured(const CaptureTools& tools, const std::vector<std::string>& command,
                        const std::string& raw, const std::vector<std::string>& env_changes,
                        std::vector<std::pair<int, int>> fds, double& seconds,
                        GuardReport* children, const BuildVary* vary) {
  SpawnOptions opt;
  opt.argv = command;
  // The pipeline itself may be a listed compiler (kdet capture -- nvcc ...):
  // kdet starts it, not the preload, so kdet puts it under the shim.
  std::string prog = find_program(command[0]);
  if (!prog.empty()) {
    char real[PATH_MAX];
    std::string resolved = ::realpath(prog.c_str(), real) ? real : prog;
    auto base = [](const std::string& p) { return p.substr(p.find_last_of('/') + 1); };
    for (const std::string& n : split(tools.names, ':'))
      if (n == base(prog) || n == base(resolved)) {
        opt.argv = {tools.shim, raw, prog};
        opt.argv.insert(opt.argv.end(), command.begin(), command.end());
        break;
      }
  }
  opt.new_process_group = false; // Ctrl-C at the terminal reaches the pipeline as usual
  opt.guard = true;              // what it starts ends with it (after a wait), even if kdet dies
  opt.inherit_fds = true;        // the caller's descriptors, as without kdet
  opt.fds = std::move(fds);
  std::vector<std::string> changes = {"KDET_CAPTURE_DIR=" + raw, "KDET_CAPTURE_EXEC=" + tools.names,
                                      "KDET_CAPTURE_SHIM=" + tools.shim,
                                      "LD_PRELOAD=" + perturb::preload_list({tools.lib})};
  changes.insert(changes.end(), env_changes.begin(), env_changes.end());
  if (vary) {
    changes.insert(changes.end(), vary->env.begin(), vary->env.end());
    opt.disable_aslr = vary->disable_aslr;
    opt.umask = vary->umask;
  }
  opt.env = with_env_changes(current_environment(), changes);
  auto start = std::chrono::steady_clock::now();
  // A process the pipeline left that maps the preload (or is a command compile's
  // shim) may still compile: waited for, up to tools.wait_children.
  GuardReport left;
  ExitStatus st = run_lingering(opt, tools.wait_children, "libkdet_capture.so:kdet-exec-shim",
                                children ? *children : left, engine::interrupt_fd());
  seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (st.kind == ExitStatus::Kind::not_started)
    throw Error::format("kdet capture: cannot run {}: {}", command[0], st.describe());
  return st;
}

int pipeline_exit_code(const ExitStatus& st) {
  return st.kind == ExitStatus::Kind::exited     ? st.code
         : st.kind == ExitStatus::Kind::signaled ? 128 + st.signal
                                                 : 125;
}

// "TRITON_CACHE_DIR (triton), ..." for --help.
std::string known_cache_list() {
  std::string s;
  for (const auto& c : capture::known_caches())
    s += (s.empty() ? "" : ", ") + std::string(c.variable);
  return s;
}

void add_capture(CLI::App& root, Action& action) {
  auto args = std::make_shared<CaptureArgs>();
  auto* cmd = root.add_subcommand(
      "capture",
      "Run a build pipeline unchanged and record every libNVVM, NVRTC and nvJitLink compile "
      "and every compiler command (ptxas, nvcc, cicc, fatbinary, nvlink, --exec NAME) it makes");
  cmd->footer(
      "The pipeline runs with libkdet_capture.so in LD_PRELOAD (inherited by its child\n"
      "processes); it sees libNVVM, NVRTC and nvJitLink whether linked at build time or loaded "
      "with\n"
      "dlopen + dlsym (ctypes, cython). Compiles are grouped into bundles: one per distinct\n"
      "compile (library content hash, inputs in order, options).\n"
      "Commands named ptxas, nvcc, cicc, fatbinary, nvlink or --exec NAME (matched by the\n"
      "base name of the program run) run under kdet-exec-shim, which records argv, cwd,\n"
      "environment, program hash, input files, exit status and output files (kind exec).\n"
      "Statically linked library compilers cannot be seen. The summary names every kind\n"
      "never seen.\n"
      "--out DIR keeps raw/ (what the pipeline recorded, kept even if it or kdet is killed;\n"
      "kdet capture --finish --out DIR then writes the bundles) and\n"
      "bundles/ID (bundle.json, inputs/, outputs/) for each bundle, packed: each distinct\n"
      "file once in bundles/bundles.pack, listed in bundles/index (--bundle-layout folders:\n"
      "a folder each; under --builds one pack, DIR/packs, for every build); `kdet run "
      "DIR/bundles/ID`\n"
      "replays a library bundle (every input, in order) with the captured library and options\n"
      "(so do explain and cache compile), and `kdet scan DIR/manifest.toml --db scan.db`\n"
      "replays every one.\n"
      "--builds N runs the pipeline N times, each a cold build (every kernel cache below\n"
      "gets a fresh empty folder through its variable, unless --warm; --clean CMD runs before\n"
      "each build for the others), captures build K into DIR/build-K (its output in\n"
      "DIR/build-K/pipeline.log), then compares the builds kernel by kernel: same,\n"
      "nondeterministic (the first stage that got the same input and gave other outputs),\n"
      "input-differs (the pipeline's own input to the kernel's first compile),\n"
      "not-in-every-build. The same\n"
      "comparison of captures made apart: kdet capture compare DIR1 DIR2 [...].\n"
      "Kernel caches made fresh per build: " +
      known_cache_list() +
      ".\n"
      "Exit status: 3 when the pipeline failed (exited non-zero or was killed) or no compile\n"
      "was captured, even if a bundle varied (the summary and JSON still name it); else 1\n"
      "when one bundle gave two different outputs (or return codes) in this run; else 0.\n"
      "2 for usage errors and a pipeline that cannot be started; 130 when interrupted.\n"
      "--finish did not see the pipeline end: 3 only when no compile was recorded.\n"
      "With --builds (and capture compare): 3 a build's pipeline failed (named, its log\n"
      "kept), a build is unfinished, gone or unreadable (named), or no compile was captured;\n"
      "else 1 a kernel not the same in every build; else 0; 2 usage, 130 interrupted (the\n"
      "builds done are compared, the reports written). README, \"Exit status\".\n"
      "Example: kdet capture --out cap --json cap.json -- python3 build_kernels.py\n"
      "Example: kdet capture --builds 3 --out builds --report-html builds.html -- python3 "
      "build.py");
  cmd->add_option("--out", args->out,
                  "Folder for the raw records and one bundle folder per distinct compile");
  cmd->add_option("--json", args->json,
                  "Write the capture as JSON (schema kdet.capture/3) to FILE (not -: stdout is "
                  "the pipeline's)");
  cmd->add_option("--exec", args->exec,
                  "Also capture programs with this base name as command compiles (repeatable)")
      ->type_name("NAME")
      ->allow_extra_args(false);
  cmd->add_option("--wait-children", args->wait_children,
                  "Once the pipeline has ended, wait up to SECONDS for the processes it left "
                  "that carry the capture preload (a child that compiles after its parent "
                  "exited), then kill what is left and name it (default 30; 0: do not wait)")
      ->type_name("SECONDS")
      ->check(real_option({0.0, 86400.0}));
  cmd->add_flag("--finish", args->finish,
                "Make the bundles of an --out DIR whose kdet capture was killed, from the "
                "records in DIR/raw (no pipeline is run)");
  cmd->add_option("--builds", args->builds,
                  "Run the pipeline N times (2 to 100), each a cold build captured into "
                  "--out DIR/build-K, and compare the builds kernel by kernel")
      ->type_name("N");
  cmd->add_option("--junit", args->junit,
                  "JUnit XML to FILE: a test case per captured bundle (with --builds: per "
                  "kernel), failing as the exit status does");
  cmd->add_option("--report-html", args->html,
                  "With --builds: a self-contained HTML triage page to FILE");
  cmd->add_option("--clean", args->clean,
                  "With --builds: a shell command run before each build, for caches kdet does "
                  "not know")
      ->type_name("CMD");
  cmd->add_flag(
      "--annotations", args->annotations,
      "Also write GitHub Actions annotations (::error file=...::message) to stderr, one per "
      "failure of the gate");
  cmd->add_option("--artifacts", args->artifacts,
                  "Keep the files the build writes that match GLOB (relative to the pipeline's "
                  "working folder; removed before each build) as stages of their kernels "
                  "(repeatable; docs/CAPTURE.md, \"Stage taps\")")
      ->type_name("GLOB")
      ->allow_extra_args(false);
  cmd->add_option("--vary-builds", args->vary,
                  "With --builds: vary these factors of kdet's between builds, one level in odd "
                  "builds and another in even ones (comma-separated: aslr, umask, locale, tz, "
                  "threads, env; docs/CAPTURE.md)")
      ->type_name("FACTOR,...")
      ->delimiter(',')
      ->allow_extra_args(false);
  cmd->add_flag("--warm", args->warm,
                "With --builds: keep the kernel caches between builds (the report says so)");
  cmd->add_flag("--no-reach", args->no_reach,
                "With --builds: leave out how far each varying kernel's difference reaches "
                "(default: its PTX assembled with ptxas; docs/IMPACT.md)");
  cmd->add_option("--bundle-layout", args->folders,
                  "pack (default: every distinct bundle file once, in a pack with an index) or "
                  "folders (a folder per bundle, as kdet capture wrote before)")
      ->transform(
          CLI::CheckedTransformer(std::map<std::string, bool>{{"pack", false}, {"folders", true}}))
      ->type_name("LAYOUT");
  add_capture_compare(cmd, action);
  cmd->add_option("command", args->command, "The pipeline and its arguments (after --)");
  cmd->callback([args, cmd, &action] {
    if (cmd->get_subcommands().size()) return; // kdet capture compare: its own action
    if (cmd->count("--builds") == 0) {
      for (auto [given, name] : {std::pair{!args->html.empty(), "--report-html"},
                                 {!args->clean.empty(), "--clean"},
                                 {args->warm, "--warm"},
                                 {!args->vary.empty(), "--vary-builds"},
                                 {args->no_reach, "--no-reach"}})
        if (given) throw Error::format("{} is an option of kdet capture --builds N", name);
      action = [args] { return do_capture(*args); };
      return;
    }
    if (args->finish) throw Error("--finish and --builds do not go together");
    BuildsArgs b;
    b.builds = args->builds;
    b.out = args->out;
    b.json = args->json;
    b.junit = args->junit;
    b.html = args->html;
    b.clean = args->clean;
    b.warm = args->warm;
    b.annotations = args->annotations;
    b.no_reach = args->no_reach;
    b.wait_children = args->wait_children;
    b.exec = args->exec;
    b.artifacts = args->artifacts;
    b.vary = args->vary;
    b.command = args->command;
    b.folders = args->folders;
    action = [b] { return do_capture_builds(b); };
  });
}

} // namespace kdet::cli
