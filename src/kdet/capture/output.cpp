//===- capture/output.cpp - bundle folders, JSON and summary of a capture ---===//
#include "kdet/capture/output.hpp"

#include "kdet/capture/blobs.hpp"
#include "kdet/capture/bundle_pack.hpp"
#include "kdet/capture/kernel_names.hpp"
#include "kdet/capture/replay.hpp"
#include "kdet/stats/evidence.hpp"
#include "kdet/util/error.hpp"
#include "kdet/util/fs.hpp"
#include "kdet/util/strings.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <functional>
#include <map>
#include <set>
#include <unistd.h>

namespace kdet::capture {

namespace {

// nvJitLinkInputType -> file extension (the one nvJitLink's own tools use).
const char* jit_input_ext(int type) {
  switch (type) {
  case 1:
    return ".cubin";
  case 2:
    return ".ptx";
  case 3:
    return ".ltoir";
  case 4:
    return ".fatbin";
  case 5:
    return ".o";
  case 6:
    return ".a";
  default:
    return ".bin";
  }
}

// File name of input `i` (number `n`) inside a bundle; empty when it has no bytes.
std::string input_file(const Input& in, size_t n, const std::string& first_bytes) {
  if (in.tag == "name_expr") return "";
  if (in.tag == "file") return fmt::format("inputs/{:02}-{}", n, exec_input_name(in.name));
  if (in.tag == "jit_input")
    return fmt::format("inputs/{:02}-jit_input{}", n, jit_input_ext(in.type));
  std::string ext = in.tag == "module"   ? (starts_with(first_bytes, "BC\xc0\xde") ? ".bc" : ".ll")
                    : in.tag == "source" ? ".cu"
                                         : ".h";
  return fmt::format("inputs/{:02}-{}{}", n, in.tag, ext);
}

nlohmann::json input_json(const Input& in, const std::string& file) {
  nlohmann::json j = {{"tag", in.tag}};
  if (in.tag != "name_expr") {
    j["hash"] = in.hash;
    j["size"] = in.size;
    j["file"] = file.empty() ? nlohmann::json(nullptr) : nlohmann::json(file);
  }
  if (in.tag == "module") j["lazy"] = in.lazy;
  if (in.tag == "jit_input") j["type"] = in.type;
  j["name"] = in.name ? nlohmann::json(*in.name) : nlohmann::json(nullptr);
  return j;
}

} // namespace

std::string output_file(const std::string& kind, const std::string& hash) {
  std::string ext = kind == "nvvm" ? "ptx" : kind;
  return fmt::format("outputs/{}.{}", hash, ext);
}

const std::vector<KindInfo>& capture_kinds() {
  static const std::vector<KindInfo> k = {
      {"nvvm", true}, {"nvrtc", true}, {"nvjitlink", true}, {"exec", true}};
  return k;
}

nlohmann::json bundle_json(const Bundle& b) {
  nlohmann::json j = {{"schema", k_bundle_schema},
                      {"id", b.id},
                      {"kind", b.kind},
                      {"library", {{"path", b.lib}, {"hash", b.lib_hash}, {"size", b.lib_size}}},
                      {"options", b.options},
                      {"compiles", b.compiles},
                      {"unfinished", b.unfinished},
                      {"nondeterministic", b.varies},
                      {"kernels", b.kernels}};
  // A tapped stage's replay: its recipe (`library`, in the bundle folder), the function called,
  // and the interpreter (null: python3 on PATH; kdet run's --python chooses another).
  if (b.kind == "python") {
    j["recipe"] = {{"file", b.lib}, {"function", b.function}};
    j["python"] = nullptr;
  }
  j["inputs"] = nlohmann::json::array();
  for (size_t n = 0; n < b.inputs.size(); ++n)
    j["inputs"].push_back(input_json(b.inputs[n], input_file(b.inputs[n], n, "")));
  j["results"] = nlohmann::json::object();
  for (const auto& [rc, count] : b.results)
    j["results"][std::to_string(rc)] = count;
  j["outputs"] = nlohmann::json::array();
  for (const auto& key : b.outputs)
    j["outputs"].push_back({{"kind", key.first},
                            {"hash", key.second},
                            {"size", b.sizes.at(key.second)},
                            {"count", b.counts.at(key)},
                            {"file", output_file(key.first, key.second)}});
  return j;
}

void write_bundles(int out_fd, const std::string& shown, const BlobStore& blobs,
                   std::vector<Bundle>& bundles, BundlePackWriter* pack) {
  for (auto& b : bundles) {
    if (b.kind == "python") continue; // a tapped stage's, written by write_tap_bundles
    std::string dir = "bundles/" + b.id;
    // One file of the bundle: into the pack, else into its folder.
    auto put = [&](const std::string& file, const std::string& data) {
      if (pack)
        pack->add(b.id, file, data);
      else
        write_file_beneath(out_fd, dir + "/" + file, data, shown + "/" + dir + "/" + file);
    };
    nlohmann::json j = bundle_json(b);
    // The kernels it compiles, by entry name: the PTX it gave names them as the GPU will,
    // else its NVVM IR input (reports name a bundle's jobs by them, not by its id).
    std::vector<std::string> from_outputs, from_inputs;
    auto add_names = [](std::vector<std::string>& to, const std::string& text) {
      for (auto& n : entry_names(text))
        if (std::find(to.begin(), to.end(), n) == to.end()) to.push_back(std::move(n));
    };
    for (size_t n = 0; n < b.inputs.size(); ++n) {
      const Input& in = b.inputs[n];
      if (in.tag == "name_expr") continue;
      std::optional<std::string> data = blobs.get(in.blob()); // the bytes as given
      if (data) add_names(from_inputs, *data);
      std::string file = input_file(in, n, data ? data->substr(0, 4) : "");
      j["inputs"][n]["file"] = data ? nlohmann::json(file) : nlohmann::json(nullptr);
      if (data) put(file, *data);
    }
    for (size_t n = 0; n < b.outputs.size(); ++n) {
      const auto& [kind, hash] = b.outputs[n];
      // The bytes as the library handed them out, NUL kept: not another blob of this PTX.
      std::optional<std::string> data = blobs.get(b.blob(hash));
      std::string file = output_file(kind, hash);
      if (!data) {
        j["outputs"][n]["file"] = nullptr;
        continue;
      }
      add_names(from_outputs, *data);
      put(file, *data);
    }
    b.kernels = from_outputs.empty() ? from_inputs : from_outputs;
    j["kernels"] = b.kernels;
    put("bundle.json", json_text(j) + "\n");
  }
  if (pack) {
    Fd dir(make_dirs_beneath(out_fd, "bundles", 0755));
    if (!dir.ok()) throw Error::format("cannot create {}/bundles: {}", shown, beneath_error(errno));
    pack->write_index(dir.get(), shown + "/bundles");
  }
  write_file_beneath(out_fd, "manifest.toml", scan_manifest_text(shown, bundles),
                     shown + "/manifest.toml");
}

std::string scan_manifest_text(const std::string& dir, const std::vector<Bundle>& bundles) {
  std::string listed, skipped;
  size_t n = 0;
  for (const auto& b : bundles) {
    std::string folder = dir + "/bundles/" + b.id;
    // What the pipeline saw, so a scan's verdict can be read against it.
    bool failed = !b.results.empty() && b.results.count(0) == 0;
    std::string note =
        fmt::format("{}, {} compile{}{}{}{}", b.kind, b.compiles, b.compiles == 1 ? "" : "s",
                    b.varies ? ", nondeterministic in the pipeline" : "",
                    failed ? ", failed in the pipeline" : "",
                    b.kernels.empty() ? "" : "; kernel " + display_names(b.kernels));
    try {
      std::optional<ReplayPlan> plan = bundle_replay_plan(folder, /*materialize=*/false);
      if (!plan) throw Error("no bundle.json");

      listed += fmt::format("  \"bundles/{}\", # {}\n", b.id, note);
      ++n;
    } catch (const Error& e) {
      // The reason without the folder it starts with; one line, as a TOML comment is.
      std::string why = e.what();
      if (starts_with(why, folder + ": ")) why = why.substr(folder.size() + 2);
      for (char& c : why)
        if (c == '\n' || c == '\r') c = ' ';
      skipped += fmt::format("#   bundles/{} ({}): {}\n", b.id, note, why);
    }
  }
  std::string s =
      "# Written by kdet capture: each captured compile that replays is a scan job of its own,\n"
      "# with the library it was captured with (checked by content hash), its input and its\n"
      "# options (docs/SCAN.md, \"Bundles\"). Run it as it is:\n"
      "#   kdet scan manifest.toml --db scan.db\n"
      "name = \"capture\"\n";
  if (n > 0)
    s += "bundles = [\n" + listed + "]\n";
  else
    s += "# No captured compile can be replayed, so this manifest has no jobs.\n";
  if (!skipped.empty()) s += "# Not replayable, so not listed:\n" + skipped;
  s += "\n[budget]\n"
       "# Runs per job until a rate above this would have shown (0.05: 59 runs without variance).\n"
       "target_rate = 0.05\n";
  return s;
}

int capture_exit_code(const CaptureResult& r) {
  if ((!r.finished && r.pipeline_exit != 0) || r.compiles.empty()) return k_exit_compiler_failed;
  for (const auto& b : r.bundles)
    if (b.varies) return k_exit_nondeterministic;
  return k_exit_deterministic;
}

namespace {

nlohmann::json compile_json(const Compile& c) {
  nlohmann::json outs = nlohmann::json::object();
  for (const auto& o : c.outputs())
    outs[o.kind] = o.hash;
  nlohmann::json j = {{"kind", c.kind()},
                      {"bundle", c.bundle()},
                      {"output", c.outputs().empty() ? nlohmann::json(nullptr)
                                                     : nlohmann::json(c.outputs()[0].hash)},
                      {"outputs", outs},
                      {"result", c.result ? nlohmann::json(*c.result) : nlohmann::json(nullptr)},
                      {"thread", c.thread},
                      {"pid", c.pid},
                      {"time_ns", c.time_ns},
                      {"library", c.lib()},
                      {"record", c.record}};
  if (c.kind() == "exec") j["exec"] = exec_json(c);
  return j;
}

nlohmann::json bundle_entry_json(const Bundle& b) {
  nlohmann::json bj = bundle_json(b);
  bj.erase("schema");
  nlohmann::json hashes = nlohmann::json::array();
  for (const auto& o : b.outputs)
    hashes.push_back(o.second);
  bj["output_counts"] = bj["outputs"];
  bj["outputs"] = hashes;
  return bj;
}

} // namespace

nlohmann::json capture_json(const CaptureResult& r) {
  nlohmann::json j = capture_json_head(r);
  for (const auto& c : r.compiles)
    j["compiles"].push_back(compile_json(c));
  for (const auto& b : r.bundles)
    j["bundles"].push_back(bundle_entry_json(b));
  return j;
}

bool write_capture_json(const CaptureResult& r, const std::function<bool(std::string_view)>& put) {
  std::string head = json_text(capture_json_head(r));
  // The head's two empty lists, in the order the head has them, filled element by element:
  // each element dumped alone, indented as the document's top-level arrays' elements are.
  struct List {
    size_t at;
    std::string empty;
    size_t n;
    std::function<nlohmann::json(size_t)> element;
  };
  std::vector<List> lists;
  auto add = [&](const char* key, size_t n, std::function<nlohmann::json(size_t)> element) {
    std::string empty = fmt::format("\n  \"{}\": []", key);
    size_t at = head.find(empty);
    if (at != std::string::npos && n > 0) lists.push_back({at, empty, n, std::move(element)});
  };
  add("compiles", r.compiles.size(), [&](size_t i) { return compile_json(r.compiles[i]); });
  add("bundles", r.bundles.size(), [&](size_t i) { return bundle_entry_json(r.bundles[i]); });
  std::sort(lists.begin(), lists.end(), [](const List& a, const List& b) { return a.at < b.at; });
  std::string buf; // written out every 64 KiB
  auto flush = [&] {
    bool ok = put(buf);
    buf.clear();
    return ok;
  };
  size_t done = 0; // of `head`
  for (const auto& l : lists) {
    buf.append(head, done, l.at - done);
    buf += l.empty.substr(0, l.empty.size() - 1); // "\n  \"KEY\": ["
    for (size_t i = 0; i < l.n; ++i) {
      std::string e = json_text(l.element(i));
      buf += i ? ",\n    " : "\n    ";
      for (char ch : e) {
        buf += ch;
        if (ch == '\n') buf += "    ";
      }
      if (buf.size() >= (1 << 16) && !flush()) return false;
    }
    buf += "\n  ]";
    done = l.at + l.empty.size();
  }
  buf.append(head, done);
  buf += '\n';
  return flush();
}

std::string capture_json_text(const CaptureResult& r) {
  std::string text;
  write_capture_json(r, [&](std::string_view s) {
    text += s;
    return true;
  });
  text.pop_back(); // the newline
  return text;
}

nlohmann::json capture_json_head(const CaptureResult& r) {
  nlohmann::json j = {
      {"schema", k_capture_schema},
      {"command", r.command},
      {"pipeline", {{"status", r.pipeline_status}, {"exit_code", r.pipeline_exit}}},
      {"seconds", r.seconds},
      {"out", r.out_dir.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.out_dir)},
      {"problems", r.problems}};
  // The two lists every compile and bundle is in: filled by capture_json(r), or element by
  // element into the text by capture_json_text.
  j["compiles"] = nlohmann::json::array();
  j["bundles"] = nlohmann::json::array();
  nlohmann::json kinds = nlohmann::json::object();
  nlohmann::json not_seen = nlohmann::json::array();
  for (const auto& k : capture_kinds()) {
    size_t n = 0;
    for (const auto& c : r.compiles)
      n += c.kind() == k.name;
    kinds[k.name] = {{"compiles", n}, {"captured", k.captured}};
    if (n == 0) not_seen.push_back(k.name);
  }
  j["kinds"] = kinds;
  j["not_seen"] = not_seen;
  j["notes"] = notes_json(r.notes);
  j["children"] = children_json(r.children);
  j["compilers_inside"] = nlohmann::json::array();
  for (const auto& ci : r.inside)
    j["compilers_inside"].push_back({{"path", ci.path},
                                     {"inside", ci.inside},
                                     {"seam", to_string(ci.seam)},
                                     {"pids", ci.pids},
                                     {"words", ci.words()}});
  j["taps"] = r.taps;
  j["loads"] = loads_json(r.loads);
  j["exit_code"] = capture_exit_code(r);
  return j;
}

