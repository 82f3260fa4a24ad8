// perflab: the command-line entry point. All logic lives in cli.cc and the
// command families so it can be tested in-process.
#include <iostream>

#include "tools/perflab/cli.h"

int main(int argc, char** argv) {
  return perflab::cli::Main(argc, argv, std::cout, std::cerr);
}
