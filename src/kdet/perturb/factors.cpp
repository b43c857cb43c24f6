#include "kdet/perturb/factors.hpp"

#include "kdet/perturb/presets.hpp"
#include "kdet/util/error.hpp"
#include "kdet/util/exec.hpp"
#include "kdet/util/fs.hpp"
#include "kdet/util/hash.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <mutex>
#include <sched.h>
#include <thread>
#include <unistd.h>

namespace kdet::perturb {

namespace {

// Independent seeded choices per factor from one run seed.
uint64_t pick(uint64_t run_seed, uint64_t salt) {
  return mix_seed(run_seed, salt);
}

std::string random_name(uint64_t r, size_t len) {
  static constexpr char k_chars[] = "abcdefghijklmnopqrstuvwxyz0123456789";
  std::string s;
  for (size_t i = 0; i < len; ++i) {
    s += k_chars[r % 36];
    r = r / 36 + 0x9e3779b97f4a7c15ULL * (i + 1);
  }
  return s;
}

// time=fixed: k_fixed_epoch (perturb/presets.hpp), read as seconds (FAKETIME_FMT=%s).
std::string fixed_time() {
  return fmt::format("@{}", k_fixed_epoch);
}

// A fixed level's variables (perturb/presets.hpp), added to a run's environment.
void add_fixed(std::vector<std::string>& env, std::string_view factor) {
  for (auto& e : fixed_environment(factor))
    env.push_back(std::move(e));
}
// mtime=vary: a time from 2001-09-09 (1e9 s) on, within 30 years.
constexpr int64_t k_vary_epoch_from = 1000000000;
constexpr uint64_t k_vary_epoch_span = 30ULL * 365 * 86400;
const char* const k_locales[] = {"C", "C.UTF-8", "POSIX"};
const unsigned k_umasks[] = {0022, 0002, 0027, 0077};
// POSIX TZ strings: they need no tzdata, so every machine reads them the same way. They differ in
// offset and in daylight-saving rules, never in length or in names: glibc's tzset (libfaketime
// calls it under time=fixed) copies the string and the names onto the heap, so zones of different
// lengths would move a library compiler's heap blocks and seem to act on a compiler whose output
// follows heap addresses. At the instant 1e9 each gives another local hour.
const char* const k_timezones[] = {"KDA+00:00KDB,M10.1.0,M11.5.0", "KDA+05:00KDB,M11.1.0,M12.5.0",
                                   "KDA-09:00KDB,M10.5.0,M12.1.0", "KDA-05:30KDB,M10.1.0,M11.5.0",
                                   "KDA-12:00KDB,M11.1.0,M12.5.0", "KDA+03:30KDB,M10.5.0,M12.1.0"};

// A PYTHONHASHSEED value (1 to 4294967295; 0 would turn hashing's randomisation off).
uint64_t python_hash_seed(uint64_t seed) {
  return 1 + mix_seed(seed, 16) % 4294967295ULL;
}

} // namespace

std::string preload_list(const std::vector<std::string>& libs) {
  std::string v;
  for (const auto& l : libs)
    v += (v.empty() ? "" : ":") + l;
  if (const char* existing = std::getenv("LD_PRELOAD"); existing && *existing)
    v += std::string(":") + existing;
  return v;
}

const std::vector<std::string>& thread_count_variables() {
  static const std::vector<std::string> v = {
      "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS",        "MKL_NUM_THREADS", "GOTO_NUM_THREADS",
      "NUMEXPR_NUM_THREADS",  "VECLIB_MAXIMUM_THREADS", "TBB_NUM_THREADS", "NPROC"};
  return v;
}

bool pid_namespace_available(std::string* why) {
  static std::once_flag once;
  static bool ok = false;
  static std::string reason;
  std::call_once(once, [] {
    SpawnOptions o;
    o.argv = {"/bin/true"};
    o.new_pid_namespace = true;
    auto r = run_captured(o, std::chrono::seconds(10));
    ok = r.status.ok();
    reason = ok ? "" : r.status.describe();
  });
  if (why) *why = reason;
  return ok;
}

void find_preload_libraries(Context& ctx) {
  ctx.chaos_lib = find_kdet_library("libkdet_chaos.so");
  for (const char* cand :
       {"/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1",
        "/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1",
        "/usr/lib/faketime/libfaketime.so.1", "/usr/local/lib/faketime/libfaketime.so.1"}) {
    if (::access(cand, R_OK) == 0) {
      ctx.faketime_lib = cand;
      break;
    }
  }
}

std::string chaos_unusable(bool exec) {
#if defined(__SANITIZE_ADDRESS__)
  constexpr const char* k_sanitizer = "AddressSanitizer";
#elif defined(__SANITIZE_THREAD__)
  constexpr const char* k_sanitizer = "ThreadSanitizer";
#else
  constexpr const char* k_sanitizer = nullptr;
#endif
  if (exec || k_sanitizer == nullptr) return "";
  return fmt::format("this kdet is built with {}, whose allocator and libkdet_chaos.so cannot "
                     "share a library compiler's worker",
                     k_sanitizer);
}

void check_available(const Setting& s, const Context& ctx) {
  if (s.heap == HeapMode::chaos && ctx.chaos_lib.empty())
    throw Error("--heap chaos: libkdet_chaos.so was not found beside the kdet binary or in "
                "its installed lib/kdet folder (build the kdet_chaos target)");
  if (s.heap == HeapMode::chaos)
    if (std::string why = chaos_unusable(ctx.exec_backend); !why.empty())
      throw Error::format("--heap chaos: {}; use --heap churn or none", why);
  if (s.time != Level::inherit && ctx.faketime_lib.empty())
    throw Error(
        "--time fixed|vary needs libfaketime (Debian package faketime), which is not installed");
  std::string why;
  if (s.pid == Level::fixed && !pid_namespace_available(&why))
    throw Error::format(
        "--pid fixed: this machine does not let kdet create a PID namespace ({}); the pid "
        "cannot be held fixed here",
        why);
}

std::vector<int> affinity_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (::sched_getaffinity(0, sizeof set, &set) != 0) return cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) cpus.push_back(c);
  return cpus;
}

