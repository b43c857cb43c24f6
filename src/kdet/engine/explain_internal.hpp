//===- engine/explain_internal.hpp - explain's parts shared between its files -===//
#pragma once

#include "kdet/engine/explain.hpp"

namespace kdet::engine {

// The cell runner that drives engine::execute; fills `identity` from the first cell.
CellRunner execute_runner(const ExplainOptions& opt, const std::vector<Factor>& factors,
                          backend::Identity& identity);

} // namespace kdet::engine
