// Unit tests for util/hash: the one definition of an artifact's hash (PTX without its
// trailing NULs, every other artifact as its bytes, zeros at its end included).
#include "kdet/util/hash.hpp"

#include <gtest/gtest.h>
#include <string>

namespace kdet {
namespace {

TEST(ArtifactHash, PtxIsHashedWithoutItsTrailingNuls) {
  std::string text = ".version 8.0\n.target sm_90\n";
  // libNVVM and NVRTC hand PTX out with one NUL; a pipeline may write it with none or more.
  EXPECT_EQ(artifact_hash(ArtifactForm::ptx, text + '\0'), hash_bytes(text));
  EXPECT_EQ(artifact_hash(ArtifactForm::ptx, text + std::string(3, '\0')), hash_bytes(text));
  EXPECT_EQ(artifact_hash(ArtifactForm::ptx, text), hash_bytes(text));
  EXPECT_EQ(artifact_content(ArtifactForm::ptx, text + '\0'), text);
  // A NUL inside the text is part of it.
  std::string inner = std::string("a\0b", 3);
  EXPECT_EQ(artifact_hash(ArtifactForm::ptx, inner + '\0'), hash_bytes(inner));
  EXPECT_NE(artifact_hash(ArtifactForm::ptx, inner), hash_bytes("ab"));
  EXPECT_EQ(artifact_hash(ArtifactForm::ptx, std::string(2, '\0')), hash_bytes(""));
}

TEST(ArtifactHash, ACubinEndingInZeroBytesKeepsThemInItsHash) {
  // An ELF file may end in zero padding: every byte is the artifact's.
  std::string cubin = std::string("\x7f"
                                  "ELF\x02\x01\x01",
                                  7) +
                      std::string(5, '\0');
  EXPECT_EQ(artifact_hash(ArtifactForm::bytes, cubin), hash_bytes(cubin));
  EXPECT_NE(artifact_hash(ArtifactForm::bytes, cubin), artifact_hash(ArtifactForm::ptx, cubin));
  EXPECT_EQ(artifact_content(ArtifactForm::bytes, cubin).size(), cubin.size());
  // Cubins that differ in their trailing zeros alone are two artifacts.
  EXPECT_NE(artifact_hash(ArtifactForm::bytes, cubin),
            artifact_hash(ArtifactForm::bytes, cubin.substr(0, cubin.size() - 1)));
}

} // namespace
} // namespace kdet
