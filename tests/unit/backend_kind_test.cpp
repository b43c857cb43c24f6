// backend::Kind: one spelling per kind, parsed once, with an error naming what is valid.
#include "kdet/backend/backend.hpp"
#include "kdet/util/error.hpp"

#include <gtest/gtest.h>
#include <string>

using namespace kdet;
using backend::Kind;

TEST(BackendKind, EverySpellingRoundTrips) {
  for (Kind k : backend::k_kinds) {
    auto back = backend::parse_kind(backend::to_string(k));
    ASSERT_TRUE(back.has_value()) << backend::to_string(k);
    EXPECT_EQ(*back, k);
  }
  EXPECT_STREQ(backend::to_string(Kind::exec), "exec");
  EXPECT_STREQ(backend::to_string(Kind::nvjitlink), "nvjitlink");
  EXPECT_STREQ(backend::to_string(Kind::python), "python");
}

TEST(BackendKind, UnknownSpellingsAreRefused) {
  for (const char* bad : {"", "Exec", "nvvm ", "capi", "ptxas"})
    EXPECT_FALSE(backend::parse_kind(bad).has_value()) << "'" << bad << "'";
}

TEST(BackendKind, ErrorNamesTheOptionAndTheValidKinds) {
  try {
    backend::parse_kind("ptxas", "--backend");
    FAIL() << "no error for --backend ptxas";
  } catch (const Error& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("--backend 'ptxas'"), std::string::npos) << m;
    EXPECT_NE(m.find("nvvm, nvrtc, nvjitlink, exec or python"), std::string::npos) << m;
    EXPECT_EQ(e.exit_code(), 2);
  }
}

TEST(BackendKind, ExtensionsPickALibraryBackend) {
  EXPECT_EQ(backend::backend_for_extension("k.ll"), Kind::nvvm);
  EXPECT_EQ(backend::backend_for_extension("k.cu"), Kind::nvrtc);
  EXPECT_EQ(backend::backend_for_extension("k.ptx"), Kind::nvjitlink);
  EXPECT_THROW(backend::backend_for_extension("k.txt"), Error);
}
