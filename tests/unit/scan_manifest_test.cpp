// Unit tests for scan/manifest and scan/planner: each kind of manifest error
// names file:line and what is valid; job ids are stable; shards partition.
#include "kdet/scan/manifest.hpp"
#include "kdet/scan/planner.hpp"
#include "kdet/util/error.hpp"
#include "kdet/util/fs.hpp"

#include <gtest/gtest.h>
#include <set>

using namespace kdet;

namespace {

class ScanManifestTest : public ::testing::Test {
protected:
  void SetUp() override {
    m_dir = make_temp_dir("kdet-manifest-test");
    write_file_atomic(m_dir + "/a.ll", "; a\n");
    write_file_atomic(m_dir + "/b.ll", "; b\n");
    m_lib = m_dir + "/libfake.so";
    write_file_atomic(m_lib, "not really a library");
    write_file_atomic(m_dir + "/stage.py", "def compile(data, options):\n    return data\n");
  }
  void TearDown() override { remove_tree(m_dir); }

  scan::Manifest parse(const std::string& text) {
    return scan::parse_manifest(text, m_dir + "/m.toml");
  }

  // The error message of parsing `text` ("" when it parsed).
  std::string error_of(const std::string& text) {
    try {
      parse(text);
    } catch (const Error& e) {
      EXPECT_EQ(e.exit_code(), k_exit_usage);
      return e.what();
    }
    return "";
  }

  std::string good() {
    return "name = \"t\"\ninputs = [\"*.ll\"]\ntargets = [\"80\", \"90a\"]\n"
           "[option_sets]\nO0 = [\"-opt=0\"]\nO3 = [\"-opt=3\"]\n"
           "[[compiler]]\nname = \"old\"\nbackend = \"nvvm\"\nlib = \"libfake.so\"\n"
           "[[compiler]]\nname = \"new\"\nbackend = \"nvvm\"\nlib = \"" +
           m_lib +
           "\"\noptions = [\"-x\"]\n"
           "[setting]\nseed = 7\npath = \"vary\"\nenv_vary = [\"K=1,2\"]\n[budget]\ntarget_rate = "
           "0.1\n"
           "[[expect]]\ninput = \"a.ll\"\ncompiler = \"old\"\nreason = \"known\"\n";
  }

