//===- fuzz/scan_db_fuzz.cpp - libFuzzer target for the scan database reader ===//
//
// Input: the bytes of a database file. They are written to a private temp file,
// which is then opened as a scan database and read the ways `kdet scan --report`,
// `compare` and `merge` read one (meta, run count, every job, artifacts, and a
// merge into a fresh database). A damaged or foreign file must be a kdet::Error
// naming it (exit 2 in the CLI); any other exception, crash or hang is a finding.
// Seeds: databases written by a real `kdet scan` (scripts/fuzz.sh makes them).
//
//===----------------------------------------------------------------------===//
#include "kdet/store/scan_db.hpp"
#include "kdet/util/error.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <unistd.h>

namespace {
std::string g_dir;

void remove_db(const std::string& path) {
  for (const char* suffix : {"", "-journal", "-wal", "-shm"})
    ::unlink((path + suffix).c_str());
}
} // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  char dir[] = "/tmp/kdet-fuzz-scandb.XXXXXX";
  if (!::mkdtemp(dir)) std::abort();
  g_dir = dir;
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = g_dir + "/in.db", fresh = g_dir + "/fresh.db";
  remove_db(path);
  remove_db(fresh);
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) std::abort();
  if (size && std::fwrite(data, 1, size, f) != size) std::abort();
  std::fclose(f);
  try {
    kdet::store::ScanDb db(path);
    (void)db.meta();
    (void)db.run_count();
    auto result = db.load();
    (void)result;
  } catch (const kdet::Error&) {
  }
  try {
    kdet::store::ScanDb out(fresh);
    out.merge_from(path);
  } catch (const kdet::Error&) {
  }
  return 0;
}
