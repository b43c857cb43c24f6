// Unit tests for the driver's load seam: load records read apart from compiles
// (capture/records), and a fatbin's members read without reading past its end (diff/).
#include "kdet/capture/records.hpp"
#include "kdet/diff/cubin_entries.hpp"
#include "kdet/util/fs.hpp"
#include "kdet/util/tempdir.hpp"

#include <cstdint>
#include <cstring>
#include <gtest/gtest.h>
#include <sys/stat.h>

namespace kdet::capture {
namespace {

TEST(Loads, LoadRecordsAreReadApartFromCompiles) {
  TempDir t("loads");
  std::string raw = t.path();
  ASSERT_EQ(::mkdir((raw + "/records").c_str(), 0755), 0);
  std::string h(32, 'a'), g(32, 'b');
  write_file_atomic(raw + "/records/1-x.log",
                    "kdet-capture-record 1 1\nkind nvvm\npid 1\ntime_ns 1\nmodule " + h +
                        " 3 0 -\nbegin\n1 result 0\n"
                        "kdet-capture-record 1 2\nkind load\npid 1\ntime_ns 2\noption x" +
                        "63754d6f64756c654c6f616444617461" + "\nimage " + g +
                        " 40 -\nresult 0\nbegin\n");
  std::vector<std::string> problems;
  std::vector<Compile> compiles = read_records(raw, problems);
  EXPECT_TRUE(problems.empty()) << problems.front();
  ASSERT_EQ(compiles.size(), 1u);
  EXPECT_EQ(compiles[0].kind(), "nvvm");
  std::vector<Compile> loads = read_load_records(raw);
  ASSERT_EQ(loads.size(), 1u);
  EXPECT_EQ(loads[0].options(), std::vector<std::string>{"cuModuleLoadData"});
  ASSERT_EQ(loads[0].inputs().size(), 1u);
  EXPECT_EQ(loads[0].inputs()[0].tag, "image");
  EXPECT_EQ(loads[0].inputs()[0].hash, g);
  EXPECT_EQ(loads[0].inputs()[0].size, 40u);
  EXPECT_FALSE(loads[0].inputs()[0].name);
  EXPECT_EQ(loads[0].result, 0);
}

// A fatbin: header, then entries {kind, version, header size, payload size, ..., arch at 28,
// flags at 40}.
std::string fatbin(const std::vector<std::tuple<uint16_t, uint64_t, std::string>>& members) {
  std::string body;
  for (const auto& [kind, flags, bytes] : members) {
    std::string e(64, '\0');
    uint32_t header = 64, arch = 90;
    uint64_t payload = bytes.size();
    std::memcpy(e.data(), &kind, 2);
    std::memcpy(e.data() + 4, &header, 4);
    std::memcpy(e.data() + 8, &payload, 8);
    std::memcpy(e.data() + 28, &arch, 4);
    std::memcpy(e.data() + 40, &flags, 8);
    body += e + bytes;
  }
  std::string f(16, '\0');
  uint32_t magic = 0xba55ed50;
  uint16_t version = 1, fh = 16;
  uint64_t size = body.size();
  std::memcpy(f.data(), &magic, 4);
  std::memcpy(f.data() + 4, &version, 2);
  std::memcpy(f.data() + 6, &fh, 2);
  std::memcpy(f.data() + 8, &size, 8);
  return f + body;
}

TEST(Loads, FatbinMembersPlainAndCompressed) {
  std::string ptx = ".version 8.0\n.target sm_90\n.visible .entry k()\n{\n ret;\n}\n";
  std::string f = fatbin({{1, 0, ptx}, {1, 0x8000, std::string("\x28\xb5\x2f\xfd", 4)}});
  auto ms = diff::fatbin_members(f);
  ASSERT_EQ(ms.size(), 2u);
  EXPECT_EQ(ms[0].kind, 1);
  EXPECT_EQ(ms[0].arch, 90u);
  EXPECT_FALSE(ms[0].compressed);
  EXPECT_EQ(ms[0].bytes, ptx);
  EXPECT_TRUE(ms[1].compressed);
  EXPECT_TRUE(ms[1].bytes.empty());
  // Cut short: the member that runs past the end is not read; no fatbin: nothing.
  EXPECT_EQ(diff::fatbin_members(std::string_view(f).substr(0, f.size() - 1)).size(), 1u);
  EXPECT_TRUE(diff::fatbin_members(ptx).empty());
  EXPECT_TRUE(diff::cubin_entry_names(ptx).empty());
}

} // namespace
} // namespace kdet::capture
