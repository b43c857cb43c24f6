// Unit tests for the corpus generator: determinism per seed, size, dialect
// spelling and SSA well-formedness (names defined once, in numbering order,
// every use defined). Whether libNVVM accepts the kernels is checked by
// tests/e2e/corpus_libnvvm.sh against the real library.
#include "kdet/corpus/generator.hpp"
#include "kdet/util/error.hpp"
#include "kdet/util/fs.hpp"

#include <filesystem>
#include <gtest/gtest.h>
#include <map>
#include <regex>
#include <set>
#include <sstream>

using namespace kdet;
using namespace kdet::corpus;

namespace {

Kernel make(uint64_t seed, size_t size, Dialect d = Dialect::llvm7) {
  KernelSpec spec;
  spec.name = "k";
  spec.seed = seed;
  spec.instructions = size;
  spec.dialect = d;
  return generate_kernel(spec);
}

size_t count(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1))
    ++n;
  return n;
}

// Checks every function of a module: each %name defined once, %vN defined in
// increasing N, and every %name used is a parameter, a label or a value
// defined in the same function. Returns the problems found.
std::vector<std::string> ssa_problems(const std::string& module) {
  std::vector<std::string> problems;
  std::istringstream in(module);
  std::string line;
  const std::regex token(R"(%([A-Za-z_][A-Za-z0-9_.]*))");
  const std::regex def(R"(^\s+%([A-Za-z0-9_.]+) = )");
  const std::regex label(R"(^([A-Za-z_][A-Za-z0-9_.]*):$)");
  bool in_fn = false;
  std::set<std::string> defined;
  std::vector<std::pair<std::string, std::string>> uses; // name, line
  long last_v = -1;
  std::string fn;
  while (std::getline(in, line)) {
    std::smatch m;
    if (line.rfind("define ", 0) == 0) {
      in_fn = true;
      fn = line;
      defined.clear();
      uses.clear();
      last_v = -1;
      std::string params = line.substr(line.find('('));
      for (std::sregex_iterator it(params.begin(), params.end(), token), end; it != end; ++it)
        defined.insert((*it)[1]);
      continue;
    }
    if (!in_fn) continue;
    if (line == "}") {
      for (const auto& [name, where] : uses)
        if (!defined.count(name)) problems.push_back("use of undefined %" + name + " in: " + where);
      in_fn = false;
      continue;
    }
    if (std::regex_match(line, m, label)) {
      if (!defined.insert(m[1]).second)
        problems.push_back("label defined twice: " + std::string(m[1]));
      continue;
    }
    std::string rest = line;
    if (std::regex_search(line, m, def)) {
      std::string name = m[1];
      if (!defined.insert(name).second) problems.push_back("value defined twice: %" + name);
      if (name.size() > 1 && name[0] == 'v' && std::isdigit(static_cast<unsigned char>(name[1]))) {
        long n = std::stol(name.substr(1));
        if (n <= last_v) problems.push_back("value %" + name + " out of numbering order in " + fn);
        last_v = n;
      }
      rest = line.substr(static_cast<size_t>(m.length(0)));
    }
    for (std::sregex_iterator it(rest.begin(), rest.end(), token), end; it != end; ++it)
      uses.emplace_back((*it)[1], line);
  }
  if (in_fn) problems.push_back("function not closed");
  return problems;
}

} // namespace

TEST(CorpusGenerator, SameSeedGivesByteIdenticalKernels) {
  for (size_t size : {k_small_instructions, k_medium_instructions}) {
    Kernel a = make(42, size), b = make(42, size);
    EXPECT_EQ(a.text, b.text);
    EXPECT_EQ(a.instructions, b.instructions);
  }
}

TEST(CorpusGenerator, DifferentSeedsGiveDifferentKernels) {
  std::set<std::string> texts;
  for (uint64_t seed = 0; seed < 16; ++seed)
    texts.insert(make(seed, k_small_instructions).text);
  EXPECT_EQ(texts.size(), 16u);
}

