//===- backend/exec_template.hpp - exec command templates, checked ----------===//
//
// An exec compiler is given as a template: `ptxas -arch=sm_90a {input} -o
// {output}`. It is split into argv words once, without a shell, and each
// placeholder is replaced inside its own word: a value is never split or
// re-parsed, so a file name can never become a second argument or code.
// Every place that accepts a template (--cmd, kdet cc, scan manifests) checks
// it here first, so a typo such as {outptu} is a usage error, not a verdict.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <map>
#include <string>
#include <vector>

namespace kdet::backend {

// The placeholders an exec template may name at run time: input, output, workdir.
const std::vector<std::string>& template_placeholders();

// Splits `text` into argv words and checks it; throws Error (exit 2) naming `where`
// when it is empty, names a placeholder outside `template_placeholders()` plus
// `extra` (scan's "target"), or puts a placeholder into the code a shell or
// interpreter would parse (`sh -c '... {input} ...'`), with the safe spelling.
std::vector<std::string> check_command_template(const std::string& text, const std::string& where,
                                                const std::vector<std::string>& extra = {});

// Checks the extension given to {output} (--output-ext, a manifest's output_ext) and
// returns it without one leading dot ("cubin" from ".cubin"). Throws Error (exit 2)
// naming `where` unless it is empty or up to 32 of [A-Za-z0-9_+-.] with no "..":
// a '/' would put the output outside the run's own folder.
std::string check_output_ext(const std::string& ext, const std::string& where);

// Whether any word of `words` names the placeholder `{name}`.
bool template_names(const std::vector<std::string>& words, const std::string& name);

// Replaces the placeholders in one word with `values` in a single pass (a value
// that itself contains "{output}" stays as it is); unknown names are kept as text.
std::string expand_word(const std::string& word, const std::map<std::string, std::string>& values);

} // namespace kdet::backend