bool needs_private_mounts(const Setting& s, const Context& ctx) {
  if (s.mtime == Level::inherit) return false;
  return !ctx.named_files.empty() || (ctx.exec_backend && s.path == Level::fixed);
}

std::vector<std::pair<std::string, std::string>> file_binds(const RunPerturbation& p) {
  std::vector<std::pair<std::string, std::string>> b;
  for (const auto& f : p.file_times)
    if (!f.copy.empty()) b.emplace_back(f.copy, f.path);
  return b;
}

Launch plan_launch(const Setting& s, const Context& ctx) {
  Launch l;
  l.disable_aslr = !s.aslr;
  l.threads = s.threads;
  l.private_mounts = needs_private_mounts(s, ctx);
  l.private_uts = s.hostname != Level::inherit;
  // Exec compilers are separate processes: preloads and namespaces go to them per run, not to the
  // worker.
  if (!ctx.exec_backend) {
    l.pid_namespace = s.pid == Level::fixed;
    std::vector<std::string> preload;
    if (s.heap == HeapMode::chaos) {
      preload.push_back(ctx.chaos_lib);
      l.env.push_back(fmt::format("KDET_CHAOS_SEED={:#x}", s.seed));
    }
    if (s.time != Level::inherit) {
      preload.push_back(ctx.faketime_lib);
      l.env.push_back("FAKETIME=" + fixed_time());
      l.env.push_back("FAKETIME_FMT=%s");
      l.env.push_back("FAKETIME_NO_CACHE=1");
      l.env.push_back("DONT_FAKE_MONOTONIC=1");
      // libfaketime also shifts the times stat() reports by the clock's offset from the real
      // start: under time=fixed a file's time then moved with each start (a fixed level that
      // varies), and while kdet sets the files' times itself (mtime) the clock and the files are
      // two factors. Only time=vary with mtime=real keeps the shift (time acts through files).
      if (s.mtime != Level::inherit || s.time == Level::fixed) l.env.push_back("NO_FAKE_STAT=1");
    }
    if (!preload.empty()) l.env.push_back("LD_PRELOAD=" + preload_list(preload));
  }
  // A worker that lives on keeps the seed it started with; fresh ones get their run's (plan_run).
  if (s.hashseed != Level::inherit)
    l.env.push_back(fmt::format("PYTHONHASHSEED={}",
                                s.hashseed == Level::fixed ? 0 : python_hash_seed(s.seed)));
  return l;
}