void find_compilers_inside(const std::string& raw, CaptureResult& r) {
  r.inside = compilers_inside(read_maps(raw, r.problems), r.compiles);
}

void find_loads(const std::string& raw, const BlobStore& blobs, CaptureResult& r) {
  std::vector<Compile> loads = read_load_records(raw);
  r.loads = loaded_modules(loads, r.compiles, blobs, r.inside);
}

namespace {

// The compilers kdet could not see into, what they may have made, and whether a build of
// one compile per bundle can show variance at all.
std::string inside_summary(const CaptureResult& r) {
  std::string s;
  size_t blind = 0;
  for (const auto& ci : r.inside)
    if (ci.seam == Seam::blind) {
      ++blind;
      s += fmt::format("  BLIND      {}: kdet cannot see the compiles inside it ({})\n", ci.words(),
                       ci.path);
    }
  if (blind && r.compiles.empty())
    s += "  warning    no compile was seen while a compiler kdet cannot see into was loaded:\n"
         "             this capture is blind, not clean (exit 3); keep that compiler's own\n"
         "             files with --builds N --artifacts GLOB (docs/CAPTURE.md, \"Stage taps\")\n";
  // Inputs that look made by a compiler but were made by no compile kdet saw.
  std::set<std::string> produced;
  for (const auto& c : r.compiles)
    for (const auto& o : c.outputs())
      produced.insert(o.hash);
  std::map<std::string, size_t> unseen;
  for (const auto& c : r.compiles) {
    bool ptx_in = std::any_of(c.inputs().begin(), c.inputs().end(), [&](const Input& in) {
      return input_form(in) == ArtifactForm::ptx && !produced.count(in.hash);
    });
    if (!ptx_in) continue;
    auto makers = unseen_makers(r.inside, c);
    if (!makers.empty()) ++unseen[makers_words(makers)];
  }
  for (const auto& [words, n] : unseen)
    s += fmt::format("  unseen     {} compile{} took PTX made inside the process, not by a compile "
                     "kdet saw ({})\n",
                     n, n == 1 ? "" : "s", words);
  s += loads_summary(r.loads);
  if (r.taps)
    s += fmt::format("  taps       {} files kept in {}/taps (--artifacts)\n", r.taps, r.out_dir);
  bool once = !r.bundles.empty() && std::all_of(r.bundles.begin(), r.bundles.end(),
                                                [](const Bundle& b) { return b.compiles == 1; });
  if (once)
    s += "  unproven   every bundle compiled once in this build, so it cannot show variance:\n"
         "             compare builds (kdet capture --builds 3 --out DIR -- CMD) or replay them\n"
         "             (kdet scan DIR/manifest.toml)\n";
  return s;
}

} // namespace

