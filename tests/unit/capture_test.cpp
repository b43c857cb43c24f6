// Unit tests for capture/: reading records (whole, cut short, foreign),
// grouping compiles into bundles (what makes two compiles the same one, and
// what counts as a variation), blob packs (whole entries only, hashes checked).
#include "kdet/capture/blobs.hpp"
#include "kdet/capture/notes.hpp"
#include "kdet/capture/output.hpp"
#include "kdet/capture/records.hpp"
#include "kdet/capture/replay.hpp"
#include "kdet/util/error.hpp"
#include "kdet/util/fs.hpp"
#include "kdet/util/hash.hpp"
#include "kdet/util/tempdir.hpp"

#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

namespace kdet::capture {
namespace {

const std::string k_h1 = "0123456789abcdef0123456789abcdef";
const std::string k_h2 = "fedcba9876543210fedcba9876543210";
const std::string k_h3 = "00000000000000000000000000000003";

// A log as the preload writes it: compile 1's header, compile 2's header, then
// their later lines interleaved (two threads).
std::string log_text() {
  return "kdet-capture-record 1 1\nkind nvvm\npid 12\nppid 1\nthread 13\ntime_ns 99\n"
         "lib x2f6c6962\nlib_hash " +
         k_h3 + "\nlib_size 7\nmodule " + k_h1 + " 10 0 x612e6c6c\nmodule " + k_h2 +
         " 20 1 -\noption x2d6f70743d33\nbegin\n"
         "kdet-capture-record 1 2\nkind nvrtc\nsource " +
         k_h2 + " 4 x6b2e6375\nbegin\n2 result 6\n1 result 0\n1 output nvvm " + k_h1 + " 5\n";
}

TEST(CaptureRecords, ReadsALogOfInterleavedCompiles) {
  std::vector<std::string> problems;
  std::vector<Compile> cs = parse_log(log_text(), "12-ab.log", problems);
  EXPECT_TRUE(problems.empty());
  ASSERT_EQ(cs.size(), 2u);
  const Compile& c = cs[0];
  EXPECT_EQ(c.record, "12-ab.log#1");
  EXPECT_EQ(c.kind(), "nvvm");
  EXPECT_EQ(c.pid, 12);
  EXPECT_EQ(c.thread, 13);
  EXPECT_EQ(c.lib(), "/lib");
  ASSERT_EQ(c.inputs().size(), 2u);
  EXPECT_EQ(*c.inputs()[0].name, "a.ll");
  EXPECT_FALSE(c.inputs()[0].lazy);
  EXPECT_TRUE(c.inputs()[1].lazy);
  EXPECT_FALSE(c.inputs()[1].name.has_value());
  EXPECT_EQ(c.options(), std::vector<std::string>{"-opt=3"});
  EXPECT_TRUE(c.begun);
  EXPECT_EQ(c.result, 0);
  ASSERT_EQ(c.outputs().size(), 1u);
  EXPECT_EQ(c.outputs()[0].size, 5u);
  EXPECT_EQ(cs[1].kind(), "nvrtc");
  EXPECT_EQ(cs[1].result, 6);
  EXPECT_TRUE(cs[1].outputs().empty());
}

TEST(CaptureRecords, ReadsALinkWithTypedInputsAndBothLogs) {
  std::vector<std::string> problems;
  std::string text = "kdet-capture-record 1 3\nkind nvjitlink\njit_input " + k_h1 +
                     " 10 3 x612e6c746f6972\njit_input " + k_h2 +
                     " 20 2 -\noption x2d6c746f\nbegin\n3 result 0\n3 output cubin " + k_h3 +
                     " 9\n3 log " + k_h1 + " 1\n3 info_log " + k_h2 + " 2\n";
  std::vector<Compile> cs = parse_log(text, "l", problems);
  EXPECT_TRUE(problems.empty());
  ASSERT_EQ(cs.size(), 1u);
  EXPECT_EQ(cs[0].kind(), "nvjitlink");
  ASSERT_EQ(cs[0].inputs().size(), 2u);
  EXPECT_EQ(cs[0].inputs()[0].tag, "jit_input");
  EXPECT_EQ(cs[0].inputs()[0].type, 3);
  EXPECT_EQ(cs[0].inputs()[0].name, "a.ltoir");
  EXPECT_EQ(cs[0].inputs()[1].type, 2);
  EXPECT_FALSE(cs[0].inputs()[1].name);
  EXPECT_EQ(cs[0].options(), std::vector<std::string>{"-lto"});
  ASSERT_TRUE(cs[0].log && cs[0].info_log);
  EXPECT_EQ(cs[0].info_log->hash, k_h2);
  // The input type is part of the bundle: the same bytes as PTX are another compile.
  std::string other = text;
  other.replace(other.find(" 10 3 "), 6, " 10 2 ");
  std::vector<Compile> os = parse_log(other, "l", problems);
  ASSERT_EQ(os.size(), 1u);
  EXPECT_NE(bundle_id(cs[0]), bundle_id(os[0]));
  // A type that is not a number is a damaged header.
  other.replace(other.find(" 10 2 "), 6, " 10 x ");
  EXPECT_TRUE(parse_log(other, "l", problems).empty());
}

TEST(CaptureRecords, KeepsWhatCameBeforeACut) {
  std::string text = log_text();
  std::vector<std::string> problems;
  std::vector<Compile> cs =
      parse_log(text.substr(0, text.find("1 result")) + "1 resu", "l", problems);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find("cut short"), std::string::npos);
  ASSERT_EQ(cs.size(), 2u);
  EXPECT_TRUE(cs[0].begun);
  EXPECT_FALSE(cs[0].result.has_value()); // died inside the compile, as far as the log knows
  EXPECT_EQ(cs[0].inputs().size(), 2u);
  // A header cut before "begin" is no compile at all.
  problems.clear();
  cs = parse_log(text.substr(0, text.find("begin")), "l", problems);
  EXPECT_TRUE(cs.empty());
}

TEST(CaptureRecords, RefusesForeignAndDamagedLines) {
  std::vector<std::string> problems;
  EXPECT_TRUE(parse_log("hello\n", "l", problems).empty());
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find("unreadable line 'hello'"), std::string::npos);
  problems.clear();
  // A damaged header line: that compile is dropped, the next one still counts.
  auto cs = parse_log("kdet-capture-record 1 1\nkind nvvm\nmodule zz 1 0 -\nbegin\n"
                      "kdet-capture-record 1 2\nkind nvvm\nbegin\n",
                      "l", problems);
  ASSERT_EQ(cs.size(), 1u);
  EXPECT_EQ(cs[0].record, "l#2");
  EXPECT_FALSE(problems.empty());
  problems.clear();
  // The dropped compile's later lines are unreadable, never another compile's.
  cs = parse_log("kdet-capture-record 1 1\nkind nvvm\nbogus\n"
                 "kdet-capture-record 1 2\nkind nvvm\nbegin\n2 result 0\n1 result 5\n",
                 "l", problems);
  ASSERT_EQ(cs.size(), 1u);
  EXPECT_EQ(cs[0].result, 0);
  ASSERT_EQ(problems.size(), 2u);
  EXPECT_NE(problems[1].find("unreadable line '1 result 5'"), std::string::npos) << problems[1];
  problems.clear();
  parse_log("kdet-capture-record 1 1\noption x4\n", "l", problems); // odd hex
  EXPECT_FALSE(problems.empty());
  problems.clear();
  parse_log("7 result 0\n", "l", problems); // a line for a compile the log never began
  EXPECT_FALSE(problems.empty());
}

