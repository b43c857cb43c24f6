// The kdet executable: everything lives in kdet_core; this only hands over.
#include "kdet/cli/main.hpp"

int main(int argc, char** argv) {
  return kdet::cli::kdet_main(argc, argv);
}