TEST(CorpusGenerator, SizeIsCloseToTheTarget) {
  for (size_t size :
       {size_t{60}, k_small_instructions, k_medium_instructions, k_large_instructions}) {
    for (uint64_t seed : {1u, 2u, 3u}) {
      Kernel k = make(seed, size);
      EXPECT_GE(k.instructions, size) << "seed " << seed;
      EXPECT_LE(k.instructions, size + size / 5 + 40) << "seed " << seed;
      // The count reported is the count of instruction lines in the text.
      size_t lines = 0;
      std::istringstream in(k.text);
      for (std::string line; std::getline(in, line);)
        if (line.rfind("  ", 0) == 0) ++lines;
      EXPECT_EQ(lines, k.instructions);
    }
  }
}

TEST(CorpusGenerator, HasTheShapeOfARealKernel) {
  Kernel k = make(7, k_medium_instructions);
  EXPECT_GE(k.pointer_params, 6u);
  EXPECT_GE(k.helpers, 2u);
  EXPECT_GE(k.loops, 1u);
  EXPECT_GE(k.barriers, 2u);
  EXPECT_EQ(count(k.text, "call void @llvm.nvvm.barrier0()"), k.barriers);
  EXPECT_NE(k.text.find("addrspace(3) global ["), std::string::npos);
  EXPECT_NE(k.text.find(" = phi float "), std::string::npos);
  EXPECT_NE(k.text.find("define internal float @k_helper0("), std::string::npos);
  EXPECT_NE(k.text.find("!\"kernel\", i32 1}"), std::string::npos);
  EXPECT_NE(k.text.find("!nvvmir.version = !{!2}"), std::string::npos);
  // libdevice is not linked: only intrinsics may be called besides helpers.
  EXPECT_EQ(k.text.find("@__nv_"), std::string::npos);
  // Every intrinsic called is declared exactly once.
  const std::regex callee(R"(call \w+ @(llvm\.[A-Za-z0-9_.]+)\()");
  std::set<std::string> called;
  for (std::sregex_iterator it(k.text.begin(), k.text.end(), callee), end; it != end; ++it)
    called.insert((*it)[1]);
  EXPECT_GE(called.size(), 5u);
  for (const auto& name : called) {
    std::regex decl("\ndeclare [a-z0-9]+ @" +
                    std::regex_replace(name, std::regex(R"(\.)"), R"(\.)") + R"(\()");
    EXPECT_EQ(std::distance(std::sregex_iterator(k.text.begin(), k.text.end(), decl),
                            std::sregex_iterator()),
              1)
        << name;
  }
}

TEST(CorpusGenerator, DialectsSpellPointersTheirWay) {
  Kernel old_ir = make(5, k_medium_instructions, Dialect::llvm7);
  Kernel new_ir = make(5, k_medium_instructions, Dialect::modern);
  EXPECT_NE(old_ir.text.find("float* %in0"), std::string::npos);
  EXPECT_NE(old_ir.text.find("float addrspace(3)*"), std::string::npos);
  EXPECT_EQ(old_ir.text.find(" ptr"), std::string::npos);
  EXPECT_EQ(old_ir.text.find("noundef"), std::string::npos);
  EXPECT_NE(new_ir.text.find("ptr addrspace(1) %in0"), std::string::npos);
  EXPECT_NE(new_ir.text.find("ptr addrspace(3) @k_smem0"), std::string::npos);
  EXPECT_EQ(new_ir.text.find("*"), std::string::npos);
  EXPECT_NE(new_ir.text.find("!{ptr @k, !\"kernel\", i32 1}"), std::string::npos);
  EXPECT_NE(old_ir.text.find("* @k, !\"kernel\", i32 1}"), std::string::npos);
}

TEST(CorpusGenerator, SsaIsWellFormedForManySeeds) {
  for (uint64_t seed = 0; seed < 40; ++seed) {
    size_t size = seed % 4 == 0 ? k_large_instructions
                  : seed % 2    ? k_small_instructions
                                : k_medium_instructions;
    Dialect d = seed % 3 == 0 ? Dialect::modern : Dialect::llvm7;
    auto problems = ssa_problems(make(seed, size, d).text);
    EXPECT_TRUE(problems.empty()) << "seed " << seed << ": " << problems.size()
                                  << " problems, first: "
                                  << (problems.empty() ? "" : problems.front());
  }
}

