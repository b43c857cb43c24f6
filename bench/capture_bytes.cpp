//===- bench/capture_bytes.cpp - where capture's memory goes, structure by structure ===//
//
// Reads a capture folder's records (kdet capture --out DIR) as `kdet capture --finish` does,
// step by step, and prints the heap bytes each step left held (mallinfo2's in-use bytes before
// and after, mapped blocks included), in total and per compile: the compiles as read, the blob
// index, the compiles named and grouped into bundles. Run it on two captures of one pipeline at
// N/10 and N compiles to see which structure grows with every compile and which with what differs.
//
//===----------------------------------------------------------------------===//
#include "kdet/capture/blobs.hpp"
#include "kdet/capture/records.hpp"
#include "kdet/util/error.hpp"

#include <fmt/format.h>
#include <malloc.h>
#include <string>
#include <vector>

using namespace kdet;
using namespace kdet::capture;

namespace {

// Heap bytes in use: small blocks and the large ones malloc maps apart (a vector of 10^4
// compiles is one of those).
size_t held() {
  struct mallinfo2 m = mallinfo2();
  return m.uordblks + m.hblkhd;
}

} // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    fmt::print(stderr, "usage: capture_bytes DIR (a folder of kdet capture --out)\n");
    return 2;
  }
  try {
    std::string raw = std::string(argv[1]) + "/raw";
    std::vector<std::string> problems;
    size_t at = held();
    auto compiles = read_records(raw, problems);
    size_t records = held() - at;
    at = held();
    BlobStore blobs(raw, problems);
    size_t index = held() - at;
    at = held();
    std::vector<Bundle> bundles = bundle_records(compiles, blobs);
    size_t grouped = held() - at;
    double n = compiles.empty() ? 1.0 : static_cast<double>(compiles.size());
    fmt::print("{}: {} compiles, {} bundles\n", argv[1], compiles.size(), bundles.size());
    fmt::print("| step | bytes held | bytes a compile |\n|---|---:|---:|\n");
    auto row = [&](const char* what, size_t b) {
      fmt::print("| {} | {} | {:.0f} |\n", what, b, static_cast<double>(b) / n);
    };
    row("compiles read (read_records)", records);
    row("blob index (BlobStore)", index);
    row("named and grouped (bundle_records)", grouped);
    row("all", records + index + grouped);
    fmt::print("\nsizeof: Compile {}, Input {}, Output {}, Bundle {}\n", sizeof(Compile),
               sizeof(Input), sizeof(Output), sizeof(Bundle));
    for (const auto& p : problems)
      fmt::print("problem: {}\n", p);
    return 0;
  } catch (const Error& e) {
    fmt::print(stderr, "capture_bytes: {}\n", e.what());
    return 2;
  }
}
