//===- engine/artifact_files.cpp - artifacts on their way from worker to driver ===//
#include "kdet/engine/artifact_files.hpp"

#include "kdet/util/error.hpp"
#include "kdet/util/fs.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

namespace kdet::engine {

namespace {

std::string artifact_path(const std::string& dir, size_t i) {
  return fmt::format("{}/artifact{}", dir, i);
}

void fail(backend::CompileResult& r, backend::Status status, std::string detail) {
  r.status = status;
  r.detail = std::move(detail);
  r.artifacts.clear(); // files left in the work folder go with it
}

std::string mib(uint64_t bytes) {
  return fmt::format("{:.1f} MiB", static_cast<double>(bytes) / (1 << 20));
}

} // namespace

void settle_artifacts(backend::CompileResult& r, const std::string& dir, uint64_t max_output) {
  if (r.status != backend::Status::ok) {
    r.artifacts.clear();
    return;
  }
  for (size_t i = 0; i < r.artifacts.size(); ++i) {
    auto& a = r.artifacts[i];
    if (a.file) {
      // Only an exec compile's output comes as a file: bytes, hashed whole (artifact_form).
      Hasher h;
      std::string data;
      bool fits = true;
      auto sr = stream_regular_file(a.file->path(), max_output, [&](std::string_view chunk) {
        h.add_raw(chunk);
        if (!fits) return;
        if (data.size() + chunk.size() <= k_inline_artifact_max)
          data.append(chunk);
        else {
          fits = false;
          std::string().swap(data);
        }
      });
      switch (sr.status) {
      case StreamResult::Status::ok:
        break;
      case StreamResult::Status::not_regular:
        return fail(
            r, backend::Status::compile_error,
            fmt::format("the compiler left its {} ({}) as {}, not a regular file; kdet reads only "
                        "regular files",
                        a.name, a.file->path(), sr.what));
      case StreamResult::Status::too_large:
        return fail(
            r, backend::Status::output_too_large,
            fmt::format("{} is larger than --max-output ({}{}); not read further", a.name,
                        mib(max_output),
                        sr.size > max_output ? fmt::format(", at least {}", mib(sr.size)) : ""));
      case StreamResult::Status::unreadable:
        return fail(r, backend::Status::infra_error,
                    fmt::format("cannot read the {} ({}): {}", a.name, a.file->path(), sr.what));
      }
      a.size = sr.size;
      a.hash = h.hex();
      if (fits) {
        a.data = std::move(data);
        a.file.reset(); // removes the compiler's file
        continue;
      }
      std::string kept = artifact_path(dir, i);
      if (::rename(a.file->path().c_str(), kept.c_str()) != 0) {
        // The slot's mount namespace binds the compiler's folder at another mount
        // point of the same file system: rename() across mounts fails with EXDEV.
        int e = errno;
        if (e != EXDEV)
          return fail(r, backend::Status::infra_error,
                      fmt::format("cannot move the {} to {}: {}", a.name, kept, std::strerror(e)));
        try {
          copy_file_atomic(a.file->path(), kept);
        } catch (const std::exception& ex) {
          return fail(r, backend::Status::infra_error, ex.what());
        }
        a.file.reset(); // removes the compiler's file
      }
      a.file = std::make_shared<OwnedFile>(kept, nullptr, false); // the driver takes it over
    } else {
      a.size = a.data.size();
      a.hash = artifact_hash(backend::artifact_form(a.name), a.data);
      if (a.size > max_output)
        return fail(r, backend::Status::output_too_large,
                    fmt::format("{} is larger than --max-output ({}, it has {})", a.name,
                                mib(max_output), mib(a.size)));
      if (a.size <= k_inline_artifact_max) continue;
      std::string kept = artifact_path(dir, i);
      try {
        write_file_synced(kept, a.data, false);
      } catch (const std::exception& e) {
        return fail(r, backend::Status::infra_error, e.what());
      }
      std::string().swap(a.data);
      a.file = std::make_shared<OwnedFile>(kept, nullptr, false);
    }
  }
}

bool adopt_artifact_files(backend::CompileResult& r, const std::string& dir) {
  bool ok = true;
  for (size_t i = 0; i < r.artifacts.size(); ++i) {
    auto& a = r.artifacts[i];
    if (!a.file) continue;
    struct stat st {};
    if (a.file->path() != artifact_path(dir, i) || ::lstat(a.file->path().c_str(), &st) != 0 ||
        !S_ISREG(st.st_mode) || static_cast<uint64_t>(st.st_size) != a.size) {
      ok = false;
      continue;
    }
    a.file = std::make_shared<OwnedFile>(a.file->path());
  }
  return ok;
}

void keep_artifact_file(backend::Artifact& a, const std::shared_ptr<const TempFolder>& keep,
                        uint64_t serial) {
  if (!a.file) return;
  std::string to = fmt::format("{}/{}", keep->path(), serial);
  if (::rename(a.file->path().c_str(), to.c_str()) != 0)
    throw Error::format("cannot keep an artifact in {}: {}", keep->path(), std::strerror(errno));
  a.file = std::make_shared<OwnedFile>(to, keep);
}

void add_artifact(Hasher& h, const backend::Artifact& a) {
  h.add(a.name);
  if (!a.file) {
    h.add(a.data);
    return;
  }
  h.add_u64(a.size);
  auto sr = stream_regular_file(a.file->path(), a.size,
                                [&](std::string_view chunk) { h.add_raw(chunk); });
  if (sr.status != StreamResult::Status::ok || sr.size != a.size)
    throw Error::format("artifact file {} changed while kdet read it", a.file->path());
}

} // namespace kdet::engine
