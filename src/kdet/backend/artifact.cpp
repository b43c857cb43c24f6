//===- backend/artifact.cpp - an artifact's content, in memory or on disk ---===//
#include "kdet/backend/backend.hpp"
#include "kdet/util/error.hpp"
#include "kdet/util/fs.hpp"

namespace kdet::backend {

std::string artifact_bytes(const Artifact& a) {
  return a.file ? read_file(a.file->path()) : a.data;
}

ArtifactForm artifact_form(std::string_view name) {
  return name == "ptx" ? ArtifactForm::ptx : ArtifactForm::bytes;
}

void write_artifact(const Artifact& a, const std::string& path) {
  if (a.file)
    copy_file_atomic(a.file->path(), path);
  else
    write_file_atomic(path, a.data);
}

} // namespace kdet::backend