  std::string m_dir, m_lib;
};

TEST_F(ScanManifestTest, ParsesAGoodManifest) {
  auto m = parse(good());
  ASSERT_EQ(m.inputs.size(), 2u);
  EXPECT_EQ(m.inputs[0].name, "a.ll");
  ASSERT_EQ(m.compilers.size(), 2u);
  EXPECT_EQ(m.compilers[0].config.lib, m_lib);
  EXPECT_EQ(m.compilers[0].target_option, "-arch=compute_{target}");
  EXPECT_EQ(m.option_sets.size(), 2u);
  EXPECT_EQ(m.setting.seed, 7u);
  EXPECT_EQ(perturb::level_of(m.setting, "path"), perturb::Level::vary);
  ASSERT_EQ(m.setting.env_vary.size(), 1u);
  EXPECT_EQ(m.setting.env_vary[0].second, (std::vector<std::string>{"1", "2"}));
  EXPECT_EQ(scan::job_budget(m), 29u); // ln(0.05)/ln(0.9) = 28.4
  ASSERT_EQ(m.expectations.size(), 1u);
  EXPECT_NE(scan::find_expectation(m, "a.ll", "old", "80", "O3"), nullptr);
  EXPECT_EQ(scan::find_expectation(m, "a.ll", "new", "80", "O3"), nullptr);
  EXPECT_EQ(scan::find_expectation(m, "b.ll", "old", "80", "O3"), nullptr);
}

// A Python stage: its file relative to the manifest, its function, the interpreter found.
TEST_F(ScanManifestTest, ParsesAPythonStage) {
  scan::Manifest m = parse("inputs = [\"a.ll\"]\n[[compiler]]\nname = \"py\"\nbackend = "
                           "\"python\"\nfile = \"stage.py\"\nfunction = \"compile\"\n");
  ASSERT_EQ(m.compilers.size(), 1u);
  const auto& c = m.compilers[0].config;
  EXPECT_EQ(c.kind, backend::Kind::python);
  EXPECT_EQ(c.lib, m_dir + "/stage.py");
  EXPECT_EQ(c.function, "compile");
  EXPECT_FALSE(c.python.empty());
  EXPECT_EQ(m.compilers[0].target_option, "");
  EXPECT_EQ(m.setting.process, perturb::ProcessMode::both);
}

TEST_F(ScanManifestTest, JobsAreStableAndShardsPartitionThem) {
  auto m = parse(good());
  std::vector<scan::ResolvedCompiler> rc = scan::resolve_compilers(m);
  auto jobs = scan::plan_jobs(m, rc);
  ASSERT_EQ(jobs.size(), 2u * 2u * 2u * 2u); // inputs x compilers x targets x option sets
  std::set<std::string> ids;
  for (const auto& j : jobs)
    ids.insert(j.id);
  EXPECT_EQ(ids.size(), jobs.size());
  EXPECT_EQ(jobs[0].options, (std::vector<std::string>{"-arch=compute_80", "-opt=0"}));
  EXPECT_NE(jobs[0].expect, nullptr);
  auto again = scan::plan_jobs(parse(good()), scan::resolve_compilers(parse(good())));
  for (size_t i = 0; i < jobs.size(); ++i)
    EXPECT_EQ(jobs[i].id, again[i].id);
  size_t in_any = 0;
  for (const auto& j : jobs) {
    int hits = 0;
    for (uint64_t s = 1; s <= 3; ++s)
      hits += scan::in_shard(j.id, {s, 3});
    EXPECT_EQ(hits, 1) << j.id;
    in_any += hits;
  }
  EXPECT_EQ(in_any, jobs.size());
  // A changed compiler file makes new jobs.
  write_file_atomic(m_lib + ".2", "another version");
  std::string text = good();
  text.replace(text.find("libfake.so\""), 11, "libfake.so.2\"");
  auto m2 = parse(text);
  auto jobs2 = scan::plan_jobs(m2, scan::resolve_compilers(m2));
  EXPECT_NE(jobs2[0].id, jobs[0].id);
}

TEST_F(ScanManifestTest, ShardSyntax) {
  EXPECT_EQ(scan::parse_shard("2/8").index, 2u);
  EXPECT_THROW(scan::parse_shard("0/8"), Error);
  EXPECT_THROW(scan::parse_shard("9/8"), Error);
  EXPECT_THROW(scan::parse_shard("x"), Error);
}

struct BadCase {
  const char* what;
  std::string text;
  std::string expect; // substring of the message
};

TEST_F(ScanManifestTest, EachKindOfErrorNamesFileLineAndWhatIsValid) {
  std::string comp = "[[compiler]]\nname = \"c\"\nbackend = \"nvvm\"\nlib = \"libfake.so\"\n";
  std::vector<BadCase> cases = {
      {"not TOML", "inputs = [\"a.ll\"\n", "m.toml:1: not valid TOML"},
      {"unknown top-level key", "inputs = [\"a.ll\"]\nbogus = 1\n" + comp,
       "m.toml:2: unknown key 'bogus'"},
      {"no inputs", comp, "no 'inputs'"},
      {"input matches nothing", "inputs = [\n  \"a.ll\",\n  \"zz*.cu\"]\n" + comp,
       "m.toml:3: input 'zz*.cu' matches no file"},
      {"inputs not strings", "inputs = [1]\n" + comp, "m.toml:1: inputs must hold strings"},
      {"no compiler", "inputs = [\"a.ll\"]\n", "no compiler"},
      {"compiler not array", "inputs = [\"a.ll\"]\n[compiler]\nname = \"x\"\n",
       "m.toml:2: compiler must be written [[compiler]]"},
      {"compiler without name", "inputs = [\"a.ll\"]\n[[compiler]]\nbackend = \"nvvm\"\n",
       "m.toml:2: [[compiler]] needs 'name'"},
      {"bad backend", "inputs = [\"a.ll\"]\n[[compiler]]\nname = \"c\"\nbackend = \"gcc\"\n",
       "m.toml:4: compiler 'c': backend 'gcc' is not valid; use nvvm, nvrtc, nvjitlink, exec or "
       "python"},
      {"unknown compiler key", "inputs = [\"a.ll\"]\n" + comp + "flavour = \"x\"\n",
       "m.toml:6: unknown key 'flavour' in [[compiler]]; valid keys:"},
      {"duplicate compiler", "inputs = [\"a.ll\"]\n" + comp + comp,
       "m.toml:7: compiler name 'c' is used twice"},
      {"missing lib",
       "inputs = [\"a.ll\"]\n[[compiler]]\nname = \"c\"\nbackend = \"nvvm\"\nlib = \"nope.so\"\n",
       "m.toml:5: compiler 'c': lib"},
      {"python with lib",
       "inputs = [\"a.ll\"]\n[[compiler]]\nname = \"c\"\nbackend = \"python\"\nfile = "
       "\"stage.py\"\nfunction = \"compile\"\nlib = \"libfake.so\"\n",
       "m.toml:7: compiler 'c': a Python stage takes file"},
      {"python without function",
       "inputs = [\"a.ll\"]\n[[compiler]]\nname = \"c\"\nbackend = \"python\"\nfile = "
       "\"stage.py\"\n",
       "compiler 'c' needs 'function'"},
      {"python file missing",
       "inputs = [\"a.ll\"]\n[[compiler]]\nname = \"c\"\nbackend = \"python\"\nfile = "
       "\"none.py\"\nfunction = \"compile\"\n",
       "m.toml:5: compiler 'c': file "},
      {"python function not a name",
       "inputs = [\"a.ll\"]\n[[compiler]]\nname = \"c\"\nbackend = \"python\"\nfile = "
       "\"stage.py\"\nfunction = \"a.b\"\n",
       "m.toml:6: compiler 'c': function 'a.b' is not a Python function name"},
      {"file for nvvm",
       "inputs = [\"a.ll\"]\n[[compiler]]\nname = \"c\"\nbackend = \"nvvm\"\nfile = "
       "\"stage.py\"\n",
       "m.toml:5: compiler 'c': file is for backend python, not nvvm"},
      {"exec without command",
       "inputs = [\"a.ll\"]\n[[compiler]]\nname = \"c\"\nbackend = \"exec\"\n", "needs command ="},
      {"exec program absent",
       "inputs = [\"a.ll\"]\n[[compiler]]\nname = \"c\"\nbackend = \"exec\"\ncommand = "
       "\"no-such-prog-kdet {input}\"\n",
       "program 'no-such-prog-kdet' not found"},
      {"targets without placeholder",
       "inputs = [\"a.ll\"]\ntargets = [\"80\", \"90\"]\n[[compiler]]\nname = \"c\"\nbackend = "
       "\"nvvm\"\n"
       "lib = \"libfake.so\"\ntarget_option = \"-arch=sm_90\"\n",
       "m.toml:3: compiler 'c' has 2 targets but neither"},
      {"empty target", "inputs = [\"a.ll\"]\ntargets = [\"80\", \"\"]\n" + comp,
       "m.toml:2: manifest.targets holds an empty target"},
      {"target twice", "inputs = [\"a.ll\"]\ntargets = [\"80\", \"80\"]\n" + comp,
       "m.toml:2: manifest.targets lists '80' twice"},
      {"target not a name", "inputs = [\"a.ll\"]\ntargets = [\"80\", \"90a;rm x\"]\n" + comp,
       "m.toml:2: manifest.targets: '90a;rm x' is not a target name"},
      {"target an option", "inputs = [\"a.ll\"]\ntargets = [\"-o/tmp/x\"]\n" + comp,
       "m.toml:2: manifest.targets: '-o/tmp/x' is not a target name"},
      {"output_ext with a slash",
       "inputs = [\"a.ll\"]\n[[compiler]]\nname = \"c\"\nbackend = \"exec\"\ncommand = "
       "\"true {input} {output}\"\noutput_ext = \"../x\"\n",
       "m.toml:6: compiler 'c': output_ext '../x': an extension is up to 32"},
      {"target not a string", "inputs = [\"a.ll\"]\ntargets = [80]\n" + comp,
       "m.toml:2: manifest.targets must hold strings only"},
      {"bad option set", "inputs = [\"a.ll\"]\n" + comp + "[option_sets]\nO3 = \"-opt=3\"\n",
       "m.toml:7: option set 'O3' must be an array"},
      {"bad process", "inputs = [\"a.ll\"]\n" + comp + "[setting]\nprocess = \"forked\"\n",
       "m.toml:7: [setting] process: 'forked' is not valid; use both, same or fresh"},
      {"bad aslr", "inputs = [\"a.ll\"]\n" + comp + "[setting]\naslr = \"maybe\"\n",
       "m.toml:7: [setting] aslr must be"},
      {"bad level factor", "inputs = [\"a.ll\"]\n" + comp + "[setting]\ntime = \"sometimes\"\n",
       "m.toml:7: [setting] time"},
      {"bad env_vary", "inputs = [\"a.ll\"]\n" + comp + "[setting]\nenv_vary = [\"X=1\"]\n",
       "m.toml:7: [setting] env_vary"},
      {"bad env", "inputs = [\"a.ll\"]\n" + comp + "[setting]\nenv = [\"NOEQUALS\"]\n",
       "expected \"KEY=VALUE\""},
      {"bad rate", "inputs = [\"a.ll\"]\n" + comp + "[budget]\ntarget_rate = 2\n",
       "m.toml:7: budget.target_rate = 2: not valid; give a number from"},
      {"nan rate", "inputs = [\"a.ll\"]\n" + comp + "[budget]\ntarget_rate = nan\n",
       "m.toml:7: budget.target_rate = nan: not valid"},
      {"nan runs", "inputs = [\"a.ll\"]\n" + comp + "[budget]\nmax_runs = nan\n",
       "m.toml:7: budget.max_runs = nan: not valid; give a whole number from 0 to 10000000"},
      {"fractional runs", "inputs = [\"a.ll\"]\n" + comp + "[budget]\nmax_runs = 1.5\n",
       "m.toml:7: budget.max_runs = 1.5: not valid"},
      {"fractional threads", "inputs = [\"a.ll\"]\n" + comp + "[setting]\nthreads = 1.5\n",
       "m.toml:7: setting.threads = 1.5: not valid; give a whole number from 0 to 256"},
      {"too many threads", "inputs = [\"a.ll\"]\n" + comp + "[setting]\nthreads = 257\n",
       "m.toml:7: setting.threads = 257: not valid"},
      {"negative round", "inputs = [\"a.ll\"]\n" + comp + "[budget]\nfirst_round = -3\n",
       "m.toml:7: budget.first_round = -3: not valid; give a whole number from 1"},
      {"huge round", "inputs = [\"a.ll\"]\n" + comp + "[budget]\nmax_round = 1e300\n",
       "m.toml:7: budget.max_round = 1e+300: not valid"},
      {"brace bomb",
       "inputs = [\"a{b,c}{b,c}{b,c}{b,c}{b,c}{b,c}{b,c}{b,c}{b,c}{b,c}{b,c}{b,c}{b,c}{b,c}{b,c}"
       "{b,c}{b,c}{b,c}{b,c}{b,c}{b,c}{b,c}.ll\"]\n" +
           comp,
       "m.toml:1: input 'a{b,c}{b,c}"},
      {"tiny timeout", "inputs = [\"a.ll\"]\n" + comp + "[budget]\ntimeout = 0.0005\n",
       "m.toml:7: budget.timeout = 0.0005: not valid; give a number from 0.001 to 1000000 (or 0)"},
      {"infinite timeout", "inputs = [\"a.ll\"]\n" + comp + "[budget]\ntimeout = inf\n",
       "m.toml:7: budget.timeout = inf: not valid"},
      {"bad budget key", "inputs = [\"a.ll\"]\n" + comp + "[budget]\nruns = 2\n",
       "m.toml:7: unknown key 'runs' in [budget]"},
      {"expect unknown compiler",
       "inputs = [\"a.ll\"]\n" + comp +
           "[[expect]]\ninput = \"a.ll\"\ncompiler = \"zz\"\nreason = \"r\"\n",
       "m.toml:6: [[expect]] compiler 'zz' is not a [[compiler]] name"},
      {"expect without reason", "inputs = [\"a.ll\"]\n" + comp + "[[expect]]\ninput = \"a.ll\"\n",
       "m.toml:6: [[expect]] needs 'reason'"},
      {"expect matches no input",
       "inputs = [\"a.ll\"]\n" + comp + "[[expect]]\ninput = \"q*.ll\"\nreason = \"r\"\n",
       "m.toml:7: [[expect]] input 'q*.ll' matches none of the 1 input and 0 bundles; input "
       "names are paths relative to the manifest's folder, e.g. 'a.ll'"},
  };
  for (const auto& c : cases) {
    std::string msg = error_of(c.text);
    EXPECT_NE(msg.find(c.expect), std::string::npos) << c.what << ": got '" << msg << "'";
    EXPECT_NE(msg.find("m.toml"), std::string::npos) << c.what;
  }
}

} // namespace
