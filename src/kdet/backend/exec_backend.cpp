//===- backend/exec_backend.cpp - any command from a template ----------------===//
//
// `--cmd 'ptxas -arch=sm_90a {input} -o {output}'`: split into argv without a
// shell (backend/exec_template), placeholders replaced inside their own words
// per run, run in a fresh process each time. The artifact is the {output} file
// when the template names one, else stdout; an empty or missing one is the
// outcome no-output, never an artifact. Exit status, signal and stderr are part
// of the outcome. Every --jobs slot's compiler sees the same {output} and
// {workdir} paths where a private mount namespace is allowed (slot_namespace).
//
//===----------------------------------------------------------------------===//
#include "kdet/backend/backend.hpp"
#include "kdet/backend/exec_template.hpp"
#include "kdet/backend/host_view.hpp"
#include "kdet/backend/slot_namespace.hpp"
#include "kdet/util/error.hpp"
#include "kdet/util/exec.hpp"
#include "kdet/util/faketime_shm.hpp"
#include "kdet/util/fs.hpp"
#include "kdet/util/strings.hpp"
#include "kdet/util/tempdir.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <map>
#include <mutex>
#include <optional>
#include <sys/stat.h>
#include <unistd.h>

namespace kdet::backend {

namespace {

constexpr size_t k_max_log = 64 << 10;
// stdout as the artifact is captured in memory, so it has a cap of its own below --max-output.
constexpr uint64_t k_max_stdout_artifact = 256u << 20;

// The most informative line of `--version` output: the first that names a
// version or release with a digit in it (ptxas and nvcc print a banner first),
// else the first line.
std::string version_line(const std::string& text) {
  for (const auto& raw : split(text, '\n')) {
    std::string line = trim(raw);
    std::string lower = line;
    for (auto& c : lower)
      c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    bool digit = line.find_first_of("0123456789") != std::string::npos;
    if (digit &&
        (lower.find("version") != std::string::npos || lower.find("release") != std::string::npos))
      return line;
  }
  return first_line(text);
}

class ExecBackend final : public Backend {
public:
  explicit ExecBackend(const BackendConfig& config)
      : m_template(check_command_template(config.command, "--cmd")),
        m_ext(check_output_ext(config.output_ext, "--output-ext")) {
    m_program = find_program(m_template[0]);
    if (!m_program.empty()) m_program = absolute_path(m_program); // --cwd vary must not lose it
    if (m_program.empty() || ::access(m_program.c_str(), X_OK) != 0)
      throw Error::format("--cmd: program '{}' not found or not executable", m_template[0]);
    m_has_output = template_names(m_template, "output");
    m_identity.backend = to_string(Kind::exec);
    m_identity.path = absolute_path(m_program);
    // The version is asked once per kdet invocation by the driver (exec_program_version),
    // not by every worker: a fresh worker per run would otherwise run `--version` per run.
  }

  const Identity& identity() const override { return m_identity; }

