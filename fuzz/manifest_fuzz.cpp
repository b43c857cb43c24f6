//===- fuzz/manifest_fuzz.cpp - libFuzzer target for the scan manifest parser ===//
//
// Input: a manifest (TOML) text. It is parsed as if it lay in a private temp
// folder holding a few inputs (a.ll, b.ll, sub/c.ll), so that relative globs
// have something to match. Parsing only reads the filesystem (glob, stat,
// access, PATH lookup). A bad manifest must be a kdet::Error (exit 2 in the
// CLI); any other exception, crash or hang is a finding.
//
//===----------------------------------------------------------------------===//
#include "kdet/scan/manifest.hpp"
#include "kdet/util/error.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

namespace {
std::string g_manifest_path;

void write_file(const std::string& path, const char* text) {
  FILE* f = std::fopen(path.c_str(), "w");
  if (!f) std::abort();
  std::fputs(text, f);
  std::fclose(f);
}
} // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  char dir[] = "/tmp/kdet-fuzz-manifest.XXXXXX";
  if (!::mkdtemp(dir)) std::abort();
  std::string d = dir;
  ::mkdir((d + "/sub").c_str(), 0700);
  write_file(d + "/a.ll", "; a\n");
  write_file(d + "/b.ll", "; b\n");
  write_file(d + "/sub/c.ll", "; c\n");
  g_manifest_path = d + "/m.toml";
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  try {
    kdet::scan::Manifest m = kdet::scan::parse_manifest(text, g_manifest_path);
    (void)kdet::scan::job_budget(m);
  } catch (const kdet::Error&) {
  }
  return 0;
}