Compile compile_of(std::vector<std::string> options, bool lazy, const std::string& out,
                   int rc = 0) {
  Compile c;
  c.call_mut().kind = "nvvm";
  c.call_mut().lib_hash = k_h3;
  c.call_mut().inputs = {{"module", k_h1, 10, false, "a.ll"}, {"module", k_h2, 20, lazy, "b.ll"}};
  c.call_mut().options = std::move(options);
  c.begun = true;
  c.result = rc;
  if (!out.empty()) c.outputs_mut().push_back({"nvvm", out, 5});
  return c;
}

TEST(CaptureBundles, SameCompileSameBundleAnythingElseAnother) {
  Compile a = compile_of({"-opt=3"}, false, k_h1);
  EXPECT_EQ(bundle_id(a), bundle_id(compile_of({"-opt=3"}, false, k_h2))); // outputs do not count
  EXPECT_NE(bundle_id(a), bundle_id(compile_of({"-opt=0"}, false, k_h1)));
  EXPECT_NE(bundle_id(a), bundle_id(compile_of({"-opt=3"}, true, k_h1)));
  EXPECT_NE(bundle_id(a), bundle_id(compile_of({"-opt=3", ""}, false, k_h1)));
  Compile swapped = a;
  std::swap(swapped.call_mut().inputs[0], swapped.call_mut().inputs[1]);
  EXPECT_NE(bundle_id(a), bundle_id(swapped)); // module order matters
  Compile other_lib = a;
  other_lib.call_mut().lib_hash = k_h1;
  EXPECT_NE(bundle_id(a), bundle_id(other_lib)); // another compiler is another bundle
  EXPECT_EQ(bundle_id(a).size(), 16u);
}