std::string capture_summary(const CaptureResult& r) {
  std::string s =
      r.finished ? fmt::format("kdet capture --finish: bundles made from the records in {}/raw "
                               "(how the pipeline ended was not seen)\n",
                               r.out_dir)
                 : fmt::format("kdet capture: the pipeline {}{} after {}\n",
                               starts_with(r.pipeline_status, "killed") ? "was " : "",
                               r.pipeline_status, human_seconds(r.seconds));
  std::string per_kind, never;
  for (const auto& k : capture_kinds()) {
    size_t n = 0;
    for (const auto& c : r.compiles)
      n += c.kind() == k.name;
    if (!k.captured) {
      never +=
          fmt::format("{}{} (not captured by this version)", never.empty() ? "" : ", ", k.name);
      continue;
    }
    per_kind += fmt::format("{}{} {}", per_kind.empty() ? "" : ", ", k.name, n);
    if (n == 0) never += fmt::format("{}{}", never.empty() ? "" : ", ", k.name);
  }
  size_t varied = 0;
  for (const auto& b : r.bundles)
    varied += b.varies;
  s += fmt::format("  compiles   {}\n", per_kind);
  s += fmt::format("  bundles    {} ({} nondeterministic)\n", r.bundles.size(), varied);
  // What the bundles compiled more than once would have shown, in the words every command uses.
  size_t repeated = 0, repeat_compiles = 0;
  for (const auto& b : r.bundles)
    if (b.compiles - std::min(b.compiles, b.unfinished) > 1) {
      ++repeated;
      repeat_compiles += b.compiles - b.unfinished;
    }
  if (varied == 0 && repeated > 0)
    s += fmt::format("             {} ({} compiled more than once)\n",
                     stats::no_variance_seen(repeat_compiles, "compile"),
                     plural(repeated, "bundle"));
  s += fmt::format("  never seen {}\n", never);
  s += notes_summary(r.notes, r.children);
  bool lost = std::any_of(r.notes.begin(), r.notes.end(), [](const Note& n) {
    return n.kind == "lost" || n.kind.find("uncaptured") != std::string::npos ||
           n.kind == "spawn-unresolved";
  });
  if (r.compiles.empty() && (lost || !r.children.report.left.empty()))
    s += "  warning    no compile was captured: see above for compiles lost, programs started\n"
         "             without the preload and processes killed still running\n";
  else if (r.compiles.empty())
    s += "  warning    no compile was captured: the pipeline made none through a dynamically\n"
         "             loaded libNVVM, NVRTC or nvJitLink, nor ran a listed compiler command (a\n"
         "             statically linked library compiler cannot be seen)\n";
  s += inside_summary(r);
  for (const auto& b : r.bundles) {
    if (!b.varies) continue;
    // By entry name first: the bundle id is where to find it.
    s += fmt::format("  NONDETERMINISTIC {}bundle {} ({}, {} compiles, {})\n",
                     b.kernels.empty() ? "" : "kernel " + display_names(b.kernels) + " in ", b.id,
                     b.kind, b.compiles, b.lib.empty() ? "library unknown" : b.lib);
    for (const auto& key : b.outputs)
      s += fmt::format("             {} {} x{}\n", key.first, key.second, b.counts.at(key));
    if (b.results.size() > 1)
      for (const auto& [rc, n] : b.results)
        s += fmt::format("             result {} x{}\n", rc, n);
    if (b.places.size() > 1)
      s += fmt::format("             note: its compiles ran with {} different working folders or "
                       "input paths;\n             an output that embeds a path (nvcc -lineinfo, "
                       "-G) differs for that alone:\n             `kdet explain` on the bundle "
                       "tests the path factor\n",
                       b.places.size());
  }
  for (const auto& p : r.problems)
    s += fmt::format("  note       {}\n", p);
  if (!r.finished && r.pipeline_exit != 0)
    s += fmt::format("  FAILED     the pipeline {}{}\n",
                     starts_with(r.pipeline_status, "killed") ? "was " : "", r.pipeline_status);
  if (!r.out_dir.empty()) {
    s += fmt::format("  bundles in {}/bundles, raw records in {}/raw\n", r.out_dir, r.out_dir);
    s += fmt::format("  replay     kdet scan {}/manifest.toml --db {}/scan.db\n", r.out_dir,
                     r.out_dir);
  }
  return s;
}

} // namespace kdet::capture
