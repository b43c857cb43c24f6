//===- backend/nvrtc.cpp - NVRTC: CUDA C++ to PTX (and cubin for sm_ archs) ---===//
#include "kdet/backend/backend.hpp"
#include "kdet/backend/library.hpp"

#include <fmt/format.h>
#include <nvrtc.h>

namespace kdet::backend {

namespace {

class NvrtcBackend final : public Backend {
public:
  explicit NvrtcBackend(const BackendConfig& config)
      : m_lib(config.lib.empty() ? default_library_path(Kind::nvrtc) : config.lib) {
    m_error_string = m_lib.get<decltype(&nvrtcGetErrorString)>("nvrtcGetErrorString");
    m_create = m_lib.get<decltype(&nvrtcCreateProgram)>("nvrtcCreateProgram");
    m_destroy = m_lib.get<decltype(&nvrtcDestroyProgram)>("nvrtcDestroyProgram");
    m_compile = m_lib.get<decltype(&nvrtcCompileProgram)>("nvrtcCompileProgram");
    m_add_name = m_lib.get<decltype(&nvrtcAddNameExpression)>("nvrtcAddNameExpression");
    m_ptx_size = m_lib.get<decltype(&nvrtcGetPTXSize)>("nvrtcGetPTXSize");
    m_ptx = m_lib.get<decltype(&nvrtcGetPTX)>("nvrtcGetPTX");
    m_cubin_size = m_lib.get<decltype(&nvrtcGetCUBINSize)>("nvrtcGetCUBINSize");
    m_cubin = m_lib.get<decltype(&nvrtcGetCUBIN)>("nvrtcGetCUBIN");
    m_ltoir_size = m_lib.get<decltype(&nvrtcGetLTOIRSize)>("nvrtcGetLTOIRSize");
    m_ltoir = m_lib.get<decltype(&nvrtcGetLTOIR)>("nvrtcGetLTOIR");
    m_log_size = m_lib.get<decltype(&nvrtcGetProgramLogSize)>("nvrtcGetProgramLogSize");
    m_log = m_lib.get<decltype(&nvrtcGetProgramLog)>("nvrtcGetProgramLog");
    auto version = m_lib.get<decltype(&nvrtcVersion)>("nvrtcVersion");
    int major = 0, minor = 0;
    version(&major, &minor);
    m_identity.backend = to_string(Kind::nvrtc);
    m_identity.path = m_lib.real_path();
    m_identity.version = fmt::format("NVRTC {}.{}", major, minor);
  }

  const Identity& identity() const override { return m_identity; }

  CompileResult compile(const CompileRequest& req) override {
    CompileResult r;
    nvrtcProgram prog = nullptr;
    // Headers (with their include names) go to the create call; name expressions after it.
    std::vector<const char*> headers, include_names;
    for (const auto& part : req.parts) {
      if (part.role == InputPart::Role::header) {
        headers.push_back(part.bytes.c_str());
        include_names.push_back(part.name ? part.name->c_str() : nullptr);
      } else if (part.role != InputPart::Role::name_expr) {
        r.status = Status::infra_error;
        r.detail = "NVRTC takes one source, headers and name expressions only";
        return r;
      }
    }
    nvrtcResult rc =
        m_create(&prog, req.input.c_str(), req.input_name.c_str(), static_cast<int>(headers.size()),
                 headers.empty() ? nullptr : headers.data(),
                 include_names.empty() ? nullptr : include_names.data());
    if (rc != NVRTC_SUCCESS) return fail(r, rc, "nvrtcCreateProgram");
    for (const auto& part : req.parts) {
      if (part.role != InputPart::Role::name_expr || !part.name) continue;
      rc = m_add_name(prog, part.name->c_str());
      if (rc != NVRTC_SUCCESS) {
        m_destroy(&prog);
        return fail(r, rc, "nvrtcAddNameExpression");
      }
    }
    std::vector<const char*> opts;
    for (const auto& o : req.options)
      opts.push_back(o.c_str());
    rc = m_compile(prog, static_cast<int>(opts.size()), opts.data());
    size_t n = 0;
    if (m_log_size(prog, &n) == NVRTC_SUCCESS && n > 1) {
      std::string log(n, '\0');
      if (m_log(prog, log.data()) == NVRTC_SUCCESS) {
        while (!log.empty() && log.back() == '\0')
          log.pop_back();
        r.log = std::move(log);
      }
    }
    if (rc != NVRTC_SUCCESS) {
      m_destroy(&prog);
      return fail(r, rc, "nvrtcCompileProgram");
    }
    // PTX exists unless the options asked for a real arch only; cubin only for sm_ archs.
    if (m_ptx_size(prog, &n) == NVRTC_SUCCESS && n > 1) {
      std::string ptx(n, '\0');
      if (m_ptx(prog, ptx.data()) == NVRTC_SUCCESS) {
        ptx.resize(artifact_content(ArtifactForm::ptx, ptx).size()); // the text (util/hash.hpp)
        r.artifacts.push_back({"ptx", std::move(ptx)});
      }
    }
    if (m_cubin_size(prog, &n) == NVRTC_SUCCESS && n > 0) {
      std::string cubin(n, '\0');
      if (m_cubin(prog, cubin.data()) == NVRTC_SUCCESS)
        r.artifacts.push_back({"cubin", std::move(cubin)});
    }
    // LTO-IR exists only under -dlto; without it a -dlto compile would look like "no output" every
    // run.
    if (m_ltoir_size(prog, &n) == NVRTC_SUCCESS && n > 0) {
      std::string ltoir(n, '\0');
      if (m_ltoir(prog, ltoir.data()) == NVRTC_SUCCESS)
        r.artifacts.push_back({"ltoir", std::move(ltoir)});
    }
    m_destroy(&prog);
    r.status = Status::ok;
    return r;
  }

private:
  CompileResult& fail(CompileResult& r, nvrtcResult rc, const char* call) {
    r.status = Status::compile_error;
    r.code = static_cast<int>(rc);
    const char* s = m_error_string(rc);
    r.detail = fmt::format("{}: {}", call, s ? s : "unknown error");
    return r;
  }

  Library m_lib;
  Identity m_identity;
  decltype(&nvrtcGetErrorString) m_error_string;
  decltype(&nvrtcCreateProgram) m_create;
  decltype(&nvrtcDestroyProgram) m_destroy;
  decltype(&nvrtcCompileProgram) m_compile;
  decltype(&nvrtcAddNameExpression) m_add_name;
  decltype(&nvrtcGetPTXSize) m_ptx_size;
  decltype(&nvrtcGetPTX) m_ptx;
  decltype(&nvrtcGetCUBINSize) m_cubin_size;
  decltype(&nvrtcGetCUBIN) m_cubin;
  decltype(&nvrtcGetLTOIRSize) m_ltoir_size;
  decltype(&nvrtcGetLTOIR) m_ltoir;
  decltype(&nvrtcGetProgramLogSize) m_log_size;
  decltype(&nvrtcGetProgramLog) m_log;
};

} // namespace

std::unique_ptr<Backend> make_nvrtc_backend(const BackendConfig& config) {
  return std::make_unique<NvrtcBackend>(config);
}

} // namespace kdet::backend