TEST(CaptureBundles, TwoOutputsOfOneKindVary) {
  std::vector<Compile> cs = {compile_of({}, false, k_h1), compile_of({}, false, k_h1),
                             compile_of({}, false, k_h2), compile_of({"-x"}, false, k_h2)};
  auto bundles = group_bundles(cs);
  ASSERT_EQ(bundles.size(), 2u);
  EXPECT_TRUE(bundles[0].varies);
  EXPECT_EQ(bundles[0].compiles, 3u);
  EXPECT_EQ((bundles[0].counts[{"nvvm", k_h1}]), 2u);
  EXPECT_FALSE(bundles[1].varies);
  EXPECT_EQ(cs[3].bundle(), bundles[1].id);
}

TEST(CaptureBundles, KindsApartReturnCodesAndUnfinished) {
  // A PTX and a cubin of one compile are two kinds, not a variation.
  Compile a = compile_of({}, false, k_h1);
  a.outputs_mut().push_back({"cubin", k_h2, 9});
  std::vector<Compile> cs = {a, a};
  EXPECT_FALSE(group_bundles(cs)[0].varies);
  // Success once, failure once: a variation.
  cs = {compile_of({}, false, ""), compile_of({}, false, "", 9)};
  EXPECT_TRUE(group_bundles(cs)[0].varies);
  // A compile that never returned is counted apart and is no variation.
  Compile dead = compile_of({}, false, "");
  dead.result.reset();
  cs = {compile_of({}, false, k_h1), dead};
  auto b = group_bundles(cs);
  EXPECT_FALSE(b[0].varies);
  EXPECT_EQ(b[0].unfinished, 1u);
}

