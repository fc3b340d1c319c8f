// opsparse-triangle: triangle counting as masked sparse products (see triangle.hpp).
#include <iostream>

#include "triangle/triangle_cli.hpp"

int main(int argc, char** argv) {
  return opsparse::triangle::run_cli(argc, argv, std::cout, std::cerr);
}
