// Unit tests for bundle jobs in scan manifests (scan/manifest_bundles, scan/planner):
// a bundle is one job with its captured library and options, crossed with nothing;
// a folder that is not a bundle, or a bundle that cannot be replayed, names the line.
#include "kdet/capture/output.hpp"
#include "kdet/scan/manifest.hpp"
#include "kdet/scan/planner.hpp"
#include "kdet/util/error.hpp"
#include "kdet/util/fs.hpp"
#include "kdet/util/hash.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <set>
#include <sys/stat.h>

using namespace kdet;

namespace {

class ScanBundlesTest : public ::testing::Test {
protected:
  void SetUp() override {
    m_dir = make_temp_dir("kdet-bundles-test");
    write_file_atomic(m_dir + "/a.ll", "; a\n");
    m_lib = m_dir + "/libcaptured.so";
    write_file_atomic(m_lib, "not really a library");
  }
  void TearDown() override { remove_tree(m_dir); }

  // A bundle folder as kdet capture writes it: `inputs` modules, these options.
  void bundle(const std::string& id, std::vector<std::string> options, int inputs = 1) {
    std::string dir = m_dir + "/bundles/" + id;
    ::mkdir((m_dir + "/bundles").c_str(), 0755);
    ::mkdir(dir.c_str(), 0755);
    ::mkdir((dir + "/inputs").c_str(), 0755);
    nlohmann::json in = nlohmann::json::array();
    for (int n = 0; n < inputs; ++n) {
      std::string file = "inputs/0" + std::to_string(n) + "-module.ll";
      write_file_atomic(dir + "/" + file, "; module " + id + "\n");
      in.push_back(
          {{"tag", "module"}, {"lazy", false}, {"file", file}, {"hash", "h"}, {"name", nullptr}});
    }
    nlohmann::json j = {{"schema", "kdet.capture.bundle/1"},
                        {"id", id},
                        {"kind", "nvvm"},
                        {"library", {{"path", m_lib}, {"hash", hash_file(m_lib)}}},
                        {"options", std::move(options)},
                        {"inputs", in},
                        {"outputs", nlohmann::json::array()}};
    write_file_atomic(dir + "/bundle.json", j.dump());
  }

  scan::Manifest parse(const std::string& text) {
    return scan::parse_manifest(text, m_dir + "/m.toml");
  }
  std::string error_of(const std::string& text) {
    try {
      parse(text);
    } catch (const Error& e) {
      EXPECT_EQ(e.exit_code(), k_exit_usage);
      return e.what();
    }
    return "";
  }