TEST(CaptureOutput, JsonAndSummaryNameKindsNeverSeen) {
  CaptureResult r;
  r.pipeline_status = "exited 0";
  r.compiles = {compile_of({}, false, k_h1), compile_of({}, false, k_h2)};
  r.bundles = group_bundles(r.compiles);
  nlohmann::json j = capture_json(r);
  EXPECT_EQ(j["schema"], "kdet.capture/3");
  EXPECT_EQ(j["compiles"][0]["bundle"], r.bundles[0].id);
  EXPECT_EQ(j["bundles"][0]["nondeterministic"], true);
  EXPECT_FALSE(j["bundles"][0].contains("varies"));
  EXPECT_EQ(bundle_json(r.bundles[0])["schema"], "kdet.capture.bundle/3");
  EXPECT_EQ(bundle_json(r.bundles[0])["nondeterministic"], true);
  EXPECT_EQ(j["bundles"][0]["outputs"].size(), 2u);
  EXPECT_EQ(j["not_seen"], nlohmann::json({"nvrtc", "nvjitlink", "exec"}));
  std::string s = capture_summary(r);
  EXPECT_NE(s.find("NONDETERMINISTIC bundle " + r.bundles[0].id), std::string::npos) << s;
  EXPECT_NE(s.find("(1 nondeterministic)"), std::string::npos) << s;
  EXPECT_NE(s.find("never seen nvrtc"), std::string::npos);
  r.compiles.clear();
  r.bundles.clear();
  EXPECT_NE(capture_summary(r).find("no compile was captured"), std::string::npos);
}

} // namespace
} // namespace kdet::capture

// ---- blob packs --------------------------------------------------------------

