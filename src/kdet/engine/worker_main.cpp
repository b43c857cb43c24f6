#include "kdet/engine/worker_main.hpp"
namespace kdet::engine {
int worker_main(int, char**) { return 2; }
}