TEST(CorpusGenerator, SsaCheckerCatchesBrokenIr) {
  // The checker itself must be able to fail.
  std::string broken =
      "define void @f(i32 %a) {\nentry:\n  %v1 = add i32 %a, 1\n  %v0 = add i32 %v1, %nope\n"
      "  %v1 = add i32 %a, 2\n  ret void\n}\n";
  auto problems = ssa_problems(broken);
  EXPECT_EQ(problems.size(), 3u);
}

TEST(CorpusGenerator, RejectsBadSpecs) {
  KernelSpec spec;
  spec.name = "9lives";
  EXPECT_THROW(generate_kernel(spec), Error);
  spec.name = "ok";
  spec.instructions = 3;
  EXPECT_THROW(generate_kernel(spec), Error);
  EXPECT_THROW(parse_size("huge", "--size"), Error);
  EXPECT_THROW(parse_size("10", "--size"), Error);
  EXPECT_THROW(parse_dialect("llvm17", "--dialect"), Error);
  EXPECT_EQ(parse_size("large", "--size").instructions, k_large_instructions);
  EXPECT_EQ(parse_size("1234", "--size").instructions, 1234u);
  EXPECT_TRUE(parse_size("mixed", "--size").mixed);
  EXPECT_EQ(parse_dialect("modern", "--dialect"), Dialect::modern);
}

TEST(CorpusWriter, WritesTheSameFilesForTheSameSeed) {
  std::string dir = make_temp_dir("kdet-corpus-test");
  CorpusSpec spec;
  spec.count = 6;
  spec.seed = 9;
  spec.size = parse_size("mixed", "--size");
  spec.out_dir = dir + "/a";
  auto a = write_corpus(spec);
  spec.out_dir = dir + "/b";
  auto b = write_corpus(spec);
  spec.out_dir = dir + "/c";
  spec.seed = 10;
  auto c = write_corpus(spec);
  ASSERT_EQ(a.size(), 6u);
  ASSERT_EQ(b.size(), 6u);
  std::set<size_t> sizes;
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(read_file(a[i].path), read_file(b[i].path));
    EXPECT_NE(read_file(a[i].path), read_file(c[i].path));
    EXPECT_EQ(std::filesystem::path(a[i].path).filename(),
              std::filesystem::path(b[i].path).filename());
    sizes.insert(a[i].kernel.instructions / 100);
  }
  EXPECT_GT(sizes.size(), 1u) << "mixed should give kernels of different sizes";
  std::string readme = read_file(dir + "/a/README.txt");
  EXPECT_EQ(readme, read_file(dir + "/b/README.txt"));
  EXPECT_NE(readme.find("seed     0x9"), std::string::npos);
  EXPECT_NE(readme.find("dialect  llvm7"), std::string::npos);
  EXPECT_NE(readme.find("gen_0005.ll"), std::string::npos);
  spec.count = 0;
  EXPECT_THROW(write_corpus(spec), Error);
  remove_tree(dir);
}

namespace {

// The kernel's parameter types, in order ("float*", "i32*", "float", "i32"; modern: "ptr").
std::vector<std::string> kernel_params(const Kernel& k) {
  std::string head = "define void @" + k.name + "(";
  size_t b = k.text.find(head);
  size_t e = k.text.find(") {", b);
  std::vector<std::string> out;
  std::stringstream ss(k.text.substr(b + head.size(), e - b - head.size()));
  std::string p;
  while (std::getline(ss, p, ',')) {
    p.erase(0, p.find_first_not_of(' '));
    std::string type = p.substr(0, p.rfind(' '));
    if (type.back() == '*' || type.rfind("ptr", 0) == 0) type = "buffer";
    out.push_back(type);
  }
  return out;
}

// The kernel's body alone (helpers come before it in the module).
std::string kernel_body(const Kernel& k) {
  size_t b = k.text.find("define void @" + k.name + "(");
  return k.text.substr(b, k.text.find("\n}\n", b) - b);
}

} // namespace