namespace kdet::capture {
namespace {

std::string entry(const std::string& data) {
  return fmt::format("kdet-blob {} {}\n", hash_bytes(data), data.size()) + data;
}

TEST(CaptureBlobs, WholeEntriesOnlyAndEveryHashChecked) {
  TempDir t("capture-test");
  make_dirs(t.path() + "/blobs");
  std::string a = "module one", b = std::string("ptx\0two", 7), c = "cut short";
  std::string damaged = entry("damaged");
  damaged.back() = 'X'; // bytes that no longer match their hash
  write_file_atomic(t.path() + "/blobs/1-a.pack",
                    entry(a) + entry(b) + damaged + entry(c).substr(0, 20));
  std::vector<std::string> problems;
  BlobStore store(t.path(), problems);
  EXPECT_EQ(store.get(hash_bytes(a)), a);
  EXPECT_EQ(store.get(hash_bytes(b)), b);
  EXPECT_FALSE(store.get(hash_bytes("damaged")).has_value());
  EXPECT_FALSE(store.get(hash_bytes(c)).has_value());
  ASSERT_EQ(problems.size(), 1u); // the cut-short tail
  EXPECT_NE(problems[0].find("1-a.pack: damaged or cut short"), std::string::npos);
}

TEST(CaptureBlobs, PtxIsNamedAndCheckedByItsArtifactHash) {
  TempDir t("capture-test");
  make_dirs(t.path() + "/blobs");
  std::string text = ".version 8.0\n.entry k()\n", ptx = text + '\0';
  std::string cubin = std::string("\x7f"
                                  "ELF\x02",
                                  5) +
                      std::string(4, '\0');
  std::string lost = std::string("lost\0", 5), damaged = entry(lost);
  damaged[damaged.size() - 2] = 'X'; // bytes that no longer match their hash
  write_file_atomic(t.path() + "/blobs/1-a.pack", entry(ptx) + entry(cubin) + damaged);
  std::vector<std::string> problems;
  BlobStore store(t.path(), problems);
  EXPECT_TRUE(problems.empty());
  // PTX is named without its NUL, and handed out with it: the bytes the pipeline saw.
  std::string named = store.artifact_hash_of(hash_bytes(ptx), ArtifactForm::ptx);
  EXPECT_EQ(named, hash_bytes(text));
  EXPECT_EQ(store.get(named), ptx);
  EXPECT_EQ(store.get(hash_bytes(ptx)), ptx); // the preload's name still finds it
  // A cubin is its bytes, zeros at its end included.
  EXPECT_EQ(store.artifact_hash_of(hash_bytes(cubin), ArtifactForm::bytes), hash_bytes(cubin));
  EXPECT_EQ(store.get(hash_bytes(cubin)), cubin);
  // Damaged or absent: the name stays, and there are no bytes.
  EXPECT_EQ(store.artifact_hash_of(hash_bytes(lost), ArtifactForm::ptx), hash_bytes(lost));
  EXPECT_FALSE(store.get(hash_bytes("lost")).has_value());
  EXPECT_EQ(store.artifact_hash_of(k_h1, ArtifactForm::ptx), k_h1);
  // Another store of the same folder (as the builds report opens one) finds PTX by its
  // artifact hash without having named it.
  BlobStore fresh(t.path(), problems);
  EXPECT_EQ(fresh.get(hash_bytes(text)), ptx);
}

TEST(CaptureRecords, PtxInputsAndOutputsAreNamedByTheirArtifactHash) {
  TempDir t("capture-test");
  make_dirs(t.path() + "/blobs");
  std::string text = ".version 8.0\n.entry k()\n", ptx = text + '\0';
  std::string cubin = std::string("\x7f"
                                  "ELF\x02",
                                  5) +
                      std::string(4, '\0');
  std::string ir = std::string("BC\xc0\xde", 4) + std::string(4, '\0'); // NVVM IR bitcode
  write_file_atomic(t.path() + "/blobs/1-a.pack",
                    entry(ptx) + entry(text) + entry(cubin) + entry(ir) + entry(ptx + '\0'));
  std::vector<std::string> problems;
  BlobStore blobs(t.path(), problems);
  // libNVVM's result (NUL included) -> a file the pipeline wrote without it -> ptxas; the
  // same PTX handed to nvJitLink with its NUL.
  Compile nvvm;
  nvvm.call_mut().kind = "nvvm";
  nvvm.call_mut().inputs = {{"module", hash_bytes(ir), ir.size(), false, "k.bc"}};
  nvvm.outputs_mut() = {{"nvvm", hash_bytes(ptx), ptx.size()}};
  Compile ptxas;
  ptxas.call_mut().kind = "exec";
  ptxas.call_mut().inputs = {{"file", hash_bytes(text), text.size(), false, "/tmp/k.ptx"}};
  ptxas.outputs_mut() = {{"cubin", hash_bytes(cubin), cubin.size()}};
  Compile link;
  link.call_mut().kind = "nvjitlink";
  link.call_mut().inputs = {{"jit_input", hash_bytes(ptx), ptx.size(), false, "k", 2},
                            {"jit_input", hash_bytes(cubin), cubin.size(), false, "c", 1}};
  std::vector<Compile> cs = {nvvm, ptxas, link};
  name_by_artifact_hash(cs, blobs);
  EXPECT_EQ(cs[0].outputs()[0].hash, hash_bytes(text));
  EXPECT_EQ(cs[0].outputs()[0].size, ptx.size()); // the size of the bytes kept
  EXPECT_EQ(cs[1].inputs()[0].hash, hash_bytes(text));
  EXPECT_EQ(cs[2].inputs()[0].hash, hash_bytes(text));
  // Bytes stay bytes: NVVM IR, a cubin input and a cubin output keep their zeros.
  EXPECT_EQ(cs[0].inputs()[0].hash, hash_bytes(ir));
  EXPECT_EQ(cs[1].outputs()[0].hash, hash_bytes(cubin));
  EXPECT_EQ(cs[2].inputs()[1].hash, hash_bytes(cubin));
  auto bundles = group_bundles(cs);
  ASSERT_EQ(bundles.size(), 3u);
  EXPECT_EQ(bundles[0].outputs[0].second, bundles[1].inputs[0].hash);
  EXPECT_EQ(bundles[0].sizes.at(hash_bytes(text)), ptx.size());
  // Each bundle folder keeps the bytes its compile saw, though one hash names both blobs:
  // libNVVM's PTX with its NUL, the ptxas input file and the nvJitLink input as given.
  make_dirs(t.path() + "/out");
  Fd out(::open((t.path() + "/out").c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  write_bundles(out.get(), t.path() + "/out", blobs, bundles);
  std::string dir = t.path() + "/out/bundles/";
  EXPECT_EQ(read_file(dir + bundles[0].id + "/outputs/" + hash_bytes(text) + ".ptx"), ptx);
  EXPECT_EQ(read_file(dir + bundles[1].id + "/inputs/00-k.ptx"), text);
  EXPECT_EQ(read_file(dir + bundles[2].id + "/inputs/00-jit_input.ptx"), ptx);
  EXPECT_EQ(read_file(dir + bundles[1].id + "/outputs/" + hash_bytes(cubin) + ".cubin"), cubin);
  // The same PTX handed over with two NULs is the same artifact: no variation.
  Compile again = nvvm;
  again.outputs_mut() = {{"nvvm", hash_bytes(ptx + '\0'), ptx.size() + 1}};
  std::vector<Compile> twice = {nvvm, again};
  auto one = bundle_records(twice, blobs);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_FALSE(one[0].varies);
  EXPECT_EQ(one[0].outputs,
            (std::vector<std::pair<std::string, std::string>>{{"nvvm", hash_bytes(text)}}));
}

} // namespace
} // namespace kdet::capture

// ---- replaying bundles of either schema ----------------------------------------

namespace kdet::capture {
namespace {

// A one-output nvvm bundle folder under `dir` whose bundle.json has `schema` and records
// the output (PTX, NUL included, as libNVVM hands it out) under `recorded`.
std::string ptx_bundle(const std::string& dir, const std::string& schema, const std::string& ptx,
                       const std::string& recorded) {
  std::string lib = dir + "/libnvvm-captured.so", b = dir + "/bundles/00000000000000aa";
  write_file_atomic(lib, "a library");
  make_dirs(b + "/inputs");
  make_dirs(b + "/outputs");
  write_file_atomic(b + "/inputs/00-module.ll", "; module\n");
  std::string file = "outputs/" + recorded + ".ptx";
  write_file_atomic(b + "/" + file, ptx);
  nlohmann::json j = {{"schema", schema},
                      {"id", "00000000000000aa"},
                      {"kind", "nvvm"},
                      {"library", {{"path", lib}, {"hash", hash_file(lib)}, {"size", 9}}},
                      {"options", {"-arch=compute_90"}},
                      {"inputs",
                       {{{"tag", "module"},
                         {"lazy", false},
                         {"file", "inputs/00-module.ll"},
                         {"hash", k_h1},
                         {"size", 9},
                         {"name", nullptr}}}},
                      {"outputs",
                       {{{"kind", "nvvm"},
                         {"hash", recorded},
                         {"size", ptx.size()},
                         {"count", 1},
                         {"file", file}}}}};
  write_file_atomic(b + "/bundle.json", j.dump());
  return b;
}

engine::RunOutput runs_giving(const std::string& ptx_hash, uint64_t n) {
  engine::RunOutput out;
  engine::Variant v;
  v.id = "0123456789abcdef0123";
  v.count = n;
  backend::Artifact a{"ptx", ""};
  a.hash = ptx_hash;
  v.artifacts.push_back(a);
  out.variants.push_back(v);
  out.completed = n;
  return out;
}

TEST(CaptureReplay, ABundleOfSchemaOneStillReplaysUnderTheOneHash) {
  TempDir t("capture-test");
  std::string text = ".version 8.0\n.entry k()\n", ptx = text + '\0';
  // Written by the old definition: the hash of the bytes, NUL included.
  ReplayPlan p =
      *bundle_replay_plan(ptx_bundle(t.path(), "kdet.capture.bundle/1", ptx, hash_bytes(ptx)));
  ASSERT_EQ(p.expected.size(), 1u);
  EXPECT_EQ(p.expected[0], std::make_pair(std::string("ptx"), hash_bytes(text)));
  EXPECT_EQ(p.bundle_hashes, std::vector<std::string>{hash_bytes(ptx)});
  bool reproduced = false;
  nlohmann::json j = replay_json(p, runs_giving(hash_bytes(text), 3), reproduced);
  EXPECT_TRUE(reproduced);
  EXPECT_EQ(j["outputs"][0]["hash"], hash_bytes(text));
  // The old name is given beside the one kdet run uses, so a user holding it finds the line.
  EXPECT_NE(replay_text(j).find(fmt::format("captured  ptx {}: 3 of 3 runs gave it back (variant "
                                            "0123456789ab; bundle.json {})",
                                            hash_bytes(text), hash_bytes(ptx))),
            std::string::npos);
}

// Version 3 renamed the bundle's "varies" to "nondeterministic", which replay never reads: a
// bundle of version 2 (with the old word) and one of version 3 replay alike; another is refused.
TEST(CaptureReplay, ABundleOfSchemaTwoWithTheOldWordStillReplays) {
  std::string text = ".version 8.0\n.entry k()\n";
  for (const char* schema : {"kdet.capture.bundle/2", "kdet.capture.bundle/3"}) {
    TempDir t("capture-test");
    std::string b = ptx_bundle(t.path(), schema, text, hash_bytes(text));
    nlohmann::json j = nlohmann::json::parse(read_file(b + "/bundle.json"));
    j[std::string(schema) == "kdet.capture.bundle/2" ? "varies" : "nondeterministic"] = true;
    write_file_atomic(b + "/bundle.json", j.dump());
    std::optional<ReplayPlan> p = bundle_replay_plan(b);
    ASSERT_TRUE(p) << schema;
    EXPECT_EQ(p->expected[0].second, hash_bytes(text)) << schema;
  }
  TempDir u("capture-test");
  EXPECT_THROW(
      bundle_replay_plan(ptx_bundle(u.path(), "kdet.capture.bundle/4", text, hash_bytes(text))),
      Error);
}

TEST(CaptureReplay, ABundleOfSchemaTwoNamesOneHashAndItsFileIsChecked) {
  TempDir t("capture-test");
  std::string text = ".version 8.0\n.entry k()\n", ptx = text + '\0';
  ReplayPlan p =
      *bundle_replay_plan(ptx_bundle(t.path(), "kdet.capture.bundle/2", ptx, hash_bytes(text)));
  EXPECT_EQ(p.expected[0].second, hash_bytes(text));
  EXPECT_EQ(p.bundle_hashes, std::vector<std::string>{hash_bytes(text)});
  bool reproduced = true;
  nlohmann::json j = replay_json(p, runs_giving(k_h2, 2), reproduced);
  EXPECT_FALSE(reproduced);
  std::string line = replay_text(j);
  EXPECT_NE(line.find(fmt::format("captured  ptx {}: 0 of 2 runs gave it back (NOT REPRODUCED)\n",
                                  hash_bytes(text))),
            std::string::npos)
      << line;
  // Schema 2 recorded the artifact hash: the hash of the bytes with the NUL is no name of it.
  TempDir u("capture-test");
  std::string b = ptx_bundle(u.path(), "kdet.capture.bundle/2", ptx, hash_bytes(ptx));
  try {
    bundle_replay_plan(b);
    ADD_FAILURE() << "a file that is not its recorded hash replayed";
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), k_exit_usage);
    EXPECT_NE(std::string(e.what()).find("changed since the capture"), std::string::npos);
  }
  // Neither definition's hash: damaged under schema 1 too.
  TempDir v("capture-test");
  EXPECT_THROW(bundle_replay_plan(ptx_bundle(v.path(), "kdet.capture.bundle/1", ptx, k_h2)), Error);
}

} // namespace
} // namespace kdet::capture

