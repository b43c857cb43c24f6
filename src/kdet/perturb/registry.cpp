//===- perturb/registry.cpp - the factor table ------------------------------===//
#include "kdet/perturb/registry.hpp"

#include "kdet/util/error.hpp"

#include <fmt/format.h>

namespace kdet::perturb {

namespace {

FactorInfo level_row(const std::string& name, const std::string& help, const std::string& noun,
                     Regime regime, const std::string& natural) {
  FactorInfo f;
  f.name = name;
  f.help = help;
  f.manifest_key = name;
  f.fixed = level_name(name, Level::fixed);
  f.varied = level_name(name, Level::vary);
  f.natural = natural;
  f.noun = noun;
  f.regime = regime;
  f.set = [name](Setting& s, const std::string& v, const std::string& where) {
    level_of(s, name) = parse_level(name, v, where);
  };
  f.get = [name](const Setting& s) { return level_name(name, level_of(s, name)); };
  return f;
}

std::vector<FactorInfo> build() {
  std::vector<FactorInfo> rows;
  FactorInfo process;
  process.name = "process";
  process.help =
      "both: split runs between a fresh worker per run and one shared worker, so variation across "
      "processes (ASLR, pid) and inside one process (heap history) both show (library default); "
      "same: all runs in one worker (like a repro loop); fresh: a new worker per run";
  process.manifest_key = "process";
  process.fixed = "fresh";
  process.varied = "both";
  process.natural = "fresh";
  process.noun = "compile history in one process";
  process.regime = Regime::both;
  process.exec = false;
  process.moves_addresses = true;
  process.set = [](Setting& s, const std::string& v, const std::string& w) {
    s.process = parse_process(v, w);
  };
  process.get = [](const Setting& s) { return std::string(to_string(s.process)); };
  rows.push_back(process);

  FactorInfo heap;
  heap.name = "heap";
  heap.help =
      "none; churn: before each run malloc blocks of seeded random sizes and free every other one; "
      "chaos: the libkdet_chaos.so allocator moves every block by a seeded random amount";
  heap.manifest_key = "heap";
  heap.fixed = "none";
  heap.varied = "churn";
  heap.natural = "none";
  heap.noun = "the heap layout";
  heap.regime = Regime::inside;
  heap.moves_addresses = true;
  heap.set = [](Setting& s, const std::string& v, const std::string& w) {
    s.heap = parse_heap(v, w);
  };
  heap.get = [](const Setting& s) { return std::string(to_string(s.heap)); };
  rows.push_back(heap);

  FactorInfo aslr;
  aslr.name = "aslr";
  aslr.help = "on, or off: workers run with personality(ADDR_NO_RANDOMIZE)";
  aslr.manifest_key = "aslr";
  aslr.fixed = "off";
  aslr.varied = "on";
  aslr.natural = "on";
  aslr.noun = "ASLR";
  aslr.regime = Regime::across;
  aslr.moves_addresses = true;
  aslr.set = [](Setting& s, const std::string& v, const std::string& w) {
    s.aslr = parse_aslr(v, w);
  };
  aslr.get = [](const Setting& s) { return std::string(s.aslr ? "on" : "off"); };
  rows.push_back(aslr);

  FactorInfo threads;
  threads.name = "threads";
  threads.help =
      "N extra threads in each worker that allocate and stay alive, like a BLAS pool (0 to 256)";
  threads.manifest_key = "threads";
  threads.fixed = "0";
  threads.varied = "4";
  threads.natural = "0";
  threads.noun = "allocating threads";
  threads.regime = Regime::both;
  threads.exec = false;
  threads.moves_addresses = true;
  threads.set = [](Setting& s, const std::string& v, const std::string& w) {
    size_t used = 0;
    int n = -1;
    try {
      n = std::stoi(v, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != v.size() || n < 0 || n > 256)
      throw Error::format("{}: '{}' is not valid; use a whole number from 0 to 256", w, v);
    s.threads = n;
  };
  threads.get = [](const Setting& s) { return std::to_string(s.threads); };
  rows.push_back(threads);

  rows.push_back(level_row("path",
                           "fixed, or vary: the input under a random folder and file name each run",
                           "the input path", Regime::both, "fixed"));
  rows.back().python = false; // a Python stage gets the input's bytes, never its name
  rows.push_back(level_row("cwd", "fixed, or vary: a fresh random working directory each run",
                           "the working directory", Regime::both, "fixed"));
  rows.push_back(level_row("tmpdir", "fixed, or vary: a fresh random TMPDIR each run", "TMPDIR",
                           Regime::both, "fixed"));
  rows.push_back(level_row(
      "time",
      "real, fixed (libfaketime at 2020-01-01), or vary (libfaketime, a random offset each run)",
      "the time", Regime::both, "real"));
  rows.push_back(
      level_row("locale", "inherit, fixed (LC_ALL=C), or vary (a random installed locale each run)",
                "the locale", Regime::both, "inherit"));
  rows.push_back(level_row("umask", "inherit, fixed (022), or vary (a random umask each run)",
                           "the umask", Regime::both, "inherit"));
  rows.push_back(level_row(
      "pid", "vary (natural pids), or fixed (a fresh PID namespace: the compiler is pid 2)",
      "the pid", Regime::across, "vary"));
  rows.push_back(
      level_row("threadvars",
                "inherit, fixed (OPENBLAS_NUM_THREADS, OMP_NUM_THREADS, ... = 1), or vary (random "
                "1..cores)",
                "thread-count variables", Regime::both, "inherit"));
  rows.push_back(level_row(
      "mtime",
      "real, fixed (2020-01-01), or vary (a random time each run): the modification time the "
      "compiler sees for the files the input names (PTX .file, #include, #line, !DIFile; kdet's "
      "copies bound over them in a private mount namespace, never the files themselves) and "
      "SOURCE_DATE_EPOCH",
      "the modification time of the files the input names", Regime::both, "real"));
  rows.push_back(level_row(
      "tz", "inherit, fixed (TZ=UTC0), or vary (a random POSIX TZ each run, no tzdata needed)",
      "the timezone (TZ)", Regime::both, "inherit"));
  rows.push_back(level_row("home",
                           "inherit, fixed (HOME=/nonexistent/kdet-home), or vary (another "
                           "nonexistent HOME each run, as reprotest does)",
                           "HOME", Regime::both, "inherit"));
  rows.push_back(level_row(
      "cpus",
      "inherit, fixed (one usable CPU, each parallel slot its own), or vary (a random subset "
      "of the usable CPUs each run): the affinity mask nproc, OpenMP and "
      "thread pools size themselves from",
      "the CPUs it may run on (affinity)", Regime::both, "inherit"));
  rows.push_back(level_row("hostname",
                           "inherit, fixed (kdet-host, domain kdet-domain), or vary (random names "
                           "each run), in a UTS namespace of the worker's own (root only)",
                           "the host and domain name", Regime::both, "inherit"));
  // Read once, as an interpreter starts: it acts across processes only.
  rows.push_back(level_row(
      "hashseed",
      "Python stages (--py): random (Python's own: a new seed per interpreter, or PYTHONHASHSEED "
      "as inherited), fixed (PYTHONHASHSEED=0), or vary (a seeded PYTHONHASHSEED per fresh "
      "worker): the order of str-keyed dicts and sets in a Python frontend follows it",
      "Python's hash seed (PYTHONHASHSEED)", Regime::across, "random"));
  rows.back().library = false;
  rows.back().exec = false;

  FactorInfo ev;
  ev.name = "env-vary";
  ev.help = "NAME=V1,V2,...: each run sets NAME to one of the values (repeatable)";
  ev.manifest_key = "env_vary";
  ev.noun = "declared environment variables";
  ev.regime = Regime::both;
  ev.set = [](Setting& s, const std::string& v, const std::string&) {
    s.env_vary.push_back(parse_env_vary(v));
  };
  ev.get = [](const Setting& s) {
    std::string out;
    for (const auto& [k, vals] : s.env_vary) {
      out += (out.empty() ? "" : " ") + k + "=";
      for (size_t i = 0; i < vals.size(); ++i)
        out += (i ? "," : "") + vals[i];
    }
    return out;
  };
  rows.push_back(ev);
  return rows;
}

} // namespace

const char* to_string(Regime r) {
  return r == Regime::across   ? "across processes"
         : r == Regime::inside ? "inside one process"
                               : "both";
}

const std::vector<FactorInfo>& factor_registry() {
  static const std::vector<FactorInfo> rows = build();
  return rows;
}

const FactorInfo* find_factor(const std::string& name) {
  for (const auto& f : factor_registry())
    if (f.name == name) return &f;
  return nullptr;
}

const FactorInfo& factor(const std::string& name) {
  if (const FactorInfo* f = find_factor(name)) return *f;
  std::string all;
  for (const auto& f : factor_registry())
    all += (all.empty() ? "" : ", ") + f.name;
  throw Error::format("'{}' is not a factor; the factors are {}", name, all);
}

Regime covered_regime(const Setting& s, bool exec_backend) {
  if (exec_backend) return Regime::across;
  switch (s.process) {
  case ProcessMode::fresh:
    return Regime::across;
  case ProcessMode::same:
    return Regime::inside;
  case ProcessMode::both:
    return Regime::both;
  }
  return Regime::both;
}

std::string describe_regime(const Setting& s, bool exec_backend) {
  if (exec_backend) return "across processes (the compiler is a new process every run)";
  switch (s.process) {
  case ProcessMode::fresh:
    return "across processes only (a fresh worker per run; history inside one process not tested)";
  case ProcessMode::same:
    return "inside one process only (every run in one worker; ASLR and pid, which differ only "
           "between "
           "processes, not tested)";
  case ProcessMode::both:
    break;
  }
  return "across processes (odd runs: a fresh worker each) and inside one process (even runs: one "
         "shared worker)";
}

bool reaches(const FactorInfo& f, bool exec_backend, bool python_backend) {
  return exec_backend ? f.exec : python_backend ? f.python : f.library;
}

std::vector<std::string> unreachable_factors(const Setting& s, bool exec_backend) {
  std::vector<std::string> out;
  Regime covered = covered_regime(s, exec_backend);
  if (covered == Regime::inside) {
    if (s.aslr) out.push_back("aslr");
    if (s.pid == Level::vary) out.push_back("pid");
    if (s.hashseed == Level::vary) out.push_back("hashseed");
  }
  return out;
}

} // namespace kdet::perturb