TEST(CorpusGenerator, RecipeMatchesTheKernel) {
  for (Dialect d : {Dialect::llvm7, Dialect::modern})
    for (uint64_t seed : {1, 2, 3, 40}) {
      KernelSpec spec;
      spec.name = "gen_0007";
      spec.seed = seed;
      spec.instructions = seed == 40 ? k_large_instructions : k_medium_instructions;
      spec.dialect = d;
      Kernel k = generate_kernel(spec);
      const gpu::Recipe& r = k.recipe;
      EXPECT_EQ(r.kernel, "gen_0007");
      std::vector<std::string> params = kernel_params(k);
      ASSERT_EQ(params.size(), r.args.size()) << seed;
      for (size_t i = 0; i < params.size(); ++i) {
        const gpu::RecipeArg& a = r.args[i];
        if (params[i] == "buffer") {
          ASSERT_EQ(a.kind, gpu::RecipeArg::Kind::buffer) << i;
          // Inputs are read at indices masked to their size; outputs hold a thread's element.
          EXPECT_EQ(a.elements, a.output ? uint64_t{k_recipe_threads} : k_input_elements) << i;
          EXPECT_EQ(a.output, a.name.rfind("out", 0) == 0) << a.name;
        } else {
          ASSERT_EQ(a.kind, gpu::RecipeArg::Kind::scalar) << i;
          EXPECT_EQ(params[i], a.type == gpu::Type::f32 ? "float" : "i32") << i;
        }
      }
      // The block is the kernel's .maxntid, the grid covers k_recipe_threads.
      std::smatch m;
      ASSERT_TRUE(std::regex_search(k.text, m, std::regex("\"maxntidx\", i32 ([0-9]+)")));
      EXPECT_EQ(std::to_string(r.block[0]), m[1].str());
      EXPECT_EQ(uint64_t{r.grid[0]} * r.block[0], k_recipe_threads);
      // Shared arrays hold a slot per thread of the block.
      std::regex arr("addrspace\\(3\\) global \\[([0-9]+) x float\\]");
      for (auto it = std::sregex_iterator(k.text.begin(), k.text.end(), arr);
           it != std::sregex_iterator(); ++it)
        EXPECT_GE(std::stoul((*it)[1].str()), r.block[0]);
      // The recipe file reads back.
      gpu::Recipe back = gpu::parse_recipe(gpu::to_toml(r, "c"), "x.toml");
      EXPECT_EQ(back.args.size(), r.args.size());
    }
}

TEST(CorpusGenerator, KernelsAreRaceFree) {
  for (uint64_t seed = 0; seed < 12; ++seed) {
    KernelSpec spec;
    spec.name = "k";
    spec.seed = seed;
    spec.instructions = k_medium_instructions;
    Kernel k = generate_kernel(spec);
    std::string body = kernel_body(k);
    std::string helpers = k.text.substr(0, k.text.find("define void @k("));
    // Helpers store nothing; the kernel stores to global memory only at its own element.
    std::regex store("store float [^,]+, float\\* (%v[0-9]+)");
    EXPECT_FALSE(std::regex_search(helpers, store)) << seed;
    size_t stores = 0;
    for (auto it = std::sregex_iterator(body.begin(), body.end(), store);
         it != std::sregex_iterator(); ++it, ++stores) {
      std::regex gep((*it)[1].str() +
                     " = getelementptr inbounds float, float\\* %out[0-9]+, i64 %gid64\n");
      EXPECT_TRUE(std::regex_search(body, gep)) << seed << ": " << (*it)[0];
    }
    EXPECT_GT(stores, 0u) << seed;
    // Every global load's index is masked to the inputs' size, or the thread's own.
    std::regex load("getelementptr inbounds (float|i32), (float|i32)\\* (%[a-z0-9]+), i64 "
                    "(%[a-z0-9.]+)\n");
    for (auto it = std::sregex_iterator(k.text.begin(), k.text.end(), load);
         it != std::sregex_iterator(); ++it) {
      std::string index = (*it)[4].str(), base = (*it)[3].str();
      if (base.rfind("%out", 0) == 0) continue; // a store's address (checked above)
      std::smatch def;
      ASSERT_TRUE(
          std::regex_search(k.text, def, std::regex(index + " = [sz]ext i32 (%[a-z0-9.]+) to i64")))
          << index;
      EXPECT_TRUE(
          std::regex_search(k.text, std::regex(def[1].str() + " = and i32 [^,]+, " +
                                               std::to_string(k_input_elements - 1) + "\n")))
          << seed << ": " << (*it)[0];
    }
    // Shared memory: each thread writes slot tid and reads (tid + k) mod ntid.
    EXPECT_EQ(count(body, "urem i32"), k.barriers / 2) << seed;
  }
}