// ---- notes: what the preload could not record ---------------------------------

namespace kdet::capture {
namespace {

std::string hex_of(const std::string& s) {
  std::string out = "x";
  for (unsigned char c : s)
    out += fmt::format("{:02x}", c);
  return out;
}

TEST(CaptureNotes, GroupedByProcessAndKindAndRecordsThatAreNoFiles) {
  TempDir t("capture-test");
  make_dirs(t.path() + "/notes");
  make_dirs(t.path() + "/records");
  std::string why = "its record log cannot be created (Not a directory)";
  write_file_atomic(t.path() + "/notes/42.note",
                    fmt::format("kdet-note 1 lost 42 1 {0}\nkdet-note 1 lost 42 1 {0}\n"
                                "kdet-note 1 exec-uncaptured 42 1 {1}\nkdet-note 1 lost 42",
                                hex_of("nvvm compile: " + why), hex_of("/usr/bin/ptxas")));
  // A .lost page: what a process with no free descriptor could not even note.
  std::string page(16 + 8 * 4, '\0');
  std::memcpy(page.data(), "kdet-lost 1\n", 12);
  uint64_t v[4] = {43, 3, 0, 0};
  std::memcpy(page.data() + 16, v, sizeof v);
  write_file_atomic(t.path() + "/notes/43-1.lost", page);
  // Marks by name (no room to count): a compile and a blob, with why; a name not of that form.
  for (const std::string& name :
       {"44-compile-" + hex_of("exec compile: No space left on device") + ".unnoted",
        "44-blob-" + hex_of("No space left on device") + ".unnoted",
        std::string("44-what-x41.unnoted")})
    write_file_atomic(t.path() + "/notes/" + name, "");
  ASSERT_EQ(::mkfifo((t.path() + "/records/44-1.log").c_str(), 0644), 0);
  std::vector<std::string> problems;
  std::vector<Note> notes = read_notes(t.path(), problems);
  EXPECT_TRUE(read_records(t.path(), problems).empty()); // the FIFO is named, never waited on
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find("records/44-1.log: not a regular file"), std::string::npos);
  ASSERT_EQ(notes.size(), 6u); // the cut-short last line and the unknown mark are no notes
  ChildrenWait children;
  children.seen = true;
  children.limit_s = 0.5;
  children.report.received = true;
  children.report.left = {{77, true, "python3 build.py"}};
  std::string s = notes_summary(notes, children);
  EXPECT_NE(s.find("LOST       2 nvvm compiles of process 42 could not be recorded: " + why),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("LOST       3 compiles of process 43 could not be recorded: no note could be "
                   "written to say why (no descriptor was free"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("LOST       1 exec compile of process 44 could not be recorded: No space left "
                   "on device; not even a note could be written, so there may have been more"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("LOST       1 input or output of process 44 could not be stored: No space "
                   "left on device; not even a note"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("process 42 ran /usr/bin/ptxas without LD_PRELOAD"), std::string::npos) << s;
  EXPECT_NE(s.find("KILLED     1 process the pipeline left"), std::string::npos) << s;
  EXPECT_NE(s.find("pid 77: python3 build.py"), std::string::npos) << s;
  // Ended by an interrupt: said so, never blamed on --wait-children (nor a wait of 0 us shown).
  ChildrenWait stopped = children;
  stopped.report.stopped = true;
  stopped.report.waited_for = 1;
  std::string si = notes_summary({}, stopped);
  EXPECT_NE(si.find("KILLED     1 process the pipeline left, ended because kdet was interrupted"),
            std::string::npos)
      << si;
  EXPECT_EQ(si.find("--wait-children"), std::string::npos) << si;
  EXPECT_EQ(si.find("waited"), std::string::npos) << si;
  EXPECT_EQ(children_json(stopped)["interrupted"], true);
  nlohmann::json j = notes_json(notes);
  ASSERT_EQ(j.size(), 5u);
  EXPECT_EQ(children_json(children)["left"][0]["pid"], 77);
  EXPECT_TRUE(children_json(ChildrenWait{}).is_null());
}

} // namespace
} // namespace kdet::capture
