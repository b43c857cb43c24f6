//===- report/builds_inside.hpp - what builds saw inside the pipeline's processes ===//
//
// The parts of the builds report about compilers inside the pipeline's processes
// (capture/inprocess.hpp) and stages that are files the build wrote
// (capture/taps.hpp): the first varying stage named where it happened, the
// compilers kdet could not see into, the kept stage files. Shared by the text,
// JSON and HTML renderings (builds_report.cpp, builds_html.cpp).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kdet/capture/builds.hpp"

#include <nlohmann/json.hpp>
#include <string>

namespace kdet::report {

// The first line of a varying kernel's detail, or "" where the generic wording holds
// (a compile kdet interposed or ran as a command): "first varies at Triton's ptx stage
// (llir -> ptx, inside the process); ttir, ttgir and llir the same in all 4 builds".
std::string inside_varies_words(const capture::Kernel& k, size_t builds);

// The summary's lines on compilers kdet could not see into, on stage taps, and on what a
// run of builds cannot show (each line starts with two spaces, ends with a newline).
std::string inside_text(const capture::BuildsResult& r);

// JSON `compilers_inside` (every classified file, the builds that had it) and `taps`.
nlohmann::json inside_json(const capture::BuildsResult& r);

// The same for the HTML page (a section, escaped).
std::string inside_html(const capture::BuildsResult& r);

} // namespace kdet::report