  CompileResult compile(const CompileRequest& req) override {
    CompileResult r;
    std::string workdir = shared_workdir(req.workdir);
    std::string output = workdir + "/output" + (m_ext.empty() ? "" : "." + m_ext);
    ::unlink(output.c_str());
    std::map<std::string, std::string> values = {
        {"input", req.input_path}, {"output", output}, {"workdir", workdir}};
    SpawnOptions opt;
    for (const auto& a : m_template)
      opt.argv.push_back(expand_word(a, values));
    opt.argv[0] = m_program;
    // Options after `--` are appended to the command.
    for (const auto& o : req.options)
      opt.argv.push_back(o);
    // libfaketime's shared clock for this compile's process tree, removed when it has ended.
    std::optional<FaketimeShared> clock;
    HostView host = req.host; // the worker applied what the compiler shares with it
    if (env_sets_faketime(host.env)) clock.emplace();
    if (clock && !clock->env().empty()) host.env.push_back(clock->env());
    apply_host_view(host, HostScope::child, &opt);
    // One byte over the cap tells "too large" from "exactly at the cap" (the rest is drained).
    const uint64_t stdout_cap = std::min(req.max_output, k_max_stdout_artifact);
    auto run = run_captured(opt, req.timeout,
                            m_has_output ? k_max_log : static_cast<size_t>(stdout_cap + 1));
    r.log = run.err.size() > k_max_log ? run.err.substr(0, k_max_log) : run.err;
    switch (run.status.kind) {
    case ExitStatus::Kind::not_started:
      r.status = Status::infra_error;
      r.detail = run.status.describe();
      return r;
    case ExitStatus::Kind::timed_out:
      r.status = Status::timed_out;
      r.detail = fmt::format("{} ran past the timeout and was killed", m_template[0]);
      return r;
    case ExitStatus::Kind::signaled:
      r.status = Status::crashed;
      r.signal = run.status.signal;
      r.detail = fmt::format("{} {}", m_template[0], run.status.describe());
      return r;
    case ExitStatus::Kind::exited:
      break;
    }
    r.code = run.status.code;
    if (run.status.code != 0) {
      r.status = Status::compile_error;
      r.detail = fmt::format("{} {}", m_template[0], run.status.describe());
      return r;
    }
    if (m_has_output) {
      struct stat st {};
      if (::stat(output.c_str(), &st) != 0) {
        r.status = Status::no_output;
        r.detail = fmt::format("{} exited 0 but wrote no {{output}} file", m_template[0]);
        return r;
      }
      if (S_ISREG(st.st_mode) && st.st_size == 0) {
        ::unlink(output.c_str());
        r.status = Status::no_output;
        r.detail = fmt::format("{} exited 0 but its {{output}} file is empty", m_template[0]);
        return r;
      }
      // The worker reads it (regular files only, up to --max-output) and removes it.
      backend::Artifact a;
      a.name = "output";
      a.file = std::make_shared<OwnedFile>(output);
      r.artifacts.push_back(std::move(a));
    } else {
      if (run.out.size() > stdout_cap) {
        r.status = Status::output_too_large;
        r.detail = fmt::format("stdout is larger than {:.1f} MiB{}; not kept",
                               static_cast<double>(stdout_cap) / (1 << 20),
                               stdout_cap < req.max_output
                                   ? " (kdet holds stdout in memory: write {output} instead)"
                                   : " (--max-output)");
        return r;
      }
      if (run.out.empty()) {
        r.status = Status::no_output;
        r.detail = fmt::format("{} exited 0 but printed nothing on stdout, which is the artifact "
                               "when the template names no {{output}}",
                               m_template[0]);
        return r;
      }
      r.artifacts.push_back({"stdout", std::move(run.out)});
    }
    r.status = Status::ok;
    return r;
  }

private:
  // The path this run's compiler is given for the slot folder `slot_dir`: the
  // shared one once this process has bound it there, else the slot's own.
  std::string shared_workdir(const std::string& slot_dir) {
    if (slot_dir.empty()) return slot_dir;
    if (m_bound_slot.empty() && !m_namespace_tried) {
      m_namespace_tried = true;
      std::string shared = shared_workdir_for(slot_dir);
      if (enter_slot_namespace(slot_dir, shared).empty()) {
        m_bound_slot = slot_dir;
        m_shared_dir = shared;
      }
    }
    return slot_dir == m_bound_slot ? m_shared_dir : slot_dir;
  }

  std::vector<std::string> m_template;
  std::string m_ext;
  std::string m_program;
  bool m_has_output = false;
  bool m_namespace_tried = false;
  std::string m_bound_slot, m_shared_dir;
  Identity m_identity;
};

} // namespace

std::string exec_program_version(const std::string& program) {
  // explain's cells and scan's jobs each start a session: one question per process is enough.
  static std::mutex mu;
  static std::map<std::string, std::string> asked;
  std::lock_guard<std::mutex> lock(mu);
  if (auto it = asked.find(program); it != asked.end()) return it->second;
  SpawnOptions v;
  v.argv = {program, "--version"};
  // In a folder of kdet's own, never the user's: a compiler may write where it runs. A program
  // that does not know --version may take it as a compile and hang: 3 s, once per program.
  std::optional<TempDir> dir;
  try {
    dir.emplace("version");
    v.cwd = dir->path();
  } catch (const Error&) {
    return asked[program] = "unknown (no folder to ask --version in)";
  }
  // Under a guard, as the compiles are under their worker: what the program starts ends with it,
  // and with kdet even when kdet is killed by SIGKILL while it asks.
  v.guard = true;
  auto out = run_captured(v, std::chrono::seconds(3), 4096);
  std::string version = out.status.ok() ? version_line(out.out.empty() ? out.err : out.out) : "";
  if (version.empty()) version = "unknown (--version gave nothing)";
  return asked[program] = version;
}

std::unique_ptr<Backend> make_exec_backend(const BackendConfig& config) {
  return std::make_unique<ExecBackend>(config);
}

} // namespace kdet::backend
