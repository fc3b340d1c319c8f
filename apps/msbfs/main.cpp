// opsparse-msbfs: multi-source BFS as masked sparse products (see msbfs.hpp).
#include <iostream>

#include "msbfs/msbfs_cli.hpp"

int main(int argc, char** argv) {
  return opsparse::msbfs::run_cli(argc, argv, std::cout, std::cerr);
}