namespace {

// mtime: one time per run for every named file (and an exec compiler's input), on copies in a
// folder of the run's own; SOURCE_DATE_EPOCH says the same time.
void plan_file_times(const Setting& s, const Context& ctx, uint64_t run_index, uint64_t run_seed,
                     RunPerturbation& p) {
  if (s.mtime == Level::inherit) return;
  const int64_t t =
      s.mtime == Level::fixed
          ? k_fixed_epoch
          : k_vary_epoch_from + static_cast<int64_t>(pick(run_seed, 9) % k_vary_epoch_span);
  p.env.push_back(fmt::format("SOURCE_DATE_EPOCH={}", t));
  std::vector<std::string> files;
  for (size_t i = 0; i < ctx.named_files.size(); ++i) {
    // A name relative to the working folder, under cwd=vary: kdet's own folder, where the copy
    // goes at that name (no bind), as it would be found in the user's folder.
    const std::string rel = i < ctx.named_in_cwd.size() ? ctx.named_in_cwd[i] : "";
    if (!rel.empty() && s.cwd == Level::vary && !p.cwd.empty())
      p.file_times.push_back({p.cwd + "/" + rel, "", t, ctx.named_files[i]});
    else
      files.push_back(ctx.named_files[i]);
  }
  if (ctx.exec_backend) {
    if (p.copy_input)
      p.file_times.push_back({p.input_path, "", t, ""}); // kdet's own copy: set in place
    else if (std::find(files.begin(), files.end(), ctx.input_path) == files.end())
      files.insert(files.begin(), ctx.input_path);
  }
  if (files.empty()) return;
  std::string dir =
      fmt::format("{}/m{}-{}", ctx.session_dir, run_index, random_name(pick(run_seed, 10), 6));
  p.make_dirs.push_back(dir);
  for (size_t i = 0; i < files.size(); ++i)
    p.file_times.push_back({files[i], fmt::format("{}/{}", dir, i), t, ""});
}

// tz, home, cpus, hostname: reprotest's variations that a compile can see.
void plan_host(const Setting& s, const Context& ctx, uint64_t run_seed, int slot,
               RunPerturbation& p) {
  if (s.tz == Level::fixed)
    add_fixed(p.env, "tz");
  else if (s.tz == Level::vary)
    p.env.push_back(std::string("TZ=") + k_timezones[pick(run_seed, 11) % std::size(k_timezones)]);
  // Never created, so a compile never writes into it (reprotest's /nonexistent/first-build).
  if (s.home == Level::fixed)
    add_fixed(p.env, "home");
  else if (s.home == Level::vary)
    p.env.push_back("HOME=/nonexistent/kdet-home-" + random_name(pick(run_seed, 12), 8));
  if (s.cpus == Level::fixed && !ctx.usable_cpus.empty()) {
    // One CPU in every run; slot k takes the k-th usable one, so that -j N slots do not all
    // queue on the first CPU (their probes then ran past the probe limit and seemed broken).
    p.cpus = {ctx.usable_cpus[static_cast<size_t>(slot) % ctx.usable_cpus.size()]};
  } else if (s.cpus == Level::vary && !ctx.usable_cpus.empty()) {
    // A seeded subset of 1..all the usable CPUs (a partial Fisher-Yates shuffle).
    std::vector<int> all = ctx.usable_cpus;
    uint64_t r = pick(run_seed, 13);
    size_t n = 1 + r % all.size();
    for (size_t i = 0; i < n; ++i) {
      r = mix_seed(r, i);
      std::swap(all[i], all[i + r % (all.size() - i)]);
    }
    p.cpus.assign(all.begin(), all.begin() + static_cast<long>(n));
    std::sort(p.cpus.begin(), p.cpus.end());
  }
  if (s.hostname == Level::fixed) {
    p.hostname = "kdet-host";
    p.domainname = "kdet-domain";
  } else if (s.hostname == Level::vary) {
    p.hostname = "h" + random_name(pick(run_seed, 14), 7);
    p.domainname = "d" + random_name(pick(run_seed, 15), 7);
  }
}

} // namespace

