//===- backend/nvvm.cpp - libNVVM: NVVM IR (text or bitcode) to PTX ----------===//
#include "kdet/backend/backend.hpp"
#include "kdet/backend/library.hpp"

#include <fmt/format.h>
#include <nvvm.h>

namespace kdet::backend {

namespace {

class NvvmBackend final : public Backend {
public:
  explicit NvvmBackend(const BackendConfig& config)
      : m_lib(config.lib.empty() ? default_library_path(Kind::nvvm) : config.lib) {
    m_error_string = m_lib.get<decltype(&nvvmGetErrorString)>("nvvmGetErrorString");
    m_create = m_lib.get<decltype(&nvvmCreateProgram)>("nvvmCreateProgram");
    m_destroy = m_lib.get<decltype(&nvvmDestroyProgram)>("nvvmDestroyProgram");
    m_add = m_lib.get<decltype(&nvvmAddModuleToProgram)>("nvvmAddModuleToProgram");
    // Only multi-module requests (replayed bundles) need it; a library without it still loads.
    m_lazy_add = reinterpret_cast<decltype(&nvvmLazyAddModuleToProgram)>(
        m_lib.try_symbol("nvvmLazyAddModuleToProgram"));
    m_compile = m_lib.get<decltype(&nvvmCompileProgram)>("nvvmCompileProgram");
    m_result_size = m_lib.get<decltype(&nvvmGetCompiledResultSize)>("nvvmGetCompiledResultSize");
    m_result = m_lib.get<decltype(&nvvmGetCompiledResult)>("nvvmGetCompiledResult");
    m_log_size = m_lib.get<decltype(&nvvmGetProgramLogSize)>("nvvmGetProgramLogSize");
    m_log = m_lib.get<decltype(&nvvmGetProgramLog)>("nvvmGetProgramLog");
    auto version = m_lib.get<decltype(&nvvmVersion)>("nvvmVersion");
    auto ir_version = m_lib.get<decltype(&nvvmIRVersion)>("nvvmIRVersion");
    int major = 0, minor = 0, ir_major = 0, ir_minor = 0, dbg_major = 0, dbg_minor = 0;
    version(&major, &minor);
    ir_version(&ir_major, &ir_minor, &dbg_major, &dbg_minor);
    m_identity.backend = to_string(Kind::nvvm);
    m_identity.path = m_lib.real_path();
    m_identity.version = fmt::format("libNVVM {}.{}, NVVM IR {}.{}, debug metadata {}.{}", major,
                                     minor, ir_major, ir_minor, dbg_major, dbg_minor);
  }

  const Identity& identity() const override { return m_identity; }

  CompileResult compile(const CompileRequest& req) override {
    CompileResult r;
    nvvmProgram prog = nullptr;
    nvvmResult rc = m_create(&prog);
    if (rc != NVVM_SUCCESS) return fail(r, rc, "nvvmCreateProgram");
    rc = m_add(prog, req.input.data(), req.input.size(), req.input_name.c_str());
    const char* call = "nvvmAddModuleToProgram";
    // Further modules in order, lazy ones (libdevice) with the lazy call.
    for (size_t i = 0; i < req.parts.size() && rc == NVVM_SUCCESS; ++i) {
      const InputPart& part = req.parts[i];
      const char* name = part.name ? part.name->c_str() : nullptr;
      bool lazy = part.role == InputPart::Role::lazy_module;
      if ((!lazy && part.role != InputPart::Role::module) || (lazy && !m_lazy_add)) {
        m_destroy(&prog);
        r.status = Status::infra_error;
        r.detail = lazy
                       ? "the library has no nvvmLazyAddModuleToProgram"
                       : fmt::format("input {} is not a module: libNVVM takes modules only", i + 2);
        return r;
      }
      rc = (lazy ? m_lazy_add : m_add)(prog, part.bytes.data(), part.bytes.size(), name);
      if (lazy) call = "nvvmLazyAddModuleToProgram";
    }
    if (rc != NVVM_SUCCESS) {
      read_log(prog, r);
      m_destroy(&prog);
      return fail(r, rc, call);
    }
    std::vector<const char*> opts;
    for (const auto& o : req.options)
      opts.push_back(o.c_str());
    rc = m_compile(prog, static_cast<int>(opts.size()), opts.data());
    read_log(prog, r);
    if (rc != NVVM_SUCCESS) {
      m_destroy(&prog);
      return fail(r, rc, "nvvmCompileProgram");
    }
    size_t size = 0;
    rc = m_result_size(prog, &size);
    if (rc == NVVM_SUCCESS) {
      std::string ptx(size, '\0');
      rc = m_result(prog, ptx.data());
      // The result is a NUL-terminated string; keep exactly the text (util/hash.hpp).
      ptx.resize(artifact_content(ArtifactForm::ptx, ptx).size());
      r.artifacts.push_back({"ptx", std::move(ptx)});
    }
    m_destroy(&prog);
    if (rc != NVVM_SUCCESS) return fail(r, rc, "nvvmGetCompiledResult");
    r.status = Status::ok;
    return r;
  }

private:
  CompileResult& fail(CompileResult& r, nvvmResult rc, const char* call) {
    r.status = Status::compile_error;
    r.code = static_cast<int>(rc);
    const char* s = m_error_string(rc);
    r.detail = fmt::format("{}: {}", call, s ? s : "unknown error");
    return r;
  }

  void read_log(nvvmProgram prog, CompileResult& r) {
    size_t n = 0;
    if (m_log_size(prog, &n) != NVVM_SUCCESS || n <= 1) return;
    std::string log(n, '\0');
    if (m_log(prog, log.data()) == NVVM_SUCCESS) {
      while (!log.empty() && log.back() == '\0')
        log.pop_back();
      r.log += log;
    }
  }

  Library m_lib;
  Identity m_identity;
  decltype(&nvvmGetErrorString) m_error_string;
  decltype(&nvvmCreateProgram) m_create;
  decltype(&nvvmDestroyProgram) m_destroy;
  decltype(&nvvmAddModuleToProgram) m_add;
  decltype(&nvvmLazyAddModuleToProgram) m_lazy_add = nullptr;
  decltype(&nvvmCompileProgram) m_compile;
  decltype(&nvvmGetCompiledResultSize) m_result_size;
  decltype(&nvvmGetCompiledResult) m_result;
  decltype(&nvvmGetProgramLogSize) m_log_size;
  decltype(&nvvmGetProgramLog) m_log;
};

} // namespace

std::unique_ptr<Backend> make_nvvm_backend(const BackendConfig& config) {
  return std::make_unique<NvvmBackend>(config);
}

} // namespace kdet::backend
