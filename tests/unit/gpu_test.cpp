// gpu/: recipe parsing and its errors, initial contents, the interleaved schedule, the
// timing statistics, the bitwise comparison and its report text, and the driver probe
// where no GPU driver is (none of it needs a GPU).
#include "kdet/gpu/cuda.hpp"
#include "kdet/gpu/measure.hpp"
#include "kdet/gpu/recipe.hpp"
#include "kdet/util/error.hpp"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <gtest/gtest.h>
#include <limits>
#include <string>

namespace kdet::gpu {
namespace {

const char* k_recipe = R"(# a comment
kernel = "saxpy"
grid = [64, 2]
block = 128
shared_bytes = 512

[[arg]]
name = "x"
buffer = "f32"
elements = 1000
seed = 7
output = false

[[arg]]
buffer = "u8"
bytes = 24
init = "zero"

[[arg]]
name = "a"
scalar = "f32"
value = 0.5

[[arg]]
name = "n"
scalar = "i32"
value = -3

[[arg]]
name = "big"
scalar = "u64"
value = 4294967296

[[arg]]
name = "d"
scalar = "f64"
value = 2
)";

TEST(GpuRecipe, ParsesEveryField) {
  Recipe r = parse_recipe(k_recipe, "r.toml");
  EXPECT_EQ(r.kernel, "saxpy");
  EXPECT_EQ(r.grid, (std::array<uint32_t, 3>{64, 2, 1}));
  EXPECT_EQ(r.block, (std::array<uint32_t, 3>{128, 1, 1}));
  EXPECT_EQ(r.shared_bytes, 512u);
  ASSERT_EQ(r.args.size(), 6u);
  EXPECT_EQ(r.args[0].name, "x");
  EXPECT_EQ(r.args[0].kind, RecipeArg::Kind::buffer);
  EXPECT_EQ(r.args[0].elements, 1000u);
  EXPECT_EQ(r.args[0].bytes(), 4000u);
  EXPECT_TRUE(r.args[0].random);
  EXPECT_EQ(r.args[0].seed, 7u);
  EXPECT_FALSE(r.args[0].output);
  EXPECT_EQ(r.args[0].line, 7);
  EXPECT_EQ(r.args[1].name, "arg 2");
  EXPECT_EQ(r.args[1].type, Type::u8);
  EXPECT_EQ(r.args[1].elements, 24u);
  EXPECT_FALSE(r.args[1].random);
  EXPECT_TRUE(r.args[1].output); // compared by default
  EXPECT_EQ(r.args[2].kind, RecipeArg::Kind::scalar);
  EXPECT_EQ(r.args[2].bits, 0x3f000000u);
  EXPECT_EQ(r.args[3].bits, 0xfffffffdu);
  EXPECT_EQ(r.args[4].bits, 1ULL << 32);
  EXPECT_EQ(r.args[5].bits, 0x4000000000000000ULL);
  EXPECT_EQ(dims_text(r.grid), "64x2x1");
  EXPECT_EQ(dims_text(r.block), "128");
}

TEST(GpuRecipe, WritesWhatItReads) {
  Recipe r = parse_recipe(k_recipe, "r.toml");
  std::string text = to_toml(r, "two\nlines");
  EXPECT_EQ(text.rfind("# two\n# lines\n", 0), 0u);
  Recipe back = parse_recipe(text, "back.toml");
  EXPECT_EQ(back.kernel, r.kernel);
  EXPECT_EQ(back.grid, r.grid);
  EXPECT_EQ(back.block, r.block);
  EXPECT_EQ(back.shared_bytes, r.shared_bytes);
  ASSERT_EQ(back.args.size(), r.args.size());
  for (size_t i = 0; i < r.args.size(); ++i) {
    EXPECT_EQ(back.args[i].name, r.args[i].name) << i;
    EXPECT_EQ(back.args[i].kind, r.args[i].kind) << i;
    EXPECT_EQ(back.args[i].type, r.args[i].type) << i;
    EXPECT_EQ(back.args[i].elements, r.args[i].elements) << i;
    EXPECT_EQ(back.args[i].random, r.args[i].random) << i;
    EXPECT_EQ(back.args[i].output, r.args[i].output) << i;
    EXPECT_EQ(back.args[i].bits, r.args[i].bits) << i;
    if (r.args[i].random) {
      EXPECT_EQ(back.args[i].seed, r.args[i].seed) << i;
    }
  }
}

// The message of parse_recipe on `text`, or "" when it parsed.
std::string error_of(const std::string& text) {
  try {
    parse_recipe(text, "bad.toml");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(GpuRecipe, ErrorsNameFileAndLine) {
  const std::string head = "kernel = \"k\"\ngrid = 1\nblock = 32\n";
  EXPECT_EQ(error_of("kernel = \n"), error_of("kernel = \n")); // deterministic
  EXPECT_NE(error_of("kernel = \n").find("bad.toml:1: not valid TOML"), std::string::npos);
  EXPECT_NE(error_of("grid = 1\nblock = 1\n[[arg]]\nscalar = \"i32\"\nvalue = 1\n")
                .find("bad.toml:1: the recipe needs 'kernel'"),
            std::string::npos);
  EXPECT_NE(error_of(head + "colour = 1\n").find("bad.toml:4: unknown key 'colour'"),
            std::string::npos);
  EXPECT_NE(error_of(head).find("needs its kernel's arguments"), std::string::npos);
  EXPECT_NE(error_of("kernel = \"k\"\ngrid = 1\nblock = [32, 64]\n[[arg]]\nscalar = \"i32\"\n"
                     "value = 1\n")
                .find("bad.toml:3: block: 2048 threads"),
            std::string::npos);
  EXPECT_NE(error_of("kernel = \"k\"\ngrid = 0\nblock = 1\n")
                .find("bad.toml:2: grid: expected "
                      "an integer from 1"),
            std::string::npos);
  EXPECT_NE(error_of(head + "[[arg]]\nbuffer = \"f32\"\nscalar = \"f32\"\nelements = 1\n")
                .find("bad.toml:4: [[arg]] 1: give either buffer"),
            std::string::npos);
  EXPECT_NE(error_of(head + "[[arg]]\nbuffer = \"f16\"\nelements = 1\n")
                .find("bad.toml:5: [[arg]] 1: buffer: expected a type"),
            std::string::npos);
  EXPECT_NE(error_of(head + "[[arg]]\nbuffer = \"f32\"\nbytes = 6\n")
                .find("bad.toml:6: [[arg]] 1: bytes 6 is not a multiple of f32's 4 bytes"),
            std::string::npos);
  EXPECT_NE(error_of(head + "[[arg]]\nbuffer = \"f32\"\n").find("give either 'elements' or"),
            std::string::npos);
  EXPECT_NE(error_of(head + "[[arg]]\nbuffer = \"f32\"\nelements = 1\ninit = \"ones\"\n")
                .find("bad.toml:7: [[arg]] 1: init must be"),
            std::string::npos);
  EXPECT_NE(error_of(head + "[[arg]]\nbuffer = \"f32\"\nelements = 1\nvalue = 1\n")
                .find("bad.toml:7: unknown key 'value' in [[arg]] 1 (a buffer)"),
            std::string::npos);
  EXPECT_NE(error_of(head + "[[arg]]\nscalar = \"f32\"\nvalue = 1e39\n")
                .find("bad.toml:6: [[arg]] 1: value: 1e+39 is out of range for f32"),
            std::string::npos);
  EXPECT_NE(error_of(head + "[[arg]]\nscalar = \"i32\"\nvalue = 2147483648\n")
                .find("bad.toml:6: [[arg]] 1: value: expected an integer from -2147483648"),
            std::string::npos);
  EXPECT_NE(error_of(head + "[[arg]]\nscalar = \"u32\"\n").find("a scalar needs 'value'"),
            std::string::npos);
  EXPECT_NE(error_of(head + "arg = 3\n").find("bad.toml:4: arg: write each argument"),
            std::string::npos);
}

TEST(GpuRecipe, InitialContentsAreSeededAndInRange) {
  RecipeArg a;
  a.type = Type::f32;
  a.elements = 4096;
  a.seed = 3;
  std::string x = initial_contents(a), y = initial_contents(a);
  ASSERT_EQ(x.size(), 4096u * 4);
  EXPECT_EQ(x, y);
  double sum = 0;
  for (size_t i = 0; i < a.elements; ++i) {
    float f = 0;
    std::memcpy(&f, x.data() + 4 * i, 4);
    ASSERT_GE(f, -1.0f);
    ASSERT_LT(f, 1.0f);
    sum += f;
  }
  EXPECT_LT(std::fabs(sum / 4096), 0.05); // centred on 0
  a.seed = 4;
  EXPECT_NE(initial_contents(a), x);
  a.random = false;
  EXPECT_EQ(initial_contents(a), std::string(4096u * 4, '\0'));
  RecipeArg b;
  b.type = Type::u8;
  b.elements = 13; // not a multiple of the 8 bytes one draw gives
  b.seed = 1;
  EXPECT_EQ(initial_contents(b).size(), 13u);
  EXPECT_NE(initial_contents(b), std::string(13, '\0'));
}

TEST(GpuMeasure, InterleavedScheduleAlternatesOrder) {
  std::vector<int> s = interleaved_schedule(3);
  EXPECT_EQ(s, (std::vector<int>{0, 1, 1, 0, 0, 1}));
  EXPECT_TRUE(interleaved_schedule(0).empty());
  size_t a_first = 0;
  std::vector<int> long_run = interleaved_schedule(200);
  for (size_t r = 0; r < 200; ++r)
    a_first += long_run[2 * r] == 0;
  EXPECT_EQ(a_first, 100u);
}

TEST(GpuMeasure, QuantilesInterpolate) {
  EXPECT_DOUBLE_EQ(quantile({3, 1, 2}, 0.5), 2);
  EXPECT_DOUBLE_EQ(quantile({4, 1, 3, 2}, 0.5), 2.5);
  EXPECT_DOUBLE_EQ(quantile({1, 2, 3, 4, 5}, 0.25), 2);
  EXPECT_DOUBLE_EQ(quantile({10, 20}, 0.75), 17.5);
  EXPECT_DOUBLE_EQ(quantile({}, 0.5), 0);
}

TEST(GpuMeasure, SummaryOfRatios) {
  // B is A * 1.02, 1.03, 1.01, 1.02, 1.04: median ratio 1.02, quartiles 1.02 and 1.03.
  std::vector<double> a = {1.0, 2.0, 1.0, 1.5, 1.0};
  std::vector<double> b = {1.02, 2.06, 1.01, 1.53, 1.04};
  TimingSummary t = summarize(a, b);
  EXPECT_EQ(t.rounds, 5u);
  EXPECT_DOUBLE_EQ(t.median_a, 1.0);
  EXPECT_DOUBLE_EQ(t.median_b, 1.04);
  EXPECT_DOUBLE_EQ(t.min_a, 1.0);
  EXPECT_DOUBLE_EQ(t.min_b, 1.01);
  EXPECT_NEAR(t.change_percent, 2.0, 1e-9);
  EXPECT_NEAR(t.spread_percent, 0.5, 1e-9);
  EXPECT_EQ(speed_text(t), "B 2.0 % slower (±0.5 %)");
  TimingSummary f = summarize(b, a);
  EXPECT_LT(f.change_percent, 0);
  EXPECT_EQ(speed_text(f).rfind("B 2.0 % faster (±", 0), 0u);
  TimingSummary same = summarize({1, 1}, {1, 1});
  EXPECT_EQ(speed_text(same), "B as fast (±0.0 %)");
  EXPECT_THROW(summarize({1}, {1, 2}), Error);
  EXPECT_THROW(summarize({}, {}), Error);
}

TEST(GpuMeasure, ComparesBitForBit) {
  std::vector<float> x(1048576, 1.5f), y = x;
  y[5] = 1.5000001f;
  y[70000] = -0.0f;
  y[1048575] = 2.0f;
  std::string_view xa(reinterpret_cast<const char*>(x.data()), x.size() * 4);
  std::string_view yb(reinterpret_cast<const char*>(y.data()), y.size() * 4);
  BufferDiff d = compare_buffer("out0", Type::f32, xa, yb);
  EXPECT_EQ(d.elements, 1048576u);
  EXPECT_EQ(d.differing, 3u);
  EXPECT_EQ(d.first, 5u);
  EXPECT_EQ(d.first_a, "1.5");
  EXPECT_EQ(d.first_b, "1.5000001");
  ResultsDiff r = total({d});
  EXPECT_EQ(results_text(r), "results differ in 3 of 1,048,576 floats");
  EXPECT_EQ(results_text(total({compare_buffer("o", Type::f32, xa, xa)})), "same results");
  // 0.0 and -0.0 compare equal as floats and differ as bits: bits decide.
  float z[2] = {0.0f, std::nanf("1")}, w[2] = {-0.0f, std::nanf("2")};
  BufferDiff zw = compare_buffer("z", Type::f32, {reinterpret_cast<const char*>(z), 8},
                                 {reinterpret_cast<const char*>(w), 8});
  EXPECT_EQ(zw.differing, 2u);
  // Mixed types count elements.
  std::string ia(8, '\0'), ib(8, '\0');
  ib[4] = 1;
  ResultsDiff mixed = total({d, compare_buffer("idx", Type::i32, ia, ib)});
  EXPECT_EQ(mixed.unit, "elements");
  EXPECT_EQ(results_text(mixed), "results differ in 4 of 1,048,578 elements");
  EXPECT_EQ(mixed.buffers[1].first, 1u);
  EXPECT_EQ(mixed.buffers[1].first_b, "1");
  EXPECT_THROW(compare_buffer("odd", Type::f32, "abcde", "abcde"), Error);
  EXPECT_EQ(group_thousands(0), "0");
  EXPECT_EQ(d.nan, 0u);
  EXPECT_EQ(d.unchanged, 0u); // no initial contents given
}

// Same results from outputs that are NaN, or as they were before the launch, say nothing of
// the variants: the line says how many, and when no element could have shown a difference.
TEST(GpuMeasure, SameResultsNameWhatCouldNotDiffer) {
  const float nan = std::nanf("");
  std::vector<float> before(8, 0.0f), out = {1.0f, nan, 0.0f, 2.0f, nan, 3.0f, 0.0f, 4.0f};
  auto view = [](const std::vector<float>& v) {
    return std::string_view(reinterpret_cast<const char*>(v.data()), v.size() * 4);
  };
  BufferDiff d = compare_buffer("out0", Type::f32, view(out), view(out), view(before));
  EXPECT_EQ(d.nan, 2u);
  EXPECT_EQ(d.unchanged, 2u);
  EXPECT_EQ(results_text(total({d})), "same results (of 8 floats, 2 NaN, 2 as before the launch)");
  std::vector<float> all_nan(8, nan);
  BufferDiff n = compare_buffer("out1", Type::f32, view(all_nan), view(all_nan), view(before));
  BufferDiff z = compare_buffer("out2", Type::f32, view(before), view(before), view(before));
  EXPECT_EQ(results_text(total({n})),
            "same results, but no output element could show a difference (of 8 floats, 8 NaN)");
  EXPECT_EQ(results_text(total({n, z})),
            "same results, but no output element could show a "
            "difference (of 16 floats, 8 NaN, 8 as before the launch)");
  // Infinite outputs absorb any finite change, so they count too (f64 as well as f32).
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> infs = {inf, -inf, nan, 0.0f, 1.0f, 1.0f, 1.0f, 1.0f};
  BufferDiff f = compare_buffer("out3", Type::f32, view(infs), view(infs), view(before));
  EXPECT_EQ(f.inf, 2u);
  EXPECT_EQ(results_text(total({f})),
            "same results (of 8 floats, 1 NaN, 2 infinite, 1 as before the launch)");
  const double dinf[2] = {std::numeric_limits<double>::infinity(), 1.0};
  const std::string_view dview(reinterpret_cast<const char*>(dinf), sizeof dinf);
  EXPECT_EQ(compare_buffer("d", Type::f64, dview, dview).inf, 1u);
  // Integers are never NaN; a differing element still counts as NaN or unchanged in A.
  std::string ia(8, '\0'), ib(8, '\0');
  ib[0] = 1;
  BufferDiff i = compare_buffer("idx", Type::i32, ia, ib, ia);
  EXPECT_EQ(i.nan, 0u);
  EXPECT_EQ(i.unchanged, 2u);
  EXPECT_EQ(results_text(total({i})), "results differ in 1 of 2 32-bit integers");
  // An initial of another size is not used.
  EXPECT_EQ(compare_buffer("o", Type::f32, view(out), view(out), "abcd").unchanged, 0u);
  EXPECT_EQ(group_thousands(999), "999");
  EXPECT_EQ(group_thousands(1000), "1,000");
  EXPECT_EQ(group_thousands(1234567), "1,234,567");
}

TEST(GpuMeasure, VerdictLines) {
  RunResult r;
  r.compared = true;
  r.results = total({BufferDiff{"o", Type::f32, 100, 0, 0, "", ""}});
  r.repeat_a = r.results;
  r.repeat_b = r.results;
  r.timed = true;
  r.timing = summarize({1.0, 1.0, 1.0}, {1.021, 1.02, 1.025});
  EXPECT_EQ(verdict_line(r), "same results, B 2.1 % slower (±0.1 %)");
  EXPECT_TRUE(reproducible(r));
  r.repeat_a = total({BufferDiff{"o", Type::f32, 100, 7, 3, "1", "2"}});
  EXPECT_FALSE(reproducible(r));
  EXPECT_EQ(verdict_line(r).rfind("results not reproducible: A differs from itself in 7 of 100 "
                                  "floats",
                                  0),
            0u);
  r.error = "B: launch: an illegal memory access was encountered (CUDA error 700)";
  EXPECT_EQ(verdict_line(r), "run failed: " + r.error);
}

TEST(GpuDriver, NoDriverIsASkipReason) {
  // This process has not loaded the driver yet; a path that does not exist stands for a
  // machine without one.
  ::setenv("KDET_LIBCUDA", "/nonexistent/libcuda.so.1", 1);
  Probe p = probe_gpu();
  EXPECT_FALSE(p.ok);
  EXPECT_EQ(p.why_not.rfind("no GPU: /nonexistent/libcuda.so.1 not found (", 0), 0u) << p.why_not;
  Recipe r;
  EXPECT_THROW(run_pair("a", "b", r, RunOptions{}), Error);
  ::unsetenv("KDET_LIBCUDA");
}

} // namespace
} // namespace kdet::gpu