RunPerturbation plan_run(const Setting& s, const Context& ctx, uint64_t run_index,
                         uint64_t run_seed, int slot) {
  RunPerturbation p;
  auto slash = ctx.input_path.find_last_of('/');
  std::string base = ctx.input_path.substr(slash + 1);
  auto dot = base.find_last_of('.');
  std::string ext = dot == std::string::npos ? "" : base.substr(dot);
  p.input_path = ctx.input_path;
  p.input_name = base;
  if (s.path == Level::vary) {
    std::string dir =
        fmt::format("{}/p{}-{}", ctx.session_dir, run_index, random_name(pick(run_seed, 1), 6));
    p.input_name = random_name(pick(run_seed, 2), 4 + pick(run_seed, 3) % 9) + ext;
    p.input_path = dir + "/" + p.input_name;
    p.make_dirs.push_back(dir);
    p.copy_input = ctx.exec_backend;
  }
  if (s.cwd == Level::vary) {
    p.cwd = fmt::format("{}/c{}-{}", ctx.session_dir, run_index, random_name(pick(run_seed, 4), 8));
    p.make_dirs.push_back(p.cwd);
  } else if (s.cwd == Level::fixed) {
    p.cwd = ctx.base_cwd;
  }
  if (s.tmpdir == Level::vary) {
    std::string t =
        fmt::format("{}/t{}-{}", ctx.session_dir, run_index, random_name(pick(run_seed, 5), 8));
    p.make_dirs.push_back(t);
    p.env.push_back("TMPDIR=" + t);
  }
  if (s.time != Level::inherit) {
    // Fixed: one instant for every run. Vary: the real time shifted by a seeded offset of up to
    // ten years either way (libfaketime's "+N"/"-N" seconds form).
    std::string t = fixed_time();
    if (s.time == Level::vary) {
      long long offset =
          static_cast<long long>(pick(run_seed, 6) % (20ULL * 365 * 86400)) - 10LL * 365 * 86400;
      t = fmt::format("{:+d}", offset);
    }
    p.env.push_back("FAKETIME=" + t);
    if (ctx.exec_backend) {
      p.env.push_back("FAKETIME_FMT=%s");
      p.env.push_back("FAKETIME_NO_CACHE=1");
      p.env.push_back("DONT_FAKE_MONOTONIC=1");
      if (s.mtime != Level::inherit || s.time == Level::fixed)
        p.env.push_back("NO_FAKE_STAT=1"); // as in plan_launch
    }
  }
  plan_file_times(s, ctx, run_index, run_seed, p);
  plan_host(s, ctx, run_seed, slot, p);
  if (s.locale == Level::fixed) {
    add_fixed(p.env, "locale");
  } else if (s.locale == Level::vary) {
    const char* l = k_locales[pick(run_seed, 7) % std::size(k_locales)];
    p.env.push_back(std::string("LC_ALL=") + l);
    p.env.push_back(std::string("LANG=") + l);
  }
  if (s.umask == Level::fixed)
    p.umask = 0022;
  else if (s.umask == Level::vary)
    p.umask = static_cast<int>(k_umasks[pick(run_seed, 8) % std::size(k_umasks)]);
  if (s.threadvars == Level::fixed) {
    add_fixed(p.env, "threadvars");
  } else if (s.threadvars == Level::vary) {
    unsigned hw = std::max(2u, ctx.hardware_threads > 0 ? ctx.hardware_threads
                                                        : std::thread::hardware_concurrency());
    for (size_t i = 0; i < thread_count_variables().size(); ++i) {
      unsigned n = 1 + static_cast<unsigned>(pick(run_seed, 20 + i) % hw);
      p.env.push_back(fmt::format("{}={}", thread_count_variables()[i], n));
    }
  }
  for (size_t i = 0; i < s.env_vary.size(); ++i) {
    const auto& [key, values] = s.env_vary[i];
    p.env.push_back(key + "=" + values[pick(run_seed, 40 + i) % values.size()]);
  }
  if (s.heap == HeapMode::chaos) {
    if (ctx.exec_backend) {
      p.env.push_back("LD_PRELOAD=" + preload_list({ctx.chaos_lib}));
      p.env.push_back(fmt::format("KDET_CHAOS_SEED={:#x}", run_seed));
    } else {
      p.chaos_reseed = true;
      p.chaos_seed = run_seed;
    }
  }
  if (ctx.exec_backend && s.time != Level::inherit) {
    // Merge with a chaos preload if both apply.
    std::string preload = ctx.faketime_lib;
    for (auto& e : p.env) {
      if (e.rfind("LD_PRELOAD=", 0) == 0) {
        e += ":" + preload;
        preload.clear();
      }
    }
    if (!preload.empty()) p.env.push_back("LD_PRELOAD=" + preload_list({preload}));
  }
  if (s.hashseed == Level::vary)
    p.env.push_back(fmt::format("PYTHONHASHSEED={}", python_hash_seed(run_seed)));
  p.pid_namespace = ctx.exec_backend && s.pid == Level::fixed;
  return p;
}

} // namespace kdet::perturb
