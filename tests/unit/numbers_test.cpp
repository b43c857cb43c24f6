//===- numbers_test.cpp - range-checked numbers from options and files ---------===//
#include "kdet/util/error.hpp"
#include "kdet/util/numbers.hpp"

#include <cmath>
#include <gtest/gtest.h>
#include <limits>

namespace kdet {
namespace {

TEST(Numbers, WholeRefusesEverythingButDigitsInRange) {
  WholeRange r{1, 1000};
  EXPECT_EQ(parse_whole("1", r), 1u);
  EXPECT_EQ(parse_whole("1000", r), 1000u);
  EXPECT_EQ(parse_whole("007", r), 7u);
  for (const char* bad :
       {"", "0", "1001", "-1", "+1", " 1", "1 ", "1.5", "1e3", "0x10", "nan", "inf", "4294967296",
        "18446744073709551616", "99999999999999999999999", "1\n", "\xe9"})
    EXPECT_FALSE(parse_whole(bad, r)) << "'" << bad << "'";
  EXPECT_EQ(parse_whole("18446744073709551615", WholeRange{}), UINT64_MAX);
  EXPECT_FALSE(parse_whole("18446744073709551616", WholeRange{}));
}

TEST(Numbers, RealRefusesNanInfinityOverflowAndOutOfRange) {
  RealRange r{1e-6, 0.5, false};
  EXPECT_DOUBLE_EQ(*parse_real("0.01", r), 0.01);
  EXPECT_DOUBLE_EQ(*parse_real("1e-3", r), 1e-3);
  for (const char* bad : {"", "0", "1e-300", "1e-400", "0.6", "-0.1", "nan", "NaN", "inf", "-inf",
                          "infinity", "1e400", "0x1p-3", " 0.1", "0.1x", "."})
    EXPECT_FALSE(parse_real(bad, r)) << "'" << bad << "'";
}

TEST(Numbers, TimeoutRangeTakesZeroAsNeverButNotSubMillisecond) {
  EXPECT_DOUBLE_EQ(*parse_real("0", k_timeout_range), 0);
  EXPECT_DOUBLE_EQ(*parse_real("0.001", k_timeout_range), 0.001);
  EXPECT_FALSE(parse_real("0.0005", k_timeout_range));
  EXPECT_FALSE(parse_real("-1", k_timeout_range));
  EXPECT_FALSE(parse_real("1e7", k_timeout_range));
}

TEST(Numbers, CheckedValuesFromFiles) {
  WholeRange r{0, 10'000'000};
  EXPECT_EQ(check_whole(12, r), "");
  EXPECT_NE(check_whole(1.5, r), "");
  EXPECT_NE(check_whole(std::nan(""), r), "");
  EXPECT_NE(check_whole(std::numeric_limits<double>::infinity(), r), "");
  EXPECT_NE(check_whole(-1, r), "");
  EXPECT_NE(check_whole(1e300, r), "");
  EXPECT_NE(check_real(std::nan(""), {0, 1, false}), "");
  EXPECT_EQ(check_real(0, k_timeout_range), "");
}

TEST(Numbers, ErrorsNameTheOptionAndTheRange) {
  try {
    parse_whole_or_throw("-1", "--runs", {1, 100});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "--runs '-1': not valid; give a whole number from 1 to 100");
    EXPECT_EQ(e.exit_code(), 2);
  }
  try {
    parse_real_or_throw("nan", "--timeout", k_timeout_range);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "--timeout 'nan': not valid; give a number from 0.001 to 1000000 (or 0)");
  }
}

} // namespace
} // namespace kdet
