//===- cli/capture.cpp - `kdet capture [--out DIR] [--json FILE] -- CMD...` -===//
//
// Runs a build pipeline unchanged with libkdet_capture.so preloaded (inherited
// by every child through LD_PRELOAD), then reads what it recorded, groups the
// compiles into bundles and says whether one bundle gave two outputs in this
// very run (docs/CAPTURE.md).
//
//===----------------------------------------------------------------------===//
#include "kdet/capture/blobs.hpp"
#include "kdet/capture/exec_records.hpp"
#include "kdet/capture/output.hpp"
#include "kdet/capture/records.hpp"
#include "kdet/cli/main.hpp"
#include "kdet/engine/interrupt.hpp"
#include "kdet/perturb/factors.hpp"
#include "kdet/util/error.hpp"
#include "kdet/util/exec.hpp"
#include "kdet/util/fs.hpp"
#include "kdet/util/strings.hpp"
#include "kdet/util/tempdir.hpp"

#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <memory>
#include <optional>
#include <sys/stat.h>
#include <unistd.h>

namespace kdet::cli {

namespace {

struct CaptureArgs {
  bool finish = false;
  std::string out;
  std::string json;
  std::vector<std::string> exec; // --exec NAME, beside the compilers always captured
  std::vector<std::string> command;
};

// libkdet_capture.so beside the kdet executable (build tree) or in lib/kdet (installed).
std::string find_capture_library() {
  std::string lib = find_kdet_library("libkdet_capture.so");
  if (!lib.empty()) return lib;
  throw Error("kdet capture: libkdet_capture.so was not found beside the kdet binary or in its "
              "installed lib/kdet folder (build the kdet_capture target)");
}

// Makes DIR (its parent must exist) and DIR/raw/{records,blobs}; refuses a
// folder that already holds a capture. Returns DIR opened.
Fd prepare_out(const std::string& dir) {
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
  for (const char* sub : {"raw/records", "raw/blobs"}) {
    Fd made(make_dirs_beneath(fd.get(), sub, 0755));
    if (!made.ok())
      throw Error::format("--out {}: cannot create {}: {}", dir, sub, beneath_error(errno));
  }
  return fd;
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
  for (const char* name : {"bundles", "manifest.toml"})
    if (::fstatat(fd.get(), name, &st, AT_SYMLINK_NOFOLLOW) == 0)
      throw Error::format("--out {}: {} exists: this capture was finished already", a.out, name);
  check_output_path(a.json, "--json");
  std::string raw = absolute_path(a.out) + "/raw";
  capture::CaptureResult r;
  r.out_dir = a.out;
  r.finished = true;
  r.pipeline_status = "unknown (kdet capture --finish)";
  r.pipeline_exit = -1;
  r.compiles = capture::read_records(raw, r.problems);
  r.bundles = capture::group_bundles(r.compiles);
  capture::BlobStore blobs(raw, r.problems);
  capture::write_bundles(fd.get(), a.out, blobs, r.bundles);
  if (!a.json.empty()) write_output(a.json, json_text(capture::capture_json(r)) + "\n", "--json");
  std::fputs(capture::capture_summary(r).c_str(), stderr);
  for (const auto& b : r.bundles)
    if (b.varies) return k_exit_nondeterministic;
  return k_exit_deterministic;
}

int do_capture(const CaptureArgs& a) {
  if (a.finish) return finish_capture(a);
  if (a.command.empty())
    throw Error("kdet capture: give the pipeline after --, e.g. kdet capture --out cap -- python3 "
                "build.py");
  std::string lib = find_capture_library();
  std::string shim = lib.substr(0, lib.find_last_of('/')) + "/kdet-exec-shim";
  if (::access(shim.c_str(), X_OK) != 0)
    throw Error::format("kdet capture: {} was not found beside libkdet_capture.so (build the "
                        "kdet_exec_shim target)",
                        shim);
  std::string names;
  for (const auto& n : capture::default_exec_names())
    names += (names.empty() ? "" : ":") + n;
  for (const auto& n : a.exec) {
    if (!capture::valid_exec_name(n))
      throw Error::format("--exec '{}': give a program's base name (letters, digits, '.', '_', "
                          "'+', '-'; no '/'), e.g. --exec my-ptxas",
                          n);
    names += ":" + n;
  }
  if (!a.json.empty() && a.json != "-" && a.json == a.out)
    throw Error("--json and --out name the same path; --json is a file, --out a folder");
  // The pipeline's stdout is its own: the document would be mixed into it, unparsable.
  if (a.json == "-")
    throw Error("--json -: the pipeline writes to stdout too, so the JSON would be mixed into its "
                "output; give --json FILE");
  check_output_path(a.json, "--json"); // now, not after the pipeline (its summary would be lost)

  std::optional<TempDir> temp;
  Fd out_fd;
  std::string raw;
  if (!a.out.empty()) {
    out_fd = prepare_out(a.out);
    raw = absolute_path(a.out) + "/raw";
  } else {
    temp.emplace("capture");
    raw = temp->path();
    for (const char* sub : {"records", "blobs"})
      if (::mkdir((raw + "/" + sub).c_str(), 0755) != 0)
        throw Error::format("cannot create {}/{}: {}", raw, sub, std::strerror(errno));
  }

  SpawnOptions opt;
  opt.argv = a.command;
  // The pipeline itself may be a listed compiler (kdet capture -- nvcc ...):
  // kdet starts it, not the preload, so kdet puts it under the shim.
  std::string prog = find_program(a.command[0]);
  if (!prog.empty()) {
    char real[PATH_MAX];
    std::string resolved = ::realpath(prog.c_str(), real) ? real : prog;
    auto base = [](const std::string& p) { return p.substr(p.find_last_of('/') + 1); };
    for (const std::string& n : split(names, ':'))
      if (n == base(prog) || n == base(resolved)) {
        opt.argv = {shim, raw, prog};
        opt.argv.insert(opt.argv.end(), a.command.begin(), a.command.end());
        break;
      }
  }
  opt.new_process_group = false; // Ctrl-C at the terminal reaches the pipeline as usual
  opt.guard = true;              // what the pipeline starts ends with it, even if kdet is killed
  opt.fds = {{0, 0}, {1, 1}, {2, 2}};
  opt.env =
      with_env_changes(current_environment(),
                       {"KDET_CAPTURE_DIR=" + raw, "KDET_CAPTURE_EXEC=" + names,
                        "KDET_CAPTURE_SHIM=" + shim, "LD_PRELOAD=" + perturb::preload_list({lib})});
  engine::install_interrupt_handler(/*leave_terminal_sigint=*/true);
  auto start = std::chrono::steady_clock::now();
  ExitStatus st;
  pid_t pid = spawn(opt, st);
  if (pid < 0) throw Error::format("kdet capture: cannot run {}: {}", a.command[0], st.describe());
  st = wait_child(pid, std::nullopt, engine::interrupt_fd());

  capture::CaptureResult r;
  r.command = a.command;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  r.out_dir = a.out;
  r.pipeline_status = st.describe();
  r.pipeline_exit = st.kind == ExitStatus::Kind::exited     ? st.code
                    : st.kind == ExitStatus::Kind::signaled ? 128 + st.signal
                                                            : 125;
  if (st.kind == ExitStatus::Kind::not_started)
    throw Error::format("kdet capture: cannot run {}: {}", a.command[0], st.describe());
  r.compiles = capture::read_records(raw, r.problems);
  r.bundles = capture::group_bundles(r.compiles);
  if (out_fd.ok()) {
    capture::BlobStore blobs(raw, r.problems);
    capture::write_bundles(out_fd.get(), a.out, blobs, r.bundles);
  }
  if (!a.json.empty()) write_output(a.json, json_text(capture::capture_json(r)) + "\n", "--json");
  std::fputs(capture::capture_summary(r).c_str(), stderr);
  if (engine::interrupted()) throw Interrupted();
  for (const auto& b : r.bundles)
    if (b.varies) return k_exit_nondeterministic;
  return k_exit_deterministic;
}

} // namespace

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
      "bundles/ID/ (bundle.json, inputs/, outputs/) for each bundle; `kdet run DIR/bundles/ID`\n"
      "replays a library bundle (every input, in order) with the captured library and options\n"
      "(so do explain and cache compile), and `kdet scan DIR/manifest.toml --db scan.db`\n"
      "replays every one.\n"
      "Exit status: 1 when one bundle gave two different outputs (or return codes) in this\n"
      "run, 0 otherwise (the pipeline's own status is in the summary and the JSON); 2 for\n"
      "usage errors and a pipeline that cannot be started; 130 when interrupted.\n"
      "Example: kdet capture --out cap --json cap.json -- python3 build_kernels.py");
  cmd->add_option("--out", args->out,
                  "Folder for the raw records and one bundle folder per distinct compile");
  cmd->add_option("--json", args->json,
                  "Write the capture as JSON (schema kdet.capture/1) to FILE (not -: stdout is "
                  "the pipeline's)");
  cmd->add_option("--exec", args->exec,
                  "Also capture programs with this base name as command compiles (repeatable)")
      ->type_name("NAME")
      ->allow_extra_args(false);
  cmd->add_flag("--finish", args->finish,
                "Make the bundles of an --out DIR whose kdet capture was killed, from the "
                "records in DIR/raw (no pipeline is run)");
  cmd->add_option("command", args->command, "The pipeline and its arguments (after --)");
  cmd->callback([args, &action] { action = [args] { return do_capture(*args); }; });
}

} // namespace kdet::cli
