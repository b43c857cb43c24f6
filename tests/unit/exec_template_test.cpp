// Exec command templates: placeholder checks, shell refusal, word-local expansion.
#include "kdet/backend/backend.hpp"
#include "kdet/backend/exec_template.hpp"
#include "kdet/util/error.hpp"

#include <gtest/gtest.h>

using kdet::Error;
using kdet::backend::check_command_template;
using kdet::backend::expand_word;
using kdet::backend::template_names;

namespace {

std::string error_of(const std::string& text, const std::vector<std::string>& extra = {}) {
  try {
    check_command_template(text, "--cmd", extra);
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), 2);
    return e.what();
  }
  return "";
}

} // namespace

TEST(ExecTemplate, UnknownPlaceholderNamesItAndTheValidOnes) {
  std::string e = error_of("cc.sh {input} {outptu}");
  EXPECT_NE(e.find("{outptu}"), std::string::npos) << e;
  EXPECT_NE(e.find("{input}, {output}, {workdir}"), std::string::npos) << e;
  EXPECT_NE(error_of("cc {input} -o {output} -t {target}"), "");
  EXPECT_EQ(error_of("cc {input} -o {output} -t {target}", {"target"}), "");
  EXPECT_NE(error_of(""), "");
}

TEST(ExecTemplate, ShellSyntaxAndBracesAreNotPlaceholders) {
  EXPECT_EQ(error_of("cc {input} ${HOME} {} {1} {a,b} '{ x }' --json={\"k\":1}"), "");
}

TEST(ExecTemplate, ShellScriptsMustTakeNamesAsPositionalParameters) {
  std::string e = error_of("sh -c 'cat {input} > {output}'");
  EXPECT_NE(e.find("positional"), std::string::npos) << e;
  EXPECT_NE(e.find("sh -c 'cat \"$1\" > \"$2\"' sh '{input}' '{output}'"), std::string::npos) << e;
  // The suggestion is itself a valid template.
  EXPECT_EQ(error_of("sh -c 'cat \"$1\" > \"$2\"' sh '{input}' '{output}'"), "");
  for (const char* t : {"bash -c 'x {input}'", "/usr/bin/dash -ec 'x {workdir}'",
                        "env A=1 zsh -c \"x {input}\"", "bash -o pipefail -c 'x {input}'",
                        "busybox sh -c 'x {input}'", "python3 -c 'open(\"{input}\")'",
                        "perl -e 'print \"{input}\"'", "nice -n 5 ksh -xc 'x {input}'"})
    EXPECT_NE(error_of(t), "") << t;
  // A script without placeholders, names after it, and shells not given -c are fine.
  EXPECT_EQ(error_of("bash -c 'cc \"$@\"' bash {input} -o {output}"), "");
  EXPECT_EQ(error_of("bash script.sh {input} {output}"), "");
  EXPECT_EQ(error_of("python3 tool.py {input}"), "");
}

TEST(ExecTemplate, ExpansionStaysInsideOneWord) {
  std::map<std::string, std::string> v = {{"input", "x;touch PWNED;.ll"},
                                          {"output", "/w/{input} o"}};
  EXPECT_EQ(expand_word("{input}", v), "x;touch PWNED;.ll");
  EXPECT_EQ(expand_word("--out={output}", v),
            "--out=/w/{input} o"); // one pass: the value is not expanded again
  EXPECT_EQ(expand_word("${HOME}{unknown}", v), "${HOME}{unknown}");
  auto words = check_command_template("cc -o{output} {input}", "--cmd");
  EXPECT_TRUE(template_names(words, "output"));
  EXPECT_FALSE(template_names(words, "workdir"));
}

TEST(BackendStatus, ASuccessWithoutBytesIsNoOutput) {
  using namespace kdet::backend;
  CompileResult r;
  r.status = Status::ok;
  r.artifacts = {{"ptx", ""}, {"cubin", ""}};
  classify_empty_output(r);
  EXPECT_EQ(r.status, Status::no_output);
  EXPECT_TRUE(r.artifacts.empty());
  Status parsed{};
  ASSERT_TRUE(parse_status("no-output", parsed));
  EXPECT_EQ(parsed, Status::no_output);
  CompileResult none;
  none.status = Status::ok;
  classify_empty_output(none);
  EXPECT_EQ(none.status, Status::no_output);
  CompileResult some;
  some.status = Status::ok;
  some.artifacts = {{"ptx", ""}, {"cubin", "x"}};
  classify_empty_output(some);
  EXPECT_EQ(some.status, Status::ok);
}

TEST(ExecTemplate, OutputExtensionStaysInTheRunsFolder) {
  using kdet::backend::check_output_ext;
  EXPECT_EQ(check_output_ext("cubin", "--output-ext"), "cubin");
  EXPECT_EQ(check_output_ext(".cubin", "--output-ext"), "cubin");
  EXPECT_EQ(check_output_ext("tar.gz", "--output-ext"), "tar.gz");
  EXPECT_EQ(check_output_ext("", "--output-ext"), "");
  for (const char* bad : {"../x", "a/b", "/x", "..", ".", "x..y", "a b", "x\n", "é"}) {
    try {
      check_output_ext(bad, "--output-ext");
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const kdet::Error& e) {
      EXPECT_EQ(e.exit_code(), kdet::k_exit_usage);
      EXPECT_NE(std::string(e.what()).find("--output-ext '"), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(check_output_ext(std::string(33, 'x'), "--output-ext"), kdet::Error);
}
