#include "kdet/diff/internal.hpp"
namespace kdet::diff::detail {
Report compare_cubin(std::string_view a, std::string_view b) { return compare_binary(a, b); }
}