  std::string m_dir, m_lib;
};

TEST_F(ScanBundlesTest, ABundleIsOneJobCrossedWithNothing) {
  bundle("00000000000000aa", {"-arch=compute_90a", "-opt=3"});
  bundle("00000000000000bb", {"-arch=compute_80"});
  auto m = parse("inputs = [\"a.ll\"]\ntargets = [\"80\", \"90a\"]\nbundles = [\"bundles/*\"]\n"
                 "[option_sets]\nO0 = [\"-opt=0\"]\nO3 = [\"-opt=3\"]\n"
                 "[[compiler]]\nname = \"nvvm\"\nbackend = \"nvvm\"\nlib = \"libcaptured.so\"\n");
  ASSERT_EQ(m.bundles.size(), 2u);
  EXPECT_EQ(m.bundles[0].id, "00000000000000aa");
  EXPECT_EQ(m.bundles[0].input.name, "bundles/00000000000000aa");
  EXPECT_EQ(m.bundles[0].line, 3);
  // Both bundles share one captured compiler, beside the manifest's own.
  ASSERT_EQ(m.compilers.size(), 2u);
  EXPECT_TRUE(m.compilers[1].captured);
  EXPECT_EQ(m.compilers[1].name, "captured-libcaptured.so");
  EXPECT_EQ(m.bundles[1].compiler, 1u);

  auto jobs = scan::plan_jobs(m, scan::resolve_compilers(m));
  ASSERT_EQ(jobs.size(), 1u * 2 * 2 + 2); // a.ll x 2 targets x 2 option sets, then the bundles
  std::set<std::string> ids;
  for (const auto& j : jobs) {
    ids.insert(j.id);
    EXPECT_EQ(j.bundle != nullptr, m.compilers[j.compiler].captured);
  }
  EXPECT_EQ(ids.size(), jobs.size());
  const auto& b = jobs[4];
  ASSERT_NE(b.bundle, nullptr);
  EXPECT_EQ(b.input->name, "bundles/00000000000000aa");
  EXPECT_EQ(b.input->path, m_dir + "/bundles/00000000000000aa/inputs/00-module.ll");
  EXPECT_EQ(b.target, "");
  EXPECT_EQ(scan::option_set_name(m, b), "captured");
  EXPECT_EQ(b.options, (std::vector<std::string>{"-arch=compute_90a", "-opt=3"}));
  EXPECT_EQ(b.backend.lib, m_lib);
  // Stable: the same manifest plans the same ids.
  EXPECT_EQ(scan::plan_jobs(m, scan::resolve_compilers(m))[4].id, b.id);
}

TEST_F(ScanBundlesTest, BundlesAloneNeedNoInputsOrCompiler) {
  bundle("00000000000000aa", {});
  auto m = parse("bundles = \"bundles/00000000000000aa\"\n[[expect]]\ninput = \"bundles/*\"\n"
                 "reason = \"known\"\n");
  EXPECT_TRUE(m.inputs.empty());
  ASSERT_EQ(m.compilers.size(), 1u);
  auto jobs = scan::plan_jobs(m, scan::resolve_compilers(m));
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_NE(jobs[0].expect, nullptr);
}

TEST_F(ScanBundlesTest, ErrorsNameTheLine) {
  bundle("00000000000000aa", {});
  bundle("00000000000000cc", {}, 2);
  ::mkdir((m_dir + "/plain").c_str(), 0755);
  EXPECT_EQ(error_of("bundles = [\"nothing/*\"]\n")
                .rfind(m_dir + "/m.toml:1: bundle 'nothing/*' "
                               "matches no folder",
                       0),
            0u);
  EXPECT_NE(error_of("bundles = [\n  \"plain\",\n]\n").find("m.toml:2: bundle plain: "),
            std::string::npos);
  EXPECT_NE(error_of("bundles = [\"plain\"]\n").find("is not a bundle folder of kdet capture"),
            std::string::npos);
  // A bundle of two modules is one job whose runs get the second module too.
  scan::Manifest two = parse("bundles = [\"bundles/00000000000000cc\"]\n");
  ASSERT_EQ(two.bundles.size(), 1u);
  ASSERT_EQ(two.bundles[0].parts.size(), 1u);
  EXPECT_EQ(two.bundles[0].parts[0].bytes, "; module 00000000000000cc\n");
  EXPECT_NE(error_of("bundles = [1]\n").find("m.toml:1: bundles must hold strings"),
            std::string::npos);
  EXPECT_NE(error_of("bundles = []\n").find("bundles is empty"), std::string::npos);
  EXPECT_NE(error_of("bundles = \"bundles/00000000000000aa\"\n[[compiler]]\nname = \"x\"\n"
                     "backend = \"nvvm\"\n")
                .find("m.toml:2: [[compiler]] compiles the manifest's inputs, and there are none"),
            std::string::npos);
  EXPECT_NE(error_of("inputs = \"a.ll\"\nbundles = \"bundles/00000000000000aa\"\n"
                     "[option_sets]\ncaptured = []\n"
                     "[[compiler]]\nname = \"x\"\nbackend = \"nvvm\"\nlib = \"libcaptured.so\"\n")
                .find("m.toml:4: option set name 'captured'"),
            std::string::npos);
  EXPECT_NE(error_of("name = \"x\"\n").find("or bundles = "), std::string::npos);
  EXPECT_NE(error_of("bundles = \"bundles/00000000000000aa\"\ntargets = [\"90a\"]\n")
                .find("m.toml:2: targets apply to the jobs of inputs, and there are none"),
            std::string::npos);
  // The library changed since the capture: the bundle would audit another compiler.
  write_file_atomic(m_lib, "another library");
  EXPECT_NE(error_of("bundles = \"bundles/00000000000000aa\"\n").find("has changed since"),
            std::string::npos);
}

// capture --out DIR writes DIR/manifest.toml: the bundles that replay, each once, and the rest as
// comments with the reason; the text parses as a manifest of exactly those jobs.
TEST_F(ScanBundlesTest, CaptureManifestListsWhatReplays) {
  bundle("00000000000000aa", {"-opt=3"});
  bundle("00000000000000cc", {}, 2);
  std::vector<capture::Bundle> bundles(3);
  bundles[0].id = "00000000000000aa";
  bundles[0].kind = "nvvm";
  bundles[0].compiles = 2;
  bundles[0].varies = true;
  bundles[1].id = "00000000000000cc";
  bundles[1].kind = "nvvm";
  bundles[1].compiles = 1;
  bundles[1].results[3] = 1;
  bundles[2].id = "00000000000000dd"; // its folder is missing
  bundles[2].kind = "nvrtc";
  std::string text = capture::scan_manifest_text(m_dir, bundles);
  EXPECT_NE(
      text.find(
          "  \"bundles/00000000000000aa\", # nvvm, 2 compiles, nondeterministic in the pipeline\n"),
      std::string::npos)
      << text;
  EXPECT_NE(
      text.find("  \"bundles/00000000000000cc\", # nvvm, 1 compile, failed in the pipeline\n"),
      std::string::npos)
      << text;
  EXPECT_NE(text.find("#   bundles/00000000000000dd (nvrtc, 0 compiles): no bundle.json"),
            std::string::npos)
      << text;
  write_file_atomic(m_dir + "/manifest.toml", text);
  auto m = scan::load_manifest(m_dir + "/manifest.toml");
  ASSERT_EQ(m.bundles.size(), 2u);
  EXPECT_EQ(m.bundles[0].id, "00000000000000aa");
  EXPECT_EQ(m.bundles[0].options, std::vector<std::string>{"-opt=3"});
  EXPECT_EQ(m.bundles[1].id, "00000000000000cc");
  EXPECT_EQ(m.bundles[1].parts.size(), 1u);

  // Nothing replays: still a manifest, which says so (scan then names the missing jobs).
  std::string none = capture::scan_manifest_text(m_dir, {bundles[2]});
  EXPECT_EQ(none.find("bundles = ["), std::string::npos);
  EXPECT_NE(none.find("No captured compile can be replayed"), std::string::npos);
}

} // namespace
